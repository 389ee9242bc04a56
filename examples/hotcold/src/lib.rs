//! Hot/cold write separation, an ssdlab design written outside `ssdlab-core` the way a
//! researcher would write their own: this crate depends on `ssdlab-core` and changes
//! nothing in it.
//!
//! The mechanism: a logical page written at least `threshold` times is hot. Each plane
//! has two user write points (`ftl.user_write_points = 2`); a write of a hot page goes to
//! write point 1, of a cold page to write point 0. GC keeps the classes apart: a valid
//! page moved out of a victim goes to its class's write point, so a block never holds
//! both classes' valid data. Hot data then dies together, and victims hold fewer valid
//! pages than when the two classes share blocks.
//!
//! Config: `[designs.hotcold]` (`threshold`); report: section `hotcold`.

use serde::{Deserialize, Serialize};
use ssdlab_core::config::Mapping;
use ssdlab_core::designs::{Design, Hook, MoveTarget};
use ssdlab_core::flash::Ppn;
use ssdlab_core::ftl::{Allocated, WriteMode};
use ssdlab_core::{Report, SimError, Simulator};

/// `[designs.hotcold]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct HotColdConfig {
    /// Writes of a logical page (this one included) from which it is hot.
    pub threshold: u32,
}

impl Default for HotColdConfig {
    fn default() -> Self {
        HotColdConfig { threshold: 2 }
    }
}

/// What the design did: report section `hotcold`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct HotColdReport {
    pub threshold: u32,
    /// User page writes placed in each class's write point.
    pub hot_writes: u64,
    pub cold_writes: u64,
    /// Valid pages GC moved, by class.
    pub gc_moved_hot: u64,
    pub gc_moved_cold: u64,
}

/// The design's state.
pub struct HotCold {
    threshold: u32,
    /// Writes of each logical page so far (saturating).
    writes: Vec<u32>,
    report: HotColdReport,
}

/// Write point of each class.
const COLD: u8 = 0;
const HOT: u8 = 1;

impl HotCold {
    pub const SECTION: &'static str = "hotcold";

    /// Builds the design for the drive `sim` simulates, refusing drives it does not fit.
    pub fn new(config: &HotColdConfig, sim: &Simulator<'_>) -> Result<HotCold, SimError> {
        let c = sim.config();
        let refuse = |why: &str| Err(SimError::Setup(format!("designs.hotcold: {why}")));
        if c.ftl.user_write_points != 2 {
            return refuse("needs ftl.user_write_points = 2 (one write point per class)");
        }
        if c.ftl.mapping != Mapping::Page {
            return refuse("needs ftl.mapping = \"page\" (a GC move's page is one logical page)");
        }
        if sim.ftl.has_slc {
            return refuse("needs a drive without SLC-mode blocks (its writes would bypass the write points)");
        }
        if config.threshold == 0 {
            return refuse("threshold must be at least 1");
        }
        Ok(HotCold {
            threshold: config.threshold,
            writes: vec![0; sim.ftl.logical_pages as usize],
            report: HotColdReport { threshold: config.threshold, ..HotColdReport::default() },
        })
    }

    /// Reads `[designs.hotcold]` from the run's config and adds the design to `sim`.
    pub fn install(sim: &mut Simulator<'_>) -> Result<(), SimError> {
        let config: HotColdConfig =
            sim.config().design_section(Self::SECTION).map_err(|e| SimError::Setup(e.to_string()))?;
        let design = HotCold::new(&config, sim)?;
        sim.add_design(design)
    }

    /// The class of logical page `lpn` now.
    pub fn class(&self, lpn: u32) -> u8 {
        if self.writes.get(lpn as usize).copied().unwrap_or(0) >= self.threshold {
            HOT
        } else {
            COLD
        }
    }

    pub fn report(&self) -> &HotColdReport {
        &self.report
    }
}

impl Design for HotCold {
    const NAME: &'static str = "hotcold";
    const HOOKS: &'static [Hook] = &[Hook::PlaceWrite, Hook::GcMoveTarget, Hook::GcPage, Hook::Report];

    /// A user write goes to its class's write point (in the plane the allocator chose).
    fn place_write(sim: &mut Simulator<'_>, static_plane: u32, _request: u32, lpn: u32) -> (u32, WriteMode) {
        let d = sim.design_mut::<HotCold>();
        if let Some(n) = d.writes.get_mut(lpn as usize) {
            *n = n.saturating_add(1);
        }
        let class = d.class(lpn);
        if class == HOT {
            d.report.hot_writes += 1;
        } else {
            d.report.cold_writes += 1;
        }
        (static_plane, WriteMode::UserPoint(class))
    }

    /// GC stays in the victim's plane, where the class's write point is.
    fn gc_move_target(_sim: &Simulator<'_>, _plane: u32) -> MoveTarget {
        MoveTarget::SamePlane
    }

    /// A moved page goes to its class's write point.
    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        let lpn = sim.ftl.rev_at(from);
        let d = sim.design_mut::<HotCold>();
        let class = d.class(lpn);
        if class == HOT {
            d.report.gc_moved_hot += 1;
        } else {
            d.report.gc_moved_cold += 1;
        }
        let now = sim.now();
        sim.ftl.allocate_user_point_for_gc(plane, u32::from(class), now)
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.set_section(Self::NAME, &sim.design::<HotCold>().report);
    }
}
