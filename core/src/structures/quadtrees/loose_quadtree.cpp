// The loose quadtree (Thatcher Ulrich's loose octrees in 2D, named in the comments of seed 003). Each node's
// bounds are its cell enlarged to `factor` times the side, around the same centre. A circle's level follows
// from its radius alone, its cell from its centre, and it always fits the loose bounds of that cell, so no
// circle ever straddles and none piles up above its level the way the fit-entirely quadtree's do. A circle
// that moves stays where it is, at O(1) cost, for as long as it still fits those loose bounds.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "quadtree_family.hpp"
#include "spheretest/structures.hpp"
#include "structures/shared/ordered_pieces.hpp"

namespace st {
namespace {

using namespace quadtree_family;

class LooseQuadtree final : public QuadtreeFamily {
 public:
  LooseQuadtree()
      : QuadtreeFamily("loose-quadtree", {"query misses the loose bounds",
                                          /*widenFollowsCell=*/true, /*countWidening=*/false}) {
    addParam({"factor", "loose bounds are the cell scaled by this around its centre (Ulrich's k)", 2.0, 1.25,
              4.0, false});
    addParam({"max_depth", "deepest level below the first root; 0 = about one circle per cell at build", 0, 0,
              30, true});
    readParams();
    levelLimit_ = depthLimitFor(0);
    nodes_[0].widen = freshWiden(nodes_[0].cell);  // the base could not ask while it was being constructed
  }

  std::string_view description() const override {
    return "Loose quadtree (Ulrich's loose octrees, named in the comments of seed 003): a quadtree whose "
           "nodes' bounds are their cells scaled by loose-quadtree.factor (default 2), a circle's level "
           "coming from its radius and its cell from its centre, so no circle straddles a boundary and small "
           "circles never collect near the root. A move is O(1) while the circle still fits its node's loose "
           "bounds (update_fast_path_ratio), and a query visits the nodes whose loose bounds it meets. "
           "Choose it for circles of mixed sizes that move.";
  }
  std::string_view nodeRule() const override {
    return "a circle goes to the level its radius picks and, there, to the cell holding its centre; the "
           "node's loose bounds (its cell scaled by loose-quadtree.factor) always contain it";
  }

 protected:
  void onParamChanged(std::string_view key) override {
    readParams();
    QuadtreeFamily::onParamChanged(key);
  }

  float freshWiden(const Box& cell) const override {
    const float side = std::max(cell.max.x - cell.min.x, cell.max.y - cell.min.y);
    return 0.5f * (factor_ - 1.0f) * side;
  }

  void onRootGrown() override { ++levelLimit_; }

  void onCleared() override {
    levelLimit_ = depthLimitFor(0);
    updatesInPlace_ = updatesRelinked_ = 0;
  }

  void doBuild(std::span<const Item> items) override {
    levelLimit_ = depthLimitFor(items.size());
    QuadtreeFamily::doBuild(items);
  }

  void doInsert(ItemId id, const Circle& c) override {
    reserveIds();
    attach(id, c);
  }

  void doUpdate(ItemId id, const Circle&, const Circle& c) override {
    if (fitsItsNode(id, c)) {
      ++updatesInPlace_;
      return;
    }
    relink(id, c);
    ++updatesRelinked_;
  }

  // Whether a moved circle still fits its node's loose bounds depends on no other move (a relink frees
  // only empty nodes, and growing the root renumbers a node without changing its bounds), so the workers
  // pick out the circles that left first, and those are relinked in batch order on the calling thread: the
  // same tree as one move after another.
  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle>) override {
    pieces::collect(scheduler(), ids.size(), leaving_,
                    [&](std::size_t begin, std::size_t end, std::vector<ItemId>& list) {
                      for (std::size_t i = begin; i < end; ++i) {
                        if (!fitsItsNode(ids[i], circle(ids[i]))) list.push_back(ids[i]);
                      }
                    });
    updatesInPlace_ += ids.size() - leaving_.size();
    updatesRelinked_ += leaving_.size();
    // The circles that left lie all over the id range and the tree: each relink's first reads are fetched
    // a few relinks ahead, its item links and circle first, its node once the link to it has arrived.
    constexpr std::size_t kLinksAhead = 8, kNodeAhead = 4;
    for (std::size_t k = 0; k < leaving_.size(); ++k) {
      if (k + kLinksAhead < leaving_.size()) prefetchLinks(leaving_[k + kLinksAhead]);
      if (k + kNodeAhead < leaving_.size()) prefetchNodeOf(leaving_[k + kNodeAhead]);
      relink(leaving_[k], circle(leaving_[k]));
    }
  }
  bool batchNeedsOldCircles(std::size_t) const override { return false; }

  void doRemove(ItemId id, const Circle&) override { detach(id); }

  std::string checkNode(std::uint32_t index, int depth) const override {
    const QuadNode& node = nodes_[index];
    if (node.widen != freshWiden(node.cell))
      return "node " + std::to_string(index) + " has the wrong loose margin";
    if (depth > levelLimit_) return "node " + std::to_string(index) + " lies below the level limit";
    if (node.firstChild != kNoIndex) {
      bool anyItems = false;
      for (std::uint32_t q = 0; q < 4; ++q)
        anyItems = anyItems || nodes_[node.firstChild + q].subtreeCount > 0;
      if (!anyItems) return "node " + std::to_string(index) + " keeps four empty children";
    }
    return {};
  }

  std::string checkItem(std::uint32_t node, int, ItemId id) const override {
    if (!circleFitsInBox(circle(id), nodeBounds(nodes_[node]))) {
      return "item " + std::to_string(id) + " does not fit its node's loose bounds";
    }
    return {};
  }

  std::size_t ownBytes() const override { return leaving_.capacity() * sizeof(ItemId); }

  void extraOwn(ExtraCounters& out) const override {
    const double updates = double(updatesInPlace_ + updatesRelinked_);
    out.emplace_back("updates_in_place", double(updatesInPlace_));
    out.emplace_back("updates_relinked", double(updatesRelinked_));
    out.emplace_back("update_fast_path_ratio", updates > 0 ? double(updatesInPlace_) / updates : 0.0);
    out.emplace_back("level_limit", double(levelLimit_));
  }

 private:
  void readParams() {
    factor_ = static_cast<float>(param("factor"));
    maxDepth_ = static_cast<int>(param("max_depth"));
  }

  // Without a limit, small circles in a sparse world each hang at the end of their own chain of nearly empty
  // nodes. The automatic limit stops where the world cell is split into about as many cells as there are
  // circles (4^depth ~ count), so cells of the deepest level hold about one circle each.
  int depthLimitFor(std::size_t count) const {
    if (maxDepth_ > 0) return maxDepth_;
    int depth = 2;
    while (depth < 16 && (std::size_t(1) << (2 * (depth + 1))) <= count) ++depth;
    return depth;
  }

  // The deepest level whose loose margin, (factor - 1) / 2 of the cell side, still covers the radius:
  // there the circle fits the loose bounds of the cell holding its centre.
  int levelForRadius(float radius) const {
    if (radius <= 0.0f) return levelLimit_;
    const double side = double(nodes_[0].cell.max.x) - double(nodes_[0].cell.min.x);
    const double ratio = (double(factor_) - 1.0) * side / (2.0 * double(radius));
    if (!(ratio >= 1.0)) return 0;
    return std::min(std::ilogb(ratio), levelLimit_);
  }

  // Whether a stored circle, now at `c`, still fits the loose bounds of the node holding it: it may stay.
  bool fitsItsNode(ItemId id, const Circle& c) const {
    return circleFitsInBox(c, nodeBounds(nodes_[nodeOf(id)]));
  }

  void attach(ItemId id, const Circle& c) {
    if (!rootPlaced()) placeRoot(boundsOf(c));
    while (!circleFitsInBox(c, nodeBounds(nodes_[0]))) growRootToward(c.center);
    const std::uint32_t n = descend(0, 0, levelForRadius(c.radius), c);
    linkItem(id, n);
    addToPathCounts(n, +1);
  }

  // A circle that left its node's loose bounds usually lands close by: it climbs from its node to the
  // nearest ancestor the descent from the root passes through for it (one at or above its level whose cell
  // holds its centre and whose loose bounds hold it, which the loose bounds of every node above contain), and
  // goes down from there, as the capacity-split quadtrees relink a moved circle. The counts change only
  // below that ancestor and the nodes above it are not read: at a million circles, the relinks run one
  // after another on one thread. A circle the root's loose bounds no longer hold goes the long way.
  void relink(ItemId id, const Circle& c) {
    if (!circleFitsInBox(c, nodeBounds(nodes_[0]))) {
      detach(id);
      attach(id, c);
      return;
    }
    const int level = levelForRadius(c.radius);
    const std::uint32_t from = nodeOf(id);
    std::uint32_t top = from;
    int topDepth = depthOfCell(nodes_[top].cell);
    while (top != 0 && !(topDepth <= level && cellTakesPoint(nodes_[top].cell, c.center) &&
                         circleFitsInBox(c, nodeBounds(nodes_[top])))) {
      top = nodes_[top].parent;
      --topDepth;
    }
    unlinkItem(id);
    addToPathCounts(from, -1, top);
    // Child blocks left empty go, from the bottom up; `top` still counts the circle, so this stops below it.
    freeEmptyBlocksAbove(from);
    const std::uint32_t n = descend(top, topDepth, level, c);
    linkItem(id, n);
    addToPathCounts(n, +1, top);
  }

  // A node's depth below the current root, from the sides of the two cells (each level halves the side).
  int depthOfCell(const Box& cell) const {
    const double rootSide = double(nodes_[0].cell.max.x) - double(nodes_[0].cell.min.x);
    const double side = double(cell.max.x) - double(cell.min.x);
    return static_cast<int>(std::lround(std::log2(rootSide / side)));
  }

  // The node the descent from node `start`, at `startDepth`, stores the circle in: down through the cells
  // that hold its centre while their loose bounds hold it, to the level its radius picks, making the
  // children it needs on the way.
  std::uint32_t descend(std::uint32_t start, int startDepth, int level, const Circle& c) {
    std::uint32_t n = start;
    for (int depth = startDepth; depth < level; ++depth) {
      const QuadNode& node = nodes_[n];
      std::uint32_t child;
      if (node.firstChild == kNoIndex) {
        // Check before allocating, so that no block of four empty children is ever created.
        if (!cellSplittable(node.cell)) break;
        const Vec2 split = cellMiddle(node.cell);
        const std::uint32_t q = quadrantOf(c.center, split);
        QuadNode probe;
        probe.cell = quadrantCell(node.cell, split, q);
        probe.widen = freshWiden(probe.cell);
        if (!circleFitsInBox(c, nodeBounds(probe))) break;
        child = allocateChildren(n) + q;
      } else {
        child = node.firstChild + quadrantOf(c.center, splitOf(node));
        // Float rounding, or a centre outside the root's cell, can leave the circle short of fitting.
        if (!circleFitsInBox(c, nodeBounds(nodes_[child]))) break;
      }
      n = child;
    }
    return n;
  }

  void detach(ItemId id) {
    const std::uint32_t n = nodeOf(id);
    unlinkItem(id);
    addToPathCounts(n, -1);
    freeEmptyBlocksAbove(n);
  }

  // Drops the child blocks that no longer hold anything, from node `n`'s block up.
  void freeEmptyBlocksAbove(std::uint32_t n) {
    for (std::uint32_t m = n; m != 0;) {
      const std::uint32_t parent = nodes_[m].parent;
      const std::uint32_t first = nodes_[parent].firstChild;
      for (std::uint32_t q = 0; q < 4; ++q) {
        if (nodes_[first + q].subtreeCount > 0) return;
      }
      freeChildren(parent);
      m = parent;
    }
  }

  float factor_ = 2.0f;
  int maxDepth_ = 0;     // 0: chosen from the count at each build
  int levelLimit_ = 16;  // deepest level, counted from the current root (grows with the root)
  std::uint64_t updatesInPlace_ = 0;
  std::uint64_t updatesRelinked_ = 0;
  std::vector<ItemId> leaving_;  // a batch's circles that left their node's loose bounds
};

}  // namespace

std::unique_ptr<SpatialIndex> makeLooseQuadtree() {
  return std::make_unique<LooseQuadtree>();
}

}  // namespace st
