//! The greedy victim choice's per-block keys (`Ftl::gc_keys`): what `pick_greedy_normal`
//! needs of a block, packed in 8 bytes and kept in step with the block table, so that
//! choosing a victim reads one dense array instead of every block's `BlockInfo` (a
//! cache line each). Scanning 2,048 `BlockInfo`s a victim was 5.7% of `bench
//! mqsim-default`'s run and a fifth of its L1d misses (issue 48).
//!
//! A key is a pure function of the block's state, write pointer and valid counts
//! (`greedy_key`); whatever changes those calls `rekey`, bulk changes (preconditioning,
//! recovery) `rebuild_gc_keys`, and `--check` compares every key with its block.

use super::{BlockState, Ftl};
use crate::config::VictimPolicy;

/// Not a greedy candidate: not closed, or with less than a page to gain. Its score,
/// `u32::MAX`, is above any block's.
pub(super) const NOT_CANDIDATE: u64 = u64::MAX;

impl Ftl {
    /// The block's key: 0 for a closed block without valid pages (the scan takes the first
    /// of them, as `pick_victim_from` does), otherwise the greedy score (pages an erase
    /// would not gain, in units) above the valid pages (what must fit in GC's room).
    #[inline]
    pub(super) fn greedy_key(&self, block: u32) -> u64 {
        let info = &self.blocks[block as usize];
        if info.state != BlockState::Closed {
            return NOT_CANDIDATE;
        }
        if info.valid_pages == 0 {
            return 0;
        }
        let units = self.units_per_page();
        let capacity = self.addr.pages_per_block;
        let s = if info.write_ptr == capacity { self.summary_pages } else { 0 };
        let invalid = if self.compact_across_pages {
            (info.write_ptr - s) * units - info.valid_units
        } else {
            (info.write_ptr - s - info.valid_pages) * units
        };
        if invalid < units {
            return NOT_CANDIDATE;
        }
        let score = capacity * units - invalid;
        ((score as u64) << 32) | info.valid_pages as u64
    }

    /// Keeps keys if greedy will clean normal blocks one at a time (`pick_greedy_normal`);
    /// the other policies and cases scan the blocks themselves.
    pub(super) fn keep_gc_keys(&mut self) {
        if self.victim_policy == VictimPolicy::Greedy && !self.has_slc && self.gc_page_set == 1 {
            self.gc_keys = vec![NOT_CANDIDATE; self.blocks.len()];
            self.rebuild_gc_keys();
        }
    }

    /// Brings the key of `block` up to date after its state or valid counts changed (a
    /// no-op when the keys are not kept).
    #[inline]
    pub(super) fn rekey(&mut self, block: u32) {
        if !self.gc_keys.is_empty() {
            self.gc_keys[block as usize] = self.greedy_key(block);
        }
    }

    /// Recomputes every key: after changes to the block table in bulk (preconditioning,
    /// power-loss recovery) or a change of `compact_across_pages` (a design's choice).
    pub(crate) fn rebuild_gc_keys(&mut self) {
        if self.gc_keys.is_empty() {
            return;
        }
        self.gc_keys_compact = self.compact_across_pages;
        for block in 0..self.blocks.len() as u32 {
            self.gc_keys[block as usize] = self.greedy_key(block);
        }
    }

    /// Whether `pick_victim_from` uses the keys: greedy cleaning of planes of normal blocks
    /// under the strict program order, without companion pages, one-shot page sets or
    /// zones (the rules `greedy_key` encodes).
    pub(super) fn greedy_keyed(&self) -> bool {
        !self.gc_keys.is_empty() && self.relaxed.is_none() && self.companions.is_none() && self.zone_owned.is_empty()
    }

    /// `--check`: every key agrees with its block (a missed `rekey` would make greedy GC
    /// choose by stale counts).
    pub(super) fn check_gc_keys(&self) -> Result<(), String> {
        if !self.greedy_keyed() || self.gc_keys_compact != self.compact_across_pages {
            return Ok(());
        }
        for block in 0..self.blocks.len() as u32 {
            let (kept, actual) = (self.gc_keys[block as usize], self.greedy_key(block));
            if kept != actual {
                let info = &self.blocks[block as usize];
                return Err(format!(
                    "block {block}: greedy GC key {kept:#x} but {actual:#x} for {:?}, {} valid pages ({} units), \
                     write pointer {}",
                    info.state, info.valid_pages, info.valid_units, info.write_ptr
                ));
            }
        }
        Ok(())
    }
}
