//! NVMe Flexible Data Placement (issue 44, `designs/fdp`, docs/zns-fdp.md "FDP"): two
//! handles keep a sequential log and random overwrites apart (the log reclaimed without
//! copying, the random handle at Desnoyers' greedy model for its share of the spare
//! space, the device below the conventional drive), the statistics log adds up,
//! unknown placement identifiers go to the default handle, SLC-mode handles, derived
//! write points, host RUH Updates and power losses.

use super::*;
use ssdlab_core::theory;

const PAGE: u64 = 4096;

/// One plane (one cleaning pool) of 512 × 64 SLC-latency pages, emergency-only GC at the
/// smallest reserve (two free blocks), closed loop at queue depth 1: the theory checks'
/// drive (`theory.rs`), here with two persistently isolated handles when `fdp`.
fn plane(fdp: bool) -> Config {
    let mut c = super::theory::gc_plane(512, 64, 0.2, VictimPolicy::Greedy);
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

/// The swarm draws FDP drives (`designs/fdp/swarm.rs`), with both handle types, every
/// source of placement identifiers, SLC-mode handles and host RUH Updates, and with power
/// losses: the FDP cases of `ssdlab swarm` run with the checks and `--verify` on.
#[test]
fn swarm_draws_fdp_drives() {
    use ssdlab_core::swarm::{case, case_with, PowerLosses};
    let mut drawn = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 900_000..901_500 {
        let c = case(seed).config;
        let Some(f) = c.designs.get("fdp") else { continue };
        drawn += 1;
        kinds.insert(f["pid_from"].as_str().unwrap().to_string());
        for h in f["handles"].as_array().unwrap() {
            kinds.insert(h.as_str().unwrap().to_string());
        }
        if f["slc_handles"].as_array().is_some_and(|a| !a.is_empty()) {
            kinds.insert("slc".into());
        }
        if f["ruh_updates"].as_array().is_some_and(|a| !a.is_empty()) {
            kinds.insert("ruh-update".into());
        }
    }
    eprintln!("FDP drawn on {drawn} of seeds 900000..901500: {kinds:?}");
    assert!(drawn >= 40, "{drawn}");
    assert_eq!(kinds.len(), 7, "both handle types, three PID sources, SLC handles, RUH Updates: {kinds:?}");
    let lossy = (905_000..905_300)
        .map(|s| case_with(s, PowerLosses::Always).config)
        .filter(|c| c.designs.contains_key("fdp") && !c.power.loss_at_ns.is_empty())
        .count();
    assert!(lossy >= 10, "FDP drawn with power losses on {lossy} of 300 seeds");
}

/// Two handles on a drive with 8 SLC-mode blocks of 16 pages per plane: handle 0's
/// reclaim units are SLC-mode blocks (`slc_handles`), and it carries a log that drops
/// each 32-page segment (one SLC block in each of the two planes) before writing it
/// again; handle 1 overwrites the rest at random in normal mode. The log, rewritten ten
/// times over, fills the SLC pool again and again: its reclaim units are reclaimed
/// without a GC move (WAF exactly 1.0), every page it programmed is an SLC page and none
/// is of a normal page type, and handle 1 programmed no SLC page. `ftl.user_write_points`
/// and `ftl.slc_levels` are left unset: FDP derives them.
#[test]
fn slc_handle_log_is_reclaimed_without_copying_in_slc_pages_only() {
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.slc_blocks_per_plane = 8;
    c.flash.slc_pages_per_block = 16;
    let section = "enabled = true\nhandles = [\"persistently\", \"initially\"]\nslc_handles = [0]\n";
    c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    assert_eq!(c.resolved().ftl.user_write_points, 3);
    let logical = c.logical_pages();
    let (log, segment) = (128u64, 32u64);
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let mut records: Vec<Record> = (log..logical).map(|p| dev(1, Op::Write, p, 1)).collect();
    for round in 0..10 {
        for at in 0..log {
            if round > 0 && at % segment == 0 {
                records.push(dev(0, Op::Trim, at, segment));
            }
            records.push(dev(0, Op::Write, at, 1));
            records.push(dev(1, Op::Write, rng.random_range(log..logical), 1));
        }
    }
    let (r, _) = run_keep(&c, records);
    let host = handle(&r, 0, "host_pages");
    assert_eq!(host, 10 * log);
    assert_eq!(handle(&r, 0, "gc_pages_out"), 0, "SLC log pages moved by GC");
    assert_eq!(handle(&r, 0, "media_bytes_written"), host * PAGE, "SLC log WAF is not 1");
    assert_eq!(handle(&r, 0, "slc_pages"), host);
    let fdp = r.get_section("fdp").unwrap();
    let types =
        |k: usize| fdp["handles"][k]["page_types"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum::<u64>();
    assert_eq!(types(0), 0, "an SLC handle programmed pages of normal types");
    assert_eq!(fdp["handles"][0]["mode"].as_str(), Some("slc"));
    assert_eq!(fdp["handles"][1]["mode"].as_str(), Some("normal"));
    assert!(handle(&r, 0, "blocks_erased") >= 2 * 30, "the log's SLC blocks must be reclaimed many times");
    assert_eq!(handle(&r, 1, "slc_pages"), 0);
    assert_eq!(types(1) * PAGE, handle(&r, 1, "media_bytes_written"));
    assert_eq!(total(&r, "slc_reclaim_unit_bytes"), 2 * 16 * PAGE);
    assert_eq!(total(&r, "reclaim_unit_bytes"), 2 * 48 * PAGE);
    assert!(r.flash.gc_page_programs > 0, "the random handle's GC must run too");
}

/// FDP derives `ftl.user_write_points` from its handles (one each, one more per
/// persistently isolated handle) when the config leaves it at its default; a value that
/// differs is refused, naming the key and the number needed.
#[test]
fn write_points_are_derived_and_a_conflict_is_named() {
    let mut c = tiny(1, 1, 1, 1);
    let section = "enabled = true\nhandles = [\"persistently\", \"initially\", \"persistently\"]\n";
    c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    assert!(c.validate().is_ok(), "{:?}", c.validate());
    assert_eq!(c.resolved().ftl.user_write_points, 5);
    let records: Vec<Record> = (0..300u64).map(|i| dev((i % 3) as u32, Op::Write, i, 1)).collect();
    let (r, _) = run_keep(&c, records);
    assert_eq!((0..3).map(|k| handle(&r, k, "host_pages")).collect::<Vec<_>>(), vec![100, 100, 100]);
    c.ftl.user_write_points = 4;
    let errors = c.validate().expect_err("a conflicting value");
    let e = errors.iter().find(|e| e.to_string().contains("ftl.user_write_points")).expect("names the key");
    assert!(e.to_string().contains("needs 5"), "{e}");
}

/// A host Reclaim Unit Handle Update on a half-written reclaim unit: the handle's open
/// block (24 of its 48 pages written) is closed, exactly one Reclaim Unit Not Fully
/// Written event is logged (and no time-limit event), its 24 unwritten pages are given up,
/// and the next write lands on the first page of a new block. A second update before
/// any further write finds nothing written and logs nothing.
#[test]
fn ruh_update_on_a_half_written_unit_logs_one_event_and_moves_the_handle() {
    let mut c = tiny(1, 1, 1, 1);
    // (0.5 ms programs: each write is programmed before the next arrives.)
    slc_like(&mut c);
    let section = "enabled = true\nruh_updates = [{ at_ms = 23.8, pids = [0] }, { at_ms = 23.9, pids = [0] }]\n";
    c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
    let records: Vec<Record> =
        (0..34u64).map(|i| Record { arrival_ns: i * 1_000_000, ..dev(0, Op::Write, i, 1) }).collect();
    let (r, sim) = run_keep(&c, records);
    let fdp = r.get_section("fdp").unwrap();
    assert_eq!(fdp["ruh_updates"].as_u64(), Some(2));
    assert_eq!(fdp["events"]["ru_not_fully_written"].as_u64(), Some(1));
    assert_eq!(fdp["events"]["ru_time_limit_exceeded"].as_u64(), Some(0));
    assert_eq!(r.flash.wasted_pages, 24);
    let a = &sim.ftl.addr;
    let (last, next) = (sim.ftl.lookup(23).unwrap(), sim.ftl.lookup(24).unwrap());
    assert_eq!(a.page_in_block(last), 23);
    assert_ne!(a.block_of(last), a.block_of(next), "the write after the update is in a new reclaim unit");
    assert_eq!(a.page_in_block(next), 0);
    assert_eq!(a.block_of(sim.ftl.lookup(33).unwrap()), a.block_of(next));
}

/// Power losses on an FDP drive: recovery returns each handle's partly written blocks to
/// that handle (`Ftl::recover_own_streams`), so after three losses under GC every block
/// still holds the data of one handle only (the address halves are the two persistently
/// isolated handles), and `--verify` finds every acknowledged write.
#[test]
fn power_losses_keep_each_handle_in_its_own_reclaim_units() {
    let mut c = tiny(1, 1, 1, 2);
    let logical = c.logical_pages();
    let half = logical / 2;
    let section = format!(
        "enabled = true\nhandles = [\"persistently\", \"persistently\"]\npid_from = \"lba\"\n\
         lba_pids = [{{ start_bytes = 0, end_bytes = {}, pid = 0 }}, {{ start_bytes = {}, end_bytes = {}, pid = 1 }}]\n",
        half * PAGE,
        half * PAGE,
        logical * PAGE
    );
    c.designs.insert("fdp".into(), toml::from_str(&section).unwrap());
    // A write every 2 ms (about what the two planes program), the last loss 0.4 s before
    // the end: the blocks recovery reopened still take writes when the run ends.
    let writes = 5 * logical;
    let end = writes * 2_000_000;
    c.power.loss_at_ns = vec![end / 3, 2 * end / 3, end - 400_000_000];
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let records: Vec<Record> = (0..writes)
        .map(|i| {
            let page = if i < logical { i } else { rng.random_range(0..logical) };
            Record { arrival_ns: i * 2_000_000, ..dev(0, Op::Write, page, 1) }
        })
        .collect();
    let (r, sim) = run_keep(&c, records);
    let losses = r.power.as_ref().map_or(0, |p| p.losses);
    assert_eq!(losses, 3);
    assert!(r.gc.erases > 0);
    assert_eq!(total(&r, "isolation_fallbacks"), 0);
    let ftl = &sim.ftl;
    let pages = ftl.addr.pages_per_block;
    for block in 0..ftl.addr.blocks() {
        let halves: std::collections::BTreeSet<bool> = (0..pages)
            .map(|p| ftl.dense_reverse.get((block * pages + p) as usize).unwrap())
            .filter(|&lpn| lpn != ssdlab_core::flash::NO_PAGE)
            .map(|lpn| u64::from(lpn) < half)
            .collect();
        assert!(halves.len() <= 1, "block {block} holds both handles' data");
    }
}

/// The `fdp-pm9d3a` preset (docs/presets.md) reports the FDP configuration its source,
/// `nvme fdp configs` on a Samsung PM9D3a 3.84 TB, gives: one reclaim group, eight
/// initially isolated handles and a Reclaim Unit Nominal Size of 13,079,937,024 bytes
/// (the 3,193,344 4-KiB blocks `nvme fdp status` gives as an empty unit's available
/// media writes). Writes through PIDs 0 and 7 land on those handles alone.
#[test]
fn pm9d3a_preset_reports_the_drives_fdp_configuration() {
    let c = ssdlab_core::presets::preset("fdp-pm9d3a").expect("preset");
    assert_eq!(c.resolved().ftl.user_write_points, 8);
    const PAGE16: u64 = 16384;
    let records = vec![
        Record { device: 0, ..rec(0, Op::Write, 0, 3, PAGE16) },
        Record { device: 7, ..rec(1_000, Op::Write, 1_000, 5, PAGE16) },
    ];
    let (r, _) = run_keep(&c, records);
    assert_eq!(total(&r, "reclaim_groups"), 1);
    assert_eq!(total(&r, "reclaim_unit_bytes"), 13_079_937_024);
    assert_eq!(total(&r, "reclaim_unit_bytes"), 3_193_344 * 4096);
    let section = r.get_section("fdp").expect("an fdp section");
    let types: Vec<&str> = (0..8).map(|k| section["handles"][k]["type"].as_str().expect("type")).collect();
    assert_eq!(types, vec!["initially"; 8]);
    let pages: Vec<u64> = (0..8).map(|k| handle(&r, k, "host_pages")).collect();
    assert_eq!(pages, vec![3, 0, 0, 0, 0, 0, 0, 5]);
}
