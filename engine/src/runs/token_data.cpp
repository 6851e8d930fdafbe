// Deterministic token streams for the runtime. Declared in sailor/runs/token_data.hpp.
//
// Map:
//   splitmix64, hash3             the counter-based hash: sample i depends on (seed, i) only
//   inspectTokenFile              a tokenized file's layout (llm.c header or flat), checked
//   TokenSource::synthetic, textFile, tokenFile, open   the three kinds of stream
//   TokenSource::sample           sequence i, the same in every process
#include "sailor/runs/token_data.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

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

// llm.c's token files (dev/data/data_common.py, write_datafile): 256 int32 of header, magic
// 20240520, version 1 (uint16 ids, GPT-2) or 2 (uint32 ids, Llama 3), then the token count.
constexpr std::int32_t kLlmcMagic = 20240520;
constexpr std::int64_t kLlmcHeaderBytes = 256 * 4;
constexpr std::int64_t kUint16Ids = 65536;

std::string quoted(const std::string& path) {
  return "\"" + path + "\"";
}

// The first 256 int32 of the file (fewer when it is shorter: the rest zero).
std::array<std::int32_t, 256> leadingInts(const std::string& path) {
  std::array<std::int32_t, 256> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head.data()), sizeof head);
  return head;
}

std::uint32_t idAt(const unsigned char* ids, int token_bytes, std::int64_t i) {
  if (token_bytes == 2) {
    std::uint16_t v = 0;
    std::memcpy(&v, ids + i * 2, 2);
    return v;
  }
  std::uint32_t v = 0;
  std::memcpy(&v, ids + i * 4, 4);
  return v;
}

[[noreturn]] void idTooLarge(const TokenFileInfo& f, std::int64_t i, std::uint32_t id, int vocab) {
  throw InputError(
      "--data",
      "token " + std::to_string(i) + " of " + quoted(f.path) + ": id " + std::to_string(id),
      "ids below the vocabulary (--vocab " + std::to_string(vocab) + ")");
}

}  // namespace

// A read-only shared mapping of a whole token file.
struct TokenSource::Mapping {
  const unsigned char* bytes = nullptr;
  std::size_t size = 0;
  Mapping(const std::string& path, std::size_t expected) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError("--data", quoted(path), "a readable token file");
    void* p = ::mmap(nullptr, expected, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED)
      throw InputError("--data", quoted(path), "a token file that can be mapped");
    bytes = static_cast<const unsigned char*>(p);
    size = expected;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { ::munmap(const_cast<unsigned char*>(bytes), size); }
};

bool hasLlmcTokenHeader(const std::string& path) {
  return leadingInts(path)[0] == kLlmcMagic;
}

TokenFileInfo inspectTokenFile(const std::string& path, int vocab, int sequence_length,
                               bool scan_ids) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), R_OK) != 0)
    throw InputError("--data", quoted(path), "a readable token file");
  if (vocab < 2) throw InputError("--vocab", std::to_string(vocab), "an integer >= 2");
  TokenFileInfo f;
  f.path = path;
  const std::int64_t size = st.st_size;
  const auto head = leadingInts(path);
  if (head[0] == kLlmcMagic) {
    if (head[1] != 1 && head[1] != 2)
      throw InputError("--data", quoted(path) + ": llm.c header version " + std::to_string(head[1]),
                       "version 1 (uint16 ids) or 2 (uint32 ids)");
    f.token_bytes = head[1] == 1 ? 2 : 4;
    f.header_bytes = kLlmcHeaderBytes;
    f.tokens = head[2];
    if (head[2] < 0 || f.header_bytes + f.tokens * f.token_bytes != size)
      throw InputError(
          "--data",
          quoted(path) + ": llm.c header says " + std::to_string(head[2]) +
              " tokens, the file holds " + std::to_string(size) + " bytes",
          std::to_string(f.header_bytes + std::max<std::int64_t>(0, f.tokens) * f.token_bytes) +
              " bytes (a 1024-byte header and the ids)");
  } else {
    f.token_bytes = vocab <= kUint16Ids ? 2 : 4;
    if (size % f.token_bytes != 0)
      throw InputError("--data", quoted(path) + " (" + std::to_string(size) + " bytes)",
                       "flat uint" + std::to_string(8 * f.token_bytes) +
                           " token ids (a multiple of " + std::to_string(f.token_bytes) +
                           " bytes, for --vocab " + std::to_string(vocab) + ")");
    f.tokens = size / f.token_bytes;
  }
  const std::int64_t window = static_cast<std::int64_t>(sequence_length) + 1;
  if (f.tokens < 2 * window)
    throw InputError("--data", quoted(path) + " (" + std::to_string(f.tokens) + " tokens)",
                     "at least " + std::to_string(2 * window) + " tokens (two windows of " +
                         std::to_string(window) + ")");
  if (scan_ids) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(f.header_bytes);
    std::vector<unsigned char> buf(std::size_t{1} << 20);
    std::int64_t done = 0;
    while (done < f.tokens) {
      const std::int64_t n = std::min<std::int64_t>(
          f.tokens - done, static_cast<std::int64_t>(buf.size()) / f.token_bytes);
      in.read(reinterpret_cast<char*>(buf.data()), n * f.token_bytes);
      if (in.gcount() != n * f.token_bytes)
        throw InputError("--data", quoted(path), "a token file that can be read to its end");
      for (std::int64_t i = 0; i < n; ++i)
        if (const std::uint32_t id = idAt(buf.data(), f.token_bytes, i);
            id >= static_cast<std::uint32_t>(vocab))
          idTooLarge(f, done + i, id, vocab);
      done += n;
    }
  }
  return f;
}

TokenSource TokenSource::synthetic(std::uint64_t seed) {
  TokenSource s;
  s.seed_ = seed;
  return s;
}

TokenSource TokenSource::textFile(const std::string& path, std::uint64_t seed) {
  TokenSource s;
  s.seed_ = seed;
  try {  // up to the bound whatever the file's kind (/dev/zero, a FIFO)
    s.text_ = json_util::readText(path, "text file", kMaxTextFileBytes);
  } catch (const InputError& e) {
    throw InputError("--data", "\"" + path + "\" (" + e.value() + ")",
                     e.expected() + " or \"synthetic\"");
  }
  if (s.text_.size() < 2 * kMinTextWindow)
    throw InputError("--data", "\"" + path + "\" (" + std::to_string(s.text_.size()) + " bytes)",
                     "a text of at least " + std::to_string(2 * kMinTextWindow) + " bytes");
  return s;
}

TokenSource TokenSource::tokenFile(const std::string& path, int vocab, std::uint64_t seed) {
  TokenSource s;
  s.seed_ = seed;
  s.vocab_ = vocab;
  s.token_file_ = inspectTokenFile(path, vocab, 1, false);
  s.tokens_ = std::make_shared<const Mapping>(
      path, static_cast<std::size_t>(s.token_file_.header_bytes +
                                     s.token_file_.tokens * s.token_file_.token_bytes));
  return s;
}

TokenSource TokenSource::open(const std::string& data, const std::string& format, int vocab,
                              std::uint64_t seed) {
  if (format == "tokens") return tokenFile(data, vocab, seed);
  return data == "synthetic" ? synthetic(seed) : textFile(data, seed);
}

std::vector<std::int64_t> TokenSource::sample(std::int64_t index, int length) const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(length) + 1);
  const auto i = static_cast<std::uint64_t>(index);
  if (tokens_) {
    const auto span = static_cast<std::int64_t>(length) + 1;
    if (span > token_file_.tokens)
      throw InputError(
          "sequence_length", std::to_string(length),
          "at most " + std::to_string(token_file_.tokens - 1) + " for this token file");
    const auto start = static_cast<std::int64_t>(
        hash3(seed_, i, 0) % static_cast<std::uint64_t>(token_file_.tokens - span + 1));
    const unsigned char* ids = tokens_->bytes + token_file_.header_bytes;
    for (std::int64_t t = 0; t < span; ++t) {
      const std::uint32_t id = idAt(ids, token_file_.token_bytes, start + t);
      if (id >= static_cast<std::uint32_t>(vocab_)) idTooLarge(token_file_, start + t, id, vocab_);
      out[static_cast<std::size_t>(t)] = id;
    }
    return out;
  }
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
