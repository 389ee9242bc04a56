//! [`prepass`]: one streaming pass over a trace as a run replays it (with its
//! [`TraceOptions`]), gathering what the CLI checks before simulating and what its
//! warnings and errors name: the span, the gaps (the first over a limit, with its line, and
//! the largest), records out of order (and how many are stamped before the first), the
//! devices, and the skips by reason.

use crate::open::{open_decompressed, validate_options_for, Format};
use crate::options::{apply_options, reason, with_reason, TraceOptions};
use crate::readers::{reason as line_reason, MAX_LINE_BYTES};
use crate::{Record, RecordSource, TraceError};
use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Most distinct devices [`Prepass::devices`] keeps apart (a bound for hostile input); the
/// records of further devices are counted in [`Prepass::further_device_records`].
pub const MAX_DEVICES: usize = 1 << 16;

/// A forward jump in arrival time: a record stamped later than every record before it by
/// more than the previous gaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The line of the record after the gap (approximate under a sort window, which reads
    /// ahead).
    pub line: u64,
    /// That record's index among the records replayed (from 0).
    pub index: u64,
    /// The latest arrival before the gap (ns, the trace's clock).
    pub before_ns: u64,
    /// The arrival after the gap (ns, the trace's clock).
    pub at_ns: u64,
}

impl Gap {
    pub fn gap_ns(&self) -> u64 {
        self.at_ns - self.before_ns
    }
}

/// What [`prepass`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prepass {
    /// Records one replay gives (after every filter).
    pub records: u64,
    /// The arrival the time window is measured from: the first record after the device
    /// filter and the sort window, before the time window (see
    /// [`TraceOptions::time_window_ns`]).
    pub window_origin_ns: Option<u64>,
    /// The first record replayed: its arrival and line.
    pub first_ns: Option<u64>,
    pub first_line: u64,
    /// Earliest and latest arrival replayed.
    pub earliest_ns: Option<u64>,
    pub latest_ns: Option<u64>,
    /// Records stamped earlier than a record before them.
    pub out_of_order: u64,
    /// Records stamped earlier than the first record.
    pub before_first: u64,
    /// The largest forward gap.
    pub largest_gap: Option<Gap>,
    /// The limit [`first_gap_over`](Prepass::first_gap_over) was found against (ns).
    pub gap_limit_ns: u64,
    /// The first gap longer than the limit, in file order, and how many there are.
    pub first_gap_over: Option<Gap>,
    pub gaps_over: u64,
    /// Records per device (at most [`MAX_DEVICES`] devices).
    pub devices: BTreeMap<u32, u64>,
    /// Records of devices beyond the first [`MAX_DEVICES`].
    pub further_device_records: u64,
    /// Skipped lines and records by reason, as
    /// [`RecordSource::skip_reasons`](crate::RecordSource::skip_reasons).
    pub skip_reasons: Vec<(&'static str, u64)>,
}

impl Prepass {
    /// Latest arrival minus the first's (the span measured as the run's time window is).
    pub fn span_from_first_ns(&self) -> u64 {
        self.latest_ns.unwrap_or(0).saturating_sub(self.first_ns.unwrap_or(0))
    }

    /// Devices seen (further devices beyond [`MAX_DEVICES`] count as at least one more).
    pub fn device_count(&self) -> usize {
        self.devices.len() + usize::from(self.further_device_records > 0)
    }

    /// A `--time-window START:END` (seconds) that keeps the records before `gap` and ends
    /// before any record could start a gap as long as `gap`: START is the window's start
    /// as given (`start_ns` after the origin), END lies after the last record before the
    /// gap and at most `limit_ns` after it (and not past the record after the gap), so a
    /// run with this window meets no gap longer than `limit_ns` up to this one.
    pub fn window_before(&self, gap: &Gap, start_ns: u64, limit_ns: u64) -> String {
        let origin = self.window_origin_ns.unwrap_or(0);
        let before = gap.before_ns.saturating_sub(origin);
        let low = before + 1;
        let high = before.saturating_add(limit_ns.max(1)).min(gap.at_ns.saturating_sub(origin)).max(low);
        let start = if start_ns == 0 { "0".to_string() } else { trim_seconds(start_ns) };
        format!("{start}:{}", crate::options::seconds_within(low, high))
    }
}

/// `ns` in seconds with no trailing zeros (`500`, `0.25`).
fn trim_seconds(ns: u64) -> String {
    let text = format!("{:.9}", ns as f64 / 1e9);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Counts the newlines a reader consumes, so a pass over a trace can name the line of a
/// record (after a record is yielded the counter holds its line; approximately under a
/// sort window, which reads ahead).
pub struct CountLines {
    inner: Box<dyn BufRead + Send>,
    lines: Arc<AtomicU64>,
}

impl CountLines {
    /// `inner` counted, and the counter.
    pub fn new(inner: Box<dyn BufRead + Send>) -> (CountLines, Arc<AtomicU64>) {
        let lines = Arc::new(AtomicU64::new(0));
        (CountLines { inner, lines: lines.clone() }, lines)
    }
}

impl Read for CountLines {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(out.len());
            out[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for CountLines {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            let bytes = &buf[..amt.min(buf.len())];
            let n = if bytes.len() <= 64 {
                newlines_in_short(bytes)
            } else {
                memchr::memchr_iter(b'\n', bytes).count() as u64
            };
            self.lines.fetch_add(n, Ordering::Relaxed);
        }
        self.inner.consume(amt);
    }
}

/// The newlines in `bytes`, eight bytes at a time. Readers consume a line at a time (some
/// 30 bytes on SSDSim's trace), where memchr's count spends about 190 instructions a call
/// setting up (a quarter of the pre-pass's reading) and a byte loop about 250 (dev-opt);
/// this about 90.
fn newlines_in_short(bytes: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut n = 0u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("eight bytes")) ^ 0x0a0a_0a0a_0a0a_0a0a;
        // The top bit of each byte that is zero (a newline before the xor), exactly: no
        // carry crosses bytes, as the low seven bits are added alone.
        let zero = !((x & LOW7).wrapping_add(LOW7) | x | LOW7);
        n += (zero >> 7).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    }
    n + words.remainder().iter().map(|&b| u64::from(b == b'\n')).sum::<u64>()
}

/// One pass over the trace at `path` as [`open_trace_with`](crate::open_trace_with) gives
/// it, finding the first gap longer than `gap_limit_ns` (and the largest). Stops at the
/// first error and returns it; a trace without requests is the same error as
/// `open_trace_with` gives.
pub fn prepass(path: &Path, format: Format, options: &TraceOptions, gap_limit_ns: u64) -> Result<Prepass, TraceError> {
    prepass_keeping(path, format, options, gap_limit_ns, 0).map(|(p, _)| p)
}

/// [`prepass`], also keeping the records it read when a replay of them is exactly what
/// [`open_trace_with`](crate::open_trace_with) gives at every step: at most `keep` records,
/// no line skipped for any reason (so `skipped()` is 0 throughout), no time window and no
/// record limit. A run then reads its trace once instead of three times (the CLI's
/// pre-pass, preconditioning's, the run's: issue 48); `keep` bounds the memory (32 bytes
/// a record).
pub fn prepass_keeping(
    path: &Path,
    format: Format,
    options: &TraceOptions,
    gap_limit_ns: u64,
    keep: usize,
) -> Result<(Prepass, Option<KeptRecords>), TraceError> {
    let name = path.display().to_string();
    validate_options_for(format, options).map_err(|m| TraceError::new(&name, 0, "options", m))?;
    let format_name = || format.reader_with_options(std::io::empty(), name.clone(), options).format_name();
    if let Some((tally, skip_reasons)) = fast_pass(path, format, options, gap_limit_ns, keep) {
        return tally.finish(skip_reasons, &name, format_name());
    }
    general_pass(path, format, options, gap_limit_ns, keep, &name)
}

/// The pre-pass through the trace's reader and its options' filters.
fn general_pass(
    path: &Path,
    format: Format,
    options: &TraceOptions,
    gap_limit_ns: u64,
    keep: usize,
    name: &str,
) -> Result<(Prepass, Option<KeptRecords>), TraceError> {
    let name = name.to_string();
    let (input, _) = open_decompressed(path)?;
    let (counted, lines) = CountLines::new(input);
    // The time window and the record limit are applied here, to know the window's origin.
    let inner = TraceOptions { time_window_ns: None, max_records: None, ..options.clone() };
    let mut source = apply_options(format.reader_with_options(counted, name.clone(), options), &inner);
    let mut tally = Tally::new(options, gap_limit_ns, keep);
    let line_now = || lines.load(Ordering::Relaxed);
    while tally.wants_more() {
        let Some(item) = source.next() else { break };
        tally.add(item?, line_now);
    }
    tally.finish(source.skip_reasons(), &name, source.format_name())
}

/// What a pre-pass gathers, a record at a time (both ways of reading feed it).
struct Tally<'o> {
    p: Prepass,
    options: &'o TraceOptions,
    outside: u64,
    keeping: bool,
    keep: usize,
    kept: Vec<Record>,
}

impl<'o> Tally<'o> {
    fn new(options: &'o TraceOptions, gap_limit_ns: u64, keep: usize) -> Self {
        let keeping = keep > 0 && options.time_window_ns.is_none() && options.max_records.is_none();
        Tally {
            p: Prepass { gap_limit_ns, ..Prepass::default() },
            options,
            outside: 0,
            keeping,
            keep,
            kept: Vec::new(),
        }
    }

    /// Whether another record is to be read (the record limit).
    fn wants_more(&self) -> bool {
        self.options.max_records.is_none_or(|limit| self.p.records < limit)
    }

    /// Record `r`, read with the newlines `line_now()` before its end (its line).
    #[inline]
    fn add(&mut self, r: Record, line_now: impl Fn() -> u64) {
        let p = &mut self.p;
        let origin = *p.window_origin_ns.get_or_insert(r.arrival_ns);
        if let Some((start, end)) = self.options.time_window_ns {
            let inside = r.arrival_ns >= origin.saturating_add(start)
                && r.arrival_ns < origin.saturating_add(end)
                && r.arrival_ns >= origin;
            if !inside {
                self.outside += 1;
                return;
            }
        }
        let at = r.arrival_ns;
        match (p.first_ns, p.latest_ns) {
            (Some(first), Some(latest)) => {
                if at < latest {
                    p.out_of_order += 1;
                }
                if at < first {
                    p.before_first += 1;
                }
                if at > latest {
                    let gap = Gap { line: line_now(), index: p.records, before_ns: latest, at_ns: at };
                    if p.largest_gap.is_none_or(|g| gap.gap_ns() > g.gap_ns()) {
                        p.largest_gap = Some(gap);
                    }
                    if gap.gap_ns() > p.gap_limit_ns {
                        p.gaps_over += 1;
                        p.first_gap_over.get_or_insert(gap);
                    }
                    p.latest_ns = Some(at);
                }
            }
            _ => {
                p.first_ns = Some(at);
                p.first_line = line_now();
                p.latest_ns = Some(at);
            }
        }
        p.earliest_ns = Some(p.earliest_ns.map_or(at, |e| e.min(at)));
        if p.devices.len() < MAX_DEVICES || p.devices.contains_key(&r.device) {
            *p.devices.entry(r.device).or_insert(0) += 1;
        } else {
            p.further_device_records += 1;
        }
        p.records += 1;
        if self.keeping && self.kept.len() < self.keep {
            self.kept.push(r);
        }
    }

    /// The result, given the reader's skips and format name.
    fn finish(
        mut self,
        skip_reasons: Vec<(&'static str, u64)>,
        name: &str,
        format_name: &'static str,
    ) -> Result<(Prepass, Option<KeptRecords>), TraceError> {
        let mut p = self.p;
        p.skip_reasons = with_reason(skip_reasons, reason::OUTSIDE_WINDOW, self.outside);
        if p.records == 0 {
            return Err(crate::options::no_requests_error(name, &p.skip_reasons));
        }
        let whole = self.keeping && self.kept.len() as u64 == p.records && p.skip_reasons.is_empty();
        let kept = whole.then(|| {
            self.kept.shrink_to_fit();
            KeptRecords { records: Arc::new(self.kept), next: 0, format_name }
        });
        Ok((p, kept))
    }
}

/// The pre-pass of a trace whose format parses its common line whole
/// ([`Format::fast_line`]), read a buffer at a time with no reader in between: each line
/// is parsed where it lies and its end found by the parse (SSDSim's example trace
/// replayed 30 times: about 990 instructions a line through the reader, the line counter
/// and the record source's calls; issue 48). Only where that reading is the reader's
/// exactly: no device filter, sort window or forced time unit, and every line a common
/// one, a blank line or a comment. `None` at anything else (a line the reader parses
/// otherwise, skips or reports, a line over [`MAX_LINE_BYTES`], a read error): the caller
/// then reads the trace again the general way, which gives the same answer in all the
/// other cases. With the tally, the reader's skips (blank lines).
fn fast_pass<'o>(
    path: &Path,
    format: Format,
    options: &'o TraceOptions,
    gap_limit_ns: u64,
    keep: usize,
) -> Option<(Tally<'o>, Vec<(&'static str, u64)>)> {
    let parse = format.fast_line()?;
    if options.device.is_some() || options.sort_window > 0 || options.time_unit.is_some() {
        return None;
    }
    let (mut input, _) = open_decompressed(path).ok()?;
    let mut tally = Tally::new(options, gap_limit_ns, keep);
    let mut lines = FastLines { parse, newlines: 0, blank: 0, first: true };
    // A line cut by the buffer's end, completed from the next.
    let mut carry: Vec<u8> = Vec::new();
    loop {
        if !tally.wants_more() {
            break;
        }
        let avail = match input.fill_buf() {
            Ok(avail) => avail,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if avail.is_empty() {
            if !carry.is_empty() {
                lines.line(&carry, false, &mut tally)?;
            }
            break;
        }
        let mut at = 0;
        if !carry.is_empty() {
            let Some(end) = memchr::memchr(b'\n', avail) else {
                carry.extend_from_slice(avail);
                if carry.len() > MAX_LINE_BYTES {
                    return None;
                }
                let n = avail.len();
                input.consume(n);
                continue;
            };
            carry.extend_from_slice(&avail[..end]);
            lines.line(&carry, true, &mut tally)?;
            carry.clear();
            at = end + 1;
        }
        while at < avail.len() && tally.wants_more() {
            let rest = &avail[at..];
            if !lines.first {
                if let Some((record, end)) = (lines.parse)(rest) {
                    if end > MAX_LINE_BYTES {
                        return None;
                    }
                    if end == rest.len() {
                        // Cut by the buffer's end: parsed again once whole.
                        carry.extend_from_slice(rest);
                        at = avail.len();
                        break;
                    }
                    lines.newlines += 1;
                    let line = lines.newlines;
                    tally.add(record, || line);
                    at += end + 1;
                    continue;
                }
            }
            match memchr::memchr(b'\n', rest) {
                Some(end) => {
                    lines.line(&rest[..end], true, &mut tally)?;
                    at += end + 1;
                }
                None => {
                    carry.extend_from_slice(rest);
                    at = avail.len();
                }
            }
        }
        if carry.len() > MAX_LINE_BYTES {
            return None;
        }
        input.consume(at);
    }
    let skips = if lines.blank > 0 { vec![(line_reason::BLANK, lines.blank)] } else { Vec::new() };
    Some((tally, skips))
}

/// The lines [`fast_pass`] has read.
struct FastLines {
    parse: crate::open::FastLine,
    /// Newlines read (after a record, its line as [`CountLines`] counts it).
    newlines: u64,
    blank: u64,
    /// No line read yet (the first may start with a byte-order mark).
    first: bool,
}

impl FastLines {
    /// One whole line, `text` without its `\n` (`ended`: it had one). `None`: a line this
    /// reading does not take.
    fn line(&mut self, text: &[u8], ended: bool, tally: &mut Tally<'_>) -> Option<()> {
        if text.len() > MAX_LINE_BYTES || (self.first && text.starts_with(b"\xEF\xBB\xBF")) {
            return None;
        }
        self.first = false;
        self.newlines += u64::from(ended);
        match text.iter().position(|b| !b.is_ascii_whitespace()) {
            None => self.blank += 1,
            Some(i) if text[i] == b'#' => {}
            Some(_) => {
                let (record, end) = (self.parse)(text)?;
                if end != text.len() {
                    return None;
                }
                let line = self.newlines;
                tally.add(record, || line);
            }
        }
        Some(())
    }
}

/// The records a [`prepass_keeping`] kept, replayed: the same stream as the trace opened
/// again (same records and format name, nothing skipped). Clones replay from the start.
#[derive(Clone, Debug)]
pub struct KeptRecords {
    records: Arc<Vec<Record>>,
    next: usize,
    format_name: &'static str,
}

impl KeptRecords {
    /// A replay from the first record.
    pub fn rewound(&self) -> KeptRecords {
        KeptRecords { next: 0, ..self.clone() }
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

impl Iterator for KeptRecords {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        let r = *self.records.get(self.next)?;
        self.next += 1;
        Some(Ok(r))
    }
}

impl RecordSource for KeptRecords {
    fn format_name(&self) -> &'static str {
        self.format_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(content: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(content.as_bytes()).unwrap();
        f.flush().unwrap();
        f
    }

    #[test]
    fn counts_newlines_in_short_slices_exactly() {
        let bytes: Vec<u8> = (0..=255u8).chain(b"\n\n\x0b\n\x0a\x8a\n".iter().copied()).cycle().take(2000).collect();
        for start in 0..300 {
            for len in 0..=64 {
                let s = &bytes[start..start + len];
                assert_eq!(newlines_in_short(s), s.iter().filter(|&&b| b == b'\n').count() as u64, "{start} {len}");
            }
        }
    }

    #[test]
    fn finds_the_first_gap_over_the_limit_and_the_largest() {
        // Gaps of 100 (line 3) and 1000 (line 5) ns; record 4 is out of order.
        let f = temp("10 0 0 8 1\n20 0 0 8 1\n120 1 0 8 1\n60 1 0 8 1\n1120 2 0 8 1\n");
        let p = prepass(f.path(), Format::Mqsim, &TraceOptions::default(), 50).unwrap();
        assert_eq!(p.records, 5);
        assert_eq!((p.first_ns, p.first_line, p.earliest_ns, p.latest_ns), (Some(10), 1, Some(10), Some(1120)));
        assert_eq!(p.first_gap_over, Some(Gap { line: 3, index: 2, before_ns: 20, at_ns: 120 }));
        assert_eq!(p.largest_gap, Some(Gap { line: 5, index: 4, before_ns: 120, at_ns: 1120 }));
        assert_eq!((p.gaps_over, p.out_of_order, p.before_first), (2, 1, 0));
        assert_eq!(p.devices.into_iter().collect::<Vec<_>>(), [(0, 2), (1, 2), (2, 1)]);
    }

    #[test]
    fn the_window_is_measured_from_the_origin_and_its_skips_counted() {
        let f = temp("1000 0 0 8 1\n1100 0 0 8 1\n1200 3 0 8 1\n5000 0 0 8 1\n500 0 0 8 1\n");
        let o = TraceOptions { device: Some(0), time_window_ns: Some((50, 3500)), ..TraceOptions::default() };
        let p = prepass(f.path(), Format::Mqsim, &o, u64::MAX).unwrap();
        assert_eq!((p.window_origin_ns, p.first_ns, p.records), (Some(1000), Some(1100), 1));
        assert_eq!(p.skip_reasons, vec![(reason::OTHER_DEVICE, 1), (reason::OUTSIDE_WINDOW, 3)]);
        let o = TraceOptions { device: Some(7), ..TraceOptions::default() };
        let e = prepass(f.path(), Format::Mqsim, &o, 0).unwrap_err();
        assert!(e.message.contains("no requests in the trace (skipped other device (device filter): 5)"), "{e}");
    }

    /// Kept records replay as the trace opened again does; nothing is kept when a line was
    /// skipped, under a time window or record limit, or past the bound.
    #[test]
    fn kept_records_are_the_trace_reopened() {
        let text = "10 0 0 8 1\n20 1 8 8 0\n15 0 16 16 1\n40 2 0 1 0\n";
        let f = temp(text);
        let o = TraceOptions::default();
        let (p, kept) = prepass_keeping(f.path(), Format::Mqsim, &o, u64::MAX, 100).unwrap();
        assert_eq!(p, prepass(f.path(), Format::Mqsim, &o, u64::MAX).unwrap());
        let kept = kept.expect("kept");
        let reopened: Vec<_> = crate::open_trace_with(f.path(), Format::Mqsim, &o).unwrap().collect();
        assert_eq!(kept.rewound().collect::<Vec<_>>(), reopened);
        assert_eq!((kept.len(), kept.format_name()), (4, "mqsim"));
        let mut partly = kept.rewound();
        partly.next();
        assert_eq!(partly.rewound().count(), 4);
        let sorted = TraceOptions { sort_window: 4, ..TraceOptions::default() };
        let (_, kept) = prepass_keeping(f.path(), Format::Mqsim, &sorted, u64::MAX, 100).unwrap();
        let reopened: Vec<_> = crate::open_trace_with(f.path(), Format::Mqsim, &sorted).unwrap().collect();
        assert_eq!(kept.expect("kept").collect::<Vec<_>>(), reopened);
        assert!(prepass_keeping(f.path(), Format::Mqsim, &o, u64::MAX, 3).unwrap().1.is_none());
        assert!(prepass_keeping(f.path(), Format::Mqsim, &o, u64::MAX, 0).unwrap().1.is_none());
        for o in [
            TraceOptions { device: Some(0), ..TraceOptions::default() },
            TraceOptions { max_records: Some(10), ..TraceOptions::default() },
            TraceOptions { time_window_ns: Some((0, 1000)), ..TraceOptions::default() },
        ] {
            assert!(prepass_keeping(f.path(), Format::Mqsim, &o, u64::MAX, 100).unwrap().1.is_none(), "{o:?}");
        }
        let blank = temp("10 0 0 8 1\n\n20 1 8 8 0\n");
        assert!(prepass_keeping(blank.path(), Format::Mqsim, &o, u64::MAX, 100).unwrap().1.is_none());
    }

    /// The pre-pass reading lines where they lie gives what the reader gives: on common
    /// lines across buffer ends, blank lines, comments, CRLF, a last line without its
    /// newline, record limits and time windows; and leaves every other line to the reader.
    #[test]
    fn the_fast_pass_is_the_reader() {
        let mut big = String::new();
        for i in 0..20_000u64 {
            big.push_str(&format!(
                "{} {} {} {} {}\n",
                i * 37 % 9_000_000 + (i % 7) * 1_000_000_000,
                i % 3,
                i * 13,
                1 + i % 9,
                i % 2
            ));
            match i % 997 {
                5 => big.push('\n'),
                9 => big.push_str("  \t \r\n"),
                11 => big.push_str("# a comment\n"),
                13 => big.push_str("  7  0 8 8 1  \r\n"),
                _ => {}
            }
        }
        let texts = [
            big.clone(),
            big.trim_end().to_string(),
            big.replace('\n', "\r\n"),
            format!("{big}\n\n"),
            format!("\n{big}"),
            format!("# header\n{big}"),
            format!("\u{feff}{big}"),
            format!("{big}bad line\n"),
            format!("1 0 0 0 1\n{big}"),
            format!("{big}5 0 0 8 2\n"),
            format!("{big}5 0 0 8 1 9\n"),
            format!("{big}5 0 0 8\n"),
            format!("{big}5 0 00000000000000000000001 8 1\n"),
            format!("{big}5{} 0 0 8 1\n", " ".repeat(MAX_LINE_BYTES)),
            format!("{big}{}\n", " ".repeat(MAX_LINE_BYTES + 3)),
            "10 0 0 8 1".to_string(),
            "\n\n".to_string(),
            String::new(),
        ];
        let options = [
            TraceOptions::default(),
            TraceOptions { max_records: Some(7_000), ..TraceOptions::default() },
            TraceOptions { time_window_ns: Some((1_000_000_000, 4_000_000_000)), ..TraceOptions::default() },
            TraceOptions { lenient: true, ..TraceOptions::default() },
            TraceOptions { device: Some(1), ..TraceOptions::default() },
        ];
        for (t, text) in texts.iter().enumerate() {
            let f = temp(text);
            let taken = fast_pass(f.path(), Format::Ssdsim, &TraceOptions::default(), 0, 1).is_some();
            assert_eq!(taken, t < 6 || t == 15 || t == 16 || t == 17, "text {t}");
            for format in [Format::Ssdsim, Format::Mqsim] {
                for o in &options {
                    for (limit, keep) in [(u64::MAX, 1 << 20), (1_000_000_000, 100), (0, 0)] {
                        let name = f.path().display().to_string();
                        let general = general_pass(f.path(), format, o, limit, keep, &name);
                        let got = prepass_keeping(f.path(), format, o, limit, keep);
                        let replay = |r: Result<(Prepass, Option<KeptRecords>), TraceError>| {
                            r.map(|(p, k)| (p, k.map(|k| (k.format_name(), k.collect::<Vec<_>>()))))
                        };
                        assert_eq!(replay(got), replay(general), "text {t}, {format:?}, {o:?}, {limit}, {keep}");
                    }
                }
            }
        }
    }

    #[test]
    fn records_before_the_first_are_counted() {
        let f = temp("900 0 0 8 1\n100 0 0 8 1\n200 0 0 8 1\n950 0 0 8 1\n");
        let p = prepass(f.path(), Format::Mqsim, &TraceOptions::default(), u64::MAX).unwrap();
        assert_eq!((p.out_of_order, p.before_first, p.span_from_first_ns()), (2, 2, 50));
    }

    #[test]
    fn the_window_before_a_gap_ends_inside_it() {
        let p = Prepass { window_origin_ns: Some(1_000_000_000), ..Prepass::default() };
        // A gap from 77,401.3 s to 90,000 s after the origin; limit 3,600 s.
        let gap = Gap { line: 9, index: 8, before_ns: 77_402_300_000_000, at_ns: 90_001_000_000_000 };
        assert_eq!(p.window_before(&gap, 0, 3_600_000_000_000), "0:77402");
        assert_eq!(p.window_before(&gap, 500_000_000_000, 3_600_000_000_000), "500:77402");
        // A short limit needs decimals.
        let gap = Gap { line: 9, index: 8, before_ns: 1_000_000_000 + 1_234_000, at_ns: 2_000_000_000 };
        assert_eq!(p.window_before(&gap, 0, 1_000_000), "0:0.002");
        assert_eq!(p.window_before(&gap, 1_000_000, 100_000), "0.001:0.0013");
    }
}
