#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace st::app {

ProgressLine::ProgressLine(std::ostream& out, bool terminal, std::string program)
    : out_(out), terminal_(terminal), program_(std::move(program)), start_(Clock::now()), lastDraw_(start_) {}

bool ProgressLine::stderrIsTerminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

std::string ProgressLine::formatDuration(double seconds) {
  const long total = std::max(0L, static_cast<long>(seconds + 0.5));
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%ldh%02ldm", total / 3600, total / 60 % 60);
  else if (total >= 60)
    std::snprintf(text, sizeof text, "%ldm%02lds", total / 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%lds", total);
  return text;
}

void ProgressLine::update(std::size_t done, std::size_t total, const std::string& what) {
  if (total == 0) return;
  done = std::min(done, total);
  const Clock::time_point now = Clock::now();
  if (total != total_) {
    // A new run of steps (the frames after the builds): its rate starts now.
    total_ = total;
    start_ = now;
    lastTenth_ = 0;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // A rate is only known once a step has finished; until then the time left is not guessed.
  const std::string left =
      done > 0 ? formatDuration(elapsed / double(done) * double(total - done)) + " left" : "estimating";
  if (!terminal_) {
    const std::size_t tenth = done * 10 / total;
    if (tenth <= lastTenth_) return;
    lastTenth_ = tenth;
    out_ << program_ << ": " << tenth * 10 << "% " << what << ", " << left << "\n" << std::flush;
    return;
  }
  if (drawn_ && done < total && now - lastDraw_ < std::chrono::milliseconds(100)) return;
  lastDraw_ = now;
  constexpr std::size_t kWidth = 24;
  const std::size_t filled = done * kWidth / total;
  out_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, '-') << "] " << done * 100 / total
       << "% " << what << "  " << left << "\x1b[K" << std::flush;
  drawn_ = true;
}

void ProgressLine::note(const std::string& line) {
  clear();
  out_ << program_ << ": " << line << "\n" << std::flush;
}

void ProgressLine::finish() {
  clear();
}

void ProgressLine::clear() {
  if (!drawn_) return;
  out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace st::app
