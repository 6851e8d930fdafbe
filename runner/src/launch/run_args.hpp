// The command line of `sailor run` (sailor-run): its options, declared on a CLI11 app and bound
// to RunArgs, its --help text, and the conversions of option values that name the option when
// they refuse one (InputError). run_main.cpp turns RunArgs into the run; run_control.cpp reads
// the command lines of `sailor runs attach` and `sailor runs resize`.
#pragma once

#include <optional>
#include <string>

namespace sailor::runner {

// `sailor run --help`.
extern const char* const kRunHelp;

// s with every byte that is not part of valid UTF-8 replaced by U+FFFD: how a name or a path
// that is not UTF-8 is shown (events and messages are UTF-8).
std::string shownUtf8(const std::string& s);

// The value of `option` when it is valid UTF-8; else bad input naming the option.
const std::string& utf8Arg(const std::string& option, const std::string& v);

// An integer from 0 to 10^9; a number >= 0 (finite); else bad input naming `opt`.
int intArg(const std::string& opt, const std::string& v);
double numberArg(const std::string& opt, const std::string& v);

// The value of `opt` when it is a number from `lo` to `hi` (`what` says in what unit).
double rangeArg(const std::string& opt, const std::string& v, double lo, double hi,
                const std::string& what);

// An integer `opt` from 1 to `hi`.
int countArg(const std::string& opt, const std::string& v, int hi);

// The bounds of the options that are not the model's or the plan's (RunSpec::build checks
// those): --heartbeat-timeout in seconds, --trace-time-scale in run seconds per trace second,
// --max-local-processes in processes.
inline constexpr double kMinHeartbeatTimeoutS = 0.1, kMaxHeartbeatTimeoutS = 3600;
inline constexpr double kMinTraceTimeScale = 1e-6, kMaxTraceTimeScale = 1e6;
inline constexpr int kMaxLocalProcesses = 4096;

double heartbeatTimeoutArg(const std::string& v);

// The options of `sailor run` as given: the last value of each valued option, as text
// (converted where it is used, so that each error names its option), and the flags given.
struct RunArgs {
  bool help = false;  // --help or -h: print kRunHelp, nothing else is read
  bool dry_run = false;
  bool elastic = false;
  bool emulate_zones = false;
  bool scale = false, real_size = false;  // --scale, --real-size
  // The run's files (required without --resume).
  std::optional<std::string> plan, scenario, job;
  // The model and the training settings (RunOptions).
  std::optional<std::string> iterations, data, vocab, hidden, seq_len, global_batch, seed, lr,
      dtype, backend;
  // The controller, the run store and the run's name (ControllerOptions).
  std::optional<std::string> max_local_processes, store, name, heartbeat_timeout, worker;
  // --launcher slurm and its overrides of the cluster's settings.
  std::optional<std::string> launcher, cluster, partition, account, time;
  std::optional<std::string> checkpoint_every, checkpoint_keep, resume;
  std::optional<std::string> trace, trace_time_scale, profile;
};

// argv[first..argc) as `sailor run` reads it (docs/runtime.md). A valued option takes the next
// argument whatever it is, or `--option=value`, and the last one given counts; a flag counts as
// given whatever value it has (`--dry-run=false` too); --local is accepted and changes nothing.
// Bad input (InputError), in this order: an argument that is no option of `sailor run` (the
// first; "run"), a valued option that ends the command line ("a value"), --scale with
// --real-size; then with --resume, any option of the run's own plan, scenario, job and spec,
// and without it, a missing --plan, --scenario or --job. --help or -h before the first argument
// that is no option wins over all of them.
RunArgs parseRunArgs(int argc, char** argv, int first);

// The run store's path: --store, else RunStore::defaultPath(); UTF-8, and not a directory (which
// SQLite would only call a disk I/O error).
std::string storePathArg(const RunArgs& a);

}  // namespace sailor::runner
