//! FDP decisions a mutation sample of `designs/fdp` found no test holding (docs/testing.md,
//! "FDP"): reclaim groups and their spill rule, the Media Reallocated event and the SLC
//! handles' block minimum.

use super::*;

const PAGE: u64 = 4096;

fn dev(device: u32, at_ns: u64, page: u64, pages: u64, op: Op) -> Record {
    Record { device, ..rec(at_ns, op, page, pages, PAGE) }
}

fn fdp(report: &Report) -> &serde_json::Value {
    report.get_section("fdp").expect("an fdp section")
}

/// Two dies of one plane, two reclaim groups (group g: die g) and one handle, so a
/// placement identifier is its group (`handle_bits` 0): device 0 writes through group 0,
/// device 1 through group 1. A group is only its planes' flash, each plane taking its
/// share of the logical pages (half here): device 0's first L/2 pages all land on die 0
/// whatever plane the allocator gave them, device 1's on die 1; the 16 writes device 0
/// sends past its plane's share are each one Reclaim Group spill, exactly.
#[test]
fn reclaim_groups_place_writes_on_their_dies_up_to_each_planes_share() {
    let mut c = tiny(1, 1, 2, 1);
    slc_like(&mut c);
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.designs.insert("fdp".into(), toml::from_str("enabled = true\nreclaim_groups = 2\n").unwrap());
    assert!(c.validate().is_ok(), "{:?}", c.validate());
    let logical = c.logical_pages();
    let share = logical / 2;
    let extra = 16;
    // Closed loop at queue depth 1: each write is mapped before the next is placed.
    let mut records: Vec<Record> = (0..share + extra).map(|p| dev(0, 0, p, 1, Op::Write)).collect();
    let group1: Vec<u64> = (share + extra..share + extra + 40).collect();
    records.extend(group1.iter().map(|&p| dev(1, 0, p, 1, Op::Write)));
    let (r, sim) = run_keep(&c, records);
    let plane = |lpn: u64| sim.ftl.addr.plane_of(sim.ftl.lookup(lpn as u32).expect("written"));
    let off_group: Vec<u64> = (0..share).filter(|&p| plane(p) != 0).collect();
    assert!(off_group.is_empty(), "group 0's writes within its share on another die: {off_group:?}");
    assert!(group1.iter().all(|&p| plane(p) == 1), "group 1's writes land on die 1");
    assert_eq!(fdp(&r)["reclaim_group_spills"].as_u64(), Some(extra), "{}", fdp(&r));
    assert_eq!(fdp(&r)["reclaim_groups"].as_u64(), Some(2));
    assert_eq!(fdp(&r)["events"]["invalid_placement_identifier"].as_u64(), Some(0));
}

/// A log that trims each block-sized segment before writing it again: GC erases the
/// log's blocks without moving a page, so no erase is a Media Reallocated event (0x80:
/// valid data moved out of a block of a reclaim unit); with random overwrites beside it
/// some are, never more than the blocks erased after moves.
#[test]
fn media_reallocated_counts_only_blocks_gc_moved_data_out_of() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.host.replay = ReplayMode::ClosedLoop;
    c.host.queue_depth = 1;
    c.designs.insert("fdp".into(), toml::from_str("enabled = true\n").unwrap());
    let logical = c.logical_pages();
    let segment = 48; // pages per block
    let log = logical / segment * segment;
    let mut records = Vec::new();
    for round in 0..4u64 {
        for p in 0..log {
            if round > 0 && p % segment == 0 {
                records.push(dev(0, 0, p, segment, Op::Trim));
            }
            records.push(dev(0, 0, p, 1, Op::Write));
        }
    }
    let (r, _) = run_keep(&c, records);
    let f = fdp(&r);
    assert!(r.gc.erases > 0, "GC must erase the log's old blocks");
    assert_eq!(r.flash.gc_page_programs, 0, "the trimmed log needs no GC move");
    assert_eq!(f["handles"][0]["blocks_erased"].as_u64(), Some(r.gc.erases));
    assert_eq!(f["events"]["media_reallocated"].as_u64(), Some(0), "{f}");
    // Random overwrites: GC moves pages, and only blocks it moved pages out of count.
    let mut rng = Pcg64Mcg::seed_from_u64(9);
    let records: Vec<Record> = (0..4 * logical)
        .map(|i| dev(0, 0, if i < logical { i } else { rng.random_range(0..logical) }, 1, Op::Write))
        .collect();
    let (r, _) = run_keep(&c, records);
    let moved = fdp(&r)["events"]["media_reallocated"].as_u64().unwrap();
    assert!(r.flash.gc_page_programs > 0);
    assert!(moved > 0 && moved <= r.gc.erases, "{moved} events, {} erases", r.gc.erases);
}

/// SLC handles need two SLC-mode blocks each and two more in every plane (validation's
/// `2 * slc_handles + 2`): with one SLC handle, 4 per plane is accepted and 3 refused,
/// naming `ftl.slc_blocks_per_plane`.
#[test]
fn slc_handles_need_two_blocks_each_and_two_more_per_plane() {
    let config = |blocks: u32| {
        let mut c = tiny(1, 1, 1, 2);
        c.ftl.slc_blocks_per_plane = blocks;
        c.flash.slc_pages_per_block = 16;
        let section = "enabled = true\nhandles = [\"persistently\", \"initially\"]\nslc_handles = [0]\n";
        c.designs.insert("fdp".into(), toml::from_str(section).unwrap());
        c
    };
    assert!(config(4).validate().is_ok(), "{:?}", config(4).validate());
    assert!(config(5).validate().is_ok());
    let errors = config(3).validate().expect_err("3 SLC blocks for one SLC handle");
    let keys: Vec<String> = errors.iter().map(|e| e.key.clone()).collect();
    assert!(keys.contains(&"ftl.slc_blocks_per_plane".to_string()), "{keys:?}");
    assert!(errors.iter().any(|e| e.to_string().contains("at least 4")), "{errors:?}");
}
