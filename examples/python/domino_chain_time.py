#!/usr/bin/env python3
"""The domino chain time against the spacing D, through the simpulse Python module, plotted to a PNG.

Runs scenes/domino/d2_friction.json (or --scene) once per D, setting the 27 dominoes' spacing with the override
/bodies/3/array/offset/0 (docs/domino.md), steps each world for the scene's duration in a thread pool (World.step
releases the GIL, so the threads step in parallel), reads the chain time from the contact events of World.result()
(first striker-domino_1 contact to first domino_26-domino_27 contact, as `simpulse domino` does) and plots it
beside the thesis' measurement with matplotlib's Agg backend (no display needed).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/domino_chain_time.py --png chain_time.png
"""
import argparse
import concurrent.futures
import os
import pathlib
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

import simpulse  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SPACING = "/bodies/3/array/offset/0"
MEASURED = {0.01: 0.26, 0.02: 0.50, 0.03: 1.15}  # thesis table 1, +- 0.06 s


def first_contact(events, a, b):
    return next((e["t"] for e in events if e["type"] == "contact_begin" and {e["a"], e["b"]} == {a, b}), None)


def chain_time(scene, spacing, overrides):
    world = simpulse.load_scene(scene, overrides=[f"{SPACING}={spacing!r}", *overrides])
    world.run()  # the scene's duration, as `simpulse run` does
    events = world.result()["events"]
    start, end = first_contact(events, "striker", "domino_1"), first_contact(events, "domino_26", "domino_27")
    return None if start is None or end is None else end - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(REPO / "scenes/domino/d2_friction.json"))
    parser.add_argument("--spacings", default="0.010,0.0125,0.015,0.0175,0.020,0.0225,0.025,0.0275,0.030",
                        help="values of D in m, comma-separated")
    parser.add_argument("--set", action="append", default=[], metavar="/POINTER=VALUE",
                        help="further overrides, e.g. /dt=0.004166666666666667")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--png", default="domino_chain_time.png")
    args = parser.parse_args()
    spacings = [float(d) for d in args.spacings.split(",")]

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.threads) as pool:
        times = list(pool.map(lambda d: chain_time(args.scene, d, args.set), spacings))
    wall = time.perf_counter() - start
    for d, t in zip(spacings, times):
        print(f"D = {d * 100:5.2f} cm: chain time {'-' if t is None else f'{t:.3f} s'}")
    print(f"{len(spacings)} runs in {wall:.1f} s wall time on {args.threads} threads")

    fig, ax = plt.subplots(figsize=(6, 4))
    done = [(d * 100, t) for d, t in zip(spacings, times) if t is not None]
    ax.plot([d for d, _ in done], [t for _, t in done], "o-", label=f"simpulse ({pathlib.Path(args.scene).name})")
    ax.errorbar([d * 100 for d in MEASURED], list(MEASURED.values()), yerr=0.06, fmt="s", color="black",
                capsize=3, label="measured (thesis, table 1)")
    ax.set_xlabel("D, cm")
    ax.set_ylabel("chain time, s")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
