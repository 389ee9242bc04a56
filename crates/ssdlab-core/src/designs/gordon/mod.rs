//! Gordon's FTL (thesis Ch. 5, §5.1): a fixed number of write points per channel (bus),
//! each with its own sequence number.
//!
//! A write point is one open location: it takes user writes on one die of its channel
//! (the die's planes in turn, so two writes can share a multi-plane program) until a
//! block's worth of pages per plane went there, then moves on to the next die of its
//! channel assigned to it (the channel's dies dealt round-robin over its write points)
//! and takes the next sequence number. A write point is a serial resource: with one per
//! channel at most one program per channel is in flight, which is the limit §5.1 lifts
//! ("increasing the number of write points per 133MHz bus from 1 to 4 increases write
//! bandwidth by 2.8×").
//!
//! The sequence-number invariant (§5.1): once a logical page was written through a write
//! point whose sequence number was s, its later writes go to a write point whose number is
//! at least s (the same one, or a later one), so that recovery's newest copy is the one
//! with the largest number. Among the write points allowed, a write takes the one whose
//! die has the least queued work (the thesis: "while also balancing load across the
//! buses"), the smallest sequence number breaking ties (the thesis: "selects the write
//! point with the smallest sequence number that can accept data"). That the load comes
//! first is our reading: with the number first, writes would pile onto one write point
//! and §5.1's parallelism could not appear.
//!
//! Counting placements rather than programmed pages to move on is ours: a write point
//! moves when a block's worth was queued, whatever the plane's open block held before.
//! GC keeps the FTL's per-plane GC write points (Chapter 5 says nothing of GC).

pub mod config;

use super::{BuiltIn, Design, Hook, MoveTarget};
use crate::config::Config;
use crate::engine::{Simulator, TxnKind, NO_REQUEST};
use crate::ftl::{Ftl, WriteMode};
use crate::stats::{GordonSummary, Report};

struct WritePoint {
    /// The dies it writes, in turn (FTL view: a super-page gang is one die).
    dies: Vec<u32>,
    at: usize,
    /// Writes placed on the current die.
    placed: u32,
    seq: u32,
    /// The plane of the current die the next write takes.
    next_plane: u32,
}

impl WritePoint {
    /// The plane of its die the next write takes (the die's planes in turn).
    fn take_plane(&mut self, planes_per_die: u32) -> u32 {
        let plane = self.dies[self.at] * planes_per_die + self.next_plane;
        self.next_plane = (self.next_plane + 1) % planes_per_die;
        plane
    }
}

pub(crate) struct Gordon {
    points: Vec<WritePoint>,
    /// The sequence number of the write point each logical page was last written through
    /// (0: never).
    lpn_seq: Vec<u32>,
    next_seq: u32,
    /// Writes per die before a write point moves on: a block per plane.
    per_die: u32,
    planes_per_die: u32,
    placed: u64,
    /// Writes whose least-loaded write point was not allowed (its number too small).
    constrained: u64,
    moves: u64,
    /// Queued writes a moving write point took along.
    carried: u64,
}

impl Gordon {
    pub(crate) fn new(per_channel: u32, addr: &crate::flash::Address, logical_pages: u32) -> Self {
        let dies_per_channel = addr.chips_per_channel * addr.dies_per_chip;
        let mut points = Vec::new();
        let mut next_seq = 1;
        for channel in 0..addr.channels {
            for slot in 0..per_channel {
                let dies: Vec<u32> = (slot..dies_per_channel)
                    .step_by(per_channel as usize)
                    .map(|d| channel * dies_per_channel + d)
                    .collect();
                points.push(WritePoint { dies, at: 0, placed: 0, seq: next_seq, next_plane: 0 });
                next_seq += 1;
            }
        }
        Gordon {
            points,
            lpn_seq: vec![0; logical_pages as usize],
            next_seq,
            per_die: addr.pages_per_block * addr.planes_per_die,
            planes_per_die: addr.planes_per_die,
            placed: 0,
            constrained: 0,
            moves: 0,
            carried: 0,
        }
    }

    /// The write point a write of a page last written under `min_seq` takes, given each
    /// die's queued work: the least loaded allowed one, the smallest number on ties.
    /// Also whether the least loaded one overall had to be passed over.
    fn choose(&self, min_seq: u32, load: impl Fn(u32) -> usize) -> (usize, bool) {
        let key = |w: &WritePoint| (load(w.dies[w.at]), w.seq);
        let best = (0..self.points.len()).min_by_key(|&i| key(&self.points[i])).expect("write points");
        if self.points[best].seq >= min_seq {
            return (best, false);
        }
        let allowed = (0..self.points.len())
            .filter(|&i| self.points[i].seq >= min_seq)
            .min_by_key(|&i| key(&self.points[i]))
            .expect("the write point that wrote the page is allowed: numbers only grow");
        (allowed, true)
    }

    /// Records a write through point `i`; returns the plane it goes to, and the die the
    /// point left if it moved on first.
    fn place(&mut self, i: usize, lpn: u32) -> (u32, Option<u32>) {
        let planes = self.planes_per_die;
        let w = &mut self.points[i];
        let mut left = None;
        if w.placed >= self.per_die {
            left = Some(w.dies[w.at]);
            w.placed = 0;
            w.next_plane = 0;
            w.at = (w.at + 1) % w.dies.len();
            w.seq = self.next_seq;
            self.next_seq += 1;
            self.moves += 1;
        }
        let plane = w.take_plane(planes);
        w.placed += 1;
        if let Some(s) = self.lpn_seq.get_mut(lpn as usize) {
            *s = w.seq;
        }
        self.placed += 1;
        (plane, left)
    }

    /// The next plane of point `i`'s die, for a write it carries along.
    fn carry(&mut self, i: usize) -> u32 {
        self.points[i].take_plane(self.planes_per_die)
    }
}

impl Design for Gordon {
    const NAME: &'static str = "gordon";
    const HOOKS: &'static [Hook] = &[Hook::PlaceWrite, Hook::GcMoveTarget, Hook::Report];
    const NEEDS: &'static [super::Need] =
        &[super::Need::NoSlcBlocks, super::Need::PfHybridAllocation, super::Need::NoFlows];

    fn place_write(sim: &mut Simulator<'_>, _static_plane: u32, _request: u32, lpn: u32) -> (u32, WriteMode) {
        (sim.gordon_place_write(lpn), WriteMode::Auto)
    }

    fn gc_move_target(_sim: &Simulator<'_>, _plane: u32) -> MoveTarget {
        MoveTarget::SamePlane
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.gordon = sim.gordon_summary();
    }
}

impl BuiltIn for Gordon {
    const SECTION: &'static str = "gordon";
    const KEY: &'static str = "gordon.write_points_per_channel";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::GordonConfig>()
    }

    const SWARM_PHASE: crate::swarm::SwarmPhase = crate::swarm::SwarmPhase::AfterHost;

    fn swarm_draw(seed: u64, config: &mut Config, _records: &mut Vec<ssdlab_trace::Record>) {
        swarm_draw(seed, config);
    }

    fn selected(config: &Config) -> bool {
        config.gordon.enabled()
    }

    fn build(config: &Config, ftl: &Ftl) -> Self {
        Gordon::new(config.gordon.write_points_per_channel, &ftl.addr, ftl.logical_pages)
    }
}

impl Simulator<'_> {
    /// `place_write`: the plane of the write point this write of `lpn` takes. A write
    /// point that moves on takes the user writes still queued at the die it leaves along
    /// (they waited at the write point, not at a die): it never has two dies at work, and
    /// under a backlog its blocks still spread over its dies.
    pub(crate) fn gordon_place_write(&mut self, lpn: u32) -> u32 {
        let dies = &self.dies;
        let load = |d: u32| dies[d as usize].load();
        let g = self.designs.state_mut::<Gordon>();
        let min_seq = g.lpn_seq.get(lpn as usize).copied().unwrap_or(0);
        let (i, constrained) = g.choose(min_seq, load);
        g.constrained += constrained as u64;
        let (plane, left) = g.place(i, lpn);
        match left {
            Some(old) if old != self.ftl.addr.die_of_plane(plane) => self.gordon_carry_writes(i, old),
            _ => {}
        }
        plane
    }

    /// Moves the user writes queued at `die` (not yet programmed) to write point `i`'s
    /// new die.
    fn gordon_carry_writes(&mut self, i: usize, die: u32) {
        let queue = std::mem::take(&mut self.dies[die as usize].writes);
        let (carry, kept): (std::collections::VecDeque<u32>, std::collections::VecDeque<u32>) =
            queue.into_iter().partition(|&t| {
                let txn = &self.txns[t as usize];
                txn.kind == TxnKind::Write && txn.request != NO_REQUEST && txn.mode == WriteMode::Auto
            });
        self.dies[die as usize].writes = kept;
        let g = self.designs.state_mut::<Gordon>();
        g.carried += carry.len() as u64;
        let planes: Vec<u32> = carry.iter().map(|_| g.carry(i)).collect();
        for (&t, plane) in carry.iter().zip(planes) {
            self.requeue_write(t, plane);
        }
    }

    pub(crate) fn gordon_summary(&self) -> Option<GordonSummary> {
        let g = self.designs.try_state::<Gordon>()?;
        Some(GordonSummary {
            write_points: g.points.len() as u32,
            write_points_per_channel: self.config.gordon.write_points_per_channel,
            writes_placed: g.placed,
            constrained_writes: g.constrained,
            write_point_moves: g.moves,
            carried_writes: g.carried,
        })
    }
}

/// Gordon's FTL (thesis Ch. 5), from a stream of its own: write points per channel, read
/// bypassing and write combining, each kept only where the drive allows it.
pub(crate) fn swarm_draw(seed: u64, c: &mut crate::config::Config) {
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    let rng = &mut Pcg64Mcg::seed_from_u64(crate::rng::derive(seed, "swarm-gordon"));
    if !rng.random_bool(0.5) {
        return;
    }
    let mut drawn = c.clone();
    let per_channel = c.geometry.chips_per_channel * c.geometry.dies_per_chip / c.ftl.super_page_dies.max(1);
    drawn.gordon.write_points_per_channel = rng.random_range(0..=per_channel.max(1));
    drawn.ftl.read_bypass = rng.random_bool(0.5);
    drawn.ftl.write_combining = rng.random_bool(0.5);
    if drawn.validate().is_ok() {
        *c = drawn;
        return;
    }
    // Combining needs program acknowledgement and no cache: keep the rest.
    drawn.ftl.write_combining = false;
    if drawn.validate().is_ok() {
        *c = drawn;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Geometry;

    fn addr(channels: u32, dies: u32) -> crate::flash::Address {
        let g = Geometry {
            channels,
            chips_per_channel: 1,
            dies_per_chip: dies,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_size_bytes: 4096,
            subpages_per_page: 1,
        };
        crate::flash::Address::new(&g)
    }

    #[test]
    fn write_points_deal_a_channels_dies_and_move_on_after_a_block_per_plane() {
        let mut g = Gordon::new(2, &addr(2, 4), 100);
        assert_eq!(g.points[0].dies, vec![0, 2]);
        assert_eq!(g.points[1].dies, vec![1, 3]);
        assert_eq!(g.points[2].dies, vec![4, 6]);
        // 4 pages per block x 2 planes on die 0, planes alternating, then die 2.
        let placed: Vec<(u32, Option<u32>)> = (0..9).map(|k| g.place(0, k)).collect();
        let planes: Vec<u32> = placed.iter().map(|p| p.0).collect();
        assert_eq!(planes, vec![0, 1, 0, 1, 0, 1, 0, 1, 4]);
        assert_eq!(placed[8].1, Some(0), "left die 0");
        assert!(placed[..8].iter().all(|p| p.1.is_none()));
        assert_eq!(g.points[0].seq, 5, "four initial numbers, then the first move");
        assert_eq!((g.carry(0), g.carry(0)), (5, 4), "carried writes continue the planes in turn");
    }

    #[test]
    fn a_page_never_goes_to_a_write_point_older_than_its_last() {
        let mut g = Gordon::new(2, &addr(1, 2), 100);
        // Page 7 written through point 1 after point 1 moved on (number 3).
        for k in 0..8 {
            g.place(1, 10 + k);
        }
        g.place(1, 7);
        assert_eq!(g.lpn_seq[7], 3);
        // Point 0 (number 1) is idle, point 1 busy: page 7 must still take point 1.
        let load = |d: u32| if d == 1 { 5 } else { 0 };
        assert_eq!(g.choose(g.lpn_seq[7], load), (1, true));
        // A page never written takes the idle point.
        assert_eq!(g.choose(0, load), (0, false));
    }
}
