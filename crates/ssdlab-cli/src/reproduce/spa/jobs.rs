//! The experiments of `ssdlab reproduce spa-ssd` (`mod.rs` writes the report):
//! the SPA-SSD figures' parameters, one simulation job per table cell, the shipped Fig. 7
//! traces, and what is read back from a run's time series.

use crate::output::Outcome;
use crate::reproduce::execute;
use crate::reproduce::workloads::{manifest_entries, Entry};
use crate::reproduce::ReproduceArgs;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, bail, Result};
use ssdlab_core::config::apply_overrides;
use ssdlab_core::presets::preset;
use ssdlab_core::SeriesRow;
use ssdlab_trace::{Format, SyntheticSpec};
use std::fmt::Write as _;

pub(crate) const PRESET: &str = "spa-ssd-hybrid";

/// Fig. 3 parallelism: (chips per channel, dies per chip) on 8 channels.
pub(crate) const FIG3_GEOMETRY: &[(u32, u32)] = &[(2, 1), (4, 1), (3, 2), (4, 2), (4, 3), (4, 4)];
pub(crate) const FIG3_QL: &[u32] = &[128, 256];
/// Fig. 3 allocation variants: (name, overrides).
pub(crate) const FIG3_VARIANTS: &[(&str, &[&str])] = &[
    ("CWDP static", &["ftl.slc_blocks_per_plane=0"]),
    ("page-set first", &["ftl.slc_blocks_per_plane=0", "hybrid.allocation=tpj"]),
];
pub(crate) const FIG5_ALLOC: &[(&str, &str)] = &[("PF-PA", "pf"), ("TW-PA", "tw"), ("HC-PA", "hc"), ("TPJ-PA", "tpj")];
pub(crate) const FIG6_QL: &[u32] = &[16, 32, 64, 128, 256];
pub(crate) const FIG6_MIGRATION: &[(&str, &str)] = &[("BG-DM", "bg"), ("QPC-DM", "qpc")];
/// Fig. 7 devices: (name, allocation, migration), SPA-SSD last (the normalisation base).
pub(crate) const FIG7_SCHEMES: &[(&str, &str, &str)] =
    &[("TW&BG", "tw", "bg"), ("HC&BG", "hc", "bg"), ("PF&BG", "pf", "bg"), ("SPA-SSD", "tpj", "qpc")];
/// Fig. 7 starting states of the SLC cache: (name, overrides).
/// The third is the paper's regime (issue 16 item 4): the device never idle (closed loop),
/// so BG-DM never migrates and the baselines' cache stays full.
pub(crate) const FIG7_STARTS: &[(&str, &[&str])] = &[
    ("SLC full at the start", &["precondition.slc_filled=true"]),
    ("SLC empty at the start", &[]),
    (
        "SLC full, no idle time: closed loop at QD 16",
        &["precondition.slc_filled=true", "host.replay=closed-loop", "host.queue_depth=16"],
    ),
];
/// File-name slugs of the Fig. 7 figures, by start.
pub(crate) const FIG7_SLUGS: [&str; 3] = ["slc-full", "slc-empty", "slc-full-closed-loop"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fig {
    F3 { ql: usize, geometry: usize, variant: usize },
    F5 { alloc: usize },
    F6 { ql: usize, migration: usize },
    F7 { trace: usize, scheme: usize, start: usize },
}

pub(crate) struct Job {
    pub(crate) fig: Fig,
    pub(crate) sets: Vec<String>,
    /// Synthetic 8 KiB writes: (count, closed-loop queue length); else a trace.
    pub(crate) synthetic: Option<(u64, u32)>,
    pub(crate) trace: Option<usize>,
    pub(crate) series_ns: u64,
}

impl Job {
    /// The equivalent `ssdlab run` command.
    pub(crate) fn command(&self, traces: &[SpaTrace]) -> String {
        let mut cmd = format!("ssdlab run --preset {PRESET}");
        for s in &self.sets {
            write!(cmd, " --set {s}").expect("string");
        }
        if let Some((count, ql)) = self.synthetic {
            write!(cmd, " --closed-loop {ql} --synthetic read_fraction=0,block_size_bytes=8192,count={count}")
                .expect("string");
        }
        if let Some(t) = self.trace {
            let t = &traces[t];
            write!(cmd, " --trace $SSDLAB_TRACES/{} --format {}", t.rel, t.format.name()).expect("string");
        }
        if self.series_ns > 0 {
            write!(cmd, " --interval-ms {}", self.series_ns / 1_000_000).expect("string");
        }
        cmd
    }
}

pub(crate) struct SpaTrace {
    pub(crate) name: String,
    /// Relative to `--traces`.
    pub(crate) rel: String,
    pub(crate) format: Format,
    pub(crate) what: String,
}

/// Fig. 7's traces: the manifest's of `--traces` (name, file, format, role; the replay
/// options do not apply: Fig. 7 replays each once, open loop, in each regime), else the
/// shipped excerpts.
pub(crate) fn spa_traces(args: &ReproduceArgs) -> Result<Vec<SpaTrace>> {
    let e = Entry::new;
    let entries = match manifest_entries(args)? {
        Some(entries) => entries,
        None => vec![
            e(
                "Fin",
                "umass_spc/example.ascii",
                "ssdsim",
                "UMass Financial1, first 10,000 requests (59% writes), 260 s",
            ),
            e(
                "Fin1-50k",
                "umass_spc/fin1.trace",
                "flashsim",
                "UMass Financial1, requests 3..50,002 (42% writes), 853 s",
            ),
            e(
                "hm_0",
                "msr_cambridge/msr-cambridge1-sample.csv",
                "msr",
                "MSR Cambridge hm_0 official sample, 1,000 requests (49% writes), 127 s",
            ),
            e(
                "hm_1",
                "msr_cambridge/hm_1_short.csv",
                "msr",
                "MSR Cambridge hm_1, first 11,067 requests (22% writes), 26.8 h",
            ),
            e(
                "TPC-C",
                "ms_production/tpcc-small.trace",
                "mqsim",
                "MS enterprise TPC-C excerpt, 6,999 requests (37% writes) in 0.14 s",
            ),
        ],
    };
    entries
        .into_iter()
        .map(|e| {
            let format: Format = e.format.parse().map_err(|err| anyhow!("workload {}: format: {err}", e.name))?;
            Ok(SpaTrace { name: e.name, rel: e.file, format, what: e.role })
        })
        .collect()
}

pub(crate) fn sets(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

pub(crate) fn jobs(args: &ReproduceArgs, figs: &[&str], traces: &[usize]) -> Vec<Job> {
    let count = |base: f64| ((base * args.scale).round() as u64).max(1000);
    let want = |f: &str| figs.contains(&f);
    let mut list = Vec::new();
    if want("fig3") {
        for (qi, &ql) in FIG3_QL.iter().enumerate() {
            for (gi, &(chips, dies)) in FIG3_GEOMETRY.iter().enumerate() {
                for (vi, (_, extra)) in FIG3_VARIANTS.iter().enumerate() {
                    let mut s = sets(extra);
                    s.push(format!("geometry.chips_per_channel={chips}"));
                    s.push(format!("geometry.dies_per_chip={dies}"));
                    list.push(Job {
                        fig: Fig::F3 { ql: qi, geometry: gi, variant: vi },
                        sets: s,
                        synthetic: Some((count(200_000.0), ql)),
                        trace: None,
                        series_ns: 0,
                    });
                }
            }
        }
    }
    if want("fig5") {
        // Windows of 2 s at full scale (the SLC stage of TW-PA lasts about 6 s).
        let window = ((2e9 * args.scale.min(1.0)) as u64 / 100_000_000).max(1) * 100_000_000;
        for (ai, (_, alloc)) in FIG5_ALLOC.iter().enumerate() {
            let s = sets(&["hybrid.slc_planes=16", &format!("hybrid.allocation={alloc}"), "hybrid.migration=bg"]);
            list.push(Job {
                fig: Fig::F5 { alloc: ai },
                sets: s,
                synthetic: Some((count(2_000_000.0), 256)),
                trace: None,
                series_ns: window,
            });
        }
    }
    if want("fig6") {
        for (qi, &ql) in FIG6_QL.iter().enumerate() {
            for (mi, (_, migration)) in FIG6_MIGRATION.iter().enumerate() {
                let s = sets(&[
                    "precondition.slc_filled=true",
                    "hybrid.allocation=tpj",
                    &format!("hybrid.migration={migration}"),
                ]);
                list.push(Job {
                    fig: Fig::F6 { ql: qi, migration: mi },
                    sets: s,
                    synthetic: Some((count(400_000.0), ql)),
                    trace: None,
                    series_ns: 100_000_000,
                });
            }
        }
    }
    if want("fig7") {
        for &ti in traces {
            for (si, (_, alloc, migration)) in FIG7_SCHEMES.iter().enumerate() {
                for (bi, (_, start)) in FIG7_STARTS.iter().enumerate() {
                    let mut s = sets(start);
                    s.push(format!("hybrid.allocation={alloc}"));
                    s.push(format!("hybrid.migration={migration}"));
                    list.push(Job {
                        fig: Fig::F7 { trace: ti, scheme: si, start: bi },
                        sets: s,
                        synthetic: None,
                        trace: Some(ti),
                        series_ns: 0,
                    });
                }
            }
        }
    }
    list
}

pub(crate) fn run_job(job: &Job, traces_dir: &std::path::Path, traces: &[SpaTrace]) -> Result<Outcome> {
    let base = preset(PRESET).map_err(|e| anyhow!("{e}"))?;
    let mut config = apply_overrides(&base, &job.sets).map_err(|e| anyhow!("{e}"))?;
    config.output.series_interval_ns = job.series_ns;
    if let Some((_, ql)) = job.synthetic {
        // As `--closed-loop QL`.
        config.host.replay = ssdlab_core::config::ReplayMode::ClosedLoop;
        config.host.queue_depth = ql;
    }
    let workload = match (job.synthetic, job.trace) {
        (Some((count, _)), _) => Workload::Synthetic(
            SyntheticSpec { read_fraction: 0.0, block_size_bytes: 8192, count, seed: 1, ..SyntheticSpec::default() }
                .resolve_address_space(config.logical_bytes()),
        ),
        (None, Some(t)) => Workload::Trace {
            path: traces_dir.join(&traces[t].rel),
            format: traces[t].format,
            note: String::new(),
            options: Default::default(),
        },
        (None, None) => bail!("job without a workload"),
    };
    let mut outcome = execute(Prepared { config, workload, import: None }, None, false, true)?;
    // The figures line up rows of several runs by interval: one row per interval.
    outcome.series = crate::output::unfold_series(&outcome.series);
    Ok(outcome)
}

/// Write throughput (MiB/s) over a set of series rows.
pub(crate) fn rows_mib_s<'a>(rows: impl Iterator<Item = &'a SeriesRow>) -> Option<f64> {
    let (mut bytes, mut ns) = (0u64, 0u64);
    for r in rows {
        bytes += r.write_bytes;
        ns += r.end_ns - r.start_ns;
    }
    (ns > 0).then(|| bytes as f64 / (ns as f64 / 1e9) / 1048576.0)
}

/// Fig. 5 stages: (SLC stage, TLC stage) throughput. A window belongs to the SLC stage
/// when SLC pages are still free at its end, to the TLC stage when it programmed no user
/// page into SLC; the window in which the SLC ran out and the last (draining) window are
/// left out.
pub(crate) fn stages(series: &[SeriesRow]) -> (Option<f64>, Option<f64>) {
    let body = &series[..series.len().saturating_sub(1)];
    let slc = rows_mib_s(body.iter().filter(|r| r.slc_free_pages > 0));
    let tlc = rows_mib_s(body.iter().filter(|r| r.slc_free_pages == 0 && r.slc_user_pages == 0));
    (slc, tlc)
}

/// Throughput (MiB/s) until 95% of the writes completed: leaves out the closed loop's
/// draining tail.
pub(crate) fn throughput_95(series: &[SeriesRow], total_writes: u64) -> f64 {
    let (mut writes, mut bytes) = (0u64, 0u64);
    for r in series {
        writes += r.writes;
        bytes += r.write_bytes;
        if writes * 100 >= total_writes * 95 {
            return bytes as f64 / (r.end_ns as f64 / 1e9) / 1048576.0;
        }
    }
    0.0
}

pub(crate) fn opt(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |v| format!("{v:.0}"))
}
