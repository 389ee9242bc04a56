//! The swarm's zoned drives (`ssdlab swarm`): on one drawn drive in ten the whole logical
//! space becomes a zoned namespace of random zone width and open / active limits, and the
//! case's workload either reaches it through the host-side log-structured layer (the
//! drawn block records as they are) or is replaced by a zone-native one (sequential
//! writers or Zone Append, resets at a random utilisation). The swarm's checks and
//! `--verify` then hold every acknowledged write readable at the LBA the device returned.
//!
//! Cases with power losses keep their losses (acknowledged on program, without block
//! summaries) and draw the zone-native workload only: the host layer keeps no state
//! across a loss (validation refuses it). A quarter of the zoned drives put some zones in
//! SLC mode (their own stream, so the earlier draws stay as they were). A quarter of the
//! zone-native drives (another stream) put a conventional area of 1-3 zones at the LBA
//! start, written by random writes and reads of single pages merged into the zoned
//! workload by arrival time: its GC runs among the zones' blocks.

use super::config::{Layout, ZnsConfig};
use crate::config::{Config, WhatIfUnwritten};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use ssdlab_trace::zoned::ZonedSpec;
use ssdlab_trace::{Op, Record, SyntheticSource, SyntheticSpec};

pub(crate) fn draw(seed: u64, c: &mut Config, records: &mut Vec<Record>) {
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-zns"));
    if !rng.random_bool(0.1) || !c.flows.is_empty() {
        return;
    }
    let losses = c.power.loss_at_ns.clone();
    let mut d = crate::swarm::plain_page_map(c);
    d.ftl.slc_gc_destination = Config::default().ftl.slc_gc_destination;
    d.ftl.super_page_channels = 1;
    d.ftl.super_page_dies = 1;
    d.flash.program_scheme = crate::config::ProgramScheme::PageByPage;
    d.cmt = Default::default();
    d.cache = Default::default();
    d.power = crate::config::Power { loss_at_ns: losses.clone(), off_ns: c.power.off_ns, ..Default::default() };
    d.precondition = Default::default();
    d.host.unwritten_reads = WhatIfUnwritten::Controller;
    // The other built-in designs decide placement too: a zoned drive runs alone.
    d.gordon = Default::default();
    d.pa = Default::default();
    d.dir = Default::default();
    d.ipu = Default::default();
    d.scrub = Default::default();
    d.wom = Default::default();
    d.harey = Default::default();
    d.mango = Default::default();
    d.designs.clear();
    let g = &d.geometry;
    let dies = g.channels * g.chips_per_channel * g.dies_per_chip;
    let widths: Vec<u32> = (1..=dies).filter(|w| dies.is_multiple_of(*w)).collect();
    // Narrow zones half the time: more zones, which the host layer's spare needs.
    let zone_dies = if rng.random_bool(0.5) { 1 } else { widths[rng.random_range(0..widths.len())] };
    let mut z = ZnsConfig { enabled: true, zone_dies, ..ZnsConfig::default() };
    let Ok(layout) = Layout::new(&d, &z) else { return };
    if rng.random_bool(0.3) {
        // A capacity below the zone size: the rest of its blocks is given up until a reset.
        z.zone_capacity_bytes =
            rng.random_range(layout.zone_pages / 2..=layout.zone_pages).max(1) as u64 * layout.page_bytes;
    }
    let limit = if rng.random_bool(0.5) { 0 } else { rng.random_range(2..=8u32).min(layout.zones) };
    z.max_open_zones = limit;
    z.max_active_zones = if limit > 0 && rng.random_bool(0.5) { limit + rng.random_range(0..3) } else { limit };
    let log = rng.random_bool(0.6) && losses.is_empty();
    let slc = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-zns-slc"));
    if slc.random_bool(0.25) && layout.zones > 4 {
        z.slc_zones = slc.random_range(1..=(layout.zones / 4).max(1));
    }
    let conv_rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-zns-conventional"));
    let mut layout = layout;
    if !log && conv_rng.random_bool(0.25) {
        let with = ZnsConfig { conventional_bytes: conv_rng.random_range(1..=3u64) * layout.zone_size(), ..z.clone() };
        if let Ok(l) = Layout::new(&d, &with) {
            if l.zones > z.slc_zones + 4 {
                (z, layout) = (with, l);
            }
        }
    }
    // (The zone-native workload writes the normal-mode zones.)
    let normal_zones = layout.zones - z.slc_zones;
    let new_records = if log {
        z.host_layer = super::config::HostLayer::Log;
        z.host_gc_free_zones = rng.random_range(1..=3);
        // More than host_gc_free_zones + 2 zones' worth of spare (validation's rule).
        let least = (z.host_gc_free_zones as f64 + 3.0) / layout.zones as f64;
        if least > 0.7 {
            return;
        }
        z.host_spare_fraction = rng.random_range(least.max(0.2)..0.8);
        // The layer takes block requests; a sanitise is the drive's, not the application's.
        records.iter().copied().filter(|r| matches!(r.op, Op::Read | Op::Write | Op::Trim)).collect()
    } else {
        let capacity = if z.zone_capacity_bytes == 0 {
            layout.zone_pages as u64
        } else {
            z.zone_capacity_bytes / layout.page_bytes
        };
        let pages = [1u64, 1, 2, 4].into_iter().filter(|p| capacity.is_multiple_of(*p)).collect::<Vec<_>>();
        let open = if limit == 0 { rng.random_range(1..=4) } else { rng.random_range(1..=limit) };
        let spec = SyntheticSpec {
            read_fraction: rng.random_range(0.0..0.5),
            block_size_bytes: pages[rng.random_range(0..pages.len())] * layout.page_bytes,
            count: records.len() as u64,
            address_space_bytes: layout.zones as u64 * layout.zone_pages as u64 * layout.page_bytes,
            seed: rng.random(),
            interarrival_ns: rng.random_range(0..300_000),
            zoned: Some(ZonedSpec {
                open_zones: open,
                append: rng.random_bool(0.5),
                utilisation: rng.random_range(0.3..1.0),
                zone_size_bytes: layout.zone_pages as u64 * layout.page_bytes,
                zone_capacity_bytes: capacity * layout.page_bytes,
                zones: normal_zones,
                start_bytes: layout.conventional_pages() as u64 * layout.page_bytes,
            }),
            ..SyntheticSpec::default()
        };
        let Ok(source) = SyntheticSource::new(spec) else { return };
        let Ok(mut zoned) = source.collect::<Result<Vec<Record>, _>>() else { return };
        if layout.conventional_zones > 0 {
            let Some(random) = conventional_records(conv_rng, &layout, &zoned) else { return };
            // Merged by arrival (stable: a zone reset stays right before its write).
            zoned.extend(random);
            zoned.sort_by_key(|r| r.arrival_ns);
        }
        zoned
    };
    let Some(table) = toml::Value::try_from(&z).ok().and_then(|v| v.as_table().cloned()) else { return };
    d.designs.insert("zns".into(), table);
    if d.validate().is_ok() && !new_records.is_empty() {
        *c = d;
        *records = new_records;
    }
}

/// Random single-page writes (two thirds) and reads over the conventional area, one per
/// zoned record, spread over the zoned records' arrivals: overwrites enough to run the
/// area's GC while the zones are written.
fn conventional_records(rng: &mut Pcg64Mcg, l: &Layout, zoned: &[Record]) -> Option<Vec<Record>> {
    let last = zoned.last()?.arrival_ns;
    let spec = SyntheticSpec {
        read_fraction: 0.33,
        block_size_bytes: l.page_bytes,
        count: zoned.len() as u64,
        address_space_bytes: l.conventional_pages() as u64 * l.page_bytes,
        seed: rng.random(),
        interarrival_ns: last / zoned.len().max(1) as u64,
        ..SyntheticSpec::default()
    };
    SyntheticSource::new(spec).ok()?.collect::<Result<Vec<Record>, _>>().ok()
}
