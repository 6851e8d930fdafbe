// Training data for the runtime: deterministic streams of tokens. Byte-level (vocabulary 256):
// a synthetic stream or a text file; or token ids from a tokenized file (any vocabulary).
// Sample i of a stream is the same sequence in every process and every run with the same seed,
// so that a run split over many processes sees exactly the data a single process would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sailor {

// The longest text file `--data` reads (1 GiB): each worker holds the whole text in memory, so
// a larger corpus goes in a token file, which is mapped.
inline constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{1} << 30;

// A tokenized file as nanoGPT and llm.c write them (docs/training.md "Training data"):
//  - llm.c's format: a header of 256 little-endian int32 (magic 20240520; version 1 = uint16
//    ids, as its GPT-2 data; version 2 = uint32 ids, as its Llama 3 data; the token count),
//    then the ids;
//  - otherwise flat little-endian ids with no header (nanoGPT's train.bin, numpy uint16): uint16
//    when the vocabulary fits in 16 bits (at most 65,536 ids), else uint32.
struct TokenFileInfo {
  std::string path;
  int token_bytes = 2;            // 2 (uint16) or 4 (uint32)
  std::int64_t header_bytes = 0;  // 1024 for llm.c's header, else 0
  std::int64_t tokens = 0;        // ids in the file
};

// True when the file starts with llm.c's magic (a token file even without --vocab).
bool hasLlmcTokenHeader(const std::string& path);

// Reads the header (or the size) of `path` as a token file of `vocab` ids and checks it: readable,
// a whole number of ids, llm.c's count matching the size, at least two windows of
// `sequence_length` + 1 ids, and (scan_ids) every id below `vocab`, naming the first that is not.
// Throws InputError (field "--data") otherwise.
TokenFileInfo inspectTokenFile(const std::string& path, int vocab, int sequence_length,
                               bool scan_ids);

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
  // InputError when the file cannot be read, is shorter than two windows of 65 bytes or longer
  // than kMaxTextFileBytes (read up to that bound whatever the file's kind).
  static TokenSource textFile(const std::string& path, std::uint64_t seed);
  // Token ids of a tokenized file (TokenFileInfo), mapped read-only (the page cache is shared by
  // every worker of a machine): sample i is a window at a seeded random offset. The file is
  // checked as inspectTokenFile does, but for the ids, which sample() checks as it reads them.
  static TokenSource tokenFile(const std::string& path, int vocab, std::uint64_t seed);
  // format "synthetic", "text" (data is a text file) or "tokens" (a token file of `vocab` ids).
  static TokenSource open(const std::string& data, const std::string& format, int vocab,
                          std::uint64_t seed);

  // length + 1 tokens: inputs are [0, length), labels [1, length].
  std::vector<std::int64_t> sample(std::int64_t index, int length) const;
  bool isText() const { return !text_.empty(); }

 private:
  struct Mapping;  // a read-only mapping of a token file, unmapped with its last user
  std::uint64_t seed_ = 0;
  std::string text_;
  std::shared_ptr<const Mapping> tokens_;
  TokenFileInfo token_file_;
  int vocab_ = 0;
};

}  // namespace sailor
