"""docs/python.md is a tested document: its ```python blocks run here, in order, in one
namespace, from a scratch folder with ../shared/traces beside it (a link to the real
traces), as a reader would run them from the repository."""

import os
import pathlib
import re

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
    namespace: dict = {"__name__": "__docs__"}
    for i, block in enumerate(blocks):
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
    table = namespace["table"]
    assert len(table) == 6 and (table.status == "ok").all(), table
    assert sorted(set(zip(table["ftl.gc_victim"], table.seed))) == sorted(
        (p, s) for p in ["greedy", "fifo"] for s in [1, 2, 3])
    assert (work / "sweep.csv").read_text().count("\n") == 7
    # pa-ssd-tlc's series interval (900 s) leaves the example trace one row: all its plots draw.
    assert_rendered(chromium(work / "report.html", tmp_path), 11)
    assert_rendered(chromium(work / "compare.html", tmp_path), 11)
