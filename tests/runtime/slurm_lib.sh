# shellcheck shell=bash disable=SC2154  # $cluster, $dir, $store: set by the sourcing test
# Shared by the Slurm tests (sourced): skip and fail, what they need, the cluster they run on,
# and queries of the run store. Expects $cluster (scripts/slurm-cluster) and $dir (its state
# directory, the fixture's) to be set, and $store (the run store) before the queries are used.

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  diagnose >&2
  exit 1
}
# What a failure leaves in $work (removed on exit): each run's last warnings and its end, the
# stderr of `sailor run`, and the last lines each worker wrote to stderr.
diagnose() {
  [[ -n ${work:-} && -d $work ]] || return 0
  local f
  for f in "$work"/*.jsonl; do
    [[ -f $f ]] || continue
    echo "--- $(basename "$f"): $(grep -E '"event":"(warning|finished)"' "$f" | tail -n 4 | cut -c1-600)"
  done
  for f in "$work"/*.err "$work"/cluster-runs/*/events/*.err; do
    [[ -s $f ]] || continue
    echo "--- ${f#"$work"/}: $(tail -n 3 "$f" | cut -c1-400)"
  done
}

# Uses the cluster running in $dir (the CTest fixture's), else starts one and stops it on exit;
# a scratch directory $work, removed on exit; SLURM_CONF and the rest exported for the cluster.
slurm_work_on_cluster() {
  local prefix=$1
  work=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX")
  started=0
  trap slurm_cleanup EXIT
  if "$cluster" status --dir "$dir" >/dev/null; then
    echo "using the running cluster in $dir"
  else
    "$cluster" start --dir "$dir" --timeout 60 || fail "the cluster did not start"
    started=1
  fi
  eval "$("$cluster" env --dir "$dir")"
}
slurm_cleanup() {
  local rc=$?
  if [[ $started == 1 ]]; then "$cluster" stop --dir "$dir" >/dev/null || rc=1; fi
  rm -rf "$work"
  exit "$rc"
}

# slurm_require COMMAND...: skips (77) unless root (the cluster's daemons run as root) and every
# command is installed.
slurm_require() {
  [[ $(id -u) -eq 0 ]] || skip "not root: the test Slurm cluster's daemons run as root"
  local cmd
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null || skip "$cmd not found: install slurm-wlm, munge, sqlite3, jq and iproute2"
  done
}

# wait_for WHAT SECONDS COMMAND...: polls every 0.2 s; the bound only keeps a broken cluster from
# hanging the test.
wait_for() {
  local what=$1 limit=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < end)) || fail "$what: not within $limit s"
    sleep 0.2
  done
}
q() { sqlite3 "$store" "$1"; }
last_run() { q "SELECT MAX(id) FROM runs"; }
job_of() { q "SELECT job_id FROM runs WHERE id = $1"; }
in_squeue() { [[ -n $(squeue -h -j "$1" -o %i 2>/dev/null) ]]; }
iterations() { q "SELECT COUNT(*) FROM iterations WHERE run_id = $1"; }
has_iterations() { (($(iterations "$1") >= $2)); }
# new_run_iterations PREV N: a run newer than run PREV (any run when PREV is empty) has stored at
# least N iterations.
new_run_iterations() {
  local run
  run=$(last_run)
  [[ -n $run && ($1 == "" || $run -gt $1) ]] && has_iterations "$run" "$2"
}
# Worker processes of a run: a sailor-worker whose command line names the run directory.
workers_of() { pgrep -f "sailor-worker --spec $1/spec.json" || true; }
# Jobs in the queue submitted from this test's scratch directory (run directories are created
# beside its store, under $work): the other Slurm tests share the cluster and submit their own.
our_jobs() { squeue -h -o %Z 2>/dev/null | grep -c -F "$work" || true; }
# same_losses REFERENCE RUN N [SKIP]: run RUN stored iterations 0..N-1, each loss equal to run
# REFERENCE's within 1e-9 (relative; float64, docs/training.md "Correctness"), but iteration SKIP
# (one whose loss a lost rank's report is missing from: the run's warning says so).
same_losses() {
  q "SELECT loss FROM iterations WHERE run_id = $1 ORDER BY iteration" >"$work/reference.loss"
  q "SELECT loss FROM iterations WHERE run_id = $2 ORDER BY iteration" >"$work/run.loss"
  paste "$work/reference.loss" "$work/run.loss" | awk -v n="$3" -v skip="${4:--1}" '
    { d = $1 - $2; if (d < 0) d = -d; a = $1 < 0 ? -$1 : $1; if (d > 1e-9 * a && bad == "" && NR - 1 != skip) bad = NR - 1; ++rows }
    END { if (rows != n || bad != "") { print "first differing iteration " bad ", " rows " of " n " stored"; exit 1 } }' ||
    fail "run $2: losses differ from run $1's"
}
