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
    /// The pre-pass already warned that the first record is not the earliest.
    order_warned: bool,
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
    let mut order_warned = false;
    let mut kept = None;
    match &prepared.workload {
        setup::Workload::Trace { path, format, options, .. } => {
            let limit_ns = gap_limit_ns(setup.trace_args.max_gap);
            let (pass, records) = ssdlab_trace::prepass_keeping(path, *format, options, limit_ns, KEEP_RECORDS)
                .map_err(|e| anyhow!(setup::user_paths(e.to_string())))?;
            kept = records;
            total_requests = Some(pass.records * runs);
            let name = setup::user_paths(path.display().to_string());
            let replay = prepared.config.host.replay;
            if replay != ssdlab_core::config::ReplayMode::ClosedLoop {
                if let Some(text) = gap_advice(&name, &pass, options, setup.trace_args.max_gap, true) {
                    match setup.trace_args.max_gap {
                        Some(max) => bail!("--max-gap {max}: {text}"),
                        None => warnings.push(text),
                    }
                }
            }
            if replay == ssdlab_core::config::ReplayMode::OpenLoop {
                if let Some(text) = first_not_earliest_warning(&name, &pass) {
                    warnings.push(text);
                    order_warned = true;
                }
            }
            let scan = setup::TraceScan {
                records: pass.records,
                span_ns: pass.span_from_first_ns(),
                largest_gap: pass.largest_gap.map(|g| (g.gap_ns(), g.line, g.index, g.at_ns)),
                earliest_ns: pass.earliest_ns,
            };
            if let Some(text) = setup::time_unit_warning(path, *format, options, &scan) {
                warnings.push(text);
            }
            if let Some(text) = merged_devices_warning(*format, options, &pass) {
                warnings.push(text);
            }
        }
        setup::Workload::Synthetic(spec) => total_requests = Some(spec.count * runs),
        setup::Workload::Records { records, .. } => total_requests = Some(records.len() as u64 * runs),
        setup::Workload::Fio { .. }
        | setup::Workload::Flows(_)
        | setup::Workload::Mixed { .. }
        | setup::Workload::Kept { .. } => {}
    }
    if let Some(records) = kept {
        let trace = Box::new(std::mem::replace(&mut prepared.workload, setup::Workload::Flows(Vec::new())));
        prepared.workload = setup::Workload::Kept { trace, records };
    }
    Ok(Plan { prepared, warnings, total_requests, sort_window: setup.trace_args.sort_window, order_warned })
}

/// Most records of a trace the pre-pass keeps for the run to replay from memory (32 bytes
/// each: 32 MiB) instead of reading the trace twice more (preconditioning's pre-pass and
/// the run). SSDSim's example trace replayed 30 times (300,000 records): 5,347.0M →
/// 4,949.8M instructions (dev-opt), peak RSS 18.7 → 28.7 MB.
pub const KEEP_RECORDS: usize = 1 << 20;

/// Runs a plan (`options.total_requests` is taken from the plan) and adds the plan's
/// warnings and those only the result can give to the report.
pub fn execute(plan: Plan, options: RunOptions) -> Result<Outcome> {
    let Plan { prepared, warnings, total_requests, sort_window, order_warned } = plan;
    let mut outcome = output::execute_with(prepared, RunOptions { total_requests, ..options })?;
    outcome.report.warnings.extend(warnings);
    let h = &outcome.report.host;
    if h.out_of_order > 0 && !order_warned {
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

/// The gap the trace pre-pass reports: `--max-gap` seconds, or a day
/// ([`setup::ABSURD_GAP_NS`]) without it.
pub fn gap_limit_ns(max_gap: Option<f64>) -> u64 {
    match max_gap {
        Some(max) => (max * 1e9) as u64,
        None => setup::ABSURD_GAP_NS,
    }
}

/// The first gap of the pre-pass longer than its limit, where it is and a `--time-window`
/// that replays (`run`; else reads) the part before it (one `run` and `trace-stats` accept with the same
/// `--max-gap`: it ends after the last record before the gap and within the limit of
/// it); `None` without such a gap. `name` is the trace as the user named it.
pub fn gap_advice(
    name: &str,
    pass: &ssdlab_trace::Prepass,
    options: &ssdlab_trace::TraceOptions,
    max_gap: Option<f64>,
    run: bool,
) -> Option<String> {
    let gap = pass.first_gap_over?;
    let limit = match max_gap {
        Some(max) => format!("{max} s"),
        None => "a day".to_string(),
    };
    let start_ns = options.time_window_ns.map_or(0, |(start, _)| start);
    let window = pass.window_before(&gap, start_ns, pass.gap_limit_ns);
    let others = match pass.largest_gap {
        Some(largest) if pass.gaps_over > 1 => format!(
            "; it is the first of {} gaps over {limit}, the longest {:.1} s at line {}",
            pass.gaps_over,
            largest.gap_ns() as f64 / 1e9,
            largest.line
        ),
        _ => String::new(),
    };
    let advice = if run {
        format!(
            "the run's simulated time and rates include this gap (replay the part before it with --time-window \
             {window}, or --closed-loop N)"
        )
    } else {
        format!("read the part before it with --time-window {window}")
    };
    Some(format!(
        "{name}:{}: request {} arrives {:.1} s after the latest request before it ({:.1} s after the first \
         request){others}: {advice}",
        gap.line,
        gap.index + 1,
        gap.gap_ns() as f64 / 1e9,
        gap.before_ns.saturating_sub(pass.first_ns.unwrap_or(0)) as f64 / 1e9,
    ))
}

/// A warning when the first record is not the earliest (a trace sorted by something else
/// than time, a merge of per-volume files): replayed in file order, every record stamped
/// before it arrives at its time or later, so the arrivals bunch up as if the time
/// column were in a larger unit. It names the sort window that reorders them.
pub fn first_not_earliest_warning(name: &str, pass: &ssdlab_trace::Prepass) -> Option<String> {
    if pass.before_first == 0 {
        return None;
    }
    let (first, earliest) = (pass.first_ns?, pass.earliest_ns?);
    Some(format!(
        "{name}:{}: the first record is not the earliest: {} records are stamped before it (up to {:.3} s \
         before it), and {} of {} records are stamped earlier than a record before them in the file. Replayed in \
         file order, each is served when it is read, no earlier than the latest arrival so far, so the arrivals \
         bunch up (this is not a time-unit problem). Reorder the records with --sort-window {} (at least one \
         more than the records stamped before the first; more if records further on are out of place)",
        pass.first_line,
        pass.before_first,
        first.saturating_sub(earliest) as f64 / 1e9,
        pass.out_of_order,
        pass.records,
        pass.before_first + 1
    ))
}

/// A warning when a trace of several devices or volumes is replayed, without
/// `--device`, into one address space.
pub fn merged_devices_warning(
    format: ssdlab_trace::Format,
    options: &ssdlab_trace::TraceOptions,
    pass: &ssdlab_trace::Prepass,
) -> Option<String> {
    use ssdlab_trace::Format;
    let column = format.device_column()?;
    // fio iolog "devices" are the files of one job, normally on one device.
    if options.device.is_some() || pass.device_count() < 2 || matches!(format, Format::FioV2 | Format::FioV3) {
        return None;
    }
    let label = |d: u32| match format {
        Format::Blkparse | Format::Fiu => format!("{},{}", d >> 20, d & 0xf_ffff),
        _ => d.to_string(),
    };
    let mut busiest: Vec<(u32, u64)> = pass.devices.iter().map(|(&d, &n)| (d, n)).collect();
    busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let shown: Vec<String> = busiest.iter().take(3).map(|&(d, n)| format!("{} ({n} requests)", label(d))).collect();
    let more = if pass.device_count() > 3 { ", ..." } else { "" };
    // (No path: the warning lands in the report, whose goldens are compared across machines.)
    Some(format!(
        "the trace holds {} devices ({column}: {}{more}) and the run replays them all into one address space, \
         as one device; replay one with --device N (e.g. --device {}; `ssdlab trace-stats` on the trace lists \
         them)",
        pass.device_count(),
        shown.join(", "),
        label(busiest[0].0)
    ))
}
