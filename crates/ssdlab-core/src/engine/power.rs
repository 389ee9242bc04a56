//! Power failures (`power.loss_at_ns`): what a loss destroys, the recovery that follows
//! and its modelled duration.
//!
//! At a loss every volatile structure goes: queued and in-flight flash commands, the
//! outstanding host requests (they fail: unacknowledged), the DRAM write buffer, the
//! mapping table. Programs in flight are torn. With `power.write_acknowledge = "buffer"`
//! the drive has power-loss protection: capacitors keep it up until the programs in
//! flight finish and every buffered page is programmed, so no acknowledged write is lost.
//! The FTL then rebuilds its map from the pages' out-of-band areas
//! (`Ftl::power_loss_recover`); the drive is back after `power.off_ns` plus the scan's
//! modelled time, and requests that arrive meanwhile wait in the host.

use super::{Event, RunSlot, Simulator, Step, TxnKind};
use crate::config::ReplayMode;
use crate::flash::Ppn;
use crate::ftl::recovery::RecoveryScan;
use crate::stats::{PowerLossCounts, PowerLossRecord, PowerSummary};
use crate::SimError;

/// What a loss left for recovery: pages torn by programs in flight and blocks whose erase
/// was cut.
#[derive(Default)]
struct Wreck {
    torn: Vec<Ppn>,
    erases_in_flight: Vec<u32>,
}

impl Simulator<'_> {
    pub(crate) fn on_power_loss(&mut self) -> Result<(), SimError> {
        let mut record = PowerLossRecord { at_ns: self.now, ..PowerLossRecord::default() };
        self.fail_outstanding_requests(&mut record.counts);
        let mut wreck = Wreck::default();
        let mut die_flush_ns = vec![0u64; self.dies.len()];
        self.bind_unbound_for_power_loss();
        for (die, flush_ns) in die_flush_ns.iter_mut().enumerate() {
            *flush_ns = self.cut_die(die, &mut record, &mut wreck);
        }
        // Flushes whose read-modify-write read was being decoded: programmed from DRAM.
        // (In the order they were due: the queue's own order of storage is no order.)
        let mut decoding: Vec<(u64, u64, u32)> = self
            .events
            .iter()
            .filter_map(|s| if let Event::Decoded { txn } = s.event { Some((s.time, s.seq, txn)) } else { None })
            .filter(|&(_, _, t)| {
                self.txns[t as usize].kind == TxnKind::UpdateRead && self.txns[t as usize].request == super::NO_REQUEST
            })
            .collect();
        decoding.sort_unstable();
        for (_, _, t) in decoding {
            self.txns[t as usize].kind = TxnKind::Write;
            if let Some((die, ns)) = self.plp_flush(t, &mut record) {
                die_flush_ns[die] += ns;
            }
        }
        // The DRAM cache's dirty pages, least recently used first, on capacitor power.
        for (lpn, mask) in self.cache_power_lost() {
            let units = self.cache_units_of(mask);
            let plane = self.allocator_plane(lpn);
            let txn = self.alloc_txn(TxnKind::Write, super::NO_REQUEST, lpn, crate::flash::NO_PAGE, plane);
            let t = &mut self.txns[txn as usize];
            (t.unit, t.units, t.acked) = (units.0 as u8, units.1 as u8, true);
            if let Some((die, ns)) = self.plp_flush(txn, &mut record) {
                die_flush_ns[die] += ns;
            }
        }
        record.plp_flush_ns = die_flush_ns.into_iter().max().unwrap_or(0);
        self.drop_volatile_state(&mut record.counts);

        let scan = self.ftl.power_loss_recover(&wreck.torn, &wreck.erases_in_flight);
        self.ftl.settle_lost();
        self.power_recovered();
        record.mapped_pages = scan.mapped_pages;
        record.abandoned_pages = scan.abandoned_pages;
        record.recovery_reads = scan.reads_per_die.iter().sum();
        record.summary_reads = scan.summary_reads_per_die.iter().sum();
        record.recovery_ns = self.recovery_ns(&scan);
        let back = self.now + record.plp_flush_ns.max(self.config.power.off_ns) + record.recovery_ns;
        record.back_at_ns = back;
        self.powered_at_ns = back;
        self.power_loss_records.push(record);
        if self.check {
            self.check_now()?;
        }
        self.verify_now(&format!("after recovery from the power loss at {} ns", self.now))?;
        self.push(back, Event::PowerRestored);
        self.update_host_done();
        Ok(())
    }

    /// Programs acknowledged write `txn` from DRAM on capacitor power and counts it;
    /// returns the die it went to and its program time (`None`: no page left for it).
    fn plp_flush(&mut self, txn: u32, record: &mut PowerLossRecord) -> Option<(usize, u64)> {
        match self.flush_buffered_write(txn) {
            Some(ns) => {
                record.counts.flushed_pages += 1;
                Some((self.ftl.addr.die_of_plane(self.txns[txn as usize].plane) as usize, ns))
            }
            None => {
                record.flush_failures += 1;
                None
            }
        }
    }

    /// Requests in the device fail; pages of theirs already programmed stay durable.
    fn fail_outstanding_requests(&self, counts: &mut PowerLossCounts) {
        let mut active = vec![true; self.requests.len()];
        for &slot in &self.free_requests {
            active[slot as usize] = false;
        }
        for (r, _) in self.requests.iter().zip(&active).filter(|(_, &a)| a) {
            match r.op {
                ssdlab_trace::Op::Write | ssdlab_trace::Op::ZoneAppend => {
                    counts.write_requests_failed += 1;
                    counts.unacknowledged_pages_durable += (r.pages - r.pending) as u64;
                }
                ssdlab_trace::Op::Read => counts.read_requests_failed += 1,
                ssdlab_trace::Op::Trim | ssdlab_trace::Op::Sanitize | ssdlab_trace::Op::ZoneManagement(_) => {}
            }
        }
    }

    /// Power leaves one die: its command in flight is torn (or, under PLP, finished on
    /// capacitor power, as are its buffered writes); its queues are dropped. Returns the
    /// capacitor hold-up time the die needed.
    fn cut_die(&mut self, die: usize, record: &mut PowerLossRecord, wreck: &mut Wreck) -> u64 {
        let plp = self.acks_from_dram();
        let counts = &mut record.counts;
        let mut flush_ns = 0u64;
        let cmd = std::mem::take(&mut self.dies[die].command);
        if self.dies[die].busy {
            // Array time left in the command, from the step under way.
            let array_left: u64 = cmd.steps[cmd.next.saturating_sub(1).min(cmd.steps.len())..]
                .iter()
                .map(|s| if let Step::Array(ns) = s { *ns } else { 0 })
                .sum();
            for &t in &cmd.txns {
                let txn = self.txns[t as usize];
                match txn.kind {
                    // Under PLP the erase finishes; otherwise recovery erases again.
                    TxnKind::Erase if plp => {}
                    TxnKind::Erase => wreck.erases_in_flight.push(txn.ppn),
                    // Rejected by validation (no power losses with planes wholly in SLC mode).
                    TxnKind::MoveOut => unreachable!("cross-plane GC moves with power losses"),
                    TxnKind::GcMove if plp => flush_ns = flush_ns.max(array_left),
                    TxnKind::Write | TxnKind::PartialProgram | TxnKind::Reprogram if plp => {
                        flush_ns = flush_ns.max(array_left);
                        if txn.kind != TxnKind::Write {
                            self.ftl.partial_program_done(txn.ppn);
                        }
                        self.ftl.acknowledge(txn.lpn, txn.unit as u32, txn.units as u32, txn.version);
                        counts.flushed_pages += 1;
                        counts.unacknowledged_pages_durable += u64::from(!txn.acked);
                    }
                    TxnKind::Write | TxnKind::GcMove | TxnKind::PartialProgram | TxnKind::Reprogram => {
                        // A partial program's or a reprogram's page is restored by the FTL
                        // itself.
                        if !matches!(txn.kind, TxnKind::PartialProgram | TxnKind::Reprogram) {
                            wreck.torn.push(txn.ppn);
                        }
                        counts.torn_pages += 1;
                        counts.unacknowledged_pages_lost += u64::from(txn.kind != TxnKind::GcMove);
                    }
                    // A flush's data is in DRAM: programmed as it is (in the loop below).
                    TxnKind::UpdateRead if plp && txn.request == super::NO_REQUEST => {}
                    // The write waiting for this read is lost with it.
                    TxnKind::UpdateRead => counts.unacknowledged_pages_lost += 1,
                    // A scrub's page held stale data only (its state changed when it
                    // started); a scan's read is lost with its request.
                    TxnKind::Read | TxnKind::Scrub | TxnKind::ScanRead => {}
                }
            }
        }
        // Queued work: buffered writes are flushed under PLP, everything else is lost.
        let writes: Vec<u32> = self.dies[die].writes.drain(..).collect();
        for t in writes {
            let txn = self.txns[t as usize];
            // Writes still waiting for a buffer slot never entered the buffer. An
            // acknowledged write queued as a partial program (MGA packing a cache flush
            // into its open page, IPU's intra-page update, a page map's in-place update)
            // or as an in-place reprogram has its data in DRAM just the same: the cache
            // entry it came from is no longer dirty, so `cache_power_lost` will not
            // flush it again, and dropping it would lose an acknowledged write. It is
            // programmed like any buffered write, into a new page (as the scheduler turns
            // a partial program or reprogram that no longer fits its page into a write).
            let program = matches!(txn.kind, TxnKind::Write | TxnKind::PartialProgram | TxnKind::Reprogram);
            if plp && program && txn.acked {
                if txn.kind != TxnKind::Write {
                    self.txns[t as usize].kind = TxnKind::Write;
                    self.txns[t as usize].subpages = 0;
                }
                flush_ns += self.plp_flush(t, record).map_or(0, |(_, ns)| ns);
            } else {
                record.counts.unacknowledged_pages_lost += 1;
            }
        }
        // Reads before a program (read-modify-write), queued or running (those running
        // and not a flush's were counted above): a cache flush's data is in DRAM and is
        // programmed as it is under PLP; any other takes its unacknowledged write with it.
        let update_read = |t: &u32| self.txns[*t as usize].kind == TxnKind::UpdateRead;
        let queued: Vec<u32> = self.dies[die].reads.iter().copied().filter(update_read).collect();
        let running: Vec<u32> =
            if self.dies[die].busy { cmd.txns.iter().copied().filter(update_read).collect() } else { Vec::new() };
        let is_flush = |s: &Self, t: u32| plp && s.txns[t as usize].request == super::NO_REQUEST;
        for (t, was_running) in queued.into_iter().map(|t| (t, false)).chain(running.into_iter().map(|t| (t, true))) {
            if is_flush(self, t) {
                self.txns[t as usize].kind = TxnKind::Write;
                flush_ns += self.plp_flush(t, record).map_or(0, |(_, ns)| ns);
            } else if !was_running {
                record.counts.unacknowledged_pages_lost += 1;
            }
        }
        self.mark_idle(die as u32);
        let d = &mut self.dies[die];
        d.reads.clear();
        d.gc_idle_pending = false;
        d.delay_pending = false;
        d.gc_starved = false;
        d.wake_pending = false;
        d.command = cmd;
        d.command.txns.clear();
        flush_ns
    }

    /// Everything else volatile goes: channels, transactions, requests, buffers, wait
    /// queues and every pending event but the host's schedule and later power failures.
    /// (Reads being decoded die too; an update read among them takes its write with it.)
    fn drop_volatile_state(&mut self, counts: &mut PowerLossCounts) {
        if let Some(o) = self.occupancy.as_mut() {
            o.power_lost(self.now);
        }
        for ch in &mut self.channels {
            ch.holder = None;
            ch.waiting.clear();
        }
        for scheduled in self.events.iter() {
            if let Event::Decoded { txn } = scheduled.event {
                counts.unacknowledged_pages_lost += u64::from(self.txns[txn as usize].kind == TxnKind::UpdateRead);
            }
        }
        self.events.retain(|s| matches!(s.event, Event::Arrival | Event::PowerLoss));
        self.requests.clear();
        self.free_requests.clear();
        self.note_queue_length();
        self.outstanding = 0;
        for run in 0..self.per_run.len() {
            if let RunSlot::Open { outstanding, .. } = &mut self.per_run[run] {
                *outstanding = 0;
            }
            if run < self.run as usize {
                self.close_run_if_done(run as u32);
            }
        }
        self.txns.clear();
        self.free_txns.clear();
        self.buffered_write_pages = 0;
        self.pending_writes.clear();
        if let Some(b) = self.bypass.as_mut() {
            b.clear();
        }
        self.extra_pins.clear();
        self.ack_waiting.clear();
        self.waiting_for_room.clear();
        self.room_event_pending = false;
        self.kick_list.clear();
        self.link_power_lost();
        self.power_lost();
        self.moves_in.iter_mut().for_each(|q| q.clear());
        self.burst.start_ns = None;
        (self.burst.bytes, self.burst.read_bytes) = (0, 0);
    }

    /// Programs one buffered write on capacitor power; returns the program time, or
    /// `None` when no plane has a free page for it (the drive's reserve ran out).
    fn flush_buffered_write(&mut self, txn: u32) -> Option<u64> {
        debug_assert!(self.txns[txn as usize].acked, "only buffered (acknowledged) writes are flushed");
        let home = self.txns[txn as usize].plane;
        let planes = self.ftl.addr.planes();
        let now = self.now;
        let Some((plane, a)) = (0..planes)
            .map(|k| (home + k) % planes)
            .find_map(|plane| self.ftl.allocate_flush(plane, now).map(|a| (plane, a)))
        else {
            let t = self.txns[txn as usize];
            self.ftl.note_lost(t.lpn, t.unit as u32, t.units as u32);
            return None;
        };
        self.txns[txn as usize].plane = plane;
        // (bind_write pins the superseded copy; recovery, which follows, drops all pins.)
        self.bind_write(txn, a.ppn, a.page_type, a.slc);
        let t = self.txns[txn as usize];
        self.ftl.acknowledge(t.lpn, t.unit as u32, t.units as u32, t.version);
        Some(self.program_ns(a.page_type, a.slc))
    }

    /// The recovery scan's duration on the device: every die senses its pages (OOB
    /// scans and summary pages alike) and re-erases blocks whose erase was cut, while each
    /// channel carries the OOB bytes, or whole summary pages, of its dies; with perfect
    /// pipelining the slower of the two decides.
    fn recovery_ns(&self, scan: &RecoveryScan) -> u64 {
        let sense = self.timing.read_ns(self.ftl.bits_per_cell as u8 - 1, false);
        let oob = self.config.power.oob_bytes as u64;
        let mut per_channel = vec![0u64; self.channels.len()];
        let mut slowest_die = 0u64;
        for die in 0..scan.reads_per_die.len() {
            let (scanned, summaries) = (scan.reads_per_die[die], scan.summary_reads_per_die[die]);
            let die_ns = (scanned + summaries) * sense + scan.erases_per_die[die] * self.timing.erase_ns;
            slowest_die = slowest_die.max(die_ns);
            per_channel[self.ftl.addr.channel_of_die(die as u32) as usize] += scanned
                * self.timing.transfer_bytes_ns(oob)
                + summaries * self.timing.transfer_bytes_ns(self.timing.page_size_bytes);
        }
        slowest_die.max(per_channel.into_iter().max().unwrap_or(0))
    }

    pub(crate) fn on_power_restored(&mut self) -> Result<(), SimError> {
        for die in 0..self.dies.len() as u32 {
            self.schedule_die(die)?;
        }
        match self.config.host.replay {
            ReplayMode::ClosedLoop => {
                if self.pending_record.is_some() {
                    self.push(self.now, Event::Refill);
                }
            }
            ReplayMode::OpenLoop | ReplayMode::Burst => {
                let depth = self.config.host.queue_depth as u64;
                while depth == 0 || self.outstanding < depth {
                    let Some((record, arrival)) = self.host_waiting.pop_front() else { break };
                    self.submit(record, arrival)?;
                }
                if self.config.host.replay == ReplayMode::Burst {
                    self.maybe_end_burst();
                }
            }
        }
        self.update_host_done();
        Ok(())
    }

    pub(crate) fn power_summary(&self) -> Option<PowerSummary> {
        if self.config.power.loss_at_ns.is_empty() {
            return None;
        }
        let mut total = PowerLossCounts::default();
        for loss in &self.power_loss_records {
            total.add(&loss.counts);
        }
        Some(PowerSummary {
            write_acknowledge: super::report::kebab(&self.config.power.write_acknowledge),
            losses_scheduled: self.config.power.loss_at_ns.len() as u64,
            losses: self.power_loss_records.len() as u64,
            recovery_ns_total: self.power_loss_records.iter().map(|l| l.recovery_ns).sum(),
            total,
            each: self.power_loss_records.clone(),
        })
    }
}
