//! The workloads of `ssdlab reproduce ipu`: trace workloads (a manifest or the built-in
//! excerpts with small updates), the synthetic ones built from IPU Table 3, their
//! statistics for the report's workload table, and `--save-workloads`.

use crate::reproduce::workloads::{load_traces, Entry};
use crate::reproduce::ReproduceArgs;
use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab_trace::{Op, Record};
use std::sync::Arc;

/// IPU Table 3: name, requests, write share, mean write size (KB), hot-write share (the
/// share of written addresses written at least 4 times).
const TABLE3: [(&str, u64, f64, f64, f64); 6] = [
    ("ts0", 1_801_734, 0.824, 8.0, 0.505),
    ("wdev0", 1_143_261, 0.799, 8.2, 0.582),
    ("lun1", 1_073_405, 0.731, 7.6, 0.100),
    ("usr0", 2_237_889, 0.596, 10.3, 0.365),
    ("lun2", 1_758_887, 0.193, 9.7, 0.085),
    ("ads", 1_532_120, 0.095, 7.0, 0.183),
];

/// The synthetic workloads run at this share of Table 3's request counts at `--scale 1`
/// (whole rows; `--scale` shrinks or grows them).
pub(crate) const SYNTHETIC_SHARE: f64 = 1.0;

/// How long each Table 3 trace lasts (seconds), so that a synthetic row arrives at its
/// trace's mean rate: MSR Cambridge volumes (ts0, wdev0, usr0) cover one week (IPU ref.
/// [20], Narayanan et al.: wdev0's 1,143,261 requests over a week is 529 ms apart, DIR
/// Table 2 measures 528.09 ms); the SYSTOR '17 files (lun1, lun2) are named by the hour
/// they cover ("additional-01-2016021615-LUN0": 2016-02-16, 15 h); the duration of the MS
/// production `ads` trace is given nowhere we have: one day, ours.
pub(crate) const TRACE_SPAN_S: [(&str, f64, &str); 6] = [
    ("ts0", 604_800.0, "one week (MSR Cambridge)"),
    ("wdev0", 604_800.0, "one week (MSR Cambridge)"),
    ("lun1", 3_600.0, "one hour (SYSTOR '17 file named by its hour)"),
    ("usr0", 604_800.0, "one week (MSR Cambridge)"),
    ("lun2", 3_600.0, "one hour (SYSTOR '17 file named by its hour)"),
    ("ads", 86_400.0, "one day (ours: not given)"),
];

/// The mean interval between a Table 3 row's requests (ns): its trace's span over its
/// request count.
pub(crate) fn row_interval_ns(row: usize) -> f64 {
    TRACE_SPAN_S[row].1 * 1e9 / TABLE3[row].1 as f64
}

/// The built-in list over `../shared/traces`: the excerpts with small updates.
fn built_in() -> Vec<Entry> {
    let e = Entry::new;
    vec![
        e("Fin", "umass_spc/example.ascii", "ssdsim", "UMass Financial1, first 10,000 requests (not in IPU)"),
        e("Fin1-50k", "umass_spc/fin1.trace", "flashsim", "UMass Financial1, requests 3–50,002 (not in IPU)"),
        e(
            "VDI",
            "systor17_vdi/systor-traces-sample.csv",
            "systor",
            "SYSTOR '17 VDI LUN0 sample (IPU's lun1/lun2 are from this collection)",
        ),
        e(
            "hm_0",
            "msr_cambridge/msr-cambridge1-sample.csv",
            "msr",
            "MSR Cambridge hm_0 sample (IPU's ts0/wdev0/usr0 are from this collection)",
        ),
        e("hm_1", "msr_cambridge/hm_1_short.csv", "msr", "MSR Cambridge hm_1, first 11,067 requests"),
    ]
}

/// A workload as every scheme replays it, with what the report says about it.
pub(crate) struct Load {
    pub(crate) name: String,
    /// How to rerun one cell: the `ssdlab` arguments naming the workload.
    pub(crate) rerun: String,
    /// Where it comes from: a trace file, or how it was built.
    pub(crate) source: String,
    pub(crate) role: String,
    pub(crate) records: Arc<Vec<Record>>,
    pub(crate) write_share: f64,
    /// Share of written 4-KiB blocks written before in the same workload.
    pub(crate) update_share: f64,
    pub(crate) mean_write_kib: f64,
    /// Share of writes that rewrite a 4-KiB block written less than 1 ms before.
    pub(crate) burst_share: f64,
    /// Built from a Table 3 row (`--save-workloads` writes it as a trace).
    pub(crate) synthetic: bool,
    /// Whether a manifest's `groups` put it in the update-heavy group (`None`: no groups
    /// given, the group is computed from `write_share` and `update_share`).
    pub(crate) update_heavy_group: Option<bool>,
}

impl Load {
    /// Update-heavy (the in-place-update check): the manifest's `groups` when given, else
    /// at least half writes and a fifth of written 4-KiB blocks written before.
    pub(crate) fn update_heavy(&self) -> bool {
        self.update_heavy_group.unwrap_or(self.write_share >= 0.5 && self.update_share >= 0.2)
    }
}

/// Share of writes that rewrite a 4-KiB block written less than 1 ms before (a burst of
/// overwrites: a write cache would merge them; IPU programs them one by one in one page).
fn burst_share(records: &[Record]) -> f64 {
    let mut last: std::collections::HashMap<(u32, u64), u64> = std::collections::HashMap::new();
    let (mut writes, mut bursts) = (0u64, 0u64);
    for r in records.iter().filter(|r| r.op == Op::Write) {
        writes += 1;
        let first = r.offset_bytes / 4096;
        let last_block = (r.offset_bytes + r.size_bytes.max(1) - 1) / 4096;
        let mut burst = false;
        for b in first..=last_block {
            if let Some(t) = last.insert((r.device, b), r.arrival_ns) {
                burst |= r.arrival_ns.saturating_sub(t) < 1_000_000;
            }
        }
        bursts += u64::from(burst);
    }
    bursts as f64 / writes.max(1) as f64
}

/// Share of writes and of written 4-KiB blocks already written in the workload.
fn shares(records: &[Record]) -> (f64, f64, f64) {
    let mut seen = std::collections::HashSet::new();
    let (mut writes, mut blocks, mut updates, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    for r in records.iter().filter(|r| r.op == Op::Write) {
        writes += 1;
        bytes += r.size_bytes;
        let first = r.offset_bytes / 4096;
        let last = (r.offset_bytes + r.size_bytes.max(1) - 1) / 4096;
        for b in first..=last {
            blocks += 1;
            if !seen.insert((r.device, b)) {
                updates += 1;
            }
        }
    }
    let n = records.len().max(1) as f64;
    (writes as f64 / n, updates as f64 / blocks.max(1) as f64, bytes as f64 / writes.max(1) as f64 / 1024.0)
}

/// A workload with a Table 3 row's request count (× `scale`), write share, mean write
/// size and hot-write share. Addresses are 64-KiB slots; each holds one object of a size
/// drawn once (4 KiB × k, k geometric with the row's mean, at most 16), at a random 4-KiB
/// offset inside the slot. A share `hot` of the written slots are hot, written 4–12 times;
/// the rest 1–3 times; the writes are shuffled over the run. Reads (the rest of the
/// requests) read a random written slot's object. Arrivals are Poisson at the trace's own
/// mean rate (`TRACE_SPAN_S`). Seeded by the row's position.
fn synthetic(row: usize, scale: f64) -> Vec<Record> {
    let (_, requests, write_share, size_kb, hot) = TABLE3[row];
    let n = ((requests as f64 * SYNTHETIC_SHARE * scale).round() as u64).max(100);
    let mut rng = Pcg64Mcg::seed_from_u64(0x1_9d00 + row as u64);
    let interval = row_interval_ns(row);
    let writes = (n as f64 * write_share).round() as u64;
    // Mean writes per slot: 2 for cold slots, 8 for hot ones.
    let slots = ((writes as f64 / (2.0 * (1.0 - hot) + 8.0 * hot)).round() as u64).max(1);
    let p = (4.0 / size_kb).min(1.0);
    let objects: Vec<(u64, u64)> = (0..slots)
        .map(|_| {
            let mut k = 1u64;
            while k < 16 && rng.random::<f64>() > p {
                k += 1;
            }
            let offset = rng.random_range(0..=16 - k);
            (offset * 4096, k * 4096)
        })
        .collect();
    let mut events: Vec<u64> = Vec::with_capacity(writes as usize);
    for s in 0..slots {
        let count = if rng.random::<f64>() < hot { rng.random_range(4..=12) } else { rng.random_range(1..=3) };
        events.extend(std::iter::repeat_n(s, count));
    }
    // Fisher–Yates with the workload's own stream.
    for i in (1..events.len()).rev() {
        let j = rng.random_range(0..=i);
        events.swap(i, j);
    }
    let mut out = Vec::with_capacity(n as usize);
    let (mut t, mut next_write) = (0u64, 0usize);
    for _ in 0..n {
        t += (-(1.0 - rng.random::<f64>()).ln() * interval) as u64;
        let write = next_write < events.len() && rng.random::<f64>() < write_share;
        let slot = if write {
            next_write += 1;
            events[next_write - 1]
        } else {
            rng.random_range(0..slots)
        };
        let (offset, size) = objects[slot as usize];
        out.push(Record {
            arrival_ns: t,
            device: 0,
            offset_bytes: slot * 65536 + offset,
            size_bytes: size,
            op: if write { Op::Write } else { Op::Read },
            hint: None,
        });
    }
    out
}

pub(crate) fn workloads(args: &ReproduceArgs) -> Result<(Vec<Load>, String)> {
    let names: Vec<&str> = TABLE3.iter().map(|r| r.0).collect();
    let (traces, source) = load_traces(args, built_in(), "ipu", &names, |e, records| {
        if !records.iter().any(|r| r.op == Op::Write) {
            bail!("workload {}: IPU's experiments need a trace that writes", e.name);
        }
        Ok(())
    })?;
    let mut out = Vec::new();
    for t in traces {
        let (write_share, update_share, mean_write_kib) = shares(&t.records);
        let runs = ((t.entry.runs as f64 * args.scale).round() as u32).max(1);
        let mut records = Vec::with_capacity(t.records.len() * runs as usize);
        let first = t.records.iter().map(|r| r.arrival_ns).min().unwrap_or(0);
        let span = t.records.iter().map(|r| r.arrival_ns).max().unwrap_or(0) - first + 1_000_000;
        for run in 0..runs as u64 {
            records.extend(t.records.iter().map(|r| Record { arrival_ns: run * span + r.arrival_ns - first, ..*r }));
        }
        let update_heavy_group =
            (!t.entry.groups.is_empty()).then(|| t.entry.groups.iter().any(|g| g == "update-heavy"));
        out.push(Load {
            update_heavy_group,
            rerun: format!(
                "run --preset ipu-slc-mlc --trace {} --format {}{}",
                t.entry.file,
                t.entry.format,
                if runs > 1 { format!(" --runs {runs}") } else { String::new() }
            ),
            source: format!("`{}` ({}, {} requests, runs {runs})", t.entry.file, t.entry.format, t.records.len()),
            name: t.entry.name,
            role: t.entry.role,
            burst_share: burst_share(&records),
            records: Arc::new(records),
            write_share,
            update_share,
            mean_write_kib,
            synthetic: false,
        });
    }
    for (row, r) in TABLE3.iter().enumerate() {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == r.0) {
            continue;
        }
        let records = synthetic(row, args.scale);
        let (write_share, update_share, mean_write_kib) = shares(&records);
        out.push(Load {
            rerun: format!("run --preset ipu-slc-mlc --trace {}.trace --format mqsim", r.0),
            name: r.0.into(),
            source: format!("synthetic, {} requests", records.len()),
            role: format!(
                "IPU Table 3 row: {:.1}% writes of {} KB mean, {:.1}% hot writes (built as said in Setup)",
                r.2 * 100.0,
                r.3,
                r.4 * 100.0
            ),
            burst_share: burst_share(&records),
            records: Arc::new(records),
            write_share,
            update_share,
            mean_write_kib,
            synthetic: true,
            update_heavy_group: None,
        });
    }
    Ok((out, source))
}

/// `--save-workloads`: the synthetic workloads as MQSim traces, for `ssdlab run`.
pub(crate) fn save_synthetic(loads: &[Load], dir: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("--save-workloads: creating {}", dir.display()))?;
    let mut saved = 0;
    for l in loads.iter().filter(|l| l.synthetic) {
        let path = dir.join(format!("{}.trace", l.name));
        let file = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        ssdlab_trace::write_mqsim(&l.records, std::io::BufWriter::new(file))
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {} ({} requests)", path.display(), l.records.len());
        saved += 1;
    }
    if saved == 0 {
        bail!(
            "--save-workloads: no synthetic workload selected (the Table 3 rows are ts0, wdev0, lun1, usr0, lun2, ads)"
        );
    }
    Ok(())
}
