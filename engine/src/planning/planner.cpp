// planSearch, the planner's entry point (sailor/planning/planner.hpp; docs/planner.md), in its
// steps:
//   checkOptions         option errors naming the PlannerOptions field
//   SearchProgress       the parallel tasks' progress, monotone and throttled
//   runTasks             one MicrobatchSearch per microbatch size, in parallel
//   mergeCandidates      the tasks' candidates in a fixed order, duplicates merged
//   noPlanReason         why there is no plan (a constraint, or memory and what could help)
//   Finisher             placing a candidate in zones, simulating it, the simulated constraints
//   chooseBest           the best plans of the placement window (by simulator or model)
//   paretoFrontier       the frontier, placed and simulated (its knee: knee.cpp)
//   TimeLimitReport      what a time-limited search covered (NOTE [Time limit]; its text and
//                        JSON, the schedule searched and the result's JSON: planner_result.cpp)
// The search's pieces are in planner_internal.hpp; the planning model in planner_model.cpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "planner_internal.hpp"
#include "sailor/core/error.hpp"
#include "sailor/planning/utilization.hpp"

namespace sailor {

using nlohmann::json;
using namespace planner_detail;

namespace {

void checkOptions(const PlannerOptions& options) {
  if (options.max_gpus && *options.max_gpus < 1)
    throw InputError("max_gpus", std::to_string(*options.max_gpus), "at least 1");
  if (options.top_k < 1) throw InputError("top_k", std::to_string(options.top_k), "at least 1");
  const std::pair<const char*, std::optional<double>> limits[] = {
      {"max_usd_per_iteration", options.max_usd_per_iteration},
      {"max_usd_per_hour", options.max_usd_per_hour},
      {"min_iterations_per_s", options.min_iterations_per_s}};
  for (const auto& [name, v] : limits)
    if (v && !(*v > 0 && std::isfinite(*v)))
      throw InputError(name, toText(*v), "a positive number");
  if (const auto& t = options.time_limit_s; t && !(*t > 0 && std::isfinite(*t)))
    throw InputError("time_limit_s", toText(*t), "a positive number of seconds");
  if (const double f = options.memory_reserve_fraction; !(f >= 0 && f <= kMaxMemoryReserveFraction))
    throw InputError(
        "memory_reserve_fraction", toText(f),
        "a fraction of each GPU's memory from 0 to " + toText(kMaxMemoryReserveFraction));
}

// NOTE [Memory reserve]
// A plan whose peak memory leaves a few hundred MB of an 80 GiB GPU free fits by the memory
// model, yet the run may not: PyTorch's CUDA caching allocator rounds requests (large ones to
// multiples of 2 MiB, those of 1 to 10 MiB into 20 MiB segments: kRoundLarge and kLargeBuffer in
// c10/cuda/CUDACachingAllocator.cpp) and cached blocks split for one request cannot serve a
// larger one later, so the memory a run reserves exceeds what its tensors hold ("Memory
// management" in PyTorch's CUDA semantics notes: memory_reserved against memory_allocated,
// and PYTORCH_CUDA_ALLOC_CONF's max_split_size_mb and expandable_segments against
// fragmentation). The memory model's runtime overhead (GpuType::runtime_overhead_bytes) holds
// a fixed part of that; the reserve is the part that grows with the memory in use. Guo et al.
// (GMLake, ASPLOS 2024) measured the caching allocator's fragmentation on eight LLMs on
// A100-80GB at 15 % on average (up to 33 %) under recomputation, ZeRO, offloading and LoRA,
// the irregular patterns that split blocks most; a static 1F1B schedule frees and allocates
// the same sizes every microbatch, and expandable segments (which those runs predate) let
// the allocator grow a segment instead of splitting one. 5 % of the memory (4 GiB of an
// 80 GiB GPU) is the default: below GMLake's average for its irregular workloads, above the
// allocator's rounding alone. It is a setting (PlannerOptions::memory_reserve_fraction),
// since the fragmentation a run sees depends on its allocator settings; 0 restores the search
// without a reserve. In Drop mode the search fits stages into the memory less the reserve
// (fitTables, seedSummary, planningModel) and a plan the simulator finds within it is dropped
// as a constraint would drop it; in Flag mode the search uses the whole memory and the plans
// within the reserve are marked.

// NOTE [Time limit]: PlannerOptions::time_limit_s bounds the whole of planSearch. The search
// (the microbatch sizes' tasks, started in ascending order as threads come free) stops at
// kSearchTimeShare of it: each task polls the deadline where it polls the cancel token (per
// degree, every 16 new search states) and, once it has passed, keeps what it has (its seed plans,
// the plans of the degrees searched and of the depths finished at the degree cut) instead of
// throwing it away; a task started after it still gives its seed plans (milliseconds). Placing
// and simulating then take the rest: past the limit they stop once top_k plans are placed and
// top_k meet the constraints by the simulator (so a plan found is a plan returned), and the
// frontier keeps the points placed by then. Whatever was cut is reported (PlanResult::
// time_limit); a search that ends within the limit is the search without one. Results cut by
// the limit depend on the machine's speed: they are not deterministic. (Giving each task a fair
// share of the time instead, so that the sizes started late are searched too, found worse or
// equal plans on the default and a ten-zone scenario, and cut searches that fit the limit.)
constexpr double kSearchTimeShare = 0.9;

// Progress of the whole search from its parallel tasks: each microbatch size's task owns an
// equal share of [0, search_share]; the post-search steps fill the rest. Monotone, thread-safe,
// and throttled (a report when the fraction grows by 0.1 % or more, or the search ends).
class SearchProgress {
 public:
  SearchProgress(const ProgressSink& sink, size_t tasks, double search_share)
      : sink_(sink), task_(tasks, 0.0), plans_(tasks, 0), share_(search_share) {}
  // Task i at fraction f of its own work, at `step`, with `plans` found so far.
  void task(size_t i, double f, const std::string& step, long plans) {
    if (!sink_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    task_[i] = std::max(task_[i], std::min(1.0, f));
    plans_[i] = std::max(plans_[i], plans);
    double sum = 0;
    long found = 0;
    for (double x : task_) sum += x;
    for (long n : plans_) found += n;
    emit(share_ * sum / static_cast<double>(task_.size()),
         step + " (" + std::to_string(found) + (found == 1 ? " plan" : " plans") + " found)",
         false);
  }
  void at(double f, const std::string& step) {
    if (!sink_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    emit(f, step, true);
  }

 private:
  void emit(double f, const std::string& step, bool always) {
    f = std::min(1.0, f);
    if (f < last_ || (!always && f < last_ + 1e-3 && f < 1.0) || (f == last_ && f > 0)) return;
    last_ = f;
    sink_(f, step);
  }
  const ProgressSink& sink_;
  std::vector<double> task_;
  std::vector<long> plans_;
  double share_;
  double last_ = 0;
  std::mutex mutex_;
};

// The search takes the first 90 % of the progress; placing and simulating the chosen plans the
// rest.
constexpr double kSearchShare = 0.9;

// One task per microbatch size, on options.threads threads; per_b[i], compared[i] and
// coverage[i] get task i's candidates, count and coverage. When one task fails the others stop
// at their next check and the first failure is rethrown. Past `deadline` the tasks stop and
// keep what they have (NOTE [Time limit]).
// `idle`, when given, is called by a thread that finds no task left to search while others still
// search, with the tasks' finished flags (per_b[i] is final once finished[i] is set); it returns
// when every flag is set (NOTE [Placed ahead]).
using IdleWork = std::function<void(const std::vector<std::atomic<bool>>& finished)>;
void runTasks(const SearchContext& ctx, const std::vector<int>& bs, SearchProgress& bar,
              const CancelToken* cancel, const Deadline& deadline,
              std::vector<std::vector<Candidate>>& per_b, std::vector<long>& compared,
              std::vector<MicrobatchCoverage>& coverage, const IdleWork& idle = {}) {
  const int threads =
      ctx.opt.threads > 0 ? ctx.opt.threads : std::max(1u, std::thread::hardware_concurrency());
  std::exception_ptr failure;
  std::mutex failure_mutex;
  StopFlag stop;
  stop.user = cancel;
  stop.deadline = deadline;
  std::vector<std::unique_ptr<MicrobatchSearch>> tasks;
  for (size_t i = 0; i < bs.size(); ++i)
    tasks.push_back(std::make_unique<MicrobatchSearch>(
        ctx, bs[i], stop,
        [&, i](double f, const std::string& step, long plans) { bar.task(i, f, step, plans); }));
  // Runs step(i) for every task on the threads, sizes taken in ascending order as threads come
  // free; a failure stops the others at their next check.
  std::vector<std::atomic<bool>> finished(bs.size());
  auto on_threads = [&](const auto& step, bool searching) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < bs.size(); i = next++) {
        try {
          step(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          stop.sibling_failed.cancel();
        }
        if (searching) finished[i].store(true, std::memory_order_release);
      }
      if (searching && idle) idle(finished);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(threads, static_cast<int>(bs.size())); ++t)
      pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  };
  // Every task's seeds first, then each task's bound knows all of them (NOTE [Seeds shared
  // between microbatch sizes] in planner_sweep.cpp).
  on_threads([&](size_t i) { tasks[i]->prepare(); }, false);
  if (failure) std::rethrow_exception(failure);
  for (size_t i = 0; i < bs.size(); ++i)
    for (size_t j = 0; j < bs.size(); ++j)
      if (j != i)
        for (const Candidate& c : tasks[j]->seeds())
          tasks[i]->addForeignKnown(c.iteration_s, c.usd);
  on_threads(
      [&](size_t i) {
        if (stop()) {  // its seeds still go out: other tasks' bounds used them
          tasks[i]->seedsOnly(per_b[i]);
          coverage[i] = tasks[i]->coverage();
          return;
        }
        tasks[i]->run(per_b[i], compared[i]);
        coverage[i] = tasks[i]->coverage();
        bar.task(i, 1.0, "microbatch " + std::to_string(bs[i]) + " done", 0);
      },
      true);
  if (failure) std::rethrow_exception(failure);
}

// All tasks' candidates in task order, one of each key (a plan can be found more than once: a
// seed the search also finds, a degree searched with and without cost figures), sorted by key.
std::vector<Candidate> mergeCandidates(std::vector<std::vector<Candidate>>& per_b) {
  std::vector<Candidate> all;
  for (auto& v : per_b)
    for (auto& c : v) all.push_back(std::move(c));
  std::sort(all.begin(), all.end(),
            [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Candidate& a, const Candidate& b) { return a.key == b.key; }),
            all.end());
  return all;
}

// Seconds of the time limit below which the search without the constraints is not tried.
constexpr double kMinReasonSeconds = 0.05;

std::string timeLimitReason(double limit_s) {
  return "no plan found within the time limit of " + toText(limit_s) +
         " s (a longer limit may find one)";
}

// Why no candidate was found: the search without the constraints (top_k 1, no frontier, its
// progress in the remaining share, the same cancel token) tells a constraint from memory.
std::string noPlanReason(const Scenario& scenario, const Job& job, const Catalog& catalog,
                         const ProfileSet& profiles, const PlannerOptions& options,
                         const ProgressSink& progress, SearchProgress& bar,
                         const CancelToken* cancel, const Deadline& deadline) {
  std::ostringstream why;
  PlannerOptions relaxed = options;
  relaxed.max_usd_per_iteration.reset();
  relaxed.max_usd_per_hour.reset();
  relaxed.min_iterations_per_s.reset();
  relaxed.max_gpus.reset();
  relaxed.pareto = false;  // only whether any plan exists matters
  relaxed.top_k = 1;
  if (options.time_limit_s) {  // what is left of the limit (NOTE [Time limit])
    const double left = deadline.secondsLeft();
    if (!(left > kMinReasonSeconds)) return timeLimitReason(*options.time_limit_s);
    relaxed.time_limit_s = left;
  }
  auto relaxed_progress = [&](double f, const std::string& step) {
    bar.at(kSearchShare + (1.0 - kSearchShare) * 0.99 * f,
           "no plan meets the constraints; without them: " + step);
  };
  PlanResult without;
  if (Constraints(options).any())
    without = planSearch(scenario, job, catalog, profiles, relaxed,
                         progress ? ProgressSink(relaxed_progress) : ProgressSink(), cancel);
  if (!without.best.empty()) {
    why << "plans fit in memory, but none meets the constraints (";
    std::string sep;
    if (options.max_usd_per_iteration)
      why << sep << "cost per iteration <= " << *options.max_usd_per_iteration, sep = ", ";
    if (options.max_usd_per_hour)
      why << sep << "cost per hour <= " << *options.max_usd_per_hour, sep = ", ";
    if (options.min_iterations_per_s)
      why << sep << "throughput >= " << *options.min_iterations_per_s << " it/s", sep = ", ";
    if (options.max_gpus)
      why << sep << "at most " << *options.max_gpus << (*options.max_gpus == 1 ? " GPU" : " GPUs"),
          sep = ", ";
    why << ")";
    return why.str();
  }
  if (without.time_limit) return timeLimitReason(*options.time_limit_s);
  const int layers = catalog.model(job.model, "job.model").numPlanLayers();
  why << "no plan fits in memory: " << job.model << " with global batch " << job.global_batch_size
      << " does not fit on the scenario's GPUs";
  if (options.searchReserveFraction() > 0)
    why << " less the memory reserve (" << toText(100 * options.searchReserveFraction())
        << " % of each GPU's memory)";
  why << " at any pipeline depth up to "
      << (options.heuristics.max_stages > 0 ? options.heuristics.max_stages : layers)
      << " stages and tp within a node";
  // What could make it fit, as far as the job and the search limits go.
  std::vector<std::string> levers;
  if (job.recompute == Recompute::None)
    levers.push_back("full activation recomputation (the job's recompute)");
  if (options.heuristics.max_stages > 0 && options.heuristics.max_stages < layers)
    levers.push_back("deeper pipelines (a higher max_stages)");
  if (options.searchReserveFraction() > 0)
    levers.push_back(
        "a smaller memory reserve (memory_reserve_fraction) or flagging plans within "
        "it instead of dropping them");
  for (size_t i = 0; i < levers.size(); ++i)
    why << (i == 0 ? "; it may fit with " : " or ") << levers[i];
  return why.str();
}

// The most model chunks per GPU the search tries (NOTE [Interleaving chosen per plan]).
constexpr int kMaxSearchedVirtualStages = 8;

// -1, 0, 1: whether (time a, cost a) is better, as good or worse than b by the objective (its
// figure first, the other one second).
int compareFigures(double t_a, double c_a, double t_b, double c_b, Objective o) {
  const bool tp = o == Objective::Throughput;
  const double x = tp ? t_a : c_a, y = tp ? t_b : c_b;
  if (x != y) return x < y ? -1 : 1;
  const double x2 = tp ? c_a : t_a, y2 = tp ? c_b : t_b;
  if (x2 != y2) return x2 < y2 ? -1 : 1;
  return 0;
}

bool better(const Candidate& a, const Candidate& b, Objective o) {
  if (const int c = compareFigures(a.iteration_s, a.usd, b.iteration_s, b.usd, o)) return c < 0;
  return a.key < b.key;
}

// By cost per iteration, then iteration time, then key.
bool cheaper(const Candidate& a, const Candidate& b) {
  return a.usd != b.usd
             ? a.usd < b.usd
             : (a.iteration_s != b.iteration_s ? a.iteration_s < b.iteration_s : a.key < b.key);
}

// What happens to a candidate after the search. Every step honours the cancel token (placing
// and simulating hundreds of plans of a 512-GPU scenario takes a noticeable time).
class Finisher {
 public:
  Finisher(const SearchContext& ctx, const CancelToken* cancel, Deadline deadline)
      : ctx_(ctx), cancel_(cancel), deadline_(deadline), placer_(ctx) {
    figures_only_ = ctx.opt.simulator;
    figures_only_.timeline = false;
  }
  // A Finisher of its own for another thread (the Placer caches links and profiles).
  Finisher twin() const { return Finisher(ctx_, cancel_, deadline_); }
  void checkCancel() const {
    if (cancel_ && cancel_->cancelled()) throw Cancelled();
  }
  // The time limit has passed: placing and simulating stop as soon as they have enough
  // (NOTE [Time limit]).
  bool overTime() const { return deadline_.passed(); }
  // Places the replicas in zones (H6 priced them at the region's cheapest zone): the Placer's
  // best `keep` placements, zones compared by their links (NOTE [Placement scored]), each figured
  // with the planning model again: constraints are checked and plans ranked on the placed
  // figures, so a returned plan never breaks a constraint.
  std::vector<Candidate> placeAll(const Candidate& c, size_t keep, bool with_fills = false,
                                  bool local_moves = true) const {
    checkCancel();
    if (c.plan.stages.empty()) {  // NOTE [Candidates written out late]
      Candidate full = c;
      materialize(ctx_, full);
      return refigured(placer_.place(full, keep, true, with_fills, local_moves));
    }
    return refigured(placer_.place(c, keep, true, with_fills, local_moves));
  }
  // Placed candidates figured with the planning model again; those breaking a constraint left out.
  std::vector<Candidate> refigured(std::vector<Candidate> placed) const {
    std::vector<Candidate> out;
    for (Candidate& p : placed) {
      auto m = planningModel(p.plan, ctx_.sc, ctx_.job, ctx_.cat, ctx_.profiles, ctx_.opt.simulator,
                             &ctx_.link_index, ctx_.opt.searchReserveFraction());
      if (!m) continue;
      p.iteration_s = m->iteration_s;
      p.usd = m->usd_per_iteration;
      p.usd_per_hour = m->usd_per_hour;
      if (!ctx_.constraints.admits(1.0 / p.iteration_s, p.usd, p.usd_per_hour, m->gpus)) continue;
      p.key = planKey(p.plan);
      out.push_back(std::move(p));
    }
    return out;
  }
  // Placements one move from a placed candidate's, figured and checked as placeAll's.
  std::vector<Candidate> neighbours(const Candidate& placed, size_t keep) const {
    checkCancel();
    return refigured(placer_.neighbours(placed, keep));
  }
  std::optional<Candidate> place(const Candidate& c) const {
    auto v = placeAll(c, 1);
    if (v.empty()) return std::nullopt;
    return std::move(v.front());
  }
  // The constraints by the simulator's figures, the memory reserve in Drop mode among them.
  bool meetsSimulated(const Prediction& pr) const {
    return pr.fits && clearsReserve(pr) &&
           ctx_.constraints.admits(pr.iterations_per_s, pr.usd_per_iteration, pr.usd_per_hour,
                                   std::nullopt);
  }
  // Not within the memory reserve the search keeps (NOTE [Memory reserve]).
  bool clearsReserve(const Prediction& pr) const {
    const double f = ctx_.opt.searchReserveFraction();
    return !(f > 0 && withinMemoryReserve(pr, f));
  }
  PlannedPlan simulated(const Candidate& c, bool timeline = true) const {
    checkCancel();
    PlannedPlan pp;
    pp.plan = c.plan;
    pp.model_iteration_s = c.iteration_s;
    pp.model_usd_per_iteration = c.usd;
    const SimulatorOptions& so = timeline ? ctx_.opt.simulator : figures_only_;
    pp.prediction =
        simulate(pp.plan, ctx_.sc, ctx_.job, ctx_.cat, ctx_.profiles, so, &ctx_.link_index);
    if (ctx_.opt.schedules == ScheduleSearch::Megatron) chooseInterleaving(pp, so);
    return pp;
  }
  // NOTE [Interleaving chosen per plan]: Megatron-LM's interleaved 1F1B splits each stage's
  // transformer blocks into v equal chunks (--num-layers-per-virtual-pipeline-stage: every
  // stage's blocks a multiple of v) and needs the microbatches in whole groups of the pipeline
  // depth (every pipeline's M / D a multiple of P: Plan::interleavingFits). A larger v shrinks the
  // bubble by 1/v and adds v times the boundary transfers and, in the warm-up, activations in
  // flight; which wins depends on the plan's links and memory, so the simulator decides: v = 2, 3,
  // ... in turn while the plan still fits, meets the constraints and gets better by the objective.
  void chooseInterleaving(PlannedPlan& pp, const SimulatorOptions& so) const {
    const Plan& plan = pp.plan;
    const int P = static_cast<int>(plan.stages.size());
    if (P < 2 || !meetsSimulated(pp.prediction)) return;
    if (!plan.interleavingFits(ctx_.job.global_batch_size)) return;
    int most = ctx_.model.layers;
    for (std::size_t s = 0; s < plan.stages.size(); ++s) most = std::min(most, plan.blockCount(s));
    for (int v = 2; v <= std::min(most, kMaxSearchedVirtualStages); ++v) {
      bool even = true;
      for (std::size_t s = 0; s < plan.stages.size(); ++s)
        even = even && plan.blockCount(s) % v == 0;
      if (!even) continue;
      Plan q = pp.plan;
      q.schedule.virtual_stages = v;
      Prediction pr = simulate(q, ctx_.sc, ctx_.job, ctx_.cat, ctx_.profiles, so, &ctx_.link_index);
      if (!meetsSimulated(pr) ||
          compareFigures(pr.iteration_s, pr.usd_per_iteration, pp.prediction.iteration_s,
                         pp.prediction.usd_per_iteration, ctx_.opt.objective) >= 0)
        break;
      pp.plan = std::move(q);
      pp.prediction = std::move(pr);
    }
  }

 private:
  const SearchContext& ctx_;
  const CancelToken* cancel_;
  Deadline deadline_;
  SimulatorOptions figures_only_;
  Placer placer_;
};

// NOTE [Placement scored]: every candidate of the window is placed in the planning model's best
// way (the Placer: zones compared by their links, egress and prices). Ranked by the simulator,
// each candidate may be placed in this many ways, every one simulated, the simulator keeping the
// best placement of each candidate (1: the model's best only; more cost a simulation each for
// the whole window). The model and the simulator can order near-equal placements differently
// (the simulator runs each pipeline on its own schedule, shares nodes between small-tp replicas
// and all-reduces the tied embedding between the first and last stages), so the top_k plans
// are then refined by the simulator below.
constexpr size_t kPlacementsRanked = 1;
// The window's first candidates (by the model) get the Placer's local moves after its fills;
// the others the best fill only (in every zone order), which is most of the gain for a fraction
// of the time. The chosen plans get the moves again below whatever their rank.
constexpr size_t kPlacedWithMoves = 16;
// The best plans by the simulator are then placed once more in the model's best few ways and
// every fill in a zone order (NOTE [Placement scored]), each simulated: the simulator keeps the
// best. Only the top_k plans, so a few dozen simulations in all.
constexpr size_t kPlacementsRefined = 8;
// The climb: rounds, and the model's best neighbours simulated per round.
constexpr int kClimbRounds = 4;
constexpr size_t kClimbNeighbours = 8;

// The threads placing and simulating (NOTE [Placed in parallel]): the search's, or one under
// a time limit.
int finishThreads(const PlannerOptions& o) {
  if (o.time_limit_s) return 1;
  return o.threads > 0 ? o.threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// NOTE [Placed in parallel]: placing a candidate and simulating a placed plan depend on nothing
// but the candidate, so chooseBest does them on the search's threads, each with a Finisher of
// its own, writing results by index and using them in the serial order: the same plans as one
// thread. Under a time limit it keeps to one thread, checking the deadline before each
// candidate. Runs f(i, w) for i in [0, n), w the worker (its Finisher), the first failure
// rethrown once all have stopped.
template <class F>
void forEachParallel(size_t n, const std::vector<Finisher>& fins, F f) {
  const size_t workers = std::min(n, fins.size());
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) f(i, fins.front());
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&](size_t w) {
    for (size_t i = next++; i < n; i = next++) {
      try {
        f(i, fins[w]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// NOTE [Placed ahead]: the search's tasks end unevenly (on the paper's 2-zone scenario the
// microbatch-4 task runs 10 ms after the others have ended), and placing and simulating the
// window waits for all of them. A search thread with no task left meanwhile places and
// simulates the best candidates of the tasks that have finished, in the window's order. The
// results are kept by the candidate's key and whether the Placer's local moves were used (the
// window decides that by the candidate's final rank, which a finished task's candidate cannot
// know), and the simulations by the placed plan's key. Placing and simulating depend on
// nothing but the candidate (NOTE [Placed in parallel]), so the window takes a kept result
// where there is one and its plans are those of the serial order; a kept result the window does
// not use was idle time. Not under a time limit (the window then keeps to one thread and its
// deadline), and a thread stops as soon as the last task ends (within one placement).
class PlacedAhead {
 public:
  PlacedAhead(const SearchContext& ctx, const Finisher& fin, size_t window, size_t per)
      : ctx_(ctx), fin_(fin), window_(window), per_(per) {}

  // A search thread's idle time (runTasks' IdleWork).
  void work(const std::vector<std::vector<Candidate>>& per_b,
            const std::vector<std::atomic<bool>>& finished) {
    const Finisher fin = fin_.twin();
    auto done = [&](size_t& count) {
      count = 0;
      for (const auto& f : finished) count += f.load(std::memory_order_acquire) ? 1 : 0;
      return count == finished.size();
    };
    size_t seen = 0, count = 0;
    std::vector<const Candidate*> order;  // the finished tasks' candidates, the window's order
    size_t at = 0;
    try {
      while (!done(count)) {
        if (count != seen) {
          seen = count;
          order.clear();
          for (size_t i = 0; i < per_b.size(); ++i)
            if (finished[i].load(std::memory_order_acquire))
              for (const Candidate& c : per_b[i]) order.push_back(&c);
          const size_t n = std::min(order.size(), window_);
          std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n),
                            order.end(), [&](const Candidate* a, const Candidate* b) {
                              return better(*a, *b, ctx_.opt.objective);
                            });
          order.resize(n);
          at = 0;
        }
        // The next candidate no thread has taken.
        const Candidate* c = nullptr;
        bool moves = false;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          for (; at < order.size() && !c; ++at) {
            moves = at < kPlacedWithMoves;
            if (taken_.insert({order[at]->key, moves}).second) c = order[at];
          }
        }
        if (!c) {  // all taken: wait for another task to finish
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          continue;
        }
        std::vector<Candidate> got = fin.placeAll(*c, per_, false, moves);
        std::vector<std::pair<std::string, PlannedPlan>> sims;
        if (ctx_.opt.rank_by_simulator)
          for (const Candidate& p : got) {
            if (done(count)) break;
            sims.emplace_back(p.key, fin.simulated(p, false));
          }
        std::lock_guard<std::mutex> lock(mutex_);
        placed_.emplace(std::make_pair(c->key, moves), std::move(got));
        for (auto& [key, pp] : sims) sims_.emplace(key, std::move(pp));
      }
    } catch (...) {
      // Cancelled, or a candidate that cannot be placed: the window does it again and reports.
    }
  }
  // The placements of candidate `key` with or without local moves, when placed ahead.
  const std::vector<Candidate>* placed(const std::string& key, bool moves) const {
    auto it = placed_.find({key, moves});
    return it == placed_.end() ? nullptr : &it->second;
  }
  // The simulation of placed plan `key` (figures only), when simulated ahead.
  const PlannedPlan* simulated(const std::string& key) const {
    auto it = sims_.find(key);
    return it == sims_.end() ? nullptr : &it->second;
  }

 private:
  const SearchContext& ctx_;
  const Finisher& fin_;
  size_t window_, per_;
  std::mutex mutex_;
  std::set<std::pair<std::string, bool>> taken_;
  std::map<std::pair<std::string, bool>, std::vector<Candidate>> placed_;
  std::map<std::string, PlannedPlan> sims_;
};

// The window's first candidates (by the objective) placed in zones, `per` placements each, into
// `placed` (their origin: the candidate's rank among those placed) and `sources` (per origin,
// the candidate). The candidates placed are written out on the way (NOTE [Candidates written
// out late]).
void placeWindow(const SearchContext& ctx, const Finisher& fin, const std::vector<Finisher>& fins,
                 std::vector<Candidate>& all, size_t window, size_t per,
                 std::vector<Candidate>& placed, std::vector<const Candidate*>& sources,
                 TimeLimitReport& limit, const PlacedAhead* ahead, int& placed_ahead) {
  const PlannerOptions& options = ctx.opt;
  const size_t top_k = static_cast<size_t>(options.top_k);
  int origins = 0;
  // In batches of the candidates the window still needs (NOTE [Placed in parallel]): the first
  // kPlacedWithMoves origins with the Placer's local moves, then the rest. A batch never holds
  // more than the origins left, and every candidate of a batch with moves gets an origin below
  // kPlacedWithMoves if it places: what the serial loop gives.
  size_t next_c = 0;
  while (static_cast<size_t>(origins) < window && next_c < all.size()) {
    if (static_cast<size_t>(origins) >= top_k && fin.overTime()) {
      limit.placing_complete = false;
      break;
    }
    const size_t left = window - static_cast<size_t>(origins);
    const bool moves = static_cast<size_t>(origins) < kPlacedWithMoves;
    size_t batch = moves ? std::min(left, kPlacedWithMoves - static_cast<size_t>(origins)) : left;
    if (options.time_limit_s) batch = 1;
    batch = std::min(batch, all.size() - next_c);
    std::vector<std::vector<Candidate>> got(batch);
    std::atomic<int> kept_here{0};
    forEachParallel(batch, fins, [&](size_t i, const Finisher& f) {
      Candidate& c = all[next_c + i];
      materialize(ctx, c);
      const std::vector<Candidate>* kept = ahead ? ahead->placed(c.key, moves) : nullptr;
      if (kept) ++kept_here;
      got[i] = kept ? *kept : f.placeAll(c, per, false, moves);
    });
    placed_ahead += kept_here;
    for (size_t i = 0; i < batch; ++i) {
      if (got[i].empty()) continue;
      sources.push_back(&all[next_c + i]);
      for (auto& p : got[i]) {
        p.origin = origins;
        placed.push_back(std::move(p));
      }
      ++origins;
    }
    next_c += batch;
  }
}

// The best plans: the placement window's first candidates (by the objective) placed in zones,
// then the top_k of them by the planning model, or (rank_by_simulator) by the simulator among
// those meeting the constraints by its figures too.
void chooseBest(const SearchContext& ctx, const Finisher& fin, std::vector<Candidate>& all,
                SearchProgress& bar, PlanResult& result, TimeLimitReport& limit,
                const PlacedAhead* ahead) {
  const PlannerOptions& options = ctx.opt;
  const size_t window = placementWindow(options.top_k, options.heuristics.h6_region_pools);
  const size_t top_k = static_cast<size_t>(options.top_k);
  const double post_end = options.pareto ? 0.95 : 1.0;  // the Pareto frontier takes the rest
  bar.at(kSearchShare, "placing the best plans in zones");
  std::vector<Candidate> placed;
  limit.window = static_cast<int>(std::min(window, all.size()));
  const size_t per = options.rank_by_simulator ? kPlacementsRanked : 1;
  std::vector<Finisher> fins;
  for (int w = 0; w < finishThreads(options); ++w) fins.push_back(fin.twin());
  std::vector<const Candidate*> sources;  // per origin: the search candidate placed
  placeWindow(ctx, fin, fins, all, window, per, placed, sources, limit, ahead, result.placed_ahead);
  limit.placed = static_cast<int>(placed.size());
  std::sort(placed.begin(), placed.end(), [&](const Candidate& a, const Candidate& b) {
    return better(a, b, options.objective);
  });
  const double simulate_start = kSearchShare + (post_end - kSearchShare) / 2;
  if (!options.rank_by_simulator) {
    for (const auto& c : placed) {
      if (static_cast<int>(result.best.size()) >= options.top_k) break;
      bar.at(simulate_start + (post_end - simulate_start) *
                                  static_cast<double>(result.best.size()) / options.top_k,
             "simulating plan " + std::to_string(result.best.size() + 1));
      PlannedPlan pp = fin.simulated(c);
      if (fin.clearsReserve(pp.prediction)) result.best.push_back(std::move(pp));
    }
  } else {
    // NOTE [Ranking by the simulator]: the planning model is the search's closed form; the
    // simulator (event by event, DeepSpeed's blocking schedule) is the product's yardstick and
    // the two can order near-equal plans differently (docs/planner.md). Every placed plan of the
    // window is simulated; the best are those the simulator ranks first among the ones meeting
    // the constraints by its own figures too.
    std::vector<std::pair<PlannedPlan, int>> ranked;  // with the candidate it places
    // Figures only; the chosen ones below. Without a time limit all at once, in parallel (NOTE
    // [Placed in parallel]); with one, one by one until the deadline.
    std::vector<std::optional<PlannedPlan>> sims_of(placed.size());
    if (!options.time_limit_s)
      forEachParallel(placed.size(), fins, [&](size_t i, const Finisher& f) {
        bar.at(simulate_start + (post_end - simulate_start) * static_cast<double>(i) /
                                    static_cast<double>(placed.size()),
               "simulating plan " + std::to_string(i + 1) + " of " + std::to_string(placed.size()));
        const PlannedPlan* kept = ahead ? ahead->simulated(placed[i].key) : nullptr;
        sims_of[i] = kept ? *kept : f.simulated(placed[i], false);
      });
    for (size_t i = 0; i < placed.size(); ++i) {
      if (ranked.size() >= top_k && fin.overTime()) {
        limit.placing_complete = false;
        limit.placed = static_cast<int>(i);
        break;
      }
      if (!sims_of[i]) {
        bar.at(simulate_start + (post_end - simulate_start) * static_cast<double>(i) /
                                    static_cast<double>(placed.size()),
               "simulating plan " + std::to_string(i + 1) + " of " + std::to_string(placed.size()));
        sims_of[i] = fin.simulated(placed[i], false);
      }
      PlannedPlan& pp = *sims_of[i];
      if (fin.meetsSimulated(pp.prediction)) ranked.push_back({std::move(pp), placed[i].origin});
    }
    // Stable: equal simulated figures keep the planning model's order.
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
      return compareFigures(a.first.prediction.iteration_s, a.first.prediction.usd_per_iteration,
                            b.first.prediction.iteration_s, b.first.prediction.usd_per_iteration,
                            options.objective) < 0;
    });
    // One placement per candidate: its best by the simulator (NOTE [Placement scored]).
    std::vector<PlannedPlan> sims;
    std::vector<int> taken;
    for (auto& [pp, origin] : ranked) {
      if (sims.size() >= static_cast<size_t>(options.top_k)) break;
      if (std::find(taken.begin(), taken.end(), origin) != taken.end()) continue;
      taken.push_back(origin);
      sims.push_back(std::move(pp));
    }
    // The chosen plans' placements compared by the simulator (NOTE [Placement scored]): the
    // model's best few and every fill in a zone order, then a climb by the simulator over the
    // model's best neighbours of the best so far. Placements of one plan are compared as the
    // Placer compares them (NOTE [A dearer placement repays its price]): one order, the model's
    // and the simulator's figures ranked alike.
    for (size_t i = 0; i < sims.size(); ++i) {
      if (fin.overTime()) {  // the chosen plans as the window placed them
        limit.placing_complete = false;
        break;
      }
      const Candidate& source = *sources[static_cast<size_t>(taken[i])];
      // The alternatives simulated together (NOTE [Placed in parallel]), then offered in order.
      auto simulate_all = [&](const std::vector<Candidate>& alts) {
        std::vector<std::optional<PlannedPlan>> out(alts.size());
        if (!options.time_limit_s)
          forEachParallel(alts.size(), fins, [&](size_t j, const Finisher& f) {
            out[j] = f.simulated(alts[j], false);
          });
        return out;
      };
      auto offer = [&](const Candidate& alt, std::optional<PlannedPlan>& sim) {
        if (alt.plan == sims[i].plan) return false;
        PlannedPlan pp = sim ? std::move(*sim) : fin.simulated(alt, false);
        if (!fin.meetsSimulated(pp.prediction) ||
            comparePlacements(pp.prediction.iteration_s, pp.prediction.usd_per_iteration,
                              sims[i].prediction.iteration_s, sims[i].prediction.usd_per_iteration,
                              options.objective) >= 0)
          return false;
        sims[i] = std::move(pp);
        return true;
      };
      const std::vector<Candidate> fills = fin.placeAll(source, kPlacementsRefined, true);
      std::vector<std::optional<PlannedPlan>> fill_sims = simulate_all(fills);
      for (size_t j = 0; j < fills.size(); ++j) offer(fills[j], fill_sims[j]);
      for (int round = 0; round < kClimbRounds && !fin.overTime(); ++round) {
        Candidate at = source;
        at.plan = sims[i].plan;
        bool moved = false;
        const std::vector<Candidate> near = fin.neighbours(at, kClimbNeighbours);
        std::vector<std::optional<PlannedPlan>> near_sims = simulate_all(near);
        for (size_t j = 0; j < near.size(); ++j) moved |= offer(near[j], near_sims[j]);
        if (!moved) break;
      }
    }
    std::stable_sort(sims.begin(), sims.end(), [&](const PlannedPlan& a, const PlannedPlan& b) {
      return compareFigures(a.prediction.iteration_s, a.prediction.usd_per_iteration,
                            b.prediction.iteration_s, b.prediction.usd_per_iteration,
                            options.objective) < 0;
    });
    for (auto& pp : sims)
      pp.prediction = simulate(pp.plan, ctx.sc, ctx.job, ctx.cat, ctx.profiles, options.simulator,
                               &ctx.link_index);
    result.best = std::move(sims);
    if (result.best.empty() && !placed.empty())
      result.no_plan_reason =
          "plans meet the constraints by the planning model but none by the simulator";
  }
  if (result.best.empty() && result.no_plan_reason.empty())
    result.no_plan_reason = "no candidate could be placed in zones within the constraints";
}

// NOTE [Both ends of the frontier]: the best plans of a search are refined by the simulator for
// its objective (fills and a climb over neighbours, NOTE [Placement scored]), and the search's
// pruning depends on its objective, so the search for the other objective can find a plan that
// beats a frontier point on both figures: a cost search's 8-GPU plan (3.83 s, 0.00851 USD an
// iteration) against a throughput search's 5-GPU frontier point (6.22 s, 0.00865 USD) under
// Megatron-LM's schedule, whose planning model and simulator differ by a few percent (the
// all-gather priced from the all-reduce's ring, the interleaving chosen per plan). With --pareto
// and ranking by the simulator, the search for the other objective therefore runs too (plain,
// within what remains of a time limit), and its best plans join the frontier's candidates.
std::vector<PlannedPlan> otherObjectiveBest(const Scenario& scenario, const Job& job,
                                            const Catalog& catalog, const ProfileSet& profiles,
                                            const PlannerOptions& options,
                                            std::chrono::steady_clock::time_point t0,
                                            const CancelToken* cancel) {
  PlannerOptions other = options;
  other.pareto = false;
  other.objective =
      options.objective == Objective::Throughput ? Objective::Cost : Objective::Throughput;
  if (options.time_limit_s) {
    const double left =
        *options.time_limit_s -
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!(left > 0)) return {};
    other.time_limit_s = left;
  }
  return planSearch(scenario, job, catalog, profiles, other, {}, cancel).best;
}

// The Pareto frontier of the search's own figures; only its plans are placed and re-figured
// (placing every candidate of a 512-GPU search costs more than the search). With
// rank_by_simulator, the frontier is then recomputed in the simulator's figures with the best
// plans in it: the fastest plan the simulator ranked first belongs to the frontier it is
// plotted with.
void paretoFrontier(const SearchContext& ctx, const Finisher& fin,
                    const std::vector<Candidate>& all, SearchProgress& bar, PlanResult& result,
                    TimeLimitReport& limit, const std::vector<PlannedPlan>& other_end) {
  std::vector<const Candidate*> order;
  for (const auto& c : all) order.push_back(&c);
  std::sort(order.begin(), order.end(),
            [](const Candidate* a, const Candidate* b) { return cheaper(*a, *b); });
  bar.at(0.95, "placing the Pareto frontier in zones");
  std::vector<Candidate> pts;
  double front_t = std::numeric_limits<double>::infinity();
  for (const Candidate* c : order)
    if (c->iteration_s < front_t) {
      if (fin.overTime()) {  // the cheap end placed so far; the best plans join it below
        limit.frontier_complete = false;
        break;
      }
      front_t = c->iteration_s;
      if (auto p = fin.place(*c)) pts.push_back(std::move(*p));
    }
  std::sort(pts.begin(), pts.end(), cheaper);
  double best_t = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < pts.size(); ++i)
    if (pts[i].iteration_s < best_t) {
      if (fin.overTime()) {
        limit.frontier_complete = false;
        break;
      }
      best_t = pts[i].iteration_s;
      bar.at(0.97 + 0.03 * static_cast<double>(i) / static_cast<double>(pts.size()),
             "simulating the Pareto frontier (" + std::to_string(result.pareto.size() + 1) + ")");
      result.pareto.push_back(fin.simulated(pts[i]));
    }
  if (!ctx.opt.rank_by_simulator) return;
  std::vector<PlannedPlan> all_pts = result.pareto;
  for (const std::vector<PlannedPlan>* list :
       {static_cast<const std::vector<PlannedPlan>*>(&result.best), &other_end})
    for (const auto& b : *list)
      if (std::none_of(all_pts.begin(), all_pts.end(),
                       [&](const PlannedPlan& x) { return x.plan == b.plan; }))
        all_pts.push_back(b);
  std::stable_sort(all_pts.begin(), all_pts.end(), [](const PlannedPlan& a, const PlannedPlan& b) {
    if (a.prediction.usd_per_iteration != b.prediction.usd_per_iteration)
      return a.prediction.usd_per_iteration < b.prediction.usd_per_iteration;
    return a.prediction.iteration_s < b.prediction.iteration_s;
  });
  result.pareto.clear();
  double front = std::numeric_limits<double>::infinity();
  for (auto& x : all_pts)
    if (fin.meetsSimulated(x.prediction) && x.prediction.iteration_s < front) {
      front = x.prediction.iteration_s;
      result.pareto.push_back(std::move(x));
    }
}

// Each returned plan's MFU (sailor/planning/utilization.hpp) and, in Flag mode, whether it lies
// within the memory reserve (NOTE [Memory reserve]).
void annotatePlans(const SearchContext& ctx, PlanResult& result) {
  const PlannerOptions& options = ctx.opt;
  auto annotate = [&](PlannedPlan& pp) {
    pp.within_memory_reserve = options.memory_reserve_mode == MemoryReserveMode::Flag &&
                               options.memory_reserve_fraction > 0 &&
                               withinMemoryReserve(pp.prediction, options.memory_reserve_fraction);
    const auto u = modelFlopsUtilization(pp.plan, ctx.job, ctx.cat, pp.prediction.iteration_s);
    pp.mfu = u ? u->mfu : 0;
    pp.model_tflops_per_gpu = u ? u->model_tflops_per_gpu : 0;
  };
  for (auto& pp : result.best) annotate(pp);
  for (auto& pp : result.pareto) annotate(pp);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

PlanResult planSearch(const Scenario& scenario, const Job& job, const Catalog& catalog,
                      const ProfileSet& profiles, const PlannerOptions& options,
                      const ProgressSink& progress, const CancelToken* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanResult result;
  checkOptions(options);
  if (cancel && cancel->cancelled()) throw Cancelled();
  const SearchContext ctx(scenario, job, catalog, profiles, options);
  if (!ctx.unsupported().empty()) {
    std::string types;
    for (const auto& t : ctx.unsupported()) types += (types.empty() ? "" : ", ") + t;
    const std::string p = precisionName(job.precision);
    if (ctx.totalGpus() == 0) {
      result.no_plan_reason = "no GPU of the scenario has " + p +
                              " arithmetic (its GPU types: " + types +
                              "; an fp16 job can use them)";
      return result;
    }
    result.notes.push_back("left out " + types + ": no " + p +
                           " arithmetic (an fp16 job can use them)");
  }
  if (ctx.totalGpus() == 0) {
    result.no_plan_reason =
        "the scenario has no GPUs to plan on (every pool's count is 0, or the pool is "
        "switched off: \"enabled\": false)";
    return result;
  }
  std::vector<int> bs = options.microbatch_sizes;
  if (bs.empty())
    for (int b = 1; b <= 64 && b <= job.global_batch_size; b *= 2) bs.push_back(b);
  for (int b : bs)
    if (b < 1) throw InputError("microbatch_sizes", std::to_string(b), "at least 1");
  if (std::none_of(bs.begin(), bs.end(),
                   [&](int b) { return batchFits(job.global_batch_size, b, 1); })) {
    std::string sizes;
    for (int b : bs) sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
    result.no_plan_reason = "no microbatch size searched (" + sizes +
                            ") divides the global batch " + std::to_string(job.global_batch_size) +
                            " (the runtime takes whole microbatches)";
    result.search_seconds = secondsSince(t0);
    return result;
  }

  // NOTE [Time limit]: the search's deadline, then the whole one's.
  const Deadline search_deadline =
      options.time_limit_s ? Deadline(t0, kSearchTimeShare * *options.time_limit_s) : Deadline();
  const Deadline deadline = options.time_limit_s ? Deadline(t0, *options.time_limit_s) : Deadline();
  SearchProgress bar(progress, bs.size(), kSearchShare);
  std::vector<std::vector<Candidate>> per_b(bs.size());
  std::vector<long> compared(bs.size(), 0);
  std::vector<MicrobatchCoverage> coverage(bs.size());
  const Finisher fin(ctx, cancel, deadline);
  // NOTE [Placed ahead]: with a second thread and no time limit.
  std::optional<PlacedAhead> ahead;
  if (finishThreads(options) > 1)
    ahead.emplace(ctx, fin, placementWindow(options.top_k, options.heuristics.h6_region_pools),
                  options.rank_by_simulator ? kPlacementsRanked : 1);
  runTasks(ctx, bs, bar, cancel, search_deadline, per_b, compared, coverage,
           ahead ? IdleWork([&](const std::vector<std::atomic<bool>>& finished) {
             ahead->work(per_b, finished);
           })
                 : IdleWork());
  fin.checkCancel();
  TimeLimitReport limit;
  limit.limit_s = options.time_limit_s.value_or(0);
  limit.search_stopped_s = secondsSince(t0);
  for (size_t i = 0; i < bs.size(); ++i)
    if (batchFits(job.global_batch_size, bs[i], 1)) limit.microbatches.push_back(coverage[i]);
  std::sort(limit.microbatches.begin(), limit.microbatches.end(),
            [](const MicrobatchCoverage& a, const MicrobatchCoverage& b) {
              return a.microbatch < b.microbatch;
            });
  for (long n : compared) result.candidates += n;
  std::vector<Candidate> all = mergeCandidates(per_b);
  if (all.empty()) {
    if (!limit.searchComplete()) {
      result.time_limit = limit;
      result.no_plan_reason = timeLimitReason(limit.limit_s) + ": " + limit.coverageText();
    } else {
      result.no_plan_reason =
          noPlanReason(scenario, job, catalog, profiles, options, progress, bar, cancel, deadline);
    }
    result.search_seconds = secondsSince(t0);
    bar.at(1.0, "no plan");
    return result;
  }
  std::sort(all.begin(), all.end(), [&](const Candidate& a, const Candidate& b) {
    return better(a, b, options.objective);
  });
  chooseBest(ctx, fin, all, bar, result, limit, ahead ? &*ahead : nullptr);
  if (options.pareto) {
    std::vector<PlannedPlan> other_end;
    if (options.rank_by_simulator)
      other_end = otherObjectiveBest(scenario, job, catalog, profiles, options, t0, cancel);
    paretoFrontier(ctx, fin, all, bar, result, limit, other_end);
  }
  annotatePlans(ctx, result);
  result.knee = kneeOf(result, options.objective);
  if (!limit.complete()) result.time_limit = limit;
  bar.at(1.0, "done");
  result.search_seconds = secondsSince(t0);
  return result;
}

}  // namespace sailor
