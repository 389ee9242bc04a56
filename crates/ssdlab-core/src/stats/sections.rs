//! The report's optional sections, one per controller feature or design that is on
//! (cache, mapping table, flows, link, errors, power, the designs' own): each `None`
//! in `Report` when its feature is off.

use super::*;

/// What the controller's DRAM data cache did (`[cache]`; issue 19). Counts are in
/// logical pages (a write or read of part of a page counts one).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CacheSummary {
    pub capacity_pages: u64,
    pub mode: String,
    pub flush: String,
    pub flush_limit_bytes: u64,
    /// Page writes the host sent into the cache.
    pub write_pages: u64,
    /// Of them, overwrites of a page still dirty in DRAM (no extra flash program).
    pub coalesced_writes: u64,
    /// Page reads looked up in the cache, and those served wholly from DRAM.
    pub read_pages: u64,
    pub read_hits: u64,
    /// Reads of which DRAM held only some sectors: read from flash and merged.
    pub read_partial_hits: u64,
    pub read_hit_ratio: f64,
    /// Read misses kept in the cache (`mode = "read-write"`).
    pub read_fills: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// Cold pages sent to flash at once (`flush = "cold-eager"`).
    pub eager_flushes: u64,
    /// Pages programmed out of the cache (evictions and eager flushes).
    pub flushed_pages: u64,
    /// Page writes that waited for room (the flush limit or no evictable slot), and the
    /// most waiting at once.
    pub writes_waited: u64,
    pub max_waiting: u64,
    pub pages_at_end: u64,
    pub dirty_pages_at_end: u64,
    pub dram_transfers: u64,
    pub dram_bytes: u64,
    pub dram_busy_ns: u64,
    /// `flush = "ssdsim"`: SSDSim's buffer counters, in sectors: sectors of writes found
    /// in DRAM already ("buffer write hits") and of reads served from it ("buffer read
    /// hits"), and the sectors DRAM holds at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sectors: Option<CacheSectors>,
}

/// The DRAM cache's sector counters (`flush = "ssdsim"`, SSDSim's buffer statistics).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CacheSectors {
    pub capacity_sectors: u64,
    pub write_sector_hits: u64,
    pub read_sector_hits: u64,
    /// Writes that needed room and waited for the programs of the pages they evicted.
    pub writes_waiting_for_evictions: u64,
}

/// What the cached mapping table did (`[cmt]`; issue 19). Lookups are per logical page
/// of a user read or write (or a flush out of the data cache) that needs flash.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CmtSummary {
    pub capacity_entries: u64,
    pub entry_bytes: u32,
    pub entries_per_translation_page: u32,
    pub translation_pages: u64,
    pub cached_entries: u64,
    pub lookups: u64,
    pub hits: u64,
    /// Misses served from a translation page in controller memory (being written back).
    pub buffer_hits: u64,
    /// Misses that waited for a translation page read, and of them those that joined a
    /// read already under way.
    pub misses: u64,
    pub merged_misses: u64,
    /// (hits + buffer hits) / lookups.
    pub hit_ratio: f64,
    /// Translation-page reads: for misses and for write-backs (`write_back_reads`).
    pub mapping_reads: u64,
    pub write_back_reads: u64,
    /// Translation-page programs (also in `waf`).
    pub mapping_programs: u64,
    pub write_backs: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
    /// GC moves of pages whose entry was not cached (cached dirty without a read, or
    /// folded into the victim's batch of translation-page write-backs).
    pub gc_updates: u64,
}

/// One host flow's requests (`[[flows]]`): each operation's summary over the flow's own
/// interval (its first arrival to its last completion).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    pub name: String,
    pub priority: String,
    /// 0 = open loop.
    pub queue_depth: u32,
    pub read: OpSummary,
    pub write: OpSummary,
    pub all: OpSummary,
    pub first_arrival_ns: u64,
    pub last_completion_ns: u64,
    /// Records its reader skipped (lenient parsing).
    pub skipped_records: u64,
}

/// Requests by priority class (the thesis' priority bit, §7.2) and by power mode (its
/// Netbook scenario).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PrioritySummary {
    pub high_hint_max: u8,
    /// `high` then `low`.
    pub classes: Vec<PriorityClassSummary>,
    /// `battery` then `wall`; empty without power modes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub power_modes: Vec<PowerModeSummary>,
    pub power_switches: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PriorityClassSummary {
    pub name: String,
    pub read: OpSummary,
    pub write: OpSummary,
    pub all: OpSummary,
    /// Flash service time of the class's reads and writes (the thesis' latency measure,
    /// §7.2): each page's own command plus the GC it waited for, not the wait behind
    /// other host work (`engine/priority.rs`).
    pub read_service_ns: LatencySummary,
    pub write_service_ns: LatencySummary,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PowerModeSummary {
    pub name: String,
    /// Requests that arrived in this mode, and the simulated time spent in it.
    pub requests: u64,
    pub time_ns: u64,
    /// Reads, programs, erases and transfers (GC's included) while in this mode, nJ; idle
    /// power is not split by mode.
    pub work_energy_nj: f64,
    pub read: OpSummary,
    pub write: OpSummary,
    pub all: OpSummary,
}

/// Interference among host flows (MQSim's multi-flow experiments): each flow's mean
/// latency shared and alone, its slowdown (shared / alone), and the fairness (smallest
/// slowdown over largest: 1 = every flow slowed alike).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FairnessSummary {
    pub flows: Vec<FlowSlowdown>,
    pub fairness: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSlowdown {
    pub name: String,
    pub shared_mean_ns: f64,
    pub alone_mean_ns: f64,
    pub slowdown: f64,
}

/// What the host link carried (`[link]`).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct LinkSummary {
    pub lanes: u32,
    pub lane_gb_per_s: f64,
    /// Bytes (payload) and busy time toward the device (commands, write data) and
    /// toward the host (read data, completions).
    pub to_device_bytes: u64,
    pub to_device_busy_ns: u64,
    pub to_host_bytes: u64,
    pub to_host_busy_ns: u64,
}

/// What the error model made of the reads (`reliability.enabled`; issue 13).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct ErrorSummary {
    /// `fixed`, `bch` or `ldpc` (`ecc.scheme`).
    pub ecc: String,
    /// User page reads (and reads before partial-page writes) decoded.
    pub decoded_reads: u64,
    pub read_retries: u64,
    /// Reads by the soft-sensing retries they took: element i = reads with i retries.
    pub retries_per_read: Vec<u64>,
    /// Reads of normal-mode pages, their mean model RBER and their retries, by page type.
    #[serde(serialize_with = "by_page_type")]
    pub reads_by_page_type: Vec<u64>,
    #[serde(serialize_with = "by_page_type")]
    pub mean_rber_by_page_type: Vec<f64>,
    #[serde(serialize_with = "by_page_type")]
    pub retries_by_page_type: Vec<u64>,
    /// The same for pages of SLC-mode blocks.
    pub slc_reads: u64,
    pub slc_mean_rber: f64,
    pub slc_retries: u64,
    /// Reads the ECC could not correct (their data was returned anyway with
    /// `ecc.uncorrectable = "count"`).
    pub uncorrectable_reads: u64,
    /// Time spent decoding: every decode attempt of every read.
    pub ecc_decode_ns_total: u64,
    /// GC page reads decoded by the controller (moves without copyback), their retries
    /// and the uncorrectable ones (counted; the data moves anyway). Copyback moves are
    /// not decoded.
    pub gc_decoded_reads: u64,
    pub gc_read_retries: u64,
    pub gc_uncorrectable_reads: u64,
}

pub use crate::designs::ipu::IpuSummary;
pub use crate::designs::scrub::{SanitizeRecord, ScrubSummary};
pub use crate::designs::wom::WomSummary;

/// DIR and its baselines (`dir.scheme`; DIR §4.2's metrics).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct DirSummary {
    pub scheme: String,
    /// Flash page reads of user reads per logical page read (dummy sub-requests count).
    pub read_amplification: f64,
    /// User page reads served by multi-plane read commands / all user page reads.
    pub multi_plane_read_share: f64,
    /// User page programs holding interleaved halves / all user page programs.
    pub interleaved_write_share: f64,
    /// DIR only: groups of two adjacent logical pages formed, free (ungrouped) page
    /// writes, groups written apart because a page could not join its partner, pairs
    /// programmed by their pages' types (`"LSB-MSB"`: first page LSB, second MSB), and
    /// pairs whose pages got the same type.
    pub groups: u64,
    pub free_writes: u64,
    pub broken_groups: u64,
    pub pairs_by_types: std::collections::BTreeMap<String, u64>,
    pub same_type_pairs: u64,
    /// DIR only: GC moves that recovered a logical page whole from the two pages of a pair
    /// whose other logical page was overwritten (DIR §3.2.4).
    pub gc_deinterleaved: u64,
}

/// Read bypassing and write combining (thesis §5.3).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct BypassSummary {
    /// Page reads that joined a flash read of the same logical page in flight.
    pub merged_reads: u64,
    /// Page reads served by the last-read buffer.
    pub buffer_reads: u64,
    /// Page writes that joined a queued write of the same logical page (no program of
    /// their own).
    pub combined_writes: u64,
}

/// Gordon's write points (thesis §5.1).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct GordonSummary {
    pub write_points: u32,
    pub write_points_per_channel: u32,
    /// User page writes placed through the write points.
    pub writes_placed: u64,
    /// Writes whose least-loaded write point had too small a sequence number for the page.
    pub constrained_writes: u64,
    /// Times a write point moved to its next die (a new sequence number).
    pub write_point_moves: u64,
    /// Queued writes a write point took along to its next die.
    pub carried_writes: u64,
}

/// The Harey Tortoise's policies (thesis §7.3). Fast pages are type 0, slow the others.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct HareySummary {
    pub rtf: String,
    pub page_preference: String,
    pub rate_matching: bool,
    pub write_points_per_plane: u32,
    /// User and GC page programs by speed.
    pub user_fast_pages: u64,
    pub user_slow_pages: u64,
    pub gc_fast_pages: u64,
    pub gc_slow_pages: u64,
    pub user_fast_share: f64,
    pub gc_fast_share: f64,
    /// Programs that got the page speed their kind of write prefers (Fig. 7.8).
    pub user_preferred_pages: u64,
    pub gc_preferred_pages: u64,
    /// RTF's pre-emptive GC steps (moves or erases on an idle device).
    pub preemptive_gc_steps: u64,
    /// Rate matching: decisions taken and how many started a GC step.
    pub rate_decisions: u64,
    pub rate_gc_steps: u64,
    /// Mean target ratio (GC time per user-write time, Eq. 7.1 / Eq. 7.2) over decisions.
    pub mean_target_ratio: f64,
    /// Mean over dies of the decayed GC / user-write busy time at the end of the run.
    pub mean_chip_use_ratio: f64,
    pub gc_pages_moved_per_erase: f64,
}

/// What a half-page or subpage map did (issue 12 §2).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct MappingSummary {
    pub kind: String,
    pub units_per_page: u32,
    /// Pairs of logical pages interleaved over the two pages of a multi-plane program.
    pub interleaved_pairs: u64,
    /// Page programs that carried more than one write (subpage packing).
    pub packed_programs: u64,
    /// GC moves that packed the valid units of partly valid pages into one page.
    pub gc_compactions: u64,
    /// Page reads beyond one per logical page read (the other pages of split pages).
    pub extra_page_reads: u64,
    /// Logical pages not stored whole in one page at the end of the run.
    pub split_logical_pages: u64,
}

/// SLC/TLC hybrid flash results (SPA §VI).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct HybridSummary {
    pub layout: String,
    pub allocation: String,
    pub migration: String,
    /// Planes with SLC-mode blocks, and planes wholly in SLC mode.
    pub slc_planes: u32,
    pub slc_only_planes: u32,
    /// User page writes programmed into SLC-mode / normal blocks.
    pub slc_user_pages: u64,
    pub tlc_user_pages: u64,
    /// slc_user_pages / all user page writes.
    pub slc_hit_ratio: f64,
    /// Valid pages moved out of SLC-mode blocks, and how many of them crossed to another
    /// plane (layouts with planes wholly in SLC mode).
    pub migrated_pages: u64,
    pub migrated_across_planes: u64,
    /// SLC-mode blocks erased.
    pub slc_blocks_reclaimed: u64,
    /// Times a plane started migrating (BG-DM, QPC-DM), and the most planes migrating at once.
    pub migration_episodes: u64,
    pub max_migrating_planes: u32,
    /// One-shot programs of user data with an incomplete page set, and the pages lost.
    pub partial_page_sets: u64,
    pub wasted_pages: u64,
}

/// Power failures and recoveries over a run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PowerSummary {
    /// "program" or "buffer" (acknowledged from DRAM, with power-loss protection).
    pub write_acknowledge: String,
    pub losses_scheduled: u64,
    /// Losses that happened (a loss scheduled after the workload ended does not).
    pub losses: u64,
    pub recovery_ns_total: u64,
    /// The counts of every loss, added up.
    #[serde(flatten)]
    pub total: PowerLossCounts,
    pub each: Vec<PowerLossRecord>,
}

/// What one power failure destroyed or saved.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct PowerLossCounts {
    /// Write requests outstanding at the loss: never acknowledged, reported failed.
    pub write_requests_failed: u64,
    pub read_requests_failed: u64,
    /// Page writes of unacknowledged requests whose data did not reach flash.
    pub unacknowledged_pages_lost: u64,
    /// Page writes of unacknowledged requests that are nevertheless in flash.
    pub unacknowledged_pages_durable: u64,
    /// Programs cut by the loss (user writes and GC copies).
    pub torn_pages: u64,
    /// Power-loss protection: buffered pages programmed on capacitor power.
    pub flushed_pages: u64,
}

impl PowerLossCounts {
    pub fn add(&mut self, other: &PowerLossCounts) {
        self.write_requests_failed += other.write_requests_failed;
        self.read_requests_failed += other.read_requests_failed;
        self.unacknowledged_pages_lost += other.unacknowledged_pages_lost;
        self.unacknowledged_pages_durable += other.unacknowledged_pages_durable;
        self.torn_pages += other.torn_pages;
        self.flushed_pages += other.flushed_pages;
    }
}

/// One power failure and the recovery after it.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct PowerLossRecord {
    pub at_ns: u64,
    /// When the drive served requests again: after the outage (or the capacitor-powered
    /// flush, if longer) and the recovery scan.
    pub back_at_ns: u64,
    /// Modelled duration of the recovery scan (OOB reads and re-erases on every die in
    /// parallel, channels carrying the OOB bytes).
    pub recovery_ns: u64,
    /// Pages whose out-of-band area the scan read.
    pub recovery_reads: u64,
    /// Block summary pages read instead of scanning full blocks (`power.block_summary`).
    pub summary_reads: u64,
    /// Logical pages found mapped after recovery.
    pub mapped_pages: u64,
    #[serde(flatten)]
    pub counts: PowerLossCounts,
    /// PLP hold-up time on the busiest die, and buffered pages that found no free page
    /// (acknowledged data lost).
    pub plp_flush_ns: u64,
    pub flush_failures: u64,
    /// Unwritten pages of partly written blocks closed by recovery.
    pub abandoned_pages: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct EnergySummary {
    pub read: f64,
    pub program: f64,
    pub erase: f64,
    pub transfer: f64,
    /// Idle power × the time each chip had no command in flight.
    pub idle: f64,
    /// The work energy (reads, programs, erases, transfers) split: host requests' work
    /// (block summaries included) and GC's (its reads, programs, transfers, all erases).
    pub user: f64,
    pub gc: f64,
    pub total: f64,
    /// Total energy divided by completed user requests.
    pub per_request: f64,
}
