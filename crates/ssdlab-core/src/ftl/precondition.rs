//! Rapid warm-up (thesis §4.2.2): puts the drive in a used, fragmented state without
//! simulating time. Valid data is written in a pseudo-random logical order (so blocks hold
//! a random mix of logical pages); interleaved with it, random rewrites of pages already
//! written create invalid pages, at the rate that brings every plane's free blocks to
//! just above the background GC threshold when the fill ends; every block is aged to a
//! P/E count.
//!
//! Speed matters here (a 64 GiB drive has 8M pages to place): logical pages are taken in
//! windows of `WINDOW` pages, permuted within the window, and rewrites pick pages of the
//! current window, so mapping-table writes stay in a cache-sized region. A whole-range
//! permutation with random overwrites afterwards was 3–5x slower (cache misses).

use super::allocation::PlaneAllocator;
use super::{BlockState, Ftl, Stream};
use crate::config::Config;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const WINDOW: u64 = 1 << 16;

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PreconditionReport {
    pub valid_pages: u64,
    pub overwritten_pages: u64,
    /// Pages of blocks aged as programmed-but-invalid (`aged_invalid_fraction`).
    pub invalid_pages: u64,
}

impl Ftl {
    /// Fills the drive as `config.precondition` asks. Errors if the requested fill
    /// cannot fit above the GC thresholds.
    pub fn precondition(&mut self, config: &Config, planes: &mut PlaneAllocator) -> Result<PreconditionReport, String> {
        let pc = &config.precondition;
        let mut report = PreconditionReport::default();
        for info in self.blocks.iter_mut() {
            info.erase_count = pc.pe_cycles;
        }
        let n_valid = (self.logical_pages as f64 * pc.used_fraction).round() as u64;
        if n_valid > 0 {
            self.fill_valid(config, planes, n_valid, &mut report)?;
        }
        if pc.aged_invalid_fraction > 0.0 {
            self.age_with_invalid_blocks(pc.aged_invalid_fraction, &mut report);
        }
        if pc.slc_filled {
            self.fill_slc(n_valid, &mut report)?;
        }
        Ok(report)
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
                if lpn >= self.logical_pages as u64 {
                    return Err(format!(
                        "precondition.slc_filled: the SLC blocks hold more pages than the {} logical pages left \
                         after used_fraction",
                        self.logical_pages as u64 - first_lpn
                    ));
                }
                if let Some(a) = self.allocate_in(plane, Stream::Slc, 0, 0) {
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
        report: &mut PreconditionReport,
    ) -> Result<(), String> {
        let pc = &config.precondition;
        let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "precondition"));
        // Static striping depends only on lpn mod planes: tabulate it once.
        let plane_count = self.addr.planes();
        let plane_of_residue: Vec<u32> = (0..plane_count).map(|r| planes.striped(&self.addr, r as u64)).collect();
        // Rewrites per valid page so that the fill ends at the background threshold.
        let data_pages = (self.addr.pages_per_block - self.summary_pages) as u64;
        let writable: u64 = (0..plane_count)
            .filter(|&p| self.has_normal(p))
            .map(|p| {
                let normal = self.addr.blocks_per_plane - self.slc_blocks[p as usize];
                normal.saturating_sub(self.background_free_blocks + 1) as u64 * data_pages
            })
            .sum();
        let rewrite_rate = if pc.fill_invalid_to_gc_threshold {
            writable.saturating_sub(n_valid) as f64 / n_valid as f64
        } else {
            0.0
        };
        let limit = self.background_free_blocks + 1;
        let mut credit = 0.0f64;
        let mut window_start = 0u64;
        while window_start < n_valid {
            let len = WINDOW.min(n_valid - window_start);
            let stride = coprime_stride(len, &mut rng);
            let offset = rng.random_range(0..len);
            let lpn_at = |i: u64| (window_start + (i * stride + offset) % len) as u32;
            for i in 0..len {
                let lpn = lpn_at(i);
                let plane = plane_of_residue[(lpn % plane_count) as usize];
                if !self.place_in(lpn, plane, limit) {
                    self.place(lpn, planes, limit).map_err(|_| {
                        format!(
                            "precondition.used_fraction = {} does not fit: every plane reached its GC threshold \
                             after {} pages",
                            pc.used_fraction, report.valid_pages
                        )
                    })?;
                }
                report.valid_pages += 1;
                credit += rewrite_rate;
                while credit >= 1.0 {
                    credit -= 1.0;
                    let old = lpn_at(rng.random_range(0..=i));
                    let old_plane = self.addr.plane_of(self.map[old as usize]);
                    if self.place_in(old, old_plane, limit) {
                        report.overwritten_pages += 1;
                    }
                }
            }
            window_start += len;
        }
        Ok(())
    }

    /// Writes `lpn` into `plane` unless that would take the plane to `limit` free blocks.
    fn place_in(&mut self, lpn: u32, plane: u32, limit: u32) -> bool {
        if self.free_blocks(plane) <= limit && self.active_room(plane, Stream::User) == 0 {
            return false;
        }
        match self.allocate_in(plane, Stream::User, 0, 1) {
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
        let first = planes.striped(&self.addr, lpn as u64);
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
            if let Some(a) = self.allocate_in(plane, Stream::User, 0, 1) {
                self.commit_write(lpn, a.ppn);
                return Ok(());
            }
        }
        Err(NoRoom)
    }

    fn active_user_full(&self, plane: u32) -> bool {
        let b = self.planes[plane as usize].active[Stream::User as usize];
        b == crate::flash::NO_PAGE
    }
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
