//! Designs: the research works' policies, each in its own module, plugged into the
//! engine through the hooks below. The engine's dispatcher modules (`engine.rs`,
//! `engine/host.rs`, `scheduler.rs`, `command.rs`, `report.rs`, `power.rs`) name no
//! design; they call these hooks at fixed decision points, and the `match` here sends
//! each call to the active design (static dispatch: one enum, no trait objects).
//!
//! | hook | called when | the baseline (no design) |
//! |---|---|---|
//! | `run_starting` | before the first event of the run | nothing |
//! | `request_arrived` | a request enters the device, before it is split | nothing |
//! | `write_request_type` | a write request is split: the page type its pages ask for | none (`NO_TYPE`) |
//! | `place_write` | a user page write is queued: its plane and write stream | the plane allocator's plane, `WriteMode::Auto` |
//! | `split_write` | a subpage map's user write of part of a logical page is split off: the design may queue it itself (partial program, read-modify-write) | `None`: an ordinary write |
//! | `write_queued` / `write_moved` | a user write was queued / rerouted to another plane | nothing |
//! | `partial_target_ok` | a queued partial program is about to run: whether its page is still where the design wants it | yes |
//! | `packs_small_writes` | a write of part of a page is programmed: whether other queued small writes may share its page | yes |
//! | `pairs_user_writes` | queued user writes may share multi-plane programs | yes |
//! | `write_partner` | a user write is about to be programmed: the queued write that must share its command (its index in the die's queue) | `None` |
//! | `user_page` | a user write is programmed: the design picks its page | `None`: the write stream's next page |
//! | `pair_pages` | two writes are interleaved over one multi-plane program: their two pages | `None`: each write's own page |
//! | `write_bound` / `write_programmed` | a user write got its page / finished programming | nothing |
//! | `gc_move_target` | a GC step moves pages: same plane, another plane, or nowhere yet | `ftl.gc_destination` |
//! | `gc_victim` | a plane needing GC has no victim: the design may pick it | `None`: the FTL's `ftl.gc_victim` policy |
//! | `gc_page` | a same-plane GC move of a page needs its destination page | the GC write point; SLC pages by `ftl.slc_gc_destination` |
//! | `gc_moved` | a GC command moved pages (counts; whether they left the SLC cache) | nothing |
//! | `block_erased` | GC erased a block | nothing |
//! | `die_work` | a die is free, after emergency GC, before the user queues | nothing started |
//! | `device_idle` | the last outstanding request completed | nothing |
//! | `timer` | an `Event::Design` the design scheduled fired | — |
//! | `power_lost` | power failed: volatile design state is lost | nothing |
//! | `report` | the run ends: the design's section of the report | nothing |
//!
//! Adding a design: a module here (state + `impl Simulator` with its hook bodies), a
//! variant of [`Design`], one line in [`Design::new`], one arm in each hook it uses, its
//! config section (`config.rs` re-exports it) and its report section. See
//! ARCHITECTURE.md, "Adding a design".

mod baseline;
pub mod dir;
pub mod gordon;
pub mod ipu;
pub mod pa_ssd;
pub mod spa_hybrid;

use crate::config::Config;
use crate::engine::{SimError, Simulator, NO_TYPE};
use crate::flash::Ppn;
use crate::ftl::{Allocated, Ftl, WriteMode};
use crate::stats::Report;
use ssdlab_trace::Record;

/// The active design and its state.
pub(crate) enum Design {
    /// No design: the conventional FTL the papers compare against.
    Baseline,
    PaSsd(Box<pa_ssd::PaSsd>),
    SpaHybrid(Box<spa_hybrid::SpaHybrid>),
    Dir(Box<dir::Dir>),
    Ipu(Box<ipu::Ipu>),
    Gordon(Box<gordon::Gordon>),
}

/// Where a GC step's moved pages go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveTarget {
    /// Into the plane's own GC write point (`gc_page`).
    SamePlane,
    /// Out over the channel(s) to this plane (possibly of another die or chip): the
    /// source die senses and transfers out, the destination die transfers in and programs.
    Plane(u32),
    /// Nowhere yet (no plane can take the data): only an erase of an empty victim may run.
    Nowhere,
}

impl Design {
    /// The registration table: which design a config selects.
    pub(crate) fn new(config: &Config, ftl: &Ftl) -> Design {
        if config.pa.enabled() {
            return Design::PaSsd(Box::new(pa_ssd::PaSsd::new(config)));
        }
        if config.ipu.enabled() {
            return Design::Ipu(Box::new(ipu::Ipu::new(&config.ipu, ftl)));
        }
        if config.gordon.enabled() {
            let (per_channel, logical) = (config.gordon.write_points_per_channel, ftl.logical_pages);
            return Design::Gordon(Box::new(gordon::Gordon::new(per_channel, &ftl.addr, logical)));
        }
        if config.dir.scheme == crate::config::DirScheme::Dir {
            return Design::Dir(Box::new(dir::Dir::new(config)));
        }
        // TPJ-PA etc. also run on a drive without SLC (TPJ-PA then fills page sets first).
        if ftl.has_slc || config.hybrid.allocation != crate::config::HybridAllocation::Pf {
            return Design::SpaHybrid(Box::new(spa_hybrid::SpaHybrid::new(config, ftl.addr.planes())));
        }
        Design::Baseline
    }
}

/// The hooks: one method per decision point, each a `match` on the active design.
impl Simulator<'_> {
    pub(crate) fn run_starting(&mut self) {
        match self.design {
            Design::PaSsd(_) => self.pa_run_starting(),
            Design::Dir(_) => self.dir_run_starting(),
            Design::Ipu(_) => self.ipu_run_starting(),
            _ => {}
        }
    }

    pub(crate) fn request_arrived(&mut self) -> Result<(), SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_request_arrived(),
            _ => Ok(()),
        }
    }

    pub(crate) fn write_request_type(&mut self, pages: u32, record: &Record) -> u8 {
        match self.design {
            Design::PaSsd(_) => self.pa_write_request_type(pages, record),
            _ => NO_TYPE,
        }
    }

    pub(crate) fn place_write(&mut self, static_plane: u32, request: u32, lpn: u32) -> (u32, WriteMode) {
        match self.design {
            Design::Gordon(_) => (self.gordon_place_write(lpn), WriteMode::Auto),
            Design::SpaHybrid(_) if self.spa_places_writes() => self.spa_place_write(static_plane, request),
            Design::Dir(_) => (self.dir_place_write(static_plane, request), WriteMode::Auto),
            _ => (static_plane, WriteMode::Auto),
        }
    }

    pub(crate) fn split_write(&mut self, slot: u32, lpn: u32, unit: u32, units: u32) -> Result<Option<u32>, SimError> {
        match self.design {
            Design::Ipu(_) => self.ipu_split_write(slot, lpn, unit, units),
            _ => Ok(None),
        }
    }

    pub(crate) fn write_queued(&mut self, txn: u32) {
        match self.design {
            Design::SpaHybrid(_) => self.spa_write_queued(txn),
            Design::Dir(_) => self.dir_write_queued(txn),
            Design::Ipu(_) => self.ipu_write_queued(txn),
            _ => {}
        }
    }

    pub(crate) fn partial_target_ok(&self, txn: u32) -> bool {
        match self.design {
            Design::Ipu(_) => self.ipu_partial_target_ok(txn),
            _ => true,
        }
    }

    pub(crate) fn packs_small_writes(&self) -> bool {
        match &self.design {
            // The IPU Baseline's and IPU's pages hold one logical page each (MGA packs).
            Design::Ipu(d) => d.packs(),
            _ => true,
        }
    }

    pub(crate) fn write_moved(&mut self, txn: u32, from: u32) {
        if let Design::SpaHybrid(_) = self.design {
            self.spa_write_moved(txn, from);
        }
    }

    pub(crate) fn pairs_user_writes(&self) -> bool {
        match self.design {
            Design::Baseline => true,
            // Type-specified writes are programmed alone.
            Design::PaSsd(_) => false,
            // Writes placed by a hybrid policy carry a mode of their own.
            Design::SpaHybrid(_) => !self.spa_places_writes(),
            // Only a group's two pages share a command (`write_partner`).
            Design::Dir(_) => false,
            // IPU's levels are write streams of their own; its Table 2 names no
            // multi-plane programs, so none of its three schemes forms them.
            Design::Ipu(_) => false,
            Design::Gordon(_) => true,
        }
    }

    pub(crate) fn write_partner(&mut self, die: u32, txn: u32) -> Option<usize> {
        match self.design {
            Design::Dir(_) => self.dir_write_partner(die, txn),
            _ => None,
        }
    }

    pub(crate) fn user_page(&mut self, txn: u32) -> Option<Allocated> {
        match self.design {
            Design::PaSsd(_) => Some(self.pa_user_page(txn)),
            Design::Dir(_) => Some(self.dir_user_page(txn)),
            Design::Ipu(_) => self.ipu_user_page(txn),
            _ => None,
        }
    }

    pub(crate) fn pair_pages(&mut self, l: u32, m: u32) -> Option<(Allocated, Allocated)> {
        match self.design {
            Design::Dir(_) => Some(self.dir_pair_pages(l, m)),
            _ => None,
        }
    }

    pub(crate) fn write_bound(&mut self, txn: u32, slc: bool) {
        match self.design {
            Design::SpaHybrid(_) => self.spa_write_bound(txn, slc),
            Design::Ipu(_) => self.ipu_write_bound(txn, slc),
            _ => {}
        }
    }

    pub(crate) fn write_programmed(&mut self, plane: u32) -> Result<(), SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_write_programmed(plane),
            _ => Ok(()),
        }
    }

    pub(crate) fn gc_move_target(&self, plane: u32) -> MoveTarget {
        match self.design {
            Design::Baseline => self.baseline_gc_move_target(plane),
            Design::PaSsd(_) | Design::Dir(_) | Design::Ipu(_) | Design::Gordon(_) => MoveTarget::SamePlane,
            Design::SpaHybrid(_) => self.spa_gc_move_target(plane),
        }
    }

    /// The destination page of a same-plane GC move of the page `from`.
    pub(crate) fn gc_page(&mut self, plane: u32, from: Ppn) -> Option<Allocated> {
        match self.design {
            Design::PaSsd(_) => self.pa_gc_page(plane),
            Design::Dir(_) => self.dir_gc_page(plane),
            Design::Ipu(_) => match self.ipu_gc_page(plane, from) {
                Some(page) => page,
                None => self.baseline_gc_page(plane, from),
            },
            // The SPA hybrid's SLC cache is the conventional one where it does not migrate.
            Design::Baseline | Design::SpaHybrid(_) | Design::Gordon(_) => self.baseline_gc_page(plane, from),
        }
    }

    /// The block GC cleans next in `plane` when it has none, or `None` for the FTL's
    /// victim policy (`ftl.gc_victim`). A design that ranks blocks by its own bookkeeping
    /// (IPU's ISR) answers here.
    pub(crate) fn gc_victim(&mut self, plane: u32) -> Option<u32> {
        match self.design {
            Design::Ipu(_) => self.ipu_gc_victim(plane),
            Design::Baseline | Design::PaSsd(_) | Design::SpaHybrid(_) | Design::Dir(_) | Design::Gordon(_) => None,
        }
    }

    pub(crate) fn gc_moved(&mut self, pages: u64, out_of_slc: bool, cross_plane: bool) {
        match &mut self.design {
            Design::SpaHybrid(h) => h.gc_moved(pages, out_of_slc, cross_plane),
            Design::Ipu(d) => d.gc_moved(pages, out_of_slc),
            _ => {}
        }
    }

    pub(crate) fn block_erased(&mut self, plane: u32, slc: bool) {
        if let Design::SpaHybrid(_) = self.design {
            if slc {
                self.spa_slc_reclaimed(plane);
            }
        }
    }

    pub(crate) fn die_work(&mut self, die: u32) -> Result<bool, SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_die_work(die),
            _ => Ok(false),
        }
    }

    pub(crate) fn device_idle(&mut self) {
        if let Design::SpaHybrid(_) = self.design {
            self.spa_device_idle();
        }
    }

    pub(crate) fn timer(&mut self, tag: u8) -> Result<(), SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_timer(tag),
            _ => Ok(()),
        }
    }

    pub(crate) fn power_lost(&mut self) {
        match &mut self.design {
            Design::SpaHybrid(h) => {
                h.reset_volatile();
                self.ftl.slc_migrating.fill(false);
            }
            Design::Dir(_) => self.dir_power_lost(),
            Design::Ipu(d) => d.power_lost(),
            _ => {}
        }
    }

    pub(crate) fn design_report(&self, report: &mut Report) {
        match &self.design {
            // DIR's section covers its baselines too (`report.rs`).
            Design::Baseline | Design::Dir(_) => {}
            Design::PaSsd(pa) => report.pa = Some(pa.summary(&self.config, &self.ftl)),
            Design::Gordon(_) => report.gordon = self.gordon_summary(),
            Design::SpaHybrid(_) => report.hybrid = self.spa_summary(),
            Design::Ipu(_) => {
                report.ipu = self.ipu_summary();
                if let Some(s) = &report.ipu {
                    report.device.mapping_table_bytes = s.mapping_table_bytes;
                }
            }
        }
    }
}
