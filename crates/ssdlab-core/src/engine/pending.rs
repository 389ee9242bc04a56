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
    /// A user write sub-request of `lpn` entered the device. Only writes a read could
    /// have to wait for or be served from are tracked, so that the common case (an
    /// overwrite with acknowledgement at program time) costs no hash-map work: with DRAM
    /// acknowledgement every write, else writes of pages with no copy on flash yet.
    pub(crate) fn write_pending(&mut self, lpn: u32) {
        if self.config.power.write_acknowledge == WriteAcknowledge::Buffer || !self.ftl.is_mapped(lpn) {
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
        let Some(p) = self.pending_writes.get_mut(&lpn) else { return Ok(()) };
        p.count = p.count.saturating_sub(1);
        let waiting = std::mem::take(&mut p.waiting_reads);
        if p.count == 0 {
            self.pending_writes.remove(&lpn);
        }
        for slot in waiting {
            if !self.ftl.is_mapped(lpn) {
                // Trimmed meanwhile: the controller answers.
                self.finish_sub_request(slot)?;
                continue;
            }
            let mut pages = Vec::new();
            self.enqueue_unit_reads(slot, lpn, 0, self.ftl.units_per_page(), &mut pages)?;
            for die in std::mem::take(&mut self.kick_list) {
                self.kick(die)?;
            }
        }
        Ok(())
    }

    /// A read sub-request of `lpn` arrives: served here when a write of the page is still
    /// pending and the read must not go to flash now. Returns whether it was handled.
    pub(crate) fn read_of_pending_write(&mut self, slot: u32, lpn: u32) -> Result<bool, SimError> {
        let buffer = self.config.power.write_acknowledge == WriteAcknowledge::Buffer;
        // Acknowledgement at program time: a copy on flash is a correct answer.
        if self.pending_writes.is_empty() || (!buffer && self.ftl.is_mapped(lpn)) {
            return Ok(false);
        }
        let Some(p) = self.pending_writes.get_mut(&lpn) else { return Ok(false) };
        if buffer {
            self.host_counters.buffer_reads += 1;
            self.finish_sub_request(slot)?;
            return Ok(true);
        }
        self.host_counters.reads_after_pending_write += 1;
        p.waiting_reads.push(slot);
        Ok(true)
    }
}
