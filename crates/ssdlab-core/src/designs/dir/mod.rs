//! DIR (seed 002, JCST 2024): dynamic request interleaving for aged TLC reads.
//!
//! The write path (DIR §3.1, Algorithm 1): the whole-page sub-requests of one write are
//! grouped in pairs of adjacent logical pages; a group goes to two planes of one die (the
//! next multi-plane region, dies and plane pairs taken round-robin), each logical page
//! split in halves over the two pages (the half-page map, `ftl.mapping = "half-pages"`),
//! and the two pages take different page types (LSB/MSB, LSB/CSB, CSB/MSB: `dir.type_pairs`)
//! under relaxed program order (PA's constraints, `ftl/relaxed.rs`), programmed by one
//! enhanced multi-plane command. A free (ungrouped) sub-request is written alone in the
//! plane the allocator gives it (its single-plane region), LSB or CSB pages first.
//!
//! The read path needs nothing here: a read of an interleaved page reads both pages (the
//! dummy sub-request, de-duplicated against the request's other pages; `engine/host.rs`),
//! the enhanced multi-plane read senses both at once, and with the error model the pair's
//! retries follow the mean RBER of its two pages (`engine/errors.rs`).
//!
//! GC (DIR §3.2.4): a page whose two halves are valid moves whole, staying paired with
//! its partner page; a page with one valid half is de-interleaved: that logical page is
//! recovered from both pages into one page of the victim's plane (`Ftl::deinterleave`,
//! `compact_into`), its other half on the partner page becoming invalid.
//!
//! What the paper's lost text (end of §3.1.2, §3.2.1–3.2.2, Figs. 7–8) would have said
//! about forming regions and choosing type pairs is replaced by the simplest design
//! consistent with the rest: regions are plane pairs of a die, not reserved blocks, and a
//! pair takes the first of `dir.type_pairs` both planes can program now (either way
//! round), else the pages pa-BLAlloc gives for LSB and MSB (which may share a type:
//! counted as `same_type_pairs`). NOAC, AC and Interleaving are flag settings of the
//! conventional FTL (`Config::resolved`), not this module.

pub mod config;

use super::{BuiltIn, Design, Hook, MoveTarget};
use crate::config::Config;
use crate::engine::{Simulator, NO_REQUEST};
use crate::flash::Ppn;
use crate::ftl::{Allocated, Ftl, WriteMode};
use crate::stats::DirSummary;

const NONE: u32 = u32::MAX;

/// Where the placement of the current write request stands.
#[derive(Clone, Copy)]
struct Placing {
    /// The request (its id: slots are reused).
    request: u64,
    /// Whole-page writes of the request placed so far.
    placed: u32,
    /// The group being formed: its second plane and first write (`NONE` until queued).
    second_plane: u32,
    first_txn: u32,
    /// The write being placed is a group's first (1) or second (2) page, or free (0).
    role: u8,
}

pub(crate) struct Dir {
    group_pairs: bool,
    type_pairs: Vec<(u8, u8)>,
    free_type: u8,
    placing: Placing,
    /// The next multi-plane region (a plane pair of a die): dies first, then pairs.
    next_region: u32,
    /// The other write of each queued write's group, by transaction slot (`NONE`: free).
    partner: Vec<u32>,
    groups: u64,
    free_writes: u64,
    /// Groups whose partner could not join it (moved to another die, or gone): written
    /// alone.
    broken_groups: u64,
    /// Programmed pairs by (type of the first page, type of the second).
    pairs_by_types: Vec<u64>,
    same_type_pairs: u64,
    bits: usize,
}

impl Dir {
    pub(crate) fn new(config: &crate::config::Config) -> Self {
        let bits = config.bits_per_cell();
        Dir {
            group_pairs: config.dir.group_pairs,
            type_pairs: config.dir.pairs(bits),
            free_type: config.dir.free_page_type,
            placing: Placing { request: u64::MAX, placed: 0, second_plane: NONE, first_txn: NONE, role: 0 },
            next_region: 0,
            partner: Vec::new(),
            groups: 0,
            free_writes: 0,
            broken_groups: 0,
            pairs_by_types: vec![0; bits * bits],
            same_type_pairs: 0,
            bits,
        }
    }

    fn link(&mut self, a: u32, b: u32) {
        let need = a.max(b) as usize + 1;
        if self.partner.len() < need {
            self.partner.resize(need, NONE);
        }
        self.partner[a as usize] = b;
        self.partner[b as usize] = a;
    }

    fn partner_of(&self, txn: u32) -> u32 {
        self.partner.get(txn as usize).copied().unwrap_or(NONE)
    }

    /// Forgets `txn`'s group (it got its page, or its partner is gone).
    fn unlink(&mut self, txn: u32) {
        let p = self.partner_of(txn);
        if p != NONE {
            self.partner[p as usize] = NONE;
            self.partner[txn as usize] = NONE;
        }
    }
}

impl Design for Dir {
    const NAME: &'static str = "dir";
    // The report section is the engine's (`dir_summary`): it covers DIR's baselines, which
    // are settings of the conventional FTL, not this design.
    const HOOKS: &'static [Hook] = &[
        Hook::RunStarting,
        Hook::PlaceWrite,
        Hook::WriteQueued,
        Hook::PairsUserWrites,
        Hook::WritePartner,
        Hook::UserPage,
        Hook::PairPages,
        Hook::GcMoveTarget,
        Hook::GcPage,
        Hook::PowerLost,
    ];
    const NEEDS: &'static [super::Need] = &[super::Need::WholeMapInDram, super::Need::NoSlcBlocks];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    fn run_starting(sim: &mut Simulator<'_>) {
        sim.dir_run_starting();
    }

    fn place_write(sim: &mut Simulator<'_>, static_plane: u32, request: u32, _lpn: u32) -> (u32, WriteMode) {
        (sim.dir_place_write(static_plane, request), WriteMode::Auto)
    }

    fn write_queued(sim: &mut Simulator<'_>, txn: u32) {
        sim.dir_write_queued(txn);
    }

    /// Only a group's two pages share a command (`write_partner`).
    fn pairs_user_writes(_sim: &Simulator<'_>) -> bool {
        false
    }

    fn write_partner(sim: &mut Simulator<'_>, die: u32, txn: u32) -> Option<usize> {
        sim.dir_write_partner(die, txn)
    }

    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        Some(sim.dir_user_page(txn))
    }

    fn pair_pages(sim: &mut Simulator<'_>, l: u32, m: u32) -> Option<(Allocated, Allocated)> {
        Some(sim.dir_pair_pages(l, m))
    }

    fn gc_move_target(_sim: &Simulator<'_>, _plane: u32) -> MoveTarget {
        MoveTarget::SamePlane
    }

    fn gc_page(sim: &mut Simulator<'_>, plane: u32, _from: Ppn) -> Option<Allocated> {
        sim.dir_gc_page(plane)
    }

    fn power_lost(sim: &mut Simulator<'_>) {
        sim.dir_power_lost();
    }
}

impl BuiltIn for Dir {
    const SECTION: &'static str = "dir";
    const KEY: &'static str = "dir.scheme";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::DirConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::BeforeHost;

    fn swarm_draw(seed: u64, config: &mut Config, _records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config);
    }

    fn selected(config: &Config) -> bool {
        config.dir.scheme == crate::config::DirScheme::Dir
    }

    fn build(config: &Config, _ftl: &Ftl) -> Self {
        Dir::new(config)
    }
}

impl Simulator<'_> {
    pub(crate) fn dir_run_starting(&mut self) {
        if self.ftl.relaxed.is_none() {
            self.ftl.enable_relaxed();
        }
        self.ftl.deinterleave = true;
    }

    /// A user page write of request `slot` is being queued: a group's first page goes to
    /// the first plane of the next region, its second page to the second plane; a free
    /// page where the allocator put it.
    pub(crate) fn dir_place_write(&mut self, static_plane: u32, slot: u32) -> u32 {
        // A flush out of the DRAM cache on no request's behalf: a group of its own.
        let (pages, request) = match self.requests.get(slot as usize) {
            Some(r) if slot != NO_REQUEST => (r.pages, r.id),
            _ => (1, u64::MAX),
        };
        let planes_per_die = self.ftl.addr.planes_per_die;
        let dies = self.ftl.addr.dies();
        let d = self.designs.state_mut::<Dir>();
        if d.placing.request != request {
            d.placing = Placing { request, placed: 0, second_plane: NONE, first_txn: NONE, role: 0 };
        }
        let k = d.placing.placed;
        d.placing.placed += 1;
        if k.is_multiple_of(2) && k + 1 < pages && d.group_pairs {
            let region = d.next_region;
            d.next_region = (region + 1) % (dies * (planes_per_die / 2));
            let first = (region % dies) * planes_per_die + 2 * (region / dies);
            d.placing.second_plane = first + 1;
            d.placing.first_txn = NONE;
            d.placing.role = 1;
            return first;
        }
        if k % 2 == 1 && d.placing.second_plane != NONE {
            d.placing.role = 2;
            let second = d.placing.second_plane;
            d.placing.second_plane = NONE;
            return second;
        }
        d.placing.role = 0;
        d.free_writes += 1;
        static_plane
    }

    pub(crate) fn dir_write_queued(&mut self, txn: u32) {
        let d = self.designs.state_mut::<Dir>();
        match d.placing.role {
            1 => d.placing.first_txn = txn,
            2 if d.placing.first_txn != NONE => {
                let first = d.placing.first_txn;
                d.link(first, txn);
                d.groups += 1;
                d.placing.first_txn = NONE;
            }
            _ => {}
        }
        d.placing.role = 0;
    }

    /// The queued write that must be programmed with `txn` (its group's other page), if
    /// it can be now: queued at the same die, in another plane, with room.
    pub(crate) fn dir_write_partner(&mut self, die: u32, txn: u32) -> Option<usize> {
        let p = self.designs.state_mut::<Dir>().partner_of(txn);
        if p == NONE {
            return None;
        }
        let index = self.dies[die as usize].writes.iter().position(|&t| t == p);
        let joins =
            index.filter(|_| self.txns[p as usize].plane != self.txns[txn as usize].plane && self.write_has_room(p));
        if joins.is_none() {
            let d = self.designs.state_mut::<Dir>();
            d.unlink(txn);
            d.broken_groups += 1;
        }
        joins
    }

    /// A free write's page: LSB or CSB first (`dir.free_page_type`), pa-BLAlloc's order.
    pub(crate) fn dir_user_page(&mut self, txn: u32) -> Allocated {
        let plane = self.txns[txn as usize].plane;
        let d = self.designs.state_mut::<Dir>();
        d.unlink(txn);
        let want = d.free_type;
        self.ftl.allocate_typed(plane, want, 1, self.now).expect("room was checked").0
    }

    /// A group's two pages: the first type pair of `dir.type_pairs` both planes can
    /// program now, else LSB in the first plane and MSB in the second as pa-BLAlloc can.
    pub(crate) fn dir_pair_pages(&mut self, l: u32, m: u32) -> (Allocated, Allocated) {
        let (pa, pb) = (self.txns[l as usize].plane, self.txns[m as usize].plane);
        let d = self.designs.state_mut::<Dir>();
        d.unlink(l);
        let bits = d.bits;
        // (Taken out and put back: no copy per program.)
        let pairs = std::mem::take(&mut d.type_pairs);
        // Pages of the blocks already open first: opening a block for an LSB page while
        // open blocks still have CSB and MSB pages would leave those behind.
        let candidates = || pairs.iter().flat_map(|&(x, y)| [(x, y), (y, x)]);
        let chosen = candidates()
            .find(|&(x, y)| self.ftl.can_take_type(pa, x, None) && self.ftl.can_take_type(pb, y, None))
            .or_else(|| {
                candidates()
                    .find(|&(x, y)| self.ftl.can_take_type(pa, x, Some(1)) && self.ftl.can_take_type(pb, y, Some(1)))
            });
        self.designs.state_mut::<Dir>().type_pairs = pairs;
        let (x, y) = chosen.unwrap_or((0, bits as u8 - 1));
        let a = self.ftl.allocate_typed(pa, x, 1, self.now).expect("room was checked").0;
        let b = self.ftl.allocate_typed(pb, y, 1, self.now).expect("room was checked").0;
        let d = self.designs.state_mut::<Dir>();
        d.pairs_by_types[a.page_type as usize * bits + b.page_type as usize] += 1;
        if a.page_type == b.page_type {
            d.same_type_pairs += 1;
        }
        (a, b)
    }

    /// GC moves take LSB or CSB pages first too (relaxed order has no GC write point),
    /// but fill the open blocks before opening another once those hold more free pages
    /// than the free blocks (`Ftl::allocate_typed_gc`: DIR's pairs and free writes open a
    /// block whenever no open one has an LSB page left, so open blocks pile up).
    pub(crate) fn dir_gc_page(&mut self, plane: u32) -> Option<Allocated> {
        let want = self.designs.state_mut::<Dir>().free_type;
        self.ftl.allocate_typed_gc(plane, want, self.now)
    }

    pub(crate) fn dir_power_lost(&mut self) {
        let d = self.designs.state_mut::<Dir>();
        d.partner.clear();
        d.placing = Placing { request: u64::MAX, placed: 0, second_plane: NONE, first_txn: NONE, role: 0 };
    }

    /// The report's `dir` section (any `dir.scheme` but `off`): the metrics DIR §4.2
    /// compares the schemes by, and DIR's own counts when it runs.
    pub(crate) fn dir_summary(&self) -> Option<DirSummary> {
        if self.config.dir.scheme == crate::config::DirScheme::Off {
            return None;
        }
        let f = &self.flash_counters;
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut s = DirSummary {
            scheme: format!("{:?}", self.config.dir.scheme).to_lowercase(),
            read_amplification: ratio(f.user_read_pages, self.host_counters.flash_page_reads_asked),
            multi_plane_read_share: ratio(f.multi_plane_read_pages, f.user_read_pages),
            interleaved_write_share: ratio(2 * f.interleaved_pairs, f.user_programs),
            ..DirSummary::default()
        };
        if let Some(d) = self.designs.try_state::<Dir>() {
            let names = crate::stats::page_type_names(d.bits);
            for a in 0..d.bits {
                for b in 0..d.bits {
                    let n = d.pairs_by_types[a * d.bits + b];
                    if n > 0 {
                        s.pairs_by_types.insert(format!("{}-{}", names[a], names[b]), n);
                    }
                }
            }
            s.groups = d.groups;
            s.free_writes = d.free_writes;
            s.broken_groups = d.broken_groups;
            s.same_type_pairs = d.same_type_pairs;
            s.gc_deinterleaved = self.ftl.counters.deinterleaved;
        }
        Some(s)
    }
}

/// DIR and its baselines (issue 14), from a stream of their own, on half of the drives
/// that allow the scheme drawn (DIR: conventional multi-bit drives with an even number of
/// planes per die).
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config) {
    use crate::config::*;
    use crate::swarm::pick;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-dir"));
    if !rng.random_bool(0.5) {
        return;
    }
    let mut drawn = c.clone();
    drawn.dir.scheme = pick(
        rng,
        &[DirScheme::Noac, DirScheme::Ac, DirScheme::Interleaving, DirScheme::Dir, DirScheme::Dir, DirScheme::Dir],
    );
    if drawn.dir.scheme == DirScheme::Dir {
        // DIR's relaxed program order is defined over the staircase layout, without
        // block summaries.
        drawn.flash.layout = LayoutKind::Staircase;
        drawn.power.block_summary = false;
        // It keeps its own open blocks (one user write point, GC not through them).
        drawn.ftl.user_write_points = 1;
        drawn.ftl.gc_through_user_write_points = false;
    }
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}
