// Fitting a local profile's layer times to measured runs (sailor/simulation/calibrate.hpp).
//
//   observations ....... one per stage of each run: measured compute, its noise, and the
//                        profile's seconds per layer kind
//   solve .............. weighted least squares for a grouping of the kinds, with the factors'
//                        standard errors
//   calibrateProfile ... the largest grouping the runs determine, applied to every entry
//   formatCalibration .. the report
#include "sailor/simulation/calibrate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "sailor/core/error.hpp"

namespace sailor {

using nlohmann::json;

namespace {

enum Kind { Embedding = 0, Blocks = 1, Head = 2 };

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The profile entry measured at (microbatch size, tp), or null.
const json* profileEntry(const json& profile, int b, int tp) {
  for (const json& r : profile.at("runs"))
    if (r.at("microbatch_size").get<int>() == b && r.at("tp").get<int>() == tp) return &r;
  return nullptr;
}

Kind kindOf(int layer, int plan_layers) {
  return layer == 0 ? Embedding : layer == plan_layers - 1 ? Head : Blocks;
}

// The stage's observation, or why there is none.
std::optional<CalibrationObservation> observe(const LocalProfile& p, const CalibrationRun& run,
                                              const Stage& stage, int s,
                                              const std::vector<IterationEvent>& used,
                                              std::string& why) {
  const int tp = stage.replicas.front().tp;
  for (const Replica& r : stage.replicas)
    if (r.tp != tp) {
      why = "replicas of different tp";
      return std::nullopt;
    }
  const int b = run.started.plan.microbatch_size;
  const json* entry = profileEntry(p.profile, b, tp);
  if (!entry) {
    why = "the profile has no microbatch " + std::to_string(b) + " at tp " + std::to_string(tp);
    return std::nullopt;
  }
  std::vector<double> compute;
  for (const IterationEvent& it : used) {
    double best = -1;
    for (const RunRankTimes& r : it.ranks)
      if (r.stage == s) best = std::max(best, r.compute_seconds + r.tp_seconds);
    if (best >= 0) compute.push_back(best);
  }
  if (compute.empty()) {
    why = "no rank of the stage reported";
    return std::nullopt;
  }
  CalibrationObservation o;
  o.run_id = run.id;
  o.stage = s;
  o.microbatch_size = b;
  o.tp = tp;
  o.microbatches = run.started.microbatches;
  o.measured_seconds = median(compute);
  double sd = 0;
  if (compute.size() > 1) {
    double mean = 0;
    for (double c : compute) mean += c;
    mean /= static_cast<double>(compute.size());
    for (double c : compute) sd += (c - mean) * (c - mean);
    sd = std::sqrt(sd / static_cast<double>(compute.size() - 1));
  }
  // The standard error of a median is about 1.25 that of a mean (normal samples); one
  // iteration alone is given 5 %.
  const double n = static_cast<double>(compute.size());
  o.noise = compute.size() > 1 ? 1.2533 * sd / std::sqrt(n) / o.measured_seconds : 0.05;
  o.noise = std::max(o.noise, kCalibrationMinNoise);
  const json& layers = entry->at("layers");
  const int plan_layers = static_cast<int>(layers.size());
  double params = 0;
  for (int l = stage.first_layer; l <= stage.last_layer && l < plan_layers; ++l) {
    const json& L = layers.at(static_cast<std::size_t>(l));
    const double t =
        (L.at("forward_s").get<double>() + L.at("backward_s").get<double>()) * o.microbatches;
    params += L.value("params", 0.0);
    switch (kindOf(l, plan_layers)) {
      case Embedding: o.embedding_seconds += t; break;
      case Blocks: o.blocks_seconds += t; break;
      case Head: o.head_seconds += t; break;
    }
  }
  o.optimizer_seconds = entry->value("optimizer_seconds_per_parameter", 0.0) * params;
  o.before_seconds = o.embedding_seconds + o.blocks_seconds + o.head_seconds + o.optimizer_seconds;
  return o;
}

// A grouping of the three kinds into factors: group[kind] = index of its factor.
struct Grouping {
  int factors;
  std::array<int, 3> group;
  std::array<const char*, 3> names;
};
const Grouping kGroupings[] = {{3, {0, 1, 2}, {"embedding", "blocks", "head"}},
                               {2, {1, 0, 1}, {"blocks", "embedding and head", ""}},
                               {1, {0, 0, 0}, {"all layers", "", ""}}};

struct Fit {
  std::vector<double> factor, standard_error;
};

// Weighted least squares of (measured - optimizer) = sum_g factor_g x seconds of group g, each
// stage weighted by 1 / (its noise x its seconds)^2; the factors' standard errors from the
// inverse normal matrix, scaled up by the residuals when they exceed the noise. None when the
// normal matrix is singular.
std::optional<Fit> solve(const Grouping& g, const std::vector<CalibrationObservation>& obs) {
  const int k = g.factors;
  std::vector<std::vector<double>> A(k, std::vector<double>(2 * k, 0.0));
  std::vector<double> rhs(k, 0.0);
  auto columns = [&](const CalibrationObservation& o) {
    std::vector<double> x(k, 0.0);
    x[g.group[Embedding]] += o.embedding_seconds;
    x[g.group[Blocks]] += o.blocks_seconds;
    x[g.group[Head]] += o.head_seconds;
    return x;
  };
  for (const CalibrationObservation& o : obs) {
    const double w = 1 / std::pow(o.noise * o.measured_seconds, 2);
    const std::vector<double> x = columns(o);
    for (int i = 0; i < k; ++i) {
      rhs[i] += w * x[i] * (o.measured_seconds - o.optimizer_seconds);
      for (int j = 0; j < k; ++j) A[i][j] += w * x[i] * x[j];
    }
  }
  // Gauss-Jordan on [A | I]: the inverse, for the factors and their covariance.
  for (int i = 0; i < k; ++i) A[i][k + i] = 1;
  double scale = 0;
  for (int i = 0; i < k; ++i) scale = std::max(scale, std::abs(A[i][i]));
  for (int c = 0; c < k; ++c) {
    int pivot = c;
    for (int r = c + 1; r < k; ++r)
      if (std::abs(A[r][c]) > std::abs(A[pivot][c])) pivot = r;
    if (!(std::abs(A[pivot][c]) > 1e-12 * scale)) return std::nullopt;
    std::swap(A[c], A[pivot]);
    const double d = A[c][c];
    for (double& v : A[c]) v /= d;
    for (int r = 0; r < k; ++r)
      if (r != c) {
        const double f = A[r][c];
        for (int j = 0; j < 2 * k; ++j) A[r][j] -= f * A[c][j];
      }
  }
  Fit fit;
  for (int i = 0; i < k; ++i) {
    double v = 0;
    for (int j = 0; j < k; ++j) v += A[i][k + j] * rhs[j];
    fit.factor.push_back(v);
  }
  double chi2 = 0;
  for (const CalibrationObservation& o : obs) {
    const std::vector<double> x = columns(o);
    double pred = o.optimizer_seconds;
    for (int i = 0; i < k; ++i) pred += fit.factor[i] * x[i];
    chi2 += std::pow((pred - o.measured_seconds) / (o.noise * o.measured_seconds), 2);
  }
  const int dof = static_cast<int>(obs.size()) - k;
  const double inflate = dof > 0 ? std::max(1.0, std::sqrt(chi2 / dof)) : 1.0;
  for (int i = 0; i < k; ++i)
    fit.standard_error.push_back(std::sqrt(std::max(0.0, A[i][k + i])) * inflate);
  return fit;
}

bool determined(const Fit& f) {
  for (std::size_t i = 0; i < f.factor.size(); ++i)
    if (!(f.factor[i] > 0) || !(f.standard_error[i] <= kCalibrationMaxError * f.factor[i]))
      return false;
  return true;
}

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * v);
  return buf;
}

struct EntryFit {
  const Grouping* grouping = nullptr;
  Fit fit;
  std::string why;
};

// The most factors the stages of one profile entry determine (three, two, else one).
EntryFit fitEntry(const std::vector<CalibrationObservation>& obs) {
  std::string tried;
  for (const Grouping& g : kGroupings) {
    const auto f = solve(g, obs);
    if (f && (determined(*f) || g.factors == 1)) {
      if (!(f->factor[0] > 0))
        throw InputError("--run", "runs whose stages give no positive scale of the layer times",
                         "runs that measure compute");
      EntryFit out{&g, *f, ""};
      out.why = std::to_string(g.factors) + " factor" + (g.factors > 1 ? "s" : "") +
                (tried.empty() ? ", each determined to 10 %" : " (" + tried + ")");
      if (g.factors == 1 && !determined(*f))
        out.why +=
            ", itself known only to " + percent(f->standard_error[0] / f->factor[0]).substr(1);
      return out;
    }
    tried += std::string(tried.empty() ? "" : "; ") + std::to_string(g.factors) + " factors " +
             (f ? "not determined to 10 %" : "not identified (singular)");
  }
  throw InputError("--run", "runs whose stages give no scale of the layer times",
                   "runs that measure compute");
}

// NOTE [Collective bus bandwidth from runs]
// A data-parallel stage's ranks each time their gradient sum (dp_seconds) from the moment they
// reach it: the replica that arrives last waits for nobody, so the least dp seconds of a stage's
// ranks in an iteration is the sum's own time (median over the iterations). The simulator bounds
// each ring step by the device's reduction (NOTE [Collective efficiency]); with a bus bandwidth
// small enough that every step is bound by it, its seconds are the bytes through each replica's
// reduction over that bandwidth, which gives those bytes as the simulator counts them (buckets,
// tp shards). Stages that took longer than the link alone allows (by over 1 %) fit one figure
// for the device: their bytes over their measured seconds, summed. Stages that also all-reduce
// the tied embedding (the first and last of a pipeline) are left out: that ring crosses stages
// and its wait is the pipeline's.
void fitCollectiveBus(const LocalProfile& p, const std::vector<CalibrationRun>& runs,
                      CalibrationResult& res) {
  const std::string key = "collective_bus_bandwidth_gb_per_s";
  const auto device = [&](const json& g) {  // the profiled device's entry in catalog.json
    return g.is_object() && g.value("name", std::string()) == p.gpu_type;
  };
  const auto with_bus = [&](std::optional<double> gb_per_s) {
    json c = p.catalog;
    for (json& g : c["gpus"])
      if (device(g)) {
        if (gb_per_s) g[key] = *gb_per_s;
        else g.erase(key);
      }
    return c;
  };
  for (const json& g : p.catalog.value("gpus", json::array()))
    if (device(g) && g.contains(key) && g.at(key).is_number())
      res.bus_before_gb_per_s = g.at(key).get<double>();
  constexpr double kTiny = 1e-6;  // GB/s: every ring step bound by the device
  const Catalog base;             // the profile's catalog.json holds its device and model
  const json tiny_cat = with_bus(kTiny), link_cat = with_bus(std::nullopt);
  struct Pending {
    const CalibrationRun* run;
    std::size_t first;  // its observations in res.bus from here
  };
  std::vector<Pending> pending;
  const auto simulated = [&](const CalibrationRun& run, const json& cat) {
    const RunStartedEvent& st = run.started;
    return simulateOnProfile(p, cat, st.plan, st.global_batch_size, st.model, st.precision,
                             st.optimizer, st.recompute, base, {}, nullptr);
  };
  for (const CalibrationRun& run : runs) {
    const auto& stages = run.started.plan.stages;
    const int P = static_cast<int>(stages.size());
    const int n = static_cast<int>(run.iterations.size());
    std::vector<int> fit;
    for (int s = 0; s < P; ++s) {
      const bool tied_sum = run.started.model.tied_embeddings && P >= 2 && (s == 0 || s == P - 1);
      if (stages[static_cast<std::size_t>(s)].replicas.size() >= 2 && !tied_sum) fit.push_back(s);
    }
    if (fit.empty()) continue;
    Prediction tiny, link, before;
    try {
      tiny = simulated(run, tiny_cat);
      link = simulated(run, link_cat);
      before = simulated(run, p.catalog);
    } catch (const InputError&) {
      continue;  // the profile does not cover the plan: the layer fit says so (skipped)
    }
    pending.push_back({&run, res.bus.size()});
    for (int s : fit) {
      std::vector<double> least;
      for (int i = warmupIterations(n); i < n; ++i) {
        double m = -1;
        for (const RunRankTimes& r : run.iterations[static_cast<std::size_t>(i)].ranks)
          if (r.stage == s) m = m < 0 ? r.dp_seconds : std::min(m, r.dp_seconds);
        if (m >= 0) least.push_back(m);
      }
      if (least.empty()) continue;
      const auto u = static_cast<std::size_t>(s);
      BusObservation o;
      o.run_id = run.id;
      o.stage = s;
      o.replicas = static_cast<int>(stages[u].replicas.size());
      o.measured_seconds = median(least);
      o.link_seconds = link.stages[u].dp_sync_s;
      o.bus_bytes = tiny.stages[u].dp_sync_s * kTiny * 1e9;
      o.before_seconds = before.stages[u].dp_sync_s;
      o.after_seconds = o.before_seconds;  // unless a figure is fitted below
      res.bus.push_back(o);
    }
  }
  double bytes = 0, seconds = 0;
  int used = 0;
  for (const BusObservation& o : res.bus)
    if (o.measured_seconds > 1.01 * o.link_seconds && o.bus_bytes > 0) {
      bytes += o.bus_bytes;
      seconds += o.measured_seconds;
      ++used;
    }
  if (res.bus.empty()) {
    res.bus_why =
        "no run has a stage of two or more replicas whose gradient sum is its only "
        "collective";
    return;
  }
  if (used == 0 || seconds <= 0) {
    res.bus_why = "the data-parallel sums took no longer than the link alone allows";
    return;
  }
  res.bus_after_gb_per_s = bytes / seconds / 1e9;
  res.catalog = with_bus(res.bus_after_gb_per_s);
  res.bus_why = "from the data-parallel sums of " + std::to_string(used) + " stage" +
                (used == 1 ? "" : "s") + " (each the least dp seconds of its ranks, median)";
  for (const Pending& pd : pending) {
    const Prediction after = simulated(*pd.run, res.catalog);
    for (std::size_t i = pd.first; i < res.bus.size() && res.bus[i].run_id == pd.run->id; ++i)
      res.bus[i].after_seconds = after.stages[static_cast<std::size_t>(res.bus[i].stage)].dp_sync_s;
  }
}

}  // namespace

CalibrationResult calibrateProfile(const LocalProfile& p, const std::vector<CalibrationRun>& runs) {
  CalibrationResult res;
  for (const CalibrationRun& run : runs) {
    const std::string what = "run " + std::to_string(run.id);
    if (const auto why =
            profileMismatch(p, run.started.model, run.started.precision, run.started.dtype))
      throw InputError(
          "--run", what + ": " + *why,
          "a run of the profile's model and precision (" + p.model + ", " + p.precision + ")");
    if (run.iterations.empty())
      throw InputError("--run", what + ", which has no iterations",
                       "a run with measured iterations");
    const int n = static_cast<int>(run.iterations.size());
    const std::vector<IterationEvent> used(run.iterations.begin() + warmupIterations(n),
                                           run.iterations.end());
    const auto& stages = run.started.plan.stages;
    for (std::size_t s = 0; s < stages.size(); ++s) {
      std::string why;
      if (auto o = observe(p, run, stages[s], static_cast<int>(s), used, why))
        res.observations.push_back(*o);
      else res.skipped.push_back(what + " stage " + std::to_string(s) + ": " + why);
    }
  }
  if (res.observations.empty())
    throw InputError("--run",
                     "runs of which no stage can be fitted (" +
                         (res.skipped.empty() ? std::string("none") : res.skipped.front()) + ")",
                     "runs of plans the profile covers");
  res.profile = p.profile;
  // Each (microbatch size, tp) entry of the profile was measured on its own (at its own moment
  // of the machine's load): the stages that ran with it are what determine its factors; an entry
  // no stage ran with is kept as measured.
  std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < res.observations.size(); ++i)
    groups[{res.observations[i].microbatch_size, res.observations[i].tp}].push_back(i);
  std::map<std::pair<int, int>, std::array<double, 3>> factors;  // by entry, then kind
  for (const auto& [entry, members] : groups) {
    std::vector<CalibrationObservation> obs;
    for (std::size_t i : members) obs.push_back(res.observations[i]);
    const EntryFit ef = fitEntry(obs);
    std::string why = ef.why;
    for (int i = 0; i < ef.grouping->factors; ++i)
      res.scales.push_back({entry.first, entry.second,
                            ef.grouping->names[static_cast<std::size_t>(i)], ef.fit.factor[i],
                            ef.fit.standard_error[i]});
    res.why += std::string(res.why.empty() ? "" : "; ") + "microbatch " +
               std::to_string(entry.first) + ", tp " + std::to_string(entry.second) + ": " + why;
    for (int k = 0; k < 3; ++k)
      factors[entry][static_cast<std::size_t>(k)] =
          ef.fit.factor[static_cast<std::size_t>(ef.grouping->group[static_cast<std::size_t>(k)])];
  }
  for (json& entry : res.profile.at("runs")) {
    const std::pair<int, int> key{entry.at("microbatch_size").get<int>(),
                                  entry.at("tp").get<int>()};
    const auto it = factors.find(key);
    if (it == factors.end()) {
      res.unchanged.push_back("microbatch " + std::to_string(key.first) + ", tp " +
                              std::to_string(key.second));
      continue;
    }
    json& layers = entry.at("layers");
    const int plan_layers = static_cast<int>(layers.size());
    for (int l = 0; l < plan_layers; ++l) {
      const double f = it->second[static_cast<std::size_t>(kindOf(l, plan_layers))];
      json& L = layers.at(static_cast<std::size_t>(l));
      L["forward_s"] = L.at("forward_s").get<double>() * f;
      L["backward_s"] = L.at("backward_s").get<double>() * f;
    }
  }
  for (CalibrationObservation& o : res.observations) {
    const auto& f = factors.at({o.microbatch_size, o.tp});
    o.after_seconds = o.embedding_seconds * f[Embedding] + o.blocks_seconds * f[Blocks] +
                      o.head_seconds * f[Head] + o.optimizer_seconds;
  }
  // The profile format has no field of its own for it (unknown keys are refused): said in
  // measured_by, after the measurement it scales; calibration.json has the details.
  std::string ids;
  for (const CalibrationRun& r : runs) ids += " " + std::to_string(r.id);
  res.profile["measured_by"] = res.profile.value("measured_by", std::string("sailor profile")) +
                               " (calibrated by sailor calibrate from runs" + ids + ")";
  fitCollectiveBus(p, runs, res);
  return res;
}

json CalibrationResult::toJson() const {
  json sc = json::array(), ob = json::array();
  for (const LayerScale& s : scales)
    sc.push_back({{"microbatch_size", s.microbatch_size},
                  {"tp", s.tp},
                  {"layers", s.layers},
                  {"factor", s.factor},
                  {"standard_error", s.standard_error}});
  for (const CalibrationObservation& o : observations)
    ob.push_back({{"run", o.run_id},
                  {"stage", o.stage},
                  {"microbatch_size", o.microbatch_size},
                  {"tp", o.tp},
                  {"microbatches", o.microbatches},
                  {"measured_seconds", o.measured_seconds},
                  {"noise", o.noise},
                  {"before_seconds", o.before_seconds},
                  {"after_seconds", o.after_seconds}});
  json bus_obs = json::array();
  for (const BusObservation& o : bus)
    bus_obs.push_back({{"run", o.run_id},
                       {"stage", o.stage},
                       {"replicas", o.replicas},
                       {"measured_seconds", o.measured_seconds},
                       {"link_seconds", o.link_seconds},
                       {"bus_bytes", o.bus_bytes},
                       {"before_seconds", o.before_seconds},
                       {"after_seconds", o.after_seconds}});
  const auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  return {{"scales", sc},
          {"observations", ob},
          {"skipped", skipped},
          {"unchanged", unchanged},
          {"why", why},
          {"collective_bus",
           {{"before_gb_per_s", optional(bus_before_gb_per_s)},
            {"after_gb_per_s", optional(bus_after_gb_per_s)},
            {"why", bus_why},
            {"observations", bus_obs}}}};
}

std::string formatCalibration(const CalibrationResult& r, const std::string& out_dir) {
  std::ostringstream os;
  char line[256];
  os << "layer times scaled (" << r.why << "):\n";
  for (const LayerScale& s : r.scales) {
    std::snprintf(line, sizeof line,
                  "  microbatch %d, tp %d: %-20s x%.3f (%s, standard error %.3f)\n",
                  s.microbatch_size, s.tp, s.layers.c_str(), s.factor,
                  percent(s.factor - 1).c_str(), s.standard_error);
    os << line;
  }
  for (const std::string& u : r.unchanged)
    os << "  " << u << ": kept as measured (no stage of the runs ran with it)\n";
  os << "stage compute per iteration, measured against the profile before and after:\n";
  std::snprintf(line, sizeof line, "  %-6s %-5s %4s %3s %11s %11s %8s %11s %8s\n", "run", "stage",
                "mbs", "tp", "measured s", "before s", "error", "after s", "error");
  os << line;
  for (const CalibrationObservation& o : r.observations) {
    std::snprintf(line, sizeof line, "  %-6lld %-5d %4d %3d %11.4f %11.4f %8s %11.4f %8s\n",
                  static_cast<long long>(o.run_id), o.stage, o.microbatch_size, o.tp,
                  o.measured_seconds, o.before_seconds,
                  percent(o.before_seconds / o.measured_seconds - 1).c_str(), o.after_seconds,
                  percent(o.after_seconds / o.measured_seconds - 1).c_str());
    os << line;
  }
  for (const std::string& s : r.skipped) os << "  left out: " << s << "\n";
  const auto gb = [](const std::optional<double>& v) {
    char t[32];
    if (!v) return std::string("none");
    std::snprintf(t, sizeof t, "%.4g GB/s", *v);
    return std::string(t);
  };
  if (r.bus_after_gb_per_s)
    os << "collective bus bandwidth (the data-parallel sums' own reduction): "
       << gb(r.bus_before_gb_per_s) << " -> " << gb(r.bus_after_gb_per_s) << ", " << r.bus_why
       << ":\n";
  else
    os << "collective bus bandwidth kept (" << gb(r.bus_before_gb_per_s) << "): " << r.bus_why
       << "\n";
  for (const BusObservation& o : r.bus) {
    std::snprintf(line, sizeof line,
                  "  run %lld stage %d, %d replicas: %.4g MB, measured %.4f s, before %.4f s (%s),"
                  " after %.4f s (%s), the link alone %.4f s\n",
                  static_cast<long long>(o.run_id), o.stage, o.replicas, o.bus_bytes / 1e6,
                  o.measured_seconds, o.before_seconds,
                  percent(o.before_seconds / o.measured_seconds - 1).c_str(), o.after_seconds,
                  percent(o.after_seconds / o.measured_seconds - 1).c_str(), o.link_seconds);
    os << line;
  }
  os << "not fitted: the point-to-point link (measured transfer seconds include the pipeline's "
        "waiting), the optimizer step, memory\n";
  os << "wrote " << out_dir << "/profile.json" << (r.catalog.is_null() ? "" : " and catalog.json")
     << "\n";
  return os.str();
}

}  // namespace sailor
