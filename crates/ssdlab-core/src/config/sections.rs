//! The configuration's sections for the device (geometry, flash, energy), the FTL,
//! preconditioning, the host, output and power.

use super::controller::DieScheduling;
use serde::{Deserialize, Serialize};

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

impl Geometry {
    /// Physical pages of the drive, in u128 and saturating (six u32 factors can overflow
    /// u64); callers that need less saturate to their type.
    pub fn physical_pages(&self) -> u128 {
        [self.chips_per_channel, self.dies_per_chip, self.planes_per_die, self.blocks_per_plane, self.pages_per_block]
            .iter()
            .fold(self.channels as u128, |n, &k| n.saturating_mul(k as u128))
    }

    /// Planes of the drive, saturating: validation runs on any parsed numbers, so four
    /// u32 fields near their limit must not overflow before the range checks reject them.
    pub fn planes_saturating(&self) -> u64 {
        [self.chips_per_channel, self.dies_per_chip, self.planes_per_die]
            .iter()
            .fold(self.channels as u64, |n, &k| n.saturating_mul(k as u64))
    }
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
    /// Multi-plane commands need the same block in every plane as well as the same page
    /// (false: only the page must agree, as MQSim and many chips allow).
    pub multi_plane_same_block: bool,
    /// Reads and programs move only the 512-byte sectors the host asked for over the
    /// channel, not the whole page (MQSim's transactions carry their sectors).
    pub transfer_requested_bytes: bool,
    /// Soft-sensing retries every page read takes. A fixed count, the simplest error
    /// model, for sensitivity studies; each retry holds the die (and the channel) for a
    /// failed decode, a sense and a transfer out, as a real retry does.
    pub read_retries: u32,
    /// Sense time of one retry; 0 = the page's own read latency (DIR §2.4: a soft sense
    /// of 24 µs).
    pub retry_sense_latency_ns: u64,
    /// Whether the dies of a chip overlap their commands (`"independent"`) or a chip
    /// runs one command at a time (`"chip-serial"`, as MQSim schedules).
    pub die_scheduling: DieScheduling,
    /// A die starts a command only when its channel carries no transfer and has none
    /// waiting, and a channel that goes idle is offered to its chips in turn (MQSim's
    /// controller: a command's cycles need the bus, and data waiting in the chips leaves
    /// before new commands are issued). Left out of the serialised config while false.
    #[serde(skip_serializing_if = "is_false")]
    pub issue_on_idle_channel: bool,
}

fn is_false(v: &bool) -> bool {
    !*v
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
            multi_plane_same_block: true,
            transfer_requested_bytes: false,
            read_retries: 0,
            retry_sense_latency_ns: 0,
            die_scheduling: DieScheduling::Independent,
            issue_on_idle_channel: false,
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
    /// Mongo's placement (thesis §4.2.2): round-robin in `order`, skipping planes whose
    /// die is busy and planes holding more valid data than the emptiest plane by over a
    /// block's worth (or 1% of a plane, if more), so that valid data stays even across
    /// chips (§7.3.3). Of the planes
    /// within that, the first idle one in turn; when all are busy, the least busy (ties
    /// in turn).
    Balanced,
    /// SSDSim's dynamic allocation (`services_2_write`, `dynamic_advanced_process`): a
    /// user write is bound to no plane while it waits; a die on an idle channel able to
    /// start a command with no write queued of its own takes the oldest waiting writes for itself and the other
    /// idle dies of its chip, one per plane in turn (dies first, then planes), up to the
    /// chip's planes (engine/at_service.rs).
    AtService,
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

/// What a plane's GC thresholds count as its free space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GcFreeSpace {
    /// Free (erased, unopened) blocks.
    Blocks,
    /// Unprogrammed pages of the plane's normal blocks: the free blocks' and those left in
    /// its open blocks (SSDSim's `free_page`). Under PA-SSD's relaxed order an open block
    /// whose LSB pages are used up keeps its CSB/MSB pages, and they still count as free.
    Pages,
}

/// What a write that covers only part of a page does with the rest of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartialPageWrites {
    /// Read the old page first (if the page holds data), then program the merged page.
    ReadModifyWrite,
    /// Program the page without reading the old data (as if the host wrote whole pages).
    Overwrite,
    /// SSDSim's rule: read the old page first only when it holds data outside the part
    /// written (tracked per logical page in eighths of a page; a page placed by
    /// preconditioning holds all of it), then program the merged page.
    ReadUncovered,
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

/// Where GC of the conventional SLC cache moves the valid pages of an SLC-mode block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlcGcDestination {
    /// Out of the cache, into normal blocks (the GC write point).
    OutOfCache,
    /// Into the victim's own SLC level while its open block has room (or a free SLC block
    /// beyond the last can be opened), else out of the cache.
    SameLevel,
    /// One level up (data that survived GC in level l goes to l + 1), the top level into
    /// itself, with the same fallback out of the cache.
    NextLevel,
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

/// How the mapping table locates a logical page's data (issue 12 §2). The map is kept at
/// the granularity of a *unit*: the whole page, half a page, or a subpage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mapping {
    /// One entry per logical page, one physical page per entry.
    Page,
    /// Each logical page is two halves, each placed on its own. A multi-plane user program
    /// of two pages interleaves two logical pages over them, each page holding a half of
    /// each (DIR §3.1: halves of a pair on pages of different types); a page programmed
    /// alone holds both halves of one logical page. A physical page is valid while either
    /// half is (a reference count of up to 2).
    HalfPages,
    /// Subpage granularity (`geometry.subpages_per_page` units; MGA, IPU §4): a write of
    /// part of a page places only the subpages it covers, with no read-modify-write, and
    /// small writes queued for the same plane are packed into one page. The report counts
    /// a two-level table: a page entry per logical page plus a subpage entry per subpage of
    /// every logical page not stored whole in one page.
    Subpages,
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
    /// What the thresholds count: free blocks, or free pages (SSDSim's rule).
    pub gc_free_space: GcFreeSpace,
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
    /// Mapping granularity: whole pages, half pages or subpages.
    pub mapping: Mapping,
    /// SLC write streams (levels) per plane; user writes take level 0.
    pub slc_levels: u32,
    /// Where GC of SLC-mode blocks moves valid pages (the conventional SLC cache).
    pub slc_gc_destination: SlcGcDestination,
    /// GC of the SLC-mode cache starts when a plane's free SLC space (free SLC blocks and
    /// the room left in its open SLC blocks) falls below this fraction of its SLC pages
    /// (IPU T2 "GC threshold 5%"); 0 = when one free SLC block is left.
    pub slc_gc_free_fraction: f64,
    /// Super-pages (thesis §5.1, Gordon): the physical pages at one address on this many
    /// channels (horizontal striping) ...
    pub super_page_channels: u32,
    /// ... times this many dies of each of those channels (vertical striping) form one
    /// super-page, the unit of mapping, programs and reads; their blocks form super-blocks.
    pub super_page_dies: u32,
    /// Read bypassing (thesis §5.3): a read joins a read of the same logical page in
    /// flight, and the last page read is kept in a one-page buffer.
    pub read_bypass: bool,
    /// Write combining (thesis §5.3): a write joins a queued write of the same logical page.
    pub write_combining: bool,
    /// How the simulator stores its page table (not a model parameter: results are the
    /// same either way; kept out of config files and the config hash). Set by
    /// `SSDLAB_PAGE_TABLE` in the CLI and by tests.
    #[serde(skip)]
    pub page_table: PageTable,
    /// log2 of the preconditioning fill's permutation window; 0 = 16. Tests shrink it so
    /// the sparse table's fill rule covers small drives (it changes results).
    #[serde(skip)]
    pub fill_window_log2: u8,
}

/// The page table's representation (`ftl/sparse.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PageTable {
    /// Sparse on drives of `AUTO_SPARSE_PAGES` physical pages and more, where it applies.
    #[default]
    Auto,
    /// One map and one reverse-map entry per page (8 bytes per physical page).
    Dense,
    /// Per-page entries only where the fill rule does not hold, whatever the drive size.
    Sparse,
}

impl std::str::FromStr for PageTable {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(PageTable::Auto),
            "dense" => Ok(PageTable::Dense),
            "sparse" => Ok(PageTable::Sparse),
            _ => Err(format!("'{s}' is not one of auto, dense, sparse")),
        }
    }
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
            gc_free_space: GcFreeSpace::Blocks,
            queue_priority: vec![QueueKind::UserRead, QueueKind::UserWrite, QueueKind::Gc],
            mapping_entry_bytes: 4,
            slc_blocks_per_plane: 0,
            partial_page_writes: PartialPageWrites::ReadModifyWrite,
            partial_program_updates: false,
            gc_destination: GcDestination::SamePlane,
            user_write_points: 1,
            write_point_choice: WritePointChoice::RoundRobin,
            gc_through_user_write_points: false,
            mapping: Mapping::Page,
            slc_levels: 1,
            slc_gc_destination: SlcGcDestination::OutOfCache,
            slc_gc_free_fraction: 0.0,
            super_page_channels: 1,
            super_page_dies: 1,
            read_bypass: false,
            write_combining: false,
            page_table: PageTable::Auto,
            fill_window_log2: 0,
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
    /// Program/erase cycles every block has already seen (the mean, with `pe_spread`).
    pub pe_cycles: u32,
    /// Each block's preconditioned P/E count is `pe_cycles × (1 + u)`, u uniform in
    /// [−spread, spread], drawn from the `errors` stream (0 = every block the same).
    pub pe_spread: f64,
    /// Age of the data on the drive when the run starts (retention time of every page
    /// programmed before the run), for the error model (`[reliability]`).
    pub retention_age_days: f64,
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
    /// Pages written per steady-state round, as a fraction of the logical capacity.
    pub steady_state_round_fraction: f64,
    /// What the steady-state rounds write: fresh requests from a generator's
    /// distribution, the workload's own write stream, or requests drawn from it.
    pub steady_state_writes: SteadyStateWrites,
    /// Rapid warm-up (thesis §4.2.2): after the fill, every user write point of every
    /// plane starts on a random page of its block (drawn uniformly from the pages it has
    /// left; the pages passed over hold invalid data), so that write points are not all
    /// at the same page type when the run starts.
    pub write_points_random_start: bool,
}

/// What steady-state preconditioning writes (`precondition.steady_state_writes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SteadyStateWrites {
    /// Synthetic and fio workloads: fresh requests from the same generator on its own
    /// seeded stream (`distribution`); traces and in-memory workloads: their own write
    /// stream replayed (`replay`).
    #[default]
    Auto,
    /// The workload's own writes and trims, in order, replayed as often as needed.
    Replay,
    /// Requests drawn uniformly, with replacement, from the workload's writes and trims
    /// (its address and size histogram), on the `steady-state` stream.
    Histogram,
}

impl Default for Precondition {
    fn default() -> Self {
        Precondition {
            used_fraction: 0.0,
            fill_invalid_to_gc_threshold: true,
            pe_cycles: 0,
            pe_spread: 0.0,
            retention_age_days: 0.0,
            aged_invalid_fraction: 0.0,
            slc_filled: false,
            working_set_fraction: 1.0,
            steady_state: false,
            steady_state_max_rounds: 25,
            steady_state_round_fraction: 0.5,
            steady_state_writes: SteadyStateWrites::Auto,
            write_points_random_start: false,
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
    /// The unit of the trace's time column (`ps`, `ns`, `us`, `ms`, `s`; empty = the
    /// format's own). `--time-unit` overrides it.
    pub time_unit: String,
    /// The single workload submits no request after this simulated time, ns (0 = none;
    /// MQSim's `Stop_Time`). `[[flows]]` have their own (`flows[K].stop_ns`).
    #[serde(skip_serializing_if = "super::flows::is_zero")]
    pub stop_ns: u64,
    /// With `[[flows]]`: whether each flow ends with its own workload (`"each"`), or
    /// every flow stops submitting once the first has submitted its last request
    /// (`"first"`: the flows contend for the whole run).
    #[serde(skip_serializing_if = "FlowsEnd::is_each")]
    pub flows_end: FlowsEnd,
    /// With `[[flows]]`: the device holds at most this many commands of one flow (its
    /// submission queue) at a time; the flow's further requests wait in the queue, their
    /// response time counting from their arrival there (NVMe command fetching, MQSim's
    /// `Queue_Fetch_Size`). 0 = no limit.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub queue_fetch_size: u32,
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// When the flows of a multi-flow run end (`host.flows_end`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowsEnd {
    #[default]
    Each,
    First,
}

impl FlowsEnd {
    fn is_each(&self) -> bool {
        *self == FlowsEnd::Each
    }
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
            time_unit: String::new(),
            stop_ns: 0,
            flows_end: FlowsEnd::Each,
            queue_fetch_size: 0,
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

/// Read bypassing and write combining work on whole logical pages, and combining joins
/// writes the host is not told about before their program.
pub(crate) fn validate_bypass(c: &super::Config) -> Vec<super::ConfigError> {
    let mut errors = Vec::new();
    let mapping = c.resolved().ftl.mapping;
    for (on, key) in [(c.ftl.read_bypass, "ftl.read_bypass"), (c.ftl.write_combining, "ftl.write_combining")] {
        if on && mapping != Mapping::Page {
            errors.push(super::err(key, "works on a page map: use ftl.mapping = \"page\""));
        }
    }
    if c.ftl.write_combining && (c.cache.enabled() || c.power.write_acknowledge != WriteAcknowledge::Program) {
        errors.push(super::err(
            "ftl.write_combining",
            "joins writes not yet acknowledged: needs power.write_acknowledge = \"program\" and no [cache] (a cache coalesces writes itself)",
        ));
    }
    errors
}
