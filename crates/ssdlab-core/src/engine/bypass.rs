//! Gordon's read bypassing and write combining (thesis §5.3; `ftl.read_bypass`,
//! `ftl.write_combining`), design-neutral controller mechanisms.
//!
//! Read bypassing: a read of a logical page that another user read is already fetching
//! from flash waits for that read instead of sensing the page again, and a read of the
//! page the last flash read returned is served from that buffer. Write combining: a write
//! of a logical page whose earlier user write is still queued (not yet programmed, or
//! waiting for its read-modify-write read) joins it: one program carries both. Both pay
//! off with super-pages, where "an 8KB access aligned on a 128KB boundary followed
//! immediately by a 120KB access to the rest of the same 128KB region" would otherwise
//! read or program the super-page twice.
//!
//! A write or trim of a page ends both for it: later reads neither join an older read nor
//! hit the buffer. The state is volatile: a power loss clears it (the requests it holds
//! fail with the others).

use super::*;
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct Bypass {
    read_bypass: bool,
    write_combining: bool,
    /// Logical page → the user flash read fetching it.
    reads: HashMap<u32, u32>,
    /// Logical page → its queued user write (or the read-modify-write read before it).
    writes: HashMap<u32, u32>,
    /// Transaction → the request slots that joined it.
    joined: HashMap<u32, Vec<u32>>,
    /// The logical page the last user flash read returned (the last-read buffer).
    last_read: Option<u32>,
    pub(crate) merged_reads: u64,
    pub(crate) buffer_reads: u64,
    pub(crate) combined_writes: u64,
}

impl Bypass {
    pub(crate) fn new(config: &Config) -> Option<Box<Bypass>> {
        let (r, w) = (config.ftl.read_bypass, config.ftl.write_combining);
        (r || w).then(|| Box::new(Bypass { read_bypass: r, write_combining: w, ..Bypass::default() }))
    }

    pub(crate) fn clear(&mut self) {
        self.reads.clear();
        self.writes.clear();
        self.joined.clear();
        self.last_read = None;
    }
}

impl Simulator<'_> {
    /// A user read of `lpn` (request `slot`) before it goes to flash: served by the
    /// last-read buffer or joined to the read in flight. Returns whether it was handled.
    pub(crate) fn bypass_read(&mut self, slot: u32, lpn: u32) -> Result<bool, SimError> {
        let Some(b) = self.bypass.as_mut() else { return Ok(false) };
        if !b.read_bypass {
            return Ok(false);
        }
        if b.last_read == Some(lpn) {
            b.buffer_reads += 1;
            self.finish_sub_request(slot)?;
            return Ok(true);
        }
        if let Some(&t) = b.reads.get(&lpn) {
            b.joined.entry(t).or_default().push(slot);
            b.merged_reads += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// A user flash read `txn` of `lpn` was queued.
    pub(crate) fn bypass_read_queued(&mut self, txn: u32, lpn: u32) {
        if let Some(b) = self.bypass.as_mut().filter(|b| b.read_bypass) {
            b.reads.insert(lpn, txn);
        }
    }

    /// The user flash read `txn` of `lpn` ended: the reads that joined it end too, and
    /// the page is in the last-read buffer.
    pub(crate) fn bypass_read_done(&mut self, txn: u32, lpn: u32) -> Result<(), SimError> {
        let Some(b) = self.bypass.as_mut() else { return Ok(()) };
        if b.reads.get(&lpn) == Some(&txn) {
            b.reads.remove(&lpn);
            b.last_read = Some(lpn);
        }
        for slot in b.joined.remove(&txn).unwrap_or_default() {
            self.finish_sub_request(slot)?;
        }
        Ok(())
    }

    /// A user write of `lpn` (request `slot`) before it is queued: joined to the page's
    /// queued write if there is one. Either way the page's older reads stop being
    /// joinable. Returns whether it was joined.
    pub(crate) fn bypass_write(&mut self, slot: u32, lpn: u32) -> bool {
        let Some(b) = self.bypass.as_mut() else { return false };
        b.reads.remove(&lpn);
        if b.last_read == Some(lpn) {
            b.last_read = None;
        }
        if !b.write_combining || slot == NO_REQUEST {
            return false;
        }
        let Some(&t) = b.writes.get(&lpn) else { return false };
        let txn = &self.txns[t as usize];
        // Still the page's queued, unprogrammed user write (slots are reused).
        let queued = txn.lpn == lpn
            && txn.request != NO_REQUEST
            && (txn.kind == TxnKind::UpdateRead || (txn.kind == TxnKind::Write && txn.ppn == NO_PAGE));
        if !queued {
            b.writes.remove(&lpn);
            return false;
        }
        b.joined.entry(t).or_default().push(slot);
        b.combined_writes += 1;
        true
    }

    /// A user write (or its read-modify-write read) `txn` of `lpn` was queued: it is the
    /// page's write later writes join.
    pub(crate) fn bypass_write_queued(&mut self, txn: u32, lpn: u32) {
        if let Some(b) = self.bypass.as_mut().filter(|b| b.write_combining) {
            b.writes.insert(lpn, txn);
        }
    }

    /// The read-modify-write read `read` ended and its write was queued (and registered
    /// as its page's write by `bypass_write_queued`): the writes that joined the read join
    /// that write.
    /// (The read's slot is free again: its write may even have taken it.)
    pub(crate) fn bypass_write_requeued(&mut self, read: u32, lpn: u32) {
        let Some(b) = self.bypass.as_mut() else { return };
        let Some(slots) = b.joined.remove(&read) else { return };
        let write = *b.writes.get(&lpn).expect("the read's write was just registered");
        b.joined.insert(write, slots);
    }

    /// The user write `txn` of `lpn` was programmed: the writes that joined it are done.
    pub(crate) fn bypass_write_done(&mut self, txn: u32, lpn: u32) -> Result<(), SimError> {
        let Some(b) = self.bypass.as_mut() else { return Ok(()) };
        if b.writes.get(&lpn) == Some(&txn) {
            b.writes.remove(&lpn);
        }
        for slot in b.joined.remove(&txn).unwrap_or_default() {
            // (Read-your-writes counted each joined write as pending.)
            self.write_landed(lpn)?;
            self.finish_sub_request(slot)?;
        }
        Ok(())
    }

    /// A trim of `lpn`: nothing may be served from an older read of it.
    pub(crate) fn bypass_trimmed(&mut self, lpn: u32) {
        if let Some(b) = self.bypass.as_mut() {
            b.reads.remove(&lpn);
            b.writes.remove(&lpn);
            if b.last_read == Some(lpn) {
                b.last_read = None;
            }
        }
    }
}
