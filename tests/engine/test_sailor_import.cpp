// Importing SAILOR's profiles: the layer conventions brought to the catalogue's (NOTE [SAILOR
// layer conventions] in profile.cpp), microbatch sizes SAILOR did not profile, and measured
// points numbered in SAILOR's layering. Hand-computed on a tiny model; then, when ../shared is
// present, on SAILOR's published files.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/simulation/simulator.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// Tiny: 2 blocks, hidden 8, ffn 32, vocabulary 100, learned positions (16), tied, sequence 16.
// Plan layers 0..3. SAILOR-style files below number 5 layers: a separate final norm at 3.
ModelSpec tinyModel(const Catalog& cat) {
  json j = cat.model("OPT-350M", "model").toJson();
  j["name"] = "Tiny";
  j["aliases"] = json::array({"TINY"});
  j["layers"] = 2;
  j["hidden_size"] = 8;
  j["heads"] = 2;
  j["kv_heads"] = 2;
  j["ffn_hidden_size"] = 32;
  j["vocab_size"] = 100;
  j["sequence_length"] = 16;
  j["max_position_embeddings"] = 16;
  j["tied_embeddings"] = true;
  return ModelSpec::fromJson(j, "model");
}

json layerInfo(double params, double act_mem_floats, double out_floats) {
  return json{{"params_floats", params},
              {"params_bytes", 4 * params},
              {"act_output_floats", out_floats},
              {"act_output_bytes", 4 * out_floats},
              {"act_input_floats", out_floats},
              {"act_mem_floats", act_mem_floats},
              {"act_mem_bytes", 4 * act_mem_floats}};
}

// Embedding 100 x 8 words + 16 x 8 positions = 928; blocks 1000; the final norm 16; the head
// only its 16 norm parameters and 64 floats of activations (no logits): SAILOR's GPT-Neo shape.
json tinyLlmInfo() {
  json layers{{"0", layerInfo(928, 16, 128)},
              {"1", layerInfo(1000, 500, 128)},
              {"2", layerInfo(1000, 500, 128)},
              {"3", layerInfo(16, 256, 128)},
              {"4", layerInfo(16, 64, 1)}};
  return json{{"TINY", {{"1", layers}}}};
}

json tinyTimings(double scale) {
  return json{{"0", {0.1 * scale, 0.0, 0.01}},
              {"1", {1.0 * scale, 2.0 * scale, 0.01}},
              {"2", {3.0 * scale, 4.0 * scale, 0.01}},
              {"3", {0.5 * scale, 0.5 * scale, 0.01}},
              {"4", {0.25 * scale, 0.25 * scale, 0.01}}};
}

// Profiled at microbatch 1 and 4 (times x1 and x3), tp 1, on one GPU type.
json tinyProfiles() {
  return json{
      {"TINY", {{"A100-40", {{"1", {{"1", tinyTimings(1)}}}, {"4", {{"1", tinyTimings(3)}}}}}}}};
}

}  // namespace

class TestSailorImport : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;
  Job job_;
  std::shared_ptr<SailorProfile> tiny_;

  // Why a test of SAILOR's published files skips.
  static QByteArray absent(const std::string& dir) {
    return QString::fromStdString("SAILOR reference data absent (" + dir +
                                  "); the shared/ directory beside the project provides it")
        .toUtf8();
  }

 private slots:
  void initTestCase() {
    cat_ = Catalog::load(sailor::test::resources());
    cat_.addModel(tinyModel(cat_));
    job_.model = "Tiny";
    job_.sequence_length = 16;
    job_.global_batch_size = 8;
    tiny_ = SailorProfile::fromJson(tinyProfiles(), tinyLlmInfo(), cat_);
  }

  // SAILOR's 5 layers become the catalogue's 4: the final norm (layer 3) joins the head.
  void finalNormMergedIntoHead() {
    QCOMPARE(tiny_->sailorLayers("Tiny"), 5);
    const auto mem = tiny_->memory("Tiny", 1, job_);
    QVERIFY(mem.has_value());
    QCOMPARE(static_cast<int>(mem->size()), 4);
    const auto t = tiny_->timings({"Tiny", "A100-40", 1, 1}, job_);
    QVERIFY(t.has_value());
    QCOMPARE(static_cast<int>(t->size()), 4);
    // Blocks keep their own figures.
    SAILOR_COMPARE_REL((*t)[1].forward_s, 1.0, 1e-12);
    SAILOR_COMPARE_REL((*t)[2].backward_s, 4.0, 1e-12);
    SAILOR_COMPARE_REL((*mem)[1].params, 1000, 1e-12);
  }

  // The head held only norms (16 + 16 parameters): the run tied the output matrix to the
  // embedding. The head gets the embedding's words, 928 - 16 x 8 positions = 800, marked shared.
  void tiedHeadGetsItsMatrix() {
    const auto mem = tiny_->memory("Tiny", 1, job_);
    SAILOR_COMPARE_REL(mem->back().params, 32 + 800, 1e-12);
    SAILOR_COMPARE_REL(mem->back().shared_with_embedding, 800, 1e-12);
    SAILOR_COMPARE_REL(mem->front().shared_with_embedding, 0, 1e-12);
  }

  // The head kept (64 + 256) x 4 = 1,280 bytes, less than half the 4 x 16 x 100 = 6,400 bytes of
  // fp32 logits: the LM head is missing. Added from the architecture: logits and fp32 softmax,
  // 16 x 100 x (4 + 4) = 12,800 bytes. Time: the blocks' mean (fwd 2, bwd 3) times the FLOPs
  // ratio LM head / block = (2 x 16 x 8 x 100) / (2 x 16 x 768 + 4 x 16^2 x 8) = 25,600 / 32,768.
  void missingLmHeadAddedFromBlocks() {
    const auto mem = tiny_->memory("Tiny", 1, job_);
    SAILOR_COMPARE_REL(mem->back().activation_bytes, 1280 + 12800, 1e-12);
    const double ratio = 25600.0 / 32768.0;
    const auto t = tiny_->timings({"Tiny", "A100-40", 1, 1}, job_);
    SAILOR_COMPARE_REL(t->back().forward_s, 0.25 + 0.5 + ratio * 2.0, 1e-12);
    SAILOR_COMPARE_REL(t->back().backward_s, 0.25 + 0.5 + ratio * 3.0, 1e-12);
    // The same at the other profiled size (times x3).
    const auto t4 = tiny_->timings({"Tiny", "A100-40", 4, 1}, job_);
    SAILOR_COMPARE_REL(t4->back().forward_s, 3 * (0.75 + ratio * 2.0), 1e-12);
    bool reported = false;
    for (const auto& line : tiny_->adjustments())
      reported = reported || line.find("no LM head") != std::string::npos;
    QVERIFY2(reported, "the import says what it added");
  }

  // SAILOR's files are read with simdjson (engine/src/core/fast_json.hpp): a malformed file, a
  // value of the wrong shape and a missing field are refused with json_util's messages, naming the
  // file or field, the value and what was expected.
  void badProfileFilesRefused() {
    // A layer's timings not [fwd_s, bwd_s, update_s].
    json prof = tinyProfiles();
    prof["TINY"]["A100-40"]["1"]["1"]["2"] = json::array({1.0, "slow"});
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::fromJson(prof, tinyLlmInfo(), cat_); }),
        QStringList({"simulator_profiles.TINY.A100-40.1.1.2", "[1.0,\"slow\"]",
                     "[fwd_s, bwd_s, update_s]"}));
    prof = tinyProfiles();
    prof["TINY"]["A100-40"]["1"] = json::array();
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::fromJson(prof, tinyLlmInfo(), cat_); }),
        QStringList({"simulator_profiles.TINY.A100-40.1", "a JSON object"}));
    // A layer's memory without its parameters, and a negative one.
    json info = tinyLlmInfo();
    info["TINY"]["1"]["2"].erase("params_floats");
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::fromJson(tinyProfiles(), info, cat_); }),
        QStringList({"llm_info.TINY.1.2.params_floats", "field missing"}));
    info = tinyLlmInfo();
    info["TINY"]["1"]["2"]["act_mem_floats"] = -5;
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::fromJson(tinyProfiles(), info, cat_); }),
        QStringList(
            {"llm_info.TINY.1.2.act_mem_floats", "-5", "a count of floats from 0 to 1e+12"}));
    // Files: a truncated one gets json_util's parse error (file and position), nesting past the
    // bound is refused, and the good pair loads as fromJson reads it.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const std::string& name, const std::string& text) {
      const std::string path = dir.path().toStdString() + "/" + name;
      std::ofstream(path) << text;
      return path;
    };
    const std::string good_prof = write("prof.json", tinyProfiles().dump());
    const std::string good_info = write("info.json", tinyLlmInfo().dump());
    const auto loaded = SailorProfile::load(good_prof, good_info, cat_);
    QCOMPARE(loaded->sailorLayers("Tiny"), 5);
    SAILOR_COMPARE_REL(loaded->timings({"Tiny", "A100-40", 4, 1}, job_)->at(2).backward_s, 12.0,
                       1e-12);
    const std::string text = tinyProfiles().dump();
    const std::string cut = write("cut.json", text.substr(0, text.size() / 2));
    const QString want = sailor::test::inputErrorOf([&] { json_util::readFile(cut); });
    QVERIFY2(want.contains(QString::fromStdString(cut)), qPrintable(want));
    const QString got =
        sailor::test::inputErrorOf([&] { SailorProfile::load(cut, good_info, cat_); });
    QVERIFY2(got.contains(want), qPrintable(got + " | " + want));
    // A key written twice (simdjson keeps both): refused naming both positions, as json_util
    // refuses it (NOTE [Each key once]), not a layer too many.
    const std::string layer0 = "\"0\":" + tinyLlmInfo()["TINY"]["1"]["0"].dump();
    std::string repeated = tinyLlmInfo().dump();
    repeated.replace(repeated.find(layer0), layer0.size(), layer0 + "," + layer0);
    const std::string repeated_path = write("repeated.json", repeated);
    const QString repeated_error =
        sailor::test::inputErrorOf([&] { json_util::readFile(repeated_path); });
    QVERIFY2(repeated_error.contains("got the key \"0\" again (first at line 1, column "),
             qPrintable(repeated_error));
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::load(good_prof, repeated_path, cat_); }),
        QStringList({repeated_error}));
    // A layer written twice as two keys ("00", then "0"): refused, not a layer too many.
    std::string twice = tinyLlmInfo().dump();
    twice.replace(twice.find(layer0), layer0.size(), "\"0" + layer0.substr(1) + "," + layer0);
    const std::string twice_path = write("twice.json", twice);
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::load(good_prof, twice_path, cat_); }),
        QStringList({QString::fromStdString(twice_path + ": TINY.1"), "layer key \"0\" twice",
                     "each layer once"}));
    const std::string deep = write("deep.json", std::string(100, '[') + std::string(100, ']'));
    SAILOR_VERIFY_MESSAGE(
        sailor::test::inputErrorOf([&] { SailorProfile::load(good_prof, deep, cat_); }),
        QStringList({"deep.json", "64"}));
  }

  // A head that holds its matrix and logits (OPT's shape) is left as profiled.
  void completeHeadUntouched() {
    json info = tinyLlmInfo();
    info["TINY"]["1"]["4"] = layerInfo(816, 3200, 1);  // 800 words + 16, 12,800 bytes of logits
    auto p = SailorProfile::fromJson(tinyProfiles(), info, cat_);
    const auto mem = p->memory("Tiny", 1, job_);
    SAILOR_COMPARE_REL(mem->back().params, 816 + 16, 1e-12);
    SAILOR_COMPARE_REL(mem->back().activation_bytes, 4.0 * (3200 + 256), 1e-12);
    // Tied in the catalogue: the matrix is shared when both sit in one stage.
    SAILOR_COMPARE_REL(mem->back().shared_with_embedding, 800, 1e-12);
    const auto t = p->timings({"Tiny", "A100-40", 1, 1}, job_);
    SAILOR_COMPARE_REL(t->back().forward_s, 0.75, 1e-12);
  }

  // Microbatch sizes SAILOR did not profile: linear between 1 and 4, proportional above 4.
  void microbatchScaling() {
    QVERIFY(!tiny_->timings({"Tiny", "A100-40", 2, 1}, job_).has_value());
    QVERIFY(!tiny_->scaledTimings({"Tiny", "A100-40", 4, 1}, job_).has_value());  // profiled
    const auto t2 = tiny_->scaledTimings({"Tiny", "A100-40", 2, 1}, job_);
    QVERIFY(t2.has_value());
    // Block 1 forward: 1 at microbatch 1, 3 at 4; at 2: 1 + (2 - 1) / (4 - 1) x 2.
    SAILOR_COMPARE_REL((*t2)[1].forward_s, 1.0 + 2.0 / 3.0, 1e-12);
    const auto t8 = tiny_->scaledTimings({"Tiny", "A100-40", 8, 1}, job_);
    SAILOR_COMPARE_REL((*t8)[2].backward_s, 2 * 12.0, 1e-12);
    QVERIFY(!tiny_->scaledTimings({"Tiny", "A100-40", 2, 2}, job_).has_value());  // no tp 2 at all
    QVERIFY(!tiny_->scaledTimings({"Tiny", "V100-16", 2, 1}, job_).has_value());

    // In a profile set the exact source answers first and the scaled one names itself.
    ProfileSet set;
    set.add(tiny_);
    set.add(std::make_shared<MicrobatchScaledProfile>(tiny_));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "A100-40", 4, 1}, job_).source),
             QString("sailor-import"));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "A100-40", 2, 1}, job_).source),
             QString("sailor-import, from other microbatch sizes"));
    QVERIFY(set.optimizerSecondsPerParameter({"Tiny", "A100-40", 2, 1}, job_).value > 0);
  }

  // The tiny files' blocks put out 128 elements per sequence at hidden size 8: profiled at 16
  // tokens. A job of 32 gets no times or activations from them (they grow with the length), in
  // a set the next source answers; the optimizer step, which does not depend on it, still does.
  void sequenceLengthOfTheProfile() {
    QCOMPARE(tiny_->sequenceLength("Tiny").value_or(0), 16);
    QVERIFY(!tiny_->sequenceLength("OPT-350M").has_value());
    Job longer = job_;
    longer.sequence_length = 32;
    QVERIFY(tiny_->timings({"Tiny", "A100-40", 1, 1}, job_).has_value());
    QVERIFY(!tiny_->timings({"Tiny", "A100-40", 1, 1}, longer).has_value());
    QVERIFY(!tiny_->scaledTimings({"Tiny", "A100-40", 2, 1}, longer).has_value());
    QVERIFY(!tiny_->memory("Tiny", 1, longer).has_value());
    QCOMPARE(tiny_->optimizerSecondsPerParameter({"Tiny", "A100-40", 1, 1}, longer).value_or(-1),
             tiny_->optimizerSecondsPerParameter({"Tiny", "A100-40", 1, 1}, job_).value_or(-2));
    ProfileSet set;
    set.add(tiny_);
    set.add(std::make_shared<MicrobatchScaledProfile>(tiny_));
    set.add(std::make_shared<AnalyticProfile>(cat_));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "A100-40", 2, 1}, job_).source),
             QString("sailor-import, from other microbatch sizes"));
    QCOMPARE(QString::fromStdString(set.timings({"Tiny", "A100-40", 2, 1}, longer).source),
             QString("analytic"));
    QCOMPARE(QString::fromStdString(set.memory("Tiny", 1, longer).source), QString("analytic"));
  }

  // A one-stage plan shares the tied matrix once; two stages each keep a copy.
  void tiedCopyPerStage() {
    const auto mem = *tiny_->memory("Tiny", 1, job_);
    double all = 0;
    for (const auto& l : mem) all += l.params;
    const Scenario sc = Scenario::fromJson(json::parse(R"({
      "name": "one zone",
      "regions": [{"name": "r", "continent": "c", "zones": ["r-a"]}],
      "pools": [{"zone": "r-a", "gpu_type": "A100-40", "count": 2, "usd_per_gpu_hour": 1.0}]
    })"),
                                           cat_);
    ProfileSet set;
    set.add(tiny_);
    Plan one;
    one.microbatch_size = 1;
    one.stages.push_back({0, 3, {{"A100-40", 1, "r-a"}}});
    const Prediction p1 = simulate(one, sc, job_, cat_, set);
    SAILOR_COMPARE_REL(p1.memory.at(0).model_state_bytes, (all - 800) * 16, 1e-12);  // fp32 Adam
    Plan two = one;
    two.stages = {{0, 1, {{"A100-40", 1, "r-a"}}}, {2, 3, {{"A100-40", 1, "r-a"}}}};
    const Prediction p2 = simulate(two, sc, job_, cat_, set);
    SAILOR_COMPARE_REL(p2.memory.at(0).model_state_bytes + p2.memory.at(1).model_state_bytes,
                       all * 16, 1e-12);
  }

  // Measured points numbered as SAILOR numbers them (5 layers) map to plan layers.
  void pointsInSailorLayering() {
    const ModelSpec& m = cat_.model("Tiny", "model");
    Plan p;
    p.microbatch_size = 1;
    p.stages = {{0, 2, {{"A100-40", 1, "r-a"}}}, {3, 4, {{"A100-40", 1, "r-a"}}}};
    Plan q = toPlanLayers(p, m, 5);
    QCOMPARE(q.stages[0].last_layer, 2);
    QCOMPARE(q.stages[1].first_layer, 3);
    QCOMPARE(q.stages[1].last_layer, 3);
    // The norm ends the first stage, the head alone is the second: the norm goes with the head.
    p.stages = {{0, 3, {{"A100-40", 1, "r-a"}}}, {4, 4, {{"A100-40", 1, "r-a"}}}};
    q = toPlanLayers(p, m, 5);
    QCOMPARE(q.stages[0].last_layer, 2);
    QCOMPARE(q.stages[1].first_layer, 3);
    // Plans already in plan layers, or models SAILOR numbers like the catalogue: unchanged.
    p.stages = {{0, 1, {{"A100-40", 1, "r-a"}}}, {2, 3, {{"A100-40", 1, "r-a"}}}};
    QVERIFY(toPlanLayers(p, m, 5) == p);
    p.stages = {{0, 2, {{"A100-40", 1, "r-a"}}}, {3, 4, {{"A100-40", 1, "r-a"}}}};
    QVERIFY(toPlanLayers(p, m, 4) == p);
    // A stage of nothing but the final norm has no plan-layer counterpart.
    p.stages = {{0, 2, {{"A100-40", 1, "r-a"}}},
                {3, 3, {{"A100-40", 1, "r-a"}}},
                {4, 4, {{"A100-40", 1, "r-a"}}}};
    const QString msg = sailor::test::inputErrorOf([&] { toPlanLayers(p, m, 5); });
    SAILOR_VERIFY_MESSAGE(msg,
                          (QStringList{"stages[1]", "final-norm layer 3", "part of the head"}));
  }

  // SAILOR's published files: GPT-Neo-2.7's head lacks its LM head, LLAMA-3-8 counts 35 layers
  // and was profiled at 8192 tokens; a LLAMA point of that length numbered as SAILOR numbers it
  // is predicted from SAILOR's figures, one of the format's default 2048 from other sources.
  void publishedProfiles() {
    const std::string dir = sailor::test::sharedDir() + "/reference/sailor";
    if (!std::filesystem::is_directory(dir)) QSKIP(absent(dir).constData());
    const SailorReference ref = SailorReference::load(dir, cat_);
    Job neo;
    neo.model = "GPT-Neo-2.7B";
    neo.sequence_length = 2048;
    const auto mem = *ref.profiles->memory("GPT-Neo-2.7B", 1, neo);
    // fp32 logits and softmax of one 2048-token sequence over 50,257 words: 823 MB.
    QVERIFY2(mem.back().activation_bytes > 8.0e8,
             qPrintable(QString::number(mem.back().activation_bytes)));
    const auto t = *ref.profiles->timings({"GPT-Neo-2.7B", "GH-96", 8, 4}, neo);
    QVERIFY2(t.back().forward_s > t[1].forward_s, "an LM head of 50,257 x 2,560 outweighs a block");
    QCOMPARE(ref.profiles->sailorLayers("Llama-3-8B"), 35);
    QCOMPARE(ref.profiles->sailorLayers("OPT-350M"), 26);
    QCOMPARE(ref.profiles->sequenceLength("Llama-3-8B").value_or(0), 8192);
    QCOMPARE(ref.profiles->sequenceLength("OPT-350M").value_or(0), 2048);
    QCOMPARE(ref.profiles->sequenceLength("GPT-Neo-2.7B").value_or(0), 2048);

    json point{{"id", "llama"},
               {"model", "LLAMA-3-8"},
               {"global_batch_size", 8},
               {"microbatch_size", 1},
               {"layers_per_stage", json::array()},
               {"replicas_per_stage", json::array()},
               {"measured", {{"iteration_time_s", 1.0}, {"peak_memory_bytes", 1e10}}}};
    json first = json::array(), second = json::array();
    for (int l = 0; l < 18; ++l) first.push_back(l);
    for (int l = 18; l < 35; ++l) second.push_back(l);
    point["layers_per_stage"] = {first, second};
    const json rep{
        {"gpu_type", "GH-96"}, {"tp", 4}, {"gpus_per_node", 4}, {"zone", "us-central1-a"}};
    point["replicas_per_stage"] = {{rep}, {rep}};
    json at_8192 = point;
    at_8192["id"] = "llama at 8192";
    at_8192["sequence_length"] = 8192;
    const std::string path =
        (std::filesystem::temp_directory_path() / "sailor_llama_point.json").string();
    {
      std::ofstream f(path);
      f << json{{"points", {point, at_8192}}}.dump();
    }
    const auto points = loadMeasuredPoints(path, cat_);
    std::filesystem::remove(path);
    QCOMPARE(points.at(0).job.sequence_length, 2048);  // the format's default
    QCOMPARE(points.at(1).job.sequence_length, 8192);
    const ValidationReport r = validatePoints(points, ref, cat_);
    QCOMPARE(static_cast<int>(r.rows.size()), 2);
    for (const auto& row : r.rows) {
      QVERIFY(row.predicted_iteration_s > 0);
      QCOMPARE(row.profiled_sequence_length.value_or(0), 8192);
    }
    for (const auto& [k, v] : r.rows[1].prediction.sources)
      QVERIFY2(v == "sailor-import", qPrintable(QString::fromStdString(k + " from " + v)));
    for (const auto& [k, v] : r.rows[0].prediction.sources)
      if (k.rfind("optimizer", 0) != 0)
        QVERIFY2(v == "analytic", qPrintable(QString::fromStdString(k + " from " + v)));
    // A quarter of the tokens: less time and less memory than at 8192.
    QVERIFY(r.rows[0].predicted_iteration_s < r.rows[1].predicted_iteration_s);
    QVERIFY(r.rows[0].predicted_memory_bytes < r.rows[1].predicted_memory_bytes);
  }

  // SAILOR's network file gives thousands of link entries; LinkIndex, which looks among those
  // of the query's zone pair only, answers every query as Scenario::link's scan of them all.
  void linkIndexOfThePublishedNetwork() {
    const std::string dir = sailor::test::sharedDir() + "/reference/sailor";
    if (!std::filesystem::is_directory(dir)) QSKIP(absent(dir).constData());
    const SailorReference ref = SailorReference::load(dir, cat_);
    Pool pool;
    pool.zone = "us-central1-a";
    pool.gpu_type = "A100-40";
    pool.count = 8;
    pool.usd_per_gpu_hour = 1.0;
    const Scenario s = ref.scenario({pool}, cat_);
    QVERIFY2(s.links.size() > 100, qPrintable(QString::number(s.links.size())));
    const LinkIndex index(s);
    std::set<std::string> gpus;
    for (const auto& l : s.links) gpus.insert(*l.from_gpu);
    int compared = 0;
    for (const auto& ra : s.regions)
      for (const auto& a : ra.zones)
        for (const auto& rb : s.regions)
          for (const auto& b : rb.zones)
            for (const auto& ga : gpus)
              for (const auto& gb : gpus)
                for (int g : {1, 2, 4, 8}) {
                  const LinkQuery q{a, ga, b, gb, g};
                  const ResolvedLink want = s.link(q), got = index.link(q);
                  QCOMPARE(QString::fromStdString(got.source), QString::fromStdString(want.source));
                  QCOMPARE(got.transferSeconds(1e8, g), want.transferSeconds(1e8, g));
                  ++compared;
                }
    QVERIFY(compared > 100);
  }

  // SAILOR's published files with one figure changed (in a copy): refused naming the file, the
  // figure's JSON path and the value. params_floats 1e18 made `sailor validate` run for ever, a
  // forward time of 1e308 printed "inf s +inf%" and -0.5 s predicted a 1.93 s run at 34 ms. At
  // the bound itself (1e12 floats) every point is predicted at once, every figure finite.
  void referenceFiguresAreBoundedOnSailorData() {
    const std::string dir = sailor::test::sharedDir() + "/reference/sailor";
    const std::string points =
        sailor::test::sharedDir() + "/reference/calibration/measured_points.json";
    if (!std::filesystem::is_directory(dir) || !std::filesystem::exists(points))
      QSKIP(absent(dir).constData());
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string copy = tmp.path().toStdString() + "/sailor";
    // The files' bytes into new, writable files (the shared copy is read-only).
    for (const char* sub : {"profiles", "network", "cluster"}) {
      std::filesystem::create_directories(copy + "/" + sub);
      for (const auto& f : std::filesystem::directory_iterator(dir + "/" + sub))
        if (f.is_regular_file())
          std::ofstream(copy + "/" + sub + "/" + f.path().filename().string())
              << std::ifstream(f.path()).rdbuf();
    }
    const std::string info_path = copy + "/profiles/llm_info.json";
    const std::string prof_path = copy + "/profiles/simulator_profiles.json";
    const json info = json_util::readFile(dir + "/profiles/llm_info.json");
    const json prof = json_util::readFile(dir + "/profiles/simulator_profiles.json");
    // OPT-350's layer 5 at every tp: its parameters; on every GPU type and size: its forward.
    auto with_params = [&](double floats) {
      json j = info;
      for (auto& [tp, layers] : j["OPT-350"].items()) layers["5"]["params_floats"] = floats;
      std::ofstream(info_path) << j.dump();
    };
    with_params(1e18);
    QString e = sailor::test::inputErrorOf([&] { SailorReference::load(copy, cat_); });
    SAILOR_VERIFY_MESSAGE(e, QStringList({QString::fromStdString(info_path) +
                                              ": OPT-350.1.5.params_floats: got 1e+18",
                                          "a count of floats from 0 to 1e+12"}));
    with_params(1e308);
    e = sailor::test::inputErrorOf([&] { SailorReference::load(copy, cat_); });
    SAILOR_VERIFY_MESSAGE(e, QStringList({"OPT-350.1.5.params_floats: got 1e+308"}));
    std::ofstream(info_path) << info.dump();
    for (const double forward : {-0.5, 1e308}) {
      json j = prof;
      for (auto& [gpu, sizes] : j["OPT-350"].items())
        for (auto& [mbs, tps] : sizes.items())
          for (auto& [tp, layers] : tps.items()) layers["5"][0] = forward;
      std::ofstream(prof_path) << j.dump();
      e = sailor::test::inputErrorOf([&] { SailorReference::load(copy, cat_); });
      SAILOR_VERIFY_MESSAGE(
          e, QStringList({QString::fromStdString(prof_path) + ": OPT-350.",
                          ".5[0]: got " + QString::number(forward), "seconds from 0 to 3600"}));
    }
    std::ofstream(prof_path) << prof.dump();
    // The bound: 4e12 bytes of gradients in one stage's all-reduce, summed in closed form.
    with_params(kMaxLayerElements);
    const SailorReference ref = SailorReference::load(copy, cat_);
    const ValidationReport r =
        validatePoints(readMeasuredPoints(points, cat_), ref, cat_, {}, true);
    QVERIFY(!r.rows.empty());
    for (const ValidationRow& row : r.rows) {
      requireFiniteFigures(row.prediction);
      QVERIFY(std::isfinite(row.time_error) && std::isfinite(row.memory_error));
      QVERIFY(std::isfinite(row.sailor_time_error) && std::isfinite(row.sailor_memory_error));
    }
    QVERIFY(std::isfinite(r.ours.mean_time_error) && std::isfinite(r.ours.mean_memory_error));
  }
};

QTEST_GUILESS_MAIN(TestSailorImport)
#include "test_sailor_import.moc"
