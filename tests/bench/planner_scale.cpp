// The planner at cluster scale: a family of generated scenarios from 512 to 8192 GPUs,
// 2 to 8 GPU types of the catalogue, 3 to 20 zones in 2 to 5 regions, for OPT-350M,
// GPT-Neo-2.7B, Llama-3-8B and Llama-3-70B. Each case runs `planSearch` in a child process (this
// program re-executed with --case SPEC) under a per-case limit, so a case that does not finish is
// reported as "> S s" and the family goes on; the parent measures the child's CPU time (user +
// sys, getrusage of the child), wall time and peak RSS (ru_maxrss of the child). It prints a
// table, then per axis the exponent of time against the axis (least squares on log-log over the
// finished cases, the other axes held) and where the search stops being interactive (> 1 s,
// > 10 s); --json prints one JSON object per case and a summary object instead.
//
// The heuristics' measured cost at each size: the simulated throughput of the plan found with
// the default heuristics against that of a search with a heuristic off (or all of them off), run
// as one more child under the same limit. A variant that does not finish is reported as
// "not measured: > S s", never estimated.
//
// Scenarios are generated in memory, deterministically:
//  - regions in the order of resources/prices/default.json (us-central1, us-west1, europe-west4,
//    asia-southeast1, us-east-1), with their continents; zone k goes to region k mod R, and a
//    region's zones are the price sheet's zones of that region in its order, then further
//    letters in the same pattern (us-west1-d, us-east-1c: named like real zones, not all real);
//  - in every zone one pool of each of the case's GPU types, the first T of kGpuTypes (the
//    bf16-capable ones first; V100-16, last, has no bf16, so the 8-type bf16 cases plan on 7);
//    GPU counts in whole nodes of the type's catalogue node size, dealt round robin with weights
//    1 to 3 by pool (some pools hold up to three times what others do), summing exactly to the
//    case's GPU count;
//  - each pool priced on demand at the price sheet's USD per GPU-hour for its type in its
//    region, or, where the sheet does not price that type in that region, at the type's highest
//    price in the sheet (the case reports how many pools were priced so);
//  - links and egress: resources/scenarios/default.json's defaults by relation (same zone,
//    region, continent, across continents), no per-pair entries; intra-node links from the
//    catalogue.
// Jobs: global batch 1024 at the model's catalogue sequence length; OPT-350M and GPT-Neo-2.7B in
// fp32 (SAILOR's paper and profiles), the Llama models and GPT-3-175B in bf16, Llama-3-70B and
// GPT-3-175B with full activation recomputation (without it no plan of up to 4 stages fits, and the
// planner says so). Profiles: with --reference DIR SAILOR's measured ones where they exist (timings
// fp32 only; its memory figures answer for bf16 jobs too, activations halved), the analytic profile
// for every other (model, GPU type, tp, microbatch). Planner options are `sailor plan`'s defaults
// (throughput, top 3, no frontier) but for the threads.
//
// Usage: planner_scale [--quick] [--axis gpus|types|zones|models|targets|all] [--limit S]
//                      [--threads N] [--heuristics LIST] [--reference DIR] [--memory-limit MB]
//                      [--json]
//        (--base SPEC: the case the axes vary, default OPT-350M 512 GPUs 3 types 5 zones/3 regions)
//        (--run SPEC, repeatable: these cases, each in a child under the limit, instead)
//        planner_scale --case SPEC     one case in this process, one JSON line (what children run)
//        planner_scale --scenario SPEC print the generated scenario (for `sailor plan --scenario`)
//        planner_scale --smoke         one small case through a child; checks the report's form
// SPEC: model=Llama-3-70B,gpus=4096,types=8,zones=20,regions=5,threads=0,off=all,schedule=megatron
// (defaults: OPT-350M, 512, 3, 5, 3, 1, none, deepspeed; off: none, all, or heuristics joined by
// '+', e.g. h6+h9; schedule: sailor plan --schedule).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "plan_brief.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"

using namespace sailor;
using nlohmann::json;
using sailor::bench::planBrief;

namespace {

// GPU types in the order cases take them: the bf16-capable types the price sheet prices first,
// V100-16 (no bf16) last.
const std::vector<std::string> kGpuTypes{"A100-40", "H100-80", "A100-80",  "L4",
                                         "GH-96",   "A10G",    "H200-141", "V100-16"};
const std::vector<std::string> kModels{"OPT-350M", "GPT-Neo-2.7B", "Llama-3-8B", "Llama-3-70B",
                                       "GPT-3-175B"};
constexpr int kGlobalBatch = 1024;
constexpr int kMaxPoolWeight = 3;  // pools hold 1 to 3 shares of the GPUs
constexpr double kDefaultLimitS = 60;
// The wall backstop of a case, against a child that hangs: 10x its CPU limit (on the 2 shared
// cores at load average 15 a child got a fifth of a core).
constexpr double kWallLimitFactor = 10;
constexpr long kDefaultMemoryLimitMb = 4096;
constexpr double kInteractiveS = 1;
constexpr double kPatientS = 10;
constexpr double kCheapS = 10;  // runs with all threads too when one thread took under this
constexpr int kSmokeTimeLimitS = 120;

struct Spec {
  std::string model = "OPT-350M";
  int gpus = 512;
  int types = 3;
  int zones = 5;
  int regions = 3;
  int threads = 1;                     // 0: all hardware threads
  std::string off = "none";            // none, all, or heuristic names joined by '+'
  std::string schedule = "deepspeed";  // sailor plan --schedule: deepspeed or megatron

  std::string text() const {
    return "model=" + model + ",gpus=" + std::to_string(gpus) + ",types=" + std::to_string(types) +
           ",zones=" + std::to_string(zones) + ",regions=" + std::to_string(regions) +
           ",threads=" + std::to_string(threads) + ",off=" + off +
           (schedule == "deepspeed" ? "" : ",schedule=" + schedule);
  }
  std::string label() const {
    return model + " " + std::to_string(gpus) + " GPUs " + std::to_string(types) + " types " +
           std::to_string(zones) + "z/" + std::to_string(regions) + "r" +
           (schedule == "deepspeed" ? "" : " " + schedule);
  }
};

int intField(const std::string& key, const std::string& value, int min, int max) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end || errno || v < min || v > max)
    throw InputError("--case " + key, "\"" + value + "\"",
                     "an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return static_cast<int>(v);
}

Spec parseSpec(const std::string& text) {
  Spec s;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError("--case", "\"" + item + "\"", "key=value, e.g. gpus=1024");
    const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    if (k == "model") {
      if (std::find(kModels.begin(), kModels.end(), v) == kModels.end())
        throw InputError("--case model", "\"" + v + "\"",
                         "OPT-350M, GPT-Neo-2.7B, Llama-3-8B, Llama-3-70B or GPT-3-175B");
      s.model = v;
    } else if (k == "gpus") {
      s.gpus = intField(k, v, 1, kMaxGpuCount);
    } else if (k == "types") {
      s.types = intField(k, v, 1, static_cast<int>(kGpuTypes.size()));
    } else if (k == "zones") {
      s.zones = intField(k, v, 1, 100);
    } else if (k == "regions") {
      s.regions = intField(k, v, 1, 5);
    } else if (k == "threads") {
      s.threads = intField(k, v, 0, 1024);
    } else if (k == "off") {
      s.off = v;
    } else if (k == "schedule") {
      parseScheduleSearch(v, "--case schedule");
      s.schedule = v;
    } else {
      throw InputError("--case", "\"" + k + "\"",
                       "one of model, gpus, types, zones, regions, threads, off, schedule");
    }
  }
  if (s.regions > s.zones)
    throw InputError("--case regions", std::to_string(s.regions),
                     "at most the zones (" + std::to_string(s.zones) + ")");
  return s;
}

Precision precisionOf(const std::string& model) {
  return model.rfind("Llama", 0) == 0 || model == "GPT-3-175B" ? Precision::Bf16 : Precision::Fp32;
}

void switchOff(const std::string& off, Heuristics& h) {
  if (off == "none") return;
  std::stringstream ss(off);
  std::string name;
  while (std::getline(ss, name, '+')) {
    const bool all = name == "all";
    if (all || name == "h1") h.h1_tp_rule = false;
    if (all || name == "h2") h.h2_oom_pruning = false;
    if (all || name == "h3") h.h3_dp_descending = false;
    if (all || name == "h4") h.h4_dp_ascending = false;
    if (all || name == "h5") h.h5_dp_in_region = false;
    if (all || name == "h6") h.h6_region_pools = false;
    if (all || name == "h8") h.h8_homogeneous_stages = false;
    if (all || name == "h9") h.max_stages = 0;
    if (all || name == "h10") h.max_partial_plans = 0;
    if (all || name == "h12") h.h12_smallest_degree_per_m = false;
    if (!all && name != "h1" && name != "h2" && name != "h3" && name != "h4" && name != "h5" &&
        name != "h6" && name != "h8" && name != "h9" && name != "h10" && name != "h12")
      throw InputError("off", "\"" + name + "\"",
                       "none, all, or h1 h2 h3 h4 h5 h6 h8 h9 h10 h12 joined by '+'");
  }
}

// ---- scenario generation ----------------------------------------------------------------------

struct Generated {
  json scenario;
  int pools = 0;
  int fallback_priced = 0;  // pools the sheet does not price in their region
};

std::string zoneName(const std::vector<std::string>& listed, size_t i) {
  if (i < listed.size()) return listed[i];
  // Further zones in the pattern of the region's first: its name less the final letter, then
  // the letters not taken, in order.
  const std::string stem = listed.front().substr(0, listed.front().size() - 1);
  size_t extra = i - listed.size();
  for (char c = 'a'; c <= 'z'; ++c) {
    const std::string name = stem + c;
    if (std::find(listed.begin(), listed.end(), name) != listed.end()) continue;
    if (extra-- == 0) return name;
  }
  throw InputError("zones", std::to_string(i + 1) + " in one region", "at most 26");
}

Generated generateScenario(const Spec& s, const Catalog& cat, const PriceSheet& sheet,
                           const json& sheet_json, const json& default_scenario) {
  const json& sheet_regions = sheet_json.at("regions");
  if (static_cast<size_t>(s.regions) > sheet_regions.size())
    throw InputError("regions", std::to_string(s.regions),
                     "at most the price sheet's " + std::to_string(sheet_regions.size()));
  // Zone k in region k mod R.
  std::vector<std::vector<std::string>> zones(static_cast<size_t>(s.regions));
  for (int k = 0; k < s.zones; ++k) {
    const auto r = static_cast<size_t>(k % s.regions);
    const auto listed = sheet_regions[r].at("zones").get<std::vector<std::string>>();
    zones[r].push_back(zoneName(listed, zones[r].size()));
  }
  Generated g;
  json regions = json::array();
  for (size_t r = 0; r < zones.size(); ++r)
    regions.push_back({{"name", sheet_regions[r].at("name")},
                       {"continent", sheet_regions[r].at("continent")},
                       {"zones", zones[r]}});
  // The highest price of each type anywhere in the sheet, for regions it does not price.
  std::map<std::string, double> highest;
  for (const json& row : sheet_json.at("gpu_prices")) {
    const std::string t = row.at("gpu_type");
    highest[t] = std::max(highest[t], row.at("usd_per_gpu_hour").get<double>());
  }
  struct Slot {
    std::string zone, region, type;
    int node = 0, weight = 0, count = 0;
  };
  std::vector<Slot> slots;
  int zone_index = 0;
  for (size_t r = 0; r < zones.size(); ++r)
    for (const auto& z : zones[r]) {
      for (int t = 0; t < s.types; ++t) {
        const std::string& type = kGpuTypes[static_cast<size_t>(t)];
        const GpuType* gpu = cat.findGpu(type);
        if (!gpu) throw InputError("gpu_type", type, "a GPU type of the catalogue");
        slots.push_back({z, sheet_regions[r].at("name"), type, gpu->gpus_per_node,
                         1 + (zone_index + 2 * t) % kMaxPoolWeight, 0});
      }
      ++zone_index;
    }
  // Whole nodes dealt round robin: in round i a pool of weight w takes a node when i mod 3 < w;
  // the last node may be partial so that the counts sum to the case's GPUs.
  int left = s.gpus;
  for (int round = 0; left > 0; ++round)
    for (auto& slot : slots) {
      if (left == 0) break;
      if (round % kMaxPoolWeight >= slot.weight) continue;
      const int n = std::min(slot.node, left);
      slot.count += n;
      left -= n;
    }
  json pools = json::array();
  for (const auto& slot : slots) {
    if (slot.count == 0) continue;
    double price = 0;
    if (auto p = sheet.usdPerGpuHour(slot.region, slot.type)) {
      price = *p;
    } else if (auto h = highest.find(slot.type); h != highest.end()) {
      price = h->second;
      ++g.fallback_priced;
    } else {
      throw InputError("prices", slot.type, "a price in resources/prices/default.json");
    }
    pools.push_back({{"zone", slot.zone},
                     {"gpu_type", slot.type},
                     {"count", slot.count},
                     {"usd_per_gpu_hour", price},
                     {"spot", false}});
    ++g.pools;
  }
  g.scenario = {
      {"name", "scale " + s.label()},
      {"description", "Generated by tests/bench/planner_scale (" + s.text() +
                          "): one pool of each GPU type in every zone, priced from "
                          "resources/prices/default.json, links and egress at the defaults of "
                          "resources/scenarios/default.json."},
      {"regions", regions},
      {"pools", pools},
      {"network", {{"defaults", default_scenario.at("network").at("defaults")}}},
      {"egress_usd_per_gb",
       {{"defaults", default_scenario.at("egress_usd_per_gb").at("defaults")}}}};
  return g;
}

struct Inputs {
  Catalog cat;
  Generated gen;
  Scenario scenario;
  Job job;
};

Inputs makeInputs(const Spec& s) {
  Inputs in{Catalog::load(resourceDir()), {}, {}, {}};
  const std::string prices_path = resourceDir() + "/prices/default.json";
  const PriceSheet sheet = PriceSheet::load(prices_path);
  in.gen = generateScenario(s, in.cat, sheet, json_util::readFile(prices_path),
                            json_util::readFile(resourceDir() + "/scenarios/default.json"));
  in.scenario = Scenario::fromJson(in.gen.scenario, in.cat);
  json job{{"model", s.model},
           {"global_batch_size", kGlobalBatch},
           {"precision", precisionName(precisionOf(s.model))}};
  // Llama-3-70B fits no pipeline of up to 4 stages (H9) without it: the planner's own advice.
  if (s.model == "Llama-3-70B" || s.model == "GPT-3-175B")
    job["recompute"] = recomputeName(Recompute::Full);
  in.job = Job::fromJson(job, in.cat);
  return in;
}

// ---- one case, in this process ----------------------------------------------------------------

int runCase(const Spec& s, const std::string& reference) {
  const auto t0 = std::chrono::steady_clock::now();
  json out{{"case", s.text()}};
  try {
    Inputs in = makeInputs(s);
    ProfileSet profiles;
    if (!reference.empty())
      profiles.add(SailorProfile::load(reference + "/profiles/simulator_profiles.json",
                                       reference + "/profiles/llm_info.json", in.cat));
    profiles.add(std::make_shared<AnalyticProfile>(in.cat));
    PlannerOptions opt;
    opt.threads = s.threads;
    opt.schedules = parseScheduleSearch(s.schedule, "--case schedule");
    switchOff(s.off, opt.heuristics);
    int usable = 0;
    for (int t = 0; t < s.types; ++t)
      usable +=
          supportsPrecision(*in.cat.findGpu(kGpuTypes[static_cast<size_t>(t)]), in.job.precision)
              ? 1
              : 0;
    out["pools"] = in.gen.pools;
    out["fallback_priced_pools"] = in.gen.fallback_priced;
    out["usable_types"] = usable;
    out["precision"] = precisionName(in.job.precision);
    out["sequence_length"] = in.job.sequence_length;
    const auto t1 = std::chrono::steady_clock::now();
    const PlanResult r = planSearch(in.scenario, in.job, in.cat, profiles, opt);
    const auto t2 = std::chrono::steady_clock::now();
    out["setup_s"] = std::chrono::duration<double>(t1 - t0).count();
    out["search_s"] = std::chrono::duration<double>(t2 - t1).count();
    out["candidates"] = r.candidates;
    out["notes"] = r.notes;
    if (r.best.empty()) {
      out["no_plan_reason"] = r.no_plan_reason;
    } else {
      const PlannedPlan& p = r.best.front();
      out["iterations_per_s"] = p.prediction.iterations_per_s;
      out["model_iterations_per_s"] = 1.0 / p.model_iteration_s;
      out["usd_per_iteration"] = p.prediction.usd_per_iteration;
      out["plan_gpus"] = p.plan.gpuCount();
      out["stages"] = p.plan.stages.size();
      out["plan"] = planBrief(p.plan);
    }
  } catch (const std::bad_alloc&) {
    out["error"] = "out of memory";
  } catch (const std::exception& e) {
    out["error"] = e.what();
  }
  std::printf("%s\n", out.dump().c_str());
  std::fflush(stdout);
  return out.contains("error") ? 1 : 0;
}

// ---- the family, each case in a child ---------------------------------------------------------

struct Outcome {
  Spec spec;
  std::string status;  // "ok", "no plan", "time limit", "error"
  std::string detail;  // the limit hit, the error
  double wall_s = 0, cpu_s = 0, max_rss_mb = 0;
  json child;  // the child's JSON line (empty when it printed none)
  bool ok() const { return status == "ok" || status == "no plan"; }
  std::optional<double> throughput() const {
    if (status != "ok") return std::nullopt;
    return child.at("iterations_per_s").get<double>();
  }
};

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

Outcome runChild(const std::string& self, const Spec& s, double limit_s, long memory_mb,
                 const std::string& reference) {
  Outcome o;
  o.spec = s;
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> args{self, "--case", s.text()};
  if (!reference.empty()) {
    args.push_back("--reference");
    args.push_back(reference);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    // CPU limit: SIGXCPU at the limit (the process's CPU, all threads); memory: address space.
    const auto cpu = static_cast<rlim_t>(std::ceil(limit_s));
    rlimit rc{cpu, cpu + 1};
    setrlimit(RLIMIT_CPU, &rc);
    const auto bytes = static_cast<rlim_t>(memory_mb) * 1024 * 1024;
    rlimit ra{bytes, bytes};
    setrlimit(RLIMIT_AS, &ra);
    rlimit no_core{0, 0};  // SIGXCPU would dump core
    setrlimit(RLIMIT_CORE, &no_core);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(self.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  const double wall_limit = kWallLimitFactor * limit_s;
  bool wall_killed = false;
  char buf[4096];
  for (;;) {
    const double left =
        wall_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (left <= 0) {
      kill(pid, SIGKILL);
      wall_killed = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::ceil(left * 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EOF: the child has exited (or closed its output)
  }
  close(fds[0]);
  int status = 0;
  rusage u{};
  wait4(pid, &status, 0, &u);
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.cpu_s = seconds(u.ru_utime) + seconds(u.ru_stime);
  o.max_rss_mb = static_cast<double>(u.ru_maxrss) / 1024.0;
  const auto nl = text.find('\n');
  if (nl != std::string::npos) {
    const json j = json::parse(text.substr(0, nl), nullptr, false);
    if (!j.is_discarded()) o.child = j;
  }
  char limit[64];
  if (wall_killed) {
    std::snprintf(limit, sizeof limit, "> %.0f s wall", wall_limit);
    o.status = "time limit";
    o.detail = limit;
  } else if (WIFSIGNALED(status) &&
             (WTERMSIG(status) == SIGXCPU || (WTERMSIG(status) == SIGKILL && o.cpu_s >= limit_s))) {
    std::snprintf(limit, sizeof limit, "> %.0f s CPU", limit_s);
    o.status = "time limit";
    o.detail = limit;
  } else if (!o.child.is_null() && o.child.contains("error")) {
    o.status = "error";
    o.detail = o.child.at("error").get<std::string>();
    if (o.detail == "out of memory")
      o.detail += " (address space > " + std::to_string(memory_mb) + " MB)";
  } else if (WIFSIGNALED(status)) {
    o.status = "error";
    o.detail = std::string("killed by signal ") + strsignal(WTERMSIG(status));
  } else if (o.child.is_null()) {
    o.status = "error";
    o.detail = "exit " + std::to_string(WEXITSTATUS(status)) + " without a report";
  } else {
    o.status = o.child.contains("iterations_per_s") ? "ok" : "no plan";
  }
  return o;
}

// ---- cases -------------------------------------------------------------------------------------

struct Family {
  std::string axis;  // gpus, types, zones, models, targets, quick
  std::vector<Spec> specs;
};

// The case every axis varies from: OPT-350M, 512 GPUs, 3 types, 5 zones in 3 regions, 1 thread.
Spec base() {
  return Spec{};
}

// The axes vary `base` (--base SPEC; base() by default) one at a time: GPUs 512 to 8192, types
// 2, 3, 5, 8, zones 3/5/10/20 in 2/3/4/5 regions, the four models.
std::vector<Family> families(const std::string& axis, bool quick, const Spec& base) {
  std::vector<Family> out;
  auto want = [&](const char* a) { return axis == "all" || axis == a; };
  if (quick) {
    Family q{"quick", {}};
    for (const char* m : {"OPT-350M", "Llama-3-8B"}) {
      Spec s = base;
      s.model = m;
      s.gpus = 512;
      s.types = 2;
      s.zones = 3;
      s.regions = 2;
      q.specs.push_back(s);
    }
    const Spec s = base;  // 3 types in 5 zones
    q.specs.push_back(s);
    Spec g = s;
    g.gpus = 1024;
    q.specs.push_back(g);
    out.push_back(q);
    return out;
  }
  if (want("gpus")) {
    Family f{"gpus", {}};
    for (int n : {512, 1024, 2048, 4096, 8192}) {
      Spec s = base;
      s.gpus = n;
      f.specs.push_back(s);
    }
    out.push_back(f);
  }
  if (want("types")) {
    Family f{"types", {}};
    for (int t : {2, 3, 5, 8}) {
      Spec s = base;
      s.types = t;
      f.specs.push_back(s);
    }
    out.push_back(f);
  }
  if (want("zones")) {
    Family f{"zones", {}};
    for (auto [z, r] : {std::pair{3, 2}, {5, 3}, {10, 4}, {20, 5}}) {
      Spec s = base;
      s.zones = z;
      s.regions = r;
      f.specs.push_back(s);
    }
    out.push_back(f);
  }
  if (want("models")) {
    Family f{"models", {}};
    for (const auto& m : kModels) {
      Spec s = base;
      s.model = m;
      f.specs.push_back(s);
    }
    out.push_back(f);
  }
  if (want("targets")) {
    // Issue 25's acceptance: 8 types x 20 zones x 4096 GPUs, Llama-3-70B bf16 (all threads), and
    // OPT-350M on 20 zones of 5 pools each with one thread (1024 GPUs here).
    Family f{"targets", {}};
    Spec big{"Llama-3-70B", 4096, 8, 20, 5, 0, "none"};
    f.specs.push_back(big);
    const Spec opt{"OPT-350M", 1024, 5, 20, 5, 1, "none"};
    f.specs.push_back(opt);
    out.push_back(f);
  }
  return out;
}

double axisValue(const std::string& axis, const Spec& s) {
  if (axis == "gpus") return s.gpus;
  if (axis == "types") return s.types;
  if (axis == "zones") return s.zones;
  return 0;
}

// Least squares slope of log y against log x.
std::optional<double> exponent(const std::vector<std::pair<double, double>>& xy) {
  if (xy.size() < 2) return std::nullopt;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (auto [x, y] : xy) {
    const double lx = std::log(x), ly = std::log(y);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double n = static_cast<double>(xy.size());
  const double d = n * sxx - sx * sx;
  if (d <= 0) return std::nullopt;
  return (n * sxy - sx * sy) / d;
}

std::string timeText(const Outcome& o) {
  char b[64];
  if (o.status == "time limit" && o.detail.find("wall") != std::string::npos) {
    std::snprintf(b, sizeof b, "> %.1f (wall)", o.cpu_s);  // the CPU it had when stopped
    return b;
  }
  if (o.status == "time limit") return o.detail;
  if (!o.ok()) return "error";
  std::snprintf(b, sizeof b, "%.2f", o.cpu_s);
  return b;
}

json outcomeJson(const Outcome& o, const std::string& axis) {
  json j{{"axis", axis},       {"case", o.spec.text()}, {"status", o.status},
         {"wall_s", o.wall_s}, {"cpu_s", o.cpu_s},      {"max_rss_mb", o.max_rss_mb}};
  if (!o.detail.empty()) j["detail"] = o.detail;
  if (!o.child.is_null()) j["report"] = o.child;
  return j;
}

void printRow(const Outcome& o, const std::string& heuristic_cost) {
  const json& c = o.child;
  auto get = [&](const char* k) -> std::string {
    if (c.is_null() || !c.contains(k)) return "-";
    return c.at(k).dump();
  };
  char line[640];
  std::string plan = "-";
  if (o.status == "ok") {
    char b[96];
    std::snprintf(b, sizeof b, "%.4f it/s %.4f USD/it %d GPUs %d st",
                  c.at("iterations_per_s").get<double>(), c.at("usd_per_iteration").get<double>(),
                  c.at("plan_gpus").get<int>(), c.at("stages").get<int>());
    plan = b;
  } else if (o.status == "no plan") {
    plan = "no plan";
  } else if (o.status == "error") {
    plan = o.detail;
  }
  // Types as asked, with those usable in the job's precision in parentheses where fewer.
  std::string types = std::to_string(o.spec.types);
  if (const std::string u = get("usable_types"); u != "-" && u != types) types += "(" + u + ")";
  char wall[32], rss[32];
  std::snprintf(wall, sizeof wall, "%.2f", o.wall_s);
  std::snprintf(rss, sizeof rss, "%.0f", o.max_rss_mb);
  std::snprintf(line, sizeof line, "%-12s %5d %-6s %5s %5s %3s %14s %8s %7s  %-44s %s",
                o.spec.model.c_str(), o.spec.gpus, types.c_str(),
                (std::to_string(o.spec.zones) + "/" + std::to_string(o.spec.regions)).c_str(),
                get("pools").c_str(),
                o.spec.threads == 0 ? "all" : std::to_string(o.spec.threads).c_str(),
                timeText(o).c_str(), wall, rss, plan.c_str(), heuristic_cost.c_str());
  std::printf("%s\n", line);
  std::fflush(stdout);
}

std::string costText(const Outcome& def, const Outcome& var) {
  char b[128];
  if (var.status == "time limit") return var.spec.off + ": not measured: " + var.detail;
  if (var.status == "error") return var.spec.off + ": not measured: " + var.detail;
  if (var.status == "no plan" || def.status != "ok") return var.spec.off + ": no plan";
  const double d = *def.throughput(), v = *var.throughput();
  const double dm = def.child.at("model_iterations_per_s").get<double>(),
               vm = var.child.at("model_iterations_per_s").get<double>();
  // What the defaults give up: the variant's throughput over theirs, less 1, by the simulator
  // (what the plans are ranked by) and by the planning model (what the search optimises).
  std::snprintf(b, sizeof b, "%s: %+.2f%% sim, %+.2f%% model (%.1f s CPU)", var.spec.off.c_str(),
                100.0 * (v / d - 1.0), 100.0 * (vm / dm - 1.0), var.cpu_s);
  return b;
}

int smoke(const std::string& self) {
  // One small case through the child machinery: the report must be complete and consistent.
  Spec s = base();
  s.gpus = 512;
  s.types = 2;
  s.zones = 3;
  s.regions = 2;
  const Inputs a = makeInputs(s), b = makeInputs(s);
  int failures = 0;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "smoke: %s\n", what.c_str());
      ++failures;
    }
  };
  check(a.gen.scenario == b.gen.scenario, "the generated scenario differs between two runs");
  int sum = 0;
  for (const Pool& p : a.scenario.pools) sum += p.count;
  check(sum == s.gpus,
        "pool counts sum to " + std::to_string(sum) + ", not " + std::to_string(s.gpus));
  check(a.scenario.pools.size() == static_cast<size_t>(s.types * s.zones),
        std::to_string(a.scenario.pools.size()) + " pools, not types x zones");
  check(a.scenario.regions.size() == static_cast<size_t>(s.regions), "region count");
  const Outcome o = runChild(self, s, kSmokeTimeLimitS, kDefaultMemoryLimitMb, "");
  check(o.status == "ok", "status " + o.status + " " + o.detail);
  if (o.status == "ok") {
    check(o.cpu_s > 0 && o.wall_s > 0 && o.max_rss_mb > 1, "CPU, wall or RSS not measured");
    check(*o.throughput() > 0, "throughput not positive");
    check(o.child.at("plan_gpus").get<int>() <= s.gpus, "the plan uses more GPUs than exist");
    check(o.child.at("pools").get<int>() == s.types * s.zones, "the child's pool count");
    check(o.child.at("case").get<std::string>() == s.text(), "the child ran another case");
  }
  // A case that cannot finish is reported at its limit, and the family goes on.
  Spec slow = s;
  slow.model = "Llama-3-70B";
  slow.gpus = 8192;
  slow.types = 8;
  slow.zones = 20;
  slow.regions = 5;
  const Outcome t = runChild(self, slow, 1, kDefaultMemoryLimitMb, "");
  // At 1 s CPU, or at the wall backstop on a loaded machine.
  check(t.status == "time limit" && (t.detail == "> 1 s CPU" || t.detail == "> 10 s wall"),
        "a 1 s limit gave " + t.status + " " + t.detail);
  if (failures == 0)
    std::printf("smoke: ok (%s: %.3f s CPU, %.0f MB; %s: %s)\n", s.label().c_str(), o.cpu_s,
                o.max_rss_mb, slow.label().c_str(), t.detail.c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string axis = "all", reference, heuristics = "default", case_spec, scenario_spec;
  Spec base_spec = base();
  std::vector<Spec> run_specs;  // --run SPEC (repeatable): these cases instead of the family
  bool quick = false, as_json = false, run_smoke = false;
  double limit_s = kDefaultLimitS;
  long memory_mb = kDefaultMemoryLimitMb;
  std::optional<int> threads;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw InputError(a, "nothing", "a value after it");
        return argv[++i];
      };
      if (a == "--quick") quick = true;
      else if (a == "--json") as_json = true;
      else if (a == "--smoke") run_smoke = true;
      else if (a == "--axis") axis = value();
      else if (a == "--limit") limit_s = intField(a, value(), 1, 86400);
      else if (a == "--threads") threads = intField(a, value(), 0, 1024);
      else if (a == "--memory-limit") memory_mb = intField(a, value(), 64, 1 << 20);
      else if (a == "--reference") reference = value();
      else if (a == "--heuristics") heuristics = value();
      else if (a == "--case") case_spec = value();
      else if (a == "--base") base_spec = parseSpec(value());
      else if (a == "--run") run_specs.push_back(parseSpec(value()));
      else if (a == "--scenario") scenario_spec = value();
      else
        throw InputError("argument", "\"" + a + "\"", "an option of planner_scale (see its head)");
    }
    if (axis != "all" && axis != "gpus" && axis != "types" && axis != "zones" && axis != "models" &&
        axis != "targets")
      throw InputError("--axis", "\"" + axis + "\"", "gpus, types, zones, models, targets or all");
    if (!case_spec.empty()) return runCase(parseSpec(case_spec), reference);
    if (!scenario_spec.empty()) {
      std::printf("%s\n", makeInputs(parseSpec(scenario_spec)).gen.scenario.dump(2).c_str());
      return 0;
    }
    const std::string self = "/proc/self/exe";
    if (run_smoke) return smoke(self);
    // Heuristic variants measured at each size: --heuristics none | all | h6,h9,all ...
    std::vector<std::string> variants;
    if (heuristics == "default") heuristics = quick ? "h6,h8,h9,all" : "h6,all";
    if (heuristics != "none") {
      std::stringstream ss(heuristics);
      std::string v;
      while (std::getline(ss, v, ',')) {
        Heuristics check;
        switchOff(v, check);  // refuses an unknown name before any case runs
        variants.push_back(v);
      }
    }
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    if (!as_json)
      std::printf(
          "planner_scale %s: per-case limit %.0f s CPU (wall backstop %.0f s), address space "
          "%ld MB, profiles: %s\ntime: CPU seconds of the child (user + sys), set-up included; "
          "heuristic cost: the variant's simulated throughput against the defaults'\n\n"
          "%-12s %5s %-6s %5s %5s %3s %14s %8s %7s  %-44s %s\n",
          date, limit_s, kWallLimitFactor * limit_s, memory_mb,
          reference.empty() ? "analytic" : (reference + " where measured, else analytic").c_str(),
          "model", "GPUs", "types", "z/r", "pools", "thr", "CPU s", "wall s", "RSS MB",
          "plan (simulated)", "heuristics off");
    json summary{{"date", date},
                 {"limit_s", limit_s},
                 {"memory_limit_mb", memory_mb},
                 {"axes", json::array()}};
    std::vector<std::string> fit_lines;
    // Every case runs once: the base case belongs to several axes.
    std::map<std::string, Outcome> done;
    auto run = [&](const Spec& s) -> const Outcome& {
      auto it = done.find(s.text());
      if (it == done.end())
        it = done.emplace(s.text(), runChild(self, s, limit_s, memory_mb, reference)).first;
      return it->second;
    };
    // A variant that hit the limit on a case is not run on a case at least as large on every
    // axis (same model, threads and variant): reported as "not run", never estimated.
    auto hit_limit_on_smaller = [&](const Spec& s) -> const Outcome* {
      for (const auto& [text, o] : done)
        if (o.status == "time limit" && o.spec.off == s.off && o.spec.model == s.model &&
            o.spec.threads == s.threads && o.spec.gpus <= s.gpus && o.spec.types <= s.types &&
            o.spec.zones <= s.zones)
          return &o;
      return nullptr;
    };
    const std::vector<Family> fams = run_specs.empty() ? families(axis, quick, base_spec)
                                                       : std::vector<Family>{{"cases", run_specs}};
    for (const Family& fam : fams) {
      if (!as_json) std::printf("-- %s\n", fam.axis.c_str());
      std::vector<Outcome> ones;
      for (Spec s : fam.specs) {
        if (threads && fam.axis != "targets") s.threads = *threads;
        const Outcome o = run(s);
        std::string cost;
        std::vector<Outcome> extra;
        for (const auto& v : variants) {
          if (!cost.empty()) cost += "; ";
          if (o.status != "ok") {
            cost += v + ": not measured (the defaults: " +
                    (o.status == "time limit" ? o.detail : o.status) + ")";
            continue;
          }
          Spec vs = s;
          vs.off = v;
          if (const Outcome* f = hit_limit_on_smaller(vs); f && f->spec.text() != vs.text()) {
            cost += v + ": not run (" + f->detail + " at " + f->spec.label() + ")";
            continue;
          }
          const Outcome& vo = run(vs);
          cost += costText(o, vo);
          extra.push_back(vo);
        }
        if (as_json) {
          json j = outcomeJson(o, fam.axis);
          j["heuristics_off"] = json::array();
          for (const auto& vo : extra) j["heuristics_off"].push_back(outcomeJson(vo, fam.axis));
          j["heuristic_cost"] = cost;
          std::printf("%s\n", j.dump().c_str());
          std::fflush(stdout);
        } else {
          printRow(o, cost);
        }
        ones.push_back(o);
        // All threads as well where one thread was cheap (unless --threads chose).
        if (!threads && s.threads == 1 && o.ok() && o.cpu_s < kCheapS) {
          Spec all = s;
          all.threads = 0;
          const Outcome& ao = run(all);
          if (as_json) std::printf("%s\n", outcomeJson(ao, fam.axis).dump().c_str());
          else printRow(ao, "");
        }
      }
      if (fam.axis != "gpus" && fam.axis != "types" && fam.axis != "zones") continue;
      // The exponent over the finished one-thread cases, CPU and wall; where it stops being
      // interactive: the first size over 1 s and over 10 s (CPU), or the limit when none did.
      std::vector<std::pair<double, double>> cpu, wall;
      std::string over1, over10, unfinished;
      for (const auto& o : ones) {
        const double x = axisValue(fam.axis, o.spec);
        char b[64];
        if (o.ok()) {
          cpu.push_back({x, o.cpu_s});
          wall.push_back({x, o.wall_s});
          std::snprintf(b, sizeof b, "%g (%.2f s)", x, o.cpu_s);
        } else {
          std::snprintf(b, sizeof b, "%g (%s)", x,
                        o.status == "time limit" ? o.detail.c_str() : o.status.c_str());
          if (!unfinished.empty()) unfinished += ", ";
          unfinished += b;
        }
        if (over1.empty() && (!o.ok() || o.cpu_s > kInteractiveS)) over1 = b;
        if (over10.empty() && (!o.ok() || o.cpu_s > kPatientS)) over10 = b;
      }
      const auto ec = exponent(cpu), ew = exponent(wall);
      char line[512];
      std::snprintf(line, sizeof line,
                    "%-5s exponent (CPU) %s, (wall) %s over %zu finished sizes; first > 1 s: %s; "
                    "first > 10 s: %s%s%s",
                    fam.axis.c_str(), ec ? std::to_string(*ec).substr(0, 5).c_str() : "-",
                    ew ? std::to_string(*ew).substr(0, 5).c_str() : "-", cpu.size(),
                    over1.empty() ? "none" : over1.c_str(),
                    over10.empty() ? "none" : over10.c_str(),
                    unfinished.empty() ? "" : "; not finished: ", unfinished.c_str());
      fit_lines.push_back(line);
      json ax{{"axis", fam.axis},
              {"finished", cpu.size()},
              {"first_over_1s", over1},
              {"first_over_10s", over10}};
      if (ec) ax["exponent_cpu"] = *ec;
      if (ew) ax["exponent_wall"] = *ew;
      summary["axes"].push_back(ax);
    }
    if (as_json) {
      std::printf("%s\n", summary.dump().c_str());
    } else if (!fit_lines.empty()) {
      std::printf("\nGrowth of CPU time (least squares on log-log, the other axes held):\n");
      for (const auto& l : fit_lines) std::printf("%s\n", l.c_str());
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
