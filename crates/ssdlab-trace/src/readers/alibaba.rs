//! SNIA Alibaba Cloud block traces (`alibaba`, 2020 release, Li et al., IISWC '20).
//!
//! One request per line, five comma-separated fields, no header:
//!
//! ```text
//! device_id,opcode,offset,length,timestamp
//! 419,W,8792731648,4096,1577808000000162
//! ```
//!
//! Units: `offset` and `length` are **bytes**, kept as is; `timestamp` is Unix time in
//! **microseconds**, converted to ns. `opcode` is `R` or `W` (either case).
//!
//! Device column: `device_id` (the virtual disk) is honoured and becomes
//! [`Record::device`](crate::Record::device); `--device N` keeps one disk.
//!
//! Skipped and counted: blank lines, and a header line (first data line only).
//! Common rules (comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, reason, Driver, Parsed};
use super::line::{self, looks_like_header, parse_device, parse_rw, parse_u64, quote, DataLine};
use crate::TraceError;

/// Streaming reader of Alibaba block traces. See the [module docs](self).
pub struct AlibabaReader<R> {
    d: Driver<R>,
    first: bool,
}

impl<R: std::io::BufRead> AlibabaReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        AlibabaReader { d: Driver::new(reader, file), first: true }
    }
}

const NAMES: [&str; 5] = ["device", "op", "offset", "size", "time"];

fn parse(first: &mut bool, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    if std::mem::replace(first, false) && looks_like_header(&l.comma_fields().collect::<Vec<_>>()) {
        return Ok(Parsed::Skip(reason::HEADER));
    }
    let [device, opcode, offset, length, time] = line::split_fields(
        l,
        l.comma_fields(),
        &NAMES,
        "comma-separated fields",
        "device_id,opcode,offset,length,timestamp",
        false,
    )?;
    let device = parse_device(device).map_err(|m| l.error("device", m))?;
    let op = parse_rw(opcode)
        .ok_or_else(|| l.error("op", format!("unknown opcode '{}' (expected R or W)", quote(opcode))))?;
    let offset_bytes = parse_u64(offset).map_err(|m| l.error("offset", m))?;
    let size_bytes = parse_u64(length).map_err(|m| l.error("size", m))?;
    let arrival_ns = l.time(time, |t| line::scale(t, parse_u64(t)?, 1000, "µs"))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

reader_impls!(AlibabaReader, "alibaba", first, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Record};

    fn read(text: &str) -> Vec<Result<Record, TraceError>> {
        AlibabaReader::new(text.as_bytes(), "a.csv").collect()
    }

    #[test]
    fn parses_units_and_ops() {
        let recs: Vec<Record> =
            read("device_id,opcode,offset,length,timestamp\n419,W,8792731648,4096,1577808000000162\n3,r,0,512,7\n")
                .into_iter()
                .map(Result::unwrap)
                .collect();
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 1_577_808_000_000_162_000,
                    device: 419,
                    offset_bytes: 8_792_731_648,
                    size_bytes: 4096,
                    op: Op::Write,
                    hint: None
                },
                Record { arrival_ns: 7000, device: 3, offset_bytes: 0, size_bytes: 512, op: Op::Read, hint: None },
            ]
        );
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("d,W,0,4096,1", "device", "'d'"),
            ("1,X,0,4096,1", "op", "unknown opcode 'X'"),
            ("1,W,-4,4096,1", "offset", "negative"),
            ("1,W,0,0,1", "size", "zero-size"),
            ("1,W,0,4096,1.5", "time", "'1.5'"),
            ("1,W,0,4096,18446744073709552", "time", "overflows"),
            ("1,W,0,4096,1,9", "", "found 6"),
        ];
        for &(bad, field, needle) in cases {
            let e = read(&format!("1,W,0,4096,1\n{bad}\n")).into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "a.csv"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
