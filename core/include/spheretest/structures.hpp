#pragma once
/// \file Factories of the structures in core/; most callers use the registry instead.

#include <memory>

#include "spheretest/spatial_index.hpp"

namespace st {

/// Brute force: tests everything; the oracle every other structure is checked against.
std::unique_ptr<SpatialIndex> makeBruteForce();
// (factories are declared below this line)

}  // namespace st
