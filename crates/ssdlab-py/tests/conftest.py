"""Shared fixtures: the real traces ($SSDLAB_TRACES or ../shared/traces beside the
repository) and the `ssdlab` binary ($SSDLAB_BIN, set by crates/ssdlab-cli/tests/python.rs,
or `ssdlab` on PATH) that the Python results are compared with."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def traces() -> pathlib.Path:
    folder = pathlib.Path(os.environ.get("SSDLAB_TRACES", REPO.parent / "shared" / "traces"))
    assert folder.is_dir(), f"trace folder {folder} missing: set SSDLAB_TRACES to the shared/traces folder"
    return folder


@pytest.fixture(scope="session")
def cli():
    """Runs the `ssdlab` binary; returns (exit status, stdout, stderr)."""
    binary = os.environ.get("SSDLAB_BIN") or shutil.which("ssdlab")
    assert binary, "no ssdlab binary: set SSDLAB_BIN (cargo test sets it) or put ssdlab on PATH"

    def call(*args: str):
        out = subprocess.run([binary, *args], capture_output=True, text=True)
        return out.returncode, out.stdout, out.stderr

    return call


@pytest.fixture(scope="session")
def cli_json(cli, tmp_path_factory):
    """The JSON report of `ssdlab run ARGS --json F --no-wall-clock --quiet`."""

    def call(*args: str, flag: str = "--json") -> dict:
        path = tmp_path_factory.mktemp("cli") / "out.json"
        status, out, err = cli(*args, flag if flag == "--json" else flag, str(path), "--no-wall-clock", "--quiet")
        assert status == 0, f"ssdlab {args} failed: {err}"
        return json.loads(path.read_text())

    return call


# The checks a page gets in Chromium: errors are caught from the first script on, and at
# the end of the body every plot is measured after layout (getBBox needs a drawn SVG).
_CATCH = """<script>window.__errors = [];
window.addEventListener('error', e => window.__errors.push('error: ' + e.message));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push('console.error: ' + a.join(' ')); __consoleError(...a); };
</script>"""
_MEASURE = """<script>
const plots = [...document.querySelectorAll('svg.plot')].map(svg => {
  const data = [...svg.querySelectorAll('path.line, path.bar')];
  const drawn = data.filter(p => { const b = p.getBBox(); return (p.getAttribute('d') || '').length > 3 && (b.width > 0 || b.height > 0); });
  const labels = [...svg.querySelectorAll('text.axis-label')].filter(t => t.textContent.trim() && t.getBBox().width > 0);
  const r = svg.getBoundingClientRect();
  return {title: svg.querySelector('title').textContent, paths: data.length, drawn: drawn.length,
          labels: labels.map(t => t.textContent), width: r.width, height: r.height};
});
const pre = document.createElement('pre');
pre.id = 'ssdlab-check';
pre.textContent = JSON.stringify({plots, errors: window.__errors});
document.body.appendChild(pre);
</script>"""

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium():
    """Renders an HTML file in headless Chromium (Debian's `chromium`, which .ci/run
    installs) and returns (the plots measured after layout, page errors, console lines
    Chromium logged, a screenshot as an RGB array)."""
    binary = os.environ.get("SSDLAB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    assert binary, "no chromium: install Debian's chromium package (apt-get install -y chromium; .ci/run does) or set SSDLAB_CHROMIUM"

    def render(html_path: pathlib.Path, tmp: pathlib.Path):
        import re
        import tempfile

        import matplotlib.image

        page = html_path.read_text(encoding="utf-8")
        checked = tmp / (html_path.stem + "-checked.html")
        checked.write_text(page.replace("<head>", "<head>" + _CATCH, 1).replace("</body>", _MEASURE + "</body>", 1),
                           encoding="utf-8")
        with tempfile.TemporaryDirectory() as profile:
            out = subprocess.run(
                [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                 "--dump-dom", checked.as_uri()],
                capture_output=True, text=True, timeout=120,
            )
        assert out.returncode == 0, f"chromium failed: {out.stderr}"
        found = re.search(r'<pre id="ssdlab-check">(.*?)</pre>', out.stdout, flags=re.S)
        assert found, f"the check script did not run:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
        import html as html_module

        result = json.loads(html_module.unescape(found.group(1)))
        console = [line for line in out.stderr.splitlines() if "CONSOLE" in line]
        png = tmp / (html_path.stem + ".png")
        with tempfile.TemporaryDirectory() as profile:
            shot = subprocess.run(
                [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1400,2400",
                 f"--screenshot={png}", html_path.resolve().as_uri()],
                capture_output=True, text=True, timeout=120,
            )
        assert shot.returncode == 0 and png.is_file(), f"chromium screenshot failed: {shot.stderr}"
        return result["plots"], result["errors"], console, matplotlib.image.imread(str(png))

    return render


def assert_rendered(render_result, expected_plots: int):
    """Every plot drawn (data paths with a size after layout, both axis labels), no page
    or console errors, and a screenshot that is not blank."""
    plots, errors, console, image = render_result
    assert errors == [] and console == [], f"errors in the page: {errors} {console}"
    assert len(plots) == expected_plots, [p["title"] for p in plots]
    for p in plots:
        assert p["drawn"] >= 1 and p["drawn"] == p["paths"], f"plot '{p['title']}' has undrawn data: {p}"
        assert len(p["labels"]) == 2, f"plot '{p['title']}' lacks axis labels: {p}"
        assert p["width"] > 300 and p["height"] > 150, p
    # A drawn page has many colours (lines, bars, text); a blank one has one.
    pixels = (image[:, :, :3] * 255).astype("uint8").reshape(-1, 3)
    import numpy as np

    assert len(np.unique(pixels, axis=0)) > 50, "the screenshot looks blank"
