// Mutation test of the command line's input handling. From valid inputs of each kind
// (the shipped scenario, job and plan, the points file and reference directory of
// tests/data/mutation, a trace built from the default scenario's pools, SAILOR-layout
// cluster/quotas.json) it makes malformed variants by fixed rules and a fixed seed: 100,000
// nested brackets, 1e309, denormals, huge and negative numbers, wrong types, missing and unknown
// keys, duplicates, empty containers, truncation, invalid UTF-8, control characters, 1 MB
// strings, empty files, directories, binary garbage; for traces bad cells, columns and lines.
// Each variant runs through `sailor` (simulate, validate or plan with small search settings),
// two at a time, and must: exit 0, 2 or 3 (never 1, never a signal) within a generous hang
// bound; exit 2 where the input cannot be valid; on 2 and 3 print exactly one line of valid
// UTF-8 on stderr; on 0 print valid UTF-8 on stdout with no inf or nan figure (every other
// variant asks for --json, whose output must parse, and every figure of which must be finite,
// and not below 0 where it is a time, a size, a price or a rate).
//
// Three more classes cross the kinds: device files (/dev/zero, /dev/urandom, /dev/null,
// /dev/full, /proc/self/mem, FIFOs fed endlessly or once, directories, symlink loops, dangling
// links, a sparse 4 GiB file) at every input path of simulate, plan and validate, run in 1 GiB of
// address space; every key of every JSON input written twice (exit 2 naming the key); and the
// figures of a reference directory (a made-up one, and the shared checkout's SAILOR files when
// ../shared is there) replaced by extreme values (exit 2 naming the file, or finite figures).
//
// SAILOR_MUTATIONS_PER_KIND=N runs N variants of each kind and of each of the three classes
// (0: all of them; default 320).
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include "test_time.hpp"

using nlohmann::json;

namespace {

enum class Kind { Scenario, Job, Plan, Points, Trace, Quotas };

const char* kindName(Kind k) {
  switch (k) {
    case Kind::Scenario: return "scenario";
    case Kind::Job: return "job";
    case Kind::Plan: return "plan";
    case Kind::Points: return "points";
    case Kind::Trace: return "trace";
    case Kind::Quotas: return "quotas";
  }
  return "?";
}

// One malformed input: its text is made when it runs (some are megabytes).
struct Variant {
  std::string name;   // what was changed where, e.g. "1e309 at pools[0].count"
  std::string group;  // its class, for the selection and the counts
  std::function<std::string()> text;
  bool directory = false;    // the path given is a directory
  bool must_refuse = false;  // no valid input can look like this: exit 2
  bool also_plan = false;    // scenario and job: also through `sailor plan`
  // The device-file, duplicate-key and reference-value classes write their own files: under the
  // variant's directory, returning the argument lists of `sailor` to run (empty: `text` is used).
  std::function<std::vector<QStringList>(const QString& dir)> prepare = {};
  std::vector<std::string> needles = {};  // on exit 2, each must be on stderr (the field named)
};

// Small search settings: a plan search in well under a second.
const QStringList kSmallPlan{"--max-stages", "2", "--microbatch-sizes", "1,2", "--threads", "1",
                             "--top",        "2"};

QString resources() {
  const QByteArray env = qgetenv("SAILOR_RESOURCES");
  return env.isEmpty() ? QString(SAILOR_TEST_RESOURCES) : QString::fromLocal8Bit(env);
}

std::string readText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool validUtf8(const QByteArray& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.constData());
  const qsizetype n = s.size();
  for (qsizetype i = 0; i < n;) {
    const unsigned char c = p[i];
    int len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else return false;
    if (i + len > n) return false;
    for (int k = 1; k < len; ++k) {
      const unsigned char b = p[i + k];
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
    }
    i += len;
  }
  return true;
}

// Bytes shown in a failure report: printable ASCII as is, the rest as \xNN; at most `max`.
QString shown(const QByteArray& s, int max = 600) {
  QString out;
  for (qsizetype i = 0; i < s.size() && out.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n";
    else if (c >= 0x20 && c < 0x7F) out += QChar(c);
    else out += QString("\\x%1").arg(c, 2, 16, QChar('0'));
  }
  if (out.size() >= max) out += "...";
  return out;
}

// ---- JSON mutations -------------------------------------------------------------------------

const std::string kMark = "@@mutation@@";
const std::string kKeyMark = "@@mutation-key@@";

std::string nested(int depth) {
  return std::string(static_cast<size_t>(depth), '[') +
         std::string(static_cast<size_t>(depth), ']');
}

std::string replaceFirst(std::string text, const std::string& what, const std::string& with) {
  const auto at = text.find(what);
  if (at != std::string::npos) text.replace(at, what.size(), with);
  return text;
}

// doc with the value at ptr written as `raw` (any bytes, valid JSON or not).
std::string withRaw(json doc, const json::json_pointer& ptr, const std::string& raw) {
  doc[ptr] = kMark;
  return replaceFirst(doc.dump(2), "\"" + kMark + "\"", raw);
}

// doc with a key written as `raw_key` added to the object at ptr.
std::string withRawKey(json doc, const json::json_pointer& ptr, const std::string& raw_key) {
  doc[ptr][kKeyMark] = 1;
  return replaceFirst(doc.dump(2), "\"" + kKeyMark + "\"", raw_key);
}

// "pools[0].count" for the pointer /pools/0/count.
std::string fieldName(const json& doc, const json::json_pointer& ptr) {
  if (ptr.empty()) return "(top level)";
  std::string parent = fieldName(doc, ptr.parent_pointer());
  if (parent == "(top level)") parent.clear();
  const std::string last = ptr.back();
  if (doc.at(ptr.parent_pointer()).is_array()) return parent + "[" + last + "]";
  return parent.empty() ? last : parent + "." + last;
}

void collectPointers(const json& v, const json::json_pointer& at,
                     std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (v.is_object())
    for (auto it = v.begin(); it != v.end(); ++it) collectPointers(it.value(), at / it.key(), out);
  else if (v.is_array())
    for (size_t i = 0; i < v.size(); ++i) collectPointers(v[i], at / i, out);
}

struct RawValue {
  std::string group;
  std::string text;
  std::string label;
  bool must_refuse = false;
};

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s += static_cast<char>(c);
  return s;
}

// Values written in place of a leaf or a container. Numbers get the numeric ones, strings the
// string ones, every node the rest.
std::vector<RawValue> rawValues(const json& v) {
  std::vector<RawValue> out;
  if (v.is_number()) {
    for (const char* x : {"1e309", "-1e309", "1E400"}) out.push_back({"1e309", x, x, true});
    for (const char* x : {"5e-324", "4.9e-324", "-5e-324", "2.2250738585072014e-308"})
      out.push_back({"denormal", x, x});
    for (const char* x : {"1e18", "-1e18", "4294967296", "-4294967296", "2147483648", "2147483647",
                          "-1", "0", "-0", "1.5", "9007199254740993", "1e-300"})
      out.push_back({"numeric-edge", x, x});
  }
  if (v.is_string()) {
    out.push_back({"string-edge", "\"\"", "\"\""});
    out.push_back({"string-edge", "\" \"", "\" \""});
    out.push_back({"string-edge", "\"\\u00e9\\u4e2d\\ud83d\\ude00\"", "non-ASCII"});
    out.push_back({"string-edge", "\"" + v.get<std::string>() + " \"", "trailing space"});
    out.push_back({"control", "\"a\\nb\\rc\"", "escaped newline and CR"});
    out.push_back({"control", "\"a\\u0000b\"", "escaped NUL"});
    out.push_back({"control", "\"\\u001b[31mred\\u007f\"", "escaped ESC and DEL"});
    out.push_back({"utf8", "\"\\ud800\"", "escaped lone surrogate", true});
  }
  out.push_back({"wrong-type", "\"7\"", "a string"});
  out.push_back({"wrong-type", "{}", "an object"});
  out.push_back({"wrong-type", "[]", "an array"});
  out.push_back({"wrong-type", "null", "null"});
  out.push_back({"wrong-type", "true", "true"});
  out.push_back({"wrong-type", "false", "false"});
  out.push_back({"wrong-type", "[1, 2]", "an array of numbers"});
  out.push_back({"wrong-type", R"({"a": 1})", "an object with a key"});
  out.push_back({"nested", nested(100000), "100000 nested brackets", true});
  out.push_back({"long-string", "\"" + std::string(1 << 20, 'a') + "\"", "a 1 MB string"});
  out.push_back({"long-string", "\"" + std::string(1 << 20, ' ') + "\"", "1 MB of spaces"});
  out.push_back({"utf8", "\"a" + bytes({0x80}) + "b\"", "a lone continuation byte", true});
  out.push_back({"utf8", "\"a" + bytes({0xE2, 0x82}) + "\"", "a truncated 3-byte sequence", true});
  out.push_back({"utf8", "\"" + bytes({0xC0, 0xAF}) + "\"", "an overlong '/'", true});
  out.push_back({"utf8", "\"" + bytes({0xFF}) + "\"", "byte 0xFF", true});
  out.push_back({"utf8", "\"" + bytes({0xED, 0xA0, 0x80}) + "\"", "an encoded surrogate", true});
  out.push_back({"control-raw", "\"a" + bytes({0x01}) + "b\"", "a raw 0x01 in a string", true});
  out.push_back({"control-raw", std::string("\"a\0b\"", 5), "a raw NUL in a string", true});
  return out;
}

// Every value, key and container mutation of `doc` (named after its fields).
std::vector<Variant> jsonNodeVariants(const json& doc) {
  std::vector<Variant> out;
  std::vector<json::json_pointer> ptrs;
  collectPointers(doc, json::json_pointer(), ptrs);
  for (const auto& ptr : ptrs) {
    const json& v = doc.at(ptr);
    const std::string field = fieldName(doc, ptr);
    if (!ptr.empty())
      for (const RawValue& r : rawValues(v))
        out.push_back({r.label + " at " + field, r.group,
                       [doc, ptr, t = r.text] { return withRaw(doc, ptr, t); }, false,
                       r.must_refuse});
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        json d = doc;
        d[ptr].erase(it.key());
        out.push_back(
            {"no " + it.key() + " in " + field, "missing-key", [t = d.dump(2)] { return t; }});
      }
      auto key = [&](const std::string& group, const std::string& raw, const std::string& label,
                     bool refuse) {
        out.push_back({label + " as a key of " + field, group,
                       [doc, ptr, raw] { return withRawKey(doc, ptr, raw); }, false, refuse});
      };
      key("unknown-key", "\"unknown_field\"", "an unknown key", false);
      key("control", "\"a\\nb\\u0000\"", "an escaped newline and NUL", false);
      key("long-string", "\"" + std::string(1 << 20, 'k') + "\"", "a 1 MB key", false);
      key("utf8", "\"k" + bytes({0x80}) + "\"", "a lone continuation byte", true);
      key("utf8", "\"k" + bytes({0xE2, 0x82}) + "\"", "a truncated sequence", true);
      key("utf8", "\"" + bytes({0xC0, 0xAF}) + "\"", "an overlong '/'", true);
      key("utf8", "\"" + bytes({0xFF}) + "\"", "byte 0xFF", true);
      if (!ptr.empty())
        out.push_back(
            {"empty object at " + field, "empty", [doc, ptr] { return withRaw(doc, ptr, "{}"); }});
    }
    if (v.is_array() && !v.empty()) {
      out.push_back(
          {"empty array at " + field, "empty", [doc, ptr] { return withRaw(doc, ptr, "[]"); }});
      for (size_t i : {size_t{0}, v.size() - 1}) {
        json d = doc;
        d[ptr].push_back(v[i]);
        out.push_back({"element " + std::to_string(i) + " of " + field + " twice", "duplicate",
                       [t = d.dump(2)] { return t; }});
      }
      json d = doc;
      d[ptr].erase(0);
      out.push_back(
          {"element 0 of " + field + " removed", "missing-key", [t = d.dump(2)] { return t; }});
    }
  }
  return out;
}

// Variants of the file as a whole: empty, a directory, nesting, garbage, truncation. `text` is
// the valid file; `closing` is how far a cut is certain to leave it invalid.
std::vector<Variant> fileVariants(const std::string& text, size_t closing, std::mt19937& rng,
                                  bool json_kind) {
  std::vector<Variant> out;
  auto add = [&](std::string name, std::string group, std::string t, bool refuse) {
    out.push_back(
        {std::move(name), std::move(group), [t = std::move(t)] { return t; }, false, refuse});
  };
  add("an empty file", "file", "", true);
  add("only whitespace", "file", " \n\t\r\n", true);
  out.push_back({"a directory as the file", "file", [] { return std::string(); }, true, true});
  add("a UTF-8 byte order mark first", "file", "\xEF\xBB\xBF" + text, false);
  add("a NUL byte first", "control-raw", std::string(1, '\0') + text, true);
  add("0xFF first", "utf8", bytes({0xFF}) + text, true);
  if (json_kind) {
    add("trailing garbage", "file", text + " }x", true);
    add("a top-level array", "wrong-type", "[" + text + "]", true);
    add("a top-level null", "wrong-type", "null", true);
    add("a top-level 1e309", "1e309", "1e309", true);
    add("100000 nested brackets (whole file)", "nested", nested(100000), true);
    add("100000 unclosed brackets (whole file)", "nested", std::string(100000, '['), true);
    std::string objs;
    for (int i = 0; i < 100000; ++i) objs += "{\"a\":";
    add("100000 nested objects (whole file)", "nested", objs + "1" + std::string(100000, '}'),
        true);
  }
  for (int k = 0; k < 16; ++k) {
    const size_t n = std::uniform_int_distribution<size_t>(8, 4096)(rng);
    std::string g(n, '\0');
    for (auto& c : g) c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    add("binary garbage " + std::to_string(k) + " (" + std::to_string(n) + " bytes)", "binary", g,
        true);
  }
  // Cuts: every offset of a small file, a sample of a large one.
  std::vector<size_t> cuts;
  if (closing <= 400) {
    for (size_t i = 1; i < closing; ++i) cuts.push_back(i);
  } else {
    for (int k = 0; k < 80; ++k)
      cuts.push_back(std::uniform_int_distribution<size_t>(1, closing - 1)(rng));
  }
  for (size_t c : cuts)
    add("truncated at byte " + std::to_string(c), "truncated", text.substr(0, c), json_kind);
  for (int k = 0; k < 8; ++k) {
    const size_t at = std::uniform_int_distribution<size_t>(1, closing - 1)(rng);
    std::string t = text;
    t.insert(at, 1, '\0');
    add("a NUL byte at " + std::to_string(at), "control-raw", t, json_kind);
  }
  return out;
}

// ---- trace mutations ------------------------------------------------------------------------

using Csv = std::vector<std::vector<std::string>>;

std::string joinCsv(const Csv& rows, const std::string& eol = "\n") {
  std::string out;
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + r[i];
    out += eol;
  }
  return out;
}

// A trace of the default scenario's pools: two rows, the pools' counts and half of them.
Csv baseTrace(const json& scenario) {
  Csv rows(3);
  rows[0] = {"", "Timestamp"};
  rows[1] = {"0", "1712574014.0187"};
  rows[2] = {"1", "1712574137.19241"};
  for (const auto& p : scenario.at("pools")) {
    rows[0].push_back(p.at("gpu_type").get<std::string>() + "_" + p.at("zone").get<std::string>());
    rows[1].push_back(std::to_string(p.at("count").get<int>()));
    rows[2].push_back(std::to_string(p.at("count").get<int>() / 2));
  }
  return rows;
}

struct Cell {
  std::string text;
  std::string label;
  bool refused;  // in a count column
};

std::vector<Cell> traceCells() {
  std::vector<Cell> out = {
      {"0x10", "hex 0x10", true},
      {"1e3", "1e3", true},
      {"-1", "-1", true},
      {"+7", "+7", true},
      {"4294967296", "4294967296", true},
      {"2147483648", "2^31", true},
      {"1000001", "above the pool bound", true},
      {"nan", "nan", true},
      {"inf", "inf", true},
      {"-inf", "-inf", true},
      {"1e309", "1e309", true},
      {"5e-324", "5e-324", true},
      {"4.9e-324", "4.9e-324", true},
      {"7.5", "7.5", true},
      {"", "an empty cell", true},
      {"\"7\"", "a quoted 7", true},
      {"7 7", "two numbers", true},
      {"\xEF\xBC\x97", "a fullwidth 7", true},
      {"\xD9\xA7", "an Arabic-Indic 7", true},
      {bytes({0xFF}), "byte 0xFF", true},
      {"7" + bytes({0x80}), "a lone continuation byte", true},
      {bytes({0xE2, 0x82}), "a truncated sequence", true},
      {bytes({0xC0, 0xB7}), "an overlong 7", true},
      {std::string("7\0", 2), "a NUL after 7", true},
      {"7\x01", "0x01 after 7", true},
      {std::string(1 << 20, '9'), "a 1 MB number", true},
      {std::string(100000, '['), "100000 brackets", true},
      {" 7 ", "' 7 '", false},
      {" 7", "' 7'", false},
      {"7 ", "'7 '", false},
      {"\t7", "a tab before 7", false},
      {"7.0", "7.0", false},
      {"0", "0", false},
      {"1000000", "the pool bound", false},
      {"00000000000000000000007", "leading zeros", false},
  };
  return out;
}

std::vector<Variant> traceVariants(const Csv& base, std::mt19937& rng) {
  std::vector<Variant> out;
  auto add = [&](std::string name, std::string group, std::string t, bool refuse) {
    out.push_back(
        {std::move(name), std::move(group), [t = std::move(t)] { return t; }, false, refuse});
  };
  const std::vector<Cell> cells = traceCells();
  for (size_t col = 0; col < base[0].size(); ++col)
    for (const Cell& c : cells) {
      // A row label may read "nan": only counts are checked for non-finite figures.
      if (col < 2 && (c.text == "nan" || c.text == "inf" || c.text == "-inf")) continue;
      Csv t = base;
      t[2][col] = c.text;
      const bool count = col >= 2;
      const bool bad_utf8 = !validUtf8(QByteArray::fromStdString(c.text));
      add(c.label + " in row 2, column " + std::to_string(col), count ? "cell" : "label-cell",
          joinCsv(t), (count && c.refused) || bad_utf8);
    }
  const std::string first = base[0][2];
  auto header = [&](const std::string& name, const std::string& col_name, bool refuse) {
    Csv t = base;
    t[0][2] = col_name;
    add(name, "header", joinCsv(t), refuse);
  };
  header("an unknown GPU column", "B999_us-central1-a", true);
  header("an unknown zone column", "A100-40_mars-north1-a", false);
  header("a column without a zone", "A100-40_", true);
  header("a column without a GPU type", "_us-central1-a", false);
  header("a 1 MB column name", "A100-40_" + std::string(1 << 20, 'z'), false);
  header("0xFF in a column's zone", "A100-40_us-" + bytes({0xFF}), true);
  header("0xFF in a column's GPU type", "A100" + bytes({0xFF}) + "_us-central1-a", true);
  header("a truncated sequence in a column", "A100-40_" + bytes({0xE2, 0x82}), true);
  header("the second column's name twice", base[0][3], true);
  header("a column with a NUL", std::string("A100-40_us-central1-a\0", 22), true);
  {
    Csv t = base;
    for (auto& r : t) r.push_back(r[2]);
    add("a column repeated with its cells", "header", joinCsv(t), true);
  }
  {
    Csv t = base;
    for (auto& r : t) r.erase(r.begin() + 2);
    add("a column removed", "header", joinCsv(t), false);
  }
  {
    Csv t = base;
    t[0].erase(t[0].begin() + 2);
    add("a header cell missing (rows one cell longer)", "header", joinCsv(t), false);
  }
  {
    Csv t = base;
    t[0].push_back("A100-40_us-west1-b");
    add("an extra header cell (rows one cell short)", "header", joinCsv(t), true);
  }
  {
    Csv t = base;
    t[0].push_back("extra");
    add("an extra non-count header cell", "header", joinCsv(t), false);
  }
  auto lines = [&](const std::string& name, std::string t, bool refuse) {
    add(name, "lines", std::move(t), refuse);
  };
  lines("CRLF line ends", joinCsv(base, "\r\n"), false);
  lines("CR line ends", joinCsv(base, "\r"), true);
  lines("no final newline", joinCsv(base).substr(0, joinCsv(base).size() - 1), false);
  lines("blank lines", "\n\n" + joinCsv({base[0]}) + "\n\n" + joinCsv({base[1], base[2]}) + "\n",
        false);
  lines("only the header", joinCsv({base[0]}), true);
  lines("no header", joinCsv({base[1], base[2]}), true);
  {
    Csv t = base;
    t[2].push_back("5");
    t[2].push_back("6");
    lines("a row with two cells too many", joinCsv(t), false);
  }
  {
    Csv t = base;
    t[2].pop_back();
    lines("a row one cell short", joinCsv(t), true);
  }
  {
    Csv t = base;
    t[2].resize(1);
    lines("a row of one cell", joinCsv(t), true);
  }
  {
    Csv t = base;
    t[2].push_back(std::string(1 << 20, 'x'));
    lines("a 1 MB line", joinCsv(t), false);
  }
  {
    Csv t = base;
    t[2][1] = std::string(1 << 20, 'L');
    lines("a 1 MB row label", joinCsv(t), false);
  }
  {
    Csv t = base;
    for (int k = 0; k < 100; ++k) t.push_back(base[2]);
    lines("100 more rows", joinCsv(t), false);
  }
  {
    Csv t = base;
    for (auto& r : t) r.resize(2);
    lines("no count columns", joinCsv(t), true);
  }
  {
    Csv t = base;
    for (size_t c = 2; c < t[1].size(); ++c) t[1][c] = t[2][c] = "0";
    lines("every count 0 (no plan)", joinCsv(t), false);
  }
  const std::string text = joinCsv(base);
  for (Variant& v : fileVariants(text, text.size() - 1, rng, false)) out.push_back(std::move(v));
  (void)first;
  return out;
}

// ---- selection ------------------------------------------------------------------------------

// Up to `n` variants (0: all), taking the groups in turn, each in a seeded order, so that every
// class is represented; the order of `all` otherwise.
std::vector<Variant> select(std::vector<Variant> all, size_t n, std::mt19937& rng) {
  if (n == 0 || all.size() <= n) return all;
  std::map<std::string, std::vector<Variant>> groups;
  for (Variant& v : all) groups[v.group].push_back(std::move(v));
  for (auto& [g, vs] : groups) std::shuffle(vs.begin(), vs.end(), rng);
  std::vector<Variant> out;
  std::map<std::string, size_t> taken;
  while (out.size() < n) {
    bool any = false;
    for (auto& [g, vs] : groups)
      if (taken[g] < vs.size() && out.size() < n) {
        out.push_back(std::move(vs[taken[g]++]));
        any = true;
      }
    if (!any) break;
  }
  return out;
}

size_t perKind() {
  const QByteArray env = qgetenv("SAILOR_MUTATIONS_PER_KIND");
  bool ok = false;
  const int n = env.toInt(&ok);
  return ok && n >= 0 ? static_cast<size_t>(n) : 320;
}

// ---- running --------------------------------------------------------------------------------

struct Run {
  size_t variant;
  QStringList args;
};

struct Outcome {
  bool started = false;
  bool crashed = false;
  bool timed_out = false;
  int exit_code = -1;
  QByteArray out, err;
};

// Runs `sailor` with each argument list, `parallel` at a time; each is killed after `limit_ms`.
// `address_space_bytes` above 0 bounds each run's address space (RLIMIT_AS, set in the child),
// so that a read without bound fails (bad_alloc) instead of filling the machine's memory.
std::vector<Outcome> runAll(const std::vector<QStringList>& runs, int parallel, int limit_ms,
                            rlim_t address_space_bytes = 0) {
  std::vector<Outcome> out(runs.size());
  struct Slot {
    std::unique_ptr<QProcess> p;
    size_t i;
    QElapsedTimer t;
  };
  std::vector<Slot> running;
  size_t next = 0;
  while (next < runs.size() || !running.empty()) {
    while (static_cast<int>(running.size()) < parallel && next < runs.size()) {
      Slot s{std::make_unique<QProcess>(), next++, {}};
      s.t.start();
      if (address_space_bytes > 0)
        s.p->setChildProcessModifier([address_space_bytes] {
          const rlimit bound{address_space_bytes, address_space_bytes};
          ::setrlimit(RLIMIT_AS, &bound);
        });
      s.p->start(SAILOR_BIN, runs[s.i]);
      out[s.i].started = s.p->waitForStarted(10000);
      running.push_back(std::move(s));
    }
    for (auto it = running.begin(); it != running.end();) {
      QProcess& p = *it->p;
      Outcome& o = out[it->i];
      bool done = !o.started || p.state() == QProcess::NotRunning || p.waitForFinished(5);
      if (!done && it->t.elapsed() > limit_ms) {
        p.kill();
        p.waitForFinished(10000);
        o.timed_out = true;
        done = true;
      }
      if (!done) {
        ++it;
        continue;
      }
      o.crashed = o.started && !o.timed_out && p.exitStatus() == QProcess::CrashExit;
      o.exit_code = p.exitCode();
      o.out = p.readAllStandardOutput();
      o.err = p.readAllStandardError();
      it = running.erase(it);
    }
  }
  return out;
}

// Whether a key of the JSON output names a time, a size, a price or a rate (iteration_s,
// peak_memory_bytes, usd_per_hour, tokens_per_s, search_seconds): a figure never below 0.
// Relative errors (time_error) and the like may be negative.
bool nonNegativeKey(const std::string& key) {
  auto ends = [&](const std::string& tail) {
    return key.size() >= tail.size() &&
           key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends("_s") || ends("bytes") || ends("seconds") || ends("gpus") ||
         key.find("usd") != std::string::npos || key.find("per_hour") != std::string::npos;
}

// Where the JSON output holds a figure that is not finite, or a negative time, size, price or
// rate; empty: nowhere. `at` is the path so far, `key` the last object key on it.
std::string badFigure(const json& v, const std::string& at, const std::string& key) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (std::string b = badFigure(it.value(), at + "." + it.key(), it.key()); !b.empty())
        return b;
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i)
      if (std::string b = badFigure(v[i], at + "[" + std::to_string(i) + "]", key); !b.empty())
        return b;
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return at + " = " + v.dump();
    if (d < 0 && nonNegativeKey(key)) return at + " = " + v.dump() + " (below 0)";
  } else if (v.is_number_integer() && !v.is_number_unsigned()) {
    if (v.get<std::int64_t>() < 0 && nonNegativeKey(key))
      return at + " = " + v.dump() + " (below 0)";
  }
  return {};
}

// What is wrong with an outcome (empty: nothing).
QString problem(const Outcome& o, bool must_refuse) {
  static const QRegularExpression kNonFinite(
      "(?<![A-Za-z0-9_])-?(inf|nan|infinity)(?![A-Za-z0-9_])",
      QRegularExpression::CaseInsensitiveOption);
  // A time, size, rate or price below 0 (an overflowed count makes them): "-2454577970057.00
  // GiB", "$-0.05". Relative errors ("-3.1%") may be negative.
  static const QRegularExpression kNegative(
      R"((?<![\w.])-\d[\d,]*(\.\d+)?\s?(s|ms|us|GiB|MiB|KiB|GB|MB|B|it/s|tokens/s)(?![\w/])|\$-)");
  if (!o.started) return "did not start";
  if (o.timed_out) return "still running at the time bound (killed)";
  if (o.crashed) return "killed by a signal";
  if (o.exit_code != 0 && o.exit_code != 2 && o.exit_code != 3)
    return QString("exit %1 (expected 0, 2 or 3)").arg(o.exit_code);
  if (must_refuse && o.exit_code != 2) return QString("exit %1 (expected 2)").arg(o.exit_code);
  if (o.exit_code == 0) {
    if (!validUtf8(o.out)) return "stdout is not valid UTF-8";
    if (o.out.startsWith('{') || o.out.startsWith('[')) {
      QJsonParseError error{};
      QJsonDocument::fromJson(o.out, &error);
      if (error.error != QJsonParseError::NoError)
        return "stdout is not valid JSON: " + error.errorString();
      // Every figure finite; times, sizes, prices and rates not below 0.
      const json doc = json::parse(o.out.toStdString(), nullptr, false);
      if (doc.is_discarded()) return "stdout is not JSON that nlohmann reads";
      if (const std::string b = badFigure(doc, "", ""); !b.empty())
        return "stdout's JSON has a figure out of range: " + QString::fromStdString(b);
    }
    const QString out = QString::fromUtf8(o.out);
    const auto m = kNonFinite.match(out);
    if (m.hasMatch()) return "stdout shows a non-finite figure: \"" + m.captured(0) + "\"";
    const auto n = kNegative.match(out);
    if (n.hasMatch()) return "stdout shows a negative amount: \"" + n.captured(0) + "\"";
    return {};
  }
  QByteArray line = o.err;
  if (line.endsWith('\n')) line.chop(1);
  if (line.isEmpty()) return "nothing on stderr";
  if (!validUtf8(line)) return "stderr is not valid UTF-8";
  for (char c : line)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F)
      return line.contains('\n') ? "stderr is more than one line"
                                 : "stderr has a control character";
  if (!line.startsWith("sailor ")) return "stderr is not a message of sailor's";
  return {};
}

// Arguments of `sailor` for a variant's file: the kind's command, and the plan search too for
// scenario and job variants marked also_plan.
std::vector<QStringList> commandsOf(Kind kind, const QString& file, const QString& dir,
                                    bool also_plan) {
  const QString sc = resources() + "/scenarios/default.json";
  const QString job = resources() + "/jobs/default.json";
  const QString plan = resources() + "/plans/default.json";
  switch (kind) {
    case Kind::Scenario: {
      std::vector<QStringList> r{{"simulate", "--scenario", file, "--job", job, "--plan", plan}};
      if (also_plan)
        r.push_back(QStringList{"plan", "--scenario", file, "--job", job} + kSmallPlan);
      return r;
    }
    case Kind::Job: {
      std::vector<QStringList> r{{"simulate", "--scenario", sc, "--job", file, "--plan", plan}};
      if (also_plan) r.push_back(QStringList{"plan", "--job", file} + kSmallPlan);
      return r;
    }
    case Kind::Plan: return {{"simulate", "--scenario", sc, "--job", job, "--plan", file}};
    case Kind::Points:
      return {{"validate", file, "--reference", QString(SAILOR_TEST_DATA) + "/reference"}};
    case Kind::Trace: return {QStringList{"plan", "--trace", file, "--job", job} + kSmallPlan};
    case Kind::Quotas: return {QStringList{"plan", "--reference", dir, "--job", job} + kSmallPlan};
  }
  return {};
}

// Arguments of `sailor` for a variant's file, with --json when `as_json` (the output written
// as JSON must stay writable whatever the input held).
std::vector<QStringList> commandsFor(Kind kind, const QString& file, const QString& dir,
                                     bool also_plan, bool as_json = false) {
  std::vector<QStringList> r = commandsOf(kind, file, dir, also_plan);
  if (as_json)
    for (QStringList& args : r) args << "--json";
  return r;
}

// Writes a variant's input under `root` (its own directory, for the quotas' reference layout);
// returns the file path and the directory to give.
std::pair<QString, QString> writeVariant(Kind kind, const Variant& v, const QString& root,
                                         size_t i) {
  const QString dir = root + "/v" + QString::number(i);
  QDir().mkpath(dir);
  QString file = dir + "/input";
  if (kind == Kind::Quotas) {
    QDir().mkpath(dir + "/profiles");
    QDir().mkpath(dir + "/cluster");
    for (const char* f : {"simulator_profiles.json", "llm_info.json"})
      QFile::copy(QString(SAILOR_TEST_DATA) + "/reference/profiles/" + f, dir + "/profiles/" + f);
    file = dir + "/cluster/quotas.json";
  }
  if (v.directory) {
    QDir().mkpath(file);
  } else {
    QFile f(file);
    if (f.open(QIODevice::WriteOnly)) f.write(QByteArray::fromStdString(v.text()));
  }
  return {file, dir};
}

struct KindResult {
  size_t variants = 0;
  size_t runs = 0;
  double seconds = 0;
  QStringList failures;
  std::map<std::string, std::map<int, int>> exits;  // by group: runs by exit code (-1: none)
};

// Runs every variant of a kind and reports each one whose outcome breaks the contract.
KindResult runVariants(Kind kind, const std::vector<Variant>& variants, QTemporaryDir& tmp) {
  KindResult res;
  QElapsedTimer clock;
  clock.start();
  std::vector<QStringList> runs;
  std::vector<size_t> of;  // the variant of each run
  for (size_t i = 0; i < variants.size(); ++i) {
    const auto [file, dir] = writeVariant(kind, variants[i], tmp.path(), i);
    // Every other variant prints JSON: both outputs are checked.
    for (const QStringList& a : commandsFor(kind, file, dir, variants[i].also_plan, i % 2 == 1)) {
      runs.push_back(a);
      of.push_back(i);
    }
  }
  const std::vector<Outcome> outcomes = runAll(runs, 2, sailor::test::scaledMs(30000));
  for (size_t r = 0; r < runs.size(); ++r) {
    const Variant& v = variants[of[r]];
    const QString why = problem(outcomes[r], v.must_refuse);
    if (why.isEmpty()) continue;
    res.failures << QString("%1 variant \"%2\" (%3): %4\n  command: sailor %5\n  stderr: %6")
                        .arg(kindName(kind), QString::fromStdString(v.name),
                             QString::fromStdString(v.group), why, runs[r].join(' '),
                             shown(outcomes[r].err));
  }
  res.variants = variants.size();
  res.runs = runs.size();
  res.seconds = static_cast<double>(clock.elapsed()) / 1000.0;
  return res;
}

json loadJson(const QString& path) {
  return json::parse(readText(path));
}

QString basePath(Kind kind) {
  switch (kind) {
    case Kind::Scenario: return resources() + "/scenarios/default.json";
    case Kind::Job: return resources() + "/jobs/default.json";
    case Kind::Plan: return resources() + "/plans/default.json";
    case Kind::Points: return QString(SAILOR_TEST_DATA) + "/points.json";
    default: return {};
  }
}

constexpr const char* kQuotas =
    R"({"A100-40": {"us-central1-a": 8, "us-central1-b": 8}, "V100-16": {"us-central1-a": 4, "us-west1-b": 2}})";

// The valid input of a kind, as text.
std::string baseText(Kind kind) {
  if (kind == Kind::Trace) return joinCsv(baseTrace(loadJson(basePath(Kind::Scenario))));
  if (kind == Kind::Quotas) return kQuotas;
  return readText(basePath(kind));
}

// Every variant of a kind, in a fixed order for a fixed seed.
std::vector<Variant> variantsOf(Kind kind, std::mt19937& rng) {
  const std::string text = baseText(kind);
  if (kind == Kind::Trace) return traceVariants(baseTrace(loadJson(basePath(Kind::Scenario))), rng);
  const json doc = json::parse(text);
  std::vector<Variant> all = jsonNodeVariants(doc);
  const size_t closing = text.rfind('}');
  for (Variant& v : fileVariants(text, closing, rng, true)) all.push_back(std::move(v));
  if (kind == Kind::Scenario || kind == Kind::Job)
    for (Variant& v : all)
      v.also_plan = v.group == "denormal" || v.group == "numeric-edge" || v.group == "duplicate" ||
                    v.group == "empty" || v.group == "missing-key";
  return all;
}

// ---- inputs for the device-file, duplicate-key and reference-value classes -----------------

// A made-up reference directory in SAILOR's layout (not measurements): OPT-350 profiled on
// A100-40 (microbatch 1 at tp 1 and 2, microbatch 2 at tp 1; 26 layers, as the catalogue plans
// OPT-350M), network fits among the three zones of points.json, egress prices, the node size and
// quotas. Every figure of it is a value the reference-value class replaces; with it `sailor
// validate` predicts points.json and `sailor plan --reference` finds plans.
std::map<std::string, json> madeUpReference() {
  const std::vector<std::string> zones{"us-central1-a", "us-central1-b", "us-west1-b"};
  auto timings = [](int mbs, int tp) {
    json layers = json::object();
    for (int l = 0; l < 26; ++l) {
      const double scale = static_cast<double>(mbs) / tp;
      const double base = l == 0 ? 0.0004 : l == 25 ? 0.004 : 0.003;
      const double update = (l == 0 ? 0.002 : l == 25 ? 0.003 : 0.0005) / tp;
      layers[std::to_string(l)] = {base * scale, 2 * base * scale, update};  // [fwd, bwd, upd] s
    }
    return layers;
  };
  auto memory = [](int tp) {
    json layers = json::object();
    for (int l = 0; l < 26; ++l) {
      const std::int64_t params = l == 0 ? 53608448 : l == 25 ? 51474432 : 12596224;
      const std::int64_t act = l == 0 ? 2097152 : l == 25 ? 208666624 : 90181632;
      layers[std::to_string(l)] = {{"params_floats", params / tp},
                                   {"act_mem_floats", act / tp},
                                   {"act_output_floats", 2097152}};
    }
    return layers;
  };
  std::map<std::string, json> files;
  files["profiles/simulator_profiles.json"] = {
      {"OPT-350",
       {{"A100-40",
         {{"1", {{"1", timings(1, 1)}, {"2", timings(1, 2)}}}, {"2", {{"1", timings(2, 1)}}}}}}}};
  files["profiles/llm_info.json"] = {{"OPT-350", {{"1", memory(1)}, {"2", memory(2)}}}};
  // [[c0, c1, c2], max_bytes_per_s] by sending zone, GPU, count, receiving zone, GPU, count.
  json net = json::object();
  for (const auto& a : zones)
    for (const char* n : {"1", "4"})
      for (const auto& b : zones)
        net[a]["A100-40"][n][b]["A100-40"][n] = a == b
                                                    ? json::parse("[[-0.0025, 0.14, 1.1], 2.4e9]")
                                                    : json::parse("[[0.0, 0.05, 0.9], 8.0e8]");
  files["network/multizone_bandwidths_het.json"] = net;
  files["network/intra_node_bandwidths.json"] = json::parse(
      R"({"A100-40": {"2": [[0.8, 16.4, 33.0], 2.4e11], "4": [[0.83, 15.6, 31.2], 2.3e11]}})");
  json egress = json::object();
  for (const auto& a : zones)
    for (const auto& b : zones)
      egress[a][b] = a == b ? 0.0 : a.substr(0, 11) == b.substr(0, 11) ? 0.01 : 0.02;
  files["network/egress_cost_usd_per_gb.json"] = egress;
  files["cluster/basic_cluster_config.json"] =
      json::parse(R"({"A100-40": {"gpus_per_node": 4, "mem_per_gpu": 42949672960}})");
  files["cluster/quotas.json"] =
      json::parse(R"({"A100-40": {"us-central1-a": 8, "us-central1-b": 4, "us-west1-b": 4}})");
  return files;
}

// The files of SAILOR's layout that `sailor` reads from a reference directory.
const std::vector<std::string> kReferenceFiles{"profiles/simulator_profiles.json",
                                               "profiles/llm_info.json",
                                               "network/multizone_bandwidths_het.json",
                                               "network/intra_node_bandwidths.json",
                                               "network/egress_cost_usd_per_gb.json",
                                               "cluster/basic_cluster_config.json",
                                               "cluster/quotas.json"};

bool writeFile(const QString& path, const std::string& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  return f.open(QIODevice::WriteOnly) &&
         f.write(QByteArray::fromStdString(text)) == static_cast<qint64>(text.size());
}

// Writes the made-up reference directory at `root` (files whose text is given in `texts` are
// written from there instead).
void writeReference(const QString& root, const std::map<std::string, std::string>& texts = {}) {
  static const std::map<std::string, json> kFiles = madeUpReference();
  for (const auto& [rel, doc] : kFiles)
    if (!texts.count(rel)) writeFile(root + "/" + QString::fromStdString(rel), doc.dump(1));
  for (const auto& [rel, text] : texts) writeFile(root + "/" + QString::fromStdString(rel), text);
}

// The shared checkout's reference directory (SAILOR's published files), if there is one.
QString sharedReference() {
  const QString dir = QString(SAILOR_TEST_SHARED_DIR) + "/reference/sailor";
  for (const std::string& rel : kReferenceFiles)
    if (!QFile::exists(dir + "/" + QString::fromStdString(rel))) return {};
  return dir;
}

// A native profile (docs/formats.md) of OPT-350M on A100-40: made-up timings for its 26 layers.
json nativeProfile() {
  json layers = json::array();
  for (int l = 0; l < 26; ++l) layers.push_back({{"forward_s", 0.003}, {"backward_s", 0.006}});
  return {{"format", "sailor-studio-profile/1"},
          {"model", "OPT-350M"},
          {"gpu_type", "A100-40"},
          {"runs", json::array({{{"microbatch_size", 1},
                                 {"tp", 1},
                                 {"optimizer_seconds_per_parameter", 1e-9},
                                 {"layers", layers}}})}};
}

// A catalogue extension (--catalog): the shipped catalogue's first GPU and first model again.
json catalogExtension() {
  const json gpus = loadJson(resources() + "/catalog/gpus.json");
  const json models = loadJson(resources() + "/catalog/models.json");
  return {{"gpus", json::array({gpus.at("gpus").at(0)})},
          {"models", json::array({models.at("models").at(0)})}};
}

// An input file of `sailor` as the new classes give it: its valid contents, and every command
// that reads it. `rel` empty: the file is given as is; else it is that file of a reference
// directory (the made-up one, written beside it). `dir_option`: the path is a directory option
// (--reference, --sailor-profiles) rather than a file.
struct InputSlot {
  std::string label;  // "scenario", "reference profiles/llm_info.json", ...
  json doc;           // its valid contents when it is JSON (null: not JSON, or a directory)
  std::string text;   // its valid contents as text
  std::string rel;
  bool dir_option = false;
  bool optional = false;         // a reference file that may be absent
  bool needs_reference = false;  // its commands read the made-up reference at dir/ref
  // The runs of `sailor` with the input at `file`; `dir` is the variant's own directory.
  std::function<std::vector<QStringList>(const QString& dir, const QString& file)> commands;
};

std::vector<InputSlot> inputSlots() {
  const QString sc = resources() + "/scenarios/default.json";
  const QString job = resources() + "/jobs/default.json";
  const QString plan = resources() + "/plans/default.json";
  const QString points = QString(SAILOR_TEST_DATA) + "/points.json";
  const QStringList simulate{"simulate", "--scenario", sc, "--job", job, "--plan", plan};
  const QStringList plan_cmd = QStringList{"plan", "--job", job} + kSmallPlan;
  std::vector<InputSlot> out;
  auto add = [&](std::string label, json doc, std::string text, std::string rel,
                 std::function<std::vector<QStringList>(const QString&, const QString&)> cmds) {
    InputSlot s;
    s.label = std::move(label);
    s.doc = std::move(doc);
    s.text = text.empty() && !s.doc.is_null() ? s.doc.dump(2) : std::move(text);
    s.rel = std::move(rel);
    s.commands = std::move(cmds);
    out.push_back(std::move(s));
  };
  add("scenario", loadJson(sc), {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{
        {"simulate", "--scenario", f, "--job", job, "--plan", plan},
        QStringList{"plan", "--scenario", f, "--job", job} + kSmallPlan};
  });
  add("job", loadJson(job), {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{{"simulate", "--scenario", sc, "--job", f, "--plan", plan},
                                    QStringList{"plan", "--job", f} + kSmallPlan};
  });
  add("plan", loadJson(plan), {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{{"simulate", "--scenario", sc, "--job", job, "--plan", f}};
  });
  add("points", loadJson(points), {}, {}, [=](const QString& dir, const QString& f) {
    return std::vector<QStringList>{{"validate", f, "--reference", dir + "/ref"}};
  });
  out.back().needs_reference = true;
  add("catalogue extension", catalogExtension(), {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{simulate + QStringList{"--catalog", f},
                                    plan_cmd + QStringList{"--catalog", f}};
  });
  add("native profile", nativeProfile(), {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{simulate + QStringList{"--profiles", f},
                                    plan_cmd + QStringList{"--profiles", f}};
  });
  add("trace", nullptr, joinCsv(baseTrace(loadJson(sc))), {},
      [=](const QString&, const QString& f) {
        return std::vector<QStringList>{QStringList{"plan", "--trace", f, "--job", job} +
                                        kSmallPlan};
      });
  for (const auto& [rel, doc] : madeUpReference()) {
    const bool profiles = rel.rfind("profiles/", 0) == 0;
    add("reference " + rel, doc, doc.dump(1), rel, [=](const QString& dir, const QString&) {
      std::vector<QStringList> r{plan_cmd + QStringList{"--reference", dir + "/ref"},
                                 {"validate", points, "--reference", dir + "/ref"}};
      if (profiles) r.push_back(simulate + QStringList{"--sailor-profiles", dir + "/ref/profiles"});
      return r;
    });
    out.back().optional = !profiles;
  }
  add("reference directory", nullptr, {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{plan_cmd + QStringList{"--reference", f},
                                    {"validate", points, "--reference", f}};
  });
  out.back().dir_option = true;
  add("SAILOR profiles directory", nullptr, {}, {}, [=](const QString&, const QString& f) {
    return std::vector<QStringList>{simulate + QStringList{"--sailor-profiles", f}};
  });
  out.back().dir_option = true;
  return out;
}

// The variant's file of a slot: where a reference file goes in the variant's reference copy,
// or dir/input.
QString slotPath(const InputSlot& s, const QString& dir) {
  return s.rel.empty() ? dir + "/input" : dir + "/ref/" + QString::fromStdString(s.rel);
}

// ---- device files -----------------------------------------------------------------------------

// The writers of the FIFOs that device-file variants give as inputs, started once every FIFO is
// made. A FIFO fed once has a writer of its own waiting in open() as `cat FILE > FIFO` does, that
// gives its reader the text and then end of file (one `sailor` never opens is released when the
// feeder ends). The endless ones share a thread that opens them without blocking (retried) and
// gives each reader the text again and again until it closes the FIFO.
class FifoFeeder {
 public:
  FifoFeeder() = default;
  FifoFeeder(const FifoFeeder&) = delete;
  FifoFeeder& operator=(const FifoFeeder&) = delete;
  ~FifoFeeder() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (Fifo& f : fifos_)
      if (f.fd >= 0) ::close(f.fd);
    for (OnceFifo& o : once_) {
      if (!o.writer.joinable()) continue;
      // A writer still waiting for its reader gets one here, which takes what it writes.
      const int fd = ::open(o.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      std::vector<char> buf(65536);
      while (!o.done) {
        if (fd >= 0) (void)!::read(fd, buf.data(), buf.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      o.writer.join();
      if (fd >= 0) ::close(fd);
    }
  }

  // Makes the FIFO at `path`; false when it cannot be made.
  bool add(const QString& path, const std::string& text, bool endless) {
    const QByteArray p = QFile::encodeName(path);
    if (::mkfifo(p.constData(), 0600) != 0) return false;
    if (!endless) {
      OnceFifo& o = once_.emplace_back();
      o.path = p.toStdString();
      o.text = text;
      return true;
    }
    std::string chunk = text;
    while (!text.empty() && chunk.size() < 65536) chunk += text;
    fifos_.push_back({p.toStdString(), std::move(chunk)});
    return true;
  }

  void start() {
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    for (OnceFifo& o : once_)
      if (!o.writer.joinable()) o.writer = std::thread([&o] { feedOnce(o); });
  }

 private:
  struct Fifo {
    std::string path;
    std::string text;  // 64 kB of the text over and over
    int fd = -1;
    size_t at = 0;
  };

  struct OnceFifo {
    std::string path;
    std::string text;
    std::atomic<bool> done{false};
    std::thread writer;
  };

  static void feedOnce(OnceFifo& o) {
    const int fd = ::open(o.path.c_str(), O_WRONLY | O_CLOEXEC);  // waits for a reader
    if (fd >= 0) {
      for (size_t at = 0; at < o.text.size();) {
        const ssize_t n = ::write(fd, o.text.data() + at, o.text.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the reader gave up (EPIPE)
        at += static_cast<size_t>(n);
      }
      ::close(fd);
    }
    o.done = true;
  }

  void loop() {
    while (!stop_) {
      std::vector<pollfd> polled;
      std::vector<Fifo*> of;
      for (Fifo& f : fifos_) {
        if (f.fd < 0) f.fd = ::open(f.path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (f.fd < 0) continue;
        polled.push_back({f.fd, POLLOUT, 0});
        of.push_back(&f);
      }
      if (polled.empty()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      ::poll(polled.data(), polled.size(), 20);
      for (size_t k = 0; k < polled.size(); ++k) {
        Fifo& f = *of[k];
        if ((polled[k].revents & (POLLERR | POLLHUP)) != 0) {
          closeFifo(f);
          continue;
        }
        if ((polled[k].revents & POLLOUT) == 0) continue;
        const ssize_t n = ::write(f.fd, f.text.data() + f.at, f.text.size() - f.at);
        if (n < 0) {
          if (errno != EAGAIN && errno != EINTR) closeFifo(f);
          continue;
        }
        f.at += static_cast<size_t>(n);
        if (f.at < f.text.size()) continue;
        f.at = 0;
      }
    }
  }

  // The reader closed it: the FIFO waits for its next reader.
  static void closeFifo(Fifo& f) {
    ::close(f.fd);
    f.fd = -1;
    f.at = 0;
  }

  std::deque<Fifo> fifos_;
  std::deque<OnceFifo> once_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

enum class DeviceKind { System, FifoEndless, FifoOnce, Directory, SymlinkLoop, Dangling, Sparse };

struct DeviceFile {
  std::string label;
  DeviceKind kind;
  std::string arg;  // System: the path; FifoEndless: the text written again and again
};

const std::vector<DeviceFile>& deviceKinds() {
  static const std::vector<DeviceFile> kAll{
      {"/dev/zero", DeviceKind::System, "/dev/zero"},
      {"/dev/urandom", DeviceKind::System, "/dev/urandom"},
      {"/dev/null", DeviceKind::System, "/dev/null"},
      {"/dev/full", DeviceKind::System, "/dev/full"},
      {"/proc/self/mem (unreadable at 0)", DeviceKind::System, "/proc/self/mem"},
      {"/proc/self/stat (size 0, text)", DeviceKind::System, "/proc/self/stat"},
      {"a FIFO fed {\"a\": endlessly", DeviceKind::FifoEndless, "{\"a\":"},
      {"a FIFO fed y lines endlessly (yes)", DeviceKind::FifoEndless, "y\n"},
      {"a FIFO fed the valid file once", DeviceKind::FifoOnce, ""},
      {"a directory", DeviceKind::Directory, ""},
      {"a symlink loop", DeviceKind::SymlinkLoop, ""},
      {"a dangling symlink", DeviceKind::Dangling, ""},
      {"a sparse 4 GiB file", DeviceKind::Sparse, ""},
  };
  return kAll;
}

// Puts device `d` at `at` (a FIFO, directory or link made there, a link for system files) and
// returns the path to give `sailor`: the system file itself where `direct`.
QString placeDevice(const DeviceFile& d, const QString& at, bool direct, const std::string& valid,
                    const QString& sparse, FifoFeeder& feeder) {
  QFile::remove(at);
  QDir().mkpath(QFileInfo(at).path());
  auto link = [&](const QString& target) {
    QFile::link(target, at);
    return at;
  };
  switch (d.kind) {
    case DeviceKind::System: return direct ? QString::fromStdString(d.arg) : link(d.arg.c_str());
    case DeviceKind::FifoEndless: feeder.add(at, d.arg, true); return at;
    case DeviceKind::FifoOnce: feeder.add(at, valid, false); return at;
    case DeviceKind::Directory: QDir().mkpath(at); return at;
    case DeviceKind::SymlinkLoop:
      QFile::link(at + ".loop", at);
      QFile::link(at, at + ".loop");
      return at;
    case DeviceKind::Dangling: return link(at + ".absent");
    case DeviceKind::Sparse: return direct ? sparse : link(sparse);
  }
  return at;
}

// Every device file at every input slot of every command: exit 2 (a FIFO fed a valid file may
// pass; a missing optional reference file is allowed), never a hang or unbounded memory.
std::vector<Variant> deviceVariants(const QString& sparse, FifoFeeder& feeder) {
  std::vector<Variant> out;
  const auto inputs = std::make_shared<std::vector<InputSlot>>(inputSlots());
  for (size_t s = 0; s < inputs->size(); ++s) {
    const size_t commands = (*inputs)[s].commands(QString(), QString()).size();
    for (size_t c = 0; c < commands; ++c)
      for (const DeviceFile& d : deviceKinds()) {
        const InputSlot& slot = (*inputs)[s];
        Variant v;
        const QStringList first = slot.commands(QString(), QString())[c];
        v.name = d.label + " as the " + slot.label + " of sailor " + first.front().toStdString();
        v.group = d.label;
        // A FIFO fed the valid file may pass, but never as a directory; an optional reference
        // file that is not there is left out.
        v.must_refuse = (d.kind != DeviceKind::FifoOnce || slot.dir_option) &&
                        !(d.kind == DeviceKind::Dangling && slot.optional);
        v.prepare = [inputs, s, c, d, sparse, &feeder](const QString& dir) {
          const InputSlot& in = (*inputs)[s];
          if (!in.rel.empty() || in.needs_reference) writeReference(dir + "/ref");
          const QString path =
              placeDevice(d, slotPath(in, dir), in.rel.empty(), in.text, sparse, feeder);
          return std::vector<QStringList>{in.commands(dir, path)[c]};
        };
        out.push_back(std::move(v));
      }
  }
  return out;
}

// ---- duplicate keys ---------------------------------------------------------------------------

// `doc` with the key `key` of the object at `ptr` written a second time, with `raw` as that
// value: before the first (`before`; "!" sorts ahead of every key of nlohmann's sorted objects)
// or after it ("~").
std::string withDuplicateKey(json doc, const json::json_pointer& ptr, const std::string& key,
                             const std::string& raw, bool before) {
  const std::string mark = before ? "!!mutation-key!!" : "~~mutation-key~~";
  doc[ptr][mark] = 1;
  return replaceFirst(doc.dump(2), "\"" + mark + "\": 1", json(key).dump() + ": " + raw);
}

// A value of the same type as `v` that differs from it.
json otherValue(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() + 1;
  if (v.is_number_integer()) return v.get<std::int64_t>() + 1;
  if (v.is_number()) return v.get<double>() * 2 + 1;
  if (v.is_string()) return v.get<std::string>() + "-other";
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_array()) return json::array();
  if (v.is_object()) return json::object();
  return 0;
}

// Every key of every object of every JSON input written twice (the same value, another value;
// before and after the first): exit 2 with a line that names the key.
std::vector<Variant> duplicateKeyVariants() {
  std::vector<Variant> out;
  const auto inputs = std::make_shared<std::vector<InputSlot>>(inputSlots());
  for (size_t s = 0; s < inputs->size(); ++s) {
    const InputSlot& slot = (*inputs)[s];
    if (!slot.doc.is_object()) continue;
    std::vector<json::json_pointer> ptrs;
    collectPointers(slot.doc, json::json_pointer(), ptrs);
    size_t n = 0;
    for (const auto& ptr : ptrs) {
      const json& obj = slot.doc.at(ptr);
      if (!obj.is_object()) continue;
      for (auto it = obj.begin(); it != obj.end(); ++it)
        for (const bool same : {true, false})
          for (const bool before : {true, false}) {
            const std::string raw = same ? it.value().dump() : otherValue(it.value()).dump();
            Variant v;
            v.name = "key \"" + it.key() + "\" of " + fieldName(slot.doc, ptr) + " twice (" +
                     (same ? "the same value" : "another value") + ", " +
                     (before ? "before" : "after") + ") in the " + slot.label;
            v.group = slot.label;
            v.must_refuse = true;
            v.needles = {it.key()};
            const size_t i = n++;
            v.prepare = [inputs, s, ptr, key = it.key(), raw, before, i](const QString& dir) {
              const InputSlot& in = (*inputs)[s];
              const std::string text = withDuplicateKey(in.doc, ptr, key, raw, before);
              if (in.rel.empty()) writeFile(dir + "/input", text);
              if (!in.rel.empty()) writeReference(dir + "/ref", {{in.rel, text}});
              else if (in.needs_reference) writeReference(dir + "/ref");
              const std::vector<QStringList> all = in.commands(dir, slotPath(in, dir));
              return std::vector<QStringList>{all[i % all.size()]};
            };
            out.push_back(std::move(v));
          }
    }
  }
  return out;
}

// ---- reference-file values --------------------------------------------------------------------

struct FigureValue {
  const char* raw;
  const char* label;
  bool refuse;      // never valid JSON: exit 2
  bool not_number;  // a string: exit 2 where the figure is read
};

const std::vector<FigureValue> kFigureValues{
    {"1e308", "1e308", false, false},
    {"-1e308", "-1e308", false, false},
    {"-1", "-1", false, false},
    {"0", "0", false, false},
    {"5e-324", "5e-324", false, false},
    {"1e18", "1e18", false, false},
    {"2147483648", "2^31", false, false},
    {"9223372036854775808", "2^63", false, false},
    {"\"NaN\"", "the string \"NaN\"", false, true},
    {"\"Infinity\"", "the string \"Infinity\"", false, true},
    {"NaN", "a bare NaN", true, false},
};

// The runs of a reference-value variant: plan, validate, or simulate with the profiles alone.
std::vector<QStringList> referenceCommands(const QString& ref, const std::string& rel, size_t i) {
  const QString sc = resources() + "/scenarios/default.json";
  const QString job = resources() + "/jobs/default.json";
  const QString plan = resources() + "/plans/default.json";
  std::vector<QStringList> all{
      QStringList{"plan", "--reference", ref, "--job", job} + kSmallPlan,
      {"validate", QString(SAILOR_TEST_DATA) + "/points.json", "--reference", ref}};
  if (rel.rfind("profiles/", 0) == 0)
    all.push_back({"simulate", "--scenario", sc, "--job", job, "--plan", plan, "--sailor-profiles",
                   ref + "/profiles"});
  QStringList args = all[i % all.size()];
  if ((i / all.size()) % 2 == 1) args << "--json";
  return {args};
}

// Numeric figures of the reference files replaced by extreme values: exit 2 naming the file, or
// 0 or 3 with every figure printed finite; a string in place of a figure that `sailor` reads
// (every figure of the made-up reference but the node memory, mem_per_gpu) is refused. The made-up
// reference, every figure; the shared checkout's (SAILOR's published files) when present,
// `shared_per_file` figures of each file drawn with `rng`, the other files linked.
std::vector<Variant> referenceValueVariants(const QString& shared, size_t shared_per_file,
                                            std::mt19937& rng) {
  std::vector<Variant> out;
  auto add = [&](const std::string& source, const std::string& rel,
                 const std::shared_ptr<const json>& doc, const json::json_pointer& ptr) {
    const std::string stem = QFileInfo(QString::fromStdString(rel)).baseName().toStdString();
    for (const FigureValue& f : kFigureValues) {
      Variant v;
      v.name = std::string(f.label) + " at " + fieldName(*doc, ptr) + " of " + source + " " + rel;
      v.group = source == "the made-up reference" ? f.label : std::string("shared ") + f.label;
      const bool read = source == "the made-up reference" && ptr.back() != "mem_per_gpu";
      v.must_refuse = f.refuse || (f.not_number && read);
      v.needles = {stem};
      const size_t i = out.size();
      v.prepare = [doc, ptr, raw = std::string(f.raw), rel, shared, i](const QString& dir) {
        const std::string text = withRaw(*doc, ptr, raw);
        const QString ref = dir + "/ref";
        if (shared.isEmpty()) {
          writeReference(ref, {{rel, text}});
        } else {
          for (const std::string& r : kReferenceFiles) {
            const QString at = ref + "/" + QString::fromStdString(r);
            QDir().mkpath(QFileInfo(at).path());
            if (r == rel) writeFile(at, text);
            else QFile::link(shared + "/" + QString::fromStdString(r), at);
          }
        }
        return referenceCommands(ref, rel, i);
      };
      out.push_back(std::move(v));
    }
  };
  for (const auto& [rel, doc] : madeUpReference()) {
    const auto d = std::make_shared<const json>(doc);
    std::vector<json::json_pointer> ptrs;
    collectPointers(*d, json::json_pointer(), ptrs);
    for (const auto& ptr : ptrs)
      if (d->at(ptr).is_number()) add("the made-up reference", rel, d, ptr);
  }
  if (!shared.isEmpty())
    for (const std::string& rel : kReferenceFiles) {
      const auto d =
          std::make_shared<const json>(loadJson(shared + "/" + QString::fromStdString(rel)));
      std::vector<json::json_pointer> ptrs;
      collectPointers(*d, json::json_pointer(), ptrs);
      std::erase_if(ptrs, [&](const json::json_pointer& p) { return !d->at(p).is_number(); });
      std::shuffle(ptrs.begin(), ptrs.end(), rng);
      if (ptrs.size() > shared_per_file) ptrs.resize(shared_per_file);
      for (const auto& ptr : ptrs) add("the shared", rel, d, ptr);
    }
  return out;
}

// ---- running the new classes --------------------------------------------------------------

// Runs prepared variants, two at a time (in `address_space_bytes` each, when above 0), and
// reports each run whose outcome breaks the contract, or whose refusal does not name what it
// must. `before_runs` is called once every variant's files are written.
KindResult runPrepared(const char* cls, const std::vector<Variant>& variants, QTemporaryDir& tmp,
                       rlim_t address_space_bytes = 0,
                       const std::function<void()>& before_runs = {}) {
  KindResult res;
  QElapsedTimer clock;
  clock.start();
  std::vector<QStringList> runs;
  std::vector<size_t> of;
  for (size_t i = 0; i < variants.size(); ++i) {
    const QString dir = tmp.path() + "/v" + QString::number(i);
    QDir().mkpath(dir);
    for (const QStringList& a : variants[i].prepare(dir)) {
      runs.push_back(a);
      of.push_back(i);
    }
  }
  if (before_runs) before_runs();
  const std::vector<Outcome> outcomes =
      runAll(runs, 2, sailor::test::scaledMs(30000), address_space_bytes);
  for (size_t r = 0; r < runs.size(); ++r) {
    const Variant& v = variants[of[r]];
    const Outcome& o = outcomes[r];
    QString why = problem(o, v.must_refuse);
    if (why.isEmpty() && o.exit_code == 2)
      for (const std::string& needle : v.needles)
        if (!o.err.contains(QByteArray::fromStdString(needle)))
          why = QString("stderr does not name \"%1\"").arg(QString::fromStdString(needle));
    res.exits[v.group][o.started && !o.timed_out && !o.crashed ? o.exit_code : -1]++;
    if (why.isEmpty()) continue;
    res.failures << QString(
                        "%1 variant \"%2\" (%3): %4\n  command: sailor %5 -> exit %6\n  "
                        "stderr: %7")
                        .arg(cls, QString::fromStdString(v.name), QString::fromStdString(v.group),
                             why, runs[r].join(' '))
                        .arg(o.exit_code)
                        .arg(shown(o.err));
  }
  res.variants = variants.size();
  res.runs = runs.size();
  res.seconds = static_cast<double>(clock.elapsed()) / 1000.0;
  return res;
}

// Logs a class's counts and fails with its first broken runs (inputs kept for a look).
void reportClass(const char* cls, size_t total, const std::vector<Variant>& chosen,
                 const KindResult& r, QTemporaryDir& tmp) {
  std::map<std::string, int> per_group;
  for (const Variant& v : chosen) per_group[v.group]++;
  QString groups;
  for (const auto& [g, n] : per_group) {
    QString codes;
    for (const auto& [code, runs] : r.exits.count(g) ? r.exits.at(g) : std::map<int, int>{})
      codes += QString("%1exit %2: %3").arg(codes.isEmpty() ? "" : ", ").arg(code).arg(runs);
    groups += QString("\n  %1: %2 (%3)").arg(g.c_str()).arg(n).arg(codes);
  }
  qInfo(
      "%s: %zu variants (of %zu), %zu runs of sailor, %.1f s; by group (runs by exit code, -1: "
      "killed or no start):%s",
      cls, r.variants, total, r.runs, r.seconds, qPrintable(groups));
  if (r.failures.isEmpty()) return;
  tmp.setAutoRemove(false);
  for (qsizetype i = 0; i < std::min<qsizetype>(r.failures.size(), 60); ++i)
    qWarning("%s", qPrintable(r.failures[i]));
  QFAIL(qPrintable(QString("%1: %2 of %3 runs broke the contract (inputs kept in %4)")
                       .arg(cls)
                       .arg(r.failures.size())
                       .arg(r.runs)
                       .arg(tmp.path())));
}

// 1 GiB of address space for the device-file runs where `sailor --help` runs in it; 0 (no bound)
// where it does not (a sanitizer build reserves terabytes for its shadow memory).
rlim_t deviceRunAddressSpace() {
  constexpr rlim_t kBound = rlim_t{1} << 30;
  const Outcome o = runAll({{"--help"}}, 1, sailor::test::scaledMs(30000), kBound).front();
  return o.started && !o.timed_out && !o.crashed && o.exit_code == 0 ? kBound : 0;
}

// The largest resident set of a finished child of this process, in MiB.
double childrenPeakMiB() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

class TestMutation : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(QFile::exists(SAILOR_BIN), SAILOR_BIN);
    for (Kind k : {Kind::Scenario, Kind::Job, Kind::Plan, Kind::Points})
      QVERIFY2(QFile::exists(basePath(k)), qPrintable(basePath(k)));
  }

  // The valid inputs pass: otherwise every variant would be refused for the wrong reason.
  void baseInputsAreValid_data() {
    QTest::addColumn<int>("kind");
    for (Kind k : {Kind::Scenario, Kind::Job, Kind::Plan, Kind::Points, Kind::Trace, Kind::Quotas})
      QTest::newRow(kindName(k)) << static_cast<int>(k);
  }
  void baseInputsAreValid() {
    QFETCH(int, kind);
    const Kind k = static_cast<Kind>(kind);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string text = baseText(k);
    const Variant v{"the valid input", "none", [text] { return text; }};
    const auto [file, dir] = writeVariant(k, v, tmp.path(), 0);
    std::vector<QStringList> both = commandsFor(k, file, dir, true, false);
    for (const QStringList& args : commandsFor(k, file, dir, true, true)) both.push_back(args);
    for (const QStringList& args : both) {
      const Outcome o = runAll({args}, 1, sailor::test::scaledMs(60000)).front();
      QVERIFY2(o.exit_code == 0 && problem(o, false).isEmpty(),
               qPrintable("sailor " + args.join(' ') + " -> exit " + QString::number(o.exit_code) +
                          "\n" + shown(o.err)));
    }
  }

  // The issue's named cases, each with the message it must give: 100,000 nested brackets,
  // 1e309, denormals (where a bound refuses them, and where they are valid and must still
  // give finite figures) and invalid UTF-8, in each kind of input.
  void namedCases_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("command");  // which of commandsFor's commands (1: `sailor plan`)
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("exit_code");
    QTest::addColumn<QString>("stderr_needle");
    const json sc = loadJson(basePath(Kind::Scenario)), job = loadJson(basePath(Kind::Job)),
               plan = loadJson(basePath(Kind::Plan)), pts = loadJson(basePath(Kind::Points)),
               quotas = json::parse(kQuotas);
    const Csv trace = baseTrace(sc);
    auto at = [](const json& doc, const char* ptr, const std::string& raw) {
      return QByteArray::fromStdString(withRaw(doc, json::json_pointer(ptr), raw));
    };
    auto key = [](const json& doc, const char* ptr, const std::string& raw) {
      return QByteArray::fromStdString(withRawKey(doc, json::json_pointer(ptr), raw));
    };
    auto cell = [&](size_t row, size_t col, const std::string& text) {
      Csv t = trace;
      t[row][col] = text;
      return QByteArray::fromStdString(joinCsv(t));
    };
    auto row = [](const char* name, Kind k, const QByteArray& text, int command,
                  const QStringList& extra, int exit_code, const char* needle) {
      QTest::newRow(name) << static_cast<int>(k) << text << command << extra << exit_code
                          << QString(needle);
    };
    const std::string deep = nested(100000);
    constexpr const char* kDeep = "nested more than 64 deep";
    row("nested: scenario, 100000 brackets as the file", Kind::Scenario,
        QByteArray::fromStdString(deep), 0, {}, 2, kDeep);
    row("nested: scenario, 100000 brackets in pools[0].count", Kind::Scenario,
        at(sc, "/pools/0/count", deep), 0, {}, 2, kDeep);
    row("nested: job, 100000 brackets in model", Kind::Job, at(job, "/model", deep), 0, {}, 2,
        kDeep);
    row("nested: plan, 100000 brackets in stages[0].replicas", Kind::Plan,
        at(plan, "/stages/0/replicas", deep), 0, {}, 2, kDeep);
    row("nested: points, 100000 brackets as the file", Kind::Points,
        QByteArray::fromStdString(deep), 0, {}, 2, kDeep);
    row("nested: quotas, 100000 brackets in A100-40", Kind::Quotas, at(quotas, "/A100-40", deep), 0,
        {}, 2, kDeep);
    row("nested: trace, 100000 brackets in a count", Kind::Trace,
        cell(2, 3, std::string(100000, '[')), 0, {}, 2, "an integer GPU count from 0 to 1000000");
    constexpr const char* kHuge = "too large for a double";
    row("1e309: scenario, pools[0].usd_per_gpu_hour", Kind::Scenario,
        at(sc, "/pools/0/usd_per_gpu_hour", "1e309"), 0, {}, 2, kHuge);
    row("1e309: scenario, -1e309 link bandwidth (plan)", Kind::Scenario,
        at(sc, "/network/links/0/model/bandwidth_gb_per_s", "-1e309"), 1, {}, 2, kHuge);
    row("1e309: job, global_batch_size", Kind::Job, at(job, "/global_batch_size", "1e309"), 0, {},
        2, kHuge);
    row("1e309: plan, microbatch_size", Kind::Plan, at(plan, "/microbatch_size", "1e309"), 0, {}, 2,
        kHuge);
    row("1e309: points, measured iteration time", Kind::Points,
        at(pts, "/points/0/measured/iteration_time_s", "1e309"), 0, {}, 2, kHuge);
    row("1e309: quotas, a count", Kind::Quotas, at(quotas, "/A100-40/us-central1-a", "1e309"), 0,
        {}, 2, kHuge);
    row("1e309: trace, a count", Kind::Trace, cell(2, 4, "1e309"), 0, {}, 2,
        "an integer GPU count from 0 to 1000000");
    constexpr const char* kBandwidth = "a bandwidth in GB/s from 1e-06 (1 kB/s) to 1e+05";
    row("5e-324: scenario, link bandwidth", Kind::Scenario,
        at(sc, "/network/links/0/model/bandwidth_gb_per_s", "5e-324"), 0, {}, 2, kBandwidth);
    row("4.9e-324: scenario, default bandwidth (plan)", Kind::Scenario,
        at(sc, "/network/defaults/same_zone/bandwidth_gb_per_s", "4.9e-324"), 1, {}, 2, kBandwidth);
    row("5e-324: scenario, GPU price (plan by cost: finite figures)", Kind::Scenario,
        at(sc, "/pools/0/usd_per_gpu_hour", "5e-324"), 1, {"--objective", "cost"}, 0, "");
    row("4.9e-324: scenario, egress price (plan by cost: finite figures)", Kind::Scenario,
        at(sc, "/egress_usd_per_gb/defaults/same_region", "4.9e-324"), 1, {"--objective", "cost"},
        0, "");
    row("5e-324: scenario, sailor_fit coefficients (plan: finite figures)", Kind::Scenario,
        at(sc, "/network/links/0/model",
           R"({"kind": "sailor_fit", "coefficients": [5e-324, 4.9e-324, 5e-324], "max_bytes_per_s": 1e9})"),
        1, {}, 0, "");
    // No job's global batch (at most 1,000,000) is whole microbatches of 2^31 - 1: refused by
    // Plan::checkGlobalBatch, without overflow.
    row("2^31 - 1: plan, microbatch_size on 4 replicas (not whole microbatches, no overflow)",
        Kind::Plan, at(plan, "/microbatch_size", "2147483647"), 0, {}, 2,
        "global_batch_size: got 1024, expected a positive multiple of the microbatch size "
        "2147483647");
    row("2^31 - 1: job, global_batch_size (refused, not simulated for an hour)", Kind::Job,
        at(job, "/global_batch_size", "2147483647"), 1, {}, 2,
        "global_batch_size: got 2147483647, expected an integer from 1 to 1000000");
    row("5e-324: job, global_batch_size", Kind::Job, at(job, "/global_batch_size", "5e-324"), 0, {},
        2, "global_batch_size: got 5e-324, expected an integer");
    row("5e-324: points, measured iteration time (--strict)", Kind::Points,
        at(pts, "/points/0/measured/iteration_time_s", "5e-324"), 0, {"--strict"}, 2,
        "measured.iteration_time_s: got 5e-324, expected seconds from 1e-06");
    row("4294967296: quotas, a count", Kind::Quotas,
        at(quotas, "/A100-40/us-central1-a", "4294967296"), 0, {}, 2,
        "quotas.json: A100-40.us-central1-a: got 4294967296, expected an integer GPU count");
    constexpr const char* kUtf8 = "ill-formed UTF-8 byte";
    row("UTF-8: scenario, 0xFF in a zone name", Kind::Scenario,
        at(sc, "/pools/0/zone", "\"us" + bytes({0xFF}) + "\""), 0, {}, 2, kUtf8);
    row("UTF-8: scenario, a lone continuation byte in a key", Kind::Scenario,
        key(sc, "/pools/0", "\"k" + bytes({0x80}) + "\""), 0, {}, 2, kUtf8);
    row("UTF-8: job, a truncated sequence in model", Kind::Job,
        at(job, "/model", "\"OPT" + bytes({0xE2, 0x82}) + "\""), 0, {}, 2, kUtf8);
    row("UTF-8: plan, an overlong '/' in a zone", Kind::Plan,
        at(plan, "/stages/0/replicas/0/zone", "\"" + bytes({0xC0, 0xAF}) + "\""), 0, {}, 2, kUtf8);
    row("UTF-8: points, 0xFF in the file", Kind::Points,
        at(pts, "/points/0/id", "\"" + bytes({0xFF}) + "\""), 0, {}, 2, kUtf8);
    row("UTF-8: quotas, an encoded surrogate in a zone key", Kind::Quotas,
        key(quotas, "/A100-40", "\"" + bytes({0xED, 0xA0, 0x80}) + "\""), 0, {}, 2, kUtf8);
    constexpr const char* kText = "expected UTF-8 text without control characters";
    row("UTF-8: trace, 0xFF in a column name", Kind::Trace,
        cell(0, 2, "A100-40_us-" + bytes({0xFF})), 0, {}, 2, kText);
    row("UTF-8: trace, a truncated sequence in a row label", Kind::Trace,
        cell(2, 1, "t" + bytes({0xE2, 0x82})), 0, {}, 2, kText);
    row("control: scenario, an escaped newline in a zone name (one line, escaped)", Kind::Scenario,
        at(sc, "/pools/0/zone", R"("us\nwest")"), 0, {}, 2, "\"us\\nwest\"");
  }
  void namedCases() {
    QFETCH(int, kind);
    QFETCH(QByteArray, text);
    QFETCH(int, command);
    QFETCH(QStringList, extra);
    QFETCH(int, exit_code);
    QFETCH(QString, stderr_needle);
    const Kind k = static_cast<Kind>(kind);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string t = text.toStdString();
    const Variant v{"named", "named", [t] { return t; }};
    const auto [file, dir] = writeVariant(k, v, tmp.path(), 0);
    const std::vector<QStringList> commands = commandsFor(k, file, dir, true);
    QVERIFY(command < static_cast<int>(commands.size()));
    const QStringList args = commands[static_cast<size_t>(command)] + extra;
    const Outcome o = runAll({args}, 1, sailor::test::scaledMs(60000)).front();
    const QString report = "sailor " + args.join(' ') + " -> exit " + QString::number(o.exit_code) +
                           "\nstderr: " + shown(o.err);
    QVERIFY2(problem(o, false).isEmpty(), qPrintable(problem(o, false) + "\n" + report));
    QVERIFY2(o.exit_code == exit_code, qPrintable(report));
    QVERIFY2(QString::fromUtf8(o.err).contains(stderr_needle), qPrintable(report));
  }

  void mutations_data() {
    QTest::addColumn<int>("kind");
    for (Kind k : {Kind::Scenario, Kind::Job, Kind::Plan, Kind::Points, Kind::Trace, Kind::Quotas})
      QTest::newRow(kindName(k)) << static_cast<int>(k);
  }
  void mutations() {
    QFETCH(int, kind);
    const Kind k = static_cast<Kind>(kind);
    std::mt19937 rng(20240924u + static_cast<unsigned>(kind));
    std::vector<Variant> all = variantsOf(k, rng);
    const size_t total = all.size();
    // The quotas file is small: its variants are fewer than the other kinds'.
    const std::vector<Variant> chosen = select(std::move(all), perKind(), rng);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const KindResult r = runVariants(k, chosen, tmp);
    std::map<std::string, int> per_group;
    for (const Variant& v : chosen) per_group[v.group]++;
    QString groups;
    for (const auto& [g, n] : per_group) groups += QString(" %1=%2").arg(g.c_str()).arg(n);
    qInfo("%s: %zu variants (of %zu), %zu runs of sailor, %.1f s;%s", kindName(k), r.variants,
          total, r.runs, r.seconds, qPrintable(groups));
    if (!r.failures.isEmpty()) {
      tmp.setAutoRemove(false);
      for (qsizetype i = 0; i < std::min<qsizetype>(r.failures.size(), 40); ++i)
        qWarning("%s", qPrintable(r.failures[i]));
      QFAIL(qPrintable(QString("%1 of %2 runs broke the contract (inputs kept in %3)")
                           .arg(r.failures.size())
                           .arg(r.runs)
                           .arg(tmp.path())));
    }
  }

  // The made-up reference is valid: validate, plan and simulate read it and exit 0.
  void madeUpReferenceIsValid() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    writeReference(tmp.path() + "/ref");
    for (size_t i = 0; i < 6; ++i)
      for (const QStringList& args :
           referenceCommands(tmp.path() + "/ref", "profiles/llm_info.json", i)) {
        const Outcome o = runAll({args}, 1, sailor::test::scaledMs(60000)).front();
        QVERIFY2(o.exit_code == 0 && problem(o, false).isEmpty(),
                 qPrintable("sailor " + args.join(' ') + " -> exit " +
                            QString::number(o.exit_code) + "\n" + shown(o.err)));
      }
  }

  // /dev/zero, /dev/urandom, /dev/null, /dev/full, /proc/self/mem, FIFOs fed endlessly or once,
  // a directory, a symlink loop, a dangling link and a sparse 4 GiB file as every input file
  // (and directory) of simulate, plan and validate: exit 2 with one line (a FIFO fed the valid
  // file may pass), within the hang bound, in 1 GiB of address space (RLIMIT_AS: a read
  // without bound ends in bad_alloc, exit 1; no bound where sailor cannot start in it).
  void deviceFiles() {
    std::signal(SIGPIPE, SIG_IGN);  // the FIFO writers see EPIPE when a reader gives up
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString sparse = tmp.path() + "/sparse-4GiB";
    {
      QFile f(sparse);
      QVERIFY(f.open(QIODevice::WriteOnly));
      QVERIFY(f.resize(qint64{4} << 30));
    }
    FifoFeeder feeder;
    std::mt19937 rng(20261206u);
    std::vector<Variant> all = deviceVariants(sparse, feeder);
    const size_t total = all.size();
    const std::vector<Variant> chosen = select(std::move(all), perKind(), rng);
    const rlim_t address_space = deviceRunAddressSpace();
    if (address_space == 0)
      qInfo(
          "sailor does not start in 1 GiB of address space (a sanitizer build?): the "
          "device-file runs are not bounded in memory");
    const KindResult r =
        runPrepared("device files", chosen, tmp, address_space, [&feeder] { feeder.start(); });
    qInfo("device files: the largest resident set of a finished sailor run: %.0f MiB",
          childrenPeakMiB());
    reportClass("device files", total, chosen, r, tmp);
  }

  // Every key of every object of the scenario, job, plan, points, quotas, catalogue extension,
  // native profile and reference files written twice, with the same or another value, before or
  // after the first: exit 2 with one line that names the key.
  void duplicateKeys() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    std::mt19937 rng(20261207u);
    std::vector<Variant> all = duplicateKeyVariants();
    const size_t total = all.size();
    const std::vector<Variant> chosen = select(std::move(all), perKind(), rng);
    reportClass("duplicate keys", total, chosen, runPrepared("duplicate keys", chosen, tmp), tmp);
  }

  // Figures of the reference files (profiles, llm_info, network fits, egress prices, node size,
  // quotas) replaced by 1e308, -1, 0, 5e-324, 1e18, 2^31, 2^63 and NaN-like values, through
  // validate, plan and simulate: exit 2 naming the file, or 0 or 3 with every figure finite;
  // never a hang. On the made-up reference, and on the shared checkout's when it is there.
  void referenceValues() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    std::mt19937 rng(20261208u);
    const QString shared = sharedReference();
    if (shared.isEmpty())
      qInfo(
          "%s/reference/sailor is not there: the reference figures are the made-up "
          "reference's only",
          SAILOR_TEST_SHARED_DIR);
    std::vector<Variant> all = referenceValueVariants(shared, 40, rng);
    const size_t total = all.size();
    const std::vector<Variant> chosen = select(std::move(all), perKind(), rng);
    reportClass("reference values", total, chosen, runPrepared("reference values", chosen, tmp),
                tmp);
  }
};

QTEST_GUILESS_MAIN(TestMutation)
#include "test_mutation.moc"
