#include "query_engine.hpp"

#include <algorithm>
#include <utility>

#include "tree_walk.hpp"

namespace st::engine {
namespace {

// A walk view as tree_walk sees it: nodes by index, children consecutive, items read from the index.
class ViewTree {
 public:
  using Ref = std::uint32_t;
  ViewTree(const WalkView& view, const SpatialIndex& index) : view_(view), index_(index) {}
  bool empty() const { return view_.nodes.empty(); }
  Ref root() const { return 0; }
  Box bounds(Ref node) const { return inflateForPruning(view_.nodes[node].bounds); }
  std::uint32_t examinedByBounds(Ref) const { return 0; }
  template <class F>
  bool forEachItem(Ref node, F&& f) const {
    const WalkNode& n = view_.nodes[node];
    for (std::uint32_t i = 0; i < n.itemCount; ++i) {
      const ItemId id = view_.items[n.firstItem + i];
      if (!f(id, index_.circle(id))) return false;
    }
    return true;
  }
  template <class F>
  void forEachChild(Ref node, F&& f) const {
    const WalkNode& n = view_.nodes[node];
    for (std::uint32_t i = n.childCount; i > 0; --i) f(n.firstChild + i - 1);
  }
  template <class F>
  bool forEachUnplaced(F&& f) const {
    for (const ItemId id : view_.unplaced)
      if (!f(id, index_.circle(id))) return false;
    return true;
  }
  NodeInfo info(Ref node, int depth) const {
    NodeInfo info;
    info.box = view_.nodes[node].bounds;
    info.depth = depth;
    info.itemCount = view_.nodes[node].itemCount;
    return info;
  }

 private:
  const WalkView& view_;
  const SpatialIndex& index_;
};

template <class Shape>
void collect(const WalkView& view, const SpatialIndex& index, QueryContext& ctx, const Shape& shape,
             ResultTaker&& take) {
  tree_walk::walk(ViewTree(view, index), ctx, shape, [&](ItemId id, const Circle&) { return take(id); });
}

}  // namespace

void queryPoint(const WalkView& view, const SpatialIndex& index, Vec2 p, ResultTaker&& take,
                QueryContext& ctx) {
  collect(view, index, ctx, tree_walk::PointShape{p}, std::move(take));
}

void queryCircle(const WalkView& view, const SpatialIndex& index, const Circle& query, ResultTaker&& take,
                 QueryContext& ctx) {
  collect(view, index, ctx, tree_walk::CircleShape(query), std::move(take));
}

void queryBox(const WalkView& view, const SpatialIndex& index, const Box& box, ResultTaker&& take,
              QueryContext& ctx) {
  collect(view, index, ctx, tree_walk::BoxShape(box), std::move(take));
}

void queryCone(const WalkView& view, const SpatialIndex& index, const ViewCone& cone, ResultTaker&& take,
               QueryContext& ctx) {
  collect(view, index, ctx, tree_walk::ConeShape(cone), std::move(take));
}

void rayCast(const WalkView& view, const SpatialIndex& index, const Segment& segment,
             std::vector<RayHit>& out, QueryContext& ctx) {
  tree_walk::rayCast(ViewTree(view, index), ctx, segment, out);
}

std::optional<RayHit> rayCastFirst(const WalkView& view, const SpatialIndex& index, const Segment& segment,
                                   QueryContext& ctx) {
  return tree_walk::rayCastFirst(ViewTree(view, index), ctx, segment);
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
  tree_walk::NearestHeap heap(out, k);
  if (k == 0) return;
  tree_walk::nearest(ViewTree(view, index), ctx, p, heap);
  heap.finish();
}

}  // namespace st::engine
