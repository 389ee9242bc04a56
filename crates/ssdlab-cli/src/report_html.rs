//! `ssdlab report RESULT.json… -o report.html`, `run --html` and `compare --html`: one
//! self-contained HTML page (inline CSS and SVG, no script, nothing fetched) with the
//! summary table, latency CDFs per operation (runs overlaid), throughput, latency, GC
//! and SLC time series, page-type usage and the erase-count distribution. docs/report.md
//! says where each plot's data come from.
//!
//! A run's data: its JSON report (always), its time series (the `--series` CSV; `run
//! --html` keeps it) and its per-request latencies (from the `--requests` CSV, or
//! gathered during `run --html` / `compare --html` without keeping the rows). Without
//! per-request latencies the CDF is drawn through the report's percentiles.

use crate::plot::{bar_chart, escape, line_chart, BarChart, Line, LineChart};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Latency histogram buckets per decade (bucket width about 2.3%).
const BUCKETS_PER_DECADE: f64 = 100.0;
/// Time-series rows drawn at most per line (longer series are averaged in groups).
const MAX_SERIES_POINTS: usize = 1500;

/// One run in a report.
pub struct ReportRun {
    pub name: String,
    /// The JSON report (`run --json`, one variant of `compare --json`).
    pub report: serde_json::Value,
    pub series: Option<SeriesTable>,
    pub latencies: Option<LatencyHistograms>,
}

/// A time-series CSV (`--series`), columns by name.
pub struct SeriesTable {
    columns: Vec<String>,
    rows: Vec<Vec<f64>>,
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

    fn column(&self, name: &str) -> Option<Vec<f64>> {
        let k = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| r.get(k).copied().unwrap_or(f64::NAN)).collect())
    }

    /// Columns whose names start with `prefix`, with the rest of the name.
    fn columns_with(&self, prefix: &str) -> Vec<(String, Vec<f64>)> {
        self.columns
            .iter()
            .filter_map(|c| c.strip_prefix(prefix).map(|rest| (rest.to_string(), self.column(c).unwrap_or_default())))
            .collect()
    }

    /// (time in s, value) as steps: each row holds from its start to its end.
    fn steps(&self, values: &[f64]) -> Vec<(f64, f64)> {
        let (Some(start), Some(end)) = (self.column("start_ns"), self.column("end_ns")) else { return vec![] };
        let group = values.len().div_ceil(MAX_SERIES_POINTS).max(1);
        let mut points = Vec::new();
        for k in (0..values.len()).step_by(group) {
            let last = (k + group).min(values.len()) - 1;
            let chunk = &values[k..=last];
            let finite: Vec<f64> = chunk.iter().copied().filter(|v| v.is_finite()).collect();
            let v = if finite.is_empty() { f64::NAN } else { finite.iter().sum::<f64>() / finite.len() as f64 };
            points.push((start[k] / 1e9, v));
            points.push((end[last] / 1e9, v));
        }
        points
    }
}

/// Request latencies by operation, in log-spaced buckets (1 ns to 10^14 ns).
#[derive(Clone, Default)]
pub struct LatencyHistograms {
    by_op: BTreeMap<String, BTreeMap<u32, u64>>,
}

impl LatencyHistograms {
    pub fn record(&mut self, op: &str, latency_ns: u64) {
        let bucket = ((latency_ns.max(1) as f64).log10() * BUCKETS_PER_DECADE).floor() as u32;
        *self.by_op.entry(op.to_string()).or_default().entry(bucket).or_default() += 1;
    }

    /// The CDF of one operation: (latency in µs at the bucket's upper end, fraction).
    fn cdf(&self, op: &str) -> Vec<(f64, f64)> {
        let Some(buckets) = self.by_op.get(op) else { return vec![] };
        let total: u64 = buckets.values().sum();
        let mut seen = 0;
        let mut points = Vec::new();
        for (&b, &n) in buckets {
            if points.is_empty() {
                points.push((10f64.powf(b as f64 / BUCKETS_PER_DECADE) / 1e3, 0.0));
            }
            seen += n;
            points.push((10f64.powf((b + 1) as f64 / BUCKETS_PER_DECADE) / 1e3, seen as f64 / total as f64));
        }
        points
    }

    /// Reads a per-request CSV (`--requests`).
    pub fn from_requests_csv(reader: impl std::io::Read, origin: &str) -> Result<LatencyHistograms> {
        let mut csv = csv::Reader::from_reader(reader);
        let header = csv.headers().with_context(|| format!("{origin}: no header"))?.clone();
        let (Some(op), Some(latency)) =
            (header.iter().position(|c| c == "op"), header.iter().position(|c| c == "latency_ns"))
        else {
            bail!("{origin}: no columns 'op' and 'latency_ns': not a file written by `ssdlab run --requests`");
        };
        let mut h = LatencyHistograms::default();
        for (i, record) in csv.records().enumerate() {
            let record = record.with_context(|| format!("{origin}:{}", i + 2))?;
            let value = record.get(latency).unwrap_or("");
            let ns = value
                .parse::<u64>()
                .map_err(|_| anyhow!("{origin}:{}: latency_ns '{value}' is not a number", i + 2))?;
            h.record(record.get(op).unwrap_or(""), ns);
        }
        Ok(h)
    }
}

/// A writer for the per-request CSV (a `RequestSink::Writer`) that keeps only the
/// latency histograms, optionally passing the bytes on to another writer (the user's
/// `--requests` file). Rows arrive whole or split anywhere; lines are parsed whole.
pub struct LatencyCollector {
    histograms: Arc<Mutex<LatencyHistograms>>,
    partial: Vec<u8>,
    /// The `op` and `latency_ns` column indices, once the header was read.
    columns: Option<(usize, usize)>,
    pass_on: Option<Box<dyn Write + Send>>,
}

impl LatencyCollector {
    pub fn new(pass_on: Option<Box<dyn Write + Send>>) -> (LatencyCollector, Arc<Mutex<LatencyHistograms>>) {
        let histograms = Arc::new(Mutex::new(LatencyHistograms::default()));
        let collector =
            LatencyCollector { histograms: histograms.clone(), partial: Vec::new(), columns: None, pass_on };
        (collector, histograms)
    }

    fn line(&mut self, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let fields: Vec<&str> = text.trim_end_matches('\r').split(',').collect();
        match self.columns {
            None => {
                let op = fields.iter().position(|f| *f == "op");
                let latency = fields.iter().position(|f| *f == "latency_ns");
                self.columns = Some((op.unwrap_or(usize::MAX), latency.unwrap_or(usize::MAX)));
            }
            Some((op, latency)) => {
                if let (Some(op), Some(Ok(ns))) = (fields.get(op), fields.get(latency).map(|v| v.parse::<u64>())) {
                    self.histograms.lock().expect("no panic holds the lock").record(op, ns);
                }
            }
        }
    }
}

impl Write for LatencyCollector {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(w) = &mut self.pass_on {
            w.write_all(bytes)?;
        }
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            self.line(&line[..line.len() - 1]);
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.pass_on {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

/// A `RequestSink` that gathers latencies for the report and still writes the user's
/// `--requests` output, if any.
pub fn collecting_sink(
    user: Option<crate::output::RequestSink>,
) -> (crate::output::RequestSink, Arc<Mutex<LatencyHistograms>>) {
    use crate::output::RequestSink;
    let pass_on: Option<Box<dyn Write + Send>> = match user {
        None => None,
        Some(RequestSink::File(f)) => Some(Box::new(f)),
        Some(RequestSink::Writer(w)) => Some(w),
        Some(RequestSink::Stdout) => Some(Box::new(StdoutRows)),
    };
    let (collector, histograms) = LatencyCollector::new(pass_on);
    (RequestSink::Writer(Box::new(collector)), histograms)
}

/// Stdout, flushed at each write (as `--requests -` writes it).
struct StdoutRows;

impl Write for StdoutRows {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stdout().flush()
    }
}

/// The runs of one JSON file: a run report, a `compare --json` file (each variant) or a
/// multi-scenario `run --json` file (each scenario).
pub fn runs_of_json(path: &Path) -> Result<Vec<ReportRun>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow!("{}:{}: {e}", path.display(), e.line()))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    let run = |name: String, report: serde_json::Value| -> Result<ReportRun> {
        for key in ["schema_version", "device", "all", "erase_counts"] {
            if report.get(key).is_none() {
                bail!(
                    "{}: run '{name}': no '{key}': not a report written by `ssdlab run --json` or `compare --json`",
                    path.display()
                );
            }
        }
        Ok(ReportRun { name, report, series: None, latencies: None })
    };
    if let Some(variants) = value.get("variants").and_then(|v| v.as_object()) {
        return variants.iter().map(|(name, report)| run(name.clone(), report.clone())).collect();
    }
    if let Some(scenarios) = value.get("scenarios").and_then(|v| v.as_array()) {
        return scenarios
            .iter()
            .enumerate()
            .map(|(k, r)| run(format!("{stem} scenario {}", k + 1), r.clone()))
            .collect();
    }
    Ok(vec![run(stem, value)?])
}

/// `ssdlab report`: JSON files (and optionally each run's series and per-request CSVs,
/// in run order) → an HTML file.
pub fn report_command(inputs: &[PathBuf], series: &[PathBuf], requests: &[PathBuf], out: &Path) -> Result<()> {
    let mut runs = Vec::new();
    for path in inputs {
        runs.extend(runs_of_json(path)?);
    }
    for (flag, files) in [("--series", series), ("--requests", requests)] {
        if !files.is_empty() && files.len() != runs.len() {
            bail!(
                "{flag}: {} files for {} runs ({}): give one per run, in the order of the runs",
                files.len(),
                runs.len(),
                runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")
            );
        }
    }
    for (run, path) in runs.iter_mut().zip(series) {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        run.series = Some(SeriesTable::from_csv(&bytes, &path.display().to_string())?);
    }
    for (run, path) in runs.iter_mut().zip(requests) {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        run.latencies =
            Some(LatencyHistograms::from_requests_csv(std::io::BufReader::new(file), &path.display().to_string())?);
    }
    write_html(out, &html(&runs))
}

pub fn write_html(out: &Path, text: &str) -> Result<()> {
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))
}

fn get<'a>(v: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    path.split('.').try_fold(v, |v, part| v.get(part))
}

fn num(v: &serde_json::Value, path: &str) -> f64 {
    get(v, path).and_then(|x| x.as_f64()).unwrap_or(f64::NAN)
}

fn text(v: &serde_json::Value, path: &str) -> String {
    match get(v, path) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn fmt(v: f64, digits: usize) -> String {
    if v.is_finite() {
        format!("{v:.digits$}")
    } else {
        "–".into()
    }
}

const CSS: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1340px;color:#222}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
th:first-child,td:first-child{text-align:left}.plots{display:flex;flex-wrap:wrap;gap:12px}\
figure{margin:0}figcaption{font-size:.85em;color:#555;max-width:640px}.note{color:#555;font-size:.9em}\
.warning{color:#a40}";

/// The HTML page of some runs.
pub fn html(runs: &[ReportRun]) -> String {
    let mut h = String::new();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    let version = runs.first().map(|r| text(&r.report, "ssdlab_version")).unwrap_or_default();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ssdlab report: {t}</title>\
         <style>{CSS}</style></head><body>\n<h1>ssdlab report: {t}</h1>\n",
        t = escape(&names.join(", "))
    );
    h.push_str("<ul>");
    for r in runs {
        let _ = write!(
            h,
            "<li><b>{}</b>: {} ({}), {}</li>",
            escape(&r.name),
            escape(&text(&r.report, "device.preset")),
            escape(&text(&r.report, "device.cell")),
            escape(&text(&r.report, "workload_description"))
        );
    }
    h.push_str("</ul>\n");
    summary_table(&mut h, runs);
    for r in runs {
        if let Some(list) = get(&r.report, "warnings").and_then(|w| w.as_array()) {
            for w in list {
                let _ = write!(h, "<p class=\"warning\">{}: {}</p>", escape(&r.name), escape(w.as_str().unwrap_or("")));
            }
        }
    }
    latency_section(&mut h, runs);
    series_section(&mut h, runs);
    page_type_section(&mut h, runs);
    erase_section(&mut h, runs);
    hybrid_section(&mut h, runs);
    let _ = write!(
        h,
        "<p class=\"note\">Written by ssdlab {} (<code>ssdlab report</code>; docs/report.md). Self-contained: no \
         script, nothing loaded from the network.</p>\n</body></html>\n",
        escape(&version)
    );
    h
}

fn figure(h: &mut String, svg: &str, caption: &str) {
    let _ = writeln!(h, "<figure>{svg}<figcaption>{}</figcaption></figure>", escape(caption));
}

fn summary_table(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Summary</h2>\n<table><tr><th>metric</th>");
    for r in runs {
        let _ = write!(h, "<th>{}</th>", escape(&r.name));
    }
    h.push_str("</tr>\n");
    let rows: &[(&str, &str, f64, usize)] = &[
        ("requests", "host.requests", 1.0, 0),
        ("simulated time (s)", "simulated_ns", 1e-9, 3),
        ("IOPS", "all.iops", 1.0, 1),
        ("bandwidth (MiB/s)", "all.bandwidth_mib_s", 1.0, 2),
        ("read mean (µs)", "read.latency_ns.mean", 1e-3, 1),
        ("read p99 (µs)", "read.latency_ns.p99", 1e-3, 1),
        ("write mean (µs)", "write.latency_ns.mean", 1e-3, 1),
        ("write p99 (µs)", "write.latency_ns.p99", 1e-3, 1),
        ("write p99.9 (µs)", "write.latency_ns.p999", 1e-3, 1),
        ("WAF", "waf", 1.0, 3),
        ("GC victims", "gc.victims", 1.0, 0),
        ("GC pages moved", "gc.moved_pages", 1.0, 0),
        ("erases", "gc.erases", 1.0, 0),
        ("erase count max", "erase_counts.max", 1.0, 0),
        ("SLC hit ratio", "flash.slc_hit_ratio", 1.0, 3),
        ("energy (J)", "energy_nj.total", 1e-9, 3),
    ];
    for (label, path, scale, digits) in rows {
        let _ = write!(h, "<tr><td>{label}</td>");
        for r in runs {
            let _ = write!(h, "<td>{}</td>", fmt(num(&r.report, path) * scale, *digits));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// Points of the CDF through the report's percentiles (min, p50, p90, p99, p99.9, max).
fn percentile_cdf(report: &serde_json::Value, op: &str) -> Vec<(f64, f64)> {
    [("min", 0.0), ("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("max", 1.0)]
        .iter()
        .map(|(k, f)| (num(report, &format!("{op}.latency_ns.{k}")) / 1e3, *f))
        .collect()
}

fn latency_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Latency CDFs</h2>\n<div class=\"plots\">\n");
    let mut from_percentiles = false;
    for op in ["read", "write", "trim"] {
        if runs.iter().all(|r| num(&r.report, &format!("{op}.requests")).is_nan_or_zero()) {
            continue;
        }
        let mut lines = Vec::new();
        for r in runs {
            if num(&r.report, &format!("{op}.requests")).is_nan_or_zero() {
                continue;
            }
            match &r.latencies {
                Some(l) => lines.push(Line { label: r.name.clone(), points: l.cdf(op), ..Line::default() }),
                None => {
                    from_percentiles = true;
                    lines.push(Line {
                        label: format!("{} (percentiles)", r.name),
                        points: percentile_cdf(&r.report, op),
                        markers: true,
                        ..Line::default()
                    })
                }
            }
        }
        let chart = LineChart {
            title: format!("{op} latency CDF"),
            x_label: "latency (µs, log scale)".into(),
            y_label: "fraction of requests".into(),
            x_log: true,
            lines,
            y_from_zero: true,
        };
        figure(h, &line_chart(&chart), &format!("Cumulative distribution of {op} request latency, runs overlaid."));
    }
    h.push_str("</div>\n");
    if from_percentiles {
        h.push_str(
            "<p class=\"note\">Runs marked (percentiles) are drawn through the report's min, p50, p90, p99, p99.9 \
             and max only; give their per-request CSV (<code>--requests</code>) for the full curve.</p>\n",
        );
    }
}

trait NanOrZero {
    fn is_nan_or_zero(&self) -> bool;
}

impl NanOrZero for f64 {
    fn is_nan_or_zero(&self) -> bool {
        self.is_nan() || *self == 0.0
    }
}

fn series_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Over time</h2>\n");
    let with: Vec<&ReportRun> = runs.iter().filter(|r| r.series.as_ref().is_some_and(|s| !s.rows.is_empty())).collect();
    if with.is_empty() {
        h.push_str(
            "<p class=\"note\">No time series: write one with <code>ssdlab run --series FILE</code> and pass it to \
             <code>ssdlab report --series FILE</code>, or use <code>run --html</code>.</p>\n",
        );
        return;
    }
    h.push_str("<div class=\"plots\">\n");
    let time_chart = |title: &str, y: &str, lines: Vec<Line>| LineChart {
        title: title.into(),
        x_label: "simulated time (s)".into(),
        y_label: y.into(),
        lines,
        y_from_zero: true,
        ..LineChart::default()
    };
    let per_run = |column: &str| -> Vec<Line> {
        with.iter()
            .filter_map(|r| {
                let s = r.series.as_ref()?;
                Some(Line { label: r.name.clone(), points: s.steps(&s.column(column)?), ..Line::default() })
            })
            .collect()
    };
    figure(
        h,
        &line_chart(&time_chart("throughput", "MiB/s", per_run("bandwidth_mib_s"))),
        "Host bandwidth per interval.",
    );
    figure(
        h,
        &line_chart(&time_chart("IOPS", "requests/s", per_run("iops"))),
        "Completed requests per second, per interval.",
    );
    let mut latency = Vec::new();
    for r in &with {
        let s = r.series.as_ref().expect("filtered");
        for (op, col, dashed) in [("read", "read_latency_mean_ns", false), ("write", "write_latency_mean_ns", true)] {
            if let (Some(v), Some(n)) = (s.column(col), s.column(&format!("{op}s"))) {
                if n.iter().all(|&c| c == 0.0) {
                    continue;
                }
                // Intervals without completions of this kind have no mean.
                let us: Vec<f64> = v.iter().zip(&n).map(|(&l, &c)| if c > 0.0 { l / 1e3 } else { f64::NAN }).collect();
                latency.push(Line {
                    label: format!("{} {op}", r.name),
                    points: s.steps(&us),
                    dashed,
                    ..Line::default()
                });
            }
        }
    }
    figure(
        h,
        &line_chart(&time_chart("mean latency", "µs", latency)),
        "Mean latency of the requests completed in each interval.",
    );
    figure(
        h,
        &line_chart(&time_chart("GC activity", "erases per interval", per_run("erases"))),
        "Block erases (all by GC) per interval.",
    );
    figure(
        h,
        &line_chart(&time_chart("free blocks", "blocks", per_run("free_blocks"))),
        "Free blocks at the end of each interval.",
    );
    let mut free_pages = Vec::new();
    for r in &with {
        let s = r.series.as_ref().expect("filtered");
        for (t, values) in s.columns_with("free_pages_") {
            let label = if with.len() > 1 { format!("{} {t}", r.name) } else { t };
            free_pages.push(Line { label, points: s.steps(&values), ..Line::default() });
        }
    }
    figure(
        h,
        &line_chart(&time_chart("free pages by page type", "pages", free_pages)),
        "Free pages of each page type (normal-mode blocks).",
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
                let share: Vec<f64> = slc
                    .iter()
                    .zip(&bytes)
                    .map(|(&p, &b)| if b > 0.0 && page > 0.0 { (p / (b / page).ceil()).min(1.0) } else { f64::NAN })
                    .collect();
                ratio.push(Line { label: r.name.clone(), points: s.steps(&share), ..Line::default() });
                slc_free.push(Line { label: r.name.clone(), points: s.steps(&free), ..Line::default() });
            }
            if let Some(moved) = s.column("slc_migrated_pages") {
                migrated.push(Line { label: r.name.clone(), points: s.steps(&moved), ..Line::default() });
            }
        }
        figure(h, &line_chart(&time_chart("SLC hit ratio", "SLC share of written pages", ratio)), "User pages programmed into SLC-mode blocks / pages written by the host, per interval (host pages from the interval's bytes).");
        figure(
            h,
            &line_chart(&time_chart("SLC free pages (migration frees them)", "pages", slc_free)),
            "Free SLC-mode pages at the end of each interval: writes use them up, migration and SLC GC free them.",
        );
        if !migrated.is_empty() {
            figure(
                h,
                &line_chart(&time_chart("SLC migration", "pages moved out of SLC", migrated)),
                "Valid pages GC moved out of SLC-mode blocks per interval (migration, or GC of SLC blocks).",
            );
        }
    }
    h.push_str("</div>\n");
}

fn is_hybrid(report: &serde_json::Value) -> bool {
    get(report, "hybrid").is_some_and(|v| v.is_object()) || num(report, "flash.slc_programs") > 0.0
}

/// Names of a per-type object (`{"LSB": …, "CSB": …}`) in order, with values.
fn per_type(report: &serde_json::Value, path: &str) -> Vec<(String, f64)> {
    match get(report, path) {
        Some(serde_json::Value::Object(map)) => {
            map.iter().map(|(k, v)| (k.clone(), v.as_f64().unwrap_or(f64::NAN))).collect()
        }
        Some(serde_json::Value::Array(items)) => {
            items.iter().enumerate().map(|(k, v)| (format!("type{k}"), v.as_f64().unwrap_or(f64::NAN))).collect()
        }
        _ => vec![],
    }
}

/// Categories in first-seen order and one value list per run.
fn grouped(
    runs: &[ReportRun],
    each: impl Fn(&ReportRun) -> Vec<(String, f64)>,
) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let data: Vec<(String, Vec<(String, f64)>)> = runs.iter().map(|r| (r.name.clone(), each(r))).collect();
    let mut categories: Vec<String> = Vec::new();
    for (_, items) in &data {
        for (c, _) in items {
            if !categories.contains(c) {
                categories.push(c.clone());
            }
        }
    }
    let groups = data
        .into_iter()
        .map(|(name, items)| {
            let values = categories.iter().map(|c| items.iter().find(|i| &i.0 == c).map_or(0.0, |i| i.1)).collect();
            (name, values)
        })
        .collect();
    (categories, groups)
}

fn page_type_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Page-type usage</h2>\n<div class=\"plots\">\n");
    let (categories, groups) = grouped(runs, |r| per_type(&r.report, "flash.programs_by_page_type"));
    let chart = BarChart {
        title: "page programs by page type".into(),
        x_label: "page type".into(),
        y_label: "pages programmed (user + GC)".into(),
        categories,
        groups,
    };
    figure(h, &bar_chart(&chart), "Programs of each page type; SLC-mode programs count as LSB.");
    let (categories, groups) = grouped(runs, |r| per_type(&r.report, "dominated_write_share"));
    let chart = BarChart {
        title: "write requests by dominant page type".into(),
        x_label: "slowest page type of the request".into(),
        y_label: "share of write requests".into(),
        categories,
        groups,
    };
    figure(h, &bar_chart(&chart), "Share of write requests whose slowest page was of each type.");
    h.push_str("</div>\n");
}

fn erase_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Erase counts</h2>\n<div class=\"plots\">\n");
    let buckets = |r: &ReportRun| -> Vec<(u64, f64)> {
        get(&r.report, "erase_counts.histogram")
            .and_then(|v| v.as_array())
            .map(|items| items.iter().filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_f64()?))).collect())
            .unwrap_or_default()
    };
    let mut lower: Vec<u64> = runs.iter().flat_map(|r| buckets(r).into_iter().map(|b| b.0)).collect();
    lower.sort_unstable();
    lower.dedup();
    let categories: Vec<String> = lower.iter().map(|l| format!("≥{l}")).collect();
    let groups = runs
        .iter()
        .map(|r| {
            let b = buckets(r);
            (r.name.clone(), lower.iter().map(|l| b.iter().find(|x| x.0 == *l).map_or(0.0, |x| x.1)).collect())
        })
        .collect();
    let chart = BarChart {
        title: "erase-count distribution".into(),
        x_label: "erase count (bucket lower bound)".into(),
        y_label: "blocks".into(),
        categories,
        groups,
    };
    figure(h, &bar_chart(&chart), "Blocks by erase count at the end of the run (the report's histogram buckets).");
    h.push_str("</div>\n");
}

fn hybrid_section(h: &mut String, runs: &[ReportRun]) {
    let hybrid: Vec<&ReportRun> =
        runs.iter().filter(|r| get(&r.report, "hybrid").is_some_and(|v| v.is_object())).collect();
    if hybrid.is_empty() {
        return;
    }
    h.push_str("<h2>SLC / hybrid</h2>\n<table><tr><th>metric</th>");
    for r in &hybrid {
        let _ = write!(h, "<th>{}</th>", escape(&r.name));
    }
    h.push_str("</tr>\n");
    for key in [
        "slc_user_pages",
        "tlc_user_pages",
        "slc_hit_ratio",
        "migrated_pages",
        "migration_episodes",
        "slc_blocks_reclaimed",
    ] {
        let _ = write!(h, "<tr><td>{key}</td>");
        for r in &hybrid {
            let v = num(&r.report, &format!("hybrid.{key}"));
            let _ = write!(h, "<td>{}</td>", fmt(v, if key.ends_with("ratio") { 3 } else { 0 }));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collector_reads_rows_split_anywhere() {
        let (mut c, h) = LatencyCollector::new(None);
        let text = b"id,run,op,offset_bytes,size_bytes,arrival_ns,completion_ns,latency_ns,pages,dominant_page_type\n\
                     0,0,read,0,4096,0,1000,1000,1,\n1,0,write,0,4096,0,50000,50000,1,MSB\n";
        for chunk in text.chunks(7) {
            c.write_all(chunk).unwrap();
        }
        let h = h.lock().unwrap();
        assert_eq!(h.by_op["read"].values().sum::<u64>(), 1);
        assert_eq!(h.by_op["write"].values().sum::<u64>(), 1);
        let cdf = h.cdf("write");
        assert_eq!(cdf.last().unwrap().1, 1.0);
        assert!((cdf.last().unwrap().0 - 50.0).abs() < 50.0 * 0.03, "{cdf:?}");
    }
}
