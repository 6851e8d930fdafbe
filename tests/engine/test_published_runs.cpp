// Published large-scale training runs as simulator inputs (sailor/simulation/published_runs.hpp):
// small inline rows mapped to plan, links, schedule and assumptions; each malformed input an
// InputError naming the run and the field; and the shared calibration file read whole, every row
// predicted or skipped with a reason. Accuracy is tracked in docs/simulator.md, not asserted.
#include <cmath>
#include <filesystem>
#include <set>

#include <QObject>
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/simulation/published_runs.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// A complete small row: 4 blocks on 16 A100-80 in two nodes, tp 2 x pp 2 x dp 4.
json smallRow() {
  return json{{"id", "small-megatron"},
              {"framework", "Megatron-LM"},
              {"model",
               {{"name", "GPT small"},
                {"layers", 4},
                {"hidden", 256},
                {"ffn_hidden", nullptr},
                {"heads", 4},
                {"kv_heads", nullptr},
                {"vocab", 1000},
                {"mlp", nullptr},
                {"position", nullptr},
                {"parameters_billion", 0.004}}},
              {"sequence_length", 128},
              {"global_batch_size", 16},
              {"microbatch_size", 2},
              {"precision", "bf16"},
              {"optimizer", nullptr},
              {"activation_recomputation", "selective"},
              {"zero_stage", 1},
              {"interleaved_virtual_stages", 2},
              {"hardware",
               {{"gpu_type", "A100 80GB"},
                {"catalogue_gpu", "A100-80"},
                {"gpus", 16},
                {"gpus_per_node", 8},
                {"inter_node_gbit_per_gpu", 200},
                {"fabric", "InfiniBand"},
                {"intra_node", "NVLink"}}},
              {"parallelism", {{"tp", 2}, {"pp", 2}, {"dp", 4}, {"cp", 1}}},
              {"measured",
               {{"tflops_per_gpu", 100},
                {"mfu", nullptr},
                {"tokens_per_s_per_gpu", nullptr},
                {"iteration_time_s", 1.5}}},
              {"derived", {{"iteration_time_s", nullptr}, {"formula", "measured"}}},
              {"verification", "primary"},
              {"notes", "test row"}};
}

json doc(const json& row) {
  return json{{"runs", json::array({row})}};
}

bool hasLine(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

QString joined(const std::vector<std::string>& lines) {
  QString out;
  for (const auto& l : lines) out += QString::fromStdString(l) + "\n";
  return out;
}

}  // namespace

class TestPublishedRuns : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;

  // The field of the InputError that reading `row` throws ("" when none).
  std::string errorField(const json& row) {
    try {
      readPublishedRuns(doc(row), cat_, "test.json");
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  }

 private slots:
  void initTestCase() { cat_ = Catalog::load(test::resources()); }

  void recognisesTheFormatByContent() {
    QVERIFY(isPublishedRuns(doc(smallRow())));
    QVERIFY(!isPublishedRuns(json{{"points", json::array()}}));
    QVERIFY(!isPublishedRuns(json{{"runs", json::array({json{{"id", "x"}}})}}));
    QVERIFY(!isPublishedRuns(json::array()));
  }

  // Plan shape, links, schedule and the values filled by rules, on a Megatron-LM row.
  void mapsAMegatronRow() {
    const PublishedRuns r = readPublishedRuns(doc(smallRow()), cat_, "test.json");
    QCOMPARE(r.runs.size(), size_t{1});
    QVERIFY(r.skipped.empty());
    const PublishedRun& run = r.runs[0];
    QCOMPARE(run.plan.microbatch_size, 2);
    QCOMPARE(run.plan.stages.size(), size_t{2});
    // Plan layers: 0 embedding, 1..4 blocks, 5 head; two blocks per stage.
    QCOMPARE(run.plan.stages[0].first_layer, 0);
    QCOMPARE(run.plan.stages[0].last_layer, 2);
    QCOMPARE(run.plan.stages[1].first_layer, 3);
    QCOMPARE(run.plan.stages[1].last_layer, 5);
    for (const Stage& s : run.plan.stages) {
      QCOMPARE(s.replicas.size(), size_t{4});
      QCOMPARE(s.replicas[0].tp, 2);
      QCOMPARE(s.replicas[0].gpu_type, std::string("A100-80"));
    }
    QCOMPARE(run.plan.schedule.virtual_stages, 2);
    QVERIFY(run.plan.schedule.sharding == DpSharding::Optimizer);
    QVERIFY(run.plan.schedule.recompute == Recompute::Selective);
    QVERIFY(!run.plan.schedule.overlap_grad_reduce);
    QVERIFY(run.options.schedule == PipelineSchedule::Async1F1B);
    QVERIFY(run.job.precision == Precision::Bf16);
    QVERIFY(run.job.optimizer == Optimizer::Adam);
    QCOMPARE(run.job.global_batch_size, 16);
    // 200 Gb/s per GPU x 8 GPUs / 8 bits: 200 GB/s per node.
    SAILOR_COMPARE_REL(run.scenario.default_links.at(Relation::SameZone).bytes_per_s, 200e9, 1e-12);
    QCOMPARE(run.scenario.pools.size(), size_t{1});
    QCOMPARE(run.scenario.pools[0].count, 16);
    QCOMPARE(run.scenario.pools[0].gpus_per_node.value_or(0), 8);
    const ModelSpec& m = r.catalog.model(run.job.model, "model");
    QCOMPARE(m.ffn_hidden_size, 1024);
    QCOMPARE(m.kv_heads, 4);
    QVERIFY(m.tied_embeddings);
    QVERIFY2(hasLine(run.assumptions, "model.ffn_hidden 1024 (not stated; Megatron-LM"),
             qPrintable(joined(run.assumptions)));
    QVERIFY2(hasLine(run.assumptions, "optimizer adam (not stated;"),
             qPrintable(joined(run.assumptions)));
    QVERIFY2(hasLine(run.assumptions, "gradient all-reduce after the backward"),
             qPrintable(joined(run.assumptions)));
    QVERIFY(!hasLine(run.assumptions, "microbatch_size"));  // stated
    const PublishedReport rep = validatePublishedRuns(r);
    QCOMPARE(rep.rows.size(), size_t{1});
    QVERIFY(std::isfinite(rep.rows[0].predicted_iteration_s) &&
            rep.rows[0].predicted_iteration_s > 0);
    const json j = rep.toJson();
    for (const char* k : {"points", "mean_time_error", "max_time_error", "skipped"})
      QVERIFY2(j.contains(k), k);
    for (const char* k :
         {"id", "predicted_iteration_s", "measured_iteration_s", "time_error", "assumptions"})
      QVERIFY2(j["points"][0].contains(k), k);
  }

  // A DeepSpeed pipeline that counts the embedding and head as blocks, under ZeRO-3.
  void mapsADeepSpeedRow() {
    json row = smallRow();
    row["id"] = "small-deepspeed";
    row["framework"] = "Megatron-DeepSpeed";
    row["notes"] = "pipeline partition 'type:transformer|embedding'";
    row["zero_stage"] = 3;
    row["interleaved_virtual_stages"] = nullptr;
    row["model"]["layers"] = 6;
    row["model"]["ffn_hidden"] = 1024;
    const PublishedRuns r = readPublishedRuns(doc(row), cat_, "test.json");
    QCOMPARE(r.runs.size(), size_t{1});
    const PublishedRun& run = r.runs[0];
    // 8 units (embedding, 6 blocks, head) over 2 stages: plan layers 0..3 and 4..7.
    QCOMPARE(run.plan.stages[0].last_layer, 3);
    QCOMPARE(run.plan.stages[1].first_layer, 4);
    QCOMPARE(run.plan.stages[1].last_layer, 7);
    QVERIFY(run.options.schedule == PipelineSchedule::DeepSpeed);
    QVERIFY(run.plan.schedule.sharding == DpSharding::Full);
    QVERIFY(run.plan.schedule.overlap_grad_reduce);
    QCOMPARE(run.plan.schedule.virtual_stages, 1);
    QVERIFY2(hasLine(run.assumptions, "interleaved_virtual_stages 1 (not stated; DeepSpeed"),
             qPrintable(joined(run.assumptions)));
  }

  // tp and pp from the model-parallel size (Megatron-LM's README rule), the fabric of a DGX A100.
  void fillsParallelismAndFabricByRules() {
    json row = smallRow();
    row["parallelism"]["tp"] = nullptr;
    row["parallelism"]["pp"] = nullptr;
    row["parallelism"]["dp"] = 1;
    row["model_parallel_size"] = 16;
    row["hardware"]["inter_node_gbit_per_gpu"] = nullptr;
    row["hardware"]["gpu_type"] = "A100-80 (DGX A100)";
    row["interleaved_virtual_stages"] = nullptr;
    row["microbatch_size"] = 1;
    const PublishedRuns r = readPublishedRuns(doc(row), cat_, "test.json");
    QCOMPARE(r.runs.size(), size_t{1});
    const PublishedRun& run = r.runs[0];
    QCOMPARE(run.tp, 8);
    QCOMPARE(run.pp, 2);
    SAILOR_COMPARE_REL(run.scenario.default_links.at(Relation::SameZone).bytes_per_s, 200e9, 1e-12);
    QVERIFY2(hasLine(run.assumptions, "parallelism.tp 8 (not stated;"),
             qPrintable(joined(run.assumptions)));
    QVERIFY2(
        hasLine(run.assumptions, "hardware.inter_node_gbit_per_gpu 200 (not stated; a DGX A100"),
        qPrintable(joined(run.assumptions)));
  }

  // Gaps of the data leave the row out with the reason; the other rows are still read.
  void skipsRowsWithGaps() {
    json no_time = smallRow();
    no_time["id"] = "no-time";
    no_time["measured"]["iteration_time_s"] = nullptr;
    json no_rule = smallRow();
    no_rule["id"] = "no-rule";
    no_rule["framework"] = "Custom";
    no_rule["optimizer"] = "adam";
    no_rule["model"]["ffn_hidden"] = 1024;
    no_rule["model"]["mlp"] = "gelu";
    no_rule["model"]["position"] = "learned";
    no_rule["microbatch_size"] = nullptr;
    json cp = smallRow();
    cp["id"] = "cp";
    cp["parallelism"] = {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"cp", 2}};
    const PublishedRuns r = readPublishedRuns(
        json{{"runs", json::array({no_time, smallRow(), no_rule, cp})}}, cat_, "test.json");
    QCOMPARE(r.runs.size(), size_t{1});
    QCOMPARE(r.skipped.size(), size_t{3});
    QCOMPARE(r.skipped[0].id, std::string("no-time"));
    QVERIFY(r.skipped[0].reason.find("no iteration time") != std::string::npos);
    QCOMPARE(r.skipped[1].id, std::string("no-rule"));
    QVERIFY2(r.skipped[1].reason.find("microbatch_size is not stated") != std::string::npos,
             r.skipped[1].reason.c_str());
    QCOMPARE(r.skipped[2].id, std::string("cp"));
    QVERIFY(r.skipped[2].reason.find("context parallelism") != std::string::npos);
  }

  void refusesBadInput_data() {
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    const QString at = "runs[0] (small-megatron).";
    QTest::newRow("product") << "/hardware/gpus"
                             << "32" << at + "parallelism";
    QTest::newRow("unknown gpu") << "/hardware/catalogue_gpu"
                                 << "\"Z100\"" << at + "hardware.catalogue_gpu";
    QTest::newRow("no fabric") << "/hardware/inter_node_gbit_per_gpu"
                               << "null" << at + "hardware.inter_node_gbit_per_gpu";
    QTest::newRow("negative throughput") << "/measured/tflops_per_gpu"
                                         << "-5" << at + "measured.tflops_per_gpu";
    QTest::newRow("zero time") << "/measured/iteration_time_s"
                               << "0" << at + "measured.iteration_time_s";
    QTest::newRow("negative derived time") << "/derived/iteration_time_s"
                                           << "-1" << at + "derived.iteration_time_s";
    QTest::newRow("tp as text") << "/parallelism/tp"
                                << "\"2\"" << at + "parallelism.tp";
    QTest::newRow("layers as text") << "/model/layers"
                                    << "\"four\"" << at + "model.layers";
    QTest::newRow("fractional batch") << "/global_batch_size"
                                      << "16.5" << at + "global_batch_size";
    QTest::newRow("batch not whole microbatches") << "/global_batch_size"
                                                  << "12" << at + "global_batch_size";
    QTest::newRow("negative microbatch") << "/microbatch_size"
                                         << "-2" << at + "microbatch_size";
    QTest::newRow("tp above the node") << "/hardware/gpus_per_node"
                                       << "1" << at + "parallelism.tp";
    QTest::newRow("zero stage 4") << "/zero_stage"
                                  << "4" << at + "zero_stage";
    QTest::newRow("unknown mlp") << "/model/mlp"
                                 << "\"tanh\"" << at + "model.mlp";
    QTest::newRow("hardware not an object") << "/hardware"
                                            << "[]" << at + "hardware";
    QTest::newRow("precision as number") << "/precision"
                                         << "16" << at + "precision";
  }

  void refusesBadInput() {
    QFETCH(QString, pointer);
    QFETCH(QString, value);
    QFETCH(QString, field);
    json row = smallRow();
    row[json::json_pointer(pointer.toStdString())] = json::parse(value.toStdString());
    QCOMPARE(QString::fromStdString(errorField(row)), field);
  }

  // The shared calibration file: every row predicted or skipped with a reason.
  void readsTheSharedFile() {
    const std::string path = test::sharedDir() + "/reference/published/published_runs.json";
    if (!std::filesystem::exists(path))
      QSKIP(qPrintable(
          QString::fromStdString("published runs absent (" + path +
                                 "); the shared/ directory beside the project provides them")));
    const json d = json_util::readFile(path);
    QVERIFY(isPublishedRuns(d));
    const size_t total = d.at("runs").size();
    const PublishedRuns r = loadPublishedRuns(path, cat_);
    QCOMPARE(r.runs.size() + r.skipped.size(), total);
    const PublishedReport rep = validatePublishedRuns(r);
    QCOMPARE(rep.rows.size() + rep.skipped.size(), total);
    QVERIFY(!rep.rows.empty());
    std::set<std::string> ids;
    for (const PublishedRow& row : rep.rows) {
      QVERIFY2(std::isfinite(row.predicted_iteration_s) && row.predicted_iteration_s > 0,
               row.id.c_str());
      QVERIFY2(row.measured_iteration_s > 0, row.id.c_str());
      QCOMPARE(row.gpus, row.tp * row.pp * row.dp);
      ids.insert(row.id);
    }
    for (const PublishedSkip& s : rep.skipped) {
      QVERIFY2(!s.reason.empty(), s.id.c_str());
      ids.insert(s.id);
    }
    QCOMPARE(ids.size(), total);
    QVERIFY(std::isfinite(rep.mean_time_error) && std::isfinite(rep.max_time_error));
  }
};

QTEST_GUILESS_MAIN(TestPublishedRuns)
#include "test_published_runs.moc"
