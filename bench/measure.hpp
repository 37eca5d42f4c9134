#pragma once
/// \file One benchmark run: a structure on a scene's frames and queries, measured in a child process.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spheretest/registry.hpp"
#include "spheretest/scene.hpp"

namespace st::bench {

/// Median and 95th percentile of a sample set.
struct Stat {
  double median = 0.0;  ///< middle sample (mean of the two middle ones for an even count)
  double p95 = 0.0;     ///< nearest-rank 95th percentile
};

/// Median and p95 of `samples` (zeros when empty).
Stat summarize(std::vector<double> samples);

/// The queries of one (scene, count), identical for every structure.
struct QuerySet {
  std::vector<Vec2> points;     ///< point queries
  std::vector<Circle> circles;  ///< circle queries
  std::vector<Segment> rays;    ///< ray casts (all hits)
};

/// `count` seeded queries of each kind inside the scene's query region: circles of radius `size`, rays 4x
/// as long in random directions.
QuerySet makeQuerySet(const Simulation& sim, int count, float size, std::uint64_t seed);

/// How one run goes.
struct RunPlan {
  int frames = 30;                  ///< timed frames
  unsigned threads = 1;             ///< threads of the run's pool (simulation, update, pairs, queries)
  std::vector<unsigned> alternate;  ///< thread counts the frames take in turn (empty: all on `threads`)
  int steady = 0;                 ///< frames of updates and maintain before the settle frames (steady state)
  int settle = 2;                 ///< untimed frames after the build
  double timeCapSeconds = 120.0;  ///< the run is stopped after this much CPU time
  double memoryCapGiB = 0.0;      ///< address-space limit (0: none)
  std::vector<std::pair<std::string, double>>
      params;  ///< NAME.KEY=VALUE settings; those for this structure apply
};

/// How a run ended.
enum class RunStatus { Ok, Skipped, Failed };

/// What one run measured, or why it has no measurement.
struct RunResult {
  std::string scene;                    ///< scenario
  std::size_t count = 0;                ///< circles
  std::string structure;                ///< registry name
  unsigned threads = 1;                 ///< threads the run used
  bool peer = false;                    ///< a wrapped third-party library
  RunStatus status = RunStatus::Ok;     ///< outcome
  std::string reason;                   ///< why it was skipped or failed
  std::vector<double> buildMs;          ///< each build() of the whole scene, wall clock
  std::vector<double> updateMs;         ///< updateBatch + maintain, per timed frame, wall clock
  std::vector<double> pairsMs;          ///< findPairs, per timed frame, wall clock
  std::vector<double> frameMs;          ///< update + pairs, per timed frame, wall clock
  std::vector<double> buildCpuMs;       ///< the same four as CPU time of the measuring thread, which other
  std::vector<double> updateCpuMs;      ///< processes on a shared machine do not inflate
  std::vector<double> pairsCpuMs;       ///< (see buildCpuMs)
  std::vector<double> frameCpuMs;       ///< (see buildCpuMs)
  std::vector<double> simulateMs;       ///< the simulation step before each timed frame, wall clock
  std::vector<double> loopsPerFrame;    ///< alternating: parallel loops in each frame's update and pairs
  std::vector<double> loopMs;           ///< alternating: wall time of those spent inside parallel loops
  std::vector<double> loopBusyMs;       ///< alternating: time the loops' ranges ran, summed over workers
  std::vector<double> freshFrameMs;     ///< after a long run (--steady): a structure built fresh, same frames
  std::vector<double> freshFrameCpuMs;  ///< the same as CPU time
  std::vector<double> pointMs;          ///< each point query
  std::vector<double> circleMs;         ///< each circle query
  std::vector<double> rayMs;            ///< each ray cast
  double pairsLastFrame = 0.0;          ///< pairs found in the last frame
  double candidatesPerFrame = 0.0;      ///< median circle pairs examined per findPairs
  double exactTestsPerFrame = 0.0;      ///< median exact overlap tests among them
  std::uint64_t pairsChecksum = 0;      ///< fold of every frame's pair-set hash
  std::uint64_t queryChecksum = 0;      ///< fold of every query's answer
  std::size_t memoryBytes = 0;          ///< stats().memoryBytes after the last frame
  std::size_t nodes = 0;                ///< stats().nodes
  int maxDepth = 0;                     ///< stats().maxDepth
  std::size_t peakRssBytes = 0;         ///< the run's peak resident memory, whole process
  std::size_t peakAboveBaselineBytes =
      0;  ///< that peak minus the resident memory before the structure existed
  std::vector<std::pair<std::string, double>> extra;  ///< the structure's extra() figures
  double wallSeconds = 0.0;                           ///< how long the run took
  std::optional<bool> agrees;  ///< same checksums as the reference run (set by the caller)
};

/// Runs one structure on a copy of `sim` (the caller's is left as it is) in a child process: build, settle
/// and timed frames, then the queries. Never throws for what happens inside the run: a crash, an exception
/// or the time cap end up in status and reason. Returns one result per thread count of plan.alternate (the
/// frames' own figures each, the rest shared), or one result.
std::vector<RunResult> runIsolated(const StructureInfo& info, const Simulation& sim, const QuerySet& queries,
                                   const RunPlan& plan);

}  // namespace st::bench
