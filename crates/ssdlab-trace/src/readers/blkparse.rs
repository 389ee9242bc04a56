//! blkparse text output (`blkparse`), in blkparse's default format.
//!
//! One event per line:
//!
//! ```text
//! maj,min  cpu  seq  time_s        pid   action  rwbs  sector  +  nsectors  [process]
//!   8,16   3    5    0.000026421   3645  D       R     4938888 +  256       [java]
//! ```
//!
//! Only **D (issue) events** become records: the moment the request was handed to the
//! device driver. Every other action (Q queue, G get, I insert, C complete, M/F merges,
//! P/U plugs, X split, A remap, m messages...) is skipped and counted.
//!
//! Units: `time_s` is seconds since the start of tracing as a decimal fraction
//! (nanosecond digits), converted exactly to nanoseconds; `sector` and `nsectors` count
//! 512-byte sectors.
//!
//! RWBS letters: `R` read, `W` write, `D` discard (→ [`Op::Trim`]); `F` (flush / FUA),
//! `S` sync, `M` metadata, `A` read-ahead, `E` secure erase and `N` (no data) are
//! accepted and ignored. A D event whose RWBS has none of R/W/D (a pure flush, e.g. `FN`),
//! or a flush without sectors (`FWS` with `0 + 0` or no `sector + nsectors`), is skipped
//! and counted. Any other letter is an error on field `rwbs`.
//!
//! Device column: `maj,min` is honoured and becomes
//! [`Record::device`](crate::Record::device) = `major << 20 | minor` (Linux `MKDEV`, see
//! [`device_number`](crate::device_number)); `8,16` is device 8388624.
//!
//! Lines that are not events: blkparse ends its output with a summary (`CPU0 (8,16):`,
//! indented counters, `Total (8,16):`, `Throughput (R/W): ...`, `Events (8,16): ...`,
//! `Skips: ...`). From the first line that opens such a summary on, lines that are not
//! events are skipped and counted; before it, a line that is not an event is an error
//! (on field `device`), so a file in another format is not silently read as empty.
//!
//! Common rules (blank lines, comments, CRLF, BOM, errors, lenient mode) are described in
//! [the `readers` module](crate::readers).

use super::driver::{reader_impls, Driver, Parsed};
use super::line::{self, parse_decimal, parse_major_minor, parse_u64, quote, DataLine};
use crate::{Op, TraceError};

/// Skip reasons of this reader.
pub mod reason {
    /// Any event but D (issue).
    pub const NOT_ISSUE: &str = "non-D event";
    /// A D event carrying no data: a pure flush or an empty pre-flush write.
    pub const FLUSH: &str = "flush-only event";
    /// blkparse's closing summary.
    pub const SUMMARY: &str = "summary line";
}

/// Streaming reader of blkparse text. See the [module docs](self).
pub struct BlkparseReader<R> {
    d: Driver<R>,
    /// A summary block has started: non-event lines are skipped from here on.
    in_summary: bool,
}

impl<R: std::io::BufRead> BlkparseReader<R> {
    /// Reads from `reader`; `file` names the input in error messages.
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        BlkparseReader { d: Driver::new(reader, file), in_summary: false }
    }
}

/// True for `major,minor` (two unsigned integers around one comma).
pub(crate) fn is_major_minor(field: &[u8]) -> bool {
    match memchr::memchr(b',', field) {
        Some(i) => {
            let (a, b) = (&field[..i], &field[i + 1..]);
            !a.is_empty() && !b.is_empty() && a.iter().chain(b).all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// True for a line that opens blkparse's closing summary.
pub(crate) fn opens_summary(text: &[u8]) -> bool {
    let t = text.trim_ascii_start();
    (t.starts_with(b"CPU") && t.get(3).is_some_and(u8::is_ascii_digit))
        || t.starts_with(b"Total (")
        || t.starts_with(b"Throughput (")
        || t.starts_with(b"Events (")
        || t.starts_with(b"Skips:")
}

/// The op of an RWBS string: `Ok(None)` for an event without R, W or D.
fn rwbs_op(rwbs: &[u8]) -> Result<Option<Op>, String> {
    if let Some(&bad) = rwbs.iter().find(|b| !b"RWDFSMAEN".contains(b)) {
        return Err(format!(
            "unknown RWBS letter '{}' in '{}' (expected R, W, D, F, S, M, A, E or N)",
            char::from(bad).escape_debug(),
            quote(rwbs)
        ));
    }
    Ok(if rwbs.contains(&b'D') {
        Some(Op::Trim)
    } else if rwbs.contains(&b'W') {
        Some(Op::Write)
    } else if rwbs.contains(&b'R') {
        Some(Op::Read)
    } else {
        None
    })
}

const NAMES: [&str; 10] = ["device", "cpu", "sequence", "time", "pid", "action", "rwbs", "offset", "+", "size"];

fn parse(in_summary: &mut bool, l: &DataLine<'_>) -> Result<Parsed, TraceError> {
    let mut f: [&[u8]; 10] = [b""; 10];
    let mut n = 0;
    for field in l.whitespace_fields().take(10) {
        f[n] = field;
        n += 1;
    }
    if !is_major_minor(f[0]) {
        if *in_summary || opens_summary(l.text) {
            *in_summary = true;
            return Ok(Parsed::Skip(reason::SUMMARY));
        }
        return Err(l.error(
            "device",
            format!(
                "not a blkparse event line: '{}' (expected 'major,minor cpu sequence time pid action rwbs \
                 sector + nsectors [process]')",
                quote(l.text)
            ),
        ));
    }
    let missing = |n: usize| {
        l.error(
            NAMES[n],
            format!(
                "missing: a blkparse D event has 'major,minor cpu sequence time pid action rwbs sector + \
                 nsectors', found {n} fields"
            ),
        )
    };
    if n < 6 {
        return Err(missing(n));
    }
    if f[5] != b"D" {
        return Ok(Parsed::Skip(reason::NOT_ISSUE));
    }
    if n < 7 {
        return Err(missing(n));
    }
    let device = parse_major_minor_field(f[0]).map_err(|m| l.error("device", m))?;
    let arrival_ns = l.time(f[3], |t| parse_decimal(t, 9))?;
    let rwbs = f[6];
    let flush = rwbs.contains(&b'F');
    let Some(op) = rwbs_op(rwbs).map_err(|m| l.error("rwbs", m))? else {
        return Ok(Parsed::Skip(reason::FLUSH));
    };
    if n < 10 || f[8] != b"+" {
        if flush {
            return Ok(Parsed::Skip(reason::FLUSH));
        }
        if n >= 9 && f[8] != b"+" {
            return Err(l.error("+", format!("expected '+' between sector and nsectors, got '{}'", quote(f[8]))));
        }
        return Err(missing(n.max(7)));
    }
    let sector = parse_u64(f[7]).map_err(|m| l.error("offset", m))?;
    let offset_bytes = line::scale(f[7], sector, 512, "sectors").map_err(|m| l.error("offset", m))?;
    let count = parse_u64(f[9]).map_err(|m| l.error("size", m))?;
    if count == 0 && flush {
        return Ok(Parsed::Skip(reason::FLUSH));
    }
    let size_bytes = line::scale(f[9], count, 512, "sectors").map_err(|m| l.error("size", m))?;
    line::finish(l, arrival_ns, device, offset_bytes, size_bytes, op).map(Parsed::Record)
}

fn parse_major_minor_field(field: &[u8]) -> Result<u32, String> {
    let i = memchr::memchr(b',', field).unwrap_or(field.len());
    parse_major_minor(&field[..i], field.get(i + 1..).unwrap_or_default())
}

reader_impls!(BlkparseReader, "blkparse", in_summary, parse);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Record, RecordSource};

    type Output = (Vec<Result<Record, TraceError>>, Vec<(&'static str, u64)>);

    fn read(text: &str) -> Output {
        let mut r = BlkparseReader::new(text.as_bytes(), "b.txt");
        let out: Vec<_> = r.by_ref().collect();
        (out, r.skip_reasons())
    }

    /// Every action and RWBS combination blkparse prints, plus its summary.
    const FIXTURE: &str = "  8,16   3        4     0.000011950  3645  Q   R 4938888 + 256 [java]
  8,16   3        5     0.000012950  3645  G   R 4938888 + 256 [java]
  8,16   3        6     0.000013950  3645  I   R 4938888 + 256 [java]
  8,16   3        7     0.000026421  3645  D   R 4938888 + 256 [java]
  8,16   3        8     0.001795683  3557  C   R 4938888 + 256 [0]
  8,16   1        9     0.002000000  3436  D  WS 8698656 + 32 [jbd2/sdb-8]
  8,16   1       10     0.002100000  3436  D  WM 16 + 8 [kworker/u8:1]
  8,16   1       11     0.002200000  3436  D  RA 100 + 8 [cat]
  8,16   1       12     0.002300000  3436  D   D 2048 + 4096 [fstrim]
  8,16   1       13     0.002400000  3436  D  FN [kworker/1:1H]
  8,16   1       14     0.002500000  3436  D FWS [kworker/1:1H]
  8,16   1       15     0.002600000  3436  D FWS 0 + 0 [jbd2/sdb-8]
  8,16   1       16     0.002700000  3436  D WFS 512 + 8 [jbd2/sdb-8]
  8,16   1       17     0.002800000  3436  M  WS 520 + 8 [jbd2/sdb-8]
  8,16   1       18     0.002900000  3436  P   N [java]
  8,16   1       19     0.003000000  3436  U   N [java] 1
  8,16   0        0     0.003100000     0  m   N cfq3436 slice expired t=0
259,0    1       20     0.003200000  3436  D  DE 0 + 8 [blkdiscard]
CPU0 (8,16):
 Reads Queued:           0,        0KiB\t Writes Queued:           0,        0KiB
 Read Dispatches:     3270,   380048KiB\t Write Dispatches:       69,    26596KiB

Total (8,16):
 Reads Queued:           0,        0KiB\t Writes Queued:           0,        0KiB

Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,16): 29662 entries
Skips: 0 forward (0 -   0.0%)
";

    #[test]
    fn fixture_covers_every_action() {
        let (out, reasons) = read(FIXTURE);
        let recs: Vec<Record> = out.into_iter().map(Result::unwrap).collect();
        let got: Vec<(u64, u32, u64, u64, Op)> =
            recs.iter().map(|r| (r.arrival_ns, r.device, r.offset_bytes / 512, r.size_bytes / 512, r.op)).collect();
        let dev = (8 << 20) | 16;
        assert_eq!(
            got,
            vec![
                (26_421, dev, 4_938_888, 256, Op::Read),
                (2_000_000, dev, 8_698_656, 32, Op::Write),
                (2_100_000, dev, 16, 8, Op::Write),
                (2_200_000, dev, 100, 8, Op::Read),
                (2_300_000, dev, 2048, 4096, Op::Trim),
                (2_700_000, dev, 512, 8, Op::Write),
                (3_200_000, 259 << 20, 0, 8, Op::Trim),
            ]
        );
        assert_eq!(
            reasons,
            vec![(crate::readers::reason::BLANK, 2), (reason::NOT_ISSUE, 8), (reason::FLUSH, 3), (reason::SUMMARY, 8)]
        );
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases: &[(&str, &str, &str)] = &[
            ("hello world", "device", "not a blkparse event line"),
            ("8,16 1 2 x 5 D R 0 + 8 [p]", "time", "'x'"),
            ("8,16 1 2 0.1 5 D Q 0 + 8 [p]", "rwbs", "unknown RWBS letter 'Q'"),
            ("8,16 1 2 0.1 5 D R x + 8 [p]", "offset", "'x'"),
            ("8,16 1 2 0.1 5 D R 0 + 0 [p]", "size", "zero-size"),
            ("8,16 1 2 0.1 5 D R 0 - 8 [p]", "+", "expected '+'"),
            ("8,16 1 2 0.1 5 D R [p]", "+", "found 8"),
            ("8,16 1 2 0.1 5 D", "rwbs", "found 6"),
            ("8,16 1 2 0.1", "pid", "found 4"),
            ("8888,16 1 2 0.1 5 D R 0 + 8 [p]", "device", "out of range"),
        ];
        for &(bad, field, needle) in cases {
            let (out, _) = read(&format!("8,16 1 1 0.0 5 D R 0 + 8 [p]\n{bad}\n"));
            let e = out.into_iter().find_map(Result::err).unwrap_or_else(|| panic!("{bad}"));
            assert_eq!((e.line, e.field, e.file.as_str()), (2, field, "b.txt"), "{bad}: {e}");
            assert!(e.message.contains(needle), "{bad}: {e}");
        }
    }
}
