//! The Harey Tortoise (thesis §7.3): variation-aware scheduling over many write points
//! per chip, without skipping pages.
//!
//! The write points are the FTL's user write points (`ftl.user_write_points` per plane;
//! the thesis' "chip" is our die of one plane). A write takes the write point whose
//! next page is of the speed it prefers, the write points in turn among those that
//! qualify, and any write point in turn when none does (§7.3.1: "the FTL has the choice
//! between several locations to write"). GC writes land in the same user write points
//! (§7.3: "GC writes may land in user write points"), on this die or, with
//! `ftl.gc_destination = "other-chip"`, on another.
//!
//! - **Return to Fast** (§7.3.2): user writes prefer fast pages; GC writes prefer the write
//!   points that are not *ready* — weak: whose next page is slow; strong: whose next page
//!   does not start a run of fast pages. While the device is idle (no request
//!   outstanding), pre-emptive GC moves one page at a time into a write point that is not
//!   ready, on every die, until all are (or nothing can be moved). A GC write when every
//!   write point is ready goes to the plane's GC write point instead (ours: writing it
//!   into a ready write point would undo RTF, and pre-emptive GC redo it, without end).
//! - **Page preference** (§7.3.3): FGC sends GC writes to fast pages and user writes to
//!   slow ones; SGC the reverse.
//! - **Rate matching** (§7.3.3): on a die whose plane is below the background threshold
//!   and has user writes queued, the next operation is a GC step while the die's recent
//!   GC time is below the target ratio × its recent user-write time (`RateWindow`); the
//!   target ratio is Eq. 7.1 over Eq. 7.2 with the latencies the preference gives each
//!   kind of write and the pages a GC of a block moves and frees, measured (our reading:
//!   Eq. 7.2's "0.2 × blockSize" freed pages is the model's 20% over-provisioning; a real
//!   victim frees what it does not move).
//!
//! Page speed: type 0 (the LSB page of a cell) is fast, every other type slow.

pub mod config;

use self::config::{PagePreference, Rtf};
use super::{BuiltIn, Design, Hook, Need};
use crate::config::Config;
use crate::engine::{SimError, Simulator, TxnKind};
use crate::flash::{Ppn, NO_PAGE};
use crate::ftl::{Allocated, Ftl, GcNeed};
use crate::stats::{HareySummary, Report};

/// What a write asks of the write point's next page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    Fast,
    Slow,
    /// RTF's GC writes: a write point not on a fast page (weak) or not at the start of a
    /// run of fast pages (strong).
    NotReady {
        strong: bool,
    },
    Any,
}

/// Whether `page` of a block with page types `types` is what `want` asks for.
pub(crate) fn page_fits(types: &[u8], page: u32, want: Want) -> bool {
    let fast = |p: u32| types[p as usize] == 0;
    match want {
        Want::Fast => fast(page),
        Want::Slow => !fast(page),
        Want::NotReady { strong } => !ready(types, page, strong),
        Want::Any => true,
    }
}

/// RTF's goal for a write point whose next page is `page`.
pub(crate) fn ready(types: &[u8], page: u32, strong: bool) -> bool {
    let fast = |p: u32| types[p as usize] == 0;
    fast(page) && (!strong || page == 0 || !fast(page - 1))
}

/// The write point that takes a write: among `next` (each write point's next page, `None`
/// if it cannot take one), the first from `cursor` on that `want` accepts, else the first
/// usable from `cursor` on. `None` if none is usable.
pub(crate) fn choose_point(types: &[u8], next: &[Option<u32>], cursor: u32, want: Want) -> Option<u32> {
    let n = next.len() as u32;
    let in_turn = (0..n).map(|i| (cursor + i) % n);
    let mut first_usable = None;
    for k in in_turn {
        if let Some(page) = next[k as usize] {
            if page_fits(types, page, want) {
                return Some(k);
            }
            first_usable.get_or_insert(k);
        }
    }
    first_usable
}

/// The chip use ratio's recent history (§7.3.3): GC and user-write busy time of a die,
/// decaying with a time constant.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RateWindow {
    gc_ns: f64,
    user_ns: f64,
    at_ns: u64,
}

impl RateWindow {
    fn decay_to(&mut self, now_ns: u64, window_ns: u64) {
        if now_ns > self.at_ns {
            let k = (-((now_ns - self.at_ns) as f64) / window_ns as f64).exp();
            self.gc_ns *= k;
            self.user_ns *= k;
            self.at_ns = now_ns;
        }
    }

    /// A command of `ns` ended at `now_ns`.
    pub(crate) fn add(&mut self, gc: bool, ns: u64, now_ns: u64, window_ns: u64) {
        self.decay_to(now_ns, window_ns);
        if gc {
            self.gc_ns += ns as f64;
        } else {
            self.user_ns += ns as f64;
        }
    }

    /// Whether the next operation should be GC to bring GC time / user-write time to
    /// `target`.
    pub(crate) fn pick_gc(&self, target: f64) -> bool {
        self.gc_ns < target * self.user_ns
    }

    pub(crate) fn ratio(&self) -> f64 {
        if self.user_ns > 0.0 {
            self.gc_ns / self.user_ns
        } else {
            0.0
        }
    }
}

/// Eq. 7.1 over Eq. 7.2: the chip time GC needs per unit of chip time spent on user
/// writes for the erased pool to hold. A user page write takes `w_ns` and consumes a
/// page; a block's GC moves `moved` pages (`mv_ns` each) and erases (`e_ns`), freeing
/// `freed` pages.
pub(crate) fn target_ratio(w_ns: f64, mv_ns: f64, e_ns: f64, moved: f64, freed: f64) -> f64 {
    let external_bw = 1.0 / w_ns; // pages per ns (Eq. 7.1 / pageSize)
    let gc_bw = freed.max(1.0) / (moved * mv_ns + e_ns); // pages freed per ns (Eq. 7.2 / pageSize)
    external_bw / gc_bw
}

/// What Eq. 7.1 / 7.2 need of the flash, fixed for a run: program times of fast pages,
/// of slow pages (their mean; an SLC drive has none, and its writes are all "fast") and
/// of a block's pages on average, the mean sense, one page's transfer, the erase.
struct Latencies {
    fast: f64,
    slow: f64,
    mean_program: f64,
    mean_read: f64,
    transfer: f64,
    erase: f64,
    pages: f64,
}

impl Latencies {
    fn new(timing: &crate::flash::Timing, types: &[u8]) -> Self {
        fn mean(values: impl Iterator<Item = u64>) -> Option<f64> {
            let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v as f64, n + 1));
            (n > 0).then(|| sum / n as f64)
        }
        let program = |t: &u8| timing.program_ns(*t, false);
        let fast = timing.program_ns(0, false) as f64;
        Latencies {
            fast,
            slow: mean(types.iter().filter(|&&t| t != 0).map(program)).unwrap_or(fast),
            mean_program: mean(types.iter().map(program)).unwrap_or(fast),
            mean_read: mean(types.iter().map(|t| timing.read_ns(*t, false))).unwrap_or(0.0),
            transfer: timing.transfer_ns(1) as f64,
            erase: timing.erase_ns as f64,
            pages: types.len() as f64,
        }
    }

    /// The program time a write wanting `want` gets.
    fn program(&self, want: Want) -> f64 {
        match want {
            Want::Fast | Want::NotReady { .. } => self.fast,
            Want::Slow => self.slow,
            Want::Any => self.mean_program,
        }
    }
}

/// At most `ftl.user_write_points` (validated: 1-32), so a plane's write points are
/// scanned on the stack for every write.
const MAX_POINTS: usize = 32;

pub(crate) struct Harey {
    rtf: Rtf,
    latencies: Latencies,
    preference: PagePreference,
    /// Round-robin cursor of each plane's write points.
    cursor: Vec<u32>,
    windows: Vec<RateWindow>,
    /// Start of each die's current command (for its busy time).
    started_ns: Vec<u64>,
    /// Pages GC moved and blocks it erased, for the measured pages moved per block.
    moved: u64,
    erased: u64,
    /// Programs by kind (user, GC) and speed (fast, slow).
    user_pages: [u64; 2],
    gc_pages: [u64; 2],
    /// Writes that got the speed they preferred (of those with a preference).
    user_preferred: u64,
    gc_preferred: u64,
    preemptive_steps: u64,
    rate_gc_steps: u64,
    rate_decisions: u64,
    target_sum: f64,
}

impl Design for Harey {
    const NAME: &'static str = "harey";
    const HOOKS: &'static [Hook] = &[
        Hook::PairsUserWrites,
        Hook::UserPage,
        Hook::GcPage,
        Hook::GcPageElsewhere,
        Hook::GcMoved,
        Hook::BlockErased,
        Hook::DieWork,
        Hook::IdleWork,
        Hook::DeviceIdle,
        Hook::CommandStarted,
        Hook::CommandEnded,
        Hook::PowerLost,
        Hook::Report,
    ];
    const NEEDS: &'static [Need] =
        &[Need::PagesProgrammedWhole, Need::WholeMapInDram, Need::NoSlcBlocks, Need::PfHybridAllocation];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    /// A write's page is the design's choice of write point, one write at a time.
    fn pairs_user_writes(_sim: &Simulator<'_>) -> bool {
        false
    }

    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        sim.harey_user_page(txn)
    }

    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        sim.harey_gc_page(plane).or_else(|| sim.baseline_gc_page(plane, from))
    }

    fn gc_page_elsewhere(sim: &mut Simulator<'_>, to: u32) -> Option<Allocated> {
        sim.harey_gc_page(to).or_else(|| sim.ftl.allocate_gc(to, sim.now))
    }

    fn gc_moved(sim: &mut Simulator<'_>, pages: u64, _out_of_slc: bool, _cross_plane: bool) {
        sim.harey_gc_moved(pages);
    }

    fn block_erased(sim: &mut Simulator<'_>, _plane: u32, _block: u32, _slc: bool) {
        sim.harey_block_erased();
    }

    fn die_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        sim.harey_die_work(die)
    }

    fn idle_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        sim.harey_idle_work(die)
    }

    fn device_idle(sim: &mut Simulator<'_>) -> Result<(), SimError> {
        sim.harey_device_idle()
    }

    fn command_started(sim: &mut Simulator<'_>, die: u32) {
        sim.harey_command_started(die);
    }

    fn command_ended(sim: &mut Simulator<'_>, die: u32) {
        sim.harey_command_ended(die);
    }

    fn power_lost(sim: &mut Simulator<'_>) {
        sim.designs.state_mut::<Harey>().power_lost();
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.harey = sim.harey_summary();
    }
}

impl BuiltIn for Harey {
    const SECTION: &'static str = "harey";
    const KEY: &'static str = "harey";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::HareyConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::AfterHost;

    fn swarm_draw(seed: u64, config: &mut Config, _records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config);
    }

    fn selected(config: &Config) -> bool {
        config.harey.enabled()
    }

    /// The Harey Tortoise's many write points start above the GC threshold.
    fn prepare_ftl(_config: &Config, ftl: &mut Ftl) {
        ftl.fill_reserves_write_points = true;
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        Harey::new(config, ftl)
    }
}

impl Harey {
    pub(crate) fn new(config: &crate::config::Config, ftl: &crate::ftl::Ftl) -> Self {
        let (planes, dies) = (ftl.addr.planes(), ftl.addr.dies());
        Harey {
            rtf: config.harey.rtf,
            latencies: Latencies::new(&crate::flash::Timing::new(config), &ftl.layout.types),
            preference: config.harey.page_preference,
            cursor: vec![0; planes as usize],
            windows: vec![RateWindow::default(); dies as usize],
            started_ns: vec![0; dies as usize],
            moved: 0,
            erased: 0,
            user_pages: [0; 2],
            gc_pages: [0; 2],
            user_preferred: 0,
            gc_preferred: 0,
            preemptive_steps: 0,
            rate_gc_steps: 0,
            rate_decisions: 0,
            target_sum: 0.0,
        }
    }

    fn user_want(&self) -> Want {
        match (self.rtf, self.preference) {
            (Rtf::Weak | Rtf::Strong, _) | (_, PagePreference::Sgc) => Want::Fast,
            (_, PagePreference::Fgc) => Want::Slow,
            _ => Want::Any,
        }
    }

    fn gc_want(&self) -> Want {
        match (self.rtf, self.preference) {
            (Rtf::Weak, _) => Want::NotReady { strong: false },
            (Rtf::Strong, _) => Want::NotReady { strong: true },
            (_, PagePreference::Sgc) => Want::Slow,
            (_, PagePreference::Fgc) => Want::Fast,
            _ => Want::Any,
        }
    }

    pub(crate) fn power_lost(&mut self) {
        self.windows.iter_mut().for_each(|w| *w = RateWindow::default());
    }
}

impl Simulator<'_> {
    /// Each write point's next page in `plane` (`None`: it cannot take one), in the first
    /// `ftl.user_write_points` slots.
    fn harey_next_pages(&self, plane: u32, reserve: usize) -> [Option<u32>; MAX_POINTS] {
        let mut next = [None; MAX_POINTS];
        for (k, slot) in next[..self.ftl.user_write_points as usize].iter_mut().enumerate() {
            *slot = self.ftl.user_point_next_page(plane, k as u32, reserve);
        }
        next
    }

    /// Takes a page in `plane` for a user (`gc` false) or GC write by the design's choice
    /// of write point.
    fn harey_take(&mut self, plane: u32, gc: bool) -> Option<Allocated> {
        let reserve = if gc { 0 } else { 1 };
        let next = self.harey_next_pages(plane, reserve);
        let h = self.designs.state_mut::<Harey>();
        let want = if gc { h.gc_want() } else { h.user_want() };
        let points = &next[..self.ftl.user_write_points as usize];
        let k = choose_point(&self.ftl.layout.types, points, h.cursor[plane as usize], want)?;
        let fits = page_fits(&self.ftl.layout.types, next[k as usize].expect("usable"), want);
        if gc && !fits && matches!(want, Want::NotReady { .. }) {
            // RTF: every write point is ready; a GC write into one would undo that (and
            // pre-emptive GC would then move more to redo it, round after round), so the
            // data goes to the plane's GC write point.
            let a = self.ftl.allocate_gc_point(plane, self.now)?;
            self.designs.state_mut::<Harey>().gc_pages[usize::from(a.page_type != 0)] += 1;
            return Some(a);
        }
        let a = if gc {
            self.ftl.allocate_user_point_for_gc(plane, k, self.now)?
        } else {
            self.ftl.allocate_user_point(plane, k, self.now)?
        };
        let h = self.designs.state_mut::<Harey>();
        h.cursor[plane as usize] = (k + 1) % self.ftl.user_write_points;
        let slow = usize::from(a.page_type != 0);
        let preferred = u64::from(fits && want != Want::Any);
        if gc {
            h.gc_pages[slow] += 1;
            h.gc_preferred += preferred;
        } else {
            h.user_pages[slow] += 1;
            h.user_preferred += preferred;
        }
        Some(a)
    }

    pub(crate) fn harey_user_page(&mut self, txn: u32) -> Option<Allocated> {
        self.harey_take(self.txns[txn as usize].plane, false)
    }

    pub(crate) fn harey_gc_page(&mut self, plane: u32) -> Option<Allocated> {
        self.harey_take(plane, true)
    }

    /// Whether every usable write point of `plane` is ready (RTF).
    fn harey_all_ready(&self, plane: u32, strong: bool) -> bool {
        let types = &self.ftl.layout.types;
        let next = self.harey_next_pages(plane, 0);
        next[..self.ftl.user_write_points as usize].iter().flatten().all(|&page| ready(types, page, strong))
    }

    /// RTF's pre-emptive GC: on an idle device, a die whose write points are not all
    /// ready moves one page (or erases a cleaned block) towards that.
    pub(crate) fn harey_idle_work(&mut self, die: u32) -> Result<bool, SimError> {
        let strong = match self.designs.state_mut::<Harey>().rtf {
            Rtf::Off => return Ok(false),
            Rtf::Weak => false,
            Rtf::Strong => true,
        };
        if !self.config.harey.preemptive_gc || self.outstanding > 0 || self.host_done {
            return Ok(false);
        }
        for plane in self.die_planes(die) {
            if self.harey_all_ready(plane, strong) {
                continue;
            }
            // Pre-emptive: a victim even when the plane does not need GC.
            self.ftl.ensure_victim_forced(plane, self.now);
            if self.start_gc_step(die, plane, false)? {
                self.designs.state_mut::<Harey>().preemptive_steps += 1;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The device went idle: every die may start pre-emptive GC.
    pub(crate) fn harey_device_idle(&mut self) -> Result<(), SimError> {
        if self.designs.state_mut::<Harey>().rtf == Rtf::Off || !self.config.harey.preemptive_gc {
            return Ok(());
        }
        for die in 0..self.dies.len() as u32 {
            self.kick(die)?;
        }
        Ok(())
    }

    /// Rate matching: a GC step before the die's user writes when the chip use ratio is
    /// below the target.
    pub(crate) fn harey_die_work(&mut self, die: u32) -> Result<bool, SimError> {
        if !self.config.harey.rate_matching || self.dies[die as usize].writes.is_empty() {
            return Ok(false);
        }
        for plane in self.die_planes(die) {
            if self.ftl.gc_need(plane) < GcNeed::Background {
                continue;
            }
            let target = self.harey_target_ratio(plane);
            let h = self.designs.state_mut::<Harey>();
            let mut window = h.windows[die as usize];
            window.decay_to(self.now, self.config.harey.rate_window_ns);
            h.windows[die as usize] = window;
            h.rate_decisions += 1;
            h.target_sum += target;
            if window.pick_gc(target) && self.start_gc_step(die, plane, false)? {
                self.designs.state_mut::<Harey>().rate_gc_steps += 1;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Eq. 7.1 / Eq. 7.2 for `plane` now: latencies by the speed each kind of write
    /// prefers (the mean over a block's pages when it has no preference), the pages moved
    /// per block GC measured so far (before the first erase: the current victim's valid
    /// pages, else half a block).
    fn harey_target_ratio(&self, plane: u32) -> f64 {
        let h = self.designs.state::<Harey>();
        let l = &h.latencies;
        let w = l.program(h.user_want()) + l.transfer;
        let mv = l.mean_read + 2.0 * l.transfer + l.program(h.gc_want());
        let pages = l.pages;
        let moved = if h.erased > 0 {
            h.moved as f64 / h.erased as f64
        } else {
            let victim = self.ftl.planes[plane as usize].victim;
            if victim == NO_PAGE {
                pages / 2.0
            } else {
                self.ftl.blocks[victim as usize].valid_pages as f64
            }
        };
        target_ratio(w, mv, l.erase, moved, pages - moved)
    }

    pub(crate) fn harey_command_started(&mut self, die: u32) {
        self.designs.state_mut::<Harey>().started_ns[die as usize] = self.now;
    }

    /// A command ended on `die`: its busy time joins the die's GC or user-write history.
    pub(crate) fn harey_command_ended(&mut self, die: u32) {
        let first = self.dies[die as usize].command.txns.first().map(|&t| self.txns[t as usize].kind);
        let gc = self.gc_command(die);
        if !gc && first != Some(TxnKind::Write) {
            return;
        }
        let window_ns = self.config.harey.rate_window_ns;
        let now = self.now;
        let h = self.designs.state_mut::<Harey>();
        let ns = now - h.started_ns[die as usize];
        h.windows[die as usize].add(gc, ns, now, window_ns);
    }

    pub(crate) fn harey_gc_moved(&mut self, pages: u64) {
        self.designs.state_mut::<Harey>().moved += pages;
    }

    pub(crate) fn harey_block_erased(&mut self) {
        self.designs.state_mut::<Harey>().erased += 1;
    }

    pub(crate) fn harey_summary(&self) -> Option<HareySummary> {
        let h = self.designs.try_state::<Harey>()?;
        let share = |a: u64, b: u64| if a + b == 0 { 0.0 } else { a as f64 / (a + b) as f64 };
        let ratios: Vec<f64> = h.windows.iter().map(RateWindow::ratio).collect();
        Some(HareySummary {
            rtf: crate::engine::kebab(&h.rtf),
            page_preference: crate::engine::kebab(&h.preference),
            rate_matching: self.config.harey.rate_matching,
            write_points_per_plane: self.ftl.user_write_points,
            user_fast_pages: h.user_pages[0],
            user_slow_pages: h.user_pages[1],
            gc_fast_pages: h.gc_pages[0],
            gc_slow_pages: h.gc_pages[1],
            user_fast_share: share(h.user_pages[0], h.user_pages[1]),
            gc_fast_share: share(h.gc_pages[0], h.gc_pages[1]),
            user_preferred_pages: h.user_preferred,
            gc_preferred_pages: h.gc_preferred,
            preemptive_gc_steps: h.preemptive_steps,
            rate_decisions: h.rate_decisions,
            rate_gc_steps: h.rate_gc_steps,
            mean_target_ratio: if h.rate_decisions == 0 { 0.0 } else { h.target_sum / h.rate_decisions as f64 },
            mean_chip_use_ratio: ratios.iter().sum::<f64>() / ratios.len().max(1) as f64,
            gc_pages_moved_per_erase: if h.erased == 0 { 0.0 } else { h.moved as f64 / h.erased as f64 },
        })
    }
}

/// The Harey Tortoise (thesis §7.3), from a stream of its own: 1-8 user write points per
/// plane that GC writes through, and RTF (weak / strong, with or without pre-emptive GC)
/// or a page preference, with or without rate matching, where the drive allows them.
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config) {
    use crate::config::*;
    use crate::swarm::{pick, plain_page_map};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-harey"));
    // (On drives whose designs the Harey Tortoise composes with: the registry decides, by
    // hooks and claims.)
    let designs = !crate::designs::composes_with(c, Harey::NAME)
        || c.cmt.enabled()
        || c.dir.scheme != DirScheme::Off
        || c.flash.program_scheme == crate::config::ProgramScheme::OneShot;
    if designs || !rng.random_bool(0.5) {
        return;
    }
    let mut drawn = plain_page_map(c);
    drawn.ftl.user_write_points = rng.random_range(1..=8);
    drawn.ftl.gc_through_user_write_points = true;
    if rng.random_bool(0.5) {
        drawn.harey.rtf = pick(rng, &[Rtf::Weak, Rtf::Strong]);
        drawn.harey.preemptive_gc = rng.random_bool(0.8);
    } else {
        drawn.harey.page_preference = pick(rng, &[PagePreference::None, PagePreference::Fgc, PagePreference::Sgc]);
    }
    drawn.harey.rate_matching = rng.random_bool(0.5);
    drawn.harey.rate_window_ns = rng.random_range(1_000_000..=200_000_000);
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MLC pairs layout of Fig. 7.2A on 16 pages.
    fn pairs() -> Vec<u8> {
        let c = crate::config::Flash {
            cell: crate::config::CellType::Mlc,
            layout: crate::config::LayoutKind::Pairs,
            ..Default::default()
        };
        crate::flash::PageLayout::from_config(&c, 16).types
    }

    #[test]
    fn readiness_weak_and_strong() {
        let t = pairs();
        let fast: Vec<u32> = (0..16).filter(|&p| t[p as usize] == 0).collect();
        let first_of_run: Vec<u32> = fast.iter().copied().filter(|&p| p == 0 || t[p as usize - 1] != 0).collect();
        for p in 0..16u32 {
            assert_eq!(ready(&t, p, false), fast.contains(&p), "weak at {p}: {t:?}");
            assert_eq!(ready(&t, p, true), first_of_run.contains(&p), "strong at {p}: {t:?}");
        }
        assert!(first_of_run.len() < fast.len(), "pairs give runs longer than one page: {t:?}");
    }

    #[test]
    fn choice_prefers_the_wanted_speed_then_any_in_turn() {
        let t = vec![0, 1, 0, 1];
        // Write points on pages 1 (slow), 2 (fast), 3 (slow); one cannot take a page.
        let next = [Some(1), Some(2), None, Some(3)];
        assert_eq!(choose_point(&t, &next, 0, Want::Fast), Some(1));
        assert_eq!(choose_point(&t, &next, 0, Want::Slow), Some(0));
        assert_eq!(choose_point(&t, &next, 1, Want::Slow), Some(3));
        assert_eq!(choose_point(&t, &next, 2, Want::Any), Some(3));
        let slow_only = [Some(1), Some(3)];
        assert_eq!(choose_point(&t, &slow_only, 1, Want::Fast), Some(1), "none fast: the next in turn");
        assert_eq!(choose_point(&t, &[None, None], 0, Want::Any), None);
    }

    /// Eq. 7.1 / 7.2 as the thesis writes them: with 0.2 × blockSize freed per block GC,
    /// the target is ExternalWriteBW / GC_BW.
    #[test]
    fn target_ratio_is_eq_7_1_over_eq_7_2() {
        let (page, block) = (4096.0, 128.0 * 4096.0);
        let (w, mv, e, moved) = (1359e3, 40e3 + 253e3, 2871e3, 102.4);
        let external = page / w;
        let gc = 0.2 * block / (moved * mv + e);
        let r = target_ratio(w, mv, e, moved, 0.2 * 128.0);
        assert!((r - external / gc).abs() < 1e-12 * r, "{r} vs {}", external / gc);
    }

    /// Picking GC while the decayed GC time is below target × user time holds the time
    /// ratio at the target (hand-built die: fixed command times, a window much longer
    /// than the run).
    #[test]
    fn rate_matching_holds_the_target_ratio() {
        for target in [0.25, 1.0, 3.5] {
            let mut w = RateWindow::default();
            let (gc_ns, user_ns) = (1_700_000u64, 1_400_000u64);
            let mut now = 0;
            let (mut gc_time, mut user_time) = (0u64, 0u64);
            for _ in 0..20_000 {
                let gc = w.pick_gc(target);
                let ns = if gc { gc_ns } else { user_ns };
                now += ns;
                w.add(gc, ns, now, u64::MAX / 4);
                if gc {
                    gc_time += ns;
                } else {
                    user_time += ns;
                }
            }
            let ratio = gc_time as f64 / user_time as f64;
            assert!((ratio - target).abs() < 0.01 * target, "target {target}: ratio {ratio}");
        }
    }
}
