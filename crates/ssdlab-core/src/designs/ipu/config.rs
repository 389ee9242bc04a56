//! IPU's config section `[ipu]`: the switch among IPU and the two schemes it is compared
//! with (IPU §4.1), applied by `Config::resolved`.

use crate::config::{err, Config, ConfigError, DirScheme, HybridAllocation, SlcMigration};
use serde::{Deserialize, Serialize};

/// IPU (seed 003) and its baselines (IPU §4.1). Every scheme writes user data into the
/// SLC-mode cache first and keeps a subpage-granular record of where data lies (which
/// subpages of a page hold data and which of those are valid); they differ in how a write
/// smaller than a page is placed and in how the cache is cleaned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IpuScheme {
    /// No switch: the conventional FTL as configured.
    Off,
    /// Baseline: a page-level map and no partial programming. A logical page lives in one
    /// physical page: an update that leaves other valid subpages of its page behind reads
    /// them first and writes the union to a new page (read-modify-write). Greedy GC of the
    /// cache, whose valid data leaves for the high-density blocks.
    Baseline,
    /// MGA: a two-level (subpage) map; small writes of different requests are packed into
    /// one SLC page, the later ones by partial programming into the page's free subpages.
    /// Greedy GC (by invalid subpages) of the cache, valid data to high-density blocks.
    Mga,
    /// IPU: an update is partially programmed into the free subpages of the page that holds
    /// its old version; otherwise it goes to a new page one level higher (Work → Monitor →
    /// Hot). GC of the cache takes the block with the largest ISR and moves updated data
    /// within its level, never-updated data one level down (from Work: out of the cache).
    Ipu,
}

/// How IPU cleans its cache (an ablation switch; the paper's is `levels`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IpuCacheGc {
    /// IPU §3.2: the victim of largest ISR; updated data stays in its level, the rest
    /// goes one level down, out of the cache from Work.
    Levels,
    /// As the baselines: the greedy victim, all its valid data out of the cache (IPU's
    /// write path kept).
    Evict,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IpuConfig {
    pub scheme: IpuScheme,
    /// IPU's SLC levels (IPU §3.1: Work, Monitor, Hot); becomes `ftl.slc_levels` under
    /// `scheme = "ipu"` (the baselines use one).
    pub levels: u32,
    /// `"ipu"`: how its cache is cleaned (`"levels"`, the paper's; `"evict"` the ablation).
    pub cache_gc: IpuCacheGc,
}

impl Default for IpuConfig {
    fn default() -> Self {
        IpuConfig { scheme: IpuScheme::Off, levels: 3, cache_gc: IpuCacheGc::Levels }
    }
}

impl IpuConfig {
    /// IPU's own rules (what it needs of the drive beyond its `NEEDS`).
    pub(crate) fn validate(c: &Config) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        if !c.ipu.enabled() {
            return errors;
        }
        if c.ipu.scheme == IpuScheme::Ipu && !(2..=8).contains(&c.ipu.levels) {
            errors.push(err("ipu.levels", "must be 2 to 8 (IPU: Work, Monitor, Hot = 3)"));
        }
        if c.ftl.slc_blocks_per_plane == 0 {
            errors.push(err("ipu.scheme", "writes through an SLC-mode cache: set ftl.slc_blocks_per_plane"));
        }
        // (PA-SSD and DIR: by composition, `designs::validate`.)
        if !matches!(c.dir.scheme, DirScheme::Off | DirScheme::Dir) {
            errors.push(err("ipu.scheme", "is not combined with DIR's baselines (dir.scheme)"));
        }
        if c.hybrid.allocation != HybridAllocation::Pf || c.hybrid.migration != SlcMigration::Gc {
            errors.push(err(
                "ipu.scheme",
                "manages its SLC cache itself: needs hybrid.allocation = \"pf\" and hybrid.migration = \"gc\"",
            ));
        }
        errors
    }

    pub fn enabled(&self) -> bool {
        self.scheme != IpuScheme::Off
    }
}
