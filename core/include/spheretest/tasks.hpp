#pragma once
/// \file
/// How core runs work on several threads. The program that embeds the library may supply its own task
/// system by implementing TaskScheduler (as Box2D v3 and Jolt let a game plug in its job system); ThreadPool
/// is a ready one. Nothing here is global: a structure or a simulation is handed the scheduler to use, and
/// without one everything runs on the calling thread.
///
/// Results never depend on the number of threads: work is cut into pieces that do not depend on it, and each
/// piece's counters and output are combined the same way whichever thread ran it.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace st {

/// The work of one parallel loop: `fn(begin, end, worker)` handles the items [begin, end); `worker`, below
/// TaskScheduler::workerCount(), names the thread running it (for per-thread scratch).
using RangeFn = std::function<void(std::size_t begin, std::size_t end, unsigned worker)>;

/// Runs loops of independent work items on several threads.
class TaskScheduler {
 public:
  virtual ~TaskScheduler() = default;
  /// Threads that may run work at once, the calling one included (1: everything on the calling thread).
  virtual unsigned workerCount() const = 0;
  /// Calls `fn` over [0, count) cut into ranges of `grain` items (the last one shorter), on any workers, and
  /// returns when every range is done. Ranges never depend on workerCount().
  virtual void parallelFor(std::size_t count, std::size_t grain, const RangeFn& fn) = 0;
};

/// Runs every range on the calling thread, in order.
class SerialScheduler final : public TaskScheduler {
 public:
  /// One worker.
  unsigned workerCount() const override { return 1; }
  /// Runs the ranges one after another on the calling thread.
  void parallelFor(std::size_t count, std::size_t grain, const RangeFn& fn) override;
};

/// A fixed pool of threads (std::jthread) that, with the calling thread, takes ranges from a shared counter.
class ThreadPool final : public TaskScheduler {
 public:
  /// A pool of `threads` workers in all, the calling thread included (0: one per hardware thread).
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Workers, the calling thread included.
  unsigned workerCount() const override { return unsigned(threads_.size()) + 1; }
  /// Runs the ranges on every worker; one loop at a time (a second caller waits for the first).
  void parallelFor(std::size_t count, std::size_t grain, const RangeFn& fn) override;

 private:
  struct Job;
  void workerLoop(unsigned worker, std::stop_token stop);
  static void runRanges(Job& job, unsigned worker);

  std::mutex callMutex_;  // one parallelFor at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  std::size_t generation_ = 0;
  unsigned busy_ = 0;  // workers still inside the current job
  std::vector<std::jthread> threads_;
};

/// The scheduler that runs everything on the calling thread.
TaskScheduler& serialScheduler();

/// Hardware threads of this machine (at least 1).
unsigned hardwareThreads();

}  // namespace st
