#!/usr/bin/env python3
"""Overlapped gradient reduction on this machine: measured against predicted, and against DDP.

Trains the model of runtime_bench.py (OPT-350M as `sailor run` scales it: 24 blocks, hidden 256,
16 heads, vocabulary 256, sequence 64; global batch 8 in microbatches of 2, float32, AdamW, one
intra-op thread per process) as two data-parallel replicas, three ways:

  dp2          `sailor run`, the gradients summed after the pipeline drained (the plan's default
               schedule)
  dp2-overlap  `sailor run` with "schedule": {"overlap_grad_reduce": true}: each bucket's
               all-reduce starts during the last microbatch's backward
  ddp2         PyTorch DDP from Python over Gloo, two processes (plain_loop.py --world 2: its
               own overlapped buckets)

in rounds (the order rotates from round to round), the first W iterations of each run dropped,
medians. The runtime's runs take --profile DIR (this machine's profile: taken first with
`sailor profile --model OPT-350M --microbatch-sizes 2 --tp 1`, or --profile-dir) and record their
prediction from it (run_started's prediction): the bench compares the measured saving (dp2's
median less dp2-overlap's) with the predicted saving, and the runtime's tokens per second with
DDP's. Prints a Markdown table and one JSON summary line (last line of stdout).

Usage: tests/bench/overlap_bench.py [--build build] [--profile-dir DIR] [--iterations N]
                                    [--warmup W] [--rounds R] [--no-priority]
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_priority import take_priority
from runtime_bench import (DEBIAN_PYTHON, MODEL, ROOT, TOKENS_PER_ITERATION, busy_cpu_seconds,
                           ensure_python_torch, env_one_thread, model_args, own_cpu_seconds)

CONFIGS = ["dp2", "dp2-overlap", "ddp2"]
REPLICA = {"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def plan(overlap):
    p = {"microbatch_size": MODEL["microbatch"],
         "stages": [{"first_layer": 0, "last_layer": 25, "replicas": [REPLICA, REPLICA]}]}
    if overlap:
        p["schedule"] = {"overlap_grad_reduce": True}
    return p


def predicted_run(bench, build, plan_path, prof, iterations, tmp):
    """`sailor run` of the bench's model with --profile: (run_started, iteration events); exits
    when the run fails or records no prediction."""
    cmd = [str(build / "bin" / "sailor"), "run", "--plan", str(plan_path),
           "--scenario", "resources/scenarios/default.json", "--job", "tests/data/runtime/job.json",
           "--seq-len", str(MODEL["seq_len"]), "--iterations", str(iterations),
           "--profile", str(prof), "--store", str(Path(tmp) / "runs.sqlite")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env_one_thread(), cwd=ROOT)
    events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if r.returncode != 0:
        sys.exit(f"{bench}: {' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}")
    started = next(e for e in events if e.get("event") == "run_started")
    if "prediction" not in started:
        sys.exit(f"{bench}: no prediction recorded: {started.get('prediction_note')}")
    return started, [e for e in events if e.get("event") == "iteration"]


def run_runtime(build, plan_path, prof, iterations, tmp):
    started, its = predicted_run("overlap_bench", build, plan_path, prof, iterations, tmp)
    return {"seconds": [e["iteration_seconds"] for e in its],
            "loss": [e["loss"] for e in its],
            "dp_seconds": [max(r["dp_seconds"] for r in e["ranks"]) for e in its],
            "predicted": started["prediction"]["iteration_seconds"],
            "predicted_dp": started["prediction"]["breakdown"]["dp_sync_seconds"]}


def bench_args(doc, iterations, warmup, rounds):
    """The runtime benches' options: --build, --profile-dir, --iterations, --warmup, --rounds,
    --no-priority."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--profile-dir")
    ap.add_argument("--iterations", type=int, default=iterations)
    ap.add_argument("--warmup", type=int, default=warmup)
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--no-priority", action="store_true")
    return ap.parse_args()


def local_profile(build, tmp, profile_dir):
    """This machine's profile for the bench's model: --profile-dir, else taken into tmp."""
    prof = Path(profile_dir) if profile_dir else tmp / "profile"
    if not (prof / "profile.json").exists():
        cmd = [str(build / "bin" / "sailor"), "profile", "--model", "OPT-350M", "--out", str(prof),
               "--microbatch-sizes", str(MODEL["microbatch"]), "--tp", "1"]
        log("profiling: " + " ".join(cmd))
        subprocess.run(cmd, check=True, env=env_one_thread())
    return prof


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ddp(samples_file, iterations):
    port = free_port()
    cmd = [DEBIAN_PYTHON, str(ROOT / "tests" / "bench" / "plain_loop.py"), "--samples",
           str(samples_file), "--world", "2", "--port", str(port)] + model_args(iterations)
    procs = [subprocess.Popen(cmd + ["--rank", str(r)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env_one_thread(), cwd=ROOT)
             for r in range(2)]
    outs = [p.communicate() for p in procs]
    for p, (_, err) in zip(procs, outs):
        if p.returncode != 0:
            sys.exit(f"overlap_bench: {' '.join(cmd)} failed ({p.returncode}): {err[-2000:]}")
    its = [json.loads(line) for line in outs[0][0].splitlines() if line.startswith("{")]
    return {"seconds": [it["seconds"] for it in its], "loss": [it["loss"] for it in its]}


def main():
    a = bench_args(__doc__, 20, 4, 3)
    priority = take_priority("overlap_bench", not a.no_priority)
    build = (ROOT / a.build).resolve()
    torch_version = ensure_python_torch()
    tmp = Path(tempfile.mkdtemp(prefix="overlap-bench-"))
    prof = local_profile(build, tmp, a.profile_dir)
    plans = {}
    for name, overlap in (("dp2", False), ("dp2-overlap", True)):
        plans[name] = tmp / f"{name}.json"
        plans[name].write_text(json.dumps(plan(overlap)))
    samples_file = tmp / "samples.txt"
    with open(samples_file, "w") as f:
        subprocess.run([str(build / "tests" / "bench" / "plain_loop")] + model_args(a.iterations)
                       + ["--print-samples"], stdout=f, check=True)
    load_before = os.getloadavg()[0]
    kept = {c: [] for c in CONFIGS}
    medians = {c: [] for c in CONFIGS}
    predicted, exposed_dp, other_cores = {}, {c: [] for c in CONFIGS}, []
    for rnd in range(a.rounds):
        order = CONFIGS[rnd % len(CONFIGS):] + CONFIGS[:rnd % len(CONFIGS)]
        for c in order:
            t0, busy0, own0 = time.monotonic(), busy_cpu_seconds(), own_cpu_seconds()
            res = (run_ddp(samples_file, a.iterations) if c == "ddp2"
                   else run_runtime(build, plans[c], prof, a.iterations, tmp))
            wall = time.monotonic() - t0
            other = max(0.0, (busy_cpu_seconds() - busy0) - (own_cpu_seconds() - own0)) / wall
            other_cores.append(other)
            these = res["seconds"][a.warmup:]
            if len(these) != a.iterations - a.warmup:
                sys.exit(f"overlap_bench: {c} reported {len(res['seconds'])} iterations")
            kept[c] += these
            medians[c].append(statistics.median(these))
            if "predicted" in res:
                predicted[c] = (res["predicted"], res["predicted_dp"])
                exposed_dp[c].append(statistics.median(res["dp_seconds"][a.warmup:]))
            log(f"round {rnd + 1}/{a.rounds} {c:12s} median {medians[c][-1]:.3f} s/it, "
                f"other processes {other:.2f} cores, loss {res['loss'][0]:.3f} -> "
                f"{res['loss'][-1]:.3f}")
    med = {c: statistics.median(kept[c]) for c in CONFIGS}
    measured_saving = med["dp2"] - med["dp2-overlap"]
    predicted_saving = predicted["dp2"][0] - predicted["dp2-overlap"][0]
    summary = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
        "priority": priority, "torch_python": torch_version,
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "other_cores_max": round(max(other_cores), 2),
        "median_seconds": med, "round_medians": medians,
        "predicted_seconds": {c: p[0] for c, p in predicted.items()},
        "predicted_dp_seconds": {c: p[1] for c, p in predicted.items()},
        "measured_dp_wait_seconds": {c: statistics.median(v) for c, v in exposed_dp.items() if v},
        "measured_saving_seconds": measured_saving, "predicted_saving_seconds": predicted_saving,
        "saving_error": (predicted_saving / measured_saving - 1) if measured_saving > 0 else None,
        "runtime_overlap_over_ddp_tokens_per_s": med["ddp2"] / med["dp2-overlap"],
    }
    print("| configuration | s/iteration | tokens/s | round medians (s) | predicted s | "
          "dp wait measured / predicted (s) |")
    print("|---|---:|---:|---|---:|---|")
    for c in CONFIGS:
        pred = predicted.get(c)
        dp = summary["measured_dp_wait_seconds"].get(c)
        print(f"| {c} | {med[c]:.3f} | {TOKENS_PER_ITERATION / med[c]:.1f} | "
              f"{', '.join(f'{x:.3f}' for x in medians[c])} | "
              f"{f'{pred[0]:.3f}' if pred else '-'} | "
              f"{f'{dp:.3f} / {pred[1]:.3f}' if pred else '-'} |")
    print(f"\nsaving: measured {measured_saving:.3f} s, predicted {predicted_saving:.3f} s; "
          f"dp2-overlap / ddp2 tokens/s {summary['runtime_overlap_over_ddp_tokens_per_s']:.3f}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
