//! A zoned namespace (NVMe Zoned Namespace Command Set, docs/zns-fdp.md): the logical
//! space is cut into zones, each mapped 1:1 onto fixed erase blocks (one in every plane of
//! the dies it spans, `config::Layout`); writes must land at a zone's write pointer, Zone
//! Append lets the device pick the address, and Open / Close / Finish / Reset Zone move
//! zones through the state machine of `zone.rs`. A command that breaks the protocol
//! completes at once with the NVMe status a real drive returns (counted per status in the
//! report section `zns`), never reaching flash.
//!
//! Data never moves: the zone's pages are its blocks' pages in program order, GC never
//! runs on them (the FTL's thresholds are zero and every plane keeps two free blocks of
//! its own; with a conventional area at the LBA start, `conventional_bytes`, GC runs on
//! the area's blocks only),
//! and a reset trims the zone's pages and erases its blocks, timed as one erase command per
//! die it spans (multi-plane where the drive allows). A reset waits for the zone's writes
//! still being programmed, and commands to a zone whose reset has not completed wait for
//! it, in arrival order.

pub mod config;
pub mod host_layer;
mod swarm;
pub mod zone;

use super::{BuiltIn, Design, Hook, Need};
use crate::engine::{SimError, Simulator, TxnKind, NO_REQUEST};
use crate::ftl::{Allocated, Ftl, WriteMode};
use crate::stats::Report;
use config::{Layout, ZnsConfig};
use host_layer::{HostLayerStats, LogLayer, LogSource};
use serde::Serialize;
use ssdlab_trace::{Op, ZoneAction};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use zone::{Status, ZoneState, Zones};

/// Timer tags: apply resets whose zone's writes are programmed; resume parked commands.
const APPLY_RESETS: u8 = 0;
const RESUME_PARKED: u8 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reset {
    None,
    /// A Reset Zone waiting for the zone's writes in flight (request slot).
    Waiting(u32),
    /// Erasing the zone's blocks: the request and the erases left.
    Erasing {
        slot: u32,
        left: u32,
    },
}

/// The zoned namespace's state (`sim.design::<Zns>()`).
pub struct Zns {
    layout: Layout,
    zones: Zones,
    /// Pages accepted into each zone and not yet programmed.
    in_flight: Vec<u32>,
    reset: Vec<Reset>,
    /// Per zone: commands that arrived while its reset was under way, in arrival order.
    parked: BTreeMap<u32, VecDeque<u32>>,
    /// Per die: the zone blocks waiting for their erase (one entry per reset).
    erases: Vec<VecDeque<Vec<u32>>>,
    to_apply: Vec<u32>,
    to_resume: Vec<u32>,
    /// A parked command being split after its check passed (the hook lets it through).
    resuming: Option<u32>,
    statuses: BTreeMap<Status, u64>,
    counts: Counts,
    /// Pages programmed into normal-mode [0] and SLC-mode [1] zones, by page type.
    class_pages: [[u64; 4]; 2],
    /// Zones whose Finish Zone completed (they stay full through a power loss).
    finished: Vec<bool>,
    /// Pages accepted into each zone and not yet programmed at the last power loss.
    power: PowerCounts,
    /// The host-side log-structured layer, shared with the workload's sources.
    host: Option<Arc<Mutex<LogLayer>>>,
    /// Host writes and user page programs of the conventional area.
    conventional: AreaCounts,
}

/// One area's writes (`designs.zns.areas`): what the host asked and what flash took.
#[derive(Clone, Debug, Default)]
struct AreaCounts {
    writes: u64,
    host_bytes: u64,
    user_programs: u64,
}

/// One area of a drive with a conventional area (`designs.zns.areas`).
#[derive(Serialize)]
struct AreaSummary {
    zones: u32,
    /// Accepted writes (and appends) and their bytes.
    writes: u64,
    host_bytes: u64,
    /// Pages programmed for the area: the host's data and GC's copies.
    flash_programs: u64,
    gc_copies: u64,
    /// Bytes programmed / bytes the host wrote.
    device_waf: f64,
}

#[derive(Serialize)]
struct Areas {
    conventional: AreaSummary,
    zoned: AreaSummary,
    /// Blocks of every plane kept out of the zones for the conventional area.
    conventional_blocks_per_plane: u32,
}

#[derive(Clone, Debug, Default, Serialize)]
struct Counts {
    writes: u64,
    appends: u64,
    pages_written: u64,
    opens: u64,
    closes: u64,
    finishes: u64,
    resets: u64,
    reset_erases: u64,
    reset_latency_sum_ns: u64,
    parked: u64,
    /// Bytes of the accepted writes and appends.
    host_bytes: u64,
}

/// What power losses did to the zones (`designs.zns.power_loss`).
#[derive(Clone, Debug, Default, Serialize)]
struct PowerCounts {
    losses: u64,
    /// Zones whose write pointer moved back to the end of their surviving data.
    write_pointers_moved_back: u64,
    /// Accepted pages past the new write pointers (lost, never acknowledged).
    pages_lost: u64,
    /// Open zones closed by the loss (ZSIO / ZSEO → ZSC, or ZSE when nothing survived).
    zones_closed: u64,
    /// Zones the device finished (ZSF, "Zone Finished by Controller") because a torn
    /// program past the surviving data left too few pages in a block for the rest.
    zones_finished_by_controller: u64,
    /// Blocks of zones whose reset was under way, erased during recovery.
    reset_erases_completed: u64,
}

/// One zone class (`designs.zns.classes`): normal or SLC mode.
#[derive(Serialize)]
struct ClassSummary {
    mode: &'static str,
    zones: u32,
    zone_size_bytes: u64,
    zone_capacity_bytes: u64,
    /// Pages programmed into the class's zones, by page type (LSB first; an SLC-mode
    /// page is type 0, counted in `slc_pages` instead).
    page_types: Vec<u64>,
    slc_pages: u64,
}

/// The report's `zns` section (docs/json-schema.md).
#[derive(Serialize)]
struct ZnsSummary {
    zones: u32,
    /// Conventional zones (zone type 1h) before the sequential ones, with
    /// `conventional_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    conventional_zones: Option<u32>,
    zone_size_bytes: u64,
    zone_capacity_bytes: u64,
    zone_dies: u32,
    max_open_zones: u32,
    max_active_zones: u32,
    /// Zones in each state at the end.
    zones_by_state: BTreeMap<String, u64>,
    /// Successful commands: writes, appends, pages they wrote, zone actions.
    writes: u64,
    appends: u64,
    pages_written: u64,
    opens: u64,
    closes: u64,
    finishes: u64,
    resets: u64,
    /// Blocks erased by resets, and a reset's mean time from arrival to its last erase.
    reset_erases: u64,
    reset_latency_mean_ns: f64,
    /// Zones the device closed to open another (open limit).
    implicit_closes: u64,
    /// Commands that waited for their zone's reset.
    parked: u64,
    /// Commands that failed, by NVMe status.
    rejected: u64,
    statuses: Vec<StatusCount>,
    /// Normal-mode and SLC-mode zones apart (with `slc_zones`).
    #[serde(skip_serializing_if = "Option::is_none")]
    classes: Option<Vec<ClassSummary>>,
    /// What power losses did to the zones (with `power.loss_at_ns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    power_loss: Option<PowerCounts>,
    /// The host-side log-structured layer's counters and WAFs (with `host_layer = "log"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    host_layer: Option<HostLayerSummary>,
    /// The conventional area and the sequential zones apart (with `conventional_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    areas: Option<Areas>,
}

#[derive(Serialize)]
struct HostLayerSummary {
    /// The application's capacity, the spare fraction and GC threshold that gave it.
    capacity_bytes: u64,
    spare_fraction: f64,
    gc_free_zones: u32,
    /// Pages the layer wrote to the drive / pages the application wrote.
    host_waf: f64,
    /// Bytes programmed on flash / bytes the drive was asked to write (the report's `waf`).
    device_waf: f64,
    /// host_waf × device_waf: flash bytes per application byte.
    total_waf: f64,
    #[serde(flatten)]
    stats: HostLayerStats,
}

#[derive(Serialize)]
struct StatusCount {
    /// Status code type and code, e.g. `0x1b9`.
    status: String,
    name: &'static str,
    requests: u64,
}

impl Zns {
    /// Sequential zone `zone`'s state and write pointer (pages written from its start);
    /// `zone` is its number in the LBA space (past the conventional zones).
    pub fn zone(&self, zone: u32) -> zone::Zone {
        self.zones.zones[(zone - self.layout.conventional_zones) as usize]
    }

    /// Zone `zone`'s type as a zone report gives it: 1h conventional (ZBC / Linux's
    /// `BLK_ZONE_TYPE_CONVENTIONAL`), 2h sequential write required.
    pub fn zone_type(&self, zone: u32) -> u8 {
        if zone < self.layout.conventional_zones {
            1
        } else {
            2
        }
    }

    /// The zone layout on this drive.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Commands failed with `status` (e.g. `0x1b9`).
    pub fn rejected(&self, status: u16) -> u64 {
        self.statuses.get(&Status(status)).copied().unwrap_or(0)
    }

    /// The host layer's counters (with `host_layer = "log"`).
    pub fn host_layer_stats(&self) -> Option<HostLayerStats> {
        self.host.as_ref().map(|h| h.lock().unwrap_or_else(|e| e.into_inner()).stats.clone())
    }

    /// The host layer's `(T, U)`: drive pages holding data, valid or not, and the
    /// application pages mapped (`theory`'s spare factor is `(T − U) / T`).
    pub fn host_layer_occupancy(&self) -> Option<(u64, u64)> {
        self.host.as_ref().map(|h| h.lock().unwrap_or_else(|e| e.into_inner()).occupancy())
    }

    /// Checks the host layer's page table (tests).
    pub fn check_host_layer(&self) -> Result<(), String> {
        self.host.as_ref().map_or(Ok(()), |h| h.lock().unwrap_or_else(|e| e.into_inner()).check())
    }

    fn section(config: &crate::config::Config) -> ZnsConfig {
        config.design_section::<ZnsConfig>("zns").unwrap_or_default()
    }
}

impl Design for Zns {
    const NAME: &'static str = "zns";
    const HOOKS: &'static [Hook] = &[
        Hook::RequestReceived,
        Hook::PlaceWrite,
        Hook::UserPage,
        Hook::PairsUserWrites,
        Hook::CommandEnded,
        Hook::EraseDone,
        Hook::DieWork,
        Hook::Timer,
        Hook::PowerRecovered,
        Hook::Report,
    ];
    // A zone's pages are its blocks' pages in their conventional program order: designs
    // that pick, skip or reprogram pages do not run on zones (the swarm found WOM codes
    // filling a zone's block past the zone: seed 911474).
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];
    const NEEDS: &'static [Need] = &[
        Need::PagesProgrammedWhole,
        Need::WholeMapInDram,
        Need::NoSlcBlocks,
        Need::NoDataCache,
        Need::AckOnProgram,
        Need::NoFlows,
    ];

    fn request_received(sim: &mut Simulator<'_>, slot: u32) -> Result<bool, SimError> {
        let z = sim.designs.state_mut::<Zns>();
        if z.resuming == Some(slot) {
            z.resuming = None;
            return Ok(false);
        }
        sim.zns_command(slot)
    }

    fn place_write(sim: &mut Simulator<'_>, static_plane: u32, _request: u32, lpn: u32) -> (u32, WriteMode) {
        let l = &sim.designs.state::<Zns>().layout;
        match l.zone_of(lpn) {
            Some((zone, offset)) => (l.plane_of(zone, offset), WriteMode::Zone),
            None if lpn < l.conventional_pages() => (l.conventional_plane(lpn), WriteMode::Auto),
            None => (static_plane, WriteMode::Auto),
        }
    }

    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        let (lpn, plane) = (sim.txns[txn as usize].lpn, sim.txns[txn as usize].plane);
        let l = &sim.designs.state::<Zns>().layout;
        let Some((zone, _)) = l.zone_of(lpn) else {
            // The conventional area: the FTL's write point (`WriteMode::Auto`).
            sim.designs.state_mut::<Zns>().conventional.user_programs += 1;
            return None;
        };
        let block = sim.ftl.addr.first_block_of_plane(plane) + zone / l.groups;
        let page = sim.ftl.take_zone_page(block, sim.now);
        match page {
            Some(a) => sim.designs.state_mut::<Zns>().class_pages[a.slc as usize][a.page_type as usize] += 1,
            None => sim.fail_design(Self::NAME, format!("zone block {block} is full for logical page {lpn}")),
        }
        page
    }

    fn pairs_user_writes(_sim: &Simulator<'_>) -> bool {
        // Pairing by address asks the FTL's write points, not a zone's blocks.
        false
    }

    fn command_ended(sim: &mut Simulator<'_>, die: u32) {
        let mut ready = false;
        for k in 0..sim.dies[die as usize].command.txns.len() {
            let t = sim.txns[sim.dies[die as usize].command.txns[k] as usize];
            if t.kind != TxnKind::Write || t.request == NO_REQUEST {
                continue;
            }
            let z = sim.designs.state_mut::<Zns>();
            let Some((zone, _)) = z.layout.zone_of(t.lpn) else { continue };
            let n = &mut z.in_flight[zone as usize];
            debug_assert!(*n > 0, "zone {zone}: a write programmed that was never accepted");
            *n = n.saturating_sub(1);
            if *n == 0 && matches!(z.reset[zone as usize], Reset::Waiting(_)) {
                z.to_apply.push(zone);
                ready = true;
            }
        }
        if ready {
            // (Not here: the die's command is still being completed.)
            sim.schedule_timer::<Zns>(sim.now, APPLY_RESETS);
        }
    }

    fn die_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        let z = sim.designs.state::<Zns>();
        let Some(front) = z.erases[die as usize].front() else { return Ok(false) };
        // A read queued before the reset still senses the old data: it goes first.
        if front.iter().any(|&b| sim.stale_reads_of(b)) {
            return Ok(false);
        }
        let mut blocks = sim.designs.state_mut::<Zns>().erases[die as usize].pop_front().expect("checked");
        sim.start_owned_erase(die, &mut blocks, Ftl::erase_zone_block)?;
        if !blocks.is_empty() {
            sim.designs.state_mut::<Zns>().erases[die as usize].push_front(blocks);
        }
        Ok(true)
    }

    fn erase_done(sim: &mut Simulator<'_>, block: u32) -> Result<(), SimError> {
        if !sim.ftl.is_zone_block(block) {
            // GC's erase in the conventional area.
            return Ok(());
        }
        let (plane, index) = (sim.ftl.addr.plane_of_block(block), sim.ftl.addr.block_in_plane(block));
        let die = sim.ftl.addr.die_of_plane(plane);
        let z = sim.designs.state_mut::<Zns>();
        let zone = index * z.layout.groups + die % z.layout.groups;
        let Some(Reset::Erasing { slot, left }) = z.reset.get(zone as usize).copied() else { return Ok(()) };
        z.counts.reset_erases += 1;
        if left > 1 {
            z.reset[zone as usize] = Reset::Erasing { slot, left: left - 1 };
        } else {
            z.reset[zone as usize] = Reset::None;
            z.counts.reset_latency_sum_ns += sim.now - sim.requests[slot as usize].arrival_ns;
            let z = sim.designs.state_mut::<Zns>();
            if z.parked.contains_key(&zone) {
                z.to_resume.push(zone);
                sim.schedule_timer::<Zns>(sim.now, RESUME_PARKED);
            }
        }
        sim.finish_sub_request(slot)
    }

    fn timer(sim: &mut Simulator<'_>, tag: u8) -> Result<(), SimError> {
        if tag == APPLY_RESETS {
            for zone in std::mem::take(&mut sim.designs.state_mut::<Zns>().to_apply) {
                let z = sim.designs.state::<Zns>();
                if let Reset::Waiting(slot) = z.reset[zone as usize] {
                    if z.in_flight[zone as usize] == 0 {
                        sim.zns_apply_reset(zone, slot)?;
                    }
                }
            }
            return Ok(());
        }
        for zone in std::mem::take(&mut sim.designs.state_mut::<Zns>().to_resume) {
            loop {
                let z = sim.designs.state_mut::<Zns>();
                if z.reset[zone as usize] != Reset::None {
                    break;
                }
                let Some(queue) = z.parked.get_mut(&zone) else { break };
                let slot = queue.pop_front().expect("no empty queue is kept");
                if queue.is_empty() {
                    z.parked.remove(&zone);
                }
                if !sim.zns_command(slot)? {
                    sim.designs.state_mut::<Zns>().resuming = Some(slot);
                    sim.split_request(slot)?;
                }
            }
        }
        Ok(())
    }

    fn power_recovered(sim: &mut Simulator<'_>) {
        sim.zns_power_recovered();
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        let z = sim.designs.state::<Zns>();
        let c = Zns::section(sim.config());
        let l = &z.layout;
        let states = z.zones.state_counts();
        let name = |s: ZoneState| serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_string));
        let zones_by_state = ZoneState::ALL.iter().zip(states).filter_map(|(&s, n)| name(s).map(|k| (k, n))).collect();
        let statuses: Vec<StatusCount> = z
            .statuses
            .iter()
            .map(|(s, &n)| StatusCount { status: format!("{:#05x}", s.0), name: s.name(), requests: n })
            .collect();
        let c2 = &z.counts;
        let areas = (l.conventional_zones > 0).then(|| {
            let page = l.page_bytes;
            let gc = sim.ftl.counters.gc_moved_pages;
            let conv = &z.conventional;
            let zoned_programs: u64 = z.class_pages.iter().flatten().sum();
            let waf = |programs: u64, bytes: u64| ratio(programs * page, bytes);
            Areas {
                conventional: AreaSummary {
                    zones: l.conventional_zones,
                    writes: conv.writes,
                    host_bytes: conv.host_bytes,
                    flash_programs: conv.user_programs + gc,
                    gc_copies: gc,
                    device_waf: waf(conv.user_programs + gc, conv.host_bytes),
                },
                zoned: AreaSummary {
                    zones: l.zones,
                    writes: c2.writes + c2.appends,
                    host_bytes: c2.host_bytes,
                    flash_programs: zoned_programs,
                    gc_copies: 0,
                    device_waf: waf(zoned_programs, c2.host_bytes),
                },
                conventional_blocks_per_plane: l.conventional_blocks,
            }
        });
        let summary = ZnsSummary {
            zones: l.zones,
            conventional_zones: (l.conventional_zones > 0).then_some(l.conventional_zones),
            areas,
            zone_size_bytes: l.zone_pages as u64 * l.page_bytes,
            zone_capacity_bytes: l.capacity_pages as u64 * l.page_bytes,
            zone_dies: l.zone_dies,
            max_open_zones: c.max_open_zones,
            max_active_zones: c.max_active_zones,
            zones_by_state,
            writes: c2.writes,
            appends: c2.appends,
            pages_written: c2.pages_written,
            opens: c2.opens,
            closes: c2.closes,
            finishes: c2.finishes,
            resets: c2.resets,
            reset_erases: c2.reset_erases,
            reset_latency_mean_ns: if c2.resets == 0 { 0.0 } else { c2.reset_latency_sum_ns as f64 / c2.resets as f64 },
            implicit_closes: z.zones.implicit_closes,
            parked: c2.parked,
            rejected: z.statuses.values().sum(),
            statuses,
            classes: (l.slc_zones > 0).then(|| {
                let bits = sim.ftl.bits_per_cell;
                [false, true]
                    .into_iter()
                    .map(|slc| {
                        let zones = if slc { l.slc_zones } else { l.normal_zones() };
                        let capacity = if slc { l.slc_capacity_pages } else { l.capacity_pages };
                        let counts = &z.class_pages[slc as usize];
                        ClassSummary {
                            mode: if slc { "slc" } else { "normal" },
                            zones,
                            zone_size_bytes: l.zone_pages as u64 * l.page_bytes,
                            zone_capacity_bytes: capacity as u64 * l.page_bytes,
                            page_types: if slc { vec![0; bits] } else { counts[..bits].to_vec() },
                            slc_pages: if slc { counts[0] } else { 0 },
                        }
                    })
                    .collect()
            }),
            power_loss: (!sim.config().power.loss_at_ns.is_empty()).then(|| z.power.clone()),
            host_layer: z.host.as_ref().map(|h| {
                let h = h.lock().unwrap_or_else(|e| e.into_inner());
                let host_waf = ratio(h.stats.drive_pages_written, h.stats.app_pages_written);
                HostLayerSummary {
                    capacity_bytes: h.capacity_bytes(),
                    spare_fraction: c.host_spare_fraction,
                    gc_free_zones: c.host_gc_free_zones,
                    host_waf,
                    device_waf: report.waf,
                    total_waf: host_waf * report.waf,
                    stats: h.stats.clone(),
                }
            }),
        };
        report.set_section(Self::NAME, &summary);
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// With the host layer on, each run's workload source wrapped in it (`Simulator::new`:
/// after the pre-pass, which must see the application's own records).
pub(crate) fn through_host_layer<'a>(
    designs: &super::Designs,
    mut factory: crate::engine::SourceFactory<'a>,
) -> crate::engine::SourceFactory<'a> {
    let Some(layer) = designs.try_state::<Zns>().and_then(|z| z.host.clone()) else { return factory };
    Box::new(move || {
        let inner = factory()?;
        Ok(Box::new(LogSource::new(inner, layer.clone())) as Box<dyn ssdlab_trace::RecordSource>)
    })
}

/// Whether `config` has a zoned namespace (a `[designs.zns]` that does not parse counts,
/// so that validation reports it).
pub(crate) fn selected(config: &crate::config::Config) -> bool {
    config.designs.contains_key("zns") && config.design_section::<ZnsConfig>("zns").map_or(true, |z| z.enabled)
}

impl BuiltIn for Zns {
    fn selected(config: &crate::config::Config) -> bool {
        selected(config)
    }

    fn swarm_draw(seed: u64, config: &mut crate::config::Config, records: &mut Vec<ssdlab_trace::Record>) {
        swarm::draw(seed, config, records);
    }

    fn validate(config: &crate::config::Config) -> Vec<crate::config::ConfigError> {
        ZnsConfig::validate(config)
    }

    fn prepare_ftl(config: &crate::config::Config, ftl: &mut Ftl) {
        let Ok(l) = Layout::new(config, &Zns::section(config)) else { return };
        if l.slc_zones > 0 {
            // (No block-level SLC cache runs beside zones: this layout is the zones'.)
            ftl.slc_layout = crate::flash::PageLayout::slc(l.slc_block_pages);
        }
        for zone in 0..l.zones {
            for m in 0..l.members() {
                let plane = l.member_plane(zone, m);
                let block = ftl.addr.first_block_of_plane(plane) + zone / l.groups;
                if l.is_slc(zone) {
                    ftl.set_zone_block_slc(block);
                }
                ftl.reserve_zone_block(block);
            }
        }
        if l.conventional_zones == 0 {
            // No GC: every plane keeps two free blocks that no zone takes.
            ftl.background_free_blocks = 0;
            ftl.emergency_free_blocks = 0;
        }
        // (With a conventional area GC keeps its thresholds: it runs on the area's blocks,
        // the only ones in the free pools, and never picks a zone's, `Ftl::pick_victim_from`.)
    }

    fn build(config: &crate::config::Config, ftl: &Ftl) -> Self {
        let c = Zns::section(config);
        let layout = Layout::new(config, &c).expect("a validated config");
        let mut zones = Zones::new(layout.zones, layout.capacity_pages, c.max_open_zones, c.max_active_zones);
        zones.set_slc(layout.normal_zones(), layout.slc_capacity_pages);
        // (Configured by LBA zone number; validation keeps them past the conventional ones.)
        for &zone in &c.read_only_zones {
            zones.set_device_state(zone - layout.conventional_zones, ZoneState::ReadOnly);
        }
        for &zone in &c.offline_zones {
            zones.set_device_state(zone - layout.conventional_zones, ZoneState::Offline);
        }
        let n = layout.zones as usize;
        Zns {
            zones,
            in_flight: vec![0; n],
            reset: vec![Reset::None; n],
            parked: BTreeMap::new(),
            erases: vec![VecDeque::new(); ftl.addr.dies() as usize],
            to_apply: Vec::new(),
            to_resume: Vec::new(),
            resuming: None,
            statuses: BTreeMap::new(),
            counts: Counts::default(),
            class_pages: [[0; 4]; 2],
            finished: vec![false; n],
            power: PowerCounts::default(),
            host: LogLayer::new(config, &c, &layout).map(|l| Arc::new(Mutex::new(l))),
            conventional: AreaCounts::default(),
            layout,
        }
    }
}

impl Simulator<'_> {
    /// After a power loss and the FTL's recovery: commands waiting in the design are gone
    /// with their requests; each zone that had accepted pages not yet programmed gets its
    /// write pointer back at the end of its data that survived (ZSE when none did), and
    /// every open zone is closed, as QEMU's controller does on a restart
    /// (`nvme_zoned_ns_shutdown`, `nvme_clear_zone`: open and closed zones holding data
    /// become ZSC, those without become ZSE). A zone whose blocks lost pages to programs
    /// torn past that end has too few pages left for the rest of its capacity: the device
    /// finishes it (ZSF, Zone Finished by Controller). A reset under way completes: its
    /// blocks still written are erased during recovery.
    fn zns_power_recovered(&mut self) {
        let z = self.designs.state_mut::<Zns>();
        z.parked.clear();
        z.erases.iter_mut().for_each(VecDeque::clear);
        (z.to_apply, z.to_resume, z.resuming) = (Vec::new(), Vec::new(), None);
        z.reset.fill(Reset::None);
        let in_flight = std::mem::replace(&mut z.in_flight, vec![0; z.layout.zones as usize]);
        z.power.losses += 1;
        let l = z.layout.clone();
        for zone in 0..l.zones {
            let z = self.designs.state::<Zns>();
            let before = z.zones.zones[zone as usize];
            let blocks: Vec<u32> = (0..l.members())
                .map(|m| self.ftl.addr.first_block_of_plane(l.member_plane(zone, m)) + zone / l.groups)
                .collect();
            let (mut wp, mut state) = (before.write_pointer, before.state);
            match state {
                ZoneState::ReadOnly | ZoneState::Offline => continue,
                ZoneState::Empty => {
                    for &b in &blocks {
                        if self.ftl.blocks[b as usize].write_ptr == 0 {
                            continue;
                        }
                        self.ftl.erase_zone_block(b);
                        self.designs.state_mut::<Zns>().power.reset_erases_completed += 1;
                    }
                    continue;
                }
                _ => {}
            }
            let mut short = false;
            if in_flight[zone as usize] > 0 && !(state == ZoneState::Full && z.finished[zone as usize]) {
                let start = l.zone_start(zone);
                let end = (0..wp).rev().find(|&o| self.ftl.lookup(start + o).is_some()).map_or(0, |o| o + 1);
                let p = &mut self.designs.state_mut::<Zns>().power;
                p.pages_lost += (wp - end) as u64;
                p.write_pointers_moved_back += u64::from(end < wp);
                wp = end;
                state = ZoneState::Closed;
                // Pages the rest of the zone needs in each block, against those left.
                let members = l.members();
                let capacity = self.designs.state::<Zns>().zones.capacity_of(zone);
                short = blocks.iter().enumerate().any(|(m, &b)| {
                    let needed = (wp..capacity).filter(|o| o % members == m as u32).count() as u32;
                    self.ftl.pages_in_block(b) - self.ftl.blocks[b as usize].write_ptr < needed
                });
            }
            let p = &mut self.designs.state_mut::<Zns>().power;
            if matches!(before.state, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen) {
                p.zones_closed += 1;
                state = ZoneState::Closed;
            }
            if state == ZoneState::Closed && wp == 0 && !short {
                state = ZoneState::Empty;
            }
            // A full zone that lost its tail would be active again: past the active
            // limit the device finishes it instead.
            let zs = &self.designs.state::<Zns>().zones;
            let limit = zs.max_active > 0 && zs.active_count() >= zs.max_active;
            let reactivated = before.state == ZoneState::Full && state == ZoneState::Closed && limit;
            if short || reactivated {
                self.designs.state_mut::<Zns>().power.zones_finished_by_controller += 1;
                state = ZoneState::Full;
            }
            if (wp, state) != (before.write_pointer, before.state) {
                self.designs.state_mut::<Zns>().zones.recovered(zone, wp, state);
            }
        }
    }

    /// Checks zoned command `slot` against its zone and runs it: true if it completed
    /// here (a failure, a zone action) or waits for its zone's reset; false if it goes on
    /// to flash (a read, an accepted write or append).
    fn zns_command(&mut self, slot: u32) -> Result<bool, SimError> {
        let r = self.requests[slot as usize];
        let z = self.designs.state_mut::<Zns>();
        let l = &z.layout;
        let page = l.page_bytes;
        let lpn = r.offset_bytes / page;
        let end = lpn + r.pages as u64;
        let conventional = l.conventional_pages() as u64;
        if end > conventional + (l.zones * l.zone_pages) as u64 {
            return self.zns_complete(slot, Status::LBA_OUT_OF_RANGE);
        }
        if lpn < conventional {
            let status = match r.op {
                // Reads into the zones past the area: those zones must be readable.
                Op::Read if end > conventional => {
                    let last = ((end - 1 - conventional) / l.zone_pages as u64) as u32;
                    (0..=last).map(|z2| z.zones.read(z2)).find(|&s| s != Status::SUCCESS).unwrap_or(Status::SUCCESS)
                }
                Op::Read | Op::Trim | Op::Sanitize => Status::SUCCESS,
                // ZBC: a write from a conventional zone into a sequential write required
                // one fails (WRITE BOUNDARY VIOLATION): NVMe's Zone Boundary Error.
                Op::Write if end > conventional => Status::ZONE_BOUNDARY_ERROR,
                Op::Write => {
                    z.conventional.writes += 1;
                    z.conventional.host_bytes += r.size_bytes;
                    Status::SUCCESS
                }
                // A conventional zone has no write pointer: zone commands to it fail as
                // ZBC's do (ILLEGAL REQUEST, INVALID FIELD IN CDB): Invalid Field in
                // Command.
                Op::ZoneAppend | Op::ZoneManagement(_) => Status::INVALID_FIELD,
            };
            if status == Status::SUCCESS {
                return Ok(false);
            }
            return self.zns_complete(slot, status);
        }
        let zone = ((lpn - conventional) / l.zone_pages as u64) as u32;
        let at_zone_start =
            r.offset_bytes.is_multiple_of(page) && (lpn - conventional).is_multiple_of(l.zone_pages as u64);
        let offset = ((lpn - conventional) % l.zone_pages as u64) as u32;
        let status = match r.op {
            Op::Read => {
                let last = ((end - 1 - conventional) / l.zone_pages as u64) as u32;
                match (zone..=last).map(|z2| z.zones.read(z2)).find(|&s| s != Status::SUCCESS) {
                    Some(s) => s,
                    None => return Ok(false),
                }
            }
            Op::Trim | Op::Sanitize => return Ok(false),
            _ if z.reset[zone as usize] != Reset::None => {
                z.parked.entry(zone).or_default().push_back(slot);
                z.counts.parked += 1;
                return Ok(true);
            }
            Op::Write | Op::ZoneAppend => {
                let append = r.op == Op::ZoneAppend;
                if append && !at_zone_start {
                    Status::INVALID_FIELD
                } else if !append && !r.offset_bytes.is_multiple_of(page) {
                    Status::ZONE_INVALID_WRITE
                } else {
                    match z.zones.write(zone, (!append).then_some(offset), r.pages) {
                        Err(s) => s,
                        Ok(at) => {
                            z.in_flight[zone as usize] += r.pages;
                            z.counts.pages_written += r.pages as u64;
                            z.counts.host_bytes += r.size_bytes;
                            if append {
                                z.counts.appends += 1;
                                // The device's choice, returned to the host.
                                let lba = z.layout.zone_start(zone) as u64 + at as u64;
                                self.requests[slot as usize].offset_bytes = lba * page;
                            } else {
                                z.counts.writes += 1;
                            }
                            return Ok(false);
                        }
                    }
                }
            }
            Op::ZoneManagement(_) if !at_zone_start => Status::INVALID_FIELD,
            Op::ZoneManagement(action) => match action {
                ZoneAction::Open => Self::zns_counted(z.zones.open_zone(zone), &mut z.counts.opens),
                ZoneAction::Close => Self::zns_counted(z.zones.close_zone(zone), &mut z.counts.closes),
                ZoneAction::Finish => {
                    let s = Self::zns_counted(z.zones.finish_zone(zone), &mut z.counts.finishes);
                    z.finished[zone as usize] |= s == Status::SUCCESS;
                    s
                }
                ZoneAction::Reset => {
                    let s = z.zones.reset_allowed(zone);
                    if s != Status::SUCCESS {
                        s
                    } else if z.in_flight[zone as usize] > 0 {
                        z.reset[zone as usize] = Reset::Waiting(slot);
                        return Ok(true);
                    } else {
                        self.zns_apply_reset(zone, slot)?;
                        return Ok(true);
                    }
                }
            },
        };
        self.zns_complete(slot, status)
    }

    fn zns_counted(status: Status, count: &mut u64) -> Status {
        *count += u64::from(status == Status::SUCCESS);
        status
    }

    /// Completes request `slot` now with `status` (counted unless a success).
    fn zns_complete(&mut self, slot: u32, status: Status) -> Result<bool, SimError> {
        if status != Status::SUCCESS {
            *self.designs.state_mut::<Zns>().statuses.entry(status).or_default() += 1;
        }
        self.requests[slot as usize].status = status.0;
        for _ in 0..self.requests[slot as usize].pending {
            self.finish_sub_request(slot)?;
        }
        Ok(true)
    }

    /// Resets `zone` for request `slot` (its writes all programmed): the zone is empty
    /// again, its pages trimmed, and its written blocks queued for erasing at their dies;
    /// the request completes with the last erase.
    fn zns_apply_reset(&mut self, zone: u32, slot: u32) -> Result<(), SimError> {
        let z = self.designs.state_mut::<Zns>();
        let written = z.zones.reset_zone(zone);
        z.finished[zone as usize] = false;
        z.counts.resets += 1;
        let l = z.layout.clone();
        let start = l.zone_start(zone);
        for lpn in start..start + written {
            if self.bypass.is_some() {
                self.bypass_trimmed(lpn);
            }
            let old = self.ftl.lookup(lpn);
            if old.is_some() {
                self.ftl.trim(lpn);
            }
            self.ftl.acknowledge_trim(lpn);
            if let Some(old) = old {
                self.copy_released(old, NO_REQUEST)?;
            }
        }
        let mut by_die: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for m in 0..l.members() {
            let plane = l.member_plane(zone, m);
            let block = self.ftl.addr.first_block_of_plane(plane) + zone / l.groups;
            if self.ftl.blocks[block as usize].write_ptr > 0 {
                by_die.entry(self.ftl.addr.die_of_plane(plane)).or_default().push(block);
            }
        }
        let blocks: u32 = by_die.values().map(|b| b.len() as u32).sum();
        if blocks == 0 {
            self.zns_complete(slot, Status::SUCCESS)?;
            return Ok(());
        }
        let z = self.designs.state_mut::<Zns>();
        z.reset[zone as usize] = Reset::Erasing { slot, left: blocks };
        for (&die, b) in &by_die {
            z.erases[die as usize].push_back(b.clone());
        }
        for _ in 0..blocks {
            self.hold_request(slot);
        }
        for _ in 0..self.requests[slot as usize].pending - blocks {
            self.finish_sub_request(slot)?;
        }
        for &die in by_die.keys() {
            self.kick(die)?;
        }
        Ok(())
    }
}
