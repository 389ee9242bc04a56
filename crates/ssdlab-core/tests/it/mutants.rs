//! Tests written to kill mutants that survived `cargo mutants` over the engine, FTL and
//! flash modules (docs/testing.md, "Mutation score"). Each names the mutant it kills;
//! each asserts behaviour that follows from the model's definition, not a number copied
//! from a run.

use super::*;
use ssdlab_core::engine::occupancy::{Activity, CommandKind, Resource};
use ssdlab_core::SimError;

/// Kills `replace > with == in record_series` (and shifted buckets in general): a lone
/// write arriving at the start of each 10 ms interval completes within it (its latency
/// is at most a transfer plus the slowest program, 5.5 ms), so every row of the time
/// series holds exactly the one write that completed in it.
#[test]
fn series_rows_count_each_completion_in_its_own_interval() {
    let mut c = tiny(1, 1, 1, 1);
    let interval = 10_000_000;
    c.output.series_interval_ns = interval;
    let records: Vec<Record> = (0..5).map(|k| rec(k * interval, Op::Write, k, 1, 4096)).collect();
    let (report, series) = run_with_series(&c, records);
    assert_eq!(report.write.requests, 5);
    assert_eq!(series.len(), 5, "one row per interval with a completion: {series:?}");
    for (k, row) in series.iter().enumerate() {
        let k = k as u64;
        assert_eq!((row.start_ns, row.end_ns), (k * interval, (k + 1) * interval));
        assert_eq!((row.writes, row.write_bytes, row.reads), (1, 4096, 0), "row {k}: {row:?}");
        assert!(row.write_latency_mean_ns > 0.0 && row.write_latency_mean_ns < 6_000_000.0, "row {k}: {row:?}");
    }
}

/// Kills `replace > with >= in fetch_record`: the next run of a multi-run replay starts one
/// mean inter-arrival gap after the previous run's span, and a run of one record has no
/// gap (span 0, no division by the record count minus one). Every run replays the record.
#[test]
fn multi_run_replay_of_a_single_record() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.runs = 3;
    let report = run(&c, vec![rec(0, Op::Write, 7, 1, 4096)]);
    assert_eq!(report.write.requests, 3);
    assert_eq!(report.runs.len(), 3);
    for r in &report.runs {
        assert_eq!(r.write.requests, 1, "run {}", r.run);
    }
}

/// Kills `replace plane_summary -> String with "xyzzy"`: a run stopped by its event
/// budget in the middle of heavy GC names each plane in GC with its free blocks and its
/// valid pages out of all its pages (64 blocks of 48 pages here, so 3,072).
#[test]
fn event_budget_error_describes_the_planes_in_gc() {
    let c = tiny(1, 1, 1, 1);
    let logical = c.logical_pages();
    let records = random_requests(3 * logical as usize, 1, logical, Op::Write, 4096, 5);
    let full = try_run_with_budget(&c, records.clone(), u64::MAX).expect("run completes").0;
    assert!(full.gc.erases > 10, "the workload must keep GC busy");
    let err = try_run_with_budget(&c, records, full.events * 9 / 10).expect_err("budget exhausted");
    let SimError::EventBudget { message, .. } = err else { panic!("expected EventBudget, got {err}") };
    let summary = message.split("plane 0: ").nth(1).unwrap_or_else(|| panic!("plane 0 not in GC: {message}"));
    let words: Vec<&str> = summary.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    // "<Background|Emergency> GC, <free> free blocks, <valid> of <pages> pages valid"
    let free: u64 = words[2].parse().unwrap_or_else(|_| panic!("{message}"));
    let valid: u64 = words[5].parse().unwrap_or_else(|_| panic!("{message}"));
    assert_eq!(&words[3..5], ["free", "blocks"], "{message}");
    assert_eq!(&words[6..10], ["of", "3072", "pages", "valid"], "{message}");
    assert!(free < 64 && valid <= logical && valid > 0, "{message}");
}

/// Kills `replace * with + in start_transfer`: channel energy is bytes moved times
/// `energy.transfer_nj_per_byte`; two one-page writes and one one-page read move three
/// pages over the channel.
#[test]
fn transfer_energy_is_bytes_times_energy_per_byte() {
    let mut c = tiny(1, 1, 1, 1);
    c.energy.transfer_nj_per_byte = 0.5;
    let records = vec![
        rec(0, Op::Write, 0, 1, 4096),
        rec(10_000_000, Op::Write, 1, 1, 4096),
        rec(20_000_000, Op::Read, 0, 1, 4096),
    ];
    let report = run(&c, records);
    assert_eq!(report.energy_nj.transfer, 3.0 * 4096.0 * 0.5);
}

/// Kills `replace % with / in start_read` (the plane bit of the first read of a
/// multi-plane read): reads of page 0 of plane 1 and then of page 0 of plane 0, queued
/// together behind another read, pair into one command whichever plane comes first.
#[test]
fn multi_plane_read_pairs_when_the_first_read_is_on_plane_one() {
    let mut c = tiny(1, 1, 1, 2);
    c.ftl.allocation_order = "pcwd".into();
    // Logical pages 0..3: 0 and 1 at page 0 of planes 0 and 1, 2 and 3 at page 1.
    let writes = vec![rec(0, Op::Write, 0, 4, 4096)];
    let before = run(&c, writes.clone()).flash.multi_plane_commands;
    assert_eq!(before, 2, "the four pages are programmed as two pairs");
    let mut records = writes;
    // The read of page 3 keeps the die busy while the reads of 1 (plane 1) and 0 queue.
    records.extend([
        rec(10_000_000, Op::Read, 3, 1, 4096),
        rec(10_000_000, Op::Read, 1, 1, 4096),
        rec(10_000_000, Op::Read, 0, 1, 4096),
    ]);
    let report = run(&c, records);
    assert_eq!(report.flash.multi_plane_commands, before + 1, "logical pages 1 and 0 are read together");
    assert_eq!(report.flash.page_reads, 3);
}

/// Kills `replace && with || in partial_program_still_fits`: two 2-subpage updates of a
/// page with one subpage programmed both fit when they are queued (1 + 2 <= 4), but once
/// the first is programmed (3 subpages) the second no longer does and must be written
/// to a new page instead of over-programming the old one.
#[test]
fn a_queued_partial_program_that_no_longer_fits_writes_a_new_page() {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.page_size_bytes = 16384;
    c.geometry.subpages_per_page = 4;
    c.flash.partial_programs_max = 4;
    c.flash.slc_pages_per_block = 16;
    c.flash.slc_program_latency_ns = 300_000;
    c.flash.slc_read_latency_ns = 25_000;
    c.ftl.slc_blocks_per_plane = 8;
    c.ftl.partial_program_updates = true;
    let page = 16384u64;
    let w = |at: u64, offset: u64, size: u64| Record {
        arrival_ns: at,
        device: 0,
        offset_bytes: offset,
        size_bytes: size,
        op: Op::Write,
        hint: None,
    };
    let records = vec![
        // Subpage 0 of logical page 1 in a fresh SLC page.
        w(0, page, 4096),
        // A whole-page write of logical page 0 keeps the die busy while the two updates
        // of logical page 1 (subpages 1 and 2) queue behind it.
        w(10_000_000, 0, page),
        w(10_000_000, page + 4096, 8192),
        w(10_000_000, page + 4096, 8192),
    ];
    let report = run(&c, records);
    assert_eq!(report.write.requests, 4);
    assert_eq!(report.flash.partial_programs, 1, "{:?}", report.flash);
    assert_eq!(report.flash.user_page_programs, 4, "{:?}", report.flash);
}

/// Kills `replace * with + in start_gc_step` (the bytes of a GC move's transfers): at
/// 1 ns per byte a GC move without copyback holds the die for the sense, one page out,
/// one page in and the program: 50 us + 2 x 4,096 ns + 500 us.
#[test]
fn a_gc_move_transfers_one_page_each_way() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.flash.transfer_ns_per_byte = 1.0;
    c.flash.copyback = false;
    c.geometry.blocks_per_plane = 16;
    c.geometry.pages_per_block = 8;
    c.ftl.gc_background_free_fraction = 0.25;
    c.ftl.gc_emergency_free_fraction = 0.125;
    c.ftl.gc_idle_ns = 1_000_000;
    assert_eq!(c.logical_pages(), 96);
    // Fill, then overwrite half of the first block: the GC victim has 4 valid pages.
    let mut records: Vec<Record> = (0..96u64).map(|k| rec(k * 1_000_000, Op::Write, k, 1, 4096)).collect();
    records.extend((0..4u64).map(|k| rec((96 + k) * 1_000_000, Op::Write, 2 * k, 1, 4096)));
    records.push(rec(200_000_000, Op::Read, 50, 1, 4096));
    let runs = records.clone();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(runs.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(c, factory, Observers::default()).expect("valid setup");
    sim.record_occupancy();
    sim.set_verify(true);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    assert!(report.gc.moved_pages > 0);
    let log = sim.occupancy_log().expect("log kept");
    let moves: Vec<u64> = log
        .iter()
        .filter(|i| matches!(i.resource, Resource::Die(_)) && i.activity == Activity::Command(CommandKind::GcMove))
        .map(|i| i.end_ns - i.start_ns)
        .collect();
    assert_eq!(moves.len() as u64, report.gc.moved_pages, "one page per move on one plane");
    assert!(moves.iter().all(|&d| d == 50_000 + 2 * 4096 + 500_000), "{moves:?}");
}

/// Kills `replace * with + in finish` (idle energy): idle power is charged per chip for
/// the time it has no command in flight, mW x ns / 1e3 = nJ. One one-page write on two
/// chips: the interval is one transfer plus an LSB program, all of it busy on chip 0,
/// none of it on chip 1.
#[test]
fn idle_energy_is_power_times_idle_chip_time() {
    let mut c = tiny(1, 2, 1, 1);
    c.energy.idle_power_mw_per_chip = 3.0;
    let report = run(&c, vec![rec(0, Op::Write, 0, 1, 4096)]);
    let interval = (4096.0f64 * 0.01).ceil() as u64 + 500_000;
    assert_eq!(report.simulated_ns, interval);
    let expected = 3.0 * 1.0 * interval as f64 / 1e3;
    assert!((report.energy_nj.idle - expected).abs() < 1e-9, "{} vs {expected}", report.energy_nj.idle);
}

/// Kills `replace / with % in finish` (burst aggregate bandwidth): with one burst the
/// aggregate bandwidth (all bytes over all burst time) equals the burst's own bandwidth,
/// bytes written over its duration in seconds, in MiB/s (reads counted apart).
#[test]
fn aggregate_burst_bandwidth_is_bytes_over_burst_seconds() {
    let mut c = tiny(1, 1, 1, 1);
    c.host.replay = ReplayMode::Burst;
    c.host.burst_gap_ns = 1_000_000;
    // The read belongs to the burst's duration but not to its (write) bandwidth.
    let records =
        vec![rec(0, Op::Write, 0, 1, 4096), rec(10_000, Op::Write, 1, 1, 4096), rec(20_000, Op::Read, 0, 1, 4096)];
    let report = run(&c, records);
    let b = report.burst.expect("burst summary");
    assert_eq!((b.bursts, b.write_bursts), (1, 1));
    let expected = 8192.0 / (b.mean_duration_ns / 1e9) / 1048576.0;
    assert!((b.mean_read_bandwidth_mib_s - expected / 2.0).abs() < 1e-9 * expected, "{b:?}");
    assert!(b.mean_duration_ns > 0.0 && b.mean_duration_ns < 1e9);
    assert!((b.aggregate_bandwidth_mib_s - expected).abs() < 1e-9 * expected, "{b:?}");
    assert!((b.mean_bandwidth_mib_s - expected).abs() < 1e-9 * expected, "{b:?}");
}

/// Kills `replace / with % in erase_summary`: the erase-count histogram has 10 buckets of
/// width max(1, (max - min) / 10) from min, so the block with the most erases falls in
/// bucket min((max - min) / width, 9), the buckets hold every block, and the mean lies
/// within the buckets' bounds.
#[test]
fn erase_histogram_buckets_hold_every_block_by_its_count() {
    let c = tiny(1, 1, 1, 1);
    let logical = c.logical_pages();
    let report = run(&c, random_requests(4 * logical as usize, 1, logical, Op::Write, 4096, 11));
    let e = &report.erase_counts;
    assert!(e.max >= e.min + 2, "the workload must spread erase counts: {e:?}");
    let width = ((e.max - e.min) / 10).max(1);
    let blocks: u64 = e.histogram.iter().map(|&(_, n)| n).sum();
    assert_eq!(blocks, 64);
    assert_eq!(e.histogram[0].0, e.min, "{e:?}");
    let last = e.histogram.last().unwrap().0;
    assert_eq!(last, e.min + ((e.max - e.min) / width).min(9) * width, "{e:?}");
    let low: f64 = e.histogram.iter().map(|&(lo, n)| lo as f64 * n as f64).sum::<f64>() / 64.0;
    let high: f64 = e.histogram.iter().map(|&(lo, n)| (lo + width) as f64 * n as f64).sum::<f64>() / 64.0;
    assert!(low <= e.mean && e.mean <= high, "mean {} outside [{low}, {high}]: {e:?}", e.mean);
}

/// Per-request latencies of a checked, verified run, by request id.
fn request_latencies(config: &Config, records: Vec<Record>) -> Vec<u64> {
    use std::cell::RefCell;
    let runs = records.clone();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(runs.clone())) as Box<dyn RecordSource>));
    let seen: RefCell<Vec<(u64, u64)>> = RefCell::new(Vec::new());
    let seen_ref = &seen;
    let observers = Observers {
        requests: Some(Box::new(move |r: &ssdlab_core::stats::RequestRecord| {
            seen_ref.borrow_mut().push((r.id, r.latency_ns))
        })),
        ..Observers::default()
    };
    let mut sim = Simulator::new(config.clone(), factory, observers).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.run_to_end().expect("run succeeds");
    drop(sim);
    let mut seen = seen.into_inner();
    seen.sort_unstable();
    assert_eq!(seen.len(), records.len());
    seen.into_iter().map(|(_, latency)| latency).collect()
}

/// Kills `replace Ftl::page_type -> u8 with 0`: a lone read senses for its page's type.
/// Six pages written one at a time reveal their types by their program latencies (500,
/// 2,000 or 5,500 us after the transfer); each read back alone takes that type's sense
/// latency (50, 70 or 90 us) plus the transfer.
#[test]
fn a_read_senses_for_the_type_of_its_page() {
    let c = tiny(1, 1, 1, 1);
    let x = (4096.0f64 * 0.01).ceil() as u64;
    let mut records: Vec<Record> = (0..6).map(|k| rec(k * 10_000_000, Op::Write, k, 1, 4096)).collect();
    records.extend((0..6).map(|k| rec((10 + k) * 10_000_000, Op::Read, k, 1, 4096)));
    let lat = request_latencies(&c, records);
    let mut types = Vec::new();
    for k in 0..6 {
        let t = [500_000, 2_000_000, 5_500_000].iter().position(|&p| lat[k] == x + p);
        let t = t.unwrap_or_else(|| panic!("write {k}: latency {} is no page type's", lat[k]));
        assert_eq!(lat[6 + k], [50_000, 70_000, 90_000][t] + x, "read of page {k} (type {t})");
        types.push(t);
    }
    assert!(types.iter().any(|&t| t > 0), "some page is not an LSB page: {types:?}");
}

/// Kills `replace match guard ... with false in current_ppn`: a read queued while GC
/// (ranked above reads) moves its page senses the page where the data is when the read
/// starts. Pages in an SLC-mode block (sense 25 us) are moved by SLC cleaning to a
/// normal block (sense 50, 70 or 90 us) before the read queued for one of them runs.
#[test]
fn a_read_queued_behind_gc_senses_the_moved_page() {
    let mut c = tiny(1, 1, 1, 1);
    c.ftl.slc_blocks_per_plane = 2;
    c.flash.slc_pages_per_block = 4;
    c.flash.slc_program_latency_ns = 200_000;
    c.flash.slc_read_latency_ns = 25_000;
    c.ftl.queue_priority = vec![QueueKind::Gc, QueueKind::UserRead, QueueKind::UserWrite];
    c.ftl.gc_idle_ns = 1_000_000_000;
    // Pages 0, 1, 2 and 0 again fill SLC block A; with one free SLC block left and an
    // invalid page in A, A is to be cleaned. The read of page 2 arrives with the die idle:
    // GC (three moves and an erase) runs first, then the read.
    let mut records: Vec<Record> =
        [0, 1, 2, 0].iter().zip(0..).map(|(&p, k)| rec(k * 10_000_000, Op::Write, p, 1, 4096)).collect();
    records.push(rec(40_000_000, Op::Read, 2, 1, 4096));
    let runs = records.clone();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(runs.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(c, factory, Observers::default()).expect("valid setup");
    sim.record_occupancy();
    sim.set_verify(true);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    assert_eq!(report.flash.slc_hit_ratio, 1.0, "the writes went to SLC-mode pages");
    let log = sim.occupancy_log().expect("log kept");
    let on_die = |kind: CommandKind| -> Vec<(u64, u64)> {
        log.iter()
            .filter(|i| matches!(i.resource, Resource::Die(_)) && i.activity == Activity::Command(kind))
            .map(|i| (i.start_ns, i.end_ns))
            .collect()
    };
    let (moves, reads) = (on_die(CommandKind::GcMove), on_die(CommandKind::Read));
    assert_eq!(moves.len(), 3, "the three valid pages moved: {moves:?} {:?}", report.gc);
    assert_eq!(reads.len(), 1);
    let (start, end) = reads[0];
    assert!(moves.iter().all(|m| m.1 <= start), "GC ran first: {moves:?}, read at {start}");
    let x = (4096.0f64 * 0.01).ceil() as u64;
    assert!([50_000, 70_000, 90_000].iter().any(|&s| end - start == s + x), "read took {} ns", end - start);
}

/// Written for the survivors in `device_idle` and `on_slc_reclaimed` (it kills neither:
/// see docs/testing.md): in an idle gap, migration reclaims SLC-mode blocks until the
/// free share reaches `hybrid.idle_free_target`, whatever the policy. One plane with 8
/// SLC-mode blocks of 16 pages, all filled by 128 writes, then 30 s idle: 7 blocks are
/// reclaimed (7/8 >= 0.8 > 6/8). (QPC-DM with σ = 0 may migrate the one plane.)
#[test]
fn an_idle_episode_reclaims_slc_blocks_up_to_the_idle_target() {
    for migration in [SlcMigration::Bg, SlcMigration::Qpc] {
        let mut c = tiny(1, 1, 1, 1);
        c.flash.program_scheme = ProgramScheme::OneShot;
        c.flash.layout = LayoutKind::Sequential;
        c.flash.one_shot_program_latency_ns = 5_500_000;
        c.flash.program_delay_ns = 100_000_000;
        c.flash.slc_pages_per_block = 16;
        c.flash.slc_program_latency_ns = 500_000;
        c.flash.slc_read_latency_ns = 25_000;
        c.flash.copyback = true;
        c.ftl.slc_blocks_per_plane = 8;
        c.hybrid.migration = migration;
        c.hybrid.idle_ns = 1_000_000_000;
        c.hybrid.qpc_sigma = 0;
        assert_eq!(c.hybrid.idle_free_target, 0.8);
        let mut records: Vec<Record> = (0..128).map(|k| rec(k * 1_000_000, Op::Write, k, 1, 4096)).collect();
        records.push(rec(30_000_000_000, Op::Read, 0, 1, 4096));
        let h = run(&c, records).hybrid.expect("hybrid summary");
        assert_eq!(h.slc_user_pages, 128, "{migration:?}: {h:?}");
        assert_eq!(h.slc_blocks_reclaimed, 7, "{migration:?}: {h:?}");
        // Moved in one-shot page sets of 3: the last set may take pages of an eighth block.
        assert!((7 * 16..7 * 16 + 3).contains(&h.migrated_pages), "{migration:?}: {h:?}");
    }
}

/// Kills `replace > with < in gc_need` (SSDSim's one-victim-per-block background GC):
/// every block a plane opens at or below the background threshold owes a victim, cleaned
/// in idle time. Two sequential passes over the drive, one block's worth of pages at a
/// time with idle gaps: every victim is wholly invalid, so background GC keeps the plane
/// off the emergency threshold (6 and 3 free blocks of 64 here).
#[test]
fn one_victim_per_block_gc_cleans_in_the_background() {
    let mut c = tiny(1, 1, 1, 1);
    c.ftl.gc_background = BackgroundGc::OneVictimPerBlock;
    c.ftl.gc_idle_ns = 0;
    let logical = c.logical_pages();
    assert_eq!(logical, 48 * 48);
    let records: Vec<Record> =
        (0..2 * logical / 48).map(|k| rec(k * 500_000_000, Op::Write, (k * 48) % logical, 48, 4096)).collect();
    let report = run(&c, records);
    assert!(report.gc.erases >= 10, "{:?}", report.gc);
    assert_eq!(report.gc.moved_pages, 0, "{:?}", report.gc);
    assert_eq!(report.gc.emergency_steps, 0, "{:?}", report.gc);
}

/// Kills `replace & with ^ in verify_data` (the issued version loses its trim bit by
/// masking, not by flipping every other bit): the data checker must report a logical
/// page whose acknowledged write lost its mapping, or whose mapping points at a page
/// holding a version never issued for it (the bugs it exists to catch), and accept a
/// page trimmed since.
#[test]
fn the_data_checker_reports_lost_and_misdirected_mappings() {
    use ssdlab_core::flash::NO_PAGE;
    use ssdlab_core::ftl::Ftl;
    let c = tiny(1, 1, 1, 1);
    let mut ftl = Ftl::new(&c);
    ftl.track_versions();
    let write = |ftl: &mut Ftl, lpn: u32| {
        let a = ftl.allocate_user(0, 0).expect("a fresh drive has room");
        ftl.commit_write(lpn, a.ppn);
        let version = ftl.tag_write(lpn, a.ppn);
        ftl.acknowledge(lpn, 0, 1, version);
        a.ppn
    };
    write(&mut ftl, 5);
    write(&mut ftl, 6);
    write(&mut ftl, 7);
    let newer = write(&mut ftl, 7);
    assert_eq!(ftl.verify_data("written", &[]), Ok(()));
    // Trimmed and acknowledged: no mapping is expected.
    ftl.trim(6);
    ftl.acknowledge_trim(6);
    assert_eq!(ftl.map_at(6), NO_PAGE);
    assert_eq!(ftl.verify_data("trimmed", &[]), Ok(()));
    // Logical page 5 (version 1 issued) mapped to logical page 7's version 2.
    let saved = ftl.map_at(5);
    ftl.set_map(5, newer);
    let err = ftl.verify_data("misdirected", &[]).expect_err("the misdirected page is reported");
    assert!(err.contains("logical page 5") && err.contains("found version 2"), "{err}");
    // A mapping lost without a trim is a data loss.
    ftl.set_map(5, NO_PAGE);
    let err = ftl.verify_data("lost", &[]).expect_err("the lost page is reported");
    assert!(err.contains("logical page 5") && err.contains("found no mapping"), "{err}");
    ftl.set_map(5, saved);
    assert_eq!(ftl.verify_data("restored", &[]), Ok(()));
}

/// Kills `replace Simulator::config -> &Config with Box::leak(Box::new(Default::default()))`
/// (designs/context.rs, the design API): a design sees the configuration the engine runs,
/// the device view. With 2 × 2 super-pages on 4 channels of 2 dies, a gang of two
/// channels' two dies is one die of a 16 KiB page: 2 channels of 1 die each.
#[test]
fn a_design_sees_the_device_view_of_the_configuration() {
    let mut c = tiny(4, 1, 2, 1);
    c.ftl.super_page_channels = 2;
    c.ftl.super_page_dies = 2;
    let factory = Box::new(|| Ok(Box::new(VecSource::new(Vec::new())) as Box<dyn RecordSource>));
    let sim = Simulator::new(c.clone(), factory, Observers::default()).expect("valid setup");
    let seen = sim.config();
    assert_eq!(seen.name, "test");
    let g = &seen.geometry;
    assert_eq!((g.channels, g.chips_per_channel, g.dies_per_chip, g.page_size_bytes), (2, 1, 1, 16384));
    assert_eq!((seen.ftl.super_page_channels, seen.ftl.super_page_dies), (1, 1));
    assert_eq!(seen.ftl.over_provisioning, c.ftl.over_provisioning);
}
