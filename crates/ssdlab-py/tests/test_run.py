"""ssdlab.run against the CLI: the same arguments give the same report."""

import json
import threading
import time
import warnings

import pandas as pd
import pytest

import ssdlab


def test_trace_run_equals_cli_json(traces, cli_json, tmp_path):
    trace = traces / "umass_spc" / "example.ascii"
    r = ssdlab.run(preset="pa-ssd-tlc", trace=trace, format="ssdsim", set={"ftl.gc_victim": "fifo"})
    series = tmp_path / "s.csv"
    expected = cli_json(
        "run", "--preset", "pa-ssd-tlc", "--trace", str(trace), "--format", "ssdsim",
        "--set", "ftl.gc_victim=fifo", "--series", str(series),
    )
    assert r.summary == expected
    assert r.summary["host"]["requests"] == 10_000
    assert r.config == expected["config"]
    assert r.config["ftl"]["gc_victim"] == "fifo"
    # The DataFrames hold what the CLI's CSVs hold.
    cli_series = pd.read_csv(series)
    pd.testing.assert_frame_equal(r.series, cli_series)


@pytest.mark.filterwarnings("ignore::ssdlab.SsdlabWarning")  # hm_1 addresses beyond small-tlc
def test_requests_frame_equals_cli_csv(traces, cli, tmp_path):
    trace = traces / "msr_cambridge" / "hm_1_short.csv"
    r = ssdlab.run(trace=trace, format="msr", closed_loop=16, interval_ms=50)
    csv = tmp_path / "r.csv"
    status, _, err = cli("run", "--quiet", "--trace", str(trace), "--format", "msr", "--closed-loop", "16",
                         "--interval-ms", "50", "--requests", str(csv))
    assert status == 0, err
    pd.testing.assert_frame_equal(r.requests, pd.read_csv(csv))
    assert list(r.requests.columns) == [
        "id", "run", "op", "offset_bytes", "size_bytes", "arrival_ns", "completion_ns", "latency_ns", "pages",
        "dominant_page_type", "read_retries",
    ]
    assert len(r.requests) == r.summary["host"]["requests"]
    assert (r.requests.latency_ns == r.requests.completion_ns - r.requests.arrival_ns).all()


def test_synthetic_and_flags_equal_cli(cli_json, tmp_path):
    r = ssdlab.run(synthetic={"count": 4000, "read_fraction": 0.5}, seed=7, runs=2, series=False, requests=False,
                   set=["flash.program_latency_ns=[500000,2000000,7000000]"])
    expected = cli_json("run", "--synthetic", "count=4000,read_fraction=0.5", "--seed", "7", "--runs", "2",
                        "--set", "flash.program_latency_ns=[500000,2000000,7000000]")
    assert r.summary == expected
    assert r.series is None and r.requests is None
    assert r.summary["config"]["output"]["series_interval_ns"] == 0  # as without --series


def test_series_columns():
    r = ssdlab.run(synthetic={"count": 3000}, interval_ms=100)
    cols = list(r.series.columns)
    assert cols[:12] == [
        "start_ns", "end_ns", "reads", "writes", "read_bytes", "write_bytes", "read_latency_mean_ns",
        "write_latency_mean_ns", "iops", "bandwidth_mib_s", "free_blocks", "erases",
    ]
    assert cols[12:] == ["free_pages_LSB", "free_pages_CSB", "free_pages_MSB", "slc_user_pages", "slc_free_pages",
                         "slc_migrated_pages", "read_retries", "intervals"]
    assert r.series.reads.sum() + r.series.writes.sum() == 3000
    assert (r.series.end_ns > r.series.start_ns).all()


def test_config_dict_equals_config_file(cli_json, tmp_path):
    config = ssdlab.preset_config("small-tlc")
    config["ftl"]["gc_victim"] = "cost-benefit"
    r = ssdlab.run(config=config, synthetic={"count": 2000}, series=False, requests=False)
    # The same config written as TOML by hand: only the changed key.
    toml = tmp_path / "c.toml"
    toml.write_text('[ftl]\ngc_victim = "cost-benefit"\n')
    from_preset = ssdlab.run(preset="small-tlc", set={"ftl.gc_victim": "cost-benefit"},
                             synthetic={"count": 2000}, series=False, requests=False)
    assert r.summary["config"] == from_preset.summary["config"]
    assert r.summary["all"] == from_preset.summary["all"]


def test_deterministic():
    a = ssdlab.run(synthetic={"count": 2000}, seed=3)
    b = ssdlab.run(synthetic={"count": 2000}, seed=3)
    assert a.summary == b.summary
    pd.testing.assert_frame_equal(a.requests, b.requests)
    assert "wall_seconds" in a.speed and "wall_seconds" not in a.summary


def test_warnings_are_python_warnings(traces):
    # hm_1 addresses beyond small-tlc's logical capacity: the report warns of wrapped requests.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ssdlab.run(trace=traces / "msr_cambridge" / "hm_1_short.csv", format="msr", series=False,
                       requests=False)
    assert r.warnings, "expected a warning in the report"
    assert [str(w.message) for w in caught if w.category is ssdlab.SsdlabWarning] == r.warnings


def test_gil_released_during_run():
    """Another Python thread keeps running while a simulation runs."""
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    try:
        start = time.perf_counter()
        r = ssdlab.run(synthetic={"count": 60000}, series=False, requests=False)
        elapsed = time.perf_counter() - start
    finally:
        done.set()
        t.join()
    assert r.summary["host"]["requests"] == 60000
    during = [x for x in ticks if start <= x <= start + elapsed]
    assert elapsed > 0.05, f"the run was too short to tell ({elapsed:.3f} s)"
    assert len(during) >= 5, f"the other thread ran {len(during)} times during a {elapsed:.2f} s run"


def test_repr_and_text():
    r = ssdlab.run(synthetic={"count": 1000})
    assert "RunResult small-tlc: 1000 requests" in repr(r)
    assert "write requests dominated by" in str(r)


def test_json_roundtrip_is_plain():
    r = ssdlab.run(synthetic={"count": 1000}, series=False, requests=False)
    assert json.loads(json.dumps(r.summary)) == r.summary
