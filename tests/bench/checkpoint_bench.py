#!/usr/bin/env python3
"""What checkpoints cost training: `sailor run` with and without a checkpoint after every
iteration (docs/checkpoints.md).

Runs one plan (default tests/data/runtime/pp2-dp2.json: 2 stages x 2 replicas, 4 processes, 2
shards per checkpoint) in rounds, alternating `off` (no checkpoints) and `every-1`
(--checkpoint-every 1 --checkpoint-keep 2), each run in a fresh store directory, and reports per
configuration the median of

  wall   seconds between consecutive iteration events (what the run waits for, snapshot and any
         wait for the writer included: the worker copies its shard after it reports the
         iteration, so this is where a blocking checkpoint would show)
  iter   the iterations' own iteration_seconds (the slowest rank's step)

over the iterations after the first `--warmup`, the ratio every-1 / off of both, and for every-1
the checkpoint's size and the median background write time (serialise, write, fsync, rename).
Last line of stdout: one JSON summary.

Usage: tests/bench/checkpoint_bench.py [--build build] [--plan FILE] [--iterations N]
                                       [--warmup W] [--rounds R] [--hidden H] [--seq-len S]
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stamp(t):
    return datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def run(args, extra):
    with tempfile.TemporaryDirectory() as d:
        cmd = [os.path.join(args.build, "bin", "sailor"), "run", "--plan", args.plan,
               "--scenario", os.path.join(ROOT, "resources/scenarios/default.json"),
               "--job", os.path.join(ROOT, "tests/data/runtime/job.json"),
               "--iterations", str(args.iterations), "--hidden", str(args.hidden),
               "--seq-len", str(args.seq_len), "--store", os.path.join(d, "runs.sqlite")] + extra
        out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TMPDIR=d))
        if out.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {out.returncode}\n{out.stderr}")
        events = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    its = [e for e in events if e["event"] == "iteration"]
    times = [stamp(e["time"]) for e in its]
    kept = range(args.warmup + 1, len(its))
    return {"wall": [times[i] - times[i - 1] for i in kept],
            "iter": [its[i]["iteration_seconds"] for i in kept],
            "checkpoints": [e for e in events if e["event"] == "checkpoint"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--plan", default=os.path.join(ROOT, "tests/data/runtime/pp2-dp2.json"))
    p.add_argument("--iterations", type=int, default=12)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--seq-len", type=int, default=16)
    args = p.parse_args()
    configs = {"off": [], "every-1": ["--checkpoint-every", "1", "--checkpoint-keep", "2"]}
    results = {name: {"wall": [], "iter": [], "checkpoints": []} for name in configs}
    for r in range(args.rounds):
        order = list(configs) if r % 2 == 0 else list(reversed(configs))
        for name in order:
            got = run(args, configs[name])
            for k in results[name]:
                results[name][k] += got[k]
    summary = {}
    print("| configuration | wall s/iteration | iteration_seconds |")
    print("|---|---:|---:|")
    for name, r in results.items():
        summary[name] = {"wall": statistics.median(r["wall"]), "iter": statistics.median(r["iter"])}
        print(f"| {name} | {summary[name]['wall']:.4f} | {summary[name]['iter']:.4f} |")
    cps = results["every-1"]["checkpoints"]
    summary["ratio_wall"] = summary["every-1"]["wall"] / summary["off"]["wall"]
    summary["ratio_iter"] = summary["every-1"]["iter"] / summary["off"]["iter"]
    summary["checkpoint_bytes"] = cps[0]["bytes"] if cps else 0
    summary["checkpoint_write_seconds"] = statistics.median(c["write_seconds"] for c in cps)
    summary["checkpoints"] = len(cps)
    print(f"\nRatios every-1 / off: wall {summary['ratio_wall']:.3f}, "
          f"iteration_seconds {summary['ratio_iter']:.3f}; checkpoint "
          f"{summary['checkpoint_bytes'] / 2**20:.1f} MiB, background write "
          f"{summary['checkpoint_write_seconds']:.3f} s (median of {len(cps)})")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
