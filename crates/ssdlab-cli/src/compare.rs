//! `ssdlab compare`: one workload under several config variants, run in parallel on
//! all cores, reported as a table normalised to a baseline variant (as the papers
//! present their results).

use crate::output::{create_output, json_value, merge_warnings, print_warning, Outcome, RunOptions};
use crate::session::{self, Plan, PlanOptions};
use crate::{CompareArgs, SetupArgs};
use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A variant: a name and `key=value` overrides on top of the shared setup.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub overrides: Vec<String>,
}

/// Parses `NAME` or `NAME:key=value,key=value` (`--variant`).
pub fn parse_variant(text: &str) -> Result<Variant> {
    let (name, rest) = text.split_once(':').unwrap_or((text, ""));
    if name.is_empty() {
        bail!("--variant '{text}': needs a name, as NAME or NAME:key=value,key=value");
    }
    let overrides = split_overrides(rest)
        .map_err(|e| anyhow!("--variant '{text}': {e}"))?
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    Ok(Variant { name: name.to_string(), overrides })
}

/// Splits `key=value,key=[a,b,c],key="x,y"` at the commas between overrides: commas
/// inside brackets (array values, e.g. per-page-type latencies) or quotes stay.
fn split_overrides(text: &str) -> Result<Vec<&str>> {
    let (mut parts, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None::<char>, 0);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            bail!("unbalanced ']'");
        }
    }
    if depth != 0 || quote.is_some() {
        bail!("unclosed '[' or quote");
    }
    parts.push(&text[start..]);
    Ok(parts)
}

/// `ssdlab compare`: every variant planned (config errors and the trace's pre-pass before
/// any simulation), run, and reported as the normalised table on stdout; the variants'
/// warnings on stderr, each distinct one once with the variants it came from.
pub fn compare(args: CompareArgs) -> Result<()> {
    let CompareArgs { setup, variants, baseline, json, serial, html, series, interval_ms } = args;
    let variants: Vec<Variant> = variants.iter().map(|v| parse_variant(v)).collect::<Result<_>>()?;
    // As `run` plans one run: --interval-ms checked, the series kept only when written.
    let (baseline, base_index, plans) = plan_variants(&setup, &variants, baseline, |i| PlanOptions {
        interval_ms,
        series: series.is_some() || html.is_some(),
        // A note about the config (no series in it) is the same for every variant.
        quiet: i > 0,
        ..PlanOptions::default()
    })?;
    // Every output is opened before the simulations, so a bad path costs nothing.
    let series_paths: Vec<PathBuf> = match &series {
        Some(path) => variants.iter().map(|v| series_path(path, &v.name)).collect(),
        None => Vec::new(),
    };
    let series_files: Vec<Mutex<Option<std::fs::File>>> =
        series_paths.iter().map(|p| Ok(Mutex::new(Some(create_output(p, "time series")?)))).collect::<Result<_>>()?;
    // With --html every variant's latencies are gathered (not its rows) for the CDFs.
    let mut sinks: Vec<Mutex<Option<crate::output::RequestSink>>> = Vec::new();
    let mut histograms = Vec::new();
    if html.is_some() {
        for _ in &variants {
            let (sink, h) = crate::report_html::collecting_sink(None);
            sinks.push(Mutex::new(Some(sink)));
            histograms.push(h);
        }
    }
    let take = |i: usize| series_files.get(i).and_then(|f| f.lock().expect("no panic holds the lock").take());
    // A thread's next variant clears the tables its last one dropped instead of faulting in
    // fresh ones (`ftl/dense.rs`; BENCHMARKS.md: compare-parallel).
    ssdlab_core::ftl::dense::reuse_tables(true);
    let outcomes = run_plans(plans, serial, |i| RunOptions {
        quiet: true,
        requests: sinks.get(i).and_then(|s| s.lock().expect("no panic holds the lock").take()),
        series: take(i).map(|f| Box::new(f) as Box<dyn std::io::Write + Send>),
        ..RunOptions::default()
    })
    .inspect_err(|_| {
        // No half-made files from a comparison that failed.
        for path in &series_paths {
            let _ = std::fs::remove_file(path);
        }
    })?;
    print_table(&variants, &outcomes, base_index);
    print_warnings(&variants, &outcomes);
    if let Some(path) = json {
        let map = compare_json(&baseline, &variants, &outcomes);
        std::fs::write(&path, serde_json::to_string_pretty(&map)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = html {
        let runs = variants
            .iter()
            .zip(&outcomes)
            .zip(&histograms)
            .enumerate()
            .map(|(i, ((v, o), h))| {
                // A series written to its file is read back from it.
                let csv = match series_paths.get(i) {
                    Some(p) => Some(std::fs::read(p).with_context(|| format!("cannot read back {}", p.display()))?),
                    None => (o.config.output.series_interval_ns > 0)
                        .then(|| crate::output::series_csv(&o.config, &o.series))
                        .transpose()?,
                };
                let series = csv.map(|csv| crate::report_html::SeriesTable::from_csv(&csv, &v.name)).transpose()?;
                Ok(crate::report_html::ReportRun {
                    name: v.name.clone(),
                    report: crate::report_html::with_command_line(json_value(o, false)),
                    series,
                    latencies: Some(h.lock().expect("no panic holds the lock").clone()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        crate::report_html::write_html(&path, &crate::report_html::html(&runs))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// `--series s.csv`: variant NAME's series goes to s_NAME.csv (characters a file name
/// should not hold become `_`).
pub fn series_path(path: &Path, variant: &str) -> PathBuf {
    let name: String =
        variant.chars().map(|c| if c.is_alphanumeric() || "-_.+".contains(c) { c } else { '_' }).collect();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let file = match path.extension() {
        Some(ext) => format!("{stem}_{name}.{}", ext.to_string_lossy()),
        None => format!("{stem}_{name}"),
    };
    path.with_file_name(file)
}

/// The variants' warnings on stderr, each distinct one once with the variants it came
/// from (a comparison's table has no room for them, and N copies of one would bury the
/// one that differs).
fn print_warnings(variants: &[Variant], outcomes: &[Outcome]) {
    let all =
        variants.iter().zip(outcomes).flat_map(|(v, o)| o.report.warnings.iter().map(|w| (v.name.clone(), w.clone())));
    for (text, sources) in merge_warnings(all) {
        print_warning(&text, ("", ""), &sources);
    }
}

fn check_names(variants: &[Variant]) -> Result<()> {
    if variants.is_empty() {
        bail!("--variant: give at least one variant");
    }
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.name == v.name) {
            bail!("--variant: the name '{}' is used twice", v.name);
        }
    }
    Ok(())
}

/// The baseline's name (the first variant's unless given) and index.
fn baseline_of(variants: &[Variant], baseline: Option<String>) -> Result<(String, usize)> {
    let baseline = baseline.unwrap_or_else(|| variants[0].name.clone());
    let base_index = variants
        .iter()
        .position(|v| v.name == baseline)
        .ok_or_else(|| anyhow!("--baseline '{baseline}' is not one of the variants"))?;
    Ok((baseline, base_index))
}

/// Checks the variants' names and plans every variant as `ssdlab run` plans a run
/// (`options(i)`: variant i's), so config errors and the trace's pre-pass warnings come
/// before any simulation. Returns the baseline's name and index and the plans.
pub fn plan_variants(
    setup: &SetupArgs,
    variants: &[Variant],
    baseline: Option<String>,
    options: impl Fn(usize) -> PlanOptions,
) -> Result<(String, usize, Vec<Plan>)> {
    check_names(variants)?;
    let (baseline, base_index) = baseline_of(variants, baseline)?;
    let plans = variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut args = setup.clone();
            args.set.extend(v.overrides.iter().cloned());
            args.quiet = true;
            session::plan(&args, &options(i)).map_err(|e| anyhow!("variant '{}': {e:#}", v.name))
        })
        .collect::<Result<_>>()?;
    Ok((baseline, base_index, plans))
}

/// Runs planned variants, in parallel unless `serial`; `options(i)` gives variant i's
/// run options (where its series and per-request rows go). Results in variant order.
pub fn run_plans(plans: Vec<Plan>, serial: bool, options: impl Fn(usize) -> RunOptions + Sync) -> Result<Vec<Outcome>> {
    let run = |i: usize, plan: Plan| session::execute(plan, options(i));
    if serial {
        plans.into_iter().enumerate().map(|(i, p)| run(i, p)).collect()
    } else {
        run_parallel(plans, &run)
    }
}

/// The JSON of `ssdlab compare --json`: the baseline's name and every variant's report
/// (without wall-clock measurements).
pub fn compare_json(baseline: &str, variants: &[Variant], outcomes: &[Outcome]) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    map.insert("baseline".into(), serde_json::Value::String(baseline.to_string()));
    let mut all = serde_json::Map::new();
    for (v, o) in variants.iter().zip(outcomes) {
        all.insert(v.name.clone(), json_value(o, false));
    }
    map.insert("variants".into(), serde_json::Value::Object(all));
    serde_json::Value::Object(map)
}

/// Runs the variants on every thread of the rayon pool (`RAYON_NUM_THREADS`), each thread
/// taking the next variant in order whenever it is free. A parallel iterator would split
/// the list in halves, so two slow variants next to each other (FIFO and random GC after
/// greedy and cost-benefit) would run one after the other on the same thread while the
/// other thread sat idle. Results come back in variant order whatever ran where.
fn run_parallel<T: Send>(inputs: Vec<T>, run: &(impl Fn(usize, T) -> Result<Outcome> + Sync)) -> Result<Vec<Outcome>> {
    let count = inputs.len();
    let inputs: Vec<Mutex<Option<T>>> = inputs.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let outputs: Vec<Mutex<Option<Result<Outcome>>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    rayon::broadcast(|_| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= count {
            break;
        }
        let p = inputs[i].lock().expect("no panic holds the lock").take().expect("each variant is taken once");
        let outcome = run(i, p);
        *outputs[i].lock().expect("no panic holds the lock") = Some(outcome);
    });
    outputs.into_iter().map(|o| o.into_inner().expect("no panic holds the lock").expect("every variant ran")).collect()
}

fn ratio(value: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.3}", value / base)
    } else {
        "-".to_string()
    }
}

fn print_table(variants: &[Variant], outcomes: &[Outcome], base: usize) {
    let b = &outcomes[base].report;
    println!("workload: {}", outcomes[base].workload);
    println!("baseline: {} (normalised columns are variant / baseline)", variants[base].name);
    println!();
    println!(
        "{:<16} {:>12} {:>12} {:>10} {:>10} {:>12} {:>10} {:>8} {:>9} {:>8}",
        "variant",
        "read mean us",
        "write mean us",
        "read norm",
        "write norm",
        "write p99 us",
        "IOPS norm",
        "WAF bytes",
        "erases",
        "MSB-dom"
    );
    for (v, o) in variants.iter().zip(outcomes) {
        let r = &o.report;
        let msb = r.dominated_write_share.last().copied().unwrap_or(0.0);
        println!(
            "{:<16} {:>12.1} {:>12.1} {:>10} {:>10} {:>12.1} {:>10} {:>8.3} {:>9} {:>7.1}%",
            v.name,
            r.read.latency_ns.mean / 1e3,
            r.write.latency_ns.mean / 1e3,
            ratio(r.read.latency_ns.mean, b.read.latency_ns.mean),
            ratio(r.write.latency_ns.mean, b.write.latency_ns.mean),
            r.write.latency_ns.p99 as f64 / 1e3,
            ratio(r.all.iops, b.all.iops),
            r.waf,
            r.gc.erases,
            msb * 100.0
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 17 item 20: array values (per-page-type latencies) in a variant.
    #[test]
    fn variants_take_array_values() {
        let v = parse_variant("slow:flash.program_latency_ns=[500000,2000000,5000000],ftl.gc_victim=fifo").unwrap();
        assert_eq!(v.name, "slow");
        assert_eq!(v.overrides, ["flash.program_latency_ns=[500000,2000000,5000000]", "ftl.gc_victim=fifo"]);
        let v = parse_variant("q:name=\"a,b\"").unwrap();
        assert_eq!(v.overrides, ["name=\"a,b\""]);
        assert!(parse_variant("bad:x=[1,2").is_err());
    }
}
