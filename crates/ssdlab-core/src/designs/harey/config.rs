//! The Harey Tortoise's config section `[harey]` (thesis §7.3): Return-to-Fast, page
//! preference (FGC / SGC) and rate-matched GC over the FTL's user write points.

use crate::config::{err, Config, ConfigError};
use serde::{Deserialize, Serialize};

/// Return to Fast (§7.3.2): user writes take fast pages, and idle time returns the write
/// points to fast pages through GC writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rtf {
    #[default]
    Off,
    /// Every write point back on *a* fast page (1.5 fast pages per write point on
    /// average with paired fast pages).
    Weak,
    /// Every write point back on the *first* page of a run of fast pages (two per write
    /// point with paired fast pages).
    Strong,
}

/// Which page speed user and GC writes prefer when several write points can take them
/// (§7.3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PagePreference {
    /// Latency-agnostic: write points in turn (the baseline).
    #[default]
    None,
    /// Fast pages to GC writes, slow pages to user writes.
    Fgc,
    /// Slow pages to GC writes, fast pages to user writes.
    Sgc,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HareyConfig {
    pub rtf: Rtf,
    /// With RTF: while the device is idle, GC moves pages into the write points that are
    /// not on a fast page even when no plane needs GC (pre-emptive GC, §7.3.2). Off: only
    /// GC the thresholds start returns write points.
    pub preemptive_gc: bool,
    pub page_preference: PagePreference,
    /// The operation-selection policy of §7.3.3: on a die whose plane is below the
    /// background GC threshold and has user writes queued, the next operation is a GC
    /// step when the die's recent GC time is below the target ratio × its recent user
    /// write time, else a user operation.
    pub rate_matching: bool,
    /// The "recent history" of the chip use ratio: GC and user-write busy times decay with
    /// this time constant.
    pub rate_window_ns: u64,
}

impl Default for HareyConfig {
    fn default() -> Self {
        HareyConfig {
            rtf: Rtf::Off,
            preemptive_gc: true,
            page_preference: PagePreference::None,
            rate_matching: false,
            rate_window_ns: 100_000_000,
        }
    }
}

impl HareyConfig {
    pub fn enabled(&self) -> bool {
        self.rtf != Rtf::Off || self.page_preference != PagePreference::None || self.rate_matching
    }

    pub(crate) fn validate(c: &Config) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        let h = &c.harey;
        if !h.enabled() {
            return errors;
        }
        if h.rtf != Rtf::Off && h.page_preference != PagePreference::None {
            errors.push(err(
                "harey.page_preference",
                "is not combined with harey.rtf (RTF already sends user writes to fast pages and GC writes to the \
                 write points not on one)",
            ));
        }
        if h.rate_matching && h.rate_window_ns == 0 {
            errors.push(err("harey.rate_window_ns", "must be at least 1 with harey.rate_matching"));
        }
        // (What the policies are not modelled with: the design's `NEEDS` and `CLAIMS`,
        // checked with every design's by `designs::validate`.)
        errors
    }
}
