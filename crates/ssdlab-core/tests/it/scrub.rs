//! Scrubbing and sanitisation (thesis §6.2): immediate and background scrubbing of the
//! copies writes leave behind, the per-block scrub budget (MLC pages sharing cells
//! scrubbed together), and scan-based sanitisation of a range.

use super::*;

/// A small MLC drive (pairs layout: pages sharing cells on each wordline) or SLC drive,
/// empty, with block summaries (the sanitise scan reads them).
fn drive(mlc: bool) -> Config {
    let mut c = tiny(2, 1, 1, 1);
    c.geometry.blocks_per_plane = 48;
    c.geometry.pages_per_block = 32;
    if mlc {
        paired_mlc(&mut c);
    } else {
        slc_like(&mut c);
    }
    c.power.block_summary = true;
    c.ftl.over_provisioning = 0.2;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 2;
    c
}

fn logical(c: &Config) -> u64 {
    c.logical_pages()
}

/// Writes every logical page once, then `rewrites` random single-page overwrites.
fn overwrites(c: &Config, rewrites: usize, seed: u64) -> Vec<Record> {
    let n = logical(c);
    let mut records: Vec<Record> = (0..n).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    records.extend(random_requests(rewrites, 1, n, Op::Write, 4096, seed));
    records
}

fn scrub(report: &Report) -> &ssdlab_core::stats::ScrubSummary {
    report.scrub.as_ref().expect("scrub section")
}

#[test]
fn immediate_scrubbing_leaves_no_stale_copy_and_costs_write_latency() {
    let base = drive(false);
    let records = overwrites(&base, 3000, 1);
    let plain = run(&base, records.clone());
    let mut c = base.clone();
    c.scrub.mode = ScrubMode::Immediate;
    let (report, _) = run_keep(&c, records);
    let s = scrub(&report);
    assert_eq!(s.remnants_at_start, 0);
    assert_eq!(
        s.remnants_at_end, s.remnants_at_end_in_gc_victims,
        "every superseded copy is scrubbed or erased (GC moves leave theirs until the victim's erase): {s:?}"
    );
    assert!(s.pages_scrubbed > 0 && s.stale_copies == 3000, "{s:?}");
    // SLC: the budget is the block's pages, so scrubbing never needs an erase of its own.
    assert_eq!(s.blocks_condemned, 0, "{s:?}");
    assert!(s.max_scrubs_per_block <= s.budget_pages);
    assert!(
        report.write.latency_ns.mean > 1.15 * plain.write.latency_ns.mean,
        "an overwrite waits for its program and then the scrub (the first writes have no old copy): {} vs {} ns",
        report.write.latency_ns.mean,
        plain.write.latency_ns.mean
    );
    // Hardly more erases than without scrubbing (thesis §6.2.3: SLC scrubbing needs none;
    // slower writes leave background GC more idle time, hence a few more moves).
    assert!(report.gc.erases * 10 <= plain.gc.erases * 11, "{} vs {}", report.gc.erases, plain.gc.erases);
}

/// Mean write latency and the scrub section of an MLC run with the given budget.
fn mlc_run(mode: ScrubMode, budget: u32, records: &[Record]) -> Report {
    let mut c = drive(true);
    c.scrub.mode = mode;
    c.scrub.budget_pages = budget;
    run(&c, records.to_vec())
}

#[test]
fn a_smaller_mlc_scrub_budget_costs_more_write_latency_and_erases() {
    let base = drive(true);
    let records = overwrites(&base, 2500, 2);
    let plain = run(&base, records.clone());
    let runs: Vec<Report> = [32, 8, 0].iter().map(|&b| mlc_run(ScrubMode::Immediate, b, &records)).collect();
    let latency: Vec<f64> = runs.iter().map(|r| r.write.latency_ns.mean).collect();
    let erases: Vec<u64> = runs.iter().map(|r| r.gc.erases).collect();
    assert!(
        plain.write.latency_ns.mean < latency[0] && latency[0] < latency[1] && latency[1] < latency[2],
        "write latency without scrubbing {} and with budgets 32, 8, 0: {latency:?}",
        plain.write.latency_ns.mean
    );
    assert!(erases[0] < erases[2] && erases[1] < erases[2], "erases with budgets 32, 8, 0: {erases:?}");
    for (r, budget) in runs.iter().zip([32, 8, 0]) {
        let s = scrub(r);
        assert!(s.max_scrubs_per_block <= budget, "{s:?}");
        assert_eq!(s.remnants_at_end, s.remnants_at_end_in_gc_victims, "{s:?}");
    }
    // Erase only: no page is ever scrubbed; every overwrite relocates and erases a block.
    assert_eq!(scrub(&runs[2]).pages_scrubbed, 0);
    assert!(scrub(&runs[2]).blocks_condemned > 0);
    // MLC: pages sharing a target's cells are scrubbed with it, valid ones moved first.
    let s = scrub(&runs[0]);
    assert!(s.pages_scrubbed > s.scrub_commands && s.shared_pages_relocated > 0, "{s:?}");
}

#[test]
fn background_scrubbing_defers_the_scrubs_to_idle_time() {
    let base = drive(true);
    // Bursts of overwrites with idle gaps between them.
    let n = logical(&base);
    let mut records: Vec<Record> = (0..n).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    for burst in 0..20u64 {
        for _ in 0..100 {
            records.push(rec(1_000_000_000 + burst * 400_000_000, Op::Write, rng.random_range(0..n), 1, 4096));
        }
    }
    let mut c = base.clone();
    c.host.replay = ReplayMode::OpenLoop;
    c.host.queue_depth = 4;
    let plain = run(&c, records.clone());
    let mut immediate = c.clone();
    immediate.scrub.mode = ScrubMode::Immediate;
    immediate.scrub.budget_pages = 16;
    let mut background = immediate.clone();
    background.scrub.mode = ScrubMode::Background;
    let i = run(&immediate, records.clone());
    let b = run(&background, records);
    let sb = scrub(&b);
    assert_eq!(sb.stale_copies, 2000, "{sb:?}");
    assert!(sb.pages_scrubbed > 0 && sb.background_backlog_max > 0, "{sb:?}");
    assert_eq!(sb.remnants_at_end, sb.remnants_at_end_in_gc_victims, "idle time sufficed: {sb:?}");
    assert!(
        b.write.latency_ns.mean < i.write.latency_ns.mean,
        "background {} < immediate {} ns (without scrubbing {})",
        b.write.latency_ns.mean,
        i.write.latency_ns.mean,
        plain.write.latency_ns.mean
    );
}

#[test]
fn power_losses_under_immediate_scrubbing_keep_every_acknowledged_write() {
    let mut c = drive(true);
    c.scrub.mode = ScrubMode::Immediate;
    c.scrub.budget_pages = 8;
    c.host.replay = ReplayMode::OpenLoop;
    let n = logical(&c);
    let mut records: Vec<Record> = (0..n).map(|p| rec(p * 200_000, Op::Write, p, 1, 4096)).collect();
    let mut rng = Pcg64Mcg::seed_from_u64(4);
    for k in 0..3000u64 {
        records.push(rec(n * 200_000 + k * 300_000, Op::Write, rng.random_range(0..n), 1, 4096));
    }
    let end = n * 200_000 + 3000 * 300_000;
    c.power.loss_at_ns = vec![end / 3, end / 2 + 77_777, end * 4 / 5];
    // (run() verifies every acknowledged write after each recovery and at the end.)
    let report = run(&c, records);
    assert_eq!(report.power.as_ref().expect("power section").losses, 3);
    assert!(scrub(&report).pages_scrubbed > 0);
}

/// Blocks holding data of logical pages `range` (valid or stale), and such pages.
fn copies_of(sim: &Simulator<'_>, range: std::ops::Range<u32>) -> (u64, u64) {
    let f = &sim.ftl;
    let mut blocks = std::collections::BTreeSet::new();
    let mut pages = 0;
    for ppn in 0..f.addr.pages() as u32 {
        if f.oob_content(ppn).is_some_and(|(lpn, _)| range.contains(&lpn)) {
            blocks.insert(f.addr.block_of(ppn));
            pages += 1;
        }
    }
    (blocks.len() as u64, pages)
}

#[test]
fn sanitising_a_range_leaves_no_readable_copy_within_the_budgets_erases() {
    for (mlc, budget) in [(false, u32::MAX), (true, 16), (true, 0)] {
        let mut c = drive(mlc);
        c.scrub.mode = ScrubMode::Scan;
        c.scrub.budget_pages = budget;
        let n = logical(&c);
        let records = overwrites(&c, 4000, 5);
        let range = (n / 4) as u32..(n / 2) as u32;
        let (_, before) = run_keep(&c, records.clone());
        let (blocks, pages) = copies_of(&before, range.clone());
        assert!(pages > range.len() as u64, "stale copies to find too: {pages}");
        c.scrub.sanitize_offset_bytes = range.start as u64 * 4096;
        c.scrub.sanitize_bytes = range.len() as u64 * 4096;
        let (report, after) = run_keep(&c, records);
        assert_eq!(copies_of(&after, range.clone()), (0, 0), "mlc {mlc} budget {budget}: a copy survived");
        assert!(range.clone().all(|lpn| after.ftl.lookup(lpn).is_none()), "the range reads as zeros");
        let s = scrub(&report);
        let op = &s.sanitize[0];
        // (GC may erase some stale copies first.)
        assert!(op.copies_found <= pages && op.copies_found * 10 > pages * 9, "{pages} copies: {op:?}");
        assert!(op.blocks_scanned > 0 && op.summary_reads > 0 && op.latency_ns >= op.scan_read_ns, "{op:?}");
        assert!(s.max_scrubs_per_block <= c.scrub.budget(32), "{s:?}");
        match budget {
            // SLC: every copy is scrubbed, no block is erased for it.
            // (Copies in blocks GC is cleaning wait for its erase instead.)
            u32::MAX => assert!(
                op.blocks_condemned == 0
                    && s.pages_scrubbed + s.copies_in_gc_victims + s.copies_erased_first == op.copies_found,
                "{s:?}"
            ),
            // Erase only: each block holding a copy is relocated and erased (at most) once.
            0 => assert!(op.blocks_condemned <= blocks && s.pages_scrubbed == 0, "{blocks} blocks: {op:?}"),
            _ => assert!(op.blocks_condemned < blocks && s.pages_scrubbed > 0, "{blocks} blocks: {op:?}"),
        }
    }
}

#[test]
fn a_sanitise_request_in_the_trace_is_served_and_a_drive_without_scrubbing_trims() {
    let c = drive(false);
    let n = logical(&c);
    let mut records = overwrites(&c, 1000, 6);
    records.push(rec(0, Op::Sanitize, 0, n / 8, 4096));
    records.push(rec(0, Op::Read, 0, 4, 4096));
    let (plain, sim) = run_keep(&c, records.clone());
    assert!(plain.scrub.is_none());
    assert!((0..(n / 8) as u32).all(|lpn| sim.ftl.lookup(lpn).is_none()), "trimmed");
    let mut scan = c.clone();
    scan.scrub.mode = ScrubMode::Scan;
    let (report, sim) = run_keep(&scan, records);
    assert_eq!(copies_of(&sim, 0..(n / 8) as u32), (0, 0));
    let op = &scrub(&report).sanitize[0];
    assert_eq!(op.size_bytes, n / 8 * 4096);
    assert!(op.latency_ns > 0 && !op.interrupted);
}

/// Counts of `scrub_next_item` with known answers, on an empty drive where GC never
/// runs. SLC (no pages share cells): every overwrite's old copy is one page programmed
/// to zeros by one command of its own. MLC, pairs layout: logical pages 0-5 written in
/// order fill pages 0-5 of one block, and page 0 shares its cells with page 4 (thesis
/// Fig. 7.2A), so an overwrite of page 0 first relocates the valid logical page 4, then
/// zeroes both pages in one command; with a budget of one scrub per block that takes
/// too many, and the block is condemned (relocated and erased) instead.
#[test]
fn each_scrub_command_zeroes_a_stale_page_with_the_programmed_pages_sharing_its_cells() {
    let mut slc = drive(false);
    slc.scrub.mode = ScrubMode::Immediate;
    let mut records: Vec<Record> = (0..20).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    records.extend((0..10).map(|p| rec(0, Op::Write, p, 1, 4096)));
    let report = run(&slc, records);
    let s = scrub(&report);
    assert_eq!(report.gc.erases, 0);
    assert_eq!((s.stale_copies, s.pages_scrubbed, s.scrub_commands), (10, 10, 10), "{s:?}");
    assert_eq!((s.shared_pages_relocated, s.blocks_condemned, s.copies_in_gc_victims), (0, 0, 0), "{s:?}");
    // Logical pages 0-9 alternate between the two planes: five copies in each plane's
    // first block.
    assert_eq!(s.max_scrubs_per_block, 5, "{s:?}");
    assert_eq!(s.remnants_at_end, 0, "{s:?}");

    let mut mlc = drive(true);
    mlc.geometry.channels = 1;
    mlc.host.queue_depth = 1;
    mlc.scrub.mode = ScrubMode::Immediate;
    let mut records: Vec<Record> = (0..6).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    records.push(rec(0, Op::Write, 0, 1, 4096));
    let (report, sim) = run_keep(&mlc, records.clone());
    let s = scrub(&report);
    assert_eq!(report.gc.erases, 0);
    assert_eq!((s.stale_copies, s.pages_scrubbed, s.scrub_commands), (1, 2, 1), "{s:?}");
    assert_eq!((s.shared_pages_relocated, s.max_scrubs_per_block, s.blocks_condemned), (1, 2, 0), "{s:?}");
    assert_eq!(s.remnants_at_end, 0, "{s:?}");
    let block = sim.ftl.addr.block_of(sim.ftl.lookup(1).expect("written"));
    assert_ne!(sim.ftl.addr.block_of(sim.ftl.lookup(4).expect("written")), block, "logical page 4 moved out");

    // A budget of one scrub per block: zeroing page 0 would program page 4 too, so the
    // block is relocated and erased instead (the only erase of the run), nothing zeroed.
    mlc.scrub.budget_pages = 1;
    let report = run(&mlc, records);
    let s = scrub(&report);
    assert_eq!((s.blocks_condemned, report.gc.erases), (1, 1), "{s:?}");
    assert_eq!((s.pages_scrubbed, s.scrub_commands, s.shared_pages_relocated), (0, 0, 0), "{s:?}");
    assert_eq!(s.remnants_at_end, 0, "{s:?}");
}

/// Erase-only sanitisation (budget 0) on an empty drive: each block holding a copy of
/// the range is relocated and erased exactly once, by the sanitise command (its record
/// counts them), and no page is scrubbed.
#[test]
fn erase_only_sanitisation_condemns_each_block_holding_a_copy_once() {
    let mut c = drive(false);
    c.scrub.mode = ScrubMode::Scan;
    c.scrub.budget_pages = 0;
    let mut records: Vec<Record> = (0..40).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    records.extend((0..8).map(|p| rec(0, Op::Write, p, 1, 4096)));
    let (_, before) = run_keep(&c, records.clone());
    let (blocks, pages) = copies_of(&before, 0..8);
    assert_eq!((blocks, pages), (2, 16), "logical pages 0-7 and their old copies, in each plane's first block");
    records.push(rec(0, Op::Sanitize, 0, 8, 4096));
    let (report, after) = run_keep(&c, records);
    assert_eq!(copies_of(&after, 0..8), (0, 0));
    let s = scrub(&report);
    let op = &s.sanitize[0];
    assert_eq!((op.copies_found, op.blocks_condemned), (pages, blocks), "{op:?}");
    assert_eq!((s.blocks_condemned, s.pages_scrubbed, s.scrub_commands), (blocks, 0, 0), "{s:?}");
}

/// Immediate scrubbing on SLC accounts for every stale copy exactly once: it is zeroed
/// (one page, no page shares its cells), or it lies in a block GC is cleaning and waits
/// for that erase, or GC erased its block before its turn came. Overwrites under GC
/// reach all three.
#[test]
fn immediate_slc_scrubbing_accounts_for_every_stale_copy_once() {
    let mut c = drive(false);
    c.scrub.mode = ScrubMode::Immediate;
    let report = run(&c, overwrites(&c, 3000, 1));
    let s = scrub(&report);
    assert!(report.gc.erases > 0 && s.copies_in_gc_victims > 0, "{s:?}");
    assert_eq!(s.stale_copies, 3000);
    assert_eq!(s.pages_scrubbed, s.scrub_commands, "{s:?}");
    assert_eq!(s.pages_scrubbed + s.copies_in_gc_victims + s.copies_erased_first, s.stale_copies, "{s:?}");
    assert_eq!((s.shared_pages_relocated, s.blocks_condemned), (0, 0), "{s:?}");
}
