//! Issue 45, "diagnostics that tell the truth": what the CLI says about a trace must name
//! the real cause, and every piece of advice it gives must work when followed. Items 1-4,
//! the trace parts of item 8 and `trace-stats`'s options (item 18).

mod common;
use common::*;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// MQSim lines `time_ns device lba size type`, one per (time, device).
fn mqsim(records: impl IntoIterator<Item = (u64, u32)>) -> String {
    records.into_iter().enumerate().map(|(i, (t, d))| format!("{t} {d} {} 8 {}\n", i * 8, i % 2)).collect()
}

/// The value of `flag` in `text` (`--time-window 0:7981` → `0:7981`).
fn flag_value(text: &str, flag: &str) -> String {
    let at = text.find(&format!("{flag} ")).unwrap_or_else(|| panic!("no {flag} in: {text}"));
    text[at + flag.len() + 1..]
        .split(|c: char| c.is_whitespace() || c == ')' || c == ',' || c == ';')
        .next()
        .unwrap()
        .to_string()
}

fn report(dir: &Path, args: &[&str]) -> (serde_json::Value, String, String) {
    let json = dir.join(format!("r{}.json", args.len()));
    let mut all = args.to_vec();
    let path = json.display().to_string();
    all.extend(["--json", &path]);
    let (stdout, stderr) = ok(&all);
    (common::json(&json), stdout, stderr)
}

/// The run's warnings about its input and timing: the short-run note that WAF has not
/// reached steady state (issue 46), which every short writing run gets, is left out.
fn warnings(v: &serde_json::Value) -> Vec<String> {
    let all = v["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string());
    all.filter(|w| !w.starts_with("WAF has not reached steady state")).collect()
}

/// A trace whose first record is its latest: 1 s, then 2,000 records from 0 to 0.5 s.
fn first_is_latest() -> String {
    let mut records = vec![(1_000_000_000, 0)];
    records.extend((0..2000).map(|i| (i * 250_000, 0)));
    mqsim(records)
}

/// Item 1: the arrival-rate check measured the span from the first record (at +1 s, where
/// every earlier-stamped record was then replayed), called it 0 ns and blamed the time
/// unit. The warning names the cause (records out of order, the first not the earliest)
/// and a sort window that, followed, replays them in order.
#[test]
fn a_first_record_that_is_not_the_earliest_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "ooo.trace", &first_is_latest());
    let (v, _, stderr) = report(dir.path(), &["run", "--trace", &t, "--format", "mqsim"]);
    let all = warnings(&v);
    assert!(all.iter().all(|w| !w.contains("--time-unit")), "the unit is right: {all:#?}");
    let w = all.iter().find(|w| w.contains("--sort-window")).unwrap_or_else(|| panic!("{all:#?}"));
    assert!(w.contains("first record") && w.contains("2000 records are stamped before it"), "{w}");
    assert!(stderr.contains("first record"), "{stderr}");
    let window = flag_value(w, "--sort-window");
    let (v, _, _) = report(dir.path(), &["run", "--trace", &t, "--format", "mqsim", "--sort-window", &window]);
    assert_eq!(v["host"]["out_of_order"], 0);
    assert!(warnings(&v).is_empty(), "{:#?}", warnings(&v));
}

/// A trace of three bursts of 100 records 10 s apart, with `first` s and then `second` s
/// of silence between them.
fn two_gaps(first: u64, second: u64) -> String {
    let mut t = 0u64;
    let mut records = Vec::new();
    for gap in [first, second, 0] {
        for _ in 0..100 {
            records.push((t, 0));
            t += 10_000_000_000;
        }
        t += gap * 1_000_000_000;
    }
    mqsim(records)
}

/// Item 2: `--max-gap` named the largest gap and advised `--time-window 0:<span − gap>`,
/// which the first gap over the limit refused again. It names the first gap over the limit
/// and a window that is accepted.
#[test]
fn max_gap_advice_is_accepted_when_followed() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "gaps.trace", &two_gaps(5000, 20000));
    let err = fails(&["run", "--trace", &t, "--format", "mqsim", "--max-gap", "3600"]);
    assert!(err.contains("gaps.trace:101: request 101 arrives"), "the first gap over the limit: {err}");
    assert!(err.contains("2 gaps"), "{err}");
    let window = flag_value(&err, "--time-window");
    ok(&["run", "--trace", &t, "--format", "mqsim", "--max-gap", "3600", "--time-window", &window]);
    // With a window of the user's, the advice keeps its start.
    let err = fails(&["run", "--trace", &t, "--format", "mqsim", "--max-gap", "3600", "--time-window", "500:1000000"]);
    let window = flag_value(&err, "--time-window");
    assert!(window.starts_with("500:"), "{err}");
    ok(&["run", "--trace", &t, "--format", "mqsim", "--max-gap", "3600", "--time-window", &window]);
}

/// Item 2, the same advice in the over-a-day warning.
#[test]
fn over_a_day_gap_warning_advice_is_accepted_when_followed() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "days.trace", &two_gaps(2 * 86_400, 5 * 86_400));
    let (_, stderr) = ok(&["run", "--trace", &t, "--format", "mqsim"]);
    assert!(stderr.contains("days.trace:101: request 101 arrives"), "{stderr}");
    let window = flag_value(&stderr, "--time-window");
    let (_, stderr) = ok(&["run", "--trace", &t, "--format", "mqsim", "--time-window", &window]);
    assert!(!stderr.contains("arrives"), "{stderr}");
}

/// Item 3: skips are counted by reason, in the summary and the JSON.
#[test]
fn skips_are_counted_by_reason() {
    let dir = tempfile::tempdir().unwrap();
    let ext4 = trace("blkparse_ycsb/blkparseout_ext4.txt");
    let (v, stdout, _) = report(dir.path(), &["run", "--trace", &ext4]);
    let h = &v["host"];
    assert_eq!(h["skipped_records"], 19_819);
    assert_eq!(h["skipped_by_reason"]["not_requests"], 19_819, "{h}");
    assert_eq!(h["skipped_by_reason"]["malformed"], 0, "{h}");
    assert!(!stdout.contains("malformed"), "{stdout}");
    assert!(stdout.contains("19819 not requests"), "{stdout}");

    let tpcc = trace("ms_production/tpcc-small.trace");
    let (v, stdout, _) = report(dir.path(), &["run", "--trace", &tpcc, "--device", "3", "--time-window", "0:0.05"]);
    let (h, by) = (&v["host"], &v["host"]["skipped_by_reason"]);
    let other = by["other_device"].as_u64().unwrap();
    let outside = by["outside_time_window"].as_u64().unwrap();
    assert!(other > 0 && outside > 0, "{h}");
    let sum: u64 = by.as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(h["skipped_records"].as_u64().unwrap(), sum, "{h}");
    assert!(stdout.contains("of other devices") && stdout.contains("outside the time window"), "{stdout}");
    assert!(!stdout.contains("malformed"), "{stdout}");

    let bad = write(dir.path(), "bad.trace", "0 0 0 8 1\nnonsense\n10 0 8 0 0\n20 0 16 8 0\n");
    let (v, stdout, _) = report(dir.path(), &["run", "--trace", &bad, "--format", "mqsim", "--lenient"]);
    let by = &v["host"]["skipped_by_reason"];
    assert_eq!((by["malformed"].as_u64(), by["zero_size"].as_u64()), (Some(1), Some(1)), "{by}");
    assert!(stdout.contains("1 malformed") && stdout.contains("1 zero-size"), "{stdout}");
}

/// Item 4: a trace of several devices replayed into one address space says so.
#[test]
fn merged_devices_are_warned_about() {
    let tpcc = trace("ms_production/tpcc-small.trace");
    let (_, stderr) = ok(&["run", "--trace", &tpcc]);
    assert!(stderr.contains("16 devices") && stderr.contains("--device"), "{stderr}");
    let (_, stderr) = ok(&["run", "--trace", &tpcc, "--device", "3"]);
    assert!(!stderr.contains("devices"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (0..40)
        .map(|i| format!("{},hm,{},Write,{},4096,100\n", 128166385295514663u64 + i * 10_000, i % 2, i * 4096))
        .collect();
    let msr = write(dir.path(), "two.csv", &rows);
    let (_, stderr) = ok(&["run", "--trace", &msr]);
    assert!(stderr.contains("2 devices") && stderr.contains("DiskNumber"), "{stderr}");
    let one = write(dir.path(), "one.trace", &mqsim((0..40).map(|i| (i * 1000, 0))));
    let (_, stderr) = ok(&["run", "--trace", &one, "--format", "mqsim"]);
    assert!(!stderr.contains("devices"), "{stderr}");
}

fn msr_rows(bad: &str) -> String {
    let mut rows: String =
        (0..5).map(|i| format!("{},hm,0,Write,{},4096,100\n", 128166385295514663u64 + i * 10_000, i * 4096)).collect();
    rows.push_str(bad);
    rows.push('\n');
    rows.push_str("128166385295614663,hm,0,Read,0,4096,100\n");
    rows
}

/// Item 8: one bad line in a trace whose format is detected names what is wrong with it
/// (file, line, field), not "7 fields (msr) but 7 fields (no format)"; --lenient then skips it.
#[test]
fn a_bad_line_in_a_detected_trace_names_its_field() {
    let dir = tempfile::tempdir().unwrap();
    let t = write(dir.path(), "bad.csv", &msr_rows("128166385295564663,hm,0,Write,12x4,4096,100"));
    for command in ["run", "trace-stats"] {
        let trace_flag = if command == "run" { vec!["--trace", &t] } else { vec![t.as_str()] };
        let mut args = vec![command];
        args.extend(&trace_flag);
        let err = fails(&args);
        assert!(err.contains("bad.csv:6: field 'offset'") && err.contains("12x4"), "{command}: {err}");
        assert!(!err.contains("no format"), "{err}");
        args.push("--lenient");
        let (stdout, _) = ok(&args);
        let skipped = if command == "run" { "1 malformed (--lenient)" } else { "1 malformed line (lenient)" };
        assert!(stdout.contains(skipped), "{stdout}");
    }
}

/// Item 8: a truncated gzip file is an I/O error that --lenient cannot read past, so
/// trace-stats does not suggest it; it says what helps.
#[test]
fn a_truncated_gzip_is_not_sent_to_lenient() {
    use flate2::write::GzEncoder;
    let dir = tempfile::tempdir().unwrap();
    let text = mqsim((0..40_000).map(|i| (i * 1000, 0)));
    let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let path = dir.path().join("cut.trace.gz");
    std::fs::write(&path, &gz[..gz.len() / 2]).unwrap();
    let p = path.display().to_string();
    for args in
        [vec!["trace-stats", &p, "--format", "mqsim"], vec!["trace-stats", &p, "--format", "mqsim", "--lenient"]]
    {
        let err = fails(&args);
        assert!(err.contains("read error"), "{err}");
        assert!(!err.contains("--lenient skips"), "--lenient does not help here: {err}");
        assert!(err.contains("gzip -dc"), "{err}");
    }
}

/// Item 18: trace-stats takes --trace (and `-` for stdin), --time-window, --sort-window and
/// --max-gap as run does.
#[test]
fn trace_stats_takes_the_run_trace_options() {
    let dir = tempfile::tempdir().unwrap();
    let ooo = write(dir.path(), "ooo.trace", &first_is_latest());
    let (stdout, _) = ok(&["trace-stats", "--trace", &ooo, "--format", "mqsim"]);
    assert!(stdout.contains("earlier than their predecessor"), "{stdout}");
    let (stdout, _) = ok(&["trace-stats", "--trace", &ooo, "--format", "mqsim", "--sort-window", "2001"]);
    assert!(!stdout.contains("earlier than their predecessor"), "{stdout}");
    assert!(stdout.contains("sort window 2001 records"), "{stdout}");
    let (stdout, _) = ok(&["trace-stats", &ooo, "--format", "mqsim", "--time-window", "0:0.5"]);
    assert!(stdout.contains("requests     1 (2,000 lines skipped: 2,000 outside the time window)"), "{stdout}");

    let gaps = write(dir.path(), "gaps.trace", &two_gaps(5000, 20000));
    let err = fails(&["trace-stats", &gaps, "--format", "mqsim", "--max-gap", "3600"]);
    assert!(err.contains("--max-gap 3600") && err.contains("gaps.trace:101:"), "{err}");
    let window = flag_value(&err, "--time-window");
    ok(&["trace-stats", &gaps, "--format", "mqsim", "--max-gap", "3600", "--time-window", &window]);

    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["trace-stats", "--trace", "-", "--format", "mqsim"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(first_is_latest().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("requests     2,001") && stdout.contains("trace        -"), "{stdout}");
}
