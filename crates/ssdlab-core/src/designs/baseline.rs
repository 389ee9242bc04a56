//! The conventional FTL's own choices where a design would make them: today, where GC
//! moves valid pages (`ftl.gc_destination`).

use super::MoveTarget;
use crate::config::GcDestination;
use crate::engine::Simulator;
use crate::ftl::GcNeed;

impl Simulator<'_> {
    /// `ftl.gc_destination`: the same plane, or a plane of another chip whose die has the
    /// least queued work (ties: lowest plane number) among the planes with free blocks to
    /// spare and no emergency GC of their own. Falls back to the same plane.
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
