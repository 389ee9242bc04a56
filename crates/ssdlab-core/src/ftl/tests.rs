//! Unit tests of the FTL's bookkeeping that the engine tests cannot reach directly.

use super::*;
use crate::config::Config;

/// One plane of 16 blocks × 12 pages, half over-provisioned.
fn small_config() -> Config {
    let mut c = Config::default();
    c.geometry.channels = 1;
    c.geometry.chips_per_channel = 1;
    c.geometry.planes_per_die = 1;
    c.geometry.blocks_per_plane = 16;
    c.geometry.pages_per_block = 12;
    c.ftl.over_provisioning = 0.5;
    c
}

fn small() -> Ftl {
    Ftl::new(&small_config())
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

/// A drive with OOB tracking, some overwrites, trims and a GC-style move.
fn aged_with_oob() -> Ftl {
    let mut ftl = small();
    ftl.track_oob();
    ftl.track_versions();
    for round in 0..3u32 {
        for lpn in 0..20u32 {
            if (lpn + round) % 3 != 0 {
                let (_, v) = write(&mut ftl, lpn);
                ftl.acknowledge(lpn, v);
            }
        }
    }
    for lpn in [2u32, 7, 11] {
        ftl.trim(lpn);
        ftl.acknowledge_trim(lpn);
    }
    // Rewrite a trimmed page: the new copy must win over the trim.
    let (_, v) = write(&mut ftl, 7);
    ftl.acknowledge(7, v);
    // A GC move copies data and its OOB to a new page.
    let from = ftl.lookup(4).expect("written");
    let to = ftl.allocate_gc(0, 0).expect("room");
    assert!(ftl.commit_move(4, from, to.ppn));
    ftl
}

#[test]
fn recovery_rebuilds_the_mapping_table_exactly() {
    let mut ftl = aged_with_oob();
    let map = ftl.map.clone();
    let valid: Vec<u32> = ftl.blocks.iter().map(|b| b.valid_pages).collect();
    let scan = ftl.power_loss_recover(&[], &[]);
    assert_eq!(ftl.map, map, "the rebuilt map differs");
    assert_eq!(ftl.blocks.iter().map(|b| b.valid_pages).collect::<Vec<_>>(), valid);
    assert_eq!(scan.mapped_pages, map.iter().filter(|&&p| p != NO_PAGE).count() as u64);
    // Trimmed pages stay trimmed even though their old copies are still in flash.
    assert_eq!(ftl.lookup(2), None);
    assert_eq!(ftl.lookup(11), None);
    assert!(ftl.lookup(7).is_some());
    ftl.check_invariants().unwrap();
    ftl.verify_data("after recovery").unwrap();
    // Every programmed page was scanned: the open blocks' programmed prefixes.
    let programmed: u64 = ftl.blocks.iter().map(|b| b.write_ptr as u64).sum::<u64>() - scan.abandoned_pages;
    assert_eq!(scan.reads_per_die.iter().sum::<u64>(), programmed);
}

#[test]
fn a_torn_program_falls_back_to_the_previous_copy() {
    let mut ftl = aged_with_oob();
    let before = ftl.lookup(5).expect("written");
    // A new write of page 5 starts programming (map updated) and power fails mid-way.
    let a = ftl.allocate_user(0, 0).expect("room");
    ftl.commit_write(5, a.ppn);
    ftl.tag_write(5, a.ppn);
    ftl.power_loss_recover(&[a.ppn], &[]);
    assert_eq!(ftl.lookup(5), Some(before), "the last acknowledged copy must be found");
    ftl.check_invariants().unwrap();
    ftl.verify_data("after a torn write").unwrap();
}

#[test]
fn recovery_reopens_partly_written_blocks_and_frees_erased_ones() {
    let mut ftl = aged_with_oob();
    let open: Vec<u32> = ftl.planes[0].active.iter().copied().filter(|&b| b != NO_PAGE).collect();
    assert!(!open.is_empty(), "the test needs an open block");
    let free_before = ftl.planes[0].free.len();
    let scan = ftl.power_loss_recover(&[], &[]);
    // Which stream a block served is volatile; the blocks are write points again.
    let mut reopened: Vec<u32> = ftl.planes[0].active.iter().copied().filter(|&b| b != NO_PAGE).collect();
    let mut open = open;
    reopened.sort_unstable();
    open.sort_unstable();
    assert_eq!(reopened, open);
    for b in open {
        assert_eq!(ftl.blocks[b as usize].state, BlockState::Open, "block {b}");
    }
    assert_eq!(scan.abandoned_pages, 0);
    assert_eq!(ftl.planes[0].free.len(), free_before, "erased blocks return to the pool");
    ftl.check_invariants().unwrap();
}

/// Seeds 1313, 1567, 1611, 1624, 2996: preconditioning and reads of never-written pages
/// place single pages, leaving the user write point inside a wordline; a one-shot set of
/// a whole wordline's worth of writes then ran past it into a block the plane did not
/// have (a panic). A set now takes the rest of the write point's wordline.
#[test]
fn one_shot_user_page_set_is_the_rest_of_the_write_points_wordline() {
    let mut c = small_config();
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
