//! Time series on the page: the `--series` CSV read back (`SeriesTable`), averaged over
//! time bins one width for every run on the page (rates by time, so a folded idle row
//! counts for the time it stands for), and the "Over time" section drawn from them.

use super::*;

/// A time-series CSV (`--series`), columns by name.
pub struct SeriesTable {
    pub(super) columns: Vec<String>,
    pub(super) rows: Vec<Vec<f64>>,
}

impl SeriesTable {
    pub fn from_csv(bytes: &[u8], origin: &str) -> Result<SeriesTable> {
        let mut reader = csv::Reader::from_reader(bytes);
        let columns: Vec<String> =
            reader.headers().with_context(|| format!("{origin}: no header"))?.iter().map(String::from).collect();
        for needed in ["start_ns", "end_ns", "bandwidth_mib_s", "erases"] {
            if !columns.iter().any(|c| c == needed) {
                bail!("{origin}: no column '{needed}': not a time series written by `ssdlab run --series`");
            }
        }
        let mut rows = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record = record.with_context(|| format!("{origin}:{}", i + 2))?;
            let row = record
                .iter()
                .enumerate()
                .map(|(k, field)| {
                    field.parse::<f64>().map_err(|_| {
                        anyhow!(
                            "{origin}:{}: column {}: '{field}' is not a number",
                            i + 2,
                            columns.get(k).map_or("?", |c| c)
                        )
                    })
                })
                .collect::<Result<Vec<f64>>>()?;
            rows.push(row);
        }
        Ok(SeriesTable { columns, rows })
    }

    pub(super) fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| r.get(k).copied().unwrap_or(f64::NAN)).collect())
    }

    /// Columns whose names start with `prefix`, with the rest of the name.
    pub(super) fn columns_with(&self, prefix: &str) -> Vec<(String, Vec<f64>)> {
        self.columns
            .iter()
            .filter_map(|c| c.strip_prefix(prefix).map(|rest| (rest.to_string(), self.column(c).unwrap_or_default())))
            .collect()
    }

    /// The series interval: what one row covers (`intervals` rows for a folded idle gap).
    pub(super) fn interval_ns(&self) -> Option<f64> {
        let (start, end) = (self.column("start_ns")?, self.column("end_ns")?);
        let intervals = self.column("intervals");
        (0..start.len())
            .map(|k| (end[k] - start[k]) / intervals.as_ref().map_or(1.0, |n| n[k].max(1.0)))
            .filter(|d| d.is_finite() && *d > 0.0)
            .reduce(f64::min)
    }

    /// The end of the last row (ns).
    pub(super) fn end_ns(&self) -> f64 {
        self.column("end_ns").and_then(|e| e.last().copied()).unwrap_or(0.0)
    }

    /// Each row's duration (s).
    pub(super) fn durations_s(&self) -> Vec<f64> {
        match (self.column("start_ns"), self.column("end_ns")) {
            (Some(start), Some(end)) => start.iter().zip(&end).map(|(a, b)| (b - a).max(0.0) / 1e9).collect(),
            _ => vec![],
        }
    }

    /// `values` (one per row) averaged over bins of `bin_ns`, each row weighted by its
    /// `weights` entry (split between the bins it overlaps in proportion to the time it
    /// spends in each): a bin's value is Σ value × weight / Σ weight over its rows, NaN
    /// (a gap in the line) where the weights are 0. As steps in seconds: (bin start,
    /// value), (bin end, value), bins clipped to the rows, equal neighbours merged.
    pub(super) fn binned(&self, values: &[f64], weights: &[f64], bin_ns: f64) -> Vec<(f64, f64)> {
        let (Some(start), Some(end)) = (self.column("start_ns"), self.column("end_ns")) else { return vec![] };
        if start.is_empty() || bin_ns.is_nan() || bin_ns <= 0.0 {
            return vec![];
        }
        let (first, last) = (start[0], end[end.len() - 1]);
        let bins = ((last / bin_ns).ceil() as usize).max(1);
        let mut sum = vec![0.0; bins];
        let mut weight = vec![0.0; bins];
        for k in 0..start.len().min(values.len()).min(weights.len()) {
            let (a, b, v, w) = (start[k], end[k], values[k], weights[k]);
            if (b - a).is_nan() || b <= a || !v.is_finite() || !w.is_finite() || w == 0.0 {
                continue;
            }
            let from = ((a / bin_ns).floor() as usize).min(bins - 1);
            let to = (((b / bin_ns).ceil() as usize).max(from + 1)).min(bins);
            for bin in from..to {
                let share = (b.min((bin + 1) as f64 * bin_ns) - a.max(bin as f64 * bin_ns)).max(0.0) / (b - a);
                sum[bin] += v * w * share;
                weight[bin] += w * share;
            }
        }
        let first_bin = ((first / bin_ns).floor() as usize).min(bins - 1);
        let mut points: Vec<(f64, f64)> = Vec::new();
        for bin in first_bin..bins {
            let lo = (bin as f64 * bin_ns).max(first) / 1e9;
            let hi = ((bin + 1) as f64 * bin_ns).min(last) / 1e9;
            let v = if weight[bin] > 0.0 { sum[bin] / weight[bin] } else { f64::NAN };
            let n = points.len();
            let same = n >= 2 && (points[n - 1].1 == v || (v.is_nan() && points[n - 1].1.is_nan()));
            if same && points[n - 1].0 == lo {
                points[n - 1].0 = hi;
            } else {
                points.push((lo, v));
                points.push((hi, v));
            }
        }
        points
    }

    /// A rate from per-row counts: count per second, averaged by time (Σ count / Σ time),
    /// so the line integrates over time to the counts.
    pub(super) fn rate(&self, counts: &[f64], bin_ns: f64) -> Vec<(f64, f64)> {
        let d = self.durations_s();
        let per_second: Vec<f64> =
            counts.iter().zip(&d).map(|(c, d)| if *d > 0.0 { c / d } else { f64::NAN }).collect();
        self.binned(&per_second, &d, bin_ns)
    }

    /// A level sampled once per row (free blocks, free pages): averaged by time.
    pub(super) fn level(&self, values: &[f64], bin_ns: f64) -> Vec<(f64, f64)> {
        self.binned(values, &self.durations_s(), bin_ns)
    }

    /// The sum of some columns per row (missing columns count 0; None if all are missing).
    pub(super) fn sum_of(&self, columns: &[&str]) -> Option<Vec<f64>> {
        let found: Vec<Vec<f64>> = columns.iter().filter_map(|c| self.column(c)).collect();
        let first = found.first()?;
        Some((0..first.len()).map(|k| found.iter().map(|c| c[k]).sum()).collect())
    }

    /// Requests completed per row: reads + writes, or the `iops` column × the row's time.
    pub(super) fn requests(&self) -> Option<Vec<f64>> {
        self.sum_of(&["reads", "writes"])
            .or_else(|| Some(self.column("iops")?.iter().zip(self.durations_s()).map(|(r, d)| r * d).collect()))
    }

    /// MiB completed per row: the bytes columns, or `bandwidth_mib_s` × the row's time.
    pub(super) fn mebibytes(&self) -> Option<Vec<f64>> {
        match self.sum_of(&["read_bytes", "write_bytes"]) {
            Some(bytes) => Some(bytes.iter().map(|b| b / 1048576.0).collect()),
            None => Some(self.column("bandwidth_mib_s")?.iter().zip(self.durations_s()).map(|(r, d)| r * d).collect()),
        }
    }
}

/// A line over time: (s, value) steps.
pub(super) type Steps = Vec<(f64, f64)>;

/// Candidate bin widths (s) of at least a minute: round durations.
pub(super) const ROUND_BINS_S: &[u64] =
    &[60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2419200];

/// The bin width (ns) the time plots average over, one for every run on the page: the
/// narrowest multiple of the (smallest) series interval that keeps every line within
/// MAX_SERIES_POINTS bins, a 1-2-5 multiple below a minute and a round duration
/// (minutes, hours, days) above, when the interval divides one.
pub(super) fn bin_width_ns(tables: &[&SeriesTable]) -> Option<f64> {
    let interval = tables.iter().filter_map(|t| t.interval_ns()).reduce(f64::min)?;
    let span = tables.iter().map(|t| t.end_ns()).fold(0.0, f64::max);
    let need = (span / MAX_SERIES_POINTS as f64).max(interval);
    let interval_ns = interval.round().max(1.0) as u64;
    let steps = (0..40).map(|e| 10u64.saturating_pow(e / 3) * [1, 2, 5][(e % 3) as usize]);
    let mut candidates: Vec<u64> = steps
        .clone()
        .map(|m| m.saturating_mul(interval_ns))
        .filter(|&w| w < 60_000_000_000 || w == interval_ns)
        .collect();
    candidates.extend(ROUND_BINS_S.iter().map(|s| s * 1_000_000_000).filter(|w| w % interval_ns == 0));
    candidates.sort_unstable();
    if let Some(&w) = candidates.iter().find(|&&w| w as f64 >= need) {
        return Some(w as f64);
    }
    // Longer than the round durations (or an interval that divides none): 1-2-5 multiples.
    steps.map(|m| m.saturating_mul(interval_ns) as f64).find(|&w| w >= need)
}

/// A duration (ns) in words: "500 ms", "2 min", "1.5 h", "7 d".
pub(super) fn duration_text(ns: f64) -> String {
    let (v, unit) = match ns {
        n if n >= 86400e9 => (n / 86400e9, "d"),
        n if n >= 3600e9 => (n / 3600e9, "h"),
        n if n >= 60e9 => (n / 60e9, "min"),
        n if n >= 1e9 => (n / 1e9, "s"),
        n if n >= 1e6 => (n / 1e6, "ms"),
        n if n >= 1e3 => (n / 1e3, "µs"),
        n => (n, "ns"),
    };
    let text = format!("{v:.2}");
    format!("{} {unit}", text.trim_end_matches('0').trim_end_matches('.'))
}

/// The unit of a time axis spanning `span_s` seconds: (name, seconds per unit).
pub(super) fn time_unit(span_s: f64) -> (&'static str, f64) {
    match span_s {
        s if s >= 2.0 * 86400.0 => ("d", 86400.0),
        s if s >= 3.0 * 3600.0 => ("h", 3600.0),
        s if s >= 30.0 * 60.0 => ("min", 60.0),
        _ => ("s", 1.0),
    }
}

pub(super) fn series_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Over time</h2>\n");
    let with: Vec<&ReportRun> = runs.iter().filter(|r| r.series.as_ref().is_some_and(|s| !s.rows.is_empty())).collect();
    let tables: Vec<&SeriesTable> = with.iter().filter_map(|r| r.series.as_ref()).collect();
    let Some(bin) = bin_width_ns(&tables) else {
        h.push_str(
            "<p class=\"note\">No time series: write one with <code>ssdlab run --series FILE</code> and pass it to \
             <code>ssdlab report --series FILE</code>, or use <code>run --html</code>.</p>\n",
        );
        return;
    };
    let mut intervals: Vec<String> = Vec::new();
    for text in tables.iter().filter_map(|t| t.interval_ns()).map(duration_text) {
        if !intervals.contains(&text) {
            intervals.push(text);
        }
    }
    let bins = format!("bins of {}", duration_text(bin));
    let _ = writeln!(
        h,
        "<p class=\"note\">Each plot over time averages the time series (one row per {} of simulated time, idle \
         stretches folded into one row) over {bins}: rates and levels by time, mean latencies by request, the SLC \
         share by page written. A rate integrates over time to its count (the IOPS line to the requests).</p>",
        escape(&intervals.join(" / "))
    );
    h.push_str("<div class=\"plots\">\n");
    let span_s = tables.iter().map(|t| t.end_ns()).fold(0.0, f64::max) / 1e9;
    let (unit, per_unit) = time_unit(span_s);
    let time_chart = |title: &str, y: &str, lines: Vec<Line>| LineChart {
        title: title.into(),
        x_label: format!("simulated time ({unit})"),
        y_label: y.into(),
        lines: lines
            .into_iter()
            .map(|l| Line { points: l.points.into_iter().map(|(t, v)| (t / per_unit, v)).collect(), ..l })
            .collect(),
        y_from_zero: true,
        ..LineChart::default()
    };
    let per_run = |draw: &dyn Fn(&SeriesTable) -> Option<Steps>| -> Vec<Line> {
        with.iter()
            .filter_map(|r| Some(Line { label: r.name.clone(), points: draw(r.series.as_ref()?)?, ..Line::default() }))
            .collect()
    };
    figure(
        h,
        &line_chart(&time_chart("throughput", "MiB/s", per_run(&|s| Some(s.rate(&s.mebibytes()?, bin))))),
        &format!("Host bandwidth: MiB completed per second, averaged over {bins}."),
    );
    figure(
        h,
        &line_chart(&time_chart("IOPS", "requests/s", per_run(&|s| Some(s.rate(&s.requests()?, bin))))),
        &format!("Completed requests per second, averaged over {bins}."),
    );
    let mut latency = Vec::new();
    for r in &with {
        let s = r.series.as_ref().expect("filtered");
        for (op, col, dashed) in [("read", "read_latency_mean_ns", false), ("write", "write_latency_mean_ns", true)] {
            if let (Some(v), Some(n)) = (s.column(col), s.column(&format!("{op}s"))) {
                if n.iter().all(|&c| c == 0.0) {
                    continue;
                }
                let us: Vec<f64> = v.iter().map(|l| l / 1e3).collect();
                latency.push(Line {
                    label: format!("{} {op}", r.name),
                    points: s.binned(&us, &n, bin),
                    dashed,
                    ..Line::default()
                });
            }
        }
    }
    figure(
        h,
        &line_chart(&time_chart("mean latency", "µs", latency)),
        &format!(
            "Mean latency of the requests completed in each bin ({bins}), weighted by request; a gap where none \
             completed."
        ),
    );
    figure(
        h,
        &line_chart(&time_chart("GC activity", "erases/s", per_run(&|s| Some(s.rate(&s.column("erases")?, bin))))),
        &format!("Block erases (all by GC) per second, averaged over {bins}."),
    );
    figure(
        h,
        &line_chart(&time_chart("free blocks", "blocks", per_run(&|s| Some(s.level(&s.column("free_blocks")?, bin))))),
        &format!("Free blocks (sampled at the end of each series interval), averaged by time over {bins}."),
    );
    let mut free_pages = Vec::new();
    for r in &with {
        let s = r.series.as_ref().expect("filtered");
        for (t, values) in s.columns_with("free_pages_") {
            let label = if with.len() > 1 { format!("{} {t}", r.name) } else { t };
            free_pages.push(Line { label, points: s.level(&values, bin), ..Line::default() });
        }
    }
    figure(
        h,
        &line_chart(&time_chart("free pages by page type", "pages", free_pages)),
        &format!("Free pages of each page type (normal-mode blocks), averaged by time over {bins}."),
    );
    let hybrid: Vec<&&ReportRun> = with.iter().filter(|r| is_hybrid(&r.report)).collect();
    if !hybrid.is_empty() {
        let mut ratio = Vec::new();
        let mut slc_free = Vec::new();
        let mut migrated = Vec::new();
        for r in &hybrid {
            let s = r.series.as_ref().expect("filtered");
            let page = num(&r.report, "device.page_size_bytes");
            if let (Some(slc), Some(bytes), Some(free)) =
                (s.column("slc_user_pages"), s.column("write_bytes"), s.column("slc_free_pages"))
            {
                // The share of host pages that went to SLC, weighted by host pages.
                let host_pages: Vec<f64> =
                    bytes.iter().map(|&b| if b > 0.0 && page > 0.0 { (b / page).ceil() } else { 0.0 }).collect();
                let share: Vec<f64> = slc
                    .iter()
                    .zip(&host_pages)
                    .map(|(&p, &n)| if n > 0.0 { (p / n).min(1.0) } else { f64::NAN })
                    .collect();
                ratio.push(Line {
                    label: r.name.clone(),
                    points: s.binned(&share, &host_pages, bin),
                    ..Line::default()
                });
                slc_free.push(Line { label: r.name.clone(), points: s.level(&free, bin), ..Line::default() });
            }
            if let Some(moved) = s.column("slc_migrated_pages") {
                migrated.push(Line { label: r.name.clone(), points: s.rate(&moved, bin), ..Line::default() });
            }
        }
        figure(
            h,
            &line_chart(&time_chart("SLC hit ratio", "SLC share of written pages", ratio)),
            &format!(
                "User pages programmed into SLC-mode blocks / pages written by the host (host pages from the bytes \
                 written), over {bins}."
            ),
        );
        figure(
            h,
            &line_chart(&time_chart("SLC free pages (migration frees them)", "pages", slc_free)),
            &format!(
                "Free SLC-mode pages (sampled at the end of each series interval), averaged by time over {bins}: \
                 writes use them up, migration and SLC GC free them."
            ),
        );
        if !migrated.is_empty() {
            figure(
                h,
                &line_chart(&time_chart("SLC migration", "pages moved out of SLC per second", migrated)),
                &format!(
                    "Valid pages GC moved out of SLC-mode blocks (migration, or GC of SLC blocks) per second, \
                     averaged over {bins}."
                ),
            );
        }
    }
    h.push_str("</div>\n");
}
