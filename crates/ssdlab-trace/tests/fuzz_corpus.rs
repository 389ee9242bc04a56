//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`, plus any saved crash
//! inputs in `fuzz/regressions/<target>/`) through the same code the AFL targets run
//! (`fuzz/src/trace.rs`, included below): every reader, lenient or not, with the
//! option filters; compression sniffing, decompression and format detection; the fio
//! job parser and generator. No input may panic. See docs/testing.md, section Fuzzing.

#[path = "../../../fuzz/src/trace.rs"]
mod harness;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `fuzz/corpus/<target>` (which must exist and not be empty) and of
/// `fuzz/regressions/<target>` (optional), sorted.
fn inputs(target: &str) -> Vec<PathBuf> {
    let corpus = fuzz_dir().join("corpus").join(target);
    let list = |dir: &Path| -> Vec<PathBuf> {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        entries.map(|e| e.expect("directory entry").path()).filter(|p| p.is_file()).collect()
    };
    let mut files = list(&corpus);
    assert!(!files.is_empty(), "fuzz corpus {} is empty", corpus.display());
    let regressions = fuzz_dir().join("regressions").join(target);
    if regressions.is_dir() {
        files.extend(list(&regressions));
    }
    files.sort();
    files
}

/// Runs `run` on every input of `target`, each under `catch_unwind`, and fails naming
/// every input that panicked.
fn replay(target: &str, run: impl Fn(&[u8])) -> usize {
    let files = inputs(target);
    let panicked: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            catch_unwind(AssertUnwindSafe(|| run(&data))).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        panicked.is_empty(),
        "{target}: {} of {} inputs panicked:\n{}",
        panicked.len(),
        files.len(),
        panicked.join("\n")
    );
    files.len()
}

#[test]
fn trace_reader_corpus_never_panics() {
    replay("trace_reader", harness::trace_reader);
}

#[test]
fn trace_open_corpus_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path().join("input.trace");
    replay("trace_open", |data| harness::trace_open(data, &scratch));
}

#[test]
fn fio_job_corpus_never_panics() {
    replay("fio_job", harness::fio_job);
}

/// The trace corpus reaches every reader: for each format, some input's mode byte picks it.
#[test]
fn the_trace_corpus_covers_every_format() {
    let modes: Vec<u8> =
        inputs("trace_reader").iter().filter_map(|p| std::fs::read(p).ok()?.first().copied()).collect();
    for format in ssdlab_trace::Format::ALL {
        assert!(modes.iter().any(|&m| harness::format_of(m) == format), "no corpus input for {format}");
    }
    for lenient in [false, true] {
        assert!(modes.iter().any(|&m| harness::options_of(m).lenient == lenient), "no input with lenient={lenient}");
    }
}

/// The harness itself: an empty input is fine, and a small valid trace yields its records.
#[test]
fn harness_drains_a_valid_trace() {
    let mut src = ssdlab_trace::Format::Ssdsim.reader(&b"0 0 0 8 1\n10 1 8 8 0\n"[..], "x");
    assert_eq!(harness::drain(&mut *src, Some(3)), 2);
    harness::trace_reader(b"");
    harness::fio_job(b"");
    let dir = tempfile::tempdir().unwrap();
    harness::trace_open(b"", &dir.path().join("empty"));
}
