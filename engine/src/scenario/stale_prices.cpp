// Today's date for the stale-price flags (stale_prices.hpp).
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

}  // namespace sailor
