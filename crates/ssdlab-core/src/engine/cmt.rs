//! The cached mapping table (`[cmt]`; DFTL, MQSim's CMT): which mapping entries DRAM
//! holds, the translation-page reads a miss needs and the write-backs of dirty entries.
//!
//! Entries are cached one logical page each, least recently used out first. A user read
//! or write (or a flush out of the data cache) whose entry is not cached waits for a read
//! of its translation page; misses of a translation page already being read join that
//! read. When the read ends, each waiting page's entry is cached and its sub-request goes
//! on where it stopped. A write's entry becomes dirty when the write passes the table.
//! Evicting a dirty entry writes back its translation page with every dirty entry of it
//! (`cmt.write_back`): read the page, then program it on the translation pages' write
//! point. While that program is under way the page is in controller memory, so misses of
//! it need no read. Mapping reads go ahead of user reads at their die.
//!
//! GC moves (`cmt_gc_moved`), with `write_back = "program"`, as DFTL (Gupta et al.,
//! ASPLOS'09: lazy copying, batch updates): a cached entry is updated in the table; an
//! uncached one takes a free or clean slot of the table if there is one, and otherwise
//! joins its victim's batch, which writes each translation page it touches back once
//! when the victim is erased. With `write_back = "mqsim"` as MQSim
//! (`Allocate_new_page_for_gc`): the moved entry is cached dirty, evicting another.
//!
//! The flash itself holds the map's truth (`Ftl::map`): the table decides only what the
//! lookups cost.

use super::lpn_hash::LpnTable;
use super::lru::LruQueue;
use super::*;
use crate::config::CmtWriteBack;

/// End of a list of waiters (`Cmt::waiting`).
const NO_WAITER: u32 = u32::MAX;
/// `Txn::want` of a mapping read: a miss's read, or the read of a write-back.
pub(crate) const MAP_FILL: u8 = 0;
pub(crate) const MAP_WRITE_BACK: u8 = 1;

/// A sub-request waiting for its translation page.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Waiter {
    /// A host read of logical page `lpn`, the page of request `slot` at `page_start`.
    Read { slot: u32, lpn: u32, page_start: u64 },
    /// A write of bytes `start..end` of `lpn` (`dispatch_write`), with the sectors it
    /// carries and whether it is a flush out of the data cache (then `slot` is none).
    Write { slot: u32, lpn: u32, start: u32, end: u32, sectors: u16, flush: bool },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    lpn: u32,
    /// Dirty while equal to its translation page's `generation + 1` (a write-back cleans
    /// every entry of the page at once by advancing the generation).
    mark: u32,
}

/// Write-back state of a translation page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum WriteBack {
    #[default]
    Idle,
    /// Its read is under way; the program follows.
    Reading,
    /// Its program is under way (the page is in controller memory).
    Programming,
}

#[derive(Clone, Debug)]
struct TPage {
    generation: u32,
    /// A read that will cache the waiting entries is under way.
    reading: bool,
    write_back: WriteBack,
    /// Entries became dirty and were evicted during the write-back: program once more.
    again: bool,
    /// `write_back = "mqsim"`: served from DRAM since its first write-back.
    departed: bool,
    /// `generation + 1` while a GC batch holds a change of it not yet written (0: none).
    gc_pending: u32,
    /// Its waiters, oldest first: a list through `Cmt::waiting` (`NO_WAITER`: none).
    first_waiter: u32,
    last_waiter: u32,
}

impl Default for TPage {
    fn default() -> Self {
        TPage {
            generation: 0,
            reading: false,
            write_back: WriteBack::Idle,
            again: false,
            departed: false,
            gc_pending: 0,
            first_waiter: NO_WAITER,
            last_waiter: NO_WAITER,
        }
    }
}

/// A waiter in `Cmt::waiting`, and the next of its translation page's list (or of the
/// free list).
#[derive(Clone, Copy, Debug)]
struct Waiting {
    waiter: Waiter,
    next: u32,
}

/// What the table did, for the report's `cmt` section.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CmtStats {
    pub(crate) lookups: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    /// Misses that joined a read of their translation page already under way.
    pub(crate) merged_misses: u64,
    /// Misses served from a translation page in controller memory (being written back).
    pub(crate) buffer_hits: u64,
    pub(crate) mapping_reads: u64,
    pub(crate) write_back_reads: u64,
    pub(crate) mapping_programs: u64,
    pub(crate) write_backs: u64,
    pub(crate) dirty_evictions: u64,
    pub(crate) evictions: u64,
    /// GC moves whose entry was not cached (cached dirty without a read, or folded into
    /// the victim's batch).
    pub(crate) gc_updates: u64,
}

pub(crate) struct Cmt {
    capacity: u32,
    per_page: u32,
    first_tlpn: u32,
    read_bytes: u64,
    write_back: CmtWriteBack,
    /// The cached entries in least-recently-used order.
    entries: LruQueue<Entry>,
    /// Logical page → entry. Looked up, never iterated.
    index: LpnTable<u32>,
    tpages: Vec<TPage>,
    /// The sub-requests waiting for translation-page reads, as lists per page; slots are
    /// reused (`free_waiting`: a list of free ones), so a miss allocates nothing.
    waiting: Vec<Waiting>,
    free_waiting: u32,
    entry_bytes: u32,
    /// Per plane, the translation pages of the uncached entries its GC victim's moves
    /// changed (`write_back = "program"`), each with its `generation` then: written back
    /// once each when the victim is erased (`cmt_gc_victim_erased`), unless a write-back
    /// started since has carried the change. May repeat a page; deduplicated then.
    gc_batches: Vec<Vec<(u32, u32)>>,
    stats: CmtStats,
}

impl Cmt {
    pub(crate) fn new(config: &Config, ftl: &Ftl) -> Cmt {
        let (entry_bytes, per_page) = config.cmt.sizes(ftl.addr.pages(), config.geometry.page_size_bytes);
        let capacity = (config.cmt.capacity_bytes / entry_bytes as u64) as u32;
        let page = config.geometry.page_size_bytes as u64;
        Cmt {
            capacity,
            per_page,
            first_tlpn: ftl.logical_pages,
            read_bytes: if config.cmt.read_bytes == 0 { page } else { config.cmt.read_bytes as u64 },
            write_back: config.cmt.write_back,
            entries: LruQueue::with_capacity(capacity.min(1 << 20) as usize),
            index: LpnTable::with_capacity(capacity.min(1 << 20) as usize),
            tpages: vec![TPage::default(); ftl.translation_pages as usize],
            waiting: Vec::new(),
            free_waiting: NO_WAITER,
            entry_bytes,
            gc_batches: vec![Vec::new(); ftl.addr.planes() as usize],
            stats: CmtStats::default(),
        }
    }

    fn touch(&mut self, e: u32) {
        self.entries.touch(e);
    }

    /// Appends `waiter` to translation page `tp`'s waiters.
    fn push_waiter(&mut self, tp: u32, waiter: Waiter) {
        let w = Waiting { waiter, next: NO_WAITER };
        let i = if self.free_waiting != NO_WAITER {
            let i = self.free_waiting;
            self.free_waiting = self.waiting[i as usize].next;
            self.waiting[i as usize] = w;
            i
        } else {
            self.waiting.push(w);
            (self.waiting.len() - 1) as u32
        };
        let page = &mut self.tpages[tp as usize];
        match page.last_waiter {
            NO_WAITER => page.first_waiter = i,
            last => self.waiting[last as usize].next = i,
        }
        page.last_waiter = i;
    }

    /// Takes the waiter in slot `i` (of a list already detached from its page) and frees
    /// the slot; returns it and the next slot of its list.
    fn pop_waiter(&mut self, i: u32) -> (Waiter, u32) {
        let Waiting { waiter, next } = self.waiting[i as usize];
        self.waiting[i as usize].next = self.free_waiting;
        self.free_waiting = i;
        (waiter, next)
    }

    fn is_dirty(&self, entry: Entry) -> bool {
        entry.mark != 0 && entry.mark == self.tpages[(entry.lpn / self.per_page) as usize].generation + 1
    }

    fn mark_dirty(&mut self, e: u32) {
        let tp = (self.entries.get(e).lpn / self.per_page) as usize;
        self.entries.get_mut(e).mark = self.tpages[tp].generation + 1;
    }

    /// Loads what a lookup of `lpn` reads first (its slot of the index, its translation
    /// page's state) into the caches, for `read_ahead`; returns something read, to be
    /// folded away.
    pub(crate) fn preload(&self, lpn: u32) -> u32 {
        let page = self.tpages.get((lpn / self.per_page) as usize).map_or(0, |p| p.generation);
        self.index.preload(lpn) ^ page
    }

    /// Loads what evicting the `n` least recently used entries reads (their index slots
    /// and translation pages, to tell whether they are dirty), as `preload`.
    pub(crate) fn preload_victims(&self, n: usize) -> u32 {
        if (self.entries.len() as u32) < self.capacity {
            return 0;
        }
        self.entries.oldest_values(n).fold(0, |acc, victim| acc ^ self.preload(victim.lpn))
    }

    /// Caches `lpn`'s entry (most recently used). Returns the entry and, if a dirty entry
    /// had to make room, its translation page (to write back).
    fn insert(&mut self, lpn: u32) -> (u32, Option<u32>) {
        let mut write_back = None;
        let e = if (self.entries.len() as u32) < self.capacity {
            self.entries.push(Entry { lpn, mark: 0 })
        } else {
            let (e, victim) = self.entries.replace_oldest(Entry { lpn, mark: 0 });
            self.stats.evictions += 1;
            if self.is_dirty(victim) {
                self.stats.dirty_evictions += 1;
                write_back = Some(victim.lpn / self.per_page);
            }
            self.index.remove(victim.lpn);
            e
        };
        self.index.insert(lpn, e);
        (e, write_back)
    }
}

impl Simulator<'_> {
    /// A sub-request needs `lpn`'s mapping: true when it is known now (cached, or in a
    /// translation page in controller memory), false when the sub-request waits for a
    /// read of its translation page (and resumes when it ends).
    pub(crate) fn cmt_translate(&mut self, lpn: u32, waiter: Waiter) -> Result<bool, SimError> {
        let write = matches!(waiter, Waiter::Write { .. });
        let cmt = self.cmt.as_mut().expect("cmt on");
        cmt.stats.lookups += 1;
        if let Some(e) = cmt.index.get(lpn) {
            cmt.stats.hits += 1;
            cmt.touch(e);
            if write {
                cmt.mark_dirty(e);
            }
            return Ok(true);
        }
        let tp = lpn / cmt.per_page;
        let page = &cmt.tpages[tp as usize];
        if page.departed || page.write_back == WriteBack::Programming {
            cmt.stats.buffer_hits += 1;
            self.cmt_cache(lpn, write);
            return Ok(true);
        }
        cmt.stats.misses += 1;
        cmt.push_waiter(tp, waiter);
        let page = &mut cmt.tpages[tp as usize];
        if page.reading || page.write_back == WriteBack::Reading {
            cmt.stats.merged_misses += 1;
        } else {
            page.reading = true;
            self.cmt_read(tp, MAP_FILL);
        }
        Ok(false)
    }

    /// Caches `lpn`'s entry (dirty for a write or a GC move), writing back the
    /// translation page of a dirty entry it evicts.
    fn cmt_cache(&mut self, lpn: u32, dirty: bool) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        let (e, victim_page) = cmt.insert(lpn);
        if dirty {
            cmt.mark_dirty(e);
        }
        if let Some(tp) = victim_page {
            self.cmt_write_back(tp);
        }
    }

    /// GC (or a design's relocation) moved `lpn` out of a block of `plane`: its entry
    /// changed. GC knows the new location, so no read is needed.
    ///
    /// `write_back = "program"`: DFTL's GC updates (Gupta et al., ASPLOS'09). A cached
    /// entry is updated in the table (lazy copying: dirty, it goes to flash with its
    /// translation page's next write-back). An uncached one takes a slot of the table if
    /// that costs no write (a free slot, or a clean entry to evict); otherwise it joins
    /// the plane's GC batch, and each translation page of the batch is written back once
    /// when the victim is erased (`cmt_gc_victim_erased`; batch updates). So a victim's
    /// moves never evict a dirty entry: they cost at most one translation-page program per
    /// translation page their uncached entries map into, however small the table.
    /// (Caching every moved entry dirty, as before, evicted a dirty entry and wrote its
    /// translation page back per move once the table was full of dirty entries; only
    /// write-backs of one page merging while in flight kept that down.)
    ///
    /// `write_back = "mqsim"`: as MQSim's `Allocate_new_page_for_gc`, the moved entry is
    /// cached dirty, evicting (and writing back) another if need be.
    pub(crate) fn cmt_gc_moved(&mut self, plane: u32, lpn: u32) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        if lpn >= cmt.first_tlpn {
            // A translation page: the table of translation pages (the GTD) is in DRAM.
            return;
        }
        if let Some(e) = cmt.index.get(lpn) {
            cmt.mark_dirty(e);
            return;
        }
        cmt.stats.gc_updates += 1;
        if cmt.write_back == CmtWriteBack::Mqsim {
            self.cmt_cache(lpn, true);
            return;
        }
        let tp = lpn / cmt.per_page;
        let page = &cmt.tpages[tp as usize];
        if page.write_back == WriteBack::Reading || page.gc_pending == page.generation + 1 {
            // The program of its write-back, not issued yet, or a batch's carries it too.
            return;
        }
        let room = (cmt.entries.len() as u32) < cmt.capacity || {
            let oldest = cmt.entries.oldest();
            !cmt.is_dirty(*cmt.entries.get(oldest))
        };
        if room {
            self.cmt_cache(lpn, true);
            return;
        }
        let page = &mut cmt.tpages[tp as usize];
        page.gc_pending = page.generation + 1;
        let pending = (tp, page.generation);
        cmt.gc_batches[plane as usize].push(pending);
    }

    /// GC erased its victim on `plane`: every translation page the victim's moves
    /// changed (`cmt_gc_moved`) is written back, once each.
    pub(crate) fn cmt_gc_victim_erased(&mut self, plane: u32) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        let mut batch = std::mem::take(&mut cmt.gc_batches[plane as usize]);
        if batch.is_empty() {
            return;
        }
        // Per translation page, the generation of its latest change (the last of its
        // run once sorted).
        batch.sort_unstable();
        for (i, &(tp, generation)) in batch.iter().enumerate() {
            if batch.get(i + 1).is_some_and(|next| next.0 == tp) {
                continue;
            }
            // A write-back started since the change (an evicted dirty entry of the page)
            // carried it: the page is in controller memory with the batch.
            if self.cmt.as_ref().expect("cmt on").tpages[tp as usize].generation == generation {
                self.cmt_write_back(tp);
            }
        }
        batch.clear();
        self.cmt.as_mut().expect("cmt on").gc_batches[plane as usize] = batch;
    }

    /// A trim changed `lpn`'s entry (only a cached one is updated; an uncached one is
    /// recorded in the translation page's next write-back, at no cost here).
    pub(crate) fn cmt_trimmed(&mut self, lpn: u32) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        if let Some(e) = cmt.index.get(lpn) {
            cmt.mark_dirty(e);
        }
    }

    /// Starts writing back translation page `tp` (a dirty entry of it was evicted, or a
    /// GC victim's batch): all its dirty entries are clean from now on.
    fn cmt_write_back(&mut self, tp: u32) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        cmt.stats.write_backs += 1;
        let mode = cmt.write_back;
        let page = &mut cmt.tpages[tp as usize];
        page.generation += 1;
        if mode == CmtWriteBack::Mqsim {
            // MQSim reads (one sector) for every write-back and never programs.
            page.departed = true;
            self.cmt_read(tp, MAP_WRITE_BACK);
            return;
        }
        match page.write_back {
            WriteBack::Idle => {
                page.write_back = WriteBack::Reading;
                self.cmt_read(tp, MAP_WRITE_BACK);
            }
            // The program not yet issued will carry these entries too.
            WriteBack::Reading => {}
            WriteBack::Programming => page.again = true,
        }
    }

    /// Queues a read of translation page `tp` at its die, ahead of user reads.
    fn cmt_read(&mut self, tp: u32, tag: u8) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        let tlpn = cmt.first_tlpn + tp;
        let bytes = if tag == MAP_WRITE_BACK && cmt.write_back == CmtWriteBack::Program {
            self.timing.page_size_bytes
        } else {
            cmt.read_bytes
        };
        if tag == MAP_WRITE_BACK {
            cmt.stats.write_back_reads += 1;
        } else {
            cmt.stats.mapping_reads += 1;
        }
        let ppn = self.ftl.lookup(tlpn).expect("translation pages are placed before the run");
        let plane = self.ftl.addr.plane_of(ppn);
        let txn = self.alloc_txn(TxnKind::Read, NO_REQUEST, tlpn, ppn, plane);
        let t = &mut self.txns[txn as usize];
        t.want = tag;
        t.sectors = bytes.div_ceil(512) as u16;
        self.expect_read_version(txn);
        let die = self.ftl.addr.die_of_plane(plane);
        let reads = &self.dies[die as usize].reads;
        let txns = &self.txns;
        let at = reads
            .iter()
            .position(|&r| txns[r as usize].kind != TxnKind::Read || txns[r as usize].request != NO_REQUEST)
            .unwrap_or(reads.len());
        self.dies[die as usize].reads.insert(at, txn);
        self.cmt_kick(die);
    }

    /// Queues the program of translation page `tp` on its write point, in the plane it
    /// was in.
    fn cmt_program(&mut self, tp: u32) {
        let cmt = self.cmt.as_mut().expect("cmt on");
        cmt.stats.mapping_programs += 1;
        let tlpn = cmt.first_tlpn + tp;
        cmt.tpages[tp as usize].write_back = WriteBack::Programming;
        let ppn = self.ftl.lookup(tlpn).expect("translation pages are placed before the run");
        let plane = self.ftl.addr.plane_of(ppn);
        let flushing = std::mem::replace(&mut self.flushing, false);
        let txn = self.alloc_txn(TxnKind::Write, NO_REQUEST, tlpn, NO_PAGE, plane);
        self.flushing = flushing;
        let t = &mut self.txns[txn as usize];
        t.acked = true;
        t.sectors = 0;
        t.mode = WriteMode::Mapping;
        self.buffered_write_pages += 1;
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].writes.push_back(txn);
        self.cmt_kick(die);
    }

    /// Starts `die` once the event being handled is done (mapping I/O may be issued while
    /// a die's command is being built).
    fn cmt_kick(&mut self, die: u32) {
        self.cmt_kicks.push(die);
        if self.cmt_kicks.len() == 1 {
            self.push(self.now, Event::CmtKick);
        }
    }

    pub(crate) fn on_cmt_kick(&mut self) -> Result<(), SimError> {
        // Further translation reads' kicks (and their event) land in `cmt_kicks`: kept.
        self.kick_buffered(|s| &mut s.cmt_kicks)
    }

    /// A read of a translation page ended: waiting entries are cached and their
    /// sub-requests go on; a write-back's program follows its read.
    pub(crate) fn cmt_read_done(&mut self, tlpn: u32, tag: u8) -> Result<(), SimError> {
        let cmt = self.cmt.as_mut().expect("cmt on");
        let tp = tlpn - cmt.first_tlpn;
        let mode = cmt.write_back;
        let page = &mut cmt.tpages[tp as usize];
        page.reading = false;
        // The waiters so far; any that arrive while they resume wait for the next read.
        let mut next = std::mem::replace(&mut page.first_waiter, NO_WAITER);
        page.last_waiter = NO_WAITER;
        let program = tag == MAP_WRITE_BACK && mode == CmtWriteBack::Program;
        if program {
            self.cmt_program(tp);
        }
        while next != NO_WAITER {
            let (w, after) = self.cmt.as_mut().expect("cmt on").pop_waiter(next);
            next = after;
            let (lpn, write) = match w {
                Waiter::Read { lpn, .. } => (lpn, false),
                Waiter::Write { lpn, .. } => (lpn, true),
            };
            let cmt = self.cmt.as_mut().expect("cmt on");
            match cmt.index.get(lpn) {
                Some(e) => {
                    cmt.touch(e);
                    if write {
                        cmt.mark_dirty(e);
                    }
                }
                None => self.cmt_cache(lpn, write),
            }
            self.cmt_resume(w)?;
        }
        self.kick_listed()
    }

    /// A sub-request whose mapping is now cached goes on where it stopped.
    fn cmt_resume(&mut self, w: Waiter) -> Result<(), SimError> {
        match w {
            Waiter::Read { slot, lpn, page_start } => {
                let r = self.requests[slot as usize];
                self.page_sectors = self.sectors_of(r.offset_bytes, r.size_bytes, page_start);
                let result = self.read_sub_request(slot, lpn, page_start, true);
                self.page_sectors = 0;
                result
            }
            Waiter::Write { slot, lpn, start, end, sectors, flush } => {
                let (sectors_before, flushing_before) = (self.page_sectors, self.flushing);
                self.page_sectors = sectors;
                self.flushing = flush;
                let result = self.dispatch_mapped_write(slot, lpn, start as u64, end as u64);
                self.page_sectors = sectors_before;
                self.flushing = flushing_before;
                result
            }
        }
    }

    /// A translation page's program ended: misses of it read flash again, and entries
    /// dirtied and evicted meanwhile are programmed now.
    pub(crate) fn cmt_program_done(&mut self, tlpn: u32) -> Result<(), SimError> {
        let cmt = self.cmt.as_mut().expect("cmt on");
        let tp = tlpn - cmt.first_tlpn;
        let page = &mut cmt.tpages[tp as usize];
        page.write_back = WriteBack::Idle;
        if std::mem::take(&mut page.again) {
            self.cmt_program(tp);
        }
        Ok(())
    }

    pub(crate) fn cmt_summary(&self) -> Option<CmtSummary> {
        let cmt = self.cmt.as_ref()?;
        let s = cmt.stats;
        Some(CmtSummary {
            capacity_entries: cmt.capacity as u64,
            entry_bytes: cmt.entry_bytes,
            entries_per_translation_page: cmt.per_page,
            translation_pages: self.ftl.translation_pages as u64,
            cached_entries: cmt.index.len() as u64,
            lookups: s.lookups,
            hits: s.hits,
            buffer_hits: s.buffer_hits,
            misses: s.misses,
            merged_misses: s.merged_misses,
            hit_ratio: if s.lookups > 0 { (s.hits + s.buffer_hits) as f64 / s.lookups as f64 } else { 1.0 },
            mapping_reads: s.mapping_reads + s.write_back_reads,
            write_back_reads: s.write_back_reads,
            mapping_programs: s.mapping_programs,
            write_backs: s.write_backs,
            evictions: s.evictions,
            dirty_evictions: s.dirty_evictions,
            gc_updates: s.gc_updates,
        })
    }
}
