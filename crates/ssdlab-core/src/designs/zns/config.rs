//! The zoned namespace's config section `[designs.zns]` (docs/zns-fdp.md), its
//! validation, and the zone layout it gives on a drive: which dies, planes and blocks
//! each zone takes.

use crate::config::{err, Config, ConfigError, WhatIfUnwritten};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ZnsConfig {
    /// The whole logical space is one zoned namespace (NVMe ZNS).
    pub enabled: bool,
    /// Dies a zone spans: a zone is one erase block in every plane of that many dies,
    /// its pages striped over them (die first, then plane).
    pub zone_dies: u32,
    /// Zone size in bytes; 0: what `zone_dies` gives (dies × planes per die × pages per
    /// block × page size). Set, it must equal that (a zone maps 1:1 onto its blocks).
    pub zone_size_bytes: u64,
    /// Writable bytes of each zone (its capacity), at most the zone size, whole pages;
    /// 0: the zone size.
    pub zone_capacity_bytes: u64,
    /// Open zones at most (implicitly or explicitly opened); 0: no limit.
    pub max_open_zones: u32,
    /// Active zones at most (open or closed); 0: no limit.
    pub max_active_zones: u32,
    /// Zones the device holds read-only from the start (worn media, ZSRO).
    pub read_only_zones: Vec<u32>,
    /// Zones the device holds offline from the start (ZSO).
    pub offline_zones: Vec<u32>,
    /// The last this many zones are in SLC mode: their blocks are programmed one bit per
    /// cell, so their capacity is the blocks' SLC pages (`flash.slc_pages_per_block`, or
    /// pages per block / bits per cell when that is 0), below the zone size. A write
    /// cache the host manages; the host layer and the zone-native workload use the
    /// other zones.
    pub slc_zones: u32,
    /// Bytes of conventional (randomly writable) zones at the start of the LBA space, as
    /// ZBC / ZAC drives and Linux's zoned block devices have them: a multiple of the zone
    /// size; 0: none. They are written anywhere through the page-mapped FTL, whose GC
    /// runs on their own blocks (their data, the drive's `ftl.over_provisioning` of it,
    /// and the GC thresholds' free blocks, taken from the zones); the sequential zones
    /// follow them.
    pub conventional_bytes: u64,
    /// `"log"`: block requests (any trace, synthetic or fio job) reach the drive through
    /// the host-side log-structured layer (`host_layer.rs`); `"none"`: the workload speaks
    /// zones itself.
    pub host_layer: HostLayer,
    /// The host layer's spare space: the application gets `1 − host_spare_fraction` of
    /// the usable zones' capacity.
    pub host_spare_fraction: f64,
    /// Host GC runs while no more than this many zones are empty (at least 1).
    pub host_gc_free_zones: u32,
}

/// Who maps block requests onto zones (`[designs.zns] host_layer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostLayer {
    /// Nobody: the workload sends zone commands.
    #[default]
    None,
    /// The host-side log-structured layer.
    Log,
}

impl Default for ZnsConfig {
    fn default() -> Self {
        ZnsConfig {
            enabled: false,
            zone_dies: 1,
            zone_size_bytes: 0,
            zone_capacity_bytes: 0,
            max_open_zones: 0,
            max_active_zones: 0,
            read_only_zones: Vec::new(),
            offline_zones: Vec::new(),
            slc_zones: 0,
            conventional_bytes: 0,
            host_layer: HostLayer::None,
            host_spare_fraction: 0.1,
            host_gc_free_zones: 2,
        }
    }
}

/// Where each zone's pages live. Zones are dealt round-robin over die groups (`groups`
/// groups of `zone_dies` dies; group g holds dies g, g + groups, g + 2·groups, ...), zone
/// z taking block z / groups of every plane of group z % groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub zone_dies: u32,
    pub planes_per_die: u32,
    pub groups: u32,
    /// Pages in a zone (its size) and writable pages (its capacity).
    pub zone_pages: u32,
    pub capacity_pages: u32,
    pub zones: u32,
    pub page_bytes: u64,
    pub blocks_per_plane: u32,
    /// SLC-mode zones (the last ones) and their capacity: their blocks' SLC pages.
    pub slc_zones: u32,
    pub slc_capacity_pages: u32,
    /// Pages of a block in SLC mode.
    pub slc_block_pages: u32,
    /// Conventional zones at the LBA start (before the `zones` sequential ones), and the
    /// blocks of every plane kept out of the zones for them (2 without).
    pub conventional_zones: u32,
    pub conventional_blocks: u32,
    pub dies: u32,
}

impl Layout {
    /// The layout `c` gives, or the errors in its `[designs.zns]`.
    pub fn new(c: &Config, z: &ZnsConfig) -> Result<Layout, Vec<ConfigError>> {
        let g = &c.geometry;
        let dies = g.channels * g.chips_per_channel * g.dies_per_chip;
        let mut errors = Vec::new();
        if z.zone_dies == 0 || !dies.is_multiple_of(z.zone_dies) {
            errors
                .push(err("designs.zns.zone_dies", format!("must divide the drive's {dies} dies (and be at least 1)")));
            return Err(errors);
        }
        let page_bytes = g.page_size_bytes as u64;
        let zone_pages = z.zone_dies as u64 * g.planes_per_die as u64 * g.pages_per_block as u64;
        let size = zone_pages * page_bytes;
        if z.zone_size_bytes != 0 && z.zone_size_bytes != size {
            errors.push(err(
                "designs.zns.zone_size_bytes",
                format!(
                    "a zone is one block in each plane of its {} dies: {size} bytes here (change zone_dies to change it)",
                    z.zone_dies
                ),
            ));
        }
        let capacity = if z.zone_capacity_bytes == 0 { size } else { z.zone_capacity_bytes };
        if capacity > size || !capacity.is_multiple_of(page_bytes) {
            errors.push(err(
                "designs.zns.zone_capacity_bytes",
                format!("must be whole pages of {page_bytes} bytes, at most the zone size ({size} bytes)"),
            ));
        }
        if z.max_open_zones > 0 && z.max_active_zones > 0 && z.max_open_zones > z.max_active_zones {
            errors.push(err("designs.zns.max_open_zones", "at most max_active_zones (an open zone is active)"));
        }
        // Two free blocks stay in every plane: the FTL's room rule for a write (never the
        // last free block) holds without GC, which a zoned drive never runs.
        if g.blocks_per_plane < 3 {
            errors.push(err("designs.zns.enabled", "needs at least 3 blocks per plane (2 stay spare)"));
        }
        if !z.conventional_bytes.is_multiple_of(size) {
            errors.push(err(
                "designs.zns.conventional_bytes",
                format!(
                    "must be a multiple of the zone size, {size} bytes (the area is reported as conventional zones)"
                ),
            ));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let groups = dies / z.zone_dies;
        let conventional_zones = (z.conventional_bytes / size) as u32;
        let conventional_blocks = conventional_blocks(c, conventional_zones as u64 * zone_pages, dies);
        if conventional_blocks + 1 > g.blocks_per_plane {
            return Err(vec![err(
                "designs.zns.conventional_bytes",
                format!(
                    "the area needs {conventional_blocks} blocks of each plane (its data, its over-provisioning and \
                     GC's free blocks), leaving no zone in the {} blocks per plane",
                    g.blocks_per_plane
                ),
            )]);
        }
        let conventional_pages = conventional_zones as u64 * zone_pages;
        let by_blocks = groups as u64 * (g.blocks_per_plane - conventional_blocks) as u64;
        let zones = by_blocks.min(c.logical_pages().saturating_sub(conventional_pages) / zone_pages) as u32;
        if zones == 0 && conventional_zones > 0 {
            return Err(vec![err(
                "designs.zns.conventional_bytes",
                "leaves no sequential zone in the logical capacity (ftl.over_provisioning)".to_string(),
            )]);
        }
        if zones == 0 {
            return Err(vec![err(
                "designs.zns.zone_dies",
                format!("a zone of {size} bytes does not fit in the logical capacity (ftl.over_provisioning)"),
            )]);
        }
        if z.slc_zones > zones {
            return Err(vec![err("designs.zns.slc_zones", format!("at most the drive's {zones} zones"))]);
        }
        let slc_block_pages = slc_block_pages(c);
        let slc_capacity = (z.zone_dies * g.planes_per_die * slc_block_pages).min((capacity / page_bytes) as u32);
        Ok(Layout {
            slc_zones: z.slc_zones,
            slc_capacity_pages: slc_capacity,
            slc_block_pages,
            zone_dies: z.zone_dies,
            planes_per_die: g.planes_per_die,
            groups,
            zone_pages: zone_pages as u32,
            capacity_pages: (capacity / page_bytes) as u32,
            zones,
            page_bytes,
            blocks_per_plane: g.blocks_per_plane,
            conventional_zones,
            conventional_blocks,
            dies,
        })
    }

    /// A zone's size in bytes.
    pub fn zone_size(&self) -> u64 {
        self.zone_pages as u64 * self.page_bytes
    }

    /// Logical pages of the conventional area (the first ones).
    pub fn conventional_pages(&self) -> u32 {
        self.conventional_zones * self.zone_pages
    }

    /// The first logical page of sequential zone `zone` (zones are numbered from the first
    /// sequential one; its LBA zone number is `conventional_zones + zone`).
    pub fn zone_start(&self, zone: u32) -> u32 {
        self.conventional_pages() + zone * self.zone_pages
    }

    /// The sequential zone holding logical page `lpn`, and the page's offset in it;
    /// `None` in the conventional area or past the zones.
    pub fn zone_of(&self, lpn: u32) -> Option<(u32, u32)> {
        let rel = lpn.checked_sub(self.conventional_pages())?;
        let zone = rel / self.zone_pages;
        (zone < self.zones).then_some((zone, rel % self.zone_pages))
    }

    /// The plane of conventional page `lpn`: fixed by the address (dies first, then the
    /// plane in the die), so that each plane holds an equal share of the area, which its
    /// blocks were sized for (a dynamic allocation could pile the area onto a plane).
    pub fn conventional_plane(&self, lpn: u32) -> u32 {
        let die = lpn % self.dies;
        die * self.planes_per_die + (lpn / self.dies) % self.planes_per_die
    }

    /// Whether `zone` is in SLC mode (the last `slc_zones` zones).
    pub fn is_slc(&self, zone: u32) -> bool {
        zone + self.slc_zones >= self.zones
    }

    /// Writable pages of `zone`: the configured capacity, or an SLC zone's.
    pub fn capacity_of(&self, zone: u32) -> u32 {
        if self.is_slc(zone) {
            self.slc_capacity_pages
        } else {
            self.capacity_pages
        }
    }

    /// Zones in normal mode (the first ones): the host layer's and the zone-native
    /// workload's.
    pub fn normal_zones(&self) -> u32 {
        self.zones - self.slc_zones
    }

    /// Planes a zone spans.
    pub fn members(&self) -> u32 {
        self.zone_dies * self.planes_per_die
    }

    /// The plane holding page `offset` of `zone`: consecutive pages go to the zone's
    /// dies in turn, then to the next plane of each.
    pub fn plane_of(&self, zone: u32, offset: u32) -> u32 {
        let m = offset % self.members();
        self.member_plane(zone, m)
    }

    /// Member `m` of `zone`'s planes (die m % zone_dies of its group, plane m / zone_dies).
    pub fn member_plane(&self, zone: u32, m: u32) -> u32 {
        let die = zone % self.groups + (m % self.zone_dies) * self.groups;
        die * self.planes_per_die + m / self.zone_dies
    }
}

/// Blocks of each plane a conventional area of `pages` logical pages over `dies` dies
/// keeps out of the zones: its share of the data (whole blocks), the drive's
/// over-provisioning of that (`ftl.over_provisioning`: data × op / (1 − op), at least one
/// block), the GC thresholds' free blocks (`ftl.gc_background_free_fraction`) and two
/// write points (user and GC). Without an area: the 2 free blocks every zoned plane keeps.
pub fn conventional_blocks(c: &Config, pages: u64, dies: u32) -> u32 {
    if pages == 0 {
        return 2;
    }
    let g = &c.geometry;
    let planes = dies as u64 * g.planes_per_die as u64;
    let data = pages.div_ceil(planes).div_ceil(g.pages_per_block as u64) as f64;
    let op = c.ftl.over_provisioning;
    let spare = ((data * op / (1.0 - op)).ceil() as u64).max(1);
    let (_, background) = crate::ftl::gc_free_blocks(c, g.blocks_per_plane);
    (data as u64 + spare + background as u64 + 2).min(u32::MAX as u64) as u32
}

/// Pages of a block in SLC mode on `c`'s flash: `flash.slc_pages_per_block`, or with
/// that 0, one page per wordline (pages per block / bits per cell).
pub fn slc_block_pages(c: &Config) -> u32 {
    match c.flash.slc_pages_per_block {
        0 => (c.geometry.pages_per_block / c.bits_per_cell() as u32).max(1),
        n => n,
    }
}

impl ZnsConfig {
    /// The errors of `[designs.zns]` on drive `c` (the modes the design needs are its
    /// `NEEDS`, checked by `designs::validate`).
    pub(crate) fn validate(c: &Config) -> Vec<ConfigError> {
        let z = match c.design_section::<ZnsConfig>("zns") {
            Ok(z) => z,
            Err(e) => return vec![e],
        };
        if !z.enabled {
            return Vec::new();
        }
        let layout = match Layout::new(c, &z) {
            Ok(l) => l,
            Err(errors) => return errors,
        };
        let mut errors = Vec::new();
        let (first, end) = (layout.conventional_zones, layout.conventional_zones + layout.zones);
        for (key, zones) in [("read_only_zones", &z.read_only_zones), ("offline_zones", &z.offline_zones)] {
            if let Some(bad) = zones.iter().find(|&&n| n >= end) {
                errors.push(err(
                    &format!("designs.zns.{key}"),
                    format!("zone {bad} does not exist (the drive has {end} zones)"),
                ));
            } else if let Some(bad) = zones.iter().find(|&&n| n < first) {
                errors.push(err(
                    &format!("designs.zns.{key}"),
                    format!("zone {bad} is conventional (zones 0..{first}): only sequential zones change state"),
                ));
            }
        }
        // Preconditioning writes through the conventional FTL, outside any zone.
        let p = &c.precondition;
        if p.used_fraction > 0.0 || p.aged_invalid_fraction > 0.0 || p.steady_state || p.slc_filled {
            errors.push(err(
                "precondition.used_fraction",
                "a zoned drive starts empty: no fill, aging or steady state (precondition.*)",
            ));
        }
        if c.host.unwritten_reads == WhatIfUnwritten::Precondition {
            errors.push(err(
                "host.unwritten_reads",
                "a zoned drive places no data before the run: \"controller\" (unwritten LBAs read as zeros) or \"error\"",
            ));
        }
        if c.power.block_summary {
            errors.push(err("power.block_summary", "a zone's blocks hold only its data (no summary pages)"));
        }
        if z.host_layer == HostLayer::Log {
            let usable = crate::designs::zns::host_layer::usable_zones(&z, &layout).len() as u32;
            let keep = z.host_gc_free_zones as u64 + 2;
            let host = crate::designs::zns::host_layer::host_pages(&z, &layout, usable);
            if z.host_gc_free_zones == 0 {
                errors.push(err("designs.zns.host_gc_free_zones", "at least 1 (host GC writes into an empty zone)"));
            } else if !(z.host_spare_fraction > 0.0 && z.host_spare_fraction < 1.0)
                || host == 0
                || host >= usable.saturating_sub(keep as u32) as u64 * layout.capacity_pages as u64
            {
                // With every full zone wholly valid host GC could free nothing: the GC
                // threshold's empty zones and the two open ones must fit in the spare.
                errors.push(err(
                    "designs.zns.host_spare_fraction",
                    format!(
                        "must be in (0, 1) and leave more than host_gc_free_zones + 2 = {keep} of the {usable} usable \
                         zones unused by the application's data"
                    ),
                ));
            }
            if (z.max_open_zones > 0 && z.max_open_zones < 2) || (z.max_active_zones > 0 && z.max_active_zones < 2) {
                errors.push(err("designs.zns.max_open_zones", "the host layer keeps 2 zones open (application, GC)"));
            }
            if !c.flows.is_empty() {
                errors.push(err("designs.zns.host_layer", "runs the single workload, not [[flows]]"));
            }
        }
        if z.host_layer == HostLayer::Log && layout.conventional_zones > 0 {
            errors.push(err(
                "designs.zns.conventional_bytes",
                "the host layer (host_layer = \"log\") keeps its log in sequential zones: no conventional area beside it",
            ));
        }
        if !c.power.loss_at_ns.is_empty() && z.host_layer == HostLayer::Log {
            // The layer keeps its page table across the loss without reading the zones'
            // write pointers back, so its map would name pages that did not survive.
            errors
                .push(err("power.loss_at_ns", "power loss with the host layer (host_layer = \"log\") is not modelled"));
        }
        errors
    }
}
