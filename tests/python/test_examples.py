# The Python examples run (small versions of what docs/scale-out.md runs): the Dask sweep merges a complete
# table, the chain-time script writes its PNG. Skipped where Dask or matplotlib is missing (CI installs both:
# .ci/install-deps).
import os
import pathlib
import subprocess
import sys

import pytest

import simpulse
from conftest import SOURCE_DIR

EXAMPLES = SOURCE_DIR / "examples" / "python"
SPACING = "/bodies/3/array/offset/0"


def run(script, *args, cwd):
    # The module these tests import, for the script and its worker processes.
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(simpulse.__file__).parent))
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_dask_sweep_merges_a_complete_table(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "sweep"
    stdout = run("dask_sweep.py", "--scene", str(SOURCE_DIR / "scenes/domino_chain.json"),
                 "--vary", f"{SPACING}=0.01,0.02", "--set", "/duration=0.05", "--shards", "2", "--workers", "1",
                 "--out", str(out), cwd=tmp_path)
    lines = (out / "sweep.csv").read_text().splitlines()
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"point,{SPACING},ok,steps"), lines[0]
    assert "2 points, 2 shards on 1 workers" in stdout, stdout


def test_chain_time_plot_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "chain.png"
    stdout = run("domino_chain_time.py", "--spacings", "0.01,0.015", "--set", "/dt=0.004166666666666667",
                 "--set", "/duration=1", "--threads", "2", "--png", str(png), cwd=tmp_path)
    assert png.read_bytes().startswith(b"\x89PNG"), "not a PNG"
    assert "D =  1.00 cm: chain time 0." in stdout, stdout
