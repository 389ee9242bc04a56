//! Several host flows on one drive (`[[flows]]`; NVMe multi-queue, MQSim's multi-flow
//! experiments): each flow has its own source, submission queue (closed loop at its queue
//! depth, or open loop by its records' times) and statistics; the dies choose among the
//! flows' queued transactions by `[arbitration]` (round robin over flows, or NVMe's
//! weighted round robin over priority classes with urgent first). The controller's own
//! transactions (flushes out of the data cache, mapping-table I/O) go first.
//!
//! The single-workload host (`host.rs`) stays idle in this mode: its source is only the
//! flows' records chained, read once before the run for preconditioning's footprint.

use super::*;
use crate::config::{ArbitrationScheme, FlowPriority};
use crate::stats::FlowSummary;

/// `Request::flow` of a request of the single workload.
pub(crate) const NO_FLOW: u16 = u16::MAX;

pub(crate) struct FlowState {
    name: String,
    priority: FlowPriority,
    queue_depth: u32,
    start_ns: u64,
    /// No request is submitted after this time (0 = none).
    stop_ns: u64,
    /// Where its records go in the logical space (`Flow::place`).
    placement: crate::config::Flow,
    source: Option<Box<dyn RecordSource>>,
    pending: Option<Record>,
    /// The first record's time (open loop: times are relative to it).
    base_ns: Option<u64>,
    outstanding: u64,
    /// Requests the device has fetched and not completed, and those submitted but left
    /// in the submission queue by the fetch limit (with their arrival times).
    in_device: u64,
    unfetched: VecDeque<(Record, u64)>,
    stats: RunStats,
    skipped: u64,
}

/// Per die and queue (reads, writes): where the arbiter is.
#[derive(Clone, Copy, Debug, Default)]
struct Turn {
    /// Weighted: the class (1 high, 2 medium, 3 low) whose turn it is, and how many of
    /// its transactions it has had in a row.
    class: u8,
    served: u32,
    /// Round robin: the flow served last.
    flow: u16,
}

pub(crate) struct Flows {
    flows: Vec<FlowState>,
    turns: Vec<[Turn; 2]>,
    scheme: ArbitrationScheme,
    weights: [u32; 4],
    /// `host.flows_end = "first"`: every flow stops once one has ended.
    end_together: bool,
    /// `host.queue_fetch_size`: commands the device holds of one flow at a time (0: any).
    fetch_limit: u64,
}

impl Flows {
    pub(crate) fn new(config: &Config, sources: Vec<Box<dyn RecordSource>>, dies: usize) -> Flows {
        let a = &config.arbitration;
        let flows = config
            .flows
            .iter()
            .zip(sources)
            .enumerate()
            .map(|(k, (f, source))| FlowState {
                name: f.display_name(k),
                priority: f.priority,
                queue_depth: f.queue_depth,
                start_ns: f.start_ns,
                stop_ns: f.stop_ns,
                placement: f.clone(),
                source: Some(source),
                pending: None,
                base_ns: None,
                outstanding: 0,
                in_device: 0,
                unfetched: VecDeque::new(),
                stats: RunStats { dominated_writes: vec![0; config.bits_per_cell()], ..RunStats::default() },
                skipped: 0,
            })
            .collect();
        Flows {
            flows,
            turns: vec![[Turn { class: 1, ..Turn::default() }; 2]; dies],
            scheme: a.scheme,
            weights: [u32::MAX, a.weight_high, a.weight_medium, a.weight_low],
            end_together: config.host.flows_end == crate::config::FlowsEnd::First,
            fetch_limit: u64::from(config.host.queue_fetch_size),
        }
    }

    pub(crate) fn done(&self) -> bool {
        self.flows.iter().all(|f| f.pending.is_none() && f.source.is_none() && f.unfetched.is_empty())
    }

    /// Whether the device may fetch another command of flow `k`.
    fn fetchable(&self, k: usize) -> bool {
        self.fetch_limit == 0 || self.flows[k].in_device < self.fetch_limit
    }
}

impl Simulator<'_> {
    /// Starts every flow: a closed-loop flow submits up to its queue depth at its start,
    /// an open-loop flow its first record at that record's time.
    pub(crate) fn start_flows(&mut self) -> Result<(), SimError> {
        let n = self.flows.as_ref().map_or(0, |f| f.flows.len());
        for k in 0..n {
            if self.flow_fetch(k)? {
                let at = self.flow_arrival_ns(k);
                self.push(at, Event::FlowArrival { flow: k as u16 });
            }
        }
        self.update_host_done();
        Ok(())
    }

    /// Pulls flow `k`'s next record into its `pending`; false when the flow has ended.
    fn flow_fetch(&mut self, k: usize) -> Result<bool, SimError> {
        let flows = self.flows.as_mut().expect("flows on");
        let f = &mut flows.flows[k];
        let Some(source) = f.source.as_mut() else { return Ok(false) };
        match source.next() {
            Some(record) => {
                let mut record = record?;
                f.base_ns.get_or_insert(record.arrival_ns);
                f.placement.place(&mut record);
                f.pending = Some(record);
                Ok(true)
            }
            None => {
                self.end_flow(k);
                if self.flows.as_ref().expect("flows on").end_together {
                    for other in 0..self.flows.as_ref().expect("flows on").flows.len() {
                        self.end_flow(other);
                    }
                }
                Ok(false)
            }
        }
    }

    /// Flow `k` submits nothing more: its source is closed (its skipped records counted)
    /// and a record it had fetched is dropped.
    fn end_flow(&mut self, k: usize) {
        let f = &mut self.flows.as_mut().expect("flows on").flows[k];
        f.pending = None;
        if let Some(source) = f.source.take() {
            f.skipped = source.skipped();
            self.skipped_total += f.skipped;
            self.skipped_by_reason.add_source(&*source);
        }
    }

    /// Whether flow `k` may not submit at `at` (past its `stop_ns`): then it has ended.
    fn flow_stopped(&mut self, k: usize, at: u64) -> bool {
        let flows = self.flows.as_ref().expect("flows on");
        let (stop, together) = (flows.flows[k].stop_ns, flows.end_together);
        if stop == 0 || at <= stop {
            return false;
        }
        self.end_flow(k);
        if together {
            for other in 0..self.flows.as_ref().expect("flows on").flows.len() {
                self.end_flow(other);
            }
        }
        true
    }

    /// When flow `k`'s pending record arrives: its time relative to the flow's first
    /// record (open loop), or now (closed loop), never before the flow starts.
    fn flow_arrival_ns(&self, k: usize) -> u64 {
        let f = &self.flows.as_ref().expect("flows on").flows[k];
        let record = f.pending.as_ref().expect("pending record");
        let at = if f.queue_depth == 0 {
            let rel = record.arrival_ns.saturating_sub(f.base_ns.unwrap_or(record.arrival_ns));
            f.start_ns + (rel as f64 / self.config.host.speed_factor) as u64
        } else {
            f.start_ns
        };
        at.max(self.now)
    }

    /// Flow `k`'s pending record is due (open loop), or its queue has room (closed loop):
    /// submit as many as its queue depth allows.
    pub(crate) fn on_flow_arrival(&mut self, k: u16) -> Result<(), SimError> {
        let k = k as usize;
        // The device fetches what waits in the submission queue first (oldest first).
        while self.flows.as_ref().expect("flows on").fetchable(k) {
            let Some((record, at)) = self.flows.as_mut().expect("flows on").flows[k].unfetched.pop_front() else {
                break;
            };
            self.flow_submit(k, record, at)?;
        }
        loop {
            let f = &self.flows.as_ref().expect("flows on").flows[k];
            let closed = f.queue_depth > 0;
            if f.pending.is_none() || (closed && f.outstanding >= f.queue_depth as u64) {
                break;
            }
            if self.flow_stopped(k, self.now) {
                break;
            }
            let record = self.flows.as_mut().expect("flows on").flows[k].pending.take().expect("checked");
            self.flows.as_mut().expect("flows on").flows[k].outstanding += 1;
            if self.flows.as_ref().expect("flows on").fetchable(k) {
                self.flow_submit(k, record, self.now)?;
            } else {
                // `host.queue_fetch_size`: it waits in the submission queue.
                self.flows.as_mut().expect("flows on").flows[k].unfetched.push_back((record, self.now));
            }
            if !self.flow_fetch(k)? {
                break;
            }
            if !closed {
                // Open loop: the next record when it is due.
                let at = self.flow_arrival_ns(k);
                if !self.flow_stopped(k, at) {
                    self.push(at, Event::FlowArrival { flow: k as u16 });
                }
                break;
            }
        }
        self.update_host_done();
        Ok(())
    }

    /// The device takes flow `k`'s request, which arrived at `arrival_ns`.
    fn flow_submit(&mut self, k: usize, record: Record, arrival_ns: u64) -> Result<(), SimError> {
        self.flows.as_mut().expect("flows on").flows[k].in_device += 1;
        self.submitting_flow = k as u16;
        let result = self.submit(record, arrival_ns);
        self.submitting_flow = NO_FLOW;
        result
    }

    /// A request of flow `k` completed: its statistics, and a closed-loop flow's next
    /// request at `refill_at` (through an event, so long runs of instant completions
    /// cannot recurse).
    pub(crate) fn flow_request_done(&mut self, k: u16, r: &Request, latency: u64, completion: u64, refill_at: u64) {
        let f = &mut self.flows.as_mut().expect("flows on").flows[k as usize];
        f.outstanding -= 1;
        f.in_device -= 1;
        if !f.unfetched.is_empty() {
            // The device fetches the next command of the queue as this one completes.
            self.push(self.now, Event::FlowArrival { flow: k });
        }
        let f = &mut self.flows.as_mut().expect("flows on").flows[k as usize];
        f.stats.first_arrival_ns = Some(f.stats.first_arrival_ns.map_or(r.arrival_ns, |a| a.min(r.arrival_ns)));
        host::record_request(&mut f.stats, r, latency, completion);
        if f.queue_depth > 0 && f.pending.is_some() {
            self.push(refill_at, Event::FlowArrival { flow: k });
        }
    }

    /// The class a queued transaction is arbitrated in: 0 for the controller's own
    /// (flushes, mapping I/O) and urgent flows, else its flow's class; and its flow.
    fn txn_class(&self, t: u32) -> (u8, u16) {
        let request = self.txns[t as usize].request;
        if request == NO_REQUEST {
            return (0, NO_FLOW);
        }
        let flow = self.requests[request as usize].flow;
        match self.flows.as_ref().and_then(|f| f.flows.get(flow as usize)) {
            Some(f) => (f.priority as u8, flow),
            None => (0, NO_FLOW),
        }
    }

    /// Moves the transaction the arbiter picks among the first `MULTI_PLANE_SCAN` of a
    /// die's reads (or writes) to the front, where the command is formed from.
    pub(crate) fn arbitrate(&mut self, die: u32, writes: bool) {
        let d = &self.dies[die as usize];
        let queue = if writes { &d.writes } else { &d.reads };
        let n = queue.len().min(MULTI_PLANE_SCAN);
        if n < 2 {
            return;
        }
        let flows = self.flows.as_ref().expect("flows on");
        if flows.scheme == ArbitrationScheme::OldestFirst {
            // The queue is in the order transactions were queued (mapping reads ahead).
            return;
        }
        let turn = flows.turns[die as usize][writes as usize];
        let weighted = flows.scheme == ArbitrationScheme::Weighted;
        // The first transaction that goes ahead of all (the controller's own, or an
        // urgent flow's under weighted arbitration), else the first of each class and
        // of each flow.
        let mut ahead = None;
        let mut first_of_class = [usize::MAX; 4];
        let mut first_of_flow = [usize::MAX; 64];
        for (i, &t) in queue.iter().take(n).enumerate() {
            let (class, flow) = self.txn_class(t);
            if flow == NO_FLOW || (weighted && class == 0) {
                ahead = Some(i);
                break;
            }
            first_of_class[class as usize] = first_of_class[class as usize].min(i);
            first_of_flow[flow as usize] = first_of_flow[flow as usize].min(i);
        }
        let (pick, next) = match ahead {
            Some(i) => (i, turn),
            None if weighted => {
                let mut class = turn.class;
                let mut served = turn.served;
                if first_of_class[class as usize] == usize::MAX || served >= flows.weights[class as usize] {
                    // The next class in turn that has a transaction queued.
                    class = (1..=3u8)
                        .map(|j| (class - 1 + j) % 3 + 1)
                        .find(|&c| first_of_class[c as usize] != usize::MAX)
                        .expect("a queued transaction has a class");
                    served = 0;
                }
                (first_of_class[class as usize], Turn { class, served: served + 1, ..turn })
            }
            None => {
                let count = flows.flows.len();
                let from = if turn.flow == NO_FLOW { 0 } else { turn.flow as usize + 1 };
                let flow = (0..count)
                    .map(|j| (from + j) % count)
                    .find(|&f| first_of_flow[f] != usize::MAX)
                    .expect("a queued transaction has a flow");
                (first_of_flow[flow], Turn { flow: flow as u16, ..turn })
            }
        };
        let flows = self.flows.as_mut().expect("flows on");
        flows.turns[die as usize][writes as usize] = next;
        if pick > 0 {
            let d = &mut self.dies[die as usize];
            let queue = if writes { &mut d.writes } else { &mut d.reads };
            let t = queue.remove(pick).expect("index in range");
            queue.push_front(t);
        }
    }

    pub(crate) fn flow_summaries(&self) -> Vec<FlowSummary> {
        let Some(flows) = self.flows.as_ref() else { return Vec::new() };
        flows
            .flows
            .iter()
            .enumerate()
            .map(|(k, f)| {
                let s = &f.stats;
                let interval = s.last_completion_ns.saturating_sub(s.first_arrival_ns.unwrap_or(0));
                FlowSummary {
                    name: f.name.clone(),
                    priority: f.priority.name().to_string(),
                    queue_depth: self.config.flows[k].queue_depth,
                    read: s.reads.summary(interval),
                    write: s.writes.summary(interval),
                    all: s.all_summary(interval),
                    first_arrival_ns: s.first_arrival_ns.unwrap_or(0),
                    last_completion_ns: s.last_completion_ns,
                    skipped_records: f.skipped,
                }
            })
            .collect()
    }
}

/// A warning when the flows of an interference run did not run together: one flow ended
/// (its last completion) before the half-way point in time of another's run (first arrival
/// to last completion), so that other flow ran alone for most of its run and its latency
/// says little about contention (issue 47). Flows without requests are left out.
pub(crate) fn flows_apart_warning(flows: &[FlowSummary]) -> Option<String> {
    let ran: Vec<&FlowSummary> = flows.iter().filter(|f| f.all.requests > 0).collect();
    let early = ran.iter().min_by_key(|f| f.last_completion_ns)?;
    let alone = ran
        .iter()
        .filter(|f| f.last_completion_ns > f.first_arrival_ns)
        .filter(|f| early.last_completion_ns < f.first_arrival_ns + (f.last_completion_ns - f.first_arrival_ns) / 2)
        .max_by_key(|f| f.last_completion_ns)?;
    let s = |ns: u64| ns as f64 / 1e9;
    Some(format!(
        "the flows did not run together: flow {} ended at {:.6} s, before half of flow {}'s run ({:.6} to {:.6} s), \
         so flow {} ran alone for most of its run and its latency says little about their interference; give the \
         flows the same stop time (flows[K].stop_ns), counts in proportion to their rates, or host.flows_end = \"first\"",
        early.name,
        s(early.last_completion_ns),
        alone.name,
        s(alone.first_arrival_ns),
        s(alone.last_completion_ns),
        alone.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(name: &str, first: u64, last: u64, count: u64) -> FlowSummary {
        let empty = crate::stats::LatencyStats::default().summary(0);
        let all = crate::stats::OpSummary { requests: count, ..empty.clone() };
        FlowSummary {
            name: name.into(),
            priority: "high".into(),
            queue_depth: 2,
            read: all.clone(),
            write: empty,
            all,
            first_arrival_ns: first,
            last_completion_ns: last,
            skipped_records: 0,
        }
    }

    #[test]
    fn flows_ending_far_apart_are_warned_about_and_flows_ending_together_are_not() {
        // Flow 1 ends at 1 s, flow 2 runs from 0 to 10 s: 9 s alone.
        let w = flows_apart_warning(&[flow("1", 0, 1_000_000_000, 10), flow("2", 0, 10_000_000_000, 100)]);
        let w = w.expect("far apart");
        assert!(w.contains("flow 1 ended at 1.000000 s") && w.contains("half of flow 2's run"), "{w}");
        // Ending at 60% of the other's run: together for most of it.
        assert_eq!(flows_apart_warning(&[flow("1", 0, 6_000, 10), flow("2", 0, 10_000, 100)]), None);
        // A flow that started late is measured from its own start.
        assert_eq!(flows_apart_warning(&[flow("1", 0, 9_000, 10), flow("2", 8_000, 10_000, 100)]), None);
        assert!(flows_apart_warning(&[flow("1", 0, 9_000, 10), flow("2", 8_000, 30_000, 100)]).is_some());
        // A flow that ran nothing is not a flow that ended early; one flow is no interference.
        assert_eq!(flows_apart_warning(&[flow("1", 0, 0, 0), flow("2", 0, 10_000, 100)]), None);
        assert_eq!(flows_apart_warning(&[flow("2", 0, 10_000, 100)]), None);
    }
}
