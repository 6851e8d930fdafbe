// Published large-scale training runs as simulator inputs (sailor/simulation/published_runs.hpp).
//   checkRow                 types, signs and the parallelism product of one row (InputError)
//   kRules / applyRules      the values a row leaves null, each rule with its source
//   buildModel/Job/Scenario/Plan   the row as the simulator takes it
//   validatePublishedRuns    predictions against the measured iteration times, and their report
#include "sailor/simulation/published_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>
#include <variant>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/model/profile.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {

constexpr const char* kZone = "site-a";

// `pattern` with each "{}" replaced by the next argument, as text (toText).
template <typename... A>
std::string cat(std::string_view pattern, const A&... args) {
  const std::vector<std::string> parts{toText(args)...};
  std::string out;
  std::size_t pos = 0;
  for (const std::string& part : parts) {
    const std::size_t at = pattern.find("{}", pos);
    if (at == std::string_view::npos) break;
    out.append(pattern.substr(pos, at - pos)).append(part);
    pos = at + 2;
  }
  return out.append(pattern.substr(pos));
}

// printf-style text for the report's columns.
template <typename... A>
std::string columns(const char* format, const A&... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Reading a row's fields: every key of the format is present; null means "not stated".

const json& member(const json& obj, const std::string& key, const std::string& path) {
  return ju::require(obj, key, path);
}

std::optional<int> optInt(const json& obj, const std::string& key, const std::string& path,
                          int min) {
  if (member(obj, key, path).is_null()) return std::nullopt;
  return ju::getInt32(obj, key, path, min);
}

// A positive finite number or null: a throughput or a time of zero or below is a slip.
std::optional<double> optPositive(const json& obj, const std::string& key,
                                  const std::string& path) {
  if (!obj.contains(key) || obj.at(key).is_null()) return std::nullopt;
  return ju::getPositive(obj, key, path);
}

std::optional<std::string> optString(const json& obj, const std::string& key,
                                     const std::string& path) {
  if (member(obj, key, path).is_null()) return std::nullopt;
  return ju::getString(obj, key, path);
}

const json& object(const json& obj, const std::string& key, const std::string& path) {
  const json& v = member(obj, key, path);
  ju::requireObject(v, path + "." + key);
  return v;
}

std::string textOr(const json& row, const std::string& key) {
  return row.contains(key) && row.at(key).is_string() ? row.at(key).get<std::string>() : "";
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Megatron-LM itself (its own pipeline schedule and data-parallel code), as opposed to
// Megatron-DeepSpeed, whose pipeline is DeepSpeed's.
bool isMegatronLm(const json& row) {
  return startsWith(textOr(row, "framework"), "Megatron-LM");
}
// Any framework built on Megatron-LM's model code (its defaults for the model's shape).
bool isMegatronFamily(const json& row) {
  return contains(textOr(row, "framework"), "Megatron");
}
std::string hardwareText(const json& row) {
  const json& h = row.at("hardware");
  return textOr(h, "gpu_type") + " " + textOr(h, "fabric") + " " + textOr(h, "intra_node");
}

// Types, signs and consistency of one row; throws InputError naming `path`.<field>.
void checkRow(const json& row, const Catalog& catalog, const std::string& path) {
  ju::getString(row, "framework", path);
  const json& m = object(row, "model", path);
  const std::string mp = path + ".model";
  for (const char* k : {"layers", "hidden", "heads"}) ju::getInt32(m, k, mp, 1);
  for (const char* k : {"ffn_hidden", "kv_heads", "vocab"}) optInt(m, k, mp, 1);
  for (const char* k : {"mlp", "position"}) optString(m, k, mp);
  ju::getInt32(row, "sequence_length", path, 1);
  optInt(row, "global_batch_size", path, 1);
  optInt(row, "microbatch_size", path, 1);
  for (const char* k : {"precision", "optimizer", "activation_recomputation"})
    optString(row, k, path);
  if (auto z = optInt(row, "zero_stage", path, 0); z && *z > 3)
    throw InputError(path + ".zero_stage", std::to_string(*z), "0, 1, 2 or 3 (or null)");
  optInt(row, "interleaved_virtual_stages", path, 1);
  const json& h = object(row, "hardware", path);
  const std::string hp = path + ".hardware";
  catalog.gpu(ju::getString(h, "catalogue_gpu", hp), hp + ".catalogue_gpu");
  const int gpus = ju::getInt32(h, "gpus", hp, 1);
  const auto per_node = optInt(h, "gpus_per_node", hp, 1);
  optPositive(h, "inter_node_gbit_per_gpu", hp);
  for (const char* k : {"gpu_type", "fabric", "intra_node"})
    if (h.contains(k) && !h.at(k).is_null()) ju::getString(h, k, hp);
  const json& p = object(row, "parallelism", path);
  const std::string pp = path + ".parallelism";
  const auto t = optInt(p, "tp", pp, 1), s = optInt(p, "pp", pp, 1), d = optInt(p, "dp", pp, 1),
             c = optInt(p, "cp", pp, 1);
  if (t && s && d && c && std::int64_t{*t} * *s * *d * *c != gpus)
    throw InputError(
        pp,
        cat("tp {} x pp {} x dp {} x cp {} = {}", *t, *s, *d, *c, std::int64_t{*t} * *s * *d * *c),
        cat("a product equal to hardware.gpus ({})", gpus));
  if (row.contains("model_parallel_size") && d) {
    const int mps = ju::getInt32(row, "model_parallel_size", path, 1);
    if (std::int64_t{mps} * *d * c.value_or(1) != gpus)
      throw InputError(path + ".model_parallel_size", std::to_string(mps),
                       cat("hardware.gpus / (dp x cp) = {} / {}", gpus, *d * c.value_or(1)));
  }
  if (t && per_node && *t > *per_node)
    throw InputError(pp + ".tp", std::to_string(*t),
                     cat("at most hardware.gpus_per_node ({})", *per_node));
  const json& meas = object(row, "measured", path);
  for (const char* k : {"tflops_per_gpu", "mfu", "tokens_per_s_per_gpu", "iteration_time_s"})
    optPositive(meas, k, path + ".measured");
  if (row.contains("derived") && !row.at("derived").is_null()) {
    ju::requireObject(row.at("derived"), path + ".derived");
    optPositive(row.at("derived"), "iteration_time_s", path + ".derived");
  }
  if (row.contains("notes") && !row.at("notes").is_null()) ju::getString(row, "notes", path);
}

// ---------------------------------------------------------------------------------------------
// NOTE [Rules for unstated values]
// A row's null is "the source does not say". Each rule below fills one such field for the rows
// it names, from the framework's documented default or from the source's own other rows, and
// says which; the first rule that applies wins. A field no rule fills leaves the row out
// (skipped, with the field named), except the fabric of a run over several nodes, which is an
// input error: without it the data-parallel and pipeline traffic has no speed.

struct Filled {
  json value;
  std::string detail;  // appended to the rule's reason ("2048 / 128"); may be empty
};

struct Rule {
  DefaultRule doc;
  bool quiet = false;  // a value that assumes nothing (one stage has no interleaving)
  std::function<std::optional<Filled>(const json& row, const Catalog& catalog)> fill;
};

std::optional<Filled> when(bool applies, json value, std::string detail = {}) {
  if (!applies) return std::nullopt;
  return Filled{std::move(value), std::move(detail)};
}

const json& at(const json& row, const std::string& field) {
  return row.at(json::json_pointer("/" + std::regex_replace(field, std::regex("\\."), "/")));
}
json& at(json& row, const std::string& field) {
  return row[json::json_pointer("/" + std::regex_replace(field, std::regex("\\."), "/"))];
}
bool known(const json& row, const std::string& field) {
  return !at(row, field).is_null();
}
int intAt(const json& row, const std::string& field) {
  return at(row, field).get<int>();
}
std::string id(const json& row) {
  return textOr(row, "id");
}

// Rules on the shape of the parallelism, the hardware and the model.
std::vector<Rule> structureRules() {
  std::vector<Rule> r;
  r.push_back({{"parallelism.tp", "Megatron-LM rows that print only model_parallel_size > 8",
                "the Megatron-LM README (2021-04..2022-05): 'for numbers larger than 8, "
                "typically tensor parallel of size 8 was used'"},
               false,
               [](const json& row, const Catalog&) {
                 const int mps = row.value("model_parallel_size", 0);
                 return when(
                     isMegatronLm(row) && !known(row, "parallelism.pp") && mps > 8 && mps % 8 == 0,
                     8);
               }});
  r.push_back({{"parallelism.pp", "rows that print only model_parallel_size, with tp known",
                "model_parallel_size / tp: the source prints only their product"},
               false,
               [](const json& row, const Catalog&) {
                 const int mps = row.value("model_parallel_size", 0);
                 const bool ok = known(row, "parallelism.tp") && mps > 0 &&
                                 mps % intAt(row, "parallelism.tp") == 0;
                 return when(ok, ok ? mps / intAt(row, "parallelism.tp") : 0,
                             ok ? cat("{} / {}", mps, intAt(row, "parallelism.tp")) : "");
               }});
  r.push_back({{"hardware.gpus_per_node", "every row",
                "the catalogue GPU type's node size (8-GPU HGX/DGX baseboards)"},
               false,
               [](const json& row, const Catalog& cat) {
                 const GpuType& g =
                     cat.gpu(row.at("hardware").at("catalogue_gpu").get<std::string>(), "");
                 return when(true, g.gpus_per_node, "the catalogue's " + g.name);
               }});
  r.push_back({{"hardware.inter_node_gbit_per_gpu", "rows on DGX A100 nodes",
                "a DGX A100 node's 8 x 200 Gb/s HDR InfiniBand compute adapters, one per GPU "
                "(NVIDIA DGX A100 datasheet; SC'21 states the same for Selene)"},
               false,
               [](const json& row, const Catalog&) {
                 const std::string hw = hardwareText(row);
                 return when(contains(hw, "DGX A100") || contains(hw, "DGX-A100"), 200);
               }});
  r.push_back({{"hardware.inter_node_gbit_per_gpu", "rows on Omni-Path naming its links per node",
                "Omni-Path Architecture links run at 100 Gb/s (Intel OPA 100, its one "
                "generation), shared by the node's GPUs"},
               false,
               [](const json& row, const Catalog&) {
                 std::smatch m;
                 const std::string hw = hardwareText(row);
                 const bool ok = known(row, "hardware.gpus_per_node") &&
                                 std::regex_search(hw, m, std::regex("(\\d+) Omni-?Path links"));
                 if (!ok) return when(false, 0);
                 const int links = std::stoi(m[1].str());
                 const int per_node = intAt(row, "hardware.gpus_per_node");
                 return when(true, links * 100.0 / per_node,
                             cat("{} links x 100 Gb/s / {} GPUs", links, per_node));
               }});
  r.push_back({{"hardware.inter_node_gbit_per_gpu", "megatron-readme-h100-* (fabric not stated)",
                "a DGX H100 node's 8 x 400 Gb/s NDR InfiniBand compute adapters, one per GPU "
                "(NVIDIA DGX H100 datasheet): NVIDIA's own H100 system; the README names none"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "megatron-readme-h100-"), 400);
               }});
  r.push_back({{"model.ffn_hidden", "Megatron-based rows",
                "Megatron-LM's default --ffn-hidden-size, 4 x hidden"},
               false,
               [](const json& row, const Catalog&) {
                 return when(isMegatronFamily(row), 4 * intAt(row, "model.hidden"));
               }});
  r.push_back(
      {{"model.mlp", "Megatron-based rows", "Megatron-LM's default MLP: GeLU (no --swiglu)"},
       false,
       [](const json& row, const Catalog&) { return when(isMegatronFamily(row), "gelu"); }});
  r.push_back(
      {{"model.position", "Megatron-based rows",
        "Megatron-LM's default --position-embedding-type learned_absolute"},
       false,
       [](const json& row, const Catalog&) { return when(isMegatronFamily(row), "learned"); }});
  r.push_back({{"model.vocab", "Megatron-based rows",
                "the GPT-2 BPE vocabulary padded to 51,200, the vocabulary of the Megatron "
                "papers' GPT models (SC'21, Korthikanti et al.)"},
               false,
               [](const json& row, const Catalog&) { return when(isMegatronFamily(row), 51200); }});
  return r;
}

// Rules on the job and the schedule.
std::vector<Rule> trainingRules() {
  std::vector<Rule> r;
  r.push_back({{"microbatch_size", "sc21-table1-*",
                "the same paper's Table 2 PTD-P rows (Megatron-LM) all run microbatch 1"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "sc21-table1-"), 1);
               }});
  r.push_back({{"microbatch_size", "megatron-readme-2020-*",
                "the 2020 code's --batch-size is each model instance's whole share of the "
                "batch, without gradient accumulation (Megatron-LM v1 arguments.py)"},
               false,
               [](const json& row, const Catalog&) {
                 const bool ok =
                     startsWith(id(row), "megatron-readme-2020-") &&
                     known(row, "global_batch_size") && known(row, "parallelism.dp") &&
                     intAt(row, "global_batch_size") % intAt(row, "parallelism.dp") == 0;
                 if (!ok) return when(false, 0);
                 const int g = intAt(row, "global_batch_size"), d = intAt(row, "parallelism.dp");
                 return when(true, g / d, cat("global batch {} / dp {}", g, d));
               }});
  r.push_back({{"microbatch_size", "megatron-readme-h100-*",
                "Megatron-LM's GPT-3 175B example (examples/gpt3/train_gpt3_175b_distributed.sh) "
                "passes --micro-batch-size 1"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "megatron-readme-h100-"), 1);
               }});
  r.push_back(
      {{"microbatch_size", "mtnlg-*",
        "the same 530B model at tp 8 x pp 35 runs microbatch 1 in SC'21 Table 2 and "
        "Korthikanti et al. Table 3"},
       false,
       [](const json& row, const Catalog&) { return when(startsWith(id(row), "mtnlg-"), 1); }});
  r.push_back({{"precision", "megatron-readme-h100-*",
                "bf16: the README's MFU column is taken against the dense BF16 peak (the row's "
                "notes)"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "megatron-readme-h100-"), "bf16");
               }});
  r.push_back({{"precision", "rows on a GPU type whose fp16 and bf16 rates are equal",
                "16-bit mixed precision, as the sources describe their runs (SC'21 Section 5, "
                "Korthikanti et al. Section 6, the 2020 README) without naming the format; fp16 "
                "and bf16 run at the same catalogue rate here, so either predicts the same"},
               false,
               [](const json& row, const Catalog& cat) {
                 const GpuType& g =
                     cat.gpu(row.at("hardware").at("catalogue_gpu").get<std::string>(), "");
                 return when(g.bf16_tflops && *g.bf16_tflops == g.fp16_tflops, "fp16");
               }});
  r.push_back(
      {{"optimizer", "Megatron-based rows", "Megatron-LM's default --optimizer adam"},
       false,
       [](const json& row, const Catalog&) { return when(isMegatronFamily(row), "adam"); }});
  r.push_back({{"activation_recomputation", "sc21-table2-zero3-*",
                "the paper's throughput formula (eq. 3), used for every row of Table 2, counts "
                "the recomputation forward pass"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "sc21-table2-zero3-"), "full");
               }});
  r.push_back({{"activation_recomputation", "megatron-readme-2020-*",
                "the README's TFLOP/s are SC'21's eq. 3, which counts a recomputation forward "
                "pass (the row's tflops_check)"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "megatron-readme-2020-"), "full");
               }});
  r.push_back({{"activation_recomputation", "mtnlg-*",
                "the same 530B model at tp 8 x pp 35 runs with full recomputation in SC'21 "
                "Table 1"},
               false,
               [](const json& row, const Catalog&) {
                 return when(startsWith(id(row), "mtnlg-"), "full");
               }});
  r.push_back({{"activation_recomputation", "Megatron-LM rows",
                "Megatron-LM's default: no --recompute-granularity"},
               false,
               [](const json& row, const Catalog&) { return when(isMegatronLm(row), "none"); }});
  return r;
}

// Rules on data-parallel sharding and interleaving.
std::vector<Rule> scheduleRules() {
  std::vector<Rule> r;
  r.push_back({{"zero_stage",
                "rows whose notes name --overlap-param-gather or the distributed "
                "optimizer",
                "Megatron-LM's --overlap-param-gather works only with its distributed optimizer "
                "(--use-distributed-optimizer), which shards the optimizer state as ZeRO-1 does"},
               false,
               [](const json& row, const Catalog&) {
                 const std::string n = textOr(row, "notes");
                 return when(contains(n, "--overlap-param-gather") ||
                                 contains(n, "--use-distributed-optimizer") ||
                                 contains(n, "distributed optimizer"),
                             1);
               }});
  r.push_back({{"zero_stage", "Megatron-based rows",
                "no sharding: Megatron-LM without --use-distributed-optimizer (DeepSpeed's "
                "zero_optimization.stage defaults to 0 too)"},
               false,
               [](const json& row, const Catalog&) { return when(isMegatronFamily(row), 0); }});
  r.push_back({{"interleaved_virtual_stages", "rows of one pipeline stage", "one stage"},
               true,
               [](const json& row, const Catalog&) {
                 return when(known(row, "parallelism.pp") && intAt(row, "parallelism.pp") == 1, 1);
               }});
  r.push_back({{"interleaved_virtual_stages", "sc21-table1-*",
                "Section 5.1: every Table 1 run uses the interleaved schedule, chunks per device "
                "not stated; Korthikanti et al.'s 3 (the same group's 175B and 530B runs on "
                "Selene) where a stage's blocks divide by 3, else 2 where they divide by 2"},
               false,
               [](const json& row, const Catalog&) {
                 if (!startsWith(id(row), "sc21-table1-") || !known(row, "parallelism.pp"))
                   return when(false, 0);
                 const int per_stage = intAt(row, "model.layers") / intAt(row, "parallelism.pp");
                 const int v = per_stage % 3 == 0 ? 3 : per_stage % 2 == 0 ? 2 : 1;
                 return when(true, v, cat("{} blocks per stage", per_stage));
               }});
  r.push_back({{"interleaved_virtual_stages", "Megatron-LM rows",
                "Megatron-LM's default: no --num-layers-per-virtual-pipeline-stage"},
               false,
               [](const json& row, const Catalog&) { return when(isMegatronLm(row), 1); }});
  r.push_back({{"interleaved_virtual_stages", "other rows",
                "DeepSpeed's pipeline engine has no interleaved schedule"},
               false,
               [](const json&, const Catalog&) { return when(true, 1); }});
  return r;
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> kAll = [] {
    std::vector<Rule> r = structureRules();
    for (auto* part : {&trainingRules, &scheduleRules})
      for (Rule& x : part()) r.push_back(std::move(x));
    return r;
  }();
  return kAll;
}

// Fills the row's nulls by the rules; each value filled is one line of `assumptions`.
json applyRules(const json& row, const Catalog& catalog, std::vector<std::string>& assumptions) {
  json out = row;
  for (const Rule& rule : rules()) {
    if (known(out, rule.doc.field)) continue;
    const std::optional<Filled> f = rule.fill(out, catalog);
    if (!f) continue;
    at(out, rule.doc.field) = f->value;
    if (rule.quiet) continue;
    const std::string value = f->value.is_string() ? f->value.get<std::string>() : f->value.dump();
    assumptions.push_back(rule.doc.field + std::string(" ") + value + " (not stated; " +
                          rule.doc.because + (f->detail.empty() ? "" : ": " + f->detail) + ")");
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The row as the simulator takes it.

// The fields a prediction needs; the first one still null after the rules.
std::optional<std::string> firstUnstated(const json& row) {
  for (const char* f : {"parallelism.tp", "parallelism.pp", "parallelism.dp", "global_batch_size",
                        "microbatch_size", "precision", "optimizer", "activation_recomputation",
                        "zero_stage", "interleaved_virtual_stages", "model.ffn_hidden",
                        "model.vocab", "model.mlp", "model.position", "hardware.gpus_per_node"})
    if (!known(row, f)) return f;
  return std::nullopt;
}

// The model's catalogue JSON; mlp and position in the catalogue's terms (ReLU and ALiBi have
// the shapes and FLOPs of GeLU and of a position scheme without parameters).
json modelJson(const json& row, const std::string& path, std::vector<std::string>& notes) {
  const json& m = row.at("model");
  const std::string mlp = m.at("mlp").get<std::string>();
  const std::string pos = m.at("position").get<std::string>();
  std::string mlp_c, pos_c;
  if (mlp == "gelu" || mlp == "swiglu") mlp_c = mlp;
  else if (mlp == "relu") {
    mlp_c = "gelu";
    notes.push_back("model.mlp relu as gelu (the same shapes and FLOPs)");
  } else throw InputError(path + ".model.mlp", "\"" + mlp + "\"", "gelu, swiglu or relu");
  if (pos == "learned") pos_c = "learned";
  else if (pos == "rope" || pos == "rotary") pos_c = "rotary";
  else if (pos == "alibi") {
    pos_c = "rotary";
    notes.push_back("model.position alibi as rotary (neither has position parameters)");
  } else throw InputError(path + ".model.position", "\"" + pos + "\"", "learned, rope or alibi");
  const int heads = m.at("heads").get<int>();
  const int seq = row.at("sequence_length").get<int>();
  return json{{"name", id(row)},
              {"layers", m.at("layers")},
              {"hidden_size", m.at("hidden")},
              {"heads", heads},
              {"kv_heads", m.at("kv_heads").is_null() ? json(heads) : m.at("kv_heads")},
              {"ffn_hidden_size", m.at("ffn_hidden")},
              {"vocab_size", m.at("vocab")},
              {"sequence_length", seq},
              {"max_position_embeddings", seq},
              {"position_embedding", pos_c},
              {"tied_embeddings", true},
              {"mlp", mlp_c},
              {"sources", {textOr(m, "name") + " as published_runs.json row " + id(row)}}};
}

bool sameShape(const ModelSpec& a, const ModelSpec& b) {
  return a.layers == b.layers && a.hidden_size == b.hidden_size && a.heads == b.heads &&
         a.kv_heads == b.kv_heads && a.ffn_hidden_size == b.ffn_hidden_size &&
         a.vocab_size == b.vocab_size && a.mlp == b.mlp &&
         a.position_embedding == b.position_embedding && a.tied_embeddings == b.tied_embeddings &&
         a.norm == b.norm && a.bias == b.bias;
}

// The model's name in `catalog`: the catalogue's model of exactly its shape, else the inline
// one, added.
std::string resolveModel(const json& row, const Catalog& shipped, Catalog& catalog,
                         const std::string& path, std::vector<std::string>& notes) {
  ModelSpec inline_model;
  try {
    inline_model = ModelSpec::fromJson(modelJson(row, path, notes), path + ".model");
  } catch (const InputError& e) {
    if (startsWith(e.field(), path)) throw;
    throw withContext(e, path + ".model");
  }
  notes.push_back(
      "model: output layer tied to the word embedding (Megatron-LM's default without "
      "--untie-embeddings-and-output-weights, kept by Megatron-DeepSpeed)");
  for (const ModelSpec& m : shipped.models())
    if (sameShape(m, inline_model) &&
        m.max_position_embeddings >= row.at("sequence_length").get<int>()) {
      notes.push_back("model: the catalogue's " + m.name + " (the same shape)");
      return m.name;
    }
  catalog.addModel(inline_model);
  return inline_model.name;
}

// One zone with the row's GPUs; the same-zone link is the node's aggregate of its GPUs' fabric.
Scenario buildScenario(const json& row, const Catalog& catalog, const std::string& path) {
  const json& h = row.at("hardware");
  const int gpus = h.at("gpus").get<int>();
  const int per_node = h.at("gpus_per_node").get<int>();
  json sc{{"name", id(row)},
          {"regions", {{{"name", "site"}, {"continent", "north-america"}, {"zones", {kZone}}}}},
          {"pools",
           {{{"zone", kZone},
             {"gpu_type", h.at("catalogue_gpu")},
             {"count", gpus},
             {"usd_per_gpu_hour", 0},
             {"gpus_per_node", per_node}}}}};
  const json& gbit = h.at("inter_node_gbit_per_gpu");
  if (gbit.is_null() && gpus > per_node)
    throw InputError(path + ".hardware.inter_node_gbit_per_gpu", "null",
                     cat("Gb/s per GPU between nodes: the run spans {} nodes of {} GPUs "
                         "and no rule gives its fabric",
                         (gpus + per_node - 1) / per_node, per_node));
  if (!gbit.is_null()) {
    const double latency = Scenario::builtinDefaultLinks().at(Relation::SameZone).latency_s;
    sc["network"] = {{"defaults",
                      {{"same_zone",
                        {{"latency_s", latency},
                         {"bandwidth_gb_per_s", gbit.get<double>() * per_node / 8.0}}}}}};
  }
  try {
    return Scenario::fromJson(sc, catalog);
  } catch (const InputError& e) {
    throw withContext(e, path + ".hardware");
  }
}

// Plan layers of each stage: blocks split as evenly as the framework does, the embedding with
// the first stage and the head with the last. DeepSpeed's 'type:transformer|embedding'
// partition counts the embedding and the head as one block each. A remainder goes one block
// each to the first stages.
std::vector<std::pair<int, int>> splitLayers(int blocks, int pp, bool count_ends,
                                             std::vector<std::string>& notes) {
  const int units = blocks + (count_ends ? 2 : 0);
  const int base = units / pp, rest = units % pp;
  if (rest != 0)
    notes.push_back(
        cat("stages: {} blocks do not divide by pp {}; the first {} stages "
            "take one more",
            units, pp, rest));
  std::vector<std::pair<int, int>> out;
  int next = count_ends ? 0 : 1;  // first unit's plan layer
  for (int s = 0; s < pp; ++s) {
    const int n = base + (s < rest ? 1 : 0);
    int first = next, last = next + n - 1;
    next = last + 1;
    if (!count_ends && s == 0) first = 0;
    if (!count_ends && s == pp - 1) last = blocks + 1;
    out.emplace_back(first, last);
  }
  return out;
}

// The data-parallel schedule of the framework, with what it assumes.
Schedule buildSchedule(const json& row, int dp, Recompute recompute,
                       std::vector<std::string>& notes) {
  Schedule s;
  const int zero = row.at("zero_stage").get<int>();
  s.sharding = zero == 0 ? DpSharding::None : zero == 3 ? DpSharding::Full : DpSharding::Optimizer;
  if (zero == 2) notes.push_back("sharding: ZeRO-2 as the distributed optimizer (gradients kept)");
  s.virtual_stages = row.at("interleaved_virtual_stages").get<int>();
  s.recompute = recompute;
  const std::string n = textOr(row, "notes");
  s.sequence_parallel = row.value("sequence_parallel", false);
  if (s.sequence_parallel) notes.push_back("sequence parallelism (the row's sequence_parallel)");
  if (contains(n, "--tp-comm-overlap")) {
    s.tp_comm_overlap = true;
    notes.push_back("tensor-parallel communication overlapped (--tp-comm-overlap, notes)");
  }
  if (contains(textOr(row, "framework"), "Megatron-Core")) {
    s.fused_attention = true;
    notes.push_back(
        "fused attention: Megatron-Core runs attention through Transformer Engine's fused "
        "kernels by default");
  }
  if (contains(n, "--overlap-grad-reduce")) {
    s.overlap_grad_reduce = true;
    if (dp > 1)
      notes.push_back(
          "gradient reduction overlapped with the backward (--overlap-grad-reduce, notes)");
  } else if (zero == 3) {
    s.overlap_grad_reduce = true;
    if (dp > 1)
      notes.push_back(
          "gradient reduction overlapped with the backward (DeepSpeed ZeRO-3: "
          "overlap_comm defaults to true at stage 3)");
  } else if (dp > 1 && isMegatronLm(row)) {
    notes.push_back(
        "gradient all-reduce after the backward (Megatron-LM's default without "
        "--overlap-grad-reduce; Korthikanti et al. state no overlap)");
  } else if (dp > 1) {
    notes.push_back("gradient all-reduce after the pipeline drains (DeepSpeed's pipeline engine)");
  }
  return s;
}

Plan buildPlan(const json& row, const PublishedRun& run, std::vector<std::string>& notes) {
  Plan plan;
  plan.microbatch_size = row.at("microbatch_size").get<int>();
  const bool count_ends = contains(textOr(row, "notes"), "transformer|embedding");
  const auto split =
      splitLayers(row.at("model").at("layers").get<int>(), run.pp, count_ends, notes);
  const std::string gpu = row.at("hardware").at("catalogue_gpu").get<std::string>();
  for (const auto& [first, last] : split) {
    Stage st;
    st.first_layer = first;
    st.last_layer = last;
    st.replicas.assign(static_cast<size_t>(run.dp), Replica{gpu, run.tp, kZone});
    plan.stages.push_back(std::move(st));
  }
  plan.schedule = buildSchedule(row, run.dp, run.job.recompute, notes);
  return plan;
}

Job buildJob(const json& row, const std::string& model, const Catalog& catalog,
             const std::string& path) {
  const json j{{"model", model},
               {"global_batch_size", row.at("global_batch_size")},
               {"sequence_length", row.at("sequence_length")},
               {"precision", row.at("precision")},
               {"optimizer", row.at("optimizer")},
               {"recompute", row.at("activation_recomputation")}};
  try {
    return Job::fromJson(j, catalog);
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
}

// The measured iteration time: measured.iteration_time_s, else derived.iteration_time_s.
std::optional<std::pair<double, std::string>> measuredTime(const json& row) {
  if (const json& m = row.at("measured"); !m.at("iteration_time_s").is_null())
    return std::pair{m.at("iteration_time_s").get<double>(), std::string("measured")};
  if (row.contains("derived") && row.at("derived").is_object()) {
    const json& d = row.at("derived");
    if (d.contains("iteration_time_s") && !d.at("iteration_time_s").is_null())
      return std::pair{d.at("iteration_time_s").get<double>(), std::string("derived")};
  }
  return std::nullopt;
}

// A row with gaps of its own (no iteration time, context parallelism): why it is left out.
std::optional<std::string> dataGap(const json& row) {
  if (!measuredTime(row)) {
    std::string why =
        "no iteration time (measured.iteration_time_s and derived.iteration_time_s "
        "are null)";
    if (row.contains("derived") && row.at("derived").is_object())
      if (std::string f = textOr(row.at("derived"), "formula"); !f.empty()) why += ": " + f;
    return why;
  }
  const json& cp = row.at("parallelism").at("cp");
  if (!cp.is_null() && cp.get<int>() > 1) return "context parallelism (cp > 1) is not modelled";
  return std::nullopt;
}

// One checked row: a run, or the reason it is left out. Throws InputError for malformed input.
std::variant<PublishedRun, std::string> readRow(const json& raw, std::size_t index,
                                                const Catalog& shipped, Catalog& catalog) {
  const std::string base = "runs[" + std::to_string(index) + "]";
  ju::requireObject(raw, base);
  const std::string row_id = ju::getString(raw, "id", base);
  const std::string path = base + " (" + row_id + ")";
  checkRow(raw, catalog, path);
  if (auto gap = dataGap(raw)) return *gap;
  PublishedRun run;
  run.index = index;
  run.id = row_id;
  run.framework = textOr(raw, "framework");
  const json row = applyRules(raw, catalog, run.assumptions);
  if (auto field = firstUnstated(row))
    return *field +
           " is not stated and no rule gives it (docs/simulator.md, \"Published runs "
           "at scale\")";
  run.gpus = intAt(row, "hardware.gpus");
  run.tp = intAt(row, "parallelism.tp");
  run.pp = intAt(row, "parallelism.pp");
  run.dp = intAt(row, "parallelism.dp");
  const int cp = known(row, "parallelism.cp") ? intAt(row, "parallelism.cp") : 1;
  if (std::int64_t{run.tp} * run.pp * run.dp * cp != run.gpus)
    throw InputError(path + ".parallelism",
                     cat("tp {} x pp {} x dp {} = {} (tp and pp as the rules give them)", run.tp,
                         run.pp, run.dp, std::int64_t{run.tp} * run.pp * run.dp),
                     cat("a product equal to hardware.gpus ({})", run.gpus));
  const int mb = intAt(row, "microbatch_size"), g = intAt(row, "global_batch_size");
  if (g % (std::int64_t{mb} * run.dp) != 0)
    throw InputError(path + ".global_batch_size", std::to_string(g),
                     cat("a multiple of microbatch_size {} x dp {} (Megatron-LM's "
                         "whole microbatches per replica)",
                         mb, run.dp));
  const std::string model = resolveModel(row, shipped, catalog, path, run.assumptions);
  run.job = buildJob(row, model, catalog, path);
  run.scenario = buildScenario(row, catalog, path);
  run.plan = buildPlan(row, run, run.assumptions);
  run.options.schedule =
      isMegatronLm(row) ? PipelineSchedule::Async1F1B : PipelineSchedule::DeepSpeed;
  run.options.timeline = false;
  if (run.pp > 1)
    run.assumptions.push_back(
        isMegatronLm(row) ? "pipeline: Megatron-LM's 1F1B, transfers overlapped with compute"
                          : "pipeline: DeepSpeed's schedule, blocking transfers");
  const auto t = measuredTime(row);
  run.measured_iteration_s = t->first;
  run.measured_from = t->second;
  return run;
}

}  // namespace

const std::vector<DefaultRule>& publishedDefaultRules() {
  static const std::vector<DefaultRule> kDocs = [] {
    std::vector<DefaultRule> d;
    for (const Rule& r : rules()) d.push_back(r.doc);
    return d;
  }();
  return kDocs;
}

bool isPublishedRuns(const json& doc) {
  if (!doc.is_object() || !doc.contains("runs") || !doc.at("runs").is_array()) return false;
  const json& runs = doc.at("runs");
  return std::any_of(runs.begin(), runs.end(), [](const json& r) {
    return r.is_object() && r.contains("hardware") && r.contains("parallelism");
  });
}

PublishedRuns readPublishedRuns(const json& doc, const Catalog& catalog, const std::string& where) {
  if (!isPublishedRuns(doc))
    throw InputError(where, ju::describe(doc),
                     "an object with \"runs\": rows with \"hardware\" and \"parallelism\"");
  PublishedRuns out{catalog, {}, {}};
  const json& runs = doc.at("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto r = readRow(runs[i], i, catalog, out.catalog);
    if (auto* run = std::get_if<PublishedRun>(&r)) out.runs.push_back(std::move(*run));
    else out.skipped.push_back({i, runs[i].at("id").get<std::string>(), std::get<std::string>(r)});
  }
  return out;
}

PublishedRuns loadPublishedRuns(const std::string& path, const Catalog& catalog) {
  return readPublishedRuns(ju::readFile(path), catalog, path);
}

PublishedReport validatePublishedRuns(const PublishedRuns& runs) {
  PublishedReport rep;
  ProfileSet profiles;
  profiles.add(std::make_shared<AnalyticProfile>(runs.catalog));
  rep.skipped = runs.skipped;
  for (const PublishedRun& run : runs.runs) {
    PublishedRow row;
    row.index = run.index;
    row.id = run.id;
    row.gpus = run.gpus;
    row.tp = run.tp;
    row.pp = run.pp;
    row.dp = run.dp;
    row.measured_iteration_s = run.measured_iteration_s;
    row.measured_from = run.measured_from;
    row.assumptions = run.assumptions;
    try {
      const Prediction p =
          simulate(run.plan, run.scenario, run.job, runs.catalog, profiles, run.options);
      row.predicted_iteration_s = p.iteration_s;
      row.fits = p.fits;
    } catch (const InputError& e) {
      rep.skipped.push_back({run.index, run.id, e.what()});
      continue;
    }
    row.time_error =
        (row.predicted_iteration_s - row.measured_iteration_s) / row.measured_iteration_s;
    rep.rows.push_back(std::move(row));
  }
  std::sort(rep.skipped.begin(), rep.skipped.end(),
            [](const PublishedSkip& a, const PublishedSkip& b) { return a.index < b.index; });
  for (const PublishedRow& r : rep.rows) {
    rep.mean_time_error += std::fabs(r.time_error);
    rep.max_time_error = std::max(rep.max_time_error, std::fabs(r.time_error));
  }
  if (!rep.rows.empty()) rep.mean_time_error /= static_cast<double>(rep.rows.size());
  return rep;
}

json PublishedReport::toJson() const {
  json pts = json::array();
  for (const PublishedRow& r : rows)
    pts.push_back({{"id", r.id},
                   {"gpus", r.gpus},
                   {"tp", r.tp},
                   {"pp", r.pp},
                   {"dp", r.dp},
                   {"measured_iteration_s", r.measured_iteration_s},
                   {"measured_from", r.measured_from},
                   {"predicted_iteration_s", r.predicted_iteration_s},
                   {"time_error", r.time_error},
                   {"fits", r.fits},
                   {"assumptions", r.assumptions}});
  json skip = json::array();
  for (const PublishedSkip& s : skipped) skip.push_back({{"id", s.id}, {"reason", s.reason}});
  return {{"points", pts},
          {"mean_time_error", mean_time_error},
          {"max_time_error", max_time_error},
          {"skipped", skip}};
}

std::string PublishedReport::toText() const {
  std::ostringstream os;
  os << columns("%-50s %5s %10s %11s %11s %8s\n", "run", "GPUs", "tp/pp/dp", "measured",
                "predicted", "error");
  for (const PublishedRow& r : rows)
    os << columns("%-50s %5d %10s %9.3f s%s %9.3f s %+7.1f%%%s\n", printableLine(r.id, 50).c_str(),
                  r.gpus, cat("{}/{}/{}", r.tp, r.pp, r.dp).c_str(), r.measured_iteration_s,
                  r.measured_from == "derived" ? "*" : " ", r.predicted_iteration_s,
                  100 * r.time_error, r.fits ? "" : "  (does not fit in memory)");
  os << columns("\nIteration time: mean |error| %.1f%%, max %.1f%% over %zu runs",
                100 * mean_time_error, 100 * max_time_error, rows.size());
  if (!skipped.empty()) os << " (" << skipped.size() << " skipped)";
  os << "\n* derived from the published throughput with the source's FLOP formula\n";
  os << "\nAssumptions (what each row does not state):\n";
  for (const PublishedRow& r : rows) {
    os << "  " << printableLine(r.id) << ":\n";
    for (const std::string& a : r.assumptions) os << "    " << printableLine(a) << "\n";
  }
  if (!skipped.empty()) {
    os << "\nSkipped:\n";
    for (const PublishedSkip& s : skipped)
      os << "  " << printableLine(s.id) << ": " << printableLine(s.reason) << "\n";
  }
  return os.str();
}

}  // namespace sailor
