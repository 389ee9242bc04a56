//! SLC/TLC hybrid drives in the engine (SPA-SSD, seed 001): per-plane write accounting
//! for the allocation policies (PF-PA, TW-PA, HC-PA, TPJ-PA), the migration policies
//! (BG-DM, QPC-DM) that decide which planes move SLC data to TLC blocks and when, and
//! the report's `hybrid` object. The moves themselves are GC steps (`start_gc_step`);
//! a plane wholly in SLC mode moves its pages to another plane over the channels.

pub mod config;
pub mod policy;

use super::{BuiltIn, Design, Hook, MoveTarget};
use crate::config::{Config, HybridAllocation, SlcMigration};
use crate::engine::{SimError, Simulator, NO_REQUEST};
use crate::ftl::{Ftl, GcNeed, WriteMode};
use crate::stats::{HybridSummary, Report};
use policy::{least_loaded_tlc, qpc_migration_planes, tpj_choose, tw_choose, PlaneView, TpjParams};

impl Design for SpaHybrid {
    const NAME: &'static str = "spa-hybrid";
    const HOOKS: &'static [Hook] = &[
        Hook::RequestArrived,
        Hook::PlaceWrite,
        Hook::WriteQueued,
        Hook::WriteMoved,
        Hook::PairsUserWrites,
        Hook::WriteBound,
        Hook::WriteProgrammed,
        Hook::GcMoveTarget,
        Hook::GcMoved,
        Hook::BlockErased,
        Hook::DieWork,
        Hook::DeviceIdle,
        Hook::Timer,
        Hook::PowerLost,
        Hook::Report,
    ];

    fn request_arrived(sim: &mut Simulator<'_>) -> Result<(), SimError> {
        sim.spa_request_arrived()
    }

    fn place_write(sim: &mut Simulator<'_>, static_plane: u32, request: u32, _lpn: u32) -> (u32, WriteMode) {
        if sim.spa_places_writes() {
            sim.spa_place_write(static_plane, request)
        } else {
            (static_plane, WriteMode::Auto)
        }
    }

    fn write_queued(sim: &mut Simulator<'_>, txn: u32) {
        sim.spa_write_queued(txn);
    }

    fn write_moved(sim: &mut Simulator<'_>, txn: u32, from: u32) {
        sim.spa_write_moved(txn, from);
    }

    /// Writes placed by a hybrid policy carry a mode of their own.
    fn pairs_user_writes(sim: &Simulator<'_>) -> bool {
        !sim.spa_places_writes()
    }

    fn write_bound(sim: &mut Simulator<'_>, txn: u32, slc: bool) {
        sim.spa_write_bound(txn, slc);
    }

    fn write_programmed(sim: &mut Simulator<'_>, plane: u32) -> Result<(), SimError> {
        sim.spa_write_programmed(plane)
    }

    fn gc_move_target(sim: &Simulator<'_>, plane: u32) -> MoveTarget {
        sim.spa_gc_move_target(plane)
    }

    fn gc_moved(sim: &mut Simulator<'_>, pages: u64, out_of_slc: bool, cross_plane: bool) {
        sim.designs.state_mut::<SpaHybrid>().gc_moved(pages, out_of_slc, cross_plane);
    }

    fn block_erased(sim: &mut Simulator<'_>, plane: u32, _block: u32, slc: bool) {
        if slc {
            sim.spa_slc_reclaimed(plane);
        }
    }

    fn die_work(sim: &mut Simulator<'_>, die: u32) -> Result<bool, SimError> {
        sim.spa_die_work(die)
    }

    fn device_idle(sim: &mut Simulator<'_>) -> Result<(), SimError> {
        sim.spa_device_idle();
        Ok(())
    }

    fn timer(sim: &mut Simulator<'_>, tag: u8) -> Result<(), SimError> {
        sim.spa_timer(tag)
    }

    fn power_lost(sim: &mut Simulator<'_>) {
        sim.designs.state_mut::<SpaHybrid>().reset_volatile();
        sim.ftl.slc_migrating.fill(false);
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.hybrid = sim.spa_summary();
    }
}

impl BuiltIn for SpaHybrid {
    const SECTION: &'static str = "hybrid";
    const KEY: &'static str = "hybrid.allocation";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::Hybrid>()
    }

    /// A hybrid allocation policy other than PF-PA asks for the design (TPJ-PA etc. also
    /// run on a drive without SLC: TPJ-PA then fills page sets first).
    fn selected(config: &Config) -> bool {
        config.hybrid.allocation != HybridAllocation::Pf
    }

    /// The drive's SLC cache is run by PF-PA when no other design runs it.
    fn runs_by_default(_config: &Config, ftl: &Ftl) -> bool {
        ftl.has_slc
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        SpaHybrid::new(config, ftl.addr.planes())
    }
}

/// The only timer this design schedules (`Event::Design`): the device may have been idle
/// long enough to migrate SLC data.
const MIGRATION_CHECK: u8 = 0;

/// Volatile per-plane state the hybrid policies decide on, and the hybrid counters.
pub(crate) struct SpaHybrid {
    allocation: HybridAllocation,
    migration: SlcMigration,
    params: TpjParams,
    /// User writes allocated to each plane and not yet programmed.
    outstanding: Vec<u32>,
    /// Queued (not started) user writes meant for SLC / TLC pages, per plane.
    pending_slc: Vec<u32>,
    pending_tlc: Vec<u32>,
    /// SLC blocks reclaimed by each plane in its current migration episode.
    reclaimed: Vec<u32>,
    migrating_count: u32,
    total_outstanding: u64,
    cursor: usize,
    /// Scratch for the allocation decision (reused, no allocation per write).
    views: Vec<PlaneView>,
    /// The device has been idle since this time (no request outstanding).
    idle_since_ns: Option<u64>,
    idle_check_pending: bool,
    migrated_pages: u64,
    migrated_across_planes: u64,
    migration_episodes: u64,
    max_migrating: u32,
    slc_user_pages: u64,
    tlc_user_pages: u64,
}

impl SpaHybrid {
    pub(crate) fn new(config: &crate::config::Config, planes: u32) -> Self {
        let f = &config.flash;
        let one_shot = f.program_scheme == crate::config::ProgramScheme::OneShot;
        let tlc_program_ns = if one_shot {
            f.one_shot_program_latency_ns
        } else {
            f.program_latency_ns.iter().copied().max().unwrap_or(0)
        };
        let n = planes as usize;
        SpaHybrid {
            allocation: config.hybrid.allocation,
            migration: config.hybrid.migration,
            params: TpjParams {
                slc_program_ns: f.slc_program_latency_ns,
                tlc_program_ns,
                page_set: config.bits_per_cell() as u32,
                one_shot,
            },
            outstanding: vec![0; n],
            pending_slc: vec![0; n],
            pending_tlc: vec![0; n],
            reclaimed: vec![0; n],
            migrating_count: 0,
            total_outstanding: 0,
            cursor: 0,
            views: vec![PlaneView::default(); n],
            idle_since_ns: Some(0),
            idle_check_pending: false,
            migrated_pages: 0,
            migrated_across_planes: 0,
            migration_episodes: 0,
            max_migrating: 0,
            slc_user_pages: 0,
            tlc_user_pages: 0,
        }
    }

    /// A power loss drops every queued write and stops every migration.
    pub(crate) fn reset_volatile(&mut self) {
        self.outstanding.fill(0);
        self.pending_slc.fill(0);
        self.pending_tlc.fill(0);
        self.reclaimed.fill(0);
        self.migrating_count = 0;
        self.total_outstanding = 0;
        self.idle_since_ns = None;
    }

    /// A GC command moved `pages` pages: SLC data migrated (within the plane or to
    /// another one).
    pub(crate) fn gc_moved(&mut self, pages: u64, from_slc: bool, cross_plane: bool) {
        if from_slc || cross_plane {
            self.migrated_pages += pages;
        }
        if cross_plane {
            self.migrated_across_planes += pages;
        }
    }
}

impl Simulator<'_> {
    /// Whether the hybrid policies place this drive's writes: any policy but PF-PA, or a
    /// layout with planes wholly in SLC mode (PF-PA on the plane layout is the SLC-first
    /// write of a static SLC cache, decided when the write is programmed).
    pub(crate) fn spa_places_writes(&self) -> bool {
        self.config.hybrid.allocation != HybridAllocation::Pf
            || self.config.hybrid.layout != crate::config::SlcLayout::Plane
    }

    fn fill_views(&mut self) {
        let h = self.designs.state_mut::<SpaHybrid>();
        let set = h.params.page_set;
        for (p, v) in h.views.iter_mut().enumerate() {
            let plane = p as u32;
            let slc_room = self.ftl.slc_room(plane);
            *v = PlaneView {
                outstanding_writes: h.outstanding[p],
                slc_available: slc_room > h.pending_slc[p] as u64,
                tlc_available: self.ftl.has_normal(plane)
                    && self.ftl.can_allocate_normal(plane)
                    && self.ftl.gc_need(plane) != GcNeed::Emergency,
                incomplete_set: !h.pending_tlc[p].is_multiple_of(set),
                migrating: self.ftl.slc_migrating[p],
            };
        }
    }

    /// Plane and mode of a user page write of a request of `request_bytes`;
    /// `static_plane` is the plane `ftl.plane_allocation` chose (PF-PA's choice).
    pub(crate) fn spa_place_write(&mut self, static_plane: u32, request: u32) -> (u32, WriteMode) {
        // A flush out of the DRAM cache on no request's behalf: one page.
        let request_bytes = match self.requests.get(request as usize) {
            Some(r) if request != NO_REQUEST => r.size_bytes,
            _ => self.timing.page_size_bytes,
        };
        self.fill_views();
        let h = self.designs.state_mut::<SpaHybrid>();
        let start = h.cursor;
        h.cursor = (h.cursor + 1) % h.views.len();
        let views = &h.views;
        let pf = |views: &[PlaneView]| -> (u32, WriteMode) {
            let v = &views[static_plane as usize];
            if v.slc_available {
                (static_plane, WriteMode::Slc)
            } else if v.tlc_available || !v.migrating && least_loaded_tlc(views, start).is_none() {
                (static_plane, WriteMode::Tlc)
            } else {
                // A plane wholly in SLC mode with its SLC full: the least loaded TLC plane.
                least_loaded_tlc(views, start).map_or((static_plane, WriteMode::Tlc), |p| (p, WriteMode::Tlc))
            }
        };
        let tw = |views: &[PlaneView]| tw_choose(views, start).map_or_else(|| pf(views), |p| (p, WriteMode::Slc));
        let (plane, mode) = match h.allocation {
            HybridAllocation::Pf => pf(views),
            HybridAllocation::Tw => tw(views),
            HybridAllocation::Hc if request_bytes <= self.config.hybrid.hot_request_max_bytes => tw(views),
            HybridAllocation::Hc => {
                let (p, _) = pf(views);
                if views[p as usize].tlc_available {
                    (p, WriteMode::Tlc)
                } else {
                    least_loaded_tlc(views, start).map_or((p, WriteMode::Auto), |q| (q, WriteMode::Tlc))
                }
            }
            HybridAllocation::Tpj => tpj_choose(views, start, &h.params).unwrap_or_else(|| pf(views)),
        };
        (plane, mode)
    }

    /// A user write was queued for `plane`.
    pub(crate) fn spa_write_queued(&mut self, txn: u32) {
        let (plane, mode) = (self.txns[txn as usize].plane, self.txns[txn as usize].mode);
        let h = self.designs.state_mut::<SpaHybrid>();
        let p = plane as usize;
        h.outstanding[p] += 1;
        h.total_outstanding += 1;
        match mode {
            WriteMode::Slc => h.pending_slc[p] += 1,
            WriteMode::Tlc => h.pending_tlc[p] += 1,
            WriteMode::Auto
            | WriteMode::Mapping
            | WriteMode::UserPoint(_)
            | WriteMode::SlcLevel(_)
            | WriteMode::Zone => {}
        }
        if h.migration == SlcMigration::Qpc {
            self.qpc_enforce();
        }
    }

    /// QPC-DM: more outstanding writes need more planes; the planes migrating beyond
    /// max(p − l/3 − σ, 0) stop at once (highest plane numbers first; a step under way
    /// finishes). Stricter than waiting for their next SLC block to be reclaimed (SPA
    /// §IV-B.2), so the bound holds at every moment.
    fn qpc_enforce(&mut self) {
        let allowed = self.qpc_allowed();
        let mut excess = self.designs.state::<SpaHybrid>().migrating_count.saturating_sub(allowed);
        let mut plane = self.ftl.addr.planes();
        while excess > 0 && plane > 0 {
            plane -= 1;
            if self.ftl.slc_migrating[plane as usize] {
                self.stop_migrating(plane);
                excess -= 1;
            }
        }
    }

    /// A queued user write moved to another plane (rerouted off a full plane).
    pub(crate) fn spa_write_moved(&mut self, txn: u32, from: u32) {
        let mode = self.txns[txn as usize].mode;
        let to = self.txns[txn as usize].plane;
        {
            let h = self.designs.state_mut::<SpaHybrid>();
            let (f, t) = (from as usize, to as usize);
            h.outstanding[f] = h.outstanding[f].saturating_sub(1);
            h.outstanding[t] += 1;
            if mode == WriteMode::Slc {
                h.pending_slc[f] = h.pending_slc[f].saturating_sub(1);
                h.pending_slc[t] += 1;
            } else if mode == WriteMode::Tlc {
                h.pending_tlc[f] = h.pending_tlc[f].saturating_sub(1);
                h.pending_tlc[t] += 1;
            }
        }
    }

    /// A user write starts programming into an SLC-mode page or not.
    pub(crate) fn spa_write_bound(&mut self, txn: u32, slc: bool) {
        let (mode, plane) = (self.txns[txn as usize].mode, self.txns[txn as usize].plane as usize);
        let h = self.designs.state_mut::<SpaHybrid>();
        match mode {
            WriteMode::Slc => h.pending_slc[plane] = h.pending_slc[plane].saturating_sub(1),
            WriteMode::Tlc => h.pending_tlc[plane] = h.pending_tlc[plane].saturating_sub(1),
            WriteMode::Auto
            | WriteMode::Mapping
            | WriteMode::UserPoint(_)
            | WriteMode::SlcLevel(_)
            | WriteMode::Zone => {}
        }
        if slc {
            h.slc_user_pages += 1;
        } else {
            h.tlc_user_pages += 1;
        }
    }

    /// A user write of `plane` is programmed.
    pub(crate) fn spa_write_programmed(&mut self, plane: u32) -> Result<(), SimError> {
        let h = self.designs.state_mut::<SpaHybrid>();
        h.outstanding[plane as usize] = h.outstanding[plane as usize].saturating_sub(1);
        h.total_outstanding = h.total_outstanding.saturating_sub(1);
        if h.migration == SlcMigration::Qpc {
            self.qpc_start_planes()?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ migration

    fn slc_free_share(&self, plane: u32) -> f64 {
        let total = self.ftl.slc_blocks[plane as usize];
        if total == 0 {
            return 1.0;
        }
        self.ftl.planes[plane as usize].free_slc.len() as f64 / total as f64
    }

    fn idle_long_enough(&self) -> bool {
        let h = self.designs.state::<SpaHybrid>();
        self.outstanding == 0
            && h.idle_since_ns.is_some_and(|t| self.now >= t + self.config.hybrid.idle_ns)
            // (With host flows the single host has no record: their arrivals are events.)
            && (self.pending_record.is_none() || self.pending_arrival_ns() >= self.now)
    }

    /// A request arrived: BG-DM stops; QPC-DM's idle episodes stop too (its busy ones are
    /// bounded by the queue length from now on).
    pub(crate) fn spa_request_arrived(&mut self) -> Result<(), SimError> {
        let h = self.designs.state_mut::<SpaHybrid>();
        h.idle_since_ns = None;
        if h.migration == SlcMigration::Bg {
            for p in 0..self.ftl.addr.planes() {
                if self.ftl.slc_migrating[p as usize] {
                    self.stop_migrating(p);
                }
            }
        }
        Ok(())
    }

    /// The last outstanding request completed: the device is idle from now.
    pub(crate) fn spa_device_idle(&mut self) {
        let now = self.now;
        let idle_ns = self.config.hybrid.idle_ns;
        let h = self.designs.state_mut::<SpaHybrid>();
        if h.migration == SlcMigration::Gc {
            return;
        }
        h.idle_since_ns = Some(now);
        if !h.idle_check_pending {
            h.idle_check_pending = true;
            self.schedule_design_timer::<SpaHybrid>(now + idle_ns, MIGRATION_CHECK);
        }
    }

    /// `MIGRATION_CHECK`: the device may have been idle for `hybrid.idle_ns`.
    pub(crate) fn spa_timer(&mut self, tag: u8) -> Result<(), SimError> {
        debug_assert_eq!(tag, MIGRATION_CHECK);
        let idle_ns = self.config.hybrid.idle_ns;
        let h = self.designs.state_mut::<SpaHybrid>();
        h.idle_check_pending = false;
        let Some(since) = h.idle_since_ns else { return Ok(()) };
        if self.outstanding > 0 {
            return Ok(());
        }
        if self.now < since + idle_ns {
            let h = self.designs.state_mut::<SpaHybrid>();
            h.idle_check_pending = true;
            self.schedule_design_timer::<SpaHybrid>(since + idle_ns, MIGRATION_CHECK);
            return Ok(());
        }
        let target = self.config.hybrid.idle_free_target;
        let qpc = self.config.hybrid.migration == SlcMigration::Qpc;
        for plane in 0..self.ftl.addr.planes() {
            if qpc && self.designs.state::<SpaHybrid>().migrating_count >= self.qpc_allowed() {
                break;
            }
            if !self.ftl.slc_migrating[plane as usize]
                && self.ftl.slc_blocks[plane as usize] > 0
                && self.slc_free_share(plane) < target
                && self.ftl.has_closed_slc(plane)
            {
                self.start_migrating(plane)?;
            }
        }
        Ok(())
    }

    /// QPC-DM under load: planes whose SLC pool is exhausted start migrating while fewer
    /// than max(p − l/3 − σ, 0) planes migrate.
    fn qpc_start_planes(&mut self) -> Result<(), SimError> {
        let allowed = self.qpc_allowed();
        let h = self.designs.state::<SpaHybrid>();
        if h.migrating_count >= allowed {
            return Ok(());
        }
        let planes = self.ftl.addr.planes();
        let start = h.cursor as u32;
        let mut room = allowed - h.migrating_count;
        for k in 0..planes {
            if room == 0 {
                break;
            }
            let plane = (start + k) % planes;
            let p = &self.ftl.planes[plane as usize];
            // A plane with user writes queued serves them first (SPA §IV-B: migrating
            // planes are kept apart from those serving user writes).
            if !self.ftl.slc_migrating[plane as usize]
                && self.ftl.slc_blocks[plane as usize] > 0
                && p.free_slc.is_empty()
                && self.designs.state::<SpaHybrid>().outstanding[plane as usize] == 0
                && self.ftl.has_closed_slc(plane)
            {
                self.start_migrating(plane)?;
                room -= 1;
            }
        }
        Ok(())
    }

    fn qpc_allowed(&self) -> u32 {
        let h = self.designs.state::<SpaHybrid>();
        qpc_migration_planes(
            self.ftl.addr.planes(),
            h.total_outstanding,
            h.params.page_set,
            self.config.hybrid.qpc_sigma,
        )
    }

    fn start_migrating(&mut self, plane: u32) -> Result<(), SimError> {
        self.ftl.slc_migrating[plane as usize] = true;
        let h = self.designs.state_mut::<SpaHybrid>();
        h.reclaimed[plane as usize] = 0;
        h.migrating_count += 1;
        h.migration_episodes += 1;
        h.max_migrating = h.max_migrating.max(h.migrating_count);
        let die = self.ftl.addr.die_of_plane(plane);
        self.kick(die)
    }

    fn stop_migrating(&mut self, plane: u32) {
        self.ftl.slc_migrating[plane as usize] = false;
        let h = self.designs.state_mut::<SpaHybrid>();
        h.migrating_count = h.migrating_count.saturating_sub(1);
    }

    /// An SLC-mode block of `plane` was erased: QPC-DM's termination rules (SPA §IV-B.2),
    /// and the idle episodes' target.
    pub(crate) fn spa_slc_reclaimed(&mut self, plane: u32) {
        if !self.ftl.slc_migrating[plane as usize] {
            return;
        }
        let idle = self.idle_long_enough();
        let h = self.designs.state_mut::<SpaHybrid>();
        h.reclaimed[plane as usize] += 1;
        let reclaimed = h.reclaimed[plane as usize];
        let migration = h.migration;
        let share = self.slc_free_share(plane);
        let hy = &self.config.hybrid;
        let stop = if idle || migration == SlcMigration::Bg {
            share >= hy.idle_free_target
        } else {
            // Stop if the preserved planes no longer suffice for the queue, or the plane
            // reclaimed its share of blocks, or its pool is back above the target.
            let allowed = self.qpc_allowed();
            let h = self.designs.state::<SpaHybrid>();
            h.migrating_count > allowed || reclaimed >= hy.qpc_reclaim_limit || share >= hy.busy_free_target
        };
        if stop || !self.ftl.has_closed_slc(plane) {
            self.stop_migrating(plane);
        }
    }

    /// Whether `plane` should run a migration step before its die's user work.
    pub(crate) fn migration_due(&self, plane: u32) -> bool {
        if !self.ftl.slc_migrating[plane as usize] {
            return false;
        }
        let h = self.designs.state::<SpaHybrid>();
        match h.migration {
            // BG-DM never moves data while a request is outstanding.
            SlcMigration::Bg => self.outstanding == 0,
            // User writes allocated to the plane before it started migrating (or by a
            // policy that does not avoid migrating planes) go first.
            _ => h.outstanding[plane as usize] == 0,
        }
    }

    /// The plane a wholly-SLC plane migrates to: a plane with normal blocks on the same
    /// channel (else anywhere) with room for GC to spare and the fewest outstanding writes.
    fn migration_target(&self, from: u32) -> Option<u32> {
        let h = self.designs.state::<SpaHybrid>();
        let addr = &self.ftl.addr;
        let channel = addr.channel_of_die(addr.die_of_plane(from));
        let ok = |p: u32| {
            self.ftl.has_normal(p)
                && self.ftl.free_blocks(p) > self.ftl.emergency_free_blocks + 1
                && self.ftl.gc_need(p) != GcNeed::Emergency
        };
        let best = |same_channel: bool| {
            (0..addr.planes())
                .filter(|&p| !same_channel || addr.channel_of_die(addr.die_of_plane(p)) == channel)
                .filter(|&p| ok(p))
                .min_by_key(|&p| (h.outstanding[p as usize], p))
        };
        best(true).or_else(|| best(false))
    }

    /// Where a GC step's pages go: a plane wholly in SLC mode moves them out to another
    /// plane; the others clean within the plane.
    pub(crate) fn spa_gc_move_target(&self, plane: u32) -> MoveTarget {
        if self.ftl.has_normal(plane) {
            MoveTarget::SamePlane
        } else {
            self.migration_target(plane).map_or(MoveTarget::Nowhere, MoveTarget::Plane)
        }
    }

    pub(crate) fn spa_summary(&self) -> Option<HybridSummary> {
        let h = self.designs.state::<SpaHybrid>();
        let slc_planes = self.ftl.slc_blocks.iter().filter(|&&n| n > 0).count() as u32;
        let slc_only = (0..self.ftl.addr.planes()).filter(|&p| !self.ftl.has_normal(p)).count() as u32;
        let total = h.slc_user_pages + h.tlc_user_pages;
        Some(HybridSummary {
            layout: crate::engine::kebab(&self.config.hybrid.layout),
            allocation: crate::engine::kebab(&self.config.hybrid.allocation),
            migration: crate::engine::kebab(&self.config.hybrid.migration),
            slc_planes,
            slc_only_planes: slc_only,
            slc_user_pages: h.slc_user_pages,
            tlc_user_pages: h.tlc_user_pages,
            slc_hit_ratio: if total == 0 { 0.0 } else { h.slc_user_pages as f64 / total as f64 },
            migrated_pages: h.migrated_pages,
            migrated_across_planes: h.migrated_across_planes,
            slc_blocks_reclaimed: self.ftl.counters.slc_erases,
            migration_episodes: h.migration_episodes,
            max_migrating_planes: h.max_migrating,
            partial_page_sets: self.flash_counters.partial_page_sets,
            wasted_pages: self.ftl.counters.wasted_pages,
        })
    }

    /// A migration step of one of the die's migrating planes, before its user work.
    pub(crate) fn spa_die_work(&mut self, die: u32) -> Result<bool, SimError> {
        // Reads queued at the die (user reads, reads before partial-page writes) go first:
        // a migration episode lasts seconds.
        if !self.dies[die as usize].reads.is_empty() {
            return Ok(false);
        }
        for plane in self.die_planes(die) {
            if self.migration_due(plane) {
                if self.check {
                    self.check_migration_bounds()?;
                }
                if self.start_gc_step(die, plane, false)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// With checking on, before every migration step: BG-DM migrates only on an idle
    /// device, QPC-DM on at most max(p − l/3 − σ, 0) planes, and the count of migrating
    /// planes is right.
    fn check_migration_bounds(&self) -> Result<(), SimError> {
        let h = self.designs.state::<SpaHybrid>();
        let fail = |message: String| Err(SimError::Invariant { time_ns: self.now, message });
        let flagged = self.migrating_planes();
        if flagged != h.migrating_count {
            return fail(format!("{flagged} planes flagged as migrating but {} counted", h.migrating_count));
        }
        match h.migration {
            SlcMigration::Bg if self.outstanding > 0 => {
                fail(format!("BG-DM migrates with {} requests outstanding", self.outstanding))
            }
            SlcMigration::Qpc if flagged > self.qpc_allowed() => fail(format!(
                "QPC-DM: {flagged} planes migrate but max(p - l/3 - sigma, 0) = {} (l = {})",
                self.qpc_allowed(),
                h.total_outstanding
            )),
            _ => Ok(()),
        }
    }

    /// Planes migrating right now (for the invariant checks of tests).
    pub fn migrating_planes(&self) -> u32 {
        self.ftl.slc_migrating.iter().filter(|&&m| m).count() as u32
    }
}
