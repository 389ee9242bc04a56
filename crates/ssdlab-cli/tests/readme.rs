//! The README's commands are tested commands (issue 17, item 16): every `ssdlab …` line of
//! the README's `sh` blocks runs here as written, through `sh`, from a scratch folder with
//! `../shared/traces` beside it (a link to the real traces) and the `ssdlab` under test
//! first on PATH. The long ones run at a reduced size, listed in [`LONG`]; a README
//! command that is neither run as written nor listed there fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// README commands too long for a test run, and what runs instead (same command, smaller).
const LONG: &[(&str, &str)] = &[
    ("ssdlab swarm --seeds 1000 --power-loss always", "ssdlab swarm --seeds 4 --power-loss always"),
    // Speed targets fail on a loaded machine; trace-fin has only its memory target.
    ("ssdlab bench --all", "ssdlab bench trace-fin --requests 10000"),
    ("ssdlab reproduce pa-ssd", "ssdlab reproduce pa-ssd --scale 0.01 --only Fin --out pa.md"),
    // (At this scale Figs. 3 and 6 miss their required checks, which would fail the command.)
    ("ssdlab reproduce spa-ssd", "ssdlab reproduce spa-ssd --scale 0.005 --only fig5,fig7,hm_0 --out spa.md"),
    // The whole set fails a required check (docs/reproductions/dir.md says why).
    ("ssdlab reproduce dir", "ssdlab reproduce dir --only hm_0 --out dir.md"),
    // The whole set fails a required check (docs/reproductions/ipu.md says why); ads alone
    // tests the error-rate check only (the others report "not evaluated").
    ("ssdlab reproduce ipu", "ssdlab reproduce ipu --only ads --scale 0.1 --out ipu.md"),
];

fn traces() -> PathBuf {
    let dir = std::env::var_os("SSDLAB_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces")));
    assert!(dir.is_dir(), "trace folder {} missing: set SSDLAB_TRACES to the shared/traces folder", dir.display());
    dir.canonicalize().unwrap()
}

/// The `ssdlab` commands of the README's `sh` blocks, continuation lines joined and
/// trailing comments kept (sh ignores them).
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let trimmed = line.trim();
        if pending.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(trimmed);
                let command = std::mem::take(&mut pending).split_whitespace().collect::<Vec<_>>().join(" ");
                if command.starts_with("ssdlab ") || command == "ssdlab" {
                    commands.push(command);
                }
            }
        }
    }
    commands
}

fn without_comment(command: &str) -> &str {
    command.split(" #").next().unwrap().trim()
}

fn sh(command: &str, cwd: &Path) -> std::process::Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ssdlab"));
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env("PATH", path)
        .env_remove("SSDLAB_TRACES")
        .output()
        .expect("run sh")
}

#[test]
fn readme_commands_run() {
    let scratch = tempfile::tempdir().unwrap();
    let shared = scratch.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::os::unix::fs::symlink(traces(), shared.join("traces")).unwrap();
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let commands = readme_commands();
    assert!(commands.len() >= 15, "too few README commands found: {commands:?}");
    for command in &commands {
        let bare = without_comment(command);
        let run = LONG.iter().find(|(long, _)| *long == bare).map(|(_, short)| *short).unwrap_or(command);
        let started = std::time::Instant::now();
        let out = sh(run, &work);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("panicked"),
            "README command failed: {run}\n{}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        );
        eprintln!("{:6.2} s  {run}", started.elapsed().as_secs_f64());
    }
    for (long, _) in LONG {
        assert!(commands.iter().any(|c| without_comment(c) == *long), "LONG lists '{long}', which the README lacks");
    }
    for file in ["out.json", "series.csv", "requests.csv", "my.toml", "pa.md", "spa.md"] {
        assert!(work.join(file).is_file(), "a README command should have written {file}");
    }
}

/// `.ci/run` runs the README's two `cargo` commands (plus `--locked`), so the commands a
/// new user types are the ones CI proves.
#[test]
fn ci_runs_the_readme_cargo_commands() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.ci/run")).unwrap();
    let tokens = |line: &str| -> Vec<String> {
        // The command before a comment or pipe, without --locked and redirections.
        let command = line.split(['#', '|']).next().unwrap();
        command.split_whitespace().filter(|t| *t != "--locked" && !t.contains('>')).map(str::to_string).collect()
    };
    let cargo: Vec<Vec<String>> =
        readme.lines().filter(|l| l.starts_with("cargo run ") || l.starts_with("cargo test ")).map(tokens).collect();
    assert_eq!(cargo.len(), 2, "the README's first block should hold the run and the test command");
    for command in &cargo {
        assert!(
            ci.lines().any(|l| tokens(l.trim()) == *command),
            ".ci/run does not run the README's `{}`",
            command.join(" ")
        );
    }
}
