//! `ssdlab reproduce harey-tortoise`: the Harey Tortoise (thesis §7.3, USENIX ATC '13)
//! following REPRODUCING.md: a claims table with computed verdicts, required checks that
//! set the exit code, the microbenchmark and sustained-load experiments as §7.3.2-7.3.3
//! describe them, trace workloads (manifest or built-in list) and Table 7.2 stand-ins
//! replayed as bursts, and a discussion template filled from the run. The experiments are
//! in `jobs.rs`.

pub mod jobs;

use crate::figures::Figures;
use crate::plot::{BarChart, Line, LineChart};
use crate::reproduce::claims::{change, fill, mean_finite as mean, pct, verdict, verdict_counts, write_claims, Claim};
use crate::reproduce::workloads::{stand_in, STAND_INS};
use crate::reproduce::ReproduceArgs;
use anyhow::Result;
use jobs::{
    run_job, traces, Drive, Job, Load, Measured, Policy, Pref, Workloads, BURSTS, MICRO_DIES, MICRO_PAGES,
    MICRO_POINTS, POINTS, PULSES, PULSE_DEPTH, PULSE_IDLE_NS, PULSE_WRITES,
};
use rayon::prelude::*;
use ssdlab_trace::Record;
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn micro_policies() -> Vec<Policy> {
    let mut p = vec![Policy::Baseline, Policy::AllFast];
    for strong in [false, true] {
        p.extend(MICRO_POINTS.iter().map(|&wp| Policy::Rtf { strong, wp }));
    }
    p
}

fn trace_policies() -> Vec<Policy> {
    let mut p = vec![Policy::Baseline, Policy::AllFast, Policy::Rm { pref: Pref::None, wp: 1 }];
    for strong in [false, true] {
        p.extend(POINTS.iter().map(|&wp| Policy::Rtf { strong, wp }));
    }
    for pref in [Pref::Fgc, Pref::Sgc] {
        p.extend(POINTS.iter().map(|&wp| Policy::Rm { pref, wp }));
    }
    p
}

fn sustained_policies() -> Vec<Policy> {
    let mut p = vec![Policy::Rm { pref: Pref::None, wp: 1 }];
    for pref in [Pref::Fgc, Pref::Sgc] {
        p.extend(POINTS.iter().map(|&wp| Policy::Rm { pref, wp }));
    }
    p
}

/// The largest burst (pages) whose writes all took fast pages.
fn knee(runs: &BTreeMap<Job, Measured>, policy: Policy) -> u64 {
    BURSTS
        .iter()
        .copied()
        .filter(|&b| {
            runs.get(&Job { drive: Drive::Micro, policy, load: Load::Micro(b) }).is_some_and(|m| m.user_slow == 0)
        })
        .max()
        .unwrap_or(0)
}

pub fn harey_tortoise(args: &ReproduceArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let (traces, source) = traces(args)?;
    let wanted = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    // Stand-ins address the pages of the smallest drive they run on: All-Fast's, half of
    // the workload drive.
    let all_fast = Job { drive: Drive::Work, policy: Policy::AllFast, load: Load::Sustained };
    let logical = ssdlab_core::config::apply_overrides(
        &ssdlab_core::presets::preset("harey-tortoise-mlc").map_err(|e| anyhow::anyhow!("{e}"))?,
        &jobs::sets(&all_fast),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?
    .logical_pages();
    let kept: Vec<usize> = (0..STAND_INS.len()).filter(|&i| wanted(STAND_INS[i].0)).collect();
    let stand_ins: Vec<(usize, Vec<Record>)> = kept.iter().map(|&i| (i, stand_in(i, logical, args.scale))).collect();
    let w = Workloads { traces, stand_ins };
    let synthetic = args.only.is_empty();
    let mut jobs = Vec::new();
    if synthetic {
        for policy in micro_policies() {
            jobs.extend(BURSTS.iter().map(|&b| Job { drive: Drive::Micro, policy, load: Load::Micro(b) }));
        }
        for policy in sustained_policies() {
            jobs.push(Job { drive: Drive::Micro, policy, load: Load::Sustained });
        }
    }
    for i in 0..w.count() {
        jobs.extend(trace_policies().into_iter().map(|policy| Job {
            drive: Drive::Work,
            policy,
            load: Load::Trace(i),
        }));
    }
    let results: Vec<Result<Measured>> = jobs.par_iter().map(|j| run_job(j, &w, args.scale)).collect();
    let mut runs = BTreeMap::new();
    for (job, r) in jobs.iter().zip(results) {
        runs.insert(*job, r?);
    }
    let get =
        |policy: Policy, load: Load, drive: Drive| runs.get(&Job { drive, policy, load }).cloned().unwrap_or_default();
    let trace = |policy: Policy, i: usize| get(policy, Load::Trace(i), Drive::Work);
    let rel = |policy: Policy, i: usize, f: fn(&Measured) -> f64| {
        // NaN (not measured) against 0, e.g. no erase in the baseline's run.
        change(f(&trace(policy, i)), f(&trace(Policy::Baseline, i)))
    };
    let bw = |m: &Measured| m.write_mib_s;
    let wear = |m: &Measured| m.erases;

    let mut claims = Vec::new();
    let mut values: BTreeMap<&str, String> = BTreeMap::new();
    let mut md = String::new();
    writeln!(md, "# The Harey Tortoise (Grupp thesis §7.3, USENIX ATC '13) reproduced\n")?;
    let mut figures = Figures::new(&args.out);
    if synthetic {
        // Fig. 7.6.
        let (mut weak_knees, mut strong_knees) = (Vec::new(), Vec::new());
        let (mut weak_points, mut weak_exact, mut strong_ok) = (Vec::new(), true, true);
        for &wp in &MICRO_POINTS {
            let (weak, strong) =
                (knee(&runs, Policy::Rtf { strong: false, wp }), knee(&runs, Policy::Rtf { strong: true, wp }));
            let w_pages = wp as u64 * MICRO_DIES;
            // (Only where the next burst size exists and the run holds more than one burst.)
            let measurable = |k: u64| 2 * k <= 1024 && 2 * k < (MICRO_PAGES as f64 * args.scale) as u64;
            weak_points.push((weak, w_pages, measurable(w_pages)));
            weak_exact &= !measurable(w_pages) || weak == w_pages;
            strong_ok &= !measurable(2 * w_pages) || strong == 2 * w_pages;
            weak_knees.push(format!("{wp}: {} KiB", weak * 4));
            strong_knees.push(format!("{wp}: {} KiB", strong * 4));
        }
        claims.push(Claim {
            what: "Weak RTF serves every burst up to write points × page size with fast pages only (8 dies; the \
                   largest such burst by write points per die)"
                .into(),
            figure: "7.6",
            paper: "knee at w × 8 × 4 KiB".into(),
            measured: weak_knees.join("; "),
            verdict: knee_verdict(&weak_points).into(),
            required: true,
        });
        claims.push(Claim {
            what: "Weak RTF's knee is exactly there, not beyond".into(),
            figure: "7.6",
            paper: "= w × 8 × 4 KiB".into(),
            measured: if weak_exact { "exactly".into() } else { "beyond it for some w (above)".into() },
            verdict: if weak_exact { "holds" } else { "no" }.into(),
            required: false,
        });
        claims.push(Claim {
            what: "Strong RTF: the same knee at twice that".into(),
            figure: "7.6",
            paper: "2 × w × 8 × 4 KiB".into(),
            measured: strong_knees.join("; "),
            verdict: if strong_ok { "holds" } else { "no" }.into(),
            required: false,
        });
        let peak =
            BURSTS.iter().map(|&b| get(Policy::Baseline, Load::Micro(b), Drive::Micro).write_mib_s).fold(0.0, f64::max);
        let peak_mb = peak * 1.048576;
        claims.push(Claim {
            what: "Baseline's peak burst bandwidth (MB/s)".into(),
            figure: "7.6",
            paper: "39.4".into(),
            measured: format!("{peak_mb:.1}"),
            verdict: verdict(39.4, peak_mb).into(),
            required: false,
        });
        values.insert("baseline_peak", format!("{peak_mb:.1}"));
        // Fig. 7.9.
        let sus = |p: Policy| get(p, Load::Sustained, Drive::Micro).write_mib_s;
        let rm = sus(Policy::Rm { pref: Pref::None, wp: 1 });
        let (fgc, sgc) = (sus(Policy::Rm { pref: Pref::Fgc, wp: 32 }), sus(Policy::Rm { pref: Pref::Sgc, wp: 32 }));
        claims.push(Claim {
            what: "Sustained load: FGC above SGC (32 write points per die)".into(),
            figure: "7.9",
            paper: "FGC +20%, SGC below baseline".into(),
            measured: format!("FGC {fgc:.1}, SGC {sgc:.1}, baseline {rm:.1} MiB/s"),
            verdict: fgc_verdict(fgc, sgc).into(),
            required: true,
        });
        claims.push(Claim {
            what: "Sustained load: FGC-32 over the rate-matched baseline".into(),
            figure: "7.9",
            paper: "+20%".into(),
            measured: pct(fgc / rm - 1.0),
            verdict: verdict(0.20, fgc / rm - 1.0).into(),
            required: false,
        });
        values.insert("fgc_sustained", pct(fgc / rm - 1.0));
        values.insert("sgc_sustained", pct(sgc / rm - 1.0));
    }
    let n = w.count();
    if n > 0 {
        let all_fast: Vec<f64> = (0..n).map(|i| rel(Policy::AllFast, i, bw)).collect();
        claims.push(Claim {
            what: "All-Fast above the baseline on every burst trace".into(),
            figure: "7.10",
            paper: "+19…62% on all five".into(),
            measured: format!(
                "{} … {} on {n}",
                pct(all_fast.iter().copied().fold(f64::MAX, f64::min)),
                pct(all_fast.iter().copied().fold(f64::MIN, f64::max))
            ),
            verdict: all_fast_verdict(&all_fast).into(),
            required: true,
        });
        let mean_af = mean(&all_fast);
        claims.push(Claim {
            what: "All-Fast's mean gain over the baseline".into(),
            figure: "7.10",
            paper: "+34%".into(),
            measured: pct(mean_af),
            verdict: verdict(0.34, mean_af).into(),
            required: false,
        });
        values.insert("all_fast_mean", pct(mean_af));
        // RTF's share of All-Fast's gain (the better of weak and strong at 32 write points).
        let shares: Vec<f64> = (0..n)
            .map(|i| {
                let best = rel(Policy::Rtf { strong: false, wp: 32 }, i, bw).max(rel(
                    Policy::Rtf { strong: true, wp: 32 },
                    i,
                    bw,
                ));
                best / all_fast[i].max(1e-12)
            })
            .collect();
        let min_share = shares.iter().copied().fold(f64::MAX, f64::min);
        claims.push(Claim {
            what: "RTF-32's share of All-Fast's gain, smallest over the traces".into(),
            figure: "7.10",
            paper: "> 24% on every trace".into(),
            measured: format!("{:.0}%", min_share * 100.0),
            verdict: if min_share > 0.24 {
                "holds"
            } else if min_share > 0.0 {
                "direction only"
            } else {
                "no"
            }
            .into(),
            required: false,
        });
        let more_points = mean(
            &(0..n)
                .map(|i| {
                    change(
                        bw(&trace(Policy::Rtf { strong: false, wp: 32 }, i)),
                        bw(&trace(Policy::Rtf { strong: false, wp: 1 }, i)),
                    )
                })
                .collect::<Vec<_>>(),
        );
        claims.push(Claim {
            what: "Weak RTF, 1 → 32 write points per die (mean over traces)".into(),
            figure: "7.10",
            paper: "+9%".into(),
            measured: pct(more_points),
            verdict: verdict(0.09, more_points).into(),
            required: false,
        });
        let wear_af = mean(&(0..n).map(|i| rel(Policy::AllFast, i, wear)).collect::<Vec<_>>());
        let wear_rtf = mean(&(0..n).map(|i| rel(Policy::Rtf { strong: false, wp: 32 }, i, wear)).collect::<Vec<_>>());
        claims.push(Claim {
            what: "Wear (erases) of All-Fast over the baseline".into(),
            figure: "7.11",
            paper: "+70% (1.7×)".into(),
            measured: pct(wear_af),
            verdict: verdict(0.70, wear_af).into(),
            required: false,
        });
        claims.push(Claim {
            what: "Wear of weak RTF-32 over the baseline".into(),
            figure: "7.11",
            paper: "+5%".into(),
            measured: pct(wear_rtf),
            verdict: verdict(0.05, wear_rtf).into(),
            required: false,
        });
        values.insert("wear_all_fast", pct(wear_af));
        values.insert("wear_rtf", pct(wear_rtf));
        let rm_base = |i: usize| bw(&trace(Policy::Rm { pref: Pref::None, wp: 1 }, i));
        let fgc: Vec<f64> =
            (0..n).map(|i| change(bw(&trace(Policy::Rm { pref: Pref::Fgc, wp: 32 }, i)), rm_base(i))).collect();
        let sgc: Vec<f64> =
            (0..n).map(|i| change(bw(&trace(Policy::Rm { pref: Pref::Sgc, wp: 32 }, i)), rm_base(i))).collect();
        let not_web: Vec<f64> = (0..n).filter(|&i| !w.name(i).starts_with("WebIndex")).map(|i| fgc[i]).collect();
        claims.push(Claim {
            what: "FGC-32 over the rate-matched baseline, mean over the traces but WebIndex".into(),
            figure: "7.12",
            paper: "+65%".into(),
            measured: pct(mean(&not_web)),
            verdict: verdict(0.65, mean(&not_web)).into(),
            required: false,
        });
        values.insert("fgc_traces", pct(mean(&not_web)));
        values.insert("sgc_traces", pct(mean(&sgc)));
        if let Some(web) = (0..n).find(|&i| w.name(i).starts_with("WebIndex")) {
            claims.push(Claim {
                what: "WebIndex prefers SGC to FGC (32 write points)".into(),
                figure: "7.12",
                paper: "SGC above FGC".into(),
                measured: format!("SGC {}, FGC {}", pct(sgc[web]), pct(fgc[web])),
                verdict: if sgc[web] > fgc[web] { "holds" } else { "no" }.into(),
                required: false,
            });
        }
        if let Some(desk) = (0..n).find(|&i| w.name(i).starts_with("DeskDev")) {
            claims.push(Claim {
                what: "DeskDev under FGC-32".into(),
                figure: "7.12",
                paper: "+95%".into(),
                measured: pct(fgc[desk]),
                verdict: verdict(0.95, fgc[desk]).into(),
                required: false,
            });
        }
    }
    writeln!(md, "{}", verdict_counts(&claims, ""))?;
    writeln!(
        md,
        "Command: `ssdlab reproduce harey-tortoise{}`. Traces: {source}. Mango (§7.2): `ssdlab reproduce \
         mango`.\n",
        args.run_flags()
    )?;
    write_claims(
        &mut md,
        &claims,
        "A knee, an ordering or an \"every trace\" claim holds when it is true as stated. Bandwidth is \
         §7.3.4's: the mean over bursts that wrote of (bytes written / the burst's duration).",
    )?;
    writeln!(
        md,
        "## Setup\n\nPreset `harey-tortoise-mlc` (Table 7.3: 4 KiB pages, 128-page blocks, fast / slow \
         programs 253 / 1359 µs, reads 27 / 40 µs, erase 2871 µs, 400 MB/s buses, 20% over-provisioning), \
         one plane per die (the thesis' chip), rapid warm-up (every logical page placed, invalid pages up to \
         the background threshold). Blocks per die: 1024 (the thesis: 2048) to halve the warm-up. \
         Microbenchmark and sustained load: 4 channels × 2 dies; workloads: 8 channels × 2 dies (the thesis: \
         8 × 16). GC writes go through the user write points in every run. All-Fast: 64-page blocks at the \
         fast latencies only. Sustained load (§7.3.3): {PULSES} pulses (the thesis: 80) of {} uniformly \
         random page writes with {PULSE_DEPTH} outstanding, {} s idle between pulses. Stand-ins (Table 7.2): \
         bursts of geometric size (mean from the table, at least one page), exponential idle gaps (mean \
         from the table), reads at Table 7.1's share (WebIndex: 10%, ours), one-page requests, WebIndex's \
         bursts sequential. Traces are replayed as bursts with the mean gap between records as threshold \
         (§7.3.4).\n",
        ((PULSE_WRITES as f64 * args.scale).round() as u64).max(1000),
        PULSE_IDLE_NS / 1_000_000_000,
    )?;
    writeln!(
        md,
        "{}\n",
        crate::reproduce::load::as_given(
            "the thesis measures each burst's bandwidth (bytes written over the burst's duration, §7.3.4), which \
             needs the burst's requests queued: saturation within a burst is on purpose."
        )
    )?;
    let kept_names: Vec<&str> = kept.iter().map(|&i| STAND_INS[i].0).collect();
    writeln!(md, "Stand-ins run: {}.\n", if kept_names.is_empty() { "none".into() } else { kept_names.join(", ") })?;
    if synthetic {
        writeln!(md, "## Fig. 7.6: burst bandwidth (MiB/s) by burst size\n")?;
        let mut header = "| policy |".to_string();
        let mut rule = "|---|".to_string();
        for b in BURSTS {
            write!(header, " {} KiB |", b * 4)?;
            rule.push_str("---:|");
        }
        writeln!(md, "{header}\n{rule}")?;
        let mut lines = Vec::new();
        for policy in micro_policies() {
            let row: Vec<f64> = BURSTS.iter().map(|&b| get(policy, Load::Micro(b), Drive::Micro).write_mib_s).collect();
            writeln!(
                md,
                "| {} | {} |",
                policy.name(),
                row.iter().map(|v| format!("{v:.1}")).collect::<Vec<_>>().join(" | ")
            )?;
            if matches!(policy, Policy::Baseline | Policy::AllFast | Policy::Rtf { strong: false, .. }) {
                lines.push(Line {
                    label: policy.name(),
                    points: BURSTS.iter().zip(&row).map(|(&b, &v)| ((b * 4) as f64, v)).collect(),
                    markers: true,
                    dashed: false,
                });
            }
        }
        figures.lines(
            &mut md,
            "fig7-6",
            LineChart {
                title: "Fig. 7.6: weak RTF, burst write bandwidth".into(),
                x_label: "burst (KiB)".into(),
                y_label: "MiB/s".into(),
                x_log: true,
                lines,
                y_from_zero: true,
            },
        );
        writeln!(md, "\n## Fig. 7.9: sustained load (MiB/s, {PULSES} pulses)\n\n| policy | MiB/s | user fast share | GC fast share | erases |\n|---|---:|---:|---:|---:|")?;
        for policy in sustained_policies() {
            let m = get(policy, Load::Sustained, Drive::Micro);
            writeln!(
                md,
                "| {} | {:.1} | {:.2} | {:.2} | {:.0} |",
                policy.name(),
                m.write_mib_s,
                m.user_fast_share,
                m.gc_fast_share,
                m.erases
            )?;
        }
        writeln!(md)?;
    }
    if n > 0 {
        writeln!(md, "## Figs. 7.10-7.13: traces replayed as bursts\n\nBurst write bandwidth over the baseline (RTF, All-Fast) or over the rate-matched baseline RM-1 (FGC, SGC); erases over the baseline.\n")?;
        let policies = trace_policies();
        writeln!(
            md,
            "| trace | baseline MiB/s | {} |\n|---|---:|{}",
            policies[1..].iter().map(|p| p.name()).collect::<Vec<_>>().join(" | "),
            "---:|".repeat(policies.len() - 1)
        )?;
        let mut wear_rows = String::new();
        for i in 0..n {
            let base = bw(&trace(Policy::Baseline, i));
            let cells: Vec<String> = policies[1..]
                .iter()
                .map(|&p| {
                    let against = if matches!(p, Policy::Rm { .. }) {
                        Policy::Rm { pref: Pref::None, wp: 1 }
                    } else {
                        Policy::Baseline
                    };
                    if p == against {
                        format!("{:.1} MiB/s", bw(&trace(p, i)))
                    } else {
                        pct(bw(&trace(p, i)) / bw(&trace(against, i)).max(1e-12) - 1.0)
                    }
                })
                .collect();
            writeln!(md, "| {} | {base:.1} | {} |", w.name(i), cells.join(" | "))?;
            let wear_cells: Vec<String> = policies[1..].iter().map(|&p| pct(rel(p, i, wear))).collect();
            writeln!(
                wear_rows,
                "| {} | {:.0} | {} |",
                w.name(i),
                wear(&trace(Policy::Baseline, i)),
                wear_cells.join(" | ")
            )?;
        }
        writeln!(
            md,
            "\nErases (Figs. 7.11, 7.13):\n\n| trace | baseline erases | {} |\n|---|---:|{}\n{wear_rows}",
            policies[1..].iter().map(|p| p.name()).collect::<Vec<_>>().join(" | "),
            "---:|".repeat(policies.len() - 1)
        )?;
        let chart = |label: &str, p: Policy| -> (String, Vec<f64>) {
            (label.into(), (0..n).map(|i| 1.0 + rel(p, i, bw)).collect())
        };
        figures.bars(
            &mut md,
            "fig7-10",
            BarChart {
                title: "Fig. 7.10: burst write bandwidth over the baseline".into(),
                x_label: "trace".into(),
                y_label: "× baseline".into(),
                categories: (0..n).map(|i| w.name(i)).collect(),
                groups: vec![
                    chart("wRTF-1", Policy::Rtf { strong: false, wp: 1 }),
                    chart("wRTF-32", Policy::Rtf { strong: false, wp: 32 }),
                    chart("sRTF-32", Policy::Rtf { strong: true, wp: 32 }),
                    chart("All-Fast", Policy::AllFast),
                ],
            },
        );
    }
    let template = crate::reproduce::run_discussion(args, "harey-tortoise");
    if synthetic && n > 0 {
        writeln!(md, "{}\n", fill(&template, &values)?.trim_end())?;
    } else {
        writeln!(
            md,
            "## Discussion\n\n(Left out: `--only` dropped the {} its numbers come from.)\n",
            if synthetic { "workloads" } else { "microbenchmark and sustained-load experiments" }
        )?;
    }
    writeln!(md, "## Commands\n\nEvery cell is one `ssdlab run`; for example:\n\n```")?;
    let mut shown = std::collections::BTreeSet::new();
    for (job, m) in &runs {
        let kind = match job.load {
            Load::Micro(_) => 0,
            Load::Sustained => 1,
            Load::Trace(_) => 2,
        };
        if shown.len() < 12 && shown.insert((kind, job.policy)) {
            writeln!(md, "{}", m.command)?;
        }
    }
    writeln!(md, "```")?;
    figures.write_report(&args.out, &md)?;
    println!("wrote {} ({} simulations in {:.1} s)", args.out.display(), jobs.len(), started.elapsed().as_secs_f64());
    crate::reproduce::claims::gate(&claims, "harey-tortoise")
}

/// Required check: weak RTF's knee (the largest burst, in pages, served with fast pages
/// only) at least write points × dies, at every point `(knee, pages, measurable)` whose
/// next burst size the run held; with none measurable, too few samples (the run held no
/// such burst) rather than a vacuous pass.
fn knee_verdict(points: &[(u64, u64, bool)]) -> &'static str {
    if !points.iter().any(|p| p.2) {
        crate::reproduce::claims::TOO_FEW
    } else if points.iter().all(|&(knee, pages, measurable)| !measurable || knee >= pages) {
        "holds"
    } else {
        "no"
    }
}

/// Required check: under sustained load FGC's bandwidth above SGC's.
fn fgc_verdict(fgc: f64, sgc: f64) -> &'static str {
    if fgc > sgc {
        "holds"
    } else {
        "no"
    }
}

/// Required check: All-Fast's bandwidth gain over the baseline positive on every burst
/// trace (NaN: nothing written); nothing happened when no trace wrote.
fn all_fast_verdict(gains: &[f64]) -> &'static str {
    if gains.iter().all(|&g| g > 0.0) {
        "holds"
    } else if gains.iter().all(|g| !g.is_finite()) {
        crate::reproduce::claims::NOTHING_HAPPENED
    } else {
        "no"
    }
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn every_required_check_of_harey_tortoise_can_fail() {
        // Weak RTF's knee: 8 dies x 1, 2, 4 write points.
        assert_eq!(knee_verdict(&[(8, 8, true), (16, 16, true), (64, 32, false)]), "holds");
        assert_eq!(knee_verdict(&[(8, 8, true), (8, 16, true)]), "no", "a knee below w x 8");
        assert_eq!(knee_verdict(&[(0, 8, false)]), crate::reproduce::claims::TOO_FEW);
        assert_eq!(fgc_verdict(30.0, 20.0), "holds");
        assert_eq!(fgc_verdict(20.0, 20.0), "no");
        assert_eq!(fgc_verdict(f64::NAN, 20.0), "no");
        assert_eq!(all_fast_verdict(&[0.19, 0.62]), "holds");
        assert_eq!(all_fast_verdict(&[0.19, -0.01]), "no");
        assert_eq!(all_fast_verdict(&[0.19, f64::NAN]), "no");
        assert_eq!(all_fast_verdict(&[f64::NAN]), crate::reproduce::claims::NOTHING_HAPPENED);
    }
}
