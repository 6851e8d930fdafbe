// A worker's side of in-place reconfiguration (docs/runtime.md "Elasticity"):
//   - ControlChannel: the controller's commands, JSON lines on the worker's stdin;
//   - Membership: who takes part in a reconfiguration and what each holds;
//   - exchangeState: parameters and optimizer state moved from the workers that hold them to
//     their new owners, over a process group of the new generation;
//   - abortTransport: unblocks every collective of a broken world (a peer died).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/torch.h>

#include "sailor/runs/run_spec.hpp"
#include "training/comm.hpp"

namespace sailor::runner {

// The controller's commands to this worker: JSON lines on stdin (a local run), or, for a worker
// of a cluster run (no pipe from the controller), the values of the keys <prefix>/0, <prefix>/1,
// ... in the run's token-checked store (NOTE [Control through the store]). Read on a thread of its
// own: {"type":"pause"} sets a flag the training loop reads between iterations, {"type":"abort"}
// unblocks this worker's collectives (abortTransport), {"type":"stop"} ends the process at once
// (exit 143, a stopping run's); any other command waits in a queue for next(). When stdin ends
// nothing more comes.
//
// NOTE [Control through the store]: the controller of a cluster run reaches a worker through the
// store rank 0 hosts, over a connection of its own that proves the run's token like every other:
// a command is stored under control/<worker>/<n>, n taken with add(control/<worker>/next, 1) (the
// store counts, not the controller); <worker> is the controller's index of the worker (its rank
// for the run's first workers, --control-id for those that join). The worker reads n = 0, 1, ...
// in order, each once, over a connection of its own.
class ControlChannel {
 public:
  ControlChannel();  // stdin
  // The store's keys under `prefix`, read over `store` (a connection no one else uses).
  ControlChannel(c10::intrusive_ptr<c10d::Store> store, std::string prefix,
                 std::string store_address);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  bool pauseRequested() const { return pause_.load(); }
  void clearPause() { pause_ = false; }
  // The store's HOST:PORT for a cluster run's channel (abortTransport keeps its sockets).
  const std::string& storeAddress() const { return store_address_; }
  // The next command that is not a pause; throws std::runtime_error when stdin has ended.
  nlohmann::json next();

 private:
  void loop();
  void storeLoop();
  void take(const std::string& line);
  void end();
  std::atomic<bool> pause_{false};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<nlohmann::json> queue_;
  bool ended_ = false;
  c10::intrusive_ptr<c10d::Store> store_;
  std::string prefix_, store_address_;
  std::thread thread_;
};

// The workers of a reconfiguration, in the order of the transfer group: first the new world's
// ranks 0..N-1 (member i is new rank i), then the workers that leave but hold state the new
// world needs. A holder is a worker whose state is that after iteration `state_iteration`.
struct Member {
  int old_rank = -1;  // its rank in the old world; -1: a worker that joins
  bool holder = false;
};
struct Membership {
  int generation = 0;
  int state_iteration = -1;  // the last iteration whose update the holders' state includes
  std::vector<Member> members;
  int new_world_size = 0;
  static Membership fromJson(const nlohmann::json& j);
};

// Plan layer (0: embeddings, 1..L: blocks, L + 1: final norm and head) a parameter belongs to:
// its home. A tied embedding's copy on the last stage has home 0 (it is taken from the stage
// that holds layer 0, whose values it equals).
int homeLayer(const std::string& param_name, int layers);

// What one member received: for each old (stage, replica) it took state from, that replica's
// shards by tp rank (Trainer::restoreFrom), and the bytes it received.
struct ReceivedState {
  std::vector<std::vector<c10::Dict<std::string, at::Tensor>>> replica_sets;
  std::int64_t bytes = 0;
};

// Moves state over `group` (the transfer group: every member, in Membership order). For every
// old stage the members choose one replica whose every tp rank is a holder (the lowest such
// replica: each member computes the same choice); each of its workers sends every new rank the
// parameters whose home layer that rank's new stage needs (its layers, and layer 0 for a tied
// last stage), as one dictionary packed as bytes (two messages: size, then bytes). `mine`: this
// member's snapshot (Trainer::snapshot; empty for a joiner). Throws when some layer has no complete
// replica among the holders (the caller then restores from a checkpoint).
ReceivedState exchangeState(const RunSpec& old_spec, const RunSpec& new_spec,
                            const Membership& membership, int me,
                            const c10::Dict<std::string, at::Tensor>& mine, const GroupPtr& group);

// Shuts down (not closes) every TCP socket of this process except `keep` and, when
// `store_address` (HOST:PORT) is given, the rendezvous store's: those to it and, in the process
// that hosts it, its own. Every blocked send, receive and collective of the broken world's groups
// then fails at once instead of waiting for the collective timeout, here and, through the closed
// connections, at the peers; the groups can then be destroyed. Returns how many it shut down.
int abortTransport(const std::vector<int>& keep, const std::string& store_address = "");

}  // namespace sailor::runner
