// SkyPilot's GPU price catalogues (~/.sky/catalogs/v7/<cloud>/vms.csv) read into price offers:
// one per instance type and zone (Lambda: region), priced in USD per GPU-hour and named by this
// project's GPU types (resources/catalog/gpus.json). Rows that do not map to an offer are
// returned as skipped with their line and the reason, never guessed. docs/prices.md describes the
// mapping table, GCP's host + accelerator rule and what is skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sailor/model/prices.hpp"

namespace sailor {

// A catalogue row that gave no offer.
struct SkippedCatalogRow {
  std::string file;  // "aws/vms.csv"
  int line = 0;
  std::string reason;
};

// One catalogue file read.
struct CatalogFileInfo {
  std::string cloud;  // "gcp", "aws", "lambda"
  std::string file;   // "gcp/vms.csv", relative to the directory
  int rows = 0;       // data rows
  std::string date;   // the file's modification time, ISO 8601 UTC
};

struct SkyPilotImport {
  std::vector<PriceOffer> offers;
  std::vector<SkippedCatalogRow> skipped;
  std::vector<CatalogFileInfo> files;
  std::string source;  // "SkyPilot catalogues (gcp, aws, lambda) in DIR"
  std::string date;    // the caller's date, else the newest file's modification time
};

// The catalogue's GPU type for a SkyPilot accelerator name on a cloud, empty where the
// catalogue has none (the one mapping table, in skypilot_catalog.cpp and docs/prices.md).
std::string skyPilotGpuType(const std::string& cloud, const std::string& accelerator);

// Reads DIR/<cloud>/vms.csv for each of gcp, aws and lambda that exists (at least one must).
// `date`, when given (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ), is the catalogue's date; else the
// newest file's modification time is. Throws InputError naming file, line and column for a
// malformed catalogue (see sailor/core/csv.hpp), a negative or non-number price or count, a missing
// column, or a row that is the same as an earlier one (naming both lines).
SkyPilotImport importSkyPilotCatalogs(const std::string& dir,
                                      const std::optional<std::string>& date = std::nullopt);

// A price sheet holding the import's offers, its source and its date.
PriceSheet priceSheetFrom(const SkyPilotImport& import);

// importSkyPilotCatalogs, then the sheet saved to sheet_path (atomically): on any error nothing
// is written and a file already at sheet_path is left as it was.
SkyPilotImport importSkyPilotPriceSheet(const std::string& dir, const std::string& sheet_path,
                                        const std::optional<std::string>& date = std::nullopt);

}  // namespace sailor
