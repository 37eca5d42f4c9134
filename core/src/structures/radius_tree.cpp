// The radius tree: the "data structure for variable-radius spheres" of source document 000. A quadtree over
// circle centres in which the size of a node fixes the radii it may hold, so that a point query can bound,
// per level, how far a stored circle can reach: it enters at most 2^2 nodes per level and never looks at a
// dense cluster further away than twice that cluster's radii.
//
// Departures from the post, each forced by "never lose an item": the post's root cannot hold a circle
// larger than half its size nor a centre outside it, so here the root doubles toward such a circle (the old
// root becomes a quadrant of the new one); and a zero radius would descend forever, so descent stops at a
// depth floor (the `max_levels` parameter, and a floor relative to the coordinates' magnitude).

#include <algorithm>
#include <cmath>
#include <string>

#include "radius_tree_enneatree_shared.hpp"
#include "spheretest/assert.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using banded::CellBox;
using banded::ItemLink;
using banded::kNone;
using banded::WalkStep;

// One node. Its cell is the half-open square of centres [x0, x0 + size) x [y0, y0 + size); it keeps the
// circles centred in the cell whose radius lies in [size / 4, size / 2] (smaller ones only at the depth
// floor). A child covers one quadrant: bit 0 of its slot is the right half, bit 1 the upper half.
struct Node {
  double x0 = 0.0;                                        // left edge of the cell
  double y0 = 0.0;                                        // bottom edge of the cell
  double size = 0.0;                                      // side of the cell; 0 marks a free node
  std::uint32_t child[4] = {kNone, kNone, kNone, kNone};  // by quadrant, kNone when absent
  std::uint32_t parent = kNone;                           // kNone at the root; next free node when free
  std::uint32_t firstItem = kNone;                        // head of the node's intrusive item list
};
static_assert(sizeof(Node) == 48, "nodes are walked by every query: keep them at 48 bytes");

// A node's reach for the shared walk: everything in its subtree has its centre in the cell and a radius of
// at most size / 2, so the cell widened by size / 2 contains it. Per axis, the reach of child c (0: lower
// half, 1: upper half) is the child's half widened by a quarter of the size on both sides: the post's
// child-visit rule, with the child's largest radius (the parent's smallest) as the widening.
struct ReachGeometry {
  static constexpr int kPerAxis = 2;
  static CellBox box(const Node& n) {
    const double half = n.size * 0.5;
    return {n.x0 - half, n.y0 - half, n.x0 + n.size + half, n.y0 + n.size + half};
  }
  static banded::ChildLayout layout(const Node& n) {
    const double quarter = n.size * 0.25;
    return {n.x0 - quarter, n.y0 - quarter, 2.0 * quarter, 4.0 * quarter, banded::magnitude(box(n))};
  }
  static CellBox childBox(const Node& parent, int q) {
    const double half = parent.size * 0.5, quarter = parent.size * 0.25;
    const double x0 = parent.x0 + ((q & 1) ? half : 0.0), y0 = parent.y0 + ((q & 2) ? half : 0.0);
    return {x0 - quarter, y0 - quarter, x0 + half + quarter, y0 + half + quarter};
  }
};

constexpr const char* kPrunePoint = "point outside the child's cell widened by its largest radius";
constexpr const char* kPruneCircle = "query circle misses the child's cell widened by its largest radius";
constexpr const char* kPruneBox = "query box misses the child's cell widened by its largest radius";
constexpr const char* kPruneRay = "segment misses the child's cell widened by its largest radius";

class RadiusTree final : public SpatialIndex {
 public:
  /// An empty tree.
  RadiusTree() : SpatialIndex("radius-tree") {
    addParam({"max_levels",
              "levels below the first root's size a small circle may descend (zero radii stop there)", 24, 4,
              40, true});
  }

  std::string_view description() const override {
    return "The radius tree (source document 000, a data structure for variable-radius spheres) is a "
           "quadtree "
           "over circle centres in which a node's size fixes the radii it holds: a node whose cell of "
           "centres "
           "has side s keeps, in an intrusive doubly linked list, the circles centred in it with radius in "
           "[s/4, s/2]; smaller circles go to the quadrant child (created on demand, removed when empty and "
           "childless), larger ones go up, and the root doubles toward any circle it cannot hold. Every item "
           "knows its node, so removal is O(1), and an update unlinks the item, walks up from its old node "
           "only "
           "as far as needed, back down, and cleans up last: O(1) for small moves, O(log(S/r)) at worst for "
           "a "
           "root of size S. A point query enters a child only if the point lies within the child's cell "
           "widened "
           "by the child's largest radius (its parent's smallest), so it enters at most 4 nodes per level "
           "and "
           "costs O(log(S/s) + k) for the smallest nearby radius s and k candidates, whatever dense cluster "
           "lies "
           "more than twice its radii away; circle, box and ray queries prune with the same widened cells, "
           "and "
           "pair finding is one top-down pass in which each node inherits its same-level neighbours and the "
           "larger circles reaching into it. Choose it for many point-in-radius questions over radii of very "
           "different sizes (visibility or detection ranges) and for worlds with dense remote clusters; each "
           "halving of the smallest radius adds a level.";
  }

  void visitNodes(const NodeVisitor& visitor) const override {
    if (root_ == kNone) return;
    std::vector<WalkStep> stack{{root_, 0}};
    while (!stack.empty()) {
      const WalkStep step = stack.back();
      stack.pop_back();
      visitor(info(step.node, step.depth));
      for (const std::uint32_t child : nodes_[step.node].child) {
        if (child != kNone) stack.push_back({child, step.depth + 1});
      }
    }
  }

  IndexStats stats() const override {
    int deepest = 0;
    if (root_ != kNone) {
      std::vector<WalkStep> stack{{root_, 0}};
      while (!stack.empty()) {
        const WalkStep step = stack.back();
        stack.pop_back();
        deepest = std::max(deepest, int(step.depth));
        for (const std::uint32_t child : nodes_[step.node].child) {
          if (child != kNone) stack.push_back({child, step.depth + 1});
        }
      }
    }
    const std::size_t bytes = nodes_.capacity() * sizeof(Node) + links_.capacity() * sizeof(ItemLink) +
                              stack_.capacity() * sizeof(WalkStep) + pairScratch_.bytes() + tableBytes();
    return {liveNodes_, deepest, bytes};
  }

  void extra(ExtraCounters& out) const override {
    out.emplace_back("root_size", root_ == kNone ? 0.0 : nodes_[root_].size);
    out.emplace_back("root_growths", double(rootGrowths_));
    out.emplace_back("rebuilds_for_exact_growth", double(rebuilds_));
    std::size_t belowBand = 0;
    forEachItem([&](ItemId id, const Circle& c) {
      if (double(c.radius) < nodes_[links_[id].node].size * 0.25) ++belowBand;
    });
    out.emplace_back("items_at_depth_floor", double(belowBand));
    out.emplace_back("updates", double(updates_));
    if (updates_ > 0) {
      out.emplace_back("update_same_node_share", double(updatesSameNode_) / double(updates_));
      out.emplace_back("update_nodes_walked_mean", double(updateSteps_) / double(updates_));
    }
    pointLevels_.report("point_query", out);
  }

 protected:
  // -------------------------------------------------------------------------------------------------------
  // Mutation
  // -------------------------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    links_.assign(idCapacity(), ItemLink{});
    nodes_.reserve(items.size() / 2 + 16);
    startRoot(initialRegion(items));
    for (const std::uint32_t i : banded::zOrder(items, cellOf(nodes_[root_]))) {
      if (!place(root_, items[i].id, items[i].circle))
        return;  // rebuilt around everything, the rest included
    }
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (links_.size() < idCapacity()) links_.resize(idCapacity());
    if (root_ == kNone)
      startRoot(worldHint() ? cellBoxOf(*worldHint())
                            : CellBox{c.center.x, c.center.y, c.center.x, c.center.y});
    place(root_, id, c);
  }

  // The post's in-place mutation: unlink without cleanup, reinsert starting from the same node, clean up
  // last, so a circle that stays in its node costs O(1) and a small move only walks a few levels.
  void doUpdate(ItemId id, const Circle&, const Circle& c) override {
    const std::uint32_t home = links_[id].node;
    banded::unlinkItem(links_, nodes_[home].firstItem, id);
    ++updates_;
    if (!place(home, id, c)) return;  // rebuilt: `home` no longer exists
    updateSteps_ += lastSteps_;
    if (links_[id].node == home) ++updatesSameNode_;
    cleanUpFrom(home);
  }

  void doRemove(ItemId id, const Circle&) override {
    const std::uint32_t home = links_[id].node;
    banded::unlinkItem(links_, nodes_[home].firstItem, id);
    cleanUpFrom(home);
  }

  void doClear() override {
    nodes_.clear();
    links_.clear();
    freeHead_ = kNone;
    root_ = kNone;
    liveNodes_ = 0;
    minCellSize_ = 0.0;
    rootGrowths_ = rebuilds_ = updates_ = updatesSameNode_ = updateSteps_ = 0;
    pointLevels_.reset();
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries
  // -------------------------------------------------------------------------------------------------------

  // The post's query: every node entered hands over all its circles, and a child is entered only when the
  // point lies within the child's cell widened by the child's largest radius. (The post writes the widening
  // as rmin on one side and rmax on the other; the largest radius a child can hold is its parent's rmin,
  // and widening by it on both sides is what bounds the visits to two per axis and level.)
  void doQueryPoint(Vec2 p, std::vector<ItemId>& out) override {
    banded::walkPruned<ReachGeometry>(
        nodes_, root_, stack_, banded::extentOf(p), banded::alwaysReached,
        [&](std::uint32_t n, std::uint32_t depth) {
          enter(n, depth);
          pointLevels_.visit(depth);
          testItems(n, out, [&](const Circle& c) { return circleContainsPoint(c, p); });
        },
        [&](std::uint32_t n, std::uint32_t depth) { prune(n, depth, kPrunePoint); });
    pointLevels_.finishWalk();
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out) override {
    banded::walkPruned<ReachGeometry>(
        nodes_, root_, stack_, banded::extentOf(query),
        [&](const CellBox& b) { return banded::mayOverlap(b, query); },
        [&](std::uint32_t n, std::uint32_t depth) {
          enter(n, depth);
          testItems(n, out, [&](const Circle& c) { return circlesOverlap(c, query); });
        },
        [&](std::uint32_t n, std::uint32_t depth) { prune(n, depth, kPruneCircle); });
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out) override {
    banded::walkPruned<ReachGeometry>(
        nodes_, root_, stack_, banded::extentOf(box), banded::alwaysReached,
        [&](std::uint32_t n, std::uint32_t depth) {
          enter(n, depth);
          testItems(n, out, [&](const Circle& c) { return circleOverlapsBox(c, box); });
        },
        [&](std::uint32_t n, std::uint32_t depth) { prune(n, depth, kPruneBox); });
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out) override {
    const Vec2 delta = segment.end - segment.start;
    banded::walkPruned<ReachGeometry>(
        nodes_, root_, stack_, banded::extentOf(segment),
        [&](const CellBox& b) { return banded::mayHit(b, segment); },
        [&](std::uint32_t n, std::uint32_t depth) {
          enter(n, depth);
          for (std::uint32_t id = nodes_[n].firstItem; id != kNone; id = links_[id].next) {
            ++counters_.candidates;
            float t = 0.0f;
            const bool hit = segmentHitsCircle(segment, circle(id), t);
            traceCandidate(id, hit);
            if (hit) out.push_back({id, t, segment.start + delta * t});
          }
        },
        [&](std::uint32_t n, std::uint32_t depth) { prune(n, depth, kPruneRay); });
  }

  void doFindPairs(std::vector<Pair>& out) override {
    banded::findPairsTopDown(nodes_, root_, links_, *this, pairScratch_, counters_, out);
  }

  // -------------------------------------------------------------------------------------------------------
  // Validation
  // -------------------------------------------------------------------------------------------------------

  std::string doValidate() const override {
    if (root_ == kNone) {
      if (size() != 0) return "radius-tree: items present but no root";
      return liveNodes_ == 0 ? std::string() : "radius-tree: nodes alive without a root";
    }
    if (nodes_[root_].parent != kNone) return "radius-tree: the root has a parent";
    std::size_t nodesSeen = 0, itemsSeen = 0;
    std::vector<std::uint32_t> stack{root_};
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      ++nodesSeen;
      const Node& node = nodes_[n];
      const std::string where = "radius-tree: node " + std::to_string(n) + ": ";
      if (!(node.size > 0.0)) return where + "is on the free list but reachable";
      bool hasChild = false;
      for (int q = 0; q < 4; ++q) {
        const std::uint32_t c = node.child[q];
        if (c == kNone) continue;
        hasChild = true;
        const Node& child = nodes_[c];
        if (child.parent != n) return where + "child " + std::to_string(c) + " names another parent";
        const double half = node.size * 0.5;
        if (child.size != half || child.x0 != node.x0 + ((q & 1) ? half : 0.0) ||
            child.y0 != node.y0 + ((q & 2) ? half : 0.0)) {
          return where + "child " + std::to_string(c) + " is not quadrant " + std::to_string(q) +
                 " of its parent";
        }
        stack.push_back(c);
      }
      if (n != root_ && !hasChild && node.firstItem == kNone)
        return where + "empty and childless but not removed";
      std::uint32_t previous = kNone;
      for (std::uint32_t id = node.firstItem; id != kNone; id = links_[id].next) {
        if (id >= links_.size() || !contains(id)) return where + "lists an absent item " + std::to_string(id);
        if (links_[id].node != n || links_[id].prev != previous)
          return where + "item " + std::to_string(id) + " is mislinked";
        if (++itemsSeen > size()) return where + "item lists hold more entries than there are items";
        const Circle& c = circle(id);
        if (!holds(node, c))
          return where + "item " + std::to_string(id) +
                 " has its centre outside the cell or a radius above size/2";
        if (double(c.radius) < node.size * 0.25 && maySplit(node)) {
          return where + "item " + std::to_string(id) +
                 " is below the node's radius band but the node may split";
        }
        previous = id;
      }
    }
    return banded::checkCountsAndFreeList("radius-tree", itemsSeen, size(), nodesSeen, liveNodes_, nodes_,
                                          freeHead_, [](const Node& n) { return n.size == 0.0; });
  }

 private:
  // -------------------------------------------------------------------------------------------------------
  // Geometry of a node
  // -------------------------------------------------------------------------------------------------------

  static CellBox cellBoxOf(const Box& b) { return {b.min.x, b.min.y, b.max.x, b.max.y}; }

  static CellBox cellOf(const Node& n) { return {n.x0, n.y0, n.x0 + n.size, n.y0 + n.size}; }

  // Whether the node's cell holds the centre and its band allows the radius (it may still send it down).
  static bool holds(const Node& n, const Circle& c) {
    return n.x0 <= c.center.x && c.center.x < n.x0 + n.size && n.y0 <= c.center.y &&
           c.center.y < n.y0 + n.size && double(c.radius) <= n.size * 0.5;
  }

  bool maySplit(const Node& n) const {
    const double half = n.size * 0.5;
    return half >= minCellSize_ && half >= banded::kRelativeWidthFloor * banded::magnitude(cellOf(n));
  }

  static int quadrantOf(const Node& n, Vec2 p) {
    const double half = n.size * 0.5;
    return (p.x >= n.x0 + half ? 1 : 0) | (p.y >= n.y0 + half ? 2 : 0);
  }

  NodeInfo info(std::uint32_t n, std::uint32_t depth) const {
    NodeInfo out;
    out.shape = NodeShape::Box;
    out.box = banded::toDrawBox(cellOf(nodes_[n]));
    out.depth = int(depth);
    for (std::uint32_t id = nodes_[n].firstItem; id != kNone; id = links_[id].next) ++out.itemCount;
    return out;
  }

  // -------------------------------------------------------------------------------------------------------
  // Node pool
  // -------------------------------------------------------------------------------------------------------

  std::uint32_t allocNode(double x0, double y0, double size, std::uint32_t parent) {
    std::uint32_t n = freeHead_;
    if (n != kNone) {
      freeHead_ = nodes_[n].parent;
    } else {
      n = std::uint32_t(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n] = Node{x0, y0, size, {kNone, kNone, kNone, kNone}, parent, kNone};
    ++liveNodes_;
    return n;
  }

  void freeNode(std::uint32_t n) {
    nodes_[n].size = 0.0;
    nodes_[n].parent = freeHead_;
    freeHead_ = n;
    --liveNodes_;
  }

  // Removes empty childless nodes from `n` upward (never the root), as the post's deletion does: this keeps
  // memory and the depth of queries tied to the circles present now.
  void cleanUpFrom(std::uint32_t n) {
    while (n != root_) {
      const Node& node = nodes_[n];
      if (node.firstItem != kNone) return;
      for (const std::uint32_t c : node.child) {
        if (c != kNone) return;
      }
      const std::uint32_t parent = node.parent;
      for (std::uint32_t& c : nodes_[parent].child) {
        if (c == n) c = kNone;
      }
      freeNode(n);
      n = parent;
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Root and placement
  // -------------------------------------------------------------------------------------------------------

  CellBox initialRegion(std::span<const Item> items) const {
    if (worldHint()) return cellBoxOf(*worldHint());
    if (items.empty()) return {0.0, 0.0, 1.0, 1.0};
    CellBox b{items[0].circle.center.x, items[0].circle.center.y, items[0].circle.center.x,
              items[0].circle.center.y};
    for (const Item& item : items) {
      b = {std::fmin(b.minX, item.circle.center.x), std::fmin(b.minY, item.circle.center.y),
           std::fmax(b.maxX, item.circle.center.x), std::fmax(b.maxY, item.circle.center.y)};
    }
    return b;
  }

  // A square root cell from the region's lower-left corner, a hair wider than the region so that centres on
  // its upper edges (where scenes clamp them) need no growth.
  void startRoot(const CellBox& region) {
    double side = std::fmax(region.maxX - region.minX, region.maxY - region.minY);
    if (!(side > 0.0)) side = std::fmax(1.0, banded::magnitude(region) * 0x1p-16);
    side += side * 0x1p-16;
    if (minCellSize_ == 0.0) minCellSize_ = std::ldexp(side, -int(param("max_levels")));
    root_ = allocNode(region.minX, region.minY, side, kNone);
  }

  // Doubles the root toward `c`: the old root becomes the quadrant of the new one facing away from `c`.
  // Returns false if the new corner could not be exact in double (only for extreme coordinate ranges).
  bool growRootToward(const Circle& c) {
    const Node old = nodes_[root_];
    const bool left = c.center.x < old.x0;
    const bool down = c.center.y < old.y0;
    const double x0 = left ? old.x0 - old.size : old.x0;
    const double y0 = down ? old.y0 - old.size : old.y0;
    if (x0 + old.size * (left ? 1.0 : 0.0) != old.x0 || y0 + old.size * (down ? 1.0 : 0.0) != old.y0)
      return false;
    const bool oldIsEmpty = old.firstItem == kNone && old.child[0] == kNone && old.child[1] == kNone &&
                            old.child[2] == kNone && old.child[3] == kNone;
    ++rootGrowths_;
    if (oldIsEmpty) {  // nothing to keep below: the root simply becomes the larger cell
      nodes_[root_] = Node{x0, y0, old.size * 2.0, {kNone, kNone, kNone, kNone}, kNone, kNone};
      return true;
    }
    const std::uint32_t grown = allocNode(x0, y0, old.size * 2.0, kNone);
    nodes_[grown].child[(left ? 1 : 0) | (down ? 2 : 0)] = root_;
    nodes_[root_].parent = grown;
    root_ = grown;
    return true;
  }

  // Walks up from `n` to the first node that may hold the circle (growing the root past the top), then down
  // to the node of its radius band, creating children on the way, and links the item there. Returns false
  // when a growth could not be exact and the tree was rebuilt around every item instead (this one included).
  bool place(std::uint32_t n, ItemId id, const Circle& c) {
    std::uint32_t steps = 0;
    while (!holds(nodes_[n], c)) {
      ++steps;
      if (nodes_[n].parent != kNone) {
        n = nodes_[n].parent;
      } else if (growRootToward(c)) {
        n = root_;
      } else {
        rebuildAroundEverything();
        return false;
      }
    }
    while (double(c.radius) < nodes_[n].size * 0.25 && maySplit(nodes_[n])) {
      ++steps;
      const int q = quadrantOf(nodes_[n], c.center);
      std::uint32_t next = nodes_[n].child[q];
      if (next == kNone) {
        const Node& node = nodes_[n];
        const double half = node.size * 0.5;
        next = allocNode(node.x0 + ((q & 1) ? half : 0.0), node.y0 + ((q & 2) ? half : 0.0), half, n);
        nodes_[n].child[q] = next;  // `node` may have moved with the pool
      }
      n = next;
    }
    banded::linkItem(links_, nodes_[n].firstItem, n, id);
    lastSteps_ = steps;
    return true;
  }

  // Fallback of an inexact growth: a root whose side is a power of two and whose corner is a multiple of half
  // of it covers every item, so every later corner is a sum of powers of two and exact again.
  void rebuildAroundEverything() {
    CellBox centres{INFINITY, INFINITY, -INFINITY, -INFINITY};
    double largest = 0.0;
    forEachItem([&](ItemId, const Circle& c) {
      centres = {std::fmin(centres.minX, c.center.x), std::fmin(centres.minY, c.center.y),
                 std::fmax(centres.maxX, c.center.x), std::fmax(centres.maxY, c.center.y)};
      largest = std::fmax(largest, c.radius);
    });
    double side = std::ldexp(1.0, std::ilogb(std::max({centres.maxX - centres.minX,
                                                       centres.maxY - centres.minY, 2.0 * largest, 1e-30})) +
                                      1);
    double x0 = 0.0, y0 = 0.0;
    for (;;) {
      x0 = std::floor(centres.minX / (side * 0.5)) * (side * 0.5);
      y0 = std::floor(centres.minY / (side * 0.5)) * (side * 0.5);
      if (centres.maxX < x0 + side && centres.maxY < y0 + side) break;
      side *= 2.0;
    }
    const double keptFloor = minCellSize_;
    const std::uint64_t growths = rootGrowths_, rebuilds = rebuilds_;
    nodes_.clear();
    freeHead_ = kNone;
    liveNodes_ = 0;
    std::fill(links_.begin(), links_.end(), ItemLink{});
    minCellSize_ = keptFloor;
    rootGrowths_ = growths;
    rebuilds_ = rebuilds + 1;
    root_ = allocNode(x0, y0, side, kNone);
    forEachItem([&](ItemId id, const Circle& c) {
      const bool placed = place(root_, id, c);
      ST_ASSERT(placed, "a root covering every item needs no growth");
    });
  }

  // -------------------------------------------------------------------------------------------------------
  // Query helpers
  // -------------------------------------------------------------------------------------------------------

  void enter(std::uint32_t n, std::uint32_t depth) {
    ++counters_.nodesVisited;
    if (tracing()) traceVisit(info(n, depth));
  }

  void prune(std::uint32_t n, std::uint32_t depth, const char* test) {
    if (tracing()) tracePrune(info(n, depth), test);
  }

  template <class Predicate>
  void testItems(std::uint32_t n, std::vector<ItemId>& out, Predicate&& accepts) {
    for (std::uint32_t id = nodes_[n].firstItem; id != kNone; id = links_[id].next) {
      ++counters_.candidates;
      const bool hit = accepts(circle(id));
      traceCandidate(id, hit);
      if (hit) out.push_back(id);
    }
  }

  std::vector<Node> nodes_;
  std::vector<ItemLink> links_;  // by item id
  std::uint32_t freeHead_ = kNone;
  std::uint32_t root_ = kNone;
  std::size_t liveNodes_ = 0;
  double minCellSize_ = 0.0;  // absolute depth floor, fixed when the first root is made
  std::uint32_t lastSteps_ = 0;

  std::uint64_t rootGrowths_ = 0;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t updates_ = 0;
  std::uint64_t updatesSameNode_ = 0;
  std::uint64_t updateSteps_ = 0;
  banded::LevelTally pointLevels_;

  std::vector<WalkStep> stack_;
  banded::PairScratch pairScratch_;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeRadiusTree() {
  return std::make_unique<RadiusTree>();
}

}  // namespace st
