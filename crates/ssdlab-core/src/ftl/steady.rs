//! Steady-state preconditioning (SNIA PTS) and the blocks' modelled history: after the
//! fill (`precondition.rs`), writes drawn from the workload's distribution run through
//! the FTL without timing, round after round, with GC by the configured victim policy,
//! until write amplification and the valid-page distribution are steady; then every
//! block written before the run gets an age, as if the drive had been written over time
//! (docs/config.md, "Block ages").
//!
//! What the rounds write (`precondition.steady_state_writes`): a generator's fresh
//! requests (its own seeded stream, `RecordSource::reseeded`), so that the run meets the
//! steady state of the workload's distribution and not of its exact addresses; a
//! trace's own write stream replayed; or requests drawn from a trace's address
//! histogram.

use super::allocation::PlaneAllocator;
use super::precondition::WorkloadFootprint;
use super::{BlockState, Ftl, GcNeed, GcStep, Stream};
use crate::config::Config;
use crate::flash::NO_PAGE;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// SNIA PTS steady-state measurement window: the last this many rounds.
pub const PTS_WINDOW: usize = 5;
/// SNIA PTS: the data excursion (max − min) within the window is at most this share of
/// the window's mean ...
pub const PTS_MAX_EXCURSION: f64 = 0.20;
/// ... and the excursion of the least-squares line across the window at most this share.
pub const PTS_MAX_SLOPE_EXCURSION: f64 = 0.10;
/// The run's WAF is *far* from the steady state's when they differ by more than this
/// share of the steady state's GC share (WAF − 1) ...
pub const FAR_SHARE_OF_GC: f64 = 0.25;
/// ... and by more than this much absolutely (below it, WAFs near 1 are never far).
pub const FAR_MIN_DIFFERENCE: f64 = 0.05;
/// The run is judged against the steady state only if it wrote at least this many
/// blocks' worth of user pages per plane (fewer GC victims say little).
pub const JUDGED_BLOCKS_PER_PLANE: u64 = 2;

/// One logical page of the steady-state write stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageOp {
    Write(u32),
    Trim(u32),
}

impl PageOp {
    fn shifted(self, pages: u32, logical_pages: u32) -> PageOp {
        let at = |lpn: u32| ((lpn as u64 + pages as u64) % logical_pages.max(1) as u64) as u32;
        match self {
            PageOp::Write(lpn) => PageOp::Write(at(lpn)),
            PageOp::Trim(lpn) => PageOp::Trim(at(lpn)),
        }
    }
}

/// What the steady-state rounds write, from the pre-pass.
#[derive(Default)]
pub enum SteadyWrites {
    /// Steady state is off (or the library user gave nothing).
    #[default]
    None,
    /// The workload's writes and trims, page by page, in order, replayed as often as
    /// needed.
    Replay(Vec<PageOp>),
    /// The workload's write and trim requests (first page, pages), drawn uniformly with
    /// replacement on the `steady-state` stream: its address and size histogram.
    Histogram { requests: Vec<(PageOp, u32)>, logical_pages: u32 },
    /// Fresh page operations from the workload's generator on its own stream (unbounded).
    Fresh(Box<dyn Iterator<Item = PageOp>>),
}

impl std::fmt::Debug for SteadyWrites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SteadyWrites::None => write!(f, "None"),
            SteadyWrites::Replay(ops) => write!(f, "Replay({} pages)", ops.len()),
            SteadyWrites::Histogram { requests, .. } => write!(f, "Histogram({} requests)", requests.len()),
            SteadyWrites::Fresh(_) => write!(f, "Fresh"),
        }
    }
}

/// Which writes the steady-state rounds used (the report's `writes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SteadyWritesUsed {
    /// Fresh requests from the workload's generator (synthetic, fio).
    Distribution,
    /// The workload's own write stream: a trace's footprint is its own.
    #[default]
    Replay,
    /// Requests drawn from the workload's address histogram.
    Histogram,
}

/// Rounds of steady-state preconditioning, what they converged to, and whether the run
/// agreed.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SteadyStateReport {
    /// What the rounds wrote.
    pub writes: SteadyWritesUsed,
    /// Rounds run (0 when the workload writes nothing: its state cannot change).
    pub rounds: u32,
    /// Whether the drive is steady: the SNIA PTS criterion held before the round limit
    /// and the run's WAF is not far from the rounds' (`agrees_with_run`, when judged).
    pub converged: bool,
    /// Whether the SNIA PTS criterion held before the round limit.
    pub pts_criterion_met: bool,
    /// Pages written per round (`steady_state_round_fraction` × logical pages).
    pub round_pages: u64,
    /// First round in which GC ran (0 = none); earlier rounds do not count towards the
    /// window.
    pub first_gc_round: u32,
    pub user_pages: u64,
    pub gc_moved_pages: u64,
    pub erases: u64,
    /// Write amplification of each round: (user + GC-moved pages) / user pages.
    pub waf_by_round: Vec<f64>,
    /// Mean WAF of the measurement window (the last `PTS_WINDOW` rounds after the first
    /// with GC; fewer if fewer ran); 1 without GC.
    pub window_waf: f64,
    /// Mean valid fraction of the closed normal blocks after each round.
    pub valid_fraction_by_round: Vec<f64>,
    /// Mean valid fraction of the emptiest tenth of the closed normal blocks (what a
    /// greedy victim choice sees) after each round.
    pub emptiest_decile_by_round: Vec<f64>,
    /// The run's page-program WAF without translation pages, (user + GC programs) /
    /// user programs, as the rounds count it; null if the run wrote too little to judge.
    pub run_waf_pages: Option<f64>,
    /// Whether `run_waf_pages` is near `window_waf` (not *far*: within
    /// `FAR_SHARE_OF_GC` of its GC share or `FAR_MIN_DIFFERENCE`); null if not judged.
    pub agrees_with_run: Option<bool>,
}

impl SteadyStateReport {
    /// Judges the run against the steady state: a run that wrote at least `min_pages`
    /// user pages (`JUDGED_BLOCKS_PER_PLANE` blocks per plane) and whose WAF is far from
    /// the rounds' means the drive was not steady for it.
    pub fn judge_run(&mut self, user_pages: u64, gc_pages: u64, min_pages: u64) {
        if self.rounds == 0 || user_pages == 0 || user_pages < min_pages {
            return;
        }
        let run = (user_pages + gc_pages) as f64 / user_pages as f64;
        let far = (run - self.window_waf).abs() > FAR_MIN_DIFFERENCE.max(FAR_SHARE_OF_GC * (self.window_waf - 1.0));
        self.run_waf_pages = Some(run);
        self.agrees_with_run = Some(!far);
        self.converged = self.pts_criterion_met && !far;
    }

    /// The rounds' WAF series, for the summary: `1.94, 1.26, …`.
    pub fn waf_series(&self) -> String {
        let each: Vec<String> = self.waf_by_round.iter().map(|w| format!("{w:.3}")).collect();
        each.join(", ")
    }

    /// What the report's notes say about the steady state.
    pub fn note(&self, max_rounds: u32) -> String {
        let writes = match self.writes {
            SteadyWritesUsed::Distribution => "fresh requests from the workload's generator",
            SteadyWritesUsed::Replay => {
                "the workload's own write stream replayed (a trace's footprint is its own; \
                 precondition.steady_state_writes = \"histogram\" draws from its address histogram instead)"
            }
            SteadyWritesUsed::Histogram => "requests drawn from the workload's address histogram",
        };
        if self.rounds == 0 {
            return "steady state: the workload writes nothing, so its state is the fill's".to_string();
        }
        let verdict = match (self.pts_criterion_met, self.agrees_with_run) {
            (true, Some(false)) => format!(
                "steady state NOT confirmed: the SNIA PTS criterion held after {} rounds at WAF {:.3}, but the run \
                 measured {:.3}, far from it (more than {:.0} % of WAF − 1 and {FAR_MIN_DIFFERENCE} apart)",
                self.rounds,
                self.window_waf,
                self.run_waf_pages.unwrap_or(0.0),
                FAR_SHARE_OF_GC * 100.0
            ),
            (true, _) => format!("steady state reached after {} rounds (SNIA PTS criterion)", self.rounds),
            (false, _) => format!(
                "steady state NOT reached within {} rounds (precondition.steady_state_max_rounds = {max_rounds}): \
                 results may still drift",
                self.rounds
            ),
        };
        format!("{verdict}; rounds wrote {writes}; WAF by round: {}", self.waf_series())
    }
}

/// Simulated time per host page when the workload's own rate is unknown (closed loop,
/// or every arrival at 0): the flash array's saturation rate, the mean program latency
/// of the page types over the planes, programming in parallel.
pub fn ns_per_page_at_saturation(config: &Config) -> f64 {
    let latencies = &config.flash.program_latency_ns;
    let mean = latencies.iter().sum::<u64>() as f64 / latencies.len().max(1) as f64;
    mean / config.geometry.planes_saturating().max(1) as f64
}

/// Page operations the rounds take from the stream at once, ahead of their turn, so that
/// their mapping entries can be loaded together (`Ftl::touch_ahead`).
const LOOK_AHEAD: usize = 32;

/// The steady-state rounds' page stream over a `SteadyWrites`.
struct WriteStream<'a> {
    writes: &'a mut SteadyWrites,
    cursor: usize,
    /// The request being expanded (histogram): its first page and the pages left.
    pending: Option<(PageOp, u32, u32)>,
    rng: Pcg64Mcg,
    /// Operations taken ahead (`LOOK_AHEAD`), the next one to hand out, and whether the
    /// stream ended (it is not asked again: a generator's stream may not stay ended).
    ahead: Vec<PageOp>,
    at: usize,
    ended: bool,
}

impl WriteStream<'_> {
    /// The next operation, from those taken ahead; a batch of them is taken (and handed
    /// to `touch`, which loads what they will need) whenever the last is used up. The
    /// stream does not depend on the drive's state, so taking ahead changes nothing but
    /// when the operations are drawn.
    fn next_op(&mut self, touch: impl FnOnce(&[PageOp])) -> Option<PageOp> {
        if self.at == self.ahead.len() {
            self.ahead.clear();
            self.at = 0;
            while !self.ended && self.ahead.len() < LOOK_AHEAD {
                match self.next() {
                    Some(op) => self.ahead.push(op),
                    None => self.ended = true,
                }
            }
            touch(&self.ahead);
        }
        let op = *self.ahead.get(self.at)?;
        self.at += 1;
        Some(op)
    }

    fn next(&mut self) -> Option<PageOp> {
        match self.writes {
            SteadyWrites::None => None,
            SteadyWrites::Replay(ops) => {
                let op = *ops.get(self.cursor)?;
                self.cursor = (self.cursor + 1) % ops.len();
                Some(op)
            }
            SteadyWrites::Histogram { requests, logical_pages } => {
                if requests.is_empty() {
                    return None;
                }
                let (first, done, pages) = match self.pending {
                    Some(p) => p,
                    None => {
                        let (first, pages) = requests[self.rng.random_range(0..requests.len())];
                        (first, 0, pages)
                    }
                };
                self.pending = (done + 1 < pages).then_some((first, done + 1, pages));
                Some(first.shifted(done, *logical_pages))
            }
            SteadyWrites::Fresh(ops) => ops.next(),
        }
    }

    fn has_writes(&self, written_pages: u64) -> bool {
        match &*self.writes {
            SteadyWrites::None => false,
            SteadyWrites::Replay(ops) => ops.iter().any(|op| matches!(op, PageOp::Write(_))),
            SteadyWrites::Histogram { requests, .. } => requests.iter().any(|(op, _)| matches!(op, PageOp::Write(_))),
            SteadyWrites::Fresh(_) => written_pages > 0,
        }
    }

    fn used(&self) -> SteadyWritesUsed {
        match &*self.writes {
            SteadyWrites::None | SteadyWrites::Replay(_) => SteadyWritesUsed::Replay,
            SteadyWrites::Histogram { .. } => SteadyWritesUsed::Histogram,
            SteadyWrites::Fresh(_) => SteadyWritesUsed::Distribution,
        }
    }
}

impl Ftl {
    /// SNIA-PTS-style steady state: the footprint's steady-state writes run through the
    /// FTL without timing, `round_pages` pages a round, with GC by the configured victim
    /// policy as the run's foreground GC does it (whenever a plane is at its emergency
    /// threshold: a workload that keeps the drive busy leaves background GC no idle
    /// time), until WAF, the mean valid fraction of the closed blocks and that of their
    /// emptiest tenth each pass the PTS test over the last `PTS_WINDOW` rounds in which GC
    /// ran (excursion within 20% and least-squares excursion within 10% of the window
    /// mean), or the round limit.
    pub(super) fn steady_state(
        &mut self,
        config: &Config,
        planes: &PlaneAllocator,
        footprint: &mut WorkloadFootprint,
    ) -> Result<SteadyStateReport, String> {
        let pc = &config.precondition;
        let round_pages = ((self.logical_pages as f64 * pc.steady_state_round_fraction).round() as u64).max(1);
        let written_pages = footprint.written_pages;
        let mut stream = WriteStream {
            writes: &mut footprint.steady_writes,
            cursor: 0,
            pending: None,
            rng: Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "steady-state")),
            ahead: Vec::with_capacity(LOOK_AHEAD),
            at: 0,
            ended: false,
        };
        let mut report =
            SteadyStateReport { round_pages, writes: stream.used(), window_waf: 1.0, ..SteadyStateReport::default() };
        if !stream.has_writes(written_pages) {
            // Nothing the workload does changes the drive's state.
            report.converged = true;
            report.pts_criterion_met = true;
            return Ok(report);
        }
        // A virtual clock (1 µs per page written) so that age-based victim policies see
        // ages; the fill's blocks get theirs on it first.
        const TICK_NS: u64 = 1000;
        self.stamp_block_ages(TICK_NS as f64, 1.0);
        let mut clock = 0u64;
        // A stream that stops yielding writes (it ended, or only trims come) ends the rounds.
        let mut idle_ops = 0u64;
        'rounds: while report.rounds < pc.steady_state_max_rounds {
            let (moved0, erases0) = (self.counters.gc_moved_pages, self.counters.erases);
            let mut user = 0u64;
            while user < round_pages {
                let Some(op) = stream.next_op(|ops| self.touch_ahead(ops)) else { break 'rounds };
                match op {
                    PageOp::Trim(lpn) => {
                        self.trim(lpn);
                        idle_ops += 1;
                        if idle_ops > 100 * round_pages {
                            break 'rounds;
                        }
                    }
                    PageOp::Write(lpn) => {
                        clock += TICK_NS;
                        self.steady_write(lpn, planes, clock)?;
                        user += 1;
                        idle_ops = 0;
                    }
                }
            }
            report.rounds += 1;
            let moved = self.counters.gc_moved_pages - moved0;
            let erased = self.counters.erases - erases0;
            report.user_pages += user;
            report.gc_moved_pages += moved;
            report.erases += erased;
            if report.first_gc_round == 0 && (moved > 0 || erased > 0) {
                report.first_gc_round = report.rounds;
            }
            report.waf_by_round.push((user + moved) as f64 / user.max(1) as f64);
            let (mean, emptiest) = self.valid_fractions();
            report.valid_fraction_by_round.push(mean);
            report.emptiest_decile_by_round.push(emptiest);
            // The window counts only rounds after the one in which GC first ran.
            if report.first_gc_round > 0 && report.rounds as usize >= report.first_gc_round as usize + PTS_WINDOW {
                let from = report.rounds as usize - PTS_WINDOW;
                if pts_steady(&report.waf_by_round[from..])
                    && pts_steady(&report.valid_fraction_by_round[from..])
                    && pts_steady(&report.emptiest_decile_by_round[from..])
                {
                    report.pts_criterion_met = true;
                    break;
                }
            }
        }
        report.converged = report.pts_criterion_met;
        if report.first_gc_round > 0 {
            let gc_rounds = &report.waf_by_round[report.first_gc_round as usize..];
            let window =
                if gc_rounds.is_empty() { &report.waf_by_round[report.waf_by_round.len() - 1..] } else { gc_rounds };
            let window = &window[window.len().saturating_sub(PTS_WINDOW)..];
            report.window_waf = window.iter().sum::<f64>() / window.len() as f64;
        }
        Ok(report)
    }

    /// Loads the mapping entries of the coming operations' logical pages, then the
    /// reverse entries and blocks of their current copies, each group at once: on a large
    /// drive each is a cache miss, and together they overlap in the memory system where
    /// the writes, one after another, would wait for them one at a time (half the rounds'
    /// time on MQSim's default drive). Changes only what is in the cache: an entry a write
    /// in between changes is loaded again when needed.
    fn touch_ahead(&self, ops: &[PageOp]) {
        if self.sparse.is_some() {
            return;
        }
        let shift = self.unit_shift;
        let lu = |op: &PageOp| match *op {
            PageOp::Write(lpn) | PageOp::Trim(lpn) => (lpn << shift) as usize,
        };
        let mut touched = 0u32;
        for op in ops {
            touched ^= self.dense_map.get(lu(op)).unwrap_or(0);
        }
        for op in ops {
            let pu = self.dense_map.get(lu(op)).unwrap_or(NO_PAGE);
            if pu != NO_PAGE {
                touched ^= self.dense_reverse.get(pu as usize).unwrap_or(0);
                touched ^= self.blocks.get(self.addr.block_of(pu >> shift) as usize).map_or(0, |b| b.valid_pages);
            }
        }
        std::hint::black_box(touched);
    }

    /// One page of the steady-state write stream: into its statically striped plane (the
    /// next plane with room if that one is full of valid data), then GC as the plane needs.
    fn steady_write(&mut self, lpn: u32, planes: &PlaneAllocator, now: u64) -> Result<(), String> {
        let first = planes.home(&self.addr, lpn);
        let total = self.addr.planes();
        for k in 0..total {
            let plane = (first + k) % total;
            if !self.has_normal(plane) {
                continue;
            }
            self.settle_gc(plane, now);
            if let Some(a) = self.allocate_in(plane, Stream::USER, now, 1) {
                self.commit_write(lpn, a.ppn);
                self.settle_gc(plane, now);
                return Ok(());
            }
        }
        Err(format!(
            "precondition.steady_state: no plane can take logical page {lpn}: the drive is full of valid data \
             (lower precondition.used_fraction or raise ftl.over_provisioning)"
        ))
    }

    /// Runs GC on `plane`, one step at a time and instantly, while the plane needs it
    /// urgently (foreground GC).
    fn settle_gc(&mut self, plane: u32, now: u64) {
        while self.gc_need(plane) >= GcNeed::Emergency {
            match self.gc_next_step(plane, now) {
                Some(GcStep::Move { ppn, .. }) => match self.allocate_gc(plane, now) {
                    Some(a) => {
                        self.move_page(ppn, a.ppn);
                    }
                    None => return,
                },
                Some(GcStep::Erase { block }) => self.erase(block),
                None => return,
            }
        }
    }

    /// Mean valid fraction of the closed normal blocks, and that of their emptiest tenth.
    fn valid_fractions(&self) -> (f64, f64) {
        let mut valid: Vec<u32> =
            self.blocks.iter().filter(|b| b.state == BlockState::Closed && !b.slc).map(|b| b.valid_pages).collect();
        if valid.is_empty() {
            return (0.0, 0.0);
        }
        let pages = (self.addr.pages_per_block - self.summary_pages - self.companions_per_block()).max(1) as f64;
        let mean = valid.iter().map(|&v| v as f64).sum::<f64>() / valid.len() as f64 / pages;
        let tenth = valid.len().div_ceil(10);
        valid.select_nth_unstable(tenth - 1);
        let emptiest = valid[..tenth].iter().map(|&v| v as f64).sum::<f64>() / tenth as f64 / pages;
        (mean, emptiest)
    }

    /// The blocks' modelled history (docs/config.md, "Block ages"): a drive
    /// written over time closed its blocks one after another, so the block closed `j`
    /// blocks before the newest was last written `(j + 1)` blocks' worth of flash
    /// programs before the run: `(j + 1) × data pages per block × ns_per_host_page /
    /// waf` (the host writes a page every `ns_per_host_page`, drive-wide, and the flash
    /// programs `waf` pages per host page). Open blocks are being written as the run
    /// starts (age 0). Every stamp before the run is reset to 0: the ages live in
    /// `age_at_start_ns`, which a program or erase in the run clears.
    pub(super) fn stamp_block_ages(&mut self, ns_per_host_page: f64, waf: f64) {
        let data_pages = (self.addr.pages_per_block - self.summary_pages - self.companions_per_block()).max(1);
        let per_block_ns = data_pages as f64 * ns_per_host_page / waf.max(1.0);
        let newest = self.closed_counter;
        for info in self.blocks.iter_mut() {
            info.last_write_ns = 0;
            info.age_at_start_ns = if info.state == BlockState::Closed && info.write_ptr > 0 {
                let j = newest.saturating_sub(info.closed_seq);
                ((j as f64 + 1.0) * per_block_ns).min(u64::MAX as f64 / 4.0) as u64
            } else {
                0
            };
        }
    }
}

/// SNIA PTS steady state of one tracked variable over its measurement window: the data
/// excursion (max − min) is within `PTS_MAX_EXCURSION` of the window mean and the
/// excursion of the least-squares line across the window within `PTS_MAX_SLOPE_EXCURSION`.
/// A window of zeros is steady.
pub fn pts_steady(window: &[f64]) -> bool {
    let n = window.len() as f64;
    let mean = window.iter().sum::<f64>() / n;
    let max = window.iter().copied().fold(f64::MIN, f64::max);
    let min = window.iter().copied().fold(f64::MAX, f64::min);
    if mean.abs() < 1e-12 {
        return max - min < 1e-12;
    }
    let xm = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &y) in window.iter().enumerate() {
        sxy += (i as f64 - xm) * (y - mean);
        sxx += (i as f64 - xm) * (i as f64 - xm);
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    max - min <= PTS_MAX_EXCURSION * mean.abs() && (slope * (n - 1.0)).abs() <= PTS_MAX_SLOPE_EXCURSION * mean.abs()
}
