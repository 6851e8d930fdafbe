#!/usr/bin/env python3
"""What an in-place reconfiguration costs, by phase, against stopping every worker and restarting
from a checkpoint in the same run (docs/elasticity.md).

For each model width (--hidden, default 64 and 256: the tests' model and one with 16x the state)
and each round (alternating the order of the cases):
  join       a 2-process pp2 run whose trace gives it 4 GPUs: two workers start, the state moves
  leave      a 4-process pp2-dp2 run whose trace takes 2 GPUs away: two workers hand over, leave
  restart    the pp2-dp2 run with a checkpoint after every iteration, stopped (SIGINT) and
             resumed with `sailor run --resume`: every worker starts again and loads the checkpoint
Each case reports the gap: wall seconds between the last iteration event before the change and
the first one after it, minus the median iteration (the time training stood still); for join and
leave also the phases of the reconfigured event (replan, teardown, launch, group_setup, rebuild,
transfer, total) and the state moved, with transfer seconds per GB of state.
Last line of stdout: one JSON summary.

With --slurm-cluster FILE (a cluster description; SLURM_CONF naming a running cluster, e.g. the
tests' scripts/slurm-cluster) also, as Slurm runs (one batch job; commands through the run's
token-checked store; joining workers as job steps of the job):
  slurm leave  the pp2-dp2 run whose trace takes 2 GPUs away
  slurm join   the same run given them back (a Slurm run grows within its job's allocation)

Usage: tests/bench/reconfig_bench.py [--build build] [--rounds R] [--hidden 64,256]
                                     [--slurm-cluster FILE]
"""

import argparse
import datetime
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests/data/runtime")


def stamp(t):
    return datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def base_cmd(args, d, plan, hidden):
    return [os.path.join(args.build, "bin", "sailor"), "run", "--plan", os.path.join(DATA, plan),
            "--scenario", os.path.join(ROOT, "resources/scenarios/default.json"),
            "--job", os.path.join(DATA, "job.json"), "--hidden", str(hidden), "--seq-len", "16",
            "--global-batch", "8", "--store", os.path.join(d, "runs.sqlite")]


def follow(cmd, d, stop):
    """Runs cmd, reading events until stop(events) says so; then SIGINT and the rest."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, TMPDIR=d))
    events = []
    for line in p.stdout:
        if not line.strip():
            continue
        events.append(json.loads(line))
        if stop(events):
            p.send_signal(signal.SIGINT)
            break
    rest, err = p.communicate()
    events += [json.loads(x) for x in rest.splitlines() if x.strip()]
    if p.returncode not in (0, 130):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{err}")
    return events


def gap(events_before, events_after=None, nth=0):
    """Seconds training stood still around a change (the nth reconfiguration), and the median
    iteration."""
    if events_after is None:
        its = [e for e in events_before if e["event"] == "iteration"]
        change = [i for i, e in enumerate(events_before) if e["event"] == "reconfigured"][nth]
        before = [e for e in events_before[:change] if e["event"] == "iteration"]
        after = [e for e in events_before[change:] if e["event"] == "iteration"]
    else:
        before = [e for e in events_before if e["event"] == "iteration"]
        after = [e for e in events_after if e["event"] == "iteration"]
        its = before + after
    step = statistics.median(e["iteration_seconds"] for e in its)
    return stamp(after[0]["time"]) - stamp(before[-1]["time"]) - step, step


def elastic_case(args, plan, trace, hidden, extra=(), nth=0):
    """The nth reconfiguration of a run replaying `trace` (extra: more `sailor run` options)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        with open(path, "w") as f:
            json.dump(trace, f)
        seen = {"after": 0}

        def stop(events):
            e = events[-1]
            if sum(x["event"] == "reconfigured" for x in events) > nth and e["event"] == "iteration":
                seen["after"] += 1
            return seen["after"] >= 3

        events = follow(base_cmd(args, d, plan, hidden) +
                        ["--iterations", "100000", "--trace", path, "--trace-time-scale",
                         str(args.trace_delay)] + list(extra), d, stop)
    r = [e for e in events if e["event"] == "reconfigured"][nth]
    g, step = gap(events, nth=nth)
    return {"gap": g, "iteration": step, "phases": r["phases"], "state_bytes": r["state_bytes"],
            "sizes": f"{r['old_world_size']}->{r['new_world_size']}"}


def restart_case(args, hidden):
    with tempfile.TemporaryDirectory() as d:
        cmd = base_cmd(args, d, "pp2-dp2.json", hidden) + ["--iterations", "100000",
                                                           "--checkpoint-every", "1"]
        first = follow(cmd, d, lambda ev: sum(e["event"] == "checkpoint" for e in ev) >= 6)
        run_id = first[0]["run_id"]
        its = [e for e in first if e["event"] == "iteration"]
        cps = [e for e in first if e["event"] == "checkpoint"]
        last_cp = cps[-1]["iteration"]
        t0 = time.time()
        resume = [os.path.join(args.build, "bin", "sailor"), "run", "--resume", str(run_id),
                  "--store", os.path.join(d, "runs.sqlite")]
        second = follow(resume, d,
                        lambda ev: sum(e["event"] == "iteration" for e in ev) >= 3)
        # Training stood still from the last stored iteration the resume keeps (the checkpoint's)
        # to the resumed run's first iteration; iterations after the checkpoint are redone.
        kept = [e for e in its if e["iteration"] <= last_cp]
        g, step = gap(kept, second)
        return {"gap": g, "iteration": step, "resume_wall": time.time() - t0,
                "redone": len(its) - len(kept)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--hidden", default="64,256")
    p.add_argument("--trace-delay", type=float, default=8.0,
                   help="seconds after the workers are ready at which the trace changes")
    p.add_argument("--slurm-cluster", metavar="FILE",
                   help="also the Slurm cases on this cluster description (SLURM_CONF set: "
                        "eval \"$(scripts/slurm-cluster env)\")")
    args = p.parse_args()
    cases = {
        "join": lambda h: elastic_case(args, "pp2.json",
                                       [{"Time": 0, "GPUs": 2}, {"Time": 1, "GPUs": 4}], h),
        "leave": lambda h: elastic_case(args, "pp2-dp2.json",
                                        [{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 2}], h),
        "restart": lambda h: restart_case(args, h),
    }
    if args.slurm_cluster:
        # A Slurm run grows within its job's allocation: it leaves first, then grows back (the
        # second change is the join measured); its workers are reached through the run's store.
        slurm = ["--launcher", "slurm", "--cluster", args.slurm_cluster]
        back = [{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 2}, {"Time": 2, "GPUs": 4}]
        cases["slurm join"] = lambda h: elastic_case(args, "pp2-dp2.json", back, h, slurm, nth=1)
        cases["slurm leave"] = lambda h: elastic_case(args, "pp2-dp2.json", back[:2], h, slurm)
    summary = {}
    for hidden in [int(x) for x in args.hidden.split(",")]:
        got = {name: [] for name in cases}
        for r in range(args.rounds):
            order = list(cases) if r % 2 == 0 else list(reversed(cases))
            for name in order:
                got[name].append(cases[name](hidden))
        print(f"\n### hidden {hidden}\n")
        print("| case | GPUs | stood still s | replan | teardown | launch | group_setup | "
              "rebuild | transfer | total | state MB | transfer s/GB |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        row = {}
        for name, results in got.items():
            med = lambda f: statistics.median(f(x) for x in results)  # noqa: E731
            entry = {"stood_still": med(lambda x: x["gap"]), "iteration": med(lambda x: x["iteration"])}
            if name == "restart":
                entry["redone"] = med(lambda x: x["redone"])
                print(f"| restart from checkpoint | 4 | {entry['stood_still']:.3f} | "
                      + " | ".join(["-"] * 7) + f" | - | - |")
            else:
                for k in ("replan", "teardown", "launch", "group_setup", "rebuild", "transfer",
                          "total"):
                    entry[k] = med(lambda x: x["phases"][k])
                entry["state_bytes"] = med(lambda x: x["state_bytes"])
                per_gb = entry["transfer"] / (entry["state_bytes"] / 1e9) if entry["state_bytes"] else 0
                entry["transfer_s_per_gb"] = per_gb
                print(f"| {name} | {results[0]['sizes']} | {entry['stood_still']:.3f} | "
                      + " | ".join(f"{entry[k]:.3f}" for k in ("replan", "teardown", "launch",
                                                             "group_setup", "rebuild",
                                                             "transfer", "total"))
                      + f" | {entry['state_bytes'] / 1e6:.1f} | {per_gb:.2f} |")
            row[name] = entry
        for name in row:
            if name != "restart":
                row[name]["ratio_to_restart"] = (row[name]["stood_still"] /
                                                 row["restart"]["stood_still"])
        print("\nStood still, against restart from a checkpoint: " +
              ", ".join(f"{name} {row[name]['ratio_to_restart']:.2f}x" for name in row
                        if name != "restart") +
              f" (median iteration {row['restart']['iteration']:.3f} s)")
        summary[hidden] = row
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
