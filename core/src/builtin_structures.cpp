// The list of core structures, in the order the app's number keys and the reports show them.
// Each structure's source file defines its make...() factory; add a line here to register a new one.

#include "spheretest/registry.hpp"
#include "spheretest/structures.hpp"

namespace st {

void registerCoreStructures(StructureRegistry& registry) {
  registry.add({"brute", "every pair and every item tested: the oracle", "", false, makeBruteForce});
  registry.add({"grid", "hashed uniform grid: cell hash -> list in one array, cell = largest diameter",
                "002_df0639732141293d.txt", false, makeGrid});
  registry.add({"grid-replicated",
                "hashed grid storing each circle in every cell it overlaps: lookups read one cell",
                "002_df0639732141293d.txt", false, makeReplicatedGrid});
  registry.add(
      {"hgrid",
       "hierarchical spatial hash: grid levels doubling in size, each circle in the level of its size",
       "003_237a6c88e80f769f.txt", false, makeHierarchicalGrid});
  registry.add({"quadtree",
                "point quadtree: leaves of 4 keyed by centre, cells widened by the largest radius below",
                "004_4159c2b2a803d270.txt", false, makeQuadtree});
  registry.add({"fit-quadtree",
                "each circle in the deepest node it fits entirely; linear on the centre lines",
                "003_237a6c88e80f769f.txt", false, makeFitQuadtree});
  registry.add({"loose-quadtree",
                "Ulrich's loose quadtree: level from radius, cell from centre, bounds x factor",
                "003_237a6c88e80f769f.txt", false, makeLooseQuadtree});
  registry.add({"radius-tree",
                "quadtree of centres whose node size fixes the radius band; <= 4 nodes per level",
                "000_a1f25bdfc4ffc280.txt", false, makeRadiusTree});
  registry.add({"enneatree", "nine overlapping half-size children; depth from diameter, centre child first",
                "003_237a6c88e80f769f.txt", false, makeEnneatree});
  registry.add({"sphere-tree",
                "Ratcliff's sphere tree: gravity-slop super-spheres, O(1) moves, reintegration queues",
                "001_ecbeb7c72bb815d1.txt", false, makeSphereTree});
  registry.add({"aabb-tree", "dynamic AABB tree: fat boxes, SAH insertion with rotations, optional rebuild",
                "003_237a6c88e80f769f.txt", false, makeAabbTree});
  // (structures register above this line, in the order the app's number keys use)
}

}  // namespace st
