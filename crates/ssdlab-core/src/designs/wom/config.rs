//! The WOM-code design's config section `[wom]` (thesis §6.1, Table 6.1).

use crate::config::{err, Config, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WomConfig {
    /// Writes the two-generation 2-bits-in-3-cells code of Table 6.1 on WOM-safe pages
    /// (every SLC page; an MLC/TLC block's LSB pages, thesis §2.3.3 / §6.1): docs/wom-scrub.md.
    pub enabled: bool,
}

impl WomConfig {
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Checks the section against the rest of the config: the designs and features it is
    /// not modelled with, and that the logical capacity fits the code's (a WOM-safe page
    /// holds 2/3 of a page per generation).
    pub(crate) fn validate(&self, config: &Config, errors: &mut Vec<ConfigError>) {
        if !self.enabled {
            return;
        }
        // (What the codes are not modelled with: WOM's `NEEDS` and `CLAIMS`, checked with
        // every design's by `designs::validate`; the capacity is only checked on a drive
        // that meets them.)
        let unmet = crate::designs::needs_unmet::<super::Wom>(config);
        if unmet || !errors.is_empty() {
            return;
        }
        let g = &config.geometry;
        let layout = crate::flash::PageLayout::from_config(&config.flash, g.pages_per_block);
        let summary = config.summary_pages_per_block();
        let data_pages = g.pages_per_block - summary;
        let roles = super::roles(&layout.types, false, data_pages);
        // (Pages holding data: neither code pages nor the summary at the block's end.)
        let data = roles[..data_pages as usize].iter().filter(|r| r.0 != super::Role::Code).count() as f64;
        let blocks = g.blocks_per_plane as f64;
        let t = &config.ftl;
        let logical_per_plane = blocks * (g.pages_per_block - summary) as f64 * (1.0 - t.over_provisioning);
        let reserve = (blocks * t.gc_emergency_free_fraction).ceil().max(2.0);
        let spare = (blocks * data - logical_per_plane) / data.max(1.0);
        if spare < reserve + 2.0 {
            let needed = 1.0 - (blocks - reserve - 2.0) * data / (blocks * (g.pages_per_block - summary) as f64);
            errors.push(err(
                "wom.enabled",
                format!(
                    "a block holds {data:.0} of its {} pages of data under the code (a third of its WOM-safe pages \
                     carry the code's redundancy), which leaves {spare:.1} spare blocks per plane for the {reserve:.0} \
                     emergency GC keeps plus two write points: raise ftl.over_provisioning to at least {needed:.3}",
                    g.pages_per_block
                ),
            ));
        }
    }
}
