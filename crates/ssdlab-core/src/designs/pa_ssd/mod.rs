//! PA-SSD (Zhang et al., ICS '18, seed 000): page-type aware allocation. The host side
//! assigns every user write request a page type (`scheme`); at program time pa-BLAlloc
//! (`ftl::relaxed`, under the relaxed program constraints) picks a page of that type, and
//! GC moves take a type from UBS. Config: `[pa]` (`PaConfig`); report: `pa`.

pub mod config;
pub mod scheme;

use super::{BuiltIn, Design, Hook, MoveTarget};
use crate::config::Config;
use crate::engine::Simulator;
use crate::flash::Ppn;
use crate::ftl::{Allocated, Ftl};
use crate::stats::{PaSummary, Report};
use scheme::{PaPolicy, WriteContext};
use ssdlab_trace::Record;

/// PA-SSD's state: the scheme and pa-BLAlloc's success counters.
pub(crate) struct PaSsd {
    policy: PaPolicy,
    typed_allocations: u64,
    typed_successes: u64,
}

impl PaSsd {
    pub(crate) fn new(config: &Config) -> Self {
        PaSsd {
            policy: PaPolicy::new(&config.pa, config.bits_per_cell(), config.seed),
            typed_allocations: 0,
            typed_successes: 0,
        }
    }

    pub(crate) fn summary(&self, config: &Config, ftl: &Ftl) -> PaSummary {
        PaSummary {
            scheme: config.pa.scheme.clone(),
            assigned_by_type: self.policy.assigned.clone(),
            typed_allocations: self.typed_allocations,
            type_matched: self.typed_successes,
            success_rate: self.typed_successes as f64 / self.typed_allocations.max(1) as f64,
            unprogrammed_pages_reclaimed: ftl.counters.unprogrammed_reclaimed,
        }
    }
}

impl Design for PaSsd {
    const NAME: &'static str = "pa-ssd";
    const HOOKS: &'static [Hook] = &[
        Hook::RunStarting,
        Hook::WriteRequestType,
        Hook::PairsUserWrites,
        Hook::UserPage,
        Hook::GcMoveTarget,
        Hook::GcPage,
        Hook::Report,
    ];
    const NEEDS: &'static [super::Need] = &[super::Need::WholeMapInDram];
    const CLAIMS: &'static [super::Claim] = &[super::Claim::ProgramOrder];

    fn run_starting(sim: &mut Simulator<'_>) {
        sim.pa_run_starting();
    }

    fn write_request_type(sim: &mut Simulator<'_>, pages: u32, record: &Record) -> u8 {
        sim.pa_write_request_type(pages, record)
    }

    /// Type-specified writes are programmed alone.
    fn pairs_user_writes(_sim: &Simulator<'_>) -> bool {
        false
    }

    fn user_page(sim: &mut Simulator<'_>, txn: u32) -> Option<Allocated> {
        Some(sim.pa_user_page(txn))
    }

    fn gc_move_target(_sim: &Simulator<'_>, _plane: u32) -> MoveTarget {
        MoveTarget::SamePlane
    }

    fn gc_page(sim: &mut Simulator<'_>, plane: u32, _from: Ppn) -> Option<Allocated> {
        sim.pa_gc_page(plane)
    }

    fn report(sim: &Simulator<'_>, report: &mut Report) {
        report.pa = Some(sim.designs.state::<PaSsd>().summary(&sim.config, &sim.ftl));
    }
}

impl BuiltIn for PaSsd {
    const SECTION: &'static str = "pa";
    const KEY: &'static str = "pa.scheme";

    fn default_section() -> Option<toml::Value> {
        super::section_default::<crate::config::PaConfig>()
    }

    fn selected(config: &Config) -> bool {
        config.pa.enabled()
    }

    fn build(config: &Config, _ftl: &Ftl) -> Self {
        PaSsd::new(config)
    }
}

impl Simulator<'_> {
    /// The relaxed constraints start with the run (preconditioning writes in the strict
    /// order, like an aged conventional drive).
    pub(crate) fn pa_run_starting(&mut self) {
        if self.ftl.relaxed.is_none() {
            self.ftl.enable_relaxed();
        }
    }

    /// The page type a write request's sub-requests ask for.
    pub(crate) fn pa_write_request_type(&mut self, pages: u32, record: &Record) -> u8 {
        let ctx = WriteContext {
            pages,
            hint: record.hint,
            queue_length: self.outstanding,
            buffered_pages: self.buffered_write_pages,
            free_pages_by_type: &self.ftl.free_pages_by_type,
        };
        self.designs.state_mut::<PaSsd>().policy.assign(&ctx)
    }

    /// pa-BLAlloc: the page of the assigned type (or the nearest available) for a user
    /// write whose plane was checked to have room.
    pub(crate) fn pa_user_page(&mut self, txn: u32) -> Allocated {
        let (plane, want) = (self.txns[txn as usize].plane, self.txns[txn as usize].want);
        let (a, matched) = self.ftl.allocate_typed(plane, want, 1, self.now).expect("room was checked");
        let pa = self.designs.state_mut::<PaSsd>();
        pa.typed_allocations += 1;
        pa.typed_successes += u64::from(matched);
        a
    }

    /// GC moves take a page type from UBS (§4.2).
    pub(crate) fn pa_gc_page(&mut self, plane: u32) -> Option<Allocated> {
        let want = self.designs.state_mut::<PaSsd>().policy.assign_gc(&self.ftl.free_pages_by_type);
        self.ftl.allocate_typed(plane, want, 0, self.now).map(|(a, _)| a)
    }
}
