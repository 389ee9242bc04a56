//! The event queue: events and when they are due, popped in (time, insertion sequence)
//! order.
//!
//! Many events are due at the current time (a refill after a completion, an arrival, a
//! translation read's kick): in a binary heap each of them sifted up to the root on
//! push and down from it on pop, about 300 instructions an event (issue 48). They go
//! to a FIFO instead: pushed at the queue's current time, their keys only grow, so the
//! FIFO stays sorted and a pop takes the smaller of its front and the heap's top. The
//! order is exactly that of one heap over all events.

use super::Event;
use std::collections::{BinaryHeap, VecDeque};

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

/// The queue: a heap for later events, a FIFO for those due at `now`.
#[derive(Debug)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Scheduled>,
    /// Events pushed due at `now`, in push order (so in key order).
    due_now: VecDeque<Scheduled>,
    /// The time of the last event popped (the simulator's clock).
    now: u64,
}

impl EventQueue {
    pub(crate) fn with_capacity(n: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(n), due_now: VecDeque::with_capacity(64), now: 0 }
    }

    /// Queues `s`; its sequence must be greater than every queued one's.
    #[inline]
    pub(crate) fn push(&mut self, s: Scheduled) {
        // (An event due at `now` is pushed after every queued event: a FIFO keeps them
        // in key order as long as `now` does not move, and it moves only when they are
        // all popped, since they are due first. One due earlier, which the engine does
        // not schedule, goes to the heap, which orders it right too.)
        if s.time == self.now {
            self.due_now.push_back(s);
        } else {
            self.heap.push(s);
        }
    }

    /// The earliest event, by (time, sequence).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Scheduled> {
        let from_fifo = match (self.due_now.front(), self.heap.peek()) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(f), Some(h)) => f.key() < h.key(),
        };
        let s = if from_fifo { self.due_now.pop_front() } else { self.heap.pop() }?;
        self.now = s.time;
        Some(s)
    }

    /// The queued events, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Scheduled> {
        self.heap.iter().chain(self.due_now.iter())
    }

    /// Keeps only the events `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&Scheduled) -> bool) {
        self.heap.retain(&mut keep);
        self.due_now.retain(keep);
    }
}
