//! MQSim ASCII traces (`mqsim`).
//!
//! One request per line, five whitespace-separated unsigned integers:
//!
//! ```text
//! arrival_time_ns  device  lba_sectors  size_sectors  type
//! 11413000         0       657728       16            1
//! ```
//!
//! Units: the arrival time is read as nanoseconds (MQSim's default `<Time_Unit>`
//! NANOSECOND; traces recorded in other units must be converted first), kept as is (no
//! rebasing); `lba_sectors` and `size_sectors` count 512-byte sectors and are converted to
//! bytes. `type` is `0` for a write and `1` for a read (MQSim's `ASCIITraceWriteCode` /
//! `ASCIITraceReadCode`); any other code is an error. MQSim's ASCII format has no trim.
//!
//! Device column: honoured, copied to [`Record::device`](crate::Record::device) (MQSim
//! reads it into the request's device id; the host model decides how to use it).
//!
//! The layout is textually identical to SSDSim's, so the two cannot be told apart from
//! the text (see [`crate::detect_format`]). Common rules (blank lines, comments, CRLF,
//! BOM, errors, continuing after an error) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::line::{self, DataLine};
use crate::{Op, TraceError};
use std::io::BufRead;

/// Streaming reader of MQSim ASCII traces. See the [module docs](self).
pub struct MqsimReader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: BufRead> MqsimReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        MqsimReader { d: Driver::new(reader, file), state: () }
    }
}

/// MQSim's request type codes: `0` = write, `1` = read.
pub fn mqsim_op(code: u64) -> Option<Op> {
    match code {
        0 => Some(Op::Write),
        1 => Some(Op::Read),
        _ => None,
    }
}

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    line::parse_sector_columns(l, "MQSim", mqsim_op, "MQSim uses 0 = write, 1 = read").map(Parsed::Record)
}

/// The common line, parsed without a [`DataLine`] (issue 48: SSDSim's trace is read three
/// times a run).
fn fast(text: &[u8]) -> Option<crate::Record> {
    line::sector_columns_fast(text, mqsim_op)
}

/// The common line at the start of `text`, parsed as `fast` does, and the index of its end
/// (the pre-pass's reading, `crate::prepass`).
pub(crate) fn fast_line(text: &[u8]) -> Option<(crate::Record, usize)> {
    line::sector_columns_line(text, mqsim_op)
}

reader_impls!(MqsimReader, "mqsim", state, parse, fast = fast);

/// Writes `records` as an MQSim ASCII trace, which [`MqsimReader`] reads back as the same
/// records (workloads built in code, such as a reproduction's synthetic ones, can then be
/// replayed by `ssdlab run`). A record the format cannot hold, a trim or an offset or size
/// that is not whole 512-byte sectors, is an `InvalidInput` error naming it.
pub fn write_mqsim<W: std::io::Write>(records: &[crate::Record], mut out: W) -> std::io::Result<()> {
    for (i, r) in records.iter().enumerate() {
        let code = match r.op {
            Op::Write => 0,
            Op::Read => 1,
            op => return Err(invalid(i, &format!("is a {op:?}; MQSim's format has reads and writes only"))),
        };
        if r.offset_bytes % 512 != 0 || r.size_bytes % 512 != 0 {
            return Err(invalid(i, "is not whole 512-byte sectors (MQSim counts sectors)"));
        }
        writeln!(out, "{} {} {} {} {code}", r.arrival_ns, r.device, r.offset_bytes / 512, r.size_bytes / 512)?;
    }
    out.flush()
}

fn invalid(index: usize, why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("record {} {why}", index + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, RecordSource};

    fn read(text: &str) -> (Vec<Result<Record, TraceError>>, u64) {
        let mut r = MqsimReader::new(text.as_bytes(), "in.trace");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skipped())
    }

    fn err(text: &str) -> TraceError {
        let (out, _) = read(text);
        out.into_iter().find_map(Result::err).expect("an error")
    }

    #[test]
    fn written_traces_read_back_as_the_same_records() {
        let recs = vec![
            Record { arrival_ns: 0, device: 0, offset_bytes: 4096, size_bytes: 8192, op: Op::Write, hint: None },
            Record { arrival_ns: 1_500_123, device: 3, offset_bytes: 512, size_bytes: 512, op: Op::Read, hint: None },
        ];
        let mut text = Vec::new();
        write_mqsim(&recs, &mut text).unwrap();
        let (out, skipped) = read(std::str::from_utf8(&text).unwrap());
        assert_eq!(skipped, 0);
        assert_eq!(out.into_iter().map(Result::unwrap).collect::<Vec<_>>(), recs);
        let trim = Record { op: Op::Trim, ..recs[0] };
        let e = write_mqsim(&[recs[0], trim], Vec::new()).unwrap_err();
        assert!(e.to_string().starts_with("record 2 is a Trim"), "{e}");
        let odd = Record { offset_bytes: 100, ..recs[1] };
        assert!(write_mqsim(&[odd], Vec::new()).unwrap_err().to_string().contains("512-byte sectors"));
    }

    #[test]
    fn parses_units_and_types() {
        let (out, skipped) = read("\u{feff}11413000 0 657728 16 1\r\n\r\n938513000 4 264719034 16 0");
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(skipped, 1);
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 11413000,
                    device: 0,
                    offset_bytes: 657728 * 512,
                    size_bytes: 8192,
                    op: Op::Read,
                    hint: None
                },
                Record {
                    arrival_ns: 938513000,
                    device: 4,
                    offset_bytes: 264719034 * 512,
                    size_bytes: 8192,
                    op: Op::Write,
                    hint: None
                },
            ]
        );
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("1e3 0 0 8 1", "time", "'1e3'"),
            ("-1 0 0 8 1", "time", "negative number '-1'"),
            ("0 -2 0 8 1", "device", "negative"),
            ("0 0 abc 8 1", "offset", "'abc'"),
            ("0 0 0 -8 1", "size", "negative number '-8'"),
            ("0 0 0 0 0", "size", "zero-size"),
            ("0 0 0 8 3", "op", "unknown op code '3'"),
            ("0", "device", "found 1"),
            ("0 0 0 8 1 1", "", "found 6"),
        ];
        for &(bad, field, needle) in cases {
            let e = err(&format!("# header comment\n\n{bad}\n"));
            assert_eq!((e.line, e.field), (3, field), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
            assert_eq!(e.file, "in.trace");
        }
    }
}
