//! PA-SSD page-type specifying schemes on the whole engine (PA §3, §4).

use super::*;

fn pa_device(scheme: &str) -> Config {
    let mut c = tiny(4, 2, 1, 4);
    c.geometry.blocks_per_plane = 96;
    c.pa.scheme = scheme.into();
    c.flash.wordline_buffer = scheme == "none";
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 8;
    c
}

#[test]
fn under_us_every_type_dominates_a_third_whatever_n() {
    // Two planes, so each plane sees enough writes for its open blocks to reach the
    // steady mix of candidate pages (the first block of a plane can offer only LSB).
    for n in [1u64, 2, 4, 8] {
        let mut c = pa_device("us");
        c.geometry = Geometry { channels: 1, chips_per_channel: 1, dies_per_chip: 1, planes_per_die: 2, ..c.geometry };
        c.geometry.blocks_per_plane = 256;
        let report = run(&c, random_requests(24_000 / n as usize, n, 16_000, Op::Write, 4096, 90 + n));
        let pa = report.pa.expect("pa summary");
        eprintln!("n = {n}: shares {:?}, success {:.4}", report.dominated_write_share, pa.success_rate);
        for t in 0..3 {
            let share = report.dominated_write_share[t];
            assert!((share - 1.0 / 3.0).abs() < 0.04, "n = {n}, type {t}: share {share:.3}");
        }
        assert!(pa.success_rate > 0.9, "n = {n}: success rate {}", pa.success_rate);
    }
}

#[test]
fn lfs_on_an_idle_drive_makes_nearly_all_writes_lsb_dominated() {
    let mut c = pa_device("lfs");
    c.host.replay = ReplayMode::OpenLoop;
    // Well spaced 4-page writes on a fresh drive: LSB pages never run out.
    let records: Vec<Record> = (0..2000).map(|i| rec(i * 20_000_000, Op::Write, (i * 4) % 8000, 4, 4096)).collect();
    let report = run(&c, records);
    assert!(report.dominated_write_share[0] > 0.99, "{:?}", report.dominated_write_share);
    assert_eq!(report.pa.unwrap().success_rate, 1.0);
    // The conventional baseline on the same workload is mostly MSB-dominated.
    // (Random offsets: sequential ones would keep every plane's write point in step.)
    let mut base = pa_device("none");
    base.host.replay = ReplayMode::OpenLoop;
    let mut records = random_requests(2000, 4, 8000, Op::Write, 4096, 3);
    for (i, r) in records.iter_mut().enumerate() {
        r.arrival_ns = i as u64 * 20_000_000;
    }
    let report = run(&base, records);
    let expected = 1.0 - (2.0f64 / 3.0).powi(4);
    assert!((report.dominated_write_share[2] - expected).abs() < 0.03, "{:?}", report.dominated_write_share);
}

#[test]
fn relaxed_constraints_hold_under_every_scheme_with_gc() {
    // Random overwrites on a full drive: GC runs, blocks open and close under every
    // scheme; the invariant checker (program order per type, adjacent-wordline
    // constraints, open lists) runs during and after each run.
    for scheme in ["us", "lfs", "ubs", "sbs+us", "sbs+ubs", "qds+us", "qds+ubs", "wbs+us", "hgs+ubs"] {
        let mut c = pa_device(scheme);
        c.geometry.blocks_per_plane = 48;
        c.precondition.used_fraction = 0.9;
        let span = c.logical_pages();
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let records: Vec<Record> = (0..4000)
            .map(|_| {
                let pages = rng.random_range(1..5u64);
                let mut r = rec(0, Op::Write, rng.random_range(0..span - pages), pages, 4096);
                r.hint = rng.random_bool(0.5).then(|| rng.random_range(0..3u8));
                r
            })
            .collect();
        let report = run(&c, records);
        assert!(report.gc.erases > 0, "{scheme}: GC must run");
        let pa = report.pa.expect("pa summary");
        assert!(pa.typed_allocations > 0);
    }
}

#[test]
fn lfs_drains_free_lsb_pages_faster_than_ubs() {
    // PA §6.2, Fig. 12: LFS uses LSB pages up quickly; UBS keeps the types balanced.
    let free_lsb_share = |scheme: &str| {
        let mut c = pa_device(scheme);
        c.geometry.blocks_per_plane = 48;
        c.precondition.used_fraction = 0.9;
        c.output.series_interval_ns = 10_000_000;
        let span = c.logical_pages();
        let (report, series) = run_with_series(&c, random_requests(6000, 2, span, Op::Write, 4096, 17));
        let last = series.last().expect("series rows");
        let free = &last.free_pages_by_type;
        (free[0] as f64 / free.iter().sum::<u64>() as f64, report.pa.unwrap().success_rate)
    };
    let (lfs, _) = free_lsb_share("lfs");
    let (ubs, ubs_success) = free_lsb_share("ubs");
    assert!(lfs < ubs, "free LSB share: LFS {lfs:.3} vs UBS {ubs:.3}");
    assert!(ubs_success > 0.9, "UBS success {ubs_success:.3}");
}

#[test]
fn single_plane_request_by_request_types_follow_the_scheme() {
    use std::cell::RefCell;
    use std::rc::Rc;
    // One plane, one request at a time: each request's pages get the type its scheme
    // assigns (LSB is always a candidate, so LSB assignments always succeed).
    let dominant = |scheme: &str, records: Vec<Record>| {
        let mut c = tiny(1, 1, 1, 1);
        c.pa.scheme = scheme.into();
        c.flash.wordline_buffer = false;
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = 1;
        let seen = Rc::new(RefCell::new(Vec::new()));
        let sink = seen.clone();
        let observers = Observers {
            requests: Some(Box::new(move |r: &ssdlab_core::stats::RequestRecord| {
                sink.borrow_mut().push((r.pages, r.dominant_page_type))
            })),
            ..Observers::default()
        };
        let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
        let mut sim = Simulator::new(c, factory, observers).unwrap();
        sim.set_check(true);
        sim.run().unwrap();
        let v = seen.borrow().clone();
        v
    };
    let sizes: Vec<u64> = (0..60).map(|i| 1 + (i * 7 % 3)).collect();
    let records: Vec<Record> =
        sizes.iter().enumerate().map(|(i, &n)| rec(0, Op::Write, i as u64 * 4, n, 4096)).collect();
    // LFS: every request LSB.
    assert!(dominant("lfs", records.clone()).iter().all(|&(_, t)| t == 0));
    // SBS+US: every single-page request LSB.
    let sbs = dominant("sbs+us", records.clone());
    assert!(sbs.iter().filter(|&&(pages, _)| pages == 1).all(|&(_, t)| t == 0), "{sbs:?}");
    assert!(sbs.iter().any(|&(pages, t)| pages > 1 && t > 0), "larger requests follow US: {sbs:?}");
    // QDS at queue depth 1 never sees a long queue: its US complement cycles the types.
    let qds = dominant("qds+us", records);
    let types: std::collections::BTreeSet<i32> = qds.iter().map(|&(_, t)| t).collect();
    assert_eq!(types.len(), 3, "{qds:?}");
}

#[test]
fn counting_free_pages_keeps_lfs_erases_at_the_baselines() {
    // PA §6.1: every scheme garbage-collects as often as the baseline (within 1%). LFS
    // opens a block for every third of a block it writes and leaves the CSB/MSB pages
    // free: counting free *blocks* (ssdlab's default) GC replaces each such block, so LFS
    // erases far more; counting free *pages* (SSDSim's `free_page`, which PA ran) it
    // does not. On an SSDSim-aged drive (70% of blocks invalid, at the 30% threshold).
    let erases = |scheme: &str, space: GcFreeSpace| {
        let mut c = pa_device(scheme);
        c.geometry.blocks_per_plane = 64;
        c.precondition.aged_invalid_fraction = 0.7;
        c.precondition.fill_invalid_to_gc_threshold = false;
        c.ftl.gc_background_free_fraction = 0.3;
        c.ftl.gc_background = BackgroundGc::OneVictimPerBlock;
        c.ftl.gc_idle_ns = 0;
        c.ftl.gc_free_space = space;
        let span = c.logical_pages();
        run(&c, random_requests(3000, 4, span, Op::Write, 4096, 23)).gc.erases as f64
    };
    let (base_blocks, lfs_blocks) = (erases("none", GcFreeSpace::Blocks), erases("lfs", GcFreeSpace::Blocks));
    let (base_pages, lfs_pages) = (erases("none", GcFreeSpace::Pages), erases("lfs", GcFreeSpace::Pages));
    eprintln!("blocks: {base_blocks} vs LFS {lfs_blocks}; pages: {base_pages} vs LFS {lfs_pages}");
    assert!(base_pages > 50.0, "GC must run: {base_pages}");
    assert!(lfs_blocks > 1.5 * base_blocks, "counting blocks, LFS {lfs_blocks} vs {base_blocks}");
    assert!((lfs_pages / base_pages - 1.0).abs() < 0.03, "counting pages, LFS {lfs_pages} vs {base_pages}");
}

/// PA §4.2: GC writes take their page type from UBS, drawn in proportion to the free
/// pages of each type, so never a type with no free page (and LSB when none is free).
#[test]
fn ubs_never_draws_a_page_type_without_free_pages() {
    use ssdlab_core::designs::pa_ssd::scheme::PaPolicy;
    let config = PaConfig { scheme: "ubs".into(), ..PaConfig::default() };
    let mut policy = PaPolicy::new(&config, 3, 7);
    for free in [[0, 0, 5], [5, 0, 5], [0, 3, 0], [1, 0, 0], [0, 1, 1]] {
        for _ in 0..2000 {
            let t = policy.assign_gc(&free) as usize;
            assert!(free[t] > 0, "drew type {t} with free pages {free:?}");
        }
    }
    assert_eq!(policy.assign_gc(&[0, 0, 0]), 0);
    // In proportion: one free CSB page among 1,000 is drawn about once in 1,000 draws.
    let draws = (0..100_000).filter(|_| policy.assign_gc(&[999, 1, 0]) == 1).count();
    assert!((40..=180).contains(&draws), "{draws} CSB draws of 100,000 (expected 100)");
}
