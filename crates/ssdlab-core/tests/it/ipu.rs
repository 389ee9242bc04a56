//! Issue 15: IPU's intra-page updates and levels, MGA's packing, the Baseline's
//! read-modify-write, and data integrity through ISR GC, level moves and power loss.

use super::*;

const PAGE: u64 = 16384;
const SUB: u64 = 4096;

/// One MLC plane with an SLC cache of 8 blocks × 16 pages of four 4 KiB subpages, NOP 4.
fn ipu_drive(scheme: IpuScheme) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    c.geometry.page_size_bytes = PAGE as u32;
    c.geometry.subpages_per_page = 4;
    c.geometry.pages_per_block = 32;
    c.flash.cell = CellType::Mlc;
    c.flash.read_latency_ns = vec![50_000, 50_000];
    c.flash.program_latency_ns = vec![900_000, 900_000];
    c.flash.partial_programs_max = 4;
    c.flash.slc_pages_per_block = 16;
    c.flash.slc_program_latency_ns = 300_000;
    c.flash.slc_read_latency_ns = 25_000;
    c.ftl.slc_blocks_per_plane = 8;
    c.ftl.slc_gc_free_fraction = 0.05;
    c.ipu.scheme = scheme;
    c
}

/// A write of `subpages` 4 KiB subpages of logical page `lpn` from subpage `first`.
fn sub_write(at_ns: u64, lpn: u64, first: u64, subpages: u64) -> Record {
    Record {
        arrival_ns: at_ns,
        device: 0,
        offset_bytes: lpn * PAGE + first * SUB,
        size_bytes: subpages * SUB,
        op: Op::Write,
        hint: None,
    }
}

fn ipu(report: &Report) -> &ssdlab_core::stats::IpuSummary {
    report.ipu.as_ref().expect("ipu section")
}

fn level(report: &Report, name: &str) -> u64 {
    ipu(report).writes_by_level.get(name).copied().unwrap_or(0)
}

#[test]
fn an_update_of_one_subpage_is_a_partial_program_of_that_subpage_and_a_fifth_program_goes_elsewhere() {
    let c = ipu_drive(IpuScheme::Ipu);
    // New data in subpage 1, then four updates of it, 10 ms apart.
    let records: Vec<Record> = (0..5).map(|k| sub_write(k * 10_000_000, 3, 1, 1)).collect();
    let report = run(&c, records);
    let s = ipu(&report);
    // Programs 2, 3, 4 of the Work page are partial programs (NOP 4); the fifth write
    // finds no program left and goes one level up.
    assert_eq!((s.partial_program_writes, s.promotions), (3, 1), "{s:?}");
    assert_eq!((level(&report, "work"), level(&report, "monitor")), (4, 1));
    assert_eq!(report.flash.partial_programs, 3);
    assert_eq!(report.flash.update_reads, 0, "IPU never reads before an update");
    // A partial program moves one subpage over the channel, then programs SLC.
    let partial = (SUB as f64 * 0.01).ceil() as u64 + 300_000;
    assert_eq!(report.write.latency_ns.max, partial, "every write moved one subpage");
}

#[test]
fn the_third_update_of_the_same_data_lands_in_a_hot_page() {
    let c = ipu_drive(IpuScheme::Ipu);
    // Whole-page writes never fit a used page: new → Work, then Monitor, Hot, Hot.
    let records: Vec<Record> = (0..4).map(|k| sub_write(k * 10_000_000, 5, 0, 4)).collect();
    let report = run(&c, records);
    assert_eq!(
        (level(&report, "work"), level(&report, "monitor"), level(&report, "hot")),
        (1, 1, 2),
        "{:?}",
        ipu(&report)
    );
    assert_eq!(ipu(&report).promotions, 3);
}

#[test]
fn mga_packs_four_small_writes_of_different_requests_into_one_page_and_its_map_is_larger() {
    // Four 4 KiB writes of four logical pages, 10 ms apart (never queued together).
    let records: Vec<Record> = (0..4).map(|k| sub_write(k * 10_000_000, 10 + k, 0, 1)).collect();
    let mga = run(&ipu_drive(IpuScheme::Mga), records.clone());
    let s = ipu(&mga);
    assert_eq!(s.partial_program_writes, 3, "{s:?}");
    assert_eq!(mga.flash.slc_programs, 4);
    assert_eq!(
        mga.mapping.as_ref().unwrap().split_logical_pages,
        4,
        "each logical page holds one subpage: subpage entries"
    );
    let base = run(&ipu_drive(IpuScheme::Baseline), records.clone());
    let b = ipu(&base);
    assert_eq!(b.partial_program_writes, 0);
    assert_eq!(b.mapping_table_bytes, b.page_map_bytes);
    assert!(
        s.mapping_table_bytes > b.mapping_table_bytes,
        "MGA {} vs Baseline {}",
        s.mapping_table_bytes,
        b.mapping_table_bytes
    );
    // IPU writes each logical page to a page of its own.
    let i = run(&ipu_drive(IpuScheme::Ipu), records);
    assert_eq!(ipu(&i).partial_program_writes, 0);
    assert_eq!(level(&i, "work"), 4);
}

#[test]
fn a_cache_flush_queued_as_mga_partial_program_survives_a_power_loss_on_capacitor_power() {
    // Swarm seeds 141204 and 201155: the DRAM cache flushes each first write of a page at
    // once (cold-eager). Logical page 10's flush opens an SLC page (program under way at
    // the loss); logical page 11's, 1 us later, is queued as MGA's partial program into
    // that page's free subpages. Both were acknowledged from DRAM, so PLP must program
    // both: the queued partial program was dropped as if it were unacknowledged.
    let mut c = ipu_drive(IpuScheme::Mga);
    c.precondition.used_fraction = 0.0;
    c.cache.capacity_bytes = 8 * PAGE;
    c.cache.flush = ssdlab_core::config::CacheFlush::ColdEager;
    c.power.loss_at_ns = vec![100_000];
    let records = vec![sub_write(0, 10, 0, 1), sub_write(1_000, 11, 0, 1), rec(5_000_000, Op::Read, 10, 2, PAGE)];
    // (Verification after the recovery: every acknowledged subpage maps to its version.)
    let report = run(&c, records);
    let p = report.power.as_ref().expect("a loss");
    assert_eq!((p.total.flushed_pages, p.each[0].flush_failures), (2, 0), "{p:?}");
    assert_eq!(p.each[0].mapped_pages, 2);
    assert_eq!(report.flash.page_reads, 2, "both logical pages are read back from flash");
}

#[test]
fn the_baseline_reads_before_an_update_that_leaves_other_valid_subpages_behind() {
    let c = ipu_drive(IpuScheme::Baseline);
    let records = vec![
        sub_write(0, 7, 0, 2),          // subpages 0-1: new
        sub_write(10_000_000, 7, 0, 1), // subpage 0: subpage 1 stays valid → RMW
        sub_write(20_000_000, 8, 0, 1), // new
        sub_write(30_000_000, 8, 0, 1), // covers all the valid data: no read
    ];
    let report = run(&c, records);
    assert_eq!(report.flash.update_reads, 1);
    assert_eq!(ipu(&report).update_reads, 1);
    assert_eq!(report.flash.partial_programs, 0);
}

/// Small random updates over a footprint twice the SLC cache, with power losses.
fn churn(seed: u64) -> Vec<Record> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..6000u64)
        .map(|i| {
            // Hot: a quarter of the writes hit 16 logical pages.
            let lpn = if rng.random_range(0..4) == 0 { rng.random_range(0..16) } else { rng.random_range(0..240) };
            let first = rng.random_range(0..4u64);
            let n = rng.random_range(1..=4 - first);
            let mut r = sub_write(i * 400_000, lpn, first, n);
            if rng.random_range(0..5) == 0 {
                r.op = Op::Read;
            }
            r
        })
        .collect()
}

#[test]
fn verify_is_clean_through_isr_gc_level_moves_and_power_loss_for_all_three_schemes() {
    for scheme in [IpuScheme::Baseline, IpuScheme::Mga, IpuScheme::Ipu] {
        let mut c = ipu_drive(scheme);
        c.power.loss_at_ns = vec![700_000_000, 1_500_000_000];
        let report = run(&c, churn(7));
        let s = ipu(&report);
        assert_eq!(report.power.as_ref().unwrap().losses, 2);
        assert!(s.slc_erases > 10, "{scheme:?}: the cache was cleaned: {s:?}");
        assert!(s.page_utilisation > 0.0 && s.page_utilisation <= 1.0);
        if scheme == IpuScheme::Ipu {
            assert!(s.isr_victims > 0 && s.gc_moves_same_level + s.gc_moves_down + s.gc_evictions > 0, "{s:?}");
            assert!(s.partial_program_writes > 0 && s.promotions > 0, "{s:?}");
        }
        // Same input, same output.
        assert_eq!(run(&c, churn(7)), report, "{scheme:?} is deterministic");
    }
}

#[test]
fn ipu_disturbs_less_read_data_than_mga_with_the_error_model_on() {
    // In-page disturb only hits valid data programmed earlier in the page: MGA's packed
    // pages hold other logical pages' data, IPU's the updated logical page's own.
    let mut rates = Vec::new();
    for scheme in [IpuScheme::Baseline, IpuScheme::Mga, IpuScheme::Ipu] {
        let mut c = ipu_drive(scheme);
        c.reliability.enabled = true;
        c.reliability.rber_by_pe = vec![(0, 0.0005)];
        c.reliability.in_page_disturb = 0.357;
        c.reliability.neighbour_disturb = 0.0;
        c.reliability.retention_per_decade = 0.0;
        c.reliability.read_disturb_per_million = 0.0;
        c.reliability.bit_errors = BitErrors::Expected;
        let report = run(&c, churn(11));
        rates.push(report.errors.as_ref().unwrap().slc_mean_rber);
    }
    let (base, mga, ipu) = (rates[0], rates[1], rates[2]);
    assert!((base - 0.0005 * c_slc()).abs() < 1e-12, "no partial program, no disturb: {rates:?}");
    assert!(mga > ipu && ipu >= base, "{rates:?}");
}

/// The SLC factor of the default reliability model.
fn c_slc() -> f64 {
    Reliability::default().slc_factor
}

/// Only MGA shares a page among the small writes of different requests
/// (`packs_small_writes`): the Baseline's and IPU's page maps hold a logical page per
/// physical page. Four 4 KiB writes of four logical pages arrive together: the first is
/// programmed at once, the other three wait for it. MGA puts all four in one page (the
/// first opens it, the others fill its free subpages); the Baseline and IPU program each
/// in a page of its own, also the three that wait together.
#[test]
fn only_mga_packs_small_writes_queued_together_into_one_page() {
    let records: Vec<Record> = (0..4).map(|k| sub_write(0, 10 + k, 0, 1)).collect();
    for scheme in [IpuScheme::Baseline, IpuScheme::Ipu, IpuScheme::Mga] {
        let (report, sim) = run_keep(&ipu_drive(scheme), records.clone());
        let pages: std::collections::BTreeSet<_> = (10..14).map(|lpn| sim.ftl.unit_page(lpn, 0).unwrap()).collect();
        if scheme == IpuScheme::Mga {
            assert_eq!(pages.len(), 1, "{pages:?}");
        } else {
            assert_eq!(pages.len(), 4, "{scheme:?}: {pages:?}");
            assert_eq!((report.flash.slc_programs, report.flash.partial_programs), (4, 0), "{scheme:?}");
        }
    }
}

/// GC of the Baseline and IPU keeps their page maps (`compact_across_pages` off: a
/// partly valid page moves alone), so after churn with GC no physical page holds data of
/// two logical pages; MGA's two-level map lets GC pack valid subpages of several pages
/// into one, and small writes share pages, so its pages do hold several.
#[test]
fn gc_of_the_page_map_schemes_never_puts_two_logical_pages_in_one_page() {
    for scheme in [IpuScheme::Baseline, IpuScheme::Ipu, IpuScheme::Mga] {
        let (report, sim) = run_keep(&ipu_drive(scheme), churn(3));
        assert!(ipu(&report).slc_erases > 10, "{scheme:?}: GC ran");
        let f = &sim.ftl;
        let units = f.units_per_page() as usize;
        let shared = (0..f.addr.pages() as usize)
            .filter(|&ppn| {
                let lpns: std::collections::BTreeSet<u32> = (ppn * units..(ppn + 1) * units)
                    .map(|pu| f.rev_at(pu as u32))
                    .filter(|&lu| lu != ssdlab_core::flash::NO_PAGE)
                    .map(|lu| lu >> f.unit_shift)
                    .collect();
                lpns.len() > 1
            })
            .count();
        if scheme == IpuScheme::Mga {
            assert!(shared > 0, "MGA packs");
        } else {
            assert_eq!(shared, 0, "{scheme:?}: pages holding several logical pages");
        }
    }
}

/// Swarm seed 960266: a unit map's flush out of the DRAM cache writes each run of units
/// it holds, and the Baseline merged each run with the page's other units on flash,
/// including the units of the flush's other runs: the page was read once per run and the
/// other runs' units programmed again from their old copies (the occupancy checker saw a
/// write of the page start before the read of a read-modify-write of it ended). The
/// flush is one update: one read-modify-write of all its runs.
#[test]
fn a_baseline_flush_of_two_runs_of_units_is_one_read_modify_write() {
    let mut c = ipu_drive(IpuScheme::Baseline);
    c.precondition.used_fraction = 0.0;
    c.cache.capacity_bytes = PAGE;
    c.cache.flush = ssdlab_core::config::CacheFlush::Evict;
    let records = vec![
        sub_write(0, 7, 0, 4),           // the whole page, flushed by the next write
        sub_write(10_000_000, 9, 0, 4),  // evicts page 7
        sub_write(20_000_000, 7, 0, 1),  // subpage 0 (evicts page 9) ...
        sub_write(20_001_000, 7, 2, 1),  // ... and 2: runs {0} and {2} of one page
        sub_write(30_000_000, 11, 0, 4), // evicts them: units 1 and 3 are on flash
        rec(40_000_000, Op::Read, 7, 1, PAGE),
    ];
    let (report, sim) = run_keep(&c, records);
    assert_eq!(report.cache.as_ref().unwrap().flushed_pages, 3, "pages 7, 9 and 7 left the cache");
    assert_eq!(report.flash.update_reads, 1, "one read-modify-write, not one per run");
    let pages: std::collections::BTreeSet<_> = (0..4).map(|k| sim.ftl.unit_page(7, k).unwrap()).collect();
    assert_eq!(pages.len(), 1, "the page's four units were programmed together: {pages:?}");
}
