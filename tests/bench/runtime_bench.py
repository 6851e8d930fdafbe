#!/usr/bin/env python3
"""Throughput of the runtime against plain training loops of the same model.

Runs, on one model configuration (OPT-350M as `sailor run` scales it by default: 24 blocks,
hidden 256, 16 heads, FFN 1024, vocabulary 256, sequence length 64, tied embeddings, LayerNorm,
bias; global batch 8 in microbatches of 2, float32, one intra-op thread per process):

  runtime-1    `sailor run` with one worker (tests/data/runtime/single.json)
  libtorch     the same model in a plain libtorch loop (build/tests/bench/plain_loop)
  python       the same model in PyTorch from Python (tests/bench/plain_loop.py, run by Debian's
               /usr/bin/python3 with python3-torch: the same libtorch underneath)
  runtime-pp2  `sailor run` with a 2-stage pipeline, 2 processes (tests/data/runtime/pp2.json)

in rounds (the order rotates from round to round so that machine noise falls on all alike),
drops each run's first iterations as warm-up, and reports the median seconds per iteration,
tokens/s, and the ratios runtime-1 / libtorch (target >= 0.95), runtime-1 / python and
runtime-pp2 / runtime-1, as a Markdown table and one JSON summary line (last line of stdout).

All four run on the same libtorch, hence on the BLAS that its libblas.so.3 resolves to: on
Debian that is the reference (netlib) BLAS unless an optimized one is installed, and its sgemm
then takes over 90% of every configuration's time (about 20 s per iteration here). The default
iterations follow: 3 per run (first dropped) and 2 rounds with the reference BLAS, 30 (first 5
dropped) and 3 rounds with an optimized one, so that either finishes in well under 15 minutes on
2 cores. --blas-dir DIR puts DIR first on LD_LIBRARY_PATH of every configuration (the runtime's
controller passes it on to its workers), e.g. an OpenBLAS unpacked without installing it:

  apt-get download libopenblas0-pthread && dpkg -x libopenblas0-pthread_*.deb /tmp/ob
  tests/bench/runtime_bench.py --blas-dir /tmp/ob/usr/lib/x86_64-linux-gnu/openblas-pthread

Installs python3-torch with apt-get when /usr/bin/python3 cannot import torch (the only place
the project installs it). Run from anywhere: paths are relative to the repository root, which
the script finds from its own location.

Usage: tests/bench/runtime_bench.py [--build build] [--iterations N] [--warmup W] [--rounds R]
                                    [--blas-dir DIR] [--only runtime-1,libtorch,...]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = "/usr/bin/python3"
MODEL = {"layers": 24, "hidden": 256, "heads": 16, "ffn": 1024, "vocab": 256, "seq_len": 64,
         "global_batch": 8, "microbatch": 2}
TOKENS_PER_ITERATION = MODEL["global_batch"] * MODEL["seq_len"]
CONFIGS = ["runtime-1", "libtorch", "python", "runtime-pp2"]
DESCRIPTION = {
    "runtime-1": "sailor run, 1 process (single.json)",
    "libtorch": "plain libtorch loop (plain_loop)",
    "python": "PyTorch from Python (plain_loop.py)",
    "runtime-pp2": "sailor run, 2-stage pipeline, 2 processes (pp2.json)",
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ensure_python_torch():
    """Debian's python3-torch for /usr/bin/python3; installed with apt-get if missing."""
    probe = [DEBIAN_PYTHON, "-c", "import torch; print(torch.__version__)"]
    r = subprocess.run(probe, capture_output=True, text=True)
    if r.returncode == 0:
        log(f"python3-torch present: torch {r.stdout.strip()} ({DEBIAN_PYTHON})")
        return r.stdout.strip()
    log(f"{DEBIAN_PYTHON} cannot import torch; installing Debian's python3-torch:")
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "python3-torch"]):
        log("  $ " + " ".join(cmd))
        r = subprocess.run(cmd, capture_output=True, text=True)
        for line in (r.stdout + r.stderr).splitlines()[-8:]:
            log("    " + line)
        if r.returncode != 0:
            sys.exit(f"runtime_bench: `{' '.join(cmd)}` failed with exit status {r.returncode}")
    r = subprocess.run(probe, capture_output=True, text=True, check=True)
    log(f"installed: torch {r.stdout.strip()}")
    return r.stdout.strip()


def model_args(iterations):
    m = MODEL
    return ["--layers", str(m["layers"]), "--hidden", str(m["hidden"]), "--heads", str(m["heads"]),
            "--ffn", str(m["ffn"]), "--vocab", str(m["vocab"]), "--seq-len", str(m["seq_len"]),
            "--global-batch", str(m["global_batch"]), "--microbatch", str(m["microbatch"]),
            "--iterations", str(iterations)]


BLAS_DIR = None


def env_one_thread():
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"  # as the controller sets it for its workers
    env["MKL_NUM_THREADS"] = "1"
    env["OPENBLAS_NUM_THREADS"] = "1"
    if BLAS_DIR:
        env["LD_LIBRARY_PATH"] = BLAS_DIR + (":" + env["LD_LIBRARY_PATH"]
                                             if env.get("LD_LIBRARY_PATH") else "")
    return env


def busy_cpu_seconds():
    """CPU seconds the whole machine has spent busy (all processes), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds():
    """CPU seconds of this script's finished children (the benchmarked processes)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def blas_in_use(exe):
    """The file libblas.so.3 resolves to for `exe` (ldd, in the benchmark's environment)."""
    r = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, env=env_one_thread())
    for line in r.stdout.splitlines():
        if "libblas.so" in line and "=>" in line:
            path = line.split("=>")[1].split("(")[0].strip()
            return os.path.realpath(path)
    return "unknown"


def run_plain(cmd):
    """A plain loop: one JSON line per iteration with `seconds`."""
    r = subprocess.run(cmd, capture_output=True, text=True, env=env_one_thread(), cwd=ROOT)
    if r.returncode != 0:
        sys.exit(f"runtime_bench: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    its = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    return {"seconds": [it["seconds"] for it in its], "loss": [it["loss"] for it in its]}


def run_runtime(build, plan, iterations, tmp):
    """`sailor run`: the controller's iteration events (iteration_seconds, per-rank times)."""
    store = Path(tmp) / "runs.sqlite"
    cmd = [str(build / "bin" / "sailor"), "run", "--plan", f"tests/data/runtime/{plan}",
           "--scenario", "resources/scenarios/default.json", "--job", "tests/data/runtime/job.json",
           "--seq-len", str(MODEL["seq_len"]), "--iterations", str(iterations),
           "--store", str(store)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env_one_thread(), cwd=ROOT)
    events = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    if r.returncode != 0:
        errors = [e for e in events if e.get("event") == "error"]
        sys.exit(f"runtime_bench: {' '.join(cmd)} failed ({r.returncode}): {errors or r.stderr[-2000:]}")
    its = [e for e in events if e.get("event") == "iteration"]
    started = next(e for e in events if e.get("event") == "run_started")
    model = started["model"]
    expect = {"layers": MODEL["layers"], "hidden_size": MODEL["hidden"], "heads": MODEL["heads"],
              "ffn_hidden_size": MODEL["ffn"], "vocab_size": MODEL["vocab"],
              "sequence_length": MODEL["seq_len"]}
    for k, v in expect.items():
        if model.get(k) != v:
            sys.exit(f"runtime_bench: the runtime built {k} = {model.get(k)}, expected {v}")
    if started["global_batch_size"] != MODEL["global_batch"] or started["dtype"] != "float32":
        sys.exit("runtime_bench: the runtime's batch or dtype differs from the baselines'")
    ready = next((e for e in events if e.get("event") == "workers_ready"), {})
    return {"seconds": [e["iteration_seconds"] for e in its], "loss": [e["loss"] for e in its],
            "ranks": [e["ranks"] for e in its], "startup_seconds": ready.get("startup_seconds")}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build", help="build directory, relative to the repository "
                   "root or absolute (default: build)")
    p.add_argument("--iterations", type=int,
                   help="iterations per run (default 30; 3 with the reference BLAS)")
    p.add_argument("--warmup", type=int,
                   help="first iterations of each run left out (default 5; 1 with the reference BLAS)")
    p.add_argument("--rounds", type=int,
                   help="runs of each configuration (default 3; 2 with the reference BLAS)")
    p.add_argument("--blas-dir", help="directory put first on LD_LIBRARY_PATH (another libblas.so.3)")
    p.add_argument("--only", default=",".join(CONFIGS),
                   help="comma-separated subset of " + ",".join(CONFIGS))
    a = p.parse_args()
    global BLAS_DIR
    BLAS_DIR = os.path.abspath(a.blas_dir) if a.blas_dir else None
    build = (ROOT / a.build).resolve()
    configs = [c for c in CONFIGS if c in a.only.split(",")]
    for exe in [build / "bin" / "sailor", build / "bin" / "sailor-worker",
                build / "tests" / "bench" / "plain_loop"]:
        if not os.access(exe, os.X_OK):
            sys.exit(f"runtime_bench: {exe} missing; build first: cmake --build {a.build}")
    torch_version = ensure_python_torch() if "python" in configs else None
    blas = blas_in_use(build / "bin" / "sailor-worker")
    reference_blas = "/blas/" in blas  # Debian's netlib BLAS: /usr/lib/<arch>/blas/libblas.so.3
    log(f"BLAS: {blas}" + (" (the reference BLAS: slow; see --blas-dir)" if reference_blas else ""))
    if a.iterations is None:
        a.iterations = 3 if reference_blas else 30
    if a.warmup is None:
        a.warmup = 1 if reference_blas else 5
    if a.rounds is None:
        a.rounds = 2 if reference_blas else 3
    if a.iterations <= a.warmup:
        sys.exit("runtime_bench: --iterations must exceed --warmup")
    cores = os.cpu_count()
    log(f"{cores} cores; {a.rounds} rounds x {a.iterations} iterations "
        f"(first {a.warmup} dropped) of {', '.join(configs)}")
    if "runtime-pp2" in configs and cores < 2:
        log("warning: fewer than 2 cores: the 2-process pipeline shares one core")

    samples = {c: [] for c in configs}       # kept per-iteration seconds, all rounds
    round_medians = {c: [] for c in configs}
    extra = {c: [] for c in configs}
    started = time.monotonic()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="sailor-bench-") as tmp:
        samples_file = Path(tmp) / "samples.txt"  # the engine's TokenSource, for plain_loop.py
        with open(samples_file, "w") as f:
            subprocess.run([str(build / "tests" / "bench" / "plain_loop")] + model_args(a.iterations)
                           + ["--print-samples"], stdout=f, check=True)
        for rnd in range(a.rounds):
            order = configs[rnd % len(configs):] + configs[:rnd % len(configs)]
            for c in order:
                t0, busy0, own0 = time.monotonic(), busy_cpu_seconds(), own_cpu_seconds()
                if c == "runtime-1":
                    res = run_runtime(build, "single.json", a.iterations, tmp)
                elif c == "runtime-pp2":
                    res = run_runtime(build, "pp2.json", a.iterations, tmp)
                elif c == "libtorch":
                    res = run_plain([str(build / "tests" / "bench" / "plain_loop")] +
                                    model_args(a.iterations))
                else:
                    res = run_plain([DEBIAN_PYTHON, str(ROOT / "tests" / "bench" / "plain_loop.py"),
                                     "--samples", str(samples_file)] + model_args(a.iterations))
                wall = time.monotonic() - t0
                # Cores kept busy by other processes while this run ran (machine noise).
                other = max(0.0, (busy_cpu_seconds() - busy0) - (own_cpu_seconds() - own0)) / wall
                res["other_cores"] = other
                kept = res["seconds"][a.warmup:]
                if len(kept) != a.iterations - a.warmup:
                    sys.exit(f"runtime_bench: {c} reported {len(res['seconds'])} iterations")
                samples[c] += kept
                round_medians[c].append(statistics.median(kept))
                extra[c].append(res)
                log(f"round {rnd + 1}/{a.rounds} {c:12s} median {statistics.median(kept):8.3f} s/it "
                    f"(run {wall:6.1f} s, other processes {other:4.2f} cores, loss "
                    f"{res['loss'][0]:.3f} -> {res['loss'][-1]:.3f})")

    summary = {"date": time.strftime("%Y-%m-%d"), "cores": cores, "torch_python": torch_version,
               "blas": blas, "load_average_1min": [round(load_before[0], 2),
                                                   round(os.getloadavg()[0], 2)],
               "model": MODEL, "dtype": "float32", "threads_per_process": 1,
               "iterations": a.iterations, "warmup": a.warmup, "rounds": a.rounds,
               "tokens_per_iteration": TOKENS_PER_ITERATION,
               "wall_seconds": round(time.monotonic() - started, 1), "configs": {}}
    for c in configs:
        med = statistics.median(samples[c])
        entry = {"median_iteration_seconds": med,
                 "tokens_per_second": TOKENS_PER_ITERATION / med,
                 "round_medians": round_medians[c],
                 "other_processes_cores": [round(r["other_cores"], 2) for r in extra[c]],
                 "min_iteration_seconds": min(samples[c]),
                 "max_iteration_seconds": max(samples[c])}
        if c.startswith("runtime"):
            # Per-rank time split of the kept iterations: compute vs. communication (medians).
            ranks = {}
            for res in extra[c]:
                for it_ranks in res["ranks"][a.warmup:]:
                    for rk in it_ranks:
                        d = ranks.setdefault(rk["rank"], {"compute": [], "p2p": [], "dp": []})
                        d["compute"].append(rk["compute_seconds"])
                        d["p2p"].append(rk["p2p_seconds"])
                        d["dp"].append(rk["dp_seconds"])
            entry["ranks"] = {str(r): {k + "_seconds": statistics.median(v) for k, v in d.items()}
                              for r, d in sorted(ranks.items())}
            entry["startup_seconds"] = [res["startup_seconds"] for res in extra[c]]
        summary["configs"][c] = entry
    tps = {c: summary["configs"][c]["tokens_per_second"] for c in configs}
    ratios = {}
    if "runtime-1" in tps and "libtorch" in tps:
        ratios["runtime-1 / libtorch"] = tps["runtime-1"] / tps["libtorch"]
    if "runtime-1" in tps and "python" in tps:
        ratios["runtime-1 / python"] = tps["runtime-1"] / tps["python"]
    if "runtime-pp2" in tps and "runtime-1" in tps:
        ratios["runtime-pp2 / runtime-1"] = tps["runtime-pp2"] / tps["runtime-1"]
    summary["ratios"] = ratios

    print(f"BLAS {blas}; {cores} cores; {a.rounds} rounds x {a.iterations} iterations, first "
          f"{a.warmup} dropped; 1-min load average {load_before[0]:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")
    print()
    print("| configuration | s/iteration (median) | tokens/s | round medians (s) "
          "| other processes (cores) |")
    print("|---|---:|---:|---|---|")
    for c in configs:
        e = summary["configs"][c]
        rm = ", ".join(f"{x:.3f}" for x in e["round_medians"])
        oc = ", ".join(f"{x:.2f}" for x in e["other_processes_cores"])
        print(f"| {c}: {DESCRIPTION[c]} | {e['median_iteration_seconds']:.3f} | "
              f"{e['tokens_per_second']:.1f} | {rm} | {oc} |")
    print()
    print("| ratio (tokens/s) | value |")
    print("|---|---:|")
    for k, v in ratios.items():
        target = " (target >= 0.95)" if k == "runtime-1 / libtorch" else ""
        print(f"| {k}{target} | {v:.3f} |")
    print()
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
