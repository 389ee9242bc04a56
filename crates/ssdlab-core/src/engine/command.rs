//! Running a command: its steps in order (array phases on the die, transfers on the
//! channel, granted FIFO), then the completion of its transactions, which may complete
//! sub-requests and requests and free the die for its next command.

use super::*;

impl Simulator<'_> {
    /// The (block-in-plane, page) queued user write `t` would get now, without a design's
    /// choice (`user_page`): the next page of the write point its mode names, else of the
    /// FTL's own choice. Multi-plane programs need equal addresses in every plane.
    pub(crate) fn peek_write_page(&self, t: u32) -> Option<(u32, u32)> {
        let plane = self.txns[t as usize].plane;
        match self.txns[t as usize].mode {
            WriteMode::UserPoint(k) => self.ftl.peek_user_point(plane, k.into()),
            WriteMode::SlcLevel(l) => self.ftl.peek_slc_level(plane, l.into()),
            _ => self.ftl.peek_user(plane),
        }
    }

    /// Tells the occupancy checker which step the die runs next (and, for a new command,
    /// what the command is).
    pub(crate) fn check_step(&mut self, die: u32) {
        let d = &self.dies[die as usize];
        let index = d.command.next;
        let now = self.now;
        let channel = self.ftl.addr.channel_of_die(die);
        if index == 0 {
            let a = &self.ftl.addr;
            let steps: Vec<occupancy::StepDesc> = d
                .command
                .steps
                .iter()
                .map(|s| match *s {
                    Step::Array(ns) => occupancy::StepDesc::Array(ns),
                    Step::ChannelOut(_) => occupancy::StepDesc::Out,
                    Step::ChannelIn(_) => occupancy::StepDesc::In,
                })
                .collect();
            let txns: Vec<(u32, u32, (u32, u32))> = d
                .command
                .txns
                .iter()
                .map(|&t| {
                    let txn = &self.txns[t as usize];
                    match txn.kind {
                        TxnKind::Erase => (t, txn.plane, (a.block_in_plane(txn.ppn), 0)),
                        _ => {
                            // A page read out for another plane is sensed in its source plane.
                            let ppn = if txn.kind == TxnKind::MoveOut { txn.from } else { txn.ppn };
                            (t, a.plane_of(ppn), (a.block_in_plane(a.block_of(ppn)), a.page_in_block(ppn)))
                        }
                    }
                })
                .collect();
            let kind = match d.command.txns.first().map(|&t| self.txns[t as usize].kind) {
                Some(TxnKind::Read | TxnKind::UpdateRead) => occupancy::CommandKind::Read,
                Some(TxnKind::Write) => occupancy::CommandKind::Program,
                Some(TxnKind::PartialProgram) => occupancy::CommandKind::PartialProgram,
                Some(TxnKind::Reprogram) => occupancy::CommandKind::Reprogram,
                Some(TxnKind::MoveOut) => occupancy::CommandKind::MoveOut,
                Some(TxnKind::Erase) => occupancy::CommandKind::Erase,
                Some(TxnKind::Scrub) => occupancy::CommandKind::Scrub,
                Some(TxnKind::ScanRead) => occupancy::CommandKind::ScanRead,
                Some(TxnKind::GcMove) | None => occupancy::CommandKind::GcMove,
            };
            let desc = occupancy::CommandDesc {
                kind,
                steps: &steps,
                txns: &txns,
                planes: self.die_planes(die),
                any_address: self.config.flash.multi_plane_any_address,
                any_block: !self.config.flash.multi_plane_same_block,
            };
            let o = self.occupancy.as_mut().expect("checking is on");
            let check = o.command_started(die, now, &desc);
            o.note(check);
        }
        let o = self.occupancy.as_mut().expect("checking is on");
        let check = o.step(die, index, now, channel);
        o.note(check);
    }

    /// Runs the current command's next step, or completes the command.
    pub(crate) fn advance_command(&mut self, die: u32) -> Result<(), SimError> {
        if self.occupancy.is_some() {
            self.check_step(die);
        }
        let d = &mut self.dies[die as usize];
        let step = d.command.steps.get(d.command.next).copied();
        d.command.next += 1;
        match step {
            Some(Step::Array(ns)) => {
                self.push(self.now + ns, Event::DieDone { die });
            }
            Some(Step::ChannelOut(_)) | Some(Step::ChannelIn(_)) => {
                let channel = self.ftl.addr.channel_of_die(die);
                let ch = &mut self.channels[channel as usize];
                if ch.holder.is_some() {
                    ch.waiting.push_back(die);
                } else {
                    self.start_transfer(channel, die);
                }
            }
            None => self.complete_command(die)?,
        }
        Ok(())
    }

    /// A command starts on `die` (its chip stops idling if it was).
    pub(crate) fn mark_busy(&mut self, die: u32) {
        if self.dies[die as usize].busy {
            return;
        }
        self.dies[die as usize].busy = true;
        let chip = &mut self.chip_busy[self.ftl.addr.chip_of_die(die) as usize];
        if chip.dies_busy == 0 {
            chip.since_ns = self.now;
        }
        chip.dies_busy += 1;
        self.service_command_started(die);
        self.command_started(die);
    }

    pub(crate) fn mark_idle(&mut self, die: u32) {
        if !self.dies[die as usize].busy {
            return;
        }
        self.dies[die as usize].busy = false;
        self.service_idle(die);
        let chip = &mut self.chip_busy[self.ftl.addr.chip_of_die(die) as usize];
        chip.dies_busy -= 1;
        if chip.dies_busy == 0 {
            chip.busy_ns += self.now - chip.since_ns;
        }
    }

    /// Whether `die`'s command is GC work (for the energy split).
    pub(crate) fn gc_command(&self, die: u32) -> bool {
        self.dies[die as usize]
            .command
            .txns
            .first()
            .is_some_and(|&t| matches!(self.txns[t as usize].kind, TxnKind::GcMove | TxnKind::MoveOut | TxnKind::Erase))
    }

    pub(crate) fn start_transfer(&mut self, channel: u32, die: u32) {
        let d = &self.dies[die as usize];
        let bytes = match d.command.steps[d.command.next - 1] {
            Step::ChannelOut(bytes) | Step::ChannelIn(bytes) => bytes,
            _ => unreachable!("transfer step expected"),
        };
        self.channels[channel as usize].holder = Some(die);
        let nj = self.timing.transfer_nj_per_byte * bytes as f64;
        self.energy.transfer += nj;
        if self.gc_command(die) {
            self.energy_gc += nj;
        }
        let ns = self.timing.transfer_bytes_ns(bytes);
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.transfer_started(channel, die, self.now, ns);
            o.note(check);
        }
        self.push(self.now + ns, Event::ChannelDone { channel });
    }

    pub(crate) fn on_channel_done(&mut self, channel: u32) -> Result<(), SimError> {
        if let Some(o) = self.occupancy.as_mut() {
            let check = o.transfer_ended(channel, self.now);
            o.note(check);
        }
        let ch = &mut self.channels[channel as usize];
        let holder = ch.holder.take().expect("channel holder");
        if let Some(next) = ch.waiting.pop_front() {
            self.start_transfer(channel, next);
        }
        // SSDSim's buffer (`cache.flush = "ssdsim"`) answers a write that evicted a page
        // once the page's data is in the chip, before its program.
        let data_in = self.cache_answers_at_transfer && self.program_data_in(holder);
        self.advance_command(holder)?;
        if data_in {
            self.cache_flush_data_in(holder)?;
        }
        if self.config.flash.issue_on_idle_channel {
            self.channel_went_idle(channel)?;
        }
        if self.at_service.is_some() {
            self.offer_idle_channel(channel)?;
        }
        Ok(())
    }

    /// Whether the transfer `die` just ended was the last data moved into it before the
    /// array step of its command.
    fn program_data_in(&self, die: u32) -> bool {
        let cmd = &self.dies[die as usize].command;
        matches!(cmd.steps[cmd.next - 1], Step::ChannelIn(_)) && matches!(cmd.steps.get(cmd.next), Some(Step::Array(_)))
    }

    pub(crate) fn complete_command(&mut self, die: u32) -> Result<(), SimError> {
        self.command_ended(die);
        self.service_command_ended(die);
        // A command the completion starts on this die is built in a spare's buffers, so
        // that neither allocates.
        let spare = self.spare_commands.pop().unwrap_or_default();
        let cmd = std::mem::replace(&mut self.dies[die as usize].command, spare);
        self.mark_idle(die);
        // (Decided before completing: a completion can start commands that reuse the slots.)
        let moved_out = cmd.txns.first().is_some_and(|&t| self.txns[t as usize].kind == TxnKind::MoveOut);
        for &t in &cmd.txns {
            let txn = self.txns[t as usize];
            match txn.kind {
                TxnKind::Read | TxnKind::UpdateRead if txn.decode_ns > 0 => {
                    self.push(self.now + txn.decode_ns as u64, Event::Decoded { txn: t });
                }
                _ => self.complete_txn(t)?,
            }
        }
        // Pages read out for another plane go on to their destination die (which may be
        // this one: another plane of the same die).
        if moved_out {
            self.forward_moved_pages(&cmd.txns)?;
        }
        // Completing a transaction can start the next command on this very die (an
        // update read queues its write); only an idle die gets the old buffer back.
        let mut cmd = cmd;
        cmd.txns.clear();
        if self.dies[die as usize].busy {
            self.spare_commands.push(cmd);
            return Ok(());
        }
        let spare = std::mem::replace(&mut self.dies[die as usize].command, cmd);
        self.spare_commands.push(spare);
        self.schedule_freed(die)
    }

    pub(crate) fn complete_txn(&mut self, t: u32) -> Result<(), SimError> {
        let txn = self.txns[t as usize];
        if txn.kind == TxnKind::MoveOut {
            // Not freed: the destination die programs it (`forward_moved_pages`).
            return Ok(());
        }
        if let Some(o) = self.occupancy.as_mut() {
            let decode_ns =
                if matches!(txn.kind, TxnKind::Read | TxnKind::UpdateRead) { txn.decode_ns as u64 } else { 0 };
            let check = o.txn_completed(t, self.now, decode_ns);
            o.note(check);
        }
        self.free_txns.push(t);
        match txn.kind {
            TxnKind::Write => {
                self.buffered_write_pages -= 1;
                self.write_programmed(txn.plane)?;
                self.ftl.acknowledge(txn.lpn, txn.unit as u32, txn.units as u32, txn.version);
                if txn.from != NO_PAGE && txn.mode != WriteMode::Mapping {
                    // The old copy is no longer needed: the design may destroy it (and keep
                    // the request waiting until it has). Told before the unpin below, which
                    // may let GC erase the copy's block at once.
                    let waiting = if txn.acked { NO_REQUEST } else { txn.request };
                    self.copy_released(txn.from, waiting)?;
                }
                self.release_superseded(txn.from)?;
                if let Some(extra) = self.extra_pins_of(t) {
                    for old in extra {
                        self.release_superseded(old)?;
                    }
                }
                self.write_landed(txn.lpn)?;
                if txn.mode == WriteMode::Mapping {
                    return self.cmt_program_done(txn.lpn);
                }
                if txn.request == NO_REQUEST {
                    return self.cache_flush_txn_done(txn.lpn);
                }
                if self.config.power.write_acknowledge == WriteAcknowledge::Buffer {
                    return self.buffered_write_programmed(t, txn.acked, txn.request);
                }
                if self.bypass.is_some() {
                    self.bypass_write_done(t, txn.lpn)?;
                }
                self.finish_sub_request(txn.request)
            }
            TxnKind::PartialProgram | TxnKind::Reprogram => {
                self.ftl.partial_program_done(txn.ppn);
                self.ftl.acknowledge(txn.lpn, txn.unit as u32, txn.units as u32, txn.version);
                self.release_superseded(txn.from)?;
                if let Some(extra) = self.extra_pins_of(t) {
                    for old in extra {
                        self.release_superseded(old)?;
                    }
                }
                self.write_landed(txn.lpn)?;
                if txn.request == NO_REQUEST {
                    return self.cache_flush_txn_done(txn.lpn);
                }
                self.finish_sub_request(txn.request)
            }
            TxnKind::Read => {
                if txn.request == NO_REQUEST {
                    return self.cmt_read_done(txn.lpn, txn.want);
                }
                self.requests[txn.request as usize].retries += txn.retries as u32;
                if self.cache.is_some() {
                    self.cache_fill(txn.lpn);
                }
                if self.bypass.is_some() {
                    self.bypass_read_done(t, txn.lpn)?;
                }
                self.finish_sub_request(txn.request)
            }
            TxnKind::UpdateRead => {
                self.flash_counters.update_reads += 1;
                // A flush's program stays a flush's (queued before the read is counted done).
                self.flushing = txn.request == NO_REQUEST;
                let die = self.enqueue_write_units(txn.request, txn.lpn, 0, txn.unit as u32, txn.units as u32);
                self.flushing = false;
                let die = die?;
                if self.bypass.is_some() {
                    self.bypass_write_requeued(t, txn.lpn);
                }
                if txn.request == NO_REQUEST {
                    self.cache_flush_txn_done(txn.lpn)?;
                }
                self.kick(die)
            }
            TxnKind::GcMove => Ok(()),
            TxnKind::Erase => self.erase_done(txn.ppn),
            TxnKind::Scrub | TxnKind::ScanRead => self.maintenance_done(txn.kind, txn.lpn),
            TxnKind::MoveOut => unreachable!("handled above"),
        }
    }

    /// The superseded copies write `t` pinned beyond its `from`, taken out. Few runs have
    /// any (a unit map's write over several pages): the empty map is not hashed into.
    #[inline]
    fn extra_pins_of(&mut self, t: u32) -> Option<Vec<Ppn>> {
        if self.extra_pins.is_empty() {
            return None;
        }
        self.extra_pins.remove(&t)
    }

    /// A user write is programmed: the copy it superseded may now be erased by GC.
    pub(crate) fn release_superseded(&mut self, old: Ppn) -> Result<(), SimError> {
        if old == NO_PAGE || self.ftl.pinned.is_empty() {
            return Ok(());
        }
        self.ftl.unpin(old);
        // GC of that block may be waiting for exactly this.
        let die = self.ftl.addr.die_of_plane(self.ftl.addr.plane_of(old));
        self.kick(die)
    }

    /// DRAM-buffer acknowledgement: a buffered page was programmed, so its buffer slot
    /// frees and the oldest write waiting for one is acknowledged.
    /// (`txn` is already freed: its slot may have been reused, so the caller passes what
    /// is needed.)
    pub(crate) fn buffered_write_programmed(&mut self, txn: u32, acked: bool, request: u32) -> Result<(), SimError> {
        if !acked {
            // Still waiting for a slot when its own program finished (it never held
            // one): done now.
            if let Some(i) = self.ack_waiting.iter().position(|&w| w == txn) {
                self.ack_waiting.remove(i);
            }
            return self.finish_sub_request(request);
        }
        match self.ack_waiting.pop_front() {
            Some(next) => self.acknowledge_buffered(next),
            None => Ok(()),
        }
    }
}
