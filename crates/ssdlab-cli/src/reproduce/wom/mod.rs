//! `ssdlab reproduce wom-scrub`: the thesis' WOM codes (§6.1, Fig. 6.1) and scrubbing and
//! sanitisation (§6.2, Figs. 6.5 and 6.6), following REPRODUCING.md: a claims table with
//! computed verdicts first, required checks that set the exit code, workloads from a
//! manifest (`--traces DIR`) or the built-in list plus two synthetic ones, and a
//! discussion template filled from the run. The experiments are in `jobs.rs`.

pub mod jobs;

use crate::figures::Figures;
use crate::plot::BarChart;
use crate::reproduce::claims::{fill, mean, pct, verdict, verdict_counts, write_claims, Claim, NOT_RUN};
use crate::reproduce::ReproduceArgs;
use anyhow::Result;
use jobs::{run_job, traces, Cell, Job, Load, Measured, Setting, BUSY, IDLE_RICH, SYNTHETIC, UNLIMITED};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Sequential passes over the WOM drive (the steady state is what the second half adds).
const WOM_PASSES: u64 = 8;

/// The Fig. 6.5 settings per cell, in table order (label, cell, setting).
const FIG65: [(&str, Cell, Setting); 7] = [
    ("SLC immediate", Cell::Slc, Setting::Immediate(UNLIMITED)),
    ("SLC background", Cell::Slc, Setting::Background(UNLIMITED)),
    ("MLC immediate 0 (erase only)", Cell::Mlc, Setting::Immediate(0)),
    ("MLC immediate 16", Cell::Mlc, Setting::Immediate(16)),
    ("MLC immediate 64", Cell::Mlc, Setting::Immediate(64)),
    ("MLC background 16", Cell::Mlc, Setting::Background(16)),
    ("MLC background 64", Cell::Mlc, Setting::Background(64)),
];

/// Fig. 6.6's settings (label, cell, budget).
const FIG66: [(&str, Cell, u32); 4] =
    [("SLC", Cell::Slc, UNLIMITED), ("MLC 0", Cell::Mlc, 0), ("MLC 16", Cell::Mlc, 16), ("MLC 64", Cell::Mlc, 64)];

pub fn wom_scrub(args: &ReproduceArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let (traces, source) = traces(args)?;
    let mut loads: Vec<(String, Load)> =
        traces.iter().enumerate().map(|(i, t)| (t.entry.name.clone(), Load::Trace(i))).collect();
    for (k, (name, _)) in SYNTHETIC.iter().enumerate() {
        if args.only.is_empty() || args.only.iter().any(|o| o == name) {
            loads.push((name.to_string(), Load::Synthetic(k)));
        }
    }
    let job = |load, cell, setting, passes| Job { load, cell, setting, passes };
    let mut jobs = Vec::new();
    for &(_, load) in &loads {
        for cell in [Cell::Slc, Cell::Mlc] {
            jobs.push(job(load, cell, Setting::Plain, 0));
        }
        for &(_, cell, setting) in &FIG65 {
            jobs.push(job(load, cell, setting, 0));
        }
        for budget in [16, 64] {
            jobs.push(job(load, Cell::Mlc, Setting::Alone(budget), 0));
        }
        for b in [None, Some(16), Some(64)] {
            jobs.push(job(load, Cell::Mlc, Setting::Closed(b), 0));
        }
        if let Load::Trace(_) = load {
            for &(_, cell, budget) in &FIG66 {
                jobs.push(job(load, cell, Setting::Sanitize(budget), 0));
            }
            for cell in [Cell::Slc, Cell::Mlc] {
                for on in [false, true] {
                    jobs.push(job(load, cell, Setting::WomDrive(on), 0));
                }
            }
        }
    }
    let passes = ((WOM_PASSES as f64 * args.scale).round() as u64).max(2);
    for cell in [Cell::Slc, Cell::Mlc] {
        for on in [false, true] {
            for p in [passes, 2 * passes] {
                jobs.push(job(Load::Synthetic(0), cell, Setting::WomDrive(on), p));
            }
        }
    }
    let results: Vec<Measured> = jobs.par_iter().map(|j| run_job(j, &traces, args.scale)).collect::<Result<_>>()?;
    let by: BTreeMap<Job, Measured> = jobs.iter().copied().zip(results).collect();
    let get = |load, cell, setting, passes| &by[&job(load, cell, setting, passes)];
    let names: Vec<String> = loads.iter().map(|l| l.0.clone()).collect();
    let trace_loads: Vec<usize> = (0..loads.len()).filter(|&i| matches!(loads[i].1, Load::Trace(_))).collect();

    // Fig. 6.5: write latency over the same workload without scrubbing.
    let ratio = |i: usize, cell, setting, f: &dyn Fn(&Measured) -> f64| {
        f(get(loads[i].1, cell, setting, 0)) / f(get(loads[i].1, cell, Setting::Plain, 0))
    };
    let write = |m: &Measured| m.write_us;
    let fig65: Vec<Vec<f64>> = FIG65
        .iter()
        .map(|&(_, cell, setting)| (0..loads.len()).map(|i| ratio(i, cell, setting, &write)).collect())
        .collect();
    // Run time under closed-loop replay (an open-loop replay's is fixed by the arrivals).
    let runtime: Vec<Vec<f64>> = [16, 64]
        .iter()
        .map(|&b| {
            (0..loads.len())
                .map(|i| {
                    let m = |s| get(loads[i].1, Cell::Mlc, Setting::Closed(s), 0).runtime_ns;
                    m(Some(b)) / m(None)
                })
                .collect()
        })
        .collect();
    let wear: Vec<Vec<f64>> = [Setting::Immediate(16), Setting::Immediate(64)]
        .iter()
        .map(|&s| (0..loads.len()).map(|i| ratio(i, Cell::Mlc, s, &|m: &Measured| m.erases)).collect())
        .collect();
    let alone: Vec<Vec<f64>> = [16, 64]
        .iter()
        .map(|&b| (0..loads.len()).map(|i| ratio(i, Cell::Mlc, Setting::Alone(b), &write)).collect())
        .collect();
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    };
    let slc_wear: Vec<f64> =
        (0..loads.len()).map(|i| ratio(i, Cell::Slc, Setting::Immediate(UNLIMITED), &|m| m.erases)).collect();
    // The thesis' groups (Fig. 6.5): a trace's from its manifest entry or its statistics
    // (workloads::groups), never its name; each synthetic workload is its own group.
    let groups_of: Vec<Vec<String>> = loads
        .iter()
        .map(|(_, load)| match *load {
            Load::Trace(t) => crate::reproduce::workloads::groups(&traces[t].entry, &traces[t].records),
            Load::Synthetic(k) => vec![SYNTHETIC[k].0.to_string()],
        })
        .collect();
    let in_group =
        |g: &str| -> Vec<usize> { (0..loads.len()).filter(|&i| groups_of[i].iter().any(|x| x == g)).collect() };
    let group = |g: &str, row: usize| -> Vec<f64> { in_group(g).into_iter().map(|i| fig65[row][i]).collect() };
    let members = |g: &str| {
        let m: Vec<&str> = in_group(g).into_iter().map(|i| names[i].as_str()).collect();
        if m.is_empty() {
            format!("none ran that is {g}")
        } else {
            m.join(", ")
        }
    };
    // Fig. 6.6: sanitising 1 GiB after each trace.
    let fig66: Vec<Vec<(f64, f64)>> = FIG66
        .iter()
        .map(|&(_, cell, b)| {
            trace_loads
                .iter()
                .map(|&i| {
                    let m = get(loads[i].1, cell, Setting::Sanitize(b), 0);
                    (m.sanitize_s, m.scan_s)
                })
                .collect()
        })
        .collect();
    // WOM: page writes per erase in the steady state (what the second half of the passes
    // added), with the code over without; and program + erase energy per logical byte.
    let steady = |cell, on| {
        let (a, b) = (get(Load::Synthetic(0), cell, Setting::WomDrive(on), passes), {
            get(Load::Synthetic(0), cell, Setting::WomDrive(on), 2 * passes)
        });
        let per_erase = (b.logical_pages - a.logical_pages) / (b.erases - a.erases).max(1.0);
        let energy = (b.energy_nj - a.energy_nj) / (b.logical_pages - a.logical_pages).max(1.0);
        (per_erase, energy)
    };
    let wom_ratio = |cell| steady(cell, true).0 / steady(cell, false).0;
    let wom_energy = |cell| steady(cell, true).1 / steady(cell, false).1 - 1.0;
    let trace_wom = |i: usize, cell| {
        let m = |on| get(loads[i].1, cell, Setting::WomDrive(on), 0);
        let per = |m: &Measured| m.logical_pages / m.erases.max(1.0);
        (
            per(m(true)) / per(m(false)),
            m(true).energy_nj / m(true).logical_pages.max(1.0) / (m(false).energy_nj / m(false).logical_pages.max(1.0))
                - 1.0,
        )
    };

    let claims = claims(&Inputs {
        names: &names,
        fig65: &fig65,
        runtime: &runtime,
        wear: &wear,
        slc_wear: &slc_wear,
        idle: [group(IDLE_RICH, 5), group(IDLE_RICH, 6)],
        busy: [group(BUSY, 5), group(BUSY, 6), group(BUSY, 3), group(BUSY, 4)],
        members: [members(IDLE_RICH), members(BUSY)],
        fig66: &fig66,
        wom: [(wom_ratio(Cell::Mlc), wom_energy(Cell::Mlc)), (wom_ratio(Cell::Slc), wom_energy(Cell::Slc))],
        median: fig65.iter().map(|v| median(v)).collect(),
    });

    let mut md = String::new();
    writeln!(md, "# WOM codes and scrubbing (Grupp thesis §6.1–6.2) reproduced\n")?;
    writeln!(md, "{}", verdict_counts(&claims, ""))?;
    writeln!(md, "Command: `ssdlab reproduce wom-scrub{}`. Workloads: {}.\n", args.run_flags(), {
        let traces_part = if traces.is_empty() { None } else { Some(source.clone()) };
        let synth: Vec<&str> =
            loads.iter().filter(|l| matches!(l.1, Load::Synthetic(_))).map(|l| l.0.as_str()).collect();
        let synth_part = (!synth.is_empty()).then(|| format!("the synthetic {}", synth.join(" and ")));
        [traces_part, synth_part].into_iter().flatten().collect::<Vec<_>>().join(", and ")
    })?;
    write_claims(
        &mut md,
        &claims,
        "\"No effect\" holds within ±10%; a bound (\"under 30 s\") holds when met. Fig. 6.5's slowdowns \
         are means over every workload run unless the row names a group.",
    )?;
    let synthetic_run: Vec<&str> =
        loads.iter().filter(|l| matches!(l.1, Load::Synthetic(_))).map(|l| l.0.as_str()).collect();
    let manifest = crate::reproduce::workloads::manifest_entries(args)?.is_some();
    setup(&mut md, &traces, passes, &synthetic_run, manifest, &groups_of)?;
    let mut figures = Figures::new(&args.out);
    tables(&mut md, &mut figures, &names, &fig65, &runtime, &wear, &loads, &get)?;
    writeln!(md, "### Ablation: MLC immediate scrubbing of the target alone (no shared-cell scrub), write latency normalised to no scrubbing\n")?;
    writeln!(
        md,
        "| workload | budget 16 | budget 16, alone | budget 64 | budget 64, alone |\n|---|---:|---:|---:|---:|"
    )?;
    for (i, name) in names.iter().enumerate() {
        writeln!(md, "| {name} | {:.2} | {:.2} | {:.2} | {:.2} |", fig65[3][i], alone[0][i], fig65[4][i], alone[1][i])?;
    }
    writeln!(
        md,
        "| mean | {:.2} | {:.2} | {:.2} | {:.2} |",
        mean(&fig65[3]),
        mean(&alone[0]),
        mean(&fig65[4]),
        mean(&alone[1])
    )?;
    writeln!(
        md,
        "| median | {:.2} | {:.2} | {:.2} | {:.2} |\n",
        median(&fig65[3]),
        median(&alone[0]),
        median(&fig65[4]),
        median(&alone[1])
    )?;
    writeln!(md, "### Fig. 6.6: sanitising 1 GiB once the trace is done (latency s / summary scan s)\n")?;
    crate::reproduce::write_header(&mut md, "workload", FIG66.iter().map(|f| f.0))?;
    for (k, &i) in trace_loads.iter().enumerate() {
        let cells: Vec<String> =
            (0..FIG66.len()).map(|f| format!("{:.2} / {:.2}", fig66[f][k].0, fig66[f][k].1)).collect();
        writeln!(md, "| {} | {} |", names[i], cells.join(" | "))?;
    }
    writeln!(md)?;
    writeln!(md, "### Fig. 6.1: WOM codes, page writes per erase and program energy per logical byte\n")?;
    writeln!(md, "| workload | cell | writes per erase, plain | with WOM | ratio | program + erase energy |\n|---|---|---:|---:|---:|---:|")?;
    for cell in [Cell::Slc, Cell::Mlc] {
        let (plain, on) = (steady(cell, false), steady(cell, true));
        writeln!(
            md,
            "| sequential rewrites (steady state) | {cell:?} | {:.1} | {:.1} | {:.3} | {} |",
            plain.0,
            on.0,
            on.0 / plain.0,
            pct(on.1 / plain.1 - 1.0)
        )?;
    }
    for &i in &trace_loads {
        for cell in [Cell::Slc, Cell::Mlc] {
            let (r, e) = trace_wom(i, cell);
            writeln!(md, "| {} (whole run, labelled) | {cell:?} | | | {r:.3} | {} |", names[i], pct(e))?;
        }
    }
    writeln!(md)?;

    let mut values: BTreeMap<&str, String> = BTreeMap::new();
    let x = |v: f64| if v < 10.0 { format!("{v:.2}×") } else { format!("{v:.1}×") };
    values.insert("slc_immediate", x(mean(&fig65[0])));
    values.insert("slc_background", x(mean(&fig65[1])));
    values.insert("mlc_erase_only", x(mean(&fig65[2])));
    values.insert("mlc_16", x(mean(&fig65[3])));
    values.insert("mlc_64", x(mean(&fig65[4])));
    let gx = |v: Vec<f64>| if v.is_empty() { "nothing (none ran)".to_string() } else { x(mean(&v)) };
    values.insert("idle_bg_16", gx(group(IDLE_RICH, 5)));
    values.insert("idle_bg_64", gx(group(IDLE_RICH, 6)));
    values.insert("busy_bg_16", gx(group(BUSY, 5)));
    values.insert("busy_bg_64", gx(group(BUSY, 6)));
    values.insert("idle_members", members(IDLE_RICH));
    values.insert("busy_members", members(BUSY));
    values.insert("alone_16", x(mean(&alone[0])));
    values.insert("alone_64", x(mean(&alone[1])));
    values.insert("median_0", x(median(&fig65[2])));
    values.insert("median_16", x(median(&fig65[3])));
    values.insert("median_64", x(median(&fig65[4])));
    values.insert("wear_16", x(mean(&wear[0])));
    values.insert("slc_wear", x(mean(&slc_wear)));
    let changed: Vec<String> = (0..loads.len())
        .filter(|&i| (slc_wear[i] - 1.0).abs() > 0.01)
        .map(|i| format!("{} ({})", names[i], x(slc_wear[i])))
        .collect();
    values.insert("slc_wear_changed", if changed.is_empty() { "no workload".to_string() } else { changed.join(", ") });
    values.insert("wear_64", x(mean(&wear[1])));
    values.insert("wom_mlc", format!("{:.3}", wom_ratio(Cell::Mlc)));
    values.insert("wom_slc", format!("{:.3}", wom_ratio(Cell::Slc)));
    values.insert("wom_energy_mlc", pct(wom_energy(Cell::Mlc)));
    values.insert("wom_energy_slc", pct(wom_energy(Cell::Slc)));
    let max_of = |f: usize, scan: bool| fig66[f].iter().map(|v| if scan { v.1 } else { v.0 }).fold(0.0, f64::max);
    values.insert("sanitize_max", format!("{:.1} s", (0..FIG66.len()).map(|f| max_of(f, false)).fold(0.0, f64::max)));
    values.insert("scan_slc", format!("{:.2} s", max_of(0, true)));
    values.insert("sanitize_erase_only", format!("{:.1} s", max_of(1, false)));
    values.insert("sanitize_slc", format!("{:.1} s", max_of(0, false)));
    let saving = (0..fig66[1].len())
        .map(|k| 1.0 - fig66[2][k].0.min(fig66[3][k].0) / fig66[1][k].0.max(1e-9))
        .fold(0.0, f64::max);
    values.insert("sanitize_saving", format!("{:.0}%", saving * 100.0));
    values.insert("scan_mlc", format!("{:.2} s", max_of(1, true)));
    let template = crate::reproduce::run_discussion(args, "wom-scrub");
    writeln!(md, "{}", fill(&template, &values)?.trim_end())?;
    writeln!(md, "\n## Commands\n\nEach cell is one run; for example:\n\n```")?;
    let first = loads[0].1;
    for (cell, setting, passes) in [
        (Cell::Mlc, Setting::Immediate(16), 0),
        (Cell::Mlc, Setting::Sanitize(16), 0),
        (Cell::Slc, Setting::WomDrive(true), passes),
    ] {
        let load = if passes > 0 { Load::Synthetic(0) } else { first };
        if let Some(m) = by.get(&job(load, cell, setting, passes)) {
            writeln!(md, "{}", m.command)?;
        }
    }
    writeln!(md, "```")?;
    figures.write_report(&args.out, &md)?;
    println!("wrote {} ({} simulations in {:.1} s)", args.out.display(), jobs.len(), started.elapsed().as_secs_f64());
    crate::reproduce::claims::gate(&claims, "wom-scrub")
}

/// What the claims are computed from.
struct Inputs<'a> {
    names: &'a [String],
    fig65: &'a [Vec<f64>],
    runtime: &'a [Vec<f64>],
    wear: &'a [Vec<f64>],
    slc_wear: &'a [f64],
    /// Background 16 and 64 on idle-rich workloads.
    idle: [Vec<f64>; 2],
    /// Background 16, 64 and immediate 16, 64 on busy workloads.
    busy: [Vec<f64>; 4],
    /// The idle-rich and the busy workloads' names.
    members: [String; 2],
    fig66: &'a [Vec<(f64, f64)>],
    /// (writes-per-erase ratio, energy change) for MLC and SLC.
    wom: [(f64, f64); 2],
    /// The median over workloads of each Fig. 6.5 row.
    median: Vec<f64>,
}

fn claims(i: &Inputs) -> Vec<Claim> {
    let mut claims = Vec::new();
    let x = |v: f64| format!("{v:.2}×");
    let times = |what: &str, figure, paper: &str, p: f64, v: &[f64]| {
        let m = mean(v);
        let measured = if v.is_empty() { "not run".to_string() } else { x(m) };
        Claim {
            what: what.to_string(),
            figure,
            paper: paper.to_string(),
            measured,
            verdict: if v.is_empty() { NOT_RUN } else { verdict(p - 1.0, m - 1.0) }.to_string(),
            required: false,
        }
    };
    let none = |what: &str, figure, paper: &str, v: &[f64]| {
        let m = mean(v);
        Claim {
            what: what.to_string(),
            figure,
            paper: paper.to_string(),
            measured: if v.is_empty() { "not run".to_string() } else { x(m) },
            verdict: if v.is_empty() {
                NOT_RUN
            } else if (m - 1.0).abs() <= 0.10 {
                "holds"
            } else {
                "no"
            }
            .to_string(),
            required: false,
        }
    };
    let (idle, busy) = (&i.members[0], &i.members[1]);
    let f = i.fig65;
    claims.push(times(
        "SLC, immediate scrubbing: write latency vs no scrubbing (caption; the text says no decrease)",
        "Fig. 6.5",
        "≈ 2×",
        2.0,
        &f[0],
    ));
    claims.push(none(
        "SLC, background scrubbing: write latency vs no scrubbing",
        "Fig. 6.5",
        "almost no effect",
        &f[1],
    ));
    claims.push(none(
        "SLC scrubbing needs no additional erases (immediate: erases vs none)",
        "§6.2.3",
        "none",
        i.slc_wear,
    ));
    claims.push(times("MLC, immediate, budget 16: write latency vs no scrubbing", "Fig. 6.5", "6.4×", 6.4, &f[3]));
    claims.push(times("MLC, immediate, budget 64: write latency vs no scrubbing", "Fig. 6.5", "2.0×", 2.0, &f[4]));
    claims.push(times("MLC, erase only (budget 0): write latency vs no scrubbing", "Fig. 6.5", "130×", 130.0, &f[2]));
    claims.push(times(
        "MLC, immediate, budget 16: run time (closed-loop replay), largest increase over workloads",
        "§6.2.3",
        "up to 11.0×",
        11.0,
        &i.runtime[0].iter().copied().reduce(f64::max).into_iter().collect::<Vec<_>>(),
    ));
    claims.push(times(
        "MLC, immediate, budget 64: run time (closed-loop replay), largest increase over workloads",
        "§6.2.3",
        "up to 3.2×",
        3.2,
        &i.runtime[1].iter().copied().reduce(f64::max).into_iter().collect::<Vec<_>>(),
    ));
    claims.push(times("MLC scrubbing wear, budget 16: erases vs no scrubbing", "§6.2.3", "5.1×", 5.1, &i.wear[0]));
    claims.push(times("MLC scrubbing wear, budget 64: erases vs no scrubbing", "§6.2.3", "2.0×", 2.0, &i.wear[1]));
    claims.push(none(
        &format!("MLC, background, budget 16, idle-rich workloads ({idle}): write latency"),
        "Fig. 6.5",
        "negligible",
        &i.idle[0],
    ));
    claims.push(none(
        "MLC, background, budget 64, idle-rich workloads: write latency",
        "Fig. 6.5",
        "negligible",
        &i.idle[1],
    ));
    claims.push(times(
        &format!("MLC, background, budget 16, busy workloads ({busy}): write latency"),
        "Fig. 6.5",
        "126×",
        126.0,
        &i.busy[0],
    ));
    claims.push(times(
        "MLC, background, budget 64, busy workloads: write latency",
        "Fig. 6.5",
        "85×",
        85.0,
        &i.busy[1],
    ));
    claims.push(times(
        "MLC, immediate, budget 16, busy workloads: write latency",
        "§6.2.3",
        "4.1…7.9×",
        6.0,
        &i.busy[2],
    ));
    claims.push(times(
        "MLC, immediate, budget 64, busy workloads: write latency",
        "§6.2.3",
        "1.9…2.0×",
        1.95,
        &i.busy[3],
    ));
    // Fig. 6.6.
    let all: Vec<f64> = i.fig66.iter().flat_map(|v| v.iter().map(|x| x.0)).collect();
    let longest = all.iter().copied().fold(0.0, f64::max);
    claims.push(Claim {
        what: "Sanitising 1 GiB once a trace is done, every budget: the longest".into(),
        figure: "Fig. 6.6",
        paper: "under 30 s".into(),
        measured: if all.is_empty() { "not run".into() } else { format!("{longest:.2} s") },
        verdict: if all.is_empty() {
            NOT_RUN
        } else if longest < 30.0 {
            "holds"
        } else {
            "no"
        }
        .into(),
        required: false,
    });
    let erase_only = i.fig66[1].iter().map(|x| x.0).fold(0.0, f64::max);
    claims.push(Claim {
        what: "Sanitising 1 GiB with erases only (MLC budget 0): the longest".into(),
        figure: "Fig. 6.6",
        paper: "22 s".into(),
        measured: if i.fig66[1].is_empty() { "not run".into() } else { format!("{erase_only:.2} s") },
        verdict: if i.fig66[1].is_empty() { NOT_RUN } else { verdict(22.0, erase_only) }.into(),
        required: false,
    });
    let saving = (0..i.fig66[1].len())
        .map(|k| 1.0 - i.fig66[2][k].0.min(i.fig66[3][k].0) / i.fig66[1][k].0.max(1e-9))
        .fold(f64::MIN, f64::max);
    claims.push(Claim {
        what: "Scrubbing shortens the sanitisation vs erases only (MLC, best budget), the most over traces".into(),
        figure: "Fig. 6.6",
        paper: "up to 47%".into(),
        measured: if i.fig66[1].is_empty() { "not run".into() } else { format!("{:.0}%", saving * 100.0) },
        verdict: if i.fig66[1].is_empty() { NOT_RUN.into() } else { verdict(0.47, saving).into() },
        required: false,
    });
    for (label, f, paper) in [("SLC", 0, 0.64), ("MLC", 1, 1.3)] {
        let scan = i.fig66[f].iter().map(|x| x.1).fold(0.0, f64::max);
        claims.push(Claim {
            what: format!("Reading every block's summary of the 16 GiB drive ({label})"),
            figure: "§6.2.3",
            paper: format!("{paper} s"),
            measured: if i.fig66[f].is_empty() { "not run".into() } else { format!("{scan:.2} s") },
            verdict: if i.fig66[f].is_empty() { NOT_RUN } else { verdict(paper, scan) }.into(),
            required: false,
        });
    }
    // WOM (§6.1).
    for (k, (label, paper)) in [("MLC", 1.16), ("SLC", 1.33)].into_iter().enumerate() {
        claims.push(Claim {
            what: format!(
                "**Required:** WOM codes, {label}: bytes written per erase over the uncoded drive's, above 1 \
                 (sequential rewrites, steady state)"
            ),
            figure: "§6.1",
            paper: format!("{paper}×"),
            measured: format!("{:.3}×", i.wom[k].0),
            verdict: wom_verdict(paper, i.wom[k].0).into(),
            required: true,
        });
    }
    claims.push(Claim {
        what: "WOM codes: program energy per logical bit (program + erase energy, mean of MLC and SLC)".into(),
        figure: "Fig. 6.1",
        paper: "−9.5%".into(),
        measured: pct((i.wom[0].1 + i.wom[1].1) / 2.0),
        verdict: verdict(-0.095, (i.wom[0].1 + i.wom[1].1) / 2.0).into(),
        required: false,
    });
    claims.push(Claim {
        what: "WOM codes: logical bytes written before the fatal error rate (not measured: the error model \
               has no term for reprogrammed WOM pages)"
            .into(),
        figure: "Fig. 6.2",
        paper: "up to 5.2×".into(),
        measured: "—".into(),
        verdict: "not measured (not modelled)".into(),
        required: false,
    });
    // Required (issue 21): a smaller budget costs more write latency.
    claims.push(Claim {
        what: "**Required:** MLC immediate scrubbing: a smaller scrub budget costs more write latency \
               (budget 0 > 16 > 64, mean slowdown)"
            .into(),
        figure: "Fig. 6.5",
        paper: "130× > 6.4× > 2.0×".into(),
        measured: format!("{} > {} > {}", x(mean(&f[2])), x(mean(&f[3])), x(mean(&f[4]))),
        verdict: budget_order_verdict(mean(&f[2]), mean(&f[3]), mean(&f[4])).into(),
        required: true,
    });
    // Per-workload summaries, labelled: the median is not dominated by saturated runs.
    for (row, label, paper) in [(3, "budget 16", 6.4), (4, "budget 64", 2.0), (2, "budget 0", 130.0)] {
        let mut c = times(
            &format!("MLC, immediate, {label}: write latency vs no scrubbing, median over workloads (labelled)"),
            "Fig. 6.5",
            &format!("{paper}× (mean)"),
            paper,
            &[],
        );
        let m = i.median[row];
        c.measured = x(m);
        c.verdict = verdict(paper - 1.0, m - 1.0).into();
        claims.push(c);
    }
    let _ = i.names;
    claims
}

/// The Setup section: the drives, then the workloads that ran (`synthetic`: the synthetic
/// ones `--only` kept; `manifest`: whether a manifest chose the traces; `groups`: each
/// trace's groups, in order, then the synthetic ones').
fn setup(
    md: &mut String,
    traces: &[crate::reproduce::workloads::Trace],
    passes: u64,
    synthetic: &[&str],
    manifest: bool,
    groups: &[Vec<String>],
) -> Result<()> {
    writeln!(
        md,
        "## Setup\n\n{}\n",
        crate::reproduce::load::as_given(
            "scrubbing spends its budget in the idle time of the traces' own arrivals, which slowing a workload \
             would add, and the run-time claims replay closed loop on purpose."
        )
    )?;
    writeln!(
        md,
        "- Drives (thesis §6.2.3, \"a small, 16 GB SSD with 15% spare area\", E-SLC8 and F-MLC16): the \
         `scrub-slc` and `scrub-mlc` presets (docs/presets.md), filled with every logical page placed at \
         random (rapid warm-up, §4.2.2; ssdlab's fill shuffles 256-MiB windows of logical pages, so a          window's pages share blocks), block summaries on. Scrubbing by `--set scrub.mode=immediate|background` \
         and `scrub.budget_pages`; sanitisation by `scrub.mode=scan` and a 1 GiB sanitise command from the middle \
         of the logical space once the workload is done.\n\
         - WOM codes (§6.1 is a chip-level study): two drives cut from the same presets (2 dies, 64 blocks per \
         plane, no block summaries, over-provisioning 40% SLC / 30% MLC for the code's capacity), empty, \
         written sequentially {passes} and {} times over; the steady state is what the second half adds \
         (blocks still full at the end of a run cancel out). `--set wom.enabled=true` and without.\n\
         - Workloads ({}; a trace's group, idle-rich or busy, is its entry's `groups` or, without one, \
         computed from its arrivals: idle-rich when at least half its span is in gaps of 10 ms or more, busy \
         under a fifth):",
        2 * passes,
        if manifest {
            "the manifest's"
        } else {
            "the built-in list; the thesis' Table 6.2 traces are not available except Financial"
        }
    )?;
    for (k, t) in traces.iter().enumerate() {
        let g: Vec<&str> = groups[k].iter().map(String::as_str).filter(|g| *g == IDLE_RICH || *g == BUSY).collect();
        let g = if g.is_empty() { "in neither group".to_string() } else { g.join(", ") };
        writeln!(
            md,
            "  - {}: `{}` ({}, {} requests, replayed {} times; {g}): {}",
            t.entry.name,
            t.entry.file,
            t.entry.format,
            t.records.len(),
            t.entry.runs,
            t.entry.role
        )?;
    }
    for name in synthetic {
        let gap = if *name == IDLE_RICH { "2 ms" } else { "150 µs" };
        writeln!(md, "  - {name} (synthetic): random 4 KiB requests, 30% reads, in a 256 MiB region, {gap} apart.")?;
    }
    writeln!(md)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn tables<'a>(
    md: &mut String,
    figures: &mut Figures,
    names: &[String],
    fig65: &[Vec<f64>],
    runtime: &[Vec<f64>],
    wear: &[Vec<f64>],
    loads: &[(String, Load)],
    get: &dyn Fn(Load, Cell, Setting, u64) -> &'a Measured,
) -> Result<()> {
    writeln!(md, "### Fig. 6.5: write latency normalised to no scrubbing\n")?;
    crate::reproduce::write_header(md, "workload (no scrubbing: SLC / MLC µs)", FIG65.iter().map(|f| f.0))?;
    for (i, name) in names.iter().enumerate() {
        let (slc, mlc) = (
            get(loads[i].1, Cell::Slc, Setting::Plain, 0).write_us,
            get(loads[i].1, Cell::Mlc, Setting::Plain, 0).write_us,
        );
        let cells: Vec<String> = fig65.iter().map(|v| format!("{:.2}", v[i])).collect();
        writeln!(md, "| {name} ({slc:.0} / {mlc:.0}) | {} |", cells.join(" | "))?;
    }
    writeln!(md)?;
    figures.bars(
        md,
        "fig65",
        BarChart {
            title: "Fig. 6.5: write latency / no scrubbing (log10)".into(),
            x_label: "workload".into(),
            y_label: "log10 of the normalised write latency".into(),
            categories: names.to_vec(),
            groups: FIG65
                .iter()
                .zip(fig65)
                .map(|(f, v)| (f.0.to_string(), v.iter().map(|r| r.log10()).collect()))
                .collect(),
        },
    );
    writeln!(md, "### Immediate scrubbing: run time and erases over no scrubbing\n")?;
    writeln!(md, "| workload | MLC run time, 16 (closed loop) | MLC run time, 64 (closed loop) | MLC erases, 16 | MLC erases, 64 | SLC erases | MLC 16: stale copies at the start → at the end (outside GC victims) |\n|---|---:|---:|---:|---:|---:|---:|")?;
    for (i, name) in names.iter().enumerate() {
        let m = get(loads[i].1, Cell::Mlc, Setting::Immediate(16), 0);
        let slc = get(loads[i].1, Cell::Slc, Setting::Immediate(UNLIMITED), 0).erases
            / get(loads[i].1, Cell::Slc, Setting::Plain, 0).erases.max(1.0);
        writeln!(
            md,
            "| {name} | {:.2} | {:.2} | {:.2} | {:.2} | {slc:.2} | {:.0} → {:.0} |",
            runtime[0][i],
            runtime[1][i],
            wear[0][i],
            wear[1][i],
            m.remnants_start,
            m.remnants_end - m.remnants_victims
        )?;
    }
    writeln!(md)?;
    Ok(())
}

/// Required check: WOM codes write more bytes per erase than the uncoded drive (`ratio`
/// above 1), judged against the paper's `paper` ratio as any claim is.
fn wom_verdict(paper: f64, ratio: f64) -> &'static str {
    if ratio > 1.0 {
        verdict(paper - 1.0, ratio - 1.0)
    } else {
        "no"
    }
}

/// Required check: the mean write slowdowns with scrub budgets 0, 16 and 64 pages in
/// falling order (a smaller budget costs more).
fn budget_order_verdict(b0: f64, b16: f64, b64: f64) -> &'static str {
    if b0 > b16 && b16 > b64 {
        "holds"
    } else {
        "no"
    }
}

#[cfg(test)]
mod checks {
    use super::*;

    #[test]
    fn the_wom_and_scrub_budget_checks_can_fail() {
        assert_eq!(wom_verdict(1.16, 1.14), "holds");
        assert_eq!(wom_verdict(1.16, 1.0), "no", "no gain: a code that never reprograms");
        assert_eq!(wom_verdict(1.16, 0.9), "no");
        assert_eq!(wom_verdict(1.16, 1.6), "direction only");
        assert_eq!(wom_verdict(1.16, f64::NAN), "no");
        assert_eq!(budget_order_verdict(130.0, 6.4, 2.0), "holds");
        assert_eq!(budget_order_verdict(130.0, 2.0, 6.4), "no");
        assert_eq!(budget_order_verdict(1.0, 1.0, 1.0), "no", "a budget that changes nothing");
    }
}
