// Ratcliff's sphere tree (SpherePackFactory, seed 001): circles are gathered by leaf super-spheres, leaf
// super-spheres by root super-spheres, and every super-sphere carries a little slop ("gravity") so that
// its members rarely leave it. A move is one distance comparison with the parent's bound as long as the
// circle stays inside; a circle that pierces its parent is moved to the top of the tree in O(1) and put on
// a reintegration queue, and its old parent on a recomputation queue; both are drained once per frame.
//
// Layout: every node (items included) lives in one pool addressed by 32-bit indices. Siblings form an
// intrusive doubly linked list, which is what makes detaching a child a few index swaps. Node 0 is the
// unbounded root; it holds the top-level super-spheres and whatever waits for reintegration.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "bvh_pruning.hpp"
#include "pair_view.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using bvh::Side;

constexpr std::uint32_t kNull = 0xffffffffu;
constexpr std::uint32_t kRoot = 0;
constexpr std::uint8_t kItemLevel = 0;
constexpr std::uint8_t kRootLevel = 254;
constexpr std::uint8_t kDeadLevel = 255;

// Node flags.
constexpr std::uint8_t kQueuedReintegrate = 1;
constexpr std::uint8_t kQueuedRecompute = 2;
// A member that disagrees with this node's cull memory was linked somewhere below since the last view
// cull, so the next cull must descend here even if the node's own state does not change.
constexpr std::uint8_t kCullDirty = 4;

// Last view-cull state of a super-sphere.
constexpr std::uint8_t kHidden = 0;
constexpr std::uint8_t kPartial = 1;
constexpr std::uint8_t kVisible = 2;

// Sibling sets larger than this are paired by a sweep along x instead of testing every pair.
constexpr std::size_t kSweepThreshold = 4;

struct SphereNode {
  float x = 0.0f;  // bound centre (for items: the item's centre)
  float y = 0.0f;
  float radius = 0.0f;  // bound radius including gravity (for items: the item's radius)
  std::uint32_t parent = kNull;
  std::uint32_t firstChild = kNull;
  std::uint32_t nextSibling = kNull;  // free-list link while dead
  std::uint32_t prevSibling = kNull;
  std::uint32_t countOrItem = 0;    // child count of a super-sphere, the ItemId of an item
  float reach = 0.0f;               // radius grown by the pruning margin, kept for the pair sweeps
  std::uint8_t level = kDeadLevel;  // 0 item, 1 leaf super-sphere, 2 root super-sphere, ...
  std::uint8_t flags = 0;
  std::uint8_t cullState = kPartial;
  std::uint8_t spare = 0;
};
static_assert(sizeof(SphereNode) == 40, "sphere-tree nodes are kept at 40 bytes");

// A queued node with a hint: where to look first for its new home.
struct QueueEntry {
  std::uint32_t node;
  std::uint32_t hint;
};

// A FIFO of node indices; entries go stale when their node is freed or processed (the flag tells).
class NodeFifo {
 public:
  void push(QueueEntry e) { entries_.push_back(e); }
  bool empty() const { return head_ == entries_.size(); }
  QueueEntry pop() {
    const QueueEntry e = entries_[head_++];
    if (head_ == entries_.size()) {
      entries_.clear();
      head_ = 0;
    } else if (head_ >= 4096 && head_ * 2 >= entries_.size()) {
      entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return e;
  }
  void clear() {
    entries_.clear();
    head_ = 0;
  }
  std::size_t capacityBytes() const { return entries_.capacity() * sizeof(QueueEntry); }

 private:
  std::vector<QueueEntry> entries_;
  std::size_t head_ = 0;
};

// A circle in double, used while computing bounds.
struct Disc {
  double x = 0, y = 0, r = 0;
};

// The smallest circle containing two circles.
Disc enclosingPair(const Disc& a, const Disc& b) {
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double d = std::sqrt(dx * dx + dy * dy);
  if (d + b.r <= a.r) return a;
  if (d + a.r <= b.r) return b;
  const double r = 0.5 * (d + a.r + b.r);
  const double k = (r - a.r) / d;
  return {a.x + dx * k, a.y + dy * k, r};
}

// Whether circle `inner` lies inside `outer`, compared in double.
bool discContains(const Disc& outer, const Disc& inner) {
  if (inner.r > outer.r) return false;
  const double dx = inner.x - outer.x, dy = inner.y - outer.y;
  const double room = outer.r - inner.r;
  return dx * dx + dy * dy <= room * room;
}

class SphereTree final : public SpatialIndex {
 public:
  SphereTree() : SpatialIndex("sphere-tree") {
    addParam({"leaf_size", "largest radius of a leaf super-sphere's content (before gravity)", 24.0, 1e-3,
              1e12, false});
    addParam({"root_size", "largest radius of a root super-sphere's content (before gravity)", 128.0, 1e-3,
              1e12, false});
    addParam({"gravity", "slop added around every super-sphere so members rarely leave it", 1.5, 0.0, 1e12,
              false});
    addParam({"levels",
              "levels of super-spheres (2: leaf and root as in the seed; more stack root_size/leaf_size "
              "times larger ones on top, for very large worlds)",
              2, 2, 8, true});
    addParam({"budget", "queue entries processed per maintain() (0 = drain both queues every frame)", 0, 0,
              1e9, true});
    readParams();
    resetPool();
  }

  std::string_view description() const override {
    return "Ratcliff's sphere tree (SpherePackFactory, seed 001_ecbeb7c72bb815d1.txt): circles are gathered "
           "by "
           "leaf super-spheres of at most leaf_size radius, those by root super-spheres of at most "
           "root_size, "
           "each grown by a gravity slop. A move costs one squared-distance comparison with the parent's "
           "bound "
           "while the circle stays inside (the seed's 99% case); a circle that pierces its parent is moved "
           "to the "
           "top in O(1) and queued for reintegration, its parent queued for a tighter recomputation, and "
           "maintain() drains both queues (optionally within a budget); a reintegration searches the old "
           "neighbourhood first, else the top level. Insert and remove are O(1) plus one queued "
           "reintegration. "
           "Queries walk the spheres top-down with inside/partial classification (a sphere wholly inside the "
           "query "
           "reports its items untested); the view-cone cull keeps each node's last state and visits only "
           "what "
           "may have changed, reporting visibility changes alone. The top level is scanned linearly, so very "
           "large "
           "worlds want levels=3. Queries and pair search test more than a well-balanced box tree, but moves "
           "are "
           "nearly free: choose it for many moving objects, disparate speeds, frequent insert/remove and "
           "culling.";
  }

  // -- introspection ------------------------------------------------------------------------------------

  void visitNodes(const NodeVisitor& visitor) const override {
    std::vector<std::pair<std::uint32_t, int>> stack;
    for (std::uint32_t c = nodes_[kRoot].firstChild; c != kNull; c = nodes_[c].nextSibling) {
      if (nodes_[c].level != kItemLevel) stack.push_back({c, 0});
    }
    while (!stack.empty()) {
      const auto [n, depth] = stack.back();
      stack.pop_back();
      visitor(nodeInfo(n, depth));
      for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
        if (nodes_[c].level != kItemLevel) stack.push_back({c, depth + 1});
      }
    }
  }

  IndexStats stats() const override {
    IndexStats s;
    s.nodes = liveSpheres_;
    int deepest = -1;
    std::vector<std::pair<std::uint32_t, int>> stack{{kRoot, -1}};
    while (!stack.empty()) {
      const auto [n, depth] = stack.back();
      stack.pop_back();
      deepest = std::max(deepest, depth);
      for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
        if (nodes_[c].level != kItemLevel) stack.push_back({c, depth + 1});
      }
    }
    s.maxDepth = std::max(deepest, 0);
    s.memoryBytes = tableBytes() + nodes_.capacity() * sizeof(SphereNode) +
                    nodeOf_.capacity() * sizeof(std::uint32_t) + visibleById_.capacity() +
                    pendingLeft_.capacity() * sizeof(ItemId) + reintegrate_.capacityBytes() +
                    recompute_.capacityBytes() + stack_.capacity() * sizeof(WalkEntry) +
                    pairStack_.capacity() * sizeof(PairTask) + sweep_.capacity() * sizeof(SweepEntry) +
                    cullStack_.capacity() * sizeof(CullEntry) + scratchIds_.capacity() * sizeof(ItemId);
    return s;
  }

  void extra(ExtraCounters& out) const override {
    std::size_t leafSpheres = 0, itemsInLeaves = 0, rootChildren = 0;
    for (const SphereNode& n : nodes_) {
      if (n.level == 1) ++leafSpheres, itemsInLeaves += n.countOrItem;
    }
    for (std::uint32_t c = nodes_[kRoot].firstChild; c != kNull; c = nodes_[c].nextSibling) ++rootChildren;
    out.push_back({"fast_path_ratio", moves_ == 0 ? 1.0 : double(fastPath_) / double(moves_)});
    out.push_back({"last_batch_fast_path_ratio",
                   batchMoves_ == 0 ? 1.0 : double(batchFastPath_) / double(batchMoves_)});
    out.push_back({"moves", double(moves_)});
    out.push_back({"detached", double(detached_)});
    out.push_back({"reintegrated", double(reintegrated_)});
    out.push_back({"recomputed", double(recomputed_)});
    out.push_back({"reintegration_queue", double(queuedReintegrate_)});
    out.push_back({"recomputation_queue", double(queuedRecompute_)});
    out.push_back({"super_spheres", double(liveSpheres_)});
    out.push_back({"leaf_spheres", double(leafSpheres)});
    out.push_back({"items_per_leaf", leafSpheres == 0 ? 0.0 : double(itemsInLeaves) / double(leafSpheres)});
    out.push_back({"root_children", double(rootChildren)});
  }

 protected:
  void onParamChanged(std::string_view key) override {
    readParams();
    if (key != "budget") rebuildFromTable();
  }

  // -- mutation ----------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override;

  void doInsert(ItemId id, const Circle& c) override {
    ensureIdCapacity();
    const std::uint32_t n = allocNode(kItemLevel);
    setItem(n, id, c);
    link(n, kRoot);
    queueReintegrate(n, kNull);
  }

  void doUpdate(ItemId id, const Circle&, const Circle& c) override {
    ++moves_;
    ++batchMoves_;
    const std::uint32_t n = nodeOf_[id];
    SphereNode& node = nodes_[n];
    node.x = c.center.x;
    node.y = c.center.y;
    node.radius = c.radius;
    node.reach = inflateRadiusForPruning(c.radius, c.center);
    const std::uint32_t parent = node.parent;
    // NewPos: one squared distance against the binding distance; the root is unbounded.
    if (parent == kRoot || discContains(discOf(parent), discOf(n))) {
      ++fastPath_;
      ++batchFastPath_;
      return;
    }
    ++detached_;
    detachToRoot(n);
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override {
    batchMoves_ = 0;
    batchFastPath_ = 0;
    // In large trees each move is two cache misses (the item's node, then its parent's); fetching them
    // a few moves ahead overlaps the misses instead of paying them one after another.
    constexpr std::size_t kNodeAhead = 16, kParentAhead = 8;
    const std::size_t n = ids.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kNodeAhead < n) __builtin_prefetch(&nodes_[nodeOf_[ids[i + kNodeAhead]]]);
      if (i + kParentAhead < n) {
        const std::uint32_t parent = nodes_[nodeOf_[ids[i + kParentAhead]]].parent;
        if (parent != kNull) __builtin_prefetch(&nodes_[parent]);
      }
      doUpdate(ids[i], old[i], circle(ids[i]));
    }
  }

  void doRemove(ItemId id, const Circle&) override {
    const std::uint32_t n = nodeOf_[id];
    const std::uint32_t parent = nodes_[n].parent;
    unlink(n);
    freeNode(n);
    nodeOf_[id] = kNull;
    if (parent != kRoot) queueRecompute(parent);
    if (visibleById_[id]) pendingLeft_.push_back(id);
  }

  void doClear() override {
    resetPool();
    nodeOf_.clear();
    visibleById_.clear();
    pendingLeft_.clear();
  }

  void doMaintain() override { process(budget_ == 0 ? std::numeric_limits<std::size_t>::max() : budget_); }

  // -- queries -----------------------------------------------------------------------------------------

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out) override {
    walk([&](const SphereNode& n) { return bvh::circleBoundVsPoint(n.x, n.y, n.radius, p); },
         [&](const SphereNode& n) { return circleContainsPoint(itemCircle(n), p); }, out,
         "bound does not hold the point");
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out) override {
    walk([&](const SphereNode& n) { return bvh::circleBoundVsCircle(n.x, n.y, n.radius, query); },
         [&](const SphereNode& n) { return circlesOverlap(itemCircle(n), query); }, out,
         "bound misses the circle");
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out) override {
    walk([&](const SphereNode& n) { return bvh::circleBoundVsBox(n.x, n.y, n.radius, box); },
         [&](const SphereNode& n) { return circleOverlapsBox(itemCircle(n), box); }, out,
         "bound misses the box");
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
  void oldFindPairs(std::vector<Pair>& out);

  void doCullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left) override;

  std::string doValidate() const override;

 private:
  struct WalkEntry {
    std::uint32_t node;
    std::uint32_t depth;
    std::uint32_t inside;  // nonzero: an ancestor lies wholly inside the query, so nothing below is tested
  };
  struct PairTask {
    std::uint32_t a;
    std::uint32_t b;  // equal to a: pairs within a's subtree
  };
  struct SweepEntry {
    float minX, maxX, minY, maxY;
    std::uint32_t node;
    std::uint32_t side;  // across two subtrees: which one the node belongs to
  };
  struct CullEntry {
    std::uint32_t node;
    std::uint8_t forced;  // kPartial: classify; kHidden/kVisible: an ancestor decided for the whole subtree
  };

  // -- pool -----------------------------------------------------------------------------------------------

  void readParams() {
    leafSize_ = param("leaf_size");
    rootSize_ = param("root_size");
    gravity_ = param("gravity");
    topLevel_ = static_cast<int>(param("levels"));
    budget_ = static_cast<std::size_t>(param("budget"));
  }

  void resetPool() {
    nodes_.clear();
    freeHead_ = kNull;
    liveSpheres_ = 0;
    SphereNode root;
    root.level = kRootLevel;
    root.flags = kCullDirty;
    nodes_.push_back(root);
    reintegrate_.clear();
    recompute_.clear();
    queuedReintegrate_ = queuedRecompute_ = 0;
    moves_ = fastPath_ = detached_ = reintegrated_ = recomputed_ = 0;
    batchMoves_ = batchFastPath_ = 0;
  }

  void ensureIdCapacity() {
    if (nodeOf_.size() < idCapacity()) {
      nodeOf_.resize(idCapacity(), kNull);
      visibleById_.resize(idCapacity(), 0);
    }
  }

  std::uint32_t allocNode(std::uint8_t level) {
    std::uint32_t n;
    if (freeHead_ != kNull) {
      n = freeHead_;
      freeHead_ = nodes_[n].nextSibling;
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    SphereNode& node = nodes_[n];
    node = SphereNode{};
    node.level = level;  // a new super-sphere starts Partial: the cull always enters it
    if (level != kItemLevel) ++liveSpheres_;
    return n;
  }

  void freeNode(std::uint32_t n) {
    SphereNode& node = nodes_[n];
    if (node.flags & kQueuedReintegrate) --queuedReintegrate_;
    if (node.flags & kQueuedRecompute) --queuedRecompute_;
    if (node.level != kItemLevel) --liveSpheres_;
    node.level = kDeadLevel;
    node.flags = 0;
    node.parent = kNull;
    node.nextSibling = freeHead_;
    freeHead_ = n;
  }

  void setItem(std::uint32_t n, ItemId id, const Circle& c) {
    SphereNode& node = nodes_[n];
    node.x = c.center.x;
    node.y = c.center.y;
    node.radius = c.radius;
    node.reach = inflateRadiusForPruning(c.radius, c.center);
    node.countOrItem = id;
    nodeOf_[id] = n;
  }

  // Whether a child linked under `parent` agrees with the parent's cull memory. A Partial parent is always
  // entered by the next cull, so anything may join it; a wholly hidden or visible one is skipped when its
  // state does not change, so its members must already have that state.
  bool agreesWithCullMemory(std::uint32_t child, std::uint32_t parent) const {
    const SphereNode& p = nodes_[parent];
    if (p.cullState == kPartial) return true;
    const SphereNode& c = nodes_[child];
    if (c.level == kItemLevel) return bool(visibleById_[c.countOrItem]) == (p.cullState == kVisible);
    return c.cullState == p.cullState && !(c.flags & kCullDirty);
  }

  // The view cull must descend towards every node that gained a member disagreeing with its memory.
  void markCullDirty(std::uint32_t n) {
    while (n != kNull && !(nodes_[n].flags & kCullDirty)) {
      nodes_[n].flags |= kCullDirty;
      n = nodes_[n].parent;
    }
  }

  void link(std::uint32_t child, std::uint32_t parent) {
    SphereNode& p = nodes_[parent];
    SphereNode& c = nodes_[child];
    c.parent = parent;
    c.prevSibling = kNull;
    c.nextSibling = p.firstChild;
    if (p.firstChild != kNull) nodes_[p.firstChild].prevSibling = child;
    p.firstChild = child;
    ++p.countOrItem;
    if (!agreesWithCullMemory(child, parent)) markCullDirty(parent);
  }

  void unlink(std::uint32_t child) {
    SphereNode& c = nodes_[child];
    SphereNode& p = nodes_[c.parent];
    if (c.prevSibling != kNull)
      nodes_[c.prevSibling].nextSibling = c.nextSibling;
    else
      p.firstChild = c.nextSibling;
    if (c.nextSibling != kNull) nodes_[c.nextSibling].prevSibling = c.prevSibling;
    --p.countOrItem;
    c.parent = kNull;
    c.prevSibling = c.nextSibling = kNull;
  }

  Disc discOf(std::uint32_t n) const { return {nodes_[n].x, nodes_[n].y, nodes_[n].radius}; }

  static Circle itemCircle(const SphereNode& n) { return {{n.x, n.y}, n.radius}; }

  // Largest content radius of a super-sphere at `level` (before gravity).
  double limitOf(int level) const {
    if (level <= 1) return leafSize_;
    double limit = rootSize_;
    const double ratio = std::max(1.0, rootSize_ / leafSize_);
    for (int l = 2; l < level; ++l) limit = std::min(limit * ratio, 1e30);
    return limit;
  }

  void setBound(std::uint32_t n, const Disc& d) {
    SphereNode& node = nodes_[n];
    node.x = static_cast<float>(d.x);
    node.y = static_cast<float>(d.y);
    // Measure the radius from the rounded centre, then round it up: the bound never loses a member.
    const double dx = double(node.x) - d.x, dy = double(node.y) - d.y;
    node.radius = bvh::roundUpToFloat(d.r + std::sqrt(dx * dx + dy * dy));
    node.reach = inflateRadiusForPruning(node.radius, {node.x, node.y});
  }

  NodeInfo nodeInfo(std::uint32_t n, int depth) const {
    const SphereNode& node = nodes_[n];
    NodeInfo info;
    info.shape = NodeShape::Circle;
    info.circle = {{node.x, node.y}, node.radius};
    info.box = boundsOf(info.circle);
    info.depth = depth;
    info.itemCount = node.level == 1 ? node.countOrItem : 0;
    if (node.level > 1) {
      for (std::uint32_t c = node.firstChild; c != kNull; c = nodes_[c].nextSibling) {
        if (nodes_[c].level == kItemLevel) ++info.itemCount;
      }
    }
    return info;
  }

  // -- queues ------------------------------------------------------------------------------------------

  void queueReintegrate(std::uint32_t n, std::uint32_t hint) {
    if (nodes_[n].flags & kQueuedReintegrate) return;
    nodes_[n].flags |= kQueuedReintegrate;
    ++queuedReintegrate_;
    reintegrate_.push({n, hint});
  }

  void queueRecompute(std::uint32_t n) {
    if (nodes_[n].flags & kQueuedRecompute) return;
    nodes_[n].flags |= kQueuedRecompute;
    ++queuedRecompute_;
    recompute_.push({n, kNull});
  }

  // Moves a node that pierced its parent to the top: a few index swaps and two queue pushes.
  void detachToRoot(std::uint32_t n) {
    const std::uint32_t parent = nodes_[n].parent;
    const std::uint32_t grandparent = nodes_[parent].parent;
    unlink(n);
    link(n, kRoot);
    queueReintegrate(n, grandparent);
    queueRecompute(parent);
  }

  bool popLive(NodeFifo& fifo, std::uint8_t flag, QueueEntry& out) {
    while (!fifo.empty()) {
      out = fifo.pop();
      if (nodes_[out.node].level != kDeadLevel && (nodes_[out.node].flags & flag)) return true;
    }
    return false;
  }

  void process(std::size_t budget) {
    std::size_t done = 0;
    while (done < budget) {
      bool any = false;
      QueueEntry e;
      if (popLive(recompute_, kQueuedRecompute, e)) {
        nodes_[e.node].flags &= static_cast<std::uint8_t>(~kQueuedRecompute);
        --queuedRecompute_;
        recomputeBound(e.node);
        ++done;
        any = true;
      }
      if (done < budget && popLive(reintegrate_, kQueuedReintegrate, e)) {
        nodes_[e.node].flags &= static_cast<std::uint8_t>(~kQueuedReintegrate);
        --queuedReintegrate_;
        reintegrate(e.node, e.hint);
        ++done;
        any = true;
      }
      if (!any) break;
    }
  }

  // Shrinks a super-sphere around its members; frees it when empty; sends it to the top if the tighter
  // bound no longer fits its own parent.
  void recomputeBound(std::uint32_t n) {
    ++recomputed_;
    const std::uint32_t parent = nodes_[n].parent;
    if (nodes_[n].firstChild == kNull) {
      unlink(n);
      freeNode(n);
      if (parent != kRoot) queueRecompute(parent);
      return;
    }
    // As in the seed's Recompute, a bound only ever shrinks here: the members all lie inside the current
    // one (a member that would pierce it leaves first), and a tighter bound from a different centre could
    // be larger; accepted each time, such bounds would creep outward frame after frame.
    const Disc tight = enclosingOfChildren(n);
    if (tight.r >= nodes_[n].radius) return;
    setBound(n, tight);
    if (parent != kRoot && !discContains(discOf(parent), discOf(n))) detachToRoot(n);
  }

  // A bound around the children: centre of their bounding box, radius to the farthest rim, plus gravity.
  Disc enclosingOfChildren(std::uint32_t n) const {
    double minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY;
    for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
      const SphereNode& cn = nodes_[c];
      minX = std::min(minX, double(cn.x) - cn.radius);
      maxX = std::max(maxX, double(cn.x) + cn.radius);
      minY = std::min(minY, double(cn.y) - cn.radius);
      maxY = std::max(maxY, double(cn.y) + cn.radius);
    }
    Disc d{0.5 * (minX + maxX), 0.5 * (minY + maxY), 0.0};
    for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
      const SphereNode& cn = nodes_[c];
      const double dx = cn.x - d.x, dy = cn.y - d.y;
      d.r = std::max(d.r, std::sqrt(dx * dx + dy * dy) + cn.radius);
    }
    d.r += gravity_;
    return d;
  }

  // Best home for `x` among super-spheres one level above it: one that already holds it (closest centre
  // first), else the one that grows least while staying within its size limit and inside its own parent.
  struct Home {
    std::uint32_t node = kNull;
    bool grows = false;
    Disc grown;
    double score = INFINITY;
  };

  void considerHome(std::uint32_t candidate, const Disc& x, const Disc& xWithGravity, double maxRadius,
                    Home& best) const {
    const Disc bound = discOf(candidate);
    const double dx = bound.x - x.x, dy = bound.y - x.y;
    const double d = std::sqrt(dx * dx + dy * dy);
    if (discContains(bound, x)) {
      if (best.grows || d < best.score) best = {candidate, false, {}, d};
      return;
    }
    if (best.node != kNull && !best.grows) return;
    const Disc grown = enclosingPair(bound, xWithGravity);
    if (grown.r > maxRadius) return;
    const double growth = grown.r - bound.r;
    if (growth >= best.score) return;
    const std::uint32_t parent = nodes_[candidate].parent;
    if (parent != kRoot) {
      // The grown bound is stored rounded; check the stored form against the parent.
      const float fx = static_cast<float>(grown.x), fy = static_cast<float>(grown.y);
      const double ex = double(fx) - grown.x, ey = double(fy) - grown.y;
      const Disc stored{fx, fy, double(bvh::roundUpToFloat(grown.r + std::sqrt(ex * ex + ey * ey)))};
      if (!discContains(discOf(parent), stored)) return;
    }
    best = {candidate, true, grown, growth};
  }

  Home findHome(std::uint32_t x, int target, std::uint32_t hint) {
    const Disc xd = discOf(x);
    const Disc xg{xd.x, xd.y, xd.r + gravity_};
    const double maxRadius = limitOf(target) + gravity_;
    Home best;
    // The old neighbourhood first: most circles that leave a leaf land in a sibling of it.
    if (hint != kNull && nodes_[hint].level == target + 1) {
      for (std::uint32_t c = nodes_[hint].firstChild; c != kNull; c = nodes_[c].nextSibling) {
        if (nodes_[c].level == target) considerHome(c, xd, xg, maxRadius, best);
      }
      if (best.node != kNull) return best;
    }
    const double reach = 2.0 * maxRadius + xd.r;
    stack_.clear();
    stack_.push_back({kRoot, 0, 0});
    while (!stack_.empty()) {
      const std::uint32_t n = stack_.back().node;
      stack_.pop_back();
      for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
        const SphereNode& cn = nodes_[c];
        if (cn.level < target || c == x) continue;
        if (cn.level == target) {
          considerHome(c, xd, xg, maxRadius, best);
          continue;
        }
        const double dx = cn.x - xd.x, dy = cn.y - xd.y;
        const double within = cn.radius + reach;
        if (dx * dx + dy * dy <= within * within) stack_.push_back({c, 0, 0});
      }
    }
    return best;
  }

  // Places a node waiting at the top into a super-sphere one level up, creating one (and placing that,
  // in turn) when nothing near can take it.
  void reintegrate(std::uint32_t x, std::uint32_t hint) {
    ++reintegrated_;
    int level = nodes_[x].level;
    if (nodes_[x].parent != kRoot || level >= topLevel_) return;  // top-level spheres belong at the root
    unlink(x);
    while (true) {
      const int target = level + 1;
      const Home home = findHome(x, target, hint);
      if (home.node != kNull) {
        if (home.grows) setBound(home.node, home.grown);
        link(x, home.node);
        return;
      }
      const std::uint32_t fresh = allocNode(static_cast<std::uint8_t>(target));
      const Disc xd = discOf(x);
      setBound(fresh, {xd.x, xd.y, xd.r + gravity_});
      link(x, fresh);
      if (target >= topLevel_) {
        link(fresh, kRoot);
        return;
      }
      x = fresh;
      level = target;
      hint = kNull;
    }
  }

  // -- queries -----------------------------------------------------------------------------------------

  template <class Classify, class Exact>
  void walk(Classify&& classify, Exact&& exact, std::vector<ItemId>& out, const char* pruneTest) {
    stack_.clear();
    stack_.push_back({kRoot, 0, 0});
    while (!stack_.empty()) {
      const WalkEntry e = stack_.back();
      stack_.pop_back();
      if (e.node == kRoot) ++counters_.nodesVisited;
      if (e.node != kRoot && tracing()) traceVisit(nodeInfo(e.node, static_cast<int>(e.depth)));
      const std::uint32_t childDepth = e.node == kRoot ? 0 : e.depth + 1;
      for (std::uint32_t c = nodes_[e.node].firstChild; c != kNull; c = nodes_[c].nextSibling) {
        const SphereNode& cn = nodes_[c];
        if (cn.level != kItemLevel) ++counters_.nodesVisited;  // every bound tested or entered counts
        if (cn.level == kItemLevel) {
          const ItemId id = cn.countOrItem;
          if (e.inside) {
            // Inside a bound that lies wholly in the query: the match is certain without a test.
            traceCandidate(id, true);
            out.push_back(id);
            continue;
          }
          ++counters_.candidates;
          const bool hit = exact(cn);
          traceCandidate(id, hit);
          if (hit) out.push_back(id);
          continue;
        }
        if (e.inside) {
          stack_.push_back({c, childDepth, 1});
          continue;
        }
        const Side side = classify(cn);
        if (side == Side::Outside) {
          if (tracing()) tracePrune(nodeInfo(c, static_cast<int>(childDepth)), pruneTest);
          continue;
        }
        stack_.push_back({c, childDepth, side == Side::Inside ? 1u : 0u});
      }
    }
  }

  // Ray walk; with `best` set it clips: bounds entered after the best hit so far are skipped, and nearer
  // bounds are walked first.
  template <class OnHit>
  void walkRay(const Segment& segment, OnHit&& onHit, const std::optional<RayHit>* best) {
    struct Near {
      double entry;
      std::uint32_t node;
    };
    std::vector<Near> nearFirst;
    stack_.clear();
    stack_.push_back({kRoot, 0, 0});
    while (!stack_.empty()) {
      const WalkEntry e = stack_.back();
      stack_.pop_back();
      if (best && *best && e.node != kRoot) {
        // Re-check against the best hit found since this node was pushed.
        double entry = 0.0;
        bvh::segmentEntersCircleBound(segment, nodes_[e.node].x, nodes_[e.node].y, nodes_[e.node].radius,
                                      entry);
        if (entry > double(std::nextafter((*best)->t, 2.0f))) continue;
      }
      if (e.node == kRoot) ++counters_.nodesVisited;
      if (e.node != kRoot && tracing()) traceVisit(nodeInfo(e.node, static_cast<int>(e.depth)));
      const std::uint32_t childDepth = e.node == kRoot ? 0 : e.depth + 1;
      nearFirst.clear();
      for (std::uint32_t c = nodes_[e.node].firstChild; c != kNull; c = nodes_[c].nextSibling) {
        const SphereNode& cn = nodes_[c];
        if (cn.level != kItemLevel) ++counters_.nodesVisited;
        if (cn.level == kItemLevel) {
          ++counters_.candidates;
          float t = 0.0f;
          const bool hit = segmentHitsCircle(segment, itemCircle(cn), t);
          traceCandidate(cn.countOrItem, hit);
          if (hit) onHit(cn.countOrItem, t);
          continue;
        }
        double entry = 0.0;
        if (!bvh::segmentEntersCircleBound(segment, cn.x, cn.y, cn.radius, entry)) {
          if (tracing()) tracePrune(nodeInfo(c, static_cast<int>(childDepth)), "bound misses the segment");
          continue;
        }
        nearFirst.push_back({entry, c});
      }
      if (best) {
        std::sort(nearFirst.begin(), nearFirst.end(),
                  [](const Near& a, const Near& b) { return a.entry > b.entry; });
      }
      for (const Near& n : nearFirst) stack_.push_back({n.node, childDepth, 0});
    }
  }

  // -- pairs -------------------------------------------------------------------------------------------

  // Either an exact test (two items) or a bound test that queues the pair for descent.
  void pairUp(std::uint32_t a, std::uint32_t b, std::vector<Pair>& out) {
    const SphereNode& na = nodes_[a];
    const SphereNode& nb = nodes_[b];
    if (na.level == kItemLevel && nb.level == kItemLevel) {
      ++counters_.candidates;
      if (circlesOverlap(itemCircle(na), itemCircle(nb)))
        out.push_back(makePair(na.countOrItem, nb.countOrItem));
      return;
    }
    if (bvh::circleBoundsMeet(na.x, na.y, na.radius, nb.x, nb.y, nb.radius)) pairStack_.push_back({a, b});
  }

  // A node's extent along both axes for the sweeps, in float: the pruning margin in `reach` (a
  // millionth of the magnitudes) is far wider than the rounding of these four subtractions.
  SweepEntry sweepEntry(std::uint32_t n, std::uint32_t side) const {
    const SphereNode& node = nodes_[n];
    return {node.x - node.reach, node.x + node.reach, node.y - node.reach, node.y + node.reach, n, side};
  }

  void pairsAmongChildren(std::uint32_t n, std::vector<Pair>& out);
  void pairsAcross(std::uint32_t a, std::uint32_t b, std::vector<Pair>& out);

  // -- state -------------------------------------------------------------------------------------------

  std::vector<SphereNode> nodes_;
  std::uint32_t freeHead_ = kNull;
  std::size_t liveSpheres_ = 0;
  std::vector<std::uint32_t> nodeOf_;  // item id -> node
  NodeFifo reintegrate_;
  NodeFifo recompute_;
  std::size_t queuedReintegrate_ = 0;  // live entries (flags set)
  std::size_t queuedRecompute_ = 0;

  // Visibility memory of the view cull: by id, whether the item is in visible_.
  std::vector<std::uint8_t> visibleById_;
  std::vector<ItemId> pendingLeft_;  // removed while visible: reported as left at the next cull

  double leafSize_ = 24.0, rootSize_ = 128.0, gravity_ = 1.5;
  int topLevel_ = 2;
  std::size_t budget_ = 0;

  std::uint64_t moves_ = 0, fastPath_ = 0, detached_ = 0, reintegrated_ = 0, recomputed_ = 0;
  std::uint64_t batchMoves_ = 0, batchFastPath_ = 0;

  std::vector<WalkEntry> stack_;
  std::vector<PairTask> pairStack_;
  pair_view::PairView view_;
  pair_view::ItemCopy viewItems_;
  pair_view::WalkScratch viewWalk_;
  std::vector<std::uint32_t> viewStack_;
  std::uint64_t pretests_ = 0;
  std::vector<SweepEntry> sweep_;
  std::vector<CullEntry> cullStack_;
  std::vector<ItemId> scratchIds_;
};

// ---------------------------------------------------------------------------------------------------------
// Bulk build
// ---------------------------------------------------------------------------------------------------------

// Bottom-up, level by level: the nodes of one level are bucketed by a grid whose cell matches the next
// level's size; within a cell, the largest members seed super-spheres and the others join the first one
// that can take them without exceeding the size limit. The result is the tree the seed's insert-and-
// process loop converges to, at O(n log n) instead of one search of the whole top level per circle.
void SphereTree::doBuild(std::span<const Item> items) {
  ensureIdCapacity();
  std::fill(visibleById_.begin(), visibleById_.end(), 0);
  pendingLeft_.clear();
  for (ItemId id : visible_) {
    if (id >= visibleById_.size()) continue;
    visibleById_[id] = 1;
    if (!contains(id)) pendingLeft_.push_back(id);
  }
  // Item nodes are allocated cell by cell so that the members of one leaf sit next to each other.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
  order.reserve(items.size());
  const double firstCell = limitOf(1) * 1.4;
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    const Vec2 c = items[i].circle.center;
    const auto cx =
        static_cast<std::uint32_t>(static_cast<std::int64_t>(std::floor(double(c.x) / firstCell)));
    const auto cy =
        static_cast<std::uint32_t>(static_cast<std::int64_t>(std::floor(double(c.y) / firstCell)));
    order.push_back({(std::uint64_t(cx) << 32) | cy, i});
  }
  std::sort(order.begin(), order.end());
  // Items plus room for the super-spheres (a few percent) and their churn, so that the pool is not left
  // at twice its size by the vector's doubling.
  nodes_.reserve(nodes_.size() + items.size() + items.size() / 4 + 64);
  std::vector<std::uint32_t> current;
  current.reserve(items.size());
  for (const auto& [key, i] : order) {
    const std::uint32_t n = allocNode(kItemLevel);
    setItem(n, items[i].id, items[i].circle);
    current.push_back(n);
  }
  struct Member {
    std::int64_t cellX, cellY;
    float radius;
    std::uint32_t node;
  };
  std::vector<Member> members;
  std::vector<std::uint32_t> next;
  std::vector<Disc> seeds;
  std::vector<std::uint32_t> seedNodes;
  for (int level = 1; level <= topLevel_ && !current.empty(); ++level) {
    const double limit = limitOf(level);
    const double cell = limit * 1.4;
    members.clear();
    for (std::uint32_t n : current) {
      const SphereNode& node = nodes_[n];
      const double cx = std::floor(double(node.x) / cell), cy = std::floor(double(node.y) / cell);
      constexpr double kMaxCell = 4e18;  // floor(x / cell) stays inside int64 for any valid coordinate
      members.push_back({static_cast<std::int64_t>(std::clamp(cx, -kMaxCell, kMaxCell)),
                         static_cast<std::int64_t>(std::clamp(cy, -kMaxCell, kMaxCell)), node.radius, n});
    }
    std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
      if (a.cellX != b.cellX) return a.cellX < b.cellX;
      if (a.cellY != b.cellY) return a.cellY < b.cellY;
      if (a.radius != b.radius) return a.radius > b.radius;
      return a.node < b.node;
    });
    next.clear();
    for (std::size_t begin = 0; begin < members.size();) {
      std::size_t end = begin + 1;
      while (end < members.size() && members[end].cellX == members[begin].cellX &&
             members[end].cellY == members[begin].cellY) {
        ++end;
      }
      seeds.clear();
      seedNodes.clear();
      for (std::size_t i = begin; i < end; ++i) {
        const Disc m = discOf(members[i].node);
        std::size_t chosen = seeds.size();
        for (std::size_t s = 0; s < seeds.size(); ++s) {
          const Disc grown = enclosingPair(seeds[s], m);
          // An oversized seed still takes members that fit inside it without growing.
          if (grown.r <= std::max(limit, seeds[s].r)) {
            seeds[s] = grown;
            chosen = s;
            break;
          }
        }
        if (chosen == seeds.size()) {
          seeds.push_back(m);
          seedNodes.push_back(allocNode(static_cast<std::uint8_t>(level)));
        }
        link(members[i].node, seedNodes[chosen]);
      }
      for (std::size_t s = 0; s < seeds.size(); ++s) {
        // A tight bound from the final members, kept only if it beats the incrementally grown one.
        Disc tight = enclosingOfChildren(seedNodes[s]);
        const Disc grown{seeds[s].x, seeds[s].y, seeds[s].r + gravity_};
        setBound(seedNodes[s], tight.r < grown.r ? tight : grown);
        next.push_back(seedNodes[s]);
      }
      begin = end;
    }
    current.swap(next);
  }
  for (std::uint32_t n : current) link(n, kRoot);
}

// ---------------------------------------------------------------------------------------------------------
// Pairs
// ---------------------------------------------------------------------------------------------------------

void SphereTree::doFindPairs(std::vector<Pair>& out) {
  counters_.nodesVisited += pair_view::copyTree(
      view_, viewItems_, size(), kRoot,
      [&](std::uint32_t n, auto&& add) {
        for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
          const SphereNode& cn = nodes_[c];
          if (cn.level == kItemLevel) add(cn.countOrItem, itemCircle(cn));
        }
      },
      [&](std::uint32_t n, auto&& push) {
        for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
          if (nodes_[c].level != kItemLevel) push(c);
        }
      },
      viewStack_);
  pair_view::findPairsInto(view_, out, viewWalk_, counters_, pretests_);
}

[[maybe_unused]] void SphereTree::oldFindPairs(std::vector<Pair>& out) {
  pairStack_.clear();
  pairStack_.push_back({kRoot, kRoot});
  while (!pairStack_.empty()) {
    const PairTask task = pairStack_.back();
    pairStack_.pop_back();
    ++counters_.nodesVisited;
    if (task.a == task.b)
      pairsAmongChildren(task.a, out);
    else
      pairsAcross(task.a, task.b, out);
  }
}

// Pairs within one node's subtree: every pair of children, by a sweep along x when there are many, and
// each child super-sphere's own subtree.
void SphereTree::pairsAmongChildren(std::uint32_t n, std::vector<Pair>& out) {
  sweep_.clear();
  for (std::uint32_t c = nodes_[n].firstChild; c != kNull; c = nodes_[c].nextSibling) {
    const SphereNode& cn = nodes_[c];
    if (cn.level != kItemLevel && cn.firstChild != kNull) pairStack_.push_back({c, c});
    sweep_.push_back(sweepEntry(c, 0));
  }
  const std::size_t count = sweep_.size();
  if (count < 2) return;
  if (count <= kSweepThreshold) {
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = i + 1; j < count; ++j) pairUp(sweep_[i].node, sweep_[j].node, out);
    }
    return;
  }
  std::sort(sweep_.begin(), sweep_.end(),
            [](const SweepEntry& a, const SweepEntry& b) { return a.minX < b.minX; });
  for (std::size_t i = 0; i < count; ++i) {
    const SweepEntry& a = sweep_[i];
    for (std::size_t j = i + 1; j < count && sweep_[j].minX <= a.maxX; ++j) {
      const SweepEntry& b = sweep_[j];
      if (b.minY <= a.maxY && a.minY <= b.maxY) pairUp(a.node, b.node, out);
    }
  }
}

// Pairs between two subtrees whose bounds meet. An item against a super-sphere meets each of its
// children; two super-spheres keep only the children that reach the other's bound and pair those across
// by a sweep along x, so that two crowded leaves do not test every item of one against every item of
// the other.
void SphereTree::pairsAcross(std::uint32_t a, std::uint32_t b, std::vector<Pair>& out) {
  if (nodes_[a].level == kItemLevel || nodes_[b].level == kItemLevel) {
    const std::uint32_t split = nodes_[a].level == kItemLevel ? b : a;
    const std::uint32_t other = split == a ? b : a;
    for (std::uint32_t c = nodes_[split].firstChild; c != kNull; c = nodes_[c].nextSibling)
      pairUp(c, other, out);
    return;
  }
  sweep_.clear();
  std::size_t fromA = 0;
  for (std::uint32_t side = 0; side < 2; ++side) {
    const SweepEntry other = sweepEntry(side == 0 ? b : a, 0);
    for (std::uint32_t c = nodes_[side == 0 ? a : b].firstChild; c != kNull; c = nodes_[c].nextSibling) {
      const SweepEntry e = sweepEntry(c, side);
      if (e.minX > other.maxX || other.minX > e.maxX || e.minY > other.maxY || other.minY > e.maxY) continue;
      sweep_.push_back(e);
      if (side == 0) ++fromA;
    }
  }
  const std::size_t count = sweep_.size();
  if (fromA == 0 || fromA == count) return;
  std::sort(sweep_.begin(), sweep_.end(),
            [](const SweepEntry& x, const SweepEntry& y) { return x.minX < y.minX; });
  for (std::size_t i = 0; i < count; ++i) {
    const SweepEntry& x = sweep_[i];
    for (std::size_t j = i + 1; j < count && sweep_[j].minX <= x.maxX; ++j) {
      const SweepEntry& y = sweep_[j];
      if (x.side != y.side && y.minY <= x.maxY && x.minY <= y.maxY) pairUp(x.node, y.node, out);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// View cone with memory
// ---------------------------------------------------------------------------------------------------------

// Every super-sphere keeps its state from the last cull (hidden, partial, visible). A super-sphere that is
// hidden or wholly visible again, and gained no member since, is not entered: its items cannot have
// changed visibility. Only items whose visibility changed produce events.
void SphereTree::doCullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left) {
  ensureIdCapacity();
  const bvh::ConeClassifier classifier(cone);
  for (ItemId id : pendingLeft_) {
    if (visibleById_[id] && !contains(id)) {
      visibleById_[id] = 0;
      left.push_back(id);
    }
  }
  pendingLeft_.clear();
  cullStack_.clear();
  cullStack_.push_back({kRoot, kPartial});
  while (!cullStack_.empty()) {
    const CullEntry e = cullStack_.back();
    cullStack_.pop_back();
    ++counters_.nodesVisited;
    SphereNode& node = nodes_[e.node];
    std::uint8_t state = kPartial;
    if (e.node != kRoot) {
      if (e.forced != kPartial) {
        state = e.forced;
      } else {
        const Side side = classifier.classify(node.x, node.y, node.radius);
        state = side == Side::Outside ? kHidden : (side == Side::Inside ? kVisible : kPartial);
      }
    }
    const bool unchanged = state == node.cullState && state != kPartial && !(node.flags & kCullDirty);
    node.cullState = state;
    node.flags &= static_cast<std::uint8_t>(~kCullDirty);
    if (unchanged && e.node != kRoot) continue;
    for (std::uint32_t c = node.firstChild; c != kNull; c = nodes_[c].nextSibling) {
      const SphereNode& cn = nodes_[c];
      if (cn.level != kItemLevel) {
        cullStack_.push_back({c, state});
        continue;
      }
      const ItemId id = cn.countOrItem;
      bool visible = state == kVisible;
      if (state == kPartial) {
        ++counters_.candidates;
        visible = circleOverlapsCone(itemCircle(cn), cone);
      }
      if (visible != bool(visibleById_[id])) {
        visibleById_[id] = visible;
        (visible ? entered : left).push_back(id);
      }
    }
  }
  std::sort(entered.begin(), entered.end());
  std::sort(left.begin(), left.end());
  scratchIds_.clear();
  std::set_difference(visible_.begin(), visible_.end(), left.begin(), left.end(),
                      std::back_inserter(scratchIds_));
  visible_.clear();
  std::merge(scratchIds_.begin(), scratchIds_.end(), entered.begin(), entered.end(),
             std::back_inserter(visible_));
}

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

std::string SphereTree::doValidate() const {
  const std::string name = "sphere-tree: ";
  if (nodes_.empty() || nodes_[kRoot].level != kRootLevel || nodes_[kRoot].parent != kNull)
    return name + "bad root";
  std::size_t items = 0, spheres = 0, flaggedReintegrate = 0, flaggedRecompute = 0, visited = 0;
  std::vector<std::uint32_t> stack{kRoot};
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    ++visited;
    if (visited > nodes_.size()) return name + "cycle in the tree";
    const SphereNode& node = nodes_[n];
    if (node.flags & kQueuedReintegrate) ++flaggedReintegrate;
    if (node.flags & kQueuedRecompute) ++flaggedRecompute;
    if (node.level == kItemLevel) {
      ++items;
      const ItemId id = node.countOrItem;
      if (!contains(id) || id >= nodeOf_.size() || nodeOf_[id] != n)
        return name + "item node not mapped by its id";
      if (!(itemCircle(node) == circle(id))) return name + "item node circle differs from the table";
      if (node.reach != inflateRadiusForPruning(node.radius, {node.x, node.y}))
        return name + "stale sweep reach";
      continue;
    }
    if (n != kRoot) ++spheres;
    std::uint32_t count = 0;
    std::uint32_t prev = kNull;
    // The cull skips a clean, wholly hidden or visible node whose state holds: everything below it must
    // then be clean and in that same state. (Under a Partial node anything goes: the cull always enters it.)
    const bool uniformClean = n != kRoot && node.cullState != kPartial && !(node.flags & kCullDirty);
    for (std::uint32_t c = node.firstChild; c != kNull; c = nodes_[c].nextSibling) {
      const SphereNode& cn = nodes_[c];
      if (cn.parent != n || cn.prevSibling != prev) return name + "broken sibling or parent link";
      if (cn.level == kDeadLevel) return name + "dead node linked in the tree";
      if (n != kRoot) {
        if (cn.level + 1 != node.level) return name + "child level is not one below its parent";
        const Disc outer = discOf(n), inner = discOf(c);
        const double dx = inner.x - outer.x, dy = inner.y - outer.y;
        const double slack = 1e-9 * (outer.r + std::fabs(outer.x) + std::fabs(outer.y));
        if (std::sqrt(dx * dx + dy * dy) + inner.r > outer.r + slack)
          return name + "child pokes out of its parent";
      }
      if (uniformClean) {
        if (cn.level == kItemLevel) {
          if (bool(visibleById_[cn.countOrItem]) != (node.cullState == kVisible)) {
            return name + "cull memory of an item disagrees with its clean parent";
          }
        } else if (cn.cullState != node.cullState || (cn.flags & kCullDirty)) {
          return name + "cull memory of a sphere disagrees with its clean parent";
        }
      }
      prev = c;
      ++count;
      stack.push_back(c);
    }
    if (count != node.countOrItem) return name + "child count differs from the list";
  }
  if (items != size())
    return name + "tree holds " + std::to_string(items) + " items, table " + std::to_string(size());
  if (spheres != liveSpheres_) return name + "super-sphere count differs";
  if (flaggedReintegrate != queuedReintegrate_ || flaggedRecompute != queuedRecompute_)
    return name + "queue counts differ";
  std::size_t dead = 0;
  for (std::uint32_t f = freeHead_; f != kNull; f = nodes_[f].nextSibling) {
    if (nodes_[f].level != kDeadLevel || ++dead > nodes_.size()) return name + "broken free list";
  }
  if (dead + visited != nodes_.size()) return name + "nodes leaked: neither in the tree nor free";
  std::size_t flaggedVisible = 0;
  for (std::uint8_t v : visibleById_) flaggedVisible += v;
  if (flaggedVisible != visible_.size()) return name + "visibility memory differs from the visible set";
  for (ItemId id : visible_) {
    if (id >= visibleById_.size() || !visibleById_[id])
      return name + "visible item not remembered as visible";
  }
  return {};
}

}  // namespace

std::unique_ptr<SpatialIndex> makeSphereTree() {
  return std::make_unique<SphereTree>();
}

}  // namespace st
