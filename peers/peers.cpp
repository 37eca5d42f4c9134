#include "spheretest/peers.hpp"

#include "peer_support.hpp"

namespace st {

void registerPeerStructures(StructureRegistry& registry) {
  registry.add({"box2d-tree", "Box2D 2.4.1 b2DynamicTree: fat-box AABB tree with a contact cache", "", true,
                peers::makeBox2dTree});
  registry.add({"boost-rtree", "Boost.Geometry 1.74 rtree: packed R*-tree of bounding boxes", "", true,
                peers::makeBoostRtree});
  // (peers register below this line)
}

}  // namespace st
