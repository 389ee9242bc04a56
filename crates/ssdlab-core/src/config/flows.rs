//! Several host flows on one drive (issue 19: NVMe multi-queue, MQSim's multi-flow
//! experiments): `[[flows]]`, each its own trace or synthetic workload with its own queue
//! depth and priority class, and `[arbitration]`, how the dies choose among the flows'
//! transactions. With no flows the single workload of `host` runs, unchanged.

use super::{err, ConfigError};
use serde::{Deserialize, Serialize};
use ssdlab_trace::SyntheticSpec;

/// An NVMe submission queue's priority class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FlowPriority {
    /// Served before every other class (NVMe's urgent class; MQSim's URGENT).
    Urgent,
    #[default]
    High,
    Medium,
    Low,
}

impl FlowPriority {
    pub fn name(self) -> &'static str {
        match self {
            FlowPriority::Urgent => "urgent",
            FlowPriority::High => "high",
            FlowPriority::Medium => "medium",
            FlowPriority::Low => "low",
        }
    }
}

/// One host flow (`[[flows]]`): an I/O submission queue with its own workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Flow {
    /// Shown in the report (default `flow-K`).
    pub name: String,
    /// A trace file (read by the CLI; a path relative to the working directory).
    pub trace: String,
    /// The trace's format (`auto` = detected).
    pub format: String,
    /// A synthetic workload instead of a trace (the keys of `[workload]`).
    pub synthetic: Option<SyntheticSpec>,
    /// Requests kept outstanding (closed loop); 0 = open loop by the records' times.
    pub queue_depth: u32,
    pub priority: FlowPriority,
    /// When the flow starts, ns (its first request, or its first record's time).
    pub start_ns: u64,
    /// Added to every request's address (to give flows their own logical ranges, as
    /// MQSim's flows have).
    pub offset_bytes: u64,
    /// The flow's logical range from `offset_bytes`: a request's address wraps within it
    /// (0 = no range: addresses go as they are, plus the offset).
    pub size_bytes: u64,
    /// The unit of the trace's time column (`ps`, `ns`, `us`, `ms`, `s`; empty = the
    /// format's own). `--time-unit` overrides it for every flow.
    pub time_unit: String,
    /// Replay only the first this-many percent of the trace's records (MQSim's
    /// `Percentage_To_Be_Executed`).
    pub replay_percent: u32,
    /// Replay the trace this many times, each replay one mean inter-arrival gap after the
    /// previous one's last record (MQSim's `Relay_Count`).
    pub runs: u32,
    /// A hint every record of the flow carries, replacing the trace's own (the thesis'
    /// priority bit: a hint of at most `priority.high_hint_max` is high priority).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<u8>,
    /// The channels, chips (of a channel), dies (of a chip) and planes (of a die) the
    /// flow's data is placed on (empty = all); needs `size_bytes`. MQSim's `Channel_IDs`,
    /// `Chip_IDs`, `Die_IDs` and `Plane_IDs`.
    pub channels: Vec<u32>,
    pub chips: Vec<u32>,
    pub dies: Vec<u32>,
    pub planes: Vec<u32>,
    /// The flow submits no request after this simulated time, ns (0 = none): requests
    /// already submitted complete, the other flows run on (MQSim's `Stop_Time`).
    #[serde(skip_serializing_if = "is_zero")]
    pub stop_ns: u64,
}

pub(crate) fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Flow {
    /// Its name, or `flow-K` for flow `k` without one.
    pub fn display_name(&self, k: usize) -> String {
        if self.name.is_empty() {
            format!("flow-{k}")
        } else {
            self.name.clone()
        }
    }

    /// Moves a record of this flow into the flow's logical range: within `size_bytes`
    /// (MQSim: the address modulo the flow's size; a request that would cross the end
    /// starts early enough to fit), then up by `offset_bytes`.
    pub fn place(&self, record: &mut ssdlab_trace::Record) {
        ssdlab_trace::place_in_range(record, self.offset_bytes, self.size_bytes, self.hint);
    }

    /// Whether the flow's data is confined to part of the drive.
    pub fn is_partitioned(&self) -> bool {
        !(self.channels.is_empty() && self.chips.is_empty() && self.dies.is_empty() && self.planes.is_empty())
    }
}

impl Default for Flow {
    fn default() -> Self {
        Flow {
            name: String::new(),
            trace: String::new(),
            format: "auto".to_string(),
            synthetic: None,
            queue_depth: 0,
            priority: FlowPriority::High,
            start_ns: 0,
            offset_bytes: 0,
            size_bytes: 0,
            time_unit: String::new(),
            replay_percent: 100,
            runs: 1,
            hint: None,
            channels: Vec::new(),
            chips: Vec::new(),
            dies: Vec::new(),
            planes: Vec::new(),
            stop_ns: 0,
        }
    }
}

/// How a die picks the next transaction among the flows' (`[arbitration]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArbitrationScheme {
    /// One transaction of each flow in turn, whatever its class.
    RoundRobin,
    /// NVMe's weighted round robin with urgent priority: urgent transactions first, then
    /// the high, medium and low classes in turn, up to their weight each
    /// (MQSim's priority transaction scheduler).
    Weighted,
    /// Whatever the flow: a die serves its queue in the order transactions were queued,
    /// and a chip-serial chip gives its next command to the die holding its oldest read
    /// (else its oldest write) — one queue per chip shared by all flows, oldest first
    /// (MQSim's `TSU_OutOfOrder`).
    OldestFirst,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Arbitration {
    pub scheme: ArbitrationScheme,
    /// Weighted: transactions of a class served in a row before the next class's turn.
    pub weight_high: u32,
    pub weight_medium: u32,
    pub weight_low: u32,
}

impl Default for Arbitration {
    fn default() -> Self {
        Arbitration { scheme: ArbitrationScheme::RoundRobin, weight_high: 4, weight_medium: 2, weight_low: 1 }
    }
}

impl Arbitration {
    pub fn is_default(&self) -> bool {
        *self == Arbitration::default()
    }
}

pub(crate) fn validate(
    flows: &[Flow],
    config: &super::Config,
    logical_bytes: Option<u64>,
    errors: &mut Vec<ConfigError>,
) {
    let (arbitration, geometry) = (&config.arbitration, &config.geometry);
    if flows.len() > 64 {
        errors.push(err("flows", "at most 64 flows"));
    }
    for (k, f) in flows.iter().enumerate() {
        let key = |field: &str| format!("flows[{k}].{field}");
        match (f.trace.is_empty(), &f.synthetic) {
            (true, None) => errors.push(err(&key("trace"), "a flow needs a trace or a synthetic workload")),
            (false, Some(_)) => {
                errors.push(err(&key("synthetic"), "a flow has a trace or a synthetic workload, not both"))
            }
            (true, Some(spec)) => {
                if let Err(problems) = spec.validate() {
                    for p in problems {
                        errors.push(err(&key(&format!("synthetic.{}", p.field)), p.message));
                    }
                }
            }
            (false, None) => {}
        }
        if f.queue_depth > 65_536 {
            errors.push(err(&key("queue_depth"), "must be at most 65536 (0 = open loop)"));
        }
        if !f.time_unit.is_empty() && f.time_unit.parse::<ssdlab_trace::TimeUnit>().is_err() {
            errors.push(err(&key("time_unit"), format!("'{}': expected ps, ns, us, ms or s", f.time_unit)));
        }
        if !(1..=100).contains(&f.replay_percent) {
            errors.push(err(&key("replay_percent"), "must be between 1 and 100"));
        }
        if f.runs == 0 {
            errors.push(err(&key("runs"), "must be at least 1"));
        }
        if f.trace.is_empty() {
            for (bad, field) in [
                (!f.time_unit.is_empty(), "time_unit"),
                (f.replay_percent != 100, "replay_percent"),
                (f.runs != 1, "runs"),
            ] {
                if bad {
                    errors.push(err(&key(field), "applies to a trace flow only"));
                }
            }
        }
        let logical_bytes = logical_bytes.unwrap_or(u64::MAX);
        if f.size_bytes > 0 && f.offset_bytes.saturating_add(f.size_bytes) > logical_bytes {
            errors.push(err(
                &key("size_bytes"),
                format!(
                    "offset_bytes + size_bytes = {} is beyond the drive's logical capacity ({logical_bytes} bytes)",
                    f.offset_bytes.saturating_add(f.size_bytes)
                ),
            ));
        }
        let sizes = [
            ("channels", geometry.channels),
            ("chips", geometry.chips_per_channel),
            ("dies", geometry.dies_per_chip),
            ("planes", geometry.planes_per_die),
        ];
        for ((field, size), list) in sizes.into_iter().zip([&f.channels, &f.chips, &f.dies, &f.planes]) {
            if let Some(bad) = list.iter().find(|&&id| id >= size) {
                errors.push(err(&key(field), format!("{bad} does not exist (the device has {size}, numbered from 0)")));
            }
            if (1..list.len()).any(|i| list[..i].contains(&list[i])) {
                errors.push(err(&key(field), "lists an id twice"));
            }
        }
        if f.is_partitioned() {
            if config.ftl.plane_allocation == super::PlaneAllocation::AtService {
                errors.push(err(
                    &key("channels"),
                    "a confined flow is not modelled with ftl.plane_allocation = \"at-service\" (a waiting write \
                     goes to whichever die takes it)",
                ));
            }
            let page = u64::from(geometry.page_size_bytes.max(1));
            if f.size_bytes == 0 {
                errors.push(err(&key("size_bytes"), "a flow confined to part of the drive needs its logical range"));
            } else if f.offset_bytes % page != 0 || f.size_bytes % page != 0 {
                errors.push(err(
                    &key("size_bytes"),
                    format!(
                        "a confined flow's offset_bytes and size_bytes must be multiples of the page ({page} bytes)"
                    ),
                ));
            }
            for (j, g) in flows[..k].iter().enumerate().filter(|(_, g)| g.is_partitioned()) {
                let overlap = f.offset_bytes < g.offset_bytes.saturating_add(g.size_bytes)
                    && g.offset_bytes < f.offset_bytes.saturating_add(f.size_bytes);
                if overlap {
                    errors.push(err(
                        &key("offset_bytes"),
                        format!("its logical range overlaps flows[{j}]'s: confined flows need ranges of their own"),
                    ));
                }
            }
        }
    }
    if let Some(logical_bytes) = logical_bytes.filter(|_| errors.is_empty()) {
        confined_flows_fit(flows, geometry, logical_bytes, errors);
    }
    for (weight, key) in [
        (arbitration.weight_high, "arbitration.weight_high"),
        (arbitration.weight_medium, "arbitration.weight_medium"),
        (arbitration.weight_low, "arbitration.weight_low"),
    ] {
        if !(1..=256).contains(&weight) {
            errors.push(err(key, "must be between 1 and 256"));
        }
    }
}

/// The planes a flow confined to part of the drive may use (as ids of the whole drive).
fn confined_planes(f: &Flow, geometry: &super::Geometry) -> Vec<u64> {
    let g = geometry;
    let sizes = [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die];
    let lists = [&f.channels, &f.chips, &f.dies, &f.planes];
    let ids: Vec<Vec<u64>> = (0..4)
        .map(|d| match lists[d].is_empty() {
            true => (0..sizes[d] as u64).collect(),
            false => lists[d].iter().map(|&id| id as u64).collect(),
        })
        .collect();
    let mut planes = vec![0u64];
    for d in 0..4 {
        planes = planes.iter().flat_map(|&p| ids[d].iter().map(move |&id| p * sizes[d] as u64 + id)).collect();
    }
    planes.sort_unstable();
    planes
}

/// MQSim's address partitioning (`Logical_Address_Partitioning_Unit`): each plane's share
/// of `logical_bytes` is split equally among the flows that use the plane, and a flow's
/// range is the sum of its shares, in whole pages. `lists` holds each flow's channels,
/// chips, dies and planes (empty = all). The MQSim import sizes its flows so, and the
/// swarm draws confined flows so.
pub fn partitioned_sizes(lists: &[[&[u32]; 4]], geometry: &super::Geometry, logical_bytes: u64) -> Vec<u64> {
    let g = geometry;
    let sizes = [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die];
    let uses = |l: &[&[u32]; 4], at: [u32; 4]| (0..4).all(|d| l[d].is_empty() || l[d].contains(&at[d]));
    // Every plane as (channel, chip, die, plane).
    let planes: Vec<[u32; 4]> = (0..sizes.iter().product::<u32>())
        .map(|mut i| {
            let mut at = [0; 4];
            for d in (0..4).rev() {
                at[d] = i % sizes[d];
                i /= sizes[d];
            }
            at
        })
        .collect();
    let page = u64::from(g.page_size_bytes).max(1);
    let per_plane = logical_bytes as f64 / planes.len().max(1) as f64;
    let sharing: Vec<usize> = planes.iter().map(|&at| lists.iter().filter(|l| uses(l, at)).count()).collect();
    lists
        .iter()
        .map(|l| {
            let bytes: f64 =
                planes.iter().zip(&sharing).filter(|(&at, _)| uses(l, at)).map(|(_, &n)| per_plane / n as f64).sum();
            (bytes / page as f64).floor() as u64 * page
        })
        .collect()
}

/// Confined flows may not hold more logical pages than their planes' share of the
/// logical capacity: the flows confined to a set of planes (a flow's own and any within
/// it) together at most those planes' share. A plane stores only its own flash, so flows
/// that outgrow their planes fill them with valid data until GC can free nothing (swarm
/// seed 1000861: two flows of a third of the drive each on one plane of two). MQSim
/// sizes its flows so (`Logical_Address_Partitioning_Unit`: a flow gets each of its
/// planes' capacity divided by the flows using the plane; the MQSim import does the
/// same), as NVMe refuses a namespace larger than its NVM set's unallocated capacity.
fn confined_flows_fit(flows: &[Flow], geometry: &super::Geometry, logical_bytes: u64, errors: &mut Vec<ConfigError>) {
    let g = geometry;
    let all = g.channels as u128 * g.chips_per_channel as u128 * g.dies_per_chip as u128 * g.planes_per_die as u128;
    let sets: Vec<Option<Vec<u64>>> =
        flows.iter().map(|f| f.is_partitioned().then(|| confined_planes(f, geometry))).collect();
    // (Flows on the same planes are reported once.)
    let mut reported: Vec<Vec<usize>> = Vec::new();
    for (k, own) in sets.iter().enumerate() {
        let Some(own) = own else { continue };
        let within: Vec<usize> = (0..flows.len())
            .filter(|&j| sets[j].as_ref().is_some_and(|s| s.iter().all(|p| own.binary_search(p).is_ok())))
            .collect();
        let held: u128 = within.iter().map(|&j| flows[j].size_bytes as u128).sum();
        // held / logical_bytes > own / all, without rounding.
        if held * all > logical_bytes as u128 * own.len() as u128 && !reported.contains(&within) {
            let others: Vec<String> = within.iter().filter(|&&j| j != k).map(|j| format!("flows[{j}]")).collect();
            let with = if others.is_empty() { String::new() } else { format!(" with {}", others.join(", ")) };
            errors.push(err(
                &format!("flows[{k}].size_bytes"),
                format!(
                    "its {}/{all} planes' share of the logical capacity is {} bytes, but the flows confined to \
                     them{with} take {held}: a plane stores no more than its share (MQSim sizes its flows so: each \
                     plane's share divided by the flows using it)",
                    own.len(),
                    logical_bytes as u128 * own.len() as u128 / all
                ),
            ));
            reported.push(within);
        }
    }
}
