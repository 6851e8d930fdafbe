#pragma once
// A plan in one line, as planner_bench and planner_scale print it:
// "mbs 4 | 0-4: 32x V100-16 tp4 us-central1-a | 5-25: 16x A100-40 tp4 us-central1-a, ..."

#include <string>

#include "sailor/planning/plan.hpp"

namespace sailor::bench {

inline std::string planBrief(const Plan& plan) {
  std::string out = "mbs " + std::to_string(plan.microbatch_size);
  for (const Stage& st : plan.stages)
    out += " | " + std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer) + ": " +
           st.replicaSummary();
  return out;
}

}  // namespace sailor::bench
