// The list of core structures, in the order the app's number keys and the reports show them.
// Each structure's source file defines its make...() factory; add a line here to register a new one.

#include "spheretest/registry.hpp"
#include "spheretest/structures.hpp"

namespace st {

void registerCoreStructures(StructureRegistry& registry) {
  registry.add({"brute", "every pair and every item tested: the oracle", "", false, makeBruteForce});
  // (structures register below this line)
}

}  // namespace st
