//! `ssdlab compare`: one workload under several config variants, run in parallel on
//! all cores, reported as a table normalised to a baseline variant (as the papers
//! present their results).

use crate::output::{execute_with, json_value, Outcome, RunOptions};
use crate::setup::{prepare, Prepared};
use crate::SetupArgs;
use anyhow::{anyhow, bail, Context, Result};
use std::path::PathBuf;
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

pub fn compare(
    setup: SetupArgs,
    variants: &[String],
    baseline: Option<String>,
    json: Option<PathBuf>,
    serial: bool,
    html: Option<PathBuf>,
) -> Result<()> {
    let variants: Vec<Variant> = variants.iter().map(|v| parse_variant(v)).collect::<Result<_>>()?;
    let (baseline, base_index, prepared) = prepare_variants(&setup, &variants, baseline)?;
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
    let outcomes = run_variants(prepared, serial, |i| RunOptions {
        quiet: true,
        requests: sinks.get(i).and_then(|s| s.lock().expect("no panic holds the lock").take()),
        ..RunOptions::default()
    })?;
    print_table(&variants, &outcomes, base_index);
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
            .map(|((v, o), h)| {
                let series = (o.config.output.series_interval_ns > 0)
                    .then(|| crate::output::series_csv(&o.config, &o.series))
                    .transpose()?
                    .map(|csv| crate::report_html::SeriesTable::from_csv(&csv, &v.name))
                    .transpose()?;
                Ok(crate::report_html::ReportRun {
                    name: v.name.clone(),
                    report: json_value(o, false),
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

/// Checks the variants' names and prepares every variant, so config errors show before
/// any simulation runs. Returns the baseline's name and index and the prepared runs.
pub fn prepare_variants(
    setup: &SetupArgs,
    variants: &[Variant],
    baseline: Option<String>,
) -> Result<(String, usize, Vec<Prepared>)> {
    if variants.is_empty() {
        bail!("--variant: give at least one variant");
    }
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.name == v.name) {
            bail!("--variant: the name '{}' is used twice", v.name);
        }
    }
    let baseline = baseline.unwrap_or_else(|| variants[0].name.clone());
    let base_index = variants
        .iter()
        .position(|v| v.name == baseline)
        .ok_or_else(|| anyhow!("--baseline '{baseline}' is not one of the variants"))?;
    let prepared: Vec<_> = variants
        .iter()
        .map(|v| {
            let mut args = setup.clone();
            args.set.extend(v.overrides.iter().cloned());
            args.quiet = true;
            let p = prepare(&args).map_err(|e| anyhow!("variant '{}': {e:#}", v.name))?;
            crate::setup::check_memory(&p.config, false, args.max_memory.as_deref())
                .map_err(|e| anyhow!("variant '{}': {e:#}", v.name))?;
            Ok(p)
        })
        .collect::<Result<_>>()?;
    Ok((baseline, base_index, prepared))
}

/// Runs prepared variants, in parallel unless `serial`; `options(i)` gives variant i's
/// run options (where its per-request rows go). Results come back in variant order.
pub fn run_variants(
    prepared: Vec<Prepared>,
    serial: bool,
    options: impl Fn(usize) -> RunOptions + Sync,
) -> Result<Vec<Outcome>> {
    if serial {
        prepared.into_iter().enumerate().map(|(i, p)| execute_with(p, options(i))).collect()
    } else {
        run_parallel(prepared, &options)
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
fn run_parallel(prepared: Vec<Prepared>, options: &(impl Fn(usize) -> RunOptions + Sync)) -> Result<Vec<Outcome>> {
    let count = prepared.len();
    let inputs: Vec<Mutex<Option<Prepared>>> = prepared.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let outputs: Vec<Mutex<Option<Result<Outcome>>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    rayon::broadcast(|_| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= count {
            break;
        }
        let p = inputs[i].lock().expect("no panic holds the lock").take().expect("each variant is taken once");
        let outcome = execute_with(p, options(i));
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
        "WAF",
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
