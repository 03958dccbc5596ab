# Python and the CLI take the same steps: the same scene and overrides give bit-identical final states
# (compared as the doubles of the result document, which are written in round-trip form), the same contact
# events and the same result document apart from the wall time.
import pytest

import simpulse

SCENES = [
    ("scenes/barrels.json", "/duration=1", True),        # contacts and friction
    ("scenes/joint_types.json", "/duration=1", False),   # joints of every type, no contacts
    ("scenes/domino_chain.json", "/duration=0.6", True),  # a chain of impacts, 2000 steps
]


@pytest.mark.parametrize("scene,duration,contacts", SCENES)
def test_python_and_cli_states_are_bit_identical(source_dir, run_cli, scene, duration, contacts):
    cli = run_cli(source_dir / scene, "--set", duration)
    world = simpulse.load_scene(str(source_dir / scene), overrides=[duration])
    world.step(cli["steps"])
    assert world.steps == cli["steps"]
    assert world.time == cli["time"]
    result = world.result()
    del result["wall_s"], cli["wall_s"]
    # The whole document: events, bodies, energy, momenta, solver statistics, joints.
    assert result == cli
    for body in cli["bodies"]:
        # state() is the result document's body entry without the name, double for double.
        assert world.state(body.pop("name")) == body
    assert (len(cli["events"]) > 0) == contacts, cli["events"]
    assert ("joints" in cli) == (not contacts), "joint_types.json compares joint reactions"


def test_stepping_in_pieces_equals_one_call(source_dir):
    path = str(source_dir / "scenes/barrels.json")
    a, b = simpulse.load_scene(path), simpulse.load_scene(path)
    a.step(120)
    for _ in range(4):
        b.step(30)
    assert (a.positions() == b.positions()).all()
    assert a.result()["events"] == b.result()["events"]
