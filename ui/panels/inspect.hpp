#pragma once
/// \file What the inspector finds about a circle or a node of the current structure: the circle under the
/// cursor, the nodes from the root to the one holding it, its overlapping partners, and the deepest node
/// under a point. No ImGui here, so the tests check it directly.

#include <optional>
#include <string_view>
#include <vector>

#include "spheretest/scene.hpp"
#include "spheretest/spatial_index.hpp"

namespace st::ui {

/// One circle and where the structure keeps it.
struct CircleDetails {
  ItemId id = 0;               ///< the circle's id
  Circle circle;               ///< where it is now
  int group = -1;              ///< attraction group, -1 for a static circle
  std::vector<NodeInfo> path;  ///< nodes from the root down to the one holding it (each cell, for grids)
  /// Whether the structure named the path; when not, `path` holds the nodes around the circle's centre,
  /// one per depth, and which of them keeps it is not known.
  bool pathNamed = true;
  std::vector<ItemId> partners;  ///< circles overlapping it now, ascending
  std::string_view rule;         ///< the structure's placement rule, one line ("" when it names none)
};

/// The circle nearest `p` among those within `reach` of it (distance to the disc, so a circle containing
/// `p` comes first; among those the smallest, the most specific), or nullopt when none is that close.
/// Runs one circle query on `index`.
std::optional<ItemId> circleNear(SpatialIndex& index, Vec2 p, float reach);

/// What the inspector shows about circle `id`, or nullopt when the structure does not hold it. Runs one
/// circle query (the partners) on `index`.
std::optional<CircleDetails> describeCircle(SpatialIndex& index, const Simulation& simulation, ItemId id);

/// The deepest node whose bounds contain `p` (the smallest among equally deep ones), or nullopt. Walks
/// every node.
std::optional<NodeInfo> nodeAt(const SpatialIndex& index, Vec2 p);

/// Whether a node's bounds (its box, or its sphere) contain `p`.
bool nodeContains(const NodeInfo& node, Vec2 p);

}  // namespace st::ui
