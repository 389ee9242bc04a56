//! [`TraceStats`]: everything `ssdlab trace-stats` reports about a record stream, gathered
//! in one pass with bounded memory. It extends [`TraceSummary`] (kept as its `summary`
//! field, so the cheap counts stay in one place) with:
//!
//! - a request-size histogram in power-of-two buckets;
//! - inter-arrival statistics in stream order (mean exact; p50/p99 from an HdrHistogram
//!   with 3 significant digits; max exact) and the number of out-of-order arrivals;
//! - the address range and the **footprint**: distinct 4 KiB pages read or written;
//! - the **write-update share** ("hot writes" in IPU's sense): of the distinct 4 KiB pages
//!   written, the share written at least [`HOT_WRITES`] times;
//! - **sequentiality**: the share of requests that start exactly where the previous
//!   request of the same op ended;
//! - requests per device (up to [`MAX_DEVICES`] distinct devices).
//!
//! Memory bound of the page statistics: pages are kept in compressed bitmaps (roaring:
//! 2 bytes per page when sparse, 1 bit per page when dense) — one for pages touched, four
//! for pages written at least 1, 2, 3, 4 times. They are **exact** while the bitmaps take
//! at most [`PAGE_MEMORY_BYTES`] (at least 2^25 sparse pages, 128 GiB of scattered 4 KiB
//! data; far more when dense). Beyond that, pages are **sampled by hash**: only pages whose
//! hash has its low `k` bits zero are kept (`k` grows by one each time the budget is
//! exceeded again), the footprint is scaled by `2^k`, and the hot share is the share among
//! sampled pages (each kept page's count stays exact). [`Footprint::sample_shift`] says
//! which. Trims are not counted in the footprint (a whole-device discard would make it
//! the device size), and a single request over [`MAX_TRACKED_PAGES`] pages is left out of
//! the page statistics and counted in [`Footprint::untracked_requests`].

use crate::summary::TraceSummary;
use crate::{Op, Record, RecordSource, TraceError};
use hdrhistogram::Histogram;
use roaring::RoaringTreemap;
use std::collections::BTreeMap;

/// Page size of the footprint and hot-write statistics.
pub const PAGE_BYTES: u64 = 4096;
/// A page written this many times or more counts as a hot (updated) page.
pub const HOT_WRITES: usize = 4;
/// Memory budget of the page bitmaps before sampling starts.
pub const PAGE_MEMORY_BYTES: u64 = 128 << 20;
/// Largest request (in pages) that the page statistics follow: 2^24 pages = 64 GiB.
pub const MAX_TRACKED_PAGES: u64 = 1 << 24;
/// Distinct devices counted one by one; further devices are counted together.
pub const MAX_DEVICES: usize = 4096;

/// How often (in pages added) the page bitmaps' memory is checked.
const CHECK_EVERY_PAGES: u64 = 1 << 20;

/// Inter-arrival times, in µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GapSummary {
    /// Number of gaps measured (consecutive pairs whose clock did not go backwards).
    pub count: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// Distinct pages, exact or estimated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footprint {
    /// Distinct 4 KiB pages read or written (estimated when `sample_shift > 0`).
    pub pages: u64,
    /// Distinct 4 KiB pages written (estimated when `sample_shift > 0`).
    pub written_pages: u64,
    /// Share of written pages written at least [`HOT_WRITES`] times; `None` without writes.
    pub hot_write_share: Option<f64>,
    /// `0`: exact. `k > 0`: estimated from a hash sample of 1 in `2^k` pages.
    pub sample_shift: u32,
    /// Requests too large to follow page by page (over [`MAX_TRACKED_PAGES`]).
    pub untracked_requests: u64,
}

/// Counts of distinct pages and per-page write counts, memory-bounded by hash sampling.
#[derive(Clone, Debug, Default)]
struct PageSets {
    touched: RoaringTreemap,
    /// `written[i]`: pages written at least `i + 1` times.
    written: [RoaringTreemap; HOT_WRITES],
    shift: u32,
    since_check: u64,
    untracked: u64,
}

/// SplitMix64's finaliser: a well-mixed hash of the page number.
fn mix(page: u64) -> u64 {
    let mut z = page.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl PageSets {
    fn keep(&self, page: u64) -> bool {
        self.shift == 0 || mix(page) & ((1u64 << self.shift) - 1) == 0
    }

    fn add(&mut self, r: &Record) {
        if matches!(r.op, Op::Trim | Op::Sanitize | Op::ZoneManagement(_)) || r.size_bytes == 0 {
            return;
        }
        let first = r.offset_bytes / PAGE_BYTES;
        let last = (r.offset_bytes + (r.size_bytes - 1)) / PAGE_BYTES;
        let count = last - first + 1;
        if count > MAX_TRACKED_PAGES {
            self.untracked += 1;
            return;
        }
        if self.shift == 0 {
            self.touched.insert_range(first..=last);
        } else {
            for page in first..=last {
                if self.keep(page) {
                    self.touched.insert(page);
                }
            }
        }
        if r.op == Op::Write {
            for page in first..=last {
                if self.keep(page) {
                    self.bump(page);
                }
            }
        }
        self.since_check += count;
        if self.since_check >= CHECK_EVERY_PAGES {
            self.since_check = 0;
            while self.memory() > PAGE_MEMORY_BYTES && self.shift < 63 {
                self.downsample();
            }
        }
    }

    /// Counts one more write of `page`.
    fn bump(&mut self, page: u64) {
        let level = self.written.iter().take_while(|set| set.contains(page)).count();
        if level < HOT_WRITES {
            self.written[level].insert(page);
        }
    }

    fn memory(&self) -> u64 {
        let sets = std::iter::once(&self.touched).chain(&self.written);
        sets.map(|s| s.serialized_size() as u64).sum()
    }

    fn downsample(&mut self) {
        self.shift += 1;
        let shift = self.shift;
        let keep = |p: &u64| mix(*p) & ((1u64 << shift) - 1) == 0;
        self.touched = self.touched.iter().filter(keep).collect();
        for set in &mut self.written {
            *set = set.iter().filter(keep).collect();
        }
    }

    fn footprint(&self) -> Footprint {
        let written = self.written[0].len();
        Footprint {
            pages: self.touched.len() << self.shift,
            written_pages: written << self.shift,
            hot_write_share: (written > 0).then(|| self.written[HOT_WRITES - 1].len() as f64 / written as f64),
            sample_shift: self.shift,
            untracked_requests: self.untracked,
        }
    }
}

/// The full statistics of a record stream; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct TraceStats {
    /// Counts, bytes, extents, first/last arrival, skipped lines.
    pub summary: TraceSummary,
    /// [`skip_reasons`](RecordSource::skip_reasons) of the source at the end of the pass.
    pub skip_reasons: Vec<(&'static str, u64)>,
    size_buckets: [u64; 64],
    gaps: Histogram<u64>,
    gap_sum_ns: u128,
    prev_arrival: Option<u64>,
    out_of_order: u64,
    min_arrival: Option<u64>,
    max_arrival: Option<u64>,
    last_end: [Option<u64>; 3],
    sequential: u64,
    devices: BTreeMap<u32, u64>,
    other_devices: u64,
    pages: PageSets,
}

impl Default for TraceStats {
    fn default() -> Self {
        TraceStats {
            summary: TraceSummary::default(),
            skip_reasons: Vec::new(),
            size_buckets: [0; 64],
            gaps: Histogram::new(3).expect("3 significant digits is a valid HdrHistogram precision"),
            gap_sum_ns: 0,
            prev_arrival: None,
            out_of_order: 0,
            min_arrival: None,
            max_arrival: None,
            last_end: [None; 3],
            sequential: 0,
            devices: BTreeMap::new(),
            other_devices: 0,
            pages: PageSets::default(),
        }
    }
}

fn op_index(op: Op) -> usize {
    match op {
        Op::Read => 0,
        Op::Write | Op::ZoneAppend => 1,
        // (A sanitise discards its range as a trim does; a zone reset its zone's.)
        Op::Trim | Op::Sanitize | Op::ZoneManagement(_) => 2,
    }
}

impl TraceStats {
    /// Drains `source` into statistics. Stops at, and returns, the first error.
    pub fn collect<S: RecordSource + ?Sized>(source: &mut S) -> Result<TraceStats, TraceError> {
        let mut stats = TraceStats::default();
        stats.summary.format = source.format_name();
        for item in &mut *source {
            stats.add(&item?);
        }
        stats.summary.skipped = source.skipped();
        stats.skip_reasons = source.skip_reasons();
        Ok(stats)
    }

    /// Accounts for one record.
    pub fn add(&mut self, r: &Record) {
        self.summary.add(r);
        if r.size_bytes > 0 {
            self.size_buckets[63 - r.size_bytes.leading_zeros() as usize] += 1;
        }
        if let Some(prev) = self.prev_arrival {
            match r.arrival_ns.checked_sub(prev) {
                Some(gap) => {
                    if self.gaps.record(gap).is_err() {
                        self.gaps.saturating_record(gap);
                    }
                    self.gap_sum_ns += u128::from(gap);
                }
                None => self.out_of_order += 1,
            }
        }
        self.prev_arrival = Some(r.arrival_ns);
        self.min_arrival = Some(self.min_arrival.map_or(r.arrival_ns, |m| m.min(r.arrival_ns)));
        self.max_arrival = Some(self.max_arrival.map_or(r.arrival_ns, |m| m.max(r.arrival_ns)));
        let i = op_index(r.op);
        if self.last_end[i] == Some(r.offset_bytes) {
            self.sequential += 1;
        }
        self.last_end[i] = Some(r.offset_bytes.saturating_add(r.size_bytes));
        if let Some(n) = self.devices.get_mut(&r.device) {
            *n += 1;
        } else if self.devices.len() < MAX_DEVICES {
            self.devices.insert(r.device, 1);
        } else {
            self.other_devices += 1;
        }
        self.pages.add(r);
    }

    /// Fraction of requests of each op: (read, write, trim); zeros for an empty stream.
    pub fn op_shares(&self) -> (f64, f64, f64) {
        let n = self.summary.requests.max(1) as f64;
        (self.summary.reads as f64 / n, self.summary.writes as f64 / n, self.summary.trims as f64 / n)
    }

    /// Non-empty power-of-two size buckets: `(low, high, count)` for sizes in `[low, high)`.
    pub fn size_histogram(&self) -> Vec<(u64, u64, u64)> {
        (0..64)
            .filter(|&k| self.size_buckets[k] > 0)
            .map(|k| (1u64 << k, if k == 63 { u64::MAX } else { 1u64 << (k + 1) }, self.size_buckets[k]))
            .collect()
    }

    /// Inter-arrival times between consecutive records in stream order, skipping pairs
    /// whose clock goes backwards (counted by [`out_of_order`](Self::out_of_order)).
    /// `None` with fewer than two records.
    pub fn interarrival(&self) -> Option<GapSummary> {
        let count = self.gaps.len();
        (count > 0).then(|| GapSummary {
            count,
            mean_us: self.gap_sum_ns as f64 / count as f64 / 1e3,
            p50_us: self.gaps.value_at_quantile(0.5) as f64 / 1e3,
            p99_us: self.gaps.value_at_quantile(0.99) as f64 / 1e3,
            max_us: self.gaps.max() as f64 / 1e3,
        })
    }

    /// Records whose arrival is earlier than the previous record's.
    pub fn out_of_order(&self) -> u64 {
        self.out_of_order
    }

    /// Latest minus earliest arrival (not first minus last: robust to disorder).
    pub fn span_ns(&self) -> Option<u64> {
        Some(self.max_arrival? - self.min_arrival?)
    }

    /// Smallest offset and largest end, in bytes.
    pub fn address_range(&self) -> Option<(u64, u64)> {
        Some((self.summary.min_offset_bytes?, self.summary.max_end_bytes))
    }

    /// Footprint and write-update statistics.
    pub fn footprint(&self) -> Footprint {
        self.pages.footprint()
    }

    /// Share of requests starting where the previous request of the same op ended.
    pub fn sequential_share(&self) -> f64 {
        self.sequential as f64 / self.summary.requests.max(1) as f64
    }

    /// Requests per device, by device number, and the requests of devices beyond the first
    /// [`MAX_DEVICES`] distinct ones.
    pub fn devices(&self) -> (&BTreeMap<u32, u64>, u64) {
        (&self.devices, self.other_devices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(arrival_ns: u64, offset_bytes: u64, size_bytes: u64, op: Op) -> Record {
        Record { arrival_ns, device: 0, offset_bytes, size_bytes, op, hint: None }
    }

    #[test]
    fn counts_sizes_gaps_and_sequentiality() {
        let mut s = TraceStats::default();
        s.add(&rec(0, 0, 4096, Op::Write));
        s.add(&rec(1000, 4096, 8192, Op::Write)); // sequential write
        s.add(&rec(3000, 0, 512, Op::Read));
        s.add(&rec(2000, 512, 512, Op::Read)); // sequential read, clock backwards
        s.add(&rec(6000, 1 << 20, 4096, Op::Trim));
        assert_eq!(s.size_histogram(), vec![(512, 1024, 2), (4096, 8192, 2), (8192, 16384, 1)]);
        let g = s.interarrival().unwrap();
        assert_eq!(g.count, 3);
        assert!((g.mean_us - 7.0 / 3.0).abs() < 1e-9, "{g:?}");
        assert!((g.max_us - 4.0).abs() < 0.01);
        assert_eq!(s.out_of_order(), 1);
        assert_eq!(s.span_ns(), Some(6000));
        assert!((s.sequential_share() - 0.4).abs() < 1e-12);
        assert_eq!(s.address_range(), Some((0, (1 << 20) + 4096)));
        let f = s.footprint();
        assert_eq!((f.pages, f.written_pages, f.sample_shift), (3, 3, 0));
        assert_eq!(f.hot_write_share, Some(0.0));
    }

    #[test]
    fn hot_writes_need_four_writes() {
        let mut s = TraceStats::default();
        for i in 0..4 {
            s.add(&rec(i, 0, 8192, Op::Write)); // pages 0, 1: 4 writes
        }
        s.add(&rec(9, 8192, 4096, Op::Write)); // page 2: once
        s.add(&rec(9, 4096 * 3, 4096, Op::Write));
        s.add(&rec(9, 4096 * 3, 4096, Op::Write));
        s.add(&rec(9, 4096 * 3, 4096, Op::Write)); // page 3: three times
        let f = s.footprint();
        assert_eq!(f.written_pages, 4);
        assert_eq!(f.hot_write_share, Some(0.5));
    }

    #[test]
    fn sampling_keeps_estimates_close() {
        let mut sets = PageSets::default();
        for p in 0..200_000u64 {
            let page = p * 1000; // sparse
            sets.add(&rec(0, page * PAGE_BYTES, PAGE_BYTES, Op::Write));
            if p % 2 == 0 {
                for _ in 0..3 {
                    sets.add(&rec(0, page * PAGE_BYTES, PAGE_BYTES, Op::Write));
                }
            }
        }
        let exact = sets.footprint();
        assert_eq!((exact.pages, exact.sample_shift), (200_000, 0));
        sets.downsample();
        sets.downsample();
        let est = sets.footprint();
        assert_eq!(est.sample_shift, 2);
        assert!((est.pages as f64 / 200_000.0 - 1.0).abs() < 0.02, "{est:?}");
        assert!((est.hot_write_share.unwrap() - 0.5).abs() < 0.02, "{est:?}");
    }

    #[test]
    fn huge_requests_are_not_followed_page_by_page() {
        let mut s = TraceStats::default();
        s.add(&rec(0, 0, u64::MAX / 2, Op::Write));
        assert_eq!(s.footprint().untracked_requests, 1);
        assert_eq!(s.footprint().pages, 0);
    }

    #[test]
    fn devices_are_counted() {
        let mut s = TraceStats::default();
        for d in [3, 3, 1] {
            s.add(&Record { device: d, ..rec(0, 0, 512, Op::Read) });
        }
        let (devices, other) = s.devices();
        assert_eq!(devices.iter().map(|(&d, &n)| (d, n)).collect::<Vec<_>>(), [(1, 1), (3, 2)]);
        assert_eq!(other, 0);
    }
}
