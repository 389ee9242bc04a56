//! `--time-unit` on `run` and `trace-stats`, and the byte-unit format end to end: detected
//! from its data, refused when the data do not decide, read with `--format bytes5`.

use std::io::Write;
use std::process::{Command, Output};

fn ssdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab")
}

fn ok(args: &[&str]) -> (String, String) {
    let out = ssdlab(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "ssdlab {args:?} failed:\n{stdout}\n{stderr}");
    (stdout.into_owned(), stderr.into_owned())
}

fn fails(args: &[&str]) -> String {
    let out = ssdlab(args);
    assert!(!out.status.success(), "ssdlab {args:?} should fail");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "must not panic: {stderr}");
    stderr
}

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
    let (as_ns, _) = ok(&["run", "--trace", path, "--format", "mqsim"]);
    assert!(as_ns.contains("WARNING") && as_ns.contains("--time-unit"), "no warning:\n{as_ns}");
    let (as_s, _) = ok(&["run", "--trace", path, "--format", "mqsim", "--time-unit", "s"]);
    assert!(!as_s.contains("WARNING"), "warned although the unit was named:\n{as_s}");
}
