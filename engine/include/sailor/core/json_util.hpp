// Helpers to read validated fields out of nlohmann::json with errors that name the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/core/error.hpp"

namespace sailor::json_util {

using nlohmann::json;

// Limits on files read by readFile: far above any real scenario, job, plan or points file, so
// that a hostile file is refused with a message rather than exhausting the stack or memory.
inline constexpr int kMaxJsonDepth = 64;                        // levels of [ and {
inline constexpr std::uintmax_t kMaxJsonFileBytes = 64u << 20;  // 64 MiB

// The longest prefix of s of at most max_bytes bytes that does not end inside a UTF-8
// character. Every cut of text for a message goes through it, so messages stay valid UTF-8.
std::string truncateUtf8(std::string_view s, std::size_t max_bytes);
// Short text of a value for error messages: at most 60 bytes, built without recursion.
std::string describe(const json& v);
const json& require(const json& obj, const std::string& key, const std::string& path);
void requireObject(const json& v, const std::string& path);
void requireArray(const json& v, const std::string& path);
std::string getString(const json& obj, const std::string& key, const std::string& path);
std::string getStringOr(const json& obj, const std::string& key, const std::string& path,
                        const std::string& fallback);
double getNumber(const json& obj, const std::string& key, const std::string& path);
double getNumberOr(const json& obj, const std::string& key, const std::string& path,
                   double fallback);
// Integers: rejects fractions, and values below `min`.
std::int64_t getInt(const json& obj, const std::string& key, const std::string& path,
                    std::int64_t min);
std::int64_t getIntOr(const json& obj, const std::string& key, const std::string& path,
                      std::int64_t min, std::int64_t fallback);
// Integers that are held in an int (counts, layers, tp): also rejects values above INT_MAX.
int getInt32(const json& obj, const std::string& key, const std::string& path, int min);
int getInt32Or(const json& obj, const std::string& key, const std::string& path, int min,
               int fallback);
bool getBoolOr(const json& obj, const std::string& key, const std::string& path, bool fallback);
// Non-negative finite number.
double getNonNegative(const json& obj, const std::string& key, const std::string& path);
// A number from 0 to max; `expected` describes the range for the error ("seconds from 0 to 3600").
double getInRange(const json& obj, const std::string& key, const std::string& path, double max,
                  const std::string& expected);
double getPositive(const json& obj, const std::string& key, const std::string& path);
// Rejects keys not listed, so that typos do not pass silently.
void rejectUnknownKeys(const json& obj, const std::vector<std::string>& allowed,
                       const std::string& path);

// Reads and parses a JSON file; errors name the file and the parse position. Refuses files over
// kMaxJsonFileBytes, nesting over kMaxJsonDepth, a key written twice in one object (naming both
// positions) and numbers that overflow a double.
json readFile(const std::string& path);
// The text of a file of any kind (regular, a pipe or FIFO, a character device, /proc), read to
// at most max_bytes: one over that is refused (InputError) after max_bytes + 1 bytes, whether
// it says its size or not (/dev/zero), as are a directory and a missing or unreadable file.
// `kind` names what was expected in errors ("a readable JSON file", "a JSON file of at most
// 67108864 bytes"). A FIFO without a writer reads as empty instead of waiting for one. Not
// parsed.
std::string readText(const std::string& path, const std::string& kind = "JSON file",
                     std::uint64_t max_bytes = kMaxJsonFileBytes);
// Parses text with readFile's bounds (size, nesting, each key once, numbers); errors are
// InputErrors naming `what` (a file, a database column, a worker's report) in readFile's place.
json parseText(const std::string& text, const std::string& what);
// Writes text to path atomically (temporary file in the same directory, then rename).
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace sailor::json_util
