// The price sheet (resources/prices/default.json): on-demand and spot USD per GPU-hour by region
// and GPU type, each with its source. Used to price pools built from other data (SAILOR's quotas,
// availability traces).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sailor {

class PriceSheet {
 public:
  static PriceSheet load(const std::string& path);
  std::optional<double> usdPerGpuHour(const std::string& region, const std::string& gpu_type) const;

 private:
  struct Row {
    std::string region, gpu_type;
    double usd_per_gpu_hour = 0;
  };
  std::vector<Row> rows_;
};

}  // namespace sailor
