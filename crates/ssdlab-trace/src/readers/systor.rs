//! SNIA SYSTOR '17 VDI traces (`systor`).
//!
//! CSV with a header, six fields per line:
//!
//! ```text
//! Timestamp,Response,IOType,LUN,Offset,Size
//! 1456095145.133076000,0.000806000,R,0,899056122368,131072
//! ```
//!
//! Units: `Timestamp` is Unix time in seconds as a decimal fraction, converted exactly to
//! nanoseconds (absolute; the host model rebases); `Offset` and `Size` are bytes, kept as
//! is. `IOType` is `R` or `W` (either case; `Read` / `Write` accepted). `Response` (the
//! measured response time) is not interpreted and may be empty.
//!
//! Device column: `LUN` is honoured and becomes [`Record::device`](crate::Record::device).
//!
//! Quirk: rows are written in completion order, so timestamps are **not monotonic**; the
//! reader passes them through as they are. Use `TraceOptions::sort_window` to reorder.
//!
//! Skipped and counted: blank lines and the header (first data line). A first line that
//! is a header with other column names is an error (the columns would be misread).
//!
//! Common rules (comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, reason, Driver, Parsed};
use super::line::{self, looks_like_header, parse_decimal, parse_device, parse_rw, parse_u64, quote, DataLine};
use crate::TraceError;

/// The header SYSTOR '17 files start with.
pub const SYSTOR_HEADER: &str = "Timestamp,Response,IOType,LUN,Offset,Size";

/// Streaming reader of SYSTOR '17 CSV traces. See the [module docs](self).
pub struct SystorReader<R> {
    d: Driver<R>,
    first: bool,
}

impl<R: std::io::BufRead> SystorReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        SystorReader { d: Driver::new(reader, file), first: true }
    }
}

const NAMES: [&str; 6] = ["time", "response", "op", "device", "offset", "size"];

fn parse(first: &mut bool, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let first = std::mem::replace(first, false);
    if first {
        let fields: Vec<&[u8]> = l.comma_fields().collect();
        if looks_like_header(&fields) {
            let want: Vec<&[u8]> = SYSTOR_HEADER.as_bytes().split(|&b| b == b',').collect();
            let same = fields.len() == want.len() && fields.iter().zip(&want).all(|(a, b)| a.eq_ignore_ascii_case(b));
            if !same {
                return Err(l.error("", format!("unexpected header '{}' (expected {SYSTOR_HEADER})", quote(l.text))));
            }
            return Ok(Parsed::Skip(reason::HEADER));
        }
    }
    let [time, _response, kind, lun, offset, size] =
        line::split_fields(l, l.comma_fields(), &NAMES, "comma-separated fields", SYSTOR_HEADER, false)?;
    let arrival_ns = l.time(time, |f| parse_decimal(f, 9))?;
    let op =
        parse_rw(kind).ok_or_else(|| l.error("op", format!("unknown IOType '{}' (expected R or W)", quote(kind))))?;
    let device = parse_device(lun).map_err(|m| l.error("device", m))?;
    let offset_bytes = parse_u64(offset).map_err(|m| l.error("offset", m))?;
    let size_bytes = parse_u64(size).map_err(|m| l.error("size", m))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

reader_impls!(SystorReader, "systor", first, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Record, RecordSource};

    fn read(text: &str) -> (Vec<Result<Record, TraceError>>, u64) {
        let mut r = SystorReader::new(text.as_bytes(), "s.csv");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skipped())
    }

    #[test]
    fn parses_units_and_keeps_file_order() {
        let (out, skipped) = read(
            "Timestamp,Response,IOType,LUN,Offset,Size\n\
             1456095145.133076000,0.000806000,R,0,899056122368,131072\n\
             1456095145.126285000,,w,3,4096,512\n",
        );
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(skipped, 1);
        assert_eq!(
            recs[0],
            Record {
                arrival_ns: 1_456_095_145_133_076_000,
                device: 0,
                offset_bytes: 899_056_122_368,
                size_bytes: 131_072,
                op: Op::Read,
                hint: None
            }
        );
        assert_eq!((recs[1].arrival_ns, recs[1].device, recs[1].op), (1_456_095_145_126_285_000, 3, Op::Write));
    }

    #[test]
    fn wrong_header_is_an_error() {
        let (out, _) = read("Timestamp,IOType,Response,LUN,Offset,Size\n");
        let e = out[0].as_ref().unwrap_err();
        assert_eq!((e.line, e.field), (1, ""));
        assert!(e.message.contains("unexpected header"), "{e}");
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("x,0,R,0,0,512", "time", "'x'"),
            ("1.0,0,T,0,0,512", "op", "unknown IOType 'T'"),
            ("1.0,0,R,-1,0,512", "device", "negative"),
            ("1.0,0,R,0,0.5,512", "offset", "'0.5'"),
            ("1.0,0,R,0,0,0", "size", "zero-size"),
            ("1.0,0,R,0,0", "size", "found 5"),
            ("1.0,0,R,0,0,1,1", "", "found 7"),
        ];
        for &(bad, field, needle) in cases {
            let (out, _) = read(&format!("{SYSTOR_HEADER}\n{bad}\n"));
            let e = out.into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "s.csv"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
