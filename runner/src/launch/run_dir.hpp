// A local run's private directory, <runDirParent()>/sailor-run-XXXXXX (mkdtemp: mode 0700, this
// user only): the workers' spec, the rendezvous file, the resize socket, and an owner file that
// names the controller holding it. runDirParent and sweepRunDirs (controller.hpp) are defined in
// run_dir.cpp with these: a directory whose owner is gone is one sweepRunDirs removes.
#pragma once

#include <string>

namespace sailor::runner {

// Creates a new private directory under runDirParent() and returns its path. Throws
// std::runtime_error ("mkdtemp <template>: <reason>") when it cannot.
std::string createRunDir();
// Writes the owner file of `dir`: this controller (currentController()). Throws when it cannot.
void claimRunDir(const std::string& dir);

}  // namespace sailor::runner
