// The enneatree of source document 003 ("circles of many sizes"). Per axis a node's interval (0, 1) has
// three overlapping children, (0, 1/2), (1/4, 3/4) and (1/2, 1); in 2D that makes nine. Any circle whose
// diameter is below a quarter of a node's width fits entirely inside at least one child, so a circle's
// depth follows from its diameter alone, and no small circle is ever held up high by a boundary: not even
// by the centre lines, where the fit-entirely quadtree collects everything in its root.
//
// The source's author found no straightforward implementation (they alternated horizontal and vertical cuts
// to avoid nine-way branches). This one rests on three observations:
//   1. The nine-way choice is two independent three-way choices, one per axis: slot = 3 * cy + cx, each of
//      cx and cy picked by the same rule (the centre half if it fits, else the low or high half).
//   2. Every item fits entirely inside its node and a child's box lies inside its parent's, so a node's box
//      bounds its whole subtree. "Go down for smaller circles, up for larger ones, and down again into the
//      neighbours' children where they can reach" is then a single walk from the root that enters every
//      child box the query reaches: the path from the root supplies the larger circles, the pruned descent
//      the smaller ones and the neighbours'. At each depth at most two distinct boxes per axis contain a
//      point (one box can be held by two nodes: the high child of one node is the low child of the next).
//   3. Pair finding is one top-down pass in which each node inherits, from its parent, the nodes of its own
//      depth whose circles may touch its circles (they are children of the parent's such neighbours: at
//      most five boxes per axis) and the larger circles that reach into it, and tests each pair once, at
//      its deeper node (radius_tree_enneatree_shared.hpp).
// Node boxes are exact in double (corners are the root's corner plus multiples of a power-of-two fraction
// of its width), so a child's box computed from its parent during a walk is exactly the box it was built
// with, and the fit that placed a circle is the fit that validate() checks.

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "radius_tree_enneatree_shared.hpp"
#include "spheretest/assert.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using banded::CellBox;
using banded::ItemLink;
using banded::kNone;
using banded::WalkStep;

constexpr int kCentreSlot = 4;  // cx = cy = 1

// One node: the closed square [x0, x0 + width] x [y0, y0 + width]. Every item it keeps fits entirely inside;
// its diameter is below width / 2 (it came down from a parent four times this quarter) and at least
// width / 4 (or it could have gone further down), except at the root and at the depth floor.
struct Node {
  double x0 = 0.0;     // left edge
  double y0 = 0.0;     // bottom edge
  double width = 0.0;  // side; 0 marks a free node
  std::uint32_t child[9] = {kNone, kNone, kNone, kNone, kNone,
                            kNone, kNone, kNone, kNone};  // slot 3 * cy + cx
  std::uint32_t parent = kNone;                           // kNone at the root; next free node when free
  std::uint32_t firstItem = kNone;                        // head of the node's intrusive item list
};
static_assert(sizeof(Node) == 72, "nodes are walked by every query: keep them at 72 bytes");

// A node's box for the shared walk: everything in its subtree fits inside it. Per axis, child c (0 low,
// 1 centre, 2 high) spans [x0 + c * width / 4, x0 + c * width / 4 + width / 2].
struct BoxGeometry {
  static constexpr int kPerAxis = 3;
  static CellBox box(const Node& n) { return {n.x0, n.y0, n.x0 + n.width, n.y0 + n.width}; }
  static banded::ChildLayout layout(const Node& n) {
    const double quarter = n.width * 0.25;
    return {n.x0, n.y0, quarter, 2.0 * quarter, banded::magnitude(box(n))};
  }
  static CellBox childBox(const Node& parent, int slot) {
    const double quarter = parent.width * 0.25;
    const double x0 = parent.x0 + (slot % 3) * quarter, y0 = parent.y0 + (slot / 3) * quarter;
    return {x0, y0, x0 + 2.0 * quarter, y0 + 2.0 * quarter};
  }
};

constexpr const char* kPrunePoint = "point outside the child's box";
constexpr const char* kPruneCircle = "query circle misses the child's box";
constexpr const char* kPruneBox = "query box misses the child's box";
constexpr const char* kPruneRay = "segment misses the child's box";

// Which of the three overlapping halves of [x0, x0 + width] holds [lo, hi]: 1 (the centre half) whenever
// it fits, else 0 or 2; -1 when none does (only when a circle is too wide, or within rounding of a bound).
int chooseHalf(double lo, double hi, double x0, double width) {
  const double quarter = width * 0.25;
  if (lo >= x0 + quarter && hi <= x0 + 3.0 * quarter) return 1;
  if (lo >= x0 && hi <= x0 + 2.0 * quarter) return 0;
  if (lo >= x0 + 2.0 * quarter && hi <= x0 + width) return 2;
  return -1;
}

class Enneatree final : public SpatialIndex {
 public:
  /// An empty tree.
  Enneatree() : SpatialIndex("enneatree") {
    addParam({"max_levels",
              "levels below the first root's width a small circle may descend (zero radii stop there)", 24, 4,
              40, true});
  }

  std::string_view description() const override {
    return "The enneatree (source document 003, circles of many sizes) splits a node's square into nine "
           "overlapping children: per axis the three halves starting at 0, 1/4 and 1/2 of its width, so a "
           "circle whose diameter is below a quarter of the node's width fits entirely inside one of them. A "
           "circle descends from the root while that holds, taking per axis the centre half when it fits, "
           "else "
           "the low or high one; its depth therefore follows from its diameter, and no boundary holds small "
           "circles up high, not even the centre lines where the fit-entirely quadtree turns linear. The "
           "implementation the source's author was missing rests on three observations: the nine-way choice "
           "is two independent three-way choices (slot = 3*cy + cx); every node's box contains its whole "
           "subtree, so going down for smaller circles, up for larger ones and down again into the "
           "neighbours' "
           "children is one top-down walk entering every child box a query reaches (at most two per axis and "
           "level for a point); and pair finding is one top-down pass in which each node inherits from its "
           "parent the same-depth nodes whose circles may touch its own and the larger circles reaching into "
           "it, "
           "testing each pair once at its deeper node. Insert costs O(log(W/d)) for root width W and "
           "diameter "
           "d; an update that still fits its node is O(1), otherwise it walks up to the first ancestor that "
           "holds it and chooses again from there, centre first, so moving circles do not flip across deep "
           "boundaries; removal is O(1) plus cleanup of empty nodes; queries cost O(log(W/d) + k). Choose it "
           "for circles of very different sizes placed anywhere, including the adversarial centre lines, "
           "when "
           "a size hierarchy without a looseness parameter is wanted.";
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
                              stack_.capacity() * sizeof(WalkStep) + viewPairs_.bytes() + tableBytes();
    return {liveNodes_, deepest, bytes};
  }

  void extra(ExtraCounters& out) const override {
    out.emplace_back("root_width", root_ == kNone ? 0.0 : nodes_[root_].width);
    out.emplace_back("root_growths", double(rootGrowths_));
    out.emplace_back("rebuilds_for_exact_growth", double(rebuilds_));
    std::size_t belowBand = 0, belowRoot = 0, inCentreChild = 0;
    forEachItem([&](ItemId id, const Circle& c) {
      const std::uint32_t n = links_[id].node;
      if (2.0 * double(c.radius) < nodes_[n].width * 0.25) ++belowBand;
      if (n == root_) return;
      ++belowRoot;
      if (nodes_[nodes_[n].parent].child[kCentreSlot] == n) ++inCentreChild;
    });
    out.emplace_back("items_at_depth_floor", double(belowBand));
    out.emplace_back("centre_child_item_share",
                     belowRoot == 0 ? 0.0 : double(inCentreChild) / double(belowRoot));
    out.emplace_back("nodes_sharing_a_box", double(nodesSharingABox()));
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
    for (const std::uint32_t i : banded::zOrder(items, boxOf(root_))) {
      if (!place(root_, items[i].id, items[i].circle))
        return;  // rebuilt around everything, the rest included
    }
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (links_.size() < idCapacity()) links_.resize(idCapacity());
    if (root_ == kNone) {
      const Box region = worldHint() ? *worldHint() : boundsOf(c);
      startRoot({region.min.x, region.min.y, region.max.x, region.max.y});
    }
    place(root_, id, c);
  }

  // A circle that still fits its node and band stays there: O(1). Otherwise it walks up to the first
  // ancestor that holds it and chooses its way down again, centre first; cleanup of the old node comes last.
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
    minWidth_ = 0.0;
    rootGrowths_ = rebuilds_ = updates_ = updatesSameNode_ = updateSteps_ = 0;
    pointLevels_.reset();
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries: one pruned walk from the root (observation 2)
  // -------------------------------------------------------------------------------------------------------

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out) override {
    banded::walkPruned<BoxGeometry>(
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
    banded::walkPruned<BoxGeometry>(
        nodes_, root_, stack_, banded::extentOf(query),
        [&](const CellBox& b) { return banded::mayOverlap(b, query); },
        [&](std::uint32_t n, std::uint32_t depth) {
          enter(n, depth);
          testItems(n, out, [&](const Circle& c) { return circlesOverlap(c, query); });
        },
        [&](std::uint32_t n, std::uint32_t depth) { prune(n, depth, kPruneCircle); });
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out) override {
    banded::walkPruned<BoxGeometry>(
        nodes_, root_, stack_, banded::extentOf(box), banded::alwaysReached,
        [&](std::uint32_t n, std::uint32_t depth) {
          enter(n, depth);
          testItems(n, out, [&](const Circle& c) { return circleOverlapsBox(c, box); });
        },
        [&](std::uint32_t n, std::uint32_t depth) { prune(n, depth, kPruneBox); });
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out) override {
    const Vec2 delta = segment.end - segment.start;
    banded::walkPruned<BoxGeometry>(
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

  // Observation 3: one top-down pass with inherited neighbours and larger circles.
  void doFindPairs(std::vector<Pair>& out) override {
    banded::findPairsByView(nodes_, root_, links_, *this, viewPairs_, counters_, out);
  }

  // -------------------------------------------------------------------------------------------------------
  // Validation: the position rule (fits its box) and the size rule (depth from diameter) of every item
  // -------------------------------------------------------------------------------------------------------

  std::string doValidate() const override {
    if (root_ == kNone) {
      if (size() != 0) return "enneatree: items present but no root";
      return liveNodes_ == 0 ? std::string() : "enneatree: nodes alive without a root";
    }
    if (nodes_[root_].parent != kNone) return "enneatree: the root has a parent";
    std::size_t nodesSeen = 0, itemsSeen = 0;
    std::vector<std::uint32_t> stack{root_};
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      ++nodesSeen;
      const Node& node = nodes_[n];
      const std::string where = "enneatree: node " + std::to_string(n) + ": ";
      if (!(node.width > 0.0)) return where + "is on the free list but reachable";
      bool hasChild = false;
      for (int slot = 0; slot < 9; ++slot) {
        const std::uint32_t c = node.child[slot];
        if (c == kNone) continue;
        hasChild = true;
        const Node& child = nodes_[c];
        if (child.parent != n) return where + "child " + std::to_string(c) + " names another parent";
        const double quarter = node.width * 0.25;
        if (child.width != node.width * 0.5 || child.x0 != node.x0 + (slot % 3) * quarter ||
            child.y0 != node.y0 + (slot / 3) * quarter) {
          return where + "child " + std::to_string(c) + " is not the overlapping half of slot " +
                 std::to_string(slot);
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
        const std::string item = where + "item " + std::to_string(id) + " ";
        if (!fits(node, c)) return item + "does not fit entirely inside the node's box";
        if (n != root_ && !(2.0 * double(c.radius) < node.width * 0.5))
          return item + "has a diameter too large for its depth";
        if (2.0 * double(c.radius) < node.width * 0.25 && maySplit(node) && slotFor(node, c) >= 0) {
          return item + "is small enough for a child it fits in, but was not sent down";
        }
        previous = id;
      }
    }
    return banded::checkCountsAndFreeList("enneatree", itemsSeen, size(), nodesSeen, liveNodes_, nodes_,
                                          freeHead_, [](const Node& n) { return n.width == 0.0; });
  }

 private:
  // -------------------------------------------------------------------------------------------------------
  // Geometry of a node
  // -------------------------------------------------------------------------------------------------------

  static CellBox boxOfNode(const Node& n) { return BoxGeometry::box(n); }
  CellBox boxOf(std::uint32_t n) const { return BoxGeometry::box(nodes_[n]); }

  static bool fits(const Node& n, const Circle& c) {
    const double r = c.radius;
    return double(c.center.x) - r >= n.x0 && double(c.center.x) + r <= n.x0 + n.width &&
           double(c.center.y) - r >= n.y0 && double(c.center.y) + r <= n.y0 + n.width;
  }

  // Whether the node may keep the circle: it fits, and (below the root) it is small enough to have come down.
  bool holds(std::uint32_t n, const Circle& c) const {
    const Node& node = nodes_[n];
    return fits(node, c) && (n == root_ || 2.0 * double(c.radius) < node.width * 0.5);
  }

  // Observation 1: the child slot is two independent three-way choices; -1 when no child fits.
  static int slotFor(const Node& n, const Circle& c) {
    const double r = c.radius;
    const int cx = chooseHalf(double(c.center.x) - r, double(c.center.x) + r, n.x0, n.width);
    const int cy = chooseHalf(double(c.center.y) - r, double(c.center.y) + r, n.y0, n.width);
    return cx < 0 || cy < 0 ? -1 : 3 * cy + cx;
  }

  bool maySplit(const Node& n) const {
    const double half = n.width * 0.5;
    return half >= minWidth_ && half >= banded::kRelativeWidthFloor * banded::magnitude(boxOfNode(n));
  }

  NodeInfo info(std::uint32_t n, std::uint32_t depth) const {
    NodeInfo out;
    out.shape = NodeShape::Box;
    out.box = banded::toDrawBox(boxOf(n));
    out.depth = int(depth);
    for (std::uint32_t id = nodes_[n].firstItem; id != kNone; id = links_[id].next) ++out.itemCount;
    return out;
  }

  // Nodes whose box equals another node's: the same half can be reached as the high child of one node and
  // the low child of its neighbour, so the tree keeps the overlap the source describes.
  std::size_t nodesSharingABox() const {
    std::vector<std::tuple<double, double, double>> boxes;
    boxes.reserve(liveNodes_);
    for (const Node& n : nodes_) {
      if (n.width > 0.0) boxes.emplace_back(n.width, n.x0, n.y0);
    }
    std::sort(boxes.begin(), boxes.end());
    std::size_t shared = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if ((i > 0 && boxes[i] == boxes[i - 1]) || (i + 1 < boxes.size() && boxes[i] == boxes[i + 1])) ++shared;
    }
    return shared;
  }

  // -------------------------------------------------------------------------------------------------------
  // Node pool
  // -------------------------------------------------------------------------------------------------------

  std::uint32_t allocNode(double x0, double y0, double width, std::uint32_t parent) {
    std::uint32_t n = freeHead_;
    if (n != kNone) {
      freeHead_ = nodes_[n].parent;
    } else {
      n = std::uint32_t(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n] = Node{};
    nodes_[n].x0 = x0;
    nodes_[n].y0 = y0;
    nodes_[n].width = width;
    nodes_[n].parent = parent;
    ++liveNodes_;
    return n;
  }

  void freeNode(std::uint32_t n) {
    nodes_[n].width = 0.0;
    nodes_[n].parent = freeHead_;
    freeHead_ = n;
    --liveNodes_;
  }

  static bool isBare(const Node& n) {
    if (n.firstItem != kNone) return false;
    for (const std::uint32_t c : n.child) {
      if (c != kNone) return false;
    }
    return true;
  }

  // Removes empty childless nodes from `n` upward, never the root.
  void cleanUpFrom(std::uint32_t n) {
    while (n != root_ && isBare(nodes_[n])) {
      const std::uint32_t parent = nodes_[n].parent;
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
    if (worldHint()) return {worldHint()->min.x, worldHint()->min.y, worldHint()->max.x, worldHint()->max.y};
    if (items.empty()) return {0.0, 0.0, 1.0, 1.0};
    CellBox b{INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (const Item& item : items) {
      const double x = item.circle.center.x, y = item.circle.center.y, r = item.circle.radius;
      b = {std::fmin(b.minX, x - r), std::fmin(b.minY, y - r), std::fmax(b.maxX, x + r),
           std::fmax(b.maxY, y + r)};
    }
    return b;
  }

  // The root is the region's square itself, so that the world's centre lines are the root's: the case
  // the enneatree exists for is then met head on.
  void startRoot(const CellBox& region) {
    double side = std::fmax(region.maxX - region.minX, region.maxY - region.minY);
    if (!(side > 0.0)) side = std::fmax(1.0, banded::magnitude(region) * 0x1p-16);
    if (minWidth_ == 0.0) minWidth_ = std::ldexp(side, -int(param("max_levels")));
    root_ = allocNode(region.minX, region.minY, side, kNone);
  }

  // Doubles the root around its centre: the old root becomes the new root's centre child, which is exactly
  // the child the centre-first rule would choose for everything inside it. Circles of the old root that are
  // now too large for depth 1 move up. Returns false if the new corner could not be exact in double.
  bool growRoot() {
    const Node old = nodes_[root_];
    const double half = old.width * 0.5;
    const double x0 = old.x0 - half, y0 = old.y0 - half;
    if (x0 + half != old.x0 || y0 + half != old.y0) return false;
    ++rootGrowths_;
    bool keepsSomething =
        std::any_of(std::begin(old.child), std::end(old.child), [](std::uint32_t c) { return c != kNone; });
    for (std::uint32_t id = old.firstItem; id != kNone && !keepsSomething; id = links_[id].next) {
      keepsSomething = 2.0 * double(circle(id).radius) < half;
    }
    if (!keepsSomething) {  // every circle it holds belongs to the new root: the root simply widens
      nodes_[root_].x0 = x0;
      nodes_[root_].y0 = y0;
      nodes_[root_].width = old.width * 2.0;
      return true;
    }
    const std::uint32_t oldRoot = root_;
    root_ = allocNode(x0, y0, old.width * 2.0, kNone);
    nodes_[root_].child[kCentreSlot] = oldRoot;
    nodes_[oldRoot].parent = root_;
    for (std::uint32_t id = nodes_[oldRoot].firstItem; id != kNone;) {
      const std::uint32_t next = links_[id].next;
      if (!(2.0 * double(circle(id).radius) < half)) {
        banded::unlinkItem(links_, nodes_[oldRoot].firstItem, id);
        banded::linkItem(links_, nodes_[root_].firstItem, root_, id);
      }
      id = next;
    }
    return true;
  }

  // Walks up from `n` to the first node that holds the circle (growing the root past the top), then down
  // while its diameter is below a quarter of the node's width, centre half first per axis, creating children
  // on the way; links the item where it stops. Returns false when a growth could not be exact and the tree
  // was rebuilt around every item instead (this one included).
  bool place(std::uint32_t n, ItemId id, const Circle& c) {
    std::uint32_t steps = 0;
    while (!holds(n, c)) {
      ++steps;
      if (nodes_[n].parent != kNone) {
        n = nodes_[n].parent;
      } else if (growRoot()) {
        n = root_;
      } else {
        rebuildAroundEverything();
        return false;
      }
    }
    const double diameter = 2.0 * double(c.radius);
    while (diameter < nodes_[n].width * 0.25 && maySplit(nodes_[n])) {
      const int slot = slotFor(nodes_[n], c);
      if (slot < 0) break;
      ++steps;
      std::uint32_t next = nodes_[n].child[slot];
      if (next == kNone) {
        const Node& node = nodes_[n];
        const double quarter = node.width * 0.25;
        next = allocNode(node.x0 + (slot % 3) * quarter, node.y0 + (slot / 3) * quarter, node.width * 0.5, n);
        nodes_[n].child[slot] = next;  // `node` may have moved with the pool
      }
      n = next;
    }
    banded::linkItem(links_, nodes_[n].firstItem, n, id);
    lastSteps_ = steps;
    return true;
  }

  // Fallback of an inexact growth: a root whose width is a power of two and whose corner is a multiple of a
  // quarter of it covers every item, so every later corner is a sum of powers of two and exact again.
  void rebuildAroundEverything() {
    CellBox bounds{INFINITY, INFINITY, -INFINITY, -INFINITY};
    forEachItem([&](ItemId, const Circle& c) {
      const double x = c.center.x, y = c.center.y, r = c.radius;
      bounds = {std::fmin(bounds.minX, x - r), std::fmin(bounds.minY, y - r), std::fmax(bounds.maxX, x + r),
                std::fmax(bounds.maxY, y + r)};
    });
    double width = std::ldexp(
        1.0, std::ilogb(std::max({bounds.maxX - bounds.minX, bounds.maxY - bounds.minY, 1e-30})) + 1);
    double x0 = 0.0, y0 = 0.0;
    for (;;) {
      x0 = std::floor(bounds.minX / (width * 0.25)) * (width * 0.25);
      y0 = std::floor(bounds.minY / (width * 0.25)) * (width * 0.25);
      if (bounds.maxX <= x0 + width && bounds.maxY <= y0 + width) break;
      width *= 2.0;
    }
    nodes_.clear();
    freeHead_ = kNone;
    liveNodes_ = 0;
    std::fill(links_.begin(), links_.end(), ItemLink{});
    ++rebuilds_;
    root_ = allocNode(x0, y0, width, kNone);
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
  double minWidth_ = 0.0;  // absolute depth floor, fixed when the first root is made
  std::uint32_t lastSteps_ = 0;

  std::uint64_t rootGrowths_ = 0;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t updates_ = 0;
  std::uint64_t updatesSameNode_ = 0;
  std::uint64_t updateSteps_ = 0;
  banded::LevelTally pointLevels_;

  std::vector<WalkStep> stack_;
  banded::ViewPairs viewPairs_;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeEnneatree() {
  return std::make_unique<Enneatree>();
}

}  // namespace st
