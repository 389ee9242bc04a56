"""docs/python.md is a tested document: its ```python blocks run here, in order, in one
namespace, from a scratch folder with ../shared/traces beside it (a link to the real
traces), as a reader would run them from the repository."""

import os
import pathlib
import re
import subprocess
import sys

import pandas

from conftest import REPO, assert_rendered


def python_blocks(text: str):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_docs_python_md_runs(traces, tmp_path, monkeypatch, chromium):
    doc = REPO / "docs" / "python.md"
    blocks = python_blocks(doc.read_text())
    assert len(blocks) >= 5, f"too few python blocks in {doc}"
    (tmp_path / "shared").mkdir()
    os.symlink(traces.resolve(), tmp_path / "shared" / "traces")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    # The first block, the ten-line example, runs the way its text says a user runs it:
    # saved as a file, `python example.py`, in a process of its own (Dask's worker
    # processes import the file again: without its `__main__` guard this fails).
    script = work / "example.py"
    script.write_text(blocks[0])
    run = subprocess.run([sys.executable, str(script)], cwd=work, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"docs/python.md's example failed as a script:\n{run.stdout}\n{run.stderr}"
    assert "ftl.gc_victim" in run.stdout and "waf" in run.stdout, run.stdout
    namespace: dict = {"__name__": "__docs__"}
    for i, block in enumerate(blocks[1:], start=1):
        try:
            exec(compile(block, f"{doc}:block{i + 1}", "exec"), namespace)
        except Exception as e:
            raise AssertionError(f"docs/python.md block {i + 1} failed:\n{block}") from e
    for png in ["latency_cdf.png", "compare_cdf.png"]:
        assert (work / png).stat().st_size > 10_000, f"{png} looks empty"
    # The example's results are what the text says they are.
    assert namespace["r"].summary["host"]["requests"] == 10_000
    assert set(namespace["c"].runs) == {"baseline", "qds+ubs"}
    # The ten-line example: a 2 x 3 sweep on Dask, and a report that Chromium renders.
    table = pandas.read_csv(work / "sweep.csv")
    assert len(table) == 6 and (table.status == "ok").all(), table
    assert sorted(set(zip(table["ftl.gc_victim"], table.seed))) == sorted(
        (p, s) for p in ["greedy", "fifo"] for s in [1, 2, 3])
    assert (work / "sweep.csv").read_text().count("\n") == 7
    # pa-ssd-tlc's series interval (900 s) leaves the example trace one row: all its plots draw.
    assert_rendered(chromium(work / "report.html", tmp_path), 11)
    assert_rendered(chromium(work / "compare.html", tmp_path), 11)
