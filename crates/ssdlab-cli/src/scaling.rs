//! `ssdlab scaling`: the SSD-CDC model of the thesis's Chapter 3 (ssdlab-core's
//! `scaling`) as a calculator: a row per (configuration, fit, feature size) with every
//! metric of Tables 3.2 and 3.3, as a table, markdown, CSV or JSON, and one metric as an
//! SVG line chart. `reproduce ssd-cdc` draws its figures with [`chart`].

use crate::plot::{line_chart, Line, LineChart};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use ssdlab_core::scaling::{
    project, Architecture, Configuration, DieLatency, Fit, Projection, Rate, ScalingError, DEFAULT_FEATURE_SIZES_NM,
};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct ScalingArgs {
    /// Cell configurations (Table 3.2): SLC-1, MLC-1, MLC-2, TLC-3. Default: all four.
    #[arg(long, visible_alias = "cells", value_delimiter = ',')]
    pub configurations: Vec<Configuration>,
    /// Feature sizes, nm. Default: §3.3's sweep from 72 nm down to 6.5 nm
    /// (72,65,50,45,41,34,25,20,16,12,10,8,6.5).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub feature_nm: Vec<f64>,
    /// Which of Table 3.2's fitted trends: min, avg, max (a list gives a row each).
    #[arg(long, value_delimiter = ',', default_value = "avg")]
    pub fit: Vec<Fit>,
    /// Access sizes for the IOPS columns (Fig. 3.8): bytes, or with k / KiB (×1024).
    /// At most one page (4 KiB; TLC-3 8 KiB).
    #[arg(long, value_delimiter = ',', default_value = "512,4k", value_parser = parse_access)]
    pub access: Vec<u64>,
    /// DieLatency in the bandwidth and IOPS equations: `flash` (Table 3.2's trend alone,
    /// the operation on the die) or `flash+overhead` (plus the FTL overhead). The thesis
    /// does not say; docs/scaling.md shows where it matters.
    #[arg(long, default_value = "flash")]
    pub die_latency: DieLatency,
    /// Output: table, markdown, csv or json.
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Also draw one metric as an SVG line chart to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plotted metric: capacity, price, read-latency, write-latency, read-bandwidth,
    /// write-bandwidth, read-iops, write-iops.
    #[arg(long, default_value = "write-latency")]
    pub plot_metric: String,
    /// The plot's x axis: capacity (GB, log, as the thesis's figures) or feature (nm).
    #[arg(long, default_value = "capacity")]
    pub plot_x: String,
    /// Table 3.1: channels.
    #[arg(long, default_value_t = 24)]
    pub channels: u32,
    /// Table 3.1: each channel's bus, MB/s (10^6 bytes/s).
    #[arg(long, default_value_t = 400.0, allow_negative_numbers = true)]
    pub channel_speed_mb_s: f64,
    /// Table 3.1: dies per channel (at least 2).
    #[arg(long, default_value_t = 4)]
    pub dies_per_channel: u32,
    /// Table 3.1: FTL overhead added to every latency, µs.
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    pub ftl_overhead_us: f64,
    /// Table 3.1: the baseline's capacity, GB.
    #[arg(long, default_value_t = 320.0, allow_negative_numbers = true)]
    pub baseline_capacity_gb: f64,
    /// Table 3.1: the baseline's feature size, nm.
    #[arg(long, default_value_t = 34.0, allow_negative_numbers = true)]
    pub baseline_feature_nm: f64,
    /// The baseline's bits per cell (MLC: 2).
    #[arg(long, default_value_t = 2.0, allow_negative_numbers = true)]
    pub baseline_bits_per_cell: f64,
    /// Table 3.1: the SSD's price, constant with a constant die count, US$.
    #[arg(long, default_value_t = 7800.0, allow_negative_numbers = true)]
    pub price_usd: f64,
    /// SLC and MLC page size, bytes (§3.3.3: 4 kB).
    #[arg(long, default_value_t = 4096)]
    pub page_bytes: u64,
    /// TLC page size, bytes (§3.3.3: 8 kB).
    #[arg(long, default_value_t = 8192)]
    pub tlc_page_bytes: u64,
}

fn parse_access(text: &str) -> Result<u64, String> {
    let lower = text.trim().to_ascii_lowercase();
    let (digits, unit) = match lower.strip_suffix("kib").or_else(|| lower.strip_suffix('k')) {
        Some(head) => (head.trim(), 1024),
        None => (lower.strip_suffix('b').unwrap_or(&lower).trim(), 1),
    };
    match digits.parse::<u64>() {
        Ok(n) if n > 0 => n.checked_mul(unit).ok_or_else(|| format!("{text}: too large")),
        _ => {
            Err(format!("{text}: an access size is a positive whole number of bytes, or of KiB with k (e.g. 512, 4k)"))
        }
    }
}

/// What a chart plots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Capacity,
    Price,
    ReadLatency,
    WriteLatency,
    ReadBandwidth,
    WriteBandwidth,
    ReadIops,
    WriteIops,
}

impl Metric {
    pub fn parse(text: &str) -> Result<Metric> {
        Ok(match text {
            "capacity" => Metric::Capacity,
            "price" => Metric::Price,
            "read-latency" => Metric::ReadLatency,
            "write-latency" => Metric::WriteLatency,
            "read-bandwidth" => Metric::ReadBandwidth,
            "write-bandwidth" => Metric::WriteBandwidth,
            "read-iops" => Metric::ReadIops,
            "write-iops" => Metric::WriteIops,
            _ => bail!(
                "--plot-metric {text}: available: capacity, price, read-latency, write-latency, read-bandwidth, \
                 write-bandwidth, read-iops, write-iops"
            ),
        })
    }

    fn label(self) -> &'static str {
        match self {
            Metric::Capacity => "capacity (GB)",
            Metric::Price => "price per GB (US$)",
            Metric::ReadLatency => "read latency (µs)",
            Metric::WriteLatency => "write latency (µs)",
            Metric::ReadBandwidth => "read bandwidth (MB/s)",
            Metric::WriteBandwidth => "write bandwidth (MB/s)",
            Metric::ReadIops => "read IOPS",
            Metric::WriteIops => "write IOPS",
        }
    }

    /// The value of `p`, or for IOPS of `p`'s access size `access` (its index).
    fn value(self, p: &Projection, access: usize) -> f64 {
        match self {
            Metric::Capacity => p.capacity_gb,
            Metric::Price => p.price_per_gb_usd,
            Metric::ReadLatency => p.read_latency_us,
            Metric::WriteLatency => p.write_latency_us,
            Metric::ReadBandwidth => p.read_bandwidth.value,
            Metric::WriteBandwidth => p.write_bandwidth.value,
            Metric::ReadIops => p.iops[access].read.value,
            Metric::WriteIops => p.iops[access].write.value,
        }
    }

    fn per_access(self) -> bool {
        matches!(self, Metric::ReadIops | Metric::WriteIops)
    }
}

/// "512 B", "4 KiB".
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

/// A chart of `metric` over `rows`, a line per (configuration, fit[, access size]),
/// against capacity (log, as the thesis draws Figs. 3.6–3.8) or feature size. Fits other
/// than avg are dashed.
pub fn chart(rows: &[Projection], metric: Metric, x_capacity: bool, title: &str) -> LineChart {
    let mut keys: Vec<(Configuration, Fit)> = Vec::new();
    for p in rows {
        if !keys.contains(&(p.configuration, p.fit)) {
            keys.push((p.configuration, p.fit));
        }
    }
    let fits_differ = keys.iter().any(|k| k.1 != keys[0].1);
    let accesses = rows.first().map_or(0, |p| p.iops.len());
    let mut lines = Vec::new();
    for &(configuration, fit) in &keys {
        for access in 0..if metric.per_access() { accesses } else { 1 } {
            let mut points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|p| (p.configuration, p.fit) == (configuration, fit))
                .map(|p| (if x_capacity { p.capacity_gb } else { p.feature_nm }, metric.value(p, access)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut label = configuration.name().to_string();
            if fits_differ {
                label += &format!(" {}", fit.name());
            }
            if metric.per_access() && accesses > 1 {
                label += &format!(" {}", size_text(rows[0].iops[access].access_bytes));
            }
            lines.push(Line { label, points, markers: true, dashed: fit != Fit::Avg });
        }
    }
    LineChart {
        title: title.to_string(),
        x_label: if x_capacity { "SSD capacity (GB)" } else { "feature size (nm)" }.into(),
        y_label: metric.label().into(),
        x_log: x_capacity,
        lines,
        y_from_zero: true,
    }
}

pub fn architecture(args: &ScalingArgs) -> Architecture {
    Architecture {
        channels: args.channels,
        channel_speed_mb_s: args.channel_speed_mb_s,
        dies_per_channel: args.dies_per_channel,
        ftl_overhead_us: args.ftl_overhead_us,
        baseline_capacity_gb: args.baseline_capacity_gb,
        baseline_feature_nm: args.baseline_feature_nm,
        baseline_bits_per_cell: args.baseline_bits_per_cell,
        price_usd: args.price_usd,
        page_bytes: args.page_bytes,
        tlc_page_bytes: args.tlc_page_bytes,
    }
}

/// A model error in the calculator's terms: a parameter by its flag.
fn flag_error(e: ScalingError) -> anyhow::Error {
    match e {
        ScalingError::Parameter { name, value, why } if name != "access size" => {
            anyhow!("--{} {value}: {why}", name.replace('_', "-"))
        }
        ScalingError::FeatureSize(_) => anyhow!("--feature-nm: {e}"),
        other => anyhow!("{other}"),
    }
}

/// Every row the arguments ask for: configuration, then fit, then feature size in the
/// order given.
pub fn projections(
    arch: &Architecture,
    configurations: &[Configuration],
    fits: &[Fit],
    features_nm: &[f64],
    die_latency: DieLatency,
    access: &[u64],
) -> Result<Vec<Projection>> {
    let mut rows = Vec::new();
    for &c in configurations {
        for &fit in fits {
            for &f in features_nm {
                rows.push(project(arch, c, f, fit, die_latency, access).map_err(flag_error)?);
            }
        }
    }
    Ok(rows)
}

fn rate_text(r: Rate, decimals: usize) -> String {
    format!("{:.decimals$}{}", r.value, if r.bound == ssdlab_core::scaling::Bound::Bus { "*" } else { "" })
}

fn header(access: &[u64]) -> Vec<String> {
    let mut h: Vec<String> = [
        "configuration",
        "fit",
        "feature (nm)",
        "capacity (GB)",
        "$/GB",
        "read (µs)",
        "write (µs)",
        "read (MB/s)",
        "write (MB/s)",
    ]
    .map(String::from)
    .to_vec();
    for &a in access {
        h.push(format!("read IOPS {}", size_text(a)));
        h.push(format!("write IOPS {}", size_text(a)));
    }
    h
}

fn cells(p: &Projection) -> Vec<String> {
    let mut c = vec![
        p.configuration.name().to_string(),
        p.fit.name().to_string(),
        format!("{}", p.feature_nm),
        format!("{:.1}", p.capacity_gb),
        format!("{:.2}", p.price_per_gb_usd),
        format!("{:.1}", p.read_latency_us),
        format!("{:.1}", p.write_latency_us),
        rate_text(p.read_bandwidth, 1),
        rate_text(p.write_bandwidth, 1),
    ];
    for a in &p.iops {
        c.push(rate_text(a.read, 0));
        c.push(rate_text(a.write, 0));
    }
    c
}

/// The model's parameters in one paragraph, above a table.
pub fn describe(arch: &Architecture, die_latency: DieLatency) -> String {
    format!(
        "SSD-CDC (thesis Ch. 3, Tables 3.1-3.3): {} channels x {} dies, {} MB/s buses, {} µs FTL overhead; \
         baseline {} GB at {} nm, {} bits/cell, ${}; pages {} B (TLC {} B). Latency = Table 3.2 trend + overhead; \
         DieLatency in Eqs. 3-11: {}. * = the bus bounds the channel (Eqs. 4, 8), else the dies (Eqs. 3, 9).",
        arch.channels,
        arch.dies_per_channel,
        arch.channel_speed_mb_s,
        arch.ftl_overhead_us,
        arch.baseline_capacity_gb,
        arch.baseline_feature_nm,
        arch.baseline_bits_per_cell,
        arch.price_usd,
        arch.page_bytes,
        arch.tlc_page_bytes,
        match die_latency {
            DieLatency::Flash => "the flash trend alone",
            DieLatency::FlashPlusOverhead => "the flash trend plus the overhead",
        }
    )
}

/// The rows as markdown (a header row, right-aligned numbers).
pub fn markdown(rows: &[Projection], access: &[u64]) -> String {
    let h = header(access);
    let mut out = format!("| {} |\n|---|---|{}\n", h.join(" | "), "---:|".repeat(h.len() - 2));
    for p in rows {
        let _ = writeln!(out, "| {} |", cells(p).join(" | "));
    }
    out
}

fn text_table(rows: &[Projection], access: &[u64]) -> String {
    let mut all = vec![header(access)];
    all.extend(rows.iter().map(cells));
    let widths: Vec<usize> =
        (0..all[0].len()).map(|i| all.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in &all {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| if i < 2 { format!("{c:<w$}", w = widths[i]) } else { format!("{c:>w$}", w = widths[i]) })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}

fn csv_text(rows: &[Projection], access: &[u64]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut h: Vec<String> = [
        "configuration",
        "fit",
        "feature_nm",
        "page_bytes",
        "capacity_gb",
        "price_per_gb_usd",
        "read_latency_us",
        "write_latency_us",
        "read_bandwidth_mb_s",
        "read_bandwidth_bound",
        "write_bandwidth_mb_s",
        "write_bandwidth_bound",
    ]
    .map(String::from)
    .to_vec();
    for a in access {
        for op in ["read", "write"] {
            h.push(format!("{op}_iops_{a}b"));
            h.push(format!("{op}_iops_{a}b_bound"));
        }
    }
    w.write_record(&h)?;
    for p in rows {
        let mut r = vec![
            p.configuration.name().to_string(),
            p.fit.name().to_string(),
            p.feature_nm.to_string(),
            p.page_bytes.to_string(),
            p.capacity_gb.to_string(),
            p.price_per_gb_usd.to_string(),
            p.read_latency_us.to_string(),
            p.write_latency_us.to_string(),
            p.read_bandwidth.value.to_string(),
            p.read_bandwidth.bound.name().to_string(),
            p.write_bandwidth.value.to_string(),
            p.write_bandwidth.bound.name().to_string(),
        ];
        for a in &p.iops {
            for rate in [a.read, a.write] {
                r.push(rate.value.to_string());
                r.push(rate.bound.name().to_string());
            }
        }
        w.write_record(&r)?;
    }
    Ok(String::from_utf8(w.into_inner().map_err(|e| anyhow!("{e}"))?)?)
}

fn json_text(arch: &Architecture, die_latency: DieLatency, rows: &[Projection]) -> Result<String> {
    let rate = |r: Rate| serde_json::json!({ "value": r.value, "bound": r.bound.name() });
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|p| {
            serde_json::json!({
                "configuration": p.configuration.name(),
                "fit": p.fit.name(),
                "feature_nm": p.feature_nm,
                "page_bytes": p.page_bytes,
                "capacity_gb": p.capacity_gb,
                "price_per_gb_usd": p.price_per_gb_usd,
                "read_latency_us": p.read_latency_us,
                "write_latency_us": p.write_latency_us,
                "read_bandwidth_mb_s": rate(p.read_bandwidth),
                "write_bandwidth_mb_s": rate(p.write_bandwidth),
                "iops": p.iops.iter().map(|a| serde_json::json!({
                    "access_bytes": a.access_bytes, "read": rate(a.read), "write": rate(a.write)
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let model = serde_json::json!({
        "channels": arch.channels,
        "channel_speed_mb_s": arch.channel_speed_mb_s,
        "dies_per_channel": arch.dies_per_channel,
        "ftl_overhead_us": arch.ftl_overhead_us,
        "baseline_capacity_gb": arch.baseline_capacity_gb,
        "baseline_feature_nm": arch.baseline_feature_nm,
        "baseline_bits_per_cell": arch.baseline_bits_per_cell,
        "price_usd": arch.price_usd,
        "page_bytes": arch.page_bytes,
        "tlc_page_bytes": arch.tlc_page_bytes,
        "die_latency": die_latency.name(),
    });
    Ok(serde_json::to_string_pretty(&serde_json::json!({ "model": model, "rows": rows }))? + "\n")
}

pub fn scaling(args: ScalingArgs) -> Result<()> {
    let arch = architecture(&args);
    arch.validate().map_err(flag_error)?;
    let format = args.format.as_str();
    if !["table", "markdown", "csv", "json"].contains(&format) {
        bail!("--format {format}: available: table, markdown, csv, json");
    }
    // Checked before anything is computed, so a typo costs no output.
    let metric = Metric::parse(&args.plot_metric)?;
    let x_capacity = match args.plot_x.as_str() {
        "capacity" => true,
        "feature" => false,
        other => bail!("--plot-x {other}: available: capacity, feature"),
    };
    if metric.per_access() && args.access.is_empty() {
        bail!("--plot-metric {}: needs at least one --access size", args.plot_metric);
    }
    let configurations = if args.configurations.is_empty() { Configuration::ALL.to_vec() } else { args.configurations };
    let features = if args.feature_nm.is_empty() { DEFAULT_FEATURE_SIZES_NM.to_vec() } else { args.feature_nm };
    let rows = projections(&arch, &configurations, &args.fit, &features, args.die_latency, &args.access)?;
    let text = match format {
        "table" => format!("{}\n\n{}", describe(&arch, args.die_latency), text_table(&rows, &args.access)),
        "markdown" => format!("{}\n\n{}", describe(&arch, args.die_latency), markdown(&rows, &args.access)),
        "csv" => csv_text(&rows, &args.access)?,
        _ => json_text(&arch, args.die_latency, &rows)?,
    };
    print!("{text}");
    if let Some(path) = &args.plot {
        let title = format!("SSD-CDC: {}", metric.label());
        std::fs::write(path, line_chart(&chart(&rows, metric, x_capacity, &title)))
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!(
            "wrote {} ({} against {})",
            path.display(),
            metric.label(),
            if x_capacity { "capacity" } else { "feature size" }
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_sizes_parse_with_units_and_refuse_nonsense() {
        assert_eq!(parse_access("512"), Ok(512));
        assert_eq!(parse_access("4k"), Ok(4096));
        assert_eq!(parse_access("8KiB"), Ok(8192));
        assert_eq!(parse_access("512B"), Ok(512));
        for bad in ["0", "-512", "4.5k", "", "k"] {
            assert!(parse_access(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_chart_has_a_line_per_configuration_and_access_size() {
        let arch = Architecture::default();
        let rows = projections(
            &arch,
            &[Configuration::Mlc2, Configuration::Tlc3],
            &[Fit::Avg],
            &[34.0, 6.5],
            DieLatency::Flash,
            &[512, 4096],
        )
        .unwrap();
        let c = chart(&rows, Metric::ReadIops, true, "t");
        let labels: Vec<&str> = c.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["MLC-2 512 B", "MLC-2 4 KiB", "TLC-3 512 B", "TLC-3 4 KiB"]);
        assert!(c.lines[0].points[0].0 < c.lines[0].points[1].0, "sorted by capacity");
        assert_eq!(chart(&rows, Metric::Capacity, false, "t").lines.len(), 2);
    }
}
