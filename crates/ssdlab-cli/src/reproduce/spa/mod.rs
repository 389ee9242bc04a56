//! `ssdlab reproduce spa-ssd`: SPA-SSD's Fig. 3, 5, 6 and 7 on the `spa-ssd-hybrid`
//! preset, written as a markdown report beside the paper's reference numbers (SPEC §4.2).
//! Every simulation is the preset plus a list of `--set` overrides, so each table cell can
//! be rerun alone with the `ssdlab run` command the report prints.

pub mod jobs;

use crate::output::Outcome;
use crate::reproduce::claims::{pct, verdict, verdict_counts, write_claims, Claim};
use crate::reproduce::{write_header, ReproduceArgs};
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use jobs::*;

pub fn spa_ssd(args: &ReproduceArgs) -> Result<()> {
    let spa_traces = spa_traces(args)?;
    let spa_traces = spa_traces.as_slice();
    const FIGS: &[&str] = &["fig3", "fig5", "fig6", "fig7"];
    let mut figs: Vec<&str> = FIGS.iter().copied().filter(|f| args.only.iter().any(|o| o == f)).collect();
    let named_traces: Vec<usize> =
        (0..spa_traces.len()).filter(|&t| args.only.iter().any(|o| *o == spa_traces[t].name)).collect();
    for o in &args.only {
        if !FIGS.contains(&o.as_str()) && !spa_traces.iter().any(|t| t.name == *o) {
            bail!(
                "--only {o}: expected figures (fig3, fig5, fig6, fig7) or Fig. 7 traces ({})",
                spa_traces.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
            );
        }
    }
    if figs.is_empty() {
        figs = if named_traces.is_empty() { FIGS.to_vec() } else { vec!["fig7"] };
    }
    let traces: Vec<usize> = if named_traces.is_empty() { (0..spa_traces.len()).collect() } else { named_traces };
    if figs.contains(&"fig7") {
        for &t in &traces {
            let p = args.traces.join(&spa_traces[t].rel);
            if !p.is_file() {
                bail!("trace {} not found (pass --traces DIR or set SSDLAB_TRACES)", p.display());
            }
        }
    }
    let jobs = jobs(args, &figs, &traces);
    let started = std::time::Instant::now();
    let results: Vec<Result<Outcome>> = jobs
        .par_iter()
        .map(|job| run_job(job, &args.traces, spa_traces).with_context(|| format!("`{}`", job.command(spa_traces))))
        .collect();
    let mut outcomes = Vec::with_capacity(results.len());
    for r in results {
        outcomes.push(r?);
    }
    let wall = started.elapsed().as_secs_f64();
    let find = |fig: Fig| -> Option<(&Job, &Outcome)> {
        jobs.iter().position(|j| j.fig == fig).map(|i| (&jobs[i], &outcomes[i]))
    };
    let get = |fig: Fig| find(fig).expect("job ran");

    let mut md = String::new();
    let mut checks: Vec<Claim> = Vec::new();
    // The discussion's numbers (a template, docs/reproductions/spa-ssd.discussion.md); a
    // figure not run leaves its own "(not run)".
    let mut values: BTreeMap<&str, String> = [
        "fig3_sat_128",
        "fig3_sat_256",
        "fig3_best_128",
        "fig3_best_256",
        "fig3_static_128",
        "fig5_tw",
        "fig5_pf",
        "fig5_whole",
        "fig5_tw_slc",
        "fig5_tw_tlc",
        "fig5_tpj_slc",
        "fig5_tpj_tlc",
        "fig6_ratios",
        "fig6_max_latency",
        "fig7_means",
        "fig7_spa_hits",
        "fig7_base_hits",
        "fig7_closed_means",
        "fig7_closed_reads",
        "fig7_closed_spa_hits",
        "fig7_closed_base_hits",
    ]
    .into_iter()
    .map(|k| (k, "(not run)".to_string()))
    .collect();
    // A required check of the issue: holds or no.
    let check = |what: String, figure: &'static str, paper: &str, pass: bool, measured: String| Claim {
        what,
        figure,
        paper: paper.into(),
        measured,
        verdict: if pass { "holds" } else { "no" }.into(),
        required: true,
    };
    let command = format!("ssdlab reproduce spa-ssd{}", args.run_flags());
    writeln!(md, "# SPA-SSD reproduction (seed 001)\n")?;
    let header_at = md.len();
    writeln!(
        md,
        "Command: `{command}` ({} simulations). Device: the `{PRESET}` preset \
         (SPA Table I: 8 channels × 4 chips × 4 dies, one plane per die, 92 SLC-mode + 676 TLC blocks per plane, \
         128 / 384 pages per SLC / TLC block, 8 KiB pages, SLC program 500 µs, TLC one-shot program 5.5 ms, program \
         delay 100 ms; MQSim's stock values where the table is silent). Throughputs are MiB/s of user writes; the \
         synthetic workloads are random 8 KiB writes (seed 1) kept at a fixed queue length (closed loop).\n",
        outcomes.len()
    )?;
    writeln!(
        md,
        "{}\n",
        crate::reproduce::load::as_given(
            "SPA-SSD's migration works in the idle time of the traces' own arrivals (Fig. 7 replays them by \
             timestamp), which slowing a workload would add, and its saturated regimes run closed loop on purpose."
        )
    )?;
    let checks_at = md.len();
    let mut figures = crate::figures::Figures::new(&args.out);
    let bars = |title: &str, x: &str, y: &str, categories: Vec<String>, groups: Vec<(String, Vec<f64>)>| {
        crate::plot::BarChart { title: title.into(), x_label: x.into(), y_label: y.into(), categories, groups }
    };

    // ---------------------------------------------------------------- Fig. 3
    if figs.contains(&"fig3") {
        writeln!(md, "## Fig. 3: write throughput (MiB/s) against parallelism, TLC only\n")?;
        writeln!(
            md,
            "Two TLC-only drives (`ftl.slc_blocks_per_plane = 0`, no SLC at all). **CWDP static**: the preset's \
             plane allocation (static CWDP striping of logical pages, PF-PA). **page-set first**: \
             `hybrid.allocation = tpj`, which on a drive without SLC is the dynamic 3D-TLC allocation of SPA §II-A — \
             fill a plane's incomplete page set first, else the plane with the fewest outstanding writes. {} writes \
             per run.\n",
            jobs.iter().find_map(|j| j.synthetic.map(|s| s.0)).unwrap_or(0)
        )?;
        let mut names = Vec::new();
        for &ql in FIG3_QL {
            for (v, _) in FIG3_VARIANTS {
                names.push(format!("QL {ql}, {v}"));
            }
        }
        write_header(&mut md, "dies (ch × chips × dies)", names.iter().map(|s| s.as_str()))?;
        for (gi, &(chips, dies)) in FIG3_GEOMETRY.iter().enumerate() {
            let mut row = format!("| {} (8 × {chips} × {dies}) |", 8 * chips * dies);
            for qi in 0..FIG3_QL.len() {
                for vi in 0..FIG3_VARIANTS.len() {
                    let (_, o) = get(Fig::F3 { ql: qi, geometry: gi, variant: vi });
                    write!(row, " {:.1} |", o.report.write.bandwidth_mib_s)?;
                }
            }
            writeln!(md, "{row}")?;
        }
        writeln!(md)?;
        let lines = names
            .iter()
            .enumerate()
            .map(|(k, name)| crate::plot::Line {
                label: name.clone(),
                points: (0..FIG3_GEOMETRY.len())
                    .map(|gi| {
                        let (chips, dies) = FIG3_GEOMETRY[gi];
                        let fig =
                            Fig::F3 { ql: k / FIG3_VARIANTS.len(), geometry: gi, variant: k % FIG3_VARIANTS.len() };
                        ((8 * chips * dies) as f64, get(fig).1.report.write.bandwidth_mib_s)
                    })
                    .collect(),
                markers: true,
                ..Default::default()
            })
            .collect();
        figures.lines(
            &mut md,
            "fig3",
            crate::plot::LineChart {
                title: "Fig. 3: write throughput against parallelism (TLC only)".into(),
                x_label: "dies".into(),
                y_label: "MiB/s".into(),
                lines,
                y_from_zero: true,
                ..Default::default()
            },
        );
        writeln!(
            md,
            "Saturation point (fewest dies reaching 95% of the column's best throughput), against the paper's 48 dies \
             at QL 128 and 96 at QL 256 (≈ QL / 3):\n"
        )?;
        for (qi, &ql) in FIG3_QL.iter().enumerate() {
            for (vi, (v, _)) in FIG3_VARIANTS.iter().enumerate() {
                let tp: Vec<f64> = (0..FIG3_GEOMETRY.len())
                    .map(|gi| get(Fig::F3 { ql: qi, geometry: gi, variant: vi }).1.report.write.bandwidth_mib_s)
                    .collect();
                let best = tp.iter().copied().fold(0.0, f64::max);
                let (bi, _) = tp.iter().enumerate().fold((0, 0.0), |acc, (i, &t)| if t > acc.1 { (i, t) } else { acc });
                let sat = saturation(&tp);
                let (c, d) = FIG3_GEOMETRY[sat];
                let (bc, bd) = FIG3_GEOMETRY[bi];
                writeln!(
                    md,
                    "- QL {ql}, {v}: saturates at {} dies (best {best:.1} MiB/s at {} dies)",
                    8 * c * d,
                    8 * bc * bd
                )?;
                if vi == 1 {
                    let (sat_key, best_key) =
                        if ql == 128 { ("fig3_sat_128", "fig3_best_128") } else { ("fig3_sat_256", "fig3_best_256") };
                    values.insert(sat_key, format!("{}", 8 * c * d));
                    values.insert(best_key, format!("{best:.1}"));
                } else if ql == 128 {
                    values.insert("fig3_static_128", format!("{:.1}", tp[tp.len() - 1]));
                }
                if vi == 1 {
                    let expected = if ql == 128 { 48 } else { 96 };
                    checks.push(check(
                        format!(
                            "Fig. 3: page-set-first throughput saturates at the paper's {expected} dies at QL {ql}"
                        ),
                        "Fig. 3",
                        &format!("{expected} dies"),
                        8 * c * d == expected,
                        format!("{} dies", 8 * c * d),
                    ));
                }
            }
        }
        writeln!(md)?;
        writeln!(
            md,
            "Paper (SPA §III, Fig. 3): throughput rises from 16 to 48 dies and stays flat up to 128 at QL 128; at QL 256 \
             it saturates at 96 dies. (The paper gives the shape, not the MB/s values.)\n"
        )?;
    }

    // ---------------------------------------------------------------- Fig. 5
    if figs.contains(&"fig5") {
        let (job0, _) = get(Fig::F5 { alloc: 0 });
        let window_s = job0.series_ns as f64 / 1e9;
        writeln!(md, "## Fig. 5: write throughput over time with SLC in 16 planes only, QL 256, BG-DM\n")?;
        writeln!(
            md,
            "`hybrid.slc_planes = 16` (one plane in eight has its 92 SLC blocks, 188,416 SLC pages = 1.44 GiB in all), \
             {} random 8 KiB writes at queue length 256. Each cell: MiB/s in the {window_s:.1}-s window ending at the \
             row's time, and in brackets the share of the window's user page writes that went to SLC.\n",
            job0.synthetic.map_or(0, |s| s.0)
        )?;
        write_header(&mut md, "window end (s)", FIG5_ALLOC.iter().map(|a| a.0))?;
        let rows = (0..FIG5_ALLOC.len()).map(|a| get(Fig::F5 { alloc: a }).1.series.len()).max().unwrap_or(0);
        for r in 0..rows {
            let mut line = format!("| {:.1} |", (r + 1) as f64 * window_s);
            for ai in 0..FIG5_ALLOC.len() {
                match get(Fig::F5 { alloc: ai }).1.series.get(r) {
                    Some(s) => {
                        let share = if s.writes > 0 {
                            s.slc_user_pages as f64 / (s.write_bytes as f64 / 8192.0).max(1.0) * 100.0
                        } else {
                            0.0
                        };
                        write!(line, " {:.0} ({share:.0}%) |", s.bandwidth_mib_s)?;
                    }
                    None => write!(line, " – |")?,
                }
            }
            writeln!(md, "{line}")?;
        }
        writeln!(md)?;
        let lines = FIG5_ALLOC
            .iter()
            .enumerate()
            .map(|(ai, (name, _))| crate::plot::Line {
                label: name.to_string(),
                points: get(Fig::F5 { alloc: ai })
                    .1
                    .series
                    .iter()
                    .enumerate()
                    .map(|(r, s)| ((r + 1) as f64 * window_s, s.bandwidth_mib_s))
                    .collect(),
                ..Default::default()
            })
            .collect();
        figures.lines(
            &mut md,
            "fig5",
            crate::plot::LineChart {
                title: "Fig. 5: write throughput over time (SLC in 16 planes, QL 256)".into(),
                x_label: "time (s)".into(),
                y_label: "MiB/s".into(),
                lines,
                y_from_zero: true,
                ..Default::default()
            },
        );
        writeln!(md, "Stage means (MiB/s; SLC stage = windows ending with SLC pages free, TLC stage = windows with no SLC write; the window in which the SLC ran out and the last, draining window are left out):\n")?;
        writeln!(md, "| allocation | SLC stage | TLC stage | whole run | SLC hit ratio | SLC exhausted at (s) | mean write latency (ms) |")?;
        writeln!(md, "|---|---:|---:|---:|---:|---:|---:|")?;
        let mut slc_stage = Vec::new();
        for (ai, (name, _)) in FIG5_ALLOC.iter().enumerate() {
            let (_, o) = get(Fig::F5 { alloc: ai });
            let (s, t) = stages(&o.series);
            slc_stage.push(s);
            let stage_keys = match ai {
                1 => Some(("fig5_tw_slc", "fig5_tw_tlc")),
                3 => Some(("fig5_tpj_slc", "fig5_tpj_tlc")),
                _ => None,
            };
            if let Some((ks, kt)) = stage_keys {
                values.insert(ks, opt(s));
                values.insert(kt, opt(t));
            }
            let exhausted = o.series.iter().find(|r| r.slc_free_pages == 0).map(|r| r.end_ns as f64 / 1e9);
            let h = o.report.hybrid.as_ref();
            writeln!(
                md,
                "| {name} | {} | {} | {:.0} | {:.1}% | {} | {:.2} |",
                opt(s),
                opt(t),
                o.report.write.bandwidth_mib_s,
                h.map_or(0.0, |h| h.slc_hit_ratio) * 100.0,
                exhausted.map_or("not reached".to_string(), |e| format!("≤ {e:.1}")),
                o.report.write.latency_ns.mean / 1e6
            )?;
        }
        writeln!(md)?;
        let tpj = slc_stage[3].unwrap_or(0.0);
        for (i, name) in [(1, "TW-PA"), (0, "PF-PA")] {
            let other = slc_stage[i].unwrap_or(0.0);
            checks.push(check(
                format!("Fig. 5: TPJ-PA's SLC-stage throughput exceeds {name}'s"),
                "Fig. 5",
                "yes",
                fig5_tpj_above(slc_stage[3], slc_stage[i]),
                format!("{tpj:.0} vs {other:.0} MiB/s ({:+.0}%)", (tpj / other.max(1e-9) - 1.0) * 100.0),
            ));
        }
        // The stage shapes of SPA §VI-A: TW-PA's TLC stage above its SLC stage, TPJ-PA's
        // SLC stage above its TLC stage.
        for (ai, name, slc_higher) in [(1usize, "TW-PA", false), (3, "TPJ-PA", true)] {
            let (slc, tlc) = stages(&get(Fig::F5 { alloc: ai }).1.series);
            let shape = match (slc, tlc) {
                (Some(s), Some(t)) => Some((s > t) == slc_higher),
                _ => None,
            };
            checks.push(Claim {
                what: format!(
                    "{name}'s {} stage throughput above its {} stage",
                    if slc_higher { "SLC" } else { "TLC" },
                    if slc_higher { "TLC" } else { "SLC" }
                ),
                figure: "Fig. 5",
                paper: "yes".into(),
                measured: format!("SLC {} vs TLC {} MiB/s", opt(slc), opt(tlc)),
                verdict: if shape == Some(true) { "holds" } else { "no" }.into(),
                required: false,
            });
        }
        let over_tw = tpj / slc_stage[1].unwrap_or(0.0).max(1e-9) - 1.0;
        values.insert("fig5_tw", pct(over_tw));
        values.insert("fig5_pf", pct(tpj / slc_stage[0].unwrap_or(0.0).max(1e-9) - 1.0));
        values.insert(
            "fig5_whole",
            pct(get(Fig::F5 { alloc: 3 }).1.report.write.bandwidth_mib_s
                / get(Fig::F5 { alloc: 1 }).1.report.write.bandwidth_mib_s.max(1e-9)
                - 1.0),
        );
        checks.push(Claim {
            what: "TPJ-PA's write throughput over TW-PA's (SLC stage)".into(),
            figure: "Fig. 5",
            paper: "+60%".into(),
            measured: pct(over_tw),
            verdict: verdict(0.6, over_tw).into(),
            required: false,
        });
        writeln!(
            md,
            "Paper (SPA §VI-A, Fig. 5): PF-PA lowest; TW-PA and HC-PA identical (every 8 KB write is hot); TW-PA's \
             second (TLC) stage higher than its first; TPJ-PA's first stage higher than its second and +60% over \
             TW-PA. Measured: TPJ-PA over TW-PA {:+.0}% in the SLC stage, {:+.0}% over the whole run.\n",
            (tpj / slc_stage[1].unwrap_or(0.0).max(1e-9) - 1.0) * 100.0,
            (get(Fig::F5 { alloc: 3 }).1.report.write.bandwidth_mib_s
                / get(Fig::F5 { alloc: 1 }).1.report.write.bandwidth_mib_s.max(1e-9)
                - 1.0)
                * 100.0
        )?;
    }

    // ---------------------------------------------------------------- Fig. 6
    if figs.contains(&"fig6") {
        let (job0, _) = get(Fig::F6 { ql: 0, migration: 0 });
        writeln!(md, "## Fig. 6: write throughput after the SLC is exhausted, BG-DM vs QPC-DM (TPJ-PA)\n")?;
        writeln!(
            md,
            "Every SLC block full of valid data at t = 0 (`precondition.slc_filled`), TPJ-PA, {} random 8 KiB writes \
             per run. \"whole run\" is the report's write throughput (first arrival to last completion); \"to 95%\" \
             stops when 95% of the writes have completed (100-ms windows), which leaves out the closed loop's \
             draining tail.\n",
            job0.synthetic.map_or(0, |s| s.0)
        )?;
        writeln!(md, "| QL | BG-DM whole run | QPC-DM whole run | QPC / BG | BG-DM to 95% | QPC-DM to 95% | QPC / BG (95%) | QPC SLC hit ratio | QPC migrated pages | QPC max write latency (ms) |")?;
        writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")?;
        let mut fig6 = [Vec::new(), Vec::new()];
        for (qi, &ql) in FIG6_QL.iter().enumerate() {
            let (_, bg) = get(Fig::F6 { ql: qi, migration: 0 });
            let (_, qpc) = get(Fig::F6 { ql: qi, migration: 1 });
            let (b, q) = (bg.report.write.bandwidth_mib_s, qpc.report.write.bandwidth_mib_s);
            fig6[0].push(b);
            fig6[1].push(q);
            let b95 = throughput_95(&bg.series, bg.report.write.requests);
            let q95 = throughput_95(&qpc.series, qpc.report.write.requests);
            let h = qpc.report.hybrid.clone().unwrap_or_default();
            writeln!(
                md,
                "| {ql} | {b:.1} | {q:.1} | {:.2}× | {b95:.1} | {q95:.1} | {:.2}× | {:.1}% | {} | {:.0} |",
                q / b.max(1e-9),
                q95 / b95.max(1e-9),
                h.slc_hit_ratio * 100.0,
                h.migrated_pages,
                qpc.report.write.latency_ns.max as f64 / 1e6
            )?;
            if ql == 128 {
                checks.push(check(
                    "Fig. 6: QPC-DM's write throughput exceeds BG-DM's at QL 128".to_string(),
                    "Fig. 6",
                    "yes",
                    fig6_qpc_above(q, b),
                    format!("{q:.1} vs {b:.1} MiB/s ({:.2}×)", q / b.max(1e-9)),
                ));
                checks.push(Claim {
                    what: "QPC-DM's write throughput over BG-DM's at QL 128".into(),
                    figure: "Fig. 6",
                    paper: "up to 10×".into(),
                    measured: format!("{:.2}×", q / b.max(1e-9)),
                    verdict: verdict(9.0, q / b.max(1e-9) - 1.0).into(),
                    required: false,
                });
            }
            if ql == 256 {
                let r = q / b.max(1e-9) - 1.0;
                checks.push(Claim {
                    what: "QPC-DM vs BG-DM at QL 256 (\"near equal\"; holds within ±10%)".into(),
                    figure: "Fig. 6",
                    paper: "≈ equal".into(),
                    measured: pct(r),
                    verdict: if r.abs() <= 0.1 { "holds" } else { "no" }.into(),
                    required: false,
                });
            }
        }
        writeln!(md)?;
        values.insert(
            "fig6_ratios",
            FIG6_QL
                .iter()
                .enumerate()
                .map(|(qi, ql)| format!("{:.1}× at QL {ql}", fig6[1][qi] / fig6[0][qi].max(1e-9)))
                .collect::<Vec<_>>()
                .join(", "),
        );
        if let Some(qi) = FIG6_QL.iter().position(|&q| q == 128) {
            let (_, qpc) = get(Fig::F6 { ql: qi, migration: 1 });
            values.insert("fig6_max_latency", format!("{:.0} ms", qpc.report.write.latency_ns.max as f64 / 1e6));
        }
        let [bg, qpc] = fig6;
        figures.bars(
            &mut md,
            "fig6",
            bars(
                "Fig. 6: write throughput after the SLC is exhausted",
                "queue length",
                "MiB/s (whole run)",
                FIG6_QL.iter().map(|q| q.to_string()).collect(),
                vec![("BG-DM".into(), bg), ("QPC-DM".into(), qpc)],
            ),
        );
        writeln!(
            md,
            "Paper (SPA §VI-B, Fig. 6): QPC-DM much higher than BG-DM at queue lengths up to 128 (up to 10×), close to \
             BG-DM at 256; BG-DM never migrates because the device is never idle.\n"
        )?;
    }

    // ---------------------------------------------------------------- Fig. 7
    if figs.contains(&"fig7") {
        writeln!(md, "## Fig. 7: real traces, open-loop replay by timestamp\n")?;
        writeln!(md, "Traces (SPA does not name its workloads; these are the write-containing traces available here, each replayed once):\n")?;
        for &t in &traces {
            writeln!(md, "- **{}**: {} (`{}`)", spa_traces[t].name, spa_traces[t].what, spa_traces[t].rel)?;
        }
        writeln!(md)?;
        writeln!(
            md,
            "Devices: TW&BG (TurboWrite), HC&BG, PF&BG and SPA-SSD (TPJ-PA + QPC-DM). The whole SLC cache (92 blocks \
             in each of the 128 planes, 11.5 GiB) is far larger than any of these excerpts writes, so from an empty \
             cache every device would serve (nearly) every write from SLC; the first two tables therefore start \
             with the SLC cache full (`precondition.slc_filled`, the state after a long write-heavy past), the last \
             two with it empty (the preset's default). Write latency is the time to program the data to flash (no \
             DRAM acknowledgement).\n"
        )?;
        let spa = FIG7_SCHEMES.len() - 1;
        for (bi, (start, _)) in FIG7_STARTS.iter().enumerate() {
            writeln!(md, "### Fig. 7a ({start}): mean write latency normalised to SPA-SSD\n")?;
            write_header(&mut md, "trace (SPA-SSD mean)", FIG7_SCHEMES.iter().map(|s| s.0))?;
            let mut sums = vec![0.0; FIG7_SCHEMES.len()];
            let mut plotted = vec![Vec::new(); FIG7_SCHEMES.len()];
            let trace_names: Vec<String> = traces.iter().map(|&t| spa_traces[t].name.to_string()).collect();
            for &t in &traces {
                let base = get(Fig::F7 { trace: t, scheme: spa, start: bi }).1.report.write.latency_ns.mean;
                let mut row = format!("| {} ({:.0} µs) |", spa_traces[t].name, base / 1e3);
                for (si, sum) in sums.iter_mut().enumerate() {
                    let v = get(Fig::F7 { trace: t, scheme: si, start: bi }).1.report.write.latency_ns.mean
                        / base.max(1e-9);
                    *sum += v;
                    plotted[si].push(v);
                    write!(row, " {v:.2} |")?;
                }
                writeln!(md, "{row}")?;
            }
            let mut row = "| **mean** |".to_string();
            for s in &sums {
                write!(row, " **{:.2}** |", s / traces.len().max(1) as f64)?;
            }
            writeln!(md, "{row}\n")?;
            let scheme_names = || FIG7_SCHEMES.iter().map(|s| s.0.to_string());
            figures.bars(
                &mut md,
                &format!("fig7a-{}", FIG7_SLUGS[bi]),
                bars(
                    &format!("Fig. 7a ({start}): write latency / SPA-SSD's"),
                    "trace",
                    "normalised mean write latency",
                    trace_names.clone(),
                    scheme_names().zip(plotted).collect(),
                ),
            );
            writeln!(md, "### Fig. 7b ({start}): SLC hit ratio (% of user page writes served by SLC)\n")?;
            write_header(&mut md, "trace", FIG7_SCHEMES.iter().map(|s| s.0))?;
            let mut hit_sums = vec![0.0; FIG7_SCHEMES.len()];
            let mut hits = vec![Vec::new(); FIG7_SCHEMES.len()];
            for &t in &traces {
                let mut row = format!("| {} |", spa_traces[t].name);
                for (si, sum) in hit_sums.iter_mut().enumerate() {
                    let (_, o) = get(Fig::F7 { trace: t, scheme: si, start: bi });
                    let hit = o.report.hybrid.as_ref().map_or(0.0, |h| h.slc_hit_ratio) * 100.0;
                    *sum += hit;
                    hits[si].push(hit);
                    write!(row, " {hit:.1} |")?;
                }
                writeln!(md, "{row}")?;
            }
            let mut row = "| **mean** |".to_string();
            for s in &hit_sums {
                write!(row, " **{:.1}** |", s / traces.len().max(1) as f64)?;
            }
            writeln!(md, "{row}\n")?;
            figures.bars(
                &mut md,
                &format!("fig7b-{}", FIG7_SLUGS[bi]),
                bars(
                    &format!("Fig. 7b ({start}): SLC hit ratio (%)"),
                    "trace",
                    "% of user page writes in SLC",
                    trace_names,
                    scheme_names().zip(hits.clone()).collect(),
                ),
            );
            writeln!(md, "### Fig. 7c ({start}): mean read latency normalised to SPA-SSD (not in the paper)\n")?;
            write_header(&mut md, "trace (SPA-SSD mean)", FIG7_SCHEMES.iter().map(|s| s.0))?;
            let mut read_sums = vec![0.0; FIG7_SCHEMES.len()];
            for &t in &traces {
                let base = get(Fig::F7 { trace: t, scheme: spa, start: bi }).1.report.read.latency_ns.mean;
                let mut row = format!("| {} ({:.0} µs) |", spa_traces[t].name, base / 1e3);
                for (si, sum) in read_sums.iter_mut().enumerate() {
                    let v =
                        get(Fig::F7 { trace: t, scheme: si, start: bi }).1.report.read.latency_ns.mean / base.max(1e-9);
                    *sum += v;
                    write!(row, " {v:.2} |")?;
                }
                writeln!(md, "{row}")?;
            }
            writeln!(
                md,
                "| **mean** | {} |\n",
                read_sums
                    .iter()
                    .map(|s| format!("**{:.2}**", s / traces.len().max(1) as f64))
                    .collect::<Vec<_>>()
                    .join(" | ")
            )?;
            if bi == 0 {
                let best_other = best_other_hits(&hit_sums, spa);
                checks.push(check(
                    "Fig. 7: SPA-SSD's mean SLC hit ratio exceeds every other device's (SLC full at the start)"
                        .to_string(),
                    "Fig. 7b",
                    "yes",
                    fig7_spa_hits_highest(&hit_sums, spa),
                    format!(
                        "{:.1}% vs at most {:.1}%",
                        hit_sums[spa] / traces.len().max(1) as f64,
                        best_other / traces.len().max(1) as f64
                    ),
                ));
                let lowest = traces.iter().all(|&t| {
                    let base = get(Fig::F7 { trace: t, scheme: spa, start: bi }).1.report.write.latency_ns.mean;
                    (0..spa).all(|si| {
                        get(Fig::F7 { trace: t, scheme: si, start: bi }).1.report.write.latency_ns.mean >= base
                    })
                });
                checks.push(Claim {
                    what: "SPA-SSD has the lowest mean write latency on every trace (SLC full at the start)".into(),
                    figure: "Fig. 7a",
                    paper: "yes".into(),
                    measured: format!("mean normalised latencies {}", sums_text(&sums, traces.len())),
                    verdict: if lowest { "holds" } else { "no" }.into(),
                    required: false,
                });
            }
            // The paper's numbers, in the two regimes that start with the SLC full: SLC full at
            // the start (idle gaps as traced) and no idle time at all (the paper's regime).
            let regime = match bi {
                0 => Some(("SLC full at the start", ["fig7_means", "fig7_spa_hits", "fig7_base_hits"])),
                2 => Some((
                    "no idle time, closed loop",
                    ["fig7_closed_means", "fig7_closed_spa_hits", "fig7_closed_base_hits"],
                )),
                _ => None,
            };
            if let Some((label, [means_key, hits_key, base_key])) = regime {
                for (si, paper) in [(0usize, 200.0), (1, 147.0), (2, 244.0)] {
                    let got = sums[si] / traces.len().max(1) as f64;
                    checks.push(Claim {
                        what: format!("{}'s mean write latency / SPA-SSD's ({label})", FIG7_SCHEMES[si].0),
                        figure: "Fig. 7a",
                        paper: format!("{paper:.0}×"),
                        measured: format!("{got:.2}×"),
                        verdict: verdict(paper - 1.0, got - 1.0).into(),
                        required: false,
                    });
                }
                let hit = hit_sums[spa] / traces.len().max(1) as f64 / 100.0;
                checks.push(Claim {
                    what: format!("SPA-SSD's SLC hit ratio ({label}, mean over traces)"),
                    figure: "Fig. 7b",
                    paper: "> 99%".into(),
                    measured: format!("{:.1}%", hit * 100.0),
                    verdict: if hit > 0.99 {
                        "holds"
                    } else if hit > 0.66 {
                        "direction only"
                    } else {
                        "no"
                    }
                    .into(),
                    required: false,
                });
                values.insert(means_key, sums_text(&sums, traces.len()));
                values.insert(hits_key, format!("{:.1}%", hit * 100.0));
                let base: Vec<f64> = hits[..spa].iter().flatten().copied().collect();
                let (lo, hi) =
                    (base.iter().copied().fold(f64::INFINITY, f64::min), base.iter().copied().fold(0.0, f64::max));
                values.insert(base_key, format!("{lo:.0}–{hi:.0}%"));
            }
            if bi == 2 {
                values.insert("fig7_closed_reads", sums_text(&read_sums, traces.len()));
            }
        }
        writeln!(
            md,
            "Paper (SPA §VI-C, Fig. 7): SPA-SSD's write latency is 1/200 of TW&BG's, 1/147 of HC&BG's and 1/244 of \
             PF&BG's on average (normalised 200 / 147 / 244 / 1); SPA-SSD serves over 99% of user writes from SLC, \
             the others as few as 3.8%.\n"
        )?;
    }

    // ---------------------------------------------------------------- commands
    writeln!(md, "## Commands\n")?;
    writeln!(md, "The whole report: `{command}` (`--only fig3,fig5,fig6,fig7` or Fig. 7 trace names select parts; `--scale` multiplies the synthetic request counts). One `ssdlab run` per table cell, for example:\n")?;
    writeln!(md, "```sh")?;
    let mut shown = std::collections::HashSet::new();
    for job in &jobs {
        let key = match job.fig {
            Fig::F3 { ql, geometry, variant } => (geometry == FIG3_GEOMETRY.len() - 1 && ql == 0).then_some(variant),
            Fig::F5 { alloc } => Some(10 + alloc),
            Fig::F6 { ql, migration } => (FIG6_QL[ql] == 128).then_some(20 + migration),
            Fig::F7 { trace, scheme, start } => (trace == traces[0] && start == 0).then_some(30 + scheme),
        };
        if let Some(k) = key {
            if shown.insert(k) {
                writeln!(md, "{}", job.command(spa_traces))?;
            }
        }
    }
    writeln!(md, "```\n")?;

    // The claims table goes to the top, its counts first.
    let mut top = String::new();
    writeln!(top, "{}", verdict_counts(&checks, ""))?;
    md.insert_str(header_at, &top);
    let mut acc = String::new();
    write_claims(&mut acc, &checks, "The required checks (issue 5) hold or not.")?;
    md.insert_str(checks_at + top.len(), &acc);

    let template = crate::reproduce::run_discussion(args, "spa-ssd");
    writeln!(md, "{}", crate::reproduce::claims::fill(&template, &values)?.trim_end())?;
    figures.write_report(&args.out, &md)?;
    println!("wrote {} ({} simulations in {wall:.1} s)", args.out.display(), outcomes.len());
    // Required checks gate the command (REPRODUCING.md; issue 16: it exited 0 before).
    crate::reproduce::claims::gate(&checks, "spa-ssd")
}

fn sums_text(sums: &[f64], n: usize) -> String {
    FIG7_SCHEMES
        .iter()
        .zip(sums)
        .map(|((name, _, _), s)| format!("{name} {:.2}", s / n.max(1) as f64))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fig. 3's saturation point: the first geometry (fewest dies) whose throughput reaches 95%
/// of the column's best; the required checks compare its dies with the paper's.
fn saturation(throughput: &[f64]) -> usize {
    let best = throughput.iter().copied().fold(0.0, f64::max);
    throughput.iter().position(|&t| t >= 0.95 * best).unwrap_or(0)
}

/// Fig. 5's required check: TPJ-PA's SLC-stage throughput above another allocation's; a
/// run without an SLC stage counts as 0 MiB/s, so TPJ-PA without one cannot pass.
fn fig5_tpj_above(tpj: Option<f64>, other: Option<f64>) -> bool {
    tpj.unwrap_or(0.0) > other.unwrap_or(0.0)
}

/// Fig. 6's required check: QPC-DM's whole-run write throughput strictly above BG-DM's.
fn fig6_qpc_above(qpc: f64, bg: f64) -> bool {
    qpc > bg
}

/// The highest SLC hit-ratio sum among the devices before SPA-SSD (index `spa`) in
/// `FIG7_SCHEMES`; 0 when there are none.
fn best_other_hits(hit_sums: &[f64], spa: usize) -> f64 {
    hit_sums[..spa].iter().copied().fold(0.0, f64::max)
}

/// Fig. 7b's required check: SPA-SSD's SLC hit-ratio sum over the traces strictly above
/// every other device's (a tie fails).
fn fig7_spa_hits_highest(hit_sums: &[f64], spa: usize) -> bool {
    hit_sums[spa] > best_other_hits(hit_sums, spa)
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn the_fig5_check_fails_when_tpj_pa_is_not_faster_in_the_slc_stage() {
        assert!(fig5_tpj_above(Some(900.0), Some(560.0)));
        // A wrong allocator that puts no more in the SLC than TW-PA: equal stages fail.
        assert!(!fig5_tpj_above(Some(560.0), Some(560.0)));
        assert!(!fig5_tpj_above(Some(300.0), Some(560.0)));
        // TPJ-PA never reaching an SLC stage (the SLC exhausted at once) fails too.
        assert!(!fig5_tpj_above(None, Some(560.0)));
        assert!(fig5_tpj_above(Some(560.0), None));
    }

    #[test]
    fn the_fig6_check_fails_when_qpc_dm_does_not_beat_bg_dm() {
        assert!(fig6_qpc_above(120.0, 40.0));
        // Migration that never pauses for the queue behaves like BG-DM: equal fails.
        assert!(!fig6_qpc_above(40.0, 40.0));
        assert!(!fig6_qpc_above(30.0, 40.0));
    }

    #[test]
    fn the_fig7b_check_fails_when_another_device_hits_the_slc_as_often() {
        let spa = FIG7_SCHEMES.len() - 1;
        assert_eq!(FIG7_SCHEMES[spa].0, "SPA-SSD", "SPA-SSD is the last scheme");
        let mut sums = vec![10.0; FIG7_SCHEMES.len()];
        sums[spa] = 99.0;
        assert!(fig7_spa_hits_highest(&sums, spa));
        assert_eq!(best_other_hits(&sums, spa), 10.0);
        // One baseline matching SPA-SSD (a tie) or beating it fails the check.
        sums[0] = 99.0;
        assert!(!fig7_spa_hits_highest(&sums, spa));
        sums[0] = 99.5;
        assert!(!fig7_spa_hits_highest(&sums, spa));
    }

    #[test]
    fn the_saturation_check_fails_on_a_curve_that_saturates_elsewhere() {
        // Dies of each geometry, as Fig. 3 sweeps them.
        let dies: Vec<u32> = FIG3_GEOMETRY.iter().map(|&(c, d)| 8 * c * d).collect();
        let at = dies.iter().position(|&d| d == 48).expect("48 dies swept");
        // Throughput rising with dies up to 48, flat after: saturates at 48.
        let rising: Vec<f64> = dies.iter().map(|&d| d.min(48) as f64).collect();
        assert_eq!(dies[saturation(&rising)], 48);
        // A wrong model where the bus limits throughput from the start: saturates at the
        // fewest dies, so the check (48 dies) fails.
        let flat = vec![10.0; dies.len()];
        assert_eq!(saturation(&flat), 0);
        assert_ne!(dies[saturation(&flat)], dies[at]);
    }
}
