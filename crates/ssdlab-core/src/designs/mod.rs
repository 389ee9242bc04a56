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
//! | `reprograms_in_place` / `in_place_claim` | a whole-page write of a page with a copy is split / its in-place reprogram starts: program it into that page (after reading it), and the companion page to reprogram along | no |
//! | `partial_target_ok` | a queued partial program is about to run: whether its page is still where the design wants it | yes |
//! | `packs_small_writes` | a write of part of a page is programmed: whether other queued small writes may share its page | yes |
//! | `pairs_user_writes` | queued user writes may share multi-plane programs | yes |
//! | `joins_multi_plane` | a queued user write could share a multi-plane program | yes |
//! | `write_partner` | a user write is about to be programmed: the queued write that must share its command (its index in the die's queue) | `None` |
//! | `user_page` | a user write is programmed: the design picks its page | `None`: the write stream's next page |
//! | `pair_pages` | two writes are interleaved over one multi-plane program: their two pages | `None`: each write's own page |
//! | `write_bound` / `write_programmed` | a user write got its page / finished programming | nothing |
//! | `gc_move_target` | a GC step moves pages: same plane, another plane, or nowhere yet | `ftl.gc_destination` |
//! | `gc_victim` | a plane needing GC has no victim: the design may pick it | `None`: the FTL's `ftl.gc_victim` policy |
//! | `gc_page` | a same-plane GC move of a page needs its destination page | the GC write point; SLC pages by `ftl.slc_gc_destination` |
//! | `gc_moved` | a GC command moved pages (counts; whether they left the SLC cache) | nothing |
//! | `prepare_ftl` | before preconditioning: FTL state the design needs from the first write (OOB) | nothing |
//! | `copy_released` | a user write's superseded copy is no longer needed (the write is programmed), or a trim unmapped a page | nothing |
//! | `block_erased` / `erase_done` | GC erased a block (the command starts / ends) | nothing |
//! | `gc_page_elsewhere` | a GC move out of another plane needs its destination page | the destination's GC write point |
//! | `command_started` / `command_ended` | a die's command starts / completes | nothing |
//! | `die_work` | a die is free, after emergency GC, before the user queues | nothing started |
//! | `idle_work` | a die is free and its queues and background GC started nothing | nothing started |
//! | `maintenance_done` | a scrub or scan command the design started ended | — |
//! | `sanitize_requested` | a sanitise request reached the device | its range trimmed |
//! | `host_finished` | the workload is done and no request is outstanding: issue more work? | no |
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
pub mod harey;
pub mod ipu;
pub mod mango;
pub mod pa_ssd;
pub mod scrub;
pub mod spa_hybrid;
pub mod wom;

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
    Scrub(Box<scrub::Scrub>),
    Wom(Box<wom::Wom>),
    Harey(Box<harey::Harey>),
    Mango(Box<mango::Mango>),
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
        if config.harey.enabled() {
            return Design::Harey(Box::new(harey::Harey::new(config, ftl)));
        }
        if config.mango.enabled() {
            return Design::Mango(Box::new(mango::Mango::new(config, ftl)));
        }
        if config.dir.scheme == crate::config::DirScheme::Dir {
            return Design::Dir(Box::new(dir::Dir::new(config)));
        }
        if config.wom.enabled() {
            return Design::Wom(Box::new(wom::Wom::new(config, ftl)));
        }
        if config.scrub.enabled() || config.scrub.sanitize_bytes > 0 {
            return Design::Scrub(Box::new(scrub::Scrub::new(config, ftl)));
        }
        // TPJ-PA etc. also run on a drive without SLC (TPJ-PA then fills page sets first).
        if ftl.has_slc || config.hybrid.allocation != crate::config::HybridAllocation::Pf {
            return Design::SpaHybrid(Box::new(spa_hybrid::SpaHybrid::new(config, ftl.addr.planes())));
        }
        Design::Baseline
    }

    /// FTL state a design needs from the first page written, preconditioning included
    /// (called before preconditioning, on the config `Design::new` will see).
    pub(crate) fn prepare_ftl(config: &Config, ftl: &mut Ftl) {
        if config.wom.enabled() {
            // The code's third page of every trio of WOM-safe pages.
            wom::prepare_ftl(config, ftl);
        }
        if config.harey.enabled() {
            // The Harey Tortoise's many write points start above the GC threshold.
            ftl.fill_reserves_write_points = true;
        }
        if config.scrub.enabled() {
            // Scrubbing and sanitisation find copies by the logical page in each page's
            // out-of-band area (the block summaries recovery reads, thesis §6.2.2).
            ftl.track_oob();
        }
    }
}

/// What scrubbing and WOM codes, the two designs that reprogram written pages in place,
/// are not modelled with: the other designs, and the maps and programming schemes whose
/// pages are not one logical page programmed whole. Each design adds its own. (The Harey
/// Tortoise, which picks pages by write point and type, refuses the same.)
pub(crate) fn reprogram_conflicts(config: &Config) -> [(bool, &'static str); 9] {
    use crate::config::{DirScheme, Mapping, ProgramScheme};
    [
        (config.pa.enabled(), "PA-SSD (pa.scheme)"),
        (config.ipu.enabled(), "IPU (ipu.scheme)"),
        (config.dir.scheme != DirScheme::Off, "DIR (dir.scheme)"),
        (config.gordon.enabled(), "Gordon's write points (gordon.write_points_per_channel)"),
        (config.cmt.enabled(), "a cached mapping table ([cmt])"),
        (config.super_page_pages() > 1, "super-pages"),
        (config.ftl.mapping != Mapping::Page, "a map other than ftl.mapping = \"page\""),
        (config.flash.program_scheme == ProgramScheme::OneShot, "one-shot programming"),
        (config.ftl.partial_program_updates, "partial programs (ftl.partial_program_updates)"),
    ]
}

/// The hooks: one method per decision point, each a `match` on the active design.
impl Simulator<'_> {
    pub(crate) fn run_starting(&mut self) {
        match self.design {
            Design::Scrub(_) => self.scrub_run_starting(),
            Design::Wom(_) => self.wom_run_starting(),
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

    /// A whole-page user write of `lpn`, whose copy is in `old`, is split: whether it is
    /// reprogrammed in place there (`engine/reprogram.rs`).
    pub(crate) fn reprograms_in_place(&mut self, lpn: u32, old: Ppn) -> bool {
        match self.design {
            Design::Wom(_) => self.wom_reprograms_in_place(lpn, old),
            _ => false,
        }
    }

    /// An in-place reprogram of `ppn` is about to start: `None` if the design no longer
    /// wants it there (it becomes an ordinary write), else the companion page to read and
    /// reprogram along (`NO_PAGE`: none). The design's state changes with the claim.
    pub(crate) fn in_place_claim(&mut self, ppn: Ppn) -> Option<Ppn> {
        match self.design {
            Design::Wom(_) => self.wom_in_place_claim(ppn),
            _ => None,
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
            Design::Baseline | Design::Scrub(_) | Design::Wom(_) => true,
            // Low-priority writes only (`joins_multi_plane`).
            Design::Mango(_) => true,
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
            // A write's page is the design's choice of write point, one write at a time.
            Design::Harey(_) => false,
        }
    }

    /// Whether queued user write `txn` may share a multi-plane program (when the design
    /// pairs user writes at all).
    pub(crate) fn joins_multi_plane(&self, txn: u32) -> bool {
        match self.design {
            // A high-priority write may skip pages in its plane: a multi-plane program's
            // pages must share their address.
            Design::Mango(_) => !self.mango_is_high(txn),
            _ => true,
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
            Design::Harey(_) => self.harey_user_page(txn),
            Design::Mango(_) => self.mango_user_page(txn),
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
            Design::Baseline | Design::Scrub(_) | Design::Wom(_) | Design::Harey(_) | Design::Mango(_) => {
                self.baseline_gc_move_target(plane)
            }
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
            Design::Harey(_) => match self.harey_gc_page(plane) {
                Some(page) => Some(page),
                None => self.baseline_gc_page(plane, from),
            },
            Design::Mango(_) => {
                self.mango_gc_page(plane, from);
                self.baseline_gc_page(plane, from)
            }
            // The SPA hybrid's SLC cache is the conventional one where it does not migrate.
            Design::Baseline | Design::SpaHybrid(_) | Design::Scrub(_) | Design::Wom(_) | Design::Gordon(_) => {
                self.baseline_gc_page(plane, from)
            }
        }
    }

    /// The destination page in `to` of a GC move out of another plane (`MoveTarget::Plane`).
    pub(crate) fn gc_page_elsewhere(&mut self, to: u32) -> Option<Allocated> {
        match self.design {
            Design::Harey(_) => self.harey_gc_page(to),
            _ => None,
        }
        .or_else(|| self.ftl.allocate_gc(to, self.now))
    }

    /// The block GC cleans next in `plane` when it has none, or `None` for the FTL's
    /// victim policy (`ftl.gc_victim`). A design that ranks blocks by its own bookkeeping
    /// (IPU's ISR) answers here.
    pub(crate) fn gc_victim(&mut self, plane: u32) -> Option<u32> {
        match self.design {
            Design::Ipu(_) => self.ipu_gc_victim(plane),
            _ => None,
        }
    }

    pub(crate) fn gc_moved(&mut self, pages: u64, out_of_slc: bool, cross_plane: bool) {
        match &mut self.design {
            Design::SpaHybrid(h) => h.gc_moved(pages, out_of_slc, cross_plane),
            Design::Ipu(d) => d.gc_moved(pages, out_of_slc),
            Design::Harey(_) => self.harey_gc_moved(pages),
            _ => {}
        }
    }

    pub(crate) fn block_erased(&mut self, plane: u32, block: u32, slc: bool) {
        match self.design {
            Design::SpaHybrid(_) if slc => self.spa_slc_reclaimed(plane),
            Design::Scrub(_) => self.scrub_block_erased(block),
            Design::Wom(_) => self.wom_block_erased(block),
            Design::Harey(_) => self.harey_block_erased(),
            Design::Mango(_) => self.mango_block_erased(plane, block),
            _ => {}
        }
    }

    /// The erase of `block` (started with `block_erased`) has ended.
    pub(crate) fn erase_done(&mut self, block: u32) -> Result<(), SimError> {
        match self.design {
            Design::Scrub(_) => self.scrub_erase_done(block),
            _ => Ok(()),
        }
    }

    pub(crate) fn die_work(&mut self, die: u32) -> Result<bool, SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_die_work(die),
            Design::Scrub(_) => self.scrub_die_work(die),
            Design::Harey(_) => self.harey_die_work(die),
            _ => Ok(false),
        }
    }

    /// A die found nothing to start in its queues nor background GC.
    pub(crate) fn idle_work(&mut self, die: u32) -> Result<bool, SimError> {
        match self.design {
            Design::Scrub(_) => self.scrub_idle_work(die),
            Design::Harey(_) => self.harey_idle_work(die),
            _ => Ok(false),
        }
    }

    /// The old copy `old` of a user write (now programmed) or a trim is no longer needed;
    /// `request` still waits for the write or trim (`NO_REQUEST`: nothing waits). A design
    /// may keep the request waiting (`hold_request`) until it has destroyed the copy.
    pub(crate) fn copy_released(&mut self, old: Ppn, request: u32) -> Result<(), SimError> {
        match self.design {
            Design::Scrub(_) => self.scrub_copy_released(old, request),
            _ => Ok(()),
        }
    }

    /// A scrub or scan command a design started (`maintenance.rs`) ended; `tag` is the one
    /// it gave.
    pub(crate) fn maintenance_done(&mut self, kind: crate::engine::TxnKind, tag: u32) -> Result<(), SimError> {
        match self.design {
            Design::Scrub(_) => self.scrub_maintenance_done(kind, tag),
            _ => Ok(()),
        }
    }

    /// A sanitise request (`Op::Sanitize`) reached the device. Without a design that
    /// sanitises, its range is trimmed (old copies stay on flash).
    pub(crate) fn sanitize_requested(&mut self, slot: u32) -> Result<(), SimError> {
        match self.design {
            Design::Scrub(_) => self.scrub_sanitize(slot),
            _ => self.trim_request(slot),
        }
    }

    /// The workload is done and nothing is outstanding: true if the design issued more
    /// work or waits for a timer of its own (the run goes on).
    pub(crate) fn host_finished(&mut self) -> Result<bool, SimError> {
        match self.design {
            Design::Scrub(_) => self.scrub_host_finished(),
            _ => Ok(false),
        }
    }

    pub(crate) fn device_idle(&mut self) -> Result<(), SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_device_idle(),
            Design::Harey(_) => return self.harey_device_idle(),
            _ => {}
        }
        Ok(())
    }

    /// A command starts on `die` (after `mark_busy`).
    pub(crate) fn command_started(&mut self, die: u32) {
        if let Design::Harey(_) = self.design {
            self.harey_command_started(die);
        }
    }

    /// `die`'s command completes (its transactions are still in `dies[die].command`).
    pub(crate) fn command_ended(&mut self, die: u32) {
        if let Design::Harey(_) = self.design {
            self.harey_command_ended(die);
        }
    }

    pub(crate) fn timer(&mut self, tag: u8) -> Result<(), SimError> {
        match self.design {
            Design::SpaHybrid(_) => self.spa_timer(tag),
            Design::Scrub(_) => self.scrub_timer(tag),
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
            Design::Scrub(d) => d.power_lost(),
            Design::Harey(d) => d.power_lost(),
            _ => {}
        }
    }

    pub(crate) fn design_report(&self, report: &mut Report) {
        match &self.design {
            // DIR's section covers its baselines too (`report.rs`).
            Design::Baseline | Design::Dir(_) => {}
            Design::Scrub(_) => report.scrub = Some(self.scrub_summary()),
            Design::Wom(_) => report.wom = Some(self.wom_summary()),
            Design::PaSsd(pa) => report.pa = Some(pa.summary(&self.config, &self.ftl)),
            Design::Gordon(_) => report.gordon = self.gordon_summary(),
            Design::Harey(_) => report.harey = self.harey_summary(),
            Design::Mango(_) => self.mango_report(report),
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
