// A fixed-size job over an availability trace, two strategies (trace_whatif.hpp). In this file:
// stateTransferSeconds (the links' model of moving model state), traceRowTimes, and the
// strategies' walk over the trace (compareTraceStrategies).
//
// NOTE [Reconfiguration cost model]: a reconfiguration to a new plan costs, in this order:
//   - re-plan: the planner's own search time for the row, as measured when it ran (the job
//     following the planner waits for it; keeping the first plan searches nothing);
//   - tear-down of the old process groups, 3 s, and set-up of the new ones, 4.5 s: SAILOR's
//     measured figures for OPT-350M when 4 GPUs join 16 (SOSP'25);
//     communicator set-up grows with the ranks (NCCL's bootstrap gathers every rank's address),
//     which this constant does not model;
//   - state transfer: every GPU of the new plan receives the weights, gradients and optimizer
//     state of its layers (the simulator's model-state bytes per GPU) from the best-connected
//     GPU of the old plan that held those layers, all at once, over the scenario's link between
//     their zones: the slowest transfer. A GPU whose stage, type and zone are unchanged keeps
//     its state. After a pause (no old plan running) the state is read from the checkpoint in
//     the GPU's own zone (the same-zone link);
//   - rebuild of the model and optimizer, 2 s, and the data loaders set to the position, 0.5 s
//     (SAILOR's figures, same source).
// The GPUs of the new plan are paid from the start of the reconfiguration. A preempted plan is
// assumed to have saved its state when its GPUs left (an asynchronous checkpoint written within
// the grace period): no iteration is lost in either strategy, so the comparison is of the
// strategies, not of checkpoint intervals. A reconfiguration that outlasts its row still
// completes; the next row then starts from the new plan.
#include "sailor/planning/trace_whatif.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "sailor/core/error.hpp"

namespace sailor {

namespace {

const MemoryBreakdown* memoryOf(const Prediction& p, int stage, int replica) {
  for (const MemoryBreakdown& m : p.memory)
    if (m.stage == stage && m.replica == replica) return &m;
  return nullptr;
}

bool overlaps(const Stage& a, const Stage& b) {
  return a.first_layer <= b.last_layer && b.first_layer <= a.last_layer;
}

// Seconds for one replica of a new stage to receive its state from the best old holder.
double replicaTransferSeconds(const Plan* from, const Stage& stage, const Replica& r, double bytes,
                              const Scenario& scenario) {
  if (!from)  // from the checkpoint, in the replica's own zone
    return scenario.link({r.zone, r.gpu_type, r.zone, r.gpu_type, r.tp})
        .transferSeconds(bytes, r.tp);
  double best = std::numeric_limits<double>::infinity();
  for (const Stage& old : from->stages) {
    if (!overlaps(old, stage)) continue;
    for (const Replica& o : old.replicas) {
      if (old.first_layer == stage.first_layer && old.last_layer == stage.last_layer && o == r)
        return 0;  // the same GPUs keep the same layers
      best = std::min(best, scenario.link({o.zone, o.gpu_type, r.zone, r.gpu_type, r.tp})
                                .transferSeconds(bytes, r.tp));
    }
  }
  return best;
}

}  // namespace

double stateTransferSeconds(const Plan* from, const Plan& to, const Prediction& to_prediction,
                            const Scenario& scenario) {
  double slowest = 0;
  for (std::size_t s = 0; s < to.stages.size(); ++s) {
    const Stage& stage = to.stages[s];
    for (std::size_t k = 0; k < stage.replicas.size(); ++k) {
      const MemoryBreakdown* m = memoryOf(to_prediction, static_cast<int>(s), static_cast<int>(k));
      if (!m) continue;
      slowest = std::max(slowest, replicaTransferSeconds(from, stage, stage.replicas[k],
                                                         m->model_state_bytes, scenario));
    }
  }
  return slowest;
}

std::vector<double> traceRowTimes(const std::vector<std::string>& labels) {
  std::vector<double> times;
  double first = 0, previous = -std::numeric_limits<double>::infinity();
  for (const std::string& label : labels) {
    char* end = nullptr;
    const double t = std::strtod(label.c_str(), &end);
    if (label.empty() || *end != '\0' || !std::isfinite(t))
      throw InputError("trace", "row label \"" + label + "\"",
                       "the row's time in seconds (Timestamp or Time) for --trace-iterations");
    if (t < previous)
      throw InputError("trace", "row label \"" + label + "\"",
                       "a time no earlier than the row before");
    if (times.empty()) first = t;
    previous = t;
    times.push_back(t - first);
  }
  return times;
}

namespace {

// GPUs a plan uses per (GPU type, zone).
std::map<std::pair<std::string, std::string>, int> gpusOf(const Plan& p) {
  std::map<std::pair<std::string, std::string>, int> n;
  for (const Stage& s : p.stages)
    for (const Replica& r : s.replicas) n[{r.gpu_type, r.zone}] += r.tp;
  return n;
}

bool hasGpusFor(const Scenario& sc, const Plan& p) {
  for (const auto& [site, n] : gpusOf(p)) {
    const Pool* pool = sc.findPool(site.second, site.first);
    if (!pool || pool->count < n) return false;
  }
  return true;
}

struct Running {
  const Plan* plan = nullptr;
  const Prediction* prediction = nullptr;
};

// Walks the windows for one strategy: `pick` gives the plan (and its prediction) a window runs,
// or nothing; `search` whether a reconfiguration waits for the window's search.
template <class Pick>
StrategyOutcome walk(const std::string& name, const std::vector<TraceWindow>& windows,
                     double iterations, const ReconfigurationConstants& c, Pick pick, bool search) {
  StrategyOutcome o;
  o.name = name;
  Running now;
  bool started = false;
  double t = windows.empty() ? 0 : windows.front().start_s;
  for (std::size_t k = 0; k < windows.size(); ++k) {
    const TraceWindow& w = windows[k];
    const double end =
        k + 1 < windows.size() ? windows[k + 1].start_s : std::numeric_limits<double>::infinity();
    t = std::max(t, w.start_s);
    const Running next = pick(w);
    const bool same = now.plan && next.plan && *now.plan == *next.plan;
    if (!same && next.plan) {
      ReconfigurationPhases ph;
      ph.replan_s = search ? w.replan_s : 0;
      ph.teardown_s = now.plan ? c.teardown_s : 0;
      ph.group_setup_s = c.group_setup_s;
      ph.state_transfer_s =
          stateTransferSeconds(now.plan, *next.plan, *next.prediction, w.scenario);
      ph.rebuild_s = c.rebuild_s;
      if (!started) {  // the job's start: both strategies pay one
        o.start = ph;
        started = true;
      } else {
        ++o.reconfigurations;
        o.phases.replan_s += ph.replan_s;
        o.phases.teardown_s += ph.teardown_s;
        o.phases.group_setup_s += ph.group_setup_s;
        o.phases.state_transfer_s += ph.state_transfer_s;
        o.phases.rebuild_s += ph.rebuild_s;
      }
      o.usd += ph.total() * next.prediction->usd_per_hour / 3600.0;
      t += ph.total();
    }
    now = next;
    if (!now.plan) {
      if (std::isfinite(end)) {  // the last row lasts: waiting there never ends
        o.waiting_s += std::max(0.0, end - t);
        t = std::max(t, end);
      }
      continue;
    }
    const double it_s = now.prediction->iteration_s;
    const double span = std::max(0.0, end - t);
    const double left = iterations - o.iterations;
    if (span >= left * it_s) {  // finishes in this window
      o.training_s += left * it_s;
      o.usd += left * it_s * now.prediction->usd_per_hour / 3600.0;
      o.iterations = iterations;
      o.end_s = t + left * it_s;
      o.finished = true;
      return o;
    }
    o.training_s += span;
    o.usd += span * now.prediction->usd_per_hour / 3600.0;
    o.iterations += span / it_s;
    t = end;
  }
  o.end_s = windows.empty() ? 0 : std::max(t, windows.back().start_s);
  return o;
}

}  // namespace

std::vector<StrategyOutcome> compareTraceStrategies(const std::vector<TraceWindow>& windows,
                                                    double iterations,
                                                    const ReconfigurationConstants& constants) {
  if (!(iterations > 0))
    throw InputError("--trace-iterations", std::to_string(iterations), "a positive count");
  std::vector<StrategyOutcome> out;
  out.push_back(walk(
      "re-plan at every change", windows, iterations, constants,
      [](const TraceWindow& w) {
        return w.plan ? Running{&*w.plan, &w.prediction} : Running{};
      },
      true));
  const TraceWindow* first = nullptr;
  for (const TraceWindow& w : windows)
    if (w.plan) {
      first = &w;
      break;
    }
  out.push_back(walk(
      "keep the first plan", windows, iterations, constants,
      [first](const TraceWindow& w) {
        if (!first || !hasGpusFor(w.scenario, *first->plan)) return Running{};
        return Running{&*first->plan, &first->prediction};
      },
      false));
  return out;
}

}  // namespace sailor
