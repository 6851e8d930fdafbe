# shellcheck shell=bash disable=SC2154  # $cluster and $dir: set by the sourcing test
# Shared by the Slurm tests (sourced): skip and fail, and the cluster they run on. Expects
# $cluster (scripts/slurm-cluster) and $dir (its state directory, the fixture's) to be set.

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
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
