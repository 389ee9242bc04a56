//! The FTL's structural invariants (`--check`, and after every run in test builds):
//! block states against write pointers, per-type free-page counts, program order,
//! partial-program limits, free pools and active blocks.

use super::{BlockState, Ftl};
use crate::flash::NO_PAGE;

impl Ftl {
    /// Checks every structural invariant. Returns the first violation found.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.check_mapping()?;
        self.check_gc_keys()?;
        let mut free_by_type = vec![0u64; self.bits_per_cell];
        let mut free_by_plane = vec![0u64; self.planes.len()];
        for (block, info) in self.blocks.iter().enumerate() {
            let capacity = self.pages_in_block(block as u32);
            match info.state {
                BlockState::Free if info.write_ptr != 0 => {
                    return Err(format!("free block {block} has write pointer {}", info.write_ptr))
                }
                BlockState::Closed if info.write_ptr != capacity && self.relaxed.is_none() => {
                    return Err(format!("closed block {block} has write pointer {}", info.write_ptr))
                }
                BlockState::Open if info.write_ptr >= capacity => return Err(format!("open block {block} is full")),
                _ => {}
            }
            if !info.slc {
                // A closed block's unprogrammed pages (an early-reclaimed victim) are not free.
                for page in 0..capacity {
                    if info.state != BlockState::Closed && !self.is_programmed(block as u32, page) {
                        free_by_type[self.layout.types[page as usize] as usize] += 1;
                        free_by_plane[self.addr.plane_of_block(block as u32) as usize] += 1;
                    }
                }
                let counted: u32 = info.programmed_by_type.iter().map(|&n| n as u32).sum();
                if counted != info.write_ptr {
                    return Err(format!(
                        "block {block}: per-type counts {:?} disagree with {} programmed",
                        info.programmed_by_type, info.write_ptr
                    ));
                }
                if self.relaxed.is_some() {
                    self.check_relaxed_constraints(block as u32)?;
                } else if !self.program_seq.is_empty() {
                    // Strict order: programmed pages are a prefix, programmed in ID order.
                    let first = self.addr.ppn(block as u32, 0) as usize;
                    let seqs = &self.program_seq[first..first + info.write_ptr as usize];
                    if let Some(i) = seqs.windows(2).position(|w| w[0] != 0 && w[1] != 0 && w[0] >= w[1]) {
                        return Err(format!("block {block}: page {} programmed before page {}", i + 1, i));
                    }
                }
            }
        }
        if free_by_type != self.free_pages_by_type {
            return Err(format!("free pages by type {:?} but counted {:?}", self.free_pages_by_type, free_by_type));
        }
        for (ppn, &programs) in self.page_programs.iter().enumerate() {
            let subpages = self.subpages_programmed[ppn] as u32;
            if programs as u32 > self.partial_programs_max || subpages > self.subpages_per_page {
                return Err(format!("page {ppn}: {programs} programs of {subpages} subpages exceed NOP/subpages"));
            }
            let block = self.addr.block_of(ppn as u32);
            if !self.is_programmed(block, self.addr.page_in_block(ppn as u32)) && programs != 0 {
                return Err(format!("page {ppn} above its block's write pointer has been programmed"));
            }
        }
        for (plane, p) in self.planes.iter().enumerate() {
            if self.gc_counts_pages && p.free_pages != free_by_plane[plane] {
                return Err(format!(
                    "plane {plane}: {} free pages counted, {} found",
                    p.free_pages, free_by_plane[plane]
                ));
            }
            let plane = plane as u32;
            for &b in p.free.iter().chain(p.free_slc.iter()) {
                if self.blocks[b as usize].state != BlockState::Free || self.addr.plane_of_block(b) != plane {
                    return Err(format!("plane {plane}: free pool holds block {b} which is not free here"));
                }
            }
            let free_here = (0..self.addr.blocks_per_plane)
                .filter(|b| self.blocks[(self.addr.first_block_of_plane(plane) + b) as usize].state == BlockState::Free)
                .count();
            if free_here != p.free.len() + p.free_slc.len() {
                return Err(format!(
                    "plane {plane}: {free_here} free blocks but pools hold {}",
                    p.free.len() + p.free_slc.len()
                ));
            }
            for &b in &p.active {
                if b != NO_PAGE && self.blocks[b as usize].state != BlockState::Open {
                    return Err(format!("plane {plane}: active block {b} is not open"));
                }
            }
            // A zone's blocks are its own (`zoned.rs`): never a write point's, a free
            // pool's or a GC victim (a conventional area's GC runs beside the zones).
            let zone_block = p.active.iter().chain(&p.free).chain(&p.free_slc).chain([&p.victim, &p.next_victim]);
            if let Some(b) = zone_block.filter(|&&b| b != NO_PAGE).find(|&&b| self.is_zone_block(b)) {
                return Err(format!("plane {plane}: zone block {b} is a write point, free or a GC victim"));
            }
        }
        Ok(())
    }
}
