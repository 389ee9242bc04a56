//! A closed-form test for every timing rule of ARCHITECTURE.md ("Timing model", "Host
//! replay", the scheduler): each case is small enough that the exact completion time of
//! every request (and, through the occupancy log, of every command) can be written down.
//! The occupancy checker runs in all of them.

use super::*;
use ssdlab_core::engine::occupancy::{Activity, CommandKind, Interval, Resource};
use ssdlab_core::stats::RequestRecord;
use std::cell::RefCell;

/// 4 KiB at 0.01 ns/B (the `tiny` channel): ceil(40.96) ns.
const X_FAST: u64 = 41;

pub(super) struct Logged {
    pub(super) report: Report,
    /// Per request, indexed by request id.
    pub(super) requests: Vec<RequestRecord>,
    pub(super) log: Vec<Interval>,
}

/// Runs with every check on and the occupancy log kept; requests come back by id.
pub(super) fn run_logged(config: &Config, records: Vec<Record>) -> Logged {
    let runs = records.clone();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(runs.clone())) as Box<dyn RecordSource>));
    let seen: RefCell<Vec<RequestRecord>> = RefCell::new(Vec::new());
    let mut observers = Observers::default();
    let seen_ref = &seen;
    observers.requests = Some(Box::new(move |r: &RequestRecord| seen_ref.borrow_mut().push(r.clone())));
    let mut config = config.clone();
    config.output.check_every = 1;
    let mut sim = Simulator::new(config, factory, observers).expect("valid setup");
    sim.record_occupancy();
    sim.set_verify(true);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    let log = sim.occupancy_log().expect("log kept").to_vec();
    drop(sim);
    let mut requests = seen.into_inner();
    requests.sort_by_key(|r| r.id);
    assert!(requests.iter().enumerate().all(|(i, r)| r.id == i as u64), "every request completed once");
    Logged { report, requests, log }
}

pub(super) fn latencies(l: &Logged) -> Vec<u64> {
    l.requests.iter().map(|r| r.latency_ns).collect()
}

/// Commands in the order they started: (start, end, kind, die).
pub(super) fn commands(log: &[Interval]) -> Vec<(u64, u64, CommandKind, u32)> {
    let mut out: Vec<(u64, u64, CommandKind, u32)> = log
        .iter()
        .filter_map(|i| match (i.resource, i.activity) {
            (Resource::Die(d), Activity::Command(k)) => Some((i.start_ns, i.end_ns, k, d)),
            _ => None,
        })
        .collect();
    out.sort_by_key(|c| (c.0, c.3));
    out
}

#[test]
fn channel_is_granted_fifo_among_three_or_more_waiting_dies() {
    // One channel, four dies; a slow bus (40,960 ns per page) so that three dies wait.
    let mut c = tiny(1, 4, 1, 1);
    c.flash.transfer_ns_per_byte = 10.0;
    let x = 40_960;
    // Four writes at t = 0, one per die (static striping: page k on die k): die 0 takes
    // the bus, dies 1, 2, 3 wait in that order and are served in that order.
    let mut records: Vec<Record> = (0..4).map(|k| rec(0, Op::Write, k, 1, 4096)).collect();
    // Then four reads at 10 ms: all four sense in parallel (LSB pages, 50 us) and ask for
    // the bus at the same instant, in the order their sense ended (die 0 first).
    records.extend((0..4).map(|k| rec(10_000_000, Op::Read, k, 1, 4096)));
    let l = run_logged(&c, records);
    let lat = latencies(&l);
    assert_eq!(lat[..4], [x + 500_000, 2 * x + 500_000, 3 * x + 500_000, 4 * x + 500_000]);
    assert_eq!(lat[4..], [50_000 + x, 50_000 + 2 * x, 50_000 + 3 * x, 50_000 + 4 * x]);
    // The log shows each die waiting exactly as long as the transfers before it.
    let waits: Vec<(u32, u64)> = l
        .log
        .iter()
        .filter(|i| i.activity == Activity::ChannelWait && i.start_ns == 0)
        .map(|i| match i.resource {
            Resource::Die(d) => (d, i.end_ns - i.start_ns),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(waits, vec![(1, x), (2, 2 * x), (3, 3 * x)]);
}

#[test]
fn multi_plane_commands_pair_only_equal_addresses() {
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.allocation_order = "pcwd".into();
    let x2 = (2.0f64 * 4096.0 * 0.01).ceil() as u64;
    // Equal addresses: page 0 of plane 0 and page 0 of plane 1, written and read together.
    let l = run_logged(&c, vec![rec(0, Op::Write, 0, 2, 4096), rec(10_000_000, Op::Read, 0, 2, 4096)]);
    assert_eq!(latencies(&l), vec![x2 + 500_000, 50_000 + x2]);
    assert_eq!(l.report.flash.multi_plane_commands, 2);
    // Unequal: plane 0 is one page ahead (page 1 vs page 0), so the two pages of the next
    // request are programmed one after the other; so are reads of pages at (0, 1) and
    // (0, 0). Logical pages 0 and 3 (page 0 of each plane), queued together behind a
    // read of page 2, still pair.
    let records = vec![
        rec(0, Op::Write, 0, 1, 4096),
        rec(10_000_000, Op::Write, 2, 2, 4096),
        rec(20_000_000, Op::Read, 2, 2, 4096),
        rec(30_000_000, Op::Read, 2, 1, 4096),
        rec(30_000_000, Op::Read, 0, 1, 4096),
        rec(30_000_000, Op::Read, 3, 1, 4096),
    ];
    let l = run_logged(&c, records);
    let lat = latencies(&l);
    assert_eq!(lat[1], 2 * (X_FAST + 500_000), "no pairing across (0, 1) and (0, 0)");
    assert_eq!(lat[2], 2 * (50_000 + X_FAST));
    assert_eq!(lat[3..], [50_000 + X_FAST, 50_000 + X_FAST + 50_000 + x2, 50_000 + X_FAST + 50_000 + x2]);
    assert_eq!(l.report.flash.multi_plane_commands, 1, "only page 0 of both planes pairs");
}

#[test]
fn multi_plane_pairing_on_an_aged_drive_follows_the_addresses() {
    // A preconditioned two-plane die. Filled in lock step (every logical page pair lands
    // at the same address of both planes), every two-page write pairs; after random
    // rewrites of single pages the planes' write points sit at different addresses and no
    // pair may form (the checker fails the run if a pair's addresses differ).
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.allocation_order = "pcwd".into();
    // (An even number of pages: both planes get the same share.)
    c.precondition.used_fraction = 0.5;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    let span = c.logical_pages() / 2;
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let records: Vec<Record> = (0..400).map(|_| rec(0, Op::Write, 2 * rng.random_range(0..span), 2, 4096)).collect();
    for rewrites in [false, true] {
        c.precondition.fill_invalid_to_gc_threshold = rewrites;
        let l = run_logged(&c, records.clone());
        let programs = commands(&l.log).iter().filter(|c| c.2 == CommandKind::Program).count() as u64;
        let paired = l.report.flash.multi_plane_commands;
        assert_eq!(programs, 800 - paired, "every unpaired request takes two commands");
        if rewrites {
            assert!(paired < 400, "rewrites misalign the planes: {paired} of 400 paired");
        } else {
            assert_eq!(paired, 400, "lock step: every request pairs");
        }
    }
}

#[test]
fn a_request_completes_with_its_last_page_plus_the_request_overhead() {
    let mut c = tiny(1, 4, 1, 1);
    c.flash.transfer_ns_per_byte = 10.0;
    c.host.request_overhead_ns = 7_000;
    let x = 40_960;
    let l = run_logged(&c, vec![rec(0, Op::Write, 0, 4, 4096), rec(10_000_000, Op::Read, 0, 4, 4096)]);
    // Pages finish at k * x + tPROG for k = 1..4; the request with the fourth.
    assert_eq!(latencies(&l), vec![4 * x + 500_000 + 7_000, 50_000 + 4 * x + 7_000]);
    assert_eq!(l.requests[0].completion_ns, 4 * x + 500_000 + 7_000);
}

#[test]
fn queued_reads_and_writes_follow_the_queue_priority() {
    // W1 occupies the die from 1 ms; W2 (a CSB page) and R queue behind it.
    let records = vec![
        rec(0, Op::Write, 0, 1, 4096),
        rec(1_000_000, Op::Write, 1, 1, 4096),
        rec(1_000_100, Op::Write, 2, 1, 4096),
        rec(1_000_200, Op::Read, 0, 1, 4096),
    ];
    let w1_end = 1_000_000 + X_FAST + 500_000;
    let read = 50_000 + X_FAST;
    let csb = X_FAST + 2_000_000;
    let mut c = tiny(1, 1, 1, 1);
    let l = run_logged(&c, records.clone());
    let lat = latencies(&l);
    assert_eq!((lat[3], lat[2]), (w1_end + read - 1_000_200, w1_end + read + csb - 1_000_100), "reads first");
    c.ftl.queue_priority = vec![QueueKind::UserWrite, QueueKind::UserRead, QueueKind::Gc];
    let l = run_logged(&c, records);
    let lat = latencies(&l);
    assert_eq!((lat[2], lat[3]), (w1_end + csb - 1_000_100, w1_end + csb + read - 1_000_200), "writes first");
}

/// One SLC plane of 16 blocks x 8 pages (96 logical pages), background GC at 4 free
/// blocks, emergency at 2: 96 sequential writes leave 4 free blocks, 8 overwrites then
/// leave 3 and one block without valid data, all 1 ms apart.
fn gc_ready() -> (Config, Vec<Record>) {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = 16;
    c.geometry.pages_per_block = 8;
    c.ftl.over_provisioning = 0.25;
    c.ftl.gc_background_free_fraction = 0.25;
    c.ftl.gc_emergency_free_fraction = 0.125;
    c.ftl.gc_idle_ns = 10_000_000_000;
    assert_eq!(c.logical_pages(), 96);
    let records = (0..104u64).map(|k| rec(k * 1_000_000, Op::Write, k % 96, 1, 4096)).collect();
    (c, records)
}

#[test]
fn background_gc_waits_gc_idle_ns_after_the_last_user_work() {
    let (mut c, records) = gc_ready();
    // Without an idle period of gc_idle_ns no background GC runs.
    let l = run_logged(&c, records.clone());
    assert_eq!(l.report.gc.erases, 0);
    assert!(!commands(&l.log).iter().any(|c| matches!(c.2, CommandKind::Erase | CommandKind::GcMove)));
    // With 5 ms: the first cleanup starts exactly 5 ms after the last arrival; a request
    // arriving 20 ms later finds the cleaning done (one erase: the block of pages 0..7).
    c.ftl.gc_idle_ns = 5_000_000;
    let mut with_idle = records;
    with_idle.push(rec(123_000_000, Op::Read, 50, 1, 4096));
    let l = run_logged(&c, with_idle);
    let gc: Vec<_> = commands(&l.log).into_iter().filter(|c| c.2 == CommandKind::Erase).collect();
    assert!(!gc.is_empty());
    assert_eq!(gc[0].0, 103_000_000 + 5_000_000, "first cleanup at last user work + gc_idle_ns");
    assert_eq!(gc[0].1 - gc[0].0, 3_000_000, "an erase holds the die for tBERS");
}

#[test]
fn gc_ranked_above_user_queues_runs_while_user_work_waits() {
    let (mut c, records) = gc_ready();
    c.ftl.queue_priority = vec![QueueKind::Gc, QueueKind::UserRead, QueueKind::UserWrite];
    let l = run_logged(&c, records);
    let cmds = commands(&l.log);
    let gc: Vec<_> = cmds.iter().filter(|c| matches!(c.2, CommandKind::Erase | CommandKind::GcMove)).collect();
    assert!(!gc.is_empty(), "GC runs without any idle time");
    // Every cleanup ran while a user request was outstanding (gc_idle_ns is 10 s): ahead of it.
    for g in &gc {
        assert!(l.requests.iter().any(|r| r.arrival_ns <= g.0 && g.0 < r.completion_ns), "cleanup at {} ns", g.0);
    }
}

#[test]
fn gc_moves_take_sense_and_program_with_copyback_and_add_both_transfers_without() {
    // A GC victim with valid pages: overwrite half of the first block's pages.
    let (mut c, _) = gc_ready();
    c.ftl.gc_idle_ns = 1_000_000;
    let mut records: Vec<Record> = (0..96u64).map(|k| rec(k * 1_000_000, Op::Write, k, 1, 4096)).collect();
    records.extend((0..4u64).map(|k| rec((96 + k) * 1_000_000, Op::Write, 2 * k, 1, 4096)));
    // A late read keeps the run going through the idle period in which GC cleans.
    records.push(rec(200_000_000, Op::Read, 50, 1, 4096));
    for (copyback, duration) in [(true, 50_000 + 500_000), (false, 50_000 + 2 * X_FAST + 500_000)] {
        c.flash.copyback = copyback;
        let l = run_logged(&c, records.clone());
        let moves: Vec<_> = commands(&l.log).into_iter().filter(|c| c.2 == CommandKind::GcMove).collect();
        assert!(!moves.is_empty(), "copyback = {copyback}: GC moved pages");
        for m in &moves {
            assert_eq!(m.1 - m.0, duration, "copyback = {copyback}");
        }
        let transfers = l.log.iter().filter(|i| matches!(i.resource, Resource::Channel(_)));
        let gc_ids: Vec<u64> =
            l.log.iter().filter(|i| i.activity == Activity::Command(CommandKind::GcMove)).map(|i| i.command).collect();
        let moved_over_channel = transfers.filter(|i| gc_ids.contains(&i.command)).count();
        assert_eq!(moved_over_channel, if copyback { 0 } else { 2 * moves.len() }, "copyback = {copyback}");
    }
}

#[test]
fn a_read_modify_write_programs_only_after_its_read_whatever_the_queue_order() {
    let half =
        Record { arrival_ns: 10_000_000, device: 0, offset_bytes: 0, size_bytes: 2048, op: Op::Write, hint: None };
    for priority in [
        vec![QueueKind::UserRead, QueueKind::UserWrite, QueueKind::Gc],
        vec![QueueKind::UserWrite, QueueKind::UserRead, QueueKind::Gc],
    ] {
        let mut c = tiny(1, 1, 1, 1);
        c.ftl.queue_priority = priority.clone();
        let l = run_logged(&c, vec![rec(0, Op::Write, 0, 1, 4096), half]);
        // Sense the old LSB page and carry it out, then carry the merged page in and
        // program it into page 1 (LSB).
        assert_eq!(latencies(&l)[1], 50_000 + X_FAST + X_FAST + 500_000, "{priority:?}");
        let cmds = commands(&l.log);
        assert_eq!(cmds[1].2, CommandKind::Read);
        assert_eq!(cmds[2].2, CommandKind::Program);
        assert!(cmds[2].0 >= cmds[1].1);
    }
}

#[test]
fn equal_time_arrivals_are_served_in_trace_order() {
    let c = tiny(1, 1, 1, 1);
    let l = run_logged(&c, vec![rec(0, Op::Write, 5, 1, 4096), rec(0, Op::Write, 9, 1, 4096)]);
    assert_eq!(latencies(&l), vec![X_FAST + 500_000, 2 * (X_FAST + 500_000)]);
    let l = run_logged(
        &c,
        vec![
            rec(0, Op::Write, 5, 1, 4096),
            rec(0, Op::Write, 9, 1, 4096),
            rec(5_000_000, Op::Read, 9, 1, 4096),
            rec(5_000_000, Op::Read, 5, 1, 4096),
        ],
    );
    assert_eq!(latencies(&l)[2..], [50_000 + X_FAST, 2 * (50_000 + X_FAST)]);
    assert_eq!(l.requests[2].offset_bytes, 9 * 4096);
}

#[test]
fn the_open_loop_queue_limit_holds_requests_in_the_host_and_counts_their_wait() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.queue_depth = 2;
    // Four one-page writes at t = 0 to one plane; only two may be in the device.
    let l = run_logged(&c, (0..4).map(|k| rec(0, Op::Write, k, 1, 4096)).collect());
    // Staircase pages L L C L: the third (CSB) enters when the first completes.
    let w = X_FAST;
    let t1 = w + 500_000;
    let t2 = t1 + w + 500_000;
    let t3 = t2 + w + 2_000_000;
    let t4 = t3 + w + 500_000;
    assert_eq!(latencies(&l), vec![t1, t2, t3, t4]);
    assert!(l.requests.iter().all(|r| r.arrival_ns == 0), "latency counts from the arrival");
}

#[test]
fn the_speed_factor_divides_the_trace_gaps() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.speed_factor = 4.0;
    let records = vec![rec(1_000_000, Op::Write, 0, 1, 4096), rec(9_000_000, Op::Write, 1, 1, 4096)];
    let l = run_logged(&c, records);
    // Arrivals are measured from the first record: 0 and 8 ms / 4.
    assert_eq!(l.requests[0].arrival_ns, 0);
    assert_eq!(l.requests[1].arrival_ns, 2_000_000);
}

#[test]
fn a_multi_run_starts_each_run_one_mean_gap_after_the_last() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.runs = 3;
    let records = vec![
        rec(0, Op::Write, 0, 1, 4096),
        rec(1_000_000, Op::Write, 1, 1, 4096),
        rec(4_000_000, Op::Write, 2, 1, 4096),
    ];
    let l = run_logged(&c, records);
    // Span 4 ms over 3 records: mean gap 2 ms, so runs start 6 ms apart.
    let arrivals: Vec<u64> = l.requests.iter().map(|r| r.arrival_ns).collect();
    assert_eq!(
        arrivals,
        vec![0, 1_000_000, 4_000_000, 6_000_000, 7_000_000, 10_000_000, 12_000_000, 13_000_000, 16_000_000]
    );
    let runs: Vec<u32> = l.requests.iter().map(|r| r.run).collect();
    assert_eq!(runs, vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
}

#[test]
fn without_a_wordline_buffer_each_page_type_rereads_the_lower_pages() {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.wordline_buffer = false;
    let records: Vec<Record> = (0..9).map(|k| rec(k * 10_000_000, Op::Write, k, 1, 4096)).collect();
    let l = run_logged(&c, records);
    // Staircase order L L C L C M L C M; CSB re-reads the LSB page, MSB both lower pages.
    let program = [500_000, 2_000_000 + 50_000, 5_500_000 + 50_000 + 70_000];
    let expected: Vec<u64> = [0usize, 0, 1, 0, 1, 2, 0, 1, 2].iter().map(|&t| X_FAST + program[t]).collect();
    assert_eq!(latencies(&l), expected);
}

#[test]
fn reads_complete_after_the_ecc_decode() {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.ecc_decode_ns = 20_000;
    let l = run_logged(&c, vec![rec(0, Op::Write, 0, 1, 4096), rec(10_000_000, Op::Read, 0, 1, 4096)]);
    assert_eq!(latencies(&l)[1], 50_000 + X_FAST + 20_000);
}

#[test]
fn arrivals_far_faster_than_the_device_are_named_as_a_likely_time_unit_error() {
    let c = tiny(1, 1, 1, 1);
    // 2,000 requests 1 ns apart (a trace in seconds read as nanoseconds would look like
    // this): the one plane could at best sense a page every 50 us.
    let dense: Vec<Record> = (0..2000).map(|k| rec(k, Op::Write, k % 1000, 1, 4096)).collect();
    let report = run(&c, dense);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(report.warnings[0].contains("--time-unit"), "{}", report.warnings[0]);
    // The same requests 1 ms apart are plausible: no time-unit warning. (The one plane
    // still cannot keep up — TLC programs average 2.7 ms — and says that instead.)
    let spaced: Vec<Record> = (0..2000).map(|k| rec(k * 1_000_000, Op::Write, k % 1000, 1, 4096)).collect();
    let warnings = run(&c, spaced).warnings;
    assert!(warnings.iter().all(|w| !w.contains("--time-unit")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("the device was saturated")), "{warnings:?}");
}
