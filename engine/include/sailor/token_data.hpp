// Training data for the runtime: deterministic streams of byte-level tokens (vocabulary 256).
// Sample i of a stream is the same sequence in every process and every run with the same seed,
// so that a run split over many processes sees exactly the data a single process would.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sailor {

// SplitMix64's finaliser: a well-mixed 64-bit hash, the same on every platform. The runtime
// derives every seed (data samples, initial weights) from it.
std::uint64_t splitmix64(std::uint64_t x);

class TokenSource {
 public:
  // A learnable synthetic stream: each sample starts at a seeded random byte and follows
  // x[t+1] = (5 x[t] + 7 + 2k) mod 256 (full period 256), with k in {0, 1} chosen per sample,
  // and one token in sixteen replaced by a seeded random byte. A model can learn it (loss falls
  // well below ln 256), and it costs nothing to generate.
  static TokenSource synthetic(std::uint64_t seed);
  // Byte-level text: sample i is a window of the file at a seeded random offset. Throws
  // InputError when the file cannot be read or is shorter than two windows of 65 bytes.
  static TokenSource textFile(const std::string& path, std::uint64_t seed);
  // "synthetic" or a path.
  static TokenSource open(const std::string& data, std::uint64_t seed);

  // length + 1 tokens: inputs are [0, length), labels [1, length].
  std::vector<std::int64_t> sample(std::int64_t index, int length) const;
  bool isText() const { return !text_.empty(); }

 private:
  std::uint64_t seed_ = 0;
  std::string text_;
};

}  // namespace sailor
