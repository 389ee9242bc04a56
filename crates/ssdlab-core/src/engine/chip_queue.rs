//! MQSim's out-of-order transaction scheduling unit (`TSU_OutOfOrder`) on chip-serial
//! dies, for `arbitration.scheme = "oldest-first"`: a chip keeps one queue of user reads
//! and one of user writes shared by all flows and all its dies, and when the chip is free
//! it issues a command to the die of the oldest queued transaction — mapping reads
//! first, then the oldest read, then the oldest write. ssdlab keeps a queue per die (in
//! the order transactions were queued), so the chip's shared queue is the dies' queues
//! merged by their heads' queueing times.

use super::*;

impl Simulator<'_> {
    /// The chip of `die` (whose command just ended) is free: its dies get it in the order
    /// of their oldest queued work (ties: in turn from the die after `die`).
    pub(crate) fn schedule_chip_oldest_first(&mut self, die: u32) -> Result<(), SimError> {
        let per_chip = self.ftl.addr.dies_per_chip.max(1);
        let first = die - die % per_chip;
        // (rank, queued at, turn): rank 0 a mapping read at the head, 1 a user read, 2 a
        // write, 3 nothing queued (the die may still have GC to start).
        let mut order: Vec<(u8, u64, u32, u32)> = (1..=per_chip)
            .map(|k| {
                let d = first + (die % per_chip + k) % per_chip;
                let q = &self.dies[d as usize];
                let key = match (q.reads.front(), q.writes.front()) {
                    (Some(&t), _) => {
                        let txn = &self.txns[t as usize];
                        (u8::from(txn.request != NO_REQUEST), txn.enqueued_ns)
                    }
                    (None, Some(&t)) => (2, self.txns[t as usize].enqueued_ns),
                    (None, None) => (3, 0),
                };
                (key.0, key.1, k, d)
            })
            .collect();
        order.sort_unstable();
        for (_, _, _, d) in order {
            self.schedule_die(d)?;
        }
        Ok(())
    }
}
