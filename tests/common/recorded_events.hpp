// The runtime's event streams recorded from real `sailor run`s (tests/data/runtime/events_*.jsonl),
// read and decoded for the suites that replay them (engine: decoding; widgets: the run monitor).
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sailor/runs/run_events.hpp"

namespace sailor::testing {

// The non-empty lines of a recorded stream.
inline std::vector<std::string> readLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

inline std::vector<RunEvent> decodeAll(const std::vector<std::string>& lines) {
  std::vector<RunEvent> out;
  for (const std::string& l : lines) out.push_back(parseRunEvent(l));
  return out;
}

}  // namespace sailor::testing
