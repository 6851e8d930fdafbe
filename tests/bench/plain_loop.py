"""The runtime's model trained by PyTorch from Python: the second baseline of runtime_bench.py.

The same structure as tests/bench/plain_loop.cpp (and the model of runner/src/training/model.cpp): token
and position embeddings, pre-norm blocks (LayerNorm, QKV / out / fc1 / fc2 linears with bias,
manual causal attention, exact GELU), final LayerNorm, head tied to the token embedding,
cross-entropy; AdamW (weight decay 0.01, the runtime's warm-up + cosine schedule), gradient
accumulation over m microbatches with loss / m, global-norm clipping to 1.0, the runtime's
synthetic data, float32, one intra-op and one inter-op thread. Meant for Debian's python3-torch
(/usr/bin/python3), which runs on the same libtorch as the runtime.

The data come from the engine's TokenSource through `plain_loop --print-samples` (same model
options), so that both loops train on exactly the runtime's samples:

  build/tests/bench/plain_loop --iterations 30 --print-samples > samples.txt
  /usr/bin/python3 plain_loop.py --samples samples.txt --iterations 30 [--layers 24 ...]

With --world N (and --rank R, --port P, one process per rank on this machine) the loop is
PyTorch DDP over Gloo: rank d trains microbatches u D + d of each iteration (the runtime's
sample order for D pipelines), the gradients of all but the last microbatch accumulated under
no_sync(), the last backward's buckets all-reduced as they fill (DDP's overlap, its default
25 MB buckets); rank 0 prints.

Prints one JSON line per iteration: {"iteration": i, "loss": x, "seconds": s}.
"""

import argparse
import contextlib
import json
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, h, heads, ffn):
        super().__init__()
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.out = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc1 = nn.Linear(h, ffn)
        self.fc2 = nn.Linear(ffn, h)
        self.heads = heads
        self.head_dim = h // heads

    def forward(self, x, mask):
        B, S, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, -1)

        def split(t):
            return t.view(B, S, self.heads, self.head_dim).transpose(1, 2)

        q, k, v = split(q), split(k), split(v)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        scores = scores + mask
        ctx = torch.matmul(torch.softmax(scores, -1), v)
        ctx = ctx.transpose(1, 2).reshape(B, S, self.heads * self.head_dim)
        hidden = x + self.out(ctx)
        return hidden + self.fc2(F.gelu(self.fc1(self.ln2(hidden))))


class Gpt(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.tok = nn.Embedding(c.vocab, c.hidden)
        self.pos = nn.Embedding(c.seq_len, c.hidden)
        self.blocks = nn.ModuleList(Block(c.hidden, c.heads, c.ffn) for _ in range(c.layers))
        self.lnf = nn.LayerNorm(c.hidden)
        self.register_buffer(
            "mask", torch.full((c.seq_len, c.seq_len), float("-inf")).triu(1))
        # The runtime's initialization scheme (GPT-2's), not its values.
        std0, std_out = 0.02, 0.02 / math.sqrt(2.0 * c.layers)
        with torch.no_grad():
            self.tok.weight.normal_(0, std0)
            self.pos.weight.normal_(0, std0)
            for b in self.blocks:
                b.qkv.weight.normal_(0, std0)
                b.fc1.weight.normal_(0, std0)
                b.out.weight.normal_(0, std_out)
                b.fc2.weight.normal_(0, std_out)
                for lin in (b.qkv, b.out, b.fc1, b.fc2):
                    lin.bias.zero_()

    def forward(self, inputs, labels):
        S = inputs.shape[1]
        x = self.tok(inputs) + self.pos(torch.arange(S))
        mask = self.mask[:S, :S]
        for b in self.blocks:
            x = b(x, mask)
        logits = F.linear(self.lnf(x), self.tok.weight)  # tied head
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


def learning_rate_at(c, iteration):
    """The runtime's schedule: 2 warm-up iterations, cosine to lr / 10."""
    warmup, min_lr = 2, c.lr / 10
    if iteration < warmup:
        return c.lr * (iteration + 1) / warmup
    decay = max(1, c.iterations - warmup)
    progress = min(1.0, (iteration - warmup) / decay)
    return min_lr + 0.5 * (c.lr - min_lr) * (1.0 + math.cos(math.pi * progress))


def tokens(c, samples, iteration, microbatch, pipeline=0, pipelines=1):
    """Inputs and labels of one microbatch, indexed as Trainer::tokens."""
    base = iteration * c.global_batch + (microbatch * pipelines + pipeline) * c.microbatch
    rows = samples[base:base + c.microbatch]
    inputs = torch.tensor([s[:c.seq_len] for s in rows], dtype=torch.int64)
    labels = torch.tensor([s[1:] for s in rows], dtype=torch.int64)
    return inputs, labels


def read_samples(c):
    with open(c.samples) as f:
        samples = [[int(t) for t in line.split()] for line in f if line.strip()]
    if len(samples) < c.iterations * c.global_batch or any(len(s) != c.seq_len + 1 for s in samples):
        sys.exit(f"plain_loop.py: {c.samples} holds {len(samples)} samples; expected "
                 f"{c.iterations * c.global_batch} of {c.seq_len + 1} tokens "
                 "(plain_loop --print-samples with the same options)")
    return samples


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in [("layers", 24), ("hidden", 256), ("heads", 16), ("ffn", 1024),
                          ("vocab", 256), ("seq-len", 64), ("global-batch", 8),
                          ("microbatch", 2), ("iterations", 30), ("seed", 1234)]:
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--samples", required=True,
                   help="token samples, one per line (plain_loop --print-samples)")
    p.add_argument("--world", type=int, default=1, help="DDP processes (Gloo)")
    p.add_argument("--rank", type=int, default=0)
    p.add_argument("--port", type=int, default=29511)
    c = p.parse_args()
    if c.hidden % c.heads or c.global_batch % c.microbatch:
        sys.exit("plain_loop.py: inconsistent configuration (hidden % heads, global-batch % microbatch)")
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(c.seed)
    samples = read_samples(c)
    model = Gpt(c)
    D = c.world
    m = c.global_batch // c.microbatch
    if D > 1:
        import torch.distributed as dist
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{c.port}", rank=c.rank,
                                world_size=D)
        model = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=c.lr, weight_decay=0.01)
    mine = range(m // D + (1 if c.rank < m % D else 0))  # this pipeline's microbatches
    for it in range(c.iterations):
        t0 = time.perf_counter()
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(c, it)
        optimizer.zero_grad()
        loss_sum = 0.0
        for k, u in enumerate(mine):
            inputs, labels = tokens(c, samples, it, u, c.rank, D)
            accumulate = D > 1 and k + 1 < len(mine)
            with model.no_sync() if accumulate else contextlib.nullcontext():
                loss = model(inputs, labels)
                loss_sum += loss.item()
                # DDP averages over the D ranks: loss x D / m sums the global batch's mean.
                (loss * D / m).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        seconds = time.perf_counter() - t0
        if c.rank == 0:
            print(json.dumps({"iteration": it, "loss": loss_sum / len(mine), "seconds": seconds}),
                  flush=True)
    if D > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
