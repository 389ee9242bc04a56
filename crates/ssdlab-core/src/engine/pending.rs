//! Reads of logical pages whose writes are not yet programmed (read-your-writes). A real
//! controller holds a write's data in its buffer until the program ends: with DRAM
//! acknowledgement (`power.write_acknowledge = "buffer"`) a read of the page is served
//! from that buffer (the host was told the write is done, so it must see it); with
//! acknowledgement at program time a read returns the previous copy from flash if there
//! is one (the write is not acknowledged yet), and otherwise waits for the program and
//! reads the new copy, instead of being answered as a read of a never-written page.

use super::*;

/// Writes of one logical page in the device and not yet programmed, and the read
/// sub-requests (request slots) waiting for the first of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingWrites {
    pub(crate) count: u32,
    pub(crate) waiting_reads: Vec<u32>,
}

impl Simulator<'_> {
    /// Whether writes are acknowledged once their data is in DRAM (the write buffer, or
    /// the data cache): a read must then see them before they are programmed.
    pub(crate) fn acks_from_dram(&self) -> bool {
        self.cache.is_some() || self.config.power.write_acknowledge == WriteAcknowledge::Buffer
    }

    /// A user write sub-request of `lpn` entered the device. Only writes a read could
    /// have to wait for or be served from are tracked, so that the common case (an
    /// overwrite with acknowledgement at program time) costs no hash-map work: with DRAM
    /// acknowledgement every write, else writes of pages with no copy on flash yet.
    pub(crate) fn write_pending(&mut self, lpn: u32) {
        if self.acks_from_dram() || !self.ftl.is_mapped(lpn) {
            self.pending_writes.entry(lpn).or_default().count += 1;
        }
    }

    /// A user write of `lpn` was programmed: a copy is on flash, so reads waiting for one
    /// go there now. (An untracked write of a tracked page may land first: the count
    /// saturates, and the tracked write's landing then finds no entry.)
    pub(crate) fn write_landed(&mut self, lpn: u32) -> Result<(), SimError> {
        if self.pending_writes.is_empty() {
            return Ok(());
        }
        // One probe: the entry is counted down and, at zero, removed through itself.
        let std::collections::hash_map::Entry::Occupied(mut entry) = self.pending_writes.entry(lpn) else {
            return Ok(());
        };
        let p = entry.get_mut();
        p.count = p.count.saturating_sub(1);
        let waiting = std::mem::take(&mut p.waiting_reads);
        if p.count == 0 {
            entry.remove();
        }
        for slot in waiting {
            if !self.ftl.is_mapped(lpn) {
                // Trimmed meanwhile: the controller answers.
                self.finish_sub_request(slot)?;
                continue;
            }
            let mut pages = Vec::new();
            self.enqueue_unit_reads(slot, lpn, 0, self.ftl.units_per_page(), &mut pages)?;
            self.kick_listed()?;
        }
        Ok(())
    }

    /// A read sub-request of `lpn` arrives: served here when a write of the page is still
    /// pending and the read must not go to flash now. Returns whether it was handled.
    pub(crate) fn read_of_pending_write(&mut self, slot: u32, lpn: u32) -> Result<bool, SimError> {
        let buffer = self.acks_from_dram();
        // Acknowledgement at program time: a copy on flash is a correct answer.
        if self.pending_writes.is_empty() || (!buffer && self.ftl.is_mapped(lpn)) {
            return Ok(false);
        }
        let Some(p) = self.pending_writes.get_mut(&lpn) else { return Ok(false) };
        if buffer {
            self.host_counters.buffer_reads += 1;
            if self.cache.is_some() {
                // Data on its way out of the cache is still in DRAM.
                let bytes = self.timing.page_size_bytes;
                self.dram_transfer(bytes, cache::DramJob::Finish { slot, count: 1 });
            } else {
                self.finish_sub_request(slot)?;
            }
            return Ok(true);
        }
        self.host_counters.reads_after_pending_write += 1;
        p.waiting_reads.push(slot);
        Ok(true)
    }

    /// `--verify`, when a read from flash is queued: the version it must return at least
    /// (kept in the read's `version`): what the host was told is written, unless DRAM
    /// holds newer data of the page (then flash data is merged with it).
    pub(crate) fn expect_read_version(&mut self, txn: u32) {
        if !self.verify {
            return;
        }
        let (lpn, unit) = (self.txns[txn as usize].lpn, self.txns[txn as usize].unit as u32);
        let merged = self.cache.as_ref().is_some_and(|c| c.holds_newer(lpn));
        self.txns[txn as usize].version = if merged { 0 } else { self.ftl.acknowledged_version(lpn, unit) };
    }

    /// `--verify`, when a read senses its page: the data there (its out-of-band version)
    /// is at least as new as what was acknowledged when the read was queued.
    pub(crate) fn verify_read(&self, txn: u32) -> Result<(), SimError> {
        let t = &self.txns[txn as usize];
        if !self.verify || t.kind != TxnKind::Read || t.version == 0 {
            return Ok(());
        }
        let Some(found) = self.ftl.version_in_page(t.ppn, t.lpn, t.unit as u32) else { return Ok(()) };
        if found < t.version {
            return Err(SimError::Integrity {
                time_ns: self.now,
                message: format!(
                    "a read of logical page {} (unit {}) returned version {found} from physical page {}, older than \
                     version {} acknowledged to the host before the read was issued",
                    t.lpn, t.unit, t.ppn, t.version
                ),
            });
        }
        Ok(())
    }
}
