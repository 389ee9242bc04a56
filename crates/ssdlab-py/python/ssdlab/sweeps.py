"""Sweeps: every point of a sweep (a base setup, axes, repetitions; docs/sweep.md) run
on this machine, on a Dask.distributed cluster or on Ray, into one tidy table.

The table is built by the same Rust code as ``ssdlab sweep`` (rows keyed by run index,
written in run order), so it is the same whatever the backend and the worker count. A
run that fails, and a run whose worker died more often than the scheduler retries it, is
a row with status ``error`` and the error, not an exception.

Command line (what ``ssdlab sweep --dask ADDRESS`` runs)::

    python -m ssdlab.sweeps --dask tcp://scheduler:8786 -o table.csv sweep.toml

It exits with status 2 when any run failed, as ``ssdlab sweep`` does (docs/sweep.md,
"Exit status and warnings"), unless ``--allow-failures``; the table is written either way.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from typing import Any, List, Mapping, Optional, Tuple, Union

from . import _native
from ._native import SsdlabError

__all__ = ["sweep", "main"]


def _toml_of(spec: Mapping[str, Any]) -> str:
    """A sweep given as a dict ({"base": {...}, "axis": [...], "repetitions": N}) as TOML."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, (str, os.PathLike)):
            return json.dumps(os.fspath(v))
        if isinstance(v, Mapping):
            return "{" + ", ".join(f"{json.dumps(str(k))} = {value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple, range)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise TypeError(f"sweep: cannot write {v!r} ({type(v).__name__}) as a TOML value")

    lines: List[str] = []
    unknown = set(spec) - {"base", "axis", "repetitions", "output"}
    if unknown:
        raise SsdlabError(f"sweep dict: unknown keys {sorted(unknown)} (base, axis, repetitions, output)")
    for key in ("repetitions", "output"):
        if key in spec:
            lines.append(f"{key} = {value(spec[key])}")
    lines.append("[base]")
    for k, v in (spec.get("base") or {}).items():
        lines.append(f"{json.dumps(str(k))} = {value(v)}")
    for axis in spec.get("axis") or []:
        lines.append("[[axis]]")
        for k, v in axis.items():
            lines.append(f"{json.dumps(str(k))} = {value(v)}")
    return "\n".join(lines) + "\n"


def _source(spec: Union[str, "os.PathLike[str]", Mapping[str, Any]]) -> Tuple[str, str, str]:
    """(TOML text, origin for errors, folder relative paths are relative to)."""
    if isinstance(spec, Mapping):
        return _toml_of(spec), "sweep dict", os.getcwd()
    path = os.fspath(spec)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SsdlabError(f"cannot read {path}: {e.strerror}") from None
    return text, path, os.path.dirname(os.path.abspath(path))


def _run_task(text: str, origin: str, folder: str, index: int, kill: Optional[Tuple[int, Optional[str]]] = None):
    """One run on a worker. ``kill`` is for the tests: (index, marker file) makes the
    worker process exit when it starts that run (once, when a marker file is given)."""
    if kill is not None and kill[0] == index:
        marker = kill[1]
        if marker is None or not os.path.exists(marker):
            if marker is not None:
                open(marker, "w").close()
            os._exit(1)
    from . import _native as native

    return native.sweep_run(text, origin, folder, index)


def _dask(client, text, origin, folder, todo, output, kill) -> List[List[str]]:
    from distributed import as_completed

    rows: List[List[str]] = []
    futures = {}
    for index in todo:
        # pure=False: a rerun of the same sweep must run again, not reuse the cluster's result.
        f = client.submit(_run_task, text, origin, folder, index, kill, pure=False)
        futures[f] = index
    for f in as_completed(list(futures)):
        index = futures[f]
        try:
            row = f.result()
        except Exception as e:  # a lost worker (KilledWorker), a failed task
            row = _native.sweep_error_row(text, origin, folder, index, _error_text(e))
        _finish_one(row, rows, output)
    return rows


def _ray(address, text, origin, folder, todo, output) -> List[List[str]]:
    try:
        import ray
    except ImportError:
        raise SsdlabError("the ray backend needs Ray: pip install 'ray[default]' (not installed)") from None
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    task = ray.remote(max_retries=3)(_run_task)
    pending = {task.remote(text, origin, folder, index): index for index in todo}
    rows: List[List[str]] = []
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            index = pending.pop(ref)
            try:
                row = ray.get(ref)
            except Exception as e:  # a lost worker after its retries, a failed task
                row = _native.sweep_error_row(text, origin, folder, index, _error_text(e))
            _finish_one(row, rows, output)
    return rows


def _error_text(e: BaseException) -> str:
    """A failed task's error for the table: without worker addresses, so it does not
    change from one cluster to the next."""
    name = type(e).__name__
    if name == "KilledWorker":
        return "KilledWorker: every worker that ran it died (the scheduler's allowed-failures retries were used up)"
    if "WorkerCrashedError" in name or "NodeDiedError" in name:
        return f"{name}: the worker running it died (after Ray's retries)"
    return f"{name}: {e}"


def _finish_one(row: List[str], rows: List[List[str]], output: Optional[str]) -> None:
    rows.append(row)
    if output is not None:
        _native.sweep_append(output, row)


def sweep(
    spec: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    output: Union[None, str, "os.PathLike[str]"] = None,
    *,
    client: Any = None,
    backend: Optional[str] = None,
    address: Optional[str] = None,
    jobs: Optional[int] = None,
    parquet: Union[None, str, "os.PathLike[str]"] = None,
    _kill: Optional[Tuple[int, Optional[str]]] = None,
):
    """Runs every point of a sweep and returns the table as a pandas DataFrame, one row
    per run: ``point``, ``repetition``, one column per axis, ``status`` (``ok`` or
    ``error``), ``error``, then the summary metrics (docs/sweep.md lists them).

    Args:
        spec: a sweep file (TOML, as ``ssdlab sweep`` reads it), or a dict with its
            sections: ``{"base": {...}, "axis": [{"key": ..., "values": [...]}, ...],
            "repetitions": N}``. Paths in a file are relative to its folder; in a dict,
            to the working folder.
        output: the CSV to write (default: the file's ``output``; none for a dict without
            one). Runs already in it with status ok are kept: a rerun resumes.
        client: a ``dask.distributed.Client``: the runs go to its cluster (a
            ``LocalCluster``, dask-jobqueue's SLURM / PBS clusters, a remote scheduler).
        backend: ``"local"`` (threads of this process, the default without a client),
            ``"dask"`` (``address`` is the scheduler's, or ``client``) or ``"ray"``
            (``address``: ``"auto"``, a cluster address, or None for a local Ray).
        jobs: runs at once with the local backend (default: all cores).
        parquet: also write the table as Parquet here (needs pyarrow or fastparquet).

    Raises:
        SsdlabError: a bad sweep (its file, line and key), or an output file holding
            another sweep's table. Failed runs are rows, not errors.
    """
    import pandas as pd

    text, origin, folder = _source(spec)
    _total, _header, file_output = _native.sweep_parse(text, origin, folder)
    out = os.fspath(output) if output is not None else file_output
    if backend is None:
        backend = "dask" if client is not None or address is not None else "local"
    if backend == "local":
        csv = _native.sweep_local(text, origin, folder, jobs or os.cpu_count() or 1, out)
    elif backend in ("dask", "ray"):
        todo = _native.sweep_begin(text, origin, folder, out) if out is not None else list(range(_total))
        if backend == "dask":
            own = None
            if client is None:
                if address is None:
                    raise SsdlabError("the dask backend needs client= (a distributed.Client) or address= (the scheduler's)")
                from distributed import Client

                client = own = Client(address)
            try:
                rows = _dask(client, text, origin, folder, todo, out, _kill)
            finally:
                if own is not None:
                    own.close()
        else:
            rows = _ray(address, text, origin, folder, todo, out)
        csv = _native.sweep_finish(text, origin, folder, rows, out)
    else:
        raise SsdlabError(f"sweep: unknown backend {backend!r} (local, dask or ray)")
    # Every column as text first, so an axis of labels never turns into numbers by accident;
    # then numbers where a whole column is numeric.
    table = pd.read_csv(io.StringIO(csv), dtype=str, keep_default_na=False)
    for column in table.columns:
        if column in ("status", "error", "config_hash"):
            continue
        converted = pd.to_numeric(table[column], errors="coerce")
        if converted.notna().sum() == (table[column] != "").sum():
            table[column] = converted
    if parquet is not None:
        try:
            table.to_parquet(os.fspath(parquet), index=False)
        except ImportError as e:
            raise SsdlabError(f"parquet={os.fspath(parquet)!r}: {e} (pip install pyarrow)") from None
    return table


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ssdlab.sweeps", description="Run an ssdlab sweep on Dask or Ray.")
    parser.add_argument("file", help="the sweep file (docs/sweep.md)")
    parser.add_argument("-o", "--output", help="the CSV table to write")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--dask", metavar="ADDRESS", help="the Dask scheduler, e.g. tcp://scheduler:8786")
    group.add_argument("--ray", metavar="ADDRESS", help="the Ray cluster (auto, or an address)")
    parser.add_argument("--jobs", type=int, help="runs at once with the local backend")
    parser.add_argument("--parquet", help="also write the table as Parquet")
    parser.add_argument("--allow-failures", action="store_true", help="exit 0 even when runs failed (expected failures)")
    args = parser.parse_args(argv)
    backend = "dask" if args.dask else "ray" if args.ray else "local"
    try:
        table = sweep(args.file, args.output, backend=backend, address=args.dask or args.ray, jobs=args.jobs, parquet=args.parquet)
    except SsdlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = int((table["status"] != "ok").sum())
    where = f" in {args.output}" if args.output else ""
    print(f"sweep: {len(table)} runs ({failed} failed){where}")
    # (A script chaining the sweep with its plots must stop on a table with holes in it.)
    if failed and not args.allow_failures:
        print(
            f"error: sweep: {failed} of {len(table)} runs failed (their rows{where} say why; rerunning the "
            "command retries them; --allow-failures exits 0 when failed runs are expected)",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
