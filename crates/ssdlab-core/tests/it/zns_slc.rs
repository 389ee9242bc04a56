//! SLC-mode zones and power loss on a zoned drive (`designs/zns`, docs/zns-fdp.md): an
//! SLC zone holds its blocks' SLC pages (blocks × pages per block / bits per cell) and
//! programs only SLC pages, with WAF 1; a power loss leaves each zone's write pointer at
//! the end of its data that survived and closes the zones that were open.

use super::*;
use ssdlab_core::designs::zns::zone::{Zone, ZoneState};
use ssdlab_core::designs::zns::Zns;

const PAGE: u64 = 4096;

/// Two dies of two TLC planes, 8 blocks of 48 pages per plane, no over-provisioning:
/// zones of one block in each of the 4 planes (192 pages), 6 of them, the last
/// `slc_zones` in SLC mode.
fn tlc_drive(slc_zones: u32) -> Config {
    let mut c = tiny(2, 1, 1, 2);
    c.geometry.blocks_per_plane = 8;
    c.ftl.over_provisioning = 0.0;
    c.flash.multi_plane = true;
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    let section = format!("enabled = true\nzone_dies = 2\nslc_zones = {slc_zones}");
    c.designs.insert("zns".into(), toml::from_str(&section).expect("a table"));
    c
}

fn zns(report: &Report) -> &serde_json::Value {
    report.get_section("zns").expect("a zns section")
}

#[test]
fn slc_zones_hold_their_blocks_slc_pages_and_program_only_slc_pages() {
    let c = tlc_drive(2);
    let (zone_pages, slc_capacity) = (192u64, 4 * 48 / 3);
    // SLC zone 4 filled by 1-, 2- and 4-page writes, normal zone 0 filled, then one
    // write too many into the full SLC zone and one past SLC zone 5's capacity.
    let mut records = Vec::new();
    for (zone, capacity) in [(4u64, slc_capacity), (0, zone_pages)] {
        let mut at = 0;
        while at < capacity {
            let pages = [1, 2, 4][(at % 3) as usize].min(capacity - at);
            records.push(rec(0, Op::Write, zone * zone_pages + at, pages, PAGE));
            at += pages;
        }
    }
    records.push(rec(0, Op::Write, 4 * zone_pages + slc_capacity, 1, PAGE));
    records.push(rec(0, Op::Write, 5 * zone_pages, slc_capacity + 1, PAGE));
    records.extend((0..slc_capacity).map(|p| rec(0, Op::Read, 4 * zone_pages + p, 1, PAGE)));
    let mut c = c;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 8;
    let (report, sim) = run_keep(&c, records);
    assert_eq!(report.waf, 1.0, "every host byte programmed once");
    assert_eq!(report.waf_pages, 1.0);
    assert_eq!((report.gc.victims, report.gc.moved_pages), (0, 0));
    assert_eq!(report.flash.slc_programs, slc_capacity, "the SLC zone's pages are SLC pages");
    let s = zns(&report);
    let (normal, slc) = (&s["classes"][0], &s["classes"][1]);
    assert_eq!((normal["mode"].as_str(), slc["mode"].as_str()), (Some("normal"), Some("slc")));
    assert_eq!((normal["zones"].as_u64(), slc["zones"].as_u64()), (Some(4), Some(2)));
    // Capacity = blocks × pages per block / bits per cell, below the zone size.
    assert_eq!(slc["zone_capacity_bytes"], slc_capacity * PAGE);
    assert_eq!(slc["zone_size_bytes"], zone_pages * PAGE);
    assert_eq!(normal["zone_capacity_bytes"], zone_pages * PAGE);
    assert_eq!(slc["slc_pages"], slc_capacity);
    assert_eq!(slc["page_types"], serde_json::json!([0, 0, 0]));
    // A normal zone's 4 blocks: 16 pages of each type per block.
    assert_eq!(normal["page_types"], serde_json::json!([64, 64, 64]));
    assert_eq!(normal["slc_pages"], 0);
    let z = sim.design::<Zns>();
    assert_eq!(z.zone(4), Zone { state: ZoneState::Full, write_pointer: slc_capacity as u32 });
    assert_eq!(z.zone(0), Zone { state: ZoneState::Full, write_pointer: zone_pages as u32 });
    assert_eq!(z.rejected(0x1b9), 1, "a write into the full SLC zone: Zone Is Full");
    assert_eq!(z.rejected(0x1b8), 1, "past the SLC zone's capacity: Zone Boundary Error");
    for plane in 0..4 {
        let block = sim.ftl.addr.first_block_of_plane(plane) + 4;
        assert!(sim.ftl.blocks[block as usize].slc, "zone 4's block in plane {plane} is in SLC mode");
        assert_eq!(sim.ftl.blocks[block as usize].valid_pages, 16);
    }
}

#[test]
fn slc_zone_writes_take_slc_program_time() {
    // One 1-page write into an SLC zone and one into a normal zone's first (LSB) page,
    // alone on the drive: each takes its program time plus the page's transfer.
    let c = tlc_drive(1);
    let records = vec![rec(0, Op::Write, 5 * 192, 1, PAGE), rec(100_000_000, Op::Write, 0, 1, PAGE)];
    let (report, _) = run_keep(&c, records);
    let transfer = (PAGE as f64 * c.flash.transfer_ns_per_byte).round() as u64;
    let slc = c.flash.slc_program_latency_ns + transfer;
    let lsb = c.flash.program_latency_ns[0] + transfer;
    assert_eq!(report.write.requests, 2);
    assert!((report.write.latency_ns.mean - (slc + lsb) as f64 / 2.0).abs() < 1000.0, "{:?}", report.write.latency_ns);
    assert_eq!(report.write.latency_ns.max, lsb.max(slc));
}

/// One SLC-latency die of one plane: a zone is one block of 48 pages, `capacity` of
/// them writable; writes are acknowledged when programmed.
fn one_block_zones(capacity: u64) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 8;
    c.ftl.over_provisioning = 0.0;
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    let section = format!("enabled = true\nzone_capacity_bytes = {}", capacity * PAGE);
    c.designs.insert("zns".into(), toml::from_str(&section).expect("a table"));
    c
}

/// Pages 0..4 of zone 0 written one a millisecond (each programmed in 0.5 ms); power
/// fails at 2.2 ms, while page 2 is being programmed.
fn writes_cut_mid_zone() -> Vec<Record> {
    (0..4).map(|p| rec(p * 1_000_000, Op::Write, p, 1, PAGE)).collect()
}

#[test]
fn a_power_loss_mid_zone_leaves_the_write_pointer_at_the_last_durable_page() {
    let mut c = one_block_zones(40);
    c.power.loss_at_ns = vec![2_200_000];
    let mut records = writes_cut_mid_zone();
    // The host writes the lost page again at the write pointer, and the next one.
    records.push(rec(10_000_000, Op::Write, 2, 1, PAGE));
    records.push(rec(11_000_000, Op::Write, 3, 1, PAGE));
    records.extend((0..4).map(|p| rec(20_000_000, Op::Read, p, 1, PAGE)));
    let (report, sim) = run_keep(&c, records);
    let p = &zns(&report)["power_loss"];
    assert_eq!(p["losses"], 1);
    assert_eq!(p["write_pointers_moved_back"], 1, "zone 0 lost page 2");
    assert_eq!(p["pages_lost"], 1);
    assert_eq!(p["zones_closed"], 1, "the implicitly opened zone is closed");
    assert_eq!(p["zones_finished_by_controller"], 0, "40 of 48 pages: room for the rest");
    let z = sim.design::<Zns>();
    // Page 3's first write came after recovery, at page 3 while the pointer was at 2.
    assert_eq!(z.rejected(0x1bc), 1, "Zone Invalid Write");
    assert_eq!(z.zone(0), Zone { state: ZoneState::ImplicitlyOpen, write_pointer: 4 });
    assert_eq!(report.power.as_ref().map(|p| p.total.torn_pages), Some(1));
    // (run_keep verified every acknowledged write readable, after recovery and at the end.)
}

#[test]
fn a_zone_left_without_room_by_a_torn_page_is_finished_by_the_device() {
    // Full capacity: the torn page took one of the block's 48 pages, 46 are still owed.
    let mut c = one_block_zones(48);
    c.power.loss_at_ns = vec![2_200_000];
    let mut records = writes_cut_mid_zone();
    records.push(rec(10_000_000, Op::Write, 2, 1, PAGE));
    records.push(Record {
        op: Op::ZoneManagement(ssdlab_trace::ZoneAction::Reset),
        size_bytes: 0,
        ..rec(15_000_000, Op::Read, 0, 1, PAGE)
    });
    records.push(rec(30_000_000, Op::Write, 0, 1, PAGE));
    let (report, sim) = run_keep(&c, records);
    let p = &zns(&report)["power_loss"];
    assert_eq!(p["zones_finished_by_controller"], 1);
    let z = sim.design::<Zns>();
    assert_eq!(z.rejected(0x1b9), 2, "page 3 and the rewrite of page 2 find the zone full");
    assert_eq!(z.zone(0), Zone { state: ZoneState::ImplicitlyOpen, write_pointer: 1 }, "reset, then written again");
}

#[test]
fn a_full_zone_that_lost_its_tail_is_closed_or_past_the_active_limit_finished() {
    // Zone 0 (capacity 4) is full once page 3 is accepted at 3 ms; zones 1 and 2 are
    // opened at 3.1 and 3.2 ms. Power fails at 3.3 ms: page 3 is torn, the two other
    // writes were still queued. Zone 0 holds 3 pages; active again it would be a third
    // active zone (zones are recovered in order) where at most 2 may be.
    for (max_active, state) in [(0, ZoneState::Closed), (2, ZoneState::Full)] {
        let mut c = one_block_zones(4);
        c.power.loss_at_ns = vec![3_300_000];
        c.designs.get_mut("zns").expect("zns").insert("max_active_zones".into(), toml::Value::Integer(max_active));
        let mut records: Vec<Record> = (0..4).map(|p| rec(p * 1_000_000, Op::Write, p, 1, PAGE)).collect();
        records.push(rec(3_100_000, Op::Write, 48, 1, PAGE));
        records.push(rec(3_200_000, Op::Write, 96, 1, PAGE));
        let (report, sim) = run_keep(&c, records);
        let z = sim.design::<Zns>();
        assert_eq!(z.zone(0), Zone { state, write_pointer: 3 }, "max_active_zones {max_active}");
        assert_eq!(z.zone(1), Zone { state: ZoneState::Empty, write_pointer: 0 });
        assert_eq!(z.zone(2), Zone { state: ZoneState::Empty, write_pointer: 0 });
        let p = &zns(&report)["power_loss"];
        assert_eq!(p["write_pointers_moved_back"], 3);
        assert_eq!(p["zones_finished_by_controller"], u64::from(state == ZoneState::Full));
    }
}
