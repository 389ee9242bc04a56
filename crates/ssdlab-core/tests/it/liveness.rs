//! Liveness: a drive must never deadlock or clean forever. Each test is the distilled
//! scenario of swarm seeds that stalled or livelocked (named on each test), run with an
//! event budget so that a regression fails instead of hanging.

use super::*;
use ssdlab_core::SimError;

fn try_run(config: &Config, records: Vec<Record>, budget: u64) -> Result<Report, SimError> {
    try_run_with_budget(config, records, budget).map(|(report, _)| report)
}

/// One plane of one-shot TLC: 24 blocks of 12 pages (4 wordlines of 3 pages), 216
/// logical pages; emergency GC at 3 free blocks.
fn one_shot_plane(background_fraction: f64) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.blocks_per_plane = 24;
    c.geometry.pages_per_block = 12;
    c.flash.program_scheme = ProgramScheme::OneShot;
    c.flash.layout = LayoutKind::Sequential;
    c.flash.program_delay_ns = 1_000_000;
    c.ftl.gc_emergency_free_fraction = 0.1;
    c.ftl.gc_background_free_fraction = background_fraction;
    c.ftl.gc_idle_ns = 0;
    c.host.replay = ReplayMode::OpenLoop;
    c
}

/// Writes every logical page once in full page sets (3-page requests, no waste), then
/// the pages `every`-th apart in groups of three arriving together (full sets again).
fn fill_then_overwrite(logical: u64, every: u64) -> Vec<Record> {
    let mut records: Vec<Record> = (0..logical / 3).map(|i| rec(i * 10_000_000, Op::Write, i * 3, 3, 4096)).collect();
    let start = logical / 3 * 10_000_000;
    let overwrites: Vec<u64> = (0..logical).step_by(every as usize).collect();
    for (k, group) in overwrites.chunks(3).enumerate() {
        for &page in group {
            records.push(rec(start + k as u64 * 10_000_000, Op::Write, page, 1, 4096));
        }
    }
    records
}

/// Seeds 177, 178, 195, 227, 231, 407, 408, 594: one-shot GC programmed each victim's last
/// page set incomplete, so a victim with 10 of 12 pages valid took 12 pages to relocate
/// and freed none; once every block looked like that, emergency GC cleaned forever.
#[test]
fn one_shot_gc_fills_page_sets_across_victims() {
    let c = one_shot_plane(0.15);
    let logical = c.logical_pages();
    assert_eq!(logical, 216);
    // Every 12-page block of the sequential fill loses 2 pages: 10 valid of 12 each, and
    // the overwrites themselves take the plane down to the emergency threshold.
    let records = fill_then_overwrite(logical, 6);
    let report = try_run(&c, records, 200_000).expect("GC makes progress");
    assert!(report.gc.erases > 0, "GC must have reclaimed blocks");
    // Only the last set of a cleaning that runs out of victims may be incomplete.
    assert!(report.flash.wasted_pages < 12, "wasted {} pages", report.flash.wasted_pages);
}

/// Seed 594: with nothing to reclaim but the pages a previous cleaning wasted, one-shot GC
/// relocated a block into a new one that closed with as many wasted pages, which it then
/// cleaned again, forever. GC now starts only when it can reclaim more than it may waste.
#[test]
fn one_shot_gc_does_not_chase_its_own_wasted_pages() {
    // Background GC wanted all the time (the fill leaves 6 free blocks, the threshold is 12).
    let c = one_shot_plane(0.5);
    let logical = c.logical_pages();
    let mut records = fill_then_overwrite(logical, logical);
    // One page rewritten alone: its block gets 1 invalid page; relocating its 11 valid
    // pages wastes 1 and fills a GC block exactly, which closes with that 1 wasted page.
    let end = records.last().unwrap().arrival_ns;
    records.push(rec(end + 50_000_000, Op::Write, 100, 1, 4096));
    records.push(rec(end + 500_000_000, Op::Read, 0, 1, 4096));
    let report = try_run(&c, records, 200_000).expect("GC stops when it cannot gain");
    assert!(report.gc.moved_pages <= 12, "moved {} pages", report.gc.moved_pages);
}

/// Seed 387 (and part of 197, 511): a die whose plane needed GC but had nothing to clean
/// went idle; writes on other dies then invalidated its pages, but nothing woke it, so
/// its queued work waited forever. Here: a trim invalidates every page of idle dies.
#[test]
fn invalidations_wake_a_die_that_had_nothing_to_clean() {
    let mut c = tiny(2, 1, 1, 1);
    c.geometry.blocks_per_plane = 32;
    c.geometry.pages_per_block = 12;
    c.ftl.over_provisioning = 0.25;
    c.ftl.gc_emergency_free_fraction = 0.0;
    // Background GC wanted once 16 blocks are free: after the fill, with no invalid page.
    c.ftl.gc_background_free_fraction = 0.5;
    c.ftl.gc_idle_ns = 0;
    c.host.replay = ReplayMode::OpenLoop;
    c.host.unwritten_reads = WhatIfUnwritten::Controller;
    let logical = c.logical_pages();
    // Each page written once (static striping: even pages on die 0, odd on die 1)...
    let mut records: Vec<Record> = (0..logical / 4).map(|i| rec(i * 5_000_000, Op::Write, i * 4, 4, 4096)).collect();
    let end = records.last().unwrap().arrival_ns + 100_000_000;
    // ...then all trimmed at once (no die is involved), and one late request keeps the
    // run going. Only a woken die can clean the trimmed blocks before the end.
    records.push(rec(end, Op::Trim, 0, logical, 4096));
    records.push(rec(end + 1_000_000_000, Op::Trim, 0, 1, 4096));
    let report = try_run(&c, records, 200_000).expect("run completes");
    assert!(report.gc.erases > 0, "the trimmed blocks must be erased by background GC");
}

/// Seeds 9, 115, 197, 511: dynamic allocation let one plane collect more valid data than
/// it can hold (a round-robin write may move a page from any plane to this one); once full
/// with nothing invalid, the writes queued for it could never run. They now go to a plane
/// with room.
#[test]
fn writes_stuck_on_a_plane_full_of_valid_data_go_elsewhere() {
    let mut c = tiny(2, 1, 1, 1);
    c.geometry.blocks_per_plane = 16;
    c.geometry.pages_per_block = 12;
    c.ftl.over_provisioning = 0.25;
    c.ftl.gc_emergency_free_fraction = 0.0;
    c.ftl.gc_background_free_fraction = 0.1;
    c.ftl.plane_allocation = PlaneAllocation::RoundRobin;
    c.host.replay = ReplayMode::OpenLoop;
    let logical = c.logical_pages();
    // All at once, so round-robin alternates strictly: the k-th write goes to plane k % 2.
    // First every page (even pages on plane 0, odd on plane 1); then pairs that move an
    // odd page to plane 0 and rewrite the last odd page in place on plane 1. Plane 0
    // gains a valid page per pair and never gets an invalid one.
    let mut order: Vec<u64> = (0..logical).collect();
    for odd in (1..logical - 1).step_by(2) {
        order.push(odd);
        order.push(logical - 1);
    }
    let records: Vec<Record> = order.iter().map(|&page| rec(0, Op::Write, page, 1, 4096)).collect();
    let report = try_run(&c, records, 200_000).expect("no stall");
    assert!(report.gc.rerouted_writes > 0, "plane 0 fills up and its queued writes move to plane 1");
    assert_eq!(report.write.requests, order.len() as u64);
}

/// Seed 431: a read of a never-written page used to be placed during the run, as
/// preconditioned data; under a write burst that kept every plane at the threshold the
/// read failed the run. Such pages are now placed by preconditioning, before the run (the
/// pre-pass finds them), so the burst and GC never meet a read that needs room.
#[test]
fn never_written_reads_are_placed_while_gc_is_behind() {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.blocks_per_plane = 24;
    c.geometry.pages_per_block = 6;
    c.ftl.over_provisioning = 0.3;
    c.ftl.gc_emergency_free_fraction = 0.15;
    c.ftl.gc_background_free_fraction = 0.2;
    c.host.replay = ReplayMode::OpenLoop;
    c.host.unwritten_reads = WhatIfUnwritten::Precondition;
    // User writes go to an SLC-mode cache; cleaning it keeps the normal pool at the
    // emergency threshold while the burst lasts.
    c.ftl.slc_blocks_per_plane = 3;
    c.flash.slc_pages_per_block = 2;
    c.flash.slc_read_latency_ns = 30_000;
    c.flash.slc_program_latency_ns = 200_000;
    let logical = c.logical_pages();
    let written = logical * 3 / 4;
    // The first three quarters written, then rewritten at random in a burst far faster
    // than the drive (it queues). In the middle of it, reads of every never-written page
    // arrive together: placing them fills the user write point, and the next one needs
    // a free block while the plane is at the threshold.
    let mut records: Vec<Record> = (0..written).map(|page| rec(0, Op::Write, page, 1, 4096)).collect();
    records.extend(random_requests(3_000, 1, written, Op::Write, 4096, 5));
    for (k, page) in (written..logical).enumerate() {
        records.push(rec(400_000_000 + k as u64 * 1_000, Op::Read, page, 1, 4096));
    }
    records.sort_by_key(|r| r.arrival_ns);
    let report = try_run(&c, records, 500_000).expect("the reads are placed");
    assert_eq!(report.host.unwritten_pages_preplaced, logical - written);
    assert_eq!(report.host.unwritten_reads, 0, "every read finds its page mapped");
    assert_eq!(report.read.requests, logical - written);
}

/// Seeds 1255, 1543, 2751: reads of never-written pages arriving faster than GC frees
/// blocks used up every plane's room above the block GC keeps, and the next one failed
/// the run (later: waited for GC). A read never places data during the run now: a page
/// trimmed earlier in the run is unmapped and the controller answers its read without
/// flash, so the reads need no room at all.
#[test]
fn never_written_reads_wait_for_room_when_every_plane_is_full() {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.blocks_per_plane = 24;
    c.geometry.pages_per_block = 12;
    c.host.replay = ReplayMode::OpenLoop;
    c.host.unwritten_reads = WhatIfUnwritten::Precondition;
    c.precondition.used_fraction = 1.0;
    c.precondition.fill_invalid_to_gc_threshold = false;
    let logical = c.logical_pages();
    // Everything trimmed (the blocks hold only invalid pages now), then read back at once:
    // 216 pages to place with 6 free blocks.
    let records = vec![rec(1_000_000, Op::Trim, 0, logical, 4096), rec(2_000_000, Op::Read, 0, logical, 4096)];
    let report = try_run(&c, records, 200_000).expect("the reads are answered");
    assert_eq!(report.host.unwritten_reads, logical);
    assert_eq!(report.flash.page_reads, 0, "answered by the controller");
    assert_eq!(report.flash.user_page_programs + report.flash.gc_page_programs, 0, "a read never programs");
}
