//! ARC `.lis` traces (`arc`), as published with Megiddo and Modha's ARC cache paper
//! (`P1.lis` ... `DS1.lis`, `OLTP.lis`).
//!
//! One request per line, four whitespace-separated unsigned integers:
//!
//! ```text
//! start_block  nblocks  ignore  request_no
//! 303567       7        0       0
//! ```
//!
//! Units: `start_block` and `nblocks` count **512-byte blocks**; `ignore` and
//! `request_no` must be integers but are not used. Every request is a **read** (the
//! traces record cache references only).
//!
//! Time: the format has **no timestamps**: every record has `arrival_ns = 0`
//! ([`Format::has_timestamps`](crate::Format::has_timestamps) is false), so the trace must
//! be replayed closed-loop.
//!
//! Device column: none; every record is device 0.
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::line::{self, parse_u64, DataLine};
use crate::{Op, TraceError};

/// Streaming reader of ARC `.lis` traces. See the [module docs](self).
pub struct ArcReader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: std::io::BufRead> ArcReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        ArcReader { d: Driver::new(reader, file), state: () }
    }
}

const NAMES: [&str; 4] = ["offset", "size", "ignore", "request_no"];

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let [start, count, ignore, request] = line::split_fields(
        l,
        l.whitespace_fields(),
        &NAMES,
        "whitespace-separated fields for ARC",
        "start_block nblocks ignore request_no",
        false,
    )?;
    let block = parse_u64(start).map_err(|m| l.error("offset", m))?;
    let offset_bytes = line::scale(start, block, 512, "blocks").map_err(|m| l.error("offset", m))?;
    let n = parse_u64(count).map_err(|m| l.error("size", m))?;
    let size_bytes = line::scale(count, n, 512, "blocks").map_err(|m| l.error("size", m))?;
    parse_u64(ignore).map_err(|m| l.error("ignore", m))?;
    parse_u64(request).map_err(|m| l.error("request_no", m))?;
    line::finish(l, 0, 0, offset_bytes, size_bytes, Op::Read).map(Parsed::Record)
}

reader_impls!(ArcReader, "arc", state, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Record;

    fn read(text: &str) -> Vec<Result<Record, TraceError>> {
        ArcReader::new(text.as_bytes(), "P1.lis").collect()
    }

    #[test]
    fn parses_units() {
        let recs: Vec<Record> = read("303567 7 0 0\n55590 6 0 1\n").into_iter().map(Result::unwrap).collect();
        assert_eq!(
            recs[0],
            Record { arrival_ns: 0, device: 0, offset_bytes: 303567 * 512, size_bytes: 3584, op: Op::Read, hint: None }
        );
        assert_eq!(recs[1].arrival_ns, 0);
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("x 8 0 1", "offset", "'x'"),
            ("0 0 0 1", "size", "zero-size"),
            ("0 8 a 1", "ignore", "'a'"),
            ("0 8 0 -1", "request_no", "negative"),
            ("0 8 0", "request_no", "found 3"),
            ("0 8 0 1 5", "", "found 5"),
        ];
        for &(bad, field, needle) in cases {
            let e = read(&format!("0 8 0 0\n{bad}\n")).into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "P1.lis"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
