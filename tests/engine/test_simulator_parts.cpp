// The simulator's steps (simulator_internal.hpp) one by one, on instances small enough to
// work out by hand: gather replicas, place on nodes, memory, links, egress, boundary transfers,
// the data-parallel pipelines, the schedules, sync and step, breakdown, timeline order and cost.
// test_simulator checks simulate() as a whole; here each expectation states its reason beside it.
//
// The world: the tests' two-block model "Tiny" (4 plan layers) and GPU types G1 and G2 (1e9 B,
// 1e8 B runtime overhead, 4 GPUs per node). Scenario: zones r1-a and r2-a in two regions of one
// continent; same zone and region 0.5 s + 1 GB/s, same continent 0.1 s + 0.1 GB/s, inside a node
// 0.2 s + 10 GB/s. Egress $/GB: same continent 0.05, r2-a -> r1-a 0.2. G1 costs $3.6/GPU-hour in
// r1-a, G2 $1.8; G1 in r2-a $7.2.
#include <memory>
#include <string>
#include <vector>

#include <QObject>
#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
#include "simulation/simulator_internal.hpp"
#include "test_support.hpp"

using namespace sailor;
using namespace sailor::sim;
using nlohmann::json;

namespace {

Catalog tinyCatalog() {
  json gpus{
      {"gpus",
       {sailor::test::gpuJson("G1", 10, 1000000000), sailor::test::gpuJson("G2", 5, 1000000000)}}};
  json models{{"models", {sailor::test::tinyModelJson("Tiny", false)}}};
  return Catalog::fromJson(gpus, models);
}

Scenario tinyScenario(const Catalog& cat) {
  const json j = json::parse(R"({
    "name": "parts",
    "regions": [
      {"name": "r1", "continent": "c1", "zones": ["r1-a"]},
      {"name": "r2", "continent": "c1", "zones": ["r2-a"]}
    ],
    "pools": [
      {"zone": "r1-a", "gpu_type": "G1", "count": 16, "usd_per_gpu_hour": 3.6},
      {"zone": "r1-a", "gpu_type": "G2", "count": 16, "usd_per_gpu_hour": 1.8},
      {"zone": "r2-a", "gpu_type": "G1", "count": 16, "usd_per_gpu_hour": 7.2}
    ],
    "network": {"defaults": {
      "same_zone": {"latency_s": 0.5, "bandwidth_gb_per_s": 1.0},
      "same_region": {"latency_s": 0.5, "bandwidth_gb_per_s": 1.0},
      "same_continent": {"latency_s": 0.1, "bandwidth_gb_per_s": 0.1},
      "cross_continent": {"latency_s": 1.0, "bandwidth_gb_per_s": 0.01}
    }, "intra_node": [
      {"gpu_type": "G1", "model": {"kind": "latency_bandwidth", "latency_s": 0.2, "bandwidth_gb_per_s": 10.0}},
      {"gpu_type": "G2", "model": {"kind": "latency_bandwidth", "latency_s": 0.2, "bandwidth_gb_per_s": 10.0}}
    ]},
    "egress_usd_per_gb": {
      "defaults": {"same_zone": 0, "same_region": 0.01, "same_continent": 0.05, "cross_continent": 0.1},
      "pairs": [{"from_zone": "r2-a", "to_zone": "r1-a", "usd_per_gb": 0.2}]
    }
  })");
  return Scenario::fromJson(j, cat);
}

// Native profile at tp 1 and microbatch 1 and 2, per plan layer 0-3: forward 1, 2, 3, 1 s x b
// x time_scale, backward twice that; params 1e6, 2e6, 2e6, 1e6; activations 1e6, 2e6, 4e6, 1e6
// B per sequence; output elements 2.5e8 for layers 0-2, 1 for the head; optimizer 1e-6 s per
// parameter x time_scale.
std::shared_ptr<NativeProfile> tinyProfile(const Catalog& cat, const std::string& gpu,
                                           double time_scale) {
  std::vector<sailor::test::TinyRun> runs;
  for (int b : {1, 2}) runs.push_back({b, 1, {static_cast<double>(b), time_scale}});
  return sailor::test::tinyNativeProfile(cat, gpu, "native-" + gpu, {1, 2, 3, 1}, 2.5e8,
                                         1e-6 * time_scale, runs);
}

Job tinyJob(const Catalog& cat, int global_batch_size) {
  return Job::fromJson(
      json{{"model", "Tiny"}, {"global_batch_size", global_batch_size}, {"precision", "fp32"}},
      cat);
}

// A replica's figures written out, for the steps after gatherReplicas. `replica` must outlive
// the result.
ReplicaData figures(const Replica& replica, const GpuType& gpu, int site, int node = 0) {
  ReplicaData d;
  d.replica = &replica;
  d.gpu = &gpu;
  d.site = site;
  d.node = node;
  d.gpus_per_node = 4;
  return d;
}

}  // namespace

class TestSimulatorParts : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;
  Scenario sc_;
  ProfileSet profiles_;
  // Replicas the hand-made figures point to: G1 in r1-a (site 0), G1 in r2-a (site 1), G1 in
  // r1-a at tp 2 (site 0).
  Replica g1_a_{"G1", 1, "r1-a"}, g1_b_{"G1", 1, "r2-a"}, g1_a_tp2_{"G1", 2, "r1-a"};

 private slots:
  void initTestCase() {
    try {
      cat_ = tinyCatalog();
      sc_ = tinyScenario(cat_);
      profiles_.add(tinyProfile(cat_, "G1", 1.0));
      profiles_.add(tinyProfile(cat_, "G2", 1.5));
    } catch (const InputError& e) {
      QFAIL(e.what());
    }
  }

  // ---- 1. gatherReplicas
  void gatherSumsTheStagesLayers() {
    Plan plan;
    plan.microbatch_size = 2;
    plan.stages = {Stage{0, 1, {{"G1", 1, "r1-a"}, {"G1", 1, "r1-a"}, {"G2", 1, "r1-a"}}},
                   Stage{2, 3, {{"G1", 1, "r1-a"}}}};
    const GatheredReplicas g = gatherReplicas(plan, sc_, tinyJob(cat_, 8), cat_, profiles_);
    QCOMPARE(g.stages.size(), size_t{2});
    QCOMPARE(g.stages[0].size(), size_t{3});
    QCOMPARE(g.stages[1].size(), size_t{1});
    const ReplicaData& a = g.stages[0][0];
    QCOMPARE(a.forward_s, 6.0);                     // layers 0-1: (1 + 2) s x b 2
    QCOMPARE(a.backward_s, 12.0);                   // twice the forward
    QCOMPARE(a.params, 3e6);                        // 1e6 + 2e6
    QCOMPARE(a.activation_bytes_per_seq, 3e6);      // 1e6 + 2e6
    QCOMPARE(a.max_layer_activation_per_seq, 2e6);  // layer 1's, the larger
    QCOMPARE(a.output_elements, 2.5e8);             // of layer 1, the stage's last
    QCOMPARE(a.optimizer_s_per_param, 1e-6);
    QCOMPARE(a.tied_params, 0.0);  // Tiny's head is not tied
    QCOMPARE(a.usd_per_gpu_hour, 3.6);
    QCOMPARE(a.gpus_per_node, 4);  // the catalogue's
    // The second G1 is of the same kind: the same figures, its own replica.
    QCOMPARE(g.stages[0][1].forward_s, 6.0);
    QVERIFY(g.stages[0][1].replica == &plan.stages[0].replicas[1]);
    // G2 runs 1.5 times slower: 9 s forward; it stands on a site of its own.
    QCOMPARE(g.stages[0][2].forward_s, 9.0);
    QCOMPARE(g.stages[0][2].usd_per_gpu_hour, 1.8);
    // Sites: (r1-a, G1) is 0, (r1-a, G2) is 1; stage 1's G1 in r1-a shares site 0.
    QCOMPARE(a.site, 0);
    QCOMPARE(g.stages[0][1].site, 0);
    QCOMPARE(g.stages[0][2].site, 1);
    QCOMPARE(g.stages[1][0].site, 0);
    QCOMPARE(g.site_replica.size(), size_t{2});
    QCOMPARE(g.site_replica[1]->gpu_type, std::string("G2"));
    // Stage 1, layers 2-3: forward (3 + 1) x 2 = 8 s; the head's single output element.
    QCOMPARE(g.stages[1][0].forward_s, 8.0);
    QCOMPARE(g.stages[1][0].output_elements, 1.0);
    // Every figure's source is named, once per (GPU type, microbatch, tp).
    QCOMPARE(g.sources.at("timings G1 mbs 2 tp 1"), std::string("native-G1"));
    QCOMPARE(g.sources.at("timings G2 mbs 2 tp 1"), std::string("native-G2"));
    QVERIFY(g.sources.count("memory Tiny tp 1") == 1);
    QVERIFY(g.sources.count("optimizer G2 tp 1") == 1);
  }

  // ---- 2. placeOnNodes
  void placementFillsNodesTpAtATime() {
    const GpuType& gpu = cat_.gpu("G1", "");
    Replica tp2{"G1", 2, "r1-a"}, tp4{"G1", 4, "r1-a"}, other{"G1", 2, "r2-a"};
    StageReplicas stages{{figures(tp2, gpu, 0), figures(tp2, gpu, 0), figures(other, gpu, 1)},
                         {figures(tp2, gpu, 0), figures(tp4, gpu, 0)}};
    placeOnNodes(stages);
    QCOMPARE(stages[0][0].node, 0);  // site 0's GPUs 0-1
    QCOMPARE(stages[0][1].node, 0);  // GPUs 2-3: node 0 is full
    QCOMPARE(stages[0][2].node, 0);  // site 1 counts its own nodes
    QCOMPARE(stages[1][0].node, 1);  // GPUs 4-5
    QCOMPARE(stages[1][1].node, 2);  // 4 GPUs do not fit beside 2 on node 1: GPUs 8-11
  }

  // ---- stageMicrobatches
  void microbatchesPerStage() {
    Plan plan;
    plan.microbatch_size = 2;
    plan.stages = {Stage{0, 1, {g1_a_, g1_a_}}, Stage{2, 3, {g1_a_}}};
    // G 8, b 2: 2 replicas take 8 / (2 x 2) = 2 microbatches each, one replica 4.
    QCOMPARE(stageMicrobatches(plan, tinyJob(cat_, 8)), (std::vector<int>{2, 4}));
    // G 7: ceil(7 / 4) = 2, ceil(7 / 2) = 4.
    QCOMPARE(stageMicrobatches(plan, tinyJob(cat_, 7)), (std::vector<int>{2, 4}));
  }

  // NOTE [Communicator buffers]: the groups the runtime creates (runner/src/training/comm.cpp
  // allGroups, P2p) that each GPU belongs to.
  void gpuGroupsOfAPlan() {
    Plan plan;
    plan.microbatch_size = 1;
    const Replica tp2{"G1", 2, "r1-a"}, tp1{"G1", 1, "r1-a"};
    // Stage 0: two tp-2 replicas; stage 1: three tp-1 replicas.
    plan.stages = {Stage{0, 1, {tp2, tp2}}, Stage{2, 3, {tp1, tp1, tp1}}};
    // Replica 0 of stage 0: its tp group (2), its data-parallel group (2), and the tied
    // embedding group of stage 0 and 1 (2 x 2 + 3 x 1 = 7 ranks); three pairs across the
    // boundary (max(2, 3)), j = 0 and 2 join replica 0 (j mod 2): two p2p peers.
    GpuGroups g = gpuGroups(plan, true, 0, 0);
    QCOMPARE(g.collective_sizes, (std::vector<int>{2, 2, 7}));
    QCOMPARE(g.p2p_peers, 2);
    // Replica 1 of stage 0: only pair j = 1.
    QCOMPARE(gpuGroups(plan, true, 0, 1).p2p_peers, 1);
    // Replica 2 of stage 1, untied: no tp group, a data-parallel group of 3, pair j = 2.
    g = gpuGroups(plan, false, 1, 2);
    QCOMPARE(g.collective_sizes, (std::vector<int>{3}));
    QCOMPARE(g.p2p_peers, 1);
    // Mixed tp degrees in a stage: the padded data-parallel group of all its ranks (2 + 1).
    Plan mixed;
    mixed.microbatch_size = 1;
    mixed.stages = {Stage{0, 3, {tp2, tp1}}};
    QCOMPARE(gpuGroups(mixed, false, 0, 1).collective_sizes, (std::vector<int>{3}));
    QCOMPARE(gpuGroups(mixed, false, 0, 0).collective_sizes, (std::vector<int>{2, 3}));
    // A middle stage of one replica between stages of two and three: every pair of both
    // boundaries is its own (2 + 3 peers), and the per-stage shape gives what the plan does.
    Plan deep;
    deep.microbatch_size = 1;
    deep.stages = {Stage{0, 1, {tp1, tp1}}, Stage{2, 2, {tp2}}, Stage{3, 3, {tp1, tp1, tp1}}};
    QCOMPARE(gpuGroups(deep, false, 1, 0).p2p_peers, 5);
    QCOMPARE(gpuGroups(deep, false, 1, 0).collective_sizes, (std::vector<int>{2}));
    QCOMPARE(gpuGroups(stageGroupShape(deep, false, 2), 1, 1).p2p_peers, 1);
    // One process: no group at all.
    Plan one;
    one.microbatch_size = 1;
    one.stages = {Stage{0, 3, {tp1}}};
    g = gpuGroups(one, true, 0, 0);
    QVERIFY(g.collective_sizes.empty());
    QCOMPARE(g.p2p_peers, 0);
  }
  void communicatorBuffers() {
    GpuType gpu = cat_.gpu("G1", "");
    const GpuGroups groups{{8, 2}, 1};  // tp 8, data-parallel 2, one p2p peer
    // No nccl_channels: not modelled.
    QCOMPARE(communicatorBytes(gpu, groups), 0.0);
    gpu.nccl_channels = 2;
    // Per connection NCCL's defaults: 4 MiB + 512 KiB + 4,915,200 B = 9,633,792 B. The tp group
    // of 8: 2 channels x (ring 1 + tree 2); the pair: 2 x (1 + 1); the p2p peer 2 channels:
    // 6 + 4 + 2 = 12 connections.
    const double conn = 4194304.0 + 524288.0 + 4915200.0;
    SAILOR_COMPARE_REL(communicatorBytes(gpu, groups), 12 * conn, 1e-12);
    // A ring's buffers do not grow with its size: tp 4 holds what tp 8 does.
    SAILOR_COMPARE_REL(communicatorBytes(gpu, {{4, 2}, 1}), 12 * conn, 1e-12);
    gpu.nccl_connection_bytes = 1000;
    SAILOR_COMPARE_REL(communicatorBytes(gpu, groups), 12000.0, 1e-12);
    // In the memory breakdown and its total.
    ReplicaData d = figures(g1_a_, gpu, 0);
    const MemoryBreakdown m = replicaMemory(d, 0, 0, 1, 1, 1, tinyJob(cat_, 8), groups);
    QCOMPARE(m.communicator_bytes, 12000.0);
    QCOMPARE(m.communicators, 3);
    SAILOR_COMPARE_REL(m.total_bytes, 1e8 + 12000.0, 1e-12);
  }

  // ---- 3. replicaMemory, outOfMemoryMessage, stageCompute
  void memoryOfOneGpu() {
    ReplicaData d = figures(g1_a_, cat_.gpu("G1", ""), 0);
    d.params = 3e6;
    d.activation_bytes_per_seq = 3e6;
    d.max_layer_activation_per_seq = 2e6;
    const Job job = tinyJob(cat_, 8);
    // Stage 0 of 2, 4 microbatches of 2 sequences: min(2 - 0, 4) = 2 in flight.
    const MemoryBreakdown m = replicaMemory(d, 0, 1, 2, 4, 2, job);
    QCOMPARE(m.stage, 0);
    QCOMPARE(m.replica, 1);
    QCOMPARE(m.model_state_bytes, 48e6);  // 3e6 parameters x 16 B (fp32 Adam)
    QCOMPARE(m.microbatches_in_flight, 2);
    QCOMPARE(m.activation_bytes, 12e6);       // 3e6 B x b 2 x 2 in flight
    QCOMPARE(m.transient_bytes, 8e6);         // 2 x 2e6 B (largest layer) x b 2
    QCOMPARE(m.gradient_bucket_bytes, 12e6);  // 3e6 fp32 gradients, under 5e8
    QCOMPARE(m.runtime_overhead_bytes, 1e8);
    QCOMPARE(m.total_bytes, 180e6);  // 48 + 12 + 8 + 12 + 100 MB
    QCOMPARE(m.capacity_bytes, 1e9);
    QVERIFY(m.fits());
    // Stage 1 of 2 holds one microbatch; stage 0 of 3 with one microbatch holds only that one.
    QCOMPARE(replicaMemory(d, 1, 0, 2, 4, 2, job).microbatches_in_flight, 1);
    QCOMPARE(replicaMemory(d, 0, 0, 3, 1, 2, job).microbatches_in_flight, 1);
  }
  void outOfMemoryNamesTheGpu() {
    MemoryBreakdown m;
    m.stage = 1;
    m.replica = 0;
    m.gpu_type = "G1";
    m.tp = 2;
    m.zone = "r1-a";
    m.total_bytes = 1.5 * 1024 * 1024 * 1024;
    m.capacity_bytes = 1024.0 * 1024 * 1024;
    QCOMPARE(outOfMemoryMessage(m),
             std::string("stage 1 replica 0 (G1, tp 2, r1-a) needs 1.50 GiB of 1.00 GiB: over "
                         "by 0.50 GiB"));
  }
  void stragglerSetsTheStagesTimes() {
    const GpuType& gpu = cat_.gpu("G1", "");
    StageReplicas stages{{figures(g1_a_, gpu, 0), figures(g1_a_, gpu, 0), figures(g1_a_, gpu, 0)},
                         {figures(g1_a_, gpu, 0)}};
    stages[0][0].forward_s = 3, stages[0][0].backward_s = 6;
    stages[0][1].forward_s = 4.5, stages[0][1].backward_s = 9;  // the slowest
    stages[0][2].forward_s = 4.5, stages[0][2].backward_s = 9;  // as slow: the first one stays
    stages[1][0].forward_s = 1, stages[1][0].backward_s = 2;
    const std::vector<StageTimes> t = stageCompute(stages, {2, 4});
    QCOMPARE(t[0].forward_s, 4.5);
    QCOMPARE(t[0].backward_s, 9.0);
    QCOMPARE(t[0].straggler_replica, 1);
    QCOMPARE(t[0].microbatches, 2);
    QCOMPARE(t[1].straggler_replica, 0);
    QCOMPARE(t[1].microbatches, 4);
    QCOMPARE(t[1].send_forward_s, 0.0);  // transfers come later
  }

  // ---- 4. Links and EgressLedger
  void linksBetweenNodes() {
    const GpuType& gpu = cat_.gpu("G1", "");
    Links links(sc_, cat_, {&g1_a_, &g1_b_});
    const ReplicaData x = figures(g1_a_, gpu, 0, 0), x2 = figures(g1_a_tp2_, gpu, 0, 0),
                      x_other = figures(g1_a_, gpu, 0, 1), y = figures(g1_b_, gpu, 1, 0);
    // One node: its fabric, 0.2 s + 1e9 B / 10 GB/s = 0.3 s.
    QVERIFY(Links::sameNode(x, x2));
    SAILOR_COMPARE_REL(links.between(x, x2, 1).transferSeconds(1e9, 1), 0.3, 1e-12);
    // Another node of the same zone: the same-zone link, 0.5 s + 1 s.
    QVERIFY(!Links::sameNode(x, x_other));
    SAILOR_COMPARE_REL(links.between(x, x_other, 1).transferSeconds(1e9, 1), 1.5, 1e-12);
    // Another zone of the continent: 0.1 s + 1e9 B / 0.1 GB/s = 10.1 s.
    SAILOR_COMPARE_REL(links.between(x, y, 1).transferSeconds(1e9, 1), 10.1, 1e-12);
    // The node's fabric whatever the partner.
    SAILOR_COMPARE_REL(links.node(y).transferSeconds(1e9, 1), 0.3, 1e-12);
    // A ring's GPUs: the replica's tp ranks between nodes, one pair inside a node.
    QCOMPARE(Links::ringGpus(x2, y), 2);
    QCOMPARE(Links::ringGpus(x2, x), 1);
  }
  void egressAddsUpPerZonePair() {
    EgressLedger e;
    e.add("r1-a", "r2-a", 1e9);
    e.add("r2-a", "r1-a", 2e9);
    e.add("r1-a", "r2-a", 3e9);  // the same pair: added to the first item
    e.add("r1-a", "r1-a", 5e9);  // inside a zone: free, not recorded
    e.add("r2-a", "r1-a", 0);    // nothing sent
    QCOMPARE(e.items().size(), size_t{2});
    QCOMPARE(e.items()[0].bytes, 4e9);
    std::vector<EgressItem> items = e.release();
    // 4 GB at the continent's 0.05 $/GB = 0.2; 2 GB at the pair's 0.2 $/GB = 0.4.
    SAILOR_COMPARE_REL(priceEgress(items, sc_), 0.6, 1e-12);
    SAILOR_COMPARE_REL(items[0].usd, 0.2, 1e-12);
    SAILOR_COMPARE_REL(items[1].usd, 0.4, 1e-12);
  }

  // ---- 5. boundaryTransfers
  void boundaryPairsAndTheirBytes() {
    const GpuType& gpu = cat_.gpu("G1", "");
    // Stage 0: one G1 in r1-a; stage 1: a G1 in r1-a on another node and a G1 in r2-a. The
    // single sender serves both: pairs (0, 0) and (0, 1).
    StageReplicas stages{{figures(g1_a_, gpu, 0, 0)},
                         {figures(g1_a_, gpu, 0, 1), figures(g1_b_, gpu, 1, 0)}};
    stages[0][0].output_elements = 2.5e8;  // x b 1 x 4 B (fp32) = 1e9 B per message
    Links links(sc_, cat_, {&g1_a_, &g1_b_});
    EgressLedger egress;
    std::vector<StageTimes> times(2);
    const auto pairs = boundaryTransfers(stages, {4, 2}, 1, 4, links, egress, times);
    QCOMPARE(pairs.size(), size_t{2});
    QCOMPARE(pairs[0].size(), size_t{2});
    QVERIFY(pairs[1].empty());  // no boundary after the last stage
    // Same zone: 0.5 s + 1e9 B / 1 GB/s, both ways.
    SAILOR_COMPARE_REL(pairs[0][0].forward_s, 1.5, 1e-12);
    SAILOR_COMPARE_REL(pairs[0][0].backward_s, 1.5, 1e-12);
    // To r2-a: 0.1 s + 1e9 B / 0.1 GB/s, both ways.
    SAILOR_COMPARE_REL(pairs[0][1].forward_s, 10.1, 1e-12);
    SAILOR_COMPARE_REL(pairs[0][1].backward_s, 10.1, 1e-12);
    // The stages carry the slowest pair's.
    SAILOR_COMPARE_REL(times[0].send_forward_s, 10.1, 1e-12);
    SAILOR_COMPARE_REL(times[1].send_backward_s, 10.1, 1e-12);
    QCOMPARE(times[0].send_backward_s, 0.0);
    QCOMPARE(times[1].send_forward_s, 0.0);
    // Egress: the sender's 4 microbatches split over its 2 pairs, 2 x 1e9 B each way to r2-a;
    // nothing inside r1-a.
    QCOMPARE(egress.items().size(), size_t{2});
    QCOMPARE(egress.items()[0].from_zone, std::string("r1-a"));
    QCOMPARE(egress.items()[0].bytes, 2e9);
    QCOMPARE(egress.items()[1].from_zone, std::string("r2-a"));
    QCOMPARE(egress.items()[1].bytes, 2e9);
  }

  // ---- 6. dataParallelPipelines, deepSpeedOps, runPipeline, stageDone
  void pipelinesKeepOnlyTheSlowOnes() {
    const GpuType& gpu = cat_.gpu("G1", "");
    StageReplicas stages{{figures(g1_a_, gpu, 0), figures(g1_a_, gpu, 0)},
                         {figures(g1_a_, gpu, 0), figures(g1_a_, gpu, 0)}};
    for (auto& reps : stages)
      for (auto& d : reps) d.forward_s = 1, d.backward_s = 2;
    std::vector<std::vector<PairSeconds>> pairs{{{0.5, 0.5}, {0.5, 0.5}}, {}};
    std::vector<StageTimes> times(2);
    // Identical pipelines: one is simulated.
    auto p = dataParallelPipelines(stages, times, pairs, {4, 4});
    QCOMPARE(p.size(), size_t{1});
    QCOMPARE(p[0][0].send_forward_s, 0.5);  // pipeline 0's own pair
    QCOMPARE(p[0][1].send_backward_s, 0.5);
    QCOMPARE(p[0][1].microbatches, 4);
    // A slow GPU in pipeline 0 and a slow link in pipeline 1: neither is nowhere slower than
    // the other, both are simulated, each with its own figures.
    stages[0][0].forward_s = 2;
    pairs[0][1] = {3.0, 3.0};
    p = dataParallelPipelines(stages, times, pairs, {4, 4});
    QCOMPARE(p.size(), size_t{2});
    QCOMPARE(p[0][0].forward_s, 2.0);
    QCOMPARE(p[0][0].send_forward_s, 0.5);
    QCOMPARE(p[1][0].forward_s, 1.0);
    QCOMPARE(p[1][0].send_forward_s, 3.0);
    // Pipeline 1 slower everywhere: it replaces pipeline 0.
    stages[0][0].forward_s = 1;
    p = dataParallelPipelines(stages, times, pairs, {4, 4});
    QCOMPARE(p.size(), size_t{1});
    QCOMPARE(p[0][0].send_forward_s, 3.0);
    // Different degrees: the straggler and slowest-pair figures, as given.
    stages[1].pop_back();
    times[0].forward_s = 7;
    p = dataParallelPipelines(stages, times, pairs, {4, 8});
    QCOMPARE(p.size(), size_t{1});
    QCOMPARE(p[0][0].forward_s, 7.0);
  }
  void deepSpeedInstructionOrder() {
    // P 2, M 2, worked through DeepSpeed's TrainSchedule: stage 0 runs forwards on even steps,
    // stage 1 on odd ones; each sends the previous step's output before its next compute.
    using K = PipeOp::Kind;
    auto kinds = [](const std::vector<PipeOp>& ops) {
      std::vector<std::pair<K, int>> v;
      for (const PipeOp& op : ops) v.emplace_back(op.kind, op.microbatch);
      return v;
    };
    const std::vector<std::pair<K, int>> stage0{{K::Forward, 0},  {K::SendAct, 0}, {K::Forward, 1},
                                                {K::RecvGrad, 0}, {K::SendAct, 1}, {K::Backward, 0},
                                                {K::RecvGrad, 1}, {K::Backward, 1}};
    const std::vector<std::pair<K, int>> stage1{{K::RecvAct, 0},  {K::Forward, 0}, {K::Backward, 0},
                                                {K::SendGrad, 0}, {K::RecvAct, 1}, {K::Forward, 1},
                                                {K::Backward, 1}, {K::SendGrad, 1}};
    QVERIFY(kinds(deepSpeedOps(2, 0, 2)) == stage0);
    QVERIFY(kinds(deepSpeedOps(2, 1, 2)) == stage1);
    // One stage: forward and backward alternate, no transfers.
    const std::vector<std::pair<K, int>> alone{
        {K::Forward, 0}, {K::Backward, 0}, {K::Forward, 1}, {K::Backward, 1}};
    QVERIFY(kinds(deepSpeedOps(1, 0, 2)) == alone);
  }
  void pipelineUnderBothSchedules() {
    // Two stages of F 1 s, B 2 s, transfers 0.5 s each way; two microbatches.
    std::vector<StageTimes> t(2);
    for (auto& s : t) s.forward_s = 1, s.backward_s = 2;
    t[0].send_forward_s = 0.5;
    t[1].send_backward_s = 0.5;
    // DeepSpeed, the instructions of deepSpeedInstructionOrder: S0 F0 0-1; act 0 1-1.5; S0 F1
    // 1.5-2.5 while S1 F0 1.5-2.5, B0 2.5-4.5; grad 0 4.5-5; act 1 5-5.5; S1 F1 5.5-6.5, B1
    // 6.5-8.5; S0 B0 5.5-7.5; grad 1 waits for S1: 8.5-9; S0 B1 9-11.
    const PipelineRun d = runPipeline(t, 2, PipelineSchedule::DeepSpeed, true);
    QCOMPARE(d.free_at, (std::vector<double>{11.0, 9.0}));
    QCOMPARE(d.last_backward, (std::vector<double>{11.0, 8.5}));
    QCOMPARE(d.busy, (std::vector<double>{6.0, 6.0}));  // 2 x (1 + 2) each
    QCOMPARE(d.comm, (std::vector<double>{2.0, 2.0}));  // 4 transfers of 0.5 s, blocking both
    QCOMPARE(d.doneAt(1), 9.0);          // its last send ends after its last backward
    QCOMPARE(d.ops.size(), size_t{16});  // 8 computes + 4 transfers on each of 2 stages
    // Async 1F1B: S0 F0 0-1, F1 1-2; S1 F0 waits for act 0 (1 + 0.5): 1.5-2.5, B0 2.5-4.5, F1
    // 4.5-5.5, B1 5.5-7.5; S0 B0 waits for grad 0 (4.5 + 0.5): 5-7, B1 for grad 1 (8): 8-10.
    const PipelineRun a = runPipeline(t, 2, PipelineSchedule::Async1F1B, false);
    QCOMPARE(a.free_at, (std::vector<double>{10.0, 7.5}));
    QCOMPARE(a.last_backward, (std::vector<double>{10.0, 7.5}));
    QCOMPARE(a.busy, (std::vector<double>{6.0, 6.0}));
    QCOMPARE(a.comm, (std::vector<double>{0.0, 0.0}));  // transfers overlap, not counted
    QVERIFY(a.ops.empty());                             // no timeline asked for
    // The stages are done when the slower of the two runs is.
    QCOMPARE(stageDone({d, a}, 2), (std::vector<double>{11.0, 9.0}));
  }

  // ---- 7. tiedEmbeddingSync, stageSyncAndStep
  void tiedEmbeddingAllReduce() {
    const GpuType& gpu = cat_.gpu("G1", "");
    StageReplicas stages{{figures(g1_a_, gpu, 0)}, {figures(g1_b_, gpu, 1)}};
    Links links(sc_, cat_, {&g1_a_, &g1_b_});
    EgressLedger egress;
    const SimulatorOptions options;
    // No tied parameters: nothing to do.
    QCOMPARE(tiedEmbeddingSync(stages, links, egress, options), 0.0);
    // 2.5e7 tied fp32 gradients = 1e8 B; a ring of two: 2 steps of 5e7 B at 0.1 s + 0.5 s.
    stages[1][0].tied_params = 2.5e7;
    SAILOR_COMPARE_REL(tiedEmbeddingSync(stages, links, egress, options), 1.2, 1e-12);
    // Each side sends half of the matrix's gradients to the other.
    QCOMPARE(egress.items().size(), size_t{2});
    QCOMPARE(egress.items()[0].bytes, 5e7);
    QCOMPARE(egress.items()[1].bytes, 5e7);
    // One stage holds both: no copies to reconcile.
    QCOMPARE(tiedEmbeddingSync({stages[1]}, links, egress, options), 0.0);
  }
  void syncAndStepOfAStage() {
    const GpuType& gpu = cat_.gpu("G1", "");
    Links links(sc_, cat_, {&g1_a_, &g1_b_});
    EgressLedger egress;
    const SimulatorOptions options;
    std::vector<ReplicaData> reps{figures(g1_a_, gpu, 0, 0), figures(g1_b_, gpu, 1, 0)};
    reps[0].params = reps[1].params = 1e8;   // 4e8 B of fp32 gradients each
    reps[0].optimizer_s_per_param = 1e-6;    // 100 s
    reps[1].optimizer_s_per_param = 1.5e-6;  // 150 s, the slowest
    // D 2: 2 steps of 2e8 B over the continent's link, 0.1 s + 2 s each, both directions alike.
    const SyncAndStep r = stageSyncAndStep(reps, links, egress, options);
    SAILOR_COMPARE_REL(r.sync_s, 4.2, 1e-12);
    // The step: 150 s and the sum's two bucket copies, 16 B x 1e8 / 1,000 GB/s (NOTE [Bucket
    // copies]).
    SAILOR_COMPARE_REL(r.optimizer_s, 150.0016, 1e-12);
    // Each replica sends 2 (D - 1) / D = 1 times its gradients to its successor.
    QCOMPARE(egress.items().size(), size_t{2});
    QCOMPARE(egress.items()[0].bytes, 4e8);
    // Two replicas on one node of r1-a: its fabric, 2 x (0.2 s + 2e8 B / 10 GB/s) = 0.44 s.
    std::vector<ReplicaData> local{figures(g1_a_, gpu, 0, 0), figures(g1_a_, gpu, 0, 0)};
    local[0].params = local[1].params = 1e8;
    SAILOR_COMPARE_REL(stageSyncAndStep(local, links, egress, options).sync_s, 0.44, 1e-12);
    // One replica: no all-reduce, its step alone.
    const SyncAndStep one = stageSyncAndStep({reps[1]}, links, egress, options);
    QCOMPARE(one.sync_s, 0.0);
    SAILOR_COMPARE_REL(one.optimizer_s, 150.0, 1e-12);
  }
  // A device whose own reduction is slower than the link bounds each ring step (NOTE
  // [Collective efficiency]): the slower of the two sides of a pair, and only where it is the
  // slower of link and device.
  void ringBoundByTheDevice() {
    GpuType slow = cat_.gpu("G1", "");
    slow.collective_bus_bandwidth_gb_per_s = 0.05;  // 5e7 B/s: below the 10 GB/s node fabric
    GpuType fast = slow;
    fast.collective_bus_bandwidth_gb_per_s = 1000.0;  // above it: the link decides
    const GpuType plain = cat_.gpu("G1", "");         // unset: the link alone
    QCOMPARE(collectiveBusBytesPerS(plain, plain), 0.0);
    QCOMPARE(collectiveBusBytesPerS(slow, plain), 5e7);
    QCOMPARE(collectiveBusBytesPerS(plain, slow), 5e7);
    QCOMPARE(collectiveBusBytesPerS(slow, fast), 5e7);
    Links links(sc_, cat_, {&g1_a_, &g1_b_});
    const SimulatorOptions options;
    std::vector<ReplicaData> local{figures(g1_a_, plain, 0, 0), figures(g1_a_, plain, 0, 0)};
    local[0].params = local[1].params = 1e8;  // 4e8 B of gradients, 2e8 B a ring step
    const ResolvedLink& fabric = links.between(local[0], local[1], 1);
    // The node's fabric: 2 x (0.2 s + 2e8 B / 10 GB/s) = 0.44 s, as in syncAndStepOfAStage.
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 4e8, 2, 1, options, 0.0), 0.44, 1e-12);
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 4e8, 2, 1, options, 1e12), 0.44, 1e-12);
    // The device at 5e7 B/s: each step 2e8 / 5e7 = 4 s, not the link's 0.22: 2 x 4 = 8 s.
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 4e8, 2, 1, options, 5e7), 8.0, 1e-12);
    // Through stageSyncAndStep: one slow side is enough.
    local[0].gpu = &slow;
    EgressLedger egress;
    SAILOR_COMPARE_REL(stageSyncAndStep(local, links, egress, options).sync_s, 8.0, 1e-12);
    local[0].gpu = &fast;
    SAILOR_COMPARE_REL(stageSyncAndStep(local, links, egress, options).sync_s, 0.44, 1e-12);
  }
  // The buckets of a ring all-reduce are summed in closed form: n full buckets and the remainder.
  // A bucket-by-bucket walk took 5e8 steps for 1e18 bytes, and at 1e308 bytes `left - bucket`
  // is `left` again, so it never ended.
  void ringAllReduceIsClosedForm() {
    const GpuType& gpu = cat_.gpu("G1", "");
    Links links(sc_, cat_, {&g1_a_, &g1_b_});
    std::vector<ReplicaData> local{figures(g1_a_, gpu, 0, 0), figures(g1_a_, gpu, 0, 0)};
    const ResolvedLink& fabric = links.between(local[0], local[1], 1);
    SimulatorOptions options;
    QCOMPARE(options.allreduce_bucket_bytes, 2e9);
    // The node's fabric (0.2 s + bytes / 10 GB/s), two replicas: 2 steps of bucket / 2 bytes.
    // A full 2e9-byte bucket: 2 x (0.2 + 1e9 / 1e10) = 0.6 s; 5e9 bytes are two of them and a
    // 1e9-byte remainder, 2 x (0.2 + 5e8 / 1e10) = 0.5 s: 1.7 s.
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 5e9, 2, 1, options, 0.0), 1.7, 1e-12);
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 4e9, 2, 1, options, 0.0), 1.2, 1e-12);
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 1e9, 2, 1, options, 0.0), 0.5, 1e-12);
    // 1e18 and 1e308 bytes: 5e8 and 5e298 full buckets of 0.6 s each, at once.
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 1e18, 2, 1, options, 0.0), 3e8, 1e-12);
    SAILOR_COMPARE_REL(ringAllReduceSeconds(fabric, 1e308, 2, 1, options, 0.0), 3e298, 1e-12);
    // The same sum for SAILOR's published model and any other bucketed figure.
    QCOMPARE(bucketedSeconds(0.0, 2.0, [](double) { return 1.0; }), 0.0);
    QCOMPARE(bucketedSeconds(5.0, 2.0, [](double b) { return b; }), 5.0);
    QCOMPARE(bucketedSeconds(1e308, 1.0, [](double) { return 1.0; }), 1e308);
  }
  // The step after the backward pass (NOTE [Bucket copies]): the optimizer alone with one
  // replica; with D >= 2 also two copies of the fp32 gradients (16 B per parameter) at the
  // GPU's memory bandwidth (G1: 1,000 GB/s).
  void stepWithBucketCopies() {
    const GpuType& gpu = cat_.gpu("G1", "");
    SAILOR_COMPARE_REL(stepSeconds(1e-6, 1e8, 1, gpu), 100.0, 1e-12);
    SAILOR_COMPARE_REL(stepSeconds(1e-6, 1e8, 2, gpu), 100.0 + 16e8 / 1e12, 1e-12);
    SAILOR_COMPARE_REL(stepSeconds(1e-6, 1e8, 8, gpu), 100.0 + 16e8 / 1e12, 1e-12);
    QCOMPARE(stepSeconds(1e-6, 0, 2, gpu), 0.0);
  }

  // ---- 8. criticalPipeline, busiestStage, breakdownOf, sortTimeline
  void breakdownOfTheBusiestStage() {
    PipelineRun r0{{10, 8}, {4, 6}, {1, 1}, {10, 7}, {}};
    PipelineRun r1{{9, 12}, {4, 6}, {1, 1}, {9, 12}, {}};
    // Stage 1 ends last in r1 (12 > 8), stage 0 in r0 (10 > 9).
    QCOMPARE(criticalPipeline({r0, r1}, 1), size_t{1});
    QCOMPARE(criticalPipeline({r0, r1}, 0), size_t{0});
    QCOMPARE(criticalPipeline({r0, r0}, 0), size_t{0});  // equals: the first
    std::vector<StageTimes> t(2);
    t[0].dp_sync_s = 0.5, t[0].optimizer_s = 0.5;
    t[1].optimizer_s = 1;
    // Work: stage 0 4 + 1 + 0.5 + 0.5 = 6, stage 1 6 + 1 + 0 + 1 = 8: stage 1 though stage 0
    // ends last.
    QCOMPARE(busiestStage(r1, t, {13, 12}, 0), size_t{1});
    QCOMPARE(t[0].work_s, 6.0);
    QCOMPARE(t[1].work_s, 8.0);
    // Equal work: the stage that ends last.
    t[0].optimizer_s = 2.5;  // 8 as well
    QCOMPARE(busiestStage(r1, t, {13, 12}, 0), size_t{0});
    QCOMPARE(busiestStage(r1, t, {12, 13}, 1), size_t{1});
    // Iteration 12 s: stage 1 computes 6, sends 1, steps 1; the other 4 s it waits.
    const TimeBreakdown b = breakdownOf(r1, t, 1, 12);
    QCOMPARE(b.stage, 1);
    QCOMPARE(b.compute_s, 6.0);
    QCOMPARE(b.p2p_s, 1.0);
    QCOMPARE(b.dp_sync_s, 0.0);
    QCOMPARE(b.optimizer_s, 1.0);
    QCOMPARE(b.bubble_s, 4.0);
  }
  void timelineByStageThenStart() {
    std::vector<TimelineOp> ops{{1, 0, 'F', 2, 3},
                                {0, 1, 'F', 3, 4},
                                {0, 0, 'F', 1, 2},
                                {1, 1, 'S', 1, 2},
                                {0, -1, 'O', 1, 5}};
    sortTimeline(ops, 2);
    // Stage 0 by start, the equal starts in their order (F 0 before O), then stage 1.
    const std::vector<std::pair<int, char>> expected{
        {0, 'F'}, {0, 'O'}, {0, 'F'}, {1, 'S'}, {1, 'F'}};
    QCOMPARE(ops.size(), expected.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      QCOMPARE(ops[i].stage, expected[i].first);
      QCOMPARE(ops[i].kind, expected[i].second);
    }
    QCOMPARE(ops[0].microbatch, 0);
    QCOMPARE(ops[2].microbatch, 1);
  }

  // ---- 9. computeUsd
  void rentForTheIteration() {
    const GpuType& gpu = cat_.gpu("G1", "");
    StageReplicas stages{{figures(g1_a_tp2_, gpu, 0)}, {figures(g1_a_, gpu, 0)}};
    stages[0][0].usd_per_gpu_hour = 3.6;
    stages[1][0].usd_per_gpu_hour = 1.8;
    // 10 s: 2 GPUs x $3.6/h + 1 GPU x $1.8/h = $9/h, for 10 / 3600 h.
    SAILOR_COMPARE_REL(computeUsd(stages, 10), 9.0 * 10 / 3600, 1e-12);
  }
};

QTEST_GUILESS_MAIN(TestSimulatorParts)
#include "test_simulator_parts.moc"
