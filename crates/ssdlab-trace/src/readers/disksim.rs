//! DiskSim ASCII traces (`disksim`).
//!
//! One request per line, five whitespace-separated fields:
//!
//! ```text
//! arrival_ms  devno  blkno  bcount  flags
//! 26.214000   0      303574 8       0
//! ```
//!
//! Units: `arrival_ms` is the arrival time in milliseconds as a decimal fraction, converted
//! exactly to nanoseconds (digits below 1 ns are dropped); `blkno` and `bcount` count
//! 512-byte sectors and are converted to bytes. `flags` is an integer bit field: bit 0 set
//! means read, clear means write (DiskSim's `READ` flag); the other bits are ignored.
//! DiskSim ASCII has no trim.
//!
//! Device column: `devno` is honoured and becomes [`Record::device`](crate::Record::device).
//!
//! The FlashSim variant ([`flashsim`](super::flashsim)) has the same layout with sizes in
//! 4 KiB pages, and [`bytes5`](super::bytes5) with offsets and sizes in bytes;
//! [`detect_format`](crate::detect_format) tells them apart from sequential runs and
//! alignment over many lines, or refuses and asks for `--format`.
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::five_columns::{self, FiveColumns, OpColumn};
use super::line::DataLine;
use crate::TraceError;

/// Streaming reader of DiskSim ASCII traces. See the [module docs](self).
pub struct DisksimReader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: std::io::BufRead> DisksimReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        DisksimReader { d: Driver::new(reader, file), state: () }
    }
}

const LAYOUT: FiveColumns = FiveColumns {
    names: ["time", "device", "offset", "size", "flags"],
    what: "whitespace-separated fields for DiskSim",
    layout: "arrival_ms devno blkno bcount flags",
    offset_unit: (512, "sectors"),
    size_unit: (512, "sectors"),
    op: OpColumn::Flags,
};

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    five_columns::parse(&LAYOUT, l)
}

reader_impls!(DisksimReader, "disksim", state, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;
    use crate::Record;

    fn read(text: &str) -> Vec<Result<Record, TraceError>> {
        DisksimReader::new(text.as_bytes(), "d.trace").collect()
    }

    #[test]
    fn parses_units_and_flags() {
        let recs: Vec<Record> = read("26.214000 0 303574 8 0\n78.643 2\t55596 16 1\n100 1 0 1 3\n100.5 1 0 1 2\n")
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            recs[0],
            Record {
                arrival_ns: 26_214_000,
                device: 0,
                offset_bytes: 303574 * 512,
                size_bytes: 4096,
                op: Op::Write,
                hint: None
            }
        );
        assert_eq!(
            (recs[1].arrival_ns, recs[1].device, recs[1].size_bytes, recs[1].op),
            (78_643_000, 2, 8192, Op::Read)
        );
        assert_eq!((recs[2].arrival_ns, recs[2].op), (100_000_000, Op::Read));
        assert_eq!((recs[3].arrival_ns, recs[3].op), (100_500_000, Op::Write));
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("-1.0 0 0 8 1", "time", "negative"),
            ("1.0.0 0 0 8 1", "time", "'1.0.0'"),
            ("1.0 a 0 8 1", "device", "'a'"),
            ("1.0 0 x 8 1", "offset", "'x'"),
            ("1.0 0 0 0 1", "size", "zero-size"),
            ("1.0 0 0 8 R", "flags", "'R'"),
            ("1.0 0 0 8", "flags", "found 4"),
            ("1.0 0 0 8 1 1", "", "found 6"),
        ];
        for &(bad, field, needle) in cases {
            let e = read(&format!("0.0 0 0 8 1\n{bad}\n")).into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "d.trace"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
