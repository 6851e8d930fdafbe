// Text that a message can carry: UTF-8 validation, control characters, and a byte string made
// printable on one line (InputError's messages and every quoted input in them).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sailor {

// Length of the valid UTF-8 character at s[i] (1 to 4 bytes), 0 where the bytes there are not
// one: a lone continuation byte, a truncated or overlong sequence, a surrogate, above U+10FFFF.
inline std::size_t utf8CharLength(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) len = 3;
  else if (c >= 0xF0 && c <= 0xF4) len = 4;
  else return 0;
  // The second byte's range rules out overlong forms (E0, F0), surrogates (ED) and code points
  // above U+10FFFF (F4).
  const unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
  const unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
  for (std::size_t k = 1; k < len; ++k) {
    const unsigned b = i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return 0;
  }
  return len;
}

// A control character other than tab: C0 or DEL.
inline bool isControl(unsigned char c) {
  return (c < 0x20 && c != '\t') || c == 0x7F;
}

// Whether s is valid UTF-8 without control characters (tabs allowed): text a line can show.
inline bool isPrintableText(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8CharLength(s, i);
    if (len == 0 || isControl(static_cast<unsigned char>(s[i]))) return false;
    i += len;
  }
  return true;
}

// `s` as text that a message can always carry on one line: valid UTF-8 characters as they are;
// line breaks and tabs as \n, \r, \t; other control characters (C0 and DEL) and bytes that are
// not valid UTF-8 as \xNN. At most max_bytes of escaped text, then "...", so that a 1 MB name
// does not make a 1 MB message.
inline std::string printableLine(std::string_view s, std::size_t max_bytes = 1024) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c == '\t' || isControl(c) ? 0 : utf8CharLength(s, i);
    std::string piece;
    if (len > 0) piece = std::string(s.substr(i, len));
    else if (c == '\n') piece = "\\n";
    else if (c == '\r') piece = "\\r";
    else if (c == '\t') piece = "\\t";
    else piece = std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    if (out.size() + piece.size() > max_bytes) return out + "...";
    out += piece;
    i += len > 0 ? len : 1;
  }
  return out;
}

}  // namespace sailor
