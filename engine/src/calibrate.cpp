// Fitting a local profile's layer times to measured runs (sailor/calibrate.hpp).
//
//   observations ....... one per stage of each run: measured compute, its noise, and the
//                        profile's seconds per layer kind
//   solve .............. weighted least squares for a grouping of the kinds, with the factors'
//                        standard errors
//   calibrateProfile ... the largest grouping the runs determine, applied to every entry
//   formatCalibration .. the report
#include "sailor/calibrate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

#include "sailor/error.hpp"

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
  return {{"scales", sc},
          {"observations", ob},
          {"skipped", skipped},
          {"unchanged", unchanged},
          {"why", why}};
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
  os << "not fitted: the link model (measured transfer seconds include pipeline and straggler "
        "waiting), the optimizer step, memory\n";
  os << "wrote " << out_dir << "/profile.json\n";
  return os.str();
}

}  // namespace sailor
