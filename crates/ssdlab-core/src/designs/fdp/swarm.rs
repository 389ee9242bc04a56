//! The swarm's draw of FDP (`crate::swarm`): on a third of the drives it composes with,
//! from a stream of its own, one to four handles of either type, one to three reclaim
//! groups, placement identifiers from the device column (records' devices redrawn, some
//! of them naming no handle), the address or the host flow, and sometimes a reclaim unit
//! time limit, some host Reclaim Unit Handle Updates, on some drives one handle in SLC
//! mode; the DRAM cache and block summaries off. Drives with power losses are drawn too;
//! drives with a cached map keep their config (FDP lacks it).

use super::config::{FdpConfig, HandleType, LbaPid, PidSource, RuhUpdate};
use super::Fdp;
use crate::config::{Config, GcDestination};
use crate::designs::Design;
use crate::swarm::{pick, plain_page_map};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub(super) fn draw(seed: u64, c: &mut Config, records: &mut [ssdlab_trace::Record]) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-fdp"));
    if !rng.random_bool(0.35)
        || !crate::designs::composes_with(c, Fdp::NAME)
        || c.cmt.enabled()
        || c.flash.program_scheme == crate::config::ProgramScheme::OneShot
        || c.super_page_pages() > 1
    {
        return;
    }
    // (What FDP needs: no data cache, data pages only; drives with a cached map keep it,
    // so the swarm's cached-map cases stay as they were.)
    let mut drawn = plain_page_map(c);
    drawn.cache = crate::config::Cache::default();
    drawn.power.block_summary = false;
    drawn.ftl.slc_gc_destination = crate::config::Config::default().ftl.slc_gc_destination;
    // At most (blocks − 8) / 4 write points per plane: a handle takes one or two.
    let most = ((c.geometry.blocks_per_plane.saturating_sub(8) / 4) / 2).clamp(1, 4) as usize;
    let n = rng.random_range(1..=most);
    let handles: Vec<HandleType> =
        (0..n).map(|_| pick(rng, &[HandleType::Persistently, HandleType::Initially])).collect();
    let dies = c.geometry.channels * c.geometry.chips_per_channel * c.geometry.dies_per_chip;
    let mut f =
        FdpConfig { enabled: true, reclaim_groups: rng.random_range(1..=dies.min(3)), handles, ..FdpConfig::default() };
    let pids = n as u32 * f.reclaim_groups;
    let sources: &[PidSource] =
        if c.flows.is_empty() { &[PidSource::Device, PidSource::Lba] } else { &[PidSource::Flow, PidSource::Lba] };
    f.pid_from = pick(rng, sources);
    let spread = |rng: &mut Pcg64Mcg, bits: u32| {
        // Mostly valid identifiers, some naming a group or handle the drive lacks.
        let handle = rng.random_range(0..=n as u32);
        let group = rng.random_range(0..f.reclaim_groups);
        (group << bits) | handle
    };
    let bits = f.handle_bits();
    let mut redrawn = Vec::new();
    match f.pid_from {
        PidSource::Device => {
            let devices = rng.random_range(1..=pids + 1);
            redrawn = records.iter().map(|_| rng.random_range(0..devices)).collect();
            if rng.random_bool(0.5) {
                f.device_pids = (0..devices).map(|_| spread(rng, bits)).collect();
            }
        }
        PidSource::Flow => f.flow_pids = (0..c.flows.len()).map(|_| spread(rng, bits)).collect(),
        PidSource::Lba => {
            let bytes = c.logical_pages() * c.geometry.page_size_bytes as u64;
            let cuts = rng.random_range(1..=4u64);
            f.lba_pids = (0..cuts)
                .map(|k| LbaPid {
                    start_bytes: bytes * k / cuts,
                    end_bytes: bytes * (k + 1) / cuts,
                    pid: spread(rng, bits),
                })
                .collect();
        }
    }
    if rng.random_bool(0.25) {
        f.ru_time_limit_ms = ru_program_ms(c) * rng.random_range(1.0..10.0);
    }
    drawn.ftl.user_write_points = f.write_points();
    drawn.ftl.gc_through_user_write_points = false;
    drawn.ftl.gc_destination = GcDestination::SamePlane;
    // (Drawn after the rest, so the cases drawn before these existed keep their draws.)
    if rng.random_bool(0.25) {
        let last_ms = records.iter().map(|r| r.arrival_ns).max().unwrap_or(0) as f64 / 1e6;
        f.ruh_updates = (0..rng.random_range(1..=4))
            .map(|_| RuhUpdate {
                at_ms: rng.random_range(0.0..=last_ms.max(0.01)),
                pids: (0..rng.random_range(1..=n))
                    .map(|_| (rng.random_range(0..f.reclaim_groups) << bits) | rng.random_range(0..n as u32))
                    .collect(),
            })
            .collect();
    }
    let slc = rng.random_bool(0.3).then(|| (rng.random_range(0..n as u32), rng.random_range(4..=8u32)));
    let with = |drawn: &Config, f: &FdpConfig| {
        let mut d = drawn.clone();
        let section = toml::Value::try_from(f).ok()?;
        d.designs.insert("fdp".into(), section.as_table()?.clone());
        d.validate().is_ok().then_some(d)
    };
    let slc_drawn = slc.and_then(|(handle, blocks)| {
        let mut d = drawn.clone();
        d.ftl.slc_blocks_per_plane = blocks;
        d.flash.slc_pages_per_block = (d.geometry.pages_per_block / d.bits_per_cell() as u32).max(2);
        let f = FdpConfig { slc_handles: vec![handle], ..f.clone() };
        d.ftl.slc_levels = f.slc_levels();
        with(&d, &f)
    });
    if let Some(drawn) = slc_drawn.or_else(|| with(&drawn, &f)) {
        *c = drawn;
        for (r, d) in records.iter_mut().zip(redrawn) {
            r.device = d;
        }
    }
}

/// The time a die takes to program its blocks of a reclaim unit one page at a time (its
/// planes' blocks at the mean program latency): the swarm's reclaim unit time limits are
/// one to ten times that. A shorter limit closes every reclaim unit nearly empty under
/// any load, as no device does: NVMe reports the limit (ERUTL) in seconds, for reclaim
/// units of gigabytes or none at all. (Seed 1000861 drew 7.7 ms on a QLC die that
/// programs a unit in 154 ms: each unit took about three host pages before its time ran
/// out, and GC ran at a write amplification of 33, beyond the swarm's event budget.)
pub(crate) fn ru_program_ms(c: &Config) -> f64 {
    let latency = &c.flash.program_latency_ns;
    let mean_ns = latency.iter().sum::<u64>() as f64 / latency.len().max(1) as f64;
    (c.geometry.pages_per_block * c.geometry.planes_per_die) as f64 * mean_ns / 1e6
}
