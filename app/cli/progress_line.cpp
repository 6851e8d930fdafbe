#include "progress_line.hpp"

#include <fmt/core.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace sailor::cli {

namespace {

// "2.1 s", "1 min 05 s" for the elapsed time.
std::string elapsedText(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  const long whole = std::lround(s);
  return fmt::format("{} min {:02d} s", whole / 60, static_cast<int>(whole % 60));
}

}  // namespace

int terminalWidth(int fd) {
  winsize w{};
  if (ioctl(fd, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

ProgressLine::ProgressLine(std::ostream& out, Mode mode, std::string prefix,
                           std::optional<double> limit_s, int width)
    : out_(out),
      mode_(mode),
      prefix_(std::move(prefix)),
      limit_s_(limit_s),
      width_(std::max(20, width)),
      start_(std::chrono::steady_clock::now()) {
  ticker_ = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine() {
  finish();
}

std::string ProgressLine::text(double fraction, const std::string& step, double elapsed_s,
                               std::optional<double> limit_s) {
  std::string t = fmt::format("[{:3.0f}%] {}", std::floor(100 * std::clamp(fraction, 0.0, 1.0)),
                              elapsedText(elapsed_s));
  if (limit_s) t += " of " + fmt::format("{:g}", *limit_s) + " s";
  if (!step.empty()) t += "  " + step;
  return t;
}

ProgressSink ProgressLine::sink() {
  return [this](double fraction, const std::string& step) { report(fraction, step); };
}

void ProgressLine::report(double fraction, const std::string& step) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return;
  const bool first = !reported_;
  reported_ = true;
  fraction_ = fraction;
  step_ = step;
  draw(first || fraction >= 1.0);
}

void ProgressLine::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::milliseconds interval =
      mode_ == Mode::Terminal ? kTerminalInterval / 4 : kLineInterval;
  if (!force && last_line_ && now - *last_line_ < interval) return;
  last_line_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = prefix_ + text(fraction_, step_, elapsed, limit_s_);
  if (mode_ == Mode::Lines) {
    out_ << line << "\n" << std::flush;
    return;
  }
  // Never wrap: a wrapped line cannot be rewritten with '\r'. The text is ASCII; the engine's
  // "data-parallel degree 12" becomes "degree 12" when the line is too long.
  const size_t max = static_cast<size_t>(width_ - 1);
  if (line.size() > max)
    if (const size_t at = line.find("data-parallel degree"); at != std::string::npos)
      line.erase(at, std::string("data-parallel ").size());
  if (line.size() > max) line = line.substr(0, max);
  const size_t shown = line.size();
  if (shown < drawn_) line += std::string(drawn_ - shown, ' ');
  out_ << '\r' << line << std::flush;
  drawn_ = shown;
}

void ProgressLine::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto interval = mode_ == Mode::Terminal ? kTerminalInterval : kLineInterval;
  while (!wake_.wait_for(lock, interval, [this] { return stopping_; }))
    if (reported_) draw(mode_ == Mode::Terminal);
}

void ProgressLine::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    if (mode_ == Mode::Terminal && drawn_ > 0)
      out_ << '\r' << std::string(drawn_, ' ') << '\r' << std::flush;
    drawn_ = 0;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

}  // namespace sailor::cli
