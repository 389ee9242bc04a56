//! `ssdlab run`: one simulation (or every scenario of an MQSim workload) with its
//! outputs (JSON, CSV, HTML, MQSim's result XML) and the terminal summary. A binary of
//! a researcher's own runs it with their designs added (`run_with_designs`).

use crate::output::{DesignInstaller, InstallFn};
use crate::{catch_interrupt, import, interrupted, mqsim_xml, output, report_html, session, setup, RunArgs, SetupArgs};
use anyhow::{bail, Context, Result};

/// `ssdlab run`.
pub fn run(args: RunArgs) -> Result<()> {
    run_with_designs(args, &[])
}

/// `ssdlab run` with designs built outside `ssdlab-core` added to every simulation it
/// makes (each `install` adds its design to the simulator, reading its own config
/// section): what a researcher's own binary calls (examples/hotcold).
pub fn run_with_designs(args: RunArgs, installs: &[InstallFn]) -> Result<()> {
    let designs: Vec<DesignInstaller> = installs.iter().map(|&f| output::installer(f)).collect();
    run_with_installers(args, &designs)
}

/// As [`run_with_designs`], with installers that may hold state (a Python object).
pub fn run_with_installers(mut args: RunArgs, designs: &[DesignInstaller]) -> Result<()> {
    args.setup.quiet = args.quiet;
    let scenarios = match (&args.setup.workload, args.setup.scenario) {
        (Some(path), None) => import::mqsim::scenario_count(path)?,
        _ => 0,
    };
    if scenarios <= 1 {
        return run_one(&args, &args.setup, None, designs);
    }
    // Every IO_Scenario of an MQSim workload is a run of its own.
    let workload = args.setup.workload.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    if args.series.is_some() || args.requests.is_some() || args.html.is_some() {
        bail!(
            "{workload}: {scenarios} scenarios: --series, --requests and --html write one run's data; choose one with \
             --scenario N (or write --json and run `ssdlab report` on it)"
        );
    }
    // Every scenario's inputs are checked before the first one is simulated.
    import::mqsim::check_every_scenario(&args.setup, scenarios)?;
    let json = args.json.as_ref().map(|p| output::create_output(p, "JSON report")).transpose()?;
    let mut reports = Vec::new();
    for k in 1..=scenarios {
        if !args.quiet {
            println!("== {workload}: scenario {k} of {scenarios}");
        }
        let mut setup = args.setup.clone();
        setup.scenario = Some(k);
        run_one(&args, &setup, Some(&mut reports), designs).inspect_err(|_| {
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
fn run_one(
    args: &RunArgs,
    setup: &SetupArgs,
    collect: Option<&mut Vec<serde_json::Value>>,
    designs: &[DesignInstaller],
) -> Result<()> {
    let html = args.html.is_some() && collect.is_none();
    let plan = session::plan(setup, &session::PlanOptions::of_run(args, args.series.is_some() || html))?;
    // Warnings go to stderr whatever --quiet says (it silences progress and the summary):
    // the pre-pass's before the run, the rest when it has run. One scenario of several
    // says which it is.
    let source: Vec<String> = match (&collect, setup.scenario) {
        (Some(_), Some(k)) => vec![format!("scenario {k}")],
        _ => Vec::new(),
    };
    for w in &plan.warnings {
        output::print_warning(w, ("", ""), &source);
    }
    let warned_before = plan.warnings.clone();
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
    let html_file = match (&args.html, html) {
        (Some(p), true) => Some(output::create_output(p, "HTML report")?),
        _ => None,
    };
    // With --html the latencies are gathered for the CDFs, the user's --requests still written.
    let (requests, latencies) = match html {
        true => {
            let (sink, h) = report_html::collecting_sink(requests);
            (Some(sink), Some(h))
        }
        false => (requests, None),
    };
    let options = output::RunOptions {
        requests,
        check: args.check,
        verify: args.verify,
        quiet: args.quiet,
        series: series.map(|f| Box::new(f) as Box<dyn std::io::Write + Send>),
        stop: Some(catch_interrupt()),
        designs: designs.to_vec(),
        ..output::RunOptions::default()
    };
    // --fairness: the flows, to run each alone after the shared run.
    let alone = match (&plan.prepared.workload, args.fairness) {
        (setup::Workload::Flows(flows), true) => Some((plan.prepared.config.clone(), flows.clone())),
        (_, true) => bail!("--fairness compares host flows: the config needs [[flows]]"),
        _ => None,
    };
    let mut outcome = session::execute(plan, options).inspect_err(|_| {
        // No half-made files from a run that failed.
        for path in [&args.json, &args.series].into_iter().flatten() {
            let _ = std::fs::remove_file(path);
        }
    })?;
    if let Some((config, flows)) = alone {
        outcome.report.fairness = Some(fairness(&outcome.report, config, flows, designs)?);
    }
    for w in outcome.report.warnings.iter().filter(|w| !warned_before.contains(w)) {
        output::print_warning(w, ("", ""), &source);
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
    if let (Some(file), Some(path)) = (html_file, &args.html) {
        drop(file);
        let csv = match &args.series {
            Some(p) => std::fs::read(p).with_context(|| format!("cannot read back {}", p.display()))?,
            None => output::series_csv(&outcome.config, &outcome.series)?,
        };
        let run = report_html::ReportRun {
            name: "run".to_string(),
            report: report_html::with_command_line(output::json_value(&outcome, false)),
            series: Some(report_html::SeriesTable::from_csv(&csv, "the time series")?),
            latencies: latencies.map(|h| h.lock().expect("no panic holds the lock").clone()),
        };
        report_html::write_html(path, &report_html::html(&[run]))?;
        if !args.quiet {
            eprintln!("wrote {}", path.display());
        }
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

/// Runs each flow alone (the same device, only that `[[flows]]` entry) and compares its
/// mean latency with the shared run's.
fn fairness(
    shared: &ssdlab_core::Report,
    config: ssdlab_core::Config,
    flows: Vec<setup::FlowWorkload>,
    designs: &[DesignInstaller],
) -> Result<ssdlab_core::stats::FairnessSummary> {
    let mut rows = Vec::new();
    for (k, flow) in flows.into_iter().enumerate() {
        let name = flow.name.clone();
        let mut alone = config.clone();
        alone.flows = vec![config.flows[k].clone()];
        let prepared = setup::Prepared { config: alone, workload: setup::Workload::Flows(vec![flow]), import: None };
        let outcome = output::execute_with(
            prepared,
            output::RunOptions { quiet: true, designs: designs.to_vec(), ..output::RunOptions::default() },
        )
        .with_context(|| format!("--fairness: flow {name} alone"))?;
        let alone_mean_ns = outcome.report.flows[0].all.latency_ns.mean;
        let shared_mean_ns = shared.flows[k].all.latency_ns.mean;
        let slowdown = if alone_mean_ns > 0.0 { shared_mean_ns / alone_mean_ns } else { 1.0 };
        rows.push(ssdlab_core::stats::FlowSlowdown { name, shared_mean_ns, alone_mean_ns, slowdown });
    }
    let (min, max) = rows.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| (lo.min(r.slowdown), hi.max(r.slowdown)));
    Ok(ssdlab_core::stats::FairnessSummary { flows: rows, fairness: if max > 0.0 { min / max } else { 1.0 } })
}
