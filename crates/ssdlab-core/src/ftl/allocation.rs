//! PLAlloc (PA §2.1): the choice of channel, chip, die and plane for a written page.
//! Static striping by logical page in a configurable order (CWDP and the other
//! permutations), round-robin by write count in the same order, or dynamic least-busy.
//! At service time (`at-service`) the engine binds writes itself (engine/at_service.rs);
//! `choose` then answers as least-busy, for the writes a power loss finds unbound.
//! Zones confine a range of logical pages (a host flow's) to part of the drive: the same
//! policies, over the zone's planes only (MQSim's flows pinned to channels, chips, dies
//! and planes).

use crate::config::PlaneAllocation;
use crate::flash::Address;

#[derive(Clone, Debug)]
pub struct PlaneAllocator {
    pub kind: PlaneAllocation,
    /// Dimension letters, fastest-varying first.
    order: [u8; 4],
    counter: u64,
    /// Rotating start for least-busy tie breaks, so equal loads spread evenly.
    rotate: u32,
    zones: Vec<Zone>,
    /// Balanced placement: how far above the emptiest plane a plane's valid data may be
    /// and the plane still be taken (`balance_for`: without slack busy dies could be
    /// skipped only once a round).
    pub balance_slack: u64,
}

/// Logical pages `first..end` live on the planes of the given channels, chips, dies and
/// planes (their cartesian product; an empty list is every one).
#[derive(Clone, Debug)]
pub struct Zone {
    pub first: u32,
    pub end: u32,
    /// The zone's planes in striping order: page `first + i` goes to `planes[i % len]`.
    planes: Vec<u32>,
    counter: u64,
    rotate: u32,
}

impl PlaneAllocator {
    pub fn new(kind: PlaneAllocation, order: &str) -> Self {
        let mut letters = [0u8; 4];
        letters.copy_from_slice(&order.as_bytes()[..4]);
        PlaneAllocator { kind, order: letters, counter: 0, rotate: 0, zones: Vec::new(), balance_slack: 0 }
    }

    /// Balanced placement's tolerance for a drive: a block's worth of mapping units, or
    /// 1% of a plane's when that is more. (One block alone was less than the fill leaves
    /// between planes on the Harey Tortoise's drive, 230 pages of 52,000 measured: bursts
    /// then went to the two emptiest dies only, at a third of round-robin's bandwidth.)
    pub fn balance_for(&mut self, addr: &Address, units_per_page: u32) {
        let plane_pages = addr.blocks_per_plane as u64 * addr.pages_per_block as u64;
        self.balance_slack = (addr.pages_per_block as u64).max(plane_pages / 100) * units_per_page as u64;
    }

    /// Confines logical pages `first..end` to the product of `lists` (channels, chips,
    /// dies, planes within a die; empty = all), striped in the allocator's order.
    pub fn add_zone(&mut self, addr: &Address, first: u32, end: u32, lists: [&[u32]; 4]) {
        let sizes = [addr.channels, addr.chips_per_channel, addr.dies_per_chip, addr.planes_per_die];
        let ids: Vec<Vec<u32>> =
            (0..4).map(|d| if lists[d].is_empty() { (0..sizes[d]).collect() } else { lists[d].to_vec() }).collect();
        let count: usize = ids.iter().map(Vec::len).product();
        let planes = (0..count as u64)
            .map(|index| {
                let mut slot = [0u32; 4];
                let mut rest = index;
                for letter in self.order {
                    let d = match letter {
                        b'c' => 0,
                        b'w' => 1,
                        b'd' => 2,
                        _ => 3,
                    };
                    slot[d] = ids[d][(rest % ids[d].len() as u64) as usize];
                    rest /= ids[d].len() as u64;
                }
                addr.plane_at(slot[0], slot[1], slot[2], slot[3])
            })
            .collect();
        self.zones.push(Zone { first, end, planes, counter: 0, rotate: 0 });
    }

    fn zone_of(&self, lpn: u32) -> Option<usize> {
        if self.zones.is_empty() {
            return None;
        }
        self.zones.iter().position(|z| (z.first..z.end).contains(&lpn))
    }

    pub fn has_zones(&self) -> bool {
        !self.zones.is_empty()
    }

    /// The plane static striping gives `lpn` (within its zone, if it has one).
    pub fn home(&self, addr: &Address, lpn: u32) -> u32 {
        match self.zone_of(lpn) {
            Some(z) => {
                let z = &self.zones[z];
                z.planes[((lpn - z.first) as usize) % z.planes.len()]
            }
            None => self.striped(addr, lpn as u64),
        }
    }

    /// Plane of the `index`-th stripe unit under the configured order.
    pub fn striped(&self, addr: &Address, index: u64) -> u32 {
        let (mut channel, mut chip, mut die, mut plane) = (0, 0, 0, 0);
        let mut rest = index;
        for letter in self.order {
            let (size, slot) = match letter {
                b'c' => (addr.channels, &mut channel),
                b'w' => (addr.chips_per_channel, &mut chip),
                b'd' => (addr.dies_per_chip, &mut die),
                _ => (addr.planes_per_die, &mut plane),
            };
            *slot = (rest % size as u64) as u32;
            rest /= size as u64;
        }
        addr.plane_at(channel, chip, die, plane)
    }

    /// Chooses the plane for a user write of `lpn`. `die_load(die)` gives the number of
    /// transactions queued at a die (least-busy and balanced ask); `writable(plane)` says
    /// whether a plane can take writes without emergency GC; `valid(plane)` gives the
    /// valid data a plane holds (balanced asks). The dynamic policies skip planes that
    /// are not writable when another is, so that uneven placement cannot fill one plane
    /// with valid data while others have room (static placement is bounded by design).
    pub fn choose(
        &mut self,
        addr: &Address,
        lpn: u32,
        die_load: impl Fn(u32) -> usize,
        writable: impl Fn(u32) -> bool,
        valid: impl Fn(u32) -> u64,
    ) -> u32 {
        if self.kind == PlaneAllocation::Static {
            return self.home(addr, lpn);
        }
        // The candidates, in striping order, and the rotation state they advance.
        let zone = self.zone_of(lpn);
        let (count, mut counter, mut rotate) = match zone {
            Some(z) => (self.zones[z].planes.len() as u64, self.zones[z].counter, self.zones[z].rotate),
            None => (addr.planes() as u64, self.counter, self.rotate),
        };
        let at = |i: u64| match zone {
            Some(z) => self.zones[z].planes[(i % count) as usize],
            None => self.striped(addr, i),
        };
        let chosen = if self.kind == PlaneAllocation::RoundRobin {
            let mut chosen = at(counter);
            for k in 0..count {
                let plane = at(counter + k);
                if writable(plane) {
                    chosen = plane;
                    counter += k;
                    break;
                }
            }
            counter += 1;
            chosen
        } else if self.kind == PlaneAllocation::Balanced {
            // More than the slack above the emptiest plane: skipped, so the spread of valid
            // data stays within the slack (plus a page).
            let least = (0..count).map(|i| valid(at(i))).min().unwrap_or(0);
            let limit = least + self.balance_slack;
            let mut best: Option<((bool, bool, usize), u64)> = None;
            for k in 0..count {
                let plane = at(counter + k);
                let above = valid(plane) > limit;
                let key = (!writable(plane), above, die_load(addr.die_of_plane(plane)));
                if best.is_none_or(|(b, _)| key < b) {
                    best = Some((key, k));
                    if key == (false, false, 0) {
                        // The first idle plane in turn: nothing ranks higher.
                        break;
                    }
                }
            }
            let (_, k) = best.expect("at least one candidate plane");
            let chosen = at(counter + k);
            counter += k + 1;
            chosen
        } else {
            // Least busy.
            let mut best = (true, usize::MAX, 0);
            for i in 0..count {
                let plane = at((i + rotate as u64) % count);
                let key = (!writable(plane), die_load(addr.die_of_plane(plane)), plane);
                if (key.0, key.1) < (best.0, best.1) {
                    best = key;
                }
            }
            rotate = ((rotate as u64 + 1) % count) as u32;
            best.2
        };
        match zone {
            Some(z) => (self.zones[z].counter, self.zones[z].rotate) = (counter, rotate),
            None => (self.counter, self.rotate) = (counter, rotate),
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Geometry;

    fn addr() -> Address {
        Address::new(&Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 2,
            ..Geometry::default()
        })
    }

    #[test]
    fn cwdp_varies_channel_first() {
        let a = addr();
        let p = PlaneAllocator::new(PlaneAllocation::Static, "cwdp");
        let planes: Vec<u32> = (0..4).map(|i| p.striped(&a, i)).collect();
        assert_eq!(
            planes,
            vec![a.plane_at(0, 0, 0, 0), a.plane_at(1, 0, 0, 0), a.plane_at(0, 1, 0, 0), a.plane_at(1, 1, 0, 0)]
        );
        let all: std::collections::BTreeSet<u32> = (0..16).map(|i| p.striped(&a, i)).collect();
        assert_eq!(all.len(), 16, "16 consecutive pages cover all planes");
    }

    #[test]
    fn pdwc_varies_plane_first() {
        let a = addr();
        let p = PlaneAllocator::new(PlaneAllocation::Static, "pdwc");
        assert_eq!(p.striped(&a, 1), a.plane_at(0, 0, 0, 1));
        assert_eq!(p.striped(&a, 2), a.plane_at(0, 0, 1, 0));
    }

    #[test]
    fn least_busy_picks_idle_die() {
        let a = addr();
        let mut p = PlaneAllocator::new(PlaneAllocation::LeastBusy, "cwdp");
        let target_die = 5;
        let plane = p.choose(&a, 0, |die| if die == target_die { 0 } else { 3 }, |_| true, |_| 0);
        assert_eq!(a.die_of_plane(plane), target_die);
    }

    #[test]
    fn balanced_goes_round_robin_when_idle_and_even() {
        let a = addr();
        let mut p = PlaneAllocator::new(PlaneAllocation::Balanced, "cwdp");
        let planes: Vec<u32> = (0..32).map(|lpn| p.choose(&a, lpn, |_| 0, |_| true, |_| 7)).collect();
        let rr: Vec<u32> = (0..32).map(|i| p.striped(&a, i)).collect();
        assert_eq!(planes, rr);
    }

    #[test]
    fn balanced_skips_busy_dies_and_planes_beyond_the_slack() {
        let a = addr();
        let mut p = PlaneAllocator::new(PlaneAllocation::Balanced, "cwdp");
        p.balance_slack = 8;
        // In turn the first plane is striped(0): its die is busy; the next holds more than
        // the slack beyond the emptiest plane; the third is idle and within it.
        let (p0, p1, p2) = (p.striped(&a, 0), p.striped(&a, 1), p.striped(&a, 2));
        let busy = a.die_of_plane(p0);
        let load = |die: u32| usize::from(die == busy);
        let valid = |plane: u32| if plane == p1 { 19 } else { 10 };
        assert_eq!(p.choose(&a, 0, load, |_| true, valid), p2);
        // Within the slack (18 ≤ 10 + 8) a fuller plane is taken in turn.
        let mut s = PlaneAllocator::new(PlaneAllocation::Balanced, "cwdp");
        s.balance_slack = 8;
        let valid = |plane: u32| if plane == p0 { 18 } else { 10 };
        assert_eq!(s.choose(&a, 0, |_| 0, |_| true, valid), p0);
        // The cursor moved past the chosen plane.
        assert_eq!(p.choose(&a, 1, |_| 0, |_| true, |_| 10), p.striped(&a, 3));
        // Every die busy: the least busy plane, even far behind the cursor.
        let mut q = PlaneAllocator::new(PlaneAllocation::Balanced, "cwdp");
        let light = a.die_of_plane(p.striped(&a, 9));
        let load = |die: u32| if die == light { 1 } else { 4 };
        assert_eq!(a.die_of_plane(q.choose(&a, 0, load, |_| true, |_| 5)), light);
        // A plane beyond the slack is never taken while another can be, however busy that
        // one is.
        let mut r = PlaneAllocator::new(PlaneAllocation::Balanced, "cwdp");
        let low = p.striped(&a, 5);
        let valid = |plane: u32| if plane == low { 0 } else { 50 };
        let load = |die: u32| if die == a.die_of_plane(low) { 9 } else { 0 };
        assert_eq!(r.choose(&a, 0, load, |_| true, valid), low);
    }

    #[test]
    fn zones_confine_their_pages_to_their_planes() {
        let a = addr();
        for kind in [
            PlaneAllocation::Static,
            PlaneAllocation::RoundRobin,
            PlaneAllocation::LeastBusy,
            PlaneAllocation::Balanced,
        ] {
            let mut p = PlaneAllocator::new(kind, "cwdp");
            // Pages 100..200 on channel 1, chip 0, both dies, plane 1 only.
            p.add_zone(&a, 100, 200, [&[1], &[0], &[], &[1]]);
            let inside: std::collections::BTreeSet<u32> =
                (100..200).map(|lpn| p.choose(&a, lpn, |_| 0, |_| true, |_| 0)).collect();
            assert_eq!(inside, [a.plane_at(1, 0, 0, 1), a.plane_at(1, 0, 1, 1)].into_iter().collect(), "{kind:?}");
            // Static striping inside the zone follows the order: the die varies first here.
            if kind == PlaneAllocation::Static {
                assert_eq!(p.home(&a, 100), a.plane_at(1, 0, 0, 1));
                assert_eq!(p.home(&a, 101), a.plane_at(1, 0, 1, 1));
            }
            // Pages outside keep the whole drive.
            let outside: std::collections::BTreeSet<u32> =
                (0..64).map(|lpn| p.choose(&a, lpn, |_| 0, |_| true, |_| 0)).collect();
            assert_eq!(outside.len(), 16, "{kind:?}");
        }
    }
}
