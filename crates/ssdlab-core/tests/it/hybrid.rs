//! SLC/TLC hybrid drives (SPA-SSD, seed 001): allocation policies, migration policies
//! and layouts, run end to end with invariant checks and data verification on (every
//! test run verifies that each logical page reads its latest version, so migration
//! losing or misplacing data fails here).

use super::*;

/// A small one-shot TLC drive, one plane per die, SLC blocks of a third of the pages.
fn hybrid(channels: u32, chips: u32, dies: u32) -> Config {
    let mut c = tiny(channels, chips, dies, 1);
    c.flash.program_scheme = ProgramScheme::OneShot;
    c.flash.layout = LayoutKind::Sequential;
    c.flash.one_shot_program_latency_ns = 5_500_000;
    c.flash.program_delay_ns = 100_000_000;
    c.flash.slc_pages_per_block = 16;
    c.flash.slc_program_latency_ns = 500_000;
    c.flash.slc_read_latency_ns = 25_000;
    c.flash.copyback = true;
    c.ftl.slc_blocks_per_plane = 8;
    c
}

fn writes(count: u64, span: u64, seed: u64) -> Vec<Record> {
    random_requests(count as usize, 1, span, Op::Write, 4096, seed)
}

fn closed(c: &mut Config, depth: u32) {
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = depth;
}

#[test]
fn turbowrite_uses_only_slc_planes_while_tpj_spreads_to_idle_tlc_planes() {
    // 8 planes, SLC in one of them: TW-PA sends every write there while it has SLC
    // pages; TPJ-PA also uses the other seven once the SLC plane's queue is long.
    let mut c = hybrid(2, 2, 2);
    c.hybrid.slc_planes = 1;
    // A short program delay, so that the last incomplete page sets do not dominate.
    c.flash.program_delay_ns = 5_000_000;
    closed(&mut c, 64);
    let records = writes(96, 1000, 1); // fewer pages than the SLC plane holds (8 × 16)
    c.hybrid.allocation = HybridAllocation::Tw;
    let tw = run(&c, records.clone());
    c.hybrid.allocation = HybridAllocation::Tpj;
    let tpj = run(&c, records);
    let (tw_h, tpj_h) = (tw.hybrid.unwrap(), tpj.hybrid.unwrap());
    assert_eq!(tw_h.slc_hit_ratio, 1.0);
    assert!(tpj_h.slc_user_pages > 0 && tpj_h.tlc_user_pages > 0, "{tpj_h:?}");
    assert!(tpj.simulated_ns < tw.simulated_ns, "TPJ {} ns vs TW {} ns", tpj.simulated_ns, tw.simulated_ns);
}

#[test]
fn tpj_fills_incomplete_page_sets_before_the_delay_runs_out() {
    // No SLC room anywhere, six writes 10 ms apart: TPJ-PA gathers them into two full
    // page sets; PF-PA's static striping leaves four planes with incomplete sets that
    // wait for the 100 ms program delay and are programmed partly empty.
    let mut c = hybrid(1, 2, 2);
    c.precondition.slc_filled = true;
    c.hybrid.migration = SlcMigration::Bg; // no SLC cleaning during these 160 ms
    let records: Vec<Record> = (0..6).map(|i| rec(i * 10_000_000, Op::Write, i, 1, 4096)).collect();
    c.hybrid.allocation = HybridAllocation::Tpj;
    let tpj = run(&c, records.clone());
    c.hybrid.allocation = HybridAllocation::Pf;
    let pf = run(&c, records);
    let (tpj_h, pf_h) = (tpj.hybrid.unwrap(), pf.hybrid.unwrap());
    assert_eq!((tpj_h.partial_page_sets, tpj_h.wasted_pages), (0, 0));
    assert_eq!((pf_h.partial_page_sets, pf_h.wasted_pages), (4, 6));
    assert!(tpj.write.latency_ns.max < 30_000_000, "{}", tpj.write.latency_ns.max);
    assert!(pf.write.latency_ns.max > 100_000_000);
}

#[test]
fn hot_cold_sends_large_requests_to_tlc() {
    let mut c = hybrid(1, 1, 2);
    c.hybrid.allocation = HybridAllocation::Hc;
    c.hybrid.hot_request_max_bytes = 4096;
    let small: Vec<Record> = (0..20).map(|i| rec(i * 1_000_000, Op::Write, i, 1, 4096)).collect();
    let large: Vec<Record> = (0..20).map(|i| rec(i * 1_000_000, Op::Write, 3 * i, 3, 4096)).collect();
    assert_eq!(run(&c, small).hybrid.unwrap().slc_hit_ratio, 1.0);
    assert_eq!(run(&c, large).hybrid.unwrap().slc_hit_ratio, 0.0);
}

#[test]
fn qpc_migrates_under_load_within_its_plane_bound_and_bg_does_not() {
    // SLC exhausted from the start, writes never stop: BG-DM never finds the device idle;
    // QPC-DM migrates on the planes the queue leaves spare (checked before every step).
    let mut c = hybrid(2, 2, 2);
    c.precondition.slc_filled = true;
    c.hybrid.allocation = HybridAllocation::Tpj;
    c.hybrid.qpc_sigma = 2;
    closed(&mut c, 6); // l ≈ 6 → 8 − 2 − 2 = 4 planes may migrate
    let records = writes(1500, 900, 3);
    c.hybrid.migration = SlcMigration::Bg;
    let bg = run(&c, records.clone());
    c.hybrid.migration = SlcMigration::Qpc;
    let qpc = run(&c, records);
    let (bg_h, qpc_h) = (bg.hybrid.unwrap(), qpc.hybrid.unwrap());
    assert_eq!(bg_h.migrated_pages, 0);
    assert!(qpc_h.migrated_pages > 0 && qpc_h.slc_blocks_reclaimed > 0, "{qpc_h:?}");
    assert!(qpc_h.max_migrating_planes <= 8 - 2, "{qpc_h:?}");
    assert!(qpc_h.slc_user_pages > 0, "reclaimed SLC serves user writes again");
    assert!(qpc.simulated_ns < bg.simulated_ns);
}

#[test]
fn qpc_keeps_planes_for_a_deep_queue() {
    // l/3 + σ ≥ p while the queue is deep: planes migrate only as it drains at the end,
    // so far fewer pages move than with a shallow queue.
    let mut c = hybrid(1, 2, 2);
    c.precondition.slc_filled = true;
    c.hybrid.allocation = HybridAllocation::Tpj;
    c.hybrid.migration = SlcMigration::Qpc;
    c.hybrid.qpc_sigma = 1;
    let records = writes(400, 500, 4);
    closed(&mut c, 64);
    let deep = run(&c, records.clone()).hybrid.unwrap();
    closed(&mut c, 2);
    let shallow = run(&c, records).hybrid.unwrap();
    assert!(deep.migrated_pages * 2 < shallow.migrated_pages, "deep {deep:?}\nshallow {shallow:?}");
}

#[test]
fn bg_migrates_only_in_idle_gaps() {
    // Bursts of writes 3 s apart with a 1 s idle threshold: migration happens between
    // bursts (checked: never with a request outstanding), and the SLC hit ratio stays
    // above what the SLC capacity alone allows.
    let mut c = hybrid(1, 1, 2);
    c.hybrid.migration = SlcMigration::Bg;
    c.hybrid.idle_ns = 1_000_000_000;
    let mut records = Vec::new();
    for burst in 0..6u64 {
        for i in 0..120u64 {
            records.push(rec(burst * 3_000_000_000 + i * 1_000_000, Op::Write, (burst * 120 + i) % 500, 1, 4096));
        }
    }
    let h = run(&c, records).hybrid.unwrap();
    assert!(h.migrated_pages > 0 && h.migration_episodes > 0, "{h:?}");
    let slc_capacity = 2 * 8 * 16;
    assert!(h.slc_user_pages > slc_capacity, "{h:?}");
}

#[test]
fn every_layout_migrates_without_losing_data() {
    for layout in [SlcLayout::Plane, SlcLayout::Die, SlcLayout::Chip, SlcLayout::Channel] {
        let mut c = hybrid(2, 2, 2);
        c.geometry.planes_per_die = 2;
        c.geometry.blocks_per_plane = 24;
        c.flash.slc_pages_per_block = 8; // SLC smaller than the data written
        c.hybrid.layout = layout;
        c.hybrid.slc_share = 0.5;
        c.hybrid.allocation = HybridAllocation::Tpj;
        c.hybrid.migration = SlcMigration::Qpc;
        c.hybrid.qpc_sigma = 1;
        closed(&mut c, 4);
        let records = writes(3000, 1200, 5);
        // Invariants and data verification are on.
        let (report, _) = try_run_with_budget(&c, records, 50_000_000).unwrap_or_else(|e| panic!("{layout:?}: {e}"));
        let h = report.hybrid.unwrap();
        assert!(h.migrated_pages > 0, "{layout:?}: {h:?}");
        if layout == SlcLayout::Plane {
            assert_eq!((h.slc_planes, h.slc_only_planes, h.migrated_across_planes), (16, 0, 0));
        } else {
            // Half the planes / dies / chips wholly in SLC mode; their data crosses planes.
            assert_eq!(h.slc_only_planes, 8, "{layout:?}");
            assert_eq!(h.migrated_across_planes, h.migrated_pages, "{layout:?}");
        }
    }
}

#[test]
fn layouts_place_slc_where_spa_fig2_says() {
    let mut c = hybrid(2, 2, 2);
    c.geometry.planes_per_die = 2;
    c.hybrid.slc_share = 0.5;
    let all = c.geometry.blocks_per_plane;
    c.hybrid.layout = SlcLayout::Die; // plane 0 of every die
    assert_eq!(c.slc_blocks_by_plane(), (0..16).map(|p| if p % 2 == 0 { all } else { 0 }).collect::<Vec<_>>());
    c.hybrid.layout = SlcLayout::Chip; // die 0 of every chip
    assert_eq!(c.slc_blocks_by_plane(), (0..16).map(|p| if (p / 2) % 2 == 0 { all } else { 0 }).collect::<Vec<_>>());
    c.hybrid.layout = SlcLayout::Channel; // chip 0 of every channel
    assert_eq!(c.slc_blocks_by_plane(), (0..16).map(|p| if (p / 4) % 2 == 0 { all } else { 0 }).collect::<Vec<_>>());
    c.hybrid.layout = SlcLayout::Plane;
    c.hybrid.slc_planes = 4; // every fourth plane
    assert_eq!(c.slc_blocks_by_plane(), (0..16).map(|p| if p % 4 == 0 { 8 } else { 0 }).collect::<Vec<_>>());
    // Logical capacity counts only normal blocks.
    let normal_blocks = 4 * (64 - 8) + 12 * 64;
    assert_eq!(c.logical_pages(), (normal_blocks as f64 * 48.0 * 0.75).floor() as u64);
}

#[test]
fn hybrid_config_errors_name_their_key() {
    let mut c = hybrid(1, 1, 2);
    c.hybrid.layout = SlcLayout::Die; // one plane per die
    let keys: Vec<String> = c.validate().unwrap_err().into_iter().map(|e| e.key).collect();
    assert!(keys.contains(&"hybrid.layout".to_string()), "{keys:?}");
    let mut c = tiny(1, 1, 2, 1);
    c.hybrid.migration = SlcMigration::Qpc;
    let keys: Vec<String> = c.validate().unwrap_err().into_iter().map(|e| e.key).collect();
    assert_eq!(keys, ["hybrid.migration"]);
}

/// QPC-DM's migration steps run before the die's user work (`migration_due`), not as
/// background GC, which waits for the die to be idle for `ftl.gc_idle_ns`. With that
/// delay longer than the whole run, background GC never runs, so with the SLC pool full
/// from the start every SLC block reclaimed, and every user write that lands in SLC
/// again, is the work of migration steps taken between user writes.
#[test]
fn qpc_migration_steps_run_before_user_work_not_as_idle_background_gc() {
    let mut c = hybrid(2, 2, 2);
    c.precondition.slc_filled = true;
    c.hybrid.allocation = HybridAllocation::Tpj;
    c.hybrid.migration = SlcMigration::Qpc;
    c.hybrid.qpc_sigma = 2;
    c.ftl.gc_idle_ns = 1_000_000_000_000;
    closed(&mut c, 6);
    let report = run(&c, writes(1500, 900, 3));
    assert!(report.simulated_ns < c.ftl.gc_idle_ns, "{} ns", report.simulated_ns);
    let h = report.hybrid.unwrap();
    assert!(h.migration_episodes > 0 && h.migrated_pages > 0 && h.slc_blocks_reclaimed > 0, "{h:?}");
    assert!(h.slc_user_pages > 0, "reclaimed SLC serves user writes again: {h:?}");
}

/// HC-PA sends a large request to TLC pages of the plane static striping gives it, unless
/// that plane cannot take a TLC write now (no normal page to give, or in emergency GC:
/// the planes' views, `fill_views`); then to the least loaded plane that can. Overwrites
/// of the logical pages of one plane only, faster than its GC cleans (SLC full and never
/// migrated), bring that plane to emergency GC; from then on some of its writes go to the
/// other plane, which static striping alone never sends them to.
#[test]
fn hc_sends_a_cold_write_elsewhere_while_its_plane_cannot_take_it() {
    let mut c = hybrid(1, 1, 2);
    c.precondition.slc_filled = true;
    c.hybrid.migration = SlcMigration::Bg;
    c.hybrid.idle_ns = 1_000_000_000_000;
    c.hybrid.allocation = HybridAllocation::Hc;
    c.hybrid.hot_request_max_bytes = 0; // every request cold: TLC
    closed(&mut c, 8);
    let plane_of = |sim: &Simulator<'_>, lpn: u32| sim.ftl.addr.plane_of(sim.ftl.lookup(lpn).expect("written"));
    let even = |n: u64| -> Vec<Record> {
        let mut rng = Pcg64Mcg::seed_from_u64(6);
        let span = c.logical_pages() / 2;
        (0..n).map(|_| rec(0, Op::Write, 2 * rng.random_range(0..span), 1, 4096)).collect()
    };
    let lpns = |records: &[Record]| -> std::collections::BTreeSet<u32> {
        records.iter().map(|r| (r.offset_bytes / 4096) as u32).collect()
    };
    // A few writes: every even logical page on one plane, no GC.
    let few = even(200);
    let (report, sim) = run_keep(&c, few.clone());
    assert_eq!(report.gc.erases, 0);
    let home = plane_of(&sim, *lpns(&few).first().expect("writes"));
    assert!(lpns(&few).iter().all(|&l| plane_of(&sim, l) == home));
    // Many: the home plane's GC falls behind; some pages end up on the other plane.
    let many = even(6 * c.logical_pages());
    let (report, sim) = run_keep(&c, many.clone());
    assert!(report.gc.erases > 0);
    let away = lpns(&many).iter().filter(|&&l| plane_of(&sim, l) != home).count();
    assert!(away > 0, "no write left plane {home}");
}
