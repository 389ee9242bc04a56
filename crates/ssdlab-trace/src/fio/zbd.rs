//! fio's zoned block device mode (`zonemode=zbd`, fio's HOWTO "I/O type"): a job writing a
//! zoned drive. Writes go to the write pointers of at most `max_open_zones` zones at once
//! and, once `zone_reset_threshold` of the region's zones hold data, the oldest full zone is
//! reset before it is written again: the zone-native generator of `[workload.zoned]`
//! (`crate::zoned`), with the job's sizes, read mix, seed and arrivals. `zonesize` and
//! `zonecapacity` default to the drive's (the CLI fills them in from `[designs.zns]`).

use super::*;
use crate::zoned::ZonedSpec;

/// The zone keys of a job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZbdOptions {
    /// `zonemode=zbd`.
    pub enabled: bool,
    /// `zonesize`, `zonecapacity` in bytes (0: the drive's).
    pub zone_size: u64,
    pub zone_capacity: u64,
    /// `max_open_zones` (0: 4 zones written at once).
    pub max_open_zones: u32,
    /// `zone_reset_threshold` (`None`: 1, reset only once every zone holds data).
    pub reset_threshold: Option<f64>,
    /// Bytes of conventional zones at the drive's start (the CLI fills them in from
    /// `[designs.zns]`): fio keeps write pointers for sequential zones only, so the zoned
    /// writers start past them when the region begins inside them.
    pub conventional_bytes: u64,
}

pub(super) const ZBD_KEYS: &[&str] =
    &["zonemode", "zonesize", "zonecapacity", "max_open_zones", "zone_reset_threshold"];

impl ZbdOptions {
    pub(super) fn set(&mut self, key: &str, value: &str, kb_base: u64) -> Result<(), String> {
        match key {
            "zonemode" => match value.trim() {
                "zbd" => self.enabled = true,
                "none" => self.enabled = false,
                other => return Err(format!("'{other}': only zonemode=zbd (or none) is modelled")),
            },
            "zonesize" => self.zone_size = parse_size(value, kb_base)?,
            "zonecapacity" => self.zone_capacity = parse_size(value, kb_base)?,
            "max_open_zones" => {
                self.max_open_zones = u32::try_from(parse_count(value)?).map_err(|_| "too large".to_string())?
            }
            _ => {
                let t: f64 = value.trim().parse().map_err(|_| "must be a number in (0, 1]".to_string())?;
                if !(t > 0.0 && t <= 1.0) {
                    return Err("must be a number in (0, 1]".to_string());
                }
                self.reset_threshold = Some(t);
            }
        }
        Ok(())
    }

    /// The zoned workload for a region of `len` bytes starting at `base`: its zones are
    /// the region's sequential zones, from the first at or past `base`.
    pub(super) fn spec(&self, file: &str, base: u64, len: u64) -> Result<ZonedSpec, FioError> {
        let err = |key: &str, message: String| FioError { file: file.to_string(), line: 0, key: key.into(), message };
        if self.zone_size == 0 {
            return Err(err("zonesize", "unknown: set it, or run on a drive with [designs.zns]".to_string()));
        }
        let start = base.max(self.conventional_bytes);
        let len = len.saturating_sub(start - base);
        if !base.is_multiple_of(self.zone_size) || len < self.zone_size {
            return Err(err(
                "offset",
                format!("the region must start at a zone ({} bytes) and hold a sequential one", self.zone_size),
            ));
        }
        Ok(ZonedSpec {
            open_zones: if self.max_open_zones == 0 { 4 } else { self.max_open_zones },
            append: false,
            utilisation: self.reset_threshold.unwrap_or(1.0),
            zone_size_bytes: self.zone_size,
            zone_capacity_bytes: if self.zone_capacity == 0 { self.zone_size } else { self.zone_capacity },
            zones: (len / self.zone_size) as u32,
            start_bytes: start,
        })
    }
}
