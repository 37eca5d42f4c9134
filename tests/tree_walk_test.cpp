// The query walk every tree shares (core/src/structures/shared/tree_walk.hpp) and the free list of the node
// pools (free_list.hpp), checked on a small hand-built tree against plain loops over the circles.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "structures/shared/free_list.hpp"
#include "structures/shared/tree_walk.hpp"
#include "support/all_structures.hpp"

namespace st::testing {
namespace {

// A tree of boxes over circles sorted on x: leaves of eight circles, parents of four children. The last
// leaf is kept empty, so that the walk's skipping of empty subtrees is exercised.
class TinyTree {
 public:
  using Ref = std::uint32_t;

  explicit TinyTree(std::uint64_t seed) {
    Rng rng(seed);
    for (int i = 0; i < 203; ++i)
      circles_.push_back({{rng.uniform(0.0f, 100.0f), rng.uniform(0.0f, 100.0f)}, rng.uniform(0.2f, 4.0f)});
    std::vector<ItemId> order(circles_.size());
    for (ItemId id = 0; id < order.size(); ++id) order[id] = id;
    std::sort(order.begin(), order.end(),
              [&](ItemId a, ItemId b) { return circles_[a].center.x < circles_[b].center.x; });
    std::vector<Ref> level;
    for (std::size_t at = 0; at < order.size(); at += 8) {
      Node leaf;
      leaf.items.assign(order.begin() + long(at), order.begin() + long(std::min(at + 8, order.size())));
      level.push_back(add(leaf));
    }
    level.push_back(add(Node{}));  // the empty leaf
    while (level.size() > 1) {
      std::vector<Ref> parents;
      for (std::size_t at = 0; at < level.size(); at += 4) {
        Node parent;
        parent.children.assign(level.begin() + long(at),
                               level.begin() + long(std::min(at + 4, level.size())));
        parents.push_back(add(parent));
      }
      level = parents;
    }
    root_ = level.front();
  }

  bool empty() const { return nodes_.empty(); }
  Ref root() const { return root_; }
  Box bounds(Ref r) const { return nodes_[r].box; }
  std::uint32_t examinedByBounds(Ref) const { return 0; }
  bool holdsNothing(Ref r) const { return nodes_[r].count == 0; }
  template <class F>
  bool forEachItem(Ref r, F&& f) const {
    for (ItemId id : nodes_[r].items)
      if (!f(id, circles_[id])) return false;
    return true;
  }
  template <class F>
  void forEachChild(Ref r, F&& f) const {
    for (auto it = nodes_[r].children.rbegin(); it != nodes_[r].children.rend(); ++it) f(*it);
  }
  NodeInfo info(Ref r, int depth) const {
    NodeInfo node;
    node.box = nodes_[r].box;
    node.depth = depth;
    return node;
  }

  const std::vector<Circle>& circles() const { return circles_; }
  std::size_t nodeCount() const { return nodes_.size(); }

 private:
  struct Node {
    Box box{{1e30f, 1e30f}, {-1e30f, -1e30f}};
    std::vector<Ref> children;
    std::vector<ItemId> items;
    std::uint32_t count = 0;  // circles at or below
  };

  Ref add(Node node) {
    for (ItemId id : node.items) {
      node.box = boxUnion(node.box, inflateForPruning(boundsOf(circles_[id])));
      ++node.count;
    }
    for (Ref child : node.children) {
      if (nodes_[child].count == 0) continue;
      node.box = boxUnion(node.box, nodes_[child].box);
      node.count += nodes_[child].count;
    }
    nodes_.push_back(node);
    return Ref(nodes_.size() - 1);
  }

  std::vector<Circle> circles_;
  std::vector<Node> nodes_;
  Ref root_ = 0;
};

template <class Shape>
std::vector<ItemId> walked(const TinyTree& tree, const Shape& shape, QueryContext& ctx) {
  std::vector<ItemId> out;
  tree_walk::walk(tree, ctx, shape, [&](ItemId id, const Circle&) {
    out.push_back(id);
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

template <class Test>
std::vector<ItemId> looped(const TinyTree& tree, Test&& test) {
  std::vector<ItemId> out;
  for (ItemId id = 0; id < tree.circles().size(); ++id)
    if (test(tree.circles()[id])) out.push_back(id);
  return out;
}

TEST(TreeWalk, EveryShapeFindsWhatALoopOverTheCirclesFinds) {
  const TinyTree tree(7);
  Rng rng(11);
  for (int q = 0; q < 200; ++q) {
    const Vec2 p{rng.uniform(-10.0f, 110.0f), rng.uniform(-10.0f, 110.0f)};
    const Circle c{p, rng.uniform(0.0f, 20.0f)};
    const Box box{{p.x, p.y}, {p.x + rng.uniform(0.0f, 30.0f), p.y + rng.uniform(0.0f, 30.0f)}};
    const ViewCone cone{
        p, {rng.uniform(-1.0f, 1.0f), rng.uniform(-1.0f, 1.0f)}, rng.uniform(0.1f, 1.5f), 40.0f};
    QueryContext ctx;
    EXPECT_EQ(walked(tree, tree_walk::PointShape{p}, ctx),
              looped(tree, [&](const Circle& x) { return circleContainsPoint(x, p); }));
    EXPECT_EQ(walked(tree, tree_walk::CircleShape(c), ctx),
              looped(tree, [&](const Circle& x) { return circlesOverlap(x, c); }));
    EXPECT_EQ(walked(tree, tree_walk::BoxShape(box), ctx),
              looped(tree, [&](const Circle& x) { return circleOverlapsBox(x, box); }));
    EXPECT_EQ(walked(tree, tree_walk::ConeShape(cone), ctx),
              looped(tree, [&](const Circle& x) { return circleOverlapsCone(x, cone); }));
    // The box test prunes nothing the exact test would keep, and every circle examined is tested exactly.
    EXPECT_EQ(ctx.counters.candidates, ctx.counters.exactTests);
    EXPECT_LT(ctx.counters.candidates, 4 * tree.circles().size());  // the boxes pruned something
  }
}

TEST(TreeWalk, RaysFindEveryHitAndTheFirstHit) {
  const TinyTree tree(3);
  Rng rng(5);
  for (int q = 0; q < 200; ++q) {
    const Segment s{{rng.uniform(-10.0f, 110.0f), rng.uniform(-10.0f, 110.0f)},
                    {rng.uniform(-10.0f, 110.0f), rng.uniform(-10.0f, 110.0f)}};
    std::vector<ItemId> want;
    std::optional<RayHit> first;
    for (ItemId id = 0; id < tree.circles().size(); ++id) {
      float t = 0.0f;
      if (!segmentHitsCircle(s, tree.circles()[id], t)) continue;
      want.push_back(id);
      const RayHit hit{id, t, s.start + (s.end - s.start) * t};
      if (!first || rayHitLess(hit, *first)) first = hit;
    }
    QueryContext ctx;
    std::vector<RayHit> hits;
    tree_walk::rayCast(tree, ctx, s, hits);
    std::vector<ItemId> got;
    for (const RayHit& h : hits) got.push_back(h.id);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want);
    QueryContext firstCtx;
    const std::optional<RayHit> gotFirst = tree_walk::rayCastFirst(tree, firstCtx, s);
    ASSERT_EQ(gotFirst.has_value(), first.has_value());
    if (first) {
      EXPECT_EQ(gotFirst->id, first->id);
      // Clipping at the first hit never examines more than the walk for every hit.
      EXPECT_LE(firstCtx.counters.candidates, ctx.counters.candidates);
    }
  }
}

TEST(TreeWalk, NearestMatchesASortOfEveryCircle) {
  const TinyTree tree(9);
  Rng rng(13);
  for (int q = 0; q < 100; ++q) {
    const Vec2 p{rng.uniform(-20.0f, 120.0f), rng.uniform(-20.0f, 120.0f)};
    const std::uint32_t k = 1 + std::uint32_t(q % 12);
    std::vector<NearestHit> want;
    for (ItemId id = 0; id < tree.circles().size(); ++id)
      want.push_back({id, circleEdgeDistance(tree.circles()[id], p)});
    std::sort(want.begin(), want.end(), nearestHitLess);
    want.resize(k);
    QueryContext ctx;
    std::vector<NearestHit> got;
    tree_walk::NearestHeap heap(got, k);
    tree_walk::nearest(tree, ctx, p, heap);
    heap.finish();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < k; ++i) EXPECT_EQ(got[i].id, want[i].id) << "rank " << i;
    EXPECT_LT(ctx.counters.candidates, tree.circles().size());
  }
}

TEST(TreeWalk, CountsEveryNodeTestedAndTracesTheEmptySubtreeWithoutEnteringIt) {
  const TinyTree tree(1);
  QueryTrace trace;
  QueryContext ctx;
  ctx.trace = &trace;
  // A box over the whole world enters every node that holds a circle.
  const std::vector<ItemId> all = walked(tree, tree_walk::BoxShape(Box{{-1e3f, -1e3f}, {1e3f, 1e3f}}), ctx);
  EXPECT_EQ(all.size(), tree.circles().size());
  EXPECT_EQ(ctx.counters.nodesVisited, tree.nodeCount() - 1);  // all but the empty leaf
  const auto emptyPrunes = std::count_if(trace.events.begin(), trace.events.end(), [](const TraceEvent& e) {
    return e.kind == TraceEventKind::PruneNode && e.test &&
           std::string_view(e.test) == tree_walk::kEmptySubtree;
  });
  EXPECT_EQ(emptyPrunes, 1);
}

TEST(TreeWalk, AConeHoldingABoxWhollyAcceptsItsCirclesWithoutATest) {
  const TinyTree tree(4);
  // The whole disc around the world's centre, far enough to hold every box.
  const ViewCone everything{{50.0f, 50.0f}, {1.0f, 0.0f}, 3.2f, 500.0f};
  QueryContext ctx;
  EXPECT_EQ(walked(tree, tree_walk::ConeShape(everything), ctx).size(), tree.circles().size());
  EXPECT_EQ(ctx.counters.candidates, 0u) << "the root lies inside: nothing below it is tested";
  EXPECT_EQ(ctx.counters.exactTests, 0u);
}

TEST(TreeWalk, StopsWhenTheCallerSaysSo) {
  const TinyTree tree(2);
  QueryContext ctx;
  std::vector<ItemId> taken;
  tree_walk::walk(tree, ctx, tree_walk::BoxShape(Box{{-1e3f, -1e3f}, {1e3f, 1e3f}}),
                  [&](ItemId id, const Circle&) {
                    taken.push_back(id);
                    return taken.size() < 5;
                  });
  EXPECT_EQ(taken.size(), 5u);
  EXPECT_EQ(ctx.counters.candidates, 5u);
}

TEST(FreeList, ReusesTheLastFreedSlotFirstAndChecksItself) {
  std::vector<std::uint32_t> link(6, kNoIndex);
  std::vector<bool> dead(6, false);
  const auto linkOf = [&](std::uint32_t slot) -> std::uint32_t& { return link[slot]; };
  const auto isDead = [&](std::uint32_t slot) { return bool(dead[slot]); };
  FreeList list;
  EXPECT_EQ(list.take(linkOf), kNoIndex);
  for (std::uint32_t slot : {1u, 4u, 2u}) {
    dead[slot] = true;
    list.give(slot, linkOf);
  }
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(list.problem(linkOf, isDead, link.size()), "");
  EXPECT_EQ(list.take(linkOf), 2u);
  dead[2] = false;
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(list.problem(linkOf, isDead, link.size()), "");

  // Each way a list can break is named.
  dead[4] = false;
  EXPECT_EQ(list.problem(linkOf, isDead, link.size()), "the free list holds a live slot");
  dead[4] = true;
  EXPECT_EQ(list.problem(linkOf, isDead, 3), "the free list points outside the pool");
  link[1] = 4;  // a loop: 4 -> 1 -> 4
  EXPECT_EQ(list.problem(linkOf, isDead, link.size()), "the free list is longer than its count");
  link[1] = kNoIndex;
  list.give(5, linkOf);
  dead[5] = true;
  link[5] = kNoIndex;  // cut after the head: one slot reachable of three counted
  EXPECT_EQ(list.problem(linkOf, isDead, link.size()), "the free list is shorter than its count");
  list.clear();
  EXPECT_EQ(list.size(), 0u);
  EXPECT_EQ(list.take(linkOf), kNoIndex);
}

// A callback that stops at the first circle stops the walk itself, not only the delivery: on a dense cluster
// every structure of core (the tree walk, the engine's walk of a walk view, the grids' cell walks and the
// size-banded trees' directory walk) examines far fewer circles than the whole query does.
TEST(TreeWalk, ACallbackThatStopsEndsTheStructuresWalk) {
  for (const char* name : {"brute", "grid", "grid-replicated", "hgrid", "quadtree", "fit-quadtree",
                           "loose-quadtree", "radius-tree", "enneatree", "sphere-tree", "aabb-tree"}) {
    auto index = allStructures().create(name);
    Rng rng(11);
    std::vector<Item> items;
    for (ItemId id = 0; id < 2000; ++id)
      items.push_back({id, {{rng.uniform(0.0f, 60.0f), rng.uniform(0.0f, 60.0f)}, rng.uniform(0.5f, 3.0f)}});
    index->build(items);
    const Circle query{{30.0f, 30.0f}, 25.0f};
    QueryContext whole, stopped;
    std::vector<ItemId> all;
    index->queryCircle(query, all, &whole);
    ASSERT_GT(all.size(), 100u) << name;
    std::size_t calls = 0;
    index->queryCircle(
        query, [&](ItemId) { return ++calls < 1; }, &stopped);
    EXPECT_EQ(calls, 1u) << name;
    EXPECT_LT(stopped.counters.candidates * 10, whole.counters.candidates) << name;

    const Box box = boxFromCenter(query.center, 25.0f, 25.0f);
    QueryContext wholeBox, stoppedBox;
    index->queryBox(box, all, &wholeBox);
    calls = 0;
    index->queryBox(
        box, [&](ItemId) { return ++calls < 1; }, &stoppedBox);
    EXPECT_EQ(calls, 1u) << name;
    EXPECT_LT(stoppedBox.counters.candidates * 10, wholeBox.counters.candidates) << name;
  }
}

}  // namespace
}  // namespace st::testing
