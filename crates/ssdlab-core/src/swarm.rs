//! Swarm testing (TigerBeetle's VOPR style): one seed draws a whole random case — geometry,
//! cell type, programming scheme, policies, GC thresholds, preconditioning, replay mode and
//! workload — so that running many seeds with invariants and `--verify` on explores the
//! combinations no hand-written test covers. Every failure is replayed by its seed alone.

use crate::config::*;
use crate::source::VecSource;
use crate::{Observers, Report, SimError, Simulator};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab_trace::{Op, Record, RecordSource};

/// One randomly drawn simulation.
pub struct SwarmCase {
    pub seed: u64,
    pub config: Config,
    pub records: Vec<Record>,
    /// One line naming what was drawn, for failure reports.
    pub description: String,
}

pub(crate) fn pick<T: Copy>(rng: &mut Pcg64Mcg, items: &[T]) -> T {
    items[rng.random_range(0..items.len())]
}

/// How often a swarm case has power failures (`ssdlab swarm --power-loss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PowerLosses {
    /// Two cases in five have none; the others one to three at random instants, some
    /// after the workload has ended.
    #[default]
    Sometimes,
    /// One to three losses in every case, early enough to hit the workload.
    Always,
    Never,
}

impl PowerLosses {
    pub fn name(self) -> &'static str {
        match self {
            PowerLosses::Sometimes => "sometimes",
            PowerLosses::Always => "always",
            PowerLosses::Never => "never",
        }
    }
}

impl std::str::FromStr for PowerLosses {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        [PowerLosses::Sometimes, PowerLosses::Always, PowerLosses::Never]
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("'{s}' is not one of sometimes, always, never"))
    }
}

/// Draws the case of `seed`. The config is always valid: draws that do not validate are
/// redrawn from a stream derived from the same seed.
pub fn case(seed: u64) -> SwarmCase {
    case_with(seed, PowerLosses::Sometimes)
}

/// Draws the case of `seed` with the given power-loss policy; everything but the power
/// section is the same as `case(seed)`.
pub fn case_with(seed: u64, power: PowerLosses) -> SwarmCase {
    let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm"));
    loop {
        let config = draw_config(&mut rng, seed, power);
        if config.validate().is_ok() {
            let mut records = draw_workload(&mut rng, &config);
            let mut config = config;
            draw_mapping(seed, &mut config, &mut records);
            draw_slc_levels(seed, &mut config);
            draw_super_pages(seed, &mut config);
            draw_errors(seed, &mut config);
            crate::designs::swarm_draws(SwarmPhase::BeforeHost, seed, &mut config, &mut records);
            draw_controller(seed, &mut config, &mut records);
            draw_flows(seed, &mut config);
            crate::designs::swarm_draws(SwarmPhase::AfterHost, seed, &mut config, &mut records);
            draw_mongo(seed, &mut config);
            draw_at_service(seed, &mut config);
            fit_precondition(&mut config, &records);
            let description = describe(&config, records.len());
            return SwarmCase { seed, config, records, description };
        }
    }
}

fn draw_config(rng: &mut Pcg64Mcg, seed: u64, power: PowerLosses) -> Config {
    let mut c = Config { name: "swarm".into(), seed, ..Config::default() };
    let cell = pick(rng, &[CellType::Slc, CellType::Mlc, CellType::Tlc, CellType::Tlc, CellType::Qlc]);
    let bits = cell.bits_per_cell();
    c.flash.cell = cell;
    c.geometry = Geometry {
        channels: rng.random_range(1..=3),
        chips_per_channel: rng.random_range(1..=2),
        dies_per_chip: rng.random_range(1..=2),
        planes_per_die: rng.random_range(1..=4),
        blocks_per_plane: rng.random_range(24..=64),
        pages_per_block: (bits * pick(rng, &[4, 8, 16])) as u32,
        page_size_bytes: 4096,
        subpages_per_page: 1,
    };
    c.flash.read_latency_ns = (0..bits).map(|t| 40_000 + 20_000 * t as u64).collect();
    c.flash.program_latency_ns = (0..bits).map(|t| 300_000 * (1 + 2 * t as u64)).collect();
    c.energy.read_nj = vec![1.0; bits];
    c.energy.program_nj = vec![2.0; bits];
    c.flash.erase_latency_ns = rng.random_range(1_000_000..5_000_000);
    c.flash.transfer_ns_per_byte = pick(rng, &[0.5, 3.0, 10.0]);
    c.flash.layout = if bits > 1 && rng.random_bool(0.5) { LayoutKind::Pairs } else { LayoutKind::Staircase };
    c.flash.wordline_buffer = rng.random_bool(0.5);
    c.flash.multi_plane = rng.random_bool(0.7);
    c.flash.copyback = rng.random_bool(0.7);
    c.flash.ecc_decode_ns = pick(rng, &[0, 0, 5_000]);
    let mode = rng.random_range(0..10);
    if mode == 0 && bits > 1 {
        c.flash.program_scheme = ProgramScheme::OneShot;
        c.flash.layout = LayoutKind::Sequential;
        c.flash.program_delay_ns = pick(rng, &[1_000_000, 50_000_000]);
    } else if mode <= 2 && bits > 1 {
        c.pa.scheme = pick(rng, &["us", "lfs", "ubs", "sbs+us", "qds+ubs", "wbs+us", "hgs+ubs"]).to_string();
        c.pa.qds_threshold = rng.random_range(1..=12);
        c.pa.write_buffer_pages = rng.random_range(1..=32);
    } else if mode <= 4 {
        c.ftl.slc_blocks_per_plane = rng.random_range(2..=4);
        c.flash.slc_pages_per_block = c.geometry.pages_per_block / bits as u32;
        if rng.random_bool(0.5) && c.flash.program_scheme == ProgramScheme::PageByPage {
            c.geometry.page_size_bytes = 16384;
            c.geometry.subpages_per_page = 4;
            c.flash.partial_programs_max = rng.random_range(2..=4);
            c.ftl.partial_program_updates = true;
        }
    }
    c.ftl.over_provisioning = rng.random_range(0.15..0.35);
    c.ftl.gc_background_free_fraction = rng.random_range(0.05..0.2);
    c.ftl.gc_emergency_free_fraction = rng.random_range(0.0..c.ftl.gc_background_free_fraction);
    c.ftl.gc_background = pick(rng, &[BackgroundGc::UntilAboveThreshold, BackgroundGc::OneVictimPerBlock]);
    c.ftl.gc_idle_ns = pick(rng, &[0, 1_000_000]);
    c.ftl.gc_free_space = pick(rng, &[GcFreeSpace::Blocks, GcFreeSpace::Pages]);
    c.ftl.gc_victim =
        pick(rng, &[VictimPolicy::Greedy, VictimPolicy::CostBenefit, VictimPolicy::Fifo, VictimPolicy::Random]);
    c.ftl.plane_allocation =
        pick(rng, &[PlaneAllocation::Static, PlaneAllocation::RoundRobin, PlaneAllocation::LeastBusy]);
    c.ftl.allocation_order = pick(rng, &["cwdp", "pdwc", "wcpd", "dpcw"]).to_string();
    c.ftl.partial_page_writes = pick(rng, &[PartialPageWrites::ReadModifyWrite, PartialPageWrites::Overwrite]);
    let mut priority = vec![QueueKind::UserRead, QueueKind::UserWrite, QueueKind::Gc];
    if rng.random_bool(0.3) {
        priority.swap(1, 2);
    }
    c.ftl.queue_priority = priority;
    c.precondition.used_fraction = pick(rng, &[0.0, 0.3, 0.7]);
    c.precondition.fill_invalid_to_gc_threshold = rng.random_bool(0.7);
    if rng.random_bool(0.2) {
        c.precondition.aged_invalid_fraction = 0.5;
    }
    c.host.replay =
        pick(rng, &[ReplayMode::OpenLoop, ReplayMode::ClosedLoop, ReplayMode::ClosedLoop, ReplayMode::Burst]);
    c.host.queue_depth = match c.host.replay {
        ReplayMode::ClosedLoop => rng.random_range(1..=32),
        _ => pick(rng, &[0, 0, 4]),
    };
    c.host.burst_gap_ns = 200_000;
    c.host.runs = pick(rng, &[1, 1, 2]);
    c.host.unwritten_reads = pick(rng, &[WhatIfUnwritten::Precondition, WhatIfUnwritten::Controller]);
    c.output.series_interval_ns = pick(rng, &[0, 10_000_000]);
    // Power failures at random instants (some after the workload ends, so they never
    // happen), acknowledged on program or from a DRAM buffer with PLP. Drawn from a
    // stream of their own so the rest of every seed's case is unchanged by them.
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-power"));
    let (losses, latest_ns) = match power {
        PowerLosses::Sometimes => (pick(rng, &[0, 0, 1, 2, 3]), 1_500_000_000),
        PowerLosses::Always => (pick(rng, &[1, 2, 3]), 300_000_000),
        PowerLosses::Never => (0, 1),
    };
    let mut at: Vec<u64> = (0..losses).map(|_| rng.random_range(100_000..latest_ns)).collect();
    at.sort_unstable();
    at.dedup();
    c.power.loss_at_ns = at;
    if rng.random_bool(0.3) {
        c.power.write_acknowledge = WriteAcknowledge::Buffer;
        c.power.write_buffer_pages = rng.random_range(1..=64);
    }
    c.power.off_ns = pick(rng, &[0, 1_000_000]);
    c.power.block_summary = !c.pa.enabled() && rng.random_bool(0.3);
    // SLC/TLC hybrid policies and layouts on the drives with SLC blocks, from a stream of
    // their own (the rest of every seed's case is unchanged by them).
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-hybrid"));
    if c.ftl.slc_blocks_per_plane > 0 {
        let h = &mut c.hybrid;
        h.allocation =
            pick(rng, &[HybridAllocation::Pf, HybridAllocation::Tw, HybridAllocation::Hc, HybridAllocation::Tpj]);
        h.migration = pick(rng, &[SlcMigration::Gc, SlcMigration::Bg, SlcMigration::Qpc]);
        h.hot_request_max_bytes = pick(rng, &[4096, 16384]);
        h.idle_ns = pick(rng, &[100_000, 5_000_000]);
        h.qpc_sigma = rng.random_range(0..=2);
        h.qpc_reclaim_limit = rng.random_range(1..=4);
        let planes =
            c.geometry.channels * c.geometry.chips_per_channel * c.geometry.dies_per_chip * c.geometry.planes_per_die;
        h.slc_planes = pick(rng, &[0, 0, 1.max(planes / 4)]);
        let fill = rng.random_bool(0.2);
        let g = &c.geometry;
        let layouts: Vec<SlcLayout> = [
            (SlcLayout::Die, g.planes_per_die),
            (SlcLayout::Chip, g.dies_per_chip),
            (SlcLayout::Channel, g.chips_per_channel),
        ]
        .into_iter()
        .filter(|&(_, units)| units >= 2)
        .map(|(l, _)| l)
        .collect();
        if c.power.loss_at_ns.is_empty() && !layouts.is_empty() && rng.random_bool(0.3) {
            c.hybrid.layout = layouts[rng.random_range(0..layouts.len())];
            c.hybrid.slc_share = pick(rng, &[0.25, 0.5]);
        }
        // Filling the SLC blocks needs logical pages beyond the used fraction.
        let slc_pages: u64 =
            c.slc_blocks_by_plane().iter().map(|&b| b as u64).sum::<u64>() * c.flash.slc_pages_per_block as u64;
        let free_lpns = (c.logical_pages() as f64 * (1.0 - c.precondition.used_fraction)) as u64;
        c.precondition.slc_filled = fill && slc_pages < free_lpns;
    }
    // Steady-state preconditioning, from a stream of its own (the rest of every seed's
    // case is unchanged by it).
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-precondition"));
    if c.precondition.aged_invalid_fraction == 0.0 && rng.random_bool(0.15) {
        c.precondition.steady_state = true;
        c.precondition.steady_state_max_rounds = rng.random_range(5..=8);
        c.precondition.steady_state_round_fraction = pick(rng, &[0.25, 0.5]);
    }
    // Command shapes and GC destinations of the core, from a stream of their own (the
    // rest of every seed's case is unchanged by them).
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-core"));
    c.flash.multi_plane_any_address = c.flash.multi_plane && rng.random_bool(0.3);
    c.flash.read_retries = pick(rng, &[0, 0, 0, 1, 3]);
    c.flash.retry_sense_latency_ns = pick(rng, &[0, 24_000]);
    let conventional = !c.pa.enabled() && !c.uses_slc() && c.hybrid.allocation == HybridAllocation::Pf;
    let chips = c.geometry.channels * c.geometry.chips_per_channel;
    if conventional && chips > 1 && c.power.loss_at_ns.is_empty() && !c.power.block_summary && rng.random_bool(0.3) {
        c.ftl.gc_destination = crate::config::GcDestination::OtherChip;
    }
    if !c.pa.enabled() && c.flash.program_scheme != ProgramScheme::OneShot {
        let wps = pick(rng, &[1, 1, 2, 4, 8]);
        if c.geometry.blocks_per_plane >= 4 * wps + 8 {
            c.ftl.user_write_points = wps;
        }
        c.ftl.write_point_choice =
            pick(rng, &[crate::config::WritePointChoice::RoundRobin, crate::config::WritePointChoice::FastestPage]);
        c.ftl.gc_through_user_write_points = rng.random_bool(0.25);
    }
    c.output.check_every = 211;
    c
}

/// Mapping kinds (issue 12 §2), from a stream of their own so the rest of every seed's
/// case is unchanged: a half-page or subpage map on a share of the drives that allow one,
/// and for subpage maps, writes and reads of single subpages among the workload's
/// one-page requests (so that packing and split pages occur).
fn draw_mapping(seed: u64, c: &mut Config, records: &mut [Record]) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-mapping"));
    let kind = pick(rng, &[Mapping::Page, Mapping::Page, Mapping::HalfPages, Mapping::Subpages]);
    let mut drawn = c.clone();
    drawn.ftl.mapping = kind;
    if kind == Mapping::Subpages {
        drawn.geometry.subpages_per_page = pick(rng, &[2, 4, 8]);
    }
    if kind == Mapping::Page || drawn.validate().is_err() {
        return;
    }
    *c = drawn;
    if kind != Mapping::Subpages {
        return;
    }
    let page = c.geometry.page_size_bytes as u64;
    let unit = page / c.geometry.subpages_per_page as u64;
    for r in records.iter_mut() {
        if r.size_bytes <= page && r.op != Op::Trim && rng.random_bool(0.5) {
            let first = rng.random_range(0..c.geometry.subpages_per_page as u64);
            let count = rng.random_range(1..=c.geometry.subpages_per_page as u64 - first);
            r.offset_bytes = r.offset_bytes / page * page + first * unit;
            r.size_bytes = count * unit;
        }
    }
}

/// SLC levels and where GC of the SLC cache moves data (issue 12 §3–4), from a stream of
/// their own, on drives with a conventional SLC cache big enough for them.
fn draw_slc_levels(seed: u64, c: &mut Config) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-slc-levels"));
    if c.ftl.slc_blocks_per_plane < 3 || !rng.random_bool(0.5) {
        return;
    }
    // (The conventional SLC cache: the levels replace the hybrid policies drawn before.)
    let mut drawn = c.clone();
    drawn.hybrid.allocation = HybridAllocation::Pf;
    drawn.hybrid.migration = SlcMigration::Gc;
    drawn.ftl.slc_levels = rng.random_range(1..=(c.ftl.slc_blocks_per_plane - 2).min(3));
    drawn.ftl.slc_gc_destination =
        pick(rng, &[SlcGcDestination::OutOfCache, SlcGcDestination::SameLevel, SlcGcDestination::NextLevel]);
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

/// Super-pages (issue 12 §5), from a stream of their own: a gang of channels and dies of
/// a page-mapped drive without subpages. The workload's sizes stay as drawn, so requests
/// cover parts of super-pages too.
fn draw_super_pages(seed: u64, c: &mut Config) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-super-pages"));
    if !rng.random_bool(0.25) {
        return;
    }
    let mut drawn = c.clone();
    let g = &c.geometry;
    drawn.ftl.super_page_channels = pick(rng, &[1, g.channels]);
    drawn.ftl.super_page_dies = pick(rng, &[1, g.dies_per_chip, g.chips_per_channel * g.dies_per_chip]);
    if drawn.super_page_pages() > 1 && drawn.validate().is_ok() {
        *c = drawn;
    }
}

/// The drive with a plain page map: one design at a time, so the drive's own features the
/// write-point designs are not modelled with give way (the other draws keep them on the
/// other half of the drives).
pub(crate) fn plain_page_map(c: &Config) -> Config {
    let mut drawn = c.clone();
    drawn.ftl.mapping = crate::config::Mapping::Page;
    drawn.ftl.slc_blocks_per_plane = 0;
    drawn.ftl.slc_levels = 1;
    drawn.ftl.partial_program_updates = false;
    drawn.hybrid = crate::config::Hybrid::default();
    drawn
}

/// Mongo's placement and rapid warm-up (thesis §4.2.2), from a stream of their own:
/// balanced placement on some drives, write points started on random pages on others.
fn draw_mongo(seed: u64, c: &mut Config) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-mongo"));
    let mut drawn = c.clone();
    if rng.random_bool(0.25) {
        drawn.ftl.plane_allocation = PlaneAllocation::Balanced;
    }
    drawn.precondition.write_points_random_start = rng.random_bool(0.3);
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

/// SSDSim's allocation at service time, from a stream of its own: on a fifth of the
/// drives it can run on (no design placing writes, no SLC cache, whose hybrid design
/// places them, no confined flows) and that Mongo's balanced placement left alone.
fn draw_at_service(seed: u64, c: &mut Config) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-at-service"));
    let mut drawn = c.clone();
    let free = c.ftl.slc_blocks_per_plane == 0 && c.ftl.plane_allocation != PlaneAllocation::Balanced;
    if rng.random_bool(0.2) && free {
        drawn.ftl.plane_allocation = PlaneAllocation::AtService;
        if drawn.validate().is_ok() {
            *c = drawn;
        }
    }
}

/// The error model (issue 13), from a stream of its own: on a third of the drives, with
/// a random ECC, wear, spread, age and wear-dependent latency, and RBERs high enough that
/// LDPC reads retry (up to eight times) and some reads are uncorrectable (counted).
fn draw_errors(seed: u64, c: &mut Config) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-errors"));
    if !rng.random_bool(0.35) {
        return;
    }
    let mut drawn = c.clone();
    let r = &mut drawn.reliability;
    r.enabled = true;
    r.bit_errors = pick(rng, &[BitErrors::Sampled, BitErrors::Expected]);
    r.page_type_factor = (0..c.bits_per_cell()).map(|t| 0.7 + 0.3 * t as f64).collect();
    r.read_disturb_per_million = pick(rng, &[0.0, 0.5, 5_000.0]);
    r.program_speedup_at_rated = pick(rng, &[0.0, 0.0, 0.5]);
    r.erase_slowdown_at_rated = pick(rng, &[0.0, 0.0, 0.3]);
    drawn.ecc.scheme = pick(rng, &[EccScheme::Fixed, EccScheme::Bch, EccScheme::Ldpc, EccScheme::Ldpc]);
    drawn.precondition.pe_cycles = pick(rng, &[0, 1500, 3000, 6000]);
    drawn.precondition.pe_spread = pick(rng, &[0.0, 0.2]);
    drawn.precondition.retention_age_days = pick(rng, &[0.0, 30.0, 365.0]);
    drawn.flash.ecc_decode_ns = pick(rng, &[0, 2_000]);
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

/// The controller's DRAM cache, host link and chip-serial dies (issue 19), and workloads
/// that read what they just wrote (a read of the same bytes right behind a write).
fn draw_controller(seed: u64, c: &mut Config, records: &mut Vec<Record>) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-controller"));
    let mut drawn = c.clone();
    let page = drawn.geometry.page_size_bytes as u64;
    if drawn.power.write_acknowledge == WriteAcknowledge::Program && rng.random_bool(0.4) {
        drawn.cache.capacity_bytes = page * rng.random_range(2..=64);
        drawn.cache.mode = pick(rng, &[CacheMode::Write, CacheMode::ReadWrite]);
        drawn.cache.flush = pick(rng, &[CacheFlush::Evict, CacheFlush::ColdEager]);
        drawn.cache.hot_window_ns = pick(rng, &[1_000_000, 50_000_000, 1_000_000_000]);
        drawn.cache.flush_limit_bytes = page * pick(rng, &[0, 1, 2, 8]);
        drawn.cache.dram_ns_per_byte = pick(rng, &[0.1, 5.0]);
    }
    if rng.random_bool(0.3) {
        drawn.flash.die_scheduling = DieScheduling::ChipSerial;
    }
    // From a stream of its own, so that every other draw of existing cases stays as it was.
    let gate = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-channel-gate"));
    drawn.flash.issue_on_idle_channel = gate.random_bool(0.3);
    if rng.random_bool(0.3) {
        drawn.flash.multi_plane_same_block = false;
    }
    if rng.random_bool(0.3) {
        drawn.flash.transfer_requested_bytes = true;
    }
    if rng.random_bool(0.3) {
        drawn.link.lanes = rng.random_range(1..=4);
        drawn.link.lane_gb_per_s = pick(rng, &[0.25, 1.0]);
    }
    if drawn.validate().is_ok() {
        *c = drawn;
    }
    // A cached mapping table where it is modelled (the conventional FTL, no power loss).
    if rng.random_bool(0.7) {
        let mut drawn = c.clone();
        drawn.cmt.entry_bytes = 8;
        drawn.cmt.capacity_bytes = 8 * pick(rng, &[1, 4, 32, 256, 1024]);
        drawn.cmt.entries_per_translation_page = pick(rng, &[0, 16, 64, 512]);
        drawn.cmt.read_bytes = pick(rng, &[0, 512]);
        drawn.cmt.write_back = pick(rng, &[CmtWriteBack::Program, CmtWriteBack::Mqsim]);
        if drawn.validate().is_ok() {
            *c = drawn;
        }
    }
    if rng.random_bool(0.5) {
        let share = rng.random_range(0.1..0.5);
        let mut out = Vec::with_capacity(records.len() * 3 / 2);
        for r in records.drain(..) {
            let again = r.op == Op::Write && rng.random_bool(share);
            out.push(r);
            if again {
                out.push(Record { op: Op::Read, hint: None, ..r });
            }
        }
        *records = out;
    }
}

/// Host flows (`[[flows]]`) in a quarter of the cases where they are modelled: the records
/// dealt to two or three flows in turn (`flow_sources`), each flow its own share of the
/// logical space, closed loop or open loop, its class, and in half of those cases pinned
/// to some channels or dies (allocation zones).
fn draw_flows(seed: u64, c: &mut Config) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-flows"));
    if !rng.random_bool(0.25) {
        return;
    }
    let mut drawn = c.clone();
    let n = rng.random_range(2..=3u64);
    let page = u64::from(drawn.geometry.page_size_bytes);
    let size = drawn.logical_bytes() / n / page * page;
    if size < page * 4 {
        return;
    }
    let g = drawn.geometry.clone();
    let pinned = rng.random_bool(0.5);
    drawn.arbitration.scheme = pick(rng, &[ArbitrationScheme::RoundRobin, ArbitrationScheme::Weighted]);
    drawn.flows = (0..n)
        .map(|k| {
            let mut f = Flow {
                trace: "swarm".into(),
                queue_depth: pick(rng, &[0, 0, 1, 4, 16]),
                priority: pick(
                    rng,
                    &[FlowPriority::Urgent, FlowPriority::High, FlowPriority::Medium, FlowPriority::Low],
                ),
                offset_bytes: k * size,
                size_bytes: size,
                ..Flow::default()
            };
            if pinned {
                // A subset each: a channel, else a die, else a plane (ids may be shared).
                let (count, list) = if g.channels > 1 {
                    (g.channels, &mut f.channels)
                } else if g.dies_per_chip > 1 {
                    (g.dies_per_chip, &mut f.dies)
                } else {
                    (g.planes_per_die, &mut f.planes)
                };
                if count > 1 {
                    list.push((k as u32) % count);
                }
            }
            f
        })
        .collect();
    if drawn.flows.iter().any(|f| f.is_partitioned()) {
        // MQSim's partitioning (`Logical_Address_Partitioning_Unit`): a flow gets each of
        // its planes' share of the logical capacity divided by the flows using the plane.
        // An equal split overfilled a shared plane (seed 1000861: two flows of a third of
        // the drive each on one plane of two).
        let lists: Vec<[&[u32]; 4]> =
            drawn.flows.iter().map(|f| [&f.channels[..], &f.chips[..], &f.dies[..], &f.planes[..]]).collect();
        let sizes = crate::config::partitioned_sizes(&lists, &g, drawn.logical_bytes());
        let mut offset = 0;
        for (f, size) in drawn.flows.iter_mut().zip(sizes) {
            (f.offset_bytes, f.size_bytes) = (offset, size);
            offset += size;
        }
    }
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

/// The sources of a case's flows: record `i` goes to flow `i mod flows`.
pub fn flow_sources(config: &Config, records: &[Record]) -> Vec<Box<dyn RecordSource>> {
    let n = config.flows.len();
    (0..n)
        .map(|k| {
            let own: Vec<Record> = records.iter().skip(k).step_by(n).cloned().collect();
            Box::new(VecSource::new(own)) as Box<dyn RecordSource>
        })
        .collect()
}

/// The case's simulator (its flows' sources too).
pub fn build(config: &Config, records: &[Record]) -> Result<Simulator<'static>, SimError> {
    let all = records.to_vec();
    let factory = Box::new(move || Ok(Box::new(VecSource::new(all.clone())) as Box<dyn RecordSource>));
    Simulator::new_with_flows(config.clone(), factory, flow_sources(config, records), Observers::default())
}

/// Preconditioning places the pages the workload reads before writing them together with
/// the `used_fraction` fill (and the SLC fill after both), and refuses a run whose fill
/// and footprint do not fit above the GC thresholds, or whose SLC blocks cannot be filled
/// with the logical pages left. Such a draw drops the SLC fill, then the fill, then (if
/// the footprint alone does not fit) lets the controller answer those reads; the rest of
/// the case is unchanged.
fn fit_precondition(c: &mut Config, records: &[Record]) {
    let fits = |c: &Config| {
        !matches!(
            build(c, records),
            Err(SimError::Setup(m)) if m.contains("does not fit") || m.starts_with("precondition.slc_filled")
        )
    };
    if fits(c) {
        return;
    }
    if c.precondition.slc_filled {
        c.precondition.slc_filled = false;
        if fits(c) {
            return;
        }
    }
    c.precondition.used_fraction = 0.0;
    if !fits(c) {
        c.host.unwritten_reads = WhatIfUnwritten::Controller;
    }
}

fn draw_workload(rng: &mut Pcg64Mcg, c: &Config) -> Vec<Record> {
    let page = c.geometry.page_size_bytes as u64;
    let logical_pages = c.logical_pages().max(16);
    let count = rng.random_range(1_500..4_000);
    let shape = rng.random_range(0..4); // random, skewed, sequential, bursty
    let read_share = rng.random_range(0.0..0.7);
    let trim_share = pick(rng, &[0.0, 0.0, 0.05]);
    let mut t = 0u64;
    let mut sequential = 0u64;
    (0..count)
        .map(|i| {
            let pages = pick(rng, &[1u64, 1, 2, 4, 8]).min(logical_pages / 2);
            let span = logical_pages - pages;
            let first = match shape {
                1 if rng.random_bool(0.8) => rng.random_range(0..(span / 10).max(1)),
                2 => {
                    sequential = (sequential + pages) % span;
                    sequential
                }
                _ => rng.random_range(0..span),
            };
            let unaligned = rng.random_bool(0.1);
            let offset = first * page + if unaligned { 512 * rng.random_range(1..8) } else { 0 };
            let size = if unaligned { pages * page - 512 } else { pages * page };
            let draw = rng.random_range(0.0..1.0);
            let op = if draw < trim_share {
                Op::Trim
            } else if draw < trim_share + read_share {
                Op::Read
            } else {
                Op::Write
            };
            t += if shape == 3 && i % 200 == 0 { 50_000_000 } else { rng.random_range(0..400_000) };
            let hint = rng.random_bool(0.3).then(|| rng.random_range(0..3u8));
            Record { arrival_ns: t, device: 0, offset_bytes: offset, size_bytes: size, op, hint }
        })
        .collect()
}

/// When the swarm draws a built-in design (`BuiltIn::swarm_draw`): before the host-side
/// draws (DRAM cache, link, flows) or after them, which decide what some designs may be
/// combined with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SwarmPhase {
    BeforeHost,
    AfterHost,
}

/// The drive without the features the designs that reprogram pages in place (scrubbing,
/// WOM codes) need (their `NEEDS`): a page map, no partial programs, super-pages or
/// hybrid policies. (Gordon's write points, which compose with them, stay.)
pub(crate) fn plain_for_reprogramming(c: &Config) -> Config {
    let mut plain = c.clone();
    plain.ftl.mapping = Mapping::Page;
    plain.ftl.partial_program_updates = false;
    plain.ftl.super_page_channels = 1;
    plain.ftl.super_page_dies = 1;
    plain.hybrid = Hybrid { slc_planes: 0, ..plain.hybrid };
    plain.hybrid.layout = SlcLayout::Plane;
    plain.hybrid.allocation = HybridAllocation::Pf;
    plain.hybrid.migration = SlcMigration::Gc;
    plain
}

/// The roll the scrubbing and WOM draws share (from one stream, so a drive gets at most
/// one of them): scrubbing below 0.25, WOM codes from 0.25 to 0.4.
pub(crate) fn reprogramming_roll(seed: u64) -> (f64, Pcg64Mcg) {
    let mut rng = Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-scrub-wom"));
    let roll: f64 = rng.random();
    (roll, rng)
}

fn describe(c: &Config, records: usize) -> String {
    let g = &c.geometry;
    format!(
        "{:?} {}x{}x{}x{} planes, {} blocks x {} pages, {:?}, pa={}, slc_blocks={}, hybrid={:?}/{:?}/{:?}, partial={}, mapping={:?}, slc_levels={} {:?}, super_page={}x{}, victim={:?} counting {:?}, \
         gc_dest={:?}, any_address={}, retries={}, errors={}, dir={:?}, ipu={:?}/{}/{}, write_points={} {:?} gc_via_user={}, plalloc={:?}, op={:.2}, precondition={:.1}{}{}, replay={:?} qd={}, runs={}, power losses at {:?} ns (ack {:?}), \
         {} requests, cache={}, dies={:?}{}, mp_same_block={}, link_lanes={}, cmt={}, flows={}, gordon_wp={} bypass={}/{}, scrub={:?} budget {} sanitize {} B at {} ns, wom={}, harey={:?}/{:?}/{}, mango={} {:?} limit {}, power_segments={}, designs={}",
        c.flash.cell,
        g.channels,
        g.chips_per_channel,
        g.dies_per_chip,
        g.planes_per_die,
        g.blocks_per_plane,
        g.pages_per_block,
        c.flash.program_scheme,
        c.pa.scheme,
        c.ftl.slc_blocks_per_plane,
        c.hybrid.layout,
        c.hybrid.allocation,
        c.hybrid.migration,
        c.ftl.partial_program_updates,
        c.ftl.mapping,
        c.ftl.slc_levels,
        c.ftl.slc_gc_destination,
        c.ftl.super_page_channels,
        c.ftl.super_page_dies,
        c.ftl.gc_victim,
        c.ftl.gc_free_space,
        c.ftl.gc_destination,
        c.flash.multi_plane_any_address,
        c.flash.read_retries,
        if c.reliability.enabled {
            format!(
                "{:?} at {} P/E ±{} {} d",
                c.ecc.scheme, c.precondition.pe_cycles, c.precondition.pe_spread, c.precondition.retention_age_days
            )
        } else {
            "off".to_string()
        },
        c.dir.scheme,
        c.ipu.scheme,
        c.ipu.levels,
        c.ftl.slc_gc_free_fraction,
        c.ftl.user_write_points,
        c.ftl.write_point_choice,
        c.ftl.gc_through_user_write_points,
        c.ftl.plane_allocation,
        c.ftl.over_provisioning,
        c.precondition.used_fraction,
        if c.precondition.steady_state { " + steady state" } else { "" },
        if c.precondition.write_points_random_start { " + random write point starts" } else { "" },
        c.host.replay,
        c.host.queue_depth,
        c.host.runs,
        c.power.loss_at_ns,
        c.power.write_acknowledge,
        records,
        if c.cache.enabled() {
            format!(
                "{} pages {:?}/{:?} limit {} B",
                c.cache.capacity_bytes / c.geometry.page_size_bytes as u64,
                c.cache.mode,
                c.cache.flush,
                c.cache.flush_limit_bytes
            )
        } else {
            "off".to_string()
        },
        c.flash.die_scheduling,
        if c.flash.issue_on_idle_channel { " on idle channels" } else { "" },
        c.flash.multi_plane_same_block,
        c.link.lanes,
        if c.cmt.enabled() {
            format!(
                "{} B/{} per page/read {} B/{:?}",
                c.cmt.capacity_bytes, c.cmt.entries_per_translation_page, c.cmt.read_bytes, c.cmt.write_back
            )
        } else {
            "off".to_string()
        },
        if c.flows.is_empty() {
            "none".to_string()
        } else {
            let each: Vec<String> = c
                .flows
                .iter()
                .map(|f| format!("qd {} {} {:?}{:?}{:?}", f.queue_depth, f.priority.name(), f.channels, f.dies, f.planes))
                .collect();
            format!("{:?}: {}", c.arbitration.scheme, each.join("; "))
        },
        c.gordon.write_points_per_channel,
        c.ftl.read_bypass,
        c.ftl.write_combining,
        c.scrub.mode,
        c.scrub.budget_pages,
        c.scrub.sanitize_bytes,
        c.scrub.sanitize_at_ns,
        c.wom.enabled,
        c.harey.rtf,
        c.harey.page_preference,
        c.harey.rate_matching,
        c.mango.enabled,
        c.mango.gc,
        c.mango.max_skipped_spare_fraction,
        c.priority.power_segment_requests,
        serde_json::to_string(&c.designs).unwrap_or_default(),
    )
}

/// Events a case may process before it counts as a livelock. A page sub-request costs a
/// handful of events (arrival, channel and array steps, completion) plus its share of GC,
/// whose write amplification stays below 15 in every passing case (at most 20 events per
/// page); the budget allows 200 per page, so only a run that stops progressing hits it.
pub fn event_budget(case: &SwarmCase) -> u64 {
    let c = &case.config;
    let page = c.geometry.page_size_bytes as u64;
    let pages: u64 = case.records.iter().map(|r| r.size_bytes.div_ceil(page) + 1).sum();
    // Scrubbing over a small budget relocates a block per overwrite (about 8 events per
    // page moved); a sanitise command reads every block and destroys what it finds.
    let per_block = c.geometry.pages_per_block as u64;
    let mut per_page = 200;
    if c.scrub.enabled() && c.scrub.budget(c.geometry.pages_per_block) < c.geometry.pages_per_block {
        per_page += 8 * per_block;
    }
    // Scrubbing a page of multi-bit cells destroys the pages sharing its cells, which are
    // relocated first (seed 1120058, TLC: 12,207 shared pages relocated for 10,800 stale
    // copies, beside LDPC retries and a write amplification of 12.7, took 222 events a
    // page, 1.05 times the budget above; it ends, 3,740,477 events).
    if c.scrub.enabled() && c.bits_per_cell() > 1 {
        per_page += 50 * (c.bits_per_cell() as u64 - 1);
    }
    // A cached mapping table that programs its write-backs adds translation-page reads to
    // host pages and translation-page programs, and the GC they bring, to GC's victims: a
    // small drive with small translation pages runs at a write amplification of 20 and
    // more to the end (seed 70801: 1.3 times the budget above).
    if c.cmt.enabled() && c.cmt.write_back == CmtWriteBack::Program {
        per_page += 400;
    }
    let sanitize = if c.scrub.enabled() { c.geometry.physical_pages() as u64 * 20 } else { 0 };
    200_000 + sanitize + per_page * pages * c.host.runs as u64
}

/// Runs a case with invariant checking and version-tagged data verification on, and the
/// case's event budget as a livelock guard.
pub fn run_case(case: &SwarmCase) -> Result<Report, SimError> {
    let mut sim = build(&case.config, &case.records)?;
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(event_budget(case));
    Ok(sim.run()?.0)
}
