//! The mapping table at unit granularity (issue 12 §2; `ftl.mapping`). A logical page is
//! `units_per_page` units (1: the page; 2: its halves; S: its subpages) and a physical
//! page has as many slots. `map[lpn · U + k]` is the physical unit (`ppn · U + slot`)
//! holding unit k of logical page lpn, and `reverse` maps every physical unit back.
//!
//! A physical page is valid while any of its slots holds a valid unit (its reference
//! count, derived from `reverse`, is above 0): a block's `valid_pages` counts such pages,
//! so GC's costs and gains stay in pages. A GC move copies a page with every slot it
//! holds (the spare area travels with the data), so the packing of a page survives GC.
//! With one unit per page (the default) every operation here is the page map's. With a
//! cached mapping table (`[cmt]`) the map's own translation pages are logical pages
//! after the host's, on their own write point.

use super::{verify, Allocated, Ftl};
use crate::config::Mapping;
use crate::flash::{Ppn, NO_PAGE};

impl Ftl {
    /// Units per page `U` (a power of two, so unit arithmetic is shifts).
    pub fn units_per_page(&self) -> u32 {
        1 << self.unit_shift
    }

    /// The physical page holding the first unit of `lpn` (for a page map, its page).
    pub fn lookup(&self, lpn: u32) -> Option<Ppn> {
        let pu = self.map_at(lpn << self.unit_shift);
        (pu != NO_PAGE).then_some(pu >> self.unit_shift)
    }

    /// The physical page holding unit `k` of `lpn`.
    pub fn unit_page(&self, lpn: u32, k: u32) -> Option<Ppn> {
        let pu = self.map_at((lpn << self.unit_shift) + k);
        (pu != NO_PAGE).then_some(pu >> self.unit_shift)
    }

    /// Valid units stored in physical page `ppn` (its reference count).
    pub fn page_valid_units(&self, ppn: Ppn) -> u32 {
        let first = ppn << self.unit_shift;
        (first..first + self.units_per_page()).filter(|&pu| self.rev_at(pu) != NO_PAGE).count() as u32
    }

    /// The logical page of the first valid unit in `ppn` (NO_PAGE when it holds none).
    pub fn page_lpn(&self, ppn: Ppn) -> u32 {
        let first = ppn << self.unit_shift;
        (first..first + self.units_per_page())
            .map(|pu| self.rev_at(pu))
            .find(|&lu| lu != NO_PAGE)
            .map_or(NO_PAGE, |lu| lu >> self.unit_shift)
    }

    /// Whether `lpn` has data (any unit mapped).
    pub fn is_mapped(&self, lpn: u32) -> bool {
        let first = lpn << self.unit_shift;
        (first..first + self.units_per_page()).any(|lu| self.map_at(lu) != NO_PAGE)
    }

    /// Records that `lpn`'s whole data now lives at `ppn` (unit k in slot k); the old
    /// copies become invalid.
    pub fn commit_write(&mut self, lpn: u32, ppn: Ppn) {
        self.commit_units(lpn, 0, self.units_per_page(), ppn, 0);
    }

    /// Records that units `first..first + count` of `lpn` now live in `ppn`, from slot
    /// `slot` on, as one write (one OOB sequence number); their old copies become invalid.
    /// The data carries each unit's current issued version (`issue_version` first for a
    /// user write).
    pub fn commit_units(&mut self, lpn: u32, first: u32, count: u32, ppn: Ppn, slot: u32) {
        let shift = self.unit_shift;
        if shift == 0 {
            // A page map: one unit, the page (the preconditioning and write hot path).
            let old = self.map_at(lpn);
            if old != NO_PAGE {
                self.invalidate_unit(old);
            }
            self.set_map(lpn, ppn);
            self.set_rev(ppn, lpn);
            let b = self.addr.block_of(ppn);
            let block = &mut self.blocks[b as usize];
            block.valid_pages += 1;
            block.valid_units += 1;
            self.plane_valid_units[self.addr.plane_of_block(b) as usize] += 1;
            // (A block is closed when its last page is taken, before that page's data
            // lands here.)
            self.rekey(b);
            if let Some(v) = self.versions.as_mut() {
                v.page_version[ppn as usize] = v.issued[lpn as usize] & !verify::TRIMMED;
            }
            self.oob_new_write(lpn, 0, 1, ppn, 0);
            return;
        }
        let b = self.addr.block_of(ppn);
        self.plane_valid_units[self.addr.plane_of_block(b) as usize] += count as u64;
        for k in 0..count {
            let lu = (lpn << shift) + first + k;
            let pu = (ppn << shift) + slot + k;
            let old = self.map_at(lu);
            if old != NO_PAGE {
                self.invalidate_unit(old);
            }
            // (After the old copy is gone: it may have been in this very page.)
            let empty = self.page_valid_units(ppn) == 0;
            let block = &mut self.blocks[b as usize];
            if empty {
                block.valid_pages += 1;
            }
            block.valid_units += 1;
            self.set_map(lu, pu);
            self.set_rev(pu, lu);
            self.rekey(b);
            if let Some(v) = self.versions.as_mut() {
                // Placed data carries the unit's current version; a user write issues a new
                // one first (issue_version) and a GC move copies the source's (move_page).
                v.page_version[pu as usize] = v.issued[lu as usize] & !verify::TRIMMED;
            }
        }
        self.oob_new_write(lpn, first, count, ppn, slot);
    }

    /// GC copied page `from` to `to`: every unit still valid in `from` now lives in the
    /// same slot of `to`. Returns whether any did (otherwise the host overwrote or trimmed
    /// them meanwhile and the copy is stale; it is programmed all the same, carrying the
    /// source's spare area).
    pub fn move_page(&mut self, from: Ppn, to: Ppn) -> bool {
        self.oob_copy(from, to);
        let moved = self.move_units(from, to, 0, self.units_per_page(), true) > 0;
        if moved {
            self.counters.gc_moved_pages += 1;
            if self.is_slc(to) {
                self.mark_programmed(to, 0);
            }
        }
        moved
    }

    /// Moves up to `limit` valid units of page `from`, in slot order, into `to` from slot
    /// `slot` on (`same_slots`: each into its own slot instead), carrying their versions
    /// and OOB entries. Returns how many moved.
    fn move_units(&mut self, from: Ppn, to: Ppn, slot: u32, limit: u32, same_slots: bool) -> u32 {
        let shift = self.unit_shift;
        let mut moved = 0;
        for k in 0..self.units_per_page() {
            if moved == limit {
                break;
            }
            let src = (from << shift) + k;
            let lu = self.rev_at(src);
            if lu == NO_PAGE {
                continue;
            }
            let dst = (to << shift) + if same_slots { k } else { slot + moved };
            self.move_unit(src, dst, !same_slots);
            moved += 1;
        }
        moved
    }

    /// Moves the valid physical unit `src` to the free unit `dst` (its version, and its
    /// OOB entry with `copy_oob`: a whole-page copy carries the page's OOB instead).
    fn move_unit(&mut self, src: u32, dst: u32, copy_oob: bool) {
        let shift = self.unit_shift;
        let lu = self.rev_at(src);
        let to = dst >> shift;
        let b = self.addr.block_of(to);
        let empty = self.page_valid_units(to) == 0;
        let block = &mut self.blocks[b as usize];
        if empty {
            block.valid_pages += 1;
        }
        block.valid_units += 1;
        self.plane_valid_units[self.addr.plane_of_block(b) as usize] += 1;
        self.rekey(b);
        self.invalidate_unit(src);
        self.set_map(lu, dst);
        self.set_rev(dst, lu);
        if let Some(v) = self.versions.as_mut() {
            v.page_version[dst as usize] = v.page_version[src as usize];
        }
        if copy_oob {
            self.oob_copy_unit(src, dst);
        }
    }

    /// DIR's GC of a half-valid page of an interleaved pair (DIR §3.2.4): the valid half
    /// of `first` and the other half of the same logical page, on its partner page in
    /// another plane of the die, are "recovered from two pages" into `to`, whole and in
    /// order. `None` (nothing moved) unless `first` holds one valid half whose logical
    /// page is split with another page of the same die.
    fn deinterleave_into(&mut self, first: Ppn, to: Ppn, sources: &mut Vec<Ppn>) -> Option<u32> {
        if self.unit_shift != 1 || self.page_valid_units(first) != 1 {
            return None;
        }
        let src = (0..2).map(|k| (first << 1) + k).find(|&pu| self.rev_at(pu) != NO_PAGE)?;
        let lu = self.rev_at(src);
        let (lpn, k) = (lu >> 1, lu & 1);
        let other = self.map_at((lpn << 1) + (1 - k));
        let same_die = |a: Ppn, b: Ppn| {
            self.addr.die_of_plane(self.addr.plane_of(a)) == self.addr.die_of_plane(self.addr.plane_of(b))
        };
        if other == NO_PAGE || other >> 1 == first || !same_die(other >> 1, first) {
            return None;
        }
        sources.push(first);
        sources.push(other >> 1);
        self.move_unit(src, (to << 1) + k, true);
        self.move_unit(other, (to << 1) + 1 - k, true);
        self.counters.gc_moved_pages += 1;
        self.counters.deinterleaved += 1;
        Some(2)
    }

    /// Compacting GC for a unit map (MGA's subpage GC; it also keeps a half-page map from
    /// filling with half-valid pages): the valid units of the victim's page `first`, then
    /// of its further valid pages in order, packed into `to` until it is full. A page
    /// whose units do not all fit is moved in part and stays the victim's next page.
    /// Pushes every page read onto `sources` (`first` included) and returns the units
    /// moved.
    pub fn compact_into(&mut self, plane: u32, first: Ppn, to: Ppn, sources: &mut Vec<Ppn>) -> u32 {
        if self.deinterleave {
            if let Some(moved) = self.deinterleave_into(first, to, sources) {
                return moved;
            }
        }
        let units = self.units_per_page();
        sources.push(first);
        let mut slot = self.move_units(first, to, 0, units, false);
        let victim = if self.compact_across_pages { self.planes[plane as usize].victim } else { NO_PAGE };
        while slot < units && victim != NO_PAGE {
            let p = &self.planes[plane as usize];
            let pages = self.pages_in_block(victim);
            let Some(page) = (p.victim_cursor..pages).find(|&c| self.page_valid_units(self.addr.ppn(victim, c)) > 0)
            else {
                break;
            };
            let ppn = self.addr.ppn(victim, page);
            slot += self.move_units(ppn, to, slot, units - slot, false);
            sources.push(ppn);
            let rest = self.page_valid_units(ppn) > 0;
            self.planes[plane as usize].victim_cursor = if rest { page } else { page + 1 };
        }
        if slot > 0 {
            self.counters.gc_moved_pages += 1;
            if self.is_slc(to) {
                self.mark_programmed(to, slot as u8);
            }
        }
        slot
    }

    /// Discards every unit of `lpn`.
    pub fn trim(&mut self, lpn: u32) {
        self.oob_trim(lpn);
        for k in 0..self.units_per_page() {
            let lu = (lpn << self.unit_shift) + k;
            let old = self.map_at(lu);
            if old != NO_PAGE {
                self.invalidate_unit(old);
                self.set_map(lu, NO_PAGE);
            }
        }
    }

    /// Physical unit `pu` no longer holds valid data; its page is invalid once no slot does.
    #[inline]
    pub(super) fn invalidate_unit(&mut self, pu: u32) {
        debug_assert_ne!(self.rev_at(pu), NO_PAGE);
        self.set_rev(pu, NO_PAGE);
        let ppn = pu >> self.unit_shift;
        let empty = self.unit_shift == 0 || self.page_valid_units(ppn) == 0;
        let b = self.addr.block_of(ppn);
        let block = &mut self.blocks[b as usize];
        block.valid_units -= 1;
        if empty {
            block.valid_pages -= 1;
        }
        self.plane_valid_units[self.addr.plane_of_block(b) as usize] -= 1;
        self.rekey(b);
    }

    /// Distinct physical pages holding units `first..first + count` of `lpn`, in unit
    /// order, appended to `out` unless already there (a request's reads share pages).
    pub fn pages_of(&self, lpn: u32, first: u32, count: u32, out: &mut Vec<Ppn>) {
        for k in first..first + count {
            if let Some(ppn) = self.unit_page(lpn, k) {
                if !out.contains(&ppn) {
                    out.push(ppn);
                }
            }
        }
    }

    /// Bytes of mapping table a controller would hold for this kind of map, with
    /// `entry_bytes` per physical address: a page map has one entry per logical page; a
    /// half-page map two (an entry names the pages of both halves, DIR §3.1); a subpage
    /// map is two-level (MGA, IPU §4.4.1): a page entry per logical page plus a subpage
    /// entry for each subpage of every logical page that is not stored whole, in order,
    /// in one physical page.
    pub fn mapping_memory_bytes(&self, entry_bytes: u32) -> u64 {
        let pages = self.logical_pages as u64;
        let e = entry_bytes as u64;
        match self.mapping {
            Mapping::Page => pages * e,
            Mapping::HalfPages => 2 * pages * e,
            Mapping::Subpages => {
                let u = self.units_per_page() as usize;
                let split = self.dense_map.count_groups(u, |units| !stored_whole(units));
                pages * e + split * u as u64 * e
            }
        }
    }

    /// Logical pages whose halves or subpages are not all in one physical page in order
    /// (interleaved or packed), for the report.
    pub fn split_logical_pages(&self) -> u64 {
        if self.unit_shift == 0 {
            return 0;
        }
        let u = self.units_per_page() as usize;
        self.dense_map.count_groups(u, |units| !stored_whole(units))
    }

    /// The map half of the invariants: map ↔ reverse map per unit, every mapped page
    /// programmed, and each block's `valid_pages` equal to its pages with a valid unit.
    pub(super) fn check_mapping(&self) -> Result<(), String> {
        let shift = self.unit_shift;
        let unit = |lu: u32| {
            if shift == 0 {
                format!("{}", lu)
            } else {
                format!("{} (unit {})", lu >> shift, lu & ((1 << shift) - 1))
            }
        };
        for lu in 0..self.map_len() as u32 {
            let pu = self.map_at(lu);
            if pu == NO_PAGE {
                continue;
            }
            if self.rev_at(pu) != lu {
                return Err(format!("map[{}] = {pu} but reverse[{pu}] = {}", unit(lu), self.rev_at(pu)));
            }
            let ppn = pu >> shift;
            if !self.is_programmed(self.addr.block_of(ppn), self.addr.page_in_block(ppn)) {
                return Err(format!("lpn {} maps to unprogrammed page {ppn}", unit(lu)));
            }
        }
        let u = self.units_per_page();
        let mut plane_valid = vec![0u64; self.planes.len()];
        for (block, info) in self.blocks.iter().enumerate() {
            plane_valid[self.addr.plane_of_block(block as u32) as usize] += info.valid_units as u64;
            let first = self.addr.ppn(block as u32, 0);
            let pages = self.addr.pages_per_block;
            let mut valid = 0u32;
            let units = (first * u..(first + pages) * u).filter(|&pu| self.rev_at(pu) != NO_PAGE).count();
            if units as u32 != info.valid_units {
                return Err(format!("block {block}: valid unit count {} but {units} valid units", info.valid_units));
            }
            for page in 0..pages {
                if (0..u).all(|slot| self.rev_at(((first + page) << shift) + slot) == NO_PAGE) {
                    continue;
                }
                valid += 1;
                if !self.is_programmed(block as u32, page) {
                    return Err(format!("block {block}: page {page} is valid but was never programmed"));
                }
                for slot in 0..u {
                    let pu = ((first + page) << shift) + slot;
                    let lu = self.rev_at(pu);
                    if lu != NO_PAGE && ((lu as usize) >= self.map_len() || self.map_at(lu) != pu) {
                        return Err(format!("reverse[{pu}] = {} but map disagrees", unit(lu)));
                    }
                }
            }
            if valid != info.valid_pages {
                return Err(format!("block {block}: valid count {} but {valid} valid pages", info.valid_pages));
            }
        }
        if plane_valid != self.plane_valid_units {
            return Err(format!("valid units per plane {:?} but counted {plane_valid:?}", self.plane_valid_units));
        }
        Ok(())
    }

    /// Whether a translation page (`[cmt]`) could be programmed in `plane` now: room on
    /// its write point, or a free block beyond the one GC needs.
    pub fn can_allocate_map(&self, plane: u32) -> bool {
        self.active_room(plane, self.map_stream()) > 0 || self.planes[plane as usize].free.len() > 1
    }

    /// Takes the next page of the translation pages' write point in `plane`.
    pub fn allocate_map(&mut self, plane: u32, now_ns: u64) -> Option<Allocated> {
        self.allocate_in(plane, self.map_stream(), now_ns, 1)
    }

    fn map_stream(&self) -> super::Stream {
        super::Stream::mapping(self.user_write_points, self.slc_levels)
    }

    /// Places every translation page on flash instantly (no simulated time), striped over
    /// the planes by number (MQSim's placement of its mapping table at start).
    pub fn place_translation_pages(&mut self, planes: &super::allocation::PlaneAllocator) -> Result<(), String> {
        for k in 0..self.translation_pages {
            let plane = planes.striped(&self.addr, k as u64);
            let Some(a) = self.allocate_map(plane, 0) else {
                return Err(format!("no room in plane {plane} for the cached mapping table's translation pages"));
            };
            self.commit_write(self.logical_pages + k, a.ppn);
        }
        Ok(())
    }
}

/// Whether a logical page needs no second-level entry: it has no data, or its units sit
/// in one physical page, unit k in slot k.
fn stored_whole(units: &[u32]) -> bool {
    if units.iter().all(|&pu| pu == NO_PAGE) {
        return true;
    }
    units[0] != NO_PAGE
        && units[0].is_multiple_of(units.len() as u32)
        && units.iter().enumerate().all(|(k, &pu)| pu == units[0] + k as u32)
}
