//! The flash translation layer's state: page-level mapping table and reverse map, the
//! block table (valid counts, write pointers, erase counts, modes), per-plane free pools
//! and active (write-point) blocks, garbage-collection victim choice, preconditioning
//! and the invariant checker. Timing is not here: the engine decides *when*, the FTL
//! decides *where*.

pub mod allocation;
pub mod companion;
pub mod dense;
mod fill_rewrites;
mod fill_rule;
pub mod gc;
mod gc_keys;
mod invariants;
pub mod mapping;
pub mod precondition;
pub mod recovery;
pub mod relaxed;
mod skip;
pub mod sparse;
pub mod steady;
mod streams;
pub mod verify;
pub mod wear;
pub mod zoned;

use crate::config::{Config, Mapping, VictimPolicy};
use crate::flash::{Address, PageLayout, Ppn, NO_PAGE};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::collections::VecDeque;

/// Which blocks a user write is meant for: a write stream chosen by the design that
/// places it (SLC-mode blocks, normal blocks, or whichever the plane has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// No preference: SLC-mode blocks while the plane has any, else normal ones.
    #[default]
    Auto,
    /// SLC-mode blocks (normal ones if the plane's SLC room is gone by the time it runs).
    Slc,
    /// Normal (full-density, e.g. TLC) blocks only.
    Tlc,
    /// A translation page of the cached mapping table (`[cmt]`): its own write point.
    Mapping,
    /// User write point `k` of the plane (`ftl.user_write_points`): a design's own stream
    /// (per hot/cold class, per priority). The room check and multi-plane pairing look at
    /// that write point, so the write waits for room there (GC frees blocks) rather than
    /// landing in another write point's block.
    UserPoint(u8),
    /// SLC level `l`'s write point of the plane (`ftl.slc_levels`): a design's SLC-mode
    /// stream (an FDP handle in SLC mode). As `UserPoint`, the write waits for room there.
    SlcLevel(u8),
    /// A zone's own block (`designs/zns`): the zoned namespace accepted the write only
    /// with room in the zone, so it never waits for the plane's free blocks (which a
    /// conventional area beside the zones may have used up) and is never moved to
    /// another plane.
    Zone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    /// Erased, in its plane's free pool.
    Free,
    /// A write point: pages are being programmed in order.
    Open,
    /// Every page programmed.
    Closed,
}

#[derive(Clone, Debug)]
pub struct BlockInfo {
    /// Pages holding at least one valid unit (with a page map: valid pages).
    pub valid_pages: u32,
    /// Valid mapping units in the block (= `valid_pages` with a page map): what GC gains
    /// by compacting partly valid pages of a unit map.
    pub valid_units: u32,
    /// Pages programmed (or skipped and lost) so far. Under the strict program order
    /// they are exactly the pages below this ID.
    pub write_ptr: u32,
    /// Pages programmed of each type. Pages of one type are always programmed in ID
    /// order, so page p is programmed iff its rank among its type is below this count
    /// (this also holds under PA's relaxed constraints).
    pub programmed_by_type: [u16; 4],
    pub erase_count: u32,
    pub state: BlockState,
    /// Used in SLC mode: fewer pages, SLC latencies, all page type 0.
    pub slc: bool,
    /// The SLC level (write stream) that last opened it (`ftl.slc_levels`; 0 otherwise).
    pub slc_level: u8,
    /// The write stream that last opened it (`Stream::index`): with `recover_own_streams`
    /// recovery makes a partly written block that stream's write point again.
    pub stream: u16,
    /// Order in which blocks were closed (FIFO victim policy).
    pub closed_seq: u64,
    /// Time of the last program into this block (cost-benefit age).
    pub last_write_ns: u64,
    /// How long before the run this block was last written, for blocks preconditioning
    /// wrote (their modelled history, `steady.rs`); 0 once the run programs or erases
    /// it. A block's age is `now − last_write_ns + age_at_start_ns`.
    pub age_at_start_ns: u64,
}

/// Which write point of a plane a page is taken from: an index into the plane's active
/// blocks. 0, 1 and 2 are the user, GC and SLC (level 0) write points; user write points
/// beyond the first (`ftl.user_write_points`) follow from 3, then SLC levels beyond the
/// first (`ftl.slc_levels`, `Ftl::slc_stream`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream(pub u16);

impl Stream {
    pub const USER: Stream = Stream(0);
    pub const GC: Stream = Stream(1);
    pub const SLC: Stream = Stream(2);

    /// User write point `k` (0 = `USER`).
    pub fn user(k: u32) -> Stream {
        if k == 0 {
            Stream::USER
        } else {
            Stream(2 + k as u16)
        }
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// SLC level `level` (0 = `SLC`), after a plane's `user_write_points` user streams.
    pub fn slc_level(level: u32, user_write_points: u32) -> Stream {
        if level == 0 {
            Stream::SLC
        } else {
            Stream((1 + user_write_points + level) as u16)
        }
    }

    /// The SLC level this stream writes, or `None` for a stream of normal blocks.
    pub fn level_of(self, user_write_points: u32, slc_levels: u32) -> Option<u32> {
        match self {
            Stream::SLC => Some(0),
            Stream(i) if i as u32 > 1 + user_write_points && (i as u32) <= user_write_points + slc_levels => {
                Some(i as u32 - 1 - user_write_points)
            }
            _ => None,
        }
    }

    /// The translation pages' own write point (`[cmt]`), after every SLC level.
    pub fn mapping(user_write_points: u32, slc_levels: u32) -> Stream {
        Stream((1 + user_write_points + slc_levels) as u16)
    }
}

#[derive(Clone, Debug)]
pub struct PlaneState {
    pub free: VecDeque<u32>,
    pub free_slc: VecDeque<u32>,
    /// Active block per stream (NO_PAGE = none), indexed by `Stream::index`.
    pub active: Vec<u32>,
    /// Round-robin user write points: the next one to take a page.
    pub wp_cursor: u32,
    /// Block being cleaned (NO_PAGE = none) and the next page to examine in it.
    pub victim: u32,
    pub victim_cursor: u32,
    /// One-shot GC: a further victim whose valid pages already fill a page set the
    /// current victim could not fill (NO_PAGE = none), and its cursor. It becomes the
    /// victim when the current one is erased.
    pub next_victim: u32,
    pub next_cursor: u32,
    /// One-victim-per-block background GC: victims still owed for blocks opened at or
    /// below the background threshold (with `gc_free_space = "pages"`: for every block's
    /// worth of pages programmed there, counted in `owed_pages`).
    pub gc_owed: u32,
    pub owed_pages: u32,
    /// Unprogrammed pages of the plane's normal blocks that are free or open; kept only
    /// when GC counts pages (`ftl.gc_free_space = "pages"`), 0 otherwise.
    pub free_pages: u64,
}

/// What a plane needs from garbage collection right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GcNeed {
    None,
    /// Clean when the die is idle.
    Background,
    /// Clean before serving more user writes.
    Emergency,
}

/// One cleanup operation (thesis §4.2.2): a single flash command chosen with the
/// freshest state just before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcStep {
    /// Move the valid page `ppn` (holding `lpn`) out of the victim.
    Move { ppn: Ppn, lpn: u32 },
    /// Erase a block without valid pages.
    Erase { block: u32 },
}

/// A physical page handed out by the allocator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocated {
    pub ppn: Ppn,
    pub page_type: u8,
    pub slc: bool,
}

pub struct Ftl {
    pub addr: Address,
    pub layout: PageLayout,
    pub slc_layout: PageLayout,
    /// Logical unit → physical unit (NO_PAGE = unmapped); see `mapping.rs`. With the
    /// default page map a unit is a page: logical page → physical page.
    /// Dense only (empty with `sparse`: use `map_at`/`set_map`, `sparse.rs`).
    pub dense_map: dense::DenseTable,
    /// Physical unit → logical unit (NO_PAGE = free or invalid); dense only.
    pub dense_reverse: dense::DenseTable,
    pub sparse: Option<Box<sparse::Sparse>>,
    /// The map's granularity (`ftl.mapping`) and log2 of its units per page.
    pub mapping: Mapping,
    pub unit_shift: u32,
    pub blocks: Vec<BlockInfo>,
    /// Valid mapping units per plane (the sum of its blocks' `valid_units`): what
    /// balanced placement keeps even (thesis §4.2.2).
    pub plane_valid_units: Vec<u64>,
    pub planes: Vec<PlaneState>,
    pub logical_pages: u32,
    /// Translation pages of a cached mapping table: logical pages `logical_pages..
    /// logical_pages + translation_pages` (0 without `[cmt]`).
    pub translation_pages: u32,
    /// Blocks a zoned namespace owns (`zoned.rs`; empty on a block drive).
    pub zone_owned: Vec<bool>,
    /// SLC-mode blocks of each plane (its first blocks; all of them for a plane of a
    /// die-, chip- or channel-level hybrid layout).
    pub slc_blocks: Vec<u32>,
    /// Whether any plane has SLC-mode blocks.
    pub has_slc: bool,
    /// Planes migrating SLC data under a BG-DM or QPC-DM episode (set by the engine).
    pub slc_migrating: Vec<bool>,
    /// SLC blocks are cleaned as ordinary background GC once a plane's SLC pool is
    /// exhausted (`hybrid.migration = "gc"`); otherwise only while `slc_migrating`.
    pub slc_gc_auto: bool,
    /// `ftl.slc_gc_free_fraction` (see `slc_wants_gc`).
    pub slc_gc_free_fraction: f64,
    /// Cleaning the SLC cache below its threshold is emergency GC, ahead of user work (IPU
    /// Algorithm 1 cleans as part of the write that crossed the threshold), and goes before
    /// the normal pool's background GC.
    pub slc_gc_urgent: bool,
    /// Normal blocks of a plane that has any (GC thresholds are fractions of it).
    pub normal_blocks_per_plane: u32,
    pub background_free_blocks: u32,
    pub emergency_free_blocks: u32,
    /// `ftl.gc_free_space = "pages"`: the thresholds above, times the pages of a block.
    pub gc_counts_pages: bool,
    pub victim_policy: VictimPolicy,
    pub background_gc: crate::config::BackgroundGc,
    pub bits_per_cell: usize,
    /// User write points per plane (`ftl.user_write_points`), how the next is chosen, and
    /// whether GC writes through them.
    pub user_write_points: u32,
    /// SLC write streams (levels) per plane (`ftl.slc_levels`).
    pub slc_levels: u32,
    pub write_point_choice: crate::config::WritePointChoice,
    pub gc_through_user: bool,
    /// Pages GC programs at once into a normal block: a wordline's page set for one-shot
    /// flash, else 1.
    pub gc_page_set: u32,
    closed_counter: u64,
    victim_rng: Pcg64Mcg,
    /// Partial programming (NOP > 1, subpages > 1, `ftl.partial_program_updates`): per
    /// physical page, subpages programmed so far and programs issued. Empty when off.
    pub subpages_programmed: Vec<u8>,
    pub page_programs: Vec<u8>,
    pub subpages_per_page: u32,
    pub partial_programs_max: u32,
    /// Rank of each page among the pages of its type (see `is_programmed`).
    pub ranks: Vec<u32>,
    /// Program sequence number of every physical page (0 = not programmed), kept only
    /// when invariant checking asks for it (`track_program_order`).
    pub program_seq: Vec<u64>,
    program_counter: u64,
    /// Version-tagged data for `--verify`; `None` when off.
    pub versions: Option<verify::Versions>,
    /// Reliability state of the error model (`wear.rs`); `None` when off.
    pub wear: Option<Box<wear::WearState>>,
    /// GC of a half-valid page of an interleaved pair recovers the valid logical page
    /// whole from both pages (DIR §3.2.4) instead of packing half pages.
    pub deinterleave: bool,
    /// Compacting GC of a unit map fills a destination page with the valid units of
    /// several victim pages (MGA); off, each page's valid units move alone, so a logical
    /// page never shares a page with another (the IPU Baseline's and IPU's page map).
    pub compact_across_pages: bool,
    /// Greedy GC's per-block keys (`gc_keys.rs`; empty unless greedy cleans normal blocks
    /// one at a time) and the `compact_across_pages` they were built with.
    gc_keys: Vec<u64>,
    gc_keys_compact: bool,
    /// PA-SSD relaxed program constraints with per-plane open-block lists; `None` for
    /// the strict order.
    pub relaxed: Option<relaxed::Relaxed>,
    /// Out-of-band areas and the trim journal, for power-loss recovery; `None` when off.
    pub oob: Option<recovery::Oob>,
    /// Per block: user writes in flight that superseded one of its pages. With OOB
    /// tracking on, such a block is not erased until they are programmed, so a power
    /// failure that tears them still finds the superseded (last acknowledged) copy.
    pub pinned: Vec<u32>,
    /// Pages at the end of a normal-mode block holding its summary (0 = no summaries);
    /// SLC-mode blocks use one page.
    pub summary_pages: u32,
    /// Pages programmed along with data pages holding no logical page (a design's,
    /// `companion.rs`); `None` without.
    pub companions: Option<Box<companion::Companions>>,
    /// Free pages of each page type over all planes (normal-mode blocks), kept exact so
    /// policies and time series can read it in O(1).
    pub free_pages_by_type: Vec<u64>,
    /// Preconditioning leaves a free block above the GC threshold for every user write
    /// point but the one it fills through: for the write points a design opens later
    /// (`prepare_ftl`), or that `precondition.write_points_random_start` opens at once.
    pub fill_reserves_write_points: bool,
    /// Recovery returns each partly written block to the stream that opened it (or
    /// closes it): a design whose streams keep data apart (FDP's handles) sets it.
    pub recover_own_streams: bool,
    pub counters: FtlCounters,
}

/// The GC thresholds, (emergency, background), in free blocks of a plane of
/// `normal_blocks_per_plane` normal blocks.
pub fn gc_free_blocks(config: &Config, normal_blocks_per_plane: u32) -> (u32, u32) {
    let blocks_f = normal_blocks_per_plane as f64;
    let emergency = ((blocks_f * config.ftl.gc_emergency_free_fraction).ceil() as u32).max(2);
    let background = ((blocks_f * config.ftl.gc_background_free_fraction).ceil() as u32).max(emergency);
    (emergency, background)
}

#[derive(Clone, Debug, Default)]
pub struct FtlCounters {
    pub erases: u64,
    pub slc_erases: u64,
    pub gc_victims: u64,
    pub gc_moved_pages: u64,
    /// Pages of a one-shot page set skipped because the set was programmed incomplete.
    pub wasted_pages: u64,
    /// Partial programs of subpages into already-programmed SLC-mode pages.
    pub partial_programs: u64,
    /// Subpages that held data, and all subpages, of the SLC-mode blocks erased (with
    /// subpage state kept: partial programming on).
    pub slc_erased_subpages_used: u64,
    pub slc_erased_subpages: u64,
    /// Unprogrammed pages given up because their block was reclaimed early (PA-SSD).
    pub unprogrammed_reclaimed: u64,
    /// Block summaries programmed (`power.block_summary`).
    pub summary_programs: u64,
    /// Companion pages programmed (`companion.rs`).
    pub companion_programs: u64,
    /// Programs of pages taken along with a data page (summaries, companions) by page
    /// type (index 4: SLC mode); the engine charges the difference over an allocation.
    pub along_programs: [u64; 5],
    /// GC moves that recovered a logical page from the two pages of an interleaved pair
    /// into one page (DIR's GC, `Ftl::deinterleave`).
    pub deinterleaved: u64,
}

impl Ftl {
    /// Builds an erased drive. The config must be validated.
    pub fn new(config: &Config) -> Self {
        let addr = Address::new(&config.geometry);
        let bits = config.bits_per_cell();
        let layout = PageLayout::from_config(&config.flash, addr.pages_per_block);
        let slc_pages = config.flash.slc_pages_per_block.max(1);
        let slc_layout = PageLayout::slc(slc_pages);
        let slc_blocks = config.slc_blocks_by_plane();
        let has_slc = slc_blocks.iter().any(|&n| n > 0);
        // Planes of a hybrid layout are either all SLC or have the configured SLC blocks.
        let normal_blocks_per_plane =
            slc_blocks.iter().map(|&n| addr.blocks_per_plane - n).max().unwrap_or(addr.blocks_per_plane);
        let mut blocks = Vec::with_capacity(addr.blocks() as usize);
        let mut planes = Vec::with_capacity(addr.planes() as usize);
        let mut free_pages_by_type = vec![0u64; bits];
        let per_type = layout.pages_per_type(bits);
        let user_write_points = config.ftl.user_write_points;
        for plane in 0..addr.planes() {
            let mut state = PlaneState {
                free: VecDeque::with_capacity(addr.blocks_per_plane as usize),
                free_slc: VecDeque::new(),
                // (One more for the translation pages' write point.)
                active: vec![NO_PAGE; 2 + user_write_points.max(1) as usize + config.ftl.slc_levels.max(1) as usize],
                wp_cursor: 0,
                victim: NO_PAGE,
                victim_cursor: 0,
                next_victim: NO_PAGE,
                next_cursor: 0,
                gc_owed: 0,
                owed_pages: 0,
                free_pages: 0,
            };
            for b in 0..addr.blocks_per_plane {
                let global = addr.first_block_of_plane(plane) + b;
                let slc = b < slc_blocks[plane as usize];
                blocks.push(BlockInfo {
                    valid_pages: 0,
                    valid_units: 0,
                    write_ptr: 0,
                    programmed_by_type: [0; 4],
                    erase_count: 0,
                    state: BlockState::Free,
                    slc,
                    slc_level: 0,
                    stream: 0,
                    closed_seq: 0,
                    last_write_ns: 0,
                    age_at_start_ns: 0,
                });
                if slc {
                    state.free_slc.push_back(global);
                } else {
                    state.free.push_back(global);
                    if config.ftl.gc_free_space == crate::config::GcFreeSpace::Pages {
                        state.free_pages += layout.pages() as u64;
                    }
                    for (t, n) in per_type.iter().enumerate() {
                        free_pages_by_type[t] += *n as u64;
                    }
                }
            }
            planes.push(state);
        }
        let logical_pages = config.logical_pages() as u32;
        let ranks = layout.ranks();
        // Subpage state per page: for partial programs, and for every IPU scheme's report.
        let partial = config.ftl.partial_program_updates || config.ipu.enabled();
        let pages_total = addr.pages() as usize;
        let (emergency_free_blocks, background_free_blocks) = gc_free_blocks(config, normal_blocks_per_plane);
        let units = config.units_per_page();
        // With a cached mapping table the map's translation pages are logical pages too,
        // numbered after the host's (`[cmt]`).
        let translation_pages = if config.cmt.enabled() {
            let (_, per_page) = config.cmt.sizes(addr.pages(), config.geometry.page_size_bytes);
            logical_pages.div_ceil(per_page)
        } else {
            0
        };
        let (map_len, rev_len) =
            ((logical_pages + translation_pages) as usize * units as usize, pages_total * units as usize);
        let sparse = sparse::Sparse::for_config(config, &addr, map_len, rev_len);
        let dense = |n: usize| if sparse.is_some() { dense::DenseTable::default() } else { dense::DenseTable::new(n) };
        let mut ftl = Ftl {
            dense_map: dense(map_len),
            translation_pages,
            dense_reverse: dense(rev_len),
            sparse,
            mapping: config.ftl.mapping,
            unit_shift: units.trailing_zeros(),
            addr,
            layout,
            slc_layout,
            blocks,
            plane_valid_units: vec![0; planes.len()],
            planes,
            logical_pages,
            slc_migrating: vec![false; slc_blocks.len()],
            slc_gc_auto: config.hybrid.migration == crate::config::SlcMigration::Gc,
            slc_gc_free_fraction: config.ftl.slc_gc_free_fraction,
            slc_gc_urgent: config.ipu.enabled(),
            zone_owned: Vec::new(),
            slc_blocks,
            has_slc,
            normal_blocks_per_plane,
            background_free_blocks,
            emergency_free_blocks,
            gc_counts_pages: config.ftl.gc_free_space == crate::config::GcFreeSpace::Pages,
            victim_policy: config.ftl.gc_victim,
            background_gc: config.ftl.gc_background,
            bits_per_cell: bits,
            user_write_points: user_write_points.max(1),
            slc_levels: config.ftl.slc_levels.max(1),
            write_point_choice: config.ftl.write_point_choice,
            gc_through_user: config.ftl.gc_through_user_write_points,
            gc_page_set: if config.flash.program_scheme == crate::config::ProgramScheme::OneShot {
                bits as u32
            } else {
                1
            },
            closed_counter: 0,
            victim_rng: Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "gc-victim")),
            free_pages_by_type,
            // Write points opened at warm-up start above the GC threshold too.
            fill_reserves_write_points: config.precondition.write_points_random_start,
            recover_own_streams: false,
            counters: FtlCounters::default(),
            subpages_programmed: if partial { vec![0; pages_total] } else { Vec::new() },
            page_programs: if partial { vec![0; pages_total] } else { Vec::new() },
            subpages_per_page: config.geometry.subpages_per_page,
            partial_programs_max: config.flash.partial_programs_max,
            ranks,
            program_seq: Vec::new(),
            program_counter: 0,
            versions: None,
            wear: None,
            deinterleave: false,
            compact_across_pages: true,
            gc_keys: Vec::new(),
            gc_keys_compact: true,
            relaxed: None,
            oob: None,
            pinned: Vec::new(),
            summary_pages: config.summary_pages_per_block(),
            companions: None,
        };
        ftl.keep_gc_keys();
        ftl
    }

    /// Whether `subpages` more subpages can be partially programmed into `ppn`: an
    /// SLC-mode page with that many unprogrammed subpages and a program left under NOP.
    pub fn can_partial_program(&self, ppn: Ppn, subpages: u8) -> bool {
        if self.subpages_programmed.is_empty() || subpages == 0 || !self.is_slc(ppn) {
            return false;
        }
        let done = self.subpages_programmed[ppn as usize] as u32;
        done > 0
            && done + subpages as u32 <= self.subpages_per_page
            && (self.page_programs[ppn as usize] as u32) < self.partial_programs_max
    }

    pub fn partial_program(&mut self, ppn: Ppn, subpages: u8) {
        debug_assert!(self.can_partial_program(ppn, subpages));
        let first = self.subpages_programmed[ppn as usize];
        self.subpages_programmed[ppn as usize] += subpages;
        self.page_programs[ppn as usize] += 1;
        self.counters.partial_programs += 1;
        self.wear_reprogrammed(ppn);
        self.wear_slots_programmed(ppn, first as u32, subpages as u32);
    }

    /// Records the first program of an SLC-mode page: `subpages` written (0 = all).
    pub fn mark_programmed(&mut self, ppn: Ppn, subpages: u8) {
        if self.subpages_programmed.is_empty() {
            return;
        }
        let all = self.subpages_per_page as u8;
        let n = if subpages == 0 { all } else { subpages.min(all) };
        self.subpages_programmed[ppn as usize] = n;
        self.page_programs[ppn as usize] = 1;
        self.wear_slots_programmed(ppn, 0, n as u32);
    }

    /// Subpages of `ppn` that hold data (programmed, valid or not); with partial
    /// programming off, a programmed page holds data in all of them.
    pub fn subpages_used(&self, ppn: Ppn) -> u32 {
        match self.subpages_programmed.get(ppn as usize) {
            Some(&n) => n as u32,
            None => self.subpages_per_page,
        }
    }

    /// Records program sequence numbers from now on, so the invariant checker can verify
    /// program order and power-loss recovery can tell a GC copy from its source (costs 8
    /// bytes per physical page).
    pub fn track_program_order(&mut self) {
        if self.program_seq.is_empty() {
            self.program_seq = vec![0; self.addr.pages() as usize];
        }
    }

    pub(crate) fn record_program(&mut self, block: u32, page: u32, now_ns: u64) {
        if self.wear.is_some() {
            self.wear_programmed(self.addr.ppn(block, page), now_ns);
        }
        if !self.program_seq.is_empty() {
            self.program_counter += 1;
            self.program_seq[self.addr.ppn(block, page) as usize] = self.program_counter;
        }
    }

    /// Whether page `page` of `block` has been programmed (or skipped) since the erase.
    pub fn is_programmed(&self, block: u32, page: u32) -> bool {
        let info = &self.blocks[block as usize];
        if info.slc {
            return page < info.write_ptr;
        }
        let t = self.layout.types[page as usize] as usize;
        self.ranks[page as usize] < info.programmed_by_type[t] as u32
    }

    pub fn pages_in_block(&self, block: u32) -> u32 {
        if self.blocks[block as usize].slc {
            self.slc_layout.pages()
        } else {
            self.layout.pages()
        }
    }

    /// Page type of a physical page (0 for SLC-mode blocks).
    pub fn page_type(&self, ppn: Ppn) -> u8 {
        let block = self.addr.block_of(ppn);
        if self.blocks[block as usize].slc {
            0
        } else {
            self.layout.types[self.addr.page_in_block(ppn) as usize]
        }
    }

    pub fn is_slc(&self, ppn: Ppn) -> bool {
        self.blocks[self.addr.block_of(ppn) as usize].slc
    }

    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.planes[plane as usize].free.len() as u32
    }

    /// Free pages the stream could still program in the plane's active block.
    fn active_room(&self, plane: u32, stream: Stream) -> u32 {
        let block = self.planes[plane as usize].active[stream.index()];
        if block == NO_PAGE {
            0
        } else {
            self.pages_in_block(block) - self.blocks[block as usize].write_ptr
        }
    }

    /// Pages left in the active blocks of all user write points of `plane`.
    fn user_active_room(&self, plane: u32) -> u32 {
        (0..self.user_write_points).map(|k| self.active_room(plane, Stream::user(k))).sum()
    }

    /// The user write point of `plane` that takes the next user page (`ftl.
    /// write_point_choice`), among those that can: room in their block, or more than
    /// `reserve` free blocks to open one. `USER` when none can (the allocation fails).
    pub fn user_stream(&self, plane: u32, reserve: usize) -> Stream {
        let n = self.user_write_points;
        if n == 1 {
            return Stream::USER;
        }
        let p = &self.planes[plane as usize];
        let can_open = p.free.len() > reserve;
        let usable = |k: u32| self.active_room(plane, Stream::user(k)) > 0 || can_open;
        match self.write_point_choice {
            crate::config::WritePointChoice::RoundRobin => {
                (0..n).map(|i| (p.wp_cursor + i) % n).find(|&k| usable(k)).map_or(Stream::USER, Stream::user)
            }
            crate::config::WritePointChoice::FastestPage => (0..n)
                .filter(|&k| usable(k))
                .min_by_key(|&k| {
                    let block = p.active[Stream::user(k).index()];
                    let next = if self.active_room(plane, Stream::user(k)) > 0 {
                        self.blocks[block as usize].write_ptr
                    } else {
                        0
                    };
                    (self.layout.types[next as usize], k)
                })
                .map_or(Stream::USER, Stream::user),
        }
    }

    /// Takes the next page of a user write point (chosen by `user_stream`) and advances
    /// the round-robin cursor past it.
    fn allocate_user_stream(&mut self, plane: u32, now_ns: u64, reserve: usize) -> Option<Allocated> {
        let stream = self.user_stream(plane, reserve);
        let a = self.allocate_in(plane, stream, now_ns, reserve)?;
        if self.user_write_points > 1 {
            let k = if stream == Stream::USER { 0 } else { stream.0 as u32 - 2 };
            self.planes[plane as usize].wp_cursor = (k + 1) % self.user_write_points;
        }
        Some(a)
    }

    /// Whether a user write could get a page in `plane` now. User writes never take the
    /// last free block: GC needs it as a destination.
    pub fn can_allocate_user(&self, plane: u32) -> bool {
        if self.relaxed.is_some() {
            return self.can_allocate_relaxed(plane, 1);
        }
        let p = &self.planes[plane as usize];
        self.active_room(plane, Stream::SLC) > 0
            || !p.free_slc.is_empty()
            || self.user_active_room(plane) > 0
            || p.free.len() > 1
    }

    /// Pages user writes could still take in `plane` without GC: what its write points
    /// have left plus its free blocks but the last one, which GC keeps.
    pub fn user_room(&self, plane: u32) -> u64 {
        let p = &self.planes[plane as usize];
        let free = (p.free.len() as u64).saturating_sub(1) * self.layout.pages() as u64;
        let slc = p.free_slc.len() as u64 * self.slc_layout.pages() as u64;
        let open: u64 = match self.relaxed.as_ref() {
            Some(r) => r.open[plane as usize]
                .iter()
                .map(|&b| (self.pages_in_block(b) - self.blocks[b as usize].write_ptr) as u64)
                .sum(),
            None => (self.user_active_room(plane) + self.active_room(plane, Stream::SLC)) as u64,
        };
        free + slc + open
    }

    /// One-shot: pages the next user page set of `plane` can take in normal blocks: the
    /// rest of the user write point's current wordline, else a fresh block's first
    /// wordline if a user write may open one, else 0.
    pub fn user_page_set(&self, plane: u32) -> u32 {
        let p = &self.planes[plane as usize];
        let (start, wordline) = if self.active_room(plane, Stream::USER) > 0 {
            let wp = self.blocks[p.active[Stream::USER.index()] as usize].write_ptr as usize;
            (wp, self.layout.wordlines[wp])
        } else if p.free.len() > 1 {
            (0, self.layout.wordlines[0])
        } else {
            return 0;
        };
        self.layout.wordlines[start..].iter().take_while(|&&w| w == wordline).count() as u32
    }

    /// SLC-mode pages `plane` can still program without an erase.
    pub fn slc_room(&self, plane: u32) -> u64 {
        let p = &self.planes[plane as usize];
        self.active_room(plane, Stream::SLC) as u64 + p.free_slc.len() as u64 * self.slc_layout.pages() as u64
    }

    /// Whether a user write could get a normal-mode page in `plane` now.
    pub fn can_allocate_normal(&self, plane: u32) -> bool {
        self.user_active_room(plane) > 0 || self.planes[plane as usize].free.len() > 1
    }

    /// Takes the next normal-mode page of a user write in `plane`.
    pub fn allocate_normal(&mut self, plane: u32, now_ns: u64) -> Option<Allocated> {
        self.allocate_user_stream(plane, now_ns, 1)
    }

    /// Takes the next page of a user write in `plane` (SLC-mode blocks first when the
    /// drive has them). `None` when the plane has no room until GC frees a block.
    pub fn allocate_user(&mut self, plane: u32, now_ns: u64) -> Option<Allocated> {
        if self.slc_blocks[plane as usize] > 0 {
            if let Some(a) = self.allocate_in(plane, Stream::SLC, now_ns, 0) {
                return Some(a);
            }
        }
        self.allocate_user_stream(plane, now_ns, 1)
    }

    /// Takes the next page of user write point `k` of `plane` (a design's own choice of
    /// stream: per priority, per page type, per hot/cold class), never opening the
    /// plane's last free block.
    pub fn allocate_user_point(&mut self, plane: u32, k: u32, now_ns: u64) -> Option<Allocated> {
        debug_assert!(k < self.user_write_points);
        self.allocate_in(plane, Stream::user(k), now_ns, 1)
    }

    /// Takes the next page of user write point `k` for a GC move (which may open the
    /// plane's last free block, as the GC write point may).
    pub fn allocate_user_point_for_gc(&mut self, plane: u32, k: u32, now_ns: u64) -> Option<Allocated> {
        debug_assert!(k < self.user_write_points);
        self.allocate_in(plane, Stream::user(k), now_ns, 0)
    }

    /// The write stream of SLC level `level` (0 = `Stream::SLC`).
    pub fn slc_stream(&self, level: u32) -> Stream {
        debug_assert!(level < self.slc_levels);
        Stream::slc_level(level, self.user_write_points)
    }

    /// Takes the next page of SLC level `level` in `plane`, opening a block from the SLC
    /// pool only while more than `reserve` are free there. A design places user writes in
    /// a level with it (`user_page`), and GC moves inside the cache (`gc_page`).
    pub fn allocate_slc(&mut self, plane: u32, level: u32, now_ns: u64, reserve: usize) -> Option<Allocated> {
        if self.slc_blocks[plane as usize] == 0 {
            return None;
        }
        self.allocate_in(plane, self.slc_stream(level), now_ns, reserve)
    }

    /// Takes the next page of the plane's own GC write point, whatever
    /// `ftl.gc_through_user_write_points` says (a design that keeps GC data out of the
    /// user write points at times: RTF once every write point is on a fast page).
    pub fn allocate_gc_point(&mut self, plane: u32, now_ns: u64) -> Option<Allocated> {
        self.allocate_in(plane, Stream::GC, now_ns, 0)
    }

    /// Takes the next page for a GC move into normal blocks of `plane`.
    pub fn allocate_gc(&mut self, plane: u32, now_ns: u64) -> Option<Allocated> {
        if self.gc_through_user {
            // Short of free blocks, GC fills the open blocks it can write to before it
            // opens another: the GC write point's (open after a power loss, or a design's
            // RTF moves), then the user write points'. Opening one for each write point
            // in turn took more blocks than GC freed, and a GC block left open by
            // recovery went unused (swarm seed 376: six write points, 12-page blocks).
            if self.planes[plane as usize].free.len() as u32 <= self.emergency_free_blocks {
                if self.active_room(plane, Stream::GC) > 0 {
                    return self.allocate_in(plane, Stream::GC, now_ns, usize::MAX);
                }
                if self.user_active_room(plane) > 0 {
                    return self.allocate_user_stream(plane, now_ns, usize::MAX);
                }
            }
            return self.allocate_user_stream(plane, now_ns, 0);
        }
        self.allocate_in(plane, Stream::GC, now_ns, 0)
    }

    /// Takes the next page of `stream`'s active block, opening a new block from the free
    /// pool when the active one is full and more than `reserve` free blocks remain.
    fn allocate_in(&mut self, plane: u32, stream: Stream, now_ns: u64, reserve: usize) -> Option<Allocated> {
        if self.active_room(plane, stream) == 0 && !self.open_block(plane, stream, reserve) {
            return None;
        }
        let block = self.planes[plane as usize].active[stream.index()];
        Some(self.take_page(block, now_ns))
    }

    /// Makes a free block of the stream's pool its active block; false when the pool has
    /// no more than `reserve` blocks. (Once a block's worth of pages: kept off the
    /// per-page path.)
    #[cold]
    #[inline(never)]
    fn open_block(&mut self, plane: u32, stream: Stream, reserve: usize) -> bool {
        let level = stream.level_of(self.user_write_points, self.slc_levels);
        let slc = level.is_some();
        let level = level.unwrap_or(0);
        let p = &mut self.planes[plane as usize];
        let pool = if slc { &mut p.free_slc } else { &mut p.free };
        if pool.len() <= reserve {
            return false;
        }
        let block = pool.pop_front().expect("checked non-empty");
        p.active[stream.index()] = block;
        self.blocks[block as usize].state = BlockState::Open;
        self.blocks[block as usize].slc_level = level as u8;
        self.blocks[block as usize].stream = stream.0;
        if !slc {
            self.note_block_opened(plane);
        }
        true
    }

    /// Advances a block's write pointer by one page and returns that page.
    fn take_page(&mut self, block: u32, now_ns: u64) -> Allocated {
        let page = self.blocks[block as usize].write_ptr;
        self.record_program(block, page, now_ns);
        let info = &mut self.blocks[block as usize];
        info.write_ptr += 1;
        info.last_write_ns = now_ns;
        info.age_at_start_ns = 0;
        let slc = info.slc;
        let page_type = if slc { 0 } else { self.layout.types[page as usize] };
        info.programmed_by_type[page_type as usize] += 1;
        if !slc {
            self.free_pages_by_type[page_type as usize] -= 1;
            if self.gc_counts_pages {
                self.normal_page_taken(block);
            }
        }
        let next = self.blocks[block as usize].write_ptr;
        if next == self.pages_in_block(block) {
            self.close_block(block);
        } else if self.companions.is_some() && self.is_companion(block, next) {
            self.take_companion(block, now_ns);
        } else if self.summary_pages > 0 {
            self.maybe_write_summary(block, now_ns);
        }
        Allocated { ppn: self.addr.ppn(block, page), page_type, slc }
    }

    /// Pages at the end of `block` that hold its summary (0 without summaries).
    pub fn summary_pages_in(&self, block: u32) -> u32 {
        match self.summary_pages {
            0 => 0,
            _ if self.blocks[block as usize].slc => 1,
            n => n,
        }
    }

    /// Programs the block's summary once its data pages are all taken (thesis §4.1.4).
    /// The summary pages carry no logical page; they are garbage to GC.
    fn maybe_write_summary(&mut self, block: u32, now_ns: u64) {
        let reserved = self.summary_pages_in(block);
        if self.blocks[block as usize].write_ptr != self.pages_in_block(block) - reserved {
            return;
        }
        let mut last = None;
        for _ in 0..reserved {
            last = Some(self.take_page(block, now_ns));
        }
        let last = last.expect("at least one summary page");
        self.count_along(last.page_type, last.slc);
        self.counters.summary_programs += 1;
    }

    fn close_block(&mut self, block: u32) {
        let plane = self.addr.plane_of_block(block);
        let info = &mut self.blocks[block as usize];
        info.state = BlockState::Closed;
        self.closed_counter += 1;
        info.closed_seq = self.closed_counter;
        for slot in self.planes[plane as usize].active.iter_mut() {
            if *slot == block {
                *slot = NO_PAGE;
            }
        }
        self.rekey(block);
    }

    /// Whether the block of `last` is still open and its next page is on the same
    /// wordline as `last` (a one-shot page set still has room).
    pub fn wordline_has_room(&self, last: Ppn) -> bool {
        let block = self.addr.block_of(last);
        let info = &self.blocks[block as usize];
        if info.slc || info.state != BlockState::Open {
            return false;
        }
        let page = self.addr.page_in_block(last) as usize;
        self.layout.wordlines.get(info.write_ptr as usize) == Some(&self.layout.wordlines[page])
    }

    /// Erases a block and returns it to its plane's free pool.
    pub fn erase(&mut self, block: u32) {
        self.wear_erased(block);
        let plane = self.addr.plane_of_block(block);
        let info = &mut self.blocks[block as usize];
        debug_assert_eq!(info.valid_pages, 0, "erasing block {block} with valid data");
        debug_assert_eq!(info.state, BlockState::Closed, "only claimed victims are erased");
        info.write_ptr = 0;
        info.programmed_by_type = [0; 4];
        info.erase_count += 1;
        info.age_at_start_ns = 0;
        if !self.program_seq.is_empty() {
            let first = (block * self.addr.pages_per_block) as usize;
            self.program_seq[first..first + self.addr.pages_per_block as usize].fill(0);
        }
        if !self.subpages_programmed.is_empty() {
            let first = (block * self.addr.pages_per_block) as usize;
            let end = first + self.addr.pages_per_block as usize;
            if info.slc {
                // Page utilisation of collected SLC blocks (IPU §4.3.1).
                let used: u64 = self.subpages_programmed[first..end].iter().map(|&n| n as u64).sum();
                self.counters.slc_erased_subpages_used += used;
                self.counters.slc_erased_subpages += self.slc_layout.pages() as u64 * self.subpages_per_page as u64;
            }
            self.subpages_programmed[first..end].fill(0);
            self.page_programs[first..end].fill(0);
        }
        if let Some(o) = self.oob.as_mut() {
            let first = ((block * self.addr.pages_per_block) << self.unit_shift) as usize;
            let end = first + (self.addr.pages_per_block << self.unit_shift) as usize;
            o.lpn[first..end].fill(NO_PAGE);
            o.seq[first..end].fill(0);
        }
        info.state = BlockState::Free;
        let slc = info.slc;
        self.rekey(block);
        self.table_erased(block);
        let p = &mut self.planes[plane as usize];
        let finished_victim = p.victim == block;
        if finished_victim {
            p.victim = NO_PAGE;
        }
        p.gc_owed = p.gc_owed.saturating_sub(1);
        if slc {
            p.free_slc.push_back(block);
            self.counters.slc_erases += 1;
        } else {
            p.free.push_back(block);
            if self.gc_counts_pages {
                p.free_pages += self.layout.pages() as u64;
            }
            for t in 0..self.layout.types.len() {
                self.free_pages_by_type[self.layout.types[t] as usize] += 1;
            }
        }
        self.counters.erases += 1;
        // A further victim taken to fill a one-shot page set is cleaned next while the
        // plane still needs GC; otherwise it is released (it stays a closed block with
        // more invalid pages), so filling a set never makes cleaning run on by itself.
        let next = self.planes[plane as usize].next_victim;
        if finished_victim && next != NO_PAGE {
            let keep = self.gc_need(plane) != GcNeed::None;
            let p = &mut self.planes[plane as usize];
            p.next_victim = NO_PAGE;
            if keep {
                p.victim = next;
                p.victim_cursor = p.next_cursor;
            }
        }
    }
}

#[cfg(test)]
mod tests;
