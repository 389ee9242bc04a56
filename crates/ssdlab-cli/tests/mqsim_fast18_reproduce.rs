//! `ssdlab reproduce mqsim-fast18` on a short run: MQSim's files (compiled in) run with
//! their Stop_Time scaled, the report puts MQSim's numbers beside ssdlab's, the required
//! checks are printed, and an unknown scenario is refused before anything runs.

use std::process::Command;

fn ssdlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab")
}

#[test]
fn reproduce_mqsim_fast18_short() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mqsim-fast18.md");
    let o = out.to_str().unwrap();
    let run = ssdlab(&["reproduce", "mqsim-fast18", "--scale", "0.005", "--only", "qd2,qd256", "-q", "--out", o]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(stdout.matches("pass ").count(), 3, "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.lines().nth(2).unwrap().contains("Required checks: 3 of 3 pass"), "{md}");
    // MQSim's numbers (from docs/validation/mqsim.md) beside ours, one row per scenario run.
    assert!(md.contains("| 2 | 92 / ") && md.contains("| 256 | 1592 / "), "{md}");
    assert!(!md.contains("| 4 | 99 / "), "a scenario not chosen ran: {md}");
    assert!(md.contains("`ssdlab reproduce mqsim-fast18 --scale 0.005 --only qd2,qd256`"), "{md}");
    assert!(md.contains("(0.05 s of simulated time)"), "{md}");
    assert!(md.contains("## Discussion") && !md.contains("{{"), "{md}");
    let bad = ssdlab(&["reproduce", "mqsim-fast18", "--only", "qd3", "--out", o]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no scenario 'qd3'; available: qd2, qd4"));
}
