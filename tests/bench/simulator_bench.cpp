// The simulator on large plans: microseconds per simulate() call for a 512-GPU, 8-stage
// pipeline (OPT-30B, bf16, 16 replicas of tp 4 per stage over two zones, 64 microbatches per
// replica, the analytic profile), against a 1-GPU, 1-stage plan of the same job run in the same
// process (the ratio is what docs/benchmarks.md reports; absolute times depend on the machine).
// With REFERENCE_DIR (../shared/reference/sailor) also a 512-GPU, 8-stage OPT-350M plan on
// SAILOR's A100-40 profiles and network fits.
// Usage: simulator_bench [REFERENCE_DIR]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// Mean seconds per call over at least 0.5 s of calls (after one warm-up call).
double secondsPerCall(const Plan& plan, const Scenario& sc, const Job& job, const Catalog& cat,
                      const ProfileSet& profiles, double& iteration_s,
                      const SimulatorOptions& o = {}) {
  iteration_s = simulate(plan, sc, job, cat, profiles, o).iteration_s;
  const auto t0 = std::chrono::steady_clock::now();
  long n = 0;
  double elapsed = 0;
  do {
    for (int i = 0; i < 16; ++i)
      iteration_s = simulate(plan, sc, job, cat, profiles, o).iteration_s;
    n += 16;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (elapsed < 0.5);
  return elapsed / static_cast<double>(n);
}

// P stages over L plan layers (as even as possible), each D replicas of (gpu, tp); the first
// half of the stages in zone a, the rest in zone b.
Plan pipeline(int L, int P, int D, const std::string& gpu, int tp, const std::string& a,
              const std::string& b, int mbs) {
  Plan plan;
  plan.microbatch_size = mbs;
  int first = 0;
  for (int s = 0; s < P; ++s) {
    Stage st;
    st.first_layer = first;
    st.last_layer = first + L / P + (s < L % P ? 1 : 0) - 1;
    first = st.last_layer + 1;
    for (int r = 0; r < D; ++r) st.replicas.push_back({gpu, tp, s < P / 2 ? a : b});
    plan.stages.push_back(std::move(st));
  }
  return plan;
}

void report(const char* name, const Plan& big, const Plan& small, const Scenario& sc,
            const Job& job, const Catalog& cat, const ProfileSet& profiles) {
  double it_big = 0, it_small = 0;
  const double t_small = secondsPerCall(small, sc, job, cat, profiles, it_small);
  const double t_big = secondsPerCall(big, sc, job, cat, profiles, it_big);
  SimulatorOptions figures;
  figures.timeline = false;  // as the planner ranks its candidates
  double it_fig = 0;
  const double t_fig = secondsPerCall(big, sc, job, cat, profiles, it_fig, figures);
  std::printf(
      "%-44s %5d GPUs %d stages  %7.1f us/call, %7.1f without the timeline  (1-GPU plan %6.1f "
      "us/call, "
      "ratio %4.1f)  iteration %.3f s\n",
      name, big.gpuCount(), static_cast<int>(big.stages.size()), t_big * 1e6, t_fig * 1e6,
      t_small * 1e6, t_big / t_small, it_big);
  if (it_fig != it_big)
    std::printf("  timeline on and off disagree: %.9g against %.9g s\n", it_big, it_fig);
}

}  // namespace

int main(int argc, char** argv) {
  const Catalog cat = Catalog::load(resourceDir());
  {
    const Scenario sc = Scenario::fromJson(json::parse(R"({
      "name": "two zones of A100-80",
      "regions": [{"name": "us-central1", "continent": "north-america", "zones": ["us-central1-a", "us-central1-b"]}],
      "pools": [{"zone": "us-central1-a", "gpu_type": "A100-80", "count": 256, "usd_per_gpu_hour": 3.9},
                {"zone": "us-central1-b", "gpu_type": "A100-80", "count": 256, "usd_per_gpu_hour": 3.9}]
    })"),
                                           cat);
    const Job job = Job::fromJson(json{{"model", "OPT-30B"},
                                       {"global_batch_size", 1024},
                                       {"sequence_length", 2048},
                                       {"precision", "bf16"}},
                                  cat);
    ProfileSet profiles;
    profiles.add(std::make_shared<AnalyticProfile>(cat));
    const int L = cat.model("OPT-30B", "model").numPlanLayers();
    const Plan big = pipeline(L, 8, 16, "A100-80", 4, "us-central1-a", "us-central1-b", 1);
    const Plan small = pipeline(L, 1, 1, "A100-80", 1, "us-central1-a", "us-central1-a", 1);
    report("OPT-30B bf16, A100-80, analytic profile", big, small, sc, job, cat, profiles);
  }
  if (argc > 1) {
    const std::string dir = argv[1];
    if (!std::filesystem::is_directory(dir)) {
      std::fprintf(stderr, "%s: not a directory (SAILOR's reference layout expected)\n",
                   dir.c_str());
      return 2;
    }
    const SailorReference ref = SailorReference::load(dir, cat);
    Pool a;
    a.zone = "us-central1-a";
    a.gpu_type = "A100-40";
    a.count = 256;
    a.usd_per_gpu_hour = 3.673385;
    Pool b = a;
    b.zone = "us-central1-b";
    const Scenario sc = ref.scenario({a, b}, cat);
    const Job job = Job::fromJson(
        json{{"model", "OPT-350M"}, {"global_batch_size", 1024}, {"sequence_length", 2048}}, cat);
    ProfileSet profiles;
    profiles.add(ref.profiles);
    const Plan big = pipeline(26, 8, 64, "A100-40", 1, "us-central1-a", "us-central1-b", 1);
    const Plan small = pipeline(26, 1, 1, "A100-40", 1, "us-central1-a", "us-central1-a", 1);
    report("OPT-350M fp32, A100-40, SAILOR's profiles", big, small, sc, job, cat, profiles);
  }
  return 0;
}
