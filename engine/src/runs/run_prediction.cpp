// A run's prediction on the local device's profile and its comparison with what the run
// measured (sailor/runs/run_prediction.hpp; docs/closed-loop.md "Prediction against measurement").
//
//   LocalProfile::load ...... the three files of a `sailor profile` directory, checked
//   defaultProfileDir ....... where profiles are kept by default
//   profileMismatch ......... the run's model against the profile's
//   predictOnProfile ........ the plan's structure on the device, through the simulator
//   compareRun .............. medians after warm-up against the prediction
//   formatComparison ........ the text table
#include "sailor/runs/run_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;
namespace fs = std::filesystem;

LocalProfile LocalProfile::load(const std::string& dir, const std::string& option) {
  const std::string expected =
      "a directory written by `sailor profile` (profile.json, "
      "catalog.json, scenario.json)";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(option, "\"" + dir + "\" (no such directory)", expected);
  LocalProfile p;
  p.dir = fs::absolute(dir).lexically_normal().string();
  while (p.dir.size() > 1 && p.dir.back() == '/') p.dir.pop_back();
  for (const char* f : {"profile.json", "catalog.json", "scenario.json"})
    if (!fs::is_regular_file(p.dir + "/" + f, ec))
      throw InputError(option, "\"" + dir + "\" (no " + f + ")", expected);
  try {
    p.profile = ju::readFile(p.dir + "/profile.json");
    p.catalog = ju::readFile(p.dir + "/catalog.json");
    p.scenario = ju::readFile(p.dir + "/scenario.json");
    ju::requireObject(p.profile, "profile.json");
    if (p.profile.value("format", std::string()) != "sailor-studio-profile/1")
      throw InputError("profile.json format", ju::describe(p.profile.value("format", json())),
                       "\"sailor-studio-profile/1\"");
    p.gpu_type = ju::getString(p.profile, "gpu_type", "");
    p.model = ju::getString(p.profile, "model", "");
    p.precision = ju::getStringOr(p.profile, "precision", "", "fp32");
    const std::string by = ju::getStringOr(p.profile, "measured_by", "", "");
    // "sailor profile on HOST, 2026-12-04T18:02:11Z", and after a calibration " (calibrated
    // by ...)": the date-time is the word after the last ", ".
    if (const auto comma = by.rfind(", "); comma != std::string::npos)
      p.measured_at = by.substr(comma + 2, by.find(' ', comma + 2) - (comma + 2));
    ju::requireObject(p.catalog, "catalog.json");
    bool model_found = false, gpu_found = false;
    const json models = p.catalog.value("models", json::array());
    for (std::size_t i = 0; i < models.size() && models.is_array(); ++i)
      if (models[i].is_object() && models[i].value("name", std::string()) == p.model) {
        p.model_spec =
            ModelSpec::fromJson(models[i], "catalog.json models[" + std::to_string(i) + "]");
        model_found = true;
      }
    for (const json& g : p.catalog.value("gpus", json::array()))
      gpu_found = gpu_found || (g.is_object() && g.value("name", std::string()) == p.gpu_type);
    if (!model_found)
      throw InputError("catalog.json models", "no \"" + p.model + "\"", "the profile's model");
    if (!gpu_found)
      throw InputError("catalog.json gpus", "no \"" + p.gpu_type + "\"", "the profile's GPU type");
  } catch (const InputError& e) {
    throw InputError(option, "\"" + dir + "\", which is not a profile (" + e.what() + ")",
                     expected);
  }
  return p;
}

std::string defaultProfileDir(const std::string& store_path, const std::string& gpu_type,
                              const std::string& runtime_model_name) {
  const fs::path store = fs::absolute(store_path);
  return (store.parent_path() / "profiles" / gpu_type / runtime_model_name).string();
}

std::string runtimeModelName(const RuntimeModel& m) {
  return m.name + "-runtime-h" + std::to_string(m.hidden_size) + "-s" +
         std::to_string(m.sequence_length);
}

std::optional<std::string> profileMismatch(const LocalProfile& p, const RuntimeModel& model,
                                           Precision precision, const std::string& dtype) {
  const ModelSpec& s = p.model_spec;
  const std::pair<const char*, std::pair<int, int>> dims[] = {
      {"blocks", {model.layers, s.layers}},
      {"hidden", {model.hidden_size, s.hidden_size}},
      {"heads", {model.heads, s.heads}},
      {"ffn", {model.ffn_hidden_size, s.ffn_hidden_size}},
      {"vocabulary", {model.vocab_size, s.vocab_size}},
      {"sequence length", {model.sequence_length, s.sequence_length}}};
  for (const auto& [what, v] : dims)
    if (v.first != v.second)
      return std::string(what) + " " + std::to_string(v.first) + ", the profile's " +
             std::to_string(v.second) + " (" + p.model + ")";
  if (precisionName(precision) != p.precision)
    return std::string("precision ") + precisionName(precision) + ", the profile's " + p.precision;
  if (dtype != "float32") return "dtype " + dtype + ", the profile's float32 (" + p.precision + ")";
  return std::nullopt;
}

// NOTE [Prediction over emulated zones]
// `sailor run --emulate-zones` puts each zone's workers in a network namespace and shapes what
// one zone sends another with tbf at the scenario's bandwidth (a netem delay in front where the
// kernel has netem). Everything else is this machine: the same cores, and inside a zone the same
// loopback Gloo was profiled on. So the prediction keeps the plan's zones apart, each a pool of
// the profile's GPU type (nodes of the profile's size within each), with the profile's measured
// link inside a zone (the scenario's same_zone default and intra_node entry), and between two
// zones the profile's link at the lower of its bandwidth and the shaped one, its latency plus
// the scenario's. The latency is added whether or not netem is there to emulate it (the run
// says when it is not, in a warning): the zone scenarios of the tests and benches have none.
namespace {

json emulatedScenario(const json& profile_scenario, const LocalProfile& p, const Plan& plan,
                      const std::vector<EmulatedZoneLink>& emulated, std::string& described) {
  json scen = profile_scenario;
  std::vector<std::string> zones;
  std::map<std::string, int> gpus;
  for (const Stage& st : plan.stages)
    for (const Replica& r : st.replicas) {
      if (!gpus.count(r.zone)) zones.push_back(r.zone);
      gpus[r.zone] += r.tp;
    }
  json pools = json::array();
  for (const std::string& z : zones)
    pools.push_back({{"zone", z},
                     {"gpu_type", p.gpu_type},
                     {"count", gpus[z]},
                     {"usd_per_gpu_hour", 0.0},
                     {"spot", false}});
  scen["pools"] = pools;
  scen["regions"] = json::array({json{{"name", "emulated"}, {"zones", zones}}});
  json& network = scen["network"];
  const json same = network.value("defaults", json::object()).value("same_zone", json::object());
  const double bw = same.value("bandwidth_gb_per_s", 0.0) * 1e9;
  const double latency = same.value("latency_s", 0.0);
  json links = json::array();
  for (const EmulatedZoneLink& l : emulated) {
    if (!gpus.count(l.from_zone) || !gpus.count(l.to_zone)) continue;
    const double shaped = bw > 0 ? std::min(bw, l.bytes_per_s) : l.bytes_per_s;
    links.push_back({{"from_zone", l.from_zone},
                     {"to_zone", l.to_zone},
                     {"model",
                      {{"kind", "latency_bandwidth"},
                       {"latency_s", latency + l.latency_s},
                       {"bandwidth_gb_per_s", shaped / 1e9}}}});
    char text[160];
    std::snprintf(text, sizeof text, "%s%s -> %s at %.4g GB/s", described.empty() ? "" : ", ",
                  l.from_zone.c_str(), l.to_zone.c_str(), shaped / 1e9);
    described += text;
  }
  network["links"] = links;
  return scen;
}

}  // namespace

Prediction simulateOnProfile(const LocalProfile& p, const json& profile_catalog, const Plan& plan,
                             int global_batch_size, const RuntimeModel& model, Precision precision,
                             Optimizer optimizer, Recompute recompute, const Catalog& catalog,
                             const std::vector<EmulatedZoneLink>& emulated,
                             std::string* links_out) {
  Catalog cat = catalog;
  cat.extendFromJson(profile_catalog, p.dir + "/catalog.json");
  json scen = p.scenario;
  std::string zone = "local";
  std::string links;
  if (!emulated.empty()) {
    scen = emulatedScenario(p.scenario, p, plan, emulated, links);
  } else if (scen.contains("pools") && scen["pools"].is_array()) {
    for (json& pool : scen["pools"])
      if (pool.value("gpu_type", std::string()) == p.gpu_type) {
        zone = pool.value("zone", zone);
        pool["count"] = std::max(pool.value("count", 0), plan.gpuCount());
      }
  }
  const Scenario scenario = Scenario::fromJson(scen, cat);
  Plan local = plan;
  for (Stage& s : local.stages)
    for (Replica& r : s.replicas) {
      r.gpu_type = p.gpu_type;
      if (emulated.empty()) r.zone = zone;
    }
  Job job;
  job.model = p.model;
  job.global_batch_size = global_batch_size;
  job.sequence_length = model.sequence_length;
  job.precision = precision;
  job.optimizer = optimizer;
  job.recompute = recompute;
  ProfileSet profiles;
  profiles.add(NativeProfile::fromJson(p.profile, cat, p.dir + "/profile.json"));
  SimulatorOptions opt;
  opt.timeline = false;
  opt.gradient_bucket_params = static_cast<double>(RunSpec{}.bucket_elements);  // the runtime's
  if (links_out) *links_out = links;
  return simulate(local, scenario, job, cat, profiles, opt);
}

RunPrediction predictOnProfile(const LocalProfile& p, const Plan& plan, int global_batch_size,
                               const RuntimeModel& model, Precision precision, Optimizer optimizer,
                               Recompute recompute, const Catalog& catalog,
                               const std::vector<EmulatedZoneLink>& emulated) {
  std::string links;
  const Prediction pr = simulateOnProfile(p, p.catalog, plan, global_batch_size, model, precision,
                                          optimizer, recompute, catalog, emulated, &links);
  RunPrediction out;
  out.device = p.gpu_type;
  out.profile = p.dir;
  out.model = p.model;
  out.measured_at = p.measured_at;
  if (!links.empty()) out.links = "emulated zones: " + links;
  out.iteration_seconds = pr.iteration_s;
  out.busiest_stage = pr.breakdown.stage;
  out.compute_seconds = pr.breakdown.compute_s;
  out.bubble_seconds = pr.breakdown.bubble_s;
  out.p2p_seconds = pr.breakdown.p2p_s;
  out.dp_sync_seconds = pr.breakdown.dp_sync_s;
  out.optimizer_seconds = pr.breakdown.optimizer_s;
  for (std::size_t i = 0; i < pr.stages.size(); ++i) {
    const StageTimes& st = pr.stages[i];
    PredictedStage s;
    s.stage = static_cast<int>(i);
    s.forward_seconds = st.forward_s;
    s.backward_seconds = st.backward_s;
    s.optimizer_seconds = st.optimizer_s;
    s.microbatches = st.microbatches;
    s.compute_seconds = (st.forward_s + st.backward_s) * st.microbatches + st.optimizer_s;
    s.communication_seconds = std::max(0.0, pr.iteration_s - s.compute_seconds);
    out.stages.push_back(s);
  }
  for (const MemoryBreakdown& m : pr.memory) {
    const auto bytes = static_cast<std::int64_t>(std::llround(m.total_bytes));
    out.memory.push_back({m.stage, m.replica, bytes});
    if (m.stage >= 0 && static_cast<std::size_t>(m.stage) < out.stages.size()) {
      PredictedStage& s = out.stages[static_cast<std::size_t>(m.stage)];
      s.peak_memory_bytes = std::max(s.peak_memory_bytes, bytes);
    }
  }
  out.peak_memory_bytes = static_cast<std::int64_t>(std::llround(pr.peakMemoryBytes()));
  out.fits = pr.fits;
  return out;
}

int warmupIterations(int n) {
  return std::max(0, std::min(2, n - 1));
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The stage's rank that computed longest in this iteration: compute (with tp) and its
// communication (p2p + dp); none when the iteration has no rank of the stage.
std::optional<std::pair<double, double>> stageFigures(const IterationEvent& it, int stage) {
  std::optional<std::pair<double, double>> best;
  for (const RunRankTimes& r : it.ranks) {
    if (r.stage != stage) continue;
    const double compute = r.compute_seconds + r.tp_seconds;
    if (!best || compute > best->first) best = {{compute, r.p2p_seconds + r.dp_seconds}};
  }
  return best;
}

}  // namespace

RunComparison compareRun(std::int64_t run_id, const RunStartedEvent& started,
                         const std::vector<IterationEvent>& iterations) {
  const std::string what = "run " + std::to_string(run_id);
  if (!started.prediction)
    throw InputError(
        "run",
        what + ", which has no local prediction" +
            (started.prediction_note.empty() ? std::string(" (recorded before runs had one)")
                                             : " (" + started.prediction_note + ")"),
        "a run recorded with a profile of its device (sailor run --profile DIR)");
  if (iterations.empty())
    throw InputError("run", what + ", which has no iterations", "a run with measured iterations");
  RunComparison c;
  c.prediction = *started.prediction;
  c.iterations = static_cast<int>(iterations.size());
  c.warmup = warmupIterations(c.iterations);
  const auto used = std::vector<IterationEvent>(iterations.begin() + c.warmup, iterations.end());
  std::vector<double> seconds;
  for (const IterationEvent& it : used) seconds.push_back(it.iteration_seconds);
  c.rows.push_back({"iteration seconds", "s", c.prediction.iteration_seconds, median(seconds)});
  std::int64_t peak_all = 0;
  for (const PredictedStage& ps : c.prediction.stages) {
    std::vector<double> compute, comm;
    for (const IterationEvent& it : used)
      if (const auto f = stageFigures(it, ps.stage)) {
        compute.push_back(f->first);
        comm.push_back(f->second);
      }
    std::int64_t peak = 0;
    for (const IterationEvent& it : iterations)
      for (const RunRankTimes& r : it.ranks)
        if (r.stage == ps.stage) peak = std::max(peak, r.peak_memory_bytes);
    peak_all = std::max(peak_all, peak);
    if (compute.empty()) continue;  // a stage the measured world no longer has
    const std::string st = "stage " + std::to_string(ps.stage) + " ";
    c.rows.push_back({st + "compute seconds", "s", ps.compute_seconds, median(compute)});
    c.rows.push_back({st + "communication seconds", "s", ps.communication_seconds, median(comm)});
    c.rows.push_back({st + "peak memory bytes", "bytes", static_cast<double>(ps.peak_memory_bytes),
                      static_cast<double>(peak)});
  }
  c.rows.push_back({"peak memory bytes", "bytes",
                    static_cast<double>(c.prediction.peak_memory_bytes),
                    static_cast<double>(peak_all)});
  return c;
}

json RunComparison::toJson() const {
  json rs = json::array();
  for (const ComparisonRow& r : rows) {
    const double e = r.relativeError();
    rs.push_back({{"quantity", r.quantity},
                  {"unit", r.unit},
                  {"predicted", r.predicted},
                  {"measured", r.measured},
                  {"relative_error", std::isfinite(e) ? json(e) : json()}});
  }
  return {{"prediction", sailor::toJson(prediction)},
          {"label", prediction.label()},
          {"iterations", iterations},
          {"warmup", warmup},
          {"rows", rs}};
}

std::string formatComparison(const RunComparison& c) {
  std::ostringstream os;
  os << c.prediction.label() << "; measured: median of iterations " << c.warmup << "-"
     << c.iterations - 1 << " (the first " << c.warmup << " left out as warm-up)\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-32s %14s %14s %9s\n", "quantity", "predicted", "measured",
                "error");
  os << line;
  for (const ComparisonRow& r : c.rows) {
    const bool bytes = r.unit == "bytes";
    const double scale = bytes ? 1.0 / (1024.0 * 1024.0) : 1.0;
    const char* unit = bytes ? "MiB" : "s";
    char pred[32], meas[32], err[32];
    std::snprintf(pred, sizeof pred, bytes ? "%.0f %s" : "%.4f %s", r.predicted * scale, unit);
    std::snprintf(meas, sizeof meas, bytes ? "%.0f %s" : "%.4f %s", r.measured * scale, unit);
    const double e = r.relativeError();
    if (std::isfinite(e)) std::snprintf(err, sizeof err, "%+.1f%%", 100 * e);
    else std::snprintf(err, sizeof err, "-");
    std::string q = r.quantity;
    if (bytes && q.size() > 6 && q.substr(q.size() - 6) == " bytes") q.resize(q.size() - 6);
    else if (!bytes && q.size() > 8 && q.substr(q.size() - 8) == " seconds") q.resize(q.size() - 8);
    std::snprintf(line, sizeof line, "  %-32s %14s %14s %9s\n", q.c_str(), pred, meas, err);
    os << line;
  }
  return os.str();
}

}  // namespace sailor
