//! Preconditioning's fill placed by rule, block by block (issue 48): with the sparse page
//! table, the fill's full windows of logical pages are not placed page by page but
//! recorded as a `FillRule`, and each plane's blocks are taken, programmed and closed in
//! bulk, leaving every block, free pool, counter and close order exactly as the page by
//! page fill leaves them (its pages go to the planes in a fixed pattern, see
//! `sparse::FillRule`). Setup then costs per block, not per page.
//!
//! Only the plain fill qualifies: no rewrites to the GC threshold
//! (`precondition.fill_invalid_to_gc_threshold = false`), static striping without zones
//! over a power-of-two number of planes, and nothing that keeps per-page state at
//! program time (companions, the error model, OOB areas). Otherwise the fill runs page by
//! page, as with the dense table.

use super::allocation::PlaneAllocator;
use super::sparse::FillRule;
use super::{BlockState, Ftl, Stream};
use crate::flash::NO_PAGE;

impl Ftl {
    /// How many of the fill's first windows (of 2^`window_shift` logical pages, all
    /// below `n_valid`) the rule can place: 0 unless the table is sparse and the fill is
    /// the plain one, and no more than every plane has room for above `limit` free blocks.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rule_windows(
        &self,
        planes: &PlaneAllocator,
        plane_of_residue: &[u32],
        window_shift: u32,
        n_valid: u64,
        rewrites: bool,
        limit: u32,
    ) -> u64 {
        let p = self.addr.planes();
        let ppb = self.layout.pages();
        let data = ppb - self.summary_pages;
        if self.sparse.is_none()
            || rewrites
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
            return 0;
        }
        let mut seen = vec![false; p as usize];
        for &plane in plane_of_residue {
            if std::mem::replace(&mut seen[plane as usize], true) {
                return 0;
            }
        }
        let per_window = 1u64 << (window_shift - p.trailing_zeros());
        let mut windows = n_valid >> window_shift;
        for plane in 0..p {
            if !self.has_normal(plane) || self.planes[plane as usize].active[Stream::USER.index()] != NO_PAGE {
                return 0;
            }
            // The page by page fill opens a block while the plane has more than `limit`
            // free blocks (and more than the one allocation keeps back).
            let blocks = (self.free_blocks(plane) as u64).saturating_sub(limit.max(1) as u64);
            windows = windows.min(blocks * data as u64 / per_window);
        }
        windows
    }

    /// Places the full windows `windows` (stride, offset each) by rule.
    pub(super) fn fill_by_rule(&mut self, window_shift: u32, windows: &[(u64, u64)], plane_of_residue: Vec<u32>) {
        let p = self.addr.planes();
        let ppb = self.layout.pages();
        // Data pages of a block; its summary pages follow them at once (`take_page`).
        let data = ppb - self.summary_pages;
        let mut rule = FillRule::new(window_shift, p, windows, plane_of_residue, self.addr.blocks());
        let per_plane = rule.pages_per_plane();
        let per_type = self.layout.pages_per_type(self.bits_per_cell);
        let mut written = Vec::new();
        let mut closes = Vec::new();
        for plane in 0..p {
            let mut left = per_plane;
            let mut index = 0u64;
            while left > 0 {
                let opened = self.open_block(plane, Stream::USER, 1);
                debug_assert!(opened, "rule_windows checked the room");
                let block = self.planes[plane as usize].active[Stream::USER.index()];
                rule.push_block(plane, block, data);
                let n = left.min(data as u64) as u32;
                // A full block is programmed to its end, summary included.
                let programmed = if n == data { ppb } else { n };
                let info = &mut self.blocks[block as usize];
                info.write_ptr = programmed;
                info.last_write_ns = 0;
                info.age_at_start_ns = 0;
                info.valid_pages += n;
                info.valid_units += n;
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
                    // The page by page fill closes it when its last data page comes.
                    closes.push((rule.position(plane, (index + 1) * data as u64 - 1), block));
                }
                self.plane_valid_units[plane as usize] += n as u64;
                written.push((block, n));
                left -= n as u64;
                index += 1;
            }
        }
        closes.sort_unstable();
        for (_, block) in closes {
            self.closed_counter += 1;
            self.blocks[block as usize].closed_seq = self.closed_counter;
        }
        self.sparse.as_deref_mut().expect("rule_windows checked").set_rule(rule, &written);
    }
}
