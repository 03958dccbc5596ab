# The module's API: worlds from files and dicts, NumPy arrays of the state, bodies and joints created from
# Python with the engine's validation (ValueError naming the argument), and stepping without the GIL.
import math
import threading
import time

import numpy as np
import pytest

import simpulse

BALL_SCENE = {
    "dt": 0.01,
    "bodies": [
        {"name": "floor", "static": True, "shape": {"type": "plane", "normal": [0, 0, 1]}},
        {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 1], "velocity": [1, 0, 0]},
    ],
}


def test_dict_scene_loads_like_a_file():
    world = simpulse.load_scene(BALL_SCENE)
    assert world.body_names == ["floor", "ball"]
    assert world.dt == 0.01
    assert world.time == 0
    assert world.state("ball")["position"] == [0, 0, 1]
    assert world.state("ball")["orientation"] == {"w": 1, "x": 0, "y": 0, "z": 0}


def test_run_steps_to_the_duration_like_the_cli():
    world = simpulse.load_scene(BALL_SCENE, overrides=["/duration=0.5"])
    assert world.duration == 0.5
    world.step(20)
    world.run()  # the remaining 30 of 50 steps
    assert world.steps == 50 and world.time == pytest.approx(0.5, abs=1e-12), (world.steps, world.time)
    world.run()  # nothing left
    assert world.steps == 50


def test_numpy_arrays_reflect_steps():
    world = simpulse.load_scene(BALL_SCENE)
    before = world.positions()
    assert before.shape == (2, 3) and before.dtype == np.float64 and before.flags["C_CONTIGUOUS"]
    world.step(10)
    after = world.positions()
    # Semi-implicit Euler: after n steps x = x0 + v0 t, z = z0 - g t (t + dt) / 2.
    t, dt = 0.1, 0.01
    assert after[1, 0] == pytest.approx(0.1, abs=1e-12), after
    assert after[1, 2] == pytest.approx(1 - 9.81 * t * (t + dt) / 2, abs=1e-12), after
    assert (after[0] == before[0]).all(), "the static floor moved"
    assert list(after[1]) == world.state("ball")["position"]
    assert list(world.velocities()[1]) == world.state("ball")["velocity"]
    q = world.orientations()
    assert q.shape == (2, 4)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-12), q
    o = world.state("ball")["orientation"]
    assert list(q[1]) == [o["w"], o["x"], o["y"], o["z"]]
    # A fresh array per call: changing it changes nothing in the world.
    after[1, 2] = 100
    assert world.positions()[1, 2] != 100


def test_bodies_and_joints_from_python_match_the_scene_reader():
    # A pendulum built through the API steps exactly like the same pendulum read from a scene dict.
    scene = {
        "dt": 1 / 240,
        "bodies": [{"name": "bob", "shape": {"type": "sphere", "radius": 0.05}, "position": [1, 0, 0]}],
        "joints": [{"type": "ball", "name": "pivot", "bodies": ["bob", "world"], "anchor": [0, 0, 0]}],
    }
    read = simpulse.load_scene(scene)
    built = simpulse.World()
    built.create_body("bob", simpulse.sphere(0.05), position=(1, 0, 0),
                      orientation={"w": 1, "x": 0, "y": 0, "z": 0})
    built.add_joint("ball", "bob", "world", anchor=(0, 0, 0), name="pivot")
    read.step(240)
    built.step(240)
    assert built.state("bob") == read.state("bob")
    r = built.result()
    assert r["joints"][0]["name"] == "pivot" and r["joints"][0]["type"] == "ball"
    radius = math.dist(built.state("bob")["position"], (0, 0, 0))
    assert radius == pytest.approx(1.0, abs=1e-6), radius


def test_contacts_of_python_bodies_are_events():
    world = simpulse.World()
    world.create_body("floor", simpulse.plane((0, 0, 1), 0), static=True)
    world.create_body("box", simpulse.box((0.1, 0.1, 0.1)), position=(0, 0, 0.5), density=500)
    world.step(240)
    events = world.result()["events"]
    assert events and events[0]["a"] == "floor" and events[0]["b"] == "box", events
    assert world.state("box")["position"][2] == pytest.approx(0.1, abs=2e-3)


@pytest.mark.parametrize("call,field", [
    (lambda: simpulse.load_scene({"bodies": [{"name": "b", "shape": {"type": "sphere", "radius": -1}}]}),
     "/bodies/0/shape/radius"),
    (lambda: simpulse.load_scene({"dt": "fast"}), "/dt"),
    (lambda: simpulse.load_scene("no/such/scene.json"), "no/such/scene.json: cannot read"),
    (lambda: simpulse.load_scene(42), "path_or_dict"),
    (lambda: simpulse.load_scene(BALL_SCENE, overrides=["/bodies/9/mass=1"]), "/bodies/9"),
    (lambda: simpulse.sphere(-1), "radius"),
    (lambda: simpulse.box((1, 2)), "half_extents"),
    (lambda: simpulse.box((1, -2, 1)), "box half extent"),
    (lambda: simpulse.World().create_body("b", simpulse.sphere(1), density=-1), "density"),
    (lambda: simpulse.World().create_body("b", simpulse.sphere(1), position=(0, float("nan"), 0)), "position"),
    (lambda: simpulse.World().create_body("b", simpulse.sphere(1), orientation=(2, 0, 0, 0)), "orientation"),
    (lambda: simpulse.World().create_body("", simpulse.sphere(1)), "name"),
    (lambda: simpulse.World().create_body("b", simpulse.sphere(1), mass=1, density=1), "density"),
    (lambda: simpulse.load_scene(BALL_SCENE).create_body("ball", simpulse.sphere(1)), "name"),
    (lambda: simpulse.load_scene(BALL_SCENE).state("nobody"), "name"),
    (lambda: simpulse.load_scene(BALL_SCENE).add_joint("glue", "ball"), "type"),
    (lambda: simpulse.load_scene(BALL_SCENE).add_joint("ball", "bal"), "body_a"),
    (lambda: simpulse.load_scene(BALL_SCENE).add_joint("hinge", "ball", axis=(0, 0, 0)), "axis"),
    (lambda: simpulse.load_scene(BALL_SCENE).add_joint("hinge", "ball", limits=(1,)), "limits"),
    (lambda: simpulse.load_scene(BALL_SCENE).step(-1), "n"),
])
def test_bad_input_raises_value_error_naming_the_field(call, field):
    with pytest.raises(ValueError) as error:
        call()
    assert field in str(error.value), str(error.value)


def test_a_refused_body_leaves_the_world_as_it_was():
    world = simpulse.load_scene(BALL_SCENE)
    with pytest.raises(ValueError):
        world.create_body("b", simpulse.sphere(1), density=-1)
    assert world.body_names == ["floor", "ball"]
    world.step(1)


def test_a_non_finite_state_raises_runtime_error_naming_the_body():
    world = simpulse.load_scene({"gravity": [0, 0, -1e308], "dt": 1,
                                 "bodies": [{"name": "rock", "shape": {"type": "sphere", "radius": 1}}]})
    with pytest.raises(RuntimeError, match="rock"):
        world.step(10)


def test_stepping_releases_the_gil(source_dir):
    # While a thread is inside World.step, the main thread keeps taking the GIL: it counts its turns between
    # the thread's "stepping" and "done" marks. With the GIL held through the step it would get at most one or
    # two (before the step takes the GIL for good); released, it gets one per sleep(0) for the whole step.
    world = simpulse.load_scene(str(source_dir / "scenes/domino_chain.json"))
    stepping, done = threading.Event(), threading.Event()

    def step():
        stepping.set()
        world.step(2000)  # a few tenths of a second
        done.set()

    thread = threading.Thread(target=step)
    thread.start()
    stepping.wait()
    turns = 0
    while not done.is_set():
        turns += 1
        time.sleep(0)  # gives the GIL up and takes it again
    thread.join()
    assert world.steps == 2000
    assert turns >= 100, f"the main thread ran {turns} times while the world stepped: GIL held?"


def test_two_worlds_in_two_threads_match_one_thread():
    alone = simpulse.load_scene(BALL_SCENE)
    alone.step(200)
    worlds = [simpulse.load_scene(BALL_SCENE) for _ in range(2)]
    threads = [threading.Thread(target=w.step, args=(200,)) for w in worlds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in worlds:
        assert (w.positions() == alone.positions()).all()
        assert w.result()["events"] == alone.result()["events"]
