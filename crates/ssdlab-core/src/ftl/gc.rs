//! Garbage collection decisions: when a plane needs cleaning, which block to clean
//! (greedy, cost-benefit, FIFO, random) and, one cleanup operation at a time, what to do
//! next (thesis §4.2.2: decided with the freshest state just before it executes).

use super::{BlockState, Ftl, GcNeed, GcStep};
use crate::config::VictimPolicy;
use crate::flash::{Ppn, NO_PAGE};
use rand::Rng;

impl Ftl {
    /// Normal-mode free blocks at or below the emergency threshold → emergency; at or
    /// below the background threshold → background. An SLC pool with no free block left
    /// but closed SLC blocks to clean also asks for background cleaning.
    // (Inlined, with the general rules out of line: the common case is two comparisons,
    // and the scheduler asks it once or more per die it schedules; as one function the
    // call cost 56 instructions, issue 48.)
    #[inline]
    pub fn gc_need(&self, plane: u32) -> GcNeed {
        // Without SLC-mode blocks and counting free blocks (most drives), the rules of
        // `gc_need_general` come down to these.
        if !self.has_slc && !self.gc_counts_pages {
            let p = &self.planes[plane as usize];
            let free = p.free.len() as u32;
            if free <= self.emergency_free_blocks {
                return GcNeed::Emergency;
            }
            let below = free <= self.background_free_blocks
                && match self.background_gc {
                    crate::config::BackgroundGc::UntilAboveThreshold => true,
                    crate::config::BackgroundGc::OneVictimPerBlock => p.gc_owed > 0,
                };
            return if below || p.victim != NO_PAGE { GcNeed::Background } else { GcNeed::None };
        }
        // Counting free pages without SLC-mode blocks (SSDSim's imported drives): every
        // plane has normal blocks and no SLC rule applies, so the general rules come down
        // to the two thresholds in pages (out of line they cost about 100 instructions a
        // call, and SSDSim's drive asks 4M times in 300,000 requests, issue 48).
        if !self.has_slc && self.relaxed.is_none() {
            let p = &self.planes[plane as usize];
            let pages = self.layout.pages() as u64;
            if p.free.len() as u32 <= self.emergency_free_blocks
                || p.free_pages <= self.emergency_free_blocks as u64 * pages
            {
                return GcNeed::Emergency;
            }
            let below = p.free_pages <= self.background_free_blocks as u64 * pages
                && match self.background_gc {
                    crate::config::BackgroundGc::UntilAboveThreshold => true,
                    crate::config::BackgroundGc::OneVictimPerBlock => p.gc_owed > 0,
                };
            // (As `gc_need_general`: an SLC-mode zone block is a block with `slc` set.)
            let victim_pending = p.victim != NO_PAGE
                && (self.slc_gc_auto || !self.blocks[p.victim as usize].slc || self.slc_migrating[plane as usize]);
            return if below || victim_pending { GcNeed::Background } else { GcNeed::None };
        }
        self.gc_need_general(plane)
    }

    #[inline(never)]
    fn gc_need_general(&self, plane: u32) -> GcNeed {
        let p = &self.planes[plane as usize];
        if self.has_normal(plane) && self.below_emergency(plane) {
            return GcNeed::Emergency;
        }
        if self.slc_gc_urgent && self.slc_wants_gc(plane) && self.has_closed_slc(plane) {
            return GcNeed::Emergency;
        }
        let below = self.has_normal(plane)
            && self.below_background(plane)
            && match self.background_gc {
                crate::config::BackgroundGc::UntilAboveThreshold => true,
                crate::config::BackgroundGc::OneVictimPerBlock => p.gc_owed > 0,
            };
        // An SLC victim half-emptied by a migration episode waits for the next episode:
        // BG-DM must not move data while the device is busy.
        let victim_pending = p.victim != NO_PAGE
            && (self.slc_gc_auto || !self.blocks[p.victim as usize].slc || self.slc_migrating[plane as usize]);
        if below || victim_pending {
            return GcNeed::Background;
        }
        if self.slc_wants_gc(plane) && self.has_closed_slc(plane) {
            return GcNeed::Background;
        }
        GcNeed::None
    }

    /// Whether `plane` is at or below its background threshold: in free blocks, or with
    /// `ftl.gc_free_space = "pages"` in free pages (free blocks' and open blocks'). Counting
    /// pages, a plane can need emergency GC without being below this (the conventional
    /// FTL's write points can hold many free pages while its free blocks run out):
    /// `gc_kinds_wanted` asks both.
    pub fn below_background(&self, plane: u32) -> bool {
        let p = &self.planes[plane as usize];
        if self.gc_counts_pages {
            p.free_pages <= self.background_free_blocks as u64 * self.layout.pages() as u64
        } else {
            p.free.len() as u32 <= self.background_free_blocks
        }
    }

    /// Whether user writes of `plane` need GC before they can go on. Counting blocks: at
    /// or below the emergency reserve. Counting pages: free pages at or below the reserve
    /// times a block's pages, or (the conventional FTL, whose open blocks are write points
    /// that cannot take every write) free blocks at that reserve; under the relaxed order
    /// every open block takes a page, so only a plane where user writes have no page left.
    fn below_emergency(&self, plane: u32) -> bool {
        let p = &self.planes[plane as usize];
        if (!self.gc_counts_pages || self.relaxed.is_none()) && p.free.len() as u32 <= self.emergency_free_blocks {
            return true;
        }
        self.gc_counts_pages
            && (p.free_pages <= self.emergency_free_blocks as u64 * self.layout.pages() as u64
                || (self.relaxed.is_some() && !self.can_allocate_relaxed(plane, 1)))
    }

    /// Counts a block taken from the free pool for one-victim-per-block background GC
    /// (counting blocks).
    pub(crate) fn note_block_opened(&mut self, plane: u32) {
        if !self.gc_counts_pages && self.below_background(plane) {
            self.planes[plane as usize].gc_owed += 1;
        }
    }

    /// A page of a normal block of `plane` was taken: one fewer free page, and counting
    /// pages, one victim owed per block's worth of pages taken at or below the threshold
    /// (SSDSim queues a GC request for every page written below it, each reclaiming a block).
    /// Called only when GC counts pages, so the per-page division and count stay off the
    /// hot path otherwise (unguarded, `bench mqsim-default` ran about 4% slower, best of
    /// five alternately against the previous binary).
    pub(crate) fn normal_page_taken(&mut self, block: u32) {
        let plane = self.addr.plane_of_block(block);
        self.planes[plane as usize].free_pages -= 1;
        if self.below_background(plane) {
            let pages = self.layout.pages();
            let p = &mut self.planes[plane as usize];
            p.owed_pages += 1;
            if p.owed_pages >= pages {
                p.owed_pages = 0;
                p.gc_owed += 1;
            }
        }
    }

    /// Free SLC-mode pages of `plane`: its free SLC blocks' and the room left in its open
    /// SLC blocks of every level.
    pub fn free_slc_pages(&self, plane: u32) -> u64 {
        let p = &self.planes[plane as usize];
        let open: u64 = (0..self.slc_levels).map(|l| self.active_room(plane, self.slc_stream(l)) as u64).sum();
        open + p.free_slc.len() as u64 * self.slc_layout.pages() as u64
    }

    /// Whether the SLC-mode cache of `plane` asks for cleaning: its free SLC space below
    /// `ftl.slc_gc_free_fraction` of its SLC pages, or with that 0, one free SLC block
    /// left; under BG-DM / QPC-DM only during a migration episode.
    pub fn slc_wants_gc(&self, plane: u32) -> bool {
        let blocks = self.slc_blocks[plane as usize];
        if blocks == 0 {
            return false;
        }
        if !self.slc_gc_auto {
            return self.slc_migrating[plane as usize];
        }
        if self.slc_gc_free_fraction > 0.0 {
            let total = blocks as f64 * self.slc_layout.pages() as f64;
            return (self.free_slc_pages(plane) as f64) < self.slc_gc_free_fraction * total;
        }
        self.planes[plane as usize].free_slc.len() <= 1
    }

    /// Whether a GC move may open a free SLC block of `plane` and the cache still not ask
    /// for cleaning: otherwise moves that stay in the cache could take what cleaning frees.
    pub fn slc_gc_may_open(&self, plane: u32) -> bool {
        let p = &self.planes[plane as usize];
        if p.free_slc.is_empty() {
            return false;
        }
        if self.slc_gc_free_fraction > 0.0 {
            let total = self.slc_blocks[plane as usize] as f64 * self.slc_layout.pages() as f64;
            let after = self.free_slc_pages(plane) - self.slc_layout.pages() as u64;
            return after as f64 >= self.slc_gc_free_fraction * total;
        }
        p.free_slc.len() > 2
    }

    /// Pages left in the open block of SLC level `level` of `plane`.
    pub fn slc_level_room(&self, plane: u32, level: u32) -> u32 {
        self.active_room(plane, self.slc_stream(level))
    }

    /// Whether GC of `plane` would now clean normal-mode blocks and SLC-mode blocks (the
    /// kinds `pick_victim` considers; SLC ones only while the normal pool is not in need).
    pub fn gc_kinds_wanted(&self, plane: u32) -> (bool, bool) {
        let emergency = self.has_normal(plane) && self.below_emergency(plane);
        let normal = emergency || (self.has_normal(plane) && self.below_background(plane));
        // An urgent cache goes first unless the normal pool is at its emergency level.
        let slc_first = self.slc_gc_urgent && !emergency;
        let slc = self.slc_wants_gc(plane) && (!normal || slc_first);
        (normal && !slc, slc)
    }

    /// Whether `plane` has normal-mode blocks (not a plane wholly in SLC mode).
    pub fn has_normal(&self, plane: u32) -> bool {
        self.slc_blocks[plane as usize] < self.addr.blocks_per_plane
    }

    pub fn has_closed_slc(&self, plane: u32) -> bool {
        let first = self.addr.first_block_of_plane(plane);
        (first..first + self.slc_blocks[plane as usize]).any(|b| self.blocks[b as usize].state == BlockState::Closed)
    }

    /// The next cleanup operation for `plane`, choosing a victim if none is in progress.
    /// `None` when nothing can be cleaned (no closed block worth cleaning).
    pub fn gc_next_step(&mut self, plane: u32, now_ns: u64) -> Option<GcStep> {
        if !self.ensure_victim(plane, now_ns) {
            return None;
        }
        let victim = self.planes[plane as usize].victim;
        if self.blocks[victim as usize].valid_pages == 0 {
            // A pinned victim waits for the writes that superseded its pages.
            return self.erasable(victim).then_some(GcStep::Erase { block: victim });
        }
        // None if every page was examined but some are still valid: moves are in flight.
        let (ppn, lpn) = self.next_valid_page(plane, false)?;
        Some(GcStep::Move { ppn, lpn })
    }

    /// One-shot GC programs a whole page set at once, so it gathers the set across
    /// victims: the next valid page of the current victim or, once that has none left to
    /// move, of a further victim claimed now. Taking pages from one victim only would
    /// program every victim's last set incomplete, and a plane whose blocks each hold
    /// fewer invalid pages than that waste would then clean forever without gaining a page.
    pub fn gc_gather_move(&mut self, plane: u32, now_ns: u64) -> Option<(Ppn, u32)> {
        if let Some(found) = self.next_valid_page(plane, false) {
            return Some(found);
        }
        let p = &self.planes[plane as usize];
        if p.next_victim == NO_PAGE {
            let current = p.victim;
            if current == NO_PAGE {
                return None;
            }
            let block = self.pick_victim_from(plane, now_ns, current, None, false)?;
            let p = &mut self.planes[plane as usize];
            p.next_victim = block;
            p.next_cursor = 0;
            self.counters.gc_victims += 1;
        }
        self.next_valid_page(plane, true)
    }

    /// Advances the cursor of the current (or the next) victim to its next valid page.
    fn next_valid_page(&mut self, plane: u32, next: bool) -> Option<(Ppn, u32)> {
        let p = &self.planes[plane as usize];
        let (block, mut cursor) = if next { (p.next_victim, p.next_cursor) } else { (p.victim, p.victim_cursor) };
        if block == NO_PAGE {
            return None;
        }
        let pages = self.pages_in_block(block);
        let mut found = None;
        while cursor < pages {
            let ppn = self.addr.ppn(block, cursor);
            let lpn = self.page_lpn(ppn);
            cursor += 1;
            if lpn != NO_PAGE {
                found = Some((ppn, lpn));
                break;
            }
        }
        let p = &mut self.planes[plane as usize];
        if next {
            p.next_cursor = cursor;
        } else {
            p.victim_cursor = cursor;
        }
        found
    }

    /// Makes `block` the plane's victim (a design's choice, `gc_victim`): a closed block
    /// of `plane` while the plane cleans none. GC then moves its valid pages and erases it.
    pub fn set_victim(&mut self, plane: u32, block: u32) -> Result<(), String> {
        let p = &self.planes[plane as usize];
        if p.victim != NO_PAGE {
            return Err(format!("plane {plane} is cleaning block {} already; block {block} was chosen", p.victim));
        }
        if self.addr.plane_of_block(block) != plane || self.blocks[block as usize].state != BlockState::Closed {
            return Err(format!("block {block} chosen as a GC victim is not a closed block of plane {plane}"));
        }
        let p = &mut self.planes[plane as usize];
        p.victim = block;
        p.victim_cursor = 0;
        self.counters.gc_victims += 1;
        self.touch_mappings_of(block);
        Ok(())
    }

    /// Chooses a victim for `plane` if none is being cleaned; false if none can be.
    pub fn ensure_victim(&mut self, plane: u32, now_ns: u64) -> bool {
        if self.planes[plane as usize].victim != NO_PAGE {
            return true;
        }
        let Some(victim) = self.pick_victim(plane, now_ns) else { return false };
        let p = &mut self.planes[plane as usize];
        p.victim = victim;
        p.victim_cursor = 0;
        self.counters.gc_victims += 1;
        self.touch_mappings_of(victim);
        true
    }

    /// Loads the mapping entries of a new victim's valid pages at once: each is a cache
    /// miss on a large drive, and together the loads overlap in the memory system, where
    /// the moves, one per cleanup step, would wait for them one at a time. Changes only
    /// what is in the cache (and, with the sparse table, how the victim's reverse
    /// entries are stored: `table_victim`).
    fn touch_mappings_of(&mut self, block: u32) {
        if self.sparse.is_some() {
            self.table_victim(block);
            return;
        }
        let first = (self.addr.ppn(block, 0) << self.unit_shift) as usize;
        let units = self.dense_reverse.range(first..first + (self.pages_in_block(block) << self.unit_shift) as usize);
        let touched =
            units.filter(|&lu| lu != NO_PAGE).fold(0u32, |acc, lu| acc ^ self.dense_map.get(lu as usize).unwrap_or(0));
        std::hint::black_box(touched);
    }

    /// Picks the block to clean among the plane's closed blocks. Blocks without valid
    /// pages always win. SLC blocks are cleaned when the SLC pool is exhausted and the
    /// normal pool is not in need.
    pub fn pick_victim(&mut self, plane: u32, now_ns: u64) -> Option<u32> {
        self.pick_victim_from(plane, now_ns, NO_PAGE, None, false)
    }

    /// Chooses a victim for `plane` by the victim policy whether or not the plane needs
    /// GC (a design that must free room now: `designs/scrub`); false if none is worth
    /// cleaning.
    pub fn ensure_victim_forced(&mut self, plane: u32, now_ns: u64) -> bool {
        if self.planes[plane as usize].victim != NO_PAGE {
            return true;
        }
        let kinds = (self.has_normal(plane), self.slc_blocks[plane as usize] > 0);
        let Some(victim) = self.pick_victim_from(plane, now_ns, NO_PAGE, Some(kinds), false) else { return false };
        let p = &mut self.planes[plane as usize];
        p.victim = victim;
        p.victim_cursor = 0;
        self.counters.gc_victims += 1;
        true
    }

    /// `ensure_victim_forced` for a design that must free room before it can go on (a
    /// block it wants relocated does not fit, `can_clean_now`): only a victim that gains
    /// GC room, one of the normal blocks (an SLC-mode block's pages land in normal
    /// blocks) whose valid pages fit in the room GC has; false if there is none. Any
    /// victim of the policy could take the room GC keeps (swarm seed 110390: an SLC-mode
    /// victim emptied into the last free block left a normal victim nowhere to go).
    pub fn ensure_victim_gaining_room(&mut self, plane: u32, now_ns: u64) -> bool {
        if self.planes[plane as usize].victim != NO_PAGE {
            return true;
        }
        let normal = self.has_normal(plane);
        let Some(victim) = self.pick_victim_from(plane, now_ns, NO_PAGE, Some((normal, !normal)), true) else {
            return false;
        };
        let p = &mut self.planes[plane as usize];
        p.victim = victim;
        p.victim_cursor = 0;
        self.counters.gc_victims += 1;
        true
    }

    /// `pick_victim`, or with `current` set, a further victim of the same kind (SLC or
    /// normal) to fill a one-shot page set, whatever the need: one with pages to move.
    /// `kinds`: the (normal, SLC) kinds to consider instead of the plane's need;
    /// `must_fit`: only a victim whose valid pages fit in the room GC has.
    fn pick_victim_from(
        &mut self,
        plane: u32,
        now_ns: u64,
        current: u32,
        kinds: Option<(bool, bool)>,
        must_fit: bool,
    ) -> Option<u32> {
        let gathering = current != NO_PAGE;
        let (normal_need, slc_need) = if let Some(kinds) = kinds {
            kinds
        } else if gathering {
            let slc = self.blocks[current as usize].slc;
            (!slc, slc)
        } else {
            self.gc_kinds_wanted(plane)
        };
        let first = self.addr.first_block_of_plane(plane);
        // Under PA's relaxed constraints a block may be reclaimed before all its pages
        // are programmed (PA §4.2, UBS), so open blocks are candidates too.
        let open_ok = self.relaxed.is_some();
        // (The scan runs over the plane's blocks as a slice, with what does not depend on
        // the block hoisted out of it: at one victim per GC and hundreds of blocks per
        // plane, it was the GC decision's hot spot, about 117 instructions a block.)
        let units = self.units_per_page();
        let (slc_pages, summary_normal) = (self.slc_layout.pages(), self.summary_pages);
        let summary_slc = if self.summary_pages > 0 { 1 } else { 0 };
        let companions = self.companions.as_deref();
        let (slc_gc_auto, slc_gc_urgent) = (self.slc_gc_auto, self.slc_gc_urgent);
        let compact = self.compact_across_pages;
        // A victim whose valid pages do not fit in the room GC has left cannot be finished
        // unless the host happens to invalidate some of them: the policy chooses among the
        // victims that fit, and among all only when none does. (Low on free blocks, a
        // policy other than greedy could otherwise stall the plane; so could a power loss,
        // which forgets a half-cleaned victim.)
        let room = self.gc_room(plane);
        // (`greedy_keyed`: greedy, no SLC-mode blocks, the strict program order, no
        // companion pages, one-shot page sets or zones.)
        if !gathering && self.greedy_keyed() {
            return if normal_need { self.pick_greedy_normal(first, room, must_fit) } else { None };
        }
        let mut best: Option<(u32, u64)> = None;
        let mut best_fitting: Option<(u32, u64)> = None;
        let mut count = 0u32;
        let mut reclaimable = 0u32;
        let policy = self.victim_policy;
        let pages_per_block = self.addr.pages_per_block;
        let mut pool: Vec<u32> = Vec::new();
        let mut pool_fitting: Vec<u32> = Vec::new();
        let plane_blocks = &self.blocks[first as usize..(first + self.addr.blocks_per_plane) as usize];
        // A zone's blocks are its own (`zoned.rs`): GC of a conventional area beside the
        // zones cleans only the area's blocks. (Empty without zones.)
        let zone_owned = self.zone_owned.get(first as usize..).unwrap_or(&[]);
        for (b, info) in (first..).zip(plane_blocks) {
            let closed = info.state == BlockState::Closed;
            let state_ok = closed || (open_ok && info.state == BlockState::Open);
            if !(b != current && state_ok && if info.slc { slc_need } else { normal_need }) {
                continue;
            }
            if zone_owned.get((b - first) as usize).copied().unwrap_or(false) {
                continue;
            }
            if closed && info.valid_pages == 0 {
                if gathering {
                    // Nothing to fill a page set with; it is erased as a victim of its own.
                    continue;
                }
                return self.claim_victim(b);
            }
            let capacity = if info.slc { slc_pages } else { pages_per_block };
            // Pages an erase would gain: the invalid ones (a partly programmed block's
            // unprogrammed pages are free already).
            // A block summary is rewritten wherever the valid pages go, so it is no gain:
            // a block whose only invalid pages are its summary is not worth cleaning.
            // (Companion pages, `companion.rs`, are no gain either.)
            let summary = if info.write_ptr == capacity {
                if info.slc {
                    summary_slc
                } else {
                    summary_normal
                }
            } else {
                0
            } + companions.map_or(0, |c| c.below(info.slc, info.write_ptr));
            // Counted in mapping units, so that a unit map's partly valid pages are a gain
            // (compacting GC packs them); with a page map a unit is a page. Without packing
            // across pages (`compact_across_pages`) only pages with no valid unit are.
            let invalid = if compact {
                (info.write_ptr - summary) * units - info.valid_units
            } else {
                (info.write_ptr - summary - info.valid_pages) * units
            };
            // Migration (BG-DM, QPC-DM) empties SLC blocks to free SLC room, valid data or not,
            // as does an urgent cache (IPU's schemes), whose cleaning frees cache space
            // wherever the valid data goes. Otherwise a block is worth cleaning only if it
            // gains a page: compacting fewer invalid units than a page's would consume as
            // many pages as the erase frees.
            if invalid < units && (slc_gc_auto || !info.slc) && !(info.slc && slc_gc_urgent) {
                continue;
            }
            count += 1;
            reclaimable += invalid;
            // An open (relaxed) victim is closed when claimed: its own unprogrammed pages,
            // counted in the room, are no destination for its moves.
            let own = if closed { 0 } else { capacity - info.write_ptr };
            let fits = info.valid_pages + own <= room;
            // Lower score wins; ties keep the lowest block number (deterministic).
            let score = match policy {
                // Most invalid pages (SSDSim's rule); for full blocks: fewest valid.
                VictimPolicy::Greedy => (capacity * units - invalid) as u64,
                VictimPolicy::Fifo => info.closed_seq,
                VictimPolicy::CostBenefit => {
                    // benefit/cost = (1-u)/(2u) × age; maximise → minimise its negation.
                    let u = info.valid_units as f64 / (capacity * units) as f64;
                    // (Blocks preconditioning wrote carry their modelled history.)
                    let age = (now_ns.saturating_sub(info.last_write_ns) + info.age_at_start_ns) as f64 + 1.0;
                    let benefit = (1.0 - u) / (2.0 * u) * age;
                    u64::MAX - benefit.min(u64::MAX as f64 / 2.0) as u64
                }
                VictimPolicy::Random => {
                    pool.push(b);
                    if fits {
                        pool_fitting.push(b);
                    }
                    0
                }
            };
            if best.is_none_or(|(_, s)| score < s) {
                best = Some((b, score));
            }
            if fits && best_fitting.is_none_or(|(_, s)| score < s) {
                best_fitting = Some((b, score));
            }
        }
        // One-shot: a cleaning that runs out of victims programs its last page set
        // incomplete, wasting up to a set less one page. It starts only if the invalid
        // pages it can reclaim exceed that waste; otherwise GC would gain nothing, and the
        // wasted pages, reclaimed in turn, would keep it cleaning forever.
        if !gathering && normal_need && self.gc_page_set > 1 && reclaimable < self.gc_page_set {
            return None;
        }
        if policy == VictimPolicy::Random && count > 0 {
            let pool = if pool_fitting.is_empty() && !must_fit { pool } else { pool_fitting };
            if pool.is_empty() {
                return None;
            }
            let b = pool[self.victim_rng.random_range(0..pool.len())];
            return self.claim_victim(b);
        }
        let (b, _) = if must_fit { best_fitting? } else { best_fitting.or(best)? };
        self.claim_victim(b)
    }

    /// `pick_victim_from` for greedy cleaning of a plane of normal blocks under the strict
    /// program order, without companion pages or one-shot page sets (most runs): the same
    /// choice by the same rules, read from the plane's keys (`gc_keys.rs`), a load and
    /// two compares a block. GC picks a victim among all the plane's blocks; the general
    /// loop's per-block cases cost about 100 instructions a block, 5% of a GC-heavy run
    /// such as `bench large-device`, and a scan of the blocks themselves a cache line each.
    fn pick_greedy_normal(&mut self, first: u32, room: u32, must_fit: bool) -> Option<u32> {
        if self.gc_keys_compact != self.compact_across_pages {
            self.rebuild_gc_keys();
        }
        let keys = &self.gc_keys[first as usize..(first + self.addr.blocks_per_plane) as usize];
        // The lowest score (a plain minimum: a few instructions a key, where a loop keeping
        // the best and the best that fits took some 22), then the first block with it:
        // the greedy choice, ties to the lowest block. A block without valid pages (key
        // 0, every other score is higher) wins whenever there is one, fitting or not.
        let low = keys.iter().map(|&k| (k >> 32) as u32).min().unwrap_or(u32::MAX);
        if low == u32::MAX {
            // No candidate (`NOT_CANDIDATE`'s score, above any block's).
            return None;
        }
        let i = keys.iter().position(|&k| (k >> 32) as u32 == low).expect("the minimum is a key");
        let best = first + i as u32;
        if keys[i] as u32 <= room {
            // The best fits, so it is also the best that fits.
            return self.claim_victim(best);
        }
        // (Rare: GC is short of room.) The best that fits, ties to the lowest block.
        let fitting = (first..)
            .zip(keys)
            .filter(|&(_, &k)| k != super::gc_keys::NOT_CANDIDATE && k as u32 <= room)
            .min_by_key(|&(_, &k)| k >> 32)
            .map(|(b, _)| b);
        match fitting {
            Some(b) => self.claim_victim(b),
            None if !must_fit => self.claim_victim(best),
            None => None,
        }
    }

    /// Pages GC can still program in `plane` without an erase: what its write points
    /// have left plus every free normal block's data pages. Through the user write points
    /// GC also fills the GC write point's open block (`allocate_gc`, short of free blocks;
    /// recovery hands it a partly written block, the Harey Tortoise's RTF moves write
    /// there): its pages are room too. Left out, they made the only victim that fitted
    /// look too big at no free block; the policy then chose a fuller one, whose moves
    /// found no page (swarm seed 1031273, `--power-loss always`).
    pub(crate) fn gc_room(&self, plane: u32) -> u32 {
        let p = &self.planes[plane as usize];
        let open: u32 = match self.relaxed.as_ref() {
            Some(r) => {
                r.open[plane as usize].iter().map(|&b| self.pages_in_block(b) - self.blocks[b as usize].write_ptr).sum()
            }
            None if self.gc_through_user => {
                (0..self.user_write_points).map(|k| self.data_room(plane, super::Stream::user(k))).sum::<u32>()
                    + self.data_room(plane, super::Stream::GC)
            }
            None => self.data_room(plane, super::Stream::GC),
        };
        open + p.free.len() as u32 * self.data_pages_per_block()
    }

    /// Data pages of a whole normal-mode block (less its summary and companion pages).
    pub(crate) fn data_pages_per_block(&self) -> u32 {
        self.layout.pages() - self.summary_pages - self.companions_per_block()
    }

    /// Pages GC can give to moves that gain it nothing (a design relocating a valid page,
    /// an SLC-mode block emptied into normal blocks) and still finish its victim and the
    /// one after: its room less the victim's valid pages and a block's data pages (any
    /// normal victim with a page to gain fits in a block). Taking more left GC a victim it
    /// could not finish (swarm seeds 110390, 302471: scrubbing).
    pub fn gc_room_to_spare(&self, plane: u32) -> u32 {
        let victim = self.planes[plane as usize].victim;
        let moving = if victim == NO_PAGE { 0 } else { self.blocks[victim as usize].valid_pages };
        self.gc_room(plane).saturating_sub(moving + self.data_pages_per_block())
    }

    /// Whether GC could clean `block` of `plane` now, as a design's victim (a block to
    /// relocate and erase whatever the plane's need), and still finish the next victim:
    /// its valid pages fit in the room GC has without the block's own unprogrammed pages
    /// (an open block is closed first), and those of an SLC-mode block, which land in
    /// normal blocks and gain them nothing, leave a block's worth besides.
    pub fn can_clean_now(&self, plane: u32, block: u32) -> bool {
        let info = &self.blocks[block as usize];
        // The block's own room, if GC counts it (GC's destinations: `gc_room`).
        let own = match self.relaxed.as_ref() {
            Some(r) if r.open[plane as usize].contains(&block) => self.pages_in_block(block) - info.write_ptr,
            Some(_) => 0,
            None if self.gc_through_user => (0..self.user_write_points)
                .map(super::Stream::user)
                .chain([super::Stream::GC])
                .filter(|s| self.planes[plane as usize].active[s.index()] == block)
                .map(|s| self.data_room(plane, s))
                .sum(),
            None if self.planes[plane as usize].active[super::Stream::GC.index()] == block => {
                self.data_room(plane, super::Stream::GC)
            }
            None => 0,
        };
        let room = self.gc_room(plane) - own;
        let keep = if info.slc { self.data_pages_per_block() } else { 0 };
        info.valid_pages + keep <= room
    }

    /// Data pages the open block of `stream` in `plane` can still take: its unprogrammed
    /// pages less the block summary and companion pages among them, which the FTL takes
    /// along and no move can use. (Counted as room, the summary made a victim one page
    /// too big look as if it fitted in the GC write point's last block: swarm seed 110390.)
    fn data_room(&self, plane: u32, stream: super::Stream) -> u32 {
        let block = self.planes[plane as usize].active[stream.index()];
        if block == NO_PAGE {
            return 0;
        }
        let (pages, written) = (self.pages_in_block(block), self.blocks[block as usize].write_ptr);
        // An open block's summary is still to come: it is written once its data pages are.
        let along =
            self.summary_pages_in(block) + self.companions_below(block, pages) - self.companions_below(block, written);
        (pages - written).saturating_sub(along)
    }

    /// A victim takes no more writes: an open (relaxed) victim is closed early and its
    /// unprogrammed pages are given up until the erase.
    fn claim_victim(&mut self, block: u32) -> Option<u32> {
        if self.blocks[block as usize].state == BlockState::Open {
            let plane = self.addr.plane_of_block(block);
            if let Some(r) = self.relaxed.as_mut() {
                r.open[plane as usize].retain(|&b| b != block);
            }
            self.blocks[block as usize].state = BlockState::Closed;
            for page in 0..self.layout.pages() {
                if !self.is_programmed(block, page) {
                    self.free_pages_by_type[self.layout.types[page as usize] as usize] -= 1;
                    if self.gc_counts_pages {
                        self.planes[plane as usize].free_pages -= 1;
                    }
                    self.counters.unprogrammed_reclaimed += 1;
                }
            }
            self.rekey(block);
        }
        Some(block)
    }
}
