//! `--time-unit` on `run` and `trace-stats`, and the byte-unit format end to end: detected
//! from its data, refused when the data do not decide, read with `--format bytes5`.

mod common;
use common::*;

use std::io::Write;

fn temp(content: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(content.as_bytes()).unwrap();
    f.flush().unwrap();
    f
}

fn line_with<'a>(report: &'a str, start: &str) -> &'a str {
    report.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no '{start}' line in:\n{report}"))
}

#[test]
fn time_unit_scales_trace_stats_and_is_reported_by_run() {
    let f = temp("0 0 0 8 1\n1500 0 8 8 0\n3000 0 16 8 0\n");
    let path = f.path().to_str().unwrap();
    let (ns, _) = ok(&["trace-stats", path, "--format", "mqsim"]);
    let (us, _) = ok(&["trace-stats", path, "--format", "mqsim", "--time-unit", "us"]);
    assert!(line_with(&ns, "span").contains("3.00 µs"), "{ns}");
    assert!(line_with(&us, "span").contains("3.000 ms"), "{us}");
    assert!(line_with(&us, "options").contains("time unit us"), "{us}");
    let (run, _) = ok(&["run", "--trace", path, "--format", "mqsim", "--time-unit", "us"]);
    assert!(run.contains("(format mqsim, time unit us)"), "{run}");
    let e = fails(&["run", "--trace", path, "--format", "mqsim", "--time-unit", "minutes"]);
    assert!(e.contains("unknown time unit 'minutes' (expected ps, ns, us, ms or s)"), "{e}");
    let e = fails(&["run", "--trace", path, "--format", "arc", "--closed-loop", "4", "--time-unit", "s"]);
    assert!(e.contains("the arc format has no time column"), "{e}");
}

#[test]
fn byte_unit_traces_are_detected_or_refused_never_read_as_sectors() {
    let mut text = String::new();
    for i in 0..200u64 {
        let size = [4096, 8192, 65536, 4096][(i % 4) as usize];
        text.push_str(&format!("{}.{:03} 0 {} {size} {}\n", i * 2, i % 997, (i * 7919 % 100_000) * 4096, i % 2));
    }
    let f = temp(&text);
    let path = f.path().to_str().unwrap();
    let (report, _) = ok(&["trace-stats", path]);
    assert!(line_with(&report, "format").contains("bytes5"), "{report}");
    assert!(report.contains("INFERRED bytes5"), "{report}");
    let (run, stderr) = ok(&["run", "--trace", path]);
    assert!(stderr.contains("format: INFERRED bytes5"), "{stderr}");
    assert!(run.contains("(format bytes5"), "{run}");
    // Too few lines to tell: refused, naming the candidates.
    let few = temp("0.5 0 4096 8192 1\n1.5 0 8192 4096 0\n");
    let e = fails(&["run", "--trace", few.path().to_str().unwrap()]);
    assert!(e.contains("cannot detect the format") && e.contains("--format bytes5"), "{e}");
    assert!(e.contains("--format disksim") && e.contains("--format flashsim"), "{e}");
    let (run, _) = ok(&["run", "--trace", few.path().to_str().unwrap(), "--format", "bytes5"]);
    assert!(run.contains("requests: 2"), "{run}");
}

#[test]
fn a_trace_in_seconds_read_as_nanoseconds_warns_and_naming_the_unit_does_not() {
    // 1,500 requests one second apart, written as whole seconds in a format whose default
    // unit is the nanosecond (MQSim ASCII).
    let text: String = (0..1500u64).map(|i| format!("{i} 0 {} 8 {}\n", (i * 977 % 4096) * 8, i % 2)).collect();
    let f = temp(&text);
    let path = f.path().to_str().unwrap();
    // (Other warnings, e.g. a short run's WAF not in steady state, may come too.)
    let unit_warning = |out: &str| out.lines().any(|l| l.starts_with("WARNING") && l.contains("--time-unit"));
    let (as_ns, _) = ok(&["run", "--trace", path, "--format", "mqsim"]);
    assert!(unit_warning(&as_ns), "no warning:\n{as_ns}");
    let (as_s, _) = ok(&["run", "--trace", path, "--format", "mqsim", "--time-unit", "s"]);
    assert!(!unit_warning(&as_s), "warned although the unit was named:\n{as_s}");
    // The config key names it as well, and the run is the same as with the flag.
    let (by_key, _) = ok(&["run", "--trace", path, "--format", "mqsim", "--set", "host.time_unit=\"s\""]);
    assert!(!unit_warning(&by_key), "warned although host.time_unit was set:\n{by_key}");
    let table = |out: &str| {
        out.lines().filter(|l| l.starts_with("read ") || l.starts_with("write ")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(table(&by_key), table(&as_s));
    let e = fails(&["run", "--trace", path, "--format", "mqsim", "--set", "host.time_unit=\"fortnights\""]);
    assert!(e.contains("host.time_unit") && e.contains("fortnights"), "{e}");
}

#[test]
fn a_first_record_later_than_the_next_does_not_move_them_to_time_zero() {
    // A cloud-block excerpt whose first row is one second later than the next 276: time
    // is measured from the earliest stamp, so the 276 are replayed late (after the first),
    // each counted as out of order, and the summary suggests a sort window.
    let mut text = String::from("1000000000 0 0 8 1\n");
    for i in 1..=276u64 {
        text.push_str(&format!("{} 0 {} 8 1\n", i * 1000, i * 8));
    }
    let f = temp(&text);
    let path = f.path().to_str().unwrap();
    let json = tempfile::NamedTempFile::new().unwrap();
    let json_path = json.path().to_str().unwrap();
    let (stdout, stderr) = ok(&["run", "--trace", path, "--format", "mqsim", "--json", json_path]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json_path).unwrap()).unwrap();
    assert_eq!(report["host"]["out_of_order"], 276, "{report}");
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("--sort-window"), "{all}");
    // Sorted through a window, none is out of order and the first request now runs last.
    let (_, _) = ok(&["run", "--trace", path, "--format", "mqsim", "--sort-window", "300", "--json", json_path]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json_path).unwrap()).unwrap();
    assert_eq!(report["host"]["out_of_order"], 0, "{report}");
}

#[test]
fn rebased_msr_stamps_warn_and_name_the_unit() {
    // A pre-processed MSR copy whose stamps are seconds from the start, not FILETIME ticks.
    let mut text = String::new();
    for i in 0..4000u64 {
        text.push_str(&format!(
            "{i},hm,0,{},{},4096,100\n",
            if i % 2 == 0 { "Write" } else { "Read" },
            (i % 500) * 4096
        ));
    }
    let f = temp(&text);
    let path = f.path().to_str().unwrap();
    let json = tempfile::NamedTempFile::new().unwrap();
    let json_path = json.path().to_str().unwrap();
    let warnings = |extra: &[&str]| -> (String, String) {
        let mut args = vec!["run", "--trace", path, "--format", "msr", "--json", json_path];
        args.extend_from_slice(extra);
        let (stdout, stderr) = ok(&args);
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json_path).unwrap()).unwrap();
        (report["warnings"].to_string(), format!("{stdout}{stderr}"))
    };
    let (json_warnings, terminal) = warnings(&[]);
    for text in [&json_warnings, &terminal] {
        assert!(text.contains("MSR timestamps are Windows FILETIME ticks") && text.contains("--time-unit s"), "{text}");
    }
    let (json_warnings, terminal) = warnings(&["--time-unit", "s"]);
    assert!(!json_warnings.contains("FILETIME") && !terminal.contains("FILETIME"), "{json_warnings}");
    // Real FILETIME stamps do not warn.
    let real =
        temp("128166385295514663,hm,0,Write,9056014336,4096,2833\n128166385305514663,hm,0,Read,9056014336,4096,2833\n");
    let (stdout, stderr) = ok(&["run", "--trace", real.path().to_str().unwrap(), "--format", "msr"]);
    assert!(!format!("{stdout}{stderr}").contains("FILETIME"));
}

#[test]
fn a_saturated_open_loop_run_warns_and_a_light_one_does_not() {
    // 3,000 page writes 1 µs apart on small-tlc (16 planes, 0.5-5.5 ms programs): the
    // queue grows for the whole run. The same writes 10 ms apart never queue.
    let trace = |gap_ns: u64| {
        let text: String =
            (0..3000u64).map(|i| format!("{} 0 {} 8 0\n", i * gap_ns, (i * 7919 % 50_000) * 8)).collect();
        temp(&text)
    };
    let json = tempfile::NamedTempFile::new().unwrap();
    let json_path = json.path().to_str().unwrap();
    let warnings = |f: &tempfile::NamedTempFile| -> String {
        ok(&["run", "--trace", f.path().to_str().unwrap(), "--format", "mqsim", "-q", "--json", json_path]);
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json_path).unwrap()).unwrap();
        report["warnings"].to_string()
    };
    let heavy = trace(1_000);
    let w = warnings(&heavy);
    assert!(w.contains("the device was saturated for") && w.contains("64 requests outstanding (4 per plane)"), "{w}");
    let light = trace(10_000_000);
    let w = warnings(&light);
    assert!(!w.contains("saturated"), "{w}");
}
