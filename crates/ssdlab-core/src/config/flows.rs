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

pub(crate) fn validate(flows: &[Flow], arbitration: &Arbitration, errors: &mut Vec<ConfigError>) {
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
