#!/usr/bin/env bash
# Golden outputs of the command-line programs: runs a fixed list of `sailor` invocations (every
# command, its --help, and bad input of each kind: unknown options, missing values, bad numbers,
# --opt=value, repeated options, stray positionals), plus `sailor-profile` and `sailor-worker`
# started directly, against the programs in BIN_DIR, and writes one file per case into OUT_DIR:
# the command, its stdout, its stderr, its exit status and any file it wrote. Paths that differ
# between two runs (BIN_DIR, the scratch directory, the checkout) and search timings are
# normalised, so that the outputs of two builds can be compared with `diff -r`. Usage:
#   tests/bench/golden_cli.sh /tmp/base-bin /tmp/golden/base     # e.g. a build of main
#   tests/bench/golden_cli.sh build/bin /tmp/golden/mine
#   diff -r /tmp/golden/base /tmp/golden/mine && echo identical
# The checkout is the one holding this script (or $SAILOR_ROOT); ../shared/reference is used
# when it is there; $GOLDEN_RUN_STORE may name a run store to list and show (copied first).
# Only `sailor run --dry-run` forms and quick searches are run; each case is cut at 20 s.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR OUT_DIR" >&2
  exit 2
fi
BIN=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
ROOT=${SAILOR_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED="$ROOT/../shared/reference"
WORK=$(mktemp -d /tmp/golden-work.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
rm -f "$OUT"/*.txt

export SAILOR_RESOURCES="$ROOT/resources"
export SAILOR_RUN_STORE="$WORK/no-store/runs.sqlite"
export HOME="$WORK/home"
unset XDG_DATA_HOME SAILOR_RUN SAILOR_PROFILE
export LC_ALL=C
mkdir -p "$HOME" "$WORK/fix"

R="$ROOT/resources"
SC="$R/scenarios/default.json"
JOB="$R/jobs/default.json"
PLAN="$R/plans/default.json"
RT="$ROOT/tests/data/runtime"
TRACE="$ROOT/tests/data/trace"
STORE="$WORK/fix/runs.sqlite"
if [ -n "${GOLDEN_RUN_STORE:-}" ] && [ -f "$GOLDEN_RUN_STORE" ]; then
  cp "$GOLDEN_RUN_STORE" "$STORE"
fi
printf '{"runs": [' >"$WORK/fix/not-json.json"
echo '{"points": []}' >"$WORK/fix/no-points.json"
mkdir -p "$WORK/fix/a-dir"

normalise() {
  sed -e "s|$BIN|<BIN>|g" -e "s|$WORK|<WORK>|g" -e "s|$ROOT|<ROOT>|g" \
    -e 's/candidates in [0-9.]* m\?s/candidates in <T>/g' \
    -e 's/"search_seconds": [0-9.e+-]*/"search_seconds": <T>/g' \
    -e 's/"replan": [0-9.e+-]*/"replan": <T>/g' \
    -e 's/re-plan [0-9.]* s/re-plan <T> s/g'
}

# run NAME PROGRAM ARGS...: one case, in a directory of its own (files it writes are kept).
run() {
  local name=$1 prog=$2
  shift 2
  local dir="$WORK/cases/$name" file="$OUT/$name.txt"
  mkdir -p "$dir"
  (cd "$dir" && timeout 20 "$BIN/$prog" "$@" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null)
  local rc=$?
  {
    echo "== $prog $*"
    echo "== stdout"
    cat "$WORK/stdout"
    echo "== stderr"
    cat "$WORK/stderr"
    echo "== exit $rc"
    (cd "$dir" && find . -type f | LC_ALL=C sort | while read -r f; do
      echo "== file $f"
      head -c 200000 "$f"
    done)
  } | normalise >"$file"
}
s() { run "$1" sailor "${@:2}"; }

# --- help and usage
s usage-none
s usage-help --help
s usage-h -h
s usage-helpword help
s unknown-command bogus
s unknown-command-dash --bogus
for c in catalog plan simulate validate calibrate runs export run profile; do
  s "help-$c" "$c" --help
  s "help-h-$c" "$c" -h
done
s help-late-plan plan --top 3 --help
s help-as-value-plan plan --scenario --help
s help-after-unknown plan --bogus --help
s help-after-unknown-run run --bogus --help
s help-runs-list runs list --help

# --- catalog
s catalog-gpus catalog gpus
s catalog-models catalog models
s catalog-gpus-json catalog gpus --json
s catalog-models-json catalog models --json
s catalog-json-first catalog --json models
s catalog-json-eq catalog gpus --json=false
s catalog-json-twice catalog gpus --json --json
s catalog-none catalog
s catalog-bananas catalog bananas
s catalog-two catalog gpus models
s catalog-unknown catalog gpus --colour
s catalog-unknown-eq catalog gpus --colour=red
s catalog-short catalog gpus -x
s catalog-dashdash catalog -- gpus
s catalog-dash catalog gpus -
s catalog-unknown-twice catalog --a --b gpus

# --- simulate
SIM=(--scenario "$SC" --job "$JOB" --plan "$PLAN")
s sim-default simulate "${SIM[@]}"
s sim-json simulate "${SIM[@]}" --json
s sim-nb simulate "${SIM[@]}" --non-blocking-p2p
s sim-noanalytic simulate "${SIM[@]}" --no-analytic
s sim-timeline simulate "${SIM[@]}" --timeline tl.json
s sim-eq simulate --scenario="$SC" --job="$JOB" --plan="$PLAN"
s sim-repeat-plan simulate "${SIM[@]}" --plan "$RT/pp2.json"
s sim-pp2 simulate --scenario "$SC" --job "$RT/job.json" --plan "$RT/pp2.json"
s sim-pp2dp3 simulate --scenario "$SC" --job "$RT/job.json" --plan "$RT/pp2-dp3-uneven.json" --json
s sim-zones simulate --scenario "$RT/zones-scenario.json" --job "$RT/job.json" --plan "$RT/zones-pp2.json"
s sim-hetero simulate --scenario "$SC" --job "$RT/job.json" --plan "$RT/hetero.json"
s sim-bf16 simulate --scenario "$SC" --job "$RT/job-bf16-recompute.json" --plan "$RT/pp2.json"
s sim-extra simulate extra
s sim-extra-after simulate "${SIM[@]}" extra
s sim-no-scenario simulate --job "$JOB" --plan "$PLAN"
s sim-no-plan simulate --scenario "$SC" --job "$JOB"
s sim-missing-value simulate "${SIM[@]}" --timeline
s sim-missing-eq simulate --scenario= --job "$JOB" --plan "$PLAN"
s sim-bad-file simulate --scenario /nonexistent.json --job "$JOB" --plan "$PLAN"
s sim-not-json simulate --scenario "$WORK/fix/not-json.json" --job "$JOB" --plan "$PLAN"
s sim-dir simulate --scenario "$WORK/fix/a-dir" --job "$JOB" --plan "$PLAN"
s sim-profiles-missing simulate "${SIM[@]}" --profiles /nonexistent-profile.json
s sim-catalog-missing simulate "${SIM[@]}" --catalog /nonexistent-catalog.json
s sim-unknown simulate "${SIM[@]}" --bogus
s sim-unknown-and-missing simulate --bogus --plan
s sim-flag-as-value simulate --scenario --json --job "$JOB" --plan "$PLAN"
if [ -d "$SHARED/sailor/profiles" ]; then
  s sim-sailor-profiles simulate "${SIM[@]}" --sailor-profiles "$SHARED/sailor/profiles/OPT-350"
fi

# --- plan
s plan-default plan
s plan-top1 plan --top 1 --microbatch-sizes 8
s plan-json plan --json --top 1 --microbatch-sizes 8
s plan-cost plan --objective cost --top 2 --microbatch-sizes 4,8
s plan-cost-eq plan --objective=cost --top=1 --microbatch-sizes=8
s plan-pareto plan --pareto --microbatch-sizes 8 --top 1
s plan-knee plan --knee --microbatch-sizes 8 --top 1 --json
s plan-output plan --top 1 --microbatch-sizes 8 --output best.json
s plan-model plan --model OPT-350M --global-batch 64 --seq-len 512 --microbatch-sizes 4,8 --top 1
s plan-model-opts plan --model OPT-350M --global-batch 64 --precision bf16 --optimizer sgd \
  --recompute full --microbatch-sizes 8 --top 1
s plan-model-big plan --model GPT-3-175B --global-batch 8 --microbatch-sizes 1
s plan-model-uneven plan --model OPT-350M --global-batch 6 --microbatch-sizes 4,8
s plan-model-nobatch plan --model OPT-350M
s plan-model-badbatch plan --model OPT-350M --global-batch 8x
s plan-model-badseq plan --model OPT-350M --global-batch 8 --seq-len -1
s plan-model-unknown plan --model Nope --global-batch 8
s plan-job plan --job "$RT/job.json" --scenario "$SC" --top 1 --microbatch-sizes 2
s plan-constraints plan --max-cost-per-iteration 0.5 --max-cost-per-hour 1000 --max-gpus 64 \
  --microbatch-sizes 8 --top 1
s plan-min-tp plan --microbatch-sizes 8 --min-throughput 1000
s plan-memory-reserve plan --microbatch-sizes 8 --top 1 --memory-reserve 0.2
s plan-memory-reserve0 plan --microbatch-sizes 8 --top 1 --memory-reserve 0
s plan-memory-reserve-flag plan --microbatch-sizes 8 --top 1 --memory-reserve 0.2 \
  --memory-reserve-mode flag --json
s plan-schedule plan --microbatch-sizes 8 --top 1 --schedule megatron
s plan-heuristics plan --microbatch-sizes 8 --top 1 --no-heuristic h1 --no-heuristic h12
s plan-search plan --microbatch-sizes 8 --top 1 --max-stages 2 --max-partial-plans 8 --threads 1
s plan-progress-off plan --microbatch-sizes 8 --top 1 --progress --no-progress
s plan-no-progress plan --microbatch-sizes 8 --top 1 --no-progress
s plan-repeat-top plan --microbatch-sizes 8 --top 5 --top 1
s plan-time-limit plan --microbatch-sizes 8 --top 1 --time-limit 600
s plan-trace plan --trace "$TRACE/two-rows.csv" --microbatch-sizes 8
s plan-trace-json plan --trace "$TRACE/two-rows.csv" --microbatch-sizes 8 --json
s plan-trace-output plan --trace "$TRACE/two-rows.csv" --microbatch-sizes 8 --output out/best.json
s plan-trace-label plan --trace "$TRACE/label-not-a-time.csv" --trace-iterations 10
s plan-trace-missing plan --trace /nonexistent.csv
if [ -d "$SHARED/sailor" ]; then
  s plan-reference plan --reference "$SHARED/sailor" --model OPT-350 --global-batch 1024 \
    --microbatch-sizes 8 --top 1
fi
# bad input
s plan-trace-novalue plan --trace
s plan-positional plan extra
s plan-positional-eq plan --top=1 extra
s plan-objective-eq plan --objective=speed
s plan-objective plan --objective speed
s plan-objective-flag plan --objective --json
s plan-maxgpus-x plan --max-gpus x --max-gpus 0
s plan-maxgpus-0 plan --max-gpus 0
s plan-maxgpus-big plan --max-gpus 2000000
s plan-maxgpus-float plan --max-gpus 1.5
s plan-top-neg plan --top -1
s plan-top-empty plan --top ""
s plan-threads-0 plan --threads 0
s plan-maxstages-neg plan --max-stages -2
s plan-partial-x plan --max-partial-plans x
s plan-cost-neg plan --max-cost-per-iteration -1
s plan-cost-inf plan --max-cost-per-hour inf
s plan-cost-nan plan --max-cost-per-hour nan
s plan-minthr-x plan --min-throughput 1x
s plan-time-limit-0 plan --time-limit 0
s plan-time-limit-x plan --time-limit soon
s plan-reserve-big plan --memory-reserve 0.9
s plan-reserve-x plan --memory-reserve x
s plan-reserve-tail plan --memory-reserve 0.1x
s plan-reserve-mode plan --memory-reserve-mode keep
s plan-schedule-bad plan --schedule torch
s plan-mbs-bad plan --microbatch-sizes 4,x
s plan-mbs-zero plan --microbatch-sizes 0
s plan-mbs-empty plan --microbatch-sizes ,
s plan-heuristic-bad plan --no-heuristic h7
s plan-trace-its-alone plan --trace-iterations 10
s plan-trace-its-bad plan --trace "$TRACE/two-rows.csv" --trace-iterations 0
s plan-unknown plan --bogus
s plan-unknown-eq plan --bogus=1
s plan-unknown-after-value plan --top 1 --frobnicate
s plan-missing-last plan --top 1 --output
s plan-unknown-then-missing plan --bogus --top
s plan-job-missing plan --job /nonexistent.json
s plan-scenario-missing plan --scenario /nonexistent.json
s plan-scenario-dir plan --scenario "$WORK/fix/a-dir"
s plan-precision-bad plan --model OPT-350M --global-batch 8 --precision fp8
s plan-short plan -t 1
s plan-dashdash plan -- --top

# --- validate
if [ -f "$SHARED/calibration/measured_points.json" ]; then
  s validate-points validate "$SHARED/calibration/measured_points.json" --reference "$SHARED/sailor"
  s validate-points-json validate "$SHARED/calibration/measured_points.json" \
    --reference "$SHARED/sailor" --json
  s validate-compare validate "$SHARED/calibration/measured_points.json" \
    --reference "$SHARED/sailor" --compare-sailor --non-blocking-p2p
  s validate-strict validate "$SHARED/calibration/measured_points.json" \
    --reference "$SHARED/sailor" --strict
fi
if [ -f "$SHARED/published/published_runs.json" ]; then
  s validate-published validate "$SHARED/published/published_runs.json"
  s validate-published-json validate "$SHARED/published/published_runs.json" --json --strict
  s validate-published-ref validate "$SHARED/published/published_runs.json" --reference x
fi
s validate-mutation validate "$ROOT/tests/data/mutation/points.json" \
  --reference "$ROOT/tests/data/mutation/reference"
s validate-none validate
s validate-two validate a.json b.json
s validate-no-ref validate "$ROOT/tests/data/mutation/points.json"
s validate-missing-file validate /nonexistent.json --reference "$ROOT/tests/data/mutation/reference"
s validate-not-points validate "$WORK/fix/no-points.json" --reference "$ROOT/tests/data/mutation/reference"
s validate-unknown validate x.json --bogus
s validate-ref-novalue validate x.json --reference
s validate-run-store validate --run 1 --store "$STORE"
s validate-run-store-json validate --run=1 --store "$STORE" --json
s validate-run-none validate --run 1
s validate-run-bad validate --run x
s validate-run-zero validate --run 0
s validate-run-novalue validate --run
s validate-run-positional validate --run 1 extra
s validate-run-unknown validate --run 1 --bogus
s validate-run-profile validate --run 1 --store "$STORE" --profile /nonexistent-profile
s validate-run-dirstore validate --run 1 --store "$WORK/fix/a-dir"

# --- calibrate
s calibrate-none calibrate
s calibrate-noprofile calibrate --run 1
s calibrate-bad-run calibrate --run x --profile p
s calibrate-positional calibrate extra
s calibrate-unknown calibrate --run 1 --bogus
s calibrate-store calibrate --run 1 --run 2 --profile /nonexistent-profile --store "$STORE"
s calibrate-inplace calibrate --run 1 --profile /nonexistent-profile --in-place --json --store "$STORE"
s calibrate-novalue calibrate --run 1 --profile

# --- runs
s runs-none runs
s runs-bad runs bogus
s runs-list runs list
s runs-list-json runs list --json
s runs-list-store runs list --store "$STORE"
s runs-list-store-json runs list --store="$STORE" --json
s runs-list-extra runs list extra
s runs-list-dir runs list --store "$WORK/fix/a-dir"
s runs-list-novalue runs list --store
s runs-list-unknown runs list --bogus
s runs-show runs show 1 --store "$STORE"
s runs-show-2 runs show 2 --store "$STORE"
s runs-show-json runs show 1 --json --store "$STORE"
s runs-show-missing runs show 99 --store "$STORE"
s runs-show-none runs show
s runs-show-two runs show 1 2
s runs-show-bad runs show x
s runs-show-zero runs show 0
s runs-show-nostore runs show 1
s runs-attach-none runs attach
s runs-attach-bad runs attach x
s runs-resize-none runs resize
s runs-resize-bad runs resize 1 --gpus x

# --- export
EXP=(--plan "$PLAN" --scenario "$SC" --job "$JOB")
s export-slurm export "${EXP[@]}" --format slurm
s export-torchrun export "${EXP[@]}" --format torchrun
s export-k8s export "${EXP[@]}" --format kubernetes --iterations 5 --hidden 64 --seq-len 32 --seed 7
s export-gloo export "${EXP[@]}" --format=slurm --backend=gloo
s export-three export --plan "$ROOT/tests/data/export/three-zones.json" --scenario "$SC" \
  --job "$JOB" --format slurm
s export-output export "${EXP[@]}" --format torchrun --output outdir
s export-cluster export "${EXP[@]}" --format slurm --cluster "$R/clusters/default.json"
s export-noformat export "${EXP[@]}"
s export-badformat export "${EXP[@]}" --format docker
s export-badbackend export "${EXP[@]}" --format slurm --backend mpi
s export-baditer export "${EXP[@]}" --format slurm --iterations 0
s export-badseed export "${EXP[@]}" --format slurm --seed -1
s export-badhidden export "${EXP[@]}" --format slurm --hidden x
s export-positional export extra
s export-noplan export --scenario "$SC" --job "$JOB" --format slurm
s export-unknown export "${EXP[@]}" --format slurm --json
s export-novalue export "${EXP[@]}" --format
s export-badcluster export "${EXP[@]}" --format slurm --cluster /nonexistent.json

# --- run (sailor-run), dry runs only
RUNF=(--plan "$RT/single.json" --scenario "$SC" --job "$RT/job.json")
s run-dry run "${RUNF[@]}" --dry-run
s run-dry-slurm run "${RUNF[@]}" --launcher slurm --dry-run --cluster "$RT/slurm-localhost.json"
s run-unknown run --bogus
s run-novalue run "${RUNF[@]}" --iterations
s run-noplan run --scenario "$SC" --job "$JOB" --dry-run

# --- profile (sailor-profile through sailor, and directly)
s profile-none profile
s profile-unknown profile --bogus
s profile-novalue profile --model
s profile-help-late profile --model OPT-350M --help
s profile-help-then-unknown profile --help --bogus
s profile-help-as-value profile --model --help
s profile-bad-precision profile --model OPT-350M --precision fp16
s profile-bad-device profile --model OPT-350M --device tpu
s profile-bad-hidden profile --model OPT-350M --hidden 0
s profile-bad-hidden-unknown profile --hidden x --bogus
s profile-unknown-bad-hidden profile --bogus --hidden x
s profile-bad-tp profile --model OPT-350M --tp 1,x
s profile-empty-tp profile --model OPT-350M --tp ,
s profile-bad-mbs profile --model OPT-350M --microbatch-sizes 0
s profile-bad-repeats profile --model OPT-350M --repeats 10001
s profile-bad-sharing profile --model OPT-350M --sharing-ranks 65
s profile-bad-seq profile --model OPT-350M --seq-len 1x
s profile-scale-real profile --model OPT-350M --scale --real-size
s profile-real-scale profile --model OPT-350M --real-size --scale
s profile-eq profile --model=OPT-350M
s profile-positional profile OPT-350M
s profile-short profile -m OPT-350M
s profile-unknown-model profile --model Nope --out prof --quick
s profile-cuda profile --model OPT-350M --device cuda --out prof --quick
s profile-tp-heads profile --model OPT-350M --tp 7 --out prof --quick
run profile-direct-help sailor-profile --help
run profile-direct-none sailor-profile
run profile-direct-unknown sailor-profile --bogus
run profile-direct-novalue sailor-profile --model OPT-350M --out
run profile-direct-child sailor-profile --child

# --- worker (sailor-worker started by hand)
run worker-none sailor-worker
run worker-unknown sailor-worker --bogus
run worker-positional sailor-worker extra
run worker-novalue sailor-worker --spec
run worker-bad-rank sailor-worker --spec s.json --rank x --store file:/tmp/x
run worker-bad-rank-unknown sailor-worker --rank x --bogus
run worker-unknown-bad-rank sailor-worker --bogus --rank x
run worker-bad-generation sailor-worker --generation 1x --spec s --rank 0 --store file:x
run worker-bad-timeout sailor-worker --timeout "" --spec s --rank 0 --store file:x
run worker-bad-store sailor-worker --spec s --rank 0 --store nohostport
run worker-bad-port sailor-worker --spec s --rank 0 --store host:x
run worker-no-store sailor-worker --spec s --rank 0
run worker-no-rank sailor-worker --spec s --store file:x
run worker-eq sailor-worker --spec=s --rank=0 --store=file:x
run worker-help sailor-worker --help
run worker-missing-spec sailor-worker --spec "$WORK/fix/none.json" --rank 0 --store file:"$WORK/x"
run worker-standby sailor-worker --join - --store file:x --checkpoint-every x

echo "golden: $(ls "$OUT" | wc -l) cases in $OUT"
