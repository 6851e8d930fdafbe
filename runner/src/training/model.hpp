// One pipeline stage of the GPT-style decoder, sharded over its tensor-parallel group:
// token + learned position embeddings, pre-norm blocks (causal self-attention, GELU MLP), final
// norm, LM head (tied to the token embedding or not) and cross-entropy loss. Attention heads and
// the MLP's inner width are split Megatron-style (QKV and fc1 column-parallel, output projection
// and fc2 row-parallel); embeddings, norms and the head are replicated inside the group.
//
// Under the interleaved schedule a rank holds its stage's v model chunks (Plan::chunkLayers),
// each computed on its own: forward(chunk, ...).
//
// Every parameter is first built in full from a seed derived from (run seed, layer, name), then
// this rank keeps its shard. So a parameter's values do not depend on how the model is split,
// and a run on many processes starts from exactly the weights of a single-process run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "sailor/runs/run_spec.hpp"

namespace sailor::runner {

struct Param {
  std::string name;     // e.g. "layer3.attn.qkv.weight"
  torch::Tensor value;  // this rank's shard, a leaf that requires grad
  std::vector<std::int64_t> full_shape;
  int shard_dim = -1;        // -1: replicated inside the tensor-parallel group
  torch::Tensor full_index;  // int64 positions of the shard along shard_dim in the full tensor
  bool tied_copy = false;    // the last stage's copy of a tied embedding (counted once in norms)
};

class StageModel {
 public:
  StageModel(const RunSpec& spec, const RankPlacement& placement, torch::Dtype dtype);

  // Fully sharded data parallelism works unit by unit (fully_sharded.hpp): the embeddings, each
  // block, the final norm with the head. A unit is a range [first, end) of params(); the units
  // of a chunk are contiguous and in the order of the forward.
  using Unit = std::pair<std::size_t, std::size_t>;
  const std::vector<Unit>& units() const { return units_; }
  std::pair<std::size_t, std::size_t> chunkUnits(int chunk) const {
    return chunks_.at(static_cast<std::size_t>(chunk)).units;
  }
  // The head is the token embedding itself (tied, on this rank): two units read one tensor.
  bool headIsEmbedding() const { return head_ != nullptr && head_ == tok_; }
  // Told before each unit's forward and after it, with the unit's output (forward only; the
  // recomputation inside a backward is not a forward).
  class UnitHooks {
   public:
    virtual ~UnitHooks() = default;
    virtual void beforeForward(std::size_t unit) = 0;
    virtual void afterForward(std::size_t unit, const torch::Tensor& output) = 0;
  };
  void setUnitHooks(UnitHooks* hooks) { hooks_ = hooks; }

  // Model chunk `chunk` (0 without interleaving). The chunk holding the embedding
  // (readsTokens): `input` is int64 tokens [b, s]; others: hidden states [b, s, h]. Returns
  // hidden states, or from the chunk holding the head the mean cross-entropy loss over `labels`
  // [b, s].
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& labels, int chunk = 0);

  std::vector<Param>& params() { return params_; }
  int chunkCount() const { return static_cast<int>(chunks_.size()); }
  // Parameters [first, end) of params() that belong to chunk `chunk` (contiguous, chunk by chunk).
  std::pair<std::size_t, std::size_t> chunkParams(int chunk) const {
    return chunks_.at(static_cast<std::size_t>(chunk)).params;
  }
  bool readsTokens(int chunk) const { return chunk == 0 && tok_ != nullptr; }
  bool computesLoss(int chunk) const { return isLast() && chunk + 1 == chunkCount(); }
  // Block `index` of this stage (0-based) on hidden states [b, s, h].
  torch::Tensor blockAt(const torch::Tensor& x, std::size_t index) const {
    return block(x, blocks_.at(index));
  }
  // Moves the non-parameter tensors (the causal mask) to the device the parameters train on.
  void moveBuffersTo(const torch::Device& device) { causal_mask_ = causal_mask_.to(device); }
  // Dtype of the hidden states between blocks and stages: bfloat16 under bf16 mixed precision
  // (NOTE [Mixed precision] in model.cpp), else the parameters' dtype.
  torch::Dtype activationDtype() const { return compute_; }
  // This rank holds the head (its last chunk does).
  bool isLast() const { return chunks_.back().last == spec_.model.layers + 1; }

 private:
  struct Block {
    Param* ln1_w = nullptr;
    Param* ln1_b = nullptr;
    Param* qkv_w = nullptr;
    Param* qkv_b = nullptr;
    Param* out_w = nullptr;
    Param* out_b = nullptr;
    Param* ln2_w = nullptr;
    Param* ln2_b = nullptr;
    Param* fc1_w = nullptr;
    Param* fc1_b = nullptr;
    Param* fc2_w = nullptr;
    Param* fc2_b = nullptr;
  };
  Param* add(const std::string& name, const std::vector<std::int64_t>& shape, int shard_dim,
             const std::vector<std::int64_t>& index, double init_std, double init_value);
  torch::Tensor weight(const Param* p) const;  // the parameter in the compute dtype
  torch::Tensor norm(const torch::Tensor& x, Param* w, Param* b) const;
  torch::Tensor block(const torch::Tensor& x, const Block& blk) const;

  const RunSpec& spec_;
  RankPlacement me_;
  torch::Dtype dtype_;    // parameters, gradients, optimizer state
  torch::Dtype compute_;  // matrix products and activations
  struct Chunk {
    int first = 0, last = 0;                     // plan layers, inclusive
    std::pair<std::size_t, std::size_t> blocks;  // [begin, end) in blocks_
    std::pair<std::size_t, std::size_t> params;  // [begin, end) in params_
    std::pair<std::size_t, std::size_t> units;   // [begin, end) in units_
  };
  std::vector<Chunk> chunks_;
  std::vector<Unit> units_;
  UnitHooks* hooks_ = nullptr;
  std::vector<Param> params_;  // reserved up front: Block holds pointers into it
  Param* tok_ = nullptr;
  Param* pos_ = nullptr;
  std::vector<Block> blocks_;
  Param* lnf_w_ = nullptr;
  Param* lnf_b_ = nullptr;
  Param* head_ = nullptr;
  torch::Tensor causal_mask_;
};

}  // namespace sailor::runner
