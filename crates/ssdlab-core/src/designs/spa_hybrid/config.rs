//! The SLC/TLC hybrid drive's config section `[hybrid]` (layout, allocation,
//! migration) and its validation.

use crate::config::{err, Config, ConfigError, MAX_POWER_OFF_NS};
use serde::{Deserialize, Serialize};

/// Where the SLC-mode flash of an SLC/TLC hybrid drive sits (SPA Fig. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlcLayout {
    /// `ftl.slc_blocks_per_plane` SLC blocks in each of `hybrid.slc_planes` planes.
    Plane,
    /// Whole planes in SLC mode: `hybrid.slc_share` of the planes of every die.
    Die,
    /// Whole dies in SLC mode: `hybrid.slc_share` of the dies of every chip.
    Chip,
    /// Whole chips in SLC mode: `hybrid.slc_share` of the chips on every channel.
    Channel,
}

/// How a user write of a hybrid drive picks its plane and its mode (SPA §II-B2, §IV-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HybridAllocation {
    /// Parallelism first (PF-PA): the plane from `ftl.plane_allocation`, SLC while that
    /// plane has any.
    Pf,
    /// TurboWrite (TW-PA): SLC whenever some plane has SLC pages, only those planes
    /// (the one with the fewest outstanding writes); else as PF-PA.
    Tw,
    /// Hot/cold (HC-PA): requests of at most `hybrid.hot_request_max_bytes` are hot and
    /// go as TW-PA; cold ones go to TLC pages of the PF-PA plane.
    Hc,
    /// Type-parallelism joint (TPJ-PA, SPA Algorithm 1).
    Tpj,
}

/// When SLC data is migrated to TLC blocks (SPA §II-B3, §IV-B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlcMigration {
    /// As garbage collection: a plane whose SLC pool is exhausted cleans its SLC blocks
    /// as background GC (when its die is idle).
    Gc,
    /// BG-DM: only while the whole device is idle (no request outstanding for
    /// `hybrid.idle_ns`).
    Bg,
    /// QPC-DM: at most max(p − l/3 − σ, 0) planes migrate at once (l = outstanding write
    /// transactions, σ = `hybrid.qpc_sigma`).
    Qpc,
}

/// SLC/TLC hybrid flash (SPA-SSD, seed 001): layout, allocation and migration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Hybrid {
    pub layout: SlcLayout,
    /// Plane layout: how many planes hold `ftl.slc_blocks_per_plane` SLC blocks, spread
    /// evenly over the plane numbers (0 = every plane).
    pub slc_planes: u32,
    /// Die, chip and channel layouts: the share of the planes of a die, dies of a chip or
    /// chips of a channel that run in SLC mode (rounded, at least one, never all).
    pub slc_share: f64,
    pub allocation: HybridAllocation,
    /// HC-PA: a write request of at most this many bytes is hot (HybridSim marks a
    /// request hot when it is a single page).
    pub hot_request_max_bytes: u64,
    pub migration: SlcMigration,
    /// BG-DM (and QPC-DM on an idle device): how long no request may have arrived
    /// (HybridSim's `dm_interval`, 2 s).
    pub idle_ns: u64,
    /// Idle migration works on planes whose free SLC blocks are below this share of
    /// their SLC blocks (HybridSim: 0.8).
    pub idle_free_target: f64,
    /// QPC-DM under load: a plane starts migrating when it has no free SLC block left and
    /// continues while its free SLC blocks are below this share (HybridSim: 0.3).
    pub busy_free_target: f64,
    /// QPC-DM: planes kept for write bursts (σ; HybridSim: 5).
    pub qpc_sigma: u32,
    /// QPC-DM: a plane stops migrating after reclaiming this many SLC blocks in one go
    /// (HybridSim: 10).
    pub qpc_reclaim_limit: u32,
}

impl Default for Hybrid {
    fn default() -> Self {
        Hybrid {
            layout: SlcLayout::Plane,
            slc_planes: 0,
            slc_share: 0.25,
            allocation: HybridAllocation::Pf,
            hot_request_max_bytes: 8192,
            migration: SlcMigration::Gc,
            idle_ns: 2_000_000_000,
            idle_free_target: 0.8,
            busy_free_target: 0.3,
            qpc_sigma: 5,
            qpc_reclaim_limit: 10,
        }
    }
}

impl Config {
    pub(crate) fn validate_hybrid(&self) -> Vec<ConfigError> {
        let (g, h) = (&self.geometry, &self.hybrid);
        let mut errors = Vec::new();
        let (units, key, what) = match h.layout {
            SlcLayout::Plane => (2, "", ""),
            SlcLayout::Die => (g.planes_per_die, "geometry.planes_per_die", "SLC planes on every die"),
            SlcLayout::Chip => (g.dies_per_chip, "geometry.dies_per_chip", "SLC dies on every chip"),
            SlcLayout::Channel => (g.chips_per_channel, "geometry.chips_per_channel", "SLC chips on every channel"),
        };
        if units < 2 {
            errors.push(err(
                "hybrid.layout",
                format!("the {:?} layout puts {what}, so {key} must be at least 2", h.layout).to_lowercase(),
            ));
        }
        if h.layout != SlcLayout::Plane && !(h.slc_share > 0.0 && h.slc_share < 1.0) {
            errors.push(err("hybrid.slc_share", "must be between 0 and 1 (exclusive)"));
        }
        if !self.uses_slc() && h.migration != SlcMigration::Gc {
            errors.push(err(
                "hybrid.migration",
                "migration policies need SLC-mode flash: set ftl.slc_blocks_per_plane or a hybrid.layout other \
                 than \"plane\"",
            ));
        }
        if h.layout != SlcLayout::Plane && !self.power.loss_at_ns.is_empty() {
            errors.push(err(
                "power.loss_at_ns",
                "power losses are not modelled with a die-, chip- or channel-level hybrid layout (pages migrating \
                 between planes)",
            ));
        }
        if h.migration == SlcMigration::Bg && h.idle_ns == 0 {
            errors.push(err("hybrid.idle_ns", "BG-DM needs a positive idle threshold"));
        }
        if h.idle_ns > MAX_POWER_OFF_NS {
            errors.push(err("hybrid.idle_ns", format!("at most {MAX_POWER_OFF_NS} ns (one hour)")));
        }
        for (key, v) in
            [("hybrid.idle_free_target", h.idle_free_target), ("hybrid.busy_free_target", h.busy_free_target)]
        {
            if !(0.0..=1.0).contains(&v) {
                errors.push(err(key, "must be between 0 and 1"));
            }
        }
        if h.migration == SlcMigration::Qpc && h.qpc_reclaim_limit == 0 {
            errors.push(err("hybrid.qpc_reclaim_limit", "must be at least 1"));
        }
        errors
    }
}
