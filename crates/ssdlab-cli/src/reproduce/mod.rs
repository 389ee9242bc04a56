//! `ssdlab reproduce NAME`: a paper's experiments on the traces available here, written
//! as a markdown report beside the paper's reference numbers. The hand-written discussion
//! of differences lives in `docs/reproductions/NAME.discussion.md` (compiled in; a file
//! of that name beside `--out` overrides it) and is included verbatim (dir: as a template
//! filled from the run), so rerunning the command refreshes the numbers without losing it.
//!
//! This module owns the command's arguments, the dispatch by name (and `all`), the
//! discussions compiled in and the table header every report writes. What every
//! reproduction shares lives beside it: `claims` (verdicts, the claims table, the gate on
//! required checks, the discussion template filled from the run) and `workloads` (a
//! manifest or built-in trace list, `--only`, the thesis' Table 7.2 stand-ins). Each paper
//! is one file or folder (`pa`, `spa`, `dir`, `ipu`, `cdc`, `wom`, `gordon`, `harey`,
//! `mango`, `mqsim_fast18`); in a folder, `mod.rs` writes the report and its claims and `jobs.rs` (ipu:
//! `workloads.rs`, pa: `long.rs`, its long-term experiment) runs the experiments. A paper
//! uses only these shared modules and the crate's helpers, never another paper's module.

pub mod cdc;
pub mod claims;
pub mod dir;
pub mod gordon;
pub mod harey;
pub mod ipu;
pub mod load;
pub mod mango;
pub mod mqsim_fast18;
pub mod pa;
pub mod spa;
pub mod wom;
pub mod workloads;

use anyhow::{bail, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct ReproduceArgs {
    pub name: String,
    pub traces: PathBuf,
    pub out: PathBuf,
    /// Multiplies every workload's length (trace runs, synthetic request counts).
    pub scale: f64,
    /// Only these workloads (by name); empty = all.
    pub only: Vec<String>,
    /// Write the workloads built in code here as traces instead of running (ipu only).
    pub save_workloads: Option<PathBuf>,
    /// No progress on stderr (`--quiet`); the report and the verdicts are the same.
    pub quiet: bool,
}

impl ReproduceArgs {
    /// The `--scale` flag as the command that wrote a report was given it (none at 1).
    pub(crate) fn scale_flag(&self) -> String {
        if self.scale != 1.0 {
            format!(" --scale {}", self.scale)
        } else {
            String::new()
        }
    }

    /// The flags that select what a report's run did, for its "Command:" line: `--scale`,
    /// `--traces DIR` when a manifest chose the workloads (DIR stands for the folder: no
    /// machine path in a report) and `--only`.
    pub(crate) fn run_flags(&self) -> String {
        let mut flags = self.scale_flag();
        if self.traces.join("manifest.toml").is_file() {
            flags.push_str(" --traces DIR");
        }
        if !self.only.is_empty() {
            flags.push_str(&format!(" --only {}", self.only.join(",")));
        }
        flags
    }
}

pub fn reproduce(args: ReproduceArgs) -> Result<()> {
    // A zero, negative or NaN scale would run empty or nonsensical workloads and still
    // overwrite the report.
    if !(args.scale.is_finite() && args.scale > 0.0) {
        bail!("--scale {}: must be a positive number (1 is the paper's size)", args.scale);
    }
    if args.save_workloads.is_some() && args.name != "ipu" {
        bail!(
            "--save-workloads is implemented for reproduce ipu only (it saves the Table 3 synthetic \
             workloads); {} builds none to save",
            args.name
        );
    }
    // `all` shows each paper's progress under its own name.
    if args.name != "all" {
        start_progress(&args.name, args.quiet);
    }
    let result = run_named(&args);
    PROGRESS.lock().expect("no panic holds the lock").take();
    result
}

fn run_named(args: &ReproduceArgs) -> Result<()> {
    match args.name.as_str() {
        "pa-ssd" => pa::pa_ssd(args),
        "spa-ssd" => spa::spa_ssd(args),
        "dir" => dir::dir(args),
        "ipu" => ipu::ipu(args),
        "ssd-cdc" => cdc::ssd_cdc(args),
        "wom-scrub" => wom::wom_scrub(args),
        "gordon" => gordon::gordon(args),
        "harey-tortoise" => harey::harey_tortoise(args),
        "mango" => mango::mango(args),
        "mqsim-fast18" => mqsim_fast18::mqsim_fast18(args),
        "all" => {
            // Every paper, each report beside the others (in `--out`'s folder).
            let dir = args.out.parent().map(Path::to_path_buf).unwrap_or_default();
            // A failed required check (exit 1) is not an error (exit 2): `all` exits 1 when
            // only checks failed.
            let (mut failed, mut errors) = (Vec::new(), 0);
            for name in [
                "pa-ssd",
                "spa-ssd",
                "dir",
                "ipu",
                "ssd-cdc",
                "wom-scrub",
                "gordon",
                "harey-tortoise",
                "mango",
                "mqsim-fast18",
            ] {
                let one = ReproduceArgs {
                    name: name.into(),
                    traces: args.traces.clone(),
                    out: dir.join(format!("{name}.md")),
                    scale: args.scale,
                    only: Vec::new(),
                    save_workloads: None,
                    quiet: args.quiet,
                };
                if let Err(e) = reproduce(one) {
                    eprintln!("reproduce {name}: {e:#}");
                    failed.push(name);
                    errors += usize::from(e.downcast_ref::<crate::GateFailed>().is_none());
                }
            }
            match (failed.is_empty(), errors) {
                (true, _) => Ok(()),
                (false, 0) => Err(crate::GateFailed(format!("reproduce all: {} failed", failed.join(", "))).into()),
                (false, _) => bail!("reproduce all: {} failed", failed.join(", ")),
            }
        }
        other => {
            bail!("no reproduction named '{other}'; available: pa-ssd, spa-ssd, dir, ipu, ssd-cdc, wom-scrub, gordon, harey-tortoise, mango, mqsim-fast18, all")
        }
    }
}

/// How far the reproduction running has got, on stderr: a line after its first
/// simulation, then at most one every few seconds (`sweep` and `swarm` say as much).
struct Progress {
    name: String,
    started: Instant,
    last: Option<Instant>,
    done: u64,
}

static PROGRESS: Mutex<Option<Progress>> = Mutex::new(None);

fn start_progress(name: &str, quiet: bool) {
    let progress = (!quiet).then(|| Progress { name: name.to_string(), started: Instant::now(), last: None, done: 0 });
    *PROGRESS.lock().expect("no panic holds the lock") = progress;
}

/// One simulation of a reproduction ([`crate::output::execute`], quiet), counted in the
/// progress on stderr; nothing of it reaches the report.
pub(crate) fn execute(
    prepared: crate::setup::Prepared,
    requests_csv: Option<&Path>,
    check: bool,
    quiet: bool,
) -> Result<crate::output::Outcome> {
    let outcome = crate::output::execute(prepared, requests_csv, check, quiet);
    if let Some(p) = PROGRESS.lock().expect("no panic holds the lock").as_mut() {
        p.done += 1;
        let now = Instant::now();
        if p.last.is_none_or(|last| now - last >= Duration::from_secs(PROGRESS_EVERY_S)) {
            p.last = Some(now);
            let s = if p.done == 1 { "" } else { "s" };
            eprintln!(
                "reproduce {}: {} simulation{s} done, {:.1} s",
                p.name,
                p.done,
                p.started.elapsed().as_secs_f64()
            );
        }
    }
    outcome
}

/// Seconds between two progress lines.
const PROGRESS_EVERY_S: u64 = 5;

pub(crate) fn write_header<'a>(md: &mut String, first: &str, names: impl Iterator<Item = &'a str>) -> Result<()> {
    let names: Vec<&str> = names.collect();
    writeln!(md, "| {first} | {} |", names.join(" | "))?;
    writeln!(md, "|---|{}", "---:|".repeat(names.len()))?;
    Ok(())
}

/// A report's hand-written discussion: `NAME.discussion.md` beside the report when there
/// is one (to edit it), else the project's, compiled in, so `--out` anywhere (or an
/// installed binary) keeps it.
pub fn discussion(out: &Path, name: &str) -> String {
    if let Ok(text) = std::fs::read_to_string(out.with_extension("discussion.md")) {
        return text;
    }
    match name {
        "pa-ssd" => include_str!("../../../../docs/reproductions/pa-ssd.discussion.md"),
        "spa-ssd" => include_str!("../../../../docs/reproductions/spa-ssd.discussion.md"),
        "dir" => include_str!("../../../../docs/reproductions/dir.discussion.md"),
        "ipu" => include_str!("../../../../docs/reproductions/ipu.discussion.md"),
        "ssd-cdc" => include_str!("../../../../docs/reproductions/ssd-cdc.discussion.md"),
        "wom-scrub" => include_str!("../../../../docs/reproductions/wom-scrub.discussion.md"),
        "gordon" => include_str!("../../../../docs/reproductions/gordon.discussion.md"),
        "harey-tortoise" => include_str!("../../../../docs/reproductions/harey-tortoise.discussion.md"),
        "mango" => include_str!("../../../../docs/reproductions/mango.discussion.md"),
        "mqsim-fast18" => include_str!("../../../../docs/reproductions/mqsim-fast18.discussion.md"),
        _ => "## Discussion\n\n(none written yet)",
    }
    .to_string()
}

/// The discussion of the run `args` describes: the hand-written one (a template, see
/// [`discussion`]). With a manifest and no `NAME.discussion.md` beside `--out`, the
/// hand-written text would describe the built-in workloads' run, which did not happen
/// (issue 43): a discussion that opens with [`ANY_RUN`] is kept, filled from this run,
/// without its passages between [`BUILT_IN`] and [`END_BUILT_IN`], and one note under its
/// heading says how many were left out and why; any other is replaced whole by a note
/// naming the reproduction and where its discussion is. The marker lines never reach a
/// report.
pub(crate) fn run_discussion(args: &ReproduceArgs, name: &str) -> String {
    let text = discussion(&args.out, name);
    let manifest = !args.out.with_extension("discussion.md").is_file() && args.traces.join("manifest.toml").is_file();
    for_run(&text, name, manifest)
}

/// A discussion's first line when it describes any run (the mechanism, the model's
/// choices, numbers filled from the run) except its marked passages.
pub(crate) const ANY_RUN: &str = "<!-- any run -->";
/// Opens a passage about the built-in workloads by name.
pub(crate) const BUILT_IN: &str = "<!-- built-in -->";
/// Closes it.
pub(crate) const END_BUILT_IN: &str = "<!-- /built-in -->";

/// The discussion `text` of reproduction `name` for a run with a manifest (`manifest`) or
/// the built-in list.
fn for_run(text: &str, name: &str, manifest: bool) -> String {
    if manifest && !text.starts_with(ANY_RUN) {
        return format!(
            "## Discussion\n\n(The hand-written discussion of `{name}` explains the built-in workloads' results by \
             name, and records the runs on traces from outside; it is in the report of the built-in run, \
             docs/reproductions/{name}.md, and left out here: this run's workloads came from a manifest, and the \
             claims table and the tables above are this run's. Put a discussion for these workloads in a \
             `.discussion.md` file beside `--out` to include it.)"
        );
    }
    let mut out = String::new();
    let mut skipping = false;
    let mut left_out = 0;
    for line in text.split_inclusive('\n') {
        match line.trim_end() {
            ANY_RUN => {}
            BUILT_IN => {
                skipping = manifest;
                left_out += usize::from(manifest);
            }
            END_BUILT_IN => skipping = false,
            _ if skipping => {}
            _ => out.push_str(line),
        }
    }
    if left_out == 0 {
        return out;
    }
    // Said once, under the heading, rather than where each passage was.
    let s = if left_out == 1 { "" } else { "s" };
    let note = format!(
        "\n*({left_out} passage{s} about particular runs (the built-in workloads' results by name, the record \
         of the runs on traces from outside) left out: this run's workloads came from a manifest; \
         docs/reproductions/{name}.md has them.)*\n"
    );
    match out.find('\n') {
        Some(i) if out.starts_with("## ") => out.insert_str(i + 1, &note),
        _ => out.insert_str(0, &note),
    }
    out
}

pub fn default_traces() -> PathBuf {
    std::env::var_os("SSDLAB_TRACES").map(PathBuf::from).unwrap_or_else(|| Path::new("../shared/traces").to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_run_keeps_what_describes_any_run_and_says_once_what_it_left_out() {
        let text = format!(
            "{ANY_RUN}\n## Discussion\n\nmechanism\n\n{BUILT_IN}\nhm_1 was slow\n{END_BUILT_IN}\nend\n\
             {BUILT_IN}\nTPC-C too\n{END_BUILT_IN}\n"
        );
        assert_eq!(for_run(&text, "pa-ssd", false), "## Discussion\n\nmechanism\n\nhm_1 was slow\nend\nTPC-C too\n");
        let m = for_run(&text, "pa-ssd", true);
        assert!(m.starts_with("## Discussion\n\n*(2 passages"), "{m}");
        assert!(m.contains("mechanism") && m.contains("end") && !m.contains("hm_1") && !m.contains("TPC-C"), "{m}");
        assert_eq!(m.matches("left out").count(), 1, "{m}");
        // Not marked as describing any run: left out whole, the note naming where it is.
        let m = for_run("## Discussion\n\nhm_1 was slow\n", "dir", true);
        assert!(!m.contains("hm_1") && m.contains("left out") && m.contains("docs/reproductions/dir.md"), "{m}");
        assert_eq!(for_run("## Discussion\n\nhm_1\n", "dir", false), "## Discussion\n\nhm_1\n");
    }
}
