//! The core's general mechanisms that designs build on (issue 12): commands of any
//! length (read retries), enhanced multi-plane commands at different addresses, and GC
//! moves to another chip. Closed-form cases, with the occupancy checker and `--verify` on.

use super::timing::commands;
use super::*;
use ssdlab_core::config::{GcDestination, LayoutKind, SlcGcDestination};
use ssdlab_core::engine::occupancy::{CommandKind, Interval, Resource};

/// 4 KiB at 0.01 ns/B (the `tiny` channel): ceil(40.96) ns.
const X: u64 = 41;

/// Runs with checks, `--verify` and the occupancy log (the timing tests' runner); returns
/// the report, per-request latencies by id and the log.
fn run_logged(config: &Config, records: Vec<Record>) -> (Report, Vec<u64>, Vec<Interval>) {
    let l = super::timing::run_logged(config, records);
    let lat = super::timing::latencies(&l);
    (l.report, lat, l.log)
}

#[test]
fn enhanced_multi_plane_read_senses_pages_at_different_addresses_once() {
    // One die, two planes, page p of a block has type p % 3 (sequential layout); logical
    // page k lives on plane k % 2. Page 4 is the MSB page 2 of plane 0, page 1 the LSB
    // page 0 of plane 1: different addresses.
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.allocation_order = "pcwd".into();
    c.flash.layout = LayoutKind::Sequential;
    let writes = [0u64, 2, 4, 1].iter().enumerate().map(|(i, &p)| rec(i as u64 * 10_000_000, Op::Write, p, 1, 4096));
    let mut records: Vec<Record> = writes.collect();
    // A read of page 2 (the CSB page 1 of plane 0) starts at once; the reads of pages 4
    // and 1 queue behind it.
    let t = 100_000_000;
    records.extend([2, 4, 1].map(|p| rec(t, Op::Read, p, 1, 4096)));
    let x2 = (2.0f64 * 4096.0 * 0.01).ceil() as u64;
    let first = 70_000 + X;
    // Conventional: different addresses do not pair; the MSB read, then the LSB read.
    let (report, lat, _) = run_logged(&c, records.clone());
    assert_eq!(lat[4..], [first, first + 90_000 + X, first + 90_000 + X + 50_000 + X]);
    assert_eq!(report.flash.multi_plane_commands, 0);
    // Enhanced: one command, one sense of the slowest (MSB) page, both pages transferred.
    c.flash.multi_plane_any_address = true;
    let (report, lat, log) = run_logged(&c, records);
    assert_eq!(lat[4..], [first, first + 90_000 + x2, first + 90_000 + x2]);
    assert_eq!(report.flash.multi_plane_commands, 1);
    let reads: Vec<_> = commands(&log).into_iter().filter(|c| c.2 == CommandKind::Read).map(|c| (c.0, c.1)).collect();
    assert_eq!(reads, vec![(t, t + first), (t + first, t + first + 90_000 + x2)]);
}

#[test]
fn each_read_retry_adds_a_decode_a_sense_and_a_transfer() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.flash.ecc_decode_ns = 5_000;
    let records = vec![rec(0, Op::Write, 0, 1, 4096), rec(10_000_000, Op::Read, 0, 1, 4096)];
    let (report, lat, _) = run_logged(&c, records.clone());
    let base = 50_000 + X + 5_000;
    assert_eq!(lat[1], base);
    assert_eq!(report.flash.read_retries, 0);
    for n in [1u64, 3] {
        c.flash.read_retries = n as u32;
        // A soft sense of its own length.
        c.flash.retry_sense_latency_ns = 24_000;
        let (report, lat, log) = run_logged(&c, records.clone());
        assert_eq!(lat[1], base + n * (5_000 + 24_000 + X), "{n} retries");
        assert_eq!(report.flash.read_retries, n);
        // The die is held for all of it but the final decode.
        let read = commands(&log).into_iter().find(|c| c.2 == CommandKind::Read).expect("a read");
        assert_eq!(read.1 - read.0, 50_000 + X + n * (5_000 + 24_000 + X));
        // Without a soft-sense time a retry senses the page again at its read latency.
        c.flash.retry_sense_latency_ns = 0;
        let (_, lat, _) = run_logged(&c, records.clone());
        assert_eq!(lat[1], base + n * (5_000 + 50_000 + X), "{n} retries at the read latency");
    }
}

#[test]
fn gc_moves_to_another_chip_occupy_both_dies_and_both_channels_for_their_steps() {
    // Two channels with one single-plane chip each: a page moved off chip 0 is sensed by
    // die 0 and carried out over channel 0, then carried in over channel 1 and programmed
    // by die 1 (and the other way round).
    let mut c = tiny(2, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 32;
    c.geometry.pages_per_block = 16;
    c.ftl.gc_destination = GcDestination::OtherChip;
    // Overwrites of a small working set, spaced so that each finishes before the next.
    let pages = c.logical_pages() / 2;
    let records: Vec<Record> = random_requests(3_000, 1, pages, Op::Write, 4096, 7)
        .into_iter()
        .enumerate()
        .map(|(i, mut r)| {
            r.arrival_ns = i as u64 * 2_000_000;
            r
        })
        .collect();
    let (report, _, log) = run_logged(&c, records);
    let cmds = commands(&log);
    let outs: Vec<_> = cmds.iter().filter(|c| c.2 == CommandKind::MoveOut).collect();
    assert!(outs.len() > 50, "GC moved pages off chip: {:?}", report.gc);
    assert_eq!(report.gc.moved_pages, outs.len() as u64, "every move crossed chips (one page each)");
    assert_eq!(report.flash.copybacks, 0);
    for &&(start, end, _, die) in &outs {
        // Sense, then the transfer out on the die's own channel (nobody else on it).
        assert_eq!(end - start, 50_000 + X, "move out of die {die} at {start}");
        let channel_busy =
            log.iter().any(|i| i.resource == Resource::Channel(die) && i.start_ns == start + 50_000 && i.end_ns == end);
        assert!(channel_busy, "channel {die} carries the page out at {}", start + 50_000);
        // The other die transfers it in and programs it, after the move out ended.
        let other = 1 - die;
        let program = cmds
            .iter()
            .find(|c| c.3 == other && c.2 == CommandKind::GcMove && c.0 >= end)
            .unwrap_or_else(|| panic!("die {other} programs the page moved out at {end}"));
        assert_eq!(program.1 - program.0, X + 500_000, "transfer in + program on die {other}");
        let channel_in = log
            .iter()
            .any(|i| i.resource == Resource::Channel(other) && i.start_ns == program.0 && i.end_ns == program.0 + X);
        assert!(channel_in, "channel {other} carries the page in at {}", program.0);
    }
}

/// Block (within its plane) and page of the page `lpn` is mapped to after the run.
fn placed(sim: &Simulator, lpn: u32) -> (u32, u32) {
    let ppn = sim.ftl.lookup(lpn).expect("written");
    let a = &sim.ftl.addr;
    (a.block_in_plane(a.block_of(ppn)), a.page_in_block(ppn))
}

/// Runs writes of the given logical pages one at a time, with checks and `--verify`, and
/// returns the simulator for inspection.
fn run_writes(c: &Config, lpns: &[u64]) -> Simulator<'static> {
    let records: Vec<Record> =
        lpns.iter().enumerate().map(|(i, &p)| rec(i as u64 * 10_000_000, Op::Write, p, 1, 4096)).collect();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(c.clone(), factory, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.run_to_end().expect("run succeeds");
    sim
}

#[test]
fn thirty_two_write_points_take_writes_in_turn() {
    // One chip of one plane, empty: each user write point opens the next free block.
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.blocks_per_plane = 4 * 32 + 8;
    c.precondition.used_fraction = 0.0;
    c.ftl.user_write_points = 32;
    let lpns: Vec<u64> = (0..65).collect();
    let sim = run_writes(&c, &lpns);
    // Round robin: write k goes to write point k mod 32, whose block is the k-th opened.
    for k in 0..65u32 {
        assert_eq!(placed(&sim, k), (k % 32, k / 32), "write {k}");
    }
}

#[test]
fn fastest_page_write_points_take_the_write_point_whose_next_page_is_fastest() {
    // Sequential TLC layout: page p of a block is of type p % 3. With two write points
    // and the fastest-page choice, a write goes where the next page has the lowest type
    // (ties to write point 0), as (write point 0's next type, write point 1's): (0, 0)
    // → wp 0; (1, 0) → wp 1; (1, 1) → wp 0; (2, 1) → wp 1; (2, 2) → wp 0; (0, 2) → wp 0
    // (its page 3 is LSB again); (1, 2) → wp 0.
    let mut c = tiny(1, 1, 1, 1);
    c.flash.layout = LayoutKind::Sequential;
    c.precondition.used_fraction = 0.0;
    c.ftl.user_write_points = 2;
    c.ftl.write_point_choice = ssdlab_core::config::WritePointChoice::FastestPage;
    let sim = run_writes(&c, &[0, 1, 2, 3, 4, 5, 6]);
    let got: Vec<(u32, u32)> = (0..7).map(|k| placed(&sim, k)).collect();
    assert_eq!(got, vec![(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (0, 3), (0, 4)]);
    // Round robin alternates whatever the page types.
    c.ftl.write_point_choice = ssdlab_core::config::WritePointChoice::RoundRobin;
    let sim = run_writes(&c, &[0, 1, 2, 3]);
    let got: Vec<(u32, u32)> = (0..4).map(|k| placed(&sim, k)).collect();
    assert_eq!(got, vec![(0, 0), (1, 0), (0, 1), (1, 1)]);
}

#[test]
fn gc_through_user_write_points_keeps_the_invariants_and_never_opens_a_gc_block() {
    let mut c = tiny(1, 1, 1, 2);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 32;
    c.geometry.pages_per_block = 16;
    c.ftl.user_write_points = 4;
    c.ftl.gc_through_user_write_points = true;
    let pages = c.logical_pages();
    let lpns: Vec<u64> =
        random_requests(4_000, 1, pages, Op::Write, 4096, 11).iter().map(|r| r.offset_bytes / 4096).collect();
    // Checks (every completion) and --verify are on.
    let sim = run_writes(&c, &lpns);
    assert!(sim.ftl.counters.gc_moved_pages > 100, "GC moved pages: {:?}", sim.ftl.counters);
    for p in 0..2 {
        assert_eq!(sim.ftl.planes[p].active[ssdlab_core::ftl::Stream::GC.index()], ssdlab_core::flash::NO_PAGE);
    }
}

/// A single-plane drive with an SLC cache of 8 blocks in `levels` levels; GC of SLC blocks
/// moves data to `destination`. Overwrites of a hot set among cold pages exhaust the cache.
fn slc_levels_run(levels: u32, destination: SlcGcDestination) -> (Simulator<'static>, Report) {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.blocks_per_plane = 64;
    c.ftl.slc_blocks_per_plane = 8;
    c.flash.slc_pages_per_block = 16;
    c.ftl.slc_levels = levels;
    c.ftl.slc_gc_destination = destination;
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let records: Vec<Record> = (0..2_000u64)
        .map(|i| {
            let page = if rng.random_bool(0.7) { rng.random_range(0..40) } else { rng.random_range(40..1_000) };
            rec(i * 2_000_000, Op::Write, page, 1, 4096)
        })
        .collect();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(c, factory, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    (sim, report)
}

/// Pages programmed into SLC-mode blocks by GC (all SLC programs but the user ones).
fn slc_gc_programs(r: &Report) -> u64 {
    r.flash.slc_programs - (r.flash.slc_hit_ratio * r.flash.user_page_programs as f64).round() as u64
}

#[test]
fn gc_of_the_slc_cache_moves_data_between_slc_levels_or_out_of_the_cache() {
    // Out of the cache: GC programs only normal blocks; every SLC level above 0 is empty.
    let (sim, out) = slc_levels_run(3, SlcGcDestination::OutOfCache);
    assert!(out.gc.slc_erases > 10, "the SLC cache was cleaned: {:?}", out.gc);
    assert_eq!(slc_gc_programs(&out), 0);
    assert!(sim.ftl.blocks.iter().all(|b| b.slc_level == 0));
    // Next level: data that survives GC in level l goes to l + 1 while that level has
    // room; the rest still leaves the cache.
    let (sim, up) = slc_levels_run(3, SlcGcDestination::NextLevel);
    assert!(slc_gc_programs(&up) > 0, "GC programmed SLC pages: {:?}", up.flash);
    assert!(up.gc.moved_pages > slc_gc_programs(&up), "some data still left the cache");
    let holding =
        |level: u8| sim.ftl.blocks.iter().filter(|b| b.slc && b.slc_level == level && b.valid_pages > 0).count();
    assert!(holding(1) > 0 && holding(2) > 0, "levels 1 and 2 hold data: {} {}", holding(1), holding(2));
    // Same level: GC keeps level-0 data in level 0.
    let (sim, same) = slc_levels_run(1, SlcGcDestination::SameLevel);
    assert!(slc_gc_programs(&same) > 0);
    assert!(sim.ftl.blocks.iter().all(|b| b.slc_level == 0));
    // Promoted data holds SLC blocks that user writes then miss: the cache that evicts
    // serves every host write from SLC here, the one that promotes far fewer.
    assert_eq!(out.flash.slc_hit_ratio, 1.0);
    assert!(up.flash.slc_hit_ratio < 0.5, "{}", up.flash.slc_hit_ratio);
}

/// Runs `records` with every check on; returns the report and request latencies by id.
fn run_latencies(c: &Config, records: Vec<Record>) -> (Report, Vec<u64>) {
    let (report, lat, _) = run_logged(c, records);
    (report, lat)
}

#[test]
fn a_super_page_spans_its_dies_and_completes_when_the_last_one_has() {
    // Four single-die channels striped horizontally: the 16 KiB super-page's four pages
    // cross four buses at once, then all four dies program; one page's time each.
    let mut c = tiny(4, 1, 1, 1);
    slc_like(&mut c);
    c.ftl.super_page_channels = 4;
    let write = vec![rec(0, Op::Write, 0, 1, 16384), rec(10_000_000, Op::Read, 0, 1, 16384)];
    let (report, lat) = run_latencies(&c, write.clone());
    assert_eq!(lat, [X + 500_000, 50_000 + X]);
    assert_eq!(report.device.super_page_pages, Some(4));
    assert_eq!((report.device.channels, report.device.dies, report.device.page_size_bytes), (1, 1, 16384));
    // The same four pages written as four 4 KiB pages of a page-mapped drive, one per
    // die: the request completes when the last die does, at the same time.
    let mut pages = tiny(4, 1, 1, 1);
    slc_like(&mut pages);
    let (_, lat_pages) = run_latencies(&pages, vec![rec(0, Op::Write, 0, 4, 4096)]);
    assert_eq!(lat_pages[0], lat[0]);
    // Four dies of one bus striped vertically: the bus carries the pages in turn, the dies
    // program in parallel; the super-page is done when the last die, fed last, is.
    let mut v = tiny(1, 1, 4, 1);
    slc_like(&mut v);
    v.ftl.super_page_dies = 4;
    let (_, lat) = run_latencies(&v, write.clone());
    let x4 = (16384.0f64 * 0.01).ceil() as u64;
    assert_eq!(lat, [x4 + 500_000, 50_000 + x4]);
    // 2-D: two buses of two dies each.
    let mut d2 = tiny(2, 1, 2, 1);
    slc_like(&mut d2);
    d2.ftl.super_page_channels = 2;
    d2.ftl.super_page_dies = 2;
    let (report, lat) = run_latencies(&d2, write);
    let x2 = (8192.0f64 * 0.01).ceil() as u64;
    assert_eq!(lat, [x2 + 500_000, 50_000 + x2]);
    // The map has one entry per super-page: a quarter of the page map's.
    assert_eq!(report.device.mapping_table_bytes, 4 * pages.logical_pages() / 4);
    // Energy counts every member page: four pages programmed, four read.
    assert_eq!(report.flash.user_page_programs, 1);
    assert_eq!(report.energy_nj.program, 4.0 * pages.energy.program_nj[0]);
}

#[test]
fn a_write_of_part_of_a_super_page_reads_the_rest_first() {
    let mut c = tiny(4, 1, 1, 1);
    slc_like(&mut c);
    c.ftl.super_page_channels = 4;
    // A 4 KiB write into a written 16 KiB super-page: read the super-page, then program it.
    let (report, lat) = run_latencies(&c, vec![rec(0, Op::Write, 0, 1, 16384), rec(10_000_000, Op::Write, 1, 1, 4096)]);
    assert_eq!(report.flash.update_reads, 1);
    assert_eq!(lat[1], 50_000 + X + X + 500_000);
}
