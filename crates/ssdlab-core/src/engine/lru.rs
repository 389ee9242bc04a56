//! A recency order over numbered slots (most recently used first), as a doubly linked
//! list in two vectors: the DRAM data cache's pages and the mapping table's entries
//! (`cache.rs`, `cmt.rs`) keep their slots' contents and this order apart.

pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) struct LruOrder {
    /// (previous, next) of each slot: towards the most and the least recently used.
    links: Vec<(u32, u32)>,
    head: u32,
    tail: u32,
}

impl Default for LruOrder {
    fn default() -> Self {
        LruOrder { links: Vec::new(), head: NONE, tail: NONE }
    }
}

impl LruOrder {
    /// The least recently used slot (`NONE` when empty).
    pub(crate) fn tail(&self) -> u32 {
        self.tail
    }

    pub(crate) fn unlink(&mut self, e: u32) {
        let (prev, next) = self.links[e as usize];
        match prev {
            NONE => self.head = next,
            p => self.links[p as usize].1 = next,
        }
        match next {
            NONE => self.tail = prev,
            n => self.links[n as usize].0 = prev,
        }
    }

    /// Makes `e` (not in the order) the most recently used.
    pub(crate) fn push_front(&mut self, e: u32) {
        if self.links.len() <= e as usize {
            self.links.resize(e as usize + 1, (NONE, NONE));
        }
        self.links[e as usize] = (NONE, self.head);
        if self.head != NONE {
            self.links[self.head as usize].0 = e;
        }
        self.head = e;
        if self.tail == NONE {
            self.tail = e;
        }
    }

    /// Makes `e` (in the order) the most recently used.
    pub(crate) fn touch(&mut self, e: u32) {
        if self.head != e {
            self.unlink(e);
            self.push_front(e);
        }
    }

    /// The slots, least recently used first.
    pub(crate) fn iter_lru(&self) -> impl Iterator<Item = u32> + '_ {
        let mut e = self.tail;
        std::iter::from_fn(move || {
            if e == NONE {
                return None;
            }
            let this = e;
            e = self.links[e as usize].0;
            Some(this)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_follows_pushes_touches_and_unlinks() {
        let mut o = LruOrder::default();
        for e in [3, 1, 2] {
            o.push_front(e);
        }
        assert_eq!(o.iter_lru().collect::<Vec<_>>(), vec![3, 1, 2]);
        o.touch(3);
        assert_eq!(o.iter_lru().collect::<Vec<_>>(), vec![1, 2, 3]);
        o.unlink(2);
        assert_eq!((o.iter_lru().collect::<Vec<_>>(), o.tail()), (vec![1, 3], 1));
        o.unlink(1);
        o.unlink(3);
        assert_eq!((o.iter_lru().count(), o.tail()), (0, NONE));
    }
}
