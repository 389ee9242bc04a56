//! Preconditioning (thesis §4.2.2 rapid warm-up; SNIA PTS steady state): puts the drive
//! in a used state without simulating time, before the run. Everything the run will read
//! is placed here: the pages the workload reads before writing them (its footprint, from
//! a pre-pass) join the `used_fraction` fill, and only then are the random rewrites
//! calibrated so that every plane's free blocks end just above the background GC
//! threshold. Valid data is written in a pseudo-random logical order (so blocks hold a
//! random mix of logical pages); every block is aged to a P/E count. Optionally the
//! workload's own write stream then runs through the FTL, with GC by the configured
//! victim policy, until write amplification and the valid-page distribution are steady.
//!
//! Speed matters here (a 64 GiB drive has 8M pages to place): logical pages are taken in
//! windows of `WINDOW` pages, permuted within the window, and rewrites pick pages of the
//! current window, so mapping-table writes stay in a cache-sized region. A whole-range
//! permutation with random overwrites afterwards was 3–5x slower (cache misses).

use super::allocation::PlaneAllocator;
use super::{BlockState, Ftl, GcNeed, GcStep, Stream};
use crate::config::Config;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const WINDOW: u64 = 1 << 16;

/// SNIA PTS steady-state measurement window: the last this many rounds.
pub const PTS_WINDOW: usize = 5;
/// SNIA PTS: the data excursion (max − min) within the window is at most this share of
/// the window's mean ...
pub const PTS_MAX_EXCURSION: f64 = 0.20;
/// ... and the excursion of the least-squares line across the window at most this share.
pub const PTS_MAX_SLOPE_EXCURSION: f64 = 0.10;

/// One logical page of the workload's write stream (steady-state preconditioning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageOp {
    Write(u32),
    Trim(u32),
}

/// What preconditioning needs to know about the workload, from a pre-pass over it.
#[derive(Clone, Debug, Default)]
pub struct WorkloadFootprint {
    /// Logical pages the workload reads before it writes them, ascending.
    pub read_before_written: Vec<u32>,
    /// The workload's writes and trims, one entry per page, in order (collected only
    /// for steady-state preconditioning).
    pub writes: Vec<PageOp>,
    /// The earliest arrival time of any record (the replay's time base: a trace's first
    /// record is not always its earliest).
    pub earliest_arrival_ns: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PreconditionReport {
    pub valid_pages: u64,
    pub overwritten_pages: u64,
    /// Pages of blocks aged as programmed-but-invalid (`aged_invalid_fraction`).
    pub invalid_pages: u64,
    /// Logical pages the workload reads before writing them (found by the pre-pass).
    pub footprint_pages: u64,
    /// Of those, the pages outside the `used_fraction` fill, placed in addition to it.
    pub footprint_placed: u64,
    /// Pages the write points passed over to start on a random page
    /// (`precondition.write_points_random_start`).
    pub write_point_skipped_pages: u64,
    /// Steady-state preconditioning (`precondition.steady_state`); null when off.
    pub steady_state: Option<SteadyStateReport>,
}

/// Rounds of steady-state preconditioning and what they converged to.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SteadyStateReport {
    /// Rounds run (0 when the workload writes nothing: its state cannot change).
    pub rounds: u32,
    /// Whether the SNIA PTS criterion held before the round limit.
    pub converged: bool,
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
    /// Mean valid fraction of the closed normal blocks after each round.
    pub valid_fraction_by_round: Vec<f64>,
    /// Mean valid fraction of the emptiest tenth of the closed normal blocks (what a
    /// greedy victim choice sees) after each round.
    pub emptiest_decile_by_round: Vec<f64>,
}

impl Ftl {
    /// Fills the drive as `config.precondition` asks, the workload's read-before-written
    /// pages (`footprint`) included. Errors if the data cannot fit above the GC
    /// thresholds, saying how many pages are needed and how many fit.
    pub fn precondition(
        &mut self,
        config: &Config,
        planes: &mut PlaneAllocator,
        footprint: &WorkloadFootprint,
    ) -> Result<PreconditionReport, String> {
        let pc = &config.precondition;
        let mut report = PreconditionReport::default();
        // Per-block wear with a spread, from its own stream ("errors-pe"): the error model's
        // RBER depends on each block's count (issue 13).
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "errors-pe"));
        for info in self.blocks.iter_mut() {
            info.erase_count = if pc.pe_spread > 0.0 && pc.pe_cycles > 0 {
                let u: f64 = rng.random_range(-pc.pe_spread..=pc.pe_spread);
                (pc.pe_cycles as f64 * (1.0 + u)).round() as u32
            } else {
                pc.pe_cycles
            };
        }
        let n_valid = (self.logical_pages as f64 * pc.used_fraction).round() as u64;
        // The fill writes logical pages 0..n_valid; footprint pages above that come on top.
        let extra: Vec<u32> =
            footprint.read_before_written.iter().copied().filter(|&lpn| lpn as u64 >= n_valid).collect();
        report.footprint_pages = footprint.read_before_written.len() as u64;
        report.footprint_placed = extra.len() as u64;
        if n_valid + extra.len() as u64 > 0 {
            self.fill_valid(config, planes, n_valid, &extra, &mut report)?;
        }
        if pc.steady_state {
            let before = self.counters.clone();
            let steady = self.steady_state(config, planes, &footprint.writes)?;
            // The run's GC counters start from zero; wear (erase counts) stays.
            self.counters = before;
            report.steady_state = Some(steady);
        }
        if pc.aged_invalid_fraction > 0.0 {
            self.age_with_invalid_blocks(pc.aged_invalid_fraction, &mut report);
        }
        if pc.slc_filled {
            self.fill_slc(n_valid, &mut report)?;
        }
        if pc.write_points_random_start {
            self.scatter_write_points(config.seed, &mut report);
        }
        Ok(report)
    }

    /// Rapid warm-up's last step (thesis §4.2.2, "the write points begin on a random page
    /// in the write point's assigned block"): each user write point of each plane with
    /// normal blocks opens a block if it has none (and the plane stays above its
    /// background GC threshold) and passes over a uniform number of the data pages it has
    /// left, so that its next page is uniform over them (aligned down to a wordline's first
    /// page). One draw per die and write point: the planes of a die start on the same page,
    /// as a controller that programs a die's planes together keeps them (conventional
    /// multi-plane programs need the same page address in each plane), while dies start
    /// independently, so a request's pages on different dies land on unrelated page types
    /// (DIR §2.5: "each sub-request has a 1/3 chance" of each TLC type).
    /// The pages passed over hold no data (invalid until erase), like the fill's
    /// invalidated pages; they are not counted as the run's wasted pages.
    fn scatter_write_points(&mut self, seed: u64, report: &mut PreconditionReport) {
        let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "warm-up-write-points"));
        // Opening a block must not take a plane to its background threshold (the fill
        // left one block above it, plus one for each write point it did not use).
        let reserve = self.background_free_blocks as usize + 1;
        let per_die = self.addr.planes_per_die;
        for die in 0..self.addr.planes() / per_die {
            let die_planes = die * per_die..(die + 1) * per_die;
            for k in 0..self.user_write_points {
                let stream = Stream::user(k);
                // The die's planes with a block open for this write point, and where the
                // furthest of them stands: the common start is drawn beyond it.
                let mut from = 0;
                let mut data_end = u32::MAX;
                let mut any = false;
                for plane in die_planes.clone() {
                    if !self.has_normal(plane)
                        || (self.active_room(plane, stream) == 0 && !self.open_block(plane, stream, reserve))
                    {
                        continue;
                    }
                    let block = self.planes[plane as usize].active[stream.index()];
                    from = from.max(self.blocks[block as usize].write_ptr);
                    data_end = data_end.min(self.pages_in_block(block) - self.summary_pages_in(block));
                    any = true;
                }
                if !any || from >= data_end {
                    continue;
                }
                let mut target = rng.random_range(from..data_end);
                let wordlines = &self.layout.wordlines;
                while target > from && wordlines[target as usize - 1] == wordlines[target as usize] {
                    target -= 1;
                }
                for plane in die_planes.clone() {
                    if !self.has_normal(plane) || self.active_room(plane, stream) == 0 {
                        continue;
                    }
                    let block = self.planes[plane as usize].active[stream.index()];
                    let start = self.blocks[block as usize].write_ptr;
                    // (Page by page: a page can bring a companion or summary page along.)
                    while self.blocks[block as usize].state == BlockState::Open
                        && self.blocks[block as usize].write_ptr < target
                    {
                        self.take_page(block, 0);
                    }
                    report.write_point_skipped_pages += (self.blocks[block as usize].write_ptr - start) as u64;
                }
            }
        }
    }

    /// The state the run starts in, per plane, with notes on what to expect from it.
    pub fn start_state(&self, config: &Config, report: &PreconditionReport) -> crate::stats::StartState {
        use crate::stats::{PerPlane, StartState};
        let planes = self.addr.planes();
        let mut valid = vec![0u64; planes as usize];
        let mut programmed = vec![0u64; planes as usize];
        let mut free = vec![0u64; planes as usize];
        for (b, info) in self.blocks.iter().enumerate() {
            let plane = self.addr.plane_of_block(b as u32) as usize;
            valid[plane] += info.valid_pages as u64;
            programmed[plane] += info.write_ptr as u64;
            free[plane] += (self.pages_in_block(b as u32) - info.write_ptr) as u64;
        }
        let normal: Vec<u32> = (0..planes).filter(|&p| self.has_normal(p)).collect();
        let above =
            |threshold: u32| normal.iter().map(|&p| self.free_blocks(p) as i64 - threshold as i64).min().unwrap_or(0);
        let planes_needing_gc = (0..planes).filter(|&p| self.gc_need(p) != GcNeed::None).count() as u32;
        let mut notes = Vec::new();
        if report.invalid_pages > 0 {
            notes.push(format!(
                "aged SSDSim-style (precondition.aged_invalid_fraction = {}): {} pages of whole blocks hold only invalid \
                 data and planes sit at their GC threshold, so GC may reclaim those blocks (erases, no moves) even in \
                 idle time or a run without writes; that is the aging model (PA-SSD), not an artefact",
                config.precondition.aged_invalid_fraction, report.invalid_pages
            ));
        }
        if planes_needing_gc > 0 && report.invalid_pages == 0 {
            notes.push(format!(
                "{planes_needing_gc} plane(s) need GC when the run starts{}",
                if config.precondition.slc_filled { " (the SLC cache is full: its data migrates)" } else { "" }
            ));
        }
        if let Some(steady) = &report.steady_state {
            notes.push(if steady.rounds == 0 {
                "steady state: the workload writes nothing, so its state is the fill's".to_string()
            } else if steady.converged {
                format!("steady state reached after {} rounds (SNIA PTS criterion)", steady.rounds)
            } else {
                format!(
                    "steady state NOT reached within {} rounds (precondition.steady_state_max_rounds): results may \
                     still drift",
                    steady.rounds
                )
            });
        }
        StartState {
            valid_pages: PerPlane::of(valid.iter().copied()),
            invalid_pages: PerPlane::of(programmed.iter().zip(&valid).map(|(p, v)| p - v)),
            free_pages: PerPlane::of(free.iter().copied()),
            free_blocks: PerPlane::of(normal.iter().map(|&p| self.free_blocks(p) as u64)),
            background_gc_free_blocks: self.background_free_blocks,
            emergency_gc_free_blocks: self.emergency_free_blocks,
            min_blocks_above_background: above(self.background_free_blocks),
            min_blocks_above_emergency: above(self.emergency_free_blocks),
            planes_needing_gc,
            notes,
        }
    }

    /// Fills every SLC-mode block with valid data: logical pages from `first_lpn` on,
    /// dealt to the planes in turn.
    fn fill_slc(&mut self, first_lpn: u64, report: &mut PreconditionReport) -> Result<(), String> {
        let mut lpn = first_lpn;
        loop {
            let mut placed = false;
            for plane in 0..self.addr.planes() {
                if self.slc_blocks[plane as usize] == 0 {
                    continue;
                }
                // Pages the workload reads before writing are already placed.
                while lpn < self.logical_pages as u64 && self.is_mapped(lpn as u32) {
                    lpn += 1;
                }
                if lpn >= self.logical_pages as u64 {
                    return Err(format!(
                        "precondition.slc_filled: the SLC blocks hold more pages than the {} logical pages left \
                         after used_fraction and the workload's read footprint",
                        self.logical_pages as u64
                            - first_lpn
                            - report.footprint_placed.min(self.logical_pages as u64 - first_lpn)
                    ));
                }
                if let Some(a) = self.allocate_in(plane, Stream::SLC, 0, 0) {
                    self.commit_write(lpn as u32, a.ppn);
                    lpn += 1;
                    report.valid_pages += 1;
                    placed = true;
                }
            }
            if !placed {
                return Ok(());
            }
        }
    }

    /// SSDSim's `make_aged`: whole free blocks become programmed-but-invalid until
    /// `fraction` of each plane's normal blocks are in use (never below the emergency
    /// reserve plus two write points).
    fn age_with_invalid_blocks(&mut self, fraction: f64, report: &mut PreconditionReport) {
        let per_type = self.layout.pages_per_type(self.bits_per_cell);
        let pages = self.layout.pages();
        let keep_free = (self.normal_blocks_per_plane as f64 * (1.0 - fraction)).ceil() as usize;
        let keep_free = keep_free.max(self.emergency_free_blocks as usize + 2);
        for plane in 0..self.planes.len() {
            while self.planes[plane].free.len() > keep_free {
                let block = self.planes[plane].free.pop_front().expect("non-empty");
                let info = &mut self.blocks[block as usize];
                info.state = BlockState::Closed;
                info.write_ptr = pages;
                if self.gc_counts_pages {
                    self.planes[plane].free_pages -= pages as u64;
                }
                for (t, n) in per_type.iter().enumerate() {
                    info.programmed_by_type[t] = *n as u16;
                    self.free_pages_by_type[t] -= *n as u64;
                }
                self.closed_counter += 1;
                info.closed_seq = self.closed_counter;
                report.invalid_pages += pages as u64;
            }
        }
    }

    fn fill_valid(
        &mut self,
        config: &Config,
        planes: &mut PlaneAllocator,
        n_valid: u64,
        extra: &[u32],
        report: &mut PreconditionReport,
    ) -> Result<(), String> {
        let pc = &config.precondition;
        let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "precondition"));
        // Static striping depends only on lpn mod planes (without zones): tabulate it once.
        let plane_count = self.addr.planes();
        let plane_of_residue: Vec<u32> = (0..plane_count).map(|r| planes.striped(&self.addr, r as u64)).collect();
        // Rewrites per valid page so that the fill ends at the background threshold.
        // (Blocks already open — a cached mapping table's translation pages — are not
        // the fill's.)
        let data_pages = (self.addr.pages_per_block - self.summary_pages - self.companions_per_block()) as u64;
        // The fill writes through one user write point; with `fill_reserves_write_points`
        // (the Harey Tortoise's runs) the others, which open a block each on their first
        // write, are left free blocks above the threshold too (else a drive with many
        // write points starts below it and cleans a block per write point first).
        let open_later = if self.fill_reserves_write_points { self.user_write_points.saturating_sub(1) } else { 0 };
        let limit = self.background_free_blocks + 1 + open_later;
        let writable: u64 = (0..plane_count)
            .filter(|&p| self.has_normal(p))
            .map(|p| self.free_blocks(p).saturating_sub(limit) as u64 * data_pages)
            .sum();
        // The fill: logical pages 0..n_valid, then the footprint pages above them.
        let total = n_valid + extra.len() as u64;
        let does_not_fit = |placed: u64| {
            format!(
                "precondition.used_fraction = {} does not fit with the workload's read footprint: the fill needs {total} \
                 pages ({n_valid} for used_fraction, {} more that the workload reads before writing them) but only \
                 {writable} fit above the GC thresholds (every plane reached its threshold after {placed} pages)",
                pc.used_fraction,
                extra.len()
            )
        };
        if total > writable {
            return Err(does_not_fit(0).replace(" (every plane reached its threshold after 0 pages)", ""));
        }
        let rewrite_rate = if pc.fill_invalid_to_gc_threshold && n_valid > 0 {
            writable.saturating_sub(total) as f64 / total as f64
        } else {
            0.0
        };
        let lpn_of = |k: u64| if k < n_valid { k as u32 } else { extra[(k - n_valid) as usize] };
        let mut credit = 0.0f64;
        let mut window_start = 0u64;
        while window_start < total {
            let len = WINDOW.min(total - window_start);
            let stride = coprime_stride(len, &mut rng);
            let offset = rng.random_range(0..len);
            let lpn_at = |i: u64| lpn_of(window_start + (i * stride + offset) % len);
            for i in 0..len {
                let lpn = lpn_at(i);
                let plane = if planes.has_zones() {
                    planes.home(&self.addr, lpn)
                } else {
                    plane_of_residue[(lpn % plane_count) as usize]
                };
                if !self.place_in(lpn, plane, limit) {
                    self.place(lpn, planes, limit).map_err(|_| does_not_fit(report.valid_pages))?;
                }
                report.valid_pages += 1;
                credit += rewrite_rate;
                while credit >= 1.0 {
                    credit -= 1.0;
                    let old = lpn_at(rng.random_range(0..=i));
                    let old_plane = self.addr.plane_of(self.lookup(old).expect("placed above"));
                    if self.place_in(old, old_plane, limit) {
                        report.overwritten_pages += 1;
                    }
                }
            }
            window_start += len;
        }
        Ok(())
    }

    /// SNIA-PTS-style steady state: the workload's write stream (`writes`, replayed as
    /// often as needed) runs through the FTL without timing, `round_pages` pages a round,
    /// with GC by the configured victim policy whenever a plane needs it, until WAF, the
    /// mean valid fraction of the closed blocks and that of their emptiest tenth each pass
    /// the PTS test over the last `PTS_WINDOW` rounds in which GC ran (excursion within
    /// 20% and least-squares excursion within 10% of the window mean), or the round limit.
    fn steady_state(
        &mut self,
        config: &Config,
        planes: &PlaneAllocator,
        writes: &[PageOp],
    ) -> Result<SteadyStateReport, String> {
        let pc = &config.precondition;
        let round_pages = ((self.logical_pages as f64 * pc.steady_state_round_fraction).round() as u64).max(1);
        let mut report = SteadyStateReport { round_pages, ..SteadyStateReport::default() };
        if !writes.iter().any(|op| matches!(op, PageOp::Write(_))) {
            // Nothing the workload does changes the drive's state.
            report.converged = true;
            return Ok(report);
        }
        // A virtual clock (1 µs per page written) so that age-based victim policies see
        // ages; block ages restart at 0 when the run starts, as after the rapid fill.
        let mut clock = 0u64;
        let mut cursor = 0usize;
        while report.rounds < pc.steady_state_max_rounds {
            let (moved0, erases0) = (self.counters.gc_moved_pages, self.counters.erases);
            let mut user = 0u64;
            while user < round_pages {
                let op = writes[cursor];
                cursor = (cursor + 1) % writes.len();
                match op {
                    PageOp::Trim(lpn) => self.trim(lpn),
                    PageOp::Write(lpn) => {
                        clock += 1000;
                        self.steady_write(lpn, planes, clock)?;
                        user += 1;
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
            report.waf_by_round.push((user + moved) as f64 / user as f64);
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
                    report.converged = true;
                    break;
                }
            }
        }
        for info in self.blocks.iter_mut() {
            info.last_write_ns = 0;
        }
        Ok(report)
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

    /// Runs GC on `plane`, one step at a time and instantly, while the plane needs it.
    fn settle_gc(&mut self, plane: u32, now: u64) {
        while self.gc_need(plane) != GcNeed::None {
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

    /// Writes `lpn` into `plane` unless that would take the plane to `limit` free blocks.
    fn place_in(&mut self, lpn: u32, plane: u32, limit: u32) -> bool {
        if self.free_blocks(plane) <= limit && self.active_room(plane, Stream::USER) == 0 {
            return false;
        }
        match self.allocate_in(plane, Stream::USER, 0, 1) {
            Some(a) => {
                self.commit_write(lpn, a.ppn);
                true
            }
            None => false,
        }
    }

    /// Places `lpn` on flash instantly (no simulated time): used by preconditioning and
    /// by reads of never-written pages under `unwritten_reads = "precondition"`.
    /// Planes are filled down to `limit` free blocks at most.
    pub fn place(&mut self, lpn: u32, planes: &mut PlaneAllocator, limit: u32) -> Result<(), NoRoom> {
        let first = planes.home(&self.addr, lpn);
        let total = self.addr.planes();
        // Static placement first; if that plane is full, the next planes in order.
        for k in 0..total {
            let plane = (first + k) % total;
            if self.relaxed.is_some() {
                if !self.gc_room_after_one(plane) {
                    continue;
                }
                // Under PA's constraints: the type with the most free pages.
                let want = (0..self.bits_per_cell).max_by_key(|&t| (self.free_pages_by_type[t], usize::MAX - t));
                if let Some((a, _)) = self.allocate_typed(plane, want.unwrap_or(0) as u8, limit as usize, 0) {
                    self.commit_write(lpn, a.ppn);
                    return Ok(());
                }
                continue;
            }
            if self.free_blocks(plane) <= limit && self.active_user_full(plane) {
                continue;
            }
            // Preconditioned data lives in normal blocks, never in the SLC cache.
            if let Some(a) = self.allocate_in(plane, Stream::USER, 0, 1) {
                self.commit_write(lpn, a.ppn);
                return Ok(());
            }
        }
        Err(NoRoom)
    }

    fn active_user_full(&self, plane: u32) -> bool {
        let b = self.planes[plane as usize].active[Stream::USER.index()];
        b == crate::flash::NO_PAGE
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

/// Every plane is full down to its GC threshold: nothing more can be placed instantly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoRoom;

fn coprime_stride(n: u64, rng: &mut Pcg64Mcg) -> u64 {
    fn gcd(mut a: u64, mut b: u64) -> u64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    if n <= 2 {
        return 1;
    }
    loop {
        let s = rng.random_range(n / 3..n);
        if gcd(s, n) == 1 {
            return s;
        }
    }
}
