//! Rapid warm-up (thesis §4.2.2): puts the drive in a used, fragmented state without
//! simulating time. Valid data is written in a pseudo-random logical order (so blocks hold
//! a random mix of logical pages), then random overwrites create invalid pages until
//! every plane's free blocks are just above the background GC threshold; finally every
//! block is aged to a P/E count.

use super::allocation::PlaneAllocator;
use super::Ftl;
use crate::config::Config;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PreconditionReport {
    pub valid_pages: u64,
    pub overwritten_pages: u64,
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
        if n_valid == 0 {
            return Ok(report);
        }
        let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(config.seed, "precondition"));
        // Logical pages are written in a pseudo-random order within windows of WINDOW
        // pages (a multiplicative permutation per window, O(1) memory). Blocks get a
        // random mix of logical pages while the mapping-table writes stay in a
        // cache-sized region: a whole-range permutation was 3x slower (cache misses).
        const WINDOW: u64 = 1 << 16;
        let mut start = 0u64;
        while start < n_valid {
            let len = WINDOW.min(n_valid - start);
            let stride = coprime_stride(len, &mut rng);
            let offset = rng.random_range(0..len);
            for i in 0..len {
                let lpn = (start + (i * stride + offset) % len) as u32;
                self.place(lpn, planes).map_err(|_| {
                    format!(
                        "precondition.used_fraction = {} does not fit: every plane reached its GC threshold after \
                         {} pages",
                        pc.used_fraction, report.valid_pages
                    )
                })?;
                report.valid_pages += 1;
            }
            start += len;
        }
        if pc.fill_invalid_to_gc_threshold {
            // Overwrite random valid pages while their plane stays above the threshold.
            let limit = self.background_free_blocks + 1;
            let mut attempts_left = 4 * n_valid;
            while attempts_left > 0 {
                attempts_left -= 1;
                let lpn = rng.random_range(0..n_valid) as u32;
                let plane = self.addr.plane_of(self.map[lpn as usize]);
                if self.free_blocks(plane) <= limit {
                    if self.planes.iter().enumerate().all(|(p, _)| self.free_blocks(p as u32) <= limit) {
                        break;
                    }
                    continue;
                }
                let a = self
                    .allocate_in(plane, super::Stream::User, 0, 1)
                    .ok_or("precondition: plane unexpectedly full")?;
                self.commit_write(lpn, a.ppn);
                report.overwritten_pages += 1;
            }
        }
        Ok(report)
    }

    /// Places `lpn` on flash instantly (no simulated time): used by preconditioning and
    /// by reads of never-written pages under `unwritten_reads = "precondition"`.
    pub fn place(&mut self, lpn: u32, planes: &mut PlaneAllocator) -> Result<(), NoRoom> {
        let first = planes.striped(&self.addr, lpn as u64);
        let total = self.addr.planes();
        // Static placement first; if that plane is full, the next planes in order.
        for k in 0..total {
            let plane = (first + k) % total;
            if self.free_blocks(plane) <= self.background_free_blocks && self.active_user_full(plane) {
                continue;
            }
            // Preconditioned data lives in normal blocks, never in the SLC cache.
            if let Some(a) = self.allocate_in(plane, super::Stream::User, 0, 1) {
                self.commit_write(lpn, a.ppn);
                return Ok(());
            }
        }
        Err(NoRoom)
    }

    fn active_user_full(&self, plane: u32) -> bool {
        let b = self.planes[plane as usize].active[super::Stream::User as usize];
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
