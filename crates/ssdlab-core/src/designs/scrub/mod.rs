//! Scrubbing and sanitisation (thesis §6.2; docs/scrub.md). A *scrub* programs a stale
//! page to all zeros in place so its old data can no longer be read (§6.2.1). Flash
//! tolerates only so many of them in a block between erases (the *scrub budget*, Fig.
//! 6.4): every page programmed to zeros counts one, and past the budget the block's valid
//! pages are relocated and the block erased instead. On MLC (and TLC) flash scrubbing a
//! page corrupts the pages sharing its cells (the same wordline of the same chain,
//! `flash/layout.rs`), so they are scrubbed together, a valid one relocated first.
//!
//! Three ways to use it (§6.2.2, `scrub.mode`): *immediate* (a write or trim completes
//! only once the copy it superseded is scrubbed), *background* (the copy is scrubbed
//! when its die has nothing else to do, or first once `background_backlog_pages` wait),
//! and *scan* (writes leave copies; a sanitise command finds every copy of its range by
//! reading each block's summary, `sanitize.rs`). Every mode serves sanitise commands.
//!
//! The copy a write supersedes is released to the design only once the write is
//! programmed (`copy_released`): scrubbing it earlier, in parallel with the program, would
//! lose both copies to a power failure that tears the write (the recovery rule of
//! ARCHITECTURE.md). So an immediate write waits for its program and then the scrub.

pub mod config;
mod sanitize;

use super::{BuiltIn, Design, Hook, Need};
use crate::config::{Config, ScrubMode};
use crate::engine::{SimError, Simulator, TxnKind, NO_REQUEST};
use crate::flash::{Ppn, NO_PAGE};
use crate::ftl::{BlockState, Ftl};
use crate::stats::Report;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub use sanitize::SanitizeRecord;

/// Who waits for a stale copy to be destroyed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiter {
    None,
    /// A write or trim request (its slot), held by one sub-request.
    Request(u32),
    /// A sanitise command in progress (its index in `Scrub::sanitizes`).
    Sanitize(u32),
}

/// A stale page to destroy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Item {
    ppn: Ppn,
    waiter: Waiter,
}

/// What destroying a stale page takes now.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plan {
    /// Nothing: it is scrubbed already.
    Done,
    /// Its block is being (or will be) relocated and erased: GC is cleaning it (false),
    /// or the scrub would exceed the budget (true).
    AwaitErase(u32, bool),
    /// A page sharing its cells holds valid data: move that first.
    Relocate(Ppn, u32),
    /// Program these pages (it and the unscrubbed pages sharing its cells) to zeros.
    Scrub(Vec<Ppn>),
}

/// The report section `scrub`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScrubSummary {
    pub mode: String,
    /// Scrubs a block tolerates between erases.
    pub budget_pages: u32,
    /// Stale copies handed to the design by writes and trims (immediate, background).
    pub stale_copies: u64,
    /// Pages programmed to zeros (those sharing a target's cells included), and the
    /// commands that did it.
    pub pages_scrubbed: u64,
    pub scrub_commands: u64,
    /// Valid pages sharing a target's cells, relocated before the scrub.
    pub shared_pages_relocated: u64,
    /// Blocks relocated and erased because a scrub would have exceeded the budget, and
    /// the open ones among them closed early (their unprogrammed pages given up until the
    /// erase).
    pub blocks_condemned: u64,
    pub blocks_closed_early: u64,
    pub pages_given_up: u64,
    /// Stale copies whose block GC erased before they were scrubbed, and those found in a
    /// block GC was cleaning (they wait for its erase, which the design then drives).
    pub copies_erased_first: u64,
    pub copies_in_gc_victims: u64,
    /// Most scrubs any block took between two erases (never above the budget).
    pub max_scrubs_per_block: u32,
    /// Most background scrubs waiting at one die.
    pub background_backlog_max: u64,
    /// Programmed pages holding a stale copy of host data (not zeroed, not erased) at the
    /// start and at the end of the run (0 without out-of-band data: mode `off`), and at
    /// the end those in blocks GC is cleaning (a GC move leaves its source until the
    /// victim's erase; the run may end before it).
    pub remnants_at_start: u64,
    pub remnants_at_end: u64,
    pub remnants_at_end_in_gc_victims: u64,
    /// One row per sanitise command.
    pub sanitize: Vec<SanitizeRecord>,
}

/// The design's state.
pub(crate) struct Scrub {
    mode: ScrubMode,
    budget: u32,
    backlog: usize,
    /// Per block: scrubs since its last erase (physical: survives a power loss).
    scrubs: Vec<u32>,
    /// Per physical page: programmed to zeros since its block's last erase (a bit set).
    scrubbed: Vec<u64>,
    /// Per page of a normal-mode block: the other pages sharing its cells.
    partners: Vec<Vec<u32>>,
    /// Per die: stale pages to destroy before user work (immediate mode, sanitisation),
    /// and those to destroy when idle (background mode).
    urgent: Vec<VecDeque<Item>>,
    background: Vec<VecDeque<Item>>,
    /// Per plane: blocks to relocate and erase, and whether before user work.
    condemned: Vec<Vec<(u32, bool)>>,
    /// Who waits for a block's erase to end.
    erase_waiters: Vec<(u32, Waiter)>,
    /// Scrub and scan commands under way: (tag, who waits).
    in_flight: Vec<(u32, Waiter)>,
    next_tag: u32,
    /// Trimming a sanitised range: its copies are the scan's, not `copy_released`'s.
    trimming: bool,
    sanitizes: Vec<sanitize::SanitizeOp>,
    /// Per die: the sanitise scans it still has to run.
    scans: Vec<VecDeque<sanitize::Scan>>,
    sanitize_issued: bool,
    summary: ScrubSummary,
}

impl Design for Scrub {
    const NAME: &'static str = "scrub";
    const HOOKS: &'static [Hook] = &[
        Hook::RunStarting,
        Hook::BlockErased,
        Hook::EraseDone,
        Hook::DieWork,
        Hook::IdleWork,
        Hook::CopyReleased,
        Hook::MaintenanceDone,
        Hook::SanitizeRequested,
        Hook::HostFinished,
        Hook::Timer,
        Hook::PowerLost,
        Hook::Report,
    ];
    const NEEDS: &'static [Need] =
        &[Need::PagesProgrammedWhole, Need::WholeMapInDram, Need::PfHybridAllocation, Need::PlaneHybridLayout];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    fn run_starting(sim: &mut Simulator<'_>) {
        sim.scrub_run_starting();
    }

    fn block_erased(sim: &mut Simulator<'_>, _plane: u32, block: u32, _slc: bool) {
        sim.scrub_block_erased(block);
    }

    fn erase_done(sim: &mut Simulator<'_>, block: u32) -> Result<(), SimError> {
        sim.scrub_erase_done(block)
    }

    fn die_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        sim.scrub_die_work(die)
    }

    fn idle_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        sim.scrub_idle_work(die)
    }

    fn copy_released(sim: &mut Simulator<'_>, old: Ppn, request: u32) -> Result<(), SimError> {
        sim.scrub_copy_released(old, request)
    }

    fn maintenance_done(sim: &mut Simulator<'_>, kind: TxnKind, tag: u32) -> Result<(), SimError> {
        sim.scrub_maintenance_done(kind, tag)
    }

    fn sanitize_requested(sim: &mut Simulator<'_>, slot: u32) -> Result<(), SimError> {
        sim.scrub_sanitize(slot)
    }

    fn host_finished(sim: &mut Simulator<'_>) -> Result<bool, SimError> {
        sim.scrub_host_finished()
    }

    fn timer(sim: &mut Simulator<'_>, tag: u8) -> Result<(), SimError> {
        sim.scrub_timer(tag)
    }

    fn power_lost(sim: &mut Simulator<'_>) {
        sim.designs.state_mut::<Scrub>().power_lost();
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.scrub = Some(sim.scrub_summary());
    }
}

impl BuiltIn for Scrub {
    const SECTION: &'static str = "scrub";
    const KEY: &'static str = "scrub.mode";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::ScrubConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::AfterHost;

    fn swarm_draw(seed: u64, config: &mut Config, records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config, records);
    }

    fn selected(config: &Config) -> bool {
        config.scrub.enabled() || config.scrub.sanitize_bytes > 0
    }

    /// Scrubbing and sanitisation find copies by the logical page in each page's
    /// out-of-band area (the block summaries recovery reads, thesis §6.2.2).
    fn prepare_ftl(config: &Config, ftl: &mut Ftl) {
        if config.scrub.enabled() {
            ftl.track_oob();
        }
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        Scrub::new(config, ftl)
    }
}

impl Scrub {
    pub(crate) fn new(config: &Config, ftl: &Ftl) -> Scrub {
        let a = &ftl.addr;
        let budget = config.scrub.budget(ftl.layout.pages());
        Scrub {
            mode: config.scrub.mode,
            budget,
            backlog: config.scrub.background_backlog_pages as usize,
            scrubs: vec![0; a.blocks() as usize],
            scrubbed: vec![0; (a.pages() as usize).div_ceil(64)],
            partners: if config.scrub.shared_cells {
                cell_partners(&ftl.layout.types, &ftl.layout.wordlines)
            } else {
                vec![Vec::new(); ftl.layout.pages() as usize]
            },
            urgent: vec![VecDeque::new(); a.dies() as usize],
            background: vec![VecDeque::new(); a.dies() as usize],
            condemned: vec![Vec::new(); a.planes() as usize],
            erase_waiters: Vec::new(),
            in_flight: Vec::new(),
            next_tag: 0,
            trimming: false,
            sanitizes: Vec::new(),
            scans: (0..a.dies()).map(|_| VecDeque::new()).collect(),
            sanitize_issued: false,
            summary: ScrubSummary {
                mode: crate::engine::kebab(&config.scrub.mode),
                budget_pages: budget,
                ..ScrubSummary::default()
            },
        }
    }

    /// Whether the drive scrubs at all (mode `off`: a sanitise command is a trim).
    fn mode_scrubs(&self) -> bool {
        self.mode != ScrubMode::Off
    }

    fn is_scrubbed(&self, ppn: Ppn) -> bool {
        self.scrubbed[ppn as usize / 64] & (1 << (ppn % 64)) != 0
    }

    fn mark_scrubbed(&mut self, ppn: Ppn) {
        self.scrubbed[ppn as usize / 64] |= 1 << (ppn % 64);
    }

    fn tag(&mut self, waiter: Waiter) -> u32 {
        let tag = self.next_tag;
        self.next_tag = (self.next_tag + 1) % (NO_REQUEST - 1);
        self.in_flight.push((tag, waiter));
        tag
    }

    /// Power failed: queues and commands are gone. Scrub counts and zeroed pages are
    /// physical and stay; the stale copies not yet scrubbed stay readable (a sanitise
    /// command finds them).
    pub(crate) fn power_lost(&mut self) {
        self.urgent.iter_mut().for_each(VecDeque::clear);
        self.background.iter_mut().for_each(VecDeque::clear);
        self.condemned.iter_mut().for_each(Vec::clear);
        self.erase_waiters.clear();
        self.in_flight.clear();
        self.scans.iter_mut().for_each(VecDeque::clear);
        for s in self.sanitizes.iter_mut().filter(|s| s.outstanding > 0) {
            s.outstanding = 0;
            s.record.interrupted = true;
        }
        self.trimming = false;
    }
}

/// For each page of a block laid out as `types` / `wordlines`, the other pages whose bits
/// share its cells: on each wordline the k-th page of every type (a pairs layout has two
/// chains per wordline, so LSB page k pairs with MSB page k; thesis §7.1).
pub(crate) fn cell_partners(types: &[u8], wordlines: &[u32]) -> Vec<Vec<u32>> {
    let mut partners = vec![Vec::new(); types.len()];
    let mut seen: Vec<(u32, u8, u32)> = Vec::with_capacity(types.len());
    for p in 0..types.len() {
        let (w, t) = (wordlines[p], types[p]);
        let k = seen.iter().filter(|&&(sw, st, _)| sw == w && st == t).count() as u32;
        seen.push((w, t, k));
    }
    for p in 0..types.len() {
        let (w, t, k) = seen[p];
        partners[p] = (0..types.len())
            .filter(|&q| q != p && seen[q].0 == w && seen[q].2 == k && seen[q].1 != t)
            .map(|q| q as u32)
            .collect();
    }
    partners
}

impl Simulator<'_> {
    pub(crate) fn scrub_run_starting(&mut self) {
        let (remnants, _) = self.scrub_remnants();
        let at = self.config.scrub.sanitize_at_ns;
        let s = self.designs.state_mut::<Scrub>();
        s.summary.remnants_at_start = remnants;
        if self.config.scrub.sanitize_bytes > 0 && at > 0 {
            self.schedule_design_timer::<Scrub>(at, 0);
        }
    }

    /// Programmed pages holding a stale copy of host data (from the out-of-band areas).
    /// Programmed pages holding a stale copy of host data (from the out-of-band areas):
    /// all of them, and those in blocks GC is cleaning.
    pub(crate) fn scrub_remnants(&self) -> (u64, u64) {
        let f = &self.ftl;
        if f.oob.is_none() {
            return (0, 0);
        }
        let mut counts = (0, 0);
        for ppn in 0..f.addr.pages() as u32 {
            if f.page_valid_units(ppn) == 0 && f.oob_content(ppn).is_some_and(|(lu, _)| lu < f.logical_pages) {
                counts.0 += 1;
                let (block, plane) = (f.addr.block_of(ppn), f.addr.plane_of(ppn) as usize);
                counts.1 += u64::from(f.planes[plane].victim == block || f.planes[plane].next_victim == block);
            }
        }
        counts
    }

    pub(crate) fn scrub_copy_released(&mut self, old: Ppn, request: u32) -> Result<(), SimError> {
        let s = self.designs.state_mut::<Scrub>();
        if s.trimming || !matches!(s.mode, ScrubMode::Immediate | ScrubMode::Background) {
            return Ok(());
        }
        s.summary.stale_copies += 1;
        let die = self.ftl.addr.die_of_plane(self.ftl.addr.plane_of(old)) as usize;
        if s.mode == ScrubMode::Background {
            s.background[die].push_back(Item { ppn: old, waiter: Waiter::None });
            s.summary.background_backlog_max = s.summary.background_backlog_max.max(s.background[die].len() as u64);
        } else {
            let waiter = if request == NO_REQUEST { Waiter::None } else { Waiter::Request(request) };
            s.urgent[die].push_back(Item { ppn: old, waiter });
            if request != NO_REQUEST {
                self.hold_request(request);
            }
        }
        self.kick(die as u32)
    }

    /// Before the user queues: blocks condemned before user work, stale pages to destroy
    /// now, sanitise scans, and background scrubs once their backlog is too long.
    pub(crate) fn scrub_die_work(&mut self, die: u32) -> Result<bool, SimError> {
        if self.scrub_clean_condemned(die, true)? || self.scrub_next_item(die, true)? || self.scrub_next_scan(die)? {
            return Ok(true);
        }
        let s = self.designs.state_mut::<Scrub>();
        if s.background[die as usize].len() > s.backlog {
            return self.scrub_next_item(die, false);
        }
        Ok(false)
    }

    /// When the die has nothing else to do: background scrubs and their blocks.
    pub(crate) fn scrub_idle_work(&mut self, die: u32) -> Result<bool, SimError> {
        Ok(self.scrub_clean_condemned(die, false)? || self.scrub_next_item(die, false)?)
    }

    /// Completes what `waiter` waited for.
    fn scrub_complete(&mut self, waiter: Waiter) -> Result<(), SimError> {
        match waiter {
            Waiter::None => Ok(()),
            Waiter::Request(slot) => self.finish_sub_request(slot),
            Waiter::Sanitize(id) => self.sanitize_step_done(id),
        }
    }

    /// Starts destroying the next stale page of the die's urgent (or background) queue.
    fn scrub_next_item(&mut self, die: u32, urgent: bool) -> Result<bool, SimError> {
        loop {
            let s = self.designs.state_mut::<Scrub>();
            let queue = if urgent { &mut s.urgent[die as usize] } else { &mut s.background[die as usize] };
            let Some(item) = queue.pop_front() else { return Ok(false) };
            let block = self.ftl.addr.block_of(item.ppn);
            let plane = self.ftl.addr.plane_of(item.ppn);
            match self.scrub_plan(item.ppn) {
                Plan::Done => self.scrub_complete(item.waiter)?,
                Plan::AwaitErase(block, over_budget) => {
                    let s = self.designs.state_mut::<Scrub>();
                    s.erase_waiters.push((block, item.waiter));
                    if !over_budget {
                        s.summary.copies_in_gc_victims += 1;
                    }
                    if !s.condemned[plane as usize].iter().any(|&(b, _)| b == block) {
                        s.condemned[plane as usize].push((block, urgent));
                        s.summary.blocks_condemned += u64::from(over_budget);
                        if let (Waiter::Sanitize(id), true) = (item.waiter, over_budget) {
                            s.sanitizes[id as usize].record.blocks_condemned += 1;
                        }
                    }
                }
                Plan::Relocate(ppn, lpn) => {
                    let s = self.designs.state_mut::<Scrub>();
                    let queue = if urgent { &mut s.urgent[die as usize] } else { &mut s.background[die as usize] };
                    queue.push_front(item);
                    s.summary.shared_pages_relocated += 1;
                    return self.start_same_plane_move(die, plane, ppn, lpn);
                }
                Plan::Scrub(pages) => {
                    let s = self.designs.state_mut::<Scrub>();
                    let tag = s.tag(item.waiter);
                    for &p in &pages {
                        s.mark_scrubbed(p);
                    }
                    s.scrubs[block as usize] += pages.len() as u32;
                    debug_assert!(s.scrubs[block as usize] <= s.budget, "block {block} scrubbed over budget");
                    s.summary.max_scrubs_per_block = s.summary.max_scrubs_per_block.max(s.scrubs[block as usize]);
                    s.summary.pages_scrubbed += pages.len() as u64;
                    s.summary.scrub_commands += 1;
                    self.start_scrub(die, &pages, tag)?;
                    return Ok(true);
                }
            }
        }
    }

    /// What destroying stale page `ppn` takes now.
    fn scrub_plan(&mut self, ppn: Ppn) -> Plan {
        let f = &self.ftl;
        let s = self.designs.state_mut::<Scrub>();
        if s.is_scrubbed(ppn) {
            return Plan::Done;
        }
        debug_assert_eq!(f.page_valid_units(ppn), 0, "page {ppn} to scrub holds valid data");
        let block = f.addr.block_of(ppn);
        let plane = f.addr.plane_of(ppn) as usize;
        let p = &f.planes[plane];
        if p.victim == block || p.next_victim == block {
            return Plan::AwaitErase(block, false);
        }
        if s.condemned[plane].iter().any(|&(b, _)| b == block) {
            return Plan::AwaitErase(block, true);
        }
        let mut pages = vec![ppn];
        if !f.blocks[block as usize].slc {
            let page = f.addr.page_in_block(ppn);
            // A page sharing the cells and not yet programmed is unharmed (a scrub of an
            // LSB page before its MSB page is programmed leaves a valid LSB state).
            pages.extend(
                s.partners[page as usize]
                    .iter()
                    .filter(|&&q| f.is_programmed(block, q))
                    .map(|&q| f.addr.ppn(block, q))
                    .filter(|&q| !s.is_scrubbed(q)),
            );
        }
        if s.scrubs[block as usize] + pages.len() as u32 > s.budget {
            return Plan::AwaitErase(block, true);
        }
        if let Some(&q) = pages[1..].iter().find(|&&q| f.page_valid_units(q) > 0) {
            if f.gc_room_to_spare(plane as u32) == 0 {
                // No page to move it to that GC can spare (a relocation gains GC nothing):
                // the block is relocated and erased (after GC frees room) instead.
                return Plan::AwaitErase(block, true);
            }
            return Plan::Relocate(q, f.page_lpn(q));
        }
        Plan::Scrub(pages)
    }

    /// Pages of `block` that zeroing `targets` would program: they and the programmed,
    /// not yet zeroed pages sharing their cells.
    pub(crate) fn scrub_pages_needed(&mut self, block: u32, targets: &[Ppn]) -> u32 {
        let f = &self.ftl;
        let s = self.designs.state_mut::<Scrub>();
        let mut pages: Vec<u32> = targets.iter().map(|&p| f.addr.page_in_block(p)).collect();
        if !f.blocks[block as usize].slc {
            for &t in targets {
                for &q in &s.partners[f.addr.page_in_block(t) as usize] {
                    if f.is_programmed(block, q) && !s.is_scrubbed(f.addr.ppn(block, q)) {
                        pages.push(q);
                    }
                }
            }
        }
        pages.sort_unstable();
        pages.dedup();
        pages.len() as u32
    }

    /// Scrubs `block` may still take before its next erase.
    pub(crate) fn scrub_budget_left(&mut self, block: u32) -> u32 {
        let s = self.designs.state_mut::<Scrub>();
        s.budget.saturating_sub(s.scrubs[block as usize])
    }

    /// Relocates and erases the next condemned block of the die's planes (those condemned
    /// before user work only, with `urgent`): GC of that block, driven one step at a time
    /// (a victim GC was already cleaning goes first).
    fn scrub_clean_condemned(&mut self, die: u32, urgent: bool) -> Result<bool, SimError> {
        for plane in self.die_planes(die) {
            let s = self.designs.state_mut::<Scrub>();
            let Some(&(block, _)) = s.condemned[plane as usize].iter().find(|&&(_, u)| u || !urgent) else {
                continue;
            };
            let fits = self.ftl.can_clean_now(plane, block);
            if self.ftl.planes[plane as usize].victim == NO_PAGE && !fits {
                // GC could not place the block's valid pages: clean the policy's victim
                // first (it gains room; the condemned block itself has a stale page).
                self.ftl.ensure_victim_gaining_room(plane, self.now);
            }
            if self.ftl.planes[plane as usize].victim == NO_PAGE {
                if !fits {
                    // Still nothing gains room: the block waits for GC to free some. As
                    // the victim now, its moves would take the room GC keeps to finish
                    // victims and leave the plane stalled (an SLC-mode block's pages all
                    // land in normal blocks: swarm seed 110390).
                    continue;
                }
                if self.ftl.blocks[block as usize].state == BlockState::Open {
                    let given_up = self.ftl.close_early(block);
                    let s = self.designs.state_mut::<Scrub>();
                    s.summary.blocks_closed_early += 1;
                    s.summary.pages_given_up += given_up;
                }
                self.ftl
                    .set_victim(plane, block)
                    .map_err(|message| SimError::Invariant { time_ns: self.now, message })?;
            }
            if self.start_gc_step(die, plane, true)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// GC erased `block` (its command starts): its scrub count restarts, its stale copies
    /// are gone. Whoever waited for them waits for the erase to end.
    pub(crate) fn scrub_block_erased(&mut self, block: u32) {
        let a = &self.ftl.addr;
        let (plane, die) = (a.plane_of_block(block), a.die_of_plane(a.plane_of_block(block)) as usize);
        let first = a.ppn(block, 0);
        let pages = a.pages_per_block;
        let of_block = |ppn: Ppn| ppn >= first && ppn < first + pages;
        let s = self.designs.state_mut::<Scrub>();
        s.scrubs[block as usize] = 0;
        for ppn in first..first + pages {
            s.scrubbed[ppn as usize / 64] &= !(1 << (ppn % 64));
        }
        s.condemned[plane as usize].retain(|&(b, _)| b != block);
        for urgent in [true, false] {
            let queue = if urgent { &mut s.urgent[die] } else { &mut s.background[die] };
            let mut kept = VecDeque::with_capacity(queue.len());
            for item in queue.drain(..) {
                if of_block(item.ppn) {
                    s.summary.copies_erased_first += 1;
                    s.erase_waiters.push((block, item.waiter));
                } else {
                    kept.push_back(item);
                }
            }
            *queue = kept;
        }
        self.sanitize_note_erase();
    }

    /// The erase of `block` ended: its waiters are done.
    pub(crate) fn scrub_erase_done(&mut self, block: u32) -> Result<(), SimError> {
        let s = self.designs.state_mut::<Scrub>();
        if s.erase_waiters.is_empty() {
            return Ok(());
        }
        let mut done = Vec::new();
        s.erase_waiters.retain(|&(b, w)| {
            if b == block {
                done.push(w);
            }
            b != block
        });
        for w in done {
            self.scrub_complete(w)?;
        }
        Ok(())
    }

    pub(crate) fn scrub_maintenance_done(&mut self, _kind: TxnKind, tag: u32) -> Result<(), SimError> {
        if tag == NO_REQUEST {
            return Ok(());
        }
        let s = self.designs.state_mut::<Scrub>();
        let Some(i) = s.in_flight.iter().position(|&(t, _)| t == tag) else { return Ok(()) };
        let (_, waiter) = s.in_flight.swap_remove(i);
        self.scrub_complete(waiter)
    }

    pub(crate) fn scrub_summary(&self) -> ScrubSummary {
        let s = self.designs.state::<Scrub>();
        let mut summary = s.summary.clone();
        (summary.remnants_at_end, summary.remnants_at_end_in_gc_victims) = self.scrub_remnants();
        summary.sanitize = s.sanitizes.iter().map(|op| op.record.clone()).collect();
        summary
    }
}

/// The swarm's scrubbing draw (immediate, background or scan; a budget from none to
/// erase-only; a sanitise command from the config or in the trace), where scrubbing is
/// modelled. It shares its stream and roll with the WOM draw (`reprogramming_roll`): a
/// drive gets one of them at most.
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config, records: &mut Vec<ssdlab_trace::Record>) {
    use crate::config::*;
    use crate::swarm::{pick, plain_for_reprogramming, reprogramming_roll};
    use rand::Rng;
    use ssdlab_trace::{Op, Record};
    let (roll, mut rng) = reprogramming_roll(seed);
    let rng = &mut rng;
    if c.cmt.enabled() || c.dir.scheme != DirScheme::Off || roll >= 0.25 {
        // (Cached mapping tables and DIR's flag presets keep their cases.)
        return;
    }
    // (The features scrubbing is not modelled with are dropped from the case.)
    let mut drawn = plain_for_reprogramming(c);
    drawn.scrub.mode = pick(rng, &[ScrubMode::Immediate, ScrubMode::Background, ScrubMode::Scan]);
    let pages = drawn.geometry.pages_per_block;
    drawn.scrub.budget_pages = pick(rng, &[u32::MAX, pages / 2, 8, 2, 0]);
    drawn.scrub.background_backlog_pages = pick(rng, &[4, 64, 1024]);
    let logical = drawn.logical_pages();
    let page = drawn.geometry.page_size_bytes as u64;
    let (first, count) = (rng.random_range(0..logical), rng.random_range(1..=logical.div_ceil(4)));
    let count = count.min(logical - first);
    if drawn.flows.is_empty() && rng.random_bool(0.5) {
        drawn.scrub.sanitize_offset_bytes = first * page;
        drawn.scrub.sanitize_bytes = count * page;
        drawn.scrub.sanitize_at_ns = pick(rng, &[0, 0, 2_000_000, 200_000_000]);
    }
    if drawn.validate().is_ok() {
        *c = drawn;
        if c.flows.is_empty() && !records.is_empty() && rng.random_bool(0.3) {
            let at = rng.random_range(0..records.len());
            let arrival_ns = records[at].arrival_ns;
            let r = Record {
                arrival_ns,
                device: 0,
                offset_bytes: first * page,
                size_bytes: count * page,
                op: Op::Sanitize,
                hint: None,
            };
            records.insert(at, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::PageLayout;

    #[test]
    fn mlc_pairs_share_cells_with_the_page_of_the_other_type_on_their_chain() {
        // Pairs layout (thesis Fig. 7.2A): 0-3 LSB, 4-5 MSB of wordline 0, 6-7 LSB, 8-9 MSB
        // of wordline 1 ... Reprogramming pages 4n, 4n+1 disturbs 4n-6, 4n-5 (thesis
        // §2.3.3): 8 and 9 share the cells of 2 and 3.
        let l = PageLayout::staircase(2, 128, 2);
        let p = cell_partners(&l.types, &l.wordlines);
        assert_eq!(p[0], vec![4]);
        assert_eq!(p[1], vec![5]);
        assert_eq!(p[4], vec![0]);
        assert_eq!(p[8], vec![2]);
        assert_eq!(p[9], vec![3]);
        assert_eq!(p[124], vec![118]);
        assert_eq!(p[127], vec![123]);
        assert!(p.iter().all(|q| q.len() == 1));
    }

    #[test]
    fn tlc_pages_share_cells_with_two_others_and_slc_with_none() {
        let l = PageLayout::staircase(3, 384, 1);
        let p = cell_partners(&l.types, &l.wordlines);
        assert_eq!(p[0], vec![2, 5]);
        assert!(p.iter().all(|q| q.len() == 2));
        let slc = PageLayout::slc(64);
        assert!(cell_partners(&slc.types, &slc.wordlines).iter().all(Vec::is_empty));
    }
}
