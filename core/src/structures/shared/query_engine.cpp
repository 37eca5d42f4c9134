#include "query_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "bvh_pruning.hpp"
#include "walk_stack.hpp"

namespace st::engine {
namespace {

struct StackEntry {
  std::uint32_t node;
  std::uint32_t depth;
};

NodeInfo infoOf(const WalkNode& node, std::uint32_t depth) {
  NodeInfo info;
  info.box = node.bounds;
  info.depth = static_cast<int>(depth);
  info.itemCount = node.itemCount;
  return info;
}

// The one walk every shape but the nearest takes. `enters(bounds)` may only over-accept; `test(id)` is the
// exact predicate; `take(id)` receives a hit and returns false to stop the walk.
template <class Enters, class Test, class Take>
void walk(const WalkView& view, QueryContext& ctx, const char* pruneTest, Enters&& enters, Test&& test,
          Take&& take) {
  auto examine = [&](ItemId id) {
    ++ctx.counters.candidates;
    const bool hit = test(id);
    ctx.candidate(id, hit);
    return !hit || take(id);
  };
  for (const ItemId id : view.unplaced) {
    if (!examine(id)) return;
  }
  if (view.nodes.empty()) return;
  WalkStack<StackEntry> stack;
  stack.push({0, 0});
  while (!stack.empty()) {
    const StackEntry entry = stack.pop();
    const WalkNode& node = view.nodes[entry.node];
    ++ctx.counters.nodesVisited;
    if (!enters(node.bounds)) {
      if (ctx.tracing()) ctx.prune(infoOf(node, entry.depth), pruneTest);
      continue;
    }
    if (ctx.tracing()) ctx.visit(infoOf(node, entry.depth));
    for (std::uint32_t i = 0; i < node.itemCount; ++i) {
      if (!examine(view.items[node.firstItem + i])) return;
    }
    // Last child pushed first, so that children are entered in their stored order.
    for (std::uint32_t i = node.childCount; i > 0; --i)
      stack.push({node.firstChild + i - 1, entry.depth + 1});
  }
}

// Lower bound of the signed edge distance from p of every circle inside `bounds`: the distance to the
// (slightly grown) box when p lies outside it; none when p lies inside, where a circle may hold p deeply.
double lowerBound(const Box& bounds, Vec2 p) {
  const Box grown = inflateForPruning(bounds);
  const double dx = std::max({double(grown.min.x) - p.x, 0.0, double(p.x) - grown.max.x});
  const double dy = std::max({double(grown.min.y) - p.y, 0.0, double(p.y) - grown.max.y});
  if (dx == 0.0 && dy == 0.0) return -std::numeric_limits<double>::infinity();
  return std::sqrt(dx * dx + dy * dy) * (1.0 - 1e-6);
}

}  // namespace

void queryPoint(const WalkView& view, const SpatialIndex& index, Vec2 p, const ItemSink& sink,
                QueryContext& ctx) {
  walk(
      view, ctx, "point outside the node's box",
      [&](const Box& bounds) { return boxContainsPoint(inflateForPruning(bounds), p); },
      [&](ItemId id) { return circleContainsPoint(index.circle(id), p); },
      [&](ItemId id) { return sink.add(id); });
}

void queryCircle(const WalkView& view, const SpatialIndex& index, const Circle& query, const ItemSink& sink,
                 QueryContext& ctx) {
  walk(
      view, ctx, "circle misses the node's box",
      [&](const Box& bounds) {
        return circleOverlapsBox({query.center, inflateRadiusForPruning(query.radius, query.center)},
                                 inflateForPruning(bounds));
      },
      [&](ItemId id) { return circlesOverlap(index.circle(id), query); },
      [&](ItemId id) { return sink.add(id); });
}

void queryBox(const WalkView& view, const SpatialIndex& index, const Box& box, const ItemSink& sink,
              QueryContext& ctx) {
  const Box grownQuery = inflateForPruning(box);
  walk(
      view, ctx, "box misses the node's box",
      [&](const Box& bounds) { return boxesOverlap(inflateForPruning(bounds), grownQuery); },
      [&](ItemId id) { return circleOverlapsBox(index.circle(id), box); },
      [&](ItemId id) { return sink.add(id); });
}

void queryCone(const WalkView& view, const SpatialIndex& index, const ViewCone& cone, const ItemSink& sink,
               QueryContext& ctx) {
  const bvh::ConeClassifier classifier(cone);
  walk(
      view, ctx, "cone misses the node's box",
      [&](const Box& b) {
        return classifier.classifyBox(b.min.x, b.min.y, b.max.x, b.max.y) != bvh::Side::Outside;
      },
      [&](ItemId id) { return circleOverlapsCone(index.circle(id), cone); },
      [&](ItemId id) { return sink.add(id); });
}

void rayCast(const WalkView& view, const SpatialIndex& index, const Segment& segment,
             std::vector<RayHit>& out, QueryContext& ctx) {
  const Vec2 delta = segment.end - segment.start;
  float t = 0.0f;
  walk(
      view, ctx, "segment misses the node's box",
      [&](const Box& bounds) {
        double entry = 0.0;
        return bvh::segmentEntersBox(segment, bounds, entry);
      },
      [&](ItemId id) { return segmentHitsCircle(segment, index.circle(id), t); },
      [&](ItemId id) {
        out.push_back({id, t, segment.start + delta * t});
        return true;
      });
}

std::optional<RayHit> rayCastFirst(const WalkView& view, const SpatialIndex& index, const Segment& segment,
                                   QueryContext& ctx) {
  const Vec2 delta = segment.end - segment.start;
  std::optional<RayHit> best;
  float t = 0.0f;
  walk(
      view, ctx, "segment misses the node's box, or meets it after the best hit",
      [&](const Box& bounds) {
        double entry = 0.0;
        return bvh::segmentEntersBox(segment, bounds, entry) && (!best || entry <= double(best->t));
      },
      [&](ItemId id) { return segmentHitsCircle(segment, index.circle(id), t); },
      [&](ItemId id) {
        const RayHit hit{id, t, segment.start + delta * t};
        if (!best || rayHitLess(hit, *best)) best = hit;
        return true;
      });
  return best;
}

void keepNearest(std::vector<NearestHit>& hits, std::uint32_t k) {
  if (hits.size() > k) {
    std::nth_element(hits.begin(), hits.begin() + k, hits.end(), nearestHitLess);
    hits.resize(k);
  }
  std::sort(hits.begin(), hits.end(), nearestHitLess);
}

void queryNearest(const WalkView& view, const SpatialIndex& index, Vec2 p, std::uint32_t k,
                  std::vector<NearestHit>& out, QueryContext& ctx) {
  out.clear();
  if (k == 0) return;
  // `out` is a max-heap by nearestHitLess of the best k so far: its front is the k-th nearest.
  auto offer = [&](ItemId id) {
    ++ctx.counters.candidates;
    const NearestHit hit{id, circleEdgeDistance(index.circle(id), p)};
    const bool kept = out.size() < k || nearestHitLess(hit, out.front());
    ctx.candidate(id, kept);
    if (!kept) return;
    if (out.size() == k) {
      std::pop_heap(out.begin(), out.end(), nearestHitLess);
      out.pop_back();
    }
    out.push_back(hit);
    std::push_heap(out.begin(), out.end(), nearestHitLess);
  };
  // A node can still matter while its bound is not above the k-th distance: an equal distance with a
  // smaller id would win the tie.
  auto mayHoldNearer = [&](double bound) { return out.size() < k || bound <= double(out.front().distance); };
  for (const ItemId id : view.unplaced) offer(id);
  if (!view.nodes.empty()) {
    struct Open {
      double bound;
      std::uint32_t node;
      std::uint32_t depth;
      bool operator>(const Open& other) const { return bound > other.bound; }
    };
    std::priority_queue<Open, std::vector<Open>, std::greater<Open>> open;
    open.push({lowerBound(view.nodes[0].bounds, p), 0, 0});
    while (!open.empty()) {
      const Open next = open.top();
      open.pop();
      const WalkNode& node = view.nodes[next.node];
      ++ctx.counters.nodesVisited;
      if (!mayHoldNearer(next.bound)) {
        if (ctx.tracing()) ctx.prune(infoOf(node, next.depth), "node's box lies beyond the k-th nearest");
        continue;
      }
      if (ctx.tracing()) ctx.visit(infoOf(node, next.depth));
      for (std::uint32_t i = 0; i < node.itemCount; ++i) offer(view.items[node.firstItem + i]);
      for (std::uint32_t i = 0; i < node.childCount; ++i) {
        const std::uint32_t child = node.firstChild + i;
        open.push({lowerBound(view.nodes[child].bounds, p), child, next.depth + 1});
      }
    }
  }
  std::sort_heap(out.begin(), out.end(), nearestHitLess);
}

}  // namespace st::engine
