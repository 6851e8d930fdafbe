// A local run's private directory (run_dir.hpp): making one, its owner file, where they go
// (runDirParent) and removing those whose controller is gone (sweepRunDirs, controller.hpp).
#include "run_dir.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "controller.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_store.hpp"
#include "training/checkpoint_files.hpp"

namespace sailor::runner {

using nlohmann::json;

namespace {

constexpr const char* kRunDirPrefix = "sailor-run-";
constexpr const char* kOwnerFile = "controller";  // in a run's private directory: who owns it

// True when s is valid UTF-8 (nlohmann refuses to print anything else).
bool isUtf8(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

// The owner file of a private directory: pid, start ticks, boot id and host of the controller,
// one per line (ControllerId).
std::string ownerText(const ControllerId& c) {
  return std::to_string(c.pid) + "\n" + std::to_string(c.start_ticks) + "\n" + c.boot_id + "\n" +
         c.host + "\n";
}

std::optional<ControllerId> readOwner(const std::string& file) {
  std::ifstream in(file);
  std::string pid, ticks;
  ControllerId c;
  if (!std::getline(in, pid) || !std::getline(in, ticks) || !std::getline(in, c.boot_id) ||
      !std::getline(in, c.host))
    return std::nullopt;
  c.pid = std::strtoll(pid.c_str(), nullptr, 10);
  c.start_ticks = std::strtoll(ticks.c_str(), nullptr, 10);
  return c;
}

}  // namespace

std::string createRunDir() {
  std::string tmpl = runDirParent() + "/" + kRunDirPrefix + "XXXXXX";
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
  return tmpl;
}

void claimRunDir(const std::string& dir) {
  json_util::writeFileAtomically(dir + "/" + kOwnerFile, ownerText(currentController()));
}

std::string runDirParent() {
  const char* tmp = std::getenv("TMPDIR");
  struct stat st {};
  if (tmp && tmp[0] == '/' && isUtf8(tmp) && ::stat(tmp, &st) == 0 && S_ISDIR(st.st_mode))
    return tmp;
  return "/tmp";
}

int sweepRunDirs() {
  const std::string parent = runDirParent();
  DIR* d = opendir(parent.c_str());
  if (!d) return 0;
  int removed = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(kRunDirPrefix, 0) != 0) continue;
    const std::string dir = parent + "/" + name;
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    const std::optional<ControllerId> owner = readOwner(dir + "/" + kOwnerFile);
    if (!owner || !controllerGone(*owner)) continue;  // alive, another host's, or not ours
    removeDirectoryAndFiles(dir);
    ++removed;
  }
  closedir(d);
  return removed;
}

}  // namespace sailor::runner
