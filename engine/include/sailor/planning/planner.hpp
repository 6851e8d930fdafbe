// The planner: searches GPU allocation jointly with the parallelization plan (pipeline depth,
// layer partition, microbatch size, data-parallel degree, per stage the replicas and where they
// run) for maximum throughput or minimum cost under constraints, and the Pareto frontier of
// (throughput, cost per iteration). Exact for its planning model (docs/planner.md): a dynamic
// program over (stages left, first layer, GPUs used per site, previous stage's kind) keeping,
// per state, the Pareto set of partial plans. Every heuristic is named and switchable.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/core/progress.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/campaign_figures.hpp"
#include "sailor/planning/knee.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

enum class Objective { Throughput, Cost };

// How the placements of one plan (the same replicas, in different zones) are compared: by this
// figure, lower first, iteration time breaking ties. With the cost objective it is the cost per
// iteration. With the throughput objective it is seconds x USD per iteration: a placement p
// dearer than q ranks above q only where it repays its price, its throughput gain (t_q / t_p) at
// least its cost increase (usd_p / usd_q); at equal prices and without egress it orders by time
// alone. NOTE [A dearer placement repays its price] (planner_placement.cpp) says why one figure
// rather than the pairwise rule. Plans that differ in more than zones are compared by the
// objective as before.
double placementFigure(double iteration_s, double usd_per_iteration, Objective o);
// -1, 0, 1: placement a (iteration seconds, USD per iteration) better, as good or worse than b
// by placementFigure, then iteration time; figures within rel_tie of each other (relative) are
// equal.
int comparePlacements(double t_a, double usd_a, double t_b, double usd_b, Objective o,
                      double rel_tie = 0);

// The search's heuristics, each named and switchable (docs/planner.md measures what each costs).
// The numbers are stable names (`sailor plan --no-heuristic hN`, docs, tests): H8 to H12 are
// ours, and no heuristic is numbered H7 (the number was never given to one).
struct Heuristics {
  // H1: a replica's tp is limited to the smallest degree that fits memory and the degrees up to
  // the one after which the per-GPU speed-up drops below 1.5x per doubling (SAILOR's rule). Off:
  // every power-of-two tp dividing the heads and fitting in a node.
  bool h1_tp_rule = true;
  // H2: drop stage choices that cannot fit in memory before combining them (off: they are
  // combined and rejected on complete plans; same result, slower).
  bool h2_oom_pruning = true;
  // H3 (throughput) / H4 (cost): data-parallel degrees from high to low (throughput) or low to
  // high (cost), stopping after max(patience, patience_fraction x best degree) degrees in a row
  // that do not improve the best plan, and only where no degree left can beat it in the planning
  // model (a floor on the iteration time or cost of each degree's plans; docs/planner.md).
  bool h3_dp_descending = true;
  bool h4_dp_ascending = true;
  int patience = 3;
  double patience_fraction = 0.25;  // ... or a quarter of the best degree, whichever is more
  double min_improvement = 0.002;   // a degree "improves" when it beats the best by 0.2 %
  // With H12 the sweep also goes on until the degree is a factor patience_span past the best one
  // (below best / span for throughput, above best x span for cost).
  double patience_span = 2.0;
  // H5: the replicas of a stage stay in one region (stages may span regions).
  bool h5_dp_in_region = true;
  // H6: the zones of a region form one pool: the search prices them at the region's cheapest
  // zone, and after it the replicas are placed in the region's zones by comparing placements
  // with the zone pairs' links, egress and prices (docs/planner.md, "Placement scored").
  bool h6_region_pools = true;
  // H8 (ours): every replica of a stage has the same GPU type, tp and site, unless the stages
  // of that data-parallel degree have at most h8_mixed_budget possible replica multisets
  // (C(kinds + D - 1, D)), which are then all tried. Off: every multiset at every degree (only
  // practical on small instances).
  bool h8_homogeneous_stages = true;
  double h8_mixed_budget = 0;
  // H9 (ours): pipelines at most this deep (0: as many stages as layers).
  int max_stages = 4;
  // H10 (ours): at most this many non-dominated partial plans per search state, the best by
  // the objective's lower bound (half by time, half by cost when cost matters); 0: all.
  int max_partial_plans = 64;
  // H11 (ours): for the Pareto frontier, besides H3's and H4's sweeps (which give its two ends),
  // data-parallel degrees on a geometric grid with this ratio (1: every degree).
  double pareto_grid = 2.0;
  // H12 (ours): of the data-parallel degrees giving one number of microbatches per replica
  // (m = ceil(G / (b D))), only the smallest is searched. A plan at a larger degree with the same
  // m is matched by keeping D of its replicas per stage: the same compute per replica, a
  // cheaper all-reduce (2 (D - 1) / D of the gradients), fewer GPUs, lower cost. Exact for
  // stages of one replica kind; a mixed stage's ring over a subset of its replicas may pair
  // kinds it did not pair before. Shrinks the degrees of G = 1024, b = 2 from 320 to 44.
  bool h12_smallest_degree_per_m = true;
  bool operator==(const Heuristics&) const = default;
};

// What the planner does with a plan whose least memory headroom is within the memory reserve
// (PlannerOptions::memory_reserve_fraction): leave it out (Drop: the search fits every stage into
// the GPU's memory less the reserve, and a simulated plan with less headroom is dropped), or
// search with the whole memory and mark such plans (Flag: PlannedPlan::within_memory_reserve).
enum class MemoryReserveMode { Drop, Flag };
enum class ScheduleSearch { DeepSpeed, Megatron };
const char* scheduleSearchName(ScheduleSearch s);  // "deepspeed", "megatron"
ScheduleSearch parseScheduleSearch(const std::string& name, const std::string& field);
const char* memoryReserveModeName(MemoryReserveMode m);  // "drop", "flag"

// NOTE [Memory reserve]: the default share of each GPU's memory kept free against the caching
// allocator's fragmentation, and why 5 % (planner.cpp).
inline constexpr double kDefaultMemoryReserveFraction = 0.05;
inline constexpr double kMaxMemoryReserveFraction = 0.5;

struct PlannerOptions {
  Objective objective = Objective::Throughput;
  std::optional<double> max_usd_per_iteration;
  std::optional<double> max_usd_per_hour;
  std::optional<double> min_iterations_per_s;
  std::optional<int> max_gpus;
  bool pareto = false;  // also return the Pareto frontier of (throughput, cost per iteration)
  int top_k = 3;
  int threads = 0;                    // 0: all hardware threads
  std::vector<int> microbatch_sizes;  // empty: powers of two up to 64
  Heuristics heuristics;
  SimulatorOptions simulator;
  // The best plans: the placed candidates of the search's window ranked by the simulator
  // (true), or the window's top by the planning model the search optimises (false; what the
  // exactness tests compare with their enumeration). NOTE [Ranking by the simulator].
  bool rank_by_simulator = true;
  // Seconds the whole search may take, placing and simulating the chosen plans included; none:
  // no limit. When it is reached the search returns the best plans found so far, marked
  // (PlanResult::time_limit). Positive and finite. NOTE [Time limit] in planner.cpp.
  std::optional<double> time_limit_s;
  // The share of each GPU's memory kept free (0 to kMaxMemoryReserveFraction): a plan whose
  // least headroom (memory less peak use) on some GPU is below this share of that GPU's memory
  // is within the reserve, and memory_reserve_mode says what becomes of it. NOTE [Memory
  // reserve] in planner.cpp. 0: every plan that fits is a candidate, as without a reserve.
  double memory_reserve_fraction = kDefaultMemoryReserveFraction;
  MemoryReserveMode memory_reserve_mode = MemoryReserveMode::Drop;
  // The reserve the search itself keeps: memory_reserve_fraction in Drop mode, 0 in Flag mode.
  double searchReserveFraction() const {
    return memory_reserve_mode == MemoryReserveMode::Drop ? memory_reserve_fraction : 0.0;
  }
  // The schedule the search prices and its plans carry (searchSchedule; docs/planner.md,
  // "Schedules"): DeepSpeed's pipeline engine as SAILOR ran it (what `sailor run`'s bundled
  // runtime runs, so the default), or Megatron-LM's (gradient reduction overlapped with the
  // backward, the distributed optimizer, sequence parallelism, fused attention).
  ScheduleSearch schedules = ScheduleSearch::DeepSpeed;
  // Every field: a new one takes part in PlanCache's comparison without further code.
  bool operator==(const PlannerOptions&) const = default;
};

// The schedule every plan of a search with these options carries before the interleaving is
// chosen: the Megatron-LM options (the job's recomputation) or the default schedule.
Schedule searchSchedule(const PlannerOptions& options);

// One plan and its figures: the planning model's estimate and the simulator's prediction.
struct PlannedPlan {
  Plan plan;
  double model_iteration_s = 0;  // planning model (docs/planner.md)
  double model_usd_per_iteration = 0;
  Prediction prediction;  // the simulator's, for the plan as placed in zones
  // With MemoryReserveMode::Flag: the simulated least headroom of some GPU is below the
  // reserve (PlannerOptions::memory_reserve_fraction of its memory).
  bool within_memory_reserve = false;
  // Model FLOPs utilisation at the simulated iteration time (sailor/planning/utilization.hpp); 0
  // when it has none (a GPU without a rate in the job's precision).
  double mfu = 0;
  double model_tflops_per_gpu = 0;  // model FLOPs per second per GPU, 1e12 FLOP/s
  // The job's whole run on this plan, days and total USD (rankByCampaign, when the job has a
  // training budget).
  std::optional<Campaign> campaign;
};

// The least headroom over the prediction's GPUs: capacity less peak use, bytes (negative when
// one does not fit); +inf when it has no GPU.
double leastHeadroomBytes(const Prediction& prediction);
// Whether some GPU of the prediction has less headroom than `fraction` of its memory.
bool withinMemoryReserve(const Prediction& prediction, double fraction);

// How far a time-limited search got at one microbatch size (PlanResult::time_limit).
struct MicrobatchCoverage {
  int microbatch = 0;
  bool complete = false;     // its sweeps over data-parallel degrees ran to their end
  std::vector<int> degrees;  // the data-parallel degrees searched to the end, ascending
  // Where the limit stopped it (empty when complete), e.g. "cheap end: data-parallel degree
  // 40", or "before its first degree" (its seed plans only: one kind per pipeline, layers split
  // evenly; docs/planner.md).
  std::string stopped_at;
};

// Set when PlannerOptions::time_limit_s stopped the work before its end: the plans returned are
// the best found within the limit, not the search's optimum.
struct TimeLimitReport {
  double limit_s = 0;
  double search_stopped_s = 0;  // when the search (before placing) stopped, after the start
  std::vector<MicrobatchCoverage> microbatches;  // every microbatch size searched, ascending
  // The candidates of the placement window placed in zones and simulated, of how many.
  int placed = 0;
  int window = 0;
  bool placing_complete = true;   // every candidate of the window placed and simulated
  bool frontier_complete = true;  // with the frontier: every point of it placed and simulated
  bool searchComplete() const;    // every microbatch size's sweeps ran to their end
  bool complete() const;          // nothing was cut
  nlohmann::json toJson() const;
  // One line: what was covered ("microbatch 1: 12 degrees (1-40), stopped in the cheap end at
  // degree 48; microbatch 2: complete; ...").
  std::string coverageText() const;
};

struct PlanResult {
  std::vector<PlannedPlan> best;    // top K by the objective, best first
  std::vector<PlannedPlan> pareto;  // by increasing cost per iteration (when requested)
  std::optional<Knee> knee;         // the frontier's knee (kneeOf), when there is a frontier
  long candidates = 0;              // complete plans the search compared
  double search_seconds = 0;
  // Window candidates whose placement was done while the search still ran (NOTE [Placed ahead]
  // in planner.cpp): depends on timing, not on the plans, so not in toJson.
  int placed_ahead = 0;
  std::string no_plan_reason;      // set when best is empty
  std::vector<std::string> notes;  // what the search left out and why, e.g. pools lacking
                                   // the job's precision
  std::optional<TimeLimitReport> time_limit;  // set when the time limit cut the work short
  bool complete() const { return !time_limit; }
  nlohmann::json toJson() const;
};

// One plan as PlanResult::toJson writes it: the plan's JSON with a "prediction" object (the
// simulator's figures, GPUs, the planning model's figures).
nlohmann::json plannedPlanJson(const PlannedPlan& plan);

// Throws InputError for bad input (no GPUs at all, contradictory constraints); returns a result
// with an empty `best` and a reason when no plan satisfies memory or the constraints.
PlanResult planSearch(const Scenario& scenario, const Job& job, const Catalog& catalog,
                      const ProfileSet& profiles, const PlannerOptions& options,
                      const ProgressSink& progress = {}, const CancelToken* cancel = nullptr);

// The planning model for one complete plan (what the search optimises), for tests and the
// exhaustive enumerator. Returns nullopt when the plan does not fit in memory, less
// `memory_reserve_fraction` of each GPU's (PlannerOptions::searchReserveFraction).
struct ModelEstimate {
  double iteration_s = 0;
  double usd_per_iteration = 0;
  double usd_per_hour = 0;
  int gpus = 0;
};
// With `links` (a LinkIndex of `scenario`), links are looked up through it.
std::optional<ModelEstimate> planningModel(const Plan& plan, const Scenario& scenario,
                                           const Job& job, const Catalog& catalog,
                                           const ProfileSet& profiles,
                                           const SimulatorOptions& simulator = {},
                                           const LinkIndex* links = nullptr,
                                           double memory_reserve_fraction = 0);

}  // namespace sailor
