//! Latencies on the page: per-request latencies gathered into log-spaced histograms
//! (from a `--requests` CSV, or during `run --html` / `compare --html` without keeping the
//! rows), and the latency CDF section drawn from them or the report's percentiles.

use super::*;

/// Request latencies by operation, in log-spaced buckets (1 ns to 10^14 ns).
#[derive(Clone, Default)]
pub struct LatencyHistograms {
    pub(super) by_op: BTreeMap<String, BTreeMap<u32, u64>>,
}

impl LatencyHistograms {
    pub fn record(&mut self, op: &str, latency_ns: u64) {
        let bucket = ((latency_ns.max(1) as f64).log10() * BUCKETS_PER_DECADE).floor() as u32;
        *self.by_op.entry(op.to_string()).or_default().entry(bucket).or_default() += 1;
    }

    /// The CDF of one operation: (latency in µs at the bucket's upper end, fraction).
    pub(super) fn cdf(&self, op: &str) -> Vec<(f64, f64)> {
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

    pub(super) fn line(&mut self, line: &[u8]) {
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
pub(super) struct StdoutRows;

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

/// Points of the CDF through the report's percentiles (min, p50, p90, p99, p99.9, max).
pub(super) fn percentile_cdf(report: &serde_json::Value, op: &str) -> Vec<(f64, f64)> {
    [("min", 0.0), ("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999), ("max", 1.0)]
        .iter()
        .map(|(k, f)| (num(report, &format!("{op}.latency_ns.{k}")) / 1e3, *f))
        .collect()
}

pub(super) fn latency_section(h: &mut String, runs: &[ReportRun]) {
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
