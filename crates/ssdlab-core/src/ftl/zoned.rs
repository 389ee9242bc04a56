//! Blocks a zoned namespace owns (`designs/zns`): each zone is mapped 1:1 onto fixed
//! erase blocks, which never sit in a free pool, are never a write point's and never a
//! GC victim (GC never runs on a zoned drive: its thresholds are zero and every plane
//! keeps free blocks of its own). A zone's pages are taken in each block's program
//! order; a zone reset erases its blocks, which go straight back to the zone.

use super::{Allocated, BlockState, Ftl};

impl Ftl {
    /// Takes the erased `block` out of its plane's free pool for a zone: it stays open
    /// (no write point's) until its last page is programmed.
    pub fn reserve_zone_block(&mut self, block: u32) {
        debug_assert_eq!(self.blocks[block as usize].state, BlockState::Free);
        let plane = self.addr.plane_of_block(block) as usize;
        self.planes[plane].free.retain(|&b| b != block);
        self.blocks[block as usize].state = BlockState::Open;
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
