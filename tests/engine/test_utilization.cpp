// Model FLOPs utilisation (sailor/planning/utilization.hpp), worked by hand: the model FLOPs of
// Llama-3-8B and GPT-3-175B from their catalogue dimensions, and the MFU of a plan of 64 GPUs.
#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/planning/utilization.hpp"
#include "sailor/scenario/scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// A GPU type with the dense rates of an H100 SXM5 (989.4 TFLOP/s bf16 and fp16, 66.9 fp32), set
// here so that the figures below do not move with the catalogue's entry.
GpuType handGpu(const Catalog& cat, bool bf16) {
  GpuType g = cat.gpu("H100-80", "gpu");
  g.name = bf16 ? "HAND-H100" : "HAND-NO-BF16";
  g.fp32_tflops = 66.9;
  g.fp16_tflops = 989.4;
  g.bf16_tflops = bf16 ? std::optional<double>(989.4) : std::nullopt;
  return g;
}

// 8 replicas of tp 8 in one stage: 64 GPUs.
Plan plan64(const std::string& gpu, int layers) {
  Plan p;
  p.microbatch_size = 1;
  Stage st;
  st.first_layer = 0;
  st.last_layer = layers + 1;
  for (int i = 0; i < 8; ++i) st.replicas.push_back({gpu, 8, "z"});
  p.stages.push_back(st);
  return p;
}

}  // namespace

class TestUtilization : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());

 private slots:
  // Llama-3-8B (h 4096, 32 layers, 32 heads with 8 KV heads of 128: K and V 1024 wide, SwiGLU
  // 14336, vocabulary 128256, RMSNorm, no biases, untied head) at sequence 8192:
  //   block  = attention h (h + 2 x 1024) + h^2 = 25,165,824 + 16,777,216 = 41,943,040
  //          + MLP 3 x 4096 x 14336 = 176,160,768 + two norms 2 x 4096 = 8,192
  //          = 218,112,000
  //   head   = 128256 x 4096 + final norm 4096 = 525,340,672
  //   N      = 32 x 218,112,000 + 525,340,672 = 7,504,924,672 (the input embedding, a lookup,
  //            not counted)
  //   6 N    = 45,029,548,032
  //   12 L h s = 12 x 32 x 4096 x 8192 = 12,884,901,888
  //   per token 57,914,449,920; per iteration of 1024 x 8192 tokens: 485,821,617,914,511,360
  void llama8bFlops() {
    const ModelSpec& m = cat_.model("Llama-3-8B", "model");
    QVERIFY(test::closeRel(modelFlopsPerToken(m, 8192), 57914449920.0, 1e-12));
    Job job;
    job.model = m.name;
    job.global_batch_size = 1024;
    job.sequence_length = 8192;
    job.precision = Precision::Bf16;
    QVERIFY(test::closeRel(modelFlopsPerIteration(m, job), 485821617914511360.0, 1e-12));
  }

  // GPT-3-175B (h 12288, 96 layers, GeLU MLP 4h, biases, LayerNorm, vocabulary 50257 tied,
  // learned positions) at sequence 2048:
  //   block  = 4 h^2 + 4 h (QKV and output with biases) + 8 h^2 + 5 h (MLP with biases)
  //          + 4 h (two LayerNorms) = 12 h^2 + 13 h = 1,812,099,072
  //   N      = 96 x 1,812,099,072 + 50257 x 12288 + 2 x 12288 (final LayerNorm)
  //          = 174,579,093,504 (the 175 B less the embedding lookups)
  //   per token 6 N + 12 x 96 x 12288 x 2048 = 1,047,474,561,024 + 28,991,029,248
  //          = 1,076,465,590,272.
  // Megatron-LM's closed form (Narayanan et al. 2021, 72 l h^2 (1 + s / 6h + V / 12hl) per
  // token without recomputation) gives 1.07630e12, 0.02 % below: it leaves out the biases and
  // norms.
  void gpt3Flops() {
    const ModelSpec& m = cat_.model("GPT-3-175B", "model");
    QVERIFY(test::closeRel(modelFlopsPerToken(m, 2048), 1076465590272.0, 1e-12));
    QVERIFY(test::closeRel(modelFlopsPerToken(m, 2048), 1.07630e12, 3e-4));
  }

  // Llama-3-8B, global batch 1024 x 8192 tokens, bf16, on 64 GPUs of 989.4 TFLOP/s, 20 s per
  // iteration:
  //   model FLOP/s = 485,821,617,914,511,360 / 20 = 24,291,080,895,725,568
  //   peak         = 64 x 989.4e12 = 63,321.6e12 FLOP/s
  //   MFU          = 24,291.08e12 / 63,321.6e12 = 0.3836145   (38.4 %)
  //   per GPU      = 24,291.08e12 / 64 = 379.5481 TFLOP/s
  void llama8bMfu() {
    Catalog cat = cat_;
    cat.addGpu(handGpu(cat_, true));
    Job job;
    job.model = "Llama-3-8B";
    job.global_batch_size = 1024;
    job.sequence_length = 8192;
    job.precision = Precision::Bf16;
    const Plan p = plan64("HAND-H100", 32);
    QVERIFY(test::closeRel(peakFlopsPerSecond(p, job, cat), 63321.6e12, 1e-12));
    const auto u = modelFlopsUtilization(p, job, cat, 20.0);
    QVERIFY(u.has_value());
    QCOMPARE(u->gpus, 64);
    QVERIFY(test::closeRel(u->mfu, 24291080895725568.0 / 63321.6e12, 1e-12));
    QVERIFY(test::closeRel(u->mfu, 0.3836145, 1e-6));
    QVERIFY(test::closeRel(u->model_tflops_per_gpu, 379.5481, 1e-6));
    // fp32 takes the fp32 rate: 64 x 66.9e12.
    job.precision = Precision::Fp32;
    QVERIFY(test::closeRel(peakFlopsPerSecond(p, job, cat), 64 * 66.9e12, 1e-12));
  }

  // No MFU without a rate in the job's precision or without an iteration time.
  void noRate() {
    Catalog cat = cat_;
    cat.addGpu(handGpu(cat_, false));
    Job job;
    job.model = "Llama-3-8B";
    job.global_batch_size = 1024;
    job.sequence_length = 8192;
    job.precision = Precision::Bf16;
    const Plan p = plan64("HAND-NO-BF16", 32);
    QCOMPARE(peakFlopsPerSecond(p, job, cat), 0.0);
    QVERIFY(!modelFlopsUtilization(p, job, cat, 20.0));
    job.precision = Precision::Fp16;
    QVERIFY(modelFlopsUtilization(p, job, cat, 20.0).has_value());
    QVERIFY(!modelFlopsUtilization(p, job, cat, 0.0));
  }

  // The planner fills each plan's MFU from its simulated iteration time, and its JSON says it.
  void plannerReportsMfu() {
    ProfileSet profiles;
    profiles.add(std::make_shared<AnalyticProfile>(cat_));
    const Scenario sc = Scenario::fromJson(
        json::parse(R"({"name": "one-zone", "regions": [{"name": "r", "continent": "europe",
          "zones": ["z"]}], "pools": [{"zone": "z", "gpu_type": "H100-80", "count": 64,
          "usd_per_gpu_hour": 3.0, "spot": false}]})"),
        cat_);
    Job job;
    job.model = "Llama-3-8B";
    job.global_batch_size = 256;
    job.sequence_length = 2048;
    job.precision = Precision::Bf16;
    PlannerOptions o;
    o.threads = 2;
    o.top_k = 1;
    const PlanResult r = planSearch(sc, job, cat_, profiles, o);
    QVERIFY(!r.best.empty());
    const PlannedPlan& best = r.best.front();
    const auto u = modelFlopsUtilization(best.plan, job, cat_, best.prediction.iteration_s);
    QVERIFY(u.has_value());
    QVERIFY(best.mfu > 0 && best.mfu < 1);
    QVERIFY(test::closeRel(best.mfu, u->mfu, 1e-12));
    QVERIFY(test::closeRel(best.model_tflops_per_gpu, u->model_tflops_per_gpu, 1e-12));
    const json j = plannedPlanJson(best);
    QVERIFY(test::closeRel(j["prediction"]["mfu"].get<double>(), best.mfu, 1e-12));
    QVERIFY(test::closeRel(j["prediction"]["model_tflops_per_gpu"].get<double>(),
                           best.model_tflops_per_gpu, 1e-12));
  }
};

QTEST_GUILESS_MAIN(TestUtilization)
#include "test_utilization.moc"
