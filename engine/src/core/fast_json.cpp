// simdjson's DOM with json_util's bounds and messages (fast_json.hpp).
#include "fast_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor::fast_json {

namespace ju = json_util;

std::unique_ptr<Document> readFile(const std::string& path) {
  return parseText(ju::readText(path), path);
}

namespace {

// A key and its hash (FNV-1a), so that sorting the keys of an object compares strings only
// where two hashes are equal.
struct HashedKey {
  static constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
  static constexpr std::uint64_t kFnvPrime = 1099511628211ull;
  std::uint64_t hash;
  std::string_view key;
  explicit HashedKey(std::string_view k) : hash(kFnvOffset), key(k) {
    for (const char c : k) hash = (hash ^ static_cast<unsigned char>(c)) * kFnvPrime;
  }
  bool operator<(const HashedKey& o) const { return hash != o.hash ? hash < o.hash : key < o.key; }
  bool operator==(const HashedKey& o) const { return hash == o.hash && key == o.key; }
};

// Whether keys (those of one object) holds one twice.
bool repeats(std::vector<HashedKey>& keys) {
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

bool isStructured(Element v) {
  const auto type = v.type();
  return type == simdjson::dom::element_type::OBJECT || type == simdjson::dom::element_type::ARRAY;
}

// Puts v's objects and arrays on `open` (an array's own elements at once: most of SAILOR's
// arrays hold numbers only, and are done with here).
void pushStructured(Element v, std::vector<Element>& open) {
  simdjson::dom::array a;
  if (v.get_array().get(a) != simdjson::SUCCESS) {
    if (v.type() == simdjson::dom::element_type::OBJECT) open.push_back(v);
    return;
  }
  for (const Element e : a)
    if (isStructured(e)) pushStructured(e, open);
}

// Whether an object under root holds a key twice: simdjson's DOM keeps both (NOTE [Each key
// once], json_util.cpp). Nesting is bounded by kMaxJsonDepth, which bounds the recursion of
// pushStructured.
bool hasRepeatedKey(Element root) {
  std::vector<Element> open;
  pushStructured(root, open);
  std::vector<HashedKey> keys;
  while (!open.empty()) {
    const simdjson::dom::object o(open.back());
    open.pop_back();
    keys.clear();
    for (const auto field : o) {
      keys.emplace_back(field.key);
      pushStructured(field.value, open);
    }
    if (repeats(keys)) return true;
  }
  return false;
}

}  // namespace

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
  if (!error && hasRepeatedKey(doc->root)) {
    ju::parseText(text, what);  // its error names both positions
    throw InputError(what, "a key twice in one object", "each key once in an object");
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
