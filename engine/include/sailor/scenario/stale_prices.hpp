// When a price is stale: the age past which `sailor plan` and the studio flag a pool's price
// (Pool::price_date, stalePriceNotes in scenario.hpp), and today's date to measure it against.
#pragma once

#include <string>

#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

// A quarter: cloud list prices change a few times a year, so a catalogue older than that is
// worth reading again (`sailor plan --max-price-age-days` sets another limit).
inline constexpr int kDefaultMaxPriceAgeDays = 90;

// Today's date in UTC, YYYY-MM-DD, from the system clock.
std::string todayUtc();

// Adds to the result's notes a "stale price: ..." line for each pool of `scenario` whose price is
// older than `max_age_days` today (stalePriceNotes): `sailor plan` and the studio show them with
// the plans.
void flagStalePrices(PlanResult& result, const Scenario& scenario,
                     int max_age_days = kDefaultMaxPriceAgeDays);

}  // namespace sailor
