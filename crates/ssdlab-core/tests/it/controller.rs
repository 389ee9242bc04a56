//! The controller between host and flash (issue 19): the DRAM data cache (acknowledgement
//! from DRAM, coalescing, read hits, LRU eviction, the flush limit, power loss), the
//! chip-serial die option and the host link. Each case is small enough to write down the
//! exact latencies; all run with the occupancy checker and data verification on.

use super::timing::{commands, latencies, run_logged};
use super::*;
use ssdlab_core::config::{CacheFlush, CacheMode, DieScheduling};
use ssdlab_core::engine::occupancy::CommandKind;

/// 4 KiB at 0.01 ns/B (the `tiny` channel).
const X: u64 = 41;
/// One 4 KiB DRAM transfer at the test's 40 ns + 0.5 ns/B.
const DRAM: u64 = 40 + 2048;

fn drive() -> Config {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.0;
    c.cache.capacity_bytes = 8 * 4096;
    c.cache.dram_access_ns = 40;
    c.cache.dram_ns_per_byte = 0.5;
    c
}

#[test]
fn a_cached_write_completes_when_its_data_is_in_dram() {
    let c = drive();
    let l = run_logged(&c, vec![rec(0, Op::Write, 3, 1, 4096), rec(0, Op::Write, 4, 2, 4096)]);
    // One DRAM channel: the second request's two pages follow the first's in one transfer.
    assert_eq!(latencies(&l), vec![DRAM, DRAM + 40 + 4096]);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.write_pages, cache.dram_transfers, cache.dram_bytes), (3, 2, 3 * 4096));
    // Write-back: nothing was evicted, so nothing reached flash.
    assert_eq!((l.report.flash.user_page_programs, cache.dirty_pages_at_end), (0, 3));
}

#[test]
fn overwrites_of_a_dirty_page_coalesce_in_dram() {
    let c = drive();
    let records: Vec<Record> = (0..5).map(|i| rec(i * 10_000, Op::Write, 7, 1, 4096)).collect();
    let l = run_logged(&c, records);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.write_pages, cache.coalesced_writes, cache.pages_at_end), (5, 4, 1));
    assert_eq!(l.report.flash.user_page_programs, 0);
    assert!(latencies(&l).iter().all(|&t| t == DRAM));
}

#[test]
fn a_read_of_cached_data_is_served_from_dram_and_a_miss_from_flash() {
    let mut c = drive();
    c.precondition.used_fraction = 0.5;
    let records =
        vec![rec(0, Op::Write, 7, 1, 4096), rec(100_000, Op::Read, 7, 1, 4096), rec(200_000, Op::Read, 9, 1, 4096)];
    let l = run_logged(&c, records);
    assert_eq!(latencies(&l), vec![DRAM, DRAM, 50_000 + X]);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.read_pages, cache.read_hits, cache.read_fills), (2, 1, 0));
    assert_eq!(l.report.flash.page_reads, 1);
}

#[test]
fn read_write_mode_keeps_a_read_miss_for_the_next_read() {
    let mut c = drive();
    c.precondition.used_fraction = 0.5;
    c.cache.mode = CacheMode::ReadWrite;
    let l = run_logged(&c, vec![rec(0, Op::Read, 9, 1, 4096), rec(1_000_000, Op::Read, 9, 1, 4096)]);
    assert_eq!(latencies(&l), vec![50_000 + X, DRAM]);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.read_hits, cache.read_fills), (1, 1));
}

#[test]
fn a_full_cache_evicts_its_least_recently_used_page_to_flash() {
    let mut c = drive();
    c.cache.capacity_bytes = 2 * 4096;
    // A, B fill the cache; A is touched again (most recent); C evicts B.
    let records = vec![
        rec(0, Op::Write, 1, 1, 4096),
        rec(10_000, Op::Write, 2, 1, 4096),
        rec(20_000, Op::Write, 1, 1, 4096),
        rec(30_000, Op::Write, 3, 1, 4096),
        // B's copy on its way out (or on flash) and A in DRAM are both read correctly.
        rec(40_000, Op::Read, 2, 1, 4096),
        rec(2_000_000, Op::Read, 2, 1, 4096),
        rec(2_000_000, Op::Read, 1, 1, 4096),
    ];
    let l = run_logged(&c, records);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.evictions, cache.dirty_evictions, cache.flushed_pages), (1, 1, 1));
    assert_eq!(l.report.flash.user_page_programs, 1);
    let lat = latencies(&l);
    // The read of B during its flush is served from DRAM; after it, from flash.
    assert_eq!(lat[4], 4096 / 2 + 40);
    assert_eq!(lat[5], 50_000 + X);
    assert_eq!(lat[6], DRAM);
    assert_eq!(l.report.host.buffer_reads, 1);
}

#[test]
fn the_flush_limit_makes_writes_wait_for_the_flash() {
    // Cold-eager: every first write of a page goes to flash at once; with a limit of one
    // page in flight the writes are acknowledged one program apart (back-pressure).
    let mut c = drive();
    c.cache.flush = CacheFlush::ColdEager;
    c.cache.flush_limit_bytes = 4096;
    let records: Vec<Record> = (0..4).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    let l = run_logged(&c, records);
    let w = X + 500_000;
    // The first is admitted at once; each later one when the previous flush ends.
    assert_eq!(latencies(&l), vec![DRAM, w + DRAM, 2 * w + DRAM, 3 * w + DRAM]);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.eager_flushes, cache.writes_waited, cache.max_waiting), (4, 3, 3));
    // A flushed cold page leaves the cache (MQSim's advanced cache manager); the run ends
    // with its last request, while the last page's flush is under way.
    assert_eq!((l.report.flash.user_page_programs, cache.pages_at_end, cache.dirty_pages_at_end), (4, 1, 0));
}

#[test]
fn a_rewrite_within_the_hot_window_stays_in_dram() {
    let mut c = drive();
    c.cache.flush = CacheFlush::ColdEager;
    c.cache.hot_window_ns = 10_000_000;
    let records = vec![
        rec(0, Op::Write, 5, 1, 4096),
        rec(2_000_000, Op::Write, 5, 1, 4096),
        // A new window: the page is cold again.
        rec(20_000_000, Op::Write, 5, 1, 4096),
    ];
    let l = run_logged(&c, records);
    let cache = l.report.cache.as_ref().expect("cache on");
    assert_eq!((cache.eager_flushes, l.report.flash.user_page_programs), (2, 2));
}

#[test]
fn dirty_pages_are_flushed_on_capacitor_power_at_a_power_loss() {
    let mut c = drive();
    c.power.loss_at_ns = vec![1_000_000];
    c.power.off_ns = 1_000_000;
    let mut records: Vec<Record> = (0..6).map(|p| rec(0, Op::Write, p, 1, 4096)).collect();
    records.extend((0..6).map(|p| rec(5_000_000, Op::Read, p, 1, 4096)));
    // Verification: every acknowledged page is read back from flash after recovery.
    let l = run_logged(&c, records);
    let power = l.report.power.as_ref().expect("a loss");
    assert_eq!(power.total.flushed_pages, 6);
    assert_eq!(l.report.flash.page_reads, 6);
}

#[test]
fn chip_serial_dies_never_overlap_and_a_free_chip_serves_reads_first() {
    let mut c = tiny(1, 1, 2, 1);
    slc_like(&mut c);
    c.precondition.used_fraction = 0.5;
    c.ftl.plane_allocation = PlaneAllocation::Static;
    // Pages 0 and 1 are on dies 0 and 1 (static striping over the two dies).
    let reads = vec![rec(0, Op::Read, 0, 1, 4096), rec(0, Op::Read, 1, 1, 4096)];
    let independent = latencies(&run_logged(&c, reads.clone()));
    assert_eq!(independent, vec![50_000 + X, 50_000 + 2 * X], "the dies overlap; the channel does not");
    c.flash.die_scheduling = DieScheduling::ChipSerial;
    let l = run_logged(&c, reads);
    assert_eq!(latencies(&l), vec![50_000 + X, 2 * (50_000 + X)]);
    let cmds = commands(&l.log);
    assert!(cmds.windows(2).all(|w| w[1].0 >= w[0].1), "one command at a time on the chip: {cmds:?}");
    // A write queued on die 0 and a read on die 1: when the chip frees, the read goes first.
    let records =
        vec![rec(0, Op::Read, 2, 1, 4096), rec(1_000, Op::Write, 4, 1, 4096), rec(2_000, Op::Read, 3, 1, 4096)];
    let l = run_logged(&c, records);
    let kinds: Vec<CommandKind> = commands(&l.log).iter().map(|c| c.2).collect();
    assert_eq!(kinds, vec![CommandKind::Read, CommandKind::Read, CommandKind::Program]);
}

#[test]
fn with_requested_bytes_only_the_sectors_asked_for_cross_the_channel() {
    let mut c = tiny(1, 1, 1, 1);
    slc_like(&mut c);
    // Page 9 is placed because the workload reads it; page 200 holds nothing (no
    // read-modify-write).
    c.precondition.used_fraction = 0.0;
    c.flash.transfer_ns_per_byte = 1.0;
    // A 1 KiB read at byte 1536 of page 9 touches sectors 3..6 (1,536 bytes with the
    // partial sectors), a 512-byte write to an unwritten page one sector.
    let records = vec![
        Record {
            arrival_ns: 0,
            device: 0,
            offset_bytes: 9 * 4096 + 1536 + 100,
            size_bytes: 1024,
            op: Op::Read,
            hint: None,
        },
        Record {
            arrival_ns: 10_000_000,
            device: 0,
            offset_bytes: 200 * 4096,
            size_bytes: 512,
            op: Op::Write,
            hint: None,
        },
    ];
    assert_eq!(latencies(&run_logged(&c, records.clone())), vec![50_000 + 4096, 4096 + 500_000]);
    c.flash.transfer_requested_bytes = true;
    assert_eq!(latencies(&run_logged(&c, records)), vec![50_000 + 1536, 512 + 500_000]);
}

#[test]
fn the_link_adds_the_transfers_of_command_data_and_completion() {
    let mut c = drive();
    c.cache.capacity_bytes = 0;
    c.precondition.used_fraction = 0.5;
    c.link.lanes = 4;
    c.link.lane_gb_per_s = 1.0;
    let t = |bytes: u64| c.link.transfer_ns(bytes);
    // 4 KiB: 32 packets of 128 + 28 bytes over 4 lanes of 1 B/ns.
    assert_eq!(t(4096), 32 * 156 / 4);
    assert_eq!((t(64), t(16)), (23, 11));
    let l = run_logged(&c, vec![rec(0, Op::Read, 9, 1, 4096), rec(10_000_000, Op::Write, 9, 1, 4096)]);
    let lat = latencies(&l);
    assert_eq!(lat[0], t(64) + 50_000 + X + t(4096) + t(16));
    assert_eq!(lat[1], t(64) + t(4096) + X + 500_000 + t(16));
    let link = l.report.link.as_ref().expect("link on");
    assert_eq!((link.to_device_bytes, link.to_host_bytes), (2 * 64 + 4096, 4096 + 2 * 16));
}

#[test]
fn a_write_acknowledged_from_dram_has_no_dominant_page_type() {
    let writes = vec![rec(0, Op::Write, 3, 1, 4096), rec(0, Op::Write, 4, 2, 4096), rec(0, Op::Write, 9, 1, 4096)];
    // Write-back: the three writes complete in DRAM before any program.
    let cached = run_logged(&drive(), writes.clone()).report;
    assert_eq!((cached.write.requests, cached.dominated_writes), (3, 0));
    assert!(cached.dominated_write_share.iter().all(|&s| s == 0.0));
    // Without the cache each write waits for its programs: the shares cover all three.
    let mut c = drive();
    c.cache.capacity_bytes = 0;
    let direct = run_logged(&c, writes).report;
    assert_eq!(direct.dominated_writes, 3);
    assert!((direct.dominated_write_share.iter().sum::<f64>() - 1.0).abs() < 1e-12);
}

/// `flush = "ssdsim"` (SSDSim's buffer): room is counted in 512-byte sectors, so two
/// pages' worth of DRAM holds sixteen one-sector writes; a write that needs room evicts the
/// least recently used page and completes once that page's data is in the chip.
#[test]
fn ssdsims_buffer_counts_sectors_and_a_write_waits_for_the_page_it_evicts() {
    let mut c = drive();
    c.cache.capacity_bytes = 2 * 4096;
    c.cache.flush = CacheFlush::Ssdsim;
    let sector = |at: u64, lpn: u64| Record {
        arrival_ns: at,
        device: 0,
        offset_bytes: lpn * 4096,
        size_bytes: 512,
        op: Op::Write,
        hint: None,
    };
    let mut records: Vec<Record> = (0..16).map(|i| sector(i * 10_000, i + 1)).collect();
    // A rewrite of a held sector is a hit and takes no room.
    records.push(sector(170_000, 3));
    // Two writes at once: the first evicts page 1 (the least recently used) onto the idle
    // die; the second evicts page 2, whose data waits for page 1's program.
    records.push(sector(200_000, 17));
    records.push(sector(200_000, 18));
    let l = run_logged(&c, records);
    let cache = l.report.cache.as_ref().expect("cache on");
    let sectors = cache.sectors.as_ref().expect("ssdsim counters");
    assert_eq!((sectors.capacity_sectors, sectors.write_sector_hits), (16, 1));
    assert_eq!((cache.evictions, sectors.writes_waiting_for_evictions), (2, 2));
    assert_eq!(l.report.flash.user_page_programs, 2);
    let lat = latencies(&l);
    // One sector into DRAM: 40 ns + 512 B x 0.5 ns/B; transfers overlap.
    let dram = 40 + 256;
    assert!(lat[..17].iter().all(|&t| t == dram), "{lat:?}");
    // Page 1's data crosses in X, before the DRAM transfer ends.
    assert_eq!(lat[17], dram);
    // Page 2 crosses once page 1 is programmed.
    assert_eq!(lat[18], X + 500_000 + X);
    // With page-sized slots the same writes evict all but two pages.
    c.cache.flush = CacheFlush::Evict;
    let records: Vec<Record> = (0..16).map(|i| sector(i * 10_000, i + 1)).collect();
    let l = run_logged(&c, records);
    assert_eq!(l.report.cache.as_ref().unwrap().evictions, 14);
}
