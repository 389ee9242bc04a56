//! Issue 14: DIR's write and read paths and its baselines' switch.

use super::timing::{commands, run_logged};
use super::*;
use ssdlab_core::engine::occupancy::{Activity, CommandKind, Resource};

/// One die with two TLC planes (staircase layout), the scheme, no preconditioning.
fn dir_drive(scheme: DirScheme) -> Config {
    let mut c = tiny(1, 1, 1, 2);
    c.dir.scheme = scheme;
    c
}

/// LDPC reads at `rber` × each page type's factor, at their expected error count, with
/// no retention or read-disturb terms.
fn ldpc_at(c: &mut Config, rber: f64, factors: &[f64]) {
    c.reliability = Reliability {
        enabled: true,
        rber_by_pe: vec![(0, rber)],
        page_type_factor: factors.to_vec(),
        retention_per_decade: 0.0,
        read_disturb_per_million: 0.0,
        bit_errors: BitErrors::Expected,
        ..Reliability::default()
    };
    c.ecc.scheme = EccScheme::Ldpc;
}

/// `n` two-page writes of logical pages (2k, 2k + 1), far apart in time.
fn pair_writes(n: u64) -> Vec<Record> {
    (0..n).map(|k| rec(k * 20_000_000, Op::Write, 2 * k, 2, 4096)).collect()
}

#[test]
fn a_group_of_adjacent_pages_lands_as_halves_on_two_planes_with_different_types_in_one_program() {
    let c = dir_drive(DirScheme::Dir);
    let l = run_logged(&c, pair_writes(6));
    let d = l.report.dir.clone().expect("dir section");
    assert_eq!((d.groups, d.free_writes, d.broken_groups), (6, 0, 0));
    // Every group is one two-plane program; after the first two (fresh blocks offer only
    // LSB pages until the LSB pages of the next wordline are in) the two pages take
    // different types.
    assert_eq!(l.report.flash.multi_plane_commands, 6);
    assert!(d.same_type_pairs <= 2, "{d:?}");
    assert!(d.pairs_by_types.keys().any(|k| k == "LSB-MSB" || k == "MSB-LSB"), "{d:?}");
    let programs: Vec<_> = commands(&l.log).into_iter().filter(|c| c.2 == CommandKind::Program).collect();
    assert_eq!(programs.len(), 6);
    for (start, _, _, _) in &programs {
        let planes = l
            .log
            .iter()
            .filter(|i| i.start_ns == *start && i.activity == Activity::Command(CommandKind::Program))
            .filter(|i| matches!(i.resource, Resource::Plane(_)))
            .count();
        assert_eq!(planes, 2, "a group's program holds both planes");
    }
    assert_eq!(d.interleaved_write_share, 1.0);
    assert_eq!(l.report.mapping.expect("half-page map").split_logical_pages, 12);
}

#[test]
fn a_read_of_a_group_reads_both_pages_once_in_one_enhanced_multi_plane_sense() {
    let c = dir_drive(DirScheme::Dir);
    let mut records = pair_writes(3);
    // Read logical page 2 alone, then pages 2-3 together: both need the same two pages.
    records.push(rec(200_000_000, Op::Read, 2, 1, 4096));
    records.push(rec(300_000_000, Op::Read, 2, 2, 4096));
    let l = run_logged(&c, records);
    let reads: Vec<_> = commands(&l.log).into_iter().filter(|c| c.2 == CommandKind::Read).collect();
    assert_eq!(reads.len(), 2, "one command per read request: {reads:?}");
    let d = l.report.dir.unwrap();
    // 2 page reads for 1 logical page, then 2 for 2 (the dummy read is de-duplicated).
    assert!((d.read_amplification - 4.0 / 3.0).abs() < 1e-9, "{d:?}");
    assert_eq!(d.multi_plane_read_share, 1.0);
    // One sense of the slower page: the enhanced read does not sense twice.
    let (start, end, _, _) = reads[0];
    assert!(end - start < 2 * 50_000, "{reads:?}");
}

#[test]
fn a_groups_retries_follow_the_mean_rber_of_its_two_pages() {
    // Pages read at 0.005 × the type's factor; a group decodes at the mean of its two
    // pages' RBER (DIR §2.4), so each of its two page reads takes that mean's retries.
    let mut c = dir_drive(DirScheme::Dir);
    let factors = vec![0.8, 1.2, 1.6];
    ldpc_at(&mut c, 0.005, &factors);
    let mut records = pair_writes(8);
    records.extend((0..8).map(|k| rec(500_000_000 + k * 10_000_000, Op::Read, 2 * k, 2, 4096)));
    let report = run(&c, records);
    let d = report.dir.clone().unwrap();
    let names = ["LSB", "CSB", "MSB"];
    let ty = |n: &str| names.iter().position(|x| *x == n).unwrap();
    let retries = |rber: f64| c.ecc.decode(rber, 0, 0).retries;
    let (mut expected, mut slowest, mut slowest_alone) = (0u64, 0, 0);
    for (pair, &n) in &d.pairs_by_types {
        let (a, b) = pair.split_once('-').unwrap();
        let (ra, rb) = (0.005 * factors[ty(a)], 0.005 * factors[ty(b)]);
        expected += n * 2 * retries((ra + rb) / 2.0) as u64;
        slowest = slowest.max(retries((ra + rb) / 2.0));
        slowest_alone = slowest_alone.max(retries(ra).max(retries(rb)));
    }
    let e = report.errors.unwrap();
    assert_eq!(e.read_retries, expected, "{d:?} {e:?}");
    // A request waits for its slowest page: the pair's mean takes fewer retries than
    // its worse page would alone (DIR §2.4: 3 retries at 0.006 become 2 at 0.0055).
    assert_eq!(e.retries_per_read.iter().rposition(|&n| n > 0).unwrap() as u32, slowest);
    assert!(slowest < slowest_alone, "{slowest} vs {slowest_alone}: {d:?}");
}

#[test]
fn noac_never_issues_a_multi_plane_command_and_ac_never_interleaves() {
    let mut records = pair_writes(40);
    records.extend((0..40).map(|k| rec(1_000_000_000 + k * 10_000, Op::Read, 2 * k, 2, 4096)));
    let noac = run(&dir_drive(DirScheme::Noac), records.clone());
    assert_eq!(noac.flash.multi_plane_commands, 0);
    let d = noac.dir.unwrap();
    assert_eq!((d.multi_plane_read_share, d.interleaved_write_share), (0.0, 0.0));
    let ac = run(&dir_drive(DirScheme::Ac), records.clone());
    assert!(ac.flash.multi_plane_commands > 0, "pages of one request at the same address pair up");
    assert_eq!(ac.dir.unwrap().interleaved_write_share, 0.0);
    assert!(ac.mapping.is_none(), "AC keeps the page map");
    let inter = run(&dir_drive(DirScheme::Interleaving), records.clone());
    assert!(inter.dir.unwrap().interleaved_write_share > 0.5);
    let dir = run(&dir_drive(DirScheme::Dir), records);
    assert_eq!(dir.dir.unwrap().interleaved_write_share, 1.0);
}

#[test]
fn dir_keeps_every_invariant_and_the_data_through_gc_and_power_loss() {
    for seed in 0..6u64 {
        let mut c = tiny(2, 1, 1, 2);
        c.dir.scheme = DirScheme::Dir;
        c.precondition.used_fraction = 0.5;
        c.seed = seed;
        let span = c.logical_pages();
        let mut records = random_requests(1500, 2, span, Op::Write, 4096, seed);
        records.extend(random_requests(300, 1, span, Op::Write, 4096, seed + 100));
        records.extend(random_requests(500, 2, span, Op::Read, 4096, seed + 200));
        for (i, r) in records.iter_mut().enumerate() {
            r.arrival_ns = i as u64 * 300_000;
        }
        if seed % 2 == 1 {
            c.power.loss_at_ns = vec![200_000_000];
        }
        let report = run(&c, records);
        assert!(report.gc.erases > 0, "seed {seed}: GC ran");
        assert!(report.dir.unwrap().groups > 500);
    }
}

#[test]
fn gc_recovers_the_surviving_page_of_a_half_overwritten_pair_whole() {
    // Pairs (2k, 2k + 1) everywhere, then the odd page of every pair overwritten alone:
    // every pair page holds one valid half. GC must de-interleave the even pages.
    let mut c = dir_drive(DirScheme::Dir);
    c.ftl.over_provisioning = 0.3;
    let span = c.logical_pages() / 2 * 2;
    let mut records: Vec<Record> = (0..span / 2).map(|k| rec(k * 3_000_000, Op::Write, 2 * k, 2, 4096)).collect();
    let t0 = span * 3_000_000;
    records.extend((0..span / 2).map(|k| rec(t0 + k * 3_000_000, Op::Write, 2 * k + 1, 1, 4096)));
    let t1 = 2 * t0;
    records.extend((0..span / 2).map(|k| rec(t1 + k * 3_000_000, Op::Write, 2 * k + 1, 1, 4096)));
    let report = run(&c, records);
    let d = report.dir.unwrap();
    assert!(report.gc.erases > 0);
    assert!(d.gc_deinterleaved > 0, "{d:?}");
    let m = report.mapping.unwrap();
    // Of the 2 × groups logical pages written split, the odd ones were rewritten whole
    // and every de-interleaved even one is whole again.
    assert_eq!(d.groups, span / 2);
    assert_eq!(m.split_logical_pages, span / 2 - d.gc_deinterleaved, "{m:?} {d:?}");
}

#[test]
fn a_read_of_one_logical_page_of_a_pair_moves_its_two_halves_and_decodes_once() {
    // A slow bus (40,960 ns a page) makes the bytes each read moves visible; every read
    // takes two retries (0.0052 is between the 0.005 and 0.006 steps).
    let mut c = dir_drive(DirScheme::Dir);
    c.flash.transfer_ns_per_byte = 10.0;
    c.flash.retry_sense_latency_ns = 24_000;
    ldpc_at(&mut c, 0.0052, &[1.0, 1.0, 1.0]);
    let mut records = pair_writes(3);
    // Logical page 2 alone, then pages 2 and 3, the pair's both halves.
    records.push(rec(200_000_000, Op::Read, 2, 1, 4096));
    records.push(rec(300_000_000, Op::Read, 2, 2, 4096));
    let l = run_logged(&c, records);
    let page_ns = 40_960;
    let moved = |from: u64, to: u64| -> u64 {
        l.log
            .iter()
            .filter(|i| matches!(i.activity, Activity::TransferOut { .. }) && i.start_ns >= from && i.end_ns <= to)
            .map(|i| i.end_ns - i.start_ns)
            .sum()
    };
    // One logical page: half of each page, one page's worth, before and in each of the
    // two retry rounds; both: both pages each time.
    assert_eq!(moved(200_000_000, 300_000_000), 3 * page_ns);
    assert_eq!(moved(300_000_000, u64::MAX), 3 * 2 * page_ns);
    let e = l.report.errors.unwrap();
    // One codeword decoded for the first read, two for the second (not one per page).
    assert_eq!(e.decoded_reads, 3, "{e:?}");
    assert_eq!(e.read_retries, 3 * 2);
    assert_eq!(l.requests[3].read_retries, 2);
    assert_eq!(l.requests[4].read_retries, 4);
    // The first read still senses both pages in one command and waits for the slower.
    assert!(l.requests[3].dominant_page_type >= 0);
}

/// The largest page type among `records`' reads, per read, on `c`.
fn read_dominant_types(c: &Config, records: Vec<Record>) -> Vec<i32> {
    let l = run_logged(c, records);
    l.requests.iter().filter(|r| r.op == "read").map(|r| r.dominant_page_type).collect()
}

#[test]
fn with_dies_at_random_pages_a_baseline_read_of_n_pages_waits_for_an_msb_page_as_1_minus_two_thirds_to_the_n() {
    // DIR §2.5's premise: 32 dies, 32-page writes over 1,024 pages, then N-page reads at
    // N-aligned offsets (N dies each). Each die starts at a random page of its block:
    // a read meets an MSB page with probability about 1 − (2/3)^N. With every die on the
    // same page, as the fill leaves it, all N pages share one type: about 1/3 at any N.
    let mut c = tiny(8, 4, 1, 1);
    c.dir.scheme = DirScheme::Ac;
    c.ftl.plane_allocation = PlaneAllocation::RoundRobin;
    let writes: Vec<Record> = (0..32).map(|k| rec(k * 20_000_000, Op::Write, 32 * k, 32, 4096)).collect();
    for (n, random) in [(2u64, true), (4, true), (2, false), (4, false)] {
        c.precondition.write_points_random_start = random;
        let mut records = writes.clone();
        records.extend((0..1024 / n).map(|k| rec(1_000_000_000 + k * 1_000_000, Op::Read, n * k, n, 4096)));
        let types = read_dominant_types(&c, records);
        let msb = types.iter().filter(|&&t| t == 2).count() as f64 / types.len() as f64;
        let expected = if random { 1.0 - (2.0f64 / 3.0).powi(n as i32) } else { 1.0 / 3.0 };
        assert!((msb - expected).abs() < 0.1, "N = {n}, random starts {random}: {msb:.3} vs {expected:.3}");
    }
}

#[test]
fn random_starts_keep_a_dies_planes_on_one_page_and_put_dies_on_unrelated_pages() {
    let mut c = tiny(4, 2, 1, 2);
    c.precondition.write_points_random_start = true;
    let none = || Box::new(|| Ok(Box::new(VecSource::new(Vec::new())) as Box<dyn RecordSource>));
    let sim = Simulator::new(c.clone(), none(), Observers::default()).expect("valid setup");
    let next = |plane: usize| {
        let block = sim.ftl.planes[plane].active[ssdlab_core::ftl::Stream::user(0).index()];
        assert_ne!(block, ssdlab_core::flash::NO_PAGE, "plane {plane} has an open block");
        sim.ftl.blocks[block as usize].write_ptr
    };
    let dies: Vec<u32> = (0..8).map(|d| next(2 * d)).collect();
    for d in 0..8 {
        assert_eq!(next(2 * d), next(2 * d + 1), "die {d}: both planes on one page ({dies:?})");
    }
    let distinct: std::collections::BTreeSet<_> = dies.iter().collect();
    assert!(distinct.len() >= 5, "eight dies on random pages: {dies:?}");
    assert!(sim.precondition_report().write_point_skipped_pages > 0);
}

/// DIR §3.1: a free (ungrouped) sub-request asks for an LSB page first
/// (`dir.free_page_type`), which relaxed program order always offers. Single-page writes
/// are all free, so on a fresh drive every one of them is programmed into an LSB page,
/// where AC's strict order takes each plane's pages in the staircase's order.
#[test]
fn free_writes_take_lsb_pages_first() {
    // 24 writes, 12 per plane.
    let writes: Vec<Record> = (0..24).map(|k| rec(k * 20_000_000, Op::Write, k, 1, 4096)).collect();
    let dir = run(&dir_drive(DirScheme::Dir), writes.clone());
    let d = dir.dir.clone().unwrap();
    assert_eq!((d.groups, d.free_writes), (0, 24), "{d:?}");
    assert_eq!(dir.flash.programs_by_page_type, vec![24, 0, 0]);
    let ac = run(&dir_drive(DirScheme::Ac), writes);
    let staircase = ssdlab_core::flash::PageLayout::staircase(3, 48, 1);
    let in_order: Vec<u64> =
        (0..3).map(|t| 2 * staircase.types[..12].iter().filter(|&&x| x == t).count() as u64).collect();
    assert_eq!(ac.flash.programs_by_page_type, in_order);
    assert!(in_order[0] < 24);
}

/// What a power loss drops (`dir_power_lost`): the groups queued at the loss are gone
/// with their writes, and so are their partner links. Transaction slots restart after
/// the recovery, so a link left behind would tie the new writes in those slots
/// together. Here an 8-page write forms four groups, and the loss comes during the
/// first group's program (the other three queued); after the recovery eight single-page
/// writes arrive together. They are free writes: each is programmed alone, no group is
/// formed or broken, and the run has exactly the multi-plane programs it has without
/// them.
#[test]
fn a_power_loss_forgets_the_groups_queued_at_the_loss() {
    let mut c = dir_drive(DirScheme::Dir);
    c.power.loss_at_ns = vec![200_000];
    let before = vec![rec(0, Op::Write, 0, 8, 4096)];
    let mut records = before.clone();
    records.extend((0..8).map(|k| rec(1_000_000_000, Op::Write, 100 + k, 1, 4096)));
    let alone = run(&c, before);
    let report = run(&c, records);
    assert_eq!(report.power.as_ref().expect("power section").losses, 1);
    let d = report.dir.clone().unwrap();
    assert_eq!((d.groups, d.free_writes, d.broken_groups), (4, 8, 0), "{d:?}");
    assert_eq!(report.write.requests, 8, "the eight writes after the recovery complete");
    assert_eq!(report.flash.multi_plane_commands, alone.flash.multi_plane_commands, "{d:?}");
    assert_eq!(report.flash.user_page_programs, alone.flash.user_page_programs + 8);
}
