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
    // The whole set fails a required check (docs/reproductions/ipu.md says why), and so
    // does Fin alone at a tenth of its length: the same exit status 1 in 4 s.
    ("ssdlab reproduce ipu", "ssdlab reproduce ipu --only Fin --scale 0.1 --out ipu.md"),
    (
        "ssdlab reproduce wom-scrub",
        "ssdlab reproduce wom-scrub --only Financial,idle-rich --scale 0.2 --out wom-scrub.md",
    ),
    (
        "ssdlab reproduce gordon",
        "ssdlab reproduce gordon --only pairs-read,pairs-write,TPC-C --scale 0.01 --out gordon.md",
    ),
    ("ssdlab reproduce harey-tortoise", "ssdlab reproduce harey-tortoise --scale 0.25 --out harey-tortoise.md"),
    // Each scenario's Stop_Time scaled from 10 s to 50 ms.
    (
        "ssdlab reproduce mqsim-fast18",
        "ssdlab reproduce mqsim-fast18 --scale 0.005 --only qd2,qd256 --out mqsim-fast18.md",
    ),
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

/// The exit status a README command documents in its comment (`# … exits 2: …`); 0
/// when it names none.
fn documented_status(command: &str) -> i32 {
    let comment = command.split_once(" #").map_or("", |(_, c)| c);
    comment
        .split("exits ")
        .nth(1)
        .map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().expect("exits N"))
        .unwrap_or(0)
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
    // (The README's commands may name the repository's examples, e.g. examples/zns/.)
    std::os::unix::fs::symlink(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"), work.join("examples")).unwrap();
    let commands = readme_commands();
    assert!(commands.len() >= 15, "too few README commands found: {commands:?}");
    for command in &commands {
        let bare = without_comment(command);
        let run = LONG.iter().find(|(long, _)| *long == bare).map(|(_, short)| *short).unwrap_or(command);
        let started = std::time::Instant::now();
        let out = sh(run, &work);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let expected = documented_status(command);
        assert!(
            out.status.code() == Some(expected) && !stderr.contains("panicked"),
            "README command exited {:?}, not {expected} as documented: {run}\n{}\n{stderr}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout)
        );
        if expected == 1 {
            assert!(stderr.contains("FAILED: ") && !stderr.contains("error: "), "{stderr}");
        }
        if expected == 2 {
            assert!(stderr.contains("error: "), "{stderr}");
        }
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

/// Every exit status the README's "Exit status" paragraph names is one the binary gives:
/// 0, 1 and 2 by the README commands documenting them (run by `readme_commands_run`),
/// 130 here, by stopping a long swarm with SIGINT.
#[test]
fn every_documented_exit_status_is_checked() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let start = readme.find("Exit status, for scripts:").expect("the README's exit status paragraph");
    let paragraph = &readme[start..start + readme[start..].find("\n\n").unwrap()];
    let named: Vec<i32> = paragraph.split("**").skip(1).step_by(2).filter_map(|s| s.parse().ok()).collect();
    assert_eq!(named, vec![0, 1, 2, 130], "{paragraph}");
    let documented: Vec<i32> = readme_commands().iter().map(|c| documented_status(c)).collect();
    for status in [0, 1, 2] {
        assert!(documented.contains(&status), "no README command documents exit status {status}");
    }
    let bin = env!("CARGO_BIN_EXE_ssdlab");
    let child = Command::new(bin)
        .args(["swarm", "--seeds", "1000000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The README names every reproduction (`reproduce --help` lists them) with a command, and
/// every document under docs/ (issue 45: it listed four reproductions and half the docs).
#[test]
fn the_readme_names_every_reproduction_and_document() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let help = Command::new(env!("CARGO_BIN_EXE_ssdlab")).args(["reproduce", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let listed = help.split("(available: ").nth(1).and_then(|r| r.split(')').next()).expect("the list in --help");
    let names: Vec<&str> = listed.split(", ").filter(|n| *n != "all").collect();
    assert!(names.len() >= 9, "{listed}");
    let commands = readme_commands();
    for name in names {
        let command = format!("ssdlab reproduce {name}");
        assert!(commands.iter().any(|c| without_comment(c) == command), "the README has no `{command}`");
    }
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.extend(["docs/reproductions/README.md".to_string(), "docs/validation/".to_string()]);
    for doc in docs {
        assert!(readme.contains(&format!("`{doc}`")), "the README does not name `{doc}`");
    }
}
