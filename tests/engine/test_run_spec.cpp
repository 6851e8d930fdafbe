// RunSpec (a plan mapped onto ranks, the model scaled to the machine, training settings) and
// TokenSource (the runtime's deterministic data). Rank layout, group membership helpers,
// learning-rate schedule and data determinism are what every worker relies on to agree with
// the others without talking to them; rejections are what `sailor run` refuses before any
// process starts.
#include <fstream>
#include <set>

#include <QTemporaryDir>
#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/runs/token_data.hpp"
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

// A token file: `ids` as little-endian uint16 or uint32, after llm.c's 256-int32 header when
// `llmc_version` is 1 or 2 (its magic, version, token count).
void writeTokens(const std::string& path, const std::vector<std::uint32_t>& ids, int width,
                 int llmc_version = 0, std::int64_t llmc_count = -1) {
  std::ofstream out(path, std::ios::binary);
  if (llmc_version > 0) {
    std::vector<std::int32_t> header(256, 0);
    header[0] = 20240520;
    header[1] = llmc_version;
    header[2] = static_cast<std::int32_t>(llmc_count >= 0 ? llmc_count
                                                          : static_cast<std::int64_t>(ids.size()));
    out.write(reinterpret_cast<const char*>(header.data()), 1024);
  }
  for (std::uint32_t id : ids) {
    if (width == 2) {
      const auto v = static_cast<std::uint16_t>(id);
      out.write(reinterpret_cast<const char*>(&v), 2);
    } else {
      out.write(reinterpret_cast<const char*>(&id), 4);
    }
  }
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

  // Real size: the catalogue's dimensions and the job's sequence length; a token file's
  // vocabulary replaces the model's at either size.
  void realSizeIsTheCatalogueModel() {
    RunOptions o;
    o.real_size = true;
    const RunSpec s = RunSpec::build(planOf(heteroPlan()), jobOf(8, 2048), opt(), o);
    QCOMPARE(s.model.hidden_size, 1024);  // OPT-350M (resources/catalog/models.json)
    QCOMPARE(s.model.ffn_hidden_size, 4096);
    QCOMPARE(s.model.heads, 16);
    QCOMPARE(s.model.vocab_size, opt().vocab_size);
    QCOMPARE(s.model.sequence_length, 2048);  // the job's, not min(job, 64)
    o.vocab_size = 50257;
    o.data = "/data/train.bin";
    o.data_format = "tokens";
    const RunSpec t = RunSpec::build(planOf(heteroPlan()), jobOf(8, 2048), opt(), o);
    QCOMPARE(t.model.vocab_size, 50257);
    const RunSpec back = RunSpec::fromJson(json::parse(t.toJson().dump()));
    QVERIFY(back.toJson() == t.toJson());
    QCOMPARE(back.data_format, std::string("tokens"));
    QCOMPARE(back.model.vocab_size, 50257);
    RunOptions scaled;
    scaled.vocab_size = 1000;
    scaled.data = "/data/train.bin";
    scaled.data_format = "tokens";
    QCOMPARE(RunSpec::build(planOf(heteroPlan()), jobOf(8, 2048), opt(), scaled).model.vocab_size,
             1000);
    // A spec written before token files reads as synthetic or text.
    json old = RunSpec::build(planOf(heteroPlan()), jobOf(8, 64), opt(), RunOptions{}).toJson();
    old.erase("data_format");
    QCOMPARE(RunSpec::fromJson(old).data_format, std::string("synthetic"));
    old["data"] = "/tmp/a.txt";
    QCOMPARE(RunSpec::fromJson(old).data_format, std::string("text"));
  }

  // Every training setting of the options reaches the spec, and its file under the key of the
  // field's name at the top level (docs/formats.md), and reads back from it.
  void trainingSettingsReachTheSpecAndItsFile() {
    RunOptions o;
    o.iterations = 9;
    o.seed = 4321;
    o.data = "/data/train.txt";
    o.data_format = "text";
    o.dtype = "float64";
    o.backend = "gloo";
    o.learning_rate = 3e-3;
    o.min_learning_rate = 2e-4;
    o.warmup_iterations = 3;
    o.grad_clip = 0.5;
    o.weight_decay = 0.1;
    o.bucket_elements = 4096;
    const RunSpec s = RunSpec::build(planOf(heteroPlan()), jobOf(8, 64), opt(), o);
    const json j = s.toJson();
    const RunSpec back = RunSpec::fromJson(json::parse(j.dump()));
    for (const RunSpec* spec : {&s, &back}) {
      const TrainingSettings& t = spec->training();
      QCOMPARE(t.iterations, 9);
      QCOMPARE(t.seed, std::uint64_t{4321});
      QCOMPARE(t.data, std::string("/data/train.txt"));
      QCOMPARE(t.data_format, std::string("text"));
      QCOMPARE(t.dtype, std::string("float64"));
      QCOMPARE(t.backend, std::string("gloo"));
      QCOMPARE(t.learning_rate, 3e-3);
      QCOMPARE(t.min_learning_rate, 2e-4);
      QCOMPARE(t.warmup_iterations, 3);
      QCOMPARE(t.grad_clip, 0.5);
      QCOMPARE(t.weight_decay, 0.1);
      QCOMPARE(t.bucket_elements, std::int64_t{4096});
    }
    QCOMPARE(j.at("iterations").get<int>(), 9);
    QCOMPARE(j.at("seed").get<std::uint64_t>(), std::uint64_t{4321});
    QCOMPARE(j.at("data").get<std::string>(), std::string("/data/train.txt"));
    QCOMPARE(j.at("data_format").get<std::string>(), std::string("text"));
    QCOMPARE(j.at("dtype").get<std::string>(), std::string("float64"));
    QCOMPARE(j.at("backend").get<std::string>(), std::string("gloo"));
    QCOMPARE(j.at("learning_rate").get<double>(), 3e-3);
    QCOMPARE(j.at("min_learning_rate").get<double>(), 2e-4);
    QCOMPARE(j.at("warmup_iterations").get<int>(), 3);
    QCOMPARE(j.at("grad_clip").get<double>(), 0.5);
    QCOMPARE(j.at("weight_decay").get<double>(), 0.1);
    QCOMPARE(j.at("bucket_elements").get<std::int64_t>(), std::int64_t{4096});
    // The spec file's keys, in the order it writes them (sorted): the spec's own and the
    // training settings'.
    std::string keys;
    for (const auto& [key, value] : j.items()) keys += key + " ";
    QCOMPARE(keys, std::string("backend bucket_elements data data_format dtype format "
                               "global_batch_size grad_clip iterations learning_rate "
                               "min_learning_rate model optimizer plan precision recompute seed "
                               "warmup_iterations weight_decay "));
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
    // Token files and the model's size.
    const QString no_vocab = msg_for([](RunOptions& o) { o.data_format = "tokens"; });
    QVERIFY2(no_vocab.contains("--vocab: got nothing"), qPrintable(no_vocab));
    const QString bytes = msg_for([](RunOptions& o) { o.vocab_size = 512; });
    QVERIFY2(bytes.contains("--vocab: got 512") && bytes.contains("token file"), qPrintable(bytes));
    const QString tiny = msg_for([](RunOptions& o) {
      o.vocab_size = 1;
      o.data_format = "tokens";
    });
    QVERIFY2(tiny.contains("--vocab: got 1"), qPrintable(tiny));
    const QString hidden = msg_for([](RunOptions& o) {
      o.real_size = true;
      o.hidden_size = 64;
    });
    QVERIFY2(hidden.contains("--hidden: got 64") && hidden.contains("--scale"), qPrintable(hidden));
    QVERIFY(msg_for([](RunOptions& o) { o.data_format = "csv"; }).contains("data_format"));
  }

  // The model's bounds, whoever sizes it: every tensor a worker builds within
  // kMaxTensorElements, ints that stay ints (--hidden 1e9 made an MLP width of 4e9).
  void modelSizeBoundsAreChecked_data() {
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("seq_len");
    QTest::addColumn<int>("microbatch");
    QTest::addColumn<QString>("expected");
    QTest::newRow("hidden 1e9") << 1'000'000'000 << 0 << 2
                                << "--hidden: got 1000000000, expected a positive multiple of "
                                   "the model's 16 heads, at most 65536";
    QTest::newRow("hidden just above the bound") << 65536 + 16 << 0 << 2 << "at most 65536";
    QTest::newRow("seq-len above 2^20")
        << 0 << (1 << 20) + 1 << 2
        << "--seq-len: got 1048577, expected an integer from 1 to 1048576";
    // 128 x 16 heads x (2^20)^2 = 2^51 attention scores.
    QTest::newRow("attention scores over 2^50") << 0 << (1 << 20) << 128
                                                << "--seq-len: got 1048576, expected a model whose "
                                                   "tensors have at most 2^50 elements: the "
                                                   "attention scores";
    // 64 x 16 heads x (2^20)^2 = 2^50 attention scores; 2^18 x 2^16 MLP weights: within every
    // bound.
    QTest::newRow("at the bounds") << 65536 << (1 << 20) << 64 << "";
  }
  void modelSizeBoundsAreChecked() {
    QFETCH(int, hidden);
    QFETCH(int, seq_len);
    QFETCH(int, microbatch);
    QFETCH(QString, expected);
    const json plan{
        {"microbatch_size", microbatch},
        {"stages",
         {{{"first_layer", 0}, {"last_layer", 25}, {"replicas", {replica("A100-40", 1)}}}}}};
    RunOptions o;
    if (hidden > 0) o.hidden_size = hidden;
    if (seq_len > 0) o.sequence_length = seq_len;
    const Job job = jobOf(microbatch, 64);
    if (expected.isEmpty()) {
      // Checking does not build anything: a spec of this size is only numbers.
      const RunSpec s = RunSpec::build(planOf(plan), job, opt(), o);
      QCOMPARE(s.model.ffn_hidden_size, 4 * hidden);
      return;
    }
    const QString msg =
        test::inputErrorOf([&] { (void)RunSpec::build(planOf(plan), job, opt(), o); });
    QVERIFY2(msg.contains(expected), qPrintable(msg));
  }

  // rankMemoryBytes, the estimate `sailor run` checks against the machine's memory before any
  // worker starts: the engine's memory model (replicaMemoryBytes) on the model the workers build.
  void rankMemoryFollowsTheMemoryModel() {
    const json two_stages{
        {"microbatch_size", 2},
        {"stages",
         {{{"first_layer", 0}, {"last_layer", 12}, {"replicas", {replica("A100-40", 1)}}},
          {{"first_layer", 13}, {"last_layer", 25}, {"replicas", {replica("A100-40", 1)}}}}}};
    auto bytes = [&](int seq_len, int rank, const std::string& dtype = "float32",
                     Recompute recompute = Recompute::None) {
      RunOptions o;
      o.sequence_length = seq_len;
      o.dtype = dtype;
      Job job = jobOf(8, 64);
      job.recompute = recompute;
      return rankMemoryBytes(RunSpec::build(planOf(two_stages), job, opt(), o), rank);
    };
    // Stage 0 of two holds min(P - s, m) = 2 microbatches in flight, stage 1 one: with the
    // layers split 13 / 13 the first stage needs more.
    QVERIFY(bytes(64, 0) > bytes(64, 1));
    QCOMPARE(bytes(64, 0, "float64"), 2 * bytes(64, 0));
    QVERIFY(bytes(64, 0, "float32", Recompute::Full) < bytes(64, 0));
    // The runtime's scaled OPT-350M (hidden 256, 24 blocks): about 20 M parameters, so at
    // sequence 64 a rank needs some hundreds of MB; at sequence 100,000 the attention scores
    // (2 x 16 x 1e10 floats per block, 12 blocks kept) are terabytes.
    QVERIFY2(bytes(64, 0) > 1e8 && bytes(64, 0) < 1e9, qPrintable(QString::number(bytes(64, 0))));
    QVERIFY2(bytes(100'000, 0) > 1e13, qPrintable(QString::number(bytes(100'000, 0))));

    // Sharded over four replicas: the distributed optimizer keeps a quarter of the AdamW state
    // (less 3/4 of 8 bytes a parameter, plus the runtime's bucket copy of the gradients), fully
    // sharded a quarter of everything (weights, gradients and the state: 16 bytes a parameter)
    // and no bucket copy, plus the gathered parameters of two blocks.
    const json four{{"microbatch_size", 2},
                    {"stages",
                     {{{"first_layer", 0},
                       {"last_layer", 25},
                       {"replicas",
                        {replica("A100-40", 1), replica("A100-40", 1), replica("A100-40", 1),
                         replica("A100-40", 1)}}}}}};
    auto sharded = [&](const std::string& sharding) {
      json plan = four;
      plan["schedule"] = {{"sharding", sharding}};
      return rankMemoryBytes(RunSpec::build(planOf(plan), jobOf(8, 64), opt(), RunOptions{}), 0);
    };
    const double none = sharded("none"), optimizer = sharded("optimizer"), full = sharded("full");
    QVERIFY2(optimizer < none && full < optimizer,
             qPrintable(QString("%1 %2 %3").arg(none).arg(optimizer).arg(full)));
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

  // nanoGPT's flat uint16 ids: each sample is a window of consecutive ids of the file, the same
  // in every source of the same seed.
  void tokenFileSamplesAreWindowsOfItsIds() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("train.bin").toStdString();
    std::vector<std::uint32_t> ids(5000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i % 1000);
    writeTokens(path, ids, 2);
    const TokenFileInfo f = inspectTokenFile(path, 1000, 64, true);
    QCOMPARE(f.token_bytes, 2);
    QCOMPARE(f.header_bytes, std::int64_t{0});
    QCOMPARE(f.tokens, std::int64_t{5000});
    QVERIFY(!hasLlmcTokenHeader(path));
    const TokenSource a = TokenSource::tokenFile(path, 1000, 3);
    const TokenSource b = TokenSource::open(path, "tokens", 1000, 3);
    std::set<std::int64_t> starts;
    for (int i = 0; i < 20; ++i) {
      const std::vector<std::int64_t> s = a.sample(i, 64);
      QCOMPARE(s.size(), std::size_t{65});
      QCOMPARE(b.sample(i, 64), s);
      for (std::size_t t = 0; t + 1 < s.size(); ++t)  // consecutive ids of the file
        QCOMPARE(s[t + 1], (s[t] + 1) % 1000);
      starts.insert(s[0]);
    }
    QVERIFY(starts.size() > 10);  // windows at seeded offsets, not one place
    QVERIFY(TokenSource::tokenFile(path, 1000, 4).sample(0, 64) != a.sample(0, 64));
  }

  // llm.c's header: version 2 holds uint32 ids (Llama 3's vocabulary of 128,256).
  void llmcTokenFileWithUint32Ids() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("llama.bin").toStdString();
    std::vector<std::uint32_t> ids(400);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = 127'800 + static_cast<std::uint32_t>(i);
    writeTokens(path, ids, 4, 2);
    QVERIFY(hasLlmcTokenHeader(path));
    const TokenFileInfo f = inspectTokenFile(path, 128'256, 32, true);
    QCOMPARE(f.token_bytes, 4);
    QCOMPARE(f.header_bytes, std::int64_t{1024});
    QCOMPARE(f.tokens, std::int64_t{400});
    const std::vector<std::int64_t> s = TokenSource::tokenFile(path, 128'256, 1).sample(7, 32);
    QVERIFY(s[0] >= 127'800 && s[0] + 32 < 128'200);  // ids above 65,535 read whole
    QCOMPARE(s[32], s[0] + 32);
    // The same ids in a version-1 (uint16) file cannot be: llm.c's GPT-2 data.
    const std::string small = dir.filePath("gpt2.bin").toStdString();
    writeTokens(small, std::vector<std::uint32_t>(200, 50'256), 2, 1);
    QCOMPARE(inspectTokenFile(small, 50'257, 32, true).token_bytes, 2);
  }

  void tokenFileRejections() {
    QTemporaryDir dir;
    const auto at = [&](const char* name) { return dir.filePath(name).toStdString(); };
    std::vector<std::uint32_t> ids(300, 5);
    ids[217] = 70'000;  // beyond --vocab 50257
    writeTokens(at("big-id.bin"), ids, 4);
    const auto error = [](const std::string& path, int vocab) {
      return test::inputErrorOf([&] { (void)inspectTokenFile(path, vocab, 16, true); });
    };
    // uint32 (vocabulary over 65,536): 70000 is a valid id of 100,000.
    QCOMPARE(inspectTokenFile(at("big-id.bin"), 100'000, 16, true).tokens, std::int64_t{300});
    std::vector<std::uint32_t> v(300, 5);
    v[217] = 60'000;
    writeTokens(at("big-id16.bin"), v, 2);
    const QString beyond = error(at("big-id16.bin"), 50'257);
    QVERIFY2(beyond.contains("--data") && beyond.contains("token 217") &&
                 beyond.contains("id 60000") && beyond.contains("--vocab 50257"),
             qPrintable(beyond));
    // sample() checks the ids it reads too (the scan is the controller's, before any worker).
    QVERIFY(test::inputErrorOf([&] {
              const TokenSource src = TokenSource::tokenFile(at("big-id16.bin"), 50'257, 1);
              for (int i = 0; i < 200; ++i) (void)src.sample(i, 100);
            }).contains("id 60000"));
    std::ofstream(at("odd.bin"), std::ios::binary) << std::string(301, 'x');
    QVERIFY(error(at("odd.bin"), 50'257).contains("a multiple of 2 bytes"));
    writeTokens(at("short.bin"), std::vector<std::uint32_t>(20, 1), 2);
    QVERIFY(error(at("short.bin"), 50'257).contains("at least 34 tokens"));
    writeTokens(at("count.bin"), std::vector<std::uint32_t>(100, 1), 2, 1, 90);
    QVERIFY(error(at("count.bin"), 50'257).contains("llm.c header says 90 tokens"));
    writeTokens(at("version.bin"), std::vector<std::uint32_t>(100, 1), 2, 3);
    QVERIFY(error(at("version.bin"), 50'257).contains("version 3"));
    QVERIFY(error(at("none.bin"), 50'257).contains("a readable token file"));
    QVERIFY(error(dir.path().toStdString(), 50'257).contains("a readable token file"));
  }
};

QTEST_GUILESS_MAIN(TestRunSpec)
#include "test_run_spec.moc"
