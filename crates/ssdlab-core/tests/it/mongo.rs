//! Mongo's queue-structured FTL (thesis §4.2.2, issue 20): balanced placement (round-robin
//! that skips busy chips and keeps valid data even per chip) and rapid warm-up's write
//! points started on random pages. Runs with invariant checks and `--verify` on.

use super::*;
use ssdlab_core::flash::NO_PAGE;
use ssdlab_core::ftl::Stream;

/// Four one-plane dies, SLC timing, a fresh drive.
fn four_dies() -> Config {
    let mut c = tiny(2, 2, 1, 1);
    slc_like(&mut c);
    c.ftl.allocation_order = "cwdp".into();
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c
}

/// `lpns` written one page at a time, in order.
fn page_writes(lpns: impl Iterator<Item = u64>) -> Vec<Record> {
    lpns.map(|lpn| rec(0, Op::Write, lpn, 1, 4096)).collect()
}

fn spread(sim: &Simulator) -> u64 {
    let v = &sim.ftl.plane_valid_units;
    v.iter().max().unwrap() - v.iter().min().unwrap()
}

/// 400 pages written in order, then only the pages round-robin put on the first plane
/// overwritten, again and again: round-robin keeps draining that plane of valid data
/// (each overwrite takes a page from it and gives one to the next plane in turn), while
/// balanced placement sends the rewrites where valid data is below the mean.
#[test]
fn balanced_placement_keeps_valid_data_even_where_round_robin_drifts() {
    let first_plane: Vec<u64> = (0..400).filter(|i| i % 4 == 0).collect();
    let mut records = page_writes(0..400);
    for _ in 0..6 {
        records.extend(page_writes(first_plane.iter().copied()));
    }
    let mut spreads = Vec::new();
    for kind in [PlaneAllocation::RoundRobin, PlaneAllocation::Balanced] {
        let mut c = four_dies();
        c.ftl.plane_allocation = kind;
        let (r, sim) = run_keep(&c, records.clone());
        assert_eq!(r.write.requests, records.len() as u64);
        assert_eq!(sim.ftl.plane_valid_units.iter().sum::<u64>(), 400, "{kind:?}");
        spreads.push(spread(&sim));
    }
    // Round-robin: after the first round the first plane holds 25 of the 400 pages, the
    // others 125 each, and further rounds keep it so. Balanced: no plane is taken while
    // it holds more than a block (48 pages) beyond the emptiest one.
    assert!(spreads[0] >= 90, "round-robin drifts: spread {}", spreads[0]);
    // (+ 2: a write can land on a plane at the limit while an overwrite takes a page
    // from the emptiest.)
    assert!(spreads[1] <= 48 + 2, "balanced: spread {}", spreads[1]);
}

/// With every die idle and valid data even, balanced placement is plain round-robin: the
/// same planes, the same results.
#[test]
fn balanced_placement_is_round_robin_on_an_even_idle_drive() {
    let records = page_writes(0..256);
    let mut reports = Vec::new();
    for kind in [PlaneAllocation::RoundRobin, PlaneAllocation::Balanced] {
        let mut c = four_dies();
        c.ftl.plane_allocation = kind;
        let (r, sim) = run_keep(&c, records.clone());
        assert_eq!(sim.ftl.plane_valid_units, vec![64; 4], "{kind:?}");
        reports.push(r.write.latency_ns.mean);
    }
    assert_eq!(reports[0], reports[1]);
}

/// A burst of writes at once: round-robin queues them on every die in turn; balanced
/// placement skips dies with work queued while others are idle and at or below the mean,
/// and spreads the burst as evenly (valid data stays within a page per die).
#[test]
fn balanced_placement_spreads_a_burst_over_idle_dies() {
    let mut c = four_dies();
    c.host.replay = ReplayMode::OpenLoop;
    c.host.queue_depth = 0;
    // Reads of pages on die 0 first keep it busy; the writes that follow at once go to
    // the idle dies while die 0 has queued work.
    c.precondition.used_fraction = 0.2;
    c.precondition.fill_invalid_to_gc_threshold = false;
    let mut records: Vec<Record> = (0..8).map(|k| rec(0, Op::Read, 4 * k, 1, 4096)).collect();
    records.extend((0..6).map(|k| rec(20_000, Op::Write, 2000 + k, 1, 4096)));
    let none = Box::new(|| Ok(Box::new(VecSource::new(Vec::new())) as Box<dyn RecordSource>));
    let before = Simulator::new(c.clone(), none, Observers::default()).expect("valid setup").ftl.plane_valid_units;
    let mut added = Vec::new();
    for kind in [PlaneAllocation::RoundRobin, PlaneAllocation::Balanced] {
        c.ftl.plane_allocation = kind;
        let (r, sim) = run_keep(&c, records.clone());
        assert_eq!(r.write.requests, 6);
        added.push(sim.ftl.plane_valid_units.iter().zip(&before).map(|(a, b)| a - b).collect::<Vec<_>>());
    }
    // Round-robin deals the six pages in turn, two to the busy die; balanced gives the
    // busy die none and the three idle ones two each.
    assert_eq!((added[0][0], added[0].iter().sum::<u64>()), (2, 6), "{:?}", added[0]);
    assert_eq!(added[1], vec![0, 2, 2, 2]);
}

/// Rapid warm-up: every user write point starts on a page drawn from what its block has
/// left, not all on the same one; the pages passed over hold nothing and are not the
/// run's wasted pages; the run is `--verify` clean through GC.
#[test]
fn write_points_start_on_random_pages_after_warm_up() {
    let mut c = tiny(1, 2, 1, 1);
    staircase_mlc(&mut c);
    c.ftl.user_write_points = 4;
    c.ftl.gc_through_user_write_points = true;
    c.precondition.used_fraction = 0.6;
    let records = random_requests(3000, 1, c.logical_pages(), Op::Write, 4096, 7);
    let pages = c.geometry.pages_per_block;

    let none = || Box::new(|| Ok(Box::new(VecSource::new(Vec::new())) as Box<dyn RecordSource>));
    let plain = Simulator::new(c.clone(), none(), Observers::default()).expect("valid setup");
    let mut c2 = c.clone();
    c2.precondition.write_points_random_start = true;
    let warm = Simulator::new(c2.clone(), none(), Observers::default()).expect("valid setup");
    let next_pages = |sim: &Simulator| -> Vec<Option<u32>> {
        (0..2)
            .flat_map(|plane| (0..4).map(move |k| (plane, k)))
            .map(|(plane, k)| {
                let block = sim.ftl.planes[plane].active[Stream::user(k).index()];
                (block != NO_PAGE).then(|| sim.ftl.blocks[block as usize].write_ptr)
            })
            .collect()
    };
    // Without it, the fill's write point is the only one open; the others open a fresh
    // block (page 0) on their first write.
    let before = next_pages(&plain);
    assert!(before[1..4].iter().chain(&before[5..]).all(Option::is_none), "{before:?}");
    let after = next_pages(&warm);
    // (A write point opens its block only while that leaves the plane above its
    // background threshold; the fill may have used one of the blocks it kept for them.)
    assert!(after.iter().all(|p| p.is_none_or(|p| p < pages)), "{after:?}");
    assert!(after.iter().filter(|p| p.is_some()).count() >= 7, "{after:?}");
    let distinct: std::collections::BTreeSet<_> = after.iter().collect();
    assert!(distinct.len() >= 5, "eight write points on random pages: {after:?}");
    let skipped = warm.precondition_report().write_point_skipped_pages;
    // The write points the fill did not use opened fresh blocks: all their pages before
    // the start were skipped; the fill's own (k = 0) skipped part of what it had left.
    let fresh: u64 = [1, 2, 3, 5, 6, 7].iter().filter_map(|&i| after[i]).map(|p| p as u64).sum();
    let all: u64 = after.iter().flatten().map(|&p| p as u64).sum();
    assert!((fresh..=all).contains(&skipped), "{skipped} skipped, {fresh} by fresh write points, {all} in all");
    assert_eq!(plain.precondition_report().write_point_skipped_pages, 0);

    let (r, _) = run_keep(&c2, records);
    assert_eq!(r.flash.wasted_pages, 0, "skipped warm-up pages are not the run's");
    assert!(r.gc.moved_pages > 0, "the run reaches GC");
}
