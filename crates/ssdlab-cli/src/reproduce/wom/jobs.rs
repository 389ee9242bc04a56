//! The experiments of `ssdlab reproduce wom-scrub`: the workloads (trace excerpts from
//! the manifest or the built-in list, and two synthetic ones, idle-rich and busy), the
//! drives (the `scrub-slc` and `scrub-mlc` presets of thesis §6.2.3; small WOM drives cut
//! from them), a job per table cell and what is read back from its report.

use crate::reproduce::execute;
use crate::reproduce::workloads::{load_traces, Entry, Trace};
use crate::reproduce::ReproduceArgs;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, bail, Result};
use ssdlab_core::config::{apply_overrides, Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{Op, SyntheticSpec};
use std::sync::Arc;

/// The synthetic workloads (thesis §6.2.3: "if the application allows time for background
/// operations (e.g., Build, Swap and Dev) ... when the application issues many requests
/// in quick succession (e.g., OLTP and BDB)"): random 4 KiB requests, 30% reads, in a
/// 256 MiB region (overwrites return to the blocks earlier writes filled, so budgets bite),
/// 2 ms apart (idle-rich) or 150 µs apart (busy).
pub(crate) const SYNTHETIC: [(&str, u64); 2] = [(IDLE_RICH, 2_000_000), (BUSY, 150_000)];
/// The thesis' two groups of workloads (Fig. 6.5), as a manifest's `groups` names them.
pub(crate) const IDLE_RICH: &str = "idle-rich";
pub(crate) const BUSY: &str = "busy";
const SYNTHETIC_REQUESTS: u64 = 80_000;
const HOT_BYTES: u64 = 256 << 20;

/// The built-in list over `../shared/traces`. Of the thesis' seven traces (Table 6.2) only
/// Financial is available; the others here stand in for its idle-rich and busy ones.
fn built_in() -> Vec<Entry> {
    let e = |name, file, format, role, runs| Entry { runs, ..Entry::new(name, file, format, role) };
    vec![
        e(
            "Financial",
            "umass_spc/fin1.trace",
            "flashsim",
            "UMass Financial1, as thesis Table 6.2 (50,000 requests)",
            2,
        ),
        e("hm_1", "msr_cambridge/hm_1_short.csv", "msr", "MSR Cambridge hm_1, idle-rich (not in the thesis)", 2)
            .in_group(IDLE_RICH),
        e("TPC-C", "ms_production/tpcc-small.trace", "mqsim", "MS enterprise TPC-C, busy (not in the thesis)", 3)
            .in_group(BUSY),
        e(
            "FIU mail",
            "fiu/cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines.clean.blkparse",
            "fiu",
            "FIU mail server (not in the thesis)",
            2,
        ),
    ]
}

pub(crate) fn traces(args: &ReproduceArgs) -> Result<(Vec<Trace>, String)> {
    let names: Vec<&str> = SYNTHETIC.iter().map(|s| s.0).collect();
    load_traces(args, built_in(), "wom-scrub", &names, |e, records| {
        if !records.iter().any(|r| r.op == Op::Write) {
            bail!("workload {}: scrubbing needs a trace that writes", e.name);
        }
        Ok(())
    })
}

/// A workload: a trace (index into the loaded traces) or a synthetic one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Load {
    Trace(usize),
    Synthetic(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cell {
    Slc,
    Mlc,
}

impl Cell {
    pub(crate) fn preset(self) -> &'static str {
        match self {
            Cell::Slc => "scrub-slc",
            Cell::Mlc => "scrub-mlc",
        }
    }
}

/// No scrub budget (every page of a block may be zeroed once).
pub(crate) const UNLIMITED: u32 = u32::MAX;

/// What a run does (thesis §6.2.2's three methods, and WOM codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Setting {
    Plain,
    Immediate(u32),
    /// Immediate scrubbing of the target alone (`scrub.shared_cells = false`: the ablation
    /// of the pages sharing its cells).
    Alone(u32),
    Background(u32),
    /// Scan mode, then a sanitise command of 1 GiB from the middle of the drive once the
    /// workload is done (Fig. 6.6).
    Sanitize(u32),
    /// The small WOM drive, without (false) or with (true) the code.
    WomDrive(bool),
    /// Closed-loop replay (queue depth 16), without scrubbing (`None`) or with immediate
    /// scrubbing at a budget: the run time then shows the work scrubbing adds, where an
    /// open-loop replay's run time is fixed by the arrivals.
    Closed(Option<u32>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Job {
    pub load: Load,
    pub cell: Cell,
    pub setting: Setting,
    /// WOM's sequential rewrites: passes over the logical space (0 = the workload itself).
    pub passes: u64,
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub(crate) struct Measured {
    pub write_us: f64,
    pub runtime_ns: f64,
    pub erases: f64,
    pub sanitize_s: f64,
    pub scan_s: f64,
    pub logical_pages: f64,
    pub energy_nj: f64,
    pub remnants_start: f64,
    pub remnants_end: f64,
    pub remnants_victims: f64,
    pub command: String,
}

/// The small drive of the WOM experiments: 2 dies (4 planes) of 64 blocks, empty, no
/// block summaries (the thesis' per-block arithmetic), with the spare room the code needs
/// (SLC: 43 of 64 pages hold data under it, MLC 107 of 128).
fn wom_sets(cell: Cell) -> Vec<String> {
    let op = if cell == Cell::Slc { "0.4" } else { "0.3" };
    [
        "geometry.channels=1",
        "geometry.chips_per_channel=2",
        "geometry.blocks_per_plane=64",
        "power.block_summary=false",
        "precondition.used_fraction=0",
        "host.replay=closed-loop",
        "host.queue_depth=4",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("ftl.over_provisioning={op}")])
    .collect()
}

/// The overrides of a job on its preset.
fn sets(job: &Job, logical_bytes: u64) -> Vec<String> {
    let budget = |b: u32| if b == UNLIMITED { Vec::new() } else { vec![format!("scrub.budget_pages={b}")] };
    match job.setting {
        Setting::Plain => Vec::new(),
        Setting::Immediate(b) => [vec!["scrub.mode=immediate".to_string()], budget(b)].concat(),
        Setting::Alone(b) => {
            [vec!["scrub.mode=immediate".to_string(), "scrub.shared_cells=false".to_string()], budget(b)].concat()
        }
        Setting::Background(b) => [vec!["scrub.mode=background".to_string()], budget(b)].concat(),
        Setting::Sanitize(b) => {
            let (offset, size) = sanitize_range(logical_bytes);
            [
                vec![
                    "scrub.mode=scan".to_string(),
                    format!("scrub.sanitize_offset_bytes={offset}"),
                    format!("scrub.sanitize_bytes={size}"),
                ],
                budget(b),
            ]
            .concat()
        }
        Setting::Closed(b) => {
            let mut s = vec!["host.replay=closed-loop".to_string(), "host.queue_depth=16".to_string()];
            if let Some(b) = b {
                s.push("scrub.mode=immediate".into());
                s.extend(budget(b));
            }
            s
        }
        Setting::WomDrive(on) => {
            let mut s = wom_sets(job.cell);
            if on {
                s.push("wom.enabled=true".into());
            }
            s
        }
    }
}

/// 1 GiB of logical pages from the middle of the drive (a quarter of a smaller one).
pub(crate) fn sanitize_range(logical_bytes: u64) -> (u64, u64) {
    let size = (1u64 << 30).min(logical_bytes / 4) & !4095;
    ((logical_bytes / 2 - size / 2) & !4095, size)
}

fn synthetic(which: usize, scale: f64, logical_bytes: u64) -> SyntheticSpec {
    let hot = HOT_BYTES.min(logical_bytes / 4);
    SyntheticSpec {
        read_fraction: 0.3,
        block_size_bytes: 4096,
        address_space_bytes: hot,
        start_offset_bytes: (logical_bytes / 2) & !4095,
        count: ((SYNTHETIC_REQUESTS as f64 * scale).round() as u64).max(100),
        seed: 7,
        interarrival_ns: SYNTHETIC[which].1,
        ..SyntheticSpec::default()
    }
}

fn sequential(passes: u64, logical_bytes: u64) -> SyntheticSpec {
    SyntheticSpec {
        read_fraction: 0.0,
        block_size_bytes: 4096,
        pattern: ssdlab_trace::Pattern::Sequential,
        address_space_bytes: logical_bytes,
        count: passes * (logical_bytes / 4096),
        ..SyntheticSpec::default()
    }
}

fn spec_text(s: &SyntheticSpec) -> String {
    let mut t = format!(
        "read_fraction={},count={},address_space_bytes={},start_offset_bytes={},interarrival_ns={},seed={}",
        s.read_fraction, s.count, s.address_space_bytes, s.start_offset_bytes, s.interarrival_ns, s.seed
    );
    if s.pattern == ssdlab_trace::Pattern::Sequential {
        t.push_str(",pattern=sequential");
    }
    t
}

pub(crate) fn run_job(job: &Job, traces: &[Trace], scale: f64) -> Result<Measured> {
    let base = preset(job.cell.preset()).map_err(|e| anyhow!("{e}"))?;
    let drive_sets = if let Setting::WomDrive(_) = job.setting { wom_sets(job.cell) } else { Vec::new() };
    let drive = apply_overrides(&base, &drive_sets).map_err(|e| anyhow!("{e}"))?;
    let logical = drive.logical_bytes();
    let sets = sets(job, logical);
    let mut config: Config = apply_overrides(&base, &sets).map_err(|e| anyhow!("{e}"))?;
    let mut command = format!("ssdlab run --preset {}", job.cell.preset());
    let workload = match (job.load, job.passes) {
        (_, passes) if passes > 0 => {
            let spec = sequential(passes, logical);
            command.push_str(&format!(" --synthetic {}", spec_text(&spec)));
            Workload::Synthetic(spec)
        }
        (Load::Synthetic(k), _) => {
            let spec = synthetic(k, scale, logical);
            // (The CLI replays a --synthetic workload closed loop; this one is open loop.)
            command = format!(
                "ssdlab reproduce wom-scrub --only {}  # open loop, as: {command} --synthetic {}",
                SYNTHETIC[k].0,
                spec_text(&spec)
            );
            Workload::Synthetic(spec)
        }
        (Load::Trace(t), _) => {
            let t = &traces[t];
            let runs = ((t.entry.runs as f64 * scale).round() as u32).max(1);
            config.host.runs = runs;
            if t.entry.speed != 1.0 {
                config.host.speed_factor = t.entry.speed;
            }
            if t.entry.replay.as_deref() == Some("closed-loop") {
                config.host.replay = ReplayMode::ClosedLoop;
                config.host.queue_depth = t.entry.queue_depth.unwrap_or(16);
            }
            command.push_str(&format!(" --trace {} --format {} --runs {runs}", t.entry.file, t.entry.format));
            Workload::Records { name: t.entry.name.clone(), records: Arc::new(t.records.clone()) }
        }
    };
    for s in &sets {
        command.push_str(&format!(" --set {s}"));
    }
    let outcome = execute(Prepared { config, workload, import: None }, None, false, true)?;
    let r = &outcome.report;
    let s = r.scrub.clone().unwrap_or_default();
    let sanitize = s.sanitize.first().cloned().unwrap_or_default();
    Ok(Measured {
        write_us: r.write.latency_ns.mean / 1e3,
        runtime_ns: r.simulated_ns as f64,
        erases: r.gc.erases as f64,
        sanitize_s: sanitize.latency_ns as f64 / 1e9,
        scan_s: sanitize.scan_read_ns as f64 / 1e9,
        logical_pages: (r.flash.user_page_programs + r.flash.gc_page_programs) as f64,
        energy_nj: r.energy_nj.program + r.energy_nj.erase,
        remnants_start: s.remnants_at_start as f64,
        remnants_end: s.remnants_at_end as f64,
        remnants_victims: s.remnants_at_end_in_gc_victims as f64,
        command,
    })
}
