//! MQSim's host and scheduler rules (issue 47): oldest-first arbitration (MQSim's
//! `TSU_OutOfOrder`: one queue per chip shared by the flows), a stop in simulated time
//! (`Stop_Time`), flows stopping together, and the device's per-queue fetch limit
//! (`Queue_Fetch_Size`). One die, page reads of R each: the orders follow from the rules.

use super::*;
use ssdlab_core::config::{ArbitrationScheme, Flow, FlowsEnd};
use ssdlab_core::stats::FlowSummary;

/// A page read: 50 us sense, then 4 KiB at 0.01 ns/B.
const R: u64 = 50_041;

fn reads(first_page: u64, count: u64) -> Vec<Record> {
    (0..count).map(|k| rec(0, Op::Read, first_page + k % 50, 1, 4096)).collect()
}

/// Two closed-loop read flows on one die, at queue depths `qd`, with 400 records each.
fn two_flows(scheme: ArbitrationScheme, qd: [u32; 2], tune: impl Fn(&mut Config)) -> Vec<FlowSummary> {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.5;
    c.arbitration.scheme = scheme;
    c.flows = (0..2)
        .map(|k| Flow { name: format!("f{k}"), trace: "in memory".into(), queue_depth: qd[k], ..Flow::default() })
        .collect();
    tune(&mut c);
    let (ra, rb) = (reads(0, 400), reads(100, 400));
    let all: Vec<Record> = ra.iter().chain(rb.iter()).cloned().collect();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(all.clone())) as Box<dyn RecordSource>));
    let sources: Vec<Box<dyn RecordSource>> = vec![Box::new(VecSource::new(ra)), Box::new(VecSource::new(rb))];
    c.output.check_every = 1;
    let mut sim = Simulator::new_with_flows(c, factory, sources, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.run_to_end().expect("run succeeds").0.flows
}

fn mean_r(f: &FlowSummary) -> f64 {
    f.read.latency_ns.mean / R as f64
}

/// Both flows stop at 200 R: requests submitted up to then (one per R once the die is
/// busy, 4 at the start) complete, and nothing after.
fn stop_at_200r(c: &mut Config) {
    for f in &mut c.flows {
        f.stop_ns = 200 * R;
    }
}

#[test]
fn oldest_first_serves_the_flows_in_queueing_order() {
    // Queue depths 1 and 3: four reads always queued, served in the order queued, so each
    // waits for the three ahead of it (4 R) and the deep flow gets three reads of every four.
    let flows = two_flows(ArbitrationScheme::OldestFirst, [1, 3], stop_at_200r);
    let (a, b) = (&flows[0], &flows[1]);
    assert_eq!(a.read.requests + b.read.requests, 204, "4 at the start and one per completion up to 200 R");
    assert!((50..=52).contains(&a.read.requests), "{}", a.read.requests);
    // The first reads wait less (1, 2, 3, 4 R), every other one 4 R.
    assert!(mean_r(a) > 3.9 && mean_r(a) <= 4.0 + 1e-9, "{}", mean_r(a));
    assert!(mean_r(b) > 3.9 && mean_r(b) <= 4.0 + 1e-9, "{}", mean_r(b));
    // Round robin alternates instead: the shallow flow waits only for one of the other's.
    let rr = two_flows(ArbitrationScheme::RoundRobin, [1, 3], stop_at_200r);
    assert!(mean_r(&rr[0]) < 2.1, "{}", mean_r(&rr[0]));
    assert!(rr[0].read.requests > 95, "{}", rr[0].read.requests);
}

#[test]
fn a_stop_time_ends_each_flow_there_and_the_others_run_on() {
    let flows = two_flows(ArbitrationScheme::OldestFirst, [1, 3], |c| c.flows[1].stop_ns = 100 * R);
    let (a, b) = (&flows[0], &flows[1]);
    // The second flow submits nothing after 100 R; the first runs to its 400 records.
    assert!(b.read.requests < 400, "{}", b.read.requests);
    assert!(b.last_completion_ns <= 104 * R, "{}", b.last_completion_ns as f64 / R as f64);
    assert_eq!(a.read.requests, 400);
    // Alone after the stop, the first flow's reads take R each.
    assert!(a.last_completion_ns > 104 * R + (400 - 30) * R, "{}", a.last_completion_ns as f64 / R as f64);
}

#[test]
fn flows_that_end_together_stop_when_the_first_has_submitted_its_last() {
    let flows = two_flows(ArbitrationScheme::OldestFirst, [1, 3], |c| c.host.flows_end = FlowsEnd::First);
    let (a, b) = (&flows[0], &flows[1]);
    // The deep flow submits its 400th read first (three of every four): the shallow one
    // stops then, with about a third as many.
    assert_eq!(b.read.requests, 400);
    assert!((130..=136).contains(&a.read.requests), "{}", a.read.requests);
    let apart = a.last_completion_ns.abs_diff(b.last_completion_ns);
    assert!(apart <= 4 * R, "the flows end within the last few reads: {apart} ns apart");
}

#[test]
fn the_fetch_limit_keeps_a_deep_queue_from_crowding_out_another() {
    // With one command of each flow in the device at a time the die alternates the two
    // flows: the shallow flow waits for one read of the other (2 R); the deep flow's
    // reads wait in its submission queue too, 6 R in all (3 outstanding at one per 2 R).
    let flows = two_flows(ArbitrationScheme::OldestFirst, [1, 3], |c| {
        stop_at_200r(c);
        c.host.queue_fetch_size = 1;
    });
    let (a, b) = (&flows[0], &flows[1]);
    assert!((mean_r(a) - 2.0).abs() < 0.05, "{}", mean_r(a));
    assert!((mean_r(b) - 6.0).abs() < 0.1, "{}", mean_r(b));
    assert!((a.read.requests as i64 - b.read.requests as i64).abs() <= 3, "{} {}", a.read.requests, b.read.requests);
    // A limit at or above the queue depths changes nothing.
    let wide = two_flows(ArbitrationScheme::OldestFirst, [1, 3], |c| {
        stop_at_200r(c);
        c.host.queue_fetch_size = 3;
    });
    let open = two_flows(ArbitrationScheme::OldestFirst, [1, 3], stop_at_200r);
    assert_eq!(wide, open);
}

#[test]
fn a_stop_time_ends_the_single_workload() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.5;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 2;
    c.host.stop_ns = 10 * R;
    // Two at 0, then one per R up to 10 R: 12 reads.
    let closed = run(&c, reads(0, 400));
    assert_eq!(closed.read.requests, 12);
    // Open loop: the records arriving up to the stop (every R/2 from 0 to 10 R: 21).
    c.host.replay = ReplayMode::OpenLoop;
    c.host.queue_depth = 0;
    let timed: Vec<Record> = (0..400).map(|k| rec(k * R / 2, Op::Read, k % 50, 1, 4096)).collect();
    let open = run(&c, timed);
    assert_eq!(open.read.requests, 21);
}

#[test]
fn a_free_chip_serves_its_oldest_read_first_under_oldest_first() {
    // One chip-serial chip of two dies; pages 0, 2, 4 on die 0, page 1 on die 1 (static
    // striping). Die 0 gets three reads at 0, 1 and 2 ns, die 1 one at R/2, while die 0
    // reads page 0.
    let mut c = tiny(1, 1, 2, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.5;
    c.ftl.plane_allocation = PlaneAllocation::Static;
    c.flash.die_scheduling = DieScheduling::ChipSerial;
    let records = vec![
        rec(0, Op::Read, 0, 1, 4096),
        rec(1, Op::Read, 2, 1, 4096),
        rec(2, Op::Read, 4, 1, 4096),
        rec(R / 2, Op::Read, 1, 1, 4096),
    ];
    let dies = |c: &Config| -> Vec<u32> {
        super::timing::commands(&super::timing::run_logged(c, records.clone()).log).iter().map(|c| c.3).collect()
    };
    // The dies in turn: die 1's read goes second.
    assert_eq!(dies(&c), [0, 1, 0, 0]);
    // MQSim's chip queue: die 0's reads were queued before die 1's.
    c.arbitration.scheme = ArbitrationScheme::OldestFirst;
    assert_eq!(dies(&c), [0, 0, 0, 1]);
}

/// `flash.issue_on_idle_channel` (MQSim's controller): two chip-serial chips on one channel,
/// closed-loop page reads over both, 50 us sense and 10 us transfer. With the rule a chip
/// gets its next command only when no data is on the channel or waiting, so the chips fall
/// into step and each read costs a sense and two transfers: two reads per 70 us. Without
/// it a chip senses again at once and only transfers wait: about two reads per 60 us.
#[test]
fn commands_on_an_idle_channel_lock_two_chips_in_step() {
    let run_with = |gate: bool| {
        let mut c = tiny(1, 2, 1, 1);
        slc_like(&mut c);
        c.flash.die_scheduling = ssdlab_core::config::DieScheduling::ChipSerial;
        c.flash.transfer_ns_per_byte = 10_000.0 / 4096.0;
        c.flash.issue_on_idle_channel = gate;
        c.precondition.used_fraction = 0.5;
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = 8;
        let records: Vec<Record> = (0..4000u64).map(|k| rec(0, Op::Read, (k * 7) % 40, 1, 4096)).collect();
        let r = run(&c, records);
        r.read.requests as f64 / (r.simulated_ns as f64 / 1000.0)
    };
    let (gated, free) = (run_with(true), run_with(false));
    // Reads per microsecond against the closed forms 2 / 70 and 2 / 60.
    assert!((gated * 70.0 / 2.0 - 1.0).abs() < 0.02, "gated: {:.4} reads/us", gated);
    assert!(free * 60.0 / 2.0 > 0.97, "without the rule: {:.4} reads/us", free);
}
