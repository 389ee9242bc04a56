//! The experiments of `ssdlab reproduce harey-tortoise`: the drives (the
//! `harey-tortoise-mlc` preset cut to the microbenchmark's 4 channels × 2 dies and, for
//! the workloads, 8 channels × 2 dies; 1024 blocks per die instead of 2048), the policies
//! (baseline, All-Fast, weak/strong RTF, rate matching with FGC / SGC), the burst
//! workloads (§7.3.2's microbenchmark, §7.3.3's pulses of sustained load, Table 7.2's
//! traces and stand-ins), a job per table cell and what is read back from its report.

use crate::reproduce::execute;
use crate::reproduce::workloads::{load_traces, Entry, Trace, STAND_INS};
use crate::reproduce::ReproduceArgs;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, Result};
use rand::{Rng, SeedableRng};
use ssdlab_core::config::{apply_overrides, Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{Op, Record};
use std::sync::Arc;

pub(crate) const PAGE: u64 = 4096;
/// §7.3.2: "writes a total of 16 MB of data".
pub(crate) const MICRO_PAGES: u64 = 4096;
/// Burst sizes of Fig. 7.6 (pages: 4 kB to 4 MB).
pub(crate) const BURSTS: [u64; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
pub(crate) const MICRO_POINTS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Idle time between bursts: "sufficient to complete all necessary GC and return all the
/// write points to fast pages" (§7.3.2).
pub(crate) const MICRO_GAP_NS: u64 = 10_000_000_000;
/// Write points of the trace and sustained runs (Figs. 7.9-7.13: 1, 8 and 32).
pub(crate) const POINTS: [u32; 3] = [1, 8, 32];
/// Dies of the microbenchmark drive (the thesis' "8 chip array").
pub(crate) const MICRO_DIES: u64 = 8;
/// §7.3.3's pulses: writes per pulse (about 5 s of the baseline's sustained rate on our
/// drive), idle time between pulses, pulses (the thesis: 80).
pub(crate) const PULSE_WRITES: u64 = 30_000;
pub(crate) const PULSE_IDLE_NS: u64 = 4_000_000_000;
pub(crate) const PULSES: u64 = 8;
/// Requests the host keeps outstanding during a pulse ("infinite load").
pub(crate) const PULSE_DEPTH: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Drive {
    Micro,
    Work,
}

/// FGC, SGC or none, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Pref {
    None,
    Fgc,
    Sgc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Policy {
    /// One write point per die, written in order; GC through it.
    Baseline,
    /// §7.3.4: half-capacity SLC-speed array: 64-page blocks, fast latencies only.
    AllFast,
    Rtf {
        strong: bool,
        wp: u32,
    },
    /// Rate matching with a page preference (§7.3.3); `Pref::None` is its baseline.
    Rm {
        pref: Pref,
        wp: u32,
    },
}

impl Policy {
    pub(crate) fn name(self) -> String {
        match self {
            Policy::Baseline => "baseline".into(),
            Policy::AllFast => "All-Fast".into(),
            Policy::Rtf { strong, wp } => format!("{}RTF-{wp}", if strong { "s" } else { "w" }),
            Policy::Rm { pref: Pref::None, wp } => format!("RM-{wp}"),
            Policy::Rm { pref: Pref::Fgc, wp } => format!("FGC-{wp}"),
            Policy::Rm { pref: Pref::Sgc, wp } => format!("SGC-{wp}"),
        }
    }
}

/// The workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Load {
    /// Fig. 7.6: 16 MB of uniformly random page writes in bursts of this many pages,
    /// each after the last has completed and a 1 s gap.
    Micro(u64),
    /// Fig. 7.9: pulses of sustained random page writes with idle gaps.
    Sustained,
    /// A trace (manifest or built-in list) or a stand-in, replayed as bursts.
    Trace(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Job {
    pub drive: Drive,
    pub policy: Policy,
    pub load: Load,
}

pub(crate) fn sets(job: &Job) -> Vec<String> {
    let mut s: Vec<String> = match job.drive {
        Drive::Micro => vec!["geometry.channels=4".into(), "geometry.dies_per_chip=1".into()],
        Drive::Work => vec!["geometry.channels=8".into(), "geometry.dies_per_chip=1".into()],
    };
    s.push("geometry.blocks_per_plane=1024".into());
    s.push("ftl.gc_through_user_write_points=true".into());
    match job.policy {
        Policy::Baseline => {}
        Policy::AllFast => s.extend(
            [
                "geometry.pages_per_block=64",
                "flash.cell=\"slc\"",
                "flash.read_latency_ns=[27000]",
                "flash.program_latency_ns=[253000]",
                "energy.read_nj=[2049.3]",
                "energy.program_nj=[23959.1]",
            ]
            .map(String::from),
        ),
        Policy::Rtf { strong, wp } => {
            s.push(format!("ftl.user_write_points={wp}"));
            s.push(format!("harey.rtf=\"{}\"", if strong { "strong" } else { "weak" }));
        }
        Policy::Rm { pref, wp } => {
            s.push(format!("ftl.user_write_points={wp}"));
            s.push("harey.rate_matching=true".into());
            let p = match pref {
                Pref::None => "none",
                Pref::Fgc => "fgc",
                Pref::Sgc => "sgc",
            };
            s.push(format!("harey.page_preference=\"{p}\""));
        }
    }
    s
}

/// The built-in trace list: Financial (Table 7.2's own) and two other shipped excerpts.
fn built_in() -> Vec<Entry> {
    vec![
        Entry::new("Financial", "umass_spc/fin1.trace", "flashsim", "UMass Financial1 (Table 7.2)"),
        Entry::new("hm_1", "msr_cambridge/hm_1_short.csv", "msr", "MSR Cambridge hm_1 (not in §7.3)"),
        Entry::new("TPC-C", "ms_production/tpcc-small.trace", "mqsim", "MS enterprise TPC-C (not in §7.3)"),
    ]
}

pub(crate) fn traces(args: &ReproduceArgs) -> Result<(Vec<Trace>, String)> {
    let names: Vec<&str> = STAND_INS.iter().map(|s| s.0).collect();
    load_traces(args, built_in(), "harey-tortoise", &names, |_, _| Ok(()))
}

/// The thesis' gap threshold: the trace's mean time between records.
pub(crate) fn mean_gap(records: &[Record]) -> u64 {
    let (first, last) = records.iter().fold((u64::MAX, 0), |(a, b), r| (a.min(r.arrival_ns), b.max(r.arrival_ns)));
    ((last.saturating_sub(first)) / (records.len() as u64 - 1).max(1)).max(1)
}

/// The workloads a job can run on: the loaded traces, then the stand-ins.
pub(crate) struct Workloads {
    pub traces: Vec<Trace>,
    /// Each run stand-in's row of `STAND_INS` and its records.
    pub stand_ins: Vec<(usize, Vec<Record>)>,
}

impl Workloads {
    pub(crate) fn name(&self, i: usize) -> String {
        if i < self.traces.len() {
            self.traces[i].entry.name.clone()
        } else {
            format!("{} (stand-in)", STAND_INS[self.stand_ins[i - self.traces.len()].0].0)
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.traces.len() + self.stand_ins.len()
    }

    fn records(&self, i: usize) -> (Arc<Vec<Record>>, u64) {
        if i < self.traces.len() {
            let r = &self.traces[i].records;
            (Arc::new(r.clone()), mean_gap(r))
        } else {
            let (row, records) = &self.stand_ins[i - self.traces.len()];
            (Arc::new(records.clone()), STAND_INS[*row].1)
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Measured {
    /// Mean burst write bandwidth (MiB/s, §7.3.4's measure).
    pub write_mib_s: f64,
    pub erases: f64,
    /// User page writes on slow pages.
    pub user_slow: u64,
    pub user_fast_share: f64,
    pub gc_fast_share: f64,
    pub command: String,
}

/// `count` one-page writes to uniformly random logical pages, `per_burst` at a time, the
/// bursts `gap_ns` apart in trace time (the microbenchmark's bursts, the sustained pulses).
fn random_writes(count: u64, per_burst: u64, gap_ns: u64, logical_pages: u64) -> Vec<Record> {
    let rng = &mut rand_pcg::Pcg64Mcg::seed_from_u64(3);
    (0..count)
        .map(|i| Record {
            arrival_ns: (i / per_burst) * gap_ns,
            device: 0,
            offset_bytes: rng.random_range(0..logical_pages) * PAGE,
            size_bytes: PAGE,
            op: Op::Write,
            hint: None,
        })
        .collect()
}

pub(crate) fn run_job(job: &Job, w: &Workloads, scale: f64) -> Result<Measured> {
    let base = preset("harey-tortoise-mlc").map_err(|e| anyhow!("{e}"))?;
    let sets = sets(job);
    let mut config: Config = apply_overrides(&base, &sets).map_err(|e| anyhow!("{e}"))?;
    config.host.replay = ReplayMode::Burst;
    let logical = config.logical_pages();
    let mut command = "ssdlab run --preset harey-tortoise-mlc".to_string();
    let (records, name) = match job.load {
        Load::Micro(b) => {
            config.host.burst_gap_ns = 1_000_000;
            let pages = ((MICRO_PAGES as f64 * scale).round() as u64).max(b);
            command = format!("ssdlab reproduce harey-tortoise  # Fig. 7.6, burst {b}, as: {command} --burst");
            (Arc::new(random_writes(pages, b, MICRO_GAP_NS, logical)), format!("micro-{b}"))
        }
        Load::Sustained => {
            config.host.burst_gap_ns = 1_000_000;
            config.host.queue_depth = PULSE_DEPTH;
            let per = ((PULSE_WRITES as f64 * scale).round() as u64).max(1000);
            command = format!("ssdlab reproduce harey-tortoise  # Fig. 7.9, as: {command} --burst");
            (Arc::new(random_writes(per * PULSES, per, PULSE_IDLE_NS, logical)), "sustained".to_string())
        }
        Load::Trace(i) => {
            let (records, gap) = w.records(i);
            config.host.burst_gap_ns = gap;
            if i < w.traces.len() {
                let e = &w.traces[i].entry;
                command.push_str(&format!(" --trace {} --format {} --burst", e.file, e.format));
            } else {
                command = format!("ssdlab reproduce harey-tortoise --only {}  # as: {command} --burst", w.name(i));
            }
            command.push_str(&format!(" --burst-gap-us {}", gap as f64 / 1000.0));
            (records, w.name(i))
        }
    };
    for s in &sets {
        command.push_str(&format!(" --set '{s}'"));
    }
    let workload = Workload::Records { name, records };
    let outcome = execute(Prepared { config, workload, import: None }, None, false, true)?;
    let r = &outcome.report;
    let b = r.burst.clone().unwrap_or_default();
    let h = r.harey.clone().unwrap_or_default();
    let user_slow = if r.harey.is_some() {
        h.user_slow_pages
    } else {
        r.flash.programs_by_page_type.iter().skip(1).sum::<u64>().min(r.flash.user_page_programs)
    };
    Ok(Measured {
        write_mib_s: b.mean_bandwidth_mib_s,
        erases: r.gc.erases as f64,
        user_slow,
        user_fast_share: h.user_fast_share,
        gc_fast_share: h.gc_fast_share,
        command,
    })
}
