//! Replays the committed `config` fuzz corpus (`fuzz/corpus/config/`, plus any saved
//! crash inputs in `fuzz/regressions/config/`) through the same code the AFL target runs
//! (`fuzz/src/config.rs`, included below): `parse_config`, `apply_overrides`,
//! `Config::validate` and, for a valid config, its capacities and synthetic workload.
//! No input may panic. See docs/testing.md, section Fuzzing.

#[path = "../../../fuzz/src/config.rs"]
mod harness;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn inputs() -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let list = |dir: &Path| -> Vec<PathBuf> {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        entries.map(|e| e.expect("directory entry").path()).filter(|p| p.is_file()).collect()
    };
    let corpus = fuzz.join("corpus/config");
    let mut files = list(&corpus);
    assert!(!files.is_empty(), "fuzz corpus {} is empty", corpus.display());
    let regressions = fuzz.join("regressions/config");
    if regressions.is_dir() {
        files.extend(list(&regressions));
    }
    files.sort();
    files
}

#[test]
fn config_corpus_never_panics() {
    let files = inputs();
    let panicked: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            catch_unwind(AssertUnwindSafe(|| harness::config(&data))).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        panicked.is_empty(),
        "config: {} of {} inputs panicked:\n{}",
        panicked.len(),
        files.len(),
        panicked.join("\n")
    );
}

/// The harness itself: every preset loads, validates and starts its workload without a
/// panic, with and without overrides.
#[test]
fn harness_runs_the_presets() {
    let presets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ssdlab-core/presets");
    for entry in std::fs::read_dir(&presets).unwrap() {
        let text = std::fs::read(entry.unwrap().path()).unwrap();
        harness::config(&text);
        let mut with_set = text.clone();
        with_set.extend_from_slice(b"\0seed=3\nftl.over_provisioning=0.25\n");
        harness::config(&with_set);
    }
    harness::config(b"");
}
