//! Hostile input, end to end: every row of `docs/input-errors.md` is one test here. Each
//! runs the built `ssdlab` binary on an input written to a temporary folder (mostly real
//! trace lines, from `$SSDLAB_TRACES`, then damaged) and checks the exit status, that
//! nothing panicked and the exact error text: file, line and field.
//!
//! The inputs are named as in the table and the binary runs inside the temporary folder,
//! so the messages carry the same short file names as the document.
//!
//! The cases are in `traces.rs` and `configs.rs`, in the document's order. The property
//! tests that feed arbitrary TOML-ish text and `--set` overrides to the config loader are
//! in `config_fuzz.rs`.

#[path = "../common/mod.rs"]
mod common;
use common::*;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No case may take longer than this (a hang is a failure, not a stuck test run).
const TIMEOUT: Duration = Duration::from_secs(300);

/// The first `n` lines of a real trace.
fn real_lines(rel: &str, n: usize) -> Vec<String> {
    let path = traces().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<String> = text.lines().take(n).map(str::to_string).collect();
    assert_eq!(lines.len(), n, "{} is shorter than {n} lines", path.display());
    lines
}

/// Financial1 in SSDSim ASCII (`time_ns device lsn size_sectors op`), 20 lines.
fn fin() -> Vec<String> {
    real_lines("umass_spc/example.ascii", 20)
}

/// MSR Cambridge CSV, 20 lines.
fn msr() -> Vec<String> {
    real_lines("msr_cambridge/msr-cambridge1-sample.csv", 20)
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `lines` with line `n` (1-based) replaced.
fn with_line(mut lines: Vec<String>, n: usize, text: &str) -> String {
    lines[n - 1] = text.to_string();
    join(&lines)
}

/// `lines` with field `i` (0-based) of line `n` (1-based) replaced; `sep` splits fields.
fn with_field(lines: Vec<String>, n: usize, i: usize, sep: char, value: &str) -> String {
    with_fields(lines, n, sep, &[(i, value)])
}

/// `lines` with several fields of line `n` replaced.
fn with_fields(lines: Vec<String>, n: usize, sep: char, values: &[(usize, &str)]) -> String {
    let mut fields: Vec<String> = lines[n - 1].split(sep).map(str::to_string).collect();
    for &(i, value) in values {
        fields[i] = value.to_string();
    }
    let line = fields.join(&sep.to_string());
    with_line(lines, n, &line)
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A temporary folder to write inputs to and run `ssdlab` in.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Self {
        Lab { dir: tempfile::tempdir().expect("temporary folder") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) -> &Self {
        std::fs::write(self.path(name), content).expect("write input");
        self
    }

    /// Runs `ssdlab ARGS` in the folder, killing it after [`TIMEOUT`].
    fn run(&self, args: &[&str]) -> Run {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ssdlab");
        let drain = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                pipe.read_to_end(&mut bytes).ok();
                String::from_utf8_lossy(&bytes).into_owned()
            })
        };
        let out = drain(Box::new(child.stdout.take().expect("stdout")));
        let err = drain(Box::new(child.stderr.take().expect("stderr")));
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for ssdlab") {
                break status;
            }
            if started.elapsed() > TIMEOUT {
                child.kill().ok();
                child.wait().ok();
                panic!("ssdlab {args:?} still running after {TIMEOUT:?}: it hangs on this input");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Run { code: status.code(), stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
    }

    /// Runs a command that must fail cleanly; returns its error message: stderr from the
    /// first `error: ` on (earlier lines are notes such as the detected format).
    fn fails(&self, args: &[&str]) -> String {
        let run = self.run(args);
        assert!(!run.stderr.contains("panicked"), "ssdlab {args:?} panicked:\n{}", run.stderr);
        assert!(
            run.code.is_some_and(|c| c != 0),
            "ssdlab {args:?} should fail, exited {:?}:\n{}\n{}",
            run.code,
            run.stdout,
            run.stderr
        );
        let at = run.stderr.find("error: ").unwrap_or_else(|| panic!("no 'error: ' in stderr:\n{}", run.stderr));
        run.stderr[at..].trim_end().to_string()
    }

    /// Runs a command that must succeed; returns the JSON report it wrote (`--json out.json`
    /// is appended to the arguments).
    fn report(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend(["--quiet", "--no-wall-clock", "--json", "out.json"]);
        let run = self.run(&all);
        assert!(!run.stderr.contains("panicked"), "ssdlab {all:?} panicked:\n{}", run.stderr);
        assert_eq!(run.code, Some(0), "ssdlab {all:?} failed:\n{}", run.stderr);
        let text = std::fs::read_to_string(self.path("out.json")).expect("JSON report");
        serde_json::from_str(&text).expect("valid JSON")
    }
}

/// Asserts the message of a failing command.
fn expect_error(lab: &Lab, args: &[&str], message: &str) {
    assert_eq!(lab.fails(args), message, "ssdlab {args:?}");
}

const SSDSIM_LAYOUT: &str = "(time_ns device offset_sectors size_sectors op)";

mod configs;
mod traces;
