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

#[derive(Clone, Default, PartialEq, Eq)]
pub struct DenseTable {
    raw: Vec<u32>,
}

impl std::fmt::Debug for DenseTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl DenseTable {
    /// `len` entries, all `NO_PAGE`, in zeroed memory.
    pub fn new(len: usize) -> Self {
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
}
