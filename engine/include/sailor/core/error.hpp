// Errors the engine reports. Two channels (see docs/style in shared/): InputError is for input
// a user gave us that is wrong (it names the field, the value and what was expected); internal
// invariants use assert(). The engine never exit()s and never prints.
#pragma once

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sailor/core/utf8.hpp"

namespace sailor {

class InputError : public std::runtime_error {
 public:
  // field: a path such as "pools[2].count"; value: what we got, as text; expected: what would
  // have been accepted.
  InputError(std::string field, std::string value, std::string expected)
      : std::runtime_error(format(field, value, expected)),
        field_(std::move(field)),
        value_(std::move(value)),
        expected_(std::move(expected)) {}

  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  const std::string& expected() const { return expected_; }

 private:
  static std::string format(const std::string& field, const std::string& value,
                            const std::string& expected) {
    // Each part may quote the input (a key, a name, a cell): printableLine keeps the message to
    // one line of valid UTF-8 of bounded length.
    return printableLine(field) + ": got " + printableLine(value) + ", expected " +
           printableLine(expected);
  }
  std::string field_;
  std::string value_;
  std::string expected_;
};

// Prefixes the field of an InputError with a context (e.g. a file name or an enclosing object).
inline InputError withContext(const InputError& e, const std::string& context) {
  return InputError(context + (e.field().empty() ? "" : "." + e.field()), e.value(), e.expected());
}

template <typename T>
std::string toText(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace sailor
