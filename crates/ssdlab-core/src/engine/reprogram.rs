//! In-place reprograms: a user write programmed into the page that holds its logical
//! page's current copy, after reading that page in the same command (a code written in
//! generations, such as WOM codes, must know the cells' present state: thesis §6.1). The
//! design decides which writes go in place (`reprograms_in_place` when the write is
//! split) and claims the page when the command starts (`in_place_claim`), naming a
//! companion page to read and reprogram along (its code redundancy). The map does not
//! change; the page gets the write's version and a new OOB sequence number, and a power
//! failure during the program leaves the page's previous contents readable (the
//! partial-program model of `ftl/recovery.rs`). A write whose page moved or whose claim
//! fails when its die gets to it becomes an ordinary write.

use super::*;
use crate::ftl::Allocated;

impl Simulator<'_> {
    /// Queues the write of `lpn` (request `slot`) as an in-place reprogram of `ppn`, the
    /// page holding its current copy. Returns the die.
    pub(crate) fn enqueue_reprogram(&mut self, slot: u32, lpn: u32, ppn: Ppn) -> u32 {
        let plane = self.ftl.addr.plane_of(ppn);
        let txn = self.alloc_txn(TxnKind::Reprogram, slot, lpn, ppn, plane);
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].writes.push_back(txn);
        self.dies[die as usize].last_user_ns = self.now;
        die
    }

    /// Whether queued reprogram `txn` can still go into its page: the page still holds
    /// its logical page. (The design's claim when it starts is the last word.)
    pub(crate) fn reprogram_still_fits(&self, txn: u32) -> bool {
        let t = &self.txns[txn as usize];
        self.ftl.lookup(t.lpn) == Some(t.ppn)
    }

    /// Turns a queued reprogram that can no longer go in place into an ordinary write.
    pub(crate) fn reprogram_as_write(&mut self, txn: u32) {
        self.txns[txn as usize].kind = TxnKind::Write;
        self.buffered_write_pages += 1;
    }

    /// Starts reprogram `txn` (removed from its die's queue), or returns false when the
    /// design no longer claims the page (the caller then writes it as an ordinary write).
    /// One command: the page (and its companion) sensed and carried out, the new data
    /// carried in and programmed.
    pub(crate) fn start_reprogram(&mut self, die: u32, txn: u32) -> Result<bool, SimError> {
        let (ppn, lpn, request, acked) = {
            let t = &self.txns[txn as usize];
            (t.ppn, t.lpn, t.request, t.acked)
        };
        let Some(companion) = self.in_place_claim(ppn) else { return Ok(false) };
        let pages = [ppn, companion];
        let count = if companion == NO_PAGE { 1 } else { 2 };
        let (mut sense, mut program) = (0, 0);
        for (k, &p) in pages[..count].iter().enumerate() {
            let (page_type, slc) = (self.ftl.page_type(p), self.ftl.is_slc(p));
            sense += self.timing.read_ns(page_type, slc);
            program += self.program_ns_of(Allocated { ppn: p, page_type, slc });
            self.count_read(p, page_type, slc, false);
            self.count_program(page_type, slc, if k == 0 { ProgramOf::User } else { ProgramOf::InPlace });
            self.ftl.wear_reprogrammed(p);
        }
        self.ftl.oob_partial_program(lpn, ppn);
        self.txns[txn as usize].version = self.ftl.tag_write(lpn, ppn);
        let page_type = self.ftl.page_type(ppn);
        self.txns[txn as usize].page_type = page_type;
        if !acked && request != NO_REQUEST {
            let r = &mut self.requests[request as usize];
            r.dominant_type = r.dominant_type.max(page_type as i32);
        }
        let bytes = count as u64 * self.timing.page_size_bytes;
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        cmd.set_steps(&[Step::Array(sense), Step::ChannelOut(bytes), Step::ChannelIn(bytes), Step::Array(program)]);
        self.dies[die as usize].command = cmd;
        self.mark_busy(die);
        self.advance_command(die)?;
        Ok(true)
    }
}
