//! Cases with answers known in closed form.

use super::*;

#[test]
fn lone_read_costs_sense_plus_transfer() {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.transfer_ns_per_byte = 3.0;
    let report = run(&c, vec![rec(1_000, Op::Read, 7, 1, 4096)]);
    // The never-written page is placed by preconditioning (the pre-pass finds it) at
    // page 0 of a block: LSB. The read then finds it mapped.
    let expected = 50_000 + 4096 * 3;
    assert_eq!(report.read.requests, 1);
    assert_eq!(report.read.latency_ns.max, expected);
    assert_eq!(report.host.unwritten_pages_preplaced, 1);
    assert_eq!(report.host.unwritten_reads, 0);
    assert_eq!(report.flash.user_page_programs + report.flash.gc_page_programs, 0, "a read never programs");
}

#[test]
fn writes_to_one_plane_serialise_exactly() {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.transfer_ns_per_byte = 3.0;
    let n = 9u64;
    let records: Vec<Record> = (0..n).map(|i| rec(0, Op::Write, i, 1, 4096)).collect();
    let report = run(&c, records);
    // Staircase TLC order of the first 9 pages: L L C L C M L C M.
    let types = [0usize, 0, 1, 0, 1, 2, 0, 1, 2];
    let program = [500_000u64, 2_000_000, 5_500_000];
    let transfer = 4096 * 3;
    let mut t = 0;
    let mut sum = 0;
    for ty in types {
        t += transfer + program[ty];
        sum += t;
    }
    assert_eq!(report.write.latency_ns.max, t, "last write completes after all nine");
    assert_eq!(report.write.latency_ns.mean, sum as f64 / n as f64);
    assert_eq!(report.flash.programs_by_page_type, vec![4, 3, 2]);
}

#[test]
fn saturation_throughput_is_planes_times_page_over_tprog() {
    // 4 channels x 2 dies, one plane each, fast channel: the array is the bottleneck.
    let mut c = tiny(4, 2, 1, 1);
    slc_like(&mut c);
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 64;
    c.ftl.plane_allocation = PlaneAllocation::RoundRobin;
    let records: Vec<Record> = (0..4000).map(|i| rec(0, Op::Write, i % 1000, 1, 4096)).collect();
    let report = run(&c, records);
    let expected = 8.0 * 4096.0 / 500e-6 / 1048576.0;
    let got = report.write.bandwidth_mib_s;
    assert!((got - expected).abs() / expected < 0.02, "got {got:.2} MiB/s, expected {expected:.2}");
}

#[test]
fn saturation_throughput_is_channel_bandwidth_when_channel_bound() {
    // One channel, 8 dies, slow bus: 4 KiB at 50 ns/B = 204.8 us per page, 8 dies could
    // program 8 pages per 500 us, the bus carries only 2.44.
    let mut c = tiny(1, 8, 1, 1);
    slc_like(&mut c);
    c.flash.transfer_ns_per_byte = 50.0;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 64;
    c.ftl.plane_allocation = PlaneAllocation::RoundRobin;
    let records: Vec<Record> = (0..3000).map(|i| rec(0, Op::Write, i % 1000, 1, 4096)).collect();
    let report = run(&c, records);
    let expected = 1.0 / (4096.0 * 50e-9) * 4096.0 / 1048576.0;
    let got = report.write.bandwidth_mib_s;
    assert!((got - expected).abs() / expected < 0.02, "got {got:.2} MiB/s, expected {expected:.2}");
}

#[test]
fn msb_dominated_share_follows_one_minus_two_thirds_to_the_n() {
    // PA §3: with type-blind allocation each sub-request's type is ~uniform over
    // LSB/CSB/MSB, so P(at least one MSB among n) = 1 - (2/3)^n.
    for n in 1..=8u64 {
        let mut c = tiny(4, 2, 1, 4);
        c.geometry.blocks_per_plane = 96;
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = 8;
        let span = 8000;
        let records = random_requests(3000, n, span, Op::Write, 4096, 40 + n);
        let report = run(&c, records);
        let expected = 1.0 - (2.0f64 / 3.0).powi(n as i32);
        let got = report.dominated_write_share[2];
        assert!((got - expected).abs() < 0.02, "n = {n}: MSB-dominated share {got:.3}, expected {expected:.3}");
    }
}

#[test]
fn multi_plane_program_pairs_planes_of_a_die() {
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.allocation_order = "pcwd".into();
    // One two-page request: its pages go to the two planes of the die and are queued
    // before the die starts, so they can share a command.
    let records = vec![rec(0, Op::Write, 0, 2, 4096)];
    let report = run(&c, records.clone());
    assert_eq!(report.flash.multi_plane_commands, 1);
    // Both pages programmed in one command: both complete at transfer(2) + tPROG(LSB).
    let transfer2 = (2.0f64 * 4096.0 * 0.01).ceil() as u64;
    assert_eq!(report.write.latency_ns.max, transfer2 + 500_000);
    c.flash.multi_plane = false;
    let report = run(&c, records);
    assert_eq!(report.flash.multi_plane_commands, 0);
}

#[test]
fn one_shot_programs_a_page_set_together_and_waits_for_the_delay() {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.program_scheme = ProgramScheme::OneShot;
    c.flash.layout = LayoutKind::Sequential;
    c.flash.one_shot_program_latency_ns = 5_500_000;
    c.flash.program_delay_ns = 100_000_000;
    let transfer = |pages: u64| (pages as f64 * 4096.0 * 0.01).ceil() as u64;
    // Three writes: one page set, all finish together after one program.
    let records: Vec<Record> = (0..3).map(|i| rec(0, Op::Write, i, 1, 4096)).collect();
    let report = run(&c, records);
    assert_eq!(report.write.latency_ns.max, transfer(3) + 5_500_000);
    assert_eq!(report.write.latency_ns.mean, report.write.latency_ns.max as f64, "all three finish together");
    assert_eq!(report.flash.wasted_pages, 0);
    // A lone write waits for the program delay, then a partial set is programmed.
    let report = run(&c, vec![rec(0, Op::Write, 0, 1, 4096)]);
    assert_eq!(report.write.latency_ns.max, 100_000_000 + transfer(1) + 5_500_000);
    assert_eq!(report.flash.wasted_pages, 2);
}

#[test]
fn slc_cache_serves_writes_first() {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.blocks_per_plane = 64;
    c.ftl.slc_blocks_per_plane = 4;
    c.flash.slc_pages_per_block = 16;
    c.flash.slc_program_latency_ns = 200_000;
    let records: Vec<Record> = (0..10).map(|i| rec(i * 10_000_000, Op::Write, i, 1, 4096)).collect();
    let report = run(&c, records);
    assert_eq!(report.flash.slc_hit_ratio, 1.0);
    assert_eq!(report.write.latency_ns.max, (4096.0f64 * 0.01).ceil() as u64 + 200_000);
}

#[test]
fn partial_page_write_reads_the_old_page_first() {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.transfer_ns_per_byte = 3.0;
    let half =
        Record { arrival_ns: 100_000_000, device: 0, offset_bytes: 0, size_bytes: 2048, op: Op::Write, hint: None };
    let report = run(&c, vec![rec(0, Op::Write, 0, 1, 4096), half]);
    assert_eq!(report.flash.update_reads, 1);
    // Second write: sense LSB page 0 + transfer out, then transfer in + program page 1 (LSB).
    let expected_second = 50_000 + 4096 * 3 + 4096 * 3 + 500_000;
    assert_eq!(report.write.latency_ns.max, expected_second);
    c.ftl.partial_page_writes = PartialPageWrites::Overwrite;
    let report = run(&c, vec![rec(0, Op::Write, 0, 1, 4096), half]);
    assert_eq!(report.flash.update_reads, 0);
    // A partial write of a never-written page has nothing to read.
    let mut c2 = tiny(1, 1, 1, 1);
    c2.host.unwritten_reads = WhatIfUnwritten::Error;
    assert_eq!(run(&c2, vec![half]).flash.update_reads, 0);
}

#[test]
fn gc_erases_planes_of_a_die_together() {
    // Two planes written in lock step, sequentially and repeatedly, on a fresh drive:
    // whole blocks become invalid at the same addresses in both planes, so their erases
    // pair up in multi-plane commands.
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.allocation_order = "pcwd".into();
    c.flash.multi_plane = true;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    let span = c.logical_pages() / 2 * 2;
    let records: Vec<Record> = (0..3 * span / 2).map(|i| rec(0, Op::Write, (i * 2) % span, 2, 4096)).collect();
    let report = run(&c, records);
    assert!(report.gc.erases > 10);
    // Every program pairs up (2 pages per command), and so do the erases.
    assert!(report.flash.multi_plane_commands > report.flash.user_page_programs / 2, "{:?}", report.flash);
    assert_eq!(report.gc.moved_pages, 0, "sequential overwrites leave nothing valid to move");
}

#[test]
fn small_updates_are_partially_programmed_up_to_nop() {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.page_size_bytes = 16384;
    c.geometry.subpages_per_page = 4;
    c.flash.partial_programs_max = 4;
    c.flash.slc_pages_per_block = 16;
    c.flash.slc_program_latency_ns = 300_000;
    c.flash.slc_read_latency_ns = 25_000;
    c.ftl.slc_blocks_per_plane = 8;
    c.ftl.partial_program_updates = true;
    let sub = |i: u64| Record {
        arrival_ns: i * 10_000_000,
        device: 0,
        offset_bytes: 4096,
        size_bytes: 4096,
        op: Op::Write,
        hint: None,
    };
    // First write programs one subpage of a fresh SLC page; three updates fill the other
    // three subpages by partial programs (NOP 4); the fifth needs a new page (RMW).
    let report = run(&c, (0..5).map(sub).collect());
    assert_eq!(report.flash.partial_programs, 3);
    assert_eq!(report.flash.update_reads, 1);
    assert_eq!(report.flash.user_page_programs, 5);
    // Slowest: the read-modify-write (SLC sense + page out + page in + SLC program).
    assert_eq!(report.write.latency_ns.max, 25_000 + (16384.0f64 * 0.01).ceil() as u64 * 2 + 300_000);
    // The partial programs move one 4 KiB subpage each: the fastest writes.
    let partial = (4096.0f64 * 0.01).ceil() as u64 + 300_000;
    assert!(report.write.latency_ns.p50 <= partial + partial / 1000, "p50 {}", report.write.latency_ns.p50);
    // With NOP 2 one partial program fits; a merged (read-modify-write) page is full.
    c.flash.partial_programs_max = 2;
    let report = run(&c, (0..5).map(sub).collect());
    assert_eq!(report.flash.partial_programs, 1, "pages: [write, partial] [rmw] [rmw] [rmw]");
    assert_eq!(report.flash.update_reads, 3);
}

#[test]
fn burst_replay_collapses_short_gaps_and_enforces_long_ones() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.replay = ReplayMode::Burst;
    c.host.burst_gap_ns = 1_000_000;
    let us = 1_000;
    let records = vec![
        rec(0, Op::Write, 0, 1, 4096),
        rec(10 * us, Op::Write, 1, 1, 4096),
        rec(20 * us, Op::Write, 2, 1, 4096),
        rec(10_000 * us, Op::Write, 3, 1, 4096),
        rec(10_010 * us, Op::Write, 4, 1, 4096),
    ];
    let report = run(&c, records);
    let transfer = (4096.0f64 * 0.01).ceil() as u64;
    // Burst 1: pages 0-2 (LSB, LSB, CSB) issued together at t = 0.
    let burst1 = 3 * transfer + 500_000 + 500_000 + 2_000_000;
    // Then the 9.98 ms trace gap, then burst 2: pages 3-4 (LSB, CSB).
    let idle = 10_000 * us - 20 * us;
    let burst2 = 2 * transfer + 500_000 + 2_000_000;
    let b = report.burst.expect("burst summary");
    assert_eq!(b.bursts, 2);
    assert_eq!(b.idle_ns, idle);
    assert_eq!(report.simulated_ns, burst1 + idle + burst2);
    assert_eq!(b.mean_duration_ns, (burst1 + burst2) as f64 / 2.0);
    // In open loop the same trace keeps its timestamps instead.
    c.host.replay = ReplayMode::OpenLoop;
    let report = run(&c, vec![rec(0, Op::Write, 0, 1, 4096), rec(10_000 * us, Op::Write, 1, 1, 4096)]);
    assert_eq!(report.simulated_ns, 10_000 * us + transfer + 500_000);
    assert!(report.burst.is_none());
}
