#!/usr/bin/env python3
"""Sharded data parallelism on this machine: memory and time, measured against predicted.

Trains the model of runtime_bench.py (OPT-350M as `sailor run` scales it: 24 blocks, hidden 256,
16 heads, vocabulary 256, sequence 64; global batch 8 in microbatches of 2, float32, AdamW, one
intra-op thread per process) as four data-parallel replicas, three ways:

  dp4          `sailor run`, every replica keeping the whole AdamW state (the plan's default)
  dp4-sharded  `sailor run` with "schedule": {"sharding": "optimizer"}: the gradients
               reduce-scattered, each replica updating its quarter with the state it alone
               keeps, the parameters all-gathered
  dp4-full     `sailor run` with "schedule": {"sharding": "full"}: parameters, gradients and
               optimizer state sharded, each block's parameters gathered before its forward and
               backward and freed after, its gradients reduce-scattered after every backward

in rounds (the order alternates), the first W iterations of each run dropped, medians. The runs
take --profile DIR (this machine's profile: taken first with `sailor profile --model OPT-350M
--microbatch-sizes 2 --tp 1`, or --profile-dir) and record their prediction from it
(run_started's prediction: iteration seconds and the peak memory of a worker). Measured memory
is a worker's peak resident set (the iteration events' peak_memory_bytes, the largest over
ranks and iterations). The bench compares the measured fall in a worker's peak (dp4's less
each sharded configuration's) with the predicted fall, and each configuration's time and memory with its
prediction. Prints a Markdown table and one JSON summary line (last line of stdout).

Usage: tests/bench/sharding_bench.py [--build build] [--profile-dir DIR] [--iterations N]
                                     [--warmup W] [--rounds R] [--no-priority]
"""

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_priority import take_priority
from overlap_bench import bench_args, local_profile, predicted_run
from runtime_bench import MODEL, ROOT

CONFIGS = ["dp4", "dp4-sharded", "dp4-full"]
SHARDING = {"dp4-sharded": "optimizer", "dp4-full": "full"}
REPLICA = {"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}
MIB = 2**20


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def plan(config):
    p = {"microbatch_size": MODEL["microbatch"],
         "stages": [{"first_layer": 0, "last_layer": 25, "replicas": [REPLICA] * 4}]}
    if config in SHARDING:
        p["schedule"] = {"sharding": SHARDING[config]}
    return p


def run_runtime(build, plan_path, prof, iterations, tmp):
    started, its = predicted_run("sharding_bench", build, plan_path, prof, iterations, tmp)
    return {"seconds": [e["iteration_seconds"] for e in its],
            "loss": [e["loss"] for e in its],
            "peak_bytes": max(r["peak_memory_bytes"] for e in its for r in e["ranks"]),
            "predicted_seconds": started["prediction"]["iteration_seconds"],
            "predicted_bytes": started["prediction"]["peak_memory_bytes"]}


def main():
    a = bench_args(__doc__, 10, 3, 2)
    priority = take_priority("sharding_bench", not a.no_priority)
    build = (ROOT / a.build).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="sharding-bench-"))
    prof = local_profile(build, tmp, a.profile_dir)
    plans = {}
    for name in CONFIGS:
        plans[name] = tmp / f"{name}.json"
        plans[name].write_text(json.dumps(plan(name)))
    load_before = os.getloadavg()[0]
    seconds = {c: [] for c in CONFIGS}
    peaks = {c: [] for c in CONFIGS}
    losses = {c: None for c in CONFIGS}
    predicted = {}
    for rnd in range(a.rounds):
        order = CONFIGS[rnd % len(CONFIGS):] + CONFIGS[:rnd % len(CONFIGS)]
        for c in order:
            res = run_runtime(build, plans[c], prof, a.iterations, tmp)
            these = res["seconds"][a.warmup:]
            if len(these) != a.iterations - a.warmup:
                sys.exit(f"sharding_bench: {c} reported {len(res['seconds'])} iterations")
            seconds[c] += these
            peaks[c].append(res["peak_bytes"])
            losses[c] = res["loss"]
            predicted[c] = (res["predicted_seconds"], res["predicted_bytes"])
            log(f"round {rnd + 1}/{a.rounds} {c:12s} median {statistics.median(these):.3f} s/it, "
                f"peak {res['peak_bytes'] / MIB:.0f} MiB (predicted "
                f"{res['predicted_bytes'] / MIB:.0f}), loss {res['loss'][0]:.4f} -> "
                f"{res['loss'][-1]:.4f}")
    med = {c: statistics.median(seconds[c]) for c in CONFIGS}
    peak = {c: statistics.median(peaks[c]) for c in CONFIGS}
    falls = {}
    for c in SHARDING:
        measured_fall = peak["dp4"] - peak[c]
        predicted_fall = predicted["dp4"][1] - predicted[c][1]
        falls[c] = {"measured_bytes": measured_fall, "predicted_bytes": predicted_fall,
                    "error": predicted_fall / measured_fall - 1 if measured_fall > 0 else None}
    same_losses = max(abs(x - y) / abs(y) for c in SHARDING
                      for x, y in zip(losses[c], losses["dp4"]))
    summary = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
        "priority": priority, "load_average_1min": [round(load_before, 2),
                                                    round(os.getloadavg()[0], 2)],
        "median_seconds": med, "peak_bytes": peak, "round_peaks": peaks,
        "predicted_seconds": {c: p[0] for c, p in predicted.items()},
        "predicted_bytes": {c: p[1] for c, p in predicted.items()},
        "falls": falls,
        "max_relative_loss_difference": same_losses,
    }
    print("| configuration | s/iteration | predicted s | error | worker peak MiB | predicted MiB "
          "| error |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c in CONFIGS:
        ps, pb = predicted[c]
        print(f"| {c} | {med[c]:.3f} | {ps:.3f} | {100 * (ps / med[c] - 1):+.1f}% | "
              f"{peak[c] / MIB:.0f} | {pb / MIB:.0f} | {100 * (pb / peak[c] - 1):+.1f}% |")
    print()
    for c, f in falls.items():
        print(f"{c}: worker peak falls by {f['measured_bytes'] / MIB:.0f} MiB measured, "
              f"{f['predicted_bytes'] / MIB:.0f} MiB predicted"
              + (f" ({100 * f['error']:+.1f}%)" if f["error"] is not None else ""))
    print(f"losses differ from dp4's by at most {same_losses:.2g} (relative)")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
