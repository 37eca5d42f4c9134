#pragma once
/// \file
/// Factories of the structures in core/; most callers use the registry instead.

#include <memory>

#include "spheretest/spatial_index.hpp"

namespace st {

/// Brute force: tests everything; the oracle every other structure is checked against.
std::unique_ptr<SpatialIndex> makeBruteForce();
/// Hashed uniform grid (seed 002): cell hash -> list in one array, counting-sort re-sort for whole frames.
std::unique_ptr<SpatialIndex> makeGrid();
/// Replicated hashed grid (seed 002's variant): each circle in every cell its bounds overlap; a lookup reads
/// one cell.
std::unique_ptr<SpatialIndex> makeReplicatedGrid();
/// Hierarchical spatial hash (comments on seed 003): mipmap-like grid levels, each circle in the level
/// fitting its size.
std::unique_ptr<SpatialIndex> makeHierarchicalGrid();
/// Point quadtree (seed 004): capacity-limited leaves keyed by centre, queries widened by the largest radius.
std::unique_ptr<SpatialIndex> makeQuadtree();
/// Fit-entirely quadtree (seed 003): each circle in the deepest node containing it; degenerates on centre
/// lines.
std::unique_ptr<SpatialIndex> makeFitQuadtree();
/// Loose quadtree (Ulrich): bounds enlarged by a factor, level from radius, O(1) moves within loose bounds.
std::unique_ptr<SpatialIndex> makeLooseQuadtree();
/// Variable-radius tree (seed 000): quadtree of centres, node size fixes the radius band, O(1) moves.
std::unique_ptr<SpatialIndex> makeRadiusTree();
/// Enneatree (seed 003): nine overlapping half-size children, depth from diameter, centre child preferred.
std::unique_ptr<SpatialIndex> makeEnneatree();
/// Ratcliff's sphere tree (seed 001): super-spheres with gravity slop, O(1) moves, deferred reintegration.
std::unique_ptr<SpatialIndex> makeSphereTree();
/// Dynamic AABB tree (comments on seed 003; Box2D/Bullet style): fat boxes, SAH insertion with rotations.
std::unique_ptr<SpatialIndex> makeAabbTree();

}  // namespace st
