#!/usr/bin/env python3
"""The domino sweep over D on a Dask cluster: each task runs one shard with simpulse.run_sweep.

A dask.distributed LocalCluster (one single-threaded worker process per core; point it at a real scheduler
with --scheduler tcp://host:8786) gets N tasks, task i running shard i/N of the sweep into --out with the
simpulse Python module. The point files are the CLI's (`simpulse sweep`): a shard that died is simply submitted
again and skips the points already done, and the table is merged by simpulse.collect_sweep (the same as
`simpulse sweep --collect DIR`).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/dask_sweep.py --out /tmp/dask-sweep
"""
import argparse
import os
import pathlib
import time

from dask.distributed import Client, LocalCluster

REPO = pathlib.Path(__file__).resolve().parents[2]


def run_shard(scene, vary, out, index, count, overrides):
    import simpulse  # imported in the worker process

    points = simpulse.run_sweep(scene, vary, out, shard=(index, count), overrides=overrides)
    return [(p["point"], p["skipped"], p["ok"], round(p["wall_s"], 3)) for p in points]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(REPO / "scenes/domino/d2_friction.json"))
    parser.add_argument("--vary", action="append", default=None, metavar="/POINTER=V1,V2,...",
                        help="default: D = 1 to 3 cm in steps of 2.5 mm")
    parser.add_argument("--set", action="append", default=[], metavar="/POINTER=VALUE")
    parser.add_argument("--out", required=True, help="directory of the point files")
    parser.add_argument("--shards", type=int, default=None, help="tasks (default: 2 per worker)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--scheduler", default=None, help="address of a running Dask scheduler")
    args = parser.parse_args()
    vary = args.vary or ["/bodies/3/array/offset/0=0.01,0.0125,0.015,0.0175,0.02,0.0225,0.025,0.0275,0.03"]
    shards = args.shards or 2 * args.workers

    start = time.perf_counter()
    cluster = None
    if args.scheduler is None:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    with Client(args.scheduler or cluster) as client:
        futures = [client.submit(run_shard, args.scene, vary, args.out, i, shards, args.set, pure=False)
                   for i in range(shards)]
        for i, future in enumerate(futures):
            print(f"shard {i}/{shards}: points {future.result()}")
    if cluster is not None:
        cluster.close()
    wall = time.perf_counter() - start

    import simpulse

    rows = simpulse.collect_sweep(args.out)
    for row in rows:
        print({k: row[k] for k in row if k not in ("kinetic_energy", "potential_energy", "max_joint_error")})
    print(f"{len(rows)} points, {shards} shards on {args.workers} workers: {wall:.1f} s wall time "
          f"(cluster start included); table in {args.out}/sweep.csv")


if __name__ == "__main__":
    main()
