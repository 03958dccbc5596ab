#!/usr/bin/env python3
"""Writes one-step scenes that each hold one large shape, to time shape creation through the CLI
(docs/BENCHMARKS.md, "Shapes of many points"): star and circle prisms (docs/polygons.md) and convex hulls of
points on a sphere, on two circles (a cylinder), on a near-flat disc with an apex, inside a cube, and on a
float-rounded rotated box face grid.

Usage: bench/large_shape_scenes.py DIR
then:  for f in DIR/*.json; do /usr/bin/time -f "$f %e s %M KB" build/engine/simpulse run $f --quiet --out /tmp/r.json; done
"""
import json
import math
import os
import random
import struct
import sys


def scene(shape):
    return {"simpulse": 1, "name": "large_shape", "dt": 0.01, "duration": 0.01,
            "bodies": [{"name": "ground", "static": True,
                        "shape": {"type": "plane", "normal": [0, 0, 1], "offset": 0}},
                       {"name": "shape", "shape": shape, "position": [0, 0, 2]}]}


def star(n, inner):
    return [[(0.5 if i % 2 == 0 else inner) * math.cos(2 * math.pi * i / n),
             (0.5 if i % 2 == 0 else inner) * math.sin(2 * math.pi * i / n)] for i in range(n)]


def sphere(rng, n):
    points = []
    for _ in range(n):
        z = rng.uniform(-1, 1)
        t = rng.uniform(0, 2 * math.pi)
        r = math.sqrt(1 - z * z)
        points.append([r * math.cos(t), r * math.sin(t), z])
    return points


def circles(m):
    return [[math.cos(2 * math.pi * i / m), math.sin(2 * math.pi * i / m), z] for z in (0, 1) for i in range(m)]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def box_grid(g):
    points = []
    a = 0.3
    for axis in range(3):
        for side in (-1, 1):
            for i in range(g + 1):
                for j in range(g + 1):
                    p = [0.0, 0.0, 0.0]
                    p[axis] = side * 0.37
                    p[(axis + 1) % 3] = -0.37 + 0.74 * i / g
                    p[(axis + 2) % 3] = -0.37 + 0.74 * j / g
                    x, y = p[0] * math.cos(a) - p[1] * math.sin(a), p[0] * math.sin(a) + p[1] * math.cos(a)
                    points.append([f32(x + 1.1), f32(y + 2.3), f32(p[2] + 0.7)])
    return points


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    scenes = {}
    for n in (250, 500, 1000, 1024, 2000, 4000):
        scenes[f"prism_star_{n}"] = {"type": "prism", "boundaries": [star(n, 0.35)], "thickness": 0.1}
    scenes["prism_circle_4000"] = {"type": "prism", "boundaries": [star(4000, 0.5)], "thickness": 0.1}
    for n in (4000, 4096, 20000, 100000):
        scenes[f"hull_sphere_{n}"] = {"type": "convex", "points": sphere(rng, n)}
    for m in (500, 1000, 2000, 2046, 4000, 20000):
        scenes[f"hull_cylinder_{2 * m}"] = {"type": "convex", "points": circles(m)}
    disc = [[math.cos(2 * math.pi * i / 20000), math.sin(2 * math.pi * i / 20000), 1e-9 * rng.random()]
            for i in range(20000)] + [[0, 0, 0.5]]
    scenes["hull_disc_20001"] = {"type": "convex", "points": disc}
    scenes["hull_cube_cloud_300000"] = {"type": "convex",
                                        "points": [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(300000)]}
    scenes["hull_box_grid_22326"] = {"type": "convex", "points": box_grid(60)}
    for name, shape in scenes.items():
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(scene(shape), f)


if __name__ == "__main__":
    main()
