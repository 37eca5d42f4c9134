#include "ui/panels/inspect.hpp"

#include <algorithm>
#include <cmath>

namespace st::ui {
namespace {

float nodeSize(const NodeInfo& node) {
  if (node.shape == NodeShape::Circle) return 2.0f * node.circle.radius;
  return std::max(node.box.max.x - node.box.min.x, node.box.max.y - node.box.min.y);
}

}  // namespace

std::optional<ItemId> circleNear(SpatialIndex& index, Vec2 p, float reach) {
  std::vector<ItemId> near;
  index.queryCircle({p, std::max(reach, 0.0f)}, near);
  std::optional<ItemId> best;
  float bestGap = 0.0f, bestRadius = 0.0f;
  for (ItemId id : near) {
    const Circle& c = index.circle(id);
    const float gap = std::max(length(c.center - p) - c.radius, 0.0f);
    if (!best || gap < bestGap || (gap == bestGap && c.radius < bestRadius) ||
        (gap == bestGap && c.radius == bestRadius && id < *best)) {
      best = id;
      bestGap = gap;
      bestRadius = c.radius;
    }
  }
  return best;
}

std::optional<CircleDetails> describeCircle(SpatialIndex& index, const Simulation& simulation, ItemId id) {
  if (!index.contains(id)) return std::nullopt;
  CircleDetails d;
  d.id = id;
  d.circle = index.circle(id);
  d.group = id < simulation.circles().size() ? simulation.group(id) : -1;
  index.visitPathTo(id, [&](const NodeInfo& node) { d.path.push_back(node); });
  if (d.path.empty()) {
    // A structure that does not name the path still shows the nodes around the circle's centre, the
    // smallest at each depth: the way down a tree that splits space, though not which node keeps it.
    d.pathNamed = false;
    index.visitNodes([&](const NodeInfo& node) {
      if (!nodeContains(node, d.circle.center)) return;
      const auto depth = static_cast<std::size_t>(std::max(node.depth, 0));
      NodeInfo unset;
      unset.depth = -1;
      if (depth >= d.path.size()) d.path.resize(depth + 1, unset);
      if (d.path[depth].depth < 0 || nodeSize(node) < nodeSize(d.path[depth])) d.path[depth] = node;
    });
    d.path.erase(std::remove_if(d.path.begin(), d.path.end(), [](const NodeInfo& n) { return n.depth < 0; }),
                 d.path.end());
  }
  index.queryCircle(d.circle, d.partners);
  d.partners.erase(std::remove(d.partners.begin(), d.partners.end(), id), d.partners.end());
  std::sort(d.partners.begin(), d.partners.end());
  d.rule = index.nodeRule();
  return d;
}

bool nodeContains(const NodeInfo& node, Vec2 p) {
  return node.shape == NodeShape::Circle ? circleContainsPoint(node.circle, p)
                                         : boxContainsPoint(node.box, p);
}

std::optional<NodeInfo> nodeAt(const SpatialIndex& index, Vec2 p) {
  std::optional<NodeInfo> best;
  index.visitNodes([&](const NodeInfo& node) {
    if (!nodeContains(node, p)) return;
    if (!best || node.depth > best->depth || (node.depth == best->depth && nodeSize(node) < nodeSize(*best)))
      best = node;
  });
  return best;
}

}  // namespace st::ui
