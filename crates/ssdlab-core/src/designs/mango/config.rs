//! Mango's config section `[mango]` (thesis §7.2): high-priority writes skip slow pages,
//! and GC does in its fast mode.

use crate::config::{err, Config, ConfigError};
use serde::{Deserialize, Serialize};

/// When GC writes skip slow pages too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MangoGc {
    /// Slow mode unless it is needed for a high-priority request (a high-priority write
    /// waits at the die) or the drive runs on battery (§7.2's Swap and Netbook
    /// scenarios).
    #[default]
    Priority,
    /// Always the next page, whatever its speed.
    Slow,
    /// Always the next fast page.
    Fast,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MangoConfig {
    pub enabled: bool,
    pub gc: MangoGc,
    /// Free blocks per plane the capacity limit keeps beyond the emergency GC threshold:
    /// pages are skipped only while the plane's pages that are neither skipped nor
    /// needed for its share of the advertised capacity exceed (emergency threshold + this)
    /// blocks.
    pub reserve_blocks: u32,
    /// A tighter limit of our own: skipped pages take at most this share of a plane's
    /// spare pages (its pages beyond its share of the logical capacity). At the
    /// thesis' limit alone GC is left the reserve blocks as over-provisioning and its
    /// write amplification explodes (measured on small-tlc: ~50 GC moves per request).
    pub max_skipped_spare_fraction: f64,
}

impl Default for MangoConfig {
    fn default() -> Self {
        MangoConfig { enabled: false, gc: MangoGc::Priority, reserve_blocks: 1, max_skipped_spare_fraction: 0.5 }
    }
}

impl MangoConfig {
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn is_default(&self) -> bool {
        *self == MangoConfig::default()
    }

    pub(crate) fn validate(c: &Config) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        if !c.mango.enabled {
            return errors;
        }
        let f = c.mango.max_skipped_spare_fraction;
        if !(0.0..=1.0).contains(&f) {
            errors.push(err("mango.max_skipped_spare_fraction", format!("must be within 0 and 1, got {f}")));
        }
        // (What Mango is not modelled with: its `NEEDS` and `CLAIMS`, checked with every
        // design's by `designs::validate`.)
        errors
    }
}
