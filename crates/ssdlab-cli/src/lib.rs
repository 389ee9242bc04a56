//! The `ssdlab` command line as a library: everything the binary (`main.rs`) and the
//! Python package (crates/ssdlab-py) share, so that both set up, run and report a
//! simulation with the same code. This crate owns everything that touches files,
//! terminals and the wall clock; the model itself (ssdlab-core) has none of them.

pub mod bench;
pub mod compare;
pub mod figures;
pub mod import;
pub mod mqsim_xml;
pub mod output;
pub mod plot;
pub mod presets;
pub mod report_html;
pub mod reproduce;
pub mod run;
pub mod scaling;
pub mod session;
pub mod setup;
pub mod sweep;
pub mod trace_stats;

use clap::Args;
use std::path::PathBuf;

/// A command that ran to its end but whose results failed a gate the user asked for: a
/// required check of `reproduce` did not hold. `ssdlab` exits with status 1 for it (the
/// report is written), and with 2 for every other error (the README's "Exit status").
#[derive(Debug)]
pub struct GateFailed(pub String);

impl std::fmt::Display for GateFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GateFailed {}
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// How a trace is read: its format and the options on top of its reader. Shared by
/// `run` / `compare` (in [`SetupArgs`]) and `trace-stats`, so both read a trace alike.
#[derive(Args, Clone, Debug, Default)]
pub struct TraceArgs {
    /// Trace format: ssdsim, mqsim, msr, spc, disksim, flashsim, fiu, systor, blkparse,
    /// fio-v2, fio-v3, tencent, alibaba, arc, bytes5. Detected from the first lines when
    /// omitted (the summary says which format was used and why; five-column files whose
    /// units the data do not decide are refused). See docs/trace-formats.md.
    #[arg(long)]
    pub format: Option<String>,
    /// Read the trace's time column in this unit instead of the format's own: ps, ns, us,
    /// ms or s (e.g. an MQSim trace recorded in µs, a DiskSim-like file in seconds);
    /// overrides the config's host.time_unit and every flow's time_unit.
    #[arg(long, value_name = "UNIT")]
    pub time_unit: Option<ssdlab_trace::TimeUnit>,
    /// Keep only this device / volume / ASU of the trace (e.g. 3, or 8,16 for blkparse).
    #[arg(long)]
    pub device: Option<String>,
    /// Skip malformed lines and zero-size requests (counted and reported) instead of stopping;
    /// with `run`, also run an MQSim / SSDSim config whose unknown names look like typos
    /// (warned, ignored).
    #[arg(long)]
    pub lenient: bool,
    /// Reorder out-of-order timestamps through a window of this many records.
    #[arg(long, default_value_t = 0)]
    pub sort_window: usize,
    /// Replay only the part of the trace from START to END seconds after its first
    /// request, e.g. --time-window 60:120.
    #[arg(long)]
    pub time_window: Option<String>,
    /// Refuse a trace with a gap longer than this many seconds between two arrivals (the
    /// error names the line). Without it, gaps over a day are reported as warnings.
    #[arg(long, value_name = "SECONDS")]
    pub max_gap: Option<f64>,
}

impl TraceArgs {
    /// The [`ssdlab_trace::TraceOptions`] these flags give (a config's `host.time_unit`,
    /// which `--time-unit` overrides, is the caller's to add).
    pub fn options(&self) -> anyhow::Result<ssdlab_trace::TraceOptions> {
        let mut options = setup::trace_options(self.device.as_deref(), self.lenient, self.sort_window)?;
        options.time_unit = self.time_unit;
        if let Some(text) = &self.time_window {
            let window = ssdlab_trace::parse_time_window(text).map_err(|e| anyhow::anyhow!("--time-window {e}"))?;
            options.time_window_ns = Some(window);
        }
        Ok(options)
    }
}

/// Where the device and the workload come from; shared by `run` and `compare`.
#[derive(Args, Clone, Debug, Default)]
pub struct SetupArgs {
    /// Built-in device preset (see `ssdlab presets`). Default: small-tlc.
    #[arg(long, conflicts_with = "config")]
    pub preset: Option<String>,
    /// Config file: ssdlab TOML (see docs/config.md), MQSim's ssdconfig.xml or SSDSim's
    /// page.parameters (recognised by content; see docs/import.md).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// With an MQSim / SSDSim config: refuse a fork's values and keys (which otherwise
    /// run with the nearest meaning, warned) and unknown names, instead of running.
    #[arg(long)]
    pub strict: bool,
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
    #[command(flatten)]
    pub trace_args: TraceArgs,
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
    /// Set by `run --quiet`: no notes on stderr.
    #[arg(skip)]
    pub quiet: bool,
    /// A config given as text instead of a file (the Python package's `config=dict`):
    /// ssdlab TOML, named `origin` in error messages. Used when `config` is None.
    #[arg(skip)]
    pub config_text: Option<ConfigText>,
}

/// An ssdlab TOML config that is not in a file.
#[derive(Clone, Debug)]
pub struct ConfigText {
    /// What error messages call it (e.g. "config dict").
    pub origin: String,
    pub toml: String,
}

/// `ssdlab run`'s arguments (also parsed by the Python package, from the keyword
/// arguments of `ssdlab.run`).
#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Write the JSON report here (schema: docs/json-schema.md).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write the results in the shape of MQSim's result XML (per-flow request
    /// counts, IOPS, bandwidth, response times), for scripts written for MQSim; with
    /// several MQSim scenarios, one file each, NAME_scenario_K.xml (docs/import.md)
    #[arg(long, value_name = "FILE")]
    pub mqsim_xml: Option<PathBuf>,
    /// Write the time series as CSV here (one row per --interval-ms of simulated time).
    #[arg(long)]
    pub series: Option<PathBuf>,
    /// Time-series interval in milliseconds of simulated time (default: the config's
    /// output.series_interval_ns, or 1000 when that is 0).
    #[arg(long)]
    pub interval_ms: Option<f64>,
    /// Write one CSV row per completed request here (`-` for stdout; the summary then goes
    /// to stderr).
    #[arg(long)]
    pub requests: Option<PathBuf>,
    /// Check FTL invariants during the run (every N completions with --check-every) and at its end.
    #[arg(long)]
    pub check: bool,
    /// With --check: also check the FTL invariants every N completed requests (slower as N
    /// gets smaller; default: only at the end and after recoveries).
    #[arg(long, value_name = "N", requires = "check")]
    pub check_every: Option<u64>,
    /// Tag every write with a version and check that every logical page reads its latest
    /// acknowledged version (at check points, after GC erases in debug builds, at the end).
    #[arg(long)]
    pub verify: bool,
    /// No progress bar and no terminal summary (warnings and errors still print, on stderr).
    #[arg(long, short)]
    pub quiet: bool,
    /// Leave wall-clock measurements (simulator speed) out of the JSON so that two runs
    /// give byte-identical files.
    #[arg(long)]
    pub no_wall_clock: bool,
    /// Also write a self-contained HTML report here: summary, latency CDFs, time series,
    /// page types, erase counts (docs/report.md). Keeps the time series as --series does.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// With [[flows]]: also run each flow alone on the same device and report each flow's
    /// slowdown (mean latency shared / alone) and the fairness (smallest slowdown over the
    /// largest), as MQSim's multi-flow experiments measure interference.
    #[arg(long)]
    pub fairness: bool,
}

/// `ssdlab compare`'s arguments.
#[derive(Args, Clone, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub setup: SetupArgs,
    /// A variant as NAME or NAME:key=value,key=value (overrides on top of the setup).
    /// Repeatable; the first is the baseline unless --baseline names another.
    #[arg(long = "variant", required = true)]
    pub variants: Vec<String>,
    /// Name of the variant the table is normalised to.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Write all variants' reports as one JSON object here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Run the variants one after another instead of in parallel.
    #[arg(long)]
    pub serial: bool,
    /// Also write a self-contained HTML report of the variants here (latency CDFs
    /// overlaid, time series, page types, erase counts; docs/report.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write each variant's time series as CSV, as `run --series` does, to this path with
    /// the variant's name added: --series s.csv writes s_NAME.csv for every variant.
    #[arg(long, value_name = "FILE")]
    pub series: Option<PathBuf>,
    /// Time-series interval in milliseconds of simulated time, as for `run` (default: the
    /// config's output.series_interval_ns, or 1000 when that is 0).
    #[arg(long)]
    pub interval_ms: Option<f64>,
}

/// Set by Ctrl-C once `catch_interrupt` installed the handler: `ssdlab run` stops the
/// simulation after the event in progress and writes every output for the simulated time
/// so far, marked partial; `ssdlab swarm` starts no new seed and reports the seeds it ran.
/// Either exits with status 130. A second Ctrl-C quits at once.
static INTERRUPT: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();

/// Installs the Ctrl-C handler (once) and returns the flag it sets.
pub fn catch_interrupt() -> Arc<AtomicBool> {
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

pub fn interrupted() -> bool {
    INTERRUPT.get().is_some_and(|flag| flag.load(Ordering::Relaxed))
}
