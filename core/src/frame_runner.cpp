#include "spheretest/frame_runner.hpp"

#include <chrono>
#include <exception>
#include <stdexcept>

namespace st {

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::size_t FrameRunner::add(std::string name, std::unique_ptr<SpatialIndex> index) {
  if (!simulation_) throw std::logic_error("FrameRunner::add: no simulation; pass the items");
  return add(std::move(name), std::move(index), simulation_->items(), simulation_->world());
}

std::size_t FrameRunner::add(std::string name, std::unique_ptr<SpatialIndex> index,
                             std::span<const Item> items, const Box& world) {
  if (scheduler_) index->setScheduler(scheduler_);
  index->setWorldHint(world);
  const auto start = std::chrono::steady_clock::now();
  index->build(items);
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
  if (simulation_) simulation_->setScheduler(scheduler);
  for (FrameTrack& track : tracks_) track.index->setScheduler(scheduler);
}

void FrameRunner::step(bool findPairs, const std::function<void(std::size_t)>& afterEach) {
  if (!simulation_) throw std::logic_error("FrameRunner::step: no simulation; use advance");
  const auto start = std::chrono::steady_clock::now();
  simulation_->step();
  simulateMs_ = millisecondsSince(start);
  advanceTracks(simulation_->movedIds(), simulation_->movedCircles(), findPairs, afterEach, false);
}

void FrameRunner::advance(std::span<const ItemId> movedIds, std::span<const Circle> movedCircles,
                          bool findPairs, const std::function<void(std::size_t)>& afterEach) {
  simulateMs_ = 0.0;
  advanceTracks(movedIds, movedCircles, findPairs, afterEach, true);
}

void FrameRunner::advanceTracks(std::span<const ItemId> movedIds, std::span<const Circle> movedCircles,
                                bool findPairs, const std::function<void(std::size_t)>& afterEach,
                                bool catchFailures) {
  ++frames_;
  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    FrameTrack& track = tracks_[i];
    if (!track.failure.empty()) continue;
    pairs_.clear();
    FrameResult frame;
    try {
      frame = advanceStructure(*track.index, movedIds, movedCircles, pairs_, findPairs && track.searchPairs);
    } catch (const std::exception& e) {
      if (!catchFailures) throw;
      track.failure = e.what();
      if (afterEach) afterEach(i);
      continue;
    }
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
