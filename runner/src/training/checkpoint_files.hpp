// A run's checkpoints on disk, free of libtorch (the controller and the workers both use it):
//
//   <checkpoint dir>/spec.json                  the workers' RunSpec, written when the run starts
//   <checkpoint dir>/step-<i>/stage-<s>-tp-<t>.pt  one shard per worker of replica 0, written by
//                                               that worker's background thread
//   <checkpoint dir>/step-<i>/spec.json         the RunSpec the shards were written under (an
//                                               elastic run's plan changes), by the controller
//   <checkpoint dir>/step-<i>/manifest.json     written by the controller last, once every shard
//                                               of step i is reported: a step without it is not a
//                                               checkpoint
//
// Every file is written durably: to a temporary file in the same directory, fsync, rename over
// the final name, fsync of the directory (writeFileDurably). A reader therefore sees a whole file
// or none, and a manifest that exists names shards that were on disk before it was renamed.
// docs/checkpoints.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sailor::runner {

// Writes `bytes` to `path` atomically and durably (temporary file, fsync, rename, fsync of the
// directory). Throws std::runtime_error naming the path and errno's message; a write that fails
// (a full disk, an I/O error) removes its temporary file before throwing, so that it takes no
// space.
void writeFileDurably(const std::string& path, const std::string& bytes);
// Creates `dir` and its missing parents (mode 0700 for the new ones). Throws on failure.
void makeDirs(const std::string& dir);
// fsync of a directory: makes the names created or renamed in it durable.
void syncDir(const std::string& dir);
// Removes the files directly in `dir`, then `dir` itself (a checkpoint's step directory, a run's
// private directory); what cannot be removed stays, without an error. Plain POSIX calls, not
// std::filesystem::remove_all: PyTorch's own libtorch builds (pip wheels, 2.x) export a copy of
// libstdc++'s filesystem code that the dynamic linker binds instead, and its remove_all crashes
// sailor-run at exit.
void removeDirectoryAndFiles(const std::string& dir);

std::string sha256Hex(const void* data, std::size_t size);
// SHA-256 of the spec JSON without the fields a resume may change (iterations): a checkpoint
// restores only into the run it was written by.
std::string specFingerprint(const nlohmann::json& spec);

std::string stepDirName(int iteration);             // "step-7"
std::string shardFileName(int stage, int tp_rank);  // "stage-1-tp-0.pt"
constexpr const char* kManifestFile = "manifest.json";
constexpr const char* kStepSpecFile = "spec.json";

struct ShardEntry {
  std::string file;  // name inside the step directory
  std::int64_t bytes = 0;
  std::string sha256;
};

struct Manifest {
  int iteration = 0;        // the last iteration whose update the shards hold
  std::string fingerprint;  // specFingerprint of the run's spec
  // The run the checkpoint belongs to: its store's identity (RunStore::storeId) and its id in
  // that store; "" and 0 in a manifest that names none. `--resume` restores only its own.
  std::string store_id;
  std::int64_t run_id = 0;
  std::vector<ShardEntry> shards;
  nlohmann::json toJson() const;
  static Manifest fromJson(const nlohmann::json& j);  // throws InputError naming the field
};

// The complete checkpoints of `dir`, oldest first: step directories whose manifest reads and
// whose shards all exist with the sizes it names. Incomplete steps are left out.
std::vector<Manifest> completeCheckpoints(const std::string& dir);
// The step directories of `dir` (complete or not) by iteration, oldest first.
std::vector<int> stepDirs(const std::string& dir);

}  // namespace sailor::runner
