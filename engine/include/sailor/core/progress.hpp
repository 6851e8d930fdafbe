// Progress reporting and cooperative cancellation for long engine operations (the planner).
// The engine never runs its own UI loop: a caller passes a ProgressSink and a CancelToken; the
// operation reports fractions that never go down and never exceed 1, and polls the token.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace sailor {

class CancelToken {
 public:
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

// Called with a fraction in [0, 1] (non-decreasing) and a short description of the step.
using ProgressSink = std::function<void(double fraction, const std::string& step)>;

// When a long operation stops and returns what it has so far (the planner's time limit): a
// point on the steady clock, or none (never passes). Cheap to poll (one clock read).
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  Deadline() = default;
  // `seconds` after `start`; at most kMaxSeconds (beyond it the clock's range may overflow, and
  // no search runs that long: the same as none).
  Deadline(Clock::time_point start, double seconds) {
    if (!(seconds < kMaxSeconds)) return;
    at_ = start + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(std::max(0.0, seconds)));
  }
  bool set() const { return at_.has_value(); }
  bool passed() const { return at_ && Clock::now() >= *at_; }
  // Seconds left (negative once passed); infinite without a deadline.
  double secondsLeft() const {
    if (!at_) return std::numeric_limits<double>::infinity();
    return std::chrono::duration<double>(*at_ - Clock::now()).count();
  }
  static constexpr double kMaxSeconds = 1e9;  // about 31 years

 private:
  std::optional<Clock::time_point> at_;
};

class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace sailor
