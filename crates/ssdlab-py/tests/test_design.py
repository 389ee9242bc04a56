"""Designs written in Python (ssdlab.Design): the hot/cold example of examples/hotcold
written in Python gives the Rust design's report, byte for byte; errors in a design name
the design and the method."""

import json
import os
import pathlib
import subprocess

import pytest

import ssdlab


class HotCold(ssdlab.Design):
    """examples/hotcold/src/lib.rs in Python: a logical page written `threshold` times is
    hot; each class has its own user write point, and GC moves a page to its class's."""

    name = "hotcold"

    def __init__(self, threshold: int):
        self.threshold = threshold
        self.writes = {}
        self.counts = {"hot_writes": 0, "cold_writes": 0, "gc_moved_hot": 0, "gc_moved_cold": 0}

    def hot(self, lpn: int) -> bool:
        return self.writes.get(lpn, 0) >= self.threshold

    def place_write(self, lpn, plane):
        self.writes[lpn] = self.writes.get(lpn, 0) + 1
        hot = self.hot(lpn)
        self.counts["hot_writes" if hot else "cold_writes"] += 1
        return 1 if hot else 0

    def gc_page(self, lpn, plane):
        hot = self.hot(lpn)
        self.counts["gc_moved_hot" if hot else "gc_moved_cold"] += 1
        return 1 if hot else 0

    def report(self):
        return {"threshold": self.threshold, **self.counts}


SETUP = {"ftl.user_write_points": 2, "designs.hotcold.threshold": 3, "precondition.used_fraction": 0.9}
WORKLOAD = {"count": 20000, "read_fraction": 0.2, "distribution": "zipf:1.1", "block_size_bytes": 16384}


def rust_hotcold(tmp_path: pathlib.Path) -> dict:
    """The Rust design's report: examples/hotcold's binary, `ssdlab run` plus the design."""
    binary = os.environ.get("SSDLAB_HOTCOLD_BIN")
    assert binary, "no ssdlab-hotcold binary: crates/ssdlab-cli/tests/python.rs builds it and sets SSDLAB_HOTCOLD_BIN"
    out = tmp_path / "rust.json"
    args = [binary, "--json", str(out), "--no-wall-clock", "--quiet"]
    for key, value in SETUP.items():
        args += ["--set", f"{key}={value}"]
    args += ["--synthetic", ",".join(f"{k}={v}" for k, v in WORKLOAD.items())]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def test_python_hot_cold_gives_the_rust_designs_report(tmp_path):
    expected = rust_hotcold(tmp_path)
    r = ssdlab.run(set=SETUP, synthetic=WORKLOAD, design=HotCold(3), series=False, requests=False)
    section = r.summary["designs"]["hotcold"]
    assert section == expected["designs"]["hotcold"]
    assert section["hot_writes"] > 1000 and section["gc_moved_cold"] > 0, section
    assert r.summary["gc"]["moved_pages"] == section["gc_moved_hot"] + section["gc_moved_cold"]
    assert r.summary["gc"]["moved_pages"] > 0
    # The whole report: every statistic of the run, not only the design's counters.
    assert r.summary == expected


def test_without_the_design_the_run_is_the_baselines(tmp_path):
    with_design = ssdlab.run(set=SETUP, synthetic=WORKLOAD, design=HotCold(3), series=False, requests=False)
    baseline_setup = {k: v for k, v in SETUP.items() if not k.startswith("designs.")}
    baseline = ssdlab.run(set=baseline_setup, synthetic=WORKLOAD, series=False, requests=False)
    assert "designs" not in baseline.summary
    assert baseline.summary["gc"]["moved_pages"] != with_design.summary["gc"]["moved_pages"]


class Broken(ssdlab.Design):
    def place_write(self, lpn, plane):
        if lpn % 7 == 3:
            raise ValueError("no plan for this page")
        return None


class OutOfRange(ssdlab.Design):
    name = "out-of-range"

    def place_write(self, lpn, plane):
        return 5


def test_an_exception_or_a_bad_answer_ends_the_run_naming_design_and_method():
    with pytest.raises(ssdlab.SsdlabError, match=r"design broken failed .*place_write\(\) raised ValueError: no plan"):
        ssdlab.run(synthetic={"count": 2000}, design=Broken())
    with pytest.raises(ssdlab.SsdlabError, match=r"design out-of-range .*write point 5; the drive has 1"):
        ssdlab.run(synthetic={"count": 2000}, design=OutOfRange())
    with pytest.raises(TypeError, match="ssdlab.Design"):
        ssdlab.run(synthetic={"count": 100}, design=object())


class Victims(ssdlab.Design):
    """Oldest-written closed block first (FIFO by last write), to see gc_victim used."""

    def __init__(self):
        self.calls = 0

    def gc_victim(self, plane, blocks):
        self.calls += 1
        return min(blocks, key=lambda b: (b[3], b[0]))[0]

    def report(self):
        return {"calls": self.calls}


def test_gc_victim_and_a_design_that_overrides_only_it():
    r = ssdlab.run(
        set={"precondition.used_fraction": 0.9}, synthetic={"count": 20000, "read_fraction": 0.0},
        design=Victims(), series=False, requests=False,
    )
    # Every victim GC starts on is the design's; the victims a GC step takes pages from
    # to fill a page set once the current one is empty are the FTL policy's (the
    # gc_victim hook's documented rule).
    calls = r.summary["designs"]["victims"]["calls"]
    assert 0 < calls <= r.summary["gc"]["victims"]
    assert calls > r.summary["gc"]["victims"] // 2
