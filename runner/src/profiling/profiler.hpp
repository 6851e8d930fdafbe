// `sailor profile`: measures the local device with the runtime's own layers (StageModel, the
// code that trains) and writes a profile in the project's format (docs/formats.md, "Profile"),
// a GPU-type entry for the device and the fitted link model of its local ranks
// (docs/closed-loop.md, "Profiling the local device").
//
// The pieces here run inside one measuring process (one rank of a tensor-parallel group, or one
// of the two link ranks); profile_main.cpp starts those processes, keeps the partial results
// and assembles the files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/runs/run_spec.hpp"

namespace sailor::runner {

// What one measuring process does, read from its command line.
struct MeasureTask {
  RunSpec spec;                   // the profiling plan: stages [0], [1], [2..L], [L+1]
  int tp_rank = 0;                // index in the tensor-parallel group (spec.plan's tp)
  std::vector<int> microbatches;  // sizes still to measure at this tp
  int repeats = 5;                // timed repetitions per layer (median kept)
  std::string store_path;         // FileStore of the group (unused for tp 1)
  std::string partial_dir;        // where rank 0 writes one file per finished unit
  std::string device = "cpu";     // "cpu" or "cuda"
};

// Measures every microbatch size of `task` (forward and backward per layer, optimizer step,
// memory per layer, the process's fixed resident memory); rank 0 writes each size's result to
// `partial_dir/tp<T>-mbs<B>.json` atomically as soon as it is measured. Progress on stderr.
void measureLayers(const MeasureTask& task);

// The links between two local ranks: point-to-point (ping-pong) and all-reduce seconds over
// message sizes, over Gloo; rank 0 writes `partial_dir/links.json`.
void measureLinks(int rank, const std::string& store_path, const std::string& partial_dir,
                  const std::vector<double>& sizes_bytes, int repeats);

// Single-thread matrix-product rate (FLOP/s) and copy bandwidth (bytes/s) of this device: the
// figures a GPU-type entry needs for the analytic fallback.
nlohmann::json measureDeviceRates(const std::string& device);

// Least-squares fit of seconds = latency + bytes / bandwidth. Returns {latency_s,
// bandwidth_bytes_per_s}; a negative intercept or a slope that is not positive (noise) refits
// through the origin, so positive figures always give a positive bandwidth.
std::pair<double, double> fitLatencyBandwidth(const std::vector<double>& bytes,
                                              const std::vector<double>& seconds);

// Resident set now (VmRSS) and its high-water mark (VmHWM) of this process, bytes.
std::int64_t residentBytes();
std::int64_t peakResidentBytes();

}  // namespace sailor::runner
