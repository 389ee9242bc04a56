//! ISR (IPU §3.2) on hand-built states: the formula on the paper's Fig. 4 example, and the
//! victim IPU's GC picks among blocks whose valid data is hot or cold.

use super::*;
use crate::config::{Config, Geometry};
use crate::engine::Observers;
use crate::source::VecSource;
use ssdlab_trace::RecordSource;

#[test]
fn fig_4s_example_ranks_candidate_b_first() {
    // A: 6 of 16 subpages invalid, the rest updated (hot). B: 6 invalid and never-updated
    // valid data weighing 0.9 (one subpage aged T·ln 10).
    let a = isr(6, 0.0, 16);
    let b = isr(6, cold_weight(10f64.ln() * 1e9, 1e9), 16);
    assert!((a - 6.0 / 16.0).abs() < 1e-12);
    assert!((b - 6.9 / 16.0).abs() < 1e-12, "{b}");
    assert!(b > a);
    // The weight grows with the age relative to the update interval, from 0 to 1.
    assert_eq!(cold_weight(0.0, 5.0), 0.0);
    assert!(cold_weight(1.0, 5.0) < cold_weight(10.0, 5.0));
    assert!(cold_weight(1e12, 5.0) > 0.999_999);
}

/// One plane with 8 SLC blocks of 4 pages of 4 subpages (TS = 16, as Fig. 4).
fn drive(scheme: IpuScheme) -> Config {
    let mut c = Config {
        geometry: Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 32,
            pages_per_block: 8,
            page_size_bytes: 16384,
            subpages_per_page: 4,
        },
        ..Config::default()
    };
    c.flash.cell = crate::config::CellType::Mlc;
    c.flash.read_latency_ns = vec![50_000, 50_000];
    c.flash.program_latency_ns = vec![900_000, 900_000];
    c.flash.slc_pages_per_block = 4;
    c.flash.partial_programs_max = 4;
    c.ftl.slc_blocks_per_plane = 8;
    c.ftl.over_provisioning = 0.5;
    c.ftl.slc_gc_free_fraction = 0.99;
    c.precondition.used_fraction = 0.0;
    c.ipu.scheme = scheme;
    c.resolved()
}

/// Fills SLC block `block` (level 0) with four logical pages, `lpn0..lpn0 + 4`, each whole.
fn fill(sim: &mut Simulator<'_>, lpn0: u32) -> u32 {
    let mut block = NO_PAGE;
    for k in 0..4 {
        let a = sim.ftl.allocate_slc(0, 0, 0, 0).expect("room");
        sim.ftl.commit_units(lpn0 + k, 0, 4, a.ppn, 0);
        sim.ftl.mark_programmed(a.ppn, 4);
        block = sim.ftl.addr.block_of(a.ppn);
    }
    block
}

/// Overwrites subpages `0..n` of `lpn` with data placed in a normal block.
fn invalidate(sim: &mut Simulator<'_>, lpn: u32, n: u32) {
    let a = sim.ftl.allocate_normal(0, 0).expect("room");
    sim.ftl.commit_units(lpn, 0, n, a.ppn, 0);
}

#[test]
fn ipus_victim_is_the_block_isr_ranks_first_where_greedy_would_take_another() {
    let factory = Box::new(|| Ok(Box::new(VecSource::new(Vec::new())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(drive(IpuScheme::Ipu), factory, Observers::default()).expect("valid");
    let a = fill(&mut sim, 0);
    let b = fill(&mut sim, 4);
    // Both blocks: 6 of 16 subpages invalid (greedy's tie, broken by the lower number: A).
    for (lpn, n) in [(0, 4), (1, 2), (4, 4), (5, 2)] {
        invalidate(&mut sim, lpn, n);
    }
    sim.now = 100_000_000_000;
    let now = sim.now;
    let d = sim.designs.state_mut::<Ipu>();
    // Mean update interval 1 s in both blocks.
    for blk in [a, b] {
        let i = d.slc_block(&sim.ftl, blk);
        (d.interval_sum[i], d.interval_count[i]) = (1e9, 1);
    }
    // A's valid data was all written by updates (hot); B's was written once, 10 s ago.
    for (blk, updated, age) in [(a, true, 10_000_000_000u64), (b, false, 10_000_000_000)] {
        for page in 0..4 {
            for k in 0..4 {
                let u = d.slc_unit(&sim.ftl, (sim.ftl.addr.ppn(blk, page) << 2) + k);
                d.updated[u] = updated;
                d.written_ns[u] = now - age;
            }
        }
    }
    let (isr_a, isr_b) = (sim.ipu_isr(a), sim.ipu_isr(b));
    assert!((isr_a - 6.0 / 16.0).abs() < 1e-9, "{isr_a}");
    // B: 6 invalid + 10 cold subpages of weight 1 − e^−10.
    assert!((isr_b - (6.0 + 10.0 * (1.0 - (-10f64).exp())) / 16.0).abs() < 1e-9, "{isr_b}");
    assert_eq!(sim.ipu_gc_victim(0), Some(b));
    // Made hot, B falls behind A on the lower block number (equal ISR).
    let d = sim.designs.state_mut::<Ipu>();
    d.updated.fill(true);
    assert_eq!(sim.ipu_gc_victim(0), Some(a));
}
