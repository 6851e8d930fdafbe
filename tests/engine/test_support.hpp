// Helpers shared by the engine test suites: where the resources and the reference data are,
// relative comparisons of doubles, and checking that a call throws an InputError whose message
// names the field and the expectation. Header-only; included by each test_*.cpp.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <QString>
#include <QStringList>
#include <QTest>
#include <nlohmann/json.hpp>

#include "sailor/core/error.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"

namespace sailor::test {

// The shipped resources/: $SAILOR_RESOURCES (set by CTest), else the source tree's.
inline std::string resources() {
  if (const char* env = std::getenv("SAILOR_RESOURCES"); env && *env) return env;
  return SAILOR_TEST_RESOURCES;
}

// ../shared beside the project (read-only reference data); may be absent.
inline std::string sharedDir() {
  return SAILOR_TEST_SHARED_DIR;
}

// |actual - expected| <= rel * |expected| (or <= rel when expected is 0).
inline bool closeRel(double actual, double expected, double rel = 1e-9) {
  const double scale = std::fabs(expected) > 0 ? std::fabs(expected) : 1.0;
  return std::isfinite(actual) && std::fabs(actual - expected) <= rel * scale;
}

inline QString describeMismatch(double actual, double expected, double rel) {
  return QStringLiteral("actual %1, expected %2 (relative tolerance %3, relative error %4)")
      .arg(actual, 0, 'g', 17)
      .arg(expected, 0, 'g', 17)
      .arg(rel, 0, 'g', 3)
      .arg(expected != 0 ? std::fabs(actual - expected) / std::fabs(expected) : std::fabs(actual),
           0, 'g', 3);
}

// A planned plan's text (its plan's JSON), to compare plans by.
template <class Planned>
std::string planText(const Planned& p) {
  return p.plan.toJson().dump();
}

// Three offers for a Llama-3-70B run: 512 H100-80 on demand in the US, 1,024 A100-80 in
// Europe, 256 spot H100-80 in Asia, 100 GB/s within a zone (test_best_plan, test_memory_reserve).
inline nlohmann::json threeOffersScenario() {
  return nlohmann::json::parse(R"({"name": "llama70b-capacity-fastnet",
    "regions": [{"name": "us-central1", "continent": "north-america", "zones": ["us-central1-a"]},
                {"name": "europe-west4", "continent": "europe", "zones": ["europe-west4-a"]},
                {"name": "asia-southeast1", "continent": "asia", "zones": ["asia-southeast1-b"]}],
    "pools": [{"zone": "us-central1-a", "gpu_type": "H100-80", "count": 512,
               "usd_per_gpu_hour": 11.06125, "spot": false},
              {"zone": "europe-west4-a", "gpu_type": "A100-80", "count": 1024,
               "usd_per_gpu_hour": 5.58, "spot": false},
              {"zone": "asia-southeast1-b", "gpu_type": "H100-80", "count": 256,
               "usd_per_gpu_hour": 3.2, "spot": true}],
    "network": {"defaults": {"same_zone": {"latency_s": 1e-05, "bandwidth_gb_per_s": 100.0}}}})");
}

// A catalogue GPU entry for test fixtures: rates derived from fp32_tflops, 4 GPUs per node,
// 1e8 bytes of runtime overhead.
inline nlohmann::json gpuJson(const std::string& name, double fp32_tflops,
                              std::int64_t memory_bytes) {
  return nlohmann::json{{"name", name},
                        {"memory_bytes", memory_bytes},
                        {"fp32_tflops", fp32_tflops},
                        {"fp16_tflops", 2 * fp32_tflops},
                        {"memory_bandwidth_gb_per_s", 100 * fp32_tflops},
                        {"intra_node_bandwidth_gb_per_s", 100},
                        {"inter_node_bandwidth_gb_per_s", 10},
                        {"gpus_per_node", 4},
                        {"runtime_overhead_bytes", 100000000},
                        {"sources", {"test fixture"}}};
}

// The tests' two-block model "Tiny" (4 plan layers: embedding, 2 blocks, head) under `name`,
// its head tied to the word embedding or not.
inline nlohmann::json tinyModelJson(const std::string& name, bool tied_embeddings) {
  return nlohmann::json{{"name", name},
                        {"layers", 2},
                        {"hidden_size", 64},
                        {"heads", 4},
                        {"ffn_hidden_size", 256},
                        {"vocab_size", 1000},
                        {"sequence_length", 128},
                        {"max_position_embeddings", 128},
                        {"position_embedding", "learned"},
                        {"tied_embeddings", tied_embeddings},
                        {"sources", {"test fixture"}}};
}

// One run (microbatch size and tp) of tinyNativeProfile: its per-layer times are the base
// times multiplied by `factors`, in order.
struct TinyRun {
  int microbatch = 1;
  int tp = 1;
  std::vector<double> factors;
};

// A native profile (this project's format) of model Tiny (tinyModelJson's 4 plan layers) on
// `gpu`: per plan layer l and run, forward fwd[l] and backward 2 fwd[l], each times the run's
// factors; parameters 1e6 2e6 2e6 1e6 and activation bytes 1e6 2e6 4e6 1e6 per sequence, over
// the run's tp; output elements `out` (1 for the head); the optimizer's seconds per parameter.
inline std::shared_ptr<NativeProfile> tinyNativeProfile(const Catalog& cat, const std::string& gpu,
                                                        const std::string& source,
                                                        const std::array<double, 4>& fwd,
                                                        double out, double optimizer_s_per_param,
                                                        const std::vector<TinyRun>& runs) {
  const double params[] = {1e6, 2e6, 2e6, 1e6}, act[] = {1e6, 2e6, 4e6, 1e6};
  nlohmann::json rows = nlohmann::json::array();
  for (const TinyRun& run : runs) {
    nlohmann::json layers = nlohmann::json::array();
    for (size_t l = 0; l < 4; ++l) {
      double f = fwd[l], b = 2 * fwd[l];
      for (double x : run.factors) {
        f *= x;
        b *= x;
      }
      layers.push_back({{"forward_s", f},
                        {"backward_s", b},
                        {"params", params[l] / run.tp},
                        {"activation_bytes", act[l] / run.tp},
                        {"output_elements", l < 3 ? out : 1.0}});
    }
    rows.push_back({{"microbatch_size", run.microbatch},
                    {"tp", run.tp},
                    {"optimizer_seconds_per_parameter", optimizer_s_per_param},
                    {"layers", layers}});
  }
  const nlohmann::json j{{"format", "sailor-studio-profile/1"},
                         {"model", "Tiny"},
                         {"gpu_type", gpu},
                         {"precision", "fp32"},
                         {"runs", rows}};
  return NativeProfile::fromJson(j, cat, source);
}

// Runs f and returns the InputError message it throws, or a marker when it throws nothing.
inline QString inputErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return QStringLiteral("<no InputError thrown>");
}

}  // namespace sailor::test

// QCOMPARE for doubles with an explicit relative tolerance and a message that prints both values.
#define SAILOR_COMPARE_REL(actual, expected, rel)                                     \
  do {                                                                                \
    const double sailor_a_ = (actual);                                                \
    const double sailor_e_ = (expected);                                              \
    if (!sailor::test::closeRel(sailor_a_, sailor_e_, (rel)))                         \
      QFAIL(qPrintable(QStringLiteral(#actual ": ") +                                 \
                       sailor::test::describeMismatch(sailor_a_, sailor_e_, (rel)))); \
  } while (false)

// Every needle must occur in the message.
#define SAILOR_VERIFY_MESSAGE(message, needles)                                                   \
  do {                                                                                            \
    const QString& sailor_m_ = (message);                                                         \
    for (const QString& sailor_n_ : (needles))                                                    \
      if (!sailor_m_.contains(sailor_n_))                                                         \
        QFAIL(                                                                                    \
            qPrintable(QStringLiteral("message \"%1\" lacks \"%2\"").arg(sailor_m_, sailor_n_))); \
  } while (false)
