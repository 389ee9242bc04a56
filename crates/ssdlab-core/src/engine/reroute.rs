//! What an idle die with nothing to start does: the scheduler's quick test for a die
//! with no work at all, and the rerouting of writes stuck at a full plane.

use super::*;
use crate::designs::Hook;

impl Simulator<'_> {
    /// Whether `die` has no work but GC: its queues are empty and no design or at-service
    /// binding may offer work. With no plane wanting GC either, `schedule_die` would find
    /// nothing to start and change nothing but the die's `gc_starved` flag. A freed
    /// chip's dies are offered the chip up to twice each (chip-serial dies,
    /// `schedule_freed`), most of them with nothing to do; the full path cost about 250
    /// instructions a time (issue 48).
    #[inline]
    pub(crate) fn no_queued_work(&self, die: u32) -> bool {
        let d = &self.dies[die as usize];
        d.reads.is_empty()
            && d.writes.is_empty()
            && self.moves_in[die as usize].is_empty()
            && self.at_service.is_none()
            && !self.designs.implemented(Hook::DieWork)
            && !self.designs.implemented(Hook::IdleWork)
    }

    /// Called on an idle die that could start nothing. A queued write whose plane cannot
    /// take it is then stuck: its plane is in emergency GC (a user write never takes the
    /// last free block) and GC found nothing worth cleaning, so only invalidations from
    /// elsewhere could free room, and the rest of the workload need not bring any. With
    /// dynamic allocation a plane can fill up with valid data this way (nothing bounds a
    /// plane's share of it); a controller then writes elsewhere, and so does this one:
    /// each stuck write goes to the plane with the most room left after the writes
    /// already queued for it (so that a crowd of stuck writes does not swamp one plane
    /// and bounce on), preferring planes not in emergency GC.
    #[inline(never)]
    pub(crate) fn reroute_stuck_writes(&mut self, die: u32) -> Result<(), SimError> {
        let stuck = |s: &Self, t: u32| s.txns[t as usize].kind == TxnKind::Write && !s.write_has_room(t);
        if !self.dies[die as usize].writes.iter().any(|&t| stuck(self, t)) {
            return Ok(());
        }
        // Room per plane: pages user writes can still take, less the writes queued for it.
        let planes = self.ftl.addr.planes();
        let mut room: Vec<i64> = (0..planes).map(|p| self.ftl.user_room(p) as i64).collect();
        for d in &self.dies {
            for &t in &d.writes {
                if self.txns[t as usize].kind == TxnKind::Write {
                    room[self.txns[t as usize].plane as usize] -= 1;
                }
            }
        }
        let mut i = 0;
        let mut kicked = Vec::new();
        while i < self.dies[die as usize].writes.len() {
            let t = self.dies[die as usize].writes[i];
            if !stuck(self, t) {
                i += 1;
                continue;
            }
            let from = self.txns[t as usize].plane;
            let mut best: Option<((bool, i64), u32)> = None;
            for k in 1..planes {
                let plane = (from + k) % planes;
                // (As the write itself asks: one meant for normal blocks needs them; a plane
                // with only SLC room would bounce it back, forever.)
                if room[plane as usize] <= 0 || !self.write_has_room_in(t, plane) {
                    continue;
                }
                let key = (self.ftl.gc_need(plane) == GcNeed::Emergency, -room[plane as usize]);
                if best.is_none_or(|(b, _)| key < b) {
                    best = Some((key, plane));
                }
            }
            let Some((_, target)) = best else {
                // No plane has room to spare yet: try again when GC erases a block.
                if !self.waiting_for_room.contains(&die) {
                    self.waiting_for_room.push(die);
                }
                break;
            };
            room[target as usize] -= 1;
            room[from as usize] += 1;
            self.dies[die as usize].writes.remove(i);
            let to = self.requeue_write(t, target);
            self.gc_rerouted_writes += 1;
            if !kicked.contains(&to) {
                kicked.push(to);
            }
        }
        for to in kicked {
            self.kick(to)?;
        }
        Ok(())
    }

    /// Queues a write taken out of its die's queue at `plane`'s die instead (the design
    /// and the service-time accounting are told); returns that die.
    pub(crate) fn requeue_write(&mut self, t: u32, plane: u32) -> u32 {
        let from = self.txns[t as usize].plane;
        self.txns[t as usize].plane = plane;
        self.write_moved(t, from);
        self.service_queued(t);
        let to = self.ftl.addr.die_of_plane(plane);
        self.dies[to as usize].writes.push_back(t);
        to
    }

    /// Whether the queued write `t` could get a page in its plane now (TLC writes need normal blocks).
    pub(crate) fn write_has_room(&self, t: u32) -> bool {
        self.write_has_room_in(t, self.txns[t as usize].plane)
    }

    /// Whether the queued write `t` could get a page in `plane` now.
    pub(crate) fn write_has_room_in(&self, t: u32, plane: u32) -> bool {
        match self.txns[t as usize].mode {
            WriteMode::Tlc => self.ftl.can_allocate_normal(plane),
            WriteMode::Mapping => self.ftl.can_allocate_map(plane),
            WriteMode::UserPoint(k) => self.ftl.user_point_next_page(plane, k.into(), 1).is_some(),
            WriteMode::SlcLevel(l) => self.ftl.peek_slc_level(plane, l.into()).is_some(),
            WriteMode::Auto | WriteMode::Slc => self.ftl.can_allocate_user(plane),
            WriteMode::Zone => true,
        }
    }
}
