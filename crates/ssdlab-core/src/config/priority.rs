//! The host's priority bit (thesis §7.2) and where it comes from: `[priority]` (which
//! hints count as high priority; the Netbook scenario's battery / wall power modes) and
//! `[mix]` (a second trace interleaved into the workload as a share of its requests, its
//! records tagged, as the Swap scenario's swap stream). A trace's own hints and a flow's
//! `hint` are the other sources.

use super::{err, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PriorityConfig {
    /// A request whose hint is at most this is high priority; a request without a hint
    /// is low priority (hints: smaller is more urgent).
    pub high_hint_max: u8,
    /// The Netbook scenario: the drive alternates between battery power (every request
    /// high priority, a design's fast mode) and wall power (every request low priority),
    /// in segments of requests whose length is drawn uniformly from half to one and a
    /// half times this mean, each battery segment followed by a wall segment of the same
    /// length, so that half the requests run in each mode. 0 = no power modes.
    pub power_segment_requests: u64,
    /// Report latency per priority class even when no request was high priority.
    pub report: bool,
}

impl PriorityConfig {
    pub fn is_default(&self) -> bool {
        *self == PriorityConfig::default()
    }

    pub fn power_modes(&self) -> bool {
        self.power_segment_requests > 0
    }
}

/// A second trace mixed into the workload (`[mix]`): its records make up `percent` of
/// all requests, each placed in the mix's logical range and given `hint`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MixConfig {
    /// The trace to mix in (read by the CLI; empty = no mix).
    pub trace: String,
    /// Its format (`auto` = detected).
    pub format: String,
    /// The unit of its time column (times are not used: a mixed-in record takes the time
    /// of the main record it precedes; given for formats that need one to parse).
    pub time_unit: String,
    /// Its records' share of all requests, percent (0 < percent < 100).
    pub percent: f64,
    /// The hint every mixed-in record carries (0: high priority with the default
    /// `priority.high_hint_max`).
    pub hint: u8,
    /// Where its records land: wrapped into `size_bytes` (0 = not wrapped), then moved up
    /// by `offset_bytes` (as a flow's).
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

impl Default for MixConfig {
    fn default() -> Self {
        MixConfig {
            trace: String::new(),
            format: "auto".to_string(),
            time_unit: String::new(),
            percent: 10.0,
            hint: 0,
            offset_bytes: 0,
            size_bytes: 0,
        }
    }
}

impl MixConfig {
    pub fn enabled(&self) -> bool {
        !self.trace.is_empty()
    }

    pub fn is_default(&self) -> bool {
        *self == MixConfig::default()
    }

    pub(crate) fn validate(&self, logical_bytes: Option<u64>, flows: bool) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        if !self.enabled() {
            return errors;
        }
        if !(self.percent > 0.0 && self.percent < 100.0) {
            errors.push(err("mix.percent", format!("must be above 0 and below 100, got {}", self.percent)));
        }
        if flows {
            errors.push(err(
                "mix.trace",
                "mixes into the single workload; with [[flows]] give the second stream its own flow (and a hint)",
            ));
        }
        let end = self.offset_bytes.saturating_add(self.size_bytes);
        if let Some(logical_bytes) = logical_bytes.filter(|&l| self.size_bytes > 0 && end > l) {
            errors.push(err(
                "mix.size_bytes",
                format!("offset_bytes + size_bytes = {end} passes the drive's logical capacity ({logical_bytes} B)"),
            ));
        }
        errors
    }
}
