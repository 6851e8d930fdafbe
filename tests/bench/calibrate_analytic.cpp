// Compares the analytic profile with SAILOR's measured per-layer profiles: for every
// (model, GPU, microbatch >= 4, tp) the reference holds, the ratio measured / analytic of a
// transformer block's forward + backward time. Prints the median per GPU type and overall:
// the analytic efficiency factors (profile.hpp) are chosen so that the overall median is ~1.
// Usage: calibrate_analytic REFERENCE_DIR   (e.g. ../shared/reference/sailor)
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"

using namespace sailor;

int main(int argc, char** argv) {
  const bool by_tp = argc == 3 && std::string(argv[2]) == "--by-tp";
  if (argc != 2 && !by_tp) {
    std::fprintf(stderr, "usage: %s REFERENCE_DIR [--by-tp]\n", argv[0]);
    return 2;
  }
  try {
    Catalog cat = Catalog::load(resourceDir());
    const std::string dir = argv[1];
    auto sailor = SailorProfile::load(dir + "/profiles/simulator_profiles.json",
                                      dir + "/profiles/llm_info.json", cat);
    AnalyticProfile analytic(cat);
    auto raw = json_util::readFile(dir + "/profiles/simulator_profiles.json");
    std::map<std::string, std::vector<double>> ratios;
    std::vector<double> all;
    for (auto m = raw.begin(); m != raw.end(); ++m) {
      const ModelSpec* spec = cat.findModel(m.key());
      if (!spec) continue;
      Job job;
      job.model = spec->name;
      job.global_batch_size = 1;
      // The length SAILOR profiled the model at (llm_info.json: 8192 for LLAMA-3-8, whose mask
      // input is 8192^2, 2048 for the others); its profiles answer for no other.
      job.sequence_length = sailor->sequenceLength(spec->name).value_or(spec->sequence_length);
      for (auto g = m.value().begin(); g != m.value().end(); ++g)
        for (auto b = g.value().begin(); b != g.value().end(); ++b)
          for (auto t = b.value().begin(); t != b.value().end(); ++t) {
            ProfileKey key{spec->name, g.key(), std::stoi(b.key()), std::stoi(t.key())};
            if (key.microbatch_size < 4) continue;
            auto meas = sailor->timings(key, job);
            auto est = analytic.timings(key, job);
            if (!meas || !est || meas->size() < 3 || est->size() != meas->size()) continue;
            const double mt = (*meas)[1].forward_s + (*meas)[1].backward_s;
            const double et = (*est)[1].forward_s + (*est)[1].backward_s;
            if (mt <= 0 || et <= 0) continue;
            ratios[by_tp ? g.key() + " tp " + t.key() : g.key()].push_back(mt / et);
            all.push_back(mt / et);
          }
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : v[v.size() / 2];
    };
    std::printf("%-12s %6s %10s %10s %10s\n", "GPU", "n", "median", "min", "max");
    for (auto& [g, v] : ratios)
      std::printf("%-12s %6zu %10.3f %10.3f %10.3f\n", g.c_str(), v.size(), median(v),
                  *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
    std::printf("%-12s %6zu %10.3f   (measured / analytic, block forward + backward)\n", "all",
                all.size(), median(all));
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
