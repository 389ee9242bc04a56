//! WOM codes (thesis §6.1): second-generation writes in place, the code's capacity, and
//! the bytes a block takes per erase.

use super::*;

/// An empty drive of `cell` flash (MLC: pairs layout) with enough spare room for the
/// code's capacity (a third of the WOM-safe pages hold its redundancy).
fn drive(mlc: bool, blocks: u32) -> Config {
    let mut c = tiny(2, 1, 1, 1);
    c.geometry.blocks_per_plane = blocks;
    if mlc {
        c.geometry.pages_per_block = 128;
        paired_mlc(&mut c);
        c.ftl.over_provisioning = 0.4;
    } else {
        c.geometry.pages_per_block = 64;
        slc_like(&mut c);
        c.ftl.over_provisioning = 0.5;
    }
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c
}

fn wom(report: &Report) -> &ssdlab_core::stats::WomSummary {
    report.wom.as_ref().expect("wom section")
}

#[test]
fn a_second_generation_write_reprograms_without_an_erase_and_a_third_relocates() {
    let mut c = drive(false, 16);
    c.wom.enabled = true;
    // Logical page 0 lands on the first page of a trio (first generation).
    let first = vec![rec(0, Op::Write, 0, 1, 4096)];
    let (one, sim) = run_keep(&c, first.clone());
    let page = sim.ftl.lookup(0).expect("written");
    assert_eq!(wom(&one).second_generation_writes, 0);
    let reads_before = one.flash.page_reads;

    let mut twice = first.clone();
    twice.push(rec(0, Op::Write, 0, 1, 4096));
    let (two, sim) = run_keep(&c, twice.clone());
    assert_eq!(sim.ftl.lookup(0), Some(page), "the second generation stays in its page");
    assert_eq!(wom(&two).second_generation_writes, 1);
    assert_eq!(two.gc.erases, 0, "no erase");
    assert_eq!(two.flash.user_page_programs, 2, "two programs of the same page");
    assert_eq!(two.flash.page_reads, reads_before + 1, "the reprogram reads the page first");
    assert!(two.write.latency_ns.max > one.write.latency_ns.max, "it costs a read");

    let mut thrice = twice;
    thrice.push(rec(0, Op::Write, 0, 1, 4096));
    let (three, sim) = run_keep(&c, thrice);
    assert_ne!(sim.ftl.lookup(0), Some(page), "a third write relocates");
    assert_eq!((wom(&three).second_generation_writes, wom(&three).third_writes), (1, 1));
    assert_eq!(three.gc.erases, 0);
}

/// Passes of sequential writes over the whole logical space: every page written to a
/// block is overwritten before the block is cleaned, so GC finds blocks without valid
/// pages and each block takes all it can per erase.
fn passes(c: &Config, passes: u64) -> Vec<Record> {
    let n = c.logical_pages();
    (0..passes * n).map(|k| rec(0, Op::Write, k % n, 1, 4096)).collect()
}

/// Logical page programs and erases of a run.
fn programs_and_erases(report: &Report) -> (f64, f64) {
    ((report.flash.user_page_programs + report.flash.gc_page_programs) as f64, report.gc.erases as f64)
}

#[test]
fn bytes_per_erase_match_the_codes_arithmetic_on_sequential_rewrites() {
    for (mlc, expected) in [(false, 85.0 / 64.0), (true, 149.0 / 128.0)] {
        // Steady state: what 8 more passes add (the blocks still full of valid data at
        // the end of a run, never erased, cancel out).
        let per_erase = |config: &Config| {
            let (p0, e0) = programs_and_erases(&run(config, passes(config, 8)));
            let (p1, e1) = programs_and_erases(&run(config, passes(config, 16)));
            (p1 - p0) / (e1 - e0)
        };
        let c = drive(mlc, 48);
        let mut w = c.clone();
        w.wom.enabled = true;
        let report = run(&w, passes(&w, 8));
        let s = wom(&report);
        assert!((s.ideal_writes_per_erase_ratio - expected).abs() < 1e-9, "{s:?}");
        assert!(s.second_generation_writes > 0 && s.third_writes > 0);
        let (plain, coded) = (per_erase(&c), per_erase(&w));
        let ratio = coded / plain;
        assert!(
            (ratio - expected).abs() < 0.02 * expected,
            "mlc {mlc}: page writes per erase {coded:.1} vs {plain:.1} = {ratio:.3}, expected {expected:.3}"
        );
    }
}

#[test]
fn wom_under_random_writes_and_power_losses_keeps_every_acknowledged_write() {
    let mut c = drive(true, 48);
    c.wom.enabled = true;
    c.host.replay = ReplayMode::OpenLoop;
    let n = c.logical_pages();
    let mut records: Vec<Record> = (0..n).map(|p| rec(p * 400_000, Op::Write, p, 1, 4096)).collect();
    let mut rng = Pcg64Mcg::seed_from_u64(8);
    for k in 0..4000u64 {
        let page = rng.random_range(0..n / 3);
        records.push(rec(n * 400_000 + k * 500_000, Op::Write, page, 1, 4096));
    }
    let end = n * 400_000 + 4000 * 500_000;
    c.power.loss_at_ns = vec![end / 2 + 12_345, end * 3 / 4];
    let report = run(&c, records);
    assert_eq!(report.power.as_ref().expect("power").losses, 2);
    let s = wom(&report);
    assert!(s.second_generation_writes > 100 && report.gc.erases > 0, "{s:?}");
}

#[test]
fn the_codes_capacity_is_checked_against_over_provisioning() {
    let mut c = drive(false, 48);
    c.wom.enabled = true;
    c.ftl.over_provisioning = 0.2;
    let errors = c.validate().expect_err("an SLC block holds 43 of 64 pages of data under the code");
    assert!(errors.iter().any(|e| e.key == "wom.enabled" && e.message.contains("over_provisioning")), "{errors:?}");
    c.ftl.over_provisioning = 0.5;
    assert!(c.validate().is_ok());
    // A block's summary page holds no data either (4-page blocks: 2 data pages, a code
    // page and the summary).
    c.geometry.pages_per_block = 4;
    c.power.block_summary = true;
    c.ftl.over_provisioning = 0.3;
    assert!(c.validate().is_err(), "2 of 3 pages hold data: 30% over-provisioning is too little");
}

/// The capacity check's boundary (`WomConfig::validate`): per plane, the blocks beyond
/// the logical capacity at the code's data pages per block must cover the reserve
/// emergency GC keeps and two write points. SLC blocks of 64 pages hold 43 pages of data
/// (21 trios, one plain page); 48 blocks with a 5% emergency reserve (3 blocks) need
/// 48 · 43 − 48 · 64 · (1 − op) ≥ (3 + 2) · 43, so op ≥ 1 − 43 · 43 / (48 · 64) = 0.3981.
#[test]
fn the_codes_capacity_check_needs_the_emergency_reserve_and_two_write_points() {
    let mut c = drive(false, 48);
    c.wom.enabled = true;
    c.ftl.gc_emergency_free_fraction = 0.05;
    let boundary = 1.0 - 43.0 * 43.0 / (48.0 * 64.0);
    c.ftl.over_provisioning = boundary + 0.002;
    assert!(c.validate().is_ok(), "{:?}", c.validate());
    c.ftl.over_provisioning = boundary - 0.002;
    let errors = c.validate().expect_err("two write points short of room");
    let e = errors.iter().find(|e| e.key == "wom.enabled").expect("the code's capacity");
    assert!(e.message.contains("at least 0.398"), "{}", e.message);
}
