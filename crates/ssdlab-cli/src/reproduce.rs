//! `ssdlab reproduce NAME`: a paper's experiments on the traces available here, written
//! as a markdown report beside the paper's reference numbers. The hand-written discussion
//! of differences lives in `docs/reproductions/NAME.discussion.md` (compiled in; a file
//! of that name beside `--out` overrides it) and is included verbatim (dir: as a template
//! filled from the run), so rerunning the command refreshes the numbers without losing it.

use crate::output::{execute, Outcome};
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;
use ssdlab_core::config::{Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{Format, SyntheticSpec};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub struct ReproduceArgs {
    pub name: String,
    pub traces: PathBuf,
    pub out: PathBuf,
    /// Multiplies every workload's length (trace runs, synthetic request counts).
    pub scale: f64,
    /// Only these workloads (by name); empty = all.
    pub only: Vec<String>,
}

pub fn reproduce(args: ReproduceArgs) -> Result<()> {
    // A zero, negative or NaN scale would run empty or nonsensical workloads and still
    // overwrite the report.
    if !(args.scale.is_finite() && args.scale > 0.0) {
        bail!("--scale {}: must be a positive number (1 is the paper's size)", args.scale);
    }
    match args.name.as_str() {
        "pa-ssd" => pa_ssd(&args),
        "spa-ssd" => crate::reproduce_spa::spa_ssd(&args),
        "dir" => crate::reproduce_dir::dir(&args),
        "ipu" => crate::reproduce_ipu::ipu(&args),
        "all" => {
            // Every paper, each report beside the others (in `--out`'s folder).
            let dir = args.out.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut failed = Vec::new();
            for name in ["pa-ssd", "spa-ssd", "dir", "ipu"] {
                let one = ReproduceArgs {
                    name: name.into(),
                    traces: args.traces.clone(),
                    out: dir.join(format!("{name}.md")),
                    scale: args.scale,
                    only: Vec::new(),
                };
                if let Err(e) = reproduce(one) {
                    eprintln!("reproduce {name}: {e:#}");
                    failed.push(name);
                }
            }
            if !failed.is_empty() {
                bail!("reproduce all: {} failed", failed.join(", "));
            }
            Ok(())
        }
        other => bail!("no reproduction named '{other}'; available: pa-ssd, spa-ssd, dir, ipu, all"),
    }
}

/// The schemes of PA Fig. 9–11, baseline first.
const PA_SCHEMES: &[(&str, &str)] = &[
    ("baseline", "none"),
    ("US", "us"),
    ("LFS", "lfs"),
    ("SBS+US", "sbs+us"),
    ("SBS+UBS", "sbs+ubs"),
    ("QDS+US", "qds+us"),
    ("QDS+UBS", "qds+ubs"),
];

struct PaWorkload {
    name: &'static str,
    what: String,
    workload: Workload,
    /// Open-loop replay of a trace, or closed-loop synthetic.
    closed_loop: Option<u32>,
    runs: u32,
}

fn pa_workloads(args: &ReproduceArgs) -> Result<Vec<PaWorkload>> {
    let t = |rel: &str| -> Result<PathBuf> {
        let p = args.traces.join(rel);
        if !p.is_file() {
            bail!("trace {} not found (pass --traces DIR or set SSDLAB_TRACES)", p.display());
        }
        Ok(p)
    };
    let trace = |path: PathBuf, format: Format| Workload::Trace {
        path,
        format,
        note: String::new(),
        options: Default::default(),
    };
    let runs = |base: f64| ((base * args.scale).round() as u32).max(1);
    let heavy_count = ((200_000.0 * args.scale) as u64).max(1000);
    let mut list = vec![
        PaWorkload {
            name: "Fin",
            what: "UMass Financial1, first 10,000 requests (`umass_spc/example.ascii`), replayed 3 times".into(),
            workload: trace(t("umass_spc/example.ascii")?, Format::Ssdsim),
            closed_loop: None,
            runs: runs(3.0),
        },
        PaWorkload {
            name: "hm_0",
            what: "MSR Cambridge hm_0 official sample, 1,000 requests (`msr_cambridge/msr-cambridge1-sample.csv`), replayed 10 times".into(),
            workload: trace(t("msr_cambridge/msr-cambridge1-sample.csv")?, Format::Msr),
            closed_loop: None,
            runs: runs(10.0),
        },
        PaWorkload {
            name: "hm_1",
            what: "MSR Cambridge hm_1, first 11,067 requests (`msr_cambridge/hm_1_short.csv`)".into(),
            workload: trace(t("msr_cambridge/hm_1_short.csv")?, Format::Msr),
            closed_loop: None,
            runs: runs(1.0),
        },
        PaWorkload {
            name: "TPC-C",
            what: "MS enterprise TPC-C excerpt, 6,999 requests over 0.14 s (`ms_production/tpcc-small.trace`), replayed 3 times".into(),
            workload: trace(t("ms_production/tpcc-small.trace")?, Format::Mqsim),
            closed_loop: None,
            runs: runs(3.0),
        },
        PaWorkload {
            name: "heavy (synthetic)",
            what: format!(
                "synthetic heavy workload shaped like the paper's heavy, write-dominated cases: {heavy_count} random \
                 32 KiB requests (4 pages), 80% writes, uniform over the logical space, closed loop at QD 32"
            ),
            workload: Workload::Synthetic(SyntheticSpec {
                read_fraction: 0.2,
                block_size_bytes: 32768,
                count: heavy_count,
                seed: 3,
                ..SyntheticSpec::default()
            }),
            closed_loop: Some(32),
            runs: 1,
        },
    ];
    if !args.only.is_empty() {
        // An unknown name must not leave an empty report in place of the real one.
        for o in &args.only {
            if !list.iter().any(|w| w.name == o) {
                let names: Vec<&str> = list.iter().map(|w| w.name).collect();
                bail!("--only {o}: no such workload; pa-ssd's are {}", names.join(", "));
            }
        }
        list.retain(|w| args.only.iter().any(|o| o == w.name));
    }
    Ok(list)
}

fn pa_config(scheme: &str, w: &PaWorkload, series_ns: u64) -> Result<Config> {
    let mut c = preset("pa-ssd-tlc").map_err(|e| anyhow!("{e}"))?;
    c.pa.scheme = scheme.to_string();
    // PA-SSD does not buffer unfinished wordlines (PA §5.1); the baseline does.
    c.flash.wordline_buffer = scheme == "none";
    c.host.runs = w.runs;
    if let Some(depth) = w.closed_loop {
        c.host.replay = ReplayMode::ClosedLoop;
        c.host.queue_depth = depth;
    }
    c.output.series_interval_ns = series_ns;
    Ok(c)
}

struct Cell {
    outcome: Outcome,
    series: Vec<ssdlab_core::SeriesRow>,
}

fn pa_ssd(args: &ReproduceArgs) -> Result<()> {
    let workloads = pa_workloads(args)?;
    // Series windows: PA uses 15-minute quarters of multi-hour traces; our excerpts are
    // minutes long, so each run is cut into about 20 windows instead.
    let window_ns = |w: &PaWorkload| match w.name {
        "Fin" => 40_000_000_000,
        "hm_0" => 60_000_000_000,
        "hm_1" => 900_000_000_000,
        "TPC-C" => 20_000_000,
        _ => 1_000_000_000,
    };
    let jobs: Vec<(usize, usize)> =
        (0..workloads.len()).flat_map(|w| (0..PA_SCHEMES.len()).map(move |s| (w, s))).collect();
    let started = std::time::Instant::now();
    let results: Vec<Result<Cell>> = jobs
        .par_iter()
        .map(|&(wi, si)| {
            let w = &workloads[wi];
            let config = pa_config(PA_SCHEMES[si].1, w, window_ns(w))?;
            let workload = match &w.workload {
                Workload::Synthetic(spec) => Workload::Synthetic(spec.resolve_address_space(config.logical_bytes())),
                other => other.clone(),
            };
            let outcome = execute(Prepared { config, workload, import: None }, None, false, true)
                .with_context(|| format!("{} under {}", w.name, PA_SCHEMES[si].0))?;
            let series = crate::output::unfold_series(&outcome.series);
            Ok(Cell { outcome, series })
        })
        .collect();
    let mut cells: Vec<Cell> = Vec::with_capacity(results.len());
    for r in results {
        cells.push(r?);
    }
    let cell = |wi: usize, si: usize| &cells[wi * PA_SCHEMES.len() + si];
    let wall = started.elapsed().as_secs_f64();

    let mut md = String::new();
    let mut figures = crate::figures::Figures::new(&args.out);
    let schemes: Vec<String> = PA_SCHEMES.iter().map(|s| s.0.to_string()).collect();
    let command = format!(
        "ssdlab reproduce pa-ssd --traces {} --scale {}{}",
        args.traces.display(),
        args.scale,
        if args.only.is_empty() { String::new() } else { format!(" --only {}", args.only.join(",")) }
    );
    writeln!(md, "# PA-SSD reproduction (seed 000, ICS '18)\n")?;
    writeln!(md, "Generated by `{command}` ({} simulations, {wall:.0} s wall on this machine). Device: the `pa-ssd-tlc` preset (PA Table 1: TLC, 8 ch × 2 chips × 16 planes, 384 × 384 × 8 KiB pages, program 0.5/2/5.5 ms, read 0.1 ms, 3 ns/B, OP 15%, GC threshold 30%), aged to 70% used before each run. Baseline: conventional type-blind allocation, strict program order, wordline buffer. Every scheme: relaxed constraints, up to three active blocks per plane, pa-BLAlloc, no wordline buffer (CSB program +1 page read, MSB +2), GC writes by UBS.\n", cells.len())?;
    writeln!(md, "Workloads (the paper's traces other than Fin are not available here):\n")?;
    for w in &workloads {
        writeln!(md, "- **{}**: {}", w.name, w.what)?;
    }
    writeln!(md)?;

    // Fig. 9
    for (title, write) in [("write", true), ("read", false)] {
        writeln!(
            md,
            "## Fig. 9{}: mean {title} response time normalised to the baseline\n",
            if write { "a" } else { "b" }
        )?;
        write_header(&mut md, "workload", PA_SCHEMES.iter().map(|s| s.0))?;
        let mut sums = vec![0.0; PA_SCHEMES.len()];
        let mut counted = 0;
        let mut plotted = vec![Vec::new(); PA_SCHEMES.len()];
        let mut names = Vec::new();
        for (wi, w) in workloads.iter().enumerate() {
            let base = mean(&cell(wi, 0).outcome, write);
            if base <= 0.0 {
                continue;
            }
            counted += 1;
            names.push(w.name.to_string());
            let mut row = format!("| {} ({:.0} µs) |", w.name, base / 1e3);
            for (si, sum) in sums.iter_mut().enumerate() {
                let v = mean(&cell(wi, si).outcome, write) / base;
                *sum += v;
                plotted[si].push(v);
                write!(row, " {v:.3} |")?;
            }
            writeln!(md, "{row}")?;
        }
        let mut row = "| **mean** |".to_string();
        for (si, s) in sums.iter().enumerate() {
            write!(row, " **{:.3}** |", s / counted.max(1) as f64)?;
            plotted[si].push(s / counted.max(1) as f64);
        }
        writeln!(md, "{row}\n")?;
        names.push("mean".into());
        figures.bars(
            &mut md,
            &format!("fig9{}", if write { "a" } else { "b" }),
            crate::plot::BarChart {
                title: format!("Fig. 9{}: mean {title} response time / baseline", if write { "a" } else { "b" }),
                x_label: "workload".into(),
                y_label: "normalised response time".into(),
                categories: names,
                groups: schemes.iter().cloned().zip(plotted).collect(),
            },
        );
    }
    writeln!(md, "Paper (PA §6.1, averages over its traces): US −10% write / −18% read; LFS −85% / −42%; SBS+US −54% / −36%; QDS+US −60% / −45%; QDS+UBS 2.4× write and 1.5× read performance.\n")?;
    let qds_ubs = PA_SCHEMES.iter().position(|s| s.0 == "QDS+UBS").expect("scheme listed");
    let speedup = |write: bool| {
        // As the paper's figure averages normalised response times: 1 / mean(variant / baseline).
        let ratios: Vec<f64> = (0..workloads.len())
            .filter(|&wi| mean(&cell(wi, 0).outcome, write) > 0.0)
            .map(|wi| mean(&cell(wi, qds_ubs).outcome, write) / mean(&cell(wi, 0).outcome, write))
            .collect();
        ratios.len() as f64 / ratios.iter().sum::<f64>().max(f64::MIN_POSITIVE)
    };
    writeln!(md, "**QDS+UBS, measured here**: {:.2}× write and {:.2}× read performance (1 / the mean normalised response time in the tables above), against the paper's 2.4× write and 1.5× read.\n", speedup(true), speedup(false))?;

    // Fig. 10 and 11
    writeln!(md, "## Fig. 10: share of LSB- / CSB- / MSB-dominated writes (%)\n")?;
    write_header(&mut md, "workload", PA_SCHEMES.iter().map(|s| s.0))?;
    let mut msb = vec![Vec::new(); PA_SCHEMES.len()];
    for (wi, w) in workloads.iter().enumerate() {
        let mut row = format!("| {} |", w.name);
        for (si, share) in msb.iter_mut().enumerate() {
            let d = &cell(wi, si).outcome.report.dominated_write_share;
            write!(row, " {:.0}/{:.0}/{:.0} |", d[0] * 100.0, d[1] * 100.0, d[2] * 100.0)?;
            share.push(d[2] * 100.0);
        }
        writeln!(md, "{row}")?;
    }
    let names: Vec<String> = workloads.iter().map(|w| w.name.to_string()).collect();
    writeln!(md)?;
    figures.bars(
        &mut md,
        "fig10",
        crate::plot::BarChart {
            title: "Fig. 10: MSB-dominated writes (%)".into(),
            x_label: "workload".into(),
            y_label: "% of write requests".into(),
            categories: names.clone(),
            groups: schemes.iter().cloned().zip(msb).collect(),
        },
    );
    writeln!(md, "\nPaper: the baseline is mostly MSB-dominated (P_slow = 1−(2/3)^n); US spreads writes evenly; LFS, QDS and SBS make most writes LSB-dominated.\n")?;
    writeln!(md, "## Fig. 11: success rate of type-specified allocation (%)\n")?;
    write_header(&mut md, "workload", PA_SCHEMES.iter().skip(1).map(|s| s.0))?;
    let mut rates = vec![Vec::new(); PA_SCHEMES.len() - 1];
    for (wi, w) in workloads.iter().enumerate() {
        let mut row = format!("| {} |", w.name);
        for si in 1..PA_SCHEMES.len() {
            let rate = cell(wi, si).outcome.report.pa.as_ref().map_or(0.0, |p| p.success_rate);
            write!(row, " {:.1} |", rate * 100.0)?;
            rates[si - 1].push(rate * 100.0);
        }
        writeln!(md, "{row}")?;
    }
    writeln!(md)?;
    figures.bars(
        &mut md,
        "fig11",
        crate::plot::BarChart {
            title: "Fig. 11: type-specified allocation success (%)".into(),
            x_label: "workload".into(),
            y_label: "% of allocations".into(),
            categories: names.clone(),
            groups: schemes.iter().skip(1).cloned().zip(rates).collect(),
        },
    );
    writeln!(md, "\nPaper: above 98% for every scheme except LFS.\n")?;

    writeln!(md, "## GC activity: erases relative to the baseline\n")?;
    write_header(&mut md, "workload", PA_SCHEMES.iter().map(|s| s.0))?;
    for (wi, w) in workloads.iter().enumerate() {
        let base_erases = cell(wi, 0).outcome.report.gc.erases;
        let base = base_erases.max(1) as f64;
        let mut row = format!("| {} ({} erases) |", w.name, base_erases);
        for si in 0..PA_SCHEMES.len() {
            let erases = cell(wi, si).outcome.report.gc.erases;
            if base_erases == 0 {
                // No GC in the baseline: show each scheme's count instead of a ratio.
                write!(row, " {erases} erases |")?;
            } else {
                write!(row, " {:.3} |", erases as f64 / base)?;
            }
        }
        writeln!(md, "{row}")?;
    }
    writeln!(md, "\nPaper: GC counts within 1% of the baseline.\n")?;

    // Fig. 12: time series for a light and a heavy workload.
    for (wi, w) in workloads.iter().enumerate().filter(|(_, w)| matches!(w.name, "Fin" | "heavy (synthetic)")) {
        writeln!(
            md,
            "## Fig. 12 ({}): mean write latency (ms) and free LSB pages (% of free pages) per window\n",
            w.name
        )?;
        let rows = cell(wi, 0).series.len();
        let lines = (0..PA_SCHEMES.len())
            .map(|si| crate::plot::Line {
                label: PA_SCHEMES[si].0.to_string(),
                points: cell(wi, si)
                    .series
                    .iter()
                    .filter(|s| s.writes > 0)
                    .map(|s| (s.end_ns as f64 / 1e9, s.write_latency_mean_ns / 1e6))
                    .collect(),
                ..Default::default()
            })
            .collect();
        figures.lines(
            &mut md,
            &format!("fig12-{}", w.name.split_whitespace().next().unwrap_or("run").to_lowercase()),
            crate::plot::LineChart {
                title: format!("Fig. 12 ({}): mean write latency per window", w.name),
                x_label: "window end (s)".into(),
                y_label: "write latency (ms)".into(),
                lines,
                y_from_zero: true,
                ..Default::default()
            },
        );
        write_header(&mut md, "window end (s)", PA_SCHEMES.iter().map(|s| s.0))?;
        let step = (rows / 20).max(1);
        for r in (0..rows).step_by(step) {
            let end = cell(wi, 0).series[r].end_ns as f64 / 1e9;
            let mut row = format!("| {end:.1} |");
            for si in 0..PA_SCHEMES.len() {
                match cell(wi, si).series.get(r) {
                    Some(s) => {
                        let free: u64 = s.free_pages_by_type.iter().sum();
                        let lsb = s.free_pages_by_type[0] as f64 / free.max(1) as f64 * 100.0;
                        write!(row, " {:.2} / {lsb:.1}% |", s.write_latency_mean_ns / 1e6)?;
                    }
                    None => write!(row, " – |")?,
                }
            }
            writeln!(md, "{row}")?;
        }
        writeln!(md)?;
    }
    writeln!(md, "Paper: LFS's write latency rises once its free LSB pages are used up; QDS+UBS keeps low latency for longest (22 quarters).\n")?;

    // Fig. 13: the last run of the multi-run replays.
    writeln!(md, "## Fig. 13: last run of each multi-run replay, mean write response time normalised to the baseline's last run\n")?;
    write_header(&mut md, "workload (runs)", PA_SCHEMES.iter().map(|s| s.0))?;
    let (mut multi, mut last_runs) = (Vec::new(), vec![Vec::new(); PA_SCHEMES.len()]);
    for (wi, w) in workloads.iter().enumerate().filter(|(_, w)| w.runs > 1) {
        let last = |si: usize| cell(wi, si).outcome.report.runs.last().map_or(0.0, |r| r.write.latency_ns.mean);
        let base = last(0);
        let mut row = format!("| {} ({}) |", w.name, w.runs);
        multi.push(w.name.to_string());
        for (si, values) in last_runs.iter_mut().enumerate() {
            let v = if base > 0.0 { last(si) / base } else { 0.0 };
            write!(row, " {v:.3} |")?;
            values.push(v);
        }
        writeln!(md, "{row}")?;
    }
    if !multi.is_empty() {
        writeln!(md)?;
        figures.bars(
            &mut md,
            "fig13",
            crate::plot::BarChart {
                title: "Fig. 13: last run's mean write response time / baseline".into(),
                x_label: "workload".into(),
                y_label: "normalised response time".into(),
                categories: multi,
                groups: schemes.iter().cloned().zip(last_runs).collect(),
            },
        );
    }
    writeln!(md, "\nPaper (third run of MSFS): LFS −66%, QDS+US −79%, QDS+UBS −93% write response time.\n")?;

    writeln!(md, "{}", discussion(&args.out, "pa-ssd").trim_end())?;
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.out, md).with_context(|| format!("writing {}", args.out.display()))?;
    figures.write()?;
    println!("wrote {} ({} simulations in {wall:.1} s)", args.out.display(), cells.len());
    Ok(())
}

fn mean(o: &Outcome, write: bool) -> f64 {
    if write {
        o.report.write.latency_ns.mean
    } else {
        o.report.read.latency_ns.mean
    }
}

pub(crate) fn write_header<'a>(md: &mut String, first: &str, names: impl Iterator<Item = &'a str>) -> Result<()> {
    let names: Vec<&str> = names.collect();
    writeln!(md, "| {first} | {} |", names.join(" | "))?;
    writeln!(md, "|---|{}", "---:|".repeat(names.len()))?;
    Ok(())
}

/// A report's hand-written discussion: `NAME.discussion.md` beside the report when there
/// is one (to edit it), else the project's, compiled in, so `--out` anywhere (or an
/// installed binary) keeps it.
pub fn discussion(out: &Path, name: &str) -> String {
    if let Ok(text) = std::fs::read_to_string(out.with_extension("discussion.md")) {
        return text;
    }
    match name {
        "pa-ssd" => include_str!("../../../docs/reproductions/pa-ssd.discussion.md"),
        "spa-ssd" => include_str!("../../../docs/reproductions/spa-ssd.discussion.md"),
        "dir" => include_str!("../../../docs/reproductions/dir.discussion.md"),
        "ipu" => include_str!("../../../docs/reproductions/ipu.discussion.md"),
        _ => "## Discussion\n\n(none written yet)",
    }
    .to_string()
}

pub fn default_traces() -> PathBuf {
    std::env::var_os("SSDLAB_TRACES").map(PathBuf::from).unwrap_or_else(|| Path::new("../shared/traces").to_path_buf())
}
