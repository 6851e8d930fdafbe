// Elastic reconfiguration of a local run (elastic_reconfig.hpp): the triggers, the pause, the
// new plan's ranks given to the survivors, the move to the new world and its reconfigured event.
#include "elastic_reconfig.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "sailor/core/json_util.hpp"
#include "training/checkpoint_files.hpp"

namespace sailor::runner {

using nlohmann::json;

namespace {
// Availability without zero entries, for comparisons.
Availability nonZero(const Availability& a) {
  Availability out;
  for (const auto& [site, n] : a)
    if (n > 0) out[site] = n;
  return out;
}

// True when, for every stage of `spec`, some replica has every tp rank in `holders`.
bool coversModel(const RunSpec& spec, const std::set<int>& holders, int& missing_stage) {
  for (std::size_t s = 0; s < spec.plan.stages.size(); ++s) {
    bool any = false;
    for (int d = 0; d < spec.data_parallel && !any; ++d) {
      const std::vector<int> ranks = spec.replicaRanks(static_cast<int>(s), d);
      any = std::all_of(ranks.begin(), ranks.end(), [&](int r) { return holders.count(r) > 0; });
    }
    if (!any) {
      missing_stage = static_cast<int>(s);
      return false;
    }
  }
  return true;
}

// Which new rank each survivor takes (none: a new worker): one of the same GPU type and zone,
// with the most layers in common with what it holds (the least state to move). `taken` marks the
// survivors that got one.
std::vector<SupervisedWorker*> assignRanks(const RunSpec& old, const RunSpec& next,
                                           const std::vector<SupervisedWorker*>& survivors,
                                           std::vector<bool>& taken) {
  std::vector<SupervisedWorker*> taker(next.ranks.size(), nullptr);
  for (std::size_t k = 0; k < next.ranks.size(); ++k) {
    const RankPlacement& np = next.ranks[k];
    const auto ns = next.plan.chunkLayers(static_cast<std::size_t>(np.stage));
    int best = -1, best_overlap = -1;
    for (std::size_t i = 0; i < survivors.size(); ++i) {
      const SupervisedWorker* w = survivors[i];
      if (taken[i] || w->place.gpu_type != np.gpu_type || w->place.zone != np.zone) continue;
      int overlap = 0;  // layers in common, over the chunks of both
      for (const auto& [of, ol] : old.plan.chunkLayers(static_cast<std::size_t>(w->place.stage)))
        for (const auto& [nf, nl] : ns)
          overlap += std::max(0, std::min(ol, nl) - std::max(of, nf) + 1);
      if (overlap > best_overlap) {
        best = static_cast<int>(i);
        best_overlap = overlap;
      }
    }
    if (best >= 0) {
      taker[k] = survivors[static_cast<std::size_t>(best)];
      taken[static_cast<std::size_t>(best)] = true;
    }
  }
  return taker;
}

// The state's iteration: the latest one whose holders among the survivors have a complete
// replica of every stage of `old` (a worker whose world broke after its optimizer step is ahead
// of the others by one); -1 when none has, with a stage no one holds in `missing_stage`.
int stateIteration(const RunSpec& old, const std::vector<SupervisedWorker*>& survivors,
                   int& missing_stage) {
  std::set<int, std::greater<>> candidates;
  for (const SupervisedWorker* w : survivors) candidates.insert(*w->state_iteration);
  for (const int it : candidates) {
    std::set<int> holders;
    for (const SupervisedWorker* w : survivors)
      if (*w->state_iteration == it) holders.insert(w->place.rank);
    if (coversModel(old, holders, missing_stage)) return it;
  }
  return -1;
}

}  // namespace

ElasticReconfig::ElasticReconfig(ReconfigHost& host, Launcher& launcher,
                                 const ControllerOptions& options, ReconfigSetup setup)
    : host_(host),
      launcher_(launcher),
      options_(options),
      run_dir_(std::move(setup.run_dir)),
      rendezvous_(std::move(setup.rendezvous)),
      checkpoint_dir_(std::move(setup.checkpoint_dir)),
      store_id_(std::move(setup.store_id)),
      run_id_(setup.run_id),
      cluster_(setup.cluster),
      available_(options.trace.empty() ? planAvailability(host.worldSpec().plan)
                                       : options.trace.front().gpus),
      spec_files_{std::move(setup.spec_file)} {
  openControlSocket();
}

ElasticReconfig::~ElasticReconfig() {
  if (control_fd_ >= 0) ::close(control_fd_);
}

// The workers' new places: survivors take theirs (the others leave), standby workers that got a
// place join, standby workers not needed are told to leave, new workers start with `commands`.
void ElasticReconfig::enterNewWorld(const RunSpec& next,
                                    const std::vector<SupervisedWorker*>& survivors,
                                    const std::vector<SupervisedWorker*>& taker,
                                    const std::vector<WorkerCommand>& commands) {
  for (SupervisedWorker* w : survivors) {
    w->active = false;
    w->leaving = true;
    w->state_iteration.reset();
  }
  for (SupervisedWorker& w : workers())
    if (w.lost) w.active = false;
  for (std::size_t k = 0; k < taker.size(); ++k)
    if (SupervisedWorker* w = taker[k]) {
      w->active = true;
      w->leaving = false;
      w->place = next.ranks[k];
      w->reconfigured = json();
    }
  for (SupervisedWorker& w : workers())
    if (w.joined) w.active = true;  // the standby workers that took a place
  for (SupervisedWorker& w : workers())
    if (w.standby && !w.exited) {  // started for a plan that changed since: not needed
      send(w, json{{"type", "leave"}});
      w.standby = false;
    }
  if (commands.empty()) return;
  const std::vector<LaunchedWorker> launched = launcher_.launch(commands);
  for (std::size_t i = 0; i < launched.size(); ++i) {
    SupervisedWorker w;
    w.place = commands[i].place;
    w.io = launched[i];
    w.joined = true;
    w.last_seen = w.launched_at = Clock::now();
    workers().push_back(std::move(w));
  }
}

std::vector<SupervisedWorker*> ElasticReconfig::activeWorkers() {
  std::vector<SupervisedWorker*> out;
  for (SupervisedWorker& w : workers())
    if (w.active) out.push_back(&w);
  std::sort(out.begin(), out.end(), [](const SupervisedWorker* a, const SupervisedWorker* b) {
    return a->place.rank < b->place.rank;
  });
  return out;
}

void ElasticReconfig::send(SupervisedWorker& w, const json& command) {
  if (w.io.in_fd >= 0) {
    w.send(command);
    return;
  }
  launcher_.sendControl(static_cast<std::size_t>(&w - workers().data()), command.dump());
}

std::string ElasticReconfig::storeArgument() const {
  if (!cluster_) return rendezvous_;
  const std::string file = rendezvous_.substr(rendezvous_.find(':') + 1);  // "tcp:<file>"
  std::string address = json_util::readText(file);
  while (!address.empty() && (address.back() == '\n' || address.back() == ' ')) address.pop_back();
  return address;
}

std::string ElasticReconfig::beyondAllocation(const Availability& next) const {
  if (!cluster_) return {};
  for (const auto& [site, n] : next) {
    if (n <= 0) continue;
    const int held = componentTasks(options_.slurm_components, site.first, site.second);
    const std::string name = site.first + "@" + site.second;
    if (held < 0)
      return "gpus." + name + ": the Slurm job has no component for " + name +
             " (a Slurm run resizes within the pools it was submitted with)";
    if (n > held)
      return "gpus." + name + ": " + std::to_string(n) + ", beyond the " + std::to_string(held) +
             " its Slurm job holds (a Slurm run grows back within its allocation)";
  }
  return {};
}

// `sailor runs resize` reaches the controller through a Unix socket in the run's private
// directory (mode 0700: only this user gets in; no port is opened). One request per connection:
// {"type":"resize","gpus":{"<type>@<zone>": N, ...}} sets what the job has of each named (type,
// zone) and re-plans; the answer is one line {"ok": bool, "message": text}.
void ElasticReconfig::openControlSocket() {
  const std::string path = run_dir_ + "/control.sock";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return;  // a $TMPDIR too long: no resize, the run goes on
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 4) != 0) {
    ::close(fd);
    return;
  }
  control_fd_ = fd;
}

std::optional<Ending> ElasticReconfig::serveControl() {
  if (control_fd_ < 0) return std::nullopt;
  const int c = ::accept4(control_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (c < 0) return std::nullopt;
  std::string line;
  pollfd pfd{c, POLLIN, 0};
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (line.find('\n') == std::string::npos && line.size() < 65536 && Clock::now() < deadline) {
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(c, buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<std::size_t>(n));
  }
  auto answer = [&](bool ok, const std::string& message) {
    const std::string out = json{{"ok", ok}, {"message", message}}.dump() + "\n";
    (void)!::write(c, out.data(), out.size());
    ::close(c);
  };
  json req;
  try {
    req = json_util::parseText(line.substr(0, line.find('\n')), "resize request");
  } catch (const std::exception& e) {
    answer(false, e.what());
    return std::nullopt;
  }
  if (!req.is_object() || req.value("type", "") != "resize" || !req.contains("gpus") ||
      !req["gpus"].is_object() || req["gpus"].empty()) {
    answer(false, "expected {\"type\":\"resize\",\"gpus\":{\"TYPE@ZONE\": N}}");
    return std::nullopt;
  }
  if (phase_ == Phase::Preparing || phase_ == Phase::Draining || phase_ == Phase::Moving) {
    answer(false,
           "a reconfiguration is under way (" + reconf_->detail + "); try again when it ends");
    return std::nullopt;
  }
  Availability next = available_;
  for (const auto& [site, n] : req["gpus"].items()) {
    const std::size_t at = site.find('@');
    if (at == std::string::npos || !n.is_number_integer() || n.get<std::int64_t>() < 0 ||
        n.get<std::int64_t>() > 1000000) {
      answer(false, "gpus." + site + ": expected TYPE@ZONE and a GPU count from 0 to 1000000");
      return std::nullopt;
    }
    next[{site.substr(0, at), site.substr(at + 1)}] = n.get<int>();
  }
  if (nonZero(next).empty()) {
    answer(false, "expected at least one GPU: a run cannot train on none (Stop ends it)");
    return std::nullopt;
  }
  if (const std::string why = beyondAllocation(next); !why.empty()) {
    answer(false, why);
    return std::nullopt;
  }
  if (nonZero(next) == nonZero(available_)) {
    answer(true, "the run has " + describeAvailability(nonZero(available_)) + " already");
    return std::nullopt;
  }
  available_ = next;
  const std::string detail = "resize: " + describeAvailability(nonZero(next));
  answer(true, "re-planning on " + describeAvailability(nonZero(next)));
  return trigger("resize", detail);
}

void ElasticReconfig::notice(SupervisedWorker& w, const std::string& signal) {
  takeNotice(w, "preemption", "preemption notice (" + signal + ")");
}

void ElasticReconfig::takeNotice(SupervisedWorker& w, const std::string& cause,
                                 const std::string& why) {
  if (w.noticed || w.lost || !w.active) return;
  w.noticed = true;
  int& n = available_[{w.place.gpu_type, w.place.zone}];
  n = std::max(0, n - 1);
  notices_.emplace_back(cause, "rank " + std::to_string(w.place.rank) + ": " + why);
}

std::optional<Ending> ElasticReconfig::watchNodes() {
  for (const auto& [node, state] : launcher_.nodeStates()) {
    const bool down = state.rfind("down", 0) == 0 || (!state.empty() && state.back() == '*');
    const bool leaving = !down && (state.rfind("drain", 0) == 0 || state.rfind("fail", 0) == 0);
    if (down && phase_ != Phase::Moving) {
      for (SupervisedWorker& w : workers())
        if (w.active && !w.lost && w.node == node)
          if (auto ending = workerLost(w, "node " + node + " is " + state + " (Slurm)"))
            return ending;
    } else if (leaving) {
      for (SupervisedWorker& w : workers())
        if (w.active && !w.lost && !w.noticed && w.node == node) {
          takeNotice(w, "node", "node " + node + " " + state + " (Slurm)");
          ++node_out_[node][{w.place.gpu_type, w.place.zone}];
        }
    } else if (!down && node_out_.count(node) &&
               (phase_ == Phase::Training || phase_ == Phase::Waiting)) {
      for (const auto& [site, n] : node_out_[node]) available_[site] += n;
      node_out_.erase(node);
      if (auto ending = trigger("node", "node " + node + " " + state + " again (Slurm): " +
                                            describeAvailability(nonZero(available_))))
        return ending;
    }
  }
  return std::nullopt;
}

void ElasticReconfig::stopWorkers() noexcept {
  for (SupervisedWorker& w : workers()) {
    if (w.exited) continue;
    try {
      send(w, json{{"type", "stop"}});
    } catch (const std::exception&) {  // the launcher stops it anyway
    }
  }
}

std::optional<Ending> ElasticReconfig::step() {
  if (auto ending = serveControl()) return ending;
  if (cluster_)
    if (auto ending = watchNodes()) return ending;
  if (!notices_.empty() && (phase_ == Phase::Training || phase_ == Phase::Waiting)) {
    std::string detail;
    for (const auto& [cause, text] : notices_) detail += (detail.empty() ? "" : "; ") + text;
    const std::string cause = notices_.front().first;
    notices_.clear();
    if (auto ending = trigger(cause, detail)) return ending;
  }
  if (trace_start_ && next_trace_row_ < options_.trace.size() &&
      (phase_ == Phase::Training || phase_ == Phase::Waiting)) {
    const AvailabilityStep& row = options_.trace[next_trace_row_];
    if (secondsSince(*trace_start_) >= row.at_s) {
      ++next_trace_row_;
      if (nonZero(row.gpus) != nonZero(available_)) {
        available_ = row.gpus;
        if (auto ending =
                trigger("trace", "trace " + row.label + ": " + describeAvailability(row.gpus)))
          return ending;
      }
    }
  }
  if (phase_ == Phase::Preparing) {  // the pause once every new worker is up (or gone)
    const bool up = std::all_of(workers().begin(), workers().end(), [](const SupervisedWorker& w) {
      return !w.standby || w.exited || w.heard;
    });
    if (up) {
      phase_ = Phase::Draining;
      for (SupervisedWorker* w : activeWorkers()) send(*w, json{{"type", "pause"}});
    }
  }
  if (phase_ == Phase::Draining) {
    bool held = true, ending = false;
    for (SupervisedWorker* w : activeWorkers()) {
      if (w->lost) continue;
      ending = ending || w->done;
      held = held && w->state_iteration.has_value();
    }
    if (held && !ending) return afterPause();
  }
  if (phase_ == Phase::Moving) {
    const auto active = activeWorkers();
    if (std::all_of(active.begin(), active.end(),
                    [](const SupervisedWorker* w) { return !w->reconfigured.is_null(); }))
      finishMove();
  }
  return std::nullopt;
}

std::optional<Ending> ElasticReconfig::trigger(const std::string& cause,
                                               const std::string& detail) {
  Reconfiguration r;
  r.cause = cause;
  r.detail = detail;
  const auto t0 = Clock::now();
  r.spec = options_.replan(available_, r.why);
  r.replan_seconds = secondsSince(t0);
  if (phase_ == Phase::Waiting) {  // the workers hold still already
    if (!r.spec) {
      host_.event(PausedEvent{cause, r.why, reconf_->state_iteration + 1});
      return std::nullopt;
    }
    r.paused_at = reconf_->paused_at;
    reconf_ = std::move(r);
    return startMove();
  }
  // A worker with a notice leaves even when the plan stays (another worker takes its place).
  const bool noticed =
      std::any_of(workers().begin(), workers().end(),
                  [](const SupervisedWorker& w) { return w.active && !w.lost && w.noticed; });
  if (r.spec && r.spec->plan == host_.worldSpec().plan && !noticed) {
    host_.event(RunWarningEvent{detail + ": the planner's best plan is the one running (no change)",
                                std::nullopt});
    return std::nullopt;
  }
  reconf_ = std::move(r);
  // New workers start first (Preparing); the pause comes once they are up (step).
  if (reconf_->spec && startStandby(*reconf_->spec)) {
    phase_ = Phase::Preparing;
    return std::nullopt;
  }
  phase_ = Phase::Draining;
  for (SupervisedWorker* w : activeWorkers()) send(*w, json{{"type", "pause"}});
  return std::nullopt;
}

// The workers a new plan needs beyond the survivors of each GPU type and zone start now, while
// the run still trains: loading libtorch and starting a process (about a second here) then
// overlaps training instead of adding to the pause. They wait for their place on stdin
// (`--join -`); any not needed after all are told to leave.
bool ElasticReconfig::startStandby(const RunSpec& next) {
  std::map<std::pair<std::string, std::string>, int> need;
  for (const RankPlacement& p : next.ranks) ++need[{p.gpu_type, p.zone}];
  for (const SupervisedWorker& w : workers())
    if ((w.active && !w.lost && !w.noticed) || (w.standby && !w.exited))
      --need[{w.place.gpu_type, w.place.zone}];
  std::vector<WorkerCommand> commands;
  for (const RankPlacement& p : next.ranks) {
    int& n = need[{p.gpu_type, p.zone}];
    if (n <= 0) continue;
    --n;
    WorkerCommand c{p,
                    {options_.worker_path, "--join", "-", "--store", storeArgument(), "--timeout",
                     std::to_string(options_.collective_timeout_s), "--notice"}};
    if (cluster_)  // its commands' keys in the store: its index among the launcher's workers
      c.argv.insert(c.argv.end(),
                    {"--control-id", std::to_string(workers().size() + commands.size())});
    if (!checkpoint_dir_.empty() && options_.checkpoint_every > 0)
      c.argv.insert(c.argv.end(), {"--checkpoint-dir", checkpoint_dir_, "--checkpoint-every",
                                   std::to_string(options_.checkpoint_every)});
    commands.push_back(std::move(c));
  }
  if (commands.empty()) return false;
  const std::vector<LaunchedWorker> launched = launcher_.launch(commands);
  for (std::size_t i = 0; i < launched.size(); ++i) {
    SupervisedWorker w;
    w.place = commands[i].place;
    w.io = launched[i];
    w.active = false;
    w.standby = true;
    w.last_seen = w.launched_at = Clock::now();
    workers().push_back(std::move(w));
  }
  return true;
}

std::optional<Ending> ElasticReconfig::workerLost(SupervisedWorker& w, const std::string& why) {
  w.lost = true;
  if (phase_ == Phase::Moving) return failure(why + " during a reconfiguration", &w);
  if (cluster_ && &w == &workers().front())
    return failure(why + ", and it hosted the run's store", &w);
  int& n = available_[{w.place.gpu_type, w.place.zone}];
  n = std::max(0, n - 1);
  if (std::none_of(workers().begin(), workers().end(),
                   [](const SupervisedWorker& x) { return x.active && !x.lost; }))
    return failure(why + ", and no other worker is left", &w);
  if (phase_ == Phase::Training || phase_ == Phase::Preparing) {
    Reconfiguration r;
    r.cause = "worker_lost";
    r.detail = why;
    r.needs_replan = true;
    reconf_ = std::move(r);
    phase_ = Phase::Draining;
    // Unblocks the others' collectives with the lost worker at once (elastic.hpp).
    for (SupervisedWorker* x : activeWorkers())
      if (!x->lost) send(*x, json{{"type", "abort"}});
    return std::nullopt;
  }
  reconf_->needs_replan = true;  // Draining or Waiting: what is left changed again
  reconf_->detail += "; " + why;
  if (phase_ == Phase::Waiting) {
    phase_ = Phase::Draining;  // every survivor holds still already: re-plans at once
  }
  return std::nullopt;
}

std::optional<Ending> ElasticReconfig::afterPause() {
  Reconfiguration& r = *reconf_;
  r.paused_at = Clock::now();
  if (r.needs_replan) {
    const auto t0 = Clock::now();
    r.why.clear();
    r.spec = options_.replan(available_, r.why);
    r.replan_seconds += secondsSince(t0);
    r.needs_replan = false;
  }
  int next_iteration = std::numeric_limits<int>::max();
  for (SupervisedWorker* w : activeWorkers())
    if (!w->lost) next_iteration = std::min(next_iteration, *w->state_iteration + 1);
  r.state_iteration = next_iteration - 1;
  if (!r.spec) {
    phase_ = Phase::Waiting;
    host_.event(PausedEvent{r.cause, r.why + " (" + describeAvailability(nonZero(available_)) + ")",
                            next_iteration});
    return std::nullopt;
  }
  return startMove();
}

// Which new rank each survivor takes (`taker`, none: a new worker; `taken` marks the survivors
// with one): the survivors without a preemption notice take places (those with one hand over and
// leave); a Slurm run's store host keeps one of its GPU type and zone. Returns why no place fits
// the store host, or empty.
std::string ElasticReconfig::assignPlaces(const RunSpec& old, const RunSpec& next,
                                          const std::vector<SupervisedWorker*>& survivors,
                                          std::vector<SupervisedWorker*>& taker,
                                          std::vector<bool>& taken) {
  std::vector<SupervisedWorker*> stayers;
  for (SupervisedWorker* w : survivors)
    if (!w->noticed) stayers.push_back(w);
  std::vector<bool> stayer_taken(stayers.size(), false);
  taker = assignRanks(old, next, stayers, stayer_taken);
  taken.assign(survivors.size(), false);
  for (std::size_t i = 0; i < survivors.size(); ++i)
    taken[i] = std::find(taker.begin(), taker.end(), survivors[i]) != taker.end();
  if (!cluster_) return {};
  // A Slurm run's store lives in its first worker: it keeps a place of its GPU type and zone
  // (the one another survivor would have taken).
  SupervisedWorker* host = &workers().front();
  const auto at = std::find(survivors.begin(), survivors.end(), host);
  if (at == survivors.end() || taken[static_cast<std::size_t>(at - survivors.begin())]) return {};
  std::optional<std::size_t> slot;
  for (std::size_t k = 0; k < next.ranks.size() && !slot; ++k)
    if (next.ranks[k].gpu_type == host->place.gpu_type && next.ranks[k].zone == host->place.zone)
      slot = k;
  if (!slot)
    return "the new plan has no " + host->place.gpu_type + " in " + host->place.zone +
           " for the worker that hosts the run's store (a Slurm run keeps it)";
  if (SupervisedWorker* displaced = taker[*slot])
    taken[static_cast<std::size_t>(std::find(survivors.begin(), survivors.end(), displaced) -
                                   survivors.begin())] = false;
  taker[*slot] = host;
  taken[static_cast<std::size_t>(at - survivors.begin())] = true;
  return {};
}

std::optional<Ending> ElasticReconfig::startMove() {
  Reconfiguration& r = *reconf_;
  const RunSpec next = *r.spec;
  const RunSpec& old = host_.worldSpec();
  const int N = next.worldSize();
  std::vector<SupervisedWorker*> survivors;
  for (SupervisedWorker* w : activeWorkers())
    if (!w->lost) survivors.push_back(w);
  // Which new rank each survivor takes: one of the same GPU type and zone, with the most layers
  // in common with what it holds (the least state to move).
  std::vector<bool> taken;
  std::vector<SupervisedWorker*> taker;
  if (const std::string why = assignPlaces(old, next, survivors, taker, taken); !why.empty())
    return failure(r.detail + ": " + why);
  int missing_stage = 0;
  int S = stateIteration(old, survivors, missing_stage);
  // Under the distributed optimizer (or fully sharded) a worker holds only its share of its
  // stage's state: a lost one took its share along, so no survivor holds that stage whole.
  bool share_lost = false;
  if (old.plan.schedule.sharding != DpSharding::None)
    for (const SupervisedWorker* w : activeWorkers())
      if (w->lost && !share_lost) {
        share_lost = true;
        missing_stage = w->place.stage;
        S = -1;
      }
  const bool covered = S >= 0;
  std::string checkpoint_step;
  if (!covered) {
    // No surviving worker holds some stage: the last checkpoint of this world's plan.
    std::optional<Manifest> last;
    if (!checkpoint_dir_.empty())
      for (const Manifest& m : completeCheckpoints(checkpoint_dir_))
        if (m.fingerprint == specFingerprint(old.toJson()) && m.store_id == store_id_ &&
            m.run_id == run_id_)
          last = m;
    if (!last)
      return failure(r.detail + ": no surviving worker holds all of stage " +
                     std::to_string(missing_stage) +
                     (share_lost ? " (the distributed optimizer shared its state with the lost "
                                   "worker)"
                                 : "") +
                     (checkpoint_dir_.empty()
                          ? " and the run keeps no checkpoints (sailor run --checkpoint-every N)"
                          : " and no checkpoint of the running plan is complete"));
    S = last->iteration;
    checkpoint_step = checkpoint_dir_ + "/" + stepDirName(S);
  }
  r.state_iteration = S;
  r.state_source = covered ? "peers" : "checkpoint";
  r.iterations_lost = std::max(0, host_.iterationsDone() - 1 - S);
  // Iterations every survivor finished but one lost worker never reported: kept, without it.
  host_.keepIterationsThrough(S);
  // The members of the move: the new world's ranks, then leaving holders (elastic.hpp).
  struct MemberOf {
    SupervisedWorker* w;
    bool holder;
  };
  std::vector<MemberOf> members;
  for (SupervisedWorker* w : taker)
    members.push_back({w, covered && w && *w->state_iteration == S});
  if (covered)
    for (std::size_t i = 0; i < survivors.size(); ++i)
      if (!taken[i] && *survivors[i]->state_iteration == S) members.push_back({survivors[i], true});
  const int G = generation_ + 1;
  const std::string spec_path = run_dir_ + "/spec-" + std::to_string(G) + ".json";
  json_util::writeFileAtomically(spec_path, next.toJson().dump(2));
  json membership{
      {"generation", G}, {"state_iteration", S}, {"new_world_size", N}, {"members", json::array()}};
  for (const MemberOf& m : members)
    membership["members"].push_back(
        {{"old_rank", m.w ? m.w->place.rank : -1}, {"holder", m.holder}});
  // The worker that lets joining workers into the run's private network.
  const SupervisedWorker* publisher = nullptr;
  for (SupervisedWorker* w : taker)
    if (w && !publisher) publisher = w;
  if (!publisher && !survivors.empty()) publisher = survivors.front();
  auto command = [&](int member) {
    json c{{"type", "reconfigure"},
           {"generation", G},
           {"member", member},
           {"rank", member < N ? member : -1},
           {"spec", spec_path},
           {"start_iteration", S + 1},
           {"membership", membership},
           {"old_spec", spec_files_.back()},
           {"holder", members[static_cast<std::size_t>(member)].holder}};
    if (!checkpoint_step.empty()) {
      c["checkpoint"] = checkpoint_step;
      c["checkpoint_spec"] = spec_files_.back();
    }
    return c;
  };
  for (SupervisedWorker* w : survivors) {
    int member = -1;
    for (std::size_t i = 0; i < members.size(); ++i)
      if (members[i].w == w) member = static_cast<int>(i);
    json c = member >= 0 ? command(member) : json{{"type", "leave"}, {"generation", G}};
    if (w == publisher) c["publish_network"] = true;
    send(*w, c);
  }
  // Workers that join: started with the move they join.
  std::vector<WorkerCommand> commands;
  std::vector<int> joiner_ranks;
  for (int k = 0; k < N; ++k) {
    if (taker[static_cast<std::size_t>(k)]) continue;
    const RankPlacement& np = next.ranks[static_cast<std::size_t>(k)];
    const auto standby =
        std::find_if(workers().begin(), workers().end(), [&](const SupervisedWorker& w) {
          return w.standby && !w.exited && w.place.gpu_type == np.gpu_type &&
                 w.place.zone == np.zone;
        });
    if (standby != workers().end()) {  // started ahead: its place on stdin
      standby->standby = false;
      standby->joined = true;
      standby->place = np;
      standby->reconfigured = json();
      send(*standby, command(k));
      joiner_ranks.push_back(k);
      continue;
    }
    const std::string join_file =
        run_dir_ + "/join-" + std::to_string(G) + "-" + std::to_string(k) + ".json";
    json_util::writeFileAtomically(join_file, command(k).dump());
    WorkerCommand c{next.ranks[static_cast<std::size_t>(k)],
                    {options_.worker_path, "--spec", spec_path, "--rank", std::to_string(k),
                     "--store", storeArgument(), "--generation", std::to_string(G), "--timeout",
                     std::to_string(options_.collective_timeout_s), "--join", join_file,
                     "--start-iteration", std::to_string(S + 1), "--notice"}};
    if (cluster_)
      c.argv.insert(c.argv.end(),
                    {"--control-id", std::to_string(workers().size() + commands.size())});
    if (!checkpoint_dir_.empty() && options_.checkpoint_every > 0)
      c.argv.insert(c.argv.end(), {"--checkpoint-dir", checkpoint_dir_, "--checkpoint-every",
                                   std::to_string(options_.checkpoint_every)});
    commands.push_back(std::move(c));
    joiner_ranks.push_back(k);
  }
  r.old_plan = old.plan;
  r.old_world_size = old.worldSize();
  r.launched_at = Clock::now();
  r.joiners = !joiner_ranks.empty();
  enterNewWorld(next, survivors, taker, commands);
  host_.enterWorld(next);
  spec_files_.push_back(spec_path);
  generation_ = G;
  phase_ = Phase::Moving;
  return std::nullopt;
}

void ElasticReconfig::finishMove() {
  Reconfiguration& r = *reconf_;
  ReconfiguredEvent e;
  e.cause = r.cause;
  e.detail = r.detail;
  e.generation = generation_;
  e.from_iteration = r.state_iteration + 1;
  e.old_plan = r.old_plan;
  e.new_plan = host_.worldSpec().plan;
  e.old_world_size = r.old_world_size;
  e.new_world_size = host_.worldSpec().worldSize();
  e.state_source = r.state_source;
  e.iterations_lost = r.iterations_lost;
  e.replan_seconds = r.replan_seconds;
  WorkersStartedEvent started{rendezvous_, generation_, {}};
  for (SupervisedWorker* w : activeWorkers()) {
    const json& rep = w->reconfigured;
    e.state_bytes += rep.value("state_bytes", std::int64_t{0});
    e.teardown_seconds = std::max(e.teardown_seconds, reportNumber(rep, "teardown_seconds"));
    e.group_setup_seconds =
        std::max(e.group_setup_seconds, reportNumber(rep, "group_setup_seconds"));
    e.rebuild_seconds = std::max(e.rebuild_seconds, reportNumber(rep, "rebuild_seconds"));
    e.transfer_seconds = std::max(e.transfer_seconds, reportNumber(rep, "transfer_seconds"));
    // A joining worker: how long the paused world waited for it to start (none when it was
    // started ahead, while the run trained: it speaks once it has its place).
    if (w->joined) {
      const auto from = std::max(w->launched_at, r.paused_at);
      e.launch_seconds =
          std::max(e.launch_seconds,
                   std::max(0.0, std::chrono::duration<double>(w->first_heard - from).count()));
      w->joined = false;
    }
    started.workers.push_back(RunWorker{w->place, w->io.pid});
  }
  e.total_seconds = secondsSince(r.paused_at);
  host_.recordMove(std::move(e), std::move(started), r.state_iteration + 1);
  if (!checkpoint_dir_.empty())  // what a later resume restarts with: the running plan
    writeFileDurably(checkpoint_dir_ + "/spec.json", host_.worldSpec().toJson().dump(2));
  for (SupervisedWorker* w : activeWorkers()) w->state_iteration.reset();
  reconf_.reset();
  phase_ = Phase::Training;
}

}  // namespace sailor::runner
