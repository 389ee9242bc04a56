//! MQSim's workload file (`workload.xml`: `<MQSim_IO_Scenarios>`, one run per
//! `<IO_Scenario>`), with every element's fate recorded. A scenario of one flow over the
//! whole drive becomes ssdlab's synthetic workload or trace replay with host and
//! preconditioning keys; several flows, or a flow pinned to some channels, chips, dies
//! or planes, become `[[flows]]`, each with its logical range as MQSim partitions the
//! address space and its priority class.

use super::mqsim::{elements, leaves, line_of, parse_xml};
use super::{boolean, count, origin, whole, Fate, Item, Items, Mapping, Vocabulary};
use anyhow::{anyhow, bail, Result};
use ssdlab_core::Config;
use ssdlab_trace::TimeUnit;
use std::path::{Path, PathBuf};

const SECTOR: u64 = 512;

/// A trace-based flow: the trace and how to read it (the rest is in the mapping).
#[derive(Clone, Debug)]
pub struct TraceFlow {
    pub path: PathBuf,
    pub time_unit: TimeUnit,
    /// `Percentage_To_Be_Executed`: replay this share of the trace's requests.
    pub percent: u32,
}

/// One `<IO_Scenario>` as an ssdlab run.
pub struct Scenario {
    pub mapping: Mapping,
    pub trace: Option<TraceFlow>,
}

/// What a scenario needs to know about the run it becomes.
pub struct Context<'a> {
    pub device: &'a Config,
    /// MQSim's `Enabled_Preconditioning` when the device came from an MQSim file.
    pub preconditioning: Option<bool>,
    pub trace_dir: Option<&'a Path>,
    /// `--lenient`: likely typos in the workload file are warnings, not errors.
    pub lenient: bool,
}

/// The elements of an MQSim flow (its reference version's IO_Flow_Parameter_Set.cpp,
/// synthetic and trace-based; `Intensity` as its shipped workload.xml writes the rate).
pub(super) const FLOW: Vocabulary = Vocabulary {
    simulator: "MQSim",
    noun: "element",
    names: &[
        "Priority_Class",
        "Device_Level_Data_Caching_Mode",
        "Channel_IDs",
        "Chip_IDs",
        "Die_IDs",
        "Plane_IDs",
        "Initial_Occupancy_Percentage",
        "Working_Set_Percentage",
        "Synthetic_Generator_Type",
        "Read_Percentage",
        "Address_Distribution",
        "Percentage_of_Hot_Region",
        "Generated_Aligned_Addresses",
        "Address_Alignment_Unit",
        "Request_Size_Distribution",
        "Average_Request_Size",
        "Variance_Request_Size",
        "Seed",
        "Average_No_of_Reqs_in_Queue",
        "Bandwidth",
        "Intensity",
        "Stop_Time",
        "Total_Requests_To_Generate",
        "File_Path",
        "Percentage_To_Be_Executed",
        "Relay_Count",
        "Time_Unit",
    ],
};

/// What `<MQSim_IO_Scenarios>` holds.
const SCENARIOS: Vocabulary = Vocabulary { simulator: "MQSim", noun: "element", names: &["IO_Scenario"] };

fn workload_doc<'a>(text: &'a str, file: &str) -> Result<roxmltree::Document<'a>> {
    let doc = parse_xml(text, file)?;
    let root = doc.root_element();
    if root.tag_name().name() != "MQSim_IO_Scenarios" {
        bail!(
            "{file}:{}: the root element is <{}>; an MQSim workload has <MQSim_IO_Scenarios>",
            line_of(&doc, root),
            root.tag_name().name()
        );
    }
    Ok(doc)
}

/// The number of `<IO_Scenario>` elements.
pub fn scenario_count(path: &Path) -> Result<usize> {
    let text = super::decode_text(&super::read_file(path)?);
    let file = path.display().to_string();
    let doc = workload_doc(&text, &file)?;
    let n = elements(doc.root_element()).filter(|n| n.tag_name().name() == "IO_Scenario").count();
    if n == 0 {
        bail!("{file}: no <IO_Scenario> element: nothing to run");
    }
    Ok(n)
}

/// Sets up every one of the `count` scenarios of `setup`'s workload file as its run would
/// (device, scenario, trace files found and opened, the resulting config validated), so
/// that a broken scenario stops `ssdlab run` before any scenario is simulated. The error
/// names every scenario that cannot run.
pub fn check_every_scenario(setup: &crate::SetupArgs, count: usize) -> Result<()> {
    // (scenarios, error): one entry per distinct error (a device's error is every scenario's).
    let mut problems: Vec<(Vec<usize>, String)> = Vec::new();
    for k in 1..=count {
        let mut args = setup.clone();
        args.scenario = Some(k);
        // The runs print the notes; this only looks for errors.
        args.quiet = true;
        if let Err(e) = crate::setup::prepare(&args) {
            let text = format!("{e:#}");
            match problems.iter_mut().find(|(_, t)| *t == text) {
                Some((ks, _)) => ks.push(k),
                None => problems.push((vec![k], text)),
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let failed: usize = problems.iter().map(|(ks, _)| ks.len()).sum();
    let lines: Vec<String> = problems
        .iter()
        .map(|(ks, text)| {
            let which: Vec<String> = ks.iter().map(|k| k.to_string()).collect();
            let noun = if ks.len() == 1 { "scenario" } else { "scenarios" };
            format!("  {noun} {} of {count}: {text}", which.join(", "))
        })
        .collect();
    let workload = setup.workload.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
    bail!(
        "{workload}: {failed} of {count} scenarios cannot run (every scenario is checked first; none was simulated):\n{}",
        lines.join("\n")
    )
}

pub(super) struct Flow {
    pub trace: bool,
    pub line: u32,
    pub items: Items,
}

/// Scenario `index` (from 1) of a workload file.
pub fn scenario(path: &Path, index: usize, ctx: &Context) -> Result<Scenario> {
    let text = super::decode_text(&super::read_file(path)?);
    let file = path.display().to_string();
    let doc = workload_doc(&text, &file)?;
    let mut m = Mapping::default();
    m.report.format = "mqsim".into();
    m.report.files.push(file.clone());
    let mut other = Items::new(&file);
    let mut scenarios = Vec::new();
    for node in elements(doc.root_element()) {
        if node.tag_name().name() == "IO_Scenario" {
            scenarios.push(node);
        } else {
            other.push(line_of(&doc, node), node.tag_name().name(), node.text().unwrap_or("").trim());
        }
    }
    other.finish(&mut m, &SCENARIOS, |_| false)?;
    let total = scenarios.len();
    let node = *scenarios
        .get(index.wrapping_sub(1))
        .ok_or_else(|| anyhow!("--scenario {index}: {file} has {total} scenario(s), numbered from 1"))?;
    m.report.scenario = Some(format!("{index} of {total}"));
    let mut flows = Vec::new();
    for flow in elements(node) {
        let kind = flow.tag_name().name();
        let trace = match kind {
            "IO_Flow_Parameter_Set_Synthetic" => false,
            "IO_Flow_Parameter_Set_Trace_Based" => true,
            other => bail!(
                "{file}:{}: <{other}> in an IO_Scenario: MQSim's flows are IO_Flow_Parameter_Set_Synthetic and \
                 IO_Flow_Parameter_Set_Trace_Based",
                line_of(&doc, flow)
            ),
        };
        let mut items = Items::new(&file);
        leaves(&doc, flow, &mut items);
        flows.push(Flow { trace, line: line_of(&doc, flow), items });
    }
    if flows.is_empty() {
        bail!("{file}:{}: scenario {index} has no flow", line_of(&doc, node));
    }
    let lists = flows.iter().map(|f| pinned(&f.items, ctx.device)).collect::<Result<Vec<_>>>()?;
    let confined = lists.iter().flatten().any(|ids| !ids.is_empty());
    let mut trace = None;
    if flows.len() == 1 && !confined {
        let flow = &mut flows[0];
        common(&mut flow.items, &mut m, ctx)?;
        whole_device(&mut flow.items, &mut m);
        if let Some(item) = flow.items.take("Priority_Class") {
            priority(&item)?;
            m.param(&item, Fate::Mapped, &[], "one flow: its class has no other flow to be ordered against");
        }
        if flow.trace {
            trace = Some(trace_flow(&mut flow.items, &mut m, path, ctx)?);
        } else {
            let depth = queue_depth(&flow.items)?;
            synthetic(&mut flow.items, &mut m, ctx, depth)?;
        }
        let items = std::mem::replace(&mut flow.items, Items::new(&file));
        items.finish(&mut m, &FLOW, |_| false)?;
    } else {
        super::mqsim_flows::flows(&mut flows, &lists, &mut m, path, ctx)?;
    }
    m.report.recount();
    m.report.check_typos(ctx.lenient)?;
    Ok(Scenario { mapping: m, trace })
}

pub(super) fn percent(item: &Item) -> Result<u64> {
    let v = whole(item)?;
    if v > 100 {
        bail!("{}:{}: {}: {v} is not a percentage (0 to 100)", item.file, item.line, item.key);
    }
    Ok(v)
}

/// The ids an `*_IDs` element lists, and whether they are all of the device's.
fn id_list(item: &Item, size: u32, what: &str) -> Result<(Vec<u32>, bool)> {
    let mut seen = vec![false; size as usize];
    let mut ids = Vec::new();
    for part in item.value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let id: u32 = part
            .parse()
            .map_err(|_| anyhow!("{}:{}: {}: '{part}' is not a {what} number", item.file, item.line, item.key))?;
        let slot = seen.get_mut(id as usize).ok_or_else(|| {
            anyhow!("{}:{}: {}: {what} {id} does not exist (the device has {size})", item.file, item.line, item.key)
        })?;
        if !*slot {
            ids.push(id);
        }
        *slot = true;
    }
    if ids.is_empty() {
        bail!("{}:{}: {}: no {what} listed: the flow would have nowhere to go", item.file, item.line, item.key);
    }
    Ok((ids, seen.iter().all(|&s| s)))
}

/// The `*_IDs` elements: MQSim's name, the `[[flows]]` key, what it counts.
pub(super) const PARTS: [(&str, &str, &str); 4] = [
    ("Channel_IDs", "channels", "channel"),
    ("Chip_IDs", "chips", "chip"),
    ("Die_IDs", "dies", "die"),
    ("Plane_IDs", "planes", "plane"),
];

/// The channels, chips, dies and planes a flow's `*_IDs` elements confine it to, in
/// `PARTS` order; an empty list is every one (the element absent or naming them all).
pub(super) fn pinned(items: &Items, c: &Config) -> Result<[Vec<u32>; 4]> {
    let g = &c.geometry;
    let sizes = [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die];
    let mut lists: [Vec<u32>; 4] = Default::default();
    for (d, (key, _, what)) in PARTS.iter().enumerate() {
        if let Some(item) = items.all().filter(|i| i.key == *key).last() {
            let (ids, all) = id_list(item, sizes[d], what)?;
            if !all {
                lists[d] = ids;
            }
        }
    }
    Ok(lists)
}

pub(super) fn priority(item: &Item) -> Result<&'static str> {
    Ok(match item.value.as_str() {
        "URGENT" => "urgent",
        "HIGH" => "high",
        "MEDIUM" => "medium",
        "LOW" => "low",
        _ => bail!(
            "{}:{}: Priority_Class: unknown value '{}' (MQSim: URGENT, HIGH, MEDIUM, LOW)",
            item.file,
            item.line,
            item.value
        ),
    })
}

/// A QUEUE_DEPTH flow's `Average_No_of_Reqs_in_Queue` (0 when absent).
pub(super) fn queue_depth(items: &Items) -> Result<u64> {
    items.all().filter(|i| i.key == "Average_No_of_Reqs_in_Queue").last().map(whole).transpose().map(|d| d.unwrap_or(0))
}

/// A flow over the whole drive: its `*_IDs` elements name every channel, chip, die and
/// plane (`pinned` checked them).
fn whole_device(items: &mut Items, m: &mut Mapping) {
    for (key, _, what) in PARTS {
        if let Some(item) = items.take(key) {
            m.param(&item, Fate::Mapped, &[], format!("every {what} of the device"));
        }
    }
}

/// The device-wide parameters of a flow: its caching mode and initial occupancy.
pub(super) fn common(items: &mut Items, m: &mut Mapping, ctx: &Context) -> Result<()> {
    if let Some(item) = items.take("Device_Level_Data_Caching_Mode") {
        let from = origin(&item);
        match item.value.as_str() {
            "TURNED_OFF" => {
                m.set("cache.capacity_bytes", 0i64, &from);
                m.param(&item, Fate::Mapped, &["cache.capacity_bytes"], "no data cache");
            }
            "WRITE_CACHE" => {
                m.set("cache.mode", "write", &from);
                m.param(&item, Fate::Mapped, &["cache.mode"], "written data only");
            }
            "WRITE_READ_CACHE" => {
                m.set("cache.mode", "read-write", &from);
                m.param(&item, Fate::Mapped, &["cache.mode"], "written data and read misses");
            }
            "READ_CACHE" => {
                m.set("cache.mode", "read-write", &from);
                m.param(
                    &item,
                    Fate::Approximated,
                    &["cache.mode"],
                    "ssdlab's cache always takes writes: read-write (a read-only cache is not modelled)",
                );
            }
            other => bail!(
                "{}:{}: Device_Level_Data_Caching_Mode: unknown value '{other}' (MQSim: TURNED_OFF, READ_CACHE, \
                 WRITE_CACHE, WRITE_READ_CACHE)",
                item.file,
                item.line
            ),
        }
    }
    if let Some(item) = items.take("Initial_Occupancy_Percentage") {
        let p = percent(&item)?;
        if ctx.preconditioning == Some(false) {
            m.set(
                "precondition.used_fraction",
                0.0,
                &format!("{} unused: Enabled_Preconditioning is false", origin(&item)),
            );
            m.param(
                &item,
                Fate::Mapped,
                &["precondition.used_fraction"],
                "unused: the device file turns preconditioning off, as in MQSim",
            );
        } else {
            m.set("precondition.used_fraction", p as f64 / 100.0, &origin(&item));
            m.set("precondition.fill_invalid_to_gc_threshold", true, "MQSim's preconditioning also ages the drive");
            m.param(&item, Fate::Approximated, &["precondition.used_fraction", "precondition.fill_invalid_to_gc_threshold"], "this share of the logical space holds valid data before the run; ssdlab then rewrites pages until every plane is just above its GC threshold (MQSim derives its aged state from the workload's statistics)");
        }
    }
    Ok(())
}

pub(super) fn trace_flow(items: &mut Items, m: &mut Mapping, workload: &Path, ctx: &Context) -> Result<TraceFlow> {
    let file = items.file.clone();
    let given = match items.take("File_Path") {
        Some(given) => given,
        None => {
            return Err(items.missing("File_Path", &FLOW, format!("{file}: a trace-based flow without <File_Path>")))
        }
    };
    // MQSim runs on Windows and Linux: either separator.
    let relative = PathBuf::from(given.value.replace('\\', "/"));
    let base = workload.parent().unwrap_or(Path::new("."));
    let mut candidates = vec![if relative.is_absolute() { relative.clone() } else { base.join(&relative) }];
    if let Some(dir) = ctx.trace_dir {
        candidates.push(dir.join(&relative));
        if let Some(name) = relative.file_name() {
            candidates.push(dir.join(name));
        }
    }
    let path = candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        anyhow!(
            "{}:{}: File_Path: '{}' not found (looked for {}){}",
            given.file,
            given.line,
            given.value,
            looked.join(", "),
            if ctx.trace_dir.is_none() { "; give the trace's folder with --trace-dir DIR" } else { "" }
        )
    })?;
    if let Err(e) = std::fs::File::open(&path) {
        bail!("{}:{}: File_Path: '{}': cannot open {}: {e}", given.file, given.line, given.value, path.display());
    }
    m.param(&given, Fate::Mapped, &[], format!("{} (MQSim's ASCII trace format)", path.display()));
    m.set("host.replay", "open-loop", "a trace flow replays its timestamps");
    let unit = match items.take("Time_Unit") {
        Some(item) => {
            let unit: TimeUnit =
                item.value.parse().map_err(|e| anyhow!("{}:{}: Time_Unit: {e}", item.file, item.line))?;
            m.param(&item, Fate::Mapped, &[], format!("the trace's time column in {unit} (--time-unit {unit})"));
            unit
        }
        None => TimeUnit::Ns,
    };
    let mut pct = 100;
    if let Some(item) = items.take("Percentage_To_Be_Executed") {
        pct = percent(&item)? as u32;
        if pct == 0 {
            bail!("{}:{}: Percentage_To_Be_Executed: 0% of the trace replays nothing", item.file, item.line);
        }
        m.param(&item, Fate::Mapped, &[], format!("the first {pct}% of the trace's requests"));
    }
    if let Some(item) = items.take("Relay_Count") {
        let n = count(&item)?;
        m.set("host.runs", n, &origin(&item));
        m.param(&item, Fate::Approximated, &["host.runs"], "the trace replays this many times; each replay starts one mean inter-arrival gap after the previous one's last arrival");
    }
    Ok(TraceFlow { path, time_unit: unit, percent: pct })
}

/// A synthetic flow's workload and host keys; `depth`: its queue depth (0: not a
/// QUEUE_DEPTH flow).
pub(super) fn synthetic(items: &mut Items, m: &mut Mapping, ctx: &Context, depth: u64) -> Result<()> {
    let file = items.file.clone();
    let get = |items: &mut Items, key: &str| -> Result<Item> {
        match items.take(key) {
            Some(item) => Ok(item),
            None => Err(items.missing(key, &FLOW, format!("{file}: a synthetic flow without <{key}>"))),
        }
    };
    let reads = get(items, "Read_Percentage")?;
    let read_fraction = percent(&reads)? as f64 / 100.0;
    m.set("workload.read_fraction", read_fraction, &origin(&reads));
    m.param(&reads, Fate::Mapped, &["workload.read_fraction"], "");

    let size = get(items, "Average_Request_Size")?;
    let block = u64::from(count(&size)?) * SECTOR;
    m.set("workload.block_size_bytes", block as i64, &origin(&size));
    let sizes = items.take("Request_Size_Distribution");
    let variance = items.take("Variance_Request_Size");
    let fixed = match sizes.as_ref().map(|i| i.value.as_str()) {
        None | Some("FIXED") => true,
        Some("NORMAL") => false,
        Some(other) => {
            let i = sizes.as_ref().expect("matched Some");
            bail!("{}:{}: Request_Size_Distribution: unknown value '{other}' (MQSim: FIXED, NORMAL)", i.file, i.line)
        }
    };
    m.param(&size, Fate::Mapped, &["workload.block_size_bytes"], "sectors of 512 bytes");
    if let Some(i) = &sizes {
        if fixed {
            m.param(i, Fate::Mapped, &["workload.block_size_bytes"], "every request has the average size");
        } else {
            m.param(
                i,
                Fate::Approximated,
                &["workload.block_size_bytes"],
                "ssdlab's synthetic requests all have the average size",
            );
        }
    }
    if let Some(i) = &variance {
        whole(i)?;
        let (fate, note) = if fixed {
            (Fate::Mapped, "unused with FIXED sizes")
        } else {
            (Fate::Approximated, "no size variance: every request has the average size")
        };
        m.param(i, fate, &[], note);
    }

    let dist = get(items, "Address_Distribution")?;
    let hot = items.take("Percentage_of_Hot_Region");
    let streaming = dist.value == "STREAMING";
    match dist.value.as_str() {
        "RANDOM_UNIFORM" => {
            m.set("workload.pattern", "random", &origin(&dist));
            m.set("workload.distribution", "uniform", &origin(&dist));
            m.param(&dist, Fate::Mapped, &["workload.pattern", "workload.distribution"], "");
            if let Some(h) = &hot {
                percent(h)?;
                m.param(h, Fate::Mapped, &[], "unused with RANDOM_UNIFORM");
            }
        }
        "RANDOM_HOTCOLD" => {
            let h = hot.as_ref().map(percent).transpose()?.unwrap_or(0);
            let zoned = if h == 0 || h == 100 {
                "uniform".to_string()
            } else {
                format!("zoned:{}/{h}:{h}/{}", 100 - h, 100 - h)
            };
            m.set("workload.pattern", "random", &origin(&dist));
            m.set(
                "workload.distribution",
                zoned.as_str(),
                &format!("{} with Percentage_of_Hot_Region {h}", origin(&dist)),
            );
            m.param(
                &dist,
                Fate::Mapped,
                &["workload.distribution"],
                format!("{zoned}: (100 - H)% of requests fall in the first H% of the working set"),
            );
            if let Some(i) = &hot {
                m.param(i, Fate::Mapped, &["workload.distribution"], "");
            }
        }
        "STREAMING" => {
            m.set("workload.pattern", "sequential", &origin(&dist));
            m.param(
                &dist,
                Fate::Mapped,
                &["workload.pattern"],
                "consecutive requests from the start of the working set",
            );
            if let Some(h) = &hot {
                m.param(h, Fate::Mapped, &[], "unused with STREAMING");
            }
        }
        other => bail!(
            "{}:{}: Address_Distribution: unknown value '{other}' (MQSim: STREAMING, RANDOM_UNIFORM, RANDOM_HOTCOLD)",
            dist.file,
            dist.line
        ),
    }
    let aligned = items.take("Generated_Aligned_Addresses");
    let unit = items.take("Address_Alignment_Unit");
    let is_aligned = aligned.as_ref().map(boolean).transpose()?.unwrap_or(false);
    if streaming {
        for i in aligned.iter().chain(&unit) {
            m.param(i, Fate::Approximated, &[], "a streaming flow steps by the request size from an aligned start");
        }
    } else if is_aligned {
        let u = unit.as_ref().map(count).transpose()?.unwrap_or(1);
        m.set(
            "workload.align_bytes",
            (u64::from(u) * SECTOR) as i64,
            &format!("Address_Alignment_Unit = {u} sectors ({file})"),
        );
        for i in aligned.iter().chain(&unit) {
            m.param(i, Fate::Mapped, &["workload.align_bytes"], "start addresses are multiples of the unit (sectors)");
        }
    } else {
        m.set("workload.align_bytes", SECTOR as i64, "Generated_Aligned_Addresses = false: any sector");
        for i in aligned.iter().chain(&unit) {
            m.param(i, Fate::Mapped, &["workload.align_bytes"], "unaligned: any sector");
        }
    }
    if let Some(i) = items.take("Seed") {
        m.set("workload.seed", whole(&i)? as i64, &origin(&i));
        m.param(&i, Fate::Mapped, &["workload.seed"], "seeds ssdlab's generator (its stream differs from MQSim's)");
    }
    if let Some(i) = items.take("Working_Set_Percentage") {
        let p = percent(&i)?;
        if p == 0 {
            bail!("{}:{}: Working_Set_Percentage: 0% leaves nothing to address", i.file, i.line);
        }
        m.set("precondition.working_set_fraction", p as f64 / 100.0, &origin(&i));
        m.param(
            &i,
            Fate::Mapped,
            &["precondition.working_set_fraction"],
            "requests address the first this share of the logical space",
        );
    }

    // Generator: a closed loop at the flow's queue depth, or arrivals at its bandwidth.
    let generator = get(items, "Synthetic_Generator_Type")?;
    let depth_item = items.take("Average_No_of_Reqs_in_Queue");
    let intensity_item = items.take("Intensity");
    let intensity = intensity_item.as_ref().map(whole).transpose()?.unwrap_or(0);
    let interarrival = match generator.value.as_str() {
        "QUEUE_DEPTH" => {
            if let Some(i) = &depth_item {
                m.param(i, Fate::Mapped, &["host.queue_depth"], "");
            }
            if let Some(i) = &intensity_item {
                m.param(i, Fate::Mapped, &[], "unused by a QUEUE_DEPTH generator, as in MQSim");
            }
            if depth == 0 {
                bail!(
                    "{}:{}: QUEUE_DEPTH needs Average_No_of_Reqs_in_Queue of at least 1",
                    generator.file,
                    generator.line
                );
            }
            m.set("host.replay", "closed-loop", &origin(&generator));
            m.set("host.queue_depth", depth as i64, "Average_No_of_Reqs_in_Queue");
            m.set("workload.interarrival_ns", 0, "closed loop");
            m.param(
                &generator,
                Fate::Mapped,
                &["host.replay", "host.queue_depth"],
                format!("closed loop keeping {depth} requests outstanding"),
            );
            None
        }
        "BANDWIDTH" => {
            if let Some(i) = &intensity_item {
                m.param(
                    i,
                    Fate::Approximated,
                    &["workload.interarrival_ns"],
                    "bytes per second: one request every request size / intensity, evenly spaced",
                );
            }
            if let Some(i) = &depth_item {
                m.param(i, Fate::Mapped, &[], "unused by a BANDWIDTH generator, as in MQSim");
            }
            if intensity == 0 {
                bail!("{}:{}: BANDWIDTH needs an Intensity (bytes per second) above 0", generator.file, generator.line);
            }
            let gap = ((block as f64 / intensity as f64) * 1e9).round().max(1.0) as u64;
            m.set("host.replay", "open-loop", &origin(&generator));
            m.set("workload.interarrival_ns", gap as i64, &format!("request size / Intensity {intensity} B/s"));
            m.param(
                &generator,
                Fate::Approximated,
                &["host.replay", "workload.interarrival_ns"],
                format!("arrivals every {gap} ns (request size / Intensity), evenly spaced"),
            );
            Some(gap)
        }
        other => bail!(
            "{}:{}: Synthetic_Generator_Type: unknown value '{other}' (MQSim: QUEUE_DEPTH, BANDWIDTH)",
            generator.file,
            generator.line
        ),
    };

    // Length: MQSim stops at Stop_Time, or after Total_Requests_To_Generate when it is 0.
    let stop = items.take("Stop_Time");
    let total = items.take("Total_Requests_To_Generate");
    let stop_ns = stop.as_ref().map(whole).transpose()?.unwrap_or(0);
    if stop_ns == 0 {
        let t = total.as_ref().ok_or_else(|| {
            anyhow!("{file}: a synthetic flow with neither Stop_Time nor Total_Requests_To_Generate never ends")
        })?;
        let n = whole(t)?;
        if n == 0 {
            bail!("{}:{}: Total_Requests_To_Generate: 0 with Stop_Time 0: the flow never ends", t.file, t.line);
        }
        m.set("workload.count", n as i64, &origin(t));
        m.param(t, Fate::Mapped, &["workload.count"], "");
        if let Some(s) = &stop {
            m.param(s, Fate::Mapped, &[], "0: the request count decides, as in MQSim");
        }
    } else {
        let s = stop.as_ref().expect("stop_ns > 0 was read from it");
        // The run stops by time (`host.stop_ns`); the request count only bounds the
        // generator, from above, so that it never ends before the stop time.
        let (n, how) = match interarrival {
            Some(gap) => (stop_ns / gap + 1, format!("the arrivals up to Stop_Time, {gap} ns apart")),
            None => {
                let peak = closed_loop_iops(ctx.device, read_fraction, block, u64::MAX >> 8);
                let n = ((stop_ns as f64 / 1e9) * peak * 1.1).ceil() as u64 + depth;
                (n, format!("a bound above what the device can serve by Stop_Time (its peak, {peak:.0} IOPS, + 10%)"))
            }
        };
        m.set("host.stop_ns", stop_ns as i64, &origin(s));
        m.set("workload.count", n as i64, &format!("Stop_Time {stop_ns} ns: {how}"));
        m.param(
            s,
            Fate::Mapped,
            &["host.stop_ns", "workload.count"],
            format!(
                "no request is submitted after {} s of simulated time; requests in flight complete (count: {n}, {how})",
                stop_ns as f64 / 1e9
            ),
        );
        if let Some(t) = &total {
            whole(t)?;
            m.param(t, Fate::Mapped, &[], "unused: Stop_Time is set, as in MQSim");
        }
    }
    Ok(())
}

/// Requests per second a closed loop of `depth` sustains at most: depth over one request's
/// unloaded latency, capped by the planes' and the channels' rates.
fn closed_loop_iops(c: &Config, read_fraction: f64, block: u64, depth: u64) -> f64 {
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let f = &c.flash;
    let g = &c.geometry;
    let page = u64::from(g.page_size_bytes).max(1);
    let transfer = block.min(page) as f64 * f.transfer_ns_per_byte + f.command_overhead_ns as f64;
    let array = read_fraction * mean(&f.read_latency_ns) + (1.0 - read_fraction) * mean(&f.program_latency_ns);
    let latency = (array + transfer).max(1.0);
    let pages = block.div_ceil(page) as f64;
    // Planes that can work at once: a chip-serial chip runs one die's command at a time.
    let serial = c.flash.die_scheduling == ssdlab_core::config::DieScheduling::ChipSerial;
    let planes = f64::from(g.channels)
        * f64::from(g.chips_per_channel)
        * if serial { 1.0 } else { f64::from(g.dies_per_chip) }
        * f64::from(g.planes_per_die);
    let plane_rate = planes * 1e9 / array.max(1.0) / pages;
    let channel_rate = f64::from(g.channels) * 1e9 / (block as f64 * f.transfer_ns_per_byte).max(1.0);
    (depth as f64 * 1e9 / latency).min(plane_rate).min(channel_rate)
}
