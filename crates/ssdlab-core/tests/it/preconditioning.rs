//! Preconditioning places everything the run reads before the run starts (issue 25):
//! read-only runs never garbage-collect (an SSDSim-aged drive may reclaim its aged blocks,
//! and says so), QD 1 reads cost exactly sense + transfer (+ the
//! documented overheads), the queue-depth sweep is monotonic, and steady-state
//! preconditioning reaches the analytic greedy write amplification.

use super::*;
use ssdlab_core::presets::{preset, PRESETS};
use ssdlab_core::theory;
use ssdlab_trace::{SyntheticSource, SyntheticSpec};

/// Uniformly random single-page reads over `logical` pages, `gap_ns` apart.
fn random_reads(n: u64, logical: u64, page: u64, gap_ns: u64, seed: u64) -> Vec<Record> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n).map(|i| rec(i * gap_ns, Op::Read, rng.random_range(0..logical), 1, page)).collect()
}

fn assert_no_flash_writes(report: &Report, what: &str) {
    assert_eq!(report.gc.victims, 0, "{what}: GC victims in a read-only run");
    assert_eq!(report.gc.moved_pages, 0, "{what}: GC moves in a read-only run");
    assert_eq!(report.gc.erases, 0, "{what}: erases in a read-only run");
    assert_eq!(report.flash.user_page_programs + report.flash.gc_page_programs, 0, "{what}: programs");
    assert_eq!(report.host.unwritten_reads, 0, "{what}: every read finds its page placed");
    assert!(report.warnings.is_empty(), "{what}: {:?}", report.warnings);
}

/// The ways a drive can be preconditioned, on top of `base` (aging off: see
/// `aged_drives_reclaim_aged_blocks_and_say_so`).
fn preconditionings(base: &Config) -> Vec<(String, Config)> {
    let mut out = Vec::new();
    for (used, rewrites, steady) in [
        (0.0, true, false),
        (0.5, true, false),
        (0.5, false, false),
        (0.9, true, false),
        (0.5, true, true),
        (0.9, true, true),
    ] {
        let mut c = base.clone();
        c.precondition.aged_invalid_fraction = 0.0;
        c.precondition.used_fraction = used;
        c.precondition.fill_invalid_to_gc_threshold = rewrites;
        c.precondition.steady_state = steady;
        out.push((format!("used {used}, rewrites {rewrites}, steady {steady}"), c));
    }
    out
}

/// Reads over the whole logical space, closed loop (no idle time) and open loop with
/// gaps long enough for idle-time background GC, which must find nothing to do.
fn read_only_runs(name: &str, c: &Config, reads: u64) {
    let logical = c.logical_pages();
    let page = c.geometry.page_size_bytes as u64;
    for (replay, gap) in [(ReplayMode::ClosedLoop, 0), (ReplayMode::OpenLoop, 3_000_000)] {
        let mut c = c.clone();
        c.host.replay = replay;
        c.host.queue_depth = if replay == ReplayMode::ClosedLoop { 8 } else { 0 };
        c.host.unwritten_reads = WhatIfUnwritten::Precondition;
        c.power.loss_at_ns.clear();
        let records = random_reads(reads, logical, page, gap, 7);
        let fits = records.clone();
        let factory = Box::new(move || Ok(Box::new(VecSource::new(fits.clone())) as Box<dyn RecordSource>));
        if let Err(e) = Simulator::new(c.clone(), factory, Observers::default()) {
            // A fill the thresholds cannot hold is refused up front (tested below).
            assert!(e.to_string().contains("does not fit"), "{name}: {e}");
            continue;
        }
        let report = run(&c, records);
        assert_no_flash_writes(&report, &format!("{name}, {replay:?}"));
        assert!(report.start_state.planes_needing_gc == 0, "{name}: {:?}", report.start_state);
    }
}

/// Presets shrunk to a few blocks per plane (the property is about the fill's
/// calibration, not the size), every preconditioning.
#[test]
fn read_only_runs_on_every_preset_do_no_gc_programs_or_erases() {
    for (name, _) in PRESETS {
        let mut base = preset(name).unwrap();
        if base.designs.contains_key("zns") {
            continue; // a zoned drive starts empty: nothing to precondition
        }
        base.geometry.blocks_per_plane = base.geometry.blocks_per_plane.min(96);
        base.geometry.channels = base.geometry.channels.min(2);
        base.ftl.slc_blocks_per_plane = base.ftl.slc_blocks_per_plane.min(6);
        base.hybrid.slc_planes = 0;
        base.output.series_interval_ns = 0;
        if base.validate().is_err() {
            panic!("{name} shrunk does not validate: {:?}", base.validate());
        }
        for (what, c) in preconditionings(&base) {
            read_only_runs(&format!("{name}, {what}"), &c, 600);
        }
    }
}

/// The swarm's random devices (geometry, cell, scheme, policies, thresholds), read only.
#[test]
fn read_only_runs_on_random_devices_do_no_gc_programs_or_erases() {
    for seed in 0..40 {
        let mut c = ssdlab_core::swarm::case(seed).config;
        // (A zoned drive starts empty: nothing to precondition.)
        c.designs.remove("zns");
        // The runs below bring their own reads (one workload, not the case's host flows).
        c.flows.clear();
        c.precondition.slc_filled = false;
        c.precondition.aged_invalid_fraction = 0.0;
        c.precondition.steady_state = seed % 3 == 0;
        c.host.runs = 1;
        read_only_runs(&format!("swarm seed {seed}"), &c, 400);
    }
}

/// PA-SSD's SSDSim-style aging leaves planes at their GC threshold with blocks holding
/// only invalid data: GC may erase them in idle time even without writes. That is the
/// model; it never moves data or programs, and the report says why.
#[test]
fn aged_drives_reclaim_aged_blocks_and_say_so() {
    let mut c = preset("pa-ssd-tlc").unwrap();
    c.geometry.blocks_per_plane = 48;
    c.geometry.channels = 2;
    c.host.replay = ReplayMode::OpenLoop;
    c.host.queue_depth = 0;
    c.output.series_interval_ns = 0;
    // SSDSim's one-victim-per-block GC owes nothing without writes; restoring the
    // threshold in idle time reclaims the aged blocks.
    c.ftl.gc_background = BackgroundGc::UntilAboveThreshold;
    // Counting free blocks the aged planes sit exactly at the threshold; counting pages
    // (the preset's SSDSim rule) the room left in the open blocks keeps them just above.
    c.ftl.gc_free_space = GcFreeSpace::Blocks;
    let records = random_reads(400, c.logical_pages(), c.geometry.page_size_bytes as u64, 3_000_000, 3);
    let report = run(&c, records);
    assert_eq!(report.gc.moved_pages, 0);
    assert_eq!(report.flash.user_page_programs + report.flash.gc_page_programs, 0);
    assert!(report.start_state.notes.iter().any(|n| n.contains("aging model")), "{:?}", report.start_state);
    assert!(report.gc.erases > 0, "the aged blocks are reclaimed in idle time (the test must see it)");
    assert!(
        report.warnings.iter().any(|w| w.contains("aged SSDSim-style")),
        "a read-only run with GC must warn: {:?}",
        report.warnings
    );
}

/// QD 1, fully preconditioned, random reads: every read is alone on its die and channel,
/// so its latency is the sense of its page's type + the page's transfer + ECC decoding +
/// the host overhead, exactly; the mean over the run is the mean of those.
#[test]
fn qd1_reads_cost_exactly_sense_plus_transfer_plus_overheads() {
    let mut c = tiny(2, 2, 1, 2);
    c.flash.transfer_ns_per_byte = 2.5;
    c.flash.ecc_decode_ns = 7_000;
    c.host.request_overhead_ns = 3_000;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.precondition.used_fraction = 1.0;
    let page = 4096u64;
    let records = random_reads(3_000, c.logical_pages(), page, 0, 11);
    let lpns: Vec<u32> = records.iter().map(|r| (r.offset_bytes / page) as u32).collect();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let sim = Simulator::new(c.clone(), factory, Observers::default()).unwrap();
    let fixed = (page as f64 * 2.5) as u64 + 7_000 + 3_000;
    let expected: Vec<u64> = lpns
        .iter()
        .map(|&lpn| {
            let ppn = sim.ftl.lookup(lpn).expect("placed by preconditioning");
            c.flash.read_latency_ns[sim.ftl.page_type(ppn) as usize] + fixed
        })
        .collect();
    let report = sim.run().unwrap().0;
    assert_no_flash_writes(&report, "qd1");
    let mean = expected.iter().sum::<u64>() as f64 / expected.len() as f64;
    assert!(
        (report.read.latency_ns.mean - mean).abs() < 1e-6,
        "mean read {} ns, sense + transfer + decode + overhead = {mean} ns",
        report.read.latency_ns.mean
    );
    assert_eq!(report.read.latency_ns.max, *expected.iter().max().unwrap());
}

/// The experiment (MQSim FAST'18 back end: random 4 KiB reads on mqsim-default
/// with 2 chips per channel), on fewer blocks per plane and requests: latency and IOPS
/// both rise with the queue depth. Before the fix GC started by run-time placement made
/// QD 16 slower than QD 32.
#[test]
fn queue_depth_sweep_is_monotonic() {
    let mut c = preset("mqsim-default").unwrap();
    c.geometry.chips_per_channel = 2;
    c.geometry.blocks_per_plane = 64;
    let spec = SyntheticSpec { count: 12_000, read_fraction: 1.0, block_size_bytes: 4096, ..SyntheticSpec::default() }
        .resolve_address_space(c.logical_bytes());
    let mut last: Option<(f64, f64)> = None;
    for qd in [1, 2, 4, 8, 16, 32, 64] {
        let mut c = c.clone();
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = qd;
        let spec = spec.clone();
        let factory =
            Box::new(move || Ok(Box::new(SyntheticSource::new(spec.clone()).unwrap()) as Box<dyn RecordSource>));
        let report = Simulator::new(c, factory, Observers::default()).unwrap().run().unwrap().0;
        assert_no_flash_writes(&report, &format!("QD {qd}"));
        let now = (report.read.latency_ns.mean, report.read.iops);
        if let Some((latency, iops)) = last {
            assert!(now.0 >= latency, "QD {qd}: mean latency {} ns below the previous depth's {latency}", now.0);
            assert!(now.1 >= iops, "QD {qd}: {} IOPS below the previous depth's {iops}", now.1);
        }
        last = Some(now);
    }
}

/// Uniform random single-page writes over a full drive with greedy GC: at the end of
/// steady-state preconditioning the write amplification is the analytic greedy model's
/// (Desnoyers 2012, Eq. 12; `theory::waf_greedy_uniform`, the spare factor as
/// `tests/it/theory.rs` derives it for emergency-only GC), within 3 % of WAF − 1, and the
/// run that follows continues at it.
#[test]
fn steady_state_reaches_the_greedy_model() {
    let (blocks, pages) = (512u32, 64u32);
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = blocks;
    c.geometry.pages_per_block = pages;
    c.ftl.over_provisioning = 0.2;
    c.ftl.gc_victim = VictimPolicy::Greedy;
    c.ftl.gc_background_free_fraction = 0.0;
    c.ftl.gc_emergency_free_fraction = 0.0;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.precondition.used_fraction = 1.0;
    c.precondition.steady_state = true;
    c.precondition.steady_state_round_fraction = 0.5;
    c.precondition.steady_state_max_rounds = 40;
    let logical = c.logical_pages();
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    // The workload's own write stream is what steady state replays, so it must be long
    // enough to look uniform: six logical capacities, twelve rounds before it repeats.
    let records: Vec<Record> =
        (0..6 * logical).map(|_| rec(0, Op::Write, rng.random_range(0..logical), 1, 4096)).collect();
    let mut checked = c.clone();
    checked.output.check_every = 5_000;
    let report = run(&checked, records);
    let steady = report.precondition.steady_state.clone().expect("steady state ran");
    assert!(steady.converged, "no steady state in {} rounds: {:?}", steady.rounds, steady.waf_by_round);
    let window = &steady.waf_by_round[steady.waf_by_round.len() - 5..];
    let measured = window.iter().sum::<f64>() / window.len() as f64;
    // T = B·P − (E + 1)·P − (P − 1) with E = 2 reserve blocks (see tests/it/theory.rs).
    let (b, p) = (blocks as f64, pages as f64);
    let sf = theory::spare_factor(b * p - 3.0 * p - (p - 1.0), logical as f64);
    let model = theory::waf_greedy_uniform(sf, pages);
    let error = ((measured - 1.0) - (model - 1.0)).abs() / (model - 1.0);
    assert!(
        error < 0.03,
        "steady-state WAF {measured:.4} (rounds {:?}) vs greedy model {model:.4}: {:.2} % of WAF − 1",
        steady.waf_by_round,
        error * 100.0
    );
    // The run starts where preconditioning left off: its WAF is the model's too.
    let run_error = ((report.waf - 1.0) - (model - 1.0)).abs() / (model - 1.0);
    assert!(run_error < 0.06, "run WAF {:.4} vs model {model:.4}", report.waf);
    assert!(report.gc.victims > 0, "the run garbage-collects from its first writes");
}

/// A footprint that does not fit above the GC thresholds is refused with the numbers.
#[test]
fn a_footprint_that_does_not_fit_names_needed_and_available_pages() {
    let mut c = tiny(1, 1, 1, 1);
    c.ftl.gc_background_free_fraction = 0.3;
    c.precondition.used_fraction = 0.5;
    let logical = c.logical_pages();
    let records: Vec<Record> = (0..logical).map(|p| rec(0, Op::Read, p, 1, 4096)).collect();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let err = Simulator::new(c, factory, Observers::default()).err().expect("refused").to_string();
    assert!(err.contains(&format!("needs {logical} pages")), "{err}");
    assert!(err.contains("fit above the GC thresholds"), "{err}");
    assert!(err.contains("precondition.used_fraction"), "{err}");
}
