// The stale-price flags and today's date (stale_prices.hpp).
#include "sailor/scenario/stale_prices.hpp"

#include <ctime>

namespace sailor {

std::string todayUtc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

void flagStalePrices(PlanResult& result, const Scenario& scenario, int max_age_days) {
  for (const std::string& note : stalePriceNotes(scenario, todayUtc(), max_age_days))
    result.notes.push_back("stale price: " + note);
}

}  // namespace sailor
