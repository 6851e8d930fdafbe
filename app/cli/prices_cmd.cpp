// `sailor prices import --skypilot DIR --out FILE [--date DATE] [--json]`: SkyPilot's GPU price
// catalogues (DIR/<cloud>/vms.csv, as ~/.sky/catalogs/v7 holds them) read into a price sheet of
// offers (sailor/model/skypilot_catalog.hpp, docs/prices.md). Every catalogue row that gives no
// offer is listed with its line and the reason; on any error nothing is written.
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/model/skypilot_catalog.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

namespace {

using nlohmann::json;

json importJson(const SkyPilotImport& im, const std::string& out) {
  json files = json::array();
  for (const auto& f : im.files)
    files.push_back({{"cloud", f.cloud}, {"file", f.file}, {"rows", f.rows}, {"date", f.date}});
  json skipped = json::array();
  for (const auto& s : im.skipped)
    skipped.push_back({{"file", s.file}, {"line", s.line}, {"reason", s.reason}});
  return {{"sheet", out},   {"source", im.source},        {"date", im.date},
          {"files", files}, {"offers", im.offers.size()}, {"skipped", skipped}};
}

void printImport(const SkyPilotImport& im, const std::string& out) {
  std::map<std::string, int> offers, skipped;
  for (const auto& o : im.offers) ++offers[o.cloud];
  for (const auto& s : im.skipped) ++skipped[s.file];
  std::cout << "Wrote " << im.offers.size() << " offers to " << out << " (" << im.source
            << ", dated " << im.date << ")\n";
  for (const auto& f : im.files)
    std::cout << "  " << f.file << ": " << f.rows << " rows, " << offers[f.cloud] << " offers, "
              << skipped[f.file] << " rows skipped (file dated " << f.date << ")\n";
  if (im.skipped.empty()) return;
  std::cout << "Skipped rows:\n";
  for (const auto& s : im.skipped)
    std::cout << "  " << s.file << ":" << s.line << ": " << s.reason << "\n";
}

}  // namespace

int cmdPrices(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kPricesHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  std::optional<std::string> skypilot, out, date;
  app.add_option("--skypilot", skypilot);
  app.add_option("--out", out);
  app.add_option("--date", date);
  const CLI::Option* as_json = app.add_flag("--json");
  const std::vector<std::string> positional = parseCommand(app, argc, argv, 2);
  if (positional.size() != 1 || positional[0] != "import")
    throw InputError("prices", positional.empty() ? "nothing" : "\"" + positional[0] + "\"",
                     "\"import\"");
  const std::string& dir = required(skypilot, "--skypilot");
  const std::string& sheet = required(out, "--out");
  const SkyPilotImport im = importSkyPilotPriceSheet(dir, sheet, date);
  if (as_json->count() > 0) std::cout << importJson(im, sheet).dump(2) << "\n";
  else printImport(im, sheet);
  return 0;
}

}  // namespace sailor::cli
