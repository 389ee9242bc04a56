//! `ssdlab reproduce mango` and the `[mix]` trace mixer from the command line.

use std::process::Command;

fn ssdlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab")
}

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces");

/// A small `reproduce mango`: the claims table leads, the required check passes and is
/// printed, the discussion is filled in, the figures are written.
#[test]
fn reproduce_mango_small() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mango.md");
    let run = ssdlab(&["reproduce", "mango", "--traces", TRACES, "--scale", "0.25", "--out", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(stdout.matches("pass ").count(), 1, "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = md.lines().collect();
    assert!(lines[2].contains("Required checks: 1 of 1 pass"), "{}", lines[2]);
    for must in ["## Claims", "Fig. 7.4", "Fig. 7.5", "Financial", "Build (stand-in)", "## Discussion"] {
        assert!(md.contains(must), "report lacks {must}");
    }
    assert!(!md.contains("{{"), "unfilled discussion value");
    assert!(dir.path().join("mango-fig7-4-aged.svg").exists());
}

/// `[mix]` interleaves a trace at its share of the requests, tagged high priority: the
/// report's high class holds that share, and Mango puts every high-priority write on a
/// fast page of the half-empty drive. A bad share is refused with its key.
#[test]
fn a_mixed_trace_is_high_priority_at_its_share() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mix.toml");
    let json = dir.path().join("r.json");
    let swap = format!("{TRACES}/msr_cambridge/hm_1_short.csv");
    let main = format!("{TRACES}/umass_spc/fin1.trace");
    let trace_set = format!("mix.trace=\"{swap}\"");
    let mut args = vec!["run", "--preset", "mango-mlc", "--trace", &main, "--json", json.to_str().unwrap(), "--quiet"];
    for set in [
        trace_set.as_str(),
        "mix.percent=20",
        "mix.size_bytes=104857600",
        "mix.offset_bytes=1073741824",
        "mango.enabled=true",
        "precondition.used_fraction=0.5",
        "precondition.fill_invalid_to_gc_threshold=false",
    ] {
        args.extend(["--set", set]);
    }
    let run = ssdlab(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let classes = &r["priority"]["classes"];
    let (high, low) =
        (classes[0]["all"]["requests"].as_f64().unwrap(), classes[1]["all"]["requests"].as_f64().unwrap());
    let share = high / (high + low);
    assert!((share - 0.2).abs() < 0.001, "high-priority share {share}");
    assert_eq!(r["mango"]["high_slow_at_limit"], 0);
    assert_eq!(r["mango"]["high_fast_pages"], r["mango"]["high_page_writes"]);
    std::fs::write(&config, format!("[mix]\ntrace = \"{swap}\"\npercent = 120\n")).unwrap();
    let bad = ssdlab(&["run", "--config", config.to_str().unwrap(), "--synthetic", "count=100"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("mix.percent"), "{}", String::from_utf8_lossy(&bad.stderr));
}
