//! Writes of part of a page: partial programs (new subpages programmed into the free
//! subpages of an already programmed SLC-mode page, up to the flash's NOP) and the read
//! that precedes a read-modify-write. With a page map the partial program updates the
//! logical page in place (`ftl.partial_program_updates`); with a unit map a design names
//! the page and the units (IPU's intra-page update, MGA's packing into an open page).
//! Also where every user write (a host write, or a flush out of the DRAM cache) chooses
//! among these and an ordinary page write (`dispatch_write`).

use super::*;

impl Simulator<'_> {
    /// Queues the write of bytes `start..end` of logical page `lpn` (request `slot`): a
    /// subpage map places only the subpages written (or the design does); a page map
    /// partially programs an update that fits the free subpages of its SLC-mode page,
    /// reads the rest of the page first when valid data stays behind
    /// (read-modify-write), and otherwise writes the page. Dies go to `kick_list`.
    #[inline]
    pub(crate) fn dispatch_write(&mut self, slot: u32, lpn: u32, start: u64, end: u64) -> Result<(), SimError> {
        if self.cmt.is_some() {
            // The mapping must be cached first (the old copy's page is in it).
            let flush = self.flushing;
            let waiter = cmt::Waiter::Write {
                slot: if flush { NO_REQUEST } else { slot },
                lpn,
                start: start as u32,
                end: end as u32,
                sectors: self.page_sectors,
                flush,
            };
            if !self.cmt_translate(lpn, waiter)? {
                return Ok(());
            }
        }
        self.dispatch_mapped_write(slot, lpn, start, end)
    }

    /// `dispatch_write` once the write's mapping is known.
    pub(crate) fn dispatch_mapped_write(&mut self, slot: u32, lpn: u32, start: u64, end: u64) -> Result<(), SimError> {
        if self.bypass.is_some() && self.bypass_write(slot, lpn) {
            return Ok(());
        }
        let page = self.timing.page_size_bytes;
        let partial = start > 0 || end < page;
        let subpages = if partial { self.subpages_covered(start, end - start, 0) } else { 0 };
        if self.ftl.mapping == Mapping::Subpages {
            // A subpage map places only the subpages written: no read-modify-write.
            let (unit, units) = self.units_covered(start, end - start, 0);
            let die = match self.split_write(slot, lpn, unit, units)? {
                Some(die) => die,
                None => self.enqueue_write_units(slot, lpn, 0, unit, units)?,
            };
            self.kick_list.push(die);
            return Ok(());
        }
        let old = self.ftl.lookup(lpn);
        let read_first = match self.config.ftl.partial_page_writes {
            PartialPageWrites::ReadModifyWrite => partial,
            PartialPageWrites::Overwrite => false,
            PartialPageWrites::ReadUncovered => self.held_outside(lpn, start, end, old.is_some()),
        };
        match old {
            // An update that fits the free subpages of its SLC-mode page is partially
            // programmed there (NOP > 1 flash), without moving the data.
            Some(old) if partial && self.ftl.can_partial_program(old, subpages) => {
                let plane = self.ftl.addr.plane_of(old);
                let txn = self.alloc_txn(TxnKind::PartialProgram, slot, lpn, old, plane);
                self.txns[txn as usize].subpages = subpages;
                let die = self.ftl.addr.die_of_plane(plane);
                self.dies[die as usize].writes.push_back(txn);
                self.dies[die as usize].last_user_ns = self.now;
                self.kick_list.push(die);
            }
            // A design's in-place reprogram (it reads the page first, merging a partial write).
            Some(old) if self.reprograms_in_place(lpn, old) => {
                let die = self.enqueue_reprogram(slot, lpn, old);
                self.kick_list.push(die);
            }
            // The rest of the page must be read before it is rewritten.
            Some(old) if read_first => {
                let plane = self.ftl.addr.plane_of(old);
                let txn = self.alloc_txn(TxnKind::UpdateRead, slot, lpn, old, plane);
                let die = self.ftl.addr.die_of_plane(plane);
                self.dies[die as usize].reads.push_back(txn);
                self.dies[die as usize].last_user_ns = self.now;
                self.kick_list.push(die);
                if self.bypass.is_some() && slot != NO_REQUEST {
                    self.bypass_write_queued(txn, lpn);
                }
            }
            Some(_) => {
                let die = self.enqueue_write(slot, lpn, 0)?;
                self.kick_list.push(die);
            }
            // Nothing to merge with: only the written subpages are programmed.
            None => {
                let die = self.enqueue_write(slot, lpn, subpages)?;
                self.kick_list.push(die);
            }
        }
        Ok(())
    }

    /// SSDSim's rule (`read-uncovered`): whether `lpn` holds data outside bytes
    /// `start..end`, recording the write. Eighths touched count as held; only eighths
    /// written whole count as covered.
    fn held_outside(&mut self, lpn: u32, start: u64, end: u64, mapped: bool) -> bool {
        if self.held_eighths.is_empty() {
            self.held_eighths = vec![0; self.ftl.logical_pages as usize];
        }
        let eighth = (self.timing.page_size_bytes / 8).max(1);
        let bits = |a: u64, b: u64| if b <= a { 0u8 } else { (((1u16 << (b - a)) - 1) << a) as u8 };
        let touched = bits(start / eighth, end.div_ceil(eighth).min(8));
        let covered = bits(start.div_ceil(eighth), (end / eighth).min(8));
        let h = &mut self.held_eighths[lpn as usize];
        // (0 on a mapped page: placed by preconditioning, whole.)
        let held = match (mapped, *h) {
            (false, _) => 0,
            (true, 0) => u8::MAX,
            (true, h) => h,
        };
        *h = held | touched;
        held & !covered != 0
    }

    /// Queues the write of units `unit..unit + units` of `lpn` (request `slot`) as a
    /// partial program into the free subpages of `ppn`. If the page can no longer take it
    /// when the die gets to it, it becomes an ordinary write. Returns the die.
    pub(crate) fn enqueue_partial_program(&mut self, slot: u32, lpn: u32, unit: u32, units: u32, ppn: Ppn) -> u32 {
        let plane = self.ftl.addr.plane_of(ppn);
        let txn = self.alloc_txn(TxnKind::PartialProgram, slot, lpn, ppn, plane);
        let t = &mut self.txns[txn as usize];
        (t.unit, t.units, t.subpages) = (unit as u8, units as u8, units as u8);
        self.write_queued(txn);
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].writes.push_back(txn);
        self.dies[die as usize].last_user_ns = self.now;
        die
    }

    /// Queues a read of `ppn`, after which units `unit..unit + units` of `lpn` are written
    /// (the page's other valid units merged with the request's: a read-modify-write).
    /// Returns the die.
    pub(crate) fn enqueue_update_read(&mut self, slot: u32, lpn: u32, unit: u32, units: u32, ppn: Ppn) -> u32 {
        let plane = self.ftl.addr.plane_of(ppn);
        let txn = self.alloc_txn(TxnKind::UpdateRead, slot, lpn, ppn, plane);
        let t = &mut self.txns[txn as usize];
        (t.unit, t.units) = (unit as u8, units as u8);
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].reads.push_back(txn);
        self.dies[die as usize].last_user_ns = self.now;
        die
    }

    /// Whether the queued partial program `txn` can still go into its page: the page has
    /// the free subpages and a program left under NOP, is not being cleaned by GC, and
    /// (page map) still holds the logical page, or (unit map) the design still wants it.
    pub(crate) fn partial_program_still_fits(&self, txn: u32) -> bool {
        let t = &self.txns[txn as usize];
        if !self.ftl.can_partial_program(t.ppn, t.subpages) {
            return false;
        }
        if self.ftl.unit_shift == 0 {
            return self.ftl.lookup(t.lpn) == Some(t.ppn);
        }
        let plane = self.ftl.addr.plane_of(t.ppn);
        let block = self.ftl.addr.block_of(t.ppn);
        let p = &self.ftl.planes[plane as usize];
        p.victim != block && p.next_victim != block && self.partial_target_ok(txn)
    }

    /// Programs a write's subpages into the free subpages of its page: only those
    /// subpages cross the channel, at SLC program latency.
    pub(crate) fn start_partial_program(&mut self, die: u32, txn: u32) -> Result<bool, SimError> {
        let (ppn, subpages, request, lpn) = {
            let t = &self.txns[txn as usize];
            (t.ppn, t.subpages, t.request, t.lpn)
        };
        if self.ftl.unit_shift == 0 {
            self.ftl.partial_program(ppn, subpages);
            self.ftl.oob_partial_program(lpn, ppn);
            self.txns[txn as usize].version = self.ftl.tag_write(lpn, ppn);
            // An acknowledged write's request slot may already serve another request.
            if !self.txns[txn as usize].acked {
                let r = &mut self.requests[request as usize];
                r.dominant_type = r.dominant_type.max(0);
            }
        } else {
            let (unit, units) = (self.txns[txn as usize].unit as u32, self.txns[txn as usize].units as u32);
            let slot = self.ftl.subpages_used(ppn);
            self.bind_parts(txn, &[(ppn, slot, unit, units)], 0, true);
            self.ftl.oob_partial_units(ppn, slot, units);
            self.ftl.partial_program(ppn, subpages);
        }
        let bytes = subpages as u64 * self.timing.page_size_bytes / self.ftl.subpages_per_page as u64;
        self.count_program_bytes(0, true, ProgramOf::User, bytes);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        cmd.set_steps(&[Step::ChannelIn(bytes), Step::Array(self.timing.slc_program_ns)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }
}
