# Shared fixtures of the Python module's tests: the repository, the `simpulse` executable to compare against
# (both given by ctest through SIMPULSE_SOURCE_DIR and SIMPULSE_CLI, tests/CMakeLists.txt) and running it.
import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("SIMPULSE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("SIMPULSE_CLI", str(SOURCE_DIR / "build" / "engine" / "simpulse"))


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture
def run_cli(tmp_path):
    """Runs `simpulse run SCENE --out r.json ARGS...` and returns the result document."""

    def run(scene, *args):
        out = tmp_path / "r.json"
        done = subprocess.run([CLI, "run", str(scene), "--out", str(out), "--quiet", *args],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(out.read_text())

    return run
