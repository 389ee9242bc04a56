//! PA-SSD's relaxed program constraints (PA §4.3.1) and type-specified page allocation,
//! pa-BLAlloc (PA §4.3.2).
//!
//! Constraints replacing the strict order inside a block: pages of each type are
//! programmed in ID order; a CSB page only after the LSB pages of the adjacent wordlines;
//! an MSB page only after the CSB pages of the adjacent wordlines (generalised: type t
//! needs type t-1 on the adjacent wordlines). Each plane keeps its open blocks oldest
//! first; the active block for type t is the oldest open block with a free type-t page,
//! which gives up to three active blocks per plane. When the wanted type has no candidate
//! page, the first alternate type is used if available, else the last; MSB is always the
//! last alternate (LSB→CSB→MSB, CSB→LSB→MSB, MSB→CSB→LSB).

use super::{Allocated, BlockState, Ftl, Stream};
use crate::flash::NO_PAGE;

pub struct Relaxed {
    /// Per plane: blocks open for writing, oldest first.
    pub open: Vec<Vec<u32>>,
    /// `by_type[t][k]`: page ID of the k-th page of type t.
    by_type: Vec<Vec<u32>>,
    /// `upto[t][w]`: number of type-t pages on wordlines 0..=w.
    upto: Vec<Vec<u32>>,
    last_wordline: u32,
}

/// The wanted type first, then the alternates in PA's exception order: nearest type
/// first, the slowest (highest) type always last.
pub fn preference_order(want: u8, bits: usize) -> Vec<u8> {
    let mut order: Vec<u8> = (0..bits as u8).collect();
    let slowest = bits as u8 - 1;
    order.sort_by_key(|&t| (t != want, t == slowest, (t as i16 - want as i16).abs(), t));
    order
}

impl Ftl {
    /// Switches the drive to relaxed constraints. Blocks already being written in the
    /// strict order (e.g. by preconditioning) join the open lists: a strict prefix
    /// satisfies the relaxed constraints.
    pub fn enable_relaxed(&mut self) {
        let bits = self.bits_per_cell;
        let by_type = self.layout.by_type(bits);
        let last_wordline = *self.layout.wordlines.iter().max().unwrap_or(&0);
        let mut upto = vec![vec![0u32; last_wordline as usize + 1]; bits];
        for (page, &t) in self.layout.types.iter().enumerate() {
            upto[t as usize][self.layout.wordlines[page] as usize] += 1;
        }
        for counts in upto.iter_mut() {
            for w in 1..counts.len() {
                counts[w] += counts[w - 1];
            }
        }
        let mut open = vec![Vec::new(); self.planes.len()];
        for (plane, p) in self.planes.iter_mut().enumerate() {
            for stream in [Stream::USER, Stream::GC] {
                let b = p.active[stream.index()];
                if b != NO_PAGE && !self.blocks[b as usize].slc {
                    open[plane].push(b);
                    p.active[stream.index()] = NO_PAGE;
                }
            }
        }
        self.relaxed = Some(Relaxed { open, by_type, upto, last_wordline });
    }

    /// The next page of type `t` in `block` if the constraints allow programming it now.
    fn candidate(&self, block: u32, t: u8) -> Option<u32> {
        let r = self.relaxed.as_ref()?;
        let info = &self.blocks[block as usize];
        let k = info.programmed_by_type[t as usize] as usize;
        let page = *r.by_type[t as usize].get(k)?;
        if t > 0 {
            let w = self.layout.wordlines[page as usize];
            let needed = r.upto[t as usize - 1][(w + 1).min(r.last_wordline) as usize];
            if (info.programmed_by_type[t as usize - 1] as u32) < needed {
                return None;
            }
        }
        Some(page)
    }

    /// The active block for type `t`: the oldest open block with a free type-t page.
    fn active_for_type(&self, plane: u32, t: u8) -> Option<u32> {
        let r = self.relaxed.as_ref()?;
        r.open[plane as usize]
            .iter()
            .copied()
            .find(|&b| (self.blocks[b as usize].programmed_by_type[t as usize] as usize) < r.by_type[t as usize].len())
    }

    /// The oldest open block of `plane` whose next type-`t` page may be programmed now.
    fn block_with_candidate(&self, plane: u32, t: u8) -> Option<(u32, u32)> {
        let r = self.relaxed.as_ref()?;
        r.open[plane as usize].iter().find_map(|&b| self.candidate(b, t).map(|page| (b, page)))
    }

    /// Whether a page of any type can be had in `plane` without going below `reserve`
    /// free blocks. Every open block has a candidate: its next LSB page needs nothing,
    /// and once all LSB pages are programmed every CSB page may follow, and so on.
    /// With a reserve (user writes, placements) the page must also leave GC the room to
    /// finish its victim (`gc_room_after_one`).
    pub fn can_allocate_relaxed(&self, plane: u32, reserve: usize) -> bool {
        let Some(r) = self.relaxed.as_ref() else { return false };
        let page = !r.open[plane as usize].is_empty() || self.planes[plane as usize].free.len() > reserve;
        page && (reserve == 0 || self.gc_room_after_one(plane))
    }

    /// Under the relaxed constraints user writes and GC moves share the open blocks
    /// (there is no GC write point), so keeping the last free block for GC is not enough:
    /// user writes could fill the block GC opened from it and leave a victim half moved
    /// with nowhere to go. A page may be taken only if the open blocks' unprogrammed pages
    /// and the free blocks still hold the victim's valid pages afterwards.
    pub fn gc_room_after_one(&self, plane: u32) -> bool {
        let Some(r) = self.relaxed.as_ref() else { return true };
        let p = &self.planes[plane as usize];
        if p.victim == NO_PAGE {
            return true;
        }
        let need = self.blocks[p.victim as usize].valid_pages as u64;
        let open: u64 = r.open[plane as usize]
            .iter()
            .map(|&b| (self.layout.pages() - self.blocks[b as usize].write_ptr) as u64)
            .sum();
        open + p.free.len() as u64 * self.layout.pages() as u64 > need
    }

    /// Whether `allocate_typed(plane, t, reserve, …)` would give a page of type `t` itself:
    /// from a block already open, or (with `Some(reserve)`) from a block it would open.
    pub fn can_take_type(&self, plane: u32, t: u8, new_block: Option<usize>) -> bool {
        self.block_with_candidate(plane, t).is_some()
            || new_block.is_some_and(|reserve| {
                t == 0 && self.active_for_type(plane, 0).is_none() && self.planes[plane as usize].free.len() > reserve
            })
    }

    /// pa-BLAlloc: a page of type `want` in `plane` if one is a candidate, else the
    /// first alternate, else the last; a new block is opened only when no open block
    /// has a free LSB page. Returns the page and whether its type is the wanted one.
    pub fn allocate_typed(&mut self, plane: u32, want: u8, reserve: usize, now_ns: u64) -> Option<(Allocated, bool)> {
        let bits = self.bits_per_cell;
        for t in preference_order(want.min(bits as u8 - 1), bits) {
            if let Some((block, page)) = self.block_with_candidate(plane, t) {
                return Some((self.take_typed(block, page, now_ns), t == want));
            }
            if t == 0 && self.active_for_type(plane, 0).is_none() && self.planes[plane as usize].free.len() > reserve {
                // No open block has LSB pages left: activate a new block for LSB.
                let block = self.planes[plane as usize].free.pop_front().expect("checked");
                self.note_block_opened(plane);
                self.blocks[block as usize].state = BlockState::Open;
                self.relaxed.as_mut().expect("relaxed").open[plane as usize].push(block);
                let page = self.candidate(block, 0).expect("a fresh block's first LSB page");
                return Some((self.take_typed(block, page, now_ns), want == 0));
            }
        }
        None
    }

    /// A page for a GC move (which may open the plane's last free block): pa-BLAlloc's
    /// page of type `want`, except when more unprogrammed pages are spread over the open
    /// blocks than left in the free ones: GC then fills the oldest open block that can
    /// program a page now (of the type nearest `want` it can) and opens a free block only
    /// when none can, so that each erase gains a free block.
    ///
    /// DIR's GC, taking LSB pages first wherever they are, opened a block for each
    /// victim's LSB pages (or took those of the block a user write had just opened) while
    /// the older open blocks kept their other pages: the free space spread over ever more
    /// open blocks, each erase paid for a block opened, and the free blocks never rose
    /// above the GC thresholds. Below the emergency one the plane let one user page
    /// through per victim cleaned, below the background one GC cleaned on after the host
    /// was done (swarm seeds 131204, 132901: DIR on QLC and TLC drives with almost every
    /// block of a plane left open; on `small-tlc` aged to 90% full, the Financial
    /// excerpt's writes waited 3.3 s on average, and 2 ms since).
    pub fn allocate_typed_gc(&mut self, plane: u32, want: u8, now_ns: u64) -> Option<Allocated> {
        let r = self.relaxed.as_ref()?;
        let pages = self.layout.pages();
        let open: u32 = r.open[plane as usize].iter().map(|&b| pages - self.blocks[b as usize].write_ptr).sum();
        if open > self.planes[plane as usize].free.len() as u32 * pages {
            let order = preference_order(want.min(self.bits_per_cell as u8 - 1), self.bits_per_cell);
            let found = r.open[plane as usize]
                .iter()
                .find_map(|&b| order.iter().find_map(|&t| self.candidate(b, t)).map(|page| (b, page)));
            if let Some((block, page)) = found {
                return Some(self.take_typed(block, page, now_ns));
            }
        }
        self.allocate_typed(plane, want, 0, now_ns).map(|(a, _)| a)
    }

    fn take_typed(&mut self, block: u32, page: u32, now_ns: u64) -> Allocated {
        self.record_program(block, page, now_ns);
        let info = &mut self.blocks[block as usize];
        let page_type = self.layout.types[page as usize];
        info.programmed_by_type[page_type as usize] += 1;
        info.write_ptr += 1;
        info.last_write_ns = now_ns;
        info.age_at_start_ns = 0;
        self.free_pages_by_type[page_type as usize] -= 1;
        let full = info.write_ptr == self.layout.pages();
        if self.gc_counts_pages {
            self.normal_page_taken(block);
        }
        if full {
            self.close_block(block);
            let plane = self.addr.plane_of_block(block);
            let open = &mut self.relaxed.as_mut().expect("relaxed").open[plane as usize];
            open.retain(|&b| b != block);
        }
        Allocated { ppn: self.addr.ppn(block, page), page_type, slc: false }
    }

    /// The relaxed constraints held when each programmed page of `block` was programmed
    /// (using the program sequence numbers when they are tracked), and the open list
    /// agrees with the block state.
    pub(super) fn check_relaxed_constraints(&self, block: u32) -> Result<(), String> {
        let Some(r) = self.relaxed.as_ref() else { return Ok(()) };
        let info = &self.blocks[block as usize];
        if !self.program_seq.is_empty() {
            let seq = |page: u32| self.program_seq[self.addr.ppn(block, page) as usize];
            for t in 0..self.bits_per_cell {
                let done = info.programmed_by_type[t] as usize;
                for k in 0..done {
                    let page = r.by_type[t][k];
                    if seq(page) == 0 {
                        continue; // programmed before tracking started (preconditioning)
                    }
                    if k > 0 && seq(r.by_type[t][k - 1]) >= seq(page) {
                        return Err(format!("block {block}: type-{t} pages programmed out of ID order at page {page}"));
                    }
                    if t == 0 {
                        continue;
                    }
                    // Every type t-1 page on wordlines up to w+1 was programmed earlier.
                    let w = self.layout.wordlines[page as usize];
                    let needed = r.upto[t - 1][(w + 1).min(r.last_wordline) as usize] as usize;
                    if needed > info.programmed_by_type[t - 1] as usize
                        || seq(r.by_type[t - 1][needed - 1]) >= seq(page)
                    {
                        return Err(format!(
                            "block {block}: page {page} (type {t}, wordline {w}) programmed before the type-{} pages of \
                             its adjacent wordlines",
                            t - 1
                        ));
                    }
                }
            }
        }
        let plane = self.addr.plane_of_block(block);
        let listed = r.open[plane as usize].contains(&block);
        if listed != (info.state == BlockState::Open) {
            return Err(format!("block {block}: state {:?} but open-list membership {listed}", info.state));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_order_matches_pa_figure_8() {
        assert_eq!(preference_order(0, 3), vec![0, 1, 2]);
        assert_eq!(preference_order(1, 3), vec![1, 0, 2]);
        assert_eq!(preference_order(2, 3), vec![2, 1, 0]);
        assert_eq!(preference_order(0, 2), vec![0, 1]);
        assert_eq!(preference_order(1, 2), vec![1, 0]);
    }
}
