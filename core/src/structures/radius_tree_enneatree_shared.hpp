#pragma once
// Machinery shared by the radius tree and the enneatree. Both are trees of size bands: a node's depth
// follows from the sizes of the circles it holds, and every node has a box (the radius tree's cell widened
// by its largest radius, the enneatree's own region) that contains everything stored in its subtree. So
// both answer queries with the same pruned top-down walk and find pairs with the same neighbour pass, and
// both keep their items in intrusive doubly linked lists threaded through one per-id array.
//
// Node boxes are kept in double: in both trees a node's corner is its root's corner plus a sum of
// power-of-two fractions of the root's width, which double holds exactly at every depth the trees allow.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pair_view.hpp"
#include "spheretest/geometry.hpp"
#include "spheretest/spatial_index.hpp"

namespace st::banded {

/// Marks an absent node, item or child.
inline constexpr std::uint32_t kNone = 0xffffffffu;

/// Deepest node either tree creates, below a root of any size: bounds the per-level statistics.
inline constexpr int kMaxTreeDepth = 192;

/// A node may only be split while its children stay wider than this fraction of its coordinates' magnitude,
/// so that corners stay exact in double and cells stay far wider than the pruning slack below.
inline constexpr double kRelativeWidthFloor = 0x1p-20;

/// One item's place in its node's intrusive list; indexed by item id, absent ids have node == kNone.
struct ItemLink {
  std::uint32_t node = kNone;  ///< node holding the item
  std::uint32_t prev = kNone;  ///< previous item id in the node's list
  std::uint32_t next = kNone;  ///< next item id in the node's list
};

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

/// Slack of a test between box `b` and a query whose coordinates and size sum to `queryScale`. It grows with
/// the box (a box inside another never gets more slack), which keeps the pair pass's neighbour search exact.
inline double pruneSlack(const CellBox& b, double queryScale) {
  return 1e-8 * (2.0 * magnitude(b) + queryScale) + 1e-30;
}

/// Whether something inside `b` may contain the point.
inline bool mayContain(const CellBox& b, Vec2 p) {
  const double s = pruneSlack(b, std::fabs(p.x) + std::fabs(p.y));
  return b.minX - s <= p.x && p.x <= b.maxX + s && b.minY - s <= p.y && p.y <= b.maxY + s;
}

/// Whether something inside `b` may overlap the circle.
inline bool mayOverlap(const CellBox& b, const Circle& c) {
  const double cx = c.center.x, cy = c.center.y, r = c.radius;
  const double reach = r + pruneSlack(b, std::fabs(cx) + std::fabs(cy) + r);
  const double dx = cx < b.minX ? b.minX - cx : (cx > b.maxX ? cx - b.maxX : 0.0);
  const double dy = cy < b.minY ? b.minY - cy : (cy > b.maxY ? cy - b.maxY : 0.0);
  return dx * dx + dy * dy <= reach * reach;
}

/// Whether something inside `b` may overlap the float box.
inline bool mayOverlap(const CellBox& b, const Box& q) {
  const double s =
      pruneSlack(b, std::fabs(q.min.x) + std::fabs(q.min.y) + std::fabs(q.max.x) + std::fabs(q.max.y));
  return b.minX - s <= q.max.x && q.min.x <= b.maxX + s && b.minY - s <= q.max.y && q.min.y <= b.maxY + s;
}

/// Whether two boxes may hold overlapping items.
inline bool mayOverlap(const CellBox& a, const CellBox& b) {
  const double s = pruneSlack(a, 2.0 * magnitude(b));
  return a.minX - s <= b.maxX && b.minX <= a.maxX + s && a.minY - s <= b.maxY && b.minY <= a.maxY + s;
}

/// Whether the segment may meet something inside `b` (slab test against the box grown by the slack).
inline bool mayHit(const CellBox& b, const Segment& seg) {
  const double s = pruneSlack(
      b, std::fabs(seg.start.x) + std::fabs(seg.start.y) + std::fabs(seg.end.x) + std::fabs(seg.end.y));
  const double start[2] = {seg.start.x, seg.start.y};
  const double delta[2] = {double(seg.end.x) - double(seg.start.x), double(seg.end.y) - double(seg.start.y)};
  const double lo[2] = {b.minX - s, b.minY - s};
  const double hi[2] = {b.maxX + s, b.maxY + s};
  double enter = 0.0, leave = 1.0;
  for (int axis = 0; axis < 2; ++axis) {
    if (delta[axis] == 0.0) {
      if (start[axis] < lo[axis] || start[axis] > hi[axis]) return false;
      continue;
    }
    double t0 = (lo[axis] - start[axis]) / delta[axis];
    double t1 = (hi[axis] - start[axis]) / delta[axis];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
    if (enter > leave) return false;
  }
  return true;
}

/// Indices of `items` in Z-order of their centres over `frame` (clamped to it). Built in this order, a tree
/// allocates its nodes roughly depth first, which every later walk over the pool rewards.
inline std::vector<std::uint32_t> zOrder(std::span<const Item> items, const CellBox& frame) {
  const auto spread = [](std::uint64_t v) {
    v = (v | (v << 16)) & 0x0000ffff0000ffffull;
    v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
    v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
    v = (v | (v << 2)) & 0x3333333333333333ull;
    return (v | (v << 1)) & 0x5555555555555555ull;
  };
  const double side = std::max(frame.maxX - frame.minX, frame.maxY - frame.minY);
  const double scale = side > 0.0 ? 65535.0 / side : 0.0;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const double qx = std::clamp((items[i].circle.center.x - frame.minX) * scale, 0.0, 65535.0);
    const double qy = std::clamp((items[i].circle.center.y - frame.minY) * scale, 0.0, 65535.0);
    keyed[i] = {spread(std::uint64_t(qx)) | (spread(std::uint64_t(qy)) << 1), std::uint32_t(i)};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::uint32_t> order(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) order[i] = keyed[i].second;
  return order;
}

// ---------------------------------------------------------------------------------------------------------
// Intrusive item lists
// ---------------------------------------------------------------------------------------------------------

/// Pushes `id` at the front of the list headed by `head`, recording `node` as its home.
inline void linkItem(std::vector<ItemLink>& links, std::uint32_t& head, std::uint32_t node, ItemId id) {
  links[id] = {node, kNone, head};
  if (head != kNone) links[head].prev = id;
  head = id;
}

/// Takes `id` out of the list headed by `head` in O(1); the link is left pointing nowhere.
inline void unlinkItem(std::vector<ItemLink>& links, std::uint32_t& head, ItemId id) {
  const ItemLink link = links[id];
  if (link.prev != kNone)
    links[link.prev].next = link.next;
  else
    head = link.next;
  if (link.next != kNone) links[link.next].prev = link.prev;
  links[id] = {};
}

// ---------------------------------------------------------------------------------------------------------
// The pruned top-down walk behind every query
// ---------------------------------------------------------------------------------------------------------

/// Node and depth of a pending step of a walk.
struct WalkStep {
  std::uint32_t node = kNone;  ///< node to enter
  std::uint32_t depth = 0;     ///< its depth, 0 at the root
};

/// Where a node's children lie: along each axis, child c spans [origin + c * step, origin + c * step +
/// length]; `magnitude` is that of the node's own box, which contains every child's.
struct ChildLayout {
  double originX = 0.0;    ///< start of child 0 along x
  double originY = 0.0;    ///< start of child 0 along y
  double step = 0.0;       ///< offset between consecutive children of an axis
  double length = 0.0;     ///< extent of a child along an axis
  double magnitude = 0.0;  ///< coordinate magnitude of the node's box
};

/// A query as the walk sees it: its bounds, which give a per-axis first cut, and the size of its numbers.
struct QueryExtent {
  double minX = 0.0;   ///< left bound
  double minY = 0.0;   ///< bottom bound
  double maxX = 0.0;   ///< right bound
  double maxY = 0.0;   ///< top bound
  double scale = 0.0;  ///< sum of the query's coordinate magnitudes and size, for the slack
};

/// Extent of a point query.
inline QueryExtent extentOf(Vec2 p) {
  return {p.x, p.y, p.x, p.y, std::fabs(p.x) + std::fabs(p.y)};
}
/// Extent of a circle query.
inline QueryExtent extentOf(const Circle& c) {
  const double x = c.center.x, y = c.center.y, r = c.radius;
  return {x - r, y - r, x + r, y + r, std::fabs(x) + std::fabs(y) + r};
}
/// Extent of a box query.
inline QueryExtent extentOf(const Box& b) {
  return {b.min.x, b.min.y, b.max.x, b.max.y,
          std::fabs(b.min.x) + std::fabs(b.min.y) + std::fabs(b.max.x) + std::fabs(b.max.y)};
}
/// Extent of a segment query.
inline QueryExtent extentOf(const Segment& s) {
  return {std::min(s.start.x, s.end.x), std::min(s.start.y, s.end.y), std::max(s.start.x, s.end.x),
          std::max(s.start.y, s.end.y),
          std::fabs(s.start.x) + std::fabs(s.start.y) + std::fabs(s.end.x) + std::fabs(s.end.y)};
}

/// Bit c set for each of the `count` child intervals of one axis that [lo, hi] may meet.
inline std::uint32_t axisChildren(double lo, double hi, double origin, double step, double length,
                                  double slack, int count) {
  std::uint32_t bits = 0;
  for (int c = 0; c < count; ++c) {
    const double start = origin + c * step;
    bits |= std::uint32_t(start - slack <= hi && lo <= start + length + slack) << c;
  }
  return bits;
}

/// Enters every node the query may reach, depth first, with an explicit stack. The children of a node
/// are chosen per axis first (as the source of the radius tree states its rule: a child is visited when the
/// query lies within its interval, per axis) and then by `refine(childBox)` for shapes that are not boxes;
/// child geometry comes from the parent, so a child that is skipped is never loaded. `Geometry` supplies
/// kPerAxis, box(node), layout(node) and childBox(node, slot). `visit(node, depth)` handles an entered
/// node's items; `prune(node, depth)` hears of every skipped node, whose subtree is skipped with it.
template <class Geometry, class NodeT, class Refine, class Visit, class Prune>
void walkPruned(const std::vector<NodeT>& nodes, std::uint32_t root, std::vector<WalkStep>& stack,
                const QueryExtent& query, Refine&& refine, Visit&& visit, Prune&& prune) {
  constexpr int kPerAxis = Geometry::kPerAxis;
  if (root == kNone) return;
  const CellBox rootBox = Geometry::box(nodes[root]);
  const double rootSlack = pruneSlack(rootBox, query.scale);
  if (!(rootBox.minX - rootSlack <= query.maxX && query.minX <= rootBox.maxX + rootSlack &&
        rootBox.minY - rootSlack <= query.maxY && query.minY <= rootBox.maxY + rootSlack &&
        refine(rootBox))) {
    prune(root, 0u);
    return;
  }
  // The stack is used by index: it only grows when full, so the hot loop does no bookkeeping.
  if (stack.size() < 64) stack.resize(64);
  std::size_t pending = 0;
  stack[pending++] = {root, 0};
  while (pending > 0) {
    const WalkStep step = stack[--pending];
    visit(step.node, step.depth);
    if (pending + kPerAxis * kPerAxis > stack.size()) stack.resize(stack.size() * 2);
    const NodeT& node = nodes[step.node];
    const ChildLayout l = Geometry::layout(node);
    const double slack = 1e-8 * (2.0 * l.magnitude + query.scale) + 1e-30;
    const std::uint32_t xs =
        axisChildren(query.minX, query.maxX, l.originX, l.step, l.length, slack, kPerAxis);
    const std::uint32_t ys =
        axisChildren(query.minY, query.maxY, l.originY, l.step, l.length, slack, kPerAxis);
    for (int slot = 0; slot < kPerAxis * kPerAxis; ++slot) {
      const std::uint32_t child = node.child[slot];
      if (child == kNone) continue;
      const bool reached = ((xs >> (slot % kPerAxis)) & (ys >> (slot / kPerAxis)) & 1u) != 0 &&
                           refine(Geometry::childBox(node, slot));
      if (reached)
        stack[pending++] = {child, step.depth + 1};
      else
        prune(child, step.depth + 1);
    }
  }
}

/// No refinement beyond the per-axis cut: exact for points and boxes.
inline bool alwaysReached(const CellBox&) {
  return true;
}

/// Per-level visit counts of a walk, folded into totals over many walks: backs the "at most 2^d nodes per
/// level" figures that both trees report.
class LevelTally {
 public:
  /// Counts one visit at `depth` in the current walk.
  void visit(std::uint32_t depth) {
    if (depth >= kMaxTreeDepth) return;
    ++current_[depth];
    if (int(depth) > deepest_) deepest_ = int(depth);
  }
  /// Ends the current walk: adds its counts to the totals and clears them.
  void finishWalk() {
    if (totals_.size() < std::size_t(deepest_ + 1)) totals_.resize(std::size_t(deepest_ + 1), 0);
    for (int d = 0; d <= deepest_; ++d) {
      totals_[std::size_t(d)] += current_[d];
      if (current_[d] > maxOneLevel_) maxOneLevel_ = current_[d];
      current_[d] = 0;
    }
    deepest_ = -1;
    ++walks_;
  }
  /// Forgets every walk.
  void reset() {
    totals_.clear();
    maxOneLevel_ = 0;
    walks_ = 0;
  }
  /// Walks counted since the last reset.
  std::uint64_t walks() const { return walks_; }
  /// Visits per walk at each depth, summed over walks.
  const std::vector<std::uint64_t>& totals() const { return totals_; }
  /// Most nodes any one walk entered at any one depth.
  std::uint32_t maxOneLevel() const { return maxOneLevel_; }

  /// Appends `<prefix>_walks`, `<prefix>_max_nodes_one_level`, `<prefix>_mean_nodes_per_level` and
  /// `<prefix>_nodes_level_<d>` (mean per walk) to a report.
  void report(const std::string& prefix, ExtraCounters& out) const {
    out.emplace_back(prefix + "_walks", double(walks_));
    if (walks_ == 0) return;
    out.emplace_back(prefix + "_max_nodes_one_level", double(maxOneLevel_));
    double sum = 0.0;
    std::size_t levels = 0;
    for (std::uint64_t t : totals_) {
      if (t == 0) continue;
      sum += double(t);
      ++levels;
    }
    out.emplace_back(prefix + "_mean_nodes_per_level",
                     levels == 0 ? 0.0 : sum / double(walks_) / double(levels));
    for (std::size_t d = 0; d < totals_.size(); ++d) {
      if (totals_[d] == 0) continue;
      out.emplace_back(prefix + "_nodes_level_" + (d < 10 ? "0" : "") + std::to_string(d),
                       double(totals_[d]) / double(walks_));
    }
  }

 private:
  std::uint32_t current_[kMaxTreeDepth] = {};
  int deepest_ = -1;
  std::vector<std::uint64_t> totals_;
  std::uint32_t maxOneLevel_ = 0;
  std::uint64_t walks_ = 0;
};

// ---------------------------------------------------------------------------------------------------------
// Pair finding: one top-down pass with inherited neighbours
// ---------------------------------------------------------------------------------------------------------
// Every overlapping pair has a deeper member (ties: both at one depth). The pass first measures, bottom up,
// the tight box of every subtree (the union of its circles' bounds: far smaller than a node's nominal box
// where a subtree holds a few small circles). It then enters each node once, top down, carrying two lists
// inherited from its parent:
//   neighbours: the nodes of its own depth whose tight boxes touch its own (itself included). They are
//               found among the children of the parent's neighbours, because a subtree's tight box lies
//               inside its parent's: this is the enneatree's "descend again into the neighbours' children",
//               done once per node instead of once per circle.
//   larger:     the circles of shallower nodes that reach into its tight box: the parent's larger circles and
//               the circles of the parent's neighbours, each kept only if it reaches this node's box.
// A node's circles are then tested against each other, against its larger circles, and against the circles
// of its neighbours with a higher index, so each pair is tested exactly once, at its deeper node.

/// Reusable memory of the pair pass.
struct PairScratch {
  /// A larger item handed down, with its circle copied for locality.
  struct Larger {
    ItemId id = 0;       ///< item
    Circle circle;       ///< its circle
    double reach = 0.0;  ///< its radius grown by its pruning slack
  };
  /// One entered node and where its two lists lie.
  struct Frame {
    std::uint32_t node = kNone;         ///< the node
    std::uint32_t neighboursBegin = 0;  ///< its neighbours: neighbours[neighboursBegin, neighboursEnd)
    std::uint32_t neighboursEnd = 0;    ///< end of its neighbours
    std::uint32_t largerBegin = 0;      ///< its larger items: larger[largerBegin, largerEnd)
    std::uint32_t largerEnd = 0;        ///< end of its larger items
    std::uint32_t nextChild = 0;        ///< next child slot to enter
  };
  std::vector<Frame> frames;              ///< the path from the root to the current node
  std::vector<std::uint32_t> neighbours;  ///< neighbour lists of the frames, stacked
  std::vector<Larger> larger;             ///< larger-item lists of the frames, stacked
  std::vector<std::uint32_t> order;       ///< nodes in pre-order, for the bottom-up bounds
  std::vector<CellBox> tight;  ///< by node: bounds of every circle in its subtree, grown by the slack

  /// Bytes held, for stats().
  std::size_t bytes() const {
    return frames.capacity() * sizeof(Frame) + neighbours.capacity() * sizeof(std::uint32_t) +
           larger.capacity() * sizeof(Larger) + order.capacity() * sizeof(std::uint32_t) +
           tight.capacity() * sizeof(CellBox);
  }
};

/// The end of both trees' validate(): `itemsSeen` items listed of `items`, `nodesSeen` nodes reached of
/// `liveNodes` counted, and the free list (threaded through `parent` from `freeHead`; `isFree(node)` says a
/// node is dead) sound and adding up to the pool. Returns "" or the first problem, named after `tree`.
template <class NodeT, class IsFree>
std::string checkCountsAndFreeList(const std::string& tree, std::size_t itemsSeen, std::size_t items,
                                   std::size_t nodesSeen, std::size_t liveNodes,
                                   const std::vector<NodeT>& nodes, std::uint32_t freeHead, IsFree&& isFree) {
  if (itemsSeen != items)
    return tree + ": item lists hold " + std::to_string(itemsSeen) + " of " + std::to_string(items) +
           " items";
  if (nodesSeen != liveNodes)
    return tree + ": " + std::to_string(nodesSeen) + " reachable nodes, " + std::to_string(liveNodes) +
           " counted";
  std::size_t freeCount = 0;
  for (std::uint32_t f = freeHead; f != kNone; f = nodes[f].parent) {
    if (!isFree(nodes[f]) || ++freeCount > nodes.size()) return tree + ": the free list is corrupt";
  }
  if (freeCount + liveNodes != nodes.size())
    return tree + ": free list and live nodes do not add up to the pool";
  return {};
}

/// Bounds of a circle in double (rounded; the pruning slack covers it).
inline CellBox boundsInDouble(const Circle& c) {
  const double x = c.center.x, y = c.center.y, r = c.radius;
  return {x - r, y - r, x + r, y + r};
}

/// A circle's radius grown by its pruning slack, for repeated tests against boxes that carry their own.
inline double reachOf(const Circle& c) {
  return double(c.radius) + 1e-8 * (std::fabs(c.center.x) + std::fabs(c.center.y) + c.radius) + 1e-30;
}

/// Whether a circle of the given reach touches a box already grown by its slack.
inline bool reachesGrown(const CellBox& grown, const Circle& c, double reach) {
  const double cx = c.center.x, cy = c.center.y;
  const double dx = cx < grown.minX ? grown.minX - cx : (cx > grown.maxX ? cx - grown.maxX : 0.0);
  const double dy = cy < grown.minY ? grown.minY - cy : (cy > grown.maxY ? cy - grown.maxY : 0.0);
  return dx * dx + dy * dy <= reach * reach;
}

/// Whether two boxes, each already grown by its slack, touch.
inline bool touchGrown(const CellBox& a, const CellBox& b) {
  return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY;
}

/// Fills scratch.tight with every subtree's tight box; an empty subtree gets an inverted (empty) box.
template <class NodeT>
void measureSubtrees(const std::vector<NodeT>& nodes, std::uint32_t root, const std::vector<ItemLink>& links,
                     const SpatialIndex& index, PairScratch& scratch) {
  auto& order = scratch.order;
  auto& tight = scratch.tight;
  order.clear();
  order.push_back(root);
  for (std::size_t k = 0; k < order.size(); ++k) {
    for (const std::uint32_t child : nodes[order[k]].child) {
      if (child != kNone) order.push_back(child);
    }
  }
  if (tight.size() < nodes.size()) tight.resize(nodes.size());
  for (std::size_t k = order.size(); k-- > 0;) {  // children come after their parent in `order`
    const std::uint32_t n = order[k];
    CellBox box{INFINITY, INFINITY, -INFINITY, -INFINITY};
    const auto add = [&box](const CellBox& b) {
      box = {std::min(box.minX, b.minX), std::min(box.minY, b.minY), std::max(box.maxX, b.maxX),
             std::max(box.maxY, b.maxY)};
    };
    for (std::uint32_t id = nodes[n].firstItem; id != kNone; id = links[id].next)
      add(boundsInDouble(index.circle(id)));
    for (const std::uint32_t child : nodes[n].child) {
      if (child != kNone) add(tight[child]);
    }
    tight[n] = box;
  }
  // Grown only now, so that slack does not pile up level upon level; growing keeps containment, because a
  // larger box never gets less slack.
  for (const std::uint32_t n : order) {
    const double s = pruneSlack(tight[n], 0.0);
    tight[n] = {tight[n].minX - s, tight[n].minY - s, tight[n].maxX + s, tight[n].maxY + s};
  }
}

/// Appends every overlapping pair of the tree to `out`, counting entered and examined nodes and exact tests.
template <class NodeT>
void findPairsTopDown(const std::vector<NodeT>& nodes, std::uint32_t root, const std::vector<ItemLink>& links,
                      const SpatialIndex& index, PairScratch& scratch, QueryCounters& counters,
                      std::vector<Pair>& out) {
  if (root == kNone) return;
  measureSubtrees(nodes, root, links, index, scratch);
  const std::vector<CellBox>& tight = scratch.tight;
  auto& frames = scratch.frames;
  auto& neighbours = scratch.neighbours;
  auto& larger = scratch.larger;
  frames.clear();
  neighbours.clear();
  larger.clear();

  const auto testPair = [&](ItemId a, const Circle& ca, ItemId b, const Circle& cb) {
    ++counters.candidates;
    if (circlesOverlap(ca, cb)) out.push_back(makePair(a, b));
  };
  const auto pairsAt = [&](const PairScratch::Frame& f) {
    ++counters.nodesVisited;
    for (std::uint32_t a = nodes[f.node].firstItem; a != kNone; a = links[a].next) {
      const Circle ca = index.circle(a);
      const double reachA = reachOf(ca);
      for (std::uint32_t b = links[a].next; b != kNone; b = links[b].next)
        testPair(a, ca, b, index.circle(b));
      for (std::uint32_t k = f.largerBegin; k < f.largerEnd; ++k)
        testPair(a, ca, larger[k].id, larger[k].circle);
      for (std::uint32_t k = f.neighboursBegin; k < f.neighboursEnd; ++k) {
        const std::uint32_t other = neighbours[k];
        if (other <= f.node || !reachesGrown(tight[other], ca, reachA)) continue;  // the lower index tests it
        for (std::uint32_t b = nodes[other].firstItem; b != kNone; b = links[b].next)
          testPair(a, ca, b, index.circle(b));
      }
    }
  };

  neighbours.push_back(root);
  frames.push_back({root, 0, 1, 0, 0, 0});
  pairsAt(frames.back());
  while (!frames.empty()) {
    PairScratch::Frame& top = frames.back();
    const auto& children = nodes[top.node].child;
    constexpr std::uint32_t kSlots = std::uint32_t(sizeof(children) / sizeof(children[0]));
    while (top.nextChild < kSlots && children[top.nextChild] == kNone) ++top.nextChild;
    if (top.nextChild == kSlots) {
      neighbours.resize(top.neighboursBegin);
      larger.resize(top.largerBegin);
      frames.pop_back();
      continue;
    }
    const std::uint32_t node = children[top.nextChild++];
    const PairScratch::Frame parent = top;  // `top` dies with the push below
    const CellBox box = tight[node];

    PairScratch::Frame frame;
    frame.node = node;
    frame.neighboursBegin = std::uint32_t(neighbours.size());
    for (std::uint32_t k = parent.neighboursBegin; k < parent.neighboursEnd; ++k) {
      for (const std::uint32_t cousin : nodes[neighbours[k]].child) {
        if (cousin == kNone) continue;
        ++counters.nodesVisited;
        if (touchGrown(tight[cousin], box)) neighbours.push_back(cousin);
      }
    }
    frame.neighboursEnd = std::uint32_t(neighbours.size());
    frame.largerBegin = std::uint32_t(larger.size());
    for (std::uint32_t k = parent.largerBegin; k < parent.largerEnd; ++k) {
      const PairScratch::Larger item = larger[k];
      if (reachesGrown(box, item.circle, item.reach)) larger.push_back(item);
    }
    for (std::uint32_t k = parent.neighboursBegin; k < parent.neighboursEnd; ++k) {
      const std::uint32_t holder = neighbours[k];
      if (!touchGrown(tight[holder], box)) continue;
      for (std::uint32_t b = nodes[holder].firstItem; b != kNone; b = links[b].next) {
        const Circle& cb = index.circle(b);
        const double reach = reachOf(cb);
        if (reachesGrown(box, cb, reach)) larger.push_back({b, cb, reach});
      }
    }
    frame.largerEnd = std::uint32_t(larger.size());
    frames.push_back(frame);
    pairsAt(frame);
  }
}

/// Pair search state kept between frames (memory only).
struct ViewPairs {
  pair_view::PairView view;          ///< the hierarchy of the last search
  pair_view::ItemCopy items;         ///< its items in depth-first order
  pair_view::WalkScratch scratch;    ///< the walk's memory
  std::vector<std::uint32_t> stack;  ///< the hand-over's memory
  std::uint64_t pretests = 0;        ///< pre-tests of the last search
  /// Bytes held.
  std::size_t bytes() const { return view.bytes() + items.bytes() + scratch.bytes() + stack.capacity() * 4; }
};

/// Appends every overlapping pair of the tree to `out` through the shared pair view.
template <class NodeT>
void findPairsByView(const std::vector<NodeT>& nodes, std::uint32_t root, const std::vector<ItemLink>& links,
                     const SpatialIndex& index, ViewPairs& state, QueryCounters& counters,
                     std::vector<Pair>& out) {
  if (root == kNone) return;
  counters.nodesVisited += pair_view::copyTree(
      state.view, state.items, index.size(), root,
      [&](std::uint32_t n, auto&& add) {
        for (std::uint32_t id = nodes[n].firstItem; id != kNone; id = links[id].next)
          add(id, index.circle(id));
      },
      [&](std::uint32_t n, auto&& push) {
        for (const std::uint32_t child : nodes[n].child) {
          if (child != kNone) push(child);
        }
      },
      state.stack);
  pair_view::findPairsInto(state.view, out, state.scratch, counters, state.pretests);
}

}  // namespace st::banded
