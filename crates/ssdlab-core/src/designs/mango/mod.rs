//! Mango, the variation-aware FTL of the thesis (§7.2): a high-priority write takes the
//! next fast page of its write point, skipping the slow pages before it; GC does the same
//! in its fast mode. Skipped pages are invalid until their block is erased, and "at any
//! time there must be enough valid pages to account for the full, advertised capacity":
//! a plane skips only while its pages that are neither skipped nor needed for its share of
//! the logical capacity stay above the emergency GC threshold plus `mango.reserve_blocks`
//! blocks; past that limit a high-priority write takes the slow page.
//!
//! A request's priority (its hint, a mixed-in stream's or flow's hint, or the Netbook
//! power mode) is the engine's (`engine/priority.rs`); writes flushed out of a DRAM cache
//! were acknowledged already and are low priority. GC runs in fast mode as
//! `mango.gc` says: always, never, or (the thesis' scenarios) while the drive is on
//! battery or a high-priority write waits for the plane being cleaned.

pub mod config;

use super::{BuiltIn, Design, Hook, Need};
use crate::config::{Config, MangoGc};
use crate::engine::{Simulator, TxnKind};
use crate::flash::Ppn;
use crate::ftl::{Allocated, Ftl, Stream};
use crate::stats::Report;
use serde::Serialize;

/// How far a GC step looks into its die's write queue for a waiting high-priority write.
const WAITING_SCAN: usize = 64;

pub(crate) struct Mango {
    gc: MangoGc,
    /// Per plane: pages skipped and not yet erased, and how many may be.
    skipped_live: Vec<u64>,
    limit: Vec<u64>,
    /// Per block: its skipped pages (released by its erase).
    skipped_in_block: Vec<u32>,
    /// Per block being cleaned: whether its cleaning may move pages in fast mode, decided
    /// at its first move from its valid pages then (cleared by its erase).
    fast_cleaning: Vec<Option<bool>>,
    /// Fast (type 0) data pages of a normal-mode block.
    fast_per_block: u32,
    c: MangoSummary,
}

/// What Mango did (report section `mango`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct MangoSummary {
    pub gc_mode: String,
    /// Per plane, the most pages the capacity limit lets be skipped at once.
    pub skip_limit_pages: u64,
    /// User page writes of high-priority requests, and of them those on fast pages and
    /// those that took a slow page because the capacity limit was reached.
    pub high_page_writes: u64,
    pub high_fast_pages: u64,
    pub high_slow_at_limit: u64,
    /// Of them, the slow pages taken because no fast page could be reached (the block's
    /// rest is slow and no free block may be opened).
    pub high_slow_no_block: u64,
    pub low_page_writes: u64,
    /// GC moves in fast mode and in slow mode; of the slow ones, those fast mode wanted
    /// but the victim still held more valid pages than half a block's fast pages, or the
    /// plane was in emergency GC.
    pub gc_fast_moves: u64,
    pub gc_slow_moves: u64,
    pub gc_slow_victim_full: u64,
    /// Pages skipped for user writes and for GC moves; and their share of all pages the
    /// write points passed (programmed or skipped), as the thesis' "fraction of slow
    /// pages the FTL skipped".
    pub skipped_for_user: u64,
    pub skipped_for_gc: u64,
    pub skipped_fraction: f64,
    /// Most pages skipped and not yet erased in any plane at once.
    pub max_skipped_live: u64,
}

impl Mango {
    pub(crate) fn new(config: &Config, ftl: &Ftl) -> Mango {
        let planes = ftl.addr.planes();
        let ppb = ftl.addr.pages_per_block as u64;
        let first = ftl.addr.first_block_of_plane(0);
        let data_pages: u64 = (first..first + ftl.addr.blocks_per_plane)
            .map(|b| (ftl.pages_in_block(b) - ftl.summary_pages_in(b)) as u64)
            .sum();
        let share = (ftl.logical_pages as u64).div_ceil(planes as u64);
        let reserve = (ftl.emergency_free_blocks as u64 + config.mango.reserve_blocks as u64) * ppb;
        let spare = data_pages.saturating_sub(share);
        let share_of_spare = (spare as f64 * config.mango.max_skipped_spare_fraction) as u64;
        let limit = spare.saturating_sub(reserve).min(share_of_spare);
        Mango {
            gc: config.mango.gc,
            skipped_live: vec![0; planes as usize],
            limit: vec![limit; planes as usize],
            skipped_in_block: vec![0; ftl.blocks.len()],
            fast_cleaning: vec![None; ftl.blocks.len()],
            fast_per_block: ftl.layout.types[..(ftl.pages_in_block(first) - ftl.summary_pages_in(first)) as usize]
                .iter()
                .filter(|&&t| t == 0)
                .count() as u32,
            c: MangoSummary {
                gc_mode: crate::engine::kebab(&config.mango.gc),
                skip_limit_pages: limit,
                ..MangoSummary::default()
            },
        }
    }
}

/// Why a write point could not be moved to a fast page.
enum Skip {
    Done,
    AtLimit,
    NoBlock,
}

impl Design for Mango {
    const NAME: &'static str = "mango";
    const HOOKS: &'static [Hook] =
        &[Hook::JoinsMultiPlane, Hook::UserPage, Hook::GcPage, Hook::BlockErased, Hook::Report];
    const NEEDS: &'static [Need] = &[
        Need::PagesProgrammedWhole,
        Need::WholeMapInDram,
        Need::NoSlcBlocks,
        Need::PfHybridAllocation,
        Need::OneUserWritePoint,
        Need::MultiBitCells,
    ];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    /// A high-priority write may skip pages in its plane: a multi-plane program's pages
    /// must share their address.
    fn joins_multi_plane(sim: &Simulator<'_>, txn: u32) -> bool {
        !sim.mango_is_high(txn)
    }

    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        sim.mango_user_page(txn)
    }

    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        sim.mango_gc_page(plane, from);
        sim.baseline_gc_page(plane, from)
    }

    fn block_erased(sim: &mut Simulator<'_>, plane: u32, block: u32, _slc: bool) {
        sim.mango_block_erased(plane, block);
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        sim.mango_report(report);
    }
}

impl BuiltIn for Mango {
    const SECTION: &'static str = "mango";
    const KEY: &'static str = "mango.enabled";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::MangoConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::AfterHost;

    fn swarm_draw(seed: u64, config: &mut Config, records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config, records);
    }

    fn selected(config: &Config) -> bool {
        config.mango.enabled()
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        Mango::new(config, ftl)
    }
}

impl Simulator<'_> {
    fn mango(&mut self) -> &mut Mango {
        self.designs.state_mut::<Mango>()
    }

    /// Whether user write `txn` is of a high-priority request (a write flushed out of a
    /// DRAM cache was acknowledged already: low).
    pub(crate) fn mango_is_high(&self, txn: u32) -> bool {
        let t = &self.txns[txn as usize];
        !t.acked && self.requests[t.request as usize].high
    }

    /// Moves `stream` of `plane` onto its next fast page, skipping within the limit.
    fn mango_skip_to_fast(&mut self, plane: u32, stream: Stream, reserve: usize, for_user: bool) -> Skip {
        let Some(k) = self.ftl.pages_before_fast(plane, stream, reserve) else { return Skip::NoBlock };
        if k == 0 {
            return Skip::Done;
        }
        let m = self.mango();
        if m.skipped_live[plane as usize] + k as u64 > m.limit[plane as usize] {
            return Skip::AtLimit;
        }
        let block = self.ftl.skip_pages(plane, stream, k);
        let m = self.mango();
        m.skipped_live[plane as usize] += k as u64;
        m.c.max_skipped_live = m.c.max_skipped_live.max(m.skipped_live[plane as usize]);
        m.skipped_in_block[block as usize] += k;
        if for_user {
            m.c.skipped_for_user += k as u64;
        } else {
            m.c.skipped_for_gc += k as u64;
        }
        Skip::Done
    }

    /// `user_page`: a high-priority write's page is the next fast one.
    pub(crate) fn mango_user_page(&mut self, txn: u32) -> Option<Allocated> {
        if !self.mango_is_high(txn) {
            self.mango().c.low_page_writes += 1;
            return None;
        }
        let plane = self.txns[txn as usize].plane;
        // (User writes never open a plane's last free block.)
        let skip = self.mango_skip_to_fast(plane, Stream::USER, 1, true);
        let a = self.ftl.allocate_user(plane, self.now)?;
        let c = &mut self.mango().c;
        c.high_page_writes += 1;
        match (a.page_type == 0, skip) {
            (true, _) => c.high_fast_pages += 1,
            (false, Skip::AtLimit) => c.high_slow_at_limit += 1,
            (false, Skip::NoBlock) => c.high_slow_no_block += 1,
            (false, Skip::Done) => unreachable!("a skip ends on a fast page"),
        }
        Some(a)
    }

    /// Whether a high-priority user write for `plane` waits in its die's queue.
    fn mango_high_waiting(&self, plane: u32) -> bool {
        let die = self.ftl.addr.die_of_plane(plane);
        self.dies[die as usize].writes.iter().take(WAITING_SCAN).any(|&t| {
            let txn = &self.txns[t as usize];
            txn.kind == TxnKind::Write && txn.plane == plane && self.mango_is_high(t)
        })
    }

    /// `gc_page`: in fast mode the GC write point first moves to its next fast page
    /// (the page itself is then the baseline's).
    pub(crate) fn mango_gc_page(&mut self, plane: u32, from: Ppn) {
        let fast = match self.mango().gc {
            MangoGc::Fast => true,
            MangoGc::Slow => false,
            MangoGc::Priority => self.host_priority.on_battery() || self.mango_high_waiting(plane),
        };
        // Fast mode passes about a block's pages per block's fast pages moved: a victim
        // with as many valid pages as a block has fast pages would cost what it frees,
        // and GC would never end (measured: emergency GC spinning for good). A cleaning
        // moves fast only if the whole victim needs at most half a block's fast pages,
        // so that it still frees at least half a block. Decided once per victim, at its
        // first move: judged move by move, the last pages of any victim qualified, and a
        // cleaning of a nearly full victim, slow moves then fast ones, consumed more
        // pages than its erase freed (swarm seeds 70247, 70481, 71406: background GC
        // cleaning for good).
        // Emergency GC (a plane out of room) is always slow: with small blocks the slow
        // pages skipped at a block's end can eat the half block a fast cleaning should
        // gain, and emergency GC then never ends (measured: swarm seeds 84 and 94).
        let victim = self.ftl.addr.block_of(from) as usize;
        let valid = self.ftl.blocks[victim].valid_pages;
        let m = self.mango();
        let whole_victim_fits = *m.fast_cleaning[victim].get_or_insert(2 * valid <= m.fast_per_block);
        let fits = whole_victim_fits && self.ftl.gc_need(plane) != crate::ftl::GcNeed::Emergency;
        if !fast || !fits {
            let c = &mut self.mango().c;
            if fast {
                c.gc_slow_victim_full += 1;
            }
            c.gc_slow_moves += 1;
            return;
        }
        self.mango().c.gc_fast_moves += 1;
        let stream = if self.ftl.gc_through_user { Stream::USER } else { Stream::GC };
        // (GC may open a plane's last free block.)
        self.mango_skip_to_fast(plane, stream, 0, false);
    }

    /// `block_erased`: its skipped pages are free again.
    pub(crate) fn mango_block_erased(&mut self, plane: u32, block: u32) {
        let m = self.mango();
        let skipped = std::mem::take(&mut m.skipped_in_block[block as usize]);
        m.fast_cleaning[block as usize] = None;
        m.skipped_live[plane as usize] -= skipped as u64;
    }

    pub(crate) fn mango_report(&self, report: &mut Report) {
        let Some(m) = self.designs.try_state::<Mango>() else { return };
        let mut c = m.c.clone();
        let skipped = (c.skipped_for_user + c.skipped_for_gc) as f64;
        let passed = skipped + report.flash.programs_by_page_type.iter().sum::<u64>() as f64;
        c.skipped_fraction = if passed > 0.0 { skipped / passed } else { 0.0 };
        report.mango = Some(c);
    }
}

/// Mango (thesis §7.2) and the host's priority bit, from a stream of their own: on drives
/// with no other design, Mango with a random GC mode and capacity limit, its priority from
/// Netbook power modes or from hints on a random share of the requests; on some other
/// drives the power modes alone (statistics only).
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config, records: &mut [ssdlab_trace::Record]) {
    use crate::config::MangoGc;
    use crate::swarm::{pick, plain_page_map};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-mango"));
    let (modes, segment, share) = (rng.random_bool(0.5), rng.random_range(1..=300), rng.random_range(0.05..=1.0));
    // (On drives whose designs Mango composes with: the registry decides, by hooks and
    // claims.)
    // (DIR's baselines, flag presets of the drive, stay outside the draw as they were.)
    let other = !crate::designs::composes_with(c, Mango::NAME)
        || c.cmt.enabled()
        || c.dir.scheme != crate::config::DirScheme::Off
        || c.ftl.user_write_points > 1;
    if other || !rng.random_bool(0.6) {
        if rng.random_bool(0.15) {
            c.priority.power_segment_requests = segment;
        }
        return;
    }
    let mut drawn = plain_page_map(c);
    drawn.ftl.super_page_channels = 1;
    drawn.ftl.super_page_dies = 1;
    drawn.mango.enabled = true;
    drawn.mango.gc = pick(rng, &[MangoGc::Priority, MangoGc::Slow, MangoGc::Fast]);
    drawn.mango.max_skipped_spare_fraction = pick(rng, &[0.05, 0.5, 1.0]);
    drawn.mango.reserve_blocks = rng.random_range(0..=2);
    if drawn.validate().is_err() {
        return;
    }
    *c = drawn;
    if modes {
        c.priority.power_segment_requests = segment;
    } else {
        for r in records.iter_mut() {
            r.hint = rng.random_bool(share).then_some(0).or(r.hint.map(|h| h.max(1)));
        }
    }
}
