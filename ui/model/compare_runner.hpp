#pragma once
/// \file Every structure on the same frame: a bench that keeps one instance of each structure on a frame
/// runner, brings them all to a snapshot of the circles (an update batch, or a build the first time), and
/// times the pair search and the Query panel's query on each; and a worker that runs the bench on a thread
/// of its own.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "spheretest/frame_runner.hpp"
#include "spheretest/registry.hpp"
#include "ui/model/demo_model.hpp"

namespace st::ui {

/// The circles of one frame and the query to run on them.
struct CompareSnapshot {
  std::vector<Circle> circles;  ///< circles by id
  Box world;                    ///< the scene's world (the trees' hint)
  std::uint64_t frame = 0;      ///< simulation frame of the circles
  std::string sceneKey;         ///< changes when the scene is regenerated: the bench then builds afresh
  QueryState query;             ///< the Query panel's shape (its answers are not used)
  bool pairs = true;            ///< run the pair search
};

/// One structure's figures on a snapshot.
struct CompareRow {
  std::string name;       ///< registry name
  bool peer = false;      ///< a wrapped third-party library
  std::string note;       ///< why something did not run ("" when everything did)
  bool built = false;     ///< built from scratch for this snapshot (else brought along by an update batch)
  double updateMs = 0.0;  ///< build or update batch + maintain
  double pairsMs = 0.0;   ///< findPairs
  std::uint64_t pairTests = 0;       ///< circle pairs findPairs examined (its candidate tests)
  std::uint64_t pairs = 0;           ///< pairs found
  std::uint64_t pairHash = 0;        ///< pairSetHash of the pairs
  bool pairsRan = false;             ///< findPairs ran
  bool agrees = true;                ///< found the reference's pair set
  double queryUs = 0.0;              ///< the query, microseconds
  std::uint64_t queryNodes = 0;      ///< nodes it visited
  bool nodesCounted = true;          ///< queryNodes counts them (see SpatialIndex::nodesNotCounted)
  std::string examinedLowerBound;    ///< why pairTests and queryTests are lower bounds ("" when counts)
  std::uint64_t queryTests = 0;      ///< circles it examined
  std::uint64_t queryHits = 0;       ///< results
  bool queryRan = false;             ///< the query ran
  std::size_t nodes = 0;             ///< stats().nodes
  std::size_t memoryBytes = 0;       ///< stats().memoryBytes
  std::uint64_t pairExactTests = 0;  ///< exact overlap tests among the pairs examined
};

/// Every structure's figures on one snapshot.
struct CompareResult {
  std::string error;             ///< why the run failed, if it did
  std::uint64_t frame = 0;       ///< the snapshot's frame
  std::size_t count = 0;         ///< circles
  std::vector<CompareRow> rows;  ///< registry order
  std::string reference;         ///< whose pair set the others are checked against
  double wallMs = 0.0;           ///< the whole run
};

/// Keeps one instance of every structure and runs them on snapshots. Not thread-safe: one thread uses it.
class CompareBench {
 public:
  /// Every structure of `registry` (which must outlive the bench).
  explicit CompareBench(const StructureRegistry& registry) : registry_(registry) {}

  /// Brings every structure to `snapshot` and measures it.
  CompareResult run(const CompareSnapshot& snapshot);

 private:
  // One per registered structure, in registry order: its track in the runner, or why its build failed.
  struct Entry {
    std::string name;
    bool peer = false;
    std::size_t track = 0;
    std::string buildFailure;
  };
  void rebuild(const CompareSnapshot& snapshot);

  const StructureRegistry& registry_;
  std::unique_ptr<FrameRunner> runner_;
  std::vector<Entry> entries_;
  std::vector<Circle> previous_;
  std::string previousKey_;
};

/// Runs a CompareBench on a thread of its own, one snapshot at a time.
class CompareWorker {
 public:
  /// Starts the thread.
  explicit CompareWorker(const StructureRegistry& registry);
  /// Stops and joins the thread.
  ~CompareWorker();
  CompareWorker(const CompareWorker&) = delete;
  CompareWorker& operator=(const CompareWorker&) = delete;

  /// Whether a snapshot is being measured.
  bool busy() const;
  /// Hands a snapshot over if the worker is idle; returns false (keeping nothing) while it is busy.
  bool submit(CompareSnapshot snapshot);
  /// The latest finished result, once.
  std::optional<CompareResult> take();

 private:
  void loop();

  CompareBench bench_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<CompareSnapshot> job_;
  std::optional<CompareResult> result_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace st::ui
