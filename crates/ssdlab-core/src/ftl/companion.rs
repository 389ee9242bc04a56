//! Companion pages: pages of a block that the FTL programs along with the page before
//! them and that hold no logical page, as a block's summary does (a design's code
//! redundancy: WOM codes keep the third page of every trio of WOM-safe pages for it,
//! `designs/wom`). Which pages they are is a design's choice, made before the first
//! write (`set_companion_pages`); every write stream, preconditioning included, then
//! takes them in program order. The engine charges their programs with the write that
//! took them (`FtlCounters::along_programs`), and GC counts them, like summaries, as no
//! gain: the valid pages moved elsewhere take companions there too.

use super::{Allocated, Ftl};

/// Which pages of a block are companions, for normal-mode and SLC-mode blocks, and how
/// many lie below each page.
#[derive(Clone, Debug, Default)]
pub struct Companions {
    normal: Vec<bool>,
    slc: Vec<bool>,
    normal_below: Vec<u32>,
    slc_below: Vec<u32>,
}

impl Companions {
    /// Companion pages below page `page` of an SLC-mode (`slc`) or normal-mode block.
    pub fn below(&self, slc: bool, page: u32) -> u32 {
        let counts = if slc { &self.slc_below } else { &self.normal_below };
        counts[(page as usize).min(counts.len() - 1)]
    }
}

fn below(mask: &[bool]) -> Vec<u32> {
    let mut counts = Vec::with_capacity(mask.len() + 1);
    let mut n = 0;
    counts.push(0);
    for &c in mask {
        n += u32::from(c);
        counts.push(n);
    }
    counts
}

impl Ftl {
    /// Makes the pages marked in `normal` (a normal-mode block's pages) and `slc` (an
    /// SLC-mode block's) companions. Call before the first write.
    pub fn set_companion_pages(&mut self, normal: Vec<bool>, slc: Vec<bool>) {
        debug_assert_eq!(normal.len(), self.layout.pages() as usize);
        debug_assert_eq!(slc.len(), self.slc_layout.pages() as usize);
        let (normal_below, slc_below) = (below(&normal), below(&slc));
        self.companions = Some(Box::new(Companions { normal, slc, normal_below, slc_below }));
    }

    /// Whether page `page` of `block` is a companion page.
    pub fn is_companion(&self, block: u32, page: u32) -> bool {
        let Some(c) = self.companions.as_ref() else { return false };
        let mask = if self.blocks[block as usize].slc { &c.slc } else { &c.normal };
        mask.get(page as usize).copied().unwrap_or(false)
    }

    /// Companion pages of `block` below page `page` (programmed ones, for its write pointer).
    pub fn companions_below(&self, block: u32, page: u32) -> u32 {
        let Some(c) = self.companions.as_ref() else { return 0 };
        c.below(self.blocks[block as usize].slc, page)
    }

    /// Companion pages of a whole normal-mode block.
    pub fn companions_per_block(&self) -> u32 {
        self.companions.as_ref().map_or(0, |c| *c.normal_below.last().unwrap_or(&0))
    }

    /// Takes the companion page at `block`'s write pointer (its program is counted for
    /// the engine to charge).
    pub(super) fn take_companion(&mut self, block: u32, now_ns: u64) {
        let a: Allocated = self.take_page(block, now_ns);
        self.counters.companion_programs += 1;
        self.count_along(a.page_type, a.slc);
    }

    /// A page programmed along with a data page (a summary, a companion): the engine
    /// charges its program time and energy to the command that took it.
    pub(super) fn count_along(&mut self, page_type: u8, slc: bool) {
        self.counters.along_programs[if slc { 4 } else { page_type as usize }] += 1;
    }
}
