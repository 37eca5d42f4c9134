// Box2D's b2DynamicTree (libbox2d 2.4.1) behind the structure interface, driven the way Box2D's own broad
// phase and contact manager drive it: fat leaf boxes (a 0.1 m margin plus 4x the last displacement, both
// compiled into the library; none for a teleport, as b2Body::SetTransform does), a move buffer of the proxies
// the tree reinserted, a pair update that queries the tree with each moved proxy's fat box and so only ever
// finds new pairs, and a persistent contact cache that keeps every pair until its fat boxes separate. Exact
// answers come from the predicates; the tree only prunes, with boxes that contain each circle's inflated
// bounds.

#include <box2d/b2_dynamic_tree.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "peer_support.hpp"

namespace st::peers {
namespace {

using ProxyId = std::int32_t;
constexpr ProxyId kNoProxy = b2_nullNode;
constexpr std::uint32_t kNoEdge = 0xffffffffu;
constexpr std::uint32_t kNoSlot = 0xffffffffu;
/// validate() checks that the pair cache is complete (one tree query per proxy) up to this many proxies.
constexpr std::size_t kFullCheckLimit = 2000000;

// Box2D's own ray walk prunes with a float separating-axis test. It is conservative here only because every
// leaf box carries Box2D's 0.1 m fat margin, which exceeds that test's rounding error while every coordinate
// involved (tree boxes and segment ends, in metres) stays within this bound. Beyond it rays use box queries.
constexpr float kRayFastPathLimit = 16384.0f;
// Shorter segments (in metres) would not be normalised by Box2D's walk, which the bound above relies on.
constexpr float kRayMinLength = 1e-3f;
// Box2D's node pool starts with this many nodes and doubles when full (b2_dynamic_tree.cpp).
constexpr std::size_t kBox2dInitialNodeCapacity = 16;

// Spreads the low 16 bits of v over the even bits, for Morton keys.
std::uint32_t interleaveBits(std::uint32_t v) {
  v &= 0xffffu;
  v = (v | (v << 8)) & 0x00ff00ffu;
  v = (v | (v << 4)) & 0x0f0f0f0fu;
  v = (v | (v << 2)) & 0x33333333u;
  v = (v | (v << 1)) & 0x55555555u;
  return v;
}

template <class Fn>
struct QueryAdapter {
  Fn& fn;
  bool QueryCallback(std::int32_t proxy) { return fn(proxy); }
};

template <class Fn>
struct RayAdapter {
  Fn& fn;
  float RayCastCallback(const b2RayCastInput& input, std::int32_t proxy) { return fn(input, proxy); }
};

// One cached pair of proxies whose fat boxes overlapped when one of them last moved. Edge `side` links it
// into proxy[side]'s list; an edge is named contact * 2 + side, as Box2D keeps a contact edge per body.
struct Contact {
  ProxyId proxy[2];       // proxy[0] == kNoProxy marks a free slot, whose next[0] chains the free list
  std::uint32_t prev[2];  // previous edge in proxy[side]'s list
  std::uint32_t next[2];  // next edge in proxy[side]'s list
};
static_assert(sizeof(Contact) == 24, "the contact cache is scanned every frame: keep contacts compact");

class Box2dTree final : public SpatialIndex {
 public:
  Box2dTree() : SpatialIndex("box2d-tree") {
    addParam(
        {"scale_log2",
         "Box2D metres per world unit, as a power of two (its 0.1 m margin and 4x displacement are fixed)", 0,
         -16, 16, true});
    resetTree();
  }

  std::string_view description() const override {
    return "Box2D's dynamic AABB tree (b2DynamicTree, libbox2d 2.4.1), used as Box2D's broad phase and "
           "contact manager use it: each circle is a leaf with a fattened box, a move out of it is one O(log "
           "n) remove and re-insert with rotations, and a contact cache keeps every pair whose fat boxes "
           "overlap. A peer, not ours: what a game developer already using Box2D would get, a good general "
           "choice when most objects move slowly.";
  }

  void visitNodes(const NodeVisitor& visitor) const override {
    const ProxyId root = rootNode();
    if (root == kNoProxy) return;
    std::vector<std::pair<ProxyId, int>> stack{{root, 0}};
    while (!stack.empty()) {
      const auto [index, depth] = stack.back();
      stack.pop_back();
      const b2TreeNode& node = nodeAt(index);
      visitor(nodeInfo(index, depth));
      if (node.IsLeaf()) continue;
      stack.push_back({node.child2, depth + 1});
      stack.push_back({node.child1, depth + 1});
    }
  }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    if (!contains(id) || id >= proxyOf_.size() || proxyOf_[id] == kNoProxy) return;
    std::vector<ProxyId> path;
    for (ProxyId at = proxyOf_[id]; at != b2_nullNode; at = nodeAt(at).parent) path.push_back(at);
    for (std::size_t k = path.size(); k-- > 0;)
      visitor(nodeInfo(path[k], static_cast<int>(path.size() - 1 - k)));
  }

  std::string_view nodesNotCounted() const override {
    return "Box2D 2.4.1's query reports the leaves it reaches, not the inner nodes it tests";
  }

  std::string_view examinedLowerBound() const override {
    return "Box2D 2.4.1 reports the leaves whose fat boxes overlap and the contacts it keeps, not the fat "
           "boxes it tests and rejects";
  }

  std::string_view nodeRule() const override {
    return "a leaf per circle, its box fattened by 0.1 m and the last move x4, inserted beside the node "
           "whose box grows least in perimeter, then rotated for balance";
  }

  IndexStats stats() const override {
    std::size_t capacity = kBox2dInitialNodeCapacity;
    while (capacity < peakNodes_) capacity *= 2;
    const std::size_t bytes = capacity * sizeof(b2TreeNode) + contacts_.capacity() * sizeof(Contact) +
                              headEdge_.capacity() * sizeof(std::uint32_t) +
                              moveSlot_.capacity() * sizeof(std::uint32_t) +
                              moveBuffer_.capacity() * sizeof(ProxyId) +
                              proxyOf_.capacity() * sizeof(ProxyId) + partners_.bytes() + tableBytes();
    return {leafCount_ == 0 ? 0 : 2 * leafCount_ - 1, tree_->GetHeight(), bytes};
  }

  void extra(ExtraCounters& out) const override {
    out.emplace_back("contacts", static_cast<double>(liveContacts_));
    out.emplace_back("proxies_requeried_last_pairs", static_cast<double>(lastRequeried_));
    out.emplace_back("reinsert_fraction_last_frame", lastReinsertFraction_);
    out.emplace_back("tree_area_ratio", leafCount_ == 0 ? 0.0 : static_cast<double>(tree_->GetAreaRatio()));
    out.emplace_back("ray_fallbacks", static_cast<double>(rayFallbacks_.load(std::memory_order_relaxed)));
  }

 protected:
  // Box2D has no bulk build, only one insertion per proxy. Inserting in Morton order of the centres instead
  // of id order gives its greedy insertion far tighter boxes and keeps neighbours close in its node pool
  // (measured: 10x cheaper queries at 100k circles), which a user building a large world would want too.
  void doBuild(std::span<const Item> items) override {
    proxyOf_.assign(idCapacity(), kNoProxy);
    moveBuffer_.reserve(items.size());
    if (items.empty()) return;
    Box bounds = boundsOf(Circle{items[0].circle.center, 0.0f});
    for (const Item& item : items) bounds = boxUnion(bounds, boundsOf(Circle{item.circle.center, 0.0f}));
    const double spanX = std::max(double(bounds.max.x) - bounds.min.x, 1e-30);
    const double spanY = std::max(double(bounds.max.y) - bounds.min.y, 1e-30);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order(items.size());  // (Morton key, index)
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Vec2 c = items[i].circle.center;
      const auto x = static_cast<std::uint32_t>((double(c.x) - bounds.min.x) / spanX * 65535.0);
      const auto y = static_cast<std::uint32_t>((double(c.y) - bounds.min.y) / spanY * 65535.0);
      order[i] = {interleaveBits(x) | (interleaveBits(y) << 1), static_cast<std::uint32_t>(i)};
    }
    std::sort(order.begin(), order.end());
    for (const auto& [key, index] : order) createProxy(items[index].id, items[index].circle);
  }

  void doInsert(ItemId id, const Circle& circle) override {
    if (proxyOf_.size() < idCapacity()) proxyOf_.resize(idCapacity(), kNoProxy);
    createProxy(id, circle);
  }

  void doUpdate(ItemId id, const Circle& old, const Circle& circle) override {
    const ProxyId proxy = proxyOf_[id];
    b2Vec2 displacement{(circle.center.x - old.center.x) * scale_, (circle.center.y - old.center.y) * scale_};
    // A step longer than the circle's diameter is a teleport (the scene's jumps). Box2D makes those with
    // b2Body::SetTransform, which synchronises the fixtures with no displacement: a fat box stretched four
    // jumps long toward where the circle went would overlap a swathe of the world and fill the contact cache.
    if (std::fabs(circle.center.x - old.center.x) + std::fabs(circle.center.y - old.center.y) >
        2.0f * circle.radius)
      displacement = {0.0f, 0.0f};
    extentSum_ += 2.0 * (double(circle.radius) - double(old.radius));
    ++updatesSincePairs_;
    if (tree_->MoveProxy(proxy, metreBox(circle), displacement)) {
      ++reinsertsSincePairs_;
      noteFatBox(proxy);
      bufferMove(proxy);
    }
  }

  void doRemove(ItemId id, const Circle& circle) override {
    const ProxyId proxy = proxyOf_[id];
    while (headEdge_[proxy] != kNoEdge) destroyContact(headEdge_[proxy] >> 1);
    if (moveSlot_[proxy] != kNoSlot) {
      moveBuffer_[moveSlot_[proxy]] = kNoProxy;
      moveSlot_[proxy] = kNoSlot;
    }
    tree_->DestroyProxy(proxy);
    proxyOf_[id] = kNoProxy;
    --leafCount_;
    extentSum_ -= 2.0 * double(circle.radius);
  }

  void doClear() override { resetTree(); }

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override {
    queryLeaves(ctx, metreBox(inflateForPruning(Box{p, p})), [&](ProxyId proxy) {
      const ItemId id = itemOf(proxy);
      testItem(ctx, id, circleContainsPoint(circle(id), p), out);
    });
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override {
    queryLeaves(ctx, metreBox(inflateForPruning(boundsOf(query))), [&](ProxyId proxy) {
      const ItemId id = itemOf(proxy);
      testItem(ctx, id, circlesOverlap(circle(id), query), out);
    });
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override {
    queryLeaves(ctx, metreBox(inflateForPruning(box)), [&](ProxyId proxy) {
      const ItemId id = itemOf(proxy);
      testItem(ctx, id, circleOverlapsBox(circle(id), box), out);
    });
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    walkRay(ctx, segment, [&](ItemId id) {
      float t = 0.0f;
      if (ctx.examine(id, segmentHitsCircle(segment, circle(id), t))) out.push_back(rayHitAt(segment, id, t));
      return -1.0f;  // keep Box2D's walk going over the whole segment
    });
  }

  std::optional<RayHit> doRayCastFirst(const Segment& segment, QueryContext& ctx) const override {
    std::optional<RayHit> best;
    walkRay(ctx, segment, [&](ItemId id) {
      float t = 0.0f;
      if (ctx.examine(id, segmentHitsCircle(segment, circle(id), t))) {
        const RayHit candidate = rayHitAt(segment, id, t);
        if (!best || rayHitLess(candidate, *best)) best = candidate;
      }
      if (!best) return -1.0f;
      // Clip Box2D's walk at the best entry so far. Zero would end the walk before equal-t hits with smaller
      // ids are seen, so the clip stays positive; the fat margin keeps circles entering at the clip inside
      // it.
      return std::max(best->t, std::numeric_limits<float>::min());
    });
    return best;
  }

  void doFindPairs(std::vector<Pair>& out) override {
    updatePairs();
    // As Box2D's contact manager does every step: drop the pairs whose fat boxes separated, test the rest.
    for (std::uint32_t c = 0; c < contacts_.size(); ++c) {
      const Contact& contact = contacts_[c];
      if (contact.proxy[0] == kNoProxy) continue;
      ++counters_.candidates;
      if (!b2TestOverlap(tree_->GetFatAABB(contact.proxy[0]), tree_->GetFatAABB(contact.proxy[1]))) {
        destroyContact(c);
        continue;
      }
      const ItemId a = itemOf(contact.proxy[0]);
      const ItemId b = itemOf(contact.proxy[1]);
      ++counters_.exactTests;
      if (circlesOverlap(circle(a), circle(b))) out.push_back(makePair(a, b));
    }
  }

  std::string doValidate() const override {
    std::string problem;
    std::size_t present = 0;
    forEachItem([&](ItemId id, const Circle& c) {
      ++present;
      if (!problem.empty()) return;
      const ProxyId proxy = id < proxyOf_.size() ? proxyOf_[id] : kNoProxy;
      if (proxy == kNoProxy) {
        problem = "item " + std::to_string(id) + " has no proxy";
      } else if (itemOf(proxy) != id) {
        problem = "proxy of item " + std::to_string(id) + " names another item";
      } else if (!tree_->GetFatAABB(proxy).Contains(metreBox(c))) {
        problem = "fat box of item " + std::to_string(id) + " does not contain its circle";
      } else if (tree_->WasMoved(proxy) != (moveSlot_[proxy] != kNoSlot)) {
        problem = "item " + std::to_string(id) + ": the tree's moved flag and the move buffer disagree";
      }
    });
    if (!problem.empty()) return "box2d-tree: " + problem;
    if (present != leafCount_)
      return "box2d-tree: " + std::to_string(leafCount_) + " proxies for " + std::to_string(present) +
             " items";
    for (std::size_t slot = 0; slot < moveBuffer_.size(); ++slot) {
      const ProxyId proxy = moveBuffer_[slot];
      if (proxy != kNoProxy && moveSlot_[proxy] != slot) return "box2d-tree: move buffer slot mismatch";
    }
    // Each present proxy's contact list is well linked; counted together the lists hold both edges of every
    // live contact, so no contact hangs off a removed proxy. And the cache is complete: two settled proxies
    // (not awaiting the next pair update) whose fat boxes overlap have a contact, or a pair could be missed.
    std::size_t edges = 0;
    StampSet partners;
    // The completeness check costs a tree query per proxy: seconds at a million, most of an hour at ten
    // million. Above kFullCheckLimit proxies it is left out; the pairs, compared with every other
    // structure's on every frame, still show a missing contact.
    const bool checkCacheCompleteness = leafCount_ <= kFullCheckLimit;
    forEachItem([&](ItemId id, const Circle&) {
      if (!problem.empty()) return;
      const ProxyId proxy = proxyOf_[id];
      partners.begin(headEdge_.size());
      std::uint32_t prev = kNoEdge;
      for (std::uint32_t e = headEdge_[proxy]; e != kNoEdge; e = contacts_[e >> 1].next[e & 1]) {
        const Contact& c = contacts_[e >> 1];
        if (c.proxy[0] == kNoProxy || c.proxy[e & 1] != proxy || c.prev[e & 1] != prev) {
          problem = "box2d-tree: contact list of item " + std::to_string(id) + " is broken";
          return;
        }
        partners.insert(static_cast<std::uint32_t>(c.proxy[(e & 1) ^ 1]));
        prev = e;
        ++edges;
      }
      if (tree_->WasMoved(proxy) || !checkCacheCompleteness) return;
      auto check = [&](ProxyId other) {
        if (other != proxy && problem.empty() && !tree_->WasMoved(other) &&
            !partners.contains(static_cast<std::uint32_t>(other))) {
          problem = "box2d-tree: items " + std::to_string(id) + " and " + std::to_string(itemOf(other)) +
                    " have overlapping fat boxes but no contact";
        }
        return true;
      };
      QueryAdapter<decltype(check)> adapter{check};
      tree_->Query(&adapter, tree_->GetFatAABB(proxy));
    });
    if (problem.empty() && edges != 2 * liveContacts_) {
      return "box2d-tree: contact lists hold " + std::to_string(edges) + " edges for " +
             std::to_string(liveContacts_) + " contacts";
    }
    return problem;
  }

 private:
  // -------------------------------------------------------------------------------------------------------
  // Proxies and the move buffer
  // -------------------------------------------------------------------------------------------------------

  void resetTree() {
    tree_ = std::make_unique<b2DynamicTree>();
    scale_ = std::ldexp(1.0f, static_cast<int>(param("scale_log2")));
    proxyOf_.clear();
    headEdge_.clear();
    moveSlot_.clear();
    moveBuffer_.clear();
    contacts_.clear();
    freeContact_ = kNoEdge;
    liveContacts_ = 0;
    leafCount_ = 0;
    peakNodes_ = 0;
    maxAbsMetres_ = 0.0f;
    extentSum_ = 0.0;
    updatesSincePairs_ = reinsertsSincePairs_ = 0;
    partners_.reset();
  }

  // Scaling by a power of two is exact and monotone, so pruning in metres stays conservative.
  b2Vec2 metres(Vec2 p) const { return {p.x * scale_, p.y * scale_}; }
  b2AABB metreBox(const Box& b) const {
    b2AABB out;
    out.lowerBound = metres(b.min);
    out.upperBound = metres(b.max);
    return out;
  }
  b2AABB metreBox(const Circle& c) const { return metreBox(inflateForPruning(boundsOf(c))); }

  static void* userDataOf(ItemId id) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)); }
  ItemId itemOf(ProxyId proxy) const {
    return static_cast<ItemId>(reinterpret_cast<std::uintptr_t>(tree_->GetUserData(proxy)));
  }

  // b2DynamicTree keeps its node array private but hands out a reference to a node's box, the first member
  // of the public, standard-layout b2TreeNode: that reference is the node's address, and the node's parent
  // and child links lead from any leaf to every inner node.
  const b2TreeNode& nodeAt(ProxyId index) const {
    static_assert(std::is_standard_layout_v<b2TreeNode> && offsetof(b2TreeNode, aabb) == 0,
                  "a node's box must start the node");
    return *reinterpret_cast<const b2TreeNode*>(&tree_->GetFatAABB(index));
  }

  /// The tree's root, reached from any leaf; kNoProxy when the tree is empty.
  ProxyId rootNode() const {
    const auto leaf = std::find_if(proxyOf_.begin(), proxyOf_.end(), [](ProxyId p) { return p != kNoProxy; });
    if (leaf == proxyOf_.end()) return kNoProxy;
    ProxyId at = *leaf;
    while (nodeAt(at).parent != b2_nullNode) at = nodeAt(at).parent;
    return at;
  }

  // A leaf is drawn as its fat box, what the tree tests.
  NodeInfo nodeInfo(ProxyId index, int depth) const {
    const b2TreeNode& node = nodeAt(index);
    NodeInfo info;
    info.shape = NodeShape::Box;
    info.box = {{node.aabb.lowerBound.x / scale_, node.aabb.lowerBound.y / scale_},
                {node.aabb.upperBound.x / scale_, node.aabb.upperBound.y / scale_}};
    info.depth = depth;
    info.itemCount = node.IsLeaf() ? 1 : 0;
    return info;
  }

  NodeInfo leafInfo(ProxyId proxy) const {
    const b2AABB& fat = tree_->GetFatAABB(proxy);
    NodeInfo info;
    info.shape = NodeShape::Box;
    info.box = {{fat.lowerBound.x / scale_, fat.lowerBound.y / scale_},
                {fat.upperBound.x / scale_, fat.upperBound.y / scale_}};
    info.itemCount = 1;
    return info;
  }

  void createProxy(ItemId id, const Circle& circle) {
    const ProxyId proxy = tree_->CreateProxy(metreBox(circle), userDataOf(id));
    if (static_cast<std::size_t>(proxy) >= headEdge_.size()) {
      const std::size_t grown = std::max<std::size_t>(std::size_t(proxy) + 1, headEdge_.size() * 3 / 2);
      headEdge_.resize(grown, kNoEdge);
      moveSlot_.resize(grown, kNoSlot);
    }
    proxyOf_[id] = proxy;
    ++leafCount_;
    peakNodes_ = std::max(peakNodes_, 2 * leafCount_ - 1);
    extentSum_ += 2.0 * double(circle.radius);
    noteFatBox(proxy);
    bufferMove(proxy);
  }

  void noteFatBox(ProxyId proxy) {
    const b2AABB& fat = tree_->GetFatAABB(proxy);
    maxAbsMetres_ = std::max({maxAbsMetres_, std::fabs(fat.lowerBound.x), std::fabs(fat.lowerBound.y),
                              std::fabs(fat.upperBound.x), std::fabs(fat.upperBound.y)});
  }

  void bufferMove(ProxyId proxy) {
    if (moveSlot_[proxy] != kNoSlot) return;
    // Removals leave holes; without pair updates the buffer would otherwise grow with every insert.
    if (moveBuffer_.size() >= 2 * leafCount_ + 64) compactMoveBuffer();
    moveSlot_[proxy] = static_cast<std::uint32_t>(moveBuffer_.size());
    moveBuffer_.push_back(proxy);
  }

  void compactMoveBuffer() {
    std::size_t kept = 0;
    for (ProxyId proxy : moveBuffer_) {
      if (proxy == kNoProxy) continue;
      moveSlot_[proxy] = static_cast<std::uint32_t>(kept);
      moveBuffer_[kept++] = proxy;
    }
    moveBuffer_.resize(kept);
  }

  // -------------------------------------------------------------------------------------------------------
  // Pair update and contact cache
  // -------------------------------------------------------------------------------------------------------

  // Box2D's b2BroadPhase::UpdatePairs: each reinserted proxy queries the tree with its fat box. When both
  // proxies moved, the pair is taken from the larger proxy's query only. Then the moved flags are cleared.
  // Box2D's contact manager finds an existing contact by walking a contact list per reported pair; marking
  // the querying proxy's partners first makes that test O(1), which matters where circles overlap densely.
  void updatePairs() {
    lastRequeried_ = 0;
    // Proxy order is Morton order from the build, so sorted queries walk neighbouring parts of the tree one
    // after another instead of jumping across it in id order (4x cheaper pair updates at 100k circles).
    std::sort(moveBuffer_.begin(), moveBuffer_.end());
    QueryContext ctx;
    for (const ProxyId query : moveBuffer_) {
      if (query == kNoProxy) continue;
      ++lastRequeried_;
      markPartners(query, partners_);
      const b2AABB fat = tree_->GetFatAABB(query);
      queryLeaves(ctx, fat, [&](ProxyId other) {
        if (other == query || (other > query && tree_->WasMoved(other))) return;
        if (!partners_.contains(static_cast<std::uint32_t>(other))) createContact(query, other);
      });
    }
    // Every leaf the tree reported is a pair whose fat boxes were compared. Box2D's walk does not report the
    // leaves it rejects, so the pairs examined are counted from below.
    counters_.nodesVisited += ctx.counters.nodesVisited;
    counters_.candidates += ctx.counters.nodesVisited;
    for (const ProxyId proxy : moveBuffer_) {
      if (proxy == kNoProxy) continue;
      tree_->ClearMoved(proxy);
      moveSlot_[proxy] = kNoSlot;
    }
    moveBuffer_.clear();
    lastReinsertFraction_ =
        updatesSincePairs_ == 0 ? 0.0 : double(reinsertsSincePairs_) / double(updatesSincePairs_);
    updatesSincePairs_ = reinsertsSincePairs_ = 0;
  }

  void markPartners(ProxyId proxy, StampSet& partners) const {
    partners.begin(headEdge_.size());
    for (std::uint32_t e = headEdge_[proxy]; e != kNoEdge; e = contacts_[e >> 1].next[e & 1]) {
      partners.insert(static_cast<std::uint32_t>(contacts_[e >> 1].proxy[(e & 1) ^ 1]));
    }
  }

  void createContact(ProxyId a, ProxyId b) {
    std::uint32_t c;
    if (freeContact_ != kNoEdge) {
      c = freeContact_;
      freeContact_ = contacts_[c].next[0];
    } else {
      c = static_cast<std::uint32_t>(contacts_.size());
      contacts_.push_back({});
    }
    Contact& contact = contacts_[c];
    contact.proxy[0] = a;
    contact.proxy[1] = b;
    for (std::uint32_t side = 0; side < 2; ++side) {
      const std::uint32_t edge = c * 2 + side;
      const std::uint32_t head = headEdge_[contact.proxy[side]];
      contact.prev[side] = kNoEdge;
      contact.next[side] = head;
      if (head != kNoEdge) contacts_[head >> 1].prev[head & 1] = edge;
      headEdge_[contact.proxy[side]] = edge;
    }
    ++liveContacts_;
  }

  void destroyContact(std::uint32_t c) {
    Contact& contact = contacts_[c];
    for (std::uint32_t side = 0; side < 2; ++side) {
      const std::uint32_t prev = contact.prev[side];
      const std::uint32_t next = contact.next[side];
      if (prev != kNoEdge)
        contacts_[prev >> 1].next[prev & 1] = next;
      else
        headEdge_[contact.proxy[side]] = next;
      if (next != kNoEdge) contacts_[next >> 1].prev[next & 1] = prev;
    }
    contact.proxy[0] = contact.proxy[1] = kNoProxy;
    contact.next[0] = freeContact_;
    freeContact_ = c;
    --liveContacts_;
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries
  // -------------------------------------------------------------------------------------------------------

  // Box2D's tree walk with an exact float box test (touching counts); `leaf` sees every leaf it reaches.
  template <class LeafFn>
  void queryLeaves(QueryContext& ctx, const b2AABB& box, LeafFn&& leaf) const {
    auto onLeaf = [&](ProxyId proxy) {
      ++ctx.counters.nodesVisited;
      if (ctx.tracing()) ctx.visit(leafInfo(proxy));
      leaf(proxy);
      return true;
    };
    QueryAdapter<decltype(onLeaf)> adapter{onLeaf};
    tree_->Query(&adapter, box);
  }

  static void testItem(QueryContext& ctx, ItemId id, bool hit, std::vector<ItemId>& out) {
    if (ctx.examine(id, hit)) out.push_back(id);
  }

  bool rayFastPathAllowed(const Segment& segment) const {
    const b2Vec2 p1 = metres(segment.start), p2 = metres(segment.end);
    const float reach = std::max({std::fabs(p1.x), std::fabs(p1.y), std::fabs(p2.x), std::fabs(p2.y)});
    return reach <= kRayFastPathLimit && maxAbsMetres_ <= kRayFastPathLimit &&
           (p2 - p1).Length() >= kRayMinLength;
  }

  // Calls onCandidate(id) for every item whose leaf the segment may touch; its return value, when positive,
  // clips Box2D's walk to that fraction of the segment.
  template <class CandidateFn>
  void walkRay(QueryContext& ctx, const Segment& segment, CandidateFn&& onCandidate) const {
    if (rayFastPathAllowed(segment)) {
      b2RayCastInput input;
      input.p1 = metres(segment.start);
      input.p2 = metres(segment.end);
      input.maxFraction = 1.0f;
      auto onLeaf = [&](const b2RayCastInput& current, ProxyId proxy) {
        ++ctx.counters.nodesVisited;
        if (ctx.tracing()) ctx.visit(leafInfo(proxy));
        const float clip = onCandidate(itemOf(proxy));
        return clip > 0.0f ? clip : current.maxFraction;
      };
      RayAdapter<decltype(onLeaf)> adapter{onLeaf};
      tree_->RayCast(&adapter, input);
      return;
    }
    rayFallbacks_.fetch_add(1, std::memory_order_relaxed);
    const float chunk = leafCount_ == 0 ? 0.0f : static_cast<float>(4.0 * extentSum_ / double(leafCount_));
    StampSet& seen = queryStampSet();
    seen.begin(idCapacity());
    coverSegment(segment, segmentCoverPieces(segment, chunk), [&](const Box& piece) {
      queryLeaves(ctx, metreBox(piece), [&](ProxyId proxy) {
        const ItemId id = itemOf(proxy);
        if (seen.insert(id)) onCandidate(id);
      });
    });
  }

  std::unique_ptr<b2DynamicTree> tree_;
  float scale_ = 1.0f;                   // metres per world unit
  std::vector<ProxyId> proxyOf_;         // item id -> its leaf
  std::vector<std::uint32_t> headEdge_;  // proxy -> first contact edge (proxy ids share Box2D's node pool)
  std::vector<std::uint32_t> moveSlot_;  // proxy -> its slot in moveBuffer_, kNoSlot when not buffered
  std::vector<ProxyId> moveBuffer_;      // proxies reinserted since the last pair update (kNoProxy: removed)
  std::vector<Contact> contacts_;        // pair cache; free slots chained through next[0]
  std::uint32_t freeContact_ = kNoEdge;
  std::size_t liveContacts_ = 0;
  std::size_t leafCount_ = 0;
  std::size_t peakNodes_ = 0;  // most nodes alive at once: Box2D's pool never shrinks
  float maxAbsMetres_ = 0.0f;  // bound on every coordinate of every box the tree ever held
  double extentSum_ = 0.0;     // sum of circle diameters: sizes the ray fallback's pieces
  std::size_t updatesSincePairs_ = 0;
  std::size_t reinsertsSincePairs_ = 0;
  std::size_t lastRequeried_ = 0;
  double lastReinsertFraction_ = 0.0;
  mutable std::atomic<std::size_t> rayFallbacks_ = 0;  // a statistic: counted by const queries
  StampSet partners_;  // contact partners of the proxy whose pairs are being updated
};

}  // namespace

std::unique_ptr<SpatialIndex> makeBox2dTree() {
  return std::make_unique<Box2dTree>();
}

}  // namespace st::peers
