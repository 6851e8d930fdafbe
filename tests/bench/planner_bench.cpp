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
// Usage: planner_bench REFERENCE_DIR [--quick] [--json] [--pareto] [--baseline FILE]
//        (REFERENCE_DIR: ../shared/reference/sailor)
#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "sailor/catalog.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/planner.hpp"
#include "sailor/prices.hpp"
#include "sailor/reference.hpp"
#include "sailor/simulator.hpp"
#include "sailor/trace_scenario.hpp"

using namespace sailor;
using nlohmann::json;

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

// "mbs 4 | 0-4: 32x V100-16 tp4 us-central1-a | 5-25: 16x A100-40 tp4 us-central1-a, ..."
std::string planBrief(const Plan& plan) {
  std::string out = "mbs " + std::to_string(plan.microbatch_size);
  for (const Stage& st : plan.stages)
    out += " | " + std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer) + ": " +
           st.replicaSummary();
  return out;
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
                 "usage: %s REFERENCE_DIR [--quick] [--json] [--pareto] [--baseline FILE]\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  bool quick = false, as_json = false, all_pareto = false;
  std::string baseline_path;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--json")) {
      as_json = true;
    } else if (!std::strcmp(argv[i], "--pareto")) {
      all_pareto = true;
    } else if (!std::strcmp(argv[i], "--baseline") && i + 1 < argc) {
      baseline_path = argv[++i];
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

  std::vector<std::string> table, against;
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
               {"candidates", r.candidates}};
      char line[512];
      if (r.best.empty()) {
        out["no_plan_reason"] = r.no_plan_reason;
        std::snprintf(line, sizeof line, "%-62s %8.3f s %8.3f s %7.0f MB   no plan",
                      c.name.c_str(), seconds, cpu, maxRssMb());
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
  if (!against.empty()) {
    std::printf(
        "\nAgainst %s: the earlier plan simulated by this build;\nratio > 1: this build's plan is "
        "better "
        "in throughput, or in cost for a cost objective\n%-62s %29s %34s %9s\n",
        baseline_path.c_str(), "scenario", "earlier plan", "this build's plan", "ratio");
    for (const auto& l : against) std::printf("%s\n", l.c_str());
  }
  return 0;
}
