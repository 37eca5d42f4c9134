#pragma once
/// \file
/// How a structure lets the query engine walk it: its nodes with their bounds, their children and the items
/// each node holds, as flat arrays addressed by 32-bit indices (the shape of Box2D's and Jolt's node
/// arrays). A structure that exposes a walk view gets every query shape, the counters and the step-by-step
/// trace from one engine, written once, instead of writing a walk per shape.

#include <cstdint>
#include <functional>
#include <span>

#include "spheretest/geometry.hpp"

namespace st {

/// One node of a walk view.
struct WalkNode {
  Box bounds;                    ///< holds every circle stored in the node and below it
  std::uint32_t firstChild = 0;  ///< index in WalkView::nodes of the first child; children are consecutive
  std::uint32_t childCount = 0;  ///< number of children (0 for a leaf)
  std::uint32_t firstItem = 0;   ///< index in WalkView::items of the node's first item
  std::uint32_t itemCount = 0;   ///< items stored in the node itself
};
static_assert(sizeof(WalkNode) == 32, "a walk node is half a cache line");

/// The arrays the query engine walks: nodes[0] is the root (no nodes: nothing is placed in a node), and
/// `unplaced` are items every query tests (brute force's whole list, a grid's oversize items).
struct WalkView {
  std::span<const WalkNode> nodes;   ///< the nodes, root first
  std::span<const ItemId> items;     ///< the items of every node, each node's in one run
  std::span<const ItemId> unplaced;  ///< items outside every node, tested by every query
};

/// Called with each result of a callback query; returning false stops the walk (as Box2D's query
/// callbacks and Jolt's collectors do).
using ItemVisitor = std::function<bool(ItemId)>;

}  // namespace st
