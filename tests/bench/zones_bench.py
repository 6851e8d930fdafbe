#!/usr/bin/env python3
"""Emulated zones against their prediction (docs/benchmarks.md "Emulated zones").

Runs `sailor run --emulate-zones` on a two-stage pipeline (the runtime's scaled OPT-350M, hidden
64, sequence 64, global batch 8 in microbatches of 2: 4 microbatches, float32; stage 0 = layers
0-12, stage 1 = 13-25) in three configurations, in rounds whose order rotates:

  one-zone     both stages in zone-a (tests/data/runtime/zones-pp2-one-zone.json)
  200mbit      stage per zone, zones joined at 200 Mbit/s (tests/data/runtime/zones-scenario.json)
  4mbit        stage per zone, zones joined at 4 Mbit/s (tests/bench/data/zones-scenario-4mbit.json)

drops each run's first iterations as warm-up and takes the median iteration_seconds of the rest.

Prediction of a two-zone configuration: the one-zone plan's measured median iteration (its
compute, pipeline bubbles and loopback transfers, measured in the same rounds) plus the
simulator's communication term for the stage-boundary transfers over the scenario's link between
the zones, less the same term over the one-zone plan's link (tests/bench/zone_predict:
boundaryTransferSeconds of each microbatch's activation and gradient, all on the critical path of
a two-stage pipeline with blocking transfers). The predicted slowdown is prediction / one-zone.

With --profile DIR (a `sailor profile` of this machine for the bench's model: `sailor profile
--model OPT-350M --hidden 64 --seq-len 64 --microbatch-sizes 2 --tp 1 --out DIR`), every run also
records the simulator's own prediction on that profile, its zones kept apart at the shaped links
(NOTE [Prediction over emulated zones]), and a second table compares each configuration and its
slowdown with those predictions: no measured baseline in them.

Needs root and iproute2 (as `sailor run --emulate-zones` does). Prints a Markdown table and one
JSON summary line (last line of stdout).

On a machine shared with other work, --nice N (negative: root only) runs `sailor run` and its
workers at that scheduling priority, so that the others' load changes the compute of the runs
less from one run to the next.

Usage: tests/bench/zones_bench.py [--build build] [--iterations N] [--warmup W] [--rounds R]
                                  [--nice N] [--profile DIR]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/data/runtime"
MODEL = ["--hidden", "64", "--seq-len", "64"]
CONFIGS = {
    "one-zone": (DATA / "zones-pp2-one-zone.json", DATA / "zones-scenario.json"),
    "200mbit": (DATA / "zones-pp2.json", DATA / "zones-scenario.json"),
    "4mbit": (DATA / "zones-pp2.json", ROOT / "tests/bench/data/zones-scenario-4mbit.json"),
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def predict_comm(build, plan, scenario):
    out = subprocess.run([str(build / "tests/bench/zone_predict"), "--scenario", str(scenario),
                          "--plan", str(plan), "--job", str(DATA / "job.json")] + MODEL,
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ, SAILOR_RESOURCES=str(ROOT / "resources")))
    return json.loads(out.stdout)


def run(build, name, iterations, warmup, store, profile=None):
    plan, scenario = CONFIGS[name]
    cmd = [str(build / "bin/sailor-run"), "run", "--plan", str(plan), "--scenario", str(scenario),
           "--job", str(DATA / "job.json"), "--iterations", str(iterations), "--store", store,
           "--emulate-zones"] + MODEL + (["--profile", str(profile)] if profile else [])
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, SAILOR_RESOURCES=str(ROOT / "resources")))
    events = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    if r.returncode != 0:
        sys.exit(f"{name}: sailor run exited {r.returncode}: {r.stderr[-500:]} {events[-1:]}")
    its = [e for e in events if e["event"] == "iteration"][warmup:]
    compute = [statistics.median(s["compute_seconds"] for e in its for s in e["stages"]
                                 if s["stage"] == k) for k in (0, 1)]
    started = next(e for e in events if e["event"] == "run_started")
    if profile and not started.get("prediction"):
        sys.exit(f"{name}: no prediction on {profile}: {started.get('prediction_note')}")
    predicted = started["prediction"]["iteration_seconds"] if profile else None
    return statistics.median(e["iteration_seconds"] for e in its), compute, predicted


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--profile")
    a = ap.parse_args()
    if a.nice:
        os.setpriority(os.PRIO_PROCESS, 0, a.nice)  # inherited by sailor run and its workers
    build = Path(a.build).resolve()
    comm = {n: predict_comm(build, *CONFIGS[n]) for n in CONFIGS}
    names = list(CONFIGS)
    medians = {n: [] for n in names}
    computes = {n: [] for n in names}
    simulated = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "runs.sqlite")
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                t, c, sim = run(build, n, a.iterations, a.warmup, store, a.profile)
                simulated[n] = sim
                log(f"round {r + 1} {n}: {t:.4f} s/iteration, stage compute {c[0]:.4f} {c[1]:.4f}"
                    + (f", predicted on the profile {sim:.4f}" if sim else ""))
                medians[n].append(t)
                computes[n].append(c)
    measured = {n: statistics.median(medians[n]) for n in names}
    base = measured["one-zone"]
    print("| configuration | measured s/iteration | round medians (s) | stage compute (s) "
          "| comm term (s) | predicted s/iteration | error | slowdown measured | predicted "
          "| error |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    summary = {"one_zone_s": base, "configs": {}}
    for n in names:
        c0 = statistics.median(c[0] for c in computes[n])
        c1 = statistics.median(c[1] for c in computes[n])
        rounds = ", ".join(f"{t:.3f}" for t in medians[n])
        term = comm[n]["comm_s"] - comm["one-zone"]["comm_s"]
        if n == "one-zone":
            print(f"| {n} | {base:.4f} | {rounds} | {c0:.3f}, {c1:.3f} | "
                  f"{comm[n]['comm_s']:.5f} | (baseline) | | 1 | 1 | |")
            continue
        predicted = base + term
        err = (measured[n] - predicted) / predicted
        slow, slow_pred = measured[n] / base, predicted / base
        slow_err = (slow - slow_pred) / slow_pred
        print(f"| {n} | {measured[n]:.4f} | {rounds} | {c0:.3f}, {c1:.3f} | {term:.4f} | "
              f"{predicted:.4f} | {err:+.1%} | {slow:.3f} | {slow_pred:.3f} | {slow_err:+.1%} |")
        summary["configs"][n] = {"measured_s": measured[n], "predicted_s": predicted,
                                 "comm_term_s": term, "error": err, "slowdown": slow,
                                 "predicted_slowdown": slow_pred,
                                 "message_bytes": comm[n]["message_bytes"]}
    if a.profile:
        print()
        print("| configuration | measured s/iteration | simulated on the profile | error "
              "| slowdown measured | simulated | error |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        summary["simulated"] = {}
        for n in names:
            sim, slow = simulated[n], measured[n] / base
            slow_sim = sim / simulated["one-zone"]
            print(f"| {n} | {measured[n]:.4f} | {sim:.4f} | {(measured[n] - sim) / sim:+.1%} | "
                  f"{slow:.3f} | {slow_sim:.3f} | {(slow - slow_sim) / slow_sim:+.1%} |")
            summary["simulated"][n] = {"predicted_s": sim, "measured_s": measured[n],
                                       "slowdown": slow, "predicted_slowdown": slow_sim}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
