//! Reads of pages whose writes are not yet programmed (issue 19's correctness bug): with
//! acknowledgement at program time a read of a page never written before waits for the
//! program and reads flash (it used to be answered as a read of a never-written page);
//! with DRAM acknowledgement it is served from the write buffer (it used to return the
//! older copy from flash after the new write was acknowledged).

use super::*;
use ssdlab_core::config::{WhatIfUnwritten, WriteAcknowledge};

/// 4 KiB at 0.01 ns/B (the `tiny` channel).
const X: u64 = 41;

fn drive() -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.0;
    // A read of a page nobody wrote would fail the run.
    c.host.unwritten_reads = WhatIfUnwritten::Error;
    c
}

#[test]
fn a_read_of_a_first_write_not_yet_programmed_waits_for_it() {
    // Three writes queue at the one die; the read of the third's page arrives while that
    // write still waits in DRAM (not yet given a page: the map does not know it).
    let c = drive();
    let mut records: Vec<Record> = [1, 2, 5].iter().map(|&p| rec(0, Op::Write, p, 1, 4096)).collect();
    records.push(rec(10_000, Op::Read, 5, 1, 4096));
    let l = super::timing::run_logged(&c, records);
    let lat = super::timing::latencies(&l);
    // Each program takes X + 500 us; after the third the read senses (50 us) and transfers.
    let w = X + 500_000;
    assert_eq!(lat, vec![w, 2 * w, 3 * w, 3 * w + 50_000 + X - 10_000]);
    assert_eq!(l.report.host.reads_after_pending_write, 1);
    assert_eq!((l.report.host.unwritten_reads, l.report.host.buffer_reads), (0, 0));
    assert_eq!(l.report.flash.page_reads, 1);
}

#[test]
fn a_read_of_an_overwrite_not_yet_programmed_reads_the_previous_copy() {
    // Acknowledgement at program time: the overwrite is not acknowledged when the read
    // arrives, so the previous copy is a correct answer and is read at once.
    let c = drive();
    let records = vec![
        rec(0, Op::Write, 5, 1, 4096),
        rec(10_000_000, Op::Write, 5, 1, 4096),
        rec(10_000_100, Op::Read, 5, 1, 4096),
    ];
    let l = super::timing::run_logged(&c, records);
    assert_eq!((l.report.host.reads_after_pending_write, l.report.host.buffer_reads), (0, 0));
    assert_eq!(l.report.flash.page_reads, 1);
}

#[test]
fn with_dram_acknowledgement_a_read_of_a_buffered_write_is_served_from_the_buffer() {
    let mut c = drive();
    c.power.write_acknowledge = WriteAcknowledge::Buffer;
    let records = vec![
        rec(0, Op::Write, 5, 1, 4096),
        rec(10_000_000, Op::Write, 5, 1, 4096),
        rec(10_000_100, Op::Read, 5, 1, 4096),
    ];
    let l = super::timing::run_logged(&c, records);
    let lat = super::timing::latencies(&l);
    // Both writes are acknowledged from DRAM at once; the read finds the second in the
    // buffer (its program is under way) and never touches flash.
    assert_eq!(lat, vec![0, 0, 0]);
    assert_eq!(l.report.host.buffer_reads, 1);
    assert_eq!(l.report.flash.page_reads, 0);
}
