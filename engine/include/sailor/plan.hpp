// Plan: microbatch size and pipeline stages; a stage is a contiguous range of plan layers and
// its data-parallel replicas, each a tensor-parallel group of one GPU type inside one node of
// one zone.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/catalog.hpp"
#include "sailor/job.hpp"
#include "sailor/scenario.hpp"

namespace sailor {

struct Replica {
  std::string gpu_type;
  int tp = 1;  // tensor-parallel degree: GPUs of this replica, all in one node
  std::string zone;
  bool operator==(const Replica&) const = default;
};

struct Stage {
  int first_layer = 0;  // plan layer numbering (0 = embedding), inclusive
  int last_layer = 0;   // inclusive
  std::vector<Replica> replicas;
  int layerCount() const { return last_layer - first_layer + 1; }
  // The replicas grouped by (GPU type, tp, zone), in that order:
  // "2x A100-40 tp1 us-central1-a, 2x A100-40 tp1 us-central1-b".
  std::string replicaSummary() const;
  bool operator==(const Stage&) const = default;
};

// Whether a global batch of G sequences runs as M = G / b whole microbatches of b sequences over
// D replicas with at least one microbatch each: G >= 1, G a multiple of b, M >= D. M need not be a
// multiple of D: replicas then take ceil(M / D) or floor(M / D) microbatches.
bool batchFits(int global_batch_size, int microbatch_size, int replicas);

struct Plan {
  int microbatch_size = 1;
  std::vector<Stage> stages;

  int gpuCount() const;
  bool operator==(const Plan&) const = default;
  // Microbatches the busiest replica of a stage processes: ceil(G / (b * D_s)), which sets the
  // iteration time when G / b is not a multiple of D_s (the others take one fewer). Stages may
  // have different data-parallel degrees; the pipeline runs max over stages.
  int microbatches(int global_batch_size, const Stage& s) const;

  // The global batch against the plan, the one rule of the simulator (via validate) and the
  // runtime (RunSpec::build): G a positive multiple of the microbatch size (whole microbatches)
  // and M = G / b at least every stage's replicas (none stays idle): batchFits. Throws
  // InputError naming global_batch_size.
  void checkGlobalBatch(int global_batch_size) const;

  // Structural checks only (shape, ranges); validate() checks against model and scenario.
  static Plan fromJson(const nlohmann::json& j);
  nlohmann::json toJson() const;

  // Checks the plan against the job's model (layers cover 0..L+1 contiguously), the catalogue
  // (GPU types, tp within a node), the scenario (zones, pools, GPU counts) and the job's
  // global batch (checkGlobalBatch). Throws.
  void validate(const Job& job, const Catalog& catalog, const Scenario& scenario) const;
};

}  // namespace sailor
