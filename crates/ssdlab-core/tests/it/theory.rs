//! Theory checks: the simulator against published analytic models (`ssdlab_core::theory`,
//! docs/testing.md). Write amplification of greedy and FIFO cleaning under uniform random
//! single-page overwrites, and the saturation throughput of a write-only closed loop on
//! every cell type.

use super::*;
use ssdlab_core::theory;

const PAGE_BYTES: u64 = 4096;

/// One plane (one cleaning pool, as the models assume) of `blocks` × `pages` SLC pages,
/// a fast channel, closed loop at queue depth 1 and emergency-only GC at the smallest
/// reserve the FTL keeps (two free blocks).
pub(super) fn gc_plane(blocks: u32, pages: u32, over_provisioning: f64, victim: VictimPolicy) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.geometry.blocks_per_plane = blocks;
    c.geometry.pages_per_block = pages;
    c.ftl.over_provisioning = over_provisioning;
    c.ftl.gc_victim = victim;
    c.ftl.gc_background_free_fraction = 0.0;
    c.ftl.gc_emergency_free_fraction = 0.0;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c
}

/// Every logical page written once in order (the drive is full), then `random`
/// single-page overwrites at uniformly random logical pages. A longer `random` with the
/// same seed extends the same sequence.
fn fill_then_random(logical_pages: u64, random: u64, seed: u64) -> Vec<Record> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..logical_pages)
        .map(|page| rec(0, Op::Write, page, 1, PAGE_BYTES))
        .chain((0..random).map(|_| rec(0, Op::Write, rng.random_range(0..logical_pages), 1, PAGE_BYTES)))
        .collect()
}

/// Runs without the per-event checkers, or with invariant and data checks every 5,000
/// completions (instead of `run`'s 97: these runs are long, and a full check walks every
/// page of the drive).
fn run_long(config: &Config, records: Vec<Record>, checked: bool) -> Report {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut config = config.clone();
    config.output.check_every = 5_000;
    let mut sim = Simulator::new(config, factory, Observers::default()).expect("valid setup");
    sim.set_check(checked);
    sim.set_verify(checked);
    sim.run().expect("run succeeds").0
}

/// Steady-state write amplification: the same seed run with `warm_up` and with
/// `warm_up + measured` random overwrites after the fill; the difference of the program
/// counters is the last `measured` writes alone. The short run is a prefix of the long
/// one, which alone runs with the checkers on.
fn steady_state_waf(config: &Config, warm_up: u64, measured: u64, seed: u64) -> f64 {
    let logical = config.logical_pages();
    let before = run_long(config, fill_then_random(logical, warm_up, seed), false);
    let after = run_long(config, fill_then_random(logical, warm_up + measured, seed), true);
    let user = after.flash.user_page_programs - before.flash.user_page_programs;
    let gc = after.flash.gc_page_programs - before.flash.gc_page_programs;
    assert_eq!(user, measured, "one program per single-page write");
    assert!(gc > 0, "the window must include cleaning");
    (user + gc) as f64 / user as f64
}

/// The models' spare factor `(T − U)/T` of a `gc_plane`, where `T` is the pages that
/// hold data (valid or invalid) between host writes:
///
/// * emergency GC runs before any user write while the plane has at most `E` free blocks
///   (`E` = 2 here) and each victim's erase adds one, so it stops at exactly `E + 1`:
///   every host write sees `E + 1` erased blocks;
/// * the user write point's unprogrammed pages cycle through `P − 1 … 0`: `(P − 1)/2` on
///   average; the GC write point's fill is spread evenly too: `(P − 1)/2`.
///
/// So `T = B·P − (E + 1)·P − (P − 1)`. The GC point's share is the uncertain part
/// (anything in `0 … P − 1`, ±½ block); at 10 % over-provisioning and 512 blocks that is
/// ±1 % of the spare space and ±0.9 % of the write amplification, within the tolerance.
/// Taking `ftl.over_provisioning` as the spare factor would ignore the reserve and the
/// write points: at 10 % (Sf 0.0929 here, not 0.1) greedy's model would say 4.82 instead
/// of 5.14, FIFO's 5.18 instead of 5.56 (measured: 5.12 and 5.52).
fn effective_spare_factor(config: &Config) -> f64 {
    let g = &config.geometry;
    let (blocks, pages) = (g.blocks_per_plane as f64, g.pages_per_block as f64);
    let reserve_blocks = 2.0; // max(2, ceil(blocks × gc_emergency_free_fraction = 0))
    let data_pages = blocks * pages - (reserve_blocks + 1.0) * pages - (pages - 1.0);
    theory::spare_factor(data_pages, config.logical_pages() as f64)
}

/// Measured against both models at 10, 20 and 30 % over-provisioning on one plane of
/// 512 blocks × 64 pages, after three logical capacities of random overwrites (enough for
/// steady state: six give the same WAF within 0.5 %), over three more.
///
/// Tolerance: 3 % of the GC moves per host write (WAF − 1) of the policy's own model.
/// Sources of disagreement that are not bugs: the ±½-block uncertainty in the GC write
/// point's fill (≤ 1.1 % of WAF − 1, at 10 %), the models' many-blocks limit against 512
/// blocks (seen: < 1 %, 2 % with 256 blocks), Eq. 12 against the exact mean-field sums
/// (< 0.5 %), and the sampling noise of one seed (≈ 0.5 %). Measured: all within 1 %.
/// Greedy and FIFO differ by 4.5–9 % of WAF − 1 here, so each must also lie closer to
/// its own model than to the other policy's: swapping the policies fails the test.
fn check_against_models(victim: VictimPolicy) {
    let (blocks, pages) = (512, 64);
    for (op, seed) in [(0.1, 11), (0.2, 12), (0.3, 13)] {
        let c = gc_plane(blocks, pages, op, victim);
        let logical = c.logical_pages();
        let measured = steady_state_waf(&c, 3 * logical, 3 * logical, seed);
        let sf = effective_spare_factor(&c);
        let greedy = theory::waf_greedy_uniform(sf, pages);
        let fifo = theory::waf_fifo_uniform(sf);
        let (own, other) = if victim == VictimPolicy::Greedy { (greedy, fifo) } else { (fifo, greedy) };
        let error = ((measured - 1.0) - (own - 1.0)).abs() / (own - 1.0);
        assert!(
            error < 0.03,
            "{victim:?} at OP {op} (Sf {sf:.4}): measured WAF {measured:.4}, model {own:.4} ({:.2} % of WAF − 1)",
            error * 100.0
        );
        assert!(
            (measured - own).abs() < (measured - other).abs(),
            "{victim:?} at OP {op}: measured {measured:.4} is closer to the other policy's model {other:.4} than to \
             its own {own:.4}"
        );
    }
}

#[test]
fn greedy_write_amplification_matches_desnoyers_eq12() {
    check_against_models(VictimPolicy::Greedy);
}

#[test]
fn fifo_write_amplification_matches_the_lrw_model() {
    check_against_models(VictimPolicy::Fifo);
}

/// A write-only closed loop on 8 one-plane dies with a fast channel (4 KiB in 41 ns):
/// the array is the bottleneck, each plane programs page after page, so the bandwidth is
/// planes × page / mean tPROG, the mean taken over a block's pages by type (staircase
/// layout: P / bits pages of each type). Every plane programs exactly four whole blocks,
/// so the mix is exact. Tolerance 1 %: the channel adds 41 ns to programs of 0.3–12 ms
/// (< 0.02 %) and the loop's start and end are a few programs out of 192 per plane.
#[test]
fn saturation_throughput_is_planes_times_page_over_mean_tprog_for_every_cell_type() {
    let cells: [(CellType, Vec<u64>); 4] = [
        (CellType::Slc, vec![300_000]),
        (CellType::Mlc, vec![500_000, 2_000_000]),
        (CellType::Tlc, vec![500_000, 2_000_000, 5_500_000]),
        (CellType::Qlc, vec![600_000, 2_200_000, 5_500_000, 12_000_000]),
    ];
    for (cell, program_latency_ns) in cells {
        let bits = cell.bits_per_cell();
        let mut c = tiny(4, 2, 1, 1);
        c.flash.cell = cell;
        c.flash.layout = LayoutKind::Staircase;
        c.flash.read_latency_ns = vec![50_000; bits];
        c.flash.program_latency_ns = program_latency_ns.clone();
        c.energy.read_nj = vec![1.0; bits];
        c.energy.program_nj = vec![1.0; bits];
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = 64;
        c.ftl.plane_allocation = PlaneAllocation::RoundRobin;
        let planes = 8u64;
        let pages = c.geometry.pages_per_block as u64;
        let blocks_each = 4;
        let writes = planes * blocks_each * pages;
        let records: Vec<Record> = (0..writes).map(|i| rec(0, Op::Write, i, 1, PAGE_BYTES)).collect();
        let report = run(&c, records);
        let per_type = vec![(pages / bits as u64) as u32; bits];
        assert_eq!(
            report.flash.programs_by_page_type,
            vec![writes / bits as u64; bits],
            "{cell:?}: whole blocks of the staircase layout"
        );
        assert_eq!(report.gc.erases, 0, "{cell:?}: no GC in the window");
        let mean_tprog = theory::mean_program_latency_ns(&per_type, &program_latency_ns);
        let expected = theory::saturation_write_bytes_per_s(planes as u32, PAGE_BYTES as u32, mean_tprog) / 1048576.0;
        let got = report.write.bandwidth_mib_s;
        let error = (got - expected).abs() / expected;
        assert!(
            error < 0.01,
            "{cell:?}: {got:.3} MiB/s, expected {expected:.3} (mean tPROG {mean_tprog:.0} ns; off by {:.2} %)",
            error * 100.0
        );
    }
}

/// Issue 46: WAF by bytes is the headline. 2 KiB writes at random 2 KiB-aligned offsets
/// on 8 KiB pages (a page map: each write programs a whole page after reading the rest of
/// it) write 8 KiB of flash per 2 KiB of host data before GC: the byte WAF is exactly 4 ×
/// the page-program WAF, and the page-program WAF counts GC's copies only.
#[test]
fn byte_waf_of_quarter_page_writes_is_four_times_the_page_program_waf() {
    let mut c = tiny(1, 1, 1, 2);
    c.geometry.page_size_bytes = 8192;
    c.precondition.used_fraction = 0.8;
    let logical_bytes = c.logical_bytes();
    let mut rng = Pcg64Mcg::seed_from_u64(46);
    let records: Vec<Record> = (0..6_000u64)
        .map(|i| Record {
            arrival_ns: i * 50_000,
            device: 0,
            offset_bytes: rng.random_range(0..logical_bytes / 2048) * 2048,
            size_bytes: 2048,
            op: Op::Write,
            hint: None,
        })
        .collect();
    let r = run(&c, records);
    let f = &r.flash;
    assert_eq!(r.write.bytes, 6_000 * 2048);
    assert_eq!(f.user_page_programs, 6_000, "one page program per write");
    assert!(f.gc_page_programs > 0, "the run must garbage-collect");
    assert_eq!(r.programmed_bytes, (f.user_page_programs + f.gc_page_programs) * 8192);
    let pages = (f.user_page_programs + f.gc_page_programs) as f64 / f.user_page_programs as f64;
    assert!((r.waf_pages - pages).abs() < 1e-12, "{} vs {pages}", r.waf_pages);
    assert!((r.waf - 4.0 * r.waf_pages).abs() < 1e-9, "byte WAF {} vs 4 × {}", r.waf, r.waf_pages);
}
