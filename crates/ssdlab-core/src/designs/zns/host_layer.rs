//! The host-side log-structured layer (`[designs.zns] host_layer = "log"`, docs/zns-fdp.md):
//! what lets a conventional block workload (any trace, a synthetic or fio job) run on a
//! zoned drive, as dm-zoned or f2fs do on a real one. The application's logical pages are
//! mapped to (zone, offset) by a host page table; writes append at the write pointer of
//! the layer's open application zone; an overwrite invalidates the old copy. When the
//! empty zones fall to `host_gc_free_zones`, host GC takes the full zone with the fewest
//! valid pages (greedy), reads its valid pages, rewrites them at the write pointer of the
//! layer's own GC zone and resets the victim, until one more zone is empty.
//!
//! The layer is a record-stream adapter ([`LogSource`]) between the workload and the
//! drive: every read, write and reset it decides on is a real command the drive times
//! and checks (write pointers, open limits). Its state ([`LogLayer`]) outlives each run's
//! source (a replayed workload keeps its data) and is shared with the zoned namespace's
//! report (`designs.zns.host_layer`). Host WAF = pages the layer wrote to the drive /
//! pages the application wrote; the device WAF is the report's own (`waf`).

use super::config::{Layout, ZnsConfig};
use crate::config::{AddressOverflow, Config};
use serde::Serialize;
use ssdlab_trace::{Op, Record, RecordSource, TraceError, ZoneAction};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const NONE: u32 = u32::MAX;

/// Largest command the layer sends for its own GC reads and rewrites (a typical block
/// layer's `max_sectors_kb`); application writes keep their size, cut at zone ends.
pub const GC_COMMAND_BYTES: u64 = 256 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HostZone {
    Empty,
    Open,
    Full,
}

#[derive(Clone, Copy, Debug)]
struct Frontier {
    zone: u32,
    wp: u32,
}

/// Counters of the layer, in the report's `designs.zns.host_layer`.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct HostLayerStats {
    /// Application requests and the pages they covered.
    pub app_reads: u64,
    pub app_writes: u64,
    pub app_trims: u64,
    pub app_pages_read: u64,
    pub app_pages_written: u64,
    pub app_pages_trimmed: u64,
    /// Application pages read that the layer never wrote (answered as zeros by the host,
    /// no drive command).
    pub unmapped_pages_read: u64,
    /// Application requests beyond the layer's capacity, remapped (`host.address_overflow`).
    pub app_remapped: u64,
    /// Commands the layer sent to the drive, and their pages.
    pub drive_reads: u64,
    pub drive_writes: u64,
    pub drive_pages_read: u64,
    pub drive_pages_written: u64,
    /// Host GC: victim zones, valid pages it read and rewrote, zone resets it sent.
    pub gc_victims: u64,
    pub gc_pages_moved: u64,
    pub resets: u64,
}

/// The layer's state: the host page table, its view of the zones, the commands it owes
/// the drive.
pub struct LogLayer {
    page_bytes: u64,
    zone_pages: u32,
    capacity: u32,
    /// Application logical pages (its capacity).
    host_pages: u64,
    gc_free_zones: u32,
    overflow: AddressOverflow,
    trace_span_bytes: u64,
    /// Host page → drive logical page, and back (NONE: unmapped / invalid).
    map: Vec<u32>,
    owner: Vec<u32>,
    valid: Vec<u32>,
    state: Vec<HostZone>,
    empty: VecDeque<u32>,
    app: Option<Frontier>,
    gc: Option<Frontier>,
    /// A run of contiguous drive pages being gathered into one command.
    run: Option<(Op, u32, u32)>,
    run_limit: u32,
    run_record: Record,
    out: VecDeque<Record>,
    app_records: u64,
    pub stats: HostLayerStats,
}

impl LogLayer {
    /// The layer over `layout`'s zones (those the device holds read-only or offline are
    /// left out), or `None` without `host_layer = "log"`.
    pub fn new(config: &Config, z: &ZnsConfig, layout: &Layout) -> Option<LogLayer> {
        if z.host_layer != super::config::HostLayer::Log {
            return None;
        }
        let usable: VecDeque<u32> = usable_zones(z, layout).into();
        let n = layout.zones as usize;
        Some(LogLayer {
            page_bytes: layout.page_bytes,
            zone_pages: layout.zone_pages,
            capacity: layout.capacity_pages,
            host_pages: host_pages(z, layout, usable.len() as u32),
            gc_free_zones: z.host_gc_free_zones,
            overflow: config.host.address_overflow,
            trace_span_bytes: config.host.trace_span_bytes,
            map: vec![NONE; host_pages(z, layout, usable.len() as u32) as usize],
            owner: vec![NONE; n * layout.zone_pages as usize],
            valid: vec![0; n],
            state: vec![HostZone::Empty; n],
            empty: usable,
            app: None,
            gc: None,
            run: None,
            run_limit: (GC_COMMAND_BYTES / layout.page_bytes).max(1) as u32,
            run_record: Record { arrival_ns: 0, device: 0, offset_bytes: 0, size_bytes: 0, op: Op::Read, hint: None },
            out: VecDeque::new(),
            app_records: 0,
            stats: HostLayerStats::default(),
        })
    }

    /// The application's capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.host_pages * self.page_bytes
    }

    /// Pages holding data in the layer's view: `(T, U)` of `theory` — the zones holding
    /// data (full or open) times their capacity less the open zones' unwritten pages, and
    /// the application pages mapped.
    pub fn occupancy(&self) -> (u64, u64) {
        let holding = self.state.iter().filter(|&&s| s != HostZone::Empty).count() as u64 * self.capacity as u64;
        let unwritten: u64 = [self.app, self.gc].iter().flatten().map(|f| (self.capacity - f.wp) as u64).sum();
        let mapped = self.map.iter().filter(|&&m| m != NONE).count() as u64;
        (holding - unwritten, mapped)
    }

    /// Checks the page table against the zones' valid counts (tests).
    pub fn check(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.valid.len()];
        for (h, &d) in self.map.iter().enumerate() {
            if d == NONE {
                continue;
            }
            if self.owner[d as usize] != h as u32 {
                return Err(format!("host layer: host page {h} maps to drive page {d}, which is not its"));
            }
            valid[(d / self.zone_pages) as usize] += 1;
        }
        if valid != self.valid {
            return Err("host layer: per-zone valid counts disagree with the page table".into());
        }
        Ok(())
    }

    /// Turns one application record into the drive commands it needs (queued in `out`).
    fn apply(&mut self, record: Record) -> Result<(), TraceError> {
        self.app_records += 1;
        let page = self.page_bytes;
        let bytes = self.capacity_bytes();
        let fail = |message: String| TraceError::new("host layer", 0, "", message);
        let what = || format!("record {} ({} at byte {})", self.app_records, record.op.name(), record.offset_bytes);
        if record.size_bytes > bytes {
            return Err(fail(format!(
                "{}: {} bytes, larger than the host layer's capacity of {bytes} bytes",
                what(),
                record.size_bytes
            )));
        }
        let end = record.offset_bytes.saturating_add(record.size_bytes.max(1));
        let offset = if end <= bytes {
            record.offset_bytes
        } else {
            self.stats.app_remapped += 1;
            match self.overflow {
                AddressOverflow::Modulo => record.offset_bytes % bytes,
                AddressOverflow::Scale => {
                    let span = self.trace_span_bytes.max(end) as u128;
                    let scaled = (record.offset_bytes as u128 * bytes as u128 / span) as u64;
                    (scaled / page * page).min(bytes - record.size_bytes)
                }
                AddressOverflow::Error => {
                    return Err(fail(format!(
                        "{}: ends at byte {end}, beyond the host layer's capacity of {bytes} bytes \
                         (host.address_overflow = \"error\")",
                        what()
                    )))
                }
            }
        };
        let first = offset / page;
        let pages = ((offset + record.size_bytes.max(1) - 1) / page - first + 1) as u32;
        let host_pages = self.host_pages;
        let host_page = |k: u32| ((first + k as u64) % host_pages) as usize;
        self.run_record = record;
        match record.op {
            Op::Write => {
                self.stats.app_writes += 1;
                self.stats.app_pages_written += pages as u64;
                for k in 0..pages {
                    // As a block drive's emergency GC: before every page while the empty
                    // zones are down to the threshold, so every write sees one more.
                    if self.empty.len() as u32 <= self.gc_free_zones {
                        self.flush();
                        self.collect()?;
                        self.run_record = record;
                    }
                    let to = self.take(false)?;
                    self.place(host_page(k), to);
                    self.push(Op::Write, to, u32::MAX);
                }
            }
            Op::Read => {
                self.stats.app_reads += 1;
                self.stats.app_pages_read += pages as u64;
                for k in 0..pages {
                    match self.map[host_page(k)] {
                        NONE => {
                            self.stats.unmapped_pages_read += 1;
                            self.flush();
                        }
                        at => self.push(Op::Read, at, u32::MAX),
                    }
                }
            }
            Op::Trim => {
                self.stats.app_trims += 1;
                self.stats.app_pages_trimmed += pages as u64;
                for k in 0..pages {
                    self.unmap(host_page(k));
                }
            }
            Op::Sanitize | Op::ZoneAppend | Op::ZoneManagement(_) => {
                return Err(fail(format!(
                    "{}: the host layer takes block requests (read, write, trim), not {} (a zone-native workload \
                     runs without host_layer)",
                    what(),
                    record.op.name()
                )))
            }
        }
        self.flush();
        Ok(())
    }

    /// GC before an application write may take a new zone: while no more than
    /// `host_gc_free_zones` zones are empty, the full zone with the fewest valid pages is
    /// read, its valid pages rewritten in the GC zone, and it is reset. Stops if no full
    /// zone has an invalid page (the spare check in validation rules that out).
    fn collect(&mut self) -> Result<(), TraceError> {
        while self.empty.len() as u32 <= self.gc_free_zones {
            let victim = (0..self.state.len())
                .filter(|&z| self.state[z] == HostZone::Full)
                .min_by_key(|&z| (self.valid[z], z))
                .map(|z| z as u32);
            let Some(victim) = victim.filter(|&v| self.valid[v as usize] < self.capacity) else { return Ok(()) };
            let start = victim * self.zone_pages;
            let live: Vec<u32> = (start..start + self.capacity).filter(|&p| self.owner[p as usize] != NONE).collect();
            for &p in &live {
                self.push(Op::Read, p, self.run_limit);
            }
            self.flush();
            for &p in &live {
                let host = self.owner[p as usize] as usize;
                let to = self.take(true)?;
                self.place(host, to);
                self.push(Op::Write, to, self.run_limit);
            }
            self.flush();
            debug_assert_eq!(self.valid[victim as usize], 0);
            self.out.push_back(Record {
                op: Op::ZoneManagement(ZoneAction::Reset),
                offset_bytes: start as u64 * self.page_bytes,
                size_bytes: 0,
                ..self.run_record
            });
            self.state[victim as usize] = HostZone::Empty;
            self.empty.push_back(victim);
            self.stats.gc_victims += 1;
            self.stats.gc_pages_moved += live.len() as u64;
            self.stats.resets += 1;
        }
        Ok(())
    }

    /// The next page of the application's (or GC's) open zone, opening an empty zone when
    /// it has none.
    fn take(&mut self, gc: bool) -> Result<u32, TraceError> {
        let current = if gc { self.gc } else { self.app };
        let mut f = match current {
            Some(f) => f,
            None => {
                let Some(zone) = self.empty.pop_front() else {
                    return Err(TraceError::new(
                        "host layer",
                        0,
                        "",
                        "no empty zone left (host GC found no zone with invalid data)",
                    ));
                };
                self.state[zone as usize] = HostZone::Open;
                Frontier { zone, wp: 0 }
            }
        };
        let at = f.zone * self.zone_pages + f.wp;
        f.wp += 1;
        let next = if f.wp == self.capacity {
            self.state[f.zone as usize] = HostZone::Full;
            None
        } else {
            Some(f)
        };
        if gc {
            self.gc = next;
        } else {
            self.app = next;
        }
        Ok(at)
    }

    fn unmap(&mut self, host: usize) {
        let old = std::mem::replace(&mut self.map[host], NONE);
        if old != NONE {
            self.owner[old as usize] = NONE;
            self.valid[(old / self.zone_pages) as usize] -= 1;
        }
    }

    fn place(&mut self, host: usize, to: u32) {
        self.unmap(host);
        self.map[host] = to;
        self.owner[to as usize] = host as u32;
        self.valid[(to / self.zone_pages) as usize] += 1;
    }

    /// Adds drive page `at` to the command being gathered (one op, contiguous pages of
    /// one zone, at most `limit` pages), sending the previous one if `at` does not extend it.
    fn push(&mut self, op: Op, at: u32, limit: u32) {
        if let Some((o, start, n)) = self.run {
            if o == op && at == start + n && !at.is_multiple_of(self.zone_pages) && n < limit {
                self.run = Some((o, start, n + 1));
                return;
            }
            self.flush();
        }
        self.run = Some((op, at, 1));
    }

    fn flush(&mut self) {
        let Some((op, start, n)) = self.run.take() else { return };
        if op == Op::Write {
            self.stats.drive_writes += 1;
            self.stats.drive_pages_written += n as u64;
        } else {
            self.stats.drive_reads += 1;
            self.stats.drive_pages_read += n as u64;
        }
        self.out.push_back(Record {
            op,
            offset_bytes: start as u64 * self.page_bytes,
            size_bytes: n as u64 * self.page_bytes,
            ..self.run_record
        });
    }
}

/// The application's pages on `usable` zones: `(1 − host_spare_fraction)` of their
/// capacity, whole pages.
pub fn host_pages(z: &ZnsConfig, layout: &Layout, usable: u32) -> u64 {
    let total = usable as u64 * layout.capacity_pages as u64;
    ((total as f64) * (1.0 - z.host_spare_fraction)).floor() as u64
}

/// The application's capacity in bytes on `config`'s drive with the host layer on, or
/// `None` (no layer, or a config that does not validate): what a synthetic or fio workload
/// addresses instead of the drive's logical capacity.
pub fn application_bytes(config: &Config) -> Option<u64> {
    let z = config.design_section::<ZnsConfig>("zns").ok()?;
    if !z.enabled || z.host_layer != super::config::HostLayer::Log {
        return None;
    }
    let layout = Layout::new(config, &z).ok()?;
    Some(host_pages(&z, &layout, usable_zones(&z, &layout).len() as u32) * layout.page_bytes)
}

/// The zones the layer writes: those in normal mode the device holds neither read-only
/// nor offline (SLC-mode zones are left to the host's own use).
pub fn usable_zones(z: &ZnsConfig, layout: &Layout) -> Vec<u32> {
    (0..layout.normal_zones()).filter(|n| !z.read_only_zones.contains(n) && !z.offline_zones.contains(n)).collect()
}

/// One run's workload seen through the layer: the application's records in, the drive's
/// commands out, in order.
pub struct LogSource {
    inner: Box<dyn RecordSource>,
    layer: Arc<Mutex<LogLayer>>,
}

impl LogSource {
    pub fn new(inner: Box<dyn RecordSource>, layer: Arc<Mutex<LogLayer>>) -> LogSource {
        LogSource { inner, layer }
    }
}

impl Iterator for LogSource {
    type Item = Result<Record, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        let mut layer = self.layer.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(r) = layer.out.pop_front() {
                return Some(Ok(r));
            }
            match self.inner.next()? {
                Ok(record) => {
                    if let Err(e) = layer.apply(record) {
                        return Some(Err(e));
                    }
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

ssdlab_trace::passes_through!(LogSource);

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(zones: u32, capacity: u32, spare: f64) -> LogLayer {
        // One empty zone kept: small enough to write tests by hand.
        let mut c = Config::default();
        c.host.address_overflow = AddressOverflow::Error;
        let z = ZnsConfig {
            enabled: true,
            host_layer: super::super::config::HostLayer::Log,
            host_spare_fraction: spare,
            host_gc_free_zones: 1,
            ..ZnsConfig::default()
        };
        let layout = Layout {
            zone_dies: 1,
            planes_per_die: 1,
            groups: 1,
            zone_pages: capacity + 2,
            capacity_pages: capacity,
            zones,
            page_bytes: 4096,
            blocks_per_plane: zones + 2,
            slc_zones: 0,
            slc_capacity_pages: 0,
            slc_block_pages: 0,
            conventional_zones: 0,
            conventional_blocks: 2,
            dies: 1,
        };
        LogLayer::new(&c, &z, &layout).expect("a log layer")
    }

    fn write(l: &mut LogLayer, page: u64, pages: u64) -> Vec<Record> {
        let r = Record {
            arrival_ns: 0,
            device: 0,
            offset_bytes: page * 4096,
            size_bytes: pages * 4096,
            op: Op::Write,
            hint: None,
        };
        l.apply(r).expect("accepted");
        l.out.drain(..).collect()
    }

    #[test]
    fn sequential_writes_append_in_zone_order_and_never_move_data() {
        let mut l = layer(8, 6, 0.5);
        assert_eq!(l.host_pages, 24);
        let mut sent = Vec::new();
        for _ in 0..3 {
            for p in (0..24).step_by(4) {
                sent.extend(write(&mut l, p, 4));
            }
        }
        // Writes at each zone's write pointer (zones of 8 pages, 6 writable), cut at its
        // capacity, zone by zone.
        let first: Vec<(u64, u64)> =
            sent.iter().take(3).map(|r| (r.offset_bytes / 4096, r.size_bytes / 4096)).collect();
        assert_eq!(first, [(0, 4), (4, 2), (8, 2)]);
        assert!(l.stats.resets >= 4, "{} resets", l.stats.resets);
        assert_eq!(l.stats.gc_pages_moved, 0, "every victim is wholly invalid");
        assert_eq!(l.stats.drive_pages_written, l.stats.app_pages_written);
        l.check().unwrap();
    }

    #[test]
    fn gc_reads_then_rewrites_then_resets_the_greediest_victims() {
        let mut l = layer(6, 4, 0.55);
        assert_eq!(l.host_pages, 10);
        for p in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 4, 5, 6, 0, 1, 2, 8] {
            assert!(write(&mut l, p, 1).iter().all(|r| r.op == Op::Write));
        }
        // Zones 0 and 1 hold one valid page each (3 and 7), zone 2 three, zone 3 four;
        // zone 4 is the application's, zone 5 the last empty one: the next write collects
        // zone 0 (the lower of the tie), then zone 1, into zone 5 (drive pages 30, 31).
        let sent: Vec<(Op, u64, u64)> =
            write(&mut l, 9, 1).iter().map(|r| (r.op, r.offset_bytes / 4096, r.size_bytes / 4096)).collect();
        let reset = Op::ZoneManagement(ZoneAction::Reset);
        assert_eq!(
            sent,
            [
                (Op::Read, 3, 1),
                (Op::Write, 30, 1),
                (reset, 0, 0),
                (Op::Read, 9, 1),
                (Op::Write, 31, 1),
                (reset, 6, 0),
                (Op::Write, 25, 1)
            ]
        );
        assert_eq!((l.stats.gc_victims, l.stats.gc_pages_moved), (2, 2));
        assert_eq!(l.map[3], 30);
        l.check().unwrap();
    }
}
