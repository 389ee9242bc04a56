//! Blocks a zoned namespace owns (`designs/zns`): each zone is mapped 1:1 onto fixed
//! erase blocks, which never sit in a free pool, are never a write point's and never a
//! GC victim (GC never runs on a zoned drive: its thresholds are zero and every plane
//! keeps free blocks of its own; with a conventional area beside the zones, GC runs on
//! the area's blocks and its victim search skips these, `gc.rs`). A zone's pages are taken in each block's program
//! order; a zone reset erases its blocks, which go straight back to the zone.

use super::{Allocated, BlockState, Ftl};

impl Ftl {
    /// Takes the erased `block` out of its plane's free pool for a zone: it stays open
    /// (no write point's) until its last page is programmed.
    pub fn reserve_zone_block(&mut self, block: u32) {
        debug_assert_eq!(self.blocks[block as usize].state, BlockState::Free);
        let plane = self.addr.plane_of_block(block) as usize;
        if self.blocks[block as usize].slc {
            self.planes[plane].free_slc.retain(|&b| b != block);
        } else {
            self.planes[plane].free.retain(|&b| b != block);
        }
        self.blocks[block as usize].state = BlockState::Open;
        if self.zone_owned.is_empty() {
            self.zone_owned = vec![false; self.blocks.len()];
        }
        self.zone_owned[block as usize] = true;
    }

    /// Puts the erased, still free normal `block` in SLC mode for an SLC-mode zone
    /// (before `reserve_zone_block`): its pages leave the normal pages' free counts.
    pub fn set_zone_block_slc(&mut self, block: u32) {
        debug_assert_eq!(self.blocks[block as usize].state, BlockState::Free);
        debug_assert!(!self.blocks[block as usize].slc);
        for t in 0..self.layout.types.len() {
            self.free_pages_by_type[self.layout.types[t] as usize] -= 1;
        }
        if self.gc_counts_pages {
            let plane = self.addr.plane_of_block(block) as usize;
            self.planes[plane].free_pages -= self.layout.pages() as u64;
        }
        let plane = self.addr.plane_of_block(block) as usize;
        self.planes[plane].free.retain(|&b| b != block);
        self.planes[plane].free_slc.push_back(block);
        self.blocks[block as usize].slc = true;
    }

    /// Whether a zone owns `block` (recovery leaves such blocks to their zone).
    pub fn is_zone_block(&self, block: u32) -> bool {
        self.zone_owned.get(block as usize).copied().unwrap_or(false)
    }

    /// The next page of a zone's `block`, in program order; `None` when it is full (a
    /// zone never writes more than its blocks hold: the caller's bug).
    pub fn take_zone_page(&mut self, block: u32, now_ns: u64) -> Option<Allocated> {
        let info = &self.blocks[block as usize];
        if info.state != BlockState::Open || info.write_ptr >= self.pages_in_block(block) {
            return None;
        }
        Some(self.take_page(block, now_ns))
    }

    /// Erases a zone's `block` (its data trimmed first) and gives it back to its zone:
    /// the pages the zone never wrote (a finished zone, a capacity below the zone size)
    /// are given up as a block closed early is (`wasted_pages`), then the erase.
    pub fn erase_zone_block(&mut self, block: u32) {
        if self.blocks[block as usize].state == BlockState::Open {
            self.close_early(block);
        }
        self.erase(block);
        self.reserve_zone_block(block);
    }
}
