#include "sailor/planning/plan_cache.hpp"

#include <algorithm>
#include <utility>

namespace sailor {

PlanCache::Key PlanCache::keyOf(const Scenario& scenario, const Job& job,
                                const PlannerOptions& options, const void* catalog,
                                const void* profiles) {
  return {scenario.toJson().dump(), job.toJson().dump(), options, catalog, profiles};
}

PlanCache::PlanCache(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

std::shared_ptr<const PlanResult> PlanCache::find(const Key& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.key == key; });
  if (it == items_.end()) return nullptr;
  items_.splice(items_.begin(), items_, it);
  return items_.front().result;
}

void PlanCache::store(Key key, std::shared_ptr<const PlanResult> result) {
  if (!result || result->time_limit) return;
  std::lock_guard<std::mutex> lock(mutex_);
  items_.remove_if([&](const Item& i) { return i.key == key; });
  items_.push_front({std::move(key), std::move(result)});
  while (items_.size() > capacity_) items_.pop_back();
}

size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return items_.size();
}

}  // namespace sailor
