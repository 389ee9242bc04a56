//! The design trait: one method per decision point of the engine, each with the
//! conventional FTL's behaviour (the baseline the papers compare against) as its default
//! body. A design overrides the hooks it needs, lists them in [`Design::HOOKS`], and
//! nothing else.
//!
//! Hooks are associated functions, not methods: each gets the whole simulator (`sim`),
//! and reaches the design's own state with `sim.designs.state_mut::<Self>()` (a borrow
//! of one field, so `sim.ftl` and the rest stay usable beside it). Holding no borrow of the
//! design across the call is what lets a hook start engine work that calls hooks again
//! (a `die_work` that starts a GC step, which asks `gc_page`).
//!
//! Two kinds of hook (the [`Hook`] list says which is which):
//! - *decisions* (the plane and page of a write, the GC victim and destination, ...): at
//!   most one active design may list each; the others get the default. Two designs that
//!   list the same decision are refused together, naming both and the hook.
//! - *notifications* (a write was queued, a block erased, power lost, the report, ...):
//!   every active design that lists one is called, in the order the designs were
//!   selected. The `*_work` and `host_finished` notifications stop at the first design
//!   that started something.
//!
//! A hook a design implements but does not list is never called: the list is the
//! dispatch table (`HookTable::of`), checked at registration.

use crate::engine::{SimError, Simulator, TxnKind, NO_TYPE};
use crate::flash::Ppn;
use crate::ftl::{Allocated, WriteMode};
use crate::stats::Report;
use ssdlab_trace::Record;

/// Where a GC step's moved pages go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveTarget {
    /// Into the plane's own GC write point (`gc_page`).
    SamePlane,
    /// Out over the channel(s) to this plane (possibly of another die or chip): the
    /// source die senses and transfers out, the destination die transfers in and programs.
    Plane(u32),
    /// Nowhere yet (no plane can take the data): only an erase of an empty victim may run.
    Nowhere,
}

/// The baseline: a design that overrides nothing. A design that wants the conventional
/// behaviour in some cases calls it: `Baseline::gc_page(sim, plane, from)`.
pub struct Baseline;

impl Design for Baseline {
    const NAME: &'static str = "baseline";
    const HOOKS: &'static [Hook] = &[];
}

/// A flash-management design plugged into the engine. Every hook's default is the
/// conventional FTL; see the module documentation for how hooks are dispatched.
///
/// `txn` arguments index the engine's transactions (a user write of one logical page, a
/// GC move, ...); `plane`, `die` and `block` are global indices (`ftl.addr`); `request`
/// indexes the requests in the device.
///
/// # Example
///
/// A design that sends even logical pages to user write point 0 and odd ones to write
/// point 1 (so they never share a block), added to a simulation from outside the crate:
///
/// ```
/// use ssdlab_core::designs::{Design, Hook};
/// use ssdlab_core::ftl::WriteMode;
/// use ssdlab_core::source::VecSource;
/// use ssdlab_core::{Config, Observers, Report, Simulator};
/// use ssdlab_trace::{Op, Record, RecordSource};
///
/// struct EvenOdd {
///     odd: u64,
/// }
///
/// impl Design for EvenOdd {
///     const NAME: &'static str = "even-odd";
///     const HOOKS: &'static [Hook] = &[Hook::PlaceWrite, Hook::Report];
///
///     fn place_write(sim: &mut Simulator<'_>, plane: u32, _request: u32, lpn: u32) -> (u32, WriteMode) {
///         sim.design_mut::<EvenOdd>().odd += u64::from(lpn % 2);
///         (plane, WriteMode::UserPoint((lpn % 2) as u8))
///     }
///
///     fn report(sim: &Simulator<'_>, report: &mut Report) {
///         report.set_section(Self::NAME, &sim.design::<EvenOdd>().odd);
///     }
/// }
///
/// let mut config = Config::default();
/// config.ftl.user_write_points = 2;
/// let records: Vec<Record> = (0..1000u64)
///     .map(|i| Record { arrival_ns: i * 100_000, device: 0, offset_bytes: (i * 7919 % 5000) * 16384,
///                       size_bytes: 16384, op: Op::Write, hint: None })
///     .collect();
/// let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
/// let mut sim = Simulator::new(config, factory, Observers::default()).unwrap();
/// sim.add_design(EvenOdd { odd: 0 }).unwrap();
/// let (report, _) = sim.run().unwrap();
/// assert!(report.get_section("even-odd").unwrap().as_u64().unwrap() > 0);
/// ```
pub trait Design: 'static + Sized {
    /// The design's name: the key of its config and report sections, and what errors say.
    const NAME: &'static str;
    /// The hooks it implements. Only these are called.
    const HOOKS: &'static [Hook];
    /// The drive modes its model assumes: a drive without one is refused with the
    /// design, naming the design and what the drive has instead.
    const NEEDS: &'static [super::Need] = &[];
    /// What it takes over beyond its decision hooks: no two active designs may claim the
    /// same (nor decide the same hook).
    const CLAIMS: &'static [super::Claim] = &[];

    /// Before the first event of the run (after preconditioning).
    fn run_starting(_sim: &mut Simulator<'_>) {}

    /// A request the device received (its command crossed the host link) is about to be
    /// split into pages (`slot`: its request slot): true if the design took it over (a
    /// zoned namespace completes a protocol violation with its NVMe status, runs a zone
    /// management command). Default: zone commands are refused (the drive has no zoned
    /// namespace), everything else goes on to be split.
    fn request_received(sim: &mut Simulator<'_>, slot: u32) -> Result<bool, SimError> {
        sim.refuse_zone_command(slot)
    }

    /// A request enters the device, before it is split into pages.
    fn request_arrived(_sim: &mut Simulator<'_>) -> Result<(), SimError> {
        Ok(())
    }

    /// A write request of `pages` pages is split: the page type its pages ask for
    /// (`NO_TYPE`: none, allocation is type-blind).
    fn write_request_type(_sim: &mut Simulator<'_>, _pages: u32, _record: &Record) -> u8 {
        NO_TYPE
    }

    /// A user page write of logical page `lpn` (part of `request`) is queued: its plane
    /// and write stream. Default: the plane allocator's plane (`static_plane`), any blocks.
    fn place_write(_sim: &mut Simulator<'_>, static_plane: u32, _request: u32, _lpn: u32) -> (u32, WriteMode) {
        (static_plane, WriteMode::Auto)
    }

    /// A subpage map's user write of units `unit..unit + units` of `lpn` is split off:
    /// the design may queue it itself (partial program, read-modify-write) and return its
    /// transaction. Default: `None`, an ordinary write.
    fn split_write(
        _sim: &mut Simulator<'_>,
        _slot: u32,
        _lpn: u32,
        _unit: u32,
        _units: u32,
    ) -> Result<Option<u32>, SimError> {
        Ok(None)
    }

    /// A user write was queued at its die.
    fn write_queued(_sim: &mut Simulator<'_>, _txn: u32) {}

    /// A queued user write was rerouted from plane `from` to another plane.
    fn write_moved(_sim: &mut Simulator<'_>, _txn: u32, _from: u32) {}

    /// A whole-page write of `lpn`, whose copy is in `old`, is split: whether it is
    /// reprogrammed in place there (`engine/reprogram.rs`). Default: no.
    fn reprograms_in_place(_sim: &mut Simulator<'_>, _lpn: u32, _old: Ppn) -> bool {
        false
    }

    /// An in-place reprogram of `ppn` is about to start: `None` if the design no longer
    /// wants it there (it becomes an ordinary write), else the companion page to read and
    /// reprogram along (`NO_PAGE`: none).
    fn in_place_claim(_sim: &mut Simulator<'_>, _ppn: Ppn) -> Option<Ppn> {
        None
    }

    /// A queued partial program is about to run: whether its page is still where the
    /// design wants it. Default: yes.
    fn partial_target_ok(_sim: &Simulator<'_>, _txn: u32) -> bool {
        true
    }

    /// A write of part of a page is programmed: whether other queued small writes may
    /// share its page. Default: yes.
    fn packs_small_writes(_sim: &Simulator<'_>) -> bool {
        true
    }

    /// Whether queued user writes may share multi-plane programs at all. Default: yes.
    fn pairs_user_writes(_sim: &Simulator<'_>) -> bool {
        true
    }

    /// Whether queued user write `txn` may share a multi-plane program (when the design
    /// pairs user writes at all). Default: yes.
    fn joins_multi_plane(_sim: &Simulator<'_>, _txn: u32) -> bool {
        true
    }

    /// A user write is about to be programmed: the queued write that must share its
    /// command (its index in `die`'s write queue). Default: none.
    fn write_partner(_sim: &mut Simulator<'_>, _die: u32, _txn: u32) -> Option<usize> {
        None
    }

    /// A user write is programmed: the design picks its page. Default: `None`, the next
    /// page of the write stream the write was placed in.
    fn user_page(_sim: &mut Simulator<'_>, _txn: u32) -> Option<Allocated> {
        None
    }

    /// Writes `l` and `m` are interleaved over one multi-plane program: their two pages.
    /// Default: `None`, each write's own page.
    fn pair_pages(_sim: &mut Simulator<'_>, _l: u32, _m: u32) -> Option<(Allocated, Allocated)> {
        None
    }

    /// A user write got its page (`slc`: an SLC-mode page).
    fn write_bound(_sim: &mut Simulator<'_>, _txn: u32, _slc: bool) {}

    /// A user write in `plane` finished programming.
    fn write_programmed(_sim: &mut Simulator<'_>, _plane: u32) -> Result<(), SimError> {
        Ok(())
    }

    /// A GC step in `plane` moves pages: the same plane, another plane, or nowhere yet.
    /// Default: `ftl.gc_destination`.
    fn gc_move_target(sim: &Simulator<'_>, plane: u32) -> MoveTarget {
        sim.baseline_gc_move_target(plane)
    }

    /// A same-plane GC move of the page `from` needs its destination page. Default: the
    /// plane's GC write point; pages of SLC-mode blocks by `ftl.slc_gc_destination`.
    fn gc_page(sim: &mut Simulator<'_>, plane: u32, from: Ppn) -> Option<Allocated> {
        sim.baseline_gc_page(plane, from)
    }

    /// A GC move out of another plane needs its destination page in `to`. Default: that
    /// plane's GC write point.
    fn gc_page_elsewhere(sim: &mut Simulator<'_>, to: u32) -> Option<Allocated> {
        sim.ftl.allocate_gc(to, sim.now)
    }

    /// A plane needing GC has no victim: the design may pick the block (a closed block of
    /// `plane`). Default: `None`, the FTL's `ftl.gc_victim` policy. Only the block GC
    /// starts on is asked for here: when a GC step gathers pages from a further victim
    /// to fill a page set or a multi-plane program (`Ftl::gc_gather_move`), that block
    /// is the FTL policy's.
    fn gc_victim(_sim: &mut Simulator<'_>, _plane: u32) -> Option<u32> {
        None
    }

    /// A GC command moved `pages` pages (`out_of_slc`: out of SLC-mode blocks;
    /// `cross_plane`: to another plane).
    fn gc_moved(_sim: &mut Simulator<'_>, _pages: u64, _out_of_slc: bool, _cross_plane: bool) {}

    /// GC erased `block` of `plane` (the erase command starts).
    fn block_erased(_sim: &mut Simulator<'_>, _plane: u32, _block: u32, _slc: bool) {}

    /// The erase of `block` has ended.
    fn erase_done(_sim: &mut Simulator<'_>, _block: u32) -> Result<(), SimError> {
        Ok(())
    }

    /// `die` is free, after emergency GC and before the user queues: true if the design
    /// started a command there.
    fn die_work(_sim: &mut Simulator<'_>, _die: u32) -> Result<bool, SimError> {
        Ok(false)
    }

    /// `die` is free and its queues and background GC started nothing: true if the design
    /// started a command there.
    fn idle_work(_sim: &mut Simulator<'_>, _die: u32) -> Result<bool, SimError> {
        Ok(false)
    }

    /// The old copy `old` of a user write (now programmed) or a trim is no longer needed;
    /// `request` still waits for it (`NO_REQUEST`: nothing waits). The design may keep
    /// the request waiting (`hold_request`) until it has destroyed the copy.
    fn copy_released(_sim: &mut Simulator<'_>, _old: Ppn, _request: u32) -> Result<(), SimError> {
        Ok(())
    }

    /// A scrub or scan command the design started (`maintenance.rs`) ended; `tag` is the
    /// one it gave.
    fn maintenance_done(_sim: &mut Simulator<'_>, _kind: TxnKind, _tag: u32) -> Result<(), SimError> {
        Ok(())
    }

    /// A sanitise request reached the device (request slot `slot`). Default: its range is
    /// trimmed (old copies stay on flash).
    fn sanitize_requested(sim: &mut Simulator<'_>, slot: u32) -> Result<(), SimError> {
        sim.trim_request(slot)
    }

    /// The workload is done and nothing is outstanding: true if the design issued more
    /// work or waits for a timer of its own (the run goes on).
    fn host_finished(_sim: &mut Simulator<'_>) -> Result<bool, SimError> {
        Ok(false)
    }

    /// The last outstanding request completed.
    fn device_idle(_sim: &mut Simulator<'_>) -> Result<(), SimError> {
        Ok(())
    }

    /// A command starts on `die` (after it was marked busy).
    fn command_started(_sim: &mut Simulator<'_>, _die: u32) {}

    /// `die`'s command completes (its transactions are still in `dies[die].command`).
    fn command_ended(_sim: &mut Simulator<'_>, _die: u32) {}

    /// A timer the design scheduled (`Simulator::schedule_design_timer`) fired, with the
    /// tag it gave.
    fn timer(_sim: &mut Simulator<'_>, _tag: u8) -> Result<(), SimError> {
        Ok(())
    }

    /// Power failed: volatile design state is lost.
    fn power_lost(_sim: &mut Simulator<'_>) {}

    /// The FTL rebuilt its map from flash after a power loss (before the checks run):
    /// the design rebuilds what it keeps from what survived.
    fn power_recovered(_sim: &mut Simulator<'_>) {}

    /// The run ends: the design writes its section of the report.
    fn report(_sim: &Simulator<'_>, _report: &mut Report) {}
}

/// Generates, from one list of the hooks, the [`Hook`] names, the table of function
/// pointers a design's listed hooks fill (`HookTable::of`), and the engine's dispatcher
/// methods on `Simulator` (`hook_*`). Changing a hook's signature in the trait without
/// changing it here fails to compile: the table's field types are the trait's.
macro_rules! hooks {
    ($( $kind:ident $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty; )*) => {
        /// A hook of [`Design`], named as its method.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Hook {
            $( $variant, )*
        }

        impl Hook {
            pub const ALL: &'static [Hook] = &[$( Hook::$variant, )*];
            pub const COUNT: usize = Hook::ALL.len();

            /// The method's name.
            pub fn name(self) -> &'static str {
                match self {
                    $( Hook::$variant => stringify!($name), )*
                }
            }

            /// A decision (at most one design may implement it) or a notification (every
            /// design that implements it is called).
            pub fn is_decision(self) -> bool {
                match self {
                    $( Hook::$variant => hooks!(@decision $kind), )*
                }
            }
        }

        /// One design's hooks as function pointers (`None`: not listed).
        #[derive(Clone, Copy)]
        pub(crate) struct HookTable {
            $( pub(crate) $name: Option<hooks!(@fnptr $kind ($($ty),*) -> $ret)>, )*
        }

        impl HookTable {
            /// The table of design `T`: the hooks it lists in `T::HOOKS`.
            pub(crate) fn of<T: Design>() -> HookTable {
                HookTable::of_listed::<T>(T::HOOKS)
            }

            /// The table of design `T` with only those of its hooks that `hooks` names
            /// (a design whose hooks are decided at run time: a Python class's overrides).
            pub(crate) fn of_listed<T: Design>(hooks: &[Hook]) -> HookTable {
                let listed = |h: Hook| T::HOOKS.contains(&h) && hooks.contains(&h);
                HookTable {
                    $( $name: listed(Hook::$variant).then_some(T::$name as hooks!(@fnptr $kind ($($ty),*) -> $ret)), )*
                }
            }

            pub(crate) fn has(&self, hook: Hook) -> bool {
                match hook {
                    $( Hook::$variant => self.$name.is_some(), )*
                }
            }
        }

        /// The dispatchers the engine calls: `hook_<name>`.
        impl Simulator<'_> {
            $( hooks!(@dispatch $kind $variant $name ($($arg : $ty),*) -> $ret); )*
        }
    };

    (@decision decide) => { true };
    (@decision decide_ref) => { true };
    (@decision $other:ident) => { false };

    (@fnptr decide_ref ($($ty:ty),*) -> $ret:ty) => { for<'s, 'a> fn(&'s Simulator<'a>, $($ty),*) -> $ret };
    (@fnptr report ($($ty:ty),*) -> $ret:ty) => { for<'s, 'a> fn(&'s Simulator<'a>, $($ty),*) -> $ret };
    (@fnptr $kind:ident ($($ty:ty),*) -> $ret:ty) => { for<'s, 'a> fn(&'s mut Simulator<'a>, $($ty),*) -> $ret };

    // A decision: the one design that lists it, else the baseline (inlined).
    (@dispatch decide $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(&mut self, $($arg: $ty),*) -> $ret {
            if !self.designs.implemented(Hook::$variant) {
                return <Baseline as Design>::$name(self, $($arg),*);
            }
            match self.designs.decider(Hook::$variant).and_then(|t| t.$name) {
                None => <Baseline as Design>::$name(self, $($arg),*),
                Some(f) => f(self, $($arg),*),
            }
        }
    };
    (@dispatch decide_ref $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(&self, $($arg: $ty),*) -> $ret {
            if !self.designs.implemented(Hook::$variant) {
                return <Baseline as Design>::$name(self, $($arg),*);
            }
            match self.designs.decider(Hook::$variant).and_then(|t| t.$name) {
                None => <Baseline as Design>::$name(self, $($arg),*),
                Some(f) => f(self, $($arg),*),
            }
        }
    };
    // A notification: every design that lists it, in selection order.
    (@dispatch notify $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(&mut self, $($arg: $ty),*) {
            if !self.designs.implemented(Hook::$variant) {
                return;
            }
            let listeners = self.designs.listeners(Hook::$variant);
            for i in listeners.iter() {
                if let Some(f) = self.designs.table(i).$name {
                    f(self, $($arg),*);
                }
            }
        }
    };
    (@dispatch notify_result $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(&mut self, $($arg: $ty),*) -> Result<(), SimError> {
            if !self.designs.implemented(Hook::$variant) {
                return Ok(());
            }
            let listeners = self.designs.listeners(Hook::$variant);
            for i in listeners.iter() {
                if let Some(f) = self.designs.table(i).$name {
                    f(self, $($arg),*)?;
                }
            }
            Ok(())
        }
    };
    // Work offered to the designs in turn until one starts something.
    (@dispatch chain $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        #[inline]
        pub(crate) fn $name(&mut self, $($arg: $ty),*) -> Result<bool, SimError> {
            if !self.designs.implemented(Hook::$variant) {
                return Ok(false);
            }
            let listeners = self.designs.listeners(Hook::$variant);
            for i in listeners.iter() {
                if let Some(f) = self.designs.table(i).$name {
                    if f(self, $($arg),*)? {
                        return Ok(true);
                    }
                }
            }
            Ok(false)
        }
    };
    // Timers go to the design that scheduled them (`Simulator::design_timer`).
    (@dispatch routed $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {};
    (@dispatch report $variant:ident $name:ident ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        pub(crate) fn $name(&self, $($arg: $ty),*) {
            let listeners = self.designs.listeners(Hook::$variant);
            for i in listeners.iter() {
                if let Some(f) = self.designs.table(i).$name {
                    f(self, $($arg),*);
                }
            }
        }
    };
}

hooks! {
    notify RunStarting run_starting() -> ();
    notify_result RequestArrived request_arrived() -> Result<(), SimError>;
    decide RequestReceived request_received(slot: u32) -> Result<bool, SimError>;
    decide WriteRequestType write_request_type(pages: u32, record: &Record) -> u8;
    decide PlaceWrite place_write(static_plane: u32, request: u32, lpn: u32) -> (u32, WriteMode);
    decide SplitWrite split_write(slot: u32, lpn: u32, unit: u32, units: u32) -> Result<Option<u32>, SimError>;
    notify WriteQueued write_queued(txn: u32) -> ();
    notify WriteMoved write_moved(txn: u32, from: u32) -> ();
    decide ReprogramsInPlace reprograms_in_place(lpn: u32, old: Ppn) -> bool;
    decide InPlaceClaim in_place_claim(ppn: Ppn) -> Option<Ppn>;
    decide_ref PartialTargetOk partial_target_ok(txn: u32) -> bool;
    decide_ref PacksSmallWrites packs_small_writes() -> bool;
    decide_ref PairsUserWrites pairs_user_writes() -> bool;
    decide_ref JoinsMultiPlane joins_multi_plane(txn: u32) -> bool;
    decide WritePartner write_partner(die: u32, txn: u32) -> Option<usize>;
    decide UserPage user_page(txn: u32) -> Option<Allocated>;
    decide PairPages pair_pages(l: u32, m: u32) -> Option<(Allocated, Allocated)>;
    notify WriteBound write_bound(txn: u32, slc: bool) -> ();
    notify_result WriteProgrammed write_programmed(plane: u32) -> Result<(), SimError>;
    decide_ref GcMoveTarget gc_move_target(plane: u32) -> MoveTarget;
    decide GcPage gc_page(plane: u32, from: Ppn) -> Option<Allocated>;
    decide GcPageElsewhere gc_page_elsewhere(to: u32) -> Option<Allocated>;
    decide GcVictim gc_victim(plane: u32) -> Option<u32>;
    notify GcMoved gc_moved(pages: u64, out_of_slc: bool, cross_plane: bool) -> ();
    notify BlockErased block_erased(plane: u32, block: u32, slc: bool) -> ();
    notify_result EraseDone erase_done(block: u32) -> Result<(), SimError>;
    chain DieWork die_work(die: u32) -> Result<bool, SimError>;
    chain IdleWork idle_work(die: u32) -> Result<bool, SimError>;
    notify_result CopyReleased copy_released(old: Ppn, request: u32) -> Result<(), SimError>;
    decide MaintenanceDone maintenance_done(kind: TxnKind, tag: u32) -> Result<(), SimError>;
    decide SanitizeRequested sanitize_requested(slot: u32) -> Result<(), SimError>;
    chain HostFinished host_finished() -> Result<bool, SimError>;
    notify_result DeviceIdle device_idle() -> Result<(), SimError>;
    notify CommandStarted command_started(die: u32) -> ();
    notify CommandEnded command_ended(die: u32) -> ();
    routed Timer timer(tag: u8) -> Result<(), SimError>;
    notify PowerLost power_lost() -> ();
    notify PowerRecovered power_recovered() -> ();
    report Report report(report: &mut Report) -> ();
}
