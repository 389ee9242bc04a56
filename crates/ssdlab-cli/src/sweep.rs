//! `ssdlab sweep SWEEP.toml` (and `ssdlab.sweep(...)` in Python): a base setup, axes
//! (lists or ranges of any config key, setup flag, workloads, seeds) and repetitions;
//! every point runs once, and the results form one tidy table, one row per run: the
//! point's index, its repetition, the axes' values, a status (and the error of a failed
//! point), then the summary metrics. docs/sweep.md describes the file.
//!
//! The table is the same whatever runs the points (local processes, Dask, Ray) and in
//! whatever order they finish: rows are keyed by run index and written sorted, and each
//! point is a deterministic simulation. A rerun keeps the rows already in the output
//! whose status is `ok` and whose axis values still match, and runs the rest (failed
//! points are retried).

use crate::SetupArgs;
use anyhow::{anyhow, bail, Context, Result};
use clap::{CommandFactory, Parser};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use toml::Spanned;

/// The setup flags as clap parses them (`ssdlab run`'s setup without the program name).
#[derive(Parser)]
#[command(name = "sweep base", no_binary_name = true)]
struct SetupCommand {
    #[command(flatten)]
    setup: SetupArgs,
}

/// Setup keys that name a file: made absolute against the sweep file's folder, so a
/// point runs the same from any working folder (a Dask worker's, a child process's).
const PATH_KEYS: &[&str] = &["trace", "config", "job", "workload", "trace_dir"];

/// Setup keys that say what the workload is: a `workload` axis value replaces them all.
const WORKLOAD_KEYS: &[&str] =
    &["trace", "format", "synthetic", "job", "workload", "scenario", "time_unit", "device", "time_window"];

/// The fixed columns before the axes, and the metric columns after them.
const LEAD_COLUMNS: &[&str] = &["point", "repetition"];
const STATUS_COLUMNS: &[&str] = &["status", "error"];

/// Metric columns: name, JSON path in the report, divisor (ns → µs or s; dividing by a
/// power of ten keeps the printed decimals exact, where multiplying by 1e-3 would not).
const METRICS: &[(&str, &str, f64)] = &[
    ("requests", "host.requests", 1.0),
    ("simulated_s", "simulated_ns", 1e9),
    ("iops", "all.iops", 1.0),
    ("bandwidth_mib_s", "all.bandwidth_mib_s", 1.0),
    ("read_mean_us", "read.latency_ns.mean", 1e3),
    ("read_p50_us", "read.latency_ns.p50", 1e3),
    ("read_p99_us", "read.latency_ns.p99", 1e3),
    ("read_p999_us", "read.latency_ns.p999", 1e3),
    ("write_mean_us", "write.latency_ns.mean", 1e3),
    ("write_p50_us", "write.latency_ns.p50", 1e3),
    ("write_p99_us", "write.latency_ns.p99", 1e3),
    ("write_p999_us", "write.latency_ns.p999", 1e3),
    ("all_mean_us", "all.latency_ns.mean", 1e3),
    ("waf", "waf", 1.0),
    ("waf_pages", "waf_pages", 1.0),
    ("gc_victims", "gc.victims", 1.0),
    ("gc_moved_pages", "gc.moved_pages", 1.0),
    ("gc_erases", "gc.erases", 1.0),
    ("erase_count_mean", "erase_counts.mean", 1.0),
    ("erase_count_max", "erase_counts.max", 1.0),
    ("slc_hit_ratio", "flash.slc_hit_ratio", 1.0),
    ("energy_j", "energy_nj.total", 1e9),
    ("warnings", "warnings", 1.0),
    ("config_hash", "config_hash", 1.0),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    #[serde(default)]
    base: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(default)]
    axis: Vec<Spanned<AxisFile>>,
    repetitions: Option<Spanned<i64>>,
    output: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisFile {
    key: Spanned<String>,
    values: Option<Vec<Spanned<toml::Value>>>,
    range: Option<Spanned<RangeFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeFile {
    from: toml::Value,
    to: toml::Value,
    step: Option<toml::Value>,
}

/// One value of an axis: its label in the table and what it sets.
#[derive(Clone, Debug)]
struct AxisValue {
    label: String,
    /// Setup keys (`seed`, `closed_loop`, a workload's `trace`, …) and their values.
    setup: Vec<(String, toml::Value)>,
    /// Config overrides (`key=value`, as `--set`).
    set: Vec<String>,
}

#[derive(Clone, Debug)]
struct Axis {
    key: String,
    values: Vec<AxisValue>,
}

/// A parsed sweep: checked when parsed, so a bad file fails before any point runs.
#[derive(Clone, Debug)]
pub struct Sweep {
    origin: String,
    base: Vec<(String, toml::Value)>,
    axes: Vec<Axis>,
    repetitions: u32,
    /// `output` of the file, relative to its folder; the command line's `-o` wins.
    pub output: Option<PathBuf>,
}

/// One run of a sweep: a point of the axes' product and a repetition.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub index: usize,
    pub point: usize,
    pub repetition: u32,
    /// The axes' values (labels), in axis order.
    pub labels: Vec<String>,
}

fn line_of(text: &str, span: std::ops::Range<usize>) -> usize {
    text[..span.start.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// A TOML value as a flag's text: strings as they are, the rest in TOML's inline form.
fn value_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Table(t) => {
            let items: Vec<String> = t.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The setup flags clap knows (long names with underscores), for checking keys.
fn setup_keys() -> Vec<String> {
    SetupCommand::command().get_arguments().filter_map(|a| a.get_long()).map(|l| l.replace('-', "_")).collect()
}

/// Replaces `key` in an ordered list of setup keys, or appends it.
fn put(list: &mut Vec<(String, toml::Value)>, key: &str, value: toml::Value) {
    match list.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => list.push((key.to_string(), value)),
    }
}

/// Setup keys as `ssdlab run` flags.
fn argv_of(setup: &[(String, toml::Value)], extra_set: &[String]) -> Result<Vec<String>> {
    let mut argv = Vec::new();
    for (key, value) in setup {
        let flag = format!("--{}", key.replace('_', "-"));
        match (key.as_str(), value) {
            ("set", toml::Value::Table(t)) => {
                for (k, v) in t {
                    argv.push("--set".into());
                    argv.push(format!("{k}={}", value_text(v)));
                }
            }
            ("synthetic", toml::Value::Table(t)) => {
                let items: Vec<String> = t.iter().map(|(k, v)| format!("{k}={}", value_text(v))).collect();
                argv.push(flag);
                argv.push(items.join(","));
            }
            (_, toml::Value::Boolean(true)) => argv.push(flag),
            (_, toml::Value::Boolean(false)) => {}
            (_, toml::Value::Array(items)) => {
                for item in items {
                    argv.push(flag.clone());
                    argv.push(value_text(item));
                }
            }
            (_, toml::Value::Table(_)) => bail!("'{key}' takes a single value, not a table"),
            (_, v) => {
                argv.push(flag);
                argv.push(value_text(v));
            }
        }
    }
    for s in extra_set {
        argv.push("--set".into());
        argv.push(s.clone());
    }
    Ok(argv)
}

fn parse_setup(argv: &[String]) -> Result<SetupArgs> {
    SetupCommand::try_parse_from(argv).map(|c| c.setup).map_err(|e| {
        let text = e.render().to_string();
        anyhow!("{}", text.lines().next().unwrap_or("").trim_start_matches("error: "))
    })
}

/// A range `{ from, to, step }` (inclusive of `to`), of integers or floats.
fn expand_range(range: &RangeFile) -> Result<Vec<toml::Value>> {
    use toml::Value::{Float, Integer};
    match (&range.from, &range.to, range.step.as_ref().unwrap_or(&Integer(1))) {
        (Integer(a), Integer(b), Integer(s)) => {
            if *s <= 0 {
                bail!("range: step must be positive (got {s})");
            }
            if a > b {
                bail!("range: from ({a}) is above to ({b})");
            }
            let n = (b - a) / s + 1;
            if n > 100_000 {
                bail!("range: {n} values is too many (at most 100,000)");
            }
            Ok((0..n).map(|k| Integer(a + k * s)).collect())
        }
        (from, to, step) => {
            let f = |v: &toml::Value| match v {
                Integer(i) => Some(*i as f64),
                Float(x) if x.is_finite() => Some(*x),
                _ => None,
            };
            let (Some(a), Some(b), Some(s)) = (f(from), f(to), f(step)) else {
                bail!("range: from, to and step must be numbers");
            };
            if s <= 0.0 || a > b {
                bail!("range: needs from <= to and a positive step");
            }
            let n = ((b - a) / s + 1e-9).floor() as i64 + 1;
            if n > 100_000 {
                bail!("range: {n} values is too many (at most 100,000)");
            }
            // Each value computed from the start (no accumulated rounding), rounded to 12
            // significant digits so 0.1 steps print as 0.3, not 0.30000000000000004.
            Ok((0..n).map(|k| Float(format!("{:.12e}", a + k as f64 * s).parse().unwrap_or(a))).collect())
        }
    }
}

impl Sweep {
    /// Reads a sweep file; file paths in it are relative to its folder.
    pub fn from_file(path: &Path) -> Result<Sweep> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Sweep::parse(&text, &path.display().to_string(), folder)
    }

    /// Parses a sweep given as TOML text; `origin` names it in errors, `folder` is what
    /// relative paths in it are relative to.
    pub fn parse(text: &str, origin: &str, folder: &Path) -> Result<Sweep> {
        let file: SweepFile = toml::from_str(text).map_err(|e| {
            let message = e.message().to_string();
            match e.span() {
                Some(span) => anyhow!("{origin}:{}: {message}", line_of(text, span)),
                None => anyhow!("{origin}: {message}"),
            }
        })?;
        let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
        let known = setup_keys();
        let at = |span: std::ops::Range<usize>| format!("{origin}:{}", line_of(text, span));
        let absolute = |key: &str, value: toml::Value| -> toml::Value {
            match (PATH_KEYS.contains(&key), &value) {
                (true, toml::Value::String(s)) if !s.is_empty() && s != "-" => {
                    toml::Value::String(folder.join(s).display().to_string())
                }
                _ => value,
            }
        };
        let check_key = |key: &str, where_: &str| -> Result<()> {
            if key == "set" || known.iter().any(|k| k == key) {
                return Ok(());
            }
            let hint = known
                .iter()
                .find(|k| strsim_close(k, key))
                .map(|k| format!(" (did you mean '{k}'?)"))
                .unwrap_or_default();
            bail!("{where_}: unknown setup key '{key}'{hint}; setup keys are the flags of `ssdlab run` with underscores ({}), config keys go in `set` or an axis", known.join(", "))
        };
        let mut base = Vec::new();
        for (key, value) in file.base {
            let where_ = format!("{}: [base]", at(key.span()));
            check_key(key.get_ref(), &where_)?;
            base.push((key.get_ref().clone(), absolute(key.get_ref(), value.into_inner())));
        }
        parse_setup(&argv_of(&base, &[])?).map_err(|e| anyhow!("{origin}: [base]: {e}"))?;
        let repetitions = match file.repetitions {
            None => 1,
            Some(r) => match u32::try_from(*r.get_ref()) {
                Ok(n) if (1..=10_000).contains(&n) => n,
                _ => bail!("{}: repetitions = {}: must be 1 to 10000", at(r.span()), r.get_ref()),
            },
        };
        let mut axes = Vec::new();
        for axis in file.axis {
            let span = axis.span();
            let axis = axis.into_inner();
            let key = axis.key.get_ref().clone();
            let where_ = format!("{}: axis '{key}'", at(axis.key.span()));
            if axes.iter().any(|a: &Axis| a.key == key) {
                bail!("{where_}: this key already has an axis");
            }
            let values: Vec<(toml::Value, String)> = match (axis.values, axis.range) {
                (Some(v), None) => v.into_iter().map(|v| (v.get_ref().clone(), at(v.span()))).collect(),
                (None, Some(r)) => {
                    let where_r = at(r.span());
                    expand_range(r.get_ref())
                        .map_err(|e| anyhow!("{where_r}: axis '{key}': {e}"))?
                        .into_iter()
                        .map(|v| (v, where_r.clone()))
                        .collect()
                }
                _ => bail!("{}: axis '{key}': give either values = [...] or range = {{ from, to, step }}", at(span)),
            };
            if values.is_empty() {
                bail!("{where_}: no values");
            }
            let mut out = Vec::new();
            for (value, place) in values {
                let v = Sweep::axis_value(&key, value, &place, &absolute, &check_key)?;
                // Each value is checked against the base now, not when its point runs.
                let mut setup = base.clone();
                if key == "workload" {
                    setup.retain(|(k, _)| !WORKLOAD_KEYS.contains(&k.as_str()));
                }
                for (k, v) in &v.setup {
                    put(&mut setup, k, v.clone());
                }
                parse_setup(&argv_of(&setup, &v.set)?).map_err(|e| anyhow!("{place}: axis '{key}': {e}"))?;
                // (A [[flows]] entry's key needs the config's flows: checked when its point runs.)
                if !v.set.is_empty() && !key.starts_with("flows.") {
                    crate::setup::apply_set(ssdlab_core::Config::default(), &v.set)
                        .map_err(|e| anyhow!("{place}: axis '{key}': {e:#}"))?;
                }
                if out.iter().any(|o: &AxisValue| o.label == v.label) {
                    bail!("{place}: axis '{key}': the value '{}' appears twice", v.label);
                }
                out.push(v);
            }
            axes.push(Axis { key, values: out });
        }
        let sweep = Sweep { origin: origin.to_string(), base, axes, repetitions, output: None };
        if sweep.len() > 1_000_000 {
            bail!("{origin}: {} runs is too many (at most 1,000,000)", sweep.len());
        }
        let output = file.output.map(|o| folder.join(o));
        Ok(Sweep { output, ..sweep })
    }

    fn axis_value(
        key: &str,
        value: toml::Value,
        place: &str,
        absolute: &dyn Fn(&str, toml::Value) -> toml::Value,
        check_key: &dyn Fn(&str, &str) -> Result<()>,
    ) -> Result<AxisValue> {
        if key.contains('.') {
            if matches!(value, toml::Value::Table(_)) {
                bail!("{place}: axis '{key}': a config value cannot be a table");
            }
            let label = value_text(&value);
            return Ok(AxisValue { label: label.clone(), setup: vec![], set: vec![format!("{key}={label}")] });
        }
        if key == "workload" {
            let toml::Value::Table(table) = value else {
                bail!("{place}: axis 'workload': each value is a table with a name and setup keys, e.g. {{ name = \"fin\", trace = \"fin.trace\", format = \"spc\" }}")
            };
            let name = match table.get("name") {
                Some(toml::Value::String(s)) if !s.is_empty() => s.clone(),
                _ => bail!("{place}: axis 'workload': a value needs name = \"...\" (its label in the table)"),
            };
            let mut setup = Vec::new();
            for (k, v) in table {
                if k == "name" {
                    continue;
                }
                check_key(&k, &format!("{place}: axis 'workload' value '{name}'"))?;
                setup.push((k.clone(), absolute(&k, v)));
            }
            return Ok(AxisValue { label: name, setup, set: vec![] });
        }
        check_key(key, &format!("{place}: axis '{key}'"))?;
        if key == "set" {
            bail!("{place}: axis 'set': name the config key instead (key = \"ftl.gc_victim\")");
        }
        Ok(AxisValue { label: value_text(&value), setup: vec![(key.to_string(), absolute(key, value))], set: vec![] })
    }

    /// Runs in the sweep: points × repetitions.
    pub fn len(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product::<usize>() * self.repetitions as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The table's columns.
    pub fn header(&self) -> Vec<String> {
        LEAD_COLUMNS
            .iter()
            .map(|s| s.to_string())
            .chain(self.axes.iter().map(|a| a.key.clone()))
            .chain(STATUS_COLUMNS.iter().map(|s| s.to_string()))
            .chain(METRICS.iter().map(|m| m.0.to_string()))
            .collect()
    }

    /// The run index of a point's repetition, when the sweep has it.
    pub fn index_of(&self, point: usize, repetition: usize) -> Option<usize> {
        let reps = self.repetitions as usize;
        let index = point.checked_mul(reps)?.checked_add(repetition)?;
        (repetition < reps && index < self.len()).then_some(index)
    }

    /// Run `index`: the first axis varies slowest, repetitions fastest.
    pub fn run_spec(&self, index: usize) -> RunSpec {
        let reps = self.repetitions as usize;
        let (point, repetition) = (index / reps, (index % reps) as u32);
        let mut rest = point;
        let mut picks = vec![0; self.axes.len()];
        for (i, axis) in self.axes.iter().enumerate().rev() {
            picks[i] = rest % axis.values.len();
            rest /= axis.values.len();
        }
        let labels = self.axes.iter().zip(&picks).map(|(a, &k)| a.values[k].label.clone()).collect();
        RunSpec { index, point, repetition, labels }
    }

    /// The `ssdlab run` setup of run `index` (a repetition shifts the seeds in `run_point`).
    pub fn setup_args(&self, index: usize) -> Result<SetupArgs> {
        let spec = self.run_spec(index);
        let mut setup = self.base.clone();
        let mut set = Vec::new();
        for (axis, label) in self.axes.iter().zip(&spec.labels) {
            let v = axis.values.iter().find(|v| &v.label == label).expect("label of this axis");
            if axis.key == "workload" {
                setup.retain(|(k, _)| !WORKLOAD_KEYS.contains(&k.as_str()));
            }
            for (k, value) in &v.setup {
                put(&mut setup, k, value.clone());
            }
            set.extend(v.set.iter().cloned());
        }
        let mut args = parse_setup(&argv_of(&setup, &set)?)?;
        args.quiet = true;
        Ok(args)
    }

    /// Runs one point in this process and returns its row; a failure (an error or a
    /// panic of the simulation) is a row with status `error`, never an `Err`.
    pub fn run_point(&self, index: usize) -> Vec<String> {
        self.run_point_warned(index).0
    }

    /// As [`Sweep::run_point`], with the run's warnings (the row only counts them).
    pub fn run_point_warned(&self, index: usize) -> (Vec<String>, Vec<String>) {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.simulate(index)));
        crate::setup::remove_spills();
        let warnings = match &outcome {
            Ok(Ok(report)) => report["warnings"]
                .as_array()
                .map(|w| w.iter().filter_map(|t| t.as_str().map(String::from)).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let row = match outcome {
            Ok(Ok(report)) => self.row(index, Ok(&report)),
            Ok(Err(e)) => self.row(index, Err(&format!("{e:#}"))),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                self.row(index, Err(&format!("the simulation panicked: {message}")))
            }
        };
        (row, warnings)
    }

    fn simulate(&self, index: usize) -> Result<serde_json::Value> {
        if index >= self.len() {
            bail!("run {index} is beyond the sweep's {} runs", self.len());
        }
        let args = self.setup_args(index)?;
        let spec = self.run_spec(index);
        let options = crate::session::PlanOptions { quiet: true, ..Default::default() };
        let mut plan = crate::session::plan(&args, &options)?;
        if spec.repetition > 0 {
            // A repetition is the same point under other seeds: the root seed and a
            // synthetic workload's seed move on by the repetition number.
            let r = u64::from(spec.repetition);
            let config = &mut plan.prepared.config;
            config.seed = config.seed.wrapping_add(r);
            if let crate::setup::Workload::Synthetic(s) = &mut plan.prepared.workload {
                s.seed = s.seed.wrapping_add(r);
            }
        }
        let outcome = crate::session::execute(plan, crate::output::RunOptions { quiet: true, ..Default::default() })?;
        Ok(crate::output::json_value(&outcome, false))
    }

    /// The row of run `index`: its report's metrics, or its error.
    pub fn row(&self, index: usize, result: std::result::Result<&serde_json::Value, &str>) -> Vec<String> {
        let spec = self.run_spec(index);
        let mut row = vec![spec.point.to_string(), spec.repetition.to_string()];
        row.extend(spec.labels);
        match result {
            Ok(report) => {
                row.push("ok".into());
                row.push(String::new());
                row.extend(METRICS.iter().map(|(_, path, divisor)| metric(report, path, *divisor)));
            }
            Err(e) => {
                row.push("error".into());
                // One line: the table stays readable in a terminal.
                row.push(e.replace('\n', " | "));
                row.extend(METRICS.iter().map(|_| String::new()));
            }
        }
        row
    }
}

/// Two keys a letter or two apart (a misspelt key).
fn strsim_close(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            current.push((previous[j] + cost).min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()] <= 2
}

fn metric(report: &serde_json::Value, path: &str, divisor: f64) -> String {
    let mut v = report;
    for part in path.split('.') {
        match v.get(part) {
            Some(next) => v = next,
            None => return String::new(),
        }
    }
    match v {
        serde_json::Value::Array(items) => items.len().to_string(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) if divisor == 1.0 => n.to_string(),
        serde_json::Value::Number(n) => format!("{}", n.as_f64().unwrap_or(0.0) / divisor),
        other => other.to_string(),
    }
}

/// The rows already in `output` that a rerun keeps: status `ok`, a run of this sweep,
/// with the same axis values. A file with other columns is refused (another sweep's).
pub fn resume(sweep: &Sweep, output: &Path) -> Result<BTreeMap<usize, Vec<String>>> {
    let mut kept = BTreeMap::new();
    if !output.exists() {
        return Ok(kept);
    }
    let name = output.display();
    let mut reader =
        csv::ReaderBuilder::new().flexible(true).from_path(output).with_context(|| format!("cannot read {name}"))?;
    let header: Vec<String> =
        reader.headers().with_context(|| format!("{name}: no header"))?.iter().map(String::from).collect();
    if header.is_empty() {
        return Ok(kept);
    }
    if header != sweep.header() {
        bail!(
            "{name}: its columns ({}) are not this sweep's ({}): it holds another sweep; remove it or write elsewhere (-o)",
            header.join(","),
            sweep.header().join(",")
        );
    }
    let axes = sweep.axes.len();
    let status_at = LEAD_COLUMNS.len() + axes;
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let Ok(record) = record else { continue };
        // A row cut short (the run was killed while writing) is run again.
        if record.len() != header.len() || &record[status_at] != "ok" {
            continue;
        }
        let (Ok(point), Ok(repetition)) = (record[0].parse::<usize>(), record[1].parse::<u32>()) else {
            bail!("{name}:{line}: point '{}' / repetition '{}' are not numbers", &record[0], &record[1]);
        };
        let Some(index) = sweep.index_of(point, repetition as usize) else {
            continue; // the sweep shrank: not one of its runs any more
        };
        let spec = sweep.run_spec(index);
        let labels: Vec<&str> = (0..axes).map(|k| &record[LEAD_COLUMNS.len() + k]).collect();
        if labels != spec.labels.iter().map(String::as_str).collect::<Vec<_>>() {
            bail!(
                "{name}:{line}: point {point} has {} here but {} in {}: the sweep changed; remove the file or write elsewhere (-o)",
                labels.join(", "),
                spec.labels.join(", "),
                sweep.origin
            );
        }
        kept.insert(index, record.iter().map(String::from).collect());
    }
    Ok(kept)
}

/// The table as CSV text, rows in run order.
pub fn csv_text(header: &[String], rows: &BTreeMap<usize, Vec<String>>) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)?;
    for row in rows.values() {
        w.write_record(row)?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow!("{}", e.error()))?;
    Ok(String::from_utf8(bytes)?)
}

/// Writes the whole table (through a temporary file, so a reader never sees half).
pub fn write_table(path: &Path, header: &[String], rows: &BTreeMap<usize, Vec<String>>) -> Result<()> {
    let text = csv_text(header, rows)?;
    let tmp = path.with_extension("csv.partial");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// Appends one row to the table as its run finishes (the order is fixed at the end).
pub fn append_row(path: &Path, row: &[String]) -> Result<()> {
    use std::io::Write;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(row)?;
    let bytes = w.into_inner().map_err(|e| anyhow!("{}", e.error()))?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(|| format!("cannot append to {}", path.display()))?;
    file.write_all(&bytes).with_context(|| format!("cannot append to {}", path.display()))
}

/// What a sweep did.
pub struct SweepOutcome {
    /// The final table as CSV.
    pub csv: String,
    pub runs: usize,
    /// Runs taken from the output of an earlier sweep.
    pub kept: usize,
    pub failed: usize,
    /// The warnings of the runs this sweep ran, each distinct one once with the indices
    /// of the runs it came from (in run order).
    pub warnings: Vec<(String, Vec<String>)>,
}

/// Runs every run of the sweep not already in `output` with `runner` (on `jobs`
/// threads), writing each row to `output` as it finishes and the sorted table at the end.
/// With `progress`, a line on stderr per finished run.
pub fn run_with(
    sweep: &Sweep,
    output: Option<&Path>,
    jobs: usize,
    progress: bool,
    runner: impl Fn(usize) -> Vec<String> + Sync,
) -> Result<SweepOutcome> {
    run_warned(sweep, output, jobs, progress, |index| (runner(index), Vec::new()))
}

/// As [`run_with`], with a runner that also returns its run's warnings; with `progress`
/// they are printed on stderr at the end, each distinct one once with its runs.
pub fn run_warned(
    sweep: &Sweep,
    output: Option<&Path>,
    jobs: usize,
    progress: bool,
    runner: impl Fn(usize) -> (Vec<String>, Vec<String>) + Sync,
) -> Result<SweepOutcome> {
    let header = sweep.header();
    let kept = match output {
        Some(path) => resume(sweep, path)?,
        None => BTreeMap::new(),
    };
    if let Some(path) = output {
        // The kept rows only: failed runs and cut rows are run again.
        write_table(path, &header, &kept)?;
    }
    let todo: Vec<usize> = (0..sweep.len()).filter(|i| !kept.contains_key(i)).collect();
    let kept_count = kept.len();
    if kept_count > 0 && progress {
        eprintln!(
            "sweep: {kept_count} of {} runs already in the output; running the other {}",
            sweep.len(),
            todo.len()
        );
    }
    let rows = Mutex::new(kept);
    let warnings: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let write_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let started = std::time::Instant::now();
    let status_at = LEAD_COLUMNS.len() + sweep.axes.len();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(todo.len().max(1)) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= todo.len() || crate::interrupted() {
                    break;
                }
                let index = todo[k];
                let (row, warned) = runner(index);
                warnings.lock().expect("no panic holds the lock").extend(warned.into_iter().map(|w| (index, w)));
                if row[status_at] != "ok" {
                    failed.fetch_add(1, Ordering::Relaxed);
                    if progress {
                        eprintln!("sweep: run {index} failed: {}", row[status_at + 1]);
                    }
                }
                let mut rows = rows.lock().expect("no panic holds the lock");
                if let Some(path) = output {
                    if let Err(e) = append_row(path, &row) {
                        write_error.lock().expect("no panic holds the lock").get_or_insert(e);
                    }
                }
                rows.insert(index, row);
                drop(rows);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if !progress {
                    continue;
                }
                eprintln!(
                    "sweep: {n}/{} runs done, {} failed, {:.1} s",
                    todo.len(),
                    failed.load(Ordering::Relaxed),
                    started.elapsed().as_secs_f64()
                );
            });
        }
    });
    if let Some(e) = write_error.into_inner().expect("no panic holds the lock") {
        return Err(e);
    }
    let rows = rows.into_inner().expect("no panic holds the lock");
    if let Some(path) = output {
        write_table(path, &header, &rows)?;
    }
    // In run order, whatever order the runs finished in.
    let mut warned = warnings.into_inner().expect("no panic holds the lock");
    warned.sort_by_key(|(index, _)| *index);
    let warnings = crate::output::merge_warnings(warned.into_iter().map(|(index, w)| (index.to_string(), w)));
    if progress {
        for (text, runs) in &warnings {
            crate::output::print_warning(text, ("run", "runs"), runs);
        }
    }
    Ok(SweepOutcome {
        csv: csv_text(&header, &rows)?,
        runs: rows.len(),
        kept: kept_count,
        failed: failed.into_inner(),
        warnings,
    })
}

/// The local backend of `ssdlab sweep`: each run in a child process (`ssdlab sweep
/// --run-one K`), so a crash or an abort of one run is recorded as its error.
pub fn child_runner<'a>(
    sweep: &'a Sweep,
    file: &'a Path,
    exe: &'a Path,
) -> impl Fn(usize) -> (Vec<String>, Vec<String>) + Sync + 'a {
    move |index| {
        let out = std::process::Command::new(exe)
            .arg("sweep")
            .arg(file)
            .args(["--run-one", &index.to_string()])
            .stdin(std::process::Stdio::null())
            .output();
        // The child prints its run's warnings on stderr, one a line.
        let warnings = match &out {
            Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter_map(|l| l.strip_prefix("warning: ").map(String::from))
                .collect(),
            _ => Vec::new(),
        };
        (child_row(sweep, index, exe, out), warnings)
    }
}

/// The row of a child process's run: what it printed, or its failure.
fn child_row(sweep: &Sweep, index: usize, exe: &Path, out: std::io::Result<std::process::Output>) -> Vec<String> {
    match out {
        Err(e) => sweep.row(index, Err(&format!("cannot start {}: {e}", exe.display()))),
        Ok(out) if out.status.success() => match serde_json::from_slice::<Vec<String>>(&out.stdout) {
            Ok(row) if row.len() == sweep.header().len() => row,
            _ => sweep.row(index, Err("the run's process printed no row")),
        },
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim_start_matches("error: ");
            sweep.row(index, Err(&format!("the run's process exited with {}: {last}", out.status)))
        }
    }
}

/// Rows of a written table whose status is not `ok` (the table a distributed backend wrote).
pub fn failed_rows(output: &Path) -> Result<usize> {
    let name = output.display();
    let mut reader =
        csv::ReaderBuilder::new().flexible(true).from_path(output).with_context(|| format!("cannot read {name}"))?;
    let status_at = reader
        .headers()
        .with_context(|| format!("{name}: no header"))?
        .iter()
        .position(|h| h == "status")
        .ok_or_else(|| anyhow!("{name}: no status column"))?;
    let mut failed = 0;
    for record in reader.records() {
        let record = record.with_context(|| format!("cannot read {name}"))?;
        if record.get(status_at) != Some("ok") {
            failed += 1;
        }
    }
    Ok(failed)
}

/// The folder of a path, for sweep files given on the command line.
pub fn default_output(file: &Path) -> PathBuf {
    file.with_extension("csv")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of docs/sweep.md parses, with the counts the page states.
    #[test]
    fn the_documented_example_parses() {
        let doc = include_str!("../../../docs/sweep.md");
        let block = doc.split("```toml\n").nth(1).and_then(|b| b.split("```").next()).expect("a toml block");
        let sweep = Sweep::parse(block, "docs/sweep.md", Path::new("/data")).unwrap();
        assert_eq!(sweep.len(), 144);
        assert_eq!(sweep.axes.iter().map(|a| a.values.len()).collect::<Vec<_>>(), [3, 4, 3, 2]);
        assert_eq!(sweep.output.as_deref(), Some(Path::new("/data/gc-sweep.csv")));
        let fractions: Vec<&str> = sweep.axes[1].values.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(fractions, ["0.05", "0.1", "0.15", "0.2"]);
        // Run 0: the first value of every axis, repetition 0; the workload's trace made absolute.
        let args = sweep.setup_args(0).unwrap();
        assert_eq!(args.trace.as_deref(), Some(Path::new("/data/../shared/traces/umass_spc/fin1.trace")));
        assert!(args.synthetic.is_none(), "the workload axis replaces the base's workload");
        assert_eq!(args.seed, Some(1));
        assert!(args.set.contains(&"ftl.gc_victim=greedy".to_string()), "{:?}", args.set);
        let last = sweep.run_spec(143);
        assert_eq!((last.point, last.repetition), (71, 1));
        assert_eq!(last.labels, ["fifo", "0.2", "3", "random"]);
    }
}
