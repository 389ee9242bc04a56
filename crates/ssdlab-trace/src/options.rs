//! [`TraceOptions`]: what a user may ask of any trace on top of its reader — keep one
//! device, skip malformed lines, reorder slightly out-of-order timestamps, cut a time
//! window — and the record-stream adapters that do it.
//!
//! Order of application (by [`open_trace_with`](crate::open_trace_with)): the reader
//! (lenient or not) → device filter → sort window → time window. Records dropped by the
//! filters are counted in [`skipped()`](RecordSource::skipped) under their own
//! [`skip_reasons`](RecordSource::skip_reasons).

use crate::{Record, RecordSource, TraceError};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A wrapper that drops nothing itself: the format and the skips are its source's (its
/// field `inner`). Exported for wrappers in other crates (the ZNS host layer's).
#[macro_export]
macro_rules! passes_through {
    ($t:ty) => {
        impl $crate::RecordSource for $t {
            fn format_name(&self) -> &'static str {
                self.inner.format_name()
            }
            fn skipped(&self) -> u64 {
                self.inner.skipped()
            }
            fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
                self.inner.skip_reasons()
            }
        }
    };
}

/// Skip reasons of the option filters.
pub mod reason {
    /// Dropped by [`TraceOptions::device`](super::TraceOptions::device).
    pub const OTHER_DEVICE: &str = "other device (device filter)";
    /// Dropped by [`TraceOptions::time_window_ns`](super::TraceOptions::time_window_ns).
    pub const OUTSIDE_WINDOW: &str = "outside the time window";
}

/// What kind of skip a [`skip_reasons`](RecordSource::skip_reasons) entry is: the reasons
/// of every reader and filter fall into five kinds, which the run's report counts apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipKind {
    /// A line that is not a request by design: blank lines, headers, all-empty CSV rows,
    /// blkparse events other than D and its summary, fio iolog file actions and waits.
    NotRequest,
    /// A malformed line, skipped in lenient mode.
    Malformed,
    /// A zero-size request, skipped in lenient mode.
    ZeroSize,
    /// A record of another device, dropped by [`TraceOptions::device`].
    OtherDevice,
    /// A record outside [`TraceOptions::time_window_ns`].
    OutsideWindow,
}

impl SkipKind {
    /// The kind of a skip reason (any reason not listed below is a line that is not a
    /// request).
    pub fn of(reason: &str) -> SkipKind {
        match reason {
            crate::readers::reason::MALFORMED => SkipKind::Malformed,
            crate::readers::reason::ZERO_SIZE => SkipKind::ZeroSize,
            reason::OTHER_DEVICE => SkipKind::OtherDevice,
            reason::OUTSIDE_WINDOW => SkipKind::OutsideWindow,
            _ => SkipKind::NotRequest,
        }
    }
}

/// Adds `more` to a list of skip counts by reason (in order of first occurrence).
pub fn merge_skip_reasons(into: &mut Vec<(&'static str, u64)>, more: &[(&'static str, u64)]) {
    for &(why, n) in more {
        match into.iter_mut().find(|(r, _)| *r == why) {
            Some((_, m)) => *m += n,
            None => into.push((why, n)),
        }
    }
}

/// Parses a time window given as `START:END` in seconds after the first record
/// (`--time-window 60:120`), into nanoseconds.
pub fn parse_time_window(text: &str) -> Result<(u64, u64), String> {
    let parse = |v: &str| v.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
    let window = text.split_once(':').and_then(|(a, b)| Some((parse(a)?, parse(b)?))).filter(|(a, b)| a < b);
    let (start, end) = window.ok_or_else(|| format!("'{text}': expected START:END in seconds, START < END"))?;
    Ok(((start * 1e9) as u64, (end * 1e9) as u64))
}

/// `ns` as seconds in the shortest decimal that [`parse_time_window`] reads back as a
/// value in `[low_ns, high_ns]` (`ns` itself when none is shorter).
pub fn seconds_within(low_ns: u64, high_ns: u64) -> String {
    let reads_back = |text: &str| parse_time_window(&format!("0:{text}")).ok().map(|(_, ns)| ns);
    for digits in 0..=9u32 {
        let step = 10u64.pow(9 - digits);
        // The first multiple of the step at or above `low_ns`.
        let candidate = low_ns.div_ceil(step) * step;
        let text = format!("{:.*}", digits as usize, candidate as f64 / 1e9);
        if reads_back(&text).is_some_and(|ns| ns >= low_ns && ns <= high_ns) {
            return text;
        }
    }
    format!("{:.9}", low_ns as f64 / 1e9)
}

/// Options applied to a trace on top of its format's reader. The default changes nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TraceOptions {
    /// Keep only records of this device / volume / ASU / LUN (the format's device column,
    /// see [`Format::device_column`](crate::Format::device_column)). For blkparse and FIU
    /// traces the number is `major << 20 | minor`; [`parse_device_selector`] accepts
    /// `8,16` for it.
    pub device: Option<u32>,
    /// Skip and count malformed lines and zero-size requests instead of failing. I/O errors
    /// (corrupt compressed data) are still errors.
    pub lenient: bool,
    /// `0`: out-of-order timestamps pass through unchanged. `N > 0`: records go through a
    /// min-heap of `N` records ordered by (arrival time, position in the file), so a record
    /// less than `N` positions out of place comes out in time order; ties keep file order.
    pub sort_window: usize,
    /// Keep records whose arrival lies in `[start, end)` nanoseconds after the arrival of
    /// the first record (the first after the device filter and the sort window).
    pub time_window_ns: Option<(u64, u64)>,
    /// Read the time column in this unit instead of the format's own (MQSim's
    /// `Time_Unit`, a trace in seconds labelled nanoseconds...). The column is then read as
    /// a decimal number `int[.frac]` of the unit and converted exactly to nanoseconds
    /// (digits below 1 ns dropped). Formats without a time column (`arc`, `fio-v2`)
    /// reject it.
    pub time_unit: Option<TimeUnit>,
    /// Replay only the first this many records (after every other filter): MQSim's
    /// `Percentage_To_Be_Executed`.
    pub max_records: Option<u64>,
}

/// A unit of a trace's time column, for [`TraceOptions::time_unit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Picoseconds (MQSim's `PICOSECOND`).
    Ps,
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl TimeUnit {
    pub const ALL: [TimeUnit; 5] = [TimeUnit::Ps, TimeUnit::Ns, TimeUnit::Us, TimeUnit::Ms, TimeUnit::S];

    /// The unit's name on the command line: `ps`, `ns`, `us`, `ms`, `s`.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Ps => "ps",
            TimeUnit::Ns => "ns",
            TimeUnit::Us => "us",
            TimeUnit::Ms => "ms",
            TimeUnit::S => "s",
        }
    }

    /// One unit in picoseconds.
    pub fn picoseconds(self) -> u64 {
        match self {
            TimeUnit::Ps => 1,
            TimeUnit::Ns => 1_000,
            TimeUnit::Us => 1_000_000,
            TimeUnit::Ms => 1_000_000_000,
            TimeUnit::S => 1_000_000_000_000,
        }
    }
}

impl std::fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TimeUnit {
    type Err = String;

    /// `ps`, `ns`, `us` (or `µs`), `ms`, `s` in any letter case; also MQSim's `PICOSECOND`,
    /// `NANOSECOND`, `MICROSECOND` and the words `sec`, `msec`, `usec`, `nsec`, `psec`.
    fn from_str(s: &str) -> Result<Self, String> {
        let key = s.trim().to_ascii_lowercase();
        Ok(match key.as_str() {
            "ps" | "psec" | "picosecond" | "picoseconds" => TimeUnit::Ps,
            "ns" | "nsec" | "nanosecond" | "nanoseconds" => TimeUnit::Ns,
            "us" | "µs" | "usec" | "microsecond" | "microseconds" => TimeUnit::Us,
            "ms" | "msec" | "millisecond" | "milliseconds" => TimeUnit::Ms,
            "s" | "sec" | "second" | "seconds" => TimeUnit::S,
            _ => return Err(format!("unknown time unit '{s}' (expected ps, ns, us, ms or s)")),
        })
    }
}

impl TraceOptions {
    /// True when the options change nothing.
    pub fn is_default(&self) -> bool {
        *self == TraceOptions::default()
    }

    /// Checks the options; the message names the bad one.
    pub fn validate(&self) -> Result<(), String> {
        if let Some((start, end)) = self.time_window_ns {
            if start >= end {
                return Err(format!("time window: start ({start} ns) must be before end ({end} ns)"));
            }
        }
        Ok(())
    }

    /// The options in words, e.g. `device 3, lenient, sort window 1000`; `"none"` for the
    /// default.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.device {
            parts.push(format!("device {d}"));
        }
        if self.lenient {
            parts.push("lenient".to_string());
        }
        if self.sort_window > 0 {
            parts.push(format!("sort window {} records", self.sort_window));
        }
        if let Some((a, b)) = self.time_window_ns {
            parts.push(format!("time window [{} s, {} s)", a as f64 / 1e9, b as f64 / 1e9));
        }
        if let Some(u) = self.time_unit {
            parts.push(format!("time unit {u}"));
        }
        if let Some(n) = self.max_records {
            parts.push(format!("first {n} records"));
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// Wraps `source` in the device, sort and time-window filters these options ask for
    /// (lenient mode belongs to the reader: [`Format::reader_with`](crate::Format::reader_with)).
    pub fn apply(&self, source: Box<dyn RecordSource>) -> Box<dyn RecordSource> {
        apply_options(source, self)
    }
}

/// Parses a device selector: a number (`3`) or a Linux `major,minor` / `major:minor` pair
/// (`8,16`), which becomes `major << 20 | minor` as in the blkparse and FIU readers.
pub fn parse_device_selector(s: &str) -> Result<u32, String> {
    let s = s.trim();
    let bad = || format!("invalid device '{s}' (expected a number such as 3, or major,minor such as 8,16)");
    match s.split_once([',', ':']) {
        Some((a, b)) => {
            let major: u32 = a.trim().parse().map_err(|_| bad())?;
            let minor: u32 = b.trim().parse().map_err(|_| bad())?;
            crate::device_number(major, minor)
                .ok_or_else(|| format!("device {major},{minor} is out of range (major < 4096, minor < 1048576)"))
        }
        None => s.parse().map_err(|_| bad()),
    }
}

pub(crate) fn apply_options(mut source: Box<dyn RecordSource>, o: &TraceOptions) -> Box<dyn RecordSource> {
    if let Some(device) = o.device {
        source = Box::new(DeviceFilter { inner: source, device, dropped: 0 });
    }
    if o.sort_window > 0 {
        source = Box::new(SortWindow::new(source, o.sort_window));
    }
    if let Some((start, end)) = o.time_window_ns {
        source = Box::new(TimeWindow { inner: source, start, end, first: None, dropped: 0 });
    }
    if let Some(limit) = o.max_records {
        source = Box::new(FirstRecords { inner: source, left: limit });
    }
    source
}

/// Ends the stream after a number of records (errors pass through).
struct FirstRecords {
    inner: Box<dyn RecordSource>,
    left: u64,
}

impl Iterator for FirstRecords {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let item = self.inner.next()?;
        if item.is_ok() {
            self.left -= 1;
        }
        Some(item)
    }
}

passes_through!(FirstRecords);

/// Ends a stream that yields nothing with an error: an empty file, one of only headers,
/// blank lines or comments, or one whose every record lenient mode or a filter dropped
/// would otherwise replay as a plausible-looking empty run.
pub(crate) struct RequireRecords {
    inner: Box<dyn RecordSource>,
    file: String,
    seen: bool,
    done: bool,
}

impl RequireRecords {
    pub(crate) fn new(inner: Box<dyn RecordSource>, file: String) -> Self {
        RequireRecords { inner, file, seen: false, done: false }
    }
}

impl Iterator for RequireRecords {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(item) = self.inner.next() {
            self.seen = true;
            return Some(item);
        }
        self.done = true;
        if self.seen {
            return None;
        }
        Some(Err(no_requests_error(&self.file, &self.inner.skip_reasons())))
    }
}

/// The error of a trace that yields no request, with what was skipped.
pub(crate) fn no_requests_error(file: &str, reasons: &[(&'static str, u64)]) -> TraceError {
    let detail = if reasons.is_empty() {
        "the file has no data lines".to_string()
    } else {
        let list: Vec<String> = reasons.iter().map(|(why, n)| format!("{why}: {n}")).collect();
        format!("skipped {}", list.join(", "))
    };
    TraceError::new(file, 0, "", format!("no requests in the trace ({detail})"))
}

passes_through!(RequireRecords);

pub(crate) fn with_reason(
    mut reasons: Vec<(&'static str, u64)>,
    reason: &'static str,
    n: u64,
) -> Vec<(&'static str, u64)> {
    if n > 0 {
        reasons.push((reason, n));
    }
    reasons
}

/// Keeps one device.
struct DeviceFilter {
    inner: Box<dyn RecordSource>,
    device: u32,
    dropped: u64,
}

impl Iterator for DeviceFilter {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.inner.next()? {
                Ok(r) if r.device != self.device => self.dropped += 1,
                item => return Some(item),
            }
        }
    }
}

impl RecordSource for DeviceFilter {
    fn format_name(&self) -> &'static str {
        self.inner.format_name()
    }
    fn skipped(&self) -> u64 {
        self.inner.skipped() + self.dropped
    }
    fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
        with_reason(self.inner.skip_reasons(), reason::OTHER_DEVICE, self.dropped)
    }
}

/// One record in the sort window, ordered by (arrival, position in the input).
struct Pending {
    arrival_ns: u64,
    seq: u64,
    record: Record,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.arrival_ns, self.seq) == (other.arrival_ns, other.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.arrival_ns, self.seq).cmp(&(other.arrival_ns, other.seq))
    }
}

/// Reorders through a bounded min-heap. Errors pass through at once, unsorted.
struct SortWindow {
    inner: Box<dyn RecordSource>,
    heap: BinaryHeap<Reverse<Pending>>,
    capacity: usize,
    seq: u64,
    inner_done: bool,
}

impl SortWindow {
    fn new(inner: Box<dyn RecordSource>, capacity: usize) -> Self {
        SortWindow {
            inner,
            heap: BinaryHeap::with_capacity(capacity.min(1 << 16)),
            capacity,
            seq: 0,
            inner_done: false,
        }
    }
}

impl Iterator for SortWindow {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.inner_done && self.heap.len() < self.capacity {
            match self.inner.next() {
                None => self.inner_done = true,
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(record)) => {
                    self.heap.push(Reverse(Pending { arrival_ns: record.arrival_ns, seq: self.seq, record }));
                    self.seq += 1;
                }
            }
        }
        self.heap.pop().map(|Reverse(p)| Ok(p.record))
    }
}

passes_through!(SortWindow);

/// Keeps `[first + start, first + end)`.
struct TimeWindow {
    inner: Box<dyn RecordSource>,
    start: u64,
    end: u64,
    first: Option<u64>,
    dropped: u64,
}

impl Iterator for TimeWindow {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.inner.next()? {
                Ok(r) => {
                    let first = *self.first.get_or_insert(r.arrival_ns);
                    let inside = r.arrival_ns >= first.saturating_add(self.start)
                        && r.arrival_ns < first.saturating_add(self.end)
                        && r.arrival_ns >= first;
                    if inside {
                        return Some(Ok(r));
                    }
                    self.dropped += 1;
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

impl RecordSource for TimeWindow {
    fn format_name(&self) -> &'static str {
        self.inner.format_name()
    }
    fn skipped(&self) -> u64 {
        self.inner.skipped() + self.dropped
    }
    fn skip_reasons(&self) -> Vec<(&'static str, u64)> {
        with_reason(self.inner.skip_reasons(), reason::OUTSIDE_WINDOW, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Op};

    fn source(text: &str, o: &TraceOptions) -> Box<dyn RecordSource> {
        let reader = Format::Mqsim.reader_with(std::io::Cursor::new(text.as_bytes().to_vec()), "t", o.lenient);
        apply_options(reader, o)
    }

    fn times(text: &str, o: &TraceOptions) -> Vec<u64> {
        source(text, o).map(|r| r.unwrap().arrival_ns).collect()
    }

    #[test]
    fn default_changes_nothing() {
        let o = TraceOptions::default();
        assert!(o.is_default());
        assert_eq!(o.describe(), "none");
        assert_eq!(times("30 0 0 8 1\n10 0 0 8 1\n20 0 0 8 1\n", &o), [30, 10, 20]);
    }

    #[test]
    fn device_filter_counts_what_it_drops() {
        let o = TraceOptions { device: Some(2), ..TraceOptions::default() };
        let mut s = source("1 2 0 8 1\n2 1 0 8 1\n3 2 0 8 0\n\n4 3 0 8 1\n", &o);
        let recs: Vec<Record> = s.by_ref().map(Result::unwrap).collect();
        assert_eq!(recs.iter().map(|r| (r.arrival_ns, r.device)).collect::<Vec<_>>(), [(1, 2), (3, 2)]);
        assert_eq!(s.skipped(), 3);
        assert_eq!(s.skip_reasons(), vec![(crate::readers::reason::BLANK, 1), (reason::OTHER_DEVICE, 2)]);
        assert_eq!(s.format_name(), "mqsim");
    }

    #[test]
    fn sort_window_orders_within_its_reach_and_keeps_ties_in_file_order() {
        let text = "30 0 0 8 1\n10 0 0 8 1\n20 1 0 8 1\n20 2 0 8 1\n5 0 0 8 1\n40 0 0 8 1\n";
        let o = TraceOptions { sort_window: 8, ..TraceOptions::default() };
        let recs: Vec<(u64, u32)> = source(text, &o).map(|r| r.map(|r| (r.arrival_ns, r.device)).unwrap()).collect();
        assert_eq!(recs, [(5, 0), (10, 0), (20, 1), (20, 2), (30, 0), (40, 0)]);
        // A window of 2 fixes neighbours only.
        let o = TraceOptions { sort_window: 2, ..TraceOptions::default() };
        assert_eq!(times(text, &o), [10, 20, 20, 5, 30, 40]);
    }

    #[test]
    fn errors_pass_through_the_sort_window() {
        let o = TraceOptions { sort_window: 4, ..TraceOptions::default() };
        let out: Vec<_> = source("3 0 0 8 1\nbad\n1 0 0 8 1\n", &o).collect();
        assert!(out[0].is_err());
        assert_eq!(out[1].as_ref().unwrap().arrival_ns, 1);
        assert_eq!(out[2].as_ref().unwrap().arrival_ns, 3);
    }

    #[test]
    fn time_window_is_relative_to_the_first_record() {
        let o = TraceOptions { time_window_ns: Some((100, 300)), ..TraceOptions::default() };
        let text = "1000 0 0 8 1\n1099 0 0 8 1\n1100 0 0 8 1\n1299 0 0 8 1\n1300 0 0 8 1\n500 0 0 8 1\n";
        let mut s = source(text, &o);
        assert_eq!(s.by_ref().map(|r| r.unwrap().arrival_ns).collect::<Vec<_>>(), [1100, 1299]);
        assert_eq!(s.skip_reasons(), vec![(reason::OUTSIDE_WINDOW, 4)]);
        assert!(TraceOptions { time_window_ns: Some((5, 5)), ..o }.validate().is_err());
    }

    #[test]
    fn lenient_mode_skips_zero_sizes_and_bad_lines() {
        let o = TraceOptions { lenient: true, ..TraceOptions::default() };
        let mut s = source("1 0 0 8 1\n2 0 0 0 1\nxx\n3 0 0 8 0\n", &o);
        let recs: Vec<Record> = s.by_ref().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].op, Op::Write);
        assert_eq!(s.skipped(), 2);
    }

    #[test]
    fn device_selectors() {
        assert_eq!(parse_device_selector("3"), Ok(3));
        assert_eq!(parse_device_selector(" 8,16 "), Ok((8 << 20) | 16));
        assert_eq!(parse_device_selector("8:16"), Ok((8 << 20) | 16));
        assert!(parse_device_selector("sda").unwrap_err().contains("invalid device 'sda'"));
        assert!(parse_device_selector("9999,1").unwrap_err().contains("out of range"));
    }

    #[test]
    fn describe_lists_the_options() {
        let o = TraceOptions {
            device: Some(3),
            lenient: true,
            sort_window: 10,
            time_window_ns: Some((0, 2_000_000_000)),
            time_unit: Some(TimeUnit::Us),
            max_records: Some(5),
        };
        assert_eq!(
            o.describe(),
            "device 3, lenient, sort window 10 records, time window [0 s, 2 s), time unit us, first 5 records"
        );
    }

    #[test]
    fn time_units_parse() {
        for u in TimeUnit::ALL {
            assert_eq!(u.name().parse::<TimeUnit>(), Ok(u));
            assert_eq!(u.name().to_uppercase().parse::<TimeUnit>(), Ok(u));
        }
        assert_eq!("NANOSECOND".parse::<TimeUnit>(), Ok(TimeUnit::Ns));
        assert_eq!("µs".parse::<TimeUnit>(), Ok(TimeUnit::Us));
        assert!("min".parse::<TimeUnit>().unwrap_err().contains("expected ps, ns, us, ms or s"));
    }
}
