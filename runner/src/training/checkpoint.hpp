// A worker's side of checkpoints (docs/checkpoints.md): the background
// writer of its shards and the loading of replica 0's shards on resume. Files and manifests:
// checkpoint_files.hpp.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "sailor/runs/run_spec.hpp"

namespace sailor::runner {

// Writes snapshots (Trainer::snapshot) on a thread of its own, one at a time, in the order they
// were given: serialised (torch::pickle_save, readable by torch.load), written durably to
// <dir>/step-<i>/stage-<s>-tp-<t>.pt, then reported through `report` as
// {"type":"checkpoint","iteration","file","bytes","sha256","write_seconds"}. Training waits only
// for the snapshot's copy into CPU tensors, and for the writer when a second snapshot comes while
// one is still waiting to be written (at most one waits: memory stays bounded at two copies).
class CheckpointWriter {
 public:
  CheckpointWriter(std::string dir, int stage, int tp_rank,
                   std::function<void(const nlohmann::json&)> report);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  void submit(int iteration, c10::Dict<std::string, at::Tensor> shard);
  // Waits until every snapshot is written; rethrows the writer's error, if any.
  void finish();
  // Rethrows the writer's error, if it had one (checked between iterations).
  void check();

 private:
  void loop();
  void write(int iteration, const c10::Dict<std::string, at::Tensor>& shard);

  std::string dir_;
  int stage_, tp_rank_;
  std::function<void(const nlohmann::json&)> report_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<int, c10::Dict<std::string, at::Tensor>>> queue_;
  bool busy_ = false, stop_ = false;
  int written_ = 0;  // shards written so far (the test fault trips on the second)
  std::exception_ptr error_;
  std::thread thread_;
};

// The shards a rank of `spec` restores from the step directory `step_dir`: those of replica 0 of
// its stage, by tp rank, each checked against the manifest's size and SHA-256.
std::vector<c10::Dict<std::string, at::Tensor>> loadReplica0Shards(const RunSpec& spec, int rank,
                                                                   const std::string& step_dir);

}  // namespace sailor::runner
