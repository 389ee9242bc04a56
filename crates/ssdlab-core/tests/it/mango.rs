//! Mango (thesis §7.2, issue 20) and the host's priority bit: high-priority writes on
//! fast pages within the capacity limit, fast GC, the Netbook power modes and their
//! statistics. Runs with invariant checks and `--verify` on (`run`).

use super::*;

const MS: u64 = 1_000_000;

/// One die of MLC with single-page alternation (every other page fast), no GC pressure
/// (a fifth full), unit program energies 1 (fast) and 4 (slow).
fn chip() -> Config {
    let mut c = tiny(1, 1, 1, 1);
    staircase_mlc(&mut c);
    c.precondition.used_fraction = 0.2;
    c.precondition.fill_invalid_to_gc_threshold = false;
    c.mango.enabled = true;
    c
}

/// `n` one-page writes 10 ms apart to distinct pages, with hint `hint`.
fn writes(n: u64, hint: Option<u8>) -> Vec<Record> {
    (0..n).map(|i| Record { hint, ..rec(i * 10 * MS, Op::Write, i, 1, 4096) }).collect()
}

/// Twice the drive's logical pages in one-page random writes, `gap_ms` apart.
fn spaced_random_writes(c: &Config, gap_ms: u64, seed: u64) -> Vec<Record> {
    let logical = c.logical_pages();
    let mut records = random_requests(2 * logical as usize, 1, logical, Op::Write, 4096, seed);
    for (i, r) in records.iter_mut().enumerate() {
        r.arrival_ns = i as u64 * gap_ms * MS;
    }
    records
}

fn slow_programs(r: &Report) -> u64 {
    r.flash.programs_by_page_type.iter().skip(1).sum()
}

/// While the limit allows, every high-priority write takes a fast page (the engine's own
/// page-type counts say so); low-priority writes take pages in order, half of them slow.
#[test]
fn high_priority_writes_take_fast_pages_while_the_limit_allows() {
    let c = chip();
    // (300 writes skip about 300 pages: within this drive's limit of 384.)
    let r = run(&c, writes(300, Some(0)));
    let m = r.mango.clone().expect("mango section");
    assert_eq!(m.high_page_writes, 300);
    assert_eq!((m.high_slow_at_limit, m.high_slow_no_block), (0, 0), "{m:?}");
    assert_eq!(slow_programs(&r), 0, "{:?}", r.flash.programs_by_page_type);
    assert_eq!(r.flash.wasted_pages, m.skipped_for_user);
    assert!(m.skipped_for_user >= 290, "about one slow page skipped per write: {m:?}");
    let low = run(&c, writes(300, None));
    assert_eq!(low.mango.as_ref().unwrap().high_page_writes, 0);
    let slow = slow_programs(&low) as f64 / 300.0;
    assert!((0.45..=0.55).contains(&slow), "in-order pages: about half slow, got {slow}");
    // The priority classes as the host saw them.
    let p = r.priority.expect("priority section");
    assert_eq!((p.classes[0].name.as_str(), p.classes[0].write.requests), ("high", 300));
    assert!(p.classes[0].write.latency_ns.mean < low.write.latency_ns.mean);
}

/// Past the capacity limit a high-priority write takes the slow page, and only then: the
/// slow programs are exactly the writes the limit refused, and the pages skipped and not
/// yet erased never pass the limit.
#[test]
fn slow_pages_only_when_the_capacity_limit_refuses_a_skip() {
    let mut c = chip();
    c.mango.max_skipped_spare_fraction = 0.02;
    let r = run(&c, writes(600, Some(0)));
    let m = r.mango.clone().expect("mango section");
    assert!(m.high_slow_at_limit > 0, "the limit binds: {m:?}");
    assert_eq!(slow_programs(&r), m.high_slow_at_limit + m.high_slow_no_block, "{m:?}");
    assert!(m.max_skipped_live <= m.skip_limit_pages && m.skip_limit_pages > 0, "{m:?}");
}

/// Mango with no high-priority request is the baseline, result for result.
#[test]
fn without_high_priority_requests_mango_is_the_baseline() {
    let mut c = tiny(2, 1, 1, 2);
    c.flash.cell = CellType::Mlc;
    c.flash.read_latency_ns = vec![27_000, 40_000];
    c.flash.program_latency_ns = vec![253_000, 1_359_000];
    c.energy.read_nj = vec![1.0, 1.0];
    c.energy.program_nj = vec![1.0, 4.0];
    c.flash.multi_plane = true;
    let logical = c.logical_pages();
    let records = random_requests(3 * logical as usize, 2, logical, Op::Write, 4096, 9);
    let base = run(&c, records.clone());
    c.mango.enabled = true;
    let mango = run(&c, records);
    assert!(base.flash.multi_plane_commands > 0);
    assert_eq!(base.flash, mango.flash);
    assert_eq!(base.gc, mango.gc);
    assert_eq!(base.write, mango.write);
}

/// The Netbook scenario on an aged drive with power losses: half the requests on battery
/// (all high priority, GC fast), half on wall power; work energy split by mode adds up;
/// fast GC moves and skips happen; `--verify` and the invariants hold throughout.
#[test]
fn netbook_power_modes_split_requests_and_energy_verify_clean() {
    for losses in [vec![], vec![7_000 * MS, 21_000 * MS]] {
        let mut c = chip();
        c.precondition.used_fraction = 0.8;
        c.precondition.fill_invalid_to_gc_threshold = true;
        c.priority.power_segment_requests = 100;
        c.power.loss_at_ns = losses;
        let logical = c.logical_pages();
        // (Arrivals the single die serves with time to spare.)
        let records = spaced_random_writes(&c, 6, 3);
        let r = run(&c, records);
        let p = r.priority.expect("priority section");
        let (battery, wall) = (&p.power_modes[0], &p.power_modes[1]);
        assert_eq!((battery.name.as_str(), wall.name.as_str()), ("battery", "wall"));
        let n = battery.requests + wall.requests;
        assert_eq!(n, 2 * logical);
        assert!((battery.requests as f64 / n as f64 - 0.5).abs() < 0.05, "{} of {n} on battery", battery.requests);
        assert_eq!(battery.write.requests, p.classes[0].write.requests, "battery requests are the high ones");
        let e = &r.energy_nj;
        let work = e.read + e.program + e.erase + e.transfer;
        assert!((battery.work_energy_nj + wall.work_energy_nj - work).abs() < 1e-6 * work.max(1.0));
        let m = r.mango.expect("mango section");
        assert!(m.gc_fast_moves > 0 && m.skipped_for_gc > 0 && m.gc_slow_moves > 0, "{m:?}");
        // (Segments of at most 150 requests.)
        assert!(p.power_switches + 1 >= n / 150, "{} switches", p.power_switches);
    }
}

#[test]
fn mango_refuses_what_it_is_not_modelled_with() {
    let mut c = chip();
    c.ftl.user_write_points = 2;
    let e = c.validate().unwrap_err();
    assert!(e.iter().any(|e| e.key == "mango.enabled" && e.message.contains("user write points")), "{e:?}");
    let mut c = chip();
    c.hybrid.allocation = HybridAllocation::Tpj;
    assert!(c
        .validate()
        .unwrap_err()
        .iter()
        .any(|e| e.key == "mango.enabled" && e.message.contains("a hybrid allocation")));
    let mut c = chip();
    c.flash.cell = CellType::Slc;
    c.flash.read_latency_ns = vec![27_000];
    c.flash.program_latency_ns = vec![253_000];
    c.energy.read_nj = vec![1.0];
    c.energy.program_nj = vec![1.0];
    assert!(c.validate().unwrap_err().iter().any(|e| e.key == "mango.enabled" && e.message.contains("SLC cells")));
}

/// The flash service time (the thesis' latency, §7.2) leaves out the wait behind other
/// host work: two writes arriving together on one die each take transfer + program,
/// though the second completes after both (a D/D/1 queue's wait is not service).
#[test]
fn flash_service_time_leaves_out_the_wait_behind_host_work() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.priority.report = true;
    let own = (4096.0 * c.flash.transfer_ns_per_byte).ceil() as u64 + 500_000;
    let records: Vec<Record> = (0..2).map(|i| rec(0, Op::Write, i, 1, 4096)).collect();
    let r = run(&c, records);
    let low = &r.priority.expect("priority section").classes[1];
    assert_eq!(low.write.requests, 2);
    assert_eq!((low.write.latency_ns.min, low.write.latency_ns.max), (own, 2 * own));
    assert_eq!((low.write_service_ns.min, low.write_service_ns.max), (own, own));
}

/// Writes 1 ms apart on one aged die (each takes about 0.5 ms): GC makes some wait for
/// its moves and erases, and the writes that pile up behind those wait behind each
/// other too (the drive cannot keep up: response times grow to seconds). Service time
/// counts the GC a write waited for since the write before it, not the wait behind
/// writes: no write's exceeds its response time, the cleaning shows in the longest, and
/// most writes, which GC did not delay, take their command's time alone.
#[test]
fn flash_service_time_counts_the_gc_a_write_waits_for() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.priority.report = true;
    c.precondition.used_fraction = 1.0;
    c.precondition.fill_invalid_to_gc_threshold = true;
    let r = run(&c, spaced_random_writes(&c, 1, 5));
    assert!(r.gc.erases > 0, "GC ran: {:?}", r.gc);
    let low = &r.priority.expect("priority section").classes[1];
    let (s, l) = (&low.write_service_ns, &low.write.latency_ns);
    let own = (4096.0 * c.flash.transfer_ns_per_byte).ceil() as u64 + 500_000;
    assert_eq!(s.min, own);
    // (Within the histogram's 3 significant digits.)
    assert!(s.p50 < own + own / 500, "most writes did not wait for GC: {s:?}");
    assert!(l.p50 > 100 * own, "the drive is saturated: {l:?}");
    assert!(s.max >= own + c.flash.erase_latency_ns, "a write waited for an erase: {s:?}");
    assert!(s.mean < l.mean, "writes waited behind writes too: service {s:?}, response {l:?}");
    for (a, b) in [(s.p50, l.p50), (s.p90, l.p90), (s.p99, l.p99), (s.max, l.max)] {
        assert!(a <= b, "service {s:?} above response {l:?}");
    }
}
