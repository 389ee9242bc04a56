//! The FDP section `[designs.fdp]` (docs/zns-fdp.md, "FDP"): reclaim groups, the reclaim
//! unit handles and their types, where a write's placement identifier comes from, the
//! reclaim unit time limit; its validation against the drive.

use crate::config::{err, Config, ConfigError, GcDestination};
use serde::{Deserialize, Serialize};

/// A reclaim unit handle's type (NVMe TP4146, "Reclaim Unit Handle Type").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HandleType {
    /// Initially isolated: data written through it starts in its own reclaim units, but
    /// device GC may move it into reclaim units shared with other such handles.
    Initially,
    /// Persistently isolated: its data stays in its own reclaim units, GC included.
    Persistently,
}

/// Where a write's placement identifier (PID) comes from. `ssdlab_trace::Record` has no
/// placement field: the rule maps what a record has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PidSource {
    /// The trace's device column (volume, ASU, disk number; fio jobs with `fdp=1` write
    /// their placement identifier there): `device_pids[d]`, `default_pid` for devices
    /// beyond the list, `d` itself when the list is empty.
    Device,
    /// The host flow (`[[flows]]`) the request came from: `flow_pids[k]`.
    Flow,
    /// The logical address: the first of `lba_pids` whose byte range holds the page.
    Lba,
}

/// A logical byte range `[start_bytes, end_bytes)` written with placement identifier `pid`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LbaPid {
    pub start_bytes: u64,
    pub end_bytes: u64,
    pub pid: u32,
}

/// A host Reclaim Unit Handle Update (NVMe I/O Management Send, management operation
/// 01h) at `at_ms` of simulated time: each handle its placement identifiers name is
/// moved to new reclaim units in the group the identifier names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuhUpdate {
    pub at_ms: f64,
    pub pids: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FdpConfig {
    pub enabled: bool,
    /// Reclaim groups: the dies split into this many groups (group g: dies g, g + groups,
    /// ...). A reclaim unit is one erase block in every plane of its group.
    pub reclaim_groups: u32,
    /// The reclaim unit handles, by type: `["persistently", "initially", ...]`.
    pub handles: Vec<HandleType>,
    /// Where a write's placement identifier comes from.
    pub pid_from: PidSource,
    pub device_pids: Vec<u32>,
    pub flow_pids: Vec<u32>,
    pub lba_pids: Vec<LbaPid>,
    /// The placement identifier of writes whose rule gives none or one out of range.
    pub default_pid: u32,
    /// Reclaim unit active time limit (ms, 0: none): a handle whose reclaim unit was
    /// opened longer ago is moved to a new one at its next write.
    pub ru_time_limit_ms: f64,
    /// Handles (by index) whose reclaim units are SLC-mode blocks (`ftl.
    /// slc_blocks_per_plane` of every plane), one SLC level each; the others' are normal.
    pub slc_handles: Vec<u32>,
    /// Reclaim Unit Handle Updates the host sends, by time.
    pub ruh_updates: Vec<RuhUpdate>,
}

impl Default for FdpConfig {
    fn default() -> Self {
        FdpConfig {
            enabled: false,
            reclaim_groups: 1,
            handles: vec![HandleType::Initially],
            pid_from: PidSource::Device,
            device_pids: Vec::new(),
            flow_pids: Vec::new(),
            lba_pids: Vec::new(),
            default_pid: 0,
            ru_time_limit_ms: 0.0,
            slc_handles: Vec::new(),
            ruh_updates: Vec::new(),
        }
    }
}

/// Most handles (each takes a user write point, a persistently isolated one two).
pub(crate) const MAX_HANDLES: usize = 16;
/// Most Reclaim Unit Handle Updates one config schedules.
const MAX_RUH_UPDATES: usize = 100_000;

impl FdpConfig {
    /// Bits of a placement identifier that name the handle (the rest name the reclaim
    /// group, as the NVMe Reclaim Group Identifier Format puts the group in the upper bits).
    pub(crate) fn handle_bits(&self) -> u32 {
        let n = self.handles.len().max(1) as u32;
        32 - (n - 1).leading_zeros()
    }

    /// The user write points the handles take: one each, and one more (its GC write
    /// point) per persistently isolated handle.
    pub(crate) fn write_points(&self) -> u32 {
        (self.handles.len() + self.handles.iter().filter(|h| **h == HandleType::Persistently).count()) as u32
    }

    /// SLC levels the SLC-mode handles take (`ftl.slc_levels`): one each, at least 1.
    pub(crate) fn slc_levels(&self) -> u32 {
        (self.slc_handles.len() as u32).max(1)
    }

    /// The SLC level of `handle`, if its reclaim units are SLC-mode blocks.
    pub(crate) fn slc_level(&self, handle: u32) -> Option<u8> {
        self.slc_handles.iter().position(|&h| h == handle).map(|l| l as u8)
    }

    /// The write points the handles take, derived where the config leaves them at their
    /// defaults (1): `ftl.user_write_points` and `ftl.slc_levels`. Other values are kept
    /// and, if they differ from what the handles need, named by validation.
    pub(crate) fn resolve(c: &mut Config) {
        if !super::selected(c) {
            return;
        }
        let Ok(f) = c.design_section::<FdpConfig>("fdp") else { return };
        if f.handles.is_empty() || f.handles.len() > MAX_HANDLES {
            return;
        }
        if c.ftl.user_write_points == 1 {
            c.ftl.user_write_points = f.write_points();
        }
        if c.ftl.slc_levels == 1 {
            c.ftl.slc_levels = f.slc_levels();
        }
    }

    /// `(reclaim group, handle)` of placement identifier `pid`, if both exist.
    pub(crate) fn decode(&self, pid: u32) -> Option<(u32, u32)> {
        let bits = self.handle_bits();
        let (group, handle) = (pid >> bits, pid & ((1u32 << bits) - 1));
        (group < self.reclaim_groups && (handle as usize) < self.handles.len()).then_some((group, handle))
    }

    pub(crate) fn validate(c: &Config) -> Vec<ConfigError> {
        let f = match c.design_section::<FdpConfig>("fdp") {
            Ok(f) => f,
            Err(e) => return vec![e],
        };
        if !f.enabled {
            return Vec::new();
        }
        let key = |k: &str| format!("designs.fdp.{k}");
        let mut errors = Vec::new();
        if f.handles.is_empty() || f.handles.len() > MAX_HANDLES {
            errors.push(err(&key("handles"), format!("1 to {MAX_HANDLES} reclaim unit handles")));
            return errors;
        }
        let dies = c.geometry.channels * c.geometry.chips_per_channel * c.geometry.dies_per_chip;
        if f.reclaim_groups == 0 || f.reclaim_groups > dies {
            errors.push(err(&key("reclaim_groups"), format!("1 to the drive's dies ({dies})")));
        }
        let wps = f.write_points();
        if c.ftl.user_write_points != wps {
            errors.push(err(
                "ftl.user_write_points",
                format!(
                    "an FDP drive with these handles needs {wps}: one write point per reclaim unit handle and one \
                     more (its GC write point) per persistently isolated handle (leave it unset: it is derived)"
                ),
            ));
        }
        errors.extend(f.validate_slc(c));
        for (i, u) in f.ruh_updates.iter().enumerate() {
            let at = format!("ruh_updates[{i}]");
            if !(u.at_ms >= 0.0 && u.at_ms.is_finite() && u.at_ms < 3.6e6) {
                errors.push(err(&key(&at), "at_ms must be a finite time from 0 to one hour"));
            }
            if u.pids.is_empty() {
                errors.push(err(&key(&at), "names no placement identifier"));
            }
            if let Some(p) = u.pids.iter().find(|&&p| f.decode(p).is_none()) {
                errors.push(err(&key(&at), format!("placement identifier {p} names no reclaim group and handle")));
            }
        }
        if f.ruh_updates.len() > MAX_RUH_UPDATES {
            errors.push(err(&key("ruh_updates"), format!("at most {MAX_RUH_UPDATES}")));
        }
        if f.decode(f.default_pid).is_none() {
            errors.push(err(&key("default_pid"), "names no reclaim group and handle of the drive"));
        }
        if f.pid_from == PidSource::Flow && c.flows.is_empty() {
            errors.push(err(&key("pid_from"), "\"flow\" needs host flows ([[flows]])"));
        }
        if let Some(r) = f.lba_pids.iter().find(|r| r.start_bytes >= r.end_bytes) {
            errors.push(err(&key("lba_pids"), format!("empty range {}..{}", r.start_bytes, r.end_bytes)));
        }
        if !(f.ru_time_limit_ms >= 0.0 && f.ru_time_limit_ms.is_finite()) {
            errors.push(err(&key("ru_time_limit_ms"), "must be a finite number ≥ 0"));
        }
        if c.ftl.gc_through_user_write_points {
            errors.push(err(
                "ftl.gc_through_user_write_points",
                "an FDP drive places GC writes by reclaim unit handle: set it false",
            ));
        }
        if c.ftl.gc_destination != GcDestination::SamePlane {
            errors.push(err("ftl.gc_destination", "an FDP drive keeps GC moves in their plane: \"same-plane\""));
        }
        if c.power.block_summary {
            errors.push(err("power.block_summary", "an FDP drive's statistics count data pages only"));
        }
        errors
    }

    /// SLC-mode handles: the drive's SLC-mode blocks are theirs, in every plane, and
    /// `ftl.slc_levels` gives each its own SLC write point.
    fn validate_slc(&self, c: &Config) -> Vec<ConfigError> {
        let key = |k: &str| format!("designs.fdp.{k}");
        let mut errors = Vec::new();
        let handles = self.handles.len() as u32;
        let mut seen = self.slc_handles.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != self.slc_handles.len() || seen.last().is_some_and(|&h| h >= handles) {
            errors.push(err(&key("slc_handles"), format!("distinct handle indices below {handles}")));
            return errors;
        }
        if self.slc_handles.is_empty() {
            if c.uses_slc() {
                errors.push(err(
                    "ftl.slc_blocks_per_plane",
                    "an FDP drive's SLC-mode blocks are SLC handles' reclaim units: list them in \
                     designs.fdp.slc_handles",
                ));
            }
            return errors;
        }
        let slc = c.slc_blocks_by_plane();
        let needed = 2 * self.slc_handles.len() as u32 + 2;
        if c.hybrid.layout != crate::config::SlcLayout::Plane || slc.iter().any(|&n| n < needed) {
            errors.push(err(
                "ftl.slc_blocks_per_plane",
                format!(
                    "SLC handles need at least {needed} SLC-mode blocks in every plane (hybrid.layout = \"plane\", \
                     hybrid.slc_planes = 0)"
                ),
            ));
        }
        if c.ftl.slc_levels != self.slc_levels() {
            errors.push(err(
                "ftl.slc_levels",
                format!(
                    "an FDP drive with these SLC handles needs {} (leave it unset: it is derived)",
                    self.slc_levels()
                ),
            ));
        }
        if c.hybrid.migration != crate::config::SlcMigration::Gc {
            errors.push(err("hybrid.migration", "an FDP drive cleans SLC handles' reclaim units by GC: \"gc\""));
        }
        errors
    }
}
