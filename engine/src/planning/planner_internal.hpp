// The planner's pieces (engine/src/planner*.cpp), internal to the engine: declared here so each
// lives in a file of its own and tests/engine/test_planner_parts.cpp can check them one by one.
// docs/planner.md explains the search; this header says what each piece holds.
//
//   Constraints          PlannerOptions' caps and floor: admits() a plan's figures, admitsBound()
//                        a partial plan's lower bounds                  (planner_figures.cpp)
//   Summary, StageFigures, extendSummary, dominates, insertPareto
//                        a partial plan's figures, the recurrence adding one stage in front,
//                        and Pareto dominance between partial plans     (planner_figures.cpp)
//   Candidate, completeFigures, materialize, planKey, searchKey, seedSignature, knownKey
//                        complete plans (as runs until written out), their figures and
//                        canonical texts                                (planner_figures.cpp)
//   Known, placementWindow
//                        the known-plan bound                           (planner_figures.cpp)
//   Site, KindTable, Kind, KindSet, SearchContext
//                        where replicas come from, range tables per (GPU type, tp), memory fit
//                        tables and boundary classes per microbatch size, the links
//                        and egress between sites, placing in zones     (planner_context.cpp)
//   Placer               zones for a candidate's replicas, placements compared by the planning
//                        model's figures with the zone pairs' links      (planner_placement.cpp)
//   StageOption, StageOptionTable
//                        one degree's stage choices with their sync and boundary figures
//   LowerBounds          what the layers a partial plan does not cover must add
//   PartialPlanSearch    the dynamic programme over (stages left, first layer, GPUs used,
//                        previous option's boundary class), states solved free of the usage
//                        before them; searchDegree drives it            (planner_dp.cpp)
//   seedPlans, keepUseful, MicrobatchSearch
//                        seed plans and the sweeps over data-parallel degrees of one microbatch
//                        size                                           (planner_sweep.cpp)
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sailor/planning/planner.hpp"

namespace sailor::planner_detail {

// ---- Constraints.

// The constraints of PlannerOptions, checked the same way wherever a plan is judged: seeds,
// plans the search completes, placed plans, simulated plans.
class Constraints {
 public:
  explicit Constraints(const PlannerOptions& options);
  // A plan's figures; `gpus` nullopt when the GPU count is not checked (simulated plans: their
  // count is the placed plan's, already admitted). False for figures that are not finite or a
  // zero throughput, with or without constraints: such a plan is never ranked or printed.
  bool admits(double iterations_per_s, double usd_per_iteration, double usd_per_hour,
              std::optional<int> gpus) const;
  // Every completion of a partial plan takes >= t_lb seconds, costs >= usd_lb per iteration and
  // uses >= gpus GPUs: false when none of them can meet the constraints. The per-hour cap has no
  // such bound (it falls as the iteration time grows).
  bool admitsBound(double t_lb, double usd_lb, int gpus) const {
    if (min_iterations_per_s_ && t_lb * *min_iterations_per_s_ > 1.0) return false;
    if (max_usd_per_iteration_ && usd_lb > *max_usd_per_iteration_) return false;
    if (max_gpus_ && gpus > *max_gpus_) return false;
    return true;
  }
  bool any() const;     // any constraint at all
  bool byCost() const;  // a cost cap (per iteration or per hour)
  const std::optional<double>& minIterationsPerS() const { return min_iterations_per_s_; }

 private:
  std::optional<double> max_usd_per_iteration_;
  std::optional<double> max_usd_per_hour_;
  std::optional<double> min_iterations_per_s_;
  std::optional<int> max_gpus_;
};

// ---- Partial plans.

// Figures of a partial plan (stages k..P-1 of a pipeline) that completing it can only increase.
struct Summary {
  double maxc = 0, sumc = 0, maxx = 0, rate = 0, egress = 0, boundary_in = 0;
  double work = 0;  // sum over stages of rate x c (bounds only, not a dominance figure)
  int gpus = 0;
  bool fits = true;
};

// One stage placed in front of a partial plan: its straggler's F + B, the incoming boundary
// transfer, sync + optimizer step x, rate (USD per hour), egress (sync and incoming boundary,
// USD per iteration), GPUs, and whether every replica fits in memory.
struct StageFigures {
  double fb = 0;
  double t_in = 0;
  double x = 0;
  double rate = 0;
  double egress = 0;
  int gpus = 0;
  bool fits = true;
};

// The summary recurrence: `stage` in front of `child` (nullptr: the last stage). The stage's
// c = F + B + 2 x its incoming boundary + 2 x the child's incoming boundary (transfers block
// both ways).
inline Summary extendSummary(const StageFigures& stage, const Summary* child) {
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

struct Dims {
  bool cost = false;
  bool gpus = false;
  // A cost-per-hour cap: rate + 3600 egress / T falls as T grows, so a faster partial plan only
  // dominates one with the very same time figures (otherwise the slower may meet the cap).
  bool per_hour = false;
};

// Inline: the search's innermost comparison (a partial plan against each member of a set).
inline bool dominates(const Summary& a, const Summary& b, const Dims& d) {
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

struct Entry {
  Summary s;
  int option = -1;
  int last_layer = -1;
  const Entry* child = nullptr;  // the first entry of the rest's set (in the search's arena)
  int child_index = -1;          // this plan's rest: child[child_index]
};

// Adds e to a Pareto set unless a member dominates it, dropping the members it dominates.
void insertPareto(std::vector<Entry>& set, const Entry& e, const Dims& d);

// ---- Complete plans.

class SearchContext;

// A stage of a search candidate before its plan is written out: its layers and its replicas as
// runs of one site and tp (the search lists a stage's replicas by kind, so equal ones are
// adjacent).
struct ReplicaRun {
  int site = 0;
  int tp = 1;
  int count = 0;
};
struct StageRuns {
  int first_layer = 0;
  int last_layer = 0;
  std::vector<ReplicaRun> runs;
};

// NOTE [Candidates written out late]: the search finds thousands of candidates per scenario
// and only the placement window's (and the frontier's) are ever placed, so a candidate leaves
// the search as its runs; `materialize` writes its plan and sites when it is placed. Writing
// every plan out replica by replica (a Replica holds two strings) took 57 MB and a sixth of the
// search's time on A100+V100 128+384 (docs/benchmarks.md, "The paper's scenarios and 20 zones:
// where the time goes").
struct Candidate {
  double iteration_s = 0;
  double usd = 0;
  double usd_per_hour = 0;
  int microbatch = 0;
  int dp = 0;
  // The search's plan (its sites by index); the source of plan and sites below.
  std::vector<StageRuns> stages;
  Plan plan;  // empty until materialize; replicas' zones empty until placed
  // Per stage, per replica: its site (an index into SearchContext::sites()); with plan.
  std::vector<std::vector<int>> sites;
  std::string key;  // canonical text for deterministic ordering
  // Seed plans (seedPlans) before their plan is written out: kind and stage ends.
  int seed_kind = -1;
  std::vector<int> seed_last;
  // Placements of one search candidate (chooseBest ranks several): the candidate's index.
  int origin = -1;
};

// A complete plan's iteration time T = (M - 1) max c + sum c + max x, cost per iteration
// rate x T / 3600 + egress, and cost per hour, into c.
void completeFigures(const Summary& s, int M, Candidate& c);

// Writes c's plan (replicas with their GPU type and tp, zones empty) and sites from its runs;
// nothing when the plan is already written.
void materialize(const SearchContext& ctx, Candidate& c);

// Canonical text of a placed plan (zones by name).
std::string planKey(const Plan& p);
// The same text for a plan before placing (from its runs), its sites by index.
std::string searchKey(const SearchContext& ctx, const Candidate& c);
// A short text naming a homogeneous plan (every replica of one kind) by its degree, kind and
// stage ends: the same for a seed and for the plan the search finds equal to it.
std::string seedSignature(int D, int site, int tp, const std::vector<int>& last);
// The signature of a found plan when it is homogeneous (from its runs), else its key.
std::string knownKey(const Candidate& c);

// How many of the search's best candidates planSearch places in zones: top_k with exact sites
// (H6 off: the search's figures are the placed ones); with H6 150 more, since a region's pool is
// priced at its cheapest zone and placing can make a plan dearer or not fit (a fixed margin: a
// multiple of top_k left large --top with no known-plan bound; docs/planner.md).
size_t placementWindow(int top_k, bool h6_region_pools);

// Complete plans already known in one microbatch size's task (seed plans and the plans found at
// earlier degrees), all of them in that task's output. A partial plan whose lower bounds
// (iteration time, cost) are weakly dominated by a known plan cannot put a new point on the
// frontier, and one whose objective bound is worse than the `window`-th best known plan cannot
// enter the ranked window: the search drops it when both hold (only the second for a single
// objective). Exact: every plan it drops is matched or beaten by plans in the output.
class Known {
 public:
  Known(bool pareto, bool by_cost, size_t window)
      : pareto_(pareto), by_cost_(by_cost), window_(window) {}
  // False (and nothing added) when a plan of that key is known already.
  bool add(const std::string& key, double t, double c);
  // A plan known to be new here (no key kept: one Known of only such plans keeps none).
  void addNew(double t, double c);
  // Whether (t, c) is weakly dominated by a point of the known frontier.
  bool dominated(double t, double c) const {
    auto it = std::upper_bound(front_.begin(), front_.end(),
                               std::make_pair(t, std::numeric_limits<double>::infinity()));
    return it != front_.begin() && std::prev(it)->second <= c;
  }
  // Whether a partial plan whose completions all take >= t_lb seconds and cost >= c_lb can be
  // dropped.
  bool prunes(double t_lb, double c_lb) const {
    if ((by_cost_ ? c_lb : t_lb) <= threshold_) return false;
    return !pareto_ || dominated(t_lb, c_lb);
  }
  // Whether prunes reads its c_lb (by cost, or the frontier's): callers may skip figuring it.
  bool readsCost() const { return by_cost_ || pareto_; }

 private:
  bool pareto_;
  bool by_cost_;
  size_t window_;
  std::set<std::string> keys_;
  std::vector<std::pair<double, double>> front_;  // staircase: iteration_s up, usd down
  std::priority_queue<double> best_;              // the `window` best objective values
  double threshold_ = std::numeric_limits<double>::infinity();
};

// The known-plan bound one degree's search prunes with: its task's own known plans, and with
// `shared` also the other microbatch sizes' seeds (NOTE [Seeds shared between microbatch
// sizes] in planner_sweep.cpp), which prune only where the sweep's metric (cost with
// floor_by_cost, else time) of the bound is above `floor`, the best the sweep found so far: the
// sweep judges a degree by its best plan (H3, H4), and no plan better than the sweep's best is
// dropped by the shared plans, so the sweep's choices are those of the task's own bound.
struct KnownBound {
  KnownBound(const Known& k) : own(&k) {}  // NOLINT(google-explicit-constructor): own alone
  KnownBound(const Known& k, const Known* s, bool by_cost, double f)
      : own(&k), shared(s), floor_by_cost(by_cost), floor(f) {}
  bool prunes(double t_lb, double c_lb) const {
    if (own->prunes(t_lb, c_lb)) return true;
    return shared && (floor_by_cost ? c_lb : t_lb) > floor && shared->prunes(t_lb, c_lb);
  }
  bool readsCost() const {
    return own->readsCost() || (shared && (floor_by_cost || shared->readsCost()));
  }
  const Known* own;
  const Known* shared = nullptr;
  bool floor_by_cost = false;
  double floor = std::numeric_limits<double>::infinity();
};

// ---- Sites, kinds and the search's fixed context.

// A site is where replicas of one GPU type come from: a zone's pool (H6 off) or all pools of
// that type in a region (H6 on).
struct Site {
  std::string gpu_type;
  std::string region;
  struct ZoneSlot {
    std::string zone;
    int count;
    double usd_per_gpu_hour;
  };
  std::vector<ZoneSlot> zones;  // cheapest first, then by name
  int capacity = 0;
  int gpus_per_node = 1;
  const GpuType* gpu = nullptr;
  const std::string& zone() const { return zones.front().zone; }  // representative
  double price() const { return zones.front().usd_per_gpu_hour; }
};

// Per (GPU type, tp): range tables over layers [l, r] for the planning model.
struct KindTable {
  int L = 0;
  const GpuType* gpu = nullptr;
  std::vector<double> fb;            // (F + B)[l][r] per microbatch
  std::vector<double> fwd;           // F[l][r] per microbatch
  std::vector<double> params;        // params[l][r] per GPU (tie-adjusted)
  std::vector<double> act;           // activation bytes per sequence [l][r]
  std::vector<double> maxact;        // largest layer's activation bytes per sequence [l][r]
  std::vector<double> out_elements;  // per layer
  double optimizer_s_per_param = 0;
  double tied_params = 0;  // head parameters tied to the embedding, per GPU
  double at(const std::vector<double>& v, int l, int r) const {
    return v[static_cast<size_t>(l * L + r)];
  }
};

// A replica kind: a site and a tp, with the range table of its (GPU type, tp).
struct Kind {
  int site = 0;
  int tp = 1;
  int table = 0;  // index into KindSet::tables
};

// The replica kinds of one microbatch size, with what every degree's search asks of them
// again and again: which layer ranges fit in memory, and which kinds send and receive stage
// boundaries alike.
struct KindSet {
  std::vector<KindTable> tables;
  std::vector<Kind> kinds;
  const KindTable& table(const Kind& k) const { return tables[static_cast<size_t>(k.table)]; }
  const Kind& kind(int i) const { return kinds[static_cast<size_t>(i)]; }

  // Whether a replica of table t holding layers [l, r] fits in its GPU's memory with `in_flight`
  // microbatches in flight (1 to max_in_flight), replicaMemoryBytes as the search checks it.
  // Memory grows with r (parameters and activations summed over layers, the largest layer's
  // working set, the gradient bucket) except for the whole model, whose head shares the
  // embedding's parameters: so a range fits iff r <= fit_rmax, the whole model by fit_full.
  bool fits(int t, int in_flight, int l, int r) const {
    const size_t ti = (static_cast<size_t>(bucket) * tables.size() + static_cast<size_t>(t)) *
                          static_cast<size_t>(max_in_flight + 1) +
                      static_cast<size_t>(in_flight);
    const int L = tables[static_cast<size_t>(t)].L;
    if (l == 0 && r == L - 1) return fit_full[ti] != 0;
    return r <= fit_rmax[ti * static_cast<size_t>(L) + static_cast<size_t>(l)];
  }
  // The last layer r >= l - 1 with [l, r'] fitting for every r' in [l, r] (the whole model
  // apart).
  int fitEnd(int t, int in_flight, int l) const {
    const size_t ti = (static_cast<size_t>(bucket) * tables.size() + static_cast<size_t>(t)) *
                          static_cast<size_t>(max_in_flight + 1) +
                      static_cast<size_t>(in_flight);
    return fit_rmax[ti * static_cast<size_t>(tables[static_cast<size_t>(t)].L) +
                    static_cast<size_t>(l)];
  }
  int max_in_flight = 0;
  // With a sharded optimizer state memory falls as the degree D grows: the tables hold one
  // bucket per power of two, 2^i, and a search of degree D reads bucket floor(log2 D) (its
  // state no larger than at 2^i: a stage fitting there fits at D). One bucket without sharding.
  int buckets = 1;
  int bucket = 0;  // the degree being searched (setDegree)
  void setDegree(int D) {
    int i = 0;
    while (i + 1 < buckets && (2 << i) <= D) ++i;
    bucket = i;
  }
  // [((bucket x tables + table) x (max_in_flight + 1) + in_flight) x L + l]
  std::vector<int> fit_rmax;
  std::vector<char> fit_full;  // [(bucket x tables + table) x (max_in_flight + 1) + in_flight]

  // Kinds a stage boundary cannot tell apart as the sending stage: the same activation sizes,
  // and to and from every kind the same transfer time and egress price (exactly, as computed).
  // The search keys its states by the previous stage's class instead of its option.
  std::vector<int> boundary_class;  // per kind
  int boundary_classes = 0;
};

// What every microbatch size's search shares, read-only once built (one per planSearch): the
// sites, the links and egress prices between them, the constraints. It holds references to its
// arguments, which must outlive it.
class SearchContext {
 public:
  SearchContext(const Scenario& sc, const Job& job, const Catalog& cat, const ProfileSet& profiles,
                const PlannerOptions& opt);

  const Scenario& sc;
  const Schedule schedule;  // searchSchedule(opt): what every plan of the search carries
  const Job job;            // the job with the schedule's options (Plan::effectiveJob)
  const Catalog& cat;
  const ProfileSet& profiles;
  const PlannerOptions& opt;
  const ModelSpec& model;
  const int layers;  // the model's plan layers
  const Constraints constraints;
  const LinkIndex link_index;  // every link of the search, its placements and simulations

  const std::vector<Site>& sites() const { return sites_; }
  const Site& site(int s) const { return sites_[static_cast<size_t>(s)]; }
  // GPU types of non-empty pools left out for lack of the job's precision (supportsPrecision).
  const std::set<std::string>& unsupported() const { return unsupported_; }
  int totalGpus() const;
  // The deepest pipeline searched: H9's max_stages, at most one stage per layer.
  int maxDepth() const;
  // Microbatches per replica per iteration: ceil(G / (b D)).
  int microbatches(int b, int D) const;

  // The replica kinds of microbatch size b (H1 applied); kinds without a profile are left out.
  KindSet kinds(int b) const;

  // The link from site a to site b for `gpus` GPUs of a node sending at once.
  const ResolvedLink& linkBetween(int a, int b, int gpus) const;
  double egressBetween(int a, int b) const;  // USD per GB
  // Link time of one message of `bytes` from a replica of kind a to one of kind b.
  double p2p(const Kind& a, const Kind& b, double bytes) const;
  // The tied embedding's gradient all-reduce of a last stage of several (the simulator's NOTE
  // [Tied embedding gradients]), over the last stage's own site link.
  double tiedSeconds(const Kind& kd, const KindTable& t) const;

  // Writes zones into a candidate's replicas, filling each site's cheapest zones first, in
  // stage order (a replica stays inside one zone). Returns false when it cannot. The file-order
  // placement: the Placer's first fill, and the whole placement when every site is one zone.
  bool place(Candidate& c) const;

 private:
  void buildSites();
  void buildLinks();
  bool makeTable(const std::string& gpu, int b, int tp, KindTable& t) const;
  void fitTables(int b, KindSet& out) const;
  void boundaryClasses(int b, KindSet& out) const;

  std::vector<Site> sites_;
  std::set<std::string> unsupported_;
  // Into link_index's answers: [GPUs sending at once][site x site], and per site the fabric
  // inside its nodes.
  std::vector<std::vector<const ResolvedLink*>> links_;
  std::vector<const ResolvedLink*> node_links_;
  std::vector<double> egress_;  // site x site, USD per GB
};

// ---- Placement scored zone by zone.

// Zones for a candidate's replicas (docs/planner.md, H6). With H6 a site is a region's pools of
// one GPU type and the search priced it at its cheapest zone; which zone each replica takes
// changes its ring neighbours' links, its boundary partners' links, egress and price. The Placer
// compares placements with the planning model's arithmetic on the zone pairs' real figures and
// keeps the best by the objective under the constraints: every assignment of zones to replicas
// when there are few (exact), else fills of the stages in every order of each site's zones (the
// first being SearchContext::place's file order) improved by local moves on runs of replicas
// sharing a zone. Not thread-safe (its caches); one per planSearch, used after the search.
class Placer {
 public:
  explicit Placer(const SearchContext& ctx);
  // At most `keep` placements of c (zones written into c.plan), best first by the planning
  // model's figures and the objective, those meeting the constraints first, and with keep > 1
  // also SearchContext::place's file-order placement when it is not among them; empty when none
  // fits the zones' counts. The caller figures them again with planningModel. When every
  // assignment was figured (few replicas) and keep > 1, up to kSmallRanked (16) are returned for
  // the simulator to rank. `exhaustive_when_small` false: the fills and local moves only (tests).
  // `with_fills`: also every fill in a zone order (one per order of each site's zones) that is
  // not among them, for the simulator to compare on a chosen plan. `local_moves` false: the best
  // fill only, no local moves (cheaper; planSearch's window beyond its first candidates).
  std::vector<Candidate> place(const Candidate& c, size_t keep, bool exhaustive_when_small = true,
                               bool with_fills = false, bool local_moves = true) const;
  // The best `keep` placements one local move away from a placed candidate's (its zones as
  // they are), by the planning model: for the simulator to climb from a chosen plan.
  std::vector<Candidate> neighbours(const Candidate& placed, size_t keep) const;
  long placed() const { return placed_; }        // candidates placed so far
  long evaluated() const { return evaluated_; }  // layouts figured so far

  // A stage's replicas of one kind in a row (one site, one tp), and their runs per zone.
  struct Run {
    int slot = 0;  // index into the site's zones
    int count = 0;
    bool operator==(const Run&) const = default;
  };
  struct Layout {
    std::vector<std::vector<Run>> runs;  // per block
  };

 private:
  struct Profile {
    std::vector<LayerTiming> t;
    std::vector<LayerMemory> mem;
    double opt = 0;
  };
  struct Block {
    int stage = 0, start = 0, len = 0, site = 0, tp = 1;
    const std::string* gpu = nullptr;
    double shard = 0;       // gradient bytes per GPU
    double tied = 0;        // tied embedding's gradient bytes (the last of several stages)
    std::vector<int> zone;  // per slot: zone id
    std::vector<double> price;
  };
  struct Figure {
    double t = -1;  // seconds (-1: not yet figured)
    double usd = 0;
  };
  struct Seg {
    int block, slot, len;
  };
  struct Problem {
    int P = 0, D = 0, M = 0, max_slots = 1;
    std::vector<Block> blocks;
    std::vector<std::vector<int>> stage_blocks;
    std::vector<double> fb, opt, msg;  // per stage; msg[s]: boundary message into stage s
    // Per stage, its replicas' (parameters, step rate, forward, backward, GPU) under a schedule
    // other than the default: the wait and step come from the ring's seconds (stageDataParallel).
    struct KindFigures {
      double params, opt, fwd, bwd;
      const GpuType* gpu;
    };
    std::vector<std::vector<KindFigures>> kinds;
    std::vector<Figure> ring, pair;  // [block, slot, block, slot]
    std::vector<double> tied_s;      // [block, slot]
    std::vector<std::vector<Seg>> segs;
    std::vector<double> x, bnd;
    std::vector<int> used;
    size_t index(int a, int za, int b, int zb) const {
      const size_t n = blocks.size() * static_cast<size_t>(max_slots);
      return (static_cast<size_t>(a) * static_cast<size_t>(max_slots) + static_cast<size_t>(za)) *
                 n +
             static_cast<size_t>(b) * static_cast<size_t>(max_slots) + static_cast<size_t>(zb);
    }
  };
  struct Score {
    double t = 0, usd = 0;
    bool admitted = false;
  };
  struct Best {
    size_t keep = 1;
    std::vector<std::pair<Layout, Score>> items;
    void offer(const Layout& lay, const Score& s, const Placer& p);
  };

  const ResolvedLink& link(int za, const std::string& ga, int zb, const std::string& gb,
                           int gpus) const;
  const ResolvedLink& nodeLink(const std::string& gpu) const;
  const Profile& profile(const std::string& gpu, int tp, int b) const;
  double egressOf(int a, int b) const {
    return egress_[static_cast<size_t>(a) * zone_names_.size() + static_cast<size_t>(b)];
  }
  Problem problem(const Candidate& c) const;
  const Figure& ringEdge(Problem& pr, int a, int za, int b, int zb) const;
  const Figure& boundaryPair(Problem& pr, int a, int za, int c, int zc) const;
  double tiedSeconds(Problem& pr, int a, int za) const;
  Score evaluate(Problem& pr, const Layout& lay) const;
  bool better(const Score& a, const Score& b) const;
  static void normalize(Layout& lay);
  bool fits(Problem& pr, const Layout& lay) const;
  bool fill(const Problem& pr, const std::vector<std::vector<int>>& order, Layout& lay) const;
  void exhaustive(Problem& pr, Best& best) const;
  void seeds(Problem& pr, Best& best, std::vector<Layout>* fills = nullptr) const;
  void improve(Problem& pr, Layout lay, Best& best, bool explore = false) const;
  Candidate written(const Candidate& c, const Problem& pr, const Layout& lay) const;
  std::vector<Candidate> write(const Candidate& c, const Problem& pr, const Best& best,
                               size_t keep) const;

  const SearchContext& ctx_;
  std::map<std::string, int> zone_id_;
  std::vector<std::string> zone_names_;
  std::vector<double> egress_;  // zone x zone, USD per GB
  mutable std::map<std::tuple<std::string, int, int>, Profile> profiles_;
  mutable long placed_ = 0;
  mutable long evaluated_ = 0;
};

// ---- One data-parallel degree.

// A stage option: D replicas (kind indices, sorted), with per-site GPU use.
struct StageOption {
  std::vector<int> replicas;  // kind index per replica, non-decreasing
  std::vector<int> kinds;     // its distinct kinds, ascending (what per-kind figures walk)
  std::vector<int> use;       // GPUs per site
  int gpus = 0;               // all sites
  double rate = 0;            // USD per hour
};

// The stage options of one degree (H5, H8 and the GPU cap applied) with, computed on first use,
// each option's sync figures per layer range and the boundary transfer between two options.
class StageOptionTable {
 public:
  StageOptionTable(const SearchContext& ctx, const KindSet& kinds, int b, int D);

  struct Sync {
    double x = 0;       // all-reduce (+ tied embedding) + optimizer step, seconds
    double egress = 0;  // USD per iteration
  };
  struct Boundary {
    double t = 0;       // seconds, the slowest replica pair, both directions
    double egress = 0;  // USD per iteration, both directions
  };

  size_t size() const { return options_.size(); }
  bool empty() const { return options_.empty(); }
  const StageOption& operator[](size_t i) const { return options_[i]; }
  const std::vector<StageOption>& options() const { return options_; }
  // Option oi over layers [l, r].
  const Sync& sync(size_t oi, int l, int r);
  // Option `prev` (last layer l - 1) sending to option oi (first layer l).
  const Boundary& boundary(size_t prev, size_t oi, int l);
  // Options whose boundaries to every option are the same figures (KindSet::boundary_class when
  // every stage is of one kind; otherwise each option its own class).
  int prevClass(size_t oi) const { return prev_class_[oi]; }
  int prevClasses() const { return prev_classes_; }

 private:
  void enumerate();
  // Every multiset of D kinds extending cur with kinds >= start (non-decreasing sequences);
  // false once the table is over its size limit.
  bool enumerateFrom(std::vector<int>& cur, int start);
  void add(const std::vector<int>& reps);

  const SearchContext& ctx_;
  const KindSet& kinds_;
  int b_;
  int D_;
  int M_;
  std::vector<StageOption> options_;
  // Per option: its ring-neighbour pairs with multiplicity (its distinct kinds: StageOption).
  std::vector<std::vector<std::pair<std::pair<int, int>, int>>> ring_pairs_;
  bool one_kind_ = true;  // every option of one kind (H8, or D = 1)
  std::vector<int> prev_class_;
  std::vector<size_t> class_rep_;  // per class: its first option
  int prev_classes_ = 0;
  // Rows allocated on first use: most options never hold most layer ranges.
  struct SyncRow {
    std::vector<Sync> v;
    std::vector<char> done;
  };
  std::vector<std::unique_ptr<SyncRow>> sync_;  // per option, [l x L + r]
  struct BoundaryRow {
    std::vector<Boundary> v;
    std::vector<char> done;
  };
  std::vector<std::unique_ptr<BoundaryRow>> boundary_;  // per (prev class, option), [l]
};

// Lower bounds for the layers a partial plan does not cover, per layer over every kind: compute
// time (a stage's c is at least its straggler's F + B, at least the fastest kind's), D x tp x
// $/GPU-hour x (F + B) (a stage's rate x c is at least that of its cheapest replica kind per
// unit of work, times D), and the least rate of a stage (D x the cheapest replica).
class LowerBounds {
 public:
  LowerBounds(const SearchContext& ctx, const KindSet& kinds, int D, int M, KnownBound known);

  // Whether a degree's compute alone breaks the throughput floor: each microbatch passes every
  // layer once, at most maxDepth stages working at once.
  static bool tooSlow(const SearchContext& ctx, const KindSet& kinds, int M);

  // What the layers before l add to a stage of k stages left (at least one more stage when
  // l > 0, at most maxDepth - k).
  struct Prefix {
    double fb = 0, work = 0, rate = 0, maxc = 0;
  };
  Prefix prefix(int l, int k) const;
  double suffixFb(int l) const { return suf_fb_[static_cast<size_t>(l)]; }
  double minRate() const { return min_rate_; }

  // Whether every completion of the partial figures (max c, sum c, max x, rate, rate x c summed,
  // egress) is matched by a known plan (Known::prunes). T >= (M - 1) max c + sum c + max x;
  // rate x T >= (M - 1) max(rate x max c, sum of rate x c) + rate x (sum c + max x).
  bool bounded(double mc, double sc, double mx, double rate, double work, double egress) const;
  // A stage over [l, r] with k stages left, before its suffix is searched: this stage with the
  // least the k - 1 later stages (layers r + 1 on) add.
  bool stagePruned(int k, int r, double c0, double x, double rate, double egress,
                   const Prefix& p) const;
  // A partial plan (this stage and a suffix) with the least the layers before it add.
  bool partialPruned(const Summary& s, const Prefix& p) const;
  // The degree's own best plan so far by the sweep's metric: a plan worse than it cannot be the
  // degree's best (the sweep's judgement), so the shared plans may prune above it too.
  void tightenFloor(double v) { known_.floor = std::min(known_.floor, v); }

 private:
  int M_;
  int max_stages_;
  KnownBound known_;
  bool reads_cost_;  // whether known_ reads a cost bound (else bounded skips figuring it)
  std::vector<double> pre_fb_, pre_w_, suf_fb_, suf_w_;  // [l]: layers before l / from l on
  double min_rate_ = std::numeric_limits<double>::infinity();
};

// Thrown by StopFlag::check when the search's deadline has passed; caught inside the search
// (MicrobatchSearch::run), which keeps what it found: never seen by planSearch's callers.
struct TimeLimitReached {};

// When a search task must stop: the caller cancelled, or a sibling task failed (it throws
// Cancelled away), or the search's share of the time limit passed (the task keeps its plans).
struct StopFlag {
  const CancelToken* user = nullptr;
  CancelToken sibling_failed;
  Deadline deadline;  // the search's share of PlannerOptions::time_limit_s; none: no limit
  bool operator()() const { return (user && user->cancelled()) || sibling_failed.cancelled(); }
  // Throws Cancelled when the task must stop, TimeLimitReached when the deadline has passed.
  void check() const {
    if ((*this)()) throw Cancelled();
    if (deadline.passed()) throw TimeLimitReached();
  }
};

// The dynamic programme of one degree: for (stages left k, first layer l, GPUs used per tracked
// site, previous option's boundary class) the Pareto set of partial plans for the rest of the
// pipeline, memoized (k counts from the end, so suffixes are shared across depths).
//
// What keeps the states few (all exact; docs/planner.md, "Performance"):
// - a state is first solved as if no GPU were used before it (its *free* set); when every plan
//   in that set still fits beside the GPUs the stages before it use, that set is the answer (a
//   set of non-dominated plans of a larger space, all of which are feasible, is the set of the
//   smaller one), and only otherwise is the state solved with its usage in the key;
// - usage in the key is canonical: per site, the largest total that at most k stage options can
//   take from what is left (all usages with the same choices ahead are one state);
// - the previous option enters as its boundary class (StageOptionTable::prevClass);
// - per (k, l, previous class) the stage choices that fit in memory, leave a pipeline that can
//   fit (H2) and pass the known-plan bound are listed once, for every usage of that state.
class PartialPlanSearch {
 public:
  PartialPlanSearch(const SearchContext& ctx, const KindSet& kinds, StageOptionTable& options,
                    const LowerBounds& bounds, int b, int M, bool cost_dims, const StopFlag& stop);
  ~PartialPlanSearch();
  // Whether a pipeline of P stages can fit under the GPU cap.
  bool depthFits(int P) const;
  // The partial plans of whole pipelines of P stages (the first starting at layer 0).
  std::span<const Entry> pipelines(int P);
  const Dims& dims() const { return dims_; }
  // States solved (free and with usage) and stage choices combined so far.
  long states() const { return new_states_; }

 private:
  struct StateSet;
  struct LastLookup;
  struct Choice;
  struct Choices;
  // The states solved under a usage, by their keys (stateKey).
  struct Memo {
    struct Slot {
      std::uint64_t hash = 0;
      size_t at = 0;  // the key's first int in `ints`
      std::uint32_t len = 0;
      StateSet* set = nullptr;  // null: an empty slot
    };
    std::vector<Slot> table;  // a power of two of slots, or none (`slots` is a Qt macro)
    std::vector<int> ints;
    size_t count = 0;
    StateSet* find(const std::vector<int>& key, std::uint64_t h) const;
    void insert(const std::vector<int>& key, std::uint64_t h, StateSet* set);
  };
  const StateSet& solve(int k, int l, int prev);
  StateSet* compute(int k, int l, int prev);
  std::span<const Choice> choices(int k, int l, int prev);
  std::span<const Choice> baseChoices(int k, int l);
  // The memo key of (k, l, prev) under the usage `part` (sorted by site) and `gpus` GPUs.
  void stateKey(int k, int l, int prev, const std::vector<std::pair<int, int>>& part, int gpus,
                std::vector<int>& key) const;
  // Whether every plan of the set fits beside the usage before it.
  bool compatible(const StateSet& set) const;
  bool hasRoom(size_t oi, int k) const;
  void use(size_t oi, int sign);  // adds (1) or removes (-1) option oi's GPUs
  template <class F>
  void withUsage(int k, const std::vector<std::pair<int, int>>& part, int gpus, F f);
  // Whether option o holding [l, r] fits in memory with min(k, M) microbatches in flight.
  bool stageFits(size_t oi, int k, int l, int r) const;
  // Straggler F + B of option o over [l, r].
  double stageFb(const StageOption& o, int l, int r) const;
  // One stage choice after option prev, combined with the rest.
  void combine(const Choice& ch, int k, const LowerBounds::Prefix& p, std::vector<Entry>& pool);
  // Non-dominated entries of pool; H10 keeps at most max_partial_plans of them.
  std::vector<Entry>& reduce(std::vector<Entry>& pool);
  size_t flatIndex(int k, int l, int prev) const;

  const SearchContext& ctx_;
  const KindSet& kinds_;
  StageOptionTable& options_;
  const LowerBounds& bounds_;
  int b_;
  int M_;
  const StopFlag& stop_;
  Dims dims_;
  int L_;
  std::vector<char> track_;  // per site: whether its GPUs can run out at this degree
  std::vector<int> max_use_;
  // Per tracked site and stages left k: the totals that at most k options can take from it,
  // ascending (empty: more than kMaxSums, the rule capacity - k x largest use instead).
  std::vector<std::vector<std::vector<int>>> sums_;
  std::vector<std::vector<std::pair<int, int>>> option_use_;  // per option: (tracked site, GPUs)
  std::vector<char> feasible_;  // [k x (L + 1) + l]: some pipeline of k stages fits from l (H2)
  int max_opt_gpus_ = 0;
  int min_opt_gpus_ = std::numeric_limits<int>::max();
  // The stages placed so far: GPUs per tracked site, the sites with some, all GPUs.
  std::vector<int> used_;
  std::vector<int> active_;    // the sites with used_ != 0
  std::vector<int> capacity_;  // per site, its GPUs (Site::capacity, kept here: read per choice)
  int gpus_used_ = 0;
  // The states' sets, their entries and site uses live in one arena, freed with the search.
  std::pmr::monotonic_buffer_resource arena_;
  std::vector<StateSet*> free_;                         // per (k, l, previous class)
  std::vector<LastLookup*> last_;                       // per (k, l, previous class)
  std::vector<Choices> choices_;                        // per (k, l, previous class)
  std::vector<Choices> base_;                           // per (k, l)
  std::vector<Choice> choices_scratch_, base_scratch_;  // lists before the arena
  Memo memo_;                                           // with usage
  // Buffers of the states with k stages left (a state's work nests only states with fewer), kept
  // between states so that solving one allocates only what it stores.
  struct Scratch {
    std::vector<int> key;
    std::vector<Entry> pool;                // a state's combinations before dominance
    std::vector<std::pair<int, int>> part;  // the usage restricted to the sites that matter
    std::vector<std::pair<int, int>> use;   // one plan's GPUs per tracked site
    std::vector<int> saved_active;          // withUsage's saved usage
    std::vector<std::pair<int, int>> saved;
  };
  std::vector<Scratch> scratch_;                                 // per k
  std::vector<std::pair<double, std::uint32_t>> order_scratch_;  // reduce's
  std::vector<Entry> reduce_scratch_;                            // reduce's set
  std::vector<std::pair<int, int>> max_use_scratch_;             // compute's
  // A copy of v in the arena.
  template <class T>
  std::span<const T> keep(const std::vector<T>& v) {
    if (v.empty()) return {};
    T* p = static_cast<T*>(arena_.allocate(v.size() * sizeof(T), alignof(T)));
    std::uninitialized_copy(v.begin(), v.end(), p);
    return {p, v.size()};
  }
  long new_states_ = 0;
};

// Searches degree D of microbatch size b: appends the complete plans meeting the constraints to
// `found` (known, and `shared` when given, learn them depth by depth); `compared` counts the
// complete plans looked at. With `shared`, the bound is KnownBound(known, shared, floor_by_cost,
// floor).
void searchDegree(const SearchContext& ctx, const KindSet& kinds, int b, int D, bool cost_dims,
                  Known& known, const StopFlag& stop, std::vector<Candidate>& found, long& compared,
                  Known* shared = nullptr, bool floor_by_cost = false,
                  double floor = std::numeric_limits<double>::infinity());

// ---- The schedule's data-parallel figures, as every part of the search prices them.

// A stage's wait after its last backward and its step under the search's schedule
// (dataParallelFigures in simulator.hpp), from the ring all-reduce over its slowest pair; one
// kind's parameters per GPU, step rate and per-microbatch forward and backward.
inline DataParallelFigures stageDataParallel(const SearchContext& ctx, double allreduce_s,
                                             double params, int D, double optimizer_s_per_param,
                                             const GpuType& gpu, double fwd, double bwd) {
  return dataParallelFigures(ctx.schedule, ctx.job, allreduce_s, params, D, optimizer_s_per_param,
                             gpu, fwd, bwd);
}
// Bytes the ring carries against an all-reduce of fp32 gradients: a reduce-scatter of them and
// an all-gather of the weights under the distributed optimizer, (4 + w) / 8.
inline double syncEgressFactor(const SearchContext& ctx) {
  return ctx.schedule.sharding == DpSharding::None
             ? 1.0
             : (4.0 + ctx.job.activationBytesPerElement()) / 8.0;
}

// ---- One microbatch size.

// Seed plans: for every degree D up to max_d, kind and depth P, the pipeline with every stage
// holding D replicas of that kind and the layers split evenly by that kind's compute time,
// figured as the search figures them (same operations, same order). They bound the search.
std::vector<Candidate> seedPlans(const SearchContext& ctx, const KindSet& kinds, int b, int max_d);

// Of one degree's candidates, keeps those that can still be chosen: the best by the objective
// within the placement window, and (for --pareto) the degree's own frontier.
void keepUseful(const PlannerOptions& opt, std::vector<Candidate>& found);

// One microbatch size's task: the sweeps over data-parallel degrees (H3, H4, H11, H12), the seed
// plans and the known-plan bound. `report(fraction, step)` gets its own progress.
class MicrobatchSearch {
 public:
  // (fraction, step, plans found so far: seeds and plans meeting the constraints)
  using Report = std::function<void(double, const std::string&, long)>;
  MicrobatchSearch(const SearchContext& ctx, int b, const StopFlag& stop, Report report);
  // Its kinds, degrees and seed plans (run() calls it when the caller has not). False when no
  // plan of this microbatch size can exist (it does not divide the global batch, no kind).
  bool prepare();
  // The seed plans prepare() listed (their figures and keys; runs not written yet).
  const std::vector<Candidate>& seeds() const { return seeds_; }
  // A plan of another task the known-plan bound may use (NOTE [Seeds shared between
  // microbatch sizes]): its task returns it (its own seeds), so the bound stays exact.
  void addForeignKnown(double t, double c);
  // Appends the task's candidates to out and the complete plans compared to compared. When the
  // stop flag's deadline passes, the sweeps stop there and the task returns what it has: its
  // seed plans and the plans of the degrees (and, at the degree cut, the depths) searched.
  void run(std::vector<Candidate>& out, long& compared);
  // The task's seed plans alone into out (a task the deadline stopped before it ran: other
  // tasks' bounds may have used them); its coverage says "before its first degree".
  void seedsOnly(std::vector<Candidate>& out);
  // How far run() got (complete unless the deadline stopped it).
  const MicrobatchCoverage& coverage() const { return coverage_; }

  // The degrees searched in ascending order (H12: the smallest of each microbatch count).
  std::vector<int> degreesUp() const;
  // H11's grid of degrees between the two ends of the frontier.
  std::vector<int> paretoGrid(int fast_degree, int cheap_degree) const;

 private:
  // One sweep over degrees; with `early`, stops after enough degrees without a gain in the
  // metric (H3/H4). Returns the last degree that improved it (0: none).
  int sweep(const std::vector<int>& degrees, bool by_cost, bool early, bool cost_dims,
            const char* what);
  bool enough(int D, int since, int best_degree, bool by_cost) const;
  // Whether a degree after degrees[di] in the sweep may still hold a plan better than `best`
  // in the planning model: lower bounds on the iteration time (or cost) of every plan of those
  // degrees, from the fastest (cheapest) kind per layer. H3/H4 stop only where none can.
  bool mayImprove(const std::vector<int>& degrees, size_t di, bool by_cost, double best) const;
  void finishSeeds();

  const SearchContext& ctx_;
  int b_;
  const StopFlag& stop_;
  Report report_;
  KindSet kinds_;
  int max_d_ = 0;
  double fb_floor_ = 0;    // sum over layers of the least F + B of any kind
  double work_floor_ = 0;  // sum over layers of the least tp x USD per GPU-hour x (F + B)
  Known known_;            // this task's seeds and found plans
  Known shared_;           // those and the other microbatch sizes' seeds
  std::vector<Candidate> seeds_;
  std::vector<char> visited_;  // per dominance mode (time only, with cost) and degree
  std::vector<Candidate>* out_ = nullptr;
  long* compared_ = nullptr;
  int sweeps_ = 1;
  int sweep_index_ = 0;
  bool prepared_ = false;
  bool fits_ = false;
  long plans_found_ = 0;
  MicrobatchCoverage coverage_;
};

}  // namespace sailor::planner_detail
