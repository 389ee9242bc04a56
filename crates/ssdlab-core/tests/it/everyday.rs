//! Issue 17 (everyday use), the engine's part: the time series streamed with idle gaps
//! folded (item 1), and a run stopped from outside with a partial report (item 4). The
//! multi-run memory bound (item 2) is a unit test in `engine/host.rs`.

use super::*;
use ssdlab_core::SeriesRow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const INTERVAL: u64 = 10_000_000;

/// Writes at the start of intervals 0, 1 and 1,000 (each completes within its interval):
/// the 998 intervals between them saw no completion.
fn gap_workload() -> Vec<Record> {
    [0, 1, 1000].iter().map(|&k| rec(k * INTERVAL, Op::Write, k, 1, 4096)).collect()
}

fn simulator<'a>(config: &Config, records: Vec<Record>, observers: Observers<'a>) -> Simulator<'a> {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(config.clone(), factory, observers).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim
}

/// Item 1: an idle gap is one row however long, spanning the gap, with `intervals` saying
/// how many intervals it stands for and zero counts.
#[test]
fn an_idle_gap_is_one_series_row() {
    let mut c = tiny(1, 1, 1, 1);
    c.output.series_interval_ns = INTERVAL;
    let (report, series) = run_with_series(&c, gap_workload());
    assert_eq!(report.write.requests, 3);
    let spans: Vec<(u64, u64, u64, u64)> =
        series.iter().map(|r| (r.start_ns / INTERVAL, r.end_ns / INTERVAL, r.intervals, r.writes)).collect();
    assert_eq!(spans, [(0, 1, 1, 1), (1, 2, 1, 1), (2, 1000, 998, 0), (1000, 1001, 1, 1)], "{series:?}");
    let gap = &series[2];
    assert_eq!((gap.reads, gap.read_bytes, gap.write_bytes, gap.erases), (0, 0, 0, 0));
    assert_eq!((gap.iops, gap.bandwidth_mib_s, gap.write_latency_mean_ns), (0.0, 0.0, 0.0));
    assert_eq!(gap.free_blocks, series[1].free_blocks, "nothing happened in the gap");
}

/// Item 1: with a series observer every row goes to it as it completes, in order, and
/// the run keeps none.
#[test]
fn a_series_observer_takes_the_rows() {
    let mut c = tiny(1, 1, 1, 1);
    c.output.series_interval_ns = INTERVAL;
    let (_, kept) = run_with_series(&c, gap_workload());
    let seen: RefCell<Vec<SeriesRow>> = RefCell::new(Vec::new());
    let observers =
        Observers { series: Some(Box::new(|r: &SeriesRow| seen.borrow_mut().push(r.clone()))), ..Default::default() };
    let (report, returned) = simulator(&c, gap_workload(), observers).run().expect("run succeeds");
    assert!(returned.is_empty(), "{returned:?}");
    assert_eq!(seen.into_inner(), kept);
    assert!(report.partial.is_none());
}

/// Item 4: a stop flag set part way (here by the request observer after 100 completions)
/// ends the run after that event with `Ok`: the report covers the requests completed so
/// far and says what was left out; the checks at the end of the run still hold.
#[test]
fn a_stop_flag_ends_the_run_with_a_partial_report() {
    let mut c = tiny(1, 1, 1, 2);
    c.host.queue_depth = 16;
    let records = random_requests(2000, 1, c.logical_pages() / 2, Op::Write, 4096, 3);
    let full = run(&c, records.clone());
    assert!(full.partial.is_none());
    assert!(!serde_json::to_string(&full).unwrap().contains("\"partial\""), "omitted when complete");

    let flag = Arc::new(AtomicBool::new(false));
    let setter = flag.clone();
    let mut completed = 0;
    let observers = Observers {
        requests: Some(Box::new(move |_| {
            completed += 1;
            if completed == 100 {
                setter.store(true, Ordering::Relaxed);
            }
        })),
        ..Default::default()
    };
    let mut sim = simulator(&c, records, observers);
    sim.set_stop_flag(flag);
    let (report, _) = sim.run_to_end().expect("a stopped run is not an error");
    let p = report.partial.as_ref().expect("marked partial");
    // The event that completed the 100th request may have completed a few more.
    assert!((100..110).contains(&p.completed_requests), "{p:?}");
    assert_eq!(report.all.requests, p.completed_requests);
    assert_eq!(report.host.requests, p.completed_requests + p.outstanding_requests, "{p:?}");
    // Every arrival is at time 0: the rest wait in the host for one of the 16 slots.
    assert!(p.outstanding_requests > 0 && p.outstanding_requests <= 16, "{p:?}");
    assert_eq!(p.completed_requests + p.outstanding_requests + p.waiting_requests, 2000, "{p:?}");
    assert_eq!(p.stopped_at_ns, sim.now_ns());
    assert!(report.simulated_ns <= p.stopped_at_ns && report.simulated_ns < full.simulated_ns);
    assert!(report.events < full.events);
}

/// A record stamped past the clock's horizon (2^62 ns, 146 years, after the speed
/// factor) is refused with an error naming it, not run into an overflow of the u64
/// nanosecond clock (issue 45: blktrace's 40-year timestamp, slowed 1000-fold, panicked in
/// overflow-checked builds and wrapped in release builds).
#[test]
fn an_arrival_past_the_clocks_horizon_is_an_error() {
    let c = tiny(1, 1, 1, 1);
    let forty_years = 1_266_874_889_708_668_759;
    let records = || vec![rec(0, Op::Write, 1, 1, 4096), rec(forty_years, Op::Read, 1, 1, 4096)];
    // At its recorded rate it runs (40 years of idle time fit the clock).
    try_run_with_budget(&c, records(), u64::MAX).expect("40 years fit");
    let mut slowed = c.clone();
    slowed.host.speed_factor = 0.001;
    let e = try_run_with_budget(&slowed, records(), u64::MAX).unwrap_err().to_string();
    assert!(e.starts_with("request 1 (read at byte 4096): arrives 1266874889709 s into the replay"), "{e}");
    assert!(e.contains("horizon of 146 years") && e.contains("--time-window"), "{e}");
    // Closed loop ignores arrival times: the same records run.
    let mut closed = slowed.clone();
    closed.host.replay = ReplayMode::ClosedLoop;
    closed.host.queue_depth = 1;
    try_run_with_budget(&closed, records(), u64::MAX).expect("closed loop ignores time stamps");
}
