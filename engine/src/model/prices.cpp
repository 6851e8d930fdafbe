// The price sheet: USD per GPU-hour by region and GPU type, and a cloud catalogue's offers.
// Declared in sailor/model/prices.hpp; the format is in docs/prices.md.
//
// Map:
//   PriceSheet::load           the file, each row and offer validated
//   PriceSheet::usdPerGpuHour  a region's price for a GPU type: its row, else its cheapest offer
//   PriceSheet::toJson/save    the sheet written back, atomically
#include "sailor/model/prices.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor {

namespace ju = json_util;
using nlohmann::json;

namespace {

constexpr int kFormatVersion = 1;

PriceOffer offerFromJson(const json& o, const std::string& p) {
  ju::requireObject(o, p);
  ju::rejectUnknownKeys(
      o,
      {"cloud", "region", "zone", "instance_type", "accelerator", "gpu_type", "gpus_per_instance",
       "usd_per_gpu_hour", "spot_usd_per_gpu_hour", "source"},
      p);
  PriceOffer f;
  f.cloud = ju::getString(o, "cloud", p);
  f.region = ju::getString(o, "region", p);
  f.zone = ju::getStringOr(o, "zone", p, "");
  f.instance_type = ju::getString(o, "instance_type", p);
  f.accelerator = ju::getString(o, "accelerator", p);
  f.gpu_type = ju::getString(o, "gpu_type", p);
  f.gpus_per_instance = ju::getInt32(o, "gpus_per_instance", p, 1);
  f.usd_per_gpu_hour = ju::getNonNegative(o, "usd_per_gpu_hour", p);
  if (o.contains("spot_usd_per_gpu_hour") && !o.at("spot_usd_per_gpu_hour").is_null())
    f.spot_usd_per_gpu_hour = ju::getNonNegative(o, "spot_usd_per_gpu_hour", p);
  const std::string sp = p + ".source";
  const json& s = ju::require(o, "source", p);
  ju::requireObject(s, sp);
  ju::rejectUnknownKeys(s, {"file", "lines"}, sp);
  f.source.file = ju::getString(s, "file", sp);
  const json& lines = ju::require(s, "lines", sp);
  ju::requireArray(lines, sp + ".lines");
  if (lines.empty()) throw InputError(sp + ".lines", "[]", "one or more line numbers");
  for (size_t k = 0; k < lines.size(); ++k) {
    const std::string lp = sp + ".lines[" + std::to_string(k) + "]";
    if (!lines[k].is_number_integer() || lines[k].get<std::int64_t>() < 1 ||
        lines[k].get<std::int64_t>() > INT32_MAX)
      throw InputError(lp, ju::describe(lines[k]), "a line number from 1");
    f.source.lines.push_back(lines[k].get<int>());
  }
  return f;
}

json offerToJson(const PriceOffer& f) {
  json o = json::object();
  o["cloud"] = f.cloud;
  o["region"] = f.region;
  if (!f.zone.empty()) o["zone"] = f.zone;
  o["instance_type"] = f.instance_type;
  o["accelerator"] = f.accelerator;
  o["gpu_type"] = f.gpu_type;
  o["gpus_per_instance"] = f.gpus_per_instance;
  o["usd_per_gpu_hour"] = f.usd_per_gpu_hour;
  o["spot_usd_per_gpu_hour"] =
      f.spot_usd_per_gpu_hour ? json(*f.spot_usd_per_gpu_hour) : json(nullptr);
  o["source"] = {{"file", f.source.file}, {"lines", f.source.lines}};
  return o;
}

// Writes all of text to fd; false on an error (errno set).
bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Text to path through a temporary file in the same directory: written, fsync'ed, renamed over
// path, then the directory fsync'ed so that the rename is durable. On an error the temporary
// file is removed and path is as it was.
void writeDurably(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  static std::atomic<unsigned> counter{0};
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string tmp = (dir / ("." + target.filename().string() + ".tmp-" +
                                  std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                              .string();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw InputError(
        path,
        "a directory where a file cannot be created (" + std::string(std::strerror(errno)) + ")",
        "a writable directory");
  const bool written = writeAll(fd, text) && ::fsync(fd) == 0;
  const int saved = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(tmp.c_str());
    throw InputError(path, "a write that failed (" + std::string(std::strerror(saved)) + ")",
                     "enough space and permissions");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw InputError(path, "a rename that failed (" + std::string(std::strerror(e)) + ")",
                     "a writable path");
  }
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

PriceSheet PriceSheet::load(const std::string& path) {
  auto j = ju::readFile(path);
  PriceSheet sheet;
  try {
    ju::requireObject(j, "");
    if (!j.contains("gpu_prices") && !j.contains("offers"))
      throw InputError("gpu_prices", "a sheet with neither gpu_prices nor offers",
                       "gpu_prices rows, offers or both");
    if (j.contains("gpu_prices")) {
      const auto& rows = j.at("gpu_prices");
      ju::requireArray(rows, "gpu_prices");
      for (size_t i = 0; i < rows.size(); ++i) {
        const std::string p = "gpu_prices[" + std::to_string(i) + "]";
        sheet.rows_.push_back({ju::getString(rows[i], "region", p),
                               ju::getString(rows[i], "gpu_type", p),
                               ju::getNonNegative(rows[i], "usd_per_gpu_hour", p)});
      }
    }
    if (j.contains("offers")) {
      const auto& offers = j.at("offers");
      ju::requireArray(offers, "offers");
      for (size_t i = 0; i < offers.size(); ++i)
        sheet.offers_.push_back(offerFromJson(offers[i], "offers[" + std::to_string(i) + "]"));
      const json& c = ju::require(j, "catalog", "");
      ju::requireObject(c, "catalog");
      sheet.catalog_source_ = ju::getString(c, "source", "catalog");
      sheet.catalog_date_ = ju::getString(c, "date", "catalog");
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
  std::optional<double> best;
  for (const auto& f : offers_)
    if (f.region == region && f.gpu_type == gpu && (!best || f.usd_per_gpu_hour < *best))
      best = f.usd_per_gpu_hour;
  return best;
}

void PriceSheet::setOffers(std::vector<PriceOffer> offers, std::string catalog_source,
                           std::string catalog_date) {
  offers_ = std::move(offers);
  catalog_source_ = std::move(catalog_source);
  catalog_date_ = std::move(catalog_date);
}

std::string PriceSheet::toJson() const {
  json j = json::object();
  j["format"] = kFormatVersion;
  if (!rows_.empty() || offers_.empty()) {
    json rows = json::array();
    for (const auto& r : rows_)
      rows.push_back({{"region", r.region},
                      {"gpu_type", r.gpu_type},
                      {"usd_per_gpu_hour", r.usd_per_gpu_hour}});
    j["gpu_prices"] = std::move(rows);
  }
  if (!offers_.empty() || !catalog_date_.empty()) {
    j["catalog"] = {{"source", catalog_source_}, {"date", catalog_date_}};
    json offers = json::array();
    for (const auto& f : offers_) offers.push_back(offerToJson(f));
    j["offers"] = std::move(offers);
  }
  // One offer per line: a sheet of thousands of offers stays readable and diffable.
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : j.items()) {
    out += first ? "  " : ",\n  ";
    first = false;
    out += json(key).dump() + ": ";
    if (value.is_array()) {
      out += "[";
      for (size_t i = 0; i < value.size(); ++i)
        out += (i == 0 ? "\n    " : ",\n    ") + value[i].dump();
      out += value.empty() ? "]" : "\n  ]";
    } else {
      out += value.dump();
    }
  }
  return out + "\n}\n";
}

void PriceSheet::save(const std::string& path) const {
  writeDurably(path, toJson());
}

}  // namespace sailor
