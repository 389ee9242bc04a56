//! fio I/O logs (`fio-v2`, `fio-v3`), as written by fio's `write_iolog` and replayed by its
//! `read_iolog`.
//!
//! ```text
//! fio version 2 iolog                     fio version 3 iolog
//! /dev/nvme0n1 add                        0 /dev/nvme0n1 add
//! /dev/nvme0n1 open                       2 /dev/nvme0n1 open
//! /dev/nvme0n1 write 0 4096               13 /dev/nvme0n1 write 0 4096
//! /dev/nvme0n1 wait 250 0                 270 /dev/nvme0n1 read 8192 4096
//! /dev/nvme0n1 read 8192 4096             301 /dev/nvme0n1 trim 0 1048576
//! /dev/nvme0n1 trim 0 1048576             305 /dev/nvme0n1 sync 0 0
//! /dev/nvme0n1 sync 0 0                   320 /dev/nvme0n1 close
//! /dev/nvme0n1 close
//! ```
//!
//! The first data line must be the header naming the version this reader was opened for.
//! Then, per line, `[timestamp] <file> <action> [<offset> <length>]`:
//!
//! - `add`, `open`, `close` (file actions, no offset/length): skipped and counted;
//! - `read`, `write`, `trim`: one record each; offset and length are **bytes**;
//! - `sync`, `datasync`, `sync_file_range`: skipped and counted (no data moves);
//! - v2 `wait <usec> [<ignored>]`: advances the reader's clock by `usec` **microseconds**,
//!   relative to the previous `wait` (the documented convention; note that fio's replay
//!   code compares the value with the milliseconds since the job started, an absolute time
//!   in ms). The `wait` line itself is skipped and counted.
//! - v3 `wait`: skipped and counted, as fio ignores it in version 3.
//!
//! Time: **v2** has no timestamps: records arrive at the clock that `wait` lines advance
//! (0 when there are none — [`Format::has_timestamps`](crate::Format::has_timestamps) is
//! false, so replay it closed-loop). **v3** lines start with the time since the log
//! started in **microseconds** (fio's `iolog.c` writes `utime_since_now()`; some notes say
//! milliseconds — fio's source is authoritative), converted to ns.
//!
//! Device column: the file name. Files are numbered 0, 1, 2... in order of first
//! appearance (an `add` or an I/O), and the number becomes
//! [`Record::device`](crate::Record::device).
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::line::{self, parse_u64, quote, DataLine};
use crate::{Op, TraceError};
use std::collections::HashMap;

/// Skip reasons of this reader.
pub mod reason {
    pub const HEADER: &str = "iolog header";
    pub const FILE_ACTION: &str = "file add/open/close";
    pub const SYNC: &str = "sync/datasync";
    pub const WAIT: &str = "wait";
}

/// Streaming reader of fio iolog v2 or v3. See the [module docs](self).
pub struct FioIologReader<R> {
    d: Driver<R>,
    state: State,
}

struct State {
    version: u8,
    name: &'static str,
    header_seen: bool,
    /// v2: the clock `wait` lines advance, in ns.
    clock_ns: u64,
    files: HashMap<Vec<u8>, u32>,
}

impl<R: std::io::BufRead> FioIologReader<R> {
    /// A reader of fio iolog version `version` (2 or 3; anything else is treated as 3).
    pub fn new(reader: R, file: impl Into<String>, version: u8) -> Self {
        let version = if version == 2 { 2 } else { 3 };
        FioIologReader {
            d: Driver::new(reader, file),
            state: State {
                version,
                name: if version == 2 { "fio-v2" } else { "fio-v3" },
                header_seen: false,
                clock_ns: 0,
                files: HashMap::new(),
            },
        }
    }
}

impl State {
    fn device(&mut self, name: &[u8]) -> u32 {
        let next = u32::try_from(self.files.len()).unwrap_or(u32::MAX);
        *self.files.entry(name.to_vec()).or_insert(next)
    }
}

fn parse(s: &mut State, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let text = l.text.trim_ascii();
    if !s.header_seen {
        s.header_seen = true;
        let want = format!("fio version {} iolog", s.version);
        if text == want.as_bytes() {
            return Ok(Parsed::Skip(reason::HEADER));
        }
        let other = if s.version == 2 { 3 } else { 2 };
        let hint = if text == format!("fio version {other} iolog").as_bytes() {
            format!("; this is a version {other} log: use --format fio-v{other}")
        } else {
            String::new()
        };
        return Err(l.error("header", format!("expected '{want}' as the first line, got '{}'{hint}", quote(text))));
    }
    let mut f: [&[u8]; 5] = [b""; 5];
    let mut n = 0;
    for field in l.whitespace_fields() {
        if n == 5 {
            return Err(l.error("", format!("too many fields for a fio v{} iolog line", s.version)));
        }
        f[n] = field;
        n += 1;
    }
    // v3: a leading timestamp in µs.
    let (arrival_ns, rest) = if s.version == 3 {
        if n == 0 {
            return Err(l.error("time", "missing"));
        }
        let ns = l.time(f[0], |t| line::scale(t, parse_u64(t)?, 1000, "µs"))?;
        (ns, &f[1..n])
    } else {
        (s.clock_ns, &f[..n])
    };
    let layout = if s.version == 3 { "time_us file action [offset length]" } else { "file action [offset length]" };
    let Some(&action) = rest.get(1) else {
        let field = if rest.is_empty() { "file" } else { "action" };
        return Err(l.error(field, format!("missing: expected {layout}")));
    };
    let name = rest[0];
    match action {
        b"add" | b"open" | b"close" => {
            if rest.len() != 2 {
                return Err(l.error("", format!("a file action takes no offset or length ({layout})")));
            }
            s.device(name);
            Ok(Parsed::Skip(reason::FILE_ACTION))
        }
        b"wait" => {
            if s.version == 3 {
                return Ok(Parsed::Skip(reason::WAIT));
            }
            let Some(&usec) = rest.get(2) else {
                return Err(l.error("offset", "missing: 'wait' needs a delay in microseconds"));
            };
            let us = parse_u64(usec).map_err(|m| l.error("offset", m))?;
            let ns = line::scale(usec, us, 1000, "µs").map_err(|m| l.error("offset", m))?;
            s.clock_ns = s.clock_ns.saturating_add(ns);
            Ok(Parsed::Skip(reason::WAIT))
        }
        b"sync" | b"datasync" | b"sync_file_range" => Ok(Parsed::Skip(reason::SYNC)),
        b"read" | b"write" | b"trim" => {
            let (Some(&offset), Some(&length)) = (rest.get(2), rest.get(3)) else {
                let field = if rest.len() < 3 { "offset" } else { "size" };
                return Err(l.error(field, format!("missing: expected {layout}")));
            };
            let op = match action {
                b"read" => Op::Read,
                b"write" => Op::Write,
                _ => Op::Trim,
            };
            let offset_bytes = parse_u64(offset).map_err(|m| l.error("offset", m))?;
            let size_bytes = parse_u64(length).map_err(|m| l.error("size", m))?;
            let device = s.device(name);
            line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
        }
        _ => Err(l.error(
            "action",
            format!(
                "unknown action '{}' (expected add, open, close, read, write, trim, sync, datasync or wait)",
                quote(action)
            ),
        )),
    }
}

fn name_of(s: &State) -> &'static str {
    s.name
}

reader_impls!(FioIologReader, name_of, state, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, RecordSource};

    type Output = (Vec<Result<Record, TraceError>>, Vec<(&'static str, u64)>);

    fn read(text: &str, version: u8) -> Output {
        let mut r = FioIologReader::new(text.as_bytes(), "job.log", version);
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skip_reasons())
    }

    fn rec(arrival_ns: u64, device: u32, offset_bytes: u64, size_bytes: u64, op: Op) -> Record {
        Record { arrival_ns, device, offset_bytes, size_bytes, op, hint: None }
    }

    #[test]
    fn v2_every_action() {
        let text = "fio version 2 iolog\n\
                    /dev/sda add\n/dev/sdb add\n/dev/sda open\n/dev/sdb open\n\
                    /dev/sda write 0 4096\n/dev/sda wait 250 0\n/dev/sdb read 8192 4096\n\
                    /dev/sda wait 1000\n/dev/sda trim 1048576 65536\n/dev/sda sync 0 0\n\
                    /dev/sda datasync 0 0\n/dev/sda sync_file_range 0 0\n/dev/sda close\n/dev/sdb close\n";
        let (out, reasons) = read(text, 2);
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            recs,
            vec![
                rec(0, 0, 0, 4096, Op::Write),
                rec(250_000, 1, 8192, 4096, Op::Read),
                rec(1_250_000, 0, 1_048_576, 65_536, Op::Trim),
            ]
        );
        assert_eq!(reasons, vec![(reason::HEADER, 1), (reason::FILE_ACTION, 6), (reason::WAIT, 2), (reason::SYNC, 3)]);
    }

    #[test]
    fn v3_every_action() {
        let text = "fio version 3 iolog\n\
                    0 /dev/nvme0n1 add\n2 /dev/nvme0n1 open\n13 /dev/nvme0n1 write 0 4096\n\
                    270 /dev/nvme0n1 read 8192 4096\n280 /dev/nvme0n1 wait 100 0\n\
                    301 /dev/nvme0n1 trim 0 1048576\n305 /dev/nvme0n1 sync 0 0\n306 /dev/nvme0n1 datasync 0 0\n\
                    320 /dev/nvme0n1 close\n";
        let (out, reasons) = read(text, 3);
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            recs,
            vec![
                rec(13_000, 0, 0, 4096, Op::Write),
                rec(270_000, 0, 8192, 4096, Op::Read),
                rec(301_000, 0, 0, 1_048_576, Op::Trim)
            ]
        );
        assert_eq!(reasons, vec![(reason::HEADER, 1), (reason::FILE_ACTION, 3), (reason::WAIT, 1), (reason::SYNC, 2)]);
    }

    #[test]
    fn header_must_match_the_version() {
        let (out, _) = read("fio version 3 iolog\n0 f add\n", 2);
        let e = out[0].as_ref().unwrap_err();
        assert_eq!((e.line, e.field), (1, "header"));
        assert!(e.message.contains("use --format fio-v3"), "{e}");
        let (out, _) = read("f add\n", 3);
        assert!(out[0].as_ref().unwrap_err().message.contains("expected 'fio version 3 iolog'"));
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let v2: &[(&str, &str, &str)] = &[
            ("f read x 4096", "offset", "'x'"),
            ("f read 0 0", "size", "zero-size"),
            ("f read 0", "size", "missing"),
            ("f read", "offset", "missing"),
            ("f", "action", "missing"),
            ("f copy 0 1", "action", "unknown action 'copy'"),
            ("f wait soon", "offset", "'soon'"),
            ("f add 0 0", "", "no offset"),
            ("f read 0 1 2 3", "", "too many"),
        ];
        for &(bad, field, needle) in v2 {
            let (out, _) = read(&format!("fio version 2 iolog\nf add\n{bad}\n"), 2);
            let e = out.into_iter().find_map(Result::err).unwrap_or_else(|| panic!("{bad}"));
            assert_eq!((e.line, e.field, e.file.as_str()), (3, field, "job.log"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
        let v3: &[(&str, &str, &str)] = &[
            ("1.5 f read 0 4096", "time", "'1.5'"),
            ("f read 0 4096", "time", "'f'"),
            ("5 f write 0 -1", "size", "negative"),
            ("5", "file", "missing"),
        ];
        for &(bad, field, needle) in v3 {
            let (out, _) = read(&format!("fio version 3 iolog\n{bad}\n"), 3);
            let e = out.into_iter().find_map(Result::err).unwrap_or_else(|| panic!("{bad}"));
            assert_eq!((e.line, e.field), (2, field), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
