// Reading large data files (SAILOR's profiles and network fits: about 1 MB of JSON) with
// simdjson's DOM parser: nlohmann's took 4-5 ms of a planner_bench scenario's 6 ms of set-up,
// simdjson a tenth of that (docs/benchmarks.md, "Set-up with simdjson"). The bounds and the
// errors are json_util's: files over kMaxJsonFileBytes, nesting over kMaxJsonDepth and a key
// written twice in one object are refused, and a text simdjson rejects (or one with a key
// twice, which simdjson keeps) is parsed again by json_util::parseText so that the error names
// the same position. Values are read through the helpers below, which throw
// InputErrors naming the field, the value and what was expected, as json_util's do.
//
// Engine-internal (not installed): simdjson stays out of the public headers.
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>

namespace sailor::fast_json {

using Element = simdjson::dom::element;

// A parsed file: the parser owns the values, so it lives as long as the document.
struct Document {
  simdjson::dom::parser parser;
  Element root;
};

// Reads and parses `path` with json_util::readFile's bounds and errors.
std::unique_ptr<Document> readFile(const std::string& path);
// Parses `text` the same way; `what` names it in errors (a file, a test's literal).
std::unique_ptr<Document> parseText(const std::string& text, const std::string& what);

// The compact text of a value, at most 60 bytes (as json_util::describe).
std::string describe(Element v);
// v is an object, else InputError(path, v, "a JSON object").
void requireObject(Element v, const std::string& path);
// v as an object (its fields in file order), else that InputError.
simdjson::dom::object object(Element v, const std::string& path);
// A finite number, else InputError(path, v, expected).
double number(Element v, const std::string& path, const std::string& expected);
// obj[key] as a number >= 0, the messages of json_util::getNonNegative.
double getNonNegative(Element obj, std::string_view key, const std::string& path);

}  // namespace sailor::fast_json
