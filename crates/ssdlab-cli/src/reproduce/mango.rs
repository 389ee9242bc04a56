//! `ssdlab reproduce mango`: Mango, the variation-aware FTL of the thesis (§7.2, Figs.
//! 7.4-7.5), following REPRODUCING.md. The Swap scenario: a swap stream (the SwapSpace
//! stand-in, Table 7.1's statistics) mixed into each workload at 5, 10 and 20% of the
//! requests, tagged high priority, with `[mix]`'s mixer; swap and other requests'
//! latencies, energy and erases, Mango against the baseline FTL. The Netbook scenario:
//! battery and wall power alternating in irregular segments (`priority.
//! power_segment_requests`), half the requests in each; energy by power mode, erases,
//! latency. Both on the `mango-mlc` chip, aged to its GC threshold and half full.

use crate::figures::Figures;
use crate::plot::BarChart;
use crate::reproduce::claims::{
    fill, mean_finite, pct, run_notes, verdict, verdict_counts, write_claims, Claim, NOTHING_HAPPENED, NOT_RUN,
};
use crate::reproduce::execute;
use crate::reproduce::load;
use crate::reproduce::workloads::{load_traces, stand_in, Entry, Trace, STAND_INS};
use crate::reproduce::ReproduceArgs;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, Result};
use rayon::prelude::*;
use ssdlab_core::config::{apply_overrides, Config};
use ssdlab_core::presets::preset;
use ssdlab_core::source::VecSource;
use ssdlab_trace::{place_in_range, MixSource, MixSpec, Record, RecordSource};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// §7.2: "swap requests accounted for between 5 and 20% of the total requests".
const SHARES: [u32; 3] = [5, 10, 20];
/// Table 7.2 stand-in rows (`STAND_INS`) used here: Build, Swap (the swap stream and a
/// Netbook workload), DeskDev.
const BUILD: usize = 0;
const SWAP: usize = 1;
const DESKDEV: usize = 2;
/// Netbook power segments: a workload's requests over this many (battery, wall) pairs.
const POWER_PAIRS: u64 = 12;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Drive {
    /// The preset: every logical page written, invalid pages up to the background GC
    /// threshold (rapid warm-up).
    Aged,
    /// Half the logical pages written, no invalid pages.
    HalfFull,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Scenario {
    Swap(u32),
    Netbook,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Job {
    drive: Drive,
    scenario: Scenario,
    workload: usize,
    mango: bool,
    /// At the workload's recorded rate where the overload rule slowed it (the ablation).
    recorded: bool,
}

#[derive(Clone, Debug, Default)]
struct Measured {
    /// Every write's mean response time (the overload rule's measure).
    write_us: f64,
    high_write_us: f64,
    /// Flash service time (the thesis' latency: program plus the GC waited for).
    high_write_service_us: f64,
    low_us: f64,
    all_us: f64,
    erases: f64,
    work_j: f64,
    battery_j: f64,
    wall_j: f64,
    skipped_fraction: f64,
    high_fast_share: f64,
    command: String,
}

fn built_in() -> Vec<Entry> {
    vec![
        Entry::new("Financial", "umass_spc/fin1.trace", "flashsim", "UMass Financial1 (Table 7.1)"),
        Entry::new("hm_1", "msr_cambridge/hm_1_short.csv", "msr", "MSR Cambridge hm_1 (not in §7.2)"),
        Entry::new("TPC-C", "ms_production/tpcc-small.trace", "mqsim", "MS enterprise TPC-C (not in §7.2)"),
    ]
}

struct Workloads {
    traces: Vec<Trace>,
    /// (`STAND_INS` row, records) of Build and DeskDev, then the swap stream.
    stand_ins: Vec<(usize, Vec<Record>)>,
    swap: Vec<Record>,
    /// Each workload's rate (`host.speed_factor`), from the overload rule, and its
    /// recorded one.
    rates: Vec<f64>,
    recorded: Vec<f64>,
}

impl Workloads {
    fn count(&self) -> usize {
        self.traces.len() + self.stand_ins.len()
    }
    fn name(&self, i: usize) -> String {
        if i < self.traces.len() {
            self.traces[i].entry.name.clone()
        } else {
            format!("{} (stand-in)", STAND_INS[self.stand_ins[i - self.traces.len()].0].0)
        }
    }
    fn rate(&self, job: &Job) -> f64 {
        if job.recorded {
            self.recorded[job.workload]
        } else {
            self.rates[job.workload]
        }
    }
    fn records(&self, i: usize) -> &[Record] {
        if i < self.traces.len() {
            &self.traces[i].records
        } else {
            &self.stand_ins[i - self.traces.len()].1
        }
    }
}

fn config(job: &Job) -> Result<(Config, Vec<String>)> {
    let mut sets = Vec::new();
    if job.drive == Drive::HalfFull {
        sets.push("precondition.used_fraction=0.5".to_string());
        sets.push("precondition.fill_invalid_to_gc_threshold=false".to_string());
    }
    if job.mango {
        sets.push("mango.enabled=true".to_string());
    }
    let base = preset("mango-mlc").map_err(|e| anyhow!("{e}"))?;
    let mut c = apply_overrides(&base, &sets).map_err(|e| anyhow!("{e}"))?;
    c.priority.report = true;
    Ok((c, sets))
}

/// Moves each record into `[0, region)` (as a flow's range does).
fn confine(records: &[Record], region: u64) -> Vec<Record> {
    records
        .iter()
        .map(|r| {
            let mut r = *r;
            r.size_bytes = r.size_bytes.min(region);
            place_in_range(&mut r, 0, region, None);
            r
        })
        .collect()
}

fn run_job(job: &Job, w: &Workloads) -> Result<Measured> {
    run_at(job, w, w.rate(job))
}

/// The job at rate `rate` (`host.speed_factor`).
fn run_at(job: &Job, w: &Workloads, rate: f64) -> Result<Measured> {
    let (mut config, mut sets) = config(job)?;
    if rate != 1.0 {
        config.host.speed_factor = rate;
        sets.push(format!("host.speed_factor={rate}"));
    }
    let logical = config.logical_bytes();
    let page = config.geometry.page_size_bytes as u64;
    // The swap partition: the last eighth of the drive; the workload the rest.
    let swap_at = logical / 8 * 7 / page * page;
    let main = confine(w.records(job.workload), swap_at);
    let name = w.name(job.workload);
    let mut command = format!("ssdlab run --preset mango-mlc  # {name}");
    let records: Vec<Record> = match job.scenario {
        Scenario::Swap(share) => {
            let spec = MixSpec {
                share: share as f64 / 100.0,
                hint: Some(0),
                offset_bytes: swap_at,
                size_bytes: logical - swap_at,
            };
            let swap = w.swap.clone();
            let reopen: ssdlab_trace::Reopen =
                Box::new(move || Ok(Box::new(VecSource::new(swap.clone())) as Box<dyn RecordSource>));
            let mix = MixSource::new(
                Box::new(VecSource::new(main)),
                Box::new(VecSource::new(w.swap.clone())),
                Some(reopen),
                spec,
            );
            write!(
                command,
                ", with [mix] percent = {share}, hint = 0, offset_bytes = {swap_at}, size_bytes = {}",
                logical - swap_at
            )?;
            mix.collect::<Result<Vec<_>, _>>().map_err(|e| anyhow!("{e}"))?
        }
        Scenario::Netbook => {
            let segment = (main.len() as u64 / (2 * POWER_PAIRS)).max(1);
            config.priority.power_segment_requests = segment;
            write!(command, ", --set priority.power_segment_requests={segment}")?;
            main
        }
    };
    for s in &sets {
        write!(command, " --set '{s}'")?;
    }
    let workload = Workload::Records { name, records: Arc::new(records) };
    let outcome = execute(Prepared { config, workload, import: None }, None, false, true)?;
    let r = &outcome.report;
    let p = r.priority.as_ref().ok_or_else(|| anyhow!("no priority section"))?;
    let class = |n: &str| p.classes.iter().find(|c| c.name == n).cloned();
    let (high, low) = (class("high").expect("high"), class("low").expect("low"));
    let mode = |n: &str| p.power_modes.iter().find(|m| m.name == n).map_or(0.0, |m| m.work_energy_nj / 1e9);
    let e = &r.energy_nj;
    let m = r.mango.clone().unwrap_or_default();
    Ok(Measured {
        write_us: r.write.latency_ns.mean / 1e3,
        high_write_us: high.write.latency_ns.mean / 1e3,
        high_write_service_us: high.write_service_ns.mean / 1e3,
        low_us: low.all.latency_ns.mean / 1e3,
        all_us: r.all.latency_ns.mean / 1e3,
        erases: r.gc.erases as f64,
        work_j: (e.read + e.program + e.erase + e.transfer) / 1e9,
        battery_j: mode("battery"),
        wall_j: mode("wall"),
        skipped_fraction: m.skipped_fraction,
        high_fast_share: if m.high_page_writes > 0 {
            m.high_fast_pages as f64 / m.high_page_writes as f64
        } else {
            0.0
        },
        command,
    })
}

/// The run the overload rule measures workload `workload` by: the baseline FTL on the aged
/// drive, the workload alone (its Netbook run).
fn pace_job(workload: usize) -> Job {
    Job { drive: Drive::Aged, scenario: Scenario::Netbook, workload, mango: false, recorded: false }
}

pub fn mango(args: &ReproduceArgs) -> Result<()> {
    let started = std::time::Instant::now();
    let names: Vec<&str> = [BUILD, DESKDEV, SWAP].iter().map(|&i| STAND_INS[i].0).collect();
    let (traces, source) = load_traces(args, built_in(), "mango", &names, |_, _| Ok(()))?;
    let wanted = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    let (c, _) = config(&pace_job(0))?;
    // Stand-ins in 4 KiB units over the workload region (7/8 of the drive).
    let units = c.logical_bytes() / 4096 * 7 / 8;
    let stand_ins: Vec<(usize, Vec<Record>)> = [BUILD, DESKDEV]
        .into_iter()
        .filter(|&i| wanted(STAND_INS[i].0))
        .map(|i| (i, stand_in(i, units, args.scale)))
        .collect();
    let swap = stand_in(SWAP, (c.logical_bytes() / 8) / 4096, args.scale);
    let recorded: Vec<f64> =
        (0..traces.len()).map(|i| traces[i].entry.speed).chain(stand_ins.iter().map(|_| 1.0)).collect();
    let mut w = Workloads { traces, stand_ins, swap, rates: recorded.clone(), recorded };
    let n = w.count();
    // The shared overload rule (`load`): the baseline FTL on the aged drive with the
    // workload alone (its Netbook run) at each rate tried.
    let limit = load::limit_us(&c);
    let paced: Vec<load::Pace<Measured>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let job = pace_job(i);
            // Open loop always: mango replays every workload at its timestamps.
            load::pace(w.recorded[i], false, limit, |rate| {
                let m = run_at(&job, &w, rate)?;
                let write_us = m.write_us;
                Ok((m, write_us))
            })
        })
        .collect::<Result<_>>()?;
    w.rates = paced.iter().map(|p| p.rate).collect();
    let mut jobs = Vec::new();
    for drive in [Drive::Aged, Drive::HalfFull] {
        for (workload, pace) in paced.iter().enumerate() {
            for mango in [false, true] {
                for share in SHARES {
                    jobs.push(Job { drive, scenario: Scenario::Swap(share), workload, mango, recorded: false });
                    // The recorded rate as an ablation of the required check's runs.
                    if drive == Drive::Aged && pace.slowed() {
                        jobs.push(Job { drive, scenario: Scenario::Swap(share), workload, mango, recorded: true });
                    }
                }
                jobs.push(Job { drive, scenario: Scenario::Netbook, workload, mango, recorded: false });
            }
        }
    }
    // The baseline runs the rule made at the rate chosen are the cells they stand for.
    let reused = |j: &Job| (*j == pace_job(j.workload)).then(|| paced[j.workload].at_rate.clone()).flatten();
    let results: Vec<Result<Measured>> =
        jobs.par_iter().map(|j| reused(j).map_or_else(|| run_job(j, &w), Ok)).collect();
    let mut runs = BTreeMap::new();
    for (job, r) in jobs.iter().zip(results) {
        runs.insert(*job, r?);
    }
    let get =
        |drive, scenario, workload, mango| runs[&Job { drive, scenario, workload, mango, recorded: false }].clone();
    // Mango over the baseline; no erases in either run is no change, not -100%; erases
    // only with Mango have no ratio (NaN, left out of the means).
    let ratio = |drive, scenario, i, f: fn(&Measured) -> f64| {
        let (m, b) = (f(&get(drive, scenario, i, true)), f(&get(drive, scenario, i, false)));
        // Against 0 (e.g. no erase in either run) there is no ratio: NaN, not measured.
        if b == 0.0 {
            f64::NAN
        } else {
            m / b
        }
    };
    let mean = |v: &[f64]| mean_finite(v);

    let mut claims = Vec::new();
    let mut values: BTreeMap<&str, String> = BTreeMap::new();
    let mut md = String::new();
    let mut figures = Figures::new(&args.out);
    writeln!(md, "# Mango (Grupp thesis §7.2) reproduced\n")?;
    // Speed-ups in the thesis' measure (flash service time) and in response time.
    let mut speedups = Vec::new();
    let mut response_speedups = Vec::new();
    let mut swap_wear = Vec::new();
    let mut swap_energy = Vec::new();
    for drive in [Drive::Aged, Drive::HalfFull] {
        let (mut s, mut rs, mut wr, mut en) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            for share in SHARES {
                let sc = Scenario::Swap(share);
                s.push(ratio(drive, sc, i, |m| m.high_write_service_us).recip());
                rs.push(ratio(drive, sc, i, |m| m.high_write_us).recip());
                wr.push(ratio(drive, sc, i, |m| m.erases) - 1.0);
                en.push(ratio(drive, sc, i, |m| m.work_j) - 1.0);
            }
        }
        speedups.push(s);
        response_speedups.push(rs);
        swap_wear.push(wr);
        swap_energy.push(en);
    }
    let fmt_range = |v: &[f64]| {
        format!(
            "{:.2}× mean ({:.2}…{:.2}×)",
            mean(v),
            v.iter().copied().fold(f64::MAX, f64::min),
            v.iter().copied().fold(f64::MIN, f64::max)
        )
    };
    claims.push(Claim {
        what: "Mango's swap writes faster than the baseline's in the thesis' measure (program time plus the GC \
               waited for), on every workload and swap share (aged drive)"
            .into(),
        figure: "7.4",
        paper: "faster".into(),
        measured: fmt_range(&speedups[0]),
        verdict: required_verdict(&speedups[0]).into(),
        required: true,
    });
    let claim = |what: String, figure: &'static str, paper: &str, measured: String, verdict: &str| Claim {
        what,
        figure,
        paper: paper.into(),
        measured,
        verdict: verdict.into(),
        required: false,
    };
    let holds = |ok: bool| if ok { "holds" } else { "no" };
    // A relative change not measured (against 0 erases, say): its reason, not a "+0.0%".
    let shown = |x: f64, what: &str| if x.is_finite() { pct(x) } else { format!("— ({what})") };
    let checked = |x: f64, v: &'static str| if x.is_finite() { v } else { NOTHING_HAPPENED };
    for (k, drive) in ["aged", "half-full"].iter().enumerate() {
        let (s, w, e) = (mean(&speedups[k]), mean(&swap_wear[k]), mean(&swap_energy[k]));
        let rs = mean(&response_speedups[k]);
        let faster = |measure: &str, v: &[f64], mean: f64| {
            claim(
                format!("Swap writes complete faster with Mango, {measure} ({drive} drive)"),
                "7.4",
                "1.5×",
                fmt_range(v),
                verdict(0.5, mean - 1.0),
            )
        };
        claims.extend([
            faster("flash service time", &speedups[k], s),
            faster("response time", &response_speedups[k], rs),
            claim(
                format!("Wear (erases) in the Swap scenario ({drive} drive)"),
                "7.4",
                "+3%",
                shown(w, "no erase in either run"),
                verdict(0.03, w),
            ),
            claim(
                format!("Energy only marginally higher in the Swap scenario ({drive} drive)"),
                "7.4",
                "marginal",
                shown(e, "no energy drawn"),
                checked(e, holds(e.abs() < 0.05)),
            ),
        ]);
    }
    let mut net = BTreeMap::new();
    for (k, drive) in [(0, Drive::Aged), (1, Drive::HalfFull)] {
        let e: Vec<f64> = (0..n).map(|i| ratio(drive, Scenario::Netbook, i, |m| m.work_j) - 1.0).collect();
        let b: Vec<f64> = (0..n).map(|i| ratio(drive, Scenario::Netbook, i, |m| m.battery_j) - 1.0).collect();
        let wr: Vec<f64> = (0..n).map(|i| ratio(drive, Scenario::Netbook, i, |m| m.erases) - 1.0).collect();
        let l: Vec<f64> = (0..n).map(|i| ratio(drive, Scenario::Netbook, i, |m| m.all_us).recip() - 1.0).collect();
        net.insert(k, (e, b, wr, l));
    }
    for (k, drive) in ["aged", "half-full"].iter().enumerate() {
        let (e, b, w, l) = (mean(&net[&k].0), mean(&net[&k].1), mean(&net[&k].2), mean(&net[&k].3));
        claims.extend([
            claim(
                format!("Netbook energy, battery + wall ({drive} drive)"),
                "7.5",
                "−3%",
                shown(e, "no energy drawn"),
                verdict(-0.03, e),
            ),
            claim(
                format!("Netbook energy drawn on battery ({drive} drive)"),
                "7.5",
                "lower",
                shown(b, "none on battery"),
                checked(b, holds(b < 0.0)),
            ),
            claim(
                format!("Netbook wear (erases) ({drive} drive)"),
                "7.5",
                "+55%",
                shown(w, "no erase in either run"),
                verdict(0.55, w),
            ),
            claim(
                format!("Netbook performance (mean latency, speed-up) ({drive} drive)"),
                "7.5",
                "slight increase",
                shown(l, "no request"),
                checked(l, holds(l > 0.0)),
            ),
        ]);
    }
    values.insert("swap_speedup_aged", format!("{:.2}", mean(&speedups[0])));
    values.insert("swap_speedup_half", format!("{:.2}", mean(&speedups[1])));
    values.insert("swap_response_aged", format!("{:.2}", mean(&response_speedups[0])));
    values.insert("swap_response_half", format!("{:.2}", mean(&response_speedups[1])));
    let wear_text = |x: f64| if x.is_finite() { pct(x) } else { "nothing (no erase in either run)".to_string() };
    values.insert("swap_wear_aged", wear_text(mean(&swap_wear[0])));
    values.insert("swap_wear_half", wear_text(mean(&swap_wear[1])));
    values.insert("net_energy_aged", pct(mean(&net[&0].0)));
    values.insert("net_energy_half", pct(mean(&net[&1].0)));
    values.insert("net_battery_aged", pct(mean(&net[&0].1)));
    values.insert("net_battery_half", pct(mean(&net[&1].1)));
    values.insert("net_wear_aged", wear_text(mean(&net[&0].2)));
    values.insert("net_wear_half", wear_text(mean(&net[&1].2)));

    writeln!(md, "{}", verdict_counts(&claims, ""))?;
    writeln!(md, "Command: `ssdlab reproduce mango{}`. Workloads: {source}.\n", args.run_flags())?;
    let slowed_names: Vec<String> = (0..n)
        .filter(|&i| paced[i].slowed())
        .map(|i| format!("{} ×{}", w.name(i), w.rates[i] / w.recorded[i]))
        .collect();
    write!(md, "{}", run_notes(&slowed_names, &[], "", "the baseline FTL"))?;
    write_claims(
        &mut md,
        &claims,
        "Ratios are Mango over the baseline FTL on the same drive, workload and swap share; \"mean\" is over \
         every workload (and share). A speed-up is the baseline's mean latency over Mango's. Flash service \
         time is the thesis' latency (§7.2: \"the latency for each operation (including garbage collection \
         time if the operation needed to wait for it)\"): a write's program command plus the GC its die ran \
         while it waited, not its wait behind other host requests; response time is arrival to completion.",
    )?;
    writeln!(
        md,
        "## Setup\n\nPreset `mango-mlc`: one chip of two C-MLC32 dies (Table 2.2: 4096 blocks × 128 pages × 8 KiB, \
         one plane; every other page fast), latencies from Table 2.3's energies and peak powers (fast / slow \
         programs 327 / 1418 µs, reads 111 µs, erase 2851 µs), 30 ns/B bus, 20% spare (ours: §7.2 gives none). \
         Open-loop replay at the traces' times. Aged: every logical page written, invalid pages up to the \
         background GC threshold; half-full: half the logical pages written. The swap partition is the last \
         eighth of the drive; workloads are wrapped into the rest. Swap stream: the SwapSpace stand-in (Table \
         7.2 bursts, Table 7.1's 84% reads, one-page requests), mixed in by request count and restarted when \
         it runs out. Netbook: {POWER_PAIRS} battery / wall pairs of irregular length (uniform 0.5-1.5 × the \
         mean), half the requests in each mode; energy is the work energy (reads, programs, erases, \
         transfers; idle power is not split by mode). Stand-ins: {}.\n\n**Load** (the rule every reproduction \
         shares): the thesis measures each operation's latency with the GC it waited for on a simulator that \
         served one operation at a time (§7.2), not a queue that never drains. {}{}\n",
        if w.stand_ins.is_empty() {
            "none".to_string()
        } else {
            w.stand_ins.iter().map(|(i, _)| STAND_INS[*i].0).collect::<Vec<_>>().join(", ")
        },
        load::rule("the baseline FTL (aged drive, the workload alone)", "the baseline", limit),
        if slowed_names.is_empty() {
            " No workload was slowed.".to_string()
        } else {
            format!(" Slowed: {}.", slowed_names.join(", "))
        }
    )?;
    for (drive, label) in [(Drive::Aged, "aged"), (Drive::HalfFull, "half-full")] {
        writeln!(md, "## Fig. 7.4: Swap scenario ({label} drive)\n")?;
        writeln!(md, "| workload | swap % | swap write service µs (base / Mango) | swap write response µs (base / Mango) | other µs (base / Mango) | erases (base / Mango) | work J (base / Mango) | Mango skipped | high on fast |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")?;
        for i in 0..n {
            for share in SHARES {
                let (b, m) = (get(drive, Scenario::Swap(share), i, false), get(drive, Scenario::Swap(share), i, true));
                writeln!(
                    md,
                    "| {} | {share} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} | {:.2} / {:.2} | {:.1}% | {:.1}% |",
                    w.name(i),
                    b.high_write_service_us,
                    m.high_write_service_us,
                    b.high_write_us,
                    m.high_write_us,
                    b.low_us,
                    m.low_us,
                    b.erases,
                    m.erases,
                    b.work_j,
                    m.work_j,
                    m.skipped_fraction * 100.0,
                    m.high_fast_share * 100.0
                )?;
            }
        }
        writeln!(md)?;
        let k = if drive == Drive::Aged { 0 } else { 1 };
        figures.bars(
            &mut md,
            &format!("fig7-4-{label}"),
            BarChart {
                title: format!("Fig. 7.4: swap write speed-up with Mango, flash service time ({label})"),
                x_label: "workload".into(),
                y_label: "× baseline".into(),
                categories: (0..n).map(|i| w.name(i)).collect(),
                groups: SHARES
                    .iter()
                    .enumerate()
                    .map(|(s, share)| (format!("{share}% swap"), (0..n).map(|i| speedups[k][i * 3 + s]).collect()))
                    .collect(),
            },
        );
        if drive == Drive::Aged {
            write!(md, "{}", recorded_rate(&w, &paced, &runs, limit)?)?;
        }
        writeln!(md, "## Fig. 7.5: Netbook scenario ({label} drive)\n")?;
        writeln!(md, "| workload | battery J (base / Mango) | wall J (base / Mango) | erases (base / Mango) | mean µs (base / Mango) |\n|---|---:|---:|---:|---:|")?;
        for i in 0..n {
            let (b, m) = (get(drive, Scenario::Netbook, i, false), get(drive, Scenario::Netbook, i, true));
            writeln!(
                md,
                "| {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.0} / {:.0} | {:.0} / {:.0} |",
                w.name(i),
                b.battery_j,
                m.battery_j,
                b.wall_j,
                m.wall_j,
                b.erases,
                m.erases,
                b.all_us,
                m.all_us
            )?;
        }
        writeln!(md)?;
    }
    values.insert("load", load_text(&w, &paced, &runs, limit));
    let template = crate::reproduce::run_discussion(args, "mango");
    writeln!(md, "{}\n", fill(&template, &values)?.trim_end())?;
    writeln!(md, "## Commands\n\nEvery cell is one `ssdlab run`; for example:\n\n```")?;
    for (job, m) in runs.iter().filter(|(j, _)| j.workload == 0).take(8) {
        writeln!(md, "{}{}", m.command, if job.mango { "" } else { "  (baseline)" })?;
    }
    writeln!(md, "```")?;
    figures.write_report(&args.out, &md)?;
    println!("wrote {} ({} simulations in {:.1} s)", args.out.display(), jobs.len(), started.elapsed().as_secs_f64());
    crate::reproduce::claims::gate(&claims, "mango")
}

/// The required check's verdict on the swap-write speed-ups (baseline over Mango, flash
/// service time, aged drive, every workload and share): holds when every one is above 1;
/// one at or below 1, or one not measured (no swap write in a run: NaN), is no; none at
/// all is not run.
fn required_verdict(speedups: &[f64]) -> &'static str {
    if speedups.is_empty() {
        NOT_RUN
    } else if speedups.iter().all(|&x| x > 1.0) {
        "holds"
    } else {
        "no"
    }
}

/// Speed-ups of the swap writes (baseline over Mango, flash service time and response
/// time), aged drive, for each share, at the rate given (`recorded`) or chosen.
fn swap_speedups(runs: &BTreeMap<Job, Measured>, i: usize, recorded: bool) -> Vec<(u32, f64, f64)> {
    SHARES
        .iter()
        .map(|&share| {
            let job = |mango| Job { drive: Drive::Aged, scenario: Scenario::Swap(share), workload: i, mango, recorded };
            let (b, m) = (&runs[&job(false)], &runs[&job(true)]);
            (share, b.high_write_service_us / m.high_write_service_us, b.high_write_us / m.high_write_us)
        })
        .collect()
}

/// The recorded-rate ablation of the overload rule: the required check's runs of each
/// slowed workload at the rate it was given.
fn recorded_rate(
    w: &Workloads,
    paced: &[load::Pace<Measured>],
    runs: &BTreeMap<Job, Measured>,
    limit: f64,
) -> Result<String> {
    let mut md = String::new();
    let slowed: Vec<usize> = (0..w.count()).filter(|&i| paced[i].slowed()).collect();
    if slowed.is_empty() {
        return Ok(md);
    }
    writeln!(
        md,
        "### Recorded rate (ablation of the load rule, aged drive)\n\nThe slowed workloads at the rate given, where \
         the baseline FTL's writes took longer than the rule's {} ms on average.\n",
        load::ms(limit)
    )?;
    writeln!(
        md,
        "| workload | baseline write response ms | swap % | swap write speed-up, service time | swap write speed-up, \
         response time |\n|---|---:|---:|---:|---:|"
    )?;
    for i in slowed {
        for (share, service, response) in swap_speedups(runs, i, true) {
            writeln!(
                md,
                "| {} | {:.1} | {share} | {service:.2}× | {response:.2}× |",
                w.name(i),
                paced[i].recorded_write_us.unwrap_or(f64::NAN) / 1e3
            )?;
        }
    }
    writeln!(md)?;
    Ok(md)
}

/// The discussion's sentence on the load rule, from the run.
fn load_text(w: &Workloads, paced: &[load::Pace<Measured>], runs: &BTreeMap<Job, Measured>, limit: f64) -> String {
    let slowed: Vec<usize> = (0..w.count()).filter(|&i| paced[i].slowed()).collect();
    if slowed.is_empty() {
        return format!(
            "No workload overloaded the baseline FTL at its recorded rate (the rule under Setup: mean write response \
             above {} ms), so every workload replayed at its own rate.",
            load::ms(limit)
        );
    }
    let each: Vec<String> = slowed
        .iter()
        .map(|&i| {
            let at = |recorded| {
                let v = swap_speedups(runs, i, recorded);
                let min = v.iter().map(|x| x.1).fold(f64::MAX, f64::min);
                let max = v.iter().map(|x| x.1).fold(f64::MIN, f64::max);
                format!("{min:.2}…{max:.2}×")
            };
            format!(
                "{} (the baseline's writes took {:.1} ms on average at its recorded rate; replayed at ×{}): swap-write \
                 speed-up in flash service time {} at the recorded rate, {} as run",
                w.name(i),
                paced[i].recorded_write_us.unwrap_or(f64::NAN) / 1e3,
                w.rates[i] / w.recorded[i],
                at(true),
                at(false)
            )
        })
        .collect();
    format!(
        "The shared overload rule (Setup; limit {} ms) slowed {} of the {} workloads: {}.",
        load::ms(limit),
        slowed.len(),
        w.count(),
        each.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_check_fails_where_mango_is_not_faster_everywhere() {
        assert_eq!(required_verdict(&[1.8, 1.9, 2.1]), "holds");
        // The overloaded burst trace of issue 43: one workload's swap writes at 0.43×.
        assert_eq!(required_verdict(&[1.8, 0.43, 2.1]), "no");
        assert_eq!(required_verdict(&[1.8, 1.0]), "no", "equal is not faster");
        assert_eq!(required_verdict(&[1.8, f64::NAN]), "no", "a run without swap writes");
        assert_eq!(required_verdict(&[]), NOT_RUN);
        let c = |v: &str| Claim {
            what: "x".into(),
            figure: "7.4",
            paper: "faster".into(),
            measured: "m".into(),
            verdict: v.into(),
            required: true,
        };
        assert!(crate::reproduce::claims::gate(&[c(required_verdict(&[0.43]))], "mango").is_err());
        assert!(crate::reproduce::claims::gate(&[c(required_verdict(&[]))], "mango").is_err());
    }
}
