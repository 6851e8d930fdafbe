#!/usr/bin/env python3
"""Spot preemptions replayed through the elastic runtime, against the whole-run model's
expectation (docs/planner.md, "Days and dollars"; engine/include/sailor/planning/campaign.hpp).

The model: a preemption of a spot pool's GPUs, where another replica of each stage holds the same
state, is handled in place and stands still twice (the GPUs leave, then come back), each time for
the run's reconfiguration figure (--reconfigure-s). The model's input is measured first, as a
user measures it on their cluster: a calibration replay of the same run with as many
preemptions, apart from the replays compared, whose median stand-still per change is passed as
--reconfigure-s. The bench then
asks the engine for the expectation: `sailor simulate --json --reconfigure-s R` of the plan below
on the default scenario with the plan's pools made spot at a small rate, for a job with a
training budget; the campaign's preemption pause over its preemptions handled in place is the
expected stand-still per preemption.

The replay: `sailor run` of the 4-process pp2-dp2 plan (tests/data/runtime/pp2-dp2.json, hidden
--hidden, sequence 16, global batch 8, float32) with a preemption trace: K times, two of the four
GPUs (one replica of each stage) go away and come back --period seconds later. Each change is a
`reconfigured` event; training stood still for the wall seconds between the iteration events
around it less the median iteration after it (reconfig_bench.py's measure). The measured lost
time per preemption is the sum over its two changes; the bench prints it against the model's,
and the whole replay's lost time against K times the model's.

Also printed, from the same engine: the whole run (the job's budget) on the plan's pools as spot
(at the scenario's spot price for the GPU type) against on-demand, days and total USD.

Usage: tests/bench/spot_replay_bench.py [--build build] [--hidden 256] [--preemptions 2]
                                        [--period 8] [--rounds 1]
Last line of stdout: one JSON summary.
"""

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from reconfig_bench import DATA, ROOT, follow, stamp

RATE = 1e-4  # preemptions per GPU-hour for the model: small, so that 2 lambda r << 1


def model(build, d, spot, reconfigure_s):
    """The engine's campaign of the plan on the default scenario, its pools spot or not."""
    with open(os.path.join(ROOT, "resources/scenarios/default.json")) as f:
        scenario = json.load(f)
    with open(os.path.join(DATA, "pp2-dp2.json")) as f:
        plan = json.load(f)
    used = {(r["zone"], r["gpu_type"]) for st in plan["stages"] for r in st["replicas"]}
    scenario = copy.deepcopy(scenario)
    # Spot at the scenario's own spot price for the type (its spot pool elsewhere).
    spot_price = {pool["gpu_type"]: pool["usd_per_gpu_hour"] for pool in scenario["pools"]
                  if pool.get("spot")}
    for pool in scenario["pools"]:
        if (pool["zone"], pool["gpu_type"]) in used:
            pool["spot"] = spot
            pool.pop("preemptions_per_gpu_hour", None)
            if spot:
                pool["preemptions_per_gpu_hour"] = RATE
                pool["usd_per_gpu_hour"] = spot_price.get(pool["gpu_type"], pool["usd_per_gpu_hour"])
    with open(os.path.join(DATA, "job.json")) as f:
        job = json.load(f)
    job["training_iterations"] = 100000
    paths = {}
    for name, body in (("scenario", scenario), ("job", job)):
        paths[name] = os.path.join(d, f"{name}-{'spot' if spot else 'on-demand'}.json")
        with open(paths[name], "w") as f:
            json.dump(body, f)
    out = subprocess.run([os.path.join(build, "bin", "sailor"), "simulate", "--scenario",
                          paths["scenario"], "--job", paths["job"], "--plan",
                          os.path.join(DATA, "pp2-dp2.json"), "--json",
                          "--reconfigure-s", f"{reconfigure_s:.4f}"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sailor simulate: exit {out.returncode}\n{out.stderr}")
    return json.loads(out.stdout)["campaign"]


def replay(args, d, k):
    trace = [{"Time": 0, "GPUs": 4}]
    for i in range(k):
        trace.append({"Time": (2 * i + 1) * args.period, "GPUs": 2})
        trace.append({"Time": (2 * i + 2) * args.period, "GPUs": 4})
    path = os.path.join(d, "trace.json")
    with open(path, "w") as f:
        json.dump(trace, f)
    cmd = [os.path.join(args.build, "bin", "sailor"), "run", "--plan",
           os.path.join(DATA, "pp2-dp2.json"), "--scenario",
           os.path.join(ROOT, "resources/scenarios/default.json"), "--job",
           os.path.join(DATA, "job.json"), "--hidden", str(args.hidden), "--seq-len", "16",
           "--global-batch", "8", "--store", os.path.join(d, "runs.sqlite"), "--iterations",
           "100000", "--trace", path, "--trace-time-scale", "1"]
    seen = {"after": 0}

    def stop(events):
        changes = sum(e["event"] == "reconfigured" for e in events)
        if changes >= 2 * k and events[-1]["event"] == "iteration":
            seen["after"] += 1
        return seen["after"] >= 3

    t0 = time.time()
    events = follow(cmd, d, stop)
    wall = time.time() - t0
    changes = [i for i, e in enumerate(events) if e["event"] == "reconfigured"]
    if len(changes) != 2 * k:
        sys.exit(f"spot_replay_bench: {len(changes)} reconfigurations, expected {2 * k}")
    stood = []
    for n, c in enumerate(changes):
        end = changes[n + 1] if n + 1 < len(changes) else len(events)
        before = [e for e in events[:c] if e["event"] == "iteration"]
        after = [e for e in events[c:end] if e["event"] == "iteration"]
        if not before or not after:
            sys.exit("spot_replay_bench: a change without iterations on both sides; raise --period")
        step = statistics.median(e["iteration_seconds"] for e in after)
        stood.append(stamp(after[0]["time"]) - stamp(before[-1]["time"]) - step)
    kinds = [f"{events[c]['old_world_size']}->{events[c]['new_world_size']}" for c in changes]
    lost = [e["iterations_lost"] for e in (events[c] for c in changes)]
    return {"stood_still": stood, "sizes": kinds, "iterations_lost": lost, "wall": wall}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--preemptions", type=int, default=2)
    p.add_argument("--period", type=float, default=8.0,
                   help="seconds between a preemption and the GPUs' return, and between returns "
                        "and the next preemption")
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
    k = args.preemptions
    with tempfile.TemporaryDirectory() as d:
        load_before = os.getloadavg()[0]
        calibration = replay(args, d, k)
        reconfigure_s = statistics.median(calibration["stood_still"])
        spot = model(args.build, d, True, reconfigure_s)
        on_demand = model(args.build, d, False, reconfigure_s)
        per_preemption = spot["preemption_pause_s"] / spot["preemptions_in_place"]
        rounds = [replay(args, d, k) for _ in range(args.rounds)]
    measured = [r["stood_still"] for r in rounds]
    per_change = [statistics.median(r[i] for r in measured) for i in range(2 * k)]
    per_pre = [per_change[2 * i] + per_change[2 * i + 1] for i in range(k)]
    total = sum(per_pre)
    print("Calibration (a replay of the same run, apart): stood still "
          + ", ".join(f"{x:.3f}" for x in calibration["stood_still"])
          + f" s per change, median --reconfigure-s {reconfigure_s:.3f}")
    print(f"Model (sailor simulate --reconfigure-s {reconfigure_s:.3f}, pp2-dp2 on the default "
          f"scenario's pools as spot at {RATE:g} preemptions a GPU-hour): {per_preemption:.3f} s "
          f"standing still per preemption handled in place\n")
    print("| preemption | leave | stood still s | return | stood still s | sum s | model s | error |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for i in range(k):
        print(f"| {i + 1} | {rounds[0]['sizes'][2 * i]} | {per_change[2 * i]:.3f} | "
              f"{rounds[0]['sizes'][2 * i + 1]} | {per_change[2 * i + 1]:.3f} | {per_pre[i]:.3f} | "
              f"{per_preemption:.3f} | {100 * (per_preemption / per_pre[i] - 1):+.1f}% |")
    error = k * per_preemption / total - 1
    print(f"\nthe replay lost {total:.2f} s to {k} preemptions, the model expects "
          f"{k * per_preemption:.2f} s ({100 * error:+.1f}%); iterations redone: "
          f"{sum(sum(r['iterations_lost']) for r in rounds)}")
    print(f"whole run of {spot['iterations']:.0f} iterations (the simulator's A100 iteration): "
          f"on-demand {on_demand['days']:.3f} days, {on_demand['usd']['total']:.0f} USD; spot "
          f"{spot['days']:.3f} days, {spot['usd']['total']:.0f} USD, "
          f"{spot['expected_preemptions']:.2f} preemptions expected")
    print(json.dumps({
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "hidden": args.hidden, "preemptions": k, "period_s": args.period,
        "calibration_stood_still": calibration["stood_still"], "reconfigure_s": reconfigure_s,
        "stood_still_per_change": per_change, "stood_still_per_preemption": per_pre,
        "model_per_preemption": per_preemption, "total_error": error,
        "spot_campaign": spot, "on_demand_campaign": on_demand}))


if __name__ == "__main__":
    main()
