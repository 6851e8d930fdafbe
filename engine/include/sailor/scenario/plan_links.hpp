// The links a plan's transfers use, each with its figure and where that figure comes from
// (declared, fitted, catalogue, built-in): what `sailor simulate` lists and the studio's plan
// inspector shows. The same links the simulator takes (sim::Links, with the replicas placed on
// nodes as sim::placeOnNodes places them); docs/simulator.md, "Links".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

struct LinkUse {
  enum class Use { Pipeline, DataParallel, TiedEmbedding };
  Use use = Use::Pipeline;
  int stage = 0;  // pipeline: the sending stage (to stage + 1); data-parallel: the ring's stage
  std::string from_zone;
  std::string to_zone;
  std::string from_gpu;
  std::string to_gpu;
  int gpus = 1;          // GPUs of each node sending at once
  bool in_node = false;  // both ends on one node: the node's fabric
  int pairs = 1;        // transfers between replicas that use it (a boundary pair twice: both ways)
  double gb_per_s = 0;  // the link's figure for the node (a fit's at a 64 MB message)
  double latency_s = 0;  // 0 for a fit
  LinkSource source = LinkSource::BuiltIn;
  std::string description;  // ResolvedLink::source: the entry, default or catalogue family

  nlohmann::json toJson() const;
};
const char* linkUseName(LinkUse::Use u);  // "pipeline", "data-parallel", "tied-embedding"

// The distinct links of `plan`: per stage boundary the pairs' links both ways, per stage its
// data-parallel ring's, and with tied embeddings the first and last stages' pairs. Pairs of one
// kind (use, stage, zones, GPU types, count, in a node) are counted, not repeated. Throws
// InputError for a replica on a GPU type the catalogue lacks.
std::vector<LinkUse> linksOfPlan(const Plan& plan, const Scenario& scenario, const Catalog& catalog,
                                 bool tied_embeddings = false);

}  // namespace sailor
