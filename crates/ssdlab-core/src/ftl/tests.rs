//! Unit tests of the FTL's bookkeeping that the engine tests cannot reach directly.

use super::*;
use crate::config::Config;

fn small() -> Ftl {
    let mut c = Config::default();
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 1;
    c.geometry.planes_per_die = 1;
    c.geometry.blocks_per_plane = 16;
    c.geometry.pages_per_block = 12;
    c.ftl.over_provisioning = 0.5;
    Ftl::new(&c)
}

fn write(ftl: &mut Ftl, lpn: u32) -> (Ppn, u32) {
    let a = ftl.allocate_user(0, 0).expect("room");
    ftl.commit_write(lpn, a.ppn);
    (a.ppn, ftl.tag_write(lpn, a.ppn))
}

#[test]
fn verify_catches_a_mapping_that_points_at_stale_data() {
    let mut ftl = small();
    ftl.track_versions();
    let (old, v1) = write(&mut ftl, 3);
    ftl.acknowledge(3, v1);
    let (_new, v2) = write(&mut ftl, 3);
    ftl.acknowledge(3, v2);
    ftl.verify_data("test").unwrap();
    // Corrupt the map: logical page 3 back to its first copy.
    ftl.map[3] = old;
    let e = ftl.verify_data("after corruption").unwrap_err();
    assert!(e.contains("logical page 3") && e.contains("expected version 2") && e.contains("found version 1"), "{e}");
}

#[test]
fn verify_catches_lost_data_and_respects_trims() {
    let mut ftl = small();
    ftl.track_versions();
    let (_, v) = write(&mut ftl, 5);
    ftl.acknowledge(5, v);
    ftl.trim(5);
    ftl.acknowledge_trim(5);
    ftl.verify_data("trimmed").unwrap();
    // A write issued before the trim but completing after it must not resurrect the page.
    ftl.acknowledge(5, v);
    ftl.verify_data("late completion").unwrap();
    let (_, v2) = write(&mut ftl, 6);
    ftl.acknowledge(6, v2);
    ftl.map[6] = NO_PAGE;
    let e = ftl.verify_data("lost").unwrap_err();
    assert!(e.contains("logical page 6") && e.contains("no mapping"), "{e}");
}

#[test]
fn invariant_checker_catches_a_broken_reverse_map() {
    let mut ftl = small();
    let (ppn, _) = write(&mut ftl, 1);
    ftl.check_invariants().unwrap();
    ftl.reverse[ppn as usize] = 2;
    assert!(ftl.check_invariants().is_err());
}

/// Seeds 1313, 1567, 1611, 1624, 2996: preconditioning and reads of never-written pages
/// place single pages, leaving the user write point inside a wordline; a one-shot set of
/// a whole wordline's worth of writes then ran past it into a block the plane did not
/// have (a panic). A set now takes the rest of the write point's wordline.
#[test]
fn one_shot_user_page_set_is_the_rest_of_the_write_points_wordline() {
    let mut c = Config::default();
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 1;
    c.geometry.planes_per_die = 1;
    c.geometry.blocks_per_plane = 4;
    c.geometry.pages_per_block = 6;
    c.flash.program_scheme = crate::config::ProgramScheme::OneShot;
    c.flash.layout = crate::config::LayoutKind::Sequential;
    let mut ftl = Ftl::new(&c);
    assert_eq!(ftl.bits_per_cell, 3);
    assert_eq!(ftl.user_page_set(0), 3, "a fresh block's first wordline");
    write(&mut ftl, 0);
    assert_eq!(ftl.user_page_set(0), 2);
    write(&mut ftl, 1);
    assert_eq!(ftl.user_page_set(0), 1);
    write(&mut ftl, 2);
    assert_eq!(ftl.user_page_set(0), 3, "the next wordline");
    // Fill the plane down to the block GC keeps: nothing is left for a user set.
    let mut lpn = 3;
    while ftl.allocate_user(0, 0).map(|a| ftl.commit_write(lpn % ftl.logical_pages, a.ppn)).is_some() {
        lpn += 1;
    }
    assert_eq!(ftl.free_blocks(0), 1);
    assert_eq!(ftl.user_page_set(0), 0);
}
