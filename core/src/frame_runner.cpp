#include "spheretest/frame_runner.hpp"

#include <chrono>

namespace st {

std::size_t FrameRunner::add(std::string name, std::unique_ptr<SpatialIndex> index) {
  FrameTrack track;
  track.name = std::move(name);
  if (scheduler_) index->setScheduler(scheduler_);
  index->setWorldHint(simulation_.world());
  const auto start = std::chrono::steady_clock::now();
  index->build(simulation_.items());
  index->maintain();
  track.buildMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  track.index = std::move(index);
  tracks_.push_back(std::move(track));
  return tracks_.size() - 1;
}

void FrameRunner::step(bool findPairs, const std::function<void(std::size_t)>& afterEach) {
  simulation_.step();
  ++frames_;
  for (std::size_t i = 0; i < tracks_.size(); ++i) {
    FrameTrack& track = tracks_[i];
    pairs_.clear();
    const FrameResult frame = advanceStructure(*track.index, simulation_, pairs_, findPairs);
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
