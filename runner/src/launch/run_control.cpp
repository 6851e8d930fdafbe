// `sailor runs attach` and `sailor runs resize`, run by sailor-run. Declared in run_control.hpp.
#include "run_control.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.hpp"
#include "controller.hpp"
#include "run_args.hpp"
#include "sailor/core/error.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/scenario.hpp"

#include <CLI/CLI.hpp>

namespace sailor::runner {

using nlohmann::json;

namespace {

// Reads `ID [options]` of `command` (runs attach, runs resize) from argv[first..argc) into the
// options declared on `app` with CLI11 and returns ID. Bad input: the first argument that is
// neither a declared option nor the one ID, then a valued option that ends the command line,
// then no ID.
std::string parseRunIdCommand(CLI::App& app, const std::string& command, const std::string& usage,
                              int argc, char** argv, int first) {
  app.set_help_flag();
  app.allow_extras();  // arguments that are no option come back in remaining(), in order
  const bool ends_without_value = parseAllEndsWithoutValue(app, argc, argv, first);
  std::string id_text;
  for (const std::string& k : app.remaining()) {
    if (!id_text.empty() || k.empty() || k[0] == '-')
      throw InputError(command, "\"" + shownUtf8(k) + "\"", usage);
    id_text = k;
  }
  if (ends_without_value) throw InputError(argv[argc - 1], "nothing", "a value");
  if (id_text.empty()) throw InputError(command, "nothing", "a run id");
  return id_text;
}

}  // namespace

// `sailor runs attach ID [--store FILE]` (sailor hands it over as `attach ID ...`).
int attachMain(int argc, char** argv, int first) {
  CLI::App app;
  std::string store_path;
  app.add_option("--store", store_path)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const std::string id_text =
      parseRunIdCommand(app, "runs attach", "ID [--store FILE]", argc, argv, first);
  const int id = intArg("runs attach", id_text);
  if (store_path.empty()) store_path = RunStore::defaultPath();
  const int code = attachController(store_path, id, [](const json& e) {
    const std::string line = e.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  });
  std::fflush(nullptr);
  std::_Exit(code);
}

// `sailor runs resize ID --gpus TYPE@ZONE=N [--gpus ...] [--store FILE]` (sailor hands it over
// as `resize ID ...`): tells the running elastic run ID how many GPUs of each named (type, zone)
// it has now; its controller re-plans and reconfigures (docs/elasticity.md). Checked
// here against the run's record and scenario; the controller answers on its control socket.
int resizeMain(int argc, char** argv, int first) {
  CLI::App app;
  std::string store_path;
  std::vector<std::string> sites;
  app.add_option("--store", store_path)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--gpus", sites)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  const std::string id_text = parseRunIdCommand(
      app, "runs resize", "ID --gpus TYPE@ZONE=N [--gpus ...] [--store FILE]", argc, argv, first);
  json gpus = json::object();
  for (const std::string& v : sites) {
    const std::size_t at = v.find('@'), eq = v.rfind('=');
    if (at == std::string::npos || eq == std::string::npos || eq < at)
      throw InputError("--gpus", "\"" + shownUtf8(v) + "\"",
                       "TYPE@ZONE=N, e.g. A100-40@us-central1-a=3");
    const int n = intArg("--gpus " + shownUtf8(v.substr(0, eq)), v.substr(eq + 1));
    if (n < 0 || n > kMaxGpuCount)
      throw InputError("--gpus " + shownUtf8(v.substr(0, eq)), std::to_string(n),
                       "a GPU count from 0 to " + std::to_string(kMaxGpuCount));
    gpus[v.substr(0, eq)] = n;
  }
  if (gpus.empty()) throw InputError("--gpus", "nothing", "at least one TYPE@ZONE=N");
  const int id = intArg("runs resize", id_text);
  if (store_path.empty()) store_path = RunStore::defaultPath();
  const RunStore store(store_path, StoreAccess::ReadOnly);
  const std::optional<RunRecord> rec = store.run(id);
  const std::string what = "run " + std::to_string(id);
  if (!rec)
    throw InputError("runs resize", what, "a run id of `sailor runs list` in " + store_path);
  if (rec->status != RunStatus::Running)
    throw InputError("runs resize", what + ", which is " + runStatusName(rec->status),
                     "a running run");
  const Catalog catalog = Catalog::load(resourceDir());
  const Scenario scenario = Scenario::fromJson(rec->scenario, catalog);
  for (const auto& [site, n] : gpus.items()) {
    const std::size_t at = site.find('@');
    if (!scenario.findPool(site.substr(at + 1), site.substr(0, at)))
      throw InputError("--gpus " + shownUtf8(site),
                       site.substr(0, at) + " in " + site.substr(at + 1),
                       "a GPU type and zone with a pool in the run's scenario");
  }
  // The control socket is in the run's private directory, beside its rendezvous file; a Slurm
  // run's in its run directory.
  std::string socket_path;
  if (rec->launcher == "slurm" && !rec->run_dir.empty())
    socket_path = rec->run_dir + "/control.sock";
  for (const EventRecord& e : store.events(id))
    if (e.kind == "workers_started") {
      const std::string rv = e.payload.value("store", "");
      if (rv.rfind("file:", 0) == 0)
        socket_path = rv.substr(5, rv.rfind('/') - 5) + "/control.sock";
    }
  if (socket_path.empty() || ::access(socket_path.c_str(), F_OK) != 0)
    throw InputError("runs resize", what + ", which was not started with --elastic or --trace",
                     "a run started with --elastic or --trace");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_path.c_str(),
              std::min(socket_path.size() + 1, sizeof addr.sun_path - 1));
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw InputError("runs resize",
                     what + ": its controller does not answer (" + std::strerror(errno) + ")",
                     "a running controller");
  const std::string req = json{{"type", "resize"}, {"gpus", gpus}}.dump() + "\n";
  (void)!::write(fd, req.data(), req.size());
  std::string reply;
  pollfd pfd{fd, POLLIN, 0};
  while (reply.find('\n') == std::string::npos && ::poll(&pfd, 1, 15000) > 0) {
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  json answer;
  try {
    answer = json::parse(reply.substr(0, reply.find('\n')));
  } catch (const std::exception&) {
    throw InputError("runs resize", what + ": no answer from its controller", "an answer");
  }
  if (!answer.value("ok", false))
    throw InputError("runs resize", what + ": " + answer.value("message", std::string("refused")),
                     "a resize the run can take");
  std::cout << "sailor runs resize: " << what << ": " << answer.value("message", std::string())
            << "\n";
  return 0;
}

}  // namespace sailor::runner
