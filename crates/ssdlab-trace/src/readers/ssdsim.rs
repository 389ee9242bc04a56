//! SSDSim ASCII traces (`ssdsim`).
//!
//! One request per line, five whitespace-separated unsigned integers:
//!
//! ```text
//! time_ns  device  lsn_sectors  size_sectors  op
//! 26214000 0       303574       7             0
//! ```
//!
//! Units: `time_ns` is the arrival time in nanoseconds, kept as is (no rebasing);
//! `lsn_sectors` and `size_sectors` count 512-byte sectors and are converted to bytes.
//! `op` is `1` for a read and `0` for a write (SSDSim's `READ 1` / `WRITE 0`); any other
//! code is an error. SSDSim has no trim.
//!
//! Device column: honoured, copied to [`Record::device`](crate::Record::device). (SSDSim
//! itself ignores it; the host model decides whether to.)
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, continuing after an error) are
//! described in [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::line::{self, DataLine};
use crate::{Op, TraceError};
use std::io::BufRead;

/// Streaming reader of SSDSim ASCII traces. See the [module docs](self).
pub struct SsdsimReader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: BufRead> SsdsimReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        SsdsimReader { d: Driver::new(reader, file), state: () }
    }
}

/// SSDSim's op codes: `1` = read, `0` = write.
pub fn ssdsim_op(code: u64) -> Option<Op> {
    match code {
        1 => Some(Op::Read),
        0 => Some(Op::Write),
        _ => None,
    }
}

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    line::parse_sector_columns(l, "SSDSim", ssdsim_op, "SSDSim uses 1 = read, 0 = write").map(Parsed::Record)
}

/// The common line, parsed without a [`DataLine`] (issue 48: SSDSim's trace is read three
/// times a run).
fn fast(text: &[u8]) -> Option<crate::Record> {
    line::sector_columns_fast(text, ssdsim_op)
}

/// The common line at the start of `text`, parsed as `fast` does, and the index of its end
/// (the pre-pass's reading, `crate::prepass`).
pub(crate) fn fast_line(text: &[u8]) -> Option<(crate::Record, usize)> {
    line::sector_columns_line(text, ssdsim_op)
}

reader_impls!(SsdsimReader, "ssdsim", state, parse, fast = fast);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, RecordSource};

    fn read(text: &str) -> (Vec<Result<Record, TraceError>>, u64) {
        let mut r = SsdsimReader::new(text.as_bytes(), "in.ascii");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skipped())
    }

    fn err(text: &str) -> TraceError {
        let (out, _) = read(text);
        out.into_iter().find_map(Result::err).expect("an error")
    }

    #[test]
    fn parses_units_and_ops() {
        let (out, skipped) = read("0 0 303567 7 0\n\n26214000 3 10 1 1\r\n# comment\n");
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(skipped, 1);
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 0,
                    device: 0,
                    offset_bytes: 303567 * 512,
                    size_bytes: 7 * 512,
                    op: Op::Write,
                    hint: None
                },
                Record {
                    arrival_ns: 26214000,
                    device: 3,
                    offset_bytes: 5120,
                    size_bytes: 512,
                    op: Op::Read,
                    hint: None
                },
            ]
        );
    }

    #[test]
    fn tabs_and_repeated_spaces_separate_fields() {
        let (out, _) = read("5\t1   2\t 3 1");
        assert_eq!(out[0].as_ref().unwrap().offset_bytes, 1024);
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let good = "0 0 0 8 1\n";
        let cases: &[(&str, &str, &str)] = &[
            ("x 0 0 8 1", "time", "'x'"),
            ("0 dev 0 8 1", "device", "'dev'"),
            ("0 0 -4 8 1", "offset", "negative number '-4'"),
            ("0 0 0 0 1", "size", "zero-size"),
            ("0 0 0 8 2", "op", "unknown op code '2'"),
            ("0 0 0 8 R", "op", "'R'"),
            ("0 0 0 8", "op", "found 4"),
            ("0 0", "offset", "found 2"),
            ("0 0 0 8 1 9", "", "found 6"),
            ("0 0 36028797018963968 8 1", "offset", "overflows"),
            ("0 0 36028797018963967 8 1", "size", "exceeds"),
            ("0 4294967296 0 8 1", "device", "32 bits"),
        ];
        for &(bad, field, needle) in cases {
            let e = err(&format!("{good}\n{bad}\n{good}"));
            assert_eq!((e.line, e.field), (3, field), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
            assert!(e.to_string().starts_with("in.ascii:3: "), "{e}");
        }
    }

    #[test]
    fn continues_after_an_error() {
        let (out, _) = read("0 0 0 8 1\nbad\n1 0 0 8 0\n");
        assert_eq!(out.len(), 3);
        assert!(out[0].is_ok() && out[1].is_err() && out[2].is_ok());
    }
}
