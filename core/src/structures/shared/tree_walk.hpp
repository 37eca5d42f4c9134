#pragma once
// The query walk, written once for every tree that says how to walk it (Box2D's b2DynamicTree_Query and
// Jolt's collectors, with the shape of the query apart from the tree). A tree is walked through an adapter:
//
//   Ref                                the 32-bit reference of a node
//   bool empty() const                 no node to walk
//   Ref root() const                   the node the walk starts from
//   Box bounds(Ref) const              the box every circle at or below the node lies in, already grown
//                                      so that a conservative test of it never misses a circle; or a
//                                      CircleBound, for a tree of bounding circles
//   std::uint32_t examinedByBounds(Ref) const
//                                      circles whose own bounds the node's box is (a leaf that is its
//                                      circle's box): testing it examines them (see docs/glossary.md)
//   template <class F> bool forEachItem(Ref, F&& f) const
//                                      calls f(id, circle) for the circles stored in the node until f
//                                      returns false; returns false if it stopped
//   template <class F> void forEachChild(Ref, F&& f) const
//                                      calls f(child) for every child, the one to enter first last (the
//                                      walk's stack pops the last pushed first)
//   NodeInfo info(Ref, int depth) const
//                                      how the trace shows the node
//
// and, where the tree has them:
//
//   template <class F> void forEachRoot(F&& f) const
//                                      a tree of several roots: calls f(root) for each, instead of root()
//   template <class F> bool forEachUnplaced(F&& f) const
//                                      circles in no node, which every query tests before the walk
//                                      (f and the result as forEachItem's)
//   ItemRun itemRun(Ref) const         the node's own circles as arrays side by side, when the tree has
//                                      them so (a run with no arrays otherwise): the point and circle
//                                      shapes then pre-test them in float, as the pair search does, and
//                                      test exactly only those the pre-test keeps
//   RunTree runTree(Ref) const         the node's own circles split under bounds (a long run the pair
//                                      search's hand-over cut up like a k-d tree), when the tree has them
//                                      so (no nodes otherwise): every shape then tests those bounds and
//                                      examines only the pieces it may reach, not the whole run
//   bool holdsNothing(Ref) const       a subtree known to be empty: never entered, traced as pruned
//   bool testedByItem(Ref) const       a node that is one circle (the AABB tree's leaf): the walk enters
//                                      it without a test of its bounds, and the exact test of its circle,
//                                      which costs no more, examines it
//   static constexpr bool kTestChildrenAtParent
//                                      test a node's bounds when its parent is entered rather than when
//                                      it is popped (a tree with many children a query prunes)
//   const char* pruneReason() const    names the tree's own bounds test in the trace
//   void entered(Ref, std::uint32_t depth, QueryContext&, const Shape&) const
//                                      the tree's teaching figures of a node entered, when the query
//                                      asks for them (QueryContext::detail)
//
// and a query is a shape: how it tests a node's bounds (`enters`, which may only over-accept, or
// `classify`, which also says when every circle inside them matches, and for the ordered shapes the entry
// distance that orders and clips the walk), the exact test of a circle and what the prune reason reads. The
// walk counts what it visited the one way every panel reads it (glossary: nodes visited, circles examined),
// records the trace when one is attached, and stops when the caller's `take` returns false.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "bvh_pruning.hpp"
#include "pair_output.hpp"
#include "pair_view.hpp"
#include "spheretest/spatial_index.hpp"
#include "walk_stack.hpp"

namespace st::tree_walk {

/// The bounds of a node in a tree of bounding circles (the sphere tree's super-spheres).
struct CircleBound {
  double x = 0;  ///< centre
  double y = 0;  ///< centre
  double r = 0;  ///< radius: every circle at or below the node lies inside
};

/// A node's own circles as arrays side by side (see itemRun above); no arrays when the tree keeps them
/// otherwise.
struct ItemRun {
  pair_view::ItemArrays items;  ///< the arrays, from the node's first circle on
  std::uint32_t count = 0;      ///< circles in the run
};

/// Calls f(id, circle) for each circle of a run until f returns false; false when it stopped.
template <class F>
bool forEachInRun(const ItemRun& run, F&& f) {
  const pair_view::ItemArrays& a = run.items;
  for (std::uint32_t i = 0; i < run.count; ++i)
    if (!f(a.id[i], Circle{{a.x[i], a.y[i]}, a.r[i]})) return false;
  return true;
}

/// A node's own circles split under bounds (see runTree above): the pair view's nodes [first, last), in
/// preorder with each subtree up to its `next`, over the items they index; no nodes when the tree has none.
struct RunTree {
  const pair_view::ViewNode* nodes = nullptr;  ///< the view's nodes
  std::uint32_t first = 0;                     ///< the node holding the whole run
  std::uint32_t last = 0;                      ///< the node after its subtree
  pair_view::ItemArrays items;                 ///< the arrays the nodes' item ranges index
};

/// Circles containing a point.
struct PointShape {
  Vec2 p;  ///< the point
  /// Whether the node's box may hold a circle containing p.
  bool enters(const Box& b) const { return boxContainsPoint(b, p); }
  /// The float pre-test: false only when the exact test surely fails.
  bool mayHit(float x, float y, float r) const { return pairs::mayOverlap({{x, y}, r}, {p, 0.0f}); }
  /// Where a bounding circle lies (never wholly inside a point).
  bvh::Side classify(const CircleBound& b) const { return bvh::circleBoundVsPoint(b.x, b.y, b.r, p); }
  /// The exact test.
  bool test(const Circle& c) const { return circleContainsPoint(c, p); }
  static constexpr const char* kPruned = "bounds do not hold the point";  ///< the trace's prune reason
};

/// Circles overlapping a circle.
struct CircleShape {
  /// Prepares the query circle, grown by the rounding the box test must absorb.
  explicit CircleShape(const Circle& q)
      : query(q),
        grown{q.center, inflateRadiusForPruning(q.radius, q.center)},
        grownSquared(grown.radius * grown.radius) {}
  Circle query;        ///< the query circle
  Circle grown;        ///< the query circle as the box test sees it
  float grownSquared;  ///< its radius squared
  /// Whether the node's box may hold a circle overlapping the query. In float and without branches (the
  /// clamp is a min and a max): the grown radius exceeds the query's by a millionth of its coordinates,
  /// over ten times what float's rounding of this distance can take from it, so no box that holds an
  /// overlapping circle is missed, as in the pair search's float pre-test.
  bool enters(const Box& b) const {
    const float dx = grown.center.x - std::min(std::max(grown.center.x, b.min.x), b.max.x);
    const float dy = grown.center.y - std::min(std::max(grown.center.y, b.min.y), b.max.y);
    return dx * dx + dy * dy <= grownSquared;
  }
  /// The float pre-test: false only when the exact test surely fails.
  bool mayHit(float x, float y, float r) const { return pairs::mayOverlap({{x, y}, r}, query); }
  /// Where a bounding circle lies: outside the query, inside it, or across its edge.
  bvh::Side classify(const CircleBound& b) const { return bvh::circleBoundVsCircle(b.x, b.y, b.r, query); }
  /// The exact test.
  bool test(const Circle& c) const { return circlesOverlap(c, query); }
  static constexpr const char* kPruned = "bounds miss the circle";  ///< the trace's prune reason
};

/// Circles overlapping a box.
struct BoxShape {
  /// Prepares the query box, grown by the rounding the box test must absorb.
  explicit BoxShape(const Box& b) : box(b), grown(inflateForPruning(b)) {}
  Box box;    ///< the query box
  Box grown;  ///< the query box as the box test sees it
  /// Whether the node's box may hold a circle overlapping the query box.
  bool enters(const Box& b) const { return boxesOverlap(b, grown); }
  /// Where a bounding circle lies: outside the query box, inside it, or across its edge.
  bvh::Side classify(const CircleBound& b) const { return bvh::circleBoundVsBox(b.x, b.y, b.r, box); }
  /// The exact test.
  bool test(const Circle& c) const { return circleOverlapsBox(c, box); }
  static constexpr const char* kPruned = "bounds miss the query box";  ///< the trace's prune reason
};

/// Circles overlapping a view cone.
struct ConeShape {
  /// Prepares the cone's classifier once per query.
  explicit ConeShape(const ViewCone& c) : cone(c), classifier(c) {}
  ViewCone cone;                   ///< the query cone
  bvh::ConeClassifier classifier;  ///< the certain box test
  /// Whether the node's box may hold a circle overlapping the cone.
  bool enters(const Box& b) const { return classify(b) != bvh::Side::Outside; }
  /// Where the node's box lies: outside the cone, wholly inside it (every circle in it overlaps the cone)
  /// or across its edge.
  bvh::Side classify(const Box& b) const {
    return classifier.classifyBox(b.min.x, b.min.y, b.max.x, b.max.y);
  }
  /// Where a bounding circle lies, the same way.
  bvh::Side classify(const CircleBound& b) const { return classifier.classify(b.x, b.y, b.r); }
  /// The exact test.
  bool test(const Circle& c) const { return circleOverlapsCone(c, cone); }
  static constexpr const char* kPruned = "bounds miss the cone";  ///< the trace's prune reason
};

/// Circles a segment meets; `t` is the last hit's parameter.
struct SegmentShape {
  /// Prepares the segment once for the walk's box tests.
  explicit SegmentShape(const Segment& s) : segment(s), prepared(s) {}
  Segment segment;                ///< the query segment
  bvh::PreparedSegment prepared;  ///< the segment as the box tests read it
  mutable float t = 0.0f;         ///< the parameter of the last circle test that hit
  /// Whether the segment enters the node's box; `entry` then bounds every circle's entry inside it.
  bool enters(const Box& b, double& entry) const { return bvh::segmentEntersBox(prepared, b, entry); }
  /// Whether the segment enters a bounding circle; `entry` as for a box.
  bool enters(const CircleBound& b, double& entry) const {
    return bvh::segmentEntersCircleBound(segment, b.x, b.y, b.r, entry);
  }
  /// Whether the segment enters the node's bounds.
  template <class Bounds>
  bool enters(const Bounds& b) const {
    double entry = 0.0;
    return enters(b, entry);
  }
  /// The exact test; keeps the hit's parameter in `t`.
  bool test(const Circle& c) const { return segmentHitsCircle(segment, c, t); }
  static constexpr const char* kPruned = "bounds miss the segment";  ///< the trace's prune reason
};

/// The trace's reason for a child never entered because the tree knows its subtree is empty.
inline constexpr const char* kEmptySubtree = "no items below this node";

namespace detail {

template <class Ref>
struct Entry {
  Ref node;
  std::uint32_t depth;
  bool inside;  // an ancestor's box lies wholly inside the query: no tests below
};

template <class Ref>
struct OrderedEntry {
  Ref node;
  std::uint32_t depth;
  double entry;  // the segment's entry into the node's box, a lower bound of its circles' hit parameters
};

// Hands each root to push(root): the tree's several, or its one.
template <class Tree, class Push>
void forEachRoot(const Tree& tree, Push&& push) {
  if constexpr (requires { tree.forEachRoot(push); })
    tree.forEachRoot(push);
  else
    push(tree.root());
}

// Tests each circle that forEach(f) hands to f with the shape's exact test and hands the hits to `take`;
// false when `take` stopped the query. The count stays in a register for the whole run of circles and
// reaches the context once: the figures of ctx.examine, without a store to the context per circle.
template <class ForEach, class Take>
bool testEach(ForEach&& forEach, QueryContext& ctx, const auto& shape, Take& take) {
  std::uint64_t examined = 0;
  const bool going = forEach([&](ItemId id, const Circle& c) {
    ++examined;
    const bool hit = shape.test(c);
    ctx.traceOutcome(id, hit);
    return !hit || take(id, c);
  });
  ctx.counters.candidates += examined;
  ctx.counters.exactTests += examined;
  return going;
}

// The circles in no node, which every query tests before the walk.
template <class Tree, class Take>
bool examineUnplaced(const Tree& tree, QueryContext& ctx, const auto& shape, Take& take) {
  if constexpr (requires { tree.forEachUnplaced(take); })
    return testEach([&](auto&& f) { return tree.forEachUnplaced(f); }, ctx, shape, take);
  else
    return true;
}

// Tests a run of circles side by side: a float pre-test over each block of up to 64 (one loop the compiler
// can run in vector lanes), then the exact test of those it keeps. Every circle up to where the walk stops
// counts as examined, as testEach counts it; only the kept ones are exact tests, and a trace sees every
// outcome.
template <class Take>
bool testRun(const ItemRun& run, QueryContext& ctx, const auto& shape, Take& take) {
  constexpr std::uint32_t kBlock = 64;
  std::uint64_t exact = 0;
  std::uint32_t examined = 0;
  bool going = true;
  for (std::uint32_t block = 0; block < run.count && going; block += kBlock) {
    const std::uint32_t n = std::min(kBlock, run.count - block);
    const float* x = run.items.x + block;
    const float* y = run.items.y + block;
    const float* r = run.items.r + block;
    std::uint8_t kept[kBlock];
    for (std::uint32_t k = 0; k < n; ++k) kept[k] = shape.mayHit(x[k], y[k], r[k]) ? 1 : 0;
    std::uint32_t k = 0;
    for (; k < n; ++k) {
      const ItemId id = run.items.id[block + k];
      if (!kept[k]) {
        ctx.traceOutcome(id, false);
        continue;
      }
      ++exact;
      const Circle c{{x[k], y[k]}, r[k]};
      const bool hit = shape.test(c);
      ctx.traceOutcome(id, hit);
      if (hit && !take(id, c)) {
        going = false;
        ++k;
        break;
      }
    }
    examined += k;
  }
  ctx.counters.candidates += examined;
  ctx.counters.exactTests += exact;
  return going;
}

// Tests the circles of one run: side by side where the shape has a float pre-test, else one by one.
template <class Take>
bool testItemRun(const ItemRun& run, QueryContext& ctx, const auto& shape, Take& take) {
  if constexpr (requires { shape.mayHit(0.0f, 0.0f, 0.0f); }) {
    return testRun(run, ctx, shape, take);
  } else {
    return testEach([&](auto&& f) { return forEachInRun(run, f); }, ctx, shape, take);
  }
}

// Walks a run tree without a stack (each node's subtree follows it, up to its `next`): a node whose bounds
// the shape does not enter is skipped with its subtree, and leaf(run) is called for each leaf it enters
// until it returns false. Counts the nodes tested in `visited`; false when leaf stopped the walk.
template <class Leaf>
bool walkRunTree(const RunTree& tree, const auto& shape, std::uint64_t& visited, Leaf&& leaf) {
  for (std::uint32_t i = tree.first; i < tree.last;) {
    const pair_view::ViewNode& node = tree.nodes[i];
    ++visited;
    if (!shape.enters(node.bounds)) {
      i = node.next;
      continue;
    }
    if (node.next == i + 1) {
      const pair_view::ItemArrays& a = tree.items;
      const ItemRun run{{a.x + node.begin, a.y + node.begin, a.r + node.begin, a.id + node.begin},
                        node.end - node.begin};
      if (!leaf(run)) return false;
    }
    ++i;
  }
  return true;
}

// Tests the circles of the run tree's leaves the shape enters; each node tested counts as visited.
template <class Take>
[[gnu::noinline]] bool testRunTree(const RunTree& tree, QueryContext& ctx, const auto& shape, Take& take) {
  std::uint64_t visited = 0;
  const bool going = walkRunTree(tree, shape, visited,
                                 [&](const ItemRun& run) { return testItemRun(run, ctx, shape, take); });
  ctx.counters.nodesVisited += visited;
  return going;
}

// The circles a node stores itself.
template <class Tree, class Take>
bool examine(const Tree& tree, QueryContext& ctx, typename Tree::Ref ref, const auto& shape, Take& take) {
  if constexpr (requires { tree.runTree(ref); }) {
    if (const RunTree run = tree.runTree(ref); run.nodes) return testRunTree(run, ctx, shape, take);
  }
  if constexpr (
      requires { tree.itemRun(ref); } && requires { shape.mayHit(0.0f, 0.0f, 0.0f); }) {
    if (const ItemRun run = tree.itemRun(ref); run.items.x) return testRun(run, ctx, shape, take);
  }
  return testEach([&](auto&& f) { return tree.forEachItem(ref, f); }, ctx, shape, take);
}

template <class Tree>
void pruned(const Tree& tree, QueryContext& ctx, typename Tree::Ref ref, std::uint32_t depth,
            const char* why) {
  ctx.counters.candidates += tree.examinedByBounds(ref);
  if (!ctx.tracing()) return;
  if constexpr (requires { tree.pruneReason(); }) why = tree.pruneReason();
  ctx.prune(tree.info(ref, static_cast<int>(depth)), why);
}

template <class Tree, class Shape>
void entered(const Tree& tree, QueryContext& ctx, typename Tree::Ref ref, std::uint32_t depth,
             const Shape& shape) {
  if (ctx.tracing()) ctx.visit(tree.info(ref, static_cast<int>(depth)));
  if constexpr (requires { tree.entered(ref, depth, ctx, shape); }) {
    if (ctx.detail) tree.entered(ref, depth, ctx, shape);
  }
}

// Hands every child to push(child), but for those the tree knows to hold nothing.
template <class Tree, class Push>
void forEachChild(const Tree& tree, const QueryContext& ctx, typename Tree::Ref ref, std::uint32_t childDepth,
                  Push&& push) {
  tree.forEachChild(ref, [&](typename Tree::Ref child) {
    if constexpr (requires { tree.holdsNothing(child); }) {
      if (tree.holdsNothing(child)) {
        if (ctx.tracing()) ctx.prune(tree.info(child, static_cast<int>(childDepth)), kEmptySubtree);
        return;
      }
    }
    push(child);
  });
}

}  // namespace detail

/// The circles a query with this shape examines under a run tree (those of the leaves it enters), for a
/// tree's per-depth teaching figures.
inline std::uint64_t circlesExaminedUnder(const RunTree& tree, const auto& shape) {
  std::uint64_t visited = 0, circles = 0;
  detail::walkRunTree(tree, shape, visited, [&](const ItemRun& run) {
    circles += run.count;
    return true;
  });
  return circles;
}

/// Walks every node whose bounds `shape.enters`, depth first with an explicit stack, and hands each circle
/// that passes `shape.test` to take(id, circle), which returns false to stop the walk. A shape that can
/// classify the tree's bounds (`bvh::Side classify(bounds)`: the view cone, and every shape over bounding
/// circles) accepts every circle below a node whose bounds lie wholly inside it without a test.
template <class Tree, class Shape, class Take>
void walk(const Tree& tree, QueryContext& ctx, const Shape& shape, Take&& take) {
  using Ref = typename Tree::Ref;
  constexpr bool kClassifies = requires(Ref r) {
    shape.classify(tree.bounds(r));
  };
  constexpr bool kAtParent = [] {
    if constexpr (requires { Tree::kTestChildrenAtParent; })
      return Tree::kTestChildrenAtParent;
    else
      return false;
  }();
  if (!detail::examineUnplaced(tree, ctx, shape, take) || tree.empty()) return;
  // Counts a node and tests its bounds (unless an ancestor's lie wholly inside the query): false when it
  // is pruned, else `inside` says whether its bounds lie wholly inside.
  const auto admit = [&](Ref node, std::uint32_t depth, bool& inside) {
    ++ctx.counters.nodesVisited;
    if (inside) return true;
    if constexpr (requires { tree.testedByItem(node); }) {
      if (tree.testedByItem(node)) return true;
    }
    if constexpr (kClassifies) {
      const bvh::Side side = shape.classify(tree.bounds(node));
      inside = side == bvh::Side::Inside;
      if (side != bvh::Side::Outside) return true;
    } else if (shape.enters(tree.bounds(node))) {
      return true;
    }
    detail::pruned(tree, ctx, node, depth, Shape::kPruned);
    return false;
  };
  WalkStack<detail::Entry<Ref>> stack;
  // A tree may have its nodes tested when their parent is entered (kTestChildrenAtParent), so that a pruned
  // node never passes through the stack; otherwise each is tested when popped, as Box2D's walk does.
  const auto push = [&](Ref node, std::uint32_t depth, bool inside) {
    if (kAtParent && !admit(node, depth, inside)) return;
    stack.push({node, depth, inside});
  };
  detail::forEachRoot(tree, [&](Ref root) { push(root, 0, false); });
  while (!stack.empty()) {
    const detail::Entry<Ref> e = stack.pop();
    bool inside = e.inside;
    if (!kAtParent && !admit(e.node, e.depth, inside)) continue;
    if (ctx.tracing() || ctx.detail) detail::entered(tree, ctx, e.node, e.depth, shape);
    if (inside) {
      const bool going = tree.forEachItem(e.node, [&](ItemId id, const Circle& c) {
        ctx.acceptUntested(id);
        return take(id, c);
      });
      if (!going) return;
    } else if (!detail::examine(tree, ctx, e.node, shape, take)) {
      return;
    }
    detail::forEachChild(tree, ctx, e.node, e.depth + 1,
                         [&](Ref child) { push(child, e.depth + 1, inside); });
  }
}

namespace detail {

// What the collecting walks hand each circle found to: appended to ids, handed to a visitor that may stop
// the walk, or appended as a ray hit at the parameter the segment's test left.
inline auto appendTo(std::vector<ItemId>& out) {
  return [&out](ItemId id, const Circle&) {
    out.push_back(id);
    return true;
  };
}
inline auto handTo(const ItemVisitor& visit) {
  return [&visit](ItemId id, const Circle&) { return visit(id); };
}
inline auto appendHitsTo(std::vector<RayHit>& out, const SegmentShape& shape) {
  return [&out, &shape](ItemId id, const Circle&) {
    out.push_back(rayHitAt(shape.segment, id, shape.t));
    return true;
  };
}

}  // namespace detail

/// walk, appending every circle found to `out`.
template <class Tree, class Shape>
void collect(const Tree& tree, QueryContext& ctx, const Shape& shape, std::vector<ItemId>& out) {
  walk(tree, ctx, shape, detail::appendTo(out));
}

/// walk, handing every circle found to `visit` until it returns false, where the walk stops.
template <class Tree, class Shape>
void collect(const Tree& tree, QueryContext& ctx, const Shape& shape, const ItemVisitor& visit) {
  walk(tree, ctx, shape, detail::handTo(visit));
}

/// A run tree walked whole (a tree's view laid out depth first), appending every circle found to `out`.
template <class Shape>
void collectUnder(const RunTree& tree, QueryContext& ctx, const Shape& shape, std::vector<ItemId>& out) {
  auto take = detail::appendTo(out);
  detail::testRunTree(tree, ctx, shape, take);
}

/// A run tree walked whole, handing every circle found to `visit` until it returns false.
template <class Shape>
void collectUnder(const RunTree& tree, QueryContext& ctx, const Shape& shape, const ItemVisitor& visit) {
  auto take = detail::handTo(visit);
  detail::testRunTree(tree, ctx, shape, take);
}

/// Every circle the segment meets under a run tree walked whole, in walk order.
inline void rayCastUnder(const RunTree& tree, QueryContext& ctx, const Segment& segment,
                         std::vector<RayHit>& out) {
  const SegmentShape shape{segment};
  auto take = detail::appendHitsTo(out, shape);
  detail::testRunTree(tree, ctx, shape, take);
}

/// Every circle the segment meets, in walk order.
template <class Tree>
void rayCast(const Tree& tree, QueryContext& ctx, const Segment& segment, std::vector<RayHit>& out) {
  const SegmentShape shape{segment};
  walk(tree, ctx, shape, detail::appendHitsTo(out, shape));
}

/// The first circle the segment meets (rayHitLess): the nodes a parent holds are entered nearest entry
/// first, and a node the segment enters after the best hit so far is pruned (its entry is compared one
/// float step past the hit, so that an equal parameter with a smaller id still wins the tie).
template <class Tree>
std::optional<RayHit> rayCastFirst(const Tree& tree, QueryContext& ctx, const Segment& segment) {
  using Ref = typename Tree::Ref;
  constexpr double kMisses = std::numeric_limits<double>::infinity();
  const SegmentShape shape{segment};
  std::optional<RayHit> best;
  auto take = [&](ItemId id, const Circle&) {
    const RayHit hit = rayHitAt(segment, id, shape.t);
    if (!best || rayHitLess(hit, *best)) best = hit;
    return true;
  };
  detail::examineUnplaced(tree, ctx, shape, take);
  if (tree.empty()) return best;
  // Each node's entry is worked out once, when its parent pushes it, and both orders and clips the walk.
  WalkStack<detail::OrderedEntry<Ref>> stack;
  const auto pushNearestLast = [&](std::uint32_t depth, auto&& forEach) {
    const std::size_t before = stack.size();
    forEach([&](Ref node) {
      double entry = 0.0;
      if (!shape.enters(tree.bounds(node), entry)) entry = kMisses;
      stack.push({node, depth, entry});
    });
    const auto pushed = stack.newest(stack.size() - before);
    std::sort(pushed.begin(), pushed.end(),
              [](const detail::OrderedEntry<Ref>& a, const detail::OrderedEntry<Ref>& b) {
                return a.entry > b.entry;
              });
  };
  pushNearestLast(0, [&](auto&& push) { detail::forEachRoot(tree, push); });
  while (!stack.empty()) {
    const detail::OrderedEntry<Ref> e = stack.pop();
    ++ctx.counters.nodesVisited;
    if (e.entry == kMisses || (best && e.entry > double(std::nextafter(best->t, 2.0f)))) {
      detail::pruned(tree, ctx, e.node, e.depth, "bounds miss the segment, or it enters after the best hit");
      continue;
    }
    if (ctx.tracing() || ctx.detail) detail::entered(tree, ctx, e.node, e.depth, shape);
    detail::examine(tree, ctx, e.node, shape, take);
    pushNearestLast(e.depth + 1,
                    [&](auto&& push) { detail::forEachChild(tree, ctx, e.node, e.depth + 1, push); });
  }
  return best;
}

/// Lower bound of the signed edge distance from p of every circle inside `bounds`: the distance to the box
/// when p lies outside it; none when p lies inside, where a circle may hold p deeply.
inline double edgeDistanceLowerBound(const Box& bounds, Vec2 p) {
  const double dx = std::max({double(bounds.min.x) - p.x, 0.0, double(p.x) - bounds.max.x});
  const double dy = std::max({double(bounds.min.y) - p.y, 0.0, double(p.y) - bounds.max.y});
  if (dx == 0.0 && dy == 0.0) return -std::numeric_limits<double>::infinity();
  return std::sqrt(dx * dx + dy * dy) * (1.0 - 1e-6);
}

/// The same for a bounding circle: its distance from p less its radius (and the margin its tests allow).
inline double edgeDistanceLowerBound(const CircleBound& bounds, Vec2 p) {
  const double dx = bounds.x - p.x, dy = bounds.y - p.y;
  const double reach =
      bounds.r + bvh::pruneMargin(std::fabs(bounds.x) + std::fabs(bounds.y) + bounds.r + bvh::magnitude(p));
  const double d = std::sqrt(dx * dx + dy * dy);
  if (d <= reach) return -std::numeric_limits<double>::infinity();
  return (d - reach) * (1.0 - 1e-6);
}

/// Offers circles to the k nearest kept so far; `hits` is a max-heap by nearestHitLess whose front is the
/// k-th nearest.
class NearestHeap {
 public:
  /// Keeps at most k hits in `hits`, which it clears.
  NearestHeap(std::vector<NearestHit>& hits, std::uint32_t k) : hits_(hits), k_(k) { hits_.clear(); }
  /// Examines one circle at edge distance `distance`; whether it is kept among the k nearest so far.
  bool offer(ItemId id, float distance) {
    const NearestHit hit{id, distance};
    if (hits_.size() == k_ && !nearestHitLess(hit, hits_.front())) return false;
    if (hits_.size() == k_) {
      std::pop_heap(hits_.begin(), hits_.end(), nearestHitLess);
      hits_.pop_back();
    }
    hits_.push_back(hit);
    std::push_heap(hits_.begin(), hits_.end(), nearestHitLess);
    return true;
  }
  /// Whether a node whose circles lie at least `bound` away may still hold one of the k nearest: an
  /// equal distance with a smaller id would win the tie.
  bool mayHoldNearer(double bound) const {
    return hits_.size() < k_ || bound <= double(hits_.front().distance);
  }
  /// Orders the kept hits nearest first.
  void finish() { std::sort_heap(hits_.begin(), hits_.end(), nearestHitLess); }

 private:
  std::vector<NearestHit>& hits_;
  std::uint32_t k_;
};

/// The k nearest circles to p, best first: nodes in order of their bounds' distance, stopping once no node
/// can hold a circle nearer than the k-th found (ties by id included).
template <class Tree>
void nearest(const Tree& tree, QueryContext& ctx, Vec2 p, NearestHeap& heap) {
  using Ref = typename Tree::Ref;
  const auto offer = [&](ItemId id, const Circle& c) {
    ctx.examine(id, heap.offer(id, circleEdgeDistance(c, p)));
    return true;
  };
  if constexpr (requires { tree.forEachUnplaced(offer); }) tree.forEachUnplaced(offer);
  if (tree.empty()) return;
  struct Open {
    double bound;
    Ref node;
    std::uint32_t depth;
    bool operator>(const Open& other) const { return bound > other.bound; }
  };
  std::vector<Open> open;
  auto push = [&](Ref node, std::uint32_t depth) {
    open.push_back({edgeDistanceLowerBound(tree.bounds(node), p), node, depth});
    std::push_heap(open.begin(), open.end(), std::greater<Open>());
  };
  detail::forEachRoot(tree, [&](Ref root) { push(root, 0); });
  while (!open.empty()) {
    std::pop_heap(open.begin(), open.end(), std::greater<Open>());
    const Open next = open.back();
    open.pop_back();
    ++ctx.counters.nodesVisited;
    if (!heap.mayHoldNearer(next.bound)) {
      detail::pruned(tree, ctx, next.node, next.depth, "bounds lie beyond the k-th nearest");
      continue;
    }
    if (ctx.tracing()) ctx.visit(tree.info(next.node, static_cast<int>(next.depth)));
    tree.forEachItem(next.node, offer);
    detail::forEachChild(tree, ctx, next.node, next.depth + 1,
                         [&](Ref child) { push(child, next.depth + 1); });
  }
}

}  // namespace st::tree_walk
