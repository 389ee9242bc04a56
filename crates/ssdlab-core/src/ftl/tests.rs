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
    ftl.acknowledge(3, 0, 1, v1);
    let (_new, v2) = write(&mut ftl, 3);
    ftl.acknowledge(3, 0, 1, v2);
    ftl.verify_data("test", &[]).unwrap();
    // Corrupt the map: logical page 3 back to its first copy.
    ftl.set_map(3, old);
    let e = ftl.verify_data("after corruption", &[]).unwrap_err();
    assert!(e.contains("logical page 3") && e.contains("expected version 2") && e.contains("found version 1"), "{e}");
}

#[test]
fn verify_catches_lost_data_and_respects_trims() {
    let mut ftl = small();
    ftl.track_versions();
    let (_, v) = write(&mut ftl, 5);
    ftl.acknowledge(5, 0, 1, v);
    ftl.trim(5);
    ftl.acknowledge_trim(5);
    ftl.verify_data("trimmed", &[]).unwrap();
    // A write issued before the trim but completing after it must not resurrect the page.
    ftl.acknowledge(5, 0, 1, v);
    ftl.verify_data("late completion", &[]).unwrap();
    let (_, v2) = write(&mut ftl, 6);
    ftl.acknowledge(6, 0, 1, v2);
    ftl.set_map(6, NO_PAGE);
    let e = ftl.verify_data("lost", &[]).unwrap_err();
    assert!(e.contains("logical page 6") && e.contains("no mapping"), "{e}");
}

#[test]
fn invariant_checker_catches_a_broken_reverse_map() {
    let mut ftl = small();
    let (ppn, _) = write(&mut ftl, 1);
    ftl.check_invariants().unwrap();
    ftl.set_rev(ppn, 2);
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
                ftl.acknowledge(lpn, 0, 1, v);
            }
        }
    }
    for lpn in [2u32, 7, 11] {
        ftl.trim(lpn);
        ftl.acknowledge_trim(lpn);
    }
    // Rewrite a trimmed page: the new copy must win over the trim.
    let (_, v) = write(&mut ftl, 7);
    ftl.acknowledge(7, 0, 1, v);
    // A GC move copies data and its OOB to a new page.
    let from = ftl.lookup(4).expect("written");
    let to = ftl.allocate_gc(0, 0).expect("room");
    assert!(ftl.move_page(from, to.ppn));
    ftl
}

#[test]
fn recovery_rebuilds_the_mapping_table_exactly() {
    let mut ftl = aged_with_oob();
    let map = ftl.dense_map.clone();
    let valid: Vec<u32> = ftl.blocks.iter().map(|b| b.valid_pages).collect();
    let scan = ftl.power_loss_recover(&[], &[]);
    assert_eq!(ftl.dense_map, map, "the rebuilt map differs");
    assert_eq!(ftl.blocks.iter().map(|b| b.valid_pages).collect::<Vec<_>>(), valid);
    assert_eq!(scan.mapped_pages, map.iter().filter(|&p| p != NO_PAGE).count() as u64);
    // Trimmed pages stay trimmed even though their old copies are still in flash.
    assert_eq!(ftl.lookup(2), None);
    assert_eq!(ftl.lookup(11), None);
    assert!(ftl.lookup(7).is_some());
    ftl.check_invariants().unwrap();
    ftl.verify_data("after recovery", &[]).unwrap();
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
    ftl.verify_data("after a torn write", &[]).unwrap();
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

/// A one-plane drive with a unit map (half pages or 4 subpages), OOB and versions on.
fn unit_map(mapping: crate::config::Mapping) -> Ftl {
    let mut c = small_config();
    c.ftl.mapping = mapping;
    c.geometry.subpages_per_page = 4;
    c.validate().expect("valid");
    let mut ftl = Ftl::new(&c);
    ftl.track_oob();
    ftl.track_versions();
    ftl
}

/// A user write of units `first..first + count` of `lpn` into `ppn` from `slot`,
/// acknowledged.
fn write_units(ftl: &mut Ftl, lpn: u32, first: u32, count: u32, ppn: Ppn, slot: u32) {
    let v = ftl.issue_version(lpn, first, count);
    ftl.commit_units(lpn, first, count, ppn, slot);
    ftl.acknowledge(lpn, first, count, v);
}

/// A whole-page user write of `lpn` into the next page, acknowledged.
fn write_whole(ftl: &mut Ftl, lpn: u32) -> Ppn {
    let a = ftl.allocate_user(0, 0).expect("room");
    let units = ftl.units_per_page();
    write_units(ftl, lpn, 0, units, a.ppn, 0);
    a.ppn
}

/// Cleans `block` as the engine does: a fully valid page is copied, a partly valid one
/// compacted with the victim's next pages; then the erase.
fn clean_block(ftl: &mut Ftl, block: u32) {
    ftl.set_victim(0, block).unwrap();
    clean_victim(ftl, block);
}

/// Runs the cleanup steps of the plane's victim `block` until its erase, checking the
/// invariants and data after each; returns the GC moves (pages written).
fn clean_victim(ftl: &mut Ftl, block: u32) -> u32 {
    let mut moves = 0;
    loop {
        match ftl.gc_next_step(0, 0).expect("a step") {
            GcStep::Move { ppn, .. } => {
                assert_eq!(ftl.addr.block_of(ppn), block, "moves come from the victim");
                let to = ftl.allocate_gc(0, 0).expect("room").ppn;
                if ftl.page_valid_units(ppn) < ftl.units_per_page() {
                    ftl.compact_into(0, ppn, to, &mut Vec::new());
                } else {
                    assert!(ftl.move_page(ppn, to));
                }
                moves += 1;
            }
            GcStep::Erase { block: b } => {
                assert_eq!(b, block);
                ftl.erase(b);
                return moves;
            }
        }
        ftl.check_invariants().unwrap();
        ftl.verify_data("during GC", &[]).unwrap();
    }
}

/// Fills the rest of the open user block with whole writes of logical pages from 40 on,
/// so that it closes (a GC victim must be closed).
fn close_user_block(ftl: &mut Ftl, block: u32) {
    let mut lpn = 40;
    while ftl.blocks[block as usize].state != BlockState::Closed {
        write_whole(ftl, lpn);
        lpn += 1;
    }
}

#[test]
fn a_half_page_pair_survives_an_overwrite_gc_and_a_power_loss() {
    let mut ftl = unit_map(crate::config::Mapping::HalfPages);
    // Logical pages 0 and 1 interleaved over A and B (a multi-plane pair program).
    let a = ftl.allocate_user(0, 0).unwrap().ppn;
    let b = ftl.allocate_user(0, 0).unwrap().ppn;
    for (lpn, slot) in [(0, 0), (1, 1)] {
        let v = ftl.issue_version(lpn, 0, 2);
        ftl.commit_units(lpn, 0, 1, a, slot);
        ftl.commit_units(lpn, 1, 1, b, slot);
        ftl.acknowledge(lpn, 0, 2, v);
    }
    assert_eq!(
        [ftl.unit_page(0, 0), ftl.unit_page(0, 1), ftl.unit_page(1, 0), ftl.unit_page(1, 1)],
        [Some(a), Some(b), Some(a), Some(b)]
    );
    assert_eq!((ftl.page_valid_units(a), ftl.page_valid_units(b)), (2, 2));
    assert_eq!(ftl.split_logical_pages(), 2);
    let block = ftl.addr.block_of(a);
    close_user_block(&mut ftl, block);
    // Overwriting one logical page of the pair leaves each page half valid, still valid.
    write_whole(&mut ftl, 1);
    assert_eq!((ftl.page_valid_units(a), ftl.page_valid_units(b)), (1, 1));
    assert_eq!(ftl.blocks[block as usize].valid_units, ftl.blocks[block as usize].valid_pages * 2 - 2);
    ftl.check_invariants().unwrap();
    // GC of the block holding both halves of the other page packs them with others.
    clean_block(&mut ftl, block);
    let (h0, h1) = (ftl.unit_page(0, 0).unwrap(), ftl.unit_page(0, 1).unwrap());
    assert_ne!(ftl.addr.block_of(h0), block);
    assert_ne!(ftl.addr.block_of(h1), block);
    ftl.verify_data("after GC", &[]).unwrap();
    // Power fails: the map rebuilt from the OOB areas is the same, unit by unit.
    let map = ftl.dense_map.clone();
    let units: Vec<u32> = ftl.blocks.iter().map(|b| b.valid_units).collect();
    ftl.power_loss_recover(&[], &[]);
    assert_eq!(ftl.dense_map, map, "the rebuilt map differs");
    assert_eq!(ftl.blocks.iter().map(|b| b.valid_units).collect::<Vec<_>>(), units);
    ftl.check_invariants().unwrap();
    ftl.verify_data("after recovery", &[]).unwrap();
    // A torn rewrite of page 0 falls back to its halves where GC put them.
    let torn = ftl.allocate_user(0, 0).unwrap().ppn;
    let v = ftl.issue_version(0, 0, 2);
    ftl.commit_units(0, 0, 2, torn, 0);
    let _ = v;
    ftl.power_loss_recover(&[torn], &[]);
    assert_eq!((ftl.unit_page(0, 0), ftl.unit_page(0, 1)), (Some(h0), Some(h1)));
    ftl.check_invariants().unwrap();
    ftl.verify_data("after a torn rewrite", &[]).unwrap();
}

#[test]
fn a_subpage_entry_survives_an_overwrite_gc_and_a_power_loss() {
    let mut ftl = unit_map(crate::config::Mapping::Subpages);
    // Logical page 5's four subpages packed into two pages with subpages of 6 and 7.
    let p = ftl.allocate_user(0, 0).unwrap().ppn;
    let q = ftl.allocate_user(0, 0).unwrap().ppn;
    write_units(&mut ftl, 6, 2, 2, p, 0);
    write_units(&mut ftl, 5, 0, 2, p, 2);
    write_units(&mut ftl, 5, 2, 2, q, 0);
    write_units(&mut ftl, 7, 0, 1, q, 2);
    assert_eq!(ftl.page_valid_units(p), 4);
    assert_eq!(ftl.page_valid_units(q), 3, "one slot of q was never written");
    assert_eq!(ftl.split_logical_pages(), 3);
    // A subpage map's table is two-level: a page entry each, plus subpage entries for the
    // three split pages.
    assert_eq!(ftl.mapping_memory_bytes(4), ftl.logical_pages as u64 * 4 + 3 * 4 * 4);
    let block = ftl.addr.block_of(p);
    close_user_block(&mut ftl, block);
    // Overwrite one subpage of page 5 (into a page of its own).
    let r = ftl.allocate_user(0, 0).unwrap().ppn;
    write_units(&mut ftl, 5, 3, 1, r, 0);
    assert_eq!(ftl.page_valid_units(q), 2);
    assert_eq!(ftl.unit_page(5, 3), Some(r));
    clean_block(&mut ftl, block);
    for k in 0..3 {
        let at = ftl.unit_page(5, k).expect("still mapped");
        assert_ne!(ftl.addr.block_of(at), block, "unit {k} moved out of the victim");
    }
    ftl.verify_data("after GC", &[]).unwrap();
    let map = ftl.dense_map.clone();
    ftl.power_loss_recover(&[], &[]);
    assert_eq!(ftl.dense_map, map, "the rebuilt map differs");
    ftl.check_invariants().unwrap();
    ftl.verify_data("after recovery", &[]).unwrap();
    // A trim discards every subpage, also after recovery.
    ftl.trim(5);
    ftl.acknowledge_trim(5);
    ftl.power_loss_recover(&[], &[]);
    assert!(!ftl.is_mapped(5));
    ftl.check_invariants().unwrap();
    ftl.verify_data("after a trim and recovery", &[]).unwrap();
}

#[test]
fn compaction_packs_the_valid_units_of_partly_valid_pages() {
    let mut ftl = unit_map(crate::config::Mapping::Subpages);
    // Six pages with one valid subpage each: compaction needs two pages for them.
    let first = ftl.allocate_user(0, 0).unwrap().ppn;
    write_units(&mut ftl, 0, 0, 1, first, 0);
    for lpn in 1..6 {
        let ppn = ftl.allocate_user(0, 0).unwrap().ppn;
        write_units(&mut ftl, lpn, 0, 1, ppn, 0);
    }
    let block = ftl.addr.block_of(first);
    close_user_block(&mut ftl, block);
    let p = &mut ftl.planes[0];
    p.victim = block;
    p.victim_cursor = 1;
    let to = ftl.allocate_gc(0, 0).unwrap().ppn;
    let mut sources = Vec::new();
    assert_eq!(ftl.compact_into(0, first, to, &mut sources), 4);
    assert_eq!(sources.len(), 4, "four pages read for one page programmed");
    assert_eq!(ftl.page_valid_units(to), 4);
    assert!((0..4).all(|lpn| ftl.unit_page(lpn, 0) == Some(to)));
    assert_eq!(ftl.planes[0].victim_cursor, 4, "the victim's next page is the fifth");
    ftl.check_invariants().unwrap();
    ftl.verify_data("after compaction", &[]).unwrap();
}

#[test]
fn a_victim_set_by_a_design_is_the_block_gc_cleans() {
    let mut ftl = small();
    ftl.track_versions();
    for lpn in 0..30u32 {
        let (_, v) = write(&mut ftl, lpn);
        ftl.acknowledge(lpn, 0, 1, v);
    }
    // Block 1 (pages 12..24) is closed; it is not the greedy choice (nothing is invalid).
    assert_eq!(ftl.blocks[1].state, BlockState::Closed);
    assert!(ftl.set_victim(0, 5).is_err(), "a free block cannot be a victim");
    ftl.set_victim(0, 1).unwrap();
    assert!(ftl.set_victim(0, 0).is_err(), "one victim at a time");
    assert_eq!(clean_victim(&mut ftl, 1), 12);
    ftl.check_invariants().unwrap();
    ftl.verify_data("after the chosen victim", &[]).unwrap();
}

#[test]
fn a_design_can_write_through_a_user_write_point_of_its_choice() {
    let mut c = small_config();
    c.ftl.user_write_points = 3;
    c.geometry.blocks_per_plane = 24;
    let mut ftl = Ftl::new(&c);
    // Write point 2 takes pages of its own block, in order, whatever the round-robin does.
    let a = ftl.allocate_user_point(0, 2, 0).unwrap();
    let b = ftl.allocate_user_point(0, 2, 0).unwrap();
    let other = ftl.allocate_user_point(0, 0, 0).unwrap();
    assert_eq!(ftl.addr.block_of(a.ppn), ftl.addr.block_of(b.ppn));
    assert_eq!(ftl.addr.page_in_block(b.ppn), ftl.addr.page_in_block(a.ppn) + 1);
    assert_ne!(ftl.addr.block_of(other.ppn), ftl.addr.block_of(a.ppn));
    assert_eq!(ftl.planes[0].active[Stream::user(2).index()], ftl.addr.block_of(a.ppn));
}

/// The lean greedy victim scan (`pick_greedy_normal`, most runs) against the general one,
/// which all-false companion masks select under the same rules: two drives given the
/// same random overwrites must pick the same victim every time GC needs one.
#[test]
fn the_lean_greedy_scan_picks_the_victims_of_the_general_scan() {
    use rand::{Rng, SeedableRng};
    let mut c = small_config();
    c.geometry.blocks_per_plane = 40;
    c.ftl.over_provisioning = 0.25;
    let mut lean = Ftl::new(&c);
    let mut general = Ftl::new(&c);
    let (normal, slc) = (general.layout.pages() as usize, general.slc_layout.pages() as usize);
    general.set_companion_pages(vec![false; normal], vec![false; slc]);
    let mut rng = Pcg64Mcg::seed_from_u64(48);
    let lpns = lean.logical_pages;
    let mut victims = [Vec::new(), Vec::new()];
    for _ in 0..6_000 {
        // Writes to a hot tenth half of the time, so that blocks differ in valid pages.
        let lpn = if rng.random_bool(0.5) { rng.random_range(0..lpns / 10) } else { rng.random_range(0..lpns) };
        for (ftl, picked) in [&mut lean, &mut general].into_iter().zip(victims.iter_mut()) {
            while ftl.gc_need(0) == GcNeed::Emergency {
                assert!(ftl.ensure_victim(0, 0), "a victim");
                let victim = ftl.planes[0].victim;
                picked.push(victim);
                clean_victim(ftl, victim);
            }
            write(ftl, lpn);
        }
    }
    assert!(victims[0].len() > 100, "only {} victims", victims[0].len());
    assert_eq!(victims[0], victims[1]);
}

/// Swarm seed 1031273 (`--power-loss always`, GC through the user write points): GC
/// also fills the GC write point's open block, but its room went uncounted. With no free
/// block left and one page there, the one victim that fitted (a single valid page)
/// looked too big; FIFO then took the oldest block, three valid pages, and its second
/// move found no page: the plane stalled.
#[test]
fn gc_through_user_points_counts_the_gc_write_points_room() {
    let mut c = small_config();
    c.ftl.over_provisioning = 0.0;
    c.ftl.gc_through_user_write_points = true;
    c.ftl.gc_victim = crate::config::VictimPolicy::Fifo;
    let mut ftl = Ftl::new(&c);
    assert!(ftl.logical_pages >= 16 * 12, "every page its own logical page");
    let mut lpn = 0;
    // User writes fill blocks 0..15; a user write never opens the last free block.
    while let Some(a) = ftl.allocate_user(0, 0) {
        ftl.commit_write(lpn, a.ppn);
        lpn += 1;
    }
    assert_eq!(lpn, 15 * 12);
    // The GC write point opens it and keeps one page.
    for _ in 0..11 {
        let a = ftl.allocate_gc_point(0, 0).expect("the last free block");
        ftl.commit_write(lpn, a.ppn);
        lpn += 1;
    }
    assert!(ftl.planes[0].free.is_empty());
    // Block 0 (the oldest) keeps 3 valid pages, block 1 one, blocks 2..15 eleven each.
    for block in 0..15u32 {
        let keep = match block {
            0 => 3,
            1 => 1,
            _ => 11,
        };
        for page in keep..12 {
            ftl.trim(block * 12 + page);
        }
    }
    assert!(ftl.ensure_victim(0, 0));
    assert_eq!(ftl.planes[0].victim, 1, "the victim that fits");
    assert_eq!(ftl.gc_room(0), 1, "the GC write point's last page");
    assert_eq!(clean_victim(&mut ftl, 1), 1);
    ftl.check_invariants().unwrap();
}

#[test]
fn greedy_keys_follow_the_blocks_and_the_checker_sees_a_stale_one() {
    let mut ftl = small();
    for lpn in 0..36 {
        write(&mut ftl, lpn);
    }
    // Different invalid counts in the three closed blocks.
    for lpn in [1, 2, 3, 13, 25, 26] {
        write(&mut ftl, lpn);
    }
    ftl.check_invariants().unwrap();
    let expected = (0..16u32)
        .filter(|&b| ftl.blocks[b as usize].state == BlockState::Closed)
        .min_by_key(|&b| ftl.blocks[b as usize].valid_pages)
        .unwrap();
    assert!(ftl.ensure_victim_forced(0, 0));
    assert_eq!(ftl.planes[0].victim, expected);
    ftl.gc_keys[expected as usize] = gc_keys::NOT_CANDIDATE;
    let e = ftl.check_invariants().unwrap_err();
    assert!(e.contains("greedy GC key"), "{e}");
}
