//! Counters, latency histograms and time series gathered during a run, and the
//! serialisable report built from them at the end (schema: docs/json-schema.md).

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

mod sections;
pub use sections::*;

/// Names of the page types of a cell with `types` bits, LSB first: `LSB`, `MSB` (MLC);
/// `LSB`, `CSB`, `MSB` (TLC); `LSB`, `CSB`, `MSB`, `TSB` (QLC); `type0`, … beyond. They
/// key the report's per-page-type objects and name the time-series columns.
pub fn page_type_names(types: usize) -> Vec<String> {
    let fixed: &[&str] = match types {
        1 => &["LSB"],
        2 => &["LSB", "MSB"],
        3 => &["LSB", "CSB", "MSB"],
        4 => &["LSB", "CSB", "MSB", "TSB"],
        _ => &[],
    };
    if fixed.len() == types {
        fixed.iter().map(|s| s.to_string()).collect()
    } else {
        (0..types).map(|t| format!("type{t}")).collect()
    }
}

/// Serialises a per-page-type vector (LSB first) as an object keyed by page-type name.
fn by_page_type<S: serde::Serializer, T: Serialize>(values: &[T], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let names = page_type_names(values.len());
    let mut map = serializer.serialize_map(Some(values.len()))?;
    for (name, value) in names.iter().zip(values) {
        map.serialize_entry(name, value)?;
    }
    map.end()
}

/// Latency statistics of one operation type.
#[derive(Clone)]
pub struct LatencyStats {
    pub count: u64,
    pub bytes: u64,
    pub sum_ns: u128,
    pub max_ns: u64,
    /// Smallest latency recorded (`u64::MAX` before the first).
    pub min_ns: u64,
    hist: Histogram<u64>,
}

impl Default for LatencyStats {
    fn default() -> Self {
        LatencyStats {
            count: 0,
            bytes: 0,
            sum_ns: 0,
            max_ns: 0,
            min_ns: u64::MAX,
            // 1 ns … ~1.2 days with 3 significant digits.
            hist: Histogram::new_with_bounds(1, 100_000_000_000_000, 3).expect("static bounds"),
        }
    }
}

impl LatencyStats {
    pub fn record(&mut self, latency_ns: u64, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.sum_ns += latency_ns as u128;
        self.max_ns = self.max_ns.max(latency_ns);
        self.min_ns = self.min_ns.min(latency_ns);
        self.hist.saturating_record(latency_ns.max(1));
    }

    /// As `record`, but leaves the histogram alone: for a total whose histogram is the sum
    /// of others' (`RunStats::all_summary`), so a latency is put into one histogram only.
    pub fn record_totals(&mut self, latency_ns: u64, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.sum_ns += latency_ns as u128;
        self.max_ns = self.max_ns.max(latency_ns);
        self.min_ns = self.min_ns.min(latency_ns);
    }

    /// These statistics with the histograms of `parts` added to this one's (same bounds,
    /// so every bucket's count adds exactly).
    fn with_histograms_of(&self, parts: &[&LatencyStats]) -> LatencyStats {
        let mut merged = self.clone();
        for part in parts {
            merged.hist.add(&part.hist).expect("histograms of equal bounds add");
        }
        merged
    }

    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    pub fn summary(&self, interval_ns: u64) -> OpSummary {
        // The histogram answers with its bucket's upper edge (3 significant digits), which
        // can lie above the largest latency seen: clamp to the observed extremes.
        let q =
            |p: f64| if self.count == 0 { 0 } else { self.hist.value_at_quantile(p).clamp(self.min_ns, self.max_ns) };
        let seconds = interval_ns as f64 / 1e9;
        OpSummary {
            requests: self.count,
            bytes: self.bytes,
            iops: if seconds > 0.0 { self.count as f64 / seconds } else { 0.0 },
            bandwidth_mib_s: if seconds > 0.0 { self.bytes as f64 / seconds / 1048576.0 } else { 0.0 },
            latency_ns: LatencySummary {
                mean: self.mean_ns(),
                min: if self.count == 0 { 0 } else { self.min_ns },
                p50: q(0.50),
                p90: q(0.90),
                p99: q(0.99),
                p999: q(0.999),
                max: self.max_ns,
            },
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LatencySummary {
    pub mean: f64,
    /// Smallest latency (0 without requests).
    pub min: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OpSummary {
    pub requests: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bandwidth_mib_s: f64,
    pub latency_ns: LatencySummary,
}

/// Per-run accumulators (multi-run keeps one per run).
#[derive(Clone, Default)]
pub struct RunStats {
    pub reads: LatencyStats,
    pub writes: LatencyStats,
    pub trims: LatencyStats,
    pub all: LatencyStats,
    /// Write requests by the page type of their slowest sub-request.
    pub dominated_writes: Vec<u64>,
    pub first_arrival_ns: Option<u64>,
    pub last_completion_ns: u64,
}

impl RunStats {
    /// Every request's statistics. `all` counts every request, but its histogram holds only
    /// requests of no per-operation histogram (sanitises); the others' are added here, at
    /// the report, instead of recording each latency twice.
    pub fn all_summary(&self, interval_ns: u64) -> OpSummary {
        self.all.with_histograms_of(&[&self.reads, &self.writes, &self.trims]).summary(interval_ns)
    }
}

/// One row of the time series: one interval, or a run of consecutive intervals in which
/// no read or write completed, folded into one row (`intervals` > 1) so that an idle gap
/// costs one row however long it is.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeriesRow {
    pub start_ns: u64,
    pub end_ns: u64,
    /// Intervals the row covers: 1, or the length of an idle gap (no completions), whose
    /// rows would all be equal: zero counts, the state sampled at the same moment.
    pub intervals: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_latency_mean_ns: f64,
    pub write_latency_mean_ns: f64,
    pub iops: f64,
    pub bandwidth_mib_s: f64,
    pub free_blocks: u64,
    pub erases: u64,
    /// Free pages of each page type at the end of the interval (normal-mode blocks).
    pub free_pages_by_type: Vec<u64>,
    /// User page writes programmed into SLC-mode blocks during the interval, and the
    /// SLC-mode pages still free at its end (hybrid drives; 0 otherwise).
    pub slc_user_pages: u64,
    pub slc_free_pages: u64,
    /// Valid pages GC moved out of SLC-mode blocks during the interval (migration).
    pub slc_migrated_pages: u64,
    /// Soft-sensing retries of the page reads started during the interval.
    pub read_retries: u64,
}

/// Accumulator for the current time-series interval.
#[derive(Clone, Default)]
pub struct SeriesAccumulator {
    pub bucket: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_latency_sum_ns: u128,
    pub write_latency_sum_ns: u128,
    pub erases_at_start: u64,
    pub slc_user_at_start: u64,
    pub slc_migrated_at_start: u64,
    pub retries_at_start: u64,
}

/// One completed request, for the optional per-request CSV.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RequestRecord {
    pub id: u64,
    pub run: u32,
    pub op: &'static str,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub arrival_ns: u64,
    pub completion_ns: u64,
    pub latency_ns: u64,
    pub pages: u32,
    /// Slowest page type among its sub-requests: programmed (writes) or sensed from flash
    /// (reads, a DIR pair's dummy read included; SLC mode counts as 0); -1 for trims and
    /// requests served without flash.
    pub dominant_page_type: i32,
    /// Soft-sensing read retries of its page reads (the error model; 0 for writes).
    pub read_retries: u32,
    /// Its NVMe status (0: success; a zoned drive's protocol violations, `designs/zns`).
    /// Not a column of the per-request CSV yet.
    #[serde(skip)]
    pub status: u16,
}

/// A stopped run (`Simulator::set_stop_flag`): what the report does not include.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PartialRun {
    /// Simulated time at which the run stopped (after the event in progress).
    pub stopped_at_ns: u64,
    /// Requests completed (all the statistics count) before the stop.
    pub completed_requests: u64,
    /// Requests submitted to the device and not completed: in no statistic.
    pub outstanding_requests: u64,
    /// Requests that had arrived but waited in the host for a queue slot (or for power).
    pub waiting_requests: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunSummary {
    pub run: u32,
    pub interval_ns: u64,
    pub read: OpSummary,
    pub write: OpSummary,
}

/// PA-SSD results (PA §6.1 "success rate of type-specified allocation").
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct PaSummary {
    pub scheme: String,
    /// User write requests assigned each page type.
    pub assigned_by_type: Vec<u64>,
    /// User write sub-requests allocated by pa-BLAlloc, and how many got their type.
    pub typed_allocations: u64,
    pub type_matched: u64,
    pub success_rate: f64,
    /// Unprogrammed pages lost because GC reclaimed partly programmed blocks.
    pub unprogrammed_pages_reclaimed: u64,
}

/// Burst replay results: a burst runs from its first arrival to its last completion.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct BurstSummary {
    pub bursts: u64,
    /// Bursts that wrote data.
    pub write_bursts: u64,
    pub gap_threshold_ns: u64,
    /// Mean over the bursts that wrote of (bytes written by the burst / its duration):
    /// the thesis' burst write bandwidth (§7.3.4).
    pub mean_bandwidth_mib_s: f64,
    /// The same for the bytes read, over the bursts that read.
    pub mean_read_bandwidth_mib_s: f64,
    /// All bytes written by bursts over all burst time.
    pub aggregate_bandwidth_mib_s: f64,
    pub mean_duration_ns: f64,
    /// Idle time enforced between bursts.
    pub idle_ns: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GcSummary {
    /// Blocks chosen as GC victims.
    pub victims: u64,
    pub moved_pages: u64,
    pub erases: u64,
    pub slc_erases: u64,
    pub emergency_steps: u64,
    pub background_steps: u64,
    /// User page writes moved off a plane that had no room and nothing to clean.
    pub rerouted_writes: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EraseSummary {
    pub min: u32,
    pub mean: f64,
    pub max: u32,
    /// Erase counts of all blocks, bucketed: (lower bound, blocks) with 10 equal buckets.
    pub histogram: Vec<(u32, u64)>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlashSummary {
    pub page_reads: u64,
    pub user_page_programs: u64,
    pub gc_page_programs: u64,
    /// Programs of each page type (user + GC), LSB first; serialised as an object keyed
    /// by page-type name (`{"LSB": …, "CSB": …, "MSB": …}`, see [`page_type_names`]).
    #[serde(serialize_with = "by_page_type")]
    pub programs_by_page_type: Vec<u64>,
    pub slc_programs: u64,
    /// User writes served by SLC-mode blocks / all user page writes (0 without SLC).
    pub slc_hit_ratio: f64,
    pub multi_plane_commands: u64,
    pub copybacks: u64,
    /// Page reads before partial-page writes (read-modify-write).
    pub update_reads: u64,
    /// Partial programs of subpages into SLC-mode pages (NOP-limited).
    pub partial_programs: u64,
    pub wasted_pages: u64,
    pub read_retries: u64,
    pub uncorrectable_reads: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostSummary {
    pub requests: u64,
    pub sub_requests: u64,
    /// Reads of logical pages never written, and how they were served.
    pub unwritten_reads: u64,
    /// Pages read before written that a pre-pass placed on flash before the run.
    pub unwritten_pages_preplaced: u64,
    pub unwritten_read_policy: String,
    /// Page reads served from the write buffer: a write of the page was not programmed
    /// yet (DRAM acknowledgement).
    pub buffer_reads: u64,
    /// Page reads of a page whose first write was not programmed yet: they waited for it
    /// and read the new copy (acknowledgement at program time).
    pub reads_after_pending_write: u64,
    /// Requests whose addresses exceeded the logical capacity and were wrapped or scaled.
    pub address_remapped: u64,
    pub address_policy: String,
    /// Requests not aligned to pages (served as whole-page operations).
    pub unaligned: u64,
    /// Open loop: requests whose timestamp went backwards (served at the current time).
    pub out_of_order: u64,
    /// Trace lines and records skipped, summed over runs: the sum of `skipped_by_reason`.
    pub skipped_records: u64,
    /// `skipped_records` by reason.
    pub skipped_by_reason: SkippedByReason,
    pub runs: u32,
    pub replay: String,
}

/// Skipped trace lines and records by kind ([`ssdlab_trace::SkipKind`]).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct SkippedByReason {
    /// Lines that are not requests by design: blank lines, headers, all-empty CSV rows,
    /// blkparse events other than D and its summary, fio iolog file actions and waits.
    pub not_requests: u64,
    /// Malformed lines skipped with `--lenient`.
    pub malformed: u64,
    /// Zero-size requests skipped with `--lenient`.
    pub zero_size: u64,
    /// Records of other devices, dropped by `--device`.
    pub other_device: u64,
    /// Records outside `--time-window`.
    pub outside_time_window: u64,
}

impl SkippedByReason {
    /// Adds what `source` skipped. A source that keeps no breakdown by reason (or one
    /// that adds up to less than its total) has the rest counted as lines that are not
    /// requests.
    pub fn add_source<S: ssdlab_trace::RecordSource + ?Sized>(&mut self, source: &S) {
        let reasons = source.skip_reasons();
        let mut listed = 0;
        for (why, n) in reasons {
            listed += n;
            *self.slot(ssdlab_trace::SkipKind::of(why)) += n;
        }
        self.not_requests += source.skipped().saturating_sub(listed);
    }

    fn slot(&mut self, kind: ssdlab_trace::SkipKind) -> &mut u64 {
        use ssdlab_trace::SkipKind::*;
        match kind {
            NotRequest => &mut self.not_requests,
            Malformed => &mut self.malformed,
            ZeroSize => &mut self.zero_size,
            OtherDevice => &mut self.other_device,
            OutsideWindow => &mut self.outside_time_window,
        }
    }

    pub fn total(&self) -> u64 {
        self.not_requests + self.malformed + self.zero_size + self.other_device + self.outside_time_window
    }

    /// The non-zero counts in words, for the summary: `19819 not requests (blank lines,
    /// headers, non-request events), 2 outside the time window`; empty when none.
    pub fn describe(&self) -> String {
        let parts = [
            (self.not_requests, "not requests (blank lines, headers, non-request events)"),
            (self.malformed, "malformed (--lenient)"),
            (self.zero_size, "zero-size (--lenient)"),
            (self.other_device, "of other devices (--device)"),
            (self.outside_time_window, "outside the time window"),
        ];
        let list: Vec<String> = parts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
        list.join(", ")
    }
}

/// Minimum, mean and maximum over the planes.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct PerPlane {
    pub min: u64,
    pub mean: f64,
    pub max: u64,
}

impl PerPlane {
    pub fn of(values: impl Iterator<Item = u64>) -> PerPlane {
        let (mut min, mut max, mut sum, mut n) = (u64::MAX, 0, 0u128, 0u64);
        for v in values {
            min = min.min(v);
            max = max.max(v);
            sum += v as u128;
            n += 1;
        }
        if n == 0 {
            return PerPlane::default();
        }
        PerPlane { min, mean: sum as f64 / n as f64, max }
    }
}

/// The state a run started in: what preconditioning left on every plane.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StartState {
    /// Pages holding valid data.
    pub valid_pages: PerPlane,
    /// Programmed pages not holding valid data (overwritten, aged, summaries, skipped).
    pub invalid_pages: PerPlane,
    /// Pages that can still be programmed without an erase (free blocks and the unwritten
    /// rest of open blocks).
    pub free_pages: PerPlane,
    /// Free normal-mode blocks (planes with normal blocks).
    pub free_blocks: PerPlane,
    /// GC thresholds in free blocks per plane (`ftl.gc_background_free_fraction`,
    /// `ftl.gc_emergency_free_fraction`).
    pub background_gc_free_blocks: u32,
    pub emergency_gc_free_blocks: u32,
    /// Over the planes, the fewest free blocks above the background / emergency
    /// threshold (0 or less: that plane needs GC as soon as the run starts).
    pub min_blocks_above_background: i64,
    pub min_blocks_above_emergency: i64,
    /// Planes that need GC (background or emergency) when the run starts.
    pub planes_needing_gc: u32,
    /// What to expect from this state, in words.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeviceSummary {
    pub preset: String,
    pub cell: String,
    pub channels: u32,
    pub chips: u32,
    pub dies: u32,
    pub planes: u32,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub page_size_bytes: u32,
    pub physical_bytes: u64,
    pub logical_bytes: u64,
    pub mapping_table_bytes: u64,
    /// Physical pages per super-page (`ftl.super_page_*`); the geometry above is then the
    /// FTL's: gangs of dies as dies, super-pages as pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub super_page_pages: Option<u32>,
}

/// The whole result of a run. Field order is the JSON order; every map is ordered.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub schema_version: u32,
    pub ssdlab_version: String,
    pub seed: u64,
    /// FNV-1a hash of the canonical config TOML, to tell runs apart.
    pub config_hash: String,
    pub workload: String,
    pub device: DeviceSummary,
    pub host: HostSummary,
    /// Simulated time from the first arrival to the last completion (all rates use it).
    pub simulated_ns: u64,
    /// Present only when the run was stopped before the workload ended (Ctrl-C).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialRun>,
    pub read: OpSummary,
    pub write: OpSummary,
    pub trim: OpSummary,
    pub all: OpSummary,
    /// Share of the `dominated_writes` whose slowest sub-request went to each page type;
    /// in the JSON an object keyed by page-type name, like `flash.programs_by_page_type`.
    #[serde(serialize_with = "by_page_type")]
    pub dominated_write_share: Vec<f64>,
    /// Write requests that waited for at least one page program, the denominator of
    /// `dominated_write_share`. A write acknowledged once its data is in the DRAM cache
    /// waits for no program, so it has no dominant page type (its pages' types show in
    /// `flash.programs_by_page_type`).
    pub dominated_writes: u64,
    /// Write amplification by bytes: `programmed_bytes` / host bytes written.
    pub waf: f64,
    /// Write amplification by page programs: (user + GC + translation-page programs) /
    /// user programs (GC's copies only; blind to writes smaller than a page).
    pub waf_pages: f64,
    /// Bytes the user, GC and translation-page programs wrote to flash.
    pub programmed_bytes: u64,
    pub gc: GcSummary,
    pub erase_counts: EraseSummary,
    pub flash: FlashSummary,
    pub energy_nj: EnergySummary,
    pub precondition: crate::ftl::precondition::PreconditionReport,
    /// The drive's state when the run started, after preconditioning.
    pub start_state: StartState,
    /// Things about the run a reader should know before trusting its numbers (e.g. GC in
    /// a run without host writes).
    pub warnings: Vec<String>,
    pub runs: Vec<RunSummary>,
    /// Present with a PA-SSD scheme only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pa: Option<PaSummary>,
    /// Present for burst replay only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstSummary>,
    /// Present when power losses were scheduled (`power.loss_at_ns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<PowerSummary>,
    /// Present when the drive has SLC-mode blocks (SPA-SSD hybrid flash).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<HybridSummary>,
    /// Present with a half-page or subpage map (`ftl.mapping`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping: Option<MappingSummary>,
    /// Present with the error model on (`reliability.enabled`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<ErrorSummary>,
    /// Present with `dir.scheme` other than `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<DirSummary>,
    /// Present with `ipu.scheme` other than `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipu: Option<IpuSummary>,
    /// Present with read bypassing or write combining (`ftl.read_bypass`,
    /// `ftl.write_combining`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bypass: Option<BypassSummary>,
    /// Present with Gordon's write points (`gordon.write_points_per_channel`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gordon: Option<GordonSummary>,
    /// Present with a Harey Tortoise policy (`[harey]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harey: Option<HareySummary>,
    /// Present with Mango on (`mango.enabled`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mango: Option<crate::designs::mango::MangoSummary>,
    /// Latency per priority class and per power mode: present with power modes, a mixed
    /// trace, Mango, a flow with a hint, or `priority.report`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<PrioritySummary>,
    /// Present with `scrub.mode` other than `off` or a sanitise command (`scrub.sanitize_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrub: Option<ScrubSummary>,
    /// Present with WOM codes on (`wom.enabled`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wom: Option<WomSummary>,
    /// The sections of designs built outside this crate, by design name
    /// (`Report::set_section`); absent without such designs.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub designs: BTreeMap<String, serde_json::Value>,
    /// Present with the DRAM data cache on (`cache.capacity_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheSummary>,
    /// Present with the host link modelled (`link.lanes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkSummary>,
    /// Present with a cached mapping table (`cmt.capacity_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmt: Option<CmtSummary>,
    /// One per host flow (`[[flows]]`); empty (and absent) without flows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSummary>,
    /// Each flow's slowdown against running alone (`ssdlab run --fairness`; set by the
    /// CLI, which runs every flow alone too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness: Option<FairnessSummary>,
    /// Events processed (for simulator speed; the CLI adds wall time).
    pub events: u64,
}

impl Report {
    /// Sets the report section of a design built outside this crate (JSON key
    /// `designs.NAME`). A value that does not serialise to JSON (a map with non-string
    /// keys) is recorded as its error message, so the report still says what happened.
    pub fn set_section(&mut self, name: &str, section: &impl Serialize) {
        let value = serde_json::to_value(section)
            .unwrap_or_else(|e| serde_json::Value::String(format!("section does not serialise: {e}")));
        self.designs.insert(name.to_string(), value);
    }

    /// The report section of design `name` built outside this crate, if it wrote one.
    pub fn get_section(&self, name: &str) -> Option<&serde_json::Value> {
        self.designs.get(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 17 item 9: the histogram's bucket edge (p99.9 4751.4 us) lay above the
    /// largest latency recorded (4749.0 us); percentiles stay within the observed range.
    #[test]
    fn percentiles_never_exceed_the_observed_extremes() {
        let mut s = LatencyStats::default();
        for v in [4_700_000, 4_720_000, 4_749_000] {
            s.record(v, 4096);
        }
        let l = s.summary(1_000_000_000).latency_ns;
        for p in [l.p50, l.p90, l.p99, l.p999] {
            assert!((4_700_000..=4_749_000).contains(&p), "{l:?}");
        }
        assert_eq!(l.p999, l.max);
        let mut one = LatencyStats::default();
        one.record(123_456_789, 1);
        let l = one.summary(1).latency_ns;
        assert_eq!((l.p50, l.p999, l.max), (123_456_789, 123_456_789, 123_456_789));
    }

    #[test]
    fn per_page_type_vectors_serialise_as_named_fields() {
        #[derive(Serialize)]
        struct T {
            #[serde(serialize_with = "by_page_type")]
            v: Vec<u64>,
        }
        let text = serde_json::to_string(&T { v: vec![1, 2, 3] }).unwrap();
        assert_eq!(text, r#"{"v":{"LSB":1,"CSB":2,"MSB":3}}"#);
        assert_eq!(page_type_names(2), ["LSB", "MSB"]);
        assert_eq!(page_type_names(5)[4], "type4");
    }
}
