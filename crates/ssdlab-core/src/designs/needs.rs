//! What a design needs of the drive ([`Need`]: FTL and flash modes) and what it takes
//! over beyond its hooks ([`Claim`]), both declared by the design (`Design::NEEDS`,
//! `Design::CLAIMS`) and checked in one place for every design, built-in or not: when a
//! config is validated (the designs it selects) and when a design is added to a
//! simulation. These replace per-design lists of the other designs and modes each one
//! refused.

use crate::config::{Config, HybridAllocation, Mapping, ProgramScheme, WriteAcknowledge};

/// A mode of the drive a design's model assumes. A design lists the ones it needs in
/// `Design::NEEDS`; a config that selects the design without one is refused, naming the
/// design and what the drive has instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A page-level map (`ftl.mapping = "page"`): one logical page per flash page.
    PageMap,
    /// The whole map in DRAM: no cached mapping table (`[cmt]`). The designs' papers
    /// assume an ideal map.
    WholeMapInDram,
    /// No super-pages (`ftl.super_page_channels` and `super_page_dies` 1).
    NoSuperPages,
    /// Pages programmed one at a time (not `flash.program_scheme = "one-shot"`).
    PageByPagePrograms,
    /// No partial programs of the FTL's own (`ftl.partial_program_updates = false`).
    NoPartialProgramUpdates,
    /// No SLC-mode blocks (`ftl.slc_blocks_per_plane = 0`, `hybrid.layout = "plane"`).
    NoSlcBlocks,
    /// `hybrid.allocation = "pf"`: no hybrid placement of the SPA works.
    PfHybridAllocation,
    /// SLC-mode blocks, if any, inside planes (`hybrid.layout = "plane"`).
    PlaneHybridLayout,
    /// One user write point per plane (`ftl.user_write_points = 1`).
    OneUserWritePoint,
    /// No DRAM data cache (`[cache]`).
    NoDataCache,
    /// Writes acknowledged once programmed (`power.write_acknowledge = "program"`).
    AckOnProgram,
    /// Multi-bit cells (MLC, TLC, QLC): pages of several types.
    MultiBitCells,
    /// One workload, not host flows (`[[flows]]`).
    NoFlows,
    /// Each flash page one logical page, programmed whole and one at a time: `PageMap`,
    /// `NoSuperPages`, `PageByPagePrograms` and `NoPartialProgramUpdates` together (what
    /// designs that pick, skip or reprogram single pages assume).
    PagesProgrammedWhole,
}

/// The modes `Need::PagesProgrammedWhole` stands for.
const WHOLE: [Need; 4] = [Need::PageMap, Need::NoSuperPages, Need::PageByPagePrograms, Need::NoPartialProgramUpdates];

impl Need {
    /// Whether the drive `config` describes has this mode.
    pub fn holds(self, c: &Config) -> bool {
        match self {
            Need::PageMap => c.ftl.mapping == Mapping::Page,
            Need::WholeMapInDram => !c.cmt.enabled(),
            Need::NoSuperPages => c.super_page_pages() <= 1,
            Need::PageByPagePrograms => c.flash.program_scheme != ProgramScheme::OneShot,
            Need::NoPartialProgramUpdates => !c.ftl.partial_program_updates,
            Need::NoSlcBlocks => !c.uses_slc(),
            Need::PfHybridAllocation => c.hybrid.allocation == HybridAllocation::Pf,
            Need::PlaneHybridLayout => c.hybrid.layout == crate::config::SlcLayout::Plane,
            Need::OneUserWritePoint => c.ftl.user_write_points <= 1,
            Need::NoDataCache => !c.cache.enabled(),
            Need::AckOnProgram => c.power.write_acknowledge == WriteAcknowledge::Program,
            Need::MultiBitCells => c.bits_per_cell() >= 2,
            Need::NoFlows => c.flows.is_empty(),
            Need::PagesProgrammedWhole => WHOLE.iter().all(|n| n.holds(c)),
        }
    }

    /// What the drive `c` has when the need does not hold, as errors name it.
    pub fn instead(self, c: &Config) -> &'static str {
        match self {
            Need::PagesProgrammedWhole => {
                WHOLE.iter().find(|n| !n.holds(c)).map_or("pages not programmed whole", |n| n.instead(c))
            }
            Need::PageMap => "a map other than ftl.mapping = \"page\"",
            Need::WholeMapInDram => "a cached mapping table ([cmt]; the design's paper assumes an ideal map)",
            Need::NoSuperPages => "super-pages (ftl.super_page_channels, ftl.super_page_dies)",
            Need::PageByPagePrograms => "one-shot programming (flash.program_scheme)",
            Need::NoPartialProgramUpdates => "partial programs (ftl.partial_program_updates)",
            Need::NoSlcBlocks => "SLC-mode blocks (ftl.slc_blocks_per_plane, hybrid.layout)",
            Need::PfHybridAllocation => "a hybrid allocation (hybrid.allocation)",
            Need::PlaneHybridLayout => "planes wholly in SLC mode (hybrid.layout)",
            Need::OneUserWritePoint => "several user write points (ftl.user_write_points)",
            Need::NoDataCache => "the DRAM data cache ([cache])",
            Need::AckOnProgram => "DRAM acknowledgement (power.write_acknowledge = \"buffer\")",
            Need::MultiBitCells => "SLC cells (one page type)",
            Need::NoFlows => "host flows ([[flows]])",
        }
    }
}

/// A part of the drive's behaviour a design takes over beyond the hooks it decides:
/// something its hooks' decisions rely on no other design changing. Two active designs
/// that claim the same one are refused together, naming both and the claim (as for a
/// decision hook both list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The order in which a block's pages are programmed and how often each is: relaxed
    /// program order (PA-SSD, DIR, the Harey Tortoise's page picking), skipped pages
    /// (Mango), partial programs (IPU), written pages reprogrammed in place (scrubbing,
    /// WOM codes). Each such model assumes every other page of the block follows the
    /// conventional order: a scrub of a page whose wordline partner is not yet programmed,
    /// or a WOM rewrite of a partially programmed page, is not a state the models cover.
    ProgramOrder,
}

impl Claim {
    pub fn describe(self) -> &'static str {
        match self {
            Claim::ProgramOrder => "the program order of a block's pages",
        }
    }
}

/// Errors for design `name` (its config key `key`) on the drive `config`: each need that
/// does not hold.
pub(crate) fn unmet(name: &str, needs: &[Need], config: &Config) -> Vec<String> {
    needs
        .iter()
        .filter(|n| !n.holds(config))
        .map(|n| format!("design {name} is not modelled with {}", n.instead(config)))
        .collect()
}

/// The first claim both lists hold.
pub(crate) fn shared_claim(a: &[Claim], b: &[Claim]) -> Option<Claim> {
    a.iter().copied().find(|c| b.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_drive_meets_every_need_but_multi_bit_cells_on_slc() {
        let c = Config::default();
        let all = [
            Need::PageMap,
            Need::WholeMapInDram,
            Need::NoSuperPages,
            Need::PageByPagePrograms,
            Need::NoPartialProgramUpdates,
            Need::NoSlcBlocks,
            Need::PfHybridAllocation,
            Need::PlaneHybridLayout,
            Need::OneUserWritePoint,
            Need::NoDataCache,
            Need::AckOnProgram,
            Need::NoFlows,
            Need::PagesProgrammedWhole,
        ];
        assert_eq!(unmet("x", &all, &c), Vec::<String>::new());
        let mut slc = c.clone();
        slc.flash.cell = crate::config::CellType::Slc;
        assert_eq!(
            unmet("x", &[Need::MultiBitCells], &slc),
            vec!["design x is not modelled with SLC cells (one page type)"]
        );
        // The compound need names the mode that fails.
        let mut partial = c.clone();
        partial.ftl.partial_program_updates = true;
        assert_eq!(
            unmet("x", &[Need::PagesProgrammedWhole], &partial),
            vec!["design x is not modelled with partial programs (ftl.partial_program_updates)"]
        );
        let mut cmt = c.clone();
        cmt.cmt.capacity_bytes = 4096;
        assert!(!Need::WholeMapInDram.holds(&cmt));
    }
}
