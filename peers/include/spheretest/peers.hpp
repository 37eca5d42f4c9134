#pragma once
/// \file Third-party structures (Box2D's dynamic tree, Boost.Geometry's rtree) behind the core interface.

#include "spheretest/registry.hpp"

namespace st {

/// Adds the peer structures to a registry, after the core ones.
void registerPeerStructures(StructureRegistry& registry);

}  // namespace st
