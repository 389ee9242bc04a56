//! A zone-native synthetic workload (`[workload.zoned]`, docs/zns-fdp.md): what a host
//! writing a zoned drive sends. `open_zones` writers each fill a zone from its start,
//! sequentially at the write pointer or by Zone Append, and take an empty zone when theirs
//! is full; once `utilisation` of the zones hold data, the oldest full zone is reset first
//! (a log-structured store dropping its oldest segment). Reads go to written data: a
//! uniformly drawn zone holding data, a uniformly drawn offset below its write pointer.
//!
//! The request count, sizes, read fraction, seed and arrival spacing are the enclosing
//! [`SyntheticSpec`](crate::SyntheticSpec)'s; a reset is an extra record, issued just
//! before the write that needs its zone, at the same arrival time.

use crate::{Op, Record, ZoneAction};
use rand::Rng;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ZonedSpec {
    /// Zones written at once, one writer each (at most the drive's open-zone limit).
    pub open_zones: u32,
    /// Writers use Zone Append (the device picks the address) instead of writes at the
    /// write pointer.
    pub append: bool,
    /// Fraction of the zones holding data before the oldest full zone is reset to make
    /// room, in (0, 1].
    pub utilisation: f64,
    /// The drive's zones: size and capacity in bytes and their number; 0 (the default):
    /// the host reads them from the drive's `[designs.zns]`.
    pub zone_size_bytes: u64,
    pub zone_capacity_bytes: u64,
    pub zones: u32,
    /// Where the first of those zones starts, a zone boundary: the workload's zones are
    /// the `zones` from there. 0 (the default) on a drive with conventional zones: the
    /// host reads the first sequential zone's from `[designs.zns]`.
    pub start_bytes: u64,
}

impl Default for ZonedSpec {
    fn default() -> Self {
        ZonedSpec {
            open_zones: 4,
            append: false,
            utilisation: 0.8,
            zone_size_bytes: 0,
            zone_capacity_bytes: 0,
            zones: 0,
            start_bytes: 0,
        }
    }
}

impl ZonedSpec {
    /// Problems with its fields (bare keys), once the zone geometry is resolved.
    pub fn problems(&self, block_size_bytes: u64) -> Vec<(&'static str, String)> {
        let mut p = Vec::new();
        if self.zone_size_bytes == 0 || self.zones == 0 {
            p.push(("zoned.zones", "the drive's zones are not known (a drive without [designs.zns]?)".to_string()));
            return p;
        }
        if !self.start_bytes.is_multiple_of(self.zone_size_bytes) {
            p.push((
                "zoned.start_bytes",
                format!("must be a zone boundary (a multiple of {} bytes)", self.zone_size_bytes),
            ));
        }
        if self.zone_capacity_bytes == 0 || self.zone_capacity_bytes > self.zone_size_bytes {
            p.push(("zoned.zone_capacity_bytes", "must be in (0, zone_size_bytes]".to_string()));
        }
        if block_size_bytes == 0 || !self.zone_capacity_bytes.is_multiple_of(block_size_bytes) {
            p.push(("block_size_bytes", "must divide the zone capacity".to_string()));
        }
        let holding = (self.utilisation * self.zones as f64).floor() as u32;
        if !(self.utilisation > 0.0 && self.utilisation <= 1.0) || self.open_zones == 0 || self.open_zones >= holding {
            p.push((
                "zoned.open_zones",
                format!(
                    "at least 1 and fewer than the zones utilisation {} lets hold ({holding} of {})",
                    self.utilisation, self.zones
                ),
            ));
        }
        p
    }
}

/// The generator's host-side view of the zones.
#[derive(Clone, Debug)]
pub(crate) struct ZonedState {
    spec: ZonedSpec,
    /// Bytes written into each zone (its write pointer as the host counts it).
    written: Vec<u64>,
    /// Zones holding data (any written byte), for reads.
    holding: Vec<u32>,
    empty: VecDeque<u32>,
    full: VecDeque<u32>,
    writers: Vec<Option<u32>>,
    next_writer: usize,
    pending: Option<Record>,
}

impl ZonedState {
    pub(crate) fn new(spec: ZonedSpec) -> ZonedState {
        ZonedState {
            written: vec![0; spec.zones as usize],
            holding: Vec::new(),
            empty: (0..spec.zones).collect(),
            full: VecDeque::new(),
            writers: vec![None; spec.open_zones as usize],
            next_writer: 0,
            pending: None,
            spec,
        }
    }

    /// The write that a reset just issued was for (it counts as the request that issued
    /// the reset).
    pub(crate) fn take_pending(&mut self) -> Option<Record> {
        self.pending.take()
    }

    /// The next request: a write (or append) or a read; a write needing a zone reset
    /// first returns the reset and keeps the write for `take_pending`.
    pub(crate) fn next(&mut self, rng: &mut Pcg64Mcg, read_fraction: f64, size: u64, at_ns: u64) -> Record {
        let record = |op, offset_bytes, size_bytes| Record {
            arrival_ns: at_ns,
            device: 0,
            offset_bytes,
            size_bytes,
            op,
            hint: None,
        };
        // One draw for the op, always, so the streams of specs differing only in reads agree.
        let read = rng.random::<f64>() < read_fraction;
        if read && !self.holding.is_empty() {
            let zone = self.holding[rng.random_range(0..self.holding.len())];
            let written = self.written[zone as usize];
            let bytes = size.min(written);
            let offset = rng.random_range(0..=(written - bytes) / size) * size;
            return record(Op::Read, self.zone_start(zone) + offset, bytes);
        }
        let w = self.next_writer;
        self.next_writer = (w + 1) % self.writers.len();
        let mut reset = None;
        let zone = match self.writers[w] {
            Some(zone) => zone,
            None => {
                let limit = (self.spec.utilisation * self.spec.zones as f64).floor() as usize;
                let zone = if self.holding.len() >= limit || self.empty.is_empty() {
                    let oldest = self.full.pop_front().expect("validated: fewer writers than zones holding data");
                    self.written[oldest as usize] = 0;
                    self.holding.retain(|&z| z != oldest);
                    reset = Some(record(Op::ZoneManagement(ZoneAction::Reset), self.zone_start(oldest), 0));
                    oldest
                } else {
                    self.empty.pop_front().expect("checked")
                };
                self.writers[w] = Some(zone);
                self.holding.push(zone);
                zone
            }
        };
        let at = self.written[zone as usize];
        let bytes = size.min(self.spec.zone_capacity_bytes - at);
        self.written[zone as usize] += bytes;
        if self.written[zone as usize] == self.spec.zone_capacity_bytes {
            self.full.push_back(zone);
            self.writers[w] = None;
        }
        let write = if self.spec.append {
            record(Op::ZoneAppend, self.zone_start(zone), bytes)
        } else {
            record(Op::Write, self.zone_start(zone) + at, bytes)
        };
        match reset {
            Some(r) => {
                self.pending = Some(write);
                r
            }
            None => write,
        }
    }

    fn zone_start(&self, zone: u32) -> u64 {
        self.spec.start_bytes + zone as u64 * self.spec.zone_size_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SyntheticSource, SyntheticSpec};

    fn records(append: bool, read_fraction: f64) -> Vec<Record> {
        let spec = SyntheticSpec {
            read_fraction,
            block_size_bytes: 4096,
            count: 400,
            address_space_bytes: 1 << 20,
            zoned: Some(ZonedSpec {
                open_zones: 2,
                append,
                utilisation: 0.5,
                zone_size_bytes: 16 * 4096,
                zone_capacity_bytes: 12 * 4096,
                zones: 10,
                start_bytes: 0,
            }),
            ..SyntheticSpec::default()
        };
        SyntheticSource::new(spec).unwrap().map(|r| r.unwrap()).collect()
    }

    #[test]
    fn writers_fill_zones_at_their_write_pointers_and_reset_the_oldest_at_the_utilisation() {
        let rs = records(false, 0.0);
        let resets: Vec<u64> = rs
            .iter()
            .filter(|r| r.op == Op::ZoneManagement(ZoneAction::Reset))
            .map(|r| r.offset_bytes / (16 * 4096))
            .collect();
        assert_eq!(rs.len(), 400 + resets.len(), "a reset is an extra record");
        // 400 pages fill 33 zones of 12; at most 5 zones hold data: zones 0-4, then resets
        // of the oldest full zone, in the order they filled (two writers interleaved).
        assert_eq!(&resets[..4], &[0, 1, 2, 3]);
        assert_eq!(resets.len(), 33 + 1 - 5);
        // Every write lands at its zone's write pointer, as the host counts it.
        let mut wp = [0u64; 10];
        for r in &rs {
            let zone = (r.offset_bytes / (16 * 4096)) as usize;
            match r.op {
                Op::Write => {
                    assert_eq!(r.offset_bytes % (16 * 4096), wp[zone], "zone {zone}");
                    wp[zone] += r.size_bytes;
                    assert!(wp[zone] <= 12 * 4096);
                }
                Op::ZoneManagement(ZoneAction::Reset) => {
                    assert_eq!(wp[zone], 12 * 4096, "only full zones are reset");
                    wp[zone] = 0;
                }
                op => panic!("{op:?}"),
            }
        }
    }

    #[test]
    fn appends_name_the_zone_start_and_reads_stay_below_the_write_pointer() {
        let appends = records(true, 0.0);
        assert!(appends.iter().filter(|r| r.op == Op::ZoneAppend).all(|r| r.offset_bytes % (16 * 4096) == 0));
        let mixed = records(false, 0.3);
        let mut wp = [0u64; 10];
        let mut reads = 0;
        for r in &mixed {
            let zone = (r.offset_bytes / (16 * 4096)) as usize;
            match r.op {
                Op::Write => wp[zone] += r.size_bytes,
                Op::ZoneManagement(_) => wp[zone] = 0,
                Op::Read => {
                    reads += 1;
                    assert!(r.offset_bytes % (16 * 4096) + r.size_bytes <= wp[zone], "read above the write pointer");
                }
                op => panic!("{op:?}"),
            }
        }
        assert!((90..150).contains(&reads), "{reads} reads of 400");
        assert_eq!(mixed, records(false, 0.3), "deterministic");
    }

    #[test]
    fn a_spec_that_cannot_run_names_its_field() {
        let mut spec = ZonedSpec { zone_size_bytes: 8192, zone_capacity_bytes: 8192, zones: 4, ..ZonedSpec::default() };
        assert!(spec.problems(4096).iter().any(|p| p.0 == "zoned.open_zones"), "4 writers, 3 zones holding data");
        spec.open_zones = 1;
        assert!(spec.problems(4096).is_empty());
        assert!(spec.problems(3000).iter().any(|p| p.0 == "block_size_bytes"));
        assert!(ZonedSpec::default().problems(4096).iter().any(|p| p.0 == "zoned.zones"));
    }
}
