"""Type stubs of ssdlab._native, the compiled half of the package (crates/ssdlab-py/src/lib.rs).
Use the functions of ``ssdlab`` instead: they build these arguments."""

from typing import Any, List, Optional, Sequence, Tuple

class SsdlabError(Exception):
    """An error from ssdlab, with the CLI's message (file, line and field where there is one)."""

def run(
    argv: Sequence[str],
    config_json: Optional[str] = None,
    series: bool = True,
    requests: bool = True,
    design: Optional[Tuple[Any, str, List[str]]] = None,
) -> Tuple[str, str, str, Optional[bytes], Optional[bytes]]:
    """``ssdlab run ARGV``: (summary JSON, speed JSON, terminal summary, series CSV, requests CSV).
    ``design``: (a Python design object, its name, the hook methods it overrides)."""

def compare(
    argv: Sequence[str],
    variants: Sequence[Tuple[str, Sequence[str]]],
    config_json: Optional[str] = None,
    baseline: Optional[str] = None,
    serial: bool = False,
    requests: bool = True,
) -> Tuple[str, List[Tuple[str, str, Optional[bytes], Optional[bytes]]]]:
    """``ssdlab compare ARGV``: (compare JSON, per variant (speed JSON, summary, series CSV, requests CSV))."""

def presets() -> str:
    """The presets as JSON (a list of objects)."""

def preset_toml(name: str) -> str:
    """A preset's TOML (``ssdlab presets --show NAME``)."""

def preset_config(name: str) -> str:
    """A preset's full config as JSON."""

def parse_variant(text: str) -> Tuple[str, List[str]]:
    """``NAME:key=value,…`` as (name, overrides)."""

def version() -> str:
    """The version of the Rust crates."""

def sweep_parse(text: str, origin: str, folder: str) -> Tuple[int, List[str], Optional[str]]:
    """Checks a sweep (TOML): (runs, table columns, the file's output or None)."""

def sweep_run(text: str, origin: str, folder: str, index: int) -> List[str]:
    """Runs one run of a sweep here (without the GIL); its row (status error on failure)."""

def sweep_error_row(text: str, origin: str, folder: str, index: int, message: str) -> List[str]:
    """The row of a run that failed outside the simulation."""

def sweep_begin(text: str, origin: str, folder: str, output: str) -> List[int]:
    """Starts or resumes the output file; the run indices still to do."""

def sweep_append(output: str, row: Sequence[str]) -> None:
    """Appends a finished run's row to the output file."""

def sweep_finish(
    text: str, origin: str, folder: str, rows: Sequence[Sequence[str]], output: Optional[str] = None
) -> str:
    """The final table as CSV in run order (the file's rows and ``rows``); writes the file sorted."""

def sweep_local(text: str, origin: str, folder: str, jobs: int, output: Optional[str] = None) -> str:
    """Runs a sweep on ``jobs`` threads of this process; the table as CSV."""

def report_html(runs: Sequence[Tuple[str, str, Optional[bytes], Optional[bytes]]]) -> str:
    """The HTML report of (name, summary JSON, series CSV, requests CSV) runs."""
