// RunSpec (a plan mapped onto ranks, the model scaled to the machine, training settings) and
// TokenSource (the runtime's deterministic data). Rank layout, group membership helpers,
// learning-rate schedule and data determinism are what every worker relies on to agree with
// the others without talking to them; rejections are what `sailor run` refuses before any
// process starts.
#include <fstream>
#include <set>

#include <QTemporaryDir>
#include <QTest>

#include "sailor/catalog.hpp"
#include "sailor/plan.hpp"
#include "sailor/run_spec.hpp"
#include "sailor/token_data.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

Plan planOf(const json& j) {
  return Plan::fromJson(j);
}

json replica(const std::string& gpu, int tp) {
  return json{{"gpu_type", gpu}, {"tp", tp}, {"zone", "z"}};
}

// OPT-350M: 24 blocks (26 plan layers), 16 heads, ffn 4 x hidden, tied.
json heteroPlan() {
  return json{{"microbatch_size", 2},
              {"stages",
               {{{"first_layer", 0},
                 {"last_layer", 10},
                 {"replicas", {replica("V100-16", 1), replica("A100-40", 2)}}},
                {{"first_layer", 11},
                 {"last_layer", 25},
                 {"replicas", {replica("A100-40", 4), replica("V100-16", 1)}}}}}};
}

Job jobOf(int global_batch, int seq) {
  Job j;
  j.model = "OPT-350M";
  j.global_batch_size = global_batch;
  j.sequence_length = seq;
  return j;
}

}  // namespace

class TestRunSpec : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());
  const ModelSpec& opt() { return cat_.model("OPT-350M", "model"); }

 private slots:
  // G / b microbatches dealt round robin over D pipelines (microbatch u of pipeline d is the
  // iteration's u * D + d): pipeline d runs ceil or floor of M / D; `microbatches` is the most.
  void unevenSplitDealsMicrobatchesRoundRobin_data() {
    QTest::addColumn<int>("replicas");
    QTest::addColumn<int>("global_batch");
    QTest::addColumn<std::vector<int>>("per_pipeline");
    QTest::newRow("4 over 2 (even)") << 2 << 8 << std::vector<int>{2, 2};
    QTest::newRow("4 over 3") << 3 << 8 << std::vector<int>{2, 1, 1};
    QTest::newRow("7 over 3") << 3 << 14 << std::vector<int>{3, 2, 2};
    QTest::newRow("5 over 4") << 4 << 10 << std::vector<int>{2, 1, 1, 1};
    QTest::newRow("3 over 3") << 3 << 6 << std::vector<int>{1, 1, 1};
  }
  void unevenSplitDealsMicrobatchesRoundRobin() {
    QFETCH(int, replicas);
    QFETCH(int, global_batch);
    QFETCH(std::vector<int>, per_pipeline);
    json reps = json::array();
    for (int d = 0; d < replicas; ++d) reps.push_back(replica("A100-40", 1));
    const json plan{{"microbatch_size", 2},
                    {"stages",
                     {{{"first_layer", 0}, {"last_layer", 12}, {"replicas", reps}},
                      {{"first_layer", 13}, {"last_layer", 25}, {"replicas", reps}}}}};
    const RunSpec s = RunSpec::build(planOf(plan), jobOf(global_batch, 64), opt(), RunOptions{});
    QCOMPARE(s.totalMicrobatches(), global_batch / 2);
    std::vector<int> got;
    int sum = 0;
    for (int d = 0; d < replicas; ++d) {
      got.push_back(s.pipelineMicrobatches(d));
      sum += got.back();
    }
    QCOMPARE(got, per_pipeline);
    QCOMPARE(sum, s.totalMicrobatches());  // every microbatch exactly once
    QCOMPARE(s.microbatches, per_pipeline.front());
  }

  void ranksAreStageMajorThenReplicaThenTpRank() {
    const RunSpec s = RunSpec::build(planOf(heteroPlan()), jobOf(8, 2048), opt(), RunOptions{});
    QCOMPARE(s.worldSize(), 1 + 2 + 4 + 1);
    QCOMPARE(s.data_parallel, 2);
    QCOMPARE(s.microbatches, 2);  // 8 sequences / (2 replicas x 2 per microbatch)
    const std::vector<int> expected_stage{0, 0, 0, 1, 1, 1, 1, 1};
    const std::vector<int> expected_replica{0, 1, 1, 0, 0, 0, 0, 1};
    const std::vector<int> expected_tp_rank{0, 0, 1, 0, 1, 2, 3, 0};
    for (int r = 0; r < s.worldSize(); ++r) {
      QCOMPARE(s.ranks[r].rank, r);
      QCOMPARE(s.ranks[r].stage, expected_stage[r]);
      QCOMPARE(s.ranks[r].replica, expected_replica[r]);
      QCOMPARE(s.ranks[r].tp_rank, expected_tp_rank[r]);
    }
    QCOMPARE(s.replicaRanks(1, 0), (std::vector<int>{3, 4, 5, 6}));
    QCOMPARE(s.stageRanks(0), (std::vector<int>{0, 1, 2}));
    QCOMPARE(s.ranks[7].gpu_type, std::string("V100-16"));
  }

  void modelIsScaledKeepingLayersHeadsAndShape() {
    const RunSpec s = RunSpec::build(planOf(heteroPlan()), jobOf(8, 2048), opt(), RunOptions{});
    QCOMPARE(s.model.layers, 24);
    QCOMPARE(s.model.heads, 16);
    QCOMPARE(s.model.hidden_size, 256);       // 16 heads x 16
    QCOMPARE(s.model.ffn_hidden_size, 1024);  // the catalogue's 4x ratio
    QCOMPARE(s.model.vocab_size, 256);
    QCOMPARE(s.model.sequence_length, 64);  // min(job 2048, 64)
    QVERIFY(s.model.tied_embeddings);
    RunOptions o;
    o.hidden_size = 64;
    o.sequence_length = 16;
    const RunSpec t = RunSpec::build(planOf(heteroPlan()), jobOf(8, 2048), opt(), o);
    QCOMPARE(t.model.hidden_size, 64);
    QCOMPARE(t.model.ffn_hidden_size, 256);
    QCOMPARE(t.model.sequence_length, 16);
  }

  void jsonRoundTripGivesTheSameSpec() {
    RunOptions o;
    o.iterations = 7;
    o.seed = 99;
    o.dtype = "float64";
    Job job = jobOf(16, 32);
    job.precision = Precision::Bf16;
    job.optimizer = Optimizer::Sgd;
    job.recompute = Recompute::Full;
    const RunSpec a = RunSpec::build(planOf(heteroPlan()), job, opt(), o);
    const RunSpec b = RunSpec::fromJson(json::parse(a.toJson().dump()));
    QVERIFY(b.toJson() == a.toJson());
    QCOMPARE(b.worldSize(), a.worldSize());
    QCOMPARE(b.microbatches, 4);
    QCOMPARE(b.seed, std::uint64_t{99});
    // The job's training settings reach the workers.
    QVERIFY(b.precision == Precision::Bf16);
    QVERIFY(b.optimizer == Optimizer::Sgd);
    QVERIFY(b.recompute == Recompute::Full);
    json bad = a.toJson();
    bad["recompute"] = "selective";
    const QString e = test::inputErrorOf([&] { (void)RunSpec::fromJson(bad); });
    QVERIFY2(e.contains("recompute") && e.contains("selective"), qPrintable(e));
  }

  void learningRateWarmsUpThenDecaysToTheMinimum() {
    RunOptions o;
    o.iterations = 12;
    o.learning_rate = 1e-3;
    o.min_learning_rate = 1e-4;
    o.warmup_iterations = 2;
    const RunSpec s = RunSpec::build(planOf(heteroPlan()), jobOf(8, 64), opt(), o);
    SAILOR_COMPARE_REL(s.learningRateAt(0), 5e-4, 1e-12);
    SAILOR_COMPARE_REL(s.learningRateAt(1), 1e-3, 1e-12);
    SAILOR_COMPARE_REL(s.learningRateAt(2), 1e-3, 1e-12);    // cosine starts at the peak
    SAILOR_COMPARE_REL(s.learningRateAt(7), 5.5e-4, 1e-12);  // halfway: (peak + min) / 2
    SAILOR_COMPARE_REL(s.learningRateAt(12), 1e-4, 1e-12);
    for (int i = 3; i <= 12; ++i) QVERIFY(s.learningRateAt(i) < s.learningRateAt(i - 1));
  }

  void rejections_data() {
    QTest::addColumn<QString>("plan");
    QTest::addColumn<int>("global_batch");
    QTest::addColumn<QStringList>("needles");
    QTest::newRow("gap between stages")
        << R"({"microbatch_size":1,"stages":[{"first_layer":0,"last_layer":10,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"}]},{"first_layer":12,"last_layer":25,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"}]}]})"
        << 8 << QStringList{"stages[1].first_layer", "got 12", "expected 11"};
    QTest::newRow("layers short of the model")
        << R"({"microbatch_size":1,"stages":[{"first_layer":0,"last_layer":20,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"}]}]})"
        << 8 << QStringList{"stages[0].last_layer", "got 20", "25"};
    QTest::newRow("layers beyond the model")
        << R"({"microbatch_size":1,"stages":[{"first_layer":0,"last_layer":30,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"}]}]})"
        << 8 << QStringList{"stages[0].last_layer", "got 30", "26 plan layers"};
    QTest::newRow("tp does not divide heads")
        << R"({"microbatch_size":1,"stages":[{"first_layer":0,"last_layer":25,"replicas":[{"gpu_type":"A100-40","tp":3,"zone":"z"}]}]})"
        << 8 << QStringList{"stages[0].replicas[0].tp", "got 3", "16 heads"};
    QTest::newRow("stages differ in data-parallel degree")
        << R"({"microbatch_size":1,"stages":[{"first_layer":0,"last_layer":10,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"}]},{"first_layer":11,"last_layer":25,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"},{"gpu_type":"A100-40","tp":1,"zone":"z"}]}]})"
        << 8 << QStringList{"stages[1].replicas", "2 replicas", "1 like stage 0"};
    QTest::newRow("global batch not whole microbatches")
        << R"({"microbatch_size":3,"stages":[{"first_layer":0,"last_layer":25,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"}]}]})"
        << 8 << QStringList{"global_batch_size", "got 8", "multiple of the microbatch size 3"};
    QTest::newRow("global batch leaves a replica idle")
        << R"({"microbatch_size":2,"stages":[{"first_layer":0,"last_layer":25,"replicas":[{"gpu_type":"A100-40","tp":1,"zone":"z"},{"gpu_type":"A100-40","tp":1,"zone":"z"},{"gpu_type":"A100-40","tp":1,"zone":"z"}]}]})"
        << 4 << QStringList{"global_batch_size", "got 4", "at least 3 replicas x 2"};
  }
  void rejections() {
    QFETCH(QString, plan);
    QFETCH(int, global_batch);
    QFETCH(QStringList, needles);
    const QString msg = test::inputErrorOf([&] {
      (void)RunSpec::build(planOf(json::parse(plan.toStdString())), jobOf(global_batch, 64), opt(),
                           RunOptions{});
    });
    for (const QString& n : needles) QVERIFY2(msg.contains(n), qPrintable(msg + " lacks " + n));
  }

  void optionRejections() {
    const Plan p = planOf(heteroPlan());
    auto msg_for = [&](auto tweak) {
      RunOptions o;
      tweak(o);
      return test::inputErrorOf([&] { (void)RunSpec::build(p, jobOf(8, 64), opt(), o); });
    };
    QVERIFY(msg_for([](RunOptions& o) { o.hidden_size = 72; }).contains("--hidden: got 72"));
    QVERIFY(msg_for([](RunOptions& o) { o.dtype = "bf16"; }).contains("--dtype"));
    QVERIFY(msg_for([](RunOptions& o) { o.backend = "mpi"; }).contains("--backend"));
    QVERIFY(msg_for([](RunOptions& o) { o.iterations = 0; }).contains("--iterations: got 0"));
    QVERIFY(msg_for([](RunOptions& o) { o.learning_rate = -1; }).contains("--lr"));
    // --global-batch has the job file's bound (1 to kMaxGlobalBatchSize); within it the plan's
    // rule (Plan::checkGlobalBatch) applies.
    QVERIFY(msg_for([](RunOptions& o) {
              o.global_batch_size = 1'000'002;
            }).contains("--global-batch: got 1000002, expected an integer from 1 to 1000000"));
    QVERIFY(
        msg_for([](RunOptions& o) { o.global_batch_size = 0; }).contains("--global-batch: got 0"));
    const QString odd = msg_for([](RunOptions& o) { o.global_batch_size = 999'999; });
    QVERIFY2(odd.contains("global_batch_size: got 999999"), qPrintable(odd));
  }

  void syntheticDataIsDeterministicAndLearnable() {
    const TokenSource a = TokenSource::synthetic(7), b = TokenSource::synthetic(7),
                      c = TokenSource::synthetic(8);
    QCOMPARE(a.sample(12345, 64), b.sample(12345, 64));
    QVERIFY(a.sample(12345, 64) != c.sample(12345, 64));
    QVERIFY(a.sample(1, 64) != a.sample(2, 64));
    const std::vector<std::int64_t> s = a.sample(3, 256);
    QCOMPARE(s.size(), std::size_t{257});
    // Mostly the affine recurrence: the next token follows from the previous one.
    int follows = 0;
    std::set<std::int64_t> distinct;
    for (std::size_t t = 0; t + 1 < s.size(); ++t) {
      QVERIFY(s[t] >= 0 && s[t] < 256);
      distinct.insert(s[t]);
      const std::int64_t next0 = (5 * s[t] + 7) & 0xff, next1 = (5 * s[t] + 9) & 0xff;
      follows += s[t + 1] == next0 || s[t + 1] == next1;
    }
    QVERIFY2(follows > 200, qPrintable(QString::number(follows)));
    QVERIFY(distinct.size() > 32);
  }

  void textDataIsWindowsOfTheFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.txt").toStdString();
    std::string text;
    for (int i = 0; i < 50; ++i) text += "line " + std::to_string(i) + " of the text. ";
    std::ofstream(path) << text;
    const TokenSource src = TokenSource::textFile(path, 1);
    QVERIFY(src.isText());
    const std::vector<std::int64_t> s = src.sample(5, 32);
    std::string window(s.begin(), s.end());
    QVERIFY2(text.find(window) != std::string::npos, window.c_str());
    QCOMPARE(TokenSource::textFile(path, 1).sample(5, 32), s);
    QVERIFY(test::inputErrorOf([&] {
              (void)TokenSource::textFile(dir.filePath("none").toStdString(), 1);
            }).contains("--data"));
    std::ofstream(dir.filePath("short.txt").toStdString()) << "too short";
    QVERIFY(test::inputErrorOf([&] {
              (void)TokenSource::textFile(dir.filePath("short.txt").toStdString(), 1);
            }).contains("at least 130 bytes"));
    // The shipped text is long enough for the runtime's default windows.
    const TokenSource shipped =
        TokenSource::textFile(test::resources() + "/text/public-domain.txt", 1);
    QCOMPARE(shipped.sample(0, 64).size(), std::size_t{65});
  }
};

QTEST_GUILESS_MAIN(TestRunSpec)
#include "test_run_spec.moc"
