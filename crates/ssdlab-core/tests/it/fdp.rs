//! NVMe Flexible Data Placement (issue 44, `designs/fdp`, docs/zns-fdp.md "FDP"): two
//! handles keep a sequential log and random overwrites apart (the log reclaimed without
//! copying, the random handle at Desnoyers' greedy model for its share of the spare
//! space, the device below the conventional drive), the statistics log adds up, and
//! unknown placement identifiers go to the default handle.

use super::*;
use ssdlab_core::theory;

const PAGE: u64 = 4096;

/// One plane (one cleaning pool) of 512 × 64 SLC-latency pages, emergency-only GC at the
/// smallest reserve (two free blocks), closed loop at queue depth 1: the theory checks'
/// drive (`theory.rs`), here with two persistently isolated handles when `fdp`.
fn plane(fdp: bool) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 512;
    c.geometry.pages_per_block = 64;
    c.ftl.over_provisioning = 0.2;
    c.ftl.gc_victim = VictimPolicy::Greedy;
    c.ftl.gc_background_free_fraction = 0.0;
    c.ftl.gc_emergency_free_fraction = 0.0;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.output.check_every = 5_000;
    if fdp {
        c.ftl.user_write_points = 4;
        let section = "enabled = true\nhandles = [\"persistently\", \"persistently\"]\npid_from = \"device\"\n";
        c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    }
    c
}

fn dev(device: u32, op: Op, page: u64, pages: u64) -> Record {
    Record { device, ..rec(0, op, page, pages, PAGE) }
}

/// The first `seq` logical pages are a sequential log (device 0): written in order, and
/// each 64-page segment deallocated (trimmed) before the log writes it again, as a
/// log-structured store drops its oldest segment. The rest are overwritten at random
/// (device 1). Both are filled first, then one log write per random write, `steps` times.
fn log_and_random(logical: u64, seq: u64, steps: u64, seed: u64) -> Vec<Record> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut out: Vec<Record> = (0..seq).map(|p| dev(0, Op::Write, p, 1)).collect();
    out.extend((seq..logical).map(|p| dev(1, Op::Write, p, 1)));
    let mut at = 0;
    for _ in 0..steps {
        out.push(dev(1, Op::Write, rng.random_range(seq..logical), 1));
        if at % 64 == 0 {
            out.push(dev(0, Op::Trim, at, 64));
        }
        out.push(dev(0, Op::Write, at, 1));
        at = (at + 1) % seq;
    }
    out
}

fn run_long(config: &Config, records: Vec<Record>, checked: bool) -> Report {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(config.clone(), factory, Observers::default()).expect("valid setup");
    sim.set_check(checked);
    sim.set_verify(checked);
    sim.run().expect("run succeeds").0
}

fn handle(report: &Report, k: usize, field: &str) -> u64 {
    report.get_section("fdp").expect("an fdp section")["handles"][k][field].as_u64().expect(field)
}

fn total(report: &Report, field: &str) -> u64 {
    report.get_section("fdp").expect("an fdp section")[field].as_u64().expect(field)
}

/// Issue 44's FDP test. The sequential log's reclaim units are reclaimed without a
/// single GC move (WAF 1.0 exactly); the random handle's steady-state WAF is within 3 % (of
/// WAF − 1) of Desnoyers' greedy model at its share of the spare space; the whole device
/// writes less than the conventional drive given the same requests.
///
/// The random handle's share `T_r` of the pages holding data: the plane's `B·P` pages
/// less the `E + 1 = 3` blocks GC keeps erased between host writes, the unprogrammed
/// halves of the random handle's user and GC write points (`P − 1`, as in `theory.rs`),
/// and the log's `L` pages (its `L / P` blocks: all its segments but the one being
/// rewritten, and that one's open block; the trimmed segment's block is erased without
/// moves at the next GC step).
#[test]
fn two_handles_isolate_a_log_from_random_overwrites() {
    let c = plane(true);
    let logical = c.logical_pages();
    let seq = (logical / 2) / 64 * 64;
    let random = logical - seq;
    let (warm, measured) = (3 * random, 3 * random);
    let before = run_long(&c, log_and_random(logical, seq, warm, 7), false);
    let after = run_long(&c, log_and_random(logical, seq, warm + measured, 7), true);
    // The log: never moved, every page programmed once.
    for r in [&before, &after] {
        assert_eq!(handle(r, 0, "gc_pages_out"), 0, "log pages moved by GC");
        assert_eq!(handle(r, 0, "gc_pages_in"), 0);
        assert_eq!(handle(r, 0, "media_bytes_written"), handle(r, 0, "host_bytes_written"), "log WAF is not 1");
        assert_eq!(total(r, "isolation_fallbacks"), 0);
    }
    assert!(handle(&after, 0, "blocks_erased") > 0, "the log's blocks must be reclaimed in the window");
    let d = |k: usize, f: &str| handle(&after, k, f) - handle(&before, k, f);
    let host = d(1, "host_pages");
    assert_eq!(host, measured, "one program per random write");
    let media = d(1, "media_bytes_written") / PAGE;
    assert!(d(1, "gc_pages_in") > 0, "the window must include cleaning");
    let waf_random = media as f64 / host as f64;
    let (b, p) = (512.0, 64.0);
    let t_r = b * p - 3.0 * p - (p - 1.0) - seq as f64;
    let model = theory::waf_greedy_uniform(theory::spare_factor(t_r, random as f64), 64);
    let error = ((waf_random - 1.0) - (model - 1.0)).abs() / (model - 1.0);
    assert!(error < 0.03, "random handle WAF {waf_random:.4}, model {model:.4} ({:.2} % of WAF − 1)", error * 100.0);
    // The whole device against the conventional drive, same requests, same window.
    let device_waf = |a: &Report, b: &Report| {
        let user = a.flash.user_page_programs - b.flash.user_page_programs;
        (user + a.flash.gc_page_programs - b.flash.gc_page_programs) as f64 / user as f64
    };
    let fdp = device_waf(&after, &before);
    let conv = plane(false);
    let conv_before = run_long(&conv, log_and_random(logical, seq, warm, 7), false);
    let conv_after = run_long(&conv, log_and_random(logical, seq, warm + measured, 7), false);
    let conventional = device_waf(&conv_after, &conv_before);
    eprintln!(
        "FDP: random handle WAF {waf_random:.4} (model {model:.4}), device WAF {fdp:.4}; conventional drive \
         {conventional:.4}"
    );
    assert!(fdp < conventional, "FDP device WAF {fdp:.4} not below the conventional drive's {conventional:.4}");
}

/// The statistics log adds up: media bytes written are the pages programmed (host and GC)
/// times the page size, media bytes erased the blocks erased times their size, host bytes
/// the bytes written; an initially isolated handle's GC'd data goes to the shared GC
/// reclaim units, a persistently isolated one's stays with it.
#[test]
fn statistics_log_adds_up() {
    let mut c = tiny(1, 1, 2, 2);
    c.ftl.user_write_points = 3;
    let section = "enabled = true\nhandles = [\"initially\", \"persistently\"]\n";
    c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    let logical = c.logical_pages();
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let records: Vec<Record> = (0..6 * logical)
        .map(|i| {
            let page = if i < logical { i } else { rng.random_range(0..logical) };
            dev((page % 2) as u32, Op::Write, page, 1)
        })
        .collect();
    let (r, _) = run_keep(&c, records);
    let programmed = r.flash.user_page_programs + r.flash.gc_page_programs;
    assert!(r.flash.gc_page_programs > 0, "GC must run");
    assert_eq!(total(&r, "media_bytes_written"), programmed * PAGE);
    assert_eq!(total(&r, "media_bytes_erased"), r.gc.erases * 48 * PAGE);
    assert_eq!(total(&r, "host_bytes_written"), 6 * logical * PAGE);
    let events = &r.get_section("fdp").unwrap()["events"];
    assert!(events["media_reallocated"].as_u64().unwrap() > 0);
    // Handle 0 (initially isolated) has no GC reclaim unit of its own; handle 1 has one.
    assert_eq!(handle(&r, 0, "gc_pages_in"), 0);
    assert!(handle(&r, 0, "gc_pages_out") > 0);
    assert!(handle(&r, 1, "gc_pages_in") > 0);
    assert!(handle(&r, 2, "gc_pages_in") > 0, "shared GC reclaim units");
    // Pages by type add up to the media bytes of each.
    for k in 0..4 {
        let types: u64 = r.get_section("fdp").unwrap()["handles"][k]["page_types"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(types * PAGE, handle(&r, k, "media_bytes_written"), "handle {k}");
    }
}

/// A placement identifier naming no reclaim group or handle goes to the default handle,
/// and each such write is an Invalid Placement Identifier event.
#[test]
fn unknown_placement_identifier_goes_to_the_default_handle() {
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.user_write_points = 2;
    let section = "enabled = true\nhandles = [\"initially\", \"initially\"]\ndefault_pid = 1\n";
    c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    // Devices 0 and 1 name handles 0 and 1 (one reclaim group, one handle bit); 2 and 7
    // name groups 1 and 3, which the drive lacks.
    let records: Vec<Record> = (0..400u64).map(|i| dev([0, 1, 2, 7][(i % 4) as usize], Op::Write, i, 1)).collect();
    let (r, _) = run_keep(&c, records);
    let events = &r.get_section("fdp").unwrap()["events"];
    assert_eq!(events["invalid_placement_identifier"].as_u64(), Some(200));
    assert_eq!(handle(&r, 0, "host_pages"), 100);
    assert_eq!(handle(&r, 1, "host_pages"), 300);
}

/// The reclaim unit time limit moves a handle to new reclaim units: each switch is logged
/// as both events, and the pages given up are counted as wasted.
#[test]
fn reclaim_unit_time_limit_switches_units() {
    let mut c = tiny(1, 1, 1, 1);
    c.ftl.user_write_points = 1;
    let section = "enabled = true\nru_time_limit_ms = 5.0\n";
    c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    // One page every 2 ms: a block of 48 pages would take 96 ms to fill.
    let records: Vec<Record> =
        (0..100u64).map(|i| Record { arrival_ns: i * 2_000_000, ..dev(0, Op::Write, i, 1) }).collect();
    let (r, _) = run_keep(&c, records);
    let events = &r.get_section("fdp").unwrap()["events"];
    let switches = events["ru_time_limit_exceeded"].as_u64().unwrap();
    assert!(switches >= 20, "{switches} switches");
    assert_eq!(events["ru_not_fully_written"].as_u64(), Some(switches));
    assert!(r.flash.wasted_pages > 0);
}

/// A fio job with `fdp=1,fdp_pli=0,1` parses and runs: its writes alternate between the
/// two handles (half each), none of them an invalid identifier.
#[test]
fn fio_fdp_job_parses_and_runs() {
    let job = ssdlab_trace::fio::FioJob::parse_ini(
        "[fdp]\nrw=randwrite\nbs=4k\nfdp=1\nfdp_pli=0,1\nnumber_ios=2000\nrandseed=5\n",
        "fdp.fio",
    )
    .expect("the job parses");
    let mut c = tiny(1, 1, 2, 1);
    c.ftl.user_write_points = 2;
    c.designs
        .insert("fdp".into(), toml::from_str("enabled = true\nhandles = [\"initially\", \"initially\"]\n").unwrap());
    let bytes = c.logical_pages() * PAGE;
    let records: Vec<Record> = job.source(bytes).unwrap().map(Result::unwrap).collect();
    let (r, _) = run_keep(&c, records);
    assert_eq!(handle(&r, 0, "host_pages"), 1000);
    assert_eq!(handle(&r, 1, "host_pages"), 1000);
    assert_eq!(r.get_section("fdp").unwrap()["events"]["invalid_placement_identifier"].as_u64(), Some(0));
}

/// The swarm draws FDP drives (`designs/fdp/swarm.rs`), with both handle types and every
/// source of placement identifiers, and never with power losses (which FDP refuses): the
/// FDP cases of `ssdlab swarm` run with the checks and `--verify` on.
#[test]
fn swarm_draws_fdp_drives() {
    use ssdlab_core::swarm::{case, case_with, PowerLosses};
    let mut drawn = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 900_000..901_500 {
        let c = case(seed).config;
        let Some(f) = c.designs.get("fdp") else { continue };
        drawn += 1;
        assert!(c.power.loss_at_ns.is_empty(), "seed {seed}");
        kinds.insert(f["pid_from"].as_str().unwrap().to_string());
        for h in f["handles"].as_array().unwrap() {
            kinds.insert(h.as_str().unwrap().to_string());
        }
    }
    eprintln!("FDP drawn on {drawn} of seeds 900000..901500: {kinds:?}");
    assert!(drawn >= 40, "{drawn}");
    assert_eq!(kinds.len(), 5, "both handle types and three PID sources: {kinds:?}");
    assert!((905_000..905_100).all(|s| !case_with(s, PowerLosses::Always).config.designs.contains_key("fdp")));
}
