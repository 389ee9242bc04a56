//! The zone state machine of the NVMe Zoned Namespace Command Set (ZNS 1.1, §2.1.1 and
//! the Zone Management Send actions of §3.4.3) as pure functions on a table of zones:
//! states, write pointers, the open and active resources, and the status each command
//! completes with. The transitions follow the spec as QEMU's ZNS controller implements
//! it (`hw/nvme/ctrl.c`, `nvme_zrm_*`): a write or append to an empty or closed zone opens
//! it implicitly, first closing the oldest implicitly opened zone when the open limit is
//! reached; a zone whose write pointer reaches its capacity is full and holds no resource.

use serde::Serialize;
use std::collections::VecDeque;

/// A zone's state (ZNS "Zone State", ZS*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneState {
    /// ZSE: write pointer at the zone start, no resources.
    Empty,
    /// ZSIO: opened by a write or append.
    ImplicitlyOpen,
    /// ZSEO: opened by an Open Zone action.
    ExplicitlyOpen,
    /// ZSC: active but not open (written to, then closed).
    Closed,
    /// ZSF: written to capacity or finished; not writable until reset.
    Full,
    /// ZSRO: readable only (the device's own decision, e.g. worn-out media).
    ReadOnly,
    /// ZSO: neither readable nor writable.
    Offline,
}

impl ZoneState {
    pub const ALL: [ZoneState; 7] = [
        ZoneState::Empty,
        ZoneState::ImplicitlyOpen,
        ZoneState::ExplicitlyOpen,
        ZoneState::Closed,
        ZoneState::Full,
        ZoneState::ReadOnly,
        ZoneState::Offline,
    ];

    fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen)
    }

    fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }
}

/// An NVMe completion status: status code type (SCT) in the high byte, status code (SC)
/// in the low byte, as Linux's `include/linux/nvme.h` writes them (`0x1b9` = command
/// specific 0xB9, Zone Is Full).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Status(pub u16);

impl Status {
    pub const SUCCESS: Status = Status(0x000);
    /// Generic: Invalid Field in Command (an append or zone action not at a zone start).
    pub const INVALID_FIELD: Status = Status(0x002);
    /// Generic: LBA Out of Range (past the zoned capacity).
    pub const LBA_OUT_OF_RANGE: Status = Status(0x080);
    /// Command specific (ZNS): the LBAs reach past the zone's writable capacity.
    pub const ZONE_BOUNDARY_ERROR: Status = Status(0x1b8);
    pub const ZONE_IS_FULL: Status = Status(0x1b9);
    pub const ZONE_IS_READ_ONLY: Status = Status(0x1ba);
    pub const ZONE_IS_OFFLINE: Status = Status(0x1bb);
    /// A write not at the zone's write pointer.
    pub const ZONE_INVALID_WRITE: Status = Status(0x1bc);
    pub const TOO_MANY_ACTIVE_ZONES: Status = Status(0x1bd);
    pub const TOO_MANY_OPEN_ZONES: Status = Status(0x1be);
    pub const INVALID_ZONE_STATE_TRANSITION: Status = Status(0x1bf);

    /// The status's name in the NVMe specifications.
    pub fn name(self) -> &'static str {
        match self.0 {
            0x000 => "Successful Completion",
            0x002 => "Invalid Field in Command",
            0x080 => "LBA Out of Range",
            0x1b8 => "Zone Boundary Error",
            0x1b9 => "Zone Is Full",
            0x1ba => "Zone Is Read Only",
            0x1bb => "Zone Is Offline",
            0x1bc => "Zone Invalid Write",
            0x1bd => "Too Many Active Zones",
            0x1be => "Too Many Open Zones",
            0x1bf => "Invalid Zone State Transition",
            _ => "unknown",
        }
    }
}

/// One zone: its state and write pointer (pages written from its start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone {
    pub state: ZoneState,
    pub write_pointer: u32,
}

/// The zones of a namespace and their resource limits (0: no limit).
#[derive(Clone, Debug)]
pub struct Zones {
    pub zones: Vec<Zone>,
    /// Writable pages of each zone (its capacity), and of the SLC-mode zones from
    /// `slc_from` on.
    pub capacity: u32,
    pub slc_capacity: u32,
    pub slc_from: u32,
    pub max_open: u32,
    pub max_active: u32,
    open: u32,
    active: u32,
    /// Implicitly opened zones, oldest first: the one closed to make room for another.
    implicit: VecDeque<u32>,
    /// Zones closed by the device to open another (ZSIO → ZSC without a command).
    pub implicit_closes: u64,
}

impl Zones {
    pub fn new(count: u32, capacity: u32, max_open: u32, max_active: u32) -> Zones {
        Zones {
            zones: vec![Zone { state: ZoneState::Empty, write_pointer: 0 }; count as usize],
            capacity,
            slc_capacity: capacity,
            slc_from: count,
            max_open,
            max_active,
            open: 0,
            active: 0,
            implicit: VecDeque::new(),
            implicit_closes: 0,
        }
    }

    /// Zones from `from` on are in SLC mode, `capacity` pages each.
    pub fn set_slc(&mut self, from: u32, capacity: u32) {
        (self.slc_from, self.slc_capacity) = (from, capacity);
    }

    /// Writable pages of `zone`.
    pub fn capacity_of(&self, zone: u32) -> u32 {
        if zone >= self.slc_from {
            self.slc_capacity
        } else {
            self.capacity
        }
    }

    /// After a power loss, `zone` holds `write_pointer` pages and is in `state` (the
    /// recovery's decision; docs/zns-fdp.md, power loss).
    pub fn recovered(&mut self, zone: u32, write_pointer: u32, state: ZoneState) {
        self.assign(zone, state);
        self.zones[zone as usize].write_pointer = write_pointer;
    }

    pub fn open_count(&self) -> u32 {
        self.open
    }

    pub fn active_count(&self) -> u32 {
        self.active
    }

    /// Sets a zone's state by the device itself (read-only or offline media); the zone
    /// must be empty.
    pub fn set_device_state(&mut self, zone: u32, state: ZoneState) {
        debug_assert_eq!(self.zones[zone as usize].state, ZoneState::Empty);
        self.zones[zone as usize].state = state;
    }

    fn assign(&mut self, zone: u32, state: ZoneState) {
        let old = self.zones[zone as usize].state;
        self.open -= u32::from(old.is_open());
        self.active -= u32::from(old.is_active());
        self.open += u32::from(state.is_open());
        self.active += u32::from(state.is_active());
        if old == ZoneState::ImplicitlyOpen {
            self.implicit.retain(|&z| z != zone);
        }
        if state == ZoneState::ImplicitlyOpen {
            self.implicit.push_back(zone);
        }
        self.zones[zone as usize].state = state;
    }

    /// Opens `zone` (implicitly for a write, explicitly for an Open Zone action),
    /// taking an open resource and, from empty, an active one.
    fn open(&mut self, zone: u32, explicit: bool) -> Status {
        let state = self.zones[zone as usize].state;
        match state {
            ZoneState::Empty | ZoneState::Closed => {
                let new_active = u32::from(state == ZoneState::Empty);
                if self.max_active > 0 && self.active + new_active > self.max_active {
                    return Status::TOO_MANY_ACTIVE_ZONES;
                }
                if self.max_open > 0 && self.open + 1 > self.max_open {
                    // The device closes its oldest implicitly opened zone to make room.
                    let Some(&victim) = self.implicit.front() else { return Status::TOO_MANY_OPEN_ZONES };
                    self.assign(victim, ZoneState::Closed);
                    self.implicit_closes += 1;
                }
                let to = if explicit { ZoneState::ExplicitlyOpen } else { ZoneState::ImplicitlyOpen };
                self.assign(zone, to);
                Status::SUCCESS
            }
            ZoneState::ImplicitlyOpen if explicit => {
                self.assign(zone, ZoneState::ExplicitlyOpen);
                Status::SUCCESS
            }
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => Status::SUCCESS,
            _ => Status::INVALID_ZONE_STATE_TRANSITION,
        }
    }

    /// A write of `pages` pages at page `offset` of `zone` (`None`: a Zone Append, which
    /// goes wherever the write pointer is). On success the write pointer moves past it
    /// and the offset written is returned; a zone written to capacity becomes full.
    pub fn write(&mut self, zone: u32, offset: Option<u32>, pages: u32) -> Result<u32, Status> {
        let z = self.zones[zone as usize];
        match z.state {
            ZoneState::Full => return Err(Status::ZONE_IS_FULL),
            ZoneState::ReadOnly => return Err(Status::ZONE_IS_READ_ONLY),
            ZoneState::Offline => return Err(Status::ZONE_IS_OFFLINE),
            _ => {}
        }
        if offset.is_some_and(|o| o != z.write_pointer) {
            return Err(Status::ZONE_INVALID_WRITE);
        }
        let capacity = self.capacity_of(zone);
        if z.write_pointer as u64 + pages as u64 > capacity as u64 {
            return Err(Status::ZONE_BOUNDARY_ERROR);
        }
        let status = self.open(zone, false);
        if status != Status::SUCCESS {
            return Err(status);
        }
        let at = z.write_pointer;
        self.zones[zone as usize].write_pointer += pages;
        if at + pages == capacity {
            self.assign(zone, ZoneState::Full);
        }
        Ok(at)
    }

    /// Whether `zone` can be read (not offline).
    pub fn read(&self, zone: u32) -> Status {
        match self.zones[zone as usize].state {
            ZoneState::Offline => Status::ZONE_IS_OFFLINE,
            _ => Status::SUCCESS,
        }
    }

    /// Open Zone.
    pub fn open_zone(&mut self, zone: u32) -> Status {
        self.open(zone, true)
    }

    /// Close Zone: an open zone becomes closed (a closed one stays).
    pub fn close_zone(&mut self, zone: u32) -> Status {
        match self.zones[zone as usize].state {
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => {
                self.assign(zone, ZoneState::Closed);
                Status::SUCCESS
            }
            ZoneState::Closed => Status::SUCCESS,
            _ => Status::INVALID_ZONE_STATE_TRANSITION,
        }
    }

    /// Finish Zone: the zone becomes full, its unwritten pages given up until a reset.
    pub fn finish_zone(&mut self, zone: u32) -> Status {
        match self.zones[zone as usize].state {
            ZoneState::Full => Status::SUCCESS,
            ZoneState::Empty | ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen | ZoneState::Closed => {
                self.assign(zone, ZoneState::Full);
                Status::SUCCESS
            }
            _ => Status::INVALID_ZONE_STATE_TRANSITION,
        }
    }

    /// Whether a Reset Zone action on `zone` is allowed (it then needs `reset_zone`).
    pub fn reset_allowed(&self, zone: u32) -> Status {
        match self.zones[zone as usize].state {
            ZoneState::ReadOnly | ZoneState::Offline => Status::INVALID_ZONE_STATE_TRANSITION,
            _ => Status::SUCCESS,
        }
    }

    /// Reset Zone: the zone is empty again, write pointer at its start; returns the
    /// pages it held (the caller trims them and erases its blocks).
    pub fn reset_zone(&mut self, zone: u32) -> u32 {
        debug_assert_eq!(self.reset_allowed(zone), Status::SUCCESS);
        let written = self.zones[zone as usize].write_pointer;
        self.assign(zone, ZoneState::Empty);
        self.zones[zone as usize].write_pointer = 0;
        written
    }

    /// Zones in each state, in `ZoneState::ALL` order.
    pub fn state_counts(&self) -> [u64; 7] {
        let mut counts = [0u64; 7];
        for z in &self.zones {
            counts[ZoneState::ALL.iter().position(|&s| s == z.state).expect("a state")] += 1;
        }
        counts
    }

    /// The resource counts kept incrementally agree with the states (`--check`).
    pub fn check(&self) -> Result<(), String> {
        let open = self.zones.iter().filter(|z| z.state.is_open()).count() as u32;
        let active = self.zones.iter().filter(|z| z.state.is_active()).count() as u32;
        if (open, active) != (self.open, self.active) {
            return Err(format!("zns: {open} open / {active} active zones, counted {} / {}", self.open, self.active));
        }
        if (self.max_open > 0 && open > self.max_open) || (self.max_active > 0 && active > self.max_active) {
            return Err(format!("zns: {open} open / {active} active zones exceed the limits"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones() -> Zones {
        Zones::new(4, 8, 2, 3)
    }

    #[test]
    fn writes_must_land_at_the_write_pointer_and_fill_the_zone_to_capacity() {
        let mut z = zones();
        assert_eq!(z.write(0, Some(1), 1), Err(Status::ZONE_INVALID_WRITE));
        assert_eq!(z.zones[0].state, ZoneState::Empty, "a refused write opens nothing");
        assert_eq!(z.write(0, Some(0), 3), Ok(0));
        assert_eq!(z.zones[0].state, ZoneState::ImplicitlyOpen);
        assert_eq!(z.write(0, None, 2), Ok(3), "an append goes to the write pointer");
        assert_eq!(z.write(0, Some(5), 4), Err(Status::ZONE_BOUNDARY_ERROR));
        assert_eq!(z.write(0, Some(5), 3), Ok(5));
        assert_eq!(z.zones[0].state, ZoneState::Full);
        assert_eq!((z.open_count(), z.active_count()), (0, 0), "a full zone holds no resource");
        assert_eq!(z.write(0, None, 1), Err(Status::ZONE_IS_FULL));
        z.check().unwrap();
    }

    #[test]
    fn the_open_limit_closes_the_oldest_implicitly_opened_zone_and_the_active_limit_refuses() {
        let mut z = zones();
        z.write(0, Some(0), 1).unwrap();
        z.write(1, Some(0), 1).unwrap();
        // A third open zone: zone 0, implicitly opened first, is closed by the device.
        z.write(2, Some(0), 1).unwrap();
        assert_eq!(z.zones[0].state, ZoneState::Closed);
        assert_eq!(z.implicit_closes, 1);
        assert_eq!((z.open_count(), z.active_count()), (2, 3));
        // Four active zones would exceed max_active = 3.
        assert_eq!(z.write(3, Some(0), 1), Err(Status::TOO_MANY_ACTIVE_ZONES));
        assert_eq!(z.zones[3].state, ZoneState::Empty);
        // Explicitly opened zones are never closed by the device.
        let mut e = zones();
        assert_eq!(e.open_zone(0), Status::SUCCESS);
        assert_eq!(e.open_zone(1), Status::SUCCESS);
        assert_eq!(e.write(2, Some(0), 1), Err(Status::TOO_MANY_OPEN_ZONES));
        assert_eq!(e.open_zone(2), Status::TOO_MANY_OPEN_ZONES);
        e.check().unwrap();
        z.check().unwrap();
    }

    #[test]
    fn management_actions_follow_the_state_machine() {
        let mut z = zones();
        assert_eq!(z.close_zone(0), Status::INVALID_ZONE_STATE_TRANSITION, "an empty zone cannot close");
        z.write(0, Some(0), 2).unwrap();
        assert_eq!(z.close_zone(0), Status::SUCCESS);
        assert_eq!(z.zones[0].state, ZoneState::Closed);
        assert_eq!(z.close_zone(0), Status::SUCCESS, "closing a closed zone is no error");
        assert_eq!(z.open_zone(0), Status::SUCCESS);
        assert_eq!(z.zones[0].state, ZoneState::ExplicitlyOpen);
        assert_eq!(z.finish_zone(0), Status::SUCCESS);
        assert_eq!((z.zones[0].state, z.active_count()), (ZoneState::Full, 0));
        assert_eq!(z.open_zone(0), Status::INVALID_ZONE_STATE_TRANSITION);
        assert_eq!(z.close_zone(0), Status::INVALID_ZONE_STATE_TRANSITION);
        assert_eq!(z.reset_zone(0), 2);
        assert_eq!(z.zones[0], Zone { state: ZoneState::Empty, write_pointer: 0 });
        z.set_device_state(1, ZoneState::ReadOnly);
        z.set_device_state(2, ZoneState::Offline);
        assert_eq!(z.write(1, Some(0), 1), Err(Status::ZONE_IS_READ_ONLY));
        assert_eq!(z.write(2, Some(0), 1), Err(Status::ZONE_IS_OFFLINE));
        assert_eq!(z.read(1), Status::SUCCESS);
        assert_eq!(z.read(2), Status::ZONE_IS_OFFLINE);
        assert_eq!(z.reset_allowed(1), Status::INVALID_ZONE_STATE_TRANSITION);
        assert_eq!(z.finish_zone(2), Status::INVALID_ZONE_STATE_TRANSITION);
        assert_eq!(z.state_counts(), [2, 0, 0, 0, 0, 1, 1]);
        z.check().unwrap();
    }
}
