//! The dense page table's storage: one `u32` per logical unit (the map) or per physical
//! unit (the reverse map), `NO_PAGE` where there is no entry. Entries are stored
//! complemented, so that `NO_PAGE` is a zero word and a new table is all zeros: it is
//! allocated zeroed (`calloc`, fresh pages from the OS) instead of being written once with
//! `NO_PAGE`, and the OS backs only the pages of it a run writes. A fresh drive's reverse
//! map, written in block order, then costs memory in proportion to the data written, and
//! building the drive no longer writes 8 bytes per page of table (issue 48: MQSim's
//! default drive, 494 MiB of tables, spent 23% of a 100,000-request run's instructions
//! and all of that memory in `memset` before the first request). Complementing costs one
//! `not` per access.
//!
//! Runs one after another on a thread (`ssdlab compare`'s variants) can hand their tables
//! on ([`reuse_tables`]): a dropped table's memory is kept for the thread's next table of
//! the same length, which clears it instead of taking fresh pages from the OS. A fresh
//! table costs a page fault per 4 KiB written (about 190,000 a run on MQSim's default
//! drive, fill and run), and two runs faulting at once in one process (`compare` on two
//! threads) took three times the kernel time per fault (BENCHMARKS.md); clearing memory a
//! thread already holds costs no fault. Off unless asked for: a library user's thread would
//! otherwise hold its last run's tables.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Default, PartialEq, Eq)]
pub struct DenseTable {
    raw: Vec<u32>,
}

/// Whether dropped tables are kept for reuse ([`reuse_tables`]).
static REUSE: AtomicBool = AtomicBool::new(false);

/// Tables smaller than this are not kept: their faults cost little.
const REUSE_MIN_LEN: usize = 1 << 20;

/// At most this many tables kept per thread (a run's map and reverse map).
const REUSE_MAX: usize = 2;

thread_local! {
    /// Dropped tables' memory, for this thread's next tables of the same lengths.
    static SPARE: RefCell<Vec<Vec<u32>>> = const { RefCell::new(Vec::new()) };
}

/// From now on, tables dropped on a thread keep their memory for that thread's next table
/// of the same length (`ssdlab compare`'s variants, run one after another on each
/// thread); `false` stops that and frees this thread's kept tables.
pub fn reuse_tables(on: bool) {
    REUSE.store(on, Ordering::Relaxed);
    if !on {
        SPARE.with(|s| s.borrow_mut().clear());
    }
}

impl Drop for DenseTable {
    fn drop(&mut self) {
        if self.raw.len() >= REUSE_MIN_LEN && REUSE.load(Ordering::Relaxed) {
            let raw = std::mem::take(&mut self.raw);
            // (A thread being torn down has no spares to keep: the memory is freed.)
            let _ = SPARE.try_with(|s| {
                let mut spare = s.borrow_mut();
                if spare.len() >= REUSE_MAX {
                    spare.remove(0);
                }
                spare.push(raw);
            });
        }
    }
}

impl std::fmt::Debug for DenseTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl DenseTable {
    /// `len` entries, all `NO_PAGE`, in zeroed memory.
    pub fn new(len: usize) -> Self {
        if len >= REUSE_MIN_LEN && REUSE.load(Ordering::Relaxed) {
            let kept = SPARE.with(|s| {
                let mut spare = s.borrow_mut();
                let i = spare.iter().position(|raw| raw.len() == len)?;
                Some(spare.swap_remove(i))
            });
            if let Some(mut raw) = kept {
                raw.fill(0);
                return DenseTable { raw };
            }
        }
        DenseTable { raw: vec![0; len] }
    }

    pub fn len(&self) -> usize {
        self.raw.len()
    }

    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Entry `i`, or `None` beyond the table.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<u32> {
        self.raw.get(i).map(|&e| !e)
    }

    /// Sets entry `i`; false (and nothing set) beyond the table.
    #[inline(always)]
    pub fn set(&mut self, i: usize, value: u32) -> bool {
        match self.raw.get_mut(i) {
            Some(e) => {
                *e = !value;
                true
            }
            None => false,
        }
    }

    /// Sets every entry to `value` (`NO_PAGE`: empties the table).
    pub fn fill(&mut self, value: u32) {
        self.raw.fill(!value);
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.raw.iter().map(|&e| !e)
    }

    /// Entries `range`, in order.
    pub fn range(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = u32> + '_ {
        self.raw[range].iter().map(|&e| !e)
    }

    /// How many of the table's consecutive groups of `n` entries `pred` holds for (given
    /// the group's entries).
    pub fn count_groups(&self, n: usize, mut pred: impl FnMut(&[u32]) -> bool) -> u64 {
        let mut group = Vec::with_capacity(n);
        let mut count = 0;
        for raw in self.raw.chunks_exact(n) {
            group.clear();
            group.extend(raw.iter().map(|&e| !e));
            count += pred(&group) as u64;
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::NO_PAGE;

    #[test]
    fn a_new_table_is_empty_and_entries_read_back() {
        let mut t = DenseTable::new(5);
        assert!(t.iter().all(|e| e == NO_PAGE));
        assert!(t.set(2, 7) && t.set(4, 0) && !t.set(5, 1));
        assert_eq!(t.iter().collect::<Vec<_>>(), [NO_PAGE, NO_PAGE, 7, NO_PAGE, 0]);
        assert_eq!((t.get(2), t.get(4), t.get(5)), (Some(7), Some(0), None));
        assert_eq!(t.range(1..3).collect::<Vec<_>>(), [NO_PAGE, 7]);
        assert_eq!(t.count_groups(2, |g| g.contains(&NO_PAGE)), 2);
        t.fill(3);
        assert!(t.iter().all(|e| e == 3));
        t.fill(NO_PAGE);
        assert_eq!((t.len(), t.iter().all(|e| e == NO_PAGE)), (5, true));
    }

    /// A table dropped while reuse is on lends its memory, cleared, to the thread's next
    /// table of its length; other lengths get fresh memory.
    #[test]
    fn a_reused_table_starts_empty() {
        reuse_tables(true);
        let mut t = DenseTable::new(REUSE_MIN_LEN);
        for i in (0..REUSE_MIN_LEN).step_by(4093) {
            t.set(i, i as u32);
        }
        let memory = t.raw.as_ptr();
        drop(t);
        let other = DenseTable::new(REUSE_MIN_LEN + 1);
        assert_ne!(other.raw.as_ptr(), memory);
        let again = DenseTable::new(REUSE_MIN_LEN);
        assert_eq!(again.raw.as_ptr(), memory, "the dropped table's memory is reused");
        assert!(again.iter().all(|e| e == NO_PAGE));
        reuse_tables(false);
        drop(again);
        assert!(SPARE.with(|s| s.borrow().is_empty()), "nothing kept with reuse off");
    }
}
