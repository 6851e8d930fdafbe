// The schedules large runs use, as the simulator models them (docs/simulator.md, "Schedules";
// engine/src/simulation/simulator_schedules.cpp), worked by hand: the sharded model state
// (Megatron-LM's table), the interleaved 1F1B order and its bubble ((P - 1) / v of a microbatch's F
// + B), what an overlapped bucketed collective leaves exposed, and whole simulations of the
// two-node Llama-3-8B case (16 H100-80, tp 8 x 2 replicas) under each option against the default.
#include <memory>

#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
#include "simulation/simulator_internal.hpp"
#include "test_support.hpp"

using namespace sailor;
using namespace sailor::sim;
using nlohmann::json;

namespace {

// Equal stages: forward 1 s, backward 2 s per microbatch, no transfer time.
std::vector<StageTimes> equalStages(int P) {
  std::vector<StageTimes> t(static_cast<size_t>(P));
  for (auto& s : t) {
    s.forward_s = 1;
    s.backward_s = 2;
  }
  return t;
}

double lastDone(const PipelineRun& r) {
  double t = 0;
  for (size_t s = 0; s < r.free_at.size(); ++s) t = std::max(t, r.doneAt(s));
  return t;
}

}  // namespace

class TestSchedules : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());
  ProfileSet profiles_;

  // One zone of 16 H100-80 (two nodes of 8) with 100 GB/s between nodes.
  Scenario twoNodes() const {
    return Scenario::fromJson(json::parse(R"({"name": "two nodes",
          "regions": [{"name": "us-central1", "continent": "north-america",
                       "zones": ["us-central1-a"]}],
          "pools": [{"zone": "us-central1-a", "gpu_type": "H100-80", "count": 16,
                     "usd_per_gpu_hour": 11.06}],
          "network": {"defaults": {"same_zone": {"latency_s": 1e-05,
                                                 "bandwidth_gb_per_s": 100.0}}}})"),
                              cat_);
  }
  Job llama8b() const {
    return Job::fromJson(json{{"model", "Llama-3-8B"},
                              {"global_batch_size", 16},
                              {"sequence_length", 4096},
                              {"precision", "bf16"},
                              {"optimizer", "adam"}},
                         cat_);
  }
  // Llama-3-8B (34 plan layers) in `stages` stages of two tp-8 replicas.
  Plan plan(int stages, const Schedule& sch) const {
    Plan p;
    p.microbatch_size = 1;
    const int L = cat_.model("Llama-3-8B", "model").numPlanLayers();
    int first = 0;
    for (int s = 0; s < stages; ++s) {
      const int last = s + 1 == stages ? L - 1 : first + L / stages - 1;
      p.stages.push_back({first, last, std::vector<Replica>(2, {"H100-80", 8, "us-central1-a"})});
      first = last + 1;
    }
    p.schedule = sch;
    return p;
  }

 private slots:
  void initTestCase() { profiles_.add(std::make_shared<AnalyticProfile>(cat_)); }

  // Megatron-LM's distributed-optimizer table, bf16 weights, fp32 gradients, Adam: 18 bytes a
  // parameter without sharding, 6 + 12 / D with it; fully sharded 18 / D; fp32 + Adam 16 (no
  // master copy) and 8 + 8 / D.
  void shardedModelState() {
    Job j = llama8b();
    QCOMPARE(modelStateBytes(1e9, j, DpSharding::None, 8), 18e9);
    QCOMPARE(modelStateBytes(1e9, j, DpSharding::Optimizer, 8), 7.5e9);
    QCOMPARE(modelStateBytes(1e9, j, DpSharding::Full, 8), 18e9 / 8);
    QCOMPARE(modelStateBytes(1e9, j, DpSharding::Optimizer, 1), 18e9);  // nothing to shard over
    j.precision = Precision::Fp32;
    QCOMPARE(modelStateBytes(1e9, j, DpSharding::Optimizer, 4), 1e9 * (8 + 8.0 / 4));
  }

  // P = 2, M = 4, v = 2: groups of P microbatches through chunk 0, then chunk 1; device 0 warms
  // up with (P - 1) x 2 + (v - 1) x P = 4 forwards, device 1 with 2.
  void interleavedOrder() {
    QCOMPARE(interleavedWarmup(2, 0, 4, 2), 4);
    QCOMPARE(interleavedWarmup(2, 1, 4, 2), 2);
    QCOMPARE(interleavedWarmup(2, 1, 2, 2), 4);  // M = P: all forwards first
    const auto ops = interleavedOps(2, 0, 4, 2);
    QCOMPARE(ops.size(), size_t{16});
    const int expect_fwd[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    for (int i = 0; i < 4; ++i) {
      QVERIFY(ops[static_cast<size_t>(i)].forward);
      QCOMPARE(ops[static_cast<size_t>(i)].chunk, expect_fwd[i][0]);
      QCOMPARE(ops[static_cast<size_t>(i)].microbatch, expect_fwd[i][1]);
    }
    // Then one forward (chunk 0 of microbatch 2) and the first backward (chunk 1 of
    // microbatch 0: backwards run the chunks in reverse).
    QVERIFY(ops[4].forward && ops[4].chunk == 0 && ops[4].microbatch == 2);
    QVERIFY(!ops[5].forward && ops[5].chunk == 1 && ops[5].microbatch == 0);
    int f = 0, b = 0;
    for (const auto& o : ops) (o.forward ? f : b)++;
    QCOMPARE(f, 8);
    QCOMPARE(b, 8);
  }

  // Equal stages, no transfer time: the plain 1F1B iteration is M (F + B) + (P - 1)(F + B); the
  // interleaved one M (F + B) + (P - 1)(F + B) / v (Narayanan et al., SC'21, Section 2.2.2).
  void interleavedBubble_data() {
    QTest::addColumn<int>("P");
    QTest::addColumn<int>("M");
    QTest::addColumn<int>("v");
    QTest::newRow("P4 M8 v2") << 4 << 8 << 2;
    QTest::newRow("P4 M8 v4") << 4 << 8 << 4;
    QTest::newRow("P2 M6 v3") << 2 << 6 << 3;
    QTest::newRow("P8 M16 v2") << 8 << 16 << 2;
  }
  void interleavedBubble() {
    QFETCH(int, P);
    QFETCH(int, M);
    QFETCH(int, v);
    const auto t = equalStages(P);
    const PipelineRun plain = runPipeline(t, M, PipelineSchedule::Async1F1B, false);
    SAILOR_COMPARE_REL(lastDone(plain), M * 3.0 + (P - 1) * 3.0, 1e-12);
    PipelineRun r{std::vector<double>(static_cast<size_t>(P), 0.0),
                  std::vector<double>(static_cast<size_t>(P), 0.0),
                  std::vector<double>(static_cast<size_t>(P), 0.0),
                  std::vector<double>(static_cast<size_t>(P), 0.0),
                  {}};
    runInterleaved(t, M, v, r, nullptr);
    SAILOR_COMPARE_REL(lastDone(r), M * 3.0 + (P - 1) * 3.0 / v, 1e-12);
    for (size_t s = 0; s < r.busy.size(); ++s) SAILOR_COMPARE_REL(r.busy[s], M * 3.0, 1e-12);
  }

  // 100 bytes in buckets of 10 over a 10 s phase, ready every 1 s: at 0.05 s a byte each
  // bucket takes 0.5 s and only the last one is exposed; at 0.2 s a byte (2 s a bucket) the
  // buckets queue from the first one, ready at 1 s: it ends at 1 + 10 x 2 = 21 s, 11 s exposed.
  void overlappedCollective() {
    QCOMPARE(exposedAfter(10, 100, 10, [](double b) { return 0.05 * b; }), 0.5);
    QCOMPARE(exposedAfter(10, 100, 10, [](double b) { return 0.2 * b; }), 11.0);
    QCOMPARE(exposedAfter(10, 0, 10, [](double b) { return b; }), 0.0);
  }

  // The two-node case: the gradient sum of 2 replicas over the nodes' link, overlapped with
  // the last backward, waits for less; the distributed optimizer keeps 6 + 12 / 2 bytes a
  // parameter instead of 18, and its step covers half the parameters; selective recomputation
  // keeps less than none and runs the attention core again.
  void twoNodeSchedules() {
    const Scenario sc = twoNodes();
    const Job job = llama8b();
    const Prediction base = simulate(plan(1, {}), sc, job, cat_, profiles_);
    Schedule overlap;
    overlap.overlap_grad_reduce = true;
    const Prediction ov = simulate(plan(1, overlap), sc, job, cat_, profiles_);
    // The same ring, all of it after the drain by default; overlapped, n = ceil(params / 4e7)
    // buckets (Megatron-LM's bucket) of total / n seconds each, ready evenly over the last
    // backward B: exposed max(B / n + total, B + total / n) - B. Over 100 GB/s the 4 GB of fp32
    // gradients a GPU take far longer than the 1-sequence backward: little is hidden.
    const double total = base.stages[0].dp_sync_s;
    const double per_gpu = base.memory[0].model_state_bytes / 18.0;
    const double n = std::ceil(per_gpu / 4e7), B = ov.stages[0].backward_s;
    QVERIFY(total > 0);
    SAILOR_COMPARE_REL(ov.stages[0].dp_sync_s, std::max(B / n + total, B + total / n) - B, 1e-9);
    QVERIFY(ov.iteration_s < base.iteration_s);
    Schedule dist;
    dist.sharding = DpSharding::Optimizer;
    const Prediction dp = simulate(plan(1, dist), sc, job, cat_, profiles_);
    const double params = base.memory[0].model_state_bytes / 18.0;
    SAILOR_COMPARE_REL(dp.memory[0].model_state_bytes, params * (6.0 + 12.0 / 2), 1e-12);
    QCOMPARE(dp.memory[0].gradient_bucket_bytes, 0.0);
    // The default step has the bucket copies (16 bytes a parameter at the memory bandwidth).
    const double bw = cat_.gpu("H100-80", "gpu").memory_bandwidth_gb_per_s * 1e9;
    SAILOR_COMPARE_REL(dp.stages[0].optimizer_s * 2,
                       base.stages[0].optimizer_s - 16.0 * params / bw, 1e-9);
    Schedule full;
    full.sharding = DpSharding::Full;
    const Prediction fs = simulate(plan(1, full), sc, job, cat_, profiles_);
    SAILOR_COMPARE_REL(fs.memory[0].model_state_bytes, params * 18.0 / 2, 1e-12);
    QVERIFY(fs.stages[0].backward_s >= base.stages[0].backward_s);
    Schedule sel;
    sel.recompute = Recompute::Selective;
    const Prediction se = simulate(plan(1, sel), sc, job, cat_, profiles_);
    QVERIFY(se.memory[0].activation_bytes < base.memory[0].activation_bytes);
    QVERIFY(se.stages[0].backward_s > base.stages[0].backward_s);
    QVERIFY(se.stages[0].forward_s == base.stages[0].forward_s);
  }

  // Two stages, 16 microbatches: interleaving 2 chunks shrinks the bubble; a chunk needs a
  // layer, and a plan of one stage has nothing to interleave (errors naming the field).
  void interleavedPlan() {
    const Scenario sc = twoNodes();
    Job job = llama8b();
    job.global_batch_size = 32;
    Plan p2 = plan(2, {});
    for (auto& st : p2.stages) st.replicas.resize(1);
    const Prediction a = simulate(p2, sc, job, cat_, profiles_, {});
    Schedule v2;
    v2.virtual_stages = 2;
    p2.schedule = v2;
    SimulatorOptions async;
    async.schedule = PipelineSchedule::Async1F1B;
    const Prediction b = simulate(p2, sc, job, cat_, profiles_, async);
    p2.schedule = {};
    const Prediction c = simulate(p2, sc, job, cat_, profiles_, async);
    QVERIFY2(b.iteration_s < c.iteration_s, "interleaving shrinks the 1F1B bubble");
    QVERIFY(a.iteration_s > 0);
    Plan one = plan(1, v2);
    const QString e1 = test::inputErrorOf([&] { one.validate(job, cat_, sc); });
    SAILOR_VERIFY_MESSAGE(e1,
                          (QStringList{"schedule.virtual_stages", "1 for a plan of one stage"}));
    Schedule v40;
    v40.virtual_stages = 40;
    Plan deep = plan(2, v40);
    const QString e2 = test::inputErrorOf([&] { deep.validate(job, cat_, sc); });
    SAILOR_VERIFY_MESSAGE(e2,
                          (QStringList{"schedule.virtual_stages", "a chunk holds at least one"}));
  }

  // NOTE [Model chunks]: the virtual stages take the blocks in order, each stage keeping its own
  // block count. 24 blocks (plan layers 0-25) in 12 + 12, v = 2: stage 0 holds the embedding and
  // blocks 1-6, then 13-18; stage 1 blocks 7-12, then 19-24 and the head. In 8 + 9 + 7 over three
  // stages the chunks differ by one block (the first the larger): 4 + 4, 5 + 4, 4 + 3.
  void modelChunks() {
    using Ranges = std::vector<std::pair<int, int>>;
    Plan two;
    two.stages = {Stage{0, 12, {}}, Stage{13, 25, {}}};
    QCOMPARE(two.chunkLayers(1), (Ranges{{13, 25}}));  // one chunk without interleaving
    two.schedule.virtual_stages = 2;
    QCOMPARE(two.chunkLayers(0), (Ranges{{0, 6}, {13, 18}}));
    QCOMPARE(two.chunkLayers(1), (Ranges{{7, 12}, {19, 25}}));
    Plan three;
    three.stages = {Stage{0, 8, {}}, Stage{9, 17, {}}, Stage{18, 25, {}}};
    three.schedule.virtual_stages = 2;
    QCOMPARE(three.chunkLayers(0), (Ranges{{0, 4}, {14, 17}}));
    QCOMPARE(three.chunkLayers(1), (Ranges{{5, 9}, {18, 21}}));
    QCOMPARE(three.chunkLayers(2), (Ranges{{10, 13}, {22, 25}}));
    three.schedule.virtual_stages = 8;
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] { three.checkInterleaving(); }),
                          (QStringList{"schedule.virtual_stages", "got 8",
                                       "at most the 7 transformer blocks of stages[2]"}));
  }

  // Megatron-LM's rule: every pipeline's microbatches in whole groups of P (its order deadlocks
  // for some other counts: P = 4, M = 5, v = 3 is one). Two stages of two replicas at b = 1:
  // G = 12 gives 6 a pipeline, G = 6 gives 3 and G = 7 gives 4 and 3.
  void interleavingNeedsWholeGroups() {
    Plan p = plan(2, {});
    p.schedule.virtual_stages = 2;
    QVERIFY(p.interleavingFits(12));
    QVERIFY(!p.interleavingFits(6));
    QVERIFY(!p.interleavingFits(7));
    SAILOR_VERIFY_MESSAGE(
        test::inputErrorOf([&] { p.checkGlobalBatch(6); }),
        (QStringList{"schedule.virtual_stages", "got 2", "global batch of 6 microbatches",
                     "whole groups of the 2 stages"}));
    p.checkGlobalBatch(12);
    // The order the simulator times and the runtime runs completes in every such case.
    for (int P = 2; P <= 5; ++P)
      for (int v = 2; v <= 4; ++v)
        for (int M = P; M <= 4 * P; M += P) {
          int total = 0;
          for (int d = 0; d < P; ++d) total += static_cast<int>(interleavedOps(P, d, M, v).size());
          QCOMPARE(total, 2 * P * M * v);
          std::vector<StageTimes> st = equalStages(P);
          PipelineRun r{std::vector<double>(P, 0.0),
                        std::vector<double>(P, 0.0),
                        std::vector<double>(P, 0.0),
                        std::vector<double>(P, 0.0),
                        {}};
          runInterleaved(st, M, v, r, nullptr);
          QVERIFY(lastDone(r) > 0);
        }
  }

  // The interleaved order where ranks share a node's compute (the runtime's own prediction on
  // CPU, NOTE [Ranks sharing a device]): two stages of F 1, B 2 a microbatch, v = 2 (chunks F 0.5,
  // B 1), M = 2 (all forwards first), free transfers, two ranks computing at once each at half
  // speed. Device 0: F(c0, 0) 0-0.5 alone; then with device 1 F(c0, 1) / F(c0, 0) 0.5-1.5,
  // F(c1, 0) / F(c0, 1) 1.5-2.5, F(c1, 1) / F(c1, 0) 2.5-3.5; device 1 alone F(c1, 1) 3.5-4 and
  // B(c1, 0) 4-5; together B 5-7, 7-9, 9-11; device 0's last B(c0, 1) alone 11-12.
  void interleavedOnSharedCompute() {
    GpuType g;
    g.name = "shared";
    g.shared_compute_slowdown = {1, 2};
    Replica rep{"shared", 1, "z"};
    ReplicaData d;
    d.replica = &rep;
    d.gpu = &g;
    d.site = 0;
    SharedComputeInput in;
    in.pipelines = {equalStages(2)};
    in.replicas = {{&d, &d}};
    in.step_s = {{0.0, 0.0}};
    in.sync_s = {0.0, 0.0};
    in.virtual_stages = 2;
    const SharedComputeRun r = runSharedCompute(in, 2, PipelineSchedule::Async1F1B, true);
    QCOMPARE(r.stage_end.size(), size_t{2});
    SAILOR_COMPARE_REL(r.stage_end[0], 12.0, 1e-12);
    SAILOR_COMPARE_REL(r.stage_end[1], 11.0, 1e-12);
  }

  // The timeline of an overlapped reduction ('R') starts with the stage's last backward, beside
  // it; without overlap the all-reduce ('A') starts after it.
  void overlappedReductionInTheTimeline() {
    const Scenario sc = twoNodes();
    const Job job = llama8b();
    SimulatorOptions opt;
    opt.timeline = true;
    for (const bool overlap : {false, true}) {
      Schedule sch;
      sch.overlap_grad_reduce = overlap;
      const Prediction p = simulate(plan(1, sch), sc, job, cat_, profiles_, opt);
      double last_b_start = -1, last_b_end = -1;
      const TimelineOp* reduction = nullptr;
      for (const TimelineOp& op : p.timeline) {
        if (op.kind == 'B' && op.start_s > last_b_start) {
          last_b_start = op.start_s;
          last_b_end = op.end_s;
        }
        if (op.kind == (overlap ? 'R' : 'A')) reduction = &op;
      }
      QVERIFY2(reduction, overlap ? "no overlapped reduction" : "no all-reduce");
      if (overlap) {
        SAILOR_COMPARE_REL(reduction->start_s, last_b_start, 1e-12);
        QVERIFY(reduction->end_s > last_b_end);
      } else {
        QVERIFY(reduction->start_s >= last_b_end - 1e-12);
      }
    }
  }

  // The plan format: the schedule round-trips; unknown keys and values are refused by name.
  void planFormat() {
    Plan p = plan(2, {});
    p.schedule.overlap_grad_reduce = true;
    p.schedule.sharding = DpSharding::Optimizer;
    p.schedule.virtual_stages = 2;
    p.schedule.recompute = Recompute::Selective;
    const Plan back = Plan::fromJson(p.toJson());
    QVERIFY(back == p);
    QVERIFY(!plan(2, {}).toJson().contains("schedule"));
    json bad = p.toJson();
    bad["schedule"]["sharding"] = "zero2";
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] { (void)Plan::fromJson(bad); }),
                          QStringList({"schedule.sharding", "\"zero2\"", "\"optimizer\""}));
    bad = p.toJson();
    bad["schedule"]["virtual_stages"] = 0;
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] { (void)Plan::fromJson(bad); }),
                          QStringList({"schedule.virtual_stages"}));
    bad = p.toJson();
    bad["schedule"]["overlap"] = true;
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] { (void)Plan::fromJson(bad); }),
                          QStringList({"overlap"}));
  }
};

QTEST_GUILESS_MAIN(TestSchedules)
#include "test_schedules.moc"
