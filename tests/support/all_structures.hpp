#pragma once
// Every registered structure, the core ones, the peers and the sweep-and-prune example written outside the
// library, for tests that run over all of them: a structure added to the registry is covered with no new
// test code.

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spheretest/peers.hpp"
#include "spheretest/registry.hpp"

#include "../../examples/sweep_and_prune.hpp"

namespace st::testing {

/// The registry of every structure, peer and example structure.
inline StructureRegistry& allStructures() {
  static StructureRegistry registry = [] {
    StructureRegistry r = StructureRegistry::withCoreStructures();
    registerPeerStructures(r);
    r.add({"sweep-and-prune", "sort on x and sweep (examples/sweep_and_prune.hpp)", "", false,
           [] { return std::make_unique<example::SweepAndPrune>(); }});
    return r;
  }();
  return registry;
}

/// Their names, in registry order.
inline std::vector<std::string> allStructureNames() {
  std::vector<std::string> names;
  for (const StructureInfo& info : allStructures().all()) names.push_back(info.name);
  return names;
}

/// A parameterized test's name for a structure ('-' is not allowed there).
inline std::string structureTestName(const ::testing::TestParamInfo<std::string>& param) {
  std::string name = param.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace st::testing
