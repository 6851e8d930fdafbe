// `sailor plan`'s progress on stderr (docs/planner.md, "Progress"): what the engine's
// ProgressSink reports (fraction, step, plans found so far) with the elapsed time. On a terminal
// one line rewritten in place and cleared at the end; elsewhere (--progress into a file or a
// pipe) a plain line every few seconds. Never on stdout, so --json stays one JSON document.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "sailor/core/progress.hpp"

namespace sailor::cli {

class ProgressLine {
 public:
  enum class Mode {
    Terminal,  // one line, rewritten with '\r', at most `width` - 1 characters
    Lines,     // a line per report at most every kLineInterval, and the last one
  };
  // Redraws of the terminal line (it also shows the time going on while a degree runs).
  static constexpr std::chrono::milliseconds kTerminalInterval{200};
  static constexpr std::chrono::milliseconds kLineInterval{2000};

  // `prefix` starts every line (e.g. "sailor plan: "); `limit_s` the search's time limit, shown
  // beside the elapsed time.
  ProgressLine(std::ostream& out, Mode mode, std::string prefix, std::optional<double> limit_s,
               int width = 80);
  ~ProgressLine();  // finish()
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The engine's sink (thread-safe; the object must outlive the search).
  ProgressSink sink();
  // Stops the redraws; a terminal line is cleared. Idempotent.
  void finish();

  // The text of one report (no prefix, no line end): "[ 43%] 2.1 s  microbatch 8, ...", with a
  // limit "[ 43%] 2.1 s of 30 s  microbatch 8, ...".
  static std::string text(double fraction, const std::string& step, double elapsed_s,
                          std::optional<double> limit_s);

 private:
  void report(double fraction, const std::string& step);
  void draw(bool force);  // with mutex_ held
  void tick();

  std::ostream& out_;
  Mode mode_;
  std::string prefix_;
  std::optional<double> limit_s_;
  int width_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool reported_ = false;
  double fraction_ = 0;
  std::string step_;
  size_t drawn_ = 0;  // characters of the terminal line on screen
  std::optional<std::chrono::steady_clock::time_point> last_line_;
  std::thread ticker_;
};

// Columns of the terminal on file descriptor fd (80 when it does not say).
int terminalWidth(int fd);

}  // namespace sailor::cli
