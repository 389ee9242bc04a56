//! The experiments of `ssdlab reproduce gordon`: the drives (the `gordon` presets cut to a
//! quarter of the array, planes folded into 4 KiB pages for the super-page sweep), the
//! workloads (thesis §5.3's traces of random accesses, sequential streams, the "8 KB then
//! 120 KB" pattern the thesis found in its applications, and trace excerpts from the
//! manifest or the built-in list), a job per table cell and what is read back from its
//! report.

use crate::reproduce::execute;
use crate::reproduce::workloads::{load_traces, Entry, Trace};
use crate::reproduce::ReproduceArgs;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, Result};
use ssdlab_core::config::{apply_overrides, Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{Op, Pattern, Record, SyntheticSpec};
use std::sync::Arc;

/// Thesis §5.3: "traces of 200,000 random accesses".
pub(crate) const ACCESSES: u64 = 200_000;
/// Requests in flight (closed loop; the thesis does not give its queue depth).
pub(crate) const QUEUE_DEPTH: u32 = 32;
/// Write points per bus in the super-page sweep (thesis §5.1: the 1 → 4 experiment's top;
/// a horizontal stripe's buses act as one wide bus, §5.1 "effectively creates a wider,
/// high-bandwidth bus").
pub(crate) const SWEEP_WRITE_POINTS: u32 = 4;

/// The drives: Table 5.1's parts and buses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Drive {
    Slc133,
    Slc40,
    Slc400,
    Mlc133,
}

impl Drive {
    pub(crate) fn preset(self) -> &'static str {
        match self {
            Drive::Slc133 => "gordon",
            Drive::Slc40 => "gordon-40mhz",
            Drive::Slc400 => "gordon-400mhz",
            Drive::Mlc133 => "gordon-mlc",
        }
    }
}

/// What a job runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Load {
    /// Random accesses of `kb` KiB (0 = sizes drawn from 2–256 KiB), reads or writes.
    Random { kb: u32, read: bool },
    /// A sequential stream of `kb` KiB accesses.
    Sequential { kb: u32, read: bool },
    /// The applications' pattern (thesis §5.3): at a random 128 KiB-aligned region an
    /// 8 KiB access then a 120 KiB access to the rest, read with probability `read_pct`%.
    Pairs { read_pct: u32 },
    /// A trace of the manifest or the built-in list, replayed closed loop.
    Trace(usize),
}

/// The application-level workloads (Figs. 5.3–5.4): read- and write-intensive pattern mixes.
pub(crate) const PAIRS: [(&str, u32); 2] = [("pairs-read", 90), ("pairs-write", 10)];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Job {
    pub drive: Drive,
    /// Mapping unit in KiB: 2 = the preset's own 2 KiB pages on two planes; 4 and up = the
    /// planes folded into 4 KiB pages, ganged into super-pages of this size.
    pub page_kb: u32,
    /// Write points per bus (per bus group of a horizontal stripe); 0 = off.
    pub write_points: u32,
    pub bypass: bool,
    pub load: Load,
}

/// §5.3's synthetic trace: random writes of sizes drawn from 2–256 KiB.
pub(crate) const MIX_WRITES: Load = Load::Random { kb: 0, read: false };

impl Job {
    /// A run of the super-page sweep: the 133 MHz SLC drive, `SWEEP_WRITE_POINTS` per bus.
    pub(crate) fn sweep(page_kb: u32, bypass: bool, load: Load) -> Job {
        Job { drive: Drive::Slc133, page_kb, write_points: SWEEP_WRITE_POINTS, bypass, load }
    }

    /// Random 2–256 KiB writes with `k` write points per bus (0 = off), no bypassing.
    pub(crate) fn write_points(page_kb: u32, k: u32) -> Job {
        Job { drive: Drive::Slc133, page_kb, write_points: k, bypass: false, load: MIX_WRITES }
    }

    /// A run of the bus-speed and MLC comparison: 64 KiB pages with bypassing.
    pub(crate) fn on(drive: Drive, load: Load) -> Job {
        Job { drive, page_kb: 64, write_points: SWEEP_WRITE_POINTS, bypass: true, load }
    }
}

/// The overrides that fold a die's two 2 KiB planes into one 4 KiB page and gang super-pages
/// of `kb` KiB (none below 4 KiB: the preset's own pages).
pub(crate) fn fold_sets(kb: u32) -> Vec<String> {
    if kb < 4 {
        return Vec::new();
    }
    let (buses, dies) = stripe(kb);
    vec![
        "geometry.planes_per_die=1".to_string(),
        "geometry.page_size_bytes=4096".to_string(),
        format!("ftl.super_page_channels={buses}"),
        format!("ftl.super_page_dies={dies}"),
    ]
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct Measured {
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    /// Bytes moved per simulated second, both directions.
    pub mb_s: f64,
    pub erases: f64,
    pub merged_reads: u64,
    pub buffer_reads: u64,
    pub combined_writes: u64,
    pub command: String,
}

/// Horizontal first (up to the 4 buses), then vertical (thesis §5.3: "For super-pages with
/// four or fewer pages, we use horizontal striping, but going beyond four requires vertical
/// striping as well"): (buses, dies per bus) of a super-page of `kb` KiB in 4 KiB pages.
pub(crate) fn stripe(kb: u32) -> (u32, u32) {
    let pages = (kb / 4).max(1);
    let buses = pages.min(4);
    (buses, pages / buses)
}

/// The overrides of a job's drive on its preset: a quarter of Gordon's 256 GiB array (64
/// GiB raw, so that 200,000 accesses of up to 256 KiB fit without cleaning), folded and
/// striped for `page_kb` ≥ 4, with the job's write points and bypassing.
pub(crate) fn sets(job: &Job) -> Vec<String> {
    let mut s = Vec::new();
    let mlc = job.drive == Drive::Mlc133;
    // (MLC blocks hold twice the pages: half the blocks for the same capacity.)
    let blocks = if mlc { 2048 } else { 4096 };
    s.push(format!("geometry.blocks_per_plane={blocks}"));
    s.extend(fold_sets(job.page_kb));
    // (Gangs per bus group: a write point per gang at most.)
    let view_dies = if job.page_kb >= 4 { 16 / stripe(job.page_kb).1 } else { 16 };
    if job.write_points > 0 {
        s.push(format!("gordon.write_points_per_channel={}", job.write_points.min(view_dies)));
    }
    if job.bypass {
        s.extend(["ftl.read_bypass=true".to_string(), "ftl.write_combining=true".to_string()]);
    }
    // (Reads find data without a full drive: the pages a run reads before writing them are
    // placed on flash before it, `host.unwritten_reads = "precondition"`, the default.)
    s
}

fn spec(load: Load, scale: f64, logical_bytes: u64) -> SyntheticSpec {
    let count = ((ACCESSES as f64 * scale).round() as u64).max(200);
    let (kb, read, pattern) = match load {
        Load::Random { kb, read } => (kb, read, Pattern::Random),
        Load::Sequential { kb, read } => (kb, read, Pattern::Sequential),
        _ => unreachable!("synthetic loads only"),
    };
    let (block, max) = if kb == 0 { (2048, 256 << 10) } else { (kb as u64 * 1024, 0) };
    SyntheticSpec {
        read_fraction: if read { 1.0 } else { 0.0 },
        block_size_bytes: block,
        block_size_max_bytes: max,
        align_bytes: 2048,
        pattern,
        address_space_bytes: logical_bytes & !((256 << 10) - 1),
        count,
        seed: 5,
        ..SyntheticSpec::default()
    }
}

fn spec_text(s: &SyntheticSpec) -> String {
    let mut t = format!(
        "read_fraction={},block_size_bytes={},align_bytes=2048,count={},address_space_bytes={},seed={}",
        s.read_fraction, s.block_size_bytes, s.count, s.address_space_bytes, s.seed
    );
    if s.block_size_max_bytes > 0 {
        t.push_str(&format!(",block_size_max_bytes={}", s.block_size_max_bytes));
    }
    if s.pattern == Pattern::Sequential {
        t.push_str(",pattern=sequential");
    }
    t
}

/// The applications' pattern: `ACCESSES / 2` pairs, an 8 KiB access at a random 128 KiB
/// boundary then the 120 KiB after it, the pair read or written.
pub(crate) fn pairs(read_pct: u32, scale: f64, logical_bytes: u64) -> Vec<Record> {
    use rand::{Rng, SeedableRng};
    let rng = &mut rand_pcg::Pcg64Mcg::seed_from_u64(11 + read_pct as u64);
    let regions = logical_bytes / (128 << 10);
    let n = ((ACCESSES as f64 * scale / 2.0).round() as u64).max(100);
    let mut out = Vec::with_capacity(2 * n as usize);
    for _ in 0..n {
        let op = if rng.random_range(0..100) < read_pct { Op::Read } else { Op::Write };
        let at = rng.random_range(0..regions) * (128 << 10);
        for (offset_bytes, size_bytes) in [(at, 8 << 10), (at + (8 << 10), 120 << 10)] {
            out.push(Record { arrival_ns: 0, device: 0, offset_bytes, size_bytes, op, hint: None });
        }
    }
    out
}

/// The built-in trace list (Fig. 5.3–5.4's applications are not available: these stand in,
/// replayed closed loop, not in the thesis).
fn built_in() -> Vec<Entry> {
    let e = |name, file, format, role| Entry {
        replay: Some("closed-loop".into()),
        queue_depth: Some(QUEUE_DEPTH),
        ..Entry::new(name, file, format, role)
    };
    vec![
        e("Financial", "umass_spc/fin1.trace", "flashsim", "UMass Financial1 (OLTP; not in Ch. 5)"),
        e("hm_1", "msr_cambridge/hm_1_short.csv", "msr", "MSR Cambridge hm_1 (not in Ch. 5)"),
        e("TPC-C", "ms_production/tpcc-small.trace", "mqsim", "MS enterprise TPC-C (not in Ch. 5)"),
        e(
            "FIU mail",
            "fiu/cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines.clean.blkparse",
            "fiu",
            "FIU mail server (not in Ch. 5)",
        ),
    ]
}

pub(crate) fn traces(args: &ReproduceArgs) -> Result<(Vec<Trace>, String)> {
    let names: Vec<&str> = PAIRS.iter().map(|p| p.0).collect();
    load_traces(args, built_in(), "gordon", &names, |_, _| Ok(()))
}

pub(crate) fn run_job(job: &Job, traces: &[Trace], scale: f64) -> Result<Measured> {
    let base = preset(job.drive.preset()).map_err(|e| anyhow!("{e}"))?;
    let sets = sets(job);
    let mut config: Config = apply_overrides(&base, &sets).map_err(|e| anyhow!("{e}"))?;
    config.host.replay = ReplayMode::ClosedLoop;
    config.host.queue_depth = QUEUE_DEPTH;
    let logical = config.logical_bytes();
    let mut command = format!("ssdlab run --preset {}", job.drive.preset());
    let workload = match job.load {
        Load::Random { .. } | Load::Sequential { .. } => {
            let spec = spec(job.load, scale, logical);
            command.push_str(&format!(" --synthetic {} --closed-loop {QUEUE_DEPTH}", spec_text(&spec)));
            Workload::Synthetic(spec)
        }
        Load::Pairs { read_pct } => {
            let name = PAIRS.iter().find(|p| p.1 == read_pct).map_or("pairs", |p| p.0);
            command = format!("ssdlab reproduce gordon --only {name}  # the pattern workload, as: {command}");
            Workload::Records { name: name.into(), records: Arc::new(pairs(read_pct, scale, logical)) }
        }
        Load::Trace(t) => {
            let t = &traces[t];
            config.host.runs = ((t.entry.runs as f64 * scale).round() as u32).max(1);
            config.host.queue_depth = t.entry.queue_depth.unwrap_or(QUEUE_DEPTH);
            command.push_str(&format!(
                " --trace {} --format {} --runs {}",
                t.entry.file, t.entry.format, config.host.runs
            ));
            if t.entry.replay.as_deref() == Some("closed-loop") {
                command.push_str(&format!(" --closed-loop {}", config.host.queue_depth));
            } else {
                config.host.replay = ReplayMode::OpenLoop;
                config.host.speed_factor = t.entry.speed;
                command.push_str(&format!(" --set host.speed_factor={}", t.entry.speed));
            }
            Workload::Records { name: t.entry.name.clone(), records: Arc::new(t.records.clone()) }
        }
    };
    for s in &sets {
        command.push_str(&format!(" --set {s}"));
    }
    let outcome = execute(Prepared { config, workload, import: None }, None, false, true)?;
    let r = &outcome.report;
    let seconds = (r.simulated_ns as f64 / 1e9).max(1e-12);
    let b = r.bypass.clone().unwrap_or_default();
    Ok(Measured {
        read_mb_s: r.read.bytes as f64 / seconds / 1e6,
        write_mb_s: r.write.bytes as f64 / seconds / 1e6,
        mb_s: (r.read.bytes + r.write.bytes) as f64 / seconds / 1e6,
        erases: r.gc.erases as f64,
        merged_reads: b.merged_reads,
        buffer_reads: b.buffer_reads,
        combined_writes: b.combined_writes,
        command,
    })
}
