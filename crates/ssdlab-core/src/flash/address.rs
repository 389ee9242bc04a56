//! Flat integer addressing. Planes are numbered channel-major
//! (`((channel * chips + chip) * dies + die) * planes + plane`), blocks are numbered
//! globally as `plane * blocks_per_plane + block`, and a physical page number (PPN) is
//! `global_block * pages_per_block + page`. Everything fits in `u32` (validated).

use crate::config::Geometry;

/// Physical page number.
pub type Ppn = u32;
/// Marks "no physical page" in the mapping table and "no logical page" in the reverse map.
pub const NO_PAGE: u32 = u32::MAX;

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
        plane / self.planes_per_die
    }
    pub fn plane_in_die(&self, plane: u32) -> u32 {
        plane % self.planes_per_die
    }
    pub fn chip_of_die(&self, die: u32) -> u32 {
        die / self.dies_per_chip
    }
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die / (self.dies_per_chip * self.chips_per_channel)
    }
    /// Plane number from its coordinates.
    pub fn plane_at(&self, channel: u32, chip: u32, die: u32, plane: u32) -> u32 {
        ((channel * self.chips_per_channel + chip) * self.dies_per_chip + die) * self.planes_per_die + plane
    }

    pub fn block_of(&self, ppn: Ppn) -> u32 {
        ppn / self.pages_per_block
    }
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        ppn % self.pages_per_block
    }
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
    pub fn block_in_plane(&self, block: u32) -> u32 {
        block % self.blocks_per_plane
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
