//! PA-SSD's engine side: a write whose page type the scheme specified is programmed
//! alone into the page pa-BLAlloc chooses (the scheme itself is `policies::pa_ssd`).

use super::*;

impl Simulator<'_> {
    /// PA-SSD: one sub-request, its page chosen by pa-BLAlloc for the assigned type.
    /// (Type-specified writes are not combined into multi-plane commands.)
    pub(super) fn start_typed_write(&mut self, die: u32, txn: u32) -> Result<bool, SimError> {
        let (plane, want) = (self.txns[txn as usize].plane, self.txns[txn as usize].want);
        let (a, matched) = self.ftl.allocate_typed(plane, want, 1, self.now).expect("room was checked");
        self.pa_typed_allocations += 1;
        self.pa_typed_successes += u64::from(matched);
        let program = self.program_ns(a.page_type, a.slc);
        self.bind_write(txn, a.ppn, a.page_type, a.slc);
        let mut cmd = std::mem::take(&mut self.dies[die as usize].command);
        cmd.txns.clear();
        cmd.txns.push(txn);
        cmd.steps = [Some(Step::ChannelIn(self.timing.page_size_bytes)), Some(Step::Array(program)), None, None];
        cmd.next = 0;
        self.dies[die as usize].command = cmd;
        self.dies[die as usize].busy = true;
        self.advance_command(die)?;
        Ok(true)
    }
}
