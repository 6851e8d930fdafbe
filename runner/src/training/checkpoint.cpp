// A worker's side of checkpoints (checkpoint.hpp).
#include "checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include <torch/csrc/jit/serialization/pickle.h>

#include "checkpoint_files.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor::runner {

using nlohmann::json;

namespace {

// Test only (SAILOR_TEST_FAULT=checkpoint-write): rank 0's writer dies in the middle of its
// second shard, after half of the temporary file is on disk, as a worker killed mid-write would.
bool faultMidWrite(int stage, int tp_rank, int written) {
  const char* fault = std::getenv("SAILOR_TEST_FAULT");
  return fault && std::strcmp(fault, "checkpoint-write") == 0 && stage == 0 && tp_rank == 0 &&
         written == 1;
}

void dieMidWrite(const std::string& path, const std::string& bytes) {
  const int fd = ::open((path + ".tmp").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) {
    (void)!::write(fd, bytes.data(), bytes.size() / 2);
    (void)::fsync(fd);
  }
  std::fprintf(stderr, "injected fault in a checkpoint write (SAILOR_TEST_FAULT)\n");
  std::fflush(stderr);
  std::_Exit(3);
}

}  // namespace

CheckpointWriter::CheckpointWriter(std::string dir, int stage, int tp_rank,
                                   std::function<void(const json&)> report)
    : dir_(std::move(dir)), stage_(stage), tp_rank_(tp_rank), report_(std::move(report)) {
  thread_ = std::thread([this] { loop(); });
}

CheckpointWriter::~CheckpointWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CheckpointWriter::submit(int iteration, c10::Dict<std::string, at::Tensor> shard) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Back-pressure: one snapshot may wait while another is written, not more.
  changed_.wait(lock, [&] { return queue_.empty() || error_; });
  if (error_) std::rethrow_exception(error_);
  queue_.emplace_back(iteration, std::move(shard));
  changed_.notify_all();
}

void CheckpointWriter::check() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

void CheckpointWriter::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
}

void CheckpointWriter::loop() {
  while (true) {
    std::pair<int, c10::Dict<std::string, at::Tensor>> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    changed_.notify_all();
    try {
      write(job.first, job.second);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = false;
    }
    changed_.notify_all();
  }
}

void CheckpointWriter::write(int iteration, const c10::Dict<std::string, at::Tensor>& shard) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<char> data = torch::pickle_save(c10::IValue(shard));
  const std::string bytes(data.begin(), data.end());
  const std::string step_dir = dir_ + "/" + stepDirName(iteration);
  makeDirs(step_dir);
  const std::string file = shardFileName(stage_, tp_rank_);
  if (faultMidWrite(stage_, tp_rank_, written_)) dieMidWrite(step_dir + "/" + file, bytes);
  writeFileDurably(step_dir + "/" + file, bytes);
  ++written_;
  report_(json{{"type", "checkpoint"},
               {"iteration", iteration},
               {"file", file},
               {"bytes", static_cast<std::int64_t>(bytes.size())},
               {"sha256", sha256Hex(bytes.data(), bytes.size())},
               {"write_seconds",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}});
}

std::vector<c10::Dict<std::string, at::Tensor>> loadReplica0Shards(const RunSpec& spec, int rank,
                                                                   const std::string& step_dir) {
  const RankPlacement& me = spec.ranks.at(static_cast<std::size_t>(rank));
  const Manifest manifest = Manifest::fromJson(json_util::readFile(step_dir + "/" + kManifestFile));
  std::map<std::string, ShardEntry> entries;
  for (const ShardEntry& e : manifest.shards) entries[e.file] = e;
  const int tp0 = spec.plan.stages.at(static_cast<std::size_t>(me.stage)).replicas.at(0).tp;
  // The same tp degree as replica 0: this tp rank's shard alone; another: all of them.
  std::vector<c10::Dict<std::string, at::Tensor>> out(static_cast<std::size_t>(tp0));
  for (int t = 0; t < tp0; ++t) {
    if (tp0 == me.tp && t != me.tp_rank) continue;
    const std::string file = shardFileName(me.stage, t);
    const auto entry = entries.find(file);
    if (entry == entries.end())
      throw std::runtime_error(step_dir + ": the manifest names no shard " + file);
    std::ifstream in(step_dir + "/" + file, std::ios::binary);
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (static_cast<std::int64_t>(data.size()) != entry->second.bytes ||
        sha256Hex(data.data(), data.size()) != entry->second.sha256)
      throw std::runtime_error(step_dir + "/" + file +
                               ": size or SHA-256 differs from the manifest (damaged checkpoint)");
    out[static_cast<std::size_t>(t)] =
        c10::impl::toTypedDict<std::string, at::Tensor>(torch::pickle_load(data).toGenericDict());
  }
  return out;
}

}  // namespace sailor::runner
