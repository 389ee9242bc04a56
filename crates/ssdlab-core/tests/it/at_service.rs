//! `ftl.plane_allocation = "at-service"` (SSDSim's dynamic allocation): writes wait
//! unbound until a die takes them; a chip takes up to one per plane at once, interleaved
//! over its dies, then multi-plane over each die's planes. Closed-form completion times.

use super::*;

/// One page over the channel at 0.01 ns/B: 40.96 ns, rounded up.
const PAGE_IN: u64 = 41;
const PROGRAM: u64 = 500_000;

#[test]
fn a_write_goes_to_the_idle_chip_not_behind_a_program() {
    // Two chips of one die and plane on one channel. The first write keeps chip 0
    // programming; the second arrives 1 us later. Statically it belongs to chip 0 (logical
    // page 2 of two planes) and waits there; at service time chip 1, idle, takes it.
    let mut c = tiny(1, 2, 1, 1);
    slc_like(&mut c);
    c.ftl.plane_allocation = PlaneAllocation::Static;
    let records = vec![rec(0, Op::Write, 0, 1, 4096), rec(1_000, Op::Write, 2, 1, 4096)];
    let r = run(&c, records.clone());
    assert_eq!(r.write.latency_ns.max, 2 * (PAGE_IN + PROGRAM) - 1_000, "static: behind chip 0's program");
    c.ftl.plane_allocation = PlaneAllocation::AtService;
    let r = run(&c, records);
    assert_eq!(r.write.latency_ns.max, PAGE_IN + PROGRAM, "at service: chip 1 takes it at once");
    assert_eq!(r.write.latency_ns.mean, (PAGE_IN + PROGRAM) as f64);
}

#[test]
fn a_waiting_write_goes_to_the_first_chip_that_frees() {
    // Both chips programming (chip 1's program starts 100 us later); a third write waits
    // unbound, and chip 0, free first, takes it.
    let mut c = tiny(1, 2, 1, 1);
    slc_like(&mut c);
    c.ftl.plane_allocation = PlaneAllocation::AtService;
    let records =
        vec![rec(0, Op::Write, 0, 1, 4096), rec(100_000, Op::Write, 1, 1, 4096), rec(200_000, Op::Write, 2, 1, 4096)];
    let r = run(&c, records);
    let third = (PAGE_IN + PROGRAM) + PAGE_IN + PROGRAM - 200_000;
    assert_eq!(r.write.latency_ns.max, third);
}

#[test]
fn an_idle_chip_takes_one_write_per_plane_interleaved_then_multi_plane() {
    // One chip of two dies of two planes, idle: a four-page write is taken whole, one page
    // per die in turn and then one more per die on its other plane, so each die runs one
    // two-plane program. Die 0 moves its two pages first, die 1 waits for the channel.
    let mut c = tiny(1, 1, 2, 2);
    slc_like(&mut c);
    c.ftl.plane_allocation = PlaneAllocation::AtService;
    let records = vec![rec(0, Op::Write, 0, 4, 4096)];
    let r = run(&c, records.clone());
    let two_pages = (2.0f64 * 4096.0 * 0.01).ceil() as u64;
    assert_eq!(r.flash.multi_plane_commands, 2);
    assert_eq!(r.write.latency_ns.max, 2 * two_pages + PROGRAM);
    // Without multi-plane programs a chip takes one write per die: two rounds of two.
    c.flash.multi_plane = false;
    let r = run(&c, records);
    assert_eq!(r.flash.multi_plane_commands, 0);
    assert_eq!(r.write.latency_ns.max, PAGE_IN + PROGRAM + 2 * PAGE_IN + PROGRAM);
}

#[test]
fn a_busy_die_leaves_waiting_writes_to_its_idle_sibling_and_programs_its_planes_in_order() {
    // Die 0 programs a first page (plane 0); four pages then arrive. Die 1, idle, takes two
    // (one per plane, one command). Die 0, free first, takes one: its planes' next pages
    // differ by the page it wrote, and pages are programmed in order (SSDSim skips pages
    // to level them), so the page goes to the plane behind and the fourth waits for die 1.
    let mut c = tiny(1, 1, 2, 2);
    slc_like(&mut c);
    c.ftl.plane_allocation = PlaneAllocation::AtService;
    let records = vec![rec(0, Op::Write, 0, 1, 4096), rec(1_000, Op::Write, 10, 4, 4096)];
    let r = run(&c, records);
    let two_pages = (2.0f64 * 4096.0 * 0.01).ceil() as u64;
    assert_eq!(r.flash.multi_plane_commands, 1);
    let die1_free = 1_000 + two_pages + PROGRAM;
    assert_eq!(r.write.latency_ns.max, die1_free + PAGE_IN + PROGRAM - 1_000);
}

#[test]
fn at_service_refuses_a_confined_flow() {
    let mut c = tiny(2, 1, 1, 1);
    c.ftl.plane_allocation = PlaneAllocation::AtService;
    let mut flow = Flow { size_bytes: 4096 * 64, channels: vec![0], ..Flow::default() };
    flow.queue_depth = 1;
    c.flows = vec![flow];
    let errors = c.validate().unwrap_err();
    assert!(errors.iter().any(|e| e.to_string().contains("at-service")), "{errors:?}");
}

#[test]
fn at_service_refuses_a_design_that_places_writes() {
    let mut c = tiny(2, 1, 1, 1);
    c.ftl.plane_allocation = PlaneAllocation::AtService;
    c.gordon.write_points_per_channel = 1;
    let errors = c.validate().unwrap_err();
    assert!(errors.iter().any(|e| e.to_string().contains("gordon places writes itself")), "{errors:?}");
}
