//! The conventional FTL's own choices where a design would make them: where GC moves
//! valid pages (`ftl.gc_destination`, and inside the SLC cache `ftl.slc_gc_destination`);
//! zone commands refused on a drive without a zoned namespace.

use super::MoveTarget;
use crate::config::{GcDestination, SlcGcDestination};
use crate::engine::Simulator;
use crate::flash::Ppn;
use crate::ftl::{Allocated, GcNeed};

impl Simulator<'_> {
    /// `ftl.gc_destination`: the same plane, or a plane of another chip whose die has the
    /// least queued work (ties: lowest plane number) among the planes with free blocks to
    /// spare and no emergency GC of their own. Falls back to the same plane.
    /// GC's destination for the page `from`: the plane's GC write point (out of the SLC
    /// cache), or for a page of an SLC-mode block, by `ftl.slc_gc_destination`, a page of
    /// its own or the next SLC level while that level's open block has room or a free SLC
    /// block is left to open, else the GC write point. (GC of the cache starts when one
    /// free SLC block is left, so a level may take it; user writes then go to normal
    /// blocks until the victim's erase frees one.)
    pub(crate) fn baseline_gc_page(&mut self, plane: u32, from: Ppn) -> Option<Allocated> {
        let block = &self.ftl.blocks[self.ftl.addr.block_of(from) as usize];
        if block.slc {
            let top = self.ftl.slc_levels - 1;
            let level = match self.config.ftl.slc_gc_destination {
                SlcGcDestination::OutOfCache => None,
                SlcGcDestination::SameLevel => Some(block.slc_level as u32),
                SlcGcDestination::NextLevel => Some((block.slc_level as u32 + 1).min(top)),
            };
            if let Some(a) = level.and_then(|l| self.ftl.allocate_slc(plane, l, self.now, 0)) {
                return Some(a);
            }
        }
        self.ftl.allocate_gc(plane, self.now)
    }

    pub(crate) fn baseline_gc_move_target(&self, plane: u32) -> MoveTarget {
        if self.config.ftl.gc_destination == GcDestination::SamePlane {
            return MoveTarget::SamePlane;
        }
        let a = &self.ftl.addr;
        let chip = a.chip_of_die(a.die_of_plane(plane));
        let load = |p: u32| {
            let d = &self.dies[a.die_of_plane(p) as usize];
            d.reads.len() + d.writes.len() + usize::from(d.busy)
        };
        (0..a.planes())
            .filter(|&p| a.chip_of_die(a.die_of_plane(p)) != chip)
            .filter(|&p| {
                self.ftl.free_blocks(p) > self.ftl.emergency_free_blocks + 1 && self.ftl.gc_need(p) != GcNeed::Emergency
            })
            .min_by_key(|&p| (load(p), p))
            .map_or(MoveTarget::SamePlane, MoveTarget::Plane)
    }
}

impl Simulator<'_> {
    /// A drive without a zoned namespace refuses zone commands (Zone Append, Zone
    /// Management Send): the workload was made for a zoned drive, and an error naming
    /// the request says so rather than writing its data somewhere.
    #[inline]
    pub(crate) fn refuse_zone_command(&mut self, slot: u32) -> Result<bool, crate::engine::SimError> {
        let r = &self.requests[slot as usize];
        if !matches!(r.op, ssdlab_trace::Op::ZoneAppend | ssdlab_trace::Op::ZoneManagement(_)) {
            return Ok(false);
        }
        Err(self.zone_command_refused(slot))
    }

    /// `refuse_zone_command`'s error, out of the per-request path.
    #[cold]
    #[inline(never)]
    fn zone_command_refused(&self, slot: u32) -> crate::engine::SimError {
        let r = &self.requests[slot as usize];
        crate::engine::SimError::Request {
            id: r.id,
            op: r.op.name(),
            offset: r.offset_bytes,
            message: "is a zone command, and the drive has no zoned namespace ([designs.zns] enabled = true)"
                .to_string(),
        }
    }
}
