// Results of finished searches by their inputs (re-planning after an edit). The studio
// re-plans on every edit; many edits bring back inputs it has planned before: undo and redo, a
// count typed and typed back, an objective or a constraint toggled and toggled back. A search
// whose inputs equal an earlier one's gives the same result (the planner is deterministic for
// given inputs, whatever its thread count), so such a re-plan is answered from here at once.
//
// What counts as the same inputs: the scenario and the job by their canonical JSON (every field
// that reaches the planner), every PlannerOptions field (its defaulted operator==), and the
// catalogue and profile set by identity: the caller's immutable objects (the studio shares one
// of each across searches). Only complete results are kept: one cut by a time limit depends on
// the machine's speed at the time.
//
// Thread-safe (one mutex): the studio's planning worker looks up and stores.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "sailor/model/job.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

class PlanCache {
 public:
  // The inputs of one search, as the cache compares them.
  struct Key {
    std::string scenario;  // canonical JSON text
    std::string job;
    PlannerOptions options;
    const void* catalog = nullptr;   // identity
    const void* profiles = nullptr;  // identity; null: the catalogue's analytic profile
    bool operator==(const Key&) const = default;
  };
  static Key keyOf(const Scenario& scenario, const Job& job, const PlannerOptions& options,
                   const void* catalog, const void* profiles);

  explicit PlanCache(size_t capacity = 32);
  // The result of a search with these inputs, or null; a hit becomes the most recently used.
  std::shared_ptr<const PlanResult> find(const Key& key);
  // Keeps a complete result (PlanResult::time_limit unset), dropping the least recently used
  // beyond the capacity; an incomplete one is not kept.
  void store(Key key, std::shared_ptr<const PlanResult> result);
  size_t size() const;

 private:
  struct Item {
    Key key;
    std::shared_ptr<const PlanResult> result;
  };
  size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Item> items_;  // most recently used first
};

}  // namespace sailor
