#include "spheretest/frame_runner.hpp"

#include <chrono>

namespace st {

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::size_t FrameRunner::add(std::string name, std::unique_ptr<SpatialIndex> index) {
  if (scheduler_) index->setScheduler(scheduler_);
  index->setWorldHint(simulation_.world());
  const auto start = std::chrono::steady_clock::now();
  index->build(simulation_.items());
  index->maintain();
  const double buildMs = millisecondsSince(start);
  const std::size_t at = addBuilt(std::move(name), std::move(index));
  tracks_[at].buildMs = buildMs;
  return at;
}

std::size_t FrameRunner::addBuilt(std::string name, std::unique_ptr<SpatialIndex> index) {
  if (scheduler_) index->setScheduler(scheduler_);
  FrameTrack track;
  track.name = std::move(name);
  track.index = std::move(index);
  tracks_.push_back(std::move(track));
  return tracks_.size() - 1;
}

void FrameRunner::setScheduler(TaskScheduler* scheduler) {
  scheduler_ = scheduler;
  simulation_.setScheduler(scheduler);
  for (FrameTrack& track : tracks_) track.index->setScheduler(scheduler);
}

void FrameRunner::step(bool findPairs, const std::function<void(std::size_t)>& afterEach) {
  const auto start = std::chrono::steady_clock::now();
  simulation_.step();
  simulateMs_ = millisecondsSince(start);
  ++frames_;
  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    FrameTrack& track = tracks_[i];
    pairs_.clear();
    const FrameResult frame = advanceStructure(*track.index, simulation_, pairs_, findPairs);
    track.last = frame;
    track.updateMs.push_back(frame.updateMs);
    track.pairsMs.push_back(frame.pairsMs);
    track.pairCounters.nodesVisited += frame.pairs.nodesVisited;
    track.pairCounters.candidates += frame.pairs.candidates;
    track.pairCounters.exactTests += frame.pairs.exactTests;
    if (frame.pairsSearched) {
      track.pairsFound += pairs_.size();
      track.pairsLastFrame = pairs_.size();
      track.frameHashes.push_back(pairSetHash(pairs_));
      track.pairsChecksum = foldFrameChecksum(track.pairsChecksum, track.frameHashes.back());
    }
    if (afterEach) afterEach(i);
  }
}

}  // namespace st
