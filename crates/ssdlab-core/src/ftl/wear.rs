//! Per-page reliability state for the error model (`flash/reliability.rs`): when each
//! page was programmed, how often its block was read since its erase, and how often
//! adjacent pages were re-programmed since the page was (partial programming). The P/E
//! count is the block table's `erase_count`; in-page partial programs are
//! `Ftl::page_programs`. Kept only with `reliability.enabled` (4 bytes per page, 4 per
//! block, and one more per page with partial programming), and only from the run's start:
//! every page programmed before (preconditioning) has the preconditioned retention age.

use super::Ftl;
use crate::flash::reliability::PageState;
use crate::flash::{Ppn, NO_PAGE};

#[derive(Clone, Debug, Default)]
pub struct WearState {
    /// Program time of each page in whole seconds of simulated time, plus 1; 0 = before
    /// the run (its age is the preconditioned retention age plus the run's time).
    programmed_s: Vec<u32>,
    /// Reads (senses) of each block since its erase.
    block_reads: Vec<u32>,
    /// Re-programs of the adjacent pages since each page's first program (partial
    /// programming only; empty otherwise).
    neighbour_programs: Vec<u8>,
    /// Per physical unit of a unit map with partial programming: the page's program count
    /// when the unit was written, so a read counts only the programs after its data's
    /// (IPU §2.2: in-page disturb hits data programmed earlier in the page). Empty
    /// otherwise.
    unit_program: Vec<u8>,
    /// Retention age of preconditioned data at time 0, in seconds.
    retention_age_s: f64,
}

impl Ftl {
    /// Starts tracking (after preconditioning): pages programmed so far are as old as
    /// `retention_age_s` when the run starts.
    pub fn enable_wear(&mut self, retention_age_s: f64) {
        let pages = self.addr.pages() as usize;
        self.wear = Some(Box::new(WearState {
            programmed_s: vec![0; pages],
            block_reads: vec![0; self.blocks.len()],
            neighbour_programs: if self.page_programs.is_empty() { Vec::new() } else { vec![0; pages] },
            unit_program: if self.page_programs.is_empty() || self.unit_shift == 0 {
                Vec::new()
            } else {
                vec![0; pages << self.unit_shift]
            },
            retention_age_s,
        }));
    }

    pub(crate) fn wear_programmed(&mut self, ppn: Ppn, now_ns: u64) {
        if let Some(w) = self.wear.as_mut() {
            w.programmed_s[ppn as usize] = (now_ns / 1_000_000_000).min(u32::MAX as u64 - 1) as u32 + 1;
            if !w.neighbour_programs.is_empty() {
                w.neighbour_programs[ppn as usize] = 0;
            }
        }
    }

    /// A partial program into `ppn` disturbs the programmed pages next to it.
    pub(crate) fn wear_reprogrammed(&mut self, ppn: Ppn) {
        if self.wear.as_ref().is_none_or(|w| w.neighbour_programs.is_empty()) {
            return;
        }
        let block = self.addr.block_of(ppn);
        let page = self.addr.page_in_block(ppn);
        for neighbour in [page.wrapping_sub(1), page + 1] {
            if neighbour < self.addr.pages_per_block && self.is_programmed(block, neighbour) {
                let at = self.addr.ppn(block, neighbour) as usize;
                let w = self.wear.as_mut().expect("checked above");
                w.neighbour_programs[at] = w.neighbour_programs[at].saturating_add(1);
            }
        }
    }

    /// Slots `first..first + count` of `ppn` were programmed by the page's latest program.
    pub(crate) fn wear_slots_programmed(&mut self, ppn: Ppn, first: u32, count: u32) {
        let programs = self.page_programs.get(ppn as usize).copied().unwrap_or(1);
        let shift = self.unit_shift;
        if let Some(w) = self.wear.as_mut().filter(|w| !w.unit_program.is_empty()) {
            let base = ((ppn << shift) + first) as usize;
            w.unit_program[base..base + count as usize].fill(programs);
        }
    }

    pub(crate) fn wear_erased(&mut self, block: u32) {
        if let Some(w) = self.wear.as_mut() {
            w.block_reads[block as usize] = 0;
        }
    }

    /// Counts a sense of `ppn` (read disturb of its block).
    pub fn wear_read(&mut self, ppn: Ppn) {
        if let Some(w) = self.wear.as_mut() {
            let r = &mut w.block_reads[self.addr.block_of(ppn) as usize];
            *r = r.saturating_add(1);
        }
    }

    /// What the RBER of a read of `ppn` (for data of `lpn`, when known) at `now_ns`
    /// depends on; `None` without tracking. With per-unit program counts, the in-page
    /// programs are those after the oldest of `lpn`'s units in the page was written;
    /// otherwise every re-program of the page.
    pub fn page_state(&self, ppn: Ppn, lpn: Option<u32>, now_ns: u64) -> Option<PageState> {
        let w = self.wear.as_ref()?;
        let block = self.addr.block_of(ppn);
        let now_s = now_ns as f64 / 1e9;
        let programmed = w.programmed_s[ppn as usize];
        let age_s =
            if programmed == 0 { w.retention_age_s + now_s } else { (now_s - (programmed - 1) as f64).max(0.0) };
        Some(PageState {
            pe_cycles: self.blocks[block as usize].erase_count,
            age_s,
            block_reads: w.block_reads[block as usize],
            in_page_programs: self.in_page_programs(w, ppn, lpn),
            neighbour_programs: w.neighbour_programs.get(ppn as usize).map_or(0, |&n| n as u32),
        })
    }

    fn in_page_programs(&self, w: &WearState, ppn: Ppn, lpn: Option<u32>) -> u32 {
        let Some(&programs) = self.page_programs.get(ppn as usize) else { return 0 };
        let programs = programs as u32;
        let (Some(lpn), false) = (lpn, w.unit_program.is_empty()) else {
            return programs.saturating_sub(1);
        };
        let shift = self.unit_shift;
        let first = (ppn << shift) as usize;
        (0..1usize << shift)
            .filter(|&k| self.rev_at((first + k) as u32) != NO_PAGE && self.rev_at((first + k) as u32) >> shift == lpn)
            .map(|k| programs.saturating_sub((w.unit_program[first + k] as u32).max(1)))
            .max()
            .unwrap_or(0)
    }
}
