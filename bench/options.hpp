#pragma once
/// \file The benchmark's command line.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spheretest/scene.hpp"

namespace st::bench {

/// When to draw the plot with gnuplot.
enum class PlotMode { Off, On, Auto };

/// What to run and where to write it.
struct Options {
  std::vector<std::size_t> counts{1000, 10000, 100000, 1000000};             ///< --n
  std::vector<std::string> scenes{"spheretest", "uniform", "center-lines"};  ///< --scenes
  std::vector<std::string> structures;  ///< --structures (empty: every registered one)
  std::vector<std::string> skipped;     ///< --skip
  int frames = 30;                      ///< --frames: timed frames per run
  int settle = 2;                       ///< --settle: untimed frames between build and the timed frames
  int warmup = 60;                      ///< --warmup: simulation frames before the structures see the scene
  int steady = 0;                       ///< --steady: frames the structure lives through before those above
  std::vector<unsigned> threads{1};     ///< --threads: thread counts, ascending, each a run of everything
  bool alternate = false;  ///< --alternate: one run per structure whose frames take the thread counts in turn
  int queries = 1000;      ///< --queries: queries of each kind per run
  float querySize = 16.0f;               ///< --query-size: query circle radius; rays are 4x as long
  double timeCapSeconds = 120.0;         ///< --time-cap: CPU-time limit of one run, in seconds
  double memoryCapGiB = 8.0;             ///< --memory-cap-gb: address-space limit of one run (0: none)
  std::uint64_t seed = 1;                ///< --seed
  std::string outDir = "bench-results";  ///< --out
  PlotMode plot = PlotMode::Auto;        ///< --plot
  bool list = false;                     ///< --list
  SceneConfig scene;                     ///< --set scene.KEY=VALUE
  std::vector<std::pair<std::string, double>> structureParams;  ///< --set NAME.KEY=VALUE
  std::string commandLine;                                      ///< the command as typed, for the report
};

/// Parses argv; throws InvalidInput naming the option and what it accepts. Returns nullopt after --help.
std::optional<Options> parseOptions(int argc, char** argv);

/// The --help text.
std::string usage();

}  // namespace st::bench
