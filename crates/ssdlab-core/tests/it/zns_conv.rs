//! A conventional area beside the zones (`[designs.zns] conventional_bytes`,
//! docs/zns-fdp.md): conventional zones at the LBA start written anywhere through the
//! page-mapped FTL, whose GC runs on the area's own blocks only, while the sequential
//! zones keep their blocks 1:1 (device WAF exactly 1, no GC).

use super::zns::zns;
use super::*;
use ssdlab_core::designs::zns::Zns;
use ssdlab_core::stats::RequestRecord;
use ssdlab_trace::ZoneAction;

const PAGE: u64 = 4096;
/// Zones of one die: a 16-page block in each of its two planes.
const ZONE: u64 = 32;

/// Two dies of two planes, 32 blocks of 16 pages per plane, no over-provisioning, zones
/// of one die and `conventional` conventional zones (64 pages each two: one block of each
/// plane's data). The area keeps 1 data block + 1 spare + 4 (GC's 10 % background
/// threshold of 32 blocks) + 2 write points = 8 blocks of each plane.
pub(super) fn drive(conventional: u64, extra: &str) -> Config {
    let mut c = tiny(2, 1, 1, 2);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 32;
    c.geometry.pages_per_block = 16;
    c.ftl.over_provisioning = 0.0;
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    let section =
        format!("enabled = true\nzone_dies = 1\nconventional_bytes = {}\n{extra}", conventional * ZONE * PAGE);
    c.designs.insert("zns".into(), toml::from_str(&section).expect("a table"));
    c
}

fn run_recorded(c: &Config, records: Vec<Record>) -> (Report, Simulator<'static>, Vec<RequestRecord>) {
    super::zns::run_recorded_with(c, records, 7, 20_000_000)
}

/// Random single-page overwrites of the conventional area interleaved with
/// zone-sequential writes: the zones' programs are exactly their host pages (WAF 1.000,
/// no GC copy), the area's GC copies (WAF above 1), and no zone block is ever erased,
/// picked by GC, free or a write point (the FTL's invariant, checked every 7 requests).
#[test]
fn sequential_zones_keep_waf_one_while_the_conventional_area_collects() {
    let c = drive(2, "");
    let conventional_pages = 2 * ZONE;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut records = Vec::new();
    let zones = 8u64;
    let mut wp = vec![0u64; zones as usize];
    for i in 0..3000u64 {
        // Three conventional writes at random pages for each zone page.
        if i % 4 == 3 && wp.iter().any(|&w| w < ZONE) {
            let zone = (i / 4) % zones;
            let zone = (zone..zone + zones).map(|z| z % zones).find(|&z| wp[z as usize] < ZONE).expect("one left");
            records.push(rec(i * 1000, Op::Write, conventional_pages + zone * ZONE + wp[zone as usize], 1, PAGE));
            wp[zone as usize] += 1;
        } else {
            records.push(rec(i * 1000, Op::Write, next(conventional_pages), 1, PAGE));
        }
    }
    let zone_pages: u64 = wp.iter().sum();
    let conventional_writes = records.len() as u64 - zone_pages;
    records.extend((0..conventional_pages + zones * ZONE).map(|p| rec(4_000_000_000, Op::Read, p, 1, PAGE)));
    let (report, sim, seen) = run_recorded(&c, records);
    let s = zns(&report);
    assert_eq!(s["rejected"], 0, "{s}");
    assert!(seen.iter().all(|r| r.status == 0));
    assert_eq!(s["conventional_zones"], 2);
    let a = &s["areas"];
    assert_eq!(a["zoned"]["host_bytes"], zone_pages * PAGE);
    assert_eq!(a["zoned"]["flash_programs"], zone_pages, "{a}");
    assert_eq!(a["zoned"]["gc_copies"], 0);
    assert_eq!(a["zoned"]["device_waf"], 1.0);
    let gc = a["conventional"]["gc_copies"].as_u64().unwrap();
    assert!(gc > 0, "the area's GC ran: {a}");
    assert_eq!(gc, sim.ftl.counters.gc_moved_pages, "every GC copy is the area's");
    assert_eq!(a["conventional"]["writes"], conventional_writes);
    assert_eq!(a["conventional"]["flash_programs"], conventional_writes + gc);
    let waf = a["conventional"]["device_waf"].as_f64().unwrap();
    assert!((waf - (conventional_writes + gc) as f64 / conventional_writes as f64).abs() < 1e-12);
    assert_eq!(a["conventional_blocks_per_plane"], 8);
    // No zone block was ever erased; the area's were.
    let zone_blocks: Vec<u32> = (0..sim.ftl.blocks.len() as u32).filter(|&b| sim.ftl.is_zone_block(b)).collect();
    assert_eq!(zone_blocks.len(), 2 * 24 * 2, "2 dies x 24 zones x 2 planes");
    assert!(zone_blocks.iter().all(|&b| sim.ftl.blocks[b as usize].erase_count == 0));
    assert!(sim.ftl.counters.erases > 0);
    let z = sim.design::<Zns>();
    assert_eq!((z.zone_type(0), z.zone_type(1), z.zone_type(2)), (1, 1, 2));
    assert_eq!(z.zone(2).write_pointer, ZONE as u32, "zone 2, the first sequential one, is full");
}

/// Zone commands to a conventional zone fail with Invalid Field in Command (ZBC's
/// INVALID FIELD IN CDB), a write from the area into a sequential zone with Zone Boundary
/// Error; writes at random offsets in the area succeed and read back.
#[test]
fn zone_commands_to_conventional_zones_fail_and_random_writes_succeed() {
    let c = drive(2, "");
    let zone_op =
        |at, action, page| Record { op: Op::ZoneManagement(action), size_bytes: 0, ..rec(at, Op::Read, page, 1, PAGE) };
    let mut records = vec![];
    for (i, action) in
        [ZoneAction::Open, ZoneAction::Close, ZoneAction::Finish, ZoneAction::Reset].into_iter().enumerate()
    {
        records.push(zone_op(i as u64, action, ZONE * (i as u64 % 2)));
    }
    records.push(Record { op: Op::ZoneAppend, ..rec(10, Op::Write, ZONE, 1, PAGE) });
    records.push(rec(20, Op::Write, 2 * ZONE - 1, 2, PAGE));
    // Writes at scattered offsets, some twice, some of several pages, one unaligned.
    for (k, page) in [5u64, 63, 0, 17, 5, 40, 33, 63].into_iter().enumerate() {
        records.push(rec(100 + k as u64, Op::Write, page, 1, PAGE));
    }
    records.push(rec(200, Op::Write, 20, 3, PAGE));
    records.push(Record { offset_bytes: 50 * PAGE + 512, size_bytes: 1024, ..rec(201, Op::Write, 0, 1, PAGE) });
    records.push(rec(1_000_000_000, Op::Read, 0, 2 * ZONE, PAGE));
    let (report, _, seen) = run_recorded(&c, records);
    let s = zns(&report);
    let status = |i: usize| seen.iter().find(|r| r.id == i as u64).expect("completed").status;
    for i in 0..5 {
        assert_eq!(status(i), 0x002, "request {i}: {s}");
    }
    assert_eq!(status(5), 0x1b8, "across into zone 2");
    assert!((6..seen.len()).all(|i| status(i) == 0));
    assert_eq!(s["rejected"], 6);
    assert_eq!(s["areas"]["conventional"]["writes"], 10);
    assert_eq!((s["opens"].as_u64(), s["resets"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn conventional_area_config_errors_name_the_field() {
    let fields = |c: &Config| c.validate().err().map(|e| e.iter().map(|e| e.key.clone()).collect::<Vec<_>>());
    let mut c = drive(0, "");
    c.designs.insert("zns".into(), toml::from_str("enabled = true\nconventional_bytes = 4096").unwrap());
    assert_eq!(fields(&c), Some(vec!["designs.zns.conventional_bytes".to_string()]), "not a zone multiple");
    let c = drive(60, "");
    assert_eq!(fields(&c), Some(vec!["designs.zns.conventional_bytes".to_string()]), "no room for zones");
    let c = drive(2, "host_layer = \"log\"");
    assert!(fields(&c).unwrap().contains(&"designs.zns.conventional_bytes".to_string()));
    let c = drive(2, "read_only_zones = [1]");
    assert_eq!(fields(&c), Some(vec!["designs.zns.read_only_zones".to_string()]), "a conventional zone");
    assert!(drive(2, "read_only_zones = [2]").validate().is_ok());
}

/// The swarm draws conventional areas on zone-native drives, with and without power
/// losses; three of them run clean (checks, `--verify`) with the zones' WAF exactly 1.
#[test]
fn the_swarm_draws_conventional_areas_and_they_run_clean() {
    let (mut plain, mut lossy) = (Vec::new(), 0);
    for seed in 0..1500 {
        let case = ssdlab_core::swarm::case(seed);
        let Some(z) = case.config.designs.get("zns") else { continue };
        if z.get("conventional_bytes").and_then(|v| v.as_integer()).unwrap_or(0) == 0 {
            continue;
        }
        if case.config.power.loss_at_ns.is_empty() {
            plain.push(case);
        } else {
            lossy += 1;
        }
    }
    assert!(plain.len() >= 3 && lossy >= 1, "{} plain, {lossy} with power losses of 1500", plain.len());
    for case in plain.iter().take(3) {
        let report = ssdlab_core::swarm::run_case(case).unwrap_or_else(|e| panic!("seed {}: {e}", case.seed));
        let a = &report.get_section("zns").expect("a zns section")["areas"];
        assert!(a["conventional"]["writes"].as_u64() > Some(0), "seed {}: {a}", case.seed);
        assert_eq!(a["zoned"]["device_waf"], 1.0, "seed {}: {a}", case.seed);
        assert_eq!(a["zoned"]["gc_copies"], 0);
    }
}

/// The area's pages are placed by address, dies first and then the plane in the die
/// (`Layout::conventional_plane`), so that every plane holds the share of the area its
/// blocks were sized for: written once each in a scrambled order, the 64 pages of two
/// conventional zones on 2 dies x 2 planes sit 16 to a plane, page `lpn` on die
/// `lpn % 2`, plane `(lpn / 2) % 2` of it, and nothing is collected. (A mutation sample
/// found every other test passing with the whole area on plane 0.)
#[test]
fn conventional_pages_spread_over_the_planes_by_address() {
    let c = drive(2, "");
    let pages = 2 * ZONE;
    let order: Vec<u64> = (0..pages).map(|i| (i * 37) % pages).collect();
    let records = order.iter().enumerate().map(|(i, &lpn)| rec(i as u64 * 200_000, Op::Write, lpn, 1, PAGE)).collect();
    let (report, sim, seen) = run_recorded(&c, records);
    assert!(seen.iter().all(|r| r.status == 0));
    assert_eq!(zns(&report)["areas"]["conventional"]["gc_copies"], 0);
    let mut per_plane = [0u32; 4];
    for lpn in 0..pages as u32 {
        let plane = sim.ftl.addr.plane_of(sim.ftl.lookup(lpn).expect("written"));
        assert_eq!(plane, (lpn % 2) * 2 + (lpn / 2) % 2, "page {lpn}");
        per_plane[plane as usize] += 1;
    }
    assert_eq!(per_plane, [16; 4]);
}
