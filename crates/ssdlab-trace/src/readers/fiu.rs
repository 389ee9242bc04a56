//! FIU IODedup / SRCMap block traces (`fiu`), e.g. the `cheetah` mail-server trace.
//!
//! One request per line, at least nine whitespace-separated fields:
//!
//! ```text
//! ts_ns           pid   process     lba        nsectors  op  major  minor  md5
//! 89966522969723  4270  rpc.mountd  18579576   8         W   6      0      d6c75ba46e82326fefa545b57a12e221
//! ```
//!
//! Units: `ts_ns` is the arrival time in nanoseconds (the tracing host's clock, kept as is);
//! `lba` and `nsectors` count 512-byte sectors and are converted to bytes. `op` is `R` or
//! `W` (either case). `pid` must be an integer; `md5` (the content hash) is not read.
//! The process name may contain spaces: the fields are taken from both ends of the line.
//!
//! Device column: `major` and `minor` are honoured and become
//! [`Record::device`](crate::Record::device) = `major << 20 | minor` (Linux `MKDEV`, see
//! [`device_number`](crate::device_number)); `6 0` is device 6291456.
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::line::{self, parse_major_minor, parse_rw, parse_u64, quote, DataLine};
use crate::TraceError;

/// Streaming reader of FIU traces. See the [module docs](self).
pub struct FiuReader<R> {
    d: Driver<R>,
    state: (),
}

impl<R: std::io::BufRead> FiuReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        FiuReader { d: Driver::new(reader, file), state: () }
    }
}

const NAMES: [&str; 9] = ["time", "pid", "process", "offset", "size", "op", "major", "minor", "md5"];

fn parse(_: &mut (), l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let mut head: [&[u8]; 2] = [b""; 2];
    let mut n = 0;
    let mut tail: [&[u8]; 6] = [b""; 6];
    for (i, field) in l.whitespace_fields().enumerate() {
        if i < 2 {
            head[i] = field;
        }
        tail.rotate_left(1);
        tail[5] = field;
        n = i + 1;
    }
    if n < 9 {
        return Err(l.error(
            NAMES[n],
            format!(
                "missing: expected 9 whitespace-separated fields for FIU \
                 (ts_ns pid process lba nsectors R|W major minor md5), found {n}"
            ),
        ));
    }
    let [time, pid] = head;
    let [lba, nsectors, op, major, minor, _md5] = tail;
    let arrival_ns = l.time(time, parse_u64)?;
    parse_u64(pid).map_err(|m| l.error("pid", m))?;
    let sectors = parse_u64(lba).map_err(|m| l.error("offset", m))?;
    let offset_bytes = line::scale(lba, sectors, 512, "sectors").map_err(|m| l.error("offset", m))?;
    let count = parse_u64(nsectors).map_err(|m| l.error("size", m))?;
    let size_bytes = line::scale(nsectors, count, 512, "sectors").map_err(|m| l.error("size", m))?;
    let op = parse_rw(op).ok_or_else(|| l.error("op", format!("unknown op '{}' (expected R or W)", quote(op))))?;
    let device = parse_major_minor(major, minor).map_err(|m| l.error("device", m))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

reader_impls!(FiuReader, "fiu", state, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Record};

    fn read(text: &str) -> Vec<Result<Record, TraceError>> {
        FiuReader::new(text.as_bytes(), "f.blkparse").collect()
    }

    #[test]
    fn parses_units_device_and_spaced_process_names() {
        let recs: Vec<Record> = read(
            "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n\
             5 1 kworker u8 2 16 r 8 16 00\n",
        )
        .into_iter()
        .map(Result::unwrap)
        .collect();
        assert_eq!(
            recs[0],
            Record {
                arrival_ns: 89_966_522_969_723,
                device: 6 << 20,
                offset_bytes: 18_579_576 * 512,
                size_bytes: 4096,
                op: Op::Write,
                hint: None
            }
        );
        assert_eq!(
            (recs[1].offset_bytes, recs[1].size_bytes, recs[1].op, recs[1].device),
            (1024, 8192, Op::Read, (8 << 20) | 16)
        );
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("x 1 p 0 8 W 6 0 h", "time", "'x'"),
            ("1 p p 0 8 W 6 0 h", "pid", "'p'"),
            ("1 1 p -5 8 W 6 0 h", "offset", "negative"),
            ("1 1 p 0 0 W 6 0 h", "size", "zero-size"),
            ("1 1 p 0 8 X 6 0 h", "op", "unknown op 'X'"),
            ("1 1 p 0 8 W 5000 0 h", "device", "out of range"),
            ("1 1 p 0 8 W 6 0", "md5", "found 8"),
        ];
        for &(bad, field, needle) in cases {
            let e = read(&format!("1 1 p 0 8 W 6 0 h\n{bad}\n")).into_iter().find_map(Result::err).unwrap();
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "f.blkparse"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
