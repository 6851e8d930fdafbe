// The plan: microbatch size and stages, each a contiguous layer range with its replicas.
// Declared in sailor/planning/plan.hpp.
//
// Map:
//   Plan::gpuCount, microbatches   GPUs used; microbatches per replica of a stage
//   batchFits, checkGlobalBatch    whole microbatches, at least one on every replica (and in
//                                  groups of P under interleaving: interleavingFits)
//   chunkLayers, checkInterleaving the model chunks of the interleaved schedule
//   Plan::fromJson, toJson         the file format (shape only)
//   Stage::replicaSummary          "2x A100-40 tp 2 in us-central1-a" style text
//   Plan::validate                 against a job, the catalogue and a scenario's pools
#include "sailor/planning/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

int Plan::gpuCount() const {
  int n = 0;
  for (const auto& s : stages)
    for (const auto& r : s.replicas) n += r.tp;
  return n;
}

int Plan::microbatches(int global_batch_size, const Stage& s) const {
  // In 64 bits: a microbatch of 2^31 - 1 times 4 replicas overflows an int (to a negative count).
  const std::int64_t per =
      std::int64_t{microbatch_size} * static_cast<std::int64_t>(s.replicas.size());
  return static_cast<int>((global_batch_size + per - 1) / per);
}

int Plan::gpusInSpotPools(const Scenario& scenario) const {
  int n = 0;
  for (const Stage& st : stages)
    for (const Replica& r : st.replicas)
      if (const Pool* pool = scenario.findPool(r.zone, r.gpu_type); pool && pool->spot) n += r.tp;
  return n;
}

bool batchFits(int global_batch_size, int microbatch_size, int replicas) {
  if (global_batch_size < 1 || microbatch_size < 1 || global_batch_size % microbatch_size != 0)
    return false;
  return global_batch_size / microbatch_size >= replicas;
}

void Plan::checkGlobalBatch(int global_batch_size) const {
  if (global_batch_size < 1 || microbatch_size < 1 || global_batch_size % microbatch_size != 0)
    throw InputError("global_batch_size", std::to_string(global_batch_size),
                     "a positive multiple of the microbatch size " +
                         std::to_string(microbatch_size) + " (whole microbatches)");
  const bool uniform = std::all_of(stages.begin(), stages.end(), [&](const Stage& s) {
    return s.replicas.size() == stages.front().replicas.size();
  });
  for (size_t i = 0; i < stages.size(); ++i) {
    const int d = static_cast<int>(stages[i].replicas.size());
    if (batchFits(global_batch_size, microbatch_size, d)) continue;
    throw InputError("global_batch_size", std::to_string(global_batch_size),
                     "at least " + std::to_string(d) + " replicas x " +
                         std::to_string(microbatch_size) +
                         " sequences per microbatch (a microbatch for every replica" +
                         (uniform ? ")" : " of stages[" + std::to_string(i) + "])"));
  }
  if (schedule.virtual_stages > 1 && !interleavingFits(global_batch_size)) {
    const int M = global_batch_size / microbatch_size, P = static_cast<int>(stages.size());
    throw InputError("schedule.virtual_stages", std::to_string(schedule.virtual_stages),
                     "1 for a global batch of " + std::to_string(M) +
                         " microbatches: the interleaved schedule runs every pipeline's "
                         "microbatches in whole groups of the " +
                         std::to_string(P) + " stages (M / D a multiple of " + std::to_string(P) +
                         " for the " + std::to_string(stages.front().replicas.size()) +
                         " replicas of stages[0])");
  }
}

bool Plan::interleavingFits(int global_batch_size) const {
  if (stages.empty() || microbatch_size < 1 || global_batch_size % microbatch_size != 0)
    return false;
  const std::int64_t M = global_batch_size / microbatch_size, P = std::ssize(stages);
  return std::all_of(stages.begin(), stages.end(), [&](const Stage& s) {
    const auto D = std::ssize(s.replicas);
    return D > 0 && M % D == 0 && (M / D) % P == 0;
  });
}

int Plan::blockCount(std::size_t stage) const {
  const int L = stages.back().last_layer - 1;  // blocks 1..L, head L + 1
  const Stage& s = stages.at(stage);
  return std::max(0, std::min(s.last_layer, L) - std::max(s.first_layer, 1) + 1);
}

std::vector<std::pair<int, int>> Plan::chunkLayers(std::size_t stage) const {
  const Stage& own = stages.at(stage);
  const int v = schedule.virtual_stages;
  if (v <= 1) return {{own.first_layer, own.last_layer}};
  const std::size_t P = stages.size();
  const int head = stages.back().last_layer;
  std::vector<std::pair<int, int>> out;
  int next = 1;  // the next block to place, in virtual-stage order
  for (int c = 0; c < v; ++c)
    for (std::size_t d = 0; d < P; ++d) {
      const int n = blockCount(d);
      const int size = n / v + (c < n % v ? 1 : 0);
      if (d == stage) {
        const int first = c == 0 && d == 0 ? 0 : next;
        const int last = c == v - 1 && d + 1 == P ? head : next + size - 1;
        out.emplace_back(first, last);
      }
      next += size;
    }
  return out;
}

void Plan::checkInterleaving() const {
  if (schedule.virtual_stages <= 1) return;
  const std::string v = std::to_string(schedule.virtual_stages);
  if (stages.size() < 2)
    throw InputError("schedule.virtual_stages", v,
                     "1 for a plan of one stage (interleaving needs a pipeline)");
  for (size_t i = 0; i < stages.size(); ++i)
    if (blockCount(i) < schedule.virtual_stages)
      throw InputError("schedule.virtual_stages", v,
                       "at most the " + std::to_string(blockCount(i)) +
                           " transformer blocks of stages[" + std::to_string(i) +
                           "] (a chunk holds at least one block)");
}

const char* dpShardingName(DpSharding s) {
  switch (s) {
    case DpSharding::None: return "none";
    case DpSharding::Optimizer: return "optimizer";
    case DpSharding::Full: return "full";
  }
  return "?";
}

DpSharding parseDpSharding(const std::string& name, const std::string& field) {
  if (name == "none") return DpSharding::None;
  if (name == "optimizer") return DpSharding::Optimizer;
  if (name == "full") return DpSharding::Full;
  throw InputError(field, "\"" + name + "\"", "\"none\", \"optimizer\" or \"full\"");
}

// Virtual stages per GPU, at most: more chunks than a 128-layer model has blocks per stage do
// not occur in practice (Megatron-LM's runs use 2 to 12).
constexpr int kMaxVirtualStages = 128;

json Schedule::toJson() const {
  json j{{"overlap_grad_reduce", overlap_grad_reduce},
         {"sharding", dpShardingName(sharding)},
         {"virtual_stages", virtual_stages}};
  if (recompute) j["recompute"] = recomputeName(*recompute);
  if (sequence_parallel) j["sequence_parallel"] = true;
  if (fused_attention) j["fused_attention"] = true;
  if (tp_comm_overlap) j["tp_comm_overlap"] = true;
  return j;
}

Schedule Schedule::fromJson(const json& j, const std::string& path) {
  ju::requireObject(j, path);
  ju::rejectUnknownKeys(j,
                        {"overlap_grad_reduce", "sharding", "virtual_stages", "recompute",
                         "sequence_parallel", "fused_attention", "tp_comm_overlap"},
                        path);
  Schedule s;
  s.overlap_grad_reduce = ju::getBoolOr(j, "overlap_grad_reduce", path, false);
  if (j.contains("sharding"))
    s.sharding = parseDpSharding(ju::getString(j, "sharding", path), path + ".sharding");
  s.virtual_stages = ju::getInt32Or(j, "virtual_stages", path, 1, 1);
  if (s.virtual_stages > kMaxVirtualStages)
    throw InputError(
        path + ".virtual_stages", std::to_string(s.virtual_stages),
        "an integer from 1 to " + std::to_string(kMaxVirtualStages) + " (model chunks per GPU)");
  if (j.contains("recompute"))
    s.recompute = parseRecompute(ju::getString(j, "recompute", path), path + ".recompute");
  s.sequence_parallel = ju::getBoolOr(j, "sequence_parallel", path, false);
  s.fused_attention = ju::getBoolOr(j, "fused_attention", path, false);
  s.tp_comm_overlap = ju::getBoolOr(j, "tp_comm_overlap", path, false);
  return s;
}

std::string Schedule::describe(const Job& job) const {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (overlap_grad_reduce) add("overlapped gradient reduction");
  if (sharding == DpSharding::Optimizer) add("distributed optimizer");
  if (sharding == DpSharding::Full) add("fully sharded data parallelism");
  if (virtual_stages > 1)
    add(std::to_string(virtual_stages) + " virtual stages (interleaved 1F1B)");
  const Recompute r = recompute.value_or(job.recompute);
  if (r != Recompute::None) add(std::string(recomputeName(r)) + " recomputation");
  if (sequence_parallel) add("sequence parallelism");
  if (fused_attention) add("fused attention");
  if (tp_comm_overlap) add("overlapped tensor-parallel communication");
  return out.empty() ? "DeepSpeed schedule" : out;
}

Job Plan::effectiveJob(const Job& job) const {
  Job j = job;
  if (schedule.recompute) j.recompute = *schedule.recompute;
  j.sequence_parallel = schedule.sequence_parallel;
  j.fused_attention = schedule.fused_attention;
  j.tp_comm_overlap = schedule.tp_comm_overlap;
  return j;
}

Plan Plan::fromJson(const json& j) {
  ju::rejectUnknownKeys(j, {"microbatch_size", "stages", "schedule", "prediction", "name"}, "");
  Plan p;
  p.microbatch_size = ju::getInt32(j, "microbatch_size", "", 1);
  if (j.contains("schedule")) p.schedule = Schedule::fromJson(j["schedule"], "schedule");
  const json& stages = ju::require(j, "stages", "");
  ju::requireArray(stages, "stages");
  if (stages.empty()) throw InputError("stages", "[]", "at least one stage");
  for (size_t i = 0; i < stages.size(); ++i) {
    const std::string path = "stages[" + std::to_string(i) + "]";
    const json& s = stages[i];
    ju::rejectUnknownKeys(s, {"first_layer", "last_layer", "replicas"}, path);
    Stage st;
    st.first_layer = ju::getInt32(s, "first_layer", path, 0);
    st.last_layer = ju::getInt32(s, "last_layer", path, 0);
    if (st.last_layer < st.first_layer)
      throw InputError(path + ".last_layer", std::to_string(st.last_layer),
                       "a layer >= first_layer " + std::to_string(st.first_layer));
    const json& reps = ju::require(s, "replicas", path);
    ju::requireArray(reps, path + ".replicas");
    if (reps.empty()) throw InputError(path + ".replicas", "[]", "at least one replica");
    for (size_t k = 0; k < reps.size(); ++k) {
      const std::string rp = path + ".replicas[" + std::to_string(k) + "]";
      ju::rejectUnknownKeys(reps[k], {"gpu_type", "tp", "zone"}, rp);
      Replica r;
      r.gpu_type = ju::getString(reps[k], "gpu_type", rp);
      r.tp = ju::getInt32(reps[k], "tp", rp, 1);
      r.zone = ju::getString(reps[k], "zone", rp);
      st.replicas.push_back(std::move(r));
    }
    p.stages.push_back(std::move(st));
  }
  return p;
}

json Plan::toJson() const {
  json stages_j = json::array();
  for (const auto& s : stages) {
    json reps = json::array();
    for (const auto& r : s.replicas)
      reps.push_back({{"gpu_type", r.gpu_type}, {"tp", r.tp}, {"zone", r.zone}});
    stages_j.push_back(
        {{"first_layer", s.first_layer}, {"last_layer", s.last_layer}, {"replicas", reps}});
  }
  json out{{"microbatch_size", microbatch_size}, {"stages", stages_j}};
  if (!schedule.isDefault()) out["schedule"] = schedule.toJson();
  return out;
}

std::string Stage::replicaSummary() const {
  std::map<std::string, int> groups;
  for (const Replica& r : replicas)
    groups[r.gpu_type + " tp" + std::to_string(r.tp) + " " + r.zone]++;
  std::string out;
  for (const auto& [k, n] : groups) out += (out.empty() ? "" : ", ") + std::to_string(n) + "x " + k;
  return out;
}

void Plan::validate(const Job& job, const Catalog& catalog, const Scenario& scenario) const {
  const ModelSpec& model = catalog.model(job.model, "job.model");
  const int L = model.numPlanLayers();
  if (stages.empty()) throw InputError("stages", "[]", "at least one stage");
  if (microbatch_size < 1)
    throw InputError("microbatch_size", std::to_string(microbatch_size), "an integer >= 1");
  int expected_first = 0;
  std::map<std::pair<std::string, std::string>, std::int64_t> used;  // summed without overflow
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& s = stages[i];
    const std::string path = "stages[" + std::to_string(i) + "]";
    if (s.first_layer != expected_first)
      throw InputError(
          path + ".first_layer", std::to_string(s.first_layer),
          std::to_string(expected_first) + " (stages must be contiguous from layer 0)");
    if (s.last_layer >= L)
      throw InputError(path + ".last_layer", std::to_string(s.last_layer),
                       "at most " + std::to_string(L - 1) + " (" + model.name + " has " +
                           std::to_string(L) + " plan layers: embedding, " +
                           std::to_string(model.layers) + " blocks, head)");
    expected_first = s.last_layer + 1;
    // A stage lists its replicas by kind, so equal ones are adjacent: each run of equal
    // replicas is checked once and counted at once (the planner validates every plan it places:
    // thousands on 100 pools). The path of a replica is written only for an error.
    for (size_t k = 0; k < s.replicas.size();) {
      const Replica& r = s.replicas[k];
      size_t end = k + 1;
      while (end < s.replicas.size() && s.replicas[end] == r) ++end;
      auto rp = [&] { return path + ".replicas[" + std::to_string(k) + "]"; };
      const GpuType* found = catalog.findGpu(r.gpu_type);
      const GpuType& gpu = found ? *found : catalog.gpu(r.gpu_type, rp() + ".gpu_type");
      if (!supportsPrecision(gpu, job.precision))
        throw InputError(rp() + ".gpu_type", "\"" + r.gpu_type + "\"",
                         std::string("a GPU type with ") + precisionName(job.precision) +
                             " arithmetic for a " + precisionName(job.precision) + " job (" +
                             r.gpu_type + " has none; an fp16 job can use it)");
      if (!scenario.hasZone(r.zone))
        throw InputError(rp() + ".zone", "\"" + r.zone + "\"", "a zone of the scenario");
      const int per_node = scenario.gpusPerNode(r.zone, r.gpu_type, catalog);
      if (r.tp > per_node)
        throw InputError(rp() + ".tp", std::to_string(r.tp),
                         "at most " + std::to_string(per_node) + " (" + r.gpu_type +
                             " GPUs per node: a replica stays inside one node)");
      if (model.heads % r.tp != 0)
        throw InputError(rp() + ".tp", std::to_string(r.tp),
                         "a divisor of the model's " + std::to_string(model.heads) + " heads");
      used[{r.zone, r.gpu_type}] += std::int64_t{r.tp} * static_cast<std::int64_t>(end - k);
      k = end;
    }
  }
  if (expected_first != L)
    throw InputError("stages[" + std::to_string(stages.size() - 1) + "].last_layer",
                     std::to_string(expected_first - 1),
                     std::to_string(L - 1) + " (the last stage must end with the head layer)");
  checkInterleaving();
  for (const auto& [key, n] : used) {
    const Pool* pool = scenario.findPool(key.first, key.second);
    if (!pool)
      throw InputError("stages", key.second + " in " + key.first,
                       "GPU types and zones that have a pool in the scenario");
    if (n > pool->count)
      throw InputError("stages", std::to_string(n) + " " + key.second + " in " + key.first,
                       "at most " + std::to_string(pool->count) + " (the pool's count)");
  }
  checkGlobalBatch(job.global_batch_size);
}

}  // namespace sailor
