//! The Python package's tests (issue 18), run by the README's test command: this test
//! makes a virtual environment under the target folder (once), installs pytest, pandas,
//! matplotlib, Dask (`dask[distributed]`, for the sweeps on a local cluster) and pyarrow
//! (the sweep table as Parquet) into it
//! from PyPI (pip's cache makes later runs quick), installs the
//! package with the plain `pip install ./crates/ssdlab-py` a user types (maturin builds
//! it in this test build's profile, so it reuses the crates `cargo test` just built), and
//! runs pytest on crates/ssdlab-py/tests with this `ssdlab` binary to compare against.
//! The HTML reports are opened in headless Chromium (Debian's `chromium`, which this test,
//! like .ci/run, installs with apt-get when missing; `$SSDLAB_CHROMIUM` names another
//! binary).
//!
//! Nothing here skips: no Python, no network to PyPI, a failed build or a failed Python
//! test fails this test with pip's or pytest's output.

use std::path::{Path, PathBuf};
use std::process::Command;

const PYTHON_PACKAGES: &[&str] = &["pytest", "pandas", "matplotlib", "dask[distributed]", "pyarrow"];

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).canonicalize().unwrap()
}

fn traces() -> PathBuf {
    let dir = std::env::var_os("SSDLAB_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/traces")));
    assert!(dir.is_dir(), "trace folder {} missing: set SSDLAB_TRACES to the shared/traces folder", dir.display());
    dir.canonicalize().unwrap()
}

/// Runs a command, failing the test with its output unless it succeeds.
fn must(command: &mut Command, what: &str) {
    let started = std::time::Instant::now();
    let out = command.output().unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed ({}):\n{command:?}\n{stdout}\n{stderr}", out.status);
    eprintln!("{:6.1} s  {what}", started.elapsed().as_secs_f64());
    if what.starts_with("pytest") {
        eprintln!("{stdout}");
    }
}

/// The HTML report tests need a headless Chromium: `$SSDLAB_CHROMIUM`, or Debian's
/// `chromium`, installed here with apt-get when missing and running as root (as .ci/run
/// does), so that the README's test command works on a fresh machine.
fn ensure_chromium() {
    let on_path = |name: &str| {
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
    };
    if std::env::var_os("SSDLAB_CHROMIUM").is_some() || on_path("chromium") || on_path("chromium-browser") {
        return;
    }
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    assert!(
        root,
        "headless Chromium is missing: apt-get install -y chromium (as root), or set SSDLAB_CHROMIUM to a Chromium binary"
    );
    must(Command::new("apt-get").args(["update", "-qq"]).env("DEBIAN_FRONTEND", "noninteractive"), "apt-get update");
    must(
        Command::new("apt-get").args(["install", "-y", "-qq", "chromium"]).env("DEBIAN_FRONTEND", "noninteractive"),
        "apt-get install chromium",
    );
}

#[test]
fn python_package_tests() {
    ensure_chromium();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ssdlab"));
    // target/<profile>/ssdlab: the package is built in the same profile and target folder.
    let profile_dir = bin.parent().unwrap();
    let target = profile_dir.parent().unwrap();
    let profile = match profile_dir.file_name().unwrap().to_str().unwrap() {
        "debug" => "dev".to_string(),
        other => other.to_string(),
    };
    let venv = target.join("python-venv");
    let python = venv.join("bin/python");
    if !python.is_file() {
        let host = std::env::var("SSDLAB_PYTHON").unwrap_or_else(|_| "python3".into());
        must(Command::new(&host).args(["-m", "venv"]).arg(&venv), "creating the virtual environment");
    }
    let pip = |args: &[&str]| {
        let mut c = Command::new(&python);
        c.args(["-m", "pip", "--disable-pip-version-check"]).args(args);
        c
    };
    must(
        pip(&["install", "--quiet"]).args(PYTHON_PACKAGES),
        "pip install pytest pandas matplotlib dask[distributed] pyarrow",
    );
    // The install a user does, from the repository; built in this profile into `target`.
    must(
        pip(&["install", "--quiet", "--force-reinstall", "--no-deps"])
            .arg(repo().join("crates/ssdlab-py"))
            .env("MATURIN_PEP517_ARGS", format!("--profile {profile}"))
            .env("CARGO_TARGET_DIR", target)
            .current_dir(repo()),
        "pip install ./crates/ssdlab-py",
    );
    // The Rust hot/cold design's binary (examples/hotcold), which the Python hot/cold
    // design is compared with (tests/test_design.py).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    must(
        Command::new(cargo)
            .args(["build", "--quiet", "--profile", &profile, "-p", "ssdlab-hotcold"])
            .env("CARGO_TARGET_DIR", target)
            .current_dir(repo()),
        "cargo build -p ssdlab-hotcold",
    );
    must(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(repo().join("crates/ssdlab-py/tests"))
            .env("SSDLAB_BIN", &bin)
            .env("SSDLAB_HOTCOLD_BIN", profile_dir.join("ssdlab-hotcold"))
            .env("SSDLAB_TRACES", traces())
            .env("MPLBACKEND", "Agg")
            .current_dir(repo()),
        "pytest crates/ssdlab-py/tests",
    );
    // The package's dependencies are declared: pip finds nothing missing.
    must(pip(&["check"]).current_dir(Path::new("/")), "pip check");
}
