//! `ftl.plane_allocation = "at-service"`: SSDSim's dynamic allocation (`services_2_write`
//! and `dynamic_advanced_process` in its flash.c). A user write waits in one queue, bound
//! to no plane, until a die can start a command, has no write of its own queued and its
//! channel is idle (SSDSim serves writes only on an idle channel; a channel going idle
//! offers the waiting writes to its chips in turn); that die then takes the oldest waiting writes for itself and for the other idle dies of its
//! chip: one per die in turn from the chip's die token (an interleaved program), then a
//! second round onto the dies' other planes (multi-plane programs), up to the chip's
//! planes. Each die forms its command from what it was given as from any queued writes
//! (engine/scheduler.rs), so program order within a block is the FTL's as always.
//!
//! Where SSDSim makes a second-plane page level with the first by skipping pages
//! (`make_level_page`), ssdlab programs pages in order: a die takes a write for another
//! plane only if that plane's next page pairs with the first plane's under the
//! multi-plane rule in force, and its first write goes to the plane whose next page is
//! lowest (ties: the die's plane token), which keeps the planes level.

use super::*;

/// The waiting writes and the tokens that spread them.
#[derive(Debug)]
pub(crate) struct AtService {
    /// User writes bound to no plane yet, oldest first.
    pub(crate) waiting: VecDeque<u32>,
    /// Per channel: the chip offered waiting writes first when it goes idle.
    chip_token: Vec<u32>,
    /// Per chip: the die its next write goes to (SSDSim's chip token).
    die_token: Vec<u32>,
    /// Per die: the plane its next write goes to (SSDSim's die token).
    plane_token: Vec<u32>,
    /// The chip where the search for an idle die starts, counted channel first (SSDSim's
    /// channel and chip tokens).
    next_chip: u32,
    /// Buffers `take_unbound` reuses (it ran 194,000 times in SSDSim's example trace
    /// replayed 30 times, with four allocations each): the dies of the take, per die the
    /// planes given a write and the first one's, and the other dies given writes (taken
    /// out while they are kicked, since a kick takes again).
    dies: Vec<u32>,
    used: Vec<u64>,
    first_plane: Vec<u32>,
    others: Vec<u32>,
    /// The next user page of each plane looked at in the current take (`peek_user`), by
    /// plane: a take only queues writes, so no plane's write point moves during it, and
    /// its rounds ask about the same few planes again (the second round about the first
    /// plane of each die once per other plane). 1.25M calls to `peek_user` in SSDSim's
    /// example trace replayed 30 times, 890,000 of them from takes.
    peeks: Vec<(u32, Option<(u32, u32)>)>,
}

impl AtService {
    pub(crate) fn new(channels: u32, chips: u32, dies: u32) -> Self {
        AtService {
            waiting: VecDeque::new(),
            chip_token: vec![0; channels as usize],
            die_token: vec![0; chips as usize],
            plane_token: vec![0; dies as usize],
            next_chip: 0,
            dies: Vec::new(),
            used: Vec::new(),
            first_plane: Vec::new(),
            others: Vec::new(),
            peeks: Vec::new(),
        }
    }
}

impl Simulator<'_> {
    /// Queues user write `txn` unbound. Returns a die to kick: in the first chip in turn
    /// (channel first) whose channel is idle, an idle die; else a busy die, whose kick
    /// does nothing (the write waits for a channel to go idle or a die to free).
    pub(crate) fn queue_unbound(&mut self, txn: u32) -> u32 {
        let a = &self.ftl.addr;
        let (channels, per_channel, per_chip) = (a.channels, a.chips_per_channel.max(1), a.dies_per_chip.max(1));
        let chips = channels * per_channel;
        self.at_service.as_mut().expect("at-service on").waiting.push_back(txn);
        let start = self.at_service.as_ref().expect("on").next_chip;
        for k in 0..chips {
            let i = (start + k) % chips;
            // Position i, channel fastest.
            let (channel, chip) = (i % channels, (i % channels) * per_channel + (i / channels) % per_channel);
            if !self.channel_idle(channel) {
                continue;
            }
            if let Some(d) = self.idle_die_of(chip) {
                self.at_service.as_mut().expect("on").next_chip = (i + 1) % chips;
                return d;
            }
        }
        let chip = (start % channels) * per_channel + (start / channels) % per_channel;
        chip * per_chip
    }

    /// The first idle die of `chip` from its die token.
    fn idle_die_of(&self, chip: u32) -> Option<u32> {
        let per_chip = self.ftl.addr.dies_per_chip.max(1);
        let token = self.at_service.as_ref().expect("on").die_token[chip as usize];
        let first = chip * per_chip;
        (0..per_chip).map(|j| first + (token + j) % per_chip).find(|&d| !self.dies[d as usize].busy)
    }

    /// SSDSim gives waiting writes only to chips of an idle channel: no transfer on it and
    /// none waiting.
    fn channel_idle(&self, channel: u32) -> bool {
        let ch = &self.channels[channel as usize];
        ch.holder.is_none() && ch.waiting.is_empty()
    }

    /// `channel` went idle: while writes wait, its chips are offered them in turn (SSDSim's
    /// channel token), each from its die token, until one starts a transfer.
    pub(crate) fn offer_idle_channel(&mut self, channel: u32) -> Result<(), SimError> {
        let per_channel = self.ftl.addr.chips_per_channel.max(1);
        for _ in 0..per_channel {
            if self.at_service.as_ref().expect("on").waiting.is_empty() || !self.channel_idle(channel) {
                break;
            }
            let s = self.at_service.as_mut().expect("on");
            let chip = channel * per_channel + s.chip_token[channel as usize];
            s.chip_token[channel as usize] = (s.chip_token[channel as usize] + 1) % per_channel;
            if let Some(d) = self.idle_die_of(chip) {
                self.kick(d)?;
            }
        }
        Ok(())
    }

    /// `die` can start a command and has no write queued: it takes waiting writes for its
    /// chip's idle dies (see the module's doc), starts its own, and kicks the others.
    pub(crate) fn start_write_at_service(&mut self, die: u32) -> Result<bool, SimError> {
        if !self.channel_idle(self.ftl.addr.channel_of_die(die)) {
            return Ok(false);
        }
        let mut others = std::mem::take(&mut self.at_service.as_mut().expect("on").others);
        self.take_unbound(die, &mut others);
        let started = if self.dies[die as usize].writes.is_empty() { false } else { self.start_write(die)? };
        for &d in &others {
            self.kick(d)?;
        }
        others.clear();
        self.at_service.as_mut().expect("on").others = others;
        Ok(started)
    }

    /// Binds waiting writes to `die` and the other idle dies of its chip with no write
    /// queued. Adds those other dies that got writes to `others`.
    fn take_unbound(&mut self, die: u32, others: &mut Vec<u32>) {
        if self.at_service.as_ref().is_none_or(|s| s.waiting.is_empty()) {
            return;
        }
        let per_chip = self.ftl.addr.dies_per_chip.max(1);
        let planes = self.ftl.addr.planes_per_die;
        let chip = self.ftl.addr.chip_of_die(die);
        let first_die = chip * per_chip;
        let token = self.at_service.as_ref().expect("on").die_token[chip as usize];
        // The dies in token order: the asking one, and its idle siblings with no write
        // queued (not on chip-serial dies, where a sibling cannot start while this one runs).
        let serial = self.config.flash.die_scheduling == DieScheduling::ChipSerial;
        let s = self.at_service.as_mut().expect("on");
        s.peeks.clear();
        let (mut dies, mut used, mut first_plane) =
            (std::mem::take(&mut s.dies), std::mem::take(&mut s.used), std::mem::take(&mut s.first_plane));
        dies.clear();
        dies.extend((0..per_chip).map(|j| first_die + (token + j) % per_chip).filter(|&d| {
            d == die || (!serial && !self.dies[d as usize].busy && self.dies[d as usize].writes.is_empty())
        }));
        let rounds = if self.config.flash.multi_plane { planes } else { 1 };
        // Per die: the planes given a write in this take (bits), and the first one's.
        used.clear();
        used.resize(dies.len(), 0);
        first_plane.clear();
        first_plane.resize(dies.len(), u32::MAX);
        'rounds: for round in 0..rounds {
            for (k, &d) in dies.iter().enumerate() {
                let Some(&t) = self.at_service.as_ref().expect("on").waiting.front() else { break 'rounds };
                let Some(plane) = self.plane_for_take(t, d, round, used[k], first_plane[k]) else { continue };
                self.at_service.as_mut().expect("on").waiting.pop_front();
                used[k] |= 1 << ((plane - d * planes) % 64);
                if round == 0 {
                    first_plane[k] = plane;
                }
                self.txns[t as usize].plane = plane;
                self.service_queued(t);
                self.dies[d as usize].writes.push_back(t);
                self.dies[d as usize].last_user_ns = self.now;
                if d != die && !others.contains(&d) {
                    others.push(d);
                }
                let s = self.at_service.as_mut().expect("on");
                s.die_token[chip as usize] = (d - first_die + 1) % per_chip;
            }
        }
        let s = self.at_service.as_mut().expect("on");
        (s.dies, s.used, s.first_plane) = (dies, used, first_plane);
    }

    /// The plane of die `d` that waiting write `t` goes to in this take, if any. Round 0:
    /// of the planes with room, the one whose next page is lowest (ties: from the die's
    /// plane token). Later rounds: a plane not given a write yet whose next page pairs with
    /// the first plane's (`first`) as a multi-plane program needs.
    fn plane_for_take(&mut self, t: u32, d: u32, round: u32, used: u64, first: u32) -> Option<u32> {
        let planes = self.ftl.addr.planes_per_die;
        let base = d * planes;
        let token = self.at_service.as_ref().expect("on").plane_token[d as usize];
        // A user page to peek at means room for an ordinary user write (`can_allocate_user`
        // asks the same of the same write points, short of a relaxed map's own rule):
        // its own check is then not needed.
        let auto = matches!(self.txns[t as usize].mode, WriteMode::Auto | WriteMode::Slc) && self.ftl.relaxed.is_none();
        let mut best: Option<((u32, u32), u32)> = None;
        for j in 0..planes {
            let p = (token + j) % planes;
            let plane = base + p;
            if used & (1 << (p % 64)) != 0 {
                continue;
            }
            let next = self.peek_in_take(plane);
            let room = (auto && next.is_some()) || self.write_has_room_in(t, plane);
            if !room {
                continue;
            }
            if round > 0 {
                if first == u32::MAX {
                    continue;
                }
                let first_next = self.peek_in_take(first);
                if !self.planes_pair(next, first_next) {
                    continue;
                }
                best = Some(((0, j), plane));
                break;
            }
            let key = (next.map_or(u32::MAX, |(_, page)| page), j);
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, plane));
            }
        }
        let (_, plane) = best?;
        let s = self.at_service.as_mut().expect("on");
        s.plane_token[d as usize] = (plane - base + 1) % planes;
        Some(plane)
    }

    /// `peek_user(plane)`, asked once per take (see `AtService::peeks`).
    fn peek_in_take(&mut self, plane: u32) -> Option<(u32, u32)> {
        let s = self.at_service.as_mut().expect("on");
        if let Some(&(_, next)) = s.peeks.iter().find(|&&(p, _)| p == plane) {
            return next;
        }
        let next = self.ftl.peek_user(plane);
        self.at_service.as_mut().expect("on").peeks.push((plane, next));
        next
    }

    /// Whether pages `a` and `b` (block, page) of two planes of a die can share a
    /// multi-plane program (the rule `start_write` applies to queued writes).
    fn planes_pair(&self, a: Option<(u32, u32)>, b: Option<(u32, u32)>) -> bool {
        if self.config.flash.multi_plane_any_address {
            true
        } else if self.config.flash.multi_plane_same_block {
            a == b
        } else {
            a.map(|k| k.1) == b.map(|k| k.1)
        }
    }

    /// At a power loss: waiting writes are queued at dies as the plane allocator's
    /// fallback places them, so that the loss treats them as any queued write.
    pub(crate) fn bind_unbound_for_power_loss(&mut self) {
        let Some(s) = self.at_service.as_mut() else { return };
        let waiting = std::mem::take(&mut s.waiting);
        for t in waiting {
            let plane = self.allocator_plane(self.txns[t as usize].lpn);
            self.txns[t as usize].plane = plane;
            let die = self.ftl.addr.die_of_plane(plane);
            self.dies[die as usize].writes.push_back(t);
        }
    }
}
