//! The readers against the real traces in `shared/traces`, checked with its CATALOG.md.
//!
//! The traces are found through `SSDLAB_TRACES` (default: `shared/traces` beside the
//! repository). A missing folder fails the tests: it is not a reason to skip them.

use flate2::write::GzEncoder;
use ssdlab_trace::{
    detect_format, open_trace, open_trace_with, scan_span, scan_stats, Format, Op, Record, TraceOptions, TraceSummary,
};
use std::io::Write;
use std::path::{Path, PathBuf};

fn traces_dir() -> PathBuf {
    let dir = match std::env::var_os("SSDLAB_TRACES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"),
    };
    assert!(
        dir.is_dir(),
        "real trace folder {} not found: set SSDLAB_TRACES to the folder holding \
         msr_cambridge/, umass_spc/ and ms_production/ (the project's shared/traces), e.g. \
         SSDLAB_TRACES=/path/to/shared/traces cargo test -p ssdlab-trace",
        dir.display()
    );
    dir
}

fn trace(rel: &str) -> PathBuf {
    let path = traces_dir().join(rel);
    assert!(path.is_file(), "trace {} is missing from {}", rel, traces_dir().display());
    path
}

fn read_all(path: &Path, format: Format) -> Vec<Record> {
    open_trace(path, format).unwrap_or_else(|e| panic!("{e}")).map(|r| r.unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// Scans a trace and checks the catalog's request count and two-decimal read share.
fn check(rel: &str, format: Format, requests: u64, read_share: &str, skipped: u64) -> TraceSummary {
    let s = scan_span(&trace(rel), format).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.requests, requests, "{rel}: request count");
    assert_eq!(format!("{:.2}", s.read_share()), read_share, "{rel}: read share {}", s.read_share());
    assert_eq!(s.skipped, skipped, "{rel}: skipped");
    assert_eq!(s.reads + s.writes, s.requests, "{rel}: no trims in this format");
    assert_eq!(s.format, format.name());
    s
}

#[test]
fn ssdsim_example_ascii() {
    let s = check("umass_spc/example.ascii", Format::Ssdsim, 10_000, "0.41", 0);
    assert_eq!(s.first_arrival_ns, Some(0));
    assert_eq!(s.last_arrival_ns, Some(259_601_203_125));
    // Catalog: mean size 5.4 KiB.
    assert_eq!(format!("{:.1}", s.mean_size_bytes() / 1024.0), "5.4");
}

#[test]
fn mqsim_websearch() {
    let s = check("umass_spc/wsrch-small.trace", Format::Mqsim, 24_783, "1.00", 0);
    // The catalog calls it read-only; the file does hold 4 writes (lines with type 0),
    // which still round to a read share of 1.00.
    assert_eq!(s.writes, 4);
    assert_eq!(s.first_arrival_ns, Some(11_413_000));
}

#[test]
fn mqsim_tpcc() {
    let s = check("ms_production/tpcc-small.trace", Format::Mqsim, 6_999, "0.63", 0);
    // Catalog: 16 devices.
    assert_eq!(s.max_device, Some(15));
}

#[test]
fn msr_official_sample() {
    let s = check("msr_cambridge/msr-cambridge1-sample.csv", Format::Msr, 1_000, "0.51", 0);
    assert_eq!(s.first_arrival_ns, Some(128_166_385_295_514_663 * 100));
    // Catalog: span 127 s.
    assert_eq!(s.duration_ns().unwrap() / 1_000_000_000, 127);
}

#[test]
fn msr_hm1_with_trailing_empty_rows() {
    let s = check("msr_cambridge/hm_1_short.csv", Format::Msr, 11_067, "0.78", 18_879);
    // Catalog: span 26.8 h.
    assert_eq!(format!("{:.1}", s.duration_ns().unwrap() as f64 / 3.6e12), "26.8");
    assert!(s.max_end_bytes > s.min_offset_bytes.unwrap());
}

#[test]
fn records_are_parsed_with_the_right_units() {
    let first = read_all(&trace("umass_spc/example.ascii"), Format::Ssdsim)[0];
    assert_eq!(
        first,
        Record {
            arrival_ns: 0,
            device: 0,
            offset_bytes: 303_567 * 512,
            size_bytes: 7 * 512,
            op: ssdlab_trace::Op::Write,
            hint: None
        }
    );
    let first = read_all(&trace("msr_cambridge/msr-cambridge1-sample.csv"), Format::Msr)[0];
    assert_eq!(
        first,
        Record {
            arrival_ns: 12_816_638_529_551_466_300,
            device: 0,
            offset_bytes: 9_056_014_336,
            size_bytes: 2048,
            op: ssdlab_trace::Op::Write,
            hint: None
        }
    );
}

#[test]
fn gzip_round_trip_gives_the_same_records() {
    let tmp = tempfile::tempdir().unwrap();
    for (rel, format) in [("umass_spc/example.ascii", Format::Ssdsim), ("msr_cambridge/hm_1_short.csv", Format::Msr)] {
        let path = trace(rel);
        let gz_path = tmp.path().join("trace.gz");
        let mut enc = GzEncoder::new(std::fs::File::create(&gz_path).unwrap(), flate2::Compression::fast());
        enc.write_all(&std::fs::read(&path).unwrap()).unwrap();
        enc.finish().unwrap();
        let plain = read_all(&path, format);
        let unzipped = read_all(&gz_path, format);
        assert!(!plain.is_empty());
        assert_eq!(plain, unzipped, "{rel}");
        let a = scan_span(&path, format).unwrap();
        let b = scan_span(&gz_path, format).unwrap();
        assert_eq!(a, b, "{rel}");
    }
}

#[test]
fn detection_on_real_traces() {
    for (rel, want) in CATALOG.iter().map(|c| (c.rel, c.detected)) {
        let (format, why) = detect_format(&trace(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(format, want, "{rel}: {why}");
        if rel == "umass_spc/example.ascii" {
            assert!(why.contains("ASSUMED"), "{rel}: an assumption must say so: {why}");
        }
        if rel == "umass_spc/fin1.trace" {
            // Decided from sequential runs in 4 KiB pages, and says so.
            assert!(why.contains("INFERRED flashsim") && why.contains("4 KiB pages"), "{rel}: {why}");
        }
    }
}

#[test]
fn ssdsim_and_mqsim_readers_agree_on_shared_layout() {
    // Both formats use 1 = read, 0 = write: the same file reads the same either way.
    let path = trace("ms_production/tpcc-small.trace");
    assert_eq!(read_all(&path, Format::Ssdsim), read_all(&path, Format::Mqsim));
}

/// One row of shared/traces/CATALOG.md.
struct Entry {
    rel: &'static str,
    format: Format,
    /// What detection picks (the catalog's own format, or the documented assumption).
    detected: Format,
    requests: u64,
    read_share: &'static str,
    /// Mean size in KiB, one decimal, when the catalog gives it to that precision.
    mean_kib: Option<&'static str>,
    skipped: u64,
}

const CATALOG: &[Entry] = &[
    Entry {
        rel: "msr_cambridge/msr-cambridge1-sample.csv",
        format: Format::Msr,
        detected: Format::Msr,
        requests: 1_000,
        read_share: "0.51",
        mean_kib: Some("9.5"),
        skipped: 0,
    },
    Entry {
        rel: "msr_cambridge/hm_1_short.csv",
        format: Format::Msr,
        detected: Format::Msr,
        requests: 11_067,
        read_share: "0.78",
        mean_kib: Some("20.8"),
        skipped: 18_879,
    },
    Entry {
        rel: "umass_spc/example.ascii",
        format: Format::Ssdsim,
        detected: Format::Mqsim,
        requests: 10_000,
        read_share: "0.41",
        mean_kib: Some("5.4"),
        skipped: 0,
    },
    Entry {
        rel: "umass_spc/fin1.trace",
        format: Format::Flashsim,
        detected: Format::Flashsim,
        requests: 50_000,
        read_share: "0.58",
        mean_kib: Some("7.0"),
        skipped: 0,
    },
    Entry {
        rel: "umass_spc/reconstructed_spc/Financial1_first10000.reconstructed.spc",
        format: Format::Spc,
        detected: Format::Spc,
        requests: 10_000,
        read_share: "0.41",
        mean_kib: Some("5.4"),
        skipped: 0,
    },
    Entry {
        rel: "umass_spc/wsrch-small.trace",
        format: Format::Mqsim,
        detected: Format::Mqsim,
        requests: 24_783,
        read_share: "1.00",
        mean_kib: None,
        skipped: 0,
    },
    Entry {
        rel: "umass_spc/reconstructed_spc/WebSearch1_first24783.reconstructed.spc",
        format: Format::Spc,
        detected: Format::Spc,
        requests: 24_783,
        read_share: "1.00",
        mean_kib: None,
        skipped: 0,
    },
    Entry {
        rel: "ms_production/tpcc-small.trace",
        format: Format::Mqsim,
        detected: Format::Mqsim,
        requests: 6_999,
        read_share: "0.63",
        mean_kib: Some("8.3"),
        skipped: 0,
    },
    Entry {
        rel: "fiu/cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines.clean.blkparse",
        format: Format::Fiu,
        detected: Format::Fiu,
        requests: 9_998,
        read_share: "0.89",
        mean_kib: None,
        skipped: 0,
    },
    Entry {
        rel: "systor17_vdi/systor-traces-sample.csv",
        format: Format::Systor,
        detected: Format::Systor,
        requests: 999,
        read_share: "0.83",
        mean_kib: None,
        skipped: 1,
    },
    Entry {
        rel: "blkparse_ycsb/blkparseout_ext4.txt",
        format: Format::Blkparse,
        detected: Format::Blkparse,
        requests: 9_887,
        read_share: "0.91",
        mean_kib: None,
        // Every other line: Q/G/I/C events, the summary and its two blank lines.
        skipped: 29_706 - 9_887,
    },
];

fn compress(codec: &str, data: &[u8]) -> Vec<u8> {
    match codec {
        "gzip" => {
            let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "zstd" => zstd::encode_all(data, 3).unwrap(),
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        _ => unreachable!(),
    }
}

const CODECS: [&str; 4] = ["gzip", "zstd", "bzip2", "xz"];

/// Every catalog file, raw and recompressed with every codec: the catalog's request count
/// and read share, the same records, and the codec detected from magic bytes.
#[test]
fn every_catalog_file_raw_and_recompressed() {
    let tmp = tempfile::tempdir().unwrap();
    for e in CATALOG {
        let path = trace(e.rel);
        let s = scan_span(&path, e.format).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(s.requests, e.requests, "{}: request count", e.rel);
        assert_eq!(format!("{:.2}", s.read_share()), e.read_share, "{}: read share {}", e.rel, s.read_share());
        assert_eq!(s.skipped, e.skipped, "{}: skipped", e.rel);
        assert_eq!(s.format, e.format.name());
        if let Some(kib) = e.mean_kib {
            assert_eq!(format!("{:.1}", s.mean_size_bytes() / 1024.0), kib, "{}: mean size", e.rel);
        }
        let plain = read_all(&path, e.format);
        let raw = std::fs::read(&path).unwrap();
        for codec in CODECS {
            let z = tmp.path().join(format!("trace.{codec}.bin"));
            std::fs::write(&z, compress(codec, &raw)).unwrap();
            assert_eq!(ssdlab_trace::detect_compression(&z).unwrap().name(), codec);
            assert_eq!(read_all(&z, e.format), plain, "{} via {codec}", e.rel);
            let (format, why) = detect_format(&z).unwrap();
            assert_eq!(format, e.detected, "{} via {codec}", e.rel);
            assert!(why.starts_with(&format!("{codec}-compressed")), "{why}");
        }
    }
}

#[test]
fn new_readers_parse_real_records_with_the_right_units() {
    let fin = read_all(&trace("umass_spc/fin1.trace"), Format::Flashsim);
    // fin1.trace holds Financial1 requests 3.. : example.ascii's third line is
    // `26214000 0 303574 7 0` (sector 303574, 7 sectors); FlashSim rounds it to one 4 KiB page.
    assert_eq!(
        fin[0],
        Record {
            arrival_ns: 26_214_000,
            device: 0,
            offset_bytes: 303_574 * 512,
            size_bytes: 4096,
            op: Op::Write,
            hint: None
        }
    );
    let spc = read_all(&trace("umass_spc/reconstructed_spc/Financial1_first10000.reconstructed.spc"), Format::Spc);
    let ascii = read_all(&trace("umass_spc/example.ascii"), Format::Ssdsim);
    // The SPC file was rebuilt from example.ascii: same offsets, sizes, ops and times (to the µs).
    for (a, b) in spc.iter().zip(&ascii) {
        assert_eq!((a.offset_bytes, a.size_bytes, a.op), (b.offset_bytes, b.size_bytes, b.op));
        assert!(a.arrival_ns.abs_diff(b.arrival_ns) < 1_000, "{a:?} {b:?}");
    }
    let fiu = read_all(&trace(CATALOG[8].rel), Format::Fiu);
    assert_eq!(
        fiu[0],
        Record {
            arrival_ns: 89_966_522_969_723,
            device: 6 << 20,
            offset_bytes: 18_579_576 * 512,
            size_bytes: 4096,
            op: Op::Write,
            hint: None
        }
    );
    let systor = read_all(&trace("systor17_vdi/systor-traces-sample.csv"), Format::Systor);
    assert_eq!(
        (systor[0].arrival_ns, systor[0].offset_bytes, systor[0].size_bytes),
        (1_456_095_145_133_076_000, 899_056_122_368, 131_072)
    );
    let blk = read_all(&trace("blkparse_ycsb/blkparseout_ext4.txt"), Format::Blkparse);
    assert_eq!(
        blk[0],
        Record {
            arrival_ns: 26_421,
            device: (8 << 20) | 16,
            offset_bytes: 4_938_888 * 512,
            size_bytes: 256 * 512,
            op: Op::Read,
            hint: None
        }
    );
}

#[test]
fn systor_rows_are_out_of_order_until_sorted() {
    let path = trace("systor17_vdi/systor-traces-sample.csv");
    let count_backwards = |o: &TraceOptions| {
        let recs: Vec<Record> = open_trace_with(&path, Format::Systor, o).unwrap().map(Result::unwrap).collect();
        assert_eq!(recs.len(), 999);
        recs.windows(2).filter(|w| w[1].arrival_ns < w[0].arrival_ns).count()
    };
    assert!(count_backwards(&TraceOptions::default()) > 100);
    assert_eq!(count_backwards(&TraceOptions { sort_window: 1000, ..TraceOptions::default() }), 0);
}

#[test]
fn options_on_real_traces() {
    // tpcc: 16 devices; keep one.
    let path = trace("ms_production/tpcc-small.trace");
    let all = scan_stats(&path, Format::Mqsim, &TraceOptions::default()).unwrap();
    let (devices, _) = all.devices();
    assert_eq!(devices.len(), 16);
    let (&dev, &count) = devices.iter().max_by_key(|(_, &n)| n).unwrap();
    let one = scan_stats(&path, Format::Mqsim, &TraceOptions { device: Some(dev), ..TraceOptions::default() }).unwrap();
    assert_eq!(one.summary.requests, count);
    assert_eq!(one.summary.skipped, 6_999 - count);
    // fin1: the first 100 s.
    let fin = trace("umass_spc/fin1.trace");
    let o = TraceOptions { time_window_ns: Some((0, 100_000_000_000)), ..TraceOptions::default() };
    let s = scan_stats(&fin, Format::Flashsim, &o).unwrap();
    assert!(s.summary.requests > 1000 && s.summary.requests < 50_000);
    assert!(s.span_ns().unwrap() < 100_000_000_000);
}

#[test]
fn stats_on_real_traces() {
    let s = scan_stats(&trace("umass_spc/fin1.trace"), Format::Flashsim, &TraceOptions::default()).unwrap();
    let f = s.footprint();
    assert_eq!(f.sample_shift, 0);
    assert!(f.pages > 1000 && f.pages < 50_000 * 12, "{f:?}");
    let hot = f.hot_write_share.unwrap();
    assert!(hot > 0.0 && hot < 1.0, "{hot}");
    let g = s.interarrival().unwrap();
    assert_eq!(g.count, 49_999);
    assert!(g.p50_us <= g.p99_us && g.p99_us <= g.max_us);
    // Catalog: span 853 s.
    assert_eq!(s.span_ns().unwrap() / 1_000_000_000, 853);
    let hist: u64 = s.size_histogram().iter().map(|b| b.2).sum();
    assert_eq!(hist, 50_000);
    let seq =
        scan_stats(&trace("blkparse_ycsb/blkparseout_ext4.txt"), Format::Blkparse, &TraceOptions::default()).unwrap();
    assert!(seq.sequential_share() > 0.0);
}
