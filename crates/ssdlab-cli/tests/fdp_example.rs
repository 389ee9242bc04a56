//! Issue 44's acceptance for FDP: the README's FDP example, a real trace split into two
//! placement streams on the `fdp-pm9d3a` preset, prints the FDP statistics log per
//! handle in the summary, and each handle's host bytes are exactly its stream's writes.

mod common;
use common::*;

/// The README's split: Financial1's ASU 0 → placement identifier 0, every other ASU →
/// the default, 1. Handle 0's Host Bytes with Metadata Written must equal the bytes the
/// trace writes to ASU 0 and handle 1's those of the other ASUs (summed here from the
/// SPC file itself: `ASU,LBA,Size,Opcode,Timestamp`); the six other handles take none.
#[test]
fn readme_fdp_example_splits_financial1_by_asu_and_prints_the_statistics_log() {
    let rel = "umass_spc/reconstructed_spc/Financial1_first10000.reconstructed.spc";
    let text = std::fs::read_to_string(trace(rel)).unwrap();
    let (mut asu0, mut others) = (0u64, 0u64);
    for line in text.lines() {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() >= 5 && f[3].eq_ignore_ascii_case("w") {
            let size: u64 = f[2].parse().unwrap();
            if f[0] == "0" {
                asu0 += size;
            } else {
                others += size;
            }
        }
    }
    assert!(asu0 > 0 && others > 0);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let t = trace(rel);
    let (stdout, _) = ok(&[
        "run",
        "--preset",
        "fdp-pm9d3a",
        "--trace",
        &t,
        "--set",
        "designs.fdp.device_pids=[0]",
        "--set",
        "designs.fdp.default_pid=1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let line = stdout.lines().find(|l| l.starts_with("design fdp:")).expect("a design fdp line");
    for field in ["reclaim_unit_bytes 13079937024", "host_bytes_written", "media_bytes_written", "media_bytes_erased"] {
        assert!(line.contains(field), "{field} missing: {line}");
    }
    // One line per handle, labelled by its name.
    let handle0 = stdout.lines().find(|l| l.starts_with("  handles[0] handle-0:")).expect("a line for handle 0");
    assert!(handle0.contains(&format!("host_bytes_written {asu0},")), "{handle0}");
    let r = common::json(&json);
    let fdp = &r["designs"]["fdp"];
    let host = |k: usize| fdp["handles"][k]["host_bytes_written"].as_u64().unwrap();
    assert_eq!((host(0), host(1)), (asu0, others), "{fdp}");
    assert!((2..8).all(|k| host(k) == 0), "{fdp}");
    assert_eq!(fdp["host_bytes_written"].as_u64(), Some(asu0 + others));
    for k in 0..2 {
        let h = &fdp["handles"][k];
        let waf = h["media_bytes_written"].as_f64().unwrap() / h["host_bytes_written"].as_f64().unwrap();
        assert!((h["waf"].as_f64().unwrap() - waf).abs() < 1e-12 && waf >= 1.0, "{h}");
    }
}
