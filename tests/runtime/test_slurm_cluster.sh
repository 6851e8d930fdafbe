#!/usr/bin/env bash
# The one-node Slurm cluster of scripts/slurm-cluster takes real jobs.
# Usage: test_slurm_cluster.sh start|stop|test SLURM_CLUSTER_SCRIPT STATE_DIR
#   start, stop: the CTest fixture slurm_cluster's setup and cleanup (tests/runtime/CMakeLists.txt)
#   test: batch and srun jobs, squeue while they run, scancel, refused submissions. Uses the
#         cluster in STATE_DIR when it runs (the fixture's); else starts one and stops it after.
# Exits 77 (CTest's SKIP_RETURN_CODE here) when not root or Slurm and munge are not installed:
# the cluster's daemons run as root, and scripts/install-deps --test installs the packages.
set -euo pipefail

[[ $# -eq 3 ]] || { echo "usage: test_slurm_cluster.sh start|stop|test SCRIPT STATE_DIR" >&2; exit 2; }
mode=$1
cluster=$2
dir=$3

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

[[ $(id -u) -eq 0 ]] || skip "not root: the one-node Slurm cluster's daemons run as root"
for cmd in munged slurmctld slurmd sbatch srun squeue scancel sinfo scontrol; do
  command -v "$cmd" >/dev/null || skip "$cmd not found: install slurm-wlm and munge (scripts/install-deps --test)"
done

case $mode in
  # 60 s rather than the script's 30: ctest runs this beside other suites on a 2-core machine.
  start) exec "$cluster" start --dir "$dir" --timeout 60 ;;
  stop) exec "$cluster" stop --dir "$dir" ;;
  test) ;;
  *) echo "test_slurm_cluster.sh: unknown mode $mode" >&2; exit 2 ;;
esac

slurm_work_on_cluster sailor-slurm-test
# The job's output files are written by the job itself (as root, on this node).
chmod 0755 "$work"

# wait_for WHAT SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds. The bound only
# keeps a broken cluster from hanging the test; a healthy one answers within a second or two.
wait_for() {
  local what=$1 seconds=$2 deadline
  shift 2
  deadline=$((SECONDS + seconds))
  until "$@"; do
    ((SECONDS < deadline)) || fail "$what: not within ${seconds} s"
    sleep 0.2
  done
}
job_state() { squeue -h -j "$1" -o %T 2>/dev/null || true; }
is_running() { [[ $(job_state "$1") == RUNNING ]]; }
is_gone() { [[ -z $(job_state "$1") ]]; }
final_state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }

# 1. Two tasks through srun: one line from each rank, on this node.
# shellcheck disable=SC2016 # the job's shell expands them, not this one
out=$(timeout 120 srun -n2 -l bash -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS"') \
  || fail "srun -n2 failed: $out"
ranks=$(echo "$out" | sed 's/^[0-9]*: //' | sort)
[[ $ranks == $'rank 0 of 2\nrank 1 of 2' ]] || fail "srun -n2 printed '$out', expected ranks 0 and 1 of 2"
echo "srun -n2: ok"

# 2. A batch job: in squeue while it runs, its output file after. It waits for a file the test
# creates, so squeue is checked while it surely runs, whatever the machine's load.
job=$(sbatch --parsable -o "$work/batch-%j.out" \
  --wrap "until [ -e '$work/release' ]; do sleep 0.1; done; sleep 2; echo ok") \
  || fail "sbatch --wrap refused: $job"
[[ $job =~ ^[0-9]+$ ]] || fail "sbatch --parsable printed '$job', expected a job id"
[[ -n $(job_state "$job") ]] || fail "job $job is not in squeue right after sbatch"
wait_for "job $job running in squeue" 60 is_running "$job"
squeue -h -j "$job" -o '%i %P %T %N'
touch "$work/release"
wait_for "job $job leaving squeue after it ends" 60 is_gone "$job"
[[ $(final_state "$job") == COMPLETED ]] || fail "job $job ended $(final_state "$job"), expected COMPLETED"
[[ -f $work/batch-$job.out ]] || fail "job $job left no output file $work/batch-$job.out"
[[ $(cat "$work/batch-$job.out") == ok ]] || fail "job $job wrote '$(cat "$work/batch-$job.out")', expected 'ok'"
echo "sbatch: ok (job $job)"

# 3. scancel of a running job: it leaves squeue, and its process with it. The process is named
# uniquely (exec -a) so that pgrep finds this job's and no other.
marker="sailor-slurm-test-$$"
job=$(sbatch --parsable -o /dev/null --wrap "exec bash -c 'exec -a $marker sleep 300'") || fail "sbatch refused: $job"
wait_for "job $job running in squeue" 60 is_running "$job"
wait_for "job $job's process" 30 pgrep -f "^$marker" >/dev/null
scancel "$job" || fail "scancel $job failed"
# Issue 26: a cancelled job leaves squeue "within seconds" (KillWait=5 in the generated slurm.conf).
wait_for "job $job leaving squeue after scancel" 15 is_gone "$job"
[[ $(final_state "$job") == CANCELLED ]] || fail "job $job ended $(final_state "$job"), expected CANCELLED"
no_process() { ! pgrep -f "^$marker" >/dev/null; }
wait_for "job $job's process ending after scancel" 15 no_process
echo "scancel: ok (job $job)"

# 4. Refused submissions: an unknown partition, more nodes than the partition has. Each exits
# non-zero with a reason, and no job is created.
before=$(squeue -h -o %i | wc -l)
if out=$(sbatch -p nosuch --wrap true 2>&1); then fail "sbatch -p nosuch was accepted: $out"; fi
[[ $out == *"nvalid partition"* ]] || fail "sbatch -p nosuch refused without naming the partition: $out"
if out=$(sbatch -p small -N2 --wrap true 2>&1); then fail "sbatch -p small -N2 (a 1-node partition) was accepted: $out"; fi
[[ $out == *"Node count specification invalid"* ]] || fail "sbatch -N2 refused for another reason: $out"
[[ $(squeue -h -o %i | wc -l) == "$before" ]] || fail "a refused submission left a job in squeue"
echo "refused submissions: ok"

if [[ $started == 1 ]]; then
  started=0
  "$cluster" stop --dir "$dir" || fail "the cluster did not stop"
  status=0
  "$cluster" status --dir "$dir" >/dev/null || status=$?
  [[ $status == 3 ]] || fail "daemons still running after stop (slurm-cluster status exit $status)"
fi
echo "PASS"
