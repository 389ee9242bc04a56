//! NVMe Flexible Data Placement (FDP, NVMe TP4146, in the NVMe 2.1 base specification):
//! reclaim groups, reclaim units and reclaim unit handles on the conventional FTL, and the
//! FDP statistics and events logs (docs/zns-fdp.md, "FDP").
//!
//! Owns: which handle and reclaim group each write goes to (its placement identifier, from
//! the trace's device column, the host flow or the address: `config.rs`), which blocks
//! belong to which handle's reclaim units, where GC puts the data it moves (a persistently
//! isolated handle's own GC write point; initially isolated handles' data into the shared
//! GC write point), the reclaim unit time limit, and the statistics.
//!
//! A handle is a user write point of every plane (`WriteMode::UserPoint`); a persistently
//! isolated handle has a second one for its GC moves. Its reclaim unit in a group is its
//! open block in every plane of the group's dies: the FTL's per-plane allocation opens
//! them as the handle's writes, striped over the planes, reach each one. The FTL cleans
//! one block at a time (its GC is per plane), so a reclaim unit is reclaimed block by block.
//!
//! A handle in SLC mode (`slc_handles`) writes SLC level `l` of every plane instead
//! (`WriteMode::SlcLevel`): its reclaim units are SLC-mode blocks. GC cleans them ahead
//! of the normal pool's background GC when a plane is down to its last free SLC block,
//! and moves their valid data out of SLC mode, to where the handle's type puts GC data.
//! Host Reclaim Unit Handle Updates (`ruh_updates`) are timers: `ruh.rs`.

pub mod config;
mod ruh;

use super::{BuiltIn, Design, Hook, Need};
use crate::engine::{SimError, Simulator, TxnKind, NO_REQUEST, NO_TYPE};
use crate::flash::{Ppn, NO_PAGE};
use crate::ftl::{Allocated, Ftl, Stream, WriteMode};
use crate::stats::Report;
pub use config::{FdpConfig, HandleType, PidSource, RuhUpdate};
use serde::Serialize;
use ssdlab_trace::{Op, Record};
use std::collections::BTreeMap;

/// Block owners beyond the handles: the shared GC reclaim units, and data placed before
/// the run (preconditioning), which no handle wrote.
const SHARED_GC: u8 = 254;
const UNOWNED: u8 = 255;

/// The FDP events the model logs (NVMe "FDP Events" log page, event types).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Events {
    /// 0x00, Reclaim Unit Not Fully Written: a handle was moved to a new reclaim unit
    /// before its reclaim unit was full (by the time limit or a host RUH Update).
    pub ru_not_fully_written: u64,
    /// 0x01, Reclaim Unit Active Time Limit Exceeded.
    pub ru_time_limit_exceeded: u64,
    /// 0x03, Invalid Placement Identifier: the write went to the default handle.
    pub invalid_placement_identifier: u64,
    /// 0x80, Media Reallocated: GC moved valid data out of a block of a reclaim unit
    /// (one event per block erased after moves).
    pub media_reallocated: u64,
}

/// One handle's (or the shared GC reclaim units', or unowned data's) statistics.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HandleStats {
    /// `handle-N`, `shared-gc` or `unowned`.
    pub name: String,
    /// `persistently` / `initially` isolated (empty for the other two).
    #[serde(rename = "type")]
    pub kind: String,
    /// `slc` or `normal`: the mode of the blocks its host writes go to (empty for the
    /// shared GC reclaim units and unowned data).
    pub mode: String,
    /// Host Bytes with Metadata Written (HBMW): bytes of host writes placed through it.
    pub host_bytes_written: u64,
    /// Media Bytes with Metadata Written (MBMW): pages programmed into its reclaim units
    /// (host writes and GC moves in) times the page size.
    pub media_bytes_written: u64,
    /// Media Bytes Erased (MBE): blocks of its reclaim units erased, times their size.
    pub media_bytes_erased: u64,
    /// Pages of host writes programmed into its reclaim units.
    pub host_pages: u64,
    /// Pages GC moved into its reclaim units, and out of them.
    pub gc_pages_in: u64,
    pub gc_pages_out: u64,
    pub blocks_erased: u64,
    /// MBMW / HBMW (0 without host writes).
    pub waf: f64,
    /// Pages programmed into its reclaim units in normal mode by page type (LSB first),
    /// and in SLC mode: together they are its MBMW in pages.
    pub page_types: Vec<u64>,
    pub slc_pages: u64,
}

#[derive(Clone, Debug, Serialize)]
struct Summary<'a> {
    reclaim_groups: u32,
    /// Bytes of a reclaim unit: one block in every plane of a group, in normal mode and
    /// in SLC mode (0 without SLC handles).
    reclaim_unit_bytes: u64,
    slc_reclaim_unit_bytes: u64,
    host_bytes_written: u64,
    media_bytes_written: u64,
    media_bytes_erased: u64,
    waf: f64,
    events: &'a Events,
    /// Reclaim Unit Handle Updates received (each names one or more handles).
    ruh_updates: u64,
    /// GC moves of a persistently isolated handle's data that found no room in its own
    /// GC reclaim unit and went to the shared one (isolation given up to avoid a stall).
    isolation_fallbacks: u64,
    /// Host writes placed outside the reclaim group their identifier names, every plane
    /// of it holding its share of the logical pages (`Fdp::plane_with_room`).
    reclaim_group_spills: u64,
    handles: Vec<HandleStats>,
}

pub struct Fdp {
    cfg: FdpConfig,
    /// Per handle: its SLC level (SLC-mode handles); per SLC level: its handle.
    slc_level: Vec<Option<u8>>,
    handle_of_level: Vec<u8>,
    /// The host's RUH Updates by time (ns), and the next one to run.
    updates: Vec<(u64, Vec<u32>)>,
    next_update: usize,
    ruh_updates: u64,
    /// Per handle: its GC user write point (persistently isolated handles only).
    gc_point: Vec<Option<u32>>,
    /// Per reclaim group: its planes; per plane: its group; per group: the next plane of a
    /// write whose allocator plane is in another group.
    group_planes: Vec<Vec<u32>>,
    group_of_plane: Vec<u32>,
    cursor: Vec<usize>,
    /// Per block: its owner (handle, `SHARED_GC`, `UNOWNED`), when its first page was
    /// programmed, and pages GC moved out of it since its erase.
    owner: Vec<u8>,
    opened_ns: Vec<u64>,
    moved_out: Vec<u32>,
    /// Device column of write requests submitted and not yet received (by request id),
    /// then per request slot (`pid_from = "device"`).
    pending: BTreeMap<u64, u32>,
    device_of_slot: Vec<u32>,
    /// Per handle, then the shared GC reclaim units, then unowned data.
    stats: Vec<HandleStats>,
    events: Events,
    isolation_fallbacks: u64,
    /// A plane's share of the logical pages (in map units), and writes spilled past a
    /// full reclaim group.
    plane_share: u64,
    group_spills: u64,
    page_bytes: u64,
    limit_ns: u64,
}

impl Fdp {
    fn section(config: &crate::config::Config) -> FdpConfig {
        config.design_section::<FdpConfig>("fdp").unwrap_or_default()
    }

    fn index(&self, owner: u8) -> usize {
        match owner {
            SHARED_GC => self.cfg.handles.len(),
            UNOWNED => self.cfg.handles.len() + 1,
            h => h as usize,
        }
    }

    /// The write stream of `handle`'s host writes in `ftl`'s planes.
    fn stream(&self, ftl: &Ftl, handle: u32) -> Stream {
        match self.slc_level[handle as usize] {
            Some(l) => ftl.slc_stream(l.into()),
            None => Stream::user(handle),
        }
    }

    /// `plane` of `group` for a host write, or if it holds its share of the logical pages
    /// already, the group's plane holding the fewest; if every plane of the group holds
    /// its share, the allocator's `static_plane` in another group (a spill, counted). A
    /// group is only its planes' flash: a host writing more than a group's share of the
    /// logical space through it would fill those planes with valid data until GC could
    /// free nothing (swarm seed 1025299 stalled so). Capping each plane at its share is
    /// the guarantee the conventional drive's placement gives.
    fn plane_with_room(&mut self, ftl: &Ftl, group: u32, plane: u32, static_plane: u32) -> u32 {
        let valid = |p: u32| ftl.plane_valid_units[p as usize];
        if valid(plane) < self.plane_share {
            return plane;
        }
        let emptiest = self.group_planes[group as usize].iter().copied().min_by_key(|&p| (valid(p), p));
        match emptiest {
            Some(p) if valid(p) < self.plane_share => p,
            _ => {
                self.group_spills += 1;
                static_plane
            }
        }
    }

    /// The write mode of `handle`'s host writes.
    fn mode(&self, handle: u32) -> WriteMode {
        match self.slc_level[handle as usize] {
            Some(l) => WriteMode::SlcLevel(l),
            None => WriteMode::UserPoint(handle as u8),
        }
    }

    /// The placement identifier of a write of `lpn` for request `slot`.
    fn pid(&self, sim_flow: u16, slot: u32, lpn: u32) -> Option<u32> {
        match self.cfg.pid_from {
            PidSource::Device => {
                let d = *self.device_of_slot.get(slot as usize)?;
                Some(match self.cfg.device_pids.is_empty() {
                    true => d,
                    false => self.cfg.device_pids.get(d as usize).copied().unwrap_or(self.cfg.default_pid),
                })
            }
            PidSource::Flow => self.cfg.flow_pids.get(sim_flow as usize).copied(),
            PidSource::Lba => {
                let at = lpn as u64 * self.page_bytes;
                self.cfg.lba_pids.iter().find(|r| (r.start_bytes..r.end_bytes).contains(&at)).map(|r| r.pid)
            }
        }
    }

    /// Counts a page programmed into a block of `owner` (`first`: the block's first page).
    fn programmed(&mut self, owner: u8, block: u32, a: Allocated, now: u64, first: bool) {
        self.owner[block as usize] = owner;
        if first {
            self.opened_ns[block as usize] = now;
        }
        let i = self.index(owner);
        let s = &mut self.stats[i];
        s.media_bytes_written += self.page_bytes;
        if a.slc {
            s.slc_pages += 1;
        } else {
            s.page_types[a.page_type as usize] += 1;
        }
    }
}

impl Design for Fdp {
    const NAME: &'static str = "fdp";
    const HOOKS: &'static [Hook] = &[
        Hook::RunStarting,
        Hook::Timer,
        Hook::RequestReceived,
        Hook::WriteRequestType,
        Hook::PlaceWrite,
        Hook::WriteBound,
        Hook::GcPage,
        Hook::BlockErased,
        Hook::Report,
    ];
    const NEEDS: &'static [Need] = &[
        Need::PagesProgrammedWhole,
        Need::WholeMapInDram,
        Need::PlaneHybridLayout,
        Need::PfHybridAllocation,
        Need::NoDataCache,
    ];

    fn run_starting(sim: &mut Simulator<'_>) {
        sim.fdp_schedule_update();
    }

    fn timer(sim: &mut Simulator<'_>, _tag: u8) -> Result<(), SimError> {
        sim.fdp_run_updates();
        Ok(())
    }

    fn write_request_type(sim: &mut Simulator<'_>, _pages: u32, record: &Record) -> u8 {
        let id = sim.next_request_id - 1;
        let f = sim.designs.state_mut::<Fdp>();
        if f.cfg.pid_from == PidSource::Device && record.op == Op::Write {
            f.pending.insert(id, record.device);
        }
        NO_TYPE
    }

    fn request_received(sim: &mut Simulator<'_>, slot: u32) -> Result<bool, SimError> {
        let id = sim.requests[slot as usize].id;
        let f = sim.designs.state_mut::<Fdp>();
        if let Some(device) = f.pending.remove(&id) {
            if f.device_of_slot.len() <= slot as usize {
                f.device_of_slot.resize(slot as usize + 1, 0);
            }
            f.device_of_slot[slot as usize] = device;
        }
        sim.refuse_zone_command(slot)
    }

    fn place_write(sim: &mut Simulator<'_>, static_plane: u32, slot: u32, lpn: u32) -> (u32, WriteMode) {
        let (flow, covered) = if slot == NO_REQUEST {
            (0, 0)
        } else {
            let r = &sim.requests[slot as usize];
            let page = sim.ftl.addr.page_size_bytes as u64;
            let (start, end) = (lpn as u64 * page, (lpn as u64 + 1) * page);
            let covered = (r.offset_bytes + r.size_bytes).min(end).saturating_sub(r.offset_bytes.max(start));
            (r.flow, if covered == 0 { page } else { covered })
        };
        let now = sim.now;
        let f = sim.designs.state_mut::<Fdp>();
        let decoded = f.pid(flow, slot, lpn).and_then(|p| f.cfg.decode(p));
        let (group, handle) = match decoded {
            Some(d) => d,
            None => {
                f.events.invalid_placement_identifier += 1;
                f.cfg.decode(f.cfg.default_pid).expect("validated default_pid")
            }
        };
        f.stats[handle as usize].host_bytes_written += covered;
        let plane = if f.group_of_plane[static_plane as usize] == group {
            static_plane
        } else {
            let planes = &f.group_planes[group as usize];
            let c = &mut f.cursor[group as usize];
            *c = (*c + 1) % planes.len();
            planes[*c]
        };
        let plane =
            if f.cfg.reclaim_groups > 1 { f.plane_with_room(&sim.ftl, group, plane, static_plane) } else { plane };
        let mode = f.mode(handle);
        if f.limit_ns > 0 {
            let block = sim.ftl.planes[plane as usize].active[f.stream(&sim.ftl, handle).index()];
            let f = sim.designs.state::<Fdp>();
            if block != NO_PAGE
                && now.saturating_sub(f.opened_ns[block as usize]) > f.limit_ns
                && sim.switch_reclaim_unit(group, handle)
            {
                let e = &mut sim.designs.state_mut::<Fdp>().events;
                e.ru_time_limit_exceeded += 1;
                e.ru_not_fully_written += 1;
            }
        }
        (plane, mode)
    }

    fn write_bound(sim: &mut Simulator<'_>, txn: u32, _slc: bool) {
        let t = &sim.txns[txn as usize];
        let k = match t.mode {
            WriteMode::UserPoint(k) => k,
            WriteMode::SlcLevel(l) => sim.designs.state::<Fdp>().handle_of_level[l as usize],
            _ => return,
        };
        if t.kind != TxnKind::Write {
            return;
        }
        let a = Allocated { ppn: t.ppn, page_type: t.page_type, slc: t.slc };
        let (block, first) = (sim.ftl.addr.block_of(t.ppn), sim.ftl.addr.page_in_block(t.ppn) == 0);
        let now = sim.now;
        let f = sim.designs.state_mut::<Fdp>();
        f.stats[k as usize].host_pages += 1;
        f.programmed(k, block, a, now, first);
    }

    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        let source = sim.ftl.addr.block_of(from);
        let f = sim.designs.state_mut::<Fdp>();
        let owner = f.owner[source as usize];
        f.moved_out[source as usize] += 1;
        let i = f.index(owner);
        f.stats[i].gc_pages_out += 1;
        let own = f.gc_point.get(owner as usize).copied().flatten();
        let now = sim.now;
        let mut dest = own.and_then(|k| sim.ftl.allocate_user_point_for_gc(plane, k, now)).map(|a| (a, owner));
        if dest.is_none() {
            if own.is_some() {
                sim.designs.state_mut::<Fdp>().isolation_fallbacks += 1;
            }
            dest = sim.ftl.allocate_gc_point(plane, now).map(|a| (a, SHARED_GC));
        }
        let (a, to) = dest?;
        let (block, first) = (sim.ftl.addr.block_of(a.ppn), sim.ftl.addr.page_in_block(a.ppn) == 0);
        let f = sim.designs.state_mut::<Fdp>();
        let i = f.index(to);
        f.stats[i].gc_pages_in += 1;
        f.programmed(to, block, a, now, first);
        Some(a)
    }

    fn block_erased(sim: &mut Simulator<'_>, _plane: u32, block: u32, _slc: bool) {
        let bytes = sim.ftl.pages_in_block(block) as u64 * sim.ftl.addr.page_size_bytes as u64;
        let f = sim.designs.state_mut::<Fdp>();
        let i = f.index(f.owner[block as usize]);
        f.stats[i].blocks_erased += 1;
        f.stats[i].media_bytes_erased += bytes;
        if f.moved_out[block as usize] > 0 {
            f.events.media_reallocated += 1;
        }
        f.owner[block as usize] = UNOWNED;
        f.moved_out[block as usize] = 0;
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        let f = sim.designs.state::<Fdp>();
        let mut handles = f.stats.clone();
        for h in &mut handles {
            h.waf =
                if h.host_bytes_written > 0 { h.media_bytes_written as f64 / h.host_bytes_written as f64 } else { 0.0 };
        }
        let sum = |g: fn(&HandleStats) -> u64| handles.iter().map(g).sum::<u64>();
        let (hbmw, mbmw) = (sum(|h| h.host_bytes_written), sum(|h| h.media_bytes_written));
        let group_planes = f.group_planes.first().map_or(0, Vec::len) as u64;
        let slc_pages = if f.cfg.slc_handles.is_empty() { 0 } else { sim.ftl.slc_layout.pages() as u64 };
        let summary = Summary {
            reclaim_groups: f.cfg.reclaim_groups,
            reclaim_unit_bytes: group_planes * sim.ftl.layout.pages() as u64 * f.page_bytes,
            slc_reclaim_unit_bytes: group_planes * slc_pages * f.page_bytes,
            ruh_updates: f.ruh_updates,
            host_bytes_written: hbmw,
            media_bytes_written: mbmw,
            media_bytes_erased: sum(|h| h.media_bytes_erased),
            waf: if hbmw > 0 { mbmw as f64 / hbmw as f64 } else { 0.0 },
            events: &f.events,
            isolation_fallbacks: f.isolation_fallbacks,
            reclaim_group_spills: f.group_spills,
            handles,
        };
        report.set_section(Self::NAME, &summary);
    }
}

impl Simulator<'_> {
    /// Moves `handle` of `group` to a new reclaim unit: its open blocks in the group's
    /// planes are closed where they are (their unwritten pages given up until the erase),
    /// so its next writes open new ones. True if it had written part of one (the caller
    /// logs Reclaim Unit Not Fully Written).
    fn switch_reclaim_unit(&mut self, group: u32, handle: u32) -> bool {
        let stream = self.designs.state::<Fdp>().stream(&self.ftl, handle).index();
        let planes = self.designs.state::<Fdp>().group_planes[group as usize].clone();
        let mut closed = false;
        for plane in planes {
            let block = self.ftl.planes[plane as usize].active[stream];
            if block != NO_PAGE && self.ftl.blocks[block as usize].write_ptr > 0 {
                self.ftl.close_early(block);
                closed = true;
            }
        }
        closed
    }
}

/// Whether `config` selects FDP (a `[designs.fdp]` that does not parse counts, so that
/// validation reports it).
pub(crate) fn selected(config: &crate::config::Config) -> bool {
    config.designs.contains_key("fdp") && config.design_section::<FdpConfig>("fdp").map_or(true, |f| f.enabled)
}

impl BuiltIn for Fdp {
    fn selected(config: &crate::config::Config) -> bool {
        selected(config)
    }

    fn validate(config: &crate::config::Config) -> Vec<crate::config::ConfigError> {
        FdpConfig::validate(config)
    }

    /// The handles' write points open as their first writes come (above the GC threshold);
    /// after a power loss each partly written block goes back to its handle's stream. SLC
    /// handles' reclaim units are cleaned once a plane is down to its last free SLC block,
    /// ahead of the normal pool's background GC, whatever their valid data (it leaves SLC
    /// mode): an SLC handle never waits on blocks full of valid data.
    fn prepare_ftl(config: &crate::config::Config, ftl: &mut Ftl) {
        ftl.fill_reserves_write_points = true;
        ftl.recover_own_streams = true;
        if !Fdp::section(config).slc_handles.is_empty() {
            ftl.slc_gc_auto = true;
            ftl.slc_gc_urgent = true;
        }
    }

    fn build(config: &crate::config::Config, ftl: &Ftl) -> Self {
        let cfg = Fdp::section(config);
        let handles = cfg.handles.len();
        let mut next = handles as u32;
        let gc_point = cfg
            .handles
            .iter()
            .map(|t| {
                (*t == HandleType::Persistently).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        let a = &ftl.addr;
        let groups = cfg.reclaim_groups.max(1);
        let group_of_plane: Vec<u32> = (0..a.planes()).map(|p| a.die_of_plane(p) % groups).collect();
        let group_planes =
            (0..groups).map(|g| (0..a.planes()).filter(|&p| group_of_plane[p as usize] == g).collect()).collect();
        let bits = config.bits_per_cell().max(1);
        let named = |name: String, kind: &str, mode: &str| HandleStats {
            name,
            kind: kind.to_string(),
            mode: mode.to_string(),
            page_types: vec![0; bits],
            ..HandleStats::default()
        };
        let slc_level: Vec<Option<u8>> = (0..handles as u32).map(|k| cfg.slc_level(k)).collect();
        let mut stats: Vec<HandleStats> = cfg
            .handles
            .iter()
            .enumerate()
            .map(|(k, t)| {
                named(
                    format!("handle-{k}"),
                    match t {
                        HandleType::Persistently => "persistently",
                        HandleType::Initially => "initially",
                    },
                    if slc_level[k].is_some() { "slc" } else { "normal" },
                )
            })
            .collect();
        stats.push(named("shared-gc".into(), "", ""));
        stats.push(named("unowned".into(), "", ""));
        let mut updates: Vec<(u64, Vec<u32>)> =
            cfg.ruh_updates.iter().map(|u| ((u.at_ms * 1e6) as u64, u.pids.clone())).collect();
        // (Stable: updates at one time run in the order given.)
        updates.sort_by_key(|u| u.0);
        let blocks = a.blocks() as usize;
        Fdp {
            handle_of_level: cfg.slc_handles.iter().map(|&h| h as u8).collect(),
            slc_level,
            updates,
            next_update: 0,
            ruh_updates: 0,
            gc_point,
            cursor: vec![0; groups as usize],
            group_planes,
            group_of_plane,
            owner: vec![UNOWNED; blocks],
            opened_ns: vec![0; blocks],
            moved_out: vec![0; blocks],
            pending: BTreeMap::new(),
            device_of_slot: Vec::new(),
            stats,
            events: Events::default(),
            isolation_fallbacks: 0,
            plane_share: ftl.logical_pages as u64 * ftl.units_per_page() as u64 / a.planes() as u64,
            group_spills: 0,
            page_bytes: a.page_size_bytes as u64,
            limit_ns: (cfg.ru_time_limit_ms * 1e6) as u64,
            cfg,
        }
    }

    fn swarm_draw(seed: u64, config: &mut crate::config::Config, records: &mut Vec<Record>) {
        swarm::draw(seed, config, records);
    }
}

mod swarm;
