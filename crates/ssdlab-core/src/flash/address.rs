//! Flat integer addressing. Planes are numbered channel-major
//! (`((channel * chips + chip) * dies + die) * planes + plane`), blocks are numbered
//! globally as `plane * blocks_per_plane + block`, and a physical page number (PPN) is
//! `global_block * pages_per_block + page`. Everything fits in `u32` (validated).

use crate::config::Geometry;

/// Physical page number.
pub type Ppn = u32;
/// Marks "no physical page" in the mapping table and "no logical page" in the reverse map.
pub const NO_PAGE: u32 = u32::MAX;

/// Division of any `u32` by a fixed divisor as a multiply and a shift (Lemire, Kaser and
/// Kurz, "Faster remainder by direct computation", 2019: with c = ceil(2^64 / d), the
/// quotient of n < 2^32 is exactly (c × n) >> 64). The engine converts addresses on
/// every event, and a hardware division takes several times as long as a multiply.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    divisor: u32,
    /// ceil(2^64 / divisor); 0 for divisor 1, whose c does not fit (handled apart).
    multiplier: u64,
}

impl Divisor {
    fn new(divisor: u32) -> Self {
        assert!(divisor > 0, "address dimensions are validated to be positive");
        let multiplier = if divisor == 1 { 0 } else { u64::MAX / divisor as u64 + 1 };
        Divisor { divisor, multiplier }
    }

    fn quotient(self, n: u32) -> u32 {
        if self.divisor == 1 {
            return n;
        }
        ((self.multiplier as u128 * n as u128) >> 64) as u32
    }

    fn remainder(self, n: u32) -> u32 {
        n - self.quotient(n) * self.divisor
    }
}

/// Precomputed sizes for address arithmetic.
#[derive(Clone, Debug)]
pub struct Address {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size_bytes: u32,
    per_block: Divisor,
    per_plane: Divisor,
    per_die: Divisor,
    per_chip: Divisor,
    per_channel: Divisor,
}

impl Address {
    pub fn new(g: &Geometry) -> Self {
        Address {
            channels: g.channels,
            chips_per_channel: g.chips_per_channel,
            dies_per_chip: g.dies_per_chip,
            planes_per_die: g.planes_per_die,
            blocks_per_plane: g.blocks_per_plane,
            pages_per_block: g.pages_per_block,
            page_size_bytes: g.page_size_bytes,
            per_block: Divisor::new(g.pages_per_block),
            per_plane: Divisor::new(g.blocks_per_plane),
            per_die: Divisor::new(g.planes_per_die),
            per_chip: Divisor::new(g.dies_per_chip),
            per_channel: Divisor::new(g.dies_per_chip * g.chips_per_channel),
        }
    }

    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    pub fn pages(&self) -> u64 {
        self.blocks() as u64 * self.pages_per_block as u64
    }

    pub fn die_of_plane(&self, plane: u32) -> u32 {
        self.per_die.quotient(plane)
    }
    pub fn plane_in_die(&self, plane: u32) -> u32 {
        self.per_die.remainder(plane)
    }
    pub fn chip_of_die(&self, die: u32) -> u32 {
        self.per_chip.quotient(die)
    }
    pub fn channel_of_die(&self, die: u32) -> u32 {
        self.per_channel.quotient(die)
    }
    /// Plane number from its coordinates.
    pub fn plane_at(&self, channel: u32, chip: u32, die: u32, plane: u32) -> u32 {
        ((channel * self.chips_per_channel + chip) * self.dies_per_chip + die) * self.planes_per_die + plane
    }

    pub fn block_of(&self, ppn: Ppn) -> u32 {
        self.per_block.quotient(ppn)
    }
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        self.per_block.remainder(ppn)
    }
    pub fn plane_of_block(&self, block: u32) -> u32 {
        self.per_plane.quotient(block)
    }
    pub fn block_in_plane(&self, block: u32) -> u32 {
        self.per_plane.remainder(block)
    }
    pub fn plane_of(&self, ppn: Ppn) -> u32 {
        self.plane_of_block(self.block_of(ppn))
    }
    pub fn ppn(&self, block: u32, page: u32) -> Ppn {
        block * self.pages_per_block + page
    }
    pub fn first_block_of_plane(&self, plane: u32) -> u32 {
        plane * self.blocks_per_plane
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn divisor_matches_hardware_division() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let mut divisors = vec![1, 2, 3, 5, 7, 64, 256, 384, 683, 768, 2048, 12345, 1 << 31, u32::MAX - 1, u32::MAX];
        divisors.extend((0..200).map(|_| rng.random_range(1..=u32::MAX)));
        for d in divisors {
            let div = Divisor::new(d);
            let mut numerators = vec![0, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX];
            numerators.extend((0..2000).map(|_| rng.random::<u32>()));
            for n in numerators {
                assert_eq!(div.quotient(n), n / d, "{n} / {d}");
                assert_eq!(div.remainder(n), n % d, "{n} % {d}");
            }
        }
    }

    #[test]
    fn round_trips() {
        let g = Geometry {
            channels: 3,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 5,
            pages_per_block: 7,
            ..Geometry::default()
        };
        let a = Address::new(&g);
        assert_eq!(a.planes(), 24);
        let p = a.plane_at(2, 1, 0, 1);
        assert_eq!(a.channel_of_die(a.die_of_plane(p)), 2);
        assert_eq!(a.chip_of_die(a.die_of_plane(p)) % 2, 1);
        assert_eq!(a.plane_in_die(p), 1);
        let block = a.first_block_of_plane(p) + 3;
        let ppn = a.ppn(block, 6);
        assert_eq!(a.plane_of(ppn), p);
        assert_eq!(a.page_in_block(ppn), 6);
        assert_eq!(a.block_in_plane(a.block_of(ppn)), 3);
    }
}
