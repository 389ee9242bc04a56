//! Designs added from outside the crate through the public API (`Simulator::add_design`):
//! write points as a write mode, composition refused on a shared decision.

use super::*;
use ssdlab_core::designs::{Design, Hook};
use ssdlab_core::ftl::WriteMode;

/// The first few user writes to user write point 0, every other one to write point 1:
/// point 0 keeps an open block with room all run, while point 1 fills blocks as fast as
/// GC frees them. (A room check that looked at the plane instead of point 1 is not caught
/// here: emergency GC keeps two free blocks, so a user write meets a full point 1 with
/// the plane's last free block GC's only in interleavings this drive does not reach.)
struct AllToPointOne {
    placed: u64,
}

impl Design for AllToPointOne {
    const NAME: &'static str = "all-to-point-one";
    const HOOKS: &'static [Hook] = &[Hook::PlaceWrite];

    fn place_write(sim: &mut Simulator<'_>, plane: u32, _request: u32, _lpn: u32) -> (u32, WriteMode) {
        let d = sim.design_mut::<AllToPointOne>();
        d.placed += 1;
        (plane, WriteMode::UserPoint(u8::from(d.placed > 4)))
    }
}

fn drive() -> Config {
    let mut c = tiny(1, 1, 2, 2);
    slc_like(&mut c);
    c.ftl.user_write_points = 2;
    // GC as late as the FTL lets it start (two free blocks left): write point 1 often
    // waits for a block.
    c.ftl.gc_background_free_fraction = 0.0;
    c.ftl.gc_emergency_free_fraction = 0.0;
    c.precondition.used_fraction = 0.9;
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 32;
    c.output.check_every = 97;
    c
}

fn simulator(config: Config, records: Vec<Record>) -> Simulator<'static> {
    let factory = Box::new(move || Ok(Box::new(VecSource::new(records.clone())) as Box<dyn RecordSource>));
    let mut sim = Simulator::new(config, factory, Observers::default()).expect("valid setup");
    sim.set_check(true);
    sim.set_verify(true);
    sim.set_event_budget(50_000_000);
    sim
}

#[test]
fn a_write_to_a_full_write_point_waits_for_gc_rather_than_taking_another_points_block() {
    let config = drive();
    let pages = simulator(config.clone(), Vec::new()).ftl.logical_pages as u64;
    let records = random_requests(6_000, 4, pages, Op::Write, 4096, 3);
    let mut sim = simulator(config, records);
    sim.add_design(AllToPointOne { placed: 0 }).expect("the only design");
    let (report, _) = sim.run_to_end().expect("no write panics on a full write point; checks hold");
    assert_eq!(report.write.requests, 6_000);
    assert!(report.gc.erases > 20, "GC must have freed blocks for write point 1: {}", report.gc.erases);
    assert_eq!(report.flash.user_page_programs, 24_000);
    assert_eq!(sim.active_designs(), vec!["all-to-point-one"]);
}

/// Another design deciding where user writes go.
struct Elsewhere;

impl Design for Elsewhere {
    const NAME: &'static str = "elsewhere";
    const HOOKS: &'static [Hook] = &[Hook::PlaceWrite, Hook::GcVictim];
}

#[test]
fn two_designs_deciding_one_hook_are_refused_and_a_second_of_a_kind_too() {
    let mut sim = simulator(drive(), Vec::new());
    sim.add_design(AllToPointOne { placed: 0 }).expect("first");
    let e = sim.add_design(Elsewhere).expect_err("both decide place_write").to_string();
    assert_eq!(
        e,
        "designs all-to-point-one and elsewhere cannot run together: both decide `place_write` (a decision hook \
         only one design may implement); select one of them"
    );
    let e = sim.add_design(AllToPointOne { placed: 0 }).expect_err("one of a kind").to_string();
    assert!(e.contains("active already"), "{e}");
    assert_eq!(sim.decider_of(Hook::PlaceWrite), Some("all-to-point-one"));
    assert_eq!(sim.decider_of(Hook::GcVictim), None);
}
