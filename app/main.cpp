// The `sailor` command line: catalogue listing, simulation of a plan, validation of the
// simulator against measured runs. Exit codes: 0 success, 1 internal error, 2 bad input.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sailor/catalog.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/reference.hpp"
#include "sailor/simulator.hpp"

#include "format.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

constexpr int kExitInput = 2;

const char* kUsage =
    "Usage: sailor <command> [options]\n"
    "\n"
    "Plan and simulate the training of large models on heterogeneous, geo-distributed GPUs.\n"
    "\n"
    "Commands:\n"
    "  catalog gpus|models      List the GPU types or models of the catalogue\n"
    "  simulate                 Predict memory, iteration time and cost of a plan\n"
    "  validate POINTS.json     Compare predictions with measured runs\n"
    "\n"
    "Run 'sailor <command> --help' for a command's options.\n";

const char* kCatalogHelp =
    "Usage: sailor catalog gpus|models [--json]\n"
    "\n"
    "Lists the catalogue shipped in resources/catalog (set SAILOR_RESOURCES to use another).\n"
    "  --json    print the entries as JSON\n";

const char* kSimulateHelp =
    "Usage: sailor simulate --scenario FILE --job FILE --plan FILE [options]\n"
    "\n"
    "Predicts peak memory per GPU, iteration time (1F1B, event by event) with its breakdown,\n"
    "throughput and cost per iteration of a plan. Formats: docs/formats.md.\n"
    "\n"
    "  --scenario FILE         zones, pools, network, egress prices (JSON)\n"
    "  --job FILE              model, global batch size, sequence length, precision, optimizer\n"
    "  --plan FILE             microbatch size and stages (JSON, as 'sailor plan' prints)\n"
    "  --profiles FILE         a profile in this project's format (repeatable; earlier wins)\n"
    "  --sailor-profiles DIR   SAILOR-format profiles: DIR/simulator_profiles.json and\n"
    "                          DIR/llm_info.json (e.g. reference/sailor/profiles)\n"
    "  --no-analytic           do not fall back to the analytic profile\n"
    "  --non-blocking-p2p      transfers between stages overlap with compute\n"
    "  --json                  print the prediction as JSON\n"
    "\n"
    "Exit status: 0 when the plan fits in memory, 3 when it does not, 2 on bad input.\n";

const char* kValidateHelp =
    "Usage: sailor validate POINTS.json --reference DIR [--json]\n"
    "\n"
    "Predicts each measured run of POINTS.json (the format of\n"
    "calibration/measured_points.json) with the SAILOR-format profiles, model memory info and\n"
    "network fits under DIR (SAILOR's layout: profiles/, network/, cluster/), and prints per\n"
    "point predicted against measured, then the mean and max relative errors.\n"
    "\n"
    "  --reference DIR   SAILOR-layout data directory\n"
    "  --json            one object: points, mean_time_error, max_time_error,\n"
    "                    mean_memory_error, max_memory_error (fractions)\n";

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> options;
  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::optional<std::string> get(const std::string& k) const {
    auto it = options.find(k);
    if (it == options.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
  }
  std::string required(const std::string& k) const {
    auto v = get(k);
    if (!v) throw InputError(k, "nothing", "a value (see --help)");
    return *v;
  }
};

Args parse(int argc, char** argv, int first, const std::vector<std::string>& flags,
           const std::vector<std::string>& valued) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) == 0) {
      std::string value;
      bool inline_value = false;
      if (auto eq = s.find('='); eq != std::string::npos) {
        value = s.substr(eq + 1);
        s = s.substr(0, eq);
        inline_value = true;
      }
      const bool is_flag = std::find(flags.begin(), flags.end(), s) != flags.end();
      const bool is_valued = std::find(valued.begin(), valued.end(), s) != valued.end();
      if (!is_flag && !is_valued) {
        std::string all;
        for (const auto& f : flags) all += (all.empty() ? "" : ", ") + f;
        for (const auto& f : valued) all += (all.empty() ? "" : ", ") + f;
        throw InputError(s, "an unknown option", "one of: " + all);
      }
      if (is_valued && !inline_value) {
        if (i + 1 >= argc) throw InputError(s, "nothing", "a value after the option");
        value = argv[++i];
      }
      a.options[s].push_back(value);
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

bool wantsHelp(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  return false;
}

template <typename T> T loadWithContext(const std::string& path, const std::function<T(const json&)>& f) {
  json j = json_util::readFile(path);
  try {
    return f(j);
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
}

int cmdCatalog(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kCatalogHelp;
    return 0;
  }
  Args a = parse(argc, argv, 2, {"--json"}, {});
  if (a.positional.size() != 1 || (a.positional[0] != "gpus" && a.positional[0] != "models"))
    throw InputError("catalog", a.positional.empty() ? "nothing" : "\"" + a.positional[0] + "\"",
                     "\"gpus\" or \"models\"");
  Catalog cat = Catalog::load(resourceDir());
  if (a.positional[0] == "gpus") {
    if (a.has("--json")) {
      json out = json::array();
      for (const auto& g : cat.gpus())
        out.push_back({{"name", g.name}, {"vendor", g.vendor}, {"full_name", g.full_name},
                       {"memory_bytes", g.memory_bytes}, {"fp32_tflops", g.fp32_tflops},
                       {"fp16_tflops", g.fp16_tflops}, {"bf16_tflops", g.bf16_tflops ? json(*g.bf16_tflops) : json()},
                       {"memory_bandwidth_gb_per_s", g.memory_bandwidth_gb_per_s},
                       {"intra_node_bandwidth_gb_per_s", g.intra_node_bandwidth_gb_per_s},
                       {"gpus_per_node", g.gpus_per_node},
                       {"runtime_overhead_bytes", g.runtime_overhead_bytes}, {"sources", g.sources}});
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << cli::formatGpus(cat);
    }
  } else {
    if (a.has("--json")) {
      json out = json::array();
      for (const auto& m : cat.models()) {
        json mj = m.toJson();
        mj["parameters"] = totalParameters(m);
        out.push_back(mj);
      }
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << cli::formatModels(cat);
    }
  }
  return 0;
}

int cmdSimulate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kSimulateHelp;
    return 0;
  }
  Args a = parse(argc, argv, 2, {"--json", "--no-analytic", "--non-blocking-p2p"},
                 {"--scenario", "--job", "--plan", "--profiles", "--sailor-profiles"});
  if (!a.positional.empty()) throw InputError("simulate", "\"" + a.positional[0] + "\"", "options only (see --help)");
  Catalog cat = Catalog::load(resourceDir());
  const std::string sp = a.required("--scenario"), jp = a.required("--job"), pp = a.required("--plan");
  Scenario scenario = loadWithContext<Scenario>(sp, [&](const json& j) { return Scenario::fromJson(j, cat); });
  Job job = loadWithContext<Job>(jp, [&](const json& j) { return Job::fromJson(j, cat); });
  Plan plan = loadWithContext<Plan>(pp, [&](const json& j) { return Plan::fromJson(j); });
  try {
    plan.validate(job, cat, scenario);
  } catch (const InputError& e) {
    throw withContext(e, pp);
  }
  ProfileSet profiles;
  if (a.has("--profiles"))
    for (const auto& f : a.options.at("--profiles")) profiles.add(NativeProfile::load(f, cat));
  if (auto dir = a.get("--sailor-profiles"))
    profiles.add(SailorProfile::load(*dir + "/simulator_profiles.json", *dir + "/llm_info.json", cat));
  if (!a.has("--no-analytic")) profiles.add(std::make_shared<AnalyticProfile>(cat));
  SimulatorOptions opt;
  if (a.has("--non-blocking-p2p")) opt.schedule = PipelineSchedule::Async1F1B;
  Prediction p = simulate(plan, scenario, job, cat, profiles, opt);
  if (a.has("--json")) {
    json out = p.toJson();
    out["plan"] = plan.toJson();
    out["job"] = job.toJson();
    out["scenario"] = scenario.name;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << cli::formatPrediction(plan, job, scenario, p);
  }
  return p.fits ? 0 : 3;
}

int cmdValidate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kValidateHelp;
    return 0;
  }
  Args a = parse(argc, argv, 2, {"--json", "--non-blocking-p2p"}, {"--reference"});
  if (a.positional.size() != 1)
    throw InputError("validate", std::to_string(a.positional.size()) + " files", "one POINTS.json");
  Catalog cat = Catalog::load(resourceDir());
  SailorReference ref = SailorReference::load(a.required("--reference"), cat);
  auto points = loadMeasuredPoints(a.positional[0], cat);
  SimulatorOptions opt;
  if (a.has("--non-blocking-p2p")) opt.schedule = PipelineSchedule::Async1F1B;
  ValidationReport rep = validatePoints(points, ref, cat, opt);
  if (a.has("--json")) std::cout << rep.toJson().dump(2) << "\n";
  else std::cout << cli::formatValidation(rep);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::cout << kUsage;
    return argc < 2 ? kExitInput : 0;
  }
  const std::string cmd = argv[1];
  try {
    if (cmd == "catalog") return cmdCatalog(argc, argv);
    if (cmd == "simulate") return cmdSimulate(argc, argv);
    if (cmd == "validate") return cmdValidate(argc, argv);
    std::cerr << "sailor: unknown command '" << cmd << "'\n\n" << kUsage;
    return kExitInput;
  } catch (const InputError& e) {
    std::cerr << "sailor " << cmd << ": error: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "sailor " << cmd << ": internal error: " << e.what() << "\n";
    return 1;
  }
}
