//! Host replay (ARCHITECTURE.md, "Host replay"): records become requests (open loop,
//! closed loop, bursts, multi-run), requests are split into page sub-requests and queued
//! at their dies, and completions are counted into the statistics and the time series.
//! The workload pre-pass that finds the pages read before they are written is in
//! `host/prepass.rs`.

use super::*;

mod prepass;
pub(crate) use prepass::workload_footprint;

impl Simulator<'_> {
    pub(crate) fn start_host(&mut self) -> Result<(), SimError> {
        match self.config.host.replay {
            ReplayMode::OpenLoop | ReplayMode::Burst => {
                if self.fetch_record()? {
                    let at = self.checked_arrival_ns()?;
                    self.push(at, Event::Arrival);
                }
            }
            ReplayMode::ClosedLoop => {
                for _ in 0..self.config.host.queue_depth {
                    if !self.fetch_record()? {
                        break;
                    }
                    let record = self.pending_record.take().expect("fetched");
                    self.submit(record, 0)?;
                }
                if self.pending_record.is_none() {
                    self.fetch_record()?;
                }
                if self.pending_record.is_some() && self.outstanding < self.config.host.queue_depth as u64 {
                    self.push(self.now, Event::Refill);
                }
            }
        }
        self.update_host_done();
        Ok(())
    }

    /// Pulls the next record into `pending_record`, moving to the next run when a run's
    /// source is exhausted. Returns false when the whole workload is exhausted.
    pub(crate) fn fetch_record(&mut self) -> Result<bool, SimError> {
        loop {
            if self.source.is_none() {
                return Ok(false);
            }
            if self.read_ahead.is_empty() {
                self.read_ahead();
            }
            match self.read_ahead.pop_front() {
                Some(record) => {
                    let record = record?;
                    if self.trace_base_ns.is_none() {
                        // Time is measured from the earliest record (the pre-pass saw them
                        // all), not the first: earlier stamps would be clamped to zero.
                        let base = self.earliest_trace_ns.map_or(record.arrival_ns, |e| e.min(record.arrival_ns));
                        self.trace_base_ns = Some(base);
                        self.first_trace_ns = base;
                    }
                    self.last_trace_ns = self.last_trace_ns.max(record.arrival_ns);
                    self.trace_records_in_run += 1;
                    self.pending_record = Some(record);
                    if self.past_stop_time() {
                        // `host.stop_ns`: the workload ends here.
                        self.pending_record = None;
                        self.host_counters_skipped_add();
                        self.source = None;
                        return Ok(false);
                    }
                    return Ok(true);
                }
                None => {
                    self.host_counters_skipped_add();
                    if self.run + 1 >= self.config.host.runs || self.trace_records_in_run == 0 {
                        self.source = None;
                        return Ok(false);
                    }
                    // Next run starts one mean inter-arrival gap after this run's span.
                    let period = ssdlab_trace::replay_period_ns(
                        self.first_trace_ns,
                        self.last_trace_ns,
                        self.trace_records_in_run,
                    );
                    let scaled = (period as f64 / self.config.host.speed_factor) as u64;
                    self.run_offset_ns += scaled;
                    // Requests are counted in the run that submits them: the run ending
                    // here gets no more, so it closes once its last one completes.
                    self.close_run_if_done(self.run);
                    self.run += 1;
                    self.per_run.push(RunSlot::open(self.ftl.bits_per_cell));
                    self.trace_base_ns = None;
                    self.last_trace_ns = 0;
                    self.trace_records_in_run = 0;
                    self.source = Some((self.factory)()?);
                    self.source_ended = false;
                }
            }
        }
    }

    /// Reads the next `READ_AHEAD` records of the current run and touches the flash
    /// state their first pages will need: the mapping entry, the block holding the data
    /// (reads sense it, updates invalidate it) and its reverse-map entry, and with a
    /// cached mapping table, its index slot and translation page (and those of the
    /// entries next in line for eviction). On a large drive with random addresses each
    /// of these is a cache miss; touched here together for many records, the loads
    /// overlap in the memory system instead of stalling `submit`, the mapping table and
    /// the die scheduler one at a time. Only what is loaded changes, not any result
    /// (a record's page may have moved by the time it is used: then its touch was wasted).
    pub(crate) fn read_ahead(&mut self) {
        let Some(source) = self.source.as_mut() else { return };
        // A source is not asked again once it has ended or failed.
        while !self.source_ended && self.read_ahead.len() < READ_AHEAD {
            match source.next() {
                Some(item) => {
                    self.source_ended = item.is_err();
                    self.read_ahead.push_back(item);
                }
                None => self.source_ended = true,
            }
        }
        let page = self.ftl.addr.page_size_bytes as u64;
        let logical = self.ftl.logical_pages as u64;
        let mut touched = 0u32;
        if let Some(cmt) = self.cmt.as_ref() {
            // (The records may evict as many entries as they are.)
            touched ^= cmt.preload_victims(READ_AHEAD);
        }
        // Two passes: first the loads that need only the address (the mapping entry, the
        // table's and the data cache's slots), then those that need the mapping entry.
        // In one pass each record's block and reverse-map loads waited for its mapping
        // entry, and the processor's window held the misses of a few records only.
        for record in self.read_ahead.iter().flatten() {
            let lpn = (record.offset_bytes / page % logical) as u32;
            if let Some(cmt) = self.cmt.as_ref() {
                touched ^= cmt.preload(lpn);
            }
            if let Some(cache) = self.cache.as_ref() {
                touched ^= cache.preload(lpn, record.op == Op::Write);
            }
            touched ^= self.ftl.map_at(lpn << self.ftl.unit_shift);
        }
        for record in self.read_ahead.iter().flatten() {
            let lpn = (record.offset_bytes / page % logical) as usize;
            let pu = self.ftl.map_at((lpn as u32) << self.ftl.unit_shift);
            if pu != NO_PAGE {
                let block = self.ftl.addr.block_of(pu >> self.ftl.unit_shift) as usize;
                touched ^= self.ftl.blocks.get(block).map_or(0, |b| b.valid_pages);
                touched ^= self.ftl.rev_at(pu);
            }
        }
        std::hint::black_box(touched);
    }

    pub(crate) fn host_counters_skipped_add(&mut self) {
        if let Some(source) = self.source.as_ref() {
            self.skipped_total += source.skipped();
            self.skipped_by_reason.add_source(&**source);
        }
    }

    /// Refuses a record that would arrive past `HORIZON_NS`: simulated time is a u64 of
    /// nanoseconds, and a bogus timestamp (blktrace's last event on a CPU whose clock was
    /// never set reads 40 years), slowed down by `host.speed_factor`, would overflow it.
    /// Returns the pending record's arrival (`pending_arrival_ns`), checked.
    fn checked_arrival_ns(&self) -> Result<u64, SimError> {
        let at = self.pending_arrival_ns();
        if at <= HORIZON_NS {
            return Ok(at);
        }
        let record = self.pending_record.as_ref().expect("pending record");
        // (In f64: the u64 arrival saturates.)
        let rel = record.arrival_ns.saturating_sub(self.trace_base_ns.unwrap_or(record.arrival_ns));
        let seconds = self.run_offset_ns as f64 / 1e9 + rel as f64 / self.config.host.speed_factor / 1e9;
        Err(SimError::Request {
            id: self.next_request_id,
            op: record.op.name(),
            offset: record.offset_bytes,
            message: format!(
                "arrives {:.0} s into the replay (trace time {} ns, host.speed_factor {}), past the simulated \
                 clock's horizon of {:.0} years: a bogus timestamp? Leave it out with --time-window START:END \
                 (trace-stats shows the span and the largest gap)",
                seconds,
                record.arrival_ns,
                self.config.host.speed_factor,
                HORIZON_NS as f64 / 1e9 / 86_400.0 / 365.25
            ),
        })
    }

    /// `host.stop_ns`: whether the pending record arrives after it (open loop and burst
    /// replay; a closed loop checks the time it submits at, `on_refill`).
    fn past_stop_time(&self) -> bool {
        let stop = self.config.host.stop_ns;
        stop > 0 && self.config.host.replay != ReplayMode::ClosedLoop && self.pending_arrival_ns() > stop
    }

    pub(crate) fn pending_arrival_ns(&self) -> u64 {
        let record = self.pending_record.as_ref().expect("pending record");
        let base = self.trace_base_ns.unwrap_or(record.arrival_ns);
        let rel = record.arrival_ns.saturating_sub(base);
        self.run_offset_ns + (rel as f64 / self.config.host.speed_factor) as u64
    }

    pub(crate) fn on_arrival(&mut self) -> Result<(), SimError> {
        if self.config.host.replay == ReplayMode::Burst {
            return self.on_burst_arrival();
        }
        let record = self.pending_record.take().expect("arrival without record");
        let depth = self.config.host.queue_depth as u64;
        if (depth > 0 && self.outstanding >= depth) || self.now < self.powered_at_ns {
            self.host_waiting.push_back((record, self.now));
        } else {
            self.submit(record, self.now)?;
        }
        if self.fetch_record()? {
            let mut at = self.checked_arrival_ns()?;
            if at < self.now {
                // Stamped before a record that came earlier in the file: replayed late.
                self.host_counters.out_of_order += 1;
                at = self.now;
            }
            self.push(at, Event::Arrival);
        }
        self.update_host_done();
        Ok(())
    }

    /// Burst replay: issue this record, then the next at once if the trace gap is short,
    /// or after this burst completes plus the gap if it is long.
    pub(crate) fn on_burst_arrival(&mut self) -> Result<(), SimError> {
        let record = self.pending_record.take().expect("arrival without record");
        self.burst.start_ns.get_or_insert(self.now);
        // Thesis §7.3.4: a burst's bandwidth is the data it *wrote* over its duration;
        // its reads are kept apart (RTF "gains less than 0.1% in read bandwidth").
        match record.op {
            Op::Write => self.burst.bytes += record.size_bytes,
            Op::Read => self.burst.read_bytes += record.size_bytes,
            _ => {}
        }
        self.burst.previous_trace_ns = Some(record.arrival_ns);
        let run = self.run;
        let depth = self.config.host.queue_depth as u64;
        if (depth > 0 && self.outstanding >= depth) || self.now < self.powered_at_ns {
            self.host_waiting.push_back((record, self.now));
        } else {
            self.submit(record, self.now)?;
        }
        if self.fetch_record()? {
            // (Burst replay keeps the trace's gaps, not its times; a time past the horizon
            // would still overflow the clock with its gap.)
            self.checked_arrival_ns()?;
            let next = self.pending_record.as_ref().expect("fetched").arrival_ns;
            // A new run of a multi-run starts a new burst without idle time.
            let gap = match self.burst.previous_trace_ns {
                Some(prev) if self.run == run => next.saturating_sub(prev),
                _ => u64::MAX,
            };
            if gap < self.config.host.burst_gap_ns {
                self.push(self.now, Event::Arrival);
            } else {
                let idle = if gap == u64::MAX { 0 } else { (gap as f64 / self.config.host.speed_factor) as u64 };
                self.burst.pending_gap_ns = Some(idle);
                self.maybe_end_burst();
            }
        } else {
            self.maybe_end_burst();
        }
        self.update_host_done();
        Ok(())
    }

    /// Closes the current burst once all of it has completed, and schedules the next.
    pub(crate) fn maybe_end_burst(&mut self) {
        let burst_over = self.outstanding == 0
            && self.host_waiting.is_empty()
            && (self.burst.pending_gap_ns.is_some() || self.pending_record.is_none());
        if !burst_over {
            return;
        }
        // (A burst whose requests all completed instantly may already have been closed.)
        if let Some(start) = self.burst.start_ns.take() {
            let duration = self.now - start;
            let b = &mut self.burst;
            b.count += 1;
            b.total_bytes += b.bytes;
            b.total_ns += duration;
            let mib_s =
                |bytes: u64| if duration > 0 { bytes as f64 / (duration as f64 / 1e9) / 1048576.0 } else { 0.0 };
            if b.bytes > 0 {
                b.write_bursts += 1;
                b.bandwidth_sum += mib_s(b.bytes);
            }
            if b.read_bytes > 0 {
                b.read_bursts += 1;
                b.read_bandwidth_sum += mib_s(b.read_bytes);
            }
            (b.bytes, b.read_bytes) = (0, 0);
        }
        if let Some(gap) = self.burst.pending_gap_ns.take() {
            self.burst.idle_ns += gap;
            self.push(self.now + gap, Event::Arrival);
        }
    }

    pub(crate) fn update_host_done(&mut self) {
        self.host_done = self.pending_record.is_none()
            && self.source.is_none()
            && self.host_waiting.is_empty()
            && self.flows.as_ref().is_none_or(|f| f.done());
    }

    /// A request enters the device: it is split into page sub-requests.
    pub(crate) fn submit(&mut self, record: Record, arrival_ns: u64) -> Result<(), SimError> {
        self.request_arrived()?;
        let id = self.next_request_id;
        self.next_request_id += 1;
        let page = self.ftl.addr.page_size_bytes as u64;
        let size = record.size_bytes.max(1);
        let (offset, remapped) = self.map_offset(id, &record)?;
        if remapped {
            self.host_counters.address_remapped += 1;
        }
        // A zone management action names a zone and ignores its size: nothing to align.
        let data = !matches!(record.op, Op::ZoneManagement(_));
        if data && (!offset.is_multiple_of(page) || !size.is_multiple_of(page)) {
            self.host_counters.unaligned += 1;
        }
        let first = offset / page;
        let last = (offset + size - 1) / page;
        let pages = (last - first + 1) as u32;
        let (high, battery) = self.request_priority(record.hint);
        let slot = self.alloc_request(Request {
            id,
            arrival_ns,
            offset_bytes: offset,
            size_bytes: size,
            op: record.op,
            pending: pages,
            pages,
            dominant_type: -1,
            run: self.run,
            want: NO_TYPE,
            retries: 0,
            flow: self.submitting_flow,
            high,
            battery,
            service_ns: 0,
            status: 0,
        });
        if self.occupancy.is_some() {
            self.occupancy_submitted(slot, id, pages);
        }
        if record.op == Op::Write {
            self.requests[slot as usize].want = self.write_request_type(pages, &record);
        }
        self.note_queue_length();
        self.outstanding += 1;
        let RunSlot::Open { stats, outstanding } = &mut self.per_run[self.run as usize] else {
            unreachable!("the run being replayed is open")
        };
        *outstanding += 1;
        stats.first_arrival_ns.get_or_insert(arrival_ns);
        self.total.first_arrival_ns.get_or_insert(arrival_ns);
        self.last_arrival_ns = self.last_arrival_ns.max(arrival_ns);
        if self.config.link.enabled() {
            // The device sees the request once its command (and a write's data) crossed.
            self.link_command_in(slot);
            return Ok(());
        }
        self.split_request(slot)
    }

    /// A request the device has received is split into page sub-requests, queued at
    /// their dies (or the DRAM cache).
    pub(crate) fn split_request(&mut self, slot: u32) -> Result<(), SimError> {
        // (First: a zoned namespace may complete it, or place an append.)
        if self.request_received(slot)? {
            return Ok(());
        }
        let r = self.requests[slot as usize];
        let (offset, size, op) = (r.offset_bytes, r.size_bytes, r.op);
        let page = self.ftl.addr.page_size_bytes as u64;
        let first = offset / page;
        let logical = self.ftl.logical_pages as u64;
        self.request_pages.clear();
        let sector_sizes = self.config.flash.transfer_requested_bytes;
        if op == Op::Sanitize {
            // The whole range at once: the design's (a drive without one trims it).
            return self.sanitize_requested(slot);
        }
        for k in 0..r.pages as u64 {
            let lpn = ((first + k) % logical) as u32;
            self.host_counters.sub_requests += 1;
            if sector_sizes {
                self.page_sectors = self.sectors_of(offset, size, (first + k) * page);
            }
            match op {
                Op::Write | Op::ZoneAppend => {
                    let page_start = (first + k) * page;
                    if self.cache.is_some() {
                        let mask = self.cache.as_ref().expect("cache on").mask_of(offset, size, page_start, page);
                        self.cache_write(slot, lpn, mask)?;
                        continue;
                    }
                    self.write_pending(lpn);
                    let start = offset.max(page_start) - page_start;
                    let end = (offset + size).min(page_start + page) - page_start;
                    self.dispatch_write(slot, lpn, start, end)?;
                }
                Op::Read => self.read_sub_request(slot, lpn, (first + k) * page, false)?,
                Op::Trim => self.trim_page(slot, lpn)?,
                Op::Sanitize | Op::ZoneManagement(_) => unreachable!("taken over above"),
            }
        }
        self.page_sectors = 0;
        if self.cache.is_some() {
            self.cache_admitted();
        }
        for i in 0..self.kick_list.len() {
            let die = self.kick_list[i];
            self.kick(die)?;
        }
        self.kick_list.clear();
        Ok(())
    }

    /// Trims every page of request `slot` (a sanitise without a design that sanitises).
    pub(crate) fn trim_request(&mut self, slot: u32) -> Result<(), SimError> {
        let r = self.requests[slot as usize];
        let page = self.ftl.addr.page_size_bytes as u64;
        let logical = self.ftl.logical_pages as u64;
        for k in 0..r.pages as u64 {
            self.trim_page(slot, ((r.offset_bytes / page + k) % logical) as u32)?;
        }
        Ok(())
    }

    /// Trims logical page `lpn` for request `slot` (one of its sub-requests): its data is
    /// unmapped at once, and the copy it had is released to the design.
    #[inline(never)]
    pub(crate) fn trim_page(&mut self, slot: u32, lpn: u32) -> Result<(), SimError> {
        if self.cmt.is_some() {
            self.cmt_trimmed(lpn);
        }
        if self.bypass.is_some() {
            self.bypass_trimmed(lpn);
        }
        let old = self.ftl.lookup(lpn);
        if let Some(old) = old {
            self.ftl.trim(lpn);
            self.note_invalidated(old);
        }
        self.ftl.acknowledge_trim(lpn);
        if let Some(old) = old {
            // (Once the trim is complete: the design may start work at once.)
            self.copy_released(old, slot)?;
        }
        self.finish_sub_request(slot)
    }

    /// GC erased a block: dies holding stuck writes that found no plane with room try
    /// again (as an event, since the erase is decided while its die's command is being
    /// built).
    pub(crate) fn note_erased(&mut self) {
        if self.waiting_for_room.is_empty() || self.room_event_pending {
            return;
        }
        self.room_event_pending = true;
        self.push(self.now, Event::RoomFreed);
    }

    pub(crate) fn on_room_freed(&mut self) -> Result<(), SimError> {
        self.room_event_pending = false;
        for die in std::mem::take(&mut self.waiting_for_room) {
            self.kick(die)?;
        }
        Ok(())
    }

    /// Picks the plane of a user write of the whole logical page (PLAlloc) and queues it
    /// at that plane's die.
    pub(crate) fn enqueue_write(&mut self, slot: u32, lpn: u32, subpages: u8) -> Result<u32, SimError> {
        self.enqueue_write_units(slot, lpn, subpages, 0, self.ftl.units_per_page())
    }

    /// `enqueue_write` of units `unit..unit + units` of `lpn` (a subpage map's partial
    /// write).
    pub(crate) fn enqueue_write_units(
        &mut self,
        slot: u32,
        lpn: u32,
        subpages: u8,
        unit: u32,
        units: u32,
    ) -> Result<u32, SimError> {
        // (At service time the plane is chosen when a die takes the write.)
        let plane = if self.at_service.is_some() { 0 } else { self.allocator_plane(lpn) };
        self.enqueue_write_units_in(slot, lpn, subpages, unit, units, plane)
    }

    /// `enqueue_write_units` into the plane the allocator gave (the design may still
    /// place it elsewhere).
    pub(crate) fn enqueue_write_units_in(
        &mut self,
        slot: u32,
        lpn: u32,
        subpages: u8,
        unit: u32,
        units: u32,
        plane: u32,
    ) -> Result<u32, SimError> {
        let (plane, mode) = self.place_write(plane, slot, lpn);
        let txn = self.alloc_txn(TxnKind::Write, slot, lpn, NO_PAGE, plane);
        self.txns[txn as usize].subpages = subpages;
        self.txns[txn as usize].unit = unit as u8;
        self.txns[txn as usize].units = units as u8;
        if !self.flushing {
            self.txns[txn as usize].want = self.requests[slot as usize].want;
        }
        self.txns[txn as usize].mode = mode;
        self.write_queued(txn);
        if self.bypass.is_some() && slot != NO_REQUEST {
            self.bypass_write_queued(txn, lpn);
        }
        self.buffered_write_pages += 1;
        let die = if self.at_service.is_some() {
            self.queue_unbound(txn)
        } else {
            let die = self.ftl.addr.die_of_plane(plane);
            self.dies[die as usize].writes.push_back(txn);
            self.dies[die as usize].last_user_ns = self.now;
            die
        };
        if self.config.power.write_acknowledge == WriteAcknowledge::Buffer {
            // Buffered pages are the queued writes not waiting for a slot.
            if self.ack_waiting.is_empty() && self.buffered_write_pages <= self.config.power.write_buffer_pages as u64 {
                self.acknowledge_buffered(txn)?;
            } else {
                self.ack_waiting.push_back(txn);
            }
        }
        Ok(die)
    }

    /// The plane the plane allocator (PLAlloc) gives a user write of `lpn` now.
    pub(crate) fn allocator_plane(&mut self, lpn: u32) -> u32 {
        let (loads, ftl) = (&self.dies, &self.ftl);
        // (The allocator's state advances: call once per write.)
        let load = |d: u32| loads[d as usize].load();
        let valid = |p: u32| ftl.plane_valid_units[p as usize];
        self.planes_alloc.choose(&ftl.addr, lpn, load, |p| ftl.gc_need(p) != GcNeed::Emergency, valid)
    }

    /// DRAM-buffer acknowledgement: the host is told the write is done; its program
    /// follows later (and is guaranteed by power-loss protection).
    pub(crate) fn acknowledge_buffered(&mut self, txn: u32) -> Result<(), SimError> {
        self.txns[txn as usize].acked = true;
        // Host order: the version the host is told is written (`--verify`); the program
        // carries a newer one (`bind_parts`), unless it was bound while the write waited
        // for a buffer slot.
        let t = self.txns[txn as usize];
        let (lpn, unit, units) = (t.lpn, t.unit as u32, t.units as u32);
        let v = if t.version != 0 { t.version } else { self.ftl.issue_version(lpn, unit, units) };
        self.ftl.acknowledge(lpn, unit, units, v);
        self.finish_sub_request(self.txns[txn as usize].request)
    }

    /// Subpages of the page starting at `page_start` that a request covers.
    pub(crate) fn subpages_covered(&self, offset: u64, size: u64, page_start: u64) -> u8 {
        let sub = self.timing.page_size_bytes / self.ftl.subpages_per_page as u64;
        let start = offset.max(page_start) - page_start;
        let end = (offset + size).min(page_start + self.timing.page_size_bytes) - page_start;
        (end.div_ceil(sub) - start / sub) as u8
    }

    /// Where a request lands (`map_offset`): inline for a request inside the logical
    /// space (always, but for traces made for a larger drive).
    #[inline]
    pub(crate) fn map_offset(&self, id: u64, record: &Record) -> Result<(u64, bool), SimError> {
        let logical = self.logical_bytes;
        if record.size_bytes <= logical && record.offset_bytes.saturating_add(record.size_bytes.max(1)) <= logical {
            return Ok((record.offset_bytes, false));
        }
        self.map_offset_general(id, record)
    }

    #[cold]
    #[inline(never)]
    fn map_offset_general(&self, id: u64, record: &Record) -> Result<(u64, bool), SimError> {
        map_offset(&self.config, self.logical_bytes, self.ftl.addr.page_size_bytes as u64, id, record)
    }

    pub(crate) fn alloc_request(&mut self, r: Request) -> u32 {
        if let Some(slot) = self.free_requests.pop() {
            self.requests[slot as usize] = r;
            slot
        } else {
            self.requests.push(r);
            (self.requests.len() - 1) as u32
        }
    }

    pub(crate) fn alloc_txn(&mut self, kind: TxnKind, request: u32, lpn: u32, ppn: Ppn, plane: u32) -> u32 {
        // A flush out of the DRAM cache: acknowledged already, no request waits for it.
        let flush = self.flushing
            && matches!(kind, TxnKind::Write | TxnKind::PartialProgram | TxnKind::Reprogram | TxnKind::UpdateRead);
        let request = if flush { NO_REQUEST } else { request };
        if flush {
            self.cache_flush_txn_created(lpn);
        }
        let t = Txn {
            kind,
            request,
            lpn,
            ppn,
            from: NO_PAGE,
            plane,
            page_type: 0,
            slc: false,
            subpages: 0,
            unit: 0,
            units: self.ftl.units_per_page() as u8,
            want: NO_TYPE,
            version: 0,
            enqueued_ns: self.now,
            cleaning_seen_ns: 0,
            acked: flush,
            mode: WriteMode::Auto,
            retries: 0,
            decode_ns: 0,
            sectors: if matches!(kind, TxnKind::Read | TxnKind::Write) { self.page_sectors } else { 0 },
        };
        let slot = if let Some(slot) = self.free_txns.pop() {
            self.txns[slot as usize] = t;
            slot
        } else {
            self.txns.push(t);
            (self.txns.len() - 1) as u32
        };
        self.service_queued(slot);
        if self.occupancy.is_some() {
            self.occupancy_txn_created(slot, kind, request, lpn);
        }
        slot
    }

    /// One page of a request is done; the request completes with its last page.
    pub(crate) fn finish_sub_request(&mut self, slot: u32) -> Result<(), SimError> {
        if self.occupancy.is_some() {
            self.occupancy_sub_request_finished(slot);
        }
        let r = &mut self.requests[slot as usize];
        r.pending -= 1;
        if r.pending > 0 {
            return Ok(());
        }
        let r = *r;
        if self.occupancy.is_some() {
            self.occupancy_request_completed(slot, r.id);
        }
        self.free_requests.push(slot);
        self.note_queue_length();
        self.outstanding -= 1;
        if self.outstanding == 0 {
            self.device_idle()?;
        }
        let link = self.config.link.enabled();
        let delivered = if link { self.link_completion(r.op, r.size_bytes) } else { self.now };
        let completion = delivered + self.config.host.request_overhead_ns;
        let latency = completion - r.arrival_ns;
        if r.flow != flows::NO_FLOW {
            // (A closed-loop flow's next request goes once the host learns, as below.)
            self.flow_request_done(r.flow, &r, latency, completion, if link { delivered } else { self.now });
        }
        let RunSlot::Open { stats: run_stats, outstanding: run_outstanding } = &mut self.per_run[r.run as usize] else {
            unreachable!("a request completed in a closed run")
        };
        *run_outstanding -= 1;
        let run_done = *run_outstanding == 0 && r.run < self.run;
        record_request(&mut self.total, &r, latency, completion);
        if self.config.host.runs > 1 {
            // (A single run's summary is the total's: `finish`.)
            record_request(run_stats, &r, latency, completion);
        }
        if self.host_priority.reported() {
            self.priority_done_out_of_line(&r, latency, completion);
        }
        if run_done {
            self.close_run_if_done(r.run);
        }
        if r.status == 0 && self.config.output.series_interval_ns > 0 {
            self.record_series(completion, r.op, latency, r.size_bytes);
        }
        if self.observers.requests.is_some() || self.observers.progress.is_some() || self.check {
            self.request_observed(&r, latency, completion)?;
        }
        // A slot opened in the device queue. Refilling goes through an event, not a
        // nested call, so long runs of instantly-completing requests cannot recurse.
        let refill = match self.config.host.replay {
            // (The pending record may be momentarily taken by a submit in progress.)
            ReplayMode::ClosedLoop => self.pending_record.is_some() || self.source.is_some(),
            ReplayMode::OpenLoop | ReplayMode::Burst => !self.host_waiting.is_empty(),
        };
        if self.config.host.replay == ReplayMode::Burst {
            self.maybe_end_burst();
        }
        if refill {
            // With a link the host learns of the completion when its entry has crossed.
            self.push(if link { delivered } else { self.now }, Event::Refill);
        }
        Ok(())
    }

    pub(crate) fn on_refill(&mut self) -> Result<(), SimError> {
        match self.config.host.replay {
            ReplayMode::ClosedLoop => {
                let depth = self.config.host.queue_depth as u64;
                let stop = self.config.host.stop_ns;
                if stop > 0 && self.now > stop && self.pending_record.is_some() {
                    // `host.stop_ns`: the workload ends.
                    self.pending_record = None;
                    self.host_counters_skipped_add();
                    self.source = None;
                }
                if self.outstanding < depth {
                    if let Some(record) = self.pending_record.take() {
                        self.submit(record, self.now)?;
                        self.fetch_record()?;
                    }
                }
                // Requests that complete inside `submit` (trims, controller-served reads)
                // leave the queue short: keep refilling until it is full again.
                if self.outstanding < depth && self.pending_record.is_some() {
                    self.push(self.now, Event::Refill);
                }
            }
            ReplayMode::OpenLoop | ReplayMode::Burst => {
                let depth = self.config.host.queue_depth as u64;
                if self.outstanding < depth {
                    if let Some((record, arrival)) = self.host_waiting.pop_front() {
                        // Latency counts from the arrival, including the wait in the host.
                        self.submit(record, arrival)?;
                    }
                }
            }
        }
        self.update_host_done();
        Ok(())
    }

    /// Reduces a run's accumulators to its summary once no request of it is in the device
    /// (the host has moved on to the next run, so none will be submitted).
    pub(crate) fn close_run_if_done(&mut self, run: u32) {
        let slot = &mut self.per_run[run as usize];
        if let RunSlot::Open { stats, outstanding: 0 } = slot {
            *slot = RunSlot::Closed(report::run_summary(run, stats));
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn record_series(&mut self, completion: u64, op: Op, latency: u64, bytes: u64) {
        let interval = self.config.output.series_interval_ns;
        if interval == 0 {
            return;
        }
        let bucket = completion / interval;
        if bucket > self.series_acc.bucket {
            self.flush_series_row();
            // The intervals in between saw no completion: one row for all of them.
            let idle = bucket - self.series_acc.bucket;
            if idle > 0 {
                self.flush_idle_rows(idle);
            }
        }
        let acc = &mut self.series_acc;
        match op {
            Op::Read => {
                acc.reads += 1;
                acc.read_bytes += bytes;
                acc.read_latency_sum_ns += latency as u128;
            }
            Op::Write | Op::ZoneAppend => {
                acc.writes += 1;
                acc.write_bytes += bytes;
                acc.write_latency_sum_ns += latency as u128;
            }
            Op::Trim | Op::Sanitize | Op::ZoneManagement(_) => {}
        }
    }

    pub(crate) fn flush_series_row(&mut self) {
        self.flush_idle_rows(1);
    }

    /// Closes the current interval and the `intervals` - 1 after it as one row (more than
    /// one only when none of them saw a completion) and hands it to the series observer,
    /// or keeps it.
    pub(crate) fn flush_idle_rows(&mut self, intervals: u64) {
        let interval = self.config.output.series_interval_ns;
        let acc = std::mem::take(&mut self.series_acc);
        let seconds = (interval * intervals) as f64 / 1e9;
        let mean = |sum: u128, n: u64| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
        let free_blocks: u64 = self.ftl.planes.iter().map(|p| p.free.len() as u64).sum();
        let row = SeriesRow {
            start_ns: acc.bucket * interval,
            end_ns: (acc.bucket + intervals) * interval,
            intervals,
            reads: acc.reads,
            writes: acc.writes,
            read_bytes: acc.read_bytes,
            write_bytes: acc.write_bytes,
            read_latency_mean_ns: mean(acc.read_latency_sum_ns, acc.reads),
            write_latency_mean_ns: mean(acc.write_latency_sum_ns, acc.writes),
            iops: (acc.reads + acc.writes) as f64 / seconds,
            bandwidth_mib_s: (acc.read_bytes + acc.write_bytes) as f64 / seconds / 1048576.0,
            free_blocks,
            erases: self.ftl.counters.erases - acc.erases_at_start,
            free_pages_by_type: self.ftl.free_pages_by_type.clone(),
            slc_user_pages: self.flash_counters.slc_user_programs - acc.slc_user_at_start,
            slc_free_pages: if self.ftl.has_slc {
                (0..self.ftl.addr.planes()).map(|p| self.ftl.slc_room(p)).sum()
            } else {
                0
            },
            slc_migrated_pages: self.flash_counters.slc_gc_moved_pages - acc.slc_migrated_at_start,
            read_retries: self.flash_counters.read_retries - acc.retries_at_start,
        };
        match self.observers.series.as_mut() {
            Some(observer) => observer(&row),
            None => self.series.push(row),
        }
        self.series_acc.bucket = acc.bucket + intervals;
        self.series_acc.erases_at_start = self.ftl.counters.erases;
        self.series_acc.slc_user_at_start = self.flash_counters.slc_user_programs;
        self.series_acc.slc_migrated_at_start = self.flash_counters.slc_gc_moved_pages;
        self.series_acc.retries_at_start = self.flash_counters.read_retries;
    }
}

/// The latest simulated time a request may arrive at, 2^62 ns (146 years): the clock
/// keeps room above it for the work the request starts.
pub(crate) const HORIZON_NS: u64 = 1 << 62;

/// Counts a completed request into `stats`.
pub(crate) fn record_request(stats: &mut RunStats, r: &Request, latency: u64, completion: u64) {
    if r.status != 0 {
        return;
    }
    match r.op {
        Op::Read => stats.reads.record(latency, r.size_bytes),
        Op::Write | Op::ZoneAppend => {
            stats.writes.record(latency, r.size_bytes);
            if r.dominant_type >= 0 {
                stats.dominated_writes[r.dominant_type as usize] += 1;
            }
        }
        Op::Trim => stats.trims.record(latency, r.size_bytes),
        // (Their latencies are the designs' reports': `scrub.sanitize`, `zns.resets`.) The
        // only requests of no per-operation histogram: `all` keeps them
        // (`RunStats::all_summary`).
        Op::Sanitize | Op::ZoneManagement(_) => stats.all.record(latency, r.size_bytes),
    }
    if !matches!(r.op, Op::Sanitize | Op::ZoneManagement(_)) {
        stats.all.record_totals(latency, r.size_bytes);
    }
    stats.last_completion_ns = stats.last_completion_ns.max(completion);
}

/// Where a request lands on the logical space (`host.address_overflow`), and whether it
/// was remapped.
pub(crate) fn map_offset(
    config: &Config,
    logical_bytes: u64,
    page: u64,
    id: u64,
    record: &Record,
) -> Result<(u64, bool), SimError> {
    // No address policy can make a request larger than the drive fit.
    if record.size_bytes > logical_bytes {
        return Err(SimError::Request {
            id,
            op: record.op.name(),
            offset: record.offset_bytes,
            message: format!(
                "is {} bytes, larger than the logical capacity of {} bytes",
                record.size_bytes, logical_bytes
            ),
        });
    }
    let end = record.offset_bytes.saturating_add(record.size_bytes.max(1));
    if end <= logical_bytes {
        return Ok((record.offset_bytes, false));
    }
    match config.host.address_overflow {
        // Page numbers wrap modulo the logical capacity in `submit`.
        AddressOverflow::Modulo => Ok((record.offset_bytes % logical_bytes, true)),
        AddressOverflow::Scale => {
            let span = config.host.trace_span_bytes.max(end) as u128;
            let scaled = record.offset_bytes as u128 * logical_bytes as u128 / span;
            let scaled = (scaled as u64 / page * page).min(logical_bytes.saturating_sub(record.size_bytes));
            Ok((scaled, true))
        }
        AddressOverflow::Error => Err(SimError::Request {
            id,
            op: record.op.name(),
            offset: record.offset_bytes,
            message: format!(
                "ends at byte {end}, beyond the logical capacity of {} bytes (host.address_overflow = \"error\")",
                logical_bytes
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::VecSource;

    /// Issue 17, item 2: a run of a multi-run replay keeps its latency histograms (about
    /// 1.2 MB) only while requests of it may still complete; then only its summary. Runs
    /// overlap here (every arrival at time 0, so each run starts while the one before
    /// still has requests in the device), which closes them on their last completion.
    #[test]
    fn finished_runs_keep_only_their_summary() {
        for depth in [0, 4] {
            let mut c = Config::default();
            c.geometry.channels = 1;
            c.geometry.chips_per_channel = 1;
            c.geometry.blocks_per_plane = 64;
            c.host.runs = 6;
            c.host.queue_depth = depth;
            let page = c.geometry.page_size_bytes as u64;
            let records: Vec<Record> = (0..40)
                .map(|k| Record {
                    arrival_ns: 0,
                    device: 0,
                    offset_bytes: k * 7 % 40 * page,
                    size_bytes: page,
                    op: if k % 3 == 0 { Op::Read } else { Op::Write },
                    hint: None,
                })
                .collect();
            let factory: SourceFactory =
                Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
            let mut sim = Simulator::new(c, factory, Observers::default()).unwrap();
            let (report, _) = sim.run_to_end().unwrap();
            assert_eq!(report.runs.len(), 6);
            for (i, slot) in sim.per_run.iter().enumerate() {
                // The last run is still the one being replayed when the workload ends.
                assert_eq!(matches!(slot, RunSlot::Closed(_)), i < 5, "depth {depth}, run {i}");
            }
            // (With a queue depth, records held in the host count in the run that submits them.)
            let requests: Vec<(u64, u64)> = report.runs.iter().map(|r| (r.read.requests, r.write.requests)).collect();
            if depth == 0 {
                assert_eq!(requests, [(14, 26); 6]);
            }
            assert_eq!(requests.iter().map(|(r, w)| r + w).sum::<u64>(), 240, "{requests:?}");
        }
    }
}
