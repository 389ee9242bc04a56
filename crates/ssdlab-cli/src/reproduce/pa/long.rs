//! PA-SSD's long-term experiments (PA §6.2, Figs. 12b and 13) in the regime the paper
//! measured them: a write-intensive workload long enough for LFS to use up the drive's
//! free LSB pages. The shipped traces write too little of the 288-GB drive for that, so
//! this is a synthetic bursty workload (the paper's MSFS is not available): bursts that
//! fill the device queue (QDS turns to LSB pages) between lulls that leave it short
//! (QDS falls back to US or UBS), replayed three times back to back as PA's multi-run
//! mode does; Fig. 13 is the third run.

use crate::reproduce::claims::{change, pct, verdict, Claim, NOTHING_HAPPENED};
use crate::reproduce::execute;
use crate::reproduce::ReproduceArgs;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, Context, Result};
use rayon::prelude::*;
use ssdlab_core::presets::preset;
use ssdlab_core::SeriesRow;
use ssdlab_trace::{Record, SyntheticSource, SyntheticSpec};
use std::fmt::Write as _;
use std::sync::Arc;

/// The workload's name (for `--only`).
pub const BURSTY: &str = "bursty";

/// Requests per burst and per lull, and their gaps: a burst offers 20,000 requests/s
/// (above what any scheme serves, so the queue passes QDS's threshold of 10), a lull 500
/// requests/s (a queue of a few requests).
const BURST: u64 = 2_000;
const BURST_GAP_NS: u64 = 50_000;
const LULL: u64 = 2_000;
const LULL_GAP_NS: u64 = 2_000_000;
/// Requests per run at scale 1: two runs write more than LFS needs to use up the free
/// LSB pages of the aged drive (about 5.6 M pages: 30% of each plane free, one block
/// opened per 128 LSB pages against one reclaimed per 384 pages written).
const PER_RUN: f64 = 1_000_000.0;
const RUNS: u32 = 3;
/// The discussion's values this experiment fills in.
pub(crate) const KEYS: &[&str] = &[
    "long_lfs_used_up",
    "long_lfs_rise",
    "long_ubs_longer",
    "long_lfs_third",
    "long_qds_us_third",
    "long_qds_ubs_third",
    "long_end_lsb",
    "long_versus",
];

/// Free LSB pages below this share of the free pages count as used up.
const USED_UP: f64 = 0.01;

/// The bursty workload: random 32 KiB requests (4 pages), 80% writes, over the whole
/// logical space, re-timed into bursts and lulls.
pub fn bursty_records(logical_bytes: u64, count: u64) -> Result<Vec<Record>> {
    let spec =
        SyntheticSpec { read_fraction: 0.2, block_size_bytes: 32768, count, seed: 11, ..SyntheticSpec::default() }
            .resolve_address_space(logical_bytes);
    let source = SyntheticSource::new(spec).map_err(|e| anyhow!("bursty workload: {e:?}"))?;
    let mut t = 0u64;
    let mut records = Vec::with_capacity(count as usize);
    for (i, r) in source.enumerate() {
        let mut r = r.map_err(|e| anyhow!("bursty workload: {e}"))?;
        r.arrival_ns = t;
        t += if (i as u64 % (BURST + LULL)) < BURST { BURST_GAP_NS } else { LULL_GAP_NS };
        records.push(r);
    }
    Ok(records)
}

pub(crate) struct Long {
    pub md: String,
    pub claims: Vec<Claim>,
    pub values: Vec<(&'static str, String)>,
    pub simulations: usize,
}

struct Run {
    series: Vec<SeriesRow>,
    /// Mean write latency of each run.
    runs: Vec<f64>,
    write_mean: f64,
    erases: u64,
    /// Share of LSB-dominated writes.
    lsb_writes: f64,
}

/// Free LSB pages as a share of the free pages at the end of a series window.
pub(crate) fn lsb_share(s: &SeriesRow) -> f64 {
    s.free_pages_by_type[0] as f64 / s.free_pages_by_type.iter().sum::<u64>().max(1) as f64
}

/// First series window whose free LSB pages are below `USED_UP` of the free pages.
fn used_up_at(series: &[SeriesRow]) -> Option<usize> {
    series.iter().position(|s| s.free_pages_by_type.iter().sum::<u64>() > 0 && lsb_share(s) < USED_UP)
}

/// One line per scheme over its series windows (window end in seconds against `point`,
/// windows where it is `None` left out).
pub(crate) fn series_chart(
    md: &mut String,
    figures: &mut crate::figures::Figures,
    name: &str,
    title: &str,
    y_label: &str,
    per_scheme: &[(&str, &[SeriesRow])],
    point: impl Fn(&SeriesRow) -> Option<f64>,
) {
    let lines = per_scheme
        .iter()
        .map(|(label, series)| crate::plot::Line {
            label: label.to_string(),
            points: series.iter().filter_map(|s| point(s).map(|y| (s.end_ns as f64 / 1e9, y))).collect(),
            ..Default::default()
        })
        .collect();
    figures.lines(
        md,
        name,
        crate::plot::LineChart {
            title: title.to_string(),
            x_label: "window end (s)".into(),
            y_label: y_label.into(),
            lines,
            y_from_zero: true,
            ..Default::default()
        },
    );
}

/// Mean write latency over windows (weighted by writes).
fn window_mean(series: &[SeriesRow]) -> f64 {
    let writes: u64 = series.iter().map(|s| s.writes).sum();
    series.iter().map(|s| s.write_latency_mean_ns * s.writes as f64).sum::<f64>() / writes.max(1) as f64
}

/// Runs every scheme on the bursty workload (`None` when `--only` leaves it out).
pub(crate) fn long_runs(
    args: &ReproduceArgs,
    schemes: &[(&str, &str)],
    figures: &mut crate::figures::Figures,
) -> Result<Option<Long>> {
    if !(args.only.is_empty() || args.only.iter().any(|o| o == BURSTY)) {
        return Ok(None);
    }
    let per_run = ((PER_RUN * args.scale) as u64).max(BURST + LULL);
    let base = preset("pa-ssd-tlc").map_err(|e| anyhow!("{e}"))?;
    let records = Arc::new(bursty_records(base.logical_bytes(), per_run)?);
    let span = records.last().map_or(0, |r| r.arrival_ns);
    let window_ns = (span * RUNS as u64 / 60).max(1_000_000_000);
    let results: Vec<Result<Run>> = schemes
        .par_iter()
        .map(|&(label, scheme)| {
            let mut c = base.clone();
            c.pa.scheme = scheme.to_string();
            c.flash.wordline_buffer = scheme == "none";
            c.host.runs = RUNS;
            c.output.series_interval_ns = window_ns;
            let workload = Workload::Records { name: BURSTY.into(), records: records.clone() };
            let o = execute(Prepared { config: c, workload, import: None }, None, false, true)
                .with_context(|| format!("{BURSTY} under {label}"))?;
            Ok(Run {
                series: crate::output::unfold_series(&o.series),
                runs: o.report.runs.iter().map(|r| r.write.latency_ns.mean).collect(),
                write_mean: o.report.write.latency_ns.mean,
                erases: o.report.gc.erases,
                lsb_writes: o.report.dominated_write_share[0],
            })
        })
        .collect();
    let runs: Vec<Run> = results.into_iter().collect::<Result<_>>()?;
    let idx = |name: &str| schemes.iter().position(|s| s.0 == name).expect("scheme listed");
    let mut md = String::new();
    let mut claims = Vec::new();
    let mut values = Vec::new();
    let secs = |w: Option<usize>| w.map(|w| runs[0].series.get(w).map_or(0.0, |s| s.end_ns as f64 / 1e9));

    writeln!(
        md,
        "## Figs. 12 and 13 in the paper's regime: LSB pages used up ({BURSTY})\n\n\
         Synthetic, the shape of PA's heavy traces (MSFS is not available): {per_run} random 32 KiB requests (4 \
         pages), 80% writes, in bursts of {BURST} at {} requests/s and lulls of {LULL} at {} requests/s, \
         replayed {RUNS} times back to back (PA's multi-run mode) on the same aged drive. A series window is {:.0} s; \
         \"used up\" = free LSB pages below {:.0}% of the free pages.\n",
        1_000_000_000 / BURST_GAP_NS,
        1_000_000_000 / LULL_GAP_NS,
        window_ns as f64 / 1e9,
        USED_UP * 100.0
    )?;
    crate::reproduce::write_header(
        &mut md,
        "scheme",
        [
            "LSB-dominated writes",
            "LSB used up at (s)",
            "free LSB at the end",
            "mean write (ms)",
            "run 1 / 2 / 3 write (ms)",
            "erases",
        ]
        .into_iter(),
    )?;
    for (si, r) in runs.iter().enumerate() {
        let at = secs(used_up_at(&r.series)).map_or("never".to_string(), |s| format!("{s:.0}"));
        let per_run: Vec<String> = r.runs.iter().map(|m| format!("{:.2}", m / 1e6)).collect();
        let end = r
            .series
            .last()
            .map_or(0.0, |s| s.free_pages_by_type[0] as f64 / s.free_pages_by_type.iter().sum::<u64>().max(1) as f64);
        writeln!(
            md,
            "| {} | {:.1}% | {at} | {:.1}% | {:.2} | {} | {} |",
            schemes[si].0,
            r.lsb_writes * 100.0,
            end * 100.0,
            r.write_mean / 1e6,
            per_run.join(" / "),
            r.erases
        )?;
    }
    writeln!(md)?;
    let per_scheme: Vec<(&str, &[SeriesRow])> =
        runs.iter().enumerate().map(|(si, r)| (schemes[si].0, r.series.as_slice())).collect();
    series_chart(
        &mut md,
        figures,
        "fig12-bursty",
        &format!("Fig. 12 ({BURSTY}): mean write latency per window"),
        "write latency (ms)",
        &per_scheme,
        |s| (s.writes > 0).then(|| s.write_latency_mean_ns / 1e6),
    );
    series_chart(
        &mut md,
        figures,
        "fig12-bursty-lsb",
        &format!("Fig. 12 ({BURSTY}): free LSB pages, % of free pages"),
        "free LSB pages (%)",
        &per_scheme,
        |s| Some(lsb_share(s) * 100.0),
    );

    // Fig. 12b: LFS slows down once its LSB pages are gone; QDS+UBS keeps them longest.
    let lfs = &runs[idx("LFS")];
    let lfs_at = used_up_at(&lfs.series);
    let (before, after) = match lfs_at {
        Some(w) => (window_mean(&lfs.series[..w]), window_mean(&lfs.series[w..])),
        None => (window_mean(&lfs.series), 0.0),
    };
    let rise = if before > 0.0 && after > 0.0 { after / before } else { 0.0 };
    claims.push(Claim {
        what: format!("LFS uses up its free LSB pages ({BURSTY}, {RUNS} runs)"),
        figure: "Fig. 12b",
        paper: "after 7 quarters (MSFS)".into(),
        measured: secs(lfs_at).map_or("never".into(), |s| format!("at {s:.0} s")),
        verdict: if lfs_at.is_some() { "holds" } else { "no" }.into(),
        required: false,
    });
    claims.push(Claim {
        what: "LFS: mean write latency after its LSB pages are used up vs before".into(),
        figure: "Fig. 12b",
        paper: "rises quickly".into(),
        measured: if rise > 0.0 {
            format!("{rise:.2}× ({:.2} → {:.2} ms)", before / 1e6, after / 1e6)
        } else {
            "—".into()
        },
        verdict: if lfs_at.is_none() || rise == 0.0 {
            NOTHING_HAPPENED
        } else if rise > 1.1 {
            "holds"
        } else {
            "no"
        }
        .into(),
        required: false,
    });
    // How much longer QDS+UBS keeps LSB pages: until it uses them up, or (a lower bound)
    // to the end of the run.
    let ubs = &runs[idx("QDS+UBS")];
    let last = |r: &Run| r.series.last().map_or(0.0, |s| s.end_ns as f64 / 1e9);
    let ubs_keeps = secs(used_up_at(&ubs.series)).unwrap_or(last(ubs));
    let longer = secs(lfs_at).map_or(0.0, |l| ubs_keeps / l.max(f64::MIN_POSITIVE));
    let bound = used_up_at(&ubs.series).is_none();
    claims.push(Claim {
        what: "QDS+UBS keeps free LSB pages longer than LFS (time to use them up, QDS+UBS / LFS)".into(),
        figure: "Fig. 12b",
        paper: "3.1× (22 vs 7 quarters)".into(),
        measured: if longer > 0.0 { format!("{}{longer:.1}×", if bound { "≥ " } else { "" }) } else { "—".into() },
        verdict: if longer == 0.0 {
            NOTHING_HAPPENED
        } else if bound && longer >= 3.1 / 1.5 || verdict(3.1 - 1.0, longer - 1.0) == "holds" {
            "holds"
        } else if longer > 1.0 {
            "direction only"
        } else {
            "no"
        }
        .into(),
        required: false,
    });
    // The order in which the schemes run out (PA §6.2: LFS first, QDS+UBS last, UBS
    // reserving LSB pages in the lulls).
    let end_lsb = |s: &str| {
        runs[idx(s)]
            .series
            .last()
            .map_or(0.0, |w| w.free_pages_by_type[0] as f64 / w.free_pages_by_type.iter().sum::<u64>().max(1) as f64)
    };
    let order = [end_lsb("LFS"), end_lsb("QDS+US"), end_lsb("QDS+UBS")];
    claims.push(Claim {
        what: "Free LSB pages left at the end: LFS < QDS+US < QDS+UBS".into(),
        figure: "Fig. 12b / §6.2",
        paper: "LFS used up first, QDS+UBS last".into(),
        measured: format!("{:.1}% < {:.1}% < {:.1}%", order[0] * 100.0, order[1] * 100.0, order[2] * 100.0),
        verdict: if order[0] < order[1] && order[1] < order[2] { "holds" } else { "no" }.into(),
        required: false,
    });
    // Fig. 13: the third run against the baseline's third run.
    let third = |si: usize| runs[si].runs.last().copied().unwrap_or(0.0);
    writeln!(md, "\nFig. 13 in this regime, third run's mean write response time / the baseline's:\n")?;
    crate::reproduce::write_header(&mut md, "run", schemes.iter().map(|s| s.0))?;
    let mut row = format!("| {BURSTY} run {RUNS} |");
    for si in 0..schemes.len() {
        write!(row, " {:.3} |", third(si) / third(0).max(f64::MIN_POSITIVE))?;
    }
    writeln!(md, "{row}\n")?;
    for (scheme, paper) in [("LFS", -0.66), ("QDS+US", -0.79), ("QDS+UBS", -0.93)] {
        let got = change(third(idx(scheme)), third(0));
        claims.push(Claim {
            what: format!("{scheme}: third run's write response time vs the baseline's, LSB pages used up ({BURSTY})"),
            figure: "Fig. 13",
            paper: pct(paper),
            measured: pct(got),
            verdict: verdict(paper, got).into(),
            required: false,
        });
    }
    let versus = runs[idx("QDS+UBS")].write_mean / runs[idx("QDS+US")].write_mean.max(f64::MIN_POSITIVE) - 1.0;
    values.push(("long_lfs_used_up", secs(lfs_at).map_or("never".into(), |s| format!("{s:.0} s"))));
    values.push(("long_lfs_rise", if rise > 0.0 { format!("{rise:.2}×") } else { "no".into() }));
    values.push((
        "long_ubs_longer",
        if longer > 0.0 { format!("{}{longer:.1}×", if bound { "≥ " } else { "" }) } else { "—".into() },
    ));
    values.push(("long_lfs_third", pct(third(idx("LFS")) / third(0).max(f64::MIN_POSITIVE) - 1.0)));
    values.push(("long_qds_us_third", pct(third(idx("QDS+US")) / third(0).max(f64::MIN_POSITIVE) - 1.0)));
    values.push(("long_qds_ubs_third", pct(third(idx("QDS+UBS")) / third(0).max(f64::MIN_POSITIVE) - 1.0)));
    values.push((
        "long_end_lsb",
        format!("LFS {:.1}%, QDS+US {:.1}%, QDS+UBS {:.1}%", order[0] * 100.0, order[1] * 100.0, order[2] * 100.0),
    ));
    values.push(("long_versus", pct(versus)));
    debug_assert!(values.iter().map(|v| v.0).eq(KEYS.iter().copied()), "KEYS lists every value");
    Ok(Some(Long { md, claims, values, simulations: runs.len() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursty_records_alternate_bursts_and_lulls_inside_the_drive() {
        let capacity = 1u64 << 30;
        let r = bursty_records(capacity, 2 * (BURST + LULL)).unwrap();
        assert_eq!(r.len() as u64, 2 * (BURST + LULL));
        let gap = |i: usize| r[i + 1].arrival_ns - r[i].arrival_ns;
        assert_eq!(gap(0), BURST_GAP_NS);
        assert_eq!(gap(BURST as usize - 1), BURST_GAP_NS, "the last gap of a burst");
        assert_eq!(gap(BURST as usize), LULL_GAP_NS, "a lull follows");
        assert_eq!(gap((BURST + LULL) as usize), BURST_GAP_NS, "then the next burst");
        assert!(r.iter().all(|x| x.offset_bytes + x.size_bytes <= capacity && x.size_bytes == 32768));
        let writes = r.iter().filter(|x| x.op == ssdlab_trace::Op::Write).count() as f64 / r.len() as f64;
        assert!((writes - 0.8).abs() < 0.03, "write share {writes}");
    }
}
