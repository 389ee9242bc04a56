//! `ssdlab reproduce mqsim-fast18`: MQSim's FAST'18 back-end contention experiment run
//! from MQSim's own files, unchanged (read from `../shared/validation/mqsim-fast18-backend-
//! contention/`, beside the traces folder; its repository's `fast18/backend-contention` at
//! 7ec40e3), beside MQSim's numbers (the
//! reference table of `docs/validation/mqsim.md`, compiled in). Flow 1 reads at queue depth
//! 2 while flow 2 reads the same chips at queue depths 2 … 256; the experiment's point is
//! flow 1's slowdown. Flow 1 alone is flow 2's QD-2 scenario: the same flow (MQSim aborts on
//! the flow-1-alone file, which is conflicted as published).
//!
//! This module owns the runs, the tables and the claims; the verdict functions of the
//! required checks are in `mqsim_fast18_checks.rs`.

use super::claims::{self, Claim};
use super::ReproduceArgs;
use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;
use std::fmt::Write as _;

#[path = "mqsim_fast18_checks.rs"]
mod checks;
use checks::{latencies_within, monotonic, within_factor};

const CONFIG: &str = "ssdconfig-backend-contention.xml";
const ALONE: &str = "workload-backend-contention-flow-2.xml";
const TOGETHER: &str = "workload-backend-contention-flow-1-flow-2.xml";

/// Where MQSim's files are: `validation/mqsim-fast18-backend-contention` beside the traces
/// folder (`$SSDLAB_TRACES/..`, by default `../shared`).
fn mqsim_files() -> std::path::PathBuf {
    super::default_traces().join("../validation/mqsim-fast18-backend-contention")
}
const VALIDATION: &str = include_str!("../../../../docs/validation/mqsim.md");
/// The files' `Stop_Time` (10 s), which `--scale` multiplies.
const STOP_TIME: &str = "<Stop_Time>10000000000</Stop_Time>";

/// Flow 2's queue depth in scenario `k` (1-based) of both files.
fn queue_depth(k: usize) -> u32 {
    1 << k
}

/// One row: flow 2 alone at the scenario's queue depth, and both flows together.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Row {
    pub qd: u32,
    pub alone_us: f64,
    pub alone_iops: f64,
    pub flow1_us: f64,
    pub flow1_iops: f64,
    pub flow2_us: f64,
    pub flow2_iops: f64,
}

/// MQSim's rows, from the marked table of `docs/validation/mqsim.md`.
pub(crate) fn reference(doc: &str) -> Result<Vec<Row>> {
    let start = doc.find("<!-- mqsim-fast18 reference -->").ok_or_else(|| anyhow!("no reference table"))?;
    let end = doc[start..].find("<!-- /mqsim-fast18 reference -->").ok_or_else(|| anyhow!("table not closed"))?;
    let mut rows = Vec::new();
    for line in doc[start..start + end].lines().filter(|l| l.starts_with("| ") && l.as_bytes()[2].is_ascii_digit()) {
        let v: Vec<f64> = line
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().parse::<f64>().map_err(|e| anyhow!("reference table: '{line}': {e}")))
            .collect::<Result<_>>()?;
        if v.len() != 7 {
            bail!("reference table: '{line}': 7 columns expected");
        }
        rows.push(Row {
            qd: v[0] as u32,
            alone_us: v[1],
            alone_iops: v[2],
            flow1_us: v[3],
            flow1_iops: v[4],
            flow2_us: v[5],
            flow2_iops: v[6],
        });
    }
    Ok(rows)
}

/// Each flow's (mean read latency µs, IOPS) in scenario `k` of `workload`, run from a
/// temporary copy of the files (`Stop_Time` scaled by `scale`).
fn run(dir: &std::path::Path, workload: &str, k: usize) -> Result<Vec<(f64, f64)>> {
    let args = crate::SetupArgs {
        config: Some(dir.join(CONFIG)),
        workload: Some(dir.join(workload)),
        scenario: Some(k),
        quiet: true,
        ..Default::default()
    };
    let prepared = crate::setup::prepare(&args).with_context(|| format!("{workload} scenario {k}"))?;
    let outcome = super::execute(prepared, None, false, true)?;
    Ok(outcome.report.flows.iter().map(|f| (f.read.latency_ns.mean / 1000.0, f.read.iops)).collect())
}

pub fn mqsim_fast18(args: &ReproduceArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let mqsim = reference(VALIDATION)?;
    let names: Vec<String> = (1..=8).map(|k| format!("qd{}", queue_depth(k))).collect();
    if let Some(bad) = args.only.iter().find(|o| !names.contains(o)) {
        bail!("reproduce mqsim-fast18: no scenario '{bad}'; available: {}", names.join(", "));
    }
    let chosen: Vec<usize> = (1..=8).filter(|&k| args.only.is_empty() || args.only.contains(&names[k - 1])).collect();
    let dir = tempfile::tempdir()?;
    let stop = format!("<Stop_Time>{}</Stop_Time>", (10e9 * args.scale).round().max(1.0) as u64);
    let source = mqsim_files();
    for name in [CONFIG, ALONE, TOGETHER] {
        let path = source.join(name);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!("cannot read MQSim's file {} (../shared/validation beside the traces folder)", path.display())
        })?;
        if name != CONFIG && !text.contains(STOP_TIME) {
            bail!("{}: no {STOP_TIME}: not MQSim's file as published", path.display());
        }
        std::fs::write(dir.path().join(name), text.replace(STOP_TIME, &stop))?;
    }
    // Flow 1 alone (flow 2's QD-2 scenario), then each chosen scenario alone and together.
    let mut jobs: Vec<(&str, usize)> = vec![(ALONE, 1)];
    jobs.extend(chosen.iter().filter(|&&k| k != 1).map(|&k| (ALONE, k)));
    jobs.extend(chosen.iter().map(|&k| (TOGETHER, k)));
    let results: Vec<Vec<(f64, f64)>> = jobs.par_iter().map(|&(w, k)| run(dir.path(), w, k)).collect::<Result<_>>()?;
    let get = |w: &str, k: usize| -> Result<&Vec<(f64, f64)>> {
        let i = jobs.iter().position(|&(j, n)| j == w && n == k).expect("job ran");
        let flows = &results[i];
        let want = if w == TOGETHER { 2 } else { 1 };
        if flows.len() != want {
            bail!("{w} scenario {k}: {} flows, {want} expected", flows.len());
        }
        Ok(flows)
    };
    let (alone1_us, alone1_iops) = get(ALONE, 1)?[0];
    let mut ours = Vec::new();
    for &k in &chosen {
        let (alone_us, alone_iops) = get(ALONE, k)?[0];
        let t = get(TOGETHER, k)?;
        ours.push(Row {
            qd: queue_depth(k),
            alone_us,
            alone_iops,
            flow1_us: t[0].0,
            flow1_iops: t[0].1,
            flow2_us: t[1].0,
            flow2_iops: t[1].1,
        });
    }
    let theirs: Vec<Row> = ours
        .iter()
        .map(|r| mqsim.iter().find(|m| m.qd == r.qd).copied().ok_or_else(|| anyhow!("no MQSim row for QD {}", r.qd)))
        .collect::<Result<_>>()?;
    let m_alone1 = mqsim.iter().find(|m| m.qd == 2).ok_or_else(|| anyhow!("no MQSim row for QD 2"))?.alone_us;
    let slow = |rows: &[Row], alone: f64| -> Vec<f64> { rows.iter().map(|r| r.flow1_us / alone).collect() };
    let (s_ours, s_theirs) = (slow(&ours, alone1_us), slow(&theirs, m_alone1));
    let claims = claims_of(&ours, &theirs, (alone1_us, m_alone1), &s_ours, &s_theirs);

    let mut md = String::new();
    writeln!(md, "# MQSim's FAST'18 back-end contention experiment, from its own files\n")?;
    md += &claims::verdict_counts(&claims, "");
    writeln!(
        md,
        "\nCommand: `ssdlab reproduce mqsim-fast18{}`. Inputs: MQSim's `fast18/backend-contention` files \
         (commit 7ec40e3), unchanged{}; MQSim's numbers: the reference table of `docs/validation/mqsim.md` \
         (MQSim 7ec40e3 run on the same files).\n",
        args.run_flags(),
        if args.scale != 1.0 { ", but for `Stop_Time` scaled by --scale" } else { "" }
    )?;
    claims::write_claims(
        &mut md,
        &claims,
        "A slowdown is flow 1's mean read latency with flow 2 over flow 1's alone; the factor of a comparison \
         is ssdlab's value over MQSim's.",
    )?;
    writeln!(md, "## Setup\n")?;
    writeln!(
        md,
        "MQSim's `ssdconfig-backend-contention.xml` (8 channels × 4 chips × 2 dies × 2 planes, MLC, 75 µs \
         reads, 333 MT/s channels, chip-serial dies, `OUT_OF_ORDER` scheduling) imported as `ssdlab run \
         --config ssdconfig-backend-contention.xml --workload W --scenario K` would: every parameter's fate is in \
         the import report (`ssdlab run` prints it). Both flows read 4 KiB at random over channels 0–7, chips 0 and \
         1, in closed loop; flow 1 at queue depth 2, flow 2 at 2 … 256; each scenario stops at its `Stop_Time` \
         ({} s of simulated time). Flow 1 alone is scenario 1 of `workload-backend-contention-flow-2.xml` (flow 2 at \
         queue depth 2 with flow 1's seed, 798: the same flow), because the flow-1-alone file is conflicted as \
         published (merge-conflict markers in its second scenario; MQSim aborts on it).\n",
        10.0 * args.scale
    )?;
    writeln!(md, "## Results\n")?;
    writeln!(
        md,
        "Each cell is MQSim / ssdlab. Latencies are mean device response times of the flow's reads, µs; IOPS \
         over the run. Flow 1 alone: MQSim {m_alone1:.0} µs, {:.0} IOPS; ssdlab {alone1_us:.1} µs, {alone1_iops:.0} \
         IOPS.\n",
        mqsim.iter().find(|m| m.qd == 2).map_or(0.0, |m| m.alone_iops)
    )?;
    writeln!(
        md,
        "| flow 2 QD | flow 2 alone µs | flow 2 alone IOPS | flow 1 with flow 2 µs | flow 2 with flow 1 µs | \
         flow 1 IOPS | flow 2 IOPS | flow 1 slowdown | ssdlab / MQSim |"
    )?;
    writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")?;
    for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        writeln!(
            md,
            "| {} | {:.0} / {:.1} | {:.0} / {:.0} | {:.0} / {:.1} | {:.0} / {:.1} | {:.0} / {:.0} | {:.0} / {:.0} | \
             {:.2}× / {:.2}× | {:.2} |",
            o.qd,
            t.alone_us,
            o.alone_us,
            t.alone_iops,
            o.alone_iops,
            t.flow1_us,
            o.flow1_us,
            t.flow2_us,
            o.flow2_us,
            t.flow1_iops,
            o.flow1_iops,
            t.flow2_iops,
            o.flow2_iops,
            s_theirs[i],
            s_ours[i],
            s_ours[i] / s_theirs[i]
        )?;
    }
    writeln!(md)?;
    md += &super::run_discussion(args, "mqsim-fast18");
    if !md.ends_with('\n') {
        md.push('\n');
    }
    std::fs::write(&args.out, &md).with_context(|| format!("cannot write {}", args.out.display()))?;
    if !args.quiet {
        eprintln!("wrote {} ({:.1} s)", args.out.display(), started.elapsed().as_secs_f64());
    }
    claims::gate(&claims, "mqsim-fast18")
}

/// The claims: the required checks (the slowdown curve's shape and size, flow-alone
/// latency), then the figures each compares.
fn claims_of(ours: &[Row], theirs: &[Row], alone1: (f64, f64), s_ours: &[f64], s_theirs: &[f64]) -> Vec<Claim> {
    let qds = ours.iter().map(|r| r.qd.to_string()).collect::<Vec<_>>().join(", ");
    let list = |v: &[f64]| v.iter().map(|x| format!("{x:.2}×")).collect::<Vec<_>>().join(", ");
    let factors: Vec<f64> = s_ours.iter().zip(s_theirs).map(|(o, t)| o / t).collect();
    let (lo, hi) = (factors.iter().copied().fold(f64::INFINITY, f64::min), factors.iter().copied().fold(0.0, f64::max));
    let alone: Vec<(f64, f64)> = std::iter::once((alone1.0, alone1.1))
        .chain(ours.iter().zip(theirs).map(|(o, t)| (o.alone_us, t.alone_us)))
        .collect();
    let worst = alone.iter().map(|(o, t)| (o / t - 1.0).abs()).fold(0.0, f64::max);
    let last = ours.len() - 1;
    let mut c = vec![
        Claim {
            what: format!("Flow 1's slowdown grows with flow 2's queue depth (QD {qds})"),
            figure: "backend contention",
            paper: list(s_theirs),
            measured: list(s_ours),
            verdict: claims::checked(None, monotonic(s_ours)),
            required: true,
        },
        Claim {
            what: "Flow 1's slowdown within a factor of 1.5 of MQSim's at every queue depth".into(),
            figure: "backend contention",
            paper: "factor 1".into(),
            measured: format!("factor {lo:.2} … {hi:.2}"),
            verdict: claims::checked(None, within_factor(s_ours, s_theirs, 1.5)),
            required: true,
        },
        Claim {
            what: "Flow latency alone within 15% of MQSim's (flow 1, and flow 2 at every queue depth)".into(),
            figure: "backend contention",
            paper: format!("{:.0} µs (flow 1)", alone1.1),
            measured: format!("{:.1} µs (flow 1); worst {:.1}% off", alone1.0, worst * 100.0),
            verdict: claims::checked(None, latencies_within(&alone, 0.15)),
            required: true,
        },
    ];
    c.push(Claim {
        what: format!("Flow 1's slowdown at the deepest queue of flow 2 (QD {})", ours[last].qd),
        figure: "backend contention",
        paper: format!("{:.2}×", s_theirs[last]),
        measured: format!("{:.2}×", s_ours[last]),
        verdict: claims::verdict(s_theirs[last] - 1.0, s_ours[last] - 1.0).into(),
        required: false,
    });
    c.push(Claim {
        what: format!("Flow 2 alone, IOPS at QD {} (the chips' saturation)", ours[last].qd),
        figure: "backend contention",
        paper: format!("{:.0}", theirs[last].alone_iops),
        measured: format!(
            "{:.0} ({})",
            ours[last].alone_iops,
            claims::pct(ours[last].alone_iops / theirs[last].alone_iops - 1.0)
        ),
        verdict: claims::checked(None, (ours[last].alone_iops / theirs[last].alone_iops - 1.0).abs() <= 0.15),
        required: false,
    });
    c
}
