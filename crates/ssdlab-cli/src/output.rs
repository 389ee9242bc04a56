//! Running a prepared simulation with a progress bar, and writing its results: terminal
//! summary, JSON report, time-series CSV and per-request CSV.

mod design_text;

use crate::setup::Prepared;
use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use ssdlab_core::stats::{page_type_names, RequestRecord};
use ssdlab_core::{Config, Observers, Report, SeriesRow, Simulator};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Wall-clock measurements of one run: kept apart from the deterministic report.
#[derive(Clone, Debug, Serialize)]
pub struct SimulatorSpeed {
    /// Whole run including building and preconditioning the drive.
    pub wall_seconds: f64,
    /// Building the device and preconditioning it (rapid warm-up).
    pub setup_seconds: f64,
    /// The rates below use the simulation time only (wall_seconds - setup_seconds).
    pub sub_requests_per_second: f64,
    pub requests_per_second: f64,
    pub events_per_second: f64,
}

pub struct Outcome {
    pub report: Report,
    /// The time series when it was not streamed to a file (idle gaps folded).
    pub series: Vec<SeriesRow>,
    pub speed: SimulatorSpeed,
    pub workload: String,
    /// The configuration the run used, after presets, files, `--set` and flags.
    pub config: Config,
    /// What `--check` / `--verify` checked, for the summary (empty when neither ran).
    pub checked: Vec<String>,
    /// What became of an MQSim or SSDSim file's parameters.
    pub import: Option<crate::import::ImportReport>,
    /// Requests the whole workload holds, when known (a stopped run says how many ran).
    pub total_requests: Option<u64>,
}

/// Where the per-request CSV goes: a file, stdout (`--requests -`) or any writer (the
/// Python package's in-memory buffer).
pub enum RequestSink {
    File(std::fs::File),
    Stdout,
    Writer(Box<dyn Write + Send>),
}

/// A byte buffer that several owners can write to and read back: the CSV outputs of a
/// run kept in memory (the Python package turns them into DataFrames).
#[derive(Clone, Default)]
pub struct SharedBuffer(Arc<std::sync::Mutex<Vec<u8>>>);

impl SharedBuffer {
    /// The bytes written so far, leaving the buffer empty.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().expect("no panic holds the lock"))
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("no panic holds the lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl RequestSink {
    /// Opens (creates) the per-request CSV before the run, so a bad path fails at once.
    pub fn open(path: &Path) -> Result<RequestSink> {
        if path.as_os_str() == "-" {
            return Ok(RequestSink::Stdout);
        }
        let file = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(RequestSink::File(file))
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            RequestSink::File(f) => f.write_all(bytes),
            RequestSink::Writer(w) => w.write_all(bytes),
            RequestSink::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()
            }
        }
    }
}

/// Everything `ssdlab run` can ask of [`execute_with`] beyond the prepared run.
#[derive(Default)]
pub struct RunOptions {
    pub requests: Option<RequestSink>,
    pub check: bool,
    pub verify: bool,
    pub quiet: bool,
    /// Requests the whole run will complete, when known (percent and ETA on the bar).
    pub total_requests: Option<u64>,
    /// The time-series CSV, written row by row as the run produces them.
    pub series: Option<Box<dyn Write + Send>>,
    /// Stops the run after the event in progress when set (Ctrl-C): the outcome is partial.
    pub stop: Option<Arc<AtomicBool>>,
    /// Designs built outside `ssdlab-core`, added to the simulator before it runs.
    pub designs: Vec<DesignInstaller>,
}

/// Adds a design built outside `ssdlab-core` to a simulator that has not run yet (it
/// reads its config section with `Config::design_section` and calls `add_design`).
/// Shared: a multi-scenario run and `--fairness` install it in every simulation.
pub type DesignInstaller = Arc<dyn Fn(&mut Simulator<'_>) -> Result<(), ssdlab_core::SimError> + Send + Sync>;

/// A design's install function (`HotCold::install`).
pub type InstallFn = fn(&mut Simulator<'_>) -> Result<(), ssdlab_core::SimError>;

/// A design's install function as a `DesignInstaller`.
pub fn installer(install: InstallFn) -> DesignInstaller {
    Arc::new(install)
}

/// Per-request CSV rows are handed to the file in whole rows only, 64 KiB at a time, so
/// a run killed part way (Ctrl-C) leaves complete rows, never a torn last line. The CSV
/// writer is flushed after every row into `Chunks`, which passes on only whole chunks.
struct RowWriter {
    csv: csv::Writer<Chunks>,
    error: Option<anyhow::Error>,
}

struct Chunks {
    buffer: Vec<u8>,
    sink: RequestSink,
    /// Write the buffer out at the next flush whatever its size (the end of the run).
    last: bool,
}

impl Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.last || self.buffer.len() >= RowWriter::CHUNK {
            self.sink.write_all(&self.buffer)?;
            self.buffer.clear();
        }
        Ok(())
    }
}

impl RowWriter {
    const CHUNK: usize = 1 << 16;

    fn new(sink: RequestSink) -> RowWriter {
        let chunks = Chunks { buffer: Vec::with_capacity(Self::CHUNK * 2), sink, last: false };
        RowWriter { csv: csv::Writer::from_writer(chunks), error: None }
    }

    fn push(&mut self, r: &RequestRecord) {
        if self.error.is_some() {
            return;
        }
        let result = self.csv.serialize(r).map_err(anyhow::Error::from).and_then(|()| Ok(self.csv.flush()?));
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn finish(mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.csv.flush()?;
        let mut chunks = self.csv.into_inner().map_err(|e| anyhow!("{}", e.error()))?;
        chunks.last = true;
        chunks.flush()?;
        Ok(())
    }
}

/// Time-series rows go to the CSV file as the run produces them (a few per interval
/// with completions; an idle gap is one row), so memory does not grow with the run.
struct SeriesWriter {
    csv: csv::Writer<std::io::BufWriter<Box<dyn Write + Send>>>,
    error: Option<anyhow::Error>,
}

impl SeriesWriter {
    fn new(file: Box<dyn Write + Send>, config: &Config) -> Result<SeriesWriter> {
        let mut csv = csv::Writer::from_writer(std::io::BufWriter::new(file));
        csv.write_record(series_header(config))?;
        Ok(SeriesWriter { csv, error: None })
    }

    fn push(&mut self, row: &SeriesRow) {
        if self.error.is_none() {
            if let Err(e) = self.csv.write_record(series_fields(row)) {
                self.error = Some(e.into());
            }
        }
    }

    fn finish(mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.csv.flush()?;
        Ok(())
    }
}

/// Runs the simulation. A progress bar appears on stderr once a run has taken a second,
/// unless `quiet` or stderr is not a terminal.
pub fn execute(prepared: Prepared, requests_csv: Option<&Path>, check: bool, quiet: bool) -> Result<Outcome> {
    let requests = requests_csv.map(RequestSink::open).transpose()?;
    execute_with(prepared, RunOptions { requests, check, quiet, ..RunOptions::default() })
}

/// As [`execute`], with every option of `ssdlab run` (outputs opened by the caller).
pub fn execute_with(prepared: Prepared, options: RunOptions) -> Result<Outcome> {
    let RunOptions { requests, check, verify, quiet, total_requests, series, stop, designs } = options;
    let Prepared { mut config, workload, import } = prepared;
    // The page table's representation (`auto`, `dense`, `sparse`): the same results, a
    // debugging and measuring switch, not a config key.
    if let Ok(table) = std::env::var("SSDLAB_PAGE_TABLE") {
        config.ftl.page_table = table.parse().map_err(|e: String| anyhow::anyhow!("SSDLAB_PAGE_TABLE: {e}"))?;
    }
    let resolved = config.clone();
    let describe = crate::setup::user_paths(workload.describe());
    let started = Instant::now();
    let show_progress = !quiet && std::io::stderr().is_terminal();
    let bar = ProgressBar::with_draw_target(total_requests, ProgressDrawTarget::hidden());
    let template = if total_requests.is_some() {
        "{spinner} {elapsed} [{bar:30}] {percent:>3}% {pos}/{len} requests, simulated {msg}, ETA {eta}"
    } else {
        "{spinner} {elapsed} {pos} requests done, simulated {msg}"
    };
    bar.set_style(ProgressStyle::with_template(template).expect("static template").progress_chars("=> "));
    if show_progress {
        // The drive is built and preconditioned (with its own pass over the workload)
        // inside `Simulator::new`; say so instead of showing nothing.
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_message("0 s (building and preconditioning the drive)");
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    let csv_writer = requests.map(|sink| RefCell::new(RowWriter::new(sink)));
    let series_writer = series.map(|file| SeriesWriter::new(file, &resolved).map(RefCell::new)).transpose()?;
    let mut observers = Observers::default();
    let bar_ref = &bar;
    observers.progress_every = 4096;
    observers.progress = Some(Box::new(move |done, now_ns| {
        bar_ref.set_position(done);
        bar_ref.set_message(format!("{:.3} s", now_ns as f64 / 1e9));
    }));
    if let Some(writer) = &csv_writer {
        observers.requests = Some(Box::new(move |r: &RequestRecord| writer.borrow_mut().push(r)));
    }
    if let Some(writer) = &series_writer {
        observers.series = Some(Box::new(move |r: &SeriesRow| writer.borrow_mut().push(r)));
    }
    let opener = workload.clone();
    let factory = Box::new(move || opener.open());
    // Preconditioning (inside `new`) makes its own pre-pass over the workload and places
    // every page it reads before writing, so a read never places data during the run.
    let flow_sources = match &workload {
        crate::setup::Workload::Flows(flows) => flows
            .iter()
            .map(|f| f.open())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| anyhow!("{}", crate::setup::user_paths(e.to_string())))?,
        _ => Vec::new(),
    };
    let mut sim = Simulator::new_with_flows(config, factory, flow_sources, observers).map_err(|e| anyhow!("{e}"))?;
    for install in &designs {
        install(&mut sim).map_err(|e| anyhow!("{e}"))?;
    }
    // A section no active design reads is a typo or a design this binary does not have.
    let active = sim.active_designs();
    // (`enabled = false` switches a design off: its section is read, not a typo.)
    let off = |section: &toml::Table| section.get("enabled").and_then(toml::Value::as_bool) == Some(false);
    if let Some((name, _)) = resolved.designs.iter().find(|(k, v)| !active.contains(&k.as_str()) && !off(v)) {
        bail!(
            "config section [designs.{name}]: no design named {name} runs here (active: {}); `ssdlab` runs the \
             built-in designs, a design of your own runs in your own binary (ARCHITECTURE.md, \"Adding a design\")",
            if active.is_empty() { "none".to_string() } else { active.join(", ") }
        );
    }
    let setup = started.elapsed().as_secs_f64();
    bar.set_message("0 s");
    sim.set_check(check);
    sim.set_verify(verify);
    if let Some(flag) = stop {
        sim.set_stop_flag(flag);
    }
    let (report, series) = sim.run_to_end().map_err(|e| anyhow!("{}", crate::setup::locate_error(&e, &workload)))?;
    let finished = started.elapsed();
    // Freed after the clock stops: releasing the drive's tables is not simulation.
    drop(sim);
    bar.finish_and_clear();
    if let Some(writer) = csv_writer {
        writer.into_inner().finish().context("writing the per-request CSV")?;
    }
    if let Some(writer) = series_writer {
        writer.into_inner().finish().context("writing the time series")?;
    }
    let mut checked = Vec::new();
    if check {
        let every = match resolved.output.check_every {
            0 => String::new(),
            n => format!(" every {n} completions,"),
        };
        checked.push(format!(
            "check: the FTL invariants (map and reverse map, block states, free-page counts, program order) and \
             the timing rules (resource occupancy) held{every} at the end of the run, and at every event for \
             timing"
        ));
    }
    if verify {
        checked.push(
            "verify: every logical page held a version between its last acknowledged and last issued write at \
             every check point and at the end of the run"
                .to_string(),
        );
    }
    let total = finished.as_secs_f64();
    let wall = (total - setup).max(1e-9);
    let speed = SimulatorSpeed {
        wall_seconds: total,
        setup_seconds: setup,
        sub_requests_per_second: report.host.sub_requests as f64 / wall,
        requests_per_second: report.host.requests as f64 / wall,
        events_per_second: report.events as f64 / wall,
    };
    Ok(Outcome { report, series, speed, workload: describe, config: resolved, checked, import, total_requests })
}

#[derive(Serialize)]
struct JsonOut<'a> {
    #[serde(flatten)]
    report: &'a Report,
    workload_description: &'a str,
    /// The command line that produced the report (program name first); left out with
    /// the wall clock, since it differs between otherwise identical runs (output paths).
    #[serde(skip_serializing_if = "Option::is_none")]
    command_line: Option<Vec<String>>,
    /// The full resolved configuration (keys as in docs/config.md).
    config: &'a Config,
    #[serde(skip_serializing_if = "Option::is_none")]
    simulator: Option<&'a SimulatorSpeed>,
    /// Every parameter of an imported MQSim / SSDSim file and its fate (docs/import.md).
    /// Added here, not in the core's Report: the import is the CLI's.
    #[serde(skip_serializing_if = "Option::is_none")]
    import: Option<&'a crate::import::ImportReport>,
}

pub fn json_value(outcome: &Outcome, wall_clock: bool) -> serde_json::Value {
    serde_json::to_value(JsonOut {
        report: &outcome.report,
        workload_description: &outcome.workload,
        command_line: wall_clock.then(|| std::env::args().collect()),
        config: &outcome.config,
        simulator: wall_clock.then_some(&outcome.speed),
        import: outcome.import.as_ref(),
    })
    .expect("report serialises")
}

/// Creates an output file before the run, so a bad path fails before any simulation.
pub fn create_output(path: &Path, what: &str) -> Result<std::fs::File> {
    std::fs::File::create(path).with_context(|| format!("cannot create the {what} {}", path.display()))
}

pub fn write_json(file: std::fs::File, path: &Path, outcome: &Outcome, wall_clock: bool) -> Result<()> {
    let text = serde_json::to_string_pretty(&json_value(outcome, wall_clock))?;
    let mut file = file;
    file.write_all((text + "\n").as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

/// The time-series header: fixed columns, then the free pages of each page type of the
/// configured cell, named by type (`free_pages_LSB`, …), whether or not there are rows.
pub fn series_header(config: &Config) -> Vec<String> {
    let mut header: Vec<String> = [
        "start_ns",
        "end_ns",
        "reads",
        "writes",
        "read_bytes",
        "write_bytes",
        "read_latency_mean_ns",
        "write_latency_mean_ns",
        "iops",
        "bandwidth_mib_s",
        "free_blocks",
        "erases",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(page_type_names(config.bits_per_cell()).iter().map(|t| format!("free_pages_{t}")));
    header.extend([
        "slc_user_pages".to_string(),
        "slc_free_pages".to_string(),
        "slc_migrated_pages".to_string(),
        "read_retries".to_string(),
        "intervals".to_string(),
    ]);
    header
}

/// The time series as CSV text, as `--series` writes it (for rows kept in memory).
pub fn series_csv(config: &Config, rows: &[SeriesRow]) -> Result<Vec<u8>> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(series_header(config))?;
    for row in rows {
        csv.write_record(series_fields(row))?;
    }
    csv.into_inner().map_err(|e| anyhow!("{}", e.error()))
}

/// One time-series row as CSV fields, in the order of [`series_header`].
fn series_fields(r: &SeriesRow) -> Vec<String> {
    let mut fields = vec![
        r.start_ns.to_string(),
        r.end_ns.to_string(),
        r.reads.to_string(),
        r.writes.to_string(),
        r.read_bytes.to_string(),
        r.write_bytes.to_string(),
        format!("{:.1}", r.read_latency_mean_ns),
        format!("{:.1}", r.write_latency_mean_ns),
        format!("{:.3}", r.iops),
        format!("{:.3}", r.bandwidth_mib_s),
        r.free_blocks.to_string(),
        r.erases.to_string(),
    ];
    fields.extend(r.free_pages_by_type.iter().map(|n| n.to_string()));
    fields.extend([
        r.slc_user_pages.to_string(),
        r.slc_free_pages.to_string(),
        r.slc_migrated_pages.to_string(),
        r.read_retries.to_string(),
        r.intervals.to_string(),
    ]);
    fields
}

/// The series with every folded idle gap expanded back into one row per interval (for
/// the reproductions, which line up rows of several runs by interval).
pub fn unfold_series(rows: &[SeriesRow]) -> Vec<SeriesRow> {
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let width = (r.end_ns - r.start_ns) / r.intervals.max(1);
        for k in 0..r.intervals {
            let start_ns = r.start_ns + k * width;
            out.push(SeriesRow { start_ns, end_ns: start_ns + width, intervals: 1, ..r.clone() });
        }
    }
    out
}

/// What a stopped run left out, in words: "1,234 requests completed (of 5,000 in the
/// workload), 12 in the device and 3 waiting in the host not counted".
pub fn partial_counts(p: &ssdlab_core::stats::PartialRun, total_requests: Option<u64>) -> String {
    format!(
        "{} requests completed{}, {} in the device and {} waiting in the host not counted",
        p.completed_requests,
        total_requests.map(|n| format!(" (of {n} in the workload)")).unwrap_or_default(),
        p.outstanding_requests,
        p.waiting_requests
    )
}

/// A rate with `decimals` decimals, or with four significant digits when that would
/// print a small rate as 0.0 (an idle-rich trace: 0.02476 IOPS over days; issue 45).
fn rate(v: f64, decimals: usize) -> String {
    if v == 0.0 || !v.is_finite() || v >= 10f64.powi(4 - decimals as i32 - 1) {
        return format!("{v:.decimals$}");
    }
    let digits = (3 - v.log10().floor() as i32).max(decimals as i32) as usize;
    format!("{v:.digits$}")
}

fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1000.0)
}

/// Prints the terminal summary to stdout, or to stderr when stdout carries the
/// per-request CSV (`--requests -`).
pub fn print_summary(o: &Outcome, to_stderr: bool) {
    let text = summary_text(o);
    if to_stderr {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
}

/// One line of the summary (writing to a String cannot fail).
macro_rules! out {
    ($o:expr) => {
        let _ = writeln!($o);
    };
    ($o:expr, $($t:tt)*) => {
        let _ = writeln!($o, $($t)*);
    };
}

/// The zoned drive's host-side log-structured layer (docs/zns-fdp.md): its WAF and the
/// drive's apart.
fn host_layer_line(w: &mut String, h: &serde_json::Value) {
    let n = |k: &str| h[k].as_u64().unwrap_or(0);
    let f = |k: &str| h[k].as_f64().unwrap_or(0.0);
    out!(
        w,
        "host layer (log-structured, {:.1} MiB for the application, spare {}): host WAF {:.3} ({} pages written to \
         the drive for {} written by the application), device WAF {:.3}, total {:.3}; host GC: {} zones, {} pages \
         moved, {} resets; {} application pages read unwritten",
        f("capacity_bytes") / 1024f64.powi(2),
        f("spare_fraction"),
        f("host_waf"),
        n("drive_pages_written"),
        n("app_pages_written"),
        f("device_waf"),
        f("total_waf"),
        n("gc_victims"),
        n("gc_pages_moved"),
        n("resets"),
        n("unmapped_pages_read")
    );
}

/// The terminal summary.
pub fn summary_text(o: &Outcome) -> String {
    let mut text = String::new();
    let w = &mut text;
    let r = &o.report;
    let d = &r.device;
    let gib = 1024f64.powi(3);
    out!(
        w,
        "ssdlab {} — {} ({}, {:.1} GiB raw, {:.1} GiB logical)",
        r.ssdlab_version,
        d.preset,
        d.cell,
        d.physical_bytes as f64 / gib,
        d.logical_bytes as f64 / gib
    );
    out!(w, "workload: {}", o.workload);
    if let Some(p) = &r.partial {
        out!(
            w,
            "PARTIAL RUN: interrupted at {:.6} s of simulated time; {}. Everything below covers the \
             simulated time so far.",
            p.stopped_at_ns as f64 / 1e9,
            partial_counts(p, o.total_requests)
        );
    }
    if let Some(import) = &o.import {
        out!(
            w,
            "{} (each parameter is listed on stderr before the run and in the JSON's import)",
            import.counts_line()
        );
    }
    // With flows each flow replays its own way (its line below).
    let replay = if r.flows.is_empty() {
        format!("{}, runs: {}", r.host.replay, r.host.runs)
    } else {
        format!("{} flows", r.flows.len())
    };
    out!(
        w,
        "replay: {replay}, requests: {}, sub-requests: {}, simulated {:.6} s",
        r.host.requests,
        r.host.sub_requests,
        r.simulated_ns as f64 / 1e9
    );
    out!(w);
    out!(
        w,
        "{:<6} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}",
        "op",
        "requests",
        "IOPS",
        "MiB/s",
        "mean us",
        "p50 us",
        "p90 us",
        "p99 us",
        "p99.9 us",
        "max us"
    );
    for (name, s) in [("read", &r.read), ("write", &r.write), ("trim", &r.trim), ("all", &r.all)] {
        if s.requests == 0 && name != "all" {
            continue;
        }
        let l = &s.latency_ns;
        out!(
            w,
            "{:<6} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}",
            name,
            s.requests,
            rate(s.iops, 1),
            rate(s.bandwidth_mib_s, 2),
            us(l.mean),
            us(l.p50 as f64),
            us(l.p90 as f64),
            us(l.p99 as f64),
            us(l.p999 as f64),
            us(l.max as f64)
        );
    }
    out!(w);
    let names = page_type_names(r.dominated_write_share.len());
    let bits = names.len();
    let label = |t: usize| names[t].as_str();
    let shares: Vec<String> =
        (0..bits).map(|t| format!("{} {:.1}%", label(t), r.dominated_write_share[t] * 100.0)).collect();
    // A write acknowledged from the DRAM cache waits for no program: it has no dominant
    // type, and a bare 0% share would read as "no writes" (issue 45).
    let writes = r.write.requests;
    if writes > 0 && r.dominated_writes == 0 {
        out!(
            w,
            "write requests dominated by: none ({writes} writes were acknowledged from the DRAM cache, before any \
             program; their pages' types are in the programs below)"
        );
    } else if r.dominated_writes < writes {
        out!(
            w,
            "write requests dominated by: {} (of the {} writes that waited for a program; {} were acknowledged \
             from the DRAM cache)",
            shares.join(", "),
            r.dominated_writes,
            writes - r.dominated_writes
        );
    } else {
        out!(w, "write requests dominated by: {}", shares.join(", "));
    }
    let programs: Vec<String> =
        (0..bits).map(|t| format!("{} {}", label(t), r.flash.programs_by_page_type[t])).collect();
    out!(w, "page programs by type: {}", programs.join(", "));
    out!(
        w,
        "WAF {:.3} by bytes ({:.3} by page programs); GC: {} victims, {} pages moved, {} erases ({} emergency / {} background steps)",
        r.waf,
        r.waf_pages,
        r.gc.victims,
        r.gc.moved_pages,
        r.gc.erases,
        r.gc.emergency_steps,
        r.gc.background_steps
    );
    out!(
        w,
        "erase counts: min {} mean {:.1} max {}; SLC hit ratio {:.3}; multi-plane commands {}; copybacks {}",
        r.erase_counts.min,
        r.erase_counts.mean,
        r.erase_counts.max,
        r.flash.slc_hit_ratio,
        r.flash.multi_plane_commands,
        r.flash.copybacks
    );
    if let Some(m) = &r.mapping {
        out!(
            w,
            "{} map ({} units per page): {} interleaved pairs, {} packed programs, {} GC compactions, {} extra page \
             reads, {} logical pages split at the end; mapping table {} bytes",
            m.kind,
            m.units_per_page,
            m.interleaved_pairs,
            m.packed_programs,
            m.gc_compactions,
            m.extra_page_reads,
            m.split_logical_pages,
            d.mapping_table_bytes
        );
    }
    if let Some(e) = &r.errors {
        let names = page_type_names(e.reads_by_page_type.len());
        let by_type: Vec<String> =
            names
                .iter()
                .enumerate()
                .filter(|&(t, _)| e.reads_by_page_type[t] > 0)
                .map(|(t, name)| {
                    format!(
                        "{name} {:.2} (RBER {:.5})",
                        e.retries_by_page_type[t] as f64 / e.reads_by_page_type[t] as f64,
                        e.mean_rber_by_page_type[t]
                    )
                })
                .chain((e.slc_reads > 0).then(|| {
                    format!("SLC {:.2} (RBER {:.5})", e.slc_retries as f64 / e.slc_reads as f64, e.slc_mean_rber)
                }))
                .collect();
        out!(
            w,
            "errors ({} ECC): {} page reads, {} retries; per read by type: {}; {} uncorrectable, decode {:.3} ms in all",
            e.ecc,
            e.decoded_reads,
            e.read_retries,
            if by_type.is_empty() { "none".to_string() } else { by_type.join(", ") },
            e.uncorrectable_reads,
            e.ecc_decode_ns_total as f64 / 1e6
        );
    }
    if let Some(n) = d.super_page_pages {
        out!(w, "super-pages of {n} physical pages: the geometry above is the FTL's (gangs of dies as dies)");
    }
    let st = &r.start_state;
    out!(
        w,
        "start state (per plane, min/mean/max): valid pages {}/{:.0}/{}, invalid {}/{:.0}/{}, free blocks {}/{:.1}/{}; \
         fewest free blocks above the background GC threshold ({}): {}; {} of {} planes need GC",
        st.valid_pages.min,
        st.valid_pages.mean,
        st.valid_pages.max,
        st.invalid_pages.min,
        st.invalid_pages.mean,
        st.invalid_pages.max,
        st.free_blocks.min,
        st.free_blocks.mean,
        st.free_blocks.max,
        st.background_gc_free_blocks,
        st.min_blocks_above_background,
        st.planes_needing_gc,
        d.planes
    );
    if let Some(ss) = &r.precondition.steady_state {
        out!(
            w,
            "steady-state preconditioning ({}): {} rounds of {} pages, {}; WAF by round: {}{}",
            match serde_json::to_value(ss.writes) {
                Ok(serde_json::Value::String(s)) => s,
                _ => String::new(),
            },
            ss.rounds,
            ss.round_pages,
            if ss.converged { "converged" } else { "NOT converged" },
            ss.waf_series(),
            match ss.run_waf_pages {
                Some(run) => format!(" (window {:.3}, run {run:.3})", ss.window_waf),
                None => format!(" (window {:.3})", ss.window_waf),
            }
        );
    }
    // A note that is also a warning is printed once, with the warnings.
    for note in st.notes.iter().filter(|n| !r.warnings.iter().any(|w| w.starts_with(n.as_str()))) {
        out!(w, "  note: {note}");
    }
    let h = &r.host;
    out!(
        w,
        "reads of never-written pages: {} answered during the run (policy: {}); {} pages the workload reads \
         before writing them were placed on flash by preconditioning",
        h.unwritten_reads,
        h.unwritten_read_policy,
        h.unwritten_pages_preplaced
    );
    out!(
        w,
        "input: {} records skipped{}; {} arrived out of order (served when read); {} addresses remapped ({}); \
         {} unaligned",
        h.skipped_records,
        if h.skipped_records > 0 { format!(" ({})", h.skipped_by_reason.describe()) } else { String::new() },
        h.out_of_order,
        h.address_remapped,
        h.address_policy,
        h.unaligned
    );
    out!(
        w,
        "energy: {:.3} J total (work: {:.3} J user, {:.3} J GC), {:.1} uJ per request; mapping table {:.1} MiB",
        r.energy_nj.total / 1e9,
        r.energy_nj.user / 1e9,
        r.energy_nj.gc / 1e9,
        r.energy_nj.per_request / 1e3,
        d.mapping_table_bytes as f64 / 1048576.0
    );
    if let Some(c) = &r.cache {
        out!(
            w,
            "data cache: {} pages ({}, {}), {} page writes ({} coalesced), read hit ratio {:.3}, {} pages flushed, {} \
             writes waited for room",
            c.capacity_pages,
            c.mode,
            c.flush,
            c.write_pages,
            c.coalesced_writes,
            c.read_hit_ratio,
            c.flushed_pages,
            c.writes_waited
        );
    }
    if let Some(l) = &r.link {
        let busy = |ns: u64| if r.simulated_ns > 0 { 100.0 * ns as f64 / r.simulated_ns as f64 } else { 0.0 };
        out!(
            w,
            "host link: {} x {} GB/s, to the device {:.1} MiB ({:.0}% busy), to the host {:.1} MiB ({:.0}% busy)",
            l.lanes,
            l.lane_gb_per_s,
            l.to_device_bytes as f64 / 1048576.0,
            busy(l.to_device_busy_ns),
            l.to_host_bytes as f64 / 1048576.0,
            busy(l.to_host_busy_ns)
        );
    }
    if let Some(c) = &r.cmt {
        out!(
            w,
            "mapping table (CMT): {} entries, hit ratio {:.3} ({} lookups, {} misses, {} merged); {} mapping reads \
             ({} for write-backs), {} translation-page programs",
            c.capacity_entries,
            c.hit_ratio,
            c.lookups,
            c.misses,
            c.merged_misses,
            c.mapping_reads,
            c.write_back_reads,
            c.mapping_programs
        );
        if c.mapping_programs == 0 && c.write_backs > 0 {
            // cmt.write_back = "mqsim": MQSim counts these as mapping programs, never runs them.
            out!(
                w,
                "  {} write-backs of dirty entries read their translation page and were never programmed \
                 (cmt.write_back = \"mqsim\", as MQSim runs; \"program\" writes them to flash)",
                c.write_backs
            );
        }
    }
    if let Some(fair) = &r.fairness {
        let each: Vec<String> = fair
            .flows
            .iter()
            .map(|f| format!("{} {:.2}x ({} us alone)", f.name, f.slowdown, us(f.alone_mean_ns)))
            .collect();
        out!(w, "fairness {:.3} (smallest slowdown / largest); slowdowns: {}", fair.fairness, each.join(", "));
    }
    for f in &r.flows {
        out!(
            w,
            "flow {} ({}, {}): {} requests, read mean {} us, write mean {} us, {:.0} IOPS",
            f.name,
            f.priority,
            if f.queue_depth == 0 { "open loop".to_string() } else { format!("QD {}", f.queue_depth) },
            f.all.requests,
            us(f.read.latency_ns.mean),
            us(f.write.latency_ns.mean),
            f.all.iops
        );
    }
    if let Some(b) = &r.burst {
        out!(
        w,
            "bursts: {} (gap threshold {} us), burst write bandwidth mean {:.2} MiB/s (read {:.2}), aggregate {:.2} MiB/s, mean duration {} us, idle enforced {:.3} s",
            b.bursts,
            us(b.gap_threshold_ns as f64),
            b.mean_bandwidth_mib_s,
            b.mean_read_bandwidth_mib_s,
            b.aggregate_bandwidth_mib_s,
            us(b.mean_duration_ns),
            b.idle_ns as f64 / 1e9
        );
    }
    if let Some(p) = &r.power {
        out!(
            w,
            "power losses: {} of {} scheduled (writes acknowledged on {}); recovery {:.3} s in all; \
             failed requests: {} writes, {} reads; unacknowledged pages lost {}, durable {}; torn pages {}; \
             flushed by PLP {}",
            p.losses,
            p.losses_scheduled,
            p.write_acknowledge,
            p.recovery_ns_total as f64 / 1e9,
            p.total.write_requests_failed,
            p.total.read_requests_failed,
            p.total.unacknowledged_pages_lost,
            p.total.unacknowledged_pages_durable,
            p.total.torn_pages,
            p.total.flushed_pages
        );
        for e in &p.each {
            out!(
                w,
                "  loss at {:.6} s: recovery read {} block summaries and scanned {} pages in {:.3} s, {} pages \
                 mapped, {} abandoned; back at {:.6} s",
                e.at_ns as f64 / 1e9,
                e.summary_reads,
                e.recovery_reads,
                e.recovery_ns as f64 / 1e9,
                e.mapped_pages,
                e.abandoned_pages,
                e.back_at_ns as f64 / 1e9
            );
        }
    }
    // Sections of designs built outside ssdlab-core: their own fields, as they wrote them.
    for (name, section) in &r.designs {
        let host_layer = section.get("host_layer").filter(|_| name == "zns");
        let skip: &[&str] = if host_layer.is_some() { &["host_layer"] } else { &[] };
        for line in design_text::design_lines(name, section, skip) {
            out!(w, "{line}");
        }
        if let Some(h) = host_layer {
            host_layer_line(w, h);
        }
    }
    if r.runs.len() > 1 {
        for run in &r.runs {
            out!(
                w,
                "  run {}: read mean {} us, write mean {} us",
                run.run + 1,
                us(run.read.latency_ns.mean),
                us(run.write.latency_ns.mean)
            );
        }
    }
    out!(
        w,
        "simulator: {:.3} s wall ({:.3} s setup and preconditioning), {:.0} sub-requests/s, {:.0} events/s",
        o.speed.wall_seconds,
        o.speed.setup_seconds,
        o.speed.sub_requests_per_second,
        o.speed.events_per_second
    );
    for line in &o.checked {
        out!(w, "{line}");
    }
    for warning in &r.warnings {
        out!(w, "WARNING: {warning}");
    }
    text
}

/// Warnings of several runs (a comparison's variants, a sweep's runs, an MQSim workload's
/// scenarios), each distinct text once with the runs it came from, in the order first
/// seen: `[(text, [source, …]), …]`.
pub fn merge_warnings<S: Into<String>>(items: impl IntoIterator<Item = (S, String)>) -> Vec<(String, Vec<String>)> {
    let mut merged: Vec<(String, Vec<String>)> = Vec::new();
    for (source, text) in items {
        let source = source.into();
        match merged.iter_mut().find(|(t, _)| *t == text) {
            Some((_, sources)) => {
                if !sources.contains(&source) {
                    sources.push(source)
                }
            }
            None => merged.push((text, vec![source])),
        }
    }
    merged
}

/// Prints a warning on stderr, always: `--quiet` silences progress and the summary, never
/// a warning. `sources` names the runs it came from, after `noun` (singular, plural):
/// `warning (a, b): …`, `warning (runs 0, 3): …`, `warning: …` for none; a long list
/// keeps its first eight names and says how many more.
pub fn print_warning(text: &str, noun: (&str, &str), sources: &[String]) {
    const SHOWN: usize = 8;
    let noun = match sources.len() {
        1 => noun.0,
        _ => noun.1,
    };
    let noun = if noun.is_empty() { String::new() } else { format!("{noun} ") };
    match sources.len() {
        0 => eprintln!("warning: {text}"),
        n if n <= SHOWN => eprintln!("warning ({noun}{}): {text}", sources.join(", ")),
        n => eprintln!("warning ({noun}{}, … and {} more): {text}", sources[..SHOWN].join(", "), n - SHOWN),
    }
}
