//! Running a prepared simulation with a progress bar, and writing its results: terminal
//! summary, JSON report, time-series CSV and per-request CSV.

use crate::setup::Prepared;
use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use ssdlab_core::stats::RequestRecord;
use ssdlab_core::{Observers, Report, SeriesRow, Simulator};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::path::Path;
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
    pub series: Vec<SeriesRow>,
    pub speed: SimulatorSpeed,
    pub workload: String,
}

/// Runs the simulation. A progress bar appears on stderr once a run has taken a second,
/// unless `quiet` or stderr is not a terminal.
pub fn execute(prepared: Prepared, requests_csv: Option<&Path>, check: bool, quiet: bool) -> Result<Outcome> {
    execute_with(prepared, requests_csv, check, false, quiet)
}

/// As [`execute`], optionally with version-tagged data checking (`--verify`).
pub fn execute_with(
    prepared: Prepared,
    requests_csv: Option<&Path>,
    check: bool,
    verify: bool,
    quiet: bool,
) -> Result<Outcome> {
    let Prepared { config, workload } = prepared;
    let describe = workload.describe();
    let started = Instant::now();
    let show_progress = !quiet && std::io::stderr().is_terminal();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} {pos} requests done, simulated {msg}")
            .expect("static template"),
    );
    let csv_writer = match requests_csv {
        Some(path) => Some(RefCell::new(
            csv::Writer::from_path(path).with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => None,
    };
    let csv_error: RefCell<Option<csv::Error>> = RefCell::new(None);
    let mut observers = Observers::default();
    let bar_ref = &bar;
    let mut shown = false;
    observers.progress_every = 4096;
    observers.progress = Some(Box::new(move |done, now_ns| {
        if show_progress && !shown && started.elapsed() > Duration::from_secs(1) {
            bar_ref.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
        bar_ref.set_position(done);
        bar_ref.set_message(format!("{:.3} s", now_ns as f64 / 1e9));
    }));
    if let Some(writer) = &csv_writer {
        let csv_error = &csv_error;
        observers.requests = Some(Box::new(move |r: &RequestRecord| {
            if let Err(e) = writer.borrow_mut().serialize(r) {
                csv_error.borrow_mut().get_or_insert(e);
            }
        }));
    }
    let opener = workload.clone();
    let factory = Box::new(move || opener.open());
    // Preconditioning (inside `new`) makes its own pre-pass over the workload and places
    // every page it reads before writing, so a read never places data during the run.
    let mut sim = Simulator::new(config, factory, observers).map_err(|e| anyhow!("{e}"))?;
    let setup = started.elapsed().as_secs_f64();
    sim.set_check(check);
    sim.set_verify(verify);
    let (report, series) = sim.run_to_end().map_err(|e| anyhow!("{e}"))?;
    let finished = started.elapsed();
    // Freed after the clock stops: releasing the drive's tables is not simulation.
    drop(sim);
    bar.finish_and_clear();
    if let Some(e) = csv_error.into_inner() {
        return Err(anyhow!("writing the per-request CSV: {e}"));
    }
    if let Some(writer) = csv_writer {
        writer.into_inner().flush().context("writing the per-request CSV")?;
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
    Ok(Outcome { report, series, speed, workload: describe })
}

#[derive(Serialize)]
struct JsonOut<'a> {
    #[serde(flatten)]
    report: &'a Report,
    workload_description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    simulator: Option<&'a SimulatorSpeed>,
}

pub fn json_value(outcome: &Outcome, wall_clock: bool) -> serde_json::Value {
    serde_json::to_value(JsonOut {
        report: &outcome.report,
        workload_description: &outcome.workload,
        simulator: wall_clock.then_some(&outcome.speed),
    })
    .expect("report serialises")
}

pub fn write_json(path: &Path, outcome: &Outcome, wall_clock: bool) -> Result<()> {
    let text = serde_json::to_string_pretty(&json_value(outcome, wall_clock))?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}

pub fn write_series(path: &Path, rows: &[SeriesRow]) -> Result<()> {
    let mut w = csv::Writer::from_path(path).with_context(|| format!("cannot create {}", path.display()))?;
    let types = rows.first().map_or(0, |r| r.free_pages_by_type.len());
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
    header.extend((0..types).map(|t| format!("free_pages_type{t}")));
    header.extend(["slc_user_pages".to_string(), "slc_free_pages".to_string()]);
    w.write_record(&header)?;
    for r in rows {
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
        fields.extend([r.slc_user_pages.to_string(), r.slc_free_pages.to_string()]);
        w.write_record(&fields)?;
    }
    w.flush()?;
    Ok(())
}

fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1000.0)
}

pub fn print_summary(o: &Outcome) {
    let r = &o.report;
    let d = &r.device;
    let gib = 1024f64.powi(3);
    println!(
        "ssdlab {} — {} ({}, {:.1} GiB raw, {:.1} GiB logical)",
        r.ssdlab_version,
        d.preset,
        d.cell,
        d.physical_bytes as f64 / gib,
        d.logical_bytes as f64 / gib
    );
    println!("workload: {}", o.workload);
    println!(
        "replay: {}, runs: {}, requests: {}, sub-requests: {}, simulated {:.6} s",
        r.host.replay,
        r.host.runs,
        r.host.requests,
        r.host.sub_requests,
        r.simulated_ns as f64 / 1e9
    );
    println!();
    println!(
        "{:<6} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}",
        "op", "requests", "IOPS", "MiB/s", "mean us", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us"
    );
    for (name, s) in [("read", &r.read), ("write", &r.write), ("trim", &r.trim), ("all", &r.all)] {
        if s.requests == 0 && name != "all" {
            continue;
        }
        let l = &s.latency_ns;
        println!(
            "{:<6} {:>9} {:>10.1} {:>10.2} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}",
            name,
            s.requests,
            s.iops,
            s.bandwidth_mib_s,
            us(l.mean),
            us(l.p50 as f64),
            us(l.p90 as f64),
            us(l.p99 as f64),
            us(l.p999 as f64),
            us(l.max as f64)
        );
    }
    println!();
    let names = ["LSB", "CSB", "MSB", "TSB"];
    let bits = r.dominated_write_share.len();
    let label = |t: usize| if bits == 2 { ["fast(LSB)", "slow(MSB)"][t].to_string() } else { names[t].to_string() };
    let shares: Vec<String> =
        (0..bits).map(|t| format!("{} {:.1}%", label(t), r.dominated_write_share[t] * 100.0)).collect();
    println!("write requests dominated by: {}", shares.join(", "));
    let programs: Vec<String> =
        (0..bits).map(|t| format!("{} {}", label(t), r.flash.programs_by_page_type[t])).collect();
    println!("page programs by type: {}", programs.join(", "));
    println!(
        "WAF {:.3}; GC: {} victims, {} pages moved, {} erases ({} emergency / {} background steps)",
        r.waf, r.gc.victims, r.gc.moved_pages, r.gc.erases, r.gc.emergency_steps, r.gc.background_steps
    );
    println!(
        "erase counts: min {} mean {:.1} max {}; SLC hit ratio {:.3}; multi-plane commands {}; copybacks {}",
        r.erase_counts.min,
        r.erase_counts.mean,
        r.erase_counts.max,
        r.flash.slc_hit_ratio,
        r.flash.multi_plane_commands,
        r.flash.copybacks
    );
    let st = &r.start_state;
    println!(
        "start state (per plane, min/mean/max): valid pages {}/{:.0}/{}, invalid {}/{:.0}/{}, free blocks {}/{:.1}/{}; \
         {} free blocks above the background GC threshold ({}) at least; {} of {} planes need GC",
        st.valid_pages.min,
        st.valid_pages.mean,
        st.valid_pages.max,
        st.invalid_pages.min,
        st.invalid_pages.mean,
        st.invalid_pages.max,
        st.free_blocks.min,
        st.free_blocks.mean,
        st.free_blocks.max,
        st.min_blocks_above_background,
        st.background_gc_free_blocks,
        st.planes_needing_gc,
        d.planes
    );
    if let Some(ss) = &r.precondition.steady_state {
        println!(
            "steady-state preconditioning: {} rounds of {} pages, {}; last round WAF {:.3}",
            ss.rounds,
            ss.round_pages,
            if ss.converged { "converged" } else { "NOT converged" },
            ss.waf_by_round.last().copied().unwrap_or(1.0)
        );
    }
    for note in &st.notes {
        println!("  note: {note}");
    }
    println!(
        "reads of unmapped pages: {} (policy: {}; {} read-before-written pages placed by preconditioning); \
         remapped addresses: {} ({}); unaligned: {}",
        r.host.unwritten_reads,
        r.host.unwritten_read_policy,
        r.host.unwritten_pages_preplaced,
        r.host.address_remapped,
        r.host.address_policy,
        r.host.unaligned
    );
    println!(
        "energy: {:.3} J total, {:.1} uJ per request; mapping table {:.1} MiB",
        r.energy_nj.total / 1e9,
        r.energy_nj.per_request / 1e3,
        d.mapping_table_bytes as f64 / 1048576.0
    );
    if let Some(b) = &r.burst {
        println!(
            "bursts: {} (gap threshold {} us), burst bandwidth mean {:.2} MiB/s, aggregate {:.2} MiB/s, mean duration {} us, idle enforced {:.3} s",
            b.bursts,
            us(b.gap_threshold_ns as f64),
            b.mean_bandwidth_mib_s,
            b.aggregate_bandwidth_mib_s,
            us(b.mean_duration_ns),
            b.idle_ns as f64 / 1e9
        );
    }
    if let Some(p) = &r.power {
        println!(
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
            println!(
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
    if r.runs.len() > 1 {
        for run in &r.runs {
            println!(
                "  run {}: read mean {} us, write mean {} us",
                run.run + 1,
                us(run.read.latency_ns.mean),
                us(run.write.latency_ns.mean)
            );
        }
    }
    println!(
        "simulator: {:.3} s wall ({:.3} s setup and preconditioning), {:.0} sub-requests/s, {:.0} events/s",
        o.speed.wall_seconds, o.speed.setup_seconds, o.speed.sub_requests_per_second, o.speed.events_per_second
    );
    for w in &r.warnings {
        println!("WARNING: {w}");
    }
}
