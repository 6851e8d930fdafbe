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

struct Plan {
  int microbatch_size = 1;
  std::vector<Stage> stages;

  int gpuCount() const;
  bool operator==(const Plan&) const = default;
  // Microbatches each replica of a stage processes: ceil(G / (b * D_s)). Stages may have
  // different data-parallel degrees; the pipeline runs max over stages.
  int microbatches(int global_batch_size, const Stage& s) const;

  // Structural checks only (shape, ranges); validate() checks against model and scenario.
  static Plan fromJson(const nlohmann::json& j);
  nlohmann::json toJson() const;

  // Checks the plan against the job's model (layers cover 0..L+1 contiguously), the catalogue
  // (GPU types, tp within a node) and the scenario (zones, pools, GPU counts). Throws.
  void validate(const Job& job, const Catalog& catalog, const Scenario& scenario) const;
};

}  // namespace sailor
