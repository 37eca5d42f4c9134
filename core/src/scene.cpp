#include "spheretest/scene.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace st {
namespace {

constexpr float kSqrtHalf = 0.70710678f;
constexpr double kPi = 3.14159265358979323846;
constexpr float kDiagonalBandWidth = 64.0f;
constexpr std::uint64_t kAttractorMoveFrames = 240;  // one attraction point relocates every 4 s

struct SceneParamSlot {
  ParamInfo info;
  double SceneConfig::*field;
};

const std::vector<SceneParamSlot>& sceneParamSlots() {
  static const std::vector<SceneParamSlot> slots = {
      {{"radius_min", "smallest circle radius", 0.5, 0.0, 1e6, false}, &SceneConfig::radiusMin},
      {{"radius_max", "largest circle radius", 4.0, 0.0, 1e6, false}, &SceneConfig::radiusMax},
      {{"static_fraction", "share of circles that never move", 0.25, 0.0, 1.0, false},
       &SceneConfig::staticFraction},
      {{"attractors", "attraction points of the spheretest scene", 16, 1, 1024, true},
       &SceneConfig::attractors},
      {{"speed", "typical speed, world units per second", 20.0, 0.0, 1e6, false}, &SceneConfig::speed},
      {{"area_per_circle", "world area per circle (sets the world size)", 64.0, 0.01, 1e12, false},
       &SceneConfig::areaPerCircle},
      {{"cluster_fraction", "share of circles in the remote cluster (remote-cluster scene; 0 = no cluster)",
        0.9, 0.0, 1.0, false},
       &SceneConfig::clusterFraction},
  };
  return slots;
}

/// Keeps one coordinate in [lo, hi] by reflecting it off the edge it crossed (never past the other edge),
/// reversing that component of the velocity.
void reflectInto(float& coordinate, float& velocity, float lo, float hi) {
  if (coordinate < lo) {
    coordinate = std::min(2.0f * lo - coordinate, hi);
    velocity = -velocity;
  }
  if (coordinate > hi) {
    coordinate = std::max(2.0f * hi - coordinate, lo);
    velocity = -velocity;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Parameters and scenario list
// ---------------------------------------------------------------------------------------------------------

const std::vector<ParamInfo>& sceneParams() {
  static const std::vector<ParamInfo> infos = [] {
    std::vector<ParamInfo> out;
    for (const SceneParamSlot& slot : sceneParamSlots()) out.push_back(slot.info);
    return out;
  }();
  return infos;
}

void setSceneParam(SceneConfig& config, std::string_view key, double value) {
  std::string valid;
  for (const SceneParamSlot& slot : sceneParamSlots()) {
    if (slot.info.key == key) {
      if (!std::isfinite(value) || value < slot.info.minValue || value > slot.info.maxValue ||
          (slot.info.integer && value != std::floor(value))) {
        std::ostringstream s;
        s << "scene." << key << " must be " << (slot.info.integer ? "an integer" : "a number") << " in ["
          << slot.info.minValue << ", " << slot.info.maxValue << "], got " << value;
        throw InvalidInput(s.str());
      }
      config.*slot.field = value;
      return;
    }
    valid += (valid.empty() ? "scene." : ", scene.") + slot.info.key;
  }
  throw InvalidInput("unknown parameter 'scene." + std::string(key) + "'; valid: " + valid);
}

double sceneParam(const SceneConfig& config, std::string_view key) {
  for (const SceneParamSlot& slot : sceneParamSlots()) {
    if (slot.info.key == key) return config.*slot.field;
  }
  throw InvalidInput("unknown parameter 'scene." + std::string(key) + "'");
}

const std::vector<ScenarioInfo>& scenarios() {
  static const std::vector<ScenarioInfo> list = {
      {"spheretest",
       "Ratcliff's demo: 25% static, 75% clumping toward 16 attraction points that keep relocating"},
      {"uniform", "uniform positions, mixed sizes, random drift"},
      {"center-lines",
       "every circle on the world's two centre lines (the fit-entirely quadtree's worst case)"},
      {"remote-cluster", "a dense cluster in one corner, queries in the opposite quarter"},
      {"diagonal", "a thin band along the world's diagonal: most grid cells stay empty"},
  };
  return list;
}

void checkScenarioName(std::string_view name) {
  std::string valid;
  for (const ScenarioInfo& info : scenarios()) {
    if (info.name == name) return;
    valid += (valid.empty() ? "" : ", ") + info.name;
  }
  throw InvalidInput("unknown scenario '" + std::string(name) + "'; valid: " + valid);
}

// ---------------------------------------------------------------------------------------------------------
// Simulation
// ---------------------------------------------------------------------------------------------------------

Simulation::Simulation(std::string_view scenario, const SceneConfig& config, std::size_t count,
                       std::uint64_t seed)
    : scenario_(scenario), config_(config), rng_(seed) {
  checkScenarioName(scenario);
  if (count == 0) throw InvalidInput("scene needs at least one circle");
  if (config.radiusMax < config.radiusMin) throw InvalidInput("scene.radius_max must be >= scene.radius_min");
  generate(count);
  finishInit();
}

Simulation::Simulation(std::string_view scenario, const SceneConfig& config, std::vector<SceneCircle> initial,
                       std::uint64_t seed)
    : scenario_(scenario), config_(config), rng_(seed) {
  checkScenarioName(scenario);
  if (initial.empty()) throw InvalidInput("scene needs at least one circle");
  Box bounds = boundsOf(initial[0].circle);
  float maxR = 0.0f;
  for (const SceneCircle& sc : initial) {
    bounds = boxUnion(bounds, boundsOf(sc.circle));
    maxR = std::max(maxR, sc.circle.radius);
  }
  const float pad = std::max(1.0f, 2.0f * maxR);
  world_ = {{bounds.min.x - pad, bounds.min.y - pad}, {bounds.max.x + pad, bounds.max.y + pad}};
  motion_ = scenario == "spheretest" ? Motion::Attract
                                     : (scenario == "center-lines" ? Motion::Line : Motion::Drift);
  const std::size_t n = initial.size();
  circles_.resize(n);
  group_.resize(n);
  region_.assign(n, 0);
  regions_ = {world_};
  velocity_.assign(n, {0, 0});
  for (int a = 0; a < static_cast<int>(config_.attractors); ++a) {
    attractors_.push_back(
        {rng_.uniform(world_.min.x, world_.max.x), rng_.uniform(world_.min.y, world_.max.y)});
  }
  for (std::size_t i = 0; i < n; ++i) {
    circles_[i] = initial[i].circle;
    group_[i] = initial[i].isStatic ? -1 : static_cast<int>(rng_.below(attractors_.size()));
    if (!initial[i].isStatic && motion_ != Motion::Attract) {
      velocity_[i] = motion_ == Motion::Line
                         ? (rng_.chance(0.5) ? Vec2{1, 0} : Vec2{0, 1}) * float(config_.speed)
                         : randomDirection() * float(config_.speed);
    }
  }
  queryRegion_ = world_;
  finishInit();
}

float Simulation::randomRadius(double lo, double hi) {
  if (lo <= 0.0 || hi <= lo) return rng_.uniform(float(lo), float(hi));
  // Log-uniform: many small circles and a few large ones, as in a game world.
  return static_cast<float>(lo * std::exp(std::log(hi / lo) * rng_.unit()));
}

Vec2 Simulation::randomDirection() {
  const double angle = 2.0 * kPi * rng_.unit();
  return {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
}

void Simulation::generate(std::size_t n) {
  const double area = double(n) * config_.areaPerCircle;
  float side = static_cast<float>(std::sqrt(area));
  if (scenario_ == "diagonal") side = static_cast<float>(area / (std::sqrt(2.0) * kDiagonalBandWidth));
  side = std::max(side, std::max(64.0f, 16.0f * float(config_.radiusMax)));
  world_ = {{0, 0}, {side, side}};
  queryRegion_ = world_;
  regions_ = {world_};
  circles_.resize(n);
  group_.resize(n);
  region_.assign(n, 0);
  velocity_.assign(n, {0, 0});
  const double staticFraction = config_.staticFraction;
  const float speed = static_cast<float>(config_.speed);
  const float mid = side * 0.5f;

  if (scenario_ == "spheretest") {
    motion_ = Motion::Attract;
    for (int a = 0; a < static_cast<int>(config_.attractors); ++a) {
      attractors_.push_back({rng_.uniform(0.1f * side, 0.9f * side), rng_.uniform(0.1f * side, 0.9f * side)});
    }
  } else if (scenario_ == "center-lines") {
    motion_ = Motion::Line;
  } else {
    motion_ = Motion::Drift;
  }

  std::size_t clusterCount = 0;
  Vec2 clusterCenter{0.85f * side, 0.85f * side};
  float clusterRadius = 0.0f;
  if (scenario_ == "remote-cluster") {
    clusterCount = static_cast<std::size_t>(double(n) * config_.clusterFraction);
    // Four units of area per cluster circle: sixteen times the density of the background.
    clusterRadius = static_cast<float>(
        std::sqrt(double(clusterCount) * 4.0 * config_.radiusMin * config_.radiusMin / 0.25 / kPi));
    clusterRadius = std::min(clusterRadius, 0.14f * side);
    regions_.push_back(boxFromCenter(clusterCenter, clusterRadius, clusterRadius));
    queryRegion_ = {{0, 0}, {0.5f * side, 0.5f * side}};
  }

  for (std::size_t i = 0; i < n; ++i) {
    // Exactly the requested share is static, spread evenly over the ids.
    const bool isStatic = std::floor(double(i + 1) * staticFraction) > std::floor(double(i) * staticFraction);
    Circle& c = circles_[i];
    if (scenario_ == "center-lines") {
      c.radius = randomRadius(config_.radiusMin, config_.radiusMax);
      const float along = rng_.uniform(c.radius, side - c.radius);
      const bool vertical = rng_.chance(0.5);
      c.center = vertical ? Vec2{mid, along} : Vec2{along, mid};
      velocity_[i] = (vertical ? Vec2{0, 1} : Vec2{1, 0}) * (rng_.chance(0.5) ? speed : -speed);
    } else if (scenario_ == "diagonal") {
      c.radius = randomRadius(config_.radiusMin, config_.radiusMax);
      const float along = rng_.uniform(0.0f, side);
      const float offset = rng_.uniform(-0.5f, 0.5f) * kDiagonalBandWidth * kSqrtHalf;
      c.center = {std::clamp(along + offset, 0.0f, side), std::clamp(along - offset, 0.0f, side)};
      velocity_[i] = randomDirection() * speed;
    } else if (i < clusterCount) {
      c.radius = randomRadius(config_.radiusMin, 2.0 * config_.radiusMin);
      const double angle = 2.0 * kPi * rng_.unit();
      const double dist = clusterRadius * std::sqrt(rng_.unit());
      c.center = {clusterCenter.x + float(dist * std::cos(angle)),
                  clusterCenter.y + float(dist * std::sin(angle))};
      region_[i] = 1;
      velocity_[i] = randomDirection() * (speed * 0.25f);
    } else {
      c.radius = randomRadius(config_.radiusMin, config_.radiusMax);
      c.center = {rng_.uniform(0.0f, side), rng_.uniform(0.0f, side)};
      if (motion_ == Motion::Drift) velocity_[i] = randomDirection() * speed;
    }
    group_[i] = isStatic ? -1 : (attractors_.empty() ? 0 : static_cast<int>(rng_.below(attractors_.size())));
    if (isStatic) velocity_[i] = {0, 0};
  }
}

void Simulation::finishInit() {
  maxRadius_ = 0.0f;
  movingIds_.clear();
  for (std::size_t i = 0; i < circles_.size(); ++i) {
    maxRadius_ = std::max(maxRadius_, circles_[i].radius);
    if (group_[i] >= 0) movingIds_.push_back(static_cast<ItemId>(i));
  }
  movedCircles_.resize(movingIds_.size());
  for (std::size_t k = 0; k < movingIds_.size(); ++k) movedCircles_[k] = circles_[movingIds_[k]];
  const float side = world_.max.x - world_.min.x;
  arriveDistance_ = 0.03f * side + 2.0f * maxRadius_;
}

std::vector<Item> Simulation::items() const {
  std::vector<Item> out(circles_.size());
  for (std::size_t i = 0; i < circles_.size(); ++i) out[i] = {static_cast<ItemId>(i), circles_[i]};
  return out;
}

void Simulation::step() {
  ++frame_;
  if (motion_ == Motion::Attract && !attractors_.empty() && frame_ % kAttractorMoveFrames == 0) {
    // Relocating one attraction point dissolves its cluster and starts a new one elsewhere.
    const std::size_t which = (frame_ / kAttractorMoveFrames) % attractors_.size();
    const float w = world_.max.x - world_.min.x, h = world_.max.y - world_.min.y;
    attractors_[which] = {world_.min.x + rng_.uniform(0.1f, 0.9f) * w,
                          world_.min.y + rng_.uniform(0.1f, 0.9f) * h};
  }
  for (std::size_t k = 0; k < movingIds_.size(); ++k) {
    const std::size_t i = movingIds_[k];
    switch (motion_) {
      case Motion::Attract:
        stepAttract(i);
        break;
      case Motion::Drift:
        stepBounce(i, true);
        break;
      case Motion::Line:
        stepBounce(i, false);
        break;
    }
    movedCircles_[k] = circles_[i];
  }
}

void Simulation::stepAttract(std::size_t i) {
  Circle& c = circles_[i];
  Vec2 target = attractors_[group_[i]];
  Vec2 toTarget = target - c.center;
  float dist = length(toTarget);
  if (dist < arriveDistance_) {
    // Arrived: head for another attraction point, so clusters keep forming and dissolving.
    group_[i] = static_cast<int>(rng_.below(attractors_.size()));
    toTarget = attractors_[group_[i]] - c.center;
    dist = length(toTarget);
  }
  // Each circle has its own cruising speed, derived from its id so it costs no memory.
  const float own = 0.5f + float((std::uint32_t(i) * 2654435761u) >> 8) * (1.0f / 16777216.0f);
  const float speed = static_cast<float>(config_.speed) * own;
  const Vec2 desired = dist > 0.0f ? toTarget * (speed / dist) : Vec2{0, 0};
  const float jitter = static_cast<float>(config_.speed) * 0.6f;
  const Vec2 noise{rng_.uniform(-jitter, jitter), rng_.uniform(-jitter, jitter)};
  Vec2& v = velocity_[i];
  v = v * 0.92f + (desired + noise) * 0.08f;
  c.center = c.center + v * kTimeStep;
  c.center.x = std::clamp(c.center.x, world_.min.x, world_.max.x);
  c.center.y = std::clamp(c.center.y, world_.min.y, world_.max.y);
}

void Simulation::stepBounce(std::size_t i, bool turn) {
  Circle& c = circles_[i];
  Vec2& v = velocity_[i];
  if (turn) {
    const float speed = static_cast<float>(config_.speed) * (region_[i] == 1 ? 0.25f : 1.0f);
    const float jitter = speed * 0.15f;
    v = v + Vec2{rng_.uniform(-jitter, jitter), rng_.uniform(-jitter, jitter)};
    const float len = length(v);
    if (len > speed * 1.5f) v = v * (speed * 1.5f / len);
  }
  c.center = c.center + v * kTimeStep;
  const Box& box = regions_[region_[i]];
  reflectInto(c.center.x, v.x, box.min.x, box.max.x);
  reflectInto(c.center.y, v.y, box.min.y, box.max.y);
  if (scenario_ == "diagonal" && turn) {
    // Keep drifting circles inside the diagonal band by reflecting off its long edges.
    const float offset = (c.center.x - c.center.y) * kSqrtHalf;
    const float half = 0.5f * kDiagonalBandWidth;
    if (std::fabs(offset) > half) {
      const Vec2 normal{kSqrtHalf, -kSqrtHalf};
      const float excess = offset - std::copysign(half, offset);
      c.center = c.center - normal * (2.0f * excess);
      v = v - normal * (2.0f * dot(v, normal));
    }
  }
}

}  // namespace st
