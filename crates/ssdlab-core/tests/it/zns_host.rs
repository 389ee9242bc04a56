//! The host-side log-structured layer on a zoned drive (`designs/zns/host_layer.rs`,
//! docs/zns-fdp.md): sequential application writes never move data (host WAF 1.000),
//! uniform random overwrites cost what Desnoyers' greedy model says at the layer's spare
//! factor, and on the simulated drive every command the layer sends is accepted and every
//! acknowledged write reads back (`--verify`), with no device GC (device WAF 1.000).

use super::*;
use ssdlab_core::designs::zns::config::{HostLayer, Layout, ZnsConfig};
use ssdlab_core::designs::zns::host_layer::{HostLayerStats, LogLayer, LogSource};
use ssdlab_core::designs::zns::Zns;
use ssdlab_core::theory;
use std::sync::{Arc, Mutex};

const PAGE: u64 = 4096;

/// A layer over `zones` zones of `capacity` pages (no drive behind it: its host WAF
/// depends only on the records it is given).
fn layer(zones: u32, capacity: u32, spare: f64, free: u32) -> Arc<Mutex<LogLayer>> {
    let z = ZnsConfig {
        enabled: true,
        host_layer: HostLayer::Log,
        host_spare_fraction: spare,
        host_gc_free_zones: free,
        ..ZnsConfig::default()
    };
    let layout = Layout {
        zone_dies: 1,
        planes_per_die: 1,
        groups: 1,
        zone_pages: capacity,
        capacity_pages: capacity,
        zones,
        page_bytes: PAGE,
        blocks_per_plane: zones + 2,
        slc_zones: 0,
        slc_capacity_pages: 0,
        slc_block_pages: 0,
        conventional_zones: 0,
        conventional_blocks: 2,
        dies: 1,
    };
    Arc::new(Mutex::new(LogLayer::new(&Config::default(), &z, &layout).expect("a log layer")))
}

/// Feeds `records` through the layer; returns its counters after.
fn feed(layer: &Arc<Mutex<LogLayer>>, records: Vec<Record>) -> HostLayerStats {
    let source = LogSource::new(Box::new(VecSource::new(records)), layer.clone());
    for r in source {
        r.expect("accepted");
    }
    let stats = layer.lock().unwrap().stats.clone();
    stats
}

/// Uniform random single-page overwrites of a full logical space on 512 zones of 64
/// pages (the shape of `theory.rs`'s block-drive test), at three spare fractions: after
/// three logical capacities of warm-up, over three more, the host WAF against
/// Desnoyers' greedy model (Eq. 12) at the layer's spare factor.
///
/// The spare factor is the model's `(T − U)/T` with `T` the pages holding data between
/// application writes: GC runs before a write while `E` zones are empty and stops at
/// `E + 1`, so `E + 1` zones are always empty, and the two open zones (application, GC)
/// hold `(C − 1)/2` unwritten pages each on average: `T = Z·C − (E + 1)·C − (C − 1)`,
/// exactly as for a block drive's planes (tests/it/theory.rs, `effective_spare_factor`).
/// Tolerance: 3 % of WAF − 1, for the same reasons as there (the GC zone's fill ±½
/// zone, 512 zones against the model's many-blocks limit, one seed's noise); the layer
/// must also lie closer to greedy's model than to FIFO's.
#[test]
fn random_overwrites_cost_what_the_greedy_model_says_at_the_layers_spare_factor() {
    let (zones, capacity, free) = (512u32, 64u32, 2u32);
    for (spare, seed) in [(0.1, 21), (0.2, 22), (0.3, 23)] {
        let l = layer(zones, capacity, spare, free);
        let u = l.lock().unwrap().capacity_bytes() / PAGE;
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut random = |n: u64| (0..n).map(|_| rec(0, Op::Write, rng.random_range(0..u), 1, PAGE)).collect();
        feed(&l, (0..u).map(|p| rec(0, Op::Write, p, 1, PAGE)).collect());
        let before = feed(&l, random(3 * u));
        let after = feed(&l, random(3 * u));
        let app = after.app_pages_written - before.app_pages_written;
        let measured = (after.drive_pages_written - before.drive_pages_written) as f64 / app as f64;
        assert!(after.gc_pages_moved > before.gc_pages_moved, "the window must include host GC");
        let (c, e) = (capacity as f64, free as f64);
        let t = zones as f64 * c - (e + 1.0) * c - (c - 1.0);
        let sf = theory::spare_factor(t, u as f64);
        let greedy = theory::waf_greedy_uniform(sf, capacity);
        let fifo = theory::waf_fifo_uniform(sf);
        let error = ((measured - 1.0) - (greedy - 1.0)).abs() / (greedy - 1.0);
        eprintln!("spare {spare}: Sf {sf:.4}, host WAF {measured:.4}, greedy {greedy:.4}, FIFO {fifo:.4}");
        assert!(
            error < 0.03,
            "spare {spare} (Sf {sf:.4}): host WAF {measured:.4}, greedy model {greedy:.4} ({:.2} % of WAF − 1)",
            error * 100.0
        );
        assert!((measured - greedy).abs() < (measured - fifo).abs(), "{measured} nearer FIFO's {fifo} than {greedy}");
        let (held, mapped) = l.lock().unwrap().occupancy();
        assert_eq!(mapped, u, "every application page holds data");
        assert!(held as f64 >= t - c && held as f64 <= t + c, "{held} pages hold data, the model says {t}");
        l.lock().unwrap().check().unwrap();
    }
}

/// One die, one plane, 34 blocks of 16 SLC pages: 32 zones of one block; the layer keeps
/// a quarter spare (384 application pages) and GC at 2 empty zones.
fn drive() -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 34;
    c.geometry.pages_per_block = 16;
    c.ftl.over_provisioning = 0.0;
    c.flash.erase_latency_ns = 2_000_000;
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 8;
    c.output.check_every = 17;
    let section = "enabled = true\nhost_layer = \"log\"\nhost_spare_fraction = 0.25\nmax_open_zones = 4";
    c.designs.insert("zns".into(), toml::from_str(section).expect("a table"));
    c
}

fn run_checked(c: &Config, records: Vec<Record>) -> (Report, Simulator<'static>) {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(c.clone(), factory, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(20_000_000);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    (report, sim)
}

fn host_section(report: &Report) -> &serde_json::Value {
    &report.get_section("zns").expect("a zns section")["host_layer"]
}

#[test]
fn sequential_application_writes_on_the_drive_never_move_data() {
    let c = drive();
    let u = 384;
    // Four passes of 4-page writes over the whole application space, then a read of each page.
    let mut records: Vec<Record> = (0..4).flat_map(|_| (0..u / 4).map(|k| rec(0, Op::Write, 4 * k, 4, PAGE))).collect();
    records.extend((0..u).map(|p| rec(0, Op::Read, p, 1, PAGE)));
    let (report, sim) = run_checked(&c, records);
    let h = host_section(&report);
    assert_eq!(h["capacity_bytes"], u * PAGE);
    assert_eq!(h["host_waf"], 1.0);
    assert_eq!(h["device_waf"], 1.0);
    assert_eq!(h["gc_pages_moved"], 0);
    assert_eq!(h["unmapped_pages_read"], 0);
    let stats = sim.design::<Zns>().host_layer_stats().expect("the layer");
    assert!(stats.resets >= 4 * u / 16 - 32, "{} resets", stats.resets);
    let zns = report.get_section("zns").unwrap();
    assert_eq!(zns["resets"], stats.resets, "every reset the layer sent was done");
    assert_eq!(zns["rejected"], 0, "the drive accepted every command");
    assert_eq!(report.gc.victims, 0);
    sim.design::<Zns>().check_host_layer().unwrap();
}

#[test]
fn random_overwrites_with_reads_on_the_drive_read_back_and_count_both_wafs() {
    let c = drive();
    let u = 384;
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut records: Vec<Record> = (0..u).map(|p| rec(0, Op::Write, p, 1, PAGE)).collect();
    for _ in 0..6 * u {
        let op = if rng.random_bool(0.3) { Op::Read } else { Op::Write };
        let pages = rng.random_range(1..4);
        records.push(rec(0, op, rng.random_range(0..u - pages), pages, PAGE));
    }
    // Trims leave holes; reads of them are the host's (no drive command).
    records.push(rec(0, Op::Trim, 0, 8, PAGE));
    records.push(rec(0, Op::Read, 0, 8, PAGE));
    let (report, sim) = run_checked(&c, records);
    let h = host_section(&report);
    let stats = sim.design::<Zns>().host_layer_stats().expect("the layer");
    let host_waf = h["host_waf"].as_f64().unwrap();
    assert!(host_waf > 1.2, "random overwrites at a quarter spare move data: {host_waf}");
    assert_eq!(host_waf, stats.drive_pages_written as f64 / stats.app_pages_written as f64);
    assert_eq!(h["device_waf"], 1.0, "no device GC on a zoned drive");
    assert_eq!(report.write.requests, stats.drive_writes, "the drive saw exactly the layer's writes");
    assert_eq!(report.read.requests, stats.drive_reads);
    assert_eq!(h["unmapped_pages_read"], 8);
    let zns = report.get_section("zns").unwrap();
    assert_eq!((zns["rejected"].as_u64(), zns["resets"].as_u64()), (Some(0), Some(stats.resets)));
    sim.design::<Zns>().check_host_layer().unwrap();
}

#[test]
fn a_spare_too_small_for_the_gc_threshold_is_refused() {
    let mut c = drive();
    // 32 zones: GC at 2 empty plus two open zones need more than 4 zones of spare.
    for (extra, field) in [
        ("host_spare_fraction = 0.12", "designs.zns.host_spare_fraction"),
        ("host_spare_fraction = 0.0", "designs.zns.host_spare_fraction"),
        ("host_gc_free_zones = 0", "designs.zns.host_gc_free_zones"),
        ("max_open_zones = 1", "designs.zns.max_open_zones"),
    ] {
        let section = format!("enabled = true\nhost_layer = \"log\"\n{extra}");
        c.designs.insert("zns".into(), toml::from_str(&section).expect("a table"));
        let errors = c.validate().expect_err(extra);
        assert!(errors.iter().any(|e| e.key == field), "{extra}: {errors:?}");
    }
}

/// The swarm draws zoned drives of both kinds (block records through the host layer, and
/// zone-native workloads), the host layer never with power losses (which it does not
/// survive), some with SLC-mode zones; a few of each run clean with the swarm's checks and
/// `--verify`, power losses included.
#[test]
fn the_swarm_draws_zoned_drives_of_both_kinds_and_they_run_clean() {
    let (mut layered, mut native, mut lossy, mut slc) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for seed in 0..900 {
        let case = ssdlab_core::swarm::case(seed);
        let Some(z) = case.config.designs.get("zns") else { continue };
        slc += usize::from(z.get("slc_zones").and_then(|v| v.as_integer()).unwrap_or(0) > 0);
        let log = z.get("host_layer").and_then(|v| v.as_str()) == Some("log");
        if !case.config.power.loss_at_ns.is_empty() {
            assert!(!log, "seed {seed}: the host layer with power losses");
            lossy.push(case);
            continue;
        }
        if log {
            layered.push(case);
        } else {
            assert!(case.records.iter().any(|r| r.op != Op::Read), "seed {seed}: a zone-native workload writes");
            native.push(case);
        }
    }
    assert!(layered.len() >= 5 && native.len() >= 5, "{} layered, {} native of 900", layered.len(), native.len());
    assert!(lossy.len() >= 3 && slc >= 3, "{} with power losses, {slc} with SLC zones of 900", lossy.len());
    for case in layered.iter().take(3).chain(native.iter().take(3)).chain(lossy.iter().take(3)) {
        let report = ssdlab_core::swarm::run_case(case).unwrap_or_else(|e| panic!("seed {}: {e}", case.seed));
        let zns = report.get_section("zns").expect("a zns section");
        assert_eq!(zns["host_layer"].is_object(), layered.iter().any(|c| c.seed == case.seed), "seed {}", case.seed);
    }
}
