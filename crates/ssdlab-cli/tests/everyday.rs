//! Issue 17, "Everyday use": what a new user hit in one afternoon. One test (or more) per
//! item the CLI can hold; the engine's side of items 1, 2 and 4 is tested in
//! ssdlab-core (tests/it/everyday.rs, engine/host.rs), see docs/testing.md.

mod common;
use common::*;

use std::io::Read;
use std::process::{Command, Stdio};

/// Every trace of ../shared/traces/CATALOG.md.
const SHIPPED: &[&str] = &[
    "msr_cambridge/msr-cambridge1-sample.csv",
    "msr_cambridge/hm_1_short.csv",
    "umass_spc/example.ascii",
    "umass_spc/fin1.trace",
    "umass_spc/reconstructed_spc/Financial1_first10000.reconstructed.spc",
    "umass_spc/wsrch-small.trace",
    "umass_spc/reconstructed_spc/WebSearch1_first24783.reconstructed.spc",
    "ms_production/tpcc-small.trace",
    "fiu/cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines.clean.blkparse",
    "systor17_vdi/systor-traces-sample.csv",
    "blkparse_ycsb/blkparseout_ext4.txt",
];

/// Items 1 and 6: every shipped trace runs on the default device (formats detected), in
/// well under a second each; the blkparse file's one absurd timestamp is a warning that
/// names its line, `--max-gap` refuses it, and a series over it folds the 40-year gap
/// into one row (it tried to allocate 4.5 GB).
#[test]
fn every_shipped_trace_runs_on_the_default_device() {
    for rel in SHIPPED {
        let (stdout, _) = ok(&["run", "--trace", &trace(rel)]);
        assert!(stdout.contains("small-tlc"), "{rel}: {stdout}");
    }
    let ext4 = trace("blkparse_ycsb/blkparseout_ext4.txt");
    let (stdout, stderr) = ok(&["run", "--trace", &ext4]);
    assert!(stderr.contains("blkparseout_ext4.txt:29662: request 9887 arrives"), "{stderr}");
    assert!(stdout.contains("WARNING: ") && stdout.contains(":29662:"), "{stdout}");
    let err = fails(&["run", "--trace", &ext4, "--max-gap", "3600"]);
    assert!(err.contains("--max-gap 3600") && err.contains(":29662:"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let series = dir.path().join("s.csv");
    ok(&["run", "-q", "--trace", &ext4, "--series", series.to_str().unwrap(), "--interval-ms", "1000"]);
    let text = std::fs::read_to_string(&series).unwrap();
    let rows: Vec<Vec<u64>> =
        text.lines().skip(1).map(|l| l.split(',').filter_map(|f| f.parse::<u64>().ok()).collect()).collect();
    assert!(text.lines().next().unwrap().ends_with(",intervals") && rows.len() < 1000, "{} rows", rows.len());
    let (start, end, intervals) = rows.iter().map(|r| (r[0], r[1], *r.last().unwrap())).max_by_key(|r| r.2).unwrap();
    assert!(intervals > 1_266_000_000 && end - start == intervals * 1_000_000_000, "{start} {end} {intervals}");
    // Contiguous: every row starts where the one before ended.
    assert!(rows.windows(2).all(|w| w[1][0] == w[0][1]));
}

/// Item 3: a geometry that passes check-config but needs more memory than there is is
/// refused with the estimate, before anything is allocated; --max-memory overrides.
#[test]
fn memory_is_estimated_before_allocating() {
    // (Steady state keeps the dense table: the sparse one's estimate of even 2^32 pages
    // fits this machine.)
    let err = fails(&["run", "--set", "geometry.blocks_per_plane=5000000", "--set", "precondition.steady_state=true"]);
    assert!(err.contains("needs about") && err.contains("GiB of memory") && err.contains("--max-memory"), "{err}");
    let err = fails(&["run", "--synthetic", "count=100", "--max-memory", "10M"]);
    assert!(err.contains("--max-memory 10M"), "{err}");
    ok(&["run", "-q", "--synthetic", "count=100", "--max-memory", "1G"]);
    let err = fails(&["run", "--max-memory", "lots"]);
    assert!(err.contains("--max-memory 'lots'"), "{err}");
}

/// Item 5: a trace from a pipe (here /dev/stdin, and `-` for the standard input) is read
/// once, not opened again and again; the summary and errors name it as given.
#[test]
fn a_trace_from_a_pipe_runs() {
    let piped = |name: &str, raw: Vec<u8>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(["run", "-q", "--trace", name, "--format", "ssdsim", "--no-wall-clock", "--json", "/dev/stdout"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            stdin.write_all(&raw).unwrap();
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    };
    let raw = std::fs::read(trace("umass_spc/example.ascii")).unwrap();
    let mut reports = Vec::new();
    for name in ["/dev/stdin", "-"] {
        let out = piped(name, raw.clone());
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["host"]["requests"], 10_000);
        let described = v["workload_description"].as_str().unwrap().to_string();
        assert!(described.starts_with(&format!("{name} (")), "{name}: {described}");
        assert!(!described.contains("ssdlab-"), "the temporary copy's name leaked: {described}");
        v["workload_description"] = serde_json::Value::Null;
        v["config"]["workload"] = serde_json::Value::Null;
        reports.push(v);
    }
    assert_eq!(reports[0], reports[1], "the same trace through /dev/stdin and - gives the same run");
    // A bad line read from the standard input is named `-:LINE`.
    let cut = raw.iter().take(3000).copied().chain(b"12 0 5\n".iter().copied()).collect::<Vec<u8>>();
    let out = piped("-", cut);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("-:"), "{err}");
    assert!(!err.contains("ssdlab-") || err.contains("ssdlab-cli"), "the temporary copy's name leaked: {err}");
}

/// Item 7: page and subpage sizes are validated with their own message.
#[test]
fn page_sizes_have_their_own_message() {
    for size in ["1", "3", "511", "5000", "4294967295", "131072"] {
        let err = fails(&["check-config", "/dev/null", "--set", &format!("geometry.page_size_bytes={size}")]);
        assert!(err.contains("geometry.page_size_bytes") && err.contains("power of two"), "{size}: {err}");
        assert!(!err.contains("power.oob_bytes"), "{size}: {err}");
    }
    let err = fails(&[
        "check-config",
        "/dev/null",
        "--set",
        "geometry.page_size_bytes=2048",
        "--set",
        "geometry.subpages_per_page=8",
    ]);
    assert!(err.contains("geometry.subpages_per_page") && err.contains("512-byte sector"), "{err}");
    ok(&["check-config", "/dev/null", "--set", "geometry.page_size_bytes=16384"]);
}

/// Item 8: a request-level error names the trace file and line, not only the index.
#[test]
fn request_errors_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("far.trace");
    // Line 3 addresses far beyond the 1.3 GiB drive.
    std::fs::write(&t, "0 0 0 8 1\n1000 0 8 8 1\n2000 0 999999999999 8 0\n3000 0 16 8 1\n").unwrap();
    let err = fails(&[
        "run",
        "--trace",
        t.to_str().unwrap(),
        "--format",
        "ssdsim",
        "--set",
        "host.address_overflow=\"error\"",
    ]);
    assert!(err.contains("far.trace:3: request 2"), "{err}");
}

/// Item 10: the summary shows the counts the JSON has: pages placed by preconditioning,
/// skipped rows, out-of-order arrivals.
#[test]
fn the_summary_shows_what_the_json_counts() {
    let (stdout, _) = ok(&["run", "--trace", &trace("msr_cambridge/hm_1_short.csv"), "--speed", "100"]);
    assert!(stdout.contains("input: 18879 records skipped"), "{stdout}");
    assert!(stdout.contains("pages the workload reads before writing them were placed on flash"), "{stdout}");
    let (stdout, _) = ok(&["run", "--trace", &trace("systor17_vdi/systor-traces-sample.csv")]);
    // Time runs from the earliest stamp (issue 24 item 7), so every record stamped before
    // one read earlier arrives late: 287 of the sample's 999.
    assert!(stdout.contains("287 arrived out of order"), "{stdout}");
}

/// Item 11: a preset that turns the series off (mqsim-default) still writes rows when
/// --series asks for them, and the header is the same with and without rows.
#[test]
fn series_from_a_preset_without_series_has_rows_and_a_stable_header() {
    let dir = tempfile::tempdir().unwrap();
    let series = dir.path().join("s.csv");
    let (_, stderr) =
        ok(&["run", "--preset", "mqsim-default", "--synthetic", "count=5000", "--series", series.to_str().unwrap()]);
    assert!(stderr.contains("output.series_interval_ns = 0"), "{stderr}");
    let text = std::fs::read_to_string(&series).unwrap();
    assert!(text.lines().count() > 1, "{text}");
    let header = text.lines().next().unwrap().to_string();
    assert!(header.contains("free_pages_LSB,free_pages_MSB,slc_user_pages"), "{header}");
    // A run too short for one row still writes the same header.
    let empty = dir.path().join("e.csv");
    ok(&[
        "run",
        "-q",
        "--preset",
        "mqsim-default",
        "--synthetic",
        "count=1",
        "--interval-ms",
        "100000",
        "--series",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read_to_string(&empty).unwrap().lines().next().unwrap(), header);
}

/// Item 12: outputs are opened before the run: a bad path fails at once.
#[test]
fn bad_output_paths_fail_before_the_run() {
    for flag in ["--json", "--series", "--requests"] {
        let started = std::time::Instant::now();
        let err = fails(&["run", "--synthetic", "count=2000000", flag, "/nonexistent/dir/out"]);
        assert!(err.contains("/nonexistent/dir/out"), "{flag}: {err}");
        assert!(started.elapsed().as_secs_f64() < 2.0, "{flag}: failed only after the run");
    }
}

/// Item 13: a closed pipe ends the command quietly; `--requests -` writes the CSV to
/// stdout and the summary to stderr.
#[test]
fn broken_pipes_and_requests_to_stdout() {
    for args in [&["run"][..], &["presets"][..], &["swarm", "--seeds", "2"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // `| head -0`
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        child.wait().unwrap();
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let (stdout, stderr) = ok(&["run", "--synthetic", "count=500", "--requests", "-"]);
    assert!(stdout.starts_with("id,run,op,"), "{stdout}");
    assert_eq!(stdout.lines().count(), 501);
    assert!(stderr.contains("sub-requests/s"), "{stderr}");
}

/// Item 14: --check and --verify say what held; --check-every needs --check.
#[test]
fn checks_report_what_held() {
    let (stdout, _) = ok(&["run", "--synthetic", "count=2000", "--check", "--check-every", "500", "--verify"]);
    assert!(stdout.contains("check: the FTL invariants") && stdout.contains("every 500 completions"), "{stdout}");
    assert!(stdout.contains("verify: every logical page"), "{stdout}");
    let err = fails(&["run", "--check-every", "10"]);
    assert!(err.contains("--check"), "{err}");
}

/// Item 15: the JSON carries the resolved config and the command line; per-page-type
/// arrays are objects keyed by page type.
#[test]
fn the_json_explains_itself() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    ok(&["run", "-q", "--synthetic", "count=1000", "--set", "ftl.gc_victim=fifo", "--json", out.to_str().unwrap()]);
    let v = json(&out);
    assert_eq!(v["config"]["ftl"]["gc_victim"], "fifo");
    assert_eq!(v["config"]["name"], "small-tlc");
    let line: Vec<&str> = v["command_line"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(
        &line[1..],
        ["run", "-q", "--synthetic", "count=1000", "--set", "ftl.gc_victim=fifo", "--json", out.to_str().unwrap()]
    );
    for key in ["LSB", "CSB", "MSB"] {
        assert!(v["flash"]["programs_by_page_type"][key].is_u64(), "{}", v["flash"]);
        assert!(v["dominated_write_share"][key].is_f64(), "{}", v["dominated_write_share"]);
    }
}

/// Item 18: -q prints nothing on success, not even the format note; flag errors blame
/// the flag; the help has no empty descriptions.
#[test]
fn quiet_is_quiet_and_flags_are_blamed() {
    let out = ssdlab(&["run", "-q", "--trace", &trace("umass_spc/wsrch-small.trace"), "--format", "mqsim"]);
    assert!(out.status.success());
    // Warnings excepted (issue 45 item 5): wsrch-small holds six devices, wrapped onto the drive.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.stdout.is_empty() && stderr.lines().all(|l| l.starts_with("warning: ")), "{stderr}");
    // Reads only: a writing run's GC would warn that WAF has not reached steady state.
    let out = ssdlab(&["run", "-q", "--synthetic", "count=1000,read_fraction=1"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    for (flag, value) in [("--closed-loop", "0"), ("--runs", "0"), ("--speed", "0"), ("--interval-ms", "0")] {
        let err = fails(&["run", flag, value]);
        assert!(err.contains(&format!("{flag} {value}")) && !err.contains("preset"), "{flag}: {err}");
    }
    for command in [&["run", "--help"][..], &["bench", "--help"][..], &["trace-stats", "--help"][..]] {
        let (help, _) = ok(command);
        for line in help.lines() {
            let t = line.trim();
            // An option line without a description: "--flag <VALUE>" alone, the next line another flag.
            if t.starts_with("--") || t.starts_with("-q") || t.starts_with('<') {
                assert!(t.split("  ").filter(|s| !s.trim().is_empty()).count() >= 2, "{command:?}: empty help for {t}");
            }
        }
    }
}

/// Item 4 (the part outside the engine): Ctrl-C stops a swarm after the cases running,
/// and it still prints how many seeds ran and passed.
#[test]
fn an_interrupted_swarm_reports_its_seeds() {
    let child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["swarm", "--seeds", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("interrupted (Ctrl-C) after") && stdout.contains("passed"), "{stdout}");
}

/// Item 4: Ctrl-C (SIGINT) part way through a run finishes the event in progress, writes
/// the summary and every output for the simulated time so far, marked partial, leaves
/// no torn row in the per-request CSV, and exits with 130.
#[test]
fn ctrl_c_keeps_the_results_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let (json_path, requests, series) = (path("r.json"), path("requests.csv"), path("series.csv"));
    // Far more requests than run in the time allowed; no pre-pass over them.
    let child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", "--synthetic", "count=1000000000", "--set", "host.unwritten_reads=controller"])
        .args(["--json", &json_path, "--requests", &requests, "--series", &series, "--interval-ms", "10"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the run is under way (the request CSV is written 64 KiB at a time).
    let began = std::time::Instant::now();
    while std::fs::metadata(&requests).map_or(0, |m| m.len()) < 200_000 {
        assert!(began.elapsed().as_secs() < 120, "the run did not start writing requests");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("PARTIAL RUN: interrupted at") && stdout.contains("of 1000000000 in the workload"),
        "{stdout}"
    );
    assert!(stderr.contains("interrupted at") && stderr.contains("r.json"), "{stderr}");
    let v = json(std::path::Path::new(&json_path));
    let partial = &v["partial"];
    let completed = partial["completed_requests"].as_u64().expect("partial set");
    assert!(completed > 1000 && completed == v["all"]["requests"].as_u64().unwrap(), "{partial}");
    assert!(partial["stopped_at_ns"].as_u64().unwrap() >= v["simulated_ns"].as_u64().unwrap(), "{v}");
    // Every row of the per-request CSV is whole, and there is one per completed request.
    let text = std::fs::read_to_string(&requests).unwrap();
    assert!(text.ends_with('\n'));
    let fields = text.lines().next().unwrap().split(',').count();
    assert!(text.lines().all(|l| l.split(',').count() == fields), "a torn row");
    assert_eq!(text.lines().count() as u64, completed + 1);
    let series = std::fs::read_to_string(&series).unwrap();
    let counted: u64 = series
        .lines()
        .skip(1)
        .map(|l| l.split(',').skip(2).take(2).map(|n| n.parse::<u64>().unwrap()).sum::<u64>())
        .sum();
    assert_eq!(counted, completed, "the series counts every completed read and write");
}

/// The terminal summary says what a half-page or subpage map did and when the geometry is
/// the super-page view, and a bad combination is refused naming its key.
#[test]
fn the_summary_reports_mapping_kinds_and_super_pages() {
    let (stdout, _) = ok(&["run", "--set", "ftl.mapping=half-pages", "--synthetic", "count=3000"]);
    assert!(stdout.contains("half-pages map (2 units per page):") && stdout.contains("interleaved pairs"), "{stdout}");
    let (stdout, _) = ok(&["run", "--set", "ftl.super_page_channels=2", "--synthetic", "count=3000"]);
    assert!(stdout.contains("super-pages of 2 physical pages"), "{stdout}");
    let stderr = fails(&["run", "--set", "ftl.mapping=subpages"]);
    assert!(stderr.contains("geometry.subpages_per_page"), "{stderr}");
}

/// Issue 13's acceptance: DIR's aged drive on hm_1 takes read retries, MSB pages most, and
/// reads slower than the fresh drive, whose reads take none; the summary says so.
#[test]
fn the_aged_dir_drive_retries_its_reads_and_the_fresh_one_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let hm1 = trace("msr_cambridge/hm_1_short.csv");
    let mut reports = Vec::new();
    for preset in ["dir-tlc", "dir-tlc-fresh"] {
        let path = dir.path().join(format!("{preset}.json"));
        let (stdout, _) = ok(&["run", "--preset", preset, "--trace", &hm1, "--json", path.to_str().unwrap()]);
        assert!(stdout.contains("errors (ldpc ECC):"), "{stdout}");
        reports.push(json(&path));
    }
    let (aged, fresh) = (&reports[0], &reports[1]);
    let per_read = |r: &serde_json::Value, t: &str| {
        r["errors"]["retries_by_page_type"][t].as_f64().unwrap()
            / r["errors"]["reads_by_page_type"][t].as_f64().unwrap()
    };
    assert!(aged["errors"]["read_retries"].as_u64().unwrap() > 0);
    assert!(per_read(aged, "MSB") > per_read(aged, "CSB") && per_read(aged, "CSB") > per_read(aged, "LSB"));
    let mean = |r: &serde_json::Value| r["read"]["latency_ns"]["mean"].as_f64().unwrap();
    assert!(mean(aged) > 1.5 * mean(fresh), "aged {} vs fresh {}", mean(aged), mean(fresh));
    let fresh_retries = fresh["errors"]["read_retries"].as_u64().unwrap();
    let fresh_reads = fresh["errors"]["decoded_reads"].as_u64().unwrap();
    assert!(fresh_retries * 1000 <= fresh_reads, "{fresh_retries} retries over {fresh_reads} reads");
}

/// Issue 45 item 5: `--quiet` silences progress and the summary, not warnings; `compare`
/// prints every variant's warnings on stderr, each distinct one once with the variants it
/// came from (it printed none: a saturated variant gave a clean table).
#[test]
fn warnings_reach_stderr_with_quiet_and_from_every_compare_variant() {
    let fin = trace("umass_spc/fin1.trace");
    let out = ssdlab(&["run", "-q", "--trace", &fin, "--speed", "1000"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.is_empty(), "--quiet prints no summary: {stdout}");
    assert!(stderr.contains("warning: the device was saturated for"), "--quiet keeps warnings: {stderr}");
    // Without --quiet the warning is on stderr as well (the summary keeps its own copy).
    let (stdout, stderr) = ok(&["run", "--trace", &fin, "--speed", "1000"]);
    assert!(stderr.contains("warning: the device was saturated for"), "{stderr}");
    assert!(stdout.contains("WARNING: the device was saturated for"), "{stdout}");
    // a and b run the same simulation (erase energy changes no timing): one warning
    // naming both; calm replays at the trace's own speed and does not saturate.
    let (stdout, stderr) = ok(&[
        "compare",
        "--trace",
        &fin,
        "--set",
        "host.speed_factor=1000",
        "--variant",
        "a",
        "--variant",
        "b:energy.erase_nj=1.0",
        "--variant",
        "calm:host.speed_factor=1",
    ]);
    assert!(stdout.contains("calm") && !stdout.contains("saturated"), "the table stays on stdout: {stdout}");
    let saturated: Vec<&str> = stderr.lines().filter(|l| l.contains("saturated")).collect();
    assert_eq!(saturated.len(), 1, "one warning, not one per variant: {stderr}");
    assert!(saturated[0].starts_with("warning (a, b): the device was saturated for"), "{stderr}");
}

/// Issue 45 item 18: `compare` takes `--series` (one CSV per variant, NAME_VARIANT.csv)
/// and `--interval-ms`, as `run` does.
#[test]
fn compare_writes_each_variants_series() {
    let dir = tempfile::tempdir().unwrap();
    let series = dir.path().join("s.csv");
    let json_path = dir.path().join("c.json");
    ok(&[
        "compare",
        "--synthetic",
        "count=3000",
        "--variant",
        "a",
        "--variant",
        "fifo:ftl.gc_victim=fifo",
        "--series",
        series.to_str().unwrap(),
        "--interval-ms",
        "2",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    let run_series = dir.path().join("run.csv");
    ok(&["run", "-q", "--synthetic", "count=3000", "--series", run_series.to_str().unwrap(), "--interval-ms", "2"]);
    let run_text = std::fs::read_to_string(&run_series).unwrap();
    for name in ["a", "fifo"] {
        let path = dir.path().join(format!("s_{name}.csv"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(text.lines().next(), run_text.lines().next(), "the header of run --series");
        assert!(text.lines().count() > 3, "{text}");
    }
    // Variant a is the run itself: the same rows.
    assert_eq!(std::fs::read_to_string(dir.path().join("s_a.csv")).unwrap(), run_text);
    let c = json(&json_path);
    assert_eq!(c["variants"]["fifo"]["config"]["output"]["series_interval_ns"], 2_000_000);
    let e = fails(&["compare", "--variant", "a", "--interval-ms", "0"]);
    assert!(e.contains("--interval-ms 0"), "{e}");
}

/// Issue 45 item 18: every key docs/config.md documents can be set with `--set`; the
/// `[workload]` keys without a `[workload]` section change the built-in workload (its
/// closed loop at queue depth 32 and 50,000 requests kept).
#[test]
fn every_documented_key_can_be_set() {
    let dir = tempfile::tempdir().unwrap();
    let (seed1, seed2) = (dir.path().join("1.json"), dir.path().join("2.json"));
    ok(&["run", "-q", "--synthetic", "count=2000", "--json", seed1.to_str().unwrap()]);
    ok(&["run", "-q", "--set", "workload.seed=2", "--synthetic", "count=2000", "--json", seed2.to_str().unwrap()]);
    let (a, b) = (json(&seed1), json(&seed2));
    assert_eq!(b["config"]["workload"]["seed"], 2);
    assert_eq!(b["config"]["workload"]["block_size_bytes"], 16384, "the built-in workload, not [workload]'s defaults");
    assert_eq!(b["host"]["replay"], a["host"]["replay"]);
    assert_eq!(b["host"]["requests"], 2000);
    assert_ne!(a["read"]["latency_ns"]["mean"], b["read"]["latency_ns"]["mean"], "another request stream");
    let (preset, _) = ok(&["presets", "--show", "small-tlc"]);
    let file = dir.path().join("small.toml");
    std::fs::write(&file, preset).unwrap();
    let (checked, _) = ok(&["check-config", file.to_str().unwrap(), "--set", "workload.count=10"]);
    assert!(checked.contains(": ok"), "{checked}");
    // A [[flows]] entry's keys are flows.K.key, K from 0.
    let flows = dir.path().join("flows.toml");
    let two =
        "[[flows]]\nname = \"a\"\nsynthetic = { count = 100 }\n\n[[flows]]\nname = \"b\"\nsynthetic = { count = 50 }\n";
    std::fs::write(&flows, two).unwrap();
    let flows = flows.to_str().unwrap();
    let j = dir.path().join("flows.json");
    let set =
        ["--set", "flows.1.queue_depth=4", "--set", "flows.0.synthetic.count=60", "--set", "flows.1.priority=low"];
    ok(&[&["run", "-q", "--config", flows, "--json", j.to_str().unwrap()][..], &set[..]].concat());
    let f = json(&j);
    assert_eq!(f["config"]["flows"][1]["queue_depth"], 4);
    assert_eq!(f["config"]["flows"][1]["priority"], "low");
    assert_eq!(f["flows"][0]["all"]["requests"], 60);
    let e = fails(&["check-config", flows, "--set", "flows.2.queue_depth=4"]);
    assert!(e.contains("--set flows.2.queue_depth: the config has 2 [[flows]] entries, flows.0 to flows.1"), "{e}");
    let e = fails(&["check-config", flows, "--set", "flows.0.queue_dept=4"]);
    assert!(e.contains("unknown key 'queue_dept' (did you mean 'queue_depth'?)"), "{e}");
    let e = fails(&["check-config", file.to_str().unwrap(), "--set", "flows.0.runs=2"]);
    assert!(e.contains("the config has no [[flows]] entries"), "{e}");
    // Every key of every section's table in docs/config.md.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/config.md")).unwrap();
    let mut section: Option<String> = None;
    let mut key_table = false;
    let mut keys = Vec::new();
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.split('`').nth(1).map(|s| s.to_string());
            if h.starts_with("Top-level") {
                section = Some(String::new());
            }
            key_table = false;
            continue;
        }
        if line.starts_with('`') && line.contains("`:") {
            // "`[arbitration]`: how …" starts the table of another section.
            section = line.split('`').nth(1).map(|s| s.to_string());
        }
        if line.starts_with("| key ") {
            key_table = true;
            continue;
        }
        if !line.starts_with('|') {
            key_table = false;
            continue;
        }
        let Some(name) = section.as_deref() else { continue };
        if !key_table || name.starts_with("[designs") {
            continue;
        }
        let prefix = match name.trim_matches(|c| c == '[' || c == ']') {
            "" => String::new(),
            "flows" => "flows.0.".to_string(),
            s => format!("{s}."),
        };
        let cell = line.split('|').nth(1).unwrap_or("");
        for key in cell.split('`').skip(1).step_by(2) {
            keys.push(format!("{prefix}{key}"));
        }
    }
    assert!(keys.len() > 180 && keys.contains(&"workload.seed".to_string()), "{} keys: {keys:?}", keys.len());
    assert!(keys.contains(&"flows.0.queue_depth".to_string()), "{keys:?}");
    let mut config = ssdlab_core::Config::default();
    config.flows.push(ssdlab_core::config::Flow::default());
    let refused: Vec<String> = keys
        .iter()
        .filter_map(|k| {
            let e = ssdlab_cli::setup::apply_set(config.clone(), &[format!("{k}=0")]).err()?;
            let e = format!("{e:#}");
            (e.contains("unknown key") || e.contains("is not a section")).then(|| format!("{k}: {e}"))
        })
        .collect();
    assert!(refused.is_empty(), "documented keys --set refuses:\n{}", refused.join("\n"));
}

/// Issue 45 item 12: `reproduce` says how far it has got on stderr (off with --quiet),
/// never in the report.
#[test]
fn reproduce_shows_progress_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pa-ssd.md");
    let args = ["reproduce", "pa-ssd", "--only", "Fin", "--scale", "0.01", "--out", out.to_str().unwrap()];
    let (stdout, stderr) = ok(&args);
    // The first simulation's line comes whatever the machine's speed; later ones every few seconds.
    assert!(stderr.contains("reproduce pa-ssd: 1 simulation done, "), "{stderr}");
    assert!(!stdout.contains(" done, "), "{stdout}");
    let report = std::fs::read_to_string(&out).unwrap();
    assert!(!report.contains("simulation done"));
    let (_, quiet) = ok(&[&args[..], &["--quiet"]].concat());
    assert!(!quiet.contains("reproduce pa-ssd: "), "{quiet}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), report, "the same report with --quiet");
}
