//! `ssdlab._native`: the Rust half of the `ssdlab` Python package. The Python half
//! (python/ssdlab/__init__.py) turns keyword arguments into `ssdlab run` / `ssdlab
//! compare` command-line arguments, which this module parses with the CLI's own clap
//! definitions and runs with the CLI's own setup, run and output code (the
//! `ssdlab-cli` library): a Python run is the CLI's run, and its summary is the CLI's
//! JSON report. The simulation runs on a thread of its own without the GIL; the calling
//! thread waits for it, checking for Ctrl-C (KeyboardInterrupt stops the run).

mod design;

use clap::Parser;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use ssdlab_cli::compare as cli_compare;
use ssdlab_cli::output::{self, RequestSink, RunOptions, SharedBuffer};
use ssdlab_cli::{session, ConfigText, RunArgs, SetupArgs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::Duration;

pyo3::create_exception!(
    _native,
    SsdlabError,
    PyException,
    "An error from ssdlab: a bad argument, config or trace. The message is the one the CLI prints (file, line and \
     field where there is one)."
);

/// `ssdlab run`'s arguments without the program name.
#[derive(Parser)]
#[command(name = "ssdlab run", no_binary_name = true)]
struct RunCommand {
    #[command(flatten)]
    run: RunArgs,
}

/// `ssdlab compare`'s setup arguments (the variants come separately).
#[derive(Parser)]
#[command(name = "ssdlab compare", no_binary_name = true)]
struct CompareCommand {
    #[command(flatten)]
    setup: SetupArgs,
}

fn error(e: impl std::fmt::Display) -> PyErr {
    SsdlabError::new_err(e.to_string())
}

/// An anyhow error as the CLI prints it (after `error: `).
fn cli_error(e: anyhow::Error) -> PyErr {
    SsdlabError::new_err(format!("{e:#}"))
}

/// A clap error without the `error: ` prefix and the usage lines.
fn clap_error(e: clap::Error) -> PyErr {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
    SsdlabError::new_err(first)
}

/// The `config=dict` of Python (sent as JSON) as ssdlab TOML.
fn config_text(config_json: Option<String>) -> PyResult<Option<ConfigText>> {
    let Some(json) = config_json else { return Ok(None) };
    let value: toml::Value =
        serde_json::from_str(&json).map_err(|e| error(format!("config dict: not representable in TOML: {e}")))?;
    let toml = toml::to_string(&value).map_err(|e| error(format!("config dict: not representable in TOML: {e}")))?;
    Ok(Some(ConfigText { origin: "config dict".to_string(), toml }))
}

/// Runs `work` on a thread of its own while the caller waits without the GIL, waking
/// every 100 ms to let Python handle signals: a KeyboardInterrupt sets `stop` (the run
/// ends after the event in progress), waits for the thread and is raised.
fn detached<T: Send + 'static>(
    py: Python<'_>,
    stop: Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::Builder::new()
        .name("ssdlab-run".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| error(format!("cannot start the simulation thread: {e}")))?;
    let mut rx = rx;
    loop {
        let (back, received) = py.detach(move || {
            let r = rx.recv_timeout(Duration::from_millis(100));
            (rx, r)
        });
        rx = back;
        match received {
            Ok(value) => {
                let _ = handle.join();
                return Ok(value);
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    py.detach(move || {
                        let _ = rx.recv();
                        let _ = handle.join();
                    });
                    return Err(interrupt);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let panic = handle.join().err();
                let message = panic
                    .as_ref()
                    .and_then(|p| {
                        p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    })
                    .unwrap_or_default();
                return Err(error(format!("the simulation panicked: {message}")));
            }
        }
    }
}

/// What one run hands back to Python.
struct RunOutput {
    summary: String,
    speed: String,
    text: String,
    series: Option<Vec<u8>>,
    requests: Option<Vec<u8>>,
}

fn bytes(py: Python<'_>, data: Option<Vec<u8>>) -> Option<Py<PyBytes>> {
    data.map(|d| PyBytes::new(py, &d).unbind())
}

type RunTuple = (String, String, String, Option<Py<PyBytes>>, Option<Py<PyBytes>>);

/// A Python design to add to the run: the object, its name and the methods it overrides.
type PyDesignArg = (Py<PyAny>, String, Vec<String>);

/// Runs `ssdlab run ARGV` and returns (summary JSON as `--json --no-wall-clock` writes
/// it, simulator speed JSON, terminal summary, series CSV or None, per-request CSV or
/// None). With `design`, the Python design runs in the simulator (`design.rs`).
#[pyfunction]
#[pyo3(signature = (argv, config_json=None, series=true, requests=true, design=None))]
fn run(
    py: Python<'_>,
    argv: Vec<String>,
    config_json: Option<String>,
    series: bool,
    requests: bool,
    design: Option<PyDesignArg>,
) -> PyResult<RunTuple> {
    let mut args = RunCommand::try_parse_from(&argv).map_err(clap_error)?.run;
    args.setup.quiet = true;
    args.quiet = true;
    args.setup.config_text = config_text(config_json)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let with_design = design.is_some();
    let result = detached(py, stop, move || -> anyhow::Result<RunOutput> {
        let work = || {
            let plan = session::plan(&args.setup, &session::PlanOptions::of_run(&args, series))?;
            let series_buffer = series.then(SharedBuffer::default);
            let requests_buffer = requests.then(SharedBuffer::default);
            let options = RunOptions {
                requests: requests_buffer.clone().map(|b| RequestSink::Writer(Box::new(b))),
                series: series_buffer.clone().map(|b| Box::new(b) as Box<dyn std::io::Write + Send>),
                check: args.check,
                verify: args.verify,
                quiet: true,
                stop: Some(flag),
                designs: design.into_iter().map(installer).collect(),
                ..RunOptions::default()
            };
            let outcome = session::execute(plan, options)?;
            Ok(RunOutput {
                summary: serde_json::to_string(&output::json_value(&outcome, false))?,
                speed: serde_json::to_string(&outcome.speed)?,
                text: output::summary_text(&outcome),
                series: series_buffer.map(|b| b.take()),
                requests: requests_buffer.map(|b| b.take()),
            })
        };
        // A Python design's hooks take the GIL on this thread for every call. With a
        // Python thread state kept for the whole run (attached once, then detached), a
        // call reuses it instead of creating and destroying one: measured on
        // mqsim-default, 8.6 µs per place_write call without, see docs/python.md with.
        let done = if with_design { Python::attach(|py| py.detach(work)) } else { work() };
        ssdlab_cli::setup::remove_spills();
        done
    })?;
    let out = result.map_err(cli_error)?;
    Ok((out.summary, out.speed, out.text, bytes(py, out.series), bytes(py, out.requests)))
}

/// The installer of a Python design (the object shared by every simulation of the run).
fn installer((obj, name, methods): PyDesignArg) -> output::DesignInstaller {
    Arc::new(move |sim| {
        let obj = Python::attach(|py| obj.clone_ref(py));
        design::install(sim, obj, &name, &methods)
    })
}

type VariantTuple = (String, String, Option<Py<PyBytes>>, Option<Py<PyBytes>>);

/// Runs `ssdlab compare ARGV` with the given variants (name, overrides) and returns (the
/// JSON of `compare --json`, and per variant: simulator speed JSON, terminal summary,
/// series CSV, per-request CSV or None).
#[pyfunction]
#[pyo3(signature = (argv, variants, config_json=None, baseline=None, serial=false, requests=true))]
fn compare(
    py: Python<'_>,
    argv: Vec<String>,
    variants: Vec<(String, Vec<String>)>,
    config_json: Option<String>,
    baseline: Option<String>,
    serial: bool,
    requests: bool,
) -> PyResult<(String, Vec<VariantTuple>)> {
    let mut setup = CompareCommand::try_parse_from(&argv).map_err(clap_error)?.setup;
    setup.quiet = true;
    setup.config_text = config_text(config_json)?;
    let variants: Vec<cli_compare::Variant> =
        variants.into_iter().map(|(name, overrides)| cli_compare::Variant { name, overrides }).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    type Each = (String, String, Option<Vec<u8>>, Option<Vec<u8>>);
    let result = detached(py, stop, move || -> anyhow::Result<(String, Vec<Each>)> {
        let done = (|| {
            // Planned as `ssdlab compare --series` plans: every variant keeps its series.
            let (baseline, _, plans) = cli_compare::plan_variants(&setup, &variants, baseline, |_| {
                session::PlanOptions { series: true, quiet: true, ..session::PlanOptions::default() }
            })?;
            let buffers: Vec<Option<SharedBuffer>> =
                variants.iter().map(|_| requests.then(SharedBuffer::default)).collect();
            let outcomes = cli_compare::run_plans(plans, serial, |i| RunOptions {
                requests: buffers[i].clone().map(|b| RequestSink::Writer(Box::new(b))),
                quiet: true,
                stop: Some(flag.clone()),
                ..RunOptions::default()
            })?;
            let json = serde_json::to_string(&cli_compare::compare_json(&baseline, &variants, &outcomes))?;
            let mut each = Vec::new();
            for (o, b) in outcomes.iter().zip(&buffers) {
                let series = (o.config.output.series_interval_ns > 0)
                    .then(|| output::series_csv(&o.config, &o.series))
                    .transpose()?;
                each.push((
                    serde_json::to_string(&o.speed)?,
                    output::summary_text(o),
                    series,
                    b.as_ref().map(|b| b.take()),
                ));
            }
            Ok((json, each))
        })();
        ssdlab_cli::setup::remove_spills();
        done
    })?;
    let (json, each) = result.map_err(cli_error)?;
    let each = each.into_iter().map(|(speed, text, s, r)| (speed, text, bytes(py, s), bytes(py, r))).collect();
    Ok((json, each))
}

/// The presets as `ssdlab presets` lists them, as JSON (a list of objects).
#[pyfunction]
fn presets() -> PyResult<String> {
    let rows = ssdlab_cli::presets::rows().map_err(cli_error)?;
    serde_json::to_string(&rows).map_err(error)
}

/// A preset's TOML text (`ssdlab presets --show NAME`).
#[pyfunction]
fn preset_toml(name: &str) -> PyResult<String> {
    ssdlab_cli::presets::toml(name).map_err(cli_error)
}

/// A preset's full config as JSON (the report's `config` section for that preset).
#[pyfunction]
fn preset_config(name: &str) -> PyResult<String> {
    let config = ssdlab_core::presets::preset(name).map_err(error)?;
    serde_json::to_string(&config).map_err(error)
}

/// `--variant NAME:key=value,…` as (name, overrides), split as the CLI splits it.
#[pyfunction]
fn parse_variant(text: &str) -> PyResult<(String, Vec<String>)> {
    let v = cli_compare::parse_variant(text).map_err(cli_error)?;
    Ok((v.name, v.overrides))
}

fn sweep_of(text: &str, origin: &str, folder: &str) -> PyResult<ssdlab_cli::sweep::Sweep> {
    ssdlab_cli::sweep::Sweep::parse(text, origin, std::path::Path::new(folder)).map_err(cli_error)
}

/// Parses and checks a sweep (TOML text): (runs, table columns, the file's `output`
/// resolved against `folder`, or None).
#[pyfunction]
fn sweep_parse(text: &str, origin: &str, folder: &str) -> PyResult<(usize, Vec<String>, Option<String>)> {
    let sweep = sweep_of(text, origin, folder)?;
    Ok((sweep.len(), sweep.header(), sweep.output.as_ref().map(|p| p.display().to_string())))
}

/// Runs one run of a sweep in this process (without the GIL) and returns its row; a
/// failed run is a row with status `error`.
#[pyfunction]
fn sweep_run(py: Python<'_>, text: &str, origin: &str, folder: &str, index: usize) -> PyResult<Vec<String>> {
    let sweep = sweep_of(text, origin, folder)?;
    Ok(py.detach(move || sweep.run_point(index)))
}

/// The row of a run that failed outside the simulation (a lost worker): status `error`.
#[pyfunction]
fn sweep_error_row(text: &str, origin: &str, folder: &str, index: usize, message: &str) -> PyResult<Vec<String>> {
    Ok(sweep_of(text, origin, folder)?.row(index, Err(message)))
}

/// Starts (or resumes) a sweep's output file: keeps the rows of runs already done and
/// returns the indices of the runs still to do.
#[pyfunction]
fn sweep_begin(text: &str, origin: &str, folder: &str, output: &str) -> PyResult<Vec<usize>> {
    let sweep = sweep_of(text, origin, folder)?;
    let path = std::path::Path::new(output);
    let kept = ssdlab_cli::sweep::resume(&sweep, path).map_err(cli_error)?;
    ssdlab_cli::sweep::write_table(path, &sweep.header(), &kept).map_err(cli_error)?;
    Ok((0..sweep.len()).filter(|i| !kept.contains_key(i)).collect())
}

/// Appends one finished run's row to the output file (the order is fixed at the end).
#[pyfunction]
fn sweep_append(output: &str, row: Vec<String>) -> PyResult<()> {
    ssdlab_cli::sweep::append_row(std::path::Path::new(output), &row).map_err(cli_error)
}

/// The final table as CSV, rows in run order: the output file's rows (when there is
/// one) and `rows`; writes the file sorted.
#[pyfunction]
#[pyo3(signature = (text, origin, folder, rows, output=None))]
fn sweep_finish(
    text: &str,
    origin: &str,
    folder: &str,
    rows: Vec<Vec<String>>,
    output: Option<&str>,
) -> PyResult<String> {
    let sweep = sweep_of(text, origin, folder)?;
    let header = sweep.header();
    let mut table = match output {
        Some(path) => ssdlab_cli::sweep::resume(&sweep, std::path::Path::new(path)).map_err(cli_error)?,
        None => Default::default(),
    };
    for row in rows {
        let spec =
            row.first().zip(row.get(1)).and_then(|(p, r)| Some((p.parse::<usize>().ok()?, r.parse::<usize>().ok()?)));
        let Some((point, repetition)) = spec else {
            return Err(error("sweep_finish: a row without point and repetition"));
        };
        let index = sweep
            .index_of(point, repetition)
            .ok_or_else(|| error(format!("sweep_finish: no run {point}/{repetition} in the sweep")))?;
        table.insert(index, row);
    }
    if let Some(path) = output {
        ssdlab_cli::sweep::write_table(std::path::Path::new(path), &header, &table).map_err(cli_error)?;
    }
    ssdlab_cli::sweep::csv_text(&header, &table).map_err(cli_error)
}

/// Runs a sweep on threads of this process (`jobs` at once), resuming `output` when
/// given; returns the table as CSV.
#[pyfunction]
#[pyo3(signature = (text, origin, folder, jobs, output=None))]
fn sweep_local(
    py: Python<'_>,
    text: &str,
    origin: &str,
    folder: &str,
    jobs: usize,
    output: Option<String>,
) -> PyResult<String> {
    let sweep = sweep_of(text, origin, folder)?;
    let stop = Arc::new(AtomicBool::new(false));
    let result = detached(py, stop, move || {
        let path = output.map(std::path::PathBuf::from);
        ssdlab_cli::sweep::run_with(&sweep, path.as_deref(), jobs, false, |i| sweep.run_point(i)).map(|o| o.csv)
    })?;
    result.map_err(cli_error)
}

/// A self-contained HTML report of runs: (name, summary JSON, series CSV or None,
/// per-request CSV or None) each, as `ssdlab report` writes it.
type ReportInput = (String, String, Option<Vec<u8>>, Option<Vec<u8>>);

#[pyfunction]
fn report_html(runs: Vec<ReportInput>) -> PyResult<String> {
    use ssdlab_cli::report_html::{html, LatencyHistograms, ReportRun, SeriesTable};
    let mut list = Vec::new();
    for (name, summary, series, requests) in runs {
        let report: serde_json::Value = serde_json::from_str(&summary).map_err(error)?;
        let series =
            series.map(|b| SeriesTable::from_csv(&b, &format!("{name}: series"))).transpose().map_err(cli_error)?;
        let latencies = requests
            .map(|b| LatencyHistograms::from_requests_csv(&b[..], &format!("{name}: requests")))
            .transpose()
            .map_err(cli_error)?;
        list.push(ReportRun { name, report, series, latencies });
    }
    Ok(html(&list))
}

/// The version of the Rust crates.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SsdlabError", m.py().get_type::<SsdlabError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset_toml, m)?)?;
    m.add_function(wrap_pyfunction!(preset_config, m)?)?;
    m.add_function(wrap_pyfunction!(parse_variant, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    for f in [
        wrap_pyfunction!(sweep_parse, m)?,
        wrap_pyfunction!(sweep_run, m)?,
        wrap_pyfunction!(sweep_error_row, m)?,
        wrap_pyfunction!(sweep_begin, m)?,
        wrap_pyfunction!(sweep_append, m)?,
        wrap_pyfunction!(sweep_finish, m)?,
        wrap_pyfunction!(sweep_local, m)?,
        wrap_pyfunction!(report_html, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
