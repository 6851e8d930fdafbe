// The planner on the SAILOR paper's scenarios (OPT-350M, global batch 1024, fp32, SAILOR's
// reference profiles, network fits, egress, and the price sheet's GCP prices): search time with
// set-up (loading the reference data) included, as wall and as CPU time (all threads), peak
// memory (max RSS of this process) and the chosen plan, with its predicted throughput and cost.
// Prints the chosen plans in brief, then a table; --json prints instead one JSON object per
// scenario (the plan in the format `sailor simulate --plan` accepts).
//
// --baseline FILE takes such JSON lines from an earlier run (another commit) and simulates each
// scenario's earlier plan with this build's simulator, beside this build's plan: whether the
// planner finds plans as good as before, judged by one simulator, whatever changed in the model.
// --pareto computes the Pareto frontier in every scenario (what the knee of `sailor plan` needs;
// the frontier's cost is the time against a run without it).
// --placements checks the chosen plan's zones (docs/planner.md, H6 "placement scored"): every
// placement of the same parallelization with each stage's replicas of one (GPU type, tp, region)
// in runs per zone (every zone set, order and count within the pools' counts) where there are
// at most kEnumerateLimit of them, else kSamples drawn at random (fixed seed) and the old rule's
// placement, each figured by the planning model and the simulator; no placement meeting the
// constraints (by both) may simulate better than the chosen plan, better as the planner compares
// placements (comparePlacements: under the throughput objective seconds x USD per iteration, so
// a dearer placement only where it repays its price; NOTE [A dearer placement repays its price]).
// It also prints the chosen plan's gain over the old rule (the same plan with a region's zones
// filled cheapest first, then by name) and the Placer's time on the chosen plan (cold: a fresh
// Placer, links and profiles looked up; warm: again).
// Usage: planner_bench REFERENCE_DIR [--quick] [--json] [--pareto] [--baseline FILE]
//                      [--placements]
//        (REFERENCE_DIR: ../shared/reference/sailor)
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "plan_brief.hpp"
#include "planning/planner_internal.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/trace_scenario.hpp"
#include "sailor/simulation/simulator.hpp"

using namespace sailor;
using nlohmann::json;
using sailor::bench::planBrief;

namespace {

// CPU seconds of this process (all threads): the figure to compare on a shared machine, where
// wall time depends on the load.
double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double maxRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Scenario name -> plan, from JSON lines of an earlier `--json` run; other lines are skipped.
std::map<std::string, Plan> loadBaseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "a path that cannot be read", "a readable file");
  std::map<std::string, Plan> plans;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() != '{') continue;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("scenario") || !j.contains("plan")) continue;
    plans[j.at("scenario").get<std::string>()] = Plan::fromJson(j.at("plan"));
  }
  if (plans.empty())
    throw InputError(path, "no line with a scenario and a plan",
                     "JSON lines of planner_bench --json");
  return plans;
}

// ---- The placement check (--placements).

constexpr long kEnumerateLimit = 3000;
// Placements the planning model figures at the same iteration time can simulate a few 1e-5
// apart (the simulator runs each pipeline on its own schedule and packs replicas on nodes): a
// rival better by less than this is reported as a tie, not a failure.
constexpr double kSimulatorTie = 1e-4;
constexpr int kSamples = 400;
constexpr int kWarmRepeats = 20;

// A stage's replicas of one (GPU type, tp, region) in a row, with that site's zones.
struct Block {
  size_t stage = 0, start = 0, len = 0;
  int tp = 1;
  std::string gpu;
  std::vector<std::string> zones;
};
using Runs = std::vector<std::pair<size_t, int>>;  // (zone index in the block's list, count)

// Every run layout of n replicas over the zones (distinct zones, any order, counts >= 1, at
// most cap[z] replicas in zone z); false once more than `limit`.
bool blockLayouts(int n, const std::vector<int>& cap, long limit, std::vector<Runs>& out) {
  Runs cur;
  std::vector<char> used(cap.size(), 0);
  std::function<bool(int)> rec = [&](int left) {
    if (left == 0) {
      out.push_back(cur);
      return static_cast<long>(out.size()) <= limit;
    }
    for (size_t z = 0; z < cap.size(); ++z) {
      if (used[z]) continue;
      used[z] = 1;
      for (int c = 1; c <= std::min(left, cap[z]); ++c) {
        cur.push_back({z, c});
        const bool ok = rec(left - c);
        cur.pop_back();
        if (!ok) return false;
      }
      used[z] = 0;
    }
    return true;
  };
  return rec(n);
}

// Per stage, the replicas' zones in order as runs: "a x20 b x17 | b x3 c x20 f x14".
std::string zoneRuns(const Plan& plan) {
  std::string out;
  for (const Stage& st : plan.stages) {
    if (!out.empty()) out += " |";
    for (size_t j = 0; j < st.replicas.size();) {
      size_t k = j;
      while (k < st.replicas.size() && st.replicas[k].zone == st.replicas[j].zone) ++k;
      out += " " + st.replicas[j].zone + " x" + std::to_string(k - j);
      j = k;
    }
  }
  return out;
}

struct PlacementCheck {
  std::string best_rival_runs;  // the best placement compared, as zone runs
  long compared = 0;            // placements figured (meeting the constraints by both figures)
  bool sampled = false;
  long space = 0;  // placements in all when enumerated
  // The best among them by comparePlacements: its simulated seconds and USD per iteration.
  double best_rival_t = std::numeric_limits<double>::infinity();
  double best_rival_usd = std::numeric_limits<double>::infinity();
  double old_figure = 0;  // the old rule's placement's objective figure (0: none meeting them)
  double cold_ms = 0, warm_ms = 0;
  long evaluated = 0;
};

PlacementCheck checkPlacements(const PlannedPlan& chosen, const Scenario& sc, const Job& job,
                               const Catalog& cat, const ProfileSet& profiles,
                               const PlannerOptions& opt) {
  using namespace sailor::planner_detail;
  PlacementCheck out;
  const bool tp_obj = opt.objective == Objective::Throughput;
  const Constraints cons(opt);
  SimulatorOptions so = opt.simulator;
  so.timeline = false;
  // The simulated (seconds, USD) per iteration of a placement meeting the constraints by both
  // figures, else nullopt.
  auto figures_of = [&](const Plan& p) -> std::optional<std::pair<double, double>> {
    const auto m = planningModel(p, sc, job, cat, profiles, opt.simulator);
    if (!m || !cons.admits(1.0 / m->iteration_s, m->usd_per_iteration, m->usd_per_hour, m->gpus))
      return std::nullopt;
    const Prediction pr = simulate(p, sc, job, cat, profiles, so);
    if (!pr.fits ||
        !cons.admits(pr.iterations_per_s, pr.usd_per_iteration, pr.usd_per_hour, std::nullopt))
      return std::nullopt;
    return std::make_pair(pr.iteration_s, pr.usd_per_iteration);
  };
  // The chosen plan as a search candidate (sites by GPU type and region), for the Placer and
  // the old rule (SearchContext::place).
  const SearchContext ctx(sc, job, cat, profiles, opt);
  Candidate c;
  c.plan = chosen.plan;
  c.dp = static_cast<int>(chosen.plan.stages.front().replicas.size());
  for (const Stage& st : chosen.plan.stages) {
    c.sites.emplace_back();
    for (const Replica& r : st.replicas)
      for (size_t k = 0; k < ctx.sites().size(); ++k)
        if (ctx.sites()[k].gpu_type == r.gpu_type &&
            ctx.sites()[k].region == sc.regionOf(r.zone).name)
          c.sites.back().push_back(static_cast<int>(k));
  }
  {
    const auto t0 = std::chrono::steady_clock::now();
    const Placer cold(ctx);
    (void)cold.place(c, 2);
    const auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < kWarmRepeats; ++i) (void)cold.place(c, 2);
    const auto t2 = std::chrono::steady_clock::now();
    out.cold_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    out.warm_ms = std::chrono::duration<double, std::milli>(t2 - t1).count() / kWarmRepeats;
    out.evaluated = cold.evaluated() / (kWarmRepeats + 1);
  }
  Candidate old = c;
  const bool has_old = ctx.place(old);
  if (has_old)
    if (const auto f = figures_of(old.plan)) out.old_figure = tp_obj ? f->first : f->second;
  // Blocks and their run layouts.
  std::vector<Block> blocks;
  for (size_t s = 0; s < chosen.plan.stages.size(); ++s) {
    const auto& reps = chosen.plan.stages[s].replicas;
    for (size_t j = 0; j < reps.size(); ++j) {
      const std::string region = sc.regionOf(reps[j].zone).name;
      if (j > 0 && blocks.back().stage == s && blocks.back().gpu == reps[j].gpu_type &&
          blocks.back().tp == reps[j].tp &&
          sc.regionOf(reps[blocks.back().start].zone).name == region) {
        ++blocks.back().len;
        continue;
      }
      Block b{s, j, 1, reps[j].tp, reps[j].gpu_type, {}};
      for (const Pool& p : sc.pools)
        if (p.gpu_type == b.gpu && p.count > 0 && sc.regionOf(p.zone).name == region)
          b.zones.push_back(p.zone);
      blocks.push_back(b);
    }
  }
  auto pool_count = [&](const std::string& zone, const std::string& gpu) {
    const Pool* p = sc.findPool(zone, gpu);
    return p ? p->count : 0;
  };
  std::vector<std::vector<Runs>> options(blocks.size());
  bool enumerable = true;
  double space = 1;
  for (size_t b = 0; b < blocks.size() && enumerable; ++b) {
    std::vector<int> cap;
    for (const auto& z : blocks[b].zones)
      cap.push_back(pool_count(z, blocks[b].gpu) / blocks[b].tp);
    enumerable = blockLayouts(static_cast<int>(blocks[b].len), cap, kEnumerateLimit, options[b]);
    space *= static_cast<double>(options[b].size());
    enumerable = enumerable && space <= static_cast<double>(kEnumerateLimit);
  }
  Plan p = chosen.plan;
  std::map<std::pair<std::string, std::string>, int> used;
  auto apply = [&](size_t b, const Runs& runs, int sign) {
    size_t j = blocks[b].start;
    for (const auto& [z, n] : runs) {
      used[{blocks[b].zones[z], blocks[b].gpu}] += sign * n * blocks[b].tp;
      for (int k = 0; k < n && sign > 0; ++k)
        p.stages[blocks[b].stage].replicas[j++].zone = blocks[b].zones[z];
    }
  };
  auto fits_now = [&] {
    for (const auto& [k, n] : used)
      if (n > pool_count(k.first, k.second)) return false;
    return true;
  };
  bool any = false;
  auto consider = [&](const Plan& q) {
    const auto f = figures_of(q);
    if (!f) return;
    ++out.compared;
    if (!any || comparePlacements(f->first, f->second, out.best_rival_t, out.best_rival_usd,
                                  opt.objective) < 0) {
      out.best_rival_t = f->first;
      out.best_rival_usd = f->second;
      out.best_rival_runs = zoneRuns(q);
    }
    any = true;
  };
  if (enumerable) {
    out.space = static_cast<long>(space);
    std::function<void(size_t)> rec = [&](size_t b) {
      if (b == blocks.size()) {
        if (fits_now()) consider(p);
        return;
      }
      for (const Runs& r : options[b]) {
        apply(b, r, 1);
        rec(b + 1);
        apply(b, r, -1);
      }
    };
    rec(0);
  } else {
    out.sampled = true;
    // The old rule's placement among the rivals too (enumerated, it is one of them).
    if (has_old) consider(old.plan);
    std::mt19937 rng(1);
    for (int drawn = 0, tries = 0; drawn < kSamples && tries < 100 * kSamples; ++tries) {
      used.clear();
      for (size_t b = 0; b < blocks.size(); ++b) {
        // A random run layout: the zones in random order, each taking a random share of what
        // is left (the last zone the rest), capped by its pool.
        std::vector<size_t> order(blocks[b].zones.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::shuffle(order.begin(), order.end(), rng);
        const size_t k = 1 + std::uniform_int_distribution<size_t>(0, order.size() - 1)(rng);
        Runs runs;
        int left = static_cast<int>(blocks[b].len);
        for (size_t i = 0; i < k && left > 0; ++i) {
          const int cap = pool_count(blocks[b].zones[order[i]], blocks[b].gpu) / blocks[b].tp;
          const int n = i + 1 == k
                            ? std::min(left, cap)
                            : std::min(cap, std::uniform_int_distribution<int>(1, left)(rng));
          if (n > 0) runs.push_back({order[i], n});
          left -= n;
        }
        if (left > 0) runs.clear();
        if (runs.empty()) break;
        apply(b, runs, 1);
        if (b + 1 == blocks.size() && fits_now()) {
          ++drawn;
          consider(p);
        }
      }
    }
  }
  return out;
}

struct Case {
  std::string name;
  std::vector<std::pair<std::pair<std::string, std::string>, int>> pools;  // (gpu, zone) -> count
  Objective objective = Objective::Throughput;
  std::optional<double> min_throughput{};
  std::optional<double> max_usd_per_iteration{};
  bool pareto = false;
  Case(std::string n, std::vector<std::pair<std::pair<std::string, std::string>, int>> p)
      : name(std::move(n)), pools(std::move(p)) {}
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s REFERENCE_DIR [--quick] [--json] [--pareto] [--baseline FILE] "
                 "[--placements] [--only TEXT]\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool quick = false, as_json = false, all_pareto = false, placements = false;
  std::string baseline_path, only;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--json")) {
      as_json = true;
    } else if (!std::strcmp(argv[i], "--pareto")) {
      all_pareto = true;
    } else if (!std::strcmp(argv[i], "--placements")) {
      placements = true;
    } else if (!std::strcmp(argv[i], "--baseline") && i + 1 < argc) {
      baseline_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "%s: unknown argument %s\n", argv[0], argv[i]);
      return 2;
    }
  }
  std::vector<Case> cases;
  const std::string a = "A100-40", v = "V100-16", c1a = "us-central1-a";
  for (int n : {32, 80, 128}) cases.push_back(Case("A100 " + std::to_string(n), {{{a, c1a}, n}}));
  for (auto [na, nv] : {std::pair{32, 96}, {80, 240}, {128, 384}})
    cases.push_back(Case("A100+V100 " + std::to_string(na) + "+" + std::to_string(nv),
                         {{{a, c1a}, na}, {{v, c1a}, nv}}));
  for (int n : {32, 80, 128}) {
    Case c{"5 zones x " + std::to_string(n) + " A100", {}};
    for (const char* z :
         {"us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f", "us-west1-b"})
      c.pools.push_back({{a, z}, n});
    cases.push_back(c);
  }
  Case two{"2 zones x (128 A100 + 128 V100), max throughput <= 1.2 USD/it", {}};
  for (const char* z : {"us-central1-a", "us-central1-b"}) {
    two.pools.push_back({{a, z}, 128});
    two.pools.push_back({{v, z}, 128});
  }
  two.max_usd_per_iteration = 1.2;
  cases.push_back(two);
  Case two_cost = two;
  two_cost.name = "2 zones x (128 A100 + 128 V100), min cost at >= 0.2 it/s";
  two_cost.max_usd_per_iteration.reset();
  two_cost.objective = Objective::Cost;
  two_cost.min_throughput = 0.2;
  if (!quick) cases.push_back(two_cost);
  Case three{"3 GPU types x 256 (A100-40, V100-16, GH-96)",
             {{{a, c1a}, 256}, {{v, c1a}, 256}, {{"GH-96", c1a}, 256}}};
  cases.push_back(three);
  Case pareto{"Pareto A100+V100 128+384", {{{a, c1a}, 128}, {{v, c1a}, 384}}};
  pareto.pareto = true;
  cases.push_back(pareto);
  if (all_pareto)
    for (auto& c : cases) c.pareto = true;
  // --only: the scenarios whose name contains the text (one scenario under a profiler).
  if (!only.empty()) {
    cases.erase(
        std::remove_if(cases.begin(), cases.end(),
                       [&](const Case& c) { return c.name.find(only) == std::string::npos; }),
        cases.end());
    if (cases.empty()) {
      std::fprintf(stderr, "%s: --only %s: no scenario's name contains it\n", argv[0],
                   only.c_str());
      return 2;
    }
  }

  std::vector<std::string> table, against, placed;
  bool all_placements_ok = true;
  try {
    const std::map<std::string, Plan> baseline =
        baseline_path.empty() ? std::map<std::string, Plan>{} : loadBaseline(baseline_path);
    for (const auto& c : cases) {
      const auto t0 = std::chrono::steady_clock::now();
      const double cpu0 = cpuSeconds();
      // Set-up included: catalogue, reference data and price sheet are loaded for every case.
      Catalog cat = Catalog::load(resourceDir());
      SailorReference ref = SailorReference::load(dir, cat);
      PriceSheet prices = PriceSheet::load(resourceDir() + "/prices/default.json");
      // Every price from the sheet, as `sailor plan` prices them (GH-96: SAILOR's evaluation
      // figure, which the sheet carries with its source).
      std::vector<SiteCount> counts;
      for (const auto& [site, n] : c.pools) counts.push_back({site.first, site.second, n});
      Scenario sc =
          ref.scenario(pricedPools(counts, {prices, "resources/prices/default.json"}, &ref), cat);
      Job job = Job::fromJson(
          json{{"model", "OPT-350"}, {"global_batch_size", 1024}, {"precision", "fp32"}}, cat);
      ProfileSet profiles;
      profiles.add(ref.profiles);
      profiles.add(std::make_shared<AnalyticProfile>(cat));
      PlannerOptions opt;
      opt.objective = c.objective;
      opt.min_iterations_per_s = c.min_throughput;
      opt.max_usd_per_iteration = c.max_usd_per_iteration;
      opt.pareto = c.pareto;
      opt.top_k = 1;
      PlanResult r = planSearch(sc, job, cat, profiles, opt);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double cpu = cpuSeconds() - cpu0;
      json out{{"scenario", c.name},
               {"search_seconds_with_setup", seconds},
               {"cpu_seconds_with_setup", cpu},
               {"max_rss_mb", maxRssMb()},
               {"candidates", r.candidates},
               {"placed_ahead", r.placed_ahead}};
      char line[1024];
      if (r.best.empty()) {
        out["no_plan_reason"] = r.no_plan_reason;
        std::snprintf(line, sizeof line, "%-62s %8.3f s %8.3f s %7.0f MB   no plan", c.name.c_str(),
                      seconds, cpu, maxRssMb());
      } else {
        const PlannedPlan& p = r.best.front();
        out["plan"] = p.plan.toJson();
        out["iterations_per_s"] = p.prediction.iterations_per_s;
        out["usd_per_iteration"] = p.prediction.usd_per_iteration;
        out["gpus"] = p.plan.gpuCount();
        if (c.pareto) out["pareto_points"] = r.pareto.size();
        std::snprintf(line, sizeof line,
                      "%-62s %8.3f s %8.3f s %7.0f MB %8.4f it/s %8.4f USD/it %5d GPUs %2zu "
                      "stages%s",
                      c.name.c_str(), seconds, cpu, maxRssMb(), p.prediction.iterations_per_s,
                      p.prediction.usd_per_iteration, p.plan.gpuCount(), p.plan.stages.size(),
                      c.pareto ? (" pareto " + std::to_string(r.pareto.size())).c_str() : "");
      }
      if (as_json) std::printf("%s\n", out.dump().c_str());
      else if (!r.best.empty())
        std::printf("%s\n  %s\n", c.name.c_str(), planBrief(r.best.front().plan).c_str());
      std::fflush(stdout);
      table.push_back(line);
      if (placements && !r.best.empty()) {
        const PlacementCheck pc = checkPlacements(r.best.front(), sc, job, cat, profiles, opt);
        const PlannedPlan& best = r.best.front();
        const bool tp_obj = c.objective == Objective::Throughput;
        const double mine =
            tp_obj ? best.prediction.iteration_s : best.prediction.usd_per_iteration;
        const double mine_t = best.prediction.iteration_s,
                     mine_usd = best.prediction.usd_per_iteration;
        // Exactly as good or better: "ok"; a rival better by under kSimulatorTie: "tie". Better
        // as the planner compares placements (comparePlacements).
        const bool exact = comparePlacements(mine_t, mine_usd, pc.best_rival_t, pc.best_rival_usd,
                                             c.objective, 1e-12) <= 0;
        const bool ok = comparePlacements(mine_t, mine_usd, pc.best_rival_t, pc.best_rival_usd,
                                          c.objective, kSimulatorTie) <= 0;
        const double mine_rank = placementFigure(mine_t, mine_usd, c.objective),
                     rival_rank = placementFigure(pc.best_rival_t, pc.best_rival_usd, c.objective);
        all_placements_ok = all_placements_ok && ok;
        // Ratios, > 1 the chosen is better: against the old rule's placement in time (cost for a
        // cost objective), against the best rival in placementFigure.
        std::snprintf(line, sizeof line, "%-62s %7ld %-8s %9.5f %9.5f %7.2f %7.2f %6ld %s",
                      c.name.c_str(), pc.compared, pc.sampled ? "sampled" : "all",
                      pc.old_figure > 0 ? pc.old_figure / mine : 0.0,
                      std::isfinite(rival_rank) ? rival_rank / mine_rank : 0.0, pc.cold_ms,
                      pc.warm_ms, pc.evaluated,
                      exact ? "ok"
                      : ok  ? "tie"
                            : "BEATEN");
        placed.push_back(line);
        placed.push_back("  chosen:     " + zoneRuns(best.plan));
        if (!exact) placed.push_back("  better:     " + pc.best_rival_runs);
        out["placements_compared"] = pc.compared;
        out["placements_sampled"] = pc.sampled;
        out["gain_over_file_order"] = pc.old_figure > 0 ? pc.old_figure / mine : 0.0;
        out["placement_ms_cold"] = pc.cold_ms;
        out["placement_ms_warm"] = pc.warm_ms;
      }
      if (const auto b = baseline.find(c.name); b != baseline.end()) {
        // The earlier plan on this build's simulator; the objective decides which figure counts.
        std::snprintf(line, sizeof line, "%-62s  earlier plan not valid here", c.name.c_str());
        try {
          b->second.validate(job, cat, sc);
          const Prediction was = simulate(b->second, sc, job, cat, profiles, opt.simulator);
          if (!r.best.empty()) {
            const Prediction& now = r.best.front().prediction;
            std::snprintf(line, sizeof line,
                          "%-62s %8.4f it/s %8.4f USD/it  now %8.4f it/s %8.4f USD/it %9.3f",
                          c.name.c_str(), was.iterations_per_s, was.usd_per_iteration,
                          now.iterations_per_s, now.usd_per_iteration,
                          c.objective == Objective::Cost
                              ? was.usd_per_iteration / now.usd_per_iteration
                              : now.iterations_per_s / was.iterations_per_s);
          }
        } catch (const InputError& e) {
          std::snprintf(line, sizeof line, "%-62s  earlier plan not valid here: %s", c.name.c_str(),
                        e.what());
        }
        against.push_back(line);
      }
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  std::printf("\n%-62s %10s %10s %10s %13s %15s %10s %9s\n", "scenario", "time", "CPU", "max RSS",
              "throughput", "cost", "GPUs", "stages");
  for (const auto& l : table) std::printf("%s\n", l.c_str());
  if (!placed.empty()) {
    std::printf(
        "\nPlacements of the chosen plan (--placements): compared = placements meeting the "
        "constraints by the planning model and the simulator (all of them, or a sample), "
        "old = the old rule's placement (zones cheapest first, then by name) / chosen in "
        "iteration time (cost for a cost objective), best other = the best of those compared / "
        "chosen in the placements' figure (seconds x USD per iteration; cost for a cost "
        "objective): >= 1 means the chosen placement is as good or better (tie: a rival better "
        "by under 1e-4); the Placer's time on "
        "the chosen plan (cold, warm) and layouts it figured\n%-62s %7s %-8s %9s %9s %7s %7s "
        "%6s\n",
        "scenario", "compared", "", "old", "best oth", "cold ms", "warm ms", "evals");
    for (const auto& l : placed) std::printf("%s\n", l.c_str());
  }
  if (!against.empty()) {
    std::printf(
        "\nAgainst %s: the earlier plan simulated by this build;\nratio > 1: this build's plan is "
        "better "
        "in throughput, or in cost for a cost objective\n%-62s %29s %34s %9s\n",
        baseline_path.c_str(), "scenario", "earlier plan", "this build's plan", "ratio");
    for (const auto& l : against) std::printf("%s\n", l.c_str());
  }
  if (!all_placements_ok) {
    std::fprintf(stderr, "a placement of a chosen plan simulates better than the chosen one\n");
    return 1;
  }
  return 0;
}
