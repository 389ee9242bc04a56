"""Type stubs of ssdlab._native, the compiled half of the package (crates/ssdlab-py/src/lib.rs).
Use the functions of ``ssdlab`` instead: they build these arguments."""

from typing import List, Optional, Sequence, Tuple

class SsdlabError(Exception):
    """An error from ssdlab, with the CLI's message (file, line and field where there is one)."""

def run(
    argv: Sequence[str], config_json: Optional[str] = None, series: bool = True, requests: bool = True
) -> Tuple[str, str, str, Optional[bytes], Optional[bytes]]:
    """``ssdlab run ARGV``: (summary JSON, speed JSON, terminal summary, series CSV, requests CSV)."""

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
