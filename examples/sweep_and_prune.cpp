// A structure written outside the library, checked the way the library checks its own: sweep and prune
// (sweep_and_prune.hpp) lives through the SphereTest scene's frames beside brute force, and every few
// frames both answer random queries of every shape, nearest circles included, and the pair search
// (st::testing::compareWithOracle). Then one circle query runs with a callback that stops at the first hit.
//
// Usage: sweep_and_prune [CIRCLES] [FRAMES]   (default: 3000 60)

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <spheretest/oracle_check.hpp>
#include <spheretest/registry.hpp>
#include <spheretest/scene.hpp>

#include "sweep_and_prune.hpp"

namespace {

// A whole number in [lo, hi], or -1.
long parseCount(const char* text, long lo, long hi) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (*text != '\0' && *end == '\0' && value >= lo && value <= hi) ? value : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const long count = argc > 1 ? parseCount(argv[1], 2, 200'000) : 3000;
  const long frames = argc > 2 ? parseCount(argv[2], 1, 100'000) : 60;
  if (argc > 3 || count < 0 || frames < 0) {
    std::fprintf(stderr, "usage: sweep_and_prune [CIRCLES 2..200000] [FRAMES 1..100000]\n");
    return 2;
  }
  st::Simulation sim("spheretest", st::SceneConfig{}, static_cast<std::size_t>(count), 1);
  example::SweepAndPrune sweep;
  std::unique_ptr<st::SpatialIndex> brute = st::StructureRegistry::withCoreStructures().create("brute");
  std::vector<st::Item> items;
  for (st::ItemId id = 0; id < sim.circles().size(); ++id) items.push_back({id, sim.circles()[id]});
  sweep.build(items);
  brute->build(items);

  st::Rng rng(7);
  st::testing::QueryArea area;
  area.box = sim.world();
  area.maxSize = 8.0f * sim.maxRadius();
  std::vector<st::Pair> pairs;
  std::uint64_t examined = 0, found = 0;
  for (long frame = 1; frame <= frames; ++frame) {
    sim.step();
    sweep.updateBatch(sim.movedIds(), sim.movedCircles());
    brute->updateBatch(sim.movedIds(), sim.movedCircles());
    sweep.findPairs(pairs);
    examined += sweep.lastCounters().candidates;
    found += pairs.size();
    if (frame % 10 == 0 || frame == frames) {
      const std::string problem = st::testing::compareWithOracle(sweep, *brute, rng, area, 50);
      if (!problem.empty()) {
        std::printf("frame %ld: disagrees with brute force: %s\n", frame, problem.c_str());
        return 1;
      }
    }
  }
  std::printf("%ld circles, %ld frames: %llu pairs a frame, %llu pairs examined a frame\n", count, frames,
              static_cast<unsigned long long>(found / std::uint64_t(frames)),
              static_cast<unsigned long long>(examined / std::uint64_t(frames)));

  // The callback form: the walk stops at the first circle found.
  st::QueryContext ctx;
  st::ItemId first = 0;
  std::size_t calls = 0;
  sweep.queryCircle(
      {sim.circles()[0].center, 4.0f * sim.maxRadius()},
      [&](st::ItemId id) {
        first = id;
        return ++calls < 1;
      },
      &ctx);
  std::printf("first circle near circle 0: %u, after %llu circles examined\n", first,
              static_cast<unsigned long long>(ctx.counters.candidates));
  std::printf("agrees with brute force: yes\n");
  return 0;
}
