//! The event loop's rare paths, out of line (`#[cold]`, never inlined): events most runs
//! never see, the occupancy checker's calls, errors, observers and per-request options
//! that are off by default. Kept here so that the hot functions (`run_to_end`, `handle`,
//! `submit`, `finish_sub_request`, `schedule_die`, `start_write`) hold only the common
//! path and fit the instruction cache (issue 48, item 2).

use super::*;

impl Simulator<'_> {
    /// The events `handle` does not take inline: a power loss and its restoration, a
    /// design's timer or failure, a flow's arrival, room freed for stuck writes, a
    /// delayed program.
    #[cold]
    #[inline(never)]
    pub(crate) fn handle_rare(&mut self, event: Event) -> Result<(), SimError> {
        match event {
            Event::ProgramDelay { die } => {
                self.dies[die as usize].delay_pending = false;
                self.schedule_die(die)?;
            }
            Event::PowerLoss => self.on_power_loss()?,
            Event::PowerRestored => self.on_power_restored()?,
            Event::RoomFreed => self.on_room_freed()?,
            Event::FlowArrival { flow } => self.on_flow_arrival(flow)?,
            Event::Design { slot, tag } => self.design_timer(slot, tag)?,
            Event::DesignFailed => return Err(self.design_failed()),
            Event::Arrival
            | Event::Refill
            | Event::DieDone { .. }
            | Event::ChannelDone { .. }
            | Event::Decoded { .. }
            | Event::GcIdle { .. }
            | Event::Wake { .. }
            | Event::DramDone
            | Event::LinkIn
            | Event::CmtKick => unreachable!("handled inline"),
        }
        Ok(())
    }

    /// The occupancy checker sees something (`see` asks it) and notes its verdict; the
    /// one out-of-line path of the run's checker calls (`--check`).
    #[cold]
    #[inline(never)]
    pub(crate) fn occupancy_sees(&mut self, see: impl FnOnce(&mut occupancy::Occupancy) -> occupancy::Check) {
        if let Some(o) = self.occupancy.as_mut() {
            let check = see(o);
            o.note(check);
        }
    }

    /// The occupancy checker sees an event.
    pub(crate) fn occupancy_event(&mut self, time: u64, seq: u64) {
        self.occupancy_sees(|o| o.event(time, seq));
    }

    /// The occupancy checker's failure after an event, if any.
    #[cold]
    #[inline(never)]
    pub(crate) fn occupancy_failure(&mut self) -> Result<(), SimError> {
        match self.occupancy.as_mut().and_then(|o| o.take_failure()) {
            Some(message) => Err(SimError::Invariant { time_ns: self.now, message }),
            None => Ok(()),
        }
    }

    /// The run simulated more events than its budget allows.
    #[cold]
    #[inline(never)]
    pub(crate) fn over_budget(&self) -> SimError {
        SimError::EventBudget {
            time_ns: self.now,
            events: self.event_budget,
            outstanding: self.outstanding,
            message: self.busy_summary(),
        }
    }

    /// The occupancy checker sees a request submitted.
    pub(crate) fn occupancy_submitted(&mut self, slot: u32, id: u64, pages: u32) {
        self.occupancy_sees(|o| o.request_submitted(slot, id, pages));
    }

    /// The occupancy checker sees one page of a request done.
    pub(crate) fn occupancy_sub_request_finished(&mut self, slot: u32) {
        self.occupancy_sees(|o| o.sub_request_finished(slot));
    }

    /// The occupancy checker sees a request completed.
    pub(crate) fn occupancy_request_completed(&mut self, slot: u32, id: u64) {
        self.occupancy_sees(|o| o.request_completed(slot, id));
    }

    /// A completed request into its priority class's statistics (priority reports only).
    #[cold]
    #[inline(never)]
    pub(crate) fn priority_done_out_of_line(&mut self, r: &Request, latency: u64, completion: u64) {
        self.priority_request_done(r, latency, completion);
    }

    /// The occupancy checker sees a transaction created.
    #[cold]
    #[inline(never)]
    pub(crate) fn occupancy_txn_created(&mut self, slot: u32, kind: TxnKind, request: u32, lpn: u32) {
        let id = if request == NO_REQUEST { u64::MAX } else { self.requests[request as usize].id };
        let role = match kind {
            TxnKind::Write | TxnKind::PartialProgram | TxnKind::Reprogram => occupancy::TxnRole::UserProgram,
            TxnKind::UpdateRead => occupancy::TxnRole::UpdateRead,
            _ => occupancy::TxnRole::Other,
        };
        self.occupancy_sees(|o| o.txn_created(slot, role, id, lpn));
    }

    /// A completed request's observers (the request log, progress) and the periodic
    /// invariant check: off in most runs, so out of `finish_sub_request`'s line.
    #[cold]
    #[inline(never)]
    pub(crate) fn request_observed(&mut self, r: &Request, latency: u64, completion: u64) -> Result<(), SimError> {
        if let Some(observer) = self.observers.requests.as_mut() {
            observer(&RequestRecord {
                id: r.id,
                run: r.run,
                op: r.op.name(),
                offset_bytes: r.offset_bytes,
                size_bytes: r.size_bytes,
                arrival_ns: r.arrival_ns,
                completion_ns: completion,
                latency_ns: latency,
                pages: r.pages,
                dominant_page_type: r.dominant_type,
                read_retries: r.retries,
                status: r.status,
            });
        }
        let completed = self.total.all.count;
        if let Some(progress) = self.observers.progress.as_mut() {
            if self.observers.progress_every > 0 && completed.is_multiple_of(self.observers.progress_every) {
                progress(completed, self.now);
            }
        }
        if self.check && self.config.output.check_every > 0 {
            self.completed_since_check += 1;
            if self.completed_since_check >= self.config.output.check_every {
                self.completed_since_check = 0;
                self.check_now()?;
            }
        }
        Ok(())
    }
}
