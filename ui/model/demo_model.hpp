#pragma once
/// \file What the demo window shows: the simulation, the current structure, this frame's pairs and query,
/// and the frame timings. Parts read and change it; the app advances it once per frame.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spheretest/frame.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/spatial_index.hpp"
#include "ui/model/frame_timings.hpp"

namespace st::ui {

/// Everything that decides the circles of a generated scene.
struct SceneSetup {
  std::size_t count = 2000;             ///< circles
  std::string scenario = "spheretest";  ///< scenario name
  std::uint64_t seed = 1;               ///< random seed
  SceneConfig config;                   ///< scene.* parameters
};

/// Above this many circles the app (window, report, Compare) leaves brute force's pair search out unless
/// it is named: it tests every pair, about 200 million tests per frame at 20,000 circles.
inline constexpr std::size_t kBrutePairLimit = 20'000;

/// Which query the mouse drives: a shape, or none (the tool is off).
using QueryMode = std::optional<QueryShape>;

/// The Query panel's index of a mode: 0 for off, then the shapes in QueryShape's order.
inline int queryModeIndex(QueryMode mode) {
  return mode ? int(*mode) + 1 : 0;
}
/// The mode at a Query panel index (out-of-range indices clamp).
inline QueryMode queryModeAt(int index) {
  if (index <= 0) return std::nullopt;
  return static_cast<QueryShape>(std::min(index, int(QueryShape::Nearest) + 1) - 1);
}

/// The mouse query: its shape, this frame's answer, and the trace of the walk that produced it.
struct QueryState {
  QueryMode mode = QueryShape::Circle;  ///< current tool
  Vec2 anchor;                          ///< point, circle/box centre, ray start or eye
  Vec2 target;                          ///< ray end, or where the cone looks
  float radius = 1.0f;                  ///< circle query radius
  Vec2 halfExtent{1.0f, 1.0f};          ///< box query half size
  float coneHalfAngle = 0.45f;          ///< half the cone's field of view, radians
  int nearestCount = 8;                 ///< how many circles the nearest query asks for
  bool followMouse = false;             ///< the shape moves with the cursor
  bool placed = false;                  ///< the shape was sized for the current scene

  std::vector<ItemId> hits;   ///< ids found (point, circle, box, cone: visible set; nearest: nearest first)
  float nearestReach = 0.0f;  ///< nearest: the k-th circle's edge distance (the ring drawn around the point)
  std::vector<RayHit> rayHits;  ///< ray hits in order
  std::vector<ItemId> entered;  ///< cone: became visible this frame
  std::vector<ItemId> left;     ///< cone: stopped being visible this frame
  QueryCounters counters;       ///< work of the untraced run
  QueryDetail detail;           ///< the untraced run's structure-specific figures (cells, widening, levels)
  double microseconds = 0.0;    ///< wall time of the untraced run
  QueryTrace trace;             ///< steps of the traced run (same query, same answer)
  std::string error;            ///< why the query was rejected, if it was
};

/// Sets the query's shape and places it at `anchor` with `size` (a circle's radius, a box's half side, a
/// ray's length, a cone's reach); a ray or cone points at `target` when one is given, else along +x for
/// `size`.
void placeQuery(QueryState& q, QueryMode mode, Vec2 anchor, float size,
                std::optional<Vec2> target = std::nullopt);

/// Creates a structure by registry name with the command line's parameters applied.
using StructureFactory = std::function<std::unique_ptr<SpatialIndex>(const std::string& name)>;

/// The demo's state between frames.
class DemoModel {
 public:
  /// Takes the first simulation (built from the command line) and the structure to start with.
  DemoModel(const StructureRegistry& registry, StructureFactory factory,
            std::unique_ptr<Simulation> simulation, SceneSetup setup, const std::string& structure);

  /// Every structure that can be selected, in registry order.
  const StructureRegistry& registry() const { return registry_; }
  /// Threads the simulation, the updates and the pair search run on.
  unsigned threads() const { return pool_->workerCount(); }
  /// The workers of those threads, for other per-frame work (the window's drawing on the CPU).
  TaskScheduler& scheduler() { return *pool_; }
  /// Runs on `threads` threads from the next frame (0: one per hardware thread); the results stay the same.
  void setThreads(unsigned threads);
  /// The simulation.
  const Simulation& simulation() const { return *simulation_; }
  /// The current structure.
  SpatialIndex& structure() { return *structure_; }
  /// The current structure.
  const SpatialIndex& structure() const { return *structure_; }
  /// Registry index of the current structure.
  std::size_t structureIndex() const { return structureIndex_; }
  /// Changes whenever the structure is replaced, rebuilt or reseeded, so parts can drop cached state.
  std::uint64_t generation() const { return generation_; }

  /// Switches to the named structure, built from the current circles; false (and lastError) on failure.
  bool selectStructure(const std::string& name);
  /// Moves `delta` places through the registry, wrapping around.
  void cycleStructure(int delta);
  /// Switches to the structure a digit key picks: 1 .. 9, 0 are the first ten of the registry, and with
  /// Shift the next ten (so all thirteen built-in structures and peers have a key); false where none is.
  bool selectByDigit(int digit, bool shift);
  /// Time of the last build (switch, reseed, or parameter change), milliseconds.
  double buildMs() const { return buildMs_; }
  /// What the last build was for.
  const std::string& buildReason() const { return buildReason_; }

  /// The scene as last generated (or as given on the command line).
  const SceneSetup& scene() const { return scene_; }
  /// Replaces the circles with a newly generated scene and rebuilds the structure; false on bad input.
  bool reseed(const SceneSetup& setup);
  /// Sets a parameter of the current structure (it rebuilds as it sees fit); false on bad input.
  bool setParam(const std::string& key, double value);
  /// Message of the last rejected action, "" when it succeeded.
  const std::string& lastError() const { return lastError_; }

  // -- running ---------------------------------------------------------------------------------------
  bool paused = false;     ///< the simulation holds still (queries and pairs still run)
  float speed = 1.0f;      ///< simulation steps per rendered frame (fractions accumulate)
  bool pairSearch = true;  ///< find pairs every frame
  /// Runs one step on the next frame even while paused.
  void requestStep() { ++pendingSteps_; }

  /// One frame: simulation steps, structure update + maintain, pair search; times go into `record`.
  void advance(FrameRecord& record);
  /// Steps taken in the last advance().
  int stepsLastFrame() const { return stepsLastFrame_; }
  /// Why pair search is off, when the demo turned it off.
  const std::string& pairSearchNote() const { return pairSearchNote_; }

  /// This frame's overlapping pairs (stale while pair search is off).
  const std::vector<Pair>& pairs() const { return pairs_; }
  /// Counters of the last findPairs.
  const QueryCounters& pairCounters() const { return pairCounters_; }
  /// Counters of the last update batch + maintain.
  const QueryCounters& updateCounters() const { return updateCounters_; }
  /// Whether pairs() belongs to the current circles and structure.
  bool pairsCurrent() const { return pairsCurrent_; }

  QueryState query;      ///< the mouse query, run by the query tool
  FrameTimings timings;  ///< last frames' phase times

  /// Registers how to wait for work that reads the structure and the circles on another thread (a walk over
  /// the nodes during the rest of the frame): the model calls `wait` before it changes either.
  void addReaderWait(std::function<void()> wait) { readerWaits_.push_back(std::move(wait)); }

 private:
  void waitForReaders() {
    for (const std::function<void()>& wait : readerWaits_) wait();
  }
  void build(const std::string& reason);
  void guardBrutePairs();

  const StructureRegistry& registry_;
  StructureFactory factory_;
  std::unique_ptr<ThreadPool> pool_;  // declared before what uses it, so that it is destroyed after
  std::unique_ptr<Simulation> simulation_;
  std::unique_ptr<SpatialIndex> structure_;
  std::size_t structureIndex_ = 0;
  SceneSetup scene_;
  std::uint64_t generation_ = 0;
  double buildMs_ = 0.0;
  std::string buildReason_;
  std::string lastError_;
  std::string pairSearchNote_;
  int pendingSteps_ = 0;
  float stepCredit_ = 0.0f;
  int stepsLastFrame_ = 0;
  std::vector<Pair> pairs_;
  QueryCounters pairCounters_;
  QueryCounters updateCounters_;
  bool pairsCurrent_ = false;
  std::vector<std::function<void()>> readerWaits_;
};

/// Milliseconds since `start`.
double millisecondsSince(std::uint64_t startNanoseconds);
/// A monotonic clock reading in nanoseconds.
std::uint64_t nowNanoseconds();

}  // namespace st::ui
