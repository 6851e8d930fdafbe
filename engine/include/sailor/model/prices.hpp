// The price sheet (resources/prices/default.json, or one imported from SkyPilot's catalogues):
// on-demand and spot USD per GPU-hour by region and GPU type, each with its source, and the
// offers of a cloud catalogue (one per instance type and zone). Used to price pools built from
// other data (SAILOR's quotas, availability traces). The format is in docs/prices.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sailor {

// Where an offer comes from: the catalogue file (as named relative to the imported directory,
// "gcp/vms.csv") and its lines (GCP: the host VM's line, then the accelerator's line).
struct OfferSource {
  std::string file;
  std::vector<int> lines;
};

// One instance type in one zone (Lambda: one region, zone empty) of a cloud catalogue.
struct PriceOffer {
  std::string cloud;  // "gcp", "aws", "lambda"
  std::string region;
  std::string zone;           // empty where the catalogue has no zones (Lambda)
  std::string instance_type;  // "a2-highgpu-8g", "p5.48xlarge", "gpu_8x_h100_sxm5"
  std::string accelerator;    // the catalogue's own accelerator name ("A100", "H100-MEGA")
  std::string gpu_type;       // this project's GPU catalogue name ("A100-40", "H100-80")
  int gpus_per_instance = 0;
  double usd_per_gpu_hour = 0;                  // on-demand
  std::optional<double> spot_usd_per_gpu_hour;  // absent where there is no spot price
  OfferSource source;
};

class PriceSheet {
 public:
  // Reads a sheet: `gpu_prices` rows, `offers`, or both (at least one of the two keys).
  static PriceSheet load(const std::string& path);

  // A region's on-demand price for a GPU type: its `gpu_prices` row where the sheet has one,
  // else the cheapest offer in that region for that GPU type, else nothing.
  std::optional<double> usdPerGpuHour(const std::string& region, const std::string& gpu_type) const;

  const std::vector<PriceOffer>& offers() const { return offers_; }
  // What the offers were read from ("SkyPilot catalogues v7: gcp, aws, lambda") and the
  // catalogue's date (ISO 8601), empty for a sheet without offers.
  const std::string& catalogSource() const { return catalog_source_; }
  const std::string& catalogDate() const { return catalog_date_; }

  // Replaces the offers and the catalogue's description.
  void setOffers(std::vector<PriceOffer> offers, std::string catalog_source,
                 std::string catalog_date);

  // The sheet as JSON text (its `gpu_prices` rows, its catalogue and its offers).
  std::string toJson() const;
  // Writes toJson() to path atomically: a temporary file in the same directory, written,
  // fsync'ed and renamed over path. On any error (InputError naming path) path is untouched
  // and the temporary file is removed.
  void save(const std::string& path) const;

 private:
  struct Row {
    std::string region, gpu_type;
    double usd_per_gpu_hour = 0;
  };
  std::vector<Row> rows_;
  std::vector<PriceOffer> offers_;
  std::string catalog_source_, catalog_date_;
};

}  // namespace sailor
