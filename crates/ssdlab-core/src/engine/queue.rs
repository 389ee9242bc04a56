//! The event queue: events and when they are due, popped in (time, insertion sequence)
//! order.
//!
//! A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990): the keys a discrete-event
//! simulation pushes are never below the last one popped (an event is due now or
//! later, and its sequence is new), so each key can sit in the bucket of the highest
//! bit in which it differs from the last key popped. The smallest key is in the lowest
//! non-empty bucket; when that bucket holds more than one key, the smallest is taken
//! and the rest move to lower buckets, each key moving at most 128 times in all and in
//! practice a few. A binary heap of the ~100 events a drive keeps queued cost about 420
//! instructions an event in the dev-opt build, sifting up on push (new events are due
//! soon, so they rise to near the root) and down on pop (issue 48).

use super::Event;
use std::collections::BinaryHeap;

/// An event in the queue, ordered by (time, insertion sequence): equal times keep
/// insertion order. The sequence is unique, so the event never decides the order. The
/// pair is compared as one 128-bit number (two instructions, no branch) and the order is
/// reversed because `BinaryHeap` pops its greatest element.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scheduled {
    pub(crate) time: u64,
    pub(crate) seq: u64,
    pub(crate) event: Event,
}

impl Scheduled {
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Scheduled {}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key().cmp(&self.key())
    }
}

/// The queue. Keys are unique (the sequence is), so the order is total and the same as
/// that of one binary heap over all events.
#[derive(Debug)]
pub(crate) struct EventQueue {
    /// Bucket `i` holds the keys greater than `last` whose highest bit differing from
    /// it is bit `i`.
    buckets: Vec<Vec<Scheduled>>,
    /// Bit `i` set: bucket `i` is not empty.
    nonempty: u128,
    /// The key of the last event popped from the buckets.
    last: u128,
    /// Events pushed due before `last` (the engine schedules none; kept for safety):
    /// all of them precede every bucket's.
    early: BinaryHeap<Scheduled>,
}

impl EventQueue {
    pub(crate) fn new() -> Self {
        EventQueue { buckets: vec![Vec::new(); 128], nonempty: 0, last: 0, early: BinaryHeap::new() }
    }

    #[inline]
    fn bucket_of(&self, key: u128) -> usize {
        (127 - (key ^ self.last).leading_zeros()) as usize
    }

    /// Queues `s`; its sequence must differ from every queued one's.
    #[inline]
    pub(crate) fn push(&mut self, s: Scheduled) {
        let key = s.key();
        if key <= self.last {
            self.early.push(s);
            return;
        }
        let i = self.bucket_of(key);
        self.buckets[i].push(s);
        self.nonempty |= 1 << i;
    }

    /// The earliest event, by (time, sequence).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Scheduled> {
        if !self.early.is_empty() {
            return self.early.pop();
        }
        if self.nonempty == 0 {
            return None;
        }
        let i = self.nonempty.trailing_zeros() as usize;
        if self.buckets[i].len() == 1 {
            self.nonempty &= !(1 << i);
            let s = self.buckets[i].pop()?;
            self.last = s.key();
            return Some(s);
        }
        Some(self.pop_spread(i))
    }

    /// Takes the smallest key of bucket `i` (the lowest non-empty one, with two keys or
    /// more) and moves the others to the buckets they belong in beside it.
    fn pop_spread(&mut self, i: usize) -> Scheduled {
        let mut bucket = std::mem::take(&mut self.buckets[i]);
        self.nonempty &= !(1 << i);
        let mut min = 0;
        for (k, s) in bucket.iter().enumerate().skip(1) {
            if s.key() < bucket[min].key() {
                min = k;
            }
        }
        let first = bucket.swap_remove(min);
        self.last = first.key();
        for s in bucket.drain(..) {
            // (Every key left shares bits above `i` with the new `last`, so it lands
            // in a bucket below `i`.)
            let j = self.bucket_of(s.key());
            self.buckets[j].push(s);
            self.nonempty |= 1 << j;
        }
        self.buckets[i] = bucket;
        first
    }

    /// The queued events, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Scheduled> {
        self.buckets.iter().flatten().chain(self.early.iter())
    }

    /// Keeps only the events `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Scheduled) -> bool) {
        for (i, b) in self.buckets.iter_mut().enumerate() {
            b.retain(&mut keep);
            if b.is_empty() {
                self.nonempty &= !(1 << i);
            }
        }
        self.early.retain(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// Random pushes never earlier than the last pop (and a few that are), popped in
    /// the order a binary heap gives.
    #[test]
    fn pops_in_key_order() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let mut below = |n: u64| rng.random_range(0..n);
        let (mut q, mut reference) = (EventQueue::new(), BinaryHeap::new());
        let (mut now, mut seq) = (0u64, 0u64);
        for round in 0..20_000u32 {
            let pushes = below(3);
            for _ in 0..pushes {
                seq += 1;
                let time = match below(10) {
                    0 => now,
                    1 if round % 97 == 0 => now.saturating_sub(5),
                    _ => {
                        now + {
                            let bits = below(40);
                            below(1 << bits)
                        }
                    }
                };
                let s = Scheduled { time, seq, event: Event::Refill };
                q.push(s);
                reference.push(s);
            }
            if below(2) == 0 {
                let (a, b) = (q.pop(), reference.pop());
                assert_eq!(a.map(|s| (s.time, s.seq)), b.map(|s| (s.time, s.seq)));
                if let Some(s) = a {
                    now = now.max(s.time);
                }
            }
        }
        while let Some(b) = reference.pop() {
            assert_eq!(q.pop().map(|s| (s.time, s.seq)), Some((b.time, b.seq)));
        }
        assert!(q.pop().is_none());
    }
}
