// A run's checkpoints on disk (checkpoint_files.hpp).
#include "checkpoint_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor::runner {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

std::string parentOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The iteration of a step directory's name, or -1 when the name is not "step-<digits>".
int stepOf(const std::string& name) {
  if (name.rfind("step-", 0) != 0 || name.size() == 5 || name.size() > 14) return -1;
  for (std::size_t i = 5; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return -1;
  return std::stoi(name.substr(5));
}

}  // namespace

void syncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open directory", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot fsync directory", dir);
}

void makeDirs(const std::string& dir) {
  if (dir.empty()) return;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw std::runtime_error(dir + " exists and is not a directory");
    return;
  }
  const std::string parent = parentOf(dir);
  if (parent != dir) makeDirs(parent);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) fail("cannot create directory", dir);
}

void writeFileDurably(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot create", tmp);
  // Every failure from here on removes the temporary file: a write that failed for space would
  // otherwise keep the disk full for the next run and for the resume.
  auto give_up = [&](const char* what, const std::string& name, bool open) {
    const int saved = errno;
    if (open) ::close(fd);
    (void)::unlink(tmp.c_str());
    errno = saved;
    fail(what, name);
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;  // write(2) wrote nothing and said no more
      give_up("cannot write", tmp, true);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) give_up("cannot fsync", tmp, true);
  if (::close(fd) != 0) give_up("cannot close", tmp, false);
  if (::rename(tmp.c_str(), path.c_str()) != 0) give_up("cannot rename to", path, false);
  syncDir(parentOf(path));
}

void removeDirectoryAndFiles(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") (void)unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  (void)rmdir(dir.c_str());
}

std::string sha256Hex(const void* data, std::size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data, size, digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string specFingerprint(const json& spec) {
  json kept = spec;
  kept.erase("iterations");
  const std::string text = kept.dump();
  return sha256Hex(text.data(), text.size());
}

std::string stepDirName(int iteration) {
  return "step-" + std::to_string(iteration);
}

std::string shardFileName(int stage, int tp_rank) {
  return "stage-" + std::to_string(stage) + "-tp-" + std::to_string(tp_rank) + ".pt";
}

json Manifest::toJson() const {
  json shard_list = json::array();
  for (const ShardEntry& s : shards)
    shard_list.push_back({{"file", s.file}, {"bytes", s.bytes}, {"sha256", s.sha256}});
  return json{{"format", "sailor-checkpoint-1"},
              {"iteration", iteration},
              {"fingerprint", fingerprint},
              {"store_id", store_id},
              {"run_id", run_id},
              {"shards", shard_list}};
}

Manifest Manifest::fromJson(const json& j) {
  Manifest m;
  if (!j.is_object() || j.value("format", "") != "sailor-checkpoint-1")
    throw InputError("manifest.format",
                     j.is_object() ? j.value("format", "nothing") : "not an object",
                     "sailor-checkpoint-1");
  if (!j.contains("iteration") || !j["iteration"].is_number_integer() || j["iteration"] < 0)
    throw InputError("manifest.iteration", j.value("iteration", json()).dump(),
                     "a non-negative integer");
  m.iteration = j["iteration"].get<int>();
  m.fingerprint = j.value("fingerprint", "");
  if (j.contains("store_id") && !j["store_id"].is_string())
    throw InputError("manifest.store_id", j["store_id"].dump(), "a string");
  m.store_id = j.value("store_id", "");
  if (j.contains("run_id") && !j["run_id"].is_number_integer())
    throw InputError("manifest.run_id", j["run_id"].dump(), "an integer");
  m.run_id = j.value("run_id", std::int64_t{0});
  if (!j.contains("shards") || !j["shards"].is_array() || j["shards"].empty())
    throw InputError("manifest.shards", "nothing", "a non-empty list of shards");
  for (const json& s : j["shards"]) {
    ShardEntry e;
    e.file = s.value("file", "");
    e.bytes = s.value("bytes", std::int64_t{-1});
    e.sha256 = s.value("sha256", "");
    if (e.file.empty() || e.file.find('/') != std::string::npos || e.bytes < 0 ||
        e.sha256.size() != 64)
      throw InputError("manifest.shards", s.dump(), "{file, bytes, sha256} of a shard");
    m.shards.push_back(e);
  }
  return m;
}

std::vector<int> stepDirs(const std::string& dir) {
  std::vector<int> steps;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (const int it = stepOf(e->d_name); it >= 0) steps.push_back(it);
    closedir(d);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

std::vector<Manifest> completeCheckpoints(const std::string& dir) {
  std::vector<Manifest> out;
  for (const int it : stepDirs(dir)) {
    const std::string step = dir + "/" + stepDirName(it);
    try {
      Manifest m = Manifest::fromJson(json_util::readFile(step + "/" + kManifestFile));
      if (m.iteration != it) continue;
      const bool whole = std::all_of(m.shards.begin(), m.shards.end(), [&](const ShardEntry& s) {
        struct stat st {};
        return ::stat((step + "/" + s.file).c_str(), &st) == 0 && st.st_size == s.bytes;
      });
      if (whole) out.push_back(std::move(m));
    } catch (const std::exception&) {  // no manifest, or one that does not read: incomplete
    }
  }
  return out;
}

}  // namespace sailor::runner
