//! A read sub-request's path (SPEC §1.2): served from the DRAM cache, from a write not yet
//! programmed (`pending.rs`), or from flash once its mapping is known (the cached
//! mapping table may park it first, `cmt.rs`); then the page reads it needs are queued
//! at their dies (a unit map's logical page may span pages).

use super::*;

impl Simulator<'_> {
    /// Starts the dies in `kick_list`, keeping its buffer (dies added meanwhile stay
    /// listed for their own caller).
    pub(crate) fn kick_listed(&mut self) -> Result<(), SimError> {
        self.kick_buffered(|s| &mut s.kick_list)
    }

    /// Starts the dies of the buffer `list` picks. A kick can list further dies there
    /// (translation reads queue their own kicks): those stay for their caller, and only
    /// an empty list gets the buffer back, for its allocation. (Overwriting the list
    /// lost a die's kick and stalled the run: swarm seed 578.)
    pub(crate) fn kick_buffered(&mut self, list: fn(&mut Self) -> &mut Vec<u32>) -> Result<(), SimError> {
        let mut dies = std::mem::take(list(self));
        for &die in &dies {
            self.kick(die)?;
        }
        if list(self).is_empty() {
            dies.clear();
            *list(self) = dies;
        }
        Ok(())
    }

    /// 512-byte sectors of the page at `page_start` a request of `size` bytes at `offset`
    /// covers (0 = the whole page): what `flash.transfer_requested_bytes` moves.
    pub(crate) fn sectors_of(&self, offset: u64, size: u64, page_start: u64) -> u16 {
        if !self.config.flash.transfer_requested_bytes {
            return 0;
        }
        let page = self.ftl.addr.page_size_bytes as u64;
        let (s, e) = (offset.max(page_start) - page_start, (offset + size).min(page_start + page) - page_start);
        let sectors = e.div_ceil(512) - s / 512;
        if sectors * 512 >= page {
            0
        } else {
            sectors as u16
        }
    }

    /// The read of logical page `lpn` (the page at `page_start` of request `slot`): from
    /// the DRAM cache, a pending write, or flash once its mapping is known (`translated`:
    /// the cached mapping table has it already). Queued dies go to `kick_list`.
    #[inline]
    pub(crate) fn read_sub_request(
        &mut self,
        slot: u32,
        lpn: u32,
        page_start: u64,
        translated: bool,
    ) -> Result<(), SimError> {
        let r = &self.requests[slot as usize];
        let (id, offset, size) = (r.id, r.offset_bytes, r.size_bytes);
        let page = self.ftl.addr.page_size_bytes as u64;
        if self.cache.is_some() {
            let mask = self.cache.as_ref().expect("cache on").mask_of(offset, size, page_start, page);
            if self.cache_read(slot, lpn, mask) {
                return Ok(());
            }
        }
        if self.read_of_pending_write(slot, lpn)? {
            return Ok(());
        }
        if self.bypass.is_some() && self.bypass_read(slot, lpn)? {
            return Ok(());
        }
        if !translated && self.cmt.is_some() && !self.cmt_translate(lpn, cmt::Waiter::Read { slot, lpn, page_start })? {
            return Ok(());
        }
        let (unit, units) = self.units_covered(offset, size, page_start);
        let found = if self.ftl.unit_shift == 0 {
            self.ftl.lookup(lpn)
        } else {
            (unit..unit + units).find_map(|k| self.ftl.unit_page(lpn, k))
        };
        let ppn = match found {
            Some(ppn) => ppn,
            None => {
                self.host_counters.unwritten_reads += 1;
                match self.config.host.unwritten_reads {
                    // Preconditioning placed every page the workload reads
                    // before writing it; a page unmapped now was trimmed (or
                    // the source could not be foreseen). A read never places
                    // data during the run: the controller answers it, as a real
                    // drive answers a read of an unmapped page, without flash.
                    WhatIfUnwritten::Precondition | WhatIfUnwritten::Controller => {
                        self.finish_sub_request(slot)?;
                        return Ok(());
                    }
                    WhatIfUnwritten::Error => {
                        return Err(SimError::Request {
                            id,
                            op: "read",
                            offset,
                            message: format!(
                                "reads logical page {lpn}, never written (host.unwritten_reads = \"error\")"
                            ),
                        })
                    }
                }
            }
        };
        self.host_counters.flash_page_reads_asked += 1;
        if self.ftl.unit_shift != 0 {
            let mut pages = std::mem::take(&mut self.request_pages);
            self.enqueue_unit_reads(slot, lpn, unit, units, &mut pages)?;
            self.request_pages = pages;
            return Ok(());
        }
        let die = self.enqueue_read(slot, lpn, ppn);
        self.kick_list.push(die);
        Ok(())
    }

    /// Queues reads of the pages holding units `unit..unit + units` of `lpn` that no
    /// earlier page of the request reads already (`pages`: the request's pages so far).
    /// The first new page is the sub-request's own read; each further one is a dummy
    /// sub-request the request also waits for (DIR §3.2: the other half of an
    /// interleaved page). With none left to read, the sub-request is done: the pages it
    /// needs are read for the request anyway. Queued dies go to `kick_list`.
    pub(crate) fn enqueue_unit_reads(
        &mut self,
        slot: u32,
        lpn: u32,
        unit: u32,
        units: u32,
        pages: &mut Vec<Ppn>,
    ) -> Result<(), SimError> {
        let before = pages.len();
        self.ftl.pages_of(lpn, unit, units, pages);
        if pages.len() == before {
            return self.finish_sub_request(slot);
        }
        for (i, &ppn) in pages.iter().enumerate().skip(before) {
            if i > before {
                self.requests[slot as usize].pending += 1;
                self.host_counters.extra_page_reads += 1;
                if let Some(o) = self.occupancy.as_mut() {
                    let check = o.request_grew(slot);
                    o.note(check);
                }
            }
            let die = self.enqueue_read(slot, lpn, ppn);
            self.kick_list.push(die);
        }
        Ok(())
    }

    /// Units of the logical page starting at `page_start` a request covers: the subpages
    /// it touches for a subpage map, else every unit.
    pub(crate) fn units_covered(&self, offset: u64, size: u64, page_start: u64) -> (u32, u32) {
        let units = self.ftl.units_per_page();
        if self.ftl.mapping != Mapping::Subpages {
            return (0, units);
        }
        let page = self.timing.page_size_bytes;
        let unit_bytes = page / units as u64;
        let start = offset.max(page_start) - page_start;
        let end = (offset + size).min(page_start + page) - page_start;
        let first = (start / unit_bytes) as u32;
        (first, end.div_ceil(unit_bytes) as u32 - first)
    }

    /// Queues the read of `lpn` at `ppn` at that page's die.
    pub(crate) fn enqueue_read(&mut self, slot: u32, lpn: u32, ppn: Ppn) -> u32 {
        let plane = self.ftl.addr.plane_of(ppn);
        let txn = self.alloc_txn(TxnKind::Read, slot, lpn, ppn, plane);
        if self.ftl.unit_shift != 0 {
            // The unit it follows if GC moves the page before it is sensed.
            let unit = (0..self.ftl.units_per_page()).find(|&k| self.ftl.unit_page(lpn, k) == Some(ppn));
            self.txns[txn as usize].unit = unit.unwrap_or(0) as u8;
        }
        self.expect_read_version(txn);
        if self.bypass.is_some() && slot != NO_REQUEST {
            self.bypass_read_queued(txn, lpn);
        }
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].reads.push_back(txn);
        self.dies[die as usize].last_user_ns = self.now;
        die
    }
}
