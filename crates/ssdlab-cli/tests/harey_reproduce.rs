//! `ssdlab reproduce harey-tortoise` from the command line.

use std::process::Command;

fn ssdlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab")
}

/// A small `reproduce harey-tortoise` (a quarter of the microbenchmark's and the pulses'
/// writes, shorter stand-ins): the report leads with its verdict counts and claims table,
/// the three required checks pass and are printed, the discussion is filled in, the
/// figures are written.
#[test]
fn reproduce_harey_tortoise_small() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("harey.md");
    let traces = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces");
    let run =
        ssdlab(&["reproduce", "harey-tortoise", "--traces", traces, "--scale", "0.25", "--out", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(stdout.matches("pass ").count(), 3, "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = md.lines().collect();
    assert!(lines[2].contains("Required checks: 3 of 3 pass"), "{}", lines[2]);
    for must in ["## Claims", "Fig. 7.6", "Fig. 7.9", "Figs. 7.10", "Financial", "WebIndex (stand-in)", "## Discussion"]
    {
        assert!(md.contains(must), "report lacks {must}");
    }
    assert!(!md.contains("{{"), "unfilled discussion value");
    for svg in ["harey-fig7-6.svg", "harey-fig7-10.svg"] {
        assert!(dir.path().join(svg).exists(), "{svg} not written");
    }
}
