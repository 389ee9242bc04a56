//! The typed run configuration (TOML), its defaults and its validation.
//!
//! Every field carries its unit in its name. `validate()` checks cross-field consistency
//! and returns errors naming the dotted key (`geometry.pages_per_block`) and the problem.
//! Unknown keys are rejected at parse time with a did-you-mean suggestion (see
//! [`parse_config`]).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Cell technology: how many bits each cell stores, hence how many page types exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits_per_cell(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// How page types and wordlines are laid out along a block's page IDs.
/// Pages are always programmed in ID order under the strict constraint, so the layout
/// also fixes the program order (SPEC §1.2, thesis Fig. 7.2, PA Fig. 4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutKind {
    /// Staircase with one page per step: WL k's LSB, then WL k-1's CSB, WL k-2's MSB.
    /// For TLC this is PA-SSD's strict order: WL0 = pages (0,2,5), WL1 = (1,4,8), …
    /// For MLC it is the thesis' "single-page alternating" pattern (Fig. 7.2B).
    Staircase,
    /// Staircase with pairs of pages (even/odd chains) per step: thesis Fig. 7.2A
    /// (MLC: first four pages fast, last four slow, mid-block pairs alternate).
    Pairs,
    /// Wordline after wordline: page p has type p % bits and wordline p / bits.
    /// This is the layout of 3D one-shot programming (a page set per wordline).
    Sequential,
    /// Explicit per-page types (0 = LSB …) in program order; wordlines in `custom_wordlines`.
    Custom,
}

/// How data reaches the cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProgramScheme {
    /// 2D: every page is programmed on its own with its own latency.
    PageByPage,
    /// 3D: all pages of a wordline (a page set) are programmed together with one latency;
    /// data waits in DRAM per plane until a full set is gathered or the program delay
    /// expires (SPA §II-A).
    OneShot,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size_bytes: u32,
    /// Subpages per page for partial programming / subpage mapping (1 = none).
    pub subpages_per_page: u32,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry {
            channels: 8,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 512,
            pages_per_block: 384,
            page_size_bytes: 8192,
            subpages_per_page: 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Flash {
    pub cell: CellType,
    pub layout: LayoutKind,
    /// With `layout = "custom"`: page type of every page of a block, in program order.
    pub custom_types: Vec<u8>,
    /// With `layout = "custom"`: wordline of every page of a block.
    pub custom_wordlines: Vec<u32>,
    /// Array read (sense) latency per page type, LSB first. One entry per bit per cell.
    pub read_latency_ns: Vec<u64>,
    /// Program latency per page type, LSB first (for one-shot: only entry 0 is used as
    /// the latency of a whole page set unless `one_shot_program_latency_ns` is set).
    pub program_latency_ns: Vec<u64>,
    pub erase_latency_ns: u64,
    pub program_scheme: ProgramScheme,
    /// Latency of programming a whole page set in one shot (3D TLC); 0 = max of
    /// `program_latency_ns`.
    pub one_shot_program_latency_ns: u64,
    /// One-shot: longest time data may wait in DRAM for its page set to fill.
    pub program_delay_ns: u64,
    /// 2D page-by-page: the controller buffers LSB/CSB data of not-fully-programmed
    /// wordlines in DRAM. Without it a CSB program reads one page first, an MSB two
    /// (PA §5.1).
    pub wordline_buffer: bool,
    /// SLC mode of this part's blocks: pages per block when a block is used as SLC.
    pub slc_pages_per_block: u32,
    pub slc_read_latency_ns: u64,
    pub slc_program_latency_ns: u64,
    /// Maximum number of (partial) programs of one page (NOP); 1 = no partial programming.
    pub partial_programs_max: u32,
    /// Channel transfer time in nanoseconds per byte (3 ns/B ≈ 333 MB/s).
    pub transfer_ns_per_byte: f64,
    /// Fixed cost of issuing one flash command on the channel (address/command cycles).
    pub command_overhead_ns: u64,
    /// ECC decode time added to every page read's completion.
    pub ecc_decode_ns: u64,
    /// Copyback: a page moved within one plane never crosses the channel.
    pub copyback: bool,
    /// Multi-plane commands (conventional restriction: same die, same block and page
    /// address in each plane).
    pub multi_plane: bool,
    /// Enhanced multi-plane commands: the planes of one command may use different block
    /// and page addresses (DIR §3's enhanced multi-plane read). Needs `multi_plane`.
    pub multi_plane_any_address: bool,
    /// Soft-sensing retries every page read takes. A fixed count, the simplest error
    /// model, for sensitivity studies; each retry holds the die (and the channel) for a
    /// failed decode, a sense and a transfer out, as a real retry does.
    pub read_retries: u32,
    /// Sense time of one retry; 0 = the page's own read latency (DIR §2.4: a soft sense
    /// of 24 µs).
    pub retry_sense_latency_ns: u64,
}

impl Default for Flash {
    fn default() -> Self {
        Flash {
            cell: CellType::Tlc,
            layout: LayoutKind::Staircase,
            custom_types: Vec::new(),
            custom_wordlines: Vec::new(),
            read_latency_ns: vec![60_000, 90_000, 120_000],
            program_latency_ns: vec![500_000, 2_000_000, 5_500_000],
            erase_latency_ns: 3_000_000,
            program_scheme: ProgramScheme::PageByPage,
            one_shot_program_latency_ns: 0,
            program_delay_ns: 100_000_000,
            wordline_buffer: true,
            slc_pages_per_block: 0,
            slc_read_latency_ns: 25_000,
            slc_program_latency_ns: 300_000,
            partial_programs_max: 1,
            transfer_ns_per_byte: 3.0,
            command_overhead_ns: 0,
            ecc_decode_ns: 0,
            copyback: true,
            multi_plane: true,
            multi_plane_any_address: false,
            read_retries: 0,
            retry_sense_latency_ns: 0,
        }
    }
}

/// Energy per operation and idle power (thesis Table 2.3). Energies in nanojoules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Energy {
    /// Per page type, LSB first.
    pub read_nj: Vec<f64>,
    pub program_nj: Vec<f64>,
    pub erase_nj: f64,
    /// Energy of a page read / program in an SLC-mode block; 0 = the LSB entry.
    pub slc_read_nj: f64,
    pub slc_program_nj: f64,
    pub transfer_nj_per_byte: f64,
    /// Idle power of one chip in milliwatts, charged over the whole simulated interval.
    pub idle_power_mw_per_chip: f64,
}

impl Default for Energy {
    fn default() -> Self {
        // Thesis Table 2.3 (MLC, fast/slow pages); extended by repetition for more bits.
        Energy {
            read_nj: vec![1_850.0, 1_850.0, 1_850.0],
            program_nj: vec![7_300.0, 34_000.0, 34_000.0],
            erase_nj: 183_000.0,
            slc_read_nj: 0.0,
            slc_program_nj: 0.0,
            transfer_nj_per_byte: 0.0,
            idle_power_mw_per_chip: 0.0,
        }
    }
}

/// How a write's target plane is chosen (PA §2.1 "PLAlloc").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaneAllocation {
    /// The plane is a fixed function of the logical page number, striped in `order`.
    Static,
    /// Planes are taken in `order` by a running counter of written pages.
    RoundRobin,
    /// The plane whose die has the fewest queued transactions (ties: lowest index).
    LeastBusy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    /// Fewest valid pages.
    Greedy,
    /// Max (1 - u) / 2u × age (Kawaguchi et al.).
    CostBenefit,
    /// Oldest closed block first.
    Fifo,
    /// Uniformly random closed block (seeded).
    Random,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WhatIfUnwritten {
    /// The page is placed on flash by preconditioning, before the run: a pre-pass over
    /// the workload finds every page read before it is written. A read of a page still
    /// unmapped during the run (trimmed earlier, or read again in a later run of a
    /// multi-run after a trim) is answered by the controller, as with `Controller`.
    Precondition,
    /// The controller answers without a flash access (zero data).
    Controller,
    /// The run stops with an error.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AddressOverflow {
    /// Logical page number modulo the logical capacity.
    Modulo,
    /// Offsets scaled by capacity / trace address span (needs the span: set
    /// `host.trace_span_bytes`, or the CLI measures it with a first pass).
    Scale,
    /// The run stops with an error naming the request.
    Error,
}

/// How much background GC cleans once a plane is at or below its background threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackgroundGc {
    /// Clean (while idle) until the plane is above the threshold again.
    UntilAboveThreshold,
    /// Clean one victim for every block the plane opens while at or below the threshold
    /// (SSDSim's rule, which the PA-SSD and DIR experiments ran with): GC keeps pace with
    /// consumption instead of restoring the threshold.
    OneVictimPerBlock,
}

/// What a write that covers only part of a page does with the rest of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartialPageWrites {
    /// Read the old page first (if the page holds data), then program the merged page.
    ReadModifyWrite,
    /// Program the page without reading the old data (as if the host wrote whole pages).
    Overwrite,
}

/// Where a GC step of the conventional FTL (no design) moves valid pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcDestination {
    /// Into the victim's own plane (copyback when `flash.copyback`).
    SamePlane,
    /// To a plane of another chip: the one whose die has the least queued work among
    /// those with free blocks to spare (thesis §4.2: GC writes placed "on or off chip");
    /// the source die senses and transfers out, the destination die transfers in and
    /// programs. Falls back to the same plane when no other plane has room.
    OtherChip,
}

/// Which of a plane's user write points takes the next user page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePointChoice {
    /// In turn, skipping write points that cannot take a page.
    RoundRobin,
    /// The write point whose next page is of the fastest type (lowest page type; a fresh
    /// block starts with its first page's type), ties to the lowest number: Harey
    /// Tortoise's write points chosen by the type of their next page (thesis §7.3).
    FastestPage,
}

/// The kinds of flash transaction queues, for the per-die scheduler's priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum QueueKind {
    UserRead,
    UserWrite,
    Gc,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ftl {
    /// Fraction of physical pages hidden from the host.
    pub over_provisioning: f64,
    pub plane_allocation: PlaneAllocation,
    /// Striping order for static/round-robin allocation, fastest-varying first:
    /// a permutation of the letters c (channel), w (way = chip), d (die), p (plane).
    pub allocation_order: String,
    pub gc_victim: VictimPolicy,
    /// Background GC runs on a plane when it is idle and its free blocks are at most this
    /// fraction of its blocks.
    pub gc_background_free_fraction: f64,
    /// Emergency GC runs before further user writes on a plane whose free blocks are at
    /// most this fraction of its blocks.
    pub gc_emergency_free_fraction: f64,
    /// Background GC only starts after the die has been idle this long.
    pub gc_idle_ns: u64,
    /// How much background GC cleans below the background threshold.
    pub gc_background: BackgroundGc,
    /// Priority order of the per-die queues; emergency GC always comes first.
    pub queue_priority: Vec<QueueKind>,
    /// Bytes per mapping-table entry (for the reported mapping memory).
    pub mapping_entry_bytes: u32,
    /// Blocks per plane used in SLC mode (a static SLC write cache; 0 = none). User
    /// writes go to SLC blocks while any are free; GC of an SLC block moves its valid
    /// data into normal blocks. Needs `flash.slc_pages_per_block`.
    pub slc_blocks_per_plane: u32,
    /// Partial-page writes: read-modify-write (default) or plain overwrite.
    pub partial_page_writes: PartialPageWrites,
    /// Partial programming (IPU §1): a write smaller than a page whose data lives in an
    /// SLC-mode page with enough unprogrammed subpages is programmed into that page, up
    /// to `flash.partial_programs_max` programs per page. Needs subpages and SLC blocks.
    pub partial_program_updates: bool,
    /// Where GC moves valid pages (the conventional FTL; designs choose their own).
    pub gc_destination: GcDestination,
    /// User write points (open blocks taking user writes) per plane.
    pub user_write_points: u32,
    /// Which user write point takes the next user page.
    pub write_point_choice: WritePointChoice,
    /// GC writes through the user write points (chosen the same way) instead of a GC
    /// write point of its own (thesis §7.3: GC writes may land in user write points).
    pub gc_through_user_write_points: bool,
}

impl Default for Ftl {
    fn default() -> Self {
        Ftl {
            over_provisioning: 0.15,
            plane_allocation: PlaneAllocation::Static,
            allocation_order: "cwdp".to_string(),
            gc_victim: VictimPolicy::Greedy,
            gc_background_free_fraction: 0.10,
            gc_emergency_free_fraction: 0.05,
            gc_idle_ns: 1_000_000,
            gc_background: BackgroundGc::UntilAboveThreshold,
            queue_priority: vec![QueueKind::UserRead, QueueKind::UserWrite, QueueKind::Gc],
            mapping_entry_bytes: 4,
            slc_blocks_per_plane: 0,
            partial_page_writes: PartialPageWrites::ReadModifyWrite,
            partial_program_updates: false,
            gc_destination: GcDestination::SamePlane,
            user_write_points: 1,
            write_point_choice: WritePointChoice::RoundRobin,
            gc_through_user_write_points: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Precondition {
    /// Fraction of the logical capacity holding valid data before the run (0 = fresh).
    pub used_fraction: f64,
    /// After the fill, random overwrites make invalid pages until the free blocks of
    /// every plane are just above the background GC threshold.
    pub fill_invalid_to_gc_threshold: bool,
    /// Program/erase cycles every block has already seen.
    pub pe_cycles: u32,
    /// SSDSim-style aging (`make_aged`, used by PA-SSD and DIR): after the valid fill,
    /// whole blocks of each plane are marked programmed with only invalid data until this
    /// fraction of the plane's normal blocks is used. GC then reclaims them without moves.
    pub aged_invalid_fraction: f64,
    /// Hybrid drives: every SLC-mode block starts full of valid data (logical pages after
    /// the `used_fraction` fill), so a run starts with the SLC cache exhausted (SPA Fig. 6).
    pub slc_filled: bool,
    /// MQSim's `Working_Set_Percentage`: the region the workload addresses, the first
    /// this fraction of the logical capacity. A synthetic workload without an explicit
    /// `address_space_bytes` is confined to it (the CLI resolves it); preconditioning
    /// writes the lowest logical pages first, so `used_fraction` ≥ this covers it all.
    pub working_set_fraction: f64,
    /// SNIA-PTS-style steady state: after the fill, the workload's own write stream runs
    /// through the FTL without timing, round after round, until WAF and the per-block
    /// valid-page distribution stop changing (or `steady_state_max_rounds`).
    pub steady_state: bool,
    /// Round limit of the steady-state preconditioning (SNIA PTS: 25).
    pub steady_state_max_rounds: u32,
    /// Pages written per steady-state round, as a fraction of the logical capacity (the
    /// workload's write stream is replayed as often as needed to write that many).
    pub steady_state_round_fraction: f64,
}

impl Default for Precondition {
    fn default() -> Self {
        Precondition {
            used_fraction: 0.0,
            fill_invalid_to_gc_threshold: true,
            pe_cycles: 0,
            aged_invalid_fraction: 0.0,
            slc_filled: false,
            working_set_fraction: 1.0,
            steady_state: false,
            steady_state_max_rounds: 25,
            steady_state_round_fraction: 0.5,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayMode {
    /// Requests arrive at their trace timestamps (divided by `speed_factor`).
    OpenLoop,
    /// Keep `queue_depth` requests outstanding; timestamps are ignored.
    ClosedLoop,
    /// Burst/delta replay (thesis §7.3.4): gaps shorter than `host.burst_gap_ns`
    /// collapse to zero, so a burst is issued at once (up to `queue_depth`); a longer gap
    /// is enforced after the previous burst has completed.
    Burst,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Host {
    pub replay: ReplayMode,
    /// Closed loop: requests kept outstanding. Open loop: 0 = unlimited device queue,
    /// else requests beyond this wait in the host.
    pub queue_depth: u32,
    /// Open loop: trace time is divided by this (2.0 replays twice as fast).
    pub speed_factor: f64,
    /// Replay the workload this many times back to back (PA §5.1 multi-run).
    pub runs: u32,
    pub address_overflow: AddressOverflow,
    /// For `address_overflow = "scale"`: the trace's address span in bytes.
    pub trace_span_bytes: u64,
    pub unwritten_reads: WhatIfUnwritten,
    /// Fixed host-interface/firmware overhead added to every request's latency.
    pub request_overhead_ns: u64,
    /// Burst replay: gaps (in trace time) below this separate requests of one burst.
    /// The thesis' default is the trace's mean inter-arrival time, which the CLI
    /// measures when this is 0.
    pub burst_gap_ns: u64,
}

impl Default for Host {
    fn default() -> Self {
        Host {
            replay: ReplayMode::OpenLoop,
            queue_depth: 0,
            speed_factor: 1.0,
            runs: 1,
            address_overflow: AddressOverflow::Modulo,
            trace_span_bytes: 0,
            unwritten_reads: WhatIfUnwritten::Precondition,
            request_overhead_ns: 0,
            burst_gap_ns: 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Time-series interval in simulated ns (0 = no time series).
    pub series_interval_ns: u64,
    /// Check FTL invariants every this many completed sub-requests (0 = only at the end
    /// when `--check` is on).
    pub check_every: u64,
}

impl Default for Output {
    fn default() -> Self {
        Output { series_interval_ns: 1_000_000_000, check_every: 0 }
    }
}

/// When a write is reported complete to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteAcknowledge {
    /// When its data is programmed into the cell array (PA §2.1): nothing acknowledged
    /// can be lost at a power failure.
    Program,
    /// When its data is in the controller's DRAM write buffer (`power.write_buffer_pages`
    /// pages); a full buffer holds further writes until a buffered page is programmed.
    /// Power-loss protection is modelled: capacitors keep the drive up long enough to
    /// program every buffered page when power fails.
    Buffer,
}

/// Where the SLC-mode flash of an SLC/TLC hybrid drive sits (SPA Fig. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlcLayout {
    /// `ftl.slc_blocks_per_plane` SLC blocks in each of `hybrid.slc_planes` planes.
    Plane,
    /// Whole planes in SLC mode: `hybrid.slc_share` of the planes of every die.
    Die,
    /// Whole dies in SLC mode: `hybrid.slc_share` of the dies of every chip.
    Chip,
    /// Whole chips in SLC mode: `hybrid.slc_share` of the chips on every channel.
    Channel,
}

/// How a user write of a hybrid drive picks its plane and its mode (SPA §II-B2, §IV-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HybridAllocation {
    /// Parallelism first (PF-PA): the plane from `ftl.plane_allocation`, SLC while that
    /// plane has any.
    Pf,
    /// TurboWrite (TW-PA): SLC whenever some plane has SLC pages, only those planes
    /// (the one with the fewest outstanding writes); else as PF-PA.
    Tw,
    /// Hot/cold (HC-PA): requests of at most `hybrid.hot_request_max_bytes` are hot and
    /// go as TW-PA; cold ones go to TLC pages of the PF-PA plane.
    Hc,
    /// Type-parallelism joint (TPJ-PA, SPA Algorithm 1).
    Tpj,
}

/// When SLC data is migrated to TLC blocks (SPA §II-B3, §IV-B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlcMigration {
    /// As garbage collection: a plane whose SLC pool is exhausted cleans its SLC blocks
    /// as background GC (when its die is idle).
    Gc,
    /// BG-DM: only while the whole device is idle (no request outstanding for
    /// `hybrid.idle_ns`).
    Bg,
    /// QPC-DM: at most max(p − l/3 − σ, 0) planes migrate at once (l = outstanding write
    /// transactions, σ = `hybrid.qpc_sigma`).
    Qpc,
}

/// SLC/TLC hybrid flash (SPA-SSD, seed 001): layout, allocation and migration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Hybrid {
    pub layout: SlcLayout,
    /// Plane layout: how many planes hold `ftl.slc_blocks_per_plane` SLC blocks, spread
    /// evenly over the plane numbers (0 = every plane).
    pub slc_planes: u32,
    /// Die, chip and channel layouts: the share of the planes of a die, dies of a chip or
    /// chips of a channel that run in SLC mode (rounded, at least one, never all).
    pub slc_share: f64,
    pub allocation: HybridAllocation,
    /// HC-PA: a write request of at most this many bytes is hot (HybridSim marks a
    /// request hot when it is a single page).
    pub hot_request_max_bytes: u64,
    pub migration: SlcMigration,
    /// BG-DM (and QPC-DM on an idle device): how long no request may have arrived
    /// (HybridSim's `dm_interval`, 2 s).
    pub idle_ns: u64,
    /// Idle migration works on planes whose free SLC blocks are below this share of
    /// their SLC blocks (HybridSim: 0.8).
    pub idle_free_target: f64,
    /// QPC-DM under load: a plane starts migrating when it has no free SLC block left and
    /// continues while its free SLC blocks are below this share (HybridSim: 0.3).
    pub busy_free_target: f64,
    /// QPC-DM: planes kept for write bursts (σ; HybridSim: 5).
    pub qpc_sigma: u32,
    /// QPC-DM: a plane stops migrating after reclaiming this many SLC blocks in one go
    /// (HybridSim: 10).
    pub qpc_reclaim_limit: u32,
}

impl Default for Hybrid {
    fn default() -> Self {
        Hybrid {
            layout: SlcLayout::Plane,
            slc_planes: 0,
            slc_share: 0.25,
            allocation: HybridAllocation::Pf,
            hot_request_max_bytes: 8192,
            migration: SlcMigration::Gc,
            idle_ns: 2_000_000_000,
            idle_free_target: 0.8,
            busy_free_target: 0.3,
            qpc_sigma: 5,
            qpc_reclaim_limit: 10,
        }
    }
}

/// Power failures, recovery and write durability (SPEC §2 crash consistency).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Power {
    /// Simulated times at which power is lost. Volatile state (mapping table, queues,
    /// DRAM buffers) is dropped, programs in flight are torn, and the FTL rebuilds its
    /// map from the pages' out-of-band areas before the run continues.
    pub loss_at_ns: Vec<u64>,
    /// How long power stays off before the drive starts recovering.
    pub off_ns: u64,
    pub write_acknowledge: WriteAcknowledge,
    /// DRAM write-buffer capacity in pages (`write_acknowledge = "buffer"`).
    pub write_buffer_pages: u32,
    /// Bytes of a page's out-of-band area read per page by a recovery scan (logical
    /// page and sequence number; the whole page is still sensed).
    pub oob_bytes: u32,
    /// The last page of every block (the last wordline under one-shot programming) holds
    /// a summary of the block's OOB areas (thesis §4.1.4), programmed when the block
    /// fills: recovery reads one page per full block instead of all of them, at the cost
    /// of that page's capacity and program time.
    pub block_summary: bool,
}

impl Default for Power {
    fn default() -> Self {
        Power {
            loss_at_ns: Vec::new(),
            off_ns: 0,
            write_acknowledge: WriteAcknowledge::Program,
            write_buffer_pages: 256,
            oob_bytes: 64,
            block_summary: false,
        }
    }
}

/// One PA-SSD page-type specifying scheme (PA §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaScheme {
    Us,
    Hgs,
    Lfs,
    Sbs,
    Qds,
    Wbs,
    Ubs,
}

impl PaScheme {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "us" => PaScheme::Us,
            "hgs" => PaScheme::Hgs,
            "lfs" => PaScheme::Lfs,
            "sbs" => PaScheme::Sbs,
            "qds" => PaScheme::Qds,
            "wbs" => PaScheme::Wbs,
            "ubs" => PaScheme::Ubs,
            _ => return None,
        })
    }

    /// Schemes that decide every request (usable as a complement).
    fn is_total(self) -> bool {
        matches!(self, PaScheme::Us | PaScheme::Lfs | PaScheme::Ubs)
    }
}

/// PA-SSD (seed 000): page-type aware allocation under relaxed program constraints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PaConfig {
    /// "none" (conventional type-blind allocation, strict order) or a scheme, optionally
    /// with its complement: "us", "hgs", "lfs", "sbs", "qds", "wbs", "ubs", "sbs+us",
    /// "qds+ubs", … Partial schemes (hgs, sbs, qds, wbs) default to "+us".
    pub scheme: String,
    /// QDS: requests in the device queue above which writes get LSB pages (PA: 10).
    pub qds_threshold: u64,
    /// SBS: requests of at most this many page-sized sub-requests get LSB pages.
    pub sbs_max_pages: u32,
    /// WBS: the DRAM write buffer, in pages; it is full when this many written pages
    /// wait to be programmed.
    pub write_buffer_pages: u64,
}

impl Default for PaConfig {
    fn default() -> Self {
        PaConfig { scheme: "none".into(), qds_threshold: 10, sbs_max_pages: 1, write_buffer_pages: 256 }
    }
}

impl PaConfig {
    pub fn enabled(&self) -> bool {
        self.scheme != "none"
    }

    /// (primary, complement). Call only on a validated config.
    pub fn schemes(&self) -> (PaScheme, PaScheme) {
        self.parse().unwrap_or((PaScheme::Us, PaScheme::Us))
    }

    fn parse(&self) -> Result<(PaScheme, PaScheme), String> {
        let mut parts = self.scheme.split('+').map(str::trim);
        let first = parts.next().unwrap_or("");
        let primary = PaScheme::parse(first).ok_or_else(|| format!("unknown scheme '{first}'"))?;
        let complement = match parts.next() {
            Some(name) => PaScheme::parse(name).ok_or_else(|| format!("unknown scheme '{name}'"))?,
            None => PaScheme::Us,
        };
        if parts.next().is_some() {
            return Err("at most two schemes: primary+complement".into());
        }
        if !complement.is_total() {
            return Err("the complement must decide every request: us, lfs or ubs".into());
        }
        Ok((primary, complement))
    }
}

/// A whole simulation configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub name: String,
    pub description: String,
    /// Source of the numbers (paper, table), shown by `ssdlab presets`.
    pub source: String,
    /// Root seed; every random component derives its own stream from it.
    pub seed: u64,
    pub geometry: Geometry,
    pub flash: Flash,
    pub energy: Energy,
    pub ftl: Ftl,
    pub precondition: Precondition,
    pub host: Host,
    pub output: Output,
    pub pa: PaConfig,
    pub power: Power,
    pub hybrid: Hybrid,
    /// A built-in synthetic workload, used when no trace is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<ssdlab_trace::SyntheticSpec>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: "default".to_string(),
            description: String::new(),
            source: String::new(),
            seed: 1,
            geometry: Geometry::default(),
            flash: Flash::default(),
            energy: Energy::default(),
            ftl: Ftl::default(),
            precondition: Precondition::default(),
            host: Host::default(),
            output: Output::default(),
            pa: PaConfig::default(),
            power: Power::default(),
            hybrid: Hybrid::default(),
            workload: None,
        }
    }
}

/// A configuration problem, naming the dotted key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Longest time one flash step, command overhead or host overhead may take: one second.
/// Real NAND needs microseconds to milliseconds; larger values are typos (or units mixed
/// up) and would overflow the simulated clock.
pub const MAX_STEP_NS: u64 = 1_000_000_000;

/// Smallest and largest `geometry.page_size_bytes` accepted (powers of two between).
pub const MIN_PAGE_BYTES: u32 = 512;
pub const MAX_PAGE_BYTES: u32 = 65536;

/// Harey Tortoise's largest configuration (thesis §7.3: 1–32 write points per chip).
const MAX_USER_WRITE_POINTS: u32 = 32;

/// Read-retry tables of real LDPC controllers stop well before this.
const MAX_READ_RETRIES: u32 = 64;

/// Slowest channel accepted: 1000 ns per byte (1 MB/s; ONFI 1.0 is 25 ns per byte).
pub const MAX_TRANSFER_NS_PER_BYTE: f64 = 1000.0;

/// Longest power outage accepted: one hour of simulated time.
pub const MAX_POWER_OFF_NS: u64 = 3_600_000_000_000;

fn err(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError { key: key.to_string(), message: message.into() }
}

impl Config {
    pub fn bits_per_cell(&self) -> usize {
        self.flash.cell.bits_per_cell()
    }

    /// Pages the host can address: normal-mode (non-SLC) pages less over-provisioning.
    pub fn logical_pages(&self) -> u64 {
        let g = &self.geometry;
        let normal_blocks: u64 =
            self.slc_blocks_by_plane().iter().map(|&slc| g.blocks_per_plane.saturating_sub(slc) as u64).sum();
        let pages = normal_blocks * (g.pages_per_block as u64).saturating_sub(self.summary_pages_per_block() as u64);
        ((pages as f64) * (1.0 - self.ftl.over_provisioning)).floor() as u64
    }

    /// Whether the drive has SLC-mode blocks (a static SLC cache or a hybrid layout).
    pub fn uses_slc(&self) -> bool {
        self.ftl.slc_blocks_per_plane > 0 || self.hybrid.layout != SlcLayout::Plane
    }

    fn validate_hybrid(&self) -> Vec<ConfigError> {
        let (g, h) = (&self.geometry, &self.hybrid);
        let mut errors = Vec::new();
        let (units, key, what) = match h.layout {
            SlcLayout::Plane => (2, "", ""),
            SlcLayout::Die => (g.planes_per_die, "geometry.planes_per_die", "SLC planes on every die"),
            SlcLayout::Chip => (g.dies_per_chip, "geometry.dies_per_chip", "SLC dies on every chip"),
            SlcLayout::Channel => (g.chips_per_channel, "geometry.chips_per_channel", "SLC chips on every channel"),
        };
        if units < 2 {
            errors.push(err(
                "hybrid.layout",
                format!("the {:?} layout puts {what}, so {key} must be at least 2", h.layout).to_lowercase(),
            ));
        }
        if h.layout != SlcLayout::Plane && !(h.slc_share > 0.0 && h.slc_share < 1.0) {
            errors.push(err("hybrid.slc_share", "must be between 0 and 1 (exclusive)"));
        }
        if !self.uses_slc() && h.migration != SlcMigration::Gc {
            errors.push(err(
                "hybrid.migration",
                "migration policies need SLC-mode flash: set ftl.slc_blocks_per_plane or a hybrid.layout other \
                 than \"plane\"",
            ));
        }
        if h.layout != SlcLayout::Plane && !self.power.loss_at_ns.is_empty() {
            errors.push(err(
                "power.loss_at_ns",
                "power losses are not modelled with a die-, chip- or channel-level hybrid layout (pages migrating \
                 between planes)",
            ));
        }
        if h.migration == SlcMigration::Bg && h.idle_ns == 0 {
            errors.push(err("hybrid.idle_ns", "BG-DM needs a positive idle threshold"));
        }
        if h.idle_ns > MAX_POWER_OFF_NS {
            errors.push(err("hybrid.idle_ns", format!("at most {MAX_POWER_OFF_NS} ns (one hour)")));
        }
        for (key, v) in
            [("hybrid.idle_free_target", h.idle_free_target), ("hybrid.busy_free_target", h.busy_free_target)]
        {
            if !(0.0..=1.0).contains(&v) {
                errors.push(err(key, "must be between 0 and 1"));
            }
        }
        if h.migration == SlcMigration::Qpc && h.qpc_reclaim_limit == 0 {
            errors.push(err("hybrid.qpc_reclaim_limit", "must be at least 1"));
        }
        errors
    }

    /// SLC-mode blocks of every plane, by plane number, as `hybrid.layout` places them:
    /// the first blocks of a plane with some, every block of a plane in SLC mode.
    pub fn slc_blocks_by_plane(&self) -> Vec<u32> {
        let g = &self.geometry;
        let planes = (g.channels as u64 * g.chips_per_channel as u64 * g.dies_per_chip as u64 * g.planes_per_die as u64)
            .min(1 << 24) as u32;
        let h = &self.hybrid;
        let whole = |units: u32| -> u32 { ((units as f64 * h.slc_share).round() as u32).clamp(1, units.max(2) - 1) };
        (0..planes)
            .map(|p| {
                let die = p / g.planes_per_die.max(1);
                let chip = die / g.dies_per_chip.max(1);
                let slc_whole = match h.layout {
                    SlcLayout::Plane => {
                        let n = if h.slc_planes == 0 { planes } else { h.slc_planes.min(planes) } as u64;
                        let p = p as u64;
                        // Evenly spread from plane 0: every (planes/n)-th plane.
                        let has = (p * n) % (planes as u64) < n;
                        return if has { self.ftl.slc_blocks_per_plane.min(g.blocks_per_plane) } else { 0 };
                    }
                    SlcLayout::Die => p % g.planes_per_die.max(1) < whole(g.planes_per_die),
                    SlcLayout::Chip => die % g.dies_per_chip.max(1) < whole(g.dies_per_chip),
                    SlcLayout::Channel => chip % g.chips_per_channel.max(1) < whole(g.chips_per_channel),
                };
                if slc_whole {
                    g.blocks_per_plane
                } else {
                    0
                }
            })
            .collect()
    }

    /// Pages at the end of every normal-mode block that hold its summary
    /// (`power.block_summary`): one, or a whole wordline under one-shot programming.
    pub fn summary_pages_per_block(&self) -> u32 {
        match (self.power.block_summary, self.flash.program_scheme) {
            (false, _) => 0,
            (true, ProgramScheme::OneShot) => self.bits_per_cell() as u32,
            (true, ProgramScheme::PageByPage) => 1,
        }
    }

    /// Raw capacity: normal blocks at full page count plus SLC-mode blocks at theirs.
    pub fn physical_bytes(&self) -> u64 {
        let g = &self.geometry;
        let pages: u64 = self
            .slc_blocks_by_plane()
            .iter()
            .map(|&slc| {
                (g.blocks_per_plane - slc) as u64 * g.pages_per_block as u64
                    + slc as u64 * self.flash.slc_pages_per_block as u64
            })
            .sum();
        pages * g.page_size_bytes as u64
    }

    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages() * self.geometry.page_size_bytes as u64
    }

    /// Checks every cross-field constraint; returns all problems found, not just the first.
    pub fn validate(&self) -> Result<(), Vec<ConfigError>> {
        let mut errors = Vec::new();
        let g = &self.geometry;
        for (key, value) in [
            ("geometry.channels", g.channels),
            ("geometry.chips_per_channel", g.chips_per_channel),
            ("geometry.dies_per_chip", g.dies_per_chip),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.blocks_per_plane", g.blocks_per_plane),
            ("geometry.pages_per_block", g.pages_per_block),
            ("geometry.page_size_bytes", g.page_size_bytes),
            ("geometry.subpages_per_page", g.subpages_per_page),
        ] {
            if value == 0 {
                errors.push(err(key, "must be at least 1"));
            }
        }
        // In u128, saturating: six u32 factors would overflow u64 and panic.
        let pages =
            [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die, g.blocks_per_plane, g.pages_per_block]
                .iter()
                .fold(1u128, |total, &n| total.saturating_mul(n as u128));
        if pages >= u32::MAX as u128 {
            errors.push(err("geometry", format!("{pages} physical pages exceed the 2^32-1 addressable by the model")));
        }
        // NAND pages are a power of two of data bytes (the spare area is not modelled): 512 B
        // (early SLC) to 64 KiB; a subpage is at least one 512-B sector.
        let page_ok =
            (MIN_PAGE_BYTES..=MAX_PAGE_BYTES).contains(&g.page_size_bytes) && g.page_size_bytes.is_power_of_two();
        if g.page_size_bytes != 0 && !page_ok {
            errors.push(err(
                "geometry.page_size_bytes",
                format!(
                    "{} is not a flash page size: must be a power of two from {MIN_PAGE_BYTES} to {MAX_PAGE_BYTES} bytes \
                     (e.g. 4096, 8192, 16384)",
                    g.page_size_bytes
                ),
            ));
        }
        if g.subpages_per_page > 1 && !g.page_size_bytes.is_multiple_of(g.subpages_per_page) {
            errors.push(err("geometry.subpages_per_page", "must divide geometry.page_size_bytes"));
        } else if page_ok && g.subpages_per_page > 1 && g.page_size_bytes / g.subpages_per_page < MIN_PAGE_BYTES {
            errors.push(err(
                "geometry.subpages_per_page",
                format!(
                    "{} subpages of a {}-byte page are {} bytes each; a subpage must hold at least one \
                     {MIN_PAGE_BYTES}-byte sector",
                    g.subpages_per_page,
                    g.page_size_bytes,
                    g.page_size_bytes / g.subpages_per_page
                ),
            ));
        }
        let bits = self.bits_per_cell();
        let f = &self.flash;
        if f.read_latency_ns.len() != bits {
            errors.push(err(
                "flash.read_latency_ns",
                format!("needs {bits} entries (one per page type of {:?}), has {}", f.cell, f.read_latency_ns.len()),
            ));
        }
        if f.program_latency_ns.len() != bits {
            errors.push(err(
                "flash.program_latency_ns",
                format!("needs {bits} entries (one per page type of {:?}), has {}", f.cell, f.program_latency_ns.len()),
            ));
        }
        if f.read_latency_ns.contains(&0) {
            errors.push(err("flash.read_latency_ns", "latencies must be positive"));
        }
        if f.program_latency_ns.contains(&0) {
            errors.push(err("flash.program_latency_ns", "latencies must be positive"));
        }
        if f.erase_latency_ns == 0 {
            errors.push(err("flash.erase_latency_ns", "must be positive"));
        }
        if !(f.transfer_ns_per_byte.is_finite() && f.transfer_ns_per_byte >= 0.0) {
            errors.push(err("flash.transfer_ns_per_byte", "must be a finite number >= 0"));
        } else if f.transfer_ns_per_byte > MAX_TRANSFER_NS_PER_BYTE {
            errors.push(err(
                "flash.transfer_ns_per_byte",
                format!(
                    "{} ns per byte is implausible (at most {MAX_TRANSFER_NS_PER_BYTE}, a 1 MB/s channel)",
                    if f.transfer_ns_per_byte < 1e9 {
                        f.transfer_ns_per_byte.to_string()
                    } else {
                        format!("{:e}", f.transfer_ns_per_byte)
                    }
                ),
            ));
        }
        // Absurd times overflow the simulated clock or make a run last forever (one
        // time-series row per simulated second): no single step may take over a second.
        let single = [
            ("flash.erase_latency_ns", f.erase_latency_ns),
            ("flash.slc_read_latency_ns", f.slc_read_latency_ns),
            ("flash.slc_program_latency_ns", f.slc_program_latency_ns),
            ("flash.one_shot_program_latency_ns", f.one_shot_program_latency_ns),
            ("flash.command_overhead_ns", f.command_overhead_ns),
            ("flash.ecc_decode_ns", f.ecc_decode_ns),
            ("flash.retry_sense_latency_ns", f.retry_sense_latency_ns),
            ("host.request_overhead_ns", self.host.request_overhead_ns),
        ];
        if f.multi_plane_any_address && !f.multi_plane {
            errors.push(err("flash.multi_plane_any_address", "needs flash.multi_plane = true"));
        }
        if f.read_retries > MAX_READ_RETRIES {
            errors.push(err(
                "flash.read_retries",
                format!("{} retries per read is implausible (at most {MAX_READ_RETRIES})", f.read_retries),
            ));
        }
        let longest = |v: &[u64]| v.iter().copied().max().unwrap_or(0);
        let lists = [
            ("flash.read_latency_ns", longest(&f.read_latency_ns)),
            ("flash.program_latency_ns", longest(&f.program_latency_ns)),
        ];
        for (key, value) in lists.into_iter().chain(single).filter(|&(_, v)| v > MAX_STEP_NS) {
            errors.push(err(key, format!("{value} ns is implausible (at most {MAX_STEP_NS} ns, one second)")));
        }
        if self.uses_slc() {
            if f.slc_read_latency_ns == 0 {
                errors.push(err("flash.slc_read_latency_ns", "must be positive when SLC-mode blocks are used"));
            }
            if f.slc_program_latency_ns == 0 {
                errors.push(err("flash.slc_program_latency_ns", "must be positive when SLC-mode blocks are used"));
            }
        }
        if !(g.pages_per_block as usize).is_multiple_of(bits) {
            errors.push(err(
                "geometry.pages_per_block",
                format!("must be a multiple of the {bits} bits per cell (whole wordlines)"),
            ));
        }
        if f.layout == LayoutKind::Pairs && !(g.pages_per_block as usize).is_multiple_of(2 * bits) {
            errors
                .push(err("flash.layout", format!("\"pairs\" needs pages_per_block to be a multiple of {}", 2 * bits)));
        }
        if f.layout == LayoutKind::Custom {
            if f.custom_types.len() != g.pages_per_block as usize {
                errors.push(err("flash.custom_types", "needs one entry per page of a block"));
            }
            if f.custom_wordlines.len() != g.pages_per_block as usize {
                errors.push(err("flash.custom_wordlines", "needs one entry per page of a block"));
            }
            if f.custom_types.iter().any(|&t| t as usize >= bits) {
                errors.push(err("flash.custom_types", format!("page types must be below {bits}")));
            }
        }
        if f.program_scheme == ProgramScheme::OneShot {
            if f.layout != LayoutKind::Sequential {
                errors.push(err("flash.layout", "one-shot programming needs layout = \"sequential\""));
            }
            if f.program_delay_ns == 0 {
                errors.push(err("flash.program_delay_ns", "one-shot programming needs a positive program delay"));
            }
        }
        if f.slc_pages_per_block > g.pages_per_block {
            errors.push(err("flash.slc_pages_per_block", "cannot exceed geometry.pages_per_block"));
        }
        if f.partial_programs_max == 0 {
            errors.push(err("flash.partial_programs_max", "must be at least 1"));
        }
        let e = &self.energy;
        if e.read_nj.len() < bits {
            errors.push(err("energy.read_nj", format!("needs at least {bits} entries")));
        }
        if e.program_nj.len() < bits {
            errors.push(err("energy.program_nj", format!("needs at least {bits} entries")));
        }
        let t = &self.ftl;
        if !(0.0..0.95).contains(&t.over_provisioning) {
            errors.push(err("ftl.over_provisioning", "must be in [0, 0.95)"));
        }
        let mut order: Vec<char> = t.allocation_order.chars().collect();
        order.sort_unstable();
        if order != ['c', 'd', 'p', 'w'] {
            errors.push(err(
                "ftl.allocation_order",
                format!("\"{}\" is not a permutation of the letters c, w, d, p", t.allocation_order),
            ));
        }
        if !(0.0..1.0).contains(&t.gc_background_free_fraction) {
            errors.push(err("ftl.gc_background_free_fraction", "must be in [0, 1)"));
        }
        if !(0.0..1.0).contains(&t.gc_emergency_free_fraction) {
            errors.push(err("ftl.gc_emergency_free_fraction", "must be in [0, 1)"));
        }
        if t.gc_emergency_free_fraction > t.gc_background_free_fraction {
            errors.push(err("ftl.gc_emergency_free_fraction", "must not exceed ftl.gc_background_free_fraction"));
        }
        let mut seen = t.queue_priority.clone();
        seen.sort_unstable();
        if seen != [QueueKind::UserRead, QueueKind::UserWrite, QueueKind::Gc] {
            errors.push(err(
                "ftl.queue_priority",
                "must list each of \"user-read\", \"user-write\", \"gc\" exactly once",
            ));
        }
        // GC needs room: the spare blocks hidden by over-provisioning must exceed the free
        // blocks emergency GC keeps, or the drive fills with valid data and deadlocks. A
        // background threshold above the spare space is allowed: background GC then
        // cleans whenever a die is idle (SSDSim-style thresholds, as PA-SSD uses).
        let normal_blocks = g.blocks_per_plane.saturating_sub(t.slc_blocks_per_plane) as f64;
        let spare_blocks = normal_blocks * t.over_provisioning;
        let reserve = (normal_blocks * t.gc_emergency_free_fraction).ceil().max(2.0);
        if g.blocks_per_plane > 0 && spare_blocks < reserve + 2.0 {
            errors.push(err(
                "ftl.over_provisioning",
                format!(
                    "{spare_blocks:.1} spare blocks per plane cannot cover the {reserve:.0} free blocks \
                     emergency GC keeps (gc_emergency_free_fraction, at least 2) plus two write points; \
                     raise over_provisioning or blocks_per_plane, or lower the emergency threshold"
                ),
            ));
        }
        if self.uses_slc() && f.slc_pages_per_block == 0 {
            errors.push(err("flash.slc_pages_per_block", "SLC blocks need their page count"));
        }
        if t.slc_blocks_per_plane > 0 && t.slc_blocks_per_plane.saturating_add(2) >= g.blocks_per_plane {
            errors.push(err("ftl.slc_blocks_per_plane", "leaves too few normal blocks per plane"));
        }
        errors.extend(self.validate_hybrid());
        if t.partial_program_updates {
            if g.subpages_per_page < 2 || g.subpages_per_page > 8 {
                errors.push(err("geometry.subpages_per_page", "partial programming needs 2 to 8 subpages per page"));
            }
            if f.partial_programs_max < 2 {
                errors.push(err("flash.partial_programs_max", "partial programming needs NOP of at least 2"));
            }
            if t.slc_blocks_per_plane == 0 {
                errors.push(err("ftl.slc_blocks_per_plane", "partial programming works in SLC-mode blocks: set some"));
            }
            if f.program_scheme == ProgramScheme::OneShot {
                errors.push(err("ftl.partial_program_updates", "is not supported with one-shot programming"));
            }
        }
        if !(0.0..1.0).contains(&self.precondition.aged_invalid_fraction) {
            errors.push(err("precondition.aged_invalid_fraction", "must be in [0, 1)"));
        }
        if !(0.0..=1.0).contains(&self.precondition.used_fraction) {
            errors.push(err("precondition.used_fraction", "must be in [0, 1]"));
        }
        let pc = &self.precondition;
        if !(pc.working_set_fraction > 0.0 && pc.working_set_fraction <= 1.0) {
            errors.push(err("precondition.working_set_fraction", "must be in (0, 1]"));
        }
        if pc.steady_state {
            let window = crate::ftl::precondition::PTS_WINDOW as u32;
            if !(window..=1000).contains(&pc.steady_state_max_rounds) {
                errors.push(err(
                    "precondition.steady_state_max_rounds",
                    format!(
                        "must be in [{window}, 1000] (at least the SNIA PTS measurement window of {window} rounds)"
                    ),
                ));
            }
            if !(pc.steady_state_round_fraction > 0.0 && pc.steady_state_round_fraction <= 10.0) {
                errors.push(err("precondition.steady_state_round_fraction", "must be in (0, 10]"));
            }
            if pc.aged_invalid_fraction > 0.0 {
                errors.push(err(
                    "precondition.steady_state",
                    "cannot be combined with precondition.aged_invalid_fraction (two different models of a used \
                     drive: choose one)",
                ));
            }
        }
        let h = &self.host;
        if h.replay == ReplayMode::ClosedLoop && h.queue_depth == 0 {
            errors.push(err("host.queue_depth", "closed-loop replay needs a queue depth of at least 1"));
        }
        if !(h.speed_factor.is_finite() && h.speed_factor > 0.0) {
            errors.push(err("host.speed_factor", "must be a positive number"));
        }
        if h.replay == ReplayMode::Burst && h.burst_gap_ns == 0 {
            errors.push(err(
                "host.burst_gap_ns",
                "burst replay needs the gap threshold (the CLI sets it to the trace's mean inter-arrival time)",
            ));
        }
        if h.runs == 0 {
            errors.push(err("host.runs", "must be at least 1"));
        }
        if h.address_overflow == AddressOverflow::Scale && h.trace_span_bytes == 0 {
            // The CLI fills this in with a first pass over the trace; a library user must.
            errors.push(err("host.trace_span_bytes", "address_overflow = \"scale\" needs the trace's span"));
        }
        if self.pa.enabled() {
            if let Err(message) = self.pa.parse() {
                errors.push(err("pa.scheme", format!("\"{}\": {message}", self.pa.scheme)));
            }
            if bits < 2 {
                errors.push(err("pa.scheme", "page-type aware allocation needs MLC, TLC or QLC cells"));
            }
            if f.program_scheme == ProgramScheme::OneShot {
                errors.push(err("pa.scheme", "PA-SSD programs page by page; it cannot run with one-shot programming"));
            }
            if !matches!(f.layout, LayoutKind::Staircase | LayoutKind::Pairs) {
                errors.push(err("flash.layout", "PA-SSD's relaxed constraints need a staircase or pairs layout"));
            }
            if self.uses_slc() {
                errors.push(err("pa.scheme", "PA-SSD with SLC-mode blocks is not modelled"));
            }
        }
        let pw = &self.power;
        if pw.write_acknowledge == WriteAcknowledge::Buffer && pw.write_buffer_pages == 0 {
            errors.push(err(
                "power.write_buffer_pages",
                "write_acknowledge = \"buffer\" needs a buffer of at least 1 page",
            ));
        }
        if pw.off_ns > MAX_POWER_OFF_NS {
            errors.push(err("power.off_ns", format!("at most {MAX_POWER_OFF_NS} ns (one hour)")));
        }
        if page_ok && pw.oob_bytes > g.page_size_bytes {
            errors.push(err("power.oob_bytes", "cannot exceed geometry.page_size_bytes"));
        }
        if pw.block_summary {
            if self.pa.enabled() {
                errors.push(err("power.block_summary", "is not modelled with PA-SSD's relaxed program order"));
            }
            if g.pages_per_block <= self.summary_pages_per_block() || (self.uses_slc() && f.slc_pages_per_block < 2) {
                errors.push(err("power.block_summary", "blocks need room for data besides their summary page"));
            }
        }
        let wps = self.ftl.user_write_points;
        if !(1..=MAX_USER_WRITE_POINTS).contains(&wps) {
            errors.push(err("ftl.user_write_points", format!("must be 1 to {MAX_USER_WRITE_POINTS}")));
        } else if wps > 1 {
            if g.blocks_per_plane < 4 * wps + 8 {
                errors.push(err(
                    "ftl.user_write_points",
                    format!(
                        "{wps} open user blocks per plane leave GC too few closed blocks: geometry.blocks_per_plane \
                         must be at least {}",
                        4 * wps + 8
                    ),
                ));
            }
            if self.pa.enabled() {
                errors.push(err("ftl.user_write_points", "PA-SSD keeps its own open blocks: use 1"));
            }
            if f.program_scheme == ProgramScheme::OneShot {
                errors.push(err(
                    "ftl.user_write_points",
                    "one-shot page sets are not modelled over several write points: use 1",
                ));
            }
        }
        if self.ftl.gc_through_user_write_points && self.pa.enabled() {
            errors.push(err("ftl.gc_through_user_write_points", "PA-SSD places GC writes itself"));
        }
        if self.ftl.gc_destination != GcDestination::SamePlane {
            if !pw.loss_at_ns.is_empty() {
                errors.push(err(
                    "ftl.gc_destination",
                    "power losses are not modelled with GC moves to other planes (pages in flight between dies)",
                ));
            }
            if pw.block_summary {
                errors
                    .push(err("ftl.gc_destination", "block summaries are not modelled with GC moves to other planes"));
            }
            if self.pa.enabled() || self.uses_slc() || self.hybrid.allocation != HybridAllocation::Pf {
                errors.push(err(
                    "ftl.gc_destination",
                    "applies to the conventional FTL; the configured design places GC data itself",
                ));
            }
        }
        if pw.loss_at_ns.windows(2).any(|w| w[0] >= w[1]) {
            errors.push(err("power.loss_at_ns", "times must be strictly increasing"));
        }
        if let Some(w) = &self.workload {
            if let Err(problems) = w.validate() {
                errors.extend(problems.into_iter().map(|p| err(&format!("workload.{}", p.field), p.message)));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// Parses a TOML configuration. `origin` names the file in error messages. Unknown keys
/// get a did-you-mean suggestion drawn from the keys valid at that place.
pub fn parse_config(text: &str, origin: &str) -> Result<Config, ConfigError> {
    toml::from_str::<Config>(text).map_err(|e| toml_error(e, text, origin))
}

/// Applies `key=value` overrides (TOML values; bare words are taken as strings) on top of
/// a base config given as TOML text.
pub fn apply_overrides(base: &Config, overrides: &[String]) -> Result<Config, ConfigError> {
    let mut value = toml::Value::try_from(base).map_err(|e| err("", format!("cannot re-serialise config: {e}")))?;
    for item in overrides {
        let (key, raw) = item.split_once('=').ok_or_else(|| err(item, "an override must look like key.path=value"))?;
        let key = key.trim();
        let raw = raw.trim();
        let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        let mut cursor = &mut value;
        let parts: Vec<&str> = key.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let table = cursor
                .as_table_mut()
                .ok_or_else(|| err(key, format!("'{}' is not a section", parts[..i].join("."))))?;
            if i + 1 == parts.len() {
                if !table.contains_key(*part) {
                    let keys: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
                    return Err(err(key, unknown_key_message(part, &keys)));
                }
                table.insert(part.to_string(), parsed.clone());
                break;
            }
            if !table.contains_key(*part) {
                let keys: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
                return Err(err(key, unknown_key_message(part, &keys)));
            }
            cursor = table.get_mut(*part).expect("checked above");
        }
    }
    let text = toml::to_string(&value).map_err(|e| err("", e.to_string()))?;
    // A wrong type or enum value: name the key, not a line of the re-serialised text.
    toml::from_str::<Config>(&text).map_err(|e| {
        let key = error_offset(&e, &text).and_then(|at| key_at(&text, at)).unwrap_or_default();
        err(&key, e.message())
    })
}

fn unknown_key_message(key: &str, valid: &[&str]) -> String {
    match did_you_mean(key, valid) {
        Some(s) => format!("unknown key '{key}' (did you mean '{s}'?)"),
        None => format!("unknown key '{key}'; valid keys here: {}", valid.join(", ")),
    }
}

/// The closest valid key by edit distance, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|v| (edit_distance(key, v), *v))
        .filter(|(d, v)| *d <= (v.len().max(key.len()) / 3).max(2))
        .min()
        .map(|(_, v)| v)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn toml_error(e: toml::de::Error, text: &str, origin: &str) -> ConfigError {
    let message = e.message().to_string();
    let offset = error_offset(&e, text);
    let location = offset.map(|at| {
        let line = text[..at].matches('\n').count() + 1;
        format!("{origin}:{line}")
    });
    // serde's unknown-field message lists the expected names; turn it into a suggestion.
    let mut friendly = message.clone();
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((field, tail)) = rest.split_once('`') {
            let expected: Vec<&str> = tail.split('`').enumerate().filter(|(i, _)| i % 2 == 1).map(|(_, s)| s).collect();
            friendly = unknown_key_message(field, &expected);
        }
    } else if let Some(key) = offset.and_then(|at| key_at(text, at)) {
        // Type and enum errors do not name the key: name it from the line they point at.
        friendly = format!("{key}: {message}");
    }
    ConfigError { key: location.unwrap_or_else(|| origin.to_string()), message: friendly }
}

/// The 1-based line of `text` (a config file) that sets the dotted `key`
/// (`"geometry.channels"`, or `"seed"` at the top level), if the file sets it: lets a
/// caller add the line to a [`Config::validate`] error, whose key may also come from a
/// default or an override.
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    let (section, name) = key.rsplit_once('.').unwrap_or(("", key));
    let mut current = "";
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            current = header.split(']').next().unwrap_or("").trim();
        } else if current == section {
            if let Some((k, _)) = line.split_once('=') {
                if k.trim().trim_matches('"') == name {
                    return Some(i + 1);
                }
            }
        }
    }
    None
}

/// Byte offset of a parse error in `text`, on a char boundary (slicing must not panic).
fn error_offset(e: &toml::de::Error, text: &str) -> Option<usize> {
    e.span().map(|span| {
        let mut at = span.start.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    })
}

/// The dotted key (`section.key`) assigned on the line holding byte `at`, if that line is
/// a plain `key = value` line: a best-effort reading for error messages.
fn key_at(text: &str, at: usize) -> Option<String> {
    let mut start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let mut line = &text[start..end];
    // Inside a multi-line array or inline table: the key is on the line that opens it.
    while !line.contains('=') && start > 0 && !line.trim_start().starts_with('[') {
        let prev = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        line = &text[prev..start - 1];
        start = prev;
        if line.split_once('=').is_some_and(|(_, v)| !v.trim_start().starts_with(['[', '{'])) {
            return None;
        }
    }
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let plain = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if !plain(key) {
        return None;
    }
    let section = text[..start].lines().rev().map(str::trim).find(|l| l.starts_with('['));
    let section = section.and_then(|l| l.trim_start_matches('[').split(']').next()).map(str::trim).filter(|s| plain(s));
    Some(match section {
        Some(section) => format!("{section}.{key}"),
        None => key.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid() {
        Config::default().validate().unwrap();
    }

    #[test]
    fn unknown_key_gets_suggestion() {
        let e = parse_config("[geometry]\nchanels = 4\n", "x.toml").unwrap_err();
        assert_eq!(e.key, "x.toml:2");
        assert!(e.message.contains("did you mean 'channels'"), "{}", e.message);
    }

    #[test]
    fn zero_geometry_is_rejected_with_key() {
        let mut c = Config::default();
        c.geometry.planes_per_die = 0;
        let errors = c.validate().unwrap_err();
        assert!(errors.iter().any(|e| e.key == "geometry.planes_per_die"));
    }

    #[test]
    fn latency_count_must_match_cell_type() {
        let mut c = Config::default();
        c.flash.cell = CellType::Mlc;
        let errors = c.validate().unwrap_err();
        assert!(errors.iter().any(|e| e.key == "flash.read_latency_ns"));
    }

    #[test]
    fn too_little_over_provisioning_is_rejected() {
        let mut c = Config::default();
        c.ftl.over_provisioning = 0.01;
        let errors = c.validate().unwrap_err();
        assert!(errors.iter().any(|e| e.key == "ftl.over_provisioning"), "{errors:?}");
    }

    #[test]
    fn key_line_finds_keys_in_their_section() {
        let text = "seed = 3\n\n[geometry]\nchannels = 0\n[ftl] # comment\n\"gc_victim\" = \"fifo\"\n";
        assert_eq!(key_line(text, "seed"), Some(1));
        assert_eq!(key_line(text, "geometry.channels"), Some(4));
        assert_eq!(key_line(text, "ftl.gc_victim"), Some(6));
        assert_eq!(key_line(text, "ftl.channels"), None);
        assert_eq!(key_line(text, "geometry.planes_per_die"), None);
    }

    #[test]
    fn type_errors_name_the_key() {
        let e = parse_config("[geometry]\nchannels = \"8\"\n", "t.toml").unwrap_err();
        assert_eq!(e.to_string(), "t.toml:2: geometry.channels: invalid type: string \"8\", expected u32");
        let e = apply_overrides(&Config::default(), &["flash.cell=plc".into()]).unwrap_err();
        assert!(e.to_string().starts_with("flash.cell: unknown variant `plc`"), "{e}");
    }

    #[test]
    fn absurd_values_are_rejected_without_overflow() {
        let mut c = Config::default();
        c.geometry.channels = u32::MAX;
        c.geometry.chips_per_channel = u32::MAX;
        c.geometry.blocks_per_plane = u32::MAX;
        c.geometry.pages_per_block = u32::MAX;
        c.ftl.slc_blocks_per_plane = u32::MAX;
        c.flash.erase_latency_ns = u64::MAX;
        c.flash.transfer_ns_per_byte = 1e300;
        let errors = c.validate().unwrap_err();
        for key in ["geometry", "flash.erase_latency_ns", "flash.transfer_ns_per_byte", "ftl.slc_blocks_per_plane"] {
            assert!(errors.iter().any(|e| e.key == key), "{key}: {errors:?}");
        }
    }

    #[test]
    fn overrides_apply_and_reject_unknown_keys() {
        let c =
            apply_overrides(&Config::default(), &["ftl.gc_victim=fifo".into(), "geometry.channels=4".into()]).unwrap();
        assert_eq!(c.ftl.gc_victim, VictimPolicy::Fifo);
        assert_eq!(c.geometry.channels, 4);
        let e = apply_overrides(&Config::default(), &["ftl.gc_victm=fifo".into()]).unwrap_err();
        assert!(e.message.contains("did you mean 'gc_victim'"), "{}", e.message);
    }
}
