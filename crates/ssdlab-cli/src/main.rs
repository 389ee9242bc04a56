//! The `ssdlab` command: run a simulation, compare policies, list presets, check configs.
//! This crate owns everything that touches files, terminals and the wall clock; the
//! model itself (ssdlab-core) has none of them.

mod bench;
mod compare;
mod import;
mod mqsim_xml;
mod output;
mod reproduce;
mod reproduce_spa;
mod setup;
mod trace_stats;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "ssdlab", version, about = "A fast, deterministic, trace-driven SSD simulator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    /// Reproduce a paper's experiments and write a markdown report (available: pa-ssd, spa-ssd).
    Reproduce {
        /// Which paper: pa-ssd or spa-ssd.
        name: String,
        /// Folder of the real traces (default $SSDLAB_TRACES or ../shared/traces).
        #[arg(long)]
        traces: Option<PathBuf>,
        /// Report to write (default docs/reproductions/NAME.md).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Scale every workload's length (multi-run count, synthetic request count).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Only these workloads, comma-separated (pa-ssd: e.g. Fin,hm_1; spa-ssd: figures fig3,fig5,fig6,fig7 and/or
        /// Fig. 7 trace names).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
    },
    /// Run the standard speed and memory scenarios (see BENCHMARKS.md).
    Bench {
        /// Scenarios and checks to run (default: all): mqsim-default, pa-ssd-aged, trace-fin,
        /// large-device; the checks flatness and compare-parallel. Targets print as pass/fail.
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
    /// Statistics of a trace: counts, shares, sizes, inter-arrival times, footprint.
    TraceStats {
        /// The trace file (plain or gzip / zstd / bzip2 / xz; a pipe is read once).
        trace: PathBuf,
        /// Trace format (as `run --format`); detected from the first lines when omitted.
        #[arg(long)]
        format: Option<String>,
        /// Keep only this device / volume / ASU (e.g. 3, or 8,16 for blkparse).
        #[arg(long)]
        device: Option<String>,
        /// Skip malformed lines and zero-size requests, counting them by reason.
        #[arg(long)]
        lenient: bool,
        /// Read the trace's time column in this unit (ps, ns, us, ms, s) instead of the format's own.
        #[arg(long, value_name = "UNIT")]
        time_unit: Option<ssdlab_trace::TimeUnit>,
    },
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
    },
    /// Validate a config file (and overrides) without running anything.
    CheckConfig {
        /// Config file: ssdlab TOML, or MQSim / SSDSim, recognised by content.
        file: PathBuf,
        /// Overrides applied on top, as key.path=value.
        #[arg(long = "set")]
        set: Vec<String>,
    },
}

/// Where the device and the workload come from; shared by `run` and `compare`.
#[derive(Args, Clone, Debug)]
pub struct SetupArgs {
    /// Built-in device preset (see `ssdlab presets`). Default: small-tlc.
    #[arg(long, conflicts_with = "config")]
    pub preset: Option<String>,
    /// Config file: ssdlab TOML (see docs/config.md), MQSim's ssdconfig.xml or SSDSim's
    /// page.parameters (recognised by content; see docs/import.md).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// MQSim workload file (workload.xml): every IO_Scenario is a run (one with
    /// --scenario N).
    #[arg(long, conflicts_with_all = ["trace", "job"])]
    pub workload: Option<PathBuf>,
    /// Run only this scenario (from 1) of the --workload file.
    #[arg(long, requires = "workload")]
    pub scenario: Option<usize>,
    /// Folder to look for an MQSim trace flow's file in, after the workload file's folder.
    #[arg(long)]
    pub trace_dir: Option<PathBuf>,
    /// Override any config key, e.g. --set ftl.gc_victim=fifo (repeatable).
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Block trace to replay. Without one, the config's [workload] or the built-in
    /// synthetic workload runs.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Trace format: ssdsim, mqsim, msr, spc, disksim, flashsim, fiu, systor, blkparse,
    /// fio-v2, fio-v3, tencent, alibaba, arc, bytes5. Detected from the first lines when
    /// omitted (the summary says which format was used and why; five-column files whose
    /// units the data do not decide are refused). See docs/trace-formats.md.
    #[arg(long)]
    pub format: Option<String>,
    /// Read the trace's time column in this unit instead of the format's own: ps, ns, us,
    /// ms or s (e.g. an MQSim trace recorded in µs, a DiskSim-like file in seconds).
    #[arg(long, value_name = "UNIT")]
    pub time_unit: Option<ssdlab_trace::TimeUnit>,
    /// Keep only this device / volume / ASU of the trace (e.g. 3, or 8,16 for blkparse).
    #[arg(long)]
    pub device: Option<String>,
    /// Skip malformed lines and zero-size requests (counted and reported) instead of stopping.
    #[arg(long)]
    pub lenient: bool,
    /// Reorder out-of-order timestamps through a window of this many records.
    #[arg(long, default_value_t = 0)]
    pub sort_window: usize,
    /// Replay only the part of the trace from START to END seconds after its first
    /// request, e.g. --time-window 60:120.
    #[arg(long)]
    pub time_window: Option<String>,
    /// fio job file (INI as fio writes it, or TOML) to generate the workload.
    #[arg(long, conflicts_with_all = ["trace", "synthetic"])]
    pub job: Option<PathBuf>,
    /// Synthetic workload fields, e.g. --synthetic read_fraction=0.3,count=50000
    /// (keys of the [workload] section; see docs/config.md).
    #[arg(long)]
    pub synthetic: Option<String>,
    /// Root seed (overrides the config's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Replay the workload this many times back to back (multi-run).
    #[arg(long)]
    pub runs: Option<u32>,
    /// Closed-loop replay at this queue depth (ignores trace timestamps).
    #[arg(long)]
    pub closed_loop: Option<u32>,
    /// Open-loop time scaling: trace time is divided by this factor.
    #[arg(long)]
    pub speed: Option<f64>,
    /// Burst/delta replay (thesis §7.3.4): short gaps collapse, long gaps are enforced
    /// after the previous burst completes.
    #[arg(long, conflicts_with = "closed_loop")]
    pub burst: bool,
    /// Burst replay gap threshold in microseconds (default: the trace's mean inter-arrival).
    #[arg(long, requires = "burst")]
    pub burst_gap_us: Option<f64>,
    /// Cut the power at this simulated time (seconds, or with a unit: 1500ms, 2.5s,
    /// 800us); repeatable. The drive recovers its mapping table from flash and the run
    /// continues (see power.* in docs/config.md).
    #[arg(long = "power-loss-at", value_name = "TIME")]
    pub power_loss_at: Vec<String>,
    /// Refuse to start when the device's estimated memory exceeds this (e.g. 16G, 512M;
    /// `none` to skip the check). Default: the memory the machine has available.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,
    /// Refuse a trace with a gap longer than this many seconds between two arrivals (the
    /// error names the line). Without it, gaps over a day are reported as warnings.
    #[arg(long, value_name = "SECONDS")]
    pub max_gap: Option<f64>,
    /// Set by `run --quiet`: no notes on stderr.
    #[arg(skip)]
    pub quiet: bool,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    setup: SetupArgs,
    /// Write the JSON report here (schema: docs/json-schema.md).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write the results in the shape of MQSim's result XML (per-flow request
    /// counts, IOPS, bandwidth, response times), for scripts written for MQSim; with
    /// several MQSim scenarios, one file each, NAME_scenario_K.xml (docs/import.md)
    #[arg(long, value_name = "FILE")]
    mqsim_xml: Option<PathBuf>,
    /// Write the time series as CSV here (one row per --interval-ms of simulated time).
    #[arg(long)]
    series: Option<PathBuf>,
    /// Time-series interval in milliseconds of simulated time (default: the config's
    /// output.series_interval_ns, or 1000 when that is 0).
    #[arg(long)]
    interval_ms: Option<f64>,
    /// Write one CSV row per completed request here (`-` for stdout; the summary then goes
    /// to stderr).
    #[arg(long)]
    requests: Option<PathBuf>,
    /// Check FTL invariants during the run (every N completions with --check-every) and at its end.
    #[arg(long)]
    check: bool,
    /// With --check: also check the FTL invariants every N completed requests (slower as N
    /// gets smaller; default: only at the end and after recoveries).
    #[arg(long, value_name = "N", requires = "check")]
    check_every: Option<u64>,
    /// Tag every write with a version and check that every logical page reads its latest
    /// acknowledged version (at check points, after GC erases in debug builds, at the end).
    #[arg(long)]
    verify: bool,
    /// No progress bar and no terminal summary (errors still print).
    #[arg(long, short)]
    quiet: bool,
    /// Leave wall-clock measurements (simulator speed) out of the JSON so that two runs
    /// give byte-identical files.
    #[arg(long)]
    no_wall_clock: bool,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    setup: SetupArgs,
    /// A variant as NAME or NAME:key=value,key=value (overrides on top of the setup).
    /// Repeatable; the first is the baseline unless --baseline names another.
    #[arg(long = "variant", required = true)]
    variants: Vec<String>,
    /// Name of the variant the table is normalised to.
    #[arg(long)]
    baseline: Option<String>,
    /// Write all variants' reports as one JSON object here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Run the variants one after another instead of in parallel.
    #[arg(long)]
    serial: bool,
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

/// Set by Ctrl-C once `catch_interrupt` installed the handler: `ssdlab run` stops the
/// simulation after the event in progress and writes every output for the simulated time
/// so far, marked partial; `ssdlab swarm` starts no new seed and reports the seeds it ran.
/// Either exits with status 130. A second Ctrl-C quits at once.
static INTERRUPT: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();

/// Installs the Ctrl-C handler (once) and returns the flag it sets.
fn catch_interrupt() -> Arc<AtomicBool> {
    INTERRUPT
        .get_or_init(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let set = flag.clone();
            let installed = ctrlc::set_handler(move || {
                if set.swap(true, Ordering::Relaxed) {
                    std::process::exit(130);
                }
                eprintln!(
                    "\nssdlab: interrupted: finishing the work in progress and writing what is done (Ctrl-C again \
                     quits at once)"
                );
            });
            if let Err(e) = installed {
                eprintln!("warning: Ctrl-C will not keep partial results: {e}");
            }
            flag
        })
        .clone()
}

fn interrupted() -> bool {
    INTERRUPT.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run(args),
        Command::Compare(args) => compare::compare(args.setup, &args.variants, args.baseline, args.json, args.serial),
        Command::Presets { show } => presets(show),
        Command::Reproduce { name, traces, out, scale, only } => reproduce::reproduce(reproduce::ReproduceArgs {
            out: out.unwrap_or_else(|| PathBuf::from(format!("docs/reproductions/{name}.md"))),
            traces: traces.unwrap_or_else(reproduce::default_traces),
            name,
            scale,
            only,
        }),
        Command::Bench { scenarios, all, requests, json, record, child } => match child {
            Some(name) => bench::child(&name, requests),
            None => bench::bench(bench::BenchArgs { scenarios, all, requests, json, record }),
        },
        Command::CheckConfig { file, set } => check_config(&file, &set),
        Command::Import { simulator, files, output, scenario, trace_dir } => {
            import_command(&simulator, &files, output.as_deref(), scenario, trace_dir.as_deref())
        }
        Command::Swarm { seeds, start, power_loss } => swarm(start, seeds, power_loss),
        Command::TraceStats { trace, format, device, lenient, time_unit } => (|| {
            let format = format
                .map(|f| f.parse::<ssdlab_trace::Format>().map_err(|e| anyhow::anyhow!("--format: {e}")))
                .transpose()?;
            let mut options = setup::trace_options(device.as_deref(), lenient, 0)?;
            options.time_unit = time_unit;
            let readable = setup::readable_again(&trace)?;
            trace_stats::trace_stats(&readable, format, &options)
                .map_err(|e| anyhow::anyhow!(setup::user_paths(format!("{e:#}"))))
        })(),
    };
    setup::remove_spills();
    // Interrupted (Ctrl-C) is 130, as for a shell command killed by SIGINT, also when
    // the partial results were written.
    let failed = if interrupted() { ExitCode::from(130) } else { ExitCode::from(2) };
    match result {
        Ok(()) if interrupted() => failed,
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            failed
        }
    }
}

fn run(mut args: RunArgs) -> Result<()> {
    args.setup.quiet = args.quiet;
    let scenarios = match (&args.setup.workload, args.setup.scenario) {
        (Some(path), None) => import::mqsim::scenario_count(path)?,
        _ => 0,
    };
    if scenarios <= 1 {
        return run_one(&args, &args.setup, None);
    }
    // Every IO_Scenario of an MQSim workload is a run of its own.
    let workload = args.setup.workload.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    if args.series.is_some() || args.requests.is_some() {
        bail!("{workload}: {scenarios} scenarios: --series and --requests write one run's data; choose one with --scenario N");
    }
    let json = args.json.as_ref().map(|p| output::create_output(p, "JSON report")).transpose()?;
    let mut reports = Vec::new();
    for k in 1..=scenarios {
        if !args.quiet {
            println!("== {workload}: scenario {k} of {scenarios}");
        }
        let mut setup = args.setup.clone();
        setup.scenario = Some(k);
        run_one(&args, &setup, Some(&mut reports)).inspect_err(|_| {
            if let Some(path) = &args.json {
                let _ = std::fs::remove_file(path);
            }
        })?;
        if interrupted() {
            eprintln!("ssdlab: interrupted after scenario {k} of {scenarios}: the JSON holds those");
            break;
        }
        if !args.quiet && k < scenarios {
            println!();
        }
    }
    if let (Some(mut file), Some(path)) = (json, &args.json) {
        use std::io::Write;
        let text = serde_json::to_string_pretty(&serde_json::json!({ "scenarios": reports }))?;
        file.write_all((text + "\n").as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// One run. With `collect`, the JSON report is pushed there instead of written to `--json`.
fn run_one(args: &RunArgs, setup: &SetupArgs, collect: Option<&mut Vec<serde_json::Value>>) -> Result<()> {
    let mut prepared = setup::prepare(setup)?;
    if let Some(ms) = args.interval_ms {
        if !(ms.is_finite() && ms > 0.0) {
            anyhow::bail!("--interval-ms {ms}: the interval must be a positive number of milliseconds");
        }
        prepared.config.output.series_interval_ns = ((ms * 1e6) as u64).max(1);
    }
    let output = &mut prepared.config.output;
    match (&args.series, output.series_interval_ns) {
        (Some(_), 0) => {
            // A preset may turn the series off (mqsim-default); asking for it turns it on.
            output.series_interval_ns = ssdlab_core::config::Output::default().series_interval_ns;
            if !args.quiet {
                eprintln!(
                    "note: the config sets output.series_interval_ns = 0 (no series); --series uses {} ms \
                     (--interval-ms sets another)",
                    output.series_interval_ns / 1_000_000
                );
            }
        }
        // Without --series nothing reads the series: keep no rows in memory.
        (None, _) => output.series_interval_ns = 0,
        _ => {}
    }
    if let Some(n) = args.check_every {
        prepared.config.output.check_every = n;
    }
    setup::check_memory(&prepared.config, args.check || args.verify, setup.max_memory.as_deref())?;
    let mut warnings = Vec::new();
    let mut total_requests = None;
    let runs = u64::from(prepared.config.host.runs.max(1));
    match &prepared.workload {
        setup::Workload::Trace { path, format, options, .. } => {
            let scan = setup::scan_trace(path, *format, options)
                .map_err(|e| anyhow::anyhow!(setup::user_paths(format!("{e:#}"))))?;
            total_requests = Some(scan.records * runs);
            let timed = prepared.config.host.replay != ssdlab_core::config::ReplayMode::ClosedLoop;
            if let (true, Some((gap, line, index, at))) = (timed, scan.largest_gap) {
                let name = setup::user_paths(path.display().to_string());
                let text = format!(
                    "{name}:{line}: request {} arrives {:.1} s after the one before it (at {:.1} s on the trace's \
                     clock): the run's simulated time and rates include this gap (replay the part before it with \
                     --time-window 0:{:.0}, or --closed-loop N)",
                    index + 1,
                    gap as f64 / 1e9,
                    at as f64 / 1e9,
                    ((scan.span_ns - gap) as f64 / 1e9).ceil().max(1.0)
                );
                if let Some(max) = setup.max_gap {
                    if gap as f64 > max * 1e9 {
                        anyhow::bail!("--max-gap {max}: {text}");
                    }
                } else if gap > setup::ABSURD_GAP_NS {
                    warnings.push(text);
                }
            }
            if let Some(text) = setup::time_unit_warning(path, *format, options, &scan) {
                warnings.push(text);
            }
        }
        setup::Workload::Synthetic(spec) => total_requests = Some(spec.count * runs),
        setup::Workload::Fio { .. } => {}
    }
    if !args.quiet {
        for w in &warnings {
            eprintln!("warning: {w}");
        }
    }
    // Every output is opened before the simulation, so a bad path costs nothing.
    let json = match &collect {
        Some(_) => None,
        None => args.json.as_ref().map(|p| output::create_output(p, "JSON report")).transpose()?,
    };
    let series = args.series.as_ref().map(|p| output::create_output(p, "time series")).transpose()?;
    let mqsim_xml_path = args.mqsim_xml.as_ref().map(|p| match (&collect, setup.scenario) {
        (Some(_), Some(k)) => mqsim_xml::scenario_path(p, k),
        _ => p.clone(),
    });
    let mqsim_xml = mqsim_xml_path.as_ref().map(|p| output::create_output(p, "MQSim result XML")).transpose()?;
    let requests = args.requests.as_deref().map(output::RequestSink::open).transpose()?;
    let requests_to_stdout = matches!(requests, Some(output::RequestSink::Stdout));
    let options = output::RunOptions {
        requests,
        check: args.check,
        verify: args.verify,
        quiet: args.quiet,
        total_requests,
        series,
        stop: Some(catch_interrupt()),
    };
    let mut outcome = output::execute_with(prepared, options).inspect_err(|_| {
        // No half-made files from a run that failed.
        for path in [&args.json, &args.series].into_iter().flatten() {
            let _ = std::fs::remove_file(path);
        }
    })?;
    outcome.report.warnings.extend(warnings);
    let h = &outcome.report.host;
    if h.out_of_order > 0 {
        // Otherwise only the JSON's host.out_of_order would say so.
        let window = prepared_sort_window(setup);
        outcome.report.warnings.push(format!(
            "{} of {} requests arrived earlier than a request before them in the workload and were replayed when \
             read, out of time order; {}",
            h.out_of_order,
            h.requests,
            if window == 0 {
                "if the trace is only locally unsorted, --sort-window N reorders it through a window of N records (e.g. --sort-window 1000)".to_string()
            } else {
                format!("the sort window of {window} records did not reorder them all: a larger --sort-window may")
            }
        ));
    }
    if let Some(values) = collect {
        values.push(output::json_value(&outcome, !args.no_wall_clock));
    }
    if let (Some(file), Some(path)) = (json, &args.json) {
        output::write_json(file, path, &outcome, !args.no_wall_clock)?;
    }
    if let (Some(file), Some(path)) = (mqsim_xml, &mqsim_xml_path) {
        mqsim_xml::write(file, path, &outcome.report)?;
    }
    if !args.quiet {
        output::print_summary(&outcome, requests_to_stdout);
    }
    if let Some(p) = &outcome.report.partial {
        // Said even with --quiet: the files hold part of the workload.
        let files: Vec<String> = [&args.json, &args.series, &args.requests]
            .into_iter()
            .flatten()
            .filter(|p| p.as_os_str() != "-")
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "ssdlab: interrupted at {:.6} s of simulated time: {}{}",
            p.stopped_at_ns as f64 / 1e9,
            output::partial_counts(p, outcome.total_requests),
            if files.is_empty() {
                String::new()
            } else {
                format!("; {} hold the results so far (the JSON's `partial` says so)", files.join(", "))
            }
        );
    }
    Ok(())
}

fn prepared_sort_window(setup: &SetupArgs) -> usize {
    setup.sort_window
}

/// `ssdlab import`: another simulator's files → a commented ssdlab TOML config.
fn import_command(
    simulator: &str,
    files: &[PathBuf],
    output: Option<&std::path::Path>,
    scenario: Option<usize>,
    trace_dir: Option<&std::path::Path>,
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
    let loaded = import::load(device)?;
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
        ssdlab_core::presets::preset(&name)?;
        let text = ssdlab_core::presets::PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or("");
        print!("{text}");
        return Ok(());
    }
    println!("{:<20} {:<8} {:>10} {:>10}  description / source", "preset", "cell", "raw GiB", "logical");
    for (name, _) in ssdlab_core::presets::PRESETS {
        let c = ssdlab_core::presets::preset(name)?;
        let raw = c.physical_bytes() as f64;
        let logical = c.logical_bytes() as f64;
        let gib = 1024f64.powi(3);
        println!(
            "{:<20} {:<8} {:>10.1} {:>10.1}  {}",
            name,
            format!("{:?}", c.flash.cell).to_lowercase(),
            raw / gib,
            logical / gib,
            c.description
        );
        println!("{:<61}source: {}", "", c.source);
    }
    Ok(())
}

fn check_config(file: &std::path::Path, set: &[String]) -> Result<()> {
    let config = setup::load_config_file(file)?;
    let config = setup::apply_set(config, set)?;
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
