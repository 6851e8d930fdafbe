// The simulator (engine/src/simulator*.cpp) on cases small enough to work out by hand, under both
// pipeline schedules (DeepSpeed's, the default, and the asynchronous 1F1B). A tiny
// catalogue (model "Tiny", GPU types G1, G2 and SmallMem) and native profiles with round
// figures make every expected value exact; each case states the figure and why, SimGrid style.
// Also: which profile source answered, and sanity of the analytic profile on the real catalogue.
#include <cmath>
#include <iterator>
#include <map>
#include <memory>
#include <vector>

#include <QObject>
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;
using sailor::test::gpuJson;
using sailor::test::inputErrorOf;

namespace {

// ---- The tiny world every case runs in.
//
// Model "Tiny": 2 blocks -> 4 plan layers (0 embedding, 1-2 blocks, 3 head). Its architecture
// only matters to the analytic profile; the native profiles below give every figure.
// "TinyTied" is Tiny with its head tied to the word embedding (V x h = 1000 x 64 = 64,000
// parameters shared), profiled on G1 only.
//
// Native profile of G1, microbatch b, tp 1 (runs for b = 1 and 2), per plan layer:
//   layer             0      1      2      3
//   forward_s       1 b    2 b    3 b    1 b
//   backward_s      2 b    4 b    6 b    2 b
//   params          1e6    2e6    2e6    1e6        (6e6 in all)
//   activation_B    1e6    2e6    4e6    1e6        (per sequence)
//   output_elements 2.5e8  2.5e8  2.5e8  1          (2.5e8 x 4 B = 1e9 B per sequence)
//   optimizer: 1e-6 s per parameter
// At tp 2 (runs for b = 1 and 2) seconds, params and activations are halved; output_elements
// (the full boundary activation) stay.
// G2 is the same at 1.5 times the seconds (slower); SmallMem is G1's profile on a GPU with
// 150 MB. Every GPU type carries 1e8 B of runtime overhead.
//
// Scenario: regions r1 (zones r1-a, r1-b) and r2 (zone r2-a), both on continent c1. Links are
// latency + bytes / bandwidth: same zone and same region 0.5 s + 1 GB/s, same continent
// 0.1 s + 0.1 GB/s. Inside a node (4 GPUs, the catalogue's) also 0.5 s + 1 GB/s, so where the
// replicas land (NOTE [Node placement]) changes no figure below except in nodePlacement. Egress
// $/GB: same continent 0.05, and the pair r2-a -> r1-a 0.2. Prices $/GPU-hour: G1 in r1-a 3.6, G2
// in r1-a 1.8, G1 in r2-a 7.2, SmallMem in r1-a 1.0.

Catalog tinyCatalog() {
  json gpus{{"gpus",
             {gpuJson("G1", 10, 1000000000), gpuJson("G2", 5, 1000000000),
              gpuJson("SmallMem", 10, 150000000)}}};
  json tiny = sailor::test::tinyModelJson("Tiny", false);
  tiny["aliases"] = {"TINY"};
  json models{{"models", {tiny, sailor::test::tinyModelJson("TinyTied", true)}}};
  return Catalog::fromJson(gpus, models);
}

Scenario tinyScenario(const Catalog& cat) {
  const json j = json::parse(R"({
    "name": "tiny",
    "regions": [
      {"name": "r1", "continent": "c1", "zones": ["r1-a", "r1-b"]},
      {"name": "r2", "continent": "c1", "zones": ["r2-a"]}
    ],
    "pools": [
      {"zone": "r1-a", "gpu_type": "G1", "count": 8, "usd_per_gpu_hour": 3.6},
      {"zone": "r1-a", "gpu_type": "G2", "count": 8, "usd_per_gpu_hour": 1.8},
      {"zone": "r1-a", "gpu_type": "SmallMem", "count": 4, "usd_per_gpu_hour": 1.0},
      {"zone": "r2-a", "gpu_type": "G1", "count": 8, "usd_per_gpu_hour": 7.2}
    ],
    "network": {"defaults": {
      "same_zone": {"latency_s": 0.5, "bandwidth_gb_per_s": 1.0},
      "same_region": {"latency_s": 0.5, "bandwidth_gb_per_s": 1.0},
      "same_continent": {"latency_s": 0.1, "bandwidth_gb_per_s": 0.1},
      "cross_continent": {"latency_s": 1.0, "bandwidth_gb_per_s": 0.01}
    }, "intra_node": [
      {"gpu_type": "G1", "model": {"kind": "latency_bandwidth", "latency_s": 0.5, "bandwidth_gb_per_s": 1.0}},
      {"gpu_type": "G2", "model": {"kind": "latency_bandwidth", "latency_s": 0.5, "bandwidth_gb_per_s": 1.0}},
      {"gpu_type": "SmallMem", "model": {"kind": "latency_bandwidth", "latency_s": 0.5, "bandwidth_gb_per_s": 1.0}}
    ]},
    "egress_usd_per_gb": {
      "defaults": {"same_zone": 0, "same_region": 0.01, "same_continent": 0.05, "cross_continent": 0.1},
      "pairs": [{"from_zone": "r2-a", "to_zone": "r1-a", "usd_per_gb": 0.2}]
    }
  })");
  return Scenario::fromJson(j, cat);
}

std::shared_ptr<NativeProfile> tinyProfile(const Catalog& cat, const std::string& gpu,
                                           double time_scale, const std::string& model = "Tiny") {
  const double fwd[] = {1, 2, 3, 1}, bwd[] = {2, 4, 6, 2};
  const double params[] = {1e6, 2e6, 2e6, 1e6}, act[] = {1e6, 2e6, 4e6, 1e6},
               out[] = {2.5e8, 2.5e8, 2.5e8, 1};
  json runs = json::array();
  for (int tp : {1, 2})
    for (int b : {1, 2}) {
      json layers = json::array();
      for (int l = 0; l < 4; ++l)
        layers.push_back({{"forward_s", fwd[l] * b * time_scale / tp},
                          {"backward_s", bwd[l] * b * time_scale / tp},
                          {"params", params[l] / tp},
                          {"activation_bytes", act[l] / tp},
                          {"output_elements", out[l]}});
      runs.push_back({{"microbatch_size", b},
                      {"tp", tp},
                      {"optimizer_seconds_per_parameter", 1e-6 * time_scale},
                      {"layers", layers}});
    }
  const json j{{"format", "sailor-studio-profile/1"},
               {"model", model},
               {"gpu_type", gpu},
               {"precision", "fp32"},
               {"runs", runs}};
  return NativeProfile::fromJson(j, cat,
                                 model == "Tiny" ? "native-" + gpu : "native-" + gpu + "-" + model);
}

Job tinyJob(const Catalog& cat, int global_batch_size, const char* precision = "fp32") {
  return Job::fromJson(
      json{{"model", "Tiny"}, {"global_batch_size", global_batch_size}, {"precision", precision}},
      cat);
}

Replica rep(const char* gpu, const char* zone) {
  return Replica{gpu, 1, zone};
}

Plan onePlan(int b, std::vector<Stage> stages) {
  Plan p;
  p.microbatch_size = b;
  p.stages = std::move(stages);
  return p;
}

// Stage 0 = layers 0-1, stage 1 = layers 2-3, one G1 replica each in r1-a.
Plan twoStagePlan(int b) {
  return onePlan(b, {Stage{0, 1, {rep("G1", "r1-a")}}, Stage{2, 3, {rep("G1", "r1-a")}}});
}

// NOTE [Ranks sharing a device]: GPU types whose ranks share a node's compute. "GS" is G1 with
// shared_compute_slowdown [1, 2, 3] (two ranks computing at once each take twice as long, three
// three times, four 3 x 4 / 3 = 4 times); "GS1" is G1 with [1, 1] (the field, no slowdown).
// Both are profiled as G1 (tinyProfile), 4 GPUs per node, one zone, the node's fabric
// 0.5 s + 1 GB/s.
struct SharingWorld {
  Catalog cat;
  Scenario sc;
  ProfileSet profiles;
};
SharingWorld sharingWorld() {
  SharingWorld w;
  json gs = gpuJson("GS", 10, 1000000000), gs1 = gpuJson("GS1", 10, 1000000000);
  gs["shared_compute_slowdown"] = {1, 2, 3};
  gs1["shared_compute_slowdown"] = {1, 1};
  w.cat = Catalog::fromJson(json{{"gpus", {gpuJson("G1", 10, 1000000000), gs, gs1}}},
                            json{{"models", {sailor::test::tinyModelJson("Tiny", false)}}});
  w.sc = Scenario::fromJson(json::parse(R"({
    "name": "sharing",
    "regions": [{"name": "r1", "continent": "c1", "zones": ["r1-a"]}],
    "pools": [
      {"zone": "r1-a", "gpu_type": "G1", "count": 8, "usd_per_gpu_hour": 1},
      {"zone": "r1-a", "gpu_type": "GS", "count": 8, "usd_per_gpu_hour": 1},
      {"zone": "r1-a", "gpu_type": "GS1", "count": 8, "usd_per_gpu_hour": 1}
    ],
    "network": {"defaults": {"same_zone": {"latency_s": 0.5, "bandwidth_gb_per_s": 1.0}},
      "intra_node": [
        {"gpu_type": "G1", "model": {"kind": "latency_bandwidth", "latency_s": 0.5, "bandwidth_gb_per_s": 1.0}},
        {"gpu_type": "GS", "model": {"kind": "latency_bandwidth", "latency_s": 0.5, "bandwidth_gb_per_s": 1.0}},
        {"gpu_type": "GS1", "model": {"kind": "latency_bandwidth", "latency_s": 0.5, "bandwidth_gb_per_s": 1.0}}
      ]}
  })"),
                            w.cat);
  for (const char* g : {"G1", "GS", "GS1"}) w.profiles.add(tinyProfile(w.cat, g, 1.0));
  return w;
}

}  // namespace

class TestSimulator : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;
  Scenario sc_;
  ProfileSet native_;  // G1, G2, SmallMem native profiles; no analytic fallback

  Prediction run(const Plan& plan, const Job& job, const SimulatorOptions& opt = {}) {
    return simulate(plan, sc_, job, cat_, native_, opt);
  }

  struct Op {
    int stage;
    char kind;  // 'F' or 'B'
    int microbatch;
    double start, end;
  };
  // The prediction's forwards and backwards, stage by stage in start order, equal `golden`;
  // and no stage runs two operations (compute or transfer) at once.
  // golden: the forward and backward operations. No two operations of a stage overlap, except
  // that non-blocking transfers (transfers_block false) run beside compute.
  static void checkTimeline(const Prediction& p, const std::vector<Op>& golden,
                            bool transfers_block = true) {
    std::vector<Op> got;
    double last_end[2] = {-1, -1};
    for (const TimelineOp& op : p.timeline) {
      if (!transfers_block && op.kind == 'S') continue;
      QVERIFY2(
          op.start_s >= last_end[op.stage] - 1e-9,
          qPrintable(
              QString("stage %1: %2(%3) starts at %4, before the previous operation ends at %5")
                  .arg(op.stage)
                  .arg(op.kind)
                  .arg(op.microbatch)
                  .arg(op.start_s)
                  .arg(last_end[op.stage])));
      last_end[op.stage] = op.end_s;
      if (op.kind == 'F' || op.kind == 'B')
        got.push_back({op.stage, op.kind, op.microbatch, op.start_s, op.end_s});
    }
    QCOMPARE(got.size(), golden.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const Op& g = golden[i];
      const QString what =
          QString("op %1: stage %2 %3(%4)").arg(i).arg(g.stage).arg(g.kind).arg(g.microbatch);
      QVERIFY2(
          got[i].stage == g.stage && got[i].kind == g.kind && got[i].microbatch == g.microbatch,
          qPrintable(what + QString(" expected, got stage %1 %2(%3)")
                                .arg(got[i].stage)
                                .arg(got[i].kind)
                                .arg(got[i].microbatch)));
      QVERIFY2(sailor::test::closeRel(got[i].start, g.start, 1e-12) &&
                   sailor::test::closeRel(got[i].end, g.end, 1e-12),
               qPrintable(what + QString(" ran %1-%2, expected %3-%4")
                                     .arg(got[i].start)
                                     .arg(got[i].end)
                                     .arg(g.start)
                                     .arg(g.end)));
    }
  }

 private slots:
  void initTestCase() {
    try {
      cat_ = tinyCatalog();
      sc_ = tinyScenario(cat_);
      native_.add(tinyProfile(cat_, "G1", 1.0));
      native_.add(tinyProfile(cat_, "G2", 1.5));
      native_.add(tinyProfile(cat_, "SmallMem", 1.0));
      native_.add(tinyProfile(cat_, "G1", 1.0, "TinyTied"));
    } catch (const InputError& e) {
      QFAIL(e.what());
    }
  }

  // (a) One stage, one replica: no pipeline, no transfers, no all-reduce.
  void singleStageSingleReplica_data() {
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("G");
    QTest::addColumn<double>("expected");
    // F = 1+2+3+1 = 7 b, B = 2+4+6+2 = 14 b per microbatch; m = G / b microbatches;
    // optimizer = 1e-6 s x 6e6 parameters = 6 s.
    // expected = m * (F + B) + optimizer
    QTest::newRow("b 1, m 4") << 1 << 4 << 4 * (7.0 + 14.0) + 6.0;   // 90
    QTest::newRow("b 2, m 4") << 2 << 8 << 4 * (14.0 + 28.0) + 6.0;  // 174
    QTest::newRow("b 1, m 1") << 1 << 1 << 1 * (7.0 + 14.0) + 6.0;   // 27
  }
  void singleStageSingleReplica() {
    QFETCH(int, b);
    QFETCH(int, G);
    QFETCH(double, expected);
    const Prediction p = run(onePlan(b, {Stage{0, 3, {rep("G1", "r1-a")}}}), tinyJob(cat_, G));
    SAILOR_COMPARE_REL(p.iteration_s, expected, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.compute_s, expected - 6.0, 1e-12);
    QCOMPARE(p.breakdown.bubble_s, 0.0);
    QCOMPARE(p.breakdown.p2p_s, 0.0);
    QCOMPARE(p.breakdown.dp_sync_s, 0.0);
    SAILOR_COMPARE_REL(p.breakdown.optimizer_s, 6.0, 1e-12);
    // Throughput: G sequences of 128 tokens per iteration.
    SAILOR_COMPARE_REL(p.tokens_per_s, G * 128.0 / expected, 1e-12);
    SAILOR_COMPARE_REL(p.iterations_per_s, 1.0 / expected, 1e-12);
    // Cost: one G1 at $3.6/h for the iteration; no egress inside one zone.
    SAILOR_COMPARE_REL(p.compute_usd, 3.6 * expected / 3600.0, 1e-12);
    QCOMPARE(p.egress_usd, 0.0);
    QVERIFY(p.egress.empty());
    SAILOR_COMPARE_REL(p.usd_per_hour, 3.6, 1e-12);  // renting one G1 costs its hourly price
    QVERIFY(p.fits);
    // Memory: states 6e6 x 16 B (fp32 Adam) = 96e6; one microbatch in flight, so activations
    // (1+2+4+1)e6 x b; transient 2 x 4e6 (largest layer) x b; gradient bucket 6e6 fp32
    // gradients x 4 B = 24e6 (NOTE [Gradient bucket]: all of them, under 5e8); runtime 1e8.
    QCOMPARE(p.memory.size(), size_t{1});
    const MemoryBreakdown& m = p.memory[0];
    QCOMPARE(m.microbatches_in_flight, 1);
    SAILOR_COMPARE_REL(m.model_state_bytes, 96e6, 1e-12);
    SAILOR_COMPARE_REL(m.activation_bytes, 8e6 * b, 1e-12);
    SAILOR_COMPARE_REL(m.transient_bytes, 8e6 * b, 1e-12);
    SAILOR_COMPARE_REL(m.gradient_bucket_bytes, 24e6, 1e-12);
    SAILOR_COMPARE_REL(m.runtime_overhead_bytes, 1e8, 1e-12);
    SAILOR_COMPARE_REL(m.total_bytes, 96e6 + 8e6 * b + 8e6 * b + 24e6 + 1e8, 1e-12);
    QCOMPARE(m.capacity_bytes, 1e9);
    QCOMPARE(p.peakMemoryBytes(), m.total_bytes);
  }

  // The global batch against the plan (Plan::checkGlobalBatch, the rule RunSpec::build applies
  // too): whole microbatches (G a multiple of b) and at least one per replica (G / b >= D of
  // every stage), refused with one message naming global_batch_size, its value and what was
  // expected. M = G / b need not be a multiple of D: a stage then runs ceil(M / D) microbatches
  // per replica (its busiest replica's), and the iteration takes as long as with the batch
  // rounded up to whole rounds (even_G, 0 where no such row is given).
  void globalBatchSplits_data() {
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("stage0_replicas");
    QTest::addColumn<int>("stage1_replicas");
    QTest::addColumn<int>("G");
    QTest::addColumn<int>("even_G");
    QTest::addColumn<QString>("error");  // empty: accepted
    QTest::newRow("8 replicas x 1, G 1 (7 replicas idle)")
        << 1 << 8 << 8 << 1 << 0
        << "global_batch_size: got 1, expected at least 8 replicas x 1 sequences per microbatch "
           "(a microbatch for every replica)";
    QTest::newRow("b 2, G 7 (half a microbatch)")
        << 2 << 2 << 2 << 7 << 0
        << "global_batch_size: got 7, expected a positive multiple of the microbatch size 2 "
           "(whole microbatches)";
    QTest::newRow("2 replicas x 2, G 8") << 2 << 2 << 2 << 8 << 0 << QString();
    QTest::newRow("2 replicas x 2, G 6 (3 microbatches: 2 and 1)")
        << 2 << 2 << 2 << 6 << 8 << QString();
    QTest::newRow("2 replicas x 2, G 4 (one microbatch each)")
        << 2 << 2 << 2 << 4 << 0 << QString();
    QTest::newRow("stages 2 and 3 replicas, G 2 (stage 1 has an idle replica)")
        << 1 << 2 << 3 << 2 << 0
        << "global_batch_size: got 2, expected at least 3 replicas x 1 sequences per microbatch "
           "(a microbatch for every replica of stages[1])";
    QTest::newRow("stages 2 and 3 replicas, G 3") << 1 << 2 << 3 << 3 << 0 << QString();
    QTest::newRow("stages 2 and 3 replicas, G 7 (4 and 3 per replica)")
        << 1 << 2 << 3 << 7 << 0 << QString();
  }
  void globalBatchSplits() {
    QFETCH(int, b);
    QFETCH(int, stage0_replicas);
    QFETCH(int, stage1_replicas);
    QFETCH(int, G);
    QFETCH(int, even_G);
    QFETCH(QString, error);
    const Plan plan = onePlan(
        b,
        {Stage{0, 1, std::vector<Replica>(static_cast<size_t>(stage0_replicas), rep("G1", "r1-a"))},
         Stage{2, 3,
               std::vector<Replica>(static_cast<size_t>(stage1_replicas), rep("G2", "r1-a"))}});
    if (!error.isEmpty()) {
      SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { run(plan, tinyJob(cat_, G)); }), QStringList{error});
      return;
    }
    const Prediction p = run(plan, tinyJob(cat_, G));
    QVERIFY(p.fits);
    QCOMPARE(p.stages.size(), size_t{2});
    const int m = G / b;  // every microbatch on some replica, ceil(m / D) on the busiest
    QCOMPARE(p.stages[0].microbatches, (m + stage0_replicas - 1) / stage0_replicas);
    QCOMPARE(p.stages[1].microbatches, (m + stage1_replicas - 1) / stage1_replicas);
    if (even_G > 0) QCOMPARE(p.iteration_s, run(plan, tinyJob(cat_, even_G)).iteration_s);
  }

  // (b) Two stages under the default schedule, DeepSpeed's (NOTE [DeepSpeed pipeline schedule]
  // in simulator_pipeline.cpp): m = 3 microbatches of b = 1.
  void twoStagePipelineDeepSpeed() {
    // Stage 0 (layers 0-1): F0 = 1+2 = 3, B0 = 2+4 = 6. Stage 1 (layers 2-3): F1 = 3+1 = 4,
    // B1 = 6+2 = 8. Transfer T = 0.5 s + 1e9 B / 1e9 B/s = 1.5 s each way (the boundary
    // activation of layer 1 is 2.5e8 elements x 4 B, one message; its gradient the same).
    // Instruction streams (2 (m + P - 1) = 8 steps; even stages compute forwards on even steps,
    // odd stages on odd steps; SA/RA send/receive activation, SG/RG gradient):
    //   stage 0: F(0) SA(0) F(1) RG(0) SA(1) B(0) F(2) RG(1) SA(2) B(1) RG(2) B(2)
    //   stage 1: RA(0) F(0) B(0) SG(0) RA(1) F(1) B(1) SG(1) RA(2) F(2) B(2) SG(2)
    // A transfer starts when both ends have reached it and occupies both for T.
    //   stage 0  F(0) 0-3;  SA(0)/RA(0) 3-4.5;  F(1) 4.5-7.5, then waits in RG(0)
    //   stage 1  F(0) 4.5-8.5;  B(0) 8.5-16.5;  SG(0)/RG(0) max(16.5, 7.5) = 16.5-18
    //            RA(1)/SA(1) 18-19.5;  F(1) 19.5-23.5;  B(1) 23.5-31.5, then waits in SG(1)
    //   stage 0  B(0) 19.5-25.5;  F(2) 25.5-28.5;  RG(1) max(28.5, 31.5) = 31.5-33;
    //            SA(2) 33-34.5;  B(1) 34.5-40.5, then waits in RG(2)
    //   stage 1  F(2) 34.5-38.5;  B(2) 38.5-46.5;  SG(2) max(46.5, 40.5) = 46.5-48
    //   stage 0  B(2) 48-54
    // Optimizer: 1e-6 x 3e6 parameters = 3 s on each stage. Stage 0 ends at 54 + 3 = 57,
    // stage 1 at 48 + 3 = 51: expected iteration = 57.
    const Prediction p = run(twoStagePlan(1), tinyJob(cat_, 3));
    SAILOR_COMPARE_REL(p.iteration_s, 57.0, 1e-12);
    QCOMPARE(p.stages.size(), size_t{2});
    SAILOR_COMPARE_REL(p.stages[0].forward_s, 3.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].backward_s, 8.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[0].send_forward_s, 1.5, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].send_backward_s, 1.5, 1e-12);
    QCOMPARE(p.stages[0].send_backward_s, 0.0);  // nothing before stage 0
    QCOMPARE(p.stages[1].send_forward_s, 0.0);   // nothing after the last stage
    QCOMPARE(p.stages[0].microbatches, 3);
    // Breakdown of the busiest stage (NOTE [Breakdown of the busiest stage]): stage 1 does
    // 3 x (4 + 8) = 36 of compute, 3 activation receives + 3 gradient sends of 1.5 = 9 of p2p
    // and a step of 3 (48 in all), stage 0 27 + 9 + 3 = 39. Stage 1's bubble is the rest,
    // 57 - 36 - 9 - 3 = 9: 4.5 waiting for F(0) at the start, 6 of stage 0's last B(2) after
    // its own end, none in between.
    QCOMPARE(p.breakdown.stage, 1);
    SAILOR_COMPARE_REL(p.stages[0].work_s, 39.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].work_s, 48.0, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.compute_s, 36.0, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.p2p_s, 9.0, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.optimizer_s, 3.0, 1e-12);
    QCOMPARE(p.breakdown.dp_sync_s, 0.0);
    SAILOR_COMPARE_REL(p.breakdown.bubble_s, 9.0, 1e-12);
    // The parts add up to the iteration.
    SAILOR_COMPARE_REL(p.breakdown.compute_s + p.breakdown.bubble_s + p.breakdown.p2p_s +
                           p.breakdown.dp_sync_s + p.breakdown.optimizer_s,
                       p.iteration_s, 1e-12);
    // Timeline: every forward and backward where the trace above puts it (a golden timeline,
    // in the order each stage runs them), and no stage runs two operations at once.
    checkTimeline(p, {{0, 'F', 0, 0, 3},
                      {0, 'F', 1, 4.5, 7.5},
                      {0, 'B', 0, 19.5, 25.5},
                      {0, 'F', 2, 25.5, 28.5},
                      {0, 'B', 1, 34.5, 40.5},
                      {0, 'B', 2, 48, 54},
                      {1, 'F', 0, 4.5, 8.5},
                      {1, 'B', 0, 8.5, 16.5},
                      {1, 'F', 1, 19.5, 23.5},
                      {1, 'B', 1, 23.5, 31.5},
                      {1, 'F', 2, 34.5, 38.5},
                      {1, 'B', 2, 38.5, 46.5}});
    if (QTest::currentTestFailed()) return;
    // Transfers ('S') appear on both ends with the same interval: 6 per stage.
    int sends[2] = {0, 0};
    for (const TimelineOp& op : p.timeline)
      if (op.kind == 'S') {
        ++sends[op.stage];
        SAILOR_COMPARE_REL(op.end_s - op.start_s, 1.5, 1e-12);
      }
    QCOMPARE(sends[0], 6);
    QCOMPARE(sends[1], 6);
  }

  // NOTE [Tied embedding gradients]: the first and last stage all-reduce the tied matrix's
  // gradients after the pipeline, before the data-parallel all-reduce and the step.
  void tiedEmbeddingGradients() {
    // twoStagePipelineDeepSpeed's plan and trace on TinyTied: stage 0 is done at 54, stage 1 at
    // 48. Tied gradients 64,000 x 4 B = 256,000 B, a ring of two over the r1-a link:
    // 2 x (0.5 + 128,000 / 1e9) = 1.000256 (tp 1: one ring per node; NOTE [Collective
    // efficiency]), from max(54, 48) = 54. Then the optimizer (3 s on each stage): both stages
    // end at 54 + 1.000256 + 3 = 58.000256.
    const Job tied = Job::fromJson(json{{"model", "TinyTied"}, {"global_batch_size", 3}}, cat_);
    const Prediction p = run(twoStagePlan(1), tied);
    SAILOR_COMPARE_REL(p.iteration_s, 58.000256, 1e-12);
    SAILOR_COMPARE_REL(p.stages[0].dp_sync_s, 1.000256, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].dp_sync_s, 1.000256, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.dp_sync_s, 1.000256, 1e-12);
    // One stage holds both: one copy, nothing to reduce. 3 microbatches x (7 + 14) + the step
    // over 6e6 - 64,000 parameters (1e-6 s each) = 63 + 5.936 = 68.936.
    const Prediction one = run(onePlan(1, {Stage{0, 3, {rep("G1", "r1-a")}}}), tied);
    SAILOR_COMPARE_REL(one.iteration_s, 68.936, 1e-12);
    QCOMPARE(one.breakdown.dp_sync_s, 0.0);
    // The untied model has no such step (twoStagePipelineDeepSpeed: 57).
    SAILOR_COMPARE_REL(run(twoStagePlan(1), tinyJob(cat_, 3)).iteration_s, 57.0, 1e-12);
  }

  // `sailor simulate --timeline`: the timeline of tiedEmbeddingGradients' prediction as Chrome
  // trace events. Stage 0's B(2) runs 48-54 s (twoStagePipelineDeepSpeed's trace), the tied
  // all-reduce 54-55.000256 on both stages' communication tracks, the step 55.000256-58.000256.
  void timelineAsChromeTrace() {
    const Job tied = Job::fromJson(json{{"model", "TinyTied"}, {"global_batch_size", 3}}, cat_);
    const Plan plan = twoStagePlan(1);
    const Prediction p = run(plan, tied);
    const json trace = timelineTrace(p, plan);
    const json& events = trace.at("traceEvents");
    std::map<int, std::string> tracks;
    int complete = 0;
    for (const json& e : events) {
      if (e.at("ph") == "M" && e.at("name") == "thread_name")
        tracks[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
      if (e.at("ph") == "X") ++complete;
    }
    QCOMPARE(static_cast<size_t>(complete), p.timeline.size());  // one event per operation
    QCOMPARE(tracks.size(), size_t{4});
    QCOMPARE(tracks[0], std::string("stage 0 (layers 0-1) compute"));
    QCOMPARE(tracks[3], std::string("stage 1 (layers 2-3) communication"));
    auto find = [&](const std::string& name, int tid) -> const json* {
      for (const json& e : events)
        if (e.at("ph") == "X" && e.at("name") == name && e.at("tid") == tid) return &e;
      return nullptr;
    };
    const json* b2 = find("B 2", 0);
    QVERIFY(b2);
    SAILOR_COMPARE_REL(b2->at("ts").get<double>(), 48e6, 1e-12);  // microseconds
    SAILOR_COMPARE_REL(b2->at("dur").get<double>(), 6e6, 1e-12);
    QCOMPARE(b2->at("cat").get<std::string>(), std::string("backward"));
    QCOMPARE(b2->at("args").at("microbatch").get<int>(), 2);
    for (int tid : {1, 3}) {
      const json* ar = find("gradient all-reduce", tid);
      QVERIFY2(ar, qPrintable(QString("no all-reduce on track %1").arg(tid)));
      SAILOR_COMPARE_REL(ar->at("ts").get<double>(), 54e6, 1e-12);
      SAILOR_COMPARE_REL(ar->at("dur").get<double>(), 1.000256e6, 1e-12);
    }
    const json* step = find("optimizer step", 0);
    QVERIFY(step);
    SAILOR_COMPARE_REL(step->at("ts").get<double>() + step->at("dur").get<double>(), 58.000256e6,
                       1e-12);
    QVERIFY(find("send/recv 0", 1) != nullptr);  // transfers on the communication track
    QVERIFY(find("send/recv 0", 0) == nullptr);
    QVERIFY(trace.at("otherData").at("iteration_s").get<double>() == p.iteration_s);
  }

  // Non-blocking transfers can be in flight together (a link slower than compute); complete
  // events on one trace track must not overlap, so each more gets a lane (track) of its own.
  // Stage 0's transfers 0-4, 1-3, 3.5-5, 4-6 by first free lane: 0-4 -> lane 1; 1-3 -> lane 2
  // (lane 1 busy until 4); 3.5-5 -> lane 2 (free since 3); 4-6 -> lane 1 (free at 4).
  void timelineTraceLanesForOverlappingTransfers() {
    const Plan plan = twoStagePlan(1);
    Prediction p;
    p.iteration_s = 6;
    p.timeline = {{0, 0, 'F', 0, 1}, {0, 0, 'S', 0, 4}, {0, 1, 'S', 1, 3}, {0, 2, 'S', 3.5, 5},
                  {0, 3, 'S', 4, 6}, {1, 0, 'S', 0, 4}, {1, 0, 'F', 4, 5}};
    const json trace = timelineTrace(p, plan);
    std::map<int, std::string> names;
    std::map<int, int> sort_index;
    std::map<int, std::vector<std::pair<double, double>>> spans;  // per track
    std::map<std::string, int> track_of;
    for (const json& e : trace.at("traceEvents")) {
      const int tid = e.at("tid").get<int>();
      if (e.at("ph") == "M" && e.at("name") == "thread_name")
        names[tid] = e.at("args").at("name").get<std::string>();
      if (e.at("ph") == "M" && e.at("name") == "thread_sort_index")
        sort_index[tid] = e.at("args").at("sort_index").get<int>();
      if (e.at("ph") == "X") {
        const double ts = e.at("ts").get<double>(), dur = e.at("dur").get<double>();
        spans[tid].emplace_back(ts, ts + dur);
        if (e.at("cat") == "transfer" && e.at("tid") != 3)
          track_of[e.at("name").get<std::string>()] = tid;
      }
    }
    QCOMPARE(names.size(), size_t{5});  // two stages' compute and communication, one extra lane
    QCOMPARE(names[4], std::string("stage 0 (layers 0-1) communication 2"));
    QCOMPARE(track_of["send/recv 0"], 1);
    QCOMPARE(track_of["send/recv 1"], 4);
    QCOMPARE(track_of["send/recv 2"], 4);
    QCOMPARE(track_of["send/recv 3"], 1);
    // The extra lane sorts right after stage 0's communication track, before stage 1's tracks.
    QVERIFY(sort_index[1] < sort_index[4] && sort_index[4] < sort_index[2]);
    for (auto& [tid, v] : spans) {
      std::sort(v.begin(), v.end());
      for (size_t i = 1; i < v.size(); ++i)
        QVERIFY2(v[i].first >= v[i - 1].second,
                 qPrintable(QString("track %1 overlaps at %2 us").arg(tid).arg(v[i].first)));
    }
  }

  // The timeline is optional (the planner ranks hundreds of plans without it): the figures do
  // not change, and when recorded it is ordered by stage, then start time.
  void timelineOptional() {
    for (const auto schedule : {PipelineSchedule::DeepSpeed, PipelineSchedule::Async1F1B}) {
      SimulatorOptions with;
      with.schedule = schedule;
      SimulatorOptions without = with;
      without.timeline = false;
      const Prediction a = run(twoStagePlan(1), tinyJob(cat_, 3), with);
      const Prediction b = run(twoStagePlan(1), tinyJob(cat_, 3), without);
      QCOMPARE(a.iteration_s, b.iteration_s);
      QCOMPARE(a.usd_per_iteration, b.usd_per_iteration);
      QCOMPARE(a.breakdown.bubble_s, b.breakdown.bubble_s);
      QVERIFY(b.timeline.empty());
      // At least F and B of 3 microbatches on 2 stages: 2 x 3 x 2.
      QVERIFY(a.timeline.size() >= size_t{12});
      for (size_t i = 1; i < a.timeline.size(); ++i) {
        const TimelineOp& x = a.timeline[i - 1];
        const TimelineOp& y = a.timeline[i];
        QVERIFY(x.stage < y.stage || (x.stage == y.stage && x.start_s <= y.start_s));
      }
    }
  }

  void twoStagePipelineAsync1F1B() {
    // Same pipeline, 1F1B order (stage s runs min(P-s-1, m) warm-up forwards, then alternates),
    // transfers overlapped with compute: an operation starts at max(stage free, sender's end + T).
    //   stage 0  F(0) 0-3, F(1) 3-6
    //   stage 1  F(0) 4.5-8.5, B(0) 8.5-16.5, F(1) max(16.5, 7.5) = 16.5-20.5, B(1) 20.5-28.5
    //   stage 0  B(0) max(6, 18) = 18-24, F(2) 24-27, B(1) max(27, 30) = 30-36
    //   stage 1  F(2) max(28.5, 28.5) = 28.5-32.5, B(2) 32.5-40.5
    //   stage 0  B(2) max(36, 42) = 42-48
    // expected = 48 + 3 (optimizer) = 51, 6 s less than DeepSpeed's; no p2p time on a stage.
    SimulatorOptions opt;
    opt.schedule = PipelineSchedule::Async1F1B;
    const Prediction p = run(twoStagePlan(1), tinyJob(cat_, 3), opt);
    SAILOR_COMPARE_REL(p.iteration_s, 51.0, 1e-12);
    QCOMPARE(p.breakdown.p2p_s, 0.0);
    // The busiest stage is stage 1 (3 x (4 + 8) + 3 = 39 against 30): bubble 51 - 36 - 3.
    QCOMPARE(p.breakdown.stage, 1);
    SAILOR_COMPARE_REL(p.breakdown.bubble_s, 51.0 - 36.0 - 3.0, 1e-12);
    checkTimeline(p,
                  {{0, 'F', 0, 0, 3},
                   {0, 'F', 1, 3, 6},
                   {0, 'B', 0, 18, 24},
                   {0, 'F', 2, 24, 27},
                   {0, 'B', 1, 30, 36},
                   {0, 'B', 2, 42, 48},
                   {1, 'F', 0, 4.5, 8.5},
                   {1, 'B', 0, 8.5, 16.5},
                   {1, 'F', 1, 16.5, 20.5},
                   {1, 'B', 1, 20.5, 28.5},
                   {1, 'F', 2, 28.5, 32.5},
                   {1, 'B', 2, 32.5, 40.5}},
                  false);
    // The transfers run beside compute, from the sender's end for T = 1.5 s, on both stages:
    // activations after F(0), F(1), F(2) of stage 0; gradients after B(0), B(1), B(2) of stage 1.
    const std::vector<std::pair<double, double>> transfers{{3, 4.5},   {6, 7.5},   {16.5, 18},
                                                           {27, 28.5}, {28.5, 30}, {40.5, 42}};
    for (int s : {0, 1}) {
      std::vector<std::pair<double, double>> got;
      for (const TimelineOp& op : p.timeline)
        if (op.stage == s && op.kind == 'S') got.emplace_back(op.start_s, op.end_s);
      QCOMPARE(got.size(), transfers.size());
      for (size_t i = 0; i < got.size(); ++i)
        QVERIFY2(sailor::test::closeRel(got[i].first, transfers[i].first, 1e-12) &&
                     sailor::test::closeRel(got[i].second, transfers[i].second, 1e-12),
                 qPrintable(QString("stage %1 transfer %2: %3-%4, expected %5-%6")
                                .arg(s)
                                .arg(i)
                                .arg(got[i].first)
                                .arg(got[i].second)
                                .arg(transfers[i].first)
                                .arg(transfers[i].second)));
    }
  }

  void singleStageSchedulesAgree() {
    // With one stage there is nothing to overlap: both schedules give m (F + B) + optimizer.
    SimulatorOptions async;
    async.schedule = PipelineSchedule::Async1F1B;
    const Plan plan = onePlan(1, {Stage{0, 3, {rep("G1", "r1-a")}}});
    SAILOR_COMPARE_REL(run(plan, tinyJob(cat_, 5), async).iteration_s, 5 * 21.0 + 6.0, 1e-12);
    SAILOR_COMPARE_REL(run(plan, tinyJob(cat_, 5)).iteration_s, 5 * 21.0 + 6.0, 1e-12);
  }

  // (b) Memory of the two-stage pipeline: microbatches in flight and the four parts.
  void twoStageMemory_data() {
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("G");
    QTest::addColumn<int>("inflight0");
    QTest::addColumn<double>("total0");
    QTest::addColumn<double>("total1");
    // NOTE [Why stage s holds min(P - s, m) microbatches]: stage 0 holds min(2, m), stage 1
    // holds 1. Stage 0: states 3e6 x 16 = 48e6; activations (1+2)e6 x b x in-flight; transient
    //          2 x 2e6 x b; gradient bucket 3e6 x 4 B = 12e6; runtime 1e8.
    // Stage 1: states 48e6; activations (4+1)e6 x b x 1; transient 2 x 4e6 x b; bucket 12e6;
    //          runtime 1e8.
    QTest::newRow("m 1: one microbatch, nothing to overlap")
        << 1 << 1 << 1 << 48e6 + 3e6 * 1 * 1 + 4e6 + 12e6 + 1e8
        << 48e6 + 5e6 + 8e6 + 12e6 + 1e8;  // 167e6, 173e6
    QTest::newRow("m 3: stage 0 holds 2") << 1 << 3 << 2 << 48e6 + 3e6 * 1 * 2 + 4e6 + 12e6 + 1e8
                                          << 48e6 + 5e6 + 8e6 + 12e6 + 1e8;  // 170e6, 173e6
    QTest::newRow("b 2, m 4") << 2 << 8 << 2 << 48e6 + 3e6 * 2 * 2 + 8e6 + 12e6 + 1e8
                              << 48e6 + 10e6 + 16e6 + 12e6 + 1e8;  // 180e6, 186e6
  }
  void twoStageMemory() {
    QFETCH(int, b);
    QFETCH(int, G);
    QFETCH(int, inflight0);
    QFETCH(double, total0);
    QFETCH(double, total1);
    const Prediction p = run(twoStagePlan(b), tinyJob(cat_, G));
    QCOMPARE(p.memory.size(), size_t{2});
    const MemoryBreakdown& s0 = p.memory[0];
    const MemoryBreakdown& s1 = p.memory[1];
    QCOMPARE(s0.stage, 0);
    QCOMPARE(s1.stage, 1);
    QCOMPARE(s0.microbatches_in_flight, inflight0);
    QCOMPARE(s1.microbatches_in_flight, 1);
    SAILOR_COMPARE_REL(s0.model_state_bytes, 48e6, 1e-12);
    SAILOR_COMPARE_REL(s0.activation_bytes, 3e6 * b * inflight0, 1e-12);
    SAILOR_COMPARE_REL(s0.transient_bytes, 2 * 2e6 * b, 1e-12);
    SAILOR_COMPARE_REL(s1.activation_bytes, 5e6 * b, 1e-12);
    SAILOR_COMPARE_REL(s1.transient_bytes, 2 * 4e6 * b, 1e-12);
    SAILOR_COMPARE_REL(s0.gradient_bucket_bytes, 12e6, 1e-12);
    SAILOR_COMPARE_REL(s1.gradient_bucket_bytes, 12e6, 1e-12);
    SAILOR_COMPARE_REL(s0.total_bytes, total0, 1e-12);
    SAILOR_COMPARE_REL(s1.total_bytes, total1, 1e-12);
    SAILOR_COMPARE_REL(p.peakMemoryBytes(), std::max(total0, total1), 1e-12);
    QVERIFY(p.fits);
  }

  // NOTE [Activation recomputation]: under full recomputation each block's backward runs its
  // forward again. Tiny, one G1, b 1, G 4 (m 4): blocks 1 and 2 add 2 + 3 s to every backward,
  // so 4 x (7 + 14 + 5) + 6 = 110 s instead of 90. Memory does not change here: Tiny's block
  // input (2.5e8 elements x 4 B = 1e9 B per sequence) is larger than what its blocks keep
  // (2e6, 4e6 B), and a block never keeps more under recomputation than without.
  void recomputationTimeOnTiny() {
    Job job = tinyJob(cat_, 4);
    job.recompute = Recompute::Full;
    const Prediction p = run(onePlan(1, {Stage{0, 3, {rep("G1", "r1-a")}}}), job);
    SAILOR_COMPARE_REL(p.iteration_s, 110.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[0].forward_s, 7.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[0].backward_s, 19.0, 1e-12);
    SAILOR_COMPARE_REL(p.memory[0].activation_bytes, 8e6, 1e-12);
    SAILOR_COMPARE_REL(p.memory[0].transient_bytes, 8e6, 1e-12);
  }

  // The same on a real model, where it matters: OPT-350M (24 blocks, h 1024), sequence 2048,
  // fp32, analytic profile, one A100-80 at tp 1, microbatch 2. Per block, recomputation keeps
  // the input, 2048 x 1024 x 4 B = 8,388,608 B per sequence, instead of its activations
  // (NOTE [Activation bytes]: 4 s h + 3 s h + s h + a s^2 + 2 s f elements with a = 16 heads
  // and f = 4096, 4 B each: 4 x 2048 x (8 x 1024 + 16 x 2048 + 2 x 4096) B = 403 MB); the transient
  // term is still twice the largest layer's own activations; each block's backward grows by its
  // forward.
  void recomputationOnARealModel() {
    const Catalog real = Catalog::load(sailor::test::resources());
    ProfileSet set;
    set.add(std::make_shared<AnalyticProfile>(real));
    Job none = Job::fromJson(
        json{{"model", "OPT-350M"}, {"global_batch_size", 8}, {"sequence_length", 2048}}, real);
    Job full = none;
    full.recompute = Recompute::Full;
    const auto mn = set.memory("OPT-350M", 1, none).value,
               mf = set.memory("OPT-350M", 1, full).value;
    const auto tn = set.timings({"OPT-350M", "A100-80", 2, 1}, none).value;
    const auto tf = set.timings({"OPT-350M", "A100-80", 2, 1}, full).value;
    QCOMPARE(mf.size(), size_t{26});
    const double block_act = 4.0 * 2048 * (8 * 1024 + 16 * 2048 + 2 * 4096);
    SAILOR_COMPARE_REL(mn[1].activation_bytes, block_act, 1e-12);
    double saved = 0, recomputed = 0;
    for (size_t l = 0; l < mf.size(); ++l) {
      QCOMPARE(mf[l].working_bytes, mn[l].activation_bytes);
      QCOMPARE(mn[l].working_bytes, mn[l].activation_bytes);
      QCOMPARE(tf[l].forward_s, tn[l].forward_s);
      if (l == 0 || l == 25) {  // the embedding and the head keep theirs
        QCOMPARE(mf[l].activation_bytes, mn[l].activation_bytes);
        QCOMPARE(tf[l].backward_s, tn[l].backward_s);
      } else {
        QCOMPARE(mf[l].activation_bytes, 2048.0 * 1024 * 4);
        SAILOR_COMPARE_REL(tf[l].backward_s, tn[l].backward_s + tn[l].forward_s, 1e-12);
        saved += mn[l].activation_bytes - mf[l].activation_bytes;
        recomputed += tn[l].forward_s;
      }
    }
    // A single-stage plan, m = 8 / 2 = 4 microbatches, one in flight: activations shrink by
    // b x (what the blocks no longer keep), the transient stays, every microbatch recomputes.
    const Scenario sc = Scenario::fromJson(
        json_util::readFile(sailor::test::resources() + "/scenarios/default.json"), real);
    Plan plan;
    plan.microbatch_size = 2;
    plan.stages = {Stage{0, 25, {Replica{"A100-80", 1, "europe-west4-a"}}}};
    const Prediction pn = simulate(plan, sc, none, real, set),
                     pf = simulate(plan, sc, full, real, set);
    SAILOR_COMPARE_REL(pn.memory[0].activation_bytes - pf.memory[0].activation_bytes, 2 * saved,
                       1e-9);
    SAILOR_COMPARE_REL(pf.memory[0].transient_bytes, pn.memory[0].transient_bytes, 1e-12);
    SAILOR_COMPARE_REL(pf.iteration_s - pn.iteration_s, 4 * recomputed, 1e-9);
    QCOMPARE(saved, 24 * (block_act - 2048.0 * 1024 * 4));  // 24 blocks, each 403 MB - 8 MB
  }

  void stateBytesFollowPrecisionAndOptimizer() {
    // NOTE [Model-state bytes]: 6e6 parameters x 16 (fp32 Adam) / 12 (fp32 SGD).
    const Plan plan = onePlan(1, {Stage{0, 3, {rep("G1", "r1-a")}}});
    Job sgd = tinyJob(cat_, 1);
    sgd.optimizer = Optimizer::Sgd;
    SAILOR_COMPARE_REL(run(plan, sgd).memory[0].model_state_bytes, 6e6 * 12, 1e-12);
    SAILOR_COMPARE_REL(run(plan, tinyJob(cat_, 1)).memory[0].model_state_bytes, 6e6 * 16, 1e-12);
  }

  // NOTE [Gradient bucket]: DeepSpeed flattens up to 5e8 gradient elements into one buffer,
  // fp32 gradients in fp32 and bf16 jobs (4 B), fp16 ones with the fp16 optimizer (2 B).
  void gradientBucket_data() {
    QTest::addColumn<double>("params");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("expected");
    QTest::newRow("fp32, under the bucket") << 3e8 << int(Precision::Fp32) << 3e8 * 4;
    QTest::newRow("fp32, capped at 5e8 elements") << 8e8 << int(Precision::Fp32) << 5e8 * 4;
    QTest::newRow("bf16: fp32 gradients") << 3e8 << int(Precision::Bf16) << 3e8 * 4;
    QTest::newRow("fp16: fp16 gradients, capped") << 8e8 << int(Precision::Fp16) << 5e8 * 2;
  }
  void gradientBucket() {
    QFETCH(double, params);
    QFETCH(int, precision);
    QFETCH(double, expected);
    Job job = tinyJob(cat_, 1);
    job.precision = static_cast<Precision>(precision);
    SAILOR_COMPARE_REL(gradientBucketBytes(params, job), expected, 1e-12);
  }

  // (c) A stage with mixed GPU types runs at the pace of its slowest replica.
  void mixedGpuStraggler_data() {
    QTest::addColumn<QString>("first");
    QTest::addColumn<QString>("second");
    QTest::addColumn<int>("straggler");
    QTest::newRow("G1, G2") << "G1"
                            << "G2" << 1;
    QTest::newRow("G2, G1") << "G2"
                            << "G1" << 0;
  }
  void mixedGpuStraggler() {
    QFETCH(QString, first);
    QFETCH(QString, second);
    QFETCH(int, straggler);
    const std::string a = first.toStdString(), c = second.toStdString();
    // One stage, replicas G1 and G2 in r1-a; G = 8, b = 1, D = 2: m = ceil(8 / 2) = 4.
    // G2 is 1.5 times slower: F = 7 x 1.5 = 10.5, B = 14 x 1.5 = 21, so the stage takes
    // 4 x 31.5 = 126 (G1 alone would take 4 x 21 = 84 and then wait).
    // DP sync (same zone, 0.5 s + 1 GB/s): gradients 6e6 x 4 B = 24e6 B in one bucket;
    // ring: 2 (D-1) x transfer(24e6 / 2 B) = 2 x (0.5 + 0.012) = 1.024 at the link's speed
    // (tp 1: one ring per node; NOTE [Collective efficiency]).
    // Step: the slower of G1 (1e-6 x 6e6 = 6) and G2 (1.5e-6 x 6e6 = 9), each with the data-
    // parallel sum's two bucket copies, 16 B per parameter at the GPU's memory bandwidth (NOTE
    // [Bucket copies]): G2 9 + 16 x 6e6 / 500e9 = 9.000192.
    // expected = 126 + 1.024 + 9.000192 = 136.024192
    const Plan plan = onePlan(1, {Stage{0, 3, {Replica{a, 1, "r1-a"}, Replica{c, 1, "r1-a"}}}});
    const Prediction p = run(plan, tinyJob(cat_, 8));
    SAILOR_COMPARE_REL(p.iteration_s, 136.024192, 1e-12);
    QCOMPARE(p.stages[0].straggler_replica, straggler);
    SAILOR_COMPARE_REL(p.stages[0].forward_s, 10.5, 1e-12);
    SAILOR_COMPARE_REL(p.stages[0].backward_s, 21.0, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.dp_sync_s, 1.024, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.optimizer_s, 9.000192, 1e-12);
    QCOMPARE(p.stages[0].microbatches, 4);
    // Same as a stage of two G2 replicas: the faster GPU buys nothing here.
    const Plan g2g2 = onePlan(1, {Stage{0, 3, {rep("G2", "r1-a"), rep("G2", "r1-a")}}});
    SAILOR_COMPARE_REL(run(g2g2, tinyJob(cat_, 8)).iteration_s, p.iteration_s, 1e-12);
    // Cost: G1 $3.6/h + G2 $1.8/h for the iteration; no egress within r1-a.
    SAILOR_COMPARE_REL(p.compute_usd, (3.6 + 1.8) * 136.024192 / 3600.0, 1e-12);
    QVERIFY(p.egress.empty());
  }

  // (c') Data-parallel pipelines run on their own until the all-reduce (NOTE [Data-parallel
  // pipelines]): a slow GPU in one pipeline and a slow link in the other do not add up.
  void dataParallelPipelines_data() {
    QTest::addColumn<bool>("slow_together");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("compute");        // the breakdown's, under DeepSpeed's schedule
    QTest::addColumn<double>("compute_async");  // and with non-blocking transfers
    QTest::addColumn<double>("p2p");
    QTest::addColumn<int>("stage");    // the busiest stage of the critical pipeline
    QTest::addColumn<double>("sync");  // its data-parallel all-reduce
    QTest::addColumn<double>("step");  // and its optimizer step
    // Two stages (layers 0-1, 2-3), two replicas each, b = 1, G = 2: m = ceil(2 / (1 x 2)) = 1.
    // Stage 1: G1 in r1-a and G1 in r2-a. Replica j of stage 0 feeds replica j of stage 1.
    // One microbatch per pipeline: F0 + T + F1 + B1 + T + B0 (both schedules).
    //   G1 stage 0: F 3, B 6; G2 stage 0 (1.5x): F 4.5, B 9; G1 stage 1: F 4, B 8.
    //   T in r1-a: 0.5 + 1e9 / 1e9 = 1.5; r1-a to r2-a (same continent): 0.1 + 1e9 / 1e8 = 10.1.
    // DP sync (ring of 2, 3e6 parameters x 4 B = 12e6 B per stage, at the link's speed):
    //   stage 0 in r1-a: 2 x (0.5 + 6e6 / 1e9) = 1.012; stage 1 across regions:
    //   2 x (0.1 + 6e6 / 1e8) = 0.32. Step: stage 0 has a G2, 1.5e-6 x 3e6 = 4.5, and the
    //   sum's two bucket copies, 16 B x 3e6 / 500 GB/s = 9.6e-5 (NOTE [Bucket copies]):
    //   4.500096; stage 1: 1e-6 x 3e6 + 16 x 3e6 / 1,000 GB/s = 3.000048.
    // Apart: stage 0 = [G2, G1] in r1-a. Pipeline 0 (G2 -> G1 r1-a): 4.5 + 1.5 + 12 + 1.5 + 9
    //   = 28.5; pipeline 1 (G1 -> G1 r2-a): 3 + 10.1 + 12 + 10.1 + 6 = 41.2. Stage 0 is done
    //   at 41.2, ends at 41.2 + 1.012 + 4.500096 = 46.712096; stage 1 is done at 3 + 10.1 + 12
    //   = 25.1, ends at 25.1 + 0.32 + 3.000048 = 28.420048. Iteration 46.712096 (the straggler
    //   with the slowest link would give 4.5 + 10.1 + 12 + 10.1 + 9 + 1.012 + 4.500096 =
    //   51.212096).
    //   Pipeline 1 is critical; the breakdown is its busiest stage's (work = compute +
    //   blocking transfers + sync + step): stage 1, 12 + 20.2 + 0.32 + 3 = 35.52 against
    //   stage 0's 9 + 20.2 + 1.012 + 4.5 = 34.712: compute 4 + 8 = 12, p2p 10.1 x 2 = 20.2. With
    //   non-blocking transfers, 12 + 3.32 = 15.32 against 9 + 5.512 = 14.512: stage 1 again.
    QTest::newRow("slow GPU and slow link apart")
        << false << 46.712096 << 12.0 << 12.0 << 20.2 << 1 << 0.32 << 3.000048;
    // Together: stage 0 = [G1, G2]: pipeline 1 is G2 -> G1 in r2-a, 45.7; pipeline 0 is 25.
    //   Iteration 45.7 + 1.012 + 4.500096 = 51.212096. Stage 0 is the busiest (13.5 + 20.2 + 1.012
    //   + 4.5 = 39.212 against 35.52; without blocking 19.012 against 15.32): compute 4.5 + 9 =
    //   13.5, p2p 20.2.
    QTest::newRow("slow GPU and slow link together")
        << true << 51.212096 << 13.5 << 13.5 << 20.2 << 0 << 1.012 << 4.500096;
  }
  void dataParallelPipelines() {
    QFETCH(bool, slow_together);
    QFETCH(double, expected);
    QFETCH(double, compute);
    QFETCH(double, compute_async);
    QFETCH(double, p2p);
    QFETCH(int, stage);
    QFETCH(double, sync);
    QFETCH(double, step);
    const std::vector<Replica> first =
        slow_together ? std::vector<Replica>{rep("G1", "r1-a"), rep("G2", "r1-a")}
                      : std::vector<Replica>{rep("G2", "r1-a"), rep("G1", "r1-a")};
    const Plan plan =
        onePlan(1, {Stage{0, 1, first}, Stage{2, 3, {rep("G1", "r1-a"), rep("G1", "r2-a")}}});
    for (const auto schedule : {PipelineSchedule::DeepSpeed, PipelineSchedule::Async1F1B}) {
      SimulatorOptions opt;
      opt.schedule = schedule;
      const Prediction p = run(plan, tinyJob(cat_, 2), opt);
      SAILOR_COMPARE_REL(p.iteration_s, expected, 1e-12);
      const bool blocking = schedule == PipelineSchedule::DeepSpeed;
      QCOMPARE(p.breakdown.stage, stage);
      SAILOR_COMPARE_REL(p.breakdown.compute_s, blocking ? compute : compute_async, 1e-12);
      SAILOR_COMPARE_REL(p.breakdown.p2p_s, blocking ? p2p : 0.0, 1e-12);
      SAILOR_COMPARE_REL(p.breakdown.dp_sync_s, sync, 1e-12);
      SAILOR_COMPARE_REL(p.breakdown.optimizer_s, step, 1e-12);
      // The stage figures still name the straggler and the slowest pair.
      SAILOR_COMPARE_REL(p.stages[0].forward_s, 4.5, 1e-12);
      SAILOR_COMPARE_REL(p.stages[0].send_forward_s, 10.1, 1e-12);
      // The timeline is the critical pipeline's: stage 0's backward ends where its sync starts.
      double last_b = 0;
      for (const TimelineOp& op : p.timeline)
        if (op.stage == 0 && op.kind == 'B') last_b = std::max(last_b, op.end_s);
      SAILOR_COMPARE_REL(last_b, expected - 1.012 - 4.500096, 1e-12);
    }
  }

  // With the field but no slowdown, the shared-compute schedule is the separate one: the same
  // iteration and timeline as twoStagePipelineDeepSpeed (57) and twoStagePipelineAsync1F1B (51).
  void sharedComputeWithoutSlowdownAsBefore() {
    const SharingWorld w = sharingWorld();
    const Plan plan =
        onePlan(1, {Stage{0, 1, {rep("GS1", "r1-a")}}, Stage{2, 3, {rep("GS1", "r1-a")}}});
    const Job job = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 3}}, w.cat);
    const Prediction p = simulate(plan, w.sc, job, w.cat, w.profiles);
    SAILOR_COMPARE_REL(p.iteration_s, 57.0, 1e-12);
    QCOMPARE(p.breakdown.stage, 1);
    SAILOR_COMPARE_REL(p.breakdown.compute_s, 36.0, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.p2p_s, 9.0, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.bubble_s, 9.0, 1e-12);
    checkTimeline(p, {{0, 'F', 0, 0, 3},
                      {0, 'F', 1, 4.5, 7.5},
                      {0, 'B', 0, 19.5, 25.5},
                      {0, 'F', 2, 25.5, 28.5},
                      {0, 'B', 1, 34.5, 40.5},
                      {0, 'B', 2, 48, 54},
                      {1, 'F', 0, 4.5, 8.5},
                      {1, 'B', 0, 8.5, 16.5},
                      {1, 'F', 1, 19.5, 23.5},
                      {1, 'B', 1, 23.5, 31.5},
                      {1, 'F', 2, 34.5, 38.5},
                      {1, 'B', 2, 38.5, 46.5}});
    if (QTest::currentTestFailed()) return;
    SimulatorOptions async;
    async.schedule = PipelineSchedule::Async1F1B;
    const Prediction a = simulate(plan, w.sc, job, w.cat, w.profiles, async);
    SAILOR_COMPARE_REL(a.iteration_s, 51.0, 1e-12);
    checkTimeline(a,
                  {{0, 'F', 0, 0, 3},
                   {0, 'F', 1, 3, 6},
                   {0, 'B', 0, 18, 24},
                   {0, 'F', 2, 24, 27},
                   {0, 'B', 1, 30, 36},
                   {0, 'B', 2, 42, 48},
                   {1, 'F', 0, 4.5, 8.5},
                   {1, 'B', 0, 8.5, 16.5},
                   {1, 'F', 1, 16.5, 20.5},
                   {1, 'B', 1, 20.5, 28.5},
                   {1, 'F', 2, 28.5, 32.5},
                   {1, 'B', 2, 32.5, 40.5}},
                  false);
  }

  void sharedComputeSlowsRanksTogether_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("compute");
    QTest::addColumn<double>("step");
    // Two replicas of the whole model (F 7, B 14 per microbatch alone at tp 1), one microbatch
    // each, on one node. GS: both compute at once, each at 1/2: F 0-14, B 14-42; the ring
    // all-reduce inside the node 2 x (0.5 + 24e6 B / 2 / 1e9) = 1.024 s; both steps (6 s alone,
    // and the sum's two bucket copies, 16 B x 6e6 / 1,000 GB/s: 6.000096, NOTE [Bucket copies])
    // at once, 12.000192 s: 42 + 1.024 + 12.000192 = 55.024192. G1 (no sharing): 21 + 1.024 +
    // 6.000096 = 28.024096.
    QTest::newRow("GS tp 1") << "GS" << 1 << 55.024192 << 42.0 << 12.000192;
    QTest::newRow("G1 tp 1") << "G1" << 1 << 28.024096 << 21.0 << 6.000096;
    // At tp 2 (F 3.5, B 7, step 3 alone, measured with the two tp ranks at once): four ranks
    // compute together, slowdown(4) = 4 against the profile's slowdown(2) = 2, so each op at
    // 1/2: F 0-7, B 7-21, ring 2 x (0.5 + 12e6 / 2 / 1e9) = 1.012, steps (3 + 16 x 3e6 / 1e12
    // alone) 6.000096: 28.012096.
    QTest::newRow("GS tp 2") << "GS" << 2 << 28.012096 << 21.0 << 6.000096;
  }
  void sharedComputeSlowsRanksTogether() {
    QFETCH(QString, gpu);
    QFETCH(int, tp);
    QFETCH(double, expected);
    QFETCH(double, compute);
    QFETCH(double, step);
    const SharingWorld w = sharingWorld();
    const std::string g = gpu.toStdString();
    const Plan plan = onePlan(1, {Stage{0, 3, {Replica{g, tp, "r1-a"}, Replica{g, tp, "r1-a"}}}});
    const Job job = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 2}}, w.cat);
    for (const auto schedule : {PipelineSchedule::DeepSpeed, PipelineSchedule::Async1F1B}) {
      SimulatorOptions opt;
      opt.schedule = schedule;
      const Prediction p = simulate(plan, w.sc, job, w.cat, w.profiles, opt);
      SAILOR_COMPARE_REL(p.iteration_s, expected, 1e-12);
      SAILOR_COMPARE_REL(p.breakdown.compute_s, compute, 1e-12);
      SAILOR_COMPARE_REL(p.breakdown.optimizer_s, step, 1e-12);
      SAILOR_COMPARE_REL(p.breakdown.dp_sync_s, tp == 1 ? 1.024 : 1.012, 1e-12);
    }
    // One replica at tp 2 alone: its two ranks are the profile's own sharing, no further
    // slowdown: F + B + step = 3.5 + 7 + 3.
    const Plan alone = onePlan(1, {Stage{0, 3, {Replica{g, 2, "r1-a"}}}});
    const Job one = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 1}}, w.cat);
    SAILOR_COMPARE_REL(simulate(alone, w.sc, one, w.cat, w.profiles).iteration_s, 13.5, 1e-12);
  }

  void sharedComputeOverlapOfStages() {
    // Two stages on GS, one microbatch (stage 0: F 3, B 6; stage 1: F 4, B 8; transfers 1.5).
    // Until 18 no two ranks compute at once (each waits for the other's transfer): F0 0-3,
    // send 3-4.5, F1 4.5-8.5, B1 8.5-16.5, gradient 16.5-18. Then stage 0's B (6 s of work) and
    // stage 1's step (3 s) run together, each at 1/2: the step ends at 24 (6 s), B has 3 s left
    // alone: 24-27; stage 0's step 27-30. Separately (G1) 18 + 6 + 3 = 27.
    const SharingWorld w = sharingWorld();
    const Job job = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 1}}, w.cat);
    const Plan plan =
        onePlan(1, {Stage{0, 1, {rep("GS", "r1-a")}}, Stage{2, 3, {rep("GS", "r1-a")}}});
    const Prediction p = simulate(plan, w.sc, job, w.cat, w.profiles);
    SAILOR_COMPARE_REL(p.iteration_s, 30.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[0].optimizer_s, 3.0, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].optimizer_s, 6.0, 1e-12);
    checkTimeline(
        p, {{0, 'F', 0, 0, 3}, {0, 'B', 0, 18, 27}, {1, 'F', 0, 4.5, 8.5}, {1, 'B', 0, 8.5, 16.5}});
    const Plan g1 =
        onePlan(1, {Stage{0, 1, {rep("G1", "r1-a")}}, Stage{2, 3, {rep("G1", "r1-a")}}});
    SAILOR_COMPARE_REL(simulate(g1, w.sc, job, w.cat, w.profiles).iteration_s, 27.0, 1e-12);
  }

  // Fully sharded on ranks sharing a node's compute (the runtime's local prediction): four GS
  // replicas fill their 4-GPU node, so no core is left for the collectives and each
  // microbatch's gathers and reduce-scatters add up whole (no end-of-iteration reduction); the
  // step covers the share. Against the distributed optimizer: slower (the gathers repeat every
  // microbatch), less memory (the weights and gradients are shared too).
  void fullyShardedOnSharedCompute() {
    const SharingWorld w = sharingWorld();
    const Job job = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 8}}, w.cat);
    Plan plan = onePlan(
        1,
        {Stage{
            0, 3, {rep("GS", "r1-a"), rep("GS", "r1-a"), rep("GS", "r1-a"), rep("GS", "r1-a")}}});
    plan.schedule.sharding = DpSharding::Optimizer;
    const Prediction optimizer = simulate(plan, w.sc, job, w.cat, w.profiles);
    plan.schedule.sharding = DpSharding::Full;
    const Prediction full = simulate(plan, w.sc, job, w.cat, w.profiles);
    QVERIFY(full.fits && optimizer.fits);
    QCOMPARE(full.stages[0].dp_sync_s, 0.0);
    QVERIFY2(full.iteration_s > optimizer.iteration_s,
             qPrintable(QString("%1 %2").arg(full.iteration_s).arg(optimizer.iteration_s)));
    QVERIFY(full.stages[0].forward_s > optimizer.stages[0].forward_s);
    QVERIFY(full.peakMemoryBytes() < optimizer.peakMemoryBytes());
  }

  // SAILOR's published simulator (NOTE [SAILOR's published model] in reference.cpp), the
  // baseline `sailor validate --compare-sailor` prints, on the same tiny world.
  void sailorPublishedModel_data() {
    QTest::addColumn<int>("G");
    QTest::addColumn<double>("iteration");
    // Stage 0 = layers 0-1 on two G1, stage 1 = layers 2-3 on G1 and G2, all in r1-a, b = 1.
    // t_0 = 3 + 6 = 9; t_1 = max(G1 12, G2 18) = 18. comm: the 2.5e8 x 4 B = 1e9 B activation
    // and its gradient over the same-zone link, 0.5 + 1 = 1.5 s each: comm_0 = comm_1 = 1.5.
    // max_s (t_s + comm_s) = 19.5; sum = 10.5 + 19.5 = 30; largest update: G2's
    // 1.5e-6 x 3e6 = 4.5. Sync: 3e6 x 4 B = 12e6 B in one 500 MB bucket, D = 2:
    // 2 x (0.5 + 6e6 / 1e9) = 1.012 (both stages; no collective efficiency, no overlap).
    // G 6, m 3: T_pp = 2 x 19.5 + 30 + 4.5 = 73.5; T_iter = 74.512.
    QTest::newRow("m 3") << 6 << 74.512;
    // G 2, m 1: T_pp = 0 + 30 + 4.5 = 34.5; T_iter = 35.512.
    QTest::newRow("m 1") << 2 << 35.512;
  }
  void sailorPublishedModel() {
    QFETCH(int, G);
    QFETCH(double, iteration);
    const Plan plan = onePlan(1, {Stage{0, 1, {rep("G1", "r1-a"), rep("G1", "r1-a")}},
                                  Stage{2, 3, {rep("G1", "r1-a"), rep("G2", "r1-a")}}});
    const SailorModelPrediction p =
        sailor::sailorPublishedModel(plan, sc_, tinyJob(cat_, G), cat_, native_);
    SAILOR_COMPARE_REL(p.iteration_s, iteration, 1e-12);
    // Memory: 24 B x 3e6 parameters + b x activations x (P - s) + 5.06e9, in-flight not capped
    // at m: stage 0 = 72e6 + 3e6 x 2 + 5.06e9 = 5.138e9 (stage 1: 72e6 + 5e6 + 5.06e9).
    SAILOR_COMPARE_REL(p.peak_memory_bytes, 5.138e9, 1e-12);
  }

  // NOTE [Node placement]: GPUs handed out stage by stage, replica by replica, tp at a time,
  // nodes filled in order, a tp group never split. Here G1 nodes in r1-a hold `gpn` GPUs and
  // talk inside a node at 0.01 s + 10 GB/s (between nodes: the same-zone 0.5 s + 1 GB/s).
  void nodePlacement_data() {
    QTest::addColumn<int>("gpn");
    QTest::addColumn<int>("tp1");
    QTest::addColumn<double>("send");
    // Stage 0 (G1 tp 1) takes GPU 0. The boundary message is 2.5e8 x 4 B = 1e9 B:
    // inside a node 0.01 + 1e9 / 1e10 = 0.11 s, between nodes 0.5 + 1e9 / 1e9 = 1.5 s.
    QTest::newRow("nodes of 1: stage 1 on node 1") << 1 << 1 << 1.5;
    QTest::newRow("nodes of 2: both on node 0") << 2 << 1 << 0.11;
    // Stage 1 at tp 2 would straddle GPUs 1-2 of nodes 0 and 1: it starts node 1.
    QTest::newRow("nodes of 2, stage 1 tp 2: aligned to node 1") << 2 << 2 << 1.5;
    QTest::newRow("nodes of 4, stage 1 tp 2: GPUs 1-2 of node 0") << 4 << 2 << 0.11;
  }
  void nodePlacement() {
    QFETCH(int, gpn);
    QFETCH(int, tp1);
    QFETCH(double, send);
    Scenario sc = sc_;
    for (Pool& p : sc.pools)
      if (p.zone == "r1-a" && p.gpu_type == "G1") p.gpus_per_node = gpn;
    sc.intra_node_links.insert_or_assign("G1", LinkModel::latencyBandwidth(0.01, 10.0));
    const Plan plan =
        onePlan(1, {Stage{0, 1, {rep("G1", "r1-a")}}, Stage{2, 3, {Replica{"G1", tp1, "r1-a"}}}});
    const Prediction p = simulate(plan, sc, tinyJob(cat_, 3), cat_, native_);
    QCOMPARE(p.memory[0].node, 0);
    QCOMPARE(p.memory[1].node, send < 1 ? 0 : 1);  // the placement the prediction reports
    QCOMPARE(p.toJson().at("memory")[1].at("node").get<int>(), p.memory[1].node);
    SAILOR_COMPARE_REL(p.stages[0].send_forward_s, send, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].send_backward_s, send, 1e-12);

    // Data parallelism inside a node: one stage, two G1 tp 1 replicas (GPUs 0 and 1). Ring of
    // 6e6 x 4 B = 24e6 B: 2 x transfer(12e6 B) at the link's speed. Inside a node:
    // 2 x (0.01 + 12e6 / 1e10) = 0.0224; between nodes 2 x (0.5 + 12e6 / 1e9) = 1.024.
    const Plan dp = onePlan(1, {Stage{0, 3, {rep("G1", "r1-a"), rep("G1", "r1-a")}}});
    const double sync = simulate(dp, sc, tinyJob(cat_, 8), cat_, native_).breakdown.dp_sync_s;
    SAILOR_COMPARE_REL(sync, gpn >= 2 ? 0.0224 : 1.024, 1e-12);
  }

  // NOTE [Point-to-point transfers]: between replicas of the same tp the boundary message goes
  // in tp pieces at once (DeepSpeed's partitioned activations and gradients) over the link's
  // figure at that GPU count, then the receiver all-gathers them inside its node; replicas of
  // different tp send it whole from one GPU. G1 nodes of 2 GPUs in r1-a, 0.01 s + 10 GB/s inside
  // a node; the message is 2.5e8 x 4 B = 1e9 B at b = 1, stage 0 on node 0, stage 1 on node 1.
  void partitionedBoundaryTransfers_data() {
    QTest::addColumn<int>("tp0");
    QTest::addColumn<int>("tp1");
    QTest::addColumn<bool>("per_gpu_nic");
    QTest::addColumn<double>("send");
    // tp 2 to tp 2 over the same-zone default (0.5 s + 1 GB/s, the node's aggregate): two
    // pieces of 5e8 B at once, 0.5 + 1e9 / 1e9 = 1.5, then one all-gather step of 5e8 B inside
    // the receiving node, 0.01 + 5e8 / 1e10 = 0.06: 1.56.
    QTest::newRow("tp 2 to tp 2, one NIC per node") << 2 << 2 << false << 1.56;
    // With a link entry for two GPUs sending at once at twice the bandwidth (one NIC per GPU, as
    // SAILOR's GH200 fits): 0.5 + 1e9 / 2e9 = 1.0, plus the all-gather 0.06: 1.06.
    QTest::newRow("tp 2 to tp 2, one NIC per GPU") << 2 << 2 << true << 1.06;
    // tp 1 to tp 2: the whole message from one GPU at the count-1 figure, 0.5 + 1 = 1.5, no
    // all-gather (the pieces would not line up).
    QTest::newRow("tp 1 to tp 2") << 1 << 2 << false << 1.5;
  }
  void partitionedBoundaryTransfers() {
    QFETCH(int, tp0);
    QFETCH(int, tp1);
    QFETCH(bool, per_gpu_nic);
    QFETCH(double, send);
    Scenario sc = sc_;
    for (Pool& p : sc.pools)
      if (p.zone == "r1-a" && p.gpu_type == "G1") p.gpus_per_node = 2;
    sc.intra_node_links.insert_or_assign("G1", LinkModel::latencyBandwidth(0.01, 10.0));
    if (per_gpu_nic)
      sc.links.push_back(
          LinkEntry{"r1-a", "r1-a", "G1", "G1", 2, LinkModel::latencyBandwidth(0.5, 2.0)});
    // Stage 0 takes node 0 (at tp 1 its GPU 0; stage 1 at tp 2 then starts node 1).
    const Plan plan = onePlan(
        1, {Stage{0, 1, {Replica{"G1", tp0, "r1-a"}}}, Stage{2, 3, {Replica{"G1", tp1, "r1-a"}}}});
    const Prediction p = simulate(plan, sc, tinyJob(cat_, 3), cat_, native_);
    QCOMPARE(p.memory[1].node, 1);
    SAILOR_COMPARE_REL(p.stages[0].send_forward_s, send, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].send_backward_s, send, 1e-12);
  }

  // (d) A data-parallel group across regions: sync over the slow link, egress billed.
  void crossRegionDataParallel_data() {
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("bucket_bytes");
    QTest::addColumn<double>("efficiency");
    QTest::addColumn<double>("compute");
    QTest::addColumn<double>("dp_sync");
    QTest::addColumn<double>("optimizer");
    // Replicas G1 in r1-a and G1 in r2-a: regions r1 and r2 on continent c1, so the default
    // same_continent link: 0.1 s + bytes / 1e8 B/s, the node's aggregate, shared by the tp
    // ranks' rings (NOTE [Collective efficiency]). D = 2, m = ceil(8 / 2) = 4. The ring's time is
    // divided by the collective efficiency; the default 1 gives the link's own speed.
    // tp 1: compute 4 x (7 + 14) = 84, gradients 6e6 x 4 B = 24e6 B, optimizer 1e-6 x 6e6 = 6
    // and the sum's two bucket copies, 16 B x 6e6 / 1,000 GB/s (NOTE [Bucket copies]): 6.000096.
    // One 2e9 B bucket: 2 (D-1) x (0.1 + 12e6 / 1e8) = 2 x 0.22 = 0.44.
    QTest::newRow("tp 1, one bucket") << 1 << 2e9 << 1.0 << 84.0 << 0.44 << 6.000096;
    // An efficiency of 0.4 (a network whose rings reach 40% of its link figure): 0.44 / 0.4 = 1.1.
    QTest::newRow("tp 1, one bucket, efficiency 0.4") << 1 << 2e9 << 0.4 << 84.0 << 1.1 << 6.000096;
    // 8e6 B buckets: 3 of them, each 2 (D-1) x (0.1 + 4e6 / 1e8) = 2 x 0.14 = 0.28: 0.84
    // (every bucket pays the latency again).
    QTest::newRow("tp 1, three buckets") << 1 << 8e6 << 1.0 << 84.0 << 0.84 << 6.000096;
    // tp 2: each GPU holds 3e6 parameters (12e6 B of gradients) and all-reduces its shard, both
    // GPUs of a node at once over its link: a step moves 2 x 6e6 B, 2 (D-1) x (0.1 + 12e6 /
    // 1e8) = 0.44 (one GPU alone would take 0.32). Compute 4 x (3.5 + 7) = 42, optimizer 3 +
    // 16 x 3e6 / 1e12 = 3.000048.
    QTest::newRow("tp 2, one bucket") << 2 << 2e9 << 1.0 << 42.0 << 0.44 << 3.000048;
    // tp 2, 8e6 B buckets: 8e6 then 4e6 B per GPU: 2 x (0.1 + 2 x 4e6 / 1e8) +
    // 2 x (0.1 + 2 x 2e6 / 1e8) = 0.36 + 0.28 = 0.64.
    QTest::newRow("tp 2, two buckets") << 2 << 8e6 << 1.0 << 42.0 << 0.64 << 3.000048;
  }
  void crossRegionDataParallel() {
    QFETCH(int, tp);
    QFETCH(double, bucket_bytes);
    QFETCH(double, efficiency);
    QFETCH(double, compute);
    QFETCH(double, dp_sync);
    QFETCH(double, optimizer);
    SimulatorOptions opt;
    opt.allreduce_bucket_bytes = bucket_bytes;
    opt.collective_efficiency = efficiency;
    const Plan plan =
        onePlan(1, {Stage{0, 3, {Replica{"G1", tp, "r1-a"}, Replica{"G1", tp, "r2-a"}}}});
    const Prediction p = run(plan, tinyJob(cat_, 8), opt);
    const double expected = compute + dp_sync + optimizer;
    SAILOR_COMPARE_REL(p.breakdown.compute_s, compute, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.optimizer_s, optimizer, 1e-12);
    SAILOR_COMPARE_REL(p.breakdown.dp_sync_s, dp_sync, 1e-12);
    SAILOR_COMPARE_REL(p.iteration_s, expected, 1e-12);
    // Egress: in a ring of 2 each replica sends 2 (D-1)/D x 24e6 B = 24e6 B to the other (at
    // tp 2: 12e6 B from each of 2 GPUs).
    // r1-a -> r2-a at the same_continent default 0.05 $/GB: 0.024 GB x 0.05 = $0.0012;
    // r2-a -> r1-a at the declared pair price 0.2 $/GB: 0.024 GB x 0.2 = $0.0048.
    QCOMPARE(p.egress.size(), size_t{2});
    double bytes_out = 0, bytes_back = 0, usd_out = 0, usd_back = 0;
    for (const EgressItem& e : p.egress) {
      if (e.from_zone == "r1-a" && e.to_zone == "r2-a") bytes_out = e.bytes, usd_out = e.usd;
      if (e.from_zone == "r2-a" && e.to_zone == "r1-a") bytes_back = e.bytes, usd_back = e.usd;
    }
    SAILOR_COMPARE_REL(bytes_out, 24e6, 1e-12);
    SAILOR_COMPARE_REL(bytes_back, 24e6, 1e-12);
    SAILOR_COMPARE_REL(usd_out, 0.0012, 1e-12);
    SAILOR_COMPARE_REL(usd_back, 0.0048, 1e-12);
    SAILOR_COMPARE_REL(p.egress_usd, 0.006, 1e-12);
    // Compute: sum of price x tp x iteration / 3600 = (3.6 + 7.2) x tp x iteration / 3600.
    SAILOR_COMPARE_REL(p.compute_usd, (3.6 + 7.2) * tp * expected / 3600.0, 1e-12);
    SAILOR_COMPARE_REL(p.usd_per_iteration, p.compute_usd + 0.006, 1e-12);
    SAILOR_COMPARE_REL(p.usd_per_hour, p.usd_per_iteration * 3600.0 / expected, 1e-12);
  }

  void crossRegionPipelineEgress_data() {
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("G");
    QTest::addColumn<double>("transfer");
    QTest::addColumn<double>("bytes_each_way");
    // Stage 0 in r1-a, stage 1 in r2-a. Each microbatch sends its activation forward and its
    // gradient back: 2.5e8 elements x 4 B x b each, over 0.1 s + bytes / 1e8 B/s.
    // b 1, m 3: 1e9 B per message, 10.1 s; 3e9 B each way.
    QTest::newRow("b 1, m 3") << 1 << 3 << 10.1 << 3e9;
    // b 2, m = ceil(4 / 2) = 2: 2e9 B per message, 0.1 + 20 = 20.1 s; 4e9 B each way.
    QTest::newRow("b 2, m 2") << 2 << 4 << 20.1 << 4e9;
  }
  void crossRegionPipelineEgress() {
    QFETCH(int, b);
    QFETCH(int, G);
    QFETCH(double, transfer);
    QFETCH(double, bytes_each_way);
    const Plan plan =
        onePlan(b, {Stage{0, 1, {rep("G1", "r1-a")}}, Stage{2, 3, {rep("G1", "r2-a")}}});
    const Prediction p = run(plan, tinyJob(cat_, G));
    SAILOR_COMPARE_REL(p.stages[0].send_forward_s, transfer, 1e-12);
    SAILOR_COMPARE_REL(p.stages[1].send_backward_s, transfer, 1e-12);
    QCOMPARE(p.egress.size(), size_t{2});
    for (const EgressItem& e : p.egress) SAILOR_COMPARE_REL(e.bytes, bytes_each_way, 1e-12);
    // r1-a -> r2-a at 0.05 $/GB, r2-a -> r1-a at the pair price 0.2 $/GB.
    SAILOR_COMPARE_REL(p.egress_usd, bytes_each_way / 1e9 * (0.05 + 0.2), 1e-12);
  }

  void tiedEmbeddingsCountedOncePerStage() {
    // OPT-350M ties its head to the word embedding. A stage holding both keeps one copy of the
    // V x h matrix; split over two stages each keeps its own (Megatron). Analytic memory.
    const Catalog real = Catalog::load(sailor::test::resources());
    const std::string dir = sailor::test::resources();
    const Scenario sc =
        Scenario::fromJson(json_util::readFile(dir + "/scenarios/default.json"), real);
    const Job job = Job::fromJson(json{{"model", "OPT-350M"}, {"global_batch_size", 8}}, real);
    ProfileSet set;
    set.add(std::make_shared<AnalyticProfile>(real));
    double all = 0;
    for (const auto& l : deriveLayers(real.model("OPT-350M", "t"), 2048, 1, 4)) all += l.params;
    const double shared = 50272.0 * 1024.0;  // V x h
    const Replica a100{"A100-40", 1, "us-central1-a"};
    const Prediction one = simulate(onePlan(1, {Stage{0, 25, {a100}}}), sc, job, real, set);
    SAILOR_COMPARE_REL(one.memory[0].model_state_bytes, (all - shared) * 16, 1e-12);
    const Prediction two =
        simulate(onePlan(1, {Stage{0, 12, {a100}}, Stage{13, 25, {a100}}}), sc, job, real, set);
    SAILOR_COMPARE_REL(two.memory[0].model_state_bytes + two.memory[1].model_state_bytes, all * 16,
                       1e-12);
  }

  // (e) A plan that does not fit: reported, not thrown; the message says where and by how much.
  void doesNotFit_data() {
    QTest::addColumn<int>(
        "small_stage");  // which stage of a 2-stage plan runs on SmallMem; -1: one stage
    QTest::addColumn<QStringList>("needles");
    // One stage on SmallMem (150e6 B): 96e6 states + 8e6 activations + 8e6 transient + 24e6
    // gradient bucket + 1e8 runtime = 236e6 B = 0.22 GiB: over by 86e6 B = 0.08 GiB.
    QTest::newRow("one stage") << -1
                               << QStringList({"stage 0 replica 0", "SmallMem", "r1-a",
                                               "needs 0.22 GiB of 0.14 GiB", "over by 0.08 GiB"});
    // Stage 1 of the two-stage pipeline on SmallMem: 48e6 + 5e6 + 8e6 + 12e6 + 1e8 = 173e6 B:
    // over by 23e6 B = 0.02 GiB; stage 0 on G1 fits.
    QTest::newRow("second stage") << 1
                                  << QStringList(
                                         {"stage 1 replica 0", "SmallMem", "over by 0.02 GiB"});
  }
  void doesNotFit() {
    QFETCH(int, small_stage);
    QFETCH(QStringList, needles);
    const Plan plan = small_stage < 0 ? onePlan(1, {Stage{0, 3, {rep("SmallMem", "r1-a")}}})
                                      : onePlan(1, {Stage{0, 1, {rep("G1", "r1-a")}},
                                                    Stage{2, 3, {rep("SmallMem", "r1-a")}}});
    Prediction p;
    try {
      p = run(plan, tinyJob(cat_, 3));
    } catch (const InputError& e) {
      QFAIL(qPrintable(QString("a plan that does not fit must be predicted, not rejected: ") +
                       e.what()));
    }
    QVERIFY(!p.fits);
    QCOMPARE(p.out_of_memory.size(), size_t{1});
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(p.out_of_memory[0]), needles);
    int over = 0;
    for (const auto& m : p.memory)
      if (!m.fits()) {
        ++over;
        QCOMPARE(QString::fromStdString(m.gpu_type), QString("SmallMem"));
        QCOMPARE(m.capacity_bytes, 150e6);
      }
    QCOMPARE(over, 1);
    QVERIFY(p.iteration_s > 0);  // the timing is still predicted
    QCOMPARE(p.toJson().at("fits").get<bool>(), false);
  }

  void invalidPlanThrows() {
    // simulate() validates the plan first: a gap in the layers is an InputError, not a prediction.
    const Plan plan =
        onePlan(1, {Stage{0, 1, {rep("G1", "r1-a")}}, Stage{3, 3, {rep("G1", "r1-a")}}});
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { run(plan, tinyJob(cat_, 1)); }),
                          QStringList({"stages[1].first_layer"}));
  }

  // ---- Profile sources.

  void profileSourceReported() {
    // Native G1 first, then the analytic estimate. G1 is answered by its native profile, G2
    // (no native profile in this set) by the analytic one; memory comes from the native file.
    ProfileSet set;
    set.add(tinyProfile(cat_, "G1", 1.0));
    set.add(std::make_shared<AnalyticProfile>(cat_));
    const Job job = tinyJob(cat_, 2);
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "G1", 1, 1}, job).source),
             QString("native-G1"));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "G2", 1, 1}, job).source),
             QString("analytic"));
    QCOMPARE(
        QString::fromStdString(set.optimizerSecondsPerParameter({"Tiny", "G2", 1, 1}, job).source),
        QString("analytic"));
    QCOMPARE(QString::fromStdString(set.memory("Tiny", 1, job).source), QString("native-G1"));
    // Microbatch 4 was not measured: the analytic profile answers for G1 too.
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "G1", 4, 1}, job).source),
             QString("analytic"));
    // A fp16 job: the fp32 native profile does not answer.
    QCOMPARE(
        QString::fromStdString(set.timings({"Tiny", "G1", 1, 1}, tinyJob(cat_, 2, "fp16")).source),
        QString("analytic"));

    // The prediction lists them.
    const Plan plan =
        onePlan(1, {Stage{0, 1, {rep("G1", "r1-a")}}, Stage{2, 3, {rep("G2", "r1-a")}}});
    const Prediction p = simulate(plan, sc_, job, cat_, set);
    auto source_of = [&](const std::string& key) -> QString {
      for (const auto& [k, v] : p.sources)
        if (k == key) return QString::fromStdString(v);
      return QString("<no entry \"%1\">").arg(QString::fromStdString(key));
    };
    QCOMPARE(source_of("timings G1 mbs 1 tp 1"), QString("native-G1"));
    QCOMPARE(source_of("timings G2 mbs 1 tp 1"), QString("analytic"));
    QCOMPARE(source_of("optimizer G2 tp 1"), QString("analytic"));
    QCOMPARE(source_of("memory Tiny tp 1"), QString("native-G1"));
  }

  void noProfileSourceIsAnInputError() {
    ProfileSet set;
    set.add(tinyProfile(cat_, "G1", 1.0));
    const QString msg = inputErrorOf([&] { set.timings({"Tiny", "G2", 1, 1}, tinyJob(cat_, 1)); });
    SAILOR_VERIFY_MESSAGE(
        msg, QStringList({"profiles", "no timings for Tiny on G2, microbatch 1, tp 1"}));
    const Plan plan = onePlan(1, {Stage{0, 3, {rep("G2", "r1-a")}}});
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { simulate(plan, sc_, tinyJob(cat_, 1), cat_, set); }),
                          QStringList({"no timings for Tiny on G2"}));
  }

  void nativeProfileRejects() {
    // A profile must have one entry per plan layer of its model.
    const json j =
        json::parse(R"({"format": "sailor-studio-profile/1", "model": "Tiny", "gpu_type": "G1",
        "runs": [{"microbatch_size": 1, "tp": 1, "optimizer_seconds_per_parameter": 0,
                  "layers": [{"forward_s": 1, "backward_s": 2}]}]})");
    SAILOR_VERIFY_MESSAGE(
        inputErrorOf([&] { NativeProfile::fromJson(j, cat_, "x"); }),
        QStringList({"runs[0].layers", "1 layers", "4 (embedding, blocks, head of Tiny)"}));
    json wrong = j;
    wrong["format"] = "sailor-studio-profile/2";
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { NativeProfile::fromJson(wrong, cat_, "x"); }),
                          QStringList({"format", "sailor-studio-profile/1"}));
    // Figures beyond any real layer (1e308 overflowed the predicted time and memory to inf).
    const json good = tinyProfile(cat_, "G1", 1.0)->toJson();
    const std::vector<std::pair<json::json_pointer, QStringList>> rows = {
        {json::json_pointer("/runs/0/layers/1/forward_s"),
         {"runs[0].layers[1].forward_s", "1e+308", "seconds from 0 to 3600"}},
        {json::json_pointer("/runs/0/layers/2/backward_s"),
         {"runs[0].layers[2].backward_s", "seconds from 0 to 3600"}},
        {json::json_pointer("/runs/0/layers/0/params"),
         {"runs[0].layers[0].params", "a count from 0 to 1e12"}},
        {json::json_pointer("/runs/0/layers/3/activation_bytes"),
         {"runs[0].layers[3].activation_bytes", "bytes from 0 to 1e13"}},
        {json::json_pointer("/runs/0/layers/1/output_elements"),
         {"runs[0].layers[1].output_elements", "a count from 0 to 1e12"}},
        {json::json_pointer("/runs/0/optimizer_seconds_per_parameter"),
         {"runs[0].optimizer_seconds_per_parameter", "from 0 to 0.001"}},
    };
    QVERIFY(NativeProfile::fromJson(good, cat_, "x") != nullptr);
    for (const auto& [ptr, needles] : rows) {
      json bad = good;
      bad[ptr] = 1e308;
      SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { NativeProfile::fromJson(bad, cat_, "x"); }),
                            needles);
    }
    json no_tokens = good;
    no_tokens["sequence_length"] = 0;
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { NativeProfile::fromJson(no_tokens, cat_, "x"); }),
                          QStringList({"sequence_length", "got 0", "an integer >= 1"}));
  }

  // A profile that says its sequence length answers only for jobs of that length (its times
  // and activations belong to it); the optimizer step, which does not depend on it, for any.
  // Without the field it answers for every length.
  void nativeProfileSequenceLength() {
    json j = tinyProfile(cat_, "G1", 1.0)->toJson();
    const Job job = tinyJob(cat_, 1);
    Job longer = job;
    longer.sequence_length = 2 * job.sequence_length;
    const auto any = NativeProfile::fromJson(j, cat_, "any");
    QVERIFY(any->timings({"Tiny", "G1", 1, 1}, longer).has_value());
    QVERIFY(any->memory("Tiny", 1, longer).has_value());
    j["sequence_length"] = job.sequence_length;
    const auto p = NativeProfile::fromJson(j, cat_, "at-length");
    QCOMPARE(p->sequence_length.value_or(0), job.sequence_length);
    QVERIFY(p->toJson() == j);
    QVERIFY(p->timings({"Tiny", "G1", 1, 1}, job).has_value());
    QVERIFY(p->memory("Tiny", 1, job).has_value());
    QVERIFY(!p->timings({"Tiny", "G1", 1, 1}, longer).has_value());
    QVERIFY(!p->memory("Tiny", 1, longer).has_value());
    QVERIFY(p->optimizerSecondsPerParameter({"Tiny", "G1", 1, 1}, longer).has_value());
    // In a set, a job of another length is answered by the next source, which says so.
    ProfileSet set;
    set.add(p);
    set.add(std::make_shared<AnalyticProfile>(cat_));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "G1", 1, 1}, job).source),
             QString("at-length"));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "G1", 1, 1}, longer).source),
             QString("analytic"));
  }

  void nativeProfileRoundTrip() {
    const auto p = tinyProfile(cat_, "G2", 1.5);
    const auto back = NativeProfile::fromJson(p->toJson(), cat_, "again");
    QVERIFY(back->toJson() == p->toJson());
    QCOMPARE(back->runs.size(), size_t{4});
    SAILOR_COMPARE_REL(back->runs[1].timings[2].backward_s, 6 * 2 * 1.5, 1e-12);
  }

  // ---- The analytic profile on the shipped catalogue.

  void analyticMonotonic_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("precision");
    const Catalog real = Catalog::load(sailor::test::resources());
    for (const auto& g : real.gpus())
      for (const char* prec : {"fp32", "fp16", "bf16"})
        QTest::newRow(qPrintable(QString::fromStdString(g.name) + " " + prec))
            << QString::fromStdString(g.name) << QString(prec);
  }
  void analyticMonotonic() {
    QFETCH(QString, gpu);
    QFETCH(QString, precision);
    const Catalog real = Catalog::load(sailor::test::resources());
    const AnalyticProfile analytic(real);
    const Job job = Job::fromJson(json{{"model", "OPT-350M"},
                                       {"global_batch_size", 64},
                                       {"precision", precision.toStdString()}},
                                  real);
    if (!supportsPrecision(real.gpu(gpu.toStdString(), "gpu"), job.precision)) {
      // No bf16 arithmetic (V100, T4, Turing): no estimate rather than a fp16 one.
      QVERIFY(!analytic.timings({"OPT-350M", gpu.toStdString(), 1, 1}, job).has_value());
      return;
    }
    for (int tp : {1, 2}) {
      std::vector<LayerTiming> previous;
      for (int b : {1, 2, 4, 8}) {
        const auto t = analytic.timings({"OPT-350M", gpu.toStdString(), b, tp}, job);
        QVERIFY(t.has_value());
        QCOMPARE(static_cast<int>(t->size()), 26);
        for (size_t l = 0; l < t->size(); ++l) {
          const LayerTiming& x = (*t)[l];
          QVERIFY2(std::isfinite(x.forward_s) && x.forward_s > 0,
                   qPrintable(QString("layer %1 forward %2").arg(l).arg(x.forward_s)));
          QVERIFY2(std::isfinite(x.backward_s) && x.backward_s > 0,
                   qPrintable(QString("layer %1 backward").arg(l)));
          QVERIFY2(x.backward_s > x.forward_s, "backward does about twice the work of forward");
          if (!previous.empty()) {
            QVERIFY2(x.forward_s > previous[l].forward_s,
                     qPrintable(QString("tp %1 layer %2: forward at microbatch %3 (%4 s) not above "
                                        "microbatch %5 (%6 s)")
                                    .arg(tp)
                                    .arg(l)
                                    .arg(b)
                                    .arg(x.forward_s)
                                    .arg(b / 2)
                                    .arg(previous[l].forward_s)));
            QVERIFY(x.backward_s > previous[l].backward_s);
          }
        }
        previous = *t;
      }
    }
    const auto opt =
        analytic.optimizerSecondsPerParameter({"OPT-350M", gpu.toStdString(), 1, 1}, job);
    QVERIFY(opt.has_value() && std::isfinite(*opt) && *opt > 0);
    // Unknown GPU or model: the analytic source declines rather than guessing.
    QVERIFY(!analytic.timings({"OPT-350M", "B200", 1, 1}, job).has_value());
    QVERIFY(!analytic.memory("GPT-5", 1, job).has_value());
  }

  void defaultPlanSimulates() {
    // The shipped default scenario, job and plan with the analytic profile: a sane prediction.
    const Catalog real = Catalog::load(sailor::test::resources());
    const std::string dir = sailor::test::resources();
    const Scenario sc =
        Scenario::fromJson(json_util::readFile(dir + "/scenarios/default.json"), real);
    const Job job = Job::fromJson(json_util::readFile(dir + "/jobs/default.json"), real);
    const Plan plan = Plan::fromJson(json_util::readFile(dir + "/plans/default.json"));
    ProfileSet set;
    set.add(std::make_shared<AnalyticProfile>(real));
    const Prediction p = simulate(plan, sc, job, real, set);
    QVERIFY(p.fits);
    QVERIFY(std::isfinite(p.iteration_s) && p.iteration_s > 0);
    QCOMPARE(p.memory.size(), size_t{8});
    QCOMPARE(p.stages[0].microbatches, 128);  // 1024 / (2 x 4)
    QVERIFY(p.breakdown.compute_s > 0 && p.breakdown.dp_sync_s > 0 && p.breakdown.p2p_s > 0);
    SAILOR_COMPARE_REL(p.breakdown.compute_s + p.breakdown.bubble_s + p.breakdown.p2p_s +
                           p.breakdown.dp_sync_s + p.breakdown.optimizer_s,
                       p.iteration_s, 1e-9);
    // Replicas span us-central1-a and -b: the all-reduce ring crosses zones and pays egress.
    QVERIFY(p.egress_usd > 0);
    QVERIFY(p.compute_usd > 0);
    const json j = p.toJson();
    QVERIFY(j.at("iteration_s").get<double>() == p.iteration_s);
    QCOMPARE(static_cast<int>(j.at("memory").size()), 8);
  }
};

QTEST_GUILESS_MAIN(TestSimulator)
#include "test_simulator.moc"
