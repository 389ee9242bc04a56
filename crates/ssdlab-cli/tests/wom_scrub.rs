//! Scrubbing, sanitisation and WOM codes from the command line: their report sections
//! are documented (docs/json-schema.md), and `ssdlab reproduce wom-scrub`.

use std::collections::BTreeSet;
use std::process::Command;

fn ssdlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab")
}

fn key_paths(value: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                out.insert(path.clone());
                if path != "config" {
                    key_paths(inner, &path, out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// The `scrub` and `wom` objects (with a sanitise command) are documented key by key.
#[test]
fn scrub_and_wom_objects_are_documented() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/json-schema.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runs: [(&str, &[&str]); 2] = [
        (
            "scrub",
            &[
                "--set",
                "scrub.mode=immediate",
                "--set",
                "scrub.budget_pages=16",
                "--set",
                "power.block_summary=true",
                "--set",
                "scrub.sanitize_bytes=1048576",
            ],
        ),
        ("wom", &["--set", "wom.enabled=true", "--set", "ftl.over_provisioning=0.4"]),
    ];
    for (section, sets) in runs {
        let json = dir.path().join(format!("{section}.json"));
        let mut args =
            vec!["run", "--quiet", "--preset", "harey-tortoise-mlc", "--set", "geometry.blocks_per_plane=64"];
        args.extend_from_slice(sets);
        args.extend_from_slice(&["--synthetic", "count=3000,read_fraction=0.2", "--json", json.to_str().unwrap()]);
        let out = ssdlab(&args);
        assert!(out.status.success(), "{section}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert!(report[section].is_object(), "{section} section missing");
        let mut paths = BTreeSet::new();
        key_paths(&report, "", &mut paths);
        let missing: Vec<&String> = paths.iter().filter(|p| !doc.contains(&format!("`{p}`"))).collect();
        assert!(missing.is_empty(), "undocumented in docs/json-schema.md: {missing:?}");
        if section == "scrub" {
            assert_eq!(report["scrub"]["sanitize"].as_array().map(Vec::len), Some(1), "{}", report["scrub"]);
        }
    }
}

/// Bad values name their key.
#[test]
fn wom_and_scrub_config_errors_name_their_keys() {
    let out = ssdlab(&["run", "--quiet", "--preset", "gordon", "--set", "wom.enabled=true", "--synthetic", "count=10"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wom.enabled"), "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        ssdlab(&["run", "--quiet", "--preset", "gordon", "--set", "scrub.mode=sometimes", "--synthetic", "count=10"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("mode"), "{}", String::from_utf8_lossy(&out.stderr));
}

fn traces_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces").to_string()
}

/// A small `reproduce wom-scrub`: the report leads with its verdict counts and claims
/// table, its required checks pass (and are printed), every discussion value is filled
/// in, and no machine path leaks into it.
#[test]
fn reproduce_wom_scrub_small() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wom-scrub.md");
    let traces = traces_dir();
    let run = ssdlab(&[
        "reproduce",
        "wom-scrub",
        "--traces",
        &traces,
        "--only",
        "Financial,idle-rich",
        "--scale",
        "0.2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(stdout.matches("pass Required").count(), 3, "{stdout}");
    let md = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = md.lines().collect();
    assert!(lines[2].contains("claims:") && lines[2].contains("Required checks: 3 of 3 pass"), "{}", lines[2]);
    assert!(md.find("## Claims").unwrap() < md.find("## Setup").unwrap());
    for must in ["Fig. 6.5", "Fig. 6.6", "Fig. 6.1", "## Discussion", "ssdlab run --preset scrub-mlc"] {
        assert!(md.contains(must), "{must} missing");
    }
    assert!(!md.contains("{{") && !md.contains("/tmp") && !md.contains("/work/"), "a placeholder or a path leaked");
    assert!(dir.path().join("wom-scrub-fig65.svg").is_file());
}

#[test]
fn reproduce_wom_scrub_refuses_unknown_workloads() {
    let out = ssdlab(&["reproduce", "wom-scrub", "--traces", &traces_dir(), "--only", "nosuch"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nosuch") && err.contains("idle-rich"), "{err}");
}
