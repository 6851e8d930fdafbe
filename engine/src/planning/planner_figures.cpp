// The planner's figures (declarations and contracts in planner_internal.hpp):
//   Constraints::admits / admitsBound   one check of PlannerOptions' caps and floor; admits
//                                       refuses figures that are not finite
//   extendSummary                       the partial-plan recurrence: one stage in front
//   dominates, insertPareto             Pareto dominance between partial plans
//   completeFigures                     a complete plan's T, cost per iteration, per hour
//   planKey, searchKey, seedSignature, knownKey   canonical texts of plans
//   placementWindow, Known              the known-plan bound
#include <algorithm>
#include <charconv>
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

bool Constraints::any() const {
  return max_usd_per_iteration_ || max_usd_per_hour_ || min_iterations_per_s_ || max_gpus_;
}

bool Constraints::byCost() const {
  return max_usd_per_iteration_.has_value() || max_usd_per_hour_.has_value();
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

namespace {
void appendInt(std::string& out, int v) {
  char buf[16];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
}  // namespace

// Appended in place: a 512-GPU plan's key is a few kB, built for every placement of the window.
std::string planKey(const Plan& p) {
  std::string k;
  appendInt(k, p.microbatch_size);
  for (const auto& st : p.stages) {
    k += '|';
    appendInt(k, st.first_layer);
    k += '-';
    appendInt(k, st.last_layer);
    for (const auto& r : st.replicas) {
      k += ',';
      k += r.gpu_type;
      k += '/';
      appendInt(k, r.tp);
      k += '/';
      k += r.zone;
    }
  }
  return k;
}

void materialize(const SearchContext& ctx, Candidate& c) {
  if (!c.plan.stages.empty() || c.stages.empty()) return;
  c.plan.microbatch_size = c.microbatch;
  c.plan.schedule = ctx.schedule;
  c.sites.clear();
  for (const StageRuns& sr : c.stages) {
    Stage st;
    st.first_layer = sr.first_layer;
    st.last_layer = sr.last_layer;
    std::vector<int> sites;
    for (const ReplicaRun& r : sr.runs)
      for (int j = 0; j < r.count; ++j) {
        st.replicas.push_back({ctx.site(r.site).gpu_type, r.tp, ""});
        sites.push_back(r.site);
      }
    c.plan.stages.push_back(std::move(st));
    c.sites.push_back(std::move(sites));
  }
}

// Appended piece by piece (no temporaries), a run's replica text once and then copied: the
// search writes a key for every plan it finds.
std::string searchKey(const SearchContext& ctx, const Candidate& c) {
  std::string k = std::to_string(c.microbatch);
  std::string piece;
  for (const StageRuns& sr : c.stages) {
    k += '|';
    appendInt(k, sr.first_layer);
    k += '-';
    appendInt(k, sr.last_layer);
    for (const ReplicaRun& r : sr.runs) {
      piece.assign(1, ',');
      piece += ctx.site(r.site).gpu_type;
      piece += '/';
      appendInt(piece, r.tp);
      piece += '/';
      appendInt(piece, r.site);
      k.reserve(k.size() + piece.size() * static_cast<size_t>(r.count));
      for (int j = 0; j < r.count; ++j) k += piece;
    }
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
  const ReplicaRun& first = c.stages.front().runs.front();
  std::vector<int> last;
  for (const StageRuns& sr : c.stages) {
    if (sr.runs.size() != 1 || sr.runs.front().site != first.site || sr.runs.front().tp != first.tp)
      return c.key;
    last.push_back(sr.last_layer);
  }
  return seedSignature(first.count, first.site, first.tp, last);
}

size_t placementWindow(int top_k, bool h6_region_pools) {
  return static_cast<size_t>(top_k) + (h6_region_pools ? 150 : 0);
}

bool Known::add(const std::string& key, double t, double c) {
  if (!keys_.insert(key).second) return false;
  addNew(t, c);
  return true;
}

void Known::addNew(double t, double c) {
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

}  // namespace sailor::planner_detail
