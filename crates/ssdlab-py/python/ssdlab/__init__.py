"""ssdlab: a fast, deterministic, trace-driven SSD simulator, from Python.

Every function here runs the same code as the ``ssdlab`` command line (the Rust crates
are compiled into this package): keyword arguments map one to one onto the CLI's flags,
and a run's :attr:`RunResult.summary` is the JSON report ``ssdlab run --json FILE
--no-wall-clock`` writes (schema: docs/json-schema.md). The GIL is released while a
simulation runs; Ctrl-C (KeyboardInterrupt) stops it.

>>> import ssdlab
>>> r = ssdlab.run(preset="small-tlc", synthetic={"count": 2000})
>>> r.summary["host"]["requests"]
2000

See docs/python.md for a worked example.
"""

from __future__ import annotations

import io
import json
import os
import re
import warnings as _warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import SsdlabError

__all__ = [
    "run",
    "Design",
    "compare",
    "sweep",
    "report",
    "presets",
    "preset_config",
    "RunResult",
    "Comparison",
    "SsdlabError",
    "SsdlabWarning",
    "__version__",
]

__version__: str = _native.version()

PathLike = Union[str, "os.PathLike[str]"]
Value = Union[str, int, float, bool, Sequence[Any], Mapping[str, Any]]


class Design:
    """A flash-management design written in Python: subclass it, override any of the
    methods below, and pass an instance to :func:`run` (``design=MyDesign()``). Every
    method you do not override keeps the conventional FTL's behaviour (the baseline);
    only the ones you override are called. They are the Rust trait's hooks
    (``ssdlab_core::designs::Design``, ARCHITECTURE.md "Adding a design") with plain
    numbers in and out:

    - ``place_write(lpn, plane)``: a user write of logical page ``lpn`` is queued at
      ``plane`` (the plane allocator's choice); return the user write point (0 to
      ``ftl.user_write_points`` - 1) whose blocks it goes to, or None for the default.
      The write waits for room at that write point (GC frees blocks) rather than going
      to another's.
    - ``user_page(lpn, plane)``: the write is about to be programmed; return the write
      point to take its page from now, or None (the page of the write's own stream).
    - ``gc_victim(plane, blocks)``: ``plane`` needs GC and has no victim; ``blocks`` lists
      its closed blocks as ``(block, valid_pages, erase_count, last_write_ns)``; return
      one of those block numbers, or None for ``ftl.gc_victim``'s choice.
    - ``gc_page(lpn, plane)``: GC moves valid logical page ``lpn`` within ``plane``;
      return the write point it goes to, or None for the GC write point. (Overriding it
      keeps GC moves in the victim's plane.)
    - ``idle_work(die)``: ``die`` is idle and found nothing to do; return a plane of it
      to run one GC step on now, or None.
    - ``report()``: the design's report section, a JSON-able dict, found in the result
      as ``summary["designs"][name]``.

    ``name`` (a class attribute) names the design in the report and in errors, and its
    config section ``[designs.NAME]`` (``set={"designs.NAME.key": value}``), which the
    design may read from ``summary["config"]``; the default is the class name in lower
    case. An exception in a method, or an answer out of range (a write point the drive
    does not have, a block that is not a closed block of the plane), ends the run with an
    :class:`SsdlabError` naming the design and the method.

    A hook costs a call into Python (the simulation takes the GIL for it): docs/python.md
    gives the measured cost per call.
    """

    name: str = ""

    #: The methods a subclass may override.
    HOOKS: Tuple[str, ...] = ("place_write", "user_page", "gc_victim", "gc_page", "idle_work", "report")

    def place_write(self, lpn: int, plane: int) -> Optional[int]:
        return None

    def user_page(self, lpn: int, plane: int) -> Optional[int]:
        return None

    def gc_victim(self, plane: int, blocks: List[Tuple[int, int, int, int]]) -> Optional[int]:
        return None

    def gc_page(self, lpn: int, plane: int) -> Optional[int]:
        return None

    def idle_work(self, die: int) -> Optional[int]:
        return None

    def report(self) -> Dict[str, Any]:
        return {}

    def _overridden(self) -> List[str]:
        """The hook methods this object's class overrides."""
        return [h for h in Design.HOOKS if getattr(type(self), h) is not getattr(Design, h)]

    def _name(self) -> str:
        return self.name or type(self).__name__.lower()


class SsdlabWarning(UserWarning):
    """A warning in a run's report (``summary["warnings"]``), e.g. a saturated device or
    addresses wrapped beyond the drive. Issued once per run through :mod:`warnings`."""


def _toml_value(value: Any, quote_strings: bool = False) -> str:
    """A Python value as the text of a ``--set key=value`` value (TOML; a bare string
    is taken as it is, as on the command line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value) if quote_strings else value
    if isinstance(value, Mapping):
        items = ", ".join(f"{k} = {_toml_value(v, True)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, True) for v in value) + "]"
    raise TypeError(f"cannot pass {value!r} ({type(value).__name__}) as a config value")


def _overrides(values: Union[None, Mapping[str, Any], Iterable[str]]) -> List[str]:
    """``{"ftl.gc_victim": "fifo"}`` or ``["ftl.gc_victim=fifo"]`` as ``key=value`` strings."""
    if values is None:
        return []
    if isinstance(values, Mapping):
        return [f"{k}={_toml_value(v)}" for k, v in values.items()]
    if isinstance(values, str):
        raise TypeError("set= takes a dict {key: value} or a list of 'key=value' strings, not one string")
    return [str(v) for v in values]


def _setup_argv(
    *,
    preset: Optional[str] = None,
    config: Union[None, PathLike, Mapping[str, Any]] = None,
    set: Union[None, Mapping[str, Any], Iterable[str]] = None,
    trace: Optional[PathLike] = None,
    format: Optional[str] = None,
    synthetic: Union[None, str, Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    runs: Optional[int] = None,
    closed_loop: Optional[int] = None,
    speed: Optional[float] = None,
    burst: bool = False,
    burst_gap_us: Optional[float] = None,
    time_unit: Optional[str] = None,
    device: Union[None, str, int] = None,
    lenient: bool = False,
    sort_window: Optional[int] = None,
    time_window: Union[None, str, Tuple[float, float]] = None,
    job: Optional[PathLike] = None,
    workload: Optional[PathLike] = None,
    scenario: Optional[int] = None,
    trace_dir: Optional[PathLike] = None,
    power_loss_at: Union[None, str, float, Sequence[Union[str, float]]] = None,
    max_memory: Optional[str] = None,
    max_gap: Optional[float] = None,
) -> Tuple[List[str], Optional[str]]:
    """The CLI arguments of a setup, and the config dict as JSON (or None)."""
    argv: List[str] = []
    config_json = None
    if preset is not None:
        if config is not None:
            raise SsdlabError("give preset= or config=, not both (a config file or dict is a whole device)")
        argv += ["--preset", preset]
    if isinstance(config, Mapping):
        config_json = json.dumps(config)
    elif config is not None:
        argv += ["--config", os.fspath(config)]
    for item in _overrides(set):
        argv += ["--set", item]
    for flag, value in [
        ("--trace", trace),
        ("--job", job),
        ("--workload", workload),
        ("--trace-dir", trace_dir),
    ]:
        if value is not None:
            argv += [flag, os.fspath(value)]
    if synthetic is not None:
        text = synthetic if isinstance(synthetic, str) else ",".join(_overrides(synthetic))
        argv += ["--synthetic", text]
    if isinstance(time_window, tuple):
        time_window = f"{time_window[0]}:{time_window[1]}"
    if isinstance(power_loss_at, (str, int, float)):
        power_loss_at = [power_loss_at]
    for t in power_loss_at or []:
        argv += ["--power-loss-at", str(t)]
    for flag, value in [
        ("--format", format),
        ("--seed", seed),
        ("--runs", runs),
        ("--closed-loop", closed_loop),
        ("--speed", speed),
        ("--burst-gap-us", burst_gap_us),
        ("--time-unit", time_unit),
        ("--device", device),
        ("--sort-window", sort_window),
        ("--time-window", time_window),
        ("--scenario", scenario),
        ("--max-memory", max_memory),
        ("--max-gap", max_gap),
    ]:
        if value is not None:
            argv += [flag, str(value)]
    if burst:
        argv.append("--burst")
    if lenient:
        argv.append("--lenient")
    return argv, config_json


def _clean_error(e: SsdlabError) -> SsdlabError:
    # A config dict has no lines: drop the line numbers of its TOML rendering.
    text = re.sub(r"config dict:\d+", "config dict", str(e))
    return SsdlabError(text) if text != str(e) else e


def _frame(data: Optional[bytes]):
    import pandas as pd

    if data is None:
        return None
    return pd.read_csv(io.BytesIO(data))


class RunResult:
    """The result of one run (:func:`run`), or of one variant of a :func:`compare`.

    Attributes:
        summary: the JSON report as a dict, equal to what ``ssdlab run --json FILE
            --no-wall-clock`` writes for the same arguments (docs/json-schema.md).
        config: the resolved configuration (``summary["config"]``): the preset or config
            with every override and flag applied.
        warnings: the report's warnings (``summary["warnings"]``).
        speed: wall-clock measurements of the simulator (kept out of ``summary`` so
            that it is deterministic), as the JSON's ``simulator`` section.
        text: the terminal summary ``ssdlab run`` prints.
    """

    def __init__(self, summary: str, speed: str, text: str, series: Optional[bytes], requests: Optional[bytes]):
        self.summary: Dict[str, Any] = json.loads(summary)
        self.speed: Dict[str, float] = json.loads(speed)
        self.text: str = text
        self._series_csv = series
        self._requests_csv = requests
        self._series = None
        self._requests = None

    @property
    def config(self) -> Dict[str, Any]:
        return self.summary["config"]

    @property
    def warnings(self) -> List[str]:
        return list(self.summary.get("warnings", []))

    @property
    def series(self):
        """The time series as a pandas DataFrame: one row per interval (``interval_ms``),
        the columns of ``ssdlab run --series`` (start_ns, end_ns, reads, writes, …,
        iops, bandwidth_mib_s, free_blocks, erases, free_pages_<type>…, intervals; an
        idle gap is one row with its ``intervals`` count). None with ``series=False``."""
        if self._series is None and self._series_csv is not None:
            self._series = _frame(self._series_csv)
        return self._series

    @property
    def requests(self):
        """One row per completed request as a pandas DataFrame, the columns of ``ssdlab
        run --requests``: id, run, op, offset_bytes, size_bytes, arrival_ns,
        completion_ns, latency_ns, pages, dominant_page_type, read_retries. None with
        ``requests=False``."""
        if self._requests is None and self._requests_csv is not None:
            self._requests = _frame(self._requests_csv)
        return self._requests

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<ssdlab.RunResult {s['device']['preset']}: {s['host']['requests']} requests, "
            f"mean latency {s['all']['latency_ns']['mean'] / 1e3:.1f} us, WAF {s['waf']:.3f}>"
        )

    def __str__(self) -> str:
        return self.text


def _warn(results: Iterable[RunResult]) -> None:
    for r in results:
        for w in r.warnings:
            _warnings.warn(w, SsdlabWarning, stacklevel=3)


def run(
    *,
    preset: Optional[str] = None,
    config: Union[None, PathLike, Mapping[str, Any]] = None,
    set: Union[None, Mapping[str, Any], Iterable[str]] = None,
    trace: Optional[PathLike] = None,
    format: Optional[str] = None,
    synthetic: Union[None, str, Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    runs: Optional[int] = None,
    closed_loop: Optional[int] = None,
    speed: Optional[float] = None,
    burst: bool = False,
    burst_gap_us: Optional[float] = None,
    time_unit: Optional[str] = None,
    device: Union[None, str, int] = None,
    lenient: bool = False,
    sort_window: Optional[int] = None,
    time_window: Union[None, str, Tuple[float, float]] = None,
    job: Optional[PathLike] = None,
    workload: Optional[PathLike] = None,
    scenario: Optional[int] = None,
    trace_dir: Optional[PathLike] = None,
    power_loss_at: Union[None, str, float, Sequence[Union[str, float]]] = None,
    max_memory: Optional[str] = None,
    max_gap: Optional[float] = None,
    interval_ms: Optional[float] = None,
    check: bool = False,
    check_every: Optional[int] = None,
    verify: bool = False,
    series: bool = True,
    requests: bool = True,
    design: Optional[Design] = None,
) -> RunResult:
    """Simulates one device on one workload, as ``ssdlab run`` does.

    Every argument is the CLI flag of the same name (``closed_loop`` is
    ``--closed-loop``, and so on; see ``ssdlab run --help``), except:

    Args:
        config: a config file (ssdlab TOML, MQSim's ssdconfig.xml or SSDSim's
            page.parameters, recognised by content), or a dict with the TOML's sections
            (``{"geometry": {"channels": 4}, "ftl": {"gc_victim": "fifo"}}``); the keys
            not given take their defaults. Not with ``preset``.
        set: overrides on top, ``{"ftl.gc_victim": "fifo", "flash.program_latency_ns":
            [500000, 2000000, 7000000]}`` (or a list of ``"key=value"`` strings, as
            ``--set``). A string value is taken as the CLI takes it.
        synthetic: the synthetic workload's fields, ``{"count": 20000, "read_fraction":
            0.5}`` (or ``"count=20000,read_fraction=0.5"``).
        time_window: ``(start_s, end_s)`` or ``"start:end"``.
        power_loss_at: one time or a list (seconds, or strings with a unit: ``"1500ms"``).
        series: keep the time series (``--series``; the summary then equals the CLI's
            JSON with ``--series FILE``, which turns the series on in the config).
        requests: keep one row per request (``--requests``). Both cost memory on long
            runs.
        design: a :class:`Design` (a subclass instance) to run in the simulator; its
            report section is ``summary["designs"][design name]``.

    Returns:
        a :class:`RunResult`. The report's warnings are also issued as
        :class:`SsdlabWarning`.

    Raises:
        SsdlabError: a bad argument, config or trace, with the CLI's message (the file,
            line and key where there is one), or a failed run.
    """
    argv, config_json = _setup_argv(
        preset=preset,
        config=config,
        set=set,
        trace=trace,
        format=format,
        synthetic=synthetic,
        seed=seed,
        runs=runs,
        closed_loop=closed_loop,
        speed=speed,
        burst=burst,
        burst_gap_us=burst_gap_us,
        time_unit=time_unit,
        device=device,
        lenient=lenient,
        sort_window=sort_window,
        time_window=time_window,
        job=job,
        workload=workload,
        scenario=scenario,
        trace_dir=trace_dir,
        power_loss_at=power_loss_at,
        max_memory=max_memory,
        max_gap=max_gap,
    )
    if interval_ms is not None:
        argv += ["--interval-ms", str(interval_ms)]
    if check:
        argv.append("--check")
    if check_every is not None:
        argv += ["--check-every", str(check_every)]
    if verify:
        argv.append("--verify")
    native_design = None
    if design is not None:
        if not isinstance(design, Design):
            raise TypeError(f"design: expected an ssdlab.Design subclass instance, got {type(design).__name__}")
        native_design = (design, design._name(), design._overridden())
    try:
        out = _native.run(argv, config_json, series, requests, native_design)
    except SsdlabError as e:
        raise _clean_error(e) from None
    result = RunResult(*out)
    _warn([result])
    return result


class Comparison:
    """The result of :func:`compare`.

    Attributes:
        summary: the JSON ``ssdlab compare --json FILE`` writes: ``{"baseline": name,
            "variants": {name: report}}``.
        baseline: the name of the variant the table is normalised to.
        runs: each variant's :class:`RunResult`, by name, in the order given.
    """

    def __init__(self, summary: str, each: Sequence[Tuple[str, str, Optional[bytes], Optional[bytes]]]):
        self.summary: Dict[str, Any] = json.loads(summary)
        self.baseline: str = self.summary["baseline"]
        self.runs: Dict[str, RunResult] = {}
        for (name, report), (speed, text, series, requests) in zip(self.summary["variants"].items(), each):
            r = RunResult("{}", speed, text, series, requests)
            r.summary = report
            self.runs[name] = r

    @property
    def table(self):
        """The table ``ssdlab compare`` prints, as a DataFrame indexed by variant: mean
        read and write latency (µs), their ratio to the baseline, write p99 (µs), IOPS
        ratio, WAF, erases and the share of write requests dominated by the slowest page
        type (MSB on TLC)."""
        import pandas as pd

        base = self.runs[self.baseline].summary

        def ratio(value: float, of: float) -> float:
            return value / of if of > 0 else float("nan")

        rows = []
        for name, r in self.runs.items():
            s = r.summary
            shares = list((s.get("dominated_write_share") or {"": 0.0}).values())
            rows.append(
                {
                    "variant": name,
                    "read_mean_us": s["read"]["latency_ns"]["mean"] / 1e3,
                    "write_mean_us": s["write"]["latency_ns"]["mean"] / 1e3,
                    "read_norm": ratio(s["read"]["latency_ns"]["mean"], base["read"]["latency_ns"]["mean"]),
                    "write_norm": ratio(s["write"]["latency_ns"]["mean"], base["write"]["latency_ns"]["mean"]),
                    "write_p99_us": s["write"]["latency_ns"]["p99"] / 1e3,
                    "iops_norm": ratio(s["all"]["iops"], base["all"]["iops"]),
                    "waf": s["waf"],
                    "erases": s["gc"]["erases"],
                    "msb_dominated": shares[-1],
                }
            )
        return pd.DataFrame(rows).set_index("variant")

    def __repr__(self) -> str:
        return f"<ssdlab.Comparison of {', '.join(self.runs)} (baseline {self.baseline})>"


def compare(
    variants: Union[Mapping[str, Union[None, Mapping[str, Any], Iterable[str]]], Iterable[str]],
    *,
    baseline: Optional[str] = None,
    serial: bool = False,
    requests: bool = True,
    **setup: Any,
) -> Comparison:
    """Runs one workload under several config variants, as ``ssdlab compare`` does (in
    parallel on all cores unless ``serial``).

    Args:
        variants: ``{name: overrides}`` (overrides as for :func:`run`'s ``set``, or
            None / ``{}`` for the setup as it is), or CLI-style strings ``"name"`` /
            ``"name:key=value,key=value"``. The first is the baseline unless
            ``baseline`` names another.
        setup: the device and workload, with the keyword arguments of :func:`run`
            (``preset``, ``config``, ``set``, ``trace``, ``format``, ``synthetic``,
            ``seed``, …; not the per-run options such as ``check``).
        requests: keep each variant's per-request rows.

    Returns:
        a :class:`Comparison`: ``summary`` equals ``ssdlab compare --json``'s file; each
        variant's ``series`` is kept as the compare runs it (the config's interval).

    Raises:
        SsdlabError: as :func:`run`, naming the variant.
    """
    argv, config_json = _setup_argv(**setup)
    pairs: List[Tuple[str, List[str]]] = []
    if isinstance(variants, Mapping):
        for name, overrides in variants.items():
            pairs.append((str(name), _overrides(overrides)))
    else:
        # "name:k=v,k=v", split as the CLI splits --variant (brackets and quotes keep commas).
        try:
            pairs = [_native.parse_variant(str(text)) for text in variants]
        except SsdlabError as e:
            raise _clean_error(e) from None
    try:
        summary, each = _native.compare(argv, pairs, config_json, baseline, serial, requests)
    except SsdlabError as e:
        raise _clean_error(e) from None
    result = Comparison(summary, each)
    _warn(result.runs.values())
    return result


def presets():
    """The built-in device presets as ``ssdlab presets`` lists them: a DataFrame indexed
    by name with the columns cell, raw_gib, logical_gib, description, source."""
    import pandas as pd

    return pd.DataFrame(json.loads(_native.presets())).set_index("name")


def preset_config(name: str) -> Dict[str, Any]:
    """A preset's full configuration as a dict (every key, as the JSON report's
    ``config``), e.g. to edit and pass back as ``run(config=...)``."""
    try:
        return json.loads(_native.preset_config(name))
    except SsdlabError as e:
        raise _clean_error(e) from None


from .sweeps import sweep  # noqa: E402  (the module needs _native and SsdlabError above)


def report(
    results: Union[RunResult, Comparison, Mapping[str, RunResult], Sequence[Union[RunResult, Comparison]]],
    path: PathLike,
) -> str:
    """Writes a self-contained HTML report (summary table, latency CDFs per operation with
    the runs overlaid, throughput, latency, GC and SLC time series, page-type usage,
    erase-count distribution; inline SVG, no network needed), as ``ssdlab report`` does.

    Args:
        results: a :class:`RunResult`, a :class:`Comparison` (each variant), a dict
            ``{name: RunResult}``, or a list of these.
        path: the HTML file to write.

    Returns:
        the path written. The CDFs use each run's per-request rows and the plots over
        time its series when the run kept them (``requests=True``, ``series=True``).
    """
    named: List[Tuple[str, RunResult]] = []

    def add(name: str, r: Any) -> None:
        if isinstance(r, Comparison):
            named.extend(r.runs.items())
        elif isinstance(r, RunResult):
            named.append((name, r))
        else:
            raise TypeError(f"report: {r!r} is not a RunResult or Comparison")

    if isinstance(results, Mapping):
        for name, r in results.items():
            add(str(name), r)
    elif isinstance(results, (RunResult, Comparison)):
        add("run", results)
    else:
        for i, r in enumerate(results):
            add(f"run {i + 1}", r)
    runs = [(name, json.dumps(r.summary), r._series_csv, r._requests_csv) for name, r in named]
    html = _native.report_html(runs)
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        f.write(html)
    return os.fspath(path)
