// The list of core structures, in the order the app's number keys and the reports show them.
// Each structure's source file defines its make...() factory; add a line here to register a new one.

#include "spheretest/registry.hpp"
#include "spheretest/structures.hpp"

namespace st {

void registerCoreStructures(StructureRegistry& registry) {
  registry.add({.name = "brute",
                .summary = "every pair and every item tested: the oracle",
                .source = "",
                .peer = false,
                .create = makeBruteForce});
  registry.add({.name = "grid",
                .summary = "hashed uniform grid: cell hash -> list in one array, cell = largest diameter",
                .source = "002_df0639732141293d.txt",
                .peer = false,
                .create = makeGrid});
  registry.add({.name = "grid-replicated",
                .summary = "hashed grid storing each circle in every cell it overlaps: lookups read one cell",
                .source = "002_df0639732141293d.txt",
                .peer = false,
                .create = makeReplicatedGrid});
  registry.add(
      {.name = "hgrid",
       .summary =
           "hierarchical spatial hash: grid levels doubling in size, each circle in the level of its size",
       .source = "003_237a6c88e80f769f.txt",
       .peer = false,
       .create = makeHierarchicalGrid});
  registry.add(
      {.name = "quadtree",
       .summary = "point quadtree: leaves of 32 keyed by centre, cells widened by the largest radius below",
       .source = "004_4159c2b2a803d270.txt",
       .peer = false,
       .create = makeQuadtree});
  registry.add({.name = "fit-quadtree",
                .summary = "each circle in the deepest node it fits entirely; linear on the centre lines",
                .source = "003_237a6c88e80f769f.txt",
                .peer = false,
                .create = makeFitQuadtree});
  registry.add({.name = "loose-quadtree",
                .summary = "Ulrich's loose quadtree: level from radius, cell from centre, bounds x factor",
                .source = "003_237a6c88e80f769f.txt",
                .peer = false,
                .create = makeLooseQuadtree});
  registry.add({.name = "radius-tree",
                .summary = "quadtree of centres whose node size fixes the radius band; <= 4 nodes per level",
                .source = "000_a1f25bdfc4ffc280.txt",
                .peer = false,
                .create = makeRadiusTree});
  registry.add({.name = "enneatree",
                .summary = "nine overlapping half-size children; depth from diameter, centre child first",
                .source = "003_237a6c88e80f769f.txt",
                .peer = false,
                .create = makeEnneatree});
  registry.add(
      {.name = "sphere-tree",
       .summary = "Ratcliff's sphere tree: gravity-slop super-spheres, O(1) moves, reintegration queues",
       .source = "001_ecbeb7c72bb815d1.txt",
       .peer = false,
       .create = makeSphereTree});
  registry.add({.name = "aabb-tree",
                .summary = "dynamic AABB tree: fat boxes, SAH insertion with rotations, optional rebuild",
                .source = "003_237a6c88e80f769f.txt",
                .peer = false,
                .create = makeAabbTree});
  // (structures register above this line, in the order the app's number keys use)
}

}  // namespace st
