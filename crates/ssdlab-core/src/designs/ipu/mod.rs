//! IPU (seed 003, ICPP '21): intra-page updates in an SLC-mode cache with partial
//! programming, and the two schemes it is compared with (Baseline, MGA), one switch
//! (`ipu.scheme`, `config.rs`).
//!
//! Every scheme writes user data into the SLC-mode cache first (high-density blocks when
//! the cache has no room) and runs on a subpage (unit) map with per-page subpage state
//! (which subpages hold data: `Ftl::subpages_programmed`; which are valid: the reverse
//! map), so a write of part of a page programs only the subpages it covers. GC of the
//! cache starts when its free space falls below `ftl.slc_gc_free_fraction` (IPU T2: 5%).
//!
//! - **Baseline** keeps a page map: a logical page lives in one physical page, so an
//!   update that leaves valid subpages of its logical page behind first reads the old
//!   page and writes the union to a new page (`enqueue_update_read`). Greedy GC; the
//!   cache's valid data leaves for high-density blocks; GC never packs two logical pages
//!   into one page.
//! - **MGA** keeps a two-level map: small writes of different requests share a page, the
//!   first programmed whole, the later ones partially programmed into its free subpages
//!   (the plane's open page) while NOP allows. Greedy GC by invalid subpages, packing the
//!   valid subpages of several pages into one; valid data leaves the cache.
//! - **IPU** (§3, Algorithm 1): new data goes to a Work-level page; an update whose old
//!   version sits alone in an SLC page with enough free subpages is partially programmed
//!   there (the intra-page update: the old subpages are invalid, so only the logical
//!   page's other, not updated, subpages are disturbed); otherwise the update's data alone
//!   goes to a new page one level up (Work → Monitor → Hot; the Hot level takes its own;
//!   Algorithm 1 finds a page of the request's size), the logical page's other subpages
//!   staying where they are. A level with no room gives way to the level below, the
//!   lowest to the high-density blocks. GC takes the SLC block of largest ISR = (IS + IS′)/TS and moves
//!   each page on its own: one holding data written by an update since it came to its
//!   level stays in the level, any other goes one level down, from Work out of the cache.
//!
//! IS′ (§3.2, Eq. 2) sums 1 − exp(−t/T) over the block's valid subpages never updated,
//! with our reading of the paper's t and T: t is the time since the subpage's data was
//! written (its access interval so far, never updated), T the mean interval between a
//! write of a subpage of this block and its update, as observed when updates supersede
//! the block's subpages; a block with no update observed yet uses the drive's mean, and
//! with none on the drive the mean age of the block's valid subpages.

pub mod config;

use super::{BuiltIn, Design, Hook, MoveTarget};
use crate::config::{Config, IpuCacheGc, IpuConfig, IpuScheme};
use crate::engine::{SimError, Simulator};
use crate::flash::{Ppn, NO_PAGE};
use crate::ftl::{Allocated, BlockState, Ftl};
use crate::stats::Report;
use serde::Serialize;

/// IPU's section of the report (`ipu.scheme` other than `off`; IPU §4's metrics).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct IpuSummary {
    pub scheme: String,
    /// User page programs (whole or partial) by where they went: `high_density` (normal
    /// blocks) and each SLC level (`work`, `monitor`, `hot`; `level_N` beyond three).
    pub writes_by_level: std::collections::BTreeMap<String, u64>,
    /// Updates absorbed by partial programming into the page holding their old version
    /// (IPU), or small writes packed into a page's free subpages by partial programming
    /// (MGA).
    pub partial_program_writes: u64,
    /// IPU: updates written one level up because the old page had no room.
    pub promotions: u64,
    /// Reads of an old page before its logical page is rewritten with an update
    /// (the Baseline's read-modify-write).
    pub update_reads: u64,
    /// GC of the cache: pages moved within their level, one level down, and out of the
    /// cache into high-density blocks; victims chosen by ISR (IPU).
    pub gc_moves_same_level: u64,
    pub gc_moves_down: u64,
    pub gc_evictions: u64,
    pub isr_victims: u64,
    /// Erases of SLC-mode and of high-density blocks during the run.
    pub slc_erases: u64,
    pub high_density_erases: u64,
    /// Subpages holding data / all subpages, over the SLC blocks GC erased (IPU §4.3.1).
    pub page_utilisation: f64,
    /// The scheme's mapping table (IPU §4.4.1): Baseline a page map; MGA a page map plus a
    /// subpage entry for every subpage of a logical page not stored whole in one page; IPU
    /// a page map plus each such logical page's subpage offsets (log2(subpages) bits each).
    pub mapping_table_bytes: u64,
    pub page_map_bytes: u64,
}

pub(crate) struct Ipu {
    scheme: IpuScheme,
    /// IPU's own cache GC (`ipu.cache_gc = "levels"`), else the baselines'.
    level_gc: bool,
    levels: u32,
    /// Per transaction slot: the SLC level its page comes from (IPU).
    txn_level: Vec<u8>,
    /// MGA: per plane, the page small writes are packed into (NO_PAGE = none) and the
    /// subpages promised to partial programs queued for it.
    open_page: Vec<Ppn>,
    open_promised: Vec<u32>,
    /// IPU, per SLC-mode unit (`slc_unit`): when its data was written, and whether it was
    /// written by an intra-page update (updated at its level).
    written_ns: Vec<u64>,
    updated: Vec<bool>,
    /// IPU, per SLC-mode block (`slc_block`): observed update intervals (sum, count).
    interval_sum: Vec<f64>,
    interval_count: Vec<u32>,
    drive_interval_sum: f64,
    drive_interval_count: u64,
    slc_per_plane: u32,
    summary: IpuSummary,
    /// Counters when the run started (preconditioning may erase).
    start_erases: (u64, u64),
    start_utilisation: (u64, u64),
    start_partials: u64,
}

impl Design for Ipu {
    const NAME: &'static str = "ipu";
    const HOOKS: &'static [Hook] = &[
        Hook::RunStarting,
        Hook::SplitWrite,
        Hook::WriteQueued,
        Hook::PartialTargetOk,
        Hook::PacksSmallWrites,
        Hook::PairsUserWrites,
        Hook::UserPage,
        Hook::WriteBound,
        Hook::GcMoveTarget,
        Hook::GcPage,
        Hook::GcVictim,
        Hook::GcMoved,
        Hook::PowerLost,
        Hook::Report,
    ];
    const NEEDS: &'static [super::Need] = &[super::Need::WholeMapInDram, super::Need::NoSuperPages];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    fn run_starting(sim: &mut Simulator<'_>) {
        sim.ipu_run_starting();
    }

    fn split_write(
        sim: &mut Simulator<'_>,
        slot: u32,
        lpn: u32,
        unit: u32,
        units: u32,
    ) -> Result<Option<u32>, SimError> {
        sim.ipu_split_write(slot, lpn, unit, units)
    }

    fn write_queued(sim: &mut Simulator<'_>, txn: u32) {
        sim.ipu_write_queued(txn);
    }

    fn partial_target_ok(sim: &Simulator<'_>, txn: u32) -> bool {
        sim.ipu_partial_target_ok(txn)
    }

    /// The IPU Baseline's and IPU's pages hold one logical page each (MGA packs).
    fn packs_small_writes(sim: &Simulator<'_>) -> bool {
        sim.designs.state::<Ipu>().packs()
    }

    /// IPU's levels are write streams of their own; its Table 2 names no multi-plane
    /// programs, so none of its three schemes forms them.
    fn pairs_user_writes(_sim: &Simulator<'_>) -> bool {
        false
    }

    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        sim.ipu_user_page(txn)
    }

    fn write_bound(sim: &mut Simulator<'_>, txn: u32, slc: bool) {
        sim.ipu_write_bound(txn, slc);
    }

    fn gc_move_target(_sim: &Simulator<'_>, _plane: u32) -> MoveTarget {
        MoveTarget::SamePlane
    }

    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        match sim.ipu_gc_page(plane, from) {
            Some(page) => page,
            None => sim.baseline_gc_page(plane, from),
        }
    }

    fn gc_victim(sim: &mut Simulator<'_>, plane: u32) -> Option<u32> {
        sim.ipu_gc_victim(plane)
    }

    fn gc_moved(sim: &mut Simulator<'_>, pages: u64, out_of_slc: bool, _cross_plane: bool) {
        sim.designs.state_mut::<Ipu>().gc_moved(pages, out_of_slc);
    }

    fn power_lost(sim: &mut Simulator<'_>) {
        sim.designs.state_mut::<Ipu>().power_lost();
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.ipu = sim.ipu_summary();
        if let Some(s) = &report.ipu {
            report.device.mapping_table_bytes = s.mapping_table_bytes;
        }
    }
}

impl BuiltIn for Ipu {
    const SECTION: &'static str = "ipu";
    const KEY: &'static str = "ipu.scheme";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::IpuConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::BeforeHost;

    fn swarm_draw(seed: u64, config: &mut Config, _records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config);
    }

    fn selected(config: &Config) -> bool {
        config.ipu.enabled()
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        Ipu::new(&config.ipu, ftl)
    }
}

impl Ipu {
    pub(crate) fn new(config: &IpuConfig, ftl: &Ftl) -> Ipu {
        let slc_per_plane = ftl.slc_blocks.iter().copied().max().unwrap_or(0);
        let slc_units = (ftl.addr.planes() * slc_per_plane) as usize
            * ftl.slc_layout.pages() as usize
            * ftl.units_per_page() as usize;
        let tracked = config.scheme == IpuScheme::Ipu;
        let slc_blocks = (ftl.addr.planes() * slc_per_plane) as usize;
        Ipu {
            scheme: config.scheme,
            level_gc: config.scheme == IpuScheme::Ipu && config.cache_gc == IpuCacheGc::Levels,
            levels: ftl.slc_levels,
            txn_level: Vec::new(),
            open_page: vec![NO_PAGE; ftl.addr.planes() as usize],
            open_promised: vec![0; ftl.addr.planes() as usize],
            written_ns: if tracked { vec![0; slc_units] } else { Vec::new() },
            updated: if tracked { vec![false; slc_units] } else { Vec::new() },
            interval_sum: if tracked { vec![0.0; slc_blocks] } else { Vec::new() },
            interval_count: if tracked { vec![0; slc_blocks] } else { Vec::new() },
            drive_interval_sum: 0.0,
            drive_interval_count: 0,
            slc_per_plane,
            summary: IpuSummary { scheme: format!("{:?}", config.scheme).to_lowercase(), ..IpuSummary::default() },
            start_erases: (0, 0),
            start_utilisation: (0, 0),
            start_partials: 0,
        }
    }

    /// Index of an SLC-mode block among all planes' SLC blocks.
    fn slc_block(&self, ftl: &Ftl, block: u32) -> usize {
        let plane = ftl.addr.plane_of_block(block);
        (plane * self.slc_per_plane + ftl.addr.block_in_plane(block)) as usize
    }

    /// Index of the physical unit `pu` (of an SLC-mode block) among all SLC units.
    fn slc_unit(&self, ftl: &Ftl, pu: u32) -> usize {
        let shift = ftl.unit_shift;
        let ppn = pu >> shift;
        let block = self.slc_block(ftl, ftl.addr.block_of(ppn));
        let page = ftl.addr.page_in_block(ppn) as usize;
        ((block * ftl.slc_layout.pages() as usize + page) << shift) + (pu & ((1 << shift) - 1)) as usize
    }

    /// Whether small writes of different requests share pages (MGA only).
    pub(crate) fn packs(&self) -> bool {
        self.scheme == IpuScheme::Mga
    }

    /// GC moved `pages`, out of the cache if `out_of_slc`.
    pub(crate) fn gc_moved(&mut self, pages: u64, out_of_slc: bool) {
        if out_of_slc {
            self.summary.gc_evictions += pages;
        }
    }

    /// Power failed: the open page of MGA is controller memory. (IPU's per-subpage write
    /// times and update flags would be too; we keep them, as a controller that journals
    /// them would.)
    pub(crate) fn power_lost(&mut self) {
        self.open_page.fill(NO_PAGE);
        self.open_promised.fill(0);
    }

    fn level_name(&self, level: Option<u32>) -> String {
        match level {
            None => "high_density".into(),
            Some(0) => "work".into(),
            Some(1) if self.levels == 3 => "monitor".into(),
            Some(l) if l + 1 == self.levels && self.levels >= 2 => "hot".into(),
            Some(l) => format!("level_{l}"),
        }
    }
}

/// IPU Eq. 1: ISR = (IS + IS′) / TS.
pub(crate) fn isr(invalid: u32, is_prime: f64, total: u32) -> f64 {
    (invalid as f64 + is_prime) / total as f64
}

/// IPU Eq. 2's term for one never-updated valid subpage: 1 − exp(−t / T), the chance
/// that a subpage updated every T on average (Poisson) would have been updated within t.
pub(crate) fn cold_weight(age_ns: f64, mean_interval_ns: f64) -> f64 {
    if mean_interval_ns > 0.0 {
        1.0 - (-age_ns / mean_interval_ns).exp()
    } else {
        1.0
    }
}

impl Simulator<'_> {
    pub(crate) fn ipu_run_starting(&mut self) {
        // The Baseline's and IPU's page maps: GC never packs two logical pages together.
        self.ftl.compact_across_pages = self.designs.state_mut::<Ipu>().scheme == IpuScheme::Mga;
        let c = &self.ftl.counters;
        let (erases, slc_erases) = (c.erases, c.slc_erases);
        let utilisation = (c.slc_erased_subpages_used, c.slc_erased_subpages);
        let partials = c.partial_programs;
        let d = self.designs.state_mut::<Ipu>();
        d.start_partials = partials;
        d.start_erases = (erases, slc_erases);
        d.start_utilisation = utilisation;
    }

    /// The valid units of `lpn`: a bit mask, and the page holding the first (and whether
    /// they span more than one page).
    fn ipu_valid_units(&self, lpn: u32) -> (u32, Ppn, bool) {
        let (mut mask, mut page, mut spread) = (0u32, NO_PAGE, false);
        for k in 0..self.ftl.units_per_page() {
            if let Some(p) = self.ftl.unit_page(lpn, k) {
                mask |= 1 << k;
                if page == NO_PAGE {
                    page = p;
                } else if p != page {
                    spread = true;
                }
            }
        }
        (mask, page, spread)
    }

    /// A user write of units `unit..unit + units` of `lpn` (request `slot`) is split off:
    /// the scheme queues it itself (the die), or leaves it to the ordinary write path.
    pub(crate) fn ipu_split_write(
        &mut self,
        slot: u32,
        lpn: u32,
        unit: u32,
        units: u32,
    ) -> Result<Option<u32>, SimError> {
        let (mask, old, spread) = self.ipu_valid_units(lpn);
        let new_mask = ((1u32 << units) - 1) << unit;
        let others = mask & !new_mask;
        let scheme = self.designs.state_mut::<Ipu>().scheme;
        if scheme == IpuScheme::Ipu {
            self.ipu_note_update_intervals(lpn, new_mask);
        }
        match scheme {
            IpuScheme::Off => Ok(None),
            IpuScheme::Baseline => {
                // A flush of several runs of units of the page is one update: one
                // read-modify-write of all of them, queued with the first run (the later
                // runs are in it), or none if the page holds nothing else. Merged run by
                // run, each run would read the page again and program the other runs'
                // units a second time, from their old copies on flash.
                let flush = self.flush_units;
                if flush & !new_mask != 0 {
                    if mask & !flush == 0 {
                        return Ok(None);
                    }
                    if unit != flush.trailing_zeros() {
                        return Ok(Some(self.ftl.addr.die_of_plane(self.ftl.addr.plane_of(old))));
                    }
                    return Ok(Some(self.ipu_read_modify_write(slot, lpn, mask | flush, old)));
                }
                Ok((others != 0).then(|| self.ipu_read_modify_write(slot, lpn, mask | new_mask, old)))
            }
            IpuScheme::Mga => {
                if units >= self.ftl.units_per_page() {
                    return Ok(None);
                }
                let plane = self.allocator_plane(lpn);
                let d = self.designs.state_mut::<Ipu>();
                let page = d.open_page[plane as usize];
                if page == NO_PAGE
                    || !self.ftl.can_partial_program(page, (units + d.open_promised[plane as usize]) as u8)
                {
                    return self.enqueue_write_units_in(slot, lpn, 0, unit, units, plane).map(Some);
                }
                d.open_promised[plane as usize] += units;
                Ok(Some(self.enqueue_partial_program(slot, lpn, unit, units, page)))
            }
            IpuScheme::Ipu => {
                if mask == 0 {
                    return Ok(None);
                }
                // The page holding the old version of the data written: that of the
                // units written, if one page holds them all; for units never written, the
                // logical page's page, if one page holds it.
                let (mut target, mut one) = (NO_PAGE, true);
                for k in unit..unit + units {
                    match self.ftl.unit_page(lpn, k) {
                        Some(p) if target == NO_PAGE => target = p,
                        Some(p) => one &= p == target,
                        None => {}
                    }
                }
                if target == NO_PAGE && !spread {
                    target = old;
                }
                if one
                    && target != NO_PAGE
                    && self.ftl.is_slc(target)
                    && self.ftl.can_partial_program(target, units as u8)
                {
                    return Ok(Some(self.enqueue_partial_program(slot, lpn, unit, units, target)));
                }
                // Only the update's data moves up (Algorithm 1, `find_page(block_flag + 1,
                // size)`): the logical page's other subpages stay where they are.
                self.designs.state_mut::<Ipu>().summary.promotions += 1;
                Ok(None)
            }
        }
    }

    /// Reads `old` first, then writes the span of `union` (the update and the logical
    /// page's other valid units; a gap between them is written too).
    fn ipu_read_modify_write(&mut self, slot: u32, lpn: u32, union: u32, old: Ppn) -> u32 {
        let lo = union.trailing_zeros();
        let hi = 32 - union.leading_zeros();
        self.designs.state_mut::<Ipu>().summary.update_reads += 1;
        self.enqueue_update_read(slot, lpn, lo, hi - lo, old)
    }

    /// IPU's T (Eq. 2): the units of `lpn` in `new_mask` that sit in SLC blocks are about
    /// to be superseded; their lifetimes are update intervals of their blocks.
    fn ipu_note_update_intervals(&mut self, lpn: u32, new_mask: u32) {
        let shift = self.ftl.unit_shift;
        for k in 0..self.ftl.units_per_page() {
            if new_mask & (1 << k) == 0 {
                continue;
            }
            let pu = self.ftl.map_at((lpn << shift) + k);
            if pu == NO_PAGE || !self.ftl.is_slc(pu >> shift) {
                continue;
            }
            let block = self.ftl.addr.block_of(pu >> shift);
            let d = self.designs.state_mut::<Ipu>();
            let (b, u) = (d.slc_block(&self.ftl, block), d.slc_unit(&self.ftl, pu));
            let interval = self.now.saturating_sub(d.written_ns[u]) as f64;
            d.interval_sum[b] += interval;
            d.interval_count[b] += 1;
            d.drive_interval_sum += interval;
            d.drive_interval_count += 1;
        }
    }

    /// A write was queued: the SLC level its page will come from. New data, and data
    /// coming back from the high-density blocks, go to Work; an update of data in level
    /// l to l + 1 (the top level to itself). The old version is that of the units
    /// written, else of the logical page.
    pub(crate) fn ipu_write_queued(&mut self, txn: u32) {
        let t = self.txns[txn as usize];
        let written = (t.unit as u32..t.unit as u32 + t.units as u32).find_map(|k| self.ftl.unit_page(t.lpn, k));
        let old = written.unwrap_or_else(|| self.ipu_valid_units(t.lpn).1);
        let d = self.designs.state_mut::<Ipu>();
        let level = if old != NO_PAGE && self.ftl.is_slc(old) {
            let l = self.ftl.blocks[self.ftl.addr.block_of(old) as usize].slc_level as u32;
            (l + 1).min(d.levels - 1)
        } else {
            0
        };
        if d.txn_level.len() <= txn as usize {
            d.txn_level.resize(txn as usize + 1, 0);
        }
        d.txn_level[txn as usize] = level as u8;
    }

    /// IPU: a user write's page, from its level, else a lower one, else a high-density
    /// block. (The baselines take the SLC cache's one stream: `None`.)
    pub(crate) fn ipu_user_page(&mut self, txn: u32) -> Option<Allocated> {
        let d = self.designs.state_mut::<Ipu>();
        if d.scheme != IpuScheme::Ipu {
            return None;
        }
        let level = d.txn_level.get(txn as usize).copied().unwrap_or(0) as u32;
        let plane = self.txns[txn as usize].plane;
        // (GC of the cache starts below `ftl.slc_gc_free_fraction` of free space; its moves
        // take what SLC room is left, else leave the cache.)
        for l in (0..=level).rev() {
            if let Some(a) = self.ftl.allocate_slc(plane, l, self.now, 0) {
                return Some(a);
            }
        }
        self.ftl.allocate_normal(plane, self.now).or_else(|| self.ftl.allocate_user(plane, self.now))
    }

    /// A user write got its page: counts by level; MGA opens the page for packing; IPU
    /// stamps its units.
    pub(crate) fn ipu_write_bound(&mut self, txn: u32, slc: bool) {
        let t = self.txns[txn as usize];
        let level = slc.then(|| self.ftl.blocks[self.ftl.addr.block_of(t.ppn) as usize].slc_level as u32);
        let d = self.designs.state_mut::<Ipu>();
        *d.summary.writes_by_level.entry(d.level_name(level)).or_insert(0) += 1;
        match d.scheme {
            IpuScheme::Mga if slc => {
                let plane = t.plane as usize;
                if d.open_page[plane] == t.ppn {
                    d.open_promised[plane] = d.open_promised[plane].saturating_sub(t.units as u32);
                } else if self.ftl.subpages_used(t.ppn) < self.ftl.units_per_page() {
                    d.open_page[plane] = t.ppn;
                    d.open_promised[plane] = 0;
                }
            }
            IpuScheme::Ipu if slc => {
                // Updated at its level: written into its page by an intra-page update (data
                // arriving at a level, new or promoted, has not been updated there yet).
                let shift = self.ftl.unit_shift;
                let update = t.kind == crate::engine::TxnKind::PartialProgram;
                for k in t.unit as u32..t.unit as u32 + t.units as u32 {
                    let pu = self.ftl.map_at((t.lpn << shift) + k);
                    if pu != NO_PAGE && pu >> shift == t.ppn {
                        let u = d.slc_unit(&self.ftl, pu);
                        d.written_ns[u] = self.now;
                        d.updated[u] = update;
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether a queued partial program still goes where the scheme meant it: IPU's only
    /// into the page still holding its logical page (MGA's open page may hold anything).
    pub(crate) fn ipu_partial_target_ok(&self, txn: u32) -> bool {
        let t = &self.txns[txn as usize];
        match self.designs.try_state::<Ipu>() {
            Some(d) if d.scheme == IpuScheme::Ipu => {
                (0..self.ftl.units_per_page()).any(|k| self.ftl.unit_page(t.lpn, k) == Some(t.ppn))
            }
            _ => true,
        }
    }

    /// IPU's victim (§3.2, Eq. 1): while the plane's SLC cache needs cleaning (and its
    /// normal blocks do not), the closed SLC block of largest ISR (lowest number on ties).
    pub(crate) fn ipu_gc_victim(&mut self, plane: u32) -> Option<u32> {
        if !self.designs.state_mut::<Ipu>().level_gc || !self.ftl.gc_kinds_wanted(plane).1 {
            return None;
        }
        let first = self.ftl.addr.first_block_of_plane(plane);
        let mut best: Option<(u32, f64)> = None;
        for block in first..first + self.ftl.slc_blocks[plane as usize] {
            if self.ftl.blocks[block as usize].state != BlockState::Closed {
                continue;
            }
            let isr = self.ipu_isr(block);
            if best.is_none_or(|(_, b)| isr > b) {
                best = Some((block, isr));
            }
        }
        let (block, _) = best?;
        self.designs.state_mut::<Ipu>().summary.isr_victims += 1;
        Some(block)
    }

    /// ISR of an SLC block: (invalid subpages + IS′) / all subpages.
    pub(crate) fn ipu_isr(&self, block: u32) -> f64 {
        let Some(d) = self.designs.try_state::<Ipu>() else { return 0.0 };
        let ftl = &self.ftl;
        let (shift, units, pages) = (ftl.unit_shift, ftl.units_per_page(), ftl.slc_layout.pages());
        let b = d.slc_block(ftl, block);
        // Valid units of the block with their age and update flag.
        let valid = (0..pages).flat_map(|page| (0..units).map(move |k| (ftl.addr.ppn(block, page) << shift) + k));
        let valid = valid.filter(|&pu| ftl.rev_at(pu) != NO_PAGE).map(|pu| {
            let u = d.slc_unit(ftl, pu);
            (self.now.saturating_sub(d.written_ns[u]) as f64, d.updated[u])
        });
        let t_mean = if d.interval_count[b] > 0 {
            d.interval_sum[b] / d.interval_count[b] as f64
        } else if d.drive_interval_count > 0 {
            d.drive_interval_sum / d.drive_interval_count as f64
        } else {
            let (sum, n) = valid.clone().fold((0.0, 0u32), |(s, n), (age, _)| (s + age, n + 1));
            if n > 0 {
                sum / n as f64
            } else {
                1.0
            }
        };
        let (mut valid_units, mut is_prime) = (0u32, 0.0);
        for (age, updated) in valid {
            valid_units += 1;
            if !updated {
                is_prime += cold_weight(age, t_mean);
            }
        }
        let used: u32 = (0..pages).map(|page| ftl.subpages_used(ftl.addr.ppn(block, page)).min(units)).sum();
        isr(used.saturating_sub(valid_units), is_prime, pages * units)
    }

    /// IPU's GC destination of the page `from`: its level if it holds data updated there,
    /// else the level below; out of the cache below Work (a high-density block), and a
    /// lower level when the wanted one has no room. The baselines: `None` (the FTL's).
    pub(crate) fn ipu_gc_page(&mut self, plane: u32, from: Ppn) -> Option<Option<Allocated>> {
        if !self.designs.state_mut::<Ipu>().level_gc {
            return None;
        }
        let block = self.ftl.addr.block_of(from);
        if !self.ftl.blocks[block as usize].slc {
            return Some(self.ftl.allocate_gc(plane, self.now));
        }
        let shift = self.ftl.unit_shift;
        let level = self.ftl.blocks[block as usize].slc_level as i32;
        let d = self.designs.state_mut::<Ipu>();
        let valid: Vec<u32> =
            (0..1u32 << shift).map(|k| (from << shift) + k).filter(|&pu| self.ftl.rev_at(pu) != NO_PAGE).collect();
        let updated = valid.iter().any(|&pu| d.updated[d.slc_unit(&self.ftl, pu)]);
        let want = if updated { level } else { level - 1 };
        // A move stays in the cache only into room it has without taking a free block
        // that cleaning must gain (else cleaning partly valid pages one for one could
        // never bring the cache above its threshold).
        let mut dest = None;
        for l in (0..=want).rev() {
            if self.ftl.slc_level_room(plane, l as u32) == 0 && !self.ftl.slc_gc_may_open(plane) {
                continue;
            }
            if let Some(a) = self.ftl.allocate_slc(plane, l as u32, self.now, 0) {
                dest = Some((a, l));
                break;
            }
        }
        let d = self.designs.state_mut::<Ipu>();
        match dest {
            Some((a, l)) => {
                if l == level {
                    d.summary.gc_moves_same_level += 1;
                } else {
                    d.summary.gc_moves_down += 1;
                }
                // The k-th valid unit of `from` lands in slot k (GC moves one page alone).
                for (k, &pu) in valid.iter().enumerate() {
                    let (src, dst) = (d.slc_unit(&self.ftl, pu), d.slc_unit(&self.ftl, (a.ppn << shift) + k as u32));
                    d.written_ns[dst] = d.written_ns[src];
                    d.updated[dst] = false;
                }
                Some(Some(a))
            }
            None => Some(self.ftl.allocate_gc(plane, self.now)),
        }
    }

    pub(crate) fn ipu_summary(&self) -> Option<IpuSummary> {
        let d = self.designs.try_state::<Ipu>()?;
        let mut s = d.summary.clone();
        let c = &self.ftl.counters;
        s.partial_program_writes = c.partial_programs - d.start_partials;
        s.slc_erases = c.slc_erases - d.start_erases.1;
        s.high_density_erases = (c.erases - d.start_erases.0).saturating_sub(s.slc_erases);
        let used = c.slc_erased_subpages_used - d.start_utilisation.0;
        let total = c.slc_erased_subpages - d.start_utilisation.1;
        s.page_utilisation = if total > 0 { used as f64 / total as f64 } else { 0.0 };
        let e = self.config.ftl.mapping_entry_bytes as u64;
        s.page_map_bytes = self.ftl.logical_pages as u64 * e;
        let units = self.ftl.units_per_page() as u64;
        let split = self.ftl.split_logical_pages();
        s.mapping_table_bytes = match d.scheme {
            IpuScheme::Off | IpuScheme::Baseline => s.page_map_bytes,
            IpuScheme::Mga => self.ftl.mapping_memory_bytes(self.config.ftl.mapping_entry_bytes),
            IpuScheme::Ipu => s.page_map_bytes + (split * units * units.trailing_zeros() as u64).div_ceil(8),
        };
        Some(s)
    }
}

/// IPU and its baselines (issue 15), from a stream of their own, on drives with an SLC
/// cache of 16 KiB pages of four subpages (drawn with partial programming).
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config) {
    use crate::config::*;
    use crate::swarm::pick;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-ipu"));
    if c.geometry.subpages_per_page < 2 || c.ftl.slc_blocks_per_plane == 0 || !rng.random_bool(0.6) {
        return;
    }
    let mut drawn = c.clone();
    drawn.ipu.scheme = pick(rng, &[IpuScheme::Baseline, IpuScheme::Mga, IpuScheme::Ipu, IpuScheme::Ipu]);
    drawn.ipu.levels = rng.random_range(2..=3);
    drawn.ftl.slc_gc_free_fraction = pick(rng, &[0.0, 0.05, 0.2]);
    drawn.hybrid.allocation = HybridAllocation::Pf;
    drawn.hybrid.migration = SlcMigration::Gc;
    if drawn.ftl.slc_blocks_per_plane < drawn.ipu.levels + 2 {
        drawn.ftl.slc_blocks_per_plane = drawn.ipu.levels + 2;
    }
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

#[cfg(test)]
mod tests;
