//! The terminal summary says each thing once and in words that read right (issue 45,
//! items 10 and 13): the format detection, the start state's GC headroom, and the
//! page-type shares of writes the DRAM cache acknowledged.

mod common;
use common::*;

#[test]
fn a_sure_format_detection_is_explained_once() {
    let t = trace("msr_cambridge/hm_1_short.csv");
    let (stdout, stderr) = ok(&["run", "--trace", &t]);
    let why = "as in MSR Cambridge CSV";
    assert_eq!(stdout.matches(why).count() + stderr.matches(why).count(), 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("(format msr, detected: 7 comma-separated fields"), "{stdout}");
}

#[test]
fn the_start_state_names_the_fewest_free_blocks_above_the_threshold() {
    let t = trace("msr_cambridge/hm_1_short.csv");
    let (stdout, _) = ok(&["run", "--trace", &t, "--format", "msr"]);
    assert!(!stdout.contains("at least;") && !stdout.contains(" 1 free blocks"), "{stdout}");
    let line = stdout.lines().find(|l| l.starts_with("start state")).unwrap();
    assert!(line.contains("fewest free blocks above the background GC threshold (21): 1;"), "{line}");
}

#[test]
fn cached_writes_are_not_shown_as_zero_shares() {
    let t = trace("msr_cambridge/hm_1_short.csv");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let (stdout, _) = ok(&[
        "run",
        "--trace",
        &t,
        "--format",
        "msr",
        "--set",
        "cache.capacity_bytes=1048576",
        "--json",
        json.to_str().unwrap(),
    ]);
    let line = stdout.lines().find(|l| l.starts_with("write requests dominated by")).unwrap();
    assert!(line.contains("none (2387 writes were acknowledged from the DRAM cache, before any program"), "{line}");
    let r = common::json(&json);
    assert_eq!((r["write"]["requests"].as_u64(), r["dominated_writes"].as_u64()), (Some(2387), Some(0)));
    // Without the cache the same writes' shares sum to 1 over all of them.
    let (stdout, _) = ok(&["run", "--trace", &t, "--format", "msr", "--json", json.to_str().unwrap()]);
    assert!(stdout.contains("write requests dominated by: LSB "), "{stdout}");
    let r = common::json(&json);
    assert_eq!(r["dominated_writes"].as_u64(), Some(2387));
    let sum: f64 = r["dominated_write_share"].as_object().unwrap().values().map(|v| v.as_f64().unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-9, "{sum}");
}

#[test]
fn an_idle_rich_traces_rates_keep_significant_digits() {
    // hm_1_short: 11,067 requests over 26.8 h, 0.1149 IOPS, 0.02476 of them writes.
    let t = trace("msr_cambridge/hm_1_short.csv");
    let (stdout, _) = ok(&["run", "--trace", &t, "--format", "msr"]);
    for op in ["read ", "write ", "all "] {
        let row = stdout.lines().find(|l| l.starts_with(op)).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        let (iops, mib) = (cells[2], cells[3]);
        assert!(iops.parse::<f64>().unwrap() > 0.0 && mib.parse::<f64>().unwrap() > 0.0, "{row}");
        let significant = |s: &str| s.trim_start_matches(['0', '.']).len();
        assert!(significant(iops) >= 4 && significant(mib) >= 4, "{row}");
    }
}
