# The sweep from Python (simpulse.run_sweep, simpulse.collect_sweep): the same point files and table as
# `simpulse sweep`, shards that skip what is done, and the CLI's checks as ValueErrors.
import json
import subprocess

import pytest

import simpulse
from conftest import CLI

SCENE = {"name": "throw", "dt": 0.01, "duration": 0.1,
         "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 1],
                     "velocity": [0, 0, 0]}]}
VARY = {"/dt": [0.01, 0.02], "/bodies/0/velocity/0": [1, 2, 3]}


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENE))
    return str(path)


def test_python_shards_give_the_cli_table(tmp_path, scene):
    out = str(tmp_path / "py")
    ran = []
    for i in range(3):
        points = simpulse.run_sweep(scene, VARY, out, shard=(i, 3))
        assert [p["point"] for p in points] == [k for k in range(6) if k % 3 == i], points
        assert all(p["ok"] and not p["skipped"] for p in points), points
        ran += [p["point"] for p in points]
    assert sorted(ran) == list(range(6))
    again = simpulse.run_sweep(scene, ["/dt=0.01,0.02", "/bodies/0/velocity/0=1,2,3"], out, shard="1/3")
    assert [p["skipped"] for p in again] == [True, True], again
    rows = simpulse.collect_sweep(out)

    cli_out = str(tmp_path / "cli")
    subprocess.run([CLI, "sweep", scene, "--vary", "/dt=0.01,0.02", "--vary", "/bodies/0/velocity/0=1,2,3",
                    "--out", cli_out, "--quiet"], check=True)
    subprocess.run([CLI, "sweep", "--collect", cli_out, "--quiet"], check=True)
    with open(f"{cli_out}/sweep.json") as f:
        assert rows == json.load(f)
    with open(f"{cli_out}/sweep.csv") as a, open(f"{out}/sweep.csv") as b:
        assert a.read() == b.read()
    assert [r["steps"] for r in rows] == [10, 10, 10, 5, 5, 5], rows


@pytest.mark.parametrize("kwargs,message", [
    ({"vary": ["/dt"]}, "--vary: expected /json/pointer=V1,V2"),
    ({"vary": {"/dt": 0.01}}, "vary[/dt]: expected a list of values"),
    ({"vary": {"/dtt": [1, 2]}}, "--vary: point 0 (/dtt=1)"),
    ({"vary": VARY, "shard": (3, 3)}, "--shard: expected i/N"),
    ({"vary": VARY, "shard": "0/0"}, "--shard: expected i/N"),
    ({"vary": VARY, "shard": (1,)}, "shard: expected (i, N)"),
])
def test_bad_sweeps_raise_value_error(tmp_path, scene, kwargs, message):
    with pytest.raises(ValueError) as error:
        simpulse.run_sweep(scene, out=str(tmp_path / "o"), **kwargs)
    assert message in str(error.value), str(error.value)


def test_collect_of_an_unfinished_sweep_names_the_missing_points(tmp_path, scene):
    out = str(tmp_path / "o")
    simpulse.run_sweep(scene, VARY, out, shard=(0, 2))
    with pytest.raises(ValueError, match=r"3 of 6 points missing \(1, 3, 5\)"):
        simpulse.collect_sweep(out)
