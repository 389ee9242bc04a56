//! The readers against the real traces in `shared/traces`, checked with its CATALOG.md.
//!
//! The traces are found through `SSDLAB_TRACES` (default: `shared/traces` beside the
//! repository). A missing folder fails the tests: it is not a reason to skip them.

use flate2::write::GzEncoder;
use ssdlab_trace::{detect_format, open_trace, scan_span, Format, Record, TraceSummary};
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
    for rel in ["msr_cambridge/msr-cambridge1-sample.csv", "msr_cambridge/hm_1_short.csv"] {
        let (format, why) = detect_format(&trace(rel)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format, Format::Msr, "{rel}: {why}");
    }
    for rel in ["umass_spc/example.ascii", "umass_spc/wsrch-small.trace", "ms_production/tpcc-small.trace"] {
        let e = detect_format(&trace(rel)).unwrap_err();
        assert!(e.message.contains("--format ssdsim or --format mqsim"), "{rel}: {e}");
    }
}

#[test]
fn ssdsim_and_mqsim_readers_agree_on_shared_layout() {
    // Both formats use 1 = read, 0 = write: the same file reads the same either way.
    let path = trace("ms_production/tpcc-small.trace");
    assert_eq!(read_all(&path, Format::Ssdsim), read_all(&path, Format::Mqsim));
}
