// The whole spheretest program with one more structure: sweep and prune (sweep_and_prune.hpp), written
// outside the library, registered beside the library's own. It takes spheretest's command line: the window
// (pick "sweep-and-prune" in the structure list, step through its queries, compare it in Split view), or
// --headless for the report, where brute force checks it like every other structure.
//
// Usage: sweep_and_prune_window [spheretest options], e.g. --structure sweep-and-prune,grid --count 5000

#include <memory>

#include <spheretest/app.hpp>

#include "sweep_and_prune.hpp"

#ifndef SPHERETEST_PACKAGE_ASSETS
#define SPHERETEST_PACKAGE_ASSETS nullptr
#endif

int main(int argc, char** argv) {
  st::StructureRegistry registry = st::app::defaultRegistry();
  registry.add({"sweep-and-prune", "sort on x and sweep (examples/sweep_and_prune.hpp)", "", false,
                [] { return std::make_unique<example::SweepAndPrune>(); }});
  return st::app::runApp(argc, argv, std::move(registry), SPHERETEST_PACKAGE_ASSETS);
}
