//! Flash work a design starts on its own, outside the host's and GC's paths (thesis
//! §6.2): scrubs, which program stale pages to all zeros in place so their old data can
//! no longer be read, and scans, which read a block's summary page (or, without one, the
//! out-of-band areas of its programmed pages) to learn which logical pages its pages
//! held. With `start_same_plane_move` (a design relocating one valid page) and a chosen
//! GC victim (`Ftl::set_victim`, `start_gc_step`) these are the mechanisms a design
//! needs to destroy old copies; which pages and when is the design's. Completions go to
//! the `maintenance_done` hook with the tag the design gave. Also erases of blocks a
//! design owns (a zone reset), whose completions go to `erase_done`.

use super::*;
use crate::ftl::Allocated;

/// What a scan of one block read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ScanCost {
    /// The block's summary page was read (one page).
    pub(crate) summary: bool,
    /// Otherwise: the programmed pages whose out-of-band areas were read.
    pub(crate) oob_pages: u32,
    /// Its senses and transfer, without waiting for the channel.
    pub(crate) duration_ns: u64,
}

impl Simulator<'_> {
    /// Keeps request `slot` waiting for one more piece of work, which ends with
    /// `finish_sub_request(slot)`.
    pub(crate) fn hold_request(&mut self, slot: u32) {
        self.requests[slot as usize].pending += 1;
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.request_grew(slot);
            o.note(check);
        }
    }

    /// Programs `pages` (programmed pages of one plane of `die`, none holding valid data)
    /// to all zeros in one command: a page of zeros crosses the channel for each (a NAND
    /// program loads its page register from the bus), then each page is programmed in
    /// turn at its own program latency. Their out-of-band areas are zeroed too, so no scan
    /// or recovery finds them. The first transaction carries `tag`.
    pub(crate) fn start_scrub(&mut self, die: u32, pages: &[Ppn], tag: u32) -> Result<(), SimError> {
        debug_assert!(!pages.is_empty());
        let plane = self.ftl.addr.plane_of(pages[0]);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        let mut program = 0;
        for (k, &ppn) in pages.iter().enumerate() {
            debug_assert_eq!(self.ftl.addr.plane_of(ppn), plane, "a scrub command stays in one plane");
            let (page_type, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            self.ftl.zero_page(ppn);
            program += self.program_ns_of(Allocated { ppn, page_type, slc });
            self.count_program(page_type, slc, ProgramOf::InPlace);
            let txn = self.alloc_txn(TxnKind::Scrub, NO_REQUEST, if k == 0 { tag } else { NO_REQUEST }, ppn, plane);
            cmd.txns.push(txn);
        }
        let bytes = pages.len() as u64 * self.timing.page_size_bytes;
        cmd.set_steps(&[Step::ChannelIn(bytes), Step::Array(program)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)
    }

    /// Reads what `block` (a programmed block of `die`) holds: its summary page when it
    /// has one (a closed block with `power.block_summary`), else the out-of-band area of
    /// each programmed page (sensed one after another, `power.oob_bytes` each over the
    /// channel), as power-loss recovery does (`recovery_ns`).
    pub(crate) fn start_scan_read(&mut self, die: u32, block: u32, tag: u32) -> Result<ScanCost, SimError> {
        let plane = self.ftl.addr.plane_of_block(block);
        let pages = self.ftl.pages_in_block(block);
        let summarised = self.ftl.summary_pages_in(block) > 0 && self.ftl.blocks[block as usize].write_ptr == pages;
        let mut sense = 0;
        let mut cost = ScanCost::default();
        let bytes = if summarised {
            let ppn = self.ftl.addr.ppn(block, pages - 1);
            let (t, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            sense += self.timing.read_ns(t, slc);
            self.count_read(ppn, t, slc, false);
            cost.summary = true;
            self.timing.page_size_bytes
        } else {
            for page in 0..pages {
                if !self.ftl.is_programmed(block, page) {
                    continue;
                }
                let ppn = self.ftl.addr.ppn(block, page);
                let (t, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
                sense += self.timing.read_ns(t, slc);
                self.count_read(ppn, t, slc, false);
                cost.oob_pages += 1;
            }
            cost.oob_pages as u64 * self.config.power.oob_bytes as u64
        };
        let bytes = bytes.max(1);
        cost.duration_ns = sense + self.timing.transfer_bytes_ns(bytes);
        let txn = self.alloc_txn(TxnKind::ScanRead, NO_REQUEST, tag, self.ftl.addr.ppn(block, 0), plane);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        cmd.set_steps(&[Step::Array(sense), Step::ChannelOut(bytes)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(cost)
    }

    /// Erases `blocks` (blocks of `die` a design owns, no valid data in them, one per
    /// plane at most) in one command: a multi-plane erase when the drive has them and the
    /// blocks' addresses qualify as GC's erases must, else the first block alone; the
    /// blocks erased are taken out of `blocks`, the rest left for another command. Each is
    /// erased in the FTL by `erase` as the command starts, as GC's are; each completion
    /// calls `erase_done` with the block.
    pub(crate) fn start_owned_erase(
        &mut self,
        die: u32,
        blocks: &mut Vec<u32>,
        erase: fn(&mut Ftl, u32),
    ) -> Result<(), SimError> {
        debug_assert!(!blocks.is_empty());
        let index = self.ftl.addr.block_in_plane(blocks[0]);
        let f = &self.config.flash;
        let (multi, any, same) = (f.multi_plane, f.multi_plane_any_address, f.multi_plane_same_block);
        let joins = |b: u32, a: &crate::flash::Address| multi && (any || !same || a.block_in_plane(b) == index);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        let mut erase_ns = 0;
        let mut left = Vec::new();
        for (k, block) in std::mem::take(blocks).into_iter().enumerate() {
            if k > 0 && !joins(block, &self.ftl.addr) {
                left.push(block);
                continue;
            }
            let plane = self.ftl.addr.plane_of_block(block);
            debug_assert_eq!(self.ftl.addr.die_of_plane(plane), die);
            let slc = self.ftl.blocks[block as usize].slc;
            erase_ns = erase_ns.max(self.erase_ns_of(block));
            erase(&mut self.ftl, block);
            self.block_erased(plane, block, slc);
            self.energy.erase += self.timing.erase_nj;
            let txn = self.alloc_txn(TxnKind::Erase, NO_REQUEST, 0, block, plane);
            cmd.txns.push(txn);
        }
        *blocks = left;
        if cmd.txns.len() > 1 {
            self.flash_counters.multi_plane += 1;
        }
        cmd.set_steps(&[Step::Array(erase_ns)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)
    }
}
