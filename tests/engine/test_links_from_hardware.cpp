// Links between nodes of one zone come from the GPU type's node network in the catalogue, each
// link says where its figure comes from, and a pool's `instance` names one of its type's
// families. The two-node case is worked by hand below.
#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/plan_links.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// One zone with 16 H100-80 (two nodes of 8); `pool_extra` and `network` added as given.
json scenarioJson(const json& pool_extra = json::object(), const json& network = json()) {
  json pool = {{"zone", "us-central1-a"},
               {"gpu_type", "H100-80"},
               {"count", 16},
               {"usd_per_gpu_hour", 11.06}};
  if (pool_extra.is_object()) pool.update(pool_extra);
  json j = {{"name", "two-nodes"},
            {"regions", json::array({{{"name", "us-central1"},
                                      {"continent", "north-america"},
                                      {"zones", json::array({"us-central1-a"})}},
                                     {{"name", "europe-west4"},
                                      {"continent", "europe"},
                                      {"zones", json::array({"europe-west4-a"})}}})},
            {"pools", json::array({pool})}};
  if (!network.is_null()) j["network"] = network;
  return j;
}

// One stage of every layer, tp 8 x 2 replicas in us-central1-a: a node each.
Plan twoNodePlan() {
  Plan p;
  p.microbatch_size = 1;
  Stage s;
  s.first_layer = 0;
  s.last_layer = 33;  // Llama-3-8B: 32 blocks + embedding + head
  s.replicas = {{"H100-80", 8, "us-central1-a"}, {"H100-80", 8, "us-central1-a"}};
  p.stages = {s};
  return p;
}

}  // namespace

class TestLinksFromHardware : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    cat_ = Catalog::load(test::resources());
    job_ = Job::fromJson({{"model", "Llama-3-8B"},
                          {"global_batch_size", 16},
                          {"sequence_length", 4096},
                          {"precision", "bf16"},
                          {"optimizer", "adam"}},
                         cat_);
    profiles_.add(std::make_shared<AnalyticProfile>(cat_));
  }

  // The data-parallel sync of two tp-8 replicas on two nodes, against the ring arithmetic:
  //   sync = 2 (D - 1) / D x shard / (node figure / tp)
  // shard: the stage's fp32 gradients held by one tp rank, parameters / tp x 4 B =
  // 8.03e9 / 8 x 4 = 4.015e9 B; D = 2 replicas, so 2 (D - 1) / D = 1; the tp ranks' rings run at
  // once over the node's link (the figure at GPU count tp is the node's aggregate): a3-highgpu-8g's
  // four 200 Gb/s NICs, 800 Gb/s = 100 GB/s per node, 12.5 GB/s per rank. 4.015e9 / 12.5e9 =
  // 0.321 s. With the built-in 6 GB/s per node the same sync took 4.015e9 / 0.75e9 = 5.35 s.
  void twoNodeSyncAtTheCatalogueFigure() {
    const Scenario sc = Scenario::fromJson(scenarioJson(), cat_);
    const Plan plan = twoNodePlan();
    const Prediction p = simulate(plan, sc, job_, cat_, profiles_);
    const double shard = totalParameters(*cat_.findModel("Llama-3-8B")) / 8 * 4;
    const double node_gb_per_s = 800.0 / 8;
    const double expected = 2.0 * (2 - 1) / 2 * shard / (node_gb_per_s * 1e9 / 8);
    QVERIFY(test::closeRel(expected, 0.321, 0.01));
    SAILOR_COMPARE_REL(p.stages.at(0).dp_sync_s, expected, 0.10);

    const auto links = linksOfPlan(plan, sc, cat_);
    QCOMPARE(links.size(), size_t(1));
    QCOMPARE(links[0].use, LinkUse::Use::DataParallel);
    QCOMPARE(links[0].source, LinkSource::Catalogue);
    QCOMPARE(links[0].gpus, 8);
    QCOMPARE(links[0].pairs, 2);
    SAILOR_COMPARE_REL(links[0].gb_per_s, 100.0, 1e-12);
    QVERIFY(links[0].description.find("a3-highgpu-8g") != std::string::npos);
  }

  // The pool's family sets the figure: a3-megagpu-8g's 1,600 Gb/s halves the sync.
  void instanceFamilySetsTheFigure() {
    const Scenario mega = Scenario::fromJson(scenarioJson({{"instance", "a3-megagpu-8g"}}), cat_);
    const Scenario high = Scenario::fromJson(scenarioJson(), cat_);
    const Plan plan = twoNodePlan();
    const double t_mega = simulate(plan, mega, job_, cat_, profiles_).stages.at(0).dp_sync_s;
    const double t_high = simulate(plan, high, job_, cat_, profiles_).stages.at(0).dp_sync_s;
    SAILOR_COMPARE_REL(t_mega, t_high / 2, 0.01);
    const auto h = mega.hardwareLink("us-central1-a", "H100-80");
    QVERIFY(h.has_value());
    QCOMPARE(h->instance, std::string("a3-megagpu-8g"));
    SAILOR_COMPARE_REL(h->model.bytes_per_s, 200e9, 1e-12);
    QVERIFY(h->source.find("cloud.google.com") != std::string::npos);
    // The round trip keeps the family.
    const Scenario again = Scenario::fromJson(mega.toJson(), cat_);
    QCOMPARE(again.pools.at(0).instance.value_or(""), std::string("a3-megagpu-8g"));
  }

  // Declared links take precedence: an entry for the zone, or a declared same-zone default.
  void declaredLinksTakePrecedence() {
    const Plan plan = twoNodePlan();
    const json entry = {{"links", json::array({{{"from_zone", "us-central1-a"},
                                                {"to_zone", "us-central1-a"},
                                                {"model",
                                                 {{"kind", "latency_bandwidth"},
                                                  {"latency_s", 1e-5},
                                                  {"bandwidth_gb_per_s", 6.0}}}}})}};
    const Scenario declared = Scenario::fromJson(scenarioJson(json::object(), entry), cat_);
    const double slow = simulate(plan, declared, job_, cat_, profiles_).stages.at(0).dp_sync_s;
    SAILOR_COMPARE_REL(slow, 5.35, 0.10);  // the built-in figure's sync, now declared
    QCOMPARE(linksOfPlan(plan, declared, cat_).at(0).source, LinkSource::Declared);

    const json fast = {
        {"defaults", {{"same_zone", {{"latency_s", 1e-5}, {"bandwidth_gb_per_s", 100.0}}}}}};
    const Scenario by_default = Scenario::fromJson(scenarioJson(json::object(), fast), cat_);
    const ResolvedLink l =
        by_default.link({"us-central1-a", "H100-80", "us-central1-a", "H100-80", 8});
    QCOMPARE(l.origin, LinkSource::Declared);
    QCOMPARE(l.source, std::string("default same_zone"));
    SAILOR_COMPARE_REL(simulate(plan, by_default, job_, cat_, profiles_).stages.at(0).dp_sync_s,
                       0.32, 0.10);
    // A default declared at the built-in figure stays declared through toJson and fromJson.
    const json builtin_figure = {
        {"defaults", {{"same_zone", {{"latency_s", 1e-5}, {"bandwidth_gb_per_s", 6.0}}}}}};
    const Scenario kept = Scenario::fromJson(
        Scenario::fromJson(scenarioJson(json::object(), builtin_figure), cat_).toJson(), cat_);
    QCOMPARE(kept.link({"us-central1-a", "H100-80", "us-central1-a", "H100-80", 8}).origin,
             LinkSource::Declared);
  }

  // Each source's label: declared, fitted, catalogue, built-in (across regions, undeclared).
  void sourceLabels() {
    QCOMPARE(std::string(linkSourceName(LinkSource::Declared)), std::string("declared"));
    QCOMPARE(std::string(linkSourceName(LinkSource::Fitted)), std::string("fitted"));
    QCOMPARE(std::string(linkSourceName(LinkSource::Catalogue)), std::string("catalogue"));
    QCOMPARE(std::string(linkSourceName(LinkSource::BuiltIn)), std::string("built-in"));

    const json fit = {{"links", json::array({{{"from_zone", "us-central1-a"},
                                              {"to_zone", "us-central1-a"},
                                              {"from_gpu", "H100-80"},
                                              {"to_gpu", "H100-80"},
                                              {"model",
                                               {{"kind", "sailor_fit"},
                                                {"coefficients", {0.0, 0.5, 5.0}},
                                                {"max_bytes_per_s", 8e9}}}}})}};
    const Scenario sc = Scenario::fromJson(scenarioJson(json::object(), fit), cat_);
    const LinkQuery same{"us-central1-a", "H100-80", "us-central1-a", "H100-80", 8};
    QCOMPARE(sc.link(same).origin, LinkSource::Fitted);

    const Scenario plain = Scenario::fromJson(scenarioJson(), cat_);
    QCOMPARE(plain.link(same).origin, LinkSource::Catalogue);
    const ResolvedLink across =
        plain.link({"us-central1-a", "H100-80", "europe-west4-a", "H100-80", 8});
    QCOMPARE(across.origin, LinkSource::BuiltIn);
    SAILOR_COMPARE_REL(across.model.bytes_per_s, 0.5e9, 1e-12);
    QCOMPARE(plain.intraNodeLink("H100-80", cat_).origin, LinkSource::Catalogue);

    // A scenario built in code and never validated has no catalogue networks: the default.
    Scenario bare;
    bare.regions = plain.regions;
    bare.pools = plain.pools;
    bare.default_links = Scenario::builtinDefaultLinks();
    bare.default_egress_usd_per_gb = Scenario::builtinDefaultEgress();
    QCOMPARE(bare.link(same).origin, LinkSource::BuiltIn);
    bare.validate(cat_);
    QCOMPARE(bare.link(same).origin, LinkSource::Catalogue);
  }

  // Two GPU types in one zone without entries: the slower of the two node networks.
  void twoTypesTakeTheSlowerNetwork() {
    json j = scenarioJson();
    j["pools"].push_back({{"zone", "us-central1-a"},
                          {"gpu_type", "A100-40"},
                          {"count", 8},
                          {"usd_per_gpu_hour", 3.67}});
    const Scenario sc = Scenario::fromJson(j, cat_);
    const ResolvedLink l = sc.link({"us-central1-a", "H100-80", "us-central1-a", "A100-40", 8});
    QCOMPARE(l.origin, LinkSource::Catalogue);
    SAILOR_COMPARE_REL(l.bandwidthBytesPerS(1e12), 12.5e9, 1e-3);  // a2-highgpu-8g: 100 Gb/s
    // 4-GPU A100 nodes (SAILOR's a2-highgpu-4g VMs): the family's share, 100 Gb/s / 8 x 4.
    json four = scenarioJson();
    four["pools"] = json::array({{{"zone", "us-central1-a"},
                                  {"gpu_type", "A100-40"},
                                  {"count", 8},
                                  {"usd_per_gpu_hour", 3.67},
                                  {"gpus_per_node", 4}}});
    const auto h = Scenario::fromJson(four, cat_).hardwareLink("us-central1-a", "A100-40");
    QVERIFY(h.has_value());
    SAILOR_COMPARE_REL(h->model.bytes_per_s, 6.25e9, 1e-12);
    QCOMPARE(h->gpus_per_node, 4);
    QCOMPARE(h->family_gpus_per_node, 8);
  }

  // `instance` names a family of the pool's GPU type, with that family's node size.
  void instanceErrors() {
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] {
                            Scenario::fromJson(scenarioJson({{"instance", "p4d.24xlarge"}}), cat_);
                          }),
                          (QStringList{"pools[0].instance", "p4d.24xlarge",
                                       "an instance family of H100-80", "a3-megagpu-8g"}));
    SAILOR_VERIFY_MESSAGE(
        test::inputErrorOf([&] {
          Scenario::fromJson(scenarioJson({{"instance", "a3-highgpu-8g"}, {"gpus_per_node", 4}}),
                             cat_);
        }),
        (QStringList{"pools[0].gpus_per_node", "8, the GPUs of a a3-highgpu-8g node"}));
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] {
                            Scenario::fromJson(scenarioJson({{"instance", 8}}), cat_);
                          }),
                          (QStringList{"pools[0].instance"}));
    // The family's node size is the pool's when the pool gives none.
    const Scenario gh = Scenario::fromJson(
        {{"name", "gh"},
         {"regions", json::array({{{"name", "alps"}, {"zones", json::array({"alps-1"})}}})},
         {"pools", json::array({{{"zone", "alps-1"},
                                 {"gpu_type", "GH-96"},
                                 {"count", 8},
                                 {"usd_per_gpu_hour", 1.0},
                                 {"instance", "alps-gh200"}}})}},
        cat_);
    QCOMPARE(gh.gpusPerNode("alps-1", "GH-96", cat_), 4);
  }

  // The catalogue's networks: one default per type, its per-GPU share the type's
  // inter_node_bandwidth_gb_per_s, each entry with a source.
  void catalogueNetworks() {
    for (const GpuType& g : cat_.gpus()) {
      const auto nets = g.nodeNetworks();
      QVERIFY(!nets.empty());
      QVERIFY(nets.front().is_default);
      SAILOR_COMPARE_REL(nets.front().gbPerS() / nets.front().gpus_per_node,
                         g.inter_node_bandwidth_gb_per_s, 1e-9);
      for (const auto& n : nets) QVERIFY(!n.source.empty());
    }
    const GpuType& h100 = cat_.gpu("H100-80", "test");
    QCOMPARE(h100.findNetwork("a3-highgpu-8g")->gbit_per_s, 800.0);
    QCOMPARE(h100.findNetwork("a3-megagpu-8g")->gbit_per_s, 1600.0);
    QCOMPARE(h100.findNetwork("p5.48xlarge")->gbit_per_s, 3200.0);
    QCOMPARE(cat_.gpu("A100-40", "test").findNetwork("p4d.24xlarge")->gbit_per_s, 400.0);

    json gpus = json::parse(R"({"gpus": [)" + test::gpuJson("G1", 10, 1000000000).dump() + "]}");
    gpus["gpus"][0]["networks"] = json::array({{{"instance", "a"},
                                                {"cloud", "x"},
                                                {"gpus_per_node", 4},
                                                {"gbit_per_s", 8.0},
                                                {"source", "s"}}});
    SAILOR_VERIFY_MESSAGE(test::inputErrorOf([&] {
                            Catalog::fromJson(gpus, json{{"models", json::array()}});
                          }),
                          (QStringList{"networks", "exactly one"}));
  }

 private:
  Catalog cat_;
  Job job_;
  ProfileSet profiles_;
};

QTEST_GUILESS_MAIN(TestLinksFromHardware)
#include "test_links_from_hardware.moc"
