//! The typed run configuration (TOML), its defaults and its validation.
//!
//! Every field carries its unit in its name. `validate()` checks cross-field consistency
//! and returns errors naming the dotted key (`geometry.pages_per_block`) and the problem.
//! Unknown keys are rejected at parse time with a did-you-mean suggestion (see
//! [`parse_config`]).
//!
//! Where things are: `sections.rs` the device, FTL, host, output and power sections;
//! `parse.rs` TOML parsing, `--set` overrides and error positions; each design's section
//! next to its module (`designs/pa_ssd/config.rs`, `designs/spa_hybrid/config.rs`),
//! re-exported here; this file the `Config` itself and its validation.

mod controller;
mod flows;
mod parse;
mod priority;
mod sections;

pub use crate::designs::dir::config::{DirConfig, DirScheme};
pub use crate::designs::gordon::config::GordonConfig;
pub use crate::designs::harey::config::{HareyConfig, PagePreference, Rtf};
pub use crate::designs::ipu::config::{IpuCacheGc, IpuConfig, IpuScheme};
pub use crate::designs::mango::config::{MangoConfig, MangoGc};
pub use crate::designs::pa_ssd::config::{PaConfig, PaScheme};
pub use crate::designs::scrub::config::{ScrubConfig, ScrubMode};
pub use crate::designs::spa_hybrid::config::{Hybrid, HybridAllocation, SlcLayout, SlcMigration};
pub use crate::designs::wom::config::WomConfig;
pub use crate::flash::reliability::{BitErrors, Ecc, EccScheme, Reliability, Uncorrectable};
pub use controller::{Cache, CacheFlush, CacheMode, Cmt, CmtWriteBack, DieScheduling, Link};
pub use flows::{partitioned_sizes, Arbitration, ArbitrationScheme, Flow, FlowPriority};
pub use parse::{apply_overrides, did_you_mean, key_line, parse_config};
pub use priority::{MixConfig, PriorityConfig};
pub use sections::*;

use serde::{Deserialize, Serialize};
use std::fmt;

/// A whole simulation configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub name: String,
    pub description: String,
    /// Source of the numbers (paper, table), shown by `ssdlab presets`.
    pub source: String,
    /// Root seed; every random component derives its own stream from it.
    pub seed: u64,
    pub geometry: Geometry,
    pub flash: Flash,
    pub energy: Energy,
    pub ftl: Ftl,
    pub precondition: Precondition,
    pub host: Host,
    pub output: Output,
    #[serde(skip_serializing_if = "is_default")]
    pub pa: PaConfig,
    pub power: Power,
    #[serde(skip_serializing_if = "is_default")]
    pub hybrid: Hybrid,
    /// The flash error model (RBER by page type, wear, retention, disturb).
    pub reliability: Reliability,
    /// How reads are decoded: fixed time, BCH or LDPC with read retries.
    pub ecc: Ecc,
    /// DIR and its baselines (one switch).
    #[serde(skip_serializing_if = "is_default")]
    pub dir: DirConfig,
    /// IPU and its baselines (one switch).
    #[serde(skip_serializing_if = "is_default")]
    pub ipu: IpuConfig,
    /// Gordon's FTL: write points per channel (thesis §5.1).
    #[serde(skip_serializing_if = "is_default")]
    pub gordon: GordonConfig,
    /// The Harey Tortoise: RTF, page preference, rate matching (thesis §7.3).
    #[serde(skip_serializing_if = "is_default")]
    pub harey: HareyConfig,
    /// Mango: high-priority writes on fast pages (thesis §7.2).
    #[serde(skip_serializing_if = "is_default")]
    pub mango: MangoConfig,
    /// Scrubbing and sanitisation (thesis §6.2).
    #[serde(skip_serializing_if = "is_default")]
    pub scrub: ScrubConfig,
    /// WOM codes on WOM-safe pages (thesis §6.1).
    #[serde(skip_serializing_if = "is_default")]
    pub wom: WomConfig,
    /// The controller's DRAM data cache.
    pub cache: Cache,
    /// The cached mapping table (DFTL / MQSim's CMT).
    pub cmt: Cmt,
    /// The host link (PCIe).
    pub link: Link,
    /// Several host flows instead of one workload (empty: the workload of `host`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<Flow>,
    /// How dies choose among the flows' transactions.
    #[serde(skip_serializing_if = "Arbitration::is_default")]
    pub arbitration: Arbitration,
    /// Which requests are high priority; the Netbook scenario's power modes.
    #[serde(skip_serializing_if = "PriorityConfig::is_default")]
    pub priority: PriorityConfig,
    /// A second trace mixed into the workload (the Swap scenario).
    #[serde(skip_serializing_if = "MixConfig::is_default")]
    pub mix: MixConfig,
    /// A built-in synthetic workload, used when no trace is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<ssdlab_trace::SyntheticSpec>,
    /// The sections of designs built outside this crate, `[designs.NAME]`, each read by
    /// its design (`Config::design_section`), which names its own keys' errors. Empty
    /// (and absent from the TOML) without such designs.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub designs: std::collections::BTreeMap<String, toml::Table>,
}

/// A design's section (and a few rarely used ones) is printed only where it differs from
/// its defaults: one rule for every design, built-in or not (an outside design's
/// `[designs.NAME]` exists only where set). `--set` reaches a section that is not printed
/// (`parse::hidden_section`).
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: "default".to_string(),
            description: String::new(),
            source: String::new(),
            seed: 1,
            geometry: Geometry::default(),
            flash: Flash::default(),
            energy: Energy::default(),
            ftl: Ftl::default(),
            precondition: Precondition::default(),
            host: Host::default(),
            output: Output::default(),
            pa: PaConfig::default(),
            power: Power::default(),
            hybrid: Hybrid::default(),
            reliability: Reliability::default(),
            ecc: Ecc::default(),
            dir: DirConfig::default(),
            ipu: IpuConfig::default(),
            gordon: GordonConfig::default(),
            harey: HareyConfig::default(),
            mango: MangoConfig::default(),
            scrub: ScrubConfig::default(),
            wom: WomConfig::default(),
            cache: Cache::default(),
            cmt: Cmt::default(),
            link: Link::default(),
            flows: Vec::new(),
            arbitration: Arbitration::default(),
            priority: PriorityConfig::default(),
            mix: MixConfig::default(),
            workload: None,
            designs: std::collections::BTreeMap::new(),
        }
    }
}

/// A configuration problem, naming the dotted key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Longest time one flash step, command overhead or host overhead may take: one second.
/// Real NAND needs microseconds to milliseconds; larger values are typos (or units mixed
/// up) and would overflow the simulated clock.
pub const MAX_STEP_NS: u64 = 1_000_000_000;

/// Smallest and largest `geometry.page_size_bytes` accepted (powers of two between).
pub const MIN_PAGE_BYTES: u32 = 512;
pub const MAX_PAGE_BYTES: u32 = 65536;

/// Harey Tortoise's largest configuration (thesis §7.3: 1–32 write points per chip).
const MAX_USER_WRITE_POINTS: u32 = 32;

use crate::flash::reliability::MAX_RETRIES as MAX_READ_RETRIES;

/// Slowest channel accepted: 1000 ns per byte (1 MB/s; ONFI 1.0 is 25 ns per byte).
pub const MAX_TRANSFER_NS_PER_BYTE: f64 = 1000.0;

/// Longest power outage accepted: one hour of simulated time.
pub const MAX_POWER_OFF_NS: u64 = 3_600_000_000_000;

pub(crate) fn err(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError { key: key.to_string(), message: message.into() }
}

impl Config {
    pub fn bits_per_cell(&self) -> usize {
        self.flash.cell.bits_per_cell()
    }

    /// Pages the host can address: normal-mode (non-SLC) pages less over-provisioning.
    pub fn logical_pages(&self) -> u64 {
        let g = &self.geometry;
        let normal_blocks: u64 =
            self.slc_blocks_by_plane().iter().map(|&slc| g.blocks_per_plane.saturating_sub(slc) as u64).sum();
        let pages = normal_blocks * (g.pages_per_block as u64).saturating_sub(self.summary_pages_per_block() as u64);
        ((pages as f64) * (1.0 - self.ftl.over_provisioning)).floor() as u64
    }

    /// Whether the drive has SLC-mode blocks (a static SLC cache or a hybrid layout).
    pub fn uses_slc(&self) -> bool {
        self.ftl.slc_blocks_per_plane > 0 || self.hybrid.layout != SlcLayout::Plane
    }

    /// SLC-mode blocks of every plane, by plane number, as `hybrid.layout` places them:
    /// the first blocks of a plane with some, every block of a plane in SLC mode.
    pub fn slc_blocks_by_plane(&self) -> Vec<u32> {
        let g = &self.geometry;
        let planes = g.planes_saturating().min(1 << 24) as u32;
        let h = &self.hybrid;
        let whole = |units: u32| -> u32 { ((units as f64 * h.slc_share).round() as u32).clamp(1, units.max(2) - 1) };
        (0..planes)
            .map(|p| {
                let die = p / g.planes_per_die.max(1);
                let chip = die / g.dies_per_chip.max(1);
                let slc_whole = match h.layout {
                    SlcLayout::Plane => {
                        let n = if h.slc_planes == 0 { planes } else { h.slc_planes.min(planes) } as u64;
                        let p = p as u64;
                        // Evenly spread from plane 0: every (planes/n)-th plane.
                        let has = (p * n) % (planes as u64) < n;
                        return if has { self.ftl.slc_blocks_per_plane.min(g.blocks_per_plane) } else { 0 };
                    }
                    SlcLayout::Die => p % g.planes_per_die.max(1) < whole(g.planes_per_die),
                    SlcLayout::Chip => die % g.dies_per_chip.max(1) < whole(g.dies_per_chip),
                    SlcLayout::Channel => chip % g.chips_per_channel.max(1) < whole(g.chips_per_channel),
                };
                if slc_whole {
                    g.blocks_per_plane
                } else {
                    0
                }
            })
            .collect()
    }

    /// Pages at the end of every normal-mode block that hold its summary
    /// (`power.block_summary`): one, or a whole wordline under one-shot programming.
    pub fn summary_pages_per_block(&self) -> u32 {
        match (self.power.block_summary, self.flash.program_scheme) {
            (false, _) => 0,
            (true, ProgramScheme::OneShot) => self.bits_per_cell() as u32,
            (true, ProgramScheme::PageByPage) => 1,
        }
    }

    /// Raw capacity: normal blocks at full page count plus SLC-mode blocks at theirs.
    pub fn physical_bytes(&self) -> u64 {
        let g = &self.geometry;
        let pages: u64 = self
            .slc_blocks_by_plane()
            .iter()
            .map(|&slc| {
                (g.blocks_per_plane - slc) as u64 * g.pages_per_block as u64
                    + slc as u64 * self.flash.slc_pages_per_block as u64
            })
            .sum();
        pages * g.page_size_bytes as u64
    }

    /// The host-visible capacity: logical pages × page size of the device the FTL manages
    /// (with super-pages, whole super-pages: `device_view`).
    pub fn logical_bytes(&self) -> u64 {
        if self.super_page_pages() > 1 {
            return self.device_view().0.logical_bytes();
        }
        self.logical_pages() * self.geometry.page_size_bytes as u64
    }

    /// The config as the engine runs it: `dir.scheme` (when not `off`) decides
    /// `flash.multi_plane`, `flash.multi_plane_any_address` and `ftl.mapping`; FDP the
    /// write points its handles take (`FdpConfig::resolve`).
    pub fn resolved(&self) -> Config {
        let mut c = self.clone();
        if self.ipu.enabled() {
            // Every IPU scheme keeps subpage state and a unit map (the Baseline's page map
            // is what it reports, `designs/ipu`); partial programs only in MGA and IPU.
            c.ftl.mapping = Mapping::Subpages;
            c.ftl.partial_program_updates = self.ipu.scheme != IpuScheme::Baseline;
            c.ftl.slc_levels = if self.ipu.scheme == IpuScheme::Ipu { self.ipu.levels } else { 1 };
            c.ftl.slc_gc_destination = SlcGcDestination::OutOfCache;
        }
        crate::designs::fdp::FdpConfig::resolve(&mut c);
        let (multi_plane, any_address, mapping) = match self.dir.scheme {
            DirScheme::Off => return c,
            DirScheme::Noac => (false, false, Mapping::Page),
            DirScheme::Ac => (true, false, Mapping::Page),
            DirScheme::Interleaving => (true, false, Mapping::HalfPages),
            DirScheme::Dir => (true, true, Mapping::HalfPages),
        };
        c.flash.multi_plane = multi_plane;
        c.flash.multi_plane_any_address = any_address;
        c.ftl.mapping = mapping;
        c
    }

    /// Checks every cross-field constraint; returns all problems found, not just the first.
    pub fn validate(&self) -> Result<(), Vec<ConfigError>> {
        let resolved = self.resolved();
        // (Compared by the fields `resolved` sets: a NaN elsewhere makes the configs unequal.)
        let switched = |c: &Config| {
            (
                (c.flash.multi_plane, c.flash.multi_plane_any_address, c.ftl.mapping, c.ftl.user_write_points),
                (c.ftl.partial_program_updates, c.ftl.slc_levels, c.ftl.slc_gc_destination),
            )
        };
        if switched(&resolved) != switched(self) {
            return resolved.validate();
        }
        let mut errors = Vec::new();
        let g = &self.geometry;
        for (key, value) in [
            ("geometry.channels", g.channels),
            ("geometry.chips_per_channel", g.chips_per_channel),
            ("geometry.dies_per_chip", g.dies_per_chip),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.blocks_per_plane", g.blocks_per_plane),
            ("geometry.pages_per_block", g.pages_per_block),
            ("geometry.page_size_bytes", g.page_size_bytes),
            ("geometry.subpages_per_page", g.subpages_per_page),
        ] {
            if value == 0 {
                errors.push(err(key, "must be at least 1"));
            }
        }
        let pages = g.physical_pages();
        if pages >= u32::MAX as u128 {
            errors.push(err("geometry", format!("{pages} physical pages exceed the 2^32-1 addressable by the model")));
        }
        // NAND pages are a power of two of data bytes (the spare area is not modelled): 512 B
        // (early SLC) to 64 KiB; a subpage is at least one 512-B sector.
        let page_ok =
            (MIN_PAGE_BYTES..=MAX_PAGE_BYTES).contains(&g.page_size_bytes) && g.page_size_bytes.is_power_of_two();
        if g.page_size_bytes != 0 && !page_ok {
            errors.push(err(
                "geometry.page_size_bytes",
                format!(
                    "{} is not a flash page size: must be a power of two from {MIN_PAGE_BYTES} to {MAX_PAGE_BYTES} bytes \
                     (e.g. 4096, 8192, 16384)",
                    g.page_size_bytes
                ),
            ));
        }
        if g.subpages_per_page > 1 && !g.page_size_bytes.is_multiple_of(g.subpages_per_page) {
            errors.push(err("geometry.subpages_per_page", "must divide geometry.page_size_bytes"));
        } else if page_ok && g.subpages_per_page > 1 && g.page_size_bytes / g.subpages_per_page < MIN_PAGE_BYTES {
            errors.push(err(
                "geometry.subpages_per_page",
                format!(
                    "{} subpages of a {}-byte page are {} bytes each; a subpage must hold at least one \
                     {MIN_PAGE_BYTES}-byte sector",
                    g.subpages_per_page,
                    g.page_size_bytes,
                    g.page_size_bytes / g.subpages_per_page
                ),
            ));
        }
        let bits = self.bits_per_cell();
        let f = &self.flash;
        if f.read_latency_ns.len() != bits {
            errors.push(err(
                "flash.read_latency_ns",
                format!("needs {bits} entries (one per page type of {:?}), has {}", f.cell, f.read_latency_ns.len()),
            ));
        }
        if f.program_latency_ns.len() != bits {
            errors.push(err(
                "flash.program_latency_ns",
                format!("needs {bits} entries (one per page type of {:?}), has {}", f.cell, f.program_latency_ns.len()),
            ));
        }
        if f.read_latency_ns.contains(&0) {
            errors.push(err("flash.read_latency_ns", "latencies must be positive"));
        }
        if f.program_latency_ns.contains(&0) {
            errors.push(err("flash.program_latency_ns", "latencies must be positive"));
        }
        if f.erase_latency_ns == 0 {
            errors.push(err("flash.erase_latency_ns", "must be positive"));
        }
        if !(f.transfer_ns_per_byte.is_finite() && f.transfer_ns_per_byte >= 0.0) {
            errors.push(err("flash.transfer_ns_per_byte", "must be a finite number >= 0"));
        } else if f.transfer_ns_per_byte > MAX_TRANSFER_NS_PER_BYTE {
            errors.push(err(
                "flash.transfer_ns_per_byte",
                format!(
                    "{} ns per byte is implausible (at most {MAX_TRANSFER_NS_PER_BYTE}, a 1 MB/s channel)",
                    if f.transfer_ns_per_byte < 1e9 {
                        f.transfer_ns_per_byte.to_string()
                    } else {
                        format!("{:e}", f.transfer_ns_per_byte)
                    }
                ),
            ));
        }
        // Absurd times overflow the simulated clock or make a run last forever (one
        // time-series row per simulated second): no single step may take over a second.
        let single = [
            ("flash.erase_latency_ns", f.erase_latency_ns),
            ("flash.slc_read_latency_ns", f.slc_read_latency_ns),
            ("flash.slc_program_latency_ns", f.slc_program_latency_ns),
            ("flash.one_shot_program_latency_ns", f.one_shot_program_latency_ns),
            ("flash.command_overhead_ns", f.command_overhead_ns),
            ("flash.ecc_decode_ns", f.ecc_decode_ns),
            ("flash.retry_sense_latency_ns", f.retry_sense_latency_ns),
            ("host.request_overhead_ns", self.host.request_overhead_ns),
        ];
        if f.multi_plane_any_address && !f.multi_plane {
            errors.push(err("flash.multi_plane_any_address", "needs flash.multi_plane = true"));
        }
        if f.read_retries > MAX_READ_RETRIES {
            errors.push(err(
                "flash.read_retries",
                format!("{} retries per read is implausible (at most {MAX_READ_RETRIES})", f.read_retries),
            ));
        }
        let longest = |v: &[u64]| v.iter().copied().max().unwrap_or(0);
        let lists = [
            ("flash.read_latency_ns", longest(&f.read_latency_ns)),
            ("flash.program_latency_ns", longest(&f.program_latency_ns)),
        ];
        for (key, value) in lists.into_iter().chain(single).filter(|&(_, v)| v > MAX_STEP_NS) {
            errors.push(err(key, format!("{value} ns is implausible (at most {MAX_STEP_NS} ns, one second)")));
        }
        if self.uses_slc() {
            if f.slc_read_latency_ns == 0 {
                errors.push(err("flash.slc_read_latency_ns", "must be positive when SLC-mode blocks are used"));
            }
            if f.slc_program_latency_ns == 0 {
                errors.push(err("flash.slc_program_latency_ns", "must be positive when SLC-mode blocks are used"));
            }
        }
        if !(g.pages_per_block as usize).is_multiple_of(bits) {
            errors.push(err(
                "geometry.pages_per_block",
                format!("must be a multiple of the {bits} bits per cell (whole wordlines)"),
            ));
        }
        if f.layout == LayoutKind::Pairs && !(g.pages_per_block as usize).is_multiple_of(2 * bits) {
            errors
                .push(err("flash.layout", format!("\"pairs\" needs pages_per_block to be a multiple of {}", 2 * bits)));
        }
        if f.layout == LayoutKind::Custom {
            if f.custom_types.len() != g.pages_per_block as usize {
                errors.push(err("flash.custom_types", "needs one entry per page of a block"));
            }
            if f.custom_wordlines.len() != g.pages_per_block as usize {
                errors.push(err("flash.custom_wordlines", "needs one entry per page of a block"));
            }
            if f.custom_types.iter().any(|&t| t as usize >= bits) {
                errors.push(err("flash.custom_types", format!("page types must be below {bits}")));
            }
        }
        if f.program_scheme == ProgramScheme::OneShot {
            if f.layout != LayoutKind::Sequential {
                errors.push(err("flash.layout", "one-shot programming needs layout = \"sequential\""));
            }
            if f.program_delay_ns == 0 {
                errors.push(err("flash.program_delay_ns", "one-shot programming needs a positive program delay"));
            }
        }
        if f.slc_pages_per_block > g.pages_per_block {
            errors.push(err("flash.slc_pages_per_block", "cannot exceed geometry.pages_per_block"));
        }
        if f.partial_programs_max == 0 {
            errors.push(err("flash.partial_programs_max", "must be at least 1"));
        }
        let e = &self.energy;
        if e.read_nj.len() < bits {
            errors.push(err("energy.read_nj", format!("needs at least {bits} entries")));
        }
        if e.program_nj.len() < bits {
            errors.push(err("energy.program_nj", format!("needs at least {bits} entries")));
        }
        let t = &self.ftl;
        if !(0.0..0.95).contains(&t.over_provisioning) {
            errors.push(err("ftl.over_provisioning", "must be in [0, 0.95)"));
        }
        let mut order: Vec<char> = t.allocation_order.chars().collect();
        order.sort_unstable();
        if order != ['c', 'd', 'p', 'w'] {
            errors.push(err(
                "ftl.allocation_order",
                format!("\"{}\" is not a permutation of the letters c, w, d, p", t.allocation_order),
            ));
        }
        if !(0.0..1.0).contains(&t.gc_background_free_fraction) {
            errors.push(err("ftl.gc_background_free_fraction", "must be in [0, 1)"));
        }
        if !(0.0..1.0).contains(&t.gc_emergency_free_fraction) {
            errors.push(err("ftl.gc_emergency_free_fraction", "must be in [0, 1)"));
        }
        if t.gc_emergency_free_fraction > t.gc_background_free_fraction {
            errors.push(err("ftl.gc_emergency_free_fraction", "must not exceed ftl.gc_background_free_fraction"));
        }
        let mut seen = t.queue_priority.clone();
        seen.sort_unstable();
        if seen != [QueueKind::UserRead, QueueKind::UserWrite, QueueKind::Gc] {
            errors.push(err(
                "ftl.queue_priority",
                "must list each of \"user-read\", \"user-write\", \"gc\" exactly once",
            ));
        }
        // GC needs room: the spare blocks hidden by over-provisioning must exceed the free
        // blocks emergency GC keeps, or the drive fills with valid data and deadlocks. A
        // background threshold above the spare space is allowed: background GC then
        // cleans whenever a die is idle (SSDSim-style thresholds, as PA-SSD uses).
        let normal_blocks = g.blocks_per_plane.saturating_sub(t.slc_blocks_per_plane) as f64;
        let spare_blocks = normal_blocks * t.over_provisioning;
        let reserve = (normal_blocks * t.gc_emergency_free_fraction).ceil().max(2.0);
        let table_blocks = self.cmt.spare_blocks_per_plane(self, normal_blocks);
        // (A zoned drive runs no GC: `designs/zns` keeps its own two free blocks per plane.)
        if g.blocks_per_plane > 0 && spare_blocks < reserve + 2.0 + table_blocks && !crate::designs::zns::selected(self)
        {
            let table = if table_blocks > 0.0 {
                format!(
                    " and {table_blocks:.1} for the cached mapping table's translation pages and their write \
                     point (fewer with a larger cmt.entries_per_translation_page)"
                )
            } else {
                String::new()
            };
            errors.push(err(
                "ftl.over_provisioning",
                format!(
                    "{spare_blocks:.1} spare blocks per plane cannot cover the {reserve:.0} free blocks \
                     emergency GC keeps (gc_emergency_free_fraction, at least 2) plus two write points{table}; \
                     raise over_provisioning or blocks_per_plane, or lower the emergency threshold"
                ),
            ));
        }
        if self.uses_slc() && f.slc_pages_per_block == 0 {
            errors.push(err("flash.slc_pages_per_block", "SLC blocks need their page count"));
        }
        if t.slc_blocks_per_plane > 0 && t.slc_blocks_per_plane.saturating_add(2) >= g.blocks_per_plane {
            errors.push(err("ftl.slc_blocks_per_plane", "leaves too few normal blocks per plane"));
        }
        errors.extend(self.validate_hybrid());
        if t.partial_program_updates {
            if g.subpages_per_page < 2 || g.subpages_per_page > 8 {
                errors.push(err("geometry.subpages_per_page", "partial programming needs 2 to 8 subpages per page"));
            }
            if f.partial_programs_max < 2 {
                errors.push(err("flash.partial_programs_max", "partial programming needs NOP of at least 2"));
            }
            if t.slc_blocks_per_plane == 0 {
                errors.push(err("ftl.slc_blocks_per_plane", "partial programming works in SLC-mode blocks: set some"));
            }
            if f.program_scheme == ProgramScheme::OneShot {
                errors.push(err("ftl.partial_program_updates", "is not supported with one-shot programming"));
            }
        }
        errors.extend(self.validate_mapping());
        errors.extend(self.validate_slc_levels());
        errors.extend(self.validate_super_pages());
        errors.extend(GordonConfig::validate(self));
        errors.extend(HareyConfig::validate(self));
        errors.extend(MangoConfig::validate(self));
        errors.extend(sections::validate_bypass(self));
        let mut reliability = Vec::new();
        crate::flash::reliability::validate(&self.reliability, &self.ecc, self.bits_per_cell(), &mut reliability);
        self.dir.validate(self.bits_per_cell(), &mut reliability);
        if self.dir.scheme == DirScheme::Dir {
            if self.geometry.planes_per_die < 2 || !self.geometry.planes_per_die.is_multiple_of(2) {
                reliability.push((
                    "dir.scheme".into(),
                    "DIR pairs pages over two planes of a die: needs an even geometry.planes_per_die".into(),
                ));
            }
            if self.flash.layout != LayoutKind::Staircase || self.bits_per_cell() < 2 {
                reliability.push((
                    "dir.scheme".into(),
                    "DIR chooses page types under relaxed program order: needs MLC/TLC/QLC cells and flash.layout = \"staircase\"".into(),
                ));
            }
        }
        errors.extend(reliability.into_iter().map(|(key, message)| err(&key, message)));
        errors.extend(self.validate_ipu());
        errors.extend(crate::designs::validate(self));
        self.scrub.validate(self, &mut errors);
        self.wom.validate(self, &mut errors);
        // With super-pages the cache's slots and flushes are super-pages.
        let mapped_page = self.geometry.page_size_bytes.saturating_mul(self.super_page_pages().max(1));
        self.cache.validate(mapped_page, &mut errors);
        if !self.flash.multi_plane_same_block && (self.pa.enabled() || self.dir.scheme != DirScheme::Off) {
            errors.push(err(
                "flash.multi_plane_same_block",
                "= false is not modelled with relaxed program order (PA-SSD, DIR): their multi-plane pairs \
                 share a block address",
            ));
        }
        self.link.validate(&mut errors);
        let physical_pages = u64::try_from(self.geometry.physical_pages()).unwrap_or(u64::MAX);
        self.cmt.validate(physical_pages, mapped_page, &mut errors);
        // (The capacity only of a valid device: an invalid geometry may not compute.)
        let logical = (errors.is_empty() && self.flows.iter().any(|f| f.size_bytes > 0)).then(|| self.logical_bytes());
        flows::validate(&self.flows, self, logical, &mut errors);
        let logical = (errors.is_empty() && self.mix.enabled()).then(|| self.logical_bytes());
        errors.extend(self.mix.validate(logical, !self.flows.is_empty()));
        if self.super_page_pages() > 1 {
            if let Some(k) = self.flows.iter().position(|f| f.is_partitioned()) {
                errors.push(err(
                    &format!("flows[{k}].channels"),
                    "flows confined to some channels, chips, dies or planes are not modelled with super-pages \
                     (ftl.super_page_channels / super_page_dies gang them)",
                ));
            }
        }
        if !self.flows.is_empty() {
            let refuse = [
                (self.host.replay == ReplayMode::Burst, "host.replay", "burst replay is for one workload"),
                (self.host.runs > 1, "host.runs", "multi-run replay is for one workload"),
                (!self.power.loss_at_ns.is_empty(), "power.loss_at_ns", "power loss is not modelled with flows"),
            ];
            for (bad, key, why) in refuse {
                if bad {
                    errors.push(err(key, format!("{why}: each flow sets its own replay ([[flows]])")));
                }
            }
        }
        if self.cmt.enabled() {
            // The designs' papers assume an ideal map; translation pages are whole-page
            // logical units on normal blocks, and recovery does not rebuild the table.
            let refuse = [
                // (The designs that assume an ideal map say so in their `NEEDS`.)
                (
                    !matches!(self.dir.scheme, DirScheme::Off | DirScheme::Dir),
                    "DIR's baselines (dir.scheme = \"noac\", \"ac\", \"interleaving\"): their paper assumes an ideal map",
                ),
                (
                    self.uses_slc() || self.hybrid.allocation != HybridAllocation::Pf,
                    "SLC-mode blocks or a hybrid allocation",
                ),
                (self.ftl.mapping != Mapping::Page, "ftl.mapping other than \"page\""),
                (self.flash.program_scheme == ProgramScheme::OneShot, "one-shot programming"),
                (!self.power.loss_at_ns.is_empty(), "power loss (recovery does not rebuild the table)"),
            ];
            for (bad, what) in refuse {
                if bad {
                    errors
                        .push(err("cmt.capacity_bytes", format!("a cached mapping table is not modelled with {what}")));
                }
            }
        }
        if self.cache.enabled() && self.power.write_acknowledge == WriteAcknowledge::Buffer {
            errors.push(err(
                "cache.capacity_bytes",
                "the cache acknowledges writes from DRAM itself; power.write_acknowledge = \"buffer\" is the simple \
                 write buffer without one: use one or the other",
            ));
        }
        if !(0.0..1.0).contains(&self.precondition.pe_spread) {
            errors.push(err(
                "precondition.pe_spread",
                "must be in [0, 1): each block's P/E count is pe_cycles × (1 ± spread)",
            ));
        }
        if !(self.precondition.retention_age_days >= 0.0 && self.precondition.retention_age_days <= 36_500.0) {
            errors.push(err("precondition.retention_age_days", "must be between 0 and 36,500 days (100 years)"));
        }
        if !(0.0..1.0).contains(&self.precondition.aged_invalid_fraction) {
            errors.push(err("precondition.aged_invalid_fraction", "must be in [0, 1)"));
        }
        if !(0.0..=1.0).contains(&self.precondition.used_fraction) {
            errors.push(err("precondition.used_fraction", "must be in [0, 1]"));
        }
        let pc = &self.precondition;
        if !(pc.working_set_fraction > 0.0 && pc.working_set_fraction <= 1.0) {
            errors.push(err("precondition.working_set_fraction", "must be in (0, 1]"));
        }
        if pc.steady_state {
            let window = crate::ftl::precondition::PTS_WINDOW as u32;
            if !(window..=1000).contains(&pc.steady_state_max_rounds) {
                errors.push(err(
                    "precondition.steady_state_max_rounds",
                    format!(
                        "must be in [{window}, 1000] (at least the SNIA PTS measurement window of {window} rounds)"
                    ),
                ));
            }
            if !(pc.steady_state_round_fraction > 0.0 && pc.steady_state_round_fraction <= 10.0) {
                errors.push(err("precondition.steady_state_round_fraction", "must be in (0, 10]"));
            }
            if pc.aged_invalid_fraction > 0.0 {
                errors.push(err(
                    "precondition.steady_state",
                    "cannot be combined with precondition.aged_invalid_fraction (two different models of a used \
                     drive: choose one)",
                ));
            }
        }
        let h = &self.host;
        if h.replay == ReplayMode::ClosedLoop && h.queue_depth == 0 {
            errors.push(err("host.queue_depth", "closed-loop replay needs a queue depth of at least 1"));
        }
        if !h.time_unit.is_empty() && h.time_unit.parse::<ssdlab_trace::TimeUnit>().is_err() {
            errors.push(err("host.time_unit", format!("'{}': expected ps, ns, us, ms or s", h.time_unit)));
        }
        if !(h.speed_factor.is_finite() && h.speed_factor > 0.0) {
            errors.push(err("host.speed_factor", "must be a positive number"));
        }
        if h.replay == ReplayMode::Burst && h.burst_gap_ns == 0 {
            errors.push(err(
                "host.burst_gap_ns",
                "burst replay needs the gap threshold (the CLI sets it to the trace's mean inter-arrival time)",
            ));
        }
        if h.runs == 0 {
            errors.push(err("host.runs", "must be at least 1"));
        }
        if h.address_overflow == AddressOverflow::Scale && h.trace_span_bytes == 0 {
            // The CLI fills this in with a first pass over the trace; a library user must.
            errors.push(err("host.trace_span_bytes", "address_overflow = \"scale\" needs the trace's span"));
        }
        if self.pa.enabled() {
            if let Err(message) = self.pa.parse() {
                errors.push(err("pa.scheme", format!("\"{}\": {message}", self.pa.scheme)));
            }
            if bits < 2 {
                errors.push(err("pa.scheme", "page-type aware allocation needs MLC, TLC or QLC cells"));
            }
            if f.program_scheme == ProgramScheme::OneShot {
                errors.push(err("pa.scheme", "PA-SSD programs page by page; it cannot run with one-shot programming"));
            }
            if !matches!(f.layout, LayoutKind::Staircase | LayoutKind::Pairs) {
                errors.push(err("flash.layout", "PA-SSD's relaxed constraints need a staircase or pairs layout"));
            }
            if self.uses_slc() {
                errors.push(err("pa.scheme", "PA-SSD with SLC-mode blocks is not modelled"));
            }
        }
        let pw = &self.power;
        if pw.write_acknowledge == WriteAcknowledge::Buffer && pw.write_buffer_pages == 0 {
            errors.push(err(
                "power.write_buffer_pages",
                "write_acknowledge = \"buffer\" needs a buffer of at least 1 page",
            ));
        }
        if pw.off_ns > MAX_POWER_OFF_NS {
            errors.push(err("power.off_ns", format!("at most {MAX_POWER_OFF_NS} ns (one hour)")));
        }
        if page_ok && pw.oob_bytes > g.page_size_bytes {
            errors.push(err("power.oob_bytes", "cannot exceed geometry.page_size_bytes"));
        }
        if pw.block_summary {
            if self.pa.enabled() || self.dir.scheme == DirScheme::Dir {
                errors.push(err("power.block_summary", "is not modelled with relaxed program order (PA-SSD, DIR)"));
            }
            if g.pages_per_block <= self.summary_pages_per_block() || (self.uses_slc() && f.slc_pages_per_block < 2) {
                errors.push(err("power.block_summary", "blocks need room for data besides their summary page"));
            }
        }
        let wps = self.ftl.user_write_points;
        if !(1..=MAX_USER_WRITE_POINTS).contains(&wps) {
            errors.push(err("ftl.user_write_points", format!("must be 1 to {MAX_USER_WRITE_POINTS}")));
        } else if wps > 1 {
            if g.blocks_per_plane < 4 * wps + 8 {
                errors.push(err(
                    "ftl.user_write_points",
                    format!(
                        "{wps} open user blocks per plane leave GC too few closed blocks: geometry.blocks_per_plane \
                         must be at least {}",
                        4 * wps + 8
                    ),
                ));
            }
            if self.pa.enabled() || self.dir.scheme == DirScheme::Dir {
                errors.push(err("ftl.user_write_points", "PA-SSD and DIR keep their own open blocks: use 1"));
            }
            if f.program_scheme == ProgramScheme::OneShot {
                errors.push(err(
                    "ftl.user_write_points",
                    "one-shot page sets are not modelled over several write points: use 1",
                ));
            }
        }
        if self.ftl.gc_through_user_write_points && (self.pa.enabled() || self.dir.scheme == DirScheme::Dir) {
            errors.push(err("ftl.gc_through_user_write_points", "PA-SSD and DIR place GC writes in their open blocks"));
        }
        if self.ftl.gc_destination != GcDestination::SamePlane {
            if !pw.loss_at_ns.is_empty() {
                errors.push(err(
                    "ftl.gc_destination",
                    "power losses are not modelled with GC moves to other planes (pages in flight between dies)",
                ));
            }
            if pw.block_summary {
                errors
                    .push(err("ftl.gc_destination", "block summaries are not modelled with GC moves to other planes"));
            }
            if self.pa.enabled() || self.uses_slc() || self.hybrid.allocation != HybridAllocation::Pf {
                errors.push(err(
                    "ftl.gc_destination",
                    "applies to the conventional FTL; the configured design places GC data itself",
                ));
            }
        }
        if pw.loss_at_ns.windows(2).any(|w| w[0] >= w[1]) {
            errors.push(err("power.loss_at_ns", "times must be strictly increasing"));
        }
        if let Some(w) = &self.workload {
            if let Err(problems) = w.validate() {
                errors.extend(problems.into_iter().map(|p| err(&format!("workload.{}", p.field), p.message)));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Mapping units per page (`ftl.mapping`): 1 for whole pages, 2 for half pages,
    /// `geometry.subpages_per_page` for subpages.
    pub fn units_per_page(&self) -> u32 {
        match self.ftl.mapping {
            Mapping::Page => 1,
            Mapping::HalfPages => 2,
            Mapping::Subpages => self.geometry.subpages_per_page,
        }
    }

    /// Physical pages per super-page (`ftl.super_page_channels` × `ftl.super_page_dies`).
    pub fn super_page_pages(&self) -> u32 {
        self.ftl.super_page_channels.saturating_mul(self.ftl.super_page_dies)
    }

    /// The device the FTL and the engine manage (thesis §5.1): with super-pages, each
    /// gang of `super_page_channels` channels × `super_page_dies` dies per channel acts as
    /// one die whose page is the super-page, on one channel `super_page_channels` lanes
    /// wide. Its members work in lock step at the same address, so a command's parts end
    /// together: a program transfers each lane's pages in turn (vertical striping) while
    /// the lanes run in parallel (horizontal), then programs all members at once (one
    /// page's latency); a read senses all members, then transfers. Energies per page and
    /// block scale with the members. Returns the device config and the lanes per channel;
    /// without super-pages, the config itself and 1.
    pub fn device_view(&self) -> (Config, u32) {
        let (h, v) = (self.ftl.super_page_channels.max(1), self.ftl.super_page_dies.max(1));
        if h.saturating_mul(v) == 1 {
            return (self.clone(), 1);
        }
        let mut c = self.clone();
        let g = &mut c.geometry;
        let dies_per_channel = g.chips_per_channel.saturating_mul(g.dies_per_chip) / v;
        g.channels /= h;
        if g.dies_per_chip.is_multiple_of(v) {
            g.dies_per_chip /= v;
        } else {
            g.chips_per_channel = dies_per_channel;
            g.dies_per_chip = 1;
        }
        g.page_size_bytes = g.page_size_bytes.saturating_mul(h.saturating_mul(v));
        let n = h as f64 * v as f64;
        let e = &mut c.energy;
        e.read_nj.iter_mut().for_each(|x| *x *= n);
        e.program_nj.iter_mut().for_each(|x| *x *= n);
        e.erase_nj *= n;
        e.slc_read_nj *= n;
        e.slc_program_nj *= n;
        c.ftl.super_page_channels = 1;
        c.ftl.super_page_dies = 1;
        (c, h)
    }

    fn validate_super_pages(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let (g, t) = (&self.geometry, &self.ftl);
        if t.super_page_channels == 0 || !g.channels.is_multiple_of(t.super_page_channels.max(1)) {
            errors.push(err("ftl.super_page_channels", format!("must divide geometry.channels ({})", g.channels)));
        }
        let per_channel = g.chips_per_channel as u64 * g.dies_per_chip as u64;
        if t.super_page_dies == 0 || !per_channel.is_multiple_of(t.super_page_dies.max(1) as u64) {
            errors.push(err(
                "ftl.super_page_dies",
                format!("must divide the dies per channel (chips_per_channel × dies_per_chip = {per_channel})"),
            ));
        }
        if self.super_page_pages() > 1 {
            if g.subpages_per_page > 1 {
                errors.push(err("ftl.super_page_channels", "super-pages are not modelled with subpages"));
            }
            if t.mapping != Mapping::Page {
                errors.push(err("ftl.mapping", "super-pages are mapped whole: use ftl.mapping = \"page\""));
            }
            // SLC layouts are drawn over physical planes, dies and chips, which a gang merges.
            if self.hybrid.layout != SlcLayout::Plane || self.hybrid.slc_planes > 0 {
                errors.push(err(
                    "ftl.super_page_channels",
                    "super-pages are not modelled with hybrid SLC layouts (hybrid.layout, hybrid.slc_planes)",
                ));
            }
            if self.super_page_pages() as u64 * g.page_size_bytes as u64 > 1 << 20 {
                errors.push(err("ftl.super_page_dies", "super-pages of more than 1 MiB are not modelled"));
            }
        }
        errors
    }

    fn validate_ipu(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        if !(0.0..1.0).contains(&self.ftl.slc_gc_free_fraction) {
            errors.push(err("ftl.slc_gc_free_fraction", "must be in [0, 1)"));
        }
        errors.extend(IpuConfig::validate(self));
        errors
    }

    fn validate_slc_levels(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let t = &self.ftl;
        if !(1..=8).contains(&t.slc_levels) {
            errors.push(err("ftl.slc_levels", "must be 1 to 8"));
            return errors;
        }
        if t.slc_levels == 1 && t.slc_gc_destination == SlcGcDestination::OutOfCache {
            return errors;
        }
        let key = if t.slc_levels > 1 { "ftl.slc_levels" } else { "ftl.slc_gc_destination" };
        if t.slc_blocks_per_plane == 0 {
            errors.push(err(key, "needs SLC-mode blocks: set ftl.slc_blocks_per_plane"));
        } else if t.slc_blocks_per_plane < t.slc_levels.saturating_add(2) {
            errors.push(err(
                "ftl.slc_blocks_per_plane",
                format!("{} SLC levels need at least {} SLC blocks per plane", t.slc_levels, t.slc_levels + 2),
            ));
        }
        if self.hybrid.allocation != HybridAllocation::Pf || self.hybrid.migration != SlcMigration::Gc {
            errors.push(err(
                key,
                "applies to the conventional SLC cache (hybrid.allocation = \"pf\", migration = \"gc\")",
            ));
        }
        if t.slc_gc_destination == SlcGcDestination::NextLevel && t.slc_levels < 2 {
            errors.push(err("ftl.slc_gc_destination", "\"next-level\" needs ftl.slc_levels of at least 2"));
        }
        if self.flash.program_scheme == ProgramScheme::OneShot {
            errors.push(err(key, "is not modelled with one-shot programming"));
        }
        errors
    }

    fn validate_mapping(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        if self.ftl.mapping == Mapping::Page {
            return errors;
        }
        let subpages = self.geometry.subpages_per_page;
        if self.ftl.mapping == Mapping::Subpages && (!(2..=8).contains(&subpages) || !subpages.is_power_of_two()) {
            errors.push(err(
                "geometry.subpages_per_page",
                format!("ftl.mapping = \"subpages\" needs 2, 4 or 8 subpages per page (is {subpages})"),
            ));
        }
        if self.ftl.partial_program_updates && !(self.ipu.enabled() && self.ftl.mapping == Mapping::Subpages) {
            errors.push(err(
                "ftl.partial_program_updates",
                "partial programming keeps a page map with per-page subpage state: use ftl.mapping = \"page\" \
                 (or ipu.scheme, whose schemes place partial programs in a subpage map)",
            ));
        }
        // GC compacts partly valid pages within their plane, page by page: GC moves that
        // leave the plane, or gather one-shot page sets, would keep them half empty.
        if self.flash.program_scheme == ProgramScheme::OneShot {
            errors.push(err("ftl.mapping", "half-page and subpage maps are not modelled with one-shot programming"));
        }
        if self.ftl.gc_destination != GcDestination::SamePlane {
            errors.push(err("ftl.mapping", "half-page and subpage maps need ftl.gc_destination = \"same-plane\""));
        }
        if self.slc_blocks_by_plane().iter().any(|&n| n >= self.geometry.blocks_per_plane) {
            errors.push(err(
                "ftl.mapping",
                "half-page and subpage maps are not modelled with planes wholly in SLC mode (cross-plane migration)",
            ));
        }
        errors
    }
}

#[cfg(test)]
mod tests;
