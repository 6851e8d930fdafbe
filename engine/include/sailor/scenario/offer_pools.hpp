// Scenarios from a price sheet's offers (docs/prices.md, "Scenarios from offers"): a pool of N
// GPUs of one offer (a cloud's instance type in a zone, as `sailor prices import` reads them from
// SkyPilot's catalogues), priced at its on-demand or spot USD per GPU-hour, added to a scenario
// with its region and zone. `sailor prices scenario` builds a multi-cloud scenario this way; the
// studio's "add pool" offers the same choices.
//
// Names: GCP's and AWS's regions and zones keep the cloud's names ("us-central1" / "us-central1-a",
// "us-east-1" / "us-east-1a"); a cloud without zones (Lambda) gets one zone per region, both named
// "<cloud>-<region>" ("lambda-us-east-1"), apart from AWS's region of the same name. A region's
// continent comes from its name's prefix (continentOfCloudRegion). A pool's node is the offer's
// instance: its family's catalogue network where the GPU type lists it (the same-zone link the
// planner uses), else nodes of the instance's GPU count.
#pragma once

#include <string>
#include <vector>

#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

// A pool asked for: "CLOUD:PLACE:GPU:COUNT[:spot]", PLACE a zone (GCP, AWS) or a region
// (Lambda), e.g. "gcp:us-central1-a:H100-80:512", "aws:us-east-1a:H100-80:256:spot".
struct OfferChoice {
  std::string cloud, place, gpu_type;
  int count = 0;
  bool spot = false;
  // InputError naming `field` (the option) for a malformed text.
  static OfferChoice parse(const std::string& text, const std::string& field);
};

// The cheapest offer (per GPU-hour, spot or on-demand as asked) of the sheet that matches the
// choice; InputError naming `field` when none does (with the places that do offer the GPU type),
// or when a spot pool is asked of offers without a spot price.
const PriceOffer& chooseOffer(const PriceSheet& sheet, const OfferChoice& choice,
                              const std::string& field);

// The continent of a cloud region by its name's prefix: us, ca, northamerica: north-america;
// eu, europe: europe; ap, asia: asia (ap-southeast-2 and -4, australia: oceania); sa,
// southamerica: south-america; me, il: middle-east; af, africa: africa. Else the prefix itself.
std::string continentOfCloudRegion(const std::string& region);

// `base` with a pool of `count` GPUs of `offer` (its spot price with `spot`, dated
// `price_date`, YYYY-MM-DD or empty), its region and zone added where missing. InputError naming
// `field` when the zone already has a pool of that GPU type, or the result does not validate
// against the catalogue.
Scenario addOfferPool(const Scenario& base, const PriceOffer& offer, int count, bool spot,
                      const std::string& price_date, const Catalog& catalog,
                      const std::string& field);

}  // namespace sailor
