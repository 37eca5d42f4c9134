#pragma once
/// \file
/// The scenes (scenarios) and the SphereTest simulation, shared by the app, the tests and the
/// benchmark.
///
/// A scene places N circles in a square world and moves them with a fixed time step, deterministically
/// from a seed. Circle ids are 0..N-1 and never change; a quarter of the circles are static by default.
///
/// The default scene, `spheretest`, is the one of Ratcliff's SphereTest demo: every moving circle belongs
/// to one of 16 groups and keeps steering, at a capped speed, toward its group's attraction point; the
/// points drift, bounce off the world's edges and now and then jump elsewhere, so 16 swarms wander over the
/// world. Its static circles stay put between occasional jumps to a random place.

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spheretest/geometry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/spatial_index.hpp"

namespace st {

/// Scene parameters, set on the command line as `scene.<key>=<value>`.
struct SceneConfig {
  double radiusMin = 0.5;        ///< smallest radius
  double radiusMax = 4.0;        ///< largest radius (at least 8x radiusMin by default)
  double staticFraction = 0.25;  ///< share of circles that never move (spheretest: between jumps)
  double attractors = 16;        ///< attraction points of the spheretest scene
  double speed = 20.0;           ///< typical speed in world units per second (spheretest: the mean)
  double areaPerCircle = 64.0;   ///< world area per circle: the world grows with the count
  double clusterFraction = 0.9;  ///< share of circles in the remote cluster (remote-cluster scene)
  double swarmRadius = 0.06;     ///< spheretest: radius of a settled swarm, x world side
  double attractorSpeed = 4.0;   ///< spheretest: drift of the attraction points, world units per second
  double attractorJump = 4.0;    ///< spheretest: mean time between a point's jumps, x world crossing time
  double staticJump = 4.0;       ///< spheretest: mean seconds between a static circle's jumps (0: never)
};

/// The `scene.*` keys with their ranges, in the order --list-scenarios prints them.
const std::vector<ParamInfo>& sceneParams();
/// Sets `scene.<key>`; throws InvalidInput naming the valid keys or the accepted range.
void setSceneParam(SceneConfig& config, std::string_view key, double value);
/// Reads `scene.<key>`.
double sceneParam(const SceneConfig& config, std::string_view key);

/// A registered scenario.
struct ScenarioInfo {
  std::string name;         ///< command-line name
  std::string description;  ///< one line
};

/// Every scenario, the default ("spheretest") first.
const std::vector<ScenarioInfo>& scenarios();
/// Throws InvalidInput listing the valid names if `name` is not a scenario.
void checkScenarioName(std::string_view name);

/// One circle of a scene file.
struct SceneCircle {
  Circle circle;          ///< where it starts
  bool isStatic = false;  ///< whether it stays put (in spheretest, between occasional jumps)
};

/// Thrown when a scene file cannot be read or parsed; the message names the file and line.
class SceneFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads `x,y,radius[,static]` lines after a header line; throws SceneFileError. Lines longer than 4096
/// characters and files of more than 10,000,000 circles are rejected without reading them whole.
std::vector<SceneCircle> loadSceneFile(const std::string& path);

/// Deterministic simulation of one scene.
class Simulation {
 public:
  /// Fixed time step in seconds.
  static constexpr float kTimeStep = 1.0f / 60.0f;

  /// Generates `count` circles of `scenario`; throws InvalidInput for an unknown scenario or bad config.
  Simulation(std::string_view scenario, const SceneConfig& config, std::size_t count, std::uint64_t seed);
  /// Starts from the given circles (a scene file), moving the non-static ones as `scenario` does.
  Simulation(std::string_view scenario, const SceneConfig& config, std::vector<SceneCircle> initial,
             std::uint64_t seed);

  /// Advances one time step.
  void step();
  /// The scheduler the step may spread its circles over (nullptr: the calling thread only). The frames are
  /// the same for any scheduler; it must outlive its use here.
  void setScheduler(TaskScheduler* scheduler) { scheduler_ = scheduler; }

  /// Circles by id.
  const std::vector<Circle>& circles() const { return circles_; }
  /// The circles as build() items.
  std::vector<Item> items() const;
  /// Ids of the circles the last step moved, ascending: every non-static one, and the static ones that
  /// jumped in that step (spheretest). Before the first step: every non-static one.
  std::span<const ItemId> movedIds() const { return movingIds_; }
  /// The new circles of movedIds(), in the same order.
  std::span<const Circle> movedCircles() const { return movedCircles_; }
  /// Whether a circle stays put (in spheretest, between occasional jumps).
  bool isStatic(ItemId id) const { return group_[id] < 0; }
  /// Attraction group of a circle (its colour), -1 when static.
  int group(ItemId id) const { return group_[id]; }
  /// Attraction points, one per group (empty for scenes without them).
  const std::vector<Vec2>& attractors() const { return attractors_; }
  /// The world square circles start in.
  const Box& world() const { return world_; }
  /// Where this scene's queries fall by default.
  const Box& queryRegion() const { return queryRegion_; }
  /// Largest radius in the scene.
  float maxRadius() const { return maxRadius_; }
  /// Frames stepped so far.
  std::uint64_t frame() const { return frame_; }
  /// Scenario name.
  const std::string& scenario() const { return scenario_; }

 private:
  enum class Motion { Swarm, Drift, Line };
  /// The spheretest motion's constants, derived from the config and the world at the start.
  struct SwarmMotion {
    float radius = 0.0f;               // of a settled swarm, world units
    float speedCap = 0.0f;             // world units per second
    float steer = 0.0f;                // acceleration toward the attraction point, units per second^2
    double kickFrames = 0.0;           // mean frames between a moving circle's kicks
    double staticJumpFrames = 0.0;     // mean frames between a static circle's jumps (0: never)
    double attractorJumpFrames = 0.0;  // mean frames between an attraction point's jumps (0: never)
    Box attractorBox;                  // where attraction points stay: the world less a swarm radius
  };
  void generate(std::size_t count);
  float randomRadius(double lo, double hi);
  Vec2 randomDirection();
  void finishInit();
  void stepBounce(std::size_t i, bool turn);
  // The spheretest motion.
  void initSwarm();
  void placeInSwarm(std::size_t i);
  std::uint32_t countdown(double meanFrames);
  void stepSwarm();
  void stepAttractors();
  TaskScheduler& scheduler() const { return scheduler_ ? *scheduler_ : serialScheduler(); }

  std::string scenario_;
  SceneConfig config_;
  Rng rng_;
  Motion motion_ = Motion::Swarm;
  SwarmMotion swarm_;
  Box world_;
  Box queryRegion_;
  std::vector<Circle> circles_;
  std::vector<Vec2> velocity_;
  std::vector<int> group_;            // attractor index (spheretest) or 0; -1 static
  std::vector<std::uint8_t> region_;  // index into regions_: the box a drifting circle bounces in
  std::vector<Box> regions_;
  std::vector<Vec2> attractors_;
  std::vector<Vec2> attractorVelocity_;
  std::vector<std::uint32_t> attractorCountdown_;  // frames to each point's next jump
  // spheretest: frames to each circle's next kick (moving) or jump (static)
  std::vector<std::uint32_t> countdown_;
  std::vector<ItemId> movingIds_;
  std::vector<Circle> movedCircles_;
  // The step's pieces of circles (a count that depends only on the number of circles): the ids whose
  // countdown ran out in each, and how many of each go in the batch (then where they start in it).
  static constexpr std::size_t kStepPieces = 64;
  std::vector<std::vector<std::uint32_t>> pieceEvents_;
  std::vector<std::uint32_t> pieceMoved_;
  TaskScheduler* scheduler_ = nullptr;
  float maxRadius_ = 0.0f;
  std::uint64_t frame_ = 0;
};

}  // namespace st
