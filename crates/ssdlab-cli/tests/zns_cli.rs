//! End-to-end tests of the zoned drive (issue 44, docs/zns-fdp.md): the README's fio
//! `zonemode=zbd` example, a conventional area beside the zones, and the host-side
//! log-structured layer on a block trace.

mod common;
use common::*;

use std::path::PathBuf;

/// Issue 44: the zoned example drive runs the fio `zonemode=zbd` job: writes land at the
/// write pointers (nothing refused), zones are reset, the device programs each byte once.
#[test]
fn zns_example_runs_the_zbd_fio_job() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/zns");
    let config = root.join("zns.toml");
    let job = root.join("zns-rocksdb-like.fio");
    let (out, _) = ok(&[
        "run",
        "--config",
        config.to_str().unwrap(),
        "--job",
        job.to_str().unwrap(),
        "--check",
        "--verify",
        "--no-wall-clock",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.contains("design zns:"), "{out}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let zns = &report["designs"]["zns"];
    assert_eq!(zns["rejected"], 0, "{zns}");
    assert!(zns["resets"].as_u64().unwrap() > 10, "{zns}");
    assert_eq!(report["waf"], 1.0);
    assert_eq!(report["gc"]["victims"], 0);
    // The job's block-aligned I/O and its zone resets (which name a zone, not a range)
    // are all aligned: the resets were once counted as unaligned requests.
    assert_eq!(report["host"]["unaligned"], 0, "{}", report["host"]);
}

/// The same job on the drive with two conventional zones (12 MiB) and `offset` inside
/// them: the zoned writers start at the first sequential zone (no write, reset or read in
/// the area, no rejection), and the report gives the areas apart.
#[test]
fn zbd_fio_job_skips_a_conventional_area() {
    let dir = tempfile::tempdir().unwrap();
    let (json, requests) = (dir.path().join("out.json"), dir.path().join("requests.csv"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/zns");
    let job = dir.path().join("job.fio");
    std::fs::write(
        &job,
        "[z]\nzonemode=zbd\nmax_open_zones=2\nrw=randrw\nrwmixread=20\nbs=64k\nnumber_ios=400\noffset=6m\n",
    )
    .unwrap();
    ok(&[
        "run",
        "--config",
        root.join("zns.toml").to_str().unwrap(),
        "--set",
        "designs.zns.conventional_bytes=12582912",
        "--job",
        job.to_str().unwrap(),
        "--check",
        "--verify",
        "--no-wall-clock",
        "--json",
        json.to_str().unwrap(),
        "--requests",
        requests.to_str().unwrap(),
    ]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let zns = &report["designs"]["zns"];
    assert_eq!((zns["rejected"].as_u64(), zns["conventional_zones"].as_u64()), (Some(0), Some(2)), "{zns}");
    assert_eq!(zns["areas"]["zoned"]["device_waf"], 1.0, "{zns}");
    assert_eq!(zns["areas"]["conventional"]["writes"], 0, "{zns}");
    let csv = std::fs::read_to_string(&requests).unwrap();
    let offsets: Vec<u64> = csv.lines().skip(1).map(|l| l.split(',').nth(3).unwrap().parse().unwrap()).collect();
    assert!(offsets.len() >= 400 && offsets.iter().all(|&o| o >= 12 << 20), "{:?}", offsets.iter().min());
    assert!(offsets.contains(&(12 << 20)), "the first sequential zone is written from its start");
}

/// A block trace through the host-side log-structured layer prints both WAFs, and
/// `[designs.zns] enabled = false` simply switches the zoned namespace off.
#[test]
fn zns_host_layer_runs_a_trace_and_a_disabled_section_is_no_error() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let config = root.join("examples/zns/zns-log.toml");
    let trace = root.join("../shared/traces/umass_spc/example.ascii");
    let trace = std::env::var_os("SSDLAB_TRACES").map_or(trace, |t| PathBuf::from(t).join("umass_spc/example.ascii"));
    let args = ["run", "--config", config.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--format", "ssdsim"];
    let (out, _) = ok(&[&args[..], &["--verify", "--no-wall-clock"]].concat());
    assert!(out.contains("host layer (log-structured") && out.contains("device WAF 1.000"), "{out}");
    let zoned = root.join("examples/zns/zns.toml");
    let block = ["run", "--config", zoned.to_str().unwrap(), "--trace", trace.to_str().unwrap(), "--format", "ssdsim"];
    let (off, _) = ok(&[&block[..], &["--set", "designs.zns.enabled=false", "--no-wall-clock"]].concat());
    assert!(!off.contains("design zns") && !off.contains("host layer"), "{off}");
}
