//! Scan-based sanitisation (thesis §6.2.2): a command that discards a range of logical
//! pages and destroys every copy the drive holds of them. The range is trimmed at once
//! (it reads as zeros from then on: the controller answers reads of unmapped pages);
//! then every die reads the summary of each of its programmed blocks (without one, its
//! pages' out-of-band areas: the recovery scan's cost, `maintenance.rs`) and scrubs each
//! page holding data of the range written before the command, stale or just trimmed, or
//! relocates and erases the block when the scrub budget would not allow it. The command
//! completes when the last die has scanned its blocks and destroyed what it found.

use super::{Item, Scrub, Waiter};
use crate::engine::{SimError, Simulator};
use serde::{Deserialize, Serialize};
use ssdlab_trace::{Op, Record};

/// One sanitise command, for the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SanitizeRecord {
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub issued_at_ns: u64,
    /// From its arrival to its completion.
    pub latency_ns: u64,
    /// The slowest die's time reading summaries and out-of-band areas (the scan alone,
    /// thesis §6.2.3: 0.64 s SLC, 1.3 s MLC for 16 GB).
    pub scan_read_ns: u64,
    pub blocks_scanned: u64,
    pub summary_reads: u64,
    pub oob_page_reads: u64,
    /// Pages found holding data of the range; blocks relocated and erased for it because
    /// scrubbing would have exceeded their budget; all blocks erased while it ran (GC's too).
    pub copies_found: u64,
    pub blocks_condemned: u64,
    pub blocks_erased: u64,
    /// A power loss cut it short (its request failed).
    pub interrupted: bool,
}

/// A sanitise command under way.
pub(crate) struct SanitizeOp {
    slot: u32,
    first_lpn: u64,
    pages: u64,
    /// Data written before the command has a smaller OOB sequence number.
    start_seq: u64,
    /// Scans, reads, copies and erases not yet done.
    pub(super) outstanding: u32,
    /// Per die: time spent in scan reads.
    scan_ns: Vec<u64>,
    pub(super) record: SanitizeRecord,
}

/// A die's part of a sanitise scan: the next of its blocks to read.
pub(crate) struct Scan {
    id: u32,
    next: u32,
}

impl Simulator<'_> {
    /// A sanitise request reached the device: trim its range, then scan.
    pub(crate) fn scrub_sanitize(&mut self, slot: u32) -> Result<(), SimError> {
        let r = self.requests[slot as usize];
        if !self.designs.state_mut::<Scrub>().mode_scrubs() {
            return self.trim_request(slot);
        }
        let page = self.ftl.addr.page_size_bytes as u64;
        let logical = self.ftl.logical_pages as u64;
        // One sub-request stands for the whole scan (it ends with the last die's work).
        self.hold_request(slot);
        self.designs.state_mut::<Scrub>().trimming = true;
        let trimmed = self.trim_request(slot);
        self.designs.state_mut::<Scrub>().trimming = false;
        trimmed?;
        let dies = self.ftl.addr.dies();
        let start_seq = self.ftl.oob_next_seq();
        let s = self.designs.state_mut::<Scrub>();
        let id = s.sanitizes.len() as u32;
        s.sanitizes.push(SanitizeOp {
            slot,
            first_lpn: (r.offset_bytes / page) % logical,
            pages: r.pages as u64,
            start_seq,
            outstanding: dies,
            scan_ns: vec![0; dies as usize],
            record: SanitizeRecord {
                offset_bytes: r.offset_bytes,
                size_bytes: r.size_bytes,
                issued_at_ns: r.arrival_ns,
                ..SanitizeRecord::default()
            },
        });
        for die in 0..dies {
            s.scans[die as usize].push_back(Scan { id, next: 0 });
        }
        for die in 0..dies {
            self.kick(die)?;
        }
        Ok(())
    }

    /// Reads the next programmed block of the die's current scan and queues the copies of
    /// the range it holds; false once the die has no scan work.
    pub(crate) fn scrub_next_scan(&mut self, die: u32) -> Result<bool, SimError> {
        let a = &self.ftl.addr;
        let (per_die, planes_per_die) = (a.planes_per_die * a.blocks_per_plane, a.planes_per_die);
        loop {
            let s = self.designs.state_mut::<Scrub>();
            let Some(scan) = s.scans[die as usize].front_mut() else { return Ok(false) };
            let id = scan.id;
            let found = (scan.next..per_die).find_map(|i| {
                let plane = die * planes_per_die + i / self.ftl.addr.blocks_per_plane;
                let block = self.ftl.addr.first_block_of_plane(plane) + i % self.ftl.addr.blocks_per_plane;
                (self.ftl.blocks[block as usize].write_ptr > 0).then_some((i, block))
            });
            let Some((i, block)) = found else {
                s.scans[die as usize].pop_front();
                self.sanitize_step_done(id)?;
                continue;
            };
            scan.next = i + 1;
            let copies = self.copies_in(block, id);
            // The block's copies at once (thesis §6.2.2: "if it exceeds the scrub budget,
            // the FTL will need to relocate the block's contents"): the pages they and the
            // pages sharing their cells would zero, against what the budget has left.
            let over = !copies.is_empty() && self.scrub_pages_needed(block, &copies) > self.scrub_budget_left(block);
            let plane = self.ftl.addr.plane_of_block(block) as usize;
            let s = self.designs.state_mut::<Scrub>();
            let op = &mut s.sanitizes[id as usize];
            op.record.copies_found += copies.len() as u64;
            op.record.blocks_scanned += 1;
            if over {
                op.outstanding += 2;
                op.record.blocks_condemned += 1;
                s.erase_waiters.push((block, Waiter::Sanitize(id)));
                if !s.condemned[plane].iter().any(|&(b, _)| b == block) {
                    s.condemned[plane].push((block, true));
                    s.summary.blocks_condemned += 1;
                }
            } else {
                op.outstanding += copies.len() as u32 + 1;
                for &ppn in &copies {
                    s.urgent[die as usize].push_back(Item { ppn, waiter: Waiter::Sanitize(id) });
                }
            }
            let tag = s.tag(Waiter::Sanitize(id));
            let cost = self.start_scan_read(die, block, tag)?;
            let s = self.designs.state_mut::<Scrub>();
            let op = &mut s.sanitizes[id as usize];
            op.scan_ns[die as usize] += cost.duration_ns;
            if cost.summary {
                op.record.summary_reads += 1;
            } else {
                op.record.oob_page_reads += cost.oob_pages as u64;
            }
            return Ok(true);
        }
    }

    /// The pages of `block` holding data of sanitise `id`'s range written before it,
    /// not yet zeroed (none is valid: the range was trimmed).
    fn copies_in(&mut self, block: u32, id: u32) -> Vec<u32> {
        let f = &self.ftl;
        let s = self.designs.state_mut::<Scrub>();
        let op = &s.sanitizes[id as usize];
        let logical = f.logical_pages as u64;
        let in_range = |lpn: u32| (lpn as u64 + logical - op.first_lpn) % logical < op.pages;
        (0..f.pages_in_block(block))
            .filter(|&p| f.is_programmed(block, p))
            .map(|p| f.addr.ppn(block, p))
            .filter(|&ppn| !s.is_scrubbed(ppn) && f.page_valid_units(ppn) == 0)
            .filter(|&ppn| f.oob_content(ppn).is_some_and(|(lu, seq)| seq < op.start_seq && in_range(lu)))
            .collect()
    }

    /// One piece of sanitise `id`'s work is done; the command completes with its last.
    pub(crate) fn sanitize_step_done(&mut self, id: u32) -> Result<(), SimError> {
        let now = self.now;
        let s = self.designs.state_mut::<Scrub>();
        let op = &mut s.sanitizes[id as usize];
        if op.outstanding == 0 {
            // (A power loss cut it short.)
            return Ok(());
        }
        op.outstanding -= 1;
        if op.outstanding > 0 {
            return Ok(());
        }
        op.record.latency_ns = now - op.record.issued_at_ns;
        op.record.scan_read_ns = op.scan_ns.iter().copied().max().unwrap_or(0);
        let slot = op.slot;
        self.finish_sub_request(slot)
    }

    /// The sanitise command of `scrub.sanitize_*` (at its time, or once the workload is done).
    fn issue_sanitize(&mut self) -> Result<(), SimError> {
        self.designs.state_mut::<Scrub>().sanitize_issued = true;
        let c = &self.config.scrub;
        let record = Record {
            arrival_ns: self.now,
            device: 0,
            offset_bytes: c.sanitize_offset_bytes,
            size_bytes: c.sanitize_bytes,
            op: Op::Sanitize,
            hint: None,
        };
        self.submit(record, self.now)
    }

    /// The workload is done: background scrubs still waiting are finished first (the
    /// drive keeps working until no stale copy it owes is left), then the configured
    /// sanitise command, if any, is issued (or waited for).
    pub(crate) fn scrub_host_finished(&mut self) -> Result<bool, SimError> {
        let s = self.designs.state_mut::<Scrub>();
        let owed: Vec<u32> = (0..s.background.len() as u32)
            .filter(|&d| !s.background[d as usize].is_empty() || !s.urgent[d as usize].is_empty())
            .collect();
        if !owed.is_empty() {
            let mut kicked = false;
            for die in owed {
                if !self.dies[die as usize].busy {
                    self.kick(die)?;
                    kicked = true;
                }
            }
            if kicked || self.dies.iter().any(|d| d.busy) {
                return Ok(true);
            }
        }
        if self.config.scrub.sanitize_bytes == 0 || self.designs.state_mut::<Scrub>().sanitize_issued {
            return Ok(false);
        }
        if self.config.scrub.sanitize_at_ns == 0 || self.now >= self.config.scrub.sanitize_at_ns {
            self.issue_sanitize()?;
        }
        // (Else its timer is pending.)
        Ok(true)
    }

    pub(crate) fn scrub_timer(&mut self, _tag: u8) -> Result<(), SimError> {
        if !self.designs.state_mut::<Scrub>().sanitize_issued {
            self.issue_sanitize()?;
        }
        Ok(())
    }

    /// The blocks erased while sanitise commands were under way count for them.
    pub(crate) fn sanitize_note_erase(&mut self) {
        let s = self.designs.state_mut::<Scrub>();
        for op in s.sanitizes.iter_mut().filter(|op| op.outstanding > 0) {
            op.record.blocks_erased += 1;
        }
    }
}
