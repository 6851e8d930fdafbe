// `sailor catalog gpus|models [--json]`: the catalogue shipped in resources/catalog.
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/model/catalog.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

namespace {

using nlohmann::json;

json gpusJson(const Catalog& cat) {
  json out = json::array();
  for (const auto& g : cat.gpus())
    out.push_back({{"name", g.name},
                   {"vendor", g.vendor},
                   {"full_name", g.full_name},
                   {"memory_bytes", g.memory_bytes},
                   {"fp32_tflops", g.fp32_tflops},
                   {"fp16_tflops", g.fp16_tflops},
                   {"bf16_tflops", g.bf16_tflops ? json(*g.bf16_tflops) : json()},
                   {"memory_bandwidth_gb_per_s", g.memory_bandwidth_gb_per_s},
                   {"intra_node_bandwidth_gb_per_s", g.intra_node_bandwidth_gb_per_s},
                   {"gpus_per_node", g.gpus_per_node},
                   {"runtime_overhead_bytes", g.runtime_overhead_bytes},
                   {"sources", g.sources}});
  return out;
}

json modelsJson(const Catalog& cat) {
  json out = json::array();
  for (const auto& m : cat.models()) {
    json mj = m.toJson();
    mj["parameters"] = totalParameters(m);
    out.push_back(mj);
  }
  return out;
}

}  // namespace

int cmdCatalog(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kCatalogHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  const CLI::Option* as_json = app.add_flag("--json");
  const std::vector<std::string> positional = parseCommand(app, argc, argv, 2);
  if (positional.size() != 1 || (positional[0] != "gpus" && positional[0] != "models"))
    throw InputError("catalog", positional.empty() ? "nothing" : "\"" + positional[0] + "\"",
                     "\"gpus\" or \"models\"");
  Catalog cat = Catalog::load(resourceDir());
  if (positional[0] == "gpus") {
    if (as_json->count() > 0) std::cout << gpusJson(cat).dump(2) << "\n";
    else std::cout << formatGpus(cat);
  } else {
    if (as_json->count() > 0) std::cout << modelsJson(cat).dump(2) << "\n";
    else std::cout << formatModels(cat);
  }
  return 0;
}

}  // namespace sailor::cli
