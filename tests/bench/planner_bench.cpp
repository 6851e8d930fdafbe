// The planner on the SAILOR paper's scenarios (OPT-350M, global batch 1024, fp32, SAILOR's
// reference profiles, network fits, egress, and the price sheet's GCP prices): search time with
// set-up (loading the reference data) included, peak memory (max RSS of this process) and the
// chosen plan in the JSON `sailor simulate --plan` accepts, with its predicted throughput and
// cost. Prints one JSON object per scenario, then a table.
// Usage: planner_bench REFERENCE_DIR [--quick]   (REFERENCE_DIR: ../shared/reference/sailor)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sailor/catalog.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/planner.hpp"
#include "sailor/prices.hpp"
#include "sailor/reference.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

double maxRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
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
    std::fprintf(stderr, "usage: %s REFERENCE_DIR [--quick]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const bool quick = argc > 2 && !std::strcmp(argv[2], "--quick");
  std::vector<Case> cases;
  const std::string a = "A100-40", v = "V100-16", c1a = "us-central1-a";
  for (int n : {32, 80, 128}) cases.push_back(Case("A100 " + std::to_string(n), {{{a, c1a}, n}}));
  for (auto [na, nv] : {std::pair{32, 96}, {80, 240}, {128, 384}})
    cases.push_back(Case("A100+V100 " + std::to_string(na) + "+" + std::to_string(nv), {{{a, c1a}, na}, {{v, c1a}, nv}}));
  for (int n : {32, 80, 128}) {
    Case c{"5 zones x " + std::to_string(n) + " A100", {}};
    for (const char* z : {"us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f", "us-west1-b"})
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
  Case three{"3 GPU types x 256 (A100-40, V100-16, GH-96)", {{{a, c1a}, 256}, {{v, c1a}, 256}, {{"GH-96", c1a}, 256}}};
  cases.push_back(three);
  Case pareto{"Pareto A100+V100 128+384", {{{a, c1a}, 128}, {{v, c1a}, 384}}};
  pareto.pareto = true;
  cases.push_back(pareto);

  std::vector<std::string> table;
  try {
    for (const auto& c : cases) {
      const auto t0 = std::chrono::steady_clock::now();
      // Set-up included: catalogue, reference data and price sheet are loaded for every case.
      Catalog cat = Catalog::load(resourceDir());
      SailorReference ref = SailorReference::load(dir, cat);
      PriceSheet prices = PriceSheet::load(resourceDir() + "/prices/default.json");
      std::vector<Pool> pools;
      for (const auto& [site, n] : c.pools) {
        Pool p;
        p.gpu_type = site.first;
        p.zone = site.second;
        p.count = n;
        // GH-96 is not a cloud offering in the price sheet: the SAILOR paper's 11.06 USD/GPU-hour.
        p.usd_per_gpu_hour = prices.usdPerGpuHour(regionOfZone(p.zone), p.gpu_type).value_or(11.06);
        if (ref.gpus_per_node.count(p.gpu_type)) p.gpus_per_node = ref.gpus_per_node.at(p.gpu_type);
        pools.push_back(p);
      }
      Scenario sc = ref.scenario(pools, cat);
      Job job = Job::fromJson(json{{"model", "OPT-350"}, {"global_batch_size", 1024}, {"precision", "fp32"}}, cat);
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
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      json out{{"scenario", c.name}, {"search_seconds_with_setup", seconds}, {"max_rss_mb", maxRssMb()},
               {"candidates", r.candidates}};
      char line[512];
      if (r.best.empty()) {
        out["no_plan_reason"] = r.no_plan_reason;
        std::snprintf(line, sizeof line, "%-62s %8.3f s %7.0f MB   no plan", c.name.c_str(), seconds, maxRssMb());
      } else {
        const PlannedPlan& p = r.best.front();
        out["plan"] = p.plan.toJson();
        out["iterations_per_s"] = p.prediction.iterations_per_s;
        out["usd_per_iteration"] = p.prediction.usd_per_iteration;
        out["gpus"] = p.plan.gpuCount();
        if (c.pareto) out["pareto_points"] = r.pareto.size();
        std::snprintf(line, sizeof line, "%-62s %8.3f s %7.0f MB %8.4f it/s %8.4f USD/it %5d GPUs %2zu stages%s",
                      c.name.c_str(), seconds, maxRssMb(), p.prediction.iterations_per_s,
                      p.prediction.usd_per_iteration, p.plan.gpuCount(), p.plan.stages.size(),
                      c.pareto ? (" pareto " + std::to_string(r.pareto.size())).c_str() : "");
      }
      std::printf("%s\n", out.dump().c_str());
      std::fflush(stdout);
      table.push_back(line);
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  std::printf("\n%-62s %10s %10s %13s %15s %10s %9s\n", "scenario", "time", "max RSS", "throughput", "cost", "GPUs", "stages");
  for (const auto& l : table) std::printf("%s\n", l.c_str());
  return 0;
}
