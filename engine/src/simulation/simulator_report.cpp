// What the simulator reports (declared in sailor/simulation/simulator.hpp and
// simulator_internal.hpp): the breakdown of the busiest stage and the timeline (step 8), the cost
// of an iteration (step 9), every figure finite (step 10), the timeline as Chrome trace events and
// the prediction as JSON.
//   criticalPipeline, busiestStage, breakdownOf, sortTimeline   the breakdown and timeline
//   computeUsd, priceEgress   cost per iteration
//   requireFiniteFigures      every figure finite, else an InputError naming it
//   timelineTrace, Prediction::toJson
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sailor/core/error.hpp"
#include "simulator_internal.hpp"

namespace sailor {

using nlohmann::json;

namespace sim {

// ---- 8. Breakdown and timeline.

size_t criticalPipeline(const std::vector<PipelineRun>& runs, size_t critical) {
  size_t slowest = 0;
  for (size_t k = 1; k < runs.size(); ++k)
    if (runs[k].doneAt(critical) > runs[slowest].doneAt(critical)) slowest = k;
  return slowest;
}

// NOTE [Breakdown of the busiest stage]: the breakdown is that of the critical pipeline's
// bottleneck: its stage with the most work (compute, blocking transfers, data-parallel sync,
// step); its bubble is the rest of the iteration (fill, drain, waiting). The stage that ends
// last is not always it: a fast first stage ends with the pipeline's last backward and would
// report the slow stage's work as its own waiting. Near-equal work (relative 1e-9) goes to
// the stage that ends last.
size_t busiestStage(const PipelineRun& run, std::vector<StageTimes>& times,
                    const std::vector<double>& stage_end, size_t critical) {
  size_t cu = critical;
  double most = -1;
  for (size_t s = 0; s < times.size(); ++s) {
    const double work = run.busy[s] + run.comm[s] + times[s].dp_sync_s + times[s].optimizer_s;
    times[s].work_s = work;
    const double tol = 1e-9 * std::max(1.0, most);
    if (work > most + tol || (work > most - tol && stage_end[s] > stage_end[cu])) {
      most = std::max(most, work);
      cu = s;
    }
  }
  return cu;
}

TimeBreakdown breakdownOf(const PipelineRun& run, const std::vector<StageTimes>& times,
                          size_t stage, double iteration_s) {
  TimeBreakdown b;
  b.stage = static_cast<int>(stage);
  b.compute_s = run.busy[stage];
  b.p2p_s = run.comm[stage];
  b.dp_sync_s = times[stage].dp_sync_s;
  b.optimizer_s = times[stage].optimizer_s;
  b.bubble_s = std::max(0.0, iteration_s - run.busy[stage] - run.comm[stage] -
                                 times[stage].dp_sync_s - times[stage].optimizer_s);
  return b;
}

// The schedules emit each stage's ops in time order, so a stable bucketing by stage is the sort
// (each bucket checked, sorted only if it is not).
void sortTimeline(std::vector<TimelineOp>& ops, size_t P) {
  std::vector<size_t> offset(P + 1, 0);
  for (const auto& op : ops) ++offset[static_cast<size_t>(op.stage) + 1];
  for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
  std::vector<TimelineOp> sorted(ops.size());
  std::vector<size_t> fill(offset.begin(), offset.end() - 1);
  for (const auto& op : ops) sorted[fill[static_cast<size_t>(op.stage)]++] = op;
  auto by_start = [](const TimelineOp& x, const TimelineOp& y) { return x.start_s < y.start_s; };
  for (size_t st = 0; st + 1 < offset.size(); ++st) {
    auto first = sorted.begin() + static_cast<std::ptrdiff_t>(offset[st]);
    auto last = sorted.begin() + static_cast<std::ptrdiff_t>(offset[st + 1]);
    if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
  }
  ops = std::move(sorted);
}

// ---- 9. Cost per iteration: GPUs are rented for the whole iteration.

double computeUsd(const StageReplicas& stages, double iteration_s) {
  double usd = 0;
  for (const auto& reps : stages)
    for (const auto& d : reps) usd += d.usd_per_gpu_hour / 3600.0 * iteration_s * d.replica->tp;
  return usd;
}

double priceEgress(std::vector<EgressItem>& items, const Scenario& scenario) {
  double usd = 0;
  for (auto& it : items) {
    it.usd = it.bytes / 1e9 * scenario.egressUsdPerGb(it.from_zone, it.to_zone);
    usd += it.usd;
  }
  return usd;
}

}  // namespace sim

// ---- 10. Every figure finite. The inputs are bounded (profiles, the catalogue, scenarios), so
// this holds unless a product of bounded figures overflows; then the prediction is refused with
// the figure's name rather than printed as inf.

void requireFiniteFigures(const Prediction& p) {
  auto check = [](double v, const std::string& path) {
    if (!std::isfinite(v))
      throw InputError("prediction." + path, toText(v),
                       "a finite figure (an input figure is out of range: a profile's times or "
                       "memory, a GPU type's rates, memory or bandwidths, a link)");
  };
  check(p.iteration_s, "iteration_s");
  const TimeBreakdown& b = p.breakdown;
  for (const auto& [v, name] : {std::pair{b.compute_s, "compute_s"},
                                {b.bubble_s, "bubble_s"},
                                {b.p2p_s, "p2p_s"},
                                {b.dp_sync_s, "dp_sync_s"},
                                {b.optimizer_s, "optimizer_s"}})
    check(v, std::string("breakdown.") + name);
  check(p.iterations_per_s, "iterations_per_s");
  check(p.tokens_per_s, "tokens_per_s");
  for (size_t i = 0; i < p.memory.size(); ++i) {
    const MemoryBreakdown& m = p.memory[i];
    const std::string at = "memory[" + std::to_string(i) + "].";
    for (const auto& [v, name] : {std::pair{m.model_state_bytes, "model_state_bytes"},
                                  {m.activation_bytes, "activation_bytes"},
                                  {m.transient_bytes, "transient_bytes"},
                                  {m.gradient_bucket_bytes, "gradient_bucket_bytes"},
                                  {m.runtime_overhead_bytes, "runtime_overhead_bytes"},
                                  {m.communicator_bytes, "communicator_bytes"},
                                  {m.total_bytes, "total_bytes"},
                                  {m.capacity_bytes, "capacity_bytes"}})
      check(v, at + name);
  }
  for (size_t i = 0; i < p.stages.size(); ++i) {
    const StageTimes& st = p.stages[i];
    const std::string at = "stages[" + std::to_string(i) + "].";
    for (const auto& [v, name] : {std::pair{st.forward_s, "forward_s"},
                                  {st.backward_s, "backward_s"},
                                  {st.send_forward_s, "send_forward_s"},
                                  {st.send_backward_s, "send_backward_s"},
                                  {st.dp_sync_s, "dp_sync_s"},
                                  {st.optimizer_s, "optimizer_s"},
                                  {st.work_s, "work_s"}})
      check(v, at + name);
  }
  for (size_t i = 0; i < p.egress.size(); ++i) {
    check(p.egress[i].bytes, "cost.egress[" + std::to_string(i) + "].bytes");
    check(p.egress[i].usd, "cost.egress[" + std::to_string(i) + "].usd");
  }
  check(p.compute_usd, "cost.compute_usd_per_iteration");
  check(p.egress_usd, "cost.egress_usd_per_iteration");
  check(p.usd_per_iteration, "cost.usd_per_iteration");
  check(p.usd_per_hour, "cost.usd_per_hour");
  for (size_t i = 0; i < p.timeline.size(); ++i)
    if (!std::isfinite(p.timeline[i].start_s) || !std::isfinite(p.timeline[i].end_s)) {
      check(p.timeline[i].start_s, "timeline[" + std::to_string(i) + "].start_s");
      check(p.timeline[i].end_s, "timeline[" + std::to_string(i) + "].end_s");
    }
}

json timelineTrace(const Prediction& prediction, const Plan& plan) {
  json events = json::array();
  auto meta = [&](const char* what, int tid, const std::string& name) {
    events.push_back(
        {{"name", what}, {"ph", "M"}, {"pid", 0}, {"tid", tid}, {"args", {{"name", name}}}});
  };
  // Tracks in stage order (not alphabetical): the stage's compute, then its communication lanes.
  auto track = [&](int tid, int sort_index, const std::string& name) {
    meta("thread_name", tid, name);
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", tid},
                      {"args", {{"sort_index", sort_index}}}});
  };
  meta("process_name", 0, "critical pipeline");
  const int P = static_cast<int>(plan.stages.size());
  std::vector<std::string> stage_names;
  for (int s = 0; s < P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    stage_names.push_back("stage " + std::to_string(s) + " (layers " +
                          std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer) +
                          ")");
    track(2 * s, 1000 * s, stage_names.back() + " compute");
    track(2 * s + 1, 1000 * s + 1, stage_names.back() + " communication");
  }
  // Per operation kind: category, label, on the communication track, numbered by microbatch.
  struct Kind {
    const char* category;
    const char* label;
    bool communication, per_microbatch;
  };
  auto kind_of = [](char k) -> Kind {
    switch (k) {
      case 'F': return {"forward", "F", false, true};
      case 'B': return {"backward", "B", false, true};
      case 'S': return {"transfer", "send/recv", true, true};
      case 'A': return {"all-reduce", "gradient all-reduce", true, false};
      case 'R':
        return {"all-reduce", "gradient reduction overlapped with the backward", true, false};
      case 'O': return {"optimizer", "optimizer step", false, false};
      default: return {"other", "?", false, false};
    }
  };
  // A stage's communication goes on lanes: the first one free when it starts. Under the blocking
  // schedule transfers are serialised on the stage, so one lane; with non-blocking transfers
  // several can be in flight at once (a slow link), and each one beyond the first gets a lane of
  // its own, since complete events on one track must nest. Extra lanes take thread ids after the 2P
  // tracks.
  std::vector<std::vector<double>> lane_free(static_cast<size_t>(P));  // per stage: lane -> end
  std::vector<std::vector<int>> lane_tid(static_cast<size_t>(P));
  int next_tid = 2 * P;
  auto lane_of = [&](const TimelineOp& op) {
    auto& free = lane_free[static_cast<size_t>(op.stage)];
    auto& tids = lane_tid[static_cast<size_t>(op.stage)];
    size_t lane = 0;
    while (lane < free.size() && free[lane] > op.start_s + 1e-12 * std::max(1.0, op.start_s))
      ++lane;
    if (lane == free.size()) {
      free.push_back(op.end_s);
      tids.push_back(lane == 0 ? 2 * op.stage + 1 : next_tid++);
      if (lane > 0)
        track(tids.back(), 1000 * op.stage + 1 + static_cast<int>(lane),
              stage_names[static_cast<size_t>(op.stage)] + " communication " +
                  std::to_string(lane + 1));
    }
    free[lane] = std::max(free[lane], op.end_s);
    return tids[lane];
  };
  // Lanes are assigned in order of stage, then start time (simulate's order already).
  std::vector<const TimelineOp*> ordered;
  for (const TimelineOp& op : prediction.timeline) ordered.push_back(&op);
  std::stable_sort(ordered.begin(), ordered.end(), [](const TimelineOp* x, const TimelineOp* y) {
    return x->stage != y->stage ? x->stage < y->stage : x->start_s < y->start_s;
  });
  for (const TimelineOp* o : ordered) {
    const TimelineOp& op = *o;
    const Kind k = kind_of(op.kind);
    json e{{"name", k.per_microbatch ? std::string(k.label) + " " + std::to_string(op.microbatch)
                                     : k.label},
           {"cat", k.category},
           {"ph", "X"},
           {"pid", 0},
           {"tid", k.communication ? lane_of(op) : 2 * op.stage},
           {"ts", op.start_s * 1e6},
           {"dur", (op.end_s - op.start_s) * 1e6}};
    if (k.per_microbatch) e["args"] = {{"microbatch", op.microbatch}};
    events.push_back(std::move(e));
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"iteration_s", prediction.iteration_s}, {"source", "sailor simulate"}}}};
}

json Prediction::toJson() const {
  json mem = json::array();
  for (const auto& m : memory)
    mem.push_back({{"stage", m.stage},
                   {"replica", m.replica},
                   {"gpu_type", m.gpu_type},
                   {"zone", m.zone},
                   {"tp", m.tp},
                   {"node", m.node},
                   {"model_state_bytes", m.model_state_bytes},
                   {"activation_bytes", m.activation_bytes},
                   {"microbatches_in_flight", m.microbatches_in_flight},
                   {"transient_bytes", m.transient_bytes},
                   {"gradient_bucket_bytes", m.gradient_bucket_bytes},
                   {"runtime_overhead_bytes", m.runtime_overhead_bytes},
                   {"communicator_bytes", m.communicator_bytes},
                   {"communicators", m.communicators},
                   {"total_bytes", m.total_bytes},
                   {"capacity_bytes", m.capacity_bytes},
                   {"fits", m.fits()}});
  json st = json::array();
  for (const auto& s : stages)
    st.push_back({{"forward_s", s.forward_s},
                  {"backward_s", s.backward_s},
                  {"send_forward_s", s.send_forward_s},
                  {"send_backward_s", s.send_backward_s},
                  {"dp_sync_s", s.dp_sync_s},
                  {"optimizer_s", s.optimizer_s},
                  {"work_s", s.work_s},
                  {"straggler_replica", s.straggler_replica},
                  {"microbatches", s.microbatches}});
  json eg = json::array();
  for (const auto& e : egress)
    eg.push_back(
        {{"from_zone", e.from_zone}, {"to_zone", e.to_zone}, {"bytes", e.bytes}, {"usd", e.usd}});
  json src = json::object();
  for (const auto& [k, v] : sources) src[k] = v;
  return json{{"fits", fits},
              {"out_of_memory", out_of_memory},
              {"iteration_s", iteration_s},
              {"breakdown",
               {{"stage", breakdown.stage},
                {"compute_s", breakdown.compute_s},
                {"bubble_s", breakdown.bubble_s},
                {"p2p_s", breakdown.p2p_s},
                {"dp_sync_s", breakdown.dp_sync_s},
                {"optimizer_s", breakdown.optimizer_s}}},
              {"iterations_per_s", iterations_per_s},
              {"tokens_per_s", tokens_per_s},
              {"peak_memory_bytes", peakMemoryBytes()},
              {"memory", mem},
              {"stages", st},
              {"cost",
               {{"compute_usd_per_iteration", compute_usd},
                {"egress_usd_per_iteration", egress_usd},
                {"usd_per_iteration", usd_per_iteration},
                {"usd_per_hour", usd_per_hour},
                {"egress", eg}}},
              {"sources", src}};
}

}  // namespace sailor
