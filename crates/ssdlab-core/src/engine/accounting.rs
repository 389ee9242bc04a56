//! What each array operation costs: its latency (program and erase scaled for the
//! block's wear with the error model on), and the counters and energy (user or GC) it
//! adds. Split from `scheduler.rs`, which forms the commands that call these.

use super::*;
use crate::ftl::Allocated;

impl Simulator<'_> {
    /// Counts a GC command's moved pages (those leaving the SLC cache, `out_of_slc`, for
    /// the time series) and tells the design.
    pub(crate) fn note_gc_moved(&mut self, pages: u64, out_of_slc: bool, cross_plane: bool) {
        if out_of_slc {
            self.flash_counters.slc_gc_moved_pages += pages;
        }
        self.gc_moved(pages, out_of_slc, cross_plane);
    }

    pub(crate) fn program_ns(&self, page_type: u8, slc: bool) -> u64 {
        if self.timing.one_shot && !slc {
            self.timing.one_shot_ns
        } else {
            self.timing.program_ns(page_type, slc)
        }
    }

    /// Program time of the page `a`, scaled for its block's wear when the error model
    /// says so (`reliability.program_speedup_at_rated`).
    pub(crate) fn program_ns_of(&self, a: Allocated) -> u64 {
        let base = self.program_ns(a.page_type, a.slc);
        if !self.config.reliability.wear_changes_latency() {
            return base;
        }
        let pe = self.ftl.blocks[self.ftl.addr.block_of(a.ppn) as usize].erase_count;
        self.config.reliability.program_ns(base, pe)
    }

    /// Erase time of `block`, scaled for its wear (`reliability.erase_slowdown_at_rated`).
    pub(crate) fn erase_ns_of(&self, block: u32) -> u64 {
        let base = self.timing.erase_ns;
        if !self.config.reliability.wear_changes_latency() {
            return base;
        }
        self.config.reliability.erase_ns(base, self.ftl.blocks[block as usize].erase_count)
    }

    /// Program time (and energy) of the pages taken along with data pages (block
    /// summaries, each following its block's last data page; companion pages) by the
    /// allocations since the count was `before` (`FtlCounters::along_programs`).
    #[inline]
    pub(crate) fn summary_ns(&mut self, before: [u64; 5]) -> u64 {
        // (Compared word by word: `==` on the arrays was a `memcmp` call per program.)
        let now = self.ftl.counters.along_programs;
        if now.iter().zip(&before).fold(0, |acc, (&n, &b)| acc | (n ^ b)) == 0 {
            return 0;
        }
        self.summary_ns_taken(now, before)
    }

    #[inline(never)]
    fn summary_ns_taken(&mut self, now: [u64; 5], before: [u64; 5]) -> u64 {
        let mut ns = 0;
        for (k, (&n, &b)) in now.iter().zip(&before).enumerate() {
            let written = n - b;
            if written > 0 {
                let (page_type, slc) = if k == 4 { (0, true) } else { (k as u8, false) };
                self.energy.program += written as f64 * self.timing.program_nj(page_type, slc);
                ns += written * self.program_ns(page_type, slc);
            }
        }
        ns
    }

    /// Counts a sense of `ppn` (also toward its block's read disturb).
    pub(crate) fn count_read(&mut self, ppn: Ppn, page_type: u8, slc: bool, gc: bool) {
        self.flash_counters.page_reads += 1;
        self.ftl.wear_read(ppn);
        let nj = self.timing.read_nj(page_type, slc);
        self.energy.read += nj;
        if gc {
            self.energy_gc += nj;
        }
    }

    #[inline]
    pub(crate) fn count_program(&mut self, page_type: u8, slc: bool, of: ProgramOf) {
        self.count_program_bytes(page_type, slc, of, self.timing.page_size_bytes);
    }

    /// As `count_program`, for a program that writes `bytes` of data (a partial program:
    /// its subpages).
    pub(crate) fn count_program_bytes(&mut self, page_type: u8, slc: bool, of: ProgramOf, bytes: u64) {
        if of != ProgramOf::InPlace {
            self.flash_counters.programmed_bytes += bytes;
        }
        let user = of != ProgramOf::Gc;
        if of == ProgramOf::Mapping {
            self.flash_counters.mapping_programs += 1;
        } else if of == ProgramOf::InPlace {
            self.flash_counters.in_place_programs += 1;
        } else if user {
            self.flash_counters.user_programs += 1;
            if slc {
                self.flash_counters.slc_user_programs += 1;
            }
        } else {
            self.flash_counters.gc_programs += 1;
        }
        if slc {
            self.flash_counters.slc_programs += 1;
        }
        self.flash_counters.programs_by_type[page_type as usize] += 1;
        // One-shot programs a page set with one operation; energy is per page either way.
        let nj = self.timing.program_nj(page_type, slc);
        self.energy.program += nj;
        if !user {
            self.energy_gc += nj;
        }
    }
}

/// Whose page a program writes: a user write's, GC's, a translation page (`[cmt]`;
/// counted apart, energy with the user's), or an in-place program a design started on an
/// already programmed page (a scrub, `maintenance.rs`; counted apart, energy with the
/// user's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProgramOf {
    User,
    Gc,
    Mapping,
    InPlace,
}
