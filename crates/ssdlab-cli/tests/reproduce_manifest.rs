//! Issue 43: every reproduction describes the run it did. With a manifest of unusual
//! traces (a write-only one, a read-heavy one, a write-heavy one with 4 reads) the report
//! names no workload of the built-in list, prints no "NaN" or "+0.0%" against nothing, and
//! its header counts all four verdicts.

use std::path::Path;
use std::process::Command;

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces");

/// Names of the built-in lists' trace workloads (any reproduction's).
const BUILT_IN: [&str; 7] = ["hm_0", "hm_1", "TPC-C", "FIU mail", "Financial", "YCSB", "VDI"];

/// MSR rows of the shipped hm_1 excerpt of type `op`.
fn rows(op: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{TRACES}/msr_cambridge/hm_1_short.csv")).unwrap();
    text.lines().filter(|l| l.split(',').nth(3) == Some(op)).map(str::to_string).collect()
}

/// Writes `rows` sorted by time as `dir/name.csv`.
fn write_trace(dir: &Path, name: &str, mut rows: Vec<String>) {
    rows.sort_by_key(|l| l.split(',').next().unwrap().parse::<u64>().unwrap());
    std::fs::write(dir.join(format!("{name}.csv")), rows.join("\n") + "\n").unwrap();
}

/// A folder with the three traces and a manifest naming them, with roles that name no
/// built-in workload.
fn manifest_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (reads, writes) = (rows("Read"), rows("Write"));
    assert!(reads.len() >= 1500 && writes.len() >= 1500);
    write_trace(dir.path(), "wonly", writes[..1500].to_vec());
    write_trace(dir.path(), "rheavy", [&reads[..1500], &writes[..150]].concat());
    write_trace(dir.path(), "wfew", [&writes[..1500], &reads[..4]].concat());
    let mut m = String::new();
    for (name, role) in [("wonly", "write-only excerpt"), ("rheavy", "read-heavy excerpt"), ("wfew", "four reads")] {
        m.push_str(&format!(
            "[[workload]]\nname = \"{name}\"\nfile = \"{name}.csv\"\nformat = \"msr\"\nrole = \"{role}\"\n\n"
        ));
    }
    std::fs::write(dir.path().join("manifest.toml"), m).unwrap();
    dir
}

fn reproduce(name: &str, traces: &Path, only: &str, out: &Path) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["reproduce", name, "--quiet", "--traces", traces.to_str().unwrap(), "--only", only, "--scale", "0.05"])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .expect("run ssdlab");
    let md = std::fs::read_to_string(out).unwrap_or_default();
    (o.status.code(), md, String::from_utf8_lossy(&o.stderr).into_owned())
}

fn check(name: &str, only: &str) {
    let traces = manifest_dir();
    let out = traces.path().join(format!("{name}.md"));
    let (code, md, stderr) = reproduce(name, traces.path(), only, &out);
    assert!(matches!(code, Some(0 | 1)), "reproduce {name} errored: {stderr}");
    let header = md.lines().nth(2).unwrap_or_default();
    assert!(header.contains(" not measured. Required checks:"), "{name}: {header}");
    assert!(md.contains("--traces DIR") && md.contains(&format!("--only {only}")), "{name}: command line");
    for built_in in BUILT_IN {
        assert!(!md.contains(built_in), "reproduce {name} with a manifest names built-in workload {built_in}:\n{md}");
    }
    assert!(!md.contains("NaN") && !md.contains("inf%"), "{name}: a number against nothing:\n{md}");
}

#[test]
fn ipu_describes_a_manifest_run() {
    check("ipu", "wonly,rheavy");
}

#[test]
fn pa_ssd_describes_a_manifest_run() {
    check("pa-ssd", "wonly,rheavy");
    // PA's discussion describes any run except its marked passages on the built-in
    // workloads: the mechanism survives, and one note says how many passages were left out.
    let traces = manifest_dir();
    let out = traces.path().join("pa-ssd.md");
    let (_, md, _) = reproduce("pa-ssd", traces.path(), "wonly,rheavy", &out);
    assert!(md.contains("**Setup choices that matter.**") && md.contains("SSDSim counts free pages"), "{md}");
    assert!(md.contains("passages about particular runs") && !md.contains("<!--"), "{md}");
    assert_eq!(md.matches("left out: this run's workloads came from a manifest").count(), 1, "{md}");
}

#[test]
fn dir_describes_a_manifest_run() {
    // DIR needs traces that read and write: the one with 4 reads is left out of every
    // claim on reads, and the report says so.
    check("dir", "wfew,rheavy");
    let traces = manifest_dir();
    let out = traces.path().join("dir.md");
    let (_, md, _) = reproduce("dir", traces.path(), "wfew,rheavy", &out);
    assert!(md.contains("**Too few reads**") && md.contains("wfew (4 reads)"), "{md}");
}

#[test]
fn wom_scrub_describes_a_manifest_run() {
    check("wom-scrub", "wonly,rheavy");
}

#[test]
fn gordon_describes_a_manifest_run_and_fails_without_its_required_check() {
    let traces = manifest_dir();
    let out = traces.path().join("gordon.md");
    let (code, md, _) = reproduce("gordon", traces.path(), "wonly,rheavy", &out);
    assert_eq!(code, Some(1), "the required check needs the synthetic experiments");
    assert!(md.contains("Required checks: 0 of 1 pass") && md.contains("not measured (not run)"), "{md}");
    check("gordon", "wonly,rheavy");
}

#[test]
fn spa_ssd_describes_a_manifest_run() {
    check("spa-ssd", "wonly,rheavy");
}

#[test]
fn mango_describes_a_manifest_run_with_its_discussion() {
    check("mango", "wonly,rheavy");
    // Mango's discussion describes any run: kept, filled from this one, and the load rule
    // stated in its Setup.
    let traces = manifest_dir();
    let out = traces.path().join("mango.md");
    let (_, md, _) = reproduce("mango", traces.path(), "wonly,rheavy", &out);
    assert!(md.contains("**The mechanism.**") && md.contains("**Load.**"), "{md}");
    assert!(md.contains("the rule every reproduction shares") && !md.contains("<!--"), "{md}");
}

#[test]
fn harey_tortoise_describes_a_manifest_run() {
    check("harey-tortoise", "wonly,rheavy");
}

/// The manifest of `manifest_dir` with `groups` given to each workload as `groups` says.
fn with_groups(groups: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = manifest_dir();
    let mut m = String::new();
    for (name, g) in groups {
        m.push_str(&format!(
            "[[workload]]\nname = \"{name}\"\nfile = \"{name}.csv\"\nformat = \"msr\"\ngroups = [\"{g}\"]\n\n"
        ));
    }
    std::fs::write(dir.path().join("manifest.toml"), m).unwrap();
    dir
}

#[test]
fn pa_ssd_takes_heavy_and_light_from_the_manifest_groups() {
    // Issue 43: the write-only excerpt is named heavy and the read-heavy one light by the
    // manifest, whatever QDS did on them.
    let traces = with_groups(&[("wonly", "heavy"), ("rheavy", "light")]);
    let out = traces.path().join("pa-ssd.md");
    let (_, md, stderr) = reproduce("pa-ssd", traces.path(), "wonly,rheavy", &out);
    assert!(md.contains("heavy workloads (wonly)") && md.contains("light workloads (rheavy)"), "{stderr}\n{md}");
}

#[test]
fn ipu_takes_update_heavy_from_the_manifest_groups() {
    // The read-heavy excerpt would never be computed update-heavy; its groups say it is.
    let traces = with_groups(&[("rheavy", "update-heavy"), ("wonly", "busy")]);
    let out = traces.path().join("ipu.md");
    let (_, md, stderr) = reproduce("ipu", traces.path(), "wonly,rheavy", &out);
    let row = md.lines().find(|l| l.contains("IPU's in-place updates")).unwrap_or_default();
    assert!(row.contains("rheavy") && !row.contains("wonly"), "{stderr}\n{row}");
}
