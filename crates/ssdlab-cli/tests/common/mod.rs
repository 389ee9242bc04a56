//! Helpers the CLI's integration tests share: running the built binary, and finding the
//! real traces (`$SSDLAB_TRACES`, else ../shared/traces beside the repository).
#![allow(dead_code)] // each test crate uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn ssdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(args).output().expect("run ssdlab")
}

/// Runs and requires success; returns (stdout, stderr).
pub fn ok(args: &[&str]) -> (String, String) {
    let out = ssdlab(args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "ssdlab {args:?} failed:\n{stdout}\n{stderr}");
    (stdout.into_owned(), stderr.into_owned())
}

/// Runs and requires a failure without a panic; returns stderr.
pub fn fails(args: &[&str]) -> String {
    let out = ssdlab(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "ssdlab {args:?} should fail:\n{}\n{stderr}", String::from_utf8_lossy(&out.stdout));
    assert!(!stderr.contains("panicked"), "must not panic: {stderr}");
    stderr
}

pub fn traces() -> PathBuf {
    let dir = std::env::var_os("SSDLAB_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces")));
    assert!(dir.is_dir(), "trace folder {} missing: set SSDLAB_TRACES to the shared/traces folder", dir.display());
    dir
}

pub fn trace(rel: &str) -> String {
    traces().join(rel).display().to_string()
}

pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
