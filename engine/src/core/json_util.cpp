// Reading validated fields out of nlohmann::json, with InputErrors that name the field, the
// value and what was expected; reading files and writing them atomically. Declared in
// sailor/core/json_util.hpp.
//
// Map:
//   truncateUtf8, describe                      bounded text of values, cut on character boundaries
//   requireObject/Array, require                shapes and required keys
//   getString/Number/Int/Int32/Bool[Or]         typed fields, with or without a default
//   getNonNegative, getInRange, getPositive     bounded numbers
//   rejectUnknownKeys                           typos are errors, not silently ignored options
//   readFile, readText, parseText,              files and text: bounded size and nesting,
//   writeFileAtomically                         each key once, numbers that fit a double;
//                                               write to a temporary, then rename
#include "sailor/core/json_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>

namespace sailor::json_util {

std::string truncateUtf8(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  std::size_t cut = max_bytes;
  // Back off over continuation bytes (10xxxxxx) so that the cut falls before a lead byte.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut));
}

// The compact text of a scalar (what dump() writes); invalid UTF-8 in a string is replaced
// rather than thrown on, as an error message must always be writable.
static std::string scalarText(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The first `limit` bytes (or a little more) of what v.dump() writes, without recursion: a
// value nested 100,000 deep must neither overflow the stack nor be rendered whole.
static std::string dumpPrefix(const json& v, std::size_t limit) {
  struct Frame {
    const json* container;
    json::const_iterator it;
  };
  std::vector<Frame> stack;
  std::string out;
  const json* next = &v;
  while (out.size() <= limit) {
    if (next != nullptr) {
      if (next->is_structured()) {
        out += next->is_object() ? '{' : '[';
        stack.push_back({next, next->cbegin()});
      } else {
        out += scalarText(*next);
      }
      next = nullptr;
      continue;
    }
    if (stack.empty()) break;
    Frame& f = stack.back();
    if (f.it == f.container->cend()) {
      out += f.container->is_object() ? '}' : ']';
      stack.pop_back();
      continue;
    }
    if (f.it != f.container->cbegin()) out += ',';
    if (f.container->is_object()) out += scalarText(json(f.it.key())) + ':';
    next = &*f.it;
    ++f.it;
  }
  return out;
}

std::string describe(const json& v) {
  std::string s = dumpPrefix(v, 60);
  if (s.size() > 60) s = truncateUtf8(s, 57) + "...";
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

namespace {

// Line and column (from 1) of byte `offset` of text, for error messages.
std::string lineColumn(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Byte offsets of the first key in text that repeats a key before it in the same object, and of
// that earlier key; nullopt when none does. A light scan of text that the parser read up to the
// repeat, run only to name positions in an error.
std::optional<std::pair<std::size_t, std::size_t>> repeatedKeyOffsets(const std::string& text) {
  struct Frame {
    bool object = false;
    bool expect_key = false;
    std::map<std::string, std::size_t, std::less<>> keys;  // key -> offset of its quote
  };
  std::vector<Frame> stack;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      std::size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      if (end >= text.size()) return std::nullopt;
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        const std::string_view raw(text.data() + i + 1, end - i - 1);
        const std::string key = raw.find('\\') == std::string_view::npos
                                    ? std::string(raw)
                                    : json::parse(text.substr(i, end - i + 1)).get<std::string>();
        const auto [at, inserted] = stack.back().keys.try_emplace(key, i);
        if (!inserted) return std::make_pair(i, at->second);
        stack.back().expect_key = false;
      }
      i = end;
    } else if (c == '{' || c == '[') {
      stack.push_back({c == '{', c == '{', {}});
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (c == ',' && !stack.empty() && stack.back().object) {
      stack.back().expect_key = true;
    }
  }
  return std::nullopt;
}

// NOTE [Each key once]: a key written twice in one object is an error naming both positions.
// nlohmann's DOM keeps the last value and simdjson's keeps both, so a repeated key would
// silently change a value ("global_batch_size": 1024, then 8) where docs/formats.md promises
// that a typo is an error. This builder stores each key as it is read and refuses one that is
// already there; the positions come from a second scan of the text, on that error only.
//
// It is nlohmann's DOM builder (json_sax_dom_parser) with that check, a bound on nesting, and
// errors that become InputErrors naming the file: nlohmann reads any depth, but copying,
// printing or destroying such a value recurses.
class BoundedDomParser {
 public:
  BoundedDomParser(json& result, const std::string& path, const std::string& text)
      : result_(result), path_(path), text_(text) {}

  // nlohmann's SAX interface (json::sax_parse) names these.
  // NOLINTBEGIN(readability-identifier-naming)
  bool null() { return put(nullptr) != nullptr; }
  bool boolean(bool v) { return put(v) != nullptr; }
  bool number_integer(json::number_integer_t v) { return put(v) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return put(v) != nullptr; }
  bool number_float(json::number_float_t v, const json::string_t& /*text*/) {
    return put(v) != nullptr;
  }
  bool string(json::string_t& v) { return put(std::move(v)) != nullptr; }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t /*len*/) {
    enter();
    stack_.push_back(put(json::object()));
    return true;
  }
  bool key(json::string_t& k) {
    auto& object = stack_.back()->get_ref<json::object_t&>();
    const auto [at, inserted] = object.try_emplace(std::move(k));  // k is kept when not inserted
    if (!inserted) repeatedKey(at->first);
    slot_ = &at->second;
    return true;
  }
  bool end_object() { return leave(); }
  bool start_array(std::size_t /*len*/) {
    enter();
    stack_.push_back(put(json::array()));
    return true;
  }
  bool end_array() { return leave(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    if (ex.id == 406)  // out_of_range: a number that does not fit a double (1e309)
      // position is just past the number, whose text is token
      throw InputError(
          path_ + ": " + lineColumn(text_, position - std::min(position, token.size())),
          truncateUtf8(token, 40) + " (a number too large for a double)", "a finite number");
    throw InputError(path_, "malformed JSON (" + std::string(ex.what()) + ")", "valid JSON");
  }
  // NOLINTEND(readability-identifier-naming)

 private:
  // Where the next value goes: the top level, the end of the open array, or the slot of the
  // key just read in the open object.
  template <class V>
  json* put(V&& v) {
    if (stack_.empty()) {
      result_ = json(std::forward<V>(v));
      return &result_;
    }
    if (stack_.back()->is_array()) {
      auto& array = stack_.back()->get_ref<json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *slot_ = json(std::forward<V>(v));
    return slot_;
  }
  void enter() {
    if (++depth_ > kMaxJsonDepth)
      throw InputError(
          path_, "arrays or objects nested more than " + std::to_string(kMaxJsonDepth) + " deep",
          "at most " + std::to_string(kMaxJsonDepth) + " levels of nesting");
  }
  bool leave() {
    --depth_;
    stack_.pop_back();
    return true;
  }
  [[noreturn]] void repeatedKey(const std::string& key) const {
    const std::string quoted = "\"" + truncateUtf8(key, 60) + "\"";
    const auto at = repeatedKeyOffsets(text_);
    if (!at) throw InputError(path_, "the key " + quoted + " twice in one object", "each key once");
    throw InputError(
        path_ + ": " + lineColumn(text_, at->first),
        "the key " + quoted + " again (first at " + lineColumn(text_, at->second) + ")",
        "each key once in an object");
  }
  json& result_;
  const std::string& path_;
  const std::string& text_;
  std::vector<json*> stack_;  // the open arrays and objects, innermost last
  json* slot_ = nullptr;      // the value of the key just read
  int depth_ = 0;
};

bool isJsonWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool isStructural(char c) {
  return c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
}

// NOTE [Whitespace beside structure]: nlohmann's lexer reads a character at a time, and files
// written indented (SAILOR's reference data: 60 % of simulator_profiles.json is indentation) spend
// a third of their parse skipping it. The text is parsed without the whitespace that touches a
// structural character ({ } [ ] : ,) outside strings: no two tokens are joined by that (a
// structural character is a token of its own), so the tokens are the same, and with them the
// value and whether the text is valid JSON. Whitespace between two other tokens ("1 2") stays.
// Only the byte positions in error messages differ: on an error the text is parsed as it was.
std::string compactWhitespace(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (isJsonWhitespace(c)) {
      std::size_t end = i;
      while (end < text.size() && isJsonWhitespace(text[end])) ++end;
      const bool after = out.empty() || isStructural(out.back());
      const bool before = end == text.size() || isStructural(text[end]);
      if (!after && !before) out.append(text, i, end - i);
      i = end;
      continue;
    }
    if (c == '"') in_string = true;
    out.push_back(c);
    ++i;
  }
  return out;
}

}  // namespace

json readFile(const std::string& path) {
  return parseText(readText(path), path);
}

namespace {

// Closes a file descriptor when it goes out of scope.
struct FileCloser {
  int fd;
  ~FileCloser() { ::close(fd); }
};

[[noreturn]] void refuseOver(const std::string& path, const std::string& kind,
                             std::uint64_t max_bytes, const std::string& size) {
  throw InputError(path, "a file of " + size + " bytes",
                   "a " + kind + " of at most " + std::to_string(max_bytes) + " bytes");
}

// Reads fd into buf until n bytes or the end of the file; returns the bytes read.
std::size_t readUpTo(int fd, char* buf, std::size_t n, const std::string& path,
                     const std::string& kind) {
  std::size_t used = 0;
  while (used < n) {
    const ssize_t got = ::read(fd, buf + used, n - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw InputError(path, "a read that failed (" + std::string(std::strerror(errno)) + ")",
                       "a readable " + kind);
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  return used;
}

}  // namespace

// NOTE [Read up to the bound]: the size a file reports bounds nothing: a pipe, a FIFO and a
// character device have none (/dev/zero never ends) and /proc's files say 0. So every file is
// read into a buffer of the bound and one byte more (its pages are touched only as they are
// read), and one that fills it is refused; one byte over tells "over" from "at". The size of a
// regular file refuses it before reading and sizes the one read it usually takes. Opened
// non-blocking, a FIFO without a writer opens at once and reads as empty rather than waiting
// for a writer; reads then block as usual.
std::string readText(const std::string& path, const std::string& kind, std::uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, "a directory", "a readable " + kind);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path, "a file that cannot be opened", "a readable " + kind);
  const FileCloser closer{fd};
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
      refuseOver(path, kind, max_bytes, std::to_string(st.st_size));
    std::string text(static_cast<std::size_t>(st.st_size) + 1, '\0');
    const std::size_t used = readUpTo(fd, text.data(), text.size(), path, kind);
    if (used < text.size()) {  // the usual case: its size, in one read
      text.resize(used);
      return text;
    }
    ::lseek(fd, 0, SEEK_SET);  // it grew while being read: again, as a file of no size
  }
  const auto limit = static_cast<std::size_t>(max_bytes) + 1;
  const std::unique_ptr<char[]> buffer(new char[limit]);
  const std::size_t used = readUpTo(fd, buffer.get(), limit, path, kind);
  if (used > max_bytes) refuseOver(path, kind, max_bytes, "more than " + std::to_string(max_bytes));
  return std::string(buffer.get(), used);
}

json parseText(const std::string& text, const std::string& what) {
  if (text.size() > kMaxJsonFileBytes)
    throw InputError(what, "a text of " + std::to_string(text.size()) + " bytes",
                     "JSON of at most " + std::to_string(kMaxJsonFileBytes) + " bytes");
  json result;
  // NOTE [Whitespace beside structure]
  const std::string compact = compactWhitespace(text);
  if (compact.size() < text.size()) {
    try {
      BoundedDomParser sax(result, what, compact);
      json::sax_parse(compact, &sax);
      return result;
    } catch (const InputError&) {
      result = json();  // the same error again below, with the text's own positions
    }
  }
  BoundedDomParser sax(result, what, text);
  json::sax_parse(text, &sax);
  return result;
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
