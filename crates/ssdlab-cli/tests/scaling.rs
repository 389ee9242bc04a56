//! `ssdlab scaling` and `ssdlab reproduce ssd-cdc` end to end: the calculator's outputs,
//! its refusals of bad input, and the reproduction's report, figures and exit status.

mod common;
use common::*;

#[test]
fn the_default_table_sweeps_every_configuration_from_72_to_6_5_nm() {
    let (out, _) = ok(&["scaling"]);
    for c in ["SLC-1", "MLC-1", "MLC-2", "TLC-3"] {
        assert_eq!(out.lines().filter(|l| l.starts_with(c)).count(), 13, "{c}:\n{out}");
    }
    // The baseline row: MLC-2 at 34 nm is Table 3.1's 320 GB.
    let baseline = out.lines().find(|l| l.starts_with("MLC-2") && l.split_whitespace().nth(2) == Some("34")).unwrap();
    assert_eq!(baseline.split_whitespace().nth(3), Some("320.0"), "{baseline}");
    assert!(out.contains("read IOPS 512 B") && out.contains("write IOPS 4 KiB"), "{out}");
}

#[test]
fn csv_rows_carry_the_equations_values() {
    let (out, _) = ok(&["scaling", "--configurations", "mlc-2,TLC-3", "--feature-nm", "34,6.5", "--format", "csv"]);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    let num = |r: &csv::StringRecord, name: &str| r[col(name)].parse::<f64>().unwrap();
    // MLC-2, 34 nm: 1084.4·e^(−0.2924) + 30 µs; 24 × 3 × 4096 B / 809.47 µs.
    assert!((num(&rows[0], "write_latency_us") - 839.4719468643718).abs() < 1e-6);
    assert!((num(&rows[0], "write_bandwidth_mb_s") - 364.3263996268).abs() < 1e-6);
    assert_eq!(&rows[0][col("write_bandwidth_bound")], "die");
    // TLC-3, 6.5 nm: Eq. 1 gives 320 × 1.5 × (34 / 6.5)²; 512-B writes, §3.3.3's slowest.
    assert!((num(&rows[3], "capacity_gb") - 320.0 * 1.5 * (34.0f64 / 6.5).powi(2)).abs() < 1e-6);
    assert!((num(&rows[3], "write_iops_512b") - 32_980.783326354).abs() < 1e-3);
    assert_eq!(&rows[3][col("page_bytes")], "8192");
}

#[test]
fn json_states_the_model_and_flags_override_table_3_1() {
    let (out, _) = ok(&[
        "scaling",
        "--cells",
        "SLC-1",
        "--feature-nm",
        "34",
        "--format",
        "json",
        "--die-latency",
        "flash+overhead",
        "--channels",
        "8",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model"]["channels"], 8);
    assert_eq!(v["model"]["die_latency"], "flash+overhead");
    let row = &v["rows"][0];
    // With the overhead in DieLatency SLC-1 reads are die-bound: 8 × 3 × 4096 / (20.99 + 30).
    assert_eq!(row["read_bandwidth_mb_s"]["bound"], "die");
    let expected = 8.0 * 3.0 * 4096.0 / (23.4 * (-3.2e-3f64 * 34.0).exp() + 30.0);
    assert!((row["read_bandwidth_mb_s"]["value"].as_f64().unwrap() - expected).abs() < 1e-9);
}

#[test]
fn the_plot_is_an_svg_line_chart() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("iops.svg");
    let (_, err) = ok(&["scaling", "--plot", svg.to_str().unwrap(), "--plot-metric", "read-iops", "--format", "csv"]);
    assert!(err.contains("wrote"), "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.ends_with("</svg>"));
    // Four configurations × two access sizes.
    assert_eq!(text.matches("class=\"line\"").count(), 8, "{text}");
    assert!(text.contains("SSD capacity (GB)") && text.contains("TLC-3 4 KiB"));
}

#[test]
fn bad_input_is_refused_with_its_flag_named() {
    for (args, says) in [
        (vec!["--feature-nm", "-5"], "--feature-nm: feature size -5 nm"),
        (vec!["--feature-nm", "0"], "must be a positive"),
        (vec!["--configurations", "QLC-4"], "unknown configuration 'QLC-4'"),
        (vec!["--fit", "median"], "unknown fit 'median'"),
        (vec!["--die-latency", "controller"], "unknown die latency"),
        (vec!["--access", "0"], "an access size is a positive"),
        (vec!["--access", "16k"], "larger than SLC-1's 4096-B page"),
        (vec!["--dies-per-channel", "1"], "--dies-per-channel 1: must be at least 2"),
        (vec!["--channel-speed-mb-s", "-400"], "--channel-speed-mb-s -400"),
        (vec!["--ftl-overhead-us", "nan"], "--ftl-overhead-us NaN"),
        (vec!["--format", "xml"], "--format xml"),
        (vec!["--plot-metric", "speed"], "--plot-metric speed"),
    ] {
        let mut all = vec!["scaling"];
        all.extend(&args);
        let err = fails(&all);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn reproduce_ssd_cdc_writes_its_report_and_passes_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ssd-cdc.md");
    let (stdout, _) = ok(&["reproduce", "ssd-cdc", "--out", out.to_str().unwrap()]);
    assert!(!stdout.contains("FAIL"), "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("Required checks: 11 of 11 pass"), "{md}");
    for row in ["8.34× → 3.16×", "41.0×", "4.38 TB", "13.13 TB", "32981"] {
        assert!(md.contains(row), "{row} missing");
    }
    assert!(!md.contains("{{"), "an unfilled placeholder");
    for fig in ["fig3-5", "fig3-6a", "fig3-6b", "fig3-7a", "fig3-7b", "fig3-8a-512", "fig3-8d-4k"] {
        assert!(dir.path().join(format!("ssd-cdc-{fig}.svg")).is_file(), "{fig}");
        assert!(md.contains(&format!("(ssd-cdc-{fig}.svg)")), "{fig} not linked");
    }
    let err = fails(&["reproduce", "ssd-cdc", "--only", "hm_0", "--out", out.to_str().unwrap()]);
    assert!(err.contains("no workloads"), "{err}");
}
