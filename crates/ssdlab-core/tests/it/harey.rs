//! The Harey Tortoise (thesis §7.3, issue 20): write points chosen by the speed of their
//! next page, Return to Fast, page preference and rate-matched GC. Closed-form cases on a
//! one-die MLC drive, with invariant checks and `--verify` on.

use super::*;

const MS: u64 = 1_000_000;

/// One die of MLC (fast 253 us / slow 1359 us, as Table 7.3), `w` user write points that
/// GC writes through too, half full after preconditioning.
fn die(w: u32, layout: LayoutKind) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    c.flash.cell = CellType::Mlc;
    c.flash.layout = layout;
    c.flash.read_latency_ns = vec![27_000, 40_000];
    c.flash.program_latency_ns = vec![253_000, 1_359_000];
    c.flash.erase_latency_ns = 2_871_000;
    c.energy.read_nj = vec![1.0, 1.0];
    c.energy.program_nj = vec![1.0, 1.0];
    c.ftl.user_write_points = w;
    c.ftl.gc_through_user_write_points = true;
    c.precondition.used_fraction = 0.6;
    c.precondition.fill_invalid_to_gc_threshold = true;
    c
}

/// `n` one-page writes at `at_ns` to distinct pages from `first`.
fn burst(at_ns: u64, first: u64, n: u64) -> Vec<Record> {
    (0..n).map(|i| rec(at_ns, Op::Write, first + i, 1, 4096)).collect()
}

/// A warm-up burst that leaves the write points mid-block, an idle second, then a burst
/// of `n`: how many of the burst's writes took slow pages.
fn slow_in_burst(c: &Config, n: u64) -> u64 {
    let warm = burst(0, 0, 37);
    let slow = |records: Vec<Record>| {
        let r = run(c, records);
        let h = r.harey.expect("harey section");
        assert_eq!(h.user_fast_pages + h.user_slow_pages, r.flash.user_page_programs, "{h:?}");
        h.user_slow_pages
    };
    let before = slow(warm.clone());
    let mut all = warm;
    all.extend(burst(1_000 * MS, 200, n));
    slow(all) - before
}

/// Weak RTF on single-page alternation (Fig. 7.2B, one fast page per run mid-block):
/// after an idle period every write point is on a fast page, so a burst of w pages takes
/// only fast pages and a burst of w + 1 takes exactly one slow page (§7.3.2: "the maximum
/// burst size serviced at high speed is equal to the number of write points").
#[test]
fn weak_rtf_serves_a_burst_of_w_pages_with_fast_pages_only() {
    for w in [1, 4, 8] {
        let mut c = die(w, LayoutKind::Staircase);
        c.harey.rtf = Rtf::Weak;
        assert_eq!(slow_in_burst(&c, w as u64), 0, "w = {w}: burst of w");
        assert_eq!(slow_in_burst(&c, w as u64 + 1), 1, "w = {w}: burst of w + 1");
    }
}

/// Strong RTF on fast pairs (Fig. 7.2A): every write point back on the first of a fast
/// pair, so twice the write points' count of pages are fast (§7.3.2: "(2x) the number of
/// write points").
#[test]
fn strong_rtf_serves_twice_the_write_points() {
    for w in [1, 4] {
        let mut c = die(w, LayoutKind::Pairs);
        c.harey.rtf = Rtf::Strong;
        assert_eq!(slow_in_burst(&c, 2 * w as u64), 0, "w = {w}: burst of 2w");
        assert_eq!(slow_in_burst(&c, 2 * w as u64 + 1), 1, "w = {w}: burst of 2w + 1");
    }
}

/// Without RTF the write points are taken in turn whatever their next page: the same
/// bursts take slow pages.
#[test]
fn without_rtf_bursts_take_slow_pages() {
    let c = die(8, LayoutKind::Staircase);
    let r = run(&c, burst(0, 0, 64));
    assert!(r.harey.is_none(), "no policy, no section");
    assert!(r.flash.programs_by_page_type[1] >= 24, "{:?}", r.flash.programs_by_page_type);
}

/// Sustained random writes over twice the logical space on two chips, GC moving pages off
/// chip into user write points (on chip with power losses): under FGC GC writes take fast pages more often than user
/// writes do and under SGC less often; rate matching starts GC steps; data verification
/// and invariants hold throughout, and through power losses.
#[test]
fn preference_and_rate_matching_under_sustained_writes_verify_clean() {
    let share = |pref: PagePreference, losses: Vec<u64>| {
        let mut c = die(4, LayoutKind::Pairs);
        c.geometry.chips_per_channel = 2;
        // (Power losses are not modelled with pages in flight between dies.)
        if losses.is_empty() {
            c.ftl.gc_destination = GcDestination::OtherChip;
        }
        c.harey.page_preference = pref;
        c.harey.rate_matching = true;
        c.power.loss_at_ns = losses;
        let logical = c.logical_pages();
        let r = run(&c, random_requests(2 * logical as usize, 1, logical, Op::Write, 4096, 5));
        let h = r.harey.expect("harey section");
        assert!(h.rate_gc_steps > 0 && h.rate_decisions >= h.rate_gc_steps, "{h:?}");
        assert!(h.gc_fast_pages + h.gc_slow_pages > 0, "{h:?}");
        (h.user_fast_share, h.gc_fast_share)
    };
    let (fgc_user, fgc_gc) = share(PagePreference::Fgc, vec![]);
    let (sgc_user, sgc_gc) = share(PagePreference::Sgc, vec![]);
    assert!(fgc_gc > fgc_user && sgc_user > sgc_gc, "FGC {fgc_user:.2}/{fgc_gc:.2}, SGC {sgc_user:.2}/{sgc_gc:.2}");
    share(PagePreference::Fgc, vec![300 * MS, 900 * MS]);
}

/// Rate matching alone (no preference) keeps the baseline's write-point order.
#[test]
fn the_harey_section_names_the_policies() {
    let mut c = die(2, LayoutKind::Pairs);
    c.harey.rate_matching = true;
    let h = run(&c, burst(0, 0, 8)).harey.expect("harey section");
    assert_eq!((h.rtf.as_str(), h.page_preference.as_str(), h.rate_matching), ("off", "none", true));
    assert_eq!((h.write_points_per_plane, h.user_preferred_pages), (2, 0));
}

/// Rate matching's target (§7.3.3) is Eq. 7.1 over Eq. 7.2: the chip time a block's GC
/// takes (the pages it moves, each a sense, two transfers and a program, and the erase)
/// per page it frees, over a user page write's time (a transfer and a program). With
/// no page preference both programs take the block's mean program time. The pages moved
/// per block are measured as GC goes; on a drive preconditioned to its steady state
/// under random writes that measure stays put, so the mean target over the run's
/// decisions is the formula at the run's pages moved per erase (the first decisions
/// average few blocks, and the target is convex in the pages moved: over ten times the
/// logical pages the mean lies about 2% above it).
#[test]
fn the_rate_matching_target_is_eq_7_1_over_eq_7_2_at_the_measured_pages_moved_per_block() {
    let mut c = die(4, LayoutKind::Pairs);
    c.harey.rate_matching = true;
    c.precondition.used_fraction = 1.0;
    c.precondition.steady_state = true;
    let logical = c.logical_pages();
    let r = run(&c, random_requests(10 * logical as usize, 1, logical, Op::Write, 4096, 7));
    let h = r.harey.expect("harey section");
    assert!(h.rate_decisions > 1000 && r.gc.erases > 100, "{h:?}");
    let x = 41.0; // one 4 KiB page over the tiny channel (0.01 ns/B, rounded up)
    let (program, read, erase) = ((253_000.0 + 1_359_000.0) / 2.0, (27_000.0 + 40_000.0) / 2.0, 2_871_000.0);
    let pages = c.geometry.pages_per_block as f64;
    let moved = h.gc_pages_moved_per_erase;
    assert!(moved > 1.0 && moved < pages - 1.0, "{h:?}");
    let (w, mv) = (program + x, read + 2.0 * x + program);
    let target = (moved * mv + erase) / (pages - moved) / w;
    assert!(
        (h.mean_target_ratio - target).abs() < 0.05 * target,
        "mean target {} vs Eq. 7.1 / 7.2 at {moved:.2} pages moved per erase: {target}",
        h.mean_target_ratio
    );
}
