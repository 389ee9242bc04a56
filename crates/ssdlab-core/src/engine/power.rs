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

use super::{Event, Simulator, Step, TxnKind, NO_REQUEST};
use crate::config::{ReplayMode, WriteAcknowledge};
use crate::ftl::recovery::{RecoveryScan, TornPage};
use crate::ftl::Allocated;
use crate::stats::{PowerLossCounts, PowerLossRecord, PowerSummary};
use crate::SimError;
use std::cmp::Reverse;

#[derive(Debug, Default)]
pub(super) struct PowerState {
    pub losses: Vec<PowerLossRecord>,
}

impl Simulator<'_> {
    pub(super) fn on_power_loss(&mut self) -> Result<(), SimError> {
        let plp = self.config.power.write_acknowledge == WriteAcknowledge::Buffer;
        let mut record = PowerLossRecord { at_ns: self.now, ..PowerLossRecord::default() };
        // Requests in the device fail; their pages already programmed stay durable.
        let mut active = vec![true; self.requests.len()];
        for &slot in &self.free_requests {
            active[slot as usize] = false;
        }
        for (slot, r) in self.requests.iter().enumerate() {
            if !active[slot] {
                continue;
            }
            match r.op {
                ssdlab_trace::Op::Write => {
                    record.counts.write_requests_failed += 1;
                    record.counts.unacknowledged_pages_durable += (r.pages - r.pending) as u64;
                }
                ssdlab_trace::Op::Read => record.counts.read_requests_failed += 1,
                ssdlab_trace::Op::Trim => {}
            }
        }
        let mut torn = Vec::new();
        let mut erases_in_flight = Vec::new();
        let mut plp_flush_ns = 0u64;
        for die in 0..self.dies.len() {
            let mut die_flush_ns = 0u64;
            let cmd = std::mem::take(&mut self.dies[die].command);
            if self.dies[die].busy {
                // Time left in the command's array step, if it is in or before it.
                let program_left = cmd.steps[cmd.next.saturating_sub(1)..]
                    .iter()
                    .flatten()
                    .map(|s| if let Step::Array(ns) = s { *ns } else { 0 })
                    .sum::<u64>();
                for &t in &cmd.txns {
                    let txn = self.txns[t as usize];
                    match txn.kind {
                        // Under PLP the erase finishes; otherwise recovery erases again.
                        TxnKind::Erase if plp => {}
                        TxnKind::Erase => erases_in_flight.push(txn.ppn),
                        TxnKind::Write | TxnKind::GcMove | TxnKind::PartialProgram if plp => {
                            // Capacitors finish the program.
                            die_flush_ns = die_flush_ns.max(program_left);
                            if txn.kind != TxnKind::GcMove {
                                self.ftl.acknowledge(txn.lpn, txn.version);
                                record.counts.flushed_pages += 1;
                                if !txn.acked {
                                    record.counts.unacknowledged_pages_durable += 1;
                                }
                            }
                        }
                        TxnKind::Write | TxnKind::GcMove => {
                            torn.push(TornPage::Program(txn.ppn));
                            record.counts.torn_pages += 1;
                            record.counts.unacknowledged_pages_lost += u64::from(txn.kind == TxnKind::Write);
                        }
                        TxnKind::PartialProgram => {
                            torn.push(TornPage::Partial {
                                ppn: txn.ppn,
                                previous_seq: txn.previous_seq,
                                previous_version: txn.previous_version,
                            });
                            record.counts.torn_pages += 1;
                            record.counts.unacknowledged_pages_lost += 1;
                        }
                        // The write waiting for this read is lost with it.
                        TxnKind::UpdateRead => record.counts.unacknowledged_pages_lost += 1,
                        TxnKind::Read => {}
                    }
                }
            }
            // Queued work: buffered writes are flushed under PLP, everything else is lost.
            let writes: Vec<u32> = self.dies[die].writes.drain(..).collect();
            for t in writes {
                let txn = self.txns[t as usize];
                // Writes still waiting for a buffer slot never entered the buffer.
                if plp && txn.kind == TxnKind::Write && txn.acked {
                    let Some(ns) = self.flush_buffered_write(t) else {
                        record.flush_failures += 1;
                        continue;
                    };
                    die_flush_ns += ns;
                    record.counts.flushed_pages += 1;
                } else {
                    record.counts.unacknowledged_pages_lost += 1;
                }
            }
            record.counts.unacknowledged_pages_lost +=
                self.dies[die].reads.iter().filter(|&&t| self.txns[t as usize].kind == TxnKind::UpdateRead).count()
                    as u64;
            let d = &mut self.dies[die];
            d.reads.clear();
            d.busy = false;
            d.gc_idle_pending = false;
            d.delay_pending = false;
            d.gc_starved = false;
            d.wake_pending = false;
            d.command = cmd;
            d.command.txns.clear();
            plp_flush_ns = plp_flush_ns.max(die_flush_ns);
        }
        record.plp_flush_ns = plp_flush_ns;
        for ch in &mut self.channels {
            ch.holder = None;
            ch.waiting.clear();
        }
        self.requests.clear();
        self.free_requests.clear();
        self.outstanding = 0;
        self.buffered_write_pages = 0;
        self.ack_waiting.clear();
        self.awaiting_room.clear();
        self.waiting_for_room.clear();
        self.room_event_pending = false;
        self.kick_list.clear();
        // Only the host's own schedule (and later power failures) survive. (Reads being decoded die too; an update
        // read among them takes its write with it.)
        let events = std::mem::take(&mut self.events);
        for Reverse((_, _, e)) in events.iter() {
            if let Event::Decoded { txn } = e {
                record.counts.unacknowledged_pages_lost +=
                    u64::from(self.txns[*txn as usize].kind == TxnKind::UpdateRead);
            }
        }
        self.events =
            events.into_iter().filter(|Reverse((_, _, e))| matches!(e, Event::Arrival | Event::PowerLoss)).collect();
        self.burst.start_ns = None;
        self.burst.bytes = 0;
        self.txns.clear();
        self.free_txns.clear();

        let scan = self.ftl.power_loss_recover(&torn, &erases_in_flight);
        record.mapped_pages = scan.mapped_pages;
        record.abandoned_pages = scan.abandoned_pages;
        record.recovery_reads = scan.reads_per_die.iter().sum();
        record.summary_reads = scan.summary_reads_per_die.iter().sum();
        record.recovery_ns = self.recovery_ns(&scan);
        let back = self.now + record.plp_flush_ns.max(self.config.power.off_ns) + record.recovery_ns;
        record.back_at_ns = back;
        self.powered_at_ns = back;
        self.power.losses.push(record);
        if self.check {
            self.check_now()?;
        }
        self.verify_now(&format!("after recovery from the power loss at {} ns", self.now))?;
        self.push(back, Event::PowerRestored);
        self.update_host_done();
        Ok(())
    }

    /// Programs one buffered write on capacitor power; returns the program time, or
    /// `None` when no plane has a free page for it (the drive's reserve ran out).
    fn flush_buffered_write(&mut self, txn: u32) -> Option<u64> {
        let home = self.txns[txn as usize].plane;
        let planes = self.ftl.addr.planes();
        let mut found: Option<Allocated> = None;
        for k in 0..planes {
            let plane = (home + k) % planes;
            if let Some(a) = self.ftl.allocate_flush(plane, self.now) {
                self.txns[txn as usize].plane = plane;
                found = Some(a);
                break;
            }
        }
        let a = found?;
        self.txns[txn as usize].request = NO_REQUEST;
        self.txns[txn as usize].acked = true;
        self.bind_write(txn, a.ppn, a.page_type, a.slc);
        let txn = self.txns[txn as usize];
        self.ftl.acknowledge(txn.lpn, txn.version);
        let old = txn.from;
        if old != crate::flash::NO_PAGE {
            self.ftl.unpin(old);
        }
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

    pub(super) fn on_power_restored(&mut self) -> Result<(), SimError> {
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

    pub(super) fn power_summary(&self) -> Option<PowerSummary> {
        if self.config.power.loss_at_ns.is_empty() {
            return None;
        }
        let mut total = PowerLossCounts::default();
        for loss in &self.power.losses {
            total.add(&loss.counts);
        }
        Some(PowerSummary {
            write_acknowledge: super::kebab(&self.config.power.write_acknowledge),
            losses_scheduled: self.config.power.loss_at_ns.len() as u64,
            losses: self.power.losses.len() as u64,
            recovery_ns_total: self.power.losses.iter().map(|l| l.recovery_ns).sum(),
            total,
            each: self.power.losses.clone(),
        })
    }
}
