//! The byte-unit five-column layout (`bytes5`) that several public replay tools write for
//! MSR Cambridge and Tencent CBS cuts.
//!
//! One request per line, five whitespace-separated fields:
//!
//! ```text
//! time_ms    device  offset_bytes  size_bytes  op
//! 26.214000  0       155430912     4096        0
//! ```
//!
//! Units: `time_ms` is the arrival time in milliseconds as a decimal fraction (an integer
//! is fine), converted exactly to nanoseconds; `offset_bytes` and `size_bytes` are bytes,
//! taken as they are (no sector or page conversion). `op` is `1` for a read and `0` for a
//! write; any other code is an error. No trim.
//!
//! Device column: `device` is honoured and becomes [`Record::device`](crate::Record::device).
//!
//! Quirk: the layout is textually the same as DiskSim's (512-B sectors) and FlashSim's
//! (4 KiB pages): [`detect_format`](crate::detect_format) decides between them from the
//! offsets' and sizes' alignment over many lines, or refuses and asks for `--format`.
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::five_columns::{self, FiveColumns, OpColumn};
use super::line::DataLine;
use crate::TraceError;

/// Streaming reader of byte-unit five-column traces. See the [module docs](self).
pub struct Bytes5Reader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: std::io::BufRead> Bytes5Reader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        Bytes5Reader { d: Driver::new(reader, file), state: () }
    }
}

const LAYOUT: FiveColumns = FiveColumns {
    names: ["time", "device", "offset", "size", "op"],
    what: "whitespace-separated fields for the byte-unit layout",
    layout: "time_ms device offset_bytes size_bytes op",
    offset_unit: (1, "bytes"),
    size_unit: (1, "bytes"),
    op: OpColumn::ReadOneWriteZero("the byte-unit layout"),
};

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    five_columns::parse(&LAYOUT, l)
}

reader_impls!(Bytes5Reader, "bytes5", state, parse);

#[cfg(test)]
mod tests {
    use super::super::driver::reason;
    use super::*;
    use crate::Op;
    use crate::{Record, RecordSource, TimeUnit};

    fn read(text: &str) -> Vec<Result<Record, TraceError>> {
        Bytes5Reader::new(text.as_bytes(), "b.trace").collect()
    }

    #[test]
    fn parses_units() {
        let recs: Vec<Record> =
            read("26.214000\t0\t155430912\t4096\t0\n78 3 28465152 65536 1\n").into_iter().map(Result::unwrap).collect();
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 26_214_000,
                    device: 0,
                    offset_bytes: 155_430_912,
                    size_bytes: 4096,
                    op: Op::Write,
                    hint: None
                },
                Record {
                    arrival_ns: 78_000_000,
                    device: 3,
                    offset_bytes: 28_465_152,
                    size_bytes: 65536,
                    op: Op::Read,
                    hint: None
                },
            ]
        );
    }

    #[test]
    fn a_forced_time_unit_reads_the_column_in_it() {
        let r: Vec<Record> =
            Bytes5Reader::new(&b"1.5 0 0 4096 1\n"[..], "b").time_unit(Some(TimeUnit::S)).map(Result::unwrap).collect();
        assert_eq!(r[0].arrival_ns, 1_500_000_000);
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("x 0 0 4096 1", "time", "'x'"),
            ("1.0 a 0 4096 1", "device", "'a'"),
            ("1.0 0 -1 4096 1", "offset", "negative"),
            ("1.0 0 0 0 1", "size", "zero-size"),
            ("1.0 0 18446744073709551615 4096 1", "size", "exceeds"),
            ("1.0 0 0 4096 2", "op", "unknown op code '2'"),
            ("1.0 0 0", "size", "found 3"),
            ("1.0 0 0 4096 1 1", "", "found 6"),
        ];
        for &(bad, field, needle) in cases {
            let e = read(&format!("0.0 0 0 4096 1\n{bad}\n")).into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "b.trace"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn lenient_skips_and_counts() {
        // A sector-unit line has a size below 512; it parses as bytes all the same, since
        // readers never judge alignment (detection does). Only real field errors are skipped.
        let text = b"0.0 0 8192 4096 1\n0.1 0 16 0 0\nbad\n\n0.2 0 12288 65536 0\n0.3 0 0 4096 7\n0.4 0 7 8 1\n";
        let mut r = Bytes5Reader::new(&text[..], "x").lenient(true);
        let recs: Vec<Record> = r.by_ref().map(Result::unwrap).collect();
        let got: Vec<(u64, u64)> = recs.iter().map(|r| (r.offset_bytes, r.size_bytes)).collect();
        assert_eq!(got, vec![(8192, 4096), (12288, 65536), (7, 8)]);
        assert_eq!(r.skipped(), 4);
        assert_eq!(r.skip_reasons(), vec![(reason::BLANK, 1), (reason::ZERO_SIZE, 1), (reason::MALFORMED, 2)]);
    }
}
