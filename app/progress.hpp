#pragma once
/// \file A progress line for long runs: a bar redrawn in place on a terminal, a few plain lines otherwise, so
/// that a run of minutes shows it is alive and how long it has left.

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace st::app {

/// Progress of a run of `total` steps, written to `out` (stderr in the programs).
class ProgressLine {
 public:
  /// `terminal`: redraw one bar in place (at most ten times a second); otherwise write a plain line at every
  /// tenth of the steps.
  ProgressLine(std::ostream& out, bool terminal, std::string program);

  /// Whether standard error is a terminal (where the bar is drawn).
  static bool stderrIsTerminal();

  /// Whether this line draws the redrawn bar.
  bool terminal() const { return terminal_; }

  /// Reports `done` of `total` steps; `what` names the current one (e.g. "frame 12/300 brute"). A new
  /// `total` starts a new run of steps, timed from this call.
  void update(std::size_t done, std::size_t total, const std::string& what);

  /// Writes a line that stays; on a terminal the bar is cleared first and redrawn at the next update.
  void note(const std::string& line);

  /// Clears the bar from the terminal (nothing otherwise); call before printing the results.
  void finish();

  /// A duration as "1h02m", "3m05s" or "12s", for the time left.
  static std::string formatDuration(double seconds);

 private:
  using Clock = std::chrono::steady_clock;

  void clear();

  std::ostream& out_;
  bool terminal_;
  std::string program_;
  Clock::time_point start_;
  Clock::time_point lastDraw_;
  bool drawn_ = false;
  std::size_t lastTenth_ = 0;
  std::size_t total_ = 0;
};

}  // namespace st::app
