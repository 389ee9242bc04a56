//! The controller's DRAM (`[cache]`, ARCHITECTURE.md "Controller DRAM"): its one channel,
//! whose transfers queue in order, and the data cache on it. The cache holds logical
//! pages in page-sized slots with the sectors written; a write is acknowledged once its
//! data is in DRAM; overwrites of a cached page coalesce there; reads of cached data are
//! served from DRAM; the least recently used page leaves when a slot is needed (dirty: it
//! is programmed, "flushed"). Flushes in flight are bounded (`flush_limit_bytes`): a write
//! that would need one more waits, in order, until a flush ends (back-pressure). A page
//! has at most one flush in flight, so its programs reach flash in the order written.
//! `flush = "ssdsim"` is SSDSim's buffer instead (`buffer_management`, `insert2buffer` in
//! its ssd.c and flash.c): room counted in sectors, the least recently used page evicted
//! whole when a write needs room, and that write waits for the eviction's program.

use super::lpn_hash::LpnTable;
use super::*;
use crate::config::{CacheFlush, CacheMode};

use super::lru::{LruOrder, NONE};

/// The runs of set bits of `bits`, as (first bit, length), lowest first.
fn unit_runs(bits: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut rest = bits;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let first = rest.trailing_zeros();
        let run = (rest >> first).trailing_ones();
        rest &= !(((1u64 << run) - 1) << first) as u32;
        Some((first, run))
    })
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    lpn: u32,
    /// Sectors held (bit k: sector k of the page).
    mask: u64,
    /// Newer than what flash holds (or will hold once the flush in flight ends).
    dirty: bool,
    /// A flush of this page is in flight.
    flushing: bool,
}

/// A write sub-request waiting for the cache (back-pressure).
#[derive(Clone, Copy, Debug)]
struct Waiting {
    slot: u32,
    lpn: u32,
    mask: u64,
}

/// What a DRAM transfer completes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DramJob {
    /// `count` sub-requests of request `slot` (written to, or read from, DRAM).
    Finish { slot: u32, count: u32 },
    /// Controller-internal (reading evicted data out, keeping a read miss).
    Internal,
}

/// A flush in flight: its data, the flash transactions it still waits for, and the
/// request that waits for it (`flush = "ssdsim"`; NO_REQUEST: none).
#[derive(Clone, Copy, Debug, Default)]
struct Flush {
    bytes: u64,
    txns: u32,
    waiter: u32,
}

#[derive(Default)]
pub(crate) struct Dram {
    free_at_ns: u64,
    /// The latest end of a transfer queued (`flush = "ssdsim"`: transfers overlap, and
    /// end in the order queued).
    last_done_ns: u64,
    jobs: VecDeque<DramJob>,
    pub(crate) busy_ns: u64,
    pub(crate) transfers: u64,
    pub(crate) bytes: u64,
}

pub(crate) struct DataCache {
    slots: u32,
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Logical page → entry. Looked up only, never iterated.
    index: LpnTable<u32>,
    order: LruOrder,
    used: u32,
    /// Bytes per tracked sector and sectors per page (at most 64).
    sector_bytes: u64,
    sectors: u32,
    limit_bytes: u64,
    flushing_bytes: u64,
    /// Flushes in flight by logical page (evicted pages included). Never iterated.
    flushes: LpnTable<Flush>,
    waiting: VecDeque<Waiting>,
    /// Pages written in the current hot window (`flush = "cold-eager"`). Never iterated.
    recent: LpnTable<()>,
    window_end_ns: u64,
    /// The request being admitted and how many of its pages (bytes) went into DRAM.
    admitting: (u32, u32, u64),
    /// `flush = "ssdsim"`: room is counted in sectors (SSDSim's `max_buffer_sector`).
    ssdsim: bool,
    capacity_sectors: u64,
    used_sectors: u64,
    /// The request whose write is being admitted last waited for an eviction (counted once).
    evicted_for: u32,
    pub(crate) stats: CacheStats,
}

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CacheStats {
    pub(crate) write_pages: u64,
    pub(crate) coalesced: u64,
    pub(crate) read_hits: u64,
    pub(crate) read_partial_hits: u64,
    pub(crate) read_misses: u64,
    pub(crate) evictions: u64,
    pub(crate) dirty_evictions: u64,
    pub(crate) eager_flushes: u64,
    pub(crate) flushed_pages: u64,
    pub(crate) waits: u64,
    pub(crate) max_waiting: u64,
    pub(crate) read_fills: u64,
    pub(crate) write_sector_hits: u64,
    pub(crate) read_sector_hits: u64,
    pub(crate) writes_waiting_for_evictions: u64,
}

impl DataCache {
    /// Loads what a write (`write`) or read of `lpn` probes first (its slot of the index,
    /// and for a write of the hot-window set) into the caches, for `read_ahead`; returns
    /// something read, to be folded away.
    pub(crate) fn preload(&self, lpn: u32, write: bool) -> u32 {
        self.index.preload(lpn) ^ if write { self.recent.preload(lpn) } else { 0 }
    }

    pub(crate) fn new(config: &Config, planes: u32) -> DataCache {
        let page = config.geometry.page_size_bytes as u64;
        let c = &config.cache;
        let sectors = (page / 512).clamp(1, 64) as u32;
        let ssdsim = c.flush == CacheFlush::Ssdsim;
        let limit = match c.flush_limit_bytes {
            // SSDSim writes evicted pages back at once, however many.
            _ if ssdsim => u64::MAX,
            0 => planes as u64 * page,
            n => n,
        };
        let sector_bytes = page / sectors as u64;
        DataCache {
            slots: (c.capacity_bytes / page) as u32,
            entries: Vec::new(),
            free: Vec::new(),
            index: LpnTable::with_capacity(((c.capacity_bytes / page) as usize).min(1 << 16)),
            order: LruOrder::default(),
            used: 0,
            sector_bytes,
            sectors,
            limit_bytes: limit,
            flushing_bytes: 0,
            flushes: LpnTable::with_capacity(64),
            waiting: VecDeque::new(),
            recent: LpnTable::with_capacity(64),
            window_end_ns: 0,
            admitting: (NONE, 0, 0),
            ssdsim,
            capacity_sectors: c.capacity_bytes / sector_bytes,
            used_sectors: 0,
            evicted_for: NONE,
            stats: CacheStats::default(),
        }
    }

    fn full_mask(&self) -> u64 {
        if self.sectors == 64 {
            u64::MAX
        } else {
            (1u64 << self.sectors) - 1
        }
    }

    /// Sectors of the page starting at `page_start` that bytes `offset..offset + size`
    /// touch.
    pub(crate) fn mask_of(&self, offset: u64, size: u64, page_start: u64, page: u64) -> u64 {
        let start = offset.max(page_start) - page_start;
        let end = (offset + size).min(page_start + page) - page_start;
        let first = start / self.sector_bytes;
        let last = end.div_ceil(self.sector_bytes);
        let n = last - first;
        let bits = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        (bits << first) & self.full_mask()
    }

    fn bytes_of(&self, mask: u64) -> u64 {
        mask.count_ones() as u64 * self.sector_bytes
    }

    fn touch(&mut self, e: u32) {
        self.order.touch(e);
    }

    /// A write hit on entry `e`: sectors `mask` join it (coalesced with what it held dirty)
    /// and it becomes the most recently used.
    fn write_hit(&mut self, e: u32, mask: u64) {
        let entry = &mut self.entries[e as usize];
        if entry.dirty {
            self.stats.coalesced += 1;
        }
        entry.mask |= mask;
        entry.dirty = true;
        self.touch(e);
    }

    fn insert(&mut self, lpn: u32, mask: u64, dirty: bool) -> u32 {
        self.insert_sectors(lpn, mask, dirty, mask.count_ones())
    }

    /// `insert`, `mask` holding `sectors` sectors (counted by the caller already: the
    /// build targets x86-64 without `popcnt`, where a count is some twenty instructions).
    fn insert_sectors(&mut self, lpn: u32, mask: u64, dirty: bool, sectors: u32) -> u32 {
        let entry = Entry { lpn, mask, dirty, flushing: false };
        let e = match self.free.pop() {
            Some(e) => {
                self.entries[e as usize] = entry;
                e
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        self.index.insert(lpn, e);
        self.order.push_front(e);
        self.used += 1;
        if self.ssdsim {
            self.used_sectors += sectors as u64;
        }
        e
    }

    fn remove(&mut self, e: u32) {
        if self.ssdsim {
            // (Only this mode keeps the count as an entry's sectors grow.)
            self.used_sectors -= self.entries[e as usize].mask.count_ones() as u64;
        }
        self.order.unlink(e);
        self.index.remove(self.entries[e as usize].lpn);
        self.free.push(e);
        self.used -= 1;
    }

    /// The least recently used entry that can leave now (none with a flush in flight).
    fn victim(&self) -> Option<u32> {
        self.order.iter_lru().find(|&e| !self.entries[e as usize].flushing)
    }

    /// `flush = "ssdsim"`: the least recently used entry other than `keep` that can leave
    /// now.
    fn victim_other_than(&self, keep: u32) -> Option<u32> {
        self.order.iter_lru().find(|&e| e != keep && !self.entries[e as usize].flushing)
    }

    /// Whether `lpn`'s newest data is in DRAM only (dirty here, or a flush in flight).
    pub(crate) fn holds_newer(&self, lpn: u32) -> bool {
        self.flushes.contains_key(lpn) || self.index.get(lpn).is_some_and(|e| self.entries[e as usize].dirty)
    }

    /// The cached pages, least recently used first.
    fn entries_lru(&self) -> impl Iterator<Item = Entry> + '_ {
        self.order.iter_lru().map(|e| self.entries[e as usize])
    }

    /// Appends the pages whose newest data is in DRAM only (`holds_newer`), in no order.
    pub(crate) fn newer_pages(&self, out: &mut Vec<u32>) {
        out.extend(self.flushes.keys());
        out.extend(self.entries_lru().filter(|e| e.dirty).map(|e| e.lpn));
    }

    /// Dirty pages in the cache, least recently used first (power loss: PLP flushes them).
    pub(crate) fn dirty_pages(&self) -> Vec<(u32, u64)> {
        self.entries_lru().filter(|e| e.dirty).map(|e| (e.lpn, e.mask)).collect()
    }

    pub(crate) fn summary(&self, dram: &Dram, config: &Config) -> CacheSummary {
        let s = &self.stats;
        let reads = s.read_hits + s.read_partial_hits + s.read_misses;
        CacheSummary {
            capacity_pages: self.slots as u64,
            mode: report::kebab(&config.cache.mode),
            flush: report::kebab(&config.cache.flush),
            flush_limit_bytes: self.limit_bytes,
            write_pages: s.write_pages,
            coalesced_writes: s.coalesced,
            read_pages: reads,
            read_hits: s.read_hits,
            read_partial_hits: s.read_partial_hits,
            read_hit_ratio: if reads > 0 { s.read_hits as f64 / reads as f64 } else { 0.0 },
            read_fills: s.read_fills,
            evictions: s.evictions,
            dirty_evictions: s.dirty_evictions,
            eager_flushes: s.eager_flushes,
            flushed_pages: s.flushed_pages,
            writes_waited: s.waits,
            max_waiting: s.max_waiting,
            pages_at_end: self.used as u64,
            dirty_pages_at_end: self.entries_lru().filter(|e| e.dirty).count() as u64,
            dram_transfers: dram.transfers,
            dram_bytes: dram.bytes,
            dram_busy_ns: dram.busy_ns,
            sectors: self.ssdsim.then_some(crate::stats::CacheSectors {
                capacity_sectors: self.capacity_sectors,
                write_sector_hits: s.write_sector_hits,
                read_sector_hits: s.read_sector_hits,
                writes_waiting_for_evictions: s.writes_waiting_for_evictions,
            }),
        }
    }
}

impl Simulator<'_> {
    /// Queues a DRAM transfer of `bytes`; `job` happens when it ends.
    pub(crate) fn dram_transfer(&mut self, bytes: u64, job: DramJob) {
        let c = &self.config.cache;
        let ns = c.dram_access_ns + (bytes as f64 * c.dram_ns_per_byte).round() as u64;
        let ssdsim = c.flush == CacheFlush::Ssdsim;
        let d = &mut self.dram;
        let done = if ssdsim {
            // SSDSim charges a fixed DRAM time per request and no channel: transfers
            // overlap (and still end in the order queued, one event each).
            (self.now + ns).max(d.last_done_ns)
        } else {
            d.free_at_ns.max(self.now) + ns
        };
        d.free_at_ns = done;
        d.last_done_ns = done;
        d.busy_ns += ns;
        d.transfers += 1;
        d.bytes += bytes;
        d.jobs.push_back(job);
        // Transfers end in the order queued: one event each, popped in that order.
        self.push(done, Event::DramDone);
    }

    pub(crate) fn on_dram_done(&mut self) -> Result<(), SimError> {
        match self.dram.jobs.pop_front().expect("a DRAM transfer ended") {
            DramJob::Finish { slot, count } => {
                for _ in 0..count {
                    self.finish_sub_request(slot)?;
                }
            }
            DramJob::Internal => {}
        }
        Ok(())
    }

    /// A write sub-request of request `slot` (sectors `mask` of `lpn`) enters the cache,
    /// or waits behind earlier ones for room. The request's DRAM transfer is queued by
    /// `cache_admitted` once all its pages were offered.
    pub(crate) fn cache_write(&mut self, slot: u32, lpn: u32, mask: u64) -> Result<(), SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        cache.stats.write_pages += 1;
        if !cache.waiting.is_empty() || !self.cache_admit(slot, lpn, mask)? {
            let cache = self.cache.as_mut().expect("cache on");
            cache.waiting.push_back(Waiting { slot, lpn, mask });
            cache.stats.waits += 1;
            cache.stats.max_waiting = cache.stats.max_waiting.max(cache.waiting.len() as u64);
        }
        Ok(())
    }

    /// Puts one page of a write into DRAM if the flush limit and a slot allow. Returns
    /// whether it did.
    fn cache_admit(&mut self, slot: u32, lpn: u32, mask: u64) -> Result<bool, SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        if cache.flushing_bytes >= cache.limit_bytes {
            return Ok(false);
        }
        let eager = self.config.cache.flush == CacheFlush::ColdEager;
        if eager && self.now >= cache.window_end_ns {
            cache.recent.clear();
            cache.window_end_ns = self.now + self.config.cache.hot_window_ns;
        }
        // The sectors written, counted once for the room, the hits and the transfer.
        let sectors = mask.count_ones();
        let e = if cache.ssdsim {
            match self.cache_room_ssdsim(slot, lpn, mask, sectors)? {
                Some(e) => e,
                None => return Ok(false),
            }
        } else {
            match cache.index.get(lpn) {
                Some(e) => {
                    cache.write_hit(e, mask);
                    e
                }
                None => {
                    if cache.used >= cache.slots {
                        let Some(victim) = cache.victim() else { return Ok(false) };
                        self.cache_evict(victim)?;
                    }
                    let cache = self.cache.as_mut().expect("cache on");
                    let e = cache.insert_sectors(lpn, mask, true, sectors);
                    // An evicted copy of the page may still be on its way to flash: this one
                    // waits for it (one flush of a page at a time).
                    cache.entries[e as usize].flushing = cache.flushes.contains_key(lpn);
                    e
                }
            }
        };
        // Host order: the version the host is told is written (`--verify`), for each run
        // of the units the write touches.
        if self.verify {
            for (k, run) in unit_runs(self.cache_unit_bits(mask)) {
                let v = self.ftl.issue_version(lpn, k, run);
                self.ftl.acknowledge(lpn, k, run, v);
            }
        }
        let cache = self.cache.as_mut().expect("cache on");
        let bytes = sectors as u64 * cache.sector_bytes;
        if cache.admitting.0 == slot {
            cache.admitting.1 += 1;
            cache.admitting.2 += bytes;
        } else {
            debug_assert_eq!(cache.admitting.0, NONE, "one request admitted at a time");
            cache.admitting = (slot, 1, bytes);
        }
        if eager && cache.recent.insert(lpn, ()).is_none() && !cache.entries[e as usize].flushing {
            cache.stats.eager_flushes += 1;
            self.cache_flush_entry(e, slot)?;
        }
        Ok(true)
    }

    /// The pages of request `slot` admitted so far are written to DRAM; they complete
    /// when the transfer ends.
    pub(crate) fn cache_admitted(&mut self) {
        let cache = self.cache.as_mut().expect("cache on");
        let (slot, count, bytes) = std::mem::replace(&mut cache.admitting, (NONE, 0, 0));
        cache.evicted_for = NONE;
        if slot != NONE {
            self.dram_transfer(bytes, DramJob::Finish { slot, count });
        }
    }

    /// SSDSim's `insert2buffer`: sectors `mask` of `lpn` go into DRAM, the least recently
    /// used pages (not `lpn`'s) leaving whole until their sectors make room; request `slot`
    /// then waits for their programs. Returns the entry, or None when no page can leave
    /// (each has a flush in flight): the write waits.
    fn cache_room_ssdsim(&mut self, slot: u32, lpn: u32, mask: u64, sectors: u32) -> Result<Option<u32>, SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        let existing = cache.index.get(lpn);
        let held = existing.map_or(0, |e| cache.entries[e as usize].mask);
        // Of the `sectors` written, those not held need room and the rest are hits.
        let need = if held == 0 { sectors } else { (mask & !held).count_ones() };
        let keep = existing.unwrap_or(NONE);
        loop {
            let cache = self.cache.as_mut().expect("cache on");
            if cache.used_sectors + need as u64 <= cache.capacity_sectors {
                break;
            }
            let Some(victim) = cache.victim_other_than(keep) else { return Ok(None) };
            self.cache_evict_for(victim, slot)?;
        }
        let cache = self.cache.as_mut().expect("cache on");
        cache.stats.write_sector_hits += (sectors - need) as u64;
        Ok(Some(match existing {
            Some(e) => {
                cache.write_hit(e, mask);
                cache.used_sectors += need as u64;
                e
            }
            None => {
                let e = cache.insert_sectors(lpn, mask, true, sectors);
                cache.entries[e as usize].flushing = cache.flushes.contains_key(lpn);
                e
            }
        }))
    }

    /// `flush = "ssdsim"`: evicts entry `e` for request `slot`, which completes only when
    /// the page's program does (SSDSim hangs the write-back on the request that caused it).
    fn cache_evict_for(&mut self, e: u32, slot: u32) -> Result<(), SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        let entry = cache.entries[e as usize];
        cache.stats.evictions += 1;
        cache.remove(e);
        if !entry.dirty {
            return Ok(());
        }
        cache.stats.dirty_evictions += 1;
        if cache.evicted_for != slot {
            cache.evicted_for = slot;
            cache.stats.writes_waiting_for_evictions += 1;
        }
        self.cache_flush(entry.lpn, entry.mask, NO_REQUEST)?;
        let cache = self.cache.as_mut().expect("cache on");
        if let Some(f) = cache.flushes.get_mut(entry.lpn) {
            if f.txns > 0 {
                f.waiter = slot;
                self.requests[slot as usize].pending += 1;
                if let Some(o) = self.occupancy.as_mut() {
                    let check = o.request_grew(slot);
                    o.note(check);
                }
            }
        }
        Ok(())
    }

    /// Evicts entry `e`: a dirty page is flushed (its data read out of DRAM first).
    fn cache_evict(&mut self, e: u32) -> Result<(), SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        let entry = cache.entries[e as usize];
        cache.stats.evictions += 1;
        cache.remove(e);
        if entry.dirty {
            cache.stats.dirty_evictions += 1;
            let bytes = cache.bytes_of(entry.mask);
            self.dram_transfer(bytes, DramJob::Internal);
            self.cache_flush(entry.lpn, entry.mask, NO_REQUEST)?;
        }
        Ok(())
    }

    /// Flushes a cached page that stays in the cache (cold-eager).
    fn cache_flush_entry(&mut self, e: u32, slot: u32) -> Result<(), SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        let entry = &mut cache.entries[e as usize];
        entry.dirty = false;
        entry.flushing = true;
        let (lpn, mask) = (entry.lpn, entry.mask);
        self.cache_flush(lpn, mask, slot)
    }

    /// Programs sectors `mask` of `lpn` from DRAM (acknowledged already). `slot` is the
    /// request on whose behalf it happens, for designs that place a request's pages
    /// together (NO_REQUEST for an eviction).
    fn cache_flush(&mut self, lpn: u32, mask: u64, slot: u32) -> Result<(), SimError> {
        let cache = self.cache.as_mut().expect("cache on");
        let bytes = cache.bytes_of(mask);
        cache.flushing_bytes += bytes;
        cache.stats.flushed_pages += 1;
        debug_assert!(!cache.flushes.contains_key(lpn), "one flush of a page at a time");
        cache.flushes.insert(lpn, Flush { bytes, txns: 0, waiter: NO_REQUEST });
        let (full, sector) = (cache.full_mask(), cache.sector_bytes);
        self.write_pending(lpn);
        self.flushing = true;
        // (A flush may start while a host request's page is being split off.)
        let host_sectors = self.page_sectors;
        let held = bytes.div_ceil(512);
        let partial = mask != full && self.config.flash.transfer_requested_bytes;
        self.page_sectors = if partial { held as u16 } else { 0 };
        let result = if mask == full {
            self.dispatch_write(slot, lpn, 0, self.timing.page_size_bytes)
        } else if self.ftl.unit_shift == 0 {
            // A page map writes the page once: the hull of the sectors held.
            let first = mask.trailing_zeros() as u64;
            let last = 64 - mask.leading_zeros() as u64;
            self.dispatch_write(slot, lpn, first * sector, last * sector)
        } else {
            // A unit map writes each run of units held.
            let unit_bytes = self.timing.page_size_bytes / self.ftl.units_per_page() as u64;
            let bits = self.cache_unit_bits(mask);
            let outer = std::mem::replace(&mut self.flush_units, bits);
            let result = unit_runs(bits).try_for_each(|(k, run)| {
                self.dispatch_write(slot, lpn, k as u64 * unit_bytes, (k + run) as u64 * unit_bytes)
            });
            self.flush_units = outer;
            result
        };
        self.flushing = false;
        self.page_sectors = host_sectors;
        result
    }

    /// The units of the page that sectors `mask` touch, as bits.
    fn cache_unit_bits(&self, mask: u64) -> u32 {
        let units = self.ftl.units_per_page();
        let sectors = self.cache.as_ref().map_or(64, |c| c.sectors);
        let per_unit = (sectors / units).max(1);
        let unit_mask = if per_unit >= 64 { u64::MAX } else { (1u64 << per_unit) - 1 };
        (0..units).filter(|&k| mask >> (k * per_unit) & unit_mask != 0).fold(0, |bits, k| bits | 1 << k)
    }

    /// The units (first, count) a flush of sectors `mask` programs: the whole page with a
    /// page map, the hull of the units held with a unit map.
    pub(crate) fn cache_units_of(&self, mask: u64) -> (u32, u32) {
        if self.ftl.unit_shift == 0 {
            return (0, self.ftl.units_per_page());
        }
        let bits = self.cache_unit_bits(mask);
        let first = bits.trailing_zeros();
        (first, 32 - bits.leading_zeros() - first)
    }

    /// `flush = "ssdsim"`: the data of the command on `die` is in the chip: a write waiting
    /// for one of its pages (an evicted page being programmed) stops waiting, as SSDSim's
    /// write sub-request completes when its transfer ends.
    pub(crate) fn cache_flush_data_in(&mut self, die: u32) -> Result<(), SimError> {
        for i in 0..self.dies[die as usize].command.txns.len() {
            let t = self.dies[die as usize].command.txns[i];
            let txn = &self.txns[t as usize];
            if txn.kind != TxnKind::Write || txn.request != NO_REQUEST {
                continue;
            }
            let lpn = txn.lpn;
            let waiter = match self.cache.as_mut().and_then(|c| c.flushes.get_mut(lpn)) {
                Some(f) => std::mem::replace(&mut f.waiter, NO_REQUEST),
                None => NO_REQUEST,
            };
            if waiter != NO_REQUEST {
                self.finish_sub_request(waiter)?;
            }
        }
        Ok(())
    }

    /// A flash transaction of a flush was created (`alloc_txn` while flushing).
    pub(crate) fn cache_flush_txn_created(&mut self, lpn: u32) {
        if let Some(f) = self.cache.as_mut().and_then(|c| c.flushes.get_mut(lpn)) {
            f.txns += 1;
        }
    }

    /// A flash transaction of a flush of `lpn` completed (a program, or the read before a
    /// read-modify-write, whose program was queued first). With its last, the flush ends:
    /// a page not written again meanwhile leaves the cache (cold-eager, as MQSim) or stays
    /// clean (read-write), and writes waiting for room are retried.
    pub(crate) fn cache_flush_txn_done(&mut self, lpn: u32) -> Result<(), SimError> {
        let Some(cache) = self.cache.as_mut() else { return Ok(()) };
        let Some(f) = cache.flushes.get_mut(lpn) else { return Ok(()) };
        f.txns -= 1;
        if f.txns > 0 {
            return Ok(());
        }
        let f = cache.flushes.remove(lpn).expect("present");
        cache.flushing_bytes -= f.bytes;
        if f.waiter != NO_REQUEST {
            self.finish_sub_request(f.waiter)?;
        }
        let cache = self.cache.as_mut().expect("cache on");
        if let Some(e) = cache.index.get(lpn) {
            let entry = &mut cache.entries[e as usize];
            if entry.flushing {
                entry.flushing = false;
                if !entry.dirty && self.config.cache.mode == CacheMode::Write {
                    cache.remove(e);
                }
            }
        }
        self.cache_retry_waiting()
    }

    /// Admits waiting writes, oldest first, while there is room.
    fn cache_retry_waiting(&mut self) -> Result<(), SimError> {
        while let Some(&w) = self.cache.as_ref().expect("cache on").waiting.front() {
            let cache = self.cache.as_mut().expect("cache on");
            if cache.admitting.0 != NONE && cache.admitting.0 != w.slot {
                self.cache_admitted();
            }
            if !self.cache_admit(w.slot, w.lpn, w.mask)? {
                break;
            }
            self.cache.as_mut().expect("cache on").waiting.pop_front();
        }
        self.cache_admitted();
        self.kick_listed()
    }

    /// A read sub-request of sectors `mask` of `lpn`: served from DRAM when the cache
    /// holds all of them. Returns whether it did.
    pub(crate) fn cache_read(&mut self, slot: u32, lpn: u32, mask: u64) -> bool {
        let cache = self.cache.as_mut().expect("cache on");
        match cache.index.get(lpn) {
            Some(e) if cache.entries[e as usize].mask & mask == mask => {
                cache.stats.read_hits += 1;
                cache.stats.read_sector_hits += mask.count_ones() as u64;
                cache.touch(e);
                let bytes = cache.bytes_of(mask);
                self.dram_transfer(bytes, DramJob::Finish { slot, count: 1 });
                true
            }
            Some(e) => {
                // Part in DRAM, the rest on flash: the page is read from flash and merged.
                cache.stats.read_partial_hits += 1;
                cache.stats.read_sector_hits += (cache.entries[e as usize].mask & mask).count_ones() as u64;
                false
            }
            None => {
                cache.stats.read_misses += 1;
                false
            }
        }
    }

    /// Read-write mode: the page a read miss brought from flash is kept, clean, if a
    /// slot is free or the least recently used page is clean (a read never forces a
    /// flush).
    pub(crate) fn cache_fill(&mut self, lpn: u32) {
        let Some(cache) = self.cache.as_mut() else { return };
        if self.config.cache.mode != CacheMode::ReadWrite || cache.index.contains_key(lpn) {
            return;
        }
        if cache.used >= cache.slots {
            match cache.victim() {
                Some(v) if !cache.entries[v as usize].dirty => {
                    cache.stats.evictions += 1;
                    cache.remove(v);
                }
                _ => return,
            }
        }
        let full = cache.full_mask();
        cache.insert(lpn, full, false);
        cache.stats.read_fills += 1;
        let bytes = self.timing.page_size_bytes;
        self.dram_transfer(bytes, DramJob::Internal);
    }

    /// Power is lost: the cache's volatile state goes; with PLP its dirty pages were
    /// flushed first (`power.rs`). Returns the dirty pages to flush.
    pub(crate) fn cache_power_lost(&mut self) -> Vec<(u32, u64)> {
        let Some(cache) = self.cache.as_mut() else { return Vec::new() };
        let dirty = cache.dirty_pages();
        let fresh = DataCache::new(&self.config, self.ftl.addr.planes());
        let stats = cache.stats;
        **cache = fresh;
        cache.stats = stats;
        self.dram.jobs.clear();
        self.dram.free_at_ns = self.now;
        self.dram.last_done_ns = self.now;
        dirty
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unit_runs_are_the_runs_of_set_bits_lowest_first() {
        let runs: Vec<_> = super::unit_runs(0b1101_1001).collect();
        assert_eq!(runs, vec![(0, 1), (3, 2), (6, 2)]);
        assert_eq!(super::unit_runs(u32::MAX).collect::<Vec<_>>(), vec![(0, 32)]);
        assert_eq!(super::unit_runs(0).count(), 0);
    }
}
