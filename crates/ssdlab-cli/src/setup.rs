//! Turns command-line arguments into a validated config plus a workload factory.

use crate::SetupArgs;
use anyhow::{anyhow, bail, Context, Result};
use ssdlab_core::config::{apply_overrides, parse_config, AddressOverflow, Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{
    detect_format, open_trace_with, parse_device_selector, scan_span_with, FioJob, Format, RecordSource,
    SyntheticSource, SyntheticSpec, TraceOptions,
};
use std::path::{Path, PathBuf};

/// The preset used when neither --preset nor --config is given.
pub const DEFAULT_PRESET: &str = "small-tlc";

/// Everything a run needs before the engine starts.
pub struct Prepared {
    pub config: Config,
    pub workload: Workload,
}

#[derive(Clone)]
pub enum Workload {
    Trace { path: PathBuf, format: Format, note: String, options: TraceOptions },
    Synthetic(SyntheticSpec),
    Fio { path: PathBuf, job: Box<FioJob>, capacity_bytes: u64 },
}

/// Reader options from the command line.
pub fn trace_options(device: Option<&str>, lenient: bool, sort_window: usize) -> Result<TraceOptions> {
    let device = device.map(|d| parse_device_selector(d).map_err(|e| anyhow!("--device: {e}"))).transpose()?;
    Ok(TraceOptions { device, lenient, sort_window, ..TraceOptions::default() })
}

impl Workload {
    pub fn describe(&self) -> String {
        match self {
            Workload::Trace { path, format, note, options } => {
                let extra = if options.is_default() { String::new() } else { format!(", {}", options.describe()) };
                format!("{} (format {}{note}{extra})", path.display(), format.name())
            }
            Workload::Fio { path, job, .. } => format!("fio job {} (iodepth {})", path.display(), job.iodepth()),
            Workload::Synthetic(s) => format!(
                "synthetic: {} x {} B {:?}, {:.0}% reads",
                s.count,
                s.block_size_bytes,
                s.pattern,
                s.read_fraction * 100.0
            )
            .to_lowercase(),
        }
    }

    /// Opens the workload from its start (called once per run of a multi-run).
    pub fn open(&self) -> Result<Box<dyn RecordSource>, ssdlab_trace::TraceError> {
        match self {
            Workload::Trace { path, format, options, .. } => open_trace_with(path, *format, options),
            Workload::Fio { job, capacity_bytes, path } => job
                .source(*capacity_bytes)
                .map(|s| Box::new(s) as Box<dyn RecordSource>)
                .map_err(|e| ssdlab_trace::TraceError::new(&path.display().to_string(), 0, "", e.to_string())),
            Workload::Synthetic(spec) => {
                SyntheticSource::new(spec.clone()).map(|s| Box::new(s) as Box<dyn RecordSource>).map_err(|errors| {
                    let text: Vec<String> =
                        errors.iter().map(|e| format!("workload.{}: {}", e.field, e.message)).collect();
                    ssdlab_trace::TraceError::new("<synthetic>", 0, "", text.join("; "))
                })
            }
        }
    }
}

pub fn load_config_file(path: &Path) -> Result<Config> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
    parse_config(&text, &path.display().to_string()).map_err(|e| anyhow!("{e}"))
}

pub fn apply_set(config: Config, set: &[String]) -> Result<Config> {
    if set.is_empty() {
        return Ok(config);
    }
    apply_overrides(&config, set).map_err(|e| anyhow!("--set {e}"))
}

pub fn validate(config: &Config, origin: &str) -> Result<()> {
    if let Err(errors) = config.validate() {
        let lines: Vec<String> = errors.iter().map(|e| format!("  {origin}: {e}")).collect();
        bail!("invalid configuration:\n{}", lines.join("\n"));
    }
    Ok(())
}

/// The built-in workload of the README's default run: a mixed random workload that
/// fills part of the drive, at queue depth 32.
pub fn default_synthetic() -> SyntheticSpec {
    SyntheticSpec { read_fraction: 0.3, block_size_bytes: 16384, count: 50_000, seed: 1, ..SyntheticSpec::default() }
}

pub fn prepare(args: &SetupArgs) -> Result<Prepared> {
    let (mut config, origin) = match (&args.config, &args.preset) {
        (Some(path), _) => (load_config_file(path)?, path.display().to_string()),
        (None, Some(name)) => (preset(name).map_err(|e| anyhow!("{e}"))?, format!("preset {name}")),
        (None, None) => (preset(DEFAULT_PRESET).map_err(|e| anyhow!("{e}"))?, format!("preset {DEFAULT_PRESET}")),
    };
    config = apply_set(config, &args.set)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    if let Some(runs) = args.runs {
        config.host.runs = runs;
    }
    if let Some(depth) = args.closed_loop {
        config.host.replay = ReplayMode::ClosedLoop;
        config.host.queue_depth = depth;
    }
    if let Some(speed) = args.speed {
        config.host.speed_factor = speed;
    }
    if args.burst {
        config.host.replay = ReplayMode::Burst;
    }
    if let Some(us) = args.burst_gap_us {
        config.host.burst_gap_ns = (us * 1e3) as u64;
    }
    if !args.power_loss_at.is_empty() {
        let mut times = args
            .power_loss_at
            .iter()
            .map(|t| ssdlab_trace::units::parse_time_ns(t, 1_000_000_000).map_err(|e| anyhow!("--power-loss-at: {e}")))
            .collect::<Result<Vec<u64>>>()?;
        times.extend(config.power.loss_at_ns.iter().copied());
        times.sort_unstable();
        times.dedup();
        config.power.loss_at_ns = times;
    }
    let mut options = trace_options(args.device.as_deref(), args.lenient, args.sort_window)?;
    options.time_unit = args.time_unit;
    if let Some(text) = &args.time_window {
        let parse = |v: &str| v.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
        let window = text.split_once(':').and_then(|(a, b)| Some((parse(a)?, parse(b)?))).filter(|(a, b)| a < b);
        let (start, end) =
            window.ok_or_else(|| anyhow!("--time-window '{text}': expected START:END in seconds, START < END"))?;
        options.time_window_ns = Some(((start * 1e9) as u64, (end * 1e9) as u64));
    }
    if let Some(path) = &args.job {
        let job = FioJob::from_path(path).map_err(|e| anyhow!("{e}"))?;
        if job.is_unbounded() {
            bail!(
                "{}: a time_based job without a request count never ends by itself; give number_ios, size or \
                 io_size (ssdlab runs until the workload is exhausted)",
                path.display()
            );
        }
        if !job.ignored_keys.is_empty() {
            eprintln!("note: {}: fio keys without effect in ssdlab: {}", path.display(), job.ignored_keys.join(", "));
        }
        if !job.has_timestamps() && args.closed_loop.is_none() {
            config.host.replay = ReplayMode::ClosedLoop;
            config.host.queue_depth = job.iodepth();
        }
        validate(&config, &origin)?;
        let capacity_bytes = working_set_bytes(&config);
        return Ok(Prepared {
            config,
            workload: Workload::Fio { path: path.clone(), job: Box::new(job), capacity_bytes },
        });
    }
    let workload = match &args.trace {
        Some(path) => {
            let (format, note) = match &args.format {
                Some(name) => (name.parse::<Format>().map_err(|e| anyhow!("--format: {e}"))?, String::new()),
                None => {
                    let (format, reason) = detect_format(path).map_err(|e| anyhow!("{e}"))?;
                    eprintln!("format: {reason}");
                    (format, format!(", detected: {reason}"))
                }
            };
            if !format.has_timestamps() && config.host.replay != ReplayMode::ClosedLoop {
                bail!(
                    "{}: the {} format has no timestamps; replay it closed loop (--closed-loop DEPTH)",
                    path.display(),
                    format.name()
                );
            }
            let needs_span =
                config.host.address_overflow == AddressOverflow::Scale && config.host.trace_span_bytes == 0;
            let needs_gap = config.host.replay == ReplayMode::Burst && config.host.burst_gap_ns == 0;
            if needs_span || needs_gap {
                let summary = scan_span_with(path, format, &options).map_err(|e| anyhow!("{e}"))?;
                if needs_span {
                    config.host.trace_span_bytes = summary.max_end_bytes;
                }
                if needs_gap {
                    // Thesis §7.3.4: the default threshold is the trace's mean inter-arrival time.
                    let span = summary.duration_ns().unwrap_or(0);
                    config.host.burst_gap_ns = (span / summary.requests.saturating_sub(1).max(1)).max(1);
                }
            }
            Workload::Trace { path: path.clone(), format, note, options }
        }
        None => {
            let mut spec = config.workload.clone().unwrap_or_else(|| {
                // The built-in workload is closed loop unless the user set a replay.
                if args.closed_loop.is_none() && config.host.replay == ReplayMode::OpenLoop {
                    config.host.replay = ReplayMode::ClosedLoop;
                    config.host.queue_depth = 32;
                }
                default_synthetic()
            });
            if let Some(text) = &args.synthetic {
                spec = apply_synthetic(spec, text)?;
            }
            if config.host.replay == ReplayMode::Burst && config.host.burst_gap_ns == 0 {
                config.host.burst_gap_ns = spec.interarrival_ns.max(1);
            }
            Workload::Synthetic(spec)
        }
    };
    validate(&config, &origin)?;
    let working_set = config.precondition.working_set_fraction < 1.0;
    if working_set && matches!(workload, Workload::Trace { .. }) {
        bail!(
            "precondition.working_set_fraction = {}: a trace addresses what it addresses; the working set confines \
             synthetic and fio workloads only (use host.address_overflow = \"scale\" to fit a trace)",
            config.precondition.working_set_fraction
        );
    }
    if let Workload::Synthetic(spec) = &workload {
        let logical = config.logical_bytes();
        if working_set && spec.address_space_bytes != 0 {
            bail!(
                "precondition.working_set_fraction = {} and workload.address_space_bytes = {} both set the region the \
                 workload addresses: set one",
                config.precondition.working_set_fraction,
                spec.address_space_bytes
            );
        }
        // MQSim's Working_Set_Percentage: the synthetic workload addresses the first
        // working_set_fraction of the logical capacity.
        let resolved = spec.resolve_address_space(working_set_bytes(&config));
        if resolved.start_offset_bytes + resolved.address_space_bytes > logical {
            bail!(
                "workload.address_space_bytes: the synthetic workload spans {} bytes but the device's logical \
                 capacity is {logical} bytes",
                resolved.start_offset_bytes + resolved.address_space_bytes
            );
        }
        return Ok(Prepared { config, workload: Workload::Synthetic(resolved) });
    }
    Ok(Prepared { config, workload })
}

/// The region a synthetic or fio workload addresses: the first
/// `precondition.working_set_fraction` of the logical capacity, whole pages.
fn working_set_bytes(config: &ssdlab_core::Config) -> u64 {
    let logical = config.logical_bytes();
    let page = config.geometry.page_size_bytes as u64;
    let fraction = config.precondition.working_set_fraction;
    if fraction >= 1.0 {
        return logical;
    }
    (((logical / page) as f64 * fraction).round() as u64).max(1) * page
}

/// Applies `key=value,key=value` to a synthetic spec through TOML, so the same keys and
/// error messages as a [workload] section apply.
fn apply_synthetic(spec: SyntheticSpec, text: &str) -> Result<SyntheticSpec> {
    let mut table = toml::Table::try_from(&spec).context("serialising workload")?;
    for item in text.split(',').filter(|s| !s.trim().is_empty()) {
        let (key, value) = item.split_once('=').ok_or_else(|| anyhow!("--synthetic: '{item}' is not key=value"))?;
        let key = key.trim();
        if !table.contains_key(key) {
            let keys: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
            let hint = ssdlab_core::config::did_you_mean(key, &keys)
                .map(|s| format!(" (did you mean '{s}'?)"))
                .unwrap_or_else(|| format!("; valid keys: {}", keys.join(", ")));
            bail!("--synthetic: unknown key '{key}'{hint}");
        }
        let parsed = toml::from_str::<toml::Table>(&format!("v = {}", value.trim()))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(value.trim().to_string()));
        table.insert(key.to_string(), parsed);
    }
    toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| anyhow!("--synthetic: {}", e.message()))
}
