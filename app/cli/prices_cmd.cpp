// `sailor prices import --skypilot DIR --out FILE [--date DATE] [--json]`: SkyPilot's GPU price
// catalogues (DIR/<cloud>/vms.csv, as ~/.sky/catalogs/v7 holds them) read into a price sheet of
// offers (sailor/model/skypilot_catalog.hpp, docs/prices.md). Every catalogue row that gives no
// offer is listed with its line and the reason; on any error nothing is written.
// `sailor prices scenario --sheet FILE --pool CLOUD:PLACE:GPU:COUNT[:spot]... --out FILE`: a
// scenario of pools priced from the sheet's offers (sailor/scenario/offer_pools.hpp), its spot
// pools' preemption rate typed or read from an availability trace.
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/skypilot_catalog.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/offer_pools.hpp"

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

std::string offerSource(const PriceOffer& o) {
  std::string lines;
  for (const int l : o.source.lines) lines += (lines.empty() ? ":" : ",") + std::to_string(l);
  return o.source.file + lines;
}

// `sailor prices scenario`'s options.
struct ScenarioOptions {
  std::optional<std::string> sheet, base, name, preemptions, preemption_trace;
  std::vector<std::string> pools;
};

// The spot pools' preemption rate (scenario field preemptions_per_gpu_hour, docs/planner.md):
// --preemptions-per-gpu-hour for every spot pool, or each pool's from --preemption-trace.
void setPreemptionRate(Pool& p, const ScenarioOptions& o, const Catalog& catalog) {
  if (!p.spot) return;
  if (o.preemption_trace) {
    const TracePreemptions t = preemptionsInTrace(*o.preemption_trace, p.gpu_type, p.zone, catalog);
    if (t.perGpuHour() > 1)
      throw InputError("--preemption-trace", t.describe(),
                       "at most 1 preemption per GPU-hour (the trace's times in seconds)");
    p.preemptions_per_gpu_hour = t.perGpuHour();
    p.preemptions_source = t.describe();
  } else if (o.preemptions) {
    const double rate = positiveNumber("--preemptions-per-gpu-hour", *o.preemptions);
    if (rate > 1)
      throw InputError("--preemptions-per-gpu-hour", *o.preemptions,
                       "a rate above 0 and at most 1 preemption per GPU-hour");
    p.preemptions_per_gpu_hour = rate;
  }
}

// `sailor prices scenario`: the pools asked for, each from the cheapest matching offer.
int scenarioFromOffers(const ScenarioOptions& o, const std::string& out) {
  const Catalog catalog = Catalog::load(resourceDir());
  const PriceSheet sheet = PriceSheet::load(required(o.sheet, "--sheet"));
  if (sheet.offers().empty())
    throw InputError("--sheet", "\"" + *o.sheet + "\"",
                     "a price sheet with offers (`sailor prices import` writes one)");
  if (o.pools.empty()) throw InputError("--pool", "nothing", "at least one CLOUD:PLACE:GPU:COUNT");
  if (o.preemptions && o.preemption_trace)
    throw InputError("--preemption-trace", "given with --preemptions-per-gpu-hour",
                     "one source of the spot pools' rate");
  Scenario s;
  if (o.base) {
    s = loadWithContext<Scenario>(
        *o.base, [&](const nlohmann::json& j) { return Scenario::fromJson(j, catalog); });
  } else {
    s.default_links = Scenario::builtinDefaultLinks();
    s.default_egress_usd_per_gb = Scenario::builtinDefaultEgress();
    s.description = "Pools priced from " + sheet.catalogSource() + ", dated " +
                    sheet.catalogDate() + " (sailor prices scenario).";
  }
  if (o.name) s.name = *o.name;
  else if (!o.base) s.name = "offers";
  // The pools' price date: the catalogue's (a sheet without a readable one dates none).
  const std::string date = sheet.catalogDate().substr(0, 10);
  const std::string price_date = isIsoDate(date) ? date : std::string();
  std::vector<std::string> lines;
  bool spot_without_rate = false;
  for (const std::string& text : o.pools) {
    const OfferChoice c = OfferChoice::parse(text, "--pool");
    const PriceOffer& offer = chooseOffer(sheet, c, "--pool");
    s = addOfferPool(s, offer, c.count, c.spot, price_date, catalog, "--pool");
    Pool& p = s.pools.back();
    setPreemptionRate(p, o, catalog);
    spot_without_rate = spot_without_rate || (p.spot && !p.preemptions_per_gpu_hour);
    lines.push_back("  " + p.zone + ": " + std::to_string(p.count) + " " + p.gpu_type + " " +
                    (p.spot ? "spot" : "on-demand") + " at " + toText(p.usd_per_gpu_hour) +
                    " USD/GPU-hour (" + offer.instance_type + ", " + offerSource(offer) + ")");
    if (p.preemptions_source)
      lines.push_back("    " + toText(*p.preemptions_per_gpu_hour) +
                      " preemptions per GPU-hour, from the " + *p.preemptions_source);
  }
  s.validate(catalog);
  json_util::writeFileAtomically(out, s.toJson().dump(2) + "\n");
  std::cout << "Wrote " << out << ": " << o.pools.size() << " pools priced from "
            << sheet.catalogSource() << " (dated " << sheet.catalogDate() << ")\n";
  for (const auto& l : lines) std::cout << l << "\n";
  if (spot_without_rate)
    std::cout << "Note: spot pools without --preemptions-per-gpu-hour or --preemption-trace: "
                 "the whole run does not price their preemptions in.\n";
  return 0;
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
  ScenarioOptions so;
  app.add_option("--skypilot", skypilot);
  app.add_option("--out", out);
  app.add_option("--date", date);
  app.add_option("--sheet", so.sheet);
  app.add_option("--pool", so.pools);
  app.add_option("--base", so.base);
  app.add_option("--name", so.name);
  app.add_option("--preemptions-per-gpu-hour", so.preemptions);
  app.add_option("--preemption-trace", so.preemption_trace);
  const CLI::Option* as_json = app.add_flag("--json");
  const std::vector<std::string> positional = parseCommand(app, argc, argv, 2);
  const std::string what = positional.size() == 1 ? positional[0] : std::string();
  if (what != "import" && what != "scenario")
    throw InputError("prices", positional.empty() ? "nothing" : "\"" + positional[0] + "\"",
                     "\"import\" or \"scenario\"");
  // Each subcommand's own options: another's is refused, never silently unused.
  const auto refuse = [&](bool given, const char* option) {
    if (given)
      throw InputError(option, "given", std::string("absent with `sailor prices ") + what + "`");
  };
  if (what == "scenario") {
    refuse(skypilot.has_value(), "--skypilot");
    refuse(date.has_value(), "--date");
    refuse(as_json->count() > 0, "--json");
    return scenarioFromOffers(so, required(out, "--out"));
  }
  refuse(so.sheet.has_value(), "--sheet");
  refuse(!so.pools.empty(), "--pool");
  refuse(so.base.has_value(), "--base");
  refuse(so.name.has_value(), "--name");
  refuse(so.preemptions.has_value(), "--preemptions-per-gpu-hour");
  refuse(so.preemption_trace.has_value(), "--preemption-trace");
  const std::string& dir = required(skypilot, "--skypilot");
  const std::string& sheet = required(out, "--out");
  const SkyPilotImport im = importSkyPilotPriceSheet(dir, sheet, date);
  if (as_json->count() > 0) std::cout << importJson(im, sheet).dump(2) << "\n";
  else printImport(im, sheet);
  return 0;
}

}  // namespace sailor::cli
