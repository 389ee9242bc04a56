//! The event queue's entries: an event and when it is due, ordered by (time, insertion
//! sequence).

use super::Event;

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
