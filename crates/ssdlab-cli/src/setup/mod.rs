//! Turns command-line arguments into a validated config plus a workload factory.

use crate::SetupArgs;
use anyhow::{anyhow, bail, Context, Result};
use ssdlab_core::config::{apply_overrides, AddressOverflow, Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{
    detect_format, open_trace_with, parse_device_selector, scan_span_with, FioJob, Format, RecordSource,
    SyntheticSource, SyntheticSpec, TraceOptions,
};
use std::path::{Path, PathBuf};

mod memory;
mod overrides;

pub use memory::{check_memory, estimate_memory_bytes, parse_memory};
pub use overrides::{apply_set, load_config_file, validate};

/// The preset used when neither --preset nor --config is given.
pub const DEFAULT_PRESET: &str = "small-tlc";

/// Everything a run needs before the engine starts.
pub struct Prepared {
    pub config: Config,
    pub workload: Workload,
    /// What became of every parameter of an MQSim or SSDSim file (None for ssdlab TOML).
    pub import: Option<crate::import::ImportReport>,
}

#[derive(Clone)]
pub enum Workload {
    Trace {
        path: PathBuf,
        format: Format,
        note: String,
        options: TraceOptions,
    },
    Synthetic(SyntheticSpec),
    Fio {
        path: PathBuf,
        job: Box<FioJob>,
        capacity_bytes: u64,
    },
    /// Records built in memory (the reproductions' composed workloads), with a name.
    Records {
        name: String,
        records: std::sync::Arc<Vec<ssdlab_trace::Record>>,
    },
    /// A trace whose records the CLI's pre-pass kept (`ssdlab_trace::prepass_keeping`):
    /// replayed from memory, the same stream as `trace` opened again, which it stands for
    /// everywhere else (its description, an error's line).
    Kept {
        trace: Box<Workload>,
        records: ssdlab_trace::KeptRecords,
    },
    /// The config's `[[flows]]`: one workload per flow (a trace or a synthetic one).
    Flows(Vec<FlowWorkload>),
    /// A workload with a second trace interleaved into it (`[mix]`).
    Mixed {
        main: Box<Workload>,
        mixed: Box<Workload>,
        spec: ssdlab_trace::MixSpec,
    },
}

/// One `[[flows]]` entry's workload.
#[derive(Clone)]
pub struct FlowWorkload {
    pub name: String,
    pub flow: ssdlab_core::config::Flow,
    pub workload: Workload,
}

impl FlowWorkload {
    /// The flow's records as the engine takes them: its workload, `flow.runs` times
    /// (the engine places them in the flow's range).
    pub fn open(&self) -> Result<Box<dyn RecordSource>, ssdlab_trace::TraceError> {
        let first = self.workload.open()?;
        if self.flow.runs <= 1 {
            return Ok(first);
        }
        Ok(Box::new(Repeat {
            workload: self.workload.clone(),
            source: first,
            left: self.flow.runs - 1,
            offset_ns: 0,
            span: None,
            records: 0,
            skipped: 0,
        }))
    }
}

/// A trace replayed several times (MQSim's `Relay_Count`): each replay starts one mean
/// inter-arrival gap after the previous one's last record, as `host.runs` does.
struct Repeat {
    workload: Workload,
    source: Box<dyn RecordSource>,
    left: u32,
    offset_ns: u64,
    /// The current replay's first and last arrival (trace clock).
    span: Option<(u64, u64)>,
    records: u64,
    skipped: u64,
}

impl Iterator for Repeat {
    type Item = Result<ssdlab_trace::Record, ssdlab_trace::TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.source.next() {
                Some(Ok(mut record)) => {
                    let (first, last) = self.span.get_or_insert((record.arrival_ns, record.arrival_ns));
                    *first = (*first).min(record.arrival_ns);
                    *last = (*last).max(record.arrival_ns);
                    self.records += 1;
                    record.arrival_ns = record.arrival_ns.saturating_add(self.offset_ns);
                    return Some(Ok(record));
                }
                Some(Err(e)) => return Some(Err(e)),
                None if self.left == 0 || self.records == 0 => return None,
                None => {
                    let (first, last) = self.span.take().expect("records were read");
                    let period = ssdlab_trace::replay_period_ns(first, last, self.records);
                    self.offset_ns = self.offset_ns.saturating_add(period);
                    self.skipped += self.source.skipped();
                    self.records = 0;
                    self.left -= 1;
                    match self.workload.open() {
                        Ok(source) => self.source = source,
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
        }
    }
}

impl RecordSource for Repeat {
    fn format_name(&self) -> &'static str {
        self.source.format_name()
    }

    fn skipped(&self) -> u64 {
        self.skipped + self.source.skipped()
    }
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
            Workload::Records { name, records } => format!("{name} ({} requests)", records.len()),
            Workload::Kept { trace, .. } => trace.describe(),
            Workload::Mixed { main, mixed, spec } => format!(
                "{} with {:.1}% of requests from {} (hint {:?})",
                main.describe(),
                spec.share * 100.0,
                mixed.describe(),
                spec.hint
            ),
            Workload::Flows(flows) => {
                let each: Vec<String> =
                    flows.iter().map(|f| format!("{}: {}", f.name, f.workload.describe())).collect();
                format!("{} flows: {}", flows.len(), each.join("; "))
            }
            Workload::Synthetic(s) if s.zoned.is_some() => {
                let z = s.zoned.as_ref().expect("matched");
                format!(
                    "zoned synthetic: {} x {} B, {} zones written at once by {}, {:.0}% reads, resets at {:.0}% of {} zones",
                    s.count,
                    s.block_size_bytes,
                    z.open_zones,
                    if z.append { "zone append" } else { "writes at the write pointer" },
                    s.read_fraction * 100.0,
                    z.utilisation * 100.0,
                    z.zones
                )
            }
            Workload::Synthetic(s) => format!(
                "synthetic: {} x {} B {:?}, {:.0}% reads",
                s.count,
                if s.block_size_max_bytes > s.block_size_bytes {
                    format!("{}-{}", s.block_size_bytes, s.block_size_max_bytes)
                } else {
                    s.block_size_bytes.to_string()
                },
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
            Workload::Records { records, .. } => {
                Ok(Box::new(ssdlab_core::source::VecSource::new(records.as_ref().clone())) as Box<dyn RecordSource>)
            }
            Workload::Kept { records, .. } => Ok(Box::new(records.rewound())),
            Workload::Mixed { main, mixed, spec } => {
                let again = mixed.as_ref().clone();
                let reopen: ssdlab_trace::Reopen = Box::new(move || again.open());
                Ok(Box::new(ssdlab_trace::MixSource::new(main.open()?, mixed.open()?, Some(reopen), *spec)))
            }
            // Every flow's records one after the other, each placed in its flow's range:
            // the pre-pass of preconditioning.
            Workload::Flows(flows) => {
                let sources = flows.iter().map(|f| f.open()).collect::<Result<Vec<_>, _>>()?;
                let placements = flows.iter().map(|f| f.flow.clone()).collect();
                Ok(Box::new(Chain { sources, placements, index: 0 }) as Box<dyn RecordSource>)
            }
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

/// Several sources read one after the other.
struct Chain {
    sources: Vec<Box<dyn RecordSource>>,
    placements: Vec<ssdlab_core::config::Flow>,
    index: usize,
}

impl Iterator for Chain {
    type Item = Result<ssdlab_trace::Record, ssdlab_trace::TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        while let Some(source) = self.sources.get_mut(self.index) {
            match source.next() {
                Some(Ok(mut record)) => {
                    self.placements[self.index].place(&mut record);
                    return Some(Ok(record));
                }
                Some(Err(e)) => return Some(Err(e)),
                None => self.index += 1,
            }
        }
        None
    }
}

impl RecordSource for Chain {
    fn format_name(&self) -> &'static str {
        "flows"
    }

    fn skipped(&self) -> u64 {
        self.sources.iter().map(|s| s.skipped()).sum()
    }
}

/// The workload of flow `k` of the config: its trace (format given or detected) or its
/// synthetic workload.
fn flow_workload(k: usize, config: &Config, options: &TraceOptions) -> Result<Workload> {
    let flow = &config.flows[k];
    let name = flow.display_name(k);
    if let Some(spec) = &flow.synthetic {
        return Ok(Workload::Synthetic(resolve_synthetic(spec, config, &format!("flows[{k}].synthetic"))?));
    }
    let path = readable_again(Path::new(&flow.trace)).with_context(|| format!("flows[{k}].trace ({name})"))?;
    let (format, note) = if flow.format.is_empty() || flow.format == "auto" {
        let (format, reason) =
            detect_format(&path).map_err(|e| anyhow!("flows[{k}].trace ({name}): {}", user_paths(e.to_string())))?;
        if guessed(&reason) {
            eprintln!("format of flow {name}: {reason}");
        }
        (format, format!(", detected: {reason}"))
    } else {
        (flow.format.parse::<Format>().map_err(|e| anyhow!("flows[{k}].format: {e}"))?, String::new())
    };
    if !format.has_timestamps() && flow.queue_depth == 0 {
        bail!("flows[{k}].trace ({name}): the {} format has no timestamps; give the flow a queue_depth", format.name());
    }
    let mut options = options.clone();
    if options.time_unit.is_none() && !flow.time_unit.is_empty() {
        // (--time-unit, when given, is already in the options and wins.)
        options.time_unit = Some(flow.time_unit.parse().map_err(|e| anyhow!("flows[{k}].time_unit: {e}"))?);
    }
    if flow.replay_percent < 100 {
        limit_to_percent(&path, format, &mut options, flow.replay_percent)?;
    }
    Ok(Workload::Trace { path, format, note, options })
}

/// Replays only the first `percent` of the trace's records (MQSim's
/// `Percentage_To_Be_Executed`): a pass over the trace counts them.
fn limit_to_percent(path: &Path, format: Format, options: &mut TraceOptions, percent: u32) -> Result<()> {
    let all = scan_trace(path, format, options).map_err(|e| anyhow!(user_paths(format!("{e:#}"))))?;
    options.max_records = Some((all.records * u64::from(percent) / 100).max(1));
    Ok(())
}

/// The built-in workload of the README's default run: a mixed random workload that
/// fills part of the drive, at queue depth 32.
pub fn default_synthetic() -> SyntheticSpec {
    SyntheticSpec { read_fraction: 0.3, block_size_bytes: 16384, count: 50_000, seed: 1, ..SyntheticSpec::default() }
}

pub fn prepare(args: &SetupArgs) -> Result<Prepared> {
    let mut import = None;
    let mut preconditioning = None;
    let mut kind = crate::import::Kind::Toml;
    let (mut config, origin) = match (&args.config, &args.preset) {
        (None, _) if args.config_text.is_some() => {
            let text = args.config_text.as_ref().expect("checked");
            let config = ssdlab_core::config::parse_config(&text.toml, &text.origin).map_err(|e| anyhow!("{e}"))?;
            (config, text.origin.clone())
        }
        (Some(path), _) => {
            let loaded = crate::import::load_checked(path, args.trace_args.lenient, args.strict)?;
            import = loaded.import;
            preconditioning = loaded.preconditioning;
            kind = loaded.kind;
            (loaded.config, path.display().to_string())
        }
        (None, Some(name)) => (preset(name).map_err(|e| anyhow!("{e}"))?, format!("preset {name}")),
        (None, None) => (preset(DEFAULT_PRESET).map_err(|e| anyhow!("{e}"))?, format!("preset {DEFAULT_PRESET}")),
    };
    // An MQSim workload scenario sets the host, the synthetic workload and preconditioning
    // on top of the device, before --set and the flags.
    let mut trace_flow = None;
    if let Some(path) = &args.workload {
        let index = match args.scenario {
            Some(k) => k,
            None => match crate::import::mqsim::scenario_count(path)? {
                1 => 1,
                n => bail!(
                    "{}: {n} scenarios: choose one with --scenario N (`ssdlab run` runs them all)",
                    path.display()
                ),
            },
        };
        let context = crate::import::mqsim::Context {
            device: &config,
            preconditioning,
            trace_dir: args.trace_dir.as_deref(),
            lenient: args.trace_args.lenient,
        };
        let scenario = crate::import::mqsim::scenario(path, index, &context)?;
        config = crate::import::apply_assigns(&config, &scenario.mapping.assigns)
            .map_err(|e| anyhow!("{}: scenario {index}: {e}", path.display()))?;
        match &mut import {
            Some(report) => report.merge(scenario.mapping.report),
            None => import = Some(scenario.mapping.report),
        }
        trace_flow = scenario.trace;
    }
    if let (Some(report), false) = (&import, args.quiet) {
        eprint!("{}", report.listing());
    }
    // No [workload] section: the built-in workload, whatever `--set workload.…` changes in it.
    let built_in_workload = config.workload.is_none();
    config = apply_set(config, &args.set)?;
    // Values given as flags are checked here, so an error blames the flag, not the preset.
    if args.runs == Some(0) {
        bail!("--runs 0: replay the workload at least once");
    }
    if args.closed_loop == Some(0) {
        bail!("--closed-loop 0: the queue depth must be at least 1");
    }
    if let Some(speed) = args.speed.filter(|s| !(s.is_finite() && *s > 0.0)) {
        bail!("--speed {speed}: the speed factor must be a positive number (2 = twice as fast)");
    }
    if let Some(us) = args.burst_gap_us.filter(|g| !(g.is_finite() && *g > 0.0)) {
        bail!("--burst-gap-us {us}: the gap threshold must be a positive number of microseconds");
    }
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
    let mut options = args.trace_args.options()?;
    if options.time_unit.is_none() && !config.host.time_unit.is_empty() {
        options.time_unit = Some(config.host.time_unit.parse().map_err(|e| anyhow!("host.time_unit: {e}"))?);
    }
    if let Some(path) = &args.job {
        let mut job = FioJob::from_path(path).map_err(|e| anyhow!("{e}"))?;
        if job.zbd.enabled {
            let mut zones = ssdlab_trace::zoned::ZonedSpec::default();
            resolve_zones(&mut zones, &config);
            if job.zbd.zone_size == 0 {
                (job.zbd.zone_size, job.zbd.zone_capacity) = (zones.zone_size_bytes, zones.zone_capacity_bytes);
            }
            // (The drive's conventional zones, which the zoned writers skip.)
            job.zbd.conventional_bytes = zones.start_bytes;
        }
        if job.is_unbounded() {
            bail!(
                "{}: a time_based job without a request count never ends by itself; give number_ios, size or \
                 io_size (ssdlab runs until the workload is exhausted)",
                path.display()
            );
        }
        if !job.ignored_keys.is_empty() && !args.quiet {
            eprintln!("note: {}: fio keys without effect in ssdlab: {}", path.display(), job.ignored_keys.join(", "));
        }
        if !job.has_timestamps() && args.closed_loop.is_none() {
            config.host.replay = ReplayMode::ClosedLoop;
            config.host.queue_depth = job.iodepth();
        }
        validate(&config, &origin)?;
        let capacity_bytes = working_set_bytes(&config);
        let workload = Workload::Fio { path: path.clone(), job: Box::new(job), capacity_bytes };
        let workload = mixed_in(workload, &config, &options, args.quiet)?;
        return Ok(Prepared { config, workload, import });
    }
    if !config.flows.is_empty() {
        if args.trace.is_some() || trace_flow.is_some() {
            bail!("the config has [[flows]], each with its workload: give no --trace or MQSim trace flow");
        }
        if let Some(text) = &args.synthetic {
            // --synthetic K=V,... changes every synthetic flow (e.g. a shorter count).
            let mut synthetic = 0;
            for spec in config.flows.iter_mut().filter_map(|f| f.synthetic.as_mut()) {
                *spec = apply_synthetic(spec.clone(), text)?;
                synthetic += 1;
            }
            if synthetic == 0 {
                bail!("--synthetic: the config's [[flows]] are all trace flows; it changes synthetic flows only");
            }
            // A count for several flows: flows of different speeds given the same count
            // would end far apart, and the fast one's tail would run alone. So the
            // flows stop together, when the first has submitted its count.
            let count = text.split(',').any(|kv| kv.split_once('=').is_some_and(|(k, _)| k.trim() == "count"));
            let chosen = args.set.iter().any(|kv| kv.split('=').next().is_some_and(|k| k.trim() == "host.flows_end"));
            if count && config.flows.len() > 1 && !chosen {
                config.host.flows_end = ssdlab_core::config::FlowsEnd::First;
                if !args.quiet {
                    eprintln!(
                        "note: --synthetic count with {} flows: each synthetic flow gets that count, and every flow \
                         stops submitting once the first has submitted its last request (host.flows_end = \"first\"), \
                         so they contend for the whole run; --set host.flows_end=each (and flows.K.synthetic.count=N \
                         per flow) runs each to its own count",
                        config.flows.len()
                    );
                }
            }
        }
        validate(&config, &origin)?;
        let flows = config
            .flows
            .iter()
            .enumerate()
            .map(|(k, f)| {
                let workload = flow_workload(k, &config, &options)?;
                Ok(FlowWorkload { name: f.display_name(k), flow: f.clone(), workload })
            })
            .collect::<Result<Vec<_>>>()?;
        return Ok(Prepared { config, workload: Workload::Flows(flows), import });
    }
    let trace = args.trace.clone().or_else(|| trace_flow.as_ref().map(|t| t.path.clone()));
    if let Some(flow) = &trace_flow {
        // MQSim's Time_Unit; an explicit --time-unit still wins.
        if options.time_unit.is_none() {
            options.time_unit = Some(flow.time_unit);
        }
    }
    let workload = match &trace {
        Some(given) => {
            let path = &readable_again(given)?;
            let implied = match (&trace_flow, kind) {
                (Some(_), _) => Some((Format::Mqsim, ", an MQSim trace flow".to_string())),
                (None, crate::import::Kind::Ssdsim) => Some((
                    Format::Ssdsim,
                    ", SSDSim's trace format (the config is an SSDSim parameter file)".to_string(),
                )),
                _ => None,
            };
            let (format, note) = match (&args.trace_args.format, implied) {
                (Some(name), _) => (name.parse::<Format>().map_err(|e| anyhow!("--format: {e}"))?, String::new()),
                (None, Some(implied)) => implied,
                (None, None) => {
                    let (format, reason) = detect_format(path).map_err(|e| anyhow!("{}", user_paths(e.to_string())))?;
                    if guessed(&reason) {
                        eprint_once(format!("format: {reason}"));
                    }
                    (format, format!(", detected: {reason}"))
                }
            };
            if let Some(flow) = trace_flow.as_ref().filter(|f| f.percent < 100) {
                limit_to_percent(path, format, &mut options, flow.percent)?;
            }
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
            Workload::Trace { path: path.clone(), format, note, options: options.clone() }
        }
        None => {
            let mut spec = match config.workload.clone() {
                Some(spec) if !built_in_workload => spec,
                set => {
                    // The built-in workload is closed loop unless the user set a replay.
                    if args.closed_loop.is_none() && config.host.replay == ReplayMode::OpenLoop {
                        config.host.replay = ReplayMode::ClosedLoop;
                        config.host.queue_depth = 32;
                    }
                    set.unwrap_or_else(default_synthetic)
                }
            };
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
    let workload = match &workload {
        Workload::Synthetic(spec) => Workload::Synthetic(resolve_synthetic(spec, &config, "workload")?),
        _ => workload,
    };
    let workload = mixed_in(workload, &config, &options, args.quiet)?;
    Ok(Prepared { config, workload, import })
}

/// Whether a detected format is a guess (`INFERRED …`, `ASSUMED …`): said on stderr even
/// with `--quiet`, as a warning is. A sure detection is said once, in the summary's
/// workload line (issue 45: it was printed twice).
/// Prints a line on stderr unless this process printed it already: `compare` prepares
/// every variant from the same trace, and its detected format is one note, not N.
fn eprint_once(line: String) {
    static PRINTED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut printed = PRINTED.lock().expect("no panic holds the lock");
    if !printed.contains(&line) {
        eprintln!("{line}");
        printed.push(line);
    }
}

fn guessed(reason: &str) -> bool {
    reason.contains("INFERRED ") || reason.contains("ASSUMED ")
}

/// The workload with `[mix]`'s trace interleaved into it (unchanged without one).
fn mixed_in(workload: Workload, config: &Config, options: &TraceOptions, quiet: bool) -> Result<Workload> {
    let m = &config.mix;
    if !m.enabled() {
        return Ok(workload);
    }
    let path = readable_again(Path::new(&m.trace)).context("mix.trace")?;
    let format = if m.format.is_empty() || m.format == "auto" {
        let (format, reason) = detect_format(&path).map_err(|e| anyhow!("mix.trace: {}", user_paths(e.to_string())))?;
        // (Not in the summary: said here, and always when it is a guess.)
        if !quiet || guessed(&reason) {
            eprintln!("format of mix.trace: {reason}");
        }
        format
    } else {
        m.format.parse::<Format>().map_err(|e| anyhow!("mix.format: {e}"))?
    };
    let mut options = options.clone();
    if options.time_unit.is_none() && !m.time_unit.is_empty() {
        options.time_unit = Some(m.time_unit.parse().map_err(|e| anyhow!("mix.time_unit: {e}"))?);
    }
    let spec = ssdlab_trace::MixSpec {
        share: m.percent / 100.0,
        hint: Some(m.hint),
        offset_bytes: m.offset_bytes,
        size_bytes: m.size_bytes,
    };
    let mixed = Workload::Trace { path, format, note: String::new(), options };
    Ok(Workload::Mixed { main: Box::new(workload), mixed: Box::new(mixed), spec })
}

/// A synthetic workload's address range on this device (`key`: where the spec came from,
/// for errors). MQSim's Working_Set_Percentage: it addresses the first
/// `precondition.working_set_fraction` of the logical capacity unless it sets its own.
fn resolve_synthetic(spec: &SyntheticSpec, config: &Config, key: &str) -> Result<SyntheticSpec> {
    if config.precondition.working_set_fraction < 1.0 && spec.address_space_bytes != 0 {
        bail!(
            "precondition.working_set_fraction = {} and {key}.address_space_bytes = {} both set the region the \
             workload addresses: set one",
            config.precondition.working_set_fraction,
            spec.address_space_bytes
        );
    }
    let logical = config.logical_bytes();
    let mut resolved = spec.resolve_address_space(working_set_bytes(config));
    if let Some(z) = resolved.zoned.as_mut() {
        resolve_zones(z, config);
    }
    if resolved.start_offset_bytes + resolved.address_space_bytes > logical {
        bail!(
            "{key}.address_space_bytes: the synthetic workload spans {} bytes but the device's logical capacity is \
             {logical} bytes",
            resolved.start_offset_bytes + resolved.address_space_bytes
        );
    }
    Ok(resolved)
}

/// A zoned workload's zone geometry left 0: the drive's (`[designs.zns]`), if it has one.
fn resolve_zones(z: &mut ssdlab_trace::zoned::ZonedSpec, config: &Config) {
    use ssdlab_core::designs::zns::config::{Layout, ZnsConfig};
    let Ok(section) = config.design_section::<ZnsConfig>("zns") else { return };
    let Ok(l) = Layout::new(config, &section) else { return };
    if !section.enabled {
        return;
    }
    if z.zone_size_bytes == 0 {
        z.zone_size_bytes = l.zone_pages as u64 * l.page_bytes;
    }
    if z.zone_capacity_bytes == 0 {
        z.zone_capacity_bytes = l.capacity_pages as u64 * l.page_bytes;
    }
    let conventional = l.conventional_pages() as u64 * l.page_bytes;
    if z.start_bytes == 0 {
        // (Conventional zones, the first ones, are written at random, not by the writers.)
        z.start_bytes = conventional;
    }
    if z.zones == 0 {
        // (SLC-mode zones, the last ones, are the host's own write cache.)
        let skipped = (z.start_bytes.saturating_sub(conventional) / z.zone_size_bytes.max(1)) as u32;
        z.zones = l.normal_zones().saturating_sub(skipped);
    }
}

/// The region a synthetic or fio workload addresses: the first
/// `precondition.working_set_fraction` of the logical capacity, whole pages.
fn working_set_bytes(config: &ssdlab_core::Config) -> u64 {
    // (On a zoned drive with the host layer: the application's space, not the drive's.)
    let logical = ssdlab_core::designs::zns::host_layer::application_bytes(config).unwrap_or(config.logical_bytes());
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

// ---------------------------------------------------------------------------------------
// Inputs read once, trace pre-pass, error locations, memory estimate (issue 17)

/// Spill files of traces given as pipes, with the name the user gave; removed by
/// [`remove_spills`] when the command ends.
static SPILLS: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());

/// A trace path that can be opened more than once. The simulator reads a trace several
/// times (format detection, the preconditioning pre-pass, each run of a multi-run), so a
/// pipe (`<(gzip -dc …)`, `/dev/stdin`) is copied once, as it comes, to a temporary file
/// that is removed when the command ends; a regular file is used as it is. `-` is the
/// standard input, copied the same way (`blkparse … | ssdlab run --trace -`).
pub fn readable_again(path: &Path) -> Result<PathBuf> {
    if path.as_os_str() == "-" {
        return spill(&mut std::io::stdin().lock(), "stdin", "-");
    }
    let meta = std::fs::metadata(path).with_context(|| format!("{}: cannot open", path.display()))?;
    if meta.is_file() || meta.is_dir() {
        return Ok(path.to_path_buf());
    }
    let mut input = std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "input".into());
    spill(&mut input, &name, &path.display().to_string())
}

/// Copies `input` to a temporary file named after `name`, remembered with `shown` (the
/// name errors give) for [`user_paths`] and [`remove_spills`].
fn spill(input: &mut dyn std::io::Read, name: &str, shown: &str) -> Result<PathBuf> {
    let mut spills = SPILLS.lock().expect("no panic holds the lock");
    let spill = std::env::temp_dir().join(format!("ssdlab-{}-{}-{name}", std::process::id(), spills.len()));
    let mut out = std::fs::File::create(&spill)
        .with_context(|| format!("{shown}: cannot create a temporary copy at {}", spill.display()))?;
    spills.push((spill.clone(), shown.to_string()));
    std::io::copy(input, &mut out).with_context(|| format!("{shown}: reading the pipe"))?;
    Ok(spill)
}

/// Removes the temporary copies made by [`readable_again`].
pub fn remove_spills() {
    if let Ok(mut spills) = SPILLS.lock() {
        for (path, _) in spills.drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// `text` with every temporary copy's path replaced by the name the user gave.
pub fn user_paths(text: String) -> String {
    let spills = SPILLS.lock().map(|s| s.clone()).unwrap_or_default();
    spills.iter().fold(text, |t, (spill, name)| t.replace(&spill.display().to_string(), name))
}

/// Opens a trace like [`Workload::open`] and also returns a counter of the lines read
/// so far: after a record is yielded it holds that record's line (approximately under a
/// sort window, which reads ahead).
fn open_counted(
    path: &Path,
    format: Format,
    options: &TraceOptions,
) -> Result<(Box<dyn RecordSource>, std::sync::Arc<std::sync::atomic::AtomicU64>)> {
    let name = path.display().to_string();
    ssdlab_trace::validate_options_for(format, options).map_err(|m| anyhow!("{name}: {m}"))?;
    let (input, _) = ssdlab_trace::open_decompressed(path).map_err(|e| anyhow!("{e}"))?;
    let (counted, lines) = ssdlab_trace::prepass::CountLines::new(input);
    let source = options.apply(format.reader_with_options(counted, name, options));
    Ok((source, lines))
}

/// What the CLI's own pre-pass over a trace found.
#[derive(Clone, Debug, Default)]
pub struct TraceScan {
    /// Records one run replays.
    pub records: u64,
    /// Latest arrival minus the first (ns).
    pub span_ns: u64,
    /// The longest forward jump between an arrival and the latest before it:
    /// (gap ns, line, record index from 0, arrival ns on the trace's clock).
    pub largest_gap: Option<(u64, u64, u64, u64)>,
    /// The earliest arrival (ns on the trace's clock).
    pub earliest_ns: Option<u64>,
}

/// A gap longer than this between two arrivals is reported (one day: longer than the
/// traces' recordings, so a clock jump or a corrupted timestamp).
pub const ABSURD_GAP_NS: u64 = 86_400_000_000_000;

/// MSR Cambridge stamps are Windows FILETIME ticks (100 ns since 1601): the published
/// traces (2007) start near 1.28e17 ticks. Stamps below 1e17 ticks (before 1918) are not
/// FILETIMEs; pre-processed copies rebase them to seconds or milliseconds.
const MSR_FILETIME_MIN_NS: u64 = 100 * 100_000_000_000_000_000;

/// A warning when a trace's time column cannot be in the unit it is read in: MSR stamps
/// far below the FILETIME range (rebased copies) read as 100-ns ticks. Not when the
/// user named the unit (`--time-unit`).
pub fn time_unit_warning(path: &Path, format: Format, options: &TraceOptions, scan: &TraceScan) -> Option<String> {
    if format != Format::Msr || options.time_unit.is_some() || scan.records < 2 {
        return None;
    }
    let earliest = scan.earliest_ns?;
    if earliest >= MSR_FILETIME_MIN_NS {
        return None;
    }
    Some(format!(
        "{}: MSR timestamps are Windows FILETIME ticks (100 ns since 1601; the published traces start near \
         1.28e17), but the earliest here is {} ticks: the stamps look rebased, and read as ticks the {} requests \
         span only {:.3} ms. If they are seconds (or ms, us), name the unit with --time-unit s (ms, us)",
        user_paths(path.display().to_string()),
        earliest / 100,
        scan.records,
        scan.span_ns as f64 / 1e6
    ))
}

/// One pass over a trace: record count, span and the largest timestamp gap with its line.
pub fn scan_trace(path: &Path, format: Format, options: &TraceOptions) -> Result<TraceScan> {
    let (mut source, lines) = open_counted(path, format, options)?;
    let mut scan = TraceScan::default();
    let (mut first, mut latest) = (None::<u64>, 0u64);
    for record in &mut source {
        let record = record.map_err(|e| anyhow!("{e}"))?;
        let at = record.arrival_ns;
        scan.earliest_ns = Some(scan.earliest_ns.map_or(at, |e| e.min(at)));
        match first {
            None => {
                first = Some(at);
                latest = at;
            }
            Some(_) if at > latest => {
                let gap = at - latest;
                if scan.largest_gap.is_none_or(|(g, ..)| gap > g) {
                    let line = lines.load(std::sync::atomic::Ordering::Relaxed);
                    scan.largest_gap = Some((gap, line, scan.records, at));
                }
                latest = at;
            }
            Some(_) => {}
        }
        scan.records += 1;
    }
    scan.span_ns = latest - first.unwrap_or(latest);
    Ok(scan)
}

/// The line of a trace holding the workload's request `id` (counted from 0 over all runs
/// of a multi-run), when the workload is a trace.
fn request_line(workload: &Workload, id: u64) -> Option<(String, u64)> {
    if let Workload::Kept { trace, .. } = workload {
        return request_line(trace, id);
    }
    let Workload::Trace { path, format, options, .. } = workload else { return None };
    let count = |limit: Option<u64>| -> Option<(u64, u64)> {
        let (mut source, lines) = open_counted(path, *format, options).ok()?;
        let mut n = 0;
        for record in &mut source {
            record.ok()?;
            if Some(n) == limit {
                return Some((n, lines.load(std::sync::atomic::Ordering::Relaxed)));
            }
            n += 1;
        }
        Some((n, 0))
    };
    let (records, _) = count(None)?;
    let (_, line) = count(Some(id % records.max(1)))?;
    (line > 0).then(|| (user_paths(path.display().to_string()), line))
}

/// A simulation error as the user should read it: a request-level error names the trace
/// file and line of the request (the engine knows only its index), and temporary copies
/// of pipes are named as the user gave them.
pub fn locate_error(error: &ssdlab_core::SimError, workload: &Workload) -> String {
    let text = user_paths(error.to_string());
    if let ssdlab_core::SimError::Request { id, .. } = error {
        if let Some((file, line)) = request_line(workload, *id) {
            return format!("{file}:{line}: {text}");
        }
    }
    text
}
