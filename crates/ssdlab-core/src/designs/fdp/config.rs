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
        }
    }
}

/// Most handles (each takes a user write point, a persistently isolated one two).
pub(crate) const MAX_HANDLES: usize = 16;

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
                     more (its GC write point) per persistently isolated handle"
                ),
            ));
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
        if !c.power.loss_at_ns.is_empty() {
            errors.push(err(
                "power.loss_at_ns",
                "power loss on an FDP drive is not modelled (the handles' reclaim units are not recovered)",
            ));
        }
        if c.power.block_summary {
            errors.push(err("power.block_summary", "an FDP drive's statistics count data pages only"));
        }
        errors
    }
}
