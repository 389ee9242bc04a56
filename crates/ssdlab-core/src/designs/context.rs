//! What a design is given: the public methods of [`Simulator`] a hook may call, for
//! designs inside this crate and outside it alike. A design outside `ssdlab-core` sees
//! only these and the public FTL (`sim.ftl`: allocation, map queries, page types, block
//! state); the built-in designs use them too, and reach the engine's crate-private state
//! only where a mechanism needs more (each such use is in the design's own module).
//!
//! Escape hatches, named so a reader can find every use:
//! - `sim.ftl` (public): the FTL itself, every allocator and map. A design that allocates
//!   a page outside the hooks that hand one out (`user_page`, `gc_page`, ...) owns what
//!   that does to the FTL's invariants (checked by `--check`).

use super::{Design, Designs, Hook};
use crate::config::Config;
use crate::engine::{SimError, Simulator};
use crate::ftl::WriteMode;

/// What a queued flash transaction is, for a design deciding about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxnView {
    /// The logical page it writes or reads (for a GC move: the page moved).
    pub lpn: u32,
    /// The plane it is queued at.
    pub plane: u32,
    /// The write stream it was placed in (`place_write`).
    pub mode: WriteMode,
    /// It writes part of its page only (a partial-page write).
    pub partial: bool,
}

impl<'a> Simulator<'a> {
    /// Adds design `state` to the run, beside the built-in designs the config selected.
    /// Call it before [`Simulator::run`]. Refused (with both designs and the hook named)
    /// when it decides a hook an active design decides, and when a design of its type is
    /// active already.
    ///
    /// Preconditioning has placed the data by then: a design that needs FTL state from
    /// the first page written must be built in (`BuiltIn::prepare_ftl`).
    pub fn add_design<T: Design>(&mut self, state: T) -> Result<(), SimError> {
        self.add_design_as(T::NAME, state, T::HOOKS)
    }

    /// The state of active design `T`. Panics if `T` is not active (a hook of `T` only
    /// runs while it is).
    pub fn design<T: Design>(&self) -> &T {
        self.designs.state::<T>()
    }

    /// The state of active design `T`, mutable. The borrow is of the design set only:
    /// within the simulator's own methods `self.designs.state_mut::<T>()` leaves the other
    /// fields usable beside it; from outside, take what you need from `sim` first.
    pub fn design_mut<T: Design>(&mut self) -> &mut T {
        self.designs.state_mut::<T>()
    }

    /// The state of design `T`, if it is active.
    pub fn try_design<T: Design>(&self) -> Option<&T> {
        self.designs.try_state::<T>()
    }

    /// As [`Simulator::add_design`], for a design whose name and hooks are decided at run
    /// time (a binding to another language: a Python class and the hooks it overrides).
    /// `hooks` outside `T::HOOKS` are ignored.
    pub fn add_design_as<T: Design>(&mut self, name: &str, state: T, hooks: &[Hook]) -> Result<(), SimError> {
        if self.events_processed > 0 {
            return Err(SimError::Setup(format!("design {name}: added after the run started")));
        }
        self.designs.add_as(name, state, hooks, &self.config).map_err(SimError::Setup)
    }

    /// Ends the run, at the current simulated time, with an error naming `design` (a hook
    /// that cannot answer: an exception in a Python design, an answer out of range). The
    /// hook still returns a value (the baseline's, say); the events already due now run,
    /// then the run stops. The first failure is the one reported. (Through an event, so
    /// the event loop checks nothing for it.)
    pub fn fail_design(&mut self, design: &str, message: impl Into<String>) {
        if self.design_error.is_none() {
            self.design_error = Some((design.to_string(), message.into()));
            self.push(self.now, crate::engine::Event::DesignFailed);
        }
    }

    /// The names of the active designs, in the order their notifications run.
    pub fn active_designs(&self) -> Vec<&str> {
        self.designs.names().iter().map(String::as_str).collect()
    }

    /// Which active design decides `hook` (`None`: the baseline).
    pub fn decider_of(&self, hook: Hook) -> Option<&str> {
        self.designs.decider_name(hook)
    }

    /// Starts one GC step on `plane` of `die` (an idle die: from `idle_work` or
    /// `die_work`), as background GC would: true if it started a command. A plane with
    /// nothing worth cleaning starts nothing.
    pub fn start_gc(&mut self, die: u32, plane: u32) -> Result<bool, SimError> {
        if self.ftl.addr.die_of_plane(plane) != die || self.dies[die as usize].busy {
            return Ok(false);
        }
        self.start_gc_step(die, plane, false)
    }

    /// Simulated time now, ns.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// The configuration the engine runs (the device view: with super-pages, gangs of
    /// dies as dies).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Transaction `txn` as a design may see it.
    pub fn txn(&self, txn: u32) -> TxnView {
        let t = &self.txns[txn as usize];
        TxnView { lpn: t.lpn, plane: t.plane, mode: t.mode, partial: t.subpages != 0 }
    }

    /// Queued reads and writes at `die`, and whether it has a command in flight.
    pub fn die_load(&self, die: u32) -> (usize, usize, bool) {
        let d = &self.dies[die as usize];
        (d.reads.len(), d.writes.len(), d.busy)
    }

    /// Requests in the device (arrived, not completed).
    pub fn outstanding_requests(&self) -> u64 {
        self.outstanding
    }

    /// Schedules design `T`'s timer: its `timer` hook is called with `tag` at `at_ns`
    /// (not earlier than now).
    pub fn schedule_timer<T: Design>(&mut self, at_ns: u64, tag: u8) {
        let at = at_ns.max(self.now);
        self.schedule_design_timer::<T>(at, tag);
    }
}

impl Simulator<'_> {
    /// The error of the design that failed (`fail_design`).
    #[cold]
    #[inline(never)]
    pub(crate) fn design_failed(&mut self) -> SimError {
        let (design, message) = self.design_error.take().unwrap_or_default();
        SimError::Design { time_ns: self.now, design, message }
    }
}

impl Designs {
    /// The name of the design that decides `hook`, if any.
    pub(crate) fn decider_name(&self, hook: Hook) -> Option<&str> {
        let slot = self.decider_slot(hook)?;
        Some(self.names()[slot as usize].as_str())
    }
}
