//! PLAlloc (PA §2.1): the choice of channel, chip, die and plane for a written page.
//! Static striping by logical page in a configurable order (CWDP and the other
//! permutations), round-robin by write count in the same order, or dynamic least-busy.

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
}

impl PlaneAllocator {
    pub fn new(kind: PlaneAllocation, order: &str) -> Self {
        let mut letters = [0u8; 4];
        letters.copy_from_slice(&order.as_bytes()[..4]);
        PlaneAllocator { kind, order: letters, counter: 0, rotate: 0 }
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
    /// transactions queued at a die (only least-busy asks); `writable(plane)` says whether
    /// a plane can take writes without emergency GC. The dynamic policies skip planes that
    /// are not writable when another is, so that uneven placement cannot fill one plane
    /// with valid data while others have room (static placement is bounded by design).
    pub fn choose(
        &mut self,
        addr: &Address,
        lpn: u32,
        die_load: impl Fn(u32) -> usize,
        writable: impl Fn(u32) -> bool,
    ) -> u32 {
        match self.kind {
            PlaneAllocation::Static => self.striped(addr, lpn as u64),
            PlaneAllocation::RoundRobin => {
                let planes = addr.planes() as u64;
                let first = self.striped(addr, self.counter);
                let mut chosen = first;
                for k in 0..planes {
                    let plane = self.striped(addr, self.counter + k);
                    if writable(plane) {
                        chosen = plane;
                        self.counter += k;
                        break;
                    }
                }
                self.counter += 1;
                chosen
            }
            PlaneAllocation::LeastBusy => {
                let planes = addr.planes();
                let mut best = (true, usize::MAX, 0);
                for i in 0..planes {
                    let plane = self.striped(addr, ((i + self.rotate) % planes) as u64);
                    let key = (!writable(plane), die_load(addr.die_of_plane(plane)), plane);
                    if (key.0, key.1) < (best.0, best.1) {
                        best = key;
                    }
                }
                self.rotate = (self.rotate + 1) % planes;
                best.2
            }
        }
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
        let plane = p.choose(&a, 0, |die| if die == target_die { 0 } else { 3 }, |_| true);
        assert_eq!(a.die_of_plane(plane), target_die);
    }
}
