//! `ssdlab trace-stats <trace> [--format F] [--device N] [--lenient] [--time-unit U]
//! [--sort-window N] [--time-window START:END] [--max-gap S]`: one streaming pass over a
//! trace and a readable report — which format was used and how it was chosen, the
//! compression, the options, then the workload statistics of
//! [`ssdlab_trace::TraceStats`]. The trace options are `run`'s, read the same way.

use anyhow::{anyhow, bail, Result};
use ssdlab_trace::{detect_compression, detect_format, scan_stats, Compression, Format, TraceOptions, TraceStats};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `ssdlab trace-stats`'s arguments: the trace and the trace options `run` has.
#[derive(clap::Args, Clone, Debug)]
pub struct TraceStatsArgs {
    /// The trace file (plain or gzip / zstd / bzip2 / xz; a pipe is read once; `-` reads
    /// standard input).
    #[arg(value_name = "TRACE", required_unless_present = "trace", conflicts_with = "trace")]
    pub file: Option<PathBuf>,
    /// The trace, as `run --trace` takes it (instead of the positional TRACE).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// The format and options, as `run` takes them.
    #[command(flatten)]
    pub trace_args: crate::TraceArgs,
}

/// Runs `ssdlab trace-stats`.
pub fn command(args: TraceStatsArgs) -> Result<()> {
    let given = args.trace.clone().or(args.file.clone()).ok_or_else(|| anyhow!("no trace given"))?;
    // Names as the user gave them: a pipe's or the standard input's temporary copy.
    let shown = crate::setup::user_paths;
    let result = (|| {
        let format = args
            .trace_args
            .format
            .as_deref()
            .map(|f| f.parse::<Format>().map_err(|e| anyhow!("--format: {e}")))
            .transpose()?;
        let options = args.trace_args.options()?;
        let readable = crate::setup::readable_again(&given)?;
        let report = trace_stats_report(&readable, format, &options, args.trace_args.max_gap)?;
        Ok::<_, anyhow::Error>(report)
    })();
    let report = result.map_err(|e| anyhow!(shown(format!("{e:#}"))))?;
    print!("{}", shown(report));
    Ok(())
}

/// Prints the statistics report of the trace at `path` to stdout. Without `format` the
/// format is detected from the first lines and the report says how (and when it was an
/// assumption).
pub fn trace_stats(path: &Path, format: Option<Format>, options: &TraceOptions) -> Result<()> {
    print!("{}", trace_stats_report(path, format, options, None)?);
    Ok(())
}

/// The report [`trace_stats`] prints. With `max_gap` (seconds) a trace with a longer gap
/// between two arrivals is an error, as for `run --max-gap`.
pub fn trace_stats_report(
    path: &Path,
    format: Option<Format>,
    options: &TraceOptions,
    max_gap: Option<f64>,
) -> Result<String> {
    let (format, how) = match format {
        Some(f) => (f, "given with --format".to_string()),
        None => {
            let (f, why) = detect_format(path).map_err(|e| anyhow!("{e}"))?;
            (f, format!("detected: {why}"))
        }
    };
    let compression = detect_compression(path).map_err(|e| anyhow!("{e}"))?;
    let failed = |e: ssdlab_trace::TraceError| {
        let hint = if e.message.starts_with("read error") {
            // An I/O error ends the stream: --lenient cannot read past it.
            read_error_hint(compression, path)
        } else if options.lenient || e.line == 0 {
            String::new()
        } else {
            " (--lenient skips and counts malformed lines)".to_string()
        };
        anyhow!("{e}{hint}")
    };
    if let Some(max) = max_gap {
        let pass =
            ssdlab_trace::prepass(path, format, options, crate::session::gap_limit_ns(Some(max))).map_err(failed)?;
        let name = path.display().to_string();
        if let Some(text) = crate::session::gap_advice(&name, &pass, options, Some(max), false) {
            bail!("--max-gap {max}: {text}");
        }
    }
    let stats = scan_stats(path, format, options).map_err(failed)?;
    Ok(render(path, format, &how, compression.name(), options, &stats))
}

/// What to do about a read error (truncated or corrupt compressed data).
fn read_error_hint(compression: Compression, path: &Path) -> String {
    let tool = match compression {
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
        Compression::Bzip2 => "bzip2",
        Compression::Xz => "xz",
        _ => return " (the file cannot be read past this point; --lenient does not change that)".to_string(),
    };
    format!(
        " (the {} data is cut short or corrupt here and --lenient cannot read past it; to use the part before it, \
         decompress what is readable, e.g. `{tool} -dc {} > part`, and read that, with --lenient if its last line \
         is cut)",
        compression.name(),
        path.display()
    )
}

/// `1234567` → `1,234,567`.
fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes with a binary unit: `512 B`, `4 KiB`, `1.5 MiB`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn percent(part: u64, whole: u64) -> String {
    format!("{:.1}%", 100.0 * part as f64 / whole.max(1) as f64)
}

fn micros(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.3} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{us:.2} µs")
    }
}

fn render(path: &Path, format: Format, how: &str, compression: &str, options: &TraceOptions, s: &TraceStats) -> String {
    let sum = &s.summary;
    let mut o = String::new();
    let mut line = |label: &str, text: String| {
        let _ = writeln!(o, "{label:<12} {text}");
    };
    line("trace", path.display().to_string());
    line("format", format!("{} — {}", format.name(), format.description()));
    line("", format!("({how})"));
    line("compression", compression.to_string());
    line("device col.", format.device_column().unwrap_or("none (every record is device 0)").to_string());
    line("options", options.describe());
    let skipped = if sum.skipped == 0 {
        "none skipped".to_string()
    } else {
        let reasons: Vec<String> = s.skip_reasons.iter().map(|(r, n)| format!("{} {r}", count(*n))).collect();
        let lines = if sum.skipped == 1 { "line" } else { "lines" };
        format!("{} {lines} skipped: {}", count(sum.skipped), reasons.join(", "))
    };
    line("requests", format!("{} ({skipped})", count(sum.requests)));
    if sum.requests == 0 {
        return o;
    }
    line(
        "ops",
        format!(
            "read {} ({}), write {} ({}), trim {} ({})",
            count(sum.reads),
            percent(sum.reads, sum.requests),
            count(sum.writes),
            percent(sum.writes, sum.requests),
            count(sum.trims),
            percent(sum.trims, sum.requests)
        ),
    );
    line(
        "bytes",
        format!(
            "{} in total (read {}, write {}); mean request {}",
            bytes(sum.total_bytes),
            bytes(sum.read_bytes),
            bytes(sum.write_bytes),
            bytes(sum.mean_size_bytes() as u64)
        ),
    );
    let hist = s.size_histogram();
    let widest = hist.iter().map(|b| b.2).max().unwrap_or(1);
    for (i, (lo, hi, n)) in hist.iter().enumerate() {
        let bar = "#".repeat(((*n as f64 / widest as f64) * 30.0).ceil() as usize);
        let range = format!("[{}, {})", bytes(*lo), if *hi == u64::MAX { "∞".to_string() } else { bytes(*hi) });
        line(
            if i == 0 { "sizes" } else { "" },
            format!("{range:<22} {:>12} {:>6}  {bar}", count(*n), percent(*n, sum.requests)),
        );
    }
    if !format.has_timestamps() && s.span_ns() == Some(0) {
        line("arrivals", format!("none: {} traces carry no timestamps; replay closed-loop", format.name()));
    } else {
        let span = s.span_ns().unwrap_or(0);
        line("span", format!("{} (latest minus earliest arrival)", micros(span as f64 / 1e3)));
        match s.interarrival() {
            Some(g) => line(
                "inter-arr.",
                format!(
                    "mean {}, p50 {}, p99 {}, max {} over {} gaps",
                    micros(g.mean_us),
                    micros(g.p50_us),
                    micros(g.p99_us),
                    micros(g.max_us),
                    count(g.count)
                ),
            ),
            None => line("inter-arr.", "none (fewer than two requests in time order)".to_string()),
        }
        if s.out_of_order() > 0 {
            line(
                "",
                format!(
                    "{} arrivals earlier than their predecessor ({}); a sort window reorders them",
                    count(s.out_of_order()),
                    percent(s.out_of_order(), sum.requests)
                ),
            );
        }
    }
    if let Some((lo, hi)) = s.address_range() {
        line("addresses", format!("[{}, {}) — bytes {lo} to {hi}", bytes(lo), bytes(hi)));
    }
    let (devices, others) = s.devices();
    let mut by_count: Vec<(u32, u64)> = devices.iter().map(|(&d, &n)| (d, n)).collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let shown: Vec<String> = by_count.iter().take(8).map(|(d, n)| format!("{d} ({})", count(*n))).collect();
    let more = if by_count.len() > 8 { format!(", … {} more", by_count.len() - 8) } else { String::new() };
    let overflow =
        if others > 0 { format!(" (+{} requests of further devices)", count(others)) } else { String::new() };
    line("devices", format!("{}: {}{more}{overflow}", by_count.len(), shown.join(", ")));
    let f = s.footprint();
    let how_exact = if f.sample_shift == 0 {
        "exact".to_string()
    } else {
        format!(
            "estimated from a 1-in-{} hash sample of pages: the exact sets outgrew their memory budget",
            1u64 << f.sample_shift
        )
    };
    line(
        "footprint",
        format!("{} distinct 4 KiB pages read or written = {} ({how_exact})", count(f.pages), bytes(f.pages * 4096)),
    );
    if f.untracked_requests > 0 {
        line("", format!("{} requests over 64 GiB were left out of the page statistics", count(f.untracked_requests)));
    }
    match f.hot_write_share {
        Some(hot) => line(
            "updates",
            format!(
                "{} distinct pages written; {:.1}% of them written ≥ {} times (write-update share)",
                count(f.written_pages),
                hot * 100.0,
                ssdlab_trace::stats::HOT_WRITES
            ),
        ),
        None => line("updates", "no writes".to_string()),
    }
    line(
        "sequential",
        format!(
            "{:.1}% of requests start where the previous request of the same op ended",
            s.sequential_share() * 100.0
        ),
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn traces() -> PathBuf {
        let dir = match std::env::var_os("SSDLAB_TRACES") {
            Some(dir) => PathBuf::from(dir),
            None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"),
        };
        assert!(dir.is_dir(), "trace folder {} not found: set SSDLAB_TRACES", dir.display());
        dir
    }

    fn temp(content: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(content).unwrap();
        f.flush().unwrap();
        f
    }

    #[test]
    fn number_formatting() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(4096), "4 KiB");
        assert_eq!(bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(micros(0.5), "0.50 µs");
        assert_eq!(micros(2500.0), "2.500 ms");
    }

    #[test]
    fn detected_flashsim_report_says_how_it_was_inferred() {
        let path = traces().join("umass_spc/fin1.trace");
        trace_stats(&path, None, &TraceOptions::default()).unwrap();
        let r = trace_stats_report(&path, None, &TraceOptions::default(), None).unwrap();
        assert!(r.contains("format       flashsim"), "{r}");
        assert!(r.contains("detected: INFERRED flashsim"), "{r}");
        assert!(r.contains("compression  none"), "{r}");
        assert!(r.contains("requests     50,000 (none skipped)"), "{r}");
        assert!(r.contains("read 29,199 (58.4%)"), "{r}");
        assert!(r.contains("[4 KiB, 8 KiB)"), "{r}");
        assert!(r.contains("(exact)"), "{r}");
        assert!(r.contains("written ≥ 4 times"), "{r}");
        assert!(r.contains("devices      1: 0 (50,000)"), "{r}");
    }

    #[test]
    fn blkparse_report_lists_skip_reasons_and_device_numbers() {
        let path = traces().join("blkparse_ycsb/blkparseout_ext4.txt");
        let r = trace_stats_report(&path, Some(Format::Blkparse), &TraceOptions::default(), None).unwrap();
        assert!(r.contains("(given with --format)"), "{r}");
        assert!(r.contains("9,887 (19,819 lines skipped: 2 blank line, 19,775 non-D event"), "{r}");
        assert!(r.contains("summary line"), "{r}");
        assert!(r.contains(&format!("devices      1: {} (9,887)", (8 << 20) | 16)), "{r}");
    }

    #[test]
    fn options_and_out_of_order_rows() {
        let path = traces().join("systor17_vdi/systor-traces-sample.csv");
        let r = trace_stats_report(&path, None, &TraceOptions::default(), None).unwrap();
        assert!(r.contains("arrivals earlier than their predecessor"), "{r}");
        let sorted = TraceOptions { sort_window: 1000, ..TraceOptions::default() };
        let r = trace_stats_report(&path, None, &sorted, None).unwrap();
        assert!(!r.contains("earlier than their predecessor"), "{r}");
        assert!(r.contains("options      sort window 1000 records"), "{r}");
        let tpcc = traces().join("ms_production/tpcc-small.trace");
        let one = TraceOptions { device: Some(3), ..TraceOptions::default() };
        let r = trace_stats_report(&tpcc, None, &one, None).unwrap();
        assert!(r.contains("other device (device filter)"), "{r}");
        assert!(r.contains("devices      1: 3 ("), "{r}");
    }

    #[test]
    fn compressed_untimed_and_malformed_inputs() {
        let f = temp(&zstd_raw_frame(b"0 8 0 0\n8 8 0 1\n16 8 0 2\n"));
        let r = trace_stats_report(f.path(), Some(Format::Arc), &TraceOptions::default(), None).unwrap();
        assert!(r.contains("compression  zstd"), "{r}");
        assert!(r.contains("none: arc traces carry no timestamps"), "{r}");
        assert!(r.contains("66.7% of requests start where"), "{r}");
        let bad = temp(b"0 0 0 8 1\n0 0 0 0 1\n5 0 8 8 0\n");
        let e = trace_stats_report(bad.path(), Some(Format::Mqsim), &TraceOptions::default(), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(":2: field 'size': zero-size request (--lenient"), "{e}");
        let lenient = TraceOptions { lenient: true, ..TraceOptions::default() };
        let r = trace_stats_report(bad.path(), Some(Format::Mqsim), &lenient, None).unwrap();
        assert!(r.contains("2 (1 line skipped: 1 zero-size request (lenient))"), "{r}");
        let e = trace_stats_report(Path::new("/nonexistent/x"), None, &TraceOptions::default(), None).unwrap_err();
        assert!(e.to_string().contains("cannot open"), "{e}");
    }

    /// A valid zstd frame holding `data` uncompressed (the CLI crate has no encoder):
    /// magic, a single-segment frame header with a 1-byte content size, one last raw block.
    fn zstd_raw_frame(data: &[u8]) -> Vec<u8> {
        assert!(data.len() < 256);
        let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, data.len() as u8];
        let block_header = ((data.len() as u32) << 3) | 1;
        out.extend_from_slice(&block_header.to_le_bytes()[..3]);
        out.extend_from_slice(data);
        out
    }
}
