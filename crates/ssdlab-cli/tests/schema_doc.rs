//! Keeps docs/json-schema.md in step with the outputs: runs the binary, collects every key
//! path of the JSON report (and every column of the two CSV files) and checks that each
//! one is documented, written in backticks (`read.latency_ns.p99`, `runs[].interval_ns`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/json-schema.md");

fn doc() -> String {
    std::fs::read_to_string(DOC_PATH).unwrap_or_else(|e| panic!("cannot read {DOC_PATH}: {e}"))
}

fn run_ssdlab(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab");
    assert!(
        out.status.success(),
        "ssdlab {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every key path under `value`: `a.b` for key `b` of object `a`; the elements of an array
/// `a` are walked with the prefix `a[]`, so keys of array elements read `a[].b`.
fn key_paths(value: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                out.insert(path.clone());
                // `config` is the resolved configuration, documented key by key in
                // docs/config.md (checked by `the_config_object_is_the_config_reference`).
                if path != "config" {
                    key_paths(inner, &path, out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            let path = format!("{prefix}[]");
            for item in items {
                key_paths(item, &path, out);
            }
        }
        _ => {}
    }
}

fn undocumented<'a>(names: impl IntoIterator<Item = &'a String>, doc: &str) -> Vec<String> {
    names.into_iter().filter(|name| !doc.contains(&format!("`{name}`"))).cloned().collect()
}

#[test]
fn every_json_key_path_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    run_ssdlab(&["run", "--quiet", "--synthetic", "count=2000", "--json", json.to_str().unwrap()]);
    let text = std::fs::read_to_string(&json).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).expect("the report is JSON");
    let mut paths = BTreeSet::new();
    key_paths(&report, "", &mut paths);
    // The collector must have seen nested objects, arrays of objects and the CLI's additions.
    for expected in [
        "schema_version",
        "read.latency_ns.p99",
        "runs[].write.latency_ns.max",
        "workload_description",
        "simulator.wall_seconds",
    ] {
        assert!(paths.contains(expected), "key path {expected} not in the report: {paths:?}");
    }
    assert_eq!(report["schema_version"], 1, "docs/json-schema.md documents schema_version 1");
    let missing = undocumented(&paths, &doc());
    assert!(
        missing.is_empty(),
        "{} JSON key path(s) are not documented in docs/json-schema.md (write each one in backticks, \
         e.g. in the first column of a table):\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}

/// Optional objects (here `burst`, written only under burst replay) must be documented too.
#[test]
fn optional_burst_object_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("burst.json");
    let synthetic = "count=2000,read_fraction=0.5,interarrival_ns=20000";
    run_ssdlab(&["run", "--quiet", "--burst", "--synthetic", synthetic, "--json", json.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(report["burst"].is_object(), "a burst run reports a burst object");
    let mut paths = BTreeSet::new();
    key_paths(&report, "", &mut paths);
    let missing = undocumented(&paths, &doc());
    assert!(missing.is_empty(), "JSON key path(s) of a burst run not documented:\n  {}", missing.join("\n  "));
}

/// The header line of a CSV file, split into column names.
fn csv_header(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines().next().unwrap_or_default().split(',').map(str::to_string).collect()
}

#[test]
fn every_csv_column_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let series = dir.path().join("series.csv");
    let requests = dir.path().join("requests.csv");
    run_ssdlab(&[
        "run",
        "--quiet",
        "--synthetic",
        "count=2000",
        "--interval-ms",
        "100",
        "--series",
        series.to_str().unwrap(),
        "--requests",
        requests.to_str().unwrap(),
    ]);
    let mut columns = BTreeSet::new();
    for column in csv_header(&series) {
        // One column per page type: documented once as `free_pages_type<t>`.
        let generic = match column.strip_prefix("free_pages_") {
            Some("LSB" | "CSB" | "MSB" | "TSB") => "free_pages_<type>".to_string(),
            _ => column,
        };
        columns.insert(generic);
    }
    assert!(columns.contains("free_pages_<type>"), "series header lacks page-type columns: {columns:?}");
    let request_columns = csv_header(&requests);
    assert!(request_columns.iter().any(|c| c == "dominant_page_type"), "{request_columns:?}");
    columns.extend(request_columns);
    let missing = undocumented(&columns, &doc());
    assert!(
        missing.is_empty(),
        "CSV column(s) not documented in docs/json-schema.md (in backticks):\n  {}",
        missing.join("\n  ")
    );
}

/// The optional `power` object (written when power losses are scheduled) is documented.
#[test]
fn optional_power_object_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("power.json");
    let args = ["run", "--quiet", "--synthetic", "count=2000", "--power-loss-at", "5ms", "--json"];
    run_ssdlab(&[&args[..], &[json.to_str().unwrap()]].concat());
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["power"]["losses"], 1, "the loss must happen: {}", report["power"]);
    let mut paths = BTreeSet::new();
    key_paths(&report, "", &mut paths);
    let missing = undocumented(&paths, &doc());
    assert!(missing.is_empty(), "JSON key path(s) of a power-loss run not documented:\n  {}", missing.join("\n  "));
}

/// The optional `import` object (MQSim / SSDSim files) is documented.
#[test]
fn optional_import_object_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("import.json");
    let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/configs/mqsim/");
    let (device, workload) = (format!("{shared}ssdconfig.xml"), format!("{shared}workload.xml"));
    let args = ["run", "--quiet", "--config", &device, "--workload", &workload, "--scenario", "2"];
    // (Its two flows are [[flows]]: --fairness adds the fairness object.)
    run_ssdlab(&[&args[..], &["--synthetic", "count=200", "--fairness", "--json", json.to_str().unwrap()]].concat());
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(report["import"]["parameters"].as_array().is_some_and(|p| !p.is_empty()));
    let mut paths = BTreeSet::new();
    key_paths(&report, "", &mut paths);
    let missing = undocumented(&paths, &doc());
    assert!(missing.is_empty(), "JSON key path(s) of an imported run not documented:\n  {}", missing.join("\n  "));
}

/// The optional `hybrid` object (drives with SLC-mode blocks) is documented.
#[test]
fn optional_hybrid_object_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("hybrid.json");
    let args = [
        "run",
        "--quiet",
        "--preset",
        "spa-ssd-hybrid",
        "--set",
        "hybrid.allocation=tpj",
        "--set",
        "hybrid.migration=qpc",
        "--synthetic",
        "count=2000,read_fraction=0",
        "--json",
    ];
    run_ssdlab(&[&args[..], &[json.to_str().unwrap()]].concat());
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["hybrid"]["allocation"], "tpj", "{}", report["hybrid"]);
    let mut paths = BTreeSet::new();
    key_paths(&report, "", &mut paths);
    let missing = undocumented(&paths, &doc());
    assert!(missing.is_empty(), "JSON key path(s) of a hybrid run not documented:\n  {}", missing.join("\n  "));
}

/// The optional `mapping` object (half-page and subpage maps) is documented.
#[test]
fn optional_mapping_object_is_documented() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, extra) in [("half-pages", "ftl.mapping=half-pages"), ("subpages", "geometry.subpages_per_page=4")] {
        let json = dir.path().join(format!("{kind}.json"));
        let mapping = format!("ftl.mapping={kind}");
        let args = [
            "run",
            "--quiet",
            "--set",
            &mapping,
            "--set",
            extra,
            "--synthetic",
            "count=2000,read_fraction=0.5,block_size_bytes=2048",
            "--json",
            json.to_str().unwrap(),
        ];
        run_ssdlab(&args);
        let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(report["mapping"]["kind"], kind, "{}", report["mapping"]);
        let mut paths = BTreeSet::new();
        key_paths(&report, "", &mut paths);
        let missing = undocumented(&paths, &doc());
        assert!(missing.is_empty(), "JSON key path(s) of a {kind} run not documented:\n  {}", missing.join("\n  "));
    }
}

/// Issue 13: the `errors` object of a run with the error model; issue 14: the `dir`
/// object.
#[test]
fn optional_errors_and_dir_objects_are_documented() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("errors.json");
    let args = [
        "run",
        "--quiet",
        "--set",
        "reliability.enabled=true",
        "--set",
        "ecc.scheme=ldpc",
        "--set",
        "precondition.pe_cycles=3000",
        "--set",
        "dir.scheme=dir",
        "--synthetic",
        "count=2000,read_fraction=0.7",
        "--json",
        json.to_str().unwrap(),
    ];
    run_ssdlab(&args);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(report["errors"]["read_retries"].as_u64().unwrap() > 0, "{}", report["errors"]);
    assert!(report["dir"]["groups"].as_u64().unwrap() > 0, "{}", report["dir"]);
    let mut paths = BTreeSet::new();
    key_paths(&report, "", &mut paths);
    let missing = undocumented(&paths, &doc());
    assert!(missing.is_empty(), "JSON key path(s) of an error-model run not documented:\n  {}", missing.join("\n  "));
}

/// Issue 17 item 15: the report's `config` object is the resolved configuration, so every
/// key in it is a config key of docs/config.md.
#[test]
fn the_config_object_is_the_config_reference() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    run_ssdlab(&["run", "--quiet", "--synthetic", "count=500", "--json", json.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut paths = BTreeSet::new();
    key_paths(&report["config"], "", &mut paths);
    assert!(paths.contains("geometry.page_size_bytes"), "{paths:?}");
    let config_doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/config.md")).unwrap();
    let leaves: Vec<&String> = paths
        .iter()
        .filter(|p| report["config"].pointer(&format!("/{}", p.replace('.', "/"))).is_some_and(|v| !v.is_object()))
        .collect();
    let missing: Vec<String> = leaves
        .into_iter()
        .filter(|p| {
            let key = p.rsplit('.').next().unwrap();
            !config_doc.contains(&format!("`{p}`")) && !config_doc.contains(&format!("`{key}`"))
        })
        .cloned()
        .collect();
    assert!(missing.is_empty(), "config keys in the report but not in docs/config.md:\n  {}", missing.join("\n  "));
}
