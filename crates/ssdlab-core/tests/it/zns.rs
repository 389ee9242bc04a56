//! The zoned namespace (NVMe ZNS, `designs/zns`, docs/zns-fdp.md): zone-sequential writes
//! program each page once with no GC, a reset's erase time on the dies its zone spans,
//! Zone Append from many writers, and every protocol violation's status and state.

use super::*;
use ssdlab_core::designs::zns::zone::{Zone, ZoneState};
use ssdlab_core::designs::zns::Zns;
use ssdlab_core::stats::RequestRecord;
use ssdlab_trace::ZoneAction;
use std::cell::RefCell;
use std::rc::Rc;

const PAGE: u64 = 4096;
const ERASE_NS: u64 = 3_000_000;

/// Two dies of two planes, 8 blocks of 16 SLC pages per plane, no over-provisioning: a
/// zone is a block in each plane of `zone_dies` dies (32 pages per die), 6 per plane.
fn drive(zone_dies: u32, extra: &str) -> Config {
    let mut c = tiny(2, 1, 1, 2);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 8;
    c.geometry.pages_per_block = 16;
    c.ftl.over_provisioning = 0.0;
    c.flash.erase_latency_ns = ERASE_NS;
    c.flash.multi_plane = true;
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    let section = format!("enabled = true\nzone_dies = {zone_dies}\n{extra}");
    c.designs.insert("zns".into(), toml::from_str(&section).expect("a table"));
    c
}

fn zone_op(at_ns: u64, action: ZoneAction, zone_start_page: u64) -> Record {
    Record { op: Op::ZoneManagement(action), size_bytes: 0, ..rec(at_ns, Op::Read, zone_start_page, 1, PAGE) }
}

/// Runs with checks and verification, keeping every request's record.
fn run_recorded(c: &Config, records: Vec<Record>) -> (Report, Simulator<'static>, Vec<RequestRecord>) {
    run_recorded_with(c, records, 13, 10_000_000)
}

/// `run_recorded` with the invariant check every `check_every` requests and an event budget.
pub(crate) fn run_recorded_with(
    c: &Config,
    records: Vec<Record>,
    check_every: u64,
    event_budget: u64,
) -> (Report, Simulator<'static>, Vec<RequestRecord>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    let observers = Observers {
        requests: Some(Box::new(move |r: &RequestRecord| sink.borrow_mut().push(r.clone()))),
        ..Observers::default()
    };
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut config = c.clone();
    config.output.check_every = check_every;
    let mut sim = Simulator::new(config, factory, observers).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(event_budget);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    let seen = seen.borrow().clone();
    (report, sim, seen)
}

pub(crate) fn zns(report: &Report) -> &serde_json::Value {
    report.get_section("zns").expect("a zns section")
}

#[test]
fn zone_sequential_writes_program_each_page_once_and_never_collect() {
    let c = drive(2, "");
    let zone_pages = 64;
    // Four zones filled by 1-, 2- and 4-page writes at their write pointers, 8 queued.
    let mut records = Vec::new();
    for zone in 0..4u64 {
        let mut at = 0;
        while at < zone_pages {
            let pages = [1, 2, 4][(at % 3) as usize].min(zone_pages - at);
            records.push(rec(0, Op::Write, zone * zone_pages + at, pages, PAGE));
            at += pages;
        }
    }
    records.extend((0..4 * zone_pages).map(|p| rec(0, Op::Read, p, 1, PAGE)));
    let mut c = c;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 8;
    let (report, sim, _) = run_recorded(&c, records);
    assert_eq!(report.waf, 1.0, "every host byte programmed once");
    assert_eq!(report.waf_pages, 1.0);
    assert_eq!((report.gc.victims, report.gc.moved_pages, report.gc.erases), (0, 0, 0));
    let s = zns(&report);
    assert_eq!(s["zones"], 6);
    assert_eq!(s["zones_by_state"]["full"], 4);
    assert_eq!(s["zones_by_state"]["empty"], 2);
    assert_eq!(s["pages_written"], 4 * zone_pages);
    assert_eq!(s["rejected"], 0);
    assert_eq!(report.read.requests, 4 * zone_pages);
    // Each zone's pages fill exactly its four blocks (block z of every plane).
    let z = sim.design::<Zns>();
    for zone in 0..4u32 {
        assert_eq!(z.zone(zone), Zone { state: ZoneState::Full, write_pointer: 64 });
        for plane in 0..4 {
            let block = sim.ftl.addr.first_block_of_plane(plane) + zone;
            assert_eq!(sim.ftl.blocks[block as usize].valid_pages, 16, "zone {zone}, plane {plane}");
        }
    }
}

#[test]
fn a_reset_erases_the_zones_blocks_on_the_dies_it_spans() {
    // Zone 0 written full, then reset long after: each of its dies erases its two planes'
    // blocks, in one multi-plane command or one command per plane.
    for (multi_plane, zone_dies, expect_ns) in [(true, 2, ERASE_NS), (false, 2, 2 * ERASE_NS), (true, 1, ERASE_NS)] {
        let mut c = drive(zone_dies, "");
        c.flash.multi_plane = multi_plane;
        let zone_pages = 32 * zone_dies as u64;
        let mut records: Vec<Record> = (0..zone_pages).map(|p| rec(p * 1000, Op::Write, p, 1, PAGE)).collect();
        records.push(zone_op(1_000_000_000, ZoneAction::Reset, 0));
        // Written again from its start once the reset completed.
        records.extend((0..zone_pages).map(|p| rec(2_000_000_000 + p * 1000, Op::Write, p, 1, PAGE)));
        records.extend((0..zone_pages).map(|p| rec(3_000_000_000, Op::Read, p, 1, PAGE)));
        let (report, sim, seen) = run_recorded(&c, records);
        let reset = seen.iter().find(|r| r.op == "zone-reset").expect("the reset completed");
        assert_eq!(reset.latency_ns, expect_ns, "multi-plane {multi_plane}, {zone_dies} dies");
        let s = zns(&report);
        assert_eq!(s["reset_latency_mean_ns"], expect_ns as f64);
        assert_eq!(s["reset_erases"], 2 * zone_dies as u64, "a block per plane");
        assert_eq!(report.gc.victims, 0);
        assert_eq!(report.waf, 1.0);
        assert_eq!(s["rejected"], 0);
        assert_eq!(sim.design::<Zns>().zone(0), Zone { state: ZoneState::Full, write_pointer: zone_pages as u32 });
    }
}

#[test]
fn zone_appends_from_eight_writers_fill_one_zone_with_distinct_addresses() {
    let c = drive(2, "");
    let zone = 2u64;
    let start = zone * 64;
    // Eight writers, each appending 1-3 pages at a time, interleaved, 64 pages in all.
    let mut records = Vec::new();
    let mut left = 64u64;
    let mut k = 0u64;
    while left > 0 {
        let writer = k % 8;
        let pages = (1 + (k * 7 + writer) % 3).min(left);
        records.push(Record { op: Op::ZoneAppend, ..rec(k * 20_000 + writer, Op::Write, start, pages, PAGE) });
        left -= pages;
        k += 1;
    }
    // One more append finds the zone full; then every page is read back (verified).
    records.push(Record { op: Op::ZoneAppend, ..rec(500_000_000, Op::Write, start, 1, PAGE) });
    records.extend((start..start + 64).map(|p| rec(600_000_000, Op::Read, p, 1, PAGE)));
    let (report, sim, seen) = run_recorded(&c, records);
    let appends: Vec<&RequestRecord> = seen.iter().filter(|r| r.op == "zone-append" && r.status == 0).collect();
    assert_eq!(appends.len() as u64, k);
    let refused: Vec<u16> = seen.iter().filter(|r| r.status != 0).map(|r| r.status).collect();
    assert_eq!(refused, [0x1b9], "the last append finds the zone full");
    let mut pages: Vec<u64> = appends
        .iter()
        .flat_map(|r| (r.offset_bytes / PAGE..(r.offset_bytes + r.size_bytes) / PAGE).collect::<Vec<_>>())
        .collect();
    pages.sort_unstable();
    assert_eq!(pages, (start..start + 64).collect::<Vec<_>>(), "distinct, and the zone exactly");
    // The device does not serialise appends to a zone: they are in flight together.
    let overlapping =
        appends.iter().any(|a| appends.iter().any(|b| a.arrival_ns < b.arrival_ns && b.arrival_ns < a.completion_ns));
    assert!(overlapping, "appends ran one at a time");
    let z = sim.design::<Zns>();
    assert_eq!(z.zone(zone as u32), Zone { state: ZoneState::Full, write_pointer: 64 });
    assert_eq!(z.rejected(0x1b9), 1, "Zone Is Full");
    assert_eq!(report.read.requests, 64);
    assert_eq!(zns(&report)["appends"], k);
}

#[test]
fn each_protocol_violation_completes_with_its_status_and_leaves_the_zone_as_the_spec_says() {
    // Zones of one die (32 pages), capacity 24, at most 2 open and 3 active; zone 5 read
    // only, zone 6 offline.
    let c = drive(1, "zone_capacity_bytes = 98304\nmax_open_zones = 2\nmax_active_zones = 3\nread_only_zones = [5]\noffline_zones = [6]");
    let zp = 32u64;
    let step = 50_000_000u64;
    let w = |i: u64, zone: u64, at: u64, pages: u64| rec(i * step, Op::Write, zone * zp + at, pages, PAGE);
    let append = |i: u64, page: u64| Record { op: Op::ZoneAppend, ..rec(i * step, Op::Write, page, 1, PAGE) };
    let action = |i: u64, a: ZoneAction, zone: u64| zone_op(i * step, a, zone * zp);
    // (request, expected status, then the states of zones 0..=3 after it)
    use ZoneState::*;
    let script: Vec<(Record, u16, [ZoneState; 4])> = vec![
        (w(0, 0, 1, 1), 0x1bc, [Empty, Empty, Empty, Empty]),
        (w(1, 0, 0, 4), 0, [ImplicitlyOpen, Empty, Empty, Empty]),
        (w(2, 0, 4, 21), 0x1b8, [ImplicitlyOpen, Empty, Empty, Empty]),
        (append(3, 5), 0x002, [ImplicitlyOpen, Empty, Empty, Empty]),
        (w(4, 5, 0, 1), 0x1ba, [ImplicitlyOpen, Empty, Empty, Empty]),
        (rec(5 * step, Op::Read, 6 * zp, 1, PAGE), 0x1bb, [ImplicitlyOpen, Empty, Empty, Empty]),
        (w(6, 6, 0, 1), 0x1bb, [ImplicitlyOpen, Empty, Empty, Empty]),
        (action(7, ZoneAction::Open, 1), 0, [ImplicitlyOpen, ExplicitlyOpen, Empty, Empty]),
        // A third open zone: the device closes the implicitly opened one.
        (action(8, ZoneAction::Open, 2), 0, [Closed, ExplicitlyOpen, ExplicitlyOpen, Empty]),
        (w(9, 3, 0, 1), 0x1bd, [Closed, ExplicitlyOpen, ExplicitlyOpen, Empty]),
        (w(10, 0, 4, 1), 0x1be, [Closed, ExplicitlyOpen, ExplicitlyOpen, Empty]),
        (action(11, ZoneAction::Close, 1), 0, [Closed, Closed, ExplicitlyOpen, Empty]),
        (w(12, 0, 4, 1), 0, [ImplicitlyOpen, Closed, ExplicitlyOpen, Empty]),
        (action(13, ZoneAction::Finish, 0), 0, [Full, Closed, ExplicitlyOpen, Empty]),
        (w(14, 0, 5, 1), 0x1b9, [Full, Closed, ExplicitlyOpen, Empty]),
        (action(15, ZoneAction::Open, 0), 0x1bf, [Full, Closed, ExplicitlyOpen, Empty]),
        (action(16, ZoneAction::Close, 3), 0x1bf, [Full, Closed, ExplicitlyOpen, Empty]),
        (action(17, ZoneAction::Reset, 5), 0x1bf, [Full, Closed, ExplicitlyOpen, Empty]),
        (zone_op(18 * step, ZoneAction::Close, 2 * zp + 1), 0x002, [Full, Closed, ExplicitlyOpen, Empty]),
        (w(19, 12, 0, 1), 0x080, [Full, Closed, ExplicitlyOpen, Empty]),
        (action(20, ZoneAction::Reset, 0), 0, [Empty, Closed, ExplicitlyOpen, Empty]),
        (w(21, 0, 0, 24), 0, [Full, Closed, ExplicitlyOpen, Empty]),
    ];
    // Each prefix of the script runs on its own: the states after its last request, and
    // that request's status (the count of its status rises by one, or nothing is refused).
    let mut expected_rejected = std::collections::BTreeMap::new();
    for n in 1..=script.len() {
        let records: Vec<Record> = script[..n].iter().map(|s| s.0).collect();
        let (report, sim, _) = run_recorded(&c, records);
        let z = sim.design::<Zns>();
        let (record, status, states) = &script[n - 1];
        if *status != 0 {
            *expected_rejected.entry(*status).or_insert(0u64) += 1;
        }
        for (&s, count) in &expected_rejected {
            assert_eq!(z.rejected(s), *count, "step {}: {:?} status {s:#x}", n - 1, record.op);
        }
        let total: u64 = expected_rejected.values().sum();
        assert_eq!(zns(&report)["rejected"], total, "step {}", n - 1);
        let got: Vec<ZoneState> = (0..4).map(|zone| z.zone(zone).state).collect();
        assert_eq!(got, states.to_vec(), "step {}: {:?}", n - 1, record.op);
        assert_eq!((z.zone(5).state, z.zone(6).state), (ReadOnly, Offline));
    }
}

#[test]
fn zns_config_errors_name_the_field() {
    let cases = [
        ("zone_dies = 3", "designs.zns.zone_dies"),
        ("zone_size_bytes = 4096", "designs.zns.zone_size_bytes"),
        ("zone_capacity_bytes = 999999999", "designs.zns.zone_capacity_bytes"),
        ("zone_capacity_bytes = 1000", "designs.zns.zone_capacity_bytes"),
        ("max_open_zones = 4\nmax_active_zones = 2", "designs.zns.max_open_zones"),
        ("offline_zones = [99]", "designs.zns.offline_zones"),
        ("zone_dies = 1\nbogus = 1", "designs.zns"),
    ];
    for (extra, key) in cases {
        let mut c = drive(1, "");
        let section = format!("enabled = true\n{extra}");
        c.designs.insert("zns".into(), toml::from_str(&section).unwrap());
        let errors = c.validate().expect_err(extra);
        assert!(errors.iter().any(|e| e.key == key), "{extra}: {errors:?}");
    }
    let mut c = drive(1, "");
    c.host.unwritten_reads = WhatIfUnwritten::Precondition;
    c.precondition.used_fraction = 0.5;
    let errors = c.validate().unwrap_err();
    for key in ["host.unwritten_reads", "precondition.used_fraction"] {
        assert!(errors.iter().any(|e| e.key == key), "{key}: {errors:?}");
    }
    // A zone command on a drive without a zoned namespace is an error naming it.
    let mut plain = tiny(1, 1, 1, 1);
    plain.host.unwritten_reads = WhatIfUnwritten::Controller;
    let e = try_run_with_budget(&plain, vec![zone_op(0, ZoneAction::Reset, 0)], 1_000_000).unwrap_err();
    assert!(e.to_string().contains("no zoned namespace"), "{e}");
}

#[test]
fn the_zone_native_workload_runs_without_violations_and_resets_at_its_utilisation() {
    use ssdlab_trace::zoned::ZonedSpec;
    use ssdlab_trace::{SyntheticSource, SyntheticSpec};
    for append in [false, true] {
        let mut c = drive(1, "max_open_zones = 3\nmax_active_zones = 4");
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = 8;
        let spec = SyntheticSpec {
            read_fraction: 0.25,
            block_size_bytes: 2 * PAGE,
            count: 3000,
            address_space_bytes: c.logical_bytes(),
            zoned: Some(ZonedSpec {
                open_zones: 3,
                append,
                utilisation: 0.5,
                zone_size_bytes: 32 * PAGE,
                zone_capacity_bytes: 32 * PAGE,
                zones: 12,
                start_bytes: 0,
            }),
            ..SyntheticSpec::default()
        };
        let records: Vec<Record> = SyntheticSource::new(spec).unwrap().map(|r| r.unwrap()).collect();
        let resets = records.iter().filter(|r| matches!(r.op, Op::ZoneManagement(_))).count() as u64;
        let (report, _, _) = run_recorded(&c, records);
        let s = zns(&report);
        assert_eq!(s["rejected"], 0, "append {append}: {s}");
        assert_eq!(s["resets"], resets);
        assert!(resets > 50, "{resets} resets");
        assert_eq!(report.waf, 1.0);
        assert_eq!((report.gc.victims, report.gc.moved_pages), (0, 0));
        assert_eq!(s["reset_erases"], 2 * resets, "two planes per zone");
        assert_eq!(report.gc.erases, 2 * resets, "every erase is a reset's");
    }
}

/// Zone Append completions are not ordered by the addresses the device returned: an append
/// whose page lands on a die busy with reads completes after a later append given the next
/// address on an idle die (NVMe ZNS: appends to one zone may complete in any order).
#[test]
fn zone_appends_to_one_zone_complete_out_of_order() {
    let c = drive(2, "");
    // Zone 0 written (pages alternate between the two dies), then 24 reads of its pages on
    // die 0 and, at the same instant, two one-page appends to zone 1.
    let mut records: Vec<Record> = (0..64).map(|p| rec(0, Op::Write, p, 1, PAGE)).collect();
    let t = 1_000_000_000;
    records.extend((0..24).map(|k| rec(t, Op::Read, 4 * (k % 16), 1, PAGE)));
    for _ in 0..2 {
        records.push(Record { op: Op::ZoneAppend, ..rec(t, Op::Write, 64, 1, PAGE) });
    }
    let (_, _, seen) = run_recorded(&c, records);
    let appends: Vec<&RequestRecord> = seen.iter().filter(|r| r.op == "zone-append").collect();
    assert_eq!(appends.len(), 2);
    let (first, second) = if appends[0].offset_bytes < appends[1].offset_bytes {
        (appends[0], appends[1])
    } else {
        (appends[1], appends[0])
    };
    assert_eq!((first.offset_bytes / PAGE, second.offset_bytes / PAGE), (64, 65), "the write pointer's order");
    assert!(
        second.completion_ns < first.completion_ns,
        "the append at page 65 (die 1) completed at {} ns, not before the one at page 64 (die 0, behind reads) at {} ns",
        second.completion_ns,
        first.completion_ns
    );
}
