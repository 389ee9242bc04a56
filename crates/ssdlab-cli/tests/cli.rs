//! End-to-end tests of the `ssdlab` binary: the README's commands, the issue's
//! acceptance command, compare, config errors, determinism and golden summaries of
//! short real-trace runs.

mod common;
use common::*;

use std::path::PathBuf;

mod golden_diff;

fn ok(args: &[&str]) -> String {
    let out = ssdlab(args);
    assert!(
        out.status.success(),
        "ssdlab {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn default_run_needs_no_files() {
    let out = ok(&["run"]);
    assert!(out.contains("small-tlc"), "{out}");
    assert!(out.contains("sub-requests/s"), "{out}");
}

#[test]
fn acceptance_command_writes_spec_fields() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let t = trace("umass_spc/example.ascii");
    ok(&[
        "run",
        "--quiet",
        "--preset",
        "pa-ssd-tlc",
        "--trace",
        &t,
        "--format",
        "ssdsim",
        "--json",
        json.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["host"]["requests"], 10_000);
    for path in [
        "/read/iops",
        "/write/bandwidth_mib_s",
        "/read/latency_ns/p99",
        "/write/latency_ns/p999",
        "/all/latency_ns/max",
        "/waf",
        "/gc/moved_pages",
        "/erase_counts/max",
        "/dominated_write_share/MSB",
        "/flash/slc_hit_ratio",
        "/flash/read_retries",
        "/flash/uncorrectable_reads",
        "/energy_nj/total",
        "/device/mapping_table_bytes",
        "/simulator/sub_requests_per_second",
    ] {
        assert!(v.pointer(path).is_some(), "missing {path}");
    }
    let read_share = v["read"]["requests"].as_f64().unwrap() / 10_000.0;
    assert!((read_share - 0.41).abs() < 0.005, "Fin read share {read_share}");
}

#[test]
fn same_run_twice_gives_byte_identical_json() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    let t = trace("msr_cambridge/msr-cambridge1-sample.csv");
    for out in [&a, &b] {
        ok(&["run", "--quiet", "--trace", &t, "--format", "msr", "--no-wall-clock", "--json", out.to_str().unwrap()]);
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn compare_prints_a_normalised_table() {
    let out = ok(&[
        "compare",
        "--synthetic",
        "count=3000",
        "--variant",
        "greedy",
        "--variant",
        "fifo:ftl.gc_victim=fifo",
        "--variant",
        "dynamic:ftl.plane_allocation=least-busy",
    ]);
    assert!(out.contains("baseline: greedy"), "{out}");
    let greedy = out.lines().find(|l| l.starts_with("greedy")).expect("baseline row");
    assert!(greedy.contains(" 1.000 "), "baseline normalises to 1: {greedy}");
    assert!(out.lines().any(|l| l.starts_with("dynamic")), "{out}");
}

#[test]
fn compare_parallel_equals_serial() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("par.json");
    let b = dir.path().join("ser.json");
    let common =
        ["compare", "--synthetic", "count=2000", "--variant", "a", "--variant", "b:ftl.gc_victim=cost-benefit"];
    let mut par: Vec<&str> = common.to_vec();
    par.extend(["--json", a.to_str().unwrap()]);
    let mut ser: Vec<&str> = common.to_vec();
    ser.extend(["--serial", "--json", b.to_str().unwrap()]);
    ok(&par);
    ok(&ser);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn presets_lists_every_paper_device() {
    let out = ok(&["presets"]);
    for name in ["pa-ssd-tlc", "spa-ssd-hybrid", "dir-tlc", "ipu-slc-mlc", "harey-tortoise-mlc", "gordon"] {
        assert!(out.contains(name), "{name} missing from:\n{out}");
    }
}

/// Every preset's `--show` text is a config file that loads as the preset itself, a
/// variant (`extends`) included.
#[test]
fn every_shown_preset_loads_back_as_itself() {
    let dir = tempfile::tempdir().unwrap();
    for (name, _) in ssdlab_core::presets::PRESETS {
        let file = dir.path().join(format!("{name}.toml"));
        std::fs::write(&file, ssdlab_cli::presets::toml(name).unwrap()).unwrap();
        let shown = ssdlab_core::config::parse_config(&std::fs::read_to_string(&file).unwrap(), "shown").unwrap();
        assert_eq!(shown, ssdlab_core::presets::preset(name).unwrap(), "{name}");
    }
    let fresh = ssdlab_cli::presets::toml("dir-tlc-fresh").unwrap();
    assert!(fresh.contains("pe_cycles = 0 # dir-tlc-fresh"), "{fresh}");
}

#[test]
fn config_errors_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\n[geometry]\nchanels = 4\n").unwrap();
    let err = fails(&["check-config", bad.to_str().unwrap()]);
    assert!(err.contains("bad.toml:3") && err.contains("did you mean 'channels'"), "{err}");

    std::fs::write(&bad, "name = \"x\"\n[geometry]\nplanes_per_die = 0\n").unwrap();
    let err = fails(&["check-config", bad.to_str().unwrap()]);
    assert!(err.contains("geometry.planes_per_die") && err.contains("at least 1"), "{err}");

    let err = fails(&["run", "--set", "ftl.over_provisioning=0.01"]);
    assert!(err.contains("ftl.over_provisioning"), "{err}");
    let err = fails(&["run", "--preset", "pa-ssd-tcl"]);
    assert!(err.contains("did you mean 'pa-ssd-tlc'"), "{err}");
}

#[test]
fn malformed_trace_line_is_an_error_with_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.trace");
    std::fs::write(&bad, "0 0 0 8 1\n1000 0 x 8 1\n").unwrap();
    let err = fails(&["run", "--quiet", "--trace", bad.to_str().unwrap(), "--format", "ssdsim"]);
    assert!(err.contains("bad.trace:2") && err.contains("field"), "{err}");
}

#[test]
fn multi_run_reports_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    let t = trace("msr_cambridge/msr-cambridge1-sample.csv");
    ok(&["run", "--quiet", "--trace", &t, "--format", "msr", "--runs", "3", "--json", json.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["host"]["requests"], 3000);
    assert_eq!(v["runs"].as_array().unwrap().len(), 3);
}

#[test]
fn series_and_request_csv_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let series = dir.path().join("s.csv");
    let requests = dir.path().join("r.csv");
    let t = trace("msr_cambridge/msr-cambridge1-sample.csv");
    ok(&[
        "run",
        "--quiet",
        "--trace",
        &t,
        "--format",
        "msr",
        "--interval-ms",
        "10000",
        "--series",
        series.to_str().unwrap(),
        "--requests",
        requests.to_str().unwrap(),
    ]);
    let s = std::fs::read_to_string(&series).unwrap();
    assert!(s.starts_with("start_ns,end_ns,reads,writes"), "{s}");
    // 127 s of trace at 10 s intervals: 13 rows plus the header.
    assert!(s.lines().count() >= 13, "{s}");
    let r = std::fs::read_to_string(&requests).unwrap();
    assert_eq!(r.lines().count(), 1001, "header plus one row per request");
}

/// Golden summaries: short runs of real traces must not change silently. Regenerate
/// with SSDLAB_UPDATE_GOLDEN=1 after an intended model change; the update prints the
/// changed metrics to stderr, and the commit names the model rule that changed and
/// includes that summary (docs/testing.md).
fn golden(name: &str, args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("g.json");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--quiet", "--no-wall-clock", "--json", json.to_str().unwrap()]);
    ok(&all);
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // Paths differ between machines; the rest must match exactly.
    v.as_object_mut().unwrap().remove("workload_description");
    v.as_object_mut().unwrap().remove("command_line");
    let text = serde_json::to_string_pretty(&v).unwrap() + "\n";
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden")).join(format!("{name}.json"));
    let previous = std::fs::read_to_string(&path).ok();
    if std::env::var_os("SSDLAB_UPDATE_GOLDEN").is_some() {
        if previous.as_deref() != Some(text.as_str()) {
            std::fs::write(&path, &text).unwrap();
            let report = match &previous {
                Some(old) => {
                    format!("golden {name} updated ({}):\n{}", path.display(), golden_diff::summary_text(old, &v))
                }
                None => format!("golden {name} created ({})\n", path.display()),
            };
            // Straight to stderr, past the test harness's capture, in one write so
            // parallel tests do not interleave.
            use std::io::Write;
            std::io::stderr().lock().write_all(report.as_bytes()).unwrap();
        }
        return;
    }
    let expected = previous.unwrap_or_else(|| panic!("{} missing: run with SSDLAB_UPDATE_GOLDEN=1", path.display()));
    if expected != text {
        panic!(
            "golden {name} changed ({}), old -> new:\n{}If the model change is intended, regenerate with \
             SSDLAB_UPDATE_GOLDEN=1 and name the changed rule in the commit (docs/testing.md).",
            path.display(),
            golden_diff::summary_text(&expected, &v)
        );
    }
}

#[test]
fn golden_fin_on_small_tlc() {
    golden("fin-small-tlc", &["run", "--trace", &trace("umass_spc/example.ascii"), "--format", "ssdsim"]);
}

#[test]
fn golden_msr_hm1_on_small_tlc() {
    golden(
        "msr-hm1-small-tlc",
        &["run", "--trace", &trace("msr_cambridge/hm_1_short.csv"), "--format", "msr", "--speed", "100"],
    );
}

/// 3D TLC one-shot programming without an SLC cache: writes wait in DRAM for their page
/// set (or `program_delay_ns`), incomplete sets waste the rest of their wordline.
#[test]
fn golden_fiu_on_one_shot_tlc() {
    golden(
        "fiu-one-shot-tlc",
        &[
            "run",
            "--preset",
            "spa-ssd-hybrid",
            "--set",
            "ftl.slc_blocks_per_plane=0",
            "--trace",
            &trace("fiu/cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines.clean.blkparse"),
            "--format",
            "fiu",
        ],
    );
}

/// SLC/TLC hybrid (SPA-SSD Fig. 7): SLC cache full at the start, TPJ-PA allocation and
/// QPC-DM migration, so migration runs during the trace.
#[test]
fn golden_fin_on_hybrid_tpj_qpc() {
    golden(
        "fin-hybrid-tpj-qpc",
        &[
            "run",
            "--preset",
            "spa-ssd-hybrid",
            "--set",
            "precondition.slc_filled=true",
            "--set",
            "hybrid.allocation=tpj",
            "--set",
            "hybrid.migration=qpc",
            "--trace",
            &trace("umass_spc/example.ascii"),
            "--format",
            "ssdsim",
        ],
    );
}

/// A loaded run: the Financial excerpt closed loop at queue depth 64, so queueing, not
/// flash service time, dominates latency.
#[test]
fn golden_fin_loaded_closed_loop_64() {
    golden(
        "fin-small-tlc-closed-loop-64",
        &["run", "--trace", &trace("umass_spc/example.ascii"), "--format", "ssdsim", "--closed-loop", "64"],
    );
}

#[test]
fn burst_replay_measures_its_gap_threshold_from_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let t = trace("umass_spc/example.ascii");
    ok(&["run", "--quiet", "--trace", &t, "--format", "ssdsim", "--burst", "--json", json.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // Fin excerpt: 10,000 requests over ~259.6 s → mean inter-arrival ~26 ms.
    let gap = v["burst"]["gap_threshold_ns"].as_u64().unwrap();
    assert!((25_000_000..27_000_000).contains(&gap), "gap {gap}");
    let bursts = v["burst"]["bursts"].as_u64().unwrap();
    assert!(bursts > 100 && bursts < 10_000, "bursts {bursts}");
    assert_eq!(v["host"]["replay"], "burst");
}

#[test]
fn pa_ssd_type_specified_allocation_succeeds_above_98_percent_on_a_real_trace() {
    // PA §6.1: over 98% of sub-requests get their page type. A plane's first open block
    // can offer only LSB pages for a while, so the rate is a steady-state property: with
    // Fin's 9,181 written pages spread over the full device's 256 planes (36 each) the
    // start-up dominates; on a two-plane PA device every plane sees thousands of pages.
    let t = trace("umass_spc/example.ascii");
    for scheme in ["us", "sbs+us", "qds+ubs"] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("pa.json");
        let scheme_set = format!("pa.scheme={scheme}");
        ok(&[
            "run",
            "--quiet",
            "--check",
            "--preset",
            "pa-ssd-tlc",
            "--trace",
            &t,
            "--format",
            "ssdsim",
            "--set",
            &scheme_set,
            "--set",
            "flash.wordline_buffer=false",
            "--set",
            "geometry.channels=1",
            "--set",
            "geometry.chips_per_channel=1",
            "--set",
            "geometry.dies_per_chip=1",
            "--set",
            "geometry.planes_per_die=2",
            "--json",
            json.to_str().unwrap(),
        ]);
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let rate = v["pa"]["success_rate"].as_f64().unwrap();
        assert!(rate > 0.98, "{scheme}: success rate {rate}");
    }
}

#[test]
fn pa_ssd_lfs_and_qds_ubs_beat_the_baseline_on_fin() {
    let t = trace("umass_spc/example.ascii");
    let mean_write = |scheme: &str| {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("pa.json");
        let scheme_set = format!("pa.scheme={scheme}");
        let buffer = format!("flash.wordline_buffer={}", scheme == "none");
        ok(&[
            "run",
            "--quiet",
            "--preset",
            "pa-ssd-tlc",
            "--trace",
            &t,
            "--format",
            "ssdsim",
            "--set",
            &scheme_set,
            "--set",
            &buffer,
            "--json",
            json.to_str().unwrap(),
        ]);
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        v["write"]["latency_ns"]["mean"].as_f64().unwrap()
    };
    let base = mean_write("none");
    assert!(mean_write("lfs") < 0.5 * base);
    assert!(mean_write("qds+ubs") < base);
}

#[test]
fn trace_stats_prints_the_catalog_count_and_read_share_of_every_file() {
    // (file, requests, read share) from ../shared/traces/CATALOG.md.
    let catalog = [
        ("msr_cambridge/msr-cambridge1-sample.csv", "1,000", 0.51),
        ("msr_cambridge/hm_1_short.csv", "11,067", 0.78),
        ("umass_spc/example.ascii", "10,000", 0.41),
        ("umass_spc/fin1.trace", "50,000", 0.58),
        ("umass_spc/reconstructed_spc/Financial1_first10000.reconstructed.spc", "10,000", 0.41),
        ("umass_spc/wsrch-small.trace", "24,783", 1.00),
        ("umass_spc/reconstructed_spc/WebSearch1_first24783.reconstructed.spc", "24,783", 1.00),
        ("ms_production/tpcc-small.trace", "6,999", 0.63),
        ("fiu/cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines.clean.blkparse", "9,998", 0.89),
        ("systor17_vdi/systor-traces-sample.csv", "999", 0.83),
        ("blkparse_ycsb/blkparseout_ext4.txt", "9,887", 0.91),
    ];
    for (file, requests, read_share) in catalog {
        let out = ok(&["trace-stats", &trace(file)]);
        let line = |key: &str| {
            out.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{file}: no {key}:\n{out}")).to_string()
        };
        assert!(line("requests").contains(requests), "{file}: {}", line("requests"));
        let ops = line("ops");
        let read_pct: f64 =
            ops.split("read ").nth(1).unwrap().split('(').nth(1).unwrap().split('%').next().unwrap().parse().unwrap();
        assert!((read_pct / 100.0 - read_share).abs() < 0.006, "{file}: read share {read_pct}% vs {read_share}");
    }
}

#[test]
fn fio_job_files_run() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.fio");
    std::fs::write(&job, "[global]\nbs=4k\niodepth=8\n[mix]\nrw=randrw\nrwmixread=70\nbssplit=4k/60:16k/40\nnumber_ios=3000\nrandseed=2\n").unwrap();
    let json = dir.path().join("j.json");
    ok(&["run", "--quiet", "--job", job.to_str().unwrap(), "--json", json.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["host"]["requests"], 3000);
    assert_eq!(v["host"]["replay"], "closed-loop");
    let reads = v["read"]["requests"].as_f64().unwrap() / 3000.0;
    assert!((reads - 0.7).abs() < 0.03, "read share {reads}");
}

#[test]
fn gzip_msr_trace_is_detected_inside_the_compression() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("x.csv.gz");
    let raw = std::fs::read(trace("msr_cambridge/msr-cambridge1-sample.csv")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::default());
    enc.write_all(&raw).unwrap();
    enc.finish().unwrap();
    let out = ok(&["run", "--trace", gz.to_str().unwrap()]);
    assert!(out.contains("format msr") && out.contains("gzip"), "{out}");
    assert!(out.contains("requests: 1000"), "{out}");
}

/// The trustworthiness issue's acceptance run: the Financial excerpt with three power
/// losses recovers and finishes with --verify clean, and the report shows the recovery
/// time and the lost unacknowledged writes. (Replayed 20× faster so that each loss cuts
/// work in flight.)
#[test]
fn financial_trace_survives_three_power_losses_with_verify_clean() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("power.json");
    let t = trace("umass_spc/example.ascii");
    let args = [
        "run",
        "--trace",
        &t,
        "--format",
        "ssdsim",
        "--speed",
        "20",
        "--power-loss-at",
        "2s",
        "--power-loss-at",
        "5s",
        "--power-loss-at",
        "9000ms",
        "--verify",
        "--check",
        "--json",
        json.to_str().unwrap(),
    ];
    let out = ok(&args);
    assert!(out.contains("power losses: 3 of 3 scheduled"), "{out}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let power = &report["power"];
    assert_eq!(power["losses"], 3);
    assert_eq!(power["each"].as_array().unwrap().len(), 3);
    for loss in power["each"].as_array().unwrap() {
        let recovery = loss["recovery_ns"].as_u64().unwrap();
        assert!(recovery > 0, "{loss}");
        assert_eq!(loss["back_at_ns"].as_u64().unwrap(), loss["at_ns"].as_u64().unwrap() + recovery);
    }
    assert!(power["write_requests_failed"].as_u64().unwrap() > 0, "{power}");
    assert!(power["unacknowledged_pages_lost"].as_u64().unwrap() > 0, "{power}");
    // Every request not failed by a loss completed.
    let failed = power["write_requests_failed"].as_u64().unwrap() + power["read_requests_failed"].as_u64().unwrap();
    assert_eq!(report["all"]["requests"].as_u64().unwrap() + failed, 10_000);
}

#[test]
fn power_loss_time_must_parse() {
    let err = fails(&["run", "--power-loss-at", "soon"]);
    assert!(err.contains("--power-loss-at") && err.contains("soon"), "{err}");
}

/// `ssdlab reproduce spa-ssd` at a tiny scale (one Fig. 7 trace): every figure's table,
/// the acceptance checks and the commands are in the report.
#[test]
fn reproduce_spa_ssd_tiny() {
    let dir = std::env::temp_dir().join(format!("ssdlab-spa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("spa-ssd.md");
    let traces = traces();
    let output = ssdlab(&[
        "reproduce",
        "spa-ssd",
        "--traces",
        traces.to_str().unwrap(),
        "--scale",
        "0.005",
        "--only",
        "fig3,fig5,fig6,fig7,hm_0",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("wrote"), "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    // The exit status is the required checks' verdict (at this tiny scale some fail).
    let required_failed = md.lines().any(|l| l.starts_with("| **Required:**") && l.ends_with("| no |"));
    // A failed required check exits 1 (the report is written); errors exit 2.
    assert_eq!(output.status.code(), Some(if required_failed { 1 } else { 0 }), "{md}");
    if required_failed {
        assert!(String::from_utf8_lossy(&output.stderr).contains("required check(s) of reproduce spa-ssd failed"));
    }
    for heading in [
        "# SPA-SSD reproduction",
        "## Claims",
        "## Fig. 3:",
        "## Fig. 5:",
        "## Fig. 6:",
        "### Fig. 7a (SLC full at the start)",
        "### Fig. 7b (SLC empty at the start)",
        "## Commands",
        "## Discussion",
    ] {
        assert!(md.contains(heading), "missing {heading:?} in\n{md}");
    }
    // 6 parallelism rows in Fig. 3; a QL-128 row in Fig. 6; every required check rendered,
    // and the verdict counts first, without a machine path.
    assert!(md.contains("| 128 (8 × 4 × 4) |"), "{md}");
    assert!(md.contains("| 128 | "), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with("| **Required:**")).count(), 6, "{md}");
    assert!(md.lines().nth(2).unwrap().contains("claims:"), "{md}");
    assert!(!md.contains(traces.to_str().unwrap()), "{md}");
    assert!(md.contains("ssdlab run --preset spa-ssd-hybrid --set hybrid.slc_planes=16"), "{md}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Fig. 7 of `reproduce spa-ssd` takes its traces from a manifest too: a renamed copy of
/// Fin runs under its manifest name.
#[test]
fn reproduce_spa_ssd_reads_its_traces_from_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(traces().join("umass_spc/example.ascii"), dir.path().join("renamed.txt")).unwrap();
    std::fs::write(
        dir.path().join("manifest.toml"),
        "[[workload]]\nname = \"copy\"\nfile = \"renamed.txt\"\nformat = \"ssdsim\"\nrole = \"Fin renamed\"\n",
    )
    .unwrap();
    let out = dir.path().join("spa.md");
    let args = [
        "reproduce",
        "spa-ssd",
        "--traces",
        dir.path().to_str().unwrap(),
        "--only",
        "copy",
        "--out",
        out.to_str().unwrap(),
    ];
    let output = ssdlab(&args);
    let md = std::fs::read_to_string(&out).unwrap();
    let required_failed = md.lines().any(|l| l.starts_with("| **Required:**") && l.ends_with("| no |"));
    assert_eq!(output.status.success(), !required_failed, "{md}");
    assert!(md.contains("- **copy**: Fin renamed (`renamed.txt`)") && md.contains("| copy |"), "{md}");
    assert!(!md.contains(dir.path().to_str().unwrap()), "{md}");
    // A name neither a figure nor a manifest workload is refused.
    let bad = ssdlab(&[
        "reproduce",
        "spa-ssd",
        "--traces",
        dir.path().to_str().unwrap(),
        "--only",
        "Fin",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
}

#[test]
fn reproduce_spa_ssd_rejects_unknown_parts() {
    let err = fails(&["reproduce", "spa-ssd", "--only", "fig4"]);
    assert!(err.contains("fig4") && err.contains("fig3"), "{err}");
}

#[test]
fn reproduce_refuses_unknown_workloads_and_non_positive_scales_before_writing() {
    // Issue 16 item 6: both used to run (an empty report, or 35 runs at scale 0) and
    // overwrite the report.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pa.md");
    let out_arg = out.to_str().unwrap();
    let traces = traces();
    let traces = traces.to_str().unwrap();
    let e = fails(&["reproduce", "pa-ssd", "--traces", traces, "--only", "nosuch", "--out", out_arg]);
    assert!(e.contains("--only nosuch: no such workload; pa-ssd's are Fin"), "{e}");
    for scale in ["0", "-1", "NaN"] {
        let scale_arg = format!("--scale={scale}");
        let e = fails(&["reproduce", "pa-ssd", "--traces", traces, &scale_arg, "--out", out_arg]);
        assert!(e.contains("must be a positive number"), "{scale}: {e}");
    }
    assert!(!out.exists(), "nothing written");
}

/// `ssdlab reproduce dir` on one workload: the claims table comes first with computed
/// verdicts, the figures and ablations follow, the discussion's placeholders are filled,
/// no machine path appears, and the run exits 0 only when every required check holds.
/// `reproduce pa-ssd` takes its traces from a manifest (a renamed copy of a shipped
/// trace runs as any other), opens with its claims, and exits non-zero when a required
/// check fails: 20 single-page writes 0.1 s apart never queue, so QDS never switches to
/// LSB pages and QDS+UBS cannot beat the baseline.
#[test]
fn reproduce_pa_ssd_reads_a_manifest_and_gates_on_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(traces().join("umass_spc/example.ascii"), dir.path().join("renamed-fin.txt")).unwrap();
    let sparse: String = (0..20).map(|i| format!("{} 0 {} 16 0\n", i * 100_000_000u64, i * 4096)).collect();
    std::fs::write(dir.path().join("sparse.trace"), sparse).unwrap();
    std::fs::write(
        dir.path().join("manifest.toml"),
        "[[workload]]\nname = \"copy\"\nfile = \"renamed-fin.txt\"\nformat = \"ssdsim\"\nrole = \"Fin under another name\"\n\n\
         [[workload]]\nname = \"sparse\"\nfile = \"sparse.trace\"\nformat = \"mqsim\"\nrole = \"nothing queues\"\n",
    )
    .unwrap();
    let out = dir.path().join("pa.md");
    let run = |only: &str| {
        ssdlab(&[
            "reproduce",
            "pa-ssd",
            "--traces",
            dir.path().to_str().unwrap(),
            "--only",
            only,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let ok = run("copy");
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.lines().nth(2).unwrap().contains("claims:") && md.contains("Required checks: 2 of 2 pass"), "{md}");
    assert!(md.find("## Claims").unwrap() < md.find("## Fig. 9a").unwrap());
    assert!(md.contains("renamed-fin.txt") && !md.contains("{{") && !md.contains(dir.path().to_str().unwrap()), "{md}");
    let failed = run("sparse");
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("required check(s) of reproduce pa-ssd failed"));
    assert!(String::from_utf8_lossy(&failed.stdout).contains("FAIL Required: QDS+UBS"));
}

/// `reproduce pa-ssd --only bursty` runs just the long-term experiment (Figs. 12b and 13 in
/// the paper's regime): its table and claims; the required checks (about the trace
/// workloads) are not measured, so the gate fails and says why (issue 43: never "0 of 0").
#[test]
fn reproduce_pa_ssd_runs_the_long_term_experiment_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pa.md");
    let run = ssdlab(&["reproduce", "pa-ssd", "--only", "bursty", "--scale", "0.01", "--out", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stdout).contains("FAIL Required: QDS+UBS"));
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("Required checks: 0 of 2 pass") && md.contains("not measured (not run)"), "{md}");
    assert!(md.contains("## Figs. 12 and 13 in the paper's regime") && md.contains("| bursty run 3 |"), "{md}");
    assert!(md.contains("third run's write response time vs the baseline's, LSB pages used up (bursty)"));
    assert!(!md.contains("{{") && !md.contains("## Fig. 9a"), "{md}");
}

/// `reproduce ipu` on one trace and a tenth of one Table 3 row: claims first, every
/// figure's table, the discussion filled in, and the exit status equal to the required
/// checks' verdicts.
#[test]
fn reproduce_ipu_reports_claims_first_and_gates_on_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ipu.md");
    let traces = traces();
    let output = ssdlab(&[
        "reproduce",
        "ipu",
        "--traces",
        traces.to_str().unwrap(),
        "--only",
        "Fin,lun2",
        "--scale",
        "0.02",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("wrote"), "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    let claims = md.find("## Claims").unwrap();
    assert!(claims < md.find("## Setup").unwrap() && claims < md.find("### Fig. 5").unwrap());
    assert!(md.lines().nth(2).unwrap().contains("claims:"), "{md}");
    for part in [
        "### Fig. 6:",
        "### Fig. 7:",
        "### Fig. 8:",
        "### Fig. 9:",
        "### Fig. 10:",
        "### Fig. 11:",
        "### Figs. 13–14:",
        "### Ablation",
        "## Discussion",
        "## Commands",
    ] {
        assert!(md.contains(part), "missing {part}");
    }
    assert!(!md.contains("{{") && !md.contains(traces.to_str().unwrap()), "placeholders or machine paths left");
    let failed = md.lines().filter(|l| l.starts_with("| **Required:**") && !l.ends_with("| holds |")).count();
    assert_eq!(output.status.success(), failed == 0, "{md}");
    assert!(stdout.contains("Required: IPU's read error rate below MGA's"), "{stdout}");
    // A synthetic workload's cells rerun with `ssdlab run` on the trace --save-workloads
    // writes (and nothing else is written or run).
    assert!(md.contains("ssdlab reproduce ipu --only lun2 --scale 0.02 --save-workloads ."), "{md}");
    assert!(md.contains("ssdlab run --preset ipu-slc-mlc --trace lun2.trace --format mqsim --set ipu.scheme=baseline"));
    let saved = dir.path().join("saved");
    let save =
        ssdlab(&["reproduce", "ipu", "--only", "lun2", "--scale", "0.02", "--save-workloads", saved.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&save.stderr);
    assert!(save.status.success(), "{stderr}");
    assert!(stderr.contains("lun2.trace"), "{stderr}");
    assert_eq!(std::fs::read_dir(&saved).unwrap().count(), 1);
    let report = dir.path().join("lun2.json");
    let trace = saved.join("lun2.trace");
    ok(&[
        "run",
        "--preset",
        "ipu-slc-mlc",
        "--trace",
        trace.to_str().unwrap(),
        "--format",
        "mqsim",
        "--set",
        "ipu.scheme=baseline",
        "--json",
        report.to_str().unwrap(),
    ]);
    let mean = json(&report)["all"]["latency_ns"]["mean"].as_f64().unwrap();
    let fig5 = &md[md.find("### Fig. 5: overall").unwrap()..];
    let row = fig5.lines().find(|l| l.starts_with("| lun2 |")).unwrap();
    assert!(row.starts_with(&format!("| lun2 | {:.1} µs |", mean / 1e3)), "{row} vs {mean}");
    // Only ipu builds workloads to save.
    let e = fails(&["reproduce", "dir", "--save-workloads", saved.to_str().unwrap()]);
    assert!(e.contains("implemented for reproduce ipu only"), "{e}");
    // Unknown workloads are refused before anything runs.
    let bad = ssdlab(&[
        "reproduce",
        "ipu",
        "--traces",
        traces.to_str().unwrap(),
        "--only",
        "ts9",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("no such workload"));
}

#[test]
fn reproduce_dir_reports_claims_first_and_gates_on_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dir.md");
    let traces = traces();
    let args = |only: &str| {
        vec![
            "reproduce".to_string(),
            "dir".into(),
            "--traces".into(),
            traces.to_str().unwrap().into(),
            "--only".into(),
            only.into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ]
    };
    let a: Vec<String> = args("hm_0");
    let stdout = ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(stdout.contains("pass Required: DIR's multi-plane read share"), "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    let claims = md.find("## Claims").unwrap();
    assert!(claims < md.find("## Setup").unwrap() && claims < md.find("### Fig. 11").unwrap());
    assert!(md.lines().nth(2).unwrap().contains("claims:") && md.contains("Required checks: 3 of 3 pass"), "{md}");
    for part in [
        "### Fig. 10:",
        "### Fig. 13:",
        "### Fig. 14:",
        "### Fig. 15:",
        "### Figs. 16–17:",
        "### Ablations",
        "## Discussion",
    ] {
        assert!(md.contains(part), "missing {part}");
    }
    assert!(!md.contains("{{") && !md.contains(traces.to_str().unwrap()), "placeholders or machine paths left");
    // The discussion comes along although --out is outside the project (issue 16 item 6).
    assert!(md.contains("## Discussion: where we agree with the paper"), "{md}");
    assert!(dir.path().join("dir-fig10.svg").is_file() && dir.path().join("dir-fig14.svg").is_file());
    // TPC-C replayed closed loop at queue depth 32 (the load rule leaves closed loops
    // alone): with writes always queued, Interleaving pairs nearly every write and reads
    // more of its pages by multi-plane commands than DIR, so a required check fails and
    // the command exits non-zero.
    let own = tempfile::tempdir().unwrap();
    std::fs::copy(traces.join("ms_production/tpcc-small.trace"), own.path().join("tpcc.trace")).unwrap();
    let manifest = "[[workload]]\nname = \"tpcc\"\nfile = \"tpcc.trace\"\nformat = \"mqsim\"\n\
                    replay = \"closed-loop\"\nqueue_depth = 32\nrole = \"saturated\"\n";
    std::fs::write(own.path().join("manifest.toml"), manifest).unwrap();
    let failed =
        ssdlab(&["reproduce", "dir", "--traces", own.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    assert!(err.contains("FAILED: ") && err.contains("required check(s) of reproduce dir failed"), "{err}");
    let a = args("nosuch");
    let err = fails(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(err.contains("--only nosuch: no such workload; dir's are hm_0"), "{err}");
}

/// A `manifest.toml` in `--traces` replaces the built-in workloads; bad entries are
/// named.
#[test]
fn reproduce_dir_takes_its_workloads_from_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(traces().join("msr_cambridge/msr-cambridge1-sample.csv"), dir.path().join("mine.csv")).unwrap();
    let manifest = "[[workload]]\nname = \"mine\"\nfile = \"mine.csv\"\nformat = \"msr\"\nrole = \"a test\"\n";
    std::fs::write(dir.path().join("manifest.toml"), manifest).unwrap();
    let out = dir.path().join("out").join("dir.md");
    ok(&["reproduce", "dir", "--traces", dir.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("the manifest `manifest.toml` of `--traces`") && md.contains("| mine |"), "{md}");
    std::fs::write(dir.path().join("manifest.toml"), manifest.replace("msr\"", "nosuchformat\"")).unwrap();
    let err = fails(&["reproduce", "dir", "--traces", dir.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(err.contains("workload mine: format"), "{err}");
}

/// Issue 19's read-your-writes repro commands, verbatim, and with the DRAM cache: reads
/// of writes not yet programmed succeed, and `--verify` checks what every read returns.
#[test]
fn the_read_your_writes_repro_commands_pass_with_verify() {
    let dir = tempfile::tempdir().unwrap();
    let rw = dir.path().join("rw.trace");
    std::fs::write(&rw, "0 0 0 16 0\n0 0 2048 16 0\n0 0 4096 16 0\n10000 0 4096 16 1\n").unwrap();
    let rw2 = dir.path().join("rw2.trace");
    std::fs::write(
        &rw2,
        "0 0 4096 16 0\n1000000 0 0 16 0\n1000000 0 2048 16 0\n1000000 0 4096 16 0\n1010000 0 4096 16 1\n",
    )
    .unwrap();
    let base = ["run", "--preset", "mqsim-default", "--set", "precondition.used_fraction=0"];
    let (rw, rw2) = (rw.to_str().unwrap(), rw2.to_str().unwrap());
    let tail = ["--format", "mqsim", "-q", "--verify", "--check"];
    ok(&[&base[..], &["--set", "host.unwritten_reads=error", "--trace", rw], &tail[..]].concat());
    ok(&[&base[..], &["--set", "power.write_acknowledge=buffer", "--trace", rw2], &tail[..]].concat());
    let json = dir.path().join("c.json");
    let json = json.to_str().unwrap();
    let cache = ["--set", "cache.capacity_bytes=65536", "--set", "host.unwritten_reads=error", "--json", json];
    ok(&[&base[..], &cache[..], &["--trace", rw2], &tail[..]].concat());
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(report["cache"]["read_hits"], 1, "{}", report["cache"]);
}

#[test]
fn a_config_with_flows_runs_each_flow_and_reports_it() {
    // Two flows on a small drive: a trace replayed open loop and a synthetic closed-loop
    // writer at low priority; the report counts each apart and both together.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("r.trace");
    let lines: String = (0..200).map(|k| format!("{} 0 {} 8 1\n", k * 20_000, (k * 97 % 5000) * 8)).collect();
    std::fs::write(&trace, lines).unwrap();
    let config = dir.path().join("flows.toml");
    std::fs::write(
        &config,
        format!(
            "[geometry]\nchannels = 2\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = 1\n\
             blocks_per_plane = 64\npages_per_block = 48\npage_size_bytes = 4096\n\
             [arbitration]\nscheme = \"weighted\"\n\
             [[flows]]\nname = \"reader\"\ntrace = {:?}\nformat = \"mqsim\"\npriority = \"urgent\"\n\
             [[flows]]\nname = \"writer\"\nqueue_depth = 4\npriority = \"low\"\n\
             synthetic = {{ count = 300, read_fraction = 0.0, block_size_bytes = 4096 }}\n",
            trace.to_str().unwrap()
        ),
    )
    .unwrap();
    let json = dir.path().join("f.json");
    ok(&["run", "--config", config.to_str().unwrap(), "-q", "--check", "--verify", "--json", json.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let flows = report["flows"].as_array().expect("flows listed");
    assert_eq!(flows.len(), 2);
    assert_eq!((flows[0]["name"].as_str(), flows[0]["read"]["requests"].as_u64()), (Some("reader"), Some(200)));
    assert_eq!((flows[1]["priority"].as_str(), flows[1]["write"]["requests"].as_u64()), (Some("low"), Some(300)));
    assert_eq!(report["all"]["requests"], 500);
    // --fairness runs each flow alone too: slowdowns against those runs.
    ok(&["run", "--config", config.to_str().unwrap(), "-q", "--fairness", "--json", json.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let fair = &report["fairness"];
    let slowdowns: Vec<f64> =
        fair["flows"].as_array().unwrap().iter().map(|f| f["slowdown"].as_f64().unwrap()).collect();
    assert_eq!(slowdowns.len(), 2);
    let expected =
        slowdowns.iter().cloned().fold(f64::INFINITY, f64::min) / slowdowns.iter().cloned().fold(0.0, f64::max);
    assert!((fair["fairness"].as_f64().unwrap() - expected).abs() < 1e-12 && expected > 0.0 && expected <= 1.0);
    // Sharing the drive cannot make a flow faster than alone by much (same device, same work).
    assert!(slowdowns.iter().all(|&s| s > 0.9), "{slowdowns:?}");
    // A flow without a workload is an error naming it.
    std::fs::write(&config, "[[flows]]\nname = \"empty\"\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", "--config", config.to_str().unwrap(), "-q"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("flows[0].trace"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
