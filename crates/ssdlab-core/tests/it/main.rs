//! Integration tests of the model: analytic cases with known answers, GC behaviour,
//! determinism and invariants. One test binary (nexosim/rust-analyzer style).

mod analytic;
mod at_service;
mod cmt;
mod controller;
mod core;
mod designs;
mod dir;
mod errors;
mod everyday;
mod fdp;
mod fdp_sampled;
mod flows;
mod flows_mqsim;
mod gc;
mod gordon;
mod harey;
mod hybrid;
mod ipu;
mod liveness;
mod mango;
mod mapping;
mod mongo;
mod mutants;
mod page_table;
mod power;
mod preconditioning;
mod read_your_writes;
mod schemes;
mod scrub;
mod swarm;
mod textbook;
mod theory;
mod timing;
mod wom;
mod zns;
mod zns_conv;
mod zns_conv_trim;
mod zns_host;
mod zns_slc;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab_core::config::*;
use ssdlab_core::source::VecSource;
use ssdlab_core::{Observers, Report, Simulator};
use ssdlab_trace::{Op, Record, RecordSource};

/// Runs with invariant checks (every 97 completions) and data verification and keeps the
/// simulator, to look at flash afterwards.
pub fn run_keep(config: &Config, records: Vec<Record>) -> (Report, Simulator<'static>) {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut config = config.clone();
    config.output.check_every = 97;
    let mut sim = Simulator::new(config, factory, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(50_000_000);
    let (report, _) = sim.run_to_end().expect("run succeeds");
    (report, sim)
}

/// A one-plane-per-die SLC-latency device with the given shape; no preconditioning.
pub fn tiny(channels: u32, chips: u32, dies: u32, planes: u32) -> Config {
    let mut c = Config {
        name: "test".into(),
        geometry: Geometry {
            channels,
            chips_per_channel: chips,
            dies_per_chip: dies,
            planes_per_die: planes,
            blocks_per_plane: 64,
            pages_per_block: 48,
            page_size_bytes: 4096,
            subpages_per_page: 1,
        },
        ..Config::default()
    };
    c.flash.read_latency_ns = vec![50_000, 70_000, 90_000];
    c.flash.program_latency_ns = vec![500_000, 2_000_000, 5_500_000];
    c.flash.erase_latency_ns = 3_000_000;
    c.flash.transfer_ns_per_byte = 0.01;
    c.ftl.over_provisioning = 0.25;
    c.ftl.gc_background_free_fraction = 0.1;
    c.ftl.gc_emergency_free_fraction = 0.05;
    c.output.series_interval_ns = 0;
    c
}

/// One page type with SLC latencies (50 us sense, 500 us program).
pub fn slc_like(c: &mut Config) {
    c.flash.cell = CellType::Slc;
    c.flash.read_latency_ns = vec![50_000];
    c.flash.program_latency_ns = vec![500_000];
    c.energy.read_nj = vec![1.0];
    c.energy.program_nj = vec![1.0];
}

/// MLC with single-page alternation (every other page fast) at the Harey Tortoise's
/// latencies (Table 7.3), unit energies 1 (fast) and 4 (slow).
pub fn staircase_mlc(c: &mut Config) {
    two_speed_mlc(c, LayoutKind::Staircase, [27_000, 40_000], [253_000, 1_359_000], 4.0);
}

/// MLC with the thesis' paired layout (Fig. 7.2A: pages fast and slow in pairs), 50 / 70
/// us reads, 300 / 1200 us programs, unit energies 1 (fast) and 3 (slow): the scrub and
/// WOM drives.
pub fn paired_mlc(c: &mut Config) {
    two_speed_mlc(c, LayoutKind::Pairs, [50_000, 70_000], [300_000, 1_200_000], 3.0);
}

/// MLC in `layout` with (fast, slow) read and program latencies; reads cost 1 unit of
/// energy, a fast program 1 and a slow one `slow_program_nj`.
fn two_speed_mlc(c: &mut Config, layout: LayoutKind, read_ns: [u64; 2], program_ns: [u64; 2], slow_program_nj: f64) {
    c.flash.cell = CellType::Mlc;
    c.flash.layout = layout;
    c.flash.read_latency_ns = read_ns.to_vec();
    c.flash.program_latency_ns = program_ns.to_vec();
    c.energy.read_nj = vec![1.0, 1.0];
    c.energy.program_nj = vec![1.0, slow_program_nj];
}

pub fn rec(at_ns: u64, op: Op, page: u64, pages: u64, page_size: u64) -> Record {
    Record {
        arrival_ns: at_ns,
        device: 0,
        offset_bytes: page * page_size,
        size_bytes: pages * page_size,
        op,
        hint: None,
    }
}

/// Runs a config on in-memory records with invariant checks on; panics on error.
pub fn run(config: &Config, records: Vec<Record>) -> Report {
    run_with_series(config, records).0
}

pub fn run_with_series(config: &Config, records: Vec<Record>) -> (Report, Vec<ssdlab_core::SeriesRow>) {
    try_run_with_budget(config, records, u64::MAX).expect("run succeeds")
}

/// Runs with invariant checks, data verification and an event budget (a livelock fails
/// instead of hanging).
pub fn try_run_with_budget(
    config: &Config,
    records: Vec<Record>,
    budget: u64,
) -> Result<(Report, Vec<ssdlab_core::SeriesRow>), ssdlab_core::SimError> {
    let runs = records.clone();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(runs.clone())) as Box<dyn RecordSource>));
    let mut config = config.clone();
    // Invariants are checked during every test run, not only at its end.
    config.output.check_every = 97;
    let mut sim = Simulator::new(config, factory, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(budget);
    sim.run()
}

/// `count` requests of `pages` pages at uniformly random page-aligned offsets.
pub fn random_requests(count: usize, pages: u64, span_pages: u64, op: Op, page_size: u64, seed: u64) -> Vec<Record> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count).map(|_| rec(0, op, rng.random_range(0..span_pages - pages), pages, page_size)).collect()
}
