//! MSR Cambridge CSV traces (`msr`), as distributed by SNIA IOTTA.
//!
//! One request per line, seven comma-separated fields, no header:
//!
//! ```text
//! Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//! 128166385295514663,hm,0,Write,9056014336,2048,2833
//! ```
//!
//! Units: `Timestamp` is a Windows FILETIME in 100-ns ticks; it becomes
//! `arrival_ns = ticks * 100`, absolute (the host model rebases to the earliest request).
//! Stamps far below the FILETIME range (rebased copies) are read the same way; `ssdlab
//! run` warns about them and names `--time-unit`.
//! `Offset` and `Size` are bytes and are kept as is (MSR sizes need not be sector
//! multiples). `Type` is `Read` or `Write`, in any letter case. `Hostname` and
//! `ResponseTime` are not interpreted (the response time is a measured result, not part
//! of the workload). Whitespace around fields is ignored.
//!
//! Device column: `DiskNumber` is honoured and becomes [`Record::device`](crate::Record::device).
//!
//! Skipped and counted in [`skipped()`](crate::RecordSource::skipped):
//! - rows whose fields are all empty (`,,,,,,`; `hm_1_short.csv` ends with 18,879 of them),
//! - blank lines,
//! - a header line, recognised only as the first data line when its Timestamp field starts
//!   with a letter and none of its fields is a number (e.g. the line shown above).
//!
//! Common rules (comments, CRLF, BOM, errors, continuing after an error) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, reason, Driver, Parsed};
use super::line::{self, looks_like_header, parse_device, parse_u64, quote, DataLine};
use crate::{Op, TraceError};

const FIELDS: usize = 7;

/// Streaming reader of MSR Cambridge CSV traces. See the [module docs](self).
pub struct MsrReader<R> {
    d: Driver<R>,
    /// No data line has been seen yet (a header is possible).
    first: bool,
}

impl<R: std::io::BufRead> MsrReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        MsrReader { d: Driver::new(reader, file), first: true }
    }
}

fn parse_op(field: &[u8]) -> Option<Op> {
    if field.eq_ignore_ascii_case(b"read") {
        Some(Op::Read)
    } else if field.eq_ignore_ascii_case(b"write") {
        Some(Op::Write)
    } else {
        None
    }
}

fn parse(first: &mut bool, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let first = std::mem::replace(first, false);
    let mut fields: [&[u8]; FIELDS] = [b""; FIELDS];
    let mut n = 0;
    let mut all_empty = true;
    for field in l.comma_fields() {
        all_empty &= field.is_empty();
        if n < FIELDS {
            fields[n] = field;
        }
        n += 1;
    }
    if all_empty {
        return Ok(Parsed::Skip(reason::EMPTY_ROW));
    }
    if first && looks_like_header(&fields[..n.min(FIELDS)]) {
        return Ok(Parsed::Skip(reason::HEADER));
    }
    if n != FIELDS {
        const NAMES: [&str; FIELDS] = ["time", "hostname", "device", "op", "offset", "size", "response_time"];
        let field = NAMES.get(n).copied().unwrap_or("");
        let what = if n < FIELDS { "missing: expected" } else { "expected" };
        return Err(l.error(
            field,
            format!(
                "{what} 7 comma-separated fields \
                 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {n}"
            ),
        ));
    }
    let [time, _host, disk, kind, offset, size, _response] = fields;
    let arrival_ns = l.time(time, |f| line::scale(f, parse_u64(f)?, 100, "100-ns ticks"))?;
    let device = parse_device(disk).map_err(|m| l.error("device", m))?;
    let op = parse_op(kind)
        .ok_or_else(|| l.error("op", format!("unknown type '{}' (expected Read or Write)", quote(kind))))?;
    let offset_bytes = parse_u64(offset).map_err(|m| l.error("offset", m))?;
    let size_bytes = parse_u64(size).map_err(|m| l.error("size", m))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

reader_impls!(MsrReader, "msr", first, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, RecordSource};

    fn read(text: &str) -> (Vec<Result<Record, TraceError>>, u64) {
        let mut r = MsrReader::new(text.as_bytes(), "x.csv");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skipped())
    }

    fn err(text: &str) -> TraceError {
        let (out, _) = read(text);
        out.into_iter().find_map(Result::err).expect("an error")
    }

    #[test]
    fn parses_units_and_types() {
        let (out, skipped) = read(
            "128166385295514663,hm,0,Write,9056014336,2048,2833\r\n\
             128166386567849449, hm ,3, read ,11946262528,4096,3654\r\n",
        );
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(skipped, 0);
        assert_eq!(
            recs,
            vec![
                Record {
                    arrival_ns: 12816638529551466300,
                    device: 0,
                    offset_bytes: 9056014336,
                    size_bytes: 2048,
                    op: Op::Write,
                    hint: None
                },
                Record {
                    arrival_ns: 12816638656784944900,
                    device: 3,
                    offset_bytes: 11946262528,
                    size_bytes: 4096,
                    op: Op::Read,
                    hint: None
                },
            ]
        );
    }

    #[test]
    fn empty_rows_blank_lines_and_header_are_skipped_and_counted() {
        let (out, skipped) = read(
            "\u{feff}Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
             1,hm,0,Read,0,512,1\n\n# a comment\n,,,,,,\r\n,,,,,,\n , , ,,,,\n,,,,,,",
        );
        assert_eq!(out.len(), 1);
        assert!(out[0].is_ok());
        assert_eq!(skipped, 1 + 1 + 4);
    }

    #[test]
    fn header_only_accepted_on_the_first_data_line() {
        let e = err("1,hm,0,Read,0,512,1\nTimestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n");
        assert_eq!((e.line, e.field), (2, "time"));
    }

    #[test]
    fn bad_first_timestamp_is_an_error_not_a_header() {
        let e = err("abc,hm,0,Read,0,512,1\n");
        assert_eq!((e.line, e.field), (1, "time"));
        assert!(e.message.contains("'abc'"), "{e}");
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("1.5,hm,0,Read,0,512,1", "time", "'1.5'"),
            ("184467440737095517,hm,0,Read,0,512,1", "time", "overflows"),
            ("1,hm,,Read,0,512,1", "device", "empty"),
            ("1,hm,disk0,Read,0,512,1", "device", "'disk0'"),
            ("1,hm,0,Trim,0,512,1", "op", "unknown type 'Trim'"),
            ("1,hm,0,R,0,512,1", "op", "'R'"),
            ("1,hm,0,Read,-512,512,1", "offset", "negative number '-512'"),
            ("1,hm,0,Read,0,0,1", "size", "zero-size"),
            ("1,hm,0,Read,0,4k,1", "size", "'4k'"),
            ("1,hm,0,Read,0,512", "response_time", "found 6"),
            ("1,hm,0", "op", "found 3"),
            ("1,hm,0,Read,0,512,1,extra", "", "found 8"),
            ("1 hm 0 Read 0 512 1", "hostname", "found 1"),
        ];
        for &(bad, field, needle) in cases {
            let e = err(&format!("1,hm,0,Read,0,512,1\n{bad}\n"));
            assert_eq!((e.line, e.field), (2, field), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
            assert!(e.to_string().starts_with(&format!("x.csv:2: field '{field}'")) || field.is_empty(), "{e}");
        }
    }

    #[test]
    fn continues_after_an_error() {
        let (out, _) = read("1,hm,0,Read,0,512,1\n1,hm,0,Read,0,0,1\n2,hm,0,Write,0,512,1\n");
        assert_eq!(out.len(), 3);
        assert!(out[0].is_ok() && out[1].is_err() && out[2].is_ok());
    }
}
