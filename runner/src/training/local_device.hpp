// The local device as `sailor profile` names it and `sailor run` looks its profile up: the GPU
// type "cpu-<model name of /proc/cpuinfo>" ("cpu-amd-epyc-7b13-64-core-processor") for CPU
// processes, or the CUDA device's name in the same form. Header-only, shared by
// profile_main.cpp and run_main.cpp so that both say the same name.
#pragma once

#include <cctype>
#include <fstream>
#include <string>

#if defined(SAILOR_WITH_CUDA) || defined(SAILOR_WITH_NCCL)
#include <ATen/cuda/CUDAContext.h>
#endif

namespace sailor::runner {

// The value of the first /proc/cpuinfo line starting with `key`, or "".
inline std::string cpuInfoField(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

// "AMD EPYC 7B13 64-Core Processor" -> "amd-epyc-7b13-64-core-processor".
inline std::string slug(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

// The GPU-type name of the local device of kind "cpu" or "cuda" (CUDA device 0).
inline std::string localDeviceName(const std::string& kind) {
#if defined(SAILOR_WITH_CUDA) || defined(SAILOR_WITH_NCCL)
  if (kind == "cuda") return slug(at::cuda::getDeviceProperties(0)->name);
#endif
  (void)kind;
  return "cpu-" + slug(cpuInfoField("model name"));
}

}  // namespace sailor::runner
