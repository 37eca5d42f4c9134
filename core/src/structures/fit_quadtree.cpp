// The "fit entirely" quadtree, the first variant of seed 003: each circle is stored in the deepest node
// whose cell contains it entirely, so a circle lying across a split line stays in the node above it. A query
// looks at every node whose cell it meets: the subtree below it for small circles and every ancestor on the
// way up for large ones. Kept faithful, flaw included: circles on the world's centre lines never fit a
// child, pile up in the root, and every query then tests all of them.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "quadtree_family.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using namespace quadtree_family;

class FitQuadtree final : public QuadtreeFamily {
 public:
  FitQuadtree()
      : QuadtreeFamily("fit-quadtree",
                       {"query misses the cell", /*drawWidenedBounds=*/false, /*widenFollowsCell=*/false,
                        /*countWidening=*/false}) {
    addParam({"capacity", "items a leaf holds before it splits into four", 4, 1, 64, true});
    addParam({"max_depth", "deepest level a leaf may split to", 24, 1, 40, true});
    readParams();
  }

  std::string_view description() const override {
    return "Fit-entirely quadtree (seed 003, first variant): every circle lives in the deepest existing node "
           "whose cell contains it entirely, leaves split beyond fit-quadtree.capacity and subtrees merge "
           "back, so cells need no widening. Its flaw is kept on purpose: circles crossing a split line stay "
           "above it, so on the center-lines scene they all sit in the root and each query becomes linear "
           "(see items_depth_0 and mean_items_above). Choose the loose quadtree instead; this one is here to "
           "show why.";
  }

 protected:
  void onParamChanged(std::string_view key) override {
    readParams();
    QuadtreeFamily::onParamChanged(key);
  }

  void doInsert(ItemId id, const Circle& c) override {
    reserveIds();
    attach(id, c);
  }

  void doUpdate(ItemId id, const Circle&, const Circle& c) override {
    const std::uint32_t n = nodeOf(id);
    if (circleFitsInBox(c, nodes_[n].cell) && fittingChild(n, c) == kNone) {
      // A leaf kept over capacity because its circles were identical can split once one of them changes.
      if (nodes_[n].firstChild == kNone && nodes_[n].directCount > capacity_ && canSplit(n, depthOf(n)))
        split(n, depthOf(n));
      ++updatesInPlace_;
      return;
    }
    detach(id);
    attach(id, c);
    ++updatesRelinked_;
  }

  void doRemove(ItemId id, const Circle&) override { detach(id); }

  void onCleared() override { updatesInPlace_ = updatesRelinked_ = 0; }

  std::string checkNode(std::uint32_t index, int depth) const override {
    const QuadNode& node = nodes_[index];
    if (node.widen != 0.0f) return "node " + std::to_string(index) + " is widened";
    if (node.firstChild != kNone && node.subtreeCount <= capacity_) {
      return "internal node " + std::to_string(index) + " should have merged";
    }
    if (node.firstChild == kNone && node.directCount > capacity_ && canSplit(index, depth)) {
      return "leaf " + std::to_string(index) + " holds " + std::to_string(node.directCount) +
             " items but could split";
    }
    return {};
  }

  std::string checkItem(std::uint32_t node, int, ItemId id) const override {
    const Circle& c = circle(id);
    if (!circleFitsInBox(c, nodes_[node].cell))
      return "item " + std::to_string(id) + " does not fit its node";
    const std::uint32_t first = nodes_[node].firstChild;
    if (first != kNone) {
      for (std::uint32_t q = 0; q < 4; ++q) {
        if (circleFitsInBox(c, nodes_[first + q].cell))
          return "item " + std::to_string(id) + " fits a child of its node";
      }
    }
    return {};
  }

  void extraOwn(ExtraCounters& out) const override {
    const double total = double(size());
    out.emplace_back("root_items", double(nodes_[0].directCount));
    out.emplace_back("root_item_share", total > 0 ? double(nodes_[0].directCount) / total : 0.0);
    // The root may have grown above the world cell; the pile-up then sits in the fullest node instead.
    std::uint32_t fullest = 0;
    for (const QuadNode& node : nodes_) fullest = std::max(fullest, node.directCount);
    out.emplace_back("fullest_node_items", double(fullest));
    // Items stored on the ancestors of an item: what looking "on the way up" costs it.
    double aboveSum = 0.0;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> pending{{0u, 0u}};
    while (!pending.empty()) {
      const auto [n, above] = pending.back();
      pending.pop_back();
      const QuadNode& node = nodes_[n];
      aboveSum += double(node.directCount) * double(above);
      if (node.firstChild == kNone) continue;
      for (std::uint32_t q = 0; q < 4; ++q)
        pending.push_back({node.firstChild + q, above + node.directCount});
    }
    out.emplace_back("mean_items_above", total > 0 ? aboveSum / total : 0.0);
    out.emplace_back("updates_in_place", double(updatesInPlace_));
    out.emplace_back("updates_relinked", double(updatesRelinked_));
  }

 private:
  void readParams() {
    capacity_ = static_cast<std::uint32_t>(param("capacity"));
    maxDepth_ = static_cast<int>(param("max_depth"));
  }

  // The child of an internal node that contains the circle entirely, or kNone. Only the quadrant holding
  // the centre can: a circle crossing the split line fits none.
  std::uint32_t fittingChild(std::uint32_t n, const Circle& c) const {
    const QuadNode& node = nodes_[n];
    if (node.firstChild == kNone) return kNone;
    const std::uint32_t child = node.firstChild + quadrantOf(c.center, splitOf(node));
    return circleFitsInBox(c, nodes_[child].cell) ? child : kNone;
  }

  bool canSplit(std::uint32_t leaf, int depth) const {
    const QuadNode& node = nodes_[leaf];
    if (depth >= maxDepth_ || !cellSplittable(node.cell)) return false;
    // Identical circles would follow each other down forever.
    const Circle first = circle(node.firstItem);
    for (std::uint32_t id = nextItem(node.firstItem); id != kNone; id = nextItem(id)) {
      if (!(circle(id) == first)) return true;
    }
    return false;
  }

  void attach(ItemId id, const Circle& c) {
    if (!rootPlaced()) placeRoot(boundsOf(c));
    while (!circleFitsInBox(c, nodes_[0].cell)) growRootToward(c.center);
    std::uint32_t n = 0;
    int depth = 0;
    for (;;) {
      ++nodes_[n].subtreeCount;
      const std::uint32_t child = fittingChild(n, c);
      if (child == kNone) break;
      n = child;
      ++depth;
    }
    linkItem(id, n);
    if (nodes_[n].firstChild == kNone && nodes_[n].directCount > capacity_ && canSplit(n, depth))
      split(n, depth);
    // A root grown toward a far item may hold too few items to stay split.
    if (nodes_[0].firstChild != kNone && nodes_[0].subtreeCount <= capacity_) collapseSubtree(0);
  }

  // Splits an overflowing leaf: circles that fit a quadrant move down, the rest stay; overflowing children
  // split in turn.
  void split(std::uint32_t leaf, int depth) {
    std::vector<std::pair<std::uint32_t, int>>& pending = splitPending_;
    pending.assign(1, {leaf, depth});
    while (!pending.empty()) {
      const auto [n, d] = pending.back();
      pending.pop_back();
      const std::uint32_t first = allocateChildren(n);
      for (std::uint32_t id = nodes_[n].firstItem; id != kNone;) {
        const std::uint32_t next = nextItem(id);
        const std::uint32_t child = fittingChild(n, circle(id));
        if (child != kNone) {
          unlinkItem(id);
          linkItem(id, child);
          ++nodes_[child].subtreeCount;
        }
        id = next;
      }
      for (std::uint32_t q = 0; q < 4; ++q) {
        if (nodes_[first + q].directCount > capacity_ && canSplit(first + q, d + 1))
          pending.push_back({first + q, d + 1});
      }
    }
  }

  void detach(ItemId id) {
    const std::uint32_t n = nodeOf(id);
    unlinkItem(id);
    addToPathCounts(n, -1);
    for (std::uint32_t m = n; m != kNone; m = nodes_[m].parent) {
      if (nodes_[m].subtreeCount > capacity_) break;
      if (nodes_[m].firstChild != kNone) collapseSubtree(m);
    }
  }

  std::uint32_t capacity_ = 4;
  int maxDepth_ = 24;
  std::vector<std::pair<std::uint32_t, int>> splitPending_;  // leaves still to split, kept between calls
  std::uint64_t updatesInPlace_ = 0;
  std::uint64_t updatesRelinked_ = 0;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeFitQuadtree() {
  return std::make_unique<FitQuadtree>();
}

}  // namespace st
