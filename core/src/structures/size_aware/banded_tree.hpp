#pragma once
// The banded trees: the radius tree and the enneatree. In both, a circle's size decides its depth (a node
// holds a band of sizes and sends smaller circles down), its position decides which node of that depth, and
// a node's children exist only while something is stored below them. Both keep their nodes and circles as a
// linear tree (linear_tree.hpp); this base holds everything they share: the frame pass that applies a batch
// of moves, placement (up while the node cannot hold a circle, down while it is small enough), the pruned
// walk behind every query, the pair search, drawing, statistics and the shape checks of validate(). Each
// tree supplies its rule and geometry through a few inline hooks (the base calls them on the derived class
// directly, so the per-circle loops compile as if written out).
//
// Hooks a tree provides (Derived):
//   Cell cell(key)                        the node's region for the rule (and its reach for queries)
//   Cell child(cell, slot)                the region of a child: the same bits as cell(child key)
//   CellBox reach(cell)                   a box holding everything in the node's subtree
//   CellBox drawBox(cell)                 what visitNodes shows
//   bool keeps(cell, depth, circle)       whether the node may hold the circle (placement walks up while not)
//   int chosenDepth(key, depth, circle)   how deep the down() walk from the root follows the node's path for
//                                         the circle (its depth where children do not overlap)
//   int down(key, cell, depth, circle)    the child slot a circle held here goes on to, or -1 if it stays
//   StayTest stayTest(key, cell, depth)   keeps() && chosenDepth() == depth && down() < 0, set up once per
//                                         node for its circles; or, where that set-up walks the node's path,
//   pathWindows()                         an object whose enter(key, shared) gives cell(key) and then
//                                         stayTest(cell, depth) the same test, reusing what it worked out for
//                                         the levels the previous node shares (the frame pass visits nodes in
//                                         key order)
//   int growToCover(circle)               widens the root to hold the circle; the number of doublings
//   void startRoot(region)                the first root, around `region` (centres or bounds, as it needs)
//   CellBox initialRegion(items)          the region a build starts from
//   int levelsAboveFirstRoot()            levels the root has grown since the first root (0 by default)
//   bool entryCells(depth, bounds, fn)    calls fn(key, cell) for every cell at `depth` whose reach may meet
//                                         `bounds` (the query's, grown by its pruning slack); false when
//                                         there are too many (only used while the walks enter below the root)
//   double rootSize()                     for extra()
//   std::string checkItem(key, cell, depth, circle)   the rule, for validate()
//   void extraOwn(out)                    figures of its own
//   const char* pruneText(kind)           the name of the pruning test, per query kind

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spheretest/assert.hpp"
#include "spheretest/spatial_index.hpp"
#include "structures/shared/bvh_pruning.hpp"
#include "structures/shared/linear_tree.hpp"
#include "structures/shared/pair_view.hpp"
#include "structures/shared/result_taker.hpp"
#include "structures/shared/segment_box.hpp"
#include "structures/shared/simd_support.hpp"
#include "structures/shared/tree_walk.hpp"
#include "structures/shared/view_queries.hpp"

namespace st::banded {

/// Deepest node either tree creates, below a root of any size: bounds the per-level statistics.
inline constexpr int kMaxTreeDepth = 64;

/// A node may only be split while its children stay wider than this fraction of its coordinates' magnitude,
/// so that cells stay far wider than the pruning slack below.
inline constexpr double kRelativeWidthFloor = 0x1p-20;

/// A closed axis-aligned box in double.
struct CellBox {
  double minX = 0.0;  ///< left edge
  double minY = 0.0;  ///< bottom edge
  double maxX = 0.0;  ///< right edge
  double maxY = 0.0;  ///< top edge
};

/// The box as drawn (float, rounded to nearest: drawing needs no guarantee).
inline Box toDrawBox(const CellBox& b) {
  return {{static_cast<float>(b.minX), static_cast<float>(b.minY)},
          {static_cast<float>(b.maxX), static_cast<float>(b.maxY)}};
}

/// Largest coordinate magnitude of a box, which sets how finely it may be split.
inline double magnitude(const CellBox& b) {
  return std::max(std::max(std::fabs(b.minX), std::fabs(b.maxX)),
                  std::max(std::fabs(b.minY), std::fabs(b.maxY)));
}

// ---------------------------------------------------------------------------------------------------------
// Conservative pruning tests
// ---------------------------------------------------------------------------------------------------------
// The predicates round at about 1e-16 of the magnitudes involved, and an item's fit inside its node is
// decided in double too. Every test below therefore grows the node box by 1e-8 of the magnitudes in play:
// far above any rounding, far below the narrowest cell (kRelativeWidthFloor), so pruning stays sharp.

/// Slack of a test between box `b` and a query whose coordinates and size sum to `queryScale`. A box inside
/// `b` gets no more than this, so the slack worked out for a root's box covers every node below it.
inline double pruneSlack(const CellBox& b, double queryScale) {
  return 1e-12 * (2.0 * magnitude(b) + queryScale) + 1e-30;
}

/// Sum of a point's coordinate magnitudes (a query's scale for pruneSlack).
inline double scaleOf(Vec2 p) {
  return std::fabs(p.x) + std::fabs(p.y);
}
/// A circle's scale.
inline double scaleOf(const Circle& c) {
  return scaleOf(c.center) + c.radius;
}
/// A box's scale.
inline double scaleOf(const Box& b) {
  return scaleOf(b.min) + scaleOf(b.max);
}
/// A segment's scale.
inline double scaleOf(const Segment& s) {
  return scaleOf(s.start) + scaleOf(s.end);
}

/// The box grown by `s` on every side.
inline CellBox grown(const CellBox& b, double s) {
  return {b.minX - s, b.minY - s, b.maxX + s, b.maxY + s};
}

/// Whether something inside `b` may contain the point, with slack `s`.
inline bool mayContain(const CellBox& b, Vec2 p, double s) {
  return b.minX - s <= p.x && p.x <= b.maxX + s && b.minY - s <= p.y && p.y <= b.maxY + s;
}

/// Whether something inside `b` may overlap the circle, with slack `s`.
inline bool mayOverlap(const CellBox& b, const Circle& c, double s) {
  const double cx = c.center.x, cy = c.center.y, r = c.radius;
  const double reach = r + s;
  const double dx = cx < b.minX ? b.minX - cx : (cx > b.maxX ? cx - b.maxX : 0.0);
  const double dy = cy < b.minY ? b.minY - cy : (cy > b.maxY ? cy - b.maxY : 0.0);
  return dx * dx + dy * dy <= reach * reach;
}

/// Whether something inside `b` may overlap the float box, with slack `s`.
inline bool mayOverlap(const CellBox& b, const Box& q, double s) {
  return b.minX - s <= q.max.x && q.min.x <= b.maxX + s && b.minY - s <= q.max.y && q.min.y <= b.maxY + s;
}

/// Whether the segment may meet something inside `b` (slab test against the box grown by slack `s`).
inline bool mayHit(const CellBox& b, const Segment& seg, double s) {
  return segmentMeetsBox(seg, b.minX - s, b.minY - s, b.maxX + s, b.maxY + s);
}

// ---------------------------------------------------------------------------------------------------------
// BandedTree
// ---------------------------------------------------------------------------------------------------------

/// How far ahead the frame pass fetches circles from the item table (ids are spread over space, so each is
/// a cache miss).
inline constexpr std::uint32_t kGatherAhead = 64;

/// Most cells a bounded walk looks up on the level it enters at; a larger query walks from the root.
inline constexpr std::size_t kMaxEntryCells = 16;

/// The shared body of the radius tree and the enneatree; `Bits` is the width of one child slot in a key.
template <class Derived, int Bits>
class BandedTree : public SpatialIndex {
 public:
  using Codec = linear::KeyCodec<Bits>;  ///< the trees' node keys

  void visitNodes(const NodeVisitor& visitor) const override {
    if (!hasRoot_) return;
    for (std::uint32_t i = 0; i < dir_.size(); ++i) visitor(info(i, self().cell(dir_[i].key)));
  }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    if (!hasRoot_) return;
    const std::uint64_t key = items_.key(items_.slotOf(id));
    for (int d = 0; d <= Codec::depth(key); ++d) {
      const std::uint64_t k = Codec::ancestor(key, d);
      visitor(info(dir_.find(k), self().cell(k)));
    }
  }

  IndexStats stats() const override {
    int deepest = 0;
    for (std::uint32_t i = 0; i < dir_.size(); ++i) deepest = std::max(deepest, Codec::depth(dir_[i].key));
    const std::size_t bytes = items_.bytes() + dir_.bytes() + moves_.capacity() * sizeof(linear::Move) +
                              removed_.capacity() * 4 + view_.bytes() + pair_view::scratchBytes(walk_) +
                              tableBytes();
    return {hasRoot_ ? std::size_t(dir_.size()) : 0u, deepest, bytes};
  }

  void extra(ExtraCounters& out) const override {
    self().extraOwn(out);
    out.emplace_back("root_growths", double(rootGrowths_));
    std::size_t belowBand = 0;
    if (hasRoot_) {
      for (std::uint32_t i = 0; i < dir_.size(); ++i) {
        const auto cell = self().cell(dir_[i].key);
        const int depth = Codec::depth(dir_[i].key);
        for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
          if (self().belowBand(cell, depth, items_.circle(s))) ++belowBand;
        }
      }
    }
    out.emplace_back("items_at_depth_floor", double(belowBand));
    out.emplace_back("updates", double(updates_));
    if (updates_ > 0) {
      out.emplace_back("update_same_node_share", double(updatesSameNode_) / double(updates_));
      out.emplace_back("update_nodes_walked_mean", double(updateSteps_) / double(updates_));
    }
  }

 protected:
  /// An empty tree named `name`.
  explicit BandedTree(std::string name) : SpatialIndex(std::move(name)) {
    addParam(pair_view::viewQueriesParam());
  }

  void onParamChanged(std::string_view key) override {
    // How queries read the tree changes nothing in it.
    if (key == "view_queries")
      viewQueries_.enable(param("view_queries") != 0.0);
    else
      SpatialIndex::onParamChanged(key);
  }

  // -- mutation -------------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    self().startRoot(self().initialRegion(items));
    hasRoot_ = true;
    for (const Item& item : items) rootGrowths_ += std::uint64_t(self().growToCover(item.circle));
    placeAll();
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (!hasRoot_) {
      const Box region = worldHint() ? *worldHint() : boundsOf(c);
      self().startRoot({region.min.x, region.min.y, region.max.x, region.max.y});
      hasRoot_ = true;
    }
    if (const int growths = self().growToCover(c); growths > 0) {
      rootGrowths_ += std::uint64_t(growths);
      placeAll();  // this one included
      return;
    }
    std::uint32_t steps = 0;
    moves_.push_back({place(Codec::root(), c, steps), id, kNoIndex});
    commit();
  }

  void doUpdate(ItemId id, const Circle&, const Circle&) override {
    const ItemId ids[1] = {id};
    moveItems(ids);
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle>) override { moveItems(ids); }

  bool batchNeedsOldCircles(std::size_t) const override { return false; }

  void doRemove(ItemId id, const Circle&) override {
    removed_.push_back(items_.slotOf(id));
    commit();
  }

  void doClear() override {
    items_.clear();
    dir_ = {};
    entryDepth_ = 0;
    hasRoot_ = false;
    rootGrowths_ = updates_ = updatesSameNode_ = updateSteps_ = 0;
    self().onCleared();
  }

  // -- queries --------------------------------------------------------------------------------------------

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override {
    if (!fromView(tree_walk::PointShape{p}, out, ctx)) pointWalk(p, ctx, ResultTaker(out));
  }
  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override {
    if (!fromView(tree_walk::CircleShape(query), out, ctx)) circleWalk(query, ctx, ResultTaker(out));
  }
  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override {
    if (!fromView(tree_walk::BoxShape(box), out, ctx)) boxWalk(box, ctx, ResultTaker(out));
  }
  void doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const override {
    if (!fromView(tree_walk::PointShape{p}, visit, ctx)) pointWalk(p, ctx, ResultTaker(visit));
  }
  void doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const override {
    if (!fromView(tree_walk::CircleShape(query), visit, ctx)) circleWalk(query, ctx, ResultTaker(visit));
  }
  void doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const override {
    if (!fromView(tree_walk::BoxShape(box), visit, ctx)) boxWalk(box, ctx, ResultTaker(visit));
  }
  // Answers from the pair search's view while it is current (see view_queries.hpp); false otherwise.
  template <class Shape, class Out>
  bool fromView(const Shape& shape, Out& out, QueryContext& ctx) const {
    return viewQueries_.collect(view_, contentVersion(), shape, out, ctx);
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    if (viewQueries_.rayCast(view_, contentVersion(), segment, out, ctx)) return;
    const double slack = querySlack(scaleOf(segment));
    walk(
        ctx, [&](const CellBox& reach) { return mayHit(reach, segment, slack); }, QueryShape::Segment,
        grown({std::fmin(segment.start.x, segment.end.x), std::fmin(segment.start.y, segment.end.y),
               std::fmax(segment.start.x, segment.end.x), std::fmax(segment.start.y, segment.end.y)},
              slack),
        [&](std::uint32_t i, int) {
          for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
            float t = 0.0f;
            const ItemId id = items_.id(s);
            if (ctx.examine(id, segmentHitsCircle(segment, items_.circle(s), t)))
              out.push_back(rayHitAt(segment, id, t));
          }
          return true;
        });
  }

  // The cone prunes the walk itself: a node whose reach lies wholly outside it is skipped with its subtree.
  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override {
    visibleNow.clear();
    const bvh::ConeClassifier classifier(cone);
    walk(
        ctx,
        [&](const CellBox& reach) {
          return classifier.classifyBox(reach.minX, reach.minY, reach.maxX, reach.maxY) != bvh::Side::Outside;
        },
        QueryShape::Cone, std::nullopt,
        [&](std::uint32_t i, int) {
          return testItems(
              ctx, i, [&](const Circle& c) { return circleOverlapsCone(c, cone); }, ResultTaker(visibleNow));
        });
    std::sort(visibleNow.begin(), visibleNow.end());
  }

  void doFindPairs(std::vector<Pair>& out) override {
    if (!hasRoot_) return;
    counters_.nodesVisited += dir_.fillView(view_, items_);
    viewQueries_.filled(contentVersion());
    pair_view::findPairsInto(view_, out, scheduler(), walk_, counters_);
  }

  // -- validation -----------------------------------------------------------------------------------------

  std::string doValidate() const override {
    const std::string who = name() + ": ";
    if (!hasRoot_) return size() == 0 ? std::string() : who + "items present but no root";
    if (std::string problem = items_.check(*this); !problem.empty()) return who + problem;
    if (dir_.size() == 0 || dir_[0].key != Codec::root() || dir_[0].begin != 0)
      return who + "the directory does not start at the root";
    for (std::uint32_t i = 0; i < dir_.size(); ++i) {
      const std::string where = who + "node " + std::to_string(i) + ": ";
      const std::uint32_t end = dir_.subtreeEnd(i);
      if (dir_[i].next <= i || dir_[i].next > dir_.size()) return where + "bad subtree end";
      if (i > 0 && dir_[i].begin == end) return where + "empty and childless but not removed";
      if (i > 0 && Codec::depth(dir_[i].key) > 0 &&
          dir_.find(Codec::ancestor(dir_[i].key, Codec::depth(dir_[i].key) - 1)) >= i)
        return where + "listed before its parent";
      for (std::uint32_t s = dir_[i].begin; s < end; ++s) {
        if (!Codec::covers(dir_[i].key, items_.key(s))) return where + "subtree range holds a foreign item";
      }
      const auto cell = self().cell(dir_[i].key);
      const int depth = Codec::depth(dir_[i].key);
      for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
        if (items_.key(s) != dir_[i].key) return where + "own range holds an item of another node";
        if (std::string problem = self().checkItem(dir_[i].key, cell, depth, items_.circle(s));
            !problem.empty())
          return where + "item " + std::to_string(items_.id(s)) + " " + problem;
      }
    }
    return {};
  }

  // -- for the trees --------------------------------------------------------------------------------------

  /// Called by doClear() after the shared state is reset.
  void onCleared() {}
  /// Levels the root has grown above the first root: none unless the tree says so.
  int levelsAboveFirstRoot() const { return 0; }
  /// The cells a walk entering at `depth` starts from (never called while the walks start at the root).
  template <class Fn>
  bool entryCells(int, const CellBox&, Fn&&) const {
    return false;
  }
  /// Whether a circle sits below its node's band because the node may not split (the depth floor).
  template <class Cell>
  bool belowBand(const Cell&, int, const Circle&) const {
    return false;
  }

  /// The items, sorted by node.
  const linear::SortedItems& sortedItems() const { return items_; }
  /// The live nodes in depth-first order.
  const linear::Directory& directory() const { return dir_; }
  /// Whether a root has been placed since the last clear.
  bool hasRoot() const { return hasRoot_; }
  /// Depth the bounded walks enter at (0: the root).
  int entryDepth() const { return entryDepth_; }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  Derived& self() { return static_cast<Derived&>(*this); }

  template <class Cell>
  NodeInfo info(std::uint32_t i, const Cell& cell) const {
    NodeInfo out;
    out.shape = NodeShape::Box;
    out.box = toDrawBox(self().drawBox(cell));
    out.depth = Codec::depth(dir_[i].key);
    out.itemCount = dir_.ownEnd(i) - dir_[i].begin;
    return out;
  }

  // The pruning slack of a query of `scale` for every node: the root's reach holds every node's, so its
  // slack is the largest any node would get.
  double querySlack(double scale) const {
    return hasRoot_ ? pruneSlack(self().reach(self().cell(Codec::root())), scale) : 0.0;
  }

  // The pruned walk behind every query: the directory in order, each node's region worked out from its
  // parent's (the last node seen one level up), a skipped node's whole subtree jumped over. Every node whose
  // reach is tested counts as visited, so a trace's visited and pruned nodes add up to the counter.
  //
  // While the root has grown above the first root and nothing is held above that level (entryDepth_ > 0),
  // the levels above only lead to the first root's cells: a query with `bounds` then looks up the few cells
  // of that level whose reach meets it and walks their subtrees alone. A cell found there that holds
  // nothing and has one child only leads to that child in turn (whose reach lies within its own), so the
  // walk starts at the end of such a chain. The levels a growth added cost the query nothing, and a remote
  // cluster's branch at most the test of the node where it first holds something or divides.
  template <class Reaches, class Visit>
  void walk(QueryContext& ctx, Reaches&& reaches, QueryShape kind, std::optional<CellBox> bounds,
            Visit&& visit) const {
    if (!hasRoot_) return;
    if (entryDepth_ > 0 && bounds) {
      std::uint32_t entries[kMaxEntryCells];
      std::size_t found = 0;
      const bool few = self().entryCells(entryDepth_, *bounds, [&](std::uint64_t key, const auto& cell) {
        if (!reaches(self().reach(cell))) return;
        if (const std::uint32_t i = dir_.find(key); i != kNoIndex) entries[found++] = i;
      });
      if (few) {
        std::sort(entries, entries + found);  // depth-first order, as the walk from the root
        for (std::size_t e = 0; e < found; ++e) {
          std::uint32_t top = entries[e];
          const std::uint32_t end = dir_[top].next;
          while (top + 1 < end && dir_[top + 1].begin == dir_[top].begin && dir_[top + 1].next == end) ++top;
          if (!walkRange(ctx, top, end, reaches, kind, visit)) return;
        }
        return;
      }
    }
    walkRange(ctx, 0, dir_.size(), reaches, kind, visit);
  }

  // The walk over the subtree listed at [begin, end) of the directory, whose first node is its top; false
  // when `visit` stopped it.
  template <class Reaches, class Visit>
  bool walkRange(QueryContext& ctx, std::uint32_t begin, std::uint32_t end, Reaches& reaches, QueryShape kind,
                 Visit& visit) const {
    using Cell = decltype(self().cell(Codec::root()));
    // The cells of the open path, each written before it is read (Cell has no member initialisers, so that
    // a query does not start by clearing a few kilobytes of stack).
    Cell cells[linear::Directory::kMaxWalkDepth];
    for (std::uint32_t i = begin; i < end;) {
      const std::uint64_t key = dir_[i].key;
      // The node after this one's subtree is the next one read whenever this one is pruned, and it lies
      // beyond the subtree, out of the cache: its fetch overlaps this node's test.
      if (dir_[i].next < end) simd::prefetch(&dir_[dir_[i].next]);
      const int depth = Codec::depth(key);
      cells[depth] = i == begin ? self().cell(key) : self().child(cells[depth - 1], Codec::slot(key));
      const Cell& cell = cells[depth];
      ++ctx.counters.nodesVisited;
      if (!reaches(self().reach(cell))) {
        if (ctx.tracing()) ctx.prune(info(i, cell), self().pruneText(kind));
        i = dir_[i].next;
        continue;
      }
      if (ctx.tracing()) ctx.visit(info(i, cell));
      if (!visit(i, depth)) return false;
      ++i;
    }
    return true;
  }

  // Tests the circles stored in node i, handing each hit to `take`; false when `take` stopped the walk.
  template <class Predicate, class Take>
  bool testItems(QueryContext& ctx, std::uint32_t i, Predicate&& accepts, Take&& take) const {
    for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
      const ItemId id = items_.id(s);
      if (ctx.examine(id, accepts(items_.circle(s))) && !take(id)) return false;
    }
    return true;
  }

  // The point, circle and box walks, each handing its hits to `take` until it returns false.
  template <class Take>
  void pointWalk(Vec2 p, QueryContext& ctx, Take&& take) const {
    const double slack = querySlack(scaleOf(p));
    QueryDetail* detail = ctx.detail;
    walk(
        ctx, [&](const CellBox& reach) { return mayContain(reach, p, slack); }, QueryShape::Point,
        grown({p.x, p.y, p.x, p.y}, slack),
        [&](std::uint32_t i, int depth) {
          if (detail && depth < QueryDetail::kDepthSlots) {
            ++detail->nodesByDepth[std::size_t(depth)];
            detail->nodeDepthsUsed = std::max(detail->nodeDepthsUsed, depth + 1);
          }
          return testItems(
              ctx, i, [&](const Circle& c) { return circleContainsPoint(c, p); }, take);
        });
  }

  template <class Take>
  void circleWalk(const Circle& query, QueryContext& ctx, Take&& take) const {
    const double slack = querySlack(scaleOf(query));
    walk(
        ctx, [&](const CellBox& reach) { return mayOverlap(reach, query, slack); }, QueryShape::Circle,
        grown({query.center.x, query.center.y, query.center.x, query.center.y}, double(query.radius) + slack),
        [&](std::uint32_t i, int) {
          return testItems(
              ctx, i, [&](const Circle& c) { return circlesOverlap(c, query); }, take);
        });
  }

  template <class Take>
  void boxWalk(const Box& box, QueryContext& ctx, Take&& take) const {
    const double slack = querySlack(scaleOf(box));
    walk(
        ctx, [&](const CellBox& reach) { return mayOverlap(reach, box, slack); }, QueryShape::Box,
        grown({box.min.x, box.min.y, box.max.x, box.max.y}, slack),
        [&](std::uint32_t i, int) {
          return testItems(
              ctx, i, [&](const Circle& c) { return circleOverlapsBox(c, box); }, take);
        });
  }

  // The node a circle belongs in, starting from the node `from`: up while the node cannot hold it, then
  // down as the rule sends it (the source documents' insertion from an arbitrary node). The root holds it.
  std::uint64_t place(std::uint64_t from, const Circle& c, std::uint32_t& steps) const {
    std::uint64_t key = from;
    int depth = Codec::depth(key);
    auto cell = self().cell(key);
    while (depth > 0 && !self().keeps(cell, depth, c)) {
      key = Codec::ancestor(key, --depth);
      cell = self().cell(key);
      ++steps;
    }
    // Where children overlap, the walk from the root may leave this path above here: go back up to where
    // it still agrees.
    if (const int agreed = self().chosenDepth(key, depth, c); agreed < depth) {
      steps += std::uint32_t(depth - agreed);
      depth = agreed;
      key = Codec::ancestor(key, depth);
      cell = self().cell(key);
    }
    for (int slot = self().down(key, cell, depth, c); slot >= 0; slot = self().down(key, cell, depth, c)) {
      key = Codec::child(key, unsigned(slot));
      cell = self().cell(key);
      ++depth;
      ++steps;
    }
    return key;
  }

  // The default pathWindows(): each node's cell and stay test set up on their own.
  struct NodeByNode {
    const Derived& tree;
    std::uint64_t key = 0;
    auto enter(std::uint64_t nodeKey, int) {
      key = nodeKey;
      return tree.cell(key);
    }
    template <class Cell>
    auto stayTest(const Cell& cell, int depth) const {
      return tree.stayTest(key, cell, depth);
    }
  };
  NodeByNode pathWindows() const { return {self()}; }

  // Applies the moves of `ids`, whose new circles are in the table. A large batch rewrites every circle in
  // one forward pass over the items, node by node; a small one looks each item up. Circles their node still
  // holds stay where they are (the in-place mutation of the sources); the others are placed from their old
  // node and merged into their new ones together.
  void moveItems(std::span<const ItemId> ids) {
    updates_ += ids.size();
    if (!hasRoot_) return;
    std::uint64_t growths = 0;
    for (const ItemId id : ids) growths += std::uint64_t(self().growToCover(circle(id)));
    if (growths > 0) {
      rootGrowths_ += growths;
      placeAll();  // these moves included
      return;
    }
    std::uint64_t stayed = 0;
    if (ids.size() * 8 >= size()) {
      const ItemId* slotIds = items_.ids();
      float* xs = items_.xs();
      float* ys = items_.ys();
      float* rs = items_.rs();
      const std::uint32_t count = items_.size();
      auto paths = self().pathWindows();
      // Each node's run of items, `shared`: the depth down to which its path agrees with the previous one's.
      const auto visitNode = [&](std::uint32_t begin, std::uint32_t end, std::uint64_t key, int shared) {
        const int depth = Codec::depth(key);
        const auto cell = paths.enter(key, shared);
        const auto stays = paths.stayTest(cell, depth);
        for (std::uint32_t s = begin; s < end; ++s) {
          if (s + kGatherAhead < count) simd::prefetch(&circle(slotIds[s + kGatherAhead]));
          const Circle& c = circle(slotIds[s]);
          xs[s] = c.center.x;
          ys[s] = c.center.y;
          rs[s] = c.radius;
          if (stays(c)) continue;
          std::uint32_t steps = 0;
          moves_.push_back({place(key, c, steps), slotIds[s], s});
          updateSteps_ += steps;
        }
      };
      linear::forEachRun<Codec>(items_, visitNode);
      // Items that did not move count as staying in place.
      stayed = ids.size() - std::min<std::uint64_t>(ids.size(), moves_.size());
    } else {
      auto paths = self().pathWindows();
      for (const ItemId id : ids) {
        const std::uint32_t s = items_.slotOf(id);
        const Circle c = circle(id);
        items_.setCircle(s, c);
        const std::uint64_t key = items_.key(s);
        const int depth = Codec::depth(key);
        const auto cell = paths.enter(key, 0);
        if (paths.stayTest(cell, depth)(c)) {
          ++stayed;
          continue;
        }
        std::uint32_t steps = 0;
        moves_.push_back({place(key, c, steps), id, s});
        updateSteps_ += steps;
      }
    }
    // A move may end in the node it started from (the walk up and down found it again).
    std::erase_if(moves_, [&](const linear::Move& m) {
      const bool same = items_.key(m.slot) == m.key;
      stayed += same ? 1 : 0;
      return same;
    });
    updatesSameNode_ += stayed;
    commit();
  }

  // Applies the pending moves and removals and rebuilds the directory.
  void commit() {
    if (moves_.empty() && removed_.empty()) return;
    items_.refile(moves_, removed_, *this);
    rebuildDirectory();
  }

  // Rebuilds the directory from the items and works out where the walks enter.
  void rebuildDirectory() {
    dir_.template rebuild<Codec>(items_);
    entryDepth_ = std::min(self().levelsAboveFirstRoot(), dir_.shallowestItemDepth());
  }

  // Places every item of the table from the root (after a build or a new root).
  void placeAll() {
    std::vector<linear::Move> all;
    all.reserve(size());
    forEachItem([&](ItemId id, const Circle& c) {
      ST_ASSERT(self().keeps(self().cell(Codec::root()), 0, c),
                "the root covers every item before they are placed");
      std::uint32_t steps = 0;
      all.push_back({place(Codec::root(), c, steps), id, kNoIndex});
    });
    items_.assign(all, *this);
    rebuildDirectory();
  }

  bool hasRoot_ = false;
  linear::SortedItems items_;
  linear::Directory dir_;
  int entryDepth_ = 0;  // depth the bounded walks enter at (0: the root)
  std::vector<linear::Move> moves_;
  std::vector<std::uint32_t> removed_;
  pair_view::PairView view_;
  pair_view::ViewQueries viewQueries_;        // queries answered from view_ while it is current
  std::vector<pair_view::WalkScratch> walk_;  // one per worker
  std::uint64_t rootGrowths_ = 0;
  std::uint64_t updates_ = 0;
  std::uint64_t updatesSameNode_ = 0;
  std::uint64_t updateSteps_ = 0;
};

}  // namespace st::banded
