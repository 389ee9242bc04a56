//! The `ssdlab` command: run a simulation, compare policies, list presets, check configs.
//! This crate owns everything that touches files, terminals and the wall clock; the
//! model itself (ssdlab-core) has none of them.

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use ssdlab_cli::{
    bench, catch_interrupt, compare, import, interrupted, report_html, reproduce, setup, sweep, trace_stats,
    CompareArgs, RunArgs,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

#[derive(Parser)]
#[command(name = "ssdlab", version, about = "A fast, deterministic, trace-driven SSD simulator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `ssdlab sweep`'s arguments.
#[derive(clap::Args)]
struct SweepArgs {
    /// The sweep file (TOML: [base], [[axis]], repetitions, output; docs/sweep.md).
    file: PathBuf,
    /// The table to write (CSV; default: the file's `output`, else SWEEP.csv beside it).
    /// Runs already in it with status ok are kept (a rerun resumes).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Runs at once on this machine (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run the points on a Dask.distributed cluster (the scheduler's address, e.g.
    /// tcp://scheduler:8786) through the ssdlab Python package ($SSDLAB_PYTHON or python3).
    #[arg(long, value_name = "ADDRESS", conflicts_with = "ray")]
    dask: Option<String>,
    /// Run the points on Ray (`auto`, or a cluster address) through the Python package.
    #[arg(long, value_name = "ADDRESS")]
    ray: Option<String>,
    /// Exit with status 0 even when runs failed. Without it every point still runs (a
    /// failed run is its row's error, and a rerun retries it), but the sweep exits with
    /// status 2 once the table is written, so a script does not go on with holes in it.
    #[arg(long)]
    allow_failures: bool,
    /// Internal: run one point in this process and print its row as JSON.
    #[arg(long, hide = true)]
    run_one: Option<usize>,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one device on one workload and print the summary.
    Run(RunArgs),
    /// Run one workload under several config variants and print a table normalised to
    /// a baseline variant.
    Compare(CompareArgs),
    /// List the built-in device presets.
    Presets {
        /// Print the named preset's full TOML instead of the list.
        #[arg(long)]
        show: Option<String>,
    },
    /// Reproduce a paper's experiments and write a markdown report (available: pa-ssd, spa-ssd, dir, ipu, ssd-cdc, wom-scrub, gordon, harey-tortoise, mango, mqsim-fast18, all).
    Reproduce {
        /// Which paper: pa-ssd, spa-ssd, dir, ipu, ssd-cdc, wom-scrub, gordon,
        /// harey-tortoise, mango, mqsim-fast18 (MQSim's FAST'18 files), or all of them.
        name: String,
        /// Folder of the real traces (default $SSDLAB_TRACES or ../shared/traces). A
        /// `manifest.toml` there lists the workloads instead of the built-in list (all but
        /// ssd-cdc, which reads no traces; docs/reproductions/README.md).
        #[arg(long)]
        traces: Option<PathBuf>,
        /// Report to write (default: docs/reproductions/NAME.md when run in the project
        /// folder, where that folder exists, else ./NAME.md).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Scale every workload's length (multi-run count, synthetic request count).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Only these workloads, comma-separated (pa-ssd: e.g. Fin,hm_1; spa-ssd: figures fig3,fig5,fig6,fig7 and/or
        /// Fig. 7 trace names; dir: workload names of the list or manifest; ipu: those and the Table 3 rows ts0, wdev0,
        /// lun1, usr0, lun2, ads).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Write the workloads the reproduction builds itself (ipu: the Table 3 synthetic
        /// ones) into this folder as MQSim traces (NAME.trace) for `ssdlab run`, and run
        /// nothing.
        #[arg(long)]
        save_workloads: Option<PathBuf>,
        /// No progress on stderr (the report, its verdicts and the exit status are the same).
        #[arg(long, short)]
        quiet: bool,
    },
    /// Run every point of a sweep file (a base setup, axes of config keys, setup flags,
    /// workloads or seeds, repetitions) and write one table, a row per run (docs/sweep.md).
    Sweep(SweepArgs),
    /// Write a self-contained HTML report (summary, latency CDFs, time series, page types,
    /// erase counts) of JSON reports from `run --json` or `compare --json` (docs/report.md).
    Report {
        /// JSON reports; a compare file contributes each variant.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The HTML file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Each run's time series (`run --series`), one per run in order: the plots over time.
        #[arg(long)]
        series: Vec<PathBuf>,
        /// Each run's per-request CSV (`run --requests`), one per run in order: full latency
        /// CDFs instead of curves through the report's percentiles.
        #[arg(long)]
        requests: Vec<PathBuf>,
    },
    /// Run the standard speed and memory scenarios (see BENCHMARKS.md).
    Bench {
        /// Scenarios and checks to run (default: all): mqsim-default, mqsim-default-cmt,
        /// pa-ssd-aged, trace-fin, large-device; the checks flatness and compare-parallel. Targets print as pass/fail.
        scenarios: Vec<String>,
        /// Run every scenario and check (the same as naming none). Speed targets assume a
        /// quiet machine: a failed one prints the load average beside it.
        #[arg(long)]
        all: bool,
        /// Override every scenario's request count (trace-fin: runs = requests / 10,000); the
        /// checks keep theirs.
        #[arg(long)]
        requests: Option<u64>,
        /// Print the results as JSON.
        #[arg(long)]
        json: bool,
        /// Rewrite the results table in ./BENCHMARKS.md.
        #[arg(long)]
        record: bool,
        /// Internal: run one scenario in this process.
        #[arg(long, hide = true)]
        child: Option<String>,
    },
    /// Swarm testing: random devices, policies and workloads (one seed each) run with
    /// invariant checks and data verification; prints failing seeds with a replay command.
    Swarm {
        /// Number of seeds to run.
        #[arg(long, default_value_t = 100)]
        seeds: u64,
        /// First seed.
        #[arg(long, default_value_t = 0)]
        start: u64,
        /// Power failures in the cases: sometimes (random, the default), always (one to
        /// three per case, early enough to hit the workload) or never.
        #[arg(long, value_name = "WHEN", default_value = "sometimes")]
        power_loss: ssdlab_core::swarm::PowerLosses,
    },
    /// The SSD-CDC scaling model (thesis Ch. 3): capacity, latency, bandwidth and IOPS
    /// against feature size and bits per cell, as a table and an SVG plot (docs/scaling.md).
    Scaling(ssdlab_cli::scaling::ScalingArgs),
    /// Statistics of a trace: counts, shares, sizes, inter-arrival times, footprint.
    TraceStats(trace_stats::TraceStatsArgs),
    /// Convert another simulator's configuration into an ssdlab TOML config, each key
    /// commented with the parameter it came from (see docs/import.md).
    Import {
        /// The simulator the files come from: mqsim or ssdsim.
        simulator: String,
        /// mqsim: the device file (ssdconfig.xml) and optionally the workload
        /// (workload.xml); ssdsim: page.parameters.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the config here (default: stdout). The parameter report goes to stderr.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// With an MQSim workload of several scenarios: the scenario (from 1) to include.
        #[arg(long)]
        scenario: Option<usize>,
        /// Folder to look for an MQSim trace flow's file in (after the workload's folder).
        #[arg(long)]
        trace_dir: Option<PathBuf>,
        /// Import even when an unknown name looks like a typo of a known one (warned about
        /// and ignored, as the original simulator would ignore it).
        #[arg(long)]
        lenient: bool,
        /// Refuse a fork's values and keys, and unknown names, instead of importing them
        /// with the nearest meaning (or ignoring them) and a warning.
        #[arg(long)]
        strict: bool,
    },
    /// Validate a config file (and overrides) without running anything.
    CheckConfig {
        /// Config file: ssdlab TOML, or MQSim / SSDSim, recognised by content.
        file: PathBuf,
        /// Overrides applied on top, as key.path=value.
        #[arg(long = "set")]
        set: Vec<String>,
        /// Accept an MQSim / SSDSim file whose unknown names look like typos of known ones
        /// (warned about and ignored, as the original simulator would ignore them).
        #[arg(long)]
        lenient: bool,
        /// Refuse a fork's values and keys, and unknown names (otherwise warned about).
        #[arg(long)]
        strict: bool,
    },
}

/// Writing to a closed pipe (`ssdlab … | head`) ends the process quietly, as it does for
/// other Unix tools, instead of a panic in `println!`: Rust ignores SIGPIPE by default.
#[cfg(unix)]
fn default_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restores the default disposition of one signal before any thread starts.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => ssdlab_cli::run::run(args),
        Command::Compare(args) => compare::compare(args),
        Command::Sweep(args) => sweep_command(args),
        Command::Report { inputs, output, series, requests } => {
            report_html::report_command(&inputs, &series, &requests, &output)
                .map(|()| eprintln!("wrote {}", output.display()))
        }
        Command::Presets { show } => presets(show),
        Command::Reproduce { name, traces, out, scale, only, save_workloads, quiet } => {
            reproduce::reproduce(reproduce::ReproduceArgs {
                out: out.unwrap_or_else(|| {
                    // In the project: its docs folder; anywhere else, not a new docs/ tree.
                    let docs = PathBuf::from("docs/reproductions");
                    if docs.is_dir() { docs } else { PathBuf::new() }.join(format!("{name}.md"))
                }),
                traces: traces.unwrap_or_else(reproduce::default_traces),
                name,
                scale,
                only,
                save_workloads,
                quiet,
            })
        }
        Command::Bench { scenarios, all, requests, json, record, child } => match child {
            Some(name) => bench::child(&name, requests),
            None => bench::bench(bench::BenchArgs { scenarios, all, requests, json, record }),
        },
        Command::CheckConfig { file, set, lenient, strict } => check_config(&file, &set, lenient, strict),
        Command::Import { simulator, files, output, scenario, trace_dir, lenient, strict } => {
            import_command(&simulator, &files, output.as_deref(), scenario, trace_dir.as_deref(), (lenient, strict))
        }
        Command::Swarm { seeds, start, power_loss } => swarm(start, seeds, power_loss),
        Command::Scaling(args) => ssdlab_cli::scaling::scaling(args),
        Command::TraceStats(args) => trace_stats::command(args),
    };
    setup::remove_spills();
    // Interrupted (Ctrl-C) is 130, as for a shell command killed by SIGINT, also when
    // the partial results were written.
    let failed = if interrupted() { ExitCode::from(130) } else { ExitCode::from(2) };
    match result {
        Ok(()) if interrupted() => failed,
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<ssdlab_cli::GateFailed>().is_some() => {
            eprintln!("FAILED: {e:#}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            failed
        }
    }
}

/// `ssdlab sweep`: every run of a sweep file, on local processes or through the Python
/// package on Dask or Ray; one table, a row per run (docs/sweep.md).
fn sweep_command(args: SweepArgs) -> Result<()> {
    let sweep = sweep::Sweep::from_file(&args.file)?;
    if let Some(index) = args.run_one {
        // One run for the local backend's parent: its row as JSON on stdout, its
        // warnings on stderr.
        let (row, warnings) = sweep.run_point_warned(index);
        for w in warnings {
            eprintln!("warning: {w}");
        }
        println!("{}", serde_json::to_string(&row)?);
        return Ok(());
    }
    let output = args.output.clone().or(sweep.output.clone()).unwrap_or_else(|| sweep::default_output(&args.file));
    if let Some((backend, address)) = args.dask.as_ref().map(|a| ("dask", a)).or(args.ray.as_ref().map(|a| ("ray", a)))
    {
        // The distributed backends live in the Python package (ssdlab/sweeps.py).
        let python = std::env::var("SSDLAB_PYTHON").unwrap_or_else(|_| "python3".into());
        let mut command = std::process::Command::new(&python);
        // (`--allow-failures`: the verdict on failed runs is this command's, from the table.)
        command
            .args(["-m", "ssdlab.sweeps", &format!("--{backend}"), address, "--allow-failures", "-o"])
            .arg(&output)
            .arg(&args.file);
        let status = command.status().with_context(|| {
            format!("cannot start {python} (the ssdlab Python package runs --{backend} sweeps; set SSDLAB_PYTHON)")
        })?;
        if !status.success() {
            bail!("the {backend} sweep ({python} -m ssdlab.sweeps) failed: {status}");
        }
        let failed = sweep::failed_rows(&output)?;
        return sweep_verdict(failed, sweep.len(), &output, args.allow_failures);
    }
    catch_interrupt();
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let exe = std::env::current_exe().context("cannot find the ssdlab binary to run the points")?;
    let outcome = sweep::run_warned(&sweep, Some(&output), jobs, true, sweep::child_runner(&sweep, &args.file, &exe))?;
    println!(
        "sweep: {} runs in {} ({} kept from before, {} failed)",
        outcome.runs,
        output.display(),
        outcome.kept,
        outcome.failed
    );
    sweep_verdict(outcome.failed, outcome.runs, &output, args.allow_failures)
}

/// A sweep with failed runs fails (status 2) once its table is written, unless
/// `--allow-failures`.
fn sweep_verdict(failed: usize, runs: usize, output: &std::path::Path, allow: bool) -> Result<()> {
    if failed > 0 && !allow {
        bail!(
            "sweep: {failed} of {runs} runs failed (their rows in {} say why; rerunning the command retries them; \
             --allow-failures exits 0 when failed runs are expected)",
            output.display()
        );
    }
    Ok(())
}

/// `ssdlab import`: another simulator's files → a commented ssdlab TOML config.
fn import_command(
    simulator: &str,
    files: &[PathBuf],
    output: Option<&std::path::Path>,
    scenario: Option<usize>,
    trace_dir: Option<&std::path::Path>,
    (lenient, strict): (bool, bool),
) -> Result<()> {
    use import::Kind;
    let expected = match simulator {
        "mqsim" => Kind::MqsimDevice,
        "ssdsim" => Kind::Ssdsim,
        other => bail!("import: unknown simulator '{other}' (mqsim or ssdsim)"),
    };
    let device = &files[0];
    let kind = import::detect(&import::read_file(device)?);
    if kind != expected {
        bail!("{}: not {} (it reads as {:?}); `ssdlab import mqsim ssdconfig.xml [workload.xml]` or `ssdlab import ssdsim page.parameters`", device.display(), if simulator == "mqsim" { "an MQSim device file" } else { "an SSDSim parameter file" }, kind);
    }
    let loaded = import::load_checked(device, lenient, strict)?;
    let mut report = loaded.import.unwrap_or_default();
    let mut assigns = loaded.assigns;
    let mut notes = Vec::new();
    match (simulator, &files[1..]) {
        (_, []) => {}
        ("mqsim", [workload]) => {
            let n = import::mqsim::scenario_count(workload)?;
            let k = match (scenario, n) {
                (Some(k), _) => Some(k),
                (None, 1) => Some(1),
                (None, _) => {
                    notes.push(format!(
                        "{} has {n} scenarios; this config holds the device only (--scenario N adds one; `ssdlab run \
                         --config {} --workload {}` runs them all)",
                        workload.display(),
                        device.display(),
                        workload.display()
                    ));
                    None
                }
            };
            if let Some(k) = k {
                let context = import::mqsim::Context {
                    device: &loaded.config,
                    preconditioning: loaded.preconditioning,
                    trace_dir,
                    lenient,
                };
                let s = import::mqsim::scenario(workload, k, &context)?;
                if let Some(t) = &s.trace {
                    notes.push(format!(
                        "scenario {k} replays a trace, which is not part of a config: run with --trace {} --format mqsim \
                         --time-unit {}{}",
                        t.path.display(),
                        t.time_unit,
                        if t.percent < 100 { format!(" (MQSim replayed its first {}% only)", t.percent) } else { String::new() }
                    ));
                }
                for a in s.mapping.assigns {
                    match assigns.iter_mut().find(|x| x.key == a.key) {
                        Some(x) => *x = a,
                        None => assigns.push(a),
                    }
                }
                report.merge(s.mapping.report);
            }
        }
        _ => bail!(
            "import {simulator}: expected {}",
            if simulator == "mqsim" { "ssdconfig.xml [workload.xml]" } else { "one page.parameters file" }
        ),
    }
    let config = import::apply_assigns(&ssdlab_core::Config::default(), &assigns)?;
    setup::validate(&config, &device.display().to_string())?;
    let mut header = format!(
        "ssdlab config imported from {} by `ssdlab import {simulator}` (docs/import.md).\nEvery key says which \
         parameter it came from; parameters not listed here were not modelled or need no key:\n",
        report.files.join(", ")
    );
    let c = &report.counts;
    header.push_str(&format!(
        "{} mapped, {} approximated, {} not modelled, {} unknown (`ssdlab run --config` on the original lists them).\n",
        c.mapped, c.approximated, c.not_modelled, c.unknown
    ));
    for n in &notes {
        header.push_str(&format!("NOTE: {n}\n"));
    }
    let text = import::to_toml(&header, &assigns);
    eprint!("{}", report.listing());
    for n in &notes {
        eprintln!("note: {n}");
    }
    match output {
        Some(path) => {
            std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("wrote {} ({})", path.display(), config.name);
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn presets(show: Option<String>) -> Result<()> {
    if let Some(name) = show {
        print!("{}", ssdlab_cli::presets::toml(&name)?);
        return Ok(());
    }
    println!("{:<20} {:<8} {:>10} {:>10}  description / source", "preset", "cell", "raw GiB", "logical");
    for row in ssdlab_cli::presets::rows()? {
        println!(
            "{:<20} {:<8} {:>10.1} {:>10.1}  {}",
            row.name, row.cell, row.raw_gib, row.logical_gib, row.description
        );
        println!("{:<61}source: {}", "", row.source);
    }
    Ok(())
}

fn check_config(file: &std::path::Path, set: &[String], lenient: bool, strict: bool) -> Result<()> {
    let loaded = import::load_checked(file, lenient, strict)?;
    // An MQSim / SSDSim file's warnings (a fork's elements, duplicates, typos under --lenient).
    for w in loaded.import.iter().flat_map(|r| &r.warnings) {
        eprintln!("warning: {w}");
    }
    let config = setup::apply_set(loaded.config, set)?;
    setup::validate(&config, &file.display().to_string())?;
    println!("{}: ok ({})", file.display(), config.name);
    Ok(())
}

/// `ssdlab swarm`: random cases with invariants and data verification on. Each case runs
/// under its event budget (a livelock fails with its seed instead of hanging) and behind
/// `catch_unwind` (a panic fails its seed instead of the whole swarm); progress goes to
/// stderr, the verdict and every failure's replay command to stdout, sorted by seed.
fn swarm(start: u64, seeds: u64, power: ssdlab_core::swarm::PowerLosses) -> Result<()> {
    use rayon::prelude::*;
    use std::sync::atomic::AtomicU64;
    use std::time::Instant;
    let replay_flag = match power {
        ssdlab_core::swarm::PowerLosses::Sometimes => String::new(),
        other => format!(" --power-loss {}", other.name()),
    };
    let interrupt = catch_interrupt();
    let began = Instant::now();
    let done = AtomicU64::new(0);
    let failed_so_far = AtomicU64::new(0);
    let step = (seeds / 10).clamp(1, 100);
    let results: Vec<(u64, String, Option<String>, f64)> = (start..start + seeds)
        .into_par_iter()
        .filter(|_| !interrupt.load(Ordering::Relaxed))
        .map(|seed| {
            let case_began = Instant::now();
            let case = ssdlab_core::swarm::case_with(seed, power);
            let outcome = std::panic::catch_unwind(|| ssdlab_core::swarm::run_case(&case).err().map(|e| e.to_string()));
            let error = outcome.unwrap_or_else(|payload| {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("panicked: {message}"))
            });
            let description = case.description;
            if error.is_some() {
                failed_so_far.fetch_add(1, Ordering::Relaxed);
            }
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(step) || n == seeds {
                eprintln!(
                    "swarm: {n}/{seeds} seeds run, {} failed, {:.1} s",
                    failed_so_far.load(Ordering::Relaxed),
                    began.elapsed().as_secs_f64()
                );
            }
            (seed, description, error, case_began.elapsed().as_secs_f64())
        })
        .collect();
    let failed: Vec<_> = results.iter().filter(|r| r.2.is_some()).collect();
    for (seed, description, error, _) in &failed {
        println!(
            "seed {seed} FAILED: {}\n  case: {description}\n  replay: ssdlab swarm --start {seed} --seeds 1{replay_flag}",
            error.as_deref().unwrap_or("")
        );
    }
    let slowest = results.iter().max_by(|a, b| a.3.total_cmp(&b.3));
    let interrupted = interrupt.load(Ordering::Relaxed);
    if interrupted {
        println!("swarm: interrupted (Ctrl-C) after {} of {seeds} seeds; the rest did not run", results.len());
    }
    println!(
        "swarm: {} seeds from {start}, {} passed, {} failed in {:.1} s{}",
        results.len(),
        results.len() - failed.len(),
        failed.len(),
        began.elapsed().as_secs_f64(),
        slowest.map(|(seed, _, _, secs)| format!(" (slowest: seed {seed}, {secs:.2} s)")).unwrap_or_default()
    );
    if !failed.is_empty() {
        anyhow::bail!("{} swarm seeds failed", failed.len())
    }
    // Interrupted with every seed run passing: `main` exits with 130.
    Ok(())
}
