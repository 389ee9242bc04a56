//! Recency orders over numbered slots (most recently used first). `LruOrder`, a doubly
//! linked list in two vectors, for the DRAM data cache's pages (`cache.rs`), which keeps
//! their contents apart and leaves from anywhere in the order; `LruQueue`, the slots'
//! values with a queue of their touches, for the mapping table's entries (`cmt.rs`),
//! which leave only from the least recently used end.

use std::collections::VecDeque;

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
    #[cfg(test)]
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

/// The values of numbered slots in least-recently-used order, kept as a queue of their
/// touches, oldest first: a touch appends the slot, and the older items of it in the queue
/// become stale (a slot holds the position of its latest). The least recently used slot is
/// the oldest live item. Against a linked list, a touch writes the slot and the end of the
/// queue instead of unlinking it between two neighbours, and an eviction reads the slot
/// it evicts and the queue's front instead of its neighbour too: on a large table at
/// random slots, one cache miss each instead of three (issue 48). The order is the same.
#[derive(Clone, Debug, Default)]
pub(crate) struct LruQueue<T> {
    /// Each slot's value and the position of its latest touch.
    items: Vec<(T, u64)>,
    /// Touched slots, oldest first; the front is at position `front`.
    queue: VecDeque<u32>,
    front: u64,
}

impl<T: Copy> LruQueue<T> {
    pub(crate) fn with_capacity(n: usize) -> Self {
        LruQueue { items: Vec::with_capacity(n), queue: VecDeque::with_capacity(2 * n + 64), front: 0 }
    }

    /// The number of slots (none leaves: an eviction replaces its value).
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn get(&self, e: u32) -> &T {
        &self.items[e as usize].0
    }

    pub(crate) fn get_mut(&mut self, e: u32) -> &mut T {
        &mut self.items[e as usize].0
    }

    fn enqueue(&mut self, e: u32) {
        self.items[e as usize].1 = self.front + self.queue.len() as u64;
        self.queue.push_back(e);
        // Stale items are dropped once they are as many as the live ones (and a few): a
        // touch costs O(1) amortised, and the queue stays within twice the slots.
        if self.queue.len() > 2 * self.items.len() + 64 {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let (items, front) = (&mut self.items, self.front);
        let (mut at, mut kept) = (front, front);
        self.queue.retain(|&e| {
            let live = items[e as usize].1 == at;
            at += 1;
            if live {
                items[e as usize].1 = kept;
                kept += 1;
            }
            live
        });
    }

    /// A new slot holding `value`, the most recently used.
    pub(crate) fn push(&mut self, value: T) -> u32 {
        let e = self.items.len() as u32;
        self.items.push((value, 0));
        self.enqueue(e);
        e
    }

    /// Makes slot `e` the most recently used.
    pub(crate) fn touch(&mut self, e: u32) {
        if self.queue.back() != Some(&e) {
            self.enqueue(e);
        }
    }

    /// The values of the `n` least recently used slots, oldest first, and of any stale
    /// items among them (for preloading what evicting them will read).
    pub(crate) fn oldest_values(&self, n: usize) -> impl Iterator<Item = &T> + '_ {
        self.queue.iter().take(n).map(|&e| &self.items[e as usize].0)
    }

    /// The least recently used slot (there must be one).
    pub(crate) fn oldest(&mut self) -> u32 {
        loop {
            let e = *self.queue.front().expect("a slot");
            if self.items[e as usize].1 == self.front {
                return e;
            }
            self.queue.pop_front();
            self.front += 1;
        }
    }

    /// The least recently used slot takes `value` and becomes the most recently used;
    /// returns the slot and the value it held.
    pub(crate) fn replace_oldest(&mut self, value: T) -> (u32, T) {
        let e = self.oldest();
        self.queue.pop_front();
        self.front += 1;
        let old = std::mem::replace(&mut self.items[e as usize].0, value);
        self.enqueue(e);
        (e, old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The queue evicts in the linked list's order, over random touches and evictions
    /// (through many compactions), for a small table and a larger one.
    #[test]
    fn the_queue_evicts_as_the_list_does() {
        for (seed, slots) in [(1u64, 1u32), (2, 5), (3, 300)] {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let (mut list, mut queue) = (LruOrder::default(), LruQueue::with_capacity(0));
            let mut values = Vec::new();
            for round in 0..100_000u32 {
                if (queue.len() as u32) < slots {
                    let e = queue.push(round);
                    list.push_front(e);
                    values.push(round);
                } else if rng.random_range(0..3) == 0 {
                    let victim = list.tail();
                    list.unlink(victim);
                    list.push_front(victim);
                    assert_eq!(queue.replace_oldest(round), (victim, values[victim as usize]), "round {round}");
                    values[victim as usize] = round;
                } else {
                    let e = rng.random_range(0..slots);
                    list.touch(e);
                    queue.touch(e);
                }
                assert_eq!(queue.oldest(), list.tail());
                assert!(queue.queue.len() <= 2 * queue.len() + 64);
            }
            for e in 0..slots {
                assert_eq!(*queue.get(e), values[e as usize]);
            }
        }
    }

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
