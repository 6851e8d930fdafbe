// Which c10d backend a run uses, decided by the controller before any process starts. Free of
// libtorch, so that the rule is tested without it (tests/runtime/test_backend_choice.cpp).
#pragma once

#include <string>

namespace sailor::runner {

struct BackendChoice {
  std::string backend;  // "gloo" or "nccl": what every worker is told to use
  std::string warning;  // non-empty: why "auto" fell back to Gloo although GPUs are visible
};

// requested: "auto", "gloo" or "nccl" (--backend). local_ranks: worker processes on this
// machine. nccl_built: this build has c10d's NCCL backend (libtorch with CUDA). visible_gpus:
// CUDA devices the workers will see (they inherit CUDA_VISIBLE_DEVICES).
//
// NCCL needs one GPU per rank: it refuses a communicator in which two ranks sit on one GPU
// ("Duplicate GPU detected"), so "nccl" with fewer GPUs than ranks is bad input (InputError),
// and "auto" then falls back to Gloo on CPU with a warning. allow_gpu_sharing
// ($SAILOR_ALLOW_GPU_SHARING=1) skips that check, to see what NCCL itself does.
BackendChoice resolveBackend(const std::string& requested, int local_ranks, bool nccl_built,
                             int visible_gpus, bool allow_gpu_sharing = false);

}  // namespace sailor::runner
