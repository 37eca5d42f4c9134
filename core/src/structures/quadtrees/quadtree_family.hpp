#pragma once
// Machinery shared by the three quadtrees (point quadtree, fit-entirely quadtree, loose quadtree).
//
// All three are the same tree underneath: square cells split at their middle into four quadrants, nodes in
// one pool addressed by 32-bit indices, the four children of a node allocated together as one block, items
// kept in intrusive doubly linked lists threaded through per-id arrays. They differ only in where an item
// is stored and in how far beyond its cell a node's items may reach: every node carries a `widen` margin,
// and cell +- widen is a box that holds every item stored in the node's subtree. Queries and pair search
// only need that box, so they live here once; placement, removal and the invariants live in each structure.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "large_pages.hpp"
#include "spheretest/spatial_index.hpp"
#include "structures/shared/free_list.hpp"
#include "structures/shared/no_index.hpp"
#include "structures/shared/pair_view.hpp"
#include "structures/shared/simd_support.hpp"
#include "structures/shared/view_queries.hpp"

namespace st::quadtree_family {

/// Marks a missing node, child block or item in an index field.

/// Deepest level the per-depth figures distinguish; deeper levels are added to the last slot.
inline constexpr int kDepthSlots = 64;

/// One node of a quadtree. Children are the four consecutive nodes from firstChild, in the order
/// (low x, low y), (high x, low y), (low x, high y), (high x, high y).
struct QuadNode {
  Box cell;            ///< the square this node partitions
  float widen = 0.0f;  ///< items of the subtree lie within cell grown by this on every side
  std::uint32_t firstChild =
      kNoIndex;  ///< first of four children; kNoIndex for a leaf; next free block when dead
  std::uint32_t parent = kNoIndex;     ///< parent node; kNoIndex for the root and for dead nodes
  std::uint32_t firstItem = kNoIndex;  ///< head of the list of items stored directly here
  std::uint32_t directCount = 0;       ///< items stored directly here
  std::uint32_t subtreeCount = 0;      ///< items stored here and below
};
static_assert(sizeof(QuadNode) == 40, "a quadtree node should stay five 8-byte words");

/// The split point of a cell: its middle, computed the one way every caller uses.
inline Vec2 cellMiddle(const Box& cell) {
  return {cell.min.x + (cell.max.x - cell.min.x) * 0.5f, cell.min.y + (cell.max.y - cell.min.y) * 0.5f};
}

/// Whether a cell can still be halved in float: its middle must lie strictly inside on both axes.
inline bool cellSplittable(const Box& cell) {
  const Vec2 mid = cellMiddle(cell);
  return cell.min.x < mid.x && mid.x < cell.max.x && cell.min.y < mid.y && mid.y < cell.max.y;
}

/// The quadrant (0..3, see QuadNode) of a point with respect to a split point; ties go to the high side.
inline std::uint32_t quadrantOf(Vec2 p, Vec2 split) {
  return (p.x >= split.x ? 1u : 0u) | (p.y >= split.y ? 2u : 0u);
}

/// The cell of quadrant `q` of `cell` split at `split`.
inline Box quadrantCell(const Box& cell, Vec2 split, std::uint32_t q) {
  Box b = cell;
  if (q & 1u)
    b.min.x = split.x;
  else
    b.max.x = split.x;
  if (q & 2u)
    b.min.y = split.y;
  else
    b.max.y = split.y;
  return b;
}

/// Whether a point lies in a cell as the descent by quadrantOf sees it: from its low edges up to, not
/// onto, its high ones (a point on a split line belongs to the high side).
inline bool cellTakesPoint(const Box& cell, Vec2 p) {
  return p.x >= cell.min.x && p.x < cell.max.x && p.y >= cell.min.y && p.y < cell.max.y;
}

/// Whether a circle lies entirely inside a closed box, decided in double.
inline bool circleFitsInBox(const Circle& c, const Box& b) {
  const double x = c.center.x, y = c.center.y, r = c.radius;
  return x - r >= double(b.min.x) && x + r <= double(b.max.x) && y - r >= double(b.min.y) &&
         y + r <= double(b.max.y);
}

/// A square cell covering `b`, never so small that float cannot split or double it.
Box squareCellCovering(const Box& b);

// ---------------------------------------------------------------------------------------------------------
// QuadtreeFamily
// ---------------------------------------------------------------------------------------------------------

/// How a member of the family presents itself in traces and drawings.
struct FamilyStyle {
  const char* pruneTest = "";     ///< names the bounds test in traces
  bool widenFollowsCell = false;  ///< widen is a function of the cell (loose), not of the contents
  bool countWidening = false;     ///< count nodes entered only because of the widening
};

/// Base of the three quadtrees: pool, item lists, root growth, queries, pair search, drawing, stats.
class QuadtreeFamily : public SpatialIndex {
 public:
  /// Draws every live node with its depth and its own item count.
  void visitNodes(const NodeVisitor& visitor) const override;
  /// The nodes from the root down to the one storing the item.
  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override;
  /// Live nodes, deepest level, capacity-based bytes.
  IndexStats stats() const override;
  /// The structure's own figures, then the item depth histogram and the last query's candidates per depth.
  void extra(ExtraCounters& out) const override;

 protected:
  /// An empty tree whose root is a unit cell until the first build or insert places it.
  QuadtreeFamily(std::string name, FamilyStyle style);

  // -- hooks for each member
  // ---------------------------------------------------------------------------------
  /// The widen of a fresh node with this cell (a loose margin, or 0 when widen follows contents).
  virtual float freshWiden(const Box& cell) const {
    (void)cell;
    return 0.0f;
  }
  /// Called after the root gained a level above it (the loose tree counts levels).
  virtual void onRootGrown() {}
  /// Forgets member-specific state when everything is dropped.
  virtual void onCleared() {}
  /// Member-specific check of one node; "" when fine.
  virtual std::string checkNode(std::uint32_t index, int depth) const {
    (void)index;
    (void)depth;
    return {};
  }
  /// Member-specific check of one stored item; "" when fine.
  virtual std::string checkItem(std::uint32_t node, int depth, ItemId id) const {
    (void)node;
    (void)depth;
    (void)id;
    return {};
  }
  /// Reads the family's own parameter; any other rebuilds the tree.
  void onParamChanged(std::string_view key) override;
  /// Member-specific figures for extra().
  virtual void extraOwn(ExtraCounters& out) const { (void)out; }
  /// Bytes of member-specific state, for stats().
  virtual std::size_t ownBytes() const { return 0; }

  // -- SpatialIndex hooks shared by the family -------------------------------------------------------------
  void doBuild(std::span<const Item> items) override;
  void doClear() override;
  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override;
  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override;
  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override;
  void doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const override;
  void doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const override;
  void doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const override;
  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override;
  std::optional<RayHit> doRayCastFirst(const Segment& segment, QueryContext& ctx) const override;
  void doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                      QueryContext& ctx) const override;
  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override;
  void doFindPairs(std::vector<Pair>& out) override;
  void doMaintain() override;
  std::string doValidate() const override;

  // -- pool
  // --------------------------------------------------------------------------------------------------
  /// Gives `parent` four children splitting its cell at its middle; may reallocate the pool.
  std::uint32_t allocateChildren(std::uint32_t parent);
  /// Returns the child block of `parent` to the free list; the children must be empty leaves.
  void freeChildren(std::uint32_t parent);
  /// Moves every item below `node` into `node` itself and frees all its descendants.
  void collapseSubtree(std::uint32_t node);
  /// Renumbers the live nodes in the order of a depth-first walk, child 0 first, and drops the dead ones.
  void layOutDepthFirst();
  /// Depth of a node (0 at the root), by walking its parents.
  int depthOf(std::uint32_t node) const {
    int depth = 0;
    for (std::uint32_t n = nodes_[node].parent; n != kNoIndex; n = nodes_[n].parent) ++depth;
    return depth;
  }

  // -- items -----------------------------------------------------------------------------------------------
  /// Makes the per-id arrays cover every id the item table can hold.
  void reserveIds();
  /// Stores an item directly in `node` (counts along the path are the caller's business).
  void linkItem(ItemId id, std::uint32_t node);
  /// Takes an item out of its node's list (counts along the path are the caller's business).
  void unlinkItem(ItemId id);
  /// Adds `delta` to subtreeCount from `node` up to the root, or up to but not including `stop`.
  void addToPathCounts(std::uint32_t node, int delta, std::uint32_t stop = kNoIndex);
  /// The node an item is stored in.
  std::uint32_t nodeOf(ItemId id) const { return itemNode_[id]; }
  /// The item after `id` in its node's list, or kNoIndex.
  std::uint32_t nextItem(ItemId id) const { return itemNext_[id]; }
  /// Starts fetching what unlinking `id` reads first (its node link, its list links, its circle).
  void prefetchLinks(ItemId id) const {
    simd::prefetch(&itemNode_[id]);
    simd::prefetch(&itemPrev_[id]);
    simd::prefetch(&itemNext_[id]);
    simd::prefetch(&circle(id));
  }
  /// Starts fetching the node `id` is stored in (its node link must have arrived to be worth it).
  void prefetchNodeOf(ItemId id) const { simd::prefetch(&nodes_[nodeOf(id)]); }
  /// Starts fetching what a relink of `id` reads after its own links (prefetchLinks must have brought
  /// them): its node and the list links of its neighbours, which unlinking rewrites.
  void prefetchNodeAndNeighbours(ItemId id) const {
    prefetchNodeOf(id);
    if (const std::uint32_t prev = itemPrev_[id]; prev != kNoIndex) simd::prefetch(&itemNext_[prev]);
    if (const std::uint32_t next = itemNext_[id]; next != kNoIndex) simd::prefetch(&itemPrev_[next]);
  }
  /// Starts fetching the parent of the node `id` is stored in, where a relink climbs first (the node must
  /// have arrived).
  void prefetchParentOf(ItemId id) const {
    if (const std::uint32_t parent = nodes_[nodeOf(id)].parent; parent != kNoIndex)
      simd::prefetch(&nodes_[parent]);
  }
  /// Starts fetching the child block of that parent, where a relink usually lands (the parent must have
  /// arrived).
  void prefetchSiblingsOf(ItemId id) const {
    const std::uint32_t parent = nodes_[nodeOf(id)].parent;
    if (parent != kNoIndex) prefetchChildBlock(parent);
  }
  /// Starts fetching the children of the node `id` is stored in, which a stay test of a circle held above
  /// them reads (the node must have arrived).
  void prefetchChildrenOf(ItemId id) const { prefetchChildBlock(nodeOf(id)); }
  /// Starts fetching the four children of `node`, if it has them.
  void prefetchChildBlock(std::uint32_t node) const {
    const std::uint32_t first = nodes_[node].firstChild;
    if (first == kNoIndex) return;
    const char* block = reinterpret_cast<const char*>(&nodes_[first]);
    for (std::size_t offset = 0; offset < 4 * sizeof(QuadNode); offset += 64) simd::prefetch(block + offset);
  }

  // -- root ----------------------------------------------------------------------------------------------
  /// Places an empty root on the scene's world hint, or on `fallback` when there is none.
  void placeRoot(const Box& fallback);
  /// Whether the root has been placed since the last clear.
  bool rootPlaced() const { return rootPlaced_; }
  /// Doubles the root cell toward `target`; an internal root becomes one quadrant of a new root.
  void growRootToward(Vec2 target);

  /// A node's box holding every item of its subtree: cell grown by widen.
  static Box nodeBounds(const QuadNode& node) {
    return {{node.cell.min.x - node.widen, node.cell.min.y - node.widen},
            {node.cell.max.x + node.widen, node.cell.max.y + node.widen}};
  }
  /// The split point of an internal node: the corner its four children share.
  Vec2 splitOf(const QuadNode& node) const { return nodes_[node.firstChild + 3].cell.min; }

  LargeVector<QuadNode> nodes_;  ///< the pool; index 0 is always the root

 private:
  struct StackEntry {
    std::uint32_t node;
    std::uint32_t depth;
  };

  std::uint32_t takeBlock();
  NodeInfo infoOf(std::uint32_t index, int depth) const;
  int nonEmptyChildren(std::uint32_t node, std::uint32_t (&children)[4]) const;
  void sortIdsByBucket(TaskScheduler& workers, std::size_t buckets);
  class Walkable;
  // `out` is a vector of ids or a visitor that can stop the walk.
  template <class Shape, class Out>
  void collect(const Shape& shape, Out& out, QueryContext& ctx) const;
  void readQueryParams();

  FamilyStyle style_;
  LargeVector<std::uint32_t> itemNode_;  // id -> node holding it
  LargeVector<std::uint32_t> itemNext_;  // id -> next id in the node's list
  LargeVector<std::uint32_t> itemPrev_;  // id -> previous id in the node's list
  FreeList freeBlocks_;  // dead child blocks of four; each links the next through its first's firstChild
  bool rootPlaced_ = false;
  bool building_ = false;                     // inside doBuild: the pool may double
  std::uint64_t blocksTakenSinceLayout_ = 0;  // child blocks placed out of depth-first order since the last
  std::uint64_t layouts_ = 0;                 // depth-first layouts of the pool since the last clear
  std::vector<std::uint32_t> viewStack_;      // the hand-over's walk
  // The hand-over (see doFindPairs): each node's slot and bucket, the parts and the bucket sort of the ids.
  std::vector<std::uint32_t> ownAt_;              // the slot of each node's own items; after it, their end
  std::vector<std::uint32_t> nodeBucket_;         // 0 above the parts, p + 1 inside part p
  std::vector<std::uint32_t> partRoots_;          // the root of each part, in hand-over order
  std::vector<std::uint32_t> bucketCursor_;       // per chunk of ids and bucket: count, then where to write
  std::vector<std::uint32_t> bucketStart_;        // where each bucket's ids begin in byBucket_
  std::vector<ItemId> byBucket_;                  // ids sorted by bucket, in id order within each
  pair_view::Parts parts_;                        // the parts' counts and scratch
  pair_view::PairView view_;                      // the tree as the pair search reads it
  pair_view::ItemCopy viewItems_;                 // the items in the view's depth-first order
  std::vector<pair_view::WalkScratch> viewWalk_;  // one per worker
  // The nodes holding more than a leaf of the view's items themselves (the fit-entirely quadtree's
  // straddlers high in the tree), by bucket as the hand-over meets them; then each with the view node of
  // its items' k-d split, sorted by node, which queries walk while the copy is current.
  std::vector<std::vector<std::uint32_t>> longRuns_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ownSplits_;
  bool splitRuns_ = true;                       // the split_runs parameter
  pair_view::ViewQueries viewQueries_;          // queries answered from view_ while it is current
  std::vector<std::uint32_t> collapsePending_;  // scratch of collapseSubtree, kept to avoid reallocating
  std::vector<std::uint32_t> collapseParents_;

  // contentVersion() when the pair search laid the items out in viewItems_: queries read them there while
  // it still is.
  std::uint64_t copyVersion_ = ~std::uint64_t{0};
};

}  // namespace st::quadtree_family
