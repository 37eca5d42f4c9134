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

#include "bvh_pruning.hpp"
#include "morton.hpp"
#include "no_index.hpp"
#include "ordered_pieces.hpp"
#include "pair_view.hpp"
#include "simd_support.hpp"
#include "spheretest/large_pages.hpp"
#include "spheretest/structures.hpp"
#include "walk_stack.hpp"

namespace st {
namespace {

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

bool isLeaf(Ref r) {
  return (r & kLeafBit) != 0;
}
ItemId itemOf(Ref r) {
  return r & ~kLeafBit;
}
Ref leafRef(ItemId id) {
  return id | kLeafBit;
}

// The float box the predicates' circle can never leave (boundsOf rounds; the inflation absorbs it).
Box tightBox(const Circle& c) {
  return inflateForPruning(boundsOf(c));
}

Box grow(const Box& b, float by) {
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
         1.25, 0.0, 64.0, false});
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
    if (key != "rebuild_fraction" && key != "rebuild_quality") rebuildFromTable();
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
    freeHead_ = kNoIndex;
    liveNodes_ = 0;
    moves_ = fatPath_ = reinserts_ = rotations_ = 0;
  }

  void doMaintain() override;

  // -- queries -----------------------------------------------------------------------------------------

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override {
    walk(
        ctx, [&](const Box& b) { return boxContainsPoint(b, p); },
        [&](ItemId id) { return circleContainsPoint(circle(id), p); }, out, "box does not hold the point");
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override {
    const Box reach = tightBox(query);
    walk(
        ctx, [&](const Box& b) { return boxesOverlap(b, reach); },
        [&](ItemId id) { return circlesOverlap(circle(id), query); }, out, "box misses the circle's bounds");
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override {
    walk(
        ctx, [&](const Box& b) { return boxesOverlap(b, box); },
        [&](ItemId id) { return circleOverlapsBox(circle(id), box); }, out, "box misses the query box");
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    bvh::allRayHits(segment, out, [&](auto&& onHit, const std::optional<RayHit>* best) {
      walkRay(ctx, segment, onHit, best);
    });
  }

  std::optional<RayHit> doRayCastFirst(const Segment& segment, QueryContext& ctx) const override {
    return bvh::nearestRayHit(segment, [&](auto&& onHit, const std::optional<RayHit>* best) {
      walkRay(ctx, segment, onHit, best);
    });
  }

  void doFindPairs(std::vector<Pair>& out) override;

  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override;

  std::string doValidate() const override;

 private:
  struct StackEntry {
    Ref node;
    std::uint32_t depth;
  };
  struct CullEntry {
    Ref node;
    bool inside;  // an ancestor lies wholly inside the cone: no tests below
  };
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
  }

  // -- references --------------------------------------------------------------------------------------

  const Box& boxOf(Ref r) const { return isLeaf(r) ? fat_[itemOf(r)] : nodes_[r].box; }
  // Starts fetching a box a walk has just pushed: both children's reads overlap instead of waiting on
  // each other, which is most of a query's time when the tree is not in the cache.
  void prefetchBox(Ref r) const { simd::prefetch(&boxOf(r)); }
  int heightOf(Ref r) const { return isLeaf(r) ? 0 : nodes_[r].height; }
  std::uint32_t parentOf(Ref r) const { return isLeaf(r) ? up_[itemOf(r)] : nodes_[r].parent; }
  void setParent(Ref r, std::uint32_t parent) { (isLeaf(r) ? up_[itemOf(r)] : nodes_[r].parent) = parent; }

  std::uint32_t allocNode() {
    std::uint32_t n;
    if (freeHead_ != kNoIndex) {
      n = freeHead_;
      freeHead_ = nodes_[n].parent;
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
    nodes_[n].parent = freeHead_;
    freeHead_ = n;
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
  Ref chooseSibling(const Box& leafBox, Ref start) const {
    Ref n = start;
    float inherited = 0.0f;
    while (!isLeaf(n)) {
      const AabbNode& node = nodes_[n];
      const float unionPerimeter = boxPerimeter(boxUnion(node.box, leafBox));
      const float here = unionPerimeter + inherited;
      inherited += unionPerimeter - boxPerimeter(node.box);
      float best = here;
      Ref next = kNoIndex;
      for (Ref child : node.child) {
        const Box& cb = boxOf(child);
        const float grownChild = boxPerimeter(boxUnion(cb, leafBox));
        const float cost = inherited + (isLeaf(child) ? grownChild : grownChild - boxPerimeter(cb));
        if (cost < best) best = cost, next = child;
      }
      if (next == kNoIndex) break;
      n = next;
    }
    return n;
  }

  // Inserts below `start` (the root unless the caller knows a node that holds the leaf's box).
  void insertLeaf(Ref leaf, Ref start) {
    if (root_ == kNoIndex) {
      root_ = leaf;
      setParent(leaf, kNoIndex);
      return;
    }
    const Ref sibling = chooseSibling(boxOf(leaf), start);
    const std::uint32_t oldParent = parentOf(sibling);
    const std::uint32_t parent = allocNode();  // may reallocate the pool: no references held across it
    AabbNode& p = nodes_[parent];
    p.parent = oldParent;
    p.child = {sibling, leaf};
    p.box = boxUnion(boxOf(sibling), boxOf(leaf));
    p.height = heightOf(sibling) + 1;
    if (oldParent == kNoIndex)
      root_ = parent;
    else
      replaceChild(oldParent, sibling, parent);
    setParent(sibling, parent);
    setParent(leaf, parent);
    refitUpwards(oldParent);
  }

  // Unlinks a leaf; returns its former grandparent (kNoIndex when the leaf or its parent was the root).
  std::uint32_t removeLeaf(Ref leaf) {
    if (leaf == root_) {
      root_ = kNoIndex;
      return kNoIndex;
    }
    const std::uint32_t parent = parentOf(leaf);
    const std::uint32_t grandparent = nodes_[parent].parent;
    const Ref sibling = nodes_[parent].child[0] == leaf ? nodes_[parent].child[1] : nodes_[parent].child[0];
    if (grandparent == kNoIndex) {
      root_ = sibling;
    } else {
      replaceChild(grandparent, parent, sibling);
    }
    setParent(sibling, grandparent);
    freeNode(parent);
    setParent(leaf, kNoIndex);
    refitUpwards(grandparent);
    return grandparent;
  }

  void replaceChild(std::uint32_t parent, Ref from, Ref to) {
    std::array<Ref, 2>& child = nodes_[parent].child;
    (child[0] == from ? child[0] : child[1]) = to;
  }

  void refit(std::uint32_t n) {
    AabbNode& node = nodes_[n];
    node.box = boxUnion(boxOf(node.child[0]), boxOf(node.child[1]));
    node.height = 1 + std::max(heightOf(node.child[0]), heightOf(node.child[1]));
  }

  // Refits and rotates from `n` to the root, stopping at the first node whose box and height come out
  // unchanged: nothing above it can change either.
  void refitUpwards(std::uint32_t n) {
    while (n != kNoIndex) {
      const Box before = nodes_[n].box;
      const int heightBefore = nodes_[n].height;
      const std::uint32_t top = rotate(n);
      refit(top);
      const Box& after = nodes_[top].box;
      if (top == n && nodes_[n].height == heightBefore && after.min == before.min && after.max == before.max)
        return;
      n = nodes_[top].parent;
    }
  }

  // Rotations at internal node `a` (children already refitted). When one child is more than one level
  // taller, its better grandchild is lifted to `a`'s level (returns the node now in `a`'s place);
  // otherwise a child is swapped with a grandchild on the other side when that shrinks the perimeter of
  // the node that changes without making `a` taller.
  std::uint32_t rotate(std::uint32_t a) {
    const Ref b = nodes_[a].child[0], c = nodes_[a].child[1];
    const int hb = heightOf(b), hc = heightOf(c);
    if (hc > hb + 1) return liftGrandchild(a, c);
    if (hb > hc + 1) return liftGrandchild(a, b);
    swapForPerimeter(a);
    return a;
  }

  // `tall` (a child of `a`) takes `a`'s place; `a` becomes its child and keeps the other grandchild.
  std::uint32_t liftGrandchild(std::uint32_t a, std::uint32_t tall) {
    ++rotations_;
    const Ref shortChild = nodes_[a].child[0] == tall ? nodes_[a].child[1] : nodes_[a].child[0];
    const Ref f = nodes_[tall].child[0], g = nodes_[tall].child[1];
    // Keep the taller grandchild up with `tall`; on equal heights keep the one that leaves `a` smaller.
    Ref keep = f, give = g;
    const int hf = heightOf(f), hg = heightOf(g);
    if (hg > hf || (hg == hf && boxPerimeter(boxUnion(boxOf(shortChild), boxOf(f))) <
                                    boxPerimeter(boxUnion(boxOf(shortChild), boxOf(g))))) {
      keep = g, give = f;
    }
    const std::uint32_t up = nodes_[a].parent;
    nodes_[tall].parent = up;
    if (up == kNoIndex)
      root_ = tall;
    else
      replaceChild(up, a, tall);
    nodes_[tall].child = {a, keep};
    nodes_[a].parent = tall;
    replaceChild(a, tall, give);
    setParent(give, a);
    refit(a);
    refit(tall);
    return tall;
  }

  void swapForPerimeter(std::uint32_t a) {
    const Ref b = nodes_[a].child[0], c = nodes_[a].child[1];
    struct Option {
      Ref stay;   // the child of `a` whose child is swapped out
      Ref moved;  // the other child of `a`, moving down into `stay`
      Ref out;    // the grandchild moving up into `a`
      Ref kept;   // the grandchild staying under `stay`
    };
    Option best{};
    float bestGain = 0.0f;
    const int heightBefore = 1 + std::max(heightOf(b), heightOf(c));
    for (const auto& [stay, moved] : {std::pair{b, c}, std::pair{c, b}}) {
      if (isLeaf(stay)) continue;
      const float before = boxPerimeter(nodes_[stay].box);
      const Box& movedBox = boxOf(moved);
      const int movedHeight = heightOf(moved);
      for (const auto& [out, kept] : {std::pair{nodes_[stay].child[0], nodes_[stay].child[1]},
                                      std::pair{nodes_[stay].child[1], nodes_[stay].child[0]}}) {
        const float after = boxPerimeter(boxUnion(movedBox, boxOf(kept)));
        const int stayHeight = 1 + std::max(movedHeight, heightOf(kept));
        const int outHeight = heightOf(out);
        const int newHeight = 1 + std::max(stayHeight, outHeight);
        if (newHeight > heightBefore || std::abs(stayHeight - outHeight) > 1) continue;
        if (before - after > bestGain) bestGain = before - after, best = {stay, moved, out, kept};
      }
    }
    if (bestGain <= 0.0f) return;
    ++rotations_;
    replaceChild(a, best.moved, best.out);
    setParent(best.out, a);
    replaceChild(best.stay, best.out, best.moved);
    setParent(best.moved, best.stay);
    refit(best.stay);
  }

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

  // -- queries -----------------------------------------------------------------------------------------

  template <class Overlaps, class Exact>
  void walk(QueryContext& ctx, Overlaps&& overlaps, Exact&& exact, std::vector<ItemId>& out,
            const char* pruneTest) const {
    if (root_ == kNoIndex) return;
    WalkStack<StackEntry> stack;
    stack.push({root_, 0});
    while (!stack.empty()) {
      const StackEntry e = stack.pop();
      ++ctx.counters.nodesVisited;
      // A leaf's box is its own circle's fat box: testing it examines the circle.
      const bool leaf = isLeaf(e.node);
      ctx.counters.candidates += leaf ? 1 : 0;
      if (!overlaps(boxOf(e.node))) {
        if (ctx.tracing()) ctx.prune(nodeInfo(e.node, static_cast<int>(e.depth)), pruneTest);
        continue;
      }
      if (ctx.tracing()) ctx.visit(nodeInfo(e.node, static_cast<int>(e.depth)));
      if (leaf) {
        const ItemId id = itemOf(e.node);
        const bool hit = exact(id);
        ctx.candidate(id, hit);
        if (hit) out.push_back(id);
        continue;
      }
      const AabbNode& node = nodes_[e.node];
      prefetchBox(node.child[1]);
      prefetchBox(node.child[0]);
      stack.push({node.child[1], e.depth + 1});
      stack.push({node.child[0], e.depth + 1});
    }
  }

  // Ray walk; with `best` set it visits the nearer child first and skips boxes entered after the best hit.
  template <class OnHit>
  void walkRay(QueryContext& ctx, const Segment& segment, OnHit&& onHit,
               const std::optional<RayHit>* best) const {
    if (root_ == kNoIndex) return;
    WalkStack<StackEntry> stack;
    stack.push({root_, 0});
    while (!stack.empty()) {
      const StackEntry e = stack.pop();
      ++ctx.counters.nodesVisited;
      const bool leaf = isLeaf(e.node);
      ctx.counters.candidates += leaf ? 1 : 0;
      double entry = 0.0;
      if (!bvh::segmentEntersBox(segment, boxOf(e.node), entry) ||
          (best && *best && entry > double(std::nextafter((*best)->t, 2.0f)))) {
        if (ctx.tracing()) ctx.prune(nodeInfo(e.node, static_cast<int>(e.depth)), "box misses the segment");
        continue;
      }
      if (ctx.tracing()) ctx.visit(nodeInfo(e.node, static_cast<int>(e.depth)));
      if (leaf) {
        const ItemId id = itemOf(e.node);
        float t = 0.0f;
        const bool hit = segmentHitsCircle(segment, circle(id), t);
        ctx.candidate(id, hit);
        if (hit) onHit(id, t);
        continue;
      }
      const AabbNode& node = nodes_[e.node];
      Ref nearer = node.child[0], farther = node.child[1];
      if (best) {
        double e1 = 0.0, e2 = 0.0;
        const bool hit1 = bvh::segmentEntersBox(segment, boxOf(nearer), e1);
        const bool hit2 = bvh::segmentEntersBox(segment, boxOf(farther), e2);
        if (!hit1 || (hit2 && e2 < e1)) std::swap(nearer, farther);
      }
      prefetchBox(farther);
      prefetchBox(nearer);
      stack.push({farther, e.depth + 1});
      stack.push({nearer, e.depth + 1});
    }
  }

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
  std::uint32_t freeHead_ = kNoIndex;
  std::size_t liveNodes_ = 0;  // live internal nodes
  std::size_t freedSinceLayout_ =
      0;  // internal nodes freed (and so reused elsewhere) since the last relayout

  float margin_ = 1.0f, predict_ = 4.0f;
  double rebuildFraction_ = 1.0;
  double rebuildQuality_ = 1.25;
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
  pair_view::ItemCopy items_;
  std::vector<pair_view::WalkScratch> scratch_;  // one per worker
};

// ---------------------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------------------

void AabbTree::doMaintain() {
  // Reinsertions place each escaped circle well but let the grouping drift: over thousands of frames of a
  // clustering scene the SAH cost doubles and the pair search does several times its work. The cost is
  // measured every 32 frames (a pass over the pool and the fat boxes) against its value after the build.
  constexpr std::uint32_t kCheckEvery = 32;
  if (rebuildQuality_ > 0.0 && root_ != kNoIndex && ++framesSinceCheck_ >= kCheckEvery) {
    framesSinceCheck_ = 0;
    const double now = quality();
    if (builtQuality_ < 0.0) {
      builtQuality_ = now;
    } else if (now > rebuildQuality_ * builtQuality_) {
      ++rebuilds_;
      ++qualityRebuilds_;
      rebuildTopDown();
      builtQuality_ = quality();
      return;
    }
  }
  // Each reinsertion reuses a freed node far from its new place in the depth-first order; once as many
  // have been reused as there are live nodes, walks jump about enough to pay for a renumbering.
  if (freedSinceLayout_ > liveNodes_) relayout();
}

// Renumbers the pool in place: live internal nodes in depth-first order (first child first), so that a
// node's first child follows it and every subtree is one contiguous run, then the dead ones, which form the
// free list again. No second pool: each node's new index is noted first, links are rewritten through those
// numbers, and the nodes are then swapped along the permutation's cycles.
void AabbTree::relayout() {
  freedSinceLayout_ = 0;
  ++relayouts_;
  const auto poolSize = static_cast<std::uint32_t>(nodes_.size());
  rank_.assign(poolSize, kNoIndex);
  std::uint32_t next = 0;
  if (root_ != kNoIndex && !isLeaf(root_)) {
    walkStack_.clear();
    walkStack_.push_back(root_);
    while (!walkStack_.empty()) {
      const std::uint32_t n = walkStack_.back();
      walkStack_.pop_back();
      rank_[n] = next++;
      for (std::uint32_t slot = 2; slot-- > 0;) {
        const Ref child = nodes_[n].child[slot];
        if (!isLeaf(child)) walkStack_.push_back(child);
      }
    }
  }
  for (std::uint32_t n = 0; n < poolSize; ++n) {
    if (nodes_[n].height < 0) rank_[n] = next++;
  }
  for (std::uint32_t n = 0; n < poolSize; ++n) {
    AabbNode& node = nodes_[n];
    if (node.height < 0) continue;
    if (node.parent != kNoIndex) node.parent = rank_[node.parent];
    for (Ref& child : node.child) {
      if (isLeaf(child))
        up_[itemOf(child)] = rank_[n];
      else
        child = rank_[child];
    }
  }
  if (root_ != kNoIndex && !isLeaf(root_)) root_ = rank_[root_];
  for (std::uint32_t n = 0; n < poolSize; ++n) {
    while (rank_[n] != n) {
      const std::uint32_t to = rank_[n];
      std::swap(nodes_[n], nodes_[to]);
      std::swap(rank_[n], rank_[to]);
    }
  }
  freeHead_ = kNoIndex;
  for (std::uint32_t n = poolSize; n-- > static_cast<std::uint32_t>(liveNodes_);) {
    nodes_[n].parent = freeHead_;
    freeHead_ = n;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Top-down build
// ---------------------------------------------------------------------------------------------------------

// Splits each range of leaves along the longer axis of its centres where the binned surface-area cost
// (count times perimeter on each side) is lowest. Nodes are allocated in depth-first order, parents
// before children, so one backwards pass over the pool computes every box and height.
void AabbTree::buildTopDown(std::vector<BuildEntry>& entries) {
  builtQuality_ = -1.0;
  framesSinceCheck_ = 0;
  nodes_.clear();
  root_ = kNoIndex;
  freeHead_ = kNoIndex;
  liveNodes_ = 0;
  freedSinceLayout_ = 0;
  if (entries.empty()) return;
  nodes_.reserve(entries.size() - 1);
  std::vector<BuildTask> tasks{{0, static_cast<std::uint32_t>(entries.size()), kNoIndex, 0}};
  while (!tasks.empty()) {
    const BuildTask task = tasks.back();
    tasks.pop_back();
    const std::uint32_t count = task.end - task.begin;
    if (count == 1) {
      const BuildEntry& e = entries[task.begin];
      fat_[e.id] = e.box;
      attach(leafRef(e.id), task.parent, task.slot);
      continue;
    }
    const std::uint32_t n = allocNode();
    attach(n, task.parent, task.slot);
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (std::uint32_t i = task.begin; i < task.end; ++i) {
      lo[0] = std::min(lo[0], entries[i].cx), hi[0] = std::max(hi[0], entries[i].cx);
      lo[1] = std::min(lo[1], entries[i].cy), hi[1] = std::max(hi[1], entries[i].cy);
    }
    const int axis = (double(hi[1]) - lo[1]) > (double(hi[0]) - lo[0]) ? 1 : 0;
    const double extent = double(hi[axis]) - lo[axis];
    auto centreOf = [axis](const BuildEntry& e) { return axis == 0 ? e.cx : e.cy; };
    std::uint32_t mid = task.begin + count / 2;
    if (extent > 0.0 && count > 2) {
      auto binOf = [&](const BuildEntry& e) {
        const int b = static_cast<int>((double(centreOf(e)) - lo[axis]) / extent * kBins);
        return std::clamp(b, 0, kBins - 1);
      };
      std::array<Box, kBins> binBox;
      std::array<std::uint32_t, kBins> binCount{};
      for (std::uint32_t i = task.begin; i < task.end; ++i) {
        const int b = binOf(entries[i]);
        binBox[b] = binCount[b] == 0 ? entries[i].box : boxUnion(binBox[b], entries[i].box);
        ++binCount[b];
      }
      // Cost of the right side of each split, then a sweep from the left.
      std::array<double, kBins> rightCost{};
      Box acc{};
      std::uint32_t accCount = 0;
      for (int b = kBins - 1; b > 0; --b) {
        if (binCount[b] > 0) acc = accCount == 0 ? binBox[b] : boxUnion(acc, binBox[b]);
        accCount += binCount[b];
        rightCost[b] = accCount == 0 ? 0.0 : double(accCount) * boxPerimeter(acc);
      }
      double bestCost = INFINITY;
      int bestSplit = -1;
      acc = {};
      accCount = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        if (binCount[b] > 0) acc = accCount == 0 ? binBox[b] : boxUnion(acc, binBox[b]);
        accCount += binCount[b];
        if (accCount == 0 || accCount == count) continue;
        const double cost = double(accCount) * boxPerimeter(acc) + rightCost[b + 1];
        if (cost < bestCost) bestCost = cost, bestSplit = b;
      }
      if (bestSplit >= 0) {
        auto split = std::partition(entries.begin() + task.begin, entries.begin() + task.end,
                                    [&](const BuildEntry& e) { return binOf(e) <= bestSplit; });
        mid = static_cast<std::uint32_t>(split - entries.begin());
      }
    }
    if (mid == task.begin || mid == task.end || extent == 0.0 || count <= 2) {
      mid = task.begin + count / 2;
      if (extent > 0.0) {
        std::nth_element(entries.begin() + task.begin, entries.begin() + mid, entries.begin() + task.end,
                         [&](const BuildEntry& x, const BuildEntry& y) { return centreOf(x) < centreOf(y); });
      }
    }
    // Pushed second, popped first: the first child's subtree is allocated right after its parent.
    tasks.push_back({mid, task.end, n, 1});
    tasks.push_back({task.begin, mid, n, 0});
  }
  for (std::uint32_t n = static_cast<std::uint32_t>(nodes_.size()); n-- > 0;) refit(n);
}

// ---------------------------------------------------------------------------------------------------------
// Pairs and view cone
// ---------------------------------------------------------------------------------------------------------

// Walks the part below `top` depth first as the hand-over does: addLeaf(begin, end) for each leaf of the
// view (one circle, or a subtree low enough to hold at most a batch of them), enterNode(begin) and
// leaveNode(end) around the nodes above those, `item(ref)` for each circle in order. Item positions count
// from `at`. Returns the internal nodes read and leaves `at` past the part's last circle.
template <class View, class Item>
std::uint64_t AabbTree::walkPart(Ref top, View& view, std::vector<std::uint32_t>& stack, std::uint32_t& at,
                                 Item&& item) const {
  std::uint64_t read = 0;
  stack.assign(1, top);
  while (!stack.empty()) {
    const Ref r = stack.back();
    stack.pop_back();
    if (r == kLeaveNode) {
      view.leaveNode(at);
      continue;
    }
    const std::uint32_t begin = at;
    if (isLeaf(r)) {
      item(r);
      ++at;
      view.addLeaf(begin, at);
      continue;
    }
    const AabbNode& node = nodes_[r];
    ++read;
    if (node.height <= kBatchHeight) {
      // The small subtree's leaves in depth-first order; its height bounds the local stack.
      std::array<Ref, kBatchHeight + 1> local;
      int depth = 0;
      local[depth++] = node.child[1];
      local[depth++] = node.child[0];
      while (depth > 0) {
        const Ref s = local[--depth];
        if (isLeaf(s)) {
          item(s);
          ++at;
          continue;
        }
        ++read;
        local[depth++] = nodes_[s].child[1];
        local[depth++] = nodes_[s].child[0];
      }
      view.addLeaf(begin, at);
      continue;
    }
    view.enterNode(begin);
    stack.push_back(kLeaveNode);
    stack.push_back(node.child[1]);
    stack.push_back(node.child[0]);
  }
  return read;
}

// Walks the tree depth first and hands it to the view as it goes, copying the items' circles in that order;
// a subtree low enough to hold at most a batch of items becomes one leaf of the view without node steps of
// its own. Subtrees of at most kPartHeight levels are parts. On several threads the workers first count
// each part's circles (which tells each part where its items begin) and what it leaves in the view; the
// calling thread hands over the nodes above the parts, leaving each part a room where it sits, and the
// workers then fill the rooms at once. On one thread each part is handed over where it sits, starting
// where the one before ended. Returns the internal nodes read.
std::uint64_t AabbTree::handOver() {
  TaskScheduler& workers = scheduler();
  // Walks the nodes above the parts depth first: enter(node) and leave() around each, part(ref) for each
  // part.
  const auto walkUpper = [&](auto&& enter, auto&& leave, auto&& part) {
    walkStack_.assign(1, root_);
    while (!walkStack_.empty()) {
      const Ref r = walkStack_.back();
      walkStack_.pop_back();
      if (r == kLeaveNode) {
        leave();
      } else if (heightOf(r) <= kPartHeight) {
        part(r);
      } else {
        enter(r);
        walkStack_.push_back(kLeaveNode);
        walkStack_.push_back(nodes_[r].child[1]);
        walkStack_.push_back(nodes_[r].child[0]);
      }
    }
  };
  partRoots_.clear();
  walkUpper([](Ref) {}, [] {}, [&](Ref r) { partRoots_.push_back(r); });
  partItems_.resize(partRoots_.size() + 1);
  partItems_[0] = 0;
  parts_.fit(workers, partRoots_.size());
  const bool inRooms = workers.workerCount() > 1;
  if (inRooms) {
    workers.parallelFor(partRoots_.size(), 16, [&](std::size_t begin, std::size_t end, unsigned worker) {
      pair_view::HandOverScratch& scratch = parts_.scratch[worker];
      for (std::size_t p = begin; p < end; ++p) {
        pair_view::NodeCount counted(scratch.open);
        std::uint32_t leaves = 0;
        walkPart(partRoots_[p], counted, scratch.stack, leaves, [](Ref) {});
        partItems_[p + 1] = leaves;
        parts_.counted(p, counted);
      }
    });
    for (std::size_t p = 0; p < partRoots_.size(); ++p) partItems_[p + 1] += partItems_[p];
  }
  items_.resize(static_cast<std::uint32_t>(size()));
  const pair_view::MutableItems items = items_.writable();
  // Hands part p over to `view` with its circles; returns the internal nodes read.
  const auto fillPart = [&](std::size_t p, auto& view, pair_view::HandOverScratch& scratch) {
    const std::uint32_t first = partItems_[p];
    std::uint32_t at = first;
    const std::uint64_t read =
        walkPart(partRoots_[p], view, scratch.stack, at, [&](Ref leaf) { items.id[at] = itemOf(leaf); });
    // The circles in one streaming pass, fetched well ahead: ids are spread over space, so each is a miss.
    constexpr std::uint32_t kAhead = 64;
    for (std::uint32_t k = first; k < at; ++k) {
      if (k + kAhead < at) simd::prefetch(&circle(items.id[k + kAhead]));
      const Circle& c = circle(items.id[k]);
      items.x[k] = c.center.x;
      items.y[k] = c.center.y;
      items.r[k] = c.radius;
    }
    if (!inRooms) partItems_[p + 1] = at;
    return read;
  };
  view_.begin(items_.arrays());
  std::uint64_t read = 0;
  std::size_t nextPart = 0;
  walkUpper(
      [&](Ref) {
        ++read;
        view_.enterNode(partItems_[nextPart]);
      },
      [&] { view_.leaveNode(partItems_[nextPart]); },
      [&](Ref) { read += parts_.place(inRooms, view_, nextPart++, fillPart); });
  if (inRooms) read += parts_.fillRooms(workers, view_, partRoots_.size(), fillPart);
  view_.finish();
  return read;
}

// The tree hands itself over to the shared pair view, which tests subtrees of up to a batch of items as
// flat leaves with bounds measured from this frame's circles.
void AabbTree::doFindPairs(std::vector<Pair>& out) {
  if (root_ == kNoIndex) return;
  counters_.nodesVisited += handOver();
  pair_view::findPairsInto(view_, out, scheduler(), scratch_, counters_);
}

// Boxes are classified by their circumscribed circle; a wholly visible subtree adds its items untested.
void AabbTree::doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const {
  visibleNow.clear();
  if (root_ == kNoIndex) return;
  const bvh::ConeClassifier classifier(cone);
  WalkStack<CullEntry> stack;
  stack.push({root_, false});
  while (!stack.empty()) {
    const CullEntry e = stack.pop();
    ++ctx.counters.nodesVisited;
    if (isLeaf(e.node)) {
      const ItemId id = itemOf(e.node);
      if (!e.inside) {
        ++ctx.counters.candidates;
        ++ctx.counters.exactTests;
        if (!circleOverlapsCone(circle(id), cone)) continue;
      }
      visibleNow.push_back(id);
      continue;
    }
    const AabbNode& node = nodes_[e.node];
    bool inside = e.inside;
    if (!inside) {
      const Side side =
          classifier.classifyBox(node.box.min.x, node.box.min.y, node.box.max.x, node.box.max.y);
      if (side == Side::Outside) continue;
      inside = side == Side::Inside;
    }
    stack.push({node.child[1], inside});
    stack.push({node.child[0], inside});
  }
  std::sort(visibleNow.begin(), visibleNow.end());
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

std::string AabbTree::doValidate() const {
  const std::string name = "aabb-tree: ";
  if (root_ == kNoIndex) {
    if (size() != 0) return name + "empty tree but items present";
    if (liveNodes_ != 0) return name + "no root but live nodes";
  } else if (parentOf(root_) != kNoIndex) {
    return name + "root has a parent";
  }
  if (fat_.size() < idCapacity() || up_.size() < idCapacity()) return name + "leaf arrays shorter than ids";
  std::size_t leaves = 0, visited = 0;
  std::vector<Ref> stack;
  if (root_ != kNoIndex) stack.push_back(root_);
  while (!stack.empty()) {
    const Ref r = stack.back();
    stack.pop_back();
    if (isLeaf(r)) {
      ++leaves;
      const ItemId id = itemOf(r);
      if (!contains(id)) return name + "leaf of an absent item";
      if (!boxContains(fat_[id], tightBox(circle(id)))) return name + "fat box does not hold its circle";
      continue;
    }
    if (r >= nodes_.size()) return name + "child index out of range";
    if (++visited > nodes_.size()) return name + "cycle in the tree";
    const AabbNode& node = nodes_[r];
    if (node.height < 1) return name + "dead node linked in the tree";
    for (const Ref child : node.child) {
      if (!isLeaf(child) && child >= nodes_.size()) return name + "child index out of range";
      if (parentOf(child) != r) return name + "broken parent link";
      if (!boxContains(node.box, boxOf(child))) return name + "box does not hold a child's box";
      stack.push_back(child);
    }
    if (node.height != 1 + std::max(heightOf(node.child[0]), heightOf(node.child[1])))
      return name + "wrong height";
  }
  if (leaves != size())
    return name + "tree holds " + std::to_string(leaves) + " leaves, table " + std::to_string(size());
  for (ItemId id = 0; id < idCapacity(); ++id) {
    if ((up_[id] == kAbsentLeaf) == contains(id)) return name + "leaf parent table disagrees with the items";
  }
  if (visited != liveNodes_) return name + "live node count differs from the tree";
  std::size_t dead = 0;
  for (std::uint32_t f = freeHead_; f != kNoIndex; f = nodes_[f].parent) {
    if (nodes_[f].height != -1 || ++dead > nodes_.size()) return name + "broken free list";
  }
  if (dead + visited != nodes_.size()) return name + "nodes leaked: neither in the tree nor free";
  return {};
}

}  // namespace

std::unique_ptr<SpatialIndex> makeAabbTree() {
  return std::make_unique<AabbTree>();
}

}  // namespace st
