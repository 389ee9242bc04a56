//! The host link (`[link]`): PCIe lanes shared by every request, one transfer at a time
//! in each direction (full duplex), as MQSim's PCIe_Link. Toward the device go a
//! request's command and a write's data (the device starts on the request when they have
//! crossed); toward the host go a read's data and the completion entry (the host sees
//! the request complete when they have crossed). Transfers in one direction end in the
//! order they were queued.

use super::*;

#[derive(Default)]
pub(crate) struct Link {
    to_device_free_ns: u64,
    to_host_free_ns: u64,
    /// Requests whose command is crossing, oldest first (ends in this order).
    arriving: VecDeque<u32>,
    pub(crate) to_device_bytes: u64,
    pub(crate) to_device_busy_ns: u64,
    pub(crate) to_host_bytes: u64,
    pub(crate) to_host_busy_ns: u64,
}

impl Simulator<'_> {
    /// Request `slot`'s command (and a write's data) starts across the link.
    pub(crate) fn link_command_in(&mut self, slot: u32) {
        let r = &self.requests[slot as usize];
        let payload = if r.op == Op::Write { r.size_bytes } else { 0 };
        let bytes = self.config.link.command_bytes as u64 + payload;
        let ns = self.config.link.transfer_ns(self.config.link.command_bytes as u64)
            + if payload > 0 { self.config.link.transfer_ns(payload) } else { 0 };
        let l = &mut self.link;
        let done = l.to_device_free_ns.max(self.now) + ns;
        l.to_device_free_ns = done;
        l.to_device_bytes += bytes;
        l.to_device_busy_ns += ns;
        l.arriving.push_back(slot);
        self.push(done, Event::LinkIn);
    }

    pub(crate) fn on_link_in(&mut self) -> Result<(), SimError> {
        let slot = self.link.arriving.pop_front().expect("a request crossed the link");
        self.split_request(slot)
    }

    /// A request completed in the device: its read data (if any) and completion entry
    /// cross to the host. Returns when the host sees it.
    pub(crate) fn link_completion(&mut self, op: Op, size_bytes: u64) -> u64 {
        let payload = if op == Op::Read { size_bytes } else { 0 };
        let cqe = self.config.link.completion_bytes as u64;
        let ns =
            self.config.link.transfer_ns(cqe) + if payload > 0 { self.config.link.transfer_ns(payload) } else { 0 };
        let l = &mut self.link;
        let done = l.to_host_free_ns.max(self.now) + ns;
        l.to_host_free_ns = done;
        l.to_host_bytes += payload + cqe;
        l.to_host_busy_ns += ns;
        done
    }

    /// Power is lost: requests on their way in are gone (they failed with the others).
    pub(crate) fn link_power_lost(&mut self) {
        self.link.arriving.clear();
        self.link.to_device_free_ns = self.now;
        self.link.to_host_free_ns = self.now;
    }

    pub(crate) fn link_summary(&self) -> Option<LinkSummary> {
        let c = &self.config.link;
        c.enabled().then_some(LinkSummary {
            lanes: c.lanes,
            lane_gb_per_s: c.lane_gb_per_s,
            to_device_bytes: self.link.to_device_bytes,
            to_device_busy_ns: self.link.to_device_busy_ns,
            to_host_bytes: self.link.to_host_bytes,
            to_host_busy_ns: self.link.to_host_busy_ns,
        })
    }
}
