//! One run of `ssdlab run` in two steps, shared by the binary and the Python package:
//! [`plan`] (config, overrides, workload, the trace pre-pass and its warnings: anything
//! that can fail before the simulation) and [`execute`] (the simulation, and the
//! warnings only its result can give). Between the two the caller opens its outputs, so
//! a bad path fails before anything runs.

use crate::output::{self, Outcome, RunOptions};
use crate::setup::{self, Prepared};
use crate::{RunArgs, SetupArgs};
use anyhow::{anyhow, bail, Result};

/// The options of `ssdlab run` that change the run itself (not where results go).
#[derive(Clone, Debug, Default)]
pub struct PlanOptions {
    /// `--interval-ms`.
    pub interval_ms: Option<f64>,
    /// Whether the time series is wanted (`--series FILE`): without it the run keeps
    /// no series (the JSON's `output.series_interval_ns` is then 0).
    pub series: bool,
    /// `--check-every`.
    pub check_every: Option<u64>,
    /// `--check` or `--verify` (they need more memory).
    pub checks: bool,
    /// No notes on stderr.
    pub quiet: bool,
}

impl PlanOptions {
    /// The options of a `ssdlab run` command line.
    pub fn of_run(args: &RunArgs, series: bool) -> PlanOptions {
        PlanOptions {
            interval_ms: args.interval_ms,
            series,
            check_every: args.check_every,
            checks: args.check || args.verify,
            quiet: args.quiet,
        }
    }
}

/// A run ready to start: the prepared simulation and what the pre-pass found.
pub struct Plan {
    pub prepared: Prepared,
    /// Warnings found before the run (a huge gap in the trace, a suspicious time unit);
    /// they also end up in the report's `warnings`.
    pub warnings: Vec<String>,
    /// Requests the whole workload holds, when known.
    pub total_requests: Option<u64>,
    sort_window: usize,
}

/// Sets up one run as `ssdlab run` does, without running it.
pub fn plan(setup: &SetupArgs, options: &PlanOptions) -> Result<Plan> {
    let mut prepared = setup::prepare(setup)?;
    if let Some(ms) = options.interval_ms {
        if !(ms.is_finite() && ms > 0.0) {
            bail!("--interval-ms {ms}: the interval must be a positive number of milliseconds");
        }
        prepared.config.output.series_interval_ns = ((ms * 1e6) as u64).max(1);
    }
    let output = &mut prepared.config.output;
    match (options.series, output.series_interval_ns) {
        (true, 0) => {
            // A preset may turn the series off (mqsim-default); asking for it turns it on.
            output.series_interval_ns = ssdlab_core::config::Output::default().series_interval_ns;
            if !options.quiet {
                eprintln!(
                    "note: the config sets output.series_interval_ns = 0 (no series); --series uses {} ms \
                     (--interval-ms sets another)",
                    output.series_interval_ns / 1_000_000
                );
            }
        }
        // Without --series nothing reads the series: keep no rows in memory.
        (false, _) => output.series_interval_ns = 0,
        _ => {}
    }
    if let Some(n) = options.check_every {
        prepared.config.output.check_every = n;
    }
    setup::check_memory(&prepared.config, options.checks, setup.max_memory.as_deref())?;
    let mut warnings = Vec::new();
    let mut total_requests = None;
    let runs = u64::from(prepared.config.host.runs.max(1));
    match &prepared.workload {
        setup::Workload::Trace { path, format, options, .. } => {
            let scan =
                setup::scan_trace(path, *format, options).map_err(|e| anyhow!(setup::user_paths(format!("{e:#}"))))?;
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
                        bail!("--max-gap {max}: {text}");
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
        setup::Workload::Records { records, .. } => total_requests = Some(records.len() as u64 * runs),
        setup::Workload::Fio { .. } | setup::Workload::Flows(_) | setup::Workload::Mixed { .. } => {}
    }
    Ok(Plan { prepared, warnings, total_requests, sort_window: setup.sort_window })
}

/// Runs a plan (`options.total_requests` is taken from the plan) and adds the plan's
/// warnings and those only the result can give to the report.
pub fn execute(plan: Plan, options: RunOptions) -> Result<Outcome> {
    let Plan { prepared, warnings, total_requests, sort_window } = plan;
    let mut outcome = output::execute_with(prepared, RunOptions { total_requests, ..options })?;
    outcome.report.warnings.extend(warnings);
    let h = &outcome.report.host;
    if h.out_of_order > 0 {
        // Otherwise only the JSON's host.out_of_order would say so.
        outcome.report.warnings.push(format!(
            "{} of {} requests arrived earlier than a request before them in the workload and were replayed when \
             read, out of time order; {}",
            h.out_of_order,
            h.requests,
            if sort_window == 0 {
                "if the trace is only locally unsorted, --sort-window N reorders it through a window of N records (e.g. --sort-window 1000)".to_string()
            } else {
                format!("the sort window of {sort_window} records did not reorder them all: a larger --sort-window may")
            }
        ));
    }
    Ok(outcome)
}
