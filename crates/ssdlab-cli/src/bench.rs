//! `ssdlab bench`: the standard speed and memory scenarios (issue "Speed and memory").
//! Each scenario runs in a child process (`ssdlab bench --child NAME`) so its peak
//! resident memory (VmHWM) is its own. Results print as a table, optionally as JSON,
//! and `--record` rewrites the table in BENCHMARKS.md.

use crate::output::execute;
use crate::setup::{Prepared, Workload};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use ssdlab_core::config::{Config, ReplayMode};
use ssdlab_core::presets::preset;
use ssdlab_trace::{Format, SyntheticSpec};
use std::path::PathBuf;
use std::process::Command;

pub const SCENARIOS: &[(&str, &str)] = &[
    ("mqsim-default", "MQSim's default MLC device, 75% preconditioned, 1M 4 KiB random requests, 50% reads, QD 16"),
    ("pa-ssd-aged", "PA-SSD preset, 70% valid data at the GC threshold, 2M random 8 KiB writes, QD 32 (GC-heavy)"),
    ("trace-fin", "Financial excerpt (umass_spc/example.ascii) on the pa-ssd-aged drive, 50 runs back to back"),
    ("large-device", "4 TiB TLC with 16 KiB pages preconditioned to 90%, 1M mixed 16 KiB requests at QD 32"),
];

/// One scenario's measurements.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchResult {
    pub scenario: String,
    pub requests: u64,
    pub sub_requests: u64,
    pub events: u64,
    pub setup_seconds: f64,
    pub run_seconds: f64,
    pub requests_per_second: f64,
    pub sub_requests_per_second: f64,
    pub events_per_second: f64,
    pub peak_rss_bytes: u64,
    pub mapping_bytes: u64,
    pub reverse_map_bytes: u64,
    /// Peak RSS / (1.15 × (map + reverse) + 64 MiB): at most 1 meets the memory target.
    pub memory_budget_used: f64,
    pub gc_erases: u64,
    pub waf: f64,
}

fn traces_dir() -> PathBuf {
    std::env::var_os("SSDLAB_TRACES").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("../shared/traces"))
}

/// MQSim's default device (ssdconfig.xml), preconditioned to 75%: the `mqsim-default` preset.
pub fn mqsim_default_config() -> Result<Config> {
    preset("mqsim-default").map_err(|e| anyhow!("{e}"))
}

fn closed(c: &mut Config, depth: u32) {
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = depth;
}

/// Ages the drive with valid data: 70% of the logical pages written, with enough
/// rewrites that every plane ends at the background GC threshold, so GC moves data from
/// the start. The `pa-ssd-tlc` preset itself ages as SSDSim does (whole blocks of
/// invalid pages, no valid data, since ae8334f); on that drive a 2M-write run reclaims
/// only those blocks and never moves a page (WAF 1.000), which is not what these
/// scenarios are meant to measure.
fn aged_with_valid_data(c: &mut Config) {
    c.precondition.used_fraction = 0.7;
    c.precondition.fill_invalid_to_gc_threshold = true;
    c.precondition.aged_invalid_fraction = 0.0;
}

/// The config and workload of a scenario; `requests` overrides its request count.
pub fn scenario(name: &str, requests: Option<u64>) -> Result<Prepared> {
    let synthetic = |read_fraction: f64, block: u64, count: u64, logical: u64| {
        Workload::Synthetic(SyntheticSpec {
            read_fraction,
            block_size_bytes: block,
            count: requests.unwrap_or(count),
            seed: 7,
            address_space_bytes: logical,
            ..SyntheticSpec::default()
        })
    };
    let prepared = match name {
        "mqsim-default" => {
            let mut c = mqsim_default_config()?;
            closed(&mut c, 16);
            let logical = c.logical_bytes();
            Prepared { workload: synthetic(0.5, 4096, 1_000_000, logical), config: c }
        }
        "pa-ssd-aged" => {
            let mut c = preset("pa-ssd-tlc").map_err(|e| anyhow!("{e}"))?;
            aged_with_valid_data(&mut c);
            closed(&mut c, 32);
            c.output.series_interval_ns = 0;
            let logical = c.logical_bytes();
            Prepared { workload: synthetic(0.0, 8192, 2_000_000, logical), config: c }
        }
        "trace-fin" => {
            let mut c = preset("pa-ssd-tlc").map_err(|e| anyhow!("{e}"))?;
            aged_with_valid_data(&mut c);
            c.host.runs = requests.map(|r| (r / 10_000).max(1) as u32).unwrap_or(50);
            c.output.series_interval_ns = 0;
            let path = traces_dir().join("umass_spc/example.ascii");
            if !path.is_file() {
                bail!("trace-fin needs {} (set SSDLAB_TRACES)", path.display());
            }
            Prepared {
                workload: Workload::Trace {
                    path,
                    format: Format::Ssdsim,
                    note: String::new(),
                    options: Default::default(),
                },
                config: c,
            }
        }
        "large-device" => {
            let mut c = Config { name: "large-device".into(), ..Config::default() };
            // 16 × 4 × 4 × 2 = 512 planes × 683 blocks × 768 pages × 16 KiB = 4.0 TiB raw.
            c.geometry.channels = 16;
            c.geometry.chips_per_channel = 4;
            c.geometry.dies_per_chip = 4;
            c.geometry.planes_per_die = 2;
            c.geometry.blocks_per_plane = 683;
            c.geometry.pages_per_block = 768;
            c.geometry.page_size_bytes = 16384;
            c.flash.read_latency_ns = vec![60_000, 90_000, 120_000];
            c.flash.program_latency_ns = vec![500_000, 2_000_000, 5_500_000];
            c.ftl.over_provisioning = 0.07;
            c.ftl.gc_background_free_fraction = 0.02;
            c.ftl.gc_emergency_free_fraction = 0.01;
            c.precondition.used_fraction = 0.9;
            c.output.series_interval_ns = 0;
            closed(&mut c, 32);
            let logical = c.logical_bytes();
            Prepared { workload: synthetic(0.5, 16384, 1_000_000, logical), config: c }
        }
        other => {
            let names: Vec<&str> = SCENARIOS.iter().map(|(n, _)| *n).collect();
            bail!("unknown scenario '{other}'; scenarios: {}", names.join(", "))
        }
    };
    Ok(prepared)
}

fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Runs one scenario in this process and prints its result as one JSON line.
pub fn child(name: &str, requests: Option<u64>) -> Result<()> {
    let prepared = scenario(name, requests)?;
    let pages = {
        let g = &prepared.config.geometry;
        g.channels as u64
            * g.chips_per_channel as u64
            * g.dies_per_chip as u64
            * g.planes_per_die as u64
            * g.blocks_per_plane as u64
            * g.pages_per_block as u64
    };
    let outcome = execute(prepared, None, false, true)?;
    let r = &outcome.report;
    let s = &outcome.speed;
    let mapping = r.device.mapping_table_bytes;
    let reverse = pages * 4;
    let peak = peak_rss_bytes();
    let budget = 1.15 * (mapping + reverse) as f64 + 64.0 * 1048576.0;
    let result = BenchResult {
        scenario: name.to_string(),
        requests: r.host.requests,
        sub_requests: r.host.sub_requests,
        events: r.events,
        setup_seconds: s.setup_seconds,
        run_seconds: s.wall_seconds - s.setup_seconds,
        requests_per_second: s.requests_per_second,
        sub_requests_per_second: s.sub_requests_per_second,
        events_per_second: s.events_per_second,
        peak_rss_bytes: peak,
        mapping_bytes: mapping,
        reverse_map_bytes: reverse,
        memory_budget_used: peak as f64 / budget,
        gc_erases: r.gc.erases,
        waf: r.waf,
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

fn run_child(name: &str, requests: Option<u64>) -> Result<BenchResult> {
    let exe = std::env::current_exe().context("locating the ssdlab binary")?;
    let mut cmd = Command::new(exe);
    cmd.args(["bench", "--child", name]);
    if let Some(n) = requests {
        cmd.args(["--requests", &n.to_string()]);
    }
    let out = cmd.output().context("starting a benchmark child process")?;
    if !out.status.success() {
        bail!("scenario {name} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().ok_or_else(|| anyhow!("scenario {name} printed nothing"))?;
    Ok(serde_json::from_str(line)?)
}

pub struct BenchArgs {
    pub scenarios: Vec<String>,
    pub all: bool,
    pub requests: Option<u64>,
    pub json: bool,
    pub record: bool,
}

pub fn bench(args: BenchArgs) -> Result<()> {
    let names: Vec<String> = if args.all || args.scenarios.is_empty() {
        SCENARIOS.iter().map(|(n, _)| n.to_string()).collect()
    } else {
        args.scenarios.clone()
    };
    let mut results = Vec::new();
    for name in &names {
        if !args.json {
            eprintln!("running {name} …");
        }
        results.push(run_child(name, args.requests)?);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        print!("{}", table(&results));
    }
    if args.record {
        record(&results, args.requests)?;
    }
    Ok(())
}

fn table(results: &[BenchResult]) -> String {
    let mut out = String::new();
    out.push_str("| scenario | requests | setup s | run s | requests/s | sub-requests/s | events/s | peak RSS MiB | map+reverse MiB | memory budget used | WAF |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let mib = 1048576.0;
    for r in results {
        out.push_str(&format!(
            "| {} | {} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.3} |\n",
            r.scenario,
            r.requests,
            r.setup_seconds,
            r.run_seconds,
            r.requests_per_second,
            r.sub_requests_per_second,
            r.events_per_second,
            r.peak_rss_bytes as f64 / mib,
            (r.mapping_bytes + r.reverse_map_bytes) as f64 / mib,
            r.memory_budget_used,
            r.waf
        ));
    }
    out
}

/// Replaces the text between the bench markers in BENCHMARKS.md with this run's table.
fn record(results: &[BenchResult], requests: Option<u64>) -> Result<()> {
    let path = PathBuf::from("BENCHMARKS.md");
    let text = std::fs::read_to_string(&path).context("BENCHMARKS.md must exist in the current directory")?;
    let (begin, end) = ("<!-- bench:begin -->", "<!-- bench:end -->");
    let (Some(a), Some(b)) = (text.find(begin), text.find(end)) else {
        bail!("BENCHMARKS.md lacks the {begin} … {end} markers");
    };
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name").map(|v| v.trim_start_matches([' ', '\t', ':']).to_string()))
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let command = match requests {
        Some(n) => format!("ssdlab bench --all --requests {n} --record"),
        None => "ssdlab bench --all --record".to_string(),
    };
    let block = format!(
        "{begin}\nMeasured at commit `{commit}` on {cpu} ({cores} cores), release build, with `{command}`.\n\n{}{end}",
        table(results)
    );
    let new_text = format!("{}{}{}", &text[..a], block, &text[b + end.len()..]);
    std::fs::write(&path, new_text)?;
    Ok(())
}
