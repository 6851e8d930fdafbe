// Scenarios from counts of GPUs per (type, zone), priced from the price sheet.
//
// What this file holds:
//   siteCounts        a trace row's columns, or SAILOR's quotas, as (type, zone, count)
//   pricedPools       one on-demand pool per count at the sheet's price for the zone's region
//   traceRowScenario  the scenario of one trace row: the reference's over priced pools, or a
//                     base scenario with the row's counts (and priced pools it lacked)
// It is not: the trace reader (loadTrace, reference.cpp) nor the sheet's reader (prices.cpp).
#include "sailor/scenario/trace_scenario.hpp"

#include "sailor/core/error.hpp"

namespace sailor {

std::vector<SiteCount> siteCounts(const TraceRow& row) {
  std::vector<SiteCount> out;
  for (size_t k = 0; k < row.sites.size() && k < row.counts.size(); ++k)
    out.push_back({row.sites[k].first, row.sites[k].second, row.counts[k]});
  return out;
}

std::vector<SiteCount> siteCounts(
    const std::map<std::pair<std::string, std::string>, int>& quotas) {
  std::vector<SiteCount> out;
  out.reserve(quotas.size());
  for (const auto& [site, n] : quotas) out.push_back({site.first, site.second, n});
  return out;
}

std::vector<Pool> pricedPools(const std::vector<SiteCount>& counts, const PriceSource& prices,
                              const SailorReference* reference) {
  std::vector<Pool> pools;
  for (const auto& c : counts) {
    Pool p;
    p.gpu_type = c.gpu_type;
    p.zone = c.zone;
    p.count = c.count;
    const std::string region = regionOfZone(p.zone);
    const auto price = prices.sheet.usdPerGpuHour(region, p.gpu_type);
    if (!price)
      throw InputError("prices", p.gpu_type + " in " + region, "a price in " + prices.name);
    p.usd_per_gpu_hour = *price;
    if (reference) {
      if (auto it = reference->gpus_per_node.find(p.gpu_type); it != reference->gpus_per_node.end())
        p.gpus_per_node = it->second;
    }
    pools.push_back(p);
  }
  return pools;
}

Scenario traceRowScenario(const TraceRow& row, const Scenario& base, const PriceSource& prices,
                          const SailorReference* reference, const Catalog& catalog) {
  const std::vector<SiteCount> counts = siteCounts(row);
  if (reference) return reference->scenario(pricedPools(counts, prices, reference), catalog);
  Scenario sc = base;
  for (auto& p : sc.pools) p.count = 0;
  for (const auto& c : counts) {
    bool found = false;
    // Every pool of the site takes the row's count (on-demand and spot pools alike).
    for (auto& p : sc.pools)
      if (p.gpu_type == c.gpu_type && p.zone == c.zone) {
        p.count = c.count;
        found = true;
      }
    if (!found) sc.pools.push_back(pricedPools({c}, prices).front());
  }
  sc.validate(catalog);
  return sc;
}

}  // namespace sailor
