//! `ssdlab reproduce ssd-cdc`: the SSD-CDC scaling model of the thesis's Chapter 3 (seed
//! 004, Tables 3.1–3.3, Figs. 3.5–3.9) against the numbers §3.3 quotes, following
//! `REPRODUCING.md`: a claims table with computed verdicts first, required checks that set
//! the exit code, Table 3.3 evaluated equation by equation, the figures as tables and SVG,
//! both readings of `DieLatency` side by side, and a discussion template filled from the
//! model. The model is analytic: nothing is simulated and no trace is read.

use crate::figures::Figures;
use crate::reproduce::claims::{fill, verdict, verdict_counts, write_claims, Claim};
use crate::reproduce::ReproduceArgs;
use crate::scaling::{chart, projections, size_text, Metric};
use anyhow::{bail, Result};
use ssdlab_core::scaling::{
    capacity_gb, channel_bandwidth, channel_iops, die_latency_us, feature_for_capacity_nm, latency_us, ssd_rate,
    Architecture, Bound, Configuration, DieLatency, Fit, Operation, Projection, Rate, DEFAULT_FEATURE_SIZES_NM,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

use Configuration::{Mlc1, Mlc2, Slc1, Tlc3};
use Operation::{Read, Write};

/// The disk §3.3.2 compares write latency with.
const DISK_ACCESS_US: f64 = 7000.0;
/// The capacity §3.3.1 says SSD-CDC cannot pass with one bit per cell.
const ONE_BIT_LIMIT_GB: f64 = 4600.0;
const ACCESSES: [u64; 2] = [512, 4096];
/// Ends the measured cell of a claim whose number the model does not give to the
/// thesis's digits; the report's first line counts them.
const DIFFERS: &str = "to the quoted digits";

/// The model on an architecture, with one of Table 3.2's fits (the claims use avg, as the
/// thesis's figures draw it).
struct Model {
    arch: Architecture,
    fit: Fit,
}

impl Model {
    fn capacity(&self, c: Configuration, f: f64) -> f64 {
        capacity_gb(&self.arch, c, f)
    }

    fn latency(&self, c: Configuration, op: Operation, f: f64) -> f64 {
        latency_us(&self.arch, c, op, self.fit, f)
    }

    fn bandwidth(&self, c: Configuration, op: Operation, f: f64, mode: DieLatency) -> Rate {
        let die = die_latency_us(&self.arch, c, op, self.fit, f, mode);
        ssd_rate(&self.arch, channel_bandwidth(&self.arch, die, self.arch.page_bytes(c)))
    }

    fn iops(&self, c: Configuration, op: Operation, f: f64, access: u64, mode: DieLatency) -> Rate {
        let die = die_latency_us(&self.arch, c, op, self.fit, f, mode);
        ssd_rate(&self.arch, channel_iops(&self.arch, die, access))
    }

    /// The slowest IOPS of any configuration, operation and access size over the sweep.
    fn slowest_iops(&self, mode: DieLatency) -> (f64, String) {
        let mut slowest = (f64::MAX, String::new());
        for c in Configuration::ALL {
            for op in [Read, Write] {
                for &f in &DEFAULT_FEATURE_SIZES_NM {
                    for access in ACCESSES {
                        let v = self.iops(c, op, f, access, mode).value;
                        if v < slowest.0 {
                            slowest = (v, format!("{c} {} {} at {f} nm", size_text(access), op.name()));
                        }
                    }
                }
            }
        }
        slowest
    }

    /// Whether SLC-1's read and write bandwidth are at least every other configuration's
    /// at every feature size of the sweep.
    fn slc_fastest(&self) -> bool {
        DEFAULT_FEATURE_SIZES_NM.iter().all(|&f| {
            [Read, Write].iter().all(|&op| {
                let slc = self.bandwidth(Slc1, op, f, DieLatency::Flash).value;
                Configuration::ALL.iter().all(|&c| self.bandwidth(c, op, f, DieLatency::Flash).value <= slc + 1e-9)
            })
        })
    }
}

/// Whether `measured` shows `paper` at the precision the thesis quotes it.
fn rounds_to(paper: f64, decimals: i32, measured: f64) -> bool {
    let k = 10f64.powi(decimals);
    (measured * k).round() == (paper * k).round()
}

/// A claim row. Required rows are analytic checks: they hold only when the model gives
/// the thesis's number to the digits it quotes. The others get REPRODUCING.md's verdict
/// on `effect` (paper, model), and their measured cell says when the digits differ.
fn claim(
    what: &str,
    figure: &'static str,
    paper: &str,
    measured: String,
    agrees: bool,
    required: bool,
    effect: (f64, f64),
) -> Claim {
    let verdict = match (required, agrees) {
        (true, true) => "holds",
        (true, false) => "no",
        (false, _) => verdict(effect.0, effect.1),
    };
    let measured = if agrees { measured } else { format!("{measured}; not {paper} {DIFFERS}") };
    Claim { what: what.to_string(), figure, paper: paper.to_string(), measured, verdict: verdict.to_string(), required }
}

fn change(new: f64, old: f64) -> f64 {
    (new / old - 1.0) * 100.0
}

/// Every claim of §3.3 the model can compute, in the thesis's order, and the numbers the
/// discussion quotes.
fn claims(m: &Model, values: &mut BTreeMap<&'static str, String>) -> Vec<Claim> {
    let flash = DieLatency::Flash;
    let over = DieLatency::FlashPlusOverhead;
    let mut out = Vec::new();

    let trends: Vec<_> = Configuration::ALL
        .iter()
        .flat_map(|&c| [Read, Write].into_iter().flat_map(move |op| Fit::ALL.map(|fit| c.trend(op, fit))))
        .collect();
    let consistent = trends.iter().filter(|t| t.shrink_increase_consistent()).count();
    out.push(claim(
        "Table 3.2 as transcribed: each \"-1nm\" percentage equals 100·(e^(−b) − 1) of its exponent b, within \
         the table's rounding",
        "Table 3.2",
        &format!("{} of {}", trends.len(), trends.len()),
        format!("{consistent} of {}", trends.len()),
        consistent == trends.len(),
        true,
        (trends.len() as f64, consistent as f64),
    ));

    let one_bit = m.capacity(Slc1, 6.5);
    let tlc = m.capacity(Tlc3, 6.5);
    let f_limit = feature_for_capacity_nm(&m.arch, Slc1, ONE_BIT_LIMIT_GB);
    values.insert("one_bit_tb", format!("{:.2}", one_bit / 1000.0));
    values.insert("tlc_tb", format!("{:.2}", tlc / 1000.0));
    values.insert("one_bit_limit_nm", format!("{f_limit:.2}"));
    values.insert("tlc_at_limit_nm_tb", format!("{:.1}", m.capacity(Tlc3, f_limit) / 1000.0));
    out.push(claim(
        "With one bit per cell (SLC-1, MLC-1), SSD-CDC cannot pass ~4.6 TB at 6.5 nm",
        "§3.3.1, Fig. 3.5",
        "4.6 TB",
        format!("{:.2} TB (Eq. 1 at 6.5 nm; 4.6 TB needs {f_limit:.2} nm)", one_bit / 1000.0),
        rounds_to(4.6, 1, one_bit / 1000.0),
        false,
        (4.6, one_bit / 1000.0),
    ));
    out.push(claim(
        "TLC-3 allows capacities up to 14 TB",
        "§3.3.1, Fig. 3.5",
        "14 TB",
        format!("{:.2} TB (Eq. 1, TLC-3 at 6.5 nm)", tlc / 1000.0),
        rounds_to(14.0, 0, tlc / 1000.0),
        false,
        (14.0, tlc / 1000.0),
    ));
    let growth = tlc / m.arch.baseline_capacity_gb;
    values.insert("growth", format!("{growth:.1}"));
    values.insert("f_34x", format!("{:.2}", feature_for_capacity_nm(&m.arch, Tlc3, 34.0 * 320.0)));
    out.push(claim(
        "SSDs could be up to 34× larger (TLC-3 at 6.5 nm against the baseline, MLC-2 at 34 nm, the pair the \
         latency ratios below use)",
        "§3.3.2",
        "34×",
        format!("{growth:.1}× ({tlc:.0} GB / 320 GB, Eq. 1)"),
        rounds_to(34.0, 0, growth),
        false,
        (33.0, growth - 1.0),
    ));

    let f_mlc = feature_for_capacity_nm(&m.arch, Mlc2, ONE_BIT_LIMIT_GB);
    let f_tlc = feature_for_capacity_nm(&m.arch, Tlc3, ONE_BIT_LIMIT_GB);
    let (mlc_w, tlc_w) = (m.latency(Mlc2, Write, f_mlc), m.latency(Tlc3, Write, f_tlc));
    let (mlc_r, tlc_r) = (m.latency(Mlc2, Read, f_mlc), m.latency(Tlc3, Read, f_tlc));
    values.insert("f_mlc_limit", format!("{f_mlc:.2}"));
    values.insert("f_tlc_limit", format!("{f_tlc:.2}"));
    out.push(claim(
        "Beyond 4.6 TB, MLC-2's write latency reaches 1 ms",
        "§3.3.2, Fig. 3.6b",
        "1 ms",
        format!("{:.3} ms at 4.6 TB ({f_mlc:.2} nm), rising as cells shrink", mlc_w / 1000.0),
        rounds_to(1.0, 0, mlc_w / 1000.0),
        true,
        (1.0, mlc_w / 1000.0),
    ));
    out.push(claim(
        "Beyond 4.6 TB, TLC-3's write latency is over 2.1 ms",
        "§3.3.2, Fig. 3.6b",
        "> 2.1 ms",
        format!("{:.3} ms at 4.6 TB ({f_tlc:.2} nm)", tlc_w / 1000.0),
        tlc_w >= 2100.0,
        true,
        (2.1, tlc_w / 1000.0),
    ));
    out.push(claim(
        "Beyond 4.6 TB, read latency is at least 70 µs for MLC-2",
        "§3.3.2, Fig. 3.6a",
        "≥ 70 µs",
        format!("{mlc_r:.1} µs at 4.6 TB"),
        mlc_r >= 70.0,
        true,
        (70.0, mlc_r),
    ));
    out.push(claim(
        "Beyond 4.6 TB, read latency is at least 100 µs for TLC-3",
        "§3.3.2, Fig. 3.6a",
        "≥ 100 µs",
        format!("{tlc_r:.1} µs at 4.6 TB"),
        tlc_r >= 100.0,
        true,
        (100.0, tlc_r),
    ));

    let read_ratio = m.latency(Tlc3, Read, 6.5) / m.latency(Mlc2, Read, 34.0);
    let write_ratio = m.latency(Tlc3, Write, 6.5) / m.latency(Mlc2, Write, 34.0);
    values.insert("read_ratio", format!("{read_ratio:.2}"));
    let mut any_fit_gives = rounds_to(1.7, 1, read_ratio);
    for (key, fit) in [("read_ratio_min", Fit::Min), ("read_ratio_max", Fit::Max)] {
        let other = Model { arch: m.arch.clone(), fit };
        let ratio = other.latency(Tlc3, Read, 6.5) / other.latency(Mlc2, Read, 34.0);
        any_fit_gives |= rounds_to(1.7, 1, ratio);
        values.insert(key, format!("{ratio:.2}"));
    }
    values.insert(
        "read_ratio_verdict",
        if any_fit_gives {
            "one of the fits gives 1.7×"
        } else {
            "no fit of Table 3.2 gives 1.7× at the thesis's precision"
        }
        .into(),
    );
    values.insert("write_ratio", format!("{write_ratio:.2}"));
    out.push(claim(
        "Reads 1.7× slower: TLC-3 at 6.5 nm against the baseline",
        "§3.3.2",
        "1.7×",
        format!("{read_ratio:.2}× ({:.1} / {:.1} µs)", m.latency(Tlc3, Read, 6.5), m.latency(Mlc2, Read, 34.0)),
        rounds_to(1.7, 1, read_ratio),
        false,
        (0.7, read_ratio - 1.0),
    ));
    out.push(claim(
        "Writes 2.6× slower: TLC-3 at 6.5 nm against the baseline",
        "§3.3.2",
        "2.6×",
        format!("{write_ratio:.2}× ({:.1} / {:.1} µs)", m.latency(Tlc3, Write, 6.5), m.latency(Mlc2, Write, 34.0)),
        rounds_to(2.6, 1, write_ratio),
        true,
        (1.6, write_ratio - 1.0),
    ));
    let (now, then) = (DISK_ACCESS_US / m.latency(Mlc2, Write, 34.0), DISK_ACCESS_US / m.latency(Tlc3, Write, 6.5));
    values.insert("disk_now", format!("{now:.2}"));
    values.insert("disk_then", format!("{then:.2}"));
    let bare = Model { arch: Architecture { ftl_overhead_us: 0.0, ..m.arch.clone() }, fit: m.fit };
    values.insert("disk_now_no_overhead", format!("{:.2}", DISK_ACCESS_US / bare.latency(Mlc2, Write, 34.0)));
    out.push(claim(
        "The write-latency advantage over a 7-ms disk access falls from 8.3× (baseline) to 3.2× (TLC-3, 6.5 nm)",
        "§3.3.2",
        "8.3× → 3.2×",
        format!("{now:.2}× → {then:.2}×"),
        rounds_to(8.3, 1, now) && rounds_to(3.2, 1, then),
        true,
        (3.2 / 8.3 - 1.0, then / now - 1.0),
    ));

    let discard = 100.0 * (1.0 - 512.0 / m.arch.page_bytes as f64);
    let discard_tlc = 100.0 * (1.0 - 512.0 / m.arch.tlc_page_bytes as f64);
    out.push(claim(
        "512-B accesses to SLC and MLC chips discard 88% of the data read (TLC more: 8-kB pages)",
        "§3.3.3",
        "88%",
        format!("{discard:.1}% of a {}-B page (TLC-3 {discard_tlc:.2}%)", m.arch.page_bytes),
        rounds_to(88.0, 0, discard),
        true,
        (88.0, discard),
    ));

    let mlc_iops_change = |op, mode| {
        let at = |gb| {
            let f = feature_for_capacity_nm(&m.arch, Mlc2, gb);
            m.iops(Mlc2, op, f, 4096, mode).value
        };
        change(at(1024.0), at(64.0))
    };
    let (iops_flash, iops_over) = (mlc_iops_change(Read, flash), mlc_iops_change(Read, over));
    values.insert("mlc_write_iops_flash", format!("{:.1}%", mlc_iops_change(Write, flash)));
    values.insert("mlc_iops_flash", format!("{iops_flash:.1}%"));
    values.insert("mlc_iops_over", format!("{iops_over:.1}%"));
    let between = iops_flash.min(iops_over) < -18.0 && -18.0 < iops_flash.max(iops_over);
    values.insert(
        "iops_18_between",
        if between { "The 18% lies between the two." } else { "The 18% lies outside both." }.into(),
    );
    values.insert("f_mlc_64", format!("{:.1}", feature_for_capacity_nm(&m.arch, Mlc2, 64.0)));
    out.push(claim(
        "MLC 4-kB IOPS fall 18% from 64 to 1024 GB (MLC-2 reads)",
        "§3.3.3, Fig. 3.8b",
        "-18%",
        format!("{iops_flash:.1}% (with the overhead in DieLatency: {iops_over:.1}%)"),
        rounds_to(-18.0, 0, iops_flash),
        false,
        (-18.0, iops_flash),
    ));

    let (slowest, which) = m.slowest_iops(flash);
    let (slowest_over, _) = m.slowest_iops(over);
    values.insert("slowest", format!("{slowest:.0}"));
    values.insert("slowest_over", format!("{slowest_over:.0}"));
    let max_fit = Model { arch: m.arch.clone(), fit: Fit::Max };
    values.insert("slowest_max_fit", format!("{:.0}", max_fit.slowest_iops(flash).0));
    out.push(claim(
        "The slowest configuration still achieves over 32,000 IOPS",
        "§3.3.3, Fig. 3.8",
        "> 32,000",
        format!("{slowest:.0} ({which}; with the overhead in DieLatency {slowest_over:.0})"),
        slowest > 32_000.0,
        true,
        (32_000.0, slowest),
    ));
    let slc = m.slc_fastest();
    out.push(claim(
        "SLC-1 remains the fastest: highest read and write bandwidth at every feature size",
        "Fig. 3.7",
        "yes",
        if slc { "yes, at every node from 72 to 6.5 nm".into() } else { "no".into() },
        slc,
        false,
        (1.0, if slc { 1.0 } else { -1.0 }),
    ));

    let lat_w = change(m.latency(Mlc2, Write, 6.5), m.latency(Mlc2, Write, 34.0));
    let lat_r = change(m.latency(Mlc2, Read, 6.5), m.latency(Mlc2, Read, 34.0));
    values.insert("fig39_read_latency", format!("{lat_r:+.1}%"));
    out.push(claim(
        "MLC-2 at 6.5 nm against the baseline: access latency +26%",
        "Fig. 3.9",
        "+26%",
        format!("write {lat_w:+.1}% (read {lat_r:+.1}%)"),
        rounds_to(26.0, 0, lat_w),
        true,
        (26.0, lat_w),
    ));
    let bw_change = |op, mode| change(m.bandwidth(Mlc2, op, 6.5, mode).value, m.bandwidth(Mlc2, op, 34.0, mode).value);
    let iops_change =
        |op, mode| change(m.iops(Mlc2, op, 6.5, 4096, mode).value, m.iops(Mlc2, op, 34.0, 4096, mode).value);
    let (bw_w, bw_w_over, bw_r) = (bw_change(Write, flash), bw_change(Write, over), bw_change(Read, flash));
    let iops_w = iops_change(Write, flash);
    values.insert("fig39_bw_flash", format!("{bw_w:.1}%"));
    values.insert("fig39_bw_over", format!("{bw_w_over:.1}%"));
    values.insert("fig39_bw_read", format!("{bw_r:.1}%"));
    out.push(claim(
        "MLC-2 at 6.5 nm against the baseline: bandwidth −21%, in MB/s and in IOPS",
        "Fig. 3.9",
        "-21%",
        format!(
            "writes {bw_w:.1}% MB/s, {iops_w:.1}% 4-kB IOPS (reads {bw_r:.1}%; with the overhead in DieLatency, \
             writes {bw_w_over:.1}%)"
        ),
        rounds_to(-21.0, 0, bw_w) && rounds_to(-21.0, 0, iops_w),
        true,
        (-21.0, bw_w),
    ));
    out
}

/// Table 3.3's equations, one row each, at the baseline and at TLC-3 6.5 nm.
fn table_3_3(md: &mut String, m: &Model) -> Result<()> {
    let a = &m.arch;
    let points = [(Mlc2, 34.0), (Tlc3, 6.5)];
    writeln!(md, "## Table 3.3 evaluated\n")?;
    writeln!(
        md,
        "Every equation at the baseline (MLC-2, 34 nm) and at TLC-3, 6.5 nm (avg fits, DieLatency = the flash \
         trend alone). `bus` / `die` names the branch taken.\n"
    )?;
    writeln!(md, "| Eq. | quantity | MLC-2, 34 nm | TLC-3, 6.5 nm |\n|---|---|---:|---:|")?;
    let row = |md: &mut String, eq: &str, what: &str, f: &dyn Fn(Configuration, f64) -> String| -> Result<()> {
        writeln!(md, "| {eq} | {what} | {} | {} |", f(points[0].0, points[0].1), f(points[1].0, points[1].1))?;
        Ok(())
    };
    let rate = |r: Rate, unit: &str| format!("{:.1}{unit} ({})", r.value, r.bound.name());
    let die = |c, op, f| die_latency_us(a, c, op, m.fit, f, DieLatency::Flash);
    row(md, "1", "capacity", &|c, f| format!("{:.1} GB", m.capacity(c, f)))?;
    row(md, "§3.2.2", "read latency (trend + overhead)", &|c, f| format!("{:.2} µs", m.latency(c, Read, f)))?;
    row(md, "§3.2.2", "write latency (trend + overhead)", &|c, f| format!("{:.2} µs", m.latency(c, Write, f)))?;
    row(md, "5", "page transfer time", &|c, _| format!("{:.2} µs", a.transfer_time_us(a.page_bytes(c))))?;
    row(md, "6", "bandwidth threshold", &|c, _| format!("{:.2} µs", a.threshold_us(a.page_bytes(c))))?;
    for op in [Read, Write] {
        row(md, "3 / 4", &format!("channel {} bandwidth", op.name()), &|c, f| {
            rate(channel_bandwidth(a, die(c, op, f), a.page_bytes(c)), " MB/s")
        })?;
        row(md, "2", &format!("SSD {} bandwidth", op.name()), &|c, f| {
            rate(m.bandwidth(c, op, f, DieLatency::Flash), " MB/s")
        })?;
    }
    for access in ACCESSES {
        let s = size_text(access);
        row(md, "10", &format!("{s} transfer time"), &|_, _| format!("{:.2} µs", a.transfer_time_us(access)))?;
        row(md, "11", &format!("{s} IOPS threshold"), &|_, _| format!("{:.2} µs", a.threshold_us(access)))?;
        for op in [Read, Write] {
            row(md, "8 / 9", &format!("channel {s} {} IOPS", op.name()), &|c, f| {
                rate(channel_iops(a, die(c, op, f), access), "")
            })?;
            row(md, "7", &format!("SSD {s} {} IOPS", op.name()), &|c, f| {
                rate(m.iops(c, op, f, access, DieLatency::Flash), "")
            })?;
        }
    }
    writeln!(md)?;
    Ok(())
}

fn table_3_2(md: &mut String) -> Result<()> {
    writeln!(md, "## Table 3.2 as transcribed\n")?;
    writeln!(
        md,
        "Latency = A·e^(b·f) µs, f in nm. \"-1nm\" is the thesis's column; \"implied\" is 100·(e^(−b) − 1) over \
         every b that rounds to the printed one.\n"
    )?;
    writeln!(md, "| configuration | fit | read | -1nm | implied | write | -1nm | implied |")?;
    writeln!(md, "|---|---|---|---:|---:|---|---:|---:|")?;
    for c in Configuration::ALL {
        for fit in [Fit::Max, Fit::Avg, Fit::Min] {
            let cell = |op| {
                let t = c.trend(op, fit);
                let (lo, hi) = t.shrink_increase_range_percent();
                format!(
                    "{:.1}·e^({:.1}e{}·f) | {:.2}% | {lo:.3}…{hi:.3}%{}",
                    t.scale_us,
                    t.exponent_mantissa,
                    t.exponent_power,
                    t.shrink_increase_percent,
                    if t.shrink_increase_consistent() { "" } else { " **differs**" }
                )
            };
            writeln!(md, "| {c} | {} | {} | {} |", fit.name(), cell(Read), cell(Write))?;
        }
    }
    writeln!(md)?;
    Ok(())
}

/// A figure's table (a row per feature size, a column per configuration) and its chart.
fn figure(
    md: &mut String,
    figures: &mut Figures,
    slug: &str,
    title: &str,
    rows: &[Projection],
    metric: Metric,
    cell: &dyn Fn(&Projection) -> String,
) -> Result<()> {
    writeln!(md, "### {title}\n")?;
    writeln!(md, "| feature (nm) | {} |", Configuration::ALL.map(|c| c.name()).join(" | "))?;
    writeln!(md, "|---:|{}", "---:|".repeat(4))?;
    for &f in &DEFAULT_FEATURE_SIZES_NM {
        let cells: Vec<String> = Configuration::ALL
            .iter()
            .map(|&c| rows.iter().find(|p| p.configuration == c && p.feature_nm == f).map_or(String::new(), cell))
            .collect();
        writeln!(md, "| {f} | {} |", cells.join(" | "))?;
    }
    writeln!(md)?;
    let access_index = if slug.ends_with("4k") { 1 } else { 0 };
    let mut rows_for_chart: Vec<Projection> = rows.to_vec();
    if matches!(metric, Metric::ReadIops | Metric::WriteIops) {
        for p in &mut rows_for_chart {
            p.iops = vec![p.iops[access_index].clone()];
        }
    }
    let x_capacity = metric != Metric::Capacity;
    figures.lines(md, slug, chart(&rows_for_chart, metric, x_capacity, title));
    Ok(())
}

fn rate_cell(r: Rate, decimals: usize) -> String {
    format!("{:.decimals$}{}", r.value, if r.bound == Bound::Bus { "*" } else { "" })
}

fn figures_section(md: &mut String, figures: &mut Figures, m: &Model) -> Result<()> {
    let rows =
        projections(&m.arch, &Configuration::ALL, &[m.fit], &DEFAULT_FEATURE_SIZES_NM, DieLatency::Flash, &ACCESSES)?;
    writeln!(md, "## Figures 3.5–3.8\n")?;
    writeln!(
        md,
        "Avg fits; Figs. 3.6–3.8 are drawn against capacity as in the thesis (each row's capacity is in the Fig. \
         3.5 table). `*` = the bus bounds the channel. Min and max fits: `ssdlab scaling --fit min,avg,max`.\n"
    )?;
    figure(md, figures, "fig3-5", "Fig. 3.5: capacity (GB)", &rows, Metric::Capacity, &|p| {
        format!("{:.1}", p.capacity_gb)
    })?;
    figure(md, figures, "fig3-6a", "Fig. 3.6a: read latency (µs)", &rows, Metric::ReadLatency, &|p| {
        format!("{:.1}", p.read_latency_us)
    })?;
    figure(md, figures, "fig3-6b", "Fig. 3.6b: write latency (µs)", &rows, Metric::WriteLatency, &|p| {
        format!("{:.1}", p.write_latency_us)
    })?;
    figure(md, figures, "fig3-7a", "Fig. 3.7a: read bandwidth (MB/s)", &rows, Metric::ReadBandwidth, &|p| {
        rate_cell(p.read_bandwidth, 0)
    })?;
    figure(md, figures, "fig3-7b", "Fig. 3.7b: write bandwidth (MB/s)", &rows, Metric::WriteBandwidth, &|p| {
        rate_cell(p.write_bandwidth, 0)
    })?;
    for (slug, title, metric, index) in [
        ("fig3-8a-512", "Fig. 3.8a: 512-B read IOPS", Metric::ReadIops, 0),
        ("fig3-8b-4k", "Fig. 3.8b: 4-KiB read IOPS", Metric::ReadIops, 1),
        ("fig3-8c-512", "Fig. 3.8c: 512-B write IOPS", Metric::WriteIops, 0),
        ("fig3-8d-4k", "Fig. 3.8d: 4-KiB write IOPS", Metric::WriteIops, 1),
    ] {
        let cell = move |p: &Projection| {
            let a = &p.iops[index];
            rate_cell(if metric == Metric::ReadIops { a.read } else { a.write }, 0)
        };
        figure(md, figures, slug, title, &rows, metric, &cell)?;
    }
    Ok(())
}

/// The two readings of DieLatency, and the latency claims without the FTL overhead.
fn readings_section(md: &mut String, m: &Model) -> Result<()> {
    let (flash, over) = (DieLatency::Flash, DieLatency::FlashPlusOverhead);
    writeln!(md, "## DieLatency: both readings\n")?;
    writeln!(
        md,
        "The thesis adds the 30-µs FTL overhead to latency (§3.2.2) but does not say whether it also occupies \
         the die in Eqs. 3–11. The default reads DieLatency as the flash trend alone.\n"
    )?;
    writeln!(md, "| quantity | flash (default) | flash + overhead | thesis |\n|---|---:|---:|---:|")?;
    let bw = |op, mode| change(m.bandwidth(Mlc2, op, 6.5, mode).value, m.bandwidth(Mlc2, op, 34.0, mode).value);
    let mlc_iops = |c, mode| {
        let at = |gb| m.iops(c, Read, feature_for_capacity_nm(&m.arch, c, gb), 4096, mode).value;
        change(at(1024.0), at(64.0))
    };
    let rows: [(&str, String, String, &str); 7] = [
        (
            "Fig. 3.9: MLC-2 write bandwidth, 6.5 vs 34 nm",
            format!("{:.1}%", bw(Write, flash)),
            format!("{:.1}%", bw(Write, over)),
            "-21%",
        ),
        (
            "Fig. 3.9: MLC-2 read bandwidth, 6.5 vs 34 nm",
            format!("{:.1}%", bw(Read, flash)),
            format!("{:.1}%", bw(Read, over)),
            "-21%",
        ),
        (
            "MLC-2 4-KiB read IOPS, 64 → 1024 GB",
            format!("{:.1}%", mlc_iops(Mlc2, flash)),
            format!("{:.1}%", mlc_iops(Mlc2, over)),
            "-18%",
        ),
        (
            "MLC-1 4-KiB read IOPS, 64 → 1024 GB",
            format!("{:.1}%", mlc_iops(Mlc1, flash)),
            format!("{:.1}%", mlc_iops(Mlc1, over)),
            "-18%",
        ),
        (
            "slowest configuration, IOPS",
            format!("{:.0}", m.slowest_iops(flash).0),
            format!("{:.0}", m.slowest_iops(over).0),
            "> 32,000",
        ),
        (
            "SLC-1 read bandwidth at 34 nm, MB/s",
            rate_cell(m.bandwidth(Slc1, Read, 34.0, flash), 0),
            rate_cell(m.bandwidth(Slc1, Read, 34.0, over), 0),
            "—",
        ),
        (
            "SLC-1 4-KiB read IOPS at 34 nm",
            rate_cell(m.iops(Slc1, Read, 34.0, 4096, flash), 0),
            rate_cell(m.iops(Slc1, Read, 34.0, 4096, over), 0),
            "—",
        ),
    ];
    for (what, a, b, thesis) in rows {
        writeln!(md, "| {what} | {a} | {b} | {thesis} |")?;
    }
    let no_overhead = Model { arch: Architecture { ftl_overhead_us: 0.0, ..m.arch.clone() }, fit: m.fit };
    let disk = |mm: &Model, c, f| DISK_ACCESS_US / mm.latency(c, Write, f);
    writeln!(md, "\nAnd latency without the FTL overhead (`--ftl-overhead-us 0`), against the thesis's numbers:\n")?;
    writeln!(md, "| quantity | with the 30-µs overhead | without | thesis |\n|---|---:|---:|---:|")?;
    for (what, f_a, f_b, thesis) in [
        (
            "write advantage over a 7-ms disk, baseline",
            &disk as &dyn Fn(&Model, Configuration, f64) -> f64,
            (Mlc2, 34.0),
            "8.3×",
        ),
        ("write advantage over a 7-ms disk, TLC-3 6.5 nm", &disk, (Tlc3, 6.5), "3.2×"),
    ] {
        writeln!(md, "| {what} | {:.2}× | {:.2}× | {thesis} |", f_a(m, f_b.0, f_b.1), f_a(&no_overhead, f_b.0, f_b.1))?;
    }
    let ratio = |mm: &Model, op| mm.latency(Tlc3, op, 6.5) / mm.latency(Mlc2, op, 34.0);
    writeln!(
        md,
        "| reads, TLC-3 6.5 nm / baseline | {:.2}× | {:.2}× | 1.7× |",
        ratio(m, Read),
        ratio(&no_overhead, Read)
    )?;
    writeln!(
        md,
        "| writes, TLC-3 6.5 nm / baseline | {:.2}× | {:.2}× | 2.6× |\n",
        ratio(m, Write),
        ratio(&no_overhead, Write)
    )?;
    Ok(())
}

pub fn ssd_cdc(args: &ReproduceArgs) -> Result<()> {
    if !args.only.is_empty() {
        bail!("reproduce ssd-cdc is analytic and has no workloads: --only {} names none of them", args.only.join(","));
    }
    let m = Model { arch: Architecture::default(), fit: Fit::Avg };
    let mut values = BTreeMap::new();
    let claims = claims(&m, &mut values);

    let mut md = String::new();
    writeln!(md, "# SSD-CDC scaling model (thesis Chapter 3) reproduced\n")?;
    let differing: Vec<&str> =
        claims.iter().filter(|c| c.measured.ends_with(DIFFERS)).map(|c| c.paper.as_str()).collect();
    let extra = match differing.len() {
        0 => String::new(),
        n => {
            format!("; {n} numbers of the thesis's text are not what its own equations give ({})", differing.join(", "))
        }
    };
    writeln!(md, "{}", verdict_counts(&claims, &extra))?;
    writeln!(
        md,
        "Command: `ssdlab reproduce ssd-cdc`. Analytic: the model of Tables 3.1–3.3 (docs/scaling.md) is evaluated, \
         nothing is simulated and no trace is read. Latencies use the avg fits of Table 3.2 plus the 30-µs FTL \
         overhead; DieLatency in the bandwidth and IOPS equations is the flash trend alone.\n"
    )?;
    write_claims(
        &mut md,
        &claims,
        "The model is exact arithmetic, so a **required** row holds only when the model gives the thesis's number \
         to the digits the thesis quotes (\"over\" / \"at least\" claims: on that side of it), else it is **no**. \
         Required rows are the numbers of §3.3 that Tables 3.1–3.3 reproduce; the others are numbers where the \
         thesis's text and its own equations disagree, shown with both values (Discussion).",
    )?;
    table_3_3(&mut md, &m)?;
    table_3_2(&mut md)?;
    let mut figures = Figures::new(&args.out);
    figures_section(&mut md, &mut figures, &m)?;
    readings_section(&mut md, &m)?;
    let template = crate::reproduce::discussion(&args.out, "ssd-cdc");
    writeln!(md, "{}", fill(&template, &values)?.trim_end())?;
    writeln!(md, "\n## Commands\n\nEvery table above is a `ssdlab scaling` command:\n")?;
    writeln!(md, "```")?;
    for c in [
        "ssdlab scaling --format markdown                                   # Figs. 3.5-3.8 (avg fits)",
        "ssdlab scaling --fit min,avg,max --format csv                      # with the min and max fits",
        "ssdlab scaling --configurations MLC-2,TLC-3 --feature-nm 34,6.5   # Table 3.3 evaluated",
        "ssdlab scaling --die-latency flash+overhead                        # the other DieLatency reading",
        "ssdlab scaling --ftl-overhead-us 0                                 # latency without the overhead",
        "ssdlab scaling --plot write-latency.svg --plot-metric write-latency # a figure",
    ] {
        writeln!(md, "{c}")?;
    }
    writeln!(md, "```")?;
    figures.write_report(&args.out, &md)?;
    println!("wrote {}", args.out.display());
    crate::reproduce::claims::gate(&claims, "ssd-cdc")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_digits_decide_the_required_rows() {
        assert!(rounds_to(8.3, 1, 8.3386));
        assert!(!rounds_to(8.3, 1, 8.65), "latency without the overhead gives 8.65×");
        assert!(rounds_to(88.0, 0, 87.5));
        assert!(!rounds_to(88.0, 0, 87.2), "a 4,000-B page would discard 87.2%");
        assert!(!rounds_to(-21.0, 0, -20.46), "DieLatency with the overhead gives −20.5%");
    }

    #[test]
    fn every_required_claim_holds_on_table_3_1_and_fails_on_a_wrong_model() {
        let mut values = BTreeMap::new();
        let right = claims(&Model { arch: Architecture::default(), fit: Fit::Avg }, &mut values);
        assert!(
            right.iter().filter(|c| c.required).all(|c| c.verdict == "holds"),
            "{:?}",
            right.iter().map(|c| (&c.what, &c.verdict)).collect::<Vec<_>>()
        );
        // Plausible misreadings of Table 3.1: no overhead; "4 kB" as 4,000 bytes.
        for arch in [
            Architecture { ftl_overhead_us: 0.0, ..Architecture::default() },
            Architecture { page_bytes: 4000, ..Architecture::default() },
        ] {
            let wrong = claims(&Model { arch, fit: Fit::Avg }, &mut BTreeMap::new());
            assert!(wrong.iter().any(|c| c.required && c.verdict == "no"));
        }
    }
}
