//! FlashSim ASCII traces (`flashsim`), the DiskSim-like variant used by PSU's FlashSim
//! (e.g. the `flashsim-dchoices` traces such as `fin1.trace`).
//!
//! One request per line, five whitespace-separated fields:
//!
//! ```text
//! time_ms    dev  lba     size  op
//! 26.214000  0    303574  1     0
//! ```
//!
//! Units: `time_ms` is the arrival time in milliseconds as a decimal fraction, converted
//! exactly to nanoseconds; `lba` counts **512-byte sectors** (the same numbers as the SPC
//! original: Financial1's `303574` is sector 303574 in `example.ascii` and the
//! reconstructed SPC file; `fin1.trace`'s sizes are the SPC sizes in whole pages, rounded
//! down but at least one); `size` counts **4 KiB pages** (`size * 4096` bytes). `op` is
//! `1` for a read and `0` for a write; any other code is an error. No trim.
//!
//! Device column: `dev` is honoured and becomes [`Record::device`](crate::Record::device)
//! (in `fin1.trace` the SPC ASUs were flattened to device 0).
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::five_columns::{self, FiveColumns, OpColumn};
use super::line::DataLine;
use crate::TraceError;

/// Bytes per FlashSim size unit.
pub const FLASHSIM_PAGE_BYTES: u64 = 4096;

/// Streaming reader of FlashSim ASCII traces. See the [module docs](self).
pub struct FlashsimReader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: std::io::BufRead> FlashsimReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        FlashsimReader { d: Driver::new(reader, file), state: () }
    }
}

const LAYOUT: FiveColumns = FiveColumns {
    names: ["time", "device", "offset", "size", "op"],
    what: "whitespace-separated fields for FlashSim",
    layout: "time_ms dev lba_sectors size_4KiB_pages op",
    offset_unit: (512, "sectors"),
    size_unit: (FLASHSIM_PAGE_BYTES, "4 KiB pages"),
    op: OpColumn::ReadOneWriteZero("FlashSim"),
};

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    five_columns::parse(&LAYOUT, l)
}

reader_impls!(FlashsimReader, "flashsim", state, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;
    use crate::Record;

    fn read(text: &str) -> Vec<Result<Record, TraceError>> {
        FlashsimReader::new(text.as_bytes(), "f.trace").collect()
    }

    #[test]
    fn parses_units() {
        let recs: Vec<Record> =
            read("26.214000\t0\t303574\t1\t0\n78.643000 3 55596 2 1\n").into_iter().map(Result::unwrap).collect();
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 26_214_000,
                    device: 0,
                    offset_bytes: 303574 * 512,
                    size_bytes: 4096,
                    op: Op::Write,
                    hint: None
                },
                Record {
                    arrival_ns: 78_643_000,
                    device: 3,
                    offset_bytes: 55596 * 512,
                    size_bytes: 8192,
                    op: Op::Read,
                    hint: None
                },
            ]
        );
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("x 0 0 1 1", "time", "'x'"),
            ("1.0 0 0 0 1", "size", "zero-size"),
            ("1.0 0 0 4503599627370496 1", "size", "overflows"),
            ("1.0 0 0 1 2", "op", "unknown op code '2'"),
            ("1.0 0 0", "size", "found 3"),
        ];
        for &(bad, field, needle) in cases {
            let e = read(&format!("0.0 0 0 1 1\n{bad}\n")).into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "f.trace"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
