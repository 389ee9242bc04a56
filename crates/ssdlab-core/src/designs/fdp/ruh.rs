//! Host Reclaim Unit Handle Updates (NVMe I/O Management Send, management operation 01h,
//! `designs.fdp.ruh_updates`): at the times the config gives, each named handle is moved
//! to new reclaim units in the named group, as the controller does on receiving the
//! command. A handle that had written part of its reclaim unit there logs Reclaim Unit
//! Not Fully Written (event 00h); one that had written nothing keeps its (empty) unit.
//!
//! `ssdlab_trace::Record` has no operation for the command (a new one would reach every
//! request path, the zoned namespace's included), so the host's updates are a schedule
//! in simulated time, as power losses are (`power.loss_at_ns`).

use super::Fdp;
use crate::engine::Simulator;

impl Simulator<'_> {
    /// Schedules the next RUH Update not yet run, if any.
    pub(super) fn fdp_schedule_update(&mut self) {
        let f = self.designs.state::<Fdp>();
        if let Some(&(at, _)) = f.updates.get(f.next_update) {
            let at = at.max(self.now);
            self.schedule_design_timer::<Fdp>(at, 0);
        }
    }

    /// Runs every RUH Update due by now, then schedules the next.
    pub(super) fn fdp_run_updates(&mut self) {
        loop {
            let f = self.designs.state_mut::<Fdp>();
            let Some((at, pids)) = f.updates.get(f.next_update).cloned() else { break };
            if at > self.now {
                break;
            }
            f.next_update += 1;
            f.ruh_updates += 1;
            for pid in pids {
                let Some((group, handle)) = self.designs.state::<Fdp>().cfg.decode(pid) else { continue };
                if self.switch_reclaim_unit(group, handle) {
                    self.designs.state_mut::<Fdp>().events.ru_not_fully_written += 1;
                }
            }
        }
        self.fdp_schedule_update();
    }
}
