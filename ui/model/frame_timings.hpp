#pragma once
/// \file Per-phase frame timings kept for the last few hundred frames.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace st::ui {

/// The phases of one frame, in the order they run and stack in the plot.
enum class Phase : std::uint8_t { Simulate, Update, Pairs, Queries, Draw, Ui, Swap };
/// Number of phases.
inline constexpr std::size_t kPhaseCount = 7;

/// Display name of a phase.
const char* phaseName(Phase phase);
/// One-line explanation of a phase, for tooltips.
const char* phaseDescription(Phase phase);
/// RGBA8 colour of a phase in the stacked plot.
std::uint32_t phaseColour(Phase phase);

/// Milliseconds spent in each phase of one frame, and the whole frame.
struct FrameRecord {
  std::array<float, kPhaseCount> ms{};  ///< by Phase
  float frameMs = 0.0f;                 ///< start of this frame to start of the next
  /// Milliseconds of one phase.
  float& operator[](Phase phase) { return ms[static_cast<std::size_t>(phase)]; }
  /// Milliseconds of one phase.
  float operator[](Phase phase) const { return ms[static_cast<std::size_t>(phase)]; }
};

/// Fixed-size history of frame records, oldest dropped first.
class FrameTimings {
 public:
  /// Frames kept.
  static constexpr std::size_t kCapacity = 480;

  FrameTimings() : records_(kCapacity) {}
  /// Frames at the start of a run (building, first fits, shader compiles) that plots leave out of scale.
  static constexpr std::uint64_t kStartupFrames = 10;

  /// Appends a frame, dropping the oldest once full.
  void push(const FrameRecord& record) {
    records_[(start_ + size_) % kCapacity] = record;
    ++pushed_;
    if (size_ < kCapacity)
      ++size_;
    else
      start_ = (start_ + 1) % kCapacity;
  }
  /// Frames pushed since the start, dropped ones included.
  std::uint64_t pushed() const { return pushed_; }
  /// Whether the i-th held frame (0 the oldest) is one of the run's first kStartupFrames.
  bool isStartup(std::size_t i) const { return pushed_ - size_ + i < kStartupFrames; }
  /// Frames held.
  std::size_t size() const { return size_; }
  /// The i-th held frame, 0 the oldest.
  const FrameRecord& at(std::size_t i) const { return records_[(start_ + i) % kCapacity]; }
  /// Mean of the last `frames` frames (fewer when fewer are held).
  FrameRecord average(std::size_t frames) const {
    FrameRecord sum;
    const std::size_t n = frames < size_ ? frames : size_;
    for (std::size_t i = size_ - n; i < size_; ++i) {
      const FrameRecord& r = at(i);
      for (std::size_t p = 0; p < kPhaseCount; ++p) sum.ms[p] += r.ms[p];
      sum.frameMs += r.frameMs;
    }
    if (n == 0) return sum;
    for (float& v : sum.ms) v /= float(n);
    sum.frameMs /= float(n);
    return sum;
  }
  /// Forgets every frame.
  void clear() { start_ = size_ = 0; }

 private:
  std::vector<FrameRecord> records_;
  std::size_t start_ = 0;
  std::size_t size_ = 0;
  std::uint64_t pushed_ = 0;
};

/// The top of a plot of `value` over the held frames from `first` on: a round number ("nice": 1, 2, 5
/// steps, and the 60 and 30 fps frame times) a quarter above the 90th percentile of the values, the run's
/// start-up frames left out, so that a spike (a rebuild, the first frames) neither pins the scale up nor
/// flattens the rest. Never below `floor`.
float plotCeiling(const FrameTimings& timings, std::size_t first, float (*value)(const FrameRecord&),
                  float floor);

/// The smallest round number at least `v` (0.05, 0.1, 0.2, 0.5, 1, 2, 4, 8, 16.7, 33.3, 50, 100, ...).
float niceCeiling(float v);

}  // namespace st::ui
