#include "spheretest/tasks.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

namespace st {

void SerialScheduler::parallelFor(std::size_t count, std::size_t grain, const RangeFn& fn) {
  grain = std::max<std::size_t>(grain, 1);
  for (std::size_t begin = 0; begin < count; begin += grain) fn(begin, std::min(count, begin + grain), 0);
}

TaskScheduler& serialScheduler() {
  static SerialScheduler serial;
  return serial;
}

unsigned hardwareThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// One parallelFor in flight: the ranges are handed out through `next`, so a worker that finishes early takes
// more; the first exception is kept and rethrown to the caller.
struct ThreadPool::Job {
  const RangeFn* fn = nullptr;
  std::size_t count = 0;
  std::size_t grain = 1;
  std::atomic<std::size_t> next{0};
  std::mutex errorMutex;
  std::exception_ptr error;
};

ThreadPool::ThreadPool(unsigned threads) {
  const unsigned total = threads == 0 ? hardwareThreads() : threads;
  threads_.reserve(total - 1);
  for (unsigned w = 1; w < total; ++w)
    threads_.emplace_back([this, w](std::stop_token stop) { workerLoop(w, stop); });
}

ThreadPool::~ThreadPool() {
  for (std::jthread& t : threads_) t.request_stop();
  { std::lock_guard lock(mutex_); }
  wake_.notify_all();
  threads_.clear();  // joins
}

void ThreadPool::runRanges(Job& job, unsigned worker) {
  for (;;) {
    const std::size_t begin = job.next.fetch_add(job.grain, std::memory_order_relaxed);
    if (begin >= job.count) return;
    try {
      (*job.fn)(begin, std::min(job.count, begin + job.grain), worker);
    } catch (...) {
      std::lock_guard lock(job.errorMutex);
      if (!job.error) job.error = std::current_exception();
    }
  }
}

void ThreadPool::workerLoop(unsigned worker, std::stop_token stop) {
  std::size_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop.stop_requested() || generation_ != seen; });
      if (stop.stop_requested()) return;
      seen = generation_;
      job = job_;
    }
    runRanges(*job, worker);
    {
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::parallelFor(std::size_t count, std::size_t grain, const RangeFn& fn) {
  if (count == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  if (threads_.empty() || count <= grain) {
    for (std::size_t begin = 0; begin < count; begin += grain) fn(begin, std::min(count, begin + grain), 0);
    return;
  }
  std::lock_guard call(callMutex_);
  Job job;
  job.fn = &fn;
  job.count = count;
  job.grain = grain;
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    busy_ = unsigned(threads_.size());
    ++generation_;
  }
  wake_.notify_all();
  runRanges(job, 0);
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace st
