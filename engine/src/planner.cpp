#include "sailor/planner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "sailor/error.hpp"

namespace sailor {

using nlohmann::json;

namespace {

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
  std::vector<double> fb;            // (F + B)[l][r] per microbatch
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

struct Kind {
  int site = 0;
  int tp = 1;
  int table = 0;  // index into tables for this microbatch size
};

// A stage option: D replicas (kind indices, sorted), with per-site GPU use.
struct StageOption {
  std::vector<int> replicas;  // kind index per replica, non-decreasing
  std::vector<int> use;       // GPUs per site
  int gpus = 0;               // all sites
  double rate = 0;            // USD per hour
};

struct Summary {
  double maxc = 0, sumc = 0, maxx = 0, rate = 0, egress = 0, boundary_in = 0;
  double work = 0;  // sum over stages of rate x c (bounds only, not a dominance figure)
  int gpus = 0;
  bool fits = true;
};

struct Entry {
  Summary s;
  int option = -1;
  int last_layer = -1;
  const std::vector<Entry>* child = nullptr;
  int child_index = -1;
};

struct Dims {
  bool cost = false;
  bool gpus = false;
  // A cost-per-hour cap: rate + 3600 egress / T falls as T grows, so a faster partial plan only
  // dominates one with the very same time figures (otherwise the slower may meet the cap).
  bool per_hour = false;
};

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

struct Candidate {
  double iteration_s = 0;
  double usd = 0;
  double usd_per_hour = 0;
  int microbatch = 0;
  int dp = 0;
  Plan plan;        // zones are representative sites until placed
  std::string key;  // canonical text for deterministic ordering
  // Seed plans (Search::buildSeeds) before their plan is written out: kind and stage ends.
  int seed_kind = -1;
  std::vector<int> seed_last;
};

// A short text naming a homogeneous plan (every replica of one kind) by its degree, kind and
// stage ends: the same for a seed and for the plan the search finds equal to it.
std::string seedSignature(int D, int site, int tp, const std::vector<int>& last) {
  std::string k =
      "seed/" + std::to_string(D) + "/" + std::to_string(site) + "/" + std::to_string(tp);
  for (int r : last) k += "/" + std::to_string(r);
  return k;
}

// The signature of a found plan when it is homogeneous, else its full key.
std::string knownKey(const Candidate& c) {
  const Replica& r0 = c.plan.stages.front().replicas.front();
  std::vector<int> last;
  for (const auto& st : c.plan.stages) {
    for (const auto& r : st.replicas)
      if (!(r == r0)) return c.key;
    last.push_back(st.last_layer);
  }
  return seedSignature(static_cast<int>(c.plan.stages.front().replicas.size()), std::stoi(r0.zone),
                       r0.tp, last);
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

// When a search task must stop: the caller cancelled, or a sibling task failed.
struct StopFlag {
  const CancelToken* user = nullptr;
  CancelToken sibling_failed;
  bool operator()() const { return (user && user->cancelled()) || sibling_failed.cancelled(); }
};

// Progress of the whole search from its parallel tasks: each microbatch size's task owns an
// equal share of [0, search_share]; the post-search steps fill the rest. Monotone, thread-safe,
// and throttled (a report when the fraction grows by 0.1 % or more, or the search ends).
class SearchProgress {
 public:
  SearchProgress(const ProgressSink& sink, size_t tasks, double search_share)
      : sink_(sink), task_(tasks, 0.0), share_(search_share) {}
  void task(size_t i, double f, const std::string& step) {
    if (!sink_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    task_[i] = std::max(task_[i], std::min(1.0, f));
    double sum = 0;
    for (double x : task_) sum += x;
    emit(share_ * sum / static_cast<double>(task_.size()), step, false);
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
  double share_;
  double last_ = 0;
  std::mutex mutex_;
};

// Complete plans already known in one microbatch size's task (seed plans and the plans found at
// earlier degrees), all of them in that task's output. A partial plan whose lower bounds
// (iteration time, cost) are weakly dominated by a known plan cannot put a new point on the
// frontier, and one whose objective bound is worse than the `window`-th best known plan cannot
// enter the ranked window: the search drops it when both hold (only the second for a single
// objective). Exact: every plan it drops is matched or beaten by plans in the output.
// How many of the search's best candidates planSearch places in zones. With exact sites (H6
// off) the search's figures are the placed ones, so top_k. With H6 a region's pool is priced at
// its cheapest zone and placing can make a plan dearer or not fit: a margin of 150 more (what
// top_k 3 had as 50 x top_k) is placed. A fixed margin rather than a multiple: the bound below
// prunes only past the window-th best known plan, and top_k x 50 left --pareto --top 20 with
// no bound until a thousand plans were known (186 s instead of 3 s).
size_t placementWindow(int top_k, bool h6_region_pools) {
  return static_cast<size_t>(top_k) + (h6_region_pools ? 150 : 0);
}

struct Known {
  bool pareto = false;
  bool by_cost = false;
  size_t window = 150;
  std::set<std::string> keys;
  std::vector<std::pair<double, double>> front;  // staircase: iteration_s up, usd down
  std::priority_queue<double> best;              // the `window` best objective values
  double threshold = std::numeric_limits<double>::infinity();
  void add(const std::string& key, double t, double c) {
    if (!keys.insert(key).second) return;
    const double v = by_cost ? c : t;
    if (best.size() < window) {
      best.push(v);
    } else if (v < best.top()) {
      best.pop();
      best.push(v);
    }
    if (best.size() >= window) threshold = best.top();
    if (!pareto || dominated(t, c)) return;
    // Insert (t, c) and drop the points it dominates (iteration_s >= t and usd >= c).
    auto pos = std::lower_bound(front.begin(), front.end(),
                                std::make_pair(t, -std::numeric_limits<double>::infinity()));
    auto last = pos;
    while (last != front.end() && last->second >= c) ++last;
    pos = front.erase(pos, last);
    front.insert(pos, {t, c});
  }
  bool dominated(double t, double c) const {
    auto it = std::upper_bound(front.begin(), front.end(),
                               std::make_pair(t, std::numeric_limits<double>::infinity()));
    return it != front.begin() && std::prev(it)->second <= c;
  }
  // Whether a partial plan whose completions all take >= t_lb seconds and cost >= c_lb can be
  // dropped.
  bool prunes(double t_lb, double c_lb) const {
    if ((by_cost ? c_lb : t_lb) <= threshold) return false;
    return !pareto || dominated(t_lb, c_lb);
  }
};

class Search {
 public:
  Search(const Scenario& sc, const Job& job, const Catalog& cat, const ProfileSet& profiles,
         const PlannerOptions& opt)
      : sc_(sc),
        job_(job),
        cat_(cat),
        profiles_(profiles),
        opt_(opt),
        model_(cat.model(job.model, "job.model")),
        L_(model_.numPlanLayers()) {
    buildSites();
    // Links per site pair at every GPU count a replica can send with at once (1 to the largest
    // node): tensor-parallel ranks share their node's link (NOTE [Point-to-point transfers],
    // NOTE [Collective efficiency] in simulator.cpp). Resolved here, read by every thread.
    int max_node = 1;
    for (const auto& a : sites_) max_node = std::max(max_node, a.gpus_per_node);
    links_.resize(static_cast<size_t>(max_node) + 1);
    for (int g = 1; g <= max_node; ++g)
      for (const auto& a : sites_)
        for (const auto& b : sites_)
          links_[static_cast<size_t>(g)].push_back(
              sc_.link({a.zone(), a.gpu_type, b.zone(), b.gpu_type, g}));
    for (const auto& a : sites_) {
      node_links_.push_back(sc_.intraNodeLink(a.gpu_type, cat_));
      for (const auto& b : sites_) egress_.push_back(sc_.egressUsdPerGb(a.zone(), b.zone()));
    }
  }

  // A last stage of several (layers [l, L-1], l > 0) first all-reduces the tied embedding's
  // gradients with the first stage (the simulator's NOTE [Tied embedding gradients]). The closed
  // form takes the link of the last stage's own site: the first stage is not known yet when the
  // search prices the last one (exact when both stages are on one site).
  double tiedSeconds(const Kind& kd, const KindTable& t) const {
    if (t.tied_params <= 0) return 0.0;
    return ringAllReduceSeconds(linkBetween(kd.site, kd.site, kd.tp), t.tied_params * 4.0, 2, kd.tp,
                                opt_.simulator);
  }

  // The link from site a to site b for `gpus` GPUs of a node sending at once.
  const ResolvedLink& linkBetween(int a, int b, int gpus) const {
    return links_[static_cast<size_t>(gpus)]
                 [static_cast<size_t>(a) * sites_.size() + static_cast<size_t>(b)];
  }

  const std::vector<Site>& sites() const { return sites_; }
  // GPU types of non-empty pools left out for lack of the job's precision (supportsPrecision).
  const std::set<std::string>& unsupported() const { return unsupported_; }
  int totalGpus() const {
    int n = 0;
    for (const auto& s : sites_) n += s.capacity;
    return n;
  }

  // Searches one microbatch size over data-parallel degrees; appends complete candidates.
  // `report(fraction, step)` gets this task's own progress (non-decreasing, in [0, 1]).
  void runMicrobatch(int b, std::vector<Candidate>& out, long& compared, const StopFlag& stop,
                     const std::function<void(double, const std::string&)>& report) {
    std::vector<KindTable> tables;
    std::vector<Kind> kinds;
    buildKinds(b, tables, kinds);
    if (kinds.empty()) return;
    const int max_d = std::min(totalGpus(), std::max(1, job_.global_batch_size / b));
    const auto& H = opt_.heuristics;
    // Seed plans and the known-plan bound (see Known): found plans join it degree by degree.
    Known known;
    known.pareto = opt_.pareto;
    known.by_cost = opt_.objective == Objective::Cost;
    known.window = placementWindow(opt_.top_k, H.h6_region_pools);
    std::vector<Candidate> seeds;
    buildSeeds(b, max_d, tables, kinds, seeds);
    for (const auto& c : seeds) known.add(c.key, c.iteration_s, c.usd);
    // Visited degrees, per dominance mode (with or without cost figures). A degree searched with
    // cost figures need not be searched again without them: its partial-plan sets keep the
    // fastest ones too.
    std::vector<char> visited(2 * (static_cast<size_t>(max_d) + 1), 0);
    int last_best_degree = 0;
    // Progress: the sweeps share this task's fraction equally; inside a sweep, by degrees done.
    const int sweeps = opt_.pareto ? 3 : 1;
    int sweep_index = 0;
    // One sweep over degrees; with `early`, stop after `patience` degrees without a gain in
    // the metric (iteration time or cost).
    auto sweep = [&](std::vector<int> degrees, bool by_cost, bool early, bool cost_dims,
                     const char* what) {
      double best = std::numeric_limits<double>::infinity();
      int since = 0;
      int best_degree = 0;
      // Enough: `patience` degrees in a row without a gain, and (H12 leaves few degrees, far
      // apart at the low end) the sweep at least a factor patience_span past the best degree.
      auto enough = [&](int D) {
        if (since < std::max(H.patience, static_cast<int>(H.patience_fraction * best_degree)))
          return false;
        if (!H.h12_smallest_degree_per_m || best_degree == 0) return true;
        return by_cost ? D >= best_degree * H.patience_span : D * H.patience_span <= best_degree;
      };
      for (size_t di = 0; di < degrees.size(); ++di) {
        const int D = degrees[di];
        if (stop()) throw Cancelled();
        if (report)
          report((sweep_index + static_cast<double>(di) / static_cast<double>(degrees.size())) /
                     sweeps,
                 "microbatch " + std::to_string(b) + ", " + what + ": data-parallel degree " +
                     std::to_string(D));
        const size_t vi = (cost_dims ? static_cast<size_t>(max_d) + 1 : 0) + static_cast<size_t>(D);
        const size_t vc = static_cast<size_t>(max_d) + 1 + static_cast<size_t>(D);
        if (visited[vi] || visited[vc]) continue;
        visited[vi] = 1;
        std::vector<Candidate> found;
        runDegree(b, D, tables, kinds, found, compared, cost_dims, known, stop);
        // H3/H4 judge a degree by the plans found at it (not the seeds: seeding their "best"
        // stopped the sweeps earlier and cost 7 % throughput on A100+V100 80+240).
        double local = std::numeric_limits<double>::infinity();
        for (const auto& c : found) local = std::min(local, by_cost ? c.usd : c.iteration_s);
        keepUseful(found);
        for (auto& c : found) {
          known.add(knownKey(c), c.iteration_s, c.usd);
          out.push_back(std::move(c));
        }
        if (!early) continue;
        if (local < best * (1.0 - H.min_improvement)) {
          best = local;
          best_degree = D;
          last_best_degree = D;
          since = 0;
        } else if (local < best) {
          best = local;
          ++since;
          if (enough(D)) break;
        } else if (std::isfinite(best)) {
          ++since;
          if (enough(D)) break;
        }
      }
      ++sweep_index;
    };
    // The seeds the bound relied on are part of the output (the window by the objective and
    // the seeds' own frontier; duplicates of found plans are merged in planSearch).
    auto finish_seeds = [&] {
      keepUseful(seeds);
      for (auto& c : seeds) {
        const Kind& kd = kinds[static_cast<size_t>(c.seed_kind)];
        c.plan.microbatch_size = b;
        for (size_t st = 0; st < c.seed_last.size(); ++st) {
          Stage stage;
          stage.first_layer = st == 0 ? 0 : c.seed_last[st - 1] + 1;
          stage.last_layer = c.seed_last[st];
          stage.replicas.assign(
              static_cast<size_t>(c.dp),
              {sites_[static_cast<size_t>(kd.site)].gpu_type, kd.tp, std::to_string(kd.site)});
          c.plan.stages.push_back(std::move(stage));
        }
        c.key = planKey(c.plan);
        out.push_back(std::move(c));
      }
      if (report) report(1.0, "microbatch " + std::to_string(b) + " done");
    };
    std::vector<int> up;
    const int G = job_.global_batch_size;
    auto microbatches = [&](int d) { return (G + b * d - 1) / (b * d); };
    for (int d = 1; d <= max_d; ++d)
      if (!H.h12_smallest_degree_per_m || d == 1 || microbatches(d - 1) != microbatches(d))
        up.push_back(d);
    std::vector<int> down(up.rbegin(), up.rend());
    if (!opt_.pareto) {
      const bool throughput = opt_.objective == Objective::Throughput;
      const bool early = throughput ? H.h3_dp_descending : H.h4_dp_ascending;
      sweep(throughput && early ? down : up, !throughput, early, !throughput || constrainedByCost(),
            throughput ? "fastest plans" : "cheapest plans");
      finish_seeds();
      return;
    }
    // Pareto: the throughput end (H3's descending sweep), the cost end (H4's ascending sweep),
    // and between them (H11) degrees on a geometric grid with ratio pareto_grid (1: every one).
    // The two ends are searched as the single-objective searches do (the throughput sweep
    // without cost figures in its dominance, which keeps it fast); the grid with them.
    sweep(down, false, H.h3_dp_descending, constrainedByCost(), "fast end");
    const int fast_degree = H.h3_dp_descending ? last_best_degree : max_d;
    last_best_degree = 0;
    sweep(up, true, H.h4_dp_ascending, true, "cheap end");
    const int cheap_degree = H.h4_dp_ascending ? std::max(1, last_best_degree) : 1;
    // The grid spans the degrees between the two ends (all of them without H3/H4).
    const int lo = std::min(cheap_degree, std::max(1, fast_degree)),
              hi = std::max(cheap_degree, fast_degree);
    std::vector<int> grid;
    // H12: a grid point stands for the smallest degree with its number of microbatches.
    auto smallest = [&](int d) {
      if (!H.h12_smallest_degree_per_m) return d;
      const int m = microbatches(d);
      return std::max(1, (G + b * m - 1) / (b * m));
    };
    if (H.pareto_grid <= 1.0) {
      grid = up;
    } else {
      for (double d = lo; d <= hi; d *= H.pareto_grid) {
        const int n = smallest(static_cast<int>(std::lround(d)));
        if (grid.empty() || grid.back() != n) grid.push_back(n);
      }
      if (hi >= 1 && (grid.empty() || grid.back() != smallest(hi))) grid.push_back(smallest(hi));
    }
    // Grid points keep the fastest plans of each degree (time-only dominance): cheap, and the
    // frontier between the ends is made of such plans unless egress or prices differ by zone.
    sweep(grid, false, false, H.pareto_grid <= 1.0, "frontier");
    finish_seeds();
  }

 private:
  void buildSites() {
    std::map<std::pair<std::string, std::string>, Site> by;
    for (const auto& p : sc_.pools) {
      if (p.count <= 0) continue;
      if (!supportsPrecision(cat_.gpu(p.gpu_type, "pools.gpu_type"), job_.precision)) {
        unsupported_.insert(p.gpu_type);
        continue;
      }
      const Region& reg = sc_.regionOf(p.zone);
      const std::string key = opt_.heuristics.h6_region_pools ? reg.name : p.zone;
      Site& s = by[{key, p.gpu_type}];
      s.gpu_type = p.gpu_type;
      s.region = reg.name;
      s.gpu = &cat_.gpu(p.gpu_type, "pools.gpu_type");
      s.zones.push_back({p.zone, p.count, p.usd_per_gpu_hour});
      s.capacity += p.count;
      const int gpn = sc_.gpusPerNode(p.zone, p.gpu_type, cat_);
      s.gpus_per_node = s.zones.size() == 1 ? gpn : std::min(s.gpus_per_node, gpn);
    }
    for (auto& [k, s] : by) {
      std::sort(s.zones.begin(), s.zones.end(),
                [](const Site::ZoneSlot& a, const Site::ZoneSlot& b) {
                  return a.usd_per_gpu_hour != b.usd_per_gpu_hour
                             ? a.usd_per_gpu_hour < b.usd_per_gpu_hour
                             : a.zone < b.zone;
                });
      sites_.push_back(s);
    }
  }

  void buildKinds(int b, std::vector<KindTable>& tables, std::vector<Kind>& kinds) {
    std::map<std::pair<std::string, int>, int> table_of;
    for (size_t si = 0; si < sites_.size(); ++si) {
      const Site& site = sites_[si];
      std::vector<int> tps;
      for (int tp = 1; tp <= site.gpus_per_node; tp *= 2)
        if (model_.heads % tp == 0) tps.push_back(tp);
      std::vector<int> chosen;
      for (int tp : tps) {
        auto key = std::make_pair(site.gpu_type, tp);
        if (!table_of.count(key)) {
          KindTable t;
          if (!makeTable(site.gpu_type, b, tp, t)) continue;
          table_of[key] = static_cast<int>(tables.size());
          tables.push_back(std::move(t));
        }
        chosen.push_back(tp);
      }
      if (opt_.heuristics.h1_tp_rule && chosen.size() > 1) {
        // Keep tp degrees while doubling still speeds a block up by >= 1.5x.
        std::vector<int> kept{chosen.front()};
        for (size_t i = 1; i < chosen.size(); ++i) {
          const KindTable& a =
              tables[static_cast<size_t>(table_of[{site.gpu_type, chosen[i - 1]}])];
          const KindTable& c = tables[static_cast<size_t>(table_of[{site.gpu_type, chosen[i]}])];
          const int mid = std::min(1, L_ - 1);
          if (a.at(a.fb, mid, mid) / c.at(c.fb, mid, mid) >= 1.5) kept.push_back(chosen[i]);
          else break;
        }
        // Memory may need a larger tp than the speed rule keeps: always keep the next degree up.
        if (kept.size() < chosen.size()) kept.push_back(chosen[kept.size()]);
        chosen = kept;
      }
      for (int tp : chosen)
        kinds.push_back({static_cast<int>(si), tp, table_of[{site.gpu_type, tp}]});
    }
  }

  bool makeTable(const std::string& gpu, int b, int tp, KindTable& t) {
    const ProfileKey key{model_.name, gpu, b, tp};
    std::vector<LayerTiming> timing;
    std::vector<LayerMemory> mem;
    double opt = 0;
    try {
      timing = profiles_.timings(key, job_).value;
      mem = profiles_.memory(model_.name, tp, job_).value;
      opt = profiles_.optimizerSecondsPerParameter(key, job_).value;
    } catch (const InputError&) {
      return false;  // no profile for this combination: not a candidate
    }
    if (static_cast<int>(timing.size()) != L_ || static_cast<int>(mem.size()) != L_) return false;
    t.L = L_;
    const size_t n = static_cast<size_t>(L_ * L_);
    t.fb.assign(n, 0);
    t.params.assign(n, 0);
    t.act.assign(n, 0);
    t.maxact.assign(n, 0);
    for (int l = 0; l < L_; ++l) {
      double fb = 0, p = 0, a = 0, ma = 0;
      for (int r = l; r < L_; ++r) {
        fb += timing[static_cast<size_t>(r)].forward_s + timing[static_cast<size_t>(r)].backward_s;
        p += mem[static_cast<size_t>(r)].params;
        a += mem[static_cast<size_t>(r)].activation_bytes;
        ma = std::max(ma, mem[static_cast<size_t>(r)].working_bytes);
        const size_t i = static_cast<size_t>(l * L_ + r);
        t.fb[i] = fb;
        t.params[i] = p;
        if (l == 0 && r == L_ - 1) t.params[i] -= mem.back().shared_with_embedding;
        t.act[i] = a;
        t.maxact[i] = ma;
      }
    }
    for (const auto& m : mem) t.out_elements.push_back(m.output_elements);
    t.optimizer_s_per_param = opt;
    t.tied_params = mem.back().shared_with_embedding;
    return true;
  }

  void stageOptions(int D, const std::vector<Kind>& kinds, std::vector<StageOption>& out) {
    const size_t S = sites_.size();
    auto add = [&](const std::vector<int>& reps) {
      StageOption o;
      o.replicas = reps;
      o.use.assign(S, 0);
      std::set<std::string> regions;
      for (int k : reps) {
        const Kind& kd = kinds[static_cast<size_t>(k)];
        o.use[static_cast<size_t>(kd.site)] += kd.tp;
        o.gpus += kd.tp;
        o.rate += kd.tp * sites_[static_cast<size_t>(kd.site)].price();
        regions.insert(sites_[static_cast<size_t>(kd.site)].region);
      }
      if (opt_.heuristics.h5_dp_in_region && regions.size() > 1) return;
      if (opt_.max_gpus && o.gpus > *opt_.max_gpus) return;
      for (size_t s = 0; s < S; ++s)
        if (o.use[s] > sites_[s].capacity) return;
      out.push_back(std::move(o));
    };
    // Multisets of D replicas over K kinds: C(K + D - 1, D).
    double multisets = 1;
    for (int i = 1; i <= D; ++i)
      multisets = multisets * (static_cast<double>(kinds.size()) + i - 1) / i;
    if (opt_.heuristics.h8_homogeneous_stages && multisets > opt_.heuristics.h8_mixed_budget) {
      for (size_t k = 0; k < kinds.size(); ++k)
        add(std::vector<int>(static_cast<size_t>(D), static_cast<int>(k)));
      return;
    }
    // Every multiset of D kinds (non-decreasing sequences).
    std::vector<int> cur;
    std::function<void(int)> rec = [&](int start) {
      if (static_cast<int>(cur.size()) == D) {
        add(cur);
        return;
      }
      for (int k = start; k < static_cast<int>(kinds.size()); ++k) {
        cur.push_back(k);
        rec(k);
        cur.pop_back();
        if (out.size() > 200000) return;
      }
    };
    rec(0);
  }

  // Link time of one message of `bytes` from a replica of kind a to one of kind b.
  double p2p(const Kind& a, const Kind& b, double bytes) const {
    // As the simulator: partitioned over matching tp ranks, then the receiver's all-gather
    // (each replica on its own node: the planning model does not place GPUs).
    const int streams = boundaryStreams(a.tp, b.tp);
    return boundaryTransferSeconds(linkBetween(a.site, b.site, streams),
                                   node_links_[static_cast<size_t>(b.site)], bytes, streams, false);
  }

  // Of one degree's candidates, keeps those that can still be chosen: the best by the
  // objective within the window planSearch places (placementWindow), and (for --pareto) the
  // degree's own frontier. The overall choice and frontier lie in the union of these, so nothing
  // changes but memory.
  void keepUseful(std::vector<Candidate>& found) const {
    const size_t window = placementWindow(opt_.top_k, true);
    if (found.size() <= window) return;
    std::vector<size_t> idx(found.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    const bool by_cost = opt_.objective == Objective::Cost;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      const double x = by_cost ? found[a].usd : found[a].iteration_s,
                   y = by_cost ? found[b].usd : found[b].iteration_s;
      return x != y ? x < y : a < b;
    });
    std::vector<char> keep(found.size(), 0);
    for (size_t i = 0; i < window; ++i) keep[idx[i]] = 1;
    if (opt_.pareto) {
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return found[a].usd != found[b].usd ? found[a].usd < found[b].usd
                                            : (found[a].iteration_s != found[b].iteration_s
                                                   ? found[a].iteration_s < found[b].iteration_s
                                                   : a < b);
      });
      double best_t = std::numeric_limits<double>::infinity();
      for (size_t i : idx)
        if (found[i].iteration_s <= best_t) {
          best_t = found[i].iteration_s;
          keep[i] = 1;
        }
    }
    std::vector<Candidate> kept;
    for (size_t i = 0; i < found.size(); ++i)
      if (keep[i]) kept.push_back(std::move(found[i]));
    found = std::move(kept);
  }

  // Seed plans: for every degree D, kind and depth P, the pipeline with every stage holding D
  // replicas of that kind and the layers split evenly by that kind's compute time. Cheap to
  // list (kinds x degrees x depths), each a plan of the search space, with figures computed as
  // the search computes them (same operations, same order). They bound the search (Known).
  void buildSeeds(int b, int max_d, const std::vector<KindTable>& tables,
                  const std::vector<Kind>& kinds, std::vector<Candidate>& seeds) const {
    const int depth =
        opt_.heuristics.max_stages > 0 ? std::min(opt_.heuristics.max_stages, L_) : L_;
    const int e = job_.activationBytesPerElement();
    for (int D = 1; D <= max_d; ++D) {
      const int M = (job_.global_batch_size + b * D - 1) / (b * D);
      for (size_t ki = 0; ki < kinds.size(); ++ki) {
        const Kind& kd = kinds[ki];
        const Site& site = sites_[static_cast<size_t>(kd.site)];
        const KindTable& t = tables[static_cast<size_t>(kd.table)];
        double rate = 0;
        for (int j = 0; j < D; ++j) rate += kd.tp * site.price();
        for (int P = 1; P <= depth; ++P) {
          if (static_cast<long>(P) * D * kd.tp > site.capacity) break;
          // Even split by compute time: stage s ends at the first layer where the running
          // total reaches (s + 1) / P of the whole, leaving a layer for each later stage.
          std::vector<int> last(static_cast<size_t>(P));
          const double total = t.at(t.fb, 0, L_ - 1);
          int l = 0;
          for (int st = 0; st < P; ++st) {
            int r = l;
            while (r < L_ - (P - st) && t.at(t.fb, 0, r) < total * (st + 1) / P) ++r;
            if (st == P - 1) r = L_ - 1;
            last[static_cast<size_t>(st)] = r;
            l = r + 1;
          }
          Summary sum;
          bool ok = true, has_child = false;
          for (int st = P - 1; st >= 0 && ok; --st) {
            const int first = st == 0 ? 0 : last[static_cast<size_t>(st) - 1] + 1,
                      r = last[static_cast<size_t>(st)];
            const int k = P - st;
            const double mem =
                replicaMemoryBytes(t.at(t.params, first, r), t.at(t.act, first, r),
                                   t.at(t.maxact, first, r), b, std::min(k, M), job_, *site.gpu);
            if (mem > static_cast<double>(site.gpu->memory_bytes)) ok = false;
            double t_in = 0, egress_in = 0;
            if (st > 0) {
              const double msg = t.out_elements[static_cast<size_t>(first - 1)] * b * e;
              const double tt = std::max(p2p(kd, kd, msg), p2p(kd, kd, msg));
              const double g = msg * M / 1e9 *
                               (egressBetween(kd.site, kd.site) + egressBetween(kd.site, kd.site));
              for (int j = 0; j < D; ++j) {
                t_in = std::max(t_in, tt);
                egress_in += g;
              }
            }
            double x = 0, sync_egress = 0;
            {
              const double opt_s = t.at(t.params, first, r) * t.optimizer_s_per_param;
              double tr = st == P - 1 && P >= 2 ? tiedSeconds(kd, t) : 0.0;
              if (D >= 2) {
                const double shard = t.at(t.params, first, r) * 4.0;
                tr += ringAllReduceSeconds(linkBetween(kd.site, kd.site, kd.tp), shard, D, kd.tp,
                                           opt_.simulator);
                sync_egress +=
                    D * 2.0 * (D - 1) / D * shard * kd.tp / 1e9 * egressBetween(kd.site, kd.site);
              }
              x = tr + opt_s;
            }
            const double fb = t.at(t.fb, first, r);
            Summary n;
            const double c = fb + 2 * t_in + 2 * (has_child ? sum.boundary_in : 0.0);
            n.maxc = std::max(c, has_child ? sum.maxc : 0.0);
            n.sumc = c + (has_child ? sum.sumc : 0.0);
            n.maxx = std::max(x, has_child ? sum.maxx : 0.0);
            n.rate = rate + (has_child ? sum.rate : 0.0);
            n.egress = sync_egress + egress_in + (has_child ? sum.egress : 0.0);
            n.gpus = (has_child ? sum.gpus : 0) + D * kd.tp;
            n.boundary_in = t_in;
            sum = n;
            has_child = true;
          }
          if (!ok) continue;
          Candidate c;
          c.iteration_s = (M - 1) * sum.maxc + sum.sumc + sum.maxx;
          c.usd = sum.rate * c.iteration_s / 3600.0 + sum.egress;
          c.usd_per_hour = c.usd * 3600.0 / c.iteration_s;
          if (opt_.max_usd_per_iteration && c.usd > *opt_.max_usd_per_iteration) continue;
          if (opt_.max_usd_per_hour && c.usd_per_hour > *opt_.max_usd_per_hour) continue;
          if (opt_.min_iterations_per_s && 1.0 / c.iteration_s < *opt_.min_iterations_per_s)
            continue;
          if (opt_.max_gpus && sum.gpus > *opt_.max_gpus) continue;
          c.microbatch = b;
          c.dp = D;
          c.seed_kind = static_cast<int>(ki);
          c.seed_last = last;
          c.key = seedSignature(D, kd.site, kd.tp, last);
          seeds.push_back(std::move(c));
        }
      }
    }
  }

  bool constrainedByCost() const {
    return opt_.max_usd_per_iteration.has_value() || opt_.max_usd_per_hour.has_value();
  }

  void runDegree(int b, int D, const std::vector<KindTable>& tables, const std::vector<Kind>& kinds,
                 std::vector<Candidate>& found, long& compared, bool cost_dims, Known& known,
                 const StopFlag& stop) {
    const int M = (job_.global_batch_size + b * D - 1) / (b * D);
    const int e = job_.activationBytesPerElement();
    if (opt_.min_iterations_per_s) {
      // Lower bound: each microbatch passes every layer once; with at most max_stages stages
      // working at once the pipeline needs at least M x (fastest whole-model time) / stages.
      double fastest = std::numeric_limits<double>::infinity();
      for (const auto& kd : kinds) {
        const KindTable& t = tables[static_cast<size_t>(kd.table)];
        fastest = std::min(fastest, t.at(t.fb, 0, L_ - 1));
      }
      const int stages =
          opt_.heuristics.max_stages > 0 ? std::min(opt_.heuristics.max_stages, L_) : L_;
      if (M * fastest / stages * *opt_.min_iterations_per_s > 1.0) return;
    }
    std::vector<StageOption> options;
    stageOptions(D, kinds, options);
    if (options.empty()) return;
    const size_t S = sites_.size();
    Dims dims;
    dims.cost = cost_dims;
    // A GPU cap is accounted in the search state (used[S] below), so every partial plan of a
    // state fits the GPUs left: the count needs no dominance dimension.
    dims.gpus = false;
    dims.per_hour = opt_.max_usd_per_hour.has_value();

    // Per option and layer range: data-parallel sync + optimizer, and its egress.
    struct SyncInfo {
      double x = 0;
      double egress = 0;
    };
    std::vector<SyncInfo> sync(options.size() * static_cast<size_t>(L_ * L_));
    // Per option: its distinct kinds and its distinct ring-neighbour pairs with multiplicity.
    struct Ring {
      std::vector<int> kinds;
      std::map<std::pair<int, int>, int> pairs;
    };
    std::vector<Ring> ring(options.size());
    for (size_t oi = 0; oi < options.size(); ++oi) {
      const auto& reps = options[oi].replicas;
      for (size_t j = 0; j < reps.size(); ++j) {
        if (ring[oi].kinds.empty() || ring[oi].kinds.back() != reps[j])
          ring[oi].kinds.push_back(reps[j]);
        ring[oi].pairs[{reps[j], reps[(j + 1) % reps.size()]}]++;
      }
    }
    // Sync figures per (option, layer range), computed on first use.
    std::vector<char> sync_done(sync.size(), 0);
    auto sync_of = [&](size_t oi, int l, int r) -> const SyncInfo& {
      const size_t idx = oi * static_cast<size_t>(L_ * L_) + static_cast<size_t>(l * L_ + r);
      if (sync_done[idx]) return sync[idx];
      SyncInfo si;
      double opt_s = 0, t = 0, tied = 0;
      for (int k : ring[oi].kinds) {
        const Kind& kx = kinds[static_cast<size_t>(k)];
        const KindTable& tx = tables[static_cast<size_t>(kx.table)];
        opt_s = std::max(opt_s, tx.at(tx.params, l, r) * tx.optimizer_s_per_param);
        if (r == L_ - 1 && l > 0) tied = std::max(tied, tiedSeconds(kx, tx));
      }
      if (D >= 2)
        for (const auto& [pair, count] : ring[oi].pairs) {
          const Kind& kx = kinds[static_cast<size_t>(pair.first)];
          const Kind& ky = kinds[static_cast<size_t>(pair.second)];
          const KindTable& tx = tables[static_cast<size_t>(kx.table)];
          const ResolvedLink& link = linkBetween(kx.site, ky.site, kx.tp);
          const double shard = tx.at(tx.params, l, r) * 4.0;
          t = std::max(t, ringAllReduceSeconds(link, shard, D, kx.tp, opt_.simulator));
          si.egress +=
              count * 2.0 * (D - 1) / D * shard * kx.tp / 1e9 * egressBetween(kx.site, ky.site);
        }
      si.x = tied + t + opt_s;
      sync[idx] = si;
      sync_done[idx] = 1;
      return sync[idx];
    };

    // Memo: key = (stages left, first layer, used per site, previous option).
    // A site whose GPUs cannot run out with this degree (every stage taking its largest tp from
    // it still fits) needs no accounting: leaving it out of the key shrinks the state space
    // without changing any result.
    const int depth =
        opt_.heuristics.max_stages > 0 ? std::min(opt_.heuristics.max_stages, L_) : L_;
    std::vector<char> track(S, 0);
    std::vector<int> max_use(S, 0);
    for (size_t si2 = 0; si2 < S; ++si2) {
      for (const auto& o : options) max_use[si2] = std::max(max_use[si2], o.use[si2]);
      track[si2] = static_cast<long>(max_use[si2]) * depth > sites_[si2].capacity ? 1 : 0;
    }
    // A GPU cap is one more resource: used[S] counts the GPUs of the stages placed so far.
    int max_opt_gpus = 0, min_opt_gpus = std::numeric_limits<int>::max();
    for (const auto& o : options) {
      max_opt_gpus = std::max(max_opt_gpus, o.gpus);
      min_opt_gpus = std::min(min_opt_gpus, o.gpus);
    }
    std::map<std::vector<int>, std::vector<Entry>> memo;
    std::vector<std::pair<double, double>> p2p_cache(
        options.size() * options.size() * static_cast<size_t>(L_), {-1.0, 0.0});
    const int max_stages =
        opt_.heuristics.max_stages > 0 ? std::min(opt_.heuristics.max_stages, L_) : L_;

    // Lower bounds for the layers a partial plan does not cover, per layer over every kind:
    // compute time (a stage's c is at least its straggler's F + B, at least the fastest kind's)
    // and D x tp x $/GPU-hour x (F + B) (a stage's rate x c is at least that of its cheapest
    // replica kind per unit of work, times D); and the least rate of a stage (D x the cheapest
    // replica). pre_*[l]: layers before l; suf_*[l]: layers from l on.
    std::vector<double> pre_fb(static_cast<size_t>(L_) + 1, 0),
        pre_w(static_cast<size_t>(L_) + 1, 0);
    std::vector<double> suf_fb(static_cast<size_t>(L_) + 1, 0),
        suf_w(static_cast<size_t>(L_) + 1, 0);
    double min_rate = std::numeric_limits<double>::infinity();
    for (const auto& kd : kinds)
      min_rate = std::min(min_rate, kd.tp * sites_[static_cast<size_t>(kd.site)].price());
    min_rate *= D;
    {
      std::vector<double> lf(static_cast<size_t>(L_), std::numeric_limits<double>::infinity()),
          lw = lf;
      for (const auto& kd : kinds) {
        const KindTable& t = tables[static_cast<size_t>(kd.table)];
        for (int j = 0; j < L_; ++j) {
          lf[static_cast<size_t>(j)] = std::min(lf[static_cast<size_t>(j)], t.at(t.fb, j, j));
          lw[static_cast<size_t>(j)] =
              std::min(lw[static_cast<size_t>(j)],
                       kd.tp * sites_[static_cast<size_t>(kd.site)].price() * t.at(t.fb, j, j));
        }
      }
      for (int j = 0; j < L_; ++j) {
        pre_fb[static_cast<size_t>(j) + 1] =
            pre_fb[static_cast<size_t>(j)] + lf[static_cast<size_t>(j)];
        pre_w[static_cast<size_t>(j) + 1] =
            pre_w[static_cast<size_t>(j)] + D * lw[static_cast<size_t>(j)];
      }
      for (int j = L_ - 1; j >= 0; --j) {
        suf_fb[static_cast<size_t>(j)] =
            suf_fb[static_cast<size_t>(j) + 1] + lf[static_cast<size_t>(j)];
        suf_w[static_cast<size_t>(j)] =
            suf_w[static_cast<size_t>(j) + 1] + D * lw[static_cast<size_t>(j)];
      }
    }
    // Whether every completion of partial figures (max c, sum c, max x, rate, rate x c summed,
    // egress), extended by the bounds above, is matched by a known plan (Known::prunes).
    // T >= (M - 1) max c + sum c + max x; rate x T >= (M - 1) max(rate x max c, sum of rate x c)
    // + rate x (sum c + max x). Relaxed by 1e-12 against rounding.
    auto bounded = [&](double mc, double sc, double mx, double rate, double work, double egress) {
      const double t_lb = (M - 1) * mc + sc + mx;
      const double c_lb =
          ((M - 1) * std::max(rate * mc, work) + rate * (sc + mx)) / 3600.0 + egress;
      return known.prunes(t_lb * (1 - 1e-12), c_lb * (1 - 1e-12));
    };

    long new_states = 0;
    std::function<const std::vector<Entry>&(int, int, std::vector<int>&, int)> f =
        [&](int k, int l, std::vector<int>& used, int prev) -> const std::vector<Entry>& {
      std::vector<int> key;
      key.reserve(S + 3);
      key.push_back(k);
      key.push_back(l);
      key.push_back(prev);
      // With k stages left, usage up to capacity - k x (largest use of a stage) leaves every
      // choice open: all such states are the same state.
      for (size_t si2 = 0; si2 < S; ++si2) {
        if (!track[si2]) {
          key.push_back(0);
          continue;
        }
        const int abundant = sites_[si2].capacity - k * max_use[si2];
        key.push_back(std::max(used[si2], abundant));
      }
      if (opt_.max_gpus) key.push_back(std::max(used[S], *opt_.max_gpus - k * max_opt_gpus));
      if (auto it = memo.find(key); it != memo.end()) return it->second;
      // One degree can take a minute on large scenarios: honour a cancel every 256 new states.
      if ((++new_states & 255) == 0 && stop()) throw Cancelled();
      std::vector<Entry> set;
      std::vector<Entry> pool;   // every combination of this state, before dominance
      const int r_max = L_ - k;  // leave k - 1 layers for the stages after this one
      const int r_min = k == 1 ? L_ - 1 : l;
      for (size_t oi = 0; oi < options.size(); ++oi) {
        const StageOption& o = options[oi];
        bool room = true;
        for (size_t s = 0; s < S; ++s)
          room = room && (!track[s] || used[s] + o.use[s] <= sites_[s].capacity);
        // The k - 1 stages after this one take at least the smallest option's GPUs each.
        if (opt_.max_gpus && used[S] + o.gpus + (k - 1) * min_opt_gpus > *opt_.max_gpus)
          room = false;
        if (!room) continue;
        // Incoming boundary from the previous stage (its last layer is l - 1): depends on
        // (previous option, option, l) only, cached.
        double t_in = 0, egress_in = 0;
        if (prev >= 0) {
          const size_t ck =
              (static_cast<size_t>(prev) * options.size() + oi) * static_cast<size_t>(L_) +
              static_cast<size_t>(l);
          if (p2p_cache[ck].first < 0) {
            const StageOption& po = options[static_cast<size_t>(prev)];
            const KindTable& pt =
                tables[static_cast<size_t>(kinds[static_cast<size_t>(po.replicas[0])].table)];
            const double msg = pt.out_elements[static_cast<size_t>(l - 1)] * b * e;
            std::map<std::pair<int, int>, std::pair<double, double>> seen;
            double tt = 0, eg = 0;
            for (size_t j = 0; j < o.replicas.size(); ++j) {
              const int ka = po.replicas[j % po.replicas.size()];
              const int kc = o.replicas[j];
              auto it = seen.find({ka, kc});
              if (it == seen.end()) {
                const Kind& a = kinds[static_cast<size_t>(ka)];
                const Kind& c = kinds[static_cast<size_t>(kc)];
                const double t = std::max(p2p(a, c, msg), p2p(c, a, msg));
                const double g =
                    msg * M / 1e9 * (egressBetween(a.site, c.site) + egressBetween(c.site, a.site));
                it = seen.emplace(std::make_pair(ka, kc), std::make_pair(t, g)).first;
              }
              tt = std::max(tt, it->second.first);
              eg += it->second.second;
            }
            p2p_cache[ck] = {tt, eg};
          }
          t_in = p2p_cache[ck].first;
          egress_in = p2p_cache[ck].second;
        }
        for (int r = r_min; r <= r_max; ++r) {
          // Memory of every replica with min(k, M) microbatches in flight.
          bool fits = true;
          double fb = 0;
          int last_kind = -1;
          for (int kidx : o.replicas) {
            if (kidx == last_kind) continue;  // replicas of one kind: same figures
            last_kind = kidx;
            const Kind& kd = kinds[static_cast<size_t>(kidx)];
            const KindTable& t = tables[static_cast<size_t>(kd.table)];
            fb = std::max(fb, t.at(t.fb, l, r));
            const Site& site = sites_[static_cast<size_t>(kd.site)];
            const double mem =
                replicaMemoryBytes(t.at(t.params, l, r), t.at(t.act, l, r), t.at(t.maxact, l, r), b,
                                   std::min(k, M), job_, *site.gpu);
            fits = fits && mem <= static_cast<double>(site.gpu->memory_bytes);
          }
          if (!fits && opt_.heuristics.h2_oom_pruning) continue;
          const SyncInfo& si = sync_of(oi, l, r);
          // Layers before l: at least one more stage when l > 0, at most max_stages - k.
          const double p_fb = pre_fb[static_cast<size_t>(l)], p_w = pre_w[static_cast<size_t>(l)];
          const double p_rate = l > 0 ? min_rate : 0.0;
          const double p_mc = l > 0 && max_stages > k ? p_fb / (max_stages - k) : 0.0;
          {
            // This stage with the least the later stages (k - 1 of them, layers r + 1 on) add.
            const double c0 = fb + 2 * t_in;
            const double s_fb = suf_fb[static_cast<size_t>(r) + 1];
            const double s_mc = k > 1 ? s_fb / (k - 1) : 0.0;
            if (bounded(std::max({c0, s_mc, p_mc}), c0 + s_fb + p_fb, si.x,
                        o.rate + (k - 1) * min_rate + p_rate,
                        o.rate * c0 + suf_w[static_cast<size_t>(r) + 1] + p_w,
                        si.egress + egress_in))
              continue;
          }
          auto combine = [&](const Summary* child, const std::vector<Entry>* cset, int cidx) {
            Entry en;
            const double c = fb + 2 * t_in + 2 * (child ? child->boundary_in : 0.0);
            en.s.maxc = std::max(c, child ? child->maxc : 0.0);
            en.s.sumc = c + (child ? child->sumc : 0.0);
            en.s.maxx = std::max(si.x, child ? child->maxx : 0.0);
            en.s.rate = o.rate + (child ? child->rate : 0.0);
            en.s.egress = si.egress + egress_in + (child ? child->egress : 0.0);
            en.s.gpus = (child ? child->gpus : 0);
            for (int u : o.use) en.s.gpus += u;
            en.s.boundary_in = t_in;
            en.s.work = o.rate * c + (child ? child->work : 0.0);
            en.s.fits = fits && (child ? child->fits : true);
            if (bounded(std::max(en.s.maxc, p_mc), en.s.sumc + p_fb, en.s.maxx, en.s.rate + p_rate,
                        en.s.work + p_w, en.s.egress))
              return;
            // Exact bounds: completing a partial plan only adds stages, so its iteration time is
            // at least (M - 1) max c + sum c + max x, and its cost at least rate x that + egress.
            const double t_lb = (M - 1) * en.s.maxc + en.s.sumc + en.s.maxx;
            if (opt_.min_iterations_per_s && t_lb * *opt_.min_iterations_per_s > 1.0) return;
            if (opt_.max_usd_per_iteration &&
                en.s.rate * t_lb / 3600.0 + en.s.egress > *opt_.max_usd_per_iteration)
              return;
            if (opt_.max_gpus && en.s.gpus > *opt_.max_gpus) return;
            en.option = static_cast<int>(oi);
            en.last_layer = r;
            en.child = cset;
            en.child_index = cidx;
            pool.push_back(en);
          };
          if (k == 1) {
            combine(nullptr, nullptr, -1);
          } else {
            for (size_t s = 0; s < S; ++s) used[s] += track[s] ? o.use[s] : 0;
            used[S] += o.gpus;
            const std::vector<Entry>& cs = f(k - 1, r + 1, used, static_cast<int>(oi));
            used[S] -= o.gpus;
            for (size_t s = 0; s < S; ++s) used[s] -= track[s] ? o.use[s] : 0;
            for (size_t ci = 0; ci < cs.size(); ++ci) combine(&cs[ci].s, &cs, static_cast<int>(ci));
          }
        }
      }
      // Non-dominated combinations. H10: at most max_partial_plans of them, taken in order of the
      // objective's lower bound (half by iteration time, half by cost when cost matters).
      const size_t cap = static_cast<size_t>(std::max(0, opt_.heuristics.max_partial_plans));
      if (cap == 0 || pool.size() <= cap) {
        for (const auto& en : pool) insertPareto(set, en, dims);
      } else {
        auto t_lb = [&](const Entry& x) { return (M - 1) * x.s.maxc + x.s.sumc + x.s.maxx; };
        auto c_lb = [&](const Entry& x) { return x.s.rate * t_lb(x) / 3600.0 + x.s.egress; };
        auto tie = [](const Entry& a, const Entry& b2) {
          return std::tie(a.s.maxc, a.s.sumc, a.s.rate, a.s.egress, a.option, a.last_layer,
                          a.child_index) < std::tie(b2.s.maxc, b2.s.sumc, b2.s.rate, b2.s.egress,
                                                    b2.option, b2.last_layer, b2.child_index);
        };
        const bool cost_first = opt_.objective == Objective::Cost;
        auto sweep = [&](bool by_cost, size_t limit) {
          std::stable_sort(pool.begin(), pool.end(), [&](const Entry& a, const Entry& b2) {
            const double x = by_cost ? c_lb(a) : t_lb(a), y = by_cost ? c_lb(b2) : t_lb(b2);
            return x != y ? x < y : tie(a, b2);
          });
          for (const auto& en : pool) {
            if (set.size() >= limit) break;
            bool dominated = false;
            for (const auto& x : set)
              dominated = dominated || dominates(x.s, en.s, dims) || dominates(en.s, x.s, dims);
            if (!dominated) set.push_back(en);
          }
        };
        if (dims.cost) {
          sweep(cost_first, cap / 2);
          sweep(!cost_first, cap);
        } else {
          sweep(false, cap);
        }
      }
      // Deterministic order inside a set.
      std::sort(set.begin(), set.end(), [](const Entry& a, const Entry& b2) {
        return std::tie(a.s.maxc, a.s.sumc, a.s.maxx, a.s.rate, a.s.egress, a.option,
                        a.last_layer) < std::tie(b2.s.maxc, b2.s.sumc, b2.s.maxx, b2.s.rate,
                                                 b2.s.egress, b2.option, b2.last_layer);
      });
      return memo.emplace(std::move(key), std::move(set)).first->second;
    };

    for (int P = 1; P <= max_stages; ++P) {
      if (opt_.max_gpus && static_cast<long>(P) * min_opt_gpus > *opt_.max_gpus) break;
      const size_t found_before = found.size();
      std::vector<int> used(S + 1, 0);
      const std::vector<Entry>& top = f(P, 0, used, -1);
      for (const Entry& en : top) {
        ++compared;
        if (!en.s.fits) continue;
        Candidate c;
        c.iteration_s = (M - 1) * en.s.maxc + en.s.sumc + en.s.maxx;
        c.usd = en.s.rate * c.iteration_s / 3600.0 + en.s.egress;
        c.usd_per_hour = c.usd * 3600.0 / c.iteration_s;
        if (opt_.max_usd_per_iteration && c.usd > *opt_.max_usd_per_iteration) continue;
        if (opt_.max_usd_per_hour && c.usd_per_hour > *opt_.max_usd_per_hour) continue;
        if (opt_.min_iterations_per_s && 1.0 / c.iteration_s < *opt_.min_iterations_per_s) continue;
        if (opt_.max_gpus && en.s.gpus > *opt_.max_gpus) continue;
        c.microbatch = b;
        c.dp = D;
        c.plan.microbatch_size = b;
        const Entry* cur = &en;
        int first = 0;
        while (cur) {
          Stage st;
          st.first_layer = first;
          st.last_layer = cur->last_layer;
          for (int kidx : options[static_cast<size_t>(cur->option)].replicas) {
            const Kind& kd = kinds[static_cast<size_t>(kidx)];
            st.replicas.push_back(
                {sites_[static_cast<size_t>(kd.site)].gpu_type, kd.tp, std::to_string(kd.site)});
          }
          c.plan.stages.push_back(std::move(st));
          first = cur->last_layer + 1;
          cur = cur->child ? &(*cur->child)[static_cast<size_t>(cur->child_index)] : nullptr;
        }
        c.key = planKey(c.plan);
        found.push_back(std::move(c));
      }
      // The plans of this depth bound the deeper ones (partial plans computed under the weaker
      // bound stay valid: the bound only tightens).
      for (size_t i = found_before; i < found.size(); ++i)
        known.add(knownKey(found[i]), found[i].iteration_s, found[i].usd);
    }
  }

  const Scenario& sc_;
  const Job& job_;
  const Catalog& cat_;
  const ProfileSet& profiles_;
  const PlannerOptions& opt_;
  const ModelSpec& model_;
  int L_;
  std::vector<Site> sites_;
  std::set<std::string> unsupported_;
  std::vector<std::vector<ResolvedLink>> links_;  // [GPUs sending at once][site x site]
  std::vector<ResolvedLink> node_links_;          // per site: the fabric inside its nodes
  std::vector<double> egress_;                    // site x site, USD per GB
  double egressBetween(int a, int b) const {
    return egress_[static_cast<size_t>(a) * sites_.size() + static_cast<size_t>(b)];
  }

 public:
  // Replaces site indices in replica zones by zones, filling each site's cheapest zones first,
  // in stage order (a replica stays inside one zone). Returns false when it cannot.
  bool place(Plan& plan) const {
    std::vector<std::vector<int>> left(sites_.size());
    for (size_t s = 0; s < sites_.size(); ++s)
      for (const auto& z : sites_[s].zones) left[s].push_back(z.count);
    for (auto& st : plan.stages) {
      // GPUs this stage needs per site. The search modelled a site's replicas of one stage as
      // sitting in the site's cheapest zone: keep them together in the cheapest zone that can
      // hold them all, and only split a stage over zones when no single zone can.
      std::map<size_t, int> need;
      for (const auto& r : st.replicas) need[static_cast<size_t>(std::stoi(r.zone))] += r.tp;
      std::map<size_t, int> whole;  // site -> zone index holding the whole group, or -1
      for (const auto& [s, n] : need) {
        whole[s] = -1;
        for (size_t z = 0; z < sites_[s].zones.size(); ++z)
          if (left[s][z] >= n) {
            whole[s] = static_cast<int>(z);
            break;
          }
      }
      for (auto& r : st.replicas) {
        const size_t s = static_cast<size_t>(std::stoi(r.zone));
        bool ok = false;
        if (whole[s] >= 0) {
          const size_t z = static_cast<size_t>(whole[s]);
          left[s][z] -= r.tp;
          r.zone = sites_[s].zones[z].zone;
          ok = true;
        }
        for (size_t z = 0; z < sites_[s].zones.size() && !ok; ++z)
          if (left[s][z] >= r.tp) {
            left[s][z] -= r.tp;
            r.zone = sites_[s].zones[z].zone;
            ok = true;
          }
        if (!ok) return false;
      }
    }
    return true;
  }
};

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

}  // namespace

PlanResult planSearch(const Scenario& scenario, const Job& job, const Catalog& catalog,
                      const ProfileSet& profiles, const PlannerOptions& options,
                      const ProgressSink& progress, const CancelToken* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanResult result;
  // Option errors name the planner option (PlannerOptions); the command line maps them to its
  // own spelling.
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
  auto check_cancel = [&] {
    if (cancel && cancel->cancelled()) throw Cancelled();
  };
  check_cancel();
  Search search(scenario, job, catalog, profiles, options);
  if (!search.unsupported().empty()) {
    std::string types;
    for (const auto& t : search.unsupported()) types += (types.empty() ? "" : ", ") + t;
    const std::string p = precisionName(job.precision);
    if (search.totalGpus() == 0) {
      result.no_plan_reason = "no GPU of the scenario has " + p +
                              " arithmetic (its GPU types: " + types +
                              "; an fp16 job can use them)";
      return result;
    }
    result.notes.push_back("left out " + types + ": no " + p +
                           " arithmetic (an fp16 job can use them)");
  }
  if (search.totalGpus() == 0) {
    result.no_plan_reason = "the scenario has no GPUs (every pool's count is 0)";
    return result;
  }
  std::vector<int> bs = options.microbatch_sizes;
  if (bs.empty())
    for (int b = 1; b <= 64 && b <= job.global_batch_size; b *= 2) bs.push_back(b);
  for (int b : bs)
    if (b < 1) throw InputError("microbatch_sizes", std::to_string(b), "at least 1");

  // One task per microbatch size, in parallel; results merged in a fixed order. The search
  // takes the first 90 % of the progress; placing and simulating the chosen plans the rest.
  const int threads =
      options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::vector<Candidate>> per_b(bs.size());
  std::vector<long> compared(bs.size(), 0);
  constexpr double kSearchShare = 0.9;
  SearchProgress bar(progress, bs.size(), kSearchShare);
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  StopFlag stop;
  stop.user = cancel;
  auto worker = [&] {
    for (size_t i = next++; i < bs.size(); i = next++) {
      if (stop()) break;
      try {
        search.runMicrobatch(bs[i], per_b[i], compared[i], stop,
                             [&, i](double f, const std::string& step) { bar.task(i, f, step); });
      } catch (...) {
        // The first failure is reported; the sibling tasks stop at their next check.
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stop.sibling_failed.cancel();
      }
      bar.task(i, 1.0, "microbatch " + std::to_string(bs[i]) + " done");
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::min<int>(threads, static_cast<int>(bs.size())); ++t)
    pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  check_cancel();

  std::vector<Candidate> all;
  for (size_t i = 0; i < bs.size(); ++i) {
    result.candidates += compared[i];
    for (auto& c : per_b[i]) all.push_back(std::move(c));
  }
  // A plan can be found more than once (a seed the search also finds, a degree searched with
  // and without cost figures): keep one of each.
  std::sort(all.begin(), all.end(),
            [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Candidate& a, const Candidate& b) { return a.key == b.key; }),
            all.end());
  if (all.empty()) {
    std::ostringstream why;
    PlannerOptions relaxed = options;
    relaxed.max_usd_per_iteration.reset();
    relaxed.max_usd_per_hour.reset();
    relaxed.min_iterations_per_s.reset();
    relaxed.max_gpus.reset();
    relaxed.pareto = false;  // only whether any plan exists matters
    relaxed.top_k = 1;
    const bool constrained = options.max_usd_per_iteration || options.max_usd_per_hour ||
                             options.min_iterations_per_s || options.max_gpus;
    // The search without constraints tells a constraint from memory; it reports progress in
    // the remaining share and honours the cancel token.
    auto relaxed_progress = [&](double f, const std::string& step) {
      bar.at(kSearchShare + (1.0 - kSearchShare) * 0.99 * f,
             "no plan meets the constraints; without them: " + step);
    };
    if (constrained &&
        !planSearch(scenario, job, catalog, profiles, relaxed,
                    progress ? ProgressSink(relaxed_progress) : ProgressSink(), cancel)
             .best.empty()) {
      why << "plans fit in memory, but none meets the constraints (";
      std::string sep;
      if (options.max_usd_per_iteration)
        why << sep << "cost per iteration <= " << *options.max_usd_per_iteration, sep = ", ";
      if (options.max_usd_per_hour)
        why << sep << "cost per hour <= " << *options.max_usd_per_hour, sep = ", ";
      if (options.min_iterations_per_s)
        why << sep << "throughput >= " << *options.min_iterations_per_s << " it/s", sep = ", ";
      if (options.max_gpus)
        why << sep << "at most " << *options.max_gpus
            << (*options.max_gpus == 1 ? " GPU" : " GPUs"),
            sep = ", ";
      why << ")";
    } else {
      const int layers = catalog.model(job.model, "job.model").numPlanLayers();
      why << "no plan fits in memory: " << job.model << " with global batch "
          << job.global_batch_size
          << " does not fit on the scenario's GPUs at any pipeline depth up to "
          << (options.heuristics.max_stages > 0 ? options.heuristics.max_stages : layers)
          << " stages and tp within a node";
      // What could make it fit, as far as the job and the search limits go.
      std::vector<std::string> levers;
      if (job.recompute == Recompute::None)
        levers.push_back("full activation recomputation (the job's recompute)");
      if (options.heuristics.max_stages > 0 && options.heuristics.max_stages < layers)
        levers.push_back("deeper pipelines (a higher max_stages)");
      for (size_t i = 0; i < levers.size(); ++i)
        why << (i == 0 ? "; it may fit with " : " or ") << levers[i];
    }
    result.no_plan_reason = why.str();
    result.search_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.at(1.0, "no plan");
    return result;
  }
  std::sort(all.begin(), all.end(), [&](const Candidate& a, const Candidate& b) {
    return better(a, b, options.objective);
  });

  // Place replicas in zones (H6 priced them at the region's cheapest zone) and evaluate the
  // placed plan with the planning model again: constraints are checked and plans ranked on the
  // placed figures, so a returned plan never breaks a constraint.
  // Every step below honours the cancel token (placing and simulating hundreds of plans of a
  // 512-GPU scenario takes a noticeable time) and reports progress in the last 10 %.
  auto place = [&](Candidate c) -> std::optional<Candidate> {
    check_cancel();
    if (!search.place(c.plan)) return std::nullopt;
    auto m = planningModel(c.plan, scenario, job, catalog, profiles, options.simulator);
    if (!m) return std::nullopt;
    c.iteration_s = m->iteration_s;
    c.usd = m->usd_per_iteration;
    c.usd_per_hour = m->usd_per_hour;
    if (options.max_usd_per_iteration && c.usd > *options.max_usd_per_iteration)
      return std::nullopt;
    if (options.max_usd_per_hour && c.usd_per_hour > *options.max_usd_per_hour) return std::nullopt;
    if (options.min_iterations_per_s && 1.0 / c.iteration_s < *options.min_iterations_per_s)
      return std::nullopt;
    if (options.max_gpus && m->gpus > *options.max_gpus) return std::nullopt;
    c.key = planKey(c.plan);
    return c;
  };
  // The constraints by the simulator's figures (with rank_by_simulator).
  auto meets_simulated = [&](const Prediction& pr) {
    if (!pr.fits) return false;
    if (options.max_usd_per_iteration && pr.usd_per_iteration > *options.max_usd_per_iteration)
      return false;
    if (options.max_usd_per_hour && pr.usd_per_hour > *options.max_usd_per_hour) return false;
    if (options.min_iterations_per_s && pr.iterations_per_s < *options.min_iterations_per_s)
      return false;
    return true;
  };
  SimulatorOptions figures_only = options.simulator;
  figures_only.timeline = false;
  auto finish = [&](const Candidate& c, bool timeline = true) {
    check_cancel();
    PlannedPlan pp;
    pp.plan = c.plan;
    pp.model_iteration_s = c.iteration_s;
    pp.model_usd_per_iteration = c.usd;
    pp.prediction = simulate(pp.plan, scenario, job, catalog, profiles,
                             timeline ? options.simulator : figures_only);
    return pp;
  };
  const size_t window = placementWindow(options.top_k, options.heuristics.h6_region_pools);
  const double post_end = options.pareto ? 0.95 : 1.0;  // the Pareto frontier takes the rest
  bar.at(kSearchShare, "placing the best plans in zones");
  std::vector<Candidate> placed;
  for (const auto& c : all) {
    if (placed.size() >= window) break;
    if (auto p = place(c)) placed.push_back(std::move(*p));
  }
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
      result.best.push_back(finish(c));
    }
  } else {
    // NOTE [Ranking by the simulator]: the planning model is the search's closed form; the
    // simulator (event by event, DeepSpeed's blocking schedule) is the product's yardstick and
    // the two can order near-equal plans differently (A100+V100 2 zones: the model's best took
    // 2.141 s simulated, its 14th 2.035 s). Every placed plan of the window is simulated; the
    // best are those the simulator ranks first among the ones meeting the constraints by its
    // own figures too.
    std::vector<PlannedPlan> sims;
    for (size_t i = 0; i < placed.size(); ++i) {
      bar.at(simulate_start + (post_end - simulate_start) * static_cast<double>(i) /
                                  static_cast<double>(placed.size()),
             "simulating plan " + std::to_string(i + 1) + " of " + std::to_string(placed.size()));
      PlannedPlan pp = finish(placed[i], false);  // figures only; the chosen ones again below
      if (meets_simulated(pp.prediction)) sims.push_back(std::move(pp));
    }
    // Stable: equal simulated figures keep the planning model's order.
    std::stable_sort(sims.begin(), sims.end(), [&](const PlannedPlan& a, const PlannedPlan& b) {
      return compareFigures(a.prediction.iteration_s, a.prediction.usd_per_iteration,
                            b.prediction.iteration_s, b.prediction.usd_per_iteration,
                            options.objective) < 0;
    });
    if (sims.size() > static_cast<size_t>(options.top_k))
      sims.resize(static_cast<size_t>(options.top_k));
    for (auto& pp : sims)
      pp.prediction = simulate(pp.plan, scenario, job, catalog, profiles, options.simulator);
    result.best = std::move(sims);
    if (result.best.empty() && !placed.empty())
      result.no_plan_reason =
          "plans meet the constraints by the planning model but none by the simulator";
  }
  if (result.best.empty() && result.no_plan_reason.empty())
    result.no_plan_reason = "no candidate could be placed in zones within the constraints";
  if (options.pareto) {
    // Frontier of the search's own figures first; only its plans are placed and re-evaluated
    // (placing every candidate of a 512-GPU search costs more than the search).
    std::vector<const Candidate*> order;
    for (const auto& c : all) order.push_back(&c);
    std::sort(order.begin(), order.end(), [](const Candidate* a, const Candidate* b) {
      return a->usd != b->usd ? a->usd < b->usd
                              : (a->iteration_s != b->iteration_s ? a->iteration_s < b->iteration_s
                                                                  : a->key < b->key);
    });
    bar.at(0.95, "placing the Pareto frontier in zones");
    std::vector<Candidate> pts;
    double front_t = std::numeric_limits<double>::infinity();
    for (const Candidate* c : order)
      if (c->iteration_s < front_t) {
        front_t = c->iteration_s;
        if (auto p = place(*c)) pts.push_back(std::move(*p));
      }
    std::sort(pts.begin(), pts.end(), [](const Candidate& a, const Candidate& b) {
      return a.usd != b.usd
                 ? a.usd < b.usd
                 : (a.iteration_s != b.iteration_s ? a.iteration_s < b.iteration_s : a.key < b.key);
    });
    double best_t = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < pts.size(); ++i)
      if (pts[i].iteration_s < best_t) {
        best_t = pts[i].iteration_s;
        bar.at(0.97 + 0.03 * static_cast<double>(i) / static_cast<double>(pts.size()),
               "simulating the Pareto frontier (" + std::to_string(result.pareto.size() + 1) + ")");
        result.pareto.push_back(finish(pts[i]));
      }
    if (options.rank_by_simulator) {
      // The frontier in the simulator's figures, with the best plans in it: the fastest plan
      // the simulator ranked first belongs to the frontier it is plotted with.
      std::vector<PlannedPlan> all_pts = result.pareto;
      for (const auto& b : result.best)
        if (std::none_of(all_pts.begin(), all_pts.end(),
                         [&](const PlannedPlan& x) { return x.plan == b.plan; }))
          all_pts.push_back(b);
      std::stable_sort(all_pts.begin(), all_pts.end(),
                       [](const PlannedPlan& a, const PlannedPlan& b) {
                         if (a.prediction.usd_per_iteration != b.prediction.usd_per_iteration)
                           return a.prediction.usd_per_iteration < b.prediction.usd_per_iteration;
                         return a.prediction.iteration_s < b.prediction.iteration_s;
                       });
      result.pareto.clear();
      double front = std::numeric_limits<double>::infinity();
      for (auto& x : all_pts)
        if (meets_simulated(x.prediction) && x.prediction.iteration_s < front) {
          front = x.prediction.iteration_s;
          result.pareto.push_back(std::move(x));
        }
    }
  }
  bar.at(1.0, "done");
  result.search_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

// The planning model for a complete plan with zones: the same closed form the search
// optimises (docs/planner.md), evaluated directly.
std::optional<ModelEstimate> planningModel(const Plan& plan, const Scenario& sc, const Job& job,
                                           const Catalog& cat, const ProfileSet& profiles,
                                           const SimulatorOptions& sim) {
  plan.validate(job, cat, sc);
  const ModelSpec& model = cat.model(job.model, "job.model");
  const int L = model.numPlanLayers();
  const int P = static_cast<int>(plan.stages.size());
  const int b = plan.microbatch_size;
  const int e = job.activationBytesPerElement();
  const int D = static_cast<int>(plan.stages.front().replicas.size());
  for (const auto& st : plan.stages)
    if (static_cast<int>(st.replicas.size()) != D)
      throw InputError("stages", "different data-parallel degrees",
                       "one degree for all stages (the planning model's assumption)");
  const int M = (job.global_batch_size + b * D - 1) / (b * D);
  LinkResolver link_of(sc);
  // Profile figures per (GPU type, tp), looked up once.
  struct Figures {
    std::vector<LayerTiming> t;
    std::vector<LayerMemory> mem;
    double opt = 0;
  };
  std::map<std::pair<std::string, int>, Figures> figures;
  auto figures_of = [&](const Replica& r) -> const Figures& {
    auto it = figures.find({r.gpu_type, r.tp});
    if (it != figures.end()) return it->second;
    const ProfileKey key{model.name, r.gpu_type, b, r.tp};
    Figures f{profiles.timings(key, job).value, profiles.memory(model.name, r.tp, job).value,
              profiles.optimizerSecondsPerParameter(key, job).value};
    return figures.emplace(std::make_pair(r.gpu_type, r.tp), std::move(f)).first->second;
  };
  std::vector<double> fb(static_cast<size_t>(P), 0), x(static_cast<size_t>(P), 0);
  double rate = 0, egress = 0;
  int gpus = 0;
  std::vector<std::vector<double>> out_elements(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    double opt_s = 0, sync = 0, tied = 0;
    for (size_t j = 0; j < st.replicas.size(); ++j) {
      const Replica& r = st.replicas[j];
      const GpuType& g = cat.gpu(r.gpu_type, "gpu_type");
      const Figures& fig = figures_of(r);
      const auto& t = fig.t;
      const auto& mem = fig.mem;
      const double opt = fig.opt;
      double f = 0, params = 0, act = 0, maxact = 0;
      for (int l = st.first_layer; l <= st.last_layer; ++l) {
        f += t[static_cast<size_t>(l)].forward_s + t[static_cast<size_t>(l)].backward_s;
        params += mem[static_cast<size_t>(l)].params;
        act += mem[static_cast<size_t>(l)].activation_bytes;
        maxact = std::max(maxact, mem[static_cast<size_t>(l)].working_bytes);
      }
      if (st.first_layer == 0 && st.last_layer == L - 1) params -= mem.back().shared_with_embedding;
      const double need = replicaMemoryBytes(params, act, maxact, b, std::min(P - s, M), job, g);
      if (need > static_cast<double>(g.memory_bytes)) return std::nullopt;
      fb[static_cast<size_t>(s)] = std::max(fb[static_cast<size_t>(s)], f);
      opt_s = std::max(opt_s, params * opt);
      const Pool* pool = sc.findPool(r.zone, r.gpu_type);
      rate += r.tp * (pool ? pool->usd_per_gpu_hour : 0.0);
      gpus += r.tp;
      if (j == 0)
        for (const auto& m : mem) out_elements[static_cast<size_t>(s)].push_back(m.output_elements);
      // The search's tiedSeconds: the last of several stages, over its own site's link.
      if (s == P - 1 && P >= 2 && mem.back().shared_with_embedding > 0)
        tied = std::max(
            tied, ringAllReduceSeconds(link_of({r.zone, r.gpu_type, r.zone, r.gpu_type, r.tp}),
                                       mem.back().shared_with_embedding * 4.0, 2, r.tp, sim));
      if (D < 2) continue;
      const Replica& y = st.replicas[(j + 1) % st.replicas.size()];
      const ResolvedLink& link = link_of({r.zone, r.gpu_type, y.zone, y.gpu_type, r.tp});
      const double shard = params * 4.0;
      sync = std::max(sync, ringAllReduceSeconds(link, shard, D, r.tp, sim));
      egress += 2.0 * (D - 1) / D * shard * r.tp / 1e9 * sc.egressUsdPerGb(r.zone, y.zone);
    }
    x[static_cast<size_t>(s)] = tied + sync + opt_s;
  }
  std::vector<double> boundary(static_cast<size_t>(P), 0);  // between s - 1 and s
  for (int s = 1; s < P; ++s) {
    const Stage& a = plan.stages[static_cast<size_t>(s) - 1];
    const Stage& c = plan.stages[static_cast<size_t>(s)];
    const double msg =
        out_elements[static_cast<size_t>(s) - 1][static_cast<size_t>(a.last_layer)] * b * e;
    double t = 0;
    for (size_t j = 0; j < c.replicas.size(); ++j) {
      const Replica& ra = a.replicas[j % a.replicas.size()];
      const Replica& rc = c.replicas[j];
      const int streams = boundaryStreams(ra.tp, rc.tp);
      t = std::max(
          {t,
           boundaryTransferSeconds(link_of({ra.zone, ra.gpu_type, rc.zone, rc.gpu_type, streams}),
                                   sc.intraNodeLink(rc.gpu_type, cat), msg, streams, false),
           boundaryTransferSeconds(link_of({rc.zone, rc.gpu_type, ra.zone, ra.gpu_type, streams}),
                                   sc.intraNodeLink(ra.gpu_type, cat), msg, streams, false)});
      egress += msg * M / 1e9 *
                (sc.egressUsdPerGb(ra.zone, rc.zone) + sc.egressUsdPerGb(rc.zone, ra.zone));
    }
    boundary[static_cast<size_t>(s)] = t;
  }
  double maxc = 0, sumc = 0, maxx = 0;
  for (int s = 0; s < P; ++s) {
    const double c = fb[static_cast<size_t>(s)] + 2 * boundary[static_cast<size_t>(s)] +
                     2 * (s + 1 < P ? boundary[static_cast<size_t>(s) + 1] : 0.0);
    maxc = std::max(maxc, c);
    sumc += c;
    maxx = std::max(maxx, x[static_cast<size_t>(s)]);
  }
  ModelEstimate m;
  m.iteration_s = (M - 1) * maxc + sumc + maxx;
  m.usd_per_iteration = rate * m.iteration_s / 3600.0 + egress;
  m.usd_per_hour = m.usd_per_iteration * 3600.0 / m.iteration_s;
  m.gpus = gpus;
  return m;
}

json PlanResult::toJson() const {
  auto one = [](const PlannedPlan& p) {
    json j = p.plan.toJson();
    j["prediction"] = {{"iteration_s", p.prediction.iteration_s},
                       {"iterations_per_s", p.prediction.iterations_per_s},
                       {"tokens_per_s", p.prediction.tokens_per_s},
                       {"usd_per_iteration", p.prediction.usd_per_iteration},
                       {"usd_per_hour", p.prediction.usd_per_hour},
                       {"peak_memory_bytes", p.prediction.peakMemoryBytes()},
                       {"gpus", p.plan.gpuCount()},
                       {"planning_model_iteration_s", p.model_iteration_s},
                       {"planning_model_usd_per_iteration", p.model_usd_per_iteration}};
    return j;
  };
  json best_j = json::array(), pareto_j = json::array();
  for (const auto& p : best) best_j.push_back(one(p));
  for (const auto& p : pareto) pareto_j.push_back(one(p));
  json j{{"plans", best_j}, {"candidates", candidates}, {"search_seconds", search_seconds}};
  if (!pareto.empty()) j["pareto"] = pareto_j;
  if (!no_plan_reason.empty()) j["no_plan_reason"] = no_plan_reason;
  if (!notes.empty()) j["notes"] = notes;
  return j;
}

}  // namespace sailor
