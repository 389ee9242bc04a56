//! Never misread a trace's units silently: the byte-unit five-column format and its
//! detection against DiskSim (512-B sectors) and FlashSim (4 KiB pages) in both directions,
//! binary files under an explicit format, and the `time_unit` option. Every input is a
//! small file written here.

use ssdlab_trace::{detect_format, open_trace_with, Format, Op, Record, TimeUnit, TraceError, TraceOptions};
use std::io::Write;

fn temp(content: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(content).unwrap();
    f.flush().unwrap();
    f
}

fn detect(text: &str) -> Result<(Format, String), TraceError> {
    detect_format(temp(text.as_bytes()).path())
}

fn read(text: &str, format: Format, options: &TraceOptions) -> Vec<Record> {
    let f = temp(text.as_bytes());
    open_trace_with(f.path(), format, options).unwrap().map(|r| r.unwrap()).collect()
}

/// A small deterministic generator, so the files look like real traces (no pattern that
/// the detector could key on by accident).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick(&mut self, from: &[u64]) -> u64 {
        from[(self.next() % from.len() as u64) as usize]
    }
}

/// `n` lines of `time_ms device offset size op`: random offsets (`offset_of`), sizes from
/// `sizes`, and every `run_every`-th request (0: none) continuing the previous one, with
/// the previous size counted in `run_unit` offset units.
fn five_columns(
    n: usize,
    integer_time: bool,
    sizes: &[u64],
    offset_of: impl Fn(&mut Lcg) -> u64,
    run_every: usize,
    run_unit: u64,
) -> String {
    let mut g = Lcg(42);
    let mut out = String::new();
    let (mut prev_off, mut prev_size) = (0u64, 0u64);
    for i in 0..n {
        let size = g.pick(sizes);
        let off = if run_every > 0 && i > 0 && i % run_every == 0 && prev_size >= 2 {
            prev_off + prev_size * run_unit
        } else {
            offset_of(&mut g)
        };
        let op = g.next() % 2;
        let time = if integer_time { format!("{}", i * 3) } else { format!("{}.{:03}", i * 3, g.next() % 1000) };
        out.push_str(&format!("{time} 0 {off} {size} {op}\n"));
        (prev_off, prev_size) = (off, size);
    }
    out
}

/// A byte-unit trace as replay tools write MSR / Tencent cuts: 4 KiB-aligned byte offsets,
/// sizes in bytes.
fn bytes_trace(n: usize, integer_time: bool) -> String {
    let sizes = [4096, 4096, 8192, 16384, 65536, 512, 131072];
    five_columns(n, integer_time, &sizes, |g| (g.next() % 50_000_000) * 4096, 0, 1)
}

/// A plain DiskSim excerpt: sector offsets anywhere, small sizes (median 6 sectors, as in
/// DiskSim's distributed ASCII trace), some sequential runs in sectors.
fn disksim_trace(n: usize, run_every: usize) -> String {
    let sizes = [1, 2, 4, 6, 6, 6, 7, 8, 16];
    five_columns(n, false, &sizes, |g| g.next() % 40_000_000, run_every, 1)
}

#[test]
fn a_byte_unit_trace_is_detected_as_bytes_and_read_in_bytes() {
    for integer_time in [false, true] {
        let text = bytes_trace(500, integer_time);
        let (format, why) = detect(&text).unwrap();
        assert_eq!(format, Format::Bytes5, "integer time {integer_time}: {why}");
        assert!(why.contains("INFERRED bytes5") && why.contains("multiples of 512"), "{why}");
        let recs = read(&text, format, &TraceOptions::default());
        let first: Vec<&str> = text.lines().next().unwrap().split(' ').collect();
        assert_eq!(recs[0].offset_bytes.to_string(), first[2]);
        assert_eq!(recs[0].size_bytes.to_string(), first[3]);
        assert!(recs.iter().all(|r| r.size_bytes <= 131072 && r.offset_bytes % 4096 == 0));
    }
    // The documented example: 26.214 ms, byte offset and size, 0 = write.
    let recs = read("26.214000 0 155430912 4096 0\n", Format::Bytes5, &TraceOptions::default());
    assert_eq!(
        recs,
        [Record {
            arrival_ns: 26_214_000,
            device: 0,
            offset_bytes: 155_430_912,
            size_bytes: 4096,
            op: Op::Write,
            hint: None
        }]
    );
    assert_eq!("bytes5".parse::<Format>(), Ok(Format::Bytes5));
}

#[test]
fn a_byte_unit_trace_is_never_read_as_sectors_when_the_evidence_is_weak() {
    let refused = |text: &str, needle: &str| {
        let e = detect(text).unwrap_err();
        assert!(e.message.contains("--format bytes5") && e.message.contains("--format disksim"), "{e}");
        assert!(e.message.contains(needle), "{needle}: {e}");
    };
    // Too few lines.
    refused(&bytes_trace(5, false), "too few to tell");
    // Only 512-B requests: 512 bytes, or 512 sectors (256 KiB) each; both plausible.
    refused(
        &five_columns(200, false, &[512], |g| (g.next() % 1000) * 512, 0, 1),
        "plausible as bytes and as 512-B sectors",
    );
    // Integer time too: not assumed to be MQSim sectors.
    refused(&five_columns(200, true, &[512, 1024], |g| (g.next() % 1000) * 4096, 0, 1), "plausible");
    // A mix of aligned and unaligned lines.
    let mut mixed = bytes_trace(60, false);
    mixed.push_str(&disksim_trace(40, 0));
    refused(&mixed, "but the others do not");
}

#[test]
fn a_disksim_trace_is_not_read_as_bytes_or_pages() {
    // With sequential runs in sectors: DiskSim, from the evidence, whatever the median.
    let text = disksim_trace(2000, 10);
    let (format, why) = detect(&text).unwrap();
    assert_eq!(format, Format::Disksim, "{why}");
    assert!(why.contains("INFERRED disksim") && why.contains("not bytes") && why.contains("512-B sectors"), "{why}");
    // The size is in sectors: 6 sectors is 3072 bytes, not 24 KiB.
    let recs = read(&text, format, &TraceOptions::default());
    let sizes: Vec<u64> = text.lines().map(|l| l.split(' ').nth(3).unwrap().parse().unwrap()).collect();
    assert!(recs.iter().zip(&sizes).all(|(r, s)| r.size_bytes == s * 512));
    // 4 KiB-aligned offsets and sizes in whole 4 KiB blocks, no runs: sectors too.
    let aligned = five_columns(200, false, &[8, 8, 16, 32, 64], |g| (g.next() % 1_000_000) * 8, 0, 1);
    let (format, why) = detect(&aligned).unwrap();
    assert_eq!(format, Format::Disksim, "{why}");
    assert!(why.contains("multiples of 8"), "{why}");
    // DiskSim flags with other bits set: only DiskSim reads them.
    let (format, _) = detect("1.5 0 4096 8 3\n2.5 0 8192 8 2\n").unwrap();
    assert_eq!(format, Format::Disksim);
}

#[test]
fn a_small_size_disksim_excerpt_without_evidence_is_refused_not_taken_as_flashsim() {
    // Median 6 sectors, offsets anywhere, no sequential runs: the old rule (median < 8)
    // read it as 4 KiB pages, 8 times too large. Now: refused, naming both.
    let text = disksim_trace(64, 0);
    let e = detect(&text).unwrap_err();
    assert_eq!(e.line, 0);
    assert!(e.message.contains("--format disksim or --format flashsim"), "{e}");
    assert!(e.message.contains("nothing tells 512-B sectors from 4 KiB pages"), "{e}");
    assert!(e.message.contains("not bytes"), "{e}");
}

#[test]
fn a_flashsim_trace_with_page_runs_is_flashsim() {
    let text = five_columns(400, false, &[1, 1, 2, 3, 4], |g| g.next() % 40_000_000, 7, 8);
    let (format, why) = detect(&text).unwrap();
    assert_eq!(format, Format::Flashsim, "{why}");
    assert!(why.contains("INFERRED flashsim") && why.contains("4 KiB pages"), "{why}");
    // With integer (ms) times, runs in pages still say FlashSim rather than MQSim sectors.
    let text = five_columns(400, true, &[2, 3, 4], |g| g.next() % 40_000_000, 5, 8);
    let (format, why) = detect(&text).unwrap();
    assert_eq!(format, Format::Flashsim, "{why}");
}

#[test]
fn integer_sector_traces_stay_mqsim_and_say_so() {
    let text = five_columns(300, true, &[8, 16, 7, 6], |g| g.next() % 40_000_000, 6, 1);
    let (format, why) = detect(&text).unwrap();
    assert_eq!(format, Format::Mqsim, "{why}");
    assert!(why.starts_with("ASSUMED mqsim") && why.contains("not bytes"), "{why}");
}

#[test]
fn a_binary_file_under_an_explicit_format_is_called_binary() {
    let mut data = Vec::new();
    for i in 0u32..64 {
        data.extend_from_slice(&i.to_le_bytes());
        data.extend_from_slice(b"\x00\x01 \xff\xfe 7 8 \x02\x03 1 2 3 4 5 6 7 8 9\n");
    }
    let f = temp(&data);
    for format in [Format::Ssdsim, Format::Disksim, Format::Msr, Format::Bytes5, Format::Blkparse] {
        let e = open_trace_with(f.path(), format, &TraceOptions::default())
            .unwrap()
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("{format}: no error"));
        assert_eq!((e.line, e.field), (1, ""), "{format}: {e}");
        assert!(e.message.starts_with("binary data, not a line of text"), "{format}: {e}");
        assert!(!e.message.contains("found"), "{format}: {e}");
    }
    // A malformed text line keeps its precise message.
    let f = temp(b"0 0 0 8 1 9 9 9 9 9 9 9 9\n");
    let e = open_trace_with(f.path(), Format::Ssdsim, &TraceOptions::default()).unwrap().find_map(Result::err).unwrap();
    assert!(e.message.contains("found 13"), "{e}");
}

/// One small trace per format with a time column, with the format's own time unit.
const TIMED: &[(Format, TimeUnit, &str)] = &[
    (Format::Ssdsim, TimeUnit::Ns, "1000 0 0 8 1\n250000 0 8 8 0\n"),
    (Format::Mqsim, TimeUnit::Ns, "1000 0 0 8 1\n250000 0 8 8 0\n"),
    (Format::Disksim, TimeUnit::Ms, "1.5 0 0 8 1\n250 0 8 8 0\n"),
    (Format::Flashsim, TimeUnit::Ms, "1.5 0 0 1 1\n250 0 8 2 0\n"),
    (Format::Bytes5, TimeUnit::Ms, "1.5 0 0 4096 1\n250 0 8192 4096 0\n"),
    (Format::Fiu, TimeUnit::Ns, "1000 1 p 0 8 W 6 0 h\n250000 1 p 8 8 R 6 0 h\n"),
    (Format::Spc, TimeUnit::S, "0,1,512,r,1.5\n0,9,512,w,250\n"),
    (Format::Systor, TimeUnit::S, "1.5,0,R,0,0,512\n250,0,W,0,512,512\n"),
    (Format::Blkparse, TimeUnit::S, "8,0 1 1 1.5 5 D R 0 + 8 [p]\n8,0 1 2 250 5 D W 8 + 8 [p]\n"),
    (Format::Tencent, TimeUnit::S, "1.5,0,8,1,1\n250,8,8,0,1\n"),
    (Format::Alibaba, TimeUnit::Us, "1,W,0,4096,1000\n1,R,4096,4096,250000\n"),
    (Format::FioV3, TimeUnit::Us, "fio version 3 iolog\n0 f add\n1000 f read 0 4096\n250000 f write 0 4096\n"),
];

#[test]
fn a_time_unit_override_scales_arrival_times_exactly_in_every_timed_format() {
    let timed: Vec<Format> = TIMED.iter().map(|t| t.0).collect();
    for f in Format::ALL {
        assert_eq!(timed.contains(&f) || f == Format::Msr, f.has_timestamps(), "{f}: TIMED is complete");
    }
    for &(format, own, text) in TIMED {
        let plain = read(text, format, &TraceOptions::default());
        // Naming the format's own unit changes nothing.
        let same = read(text, format, &TraceOptions { time_unit: Some(own), ..TraceOptions::default() });
        assert_eq!(same, plain, "{format}");
        for unit in TimeUnit::ALL {
            let o = TraceOptions { time_unit: Some(unit), ..TraceOptions::default() };
            let scaled = read(text, format, &o);
            assert_eq!(scaled.len(), plain.len(), "{format} {unit}");
            for (s, p) in scaled.iter().zip(&plain) {
                // Every time in TIMED is a whole number of ns in any unit at or above ns:
                // arrival(unit) * own = arrival(own) * unit, exactly.
                let (su, ou) = (u128::from(unit.picoseconds()), u128::from(own.picoseconds()));
                let want = u128::from(p.arrival_ns) * su / ou;
                assert_eq!(u128::from(s.arrival_ns), want, "{format} {unit}");
                assert_eq!(
                    (s.offset_bytes, s.size_bytes, s.op, s.device),
                    (p.offset_bytes, p.size_bytes, p.op, p.device)
                );
            }
        }
    }
}

#[test]
fn msr_ticks_and_formats_without_time_under_an_override() {
    // MSR's own unit is the 100-ns FILETIME tick; --time-unit ns reads the column as ns.
    let text = "128166385295514663,hm,0,Write,0,4096,1\n";
    let own = read(text, Format::Msr, &TraceOptions::default());
    let ns = read(text, Format::Msr, &TraceOptions { time_unit: Some(TimeUnit::Ns), ..TraceOptions::default() });
    assert_eq!(own[0].arrival_ns, ns[0].arrival_ns * 100);
    // Seconds labelled as nanoseconds (MQSim's most common support question), and fractional
    // seconds, read with the override.
    let secs = read(
        "1 0 0 8 1\n2.25 0 8 8 1\n",
        Format::Mqsim,
        &TraceOptions { time_unit: Some(TimeUnit::S), ..TraceOptions::default() },
    );
    assert_eq!(secs.iter().map(|r| r.arrival_ns).collect::<Vec<_>>(), [1_000_000_000, 2_250_000_000]);
    // An overflowing time names line and field.
    let f = temp(b"18446744074 0 0 8 1\n");
    let o = TraceOptions { time_unit: Some(TimeUnit::S), ..TraceOptions::default() };
    let e = open_trace_with(f.path(), Format::Mqsim, &o).unwrap().find_map(Result::err).unwrap();
    assert_eq!((e.line, e.field), (1, "time"));
    assert!(e.message.contains("64 bits"), "{e}");
    // No time column: the option is an error, not ignored.
    for format in [Format::Arc, Format::FioV2] {
        let f = temp(b"0 8 0 0\n");
        let e = open_trace_with(f.path(), format, &o).err().unwrap();
        assert_eq!(e.field, "options");
        assert!(e.message.contains("has no time column"), "{e}");
    }
}
