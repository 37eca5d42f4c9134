// A plain game loop on top of the library: circles are inserted once, move every frame, and each frame the
// game asks for the overlapping pairs, casts a ray and looks around one circle; at the end half of the
// circles are removed. Any structure of the registry can be named; the result is checked against brute force.
//
// Usage: game_loop [STRUCTURE] [CIRCLES] [FRAMES]   (default: grid 2000 120)

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <spheretest/registry.hpp>
#include <spheretest/rng.hpp>
#include <spheretest/version.hpp>

namespace {

struct Body {
  st::Circle circle;
  st::Vec2 velocity;
};

// A whole number in [lo, hi], or -1.
long parseCount(const char* text, long lo, long hi) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (*text != '\0' && *end == '\0' && value >= lo && value <= hi) ? value : -1;
}

// Moves a body one time step, bouncing off the walls of the square [0, side]^2.
void move(Body& body, float dt, float side) {
  st::Vec2& c = body.circle.center;
  c = c + body.velocity * dt;
  if (c.x < 0.0f || c.x > side) body.velocity.x = -body.velocity.x;
  if (c.y < 0.0f || c.y > side) body.velocity.y = -body.velocity.y;
  c.x = std::fmin(std::fmax(c.x, 0.0f), side);
  c.y = std::fmin(std::fmax(c.y, 0.0f), side);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string structure = argc > 1 ? argv[1] : "grid";
  const long count = argc > 2 ? parseCount(argv[2], 2, 1'000'000) : 2000;
  const long frames = argc > 3 ? parseCount(argv[3], 1, 100'000) : 120;
  if (argc > 4 || count < 0 || frames < 0) {
    std::fprintf(stderr, "usage: game_loop [STRUCTURE] [CIRCLES 2..1000000] [FRAMES 1..100000]\n");
    return 2;
  }
  const st::StructureRegistry registry = st::StructureRegistry::withCoreStructures();
  std::unique_ptr<st::SpatialIndex> index;
  try {
    index = registry.create(structure);
  } catch (const st::InvalidInput& error) {
    std::fprintf(stderr, "game_loop: %s\n", error.what());
    return 2;
  }
  std::printf("spheretest %s, structure %s: %ld circles, %ld frames\n", st::kVersion, structure.c_str(),
              count, frames);

  // The world grows with the count so that the density, and so the pairs per circle, stay the same.
  const float side = std::sqrt(64.0f * static_cast<float>(count));
  st::Rng rng(1);
  std::vector<Body> bodies(static_cast<std::size_t>(count));
  for (std::size_t id = 0; id < bodies.size(); ++id) {
    const float angle = rng.uniform(0.0f, 6.2831853f);
    bodies[id].circle = {{rng.uniform(0.0f, side), rng.uniform(0.0f, side)}, rng.uniform(0.5f, 4.0f)};
    bodies[id].velocity = {20.0f * std::cos(angle), 20.0f * std::sin(angle)};
    index->insert(static_cast<st::ItemId>(id), bodies[id].circle);
  }

  std::vector<st::ItemId> ids(bodies.size());
  std::vector<st::Circle> moved(bodies.size());
  std::vector<st::Pair> pairs;
  std::vector<st::ItemId> near;
  std::size_t pairTotal = 0, rayHits = 0, nearTotal = 0;
  for (long frame = 1; frame <= frames; ++frame) {
    // Move everything, then hand the structure the whole frame at once (update() takes one circle).
    for (std::size_t id = 0; id < bodies.size(); ++id) {
      move(bodies[id], 1.0f / 60.0f, side);
      ids[id] = static_cast<st::ItemId>(id);
      moved[id] = bodies[id].circle;
    }
    index->updateBatch(ids, moved);
    index->maintain();

    index->findPairs(pairs);
    pairTotal += pairs.size();
    // A shot from the left wall along the row of circle 0, and what is within 30 units of circle 0.
    const st::Vec2 eye = bodies[0].circle.center;
    const std::optional<st::RayHit> hit = index->rayCastFirst({{0.0f, eye.y}, {side, eye.y}});
    rayHits += hit.has_value();
    index->queryCircle({eye, 30.0f}, near);
    nearTotal += near.size();
    if (frame == frames) {
      std::printf("frame %ld: %zu pairs; the ray first hits circle %d; %zu circles within 30 of circle 0\n",
                  frame, pairs.size(), hit ? static_cast<int>(hit->id) : -1, near.size());
    }
  }
  std::printf(
      "per frame: %.1f pairs, %.1f circles near circle 0; the ray hit something in %zu of %ld frames\n",
      double(pairTotal) / double(frames), double(nearTotal) / double(frames), rayHits, frames);

  // Every other circle leaves the game.
  for (std::size_t id = 1; id < bodies.size(); id += 2) index->remove(static_cast<st::ItemId>(id));
  index->findPairs(pairs);
  std::printf("after removing every other circle: %zu circles, %zu pairs\n", index->size(), pairs.size());

  // The same circles in brute force, the oracle every structure is tested against.
  std::unique_ptr<st::SpatialIndex> oracle = registry.create("brute");
  for (std::size_t id = 0; id < bodies.size(); id += 2)
    oracle->insert(static_cast<st::ItemId>(id), bodies[id].circle);
  std::vector<st::Pair> expected;
  oracle->findPairs(expected);
  std::sort(pairs.begin(), pairs.end());
  std::sort(expected.begin(), expected.end());
  const std::string problem = index->validate();
  const bool agrees = problem.empty() && pairs == expected;
  std::printf("agrees with brute force: %s%s\n", agrees ? "yes" : "no ", problem.c_str());
  return agrees ? 0 : 1;
}
