#pragma once
/// \file One piece of work run on a thread of its own, so that measurements taking a second or two (the
/// claims, the comparison of every structure) never stall the window's frames.

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace st::ui {

/// Runs one function at a time on a worker thread; the window polls for its result once per frame.
/// `Result` must be default-constructible and have a `std::string error` member that receives the message
/// of an exception thrown by the work.
template <class Result>
class BackgroundTask {
 public:
  /// The work: receives a flag it should check now and then, and return early when it turns true.
  using Work = std::function<Result(const std::atomic<bool>& cancelled)>;

  BackgroundTask() = default;
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;
  ~BackgroundTask() { cancel(); }

  /// Starts `work`, cancelling and waiting for any previous work first.
  void start(Work work) {
    cancel();
    cancelled_ = false;
    done_ = false;
    running_ = true;
    thread_ = std::thread([this, work = std::move(work)] { finish(work, cancelled_); });
  }

  /// Runs `work` on the calling thread instead (screenshots and tests want the result at once).
  void runHere(const Work& work) {
    cancel();
    const std::atomic<bool> never{false};
    finish(work, never);
  }

  /// Whether work was started and its result has not been taken yet.
  bool busy() const { return running_ && !done_; }

  /// The result once the work has finished (then the task is idle again), else nothing.
  std::optional<Result> take() {
    if (!done_) return std::nullopt;
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<Result> out = std::move(result_);
    result_.reset();
    done_ = false;
    running_ = false;
    return out;
  }

  /// Asks running work to stop, waits for it and drops its result.
  void cancel() {
    cancelled_ = true;
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    result_.reset();
    done_ = false;
    running_ = false;
  }

 private:
  /// Runs the work, turning an exception into the result's error, and publishes the result.
  void finish(const Work& work, const std::atomic<bool>& cancelled) {
    Result result;
    try {
      result = work(cancelled);
    } catch (const std::exception& e) {
      result = Result{};
      result.error = e.what();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = std::move(result);
    done_ = true;
  }

  std::thread thread_;
  std::mutex mutex_;
  std::optional<Result> result_;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> done_{false};
  bool running_ = false;
};

}  // namespace st::ui
