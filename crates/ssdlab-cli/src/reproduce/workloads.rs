//! The workloads reproductions share: the trace workloads (a manifest, `--traces DIR`
//! holding `manifest.toml`, docs/reproductions/README.md, or the reproduction's built-in
//! list over the shipped excerpts, filtered by `--only`, each trace read whole), and the
//! thesis' Table 7.2 stand-ins that harey-tortoise and mango both replay.

use crate::reproduce::ReproduceArgs;
use anyhow::{anyhow, bail, Context, Result};
use rand::{Rng, SeedableRng};
use ssdlab_trace::{open_trace_with, Format, Op, Record, TraceOptions};

/// One workload of the manifest (or the built-in list).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Entry {
    pub name: String,
    pub file: String,
    pub format: String,
    #[serde(default)]
    pub replay: Option<String>,
    #[serde(default)]
    pub queue_depth: Option<u32>,
    #[serde(default = "one")]
    pub runs: u32,
    #[serde(default = "one_f")]
    pub speed: f64,
    #[serde(default)]
    pub role: String,
    /// The paper's groups this workload belongs to (e.g. `idle-rich`, `busy`,
    /// `update-heavy`, `read-heavy`); empty: computed from the trace ([`groups`]).
    #[serde(default)]
    pub groups: Vec<String>,
    /// Only the records within START:END seconds of the first (`--time-window`), e.g. to
    /// leave out a record with a bogus timestamp.
    #[serde(default)]
    pub time_window: Option<String>,
}

fn one() -> u32 {
    1
}
fn one_f() -> f64 {
    1.0
}

impl Entry {
    /// A built-in entry: replayed once, open loop, at trace speed.
    pub fn new(name: &str, file: &str, format: &str, role: &str) -> Entry {
        Entry {
            name: name.into(),
            file: file.into(),
            format: format.into(),
            replay: None,
            queue_depth: None,
            runs: 1,
            speed: 1.0,
            role: role.into(),
            groups: Vec::new(),
            time_window: None,
        }
    }

    /// The entry in the paper's group `group` (a built-in list's choice, as a manifest's
    /// `groups` would say).
    pub fn in_group(mut self, group: &str) -> Entry {
        self.groups.push(group.into());
        self
    }

    /// The entry with `--time-window` `window` (START:END seconds).
    pub fn within(mut self, window: &str) -> Entry {
        self.time_window = Some(window.into());
        self
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    workload: Vec<Entry>,
}

pub(crate) struct Trace {
    pub entry: Entry,
    pub records: Vec<Record>,
}

/// The workloads of reproduction `paper`: the manifest's if `--traces` has one, else
/// `built_in`; `--only` names must be one of them or of `other_names` (the paper's
/// synthetic workloads). `check` refuses a trace the paper's experiments cannot use.
/// Returns them and a phrase saying where they came from.
pub(crate) fn load_traces(
    args: &ReproduceArgs,
    built_in: Vec<Entry>,
    paper: &str,
    other_names: &[&str],
    check: impl Fn(&Entry, &[Record]) -> Result<()>,
) -> Result<(Vec<Trace>, String)> {
    let (entries, source) = match manifest_entries(args)? {
        Some(entries) => (entries, "the manifest `manifest.toml` of `--traces`".to_string()),
        None => (built_in, "the built-in list over the shipped trace excerpts".to_string()),
    };
    for o in &args.only {
        if !entries.iter().any(|e| &e.name == o) && !other_names.contains(&o.as_str()) {
            let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).chain(other_names.iter().copied()).collect();
            bail!("--only {o}: no such workload; {paper}'s are {}", names.join(", "));
        }
    }
    let mut out = Vec::new();
    for entry in entries.into_iter().filter(|e| args.only.is_empty() || args.only.contains(&e.name)) {
        let path = args.traces.join(&entry.file);
        let format: Format = entry.format.parse().map_err(|e| anyhow!("workload {}: format: {e}", entry.name))?;
        let mut options = TraceOptions::default();
        if let Some(window) = &entry.time_window {
            options.time_window_ns = Some(
                ssdlab_trace::parse_time_window(window)
                    .map_err(|e| anyhow!("workload {}: time_window {e}", entry.name))?,
            );
        }
        let source = open_trace_with(&path, format, &options)
            .map_err(|e| anyhow!("workload {}: {e} (pass --traces DIR or set SSDLAB_TRACES)", entry.name))?;
        let mut records = Vec::new();
        for r in source {
            records.push(r.map_err(|e| anyhow!("workload {}: {e}", entry.name))?);
        }
        check(&entry, &records)?;
        out.push(Trace { entry, records });
    }
    Ok((out, source))
}

/// The workloads of `--traces DIR/manifest.toml`, or `None` without one.
pub(crate) fn manifest_entries(args: &ReproduceArgs) -> Result<Option<Vec<Entry>>> {
    let manifest = args.traces.join("manifest.toml");
    if !manifest.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    let m: Manifest = toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", manifest.display()))?;
    Ok(Some(m.workload))
}

/// A stand-in request's size (bytes): one 4-KiB page.
const PAGE: u64 = 4096;

/// Table 7.2's stand-ins (the traces are not available): name, gap threshold (ns), mean
/// burst (pages), mean idle (s), read share (Table 7.1; WebIndex: ours), sequential runs
/// (WebIndex's spatial locality).
pub(crate) const STAND_INS: [(&str, u64, f64, f64, f64, bool); 4] = [
    ("Build", 87_000_000, 3.56, 1.74, 0.1214, false),
    ("Swap", 150_000_000, 1.0, 0.0218, 0.8407, false),
    ("DeskDev", 700_000_000, 4.48, 3.82, 0.6581, false),
    ("WebIndex", 48_000, 212.0, 0.000564, 0.10, true),
];
/// Bursts per stand-in.
const STAND_IN_BURSTS: f64 = 3000.0;

/// A stand-in's records: bursts of geometric size (mean from Table 7.2, at least one
/// page), each request one page, reads with the table's share at random written-range
/// pages; bursts separated by exponential idle times (mean from Table 7.2) well above the
/// gap threshold. WebIndex's bursts write sequential runs at a random place.
pub(crate) fn stand_in(i: usize, logical_pages: u64, scale: f64) -> Vec<Record> {
    let (_, threshold, burst, idle, reads, sequential) = STAND_INS[i];
    let rng = &mut rand_pcg::Pcg64Mcg::seed_from_u64(71 + i as u64);
    let bursts = ((STAND_IN_BURSTS * scale / burst.max(1.0).sqrt()).round() as u64).max(20);
    let mut out = Vec::new();
    let mut t = 0u64;
    for _ in 0..bursts {
        // Geometric with mean `burst`: P(stop) = 1 / mean.
        let mut n = 1u64;
        while rng.random::<f64>() > 1.0 / burst.max(1.0) && n < 4096 {
            n += 1;
        }
        let start = rng.random_range(0..logical_pages - n);
        for at in start..start + n {
            let op = if rng.random::<f64>() < reads { Op::Read } else { Op::Write };
            let page = if sequential { at } else { rng.random_range(0..logical_pages) };
            out.push(Record { arrival_ns: t, device: 0, offset_bytes: page * PAGE, size_bytes: PAGE, op, hint: None });
        }
        let gap = -(1.0 - rng.random::<f64>()).ln() * idle * 1e9;
        t += (gap as u64).max(threshold + 1);
    }
    out
}

/// What a trace's records say about it, for the groups a paper sorts workloads into.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TraceStats {
    pub reads: u64,
    pub writes: u64,
    /// Writes over requests.
    pub write_share: f64,
    /// Writes to a 4-KiB block the trace wrote before, over writes.
    pub rewrite_share: f64,
    /// The share of the trace's span (at replay speed `speed`) spent in gaps of at least
    /// [`IDLE_GAP_NS`] between arrivals: the time a drive could spend on background work.
    pub idle_share: f64,
}

/// A gap between arrivals long enough to count as idle: a few block erases.
pub(crate) const IDLE_GAP_NS: u64 = 10_000_000;

/// A trace's statistics at replay speed `speed` (`host.speed_factor`: 2 = twice as fast).
pub(crate) fn trace_stats(records: &[Record], speed: f64) -> TraceStats {
    let mut st = TraceStats::default();
    let mut written = std::collections::HashSet::new();
    let mut rewrites = 0u64;
    for r in records {
        match r.op {
            Op::Read => st.reads += 1,
            Op::Write => {
                st.writes += 1;
                let first = r.offset_bytes / PAGE;
                let last = (r.offset_bytes + r.size_bytes.max(1) - 1) / PAGE;
                let mut again = false;
                for b in first..=last {
                    again |= !written.insert((r.device, b));
                }
                rewrites += u64::from(again);
            }
            _ => {}
        }
    }
    let requests = st.reads + st.writes;
    st.write_share = st.writes as f64 / requests.max(1) as f64;
    st.rewrite_share = rewrites as f64 / st.writes.max(1) as f64;
    let mut times: Vec<u64> = records.iter().map(|r| r.arrival_ns).collect();
    times.sort_unstable();
    let speed = if speed > 0.0 { speed } else { 1.0 };
    let span = times.last().zip(times.first()).map_or(0, |(l, f)| l - f) as f64 / speed;
    let idle: f64 = times.windows(2).map(|w| (w[1] - w[0]) as f64 / speed).filter(|&g| g >= IDLE_GAP_NS as f64).sum();
    st.idle_share = if span > 0.0 { idle / span } else { 0.0 };
    st
}

/// A workload's groups: its entry's (a manifest's `groups`, a built-in list's choice), else
/// computed from its statistics, never from its name: `idle-rich` (at least half the span
/// idle), `busy` (under a fifth idle), `update-heavy` (at least half writes, a fifth of
/// them rewrites), `read-heavy` (under 30% writes).
pub(crate) fn groups(entry: &Entry, records: &[Record]) -> Vec<String> {
    if !entry.groups.is_empty() {
        return entry.groups.clone();
    }
    let st = trace_stats(records, entry.speed);
    let mut g = Vec::new();
    if st.idle_share >= 0.5 {
        g.push("idle-rich".to_string());
    } else if st.idle_share < 0.2 {
        g.push("busy".to_string());
    }
    if st.write_share >= 0.5 && st.rewrite_share >= 0.2 {
        g.push("update-heavy".to_string());
    }
    if st.write_share < 0.3 {
        g.push("read-heavy".to_string());
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t_ms: u64, page: u64, op: Op) -> Record {
        Record { arrival_ns: t_ms * 1_000_000, device: 0, offset_bytes: page * PAGE, size_bytes: PAGE, op, hint: None }
    }

    #[test]
    fn groups_come_from_the_entry_or_the_statistics_never_the_name() {
        // Named like the built-in busy trace, but idle most of the time and rewriting.
        let idle: Vec<Record> = (0..10).map(|i| rec(i * 100, i % 3, Op::Write)).collect();
        let e = Entry::new("TPC-C", "x", "msr", "");
        let g = groups(&e, &idle);
        assert!(g.contains(&"idle-rich".to_string()) && g.contains(&"update-heavy".to_string()), "{g:?}");
        // Back to back reads: busy and read-heavy.
        let busy: Vec<Record> = (0..10).map(|i| rec(i, i, Op::Read)).collect();
        assert_eq!(groups(&Entry::new("hm_1", "x", "msr", ""), &busy), vec!["busy", "read-heavy"]);
        // The entry's own groups win.
        assert_eq!(groups(&Entry::new("a", "x", "msr", "").in_group("busy"), &idle), vec!["busy"]);
        // Slowed ten-fold, the busy trace's 1-ms gaps become idle.
        let slow = Entry { speed: 0.1, ..Entry::new("b", "x", "msr", "") };
        assert!(groups(&slow, &busy).contains(&"idle-rich".to_string()));
    }
}
