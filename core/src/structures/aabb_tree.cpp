// Dynamic AABB tree, the broad phase that Box2D, Bullet and Chipmunk ship (the AABB-hierarchy comments on
// seed 003): one leaf per circle holding an enlarged ("fat") box, so that small moves leave the tree
// untouched; a circle that leaves its fat box is removed and reinserted where the surface-area heuristic
// (perimeter in 2D) says it costs least, and every node on the way back up is refitted and rotated to keep
// the tree balanced. A batch in which too many circles escaped can rebuild the whole tree top-down instead.
//
// Layout: nodes live in one pool addressed by 32-bit indices, dead nodes form a free list through their
// parent field; a leaf stores its item id in the second child slot.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bvh_pruning.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using bvh::Side;

constexpr std::uint32_t kNull = 0xffffffffu;

// Bins of the top-down builder's surface-area split search.
constexpr int kBins = 16;

struct AabbNode {
  Box box;                       // fat box of a leaf; union of the children otherwise
  std::uint32_t parent = kNull;  // next free node while dead
  std::uint32_t child1 = kNull;  // kNull marks a leaf
  std::uint32_t child2 = kNull;  // the item id of a leaf
  std::int32_t height = -1;      // 0 for a leaf, -1 while dead
};
static_assert(sizeof(AabbNode) == 32, "aabb-tree nodes are kept at 32 bytes");

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
    readParams();
  }

  std::string_view description() const override {
    return "Dynamic AABB tree (the AABB hierarchies of the comments on seed 003_237a6c88e80f769f.txt; the "
           "broad "
           "phase of Box2D, Bullet and Chipmunk): one leaf per circle with a fat box (margin plus a stretch "
           "along "
           "the last displacement), so a move inside it costs one box test. A circle that escapes is removed "
           "and "
           "reinserted by the surface-area heuristic (perimeter in 2D), O(log n), refitting and rotating the "
           "ancestors to keep the tree balanced; build() and, optionally, a batch in which many circles "
           "escaped "
           "rebuild top-down with binned SAH in O(n log n). Queries and pair search walk explicit stacks in "
           "O(log n + k). Choose it for general moving scenes with mixed sizes; it makes no assumption about "
           "the "
           "world's extent or the radius distribution.";
  }

  // -- introspection ------------------------------------------------------------------------------------

  void visitNodes(const NodeVisitor& visitor) const override {
    if (root_ == kNull) return;
    std::vector<std::pair<std::uint32_t, int>> stack{{root_, 0}};
    while (!stack.empty()) {
      const auto [n, depth] = stack.back();
      stack.pop_back();
      visitor(nodeInfo(n, depth));
      if (!isLeaf(n)) {
        stack.push_back({nodes_[n].child1, depth + 1});
        stack.push_back({nodes_[n].child2, depth + 1});
      }
    }
  }

  IndexStats stats() const override {
    IndexStats s;
    s.nodes = liveNodes_;
    s.maxDepth = root_ == kNull ? 0 : nodes_[root_].height;
    s.memoryBytes = tableBytes() + nodes_.capacity() * sizeof(AabbNode) +
                    leafOf_.capacity() * sizeof(std::uint32_t) + stack_.capacity() * sizeof(StackEntry) +
                    pairStack_.capacity() * sizeof(std::array<std::uint32_t, 2>) +
                    escaped_.capacity() * sizeof(std::uint32_t) + cullStack_.capacity() * sizeof(CullEntry);
    return s;
  }

  void extra(ExtraCounters& out) const override {
    double internalPerimeter = 0.0, leafPerimeter = 0.0;
    for (const AabbNode& n : nodes_) {
      if (n.height < 0) continue;
      (n.child1 == kNull ? leafPerimeter : internalPerimeter) += boxPerimeter(n.box);
    }
    out.push_back({"height", root_ == kNull ? 0.0 : double(nodes_[root_].height)});
    out.push_back({"quality", leafPerimeter > 0.0 ? internalPerimeter / leafPerimeter : 0.0});
    out.push_back({"fat_path_ratio", moves_ == 0 ? 1.0 : double(fatPath_) / double(moves_)});
    out.push_back({"moves", double(moves_)});
    out.push_back({"reinserts", double(reinserts_)});
    out.push_back({"rotations", double(rotations_)});
    out.push_back({"rebuilds", double(rebuilds_)});
  }

 protected:
  void onParamChanged(std::string_view key) override {
    readParams();
    if (key != "rebuild_fraction") rebuildFromTable();
  }

  // -- mutation ----------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    leafOf_.assign(idCapacity(), kNull);
    std::vector<BuildEntry> entries;
    entries.reserve(items.size());
    for (const Item& item : items) entries.push_back(buildEntry(item.id, item.circle));
    buildTopDown(entries);
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (leafOf_.size() < idCapacity()) leafOf_.resize(idCapacity(), kNull);
    const std::uint32_t leaf = allocNode();
    nodes_[leaf].box = fatBox(c, {0, 0});
    nodes_[leaf].height = 0;
    nodes_[leaf].child2 = id;
    leafOf_[id] = leaf;
    insertLeaf(leaf);
  }

  void doUpdate(ItemId id, const Circle& old, const Circle& c) override {
    ++moves_;
    const std::uint32_t leaf = leafOf_[id];
    const Vec2 displacement = c.center - old.center;
    if (fits(nodes_[leaf].box, c, displacement)) {
      ++fatPath_;
      return;
    }
    reinsert(leaf, c, displacement);
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override {
    escaped_.clear();
    constexpr std::size_t kAhead = 16;  // leaves are scattered in large trees: fetch ahead to overlap misses
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i + kAhead < ids.size()) __builtin_prefetch(&nodes_[leafOf_[ids[i + kAhead]]]);
      const Circle& c = circle(ids[i]);
      if (fits(nodes_[leafOf_[ids[i]]].box, c, c.center - old[i].center)) continue;
      escaped_.push_back(static_cast<std::uint32_t>(i));
    }
    moves_ += ids.size();
    fatPath_ += ids.size() - escaped_.size();
    if (rebuildFraction_ < 1.0 && double(escaped_.size()) > rebuildFraction_ * double(size())) {
      ++rebuilds_;
      std::vector<BuildEntry> entries;
      entries.reserve(size());
      forEachItem([&](ItemId id, const Circle& c) { entries.push_back(buildEntry(id, c)); });
      buildTopDown(entries);
      return;
    }
    for (std::uint32_t i : escaped_) {
      const Circle& c = circle(ids[i]);
      reinsert(leafOf_[ids[i]], c, c.center - old[i].center);
    }
  }

  void doRemove(ItemId id, const Circle&) override {
    const std::uint32_t leaf = leafOf_[id];
    removeLeaf(leaf);
    freeNode(leaf);
    leafOf_[id] = kNull;
  }

  void doClear() override {
    nodes_.clear();
    leafOf_.clear();
    root_ = kNull;
    freeHead_ = kNull;
    liveNodes_ = 0;
    moves_ = fatPath_ = reinserts_ = rotations_ = 0;
  }

  // -- queries -----------------------------------------------------------------------------------------

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out) override {
    walk([&](const Box& b) { return boxContainsPoint(b, p); },
         [&](ItemId id) { return circleContainsPoint(circle(id), p); }, out, "box does not hold the point");
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out) override {
    const Box reach = tightBox(query);
    walk([&](const Box& b) { return boxesOverlap(b, reach); },
         [&](ItemId id) { return circlesOverlap(circle(id), query); }, out, "box misses the circle's bounds");
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out) override {
    walk([&](const Box& b) { return boxesOverlap(b, box); },
         [&](ItemId id) { return circleOverlapsBox(circle(id), box); }, out, "box misses the query box");
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out) override {
    bvh::allRayHits(segment, out,
                    [&](auto&& onHit, const std::optional<RayHit>* best) { walkRay(segment, onHit, best); });
  }

  std::optional<RayHit> doRayCastFirst(const Segment& segment) override {
    return bvh::nearestRayHit(
        segment, [&](auto&& onHit, const std::optional<RayHit>* best) { walkRay(segment, onHit, best); });
  }

  void doFindPairs(std::vector<Pair>& out) override;

  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow) override;

  std::string doValidate() const override;

 private:
  struct StackEntry {
    std::uint32_t node;
    std::uint32_t depth;
  };
  struct CullEntry {
    std::uint32_t node;
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
    std::uint32_t slot;  // 1 or 2: which child of `parent` this range becomes
  };

  void readParams() {
    margin_ = static_cast<float>(param("margin"));
    predict_ = static_cast<float>(param("predict"));
    rebuildFraction_ = param("rebuild_fraction");
  }

  bool isLeaf(std::uint32_t n) const { return nodes_[n].child1 == kNull; }

  std::uint32_t allocNode() {
    std::uint32_t n;
    if (freeHead_ != kNull) {
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
    nodes_[n].child1 = nodes_[n].child2 = kNull;
    nodes_[n].parent = freeHead_;
    freeHead_ = n;
    --liveNodes_;
  }

  NodeInfo nodeInfo(std::uint32_t n, int depth) const {
    NodeInfo info;
    info.shape = NodeShape::Box;
    info.box = nodes_[n].box;
    info.depth = depth;
    info.itemCount = isLeaf(n) ? 1 : 0;
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

  void reinsert(std::uint32_t leaf, const Circle& c, Vec2 displacement) {
    ++reinserts_;
    removeLeaf(leaf);
    nodes_[leaf].box = fatBox(c, displacement);
    insertLeaf(leaf);
  }

  // -- insertion, removal, rotations -----------------------------------------------------------------

  // Descends towards the sibling that adds the least perimeter: at each node, making a new parent here
  // costs the union's perimeter; going down costs the growth of this node (paid by every ancestor too)
  // plus a lower bound of what the chosen child adds.
  std::uint32_t chooseSibling(const Box& leafBox) const {
    std::uint32_t n = root_;
    float inherited = 0.0f;
    while (!isLeaf(n)) {
      const AabbNode& node = nodes_[n];
      const float unionPerimeter = boxPerimeter(boxUnion(node.box, leafBox));
      const float here = unionPerimeter + inherited;
      inherited += unionPerimeter - boxPerimeter(node.box);
      float best = here;
      std::uint32_t next = kNull;
      for (std::uint32_t child : {node.child1, node.child2}) {
        const Box& cb = nodes_[child].box;
        const float grownChild = boxPerimeter(boxUnion(cb, leafBox));
        const float cost = inherited + (isLeaf(child) ? grownChild : grownChild - boxPerimeter(cb));
        if (cost < best) best = cost, next = child;
      }
      if (next == kNull) break;
      n = next;
    }
    return n;
  }

  void insertLeaf(std::uint32_t leaf) {
    if (root_ == kNull) {
      root_ = leaf;
      nodes_[leaf].parent = kNull;
      return;
    }
    const std::uint32_t sibling = chooseSibling(nodes_[leaf].box);
    const std::uint32_t oldParent = nodes_[sibling].parent;
    const std::uint32_t parent = allocNode();  // may reallocate the pool: no references held across it
    AabbNode& p = nodes_[parent];
    p.parent = oldParent;
    p.child1 = sibling;
    p.child2 = leaf;
    p.box = boxUnion(nodes_[sibling].box, nodes_[leaf].box);
    p.height = nodes_[sibling].height + 1;
    if (oldParent == kNull)
      root_ = parent;
    else
      replaceChild(oldParent, sibling, parent);
    nodes_[sibling].parent = parent;
    nodes_[leaf].parent = parent;
    refitUpwards(nodes_[parent].parent);
  }

  void removeLeaf(std::uint32_t leaf) {
    if (leaf == root_) {
      root_ = kNull;
      return;
    }
    const std::uint32_t parent = nodes_[leaf].parent;
    const std::uint32_t grandparent = nodes_[parent].parent;
    const std::uint32_t sibling =
        nodes_[parent].child1 == leaf ? nodes_[parent].child2 : nodes_[parent].child1;
    if (grandparent == kNull) {
      root_ = sibling;
      nodes_[sibling].parent = kNull;
    } else {
      replaceChild(grandparent, parent, sibling);
      nodes_[sibling].parent = grandparent;
    }
    freeNode(parent);
    nodes_[leaf].parent = kNull;
    refitUpwards(grandparent);
  }

  void replaceChild(std::uint32_t parent, std::uint32_t from, std::uint32_t to) {
    if (nodes_[parent].child1 == from)
      nodes_[parent].child1 = to;
    else
      nodes_[parent].child2 = to;
  }

  void refit(std::uint32_t n) {
    AabbNode& node = nodes_[n];
    node.box = boxUnion(nodes_[node.child1].box, nodes_[node.child2].box);
    node.height = 1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height);
  }

  // Refits and rotates from `n` to the root, stopping at the first node whose box and height come out
  // unchanged: nothing above it can change either.
  void refitUpwards(std::uint32_t n) {
    while (n != kNull) {
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
    const std::uint32_t b = nodes_[a].child1, c = nodes_[a].child2;
    const int hb = nodes_[b].height, hc = nodes_[c].height;
    if (hc > hb + 1) return liftGrandchild(a, c);
    if (hb > hc + 1) return liftGrandchild(a, b);
    swapForPerimeter(a);
    return a;
  }

  // `tall` (a child of `a`) takes `a`'s place; `a` becomes its child and keeps the other grandchild.
  std::uint32_t liftGrandchild(std::uint32_t a, std::uint32_t tall) {
    ++rotations_;
    const std::uint32_t shortChild = nodes_[a].child1 == tall ? nodes_[a].child2 : nodes_[a].child1;
    const std::uint32_t f = nodes_[tall].child1, g = nodes_[tall].child2;
    // Keep the taller grandchild up with `tall`; on equal heights keep the one that leaves `a` smaller.
    std::uint32_t keep = f, give = g;
    if (nodes_[g].height > nodes_[f].height ||
        (nodes_[g].height == nodes_[f].height &&
         boxPerimeter(boxUnion(nodes_[shortChild].box, nodes_[f].box)) <
             boxPerimeter(boxUnion(nodes_[shortChild].box, nodes_[g].box)))) {
      keep = g, give = f;
    }
    const std::uint32_t up = nodes_[a].parent;
    nodes_[tall].parent = up;
    if (up == kNull)
      root_ = tall;
    else
      replaceChild(up, a, tall);
    nodes_[tall].child1 = a;
    nodes_[tall].child2 = keep;
    nodes_[a].parent = tall;
    replaceChild(a, tall, give);
    nodes_[give].parent = a;
    refit(a);
    refit(tall);
    return tall;
  }

  void swapForPerimeter(std::uint32_t a) {
    const std::uint32_t b = nodes_[a].child1, c = nodes_[a].child2;
    struct Option {
      std::uint32_t stay;   // the child of `a` whose child is swapped out
      std::uint32_t moved;  // the other child of `a`, moving down into `stay`
      std::uint32_t out;    // the grandchild moving up into `a`
      std::uint32_t kept;   // the grandchild staying under `stay`
    };
    Option best{};
    float bestGain = 0.0f;
    const int heightBefore = 1 + std::max(nodes_[b].height, nodes_[c].height);
    for (const auto& [stay, moved] : {std::pair{b, c}, std::pair{c, b}}) {
      if (isLeaf(stay)) continue;
      const float before = boxPerimeter(nodes_[stay].box);
      for (const auto& [out, kept] : {std::pair{nodes_[stay].child1, nodes_[stay].child2},
                                      std::pair{nodes_[stay].child2, nodes_[stay].child1}}) {
        const float after = boxPerimeter(boxUnion(nodes_[moved].box, nodes_[kept].box));
        const int stayHeight = 1 + std::max(nodes_[moved].height, nodes_[kept].height);
        const int newHeight = 1 + std::max(stayHeight, nodes_[out].height);
        if (newHeight > heightBefore || std::abs(stayHeight - nodes_[out].height) > 1) continue;
        if (before - after > bestGain) bestGain = before - after, best = {stay, moved, out, kept};
      }
    }
    if (bestGain <= 0.0f) return;
    ++rotations_;
    replaceChild(a, best.moved, best.out);
    nodes_[best.out].parent = a;
    replaceChild(best.stay, best.out, best.moved);
    nodes_[best.moved].parent = best.stay;
    refit(best.stay);
  }

  // -- top-down build ----------------------------------------------------------------------------------

  BuildEntry buildEntry(ItemId id, const Circle& c) const {
    return {fatBox(c, {0, 0}), c.center.x, c.center.y, id};
  }

  void buildTopDown(std::vector<BuildEntry>& entries);

  // -- queries -----------------------------------------------------------------------------------------

  template <class Overlaps, class Exact>
  void walk(Overlaps&& overlaps, Exact&& exact, std::vector<ItemId>& out, const char* pruneTest) {
    if (root_ == kNull) return;
    stack_.clear();
    stack_.push_back({root_, 0});
    while (!stack_.empty()) {
      const StackEntry e = stack_.back();
      stack_.pop_back();
      ++counters_.nodesVisited;
      const AabbNode& node = nodes_[e.node];
      if (!overlaps(node.box)) {
        if (tracing()) tracePrune(nodeInfo(e.node, static_cast<int>(e.depth)), pruneTest);
        continue;
      }
      if (tracing()) traceVisit(nodeInfo(e.node, static_cast<int>(e.depth)));
      if (node.child1 == kNull) {
        ++counters_.candidates;
        const bool hit = exact(node.child2);
        traceCandidate(node.child2, hit);
        if (hit) out.push_back(node.child2);
        continue;
      }
      stack_.push_back({node.child2, e.depth + 1});
      stack_.push_back({node.child1, e.depth + 1});
    }
  }

  // Ray walk; with `best` set it visits the nearer child first and skips boxes entered after the best hit.
  template <class OnHit>
  void walkRay(const Segment& segment, OnHit&& onHit, const std::optional<RayHit>* best) {
    if (root_ == kNull) return;
    stack_.clear();
    stack_.push_back({root_, 0});
    while (!stack_.empty()) {
      const StackEntry e = stack_.back();
      stack_.pop_back();
      ++counters_.nodesVisited;
      const AabbNode& node = nodes_[e.node];
      double entry = 0.0;
      if (!bvh::segmentEntersBox(segment, node.box, entry) ||
          (best && *best && entry > double(std::nextafter((*best)->t, 2.0f)))) {
        if (tracing()) tracePrune(nodeInfo(e.node, static_cast<int>(e.depth)), "box misses the segment");
        continue;
      }
      if (tracing()) traceVisit(nodeInfo(e.node, static_cast<int>(e.depth)));
      if (node.child1 == kNull) {
        ++counters_.candidates;
        float t = 0.0f;
        const bool hit = segmentHitsCircle(segment, circle(node.child2), t);
        traceCandidate(node.child2, hit);
        if (hit) onHit(node.child2, t);
        continue;
      }
      std::uint32_t nearer = node.child1, farther = node.child2;
      if (best) {
        double e1 = 0.0, e2 = 0.0;
        const bool hit1 = bvh::segmentEntersBox(segment, nodes_[nearer].box, e1);
        const bool hit2 = bvh::segmentEntersBox(segment, nodes_[farther].box, e2);
        if (!hit1 || (hit2 && e2 < e1)) std::swap(nearer, farther);
      }
      stack_.push_back({farther, e.depth + 1});
      stack_.push_back({nearer, e.depth + 1});
    }
  }

  // -- state -------------------------------------------------------------------------------------------

  std::vector<AabbNode> nodes_;
  std::uint32_t root_ = kNull;
  std::uint32_t freeHead_ = kNull;
  std::size_t liveNodes_ = 0;
  std::vector<std::uint32_t> leafOf_;  // item id -> leaf node

  float margin_ = 1.0f, predict_ = 4.0f;
  double rebuildFraction_ = 1.0;

  std::uint64_t moves_ = 0, fatPath_ = 0, reinserts_ = 0, rotations_ = 0, rebuilds_ = 0;

  std::vector<StackEntry> stack_;
  std::vector<std::array<std::uint32_t, 2>> pairStack_;
  std::vector<std::uint32_t> escaped_;
  std::vector<CullEntry> cullStack_;
};

// ---------------------------------------------------------------------------------------------------------
// Top-down build
// ---------------------------------------------------------------------------------------------------------

// Splits each range of leaves along the longer axis of its centres where the binned surface-area cost
// (count times perimeter on each side) is lowest. Nodes are allocated in depth-first order, parents
// before children, so one backwards pass over the pool computes every box and height.
void AabbTree::buildTopDown(std::vector<BuildEntry>& entries) {
  nodes_.clear();
  root_ = kNull;
  freeHead_ = kNull;
  liveNodes_ = 0;
  if (entries.empty()) return;
  nodes_.reserve(2 * entries.size() - 1);
  std::vector<BuildTask> tasks{{0, static_cast<std::uint32_t>(entries.size()), kNull, 0}};
  while (!tasks.empty()) {
    const BuildTask task = tasks.back();
    tasks.pop_back();
    const std::uint32_t n = allocNode();
    if (task.parent == kNull)
      root_ = n;
    else
      (task.slot == 1 ? nodes_[task.parent].child1 : nodes_[task.parent].child2) = n;
    nodes_[n].parent = task.parent;
    const std::uint32_t count = task.end - task.begin;
    if (count == 1) {
      const BuildEntry& e = entries[task.begin];
      nodes_[n].box = e.box;
      nodes_[n].height = 0;
      nodes_[n].child2 = e.id;
      leafOf_[e.id] = n;
      continue;
    }
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
    // Pushed second, popped first: child1's subtree is allocated right after its parent.
    tasks.push_back({mid, task.end, n, 2});
    tasks.push_back({task.begin, mid, n, 1});
  }
  for (std::uint32_t n = static_cast<std::uint32_t>(nodes_.size()); n-- > 0;) {
    if (!isLeaf(n)) refit(n);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Pairs and view cone
// ---------------------------------------------------------------------------------------------------------

// Self-traversal: a node's pairs are those within each child plus those across the two children; a
// cross pair whose boxes meet descends into the larger box.
void AabbTree::doFindPairs(std::vector<Pair>& out) {
  if (root_ == kNull) return;
  pairStack_.clear();
  pairStack_.push_back({root_, root_});
  while (!pairStack_.empty()) {
    const auto [a, b] = pairStack_.back();
    pairStack_.pop_back();
    ++counters_.nodesVisited;
    const AabbNode& na = nodes_[a];
    if (a == b) {
      if (na.child1 == kNull) continue;
      pairStack_.push_back({na.child1, na.child1});
      pairStack_.push_back({na.child2, na.child2});
      if (boxesOverlap(nodes_[na.child1].box, nodes_[na.child2].box))
        pairStack_.push_back({na.child1, na.child2});
      continue;
    }
    const AabbNode& nb = nodes_[b];
    if (na.child1 == kNull && nb.child1 == kNull) {
      ++counters_.candidates;
      if (circlesOverlap(circle(na.child2), circle(nb.child2))) out.push_back(makePair(na.child2, nb.child2));
      continue;
    }
    const bool splitA =
        nb.child1 == kNull || (na.child1 != kNull && boxPerimeter(na.box) >= boxPerimeter(nb.box));
    const AabbNode& split = splitA ? na : nb;
    const std::uint32_t other = splitA ? b : a;
    const Box& otherBox = splitA ? nb.box : na.box;
    for (std::uint32_t child : {split.child1, split.child2}) {
      if (boxesOverlap(nodes_[child].box, otherBox)) pairStack_.push_back({child, other});
    }
  }
}

// Boxes are classified by their circumscribed circle; a wholly visible subtree adds its items untested.
void AabbTree::doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow) {
  visibleNow.clear();
  if (root_ == kNull) return;
  const bvh::ConeClassifier classifier(cone);
  std::vector<CullEntry>& stack = cullStack_;
  stack.clear();
  stack.push_back({root_, false});
  while (!stack.empty()) {
    const CullEntry e = stack.back();
    stack.pop_back();
    ++counters_.nodesVisited;
    const AabbNode& node = nodes_[e.node];
    if (node.child1 == kNull) {
      if (!e.inside) {
        ++counters_.candidates;
        if (!circleOverlapsCone(circle(node.child2), cone)) continue;
      }
      visibleNow.push_back(node.child2);
      continue;
    }
    bool inside = e.inside;
    if (!inside) {
      const double cx = 0.5 * (double(node.box.min.x) + node.box.max.x);
      const double cy = 0.5 * (double(node.box.min.y) + node.box.max.y);
      const double hx = 0.5 * (double(node.box.max.x) - node.box.min.x);
      const double hy = 0.5 * (double(node.box.max.y) - node.box.min.y);
      const Side side = classifier.classify(cx, cy, std::sqrt(hx * hx + hy * hy));
      if (side == Side::Outside) continue;
      inside = side == Side::Inside;
    }
    stack.push_back({node.child2, inside});
    stack.push_back({node.child1, inside});
  }
  std::sort(visibleNow.begin(), visibleNow.end());
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

std::string AabbTree::doValidate() const {
  const std::string name = "aabb-tree: ";
  if (root_ == kNull) {
    if (size() != 0) return name + "empty tree but items present";
    if (liveNodes_ != 0) return name + "no root but live nodes";
  } else if (nodes_[root_].parent != kNull) {
    return name + "root has a parent";
  }
  std::size_t leaves = 0, visited = 0;
  std::vector<std::uint32_t> stack;
  if (root_ != kNull) stack.push_back(root_);
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    if (++visited > nodes_.size()) return name + "cycle in the tree";
    const AabbNode& node = nodes_[n];
    if (node.height < 0) return name + "dead node linked in the tree";
    if (node.child1 == kNull) {
      ++leaves;
      const ItemId id = node.child2;
      if (node.height != 0) return name + "leaf with nonzero height";
      if (!contains(id) || id >= leafOf_.size() || leafOf_[id] != n)
        return name + "leaf not mapped by its item id";
      if (!boxContains(node.box, tightBox(circle(id)))) return name + "fat box does not hold its circle";
      continue;
    }
    for (std::uint32_t child : {node.child1, node.child2}) {
      if (child >= nodes_.size() || nodes_[child].parent != n) return name + "broken parent link";
      if (!boxContains(node.box, nodes_[child].box)) return name + "box does not hold a child's box";
      stack.push_back(child);
    }
    if (node.height != 1 + std::max(nodes_[node.child1].height, nodes_[node.child2].height))
      return name + "wrong height";
  }
  if (leaves != size())
    return name + "tree holds " + std::to_string(leaves) + " leaves, table " + std::to_string(size());
  if (visited != liveNodes_) return name + "live node count differs from the tree";
  std::size_t dead = 0;
  for (std::uint32_t f = freeHead_; f != kNull; f = nodes_[f].parent) {
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
