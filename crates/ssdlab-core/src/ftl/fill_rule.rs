//! Preconditioning's fill placed by rule, block by block (issue 48): with the sparse page
//! table, the fill's full windows of logical pages are not placed page by page but
//! recorded as a `FillRule`, and each plane's blocks are taken, programmed and closed in
//! bulk, leaving every block, free pool, counter and close order exactly as the page by
//! page fill leaves them (its pages go to the planes in a fixed pattern, see
//! `sparse::FillRule`). Setup then costs per block, not per page.
//!
//! The plain fill (no rewrites to the GC threshold) is placed here; the fill with
//! rewrites (`precondition.fill_invalid_to_gc_threshold`, the default) by
//! `fill_rewrites.rs`, which shares the bulk programming of blocks below. Both need
//! static striping without zones over a power-of-two number of planes and nothing that
//! keeps per-page state at program time (companions, the error model, OOB areas);
//! otherwise the fill runs page by page, as with the dense table.

use super::allocation::PlaneAllocator;
use super::sparse::FillRule;
use super::{BlockState, Ftl, Stream};
use crate::flash::NO_PAGE;

impl Ftl {
    /// Whether the fill's windows (of 2^`window_shift` logical pages) can be placed by
    /// rule: a sparse table, static striping over a power-of-two number of planes (each
    /// its own residue), nothing that keeps per-page state at program time, and every
    /// plane with normal blocks and no user block open yet.
    pub(super) fn rule_eligible(&self, planes: &PlaneAllocator, plane_of_residue: &[u32], window_shift: u32) -> bool {
        let p = self.addr.planes();
        let ppb = self.layout.pages();
        if self.sparse.is_none()
            || planes.has_zones()
            || self.relaxed.is_some()
            || self.companions.is_some()
            || self.wear.is_some()
            || !self.program_seq.is_empty()
            || self.oob.is_some()
            || self.versions.is_some()
            || !p.is_power_of_two()
            || p.trailing_zeros() > window_shift
            || window_shift < 2
            || ppb != self.addr.pages_per_block
        {
            return false;
        }
        let mut seen = vec![false; p as usize];
        for &plane in plane_of_residue {
            if std::mem::replace(&mut seen[plane as usize], true) {
                return false;
            }
        }
        (0..p)
            .all(|plane| self.has_normal(plane) && self.planes[plane as usize].active[Stream::USER.index()] == NO_PAGE)
    }

    /// How many of the plain fill's first windows (of 2^`window_shift` logical pages, all
    /// below `n_valid`) the rule can place: 0 unless `rule_eligible`, and no more than
    /// every plane has room for above `limit` free blocks. (The fill with rewrites:
    /// `fill_rewrites_by_rule`.)
    pub(super) fn rule_windows(
        &self,
        planes: &PlaneAllocator,
        plane_of_residue: &[u32],
        window_shift: u32,
        n_valid: u64,
        limit: u32,
    ) -> u64 {
        if !self.rule_eligible(planes, plane_of_residue, window_shift) {
            return 0;
        }
        let p = self.addr.planes();
        let data = self.layout.pages() - self.summary_pages;
        let per_window = 1u64 << (window_shift - p.trailing_zeros());
        let mut windows = n_valid >> window_shift;
        for plane in 0..p {
            // The page by page fill opens a block while the plane has more than `limit`
            // free blocks (and more than the one allocation keeps back).
            let blocks = (self.free_blocks(plane) as u64).saturating_sub(limit.max(1) as u64);
            windows = windows.min(blocks * data as u64 / per_window);
        }
        windows
    }

    /// Places the full windows `windows` (stride, offset each) of the plain fill by rule.
    pub(super) fn fill_by_rule(&mut self, window_shift: u32, windows: &[(u64, u64)], plane_of_residue: Vec<u32>) {
        let p = self.addr.planes();
        let data = (self.layout.pages() - self.summary_pages) as u64;
        let mut rule = FillRule::new(window_shift, p, windows, plane_of_residue, self.addr.blocks());
        let programs = vec![rule.pages_per_plane(); p as usize];
        let written = self.program_fill_blocks(&mut rule, &programs, |_, _| 0);
        // The page by page fill closes a block when its last data page comes.
        let mut closes = Vec::new();
        for plane in 0..p {
            for index in 0..(programs[plane as usize] / data) as usize {
                closes.push((rule.position(plane, (index as u64 + 1) * data - 1), rule.plane_block(plane, index)));
            }
        }
        closes.sort_unstable();
        self.close_in_order(closes.into_iter().map(|(_, block)| block));
        self.sparse.as_deref_mut().expect("rule_windows checked").set_rule(rule, &written);
    }

    /// Opens and programs each plane's fill blocks in bulk, as the page by page fill
    /// leaves them: plane p takes `programs[p]` data pages, of which its b-th block has
    /// `invalid(p, b)` invalidated by later rewrites. Full blocks are closed (their
    /// `closed_seq` is the caller's: `close_in_order`). Returns each block written and
    /// its data pages programmed.
    pub(super) fn program_fill_blocks(
        &mut self,
        rule: &mut FillRule,
        programs: &[u64],
        invalid: impl Fn(u32, usize) -> u32,
    ) -> Vec<(u32, u32)> {
        let p = self.addr.planes();
        let ppb = self.layout.pages();
        // Data pages of a block; its summary pages follow them at once (`take_page`).
        let data = ppb - self.summary_pages;
        let per_type = self.layout.pages_per_type(self.bits_per_cell);
        let mut written = Vec::new();
        for plane in 0..p {
            let mut left = programs[plane as usize];
            let mut index = 0usize;
            while left > 0 {
                let opened = self.open_block(plane, Stream::USER, 1);
                debug_assert!(opened, "the caller checked the room");
                let block = self.planes[plane as usize].active[Stream::USER.index()];
                rule.push_block(plane, block, data);
                let n = left.min(data as u64) as u32;
                let valid = n - invalid(plane, index);
                // A full block is programmed to its end, summary included.
                let programmed = if n == data { ppb } else { n };
                let info = &mut self.blocks[block as usize];
                info.write_ptr = programmed;
                info.last_write_ns = 0;
                info.age_at_start_ns = 0;
                info.valid_pages += valid;
                info.valid_units += valid;
                if programmed == ppb {
                    for (t, &count) in per_type.iter().enumerate() {
                        info.programmed_by_type[t] += count as u16;
                        self.free_pages_by_type[t] -= count as u64;
                    }
                } else {
                    for page in 0..n as usize {
                        let t = self.layout.types[page] as usize;
                        info.programmed_by_type[t] += 1;
                        self.free_pages_by_type[t] -= 1;
                    }
                }
                if self.gc_counts_pages {
                    for _ in 0..programmed {
                        self.normal_page_taken(block);
                    }
                }
                if programmed == ppb {
                    if self.summary_pages > 0 {
                        self.count_along(self.layout.types[ppb as usize - 1], false);
                        self.counters.summary_programs += 1;
                    }
                    self.blocks[block as usize].state = BlockState::Closed;
                    for slot in self.planes[plane as usize].active.iter_mut() {
                        if *slot == block {
                            *slot = NO_PAGE;
                        }
                    }
                }
                self.plane_valid_units[plane as usize] += valid as u64;
                self.rekey(block);
                written.push((block, n));
                left -= n as u64;
                index += 1;
            }
        }
        written
    }

    /// Numbers the closes of `blocks`, in that order.
    pub(super) fn close_in_order(&mut self, blocks: impl Iterator<Item = u32>) {
        for block in blocks {
            self.closed_counter += 1;
            self.blocks[block as usize].closed_seq = self.closed_counter;
        }
    }
}
