// simdjson's DOM with json_util's bounds and messages (fast_json.hpp).
#include "fast_json.hpp"

#include <cmath>

#include "sailor/error.hpp"
#include "sailor/json_util.hpp"

namespace sailor::fast_json {

namespace ju = json_util;

std::unique_ptr<Document> readFile(const std::string& path) {
  return parseText(ju::readText(path), path);
}

std::unique_ptr<Document> parseText(const std::string& text, const std::string& what) {
  auto doc = std::make_unique<Document>();
  simdjson::error_code error = simdjson::SUCCESS;
  if (text.size() > ju::kMaxJsonFileBytes) {
    error = simdjson::CAPACITY;
  } else {
    const simdjson::padded_string padded(text);
    error = doc->parser.allocate(padded.size(), ju::kMaxJsonDepth);
    // parse() copies what it keeps (the strings) into the parser: the padded text may go.
    if (!error) error = doc->parser.parse(padded).get(doc->root);
  }
  if (error) {
    // The same text through json_util, whose error names the position and the rule broken
    // (size, nesting, a number out of range, a syntax error).
    ju::parseText(text, what);
    // Accepted there (simdjson is stricter on a few inputs, e.g. integers beyond 64 bits).
    throw InputError(
        what, std::string("JSON this reader cannot take (") + simdjson::error_message(error) + ")",
        "plain JSON numbers, strings, arrays and objects");
  }
  return doc;
}

std::string describe(Element v) {
  std::string s = simdjson::minify(v);
  if (s.size() > 60) s = ju::truncateUtf8(s, 57) + "...";
  return s;
}

void requireObject(Element v, const std::string& path) {
  if (!v.is_object()) throw InputError(path, describe(v), "a JSON object");
}

simdjson::dom::object object(Element v, const std::string& path) {
  simdjson::dom::object o;
  if (v.get_object().get(o)) throw InputError(path, describe(v), "a JSON object");
  return o;
}

double number(Element v, const std::string& path, const std::string& expected) {
  double d = 0;
  if (v.get_double().get(d) || !std::isfinite(d)) throw InputError(path, describe(v), expected);
  return d;
}

double getNonNegative(Element obj, std::string_view key, const std::string& path) {
  requireObject(obj, path.empty() ? "(top level)" : path);
  const std::string field = path.empty() ? std::string(key) : path + "." + std::string(key);
  Element v;
  if (obj[key].get(v)) throw InputError(field, "nothing (field missing)", "a value");
  if (!v.is_number()) throw InputError(field, describe(v), "a number");
  const double d = number(v, field, "a finite number");
  if (d < 0) throw InputError(field, describe(v), "a number >= 0");
  return d;
}

}  // namespace sailor::fast_json
