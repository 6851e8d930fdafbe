// The planner's figures (declarations and contracts in planner_internal.hpp):
//   Constraints::admits / admitsBound   one check of PlannerOptions' caps and floor; admits
//                                       refuses figures that are not finite
//   extendSummary                       the partial-plan recurrence: one stage in front
//   dominates, insertPareto             Pareto dominance between partial plans
//   completeFigures                     a complete plan's T, cost per iteration, per hour
//   planKey, searchKey, seedSignature, knownKey   canonical texts of plans
//   placementWindow, Known              the known-plan bound
#include <algorithm>
#include <cmath>
#include <iterator>

#include "planner_internal.hpp"

namespace sailor::planner_detail {

Constraints::Constraints(const PlannerOptions& options)
    : max_usd_per_iteration_(options.max_usd_per_iteration),
      max_usd_per_hour_(options.max_usd_per_hour),
      min_iterations_per_s_(options.min_iterations_per_s),
      max_gpus_(options.max_gpus) {}

bool Constraints::admits(double iterations_per_s, double usd_per_iteration, double usd_per_hour,
                         std::optional<int> gpus) const {
  // Never rank an infinite or NaN figure (a degenerate link or price that validation missed).
  if (!(iterations_per_s > 0 && std::isfinite(iterations_per_s)) ||
      !std::isfinite(usd_per_iteration) || !std::isfinite(usd_per_hour))
    return false;
  if (max_usd_per_iteration_ && usd_per_iteration > *max_usd_per_iteration_) return false;
  if (max_usd_per_hour_ && usd_per_hour > *max_usd_per_hour_) return false;
  if (min_iterations_per_s_ && iterations_per_s < *min_iterations_per_s_) return false;
  if (max_gpus_ && gpus && *gpus > *max_gpus_) return false;
  return true;
}

bool Constraints::admitsBound(double t_lb, double usd_lb, int gpus) const {
  if (min_iterations_per_s_ && t_lb * *min_iterations_per_s_ > 1.0) return false;
  if (max_usd_per_iteration_ && usd_lb > *max_usd_per_iteration_) return false;
  if (max_gpus_ && gpus > *max_gpus_) return false;
  return true;
}

bool Constraints::any() const {
  return max_usd_per_iteration_ || max_usd_per_hour_ || min_iterations_per_s_ || max_gpus_;
}

bool Constraints::byCost() const {
  return max_usd_per_iteration_.has_value() || max_usd_per_hour_.has_value();
}

Summary extendSummary(const StageFigures& stage, const Summary* child) {
  Summary n;
  const double c = stage.fb + 2 * stage.t_in + 2 * (child ? child->boundary_in : 0.0);
  n.maxc = std::max(c, child ? child->maxc : 0.0);
  n.sumc = c + (child ? child->sumc : 0.0);
  n.maxx = std::max(stage.x, child ? child->maxx : 0.0);
  n.rate = stage.rate + (child ? child->rate : 0.0);
  n.egress = stage.egress + (child ? child->egress : 0.0);
  n.gpus = (child ? child->gpus : 0) + stage.gpus;
  n.boundary_in = stage.t_in;
  n.work = stage.rate * c + (child ? child->work : 0.0);
  n.fits = stage.fits && (child ? child->fits : true);
  return n;
}

bool dominates(const Summary& a, const Summary& b, const Dims& d) {
  if (!a.fits && b.fits) return false;
  if (a.maxc > b.maxc || a.sumc > b.sumc || a.maxx > b.maxx || a.boundary_in > b.boundary_in)
    return false;
  if (d.cost && (a.rate > b.rate || a.egress > b.egress)) return false;
  if (d.gpus && a.gpus > b.gpus) return false;
  if (d.per_hour &&
      (a.maxc != b.maxc || a.sumc != b.sumc || a.maxx != b.maxx || a.boundary_in != b.boundary_in))
    return false;
  return true;
}

void insertPareto(std::vector<Entry>& set, const Entry& e, const Dims& d) {
  for (const auto& x : set)
    if (dominates(x.s, e.s, d)) return;
  set.erase(std::remove_if(set.begin(), set.end(),
                           [&](const Entry& x) { return dominates(e.s, x.s, d); }),
            set.end());
  set.push_back(e);
}

void completeFigures(const Summary& s, int M, Candidate& c) {
  c.iteration_s = (M - 1) * s.maxc + s.sumc + s.maxx;
  c.usd = s.rate * c.iteration_s / 3600.0 + s.egress;
  c.usd_per_hour = c.usd * 3600.0 / c.iteration_s;
}

std::string planKey(const Plan& p) {
  std::string k = std::to_string(p.microbatch_size);
  for (const auto& st : p.stages) {
    k += "|" + std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer);
    for (const auto& r : st.replicas)
      k += "," + r.gpu_type + "/" + std::to_string(r.tp) + "/" + r.zone;
  }
  return k;
}

std::string searchKey(const Candidate& c) {
  std::string k = std::to_string(c.plan.microbatch_size);
  for (size_t s = 0; s < c.plan.stages.size(); ++s) {
    const Stage& st = c.plan.stages[s];
    k += "|" + std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer);
    for (size_t j = 0; j < st.replicas.size(); ++j)
      k += "," + st.replicas[j].gpu_type + "/" + std::to_string(st.replicas[j].tp) + "/" +
           std::to_string(c.sites[s][j]);
  }
  return k;
}

std::string seedSignature(int D, int site, int tp, const std::vector<int>& last) {
  std::string k =
      "seed/" + std::to_string(D) + "/" + std::to_string(site) + "/" + std::to_string(tp);
  for (int r : last) k += "/" + std::to_string(r);
  return k;
}

std::string knownKey(const Candidate& c) {
  const int site0 = c.sites.front().front();
  const int tp0 = c.plan.stages.front().replicas.front().tp;
  std::vector<int> last;
  for (size_t s = 0; s < c.plan.stages.size(); ++s) {
    const Stage& st = c.plan.stages[s];
    for (size_t j = 0; j < st.replicas.size(); ++j)
      if (c.sites[s][j] != site0 || st.replicas[j].tp != tp0) return c.key;
    last.push_back(st.last_layer);
  }
  return seedSignature(static_cast<int>(c.plan.stages.front().replicas.size()), site0, tp0, last);
}

size_t placementWindow(int top_k, bool h6_region_pools) {
  return static_cast<size_t>(top_k) + (h6_region_pools ? 150 : 0);
}

void Known::add(const std::string& key, double t, double c) {
  if (!keys_.insert(key).second) return;
  const double v = by_cost_ ? c : t;
  if (best_.size() < window_) {
    best_.push(v);
  } else if (v < best_.top()) {
    best_.pop();
    best_.push(v);
  }
  if (best_.size() >= window_) threshold_ = best_.top();
  if (!pareto_ || dominated(t, c)) return;
  // Insert (t, c) and drop the points it dominates (iteration_s >= t and usd >= c).
  auto pos = std::lower_bound(front_.begin(), front_.end(),
                              std::make_pair(t, -std::numeric_limits<double>::infinity()));
  auto last = pos;
  while (last != front_.end() && last->second >= c) ++last;
  pos = front_.erase(pos, last);
  front_.insert(pos, {t, c});
}

bool Known::dominated(double t, double c) const {
  auto it = std::upper_bound(front_.begin(), front_.end(),
                             std::make_pair(t, std::numeric_limits<double>::infinity()));
  return it != front_.begin() && std::prev(it)->second <= c;
}

bool Known::prunes(double t_lb, double c_lb) const {
  if ((by_cost_ ? c_lb : t_lb) <= threshold_) return false;
  return !pareto_ || dominated(t_lb, c_lb);
}

}  // namespace sailor::planner_detail
