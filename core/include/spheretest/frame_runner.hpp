#pragma once
/// \file
/// Structures driven side by side through one simulation's frames, written once for every program that
/// compares them (the headless report, the benchmark, the Compare panel, the Claims measurements, a game's
/// own test harness): each frame steps the simulation once (or takes the circles its caller says moved) and
/// hands every structure the circles that moved, timing each phase, summing
/// the counters and folding each frame's pair set into a checksum that tells whether two structures agreed.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "spheretest/frame.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/spatial_index.hpp"
#include "spheretest/tasks.hpp"

namespace st {

/// One structure a FrameRunner drives, and what it measured so far.
struct FrameTrack {
  std::string name;                        ///< the registry name it was added under
  std::unique_ptr<SpatialIndex> index;     ///< the structure
  double buildMs = 0.0;                    ///< wall time of its build (and the maintain after it)
  std::vector<double> updateMs;            ///< updateBatch + maintain, per frame
  std::vector<double> pairsMs;             ///< the pair search, per frame (0 where it did not run)
  QueryCounters pairCounters;              ///< the pair searches' work, summed over the frames
  std::uint64_t pairsFound = 0;            ///< pairs found, summed over the frames
  std::size_t pairsLastFrame = 0;          ///< pairs found in the last frame
  std::vector<std::uint64_t> frameHashes;  ///< pairSetHash of each frame's pairs
  std::uint64_t pairsChecksum = 0;         ///< foldFrameChecksum over frameHashes
  FrameResult last;                        ///< the last frame in full (CPU times, update and pair counters)
  bool searchPairs = true;                 ///< false: its pair search is left out (brute force at a size)
  std::string failure;                     ///< what it threw during advance(); it is skipped from then on
};

/// Steps one simulation and any number of structures through the same frames.
class FrameRunner {
 public:
  /// Drives structures over `simulation`, which must outlive the runner; a scheduler, when given, is handed
  /// to every structure added.
  explicit FrameRunner(Simulation& simulation, TaskScheduler* scheduler = nullptr)
      : simulation_(&simulation), scheduler_(scheduler) {}

  /// Drives structures over circles its caller hands it (add with items, then advance), with no simulation
  /// of its own: a panel that compares structures on another thread's scene.
  explicit FrameRunner(TaskScheduler* scheduler = nullptr) : scheduler_(scheduler) {}

  /// Builds `index` from the simulation's circles (with its world as the hint, and maintain() after, both
  /// timed) and drives it from the next frame on. Returns its position in tracks().
  std::size_t add(std::string name, std::unique_ptr<SpatialIndex> index);

  /// Builds `index` from `items` with `world` as its hint (and maintain() after, both timed) and drives it
  /// from the next frame on. Returns its position in tracks().
  std::size_t add(std::string name, std::unique_ptr<SpatialIndex> index, std::span<const Item> items,
                  const Box& world);

  /// Drives `index`, already built from the simulation's circles as they are now (a caller that times
  /// builds its own way), from the next frame on. Returns its position in tracks().
  std::size_t addBuilt(std::string name, std::unique_ptr<SpatialIndex> index);

  /// Hands the simulation and every structure to `scheduler` from the next frame on (a benchmark that
  /// alternates thread counts frame by frame).
  void setScheduler(TaskScheduler* scheduler);

  /// Steps the simulation once, then each structure in the order added: the moved circles (updateBatch and
  /// maintain) and, when `findPairs` is set, the pair search. `afterEach(i)`, when given, is called after
  /// structure i.
  void step(bool findPairs = true, const std::function<void(std::size_t)>& afterEach = {});

  /// One frame without a simulation step: each structure in turn takes the circles that moved (updateBatch
  /// and maintain) and, when `findPairs` is set and its track allows it, searches pairs. A structure that
  /// throws is marked (FrameTrack::failure) and skipped from then on, so that the others go on.
  void advance(std::span<const ItemId> movedIds, std::span<const Circle> movedCircles, bool findPairs,
               const std::function<void(std::size_t)>& afterEach = {});

  /// The structures with what they measured, in the order added.
  const std::vector<FrameTrack>& tracks() const { return tracks_; }
  /// One of them.
  FrameTrack& track(std::size_t i) { return tracks_[i]; }
  /// Wall time of the simulation's last step, in milliseconds.
  double lastSimulateMs() const { return simulateMs_; }
  /// Frames stepped so far.
  std::size_t frames() const { return frames_; }
  /// The pairs the last structure stepped found in its last frame.
  const std::vector<Pair>& lastPairs() const { return pairs_; }

 private:
  void advanceTracks(std::span<const ItemId> movedIds, std::span<const Circle> movedCircles, bool findPairs,
                     const std::function<void(std::size_t)>& afterEach, bool catchFailures);

  Simulation* simulation_ = nullptr;
  TaskScheduler* scheduler_ = nullptr;
  std::vector<FrameTrack> tracks_;
  std::vector<Pair> pairs_;
  std::size_t frames_ = 0;
  double simulateMs_ = 0.0;
};

}  // namespace st
