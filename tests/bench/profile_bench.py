#!/usr/bin/env python3
"""Prediction against measurement on the local CPU.

Profiles this machine with `sailor profile` (or reuses --profile-dir), then for eight plans of
OPT-350M as `sailor run` builds it on CPU (24 blocks, hidden 256, 16 heads, vocabulary 256,
sequence 64, global batch 8, float32, AdamW):

  single   one process, microbatch 2
  pp2      two-stage pipeline (layers 0-12 | 13-25), microbatch 2
  pp2-interleaved  the same with "schedule": {"virtual_stages": 2} (interleaved 1F1B: stage 0
           computes blocks 1-6 and 13-18, stage 1 blocks 7-12 and 19-24)
  dp2      two data-parallel replicas of the whole model, microbatch 2
  dp2-overlap  the same with "schedule": {"overlap_grad_reduce": true} (predicted with the
           runtime's gradient bucket, sailor simulate --gradient-bucket 1048576)
  dp2-sharded  dp2 with "schedule": {"sharding": "optimizer"} (the distributed optimizer)
  tp2      one replica at tp 2, microbatch 2
  mixed    two-stage pipeline split unevenly (0-8 | 9-25), microbatch 1 (8 microbatches)

runs `sailor run` (--iterations N, the first W dropped as warm-up) and compares the median
iteration time and the peak resident memory (max over ranks and iterations) with what
`sailor simulate` predicts for the same plan on the profiled device (the profile's GPU type,
its scenario and catalogue extension, --no-analytic: every figure from the local profile).
Also predicts each plan without the GPU type's shared_compute_slowdown (the simulator's figure
before it modelled ranks sharing the device, NOTE [Ranks sharing a device]), in the same run.
Then (unless --no-recheck) profiles the machine once more and predicts every plan again from
that second profile: the profile takes seconds and the runs minutes, and on a shared VM the
machine's speed can move between them. The two predictions of a plan differ by that drift (the
"drift" column); an error that the second profile does not share is the machine's, not the
model's.
Prints a Markdown table with relative errors and one JSON line (last line of stdout).

Usage: tests/bench/profile_bench.py [--build build] [--profile-dir DIR] [--iterations N]
                                    [--warmup W] [--only single,pp2,...] [--no-recheck]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_priority import take_priority

ROOT = Path(__file__).resolve().parents[2]
GLOBAL_BATCH = 8
RUNTIME_BUCKET_ELEMENTS = 1 << 20  # RunSpec::bucket_elements: the runtime's gradient bucket
SEQ_LEN = 64


def stage(first, last, replicas):
    return {"first_layer": first, "last_layer": last, "replicas": replicas}


def rep(tp=1):
    return {"gpu_type": "A100-40", "tp": tp, "zone": "us-central1-a"}


PLANS = {
    "single": {"microbatch_size": 2, "stages": [stage(0, 25, [rep()])]},
    "pp2": {"microbatch_size": 2, "stages": [stage(0, 12, [rep()]), stage(13, 25, [rep()])]},
    "pp2-interleaved": {"microbatch_size": 2,
                        "stages": [stage(0, 12, [rep()]), stage(13, 25, [rep()])],
                        "schedule": {"virtual_stages": 2}},
    "dp2": {"microbatch_size": 2, "stages": [stage(0, 25, [rep(), rep()])]},
    "dp2-overlap": {"microbatch_size": 2, "stages": [stage(0, 25, [rep(), rep()])],
                    "schedule": {"overlap_grad_reduce": True}},
    "dp2-sharded": {"microbatch_size": 2, "stages": [stage(0, 25, [rep(), rep()])],
                    "schedule": {"sharding": "optimizer"}},
    "tp2": {"microbatch_size": 2, "stages": [stage(0, 25, [rep(2)])]},
    "mixed": {"microbatch_size": 1, "stages": [stage(0, 8, [rep()]), stage(9, 25, [rep()])]},
}


def on_device(plan, gpu_type):
    """The plan with every replica on the profiled device's pool."""
    p = json.loads(json.dumps(plan))
    for s in p["stages"]:
        for r in s["replicas"]:
            r["gpu_type"], r["zone"] = gpu_type, "local"
    return p


def run_plan(build, plan_path, job_path, store, iterations, warmup):
    cmd = [str(build / "bin/sailor"), "run", "--plan", str(plan_path), "--scenario",
           str(ROOT / "resources/scenarios/default.json"), "--job", str(job_path),
           "--iterations", str(iterations), "--store", str(store)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"profile_bench: {' '.join(cmd)} failed ({out.returncode}): {out.stderr[-2000:]}")
    seconds, peak = [], 0
    for line in out.stdout.splitlines():
        e = json.loads(line)
        if e.get("event") != "iteration":
            continue
        if e["iteration"] >= warmup:
            seconds.append(e["iteration_seconds"])
        peak = max([peak] + [r["peak_memory_bytes"] for r in e["ranks"]])
    return statistics.median(seconds), peak


def load_average():
    """The 1-minute load average (/proc/loadavg): other engineers' work on the shared machine."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def simulate(build, prof, plan_path, job_path, catalog=None):
    cmd = [str(build / "bin/sailor"), "simulate", "--catalog", str(catalog or prof / "catalog.json"),
           "--profiles", str(prof / "profile.json"), "--scenario", str(prof / "scenario.json"),
           "--job", str(job_path), "--plan", str(plan_path), "--no-analytic", "--json",
           "--gradient-bucket", str(RUNTIME_BUCKET_ELEMENTS)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode not in (0, 3):
        sys.exit(f"profile_bench: {' '.join(cmd)} failed: {out.stderr}")
    p = json.loads(out.stdout)
    return p["iteration_s"], p["peak_memory_bytes"], p


def take_profile(build, out):
    cmd = [str(build / "bin/sailor"), "profile", "--model", "OPT-350M", "--out", str(out),
           "--microbatch-sizes", "1,2", "--tp", "1,2"]
    print("profiling:", " ".join(cmd), file=sys.stderr)
    load_before = load_average()
    subprocess.run(cmd, check=True)
    print(f"profile_bench: load average {load_before} before profiling, {load_average()} "
          "after", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--profile-dir")
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--only", default=",".join(PLANS))
    ap.add_argument("--no-priority", action="store_true")
    ap.add_argument("--no-recheck", action="store_true",
                    help="no second profile after the runs (no drift column)")
    args = ap.parse_args()
    priority = take_priority("profile_bench", not args.no_priority)  # bench_priority.py
    build = (ROOT / args.build) if not Path(args.build).is_absolute() else Path(args.build)
    tmp = Path(tempfile.mkdtemp(prefix="profile-bench-"))
    prof = Path(args.profile_dir) if args.profile_dir else tmp / "profile"
    if not (prof / "profile.json").exists():
        take_profile(build, prof)
    gpu_type = json.loads((prof / "profile.json").read_text())["gpu_type"]
    # The baseline in the same run: the same profile with the GPU type's shared_compute_slowdown
    # removed (the simulator before it modelled ranks sharing the device's compute).
    cat = json.loads((prof / "catalog.json").read_text())
    slowdown = cat["gpus"][0].pop("shared_compute_slowdown", None)
    no_sharing = tmp / "catalog-no-sharing.json"
    no_sharing.write_text(json.dumps(cat))
    print(f"profile_bench: shared_compute_slowdown {slowdown}", file=sys.stderr)
    model = json.loads((prof / "profile.json").read_text())["model"]
    run_job = tmp / "run-job.json"
    run_job.write_text(json.dumps({"model": "OPT-350M", "global_batch_size": GLOBAL_BATCH,
                                   "sequence_length": SEQ_LEN}))
    sim_job = tmp / "sim-job.json"
    sim_job.write_text(json.dumps({"model": model, "global_batch_size": GLOBAL_BATCH,
                                   "sequence_length": SEQ_LEN}))
    rows = []
    for name in args.only.split(","):
        plan = PLANS[name]
        run_plan_path = tmp / f"{name}-run.json"
        run_plan_path.write_text(json.dumps(plan))
        sim_plan_path = tmp / f"{name}-sim.json"
        sim_plan_path.write_text(json.dumps(on_device(plan, gpu_type)))
        pred_s, pred_mem, pred = simulate(build, prof, sim_plan_path, sim_job)
        base_s, _, _ = simulate(build, prof, sim_plan_path, sim_job, no_sharing)
        load_before = load_average()
        meas_s, meas_mem = run_plan(build, run_plan_path, run_job, tmp / "runs.db",
                                    args.iterations, args.warmup)
        load = [load_before, load_average()]
        rows.append({"plan": name, "predicted_s": pred_s, "measured_s": meas_s,
                     "time_error": pred_s / meas_s - 1, "without_sharing_s": base_s,
                     "without_sharing_error": base_s / meas_s - 1, "predicted_bytes": pred_mem,
                     "measured_bytes": meas_mem, "memory_error": pred_mem / meas_mem - 1,
                     "breakdown": pred["breakdown"], "load_average": load})
        print(f"{name}: predicted {pred_s:.3f} s, measured {meas_s:.3f} s; memory "
              f"{pred_mem / 2**20:.0f} / {meas_mem / 2**20:.0f} MiB; load average {load}",
              file=sys.stderr)
    recheck = None
    if not args.no_recheck:
        # The same plans from a profile taken after the runs (the GPU type's name is the
        # machine's, so the plans on the device are the same files).
        recheck = tmp / "profile-after"
        take_profile(build, recheck)
        for r in rows:
            after_s, _, _ = simulate(build, recheck, tmp / f"{r['plan']}-sim.json", sim_job)
            r["predicted_after_s"] = after_s
            r["time_error_after"] = after_s / r["measured_s"] - 1
            r["drift"] = after_s / r["predicted_s"] - 1
    head = ("| plan | predicted s/iter | measured s/iter (median) | error | without sharing "
            "| error | predicted peak MiB | measured peak MiB | error |")
    rule = "|---|---|---|---|---|---|---|---|---|"
    if recheck:
        head += " predicted after the runs | error | drift |"
        rule += "---|---|---|"
    print(head)
    print(rule)
    for r in rows:
        line = (f"| {r['plan']} | {r['predicted_s']:.3f} | {r['measured_s']:.3f} | "
                f"{100 * r['time_error']:+.1f}% | {r['without_sharing_s']:.3f} | "
                f"{100 * r['without_sharing_error']:+.1f}% | {r['predicted_bytes'] / 2**20:.0f} | "
                f"{r['measured_bytes'] / 2**20:.0f} | {100 * r['memory_error']:+.1f}% |")
        if recheck:
            line += (f" {r['predicted_after_s']:.3f} | {100 * r['time_error_after']:+.1f}% | "
                     f"{100 * r['drift']:+.1f}% |")
        print(line)
    print(json.dumps({"profile": str(prof), "profile_after": str(recheck) if recheck else None,
                      "gpu_type": gpu_type, "priority": priority,
                      "shared_compute_slowdown": slowdown, "rows": rows}))


if __name__ == "__main__":
    main()
