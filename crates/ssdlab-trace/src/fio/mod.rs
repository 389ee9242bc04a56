//! fio-style synthetic jobs: a [`FioJob`] parsed from a fio job file (INI, as fio writes
//! it) or from TOML with the same keys, and [`FioSource`], the seeded generator of its
//! requests.
//!
//! ```ini
//! ; 70/30 random mix, mostly small blocks, hot spots
//! [global]
//! bs=4k
//! size=8g
//! randseed=42
//!
//! [oltp]
//! rw=randrw
//! rwmixread=70
//! bssplit=4k/50:8k/30:64k/20
//! random_distribution=zipf:1.2
//! iodepth=32
//! number_ios=200000
//! ```
//!
//! One job per file: `[global]` (any number of times) plus at most one job section;
//! `;` and `#` start comment lines; `key=value` or a bare `key` for booleans. In TOML the
//! same keys are top-level keys or sit in a `[global]` table and one job table; values may
//! be strings, integers, floats or booleans. Unknown keys are errors with the line and a
//! did-you-mean; common fio keys that do not change the request stream (`ioengine`,
//! `direct`, `filename`, ...) are accepted and listed in [`FioJob::ignored_keys`].
//!
//! Supported keys (fio semantics unless noted; sizes as in [`crate::units`]):
//!
//! | key | meaning |
//! |---|---|
//! | `rw` / `readwrite` | `read`, `write`, `randread`, `randwrite`, `rw`/`readwrite`, `randrw`, `trim`, `randtrim` |
//! | `bs` / `blocksize` | block size; `r,w,t` per op with fio's comma rules |
//! | `bssplit` | `4k/50:8k/30:64k/20` (blank shares split the rest equally); per op with commas |
//! | `bsrange` / `blocksize_range` | `1k-64k`: a uniform multiple of the low end (any size if it is not a power of two) |
//! | `blockalign` / `ba` | alignment of random offsets (default: the smallest block size of the op) |
//! | `rwmixread` / `rwmixwrite` | read / write percentage of mixed modes (default 50) |
//! | `iodepth` | outstanding requests in closed-loop replay ([`FioJob::iodepth`]) |
//! | `size` | region length (bytes or `N%` of the device; default the whole device) |
//! | `offset` | region start (bytes or `N%`) |
//! | `io_size` / `io_limit` | bytes to transfer (default `size`) |
//! | `number_ios` | stop after this many requests |
//! | `loops` | repeat the `io_size` budget this many times |
//! | `runtime` / `timeout` | time limit (default unit s) |
//! | `time_based` | keep going until `runtime` even when the budget is done |
//! | `thinktime` | idle time after every `thinktime_blocks` requests (default unit µs) |
//! | `thinktime_blocks` | default 1 |
//! | `rate_iops` | fixed arrival rate: one request every 1/rate s |
//! | `random_distribution` | `random`, `zipf[:θ]`, `pareto[:h]`, `normal[:σ%]`, `zoned:…`, `zoned_abs:…` ([`crate::distribution`]) |
//! | `percentage_random` | share of random requests in `rand*` modes; the rest continue sequentially |
//! | `randseed` | seed of the generator (default 1) |
//! | `kb_base` | 1024 (default) or 1000 |
//! | `numjobs` | must be 1 |
//!
//! ssdlab extensions:
//!
//! | key | meaning |
//! |---|---|
//! | `burst_ios`, `burst_idle` | after every `burst_ios` requests the clock jumps by `burst_idle` (default unit µs): bursts separated by idle gaps, for background-GC studies |
//! | `priority` / `access_latency_hint` / `prio` | a fixed [`Record::hint`] (0–255, smaller is more urgent) on every request |
//! | `hint_split` | `0/10:3/90`: 10% of requests get hint 0, 90% hint 3 |
//! | `fdp`, `fdp_pli`, `fdp_pli_select` (fio 3.36: `dataplacement=fdp`, `plids`, `plid_select`) | NVMe FDP: each write's placement identifier, round-robin or random over the list, in the record's device column (`dp.rs`) |
//! | `rank_scramble` | `0` keeps Zipf/Pareto rank 1 at the region's first slot instead of permuting ranks over the region (default 1) |
//!
//! **Time.** The generator produces an open-loop schedule: the first request arrives at 0
//! and the clock advances by `1/rate_iops`, `thinktime` (after every `thinktime_blocks`
//! requests) and `burst_idle` (after every `burst_ios` requests). Without any of them all
//! arrivals are 0 ([`FioJob::has_timestamps`] is false): replay closed-loop at
//! [`FioJob::iodepth`]. fio applies `thinktime` after a completion; an engine that wants that
//! closed-loop behaviour reads [`FioJob::thinktime_ns`] itself.
//!
//! **End.** The stream ends when `io_size × loops` bytes have been issued (`io_size`
//! defaults to `size`; with `number_ios` and no `io_size` there is no byte budget, as in
//! fio), after `number_ios` requests, or (with timed arrivals) at `runtime`, whichever
//! comes first.
//! With `time_based`, the byte budget is ignored; without timed arrivals such a stream is
//! **unbounded** ([`FioJob::is_unbounded`]) and the engine must stop it at `runtime`.
//!
//! **Determinism.** A `rand_pcg::Pcg64Mcg` seeded with `randseed` drives everything. Per
//! request the draws are: op (mixed modes), block size (`bssplit`, `bsrange`), random vs
//! sequential (`percentage_random` < 100), the slot (random requests), the hint
//! (`hint_split`).

use crate::distribution::{AddressDistribution, SlotSampler};
use crate::units::{parse_size, parse_time_ns};
use crate::{Op, Record, RecordSource, TraceError};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::fmt;
use std::path::Path;

mod dp;
mod source;
mod values;
mod zbd;
pub use dp::{DpOptions, PliSelect};
pub use zbd::ZbdOptions;

use source::op_index;
pub use source::FioSource;
use values::*;

/// A problem in a job file: file, 1-based line (0 when not tied to one), key, message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FioError {
    pub file: String,
    pub line: u64,
    /// The key at fault (`""` for syntax errors).
    pub key: String,
    pub message: String,
}

impl fmt::Display for FioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.key.is_empty()) {
            (0, true) => write!(f, "{}: {}", self.file, self.message),
            (0, false) => write!(f, "{}: key '{}': {}", self.file, self.key, self.message),
            (n, true) => write!(f, "{}:{}: {}", self.file, n, self.message),
            (n, false) => write!(f, "{}:{}: key '{}': {}", self.file, n, self.key, self.message),
        }
    }
}

impl std::error::Error for FioError {}

/// fio's `rw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// `rw` / `readwrite`: sequential mix.
    ReadWrite,
    RandRw,
    Trim,
    RandTrim,
}

impl RwMode {
    pub fn name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
        }
    }

    pub fn is_random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw | RwMode::RandTrim)
    }

    fn parse(s: &str) -> Result<RwMode, String> {
        if let Some((mode, _)) = s.split_once(':') {
            return Err(format!("'{s}': the ':<nr>' offset modifier of '{mode}' is not supported"));
        }
        Ok(match s {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "rw" | "readwrite" => RwMode::ReadWrite,
            "randrw" => RwMode::RandRw,
            "trim" => RwMode::Trim,
            "randtrim" => RwMode::RandTrim,
            _ => {
                return Err(format!(
                "unknown rw '{s}' (expected read, write, randread, randwrite, rw, readwrite, randrw, trim or randtrim)"
            ))
            }
        })
    }
}

/// Block sizes of one op.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Fixed(u64),
    /// `(size, percent)` pairs adding up to 100.
    Split(Vec<(u64, f64)>),
    /// `[min, max]`.
    Range {
        min: u64,
        max: u64,
    },
}

impl SizeDist {
    fn min(&self) -> u64 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::Split(v) => v.iter().map(|p| p.0).min().unwrap_or(0),
            SizeDist::Range { min, .. } => *min,
        }
    }

    fn max(&self) -> u64 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::Split(v) => v.iter().map(|p| p.0).max().unwrap_or(0),
            SizeDist::Range { max, .. } => *max,
        }
    }

    fn sample(&self, rng: &mut Pcg64Mcg) -> u64 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::Split(v) => {
                let mut u = rng.random::<f64>() * 100.0;
                for &(size, pct) in v {
                    if u < pct {
                        return size;
                    }
                    u -= pct;
                }
                v.last().map_or(0, |p| p.0)
            }
            SizeDist::Range { min, max } => {
                if min.is_power_of_two() {
                    min * rng.random_range(1..=max / min)
                } else {
                    rng.random_range(*min..=*max)
                }
            }
        }
    }
}

/// A size that may be a percentage of the device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extent {
    Bytes(u64),
    Percent(f64),
}

impl Extent {
    fn resolve(self, capacity: u64) -> u64 {
        match self {
            Extent::Bytes(b) => b,
            Extent::Percent(p) => (capacity as f64 * p / 100.0) as u64,
        }
    }
}

/// Per-request hints.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum HintSpec {
    #[default]
    None,
    Fixed(u8),
    /// `(hint, percent)` pairs adding up to 100.
    Split(Vec<(u8, f64)>),
}

/// A parsed fio job. Fields are public for inspection; build one with
/// [`FioJob::parse_ini`], [`FioJob::parse_toml`] or [`FioJob::from_path`].
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    /// The job file as named to the parser (for error messages).
    pub file: String,
    /// The job section's name (`"global"` when there is none).
    pub name: String,
    pub rw: RwMode,
    /// Block sizes of reads, writes and trims.
    pub block_sizes: [SizeDist; 3],
    pub block_align: Option<u64>,
    /// Read percentage of mixed modes.
    pub read_percent: f64,
    pub iodepth: u32,
    /// Region length; `None`: the whole device from `offset` on.
    pub size: Option<Extent>,
    pub offset: Extent,
    pub io_size: Option<u64>,
    pub number_ios: Option<u64>,
    pub loops: u64,
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    pub thinktime_ns: u64,
    pub thinktime_blocks: u64,
    pub rate_iops: Option<u64>,
    pub distribution: AddressDistribution,
    pub percentage_random: f64,
    pub randseed: u64,
    pub kb_base: u64,
    pub burst_ios: u64,
    pub burst_idle_ns: u64,
    pub hint: HintSpec,
    pub rank_scramble: bool,
    /// `zonemode=zbd` and its keys (`zbd.rs`).
    pub zbd: ZbdOptions,
    /// `fdp=1` and its placement identifiers (`dp.rs`).
    pub dp: DpOptions,
    /// fio keys accepted without effect, in file order.
    pub ignored_keys: Vec<String>,
}

impl Default for FioJob {
    fn default() -> Self {
        FioJob {
            file: String::new(),
            name: "global".to_string(),
            rw: RwMode::Read,
            block_sizes: [SizeDist::Fixed(4096), SizeDist::Fixed(4096), SizeDist::Fixed(4096)],
            block_align: None,
            read_percent: 50.0,
            iodepth: 1,
            size: None,
            offset: Extent::Bytes(0),
            io_size: None,
            number_ios: None,
            loops: 1,
            runtime_ns: None,
            time_based: false,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            rate_iops: None,
            distribution: AddressDistribution::Uniform,
            percentage_random: 100.0,
            randseed: 1,
            kb_base: 1024,
            burst_ios: 0,
            burst_idle_ns: 0,
            hint: HintSpec::None,
            rank_scramble: true,
            zbd: ZbdOptions::default(),
            dp: DpOptions::default(),
            ignored_keys: Vec::new(),
        }
    }
}

/// Keys this module interprets (aliases included).
const KEYS: &[&str] = &[
    "rw",
    "readwrite",
    "bs",
    "blocksize",
    "bssplit",
    "bsrange",
    "blocksize_range",
    "blockalign",
    "ba",
    "rwmixread",
    "rwmixwrite",
    "iodepth",
    "size",
    "filesize",
    "offset",
    "io_size",
    "io_limit",
    "number_ios",
    "loops",
    "runtime",
    "timeout",
    "time_based",
    "thinktime",
    "thinktime_blocks",
    "rate_iops",
    "random_distribution",
    "percentage_random",
    "randseed",
    "kb_base",
    "numjobs",
    "name",
    "burst_ios",
    "burst_idle",
    "burst_idle_us",
    "priority",
    "access_latency_hint",
    "prio",
    "hint_split",
    "rank_scramble",
];

/// fio keys accepted and ignored: they do not change the request stream.
const IGNORED: &[&str] = &[
    "ioengine",
    "direct",
    "buffered",
    "filename",
    "directory",
    "description",
    "group_reporting",
    "thread",
    "norandommap",
    "randrepeat",
    "invalidate",
    "stonewall",
    "wait_for",
    "new_group",
    "unified_rw_reporting",
    "lat_percentiles",
    "clat_percentiles",
    "percentile_list",
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "write_hist_log",
    "log_avg_msec",
    "per_job_logs",
    "ramp_time",
    "startdelay",
    "refill_buffers",
    "scramble_buffers",
    "zero_buffers",
    "buffer_compress_percentage",
    "buffer_pattern",
    "cpus_allowed",
    "cpumask",
    "iodepth_batch",
    "iodepth_batch_submit",
    "iodepth_batch_complete",
    "iodepth_batch_complete_min",
    "iodepth_batch_complete_max",
    "iodepth_low",
    "gtod_reduce",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
    "random_generator",
    "verify",
    "do_verify",
    "allow_mounted_write",
    "exitall",
    "create_on_open",
    "fallocate",
    "end_fsync",
    "fsync_on_close",
    "overwrite",
    "nrfiles",
    "openfiles",
    "file_service_type",
    "unlink",
    "sync",
    "hipri",
    "fixedbufs",
    "registerfiles",
    "sqthread_poll",
    "userspace_reap",
];

impl FioJob {
    /// Reads a job file: TOML when the name ends in `.toml`, fio's INI otherwise.
    pub fn from_path(path: &Path) -> Result<FioJob, FioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| FioError {
            file: file.clone(),
            line: 0,
            key: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) {
            FioJob::parse_toml(&text, &file)
        } else {
            FioJob::parse_ini(&text, &file)
        }
    }

    /// Parses a fio job file. `file` names it in errors.
    pub fn parse_ini(text: &str, file: &str) -> Result<FioJob, FioError> {
        let err = |line: u64, message: String| FioError { file: file.to_string(), line, key: String::new(), message };
        let mut global = Vec::new();
        let mut job: Option<(String, u64, Vec<Entry>)> = None;
        let mut in_job = None::<bool>;
        for (i, raw) in text.lines().enumerate() {
            let line = i as u64 + 1;
            let t = raw.trim_start_matches('\u{feff}').trim();
            if t.is_empty() || t.starts_with(';') || t.starts_with('#') {
                continue;
            }
            if let Some(rest) = t.strip_prefix('[') {
                let name =
                    rest.strip_suffix(']').ok_or_else(|| err(line, format!("unclosed section header '{t}'")))?.trim();
                if name.is_empty() {
                    return Err(err(line, "empty section name '[]'".to_string()));
                }
                if name == "global" {
                    in_job = Some(false);
                } else {
                    if let Some((other, at, _)) = &job {
                        return Err(err(
                            line,
                            format!("only one job per file: [{other}] (line {at}) and [{name}]; split them into files"),
                        ));
                    }
                    job = Some((name.to_string(), line, Vec::new()));
                    in_job = Some(true);
                }
                continue;
            }
            let (key, value) = match t.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
                None => (t, None),
            };
            let entry = Entry { key: key.to_string(), value, line };
            match in_job {
                None => {
                    return Err(FioError {
                        file: file.to_string(),
                        line,
                        key: key.to_string(),
                        message: "outside a section: put it under [global] or a [job] section".to_string(),
                    })
                }
                Some(false) => global.push(entry),
                Some(true) => job.as_mut().map(|j| j.2.push(entry)).unwrap_or_default(),
            }
        }
        let (name, entries) = match job {
            Some((name, _, entries)) => (name, global.into_iter().chain(entries).collect()),
            None => ("global".to_string(), global),
        };
        FioJob::from_entries(name, entries, file)
    }

    /// Parses a TOML job: top-level keys and a `[global]` table, plus at most one other
    /// table (the job).
    pub fn parse_toml(text: &str, file: &str) -> Result<FioJob, FioError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map_or(0, |s| text[..s.start.min(text.len())].matches('\n').count() as u64 + 1);
            FioError { file: file.to_string(), line, key: String::new(), message: e.message().to_string() }
        })?;
        let line_of = |section: Option<&str>, key: &str| -> u64 {
            let mut current: Option<String> = None;
            for (i, l) in text.lines().enumerate() {
                let t = l.trim();
                if let Some(rest) = t.strip_prefix('[') {
                    current = Some(rest.trim_end_matches(']').trim().to_string());
                    continue;
                }
                let k = t.split('=').next().unwrap_or("").trim().trim_matches('"');
                if k == key && current.as_deref() == section {
                    return i as u64 + 1;
                }
            }
            0
        };
        let mut top = Vec::new();
        let mut global = Vec::new();
        let mut job: Option<(String, Vec<Entry>)> = None;
        let value_of = |section: Option<&str>, key: &str, v: &toml::Value| -> Result<Option<String>, FioError> {
            Ok(Some(match v {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => if *b { "1" } else { "0" }.to_string(),
                _ => {
                    return Err(FioError {
                        file: file.to_string(),
                        line: line_of(section, key),
                        key: key.to_string(),
                        message: "expected a string, number or boolean".to_string(),
                    })
                }
            }))
        };
        for (key, v) in &table {
            match v {
                toml::Value::Table(t) => {
                    let entries: Vec<Entry> = t
                        .iter()
                        .map(|(k, v)| {
                            Ok(Entry { key: k.clone(), value: value_of(Some(key), k, v)?, line: line_of(Some(key), k) })
                        })
                        .collect::<Result<_, FioError>>()?;
                    if key == "global" {
                        global.extend(entries);
                    } else if let Some((other, _)) = &job {
                        return Err(FioError {
                            file: file.to_string(),
                            line: text.lines().position(|l| l.trim() == format!("[{key}]")).map_or(0, |i| i as u64 + 1),
                            key: String::new(),
                            message: format!("only one job per file: [{other}] and [{key}]; split them into files"),
                        });
                    } else {
                        job = Some((key.clone(), entries));
                    }
                }
                _ => top.push(Entry { key: key.clone(), value: value_of(None, key, v)?, line: line_of(None, key) }),
            }
        }
        let mut entries: Vec<Entry> = top.into_iter().chain(global).collect();
        let name = match job {
            Some((name, e)) => {
                entries.extend(e);
                name
            }
            None => "global".to_string(),
        };
        FioJob::from_entries(name, entries, file)
    }

    fn from_entries(name: String, entries: Vec<Entry>, file: &str) -> Result<FioJob, FioError> {
        let mut job = FioJob { file: file.to_string(), name, ..FioJob::default() };
        let fail =
            |e: &Entry, message: String| FioError { file: file.to_string(), line: e.line, key: e.key.clone(), message };
        // kb_base first: sizes anywhere depend on it.
        for e in entries.iter().filter(|e| e.key == "kb_base") {
            job.kb_base = match e.value.as_deref().map(str::trim) {
                Some("1024") => 1024,
                Some("1000") => 1000,
                other => return Err(fail(e, format!("must be 1024 or 1000, got '{}'", other.unwrap_or("")))),
            };
        }
        let kb = job.kb_base;
        let (mut mixread, mut mixwrite) = (None, None);
        let mut hint_keys: Vec<&Entry> = Vec::new();
        for e in &entries {
            let key = e.key.as_str();
            let needs_value =
                || e.value.as_deref().filter(|v| !v.is_empty()).ok_or_else(|| fail(e, "needs a value".to_string()));
            let result: Result<(), String> = match key {
                "kb_base" => Ok(()),
                "rw" | "readwrite" => RwMode::parse(needs_value()?).map(|m| job.rw = m),
                "bs" | "blocksize" => per_op(needs_value()?, &mut job.block_sizes, |s| {
                    let b = parse_size(s, kb)?;
                    if b == 0 {
                        return Err("block size must be at least 1 byte".to_string());
                    }
                    Ok(SizeDist::Fixed(b))
                }),
                "bssplit" => per_op(needs_value()?, &mut job.block_sizes, |s| parse_split(s, kb)),
                "bsrange" | "blocksize_range" => per_op(needs_value()?, &mut job.block_sizes, |s| parse_range(s, kb)),
                "blockalign" | "ba" => parse_size(needs_value()?, kb).and_then(|a| {
                    if a == 0 {
                        Err("must be at least 1 byte".to_string())
                    } else {
                        job.block_align = Some(a);
                        Ok(())
                    }
                }),
                "rwmixread" => parse_percent(needs_value()?).map(|p| mixread = Some(p)),
                "rwmixwrite" => parse_percent(needs_value()?).map(|p| mixwrite = Some(p)),
                "iodepth" => parse_count(needs_value()?).and_then(|d| match u32::try_from(d) {
                    Ok(d) if d >= 1 => {
                        job.iodepth = d;
                        Ok(())
                    }
                    _ => Err(format!("must be between 1 and {}", u32::MAX)),
                }),
                "size" | "filesize" => parse_extent(needs_value()?, kb).map(|x| job.size = Some(x)),
                "offset" => parse_extent(needs_value()?, kb).map(|x| job.offset = x),
                "io_size" | "io_limit" => parse_size(needs_value()?, kb).map(|x| job.io_size = Some(x)),
                "number_ios" => parse_count(needs_value()?).map(|x| job.number_ios = Some(x)),
                "loops" => parse_count(needs_value()?).and_then(|x| {
                    if x == 0 {
                        Err("must be at least 1".to_string())
                    } else {
                        job.loops = x;
                        Ok(())
                    }
                }),
                "runtime" | "timeout" => parse_time_ns(needs_value()?, 1_000_000_000).map(|x| job.runtime_ns = Some(x)),
                "time_based" => parse_bool(e.value.as_deref()).map(|b| job.time_based = b),
                "thinktime" => parse_time_ns(needs_value()?, 1_000).map(|x| job.thinktime_ns = x),
                "thinktime_blocks" => parse_count(needs_value()?).and_then(|x| {
                    if x == 0 {
                        Err("must be at least 1".to_string())
                    } else {
                        job.thinktime_blocks = x;
                        Ok(())
                    }
                }),
                "rate_iops" => {
                    let v = needs_value()?;
                    if v.contains(',') {
                        Err(format!("'{v}': separate read/write rates are not supported; give one rate"))
                    } else {
                        parse_count(v).and_then(|x| {
                            if x == 0 {
                                Err("must be at least 1".to_string())
                            } else {
                                job.rate_iops = Some(x);
                                Ok(())
                            }
                        })
                    }
                }
                "random_distribution" => {
                    let v = needs_value()?;
                    if v.contains(',') {
                        Err(format!("'{v}': separate read/write distributions are not supported"))
                    } else {
                        AddressDistribution::parse(v, kb).map(|d| job.distribution = d)
                    }
                }
                "percentage_random" => {
                    let v = needs_value()?;
                    if v.contains(',') {
                        Err(format!("'{v}': separate read/write percentages are not supported"))
                    } else {
                        parse_percent(v).map(|p| job.percentage_random = p)
                    }
                }
                "randseed" => parse_count(needs_value()?).map(|s| job.randseed = s),
                "numjobs" => match parse_count(needs_value()?) {
                    Ok(1) => Ok(()),
                    Ok(n) => Err(format!("ssdlab runs one job per file (numjobs={n}); use numjobs=1")),
                    Err(m) => Err(m),
                },
                "name" => {
                    job.name = needs_value()?.to_string();
                    Ok(())
                }
                "burst_ios" => parse_count(needs_value()?).map(|x| job.burst_ios = x),
                "burst_idle" | "burst_idle_us" => parse_time_ns(needs_value()?, 1_000).map(|x| job.burst_idle_ns = x),
                "priority" | "access_latency_hint" | "prio" => {
                    hint_keys.push(e);
                    needs_value()?
                        .trim()
                        .parse::<u8>()
                        .map(|h| job.hint = HintSpec::Fixed(h))
                        .map_err(|_| "must be an integer 0-255 (smaller is more urgent)".to_string())
                }
                "hint_split" => {
                    hint_keys.push(e);
                    parse_hint_split(needs_value()?).map(|h| job.hint = h)
                }
                "rank_scramble" => parse_bool(e.value.as_deref()).map(|b| job.rank_scramble = b),
                k if zbd::ZBD_KEYS.contains(&k) => job.zbd.set(k, needs_value()?, kb),
                k if dp::DP_KEYS.contains(&k) => job.dp.set(k, e.value.as_deref()),
                k if IGNORED.contains(&k) => {
                    if !job.ignored_keys.iter().any(|i| i == k) {
                        job.ignored_keys.push(k.to_string());
                    }
                    Ok(())
                }
                k => Err(match did_you_mean(k) {
                    Some(s) => format!("unknown key; did you mean '{s}'?"),
                    None => "unknown key".to_string(),
                }),
            };
            result.map_err(|m| fail(e, m))?;
        }
        if let [a, b, ..] = hint_keys[..] {
            if a.key != b.key {
                return Err(fail(b, format!("conflicts with '{}' on line {}: give one hint key", a.key, a.line)));
            }
        }
        job.read_percent = match (mixread, mixwrite) {
            (Some(r), Some(w)) if (r + w - 100.0).abs() > 1e-9 => {
                let e = entries.iter().rev().find(|e| e.key == "rwmixwrite").expect("rwmixwrite was seen");
                return Err(fail(e, format!("rwmixread={r} and rwmixwrite={w} do not add up to 100")));
            }
            (Some(r), _) => r,
            (None, Some(w)) => 100.0 - w,
            (None, None) => 50.0,
        };
        if job.zbd.enabled && matches!(job.rw, RwMode::Trim | RwMode::RandTrim) {
            let e = entries.iter().find(|e| e.key == "zonemode").expect("zonemode was seen");
            return Err(fail(e, "trims on a zoned drive are not modelled (reads and writes are)".to_string()));
        }
        if job.time_based && job.runtime_ns.is_none() {
            let e = entries.iter().find(|e| e.key == "time_based").expect("time_based was seen");
            return Err(fail(e, "time_based needs a runtime".to_string()));
        }
        Ok(job)
    }

    /// Outstanding requests for closed-loop replay.
    pub fn iodepth(&self) -> u32 {
        self.iodepth
    }

    /// True when the generator produces an open-loop schedule (`rate_iops`, `thinktime` or
    /// bursts); false when every arrival is 0 (replay closed-loop at [`iodepth`](Self::iodepth)).
    pub fn has_timestamps(&self) -> bool {
        self.rate_iops.is_some() || self.thinktime_ns > 0 || (self.burst_ios > 0 && self.burst_idle_ns > 0)
    }

    /// True when the stream never ends by itself (`time_based` without timed arrivals):
    /// the engine must stop it at [`runtime_ns`](Self::runtime_ns).
    pub fn is_unbounded(&self) -> bool {
        self.time_based && !self.has_timestamps() && self.number_ios.is_none()
    }

    /// fio's `thinktime` in ns (for engines that apply it after completions).
    pub fn thinktime_ns(&self) -> u64 {
        self.thinktime_ns
    }

    /// The ops this job issues.
    fn ops(&self) -> &'static [Op] {
        match self.rw {
            RwMode::Read | RwMode::RandRead => &[Op::Read],
            RwMode::Write | RwMode::RandWrite => &[Op::Write],
            RwMode::ReadWrite | RwMode::RandRw => &[Op::Read, Op::Write],
            RwMode::Trim | RwMode::RandTrim => &[Op::Trim],
        }
    }

    /// The region `(start, length)` in bytes on a device of `capacity_bytes`.
    pub fn region(&self, capacity_bytes: u64) -> Result<(u64, u64), FioError> {
        let err =
            |key: &str, message: String| FioError { file: self.file.clone(), line: 0, key: key.to_string(), message };
        let start = self.offset.resolve(capacity_bytes);
        let len = match self.size {
            Some(s) => s.resolve(capacity_bytes),
            None => capacity_bytes.saturating_sub(start),
        };
        if start.checked_add(len).is_none_or(|end| end > capacity_bytes) {
            return Err(err(
                "size",
                format!("offset {start} + size {len} bytes exceeds the device's {capacity_bytes} bytes"),
            ));
        }
        let biggest = self.ops().iter().map(|&op| self.block_sizes[op_index(op)].max()).max().unwrap_or(0);
        if len < biggest {
            return Err(err(
                "size",
                format!("the region ({len} bytes) is smaller than the largest block ({biggest} bytes)"),
            ));
        }
        Ok((start, len))
    }

    /// The generator for a device of `capacity_bytes` (used for the default and `%` sizes).
    pub fn source(&self, capacity_bytes: u64) -> Result<FioSource, FioError> {
        FioSource::new(self.clone(), capacity_bytes)
    }
}

#[cfg(test)]
mod tests;
