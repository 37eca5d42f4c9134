#include "spheretest/peers.hpp"

#include "peer_support.hpp"

namespace st {

void registerPeerStructures(StructureRegistry& registry) {
  registry.add({.name = "box2d-tree",
                .summary = "Box2D 2.4.1 b2DynamicTree: fat-box AABB tree with a contact cache",
                .source = "",
                .peer = true,
                .create = peers::makeBox2dTree});
  registry.add({.name = "boost-rtree",
                .summary = "Boost.Geometry 1.74 rtree: packed R*-tree of bounding boxes",
                .source = "",
                .peer = true,
                .create = peers::makeBoostRtree});
  // (peers register below this line)
}

}  // namespace st
