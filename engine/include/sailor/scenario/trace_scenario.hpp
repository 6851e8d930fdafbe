// Scenarios built from counts of GPUs per (GPU type, zone): SAILOR's quotas and the rows of an
// availability trace (reference.hpp, loadTrace), with pools priced from the price sheet. The
// `sailor plan` command line and the planner bench build their scenarios here, so that every
// consumer prices a GPU from the one sheet (resources/prices/default.json).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

// GPUs of one type available in one zone: a trace row's column or a quota entry.
struct SiteCount {
  std::string gpu_type;
  std::string zone;
  int count = 0;  // GPUs
};

// A trace row's counts, in its column order.
std::vector<SiteCount> siteCounts(const TraceRow& row);
// Quotas as SailorReference::quotas holds them, in (GPU type, zone) order.
std::vector<SiteCount> siteCounts(const std::map<std::pair<std::string, std::string>, int>& quotas);

// The price sheet and how errors name it (e.g. "resources/prices/default.json").
struct PriceSource {
  const PriceSheet& sheet;
  std::string name;
};

// One on-demand pool per count, in order, at the sheet's USD per GPU-hour for the zone's region
// (regionOfZone). Node size from `reference`'s cluster configuration where it names the GPU
// type (nullptr: the catalogue's). A (type, region) the sheet does not price is bad input:
// InputError("prices", "<type> in <region>", "a price in <prices.name>").
std::vector<Pool> pricedPools(const std::vector<SiteCount>& counts, const PriceSource& prices,
                              const SailorReference* reference = nullptr);

// The scenario one trace row describes, validated.
//  - With a reference: the reference's scenario (SailorReference::scenario) over the row's
//    pools, every one priced from the sheet; `base` is not used.
//  - Without: `base` with the count of each pool set to the row's count for its (type, zone),
//    0 for a pool the row has no column for, and a priced pool appended for a column `base`
//    has no pool for (its zone must be one of `base`'s).
Scenario traceRowScenario(const TraceRow& row, const Scenario& base, const PriceSource& prices,
                          const SailorReference* reference, const Catalog& catalog);

}  // namespace sailor
