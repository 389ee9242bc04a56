//! The cached mapping table (issue 19, `[cmt]`): a miss reads its translation page before
//! the data, a hit does not, misses of one translation page share its read, evicting a
//! dirty entry writes its translation page back (DFTL: read, then program; MQSim at
//! 7ec40e3: read only, then served from DRAM), and GC's moves update translation pages.
//! The small cases have exact latencies; all run with the occupancy checker and data
//! verification on.

use super::timing::{latencies, run_logged};
use super::*;
use ssdlab_core::config::CmtWriteBack;

/// 4 KiB at 0.01 ns/B (the `tiny` channel).
const X: u64 = 41;
/// A page read: sense, then the page out over the channel.
const R: u64 = 50_000 + X;

/// One die, 100 logical pages per translation page, room for `entries` entries.
fn drive(entries: u64) -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.5;
    c.cmt.entry_bytes = 8;
    c.cmt.capacity_bytes = 8 * entries;
    c.cmt.entries_per_translation_page = 100;
    c.cmt.read_bytes = 0;
    c
}

#[test]
fn a_miss_reads_the_translation_page_first_and_a_hit_does_not() {
    let l = run_logged(&drive(4), vec![rec(0, Op::Read, 9, 1, 4096), rec(1_000_000, Op::Read, 9, 1, 4096)]);
    assert_eq!(latencies(&l), vec![2 * R, R]);
    let cmt = l.report.cmt.as_ref().expect("cmt on");
    assert_eq!((cmt.lookups, cmt.hits, cmt.misses, cmt.mapping_reads), (2, 1, 1, 1));
    // 2,304 logical pages in translation pages of 100.
    assert_eq!(cmt.translation_pages, 24);
    assert_eq!(l.report.flash.page_reads, 3);
}

#[test]
fn a_miss_reads_only_the_bytes_configured() {
    let mut c = drive(4);
    c.cmt.read_bytes = 512;
    c.flash.transfer_ns_per_byte = 1.0;
    let l = run_logged(&c, vec![rec(0, Op::Read, 9, 1, 4096)]);
    assert_eq!(latencies(&l), vec![50_000 + 512 + 50_000 + 4096]);
}

#[test]
fn misses_of_one_translation_page_share_its_read() {
    // Pages 9 and 10 share translation page 0; page 150 is in page 1.
    let records = vec![rec(0, Op::Read, 9, 1, 4096), rec(0, Op::Read, 10, 1, 4096), rec(0, Op::Read, 150, 1, 4096)];
    let l = run_logged(&drive(4), records);
    let cmt = l.report.cmt.as_ref().expect("cmt on");
    assert_eq!((cmt.misses, cmt.merged_misses, cmt.mapping_reads), (3, 1, 2));
    // Mapping reads go first at the die: both translation pages, then the data.
    assert_eq!(latencies(&l), vec![3 * R, 4 * R, 5 * R]);
}

#[test]
fn a_write_that_misses_reads_its_mapping_before_it_is_programmed() {
    let l = run_logged(&drive(4), vec![rec(0, Op::Write, 9, 1, 4096)]);
    assert_eq!(latencies(&l), vec![R + X + 500_000]);
    let cmt = l.report.cmt.as_ref().expect("cmt on");
    assert_eq!((cmt.misses, cmt.mapping_reads, cmt.mapping_programs), (1, 1, 0));
}

/// Write page 9 (its entry dirty), then read page 250 in another translation page with
/// room for one entry: the dirty entry is evicted.
fn eviction(write_back: CmtWriteBack) -> super::timing::Logged {
    let mut c = drive(1);
    c.cmt.write_back = write_back;
    let records = vec![
        rec(0, Op::Write, 9, 1, 4096),
        rec(10_000_000, Op::Read, 250, 1, 4096),
        rec(20_000_000, Op::Read, 10, 1, 4096),
    ];
    run_logged(&c, records)
}

#[test]
fn evicting_a_dirty_entry_reads_and_programs_its_translation_page() {
    let l = eviction(CmtWriteBack::Program);
    let cmt = l.report.cmt.as_ref().expect("cmt on");
    assert_eq!((cmt.write_backs, cmt.write_back_reads, cmt.mapping_programs), (1, 1, 1));
    assert_eq!(cmt.dirty_evictions, 1);
    // The read of page 250: its translation page, then the write-back's read (ahead of
    // user reads), then the data. The program follows and the third read waits for it
    // (one die): its translation page is read again once the program is done.
    let lat = latencies(&l);
    assert_eq!(lat[1], 3 * R);
    assert_eq!(cmt.mapping_reads, 4);
    // The translation-page program counts in the write amplification.
    assert_eq!((l.report.flash.user_page_programs, l.report.waf), (1, 2.0));
}

#[test]
fn mqsim_write_back_reads_never_programs_and_serves_the_page_from_dram() {
    let l = eviction(CmtWriteBack::Mqsim);
    let cmt = l.report.cmt.as_ref().expect("cmt on");
    assert_eq!((cmt.write_backs, cmt.write_back_reads, cmt.mapping_programs), (1, 1, 0));
    // Page 10 shares the departed translation page 0: no mapping read for it.
    assert_eq!((cmt.buffer_hits, cmt.mapping_reads), (1, 3));
    assert_eq!(latencies(&l)[2], R);
    assert_eq!(l.report.waf, 1.0);
}

#[test]
fn gc_moves_update_translation_pages_and_the_data_stays_right() {
    // A small table over a full drive: GC moves pages whose entries are not cached, and
    // translation pages themselves; --verify checks every read's version throughout.
    let mut c = drive(16);
    c.precondition.used_fraction = 0.6;
    let mut records = random_requests(3000, 1, 2000, Op::Write, 4096, 7);
    records.extend(random_requests(1000, 1, 2000, Op::Read, 4096, 8));
    records.sort_by_key(|r| r.arrival_ns);
    let l = run_logged(&c, records);
    let cmt = l.report.cmt.as_ref().expect("cmt on");
    assert!(l.report.gc.erases > 0, "the run must garbage-collect");
    assert!(cmt.gc_updates > 0 && cmt.mapping_programs > 0, "{cmt:?}");
    assert!(l.report.waf > 1.0);
    assert_eq!(cmt.mapping_reads, cmt.misses - cmt.merged_misses + cmt.write_back_reads);
}

#[test]
fn a_cached_mapping_table_is_refused_where_it_is_not_modelled() {
    let mut c = drive(4);
    c.pa.scheme = "hgs".into();
    let errors = c.validate().expect_err("refused");
    // (A design's need, named at the key that selects it.)
    assert!(
        errors.iter().any(|e| e.key == "pa.scheme" && e.message == "design pa-ssd is not modelled with a cached mapping table ([cmt]; the design's paper assumes an ideal map)"),
        "{errors:?}"
    );
    let mut c = drive(4);
    c.dir.scheme = ssdlab_core::config::DirScheme::Ac;
    let errors = c.validate().expect_err("refused");
    assert!(
        errors.iter().any(|e| e.key == "cmt.capacity_bytes" && e.message.contains("DIR's baselines")),
        "{errors:?}"
    );
    let mut c = drive(4);
    c.cmt.capacity_bytes = 4;
    let errors = c.validate().expect_err("refused");
    assert!(errors.iter().any(|e| e.key == "cmt.capacity_bytes" && e.message.contains("one entry")), "{errors:?}");
}

#[test]
fn mqsims_entry_sizes_follow_from_its_drive() {
    // 2^26 pages of 8 KiB: 9-byte entries, 1365 per translation page (MQSim's numbers).
    let cmt = ssdlab_core::config::Cmt::default();
    assert_eq!(cmt.sizes(1 << 26, 8192), (9, 1365));
    let c = ssdlab_core::presets::preset("mqsim-compat").expect("preset");
    assert_eq!(c.cmt.capacity_bytes / 9, 233_016);
}

#[test]
fn a_victims_moves_write_each_translation_page_once_with_a_one_entry_table() {
    // Translation pages of 1000 entries: the fill (logical pages 0..1958, placed in random
    // order, a quarter of them trimmed) maps into pages 0 and 1. The host rewrites one
    // page, whose entry is the table's only one; background GC (the die idle between
    // writes) cleans blocks of the fill, whose entries are not cached. Each move's update
    // joins its victim's batch: a victim programs each translation page its pages map
    // into at most once, and the host's dirty entry stays cached. (Caching every moved
    // entry dirty evicted the host's entry, then each move the previous move's, and
    // wrote a translation page back per move: 175 programs for 230 moves, 51 host
    // misses, and the programs' pages cost 5 more victims.)
    let mut c = drive(1);
    c.cmt.entries_per_translation_page = 1000;
    c.precondition.used_fraction = 0.85;
    c.ftl.gc_victim = VictimPolicy::Fifo;
    c.ftl.gc_background_free_fraction = 0.3;
    let mut records: Vec<_> = (0..500).map(|i| rec(i * 1_000_000, Op::Trim, 4 * i + 1, 1, 4096)).collect();
    records.extend((0..200).map(|i| rec(500_000_000 + i * 5_000_000, Op::Write, 2, 1, 4096)));
    let l = run_logged(&c, records);
    let (cmt, gc) = (l.report.cmt.as_ref().expect("cmt on"), &l.report.gc);
    assert_eq!(cmt.translation_pages, 3);
    assert!(gc.erases > 0 && gc.moved_pages >= 10 * gc.erases && cmt.gc_updates > 0, "{gc:?} {cmt:?}");
    assert_eq!((cmt.misses, cmt.dirty_evictions), (1, 0), "{cmt:?}");
    assert!(cmt.mapping_programs > 0 && cmt.mapping_programs <= 2 * gc.erases, "{cmt:?} {gc:?}");
}

#[test]
fn the_spare_blocks_must_hold_the_translation_pages_too() {
    // 64 blocks a plane, 12% spare (7.7 blocks): enough for the emergency reserve (4) and
    // two write points, and for a table of 100-entry translation pages (28 pages, plus
    // their write point: 1.6 blocks), not for one of 16-entry pages (169: 4.5 blocks).
    let mut c = drive(4);
    c.ftl.over_provisioning = 0.12;
    assert!(c.validate().is_ok());
    c.cmt.entries_per_translation_page = 16;
    let errors = c.validate().expect_err("refused");
    assert!(
        errors.iter().any(|e| e.key == "ftl.over_provisioning" && e.message.contains("cached mapping table")),
        "{errors:?}"
    );
    c.cmt.capacity_bytes = 0;
    assert!(c.validate().is_ok());
}
