//! Write points by stream, looked at without taking a page: the next page a user write,
//! a user write point or an SLC level would get (multi-plane programs need equal
//! addresses in every plane), and whether a design's SLC level can take a write.

use super::{Allocated, Ftl, Stream};
use crate::flash::NO_PAGE;

impl Ftl {
    /// The (block-in-plane, page) a user write in `plane` would get next, without taking
    /// it: multi-plane commands need equal addresses in every plane (DIR §2.3).
    pub fn peek_user(&self, plane: u32) -> Option<(u32, u32)> {
        let p = &self.planes[plane as usize];
        if self.user_write_points == 1 && self.slc_blocks[plane as usize] == 0 {
            // The usual drive (one user write point, no SLC blocks): the loop below for
            // its one stream, without choosing a stream (at-service allocation asks about
            // 1.2M times in SSDSim's example trace replayed 30 times).
            let b = p.active[Stream::USER.index()];
            if b != NO_PAGE {
                let next = self.blocks[b as usize].write_ptr;
                if next < self.pages_in_block(b) {
                    return Some((self.addr.block_in_plane(b), next));
                }
            }
            return (p.free.len() > 1).then(|| (self.addr.block_in_plane(p.free[0]), 0));
        }
        let user = self.user_stream(plane, 1);
        let both = [(Stream::SLC, 0), (user, 1)];
        let streams: &[(Stream, usize)] = if self.slc_blocks[plane as usize] > 0 { &both } else { &both[1..] };
        for &(stream, reserve) in streams {
            if self.active_room(plane, stream) > 0 {
                let b = p.active[stream.index()];
                return Some((self.addr.block_in_plane(b), self.blocks[b as usize].write_ptr));
            }
            let pool = if stream == Stream::SLC { &p.free_slc } else { &p.free };
            if pool.len() > reserve {
                return Some((self.addr.block_in_plane(pool[0]), 0));
            }
        }
        None
    }

    /// The (block-in-plane, page) user write point `k` of `plane` would program next, as
    /// `peek_user` for the FTL's own choice of write point.
    pub fn peek_user_point(&self, plane: u32, k: u32) -> Option<(u32, u32)> {
        let p = &self.planes[plane as usize];
        let stream = Stream::user(k);
        if self.active_room(plane, stream) > 0 {
            let b = p.active[stream.index()];
            return Some((self.addr.block_in_plane(b), self.blocks[b as usize].write_ptr));
        }
        (p.free.len() > 1).then(|| (self.addr.block_in_plane(p.free[0]), 0))
    }

    /// The page user write point `k` of `plane` programs next (0: the first page of a
    /// block it would open), or `None` if it cannot take one: its block is full and no
    /// more than `reserve` free blocks remain. A design choosing write points by the type
    /// of their next page asks (Harey Tortoise, thesis §7.3.1).
    pub fn user_point_next_page(&self, plane: u32, k: u32, reserve: usize) -> Option<u32> {
        let stream = Stream::user(k);
        if self.active_room(plane, stream) > 0 {
            let block = self.planes[plane as usize].active[stream.index()];
            return Some(self.blocks[block as usize].write_ptr);
        }
        (self.planes[plane as usize].free.len() > reserve).then_some(0)
    }

    /// The (block-in-plane, page) SLC level `level` of `plane` would program next, as
    /// `peek_user_point` for a design's SLC stream (`WriteMode::SlcLevel`).
    pub fn peek_slc_level(&self, plane: u32, level: u32) -> Option<(u32, u32)> {
        let p = &self.planes[plane as usize];
        let stream = self.slc_stream(level);
        if self.active_room(plane, stream) > 0 {
            let b = p.active[stream.index()];
            return Some((self.addr.block_in_plane(b), self.blocks[b as usize].write_ptr));
        }
        p.free_slc.front().map(|&b| (self.addr.block_in_plane(b), 0))
    }

    /// Takes the next page of SLC level `level` of `plane` for a user write, opening any
    /// free SLC-mode block (its room was checked: `peek_slc_level`).
    pub fn allocate_slc_level(&mut self, plane: u32, level: u32, now_ns: u64) -> Option<Allocated> {
        self.allocate_slc(plane, level, now_ns, 0)
    }
}
