//! Mapping kinds (issue 12 §2): half-page pairs interleaved over two planes (DIR's
//! storage), and subpage maps with packed writes (MGA). Closed-form timing where the
//! command shapes are known, and runs with GC and power losses under every check.

use super::timing::commands;
use super::*;
use ssdlab_core::engine::occupancy::{CommandKind, Interval};
use std::cell::RefCell;
use std::rc::Rc;

/// 4 KiB and 8 KiB over the `tiny` channel (0.01 ns/B), rounded up.
const X: u64 = 41;
const X2: u64 = 82;

/// Runs with checks, `--verify` and the occupancy log; keeps the simulator for inspection
/// (the timing tests' `run_logged` cannot: its observer borrows a local, so it drops the
/// simulator before returning).
/// Returns it with the report, the latency of each request by id, and the log.
fn run_kept(config: &Config, records: Vec<Record>) -> (Simulator<'static>, Report, Vec<u64>, Vec<Interval>) {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let latencies = Rc::new(RefCell::new(Vec::new()));
    let seen = latencies.clone();
    let observers = Observers {
        requests: Some(Box::new(move |r: &ssdlab_core::stats::RequestRecord| {
            let mut l = seen.borrow_mut();
            if l.len() <= r.id as usize {
                l.resize(r.id as usize + 1, 0);
            }
            l[r.id as usize] = r.latency_ns;
        })),
        ..Observers::default()
    };
    let mut config = config.clone();
    config.output.check_every = 1;
    let mut sim = Simulator::new(config, factory, observers).expect("valid setup");
    sim.record_occupancy();
    sim.set_verify(true);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    let log = sim.occupancy_log().expect("kept").to_vec();
    let lat = latencies.borrow().clone();
    (sim, report, lat, log)
}

/// One die with two planes, SLC latencies, logical page k on plane k % 2, half-page map.
fn half_page_die() -> Config {
    let mut c = tiny(1, 1, 1, 2);
    slc_like(&mut c);
    c.ftl.allocation_order = "pcwd".into();
    c.ftl.mapping = Mapping::HalfPages;
    c
}

#[test]
fn a_pair_of_adjacent_page_writes_is_interleaved_over_two_planes_by_one_program() {
    let c = half_page_die();
    let (sim, report, lat, log) = run_kept(&c, vec![rec(0, Op::Write, 0, 2, 4096)]);
    let f = &sim.ftl;
    let (a, b) = (f.unit_page(0, 0).unwrap(), f.unit_page(0, 1).unwrap());
    // Page A (plane 0) holds the first halves of pages 0 and 1, page B (plane 1) the
    // second halves: each physical page holds halves of two logical pages.
    assert_eq!((f.unit_page(1, 0), f.unit_page(1, 1)), (Some(a), Some(b)));
    assert_eq!((f.addr.plane_of(a), f.addr.plane_of(b)), (0, 1));
    assert_eq!((f.page_valid_units(a), f.page_valid_units(b)), (2, 2));
    let m = report.mapping.as_ref().expect("a mapping section");
    assert_eq!((m.interleaved_pairs, m.split_logical_pages), (1, 2));
    // One multi-plane program: both pages in, one program.
    assert_eq!(report.flash.multi_plane_commands, 1);
    assert_eq!(report.flash.user_page_programs, 2);
    let programs: Vec<_> = commands(&log).into_iter().filter(|c| c.2 == CommandKind::Program).collect();
    assert_eq!(programs.len(), 1);
    assert_eq!(lat[0], X2 + 500_000);
    // The map holds two physical pages per entry.
    assert_eq!(report.device.mapping_table_bytes, 2 * 4 * c.logical_pages());
}

#[test]
fn reading_an_interleaved_page_senses_both_pages_once_even_with_its_partner() {
    let c = half_page_die();
    let t = 10_000_000;
    let records = vec![
        rec(0, Op::Write, 0, 2, 4096),
        // Page 0 alone: both halves' pages, in one multi-plane read (one sense), moving
        // only page 0's two halves, one page's worth (engine/codewords.rs).
        rec(t, Op::Read, 0, 1, 4096),
        // Pages 0 and 1: the same two pages, read once (the partner's reads are dummies
        // the request already has).
        rec(2 * t, Op::Read, 0, 2, 4096),
    ];
    let (_, report, lat, log) = run_kept(&c, records);
    assert_eq!(lat[1..], [50_000 + X, 50_000 + X2]);
    assert_eq!(report.flash.page_reads, 4);
    let m = report.mapping.as_ref().expect("a mapping section");
    assert_eq!(m.extra_page_reads, 2, "one dummy read per request; the partner page adds none");
    let reads = commands(&log).into_iter().filter(|c| c.2 == CommandKind::Read).count();
    assert_eq!(reads, 2);
    // Without multi-plane reads the two pages are sensed one after the other.
    let mut c = c;
    c.flash.multi_plane = false;
    let (_, report, lat, _) = run_kept(
        &c,
        vec![rec(0, Op::Write, 0, 2, 4096), rec(t, Op::Write, 4, 1, 4096), rec(2 * t, Op::Read, 4, 1, 4096)],
    );
    assert_eq!(report.mapping.as_ref().unwrap().interleaved_pairs, 0, "no multi-plane program, no pair");
    assert_eq!(lat[2], 50_000 + X, "a page programmed alone holds both halves of its logical page");
}

/// One single-plane die with 16 KiB pages of four 4 KiB subpages and a subpage map.
fn subpage_die() -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.page_size_bytes = 16384;
    c.geometry.subpages_per_page = 4;
    c.ftl.mapping = Mapping::Subpages;
    c
}

#[test]
fn small_writes_of_different_requests_are_packed_into_one_page() {
    let c = subpage_die();
    // A whole-page write keeps the die busy while three 4 KiB writes of three logical
    // pages (subpages 0, 1 and 3) queue behind it.
    let sub = |lpn: u64, k: u64, at: u64| Record {
        arrival_ns: at,
        device: 0,
        offset_bytes: lpn * 16384 + k * 4096,
        size_bytes: 4096,
        op: Op::Write,
        hint: None,
    };
    let records = vec![rec(0, Op::Write, 10, 1, 16384), sub(0, 0, 1_000), sub(1, 1, 2_000), sub(2, 3, 3_000)];
    let (sim, report, lat, _) = run_kept(&c, records.clone());
    let first_end = 164 + 500_000;
    // Packed: one program of one page; only the three subpages cross the channel.
    let end = first_end + 123 + 500_000;
    assert_eq!(lat[1..], [end - 1_000, end - 2_000, end - 3_000]);
    assert_eq!(report.flash.user_page_programs, 2);
    let m = report.mapping.as_ref().expect("a mapping section");
    assert_eq!((m.packed_programs, m.split_logical_pages), (1, 3));
    // Slots in queue order: page 0's subpage 0, page 1's subpage 1, page 2's subpage 3.
    let f = &sim.ftl;
    let page = f.unit_page(0, 0).unwrap();
    assert_eq!((f.unit_page(1, 1), f.unit_page(2, 3)), (Some(page), Some(page)));
    assert_eq!([f.map_at(0), f.map_at(4 + 1), f.map_at(8 + 3)], [page * 4, page * 4 + 1, page * 4 + 2]);
    // The map is two-level: three logical pages need their subpage entries (4 × 4 bytes).
    let mut paged = c.clone();
    paged.ftl.mapping = Mapping::Page;
    let (_, page_report, _, _) = run_kept(&paged, records);
    assert_eq!(report.device.mapping_table_bytes, page_report.device.mapping_table_bytes + 3 * 4 * 4);
    // A page map programs each small write on a page of its own.
    assert_eq!(page_report.flash.user_page_programs, 4);
}

#[test]
fn unit_maps_keep_their_data_through_gc_compaction_and_power_losses() {
    for mapping in [Mapping::HalfPages, Mapping::Subpages] {
        let mut c = tiny(1, 1, 1, 2);
        slc_like(&mut c);
        c.geometry.blocks_per_plane = 24;
        c.geometry.pages_per_block = 16;
        c.geometry.page_size_bytes = 16384;
        c.geometry.subpages_per_page = 4;
        c.ftl.mapping = mapping;
        c.power.loss_at_ns = vec![700_000_000, 1_900_000_000];
        let span = c.logical_pages() * 4;
        // Overwrites of 4 KiB or 32 KiB anywhere in the drive, 1 ms apart.
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let records: Vec<Record> = (0..3_000)
            .map(|i| {
                let big = rng.random_bool(0.3);
                let size = if big { 32_768 } else { 4096 };
                let unit = rng.random_range(0..span - 8);
                Record {
                    arrival_ns: i * 1_000_000,
                    device: 0,
                    offset_bytes: unit * 4096,
                    size_bytes: size,
                    op: if rng.random_bool(0.2) { Op::Read } else { Op::Write },
                    hint: None,
                }
            })
            .collect();
        let (_, report, _, _) = run_kept(&c, records);
        let m = report.mapping.as_ref().expect("a mapping section");
        assert!(report.gc.erases > 20, "{mapping:?}: GC ran: {:?}", report.gc);
        assert!(m.gc_compactions > 0, "{mapping:?}: GC packed partly valid pages: {m:?}");
        assert_eq!(report.power.as_ref().map(|p| p.losses), Some(2), "{mapping:?}: both power losses");
    }
}
