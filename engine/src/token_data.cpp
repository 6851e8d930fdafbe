// Deterministic byte-level token streams for the runtime. Declared in sailor/token_data.hpp.
//
// Map:
//   splitmix64, hash3             the counter-based hash: sample i depends on (seed, i) only
//   TokenSource::synthetic, textFile, open   a synthetic stream or a text file's bytes
//   TokenSource::sample           sequence i, the same in every process
#include "sailor/token_data.hpp"

#include <fstream>
#include <sstream>

#include "sailor/error.hpp"

namespace sailor {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

namespace {

// A hash of (seed, a, b).
std::uint64_t hash3(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b);
}

constexpr int kMinTextWindow = 65;

}  // namespace

TokenSource TokenSource::synthetic(std::uint64_t seed) {
  TokenSource s;
  s.seed_ = seed;
  return s;
}

TokenSource TokenSource::textFile(const std::string& path, std::uint64_t seed) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("--data", "\"" + path + "\"", "a readable text file or \"synthetic\"");
  std::ostringstream buf;
  buf << in.rdbuf();
  TokenSource s;
  s.seed_ = seed;
  s.text_ = buf.str();
  if (s.text_.size() < 2 * kMinTextWindow)
    throw InputError("--data", "\"" + path + "\" (" + std::to_string(s.text_.size()) + " bytes)",
                     "a text of at least " + std::to_string(2 * kMinTextWindow) + " bytes");
  return s;
}

TokenSource TokenSource::open(const std::string& data, std::uint64_t seed) {
  return data == "synthetic" ? synthetic(seed) : textFile(data, seed);
}

std::vector<std::int64_t> TokenSource::sample(std::int64_t index, int length) const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(length) + 1);
  const auto i = static_cast<std::uint64_t>(index);
  if (!text_.empty()) {
    const std::size_t span = static_cast<std::size_t>(length) + 1;
    if (span > text_.size())
      throw InputError("sequence_length", std::to_string(length),
                       "at most " + std::to_string(text_.size() - 1) + " for this text");
    const std::size_t start = hash3(seed_, i, 0) % (text_.size() - span + 1);
    for (std::size_t t = 0; t < span; ++t) out[t] = static_cast<unsigned char>(text_[start + t]);
    return out;
  }
  const std::uint64_t step = hash3(seed_, i, 1) & 1U;
  std::uint64_t x = hash3(seed_, i, 2) & 0xffU;
  for (std::size_t t = 0; t < out.size(); ++t) {
    const std::uint64_t noise = hash3(seed_, i, 3 + t);
    out[t] = static_cast<std::int64_t>((noise & 0xf0U) == 0 ? (noise >> 8) & 0xffU : x);
    x = (5 * x + 7 + 2 * step) & 0xffU;
  }
  return out;
}

}  // namespace sailor
