// The Slurm launcher (launcher_slurm.cpp) and the scheduler commands it runs.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "launcher.hpp"

namespace sailor::runner {

struct SlurmLaunch {
  std::string run_dir;  // holds sailor.sbatch, spec.json, token; workers write events/ there
  std::string job_id;   // empty: launch() submits run_dir/sailor.sbatch; else attach to it
};

// The workers of a run as one Slurm batch job (docs/launch.md "Slurm runs").
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
