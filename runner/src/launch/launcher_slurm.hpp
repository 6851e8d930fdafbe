// The Slurm launcher (launcher_slurm.cpp) and the scheduler commands it runs.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "launcher.hpp"

namespace sailor::runner {

// A component of a run's job: one pool's tasks (its index is srun's --het-group).
struct SlurmComponent {
  std::string gpu_type, zone;
  int tasks = 0;  // ranks (not idle slots) the job was submitted with
};

// The tasks the job's components hold of GPU type `gpu_type` in `zone`; -1 when none runs it.
inline int componentTasks(const std::vector<SlurmComponent>& components,
                          const std::string& gpu_type, const std::string& zone) {
  int held = -1;
  for (const SlurmComponent& c : components)
    if (c.gpu_type == gpu_type && c.zone == zone) held = (held < 0 ? 0 : held) + c.tasks;
  return held;
}

struct SlurmLaunch {
  std::string run_dir;  // holds sailor.sbatch, spec.json, token; workers write events/ there
  std::string job_id;   // empty: launch() submits run_dir/sailor.sbatch; else attach to it
  // For the workers launched after the first (an elastic run's joiners): the job's components
  // and the environment the batch script gives its workers.
  std::vector<SlurmComponent> components;
  std::vector<std::pair<std::string, std::string>> worker_env;
  bool watch_nodes = false;  // read the job's nodes' states every 2 s (nodeStates)
};

// The workers of a run as one Slurm batch job (docs/launch.md "Slurm runs"). The first launch()
// submits the job (or attaches to it); a later one starts each worker as a job step of its own in
// the job's allocation (`srun --jobid J --overlap`, in the component of its pool), whose events
// go to events/worker-<index>.* in the run directory. sendControl() stores a command for a worker
// in the run's token-checked store (NOTE [Control through the store], elastic.hpp).
std::unique_ptr<Launcher> makeSlurmLauncher(SlurmLaunch config);

struct SlurmResult {
  int code = 0;
  std::string out, err;
};
// Runs a Slurm command (PATH lookup) and returns its exit code and output; throws
// std::runtime_error when it cannot be started or does not answer within `bound` (then killed).
SlurmResult slurmCommand(const std::vector<std::string>& argv, std::chrono::seconds bound);

struct SlurmJobState {
  std::string state;   // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT...; GONE
  std::string reason;  // squeue's %r / scontrol's Reason (a pending job's why)
};
// squeue -j ID, or scontrol show job ID once the job left the queue; GONE when neither knows it.
SlurmJobState jobState(const std::string& job_id);

}  // namespace sailor::runner
