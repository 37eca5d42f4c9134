#pragma once
/// \file What the command line asks for, shared by the headless runner and the window.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spheretest/frame.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/scene.hpp"

namespace st::app {

/// Parsed and validated command line.
struct RunConfig {
  std::size_t count = 2000;                   ///< --count
  std::vector<std::string> structures;        ///< resolved structure names, in run order
  bool bruteExplicit = false;                 ///< brute was named explicitly (so it runs above 20,000)
  std::string scenario = "spheretest";        ///< --scenario
  std::optional<std::string> sceneFile;       ///< --scene-file
  std::uint64_t seed = 1;                     ///< --seed
  unsigned threads = 0;                       ///< --threads (0: one per hardware thread)
  int frames = 300;                           ///< --frames
  bool headless = false;                      ///< --headless
  std::optional<std::string> reportPath;      ///< --report
  std::optional<std::string> screenshotPath;  ///< --screenshot
  std::optional<std::string> recordPath;      ///< --record: a clip of --frames frames
  double recordFps = 0;                       ///< --record-fps (0: the clip format's default)
  std::vector<std::pair<std::string, double>> structureParams;  ///< --set <structure>.<key>=<value>
  SceneConfig scene;                                            ///< --set scene.<key>=<value>
  std::optional<QueryShape> queryKind;                          ///< --queries kind (none: no queries)
  int queryCount = 0;                                           ///< --queries count
  float querySize = 0.0f;                 ///< --query-size (0: a size derived from the scene)
  std::uint32_t queryK = 8;               ///< --query-k: circles a nearest query asks for
  std::optional<Box> queryRegion;         ///< --query-region
  double soakSeconds = 0;                 ///< --soak: window long run switching structures (0: off)
  double switchEverySeconds = 1;          ///< --switch-every: interval between switches in a soak run
  std::optional<std::string> lessonPath;  ///< --lesson, as the file it names (checked to load)
  std::size_t lessonStep = 0;             ///< --step, 0-based
  bool present = false;                   ///< --present: open in the presentation view

  /// A window run the command line alone drives (--screenshot, --record): the default size, no settings
  /// read or written, no pointer input, no vsync, so that the same seed draws the same frames.
  bool scripted() const { return screenshotPath.has_value() || recordPath.has_value(); }
};

/// The registry the app uses: defaultRegistry() unless useRegistry replaced it.
const StructureRegistry& appRegistry();

/// Makes the app use `registry` from now on (before the command line is parsed).
void useRegistry(StructureRegistry registry);

/// Builds the simulation the configuration describes (scene file or generated scene).
/// Throws InvalidInput or SceneFileError.
std::unique_ptr<Simulation> makeSimulation(const RunConfig& config);

/// Creates a structure and applies the --set parameters addressed to it.
std::unique_ptr<SpatialIndex> makeStructure(const RunConfig& config, const std::string& name);

/// Name of a query kind as written on the command line ("none" when there is none).
const char* queryKindName(std::optional<QueryShape> kind);

}  // namespace st::app
