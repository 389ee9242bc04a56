//! The event queue: events and when they are due, popped in (time, insertion sequence)
//! order.
//!
//! A calendar queue (Brown 1988) over a ring of slots 1,024 ns wide and 4.2 ms long,
//! with a binary heap for what lies beyond. The events a drive keeps queued (~100) are
//! due within a few milliseconds of now (a transfer's end, a sense, a program, an
//! erase), so nearly all land in the ring: a push is a shift, a mask, a `Vec` push and a
//! bit set; a pop finds the next occupied slot in a bitmap (one or two words, as events
//! are a few slots apart) and takes the smallest key among the slot's few events. The
//! radix heap before it (Ahuja, Mehlhorn, Orlin and Tarjan 1990) moved every key down
//! its buckets about a dozen times, ~250 instructions an event in dev-opt (issue 48).

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
    #[inline]
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

/// A slot covers 2^SLOT_BITS ns.
const SLOT_BITS: u32 = 10;
/// Slots in the ring (a power of two): the ring covers 4,096 × 1,024 ns = 4.2 ms ahead.
const SLOTS: usize = 4096;
const WORDS: usize = SLOTS / 64;

/// The queue. Keys are unique (the sequence is), so the order is total and the same as
/// that of one binary heap over all events.
#[derive(Debug)]
pub(crate) struct EventQueue {
    /// Slot `n mod SLOTS` holds the ring's events of absolute slot `n` (time >> SLOT_BITS),
    /// unordered; every one of them has `n` in `cursor..cursor + SLOTS`.
    slots: Vec<Vec<Scheduled>>,
    /// Bit `i % 64` of word `i / 64` set: slot `i` is not empty.
    occupied: Vec<u64>,
    /// The absolute slot of the last event popped from the ring (it never goes back:
    /// every event in the ring is due at or after it).
    cursor: u64,
    /// Events outside the ring's window when pushed (beyond it, or before it, which the
    /// engine never schedules). A pop compares its top with the ring's smallest key.
    far: BinaryHeap<Scheduled>,
}

impl EventQueue {
    pub(crate) fn new() -> Self {
        EventQueue { slots: vec![Vec::new(); SLOTS], occupied: vec![0; WORDS], cursor: 0, far: BinaryHeap::new() }
    }

    /// Queues `s`; its sequence must differ from every queued one's.
    #[inline]
    pub(crate) fn push(&mut self, s: Scheduled) {
        let slot = s.time >> SLOT_BITS;
        if slot.wrapping_sub(self.cursor) < SLOTS as u64 {
            self.push_ring(slot as usize % SLOTS, s);
        } else {
            self.far.push(s);
        }
    }

    #[inline]
    fn push_ring(&mut self, i: usize, s: Scheduled) {
        self.slots[i].push(s);
        self.occupied[i / 64] |= 1 << (i % 64);
    }

    /// The ring's first occupied slot from the cursor on (ring index), if any.
    #[inline]
    fn next_occupied(&self) -> Option<usize> {
        let c = self.cursor as usize % SLOTS;
        let (w, b) = (c / 64, c % 64);
        let here = self.occupied[w] & (u64::MAX << b);
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        // (The slots below the cursor's in its word are the ring's last, checked last.)
        for k in 1..=WORDS {
            let word = (w + k) % WORDS;
            let bits = if k == WORDS { self.occupied[w] & !(u64::MAX << b) } else { self.occupied[word] };
            if bits != 0 {
                return Some(word * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// The earliest event, by (time, sequence).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Scheduled> {
        let Some(i) = self.next_occupied() else {
            let s = self.far.pop()?;
            self.advance_to(s.time >> SLOT_BITS);
            return Some(s);
        };
        let slot = &self.slots[i];
        let mut min = 0;
        for k in 1..slot.len() {
            if slot[k].key() < slot[min].key() {
                min = k;
            }
        }
        if self.far.peek().is_some_and(|f| f.key() < slot[min].key()) {
            let s = self.far.pop()?;
            self.advance_to(s.time >> SLOT_BITS);
            return Some(s);
        }
        let slot = &mut self.slots[i];
        let s = slot.swap_remove(min);
        if slot.is_empty() {
            self.occupied[i / 64] &= !(1 << (i % 64));
        }
        self.advance_to(s.time >> SLOT_BITS);
        Some(s)
    }

    /// Moves the cursor to absolute slot `slot` (if later) and brings the far events the
    /// ring now covers into it, so the heap stays small.
    #[inline]
    fn advance_to(&mut self, slot: u64) {
        if slot > self.cursor {
            self.cursor = slot;
            if !self.far.is_empty() {
                self.take_in_far();
            }
        }
    }

    /// Moves the far events the ring covers from the cursor on into the ring.
    fn take_in_far(&mut self) {
        while let Some(f) = self.far.peek() {
            let n = f.time >> SLOT_BITS;
            if n.wrapping_sub(self.cursor) >= SLOTS as u64 {
                break;
            }
            let s = self.far.pop().expect("peeked");
            self.push_ring(n as usize % SLOTS, s);
        }
    }

    /// The queued events, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Scheduled> {
        self.slots.iter().flatten().chain(self.far.iter())
    }

    /// Keeps only the events `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Scheduled) -> bool) {
        for (i, b) in self.slots.iter_mut().enumerate() {
            if b.is_empty() {
                continue;
            }
            b.retain(&mut keep);
            if b.is_empty() {
                self.occupied[i / 64] &= !(1 << (i % 64));
            }
        }
        self.far.retain(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// Pushes `rounds` times 0-2 events due `delay(rng)` after the last pop (or, when
    /// `early` picks the round, 5 ns before it), popping one in two rounds, and checks
    /// every pop against `BinaryHeap`'s, then drains both.
    fn against_heap(seed: u64, rounds: u32, early: u32, delay: impl Fn(&mut Pcg64Mcg) -> u64) {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let (mut q, mut reference) = (EventQueue::new(), BinaryHeap::new());
        let (mut now, mut seq) = (0u64, 0u64);
        for round in 0..rounds {
            for _ in 0..rng.random_range(0..3) {
                seq += 1;
                let time = match rng.random_range(0..10) {
                    0 => now,
                    1 if round % early == 0 => now.saturating_sub(5),
                    _ => now + delay(&mut rng),
                };
                let s = Scheduled { time, seq, event: Event::Refill };
                q.push(s);
                reference.push(s);
            }
            if rng.random_range(0..2) == 0 {
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

    /// Delays of 0 to 2^40 ns, spread over the bits (most beyond the ring, in the heap),
    /// and a few pushes before the last pop.
    #[test]
    fn pops_in_key_order() {
        against_heap(7, 20_000, 97, |rng| {
            let bits = rng.random_range(0..40);
            rng.random_range(0..1u64 << bits)
        });
    }

    /// A drive's delays: within the ring (a transfer, a sense, a program, an erase), many
    /// in the same slot, a few just beyond it; the ring's cursor wraps many times.
    #[test]
    fn pops_in_key_order_within_the_ring() {
        let horizon = (SLOTS as u64) << SLOT_BITS;
        against_heap(11, 200_000, 1009, |rng| match rng.random_range(0..20) {
            0 => horizon - 1 + rng.random_range(0..3000),
            1..=5 => rng.random_range(0..1 << SLOT_BITS),
            _ => rng.random_range(0..horizon),
        });
    }
}
