// Scenarios from a price sheet's offers (offer_pools.hpp).
#include "sailor/scenario/offer_pools.hpp"

#include <algorithm>
#include <set>

#include "sailor/core/error.hpp"

namespace sailor {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

bool zoneless(const PriceOffer& o) {
  return o.zone.empty();
}

std::string regionName(const PriceOffer& o) {
  return zoneless(o) ? o.cloud + "-" + o.region : o.region;
}

std::string zoneName(const PriceOffer& o) {
  return zoneless(o) ? regionName(o) : o.zone;
}

}  // namespace

OfferChoice OfferChoice::parse(const std::string& text, const std::string& field) {
  const std::string expected =
      "CLOUD:PLACE:GPU:COUNT or CLOUD:PLACE:GPU:COUNT:spot (e.g. gcp:us-central1-a:H100-80:512)";
  const std::vector<std::string> p = split(text, ':');
  if ((p.size() != 4 && p.size() != 5) || (p.size() == 5 && p[4] != "spot"))
    throw InputError(field, "\"" + text + "\"", expected);
  OfferChoice c;
  c.cloud = p[0];
  c.place = p[1];
  c.gpu_type = p[2];
  c.spot = p.size() == 5;
  for (const std::string* part : {&c.cloud, &c.place, &c.gpu_type})
    if (part->empty()) throw InputError(field, "\"" + text + "\"", expected);
  const std::string& n = p[3];
  const bool digits = !n.empty() && n.size() <= 7 && std::all_of(n.begin(), n.end(), [](char ch) {
    return ch >= '0' && ch <= '9';
  });
  c.count = digits ? std::stoi(n) : 0;
  if (c.count < 1 || c.count > 1000000)
    throw InputError(field, "\"" + text + "\"",
                     "a GPU count from 1 to 1000000 in its fourth part (" + expected + ")");
  return c;
}

const PriceOffer& chooseOffer(const PriceSheet& sheet, const OfferChoice& c,
                              const std::string& field) {
  const PriceOffer* best = nullptr;
  bool without_spot = false;
  std::set<std::string> places;
  for (const PriceOffer& o : sheet.offers()) {
    if (o.cloud != c.cloud || o.gpu_type != c.gpu_type) continue;
    const std::string place = zoneless(o) ? o.region : o.zone;
    places.insert(place);
    if (place != c.place) continue;
    if (c.spot && !o.spot_usd_per_gpu_hour) {
      without_spot = true;
      continue;
    }
    const double price = c.spot ? *o.spot_usd_per_gpu_hour : o.usd_per_gpu_hour;
    const double best_price =
        best ? (c.spot ? *best->spot_usd_per_gpu_hour : best->usd_per_gpu_hour) : 0.0;
    if (!best || price < best_price) best = &o;
  }
  if (best) return *best;
  const std::string asked =
      "\"" + c.cloud + ":" + c.place + ":" + c.gpu_type + (c.spot ? ":spot" : "") + "\"";
  if (without_spot)
    throw InputError(field, asked,
                     "an offer with a spot price (" + c.cloud + " has no spot price for " +
                         c.gpu_type + " in " + c.place + ")");
  std::string list;
  for (const auto& p : places) {
    if (list.size() > 300) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + p;
  }
  throw InputError(field, asked,
                   places.empty()
                       ? "a cloud and GPU type the price sheet offers"
                       : "a place where " + c.cloud + " offers " + c.gpu_type + ": " + list);
}

std::string continentOfCloudRegion(const std::string& region) {
  const std::string prefix = region.substr(0, region.find('-'));
  if (region.starts_with("ap-southeast-2") || region.starts_with("ap-southeast-4") ||
      prefix == "australia")
    return "oceania";
  if (prefix == "us" || prefix == "ca" || prefix == "northamerica") return "north-america";
  if (prefix == "eu" || prefix == "europe") return "europe";
  if (prefix == "ap" || prefix == "asia") return "asia";
  if (prefix == "sa" || prefix == "southamerica") return "south-america";
  if (prefix == "me" || prefix == "il") return "middle-east";
  if (prefix == "af" || prefix == "africa") return "africa";
  return prefix;
}

Scenario addOfferPool(const Scenario& base, const PriceOffer& offer, int count, bool spot,
                      const std::string& price_date, const Catalog& catalog,
                      const std::string& field) {
  Scenario s = base;
  const std::string region = regionName(offer), zone = zoneName(offer);
  auto r = std::find_if(s.regions.begin(), s.regions.end(),
                        [&](const Region& x) { return x.name == region; });
  if (r == s.regions.end()) {
    s.regions.push_back({region, continentOfCloudRegion(offer.region), {}});
    r = std::prev(s.regions.end());
  }
  if (std::find(r->zones.begin(), r->zones.end(), zone) == r->zones.end()) r->zones.push_back(zone);
  for (const Pool& p : s.pools)
    if (p.zone == zone && p.gpu_type == offer.gpu_type)
      throw InputError(field, "\"" + zone + " " + offer.gpu_type + "\"",
                       "one pool per zone and GPU type (the scenario has one)");
  Pool p;
  p.zone = zone;
  p.gpu_type = offer.gpu_type;
  p.count = count;
  p.spot = spot;
  p.usd_per_gpu_hour = spot ? *offer.spot_usd_per_gpu_hour : offer.usd_per_gpu_hour;
  if (!price_date.empty()) p.price_date = price_date;
  const GpuType& g = catalog.gpu(offer.gpu_type, field);
  if (g.findNetwork(offer.instance_type)) p.instance = offer.instance_type;
  else p.gpus_per_node = offer.gpus_per_instance;
  s.pools.push_back(p);
  try {
    s.validate(catalog);
  } catch (const InputError& e) {
    throw InputError(field, "\"" + zone + " " + offer.gpu_type + "\"",
                     std::string("a pool the scenario can hold (") + e.what() + ")");
  }
  return s;
}

}  // namespace sailor
