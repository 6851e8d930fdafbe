#!/usr/bin/env bash
# One-shot check of the runtime's CUDA/NCCL path (docs/backends.md) on a machine with
# an NVIDIA GPU and PyTorch's Python wheel, whose libtorch (headers, libraries, CMake config) lives
# inside the torch package. Builds engine + runtime + `sailor` without Qt, then trains on the GPU
# (NCCL) and on the CPU (Gloo) and compares, and tries two ranks on one GPU. Never run by CI.
#
# Usage: scripts/device-cuda-check.sh [DEPS]
#   DEPS: a prefix holding what the machine may lack (default .devdeps): include/nlohmann,
#         include/sqlite3.h, share/cmake/nlohmann_json, lib/libsqlite3.so.0 (used when the
#         machine has no libsqlite3 of its own).
#   Writes $OUT/log and $OUT/runs.tar.gz (the runs' JSON lines and stderr); OUT defaults to
#   /tmp/sailor-cuda-check. Build tree: $BUILD_DIR (default /tmp/b).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${OUT:-/tmp/sailor-cuda-check}
DEPS=$(realpath "${1:-.devdeps}")
B=${BUILD_DIR:-/tmp/b}
RUNS=/tmp/sailor-cuda-runs
mkdir -p "$OUT" "$RUNS"

step() { echo; echo "=== $* [$(date +%T), ${SECONDS}s]"; }

# sailor run NAME TIMEOUT [env VAR=...] -- ARGS: JSON lines to $RUNS/NAME.jsonl, then a summary.
run() {
  local name=$1 limit=$2
  shift 2
  if [ "$SECONDS" -gt "${DEADLINE:-360}" ]; then
    step "run $name: skipped, past ${DEADLINE:-360} s"
    return
  fi
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  step "run $name: ${envs[*]} sailor run $*"
  local t0=$SECONDS
  env "${envs[@]}" timeout "$limit" "$B/bin/sailor" run --store "$RUNS/runs.sqlite" "$@" \
    >"$RUNS/$name.jsonl" 2>"$RUNS/$name.err"
  echo "exit $? after $((SECONDS - t0)) s"
  python3 - "$RUNS/$name.jsonl" "$RUNS/$name.err" <<'EOF'
import json, sys
events = []
for line in open(sys.argv[1]):
    try: events.append(json.loads(line))
    except ValueError: print("  not JSON:", line.rstrip()[:300])
its = [e for e in events if e["event"] == "iteration"]
for e in events:
    k = e["event"]
    if k == "workers_ready":
        print("  ready: backend", e["backend"], "devices", e["devices"], "startup", round(e["startup_seconds"], 2), "s")
    elif k in ("warning", "error"):
        print("  %s:" % k, {x: e[x] for x in e if x in ("rank", "message", "stderr_tail")})
    elif k == "finished":
        print("  finished:", e["status"], e["iterations_done"], "iterations", round(e["seconds"], 2), "s", e.get("error", ""))
if its:
    print("  loss:", " ".join("%.6f" % e["loss"] for e in its))
    steady = its[2:] or its
    tps = sum(e["tokens_per_second"] for e in steady) / len(steady)
    sec = sum(e["iteration_seconds"] for e in steady) / len(steady)
    print("  iterations %d-%d: mean %.4f s/iteration, %.0f tokens/s; peak RSS %.0f MiB" % (
        steady[0]["iteration"], steady[-1]["iteration"], sec, tps,
        max(r["peak_memory_bytes"] for e in its for r in e["ranks"]) / 2**20))
err = open(sys.argv[2]).read()
if err.strip():
    print("  stderr:", err.strip()[-1500:])
EOF
}

compare() {  # per-iteration relative loss difference of two runs
  step "loss: $1 vs $2"
  python3 - "$RUNS/$1.jsonl" "$RUNS/$2.jsonl" <<'EOF'
import json, sys
def losses(p):
    return [json.loads(l)["loss"] for l in open(p) if '"event":"iteration"' in l]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
worst = 0.0
for i, (x, y) in enumerate(zip(a, b)):
    rel = abs(x - y) / abs(y)
    worst = max(worst, rel)
    print("  %2d  %.7f  %.7f  rel %.2e" % (i, x, y, rel))
print("  max relative difference over %d iterations: %.2e" % (min(len(a), len(b)), worst))
EOF
}

main() {
  if [ -n "${SKIP_BUILD:-}" ]; then  # dry run of the runs on an existing build ($BUILD_DIR)
    runs
    return
  fi
  step "machine"
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "cxx11 abi", torch._C._GLIBCXX_USE_CXX11_ABI, "gpus", torch.cuda.device_count())'
  cmake --version | head -1
  echo "ninja $(ninja --version)"
  c++ --version | head -1
  nvcc --version | tail -1
  ldconfig -p | grep -E 'libsqlite3|libnccl' || true
  ls /usr/include/nlohmann/json.hpp /usr/include/sqlite3.h 2>&1

  step "configure"
  local torch_prefix site nccl_inc sqlite_lib cuda_root extra=""
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
  nccl_inc=$(dirname "$(find "$site/nvidia" -name nccl.h -path '*include*' 2>/dev/null | head -1)")
  # libtorch's CMake config looks for cuDNN; the wheel keeps it in site-packages/nvidia too.
  local cudnn_h cudnn_so cudnn_args=()
  cudnn_h=$(find "$site/nvidia" -name cudnn.h 2>/dev/null | head -1)
  cudnn_so=$(find "$site/nvidia" -name 'libcudnn.so*' 2>/dev/null | sort | head -1)
  [ -n "$cudnn_h" ] && cudnn_args+=(-DCUDNN_INCLUDE_PATH="$(dirname "$cudnn_h")")
  [ -n "$cudnn_so" ] && cudnn_args+=(-DCUDNN_LIBRARY_PATH="$cudnn_so")
  sqlite_lib=$(ldconfig -p | awk '/libsqlite3\.so\.0 .*x86-64/ {print $NF; exit}')
  [ -n "$sqlite_lib" ] || sqlite_lib=$DEPS/lib/libsqlite3.so.0
  cuda_root=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  # CUDA headers that the toolkit may lack (cuBLAS, cuSPARSE...) from the wheels' nvidia/*/
  # include, searched after everything else so that the toolkit's own come first.
  for d in "$site"/nvidia/*/include; do extra+=" -idirafter $d"; done
  echo "torch prefix $torch_prefix"
  echo "nccl.h in $nccl_inc; sqlite $sqlite_lib; CUDA toolkit $cuda_root; cuDNN ${cudnn_args[*]}"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSAILOR_BUILD_TESTS=OFF -DSAILOR_BUILD_STUDIO=OFF \
    -DCMAKE_PREFIX_PATH="$torch_prefix" -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCUDAToolkit_ROOT="$cuda_root" \
    -Dnlohmann_json_DIR="$DEPS/share/cmake/nlohmann_json" \
    -DSQLite3_INCLUDE_DIR="$DEPS/include" -DSQLite3_LIBRARY="$sqlite_lib" \
    -DNCCL_INCLUDE_DIR="$nccl_inc" \
    "${cudnn_args[@]}" -DCMAKE_CXX_FLAGS="$extra" || { echo "CONFIGURE FAILED"; return 1; }

  step "build"
  cmake --build "$B" --target sailor sailor-run sailor-worker sailor-profile -j 16 -- -k 0 || { echo "BUILD FAILED"; return 1; }
  ldd "$B/bin/sailor-worker" | grep -E 'torch|nccl|cuda|sqlite' || true
  "$B/bin/sailor" run --help | grep -E 'backend|data'
  runs
}

# The schedule options over NCCL (docs/training.md): the overlapped gradient reduction, the
# distributed optimizer, fully sharded data parallelism and the interleaved 1F1B, two ranks
# sharing the one GPU, each against the same plan over Gloo on the CPU (the losses must agree to
# float32 rounding), with the iteration time each measures.
schedules() {
  local plans=$RUNS/plans name file
  mkdir -p "$plans"
  python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); p["schedule"] = {"overlap_grad_reduce": True}; json.dump(p, open(sys.argv[2], "w"))' \
    tests/data/runtime/dp2-distributed-optimizer.json "$plans/dp2-overlap.json"
  for entry in "dp2-overlap:$plans/dp2-overlap.json" \
               "dp2-distributed-optimizer:tests/data/runtime/dp2-distributed-optimizer.json" \
               "dp2-fully-sharded:tests/data/runtime/dp2-fully-sharded.json" \
               "pp2-interleaved:tests/data/runtime/pp2-interleaved.json"; do
    name=${entry%%:*}
    file=${entry#*:}
    local args=(--plan "$file" --scenario resources/scenarios/default.json
                --job tests/data/runtime/job.json --scale --iterations 10)
    run "$name-nccl" 120 SAILOR_ALLOW_GPU_SHARING=1 NCCL_DEBUG=WARN -- "${args[@]}" \
      --backend nccl --heartbeat-timeout 30
    run "$name-gloo" 120 -- "${args[@]}" --backend gloo
    compare "$name-nccl" "$name-gloo"
  done
}

runs() {
  export SAILOR_RESOURCES=$PWD/resources
  # --scale: the GPU and CPU runs compared here train the same scaled model (a run whose
  # workers all have a GPU trains the real size by default).
  local one=(--plan tests/data/runtime/single.json --scenario resources/scenarios/default.json
             --job tests/data/runtime/job.json --scale)
  local two=(--plan tests/data/runtime/pp2.json --scenario resources/scenarios/default.json
             --job tests/data/runtime/job.json --scale)
  if [[ "${QUICK:-0}" == 1 ]]; then  # exit status of one short run per backend only
    run gpu-nccl-quick 60 -- "${one[@]}" --iterations 3 --backend nccl
    run pp2-nccl-refused 30 -- "${two[@]}" --iterations 3 --backend nccl
    step "done"
    return
  fi
  # (b) one rank, default model (OPT-350M scaled: hidden 256, sequence 32, global batch 8).
  run gpu-nccl 120 -- "${one[@]}" --iterations 20 --backend nccl
  run cpu-gloo 120 -- "${one[@]}" --iterations 20 --backend gloo
  compare gpu-nccl cpu-gloo
  # (c) two ranks (two pipeline stages) on the one GPU.
  run pp2-nccl 60 -- "${two[@]}" --iterations 3 --backend nccl
  run pp2-nccl-shared 90 SAILOR_ALLOW_GPU_SHARING=1 NCCL_DEBUG=WARN -- "${two[@]}" --iterations 3 \
    --backend nccl --heartbeat-timeout 30
  run pp2-auto 90 -- "${two[@]}" --iterations 3
  run auto 60 -- "${one[@]}" --iterations 3
  schedules
  # (d) bf16 mixed precision with full recomputation: NCCL sums bf16 itself, Gloo float32 copies.
  local mixed=(--plan tests/data/runtime/single.json --scenario resources/scenarios/default.json
               --job tests/data/runtime/job-bf16-recompute.json --scale)
  run gpu-nccl-bf16-recompute 120 -- "${mixed[@]}" --iterations 20 --backend nccl
  run cpu-gloo-bf16-recompute 120 -- "${mixed[@]}" --iterations 20 --backend gloo
  compare gpu-nccl-bf16-recompute cpu-gloo-bf16-recompute
  # Throughput with more work per kernel.
  run gpu-nccl-h512 120 -- "${one[@]}" --iterations 8 --backend nccl --hidden 512 --seq-len 64 \
    --global-batch 16
  run cpu-gloo-h512 90 -- "${one[@]}" --iterations 2 --backend gloo --hidden 512 --seq-len 64 \
    --global-batch 16
  compare gpu-nccl-h512 cpu-gloo-h512
  run gpu-nccl-h1024 90 -- "${one[@]}" --iterations 6 --backend nccl --hidden 1024 --seq-len 512 \
    --global-batch 64
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
  # Issue 28: the GPU profiled with the runtime's own layers (the real-size model, as a run on a
  # GPU trains it), then a real-size OPT-350M run on it over NCCL that records its prediction
  # from that profile, and predicted against measured.
  if [ "$SECONDS" -lt "${DEADLINE:-360}" ]; then
    step "sailor profile on the GPU"
    timeout 240 "$B/bin/sailor" profile --model OPT-350M --out "$RUNS/prof-gpu" \
      --microbatch-sizes 1,2 --tp 1 --quick --seq-len 512 2>&1 | tail -5
    run real-size 240 -- --plan tests/data/runtime/single.json \
      --scenario resources/scenarios/default.json --job tests/data/runtime/job.json \
      --real-size --backend nccl --seq-len 512 --global-batch 2 --iterations 12 \
      --profile "$RUNS/prof-gpu"
    step "validate --run (the real-size run)"
    local id
    id=$(python3 -c 'import json, sys; print(json.loads(open(sys.argv[1]).readline())["run_id"])' \
      "$RUNS/real-size.jsonl")
    "$B/bin/sailor" validate --run "$id" --store "$RUNS/runs.sqlite" 2>&1 | tail -20
  fi
  step "done"
}

main 2>&1 | tee "$OUT/log"
tar -C "$RUNS" -czf "$OUT/runs.tar.gz" . 2>/dev/null
