#include "backend_choice.hpp"

#include "sailor/core/error.hpp"

namespace sailor::runner {

namespace {

std::string gpus(int n) {
  return std::to_string(n) + (n == 1 ? " visible GPU" : " visible GPUs");
}

}  // namespace

BackendChoice resolveBackend(const std::string& requested, int local_ranks, bool nccl_built,
                             int visible_gpus, bool allow_gpu_sharing) {
  if (requested == "gloo") return {"gloo", ""};
  const bool enough = visible_gpus >= local_ranks || (allow_gpu_sharing && visible_gpus > 0);
  if (requested == "nccl") {
    if (!nccl_built)
      throw InputError("--backend", "nccl",
                       "gloo or auto: this build has no NCCL (libtorch without CUDA)");
    if (visible_gpus <= 0)
      throw InputError("--backend", "nccl on a machine with no visible CUDA device",
                       "a GPU per rank, or --backend gloo to train on CPU");
    if (!enough)
      throw InputError("--backend",
                       "nccl for " + std::to_string(local_ranks) + " ranks on a machine with " +
                           gpus(visible_gpus),
                       "at least one GPU per rank (NCCL refuses two ranks of one communicator "
                       "on the same GPU; use --backend gloo to train on CPU, or a plan of at "
                       "most " +
                           std::to_string(visible_gpus) + " GPUs)");
    return {"nccl", ""};
  }
  if (requested != "auto")
    throw InputError("--backend", "\"" + requested + "\"", "\"auto\", \"gloo\" or \"nccl\"");
  if (!nccl_built || visible_gpus <= 0) return {"gloo", ""};
  if (!enough)
    return {"gloo", std::to_string(local_ranks) + " ranks on a machine with " + gpus(visible_gpus) +
                        ": NCCL needs one GPU per rank, so this run trains on CPU with Gloo"};
  return {"nccl", ""};
}

}  // namespace sailor::runner
