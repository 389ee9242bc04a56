//! Several host flows (issue 19, `[[flows]]`): each flow keeps its own queue depth, its
//! requests are counted apart, and the dies choose among the flows' transactions by the
//! arbitration scheme. One die, page reads of R each: the orders are written down.

use super::*;
use ssdlab_core::config::{ArbitrationScheme, Flow, FlowPriority};
use ssdlab_core::stats::FlowSummary;

/// A page read: 50 us sense, then 4 KiB at 0.01 ns/B.
const R: f64 = 50_041.0;

fn reads(first_page: u64, count: u64) -> Vec<Record> {
    (0..count).map(|k| rec(0, Op::Read, first_page + k, 1, 4096)).collect()
}

/// Runs the config's two flows on these records, with invariant checks and verification.
fn run_two(mut c: Config, ra: Vec<Record>, rb: Vec<Record>) -> Report {
    let all: Vec<Record> = ra.iter().chain(rb.iter()).cloned().collect();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(all.clone())) as Box<dyn RecordSource>));
    let sources: Vec<Box<dyn RecordSource>> = vec![Box::new(VecSource::new(ra)), Box::new(VecSource::new(rb))];
    c.output.check_every = 1;
    let mut sim = Simulator::new_with_flows(c, factory, sources, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.run_to_end().expect("run succeeds").0
}

/// Two closed-loop read flows of 20 requests at queue depth 2 on one die.
fn two_flows(scheme: ArbitrationScheme, a: FlowPriority, b: FlowPriority) -> Vec<FlowSummary> {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.5;
    c.arbitration.scheme = scheme;
    c.flows = [("a", a), ("b", b)]
        .iter()
        .map(|&(name, priority)| Flow {
            name: name.into(),
            trace: "in memory".into(),
            queue_depth: 2,
            priority,
            ..Flow::default()
        })
        .collect();
    let report = run_two(c, reads(0, 20), reads(100, 20));
    assert_eq!(report.all.requests, 40);
    report.flows
}

fn mean_reads(f: &FlowSummary) -> f64 {
    assert_eq!(f.read.requests, 20, "{}", f.name);
    f.read.latency_ns.mean / R
}

#[test]
fn round_robin_alternates_the_flows() {
    let flows = two_flows(ArbitrationScheme::RoundRobin, FlowPriority::High, FlowPriority::High);
    // A1, B1, A2, B2, then each request waits for the other three: 4 R.
    assert!((mean_reads(&flows[0]) - (1.0 + 3.0 + 18.0 * 4.0) / 20.0).abs() < 1e-6);
    assert!((mean_reads(&flows[1]) - (2.0 + 4.0 + 18.0 * 4.0) / 20.0).abs() < 1e-6);
    // Round robin ignores the classes: an urgent flow takes its turn like any other.
    let classes = two_flows(ArbitrationScheme::RoundRobin, FlowPriority::Urgent, FlowPriority::Low);
    assert_eq!((mean_reads(&classes[0]), mean_reads(&classes[1])), (mean_reads(&flows[0]), mean_reads(&flows[1])));
}

#[test]
fn an_urgent_flow_goes_first_and_a_low_one_waits_for_it() {
    let flows = two_flows(ArbitrationScheme::Weighted, FlowPriority::Urgent, FlowPriority::Low);
    // A always has a read queued: all of A (R, then 2 R each), then all of B (B1 at 21 R,
    // B2 at 22 R, then 2 R each).
    assert!((mean_reads(&flows[0]) - (1.0 + 19.0 * 2.0) / 20.0).abs() < 1e-6);
    assert!((mean_reads(&flows[1]) - (21.0 + 22.0 + 18.0 * 2.0) / 20.0).abs() < 1e-6);
    assert_eq!((flows[0].priority.as_str(), flows[1].priority.as_str()), ("urgent", "low"));
}

#[test]
fn weights_share_the_die_between_classes() {
    // High (weight 4) against low (weight 1): while both have reads queued, four of the
    // high flow's for each of the low flow's, so the low flow waits at most about two
    // turns of five; against an urgent flow it waits for all of it (B2 done at 22 R).
    let flows = two_flows(ArbitrationScheme::Weighted, FlowPriority::High, FlowPriority::Low);
    let urgent = two_flows(ArbitrationScheme::Weighted, FlowPriority::Urgent, FlowPriority::Low);
    let worst = |f: &FlowSummary| f.read.latency_ns.max as f64 / R;
    assert!((worst(&urgent[1]) - 22.0).abs() < 1e-6);
    assert!(worst(&flows[1]) <= 11.0 + 1e-6, "low flow waited {} R", worst(&flows[1]));
    assert!(mean_reads(&flows[0]) < mean_reads(&flows[1]));
    assert!(flows[0].last_completion_ns < flows[1].last_completion_ns);
}

#[test]
fn flows_are_refused_where_they_are_not_modelled() {
    let mut c = tiny(1, 1, 1, 1);
    c.flows = vec![Flow::default()];
    c.host.runs = 2;
    let errors = c.validate().expect_err("refused");
    assert!(errors.iter().any(|e| e.key == "flows[0].trace"), "{errors:?}");
    assert!(errors.iter().any(|e| e.key == "host.runs"), "{errors:?}");
}

/// The latest write completion of each of two flows that write 8 pages each at time 0 on
/// a drive of two dies, each flow confined to the dies given (MQSim's `Die_IDs`), in 500-us
/// programs. Each flow's records wrap within its 64-page range, placed after its offset.
fn confined_flows(a: Vec<u32>, b: Vec<u32>) -> (f64, f64) {
    let page = 4096;
    let mut c = tiny(1, 1, 2, 1);
    slc_like(&mut c);
    c.flows = [("a", a, 0u64), ("b", b, 64)]
        .into_iter()
        .map(|(name, dies, first)| Flow {
            name: name.into(),
            trace: "in memory".into(),
            offset_bytes: first * page,
            size_bytes: 64 * page,
            dies,
            ..Flow::default()
        })
        .collect();
    // Pages 64.. of each flow's own numbering wrap to 0..8 of its range.
    let (ra, rb): (Vec<Record>, Vec<Record>) = (
        (0..8).map(|k| rec(0, Op::Write, 64 + k, 1, page)).collect(),
        (0..8).map(|k| rec(0, Op::Write, k, 1, page)).collect(),
    );
    let report = run_two(c, ra, rb);
    let programs = |f: &FlowSummary| f.write.latency_ns.max as f64 / 500_000.0;
    (programs(&report.flows[0]), programs(&report.flows[1]))
}

#[test]
fn confined_flows_write_only_on_their_dies() {
    // Each on its own die: 8 programs in a row each, in parallel.
    let (a, b) = confined_flows(vec![1], vec![0]);
    assert!((a - 8.0).abs() < 0.01 && (b - 8.0).abs() < 0.01, "{a} {b}");
    // Both on die 1: 16 programs in a row there (die 0 idle).
    let (a, b) = confined_flows(vec![1], vec![1]);
    assert!((a.max(b) - 16.0).abs() < 0.01, "{a} {b}");
    // Unconfined, striped over both dies: 16 programs on two dies.
    let (a, b) = confined_flows(vec![], vec![]);
    assert!((a.max(b) - 8.0).abs() < 0.01, "{a} {b}");
}

#[test]
fn confined_flows_are_checked() {
    let mut c = tiny(1, 1, 2, 1);
    c.flows = vec![Flow { trace: "t".into(), dies: vec![2], ..Flow::default() }];
    let e = c.validate().unwrap_err().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
    assert!(e.contains("flows[0].dies: 2 does not exist") && e.contains("needs its logical range"), "{e}");
    c.flows = vec![
        Flow { trace: "t".into(), dies: vec![0], size_bytes: 8192, ..Flow::default() },
        Flow { trace: "t".into(), planes: vec![0], offset_bytes: 4096, size_bytes: 8192, ..Flow::default() },
    ];
    let e = c.validate().unwrap_err().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
    assert!(e.contains("flows[1].offset_bytes") && e.contains("overlaps flows[0]"), "{e}");
    c.flows = vec![Flow { synthetic: Some(Default::default()), runs: 2, time_unit: "s".into(), ..Flow::default() }];
    let e = c.validate().unwrap_err().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
    assert!(e.contains("flows[0].runs: applies to a trace flow only") && e.contains("flows[0].time_unit"), "{e}");
}

/// Swarm seed 1000861: three flows of a third of the logical space each, two of them on
/// one plane of two, asked that plane to hold two thirds of the data; it filled with
/// valid data until GC freed almost nothing. Confined flows must fit their planes' share
/// of the logical capacity, as MQSim sizes them (a plane's share divided by the flows
/// using it: a quarter, a half and a quarter here).
#[test]
fn confined_flows_must_fit_their_planes_share() {
    let mut c = tiny(1, 1, 1, 2);
    let page = 4096;
    let logical = c.logical_bytes() / page;
    let flows = |sizes: [u64; 3]| {
        let mut offset = 0;
        sizes
            .iter()
            .zip([0u32, 1, 0])
            .map(|(&pages, plane)| {
                let f = Flow {
                    trace: "t".into(),
                    planes: vec![plane],
                    offset_bytes: offset * page,
                    size_bytes: pages * page,
                    ..Flow::default()
                };
                offset += pages;
                f
            })
            .collect::<Vec<_>>()
    };
    c.flows = flows([logical / 3; 3]);
    let e = c.validate().unwrap_err().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
    assert!(e.contains("flows[0].size_bytes") && e.contains("with flows[2]") && e.contains("1/2"), "{e}");
    assert!(!e.contains("flows[2].size_bytes") && !e.contains("flows[1]"), "reported once: {e}");
    c.flows = flows([logical / 4, logical / 2, logical / 4]);
    c.validate().unwrap();
    // One flow alone beyond its plane's half.
    c.flows = flows([logical / 2 + 1, 1, 1]);
    let e = c.validate().unwrap_err().iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
    assert!(e.contains("flows[0].size_bytes") && e.contains("with flows[2]"), "{e}");
    c.flows = flows([logical / 2 - 1, 1, 1]);
    c.validate().unwrap();
}
