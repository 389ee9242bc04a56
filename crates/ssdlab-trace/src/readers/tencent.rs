//! SNIA Tencent Cloud Block Storage traces (`tencent`, the "CBS" traces of Zhang et al.,
//! ATC '20).
//!
//! One request per line, five comma-separated fields, no header:
//!
//! ```text
//! Timestamp,Offset,Size,IOType,VolumeID
//! 1538323200,126227368,8,1,1283
//! ```
//!
//! Units: `Timestamp` is Unix time in **seconds** (an integer in the published traces; a
//! decimal fraction is accepted and converted exactly), converted to ns; `Offset` and
//! `Size` count **512-byte sectors**. `IOType` is `0` for a read and `1` for a write (note:
//! the opposite of SSDSim/MQSim); any other code is an error.
//!
//! Device column: `VolumeID` is honoured and becomes
//! [`Record::device`](crate::Record::device). One published file mixes thousands of
//! volumes, each its own address space: `--device N` keeps one.
//!
//! Quirk: with 1-second timestamps, many requests share an arrival time; open-loop replay
//! issues each second's requests together.
//!
//! Skipped and counted: blank lines, and a header line (first data line only).
//! Common rules (comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, reason, Driver, Parsed};
use super::line::{self, looks_like_header, parse_decimal, parse_device, parse_u64, quote, DataLine};
use crate::{Op, TraceError};

/// Streaming reader of Tencent CBS traces. See the [module docs](self).
pub struct TencentReader<R> {
    d: Driver<R>,
    first: bool,
}

impl<R: std::io::BufRead> TencentReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        TencentReader { d: Driver::new(reader, file), first: true }
    }
}

const NAMES: [&str; 5] = ["time", "offset", "size", "op", "device"];

fn parse(first: &mut bool, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    if std::mem::replace(first, false) && looks_like_header(&l.comma_fields().collect::<Vec<_>>()) {
        return Ok(Parsed::Skip(reason::HEADER));
    }
    let [time, offset, size, kind, volume] = line::split_fields(
        l,
        l.comma_fields(),
        &NAMES,
        "comma-separated fields",
        "Timestamp,Offset,Size,IOType,VolumeID",
        false,
    )?;
    let arrival_ns = l.time(time, |f| parse_decimal(f, 9))?;
    let sectors = parse_u64(offset).map_err(|m| l.error("offset", m))?;
    let offset_bytes = line::scale(offset, sectors, 512, "sectors").map_err(|m| l.error("offset", m))?;
    let count = parse_u64(size).map_err(|m| l.error("size", m))?;
    let size_bytes = line::scale(size, count, 512, "sectors").map_err(|m| l.error("size", m))?;
    let op = match kind {
        b"0" => Op::Read,
        b"1" => Op::Write,
        _ => return Err(l.error("op", format!("unknown IOType '{}' (Tencent uses 0 = read, 1 = write)", quote(kind)))),
    };
    let device = parse_device(volume).map_err(|m| l.error("device", m))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

reader_impls!(TencentReader, "tencent", first, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, RecordSource};

    fn read(text: &str) -> (Vec<Result<Record, TraceError>>, u64) {
        let mut r = TencentReader::new(text.as_bytes(), "t.csv");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skipped())
    }

    #[test]
    fn parses_units_and_ops() {
        let (out, skipped) =
            read("Timestamp,Offset,Size,IOType,VolumeID\n1538323200,126227368,8,1,1283\n1538323201,0,16,0,7\n");
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(skipped, 1);
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 1_538_323_200_000_000_000,
                    device: 1283,
                    offset_bytes: 126_227_368 * 512,
                    size_bytes: 4096,
                    op: Op::Write,
                    hint: None
                },
                Record {
                    arrival_ns: 1_538_323_201_000_000_000,
                    device: 7,
                    offset_bytes: 0,
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
            ("x,0,8,1,1", "time", "'x'"),
            ("1,a,8,1,1", "offset", "'a'"),
            ("1,0,0,1,1", "size", "zero-size"),
            ("1,0,8,2,1", "op", "unknown IOType '2'"),
            ("1,0,8,W,1", "op", "'W'"),
            ("1,0,8,1,v1", "device", "'v1'"),
            ("1,0,8,1", "device", "found 4"),
        ];
        for &(bad, field, needle) in cases {
            let (out, _) = read(&format!("1,0,8,1,1\n{bad}\n"));
            let e = out.into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "t.csv"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
