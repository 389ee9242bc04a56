//! Crash consistency (SPEC §2, thesis §4.1.4): what survives a power failure and how the
//! FTL rebuilds its volatile state from flash.
//!
//! Persistent, kept when `track_oob` is on: each programmed page's out-of-band area holds
//! the logical page it stores and the *write sequence number* of the user write that
//! created the data (GC copies it with the page, as copyback copies the spare area), and
//! each trim is journalled with a sequence number. Physical facts survive too: which pages
//! are programmed, block modes, erase counts, torn pages.
//!
//! Volatile, dropped by a power loss: the mapping table and reverse map, valid counts,
//! free pools, write points and GC progress. Recovery scans every programmed page's OOB
//! (the freshest copy of a logical page is the readable one with the highest sequence
//! number, unless a later trim discarded it), rebuilds the map, returns erased blocks to
//! the free pools and makes partly written blocks write points again (one per stream of
//! the plane; any further ones are closed, their unwritten pages abandoned until the next
//! erase). Torn pages stay behind the write pointer as garbage.

use super::{Allocated, BlockState, Ftl, Stream};
use crate::flash::{Ppn, NO_PAGE};

/// Sequence number of a torn page: its data cannot be read back.
const TORN: u64 = u64::MAX;

#[derive(Clone, Debug, Default)]
pub struct Oob {
    /// Per physical unit (`mapping.rs`; a page with the default page map): the logical
    /// unit written there (NO_PAGE = none, e.g. skipped).
    pub lpn: Vec<u32>,
    /// Per physical unit: write sequence number of the data (0 = none, TORN = torn); a
    /// GC copy keeps its source's.
    pub seq: Vec<u64>,
    /// Per logical page: sequence number of its last trim (the trim journal).
    pub trim_seq: Vec<u64>,
    pub next_seq: u64,
    /// Partial programs under way: each physical unit written (the page, with a page
    /// map), and its sequence number and version before. A partial program writes only
    /// its new subpages and their OOB chunk, so if power fails mid-way the subpages
    /// programmed before stay readable: the page keeps its previous contents.
    partials_in_flight: Vec<(u32, u64, u32)>,
}

/// What a recovery found and what it would cost on the device.
#[derive(Clone, Debug, Default)]
pub struct RecoveryScan {
    /// Pages whose OOB area was read, per die.
    pub reads_per_die: Vec<u64>,
    /// Block summary pages read instead, per die (each replaces a whole block's scan).
    pub summary_reads_per_die: Vec<u64>,
    /// Blocks whose erase was interrupted, per die (erased again during recovery).
    pub erases_per_die: Vec<u64>,
    pub mapped_pages: u64,
    pub torn_pages: u64,
    /// Unprogrammed pages of partly written blocks given up at recovery.
    pub abandoned_pages: u64,
}

impl Ftl {
    /// Keeps out-of-band data from now on (20 bytes per physical page with the program
    /// order, 8 per logical page). Must be on before the first write for recovery to find
    /// every page. A page and its GC copies share a write sequence number; the program
    /// order (`program_seq`) breaks the tie for the later copy, which is the one the map
    /// pointed at (as a block sequence number would, thesis §4.1.4).
    pub fn track_oob(&mut self) {
        self.track_program_order();
        // Recovery rebuilds the map from per-page OOB areas: the dense table.
        self.densify();
        if self.oob.is_none() {
            self.oob = Some(Oob {
                lpn: vec![NO_PAGE; self.dense_reverse.len()],
                seq: vec![0; self.dense_reverse.len()],
                trim_seq: vec![0; self.logical_pages as usize],
                next_seq: 1,
                partials_in_flight: Vec::new(),
            });
            self.pinned = vec![0; self.addr.blocks() as usize];
        }
    }

    /// A user write superseding `old` has started programming: keep `old`'s block.
    pub fn pin(&mut self, old: Ppn) {
        if !self.pinned.is_empty() {
            self.pinned[self.addr.block_of(old) as usize] += 1;
        }
    }

    /// That write is programmed: the superseded copy is no longer needed.
    pub fn unpin(&mut self, old: Ppn) {
        if !self.pinned.is_empty() {
            let pins = &mut self.pinned[self.addr.block_of(old) as usize];
            debug_assert!(*pins > 0, "unpinning a block that is not pinned");
            *pins = pins.saturating_sub(1);
        }
    }

    /// A page for a buffered write flushed on capacitor power. Like a user write it
    /// never takes a plane's last free block: after recovery GC needs it as a
    /// destination (the caller tries the other planes when this one is full).
    pub fn allocate_flush(&mut self, plane: u32, now_ns: u64) -> Option<Allocated> {
        if self.relaxed.is_some() {
            // Under the relaxed order user pages and GC moves share the open blocks, so the
            // reserve is the room GC's victim still needs, not just the last free block
            // (`can_allocate_relaxed`, as user writes check before they take a page). A
            // flush that took every open page left a half-moved victim with nowhere to go
            // after recovery (swarm seed 130052: DIR, a power loss during emergency GC).
            if !self.can_allocate_relaxed(plane, 1) {
                return None;
            }
            return self.allocate_typed(plane, 0, 1, now_ns).map(|(a, _)| a);
        }
        self.allocate_user(plane, now_ns)
    }

    /// Whether GC may erase `block` now: no valid page and no superseded copy still
    /// standing in for a write in flight.
    pub fn erasable(&self, block: u32) -> bool {
        self.blocks[block as usize].valid_pages == 0 && self.pinned.get(block as usize).is_none_or(|&n| n == 0)
    }

    /// OOB of the slots `slot..slot + count` of a page programmed with new data of units
    /// `first..first + count` of `lpn` (one write: one sequence number).
    pub(super) fn oob_new_write(&mut self, lpn: u32, first: u32, count: u32, ppn: Ppn, slot: u32) {
        let shift = self.unit_shift;
        if let Some(o) = self.oob.as_mut() {
            for k in 0..count {
                let pu = ((ppn << shift) + slot + k) as usize;
                o.lpn[pu] = (lpn << shift) + first + k;
                o.seq[pu] = o.next_seq;
            }
            o.next_seq += 1;
        }
    }

    /// Compacting GC moved the unit at physical unit `from` to `to`: its OOB entry goes
    /// with it.
    pub(super) fn oob_copy_unit(&mut self, from: u32, to: u32) {
        if let Some(o) = self.oob.as_mut() {
            o.lpn[to as usize] = o.lpn[from as usize];
            o.seq[to as usize] = o.seq[from as usize];
        }
    }

    /// GC copied `from` to `to`: the spare area travels with the data.
    pub(super) fn oob_copy(&mut self, from: Ppn, to: Ppn) {
        let (shift, units) = (self.unit_shift, 1usize << self.unit_shift);
        if let Some(o) = self.oob.as_mut() {
            let (src, dst) = ((from << shift) as usize, (to << shift) as usize);
            o.lpn.copy_within(src..src + units, dst);
            o.seq.copy_within(src..src + units, dst);
        }
    }

    /// A stale page was programmed to all zeros in place (a scrub): its data and its
    /// out-of-band area are gone, so neither a scan nor a recovery finds a copy there.
    pub fn zero_page(&mut self, ppn: Ppn) {
        debug_assert_eq!(self.page_valid_units(ppn), 0, "zeroing page {ppn}, which holds valid data");
        let (shift, units) = (self.unit_shift, 1usize << self.unit_shift);
        let first = (ppn << shift) as usize;
        if let Some(o) = self.oob.as_mut() {
            o.lpn[first..first + units].fill(NO_PAGE);
            o.seq[first..first + units].fill(0);
        }
        if let Some(v) = self.versions.as_mut() {
            v.page_version[first..first + units].fill(0);
        }
        self.wear_reprogrammed(ppn);
    }

    /// The logical unit whose data physical unit `pu` holds, valid or stale, and the
    /// sequence number of the write that created it (from its out-of-band area; `None`
    /// without OOB tracking, or when it holds none: unprogrammed, zeroed, a summary).
    pub fn oob_content(&self, pu: u32) -> Option<(u32, u64)> {
        let o = self.oob.as_ref()?;
        let (lu, seq) = (o.lpn[pu as usize], o.seq[pu as usize]);
        (lu != NO_PAGE && seq != 0).then_some((lu, seq))
    }

    /// The sequence number the next write or trim will get (0 without OOB tracking): data
    /// with a smaller one was written before now.
    pub fn oob_next_seq(&self) -> u64 {
        self.oob.as_ref().map_or(0, |o| o.next_seq)
    }

    /// Closes an open block before its last page: its unprogrammed pages are given up
    /// until the erase (counted as wasted), so it can be cleaned like any closed block.
    /// Returns the pages given up.
    pub fn close_early(&mut self, block: u32) -> u64 {
        debug_assert_eq!(self.blocks[block as usize].state, BlockState::Open);
        let skipped = self.abandon_rest(block);
        self.counters.wasted_pages += skipped;
        skipped
    }

    pub(super) fn oob_trim(&mut self, lpn: u32) {
        if let Some(o) = self.oob.as_mut() {
            o.trim_seq[lpn as usize] = o.next_seq;
            o.next_seq += 1;
        }
    }

    /// A partial program of `lpn` into `ppn`: new data, so a new sequence number.
    /// (Call before the write's version is tagged: the previous version is kept.)
    pub fn oob_partial_program(&mut self, lpn: u32, ppn: Ppn) {
        let version = self.page_version(ppn);
        let Some(o) = self.oob.as_mut() else { return };
        o.partials_in_flight.push((ppn, o.seq[ppn as usize], version));
        self.oob_new_write(lpn, 0, 1, ppn, 0);
    }

    /// A unit map's partial program into slots `slot..slot + count` of `ppn` (whose OOB
    /// the write's commit sets): those units held nothing before.
    pub fn oob_partial_units(&mut self, ppn: Ppn, slot: u32, count: u32) {
        let shift = self.unit_shift;
        if let Some(o) = self.oob.as_mut() {
            for k in slot..slot + count {
                o.partials_in_flight.push(((ppn << shift) + k, 0, 0));
            }
        }
    }

    /// The partial program into `ppn` finished: its new subpages are durable.
    pub fn partial_program_done(&mut self, ppn: Ppn) {
        let shift = self.unit_shift;
        if let Some(o) = self.oob.as_mut() {
            o.partials_in_flight.retain(|p| p.0 >> shift != ppn);
        }
    }

    /// Power fails: marks the pages of whole-page programs in flight (`torn`) unreadable,
    /// returns pages with a partial program in flight to their previous contents, drops
    /// every volatile structure and rebuilds it from flash. `erases_in_flight` are blocks
    /// whose erase was interrupted (the FTL had already returned them to the free pool).
    /// Needs `track_oob`.
    pub fn power_loss_recover(&mut self, torn: &[Ppn], erases_in_flight: &[u32]) -> RecoveryScan {
        let dies = self.addr.dies() as usize;
        let mut scan = RecoveryScan {
            reads_per_die: vec![0; dies],
            summary_reads_per_die: vec![0; dies],
            erases_per_die: vec![0; dies],
            ..RecoveryScan::default()
        };
        let Some(mut oob) = self.oob.take() else { return scan };
        let (shift, units) = (self.unit_shift, 1usize << self.unit_shift);
        for &ppn in torn {
            let first = (ppn << shift) as usize;
            oob.seq[first..first + units].fill(TORN);
        }
        let partials = std::mem::take(&mut oob.partials_in_flight);
        for &(pu, previous_seq, previous_version) in &partials {
            oob.seq[pu as usize] = previous_seq;
            if previous_seq == 0 {
                oob.lpn[pu as usize] = NO_PAGE;
            }
            if let Some(v) = self.versions.as_mut() {
                v.page_version[pu as usize] = previous_version;
            }
        }
        scan.torn_pages = oob.seq.iter().step_by(units).filter(|&&s| s == TORN).count() as u64;
        for &block in erases_in_flight {
            let die = self.addr.die_of_plane(self.addr.plane_of_block(block));
            scan.erases_per_die[die as usize] += 1;
        }
        // Volatile state is gone (the writes that pinned blocks were torn or dropped).
        self.pinned.fill(0);
        self.densify();
        self.dense_map.fill(NO_PAGE);
        self.dense_reverse.fill(NO_PAGE);
        // Scan: the freshest readable copy of each logical unit wins.
        let mut best = vec![(0u64, 0u64); self.dense_map.len()];
        // A block with a torn page never got its summary (written after its last page).
        let mut torn_blocks: Vec<u32> = torn
            .iter()
            .copied()
            .chain(partials.iter().map(|p| p.0 >> shift))
            .map(|ppn| self.addr.block_of(ppn))
            .collect();
        torn_blocks.sort_unstable();
        self.plane_valid_units.fill(0);
        for block in 0..self.addr.blocks() {
            self.blocks[block as usize].valid_pages = 0;
            self.blocks[block as usize].valid_units = 0;
            let written = self.blocks[block as usize].write_ptr;
            if written == 0 {
                continue;
            }
            let die = self.addr.die_of_plane(self.addr.plane_of_block(block));
            let summarised = self.summary_pages > 0
                && written == self.pages_in_block(block)
                && torn_blocks.binary_search(&block).is_err();
            if summarised {
                scan.summary_reads_per_die[die as usize] += 1;
            }
            for page in 0..self.pages_in_block(block) {
                if !self.is_programmed(block, page) {
                    continue;
                }
                // The summary holds the same entries as the pages' OOB areas.
                if !summarised {
                    scan.reads_per_die[die as usize] += 1;
                }
                let ppn = self.addr.ppn(block, page);
                for pu in (ppn << shift) as usize..((ppn << shift) as usize + units) {
                    let (lu, seq) = (oob.lpn[pu], oob.seq[pu]);
                    if lu == NO_PAGE || seq == 0 || seq == TORN || (lu as usize) >= self.dense_map.len() {
                        continue;
                    }
                    let key = (seq, self.program_seq[ppn as usize]);
                    if seq > oob.trim_seq[(lu >> shift) as usize] && key > best[lu as usize] {
                        best[lu as usize] = key;
                        self.dense_map.set(lu as usize, pu as u32);
                    }
                }
            }
        }
        for lu in 0..self.dense_map.len() {
            let pu = self.map_at(lu as u32);
            if pu != NO_PAGE {
                let block = self.addr.block_of(pu >> shift) as usize;
                if self.page_valid_units(pu >> shift) == 0 {
                    self.blocks[block].valid_pages += 1;
                }
                self.blocks[block].valid_units += 1;
                self.plane_valid_units[self.addr.plane_of_block(block as u32) as usize] += 1;
                self.dense_reverse.set(pu as usize, lu as u32);
            }
        }
        scan.mapped_pages = (0..self.logical_pages).filter(|&lpn| self.is_mapped(lpn)).count() as u64;
        self.oob = Some(oob);
        scan.abandoned_pages = self.rebuild_block_pools();
        self.rebuild_gc_keys();
        scan
    }

    /// Rebuilds free pools, write points and GC progress from the blocks' programmed
    /// state. Partly written blocks become write points again, or are closed when the
    /// plane has no write point left for them; returns the pages so abandoned.
    fn rebuild_block_pools(&mut self) -> u64 {
        let mut abandoned = 0u64;
        if let Some(r) = self.relaxed.as_mut() {
            r.open.iter_mut().for_each(Vec::clear);
        }
        for plane in 0..self.addr.planes() {
            let p = &mut self.planes[plane as usize];
            p.free.clear();
            p.free_slc.clear();
            p.active.fill(NO_PAGE);
            p.wp_cursor = 0;
            p.victim = NO_PAGE;
            p.victim_cursor = 0;
            p.next_victim = NO_PAGE;
            p.next_cursor = 0;
            p.gc_owed = 0;
            p.owed_pages = 0;
            let first = self.addr.first_block_of_plane(plane);
            // Partly written blocks become write points again (which stream held which is
            // volatile: lowest block number first, GC's stream before the user's, since
            // GC must always find room to finish a victim); any beyond the plane's write
            // points are closed. Abandoning them would take from GC the pages it had left
            // in its open block and can leave it without a destination. With
            // `recover_own_streams` each goes back to the stream that opened it (the block
            // records it, as its summary would), else it is closed: streams that keep
            // data apart (FDP's reclaim unit handles) stay apart after the loss.
            let (user_write_points, slc_levels) = (self.user_write_points, self.slc_levels);
            let mut slots: Vec<Stream> = vec![Stream::SLC, Stream::GC, Stream::USER];
            slots.extend((1..self.user_write_points).map(Stream::user));
            slots.extend((1..self.slc_levels).map(|level| Stream::slc_level(level, user_write_points)));
            for block in first..first + self.addr.blocks_per_plane {
                if self.is_zone_block(block) {
                    // A zone's block stays its zone's, open until its last page.
                    let full = self.blocks[block as usize].write_ptr == self.pages_in_block(block);
                    self.blocks[block as usize].state = if full { BlockState::Closed } else { BlockState::Open };
                    continue;
                }
                let info = &mut self.blocks[block as usize];
                if info.write_ptr == 0 {
                    info.state = BlockState::Free;
                    if info.slc {
                        self.planes[plane as usize].free_slc.push_back(block);
                    } else {
                        self.planes[plane as usize].free.push_back(block);
                    }
                    continue;
                }
                if info.state == BlockState::Closed {
                    continue;
                }
                if let Some(r) = self.relaxed.as_mut() {
                    if !info.slc {
                        info.state = BlockState::Open;
                        r.open[plane as usize].push(block);
                        continue;
                    }
                }
                // An SLC block goes back to its own level's stream (its level is kept with
                // the block, as a block summary would record it).
                let level = info.slc.then_some(info.slc_level as u32);
                let own = self.recover_own_streams.then_some(Stream(info.stream));
                let wanted = |s: &Stream| own.map_or(s.level_of(user_write_points, slc_levels) == level, |o| *s == o);
                if let Some(i) = slots.iter().position(wanted) {
                    info.state = BlockState::Open;
                    self.planes[plane as usize].active[slots.remove(i).index()] = block;
                    continue;
                }
                abandoned += self.abandon_rest(block);
            }
        }
        // Free pages by type: the unprogrammed pages of free and open normal blocks.
        self.free_pages_by_type.iter_mut().for_each(|n| *n = 0);
        self.planes.iter_mut().for_each(|p| p.free_pages = 0);
        for block in 0..self.addr.blocks() {
            let info = &self.blocks[block as usize];
            if info.slc || info.state == BlockState::Closed {
                continue;
            }
            let plane = self.addr.plane_of_block(block) as usize;
            for page in 0..self.pages_in_block(block) {
                if !self.is_programmed(block, page) {
                    self.free_pages_by_type[self.layout.types[page as usize] as usize] += 1;
                    self.planes[plane].free_pages += self.gc_counts_pages as u64;
                }
            }
        }
        abandoned
    }

    /// Closes a partly written block: under the strict order its remaining pages are
    /// skipped (like an incomplete one-shot page set); under PA's relaxed constraints the
    /// block is closed early as a reclaimed victim would be.
    fn abandon_rest(&mut self, block: u32) -> u64 {
        let mut skipped = 0u64;
        if self.relaxed.is_some() && !self.blocks[block as usize].slc {
            for page in 0..self.pages_in_block(block) {
                skipped += u64::from(!self.is_programmed(block, page));
            }
            let info = &mut self.blocks[block as usize];
            info.state = BlockState::Closed;
            self.closed_counter += 1;
            info.closed_seq = self.closed_counter;
            return skipped;
        }
        self.blocks[block as usize].state = BlockState::Open;
        let stamp = self.blocks[block as usize].last_write_ns;
        while self.blocks[block as usize].state == BlockState::Open {
            self.take_page(block, stamp);
            skipped += 1;
        }
        skipped
    }
}
