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

/// A design that claims the program order of a block's pages and needs a page map.
struct Claimer;

impl Design for Claimer {
    const NAME: &'static str = "claimer";
    const HOOKS: &'static [Hook] = &[Hook::Report];
    const NEEDS: &'static [ssdlab_core::designs::Need] = &[ssdlab_core::designs::Need::PageMap];
    const CLAIMS: &'static [ssdlab_core::designs::Claim] = &[ssdlab_core::designs::Claim::ProgramOrder];
}

#[test]
fn an_outside_design_is_refused_on_a_drive_without_its_needs_and_beside_a_design_claiming_the_same() {
    let mut c = drive();
    c.ftl.mapping = ssdlab_core::config::Mapping::HalfPages;
    c.ftl.user_write_points = 1;
    c.geometry.subpages_per_page = 2;
    let mut sim = simulator(c, Vec::new());
    let e = sim.add_design(Claimer).expect_err("needs a page map").to_string();
    assert_eq!(e, "design claimer is not modelled with a map other than ftl.mapping = \"page\"");
    // Beside scrubbing, which claims the program order too.
    let mut c = drive();
    c.ftl.user_write_points = 1;
    c.scrub.mode = ssdlab_core::config::ScrubMode::Background;
    let mut sim = simulator(c, Vec::new());
    assert_eq!(sim.active_designs(), vec!["scrub"]);
    let e = sim.add_design(Claimer).expect_err("both claim the program order").to_string();
    assert_eq!(
        e,
        "designs scrub and claimer cannot run together: both claim the program order of a block's pages \
         (`Claim::ProgramOrder`); select one of them"
    );
}

#[test]
fn built_in_designs_compose_by_hooks_and_claims_not_by_lists() {
    // Scrubbing and PA-SSD both claim the program order: refused, at the later design's key.
    let mut c = Config::default();
    c.scrub.mode = ssdlab_core::config::ScrubMode::Immediate;
    c.pa.scheme = "hgs".into();
    let errors = c.validate().expect_err("refused");
    assert!(
        errors.iter().any(|e| e.key == "scrub.mode"
            && e.message.starts_with("designs pa-ssd and scrub cannot run together: both claim the program order")),
        "{errors:?}"
    );
    // Gordon's write points (which decide the plane) with scrubbing (notifications only):
    // they compose, and run together with every check on.
    let mut c = tiny(2, 2, 1, 1);
    c.precondition.used_fraction = 0.7;
    c.gordon.write_points_per_channel = 1;
    c.scrub.mode = ssdlab_core::config::ScrubMode::Immediate;
    c.validate().expect("Gordon and scrubbing compose");
    let pages = simulator(c.clone(), Vec::new()).ftl.logical_pages as u64;
    let records = random_requests(3_000, 2, pages, Op::Write, 4096, 11);
    let mut sim = simulator(c, records);
    assert_eq!(sim.active_designs(), vec!["gordon", "scrub"]);
    let (report, _) = sim.run_to_end().expect("checks hold");
    let scrub = report.scrub.as_ref().expect("scrubbing reports");
    assert!(scrub.pages_scrubbed > 0, "{scrub:?}");
    assert!(report.gordon.is_some(), "Gordon reports");
    assert_eq!(report.write.requests, 3_000);
}

/// Notes when it is offered a free die through `die_work` (its only hook).
struct DieWorkOffers(Vec<u64>);

impl Design for DieWorkOffers {
    const NAME: &'static str = "die-work-offers";
    const HOOKS: &'static [Hook] = &[Hook::DieWork];

    fn die_work(sim: &mut Simulator<'_>, _die: u32) -> Result<bool, ssdlab_core::SimError> {
        let now = sim.now();
        sim.design_mut::<DieWorkOffers>().0.push(now);
        Ok(false)
    }
}

/// Notes when it is offered a free die through `idle_work` (its only hook).
struct IdleWorkOffers(Vec<u64>);

impl Design for IdleWorkOffers {
    const NAME: &'static str = "idle-work-offers";
    const HOOKS: &'static [Hook] = &[Hook::IdleWork];

    fn idle_work(sim: &mut Simulator<'_>, _die: u32) -> Result<bool, ssdlab_core::SimError> {
        let now = sim.now();
        sim.design_mut::<IdleWorkOffers>().0.push(now);
        Ok(false)
    }
}

/// The scheduler's quick test for a die with nothing to start (`engine/reroute.rs`,
/// `nothing_to_start`) must not skip a design's `die_work` or `idle_work`: a die freed
/// with empty queues is offered to each, alone as well (the built-in designs with
/// `idle_work` all have `die_work` too). Eight single-page writes 1 ms apart each end on
/// a die with nothing queued: `die_work` is offered a die at times no write arrives (it
/// is offered one at each arrival too, the write queued), `idle_work` at least once a
/// write (never at an arrival: the write starts first).
#[test]
fn an_outside_designs_die_and_idle_work_are_offered_dies_freed_with_empty_queues() {
    let n = 8u64;
    let records: Vec<Record> = (0..n).map(|i| rec(i * 1_000_000, Op::Write, 3 * i, 1, 4096)).collect();
    let arrivals: Vec<u64> = records.iter().map(|r| r.arrival_ns).collect();
    let mut c = tiny(1, 1, 2, 2);
    slc_like(&mut c);

    let mut sim = simulator(c.clone(), records.clone());
    sim.add_design(DieWorkOffers(Vec::new())).expect("the only design");
    let (report, _) = sim.run_to_end().expect("runs");
    assert_eq!(report.write.requests, n);
    let offers = &sim.design::<DieWorkOffers>().0;
    let idle = offers.iter().filter(|t| !arrivals.contains(t)).count() as u64;
    assert!(idle >= n, "die_work offered {} times, {idle} of them away from arrivals: {offers:?}", offers.len());
    assert!(offers.last() > arrivals.last(), "offered after the last write: {offers:?}");

    let mut sim = simulator(c, records);
    sim.add_design(IdleWorkOffers(Vec::new())).expect("the only design");
    let (report, _) = sim.run_to_end().expect("runs");
    assert_eq!(report.write.requests, n);
    let offers = &sim.design::<IdleWorkOffers>().0;
    assert!(offers.len() as u64 >= n, "idle_work offered {} times: {offers:?}", offers.len());
    assert!(offers.iter().all(|t| !arrivals.contains(t)), "{offers:?}");
}
