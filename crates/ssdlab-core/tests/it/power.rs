//! Power loss and recovery: torn programs, what survives, recovery time, acknowledgement
//! modes. Every run here has invariants and `--verify` on (see `run`), so a recovery that
//! lost acknowledged data or resurrected stale data fails the test.

use super::*;

const PAGE: u64 = 4096;

fn one_plane() -> Config {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.transfer_ns_per_byte = 0.0;
    c
}

fn power(report: &Report) -> &ssdlab_core::stats::PowerSummary {
    report.power.as_ref().expect("power section")
}

#[test]
fn a_torn_write_loses_only_itself_and_recovery_time_is_the_scan() {
    let mut c = one_plane();
    c.power.loss_at_ns = vec![1_200_000];
    // Page 0 (LSB, 500 us) is programmed by 0.5 ms; the rewrite programs page 1 (LSB)
    // from 1.0 ms to 1.5 ms and is cut at 1.2 ms. The read after recovery must find the
    // first version (checked by --verify at the end).
    let records = vec![
        rec(0, Op::Write, 0, 1, PAGE),
        rec(1_000_000, Op::Write, 0, 1, PAGE),
        rec(10_000_000, Op::Read, 0, 1, PAGE),
    ];
    let report = run(&c, records);
    let p = power(&report);
    assert_eq!(
        (p.losses, p.total.torn_pages, p.total.write_requests_failed, p.total.unacknowledged_pages_lost),
        (1, 1, 1, 1)
    );
    assert_eq!(report.write.requests, 1);
    assert_eq!(report.read.requests, 1);
    let loss = &p.each[0];
    // Two programmed pages scanned at the slowest (MSB) sense time of 90 us each.
    assert_eq!(loss.recovery_reads, 2);
    assert_eq!(loss.recovery_ns, 2 * 90_000);
    assert_eq!(loss.back_at_ns, 1_200_000 + 180_000);
    assert_eq!(loss.mapped_pages, 1);
    // The partly written block is the user write point again: nothing is abandoned.
    assert_eq!(loss.abandoned_pages, 0);
}

#[test]
fn requests_arriving_during_recovery_wait_for_it() {
    let mut c = one_plane();
    c.power.loss_at_ns = vec![1_200_000];
    c.power.off_ns = 5_000_000;
    let records = vec![
        rec(0, Op::Write, 0, 1, PAGE),
        rec(1_000_000, Op::Write, 0, 1, PAGE),
        rec(2_000_000, Op::Read, 0, 1, PAGE),
    ];
    let report = run(&c, records);
    let back = power(&report).each[0].back_at_ns;
    assert_eq!(back, 1_200_000 + 5_000_000 + 180_000);
    // The read arrived at 2 ms and could only start when the drive was back.
    let sense_ns = 50_000;
    assert_eq!(report.read.latency_ns.max, back + sense_ns - 2_000_000);
}

#[test]
fn buffered_writes_are_acknowledged_at_once_and_survive_power_loss_through_plp() {
    let mut c = one_plane();
    c.power.write_acknowledge = WriteAcknowledge::Buffer;
    c.power.write_buffer_pages = 8;
    c.power.loss_at_ns = vec![100_000];
    let report = run(&c, vec![rec(0, Op::Write, 10, 4, PAGE), rec(5_000_000, Op::Read, 10, 4, PAGE)]);
    let p = power(&report);
    // Acknowledged from DRAM: no flash time in the latency.
    assert_eq!(report.write.requests, 1);
    assert_eq!(report.write.latency_ns.max, 0);
    // One page was being programmed and three were buffered: capacitors program all four.
    assert_eq!(
        (p.total.flushed_pages, p.total.write_requests_failed, p.total.unacknowledged_pages_lost, p.total.torn_pages),
        (4, 0, 0, 0)
    );
    assert_eq!(p.each[0].mapped_pages, 4);
    assert_eq!(p.each[0].flush_failures, 0);
}

#[test]
fn writes_waiting_for_a_buffer_slot_are_not_acknowledged_and_are_lost() {
    let mut c = one_plane();
    c.power.write_acknowledge = WriteAcknowledge::Buffer;
    c.power.write_buffer_pages = 2;
    c.power.loss_at_ns = vec![100_000];
    let report = run(&c, vec![rec(0, Op::Write, 10, 4, PAGE)]);
    let p = power(&report);
    // Pages 1-2 entered the buffer (acknowledged), pages 3-4 waited for a slot: the
    // request never completed, two pages are durable and two lost.
    assert_eq!(report.write.requests, 0);
    assert_eq!(p.total.write_requests_failed, 1);
    assert_eq!(p.total.flushed_pages, 2);
    assert_eq!(p.total.unacknowledged_pages_durable, 2);
    assert_eq!(p.total.unacknowledged_pages_lost, 2);
}

#[test]
fn a_full_buffer_acknowledges_writes_as_programs_free_slots() {
    let mut c = one_plane();
    c.power.write_acknowledge = WriteAcknowledge::Buffer;
    c.power.write_buffer_pages = 2;
    // Four single-page writes at once: two are acknowledged at 0, the third when the
    // first program (LSB page 0, 500 us) frees its slot, the fourth after the second.
    let records = (0..4).map(|i| rec(0, Op::Write, 20 + i, 1, PAGE)).collect();
    let (report, _) = run_with_series(&c, records);
    assert_eq!(report.write.requests, 4);
    assert!(report.write.latency_ns.p50 <= 1, "the histogram floors at 1 ns");
    assert_eq!(report.write.latency_ns.max, 500_000 + 500_000);
}

/// A GC-heavy random workload on a small drive, closed loop.
fn busy_drive() -> (Config, Vec<Record>) {
    let mut c = tiny(2, 1, 2, 2);
    c.geometry.blocks_per_plane = 32;
    c.geometry.pages_per_block = 24;
    c.precondition.used_fraction = 0.8;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 16;
    c.ftl.plane_allocation = PlaneAllocation::LeastBusy;
    let span = c.logical_pages();
    let mut records = random_requests(6_000, 2, span, Op::Write, PAGE, 3);
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    for r in records.iter_mut() {
        if rng.random_bool(0.3) {
            r.op = Op::Read;
        }
        if rng.random_bool(0.02) {
            r.op = Op::Trim;
        }
    }
    (c, records)
}

#[test]
fn three_power_losses_under_gc_keep_every_acknowledged_write() {
    let (mut c, records) = busy_drive();
    c.power.loss_at_ns = vec![40_000_000, 150_000_000, 400_000_000];
    let report = run(&c, records.clone());
    let p = power(&report);
    assert_eq!(p.losses, 3);
    assert!(p.total.torn_pages > 0 && p.total.write_requests_failed > 0, "losses must hit work in flight: {p:?}");
    assert!(report.gc.erases > 0);
    // Same input, same output.
    assert_eq!(run(&c, records), report);
}

#[test]
fn three_power_losses_with_plp_lose_nothing_acknowledged() {
    let (mut c, records) = busy_drive();
    c.power.loss_at_ns = vec![40_000_000, 150_000_000, 400_000_000];
    c.power.write_acknowledge = WriteAcknowledge::Buffer;
    c.power.write_buffer_pages = 32;
    let report = run(&c, records);
    let p = power(&report);
    assert_eq!(p.losses, 3);
    assert_eq!(p.total.torn_pages, 0);
    assert!(p.total.flushed_pages > 0);
    assert!(p.each.iter().all(|l| l.flush_failures == 0));
}

#[test]
fn a_loss_after_the_workload_ends_does_not_happen() {
    let mut c = one_plane();
    c.power.loss_at_ns = vec![1_000_000_000];
    let report = run(&c, vec![rec(0, Op::Write, 0, 1, PAGE)]);
    let p = power(&report);
    assert_eq!((p.losses_scheduled, p.losses), (1, 0));
}

#[test]
fn block_summaries_replace_the_scan_of_full_blocks() {
    let mut c = one_plane();
    c.power.block_summary = true;
    // 48-page blocks hold 47 data pages and their summary: 50 page writes fill block 0
    // (programming its summary) and put 3 pages in block 1; the loss then finds one
    // summary to read and three pages to scan.
    let page_ns = 5_500_000;
    let mut records: Vec<Record> = (0..50).map(|i| rec(i * page_ns, Op::Write, i, 1, PAGE)).collect();
    // A read after the loss keeps the run going past it.
    records.push(rec(60 * page_ns, Op::Read, 7, 1, PAGE));
    c.power.loss_at_ns = vec![50 * page_ns + 10_000_000];
    let report = run(&c, records);
    let loss = &power(&report).each[0];
    assert_eq!((loss.summary_reads, loss.recovery_reads), (1, 3));
    assert_eq!(loss.recovery_ns, 4 * 90_000);
    assert_eq!(loss.mapped_pages, 50);
    // The summary page is not host capacity.
    let mut without = one_plane();
    without.power.block_summary = false;
    assert_eq!(c.logical_pages(), (64 * 47) * 3 / 4);
    assert_eq!(without.logical_pages(), (64 * 48) * 3 / 4);
}
