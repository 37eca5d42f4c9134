#pragma once
/// \file The benchmark's outputs: CSV, JSON, a Markdown summary for the README, and the gnuplot plot.

#include <string>
#include <vector>

#include "measure.hpp"
#include "options.hpp"

namespace st::bench {

/// Where the figures came from.
struct MachineInfo {
  std::string cpu;         ///< CPU model
  unsigned cores = 0;      ///< logical cores the process may use
  std::string memory;      ///< total memory
  std::string system;      ///< kernel name and release
  std::string compiler;    ///< compiler and version
  std::string buildType;   ///< CMake build type
  std::string startedUtc;  ///< when the run started
  std::string loadBefore;  ///< 1/5/15-minute load averages at the start
  std::string loadAfter;   ///< and at the end
};

/// Reads the machine description (load averages: loadBefore only; call currentLoad() for loadAfter).
MachineInfo describeMachine();

/// The 1/5/15-minute load averages as one string.
std::string currentLoad();

/// The target figures of one run, ready to print and to store.
struct TargetCheck {
  std::string text;     ///< one line
  bool passed = false;  ///< whether the target was met
};

/// The memory-copy floor of one scene and count: the median time to copy one frame's input (the moved
/// circles' ids and circles, 16 bytes each) once, on one thread.
struct CopyFloor {
  std::string scene;      ///< scenario
  std::size_t count = 0;  ///< circles
  double ms = 0.0;        ///< median copy time
};

/// Measures the copy floor of `sim`'s last step.
CopyFloor measureCopyFloor(const std::string& scene, const Simulation& sim);

/// Thread scaling on the spheretest scene at 1M circles, where a run measured 1 and 16 threads (wall-clock
/// frame medians): every grid and the simulation step at least 8x faster on 16 threads, every tree 6x.
std::vector<TargetCheck> checkScalingTargets(const std::vector<RunResult>& results);

/// Checks the benchmark targets on what ran: the fastest structure against the faster peer on `spheretest`
/// at 100k and 1M circles (at least 10x); each structure of the library against the faster peer (frame at
/// least 2x faster, every query kind faster), against the grid at 100k (at most 5x its frame) and its bytes
/// per circle (at most 96; 160 for the replicated grid); every structure's growth from 100k to 1M (at most
/// 12x); the fit-entirely quadtree's queries from 100k to 1M (at most 3x); the grid's frame at 1M against the
/// copy floor (at most 12x).
std::vector<TargetCheck> checkTargets(const std::vector<RunResult>& results,
                                      const std::vector<CopyFloor>& floors = {});

/// One row per run; times in ms.
void writeCsv(const std::string& path, const std::vector<RunResult>& results);

/// Everything, with the machine, the command line and the targets.
void writeJson(const std::string& path, const MachineInfo& machine, const Options& options,
               const std::vector<RunResult>& results, const std::vector<TargetCheck>& targets);

/// Markdown tables as the README shows them.
void writeSummary(const std::string& path, const MachineInfo& machine, const Options& options,
                  const std::vector<RunResult>& results, const std::vector<TargetCheck>& targets);

/// Writes frame_ms.gp and, when gnuplot can be run (or mode is On), draws frame_ms.png from it: ms per frame
/// against circle count on log-log axes, one panel per scene, one line per structure. Returns what it did.
std::string writePlot(const std::string& dir, const std::vector<RunResult>& results, PlotMode mode);

}  // namespace st::bench
