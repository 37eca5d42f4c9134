// The point quadtree of seed 004 (a student paper on quadtrees and octrees): leaves hold up to `capacity`
// items keyed by their centre and split into four when they overflow. Circles are not points, so every node
// also keeps the largest radius stored below it and a query widens each node's cell by that radius: exact,
// but as seed 003 points out, one large circle widens every node above it and the pruning fades.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "quadtree_family.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using namespace quadtree_family;

class PointQuadtree final : public QuadtreeFamily {
 public:
  PointQuadtree()
      : QuadtreeFamily("quadtree",
                       {"query misses the cell widened by the largest radius below it",
                        /*drawWidenedBounds=*/false, /*widenFollowsCell=*/false, /*countWidening=*/true}) {
    addParam({"capacity", "items a leaf holds before it splits into four", 4, 1, 64, true});
    addParam({"max_depth", "deepest level a leaf may split to", 24, 1, 40, true});
    readParams();
  }

  std::string_view description() const override {
    return "Point quadtree (seed 004): the world square is split into quadrants recursively, a leaf holding "
           "up to quadtree.capacity circles keyed by their centre, and sibling leaves merge back once their "
           "parent holds no more than the capacity. Each node keeps the largest radius stored below it and a "
           "query widens every cell by it, so answers stay exact but one large circle widens all its "
           "ancestors (see last_query_widened_nodes). Choose it for circles of similar size; with mixed "
           "sizes prefer the loose quadtree.";
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

  void doUpdate(ItemId id, const Circle& old, const Circle& c) override {
    const std::uint32_t leaf = nodeOf(id);
    if (boxContainsPoint(nodes_[leaf].cell, c.center)) {
      // Still keyed to the same leaf: only the radius bookkeeping can change.
      if (c.radius > old.radius) {
        for (std::uint32_t n = leaf; n != kNone && nodes_[n].widen < c.radius; n = nodes_[n].parent)
          nodes_[n].widen = c.radius;
      } else if (c.radius < old.radius && old.radius >= nodes_[leaf].widen) {
        refreshWidenUpward(leaf);
      }
      // A leaf kept over capacity because its centres coincided can split once one of them moves.
      if (nodes_[leaf].directCount > capacity_ && canSplit(leaf, depthOf(leaf))) split(leaf, depthOf(leaf));
      ++updatesInPlace_;
      return;
    }
    detach(id, old.radius);
    attach(id, c);
    ++updatesRelinked_;
  }

  void doRemove(ItemId id, const Circle& c) override { detach(id, c.radius); }

  void onCleared() override { updatesInPlace_ = updatesRelinked_ = 0; }

  std::string checkNode(std::uint32_t index, int depth) const override {
    const QuadNode& node = nodes_[index];
    float largest = 0.0f;
    if (node.firstChild != kNone) {
      if (node.directCount != 0) return "internal node " + std::to_string(index) + " stores items";
      if (node.subtreeCount <= capacity_)
        return "internal node " + std::to_string(index) + " should have merged";
      for (std::uint32_t q = 0; q < 4; ++q) largest = std::max(largest, nodes_[node.firstChild + q].widen);
    } else {
      for (std::uint32_t id = node.firstItem; id != kNone; id = nextItem(id))
        largest = std::max(largest, circle(id).radius);
      if (node.directCount > capacity_ && canSplit(index, depth)) {
        return "leaf " + std::to_string(index) + " holds " + std::to_string(node.directCount) +
               " items but could split";
      }
    }
    if (largest != node.widen)
      return "node " + std::to_string(index) + " widen is not the largest radius below it";
    return {};
  }

  std::string checkItem(std::uint32_t node, int, ItemId id) const override {
    if (!boxContainsPoint(nodes_[node].cell, circle(id).center)) {
      return "item " + std::to_string(id) + " has its centre outside its leaf";
    }
    return {};
  }

  void extraOwn(ExtraCounters& out) const override {
    out.emplace_back("root_widen", double(nodes_[0].widen));
    // How far, in units of its own half side, the average leaf's cell is widened for queries.
    double ratioSum = 0.0;
    std::size_t leaves = 0;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      const QuadNode& n = nodes_[i];
      if (n.firstChild != kNone || n.directCount == 0) continue;
      ratioSum += double(n.widen) / (0.5 * (double(n.cell.max.x) - double(n.cell.min.x)));
      ++leaves;
    }
    out.emplace_back("mean_leaf_widen_over_half_side", leaves ? ratioSum / double(leaves) : 0.0);
    out.emplace_back("updates_in_place", double(updatesInPlace_));
    out.emplace_back("updates_relinked", double(updatesRelinked_));
  }

 private:
  void readParams() {
    capacity_ = static_cast<std::uint32_t>(param("capacity"));
    maxDepth_ = static_cast<int>(param("max_depth"));
  }

  bool canSplit(std::uint32_t leaf, int depth) const {
    const QuadNode& node = nodes_[leaf];
    if (depth >= maxDepth_ || !cellSplittable(node.cell)) return false;
    // Items sharing one centre would follow each other down forever.
    const Vec2 first = circle(node.firstItem).center;
    for (std::uint32_t id = nextItem(node.firstItem); id != kNone; id = nextItem(id)) {
      if (!(circle(id).center == first)) return true;
    }
    return false;
  }

  void attach(ItemId id, const Circle& c) {
    if (!rootPlaced()) placeRoot(boundsOf(c));
    while (!boxContainsPoint(nodes_[0].cell, c.center)) growRootToward(c.center);
    std::uint32_t n = 0;
    int depth = 0;
    for (;;) {
      QuadNode& node = nodes_[n];
      ++node.subtreeCount;
      node.widen = std::max(node.widen, c.radius);
      if (node.firstChild == kNone) break;
      n = node.firstChild + quadrantOf(c.center, splitOf(node));
      ++depth;
    }
    linkItem(id, n);
    if (nodes_[n].directCount > capacity_ && canSplit(n, depth)) split(n, depth);
    // A root grown toward a far item may hold too few items to stay split.
    if (nodes_[0].firstChild != kNone && nodes_[0].subtreeCount <= capacity_) collapseSubtree(0);
  }

  // Splits an overflowing leaf, and its children in turn while they overflow.
  void split(std::uint32_t leaf, int depth) {
    std::vector<std::pair<std::uint32_t, int>>& pending = splitPending_;
    pending.assign(1, {leaf, depth});
    while (!pending.empty()) {
      const auto [n, d] = pending.back();
      pending.pop_back();
      const std::uint32_t first = allocateChildren(n);
      const Vec2 at = splitOf(nodes_[n]);
      for (std::uint32_t id = nodes_[n].firstItem; id != kNone;) {
        const std::uint32_t next = nextItem(id);
        const Circle& c = circle(id);
        const std::uint32_t child = first + quadrantOf(c.center, at);
        unlinkItem(id);
        linkItem(id, child);
        ++nodes_[child].subtreeCount;
        nodes_[child].widen = std::max(nodes_[child].widen, c.radius);
        id = next;
      }
      for (std::uint32_t q = 0; q < 4; ++q) {
        if (nodes_[first + q].directCount > capacity_ && canSplit(first + q, d + 1))
          pending.push_back({first + q, d + 1});
      }
    }
  }

  void detach(ItemId id, float oldRadius) {
    const std::uint32_t leaf = nodeOf(id);
    unlinkItem(id);
    addToPathCounts(leaf, -1);
    if (oldRadius >= nodes_[leaf].widen) refreshWidenUpward(leaf);
    for (std::uint32_t n = nodes_[leaf].parent; n != kNone; n = nodes_[n].parent) {
      if (nodes_[n].subtreeCount > capacity_) break;
      collapseSubtree(n);
    }
  }

  // Recomputes the largest radius from `node` upward, stopping where it no longer changes.
  void refreshWidenUpward(std::uint32_t node) {
    for (std::uint32_t n = node; n != kNone; n = nodes_[n].parent) {
      const QuadNode& here = nodes_[n];
      float largest = 0.0f;
      if (here.firstChild == kNone) {
        for (std::uint32_t id = here.firstItem; id != kNone; id = nextItem(id))
          largest = std::max(largest, circle(id).radius);
      } else {
        for (std::uint32_t q = 0; q < 4; ++q) largest = std::max(largest, nodes_[here.firstChild + q].widen);
      }
      if (largest == here.widen) return;
      nodes_[n].widen = largest;
    }
  }

  std::uint32_t capacity_ = 4;
  int maxDepth_ = 24;
  std::vector<std::pair<std::uint32_t, int>> splitPending_;  // leaves still to split, kept between calls
  std::uint64_t updatesInPlace_ = 0;
  std::uint64_t updatesRelinked_ = 0;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeQuadtree() {
  return std::make_unique<PointQuadtree>();
}

}  // namespace st
