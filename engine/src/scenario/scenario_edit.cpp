// Scenario edits that keep references whole (scenario_edit.hpp). What this file holds:
//   ScenarioEditError::message   the InputError wording of a refusal
//   zoneList, dropZoneReferences helpers: the zones for an error's "expected", and removing
//                                what names a zone (pools, links, egress prices)
//   renameZone                   a zone renamed everywhere it is named
//   removeZone, removeRegion     a zone, or a region with its zones, removed with what names them
#include "sailor/scenario/scenario_edit.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

namespace sailor {

namespace {

using Reason = ScenarioEditError::Reason;

// "a, b, c": every zone of the scenario, regions in order.
std::string zoneList(const Scenario& sc) {
  std::string out;
  for (const auto& r : sc.regions)
    for (const auto& z : r.zones) out += (out.empty() ? "" : ", ") + z;
  return out;
}

ScenarioEditError unknownZone(const Scenario& sc, const std::string& zone) {
  return {Reason::UnknownZone, "zone", "\"" + zone + "\"",
          "a zone of the scenario (one of: " + zoneList(sc) + ")"};
}

// Removes the pools in `zone`, the links that touch it and its pairs' egress prices (the zone
// itself stays in its region).
void dropZoneReferences(Scenario& sc, const std::string& zone) {
  std::erase_if(sc.pools, [&](const Pool& p) { return p.zone == zone; });
  std::erase_if(sc.links,
                [&](const LinkEntry& l) { return l.from_zone == zone || l.to_zone == zone; });
  std::erase_if(sc.egress_usd_per_gb,
                [&](const auto& kv) { return kv.first.first == zone || kv.first.second == zone; });
}

bool isBlank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

}  // namespace

std::string ScenarioEditError::message() const {
  return field + ": got " + value + ", expected " + expected;
}

ScenarioEditResult renameZone(const Scenario& sc, const std::string& zone,
                              const std::string& new_name) {
  if (!sc.hasZone(zone)) return unknownZone(sc, zone);
  if (isBlank(new_name))
    return ScenarioEditError{Reason::EmptyName, "new_name", "\"" + new_name + "\"",
                             "a zone name that is not empty"};
  if (new_name == zone) return sc;
  if (sc.hasZone(new_name))
    return ScenarioEditError{Reason::NameTaken, "new_name", "\"" + new_name + "\"",
                             "a name no other zone has"};
  Scenario e = sc;
  for (auto& r : e.regions) std::replace(r.zones.begin(), r.zones.end(), zone, new_name);
  for (auto& p : e.pools)
    if (p.zone == zone) p.zone = new_name;
  for (auto& l : e.links) {
    if (l.from_zone == zone) l.from_zone = new_name;
    if (l.to_zone == zone) l.to_zone = new_name;
  }
  // The map is keyed by (from, to): renamed keys go in again, in their new order.
  std::map<std::pair<std::string, std::string>, double> egress;
  for (const auto& [key, usd_per_gb] : e.egress_usd_per_gb) {
    std::pair<std::string, std::string> renamed = key;
    if (renamed.first == zone) renamed.first = new_name;
    if (renamed.second == zone) renamed.second = new_name;
    egress[renamed] = usd_per_gb;
  }
  e.egress_usd_per_gb = std::move(egress);
  return e;
}

ScenarioEditResult removeZone(const Scenario& sc, const std::string& zone) {
  if (!sc.hasZone(zone)) return unknownZone(sc, zone);
  const Region& home = sc.regionOf(zone);
  if (home.zones.size() == 1)
    return ScenarioEditError{Reason::LastZone, "zone", "\"" + zone + "\"",
                             "a zone that is not the only one of its region " + home.name +
                                 " (remove the region instead)"};
  Scenario e = sc;
  dropZoneReferences(e, zone);
  for (auto& r : e.regions) std::erase(r.zones, zone);
  return e;
}

ScenarioEditResult removeRegion(const Scenario& sc, int region) {
  const int n = static_cast<int>(sc.regions.size());
  if (region < 0 || region >= n)
    return ScenarioEditError{Reason::UnknownRegion, "region", std::to_string(region),
                             "a region index from 0 to " + std::to_string(n - 1)};
  const auto at = static_cast<size_t>(region);
  if (n == 1)
    return ScenarioEditError{Reason::LastRegion, "region", sc.regions[at].name,
                             "a region that is not the scenario's only one (add another first)"};
  Scenario e = sc;
  for (const auto& z : sc.regions[at].zones) dropZoneReferences(e, z);
  e.regions.erase(e.regions.begin() + region);
  return e;
}

}  // namespace sailor
