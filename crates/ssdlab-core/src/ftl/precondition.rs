//! Preconditioning (thesis §4.2.2 rapid warm-up; SNIA PTS steady state): puts the drive
//! in a used state without simulating time, before the run. Everything the run will read
//! is placed here: the pages the workload reads before writing them (its footprint, from
//! a pre-pass) join the `used_fraction` fill, and only then are the random rewrites
//! calibrated so that every plane's free blocks end just above the background GC
//! threshold. Valid data is written in a pseudo-random logical order (so blocks hold a
//! random mix of logical pages); every block is aged to a P/E count. Optionally writes
//! drawn from the workload's distribution then run through the FTL, with GC by the
//! configured victim policy, until write amplification and the valid-page distribution
//! are steady (`steady.rs`). Last, every block written gets an age (`steady.rs`).
//!
//! Speed matters here (a 64 GiB drive has 8M pages to place): logical pages are taken in
//! windows of `WINDOW` pages, permuted within the window, and rewrites pick pages of the
//! current window, so mapping-table writes stay in a cache-sized region. A whole-range
//! permutation with random overwrites afterwards was 3–5x slower (cache misses).

use super::allocation::PlaneAllocator;
use super::{BlockState, Ftl, GcNeed, Stream};
use crate::config::Config;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const WINDOW: u64 = 1 << 16;

pub use super::steady::{pts_steady, PageOp, SteadyStateReport, SteadyWrites, PTS_WINDOW};

/// A set of logical pages, taken in ascending order: a list while it is smaller than a
/// bitmap over the drive's logical pages, else that bitmap. The pre-pass chooses, so the
/// footprint's memory stops growing with the workload's length: a list of every page read
/// before written took 4 bytes a page, the run's peak RSS on MQSim's default drive growing
/// about 1 byte a request past a few million requests.
#[derive(Debug)]
pub enum PageSet {
    /// Distinct pages, ascending.
    List(Vec<u32>),
    /// Page `p` is in the set when bit `p % 64` of `words[p / 64]` is set; `len` pages are.
    Bits { words: Vec<u64>, len: u64 },
}

impl Default for PageSet {
    fn default() -> Self {
        PageSet::List(Vec::new())
    }
}

impl PageSet {
    /// Pages in the set.
    pub fn len(&self) -> u64 {
        match self {
            PageSet::List(pages) => pages.len() as u64,
            PageSet::Bits { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pages from `first` on, ascending.
    pub fn iter_from(&self, first: u64) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            PageSet::List(pages) => {
                let start = pages.partition_point(|&p| (p as u64) < first);
                Box::new(pages[start..].iter().copied())
            }
            PageSet::Bits { words, .. } => Box::new(Self::words_from(words, first).flat_map(move |(w, word)| {
                let mut rest = word;
                std::iter::from_fn(move || {
                    (rest != 0).then(|| {
                        let bit = rest.trailing_zeros();
                        rest &= rest - 1;
                        (w * 64) as u32 + bit
                    })
                })
            })),
        }
    }

    /// Pages from `first` on.
    pub fn count_from(&self, first: u64) -> u64 {
        match self {
            PageSet::List(pages) => (pages.len() - pages.partition_point(|&p| (p as u64) < first)) as u64,
            PageSet::Bits { words, .. } => {
                Self::words_from(words, first).map(|(_, word)| word.count_ones() as u64).sum()
            }
        }
    }

    /// The bitmap's words from page `first`'s on, with their index; the first without the
    /// bits of the pages below `first`.
    fn words_from(words: &[u64], first: u64) -> impl Iterator<Item = (usize, u64)> + '_ {
        let w0 = (first / 64) as usize;
        let below = (1u64 << (first % 64)) - 1;
        words.iter().enumerate().skip(w0).map(move |(w, &word)| (w, if w == w0 { word & !below } else { word }))
    }
}

/// What preconditioning needs to know about the workload, from a pre-pass over it.
#[derive(Debug, Default)]
pub struct WorkloadFootprint {
    /// Logical pages the workload reads before it writes them (emptied once placed).
    pub read_before_written: PageSet,
    /// What steady-state preconditioning writes (empty when it is off).
    pub steady_writes: SteadyWrites,
    /// Pages the workload writes (the pre-pass's count; 0 when no pre-pass ran).
    pub written_pages: u64,
    /// The earliest arrival time of any record (the replay's time base: a trace's first
    /// record is not always its earliest).
    pub earliest_arrival_ns: Option<u64>,
    /// Simulated time per page the host writes, drive-wide: the clock of the blocks'
    /// modelled history before the run (`Ftl::stamp_block_ages`). 0 = unknown (then the
    /// flash's saturation rate, `ns_per_page_at_saturation`).
    pub ns_per_written_page: f64,
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
    /// The clock of the blocks' modelled history (block ages, docs/config.md, "Block ages"):
    /// simulated ns per page the host writes; 0 when nothing was placed.
    pub history_ns_per_page: f64,
}

impl Ftl {
    /// Fills the drive as `config.precondition` asks, the workload's read-before-written
    /// pages (`footprint`) included. Errors if the data cannot fit above the GC
    /// thresholds, saying how many pages are needed and how many fit.
    pub fn precondition(
        &mut self,
        config: &Config,
        planes: &mut PlaneAllocator,
        footprint: &mut WorkloadFootprint,
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
        let extra = footprint.read_before_written.count_from(n_valid);
        report.footprint_pages = footprint.read_before_written.len();
        report.footprint_placed = extra;
        if n_valid + extra > 0 {
            self.fill_valid(config, planes, n_valid, (&footprint.read_before_written, extra), &mut report)?;
        }
        footprint.read_before_written = PageSet::default();
        let mut waf = 1.0;
        if pc.steady_state {
            let before = self.counters.clone();
            // Steady state rewrites the whole drive: under `auto` it runs on the dense table.
            if self.sparse.as_ref().is_some_and(|s| s.auto) {
                self.densify();
            }
            let steady = self.steady_state(config, planes, footprint)?;
            // The run's GC counters start from zero; wear (erase counts) stays.
            self.counters = before;
            waf = steady.window_waf.max(1.0);
            report.steady_state = Some(steady);
        }
        if pc.aged_invalid_fraction > 0.0 {
            self.age_with_invalid_blocks(pc.aged_invalid_fraction, &mut report);
        }
        if pc.slc_filled {
            self.fill_slc(n_valid, &mut report)?;
        }
        if report.valid_pages > 0 || report.steady_state.is_some() {
            let ns_per_page = if footprint.ns_per_written_page > 0.0 {
                footprint.ns_per_written_page
            } else {
                super::steady::ns_per_page_at_saturation(config)
            };
            report.history_ns_per_page = ns_per_page;
            self.stamp_block_ages(ns_per_page, waf);
        }
        if pc.write_points_random_start {
            self.scatter_write_points(config.seed, &mut report);
        }
        self.rebuild_gc_keys();
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
            notes.push(steady.note(config.precondition.steady_state_max_rounds));
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
        (footprint, extra): (&PageSet, u64),
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
        let total = n_valid + extra;
        let does_not_fit = |placed: u64| {
            format!(
                "precondition.used_fraction = {} does not fit with the workload's read footprint: the fill needs {total} \
                 pages ({n_valid} for used_fraction, {} more that the workload reads before writing them) but only \
                 {writable} fit above the GC thresholds (every plane reached its threshold after {placed} pages)",
                pc.used_fraction,
                extra
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
        // A dense page map without per-page state at program time: pages go in by
        // `place_plain` while the open block has room.
        let plain = self.sparse.is_none()
            && self.unit_shift == 0
            && self.wear.is_none()
            && self.program_seq.is_empty()
            && self.companions.is_none()
            && self.summary_pages == 0
            && !self.gc_counts_pages
            && self.oob.is_none()
            && self.versions.is_none()
            && self.relaxed.is_none();
        // With no user page mapped yet and the fill's pages distinct (the footprint's
        // pages above `0..n_valid`, ascending), a page the loop below places first has no old
        // entry: `place_plain` then writes its map entry without reading it first. A read
        // of a map page never touched maps the kernel's zero page and the write after it
        // faults again to copy it, so reading first took two page faults per page of
        // the map instead of one (MQSim's default drive: 61,000 pages of map, each
        // first touched by this loop; issue 48, setup).
        let fresh = plain && self.no_user_page_mapped();
        let mut credit = 0.0f64;
        // The sparse table places the first full windows by rule (`fill_rule.rs`), with
        // the same draws; under `auto`, a fill it cannot place is placed dense.
        let shift = match config.ftl.fill_window_log2 {
            0 => WINDOW.trailing_zeros(),
            n => (n as u32).min(WINDOW.trailing_zeros()),
        };
        let window = 1u64 << shift;
        let ruled = if rewrite_rate > 0.0 {
            // (Draws the windows it places, and leaves the stream where they end.)
            self.fill_rewrites_by_rule(
                planes,
                &plane_of_residue,
                shift,
                n_valid,
                limit,
                rewrite_rate,
                &mut rng,
                &mut credit,
                report,
            )
        } else {
            let ruled = self.rule_windows(planes, &plane_of_residue, shift, n_valid, limit);
            if ruled > 0 {
                let draws: Vec<(u64, u64)> = (0..ruled)
                    .map(|_| {
                        let stride = coprime_stride(window, &mut rng);
                        (stride, rng.random_range(0..window))
                    })
                    .collect();
                self.fill_by_rule(shift, &draws, plane_of_residue.clone());
                report.valid_pages += ruled << shift;
            }
            ruled
        };
        if ruled == 0 && self.sparse.as_ref().is_some_and(|s| s.auto) && total > 4 * window {
            self.densify();
        }
        let mut window_start = ruled << shift;
        // The footprint's pages of each window are taken in order into a window-sized
        // buffer: the fill needs them by rank, and a list of them all grew with the workload.
        let mut extras = footprint.iter_from(n_valid).skip(window_start.saturating_sub(n_valid) as usize);
        let mut window_extras: Vec<u32> = Vec::new();
        while window_start < total {
            let len = window.min(total - window_start);
            let first_extra = window_start.max(n_valid);
            window_extras.clear();
            window_extras.extend(extras.by_ref().take((window_start + len).saturating_sub(first_extra) as usize));
            let lpn_of = |k: u64| if k < n_valid { k as u32 } else { window_extras[(k - first_extra) as usize] };
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
                let placed = (plain && self.place_plain(lpn, plane, fresh)) || self.place_in(lpn, plane, limit);
                if !placed {
                    self.place(lpn, planes, limit).map_err(|_| does_not_fit(report.valid_pages))?;
                }
                report.valid_pages += 1;
                credit += rewrite_rate;
                while credit >= 1.0 {
                    credit -= 1.0;
                    let old = lpn_at(rng.random_range(0..=i));
                    let old_plane = self.addr.plane_of(self.lookup(old).expect("placed above"));
                    if (plain && self.place_plain(old, old_plane, false)) || self.place_in(old, old_plane, limit) {
                        report.overwritten_pages += 1;
                    }
                }
            }
            window_start += len;
        }
        Ok(())
    }

    /// True when the only pages mapped are translation pages (a cached mapping table's,
    /// placed before the fill): the valid units of every plane are theirs.
    fn no_user_page_mapped(&self) -> bool {
        let first = self.logical_pages as usize;
        let translation =
            self.dense_map.range(first..self.dense_map.len()).filter(|&p| p != crate::flash::NO_PAGE).count();
        self.plane_valid_units.iter().sum::<u64>() == translation as u64
    }

    /// `place_in` where the plane's open user block has room for more than this page,
    /// with what `take_page` and `commit_write` then do for a dense page map without
    /// per-page state (`plain` in `fill_valid`), inlined: through them a page cost about
    /// 340 instructions (dev-opt), most of a 4 TiB default fill's setup. False: nothing
    /// done, `place_in` decides (it opens and closes blocks). `first`: `lpn` is known to
    /// have no entry yet (`fill_valid`'s `fresh`).
    #[inline]
    fn place_plain(&mut self, lpn: u32, plane: u32, first: bool) -> bool {
        let block = self.planes[plane as usize].active[Stream::USER.index()];
        if block == crate::flash::NO_PAGE {
            return false;
        }
        let pages = self.layout.pages();
        let info = &mut self.blocks[block as usize];
        let page = info.write_ptr;
        if info.slc || page + 1 >= pages {
            return false;
        }
        // `take_page` at time 0, a page that neither closes the block nor brings a
        // companion or summary page along.
        info.write_ptr = page + 1;
        info.last_write_ns = 0;
        info.age_at_start_ns = 0;
        let t = self.layout.types[page as usize] as usize;
        info.programmed_by_type[t] += 1;
        self.free_pages_by_type[t] -= 1;
        // `commit_units` of a page map.
        let ppn = self.addr.ppn(block, page);
        let old = if first {
            crate::flash::NO_PAGE
        } else {
            self.dense_map.get(lpn as usize).unwrap_or(crate::flash::NO_PAGE)
        };
        if old != crate::flash::NO_PAGE {
            self.invalidate_unit(old);
        }
        let placed = self.dense_map.set(lpn as usize, ppn) & self.dense_reverse.set(ppn as usize, lpn);
        debug_assert!(placed, "logical page {lpn} and page {ppn} are within the dense tables");
        let info = &mut self.blocks[block as usize];
        info.valid_pages += 1;
        info.valid_units += 1;
        self.plane_valid_units[plane as usize] += 1;
        true
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

/// Every plane is full down to its GC threshold: nothing more can be placed instantly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoRoom;

pub(super) fn coprime_stride(n: u64, rng: &mut Pcg64Mcg) -> u64 {
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
