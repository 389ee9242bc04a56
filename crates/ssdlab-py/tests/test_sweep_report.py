"""ssdlab.sweep on every backend against the CLI's `ssdlab sweep`, Dask workers killed
mid-sweep, and the HTML report rendered in headless Chromium (issue 18 items 2 and 3)."""

import importlib.util
import os
import subprocess
import sys

import pandas as pd
import pytest

import ssdlab
from conftest import assert_rendered


def twelve_points(traces) -> str:
    """2 GC policies x 3 seeds x 2 workloads (a synthetic one, a real trace closed loop)."""
    return f"""
[base]
preset = "small-tlc"

[[axis]]
key = "ftl.gc_victim"
values = ["greedy", "fifo"]

[[axis]]
key = "seed"
range = {{ from = 1, to = 3 }}

[[axis]]
key = "workload"
values = [
  {{ name = "synthetic", synthetic = {{ count = 2000, read_fraction = 0.3 }} }},
  {{ name = "fin", trace = "{traces / 'umass_spc' / 'example.ascii'}", format = "ssdsim", closed_loop = 16 }},
]
"""


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of 2 worker processes; a run whose worker dies twice is bad."""
    import dask
    from distributed import Client, LocalCluster

    # One task per worker thread at a time (saturation 1.0): a worker killed on purpose then
    # takes only its own run with it, not runs merely queued on it.
    with dask.config.set({"distributed.scheduler.allowed-failures": 1,
                          "distributed.scheduler.worker-saturation": 1.0}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
            with Client(c) as client:
                yield client


def test_dask_cluster_gives_the_local_table(traces, tmp_path, cli, cluster):
    spec = tmp_path / "s.toml"
    spec.write_text(twelve_points(traces))
    local = ssdlab.sweep(spec, tmp_path / "local.csv", jobs=2)
    assert len(local) == 12 and (local.status == "ok").all(), local
    assert list(local.columns[:6]) == ["point", "repetition", "ftl.gc_victim", "seed", "workload", "status"]
    assert set(local.workload) == {"synthetic", "fin"}
    assert (local[local.workload == "fin"].requests == 10_000).all()
    dask_table = ssdlab.sweep(spec, tmp_path / "dask.csv", client=cluster)
    pd.testing.assert_frame_equal(dask_table, local)
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    # The CLI, with its local processes and through --dask on the same cluster.
    status, out, err = cli("sweep", str(spec), "-o", str(tmp_path / "cli.csv"), "--jobs", "2")
    assert status == 0, err
    assert (tmp_path / "cli.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    env = dict(os.environ, SSDLAB_PYTHON=sys.executable)
    binary = os.environ.get("SSDLAB_BIN") or "ssdlab"
    done = subprocess.run([binary, "sweep", str(spec), "-o", str(tmp_path / "cli-dask.csv"), "--dask",
                           cluster.scheduler.address], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "12 runs (0 failed)" in done.stdout, done.stdout
    assert (tmp_path / "cli-dask.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    # Resuming on Dask runs only what is missing.
    lines = (tmp_path / "dask.csv").read_text().splitlines(keepends=True)
    (tmp_path / "dask.csv").write_text("".join(lines[:5] + lines[9:]))  # runs 4..7 lost
    again = ssdlab.sweep(spec, tmp_path / "dask.csv", client=cluster)
    pd.testing.assert_frame_equal(again, local)


def test_killed_workers_runs_are_retried_or_recorded(traces, tmp_path, cluster):
    spec = tmp_path / "s.toml"
    spec.write_text(twelve_points(traces))
    local = ssdlab.sweep(spec, jobs=2)
    # The worker running run 3 dies once: the scheduler runs it again elsewhere.
    marker = tmp_path / "killed-once"
    retried = ssdlab.sweep(spec, tmp_path / "retried.csv", client=cluster, _kill=(3, str(marker)))
    assert marker.exists(), "the worker was not killed"
    pd.testing.assert_frame_equal(retried, local)
    # The worker running run 5 dies every time: the run is a row with its error.
    recorded = ssdlab.sweep(spec, tmp_path / "recorded.csv", client=cluster, _kill=(5, None))
    assert recorded.loc[5, "status"] == "error"
    assert recorded.loc[5, "error"].startswith("KilledWorker"), recorded.loc[5, "error"]
    # (A run that shared a dying worker may be lost with it; it is recorded the same way.)
    lost = recorded[recorded.status != "ok"]
    assert lost.error.str.startswith("KilledWorker").all(), lost.error
    others = recorded[recorded.status == "ok"]
    assert len(others) >= 10, recorded.status
    pd.testing.assert_frame_equal(others, local.loc[others.index], check_dtype=False)
    # A rerun retries the failed run (the cluster's workers are fine now).
    fixed = ssdlab.sweep(spec, tmp_path / "recorded.csv", client=cluster)
    pd.testing.assert_frame_equal(fixed, local)


def test_module_command_exits_2_when_a_run_failed(tmp_path, cluster):
    """`python -m ssdlab.sweeps --dask` (what `ssdlab sweep --dask` runs) exits 2 when a
    run failed, as `ssdlab sweep` does, and 0 with --allow-failures; the table is written
    both times. (It used to exit 0, so `python -m ssdlab.sweeps ... && python plot.py`
    plotted a table with holes in it.) The CLI through --dask keeps its own verdict."""
    spec = tmp_path / "s.toml"
    spec.write_text("""
[base]
preset = "small-tlc"

[[axis]]
key = "workload"
values = [
  { name = "synthetic", synthetic = { count = 500 } },
  { name = "missing", trace = "no-such-trace.csv", format = "msr" },
]
""")
    address = cluster.scheduler.address

    def module(*extra):
        out = tmp_path / "t.csv"
        if out.exists():
            out.unlink()
        done = subprocess.run([sys.executable, "-m", "ssdlab.sweeps", "--dask", address, "-o", str(out), *extra,
                               str(spec)], capture_output=True, text=True)
        return done, pd.read_csv(out, dtype=str, keep_default_na=False)

    done, table = module()
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "2 runs (1 failed)" in done.stdout, done.stdout
    assert "error: sweep: 1 of 2 runs failed" in done.stderr and "--allow-failures" in done.stderr, done.stderr
    assert list(table.status) == ["ok", "error"], table
    done, table = module("--allow-failures")
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert list(table.status) == ["ok", "error"], table
    env = dict(os.environ, SSDLAB_PYTHON=sys.executable)
    binary = os.environ.get("SSDLAB_BIN") or "ssdlab"
    for extra, status in (((), 2), (("--allow-failures",), 0)):
        done = subprocess.run([binary, "sweep", str(spec), "-o", str(tmp_path / f"cli{status}.csv"), "--dask", address,
                               *extra], capture_output=True, text=True, env=env)
        assert done.returncode == status, (extra, done.stdout, done.stderr)
        assert status == 0 or "error: sweep: 1 of 2 runs failed" in done.stderr, done.stderr


def test_sweep_dict_errors_and_backends(tmp_path):
    spec = {
        "base": {"preset": "small-tlc", "synthetic": {"count": 500}},
        "axis": [{"key": "ftl.gc_victim", "values": ["greedy", "fifo"]}],
        "repetitions": 2,
    }
    table = ssdlab.sweep(spec, parquet=tmp_path / "t.parquet")
    assert list(table.repetition) == [0, 1, 0, 1]
    assert table.requests.tolist() == [500] * 4
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "t.parquet"), table)
    bad = dict(spec, axis=[{"key": "ftl.gc_victm", "values": ["fifo"]}])
    with pytest.raises(ssdlab.SsdlabError, match=r"sweep dict:\d+: axis 'ftl.gc_victm'.*did you mean 'gc_victim'"):
        ssdlab.sweep(bad)
    with pytest.raises(ssdlab.SsdlabError, match="unknown backend"):
        ssdlab.sweep(spec, backend="slurm")
    if importlib.util.find_spec("ray") is None:
        with pytest.raises(ssdlab.SsdlabError, match="pip install 'ray"):
            ssdlab.sweep(spec, backend="ray")
    with pytest.raises(ssdlab.SsdlabError, match="cannot read"):
        ssdlab.sweep(tmp_path / "missing.toml")


def test_report_renders_in_chromium(traces, tmp_path, chromium, cli):
    trace = traces / "umass_spc" / "example.ascii"
    r = ssdlab.run(preset="small-tlc", trace=trace, format="ssdsim", speed=20, interval_ms=500)
    c = ssdlab.compare({"greedy": {}, "fifo": {"ftl.gc_victim": "fifo"}}, synthetic={"count": 4000},
                       set={"output.series_interval_ns": 100_000_000})
    path = tmp_path / "report.html"
    assert ssdlab.report({"fin": r, **c.runs}, path) == str(path)
    html = path.read_text()
    assert "<script" not in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")
    # 2 CDFs (read, write), 6 plots over time, 2 page-type plots, 1 erase-count plot.
    assert_rendered(chromium(path, tmp_path), 11)
    # The CLI's compare --html of a hybrid drive: SLC plots too (hit ratio, free SLC pages, migration).
    out = tmp_path / "hybrid.html"
    status, _, err = cli("compare", "--preset", "spa-ssd-hybrid", "--synthetic", "count=3000",
                         "--variant", "base", "--variant", "fifo:ftl.gc_victim=fifo", "--html", str(out))
    assert status == 0, err
    assert_rendered(chromium(out, tmp_path), 14)
