//! Gordon's FTL (thesis Ch. 5, issue 21): write points per channel, read bypassing and
//! write combining. Closed-form cases, with the occupancy checker and `--verify` on.

use super::*;

/// 4 KiB at 0.01 ns/B (the `tiny` channel): ceil(40.96) ns.
const X: u64 = 41;

fn logged(config: &Config, records: Vec<Record>) -> (Report, Vec<u64>) {
    let l = super::timing::run_logged(config, records);
    let lat = super::timing::latencies(&l);
    (l.report, lat)
}

/// 32 one-page writes per channel at once, on 2 channels of 4 single-plane dies: a write
/// point programs one page at a time, so the last write ends after 32 / k programs with
/// k write points per channel (the channel's transfers, 41 ns each, barely queue).
#[test]
fn write_points_per_channel_bound_the_programs_in_flight() {
    let writes: Vec<Record> = (0..64).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    let last = |k: u32| {
        let mut c = tiny(2, 1, 4, 1);
        slc_like(&mut c);
        c.gordon.write_points_per_channel = k;
        let (report, lat) = logged(&c, writes.clone());
        if k > 0 {
            let g = report.gordon.expect("gordon section");
            assert_eq!((g.write_points, g.writes_placed), (2 * k, 64));
        }
        *lat.iter().max().expect("writes")
    };
    let (one, two, four) = (last(1), last(2), last(4));
    let program = 500_000 + X;
    for (k, got) in [(1, one), (2, two), (4, four)] {
        let rounds = 32 / k as u64;
        // Each die's first transfer may wait behind the other dies' (k x 41 ns at most).
        assert!(got >= rounds * program && got <= rounds * program + 8 * X, "k = {k}: {got} ns");
    }
    // Every die its own write point is what the plane allocator does without them.
    assert!(last(0).abs_diff(four) <= 8 * X, "{} vs {four}", last(0));
}

#[test]
fn a_read_joins_the_read_of_its_page_in_flight_and_the_last_read_is_buffered() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.ftl.read_bypass = true;
    let ms = 1_000_000;
    let records = vec![
        rec(0, Op::Write, 0, 1, 4096),
        rec(10 * ms, Op::Read, 0, 1, 4096),
        rec(10 * ms + 1_000, Op::Read, 0, 1, 4096),
        rec(20 * ms, Op::Read, 0, 1, 4096),
        rec(30 * ms, Op::Write, 0, 1, 4096),
        rec(40 * ms, Op::Read, 0, 1, 4096),
    ];
    let (report, lat) = logged(&c, records);
    let b = report.bypass.expect("bypass section");
    assert_eq!((b.merged_reads, b.buffer_reads, b.combined_writes), (1, 1, 0));
    // The second read ends with the first: one sense and transfer after the first arrived.
    assert_eq!(lat[1], 50_000 + X);
    assert_eq!(lat[2], lat[1] - 1_000);
    assert_eq!(lat[3], 0, "served from the last-read buffer");
    // The write of the page empties the buffer: the last read senses again.
    assert_eq!(lat[5], 50_000 + X);
    assert_eq!(report.flash.page_reads, 2);
    // Without bypassing every read senses the page.
    c.ftl.read_bypass = false;
    let (plain, _) = logged(
        &c,
        vec![rec(0, Op::Write, 0, 1, 4096), rec(ms, Op::Read, 0, 1, 4096), rec(ms + 1_000, Op::Read, 0, 1, 4096)],
    );
    assert_eq!(plain.flash.page_reads, 2);
    assert!(plain.bypass.is_none());
}

#[test]
fn a_write_joins_the_queued_write_of_its_page_and_one_program_carries_both() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.ftl.write_combining = true;
    // Page 1's program keeps the die busy while page 0 is written twice.
    let records =
        vec![rec(0, Op::Write, 1, 1, 4096), rec(1_000, Op::Write, 0, 1, 4096), rec(2_000, Op::Write, 0, 1, 4096)];
    let (report, lat) = logged(&c, records);
    assert_eq!(report.bypass.expect("bypass section").combined_writes, 1);
    assert_eq!(report.flash.user_page_programs, 2);
    assert_eq!(lat[0], X + 500_000);
    // Both writes of page 0 end with its one program, after page 1's.
    assert_eq!(lat[1], 2 * (X + 500_000) - 1_000);
    assert_eq!(lat[2], lat[1] - 1_000);
}

/// A write of a page whose earlier write is already being programmed cannot join it: it
/// needs a program of its own. (Versions are only issued with `--verify`: the check must
/// not depend on them, so this runs without it.)
#[test]
fn a_write_never_joins_a_program_under_way() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.ftl.write_combining = true;
    let records = vec![rec(0, Op::Write, 0, 1, 4096), rec(100_000, Op::Write, 0, 1, 4096)];
    let report = run(&c, records);
    assert_eq!(report.bypass.expect("bypass section").combined_writes, 0);
    assert_eq!(report.flash.user_page_programs, 2);
}

/// The thesis' pattern (§5.3): a small write into a super-page, then the rest of it at
/// once. Combined, the super-page is read once and programmed once.
#[test]
fn writes_into_one_super_page_share_its_read_modify_write() {
    let mut c = tiny(4, 1, 1, 1);
    slc_like(&mut c);
    c.ftl.super_page_channels = 4;
    let ms = 1_000_000;
    let records = vec![
        rec(0, Op::Write, 0, 1, 16384),
        Record { arrival_ns: 10 * ms, device: 0, offset_bytes: 0, size_bytes: 4096, op: Op::Write, hint: None },
        Record {
            arrival_ns: 10 * ms + 1_000,
            device: 0,
            offset_bytes: 4096,
            size_bytes: 12288,
            op: Op::Write,
            hint: None,
        },
    ];
    let (apart, _) = logged(&c, records.clone());
    assert_eq!((apart.flash.update_reads, apart.flash.user_page_programs), (2, 3));
    c.ftl.write_combining = true;
    let (combined, lat) = logged(&c, records);
    assert_eq!((combined.flash.update_reads, combined.flash.user_page_programs), (1, 2));
    assert_eq!(lat[2], lat[1] - 1_000, "the second write ends with the first");
}
