//! Issue 13: the flash error model (RBER by page type, wear, retention, disturb), the ECC
//! (BCH decode time, LDPC read retries, uncorrectable reads), wear-dependent latency, and
//! the energy accounting fixed on the way.

use super::timing::{commands, latencies, run_logged};
use super::*;
use ssdlab_core::engine::occupancy::CommandKind;

/// Transfer of one 4 KiB page at 0.01 ns/B.
const X: u64 = 41;

/// One SLC-latency die, the error model on with a flat wear curve at `rber` and no other
/// term, errors taken at their expected value.
fn flat(rber: f64) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.reliability = Reliability {
        enabled: true,
        rber_by_pe: vec![(0, rber)],
        retention_per_decade: 0.0,
        read_disturb_per_million: 0.0,
        bit_errors: BitErrors::Expected,
        ..Reliability::default()
    };
    c
}

fn write_then_read() -> Vec<Record> {
    vec![rec(0, Op::Write, 0, 1, 4096), rec(10_000_000, Op::Read, 0, 1, 4096)]
}

#[test]
fn a_read_whose_rber_maps_to_n_retries_takes_base_plus_n_sense_transfer_decode() {
    for (rber, n) in [(0.001, 0u64), (0.0045, 1), (0.0055, 2), (0.0062, 3)] {
        let mut c = flat(rber);
        c.ecc.scheme = EccScheme::Ldpc;
        c.flash.ecc_decode_ns = 5_000;
        c.flash.retry_sense_latency_ns = 24_000;
        let l = run_logged(&c, write_then_read());
        let base = 50_000 + X + 5_000;
        assert_eq!(latencies(&l)[1], base + n * (24_000 + X + 5_000), "RBER {rber}: {n} retries");
        // The die is held for every retry, not for the final decode.
        let read = commands(&l.log).into_iter().find(|c| c.2 == CommandKind::Read).expect("a read");
        assert_eq!(read.1 - read.0, 50_000 + X + n * (5_000 + 24_000 + X));
        let e = l.report.errors.expect("errors section");
        assert_eq!(e.read_retries, n);
        assert_eq!(l.report.flash.read_retries, n);
        assert_eq!(e.retries_per_read[n as usize], 1);
        assert_eq!(l.requests[1].read_retries, n as u32, "per-request record");
        assert_eq!(e.ecc_decode_ns_total, (n + 1) * 5_000);
        assert_eq!((e.reads_by_page_type[0], e.mean_rber_by_page_type[0]), (1, rber));
    }
}

#[test]
fn past_the_ldpc_limit_a_read_is_uncorrectable_counted_or_fatal() {
    let mut c = flat(0.02);
    c.ecc.scheme = EccScheme::Ldpc;
    let report = run(&c, write_then_read());
    assert_eq!(report.flash.uncorrectable_reads, 1);
    assert_eq!(report.errors.as_ref().unwrap().uncorrectable_reads, 1);
    assert_eq!(report.flash.read_retries, 8, "it took every step's retries first");
    c.ecc.uncorrectable = Uncorrectable::Fail;
    let e = try_run_with_budget(&c, write_then_read(), u64::MAX).unwrap_err();
    assert!(e.to_string().contains("uncorrectable read"), "{e}");
}

#[test]
fn bch_decode_time_spans_the_configured_minimum_and_maximum() {
    let x = |rber: f64| {
        let mut c = flat(rber);
        c.ecc.scheme = EccScheme::Bch;
        // SLC pages: the wear RBER is scaled by slc_factor; undo it for the test.
        c.reliability.slc_factor = 1.0;
        let l = run_logged(&c, write_then_read());
        (latencies(&l)[1], l.report.errors.unwrap())
    };
    let (fast, e) = x(0.0);
    assert_eq!(fast, 50_000 + X + 500, "IPU Table 2: ECC min time 0.5 us");
    assert_eq!(e.ecc_decode_ns_total, 500);
    let (slow, e) = x(0.001);
    assert_eq!(slow, 50_000 + X + 96_800, "IPU Table 2: ECC max time 96.8 us");
    assert_eq!(e.uncorrectable_reads, 0);
    let (half, _) = x(0.0005);
    assert_eq!(half, 50_000 + X + 500 + 48_150);
    let (_, e) = x(0.002);
    assert_eq!(e.uncorrectable_reads, 1);
}

/// A small TLC drive with dir-tlc's error model, preconditioned with `pe` P/E cycles and
/// `days` of retention age, reading its preconditioned data at random.
fn aged_tlc(pe: u32, days: f64) -> Report {
    let dir = ssdlab_core::presets::preset("dir-tlc").unwrap();
    let mut c = tiny(2, 1, 1, 2);
    c.flash.retry_sense_latency_ns = 24_000;
    c.reliability = dir.reliability.clone();
    c.ecc = dir.ecc.clone();
    c.precondition.used_fraction = 0.8;
    c.precondition.pe_cycles = pe;
    c.precondition.retention_age_days = days;
    c.seed = 7;
    let pages = c.logical_pages() * 8 / 10;
    let reads = random_requests(3000, 2, pages, Op::Read, 4096, 11);
    let reads = reads.into_iter().enumerate().map(|(i, r)| Record { arrival_ns: i as u64 * 400_000, ..r }).collect();
    run(&c, reads)
}

#[test]
fn mean_read_latency_rises_with_wear_and_with_retention_age() {
    let by_pe: Vec<f64> = [0, 1500, 3000].map(|pe| aged_tlc(pe, 30.0).read.latency_ns.mean).to_vec();
    assert!(by_pe[0] < by_pe[1] && by_pe[1] < by_pe[2], "by P/E: {by_pe:?}");
    let by_age: Vec<f64> = [0.0, 30.0, 3650.0].map(|d| aged_tlc(3000, d).read.latency_ns.mean).to_vec();
    assert!(by_age[0] < by_age[1] && by_age[1] < by_age[2], "by age: {by_age:?}");
}

#[test]
fn on_the_aged_drive_msb_reads_retry_more_than_csb_and_csb_more_than_lsb() {
    let r = aged_tlc(3000, 30.0);
    let e = r.errors.expect("errors");
    let per_read = |t: usize| e.retries_by_page_type[t] as f64 / e.reads_by_page_type[t].max(1) as f64;
    assert!(per_read(2) > per_read(1) && per_read(1) > per_read(0), "{e:?}");
    assert!(e.mean_rber_by_page_type[2] > e.mean_rber_by_page_type[0]);
    // DIR Fig. 3/10: aged TLC reads at 0.004-0.009.
    for rber in &e.mean_rber_by_page_type {
        assert!((0.004..0.009).contains(rber), "{rber}");
    }
    let fresh = aged_tlc(0, 0.0).errors.expect("errors");
    assert_eq!(fresh.read_retries, 0, "{fresh:?}");
}

#[test]
fn a_later_partial_program_raises_the_rber_of_the_data_already_in_the_page_by_its_step() {
    let mut c = flat(0.0004);
    c.geometry.page_size_bytes = 16384;
    c.geometry.subpages_per_page = 4;
    c.flash.partial_programs_max = 4;
    c.flash.slc_pages_per_block = 16;
    c.ftl.slc_blocks_per_plane = 8;
    c.ftl.partial_program_updates = true;
    c.reliability.in_page_disturb = 0.25;
    let sub = |i: u64, op: Op| Record {
        arrival_ns: i * 10_000_000,
        device: 0,
        offset_bytes: 0,
        size_bytes: 4096,
        op,
        hint: None,
    };
    let slc = 0.0004 * c.reliability.slc_factor;
    // One program, then a read: the undisturbed RBER.
    let report = run(&c, vec![sub(0, Op::Write), sub(1, Op::Read)]);
    assert!((report.errors.unwrap().slc_mean_rber - slc).abs() < 1e-15);
    // A second (partial) program into the page, then the read: one step more.
    let mut second = Record { offset_bytes: 4096, ..sub(1, Op::Write) };
    second.arrival_ns = 10_000_000;
    let report = run(&c, vec![sub(0, Op::Write), second, sub(2, Op::Read)]);
    assert_eq!(report.flash.partial_programs, 1);
    assert!((report.errors.unwrap().slc_mean_rber - slc * 1.25).abs() < 1e-15);
}

#[test]
fn turning_the_error_model_on_disturbs_no_other_random_stream() {
    // The fixed ECC ignores the RBER: with the model on, only the `errors` section may
    // differ, however many bit-error draws the model makes.
    let mut c = tiny(2, 1, 1, 2);
    c.precondition.used_fraction = 0.5;
    c.precondition.pe_cycles = 100;
    let pages = c.logical_pages() / 2;
    let mut records = random_requests(400, 1, pages, Op::Read, 4096, 3);
    records.extend(random_requests(400, 1, pages, Op::Write, 4096, 4));
    let off = run(&c, records.clone());
    c.reliability.enabled = true;
    let mut on = run(&c, records.clone());
    assert!(on.errors.take().is_some_and(|e| e.decoded_reads > 0));
    on.config_hash = off.config_hash.clone();
    assert_eq!(on, off);
    // And the draws are seeded: the same run twice is the same.
    c.ecc.scheme = EccScheme::Ldpc;
    c.reliability.rber_by_pe = vec![(0, 0.005)];
    assert_eq!(run(&c, records.clone()), run(&c, records));
}

#[test]
fn a_spread_of_preconditioned_wear_is_drawn_per_block() {
    let mut c = tiny(1, 1, 1, 1);
    c.precondition.pe_cycles = 1000;
    c.precondition.pe_spread = 0.2;
    let r = run(&c, vec![rec(0, Op::Write, 0, 1, 4096)]);
    let e = &r.erase_counts;
    assert!(e.min >= 800 && e.max <= 1201 && e.max - e.min > 100, "{e:?}");
    assert!((e.mean - 1000.0).abs() < 60.0, "{e:?}");
}

#[test]
fn worn_blocks_program_faster_and_erase_slower_when_configured() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.pe_cycles = 500;
    c.reliability.enabled = true;
    c.reliability.rated_pe_cycles = 1000;
    c.reliability.program_speedup_at_rated = 0.5;
    let l = run_logged(&c, vec![rec(0, Op::Write, 0, 1, 4096)]);
    // Half the rated life: 25% faster than 500 us.
    assert_eq!(latencies(&l)[0], X + 375_000);
}

#[test]
fn idle_power_is_charged_only_while_a_chip_has_no_command() {
    // Two chips; one read on chip 0. Over the run (first arrival to last completion),
    // chip 0 is busy for the whole read and chip 1 never.
    let mut c = tiny(2, 1, 1, 1);
    c.energy.idle_power_mw_per_chip = 10.0;
    c.precondition.used_fraction = 0.5;
    let r = run(&c, vec![rec(0, Op::Read, 0, 1, 4096)]);
    let interval = r.simulated_ns as f64;
    // mW x ns = 1e-3 nJ; chip 1 idle all the time, chip 0 not at all.
    assert!((r.energy_nj.idle - 10.0 * interval / 1e3).abs() < 1e-6, "{:?} over {interval} ns", r.energy_nj);
}

#[test]
fn work_energy_splits_into_user_and_gc() {
    let mut c = tiny(1, 1, 1, 1);
    let span = c.logical_pages();
    let none = run(&c, random_requests(50, 1, span, Op::Write, 4096, 1));
    let e = &none.energy_nj;
    assert_eq!(none.gc.erases, 0);
    assert_eq!(e.gc, 0.0);
    assert!((e.user - (e.read + e.program + e.erase + e.transfer)).abs() < 1e-6);
    c.precondition.used_fraction = 0.9;
    let busy = run(&c, random_requests(3000, 1, span, Op::Write, 4096, 2));
    let e = &busy.energy_nj;
    assert!(busy.gc.erases > 0 && e.gc >= e.erase, "{e:?}");
    assert!((e.user + e.gc - (e.read + e.program + e.erase + e.transfer)).abs() < 1e-3 * e.total);
}

#[test]
fn gc_reads_through_the_controller_are_decoded_and_retried_copyback_is_not() {
    let mut c = flat(0.0065);
    c.ecc.scheme = EccScheme::Ldpc;
    c.flash.retry_sense_latency_ns = 24_000;
    c.precondition.used_fraction = 0.9;
    let span = c.logical_pages();
    let writes = random_requests(2000, 1, span, Op::Write, 4096, 5);
    c.flash.copyback = false;
    let moved = run(&c, writes.clone());
    let e = moved.errors.clone().unwrap();
    assert!(moved.gc.moved_pages > 0);
    assert_eq!(e.gc_decoded_reads, moved.gc.moved_pages, "every moved page is decoded");
    // RBER 0.0065 → 3 retries a page.
    assert_eq!(e.gc_read_retries, 3 * e.gc_decoded_reads);
    assert_eq!(e.decoded_reads, 0, "no user reads");
    // Every sense costs its energy (1 nJ a read here), soft senses of GC retries included.
    assert_eq!(moved.energy_nj.read, (moved.flash.page_reads + e.gc_read_retries) as f64);
    c.flash.copyback = true;
    let copied = run(&c, writes);
    assert_eq!(copied.errors.unwrap().gc_decoded_reads, 0, "copyback never leaves the chip");
    assert!(copied.write.latency_ns.mean < moved.write.latency_ns.mean);
}
