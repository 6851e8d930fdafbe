// The closed loop's engine side: a local profile directory read and checked
// (LocalProfile::load), a run's plan predicted on it (predictOnProfile), a run compared with its
// prediction (compareRun) and a profile fitted to runs (calibrateProfile). The profile is a
// fixture written into a temporary directory: a four-block model whose layer times are chosen
// so that each expectation can be computed by hand.
#include <QTemporaryDir>
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_prediction.hpp"
#include "sailor/simulation/calibrate.hpp"
#include "test_support.hpp"

using nlohmann::json;
using sailor::test::inputErrorOf;

namespace {

constexpr int kBlocks = 4;  // plan layers 0 (embedding), 1-4 (blocks), 5 (head)
constexpr double kOptimizerPerParam = 1e-9;
constexpr double kParams = 1e5;  // every layer's, at tp 1

// The profile's forward seconds per layer kind at microbatch 1, tp 1 (backward: twice that).
// The embedding and the head are made as slow as two blocks so that three plans can tell the
// kinds apart to 10 % (with the 1 % noise floor of a median).
constexpr double kEmbeddingF = 0.040, kBlockF = 0.020, kHeadF = 0.050;

sailor::RuntimeModel runtimeModel(int hidden = 64) {
  sailor::RuntimeModel m;
  m.name = "Tiny";
  m.layers = kBlocks;
  m.hidden_size = hidden;
  m.heads = 4;
  m.ffn_hidden_size = 256;
  m.vocab_size = 256;
  m.sequence_length = 32;
  return m;
}

json modelEntry() {
  return json{{"name", "Tiny-runtime-h64-s32"},
              {"layers", kBlocks},
              {"hidden_size", 64},
              {"heads", 4},
              {"ffn_hidden_size", 256},
              {"vocab_size", 256},
              {"sequence_length", 32},
              {"max_position_embeddings", 32},
              {"position_embedding", "learned"},
              {"tied_embeddings", false},
              {"sources", {"test fixture"}}};
}

// Microbatch 1 at the figures above; microbatch 2 at 1.8 times them (no run uses it).
json profileJson() {
  json layers = json::array(), layers2 = json::array();
  for (int l = 0; l < kBlocks + 2; ++l) {
    const double f = l == 0 ? kEmbeddingF : l == kBlocks + 1 ? kHeadF : kBlockF;
    for (auto [list, x] : {std::pair{&layers, 1.0}, std::pair{&layers2, 1.8}})
      list->push_back({{"forward_s", x * f},
                       {"backward_s", x * 2 * f},
                       {"params", kParams},
                       {"activation_bytes", 1e5},
                       {"output_elements", 2048}});
  }
  return json{{"format", "sailor-studio-profile/1"},
              {"model", "Tiny-runtime-h64-s32"},
              {"gpu_type", "cpu-test"},
              {"precision", "fp32"},
              {"sequence_length", 32},
              {"measured_by", "sailor profile on testhost, 2026-12-04T18:02:11Z"},
              {"runs",
               {{{"microbatch_size", 1},
                 {"tp", 1},
                 {"optimizer_seconds_per_parameter", kOptimizerPerParam},
                 {"layers", layers}},
                {{"microbatch_size", 2},
                 {"tp", 1},
                 {"optimizer_seconds_per_parameter", kOptimizerPerParam},
                 {"layers", layers2}}}}};
}

json scenarioJson() {
  const json link{{"latency_s", 1e-5}, {"bandwidth_gb_per_s", 1.0}};
  return json{{"name", "local-cpu-test"},
              {"regions", {{{"name", "local"}, {"zones", {"local"}}}}},
              {"pools",
               {{{"zone", "local"},
                 {"gpu_type", "cpu-test"},
                 {"count", 2},
                 {"usd_per_gpu_hour", 0.0},
                 {"spot", false}}}},
              {"network", {{"defaults", {{"same_zone", link}}}}}};
}

void writeProfileDir(const QString& dir) {
  const std::string d = dir.toStdString();
  json gpu = sailor::test::gpuJson("cpu-test", 0.1, std::int64_t{8} << 30);
  gpu["gpus_per_node"] = 2;
  sailor::json_util::writeFileAtomically(d + "/catalog.json",
                                         json{{"gpus", {gpu}}, {"models", {modelEntry()}}}.dump(1));
  sailor::json_util::writeFileAtomically(d + "/profile.json", profileJson().dump(1));
  sailor::json_util::writeFileAtomically(d + "/scenario.json", scenarioJson().dump(1));
}

sailor::Plan plan(std::vector<std::pair<int, int>> stages) {
  sailor::Plan p;
  p.microbatch_size = 1;
  for (auto [a, b] : stages) p.stages.push_back({a, b, {{"A100-40", 1, "us-central1-a"}}});
  return p;
}

sailor::RunStartedEvent started(const sailor::Plan& p, int microbatches) {
  sailor::RunStartedEvent s;
  s.name = "fixture";
  s.world_size = static_cast<int>(p.stages.size());
  s.plan = p;
  s.model = runtimeModel();
  s.global_batch_size = microbatches;
  s.microbatches = microbatches;
  s.data_parallel = 1;
  s.iterations = 6;
  s.dtype = "float32";
  return s;
}

// Seconds of forward + backward per microbatch of plan layers [a, b] when the embedding, the
// blocks and the head take `e`, `k`, `h` times the profile's figures.
double layerSeconds(int a, int b, double e, double k, double h) {
  double t = 0;
  for (int l = a; l <= b; ++l)
    t += 3 * (l == 0 ? e * kEmbeddingF : l == kBlocks + 1 ? h * kHeadF : k * kBlockF);
  return t;
}

// `n` iterations in which each stage's rank computes `compute[s]` seconds (tp 0, jitter of
// +-0.2 % alternating so that the medians are known exactly), waits `comm[s]`, and peaks at
// `peak[s]` bytes; the first iteration 3x slower (warm-up).
std::vector<sailor::IterationEvent> iterations(const std::vector<double>& compute,
                                               const std::vector<double>& comm,
                                               const std::vector<std::int64_t>& peak, int n = 6) {
  std::vector<sailor::IterationEvent> out;
  for (int i = 0; i < n; ++i) {
    sailor::IterationEvent it;
    it.iteration = i;
    const double jitter = i == 0 ? 3.0 : 1.0 + (i % 2 ? 0.002 : -0.002);
    double slowest = 0;
    for (std::size_t s = 0; s < compute.size(); ++s) {
      sailor::RunRankTimes r;
      r.rank = static_cast<int>(s);
      r.stage = static_cast<int>(s);
      r.compute_seconds = compute[s] * jitter;
      r.p2p_seconds = comm[s];
      r.seconds = r.compute_seconds + r.p2p_seconds;
      r.peak_memory_bytes = peak[s];
      slowest = std::max(slowest, r.seconds);
      it.ranks.push_back(r);
    }
    it.iteration_seconds = slowest;
    out.push_back(it);
  }
  return out;
}

// A run of `p` measured on hardware whose layers take (e, k, h) times the profile's figures.
sailor::CalibrationRun measuredRun(std::int64_t id, const sailor::Plan& p, int m, double e,
                                   double k, double h) {
  std::vector<double> compute, comm;
  std::vector<std::int64_t> peak;
  for (const sailor::Stage& s : p.stages) {
    const double params = kParams * s.layerCount();
    compute.push_back(layerSeconds(s.first_layer, s.last_layer, e, k, h) * m +
                      kOptimizerPerParam * params);
    comm.push_back(0.01);
    peak.push_back(100'000'000);
  }
  return {id, started(p, m), iterations(compute, comm, peak)};
}

}  // namespace

class TestCalibrate : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;
  QString dir_;

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path() + "/prof";
    QVERIFY(QDir().mkpath(dir_));
    writeProfileDir(dir_);
  }

  void loadsTheProfileDirectory() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    QCOMPARE(p.gpu_type, std::string("cpu-test"));
    QCOMPARE(p.model, std::string("Tiny-runtime-h64-s32"));
    QCOMPARE(p.measured_at, std::string("2026-12-04T18:02:11Z"));
    QCOMPARE(p.model_spec.layers, kBlocks);
    QVERIFY(!sailor::profileMismatch(p, runtimeModel(), sailor::Precision::Fp32, "float32"));
    const auto why =
        sailor::profileMismatch(p, runtimeModel(128), sailor::Precision::Fp32, "float32");
    QVERIFY(why);
    QCOMPARE(*why, std::string("hidden 128, the profile's 64 (Tiny-runtime-h64-s32)"));
    QVERIFY(sailor::profileMismatch(p, runtimeModel(), sailor::Precision::Bf16, "float32"));
    QVERIFY(sailor::profileMismatch(p, runtimeModel(), sailor::Precision::Fp32, "float64"));
    QCOMPARE(sailor::runtimeModelName(runtimeModel()), std::string("Tiny-runtime-h64-s32"));
    QCOMPARE(sailor::defaultProfileDir("/data/sailor/runs.sqlite", "cpu-x", "M-runtime-h64-s32"),
             std::string("/data/sailor/profiles/cpu-x/M-runtime-h64-s32"));
  }

  void badProfileDirectories_data() {
    QTest::addColumn<QString>("setup");  // what the directory lacks or holds
    QTest::addColumn<QString>("message");
    QTest::newRow("missing") << "missing"
                             << "--profile: got \"%1\" (no such directory)";
    QTest::newRow("no scenario") << "no scenario"
                                 << "(no scenario.json)";
    QTest::newRow("another format") << "format"
                                    << "which is not a profile (profile.json format";
    QTest::newRow("no model entry") << "model"
                                    << "catalog.json models: got no \"Tiny-runtime";
  }

  void badProfileDirectories() {
    QFETCH(QString, setup);
    QFETCH(QString, message);
    QTemporaryDir t;
    const QString d = t.path() + "/p";
    if (setup != "missing") {
      QVERIFY(QDir().mkpath(d));
      writeProfileDir(d);
    }
    const std::string ds = d.toStdString();
    if (setup == "no scenario") QVERIFY(QFile::remove(d + "/scenario.json"));
    if (setup == "format") {
      json p = profileJson();
      p["format"] = "sailor-profile/0";
      sailor::json_util::writeFileAtomically(ds + "/profile.json", p.dump());
    }
    if (setup == "model")
      sailor::json_util::writeFileAtomically(
          ds + "/catalog.json", json{{"gpus", json::array()}, {"models", json::array()}}.dump());
    const QString got = inputErrorOf([&] { (void)sailor::LocalProfile::load(ds, "--profile"); });
    QVERIFY2(got.startsWith("--profile: got \"" + d + "\""), qPrintable(got));
    const QString expected = message.contains("%1") ? message.arg(d) : message;
    QVERIFY2(got.contains(expected), qPrintable(got + " should contain " + expected));
  }

  // One stage, one replica, 4 microbatches: no transfer and no sync, so the iteration is the
  // stage's compute: 4 x (forward + backward of its 6 layers) + the optimizer on 6 x 1e5
  // parameters.
  void predictsThePlanOnTheProfile() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    const sailor::Catalog cat = sailor::Catalog::load(sailor::test::resources());
    const sailor::RunPrediction pr = sailor::predictOnProfile(
        p, plan({{0, kBlocks + 1}}), 4, runtimeModel(), sailor::Precision::Fp32,
        sailor::Optimizer::Adam, sailor::Recompute::None, cat);
    const double expected = 4 * layerSeconds(0, kBlocks + 1, 1, 1, 1) + 6 * kParams * 1e-9;
    SAILOR_COMPARE_REL(pr.stages.at(0).compute_seconds, expected, 1e-9);
    SAILOR_COMPARE_REL(pr.iteration_seconds, expected, 1e-6);
    QCOMPARE(pr.stages.at(0).microbatches, 4);
    QCOMPARE(pr.device, std::string("cpu-test"));
    QCOMPARE(pr.model, std::string("Tiny-runtime-h64-s32"));
    QVERIFY(pr.peak_memory_bytes > 0);
    QCOMPARE(pr.stages.at(0).peak_memory_bytes, pr.peak_memory_bytes);
    QCOMPARE(QString::fromStdString(pr.label()),
             "predicted for cpu-test (profile " + dir_ + ", measured 2026-12-04)");
    // Two stages: each computes its own layers; the two add up to more than the iteration's
    // compute share of either (the pipeline overlaps them).
    const auto two = sailor::predictOnProfile(
        p, plan({{0, 2}, {3, kBlocks + 1}}), 4, runtimeModel(), sailor::Precision::Fp32,
        sailor::Optimizer::Adam, sailor::Recompute::None, cat);
    QCOMPARE(two.stages.size(), std::size_t{2});
    SAILOR_COMPARE_REL(two.stages[0].compute_seconds,
                       4 * layerSeconds(0, 2, 1, 1, 1) + 3 * kParams * 1e-9, 1e-9);
    QVERIFY(two.iteration_seconds < expected);
    // A microbatch size the profile lacks is not covered.
    sailor::Plan b2 = plan({{0, kBlocks + 1}});
    b2.microbatch_size = 4;
    QVERIFY(inputErrorOf([&] {
              (void)sailor::predictOnProfile(p, b2, 4, runtimeModel(), sailor::Precision::Fp32,
                                             sailor::Optimizer::Adam, sailor::Recompute::None, cat);
            }) != "<no InputError thrown>");
  }

  // A run with emulated zones (NOTE [Prediction over emulated zones]): the plan's zones stay
  // apart, joined at the lower of the profile's link and the shaped one. Two stages in two
  // zones, 4 microbatches, a message of 2,048 elements x 4 B = 8,192 B each way per microbatch.
  void predictsEmulatedZonesApart() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    const sailor::Catalog cat = sailor::Catalog::load(sailor::test::resources());
    sailor::Plan two = plan({{0, 2}, {3, kBlocks + 1}});
    two.stages[0].replicas[0].zone = "zone-a";
    two.stages[1].replicas[0].zone = "zone-b";
    const auto predict = [&](double bytes_per_s) {
      return sailor::predictOnProfile(
          p, two, 4, runtimeModel(), sailor::Precision::Fp32, sailor::Optimizer::Adam,
          sailor::Recompute::None, cat,
          {{"zone-a", "zone-b", bytes_per_s, 0.0}, {"zone-b", "zone-a", bytes_per_s, 0.0}});
    };
    const auto collapsed =
        sailor::predictOnProfile(p, two, 4, runtimeModel(), sailor::Precision::Fp32,
                                 sailor::Optimizer::Adam, sailor::Recompute::None, cat);
    QVERIFY(collapsed.links.empty());
    // 8,192 B/s: every message 1 s (and the profile's 1e-5 s). Blocking transfers: the first
    // forward message and the last backward one lie on the critical path at least, all 8 at
    // most.
    const auto slow = predict(8192);
    QCOMPARE(QString::fromStdString(slow.links),
             QString("emulated zones: zone-a -> zone-b at 8.192e-06 GB/s, zone-b -> zone-a at "
                     "8.192e-06 GB/s"));
    QVERIFY2(QString::fromStdString(slow.label())
                 .endsWith(QString::fromStdString("; " + slow.links + ")")),
             slow.label().c_str());
    const double added = slow.iteration_seconds - collapsed.iteration_seconds;
    QVERIFY2(added >= 2.0 && added <= 8.0 + 1e-3, qPrintable(QString::number(added)));
    // A shaped link faster than the profile's: the profile's 1 GB/s decides, and 8 KB transfers
    // take microseconds, as on the one zone's node.
    const auto fast = predict(1e12);
    SAILOR_COMPARE_REL(fast.iteration_seconds, collapsed.iteration_seconds, 1e-3);
    QVERIFY(fast.links.find("at 1 GB/s") != std::string::npos);
    // The links ride in run_started's prediction.
    QCOMPARE(sailor::runPredictionFromJson(sailor::toJson(slow), "prediction").links, slow.links);
  }

  // Medians of iterations 2-5 (the first two are warm-up); compute is compute + tp seconds of
  // the stage's slowest rank; relative errors predicted / measured - 1.
  void comparesARunWithItsPrediction() {
    sailor::RunStartedEvent s = started(plan({{0, 2}, {3, kBlocks + 1}}), 4);
    sailor::RunPrediction pr;
    pr.device = "cpu-test";
    pr.profile = "/p";
    pr.iteration_seconds = 1.1;
    pr.stages = {{0, 0.5, 0.6, 0, 0, 0, 4, 200}, {1, 0.8, 0.3, 0, 0, 0, 4, 300}};
    pr.peak_memory_bytes = 300;
    s.prediction = pr;
    auto its = iterations({0.4, 1.0}, {0.2, 0.1}, {100, 400});
    for (auto& it : its) it.ranks[1].tp_seconds = 0.1;  // counted as compute
    const sailor::RunComparison c = sailor::compareRun(7, s, its);
    QCOMPARE(c.warmup, 2);
    QCOMPARE(c.iterations, 6);
    QCOMPARE(c.rows.size(), std::size_t{8});
    QCOMPARE(c.rows[0].quantity, std::string("iteration seconds"));
    // Iterations 2-5 of the slowest rank (stage 1): compute + p2p = 1.0 x (0.998, 1.002, 0.998,
    // 1.002) + 0.1, whose median is 1.1.
    SAILOR_COMPARE_REL(c.rows[0].measured, 1.1, 1e-9);
    QCOMPARE(c.rows[1].quantity, std::string("stage 0 compute seconds"));
    SAILOR_COMPARE_REL(c.rows[1].measured, 0.4, 1e-9);
    SAILOR_COMPARE_REL(c.rows[1].relativeError(), 0.25, 1e-9);  // 0.5 / 0.4 - 1
    SAILOR_COMPARE_REL(c.rows[2].measured, 0.2, 1e-9);          // communication
    SAILOR_COMPARE_REL(c.rows[3].measured, 100, 1e-9);          // peak memory
    SAILOR_COMPARE_REL(c.rows[4].measured, 1.1, 1e-9);          // 1.0 + 0.1 of tp
    QCOMPARE(c.rows[7].quantity, std::string("peak memory bytes"));
    SAILOR_COMPARE_REL(c.rows[7].measured, 400, 1e-9);
    SAILOR_COMPARE_REL(c.rows[7].relativeError(), -0.25, 1e-9);
    const std::string text = sailor::formatComparison(c);
    QVERIFY2(text.find("predicted for cpu-test (profile /p)") == 0, text.c_str());
    QVERIFY2(text.find("stage 0 compute") != std::string::npos, text.c_str());
    QVERIFY2(text.find("+25.0%") != std::string::npos, text.c_str());
    QCOMPARE(c.toJson().at("rows").size(), std::size_t{8});

    QCOMPARE(sailor::warmupIterations(1), 0);
    QCOMPARE(sailor::warmupIterations(2), 1);
    QCOMPARE(sailor::warmupIterations(9), 2);
    sailor::RunStartedEvent none = s;
    none.prediction.reset();
    none.prediction_note = "no local prediction: no profile of cpu-test";
    const QString no_pred = inputErrorOf([&] { (void)sailor::compareRun(7, none, its); });
    QVERIFY2(no_pred.startsWith("run: got run 7, which has no local prediction (no local "
                                "prediction: no profile"),
             qPrintable(no_pred));
    const QString no_its = inputErrorOf([&] { (void)sailor::compareRun(7, s, {}); });
    QVERIFY2(no_its.startsWith("run: got run 7, which has no iterations"), qPrintable(no_its));
  }

  // Runs from one plan (a single stage): only the sum of the layers is measured, so one factor
  // for every layer. The hardware's blocks take 2x the profile's and the rest as profiled: the
  // factor lands between, and the stage's error goes from -36 % to within the noise.
  void oneFactorWhenTheRunsMeasureOneSum() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    const sailor::Plan single = plan({{0, kBlocks + 1}});
    const auto res = sailor::calibrateProfile(p, {measuredRun(1, single, 4, 1, 2, 1)});
    QCOMPARE(res.scales.size(), std::size_t{1});
    QCOMPARE(res.scales[0].layers, std::string("all layers"));
    // measured = 4 x 3 x (e + 4 x 2 k + h), the profile says 4 x 3 x (e + 4 k + h), plus
    // 6 x 1e5 x 1e-9 = 6e-4 s of optimizer on both sides: 2.6406 s against 1.6806 s.
    const double measured = 12 * (kEmbeddingF + 8 * kBlockF + kHeadF) + 6e-4;
    const double before = 12 * (kEmbeddingF + 4 * kBlockF + kHeadF) + 6e-4;
    SAILOR_COMPARE_REL(res.observations.at(0).measured_seconds, measured, 1e-9);
    SAILOR_COMPARE_REL(res.observations.at(0).before_seconds, before, 1e-9);
    SAILOR_COMPARE_REL(res.observations.at(0).after_seconds, measured, 1e-6);
    SAILOR_COMPARE_REL(res.scales[0].factor, (measured - 6e-4) / (before - 6e-4), 1e-6);
    // The written profile: a block's forward moved from 0.020 toward the hardware's 0.040.
    const double block_f =
        res.profile.at("runs").at(0).at("layers").at(1).at("forward_s").get<double>();
    SAILOR_COMPARE_REL(block_f, kBlockF * res.scales[0].factor, 1e-9);
    // The microbatch-2 entry was measured on its own and no stage ran with it: kept.
    QCOMPARE(res.scales[0].microbatch_size, 1);
    QCOMPARE(res.unchanged, std::vector<std::string>{"microbatch 2, tp 1"});
    QCOMPARE(res.profile.at("runs").at(1).at("layers").at(1).at("forward_s").get<double>(),
             1.8 * kBlockF);
    QVERIFY2(block_f > 1.4 * kBlockF && block_f < 2 * kBlockF,
             qPrintable(QString::number(block_f)));
    QCOMPARE(res.profile.at("measured_by").get<std::string>(),
             std::string("sailor profile on testhost, 2026-12-04T18:02:11Z (calibrated by sailor "
                         "calibrate from runs 1)"));
    // The calibrated profile reads back as a profile, its measurement date kept.
    QTemporaryDir t;
    QVERIFY(QDir().mkpath(t.path() + "/p"));
    writeProfileDir(t.path() + "/p");
    sailor::json_util::writeFileAtomically(t.path().toStdString() + "/p/profile.json",
                                           res.profile.dump());
    QCOMPARE(sailor::LocalProfile::load(t.path().toStdString() + "/p", "--profile").measured_at,
             std::string("2026-12-04T18:02:11Z"));
    const std::string text = sailor::formatCalibration(res, "/out");
    QVERIFY2(text.find("microbatch 1, tp 1: all layers") != std::string::npos, text.c_str());
    QVERIFY2(text.find("microbatch 2, tp 1: kept as measured") != std::string::npos, text.c_str());
    QVERIFY2(text.find("wrote /out/profile.json") != std::string::npos, text.c_str());
  }

  // Three plans whose stages hold different mixes of the kinds (a single stage; stages 0-2 |
  // 3-5; 0-1 | 2-5) determine each kind's factor: the hardware's 1.5x embedding, 2x blocks and
  // 1x head come back, and every stage's error after the fit is within the jitter.
  void oneFactorPerKindWhenTheRunsDetermineThem() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    const auto res = sailor::calibrateProfile(
        p, {measuredRun(1, plan({{0, kBlocks + 1}}), 4, 1.5, 2, 1),
            measuredRun(2, plan({{0, 2}, {3, kBlocks + 1}}), 4, 1.5, 2, 1),
            measuredRun(3, plan({{0, 1}, {2, kBlocks + 1}}), 4, 1.5, 2, 1)});
    QVERIFY2(res.scales.size() == 3, res.why.c_str());
    QCOMPARE(res.scales[0].layers, std::string("embedding"));
    SAILOR_COMPARE_REL(res.scales[0].factor, 1.5, 1e-6);
    SAILOR_COMPARE_REL(res.scales[1].factor, 2.0, 1e-6);
    SAILOR_COMPARE_REL(res.scales[2].factor, 1.0, 1e-6);
    QCOMPARE(res.observations.size(), std::size_t{5});
    for (const auto& o : res.observations)
      SAILOR_COMPARE_REL(o.after_seconds, o.measured_seconds, 1e-6);
    const json& layers = res.profile.at("runs").at(0).at("layers");
    SAILOR_COMPARE_REL(layers.at(0).at("backward_s").get<double>(), 2 * kEmbeddingF * 1.5, 1e-6);
    SAILOR_COMPARE_REL(layers.at(3).at("forward_s").get<double>(), kBlockF * 2, 1e-6);
    SAILOR_COMPARE_REL(layers.at(5).at("forward_s").get<double>(), kHeadF, 1e-6);
  }

  // NOTE [Collective bus bandwidth from runs]: two replicas of the whole model, whose gradient
  // sum (6 layers x 1e5 parameters x 4 B = 2.4e6 B; a ring of two moves 2 (D - 1) / D = 1 times
  // that through each replica's reduction) takes 24 ms for the replica that arrives last: 1e8 B/s,
  // 0.1 GB/s. The other replica waits 50 ms more and does not count. The link alone (the node's
  // 100 GB/s) would take microseconds, so the device is the bound and the figure is fitted.
  void collectiveBusFittedFromDataParallelSums() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    sailor::Plan dp2 = plan({{0, kBlocks + 1}});
    dp2.stages[0].replicas.push_back(dp2.stages[0].replicas[0]);
    sailor::CalibrationRun run{1, started(dp2, 4), {}};
    const double sum_s = 2.4e6 / 1e8;
    for (int i = 0; i < 6; ++i) {
      sailor::IterationEvent it;
      it.iteration = i;
      for (int r = 0; r < 2; ++r) {
        sailor::RunRankTimes t;
        t.rank = r;
        t.replica = r;
        t.compute_seconds = 12 * (kEmbeddingF + 4 * kBlockF + kHeadF);
        t.dp_seconds = sum_s + (r == 0 ? 0.05 : 0.0) + (i == 0 ? 1.0 : 0.0);  // 0: warm-up
        t.seconds = t.compute_seconds + t.dp_seconds;
        it.ranks.push_back(t);
      }
      it.iteration_seconds = it.ranks[0].seconds;
      run.iterations.push_back(it);
    }
    const auto res = sailor::calibrateProfile(p, {run});
    QCOMPARE(res.bus.size(), std::size_t{1});
    const sailor::BusObservation& o = res.bus[0];
    QCOMPARE(o.replicas, 2);
    SAILOR_COMPARE_REL(o.measured_seconds, sum_s, 1e-12);  // the last to arrive, median
    SAILOR_COMPARE_REL(o.bus_bytes, 2.4e6, 1e-6);
    QVERIFY2(o.link_seconds < 1e-3, qPrintable(QString::number(o.link_seconds)));
    SAILOR_COMPARE_REL(o.before_seconds, o.link_seconds, 1e-12);  // no bus figure before
    QVERIFY(!res.bus_before_gb_per_s);
    QVERIFY(res.bus_after_gb_per_s.has_value());
    SAILOR_COMPARE_REL(*res.bus_after_gb_per_s, 0.1, 1e-6);
    SAILOR_COMPARE_REL(o.after_seconds, sum_s, 1e-6);  // the calibrated profile predicts it
    QCOMPARE(res.catalog.at("gpus").at(0).at("collective_bus_bandwidth_gb_per_s").get<double>(),
             *res.bus_after_gb_per_s);
    const std::string text = sailor::formatCalibration(res, "/out");
    QVERIFY2(text.find("collective bus bandwidth (the data-parallel sums' own reduction): none "
                       "-> 0.1 GB/s") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("wrote /out/profile.json and catalog.json") != std::string::npos,
             text.c_str());
    QCOMPARE(res.toJson().at("collective_bus").at("after_gb_per_s").get<double>(),
             *res.bus_after_gb_per_s);
    // A pipeline alone has no data-parallel sum: the figure is kept, and catalog.json too.
    const auto pp =
        sailor::calibrateProfile(p, {measuredRun(2, plan({{0, 2}, {3, kBlocks + 1}}), 4, 1, 1, 1)});
    QVERIFY(pp.bus.empty());
    QVERIFY(pp.catalog.is_null());
    QVERIFY2(pp.bus_why.find("no run has a stage of two or more replicas") != std::string::npos,
             pp.bus_why.c_str());
  }

  void refusesRunsItCannotFit() {
    const auto p = sailor::LocalProfile::load(dir_.toStdString(), "--profile");
    auto other = measuredRun(4, plan({{0, kBlocks + 1}}), 4, 1, 1, 1);
    other.started.model.hidden_size = 128;
    const QString model = inputErrorOf([&] { (void)sailor::calibrateProfile(p, {other}); });
    QVERIFY2(model.startsWith("--run: got run 4: hidden 128, the profile's 64"), qPrintable(model));
    auto empty = measuredRun(5, plan({{0, kBlocks + 1}}), 4, 1, 1, 1);
    empty.iterations.clear();
    const QString none = inputErrorOf([&] { (void)sailor::calibrateProfile(p, {empty}); });
    QVERIFY2(none.startsWith("--run: got run 5, which has no iterations"), qPrintable(none));
    auto b2 = measuredRun(6, plan({{0, kBlocks + 1}}), 4, 1, 1, 1);
    b2.started.plan.microbatch_size = 4;
    const QString uncovered = inputErrorOf([&] { (void)sailor::calibrateProfile(p, {b2}); });
    QVERIFY2(uncovered.contains("the profile has no microbatch 4 at tp 1"), qPrintable(uncovered));
  }
};

QTEST_GUILESS_MAIN(TestCalibrate)
#include "test_calibrate.moc"
