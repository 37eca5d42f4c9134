#pragma once
// Where a frame's wall time goes on several threads: a scheduler that hands every parallel loop to the
// pool it wraps and keeps, per frame, how many loops ran, how long the calling thread waited in them and how
// long the ranges themselves ran (summed over the workers). Time outside the loops runs on one thread;
// inside them, the share of the workers' time spent in ranges says how much the wake-ups, the joins and
// uneven ranges cost; and the ranges' summed time against one thread's says how much they slow each other.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "spheretest/tasks.hpp"

namespace st::bench {

/// A TaskScheduler over another that times its parallel loops and their ranges.
class LoopProfiler final : public TaskScheduler {
 public:
  /// Times the loops `inner` runs; `inner` must outlive the profiler.
  explicit LoopProfiler(TaskScheduler& inner) : inner_(&inner), busyNs_(inner.workerCount()) {}

  /// The wrapped scheduler's workers.
  unsigned workerCount() const override { return inner_->workerCount(); }

  /// Runs the loop on the wrapped scheduler, timing the whole loop and each range.
  void parallelFor(std::size_t count, std::size_t grain, const RangeFn& fn) override {
    if (count == 0) return;
    ++loops_;
    const auto start = Clock::now();
    inner_->parallelFor(count, grain, [&](std::size_t begin, std::size_t end, unsigned worker) {
      const auto rangeStart = Clock::now();
      fn(begin, end, worker);
      // Each worker adds to its own slot, on a cache line of its own.
      busyNs_[worker].ns += nsSince(rangeStart);
    });
    loopNs_ += nsSince(start);
  }

  /// Starts a new frame's counts.
  void reset() {
    loops_ = 0;
    loopNs_ = 0;
    for (Slot& slot : busyNs_) slot.ns = 0;
  }
  /// Parallel loops since reset().
  std::size_t loops() const { return loops_; }
  /// Wall time the calling thread spent inside parallel loops since reset(), ms.
  double loopMs() const { return double(loopNs_) * 1e-6; }
  /// Time the ranges ran, summed over every worker, since reset(), ms.
  double busyMs() const {
    std::int64_t sum = 0;
    for (const Slot& slot : busyNs_) sum += slot.ns;
    return double(sum) * 1e-6;
  }

 private:
  using Clock = std::chrono::steady_clock;
  struct alignas(64) Slot {
    std::int64_t ns = 0;
  };
  static std::int64_t nsSince(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  }

  TaskScheduler* inner_;
  std::size_t loops_ = 0;
  std::int64_t loopNs_ = 0;
  std::vector<Slot> busyNs_;
};

}  // namespace st::bench
