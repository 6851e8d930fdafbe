// The `sailor` command line: catalogue listing, planning, simulation of a plan, validation of
// the simulator against measured runs, the run store; `sailor run` hands over to sailor-run.
// Each command declares its options on a CLI::App of its own, bound to variables (args.hpp);
// the work is the engine's.
// Exit codes: 0 success; 2 bad input (the message names the field, the value and what was
// expected), no command or an unknown one; 3 `plan`: no plan exists, `simulate`: the plan does
// not fit in memory; 1 an internal error or a cancelled search. `sailor run` exits as sailor-run
// does (0 finished, 2 bad input, 4 the run failed, 5 the run store unusable, 130 interrupted).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "args.hpp"
#include "commands.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/progress.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/runs/run_store.hpp"

using namespace sailor;

namespace {

// `sailor run` is the runtime's controller, a separate program (sailor-run) so that this command
// line never links libtorch: hand the whole command line over to it. `sailor profile` is
// sailor-profile, handed over the same way.
int cmdRun(char** argv, const char* program = "sailor-run", const char* env_name = "SAILOR_RUN") {
  std::string path;
  if (const char* env = std::getenv(env_name)) {
    path = env;
  } else {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      self[n] = '\0';
      path = std::string(self).substr(0, std::string(self).rfind('/') + 1) + program;
    }
  }
  execv(path.c_str(), argv);
  throw InputError(argv[1], "\"" + path + "\" (" + std::strerror(errno) + ")",
                   std::string("the runtime's ") + program + " next to sailor (build target " +
                       program + ", or set " + env_name + ")");
}

// The command argv[1] names, run; its exit code. Commands it does not know: exit 2 with the usage.
int runCommand(const std::string& cmd, int argc, char** argv) {
  if (cmd == "catalog") return cli::cmdCatalog(argc, argv);
  if (cmd == "simulate") return cli::cmdSimulate(argc, argv);
  if (cmd == "plan") return cli::cmdPlan(argc, argv);
  if (cmd == "validate") return cli::cmdValidate(argc, argv);
  if (cmd == "calibrate") return cli::cmdCalibrate(argc, argv);
  // `sailor runs attach ID` follows a cluster run: the runtime's controller does that.
  if (cmd == "runs" && argc > 2 && !std::strcmp(argv[2], "attach")) return cmdRun(argv + 1);
  // `sailor runs resize ID ...` talks to a running elastic run's controller: the runtime's.
  if (cmd == "runs" && argc > 2 && !std::strcmp(argv[2], "resize")) return cmdRun(argv + 1);
  if (cmd == "runs") return cli::cmdRuns(argc, argv);
  if (cmd == "run") return cmdRun(argv);
  if (cmd == "profile") return cmdRun(argv, "sailor-profile", "SAILOR_PROFILE");
  if (cmd == "export") return cli::cmdExport(argc, argv);
  if (cmd == "prices") return cli::cmdPrices(argc, argv);
  std::cerr << "sailor: unknown command '" << printableLine(cmd) << "'\n\n" << cli::kUsage;
  return cli::kExitInput;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::cout << cli::kUsage;
    return argc < 2 ? cli::kExitInput : 0;
  }
  const std::string cmd = argv[1];
  try {
    return runCommand(cmd, argc, argv);
  } catch (const InputError& e) {
    std::cerr << "sailor " << printableLine(cmd) << ": error: " << e.what() << "\n";
    return cli::kExitInput;
  } catch (const StoreError& e) {  // a run store that cannot be opened: the user's file
    std::cerr << "sailor " << printableLine(cmd) << ": error: " << printableLine(e.what()) << "\n";
    return cli::kExitInput;
  } catch (const Cancelled&) {
    std::cerr << "sailor " << printableLine(cmd) << ": cancelled\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "sailor " << printableLine(cmd) << ": internal error: " << printableLine(e.what())
              << "\n";
    return 1;
  }
}
