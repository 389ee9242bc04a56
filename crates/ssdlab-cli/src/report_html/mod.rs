//! `ssdlab report RESULT.json… -o report.html`, `run --html` and `compare --html`: one
//! self-contained HTML page (inline CSS and SVG, no script, nothing fetched) with the
//! summary table, each run's configuration (command line, keys that differ from its
//! preset), latency CDFs per operation (runs overlaid), throughput, latency, GC and SLC
//! time series (averaged over time bins: rates by time, so they integrate to their
//! counts however long a folded idle row is), page-type usage and the erase-count
//! distribution. docs/report.md says where each plot's data come from.
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

mod latency;
mod series;

use latency::latency_section;
pub use latency::{collecting_sink, LatencyCollector, LatencyHistograms};
use series::series_section;
pub use series::SeriesTable;

/// Latency histogram buckets per decade (bucket width about 2.3%).
const BUCKETS_PER_DECADE: f64 = 100.0;
/// Bins drawn at most per line over time: a longer run is averaged over wider bins.
const MAX_SERIES_POINTS: usize = 1500;

/// One run in a report.
pub struct ReportRun {
    pub name: String,
    /// The JSON report (`run --json`, one variant of `compare --json`).
    pub report: serde_json::Value,
    pub series: Option<SeriesTable>,
    pub latencies: Option<LatencyHistograms>,
}

/// The runs of one JSON file: a run report, a `compare --json` file (each variant) or a
/// multi-scenario `run --json` file (each scenario).
pub fn runs_of_json(path: &Path) -> Result<Vec<ReportRun>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    // serde_json's own message ("expected value at line 1 column 1") says neither what
    // was expected nor which input: name the file, the place and what `report` reads.
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let what = match e.classify() {
            serde_json::error::Category::Eof => "the JSON ends too early (a file cut short?)",
            serde_json::error::Category::Io => "it cannot be read",
            _ if e.line() == 1 && e.column() <= 1 => "it is not JSON",
            _ => "it is not valid JSON",
        };
        let detail = e.to_string();
        let detail = detail.split(" at line ").next().unwrap_or(&detail).to_string();
        anyhow!(
            "{}:{}:{}: {what} ({detail}); `ssdlab report` reads the JSON reports of `ssdlab run --json FILE` and \
             `ssdlab compare --json FILE`",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
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

/// A report for the page of the command running now (`run --html`, `compare --html`):
/// with this process's command line, which the JSON leaves out without the wall clock.
pub fn with_command_line(mut report: serde_json::Value) -> serde_json::Value {
    if let Some(map) = report.as_object_mut() {
        map.entry("command_line").or_insert_with(|| std::env::args().collect::<Vec<_>>().into());
    }
    report
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

/// `v` with `digits` significant digits (no exponent): 0.06986, 45.30, 123457.
fn significant(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i64;
    let decimals = (digits as i64 - 1 - magnitude).max(0) as usize;
    format!("{v:.decimals$}")
}

const CSS: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1340px;color:#222}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
th:first-child,td:first-child{text-align:left}.plots{display:flex;flex-wrap:wrap;gap:12px}\
figure{margin:0}figcaption{font-size:.85em;color:#555;max-width:640px}.note{color:#555;font-size:.9em}\
.warning{color:#a40}td.set{font-weight:bold}code{font-size:.9em;overflow-wrap:anywhere}";

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
    configuration_section(&mut h, runs);
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

/// How the summary shows a number.
#[derive(Clone, Copy)]
enum Shown {
    /// This many decimals.
    Fixed(usize),
    /// Four significant digits.
    Sig,
}

fn summary_table(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Summary</h2>\n<table><tr><th>metric</th>");
    for r in runs {
        let _ = write!(h, "<th>{}</th>", escape(&r.name));
    }
    h.push_str("</tr>\n");
    // Rates, times, latencies and energy with four significant digits (an idle trace's 0.07 IOPS
    // is not "0.0"); counts whole; ratios and seconds with fixed decimals.
    use Shown::{Fixed, Sig};
    let rows: &[(&str, &str, f64, Shown)] = &[
        ("requests", "host.requests", 1.0, Fixed(0)),
        ("simulated time (s)", "simulated_ns", 1e-9, Sig),
        ("IOPS", "all.iops", 1.0, Sig),
        ("bandwidth (MiB/s)", "all.bandwidth_mib_s", 1.0, Sig),
        ("read mean (µs)", "read.latency_ns.mean", 1e-3, Sig),
        ("read p99 (µs)", "read.latency_ns.p99", 1e-3, Sig),
        ("write mean (µs)", "write.latency_ns.mean", 1e-3, Sig),
        ("write p99 (µs)", "write.latency_ns.p99", 1e-3, Sig),
        ("write p99.9 (µs)", "write.latency_ns.p999", 1e-3, Sig),
        ("WAF (bytes)", "waf", 1.0, Fixed(3)),
        ("WAF (page programs)", "waf_pages", 1.0, Fixed(3)),
        ("GC victims", "gc.victims", 1.0, Fixed(0)),
        ("GC pages moved", "gc.moved_pages", 1.0, Fixed(0)),
        ("erases", "gc.erases", 1.0, Fixed(0)),
        ("erase count max", "erase_counts.max", 1.0, Fixed(0)),
        ("SLC hit ratio", "flash.slc_hit_ratio", 1.0, Fixed(3)),
        ("energy (J)", "energy_nj.total", 1e-9, Sig),
    ];
    for (label, path, scale, digits) in rows {
        let _ = write!(h, "<tr><td>{label}</td>");
        for r in runs {
            let v = num(&r.report, path) * scale;
            let _ = write!(
                h,
                "<td>{}</td>",
                match digits {
                    Fixed(d) => fmt(v, *d),
                    Sig => significant(v, 4),
                }
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// A config as dotted keys and their values.
type Flat = BTreeMap<String, serde_json::Value>;

/// A JSON value flattened to dotted keys (arrays and scalars are leaves).
fn flatten(value: &serde_json::Value, prefix: &str, out: &mut Flat) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(v, &key, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

/// A config value as the table shows it: strings bare, the rest as JSON.
fn value_text(v: Option<&serde_json::Value>) -> String {
    match v {
        None => "–".into(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// What a run's config is compared with: the preset it names (`config.name`, shown as
/// `device.preset`), else ssdlab's defaults. (label, flattened config).
fn config_base(report: &serde_json::Value) -> (String, Flat) {
    let name = text(report, "device.preset");
    let (label, config) = match ssdlab_core::presets::preset(&name) {
        Ok(config) => (format!("preset {name}"), config),
        Err(_) => (format!("ssdlab's defaults ('{name}' is not a preset)"), ssdlab_core::Config::default()),
    };
    let mut flat = BTreeMap::new();
    flatten(&serde_json::to_value(config).expect("a config serialises"), "", &mut flat);
    (label, flat)
}

/// A command line as one shell line (arguments with spaces or quotes single-quoted), the
/// program by its file name.
fn command_text(report: &serde_json::Value) -> Option<String> {
    let args = get(report, "command_line")?.as_array()?;
    let words: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let a = a.as_str().unwrap_or("");
            let a = if k == 0 { Path::new(a).file_name().map_or(a.into(), |f| f.to_string_lossy()) } else { a.into() };
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_=./:,+@%^".contains(c)) {
                a.into_owned()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect();
    Some(words.join(" "))
}

/// How each run was configured: its command line (when the report has one) and the
/// config keys that differ from its preset (or ssdlab's defaults), one column per run.
fn configuration_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Configuration</h2>\n");
    let commands: Vec<Option<String>> = runs.iter().map(|r| command_text(&r.report)).collect();
    if commands.iter().all(Option::is_none) {
        h.push_str(
            "<p class=\"note\">Command line: not recorded (the JSON has no <code>command_line</code>: it was \
             written with <code>--no-wall-clock</code> or by <code>compare --json</code>).</p>\n",
        );
    } else if runs.len() > 1 && commands.windows(2).all(|w| w[0] == w[1]) {
        let _ = writeln!(h, "<p>Command line: <code>{}</code></p>", escape(commands[0].as_deref().unwrap_or("")));
    } else {
        h.push_str("<ul>");
        for (r, c) in runs.iter().zip(&commands) {
            let c = c.as_deref().map_or("not recorded".to_string(), |c| format!("<code>{}</code>", escape(c)));
            let _ = write!(h, "<li><b>{}</b>: {c}</li>", escape(&r.name));
        }
        h.push_str("</ul>\n");
    }
    // Runs on the same base share a table.
    // (base label, base config, its runs with their configs)
    type Members<'a> = Vec<(&'a ReportRun, Flat)>;
    let mut tables: Vec<(String, Flat, Members)> = Vec::new();
    for r in runs {
        let Some(config) = get(&r.report, "config").filter(|c| c.is_object()) else {
            let _ = writeln!(h, "<p class=\"note\">{}: the report has no <code>config</code>.</p>", escape(&r.name));
            continue;
        };
        let mut flat = BTreeMap::new();
        flatten(config, "", &mut flat);
        let (label, base) = config_base(&r.report);
        match tables.iter_mut().find(|t| t.0 == label) {
            Some(t) => t.2.push((r, flat)),
            None => tables.push((label, base, vec![(r, flat)])),
        }
    }
    for (label, base, members) in &tables {
        let keys: Vec<&String> = members
            .iter()
            .flat_map(|(_, flat)| flat.iter().filter(|(k, v)| base.get(*k) != Some(*v)).map(|(k, _)| k))
            .chain(base.keys().filter(|k| members.iter().any(|(_, flat)| !flat.contains_key(*k))))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if keys.is_empty() {
            let names: Vec<&str> = members.iter().map(|(r, _)| r.name.as_str()).collect();
            let _ = writeln!(h, "<p>{}: every key as in {}.</p>", escape(&names.join(", ")), escape(label));
            continue;
        }
        let _ = write!(h, "<table class=\"config\"><tr><th>key</th><th>{}</th>", escape(label));
        for (r, _) in members {
            let _ = write!(h, "<th>{}</th>", escape(&r.name));
        }
        h.push_str("</tr>\n");
        for key in keys {
            let _ = write!(h, "<tr><td>{}</td><td>{}</td>", escape(key), escape(&value_text(base.get(key))));
            for (_, flat) in members {
                let v = flat.get(key);
                let class = if v != base.get(key) { " class=\"set\"" } else { "" };
                let _ = write!(h, "<td{class}>{}</td>", escape(&value_text(v)));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    if !tables.is_empty() {
        h.push_str(
            "<p class=\"note\">Keys whose value differs from the base (bold): <code>--set</code>, a variant's \
             overrides, flags such as <code>--seed</code> or <code>--closed-loop</code>, and what the CLI sets \
             itself (the replay mode and queue depth the workload implies, the series interval of \
             <code>--series</code> / <code>--html</code>, values measured from the trace). The report's <code>config</code> holds every \
             key.</p>\n",
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

/// A run's erase-count histogram: (lower bound, label of the counts it holds, blocks).
/// The core's buckets (docs/json-schema.md, `erase_counts.histogram`): width w =
/// max(⌊(max − min) / 10⌋, 1) from min, the tenth bucket also holding everything above.
fn erase_buckets(report: &serde_json::Value) -> Vec<(u64, String, f64)> {
    let items: Vec<(u64, f64)> = get(report, "erase_counts.histogram")
        .and_then(|v| v.as_array())
        .map(|items| items.iter().filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_f64()?))).collect())
        .unwrap_or_default();
    let (min, max) = (num(report, "erase_counts.min"), num(report, "erase_counts.max"));
    let scheme = (min.is_finite() && max.is_finite() && max >= min).then(|| {
        let (min, max) = (min as u64, max as u64);
        (min, max, ((max - min) / 10).max(1))
    });
    items
        .into_iter()
        .map(|(lower, blocks)| {
            let upper = match scheme {
                Some((min, max, w)) if lower >= min => {
                    if (lower - min) / w >= 9 {
                        max
                    } else {
                        (lower + w - 1).min(max)
                    }
                }
                _ => lower,
            };
            let label = if upper > lower { format!("{lower}–{upper}") } else { lower.to_string() };
            (lower, label, blocks)
        })
        .collect()
}

fn erase_section(h: &mut String, runs: &[ReportRun]) {
    h.push_str("<h2>Erase counts</h2>\n<div class=\"plots\">\n");
    // Runs whose buckets are the same ranges share a chart; others (a different spread of
    // erase counts gives other ranges) get one of their own.
    type Labels = Vec<(u64, String)>;
    let mut charts: Vec<(Labels, Vec<&ReportRun>)> = Vec::new();
    for r in runs {
        let buckets = erase_buckets(&r.report);
        let fits = |labels: &[(u64, String)]| {
            buckets.iter().all(|b| labels.iter().all(|(l, text)| *l != b.0 || *text == b.1))
                && labels.iter().all(|(l, text)| buckets.iter().all(|b| b.0 != *l || b.1 == *text))
        };
        match charts.iter_mut().find(|(labels, _)| fits(labels)) {
            Some((labels, members)) => {
                for b in &buckets {
                    if !labels.iter().any(|(l, _)| *l == b.0) {
                        labels.push((b.0, b.1.clone()));
                    }
                }
                members.push(r);
            }
            None => charts.push((buckets.iter().map(|b| (b.0, b.1.clone())).collect(), vec![r])),
        }
    }
    let several = charts.len() > 1;
    for (mut labels, members) in charts {
        labels.sort();
        let groups = members
            .iter()
            .map(|r| {
                let b = erase_buckets(&r.report);
                (
                    r.name.clone(),
                    labels.iter().map(|(l, _)| b.iter().find(|x| x.0 == *l).map_or(0.0, |x| x.2)).collect(),
                )
            })
            .collect();
        let title = match several {
            true => format!(
                "erase-count distribution: {}",
                members.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")
            ),
            false => "erase-count distribution".into(),
        };
        let chart = BarChart {
            title,
            x_label: "erase count".into(),
            y_label: "blocks".into(),
            categories: labels.into_iter().map(|(_, text)| text).collect(),
            groups,
        };
        figure(
            h,
            &bar_chart(&chart),
            "Blocks by erase count at the end of the run: the report's histogram, ten ranges of equal width from the \
             smallest count to the largest (the last one up to the largest); empty ranges left out.",
        );
    }
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
    use super::series::*;
    use super::*;

    const HEADER: &str = "start_ns,end_ns,reads,writes,read_bytes,write_bytes,read_latency_mean_ns,\
                          write_latency_mean_ns,iops,bandwidth_mib_s,free_blocks,erases,intervals";

    /// A series from (start s, end s, reads, writes, read latency mean ns, free blocks,
    /// erases) rows, as `run --series` writes it (1 s interval).
    fn series(rows: &[(u64, u64, u64, u64, f64, u64, u64)]) -> SeriesTable {
        let mut csv = String::from(HEADER);
        csv.push('\n');
        for &(start, end, reads, writes, latency, free, erases) in rows {
            let seconds = (end - start) as f64;
            let _ = writeln!(
                csv,
                "{},{},{reads},{writes},{},{},{latency:.1},0.0,{:.3},{:.3},{free},{erases},{}",
                start * 1_000_000_000,
                end * 1_000_000_000,
                reads * 4096,
                writes * 4096,
                (reads + writes) as f64 / seconds,
                (reads + writes) as f64 * 4096.0 / seconds / 1048576.0,
                end - start
            );
        }
        SeriesTable::from_csv(csv.as_bytes(), "test").unwrap()
    }

    /// An idle-rich series: 2,000 busy seconds, each followed by a folded idle gap of
    /// 300 s (one row), as a long trace with rare bursts gives.
    fn idle_rich() -> SeriesTable {
        let mut rows = Vec::new();
        let mut t = 0;
        for k in 0..2000u64 {
            rows.push((t, t + 1, 5 + k % 7, 2, 100_000.0 + (k % 3) as f64 * 1e5, 10 + k % 5, k % 4));
            rows.push((t + 1, t + 301, 0, 0, 0.0, 900, 0));
            t += 301;
        }
        rows.push((t, t + 1, 3, 1, 50_000.0, 12, 2));
        series(&rows)
    }

    /// ∫ value dt of step points (pairs of (start, v), (end, v)), in value × s.
    fn integral(points: &[(f64, f64)]) -> f64 {
        points.chunks(2).filter(|p| p[0].1.is_finite()).map(|p| (p[1].0 - p[0].0) * p[0].1).sum()
    }

    fn total(s: &SeriesTable, column: &str) -> f64 {
        s.column(column).unwrap().iter().sum()
    }

    /// Issue 45 item 9: the plotted IOPS integrates over time to the requests completed,
    /// however long the idle rows are.
    #[test]
    fn plotted_iops_integrates_to_the_request_count() {
        let s = idle_rich();
        assert!(s.rows.len() > MAX_SERIES_POINTS, "the rows are binned");
        let requests = total(&s, "reads") + total(&s, "writes");
        let points = plotted(&s, "iops");
        assert!(points.len() / 2 <= MAX_SERIES_POINTS, "{} bins", points.len() / 2);
        let area = integral(&points);
        assert!((area - requests).abs() <= requests * 1e-6, "IOPS integrates to {area}, not {requests} requests");
    }

    /// Issue 45 item 9: erases are drawn per second, integrating to the erases counted.
    #[test]
    fn plotted_erase_rate_integrates_to_the_erases() {
        let s = idle_rich();
        let erases = total(&s, "erases");
        let area = integral(&plotted(&s, "erases"));
        assert!((area - erases).abs() <= erases * 1e-6, "erases integrate to {area}, not {erases}");
    }

    /// A level (free blocks) is averaged by time: its plotted integral is the time
    /// integral of the sampled level; a mean latency by completions.
    #[test]
    fn levels_are_time_weighted_and_latencies_weighted_by_completions() {
        let s = idle_rich();
        let (free, start, end) =
            (s.column("free_blocks").unwrap(), s.column("start_ns").unwrap(), s.column("end_ns").unwrap());
        let expected: f64 = free.iter().zip(start.iter().zip(&end)).map(|(v, (a, b))| v * (b - a) / 1e9).sum();
        let area = integral(&plotted(&s, "free_blocks"));
        assert!((area - expected).abs() <= expected * 1e-6, "free blocks integrate to {area}, not {expected}");
        // Rows alternating 1 read at 100 µs and 9 reads at 200 µs: every bin holds both,
        // so the mean latency of its reads is 190 µs, not 150.
        let rows: Vec<_> = (0..3000u64)
            .map(|k| (k, k + 1, if k % 2 == 0 { 1 } else { 9 }, 0, if k % 2 == 0 { 1e5 } else { 2e5 }, 5, 0))
            .collect();
        let s = series(&rows);
        let points = plotted(&s, "read_latency");
        assert!(points.iter().all(|p| (p.1 - 190.0).abs() < 1e-9), "{:?}", &points[..4]);
    }

    fn minimal_report(extra: serde_json::Value) -> serde_json::Value {
        let mut report = serde_json::json!({
            "schema_version": 1, "ssdlab_version": "test", "device": {"preset": "small-tlc", "cell": "tlc"},
            "host": {"requests": 42252}, "simulated_ns": 604_800_000_000_000u64,
            "all": {"iops": 0.06986, "bandwidth_mib_s": 0.0004321},
            "erase_counts": {"min": 0, "max": 1, "histogram": [[0, 4073], [1, 23]]}
        });
        if let (Some(a), serde_json::Value::Object(b)) = (report.as_object_mut(), extra) {
            a.extend(b);
        }
        report
    }

    /// Issue 45 item 13: a week-long series has its time axis in days and its captions
    /// say how wide a bin is; an idle trace's rates keep their significant digits.
    #[test]
    fn week_long_series_in_days_with_bin_width_and_small_rates_kept() {
        let rows: Vec<_> = (0..7 * 24u64).map(|h| (h * 3600, h * 3600 + 3600, h % 3, 1, 1e5, 9, 0)).collect();
        let run = ReportRun {
            name: "week".into(),
            report: minimal_report(serde_json::json!({})),
            series: Some(series(&rows)),
            latencies: None,
        };
        let page = html(&[run]);
        assert!(page.contains(">simulated time (d)</text>"), "time axis in days");
        assert!(!page.contains(">simulated time (s)</text>"));
        assert!(page.contains("bins of 10 min"), "bin width captioned");
        assert!(page.contains("<td>0.06986</td>"), "IOPS with significant digits");
        assert!(page.contains("<td>0.0004321</td>"), "bandwidth with significant digits");
    }

    /// Issue 45 item 13: erase-count buckets are labelled with the counts they hold.
    #[test]
    fn erase_buckets_are_labelled_as_ranges() {
        let run = |hist: serde_json::Value| ReportRun {
            name: "r".into(),
            report: minimal_report(hist),
            series: None,
            latencies: None,
        };
        let page = html(&[run(serde_json::json!({}))]);
        assert!(page.contains(">0</text>") && page.contains(">1</text>"), "width-1 buckets: one count each");
        assert!(!page.contains("≥"), "no open-ended labels");
        let page = html(&[run(serde_json::json!({
            "erase_counts": {"min": 3, "max": 28, "histogram": [[3, 10], [5, 4], [21, 2]]}
        }))]);
        for label in [">3–4</text>", ">5–6</text>", ">21–28</text>"] {
            assert!(page.contains(label), "{label}");
        }
    }

    /// Issue 45 item 11: the page says how the run was configured: its command line and
    /// the keys that differ from its preset.
    #[test]
    fn page_shows_command_line_and_non_default_keys() {
        let mut config = serde_json::to_value(ssdlab_core::presets::preset("small-tlc").unwrap()).unwrap();
        config["precondition"]["used_fraction"] = serde_json::json!(0.9);
        let report = minimal_report(serde_json::json!({
            "config": config,
            "command_line": ["ssdlab", "run", "--set", "precondition.used_fraction=0.9", "--html", "r.html"]
        }));
        let page = html(&[ReportRun { name: "run".into(), report, series: None, latencies: None }]);
        assert!(page.contains("ssdlab run --set precondition.used_fraction=0.9 --html r.html"), "command line");
        assert!(page.contains("<td>precondition.used_fraction</td>"), "the key set");
        let row = page.split("<td>precondition.used_fraction</td>").nth(1).unwrap().split("</tr>").next().unwrap();
        assert!(row.contains("<td class=\"set\">0.9</td>"), "its value, marked as set: {row}");
        assert!(!page.contains("<td>geometry.channels</td>"), "keys as in the preset are not listed");
    }

    /// What the page draws for a column, as `series_section` draws it.
    fn plotted(s: &SeriesTable, what: &str) -> Vec<(f64, f64)> {
        let bin = bin_width_ns(&[s]).unwrap();
        match what {
            "iops" => s.rate(&s.requests().unwrap(), bin),
            "erases" => s.rate(&s.column("erases").unwrap(), bin),
            "read_latency" => {
                let us: Vec<f64> = s.column("read_latency_mean_ns").unwrap().iter().map(|v| v / 1e3).collect();
                s.binned(&us, &s.column("reads").unwrap(), bin)
            }
            c => s.level(&s.column(c).unwrap(), bin),
        }
    }

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
