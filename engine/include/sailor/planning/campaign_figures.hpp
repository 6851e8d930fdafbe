// The figures of a job's whole training run on one plan (Campaign): planCampaign in
// sailor/planning/campaign.hpp computes them (NOTE [Failures and checkpoints] there); a plan of a
// search whose job has a training budget carries them (PlannedPlan::campaign).
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace sailor {

struct Campaign {
  double iterations = 0;  // the budget's, whole iterations
  double tokens = 0;      // iterations x global batch x sequence length
  double compute_s = 0;   // failure-free: iterations x the plan's iteration time
  double gpus = 0;
  double mtbf_s = 0;                 // the plan's GPUs together (M)
  double checkpoint_bytes = 0;       // one checkpoint, all shards
  double checkpoint_write_s = 0;     // delta
  double checkpoint_interval_s = 0;  // Daly's tau, seconds of work between checkpoints
  double restart_s = 0;              // R
  // Expected wall time and its parts: compute, checkpoint writes, work redone and restarts after
  // failures (the rest). +inf: failures come faster than the run can checkpoint.
  double wall_s = 0;
  double checkpointing_s = 0;
  double expected_failures = 0;
  // Spot pools with a preemption rate: their GPUs, the expected preemptions (of which handled in
  // place) and the time standing still for the in-place ones.
  double spot_gpus = 0;
  double expected_preemptions = 0;
  double preemptions_in_place = 0;
  double preemption_pause_s = 0;
  double goodput = 0;  // compute_s / wall_s
  // Dollars: the GPUs for the whole wall time, egress for every iteration run (redone ones too),
  // checkpoint storage for the run's duration.
  double gpu_usd = 0, egress_usd = 0, storage_usd = 0, total_usd = 0;
  double tokens_per_usd = 0;
  bool finishes() const { return std::isfinite(wall_s); }
  double days() const { return wall_s / 86400; }
  nlohmann::json toJson() const;  // non-finite figures as null
};

}  // namespace sailor
