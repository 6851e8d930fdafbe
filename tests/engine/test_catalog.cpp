// The shipped GPU and model catalogues (resources/catalog/*.json) and what the engine derives
// from a model's architecture (deriveLayers, totalParameters in engine/src/model/catalog.cpp).
// Not here: scenario/job/plan JSON (test_model_json.cpp), the simulator (test_simulator.cpp).
#include <cmath>
#include <filesystem>

#include <QObject>
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "test_support.hpp"

using namespace sailor;
using sailor::test::inputErrorOf;

namespace {
// The least GPU entry the catalogue accepts, two GPUs per node: the fields' tests add theirs.
nlohmann::json minimalGpu(const std::string& name) {
  return nlohmann::json{{"name", name},
                        {"memory_bytes", 1000},
                        {"fp32_tflops", 1},
                        {"fp16_tflops", 2},
                        {"memory_bandwidth_gb_per_s", 1},
                        {"intra_node_bandwidth_gb_per_s", 1},
                        {"inter_node_bandwidth_gb_per_s", 1},
                        {"gpus_per_node", 2},
                        {"runtime_overhead_bytes", 0},
                        {"sources", {"test"}}};
}
}  // namespace

class TestCatalog : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;

 private slots:
  void initTestCase() {
    try {
      cat_ = Catalog::load(sailor::test::resources());
    } catch (const InputError& e) {
      QFAIL(e.what());
    }
  }

  void resourceDirFollowsEnvironment() {
    // CTest sets SAILOR_RESOURCES; resourceDir() must honour it.
    QCOMPARE(QString::fromStdString(resourceDir()),
             QString::fromStdString(sailor::test::resources()));
  }

  void requiredGpus_data() {
    QTest::addColumn<QString>("name");
    for (const char* g :
         {"A100-40", "A100-80", "H100-80", "H200-141", "GH-96", "V100-16", "V100-32", "L4", "A10G",
          "T4", "RTX-2080", "RTX-3090", "Titan-RTX", "MI300X"})
      QTest::newRow(g) << QString(g);
  }
  void requiredGpus() {
    QFETCH(QString, name);
    const GpuType* g = cat_.findGpu(name.toStdString());
    QVERIFY2(g, qPrintable("GPU type missing from the catalogue: " + name));
    QVERIFY2(!g->sources.empty(), "every GPU figure must cite its source");
    for (const auto& s : g->sources) QVERIFY(!s.empty());
    QVERIFY(g->memory_bytes > 0);
    QVERIFY(g->fp32_tflops > 0);
    QVERIFY(g->fp16_tflops >= g->fp32_tflops);  // half precision is never slower than fp32
    QVERIFY(g->memory_bandwidth_gb_per_s > 0);
    QVERIFY(g->gpus_per_node >= 1);
    QVERIFY(g->runtime_overhead_bytes >= 0);
    QVERIFY(g->runtime_overhead_bytes < g->memory_bytes);
  }

  void gpuMemoryMatchesName_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("gb");  // the size in the type's name, decimal or binary GB
    QTest::newRow("A100-40") << "A100-40" << 40.0;
    QTest::newRow("A100-80") << "A100-80" << 80.0;
    QTest::newRow("H100-80") << "H100-80" << 80.0;
    QTest::newRow("H200-141") << "H200-141" << 141.0;
    QTest::newRow("GH-96") << "GH-96" << 96.0;
    QTest::newRow("V100-16") << "V100-16" << 16.0;
    QTest::newRow("V100-32") << "V100-32" << 32.0;
  }
  void gpuMemoryMatchesName() {
    QFETCH(QString, name);
    QFETCH(double, gb);
    const GpuType& g = cat_.gpu(name.toStdString(), "test");
    // Vendors mix GB and GiB: accept anything between gb * 1e9 and gb * 2^30 bytes.
    const double bytes = static_cast<double>(g.memory_bytes);
    QVERIFY2(bytes >= gb * 1e9 * 0.999 && bytes <= gb * 1073741824.0 * 1.001,
             qPrintable(QString("%1 has %2 bytes").arg(name).arg(bytes)));
  }

  void requiredModels_data() {
    QTest::addColumn<QString>("name");
    for (const char* m :
         {"OPT-350M", "GPT-Neo-2.7B", "Llama-3-8B", "OPT-30B", "Llama-3-70B", "GPT-3-175B"})
      QTest::newRow(m) << QString(m);
  }
  void requiredModels() {
    QFETCH(QString, name);
    const ModelSpec* m = cat_.findModel(name.toStdString());
    QVERIFY2(m, qPrintable("model missing from the catalogue: " + name));
    QCOMPARE(QString::fromStdString(m->name), name);
    QVERIFY2(!m->sources.empty(), "every model must cite its source");
    QVERIFY(m->layers > 0);
    QCOMPARE(m->hidden_size % m->heads, 0);
    QCOMPARE(m->heads % m->kv_heads, 0);
    QCOMPARE(m->numPlanLayers(), m->layers + 2);
  }

  void aliases_data() {
    QTest::addColumn<QString>("alias");
    QTest::addColumn<QString>("name");
    QTest::newRow("OPT-350") << "OPT-350"
                             << "OPT-350M";
    QTest::newRow("GPT-Neo-2.7") << "GPT-Neo-2.7"
                                 << "GPT-Neo-2.7B";
    QTest::newRow("GPT-NEO (SAILOR's validation folder)") << "GPT-NEO"
                                                          << "GPT-Neo-2.7B";
    QTest::newRow("OPT-30") << "OPT-30"
                            << "OPT-30B";
    QTest::newRow("LLAMA-3-8") << "LLAMA-3-8"
                               << "Llama-3-8B";
    QTest::newRow("name resolves to itself") << "OPT-350M"
                                             << "OPT-350M";
  }
  void aliases() {
    QFETCH(QString, alias);
    QFETCH(QString, name);
    const ModelSpec* m = cat_.findModel(alias.toStdString());
    QVERIFY2(m, qPrintable("alias does not resolve: " + alias));
    QCOMPARE(QString::fromStdString(m->name), name);
  }

  void unknownNames() {
    QVERIFY(cat_.findGpu("B200") == nullptr);
    QVERIFY(cat_.findModel("GPT-5") == nullptr);
    QVERIFY(cat_.findModel("opt-350m") == nullptr);  // names are case-sensitive
    // The throwing lookups name the field they were asked for and list what exists.
    const QString g = inputErrorOf([&] { cat_.gpu("B200", "pools[3].gpu_type"); });
    SAILOR_VERIFY_MESSAGE(g, QStringList({"pools[3].gpu_type", "\"B200\"", "A100-40", "MI300X"}));
    const QString m = inputErrorOf([&] { cat_.model("GPT-5", "job.model"); });
    SAILOR_VERIFY_MESSAGE(m, QStringList({"job.model", "\"GPT-5\"", "OPT-350M"}));
  }

  void totalParameters_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<double>("low");
    QTest::addColumn<double>("high");
    // OPT-350M as SAILOR/Megatron describe it (hidden 1024 throughout, no 512-d projection):
    // 0.33-0.36 B. The others: published sizes +-2%.
    QTest::newRow("OPT-350M") << "OPT-350M" << 0.33e9 << 0.36e9;
    QTest::newRow("GPT-Neo-2.7B (2.651 B in the HF checkpoint)")
        << "GPT-Neo-2.7B" << 2.651e9 * 0.98 << 2.651e9 * 1.02;
    QTest::newRow("Llama-3-8B (8.03 B)") << "Llama-3-8B" << 8.03e9 * 0.98 << 8.03e9 * 1.02;
    QTest::newRow("OPT-30B") << "OPT-30B" << 30e9 * 0.98 << 30e9 * 1.02;
    QTest::newRow("Llama-3-70B (70.6 B)") << "Llama-3-70B" << 70.6e9 * 0.98 << 70.6e9 * 1.02;
    QTest::newRow("GPT-3-175B") << "GPT-3-175B" << 175e9 * 0.98 << 175e9 * 1.02;
  }
  void totalParameters() {
    QFETCH(QString, model);
    QFETCH(double, low);
    QFETCH(double, high);
    const double p = sailor::totalParameters(cat_.model(model.toStdString(), "test"));
    QVERIFY2(p >= low && p <= high, qPrintable(QString("%1 has %2 parameters, expected [%3, %4]")
                                                   .arg(model)
                                                   .arg(p, 0, 'g', 6)
                                                   .arg(low, 0, 'g', 6)
                                                   .arg(high, 0, 'g', 6)));
  }

  void tiedHeadCountedOnce() {
    // OPT-350M ties its head to the word embedding: total = sum of plan layers - V * h.
    const ModelSpec& m = cat_.model("OPT-350M", "test");
    QVERIFY(m.tied_embeddings);
    double sum = 0;
    for (const auto& l : deriveLayers(m, m.sequence_length, 1, 2)) sum += l.params;
    QCOMPARE(sailor::totalParameters(m), sum - 50272.0 * 1024.0);
  }

  void deriveLayersOpt350_data() {
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("embedding_params");
    QTest::addColumn<double>("block_params");
    QTest::addColumn<double>("head_params");
    QTest::addColumn<double>("block_activation_bytes");
    QTest::addColumn<double>("block_forward_flops");
    // OPT-350M: h = 1024, f = 4096, a = 16 heads (kv 16), V = 50272, 2048 learned positions,
    // biases, LayerNorm (2 h parameters each). Sequence s = 2048, fp32 (4-byte) activations.
    //
    // Block parameters on one GPU of a tp group of t (Megatron column/row-parallel):
    //   attention: QKV 3h^2/t + O h^2/t (= 4h^2/t), QKV bias 3h/t (column-parallel, split),
    //              O bias h (row-parallel output, replicated)
    //   MLP:       2 h f / t, first bias f/t (split), second bias h (replicated)
    //   2 LayerNorms: 2 * 2h = 4h (replicated)
    // tp 1: 4h^2 + 4h = 4,194,304 + 4,096 = 4,198,400
    //       2hf + f + h = 8,388,608 + 4,096 + 1,024 = 8,393,728
    //       4h = 4,096                         -> 12,596,224 (= SAILOR's params_floats)
    // tp 4: 4h^2/4 + 3h/4 + h = 1,048,576 + 768 + 1,024 = 1,050,368
    //       2hf/4 + f/4 + h = 2,097,152 + 1,024 + 1,024 = 2,099,200
    //       4h = 4,096                         -> 3,153,664 (= SAILOR's params_floats at tp 4)
    // Embedding: V h / t (vocab-parallel) + 2048 h (positions, replicated):
    //   tp 1: 51,478,528 + 2,097,152 = 53,575,680; tp 4: 12,869,632 + 2,097,152 = 14,966,784
    // Head: V h / t + final LayerNorm 2h: tp 1: 51,478,528 + 2,048 = 51,480,576;
    //   tp 4: 12,869,632 + 2,048 = 12,871,680
    // Block activations (NOTE [Activation bytes]), elements per sequence:
    //   4 s h (replicated) + 3 s h / t (QKV) + s h / t (attention out) + a s^2 / t (softmax)
    //   + 2 s f / t (GeLU in and out); times 4 bytes.
    //   tp 1: 8,388,608 + 6,291,456 + 2,097,152 + 67,108,864 + 16,777,216 = 100,663,296
    //         * 4 = 402,653,184 bytes
    //   tp 4: 8,388,608 + 1,572,864 + 524,288 + 16,777,216 + 4,194,304 = 31,457,280
    //         * 4 = 125,829,120 bytes
    // Block forward FLOPs: 2 s (4h^2 + 2hf)/t + 4 s^2 h / t (QK^T and attention x V):
    //   tp 1: 2 * 2048 * 12,582,912 + 4 * 2048^2 * 1024 = 51,539,607,552 + 17,179,869,184
    //         = 68,719,476,736 (2^36); tp 4: a quarter, 17,179,869,184.
    QTest::newRow("tp 1") << 1 << 53575680.0 << 12596224.0 << 51480576.0 << 402653184.0
                          << 68719476736.0;
    QTest::newRow("tp 4") << 4 << 14966784.0 << 3153664.0 << 12871680.0 << 125829120.0
                          << 17179869184.0;
  }
  void deriveLayersOpt350() {
    QFETCH(int, tp);
    QFETCH(double, embedding_params);
    QFETCH(double, block_params);
    QFETCH(double, head_params);
    QFETCH(double, block_activation_bytes);
    QFETCH(double, block_forward_flops);
    const ModelSpec& m = cat_.model("OPT-350M", "test");
    const auto layers = deriveLayers(m, 2048, tp, 4);
    QCOMPARE(static_cast<int>(layers.size()), 26);  // embedding, 24 blocks, head
    QCOMPARE(layers.front().kind, LayerKind::Embedding);
    QCOMPARE(layers.back().kind, LayerKind::Head);
    for (int i = 1; i <= 24; ++i) {
      QCOMPARE(layers[static_cast<size_t>(i)].kind, LayerKind::Block);
      QCOMPARE(layers[static_cast<size_t>(i)].params, block_params);
    }
    QCOMPARE(layers.front().params, embedding_params);
    QCOMPARE(layers.back().params, head_params);
    QCOMPARE(layers[1].activation_bytes, block_activation_bytes);
    QCOMPARE(layers[1].forward_flops, block_forward_flops);
    // The stage-boundary message is the full s x h activation whatever tp is.
    QCOMPARE(layers[1].output_elements, 2048.0 * 1024.0);
    QCOMPARE(layers.front().output_elements, 2048.0 * 1024.0);
  }

  void activationsScaleWithElementSize() {
    // bf16 activations take half the bytes of fp32 ones in the embedding and the blocks;
    // parameters do not change.
    const ModelSpec& m = cat_.model("Llama-3-8B", "test");
    const auto fp32 = deriveLayers(m, 2048, 2, 4);
    const auto bf16 = deriveLayers(m, 2048, 2, 2);
    QCOMPARE(fp32.size(), bf16.size());
    for (size_t i = 0; i < fp32.size(); ++i) {
      if (i + 1 < fp32.size()) QCOMPARE(bf16[i].activation_bytes * 2, fp32[i].activation_bytes);
      QCOMPARE(bf16[i].params, fp32[i].params);
    }
    // The head keeps the norm input (s h) and the logits (s V / t) in the activation type plus
    // the cross-entropy's fp32 softmax (4 bytes): s h e + s V / t (e + 4).
    const double s = 2048, h = 4096, V = 128256, t = 2;
    QCOMPARE(fp32.back().activation_bytes, s * h * 4 + s * V / t * 8);
    QCOMPARE(bf16.back().activation_bytes, s * h * 2 + s * V / t * 6);
    // Rotary positions: no position table in the embedding.
    QCOMPARE(fp32.front().params, 128256.0 * 4096.0 / 2);
  }

  void againstSailorLlmInfo_data() {
    QTest::addColumn<int>("tp");
    for (int tp : {1, 2, 4, 8}) QTest::newRow(qPrintable(QString("tp %1").arg(tp))) << tp;
  }
  void againstSailorLlmInfo() {
    // SAILOR's measured llm_info.json (OPT-350, sequence 2048, fp32, microbatch 1): our derived
    // block activations within 20% of 4 * act_mem_floats of block 1, block parameters within 1%
    // of params_floats (NOTE [Activation bytes] in catalog.cpp cites this bound).
    QFETCH(int, tp);
    const std::string path = sailor::test::sharedDir() + "/reference/sailor/profiles/llm_info.json";
    if (!std::filesystem::exists(path))
      QSKIP(qPrintable(
          QString::fromStdString("SAILOR reference data absent (" + path +
                                 "); the shared/ directory beside the project provides it")));
    const nlohmann::json info = json_util::readFile(path);
    const auto& layer1 = info.at("OPT-350").at(std::to_string(tp)).at("1");
    const double measured_act = 4.0 * layer1.at("act_mem_floats").get<double>();
    const double measured_params = layer1.at("params_floats").get<double>();
    const auto layers = deriveLayers(cat_.model("OPT-350", "test"), 2048, tp, 4);
    const double act = layers[1].activation_bytes;
    const double params = layers[1].params;
    QVERIFY2(std::fabs(act - measured_act) <= 0.20 * measured_act,
             qPrintable(QString("derived %1 B, measured %2 B (%3%)")
                            .arg(act)
                            .arg(measured_act)
                            .arg(100 * (act - measured_act) / measured_act, 0, 'f', 1)));
    QVERIFY2(std::fabs(params - measured_params) <= 0.01 * measured_params,
             qPrintable(QString("derived %1, measured %2").arg(params).arg(measured_params)));
  }

  void catalogFromJsonRejects_data() {
    QTest::addColumn<QByteArray>("gpus");
    QTest::addColumn<QByteArray>("models");
    QTest::addColumn<QStringList>("needles");
    const QByteArray ok_gpu =
        R"({"name": "G1", "memory_bytes": 1000, "fp32_tflops": 1, "fp16_tflops": 2,
            "memory_bandwidth_gb_per_s": 1, "intra_node_bandwidth_gb_per_s": 1,
            "inter_node_bandwidth_gb_per_s": 1, "gpus_per_node": 1, "runtime_overhead_bytes": 0,
            "sources": ["test"]})";
    const QByteArray no_models = R"({"models": []})";
    QTest::newRow("GPU declared twice")
        << ("{\"gpus\": [" + ok_gpu + "," + ok_gpu + "]}") << no_models
        << QStringList({"gpus[1].name", "a name not used before"});
    QTest::newRow("GPU without sources")
        << QByteArray(
               R"({"gpus": [{"name": "G1", "memory_bytes": 1000, "fp32_tflops": 1, "fp16_tflops": 2,
            "memory_bandwidth_gb_per_s": 1, "intra_node_bandwidth_gb_per_s": 1,
            "inter_node_bandwidth_gb_per_s": 1, "gpus_per_node": 1, "runtime_overhead_bytes": 0}]})")
        << no_models << QStringList({"gpus[0].sources", "at least one source"});
    QTest::newRow("GPU with zero memory")
        << QByteArray(
               R"({"gpus": [{"name": "G1", "memory_bytes": 0, "fp32_tflops": 1, "fp16_tflops": 2,
            "memory_bandwidth_gb_per_s": 1, "intra_node_bandwidth_gb_per_s": 1,
            "inter_node_bandwidth_gb_per_s": 1, "gpus_per_node": 1, "runtime_overhead_bytes": 0,
            "sources": ["x"]}]})")
        << no_models
        << QStringList({"gpus[0].memory_bytes", "an integer from 1 to 1000000000000000"});
    QTest::newRow("heads not dividing hidden")
        << QByteArray(R"({"gpus": []})")
        << QByteArray(R"({"models": [{"name": "M", "layers": 2, "hidden_size": 100, "heads": 3,
            "ffn_hidden_size": 400, "vocab_size": 10, "sequence_length": 8}]})")
        << QStringList({"models[0].heads", "a divisor of hidden_size 100"});
    QTest::newRow("unknown norm")
        << QByteArray(R"({"gpus": []})")
        << QByteArray(R"({"models": [{"name": "M", "layers": 2, "hidden_size": 64, "heads": 4,
            "ffn_hidden_size": 256, "vocab_size": 10, "sequence_length": 8, "norm": "batchnorm"}]})")
        << QStringList({"models[0].norm", "\"layernorm\" or \"rmsnorm\""});
  }
  void catalogFromJsonRejects() {
    QFETCH(QByteArray, gpus);
    QFETCH(QByteArray, models);
    QFETCH(QStringList, needles);
    const auto g = nlohmann::json::parse(gpus.toStdString());
    const auto m = nlohmann::json::parse(models.toStdString());
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { Catalog::fromJson(g, m); }), needles);
  }

  // shared_compute_slowdown (NOTE [Ranks sharing a device] in simulator_shared.cpp): absent = no
  // sharing; each figure finite and >= 1, the first (one rank alone) exactly 1.
  void sharedComputeSlowdownRejects_data() {
    QTest::addColumn<QString>("value");  // JSON of the field, or "nan" (not expressible in JSON)
    QTest::addColumn<QStringList>("needles");
    QTest::newRow("negative") << "[1, -2]"
                              << QStringList({"gpus[0].shared_compute_slowdown[1]", "-2",
                                              "from 1 to 1e+06"});
    QTest::newRow("below one") << "[1, 0.5]"
                               << QStringList(
                                      {"shared_compute_slowdown[1]", "0.5", "from 1 to 1e+06"});
    QTest::newRow("not finite") << "nan"
                                << QStringList({"shared_compute_slowdown[1]", "a finite slowdown"});
    QTest::newRow("first not one")
        << "[2, 3]" << QStringList({"shared_compute_slowdown[0]", "1 (one rank"});
    QTest::newRow("empty") << "[]" << QStringList({"shared_compute_slowdown", "k = 1, 2"});
    QTest::newRow("a string") << "[1, \"two\"]"
                              << QStringList({"shared_compute_slowdown[1]", "a number"});
    QTest::newRow("not an array") << "2" << QStringList({"gpus[0].shared_compute_slowdown"});
  }
  void sharedComputeSlowdownRejects() {
    QFETCH(QString, value);
    QFETCH(QStringList, needles);
    nlohmann::json g = minimalGpu("G1");
    g["shared_compute_slowdown"] = value == "nan" ? nlohmann::json::array({1.0, std::nan("")})
                                                  : nlohmann::json::parse(value.toStdString());
    const nlohmann::json gpus{{"gpus", {g}}}, models{{"models", nlohmann::json::array()}};
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { Catalog::fromJson(gpus, models); }), needles);
  }
  void ncclFieldsRejected() {
    nlohmann::json g = minimalGpu("G1");
    const nlohmann::json models{{"models", nlohmann::json::array()}};
    nlohmann::json bad = g;
    bad["nccl_channels"] = -1;
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] {
                            Catalog::fromJson(nlohmann::json{{"gpus", {bad}}}, models);
                          }),
                          QStringList({"gpus[0].nccl_channels", "-1", "from 0 to 1024"}));
    bad = g;
    bad["nccl_connection_bytes"] = 0.5;
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] {
                            Catalog::fromJson(nlohmann::json{{"gpus", {bad}}}, models);
                          }),
                          QStringList({"gpus[0].nccl_connection_bytes", "0.5"}));
    g["nccl_channels"] = 2;
    const Catalog c = Catalog::fromJson(nlohmann::json{{"gpus", {g}}}, models);
    QCOMPARE(c.gpu("G1", "test").nccl_channels, 2);
    QCOMPARE(c.gpu("G1", "test").nccl_connection_bytes, std::int64_t{0});
  }
  // collective_bus_bandwidth_gb_per_s (NOTE [Collective efficiency] in simulator_comm.cpp): absent
  // or null = the link alone bounds a ring; else positive and finite, in GB/s.
  void collectiveBusBandwidth() {
    nlohmann::json g = minimalGpu("CPU");
    const nlohmann::json models{{"models", nlohmann::json::array()}};
    for (const auto& [value, needle] :
         {std::pair<nlohmann::json, QString>{-1.5, "-1.5"}, {0, "0"}, {"fast", "\"fast\""}}) {
      nlohmann::json bad = g;
      bad["collective_bus_bandwidth_gb_per_s"] = value;
      SAILOR_VERIFY_MESSAGE(inputErrorOf([&] {
                              Catalog::fromJson(nlohmann::json{{"gpus", {bad}}}, models);
                            }),
                            QStringList({"gpus[0].collective_bus_bandwidth_gb_per_s", needle}));
    }
    QCOMPARE(Catalog::fromJson(nlohmann::json{{"gpus", {g}}}, models)
                 .gpu("CPU", "test")
                 .collectiveBusBytesPerS(),
             0.0);
    g["collective_bus_bandwidth_gb_per_s"] = 1.37;
    const GpuType cpu = Catalog::fromJson(nlohmann::json{{"gpus", {g}}}, models).gpu("CPU", "t");
    QCOMPARE(cpu.collective_bus_bandwidth_gb_per_s, std::optional<double>(1.37));
    QCOMPARE(cpu.collectiveBusBytesPerS(), 1.37e9);
  }
  void sharedComputeSlowdownReadAndExtended() {
    nlohmann::json g = minimalGpu("CPU");
    g["shared_compute_slowdown"] = {1, 2.17, 3.3};
    nlohmann::json plain = g;
    plain["name"] = "GPU";
    plain.erase("shared_compute_slowdown");
    const Catalog c = Catalog::fromJson(nlohmann::json{{"gpus", {g, plain}}},
                                        nlohmann::json{{"models", nlohmann::json::array()}});
    const GpuType& cpu = c.gpu("CPU", "test");
    QVERIFY(cpu.sharesCompute());
    QCOMPARE(cpu.sharedComputeSlowdown(1), 1.0);
    QCOMPARE(cpu.sharedComputeSlowdown(2), 2.17);
    QCOMPARE(cpu.sharedComputeSlowdown(3), 3.3);
    // Past the measured k: the last figure shared by more ranks, 3.3 x 6 / 3 = 6.6.
    SAILOR_COMPARE_REL(cpu.sharedComputeSlowdown(6), 6.6, 1e-12);
    // Absent: no sharing at any k (a node's GPUs each compute on their own).
    const GpuType& gpu = c.gpu("GPU", "test");
    QVERIFY(!gpu.sharesCompute());
    QCOMPARE(gpu.sharedComputeSlowdown(8), 1.0);
    // No shipped GPU type shares compute: every prediction on the catalogue is as before.
    for (const GpuType& t : cat_.gpus()) QVERIFY2(!t.sharesCompute(), t.name.c_str());
  }

  void loadNamesMissingFile() {
    const QString msg = inputErrorOf([] { Catalog::load("/nonexistent/sailor-resources"); });
    SAILOR_VERIFY_MESSAGE(msg, QStringList({"/nonexistent/sailor-resources/catalog/gpus.json"}));
  }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "test_catalog.moc"
