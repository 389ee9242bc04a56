//! UMass / Storage Performance Council traces (`spc`): Financial1/2, WebSearch1-3.
//!
//! One request per line, at least five comma-separated fields:
//!
//! ```text
//! ASU,LBA,Size,Opcode,Timestamp[,optional...]
//! 0,303567,3584,w,0.000000
//! 1,55596,3072,R,0.078643
//! ```
//!
//! Units: `LBA` counts 512-byte sectors *within its ASU* and becomes
//! `offset_bytes = LBA * 512`; `Size` is in bytes, kept as is; `Opcode` is `r` or `w` in
//! either case (`read` / `write` are accepted too); `Timestamp` is seconds from the start
//! of the trace as a decimal fraction (`0.078643`), converted exactly to nanoseconds
//! (digits below 1 ns are dropped). Fields after the fifth are ignored.
//!
//! Device column: `ASU` (application specific unit) is honoured and becomes
//! [`Record::device`](crate::Record::device). Each ASU is its own address space, so
//! replaying several ASUs onto one device overlaps their addresses unless the host model
//! separates devices; `--device N` keeps one ASU.
//!
//! Skipped and counted: blank lines and a header line (first data line only, recognised
//! as a line that starts with a letter and holds no number, e.g. `ASU,LBA,Size,...`).
//!
//! Common rules (comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, reason, Driver, Parsed};
use super::line::{self, looks_like_header, parse_decimal, parse_device, parse_rw, parse_u64, quote, DataLine};
use crate::TraceError;

/// Streaming reader of SPC traces. See the [module docs](self).
pub struct SpcReader<R> {
    d: Driver<R>,
    first: bool,
}

impl<R: std::io::BufRead> SpcReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        SpcReader { d: Driver::new(reader, file), first: true }
    }
}

const NAMES: [&str; 5] = ["device", "offset", "size", "op", "time"];

fn parse(first: &mut bool, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let first = std::mem::replace(first, false);
    if first {
        let fields: Vec<&[u8]> = l.comma_fields().collect();
        if looks_like_header(&fields) {
            return Ok(Parsed::Skip(reason::HEADER));
        }
    }
    let [asu, lba, size, opcode, time] = line::split_fields(
        l,
        l.comma_fields(),
        &NAMES,
        "comma-separated fields",
        "ASU,LBA,Size,Opcode,Timestamp",
        true,
    )?;
    let device = parse_device(asu).map_err(|m| l.error("device", m))?;
    let sectors = parse_u64(lba).map_err(|m| l.error("offset", m))?;
    let offset_bytes = line::scale(lba, sectors, 512, "sectors").map_err(|m| l.error("offset", m))?;
    let size_bytes = parse_u64(size).map_err(|m| l.error("size", m))?;
    let op = parse_rw(opcode)
        .ok_or_else(|| l.error("op", format!("unknown opcode '{}' (expected r or w)", quote(opcode))))?;
    let arrival_ns = l.time(time, |f| parse_decimal(f, 9))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

reader_impls!(SpcReader, "spc", first, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Record, RecordSource};

    fn read(text: &str) -> (Vec<Result<Record, TraceError>>, u64) {
        let mut r = SpcReader::new(text.as_bytes(), "x.spc");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skipped())
    }

    fn err(text: &str) -> TraceError {
        read(text).0.into_iter().find_map(Result::err).expect("an error")
    }

    #[test]
    fn parses_units_and_ops() {
        let (out, skipped) =
            read("ASU,LBA,Size,Opcode,Timestamp\n0,303567,3584,w,0.000000\r\n1,55596,3072,R,0.078643,extra\n");
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(skipped, 1);
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 0,
                    device: 0,
                    offset_bytes: 303567 * 512,
                    size_bytes: 3584,
                    op: Op::Write,
                    hint: None
                },
                Record {
                    arrival_ns: 78_643_000,
                    device: 1,
                    offset_bytes: 55596 * 512,
                    size_bytes: 3072,
                    op: Op::Read,
                    hint: None
                },
            ]
        );
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("x,1,512,r,0.1", "device", "'x'"),
            ("0,-1,512,r,0.1", "offset", "negative"),
            ("0,1,0,r,0.1", "size", "zero-size"),
            ("0,1,5k,r,0.1", "size", "'5k'"),
            ("0,1,512,t,0.1", "op", "unknown opcode 't'"),
            ("0,1,512,r,1e-3", "time", "'1e-3'"),
            ("0,1,512,r", "time", "found 4"),
            ("0 1 512 r 0.1", "offset", "found 1"),
        ];
        for &(bad, field, needle) in cases {
            let e = err(&format!("0,1,512,r,0.0\n{bad}\n"));
            assert_eq!((e.line, e.field), (2, field), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
            assert_eq!(e.file, "x.spc");
        }
    }

    #[test]
    fn lenient_skips_and_counts() {
        let mut r = SpcReader::new(&b"0,1,512,r,0.0\n0,1,0,r,0.1\nbad\n\n0,2,512,w,0.2\n"[..], "x").lenient(true);
        let recs: Vec<Record> = r.by_ref().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(r.skipped(), 3);
        assert_eq!(r.skip_reasons(), vec![(reason::BLANK, 1), (reason::ZERO_SIZE, 1), (reason::MALFORMED, 1)]);
    }
}
