//! Gordon's config section `[gordon]`: the FTL's write points (thesis §5.1).

use crate::config::{err, Config, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GordonConfig {
    /// Write points per channel (bus), thesis §5.1: each is one open location that user
    /// writes go to in turn, over the dies of its channel assigned to it; a write point
    /// moves to its next die after a block's worth of pages per plane, taking a new
    /// sequence number. `0` (the default): off, the FTL's plane allocator places writes
    /// (every plane its own write point).
    pub write_points_per_channel: u32,
}

impl GordonConfig {
    pub fn enabled(&self) -> bool {
        self.write_points_per_channel > 0
    }

    pub(crate) fn validate(c: &Config) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let k = c.gordon.write_points_per_channel;
        if k == 0 {
            return errors;
        }
        // In the FTL's view a gang of dies is one die (`Config::device_view`).
        let (view, _) = c.device_view();
        let per_channel = view.geometry.chips_per_channel.saturating_mul(view.geometry.dies_per_chip);
        if k > per_channel {
            errors.push(err(
                "gordon.write_points_per_channel",
                format!("at most the dies per channel ({per_channel}; a super-page gang counts as one die)"),
            ));
        }
        // (PA-SSD, DIR and IPU decide hooks Gordon decides; SLC-mode blocks, hybrid placement
        // and host flows are its `NEEDS`: all checked by `designs::validate`.)
        errors
    }
}
