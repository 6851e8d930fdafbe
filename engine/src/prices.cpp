// The price sheet (resources/prices/default.json): USD per GPU-hour by region and GPU type.
// Declared in sailor/prices.hpp.
//
// Map:
//   PriceSheet::load           the file, each row validated
//   PriceSheet::usdPerGpuHour  a region's price for a GPU type, if the sheet lists it
#include "sailor/prices.hpp"

#include "sailor/error.hpp"
#include "sailor/json_util.hpp"

namespace sailor {

namespace ju = json_util;

PriceSheet PriceSheet::load(const std::string& path) {
  auto j = ju::readFile(path);
  PriceSheet sheet;
  try {
    const auto& rows = ju::require(j, "gpu_prices", "");
    ju::requireArray(rows, "gpu_prices");
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string p = "gpu_prices[" + std::to_string(i) + "]";
      sheet.rows_.push_back({ju::getString(rows[i], "region", p),
                             ju::getString(rows[i], "gpu_type", p),
                             ju::getNonNegative(rows[i], "usd_per_gpu_hour", p)});
    }
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
  return sheet;
}

std::optional<double> PriceSheet::usdPerGpuHour(const std::string& region,
                                                const std::string& gpu) const {
  for (const auto& r : rows_)
    if (r.region == region && r.gpu_type == gpu) return r.usd_per_gpu_hour;
  return std::nullopt;
}

}  // namespace sailor
