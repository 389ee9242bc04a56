//! WOM codes (thesis §6.1, Table 6.1; docs/wom-scrub.md). The code writes two logical
//! bits into three cells, twice: a second-generation code word only turns further cells
//! from 1 to 0, so a page holding first-generation data can be programmed once more
//! without an erase, after reading it (the code resolves its one ambiguity by reading
//! the data first and reprogramming only changed bits). Each generation stores 2/3 of a
//! page of data in a page's cells.
//!
//! WOM-safe pages (§6.1): every page of an SLC block; on MLC (and TLC) the LSB (fast)
//! pages only. §2.3.3 (the thesis' program-disturb study, its lines on the "4n or 4n+1"
//! pages) finds that reprogramming an MSB (slow) page disturbs the LSB page sharing its
//! cells, while the first four pages — LSB pages — disturb nothing; half the pages of a
//! block are unsuitable (§6.1), and those are the MSB pages.
//!
//! The model, page-granular as the map is: the WOM-safe pages of a block, in program
//! order, form trios; the first two of a trio each hold one logical page per generation
//! and the third (a companion page, `ftl/companion.rs`) holds the code's redundancy, so
//! a trio stores two logical pages per generation in three pages of cells (2/3). Safe
//! pages left over at the end of a block and the unsafe pages hold plain data. A write of
//! a logical page whose copy is first-generation data on a trio page is reprogrammed in
//! place (`engine/reprogram.rs`): its page and the trio's code page (once programmed) are
//! read, then reprogrammed, with no new page and no erase. The next write relocates it
//! (an ordinary write; the page is stale until its block is erased). Preconditioning and
//! GC write through the same layout: their data is first-generation on trio pages too.
//!
//! Per erase a block then takes its plain pages once and its trio data pages twice:
//! MLC 128 pages (64 LSB: 21 trios + 1 plain, 64 plain MSB) 107 + 42 = 149 page writes =
//! 1.164× the 128 of a plain block; SLC 64 pages (21 trios + 1 plain) 43 + 42 = 85 =
//! 1.328× (thesis: 1.16×, 1.33×). Reads sense the data page only (a real layout would
//! spread a logical page over 1.5 pages of cells).

pub mod config;

use super::{BuiltIn, Design, Hook, Need};
use crate::config::Config;
use crate::engine::Simulator;
use crate::flash::{Ppn, NO_PAGE};
use crate::ftl::Ftl;
use crate::stats::Report;
use serde::{Deserialize, Serialize};

/// What a page of a block holds under the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Plain data (an unsafe page, a safe page left over, a summary page).
    Plain,
    /// One logical page per generation: the first or second page of a trio.
    Data,
    /// The trio's redundancy (a companion page).
    Code,
}

/// Each page's role and, for a trio's data pages, its code page, for a block whose
/// pages have `types` (SLC-mode: all safe) and whose first `data_pages` hold data.
pub(crate) fn roles(types: &[u8], slc: bool, data_pages: u32) -> Vec<(Role, u32)> {
    let mut roles = vec![(Role::Plain, NO_PAGE); types.len()];
    let safe: Vec<u32> = (0..data_pages).filter(|&p| slc || types[p as usize] == 0).collect();
    for trio in safe.chunks_exact(3) {
        let (a, b, code) = (trio[0], trio[1], trio[2]);
        roles[a as usize] = (Role::Data, code);
        roles[b as usize] = (Role::Data, code);
        roles[code as usize] = (Role::Code, NO_PAGE);
    }
    roles
}

/// Makes the trios' code pages companion pages of every block (before preconditioning).
pub(crate) fn prepare_ftl(config: &Config, ftl: &mut Ftl) {
    let data = ftl.layout.pages() - config.summary_pages_per_block();
    let normal = roles(&ftl.layout.types, false, data).iter().map(|r| r.0 == Role::Code).collect();
    let slc = vec![false; ftl.slc_layout.pages() as usize];
    ftl.set_companion_pages(normal, slc);
}

/// The report section `wom`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WomSummary {
    /// Pages of a block by role: a trio's data pages (two generations), code pages,
    /// plain pages (summaries included).
    pub data_pages_per_block: u32,
    pub code_pages_per_block: u32,
    pub plain_pages_per_block: u32,
    /// The page writes a block takes per erase if every data page gets both generations,
    /// over its page count (MLC 149/128 = 1.164, SLC 85/64 = 1.328).
    pub ideal_writes_per_erase_ratio: f64,
    /// User page writes programmed in place as a second generation.
    pub second_generation_writes: u64,
    /// Writes of a logical page whose copy was already second-generation (relocated).
    pub third_writes: u64,
    /// Code pages programmed with their trio's first data page, and reprogrammed by a
    /// second generation.
    pub code_page_programs: u64,
    pub code_page_reprograms: u64,
    /// Logical pages programmed during the run (user writes, in place or not, and GC
    /// moves), the erases, and their ratio in bytes.
    pub logical_pages_programmed: u64,
    pub erases: u64,
    pub bytes_per_erase: f64,
    /// Program and erase energy over the logical bytes programmed (Fig. 6.1's
    /// "effective program energy"), nJ per byte.
    pub program_energy_nj_per_byte: f64,
}

/// The design's state.
pub(crate) struct Wom {
    roles: Vec<(Role, u32)>,
    /// Per physical page: holds second-generation data (a bit set; cleared at erase).
    second: Vec<u64>,
    summary: WomSummary,
    /// Counters when the run started: erases, logical programs, code programs, energy.
    at_start: (u64, u64, u64, f64),
}

impl Design for Wom {
    const NAME: &'static str = "wom";
    const HOOKS: &'static [Hook] =
        &[Hook::RunStarting, Hook::ReprogramsInPlace, Hook::InPlaceClaim, Hook::BlockErased, Hook::Report];
    const NEEDS: &'static [Need] =
        &[Need::PagesProgrammedWhole, Need::WholeMapInDram, Need::NoSlcBlocks, Need::NoDataCache, Need::AckOnProgram];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    fn run_starting(sim: &mut Simulator<'_>) {
        sim.wom_run_starting();
    }

    fn reprograms_in_place(sim: &mut Simulator<'_>, lpn: u32, old: Ppn) -> bool {
        sim.wom_reprograms_in_place(lpn, old)
    }

    fn in_place_claim(sim: &mut Simulator<'_>, ppn: Ppn) -> Option<Ppn> {
        sim.wom_in_place_claim(ppn)
    }

    fn block_erased(sim: &mut Simulator<'_>, _plane: u32, block: u32, _slc: bool) {
        sim.wom_block_erased(block);
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.wom = Some(sim.wom_summary());
    }
}

impl BuiltIn for Wom {
    const SECTION: &'static str = "wom";
    const KEY: &'static str = "wom.enabled";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::WomConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::AfterHost;

    fn swarm_draw(seed: u64, config: &mut Config, _records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config);
    }

    fn selected(config: &Config) -> bool {
        config.wom.enabled()
    }

    /// The code's third page of every trio of WOM-safe pages.
    fn prepare_ftl(config: &Config, ftl: &mut Ftl) {
        prepare_ftl(config, ftl);
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        Wom::new(config, ftl)
    }
}

impl Wom {
    pub(crate) fn new(config: &Config, ftl: &Ftl) -> Wom {
        let summary_pages = config.summary_pages_per_block();
        let roles = roles(&ftl.layout.types, false, ftl.layout.pages() - summary_pages);
        let count = |role| roles.iter().filter(|r| r.0 == role).count() as u32;
        let (data, code, plain) = (count(Role::Data), count(Role::Code), count(Role::Plain));
        let pages = ftl.layout.pages();
        Wom {
            second: vec![0; (ftl.addr.pages() as usize).div_ceil(64)],
            summary: WomSummary {
                data_pages_per_block: data,
                code_pages_per_block: code,
                plain_pages_per_block: plain,
                ideal_writes_per_erase_ratio: (2 * data + plain - summary_pages) as f64
                    / (pages - summary_pages) as f64,
                ..WomSummary::default()
            },
            roles,
            at_start: (0, 0, 0, 0.0),
        }
    }

    fn is_second(&self, ppn: Ppn) -> bool {
        self.second[ppn as usize / 64] & (1 << (ppn % 64)) != 0
    }
}

impl Simulator<'_> {
    pub(crate) fn wom_run_starting(&mut self) {
        let start = (
            self.ftl.counters.erases,
            self.flash_counters.user_programs + self.flash_counters.gc_programs,
            self.ftl.counters.companion_programs,
            self.energy.program + self.energy.erase,
        );
        self.designs.state_mut::<Wom>().at_start = start;
    }

    /// A write of `lpn` whose copy is `old` goes in place when `old` is a trio's data page
    /// holding first-generation data (and its block is not being cleaned).
    pub(crate) fn wom_reprograms_in_place(&mut self, _lpn: u32, old: Ppn) -> bool {
        let f = &self.ftl;
        let block = f.addr.block_of(old);
        let p = &f.planes[f.addr.plane_of(old) as usize];
        let w = self.designs.state_mut::<Wom>();
        let role = w.roles[f.addr.page_in_block(old) as usize].0;
        if role != Role::Data {
            return false;
        }
        if w.is_second(old) {
            w.summary.third_writes += 1;
            return false;
        }
        p.victim != block && p.next_victim != block
    }

    /// The in-place reprogram of `ppn` starts: it becomes second-generation data; the
    /// trio's code page is reprogrammed along once it has been programmed.
    pub(crate) fn wom_in_place_claim(&mut self, ppn: Ppn) -> Option<Ppn> {
        let f = &self.ftl;
        let (block, page) = (f.addr.block_of(ppn), f.addr.page_in_block(ppn));
        let w = self.designs.state_mut::<Wom>();
        let (role, code) = w.roles[page as usize];
        if role != Role::Data || w.is_second(ppn) {
            return None;
        }
        w.second[ppn as usize / 64] |= 1 << (ppn % 64);
        w.summary.second_generation_writes += 1;
        if f.is_programmed(block, code) {
            w.summary.code_page_reprograms += 1;
            Some(f.addr.ppn(block, code))
        } else {
            Some(NO_PAGE)
        }
    }

    pub(crate) fn wom_block_erased(&mut self, block: u32) {
        let first = self.ftl.addr.ppn(block, 0);
        let pages = self.ftl.addr.pages_per_block;
        let w = self.designs.state_mut::<Wom>();
        for ppn in first..first + pages {
            w.second[ppn as usize / 64] &= !(1 << (ppn % 64));
        }
    }

    pub(crate) fn wom_summary(&self) -> WomSummary {
        let w = self.designs.state::<Wom>();
        let mut s = w.summary.clone();
        let (erases, programs, codes, energy) = w.at_start;
        s.erases = self.ftl.counters.erases - erases;
        s.logical_pages_programmed = self.flash_counters.user_programs + self.flash_counters.gc_programs - programs;
        s.code_page_programs = self.ftl.counters.companion_programs - codes;
        let bytes = s.logical_pages_programmed as f64 * self.timing.page_size_bytes as f64;
        s.bytes_per_erase = if s.erases == 0 { 0.0 } else { bytes / s.erases as f64 };
        let spent = self.energy.program + self.energy.erase - energy;
        s.program_energy_nj_per_byte = if bytes == 0.0 { 0.0 } else { spent / bytes };
        s
    }
}

/// The swarm's WOM-codes draw, on the drives whose share of the roll it shares with the
/// scrubbing draw (`reprogramming_roll`) says so (0.25 to 0.4), where WOM codes are
/// modelled (over-provisioning raised until the capacity check passes).
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config) {
    use crate::config::*;
    use crate::swarm::{plain_for_reprogramming, reprogramming_roll};
    let (roll, _) = reprogramming_roll(seed);
    // (Cached mapping tables and DIR's flag presets keep their cases.)
    if c.cmt.enabled() || c.dir.scheme != DirScheme::Off || !(0.25..0.4).contains(&roll) {
        return;
    }
    let mut drawn = plain_for_reprogramming(c);
    drawn.wom.enabled = true;
    drawn.cache = Cache::default();
    drawn.ftl.slc_blocks_per_plane = 0;
    drawn.hybrid = Hybrid::default();
    drawn.power.write_acknowledge = WriteAcknowledge::Program;
    for op in [drawn.ftl.over_provisioning, 0.45, 0.6] {
        drawn.ftl.over_provisioning = op;
        if drawn.validate().is_ok() {
            *c = drawn;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::PageLayout;

    #[test]
    fn mlc_trios_use_the_lsb_pages_and_slc_every_page() {
        let mlc = PageLayout::staircase(2, 128, 2);
        let r = roles(&mlc.types, false, 128);
        // LSB pages in program order: 0, 1, 2, 3, 6, 7, 10, ...; trios (0, 1 | 2), (3, 6 | 7).
        assert_eq!(r[0], (Role::Data, 2));
        assert_eq!(r[1], (Role::Data, 2));
        assert_eq!(r[2].0, Role::Code);
        assert_eq!(r[3], (Role::Data, 7));
        assert_eq!(r[6], (Role::Data, 7));
        assert_eq!(r[4].0, Role::Plain, "an MSB page is not WOM-safe");
        let count = |r: &[(Role, u32)], role| r.iter().filter(|x| x.0 == role).count();
        assert_eq!((count(&r, Role::Data), count(&r, Role::Code), count(&r, Role::Plain)), (42, 21, 65));
        let slc = roles(&PageLayout::slc(64).types, true, 64);
        assert_eq!((count(&slc, Role::Data), count(&slc, Role::Code), count(&slc, Role::Plain)), (42, 21, 1));
        // Writes per erase with both generations: MLC 149/128, SLC 85/64 (thesis 1.16, 1.33).
        assert_eq!(2 * 42 + 65, 149);
        assert_eq!(2 * 42 + 1, 85);
    }
}
