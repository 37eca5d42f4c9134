#pragma once
// Dynamic AABB tree, the broad phase that Box2D, Bullet and Chipmunk ship (the AABB-hierarchy comments on
// seed 003): one leaf per circle holding an enlarged ("fat") box, so that small moves leave the tree
// untouched; a circle that leaves its fat box is removed and reinserted where the surface-area heuristic
// (perimeter in 2D) says it costs least, and every node on the way back up is refitted and rotated to keep
// the tree balanced. A batch in which too many circles escaped can rebuild the whole tree top-down instead.
//
// Layout: a leaf is its item: its fat box and its parent live in arrays indexed by item id, so the fat-box
// check of a frame's moves reads them in id order. Internal nodes live in one pool addressed by 32-bit
// indices (dead ones form a free list through their parent field); a child reference with the top bit set
// names a leaf by item id. The pool is renumbered depth first whenever the tree is built and whenever
// reinsertions have scattered it, so that descents, walks and the pair search read it forward.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "large_pages.hpp"
#include "spheretest/structures.hpp"
#include "structures/shared/bvh_pruning.hpp"
#include "structures/shared/free_list.hpp"
#include "structures/shared/morton.hpp"
#include "structures/shared/no_index.hpp"
#include "structures/shared/ordered_pieces.hpp"
#include "structures/shared/pair_view.hpp"
#include "structures/shared/simd_support.hpp"
#include "structures/shared/tree_walk.hpp"
#include "structures/shared/view_queries.hpp"

namespace st::aabb_tree {

using bvh::Side;

// A child reference: an internal node index, or kLeafBit | item id.
using Ref = std::uint32_t;
constexpr Ref kLeafBit = 0x80000000u;
// Parent of an id that is not in the tree.
constexpr std::uint32_t kAbsentLeaf = 0xfffffffeu;

// Bins of the top-down builder's surface-area split search.
constexpr int kBins = 16;

// A subtree this tall holds at most 2^height leaves: at or below it, the pair search takes it as one leaf.
constexpr int kBatchHeight = [] {
  int h = 0;
  while ((2u << h) <= pair_view::kBatchItems) ++h;
  return h;
}();

// The hand-over's parts are subtrees of at most this many levels (2^13 items), a cut that depends only on
// the tree.
constexpr int kPartHeight = 13;

// In a hand-over's walk stack: closes the innermost open node (no index or leaf reference).
constexpr Ref kLeaveNode = 0x7fffffffu;

struct AabbNode {
  Box box;                                       // union of the children's boxes
  std::array<Ref, 2> child{kNoIndex, kNoIndex};  // internal indices or leaf references
  std::uint32_t parent = kNoIndex;               // next free node while dead
  std::int32_t height = -1;                      // >= 1 while live, -1 while dead
};
static_assert(sizeof(AabbNode) == 32, "aabb-tree nodes are kept at 32 bytes");

inline bool isLeaf(Ref r) {
  return (r & kLeafBit) != 0;
}
inline ItemId itemOf(Ref r) {
  return r & ~kLeafBit;
}
inline Ref leafRef(ItemId id) {
  return id | kLeafBit;
}

// The float box the predicates' circle can never leave (boundsOf rounds; the inflation absorbs it).
inline Box tightBox(const Circle& c) {
  return inflateForPruning(boundsOf(c));
}

inline Box grow(const Box& b, float by) {
  return {{b.min.x - by, b.min.y - by}, {b.max.x + by, b.max.y + by}};
}

class AabbTree final : public SpatialIndex {
 public:
  AabbTree() : SpatialIndex("aabb-tree") {
    addParam({"margin", "fat-box margin around each circle, world units: moves within it cost nothing", 1.0,
              0.0, 1e12, false});
    addParam({"predict", "fat boxes also stretch this many times the last displacement, ahead of the motion",
              4.0, 0.0, 64.0, false});
    addParam(
        {"rebuild_fraction",
         "rebuild the whole tree top-down when more than this share of an update batch escapes its fat boxes "
         "(1 = never, 0 = whenever any escapes)",
         1.0, 0.0, 1.0, false});
    addParam(
        {"rebuild_quality",
         "rebuild the whole tree top-down once its quality (internal box perimeters over leaf box "
         "perimeters, the SAH cost) exceeds this many times its value after the last build, checked every "
         "32 frames: reinsertions loosen the tree over a long run (0 = never)",
         1.1, 0.0, 64.0, false});
    addParam(pair_view::viewQueriesParam());
    readParams();
  }

  std::string_view description() const override {
    return "Dynamic AABB tree (the broad phase of Box2D, Bullet and Chipmunk): one leaf per circle with a "
           "fat box, so a move inside it costs one box test, and a circle that escapes is reinserted by the "
           "surface-area heuristic in O(log n), rotations keeping the tree balanced. build(), a tree whose "
           "SAH cost has drifted and, optionally, a batch in which many circles escaped rebuild top-down "
           "with binned SAH in O(n log n). Choose it for general moving scenes with mixed sizes; it makes no "
           "assumption about the world's extent or the radius distribution.";
  }

  // -- introspection ------------------------------------------------------------------------------------

  void visitNodes(const NodeVisitor& visitor) const override {
    if (root_ == kNoIndex) return;
    std::vector<std::pair<Ref, int>> stack{{root_, 0}};
    while (!stack.empty()) {
      const auto [r, depth] = stack.back();
      stack.pop_back();
      visitor(nodeInfo(r, depth));
      if (!isLeaf(r)) {
        stack.push_back({nodes_[r].child[0], depth + 1});
        stack.push_back({nodes_[r].child[1], depth + 1});
      }
    }
  }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    std::vector<Ref> chain;
    for (Ref r = leafRef(id);; r = parentOf(r)) {
      chain.push_back(r);
      if (parentOf(r) == kNoIndex) break;
    }
    for (std::size_t k = chain.size(); k-- > 0;) visitor(nodeInfo(chain[k], int(chain.size() - 1 - k)));
  }

  std::string_view nodeRule() const override {
    return "every circle is a leaf with a fat box; a leaf that escapes its box is reinserted where the sum "
           "of "
           "the box perimeters grows least (the surface-area heuristic)";
  }

  IndexStats stats() const override {
    IndexStats s;
    s.nodes = liveNodes_ + size();
    s.maxDepth = root_ == kNoIndex ? 0 : heightOf(root_);
    s.memoryBytes = tableBytes() + nodes_.capacity() * sizeof(AabbNode) + fat_.capacity() * sizeof(Box) +
                    up_.capacity() * sizeof(std::uint32_t) + order_.capacity() * sizeof(std::uint64_t) +
                    walkStack_.capacity() * sizeof(Ref) + view_.bytes() + items_.bytes() +
                    pair_view::scratchBytes(scratch_) + parts_.bytes() +
                    (partRoots_.capacity() + partItems_.capacity()) * 4;
    return s;
  }

  void extra(ExtraCounters& out) const override {
    out.push_back({"height", root_ == kNoIndex ? 0.0 : double(heightOf(root_))});
    out.push_back({"quality", quality()});
    out.push_back({"fat_path_ratio", moves_ == 0 ? 1.0 : double(fatPath_) / double(moves_)});
    out.push_back({"moves", double(moves_)});
    out.push_back({"reinserts", double(reinserts_)});
    out.push_back({"rotations", double(rotations_)});
    out.push_back({"rebuilds", double(rebuilds_)});
    out.push_back({"quality_rebuilds", double(qualityRebuilds_)});
    out.push_back({"relayouts", double(relayouts_)});
  }

 protected:
  void onParamChanged(std::string_view key) override {
    readParams();
    if (key != "rebuild_fraction" && key != "rebuild_quality" && key != "view_queries") rebuildFromTable();
  }

  // Rebuilds the tree top-down from the circles it holds, keeping the per-id arrays.
  void rebuildTopDown() {
    std::vector<BuildEntry> entries;
    entries.reserve(size());
    forEachItem([&](ItemId id, const Circle& c) { entries.push_back(buildEntry(id, c)); });
    buildTopDown(entries);
  }

  // The tree's SAH cost, scale-free: the internal nodes' box perimeters over the leaves' (0 when empty).
  double quality() const {
    double internalPerimeter = 0.0, leafPerimeter = 0.0;
    for (const AabbNode& n : nodes_) {
      if (n.height >= 0) internalPerimeter += boxPerimeter(n.box);
    }
    forEachItem([&](ItemId id, const Circle&) { leafPerimeter += boxPerimeter(fat_[id]); });
    return leafPerimeter > 0.0 ? internalPerimeter / leafPerimeter : 0.0;
  }

  // -- mutation ----------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    fat_.resize(idCapacity());
    up_.assign(idCapacity(), kAbsentLeaf);
    std::vector<BuildEntry> entries;
    entries.reserve(items.size());
    for (const Item& item : items) entries.push_back(buildEntry(item.id, item.circle));
    buildTopDown(entries);
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (up_.size() < idCapacity()) {
      fat_.resize(idCapacity());
      up_.resize(idCapacity(), kAbsentLeaf);
    }
    fat_[id] = fatBox(c, {0, 0});
    insertLeaf(leafRef(id), root_);
  }

  void doUpdate(ItemId id, const Circle& old, const Circle& c) override {
    ++moves_;
    const Vec2 displacement = c.center - old.center;
    if (fits(fat_[id], c, displacement)) {
      ++fatPath_;
      return;
    }
    reinsert(id, c, displacement);
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override {
    // Nothing to reinsert; an empty tree (an empty batch) has no root box to order escapes in.
    if (root_ == kNoIndex) return;
    // Which circles left their fat boxes depends on no reinsertion, so the workers find them first, each
    // keyed by where it is now along a Z curve over the root's box: reinserted in that order, consecutive
    // descents share most of their path and find it in the cache. order_ holds the key in its high half
    // and the batch index in its low half.
    const MortonFrame frame(boxOf(root_));
    pieces::collect(scheduler(), ids.size(), order_,
                    [&](std::size_t begin, std::size_t end, std::vector<std::uint64_t>& escaped) {
                      for (std::size_t i = begin; i < end; ++i) {
                        const Circle& c = circle(ids[i]);
                        if (!fits(fat_[ids[i]], c, c.center - old[i].center))
                          escaped.push_back((std::uint64_t(frame.key(c.center)) << 32) | i);
                      }
                    });
    moves_ += ids.size();
    fatPath_ += ids.size() - order_.size();
    if (order_.empty()) return;
    if (rebuildFraction_ < 1.0 && double(order_.size()) > rebuildFraction_ * double(size())) {
      ++rebuilds_;
      rebuildTopDown();
      return;
    }
    std::sort(order_.begin(), order_.end());
    // Neighbours in Morton order are scattered in id order: their leaves, circles and parents are fetched
    // a few reinsertions ahead (the parent once its index has arrived).
    constexpr std::size_t kFar = 8, kNear = 4;
    for (std::size_t k = 0; k < order_.size(); ++k) {
      if (k + kFar < order_.size()) {
        const auto far = static_cast<std::uint32_t>(order_[k + kFar]);
        simd::prefetch(&up_[ids[far]]);
        simd::prefetch(&fat_[ids[far]]);
        simd::prefetch(&circle(ids[far]));
        simd::prefetch(&old[far]);
      }
      if (k + kNear < order_.size()) {
        const std::uint32_t parent = up_[ids[static_cast<std::uint32_t>(order_[k + kNear])]];
        if (parent < nodes_.size()) simd::prefetch(&nodes_[parent]);
      }
      const auto i = static_cast<std::uint32_t>(order_[k]);
      const Circle& c = circle(ids[i]);
      reinsert(ids[i], c, c.center - old[i].center);
    }
  }

  void doRemove(ItemId id, const Circle&) override {
    removeLeaf(leafRef(id));
    up_[id] = kAbsentLeaf;
  }

  void doClear() override {
    nodes_.clear();
    fat_.clear();
    up_.clear();
    root_ = kNoIndex;
    freeNodes_.clear();
    liveNodes_ = 0;
    moves_ = fatPath_ = reinserts_ = rotations_ = 0;
  }

  void doMaintain() override;

  // -- queries -----------------------------------------------------------------------------------------

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override {
    collect(tree_walk::PointShape{p}, out, ctx);
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override {
    collect(tree_walk::CircleShape(query), out, ctx);
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override {
    collect(tree_walk::BoxShape(box), out, ctx);
  }

  void doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const override {
    collect(tree_walk::PointShape{p}, visit, ctx);
  }

  void doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const override {
    collect(tree_walk::CircleShape(query), visit, ctx);
  }

  void doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const override {
    collect(tree_walk::BoxShape(box), visit, ctx);
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    if (!viewQueries_.rayCast(view_, contentVersion(), segment, out, ctx))
      tree_walk::rayCast(Walkable(*this), ctx, segment, out);
  }

  std::optional<RayHit> doRayCastFirst(const Segment& segment, QueryContext& ctx) const override {
    return tree_walk::rayCastFirst(Walkable(*this), ctx, segment);
  }

  void doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                      QueryContext& ctx) const override {
    tree_walk::NearestHeap heap(out, k);
    if (k == 0) return;
    tree_walk::nearest(Walkable(*this), ctx, p, heap);
    heap.finish();
  }

  void doFindPairs(std::vector<Pair>& out) override;

  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override;

  std::string doValidate() const override;

 private:
  struct BuildEntry {
    Box box;
    float cx, cy;
    ItemId id;
  };
  struct BuildTask {
    std::uint32_t begin, end;
    std::uint32_t parent;
    std::uint32_t slot;  // which child of `parent` this range becomes
  };
  void readParams() {
    margin_ = static_cast<float>(param("margin"));
    predict_ = static_cast<float>(param("predict"));
    rebuildFraction_ = param("rebuild_fraction");
    rebuildQuality_ = param("rebuild_quality");
    viewQueries_.enable(param("view_queries") != 0.0);
  }

  // -- references --------------------------------------------------------------------------------------

  const Box& boxOf(Ref r) const { return isLeaf(r) ? fat_[itemOf(r)] : nodes_[r].box; }
  int heightOf(Ref r) const { return isLeaf(r) ? 0 : nodes_[r].height; }
  std::uint32_t parentOf(Ref r) const { return isLeaf(r) ? up_[itemOf(r)] : nodes_[r].parent; }
  void setParent(Ref r, std::uint32_t parent) { (isLeaf(r) ? up_[itemOf(r)] : nodes_[r].parent) = parent; }

  // A dead node links the next through its parent field.
  auto& freeLink(std::uint32_t n) { return nodes_[n].parent; }
  const auto& freeLink(std::uint32_t n) const { return nodes_[n].parent; }

  std::uint32_t allocNode() {
    std::uint32_t n = freeNodes_.take([this](std::uint32_t f) -> auto& { return freeLink(f); });
    if (n != kNoIndex) {
      nodes_[n] = AabbNode{};
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    ++liveNodes_;
    return n;
  }

  void freeNode(std::uint32_t n) {
    nodes_[n].height = -1;
    nodes_[n].child = {kNoIndex, kNoIndex};
    freeNodes_.give(
        n, [this](std::uint32_t f) -> auto& { return freeLink(f); });
    --liveNodes_;
    ++freedSinceLayout_;
  }

  NodeInfo nodeInfo(Ref r, int depth) const {
    NodeInfo info;
    info.shape = NodeShape::Box;
    // A leaf is drawn as its fat box, what the walks test: its circle's own box would cost a drawing of a
    // large tree a second cache miss per leaf.
    info.box = boxOf(r);
    info.depth = depth;
    info.itemCount = isLeaf(r) ? 1 : 0;
    return info;
  }

  // How tree_walk walks the tree: a leaf is its item, entered without a box test and examined by the exact
  // test of its circle, which costs no more than a test of the circle's box and reads the same memory. The
  // fat box is the update's test only. The walks that order nodes by their bounds (a ray's first hit, the
  // nearest circles) see a leaf as its circle's own box: one fetch, where the fat box and then the circle
  // would cost two.
  class Walkable {
   public:
    using Ref = aabb_tree::Ref;
    explicit Walkable(const AabbTree& tree) : tree_(tree) {}
    bool empty() const { return tree_.root_ == kNoIndex; }
    Ref root() const { return tree_.root_; }
    Box bounds(Ref r) const { return isLeaf(r) ? tightBox(tree_.circle(itemOf(r))) : tree_.nodes_[r].box; }
    std::uint32_t examinedByBounds(Ref r) const { return isLeaf(r) ? 1 : 0; }
    bool testedByItem(Ref r) const { return isLeaf(r); }
    template <class F>
    bool forEachItem(Ref r, F&& f) const {
      return !isLeaf(r) || f(itemOf(r), tree_.circle(itemOf(r)));
    }
    template <class F>
    void forEachChild(Ref r, F&& f) const {
      if (isLeaf(r)) return;
      const AabbNode& node = tree_.nodes_[r];
      prefetchBounds(node.child[1]);
      prefetchBounds(node.child[0]);
      f(node.child[1]);
      f(node.child[0]);
    }
    // Step through shows a leaf as its circle's own box.
    NodeInfo info(Ref r, int depth) const {
      NodeInfo info = tree_.nodeInfo(r, depth);
      if (isLeaf(r)) info.box = boundsOf(tree_.circle(itemOf(r)));
      return info;
    }

   private:
    // Starts fetching what bounds(r) reads: both children's reads overlap instead of waiting on each
    // other, which is most of a query's time when the tree is not in the cache.
    void prefetchBounds(Ref r) const {
      simd::prefetch(isLeaf(r) ? static_cast<const void*>(&tree_.circle(itemOf(r))) : &tree_.nodes_[r].box);
    }
    const AabbTree& tree_;
  };

  // `out` is a vector of ids or a visitor that can stop the walk.
  template <class Shape, class Out>
  void collect(const Shape& shape, Out& out, QueryContext& ctx) const {
    if (!viewQueries_.collect(view_, contentVersion(), shape, out, ctx))
      tree_walk::collect(Walkable(*this), ctx, shape, out);
  }

  // -- fat boxes ---------------------------------------------------------------------------------------

  // The margin, plus a stretch ahead of the motion; a jump longer than the circle's size plus a few
  // margins is a teleport, not a velocity, and gets no stretch.
  Box fatBox(const Circle& c, Vec2 displacement) const {
    Box b = grow(tightBox(c), margin_);
    const float jump = std::fabs(displacement.x) + std::fabs(displacement.y);
    if (predict_ > 0.0f && jump <= 2.0f * c.radius + 4.0f * margin_) {
      const float dx = displacement.x * predict_, dy = displacement.y * predict_;
      (dx < 0 ? b.min.x : b.max.x) += dx;
      (dy < 0 ? b.min.y : b.max.y) += dy;
    }
    return b;
  }

  // A move costs nothing while the circle stays inside its fat box and the box has not become far too
  // loose (after a shrink or a halt), which would make the tree prune badly.
  bool fits(const Box& fat, const Circle& c, Vec2 displacement) const {
    const Box tight = tightBox(c);
    if (!boxContains(fat, tight)) return false;
    const float stretch = predict_ * (std::fabs(displacement.x) + std::fabs(displacement.y));
    return boxContains(grow(tight, 4.0f * (margin_ + stretch) + 1e-6f * c.radius), fat);
  }

  // A Z curve over a box, at 16 bits per axis.
  struct MortonFrame {
    explicit MortonFrame(const Box& box)
        : min(box.min),
          sx(65535.0f / std::max(box.max.x - box.min.x, 1e-30f)),
          sy(65535.0f / std::max(box.max.y - box.min.y, 1e-30f)) {}
    // The point's place along the curve (points outside the box are clamped to it).
    std::uint32_t key(Vec2 p) const {
      const auto qx = static_cast<std::uint32_t>(std::clamp((p.x - min.x) * sx, 0.0f, 65535.0f));
      const auto qy = static_cast<std::uint32_t>(std::clamp((p.y - min.y) * sy, 0.0f, 65535.0f));
      return mortonKey16(qx, qy);
    }
    Vec2 min;
    float sx, sy;
  };

  void reinsert(ItemId id, const Circle& c, Vec2 displacement) {
    ++reinserts_;
    std::uint32_t from = removeLeaf(leafRef(id));
    fat_[id] = fatBox(c, displacement);
    // The search starts at the lowest former ancestor that holds the new box: above it every path costs
    // nothing (each node already holds the box), so the descent from the root would come this way too,
    // only with more steps.
    while (from != kNoIndex && !boxContains(nodes_[from].box, fat_[id])) from = nodes_[from].parent;
    insertLeaf(leafRef(id), from == kNoIndex ? root_ : from);
  }

  // -- insertion, removal, rotations -----------------------------------------------------------------

  // Descends towards the sibling that adds the least perimeter: at each node, making a new parent here
  // costs the union's perimeter; going down costs the growth of this node (paid by every ancestor too)
  // plus a lower bound of what the chosen child adds.
  Ref chooseSibling(const Box& leafBox, Ref start) const;

  // Inserts below `start` (the root unless the caller knows a node that holds the leaf's box).
  void insertLeaf(Ref leaf, Ref start);

  // Unlinks a leaf; returns its former grandparent (kNoIndex when the leaf or its parent was the root).
  std::uint32_t removeLeaf(Ref leaf);

  void replaceChild(std::uint32_t parent, Ref from, Ref to);

  void refit(std::uint32_t n);

  // Refits and rotates from `n` to the root, stopping at the first node whose box and height come out
  // unchanged: nothing above it can change either.
  void refitUpwards(std::uint32_t n);

  // Rotations at internal node `a` (children already refitted). When one child is more than one level
  // taller, its better grandchild is lifted to `a`'s level (returns the node now in `a`'s place);
  // otherwise a child is swapped with a grandchild on the other side when that shrinks the perimeter of
  // the node that changes without making `a` taller.
  std::uint32_t rotate(std::uint32_t a);

  // `tall` (a child of `a`) takes `a`'s place; `a` becomes its child and keeps the other grandchild.
  std::uint32_t liftGrandchild(std::uint32_t a, std::uint32_t tall);

  void swapForPerimeter(std::uint32_t a);

  // -- layout ------------------------------------------------------------------------------------------

  void relayout();

  // -- top-down build ----------------------------------------------------------------------------------

  BuildEntry buildEntry(ItemId id, const Circle& c) const {
    return {fatBox(c, {0, 0}), c.center.x, c.center.y, id};
  }

  void attach(Ref r, std::uint32_t parent, std::uint32_t slot) {
    if (parent == kNoIndex)
      root_ = r;
    else
      nodes_[parent].child[slot] = r;
    setParent(r, parent);
  }

  void buildTopDown(std::vector<BuildEntry>& entries);

  // -- pair search -------------------------------------------------------------------------------------

  std::uint64_t handOver();
  template <class View, class Item>
  std::uint64_t walkPart(Ref top, View& view, std::vector<std::uint32_t>& stack, std::uint32_t& at,
                         Item&& item) const;

  // -- state -------------------------------------------------------------------------------------------

  LargeVector<AabbNode> nodes_;  // internal nodes
  LargeVector<Box> fat_;         // item id -> its leaf's fat box
  LargeVector<std::uint32_t>
      up_;  // item id -> its leaf's parent (kNoIndex at the root, kAbsentLeaf if absent)
  Ref root_ = kNoIndex;
  FreeList freeNodes_;         // dead internal nodes
  std::size_t liveNodes_ = 0;  // live internal nodes
  std::size_t freedSinceLayout_ =
      0;  // internal nodes freed (and so reused elsewhere) since the last relayout

  float margin_ = 1.0f, predict_ = 4.0f;
  double rebuildFraction_ = 1.0;
  double rebuildQuality_ = 1.1;
  double builtQuality_ = -1.0;          // quality() right after the last build; < 0 until it is measured
  std::uint32_t framesSinceCheck_ = 0;  // maintain() calls since quality was last measured
  std::uint64_t qualityRebuilds_ = 0;

  std::uint64_t moves_ = 0, fatPath_ = 0, reinserts_ = 0, rotations_ = 0, rebuilds_ = 0, relayouts_ = 0;

  std::vector<std::uint64_t> order_;  // a batch's escapes keyed by Morton code
  std::vector<Ref> walkStack_;
  std::vector<std::uint32_t> rank_;       // a relayout's new index of each pool slot
  std::vector<Ref> partRoots_;            // the pair hand-over's parts, in depth-first order
  std::vector<std::uint32_t> partItems_;  // where each part's items begin (and, last, their count)
  pair_view::Parts parts_;                // the parts' counts and scratch
  pair_view::PairView view_;
  pair_view::ViewQueries viewQueries_;  // queries answered from view_ while it is current
  pair_view::ItemCopy items_;
  std::vector<pair_view::WalkScratch> scratch_;  // one per worker
};

}  // namespace st::aabb_tree
