"""Errors carry the CLI's message; presets; compare against `ssdlab compare --json`."""

import json

import pandas as pd
import pytest

import ssdlab


def cli_error(cli, *args):
    status, _, err = cli(*args)
    assert status != 0
    assert err.startswith("error: "), err
    return err[len("error: "):].strip()


@pytest.mark.parametrize(
    "kwargs, args",
    [
        ({"set": {"ftl.gc_victm": "fifo"}}, ["--set", "ftl.gc_victm=fifo"]),
        ({"preset": "no-such"}, ["--preset", "no-such"]),
        ({"synthetic": {"read_fracton": 0.5}}, ["--synthetic", "read_fracton=0.5"]),
        ({"closed_loop": 0}, ["--closed-loop", "0"]),
        ({"set": {"geometry.channels": 0}}, ["--set", "geometry.channels=0"]),
    ],
)
def test_errors_carry_the_cli_message(cli, kwargs, args):
    with pytest.raises(ssdlab.SsdlabError) as e:
        ssdlab.run(**kwargs)
    assert str(e.value) == cli_error(cli, "run", "--quiet", *args)


def test_config_file_error_names_file_line_and_key(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[ftl]\ngc_victim = "fifo"\ngc_victm = 3\n')
    with pytest.raises(ssdlab.SsdlabError) as e:
        ssdlab.run(config=bad)
    message = str(e.value)
    assert message == cli_error(cli, "run", "--quiet", "--config", str(bad))
    assert f"{bad}:4" in message and "gc_victim" in message


def test_trace_error_names_file_and_line(cli, tmp_path):
    bad = tmp_path / "bad.ascii"
    bad.write_text("0 0 0 8 1\n100 0 8 8 1\n200 0 x 8 0\n")
    with pytest.raises(ssdlab.SsdlabError) as e:
        ssdlab.run(trace=bad, format="ssdsim")
    assert str(e.value) == cli_error(cli, "run", "--quiet", "--trace", str(bad), "--format", "ssdsim")
    assert f"{bad}:3" in str(e.value)


def test_config_dict_error_names_key():
    with pytest.raises(ssdlab.SsdlabError, match=r"config dict: unknown key 'chanels' \(did you mean 'channels'\?\)"):
        ssdlab.run(config={"geometry": {"chanels": 4}})
    with pytest.raises(ssdlab.SsdlabError, match="not both"):
        ssdlab.run(preset="small-tlc", config={})


def test_missing_trace():
    with pytest.raises(ssdlab.SsdlabError, match="nowhere.csv: cannot open"):
        ssdlab.run(trace="/nowhere.csv")


def test_presets_match_cli(cli):
    table = ssdlab.presets()
    assert list(table.columns) == ["cell", "raw_gib", "logical_gib", "description", "source"]
    _, out, _ = cli("presets")
    listed = [line.split()[0] for line in out.splitlines()[1:] if line and not line.startswith(" ")]
    assert list(table.index) == listed
    assert "small-tlc" in table.index and table.loc["pa-ssd-tlc", "cell"] == "tlc"
    config = ssdlab.preset_config("pa-ssd-tlc")
    assert config["name"] and "geometry" in config
    with pytest.raises(ssdlab.SsdlabError, match="no-such"):
        ssdlab.preset_config("no-such")


def test_compare_equals_cli_json(cli, traces, tmp_path):
    trace = traces / "umass_spc" / "example.ascii"
    c = ssdlab.compare(
        {"baseline": {}, "qds+ubs": {"pa.scheme": "qds+ubs", "flash.wordline_buffer": False}},
        preset="pa-ssd-tlc", trace=trace, format="ssdsim",
    )
    out = tmp_path / "c.json"
    # ssdlab.compare keeps every variant's series, as `compare --series` does (without it
    # the CLI records no series interval, and the config hashes differ).
    status, _, err = cli("compare", "--preset", "pa-ssd-tlc", "--trace", str(trace), "--format", "ssdsim",
                         "--variant", "baseline", "--variant", "qds+ubs:pa.scheme=qds+ubs,flash.wordline_buffer=false",
                         "--json", str(out), "--series", str(tmp_path / "s.csv"))
    assert status == 0, err
    assert c.summary == json.loads(out.read_text())
    for name, file in [("baseline", "s_baseline.csv"), ("qds+ubs", "s_qds+ubs.csv")]:
        assert c.runs[name]._series_csv == (tmp_path / file).read_bytes(), name
    assert c.baseline == "baseline" and list(c.runs) == ["baseline", "qds+ubs"]
    table = c.table
    assert table.loc["baseline", "read_norm"] == 1.0
    assert table.loc["qds+ubs", "waf"] == c.summary["variants"]["qds+ubs"]["waf"]
    for r in c.runs.values():
        assert len(r.requests) == 10_000
        assert r.series is not None and r.series.reads.sum() + r.series.writes.sum() == 10_000


def test_compare_cli_style_variants_and_serial():
    a = ssdlab.compare(["greedy", "slow:flash.program_latency_ns=[500000,2000000,7000000]"],
                       synthetic="count=2000", serial=True, requests=False)
    b = ssdlab.compare({"greedy": None, "slow": {"flash.program_latency_ns": [500000, 2000000, 7000000]}},
                       synthetic={"count": 2000})
    assert a.summary == b.summary
    assert a.runs["slow"].requests is None


def test_compare_errors_name_the_variant():
    with pytest.raises(ssdlab.SsdlabError, match="variant 'bad': --set ftl.gc_victm"):
        ssdlab.compare({"ok": {}, "bad": {"ftl.gc_victm": "fifo"}})
    with pytest.raises(ssdlab.SsdlabError, match="used twice"):
        ssdlab.compare(["a", "a"])
