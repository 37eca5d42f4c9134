#include "spheretest/scene.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace st {
namespace {

constexpr float kSqrtHalf = 0.70710678f;
constexpr double kPi = 3.14159265358979323846;
constexpr float kDiagonalBandWidth = 64.0f;

// The spheretest motion. Per-frame motion is in world units, like the circles' sizes, so every count moves
// its circles alike against their size (what the structures' update costs follow). The swarms' extent and
// the times that decide how far a swarm travels follow the world side, which grows with the count, so the
// swarms look and behave alike from a thousand circles to a million.
//
// A circle steers toward its point with a constant acceleration and is capped at a top speed, as in the
// demo, so one that comes in at the top speed swings out to cap^2 / (2 x acceleration) beyond the point:
// the swarm radius. Its kicks only turn its velocity, keeping the speed, so a swarm keeps the energy its
// circles arrived with: a circle at distance r goes at cap x sqrt(1 - r / radius), and the circles of a
// settled swarm fill its disc evenly (a fixed energy in a 2D potential spreads evenly over the area it can
// reach), going at 8/15 of the cap on average.
constexpr std::uint32_t kNever = std::numeric_limits<std::uint32_t>::max();
constexpr float kSpeedCapFactor = 15.0f / 8.0f;  // so a settled swarm goes at scene.speed on average
// Mean time between a circle's kicks, in the time it takes to cross its swarm at the cap: often enough to
// keep a swarm's circles out of step (they arrive together), rare enough to let them swing between kicks.
constexpr double kKickSwarmCrossings = 1.0;

struct SceneParamSlot {
  ParamInfo info;
  double SceneConfig::*field;
};

const std::vector<SceneParamSlot>& sceneParamSlots() {
  static const std::vector<SceneParamSlot> slots = {
      {{"radius_min", "smallest circle radius", 0.5, 0.0, 1e6, false}, &SceneConfig::radiusMin},
      {{"radius_max", "largest circle radius", 4.0, 0.0, 1e6, false}, &SceneConfig::radiusMax},
      {{"static_fraction", "share of static circles (in spheretest they jump now and then)", 0.25, 0.0, 1.0,
        false},
       &SceneConfig::staticFraction},
      {{"attractors", "attraction points of the spheretest scene", 16, 1, 1024, true},
       &SceneConfig::attractors},
      {{"speed", "typical speed, world units per second (spheretest: the mean, with a cap of 15/8 of it)",
        20.0, 0.0, 1e6, false},
       &SceneConfig::speed},
      {{"area_per_circle", "world area per circle (sets the world size)", 64.0, 0.01, 1e12, false},
       &SceneConfig::areaPerCircle},
      {{"cluster_fraction", "share of circles in the remote cluster (remote-cluster scene; 0 = no cluster)",
        0.9, 0.0, 1.0, false},
       &SceneConfig::clusterFraction},
      {{"swarm_radius",
        "spheretest: radius of a settled swarm around its attraction point, as a share of the world side",
        0.06, 0.001, 0.5, false},
       &SceneConfig::swarmRadius},
      {{"attractor_speed", "spheretest: drift speed of the attraction points, world units per second", 4.0,
        0.0, 1e6, false},
       &SceneConfig::attractorSpeed},
      {{"attractor_jump",
        "spheretest: mean time between an attraction point's jumps, in the time a circle at top speed takes "
        "to cross the world (0 = never)",
        4.0, 0.0, 1000.0, false},
       &SceneConfig::attractorJump},
      {{"static_jump",
        "spheretest: mean seconds between a static circle's jumps to a random place (0 = never)", 4.0, 0.0,
        1e6, false},
       &SceneConfig::staticJump},
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
       "Ratcliff's demo: 75% in 16 swarms chasing attraction points that drift and jump, 25% static but for "
       "occasional jumps"},
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
  motion_ =
      scenario == "spheretest" ? Motion::Swarm : (scenario == "center-lines" ? Motion::Line : Motion::Drift);
  const std::size_t n = initial.size();
  circles_.resize(n);
  group_.resize(n);
  region_.assign(n, 0);
  regions_ = {world_};
  velocity_.assign(n, {0, 0});
  if (motion_ == Motion::Swarm) {
    initSwarm();
  } else {
    // Groups only colour the circles here.
    for (int a = 0; a < static_cast<int>(config_.attractors); ++a) {
      attractors_.push_back(
          {rng_.uniform(world_.min.x, world_.max.x), rng_.uniform(world_.min.y, world_.max.y)});
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    circles_[i] = initial[i].circle;
    group_[i] = initial[i].isStatic ? -1 : static_cast<int>(rng_.below(attractors_.size()));
    if (motion_ == Motion::Swarm) {
      // The file's circles start where it puts them, at rest; the moving ones set off toward their points.
      countdown_[i] = countdown(initial[i].isStatic ? swarm_.staticJumpFrames : swarm_.kickFrames);
    } else if (!initial[i].isStatic) {
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
    motion_ = Motion::Swarm;
    initSwarm();
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
    group_[i] = isStatic ? -1 : (attractors_.empty() ? 0 : static_cast<int>(rng_.below(attractors_.size())));
    Circle& c = circles_[i];
    if (motion_ == Motion::Swarm) {
      c.radius = randomRadius(config_.radiusMin, config_.radiusMax);
      if (isStatic) {
        c.center = {rng_.uniform(0.0f, side), rng_.uniform(0.0f, side)};
        countdown_[i] = countdown(swarm_.staticJumpFrames);
      } else {
        placeInSwarm(i);
      }
    } else if (scenario_ == "center-lines") {
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
}

std::vector<Item> Simulation::items() const {
  std::vector<Item> out(circles_.size());
  for (std::size_t i = 0; i < circles_.size(); ++i) out[i] = {static_cast<ItemId>(i), circles_[i]};
  return out;
}

void Simulation::step() {
  ++frame_;
  if (motion_ == Motion::Swarm) {
    stepSwarm();
    return;
  }
  const auto move = [this](std::size_t begin, std::size_t end, unsigned) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t i = movingIds_[k];
      stepBounce(i, motion_ == Motion::Drift);
      movedCircles_[k] = circles_[i];
    }
  };
  // Drifting circles turn by random numbers drawn in id order, so only straight motion is spread.
  if (motion_ == Motion::Drift) {
    move(0, movingIds_.size(), 0);
  } else {
    scheduler().parallelFor(movingIds_.size(), std::max<std::size_t>(1, movingIds_.size() / kStepPieces + 1),
                            move);
  }
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

// ---------------------------------------------------------------------------------------------------------
// The spheretest motion, after the SphereTest demo of Ratcliff's sphere tree gem
// ---------------------------------------------------------------------------------------------------------

void Simulation::initSwarm() {
  const float side = std::max(world_.max.x - world_.min.x, world_.max.y - world_.min.y);
  const float radius = static_cast<float>(config_.swarmRadius) * side;
  const double stepsPerSecond = 1.0 / double(kTimeStep);
  SwarmMotion& m = swarm_;
  m.radius = radius;
  m.speedCap = kSpeedCapFactor * static_cast<float>(config_.speed);
  m.steer = m.speedCap * m.speedCap / (2.0f * radius);
  const double crossing = m.speedCap > 0.0f ? double(side) / m.speedCap * stepsPerSecond : 0.0;
  m.kickFrames = kKickSwarmCrossings * 2.0 * double(radius) / double(side) * crossing;
  m.attractorJumpFrames = config_.attractorJump * crossing;
  m.staticJumpFrames = config_.staticJump * stepsPerSecond;
  // Points stay a swarm radius inside the world so their swarms are not squashed against an edge.
  const float inset = std::min(radius, 0.45f * side);
  m.attractorBox = {{world_.min.x + inset, world_.min.y + inset},
                    {world_.max.x - inset, world_.max.y - inset}};
  m.attractorBox.max = {std::max(m.attractorBox.min.x, m.attractorBox.max.x),
                        std::max(m.attractorBox.min.y, m.attractorBox.max.y)};
  const int count = static_cast<int>(config_.attractors);
  for (int a = 0; a < count; ++a) {
    attractors_.push_back({rng_.uniform(m.attractorBox.min.x, m.attractorBox.max.x),
                           rng_.uniform(m.attractorBox.min.y, m.attractorBox.max.y)});
    attractorVelocity_.push_back(randomDirection() * static_cast<float>(config_.attractorSpeed));
    attractorCountdown_.push_back(countdown(m.attractorJumpFrames));
  }
  countdown_.assign(circles_.size(), kNever);
}

void Simulation::placeInSwarm(std::size_t i) {
  // As in a settled swarm: anywhere on its disc, at the speed its distance allows, in any direction. The
  // scene is itself from the first frame, at every count, so short runs measure what long ones do.
  const float share = std::sqrt(static_cast<float>(rng_.unit()));
  Circle& c = circles_[i];
  c.center = attractors_[group_[i]] + randomDirection() * (share * swarm_.radius);
  c.center.x = std::clamp(c.center.x, world_.min.x, world_.max.x);
  c.center.y = std::clamp(c.center.y, world_.min.y, world_.max.y);
  velocity_[i] = randomDirection() * (swarm_.speedCap * std::sqrt(1.0f - share));
  countdown_[i] = countdown(swarm_.kickFrames);
}

std::uint32_t Simulation::countdown(double meanFrames) {
  if (!(meanFrames > 0.0)) return kNever;
  // Uniform over [1, 2 x mean] frames, as the demo's counters are: the events spread evenly over frames.
  const double span = std::clamp(std::round(2.0 * meanFrames), 1.0, 4e9);
  return 1 + static_cast<std::uint32_t>(rng_.below(static_cast<std::uint64_t>(span)));
}

void Simulation::stepAttractors() {
  const SwarmMotion& m = swarm_;
  const float speed = static_cast<float>(config_.attractorSpeed);
  for (std::size_t a = 0; a < attractors_.size(); ++a) {
    Vec2& p = attractors_[a];
    Vec2& v = attractorVelocity_[a];
    std::uint32_t& left = attractorCountdown_[a];
    if (left != kNever && --left == 0) {
      p = {rng_.uniform(m.attractorBox.min.x, m.attractorBox.max.x),
           rng_.uniform(m.attractorBox.min.y, m.attractorBox.max.y)};
      v = randomDirection() * speed;
      left = countdown(m.attractorJumpFrames);
      continue;
    }
    p = p + v * kTimeStep;
    reflectInto(p.x, v.x, m.attractorBox.min.x, m.attractorBox.max.x);
    reflectInto(p.y, v.y, m.attractorBox.min.y, m.attractorBox.max.y);
  }
}

// Three passes, so that the circles can move on several threads and the frames stay the same for any
// number of them: each piece of circles moves every circle whose countdown does not run out (no random
// number is drawn), then the few whose countdown ran out (a kick or a jump, which draw from the one random
// stream) are finished in id order on the calling thread, and the batch is written in id order.
void Simulation::stepSwarm() {
  stepAttractors();
  const SwarmMotion& m = swarm_;
  const float steerStep = m.steer * kTimeStep;
  const float cap = m.speedCap;
  const std::size_t n = circles_.size();
  const std::size_t grain = std::max<std::size_t>(1, (n + kStepPieces - 1) / kStepPieces);
  const std::size_t pieces = n == 0 ? 0 : (n + grain - 1) / grain;
  pieceEvents_.resize(pieces);
  pieceMoved_.resize(pieces);

  // The motion after any kick: cap the speed, move, bounce off the world's edges.
  const auto finishMove = [&](Circle& c, Vec2& v) {
    const float speed = length(v);
    if (speed > cap) v = v * (cap / speed);
    c.center = c.center + v * kTimeStep;
    reflectInto(c.center.x, v.x, world_.min.x, world_.max.x);
    reflectInto(c.center.y, v.y, world_.min.y, world_.max.y);
  };
  scheduler().parallelFor(n, grain, [&](std::size_t begin, std::size_t end, unsigned) {
    std::vector<std::uint32_t>& events = pieceEvents_[begin / grain];
    events.clear();
    std::uint32_t moved = 0;
    for (std::size_t i = begin; i < end; ++i) {
      std::uint32_t& left = countdown_[i];
      const int g = group_[i];
      const bool due = left != kNever && --left == 0;
      if (g < 0) {
        if (due) events.push_back(static_cast<std::uint32_t>(i));
        continue;
      }
      ++moved;
      Circle& c = circles_[i];
      Vec2& v = velocity_[i];
      const Vec2 toPoint = attractors_[g] - c.center;
      const float distance = length(toPoint);
      if (distance > 0.0f) v = v + toPoint * (steerStep / distance);
      if (due) {
        events.push_back(static_cast<std::uint32_t>(i));
        continue;
      }
      finishMove(c, v);
    }
    pieceMoved_[begin / grain] = moved;
  });

  // The circles whose countdown ran out, in id order: the random numbers come in the order of a single pass.
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    for (const std::uint32_t i : pieceEvents_[piece]) {
      Circle& c = circles_[i];
      if (group_[i] < 0) {
        // Anywhere in the world. The demo's land in a box around a centre that wanders, which gathers the
        // static quarter into a clump that changes with the length of the run; anywhere keeps it as it
        // starts.
        c.center = {rng_.uniform(world_.min.x, world_.max.x), rng_.uniform(world_.min.y, world_.max.y)};
        countdown_[i] = countdown(m.staticJumpFrames);
        ++pieceMoved_[piece];
        continue;
      }
      Vec2& v = velocity_[i];
      // Only inside its swarm: a kick on the way would send the circle off course at the top speed, and
      // a travelling swarm would crawl and fray.
      if (length(attractors_[group_[i]] - c.center) < m.radius) v = randomDirection() * length(v);
      countdown_[i] = countdown(m.kickFrames);
      finishMove(c, v);
    }
  }

  // The batch, in id order: the moving circles, and the static ones that jumped.
  std::size_t total = 0;
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    const std::uint32_t count = pieceMoved_[piece];
    pieceMoved_[piece] = static_cast<std::uint32_t>(total);
    total += count;
  }
  movingIds_.resize(total);
  movedCircles_.resize(total);
  scheduler().parallelFor(n, grain, [&](std::size_t begin, std::size_t end, unsigned) {
    const std::vector<std::uint32_t>& events = pieceEvents_[begin / grain];
    std::size_t at = pieceMoved_[begin / grain];
    std::size_t e = 0;
    for (std::size_t i = begin; i < end; ++i) {
      bool jumped = false;
      if (group_[i] < 0) {
        while (e < events.size() && events[e] < i) ++e;
        jumped = e < events.size() && events[e] == i;
        if (!jumped) continue;
      }
      movingIds_[at] = static_cast<ItemId>(i);
      movedCircles_[at] = circles_[i];
      ++at;
    }
  });
}

}  // namespace st
