//! The die scheduler: which queued work a die starts next (emergency GC, the user queues
//! in the configured priority, background GC) and the flash commands it forms from it
//! (single- and multi-plane reads and programs, one-shot page sets, partial programs,
//! GC moves and erases).

use super::*;
use crate::ftl::Allocated;

impl Simulator<'_> {
    /// Starts work on an idle die.
    pub(crate) fn kick(&mut self, die: u32) -> Result<(), SimError> {
        if !self.dies[die as usize].busy {
            self.schedule_die(die)?;
        }
        Ok(())
    }

    pub(crate) fn die_planes(&self, die: u32) -> std::ops::Range<u32> {
        let n = self.ftl.addr.planes_per_die;
        die * n..die * n + n
    }

    /// Chooses and starts the die's next command: emergency GC first (thesis §4.2.2),
    /// then the queues in the configured priority; background GC only when the die has
    /// no user work and has been idle for `gc_idle_ns`.
    pub(crate) fn schedule_die(&mut self, die: u32) -> Result<(), SimError> {
        if self.dies[die as usize].busy {
            return Ok(());
        }
        if self.config.flash.die_scheduling == DieScheduling::ChipSerial
            && self.chip_busy[self.ftl.addr.chip_of_die(die) as usize].dies_busy > 0
        {
            // Another die of the chip runs a command: this one starts when the chip is free.
            return Ok(());
        }
        if self.channel_gate_closed(die) {
            return Ok(());
        }
        self.dies[die as usize].gc_starved = false;
        // One question per plane serves both the emergency steps and the quick exit of a
        // die with nothing to start: while no plane needs GC no step starts, so the
        // answers are those of the die as it was.
        let mut gc_wanted = false;
        for plane in self.die_planes(die) {
            let need = self.ftl.gc_need(plane);
            gc_wanted |= need != GcNeed::None;
            if need == GcNeed::Emergency && self.start_gc_step(die, plane, true)? {
                return Ok(());
            }
        }
        if !gc_wanted && self.no_queued_work(die) {
            return Ok(());
        }
        if (!self.moves_in[die as usize].is_empty() && self.start_moved_in(die)?) || self.die_work(die)? {
            return Ok(());
        }
        for i in 0..self.priority.len() {
            let started = match self.priority[i] {
                QueueKind::UserRead => self.start_read(die)?,
                QueueKind::UserWrite => self.start_write(die)?,
                QueueKind::Gc => self.start_background_gc(die)?,
            };
            if started {
                return Ok(());
            }
        }
        if self.idle_work(die)? || self.dies[die as usize].writes.is_empty() {
            return Ok(());
        }
        self.reroute_stuck_writes(die)
    }

    /// Wakes the idle die of `ppn`'s plane if it went idle for want of anything to clean:
    /// the page just became invalid, so there may be something now.
    pub(crate) fn note_invalidated(&mut self, ppn: Ppn) {
        let die = self.ftl.addr.die_of_plane(self.ftl.addr.plane_of(ppn));
        let d = &mut self.dies[die as usize];
        if d.gc_starved && !d.busy && !d.wake_pending {
            d.wake_pending = true;
            self.push(self.now, Event::Wake { die });
        }
    }

    /// Background GC. Reached in priority order, so every queue ranked above it had
    /// nothing it could start. With no user work at the die it waits `gc_idle_ns` of
    /// idleness; with user work (ranked below GC, or blocked) it runs at once.
    pub(crate) fn start_background_gc(&mut self, die: u32) -> Result<bool, SimError> {
        let d = &self.dies[die as usize];
        let user_work = !d.reads.is_empty() || !d.writes.is_empty();
        let planes = self.die_planes(die);
        let Some(first) = planes.clone().find(|&p| self.ftl.gc_need(p) >= GcNeed::Background) else {
            return Ok(false);
        };
        let ready_at = d.last_user_ns + self.config.ftl.gc_idle_ns;
        if !user_work && self.now < ready_at {
            if !self.dies[die as usize].gc_idle_pending {
                self.dies[die as usize].gc_idle_pending = true;
                self.push(ready_at, Event::GcIdle { die });
            }
            return Ok(false);
        }
        // `first` needs GC (nothing changed since it was asked); a later plane is asked
        // after the steps tried before it, which may have changed its answer.
        for plane in first..planes.end {
            if (plane == first || self.ftl.gc_need(plane) >= GcNeed::Background)
                && self.start_gc_step(die, plane, false)?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Starts one cleanup operation on `plane`; false if there is nothing to do.
    pub(crate) fn start_gc_step(&mut self, die: u32, plane: u32, emergency: bool) -> Result<bool, SimError> {
        let victim = self.ftl.planes[plane as usize].victim;
        let target = self.gc_move_target(plane);
        if target == MoveTarget::Nowhere && (victim == NO_PAGE || self.ftl.blocks[victim as usize].valid_pages > 0) {
            // Nowhere to move to until another plane's GC frees blocks.
            return Ok(false);
        }
        if victim == NO_PAGE {
            if let Some(block) = self.gc_victim(plane) {
                self.ftl
                    .set_victim(plane, block)
                    .map_err(|message| SimError::Invariant { time_ns: self.now, message })?;
            }
        }
        let Some(step) = self.ftl.gc_next_step(plane, self.now) else {
            self.dies[die as usize].gc_starved = true;
            return Ok(false);
        };
        if let GcStep::Erase { block } = step {
            if self.stale_reads_of(block) {
                // A queued read of a page the host has since rewritten elsewhere still
                // senses it here: the erase waits for that read's command (same die).
                return Ok(false);
            }
        }
        if emergency {
            self.gc_emergency_steps += 1;
        } else {
            self.gc_background_steps += 1;
        }
        match step {
            GcStep::Erase { block } => {
                let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
                cmd.txns.clear();
                let index = self.ftl.addr.block_in_plane(block);
                let mut erase_ns = 0;
                for other in self.die_planes(die) {
                    // Multi-plane erase: other planes of the die whose victim is a block with
                    // the same address and no valid page left are erased in the same command.
                    if other != plane
                        && self.config.flash.multi_plane
                        && self.ftl.planes[other as usize].victim == NO_PAGE
                        && self.ftl.gc_need(other) >= GcNeed::Background
                    {
                        // Let that plane choose its victim now (as its next step would).
                        self.ftl.ensure_victim(other, self.now);
                    }
                    let victim = self.ftl.planes[other as usize].victim;
                    let joins = other != plane
                        && self.config.flash.multi_plane
                        && victim != NO_PAGE
                        && (self.config.flash.multi_plane_any_address
                            || !self.config.flash.multi_plane_same_block
                            || self.ftl.addr.block_in_plane(victim) == index)
                        && self.ftl.erasable(victim)
                        && !self.stale_reads_of(victim);
                    if other == plane || joins {
                        let target = if other == plane { block } else { victim };
                        let slc = self.ftl.blocks[target as usize].slc;
                        erase_ns = erase_ns.max(self.erase_ns_of(target));
                        self.ftl.erase(target);
                        self.block_erased(other, target, slc);
                        if self.cmt.is_some() {
                            self.cmt_gc_victim_erased(other);
                        }
                        if cfg!(debug_assertions) && self.verify {
                            self.verify_now(&format!("after GC erased block {target} of plane {other}"))?;
                        }
                        self.energy.erase += self.timing.erase_nj;
                        self.energy_gc += self.timing.erase_nj;
                        let txn = self.alloc_txn(TxnKind::Erase, NO_REQUEST, 0, target, other);
                        cmd.txns.push(txn);
                    }
                }
                if cmd.txns.len() > 1 {
                    self.flash_counters.multi_plane += 1;
                }
                self.note_erased();
                cmd.set_steps(&[Step::Array(erase_ns)]);
                self.dies[die as usize].command = cmd;
            }
            GcStep::Move { ppn, lpn } if target != MoveTarget::SamePlane => {
                let MoveTarget::Plane(to) = target else {
                    unreachable!("a victim with valid pages and no target was refused above")
                };
                return self.start_move_out(die, plane, to, ppn, lpn);
            }
            GcStep::Move { ppn, lpn } if self.ftl.page_valid_units(ppn) < self.ftl.units_per_page() => {
                return self.start_compaction(die, plane, ppn, lpn);
            }
            GcStep::Move { ppn, lpn } => return self.start_same_plane_move(die, plane, ppn, lpn),
        }
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// Moves the valid page `ppn` (holding `lpn`) to a page of its own plane (`gc_page`):
    /// copyback, or sensed, carried out and back in, and programmed (one-shot flash
    /// gathers a page set). A GC step, or a design's relocation of one page.
    pub(crate) fn start_same_plane_move(&mut self, die: u32, plane: u32, ppn: Ppn, lpn: u32) -> Result<bool, SimError> {
        let summaries = self.ftl.counters.along_programs;
        let dest = self.gc_page(plane, ppn);
        let Some(dest) = dest else {
            return Err(SimError::Stalled {
                time_ns: self.now,
                outstanding: self.outstanding,
                message: format!("plane {plane} has no free page for a GC move"),
            });
        };
        let src_type = self.ftl.page_type(ppn);
        let src_slc = self.ftl.is_slc(ppn);
        self.ftl.move_page(ppn, dest.ppn);
        if self.cmt.is_some() {
            self.cmt_gc_moved(plane, lpn);
        }
        let mut sense = self.timing.read_ns(src_type, src_slc);
        let mut program = self.program_ns_of(dest);
        self.count_read(ppn, src_type, src_slc, true);
        self.count_program(dest.page_type, dest.slc, ProgramOf::Gc);
        let txn = self.alloc_txn(TxnKind::GcMove, NO_REQUEST, lpn, dest.ppn, plane);
        self.txns[txn as usize].from = ppn;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        if self.timing.one_shot && !dest.slc {
            // One-shot: a page set is programmed at once, so the move gathers up to a
            // full set of valid pages, across victims if need be (one sense each, one
            // program); moving page by page would waste the rest of every wordline,
            // and GC could then consume more pages than it frees.
            sense += self.gather_page_set(&mut cmd, plane, plane, dest.ppn, TxnKind::GcMove);
        }
        program += self.summary_ns(summaries);
        let pages = cmd.txns.len() as u64;
        self.note_gc_moved(pages, src_slc && !dest.slc, false);
        let copyback = self.config.flash.copyback;
        if copyback {
            self.flash_counters.copybacks += pages;
        }
        let bytes = pages * self.timing.page_size_bytes;
        if copyback {
            cmd.set_steps(&[Step::Array(sense), Step::Array(program)]);
        } else {
            let decode = self.gc_decode_steps_of(&cmd.txns)?;
            cmd.set_steps(&[Step::Array(sense), Step::ChannelOut(bytes)]);
            cmd.steps.extend_from_slice(&decode);
            cmd.steps.extend_from_slice(&[Step::ChannelIn(bytes), Step::Array(program)]);
        }
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// A unit map's GC move of a partly valid page: its valid units and those of the
    /// victim's next pages are packed into one page of the plane (`Ftl::compact_into`).
    /// Each source page is sensed; only the units moved cross the channel, out and back
    /// in (no copyback: the page is assembled in the controller).
    pub(crate) fn start_compaction(&mut self, die: u32, plane: u32, ppn: Ppn, lpn: u32) -> Result<bool, SimError> {
        let summaries = self.ftl.counters.along_programs;
        let Some(dest) = self.gc_page(plane, ppn) else {
            return Err(SimError::Stalled {
                time_ns: self.now,
                outstanding: self.outstanding,
                message: format!("plane {plane} has no free page for a GC move"),
            });
        };
        let src_slc = self.ftl.is_slc(ppn);
        let mut sources = Vec::with_capacity(self.ftl.units_per_page() as usize);
        let units = self.ftl.compact_into(plane, ppn, dest.ppn, &mut sources);
        let mut sense = 0;
        for &source in &sources {
            let (t, slc) = (self.ftl.page_type(source), self.ftl.is_slc(source));
            sense += self.timing.read_ns(t, slc);
            self.count_read(source, t, slc, true);
        }
        self.count_program(dest.page_type, dest.slc, ProgramOf::Gc);
        let program = self.program_ns_of(dest) + self.summary_ns(summaries);
        let txn = self.alloc_txn(TxnKind::GcMove, NO_REQUEST, lpn, dest.ppn, plane);
        self.txns[txn as usize].from = ppn;
        self.note_gc_moved(1, src_slc && !dest.slc, false);
        self.flash_counters.compactions += 1;
        let bytes = units as u64 * self.timing.page_size_bytes / self.ftl.units_per_page() as u64;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        let decode = if self.errors.is_some() {
            let pages: Vec<(Ppn, u32)> = sources.iter().map(|&s| (s, lpn)).collect();
            self.gc_decode_steps(&pages)?
        } else {
            Vec::new()
        };
        cmd.set_steps(&[Step::Array(sense), Step::ChannelOut(bytes)]);
        cmd.steps.extend_from_slice(&decode);
        cmd.steps.extend_from_slice(&[Step::ChannelIn(bytes), Step::Array(program)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// One-shot GC: fills the rest of the wordline of `first` (a GC page of `dest_plane`)
    /// with further valid pages of `source`'s victims, adding a `kind` transaction for each
    /// to `cmd`, then skips what is left of the wordline. Returns the extra sense time.
    pub(crate) fn gather_page_set(
        &mut self,
        cmd: &mut Command,
        source: u32,
        dest_plane: u32,
        first: Ppn,
        kind: TxnKind,
    ) -> u64 {
        let mut sense = 0;
        let mut last = first;
        while cmd.txns.len() < self.ftl.bits_per_cell && self.ftl.wordline_has_room(last) {
            let Some((ppn, lpn)) = self.ftl.gc_gather_move(source, self.now) else { break };
            let Some(next) = self.ftl.allocate_gc(dest_plane, self.now) else { break };
            let (t, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            self.ftl.move_page(ppn, next.ppn);
            sense += self.timing.read_ns(t, slc);
            self.count_read(ppn, t, slc, true);
            self.count_program(next.page_type, next.slc, ProgramOf::Gc);
            let txn = self.alloc_txn(kind, NO_REQUEST, lpn, next.ppn, dest_plane);
            self.txns[txn as usize].from = ppn;
            cmd.txns.push(txn);
            last = next.ppn;
        }
        self.ftl.skip_rest_of_wordline(last);
        sense
    }

    /// Starts a (possibly multi-plane) read of the oldest queued read.
    pub(crate) fn start_read(&mut self, die: u32) -> Result<bool, SimError> {
        if self.flows.is_some() {
            self.arbitrate(die, false);
        }
        let Some(&first) = self.dies[die as usize].reads.front() else { return Ok(false) };
        let first_ppn = self.current_ppn(first);
        let addr = &self.ftl.addr;
        let key = (addr.block_in_plane(addr.block_of(first_ppn)), addr.page_in_block(first_ppn));
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        self.dies[die as usize].reads.pop_front();
        self.txns[first as usize].ppn = first_ppn;
        self.verify_read(first)?;
        cmd.txns.push(first);
        if self.config.flash.multi_plane && self.ftl.addr.planes_per_die > 1 {
            let any_address = self.config.flash.multi_plane_any_address;
            let same_block = self.config.flash.multi_plane_same_block;
            let mut used_planes = 1u64 << (self.txns[first as usize].plane % 64);
            let mut i = 0;
            while i < self.dies[die as usize].reads.len().min(MULTI_PLANE_SCAN) {
                let t = self.dies[die as usize].reads[i];
                let ppn = self.current_ppn(t);
                let plane_bit = 1u64 << (self.txns[t as usize].plane % 64);
                let a = &self.ftl.addr;
                if used_planes & plane_bit == 0
                    && (any_address
                        || (a.block_in_plane(a.block_of(ppn)), a.page_in_block(ppn)) == key
                        || !same_block && a.page_in_block(ppn) == key.1)
                {
                    used_planes |= plane_bit;
                    self.txns[t as usize].ppn = ppn;
                    self.verify_read(t)?;
                    cmd.txns.push(t);
                    self.dies[die as usize].reads.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        let mut sense = 0;
        for i in 0..cmd.txns.len() {
            let t = cmd.txns[i];
            let ppn = self.txns[t as usize].ppn;
            let (page_type, slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
            sense = sense.max(self.timing.read_ns(page_type, slc));
            self.count_read(ppn, page_type, slc, false);
            // A read's dominant type is the highest it senses (a dummy read's included): the
            // page that decides its latency when types decide it (DIR §2.5).
            let slot = self.txns[t as usize].request;
            if slot != NO_REQUEST && self.txns[t as usize].kind == TxnKind::Read {
                let r = &mut self.requests[slot as usize];
                r.dominant_type = r.dominant_type.max(if slc { 0 } else { page_type as i32 });
            }
        }
        if cmd.txns.len() > 1 {
            self.flash_counters.multi_plane += 1;
        }
        // (Translation-page reads of a cached mapping table have no request.)
        let user = cmd
            .txns
            .iter()
            .filter(|&&t| self.txns[t as usize].kind == TxnKind::Read && self.txns[t as usize].request != NO_REQUEST)
            .count() as u64;
        self.flash_counters.user_read_pages += user;
        if cmd.txns.len() > 1 {
            self.flash_counters.multi_plane_read_pages += user;
        }
        let decoded = match self.decode_read_command(&cmd.txns) {
            Ok(d) => d,
            Err(e) => {
                self.dies[die as usize].command = cmd;
                return Err(e);
            }
        };
        cmd.set_steps(&[Step::Array(sense), Step::ChannelOut(decoded.bytes)]);
        // Retry rounds sense as long as the slowest page that retries.
        let (rounds, retry_sense) = (decoded.rounds, decoded.retry_sense_ns);
        self.push_retry_rounds(&mut cmd.steps, rounds, retry_sense, |round| self.failing_bytes(round));
        let total_retries = decoded.total_retries;
        self.flash_counters.read_retries += total_retries;
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// Whether a read queued at `block`'s die would still sense a page of `block` (its
    /// logical page was rewritten in another plane, so it reads the copy it was queued for:
    /// `current_ppn`). Checked once per erase, by scanning that die's read queue: nothing is
    /// kept per read on the hot path.
    pub(crate) fn stale_reads_of(&self, block: u32) -> bool {
        let die = self.ftl.addr.die_of_plane(self.ftl.addr.plane_of_block(block));
        // Both the page a read would sense now and the page it was queued for: a read whose
        // logical page later leaves the plane falls back to the latter (`current_ppn`).
        let a = &self.ftl.addr;
        self.dies[die as usize]
            .reads
            .iter()
            .any(|&t| a.block_of(self.current_ppn(t)) == block || a.block_of(self.txns[t as usize].ppn) == block)
    }

    /// Bytes a command's pages move over the channel: whole pages, or each
    /// transaction's `sectors`.
    pub(crate) fn transfer_bytes(&self, txns: &[u32]) -> u64 {
        let page = self.timing.page_size_bytes;
        if !self.config.flash.transfer_requested_bytes && self.cmt.is_none() {
            return txns.len() as u64 * page;
        }
        txns.iter()
            .map(|&t| match self.txns[t as usize].sectors {
                0 => page,
                s => (s as u64 * 512).min(page),
            })
            .sum()
    }

    /// The page a queued read should sense now: its logical page's current location if
    /// that is still in the same plane (GC moves within a plane), else the page it was
    /// queued for (the host overwrote it meanwhile; the old data is read).
    pub(crate) fn current_ppn(&self, txn: u32) -> Ppn {
        let t = &self.txns[txn as usize];
        match self.ftl.unit_page(t.lpn, t.unit as u32) {
            Some(ppn) if self.ftl.addr.plane_of(ppn) == t.plane => ppn,
            _ => t.ppn,
        }
    }

    /// Starts a program of queued writes: page by page (with multi-plane partners at
    /// the same block and page address) or, for one-shot flash, a page set per plane.
    pub(crate) fn start_write(&mut self, die: u32) -> Result<bool, SimError> {
        if self.dies[die as usize].writes.is_empty() {
            return if self.at_service.is_some() { self.start_write_at_service(die) } else { Ok(false) };
        }
        if self.flows.is_some() {
            self.arbitrate(die, true);
        }
        if self.timing.one_shot {
            return self.start_one_shot(die);
        }
        // The oldest write whose plane has room; writes to a full plane wait for GC.
        let queue_len = self.dies[die as usize].writes.len();
        let mut chosen = None;
        for i in 0..queue_len {
            let t = self.dies[die as usize].writes[i];
            if matches!(self.txns[t as usize].kind, TxnKind::PartialProgram | TxnKind::Reprogram) {
                if let Some(started) = self.start_partial_or_reprogram(die, i, t)? {
                    return Ok(started);
                }
            }
            if self.write_has_room(t) {
                chosen = Some(i);
                break;
            }
        }
        let Some(index) = chosen else { return Ok(false) };
        let first = self.dies[die as usize].writes.remove(index).expect("index in range");
        if self.txns[first as usize].units < self.ftl.units_per_page() as u8 {
            return self.start_packed_write(die, first);
        }
        let first_plane = self.txns[first as usize].plane;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(first);
        // A translation page is programmed on its own write point, alone.
        let mapping = self.txns[first as usize].mode == WriteMode::Mapping;
        let partner = if mapping { None } else { self.write_partner(die, first) };
        if let Some(i) = partner {
            let partner = self.dies[die as usize].writes.remove(i).expect("index in range");
            cmd.txns.push(partner);
        } else if !mapping
            && self.config.flash.multi_plane
            && self.ftl.addr.planes_per_die > 1
            && self.pairs_user_writes()
            && self.joins_multi_plane(first)
        {
            let key = self.peek_write_page(first);
            let any_address = self.config.flash.multi_plane_any_address;
            let mut used_planes = 1u64 << (first_plane % 64);
            let mut i = 0;
            while i < self.dies[die as usize].writes.len().min(MULTI_PLANE_SCAN) {
                let t = self.dies[die as usize].writes[i];
                let plane = self.txns[t as usize].plane;
                let plane_bit = 1u64 << (plane % 64);
                let is_write =
                    self.txns[t as usize].kind == TxnKind::Write && self.txns[t as usize].mode != WriteMode::Mapping;
                // (With any addresses the partner's plane must still have room of its own.)
                let pairs = if any_address {
                    self.write_has_room(t)
                } else if self.config.flash.multi_plane_same_block {
                    self.peek_write_page(t) == key
                } else {
                    self.peek_write_page(t).map(|k| k.1) == key.map(|k| k.1)
                };
                if is_write && used_planes & plane_bit == 0 && pairs && self.joins_multi_plane(t) {
                    used_planes |= plane_bit;
                    cmd.txns.push(t);
                    self.dies[die as usize].writes.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        let mut program = 0;
        let summaries = self.ftl.counters.along_programs;
        if self.ftl.mapping == Mapping::HalfPages && cmd.txns.len() > 1 {
            program = self.bind_interleaved(&cmd.txns);
        } else {
            for k in 0..cmd.txns.len() {
                let t = cmd.txns[k];
                let a = self.user_write_page(t);
                program = program.max(self.program_ns_of(a));
                self.bind_write(t, a.ppn, a.page_type, a.slc);
            }
        }
        program += self.summary_ns(summaries);
        if cmd.txns.len() > 1 {
            self.flash_counters.multi_plane += 1;
        }
        let bytes = self.transfer_bytes(&cmd.txns);
        cmd.set_steps(&[Step::ChannelIn(bytes), Step::Array(program)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// `start_write`'s queued write `t` (at `i` in the die's write queue) that is a partial
    /// program or a reprogram (off by default: IPU, DIR): started if it still fits
    /// (`Some`), else made an ordinary write that `start_write` goes on to place (`None`).
    #[cold]
    #[inline(never)]
    fn start_partial_or_reprogram(&mut self, die: u32, i: usize, t: u32) -> Result<Option<bool>, SimError> {
        if self.txns[t as usize].kind == TxnKind::PartialProgram {
            if self.partial_program_still_fits(t) {
                let t = self.dies[die as usize].writes.remove(i).expect("index in range");
                return self.start_partial_program(die, t).map(Some);
            }
            // GC moved the page or it filled up meanwhile: write a whole new page (a
            // write buffered like any other from now on; its completion counts it out).
            self.txns[t as usize].kind = TxnKind::Write;
            self.txns[t as usize].subpages = 0;
            self.buffered_write_pages += 1;
        }
        if self.txns[t as usize].kind == TxnKind::Reprogram {
            if self.reprogram_still_fits(t) {
                self.dies[die as usize].writes.remove(i);
                if self.start_reprogram(die, t)? {
                    return Ok(Some(true));
                }
                self.dies[die as usize].writes.insert(i, t);
            }
            // Moved or no longer claimed: an ordinary write from now on.
            self.reprogram_as_write(t);
        }
        Ok(None)
    }

    /// The page a queued user write takes now: the design's choice, else the next page of
    /// the write stream its mode asks for. Its plane's room was checked.
    pub(crate) fn user_write_page(&mut self, t: u32) -> Allocated {
        let plane = self.txns[t as usize].plane;
        if self.txns[t as usize].mode == WriteMode::Mapping {
            return self.ftl.allocate_map(plane, self.now).expect("room was checked");
        }
        let a = match self.user_page(t) {
            Some(a) => Some(a),
            None => match self.txns[t as usize].mode {
                WriteMode::Tlc => self.ftl.allocate_normal(plane, self.now),
                WriteMode::UserPoint(k) => self.ftl.allocate_user_point(plane, k.into(), self.now),
                WriteMode::SlcLevel(l) => self.ftl.allocate_slc_level(plane, l.into(), self.now),
                _ => self.ftl.allocate_user(plane, self.now),
            },
        };
        a.expect("room was checked")
    }

    /// Maps a user write to its page (its units in their own slots) and counts the
    /// program.
    pub(crate) fn bind_write(&mut self, txn: u32, ppn: Ppn, page_type: u8, slc: bool) {
        let (unit, units) = (self.txns[txn as usize].unit as u32, self.txns[txn as usize].units as u32);
        let slot = if self.ftl.mapping == Mapping::Subpages { 0 } else { unit };
        self.bind_parts(txn, &[(ppn, slot, unit, units)], page_type, slc);
        let of = if self.txns[txn as usize].mode == WriteMode::Mapping { ProgramOf::Mapping } else { ProgramOf::User };
        self.count_program(page_type, slc, of);
    }

    /// Maps a user write's units to the pages it is programmed into: `parts` lists (page,
    /// first slot, first unit, units), the write's own page (its plane's) first. Pins the
    /// copies it supersedes, issues its version, records its page type on the request.
    /// Counting the programs is the caller's: pages may carry several writes.
    pub(crate) fn bind_parts(&mut self, txn: u32, parts: &[(Ppn, u32, u32, u32)], page_type: u8, slc: bool) {
        let t = &mut self.txns[txn as usize];
        let ppn = parts[0].0;
        t.ppn = ppn;
        t.page_type = page_type;
        t.slc = slc;
        let (lpn, request, subpages, acked, t_kind) = (t.lpn, t.request, t.subpages, t.acked, t.kind);
        let (unit, units) = (t.unit as u32, t.units as u32);
        if slc && t_kind != TxnKind::PartialProgram {
            // A unit map's page holds data up to the end of this write's slots (a packed
            // page: of the last write bound so far).
            let used = if self.ftl.unit_shift == 0 { subpages } else { (parts[0].1 + parts[0].3) as u8 };
            self.ftl.mark_programmed(ppn, used);
        }
        // The pages holding the copies this write supersedes (one with a page map).
        let mut old = [NO_PAGE; 8];
        let mut olds = 0;
        for k in unit..unit + units {
            if let Some(p) = self.ftl.unit_page(lpn, k) {
                if !old[..olds].contains(&p) {
                    old[olds] = p;
                    olds += 1;
                }
            }
        }
        for &p in &old[..olds] {
            self.ftl.pin(p);
        }
        self.txns[txn as usize].from = old[0];
        if olds > 1 && !self.ftl.pinned.is_empty() {
            self.extra_pins.insert(txn, old[1..olds].to_vec());
        }
        let version = self.ftl.issue_version(lpn, unit, units);
        for &(page, slot, first, count) in parts {
            self.ftl.commit_units(lpn, first, count, page, slot);
        }
        for &p in &old[..olds] {
            self.note_invalidated(p);
        }
        self.txns[txn as usize].version = version;
        self.write_bound(txn, slc);
        // An acknowledged write's request slot may already serve another request.
        if !acked {
            let r = &mut self.requests[request as usize];
            r.dominant_type = r.dominant_type.max(page_type as i32);
        }
    }

    /// A half-page map's multi-plane program (DIR §3.1): each pair of its writes (L, M),
    /// queued for planes a and b, is interleaved over their two pages A and B: A holds
    /// the first halves of L and M, B the second halves, so reading either logical page
    /// senses both pages. An odd last write keeps its page whole. Returns the program
    /// time (the slowest page's).
    pub(crate) fn bind_interleaved(&mut self, txns: &[u32]) -> u64 {
        let mut program = 0;
        let mut k = 0;
        while k < txns.len() {
            if k + 1 == txns.len() {
                let a = self.user_write_page(txns[k]);
                program = program.max(self.program_ns_of(a));
                self.bind_write(txns[k], a.ppn, a.page_type, a.slc);
                break;
            }
            let (l, m) = (txns[k], txns[k + 1]);
            let (a, b) = match self.pair_pages(l, m) {
                Some(pages) => pages,
                None => (self.user_write_page(l), self.user_write_page(m)),
            };
            program = program.max(self.program_ns_of(a)).max(self.program_ns_of(b));
            self.bind_parts(l, &[(a.ppn, 0, 0, 1), (b.ppn, 0, 1, 1)], a.page_type.max(b.page_type), a.slc);
            self.bind_parts(m, &[(b.ppn, 1, 1, 1), (a.ppn, 1, 0, 1)], a.page_type.max(b.page_type), b.slc);
            self.count_program(a.page_type, a.slc, ProgramOf::User);
            self.count_program(b.page_type, b.slc, ProgramOf::User);
            self.flash_counters.interleaved_pairs += 1;
            k += 2;
        }
        program
    }

    /// A subpage map's write of part of a page (MGA, IPU §4): further partial writes
    /// queued for the same plane whose subpages fit the rest of the page are packed into
    /// it, in queue order, and the page is programmed once with only their data crossing
    /// the channel.
    pub(crate) fn start_packed_write(&mut self, die: u32, first: u32) -> Result<bool, SimError> {
        let units_per_page = self.ftl.units_per_page();
        let plane = self.txns[first as usize].plane;
        let mut free = units_per_page - self.txns[first as usize].units as u32;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(first);
        let mut i = 0;
        let packs = self.packs_small_writes();
        while packs && free > 0 && i < self.dies[die as usize].writes.len().min(MULTI_PLANE_SCAN) {
            let t = self.dies[die as usize].writes[i];
            let txn = &self.txns[t as usize];
            let fits = txn.kind == TxnKind::Write
                && txn.plane == plane
                && (txn.units as u32) <= free
                && !cmd.txns.iter().any(|&c| self.txns[c as usize].lpn == txn.lpn);
            if fits {
                free -= txn.units as u32;
                cmd.txns.push(t);
                self.dies[die as usize].writes.remove(i);
            } else {
                i += 1;
            }
        }
        let summaries = self.ftl.counters.along_programs;
        let a = self.user_write_page(first);
        let mut slot = 0;
        for k in 0..cmd.txns.len() {
            let t = cmd.txns[k];
            let (unit, units) = (self.txns[t as usize].unit as u32, self.txns[t as usize].units as u32);
            self.bind_parts(t, &[(a.ppn, slot, unit, units)], a.page_type, a.slc);
            slot += units;
        }
        self.count_program(a.page_type, a.slc, ProgramOf::User);
        if cmd.txns.len() > 1 {
            self.flash_counters.packed_programs += 1;
        }
        let program = self.program_ns_of(a) + self.summary_ns(summaries);
        let bytes = slot as u64 * self.timing.page_size_bytes / units_per_page as u64;
        cmd.set_steps(&[Step::ChannelIn(bytes), Step::Array(program)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// One-shot programming (3D flash, seed 001 §II-A): a plane's buffered writes are programmed as one page set
    /// when a full set is gathered or the oldest has waited the program delay.
    pub(crate) fn start_one_shot(&mut self, die: u32) -> Result<bool, SimError> {
        let bits = self.ftl.bits_per_cell;
        let delay = self.timing.program_delay_ns;
        let mut oldest_wait = u64::MAX;
        for plane in self.die_planes(die) {
            // SLC-mode blocks program page by page: the plane's first write bound for SLC
            // goes alone. The others wait in DRAM for a page set of normal blocks.
            let slc_room = self.ftl.slc_blocks[plane as usize] > 0 && self.ftl.slc_room(plane) > 0;
            let to_slc = |t: &Txn| slc_room && !matches!(t.mode, WriteMode::Tlc | WriteMode::UserPoint(_));
            let mut count = 0;
            let mut oldest = u64::MAX;
            let mut slc_first = None;
            for (i, &t) in self.dies[die as usize].writes.iter().enumerate() {
                let txn = &self.txns[t as usize];
                if txn.plane != plane {
                    continue;
                }
                if to_slc(txn) {
                    slc_first = slc_first.or(Some(i));
                } else {
                    count += 1;
                    oldest = oldest.min(txn.enqueued_ns);
                }
            }
            let slc_next = slc_first.is_some();
            if !slc_next && (count == 0 || !self.ftl.can_allocate_normal(plane)) {
                continue;
            }
            let due = oldest.saturating_add(delay);
            // A set fills the rest of the write point's wordline: less than a whole one
            // when the write point was left inside a wordline (preconditioning and reads of
            // never-written pages place single pages), and never more than the plane has.
            let set = if slc_next { 1 } else { self.ftl.user_page_set(plane) as usize };
            debug_assert!(set > 0, "a plane that can take a user write has room for a set");
            if count >= set || self.now >= due || slc_next {
                let take = if slc_next { 1 } else { count.min(set) };
                let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
                cmd.txns.clear();
                if let Some(i) = slc_first {
                    let t = self.dies[die as usize].writes.remove(i).expect("index in range");
                    cmd.txns.push(t);
                }
                let mut i = 0;
                while cmd.txns.len() < take {
                    let t = self.dies[die as usize].writes[i];
                    let txn = &self.txns[t as usize];
                    if txn.plane == plane && !to_slc(txn) {
                        cmd.txns.push(t);
                        self.dies[die as usize].writes.remove(i);
                    } else {
                        i += 1;
                    }
                }
                let mut last = NO_PAGE;
                let mut program = 0;
                let summaries = self.ftl.counters.along_programs;
                for k in 0..cmd.txns.len() {
                    let t = cmd.txns[k];
                    let a = if slc_next {
                        self.ftl.allocate_user(plane, self.now)
                    } else {
                        self.ftl.allocate_normal(plane, self.now)
                    };
                    let a = a.expect("room was checked");
                    program = program.max(self.program_ns_of(a));
                    last = a.ppn;
                    self.bind_write(t, a.ppn, a.page_type, a.slc);
                }
                if !slc_next && cmd.txns.len() < bits && self.ftl.wordline_has_room(last) {
                    self.flash_counters.partial_page_sets += 1;
                }
                if !slc_next && cmd.txns.len() < bits {
                    self.ftl.skip_rest_of_wordline(last);
                }
                program += self.summary_ns(summaries);
                let pages = cmd.txns.len() as u32;
                cmd.set_steps(&[Step::ChannelIn(pages as u64 * self.timing.page_size_bytes), Step::Array(program)]);
                self.dies[die as usize].command = cmd;
                self.mark_busy(die);
                self.advance_command(die)?;
                return Ok(true);
            }
            oldest_wait = oldest_wait.min(due);
        }
        if oldest_wait != u64::MAX && !self.dies[die as usize].delay_pending {
            self.dies[die as usize].delay_pending = true;
            self.push(oldest_wait, Event::ProgramDelay { die });
        }
        Ok(false)
    }
}

/// GC moves to another plane (of this die, another die or another chip): the source die
/// senses and transfers out, the destination die transfers in and programs.
impl Simulator<'_> {
    /// Sense the victim's next valid pages (up to a page set on one-shot flash) and carry
    /// them out over the channel; the destination die transfers them in and programs them
    /// (`forward_moved_pages`). The map points at the destination from now, like every GC
    /// move (state changes when a command starts).
    pub(crate) fn start_move_out(
        &mut self,
        die: u32,
        plane: u32,
        to: u32,
        ppn: Ppn,
        lpn: u32,
    ) -> Result<bool, SimError> {
        let dest = self.gc_page_elsewhere(to).expect("the design picks a target with free blocks to spare");
        let (src_type, src_slc) = (self.ftl.page_type(ppn), self.ftl.is_slc(ppn));
        let mut sense = self.timing.read_ns(src_type, src_slc);
        self.ftl.move_page(ppn, dest.ppn);
        if self.cmt.is_some() {
            self.cmt_gc_moved(plane, lpn);
        }
        self.count_read(ppn, src_type, src_slc, true);
        self.count_program(dest.page_type, dest.slc, ProgramOf::Gc);
        let txn = self.alloc_txn(TxnKind::MoveOut, NO_REQUEST, lpn, dest.ppn, to);
        self.txns[txn as usize].from = ppn;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        if self.timing.one_shot && !dest.slc {
            sense += self.gather_page_set(&mut cmd, plane, to, dest.ppn, TxnKind::MoveOut);
        }
        let pages = cmd.txns.len() as u64;
        self.note_gc_moved(pages, src_slc && !dest.slc, true);
        let decode = self.gc_decode_steps_of(&cmd.txns)?;
        cmd.set_steps(&[Step::Array(sense), Step::ChannelOut(pages * self.timing.page_size_bytes)]);
        cmd.steps.extend_from_slice(&decode);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }

    /// The source die has read moved pages out: they wait at the destination die.
    pub(crate) fn forward_moved_pages(&mut self, txns: &[u32]) -> Result<(), SimError> {
        let first = &self.txns[txns[0] as usize];
        let (target, page_type, slc) = (first.plane, self.ftl.page_type(first.ppn), self.ftl.is_slc(first.ppn));
        let program = self.program_ns_of(Allocated { ppn: first.ppn, page_type, slc });
        let mut group = [0u32; 4];
        group[..txns.len()].copy_from_slice(txns);
        let die = self.ftl.addr.die_of_plane(target);
        self.moves_in[die as usize].push_back((group, txns.len() as u8, program));
        self.kick(die)
    }

    /// Programs pages another plane moved out to this die, before the die's other work.
    #[cold]
    #[inline(never)]
    pub(crate) fn start_moved_in(&mut self, die: u32) -> Result<bool, SimError> {
        let Some((txns, n, program)) = self.moves_in[die as usize].pop_front() else { return Ok(false) };
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        for &t in &txns[..n as usize] {
            self.txns[t as usize].kind = TxnKind::GcMove;
            cmd.txns.push(t);
        }
        let bytes = n as u64 * self.timing.page_size_bytes;
        cmd.set_steps(&[Step::ChannelIn(bytes), Step::Array(program)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }
}
