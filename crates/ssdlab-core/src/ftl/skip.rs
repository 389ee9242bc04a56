//! Pages a write point passes over without programming them: the rest of a one-shot
//! wordline (a page set is programmed whole or not at all), and Mango's skipped slow
//! pages (thesis §7.2). A skipped page is taken like a programmed one (the write pointer
//! passes it, in program order) but holds no data: it is invalid until its block's
//! erase, and counted in `counters.wasted_pages`.

use super::{BlockState, Ftl, Stream};
use crate::flash::Ppn;

impl Ftl {
    /// One-shot programming: skips the rest of the wordline that `last` belongs to, so
    /// the next allocation starts a new page set. The skipped pages are lost until erase.
    pub fn skip_rest_of_wordline(&mut self, last: Ppn) {
        let block = self.addr.block_of(last);
        if self.blocks[block as usize].slc {
            return;
        }
        let page = self.addr.page_in_block(last);
        let wordline = self.layout.wordlines[page as usize];
        while self.blocks[block as usize].state == BlockState::Open {
            let next = self.blocks[block as usize].write_ptr;
            if self.layout.wordlines[next as usize] != wordline {
                break;
            }
            let skipped = self.take_page(block, self.blocks[block as usize].last_write_ns);
            let _ = skipped;
            self.counters.wasted_pages += 1;
        }
    }

    /// How many pages `stream` of `plane` must skip so that its next page is a fast one
    /// (type 0): 0 when it already is (or the stream would open a block, whose first page
    /// is next). When the active block has no fast data page left, the rest of its data
    /// pages, but only if a new block could then be opened (more than `reserve` free);
    /// else `None`.
    pub fn pages_before_fast(&self, plane: u32, stream: Stream, reserve: usize) -> Option<u32> {
        if self.active_room(plane, stream) == 0 {
            return Some(0);
        }
        let block = self.planes[plane as usize].active[stream.index()];
        let info = &self.blocks[block as usize];
        if info.slc {
            return Some(0);
        }
        let from = info.write_ptr;
        let data_end = self.pages_in_block(block) - self.summary_pages_in(block);
        match (from..data_end).find(|&p| self.layout.types[p as usize] == 0) {
            Some(p) => Some(p - from),
            None if self.planes[plane as usize].free.len() > reserve => Some(data_end.saturating_sub(from)),
            None => None,
        }
    }

    /// Skips the next `n` pages of `stream`'s active block in `plane` (as
    /// `pages_before_fast` counted them); returns the block.
    pub fn skip_pages(&mut self, plane: u32, stream: Stream, n: u32) -> u32 {
        let block = self.planes[plane as usize].active[stream.index()];
        debug_assert!(n == 0 || self.blocks[block as usize].state == BlockState::Open);
        for _ in 0..n {
            self.take_page(block, self.blocks[block as usize].last_write_ns);
            self.counters.wasted_pages += 1;
        }
        block
    }
}
