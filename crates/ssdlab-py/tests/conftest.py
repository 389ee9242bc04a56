"""Shared fixtures: the real traces ($SSDLAB_TRACES or ../shared/traces beside the
repository) and the `ssdlab` binary ($SSDLAB_BIN, set by crates/ssdlab-cli/tests/python.rs,
or `ssdlab` on PATH) that the Python results are compared with."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def traces() -> pathlib.Path:
    folder = pathlib.Path(os.environ.get("SSDLAB_TRACES", REPO.parent / "shared" / "traces"))
    assert folder.is_dir(), f"trace folder {folder} missing: set SSDLAB_TRACES to the shared/traces folder"
    return folder


@pytest.fixture(scope="session")
def cli():
    """Runs the `ssdlab` binary; returns (exit status, stdout, stderr)."""
    binary = os.environ.get("SSDLAB_BIN") or shutil.which("ssdlab")
    assert binary, "no ssdlab binary: set SSDLAB_BIN (cargo test sets it) or put ssdlab on PATH"

    def call(*args: str):
        out = subprocess.run([binary, *args], capture_output=True, text=True)
        return out.returncode, out.stdout, out.stderr

    return call


@pytest.fixture(scope="session")
def cli_json(cli, tmp_path_factory):
    """The JSON report of `ssdlab run ARGS --json F --no-wall-clock --quiet`."""

    def call(*args: str, flag: str = "--json") -> dict:
        path = tmp_path_factory.mktemp("cli") / "out.json"
        status, out, err = cli(*args, flag if flag == "--json" else flag, str(path), "--no-wall-clock", "--quiet")
        assert status == 0, f"ssdlab {args} failed: {err}"
        return json.loads(path.read_text())

    return call
