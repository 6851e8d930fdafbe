// Reading validated fields out of nlohmann::json, with InputErrors that name the field, the
// value and what was expected; reading files and writing them atomically. Declared in
// sailor/json_util.hpp.
//
// Map:
//   describe, requireObject/Array, require       shapes and required keys
//   getString/Number/Int/Int32/Bool[Or]         typed fields, with or without a default
//   getNonNegative, getInRange, getPositive     bounded numbers
//   rejectUnknownKeys                           typos are errors, not silently ignored options
//   readFile, writeFileAtomically               files (write to a temporary, then rename)
#include "sailor/json_util.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace sailor::json_util {

std::string describe(const json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

void requireObject(const json& v, const std::string& path) {
  if (!v.is_object()) throw InputError(path, describe(v), "a JSON object");
}

void requireArray(const json& v, const std::string& path) {
  if (!v.is_array()) throw InputError(path, describe(v), "a JSON array");
}

const json& require(const json& obj, const std::string& key, const std::string& path) {
  requireObject(obj, path.empty() ? "(top level)" : path);
  auto it = obj.find(key);
  const std::string field = path.empty() ? key : path + "." + key;
  if (it == obj.end()) throw InputError(field, "nothing (field missing)", "a value");
  return *it;
}

static std::string fieldOf(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string getString(const json& obj, const std::string& key, const std::string& path) {
  const json& v = require(obj, key, path);
  if (!v.is_string()) throw InputError(fieldOf(path, key), describe(v), "a string");
  if (v.get<std::string>().empty())
    throw InputError(fieldOf(path, key), "\"\"", "a non-empty string");
  return v.get<std::string>();
}

std::string getStringOr(const json& obj, const std::string& key, const std::string& path,
                        const std::string& fallback) {
  if (!obj.contains(key) || obj.at(key).is_null()) return fallback;
  return getString(obj, key, path);
}

double getNumber(const json& obj, const std::string& key, const std::string& path) {
  const json& v = require(obj, key, path);
  if (!v.is_number()) throw InputError(fieldOf(path, key), describe(v), "a number");
  double d = v.get<double>();
  if (!std::isfinite(d)) throw InputError(fieldOf(path, key), describe(v), "a finite number");
  return d;
}

double getNumberOr(const json& obj, const std::string& key, const std::string& path,
                   double fallback) {
  if (!obj.contains(key) || obj.at(key).is_null()) return fallback;
  return getNumber(obj, key, path);
}

std::int64_t getInt(const json& obj, const std::string& key, const std::string& path,
                    std::int64_t min) {
  const json& v = require(obj, key, path);
  const std::string field = fieldOf(path, key);
  if (!v.is_number()) throw InputError(field, describe(v), "an integer");
  double d = v.get<double>();
  if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9.0e15)
    throw InputError(field, describe(v), "an integer");
  auto i = static_cast<std::int64_t>(d);
  if (i < min) throw InputError(field, describe(v), "an integer >= " + std::to_string(min));
  return i;
}

std::int64_t getIntOr(const json& obj, const std::string& key, const std::string& path,
                      std::int64_t min, std::int64_t fallback) {
  if (!obj.contains(key) || obj.at(key).is_null()) return fallback;
  return getInt(obj, key, path, min);
}

int getInt32(const json& obj, const std::string& key, const std::string& path, int min) {
  const std::int64_t v = getInt(obj, key, path, min);
  if (v > std::numeric_limits<int>::max())
    throw InputError(fieldOf(path, key), describe(obj.at(key)),
                     "an integer <= " + std::to_string(std::numeric_limits<int>::max()));
  return static_cast<int>(v);
}

int getInt32Or(const json& obj, const std::string& key, const std::string& path, int min,
               int fallback) {
  if (!obj.contains(key) || obj.at(key).is_null()) return fallback;
  return getInt32(obj, key, path, min);
}

bool getBoolOr(const json& obj, const std::string& key, const std::string& path, bool fallback) {
  if (!obj.contains(key) || obj.at(key).is_null()) return fallback;
  const json& v = obj.at(key);
  if (!v.is_boolean()) throw InputError(fieldOf(path, key), describe(v), "true or false");
  return v.get<bool>();
}

double getNonNegative(const json& obj, const std::string& key, const std::string& path) {
  double d = getNumber(obj, key, path);
  if (d < 0) throw InputError(fieldOf(path, key), describe(obj.at(key)), "a number >= 0");
  return d;
}

double getInRange(const json& obj, const std::string& key, const std::string& path, double max,
                  const std::string& expected) {
  const double d = getNumber(obj, key, path);
  if (!(d >= 0 && d <= max)) throw InputError(fieldOf(path, key), describe(obj.at(key)), expected);
  return d;
}

double getPositive(const json& obj, const std::string& key, const std::string& path) {
  double d = getNumber(obj, key, path);
  if (d <= 0) throw InputError(fieldOf(path, key), describe(obj.at(key)), "a number > 0");
  return d;
}

void rejectUnknownKeys(const json& obj, const std::vector<std::string>& allowed,
                       const std::string& path) {
  requireObject(obj, path.empty() ? "(top level)" : path);
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const auto& a : allowed) known = known || a == it.key();
    if (!known) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError(fieldOf(path, it.key()), "an unknown field", "one of: " + list);
    }
  }
}

json readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "a file that cannot be opened", "a readable JSON file");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw InputError(path, "malformed JSON (" + std::string(e.what()) + ")", "valid JSON");
  }
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmp =
      (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()))).string();
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw InputError(path, "a location that cannot be written", "a writable path");
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path, "a write that failed", "enough space and permissions");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(path, "a rename that failed (" + ec.message() + ")", "a writable path");
  }
}

}  // namespace sailor::json_util
