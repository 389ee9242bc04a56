//! The conventional area's GC beside trimmed zones: a zone block whose pages the host
//! trimmed is closed and holds nothing valid, the very block a victim search claims at
//! once, and still only a zone reset may erase it (`pick_victim_from` skips zone
//! blocks on every plane, `ftl/gc.rs`).

use super::zns::{run_recorded_with, zns};
use super::*;

const PAGE: u64 = 4096;
/// Zones of one die: a 16-page block in each of its two planes.
const ZONE: u64 = 32;

/// Zones 2 (die 0) and 3 (die 1) written full and then trimmed whole, then random
/// overwrites of the conventional area, whose GC runs on all four planes: no zone block
/// is ever erased or picked (the FTL's invariant, checked every 7 requests, refuses a
/// zone block in a free pool), and zone 3, reset afterwards, takes a full zone of writes
/// again. (A mutation sample found the zone-block test looking up the wrong block on
/// every plane but the first, `b + first` for `b - first`; the tests then had no zone
/// block with invalid pages on a plane GC searched, so nothing caught it. Under it GC
/// on die 1's planes claims the trimmed blocks.)
#[test]
fn trimmed_zone_blocks_are_never_the_conventional_areas_gc_victims() {
    // zns_conv.rs's drive with two conventional zones (the first 64 pages).
    let c = super::zns_conv::drive(2, "");
    let area = 2 * ZONE;
    let mut records = Vec::new();
    let mut t = 0u64;
    let mut at = |step: u64| {
        t += step;
        t
    };
    for zone in 0..2u64 {
        for p in 0..ZONE {
            records.push(rec(at(1000), Op::Write, area + zone * ZONE + p, 1, PAGE));
        }
    }
    // After their programs (500 µs each, 32 to a die): the trims.
    let later = at(40_000_000);
    records.push(rec(later, Op::Trim, area, 2 * ZONE, PAGE));
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    for _ in 0..3000 {
        records.push(rec(at(1000), Op::Write, next(area), 1, PAGE));
    }
    let reset = at(2_000_000_000);
    let zone_op = |at_ns, action| Record {
        op: Op::ZoneManagement(action),
        size_bytes: 0,
        ..rec(at_ns, Op::Read, area + ZONE, 1, PAGE)
    };
    records.push(zone_op(reset, ssdlab_trace::ZoneAction::Reset));
    for p in 0..ZONE {
        records.push(rec(reset + 100_000_000 + p * 1000, Op::Write, area + ZONE + p, 1, PAGE));
    }
    let (report, sim, seen) = run_recorded_with(&c, records, 7, 20_000_000);
    assert!(seen.iter().all(|r| r.status == 0), "every command succeeds");
    let s = zns(&report);
    assert_eq!(s["rejected"], 0, "{s}");
    assert_eq!(s["resets"], 1, "{s}");
    let zone_blocks: Vec<u32> = (0..sim.ftl.blocks.len() as u32).filter(|&b| sim.ftl.is_zone_block(b)).collect();
    assert_eq!(zone_blocks.len(), 2 * 24 * 2, "2 dies x 24 zones x 2 planes");
    // Only zone 3's two blocks were erased, once each, by its reset.
    let erased: Vec<(u32, u32)> =
        zone_blocks.iter().map(|&b| (b, sim.ftl.blocks[b as usize].erase_count)).filter(|&(_, n)| n > 0).collect();
    let planes: Vec<u32> = erased.iter().map(|&(b, _)| sim.ftl.addr.plane_of_block(b)).collect();
    assert_eq!(planes, vec![2, 3], "zone blocks erased: {erased:?}");
    assert!(erased.iter().all(|&(_, n)| n == 1), "{erased:?}");
    // The test means something only if GC ran on die 1's planes beside the trimmed blocks.
    for plane in 0..4u32 {
        let first = sim.ftl.addr.first_block_of_plane(plane);
        let area_erases: u32 = (first..first + 32)
            .filter(|&b| !sim.ftl.is_zone_block(b))
            .map(|b| sim.ftl.blocks[b as usize].erase_count)
            .sum();
        assert!(area_erases > 0, "plane {plane}: the area's GC erased nothing");
    }
    assert_eq!(s["areas"]["zoned"]["gc_copies"], 0);
    assert_eq!(sim.design::<ssdlab_core::designs::zns::Zns>().zone(3).write_pointer, ZONE as u32);
}
