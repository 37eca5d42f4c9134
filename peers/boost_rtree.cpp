// Boost.Geometry's R-tree (bgi::rtree, Boost 1.74, R*-tree rules with 16 entries per node) behind the
// structure interface. Values are (inflated bounding box, id); answers come from the exact predicates, the
// tree only prunes. Boost packs a tree only in its range constructor, so a large update batch repacks from
// scratch while a small one removes and re-inserts the moved values one by one.

#include <boost/geometry.hpp>
#include <boost/geometry/index/detail/rtree/utilities/are_boxes_ok.hpp>
#include <boost/geometry/index/detail/rtree/utilities/view.hpp>
#include <boost/geometry/index/rtree.hpp>
#include <boost/iterator/function_output_iterator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "peer_support.hpp"
#include "spheretest/assert.hpp"

namespace st::peers {
namespace {

namespace bg = boost::geometry;
namespace bgi = boost::geometry::index;

using BoostPoint = bg::model::point<float, 2, bg::cs::cartesian>;
using BoostBox = bg::model::box<BoostPoint>;
using Value = std::pair<BoostBox, ItemId>;
constexpr std::size_t kMaxEntries = 16;
using Tree = bgi::rtree<Value, bgi::rstar<kMaxEntries>>;
// Boost's node internals are reachable only through its detail utilities (stable in the pinned 1.74).
using TreeView = bgi::detail::rtree::utilities::view<Tree>;
using Members = TreeView::members_holder;

BoostBox toBoost(const Box& b) {
  return {{b.min.x, b.min.y}, {b.max.x, b.max.y}};
}
Box fromBoost(const BoostBox& b) {
  return {{bg::get<bg::min_corner, 0>(b), bg::get<bg::min_corner, 1>(b)},
          {bg::get<bg::max_corner, 0>(b), bg::get<bg::max_corner, 1>(b)}};
}
BoostBox prunedBoxOf(const Circle& c) {
  return toBoost(inflateForPruning(boundsOf(c)));
}
bool sameBox(const BoostBox& a, const BoostBox& b) {
  const Box x = fromBoost(a), y = fromBoost(b);
  return x.min == y.min && x.max == y.max;
}

// Walks Boost's nodes depth first (the library's visitors recurse), reporting each node's bounds and depth;
// the parent sets `bounds` and `depth` before visiting a child.
struct NodeWalker : Members::visitor_const {
  const NodeVisitor* visitor = nullptr;
  Box bounds;
  int depth = 0;
  std::size_t nodes = 0;
  int maxDepth = 0;

  void operator()(const Members::internal_node& node) {
    report(0);
    const Box mine = bounds;
    const int myDepth = depth;
    for (const auto& child : bgi::detail::rtree::elements(node)) {
      bounds = fromBoost(child.first);
      depth = myDepth + 1;
      bgi::detail::rtree::apply_visitor(*this, *child.second);
    }
    bounds = mine;
    depth = myDepth;
  }

  void operator()(const Members::leaf& node) {
    report(static_cast<std::uint32_t>(bgi::detail::rtree::elements(node).size()));
  }

  void report(std::uint32_t items) {
    ++nodes;
    maxDepth = std::max(maxDepth, depth);
    if (!visitor) return;
    NodeInfo info;
    info.shape = NodeShape::Box;
    info.box = bounds;
    info.depth = depth;
    info.itemCount = items;
    (*visitor)(info);
  }
};

// Finds the nodes from the root down to the leaf holding one value. R-tree boxes overlap, so every child
// whose box covers the value's box is tried until the leaf holding it turns up; the parent sets `bounds`
// before visiting a child.
struct PathFinder : Members::visitor_const {
  ItemId id = 0;
  BoostBox box;
  Box bounds;
  std::vector<NodeInfo> path;
  bool found = false;

  void operator()(const Members::internal_node& node) {
    path.push_back(here(0));
    for (const auto& child : bgi::detail::rtree::elements(node)) {
      if (!bg::covered_by(box, child.first)) continue;
      bounds = fromBoost(child.first);
      bgi::detail::rtree::apply_visitor(*this, *child.second);
      if (found) return;
    }
    path.pop_back();
  }

  void operator()(const Members::leaf& node) {
    const auto& values = bgi::detail::rtree::elements(node);
    path.push_back(here(static_cast<std::uint32_t>(values.size())));
    found = std::any_of(values.begin(), values.end(), [&](const Value& v) { return v.second == id; });
    if (!found) path.pop_back();
  }

  NodeInfo here(std::uint32_t items) const {
    NodeInfo info;
    info.shape = NodeShape::Box;
    info.box = bounds;
    info.depth = static_cast<int>(path.size());
    info.itemCount = items;
    return info;
  }
};

// The rtree checks a value's predicates in order and stops at the first that fails, so a predicate that
// always holds, placed first, sees every value whose box a query compares: the circles it examined.
struct CountExamined {
  std::uint64_t* count;
  bool operator()(const Value&) const {
    ++*count;
    return true;
  }
};

/// The predicate that counts the values a query examines into `count`.
auto examined(std::uint64_t& count) {
  return bgi::satisfies(CountExamined{&count});
}

class BoostRtree final : public SpatialIndex {
 public:
  BoostRtree() : SpatialIndex("boost-rtree") {
    addParam({"repack_fraction",
              "update batches moving more than this share of the items repack the whole tree instead of "
              "removing and re-inserting each moved value",
              0.1, 0.0, 1.0, false});
  }

  std::string_view description() const override {
    return "Boost.Geometry's R-tree (bgi::rtree, Boost 1.74) with R*-tree insertion and 16 entries per node, "
           "storing each circle's bounding box; build() and large update batches pack it with Boost's "
           "packing range constructor. A peer, not ours: what a developer reaching for Boost would get, "
           "strongest on static or slowly changing data that is queried often.";
  }

  void visitNodes(const NodeVisitor& visitor) const override {
    if (tree_.empty()) return;
    NodeWalker walker;
    walker.visitor = &visitor;
    walk(walker);
  }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    if (tree_.empty() || !contains(id) || id >= boxOf_.size()) return;
    PathFinder finder;
    finder.id = id;
    finder.box = boxOf_[id];
    finder.bounds = fromBoost(tree_.bounds());
    TreeView view(tree_);
    view.apply_visitor(finder);
    if (!finder.found) return;
    for (const NodeInfo& node : finder.path) visitor(node);
  }

  std::string_view nodesNotCounted() const override {
    return "Boost.Geometry's query reports the values it finds, not the nodes it tests";
  }

  std::string_view nodeRule() const override {
    return "R*-tree, 16 entries a node: a box goes down into the child that grows least (in overlap just "
           "above the leaves, in area higher up); a full node re-inserts some entries, then splits";
  }

  IndexStats stats() const override {
    NodeWalker walker;
    if (!tree_.empty()) walk(walker);
    // Each node is one allocation of Boost's node variant; allocator overhead is not counted.
    const std::size_t bytes = walker.nodes * sizeof(Members::node) + boxOf_.capacity() * sizeof(BoostBox) +
                              scratch_.capacity() * sizeof(Value) + tableBytes();
    return {walker.nodes, walker.maxDepth, bytes};
  }

  void extra(ExtraCounters& out) const override {
    out.emplace_back("repacks", static_cast<double>(repacks_));
    out.emplace_back("reinserted_last_batch", static_cast<double>(reinsertedLastBatch_));
    out.emplace_back("tree_depth", static_cast<double>(tree_.empty() ? 0 : TreeView(tree_).depth()));
  }

 protected:
  void onParamChanged(std::string_view) override {}  // the fraction only steers the next update batch

  void doBuild(std::span<const Item> items) override {
    boxOf_.resize(idCapacity());
    scratch_.clear();
    scratch_.reserve(items.size());
    for (const Item& item : items) {
      boxOf_[item.id] = prunedBoxOf(item.circle);
      scratch_.emplace_back(boxOf_[item.id], item.id);
    }
    Tree packed(scratch_.begin(), scratch_.end());
    tree_.swap(packed);
  }

  void doInsert(ItemId id, const Circle& circle) override {
    if (boxOf_.size() < idCapacity()) boxOf_.resize(idCapacity());
    boxOf_[id] = prunedBoxOf(circle);
    tree_.insert(Value(boxOf_[id], id));
  }

  void doUpdate(ItemId id, const Circle&, const Circle& circle) override { moveValue(id, circle); }

  bool batchNeedsOldCircles(std::size_t) const override { return false; }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle>) override {
    if (double(ids.size()) > param("repack_fraction") * double(size())) {
      repack();
      ++repacks_;
      reinsertedLastBatch_ = 0;
      return;
    }
    reinsertedLastBatch_ = 0;
    for (const ItemId id : ids) moveValue(id, circle(id));
  }

  void doRemove(ItemId id, const Circle&) override { eraseValue(id); }

  void doClear() override {
    tree_.clear();
    boxOf_.clear();
  }

  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override {
    queryValues(ctx, inflateForPruning(Box{p, p}),
                [&](ItemId id) { testItem(ctx, id, circleContainsPoint(circle(id), p), out); });
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override {
    queryValues(ctx, inflateForPruning(boundsOf(query)),
                [&](ItemId id) { testItem(ctx, id, circlesOverlap(circle(id), query), out); });
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override {
    queryValues(ctx, inflateForPruning(box),
                [&](ItemId id) { testItem(ctx, id, circleOverlapsBox(circle(id), box), out); });
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    // A quarter of the root's shorter side keeps diagonal pieces narrow without issuing many queries.
    float chunk = 0.0f;
    if (!tree_.empty()) {
      const Box root = fromBoost(tree_.bounds());
      chunk = 0.25f * std::min(root.max.x - root.min.x, root.max.y - root.min.y) /
              std::sqrt(static_cast<float>(std::max<std::size_t>(1, tree_.size() / kMaxEntries)));
    }
    StampSet& seen = queryStampSet();
    seen.begin(idCapacity());
    coverSegment(segment, segmentCoverPieces(segment, chunk), [&](const Box& piece) {
      queryValues(ctx, piece, [&](ItemId id) {
        if (!seen.insert(id)) return;
        float t = 0.0f;
        const bool hit = segmentHitsCircle(segment, circle(id), t);
        ctx.candidate(id, hit);
        if (hit) out.push_back(rayHitAt(segment, id, t));
      });
    });
  }

  // Boost's own nearest search hands values over in order of their boxes' distance from p. A circle lies
  // in its (grown) box, so its edge is no nearer than the box: once a box lies beyond the k-th nearest
  // edge found (and p is outside it, where a circle may hold p deeply), no later value can do better.
  void doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                      QueryContext& ctx) const override {
    out.clear();
    if (k == 0 || tree_.empty()) return;
    const BoostPoint at(p.x, p.y);
    // Boost's search keeps a buffer of its count, so it asks for a few times k and asks again, for more,
    // in the rare case that circles holding p deeply lie beyond that many boxes.
    std::size_t asked = std::min<std::size_t>(tree_.size(), std::max<std::size_t>(4 * std::size_t{k}, 32));
    for (;;) {
      out.clear();
      bool settled = false;
      for (auto it = tree_.qbegin(bgi::nearest(at, static_cast<unsigned>(asked))); it != tree_.qend(); ++it) {
        const Box box = fromBoost(it->first);
        const double dx = std::max({double(box.min.x) - p.x, 0.0, double(p.x) - box.max.x});
        const double dy = std::max({double(box.min.y) - p.y, 0.0, double(p.y) - box.max.y});
        const double boxDistance = std::sqrt(dx * dx + dy * dy) * (1.0 - 1e-5);
        if (out.size() == k && boxDistance > 0.0 && boxDistance > double(out.back().distance)) {
          settled = true;
          break;
        }
        ++ctx.counters.candidates;
        const ItemId id = it->second;
        const NearestHit hit{id, circleEdgeDistance(circle(id), p)};
        const bool kept = out.size() < k || nearestHitLess(hit, out.back());
        ctx.candidate(id, kept);
        if (!kept) continue;
        if (out.size() == k) out.pop_back();
        out.insert(std::upper_bound(out.begin(), out.end(), hit, nearestHitLess), hit);
      }
      if (settled || asked == tree_.size()) return;
      asked = std::min(tree_.size(), asked * 4);
    }
  }

  void doFindPairs(std::vector<Pair>& out) override {
    // One query per value in the tree's own order, so consecutive queries walk neighbouring nodes.
    for (const Value& value : tree_) {
      const ItemId a = value.second;
      const Circle ca = circle(a);
      tree_.query(examined(counters_.candidates) && bgi::intersects(value.first),
                  boost::make_function_output_iterator([&](const Value& found) {
                    ++counters_.nodesVisited;
                    const ItemId b = found.second;
                    if (b <= a) return;  // each pair once, from its smaller id
                    ++counters_.exactTests;
                    if (circlesOverlap(ca, circle(b))) out.push_back({a, b});
                  }));
    }
  }

  std::string doValidate() const override {
    if (tree_.size() != size()) {
      return "boost-rtree: tree holds " + std::to_string(tree_.size()) + " values for " +
             std::to_string(size()) + " items";
    }
    std::string problem;
    std::vector<std::uint8_t> seen(idCapacity(), 0);
    for (const Value& value : tree_) {
      const ItemId id = value.second;
      if (!contains(id)) return "boost-rtree: tree holds absent item " + std::to_string(id);
      if (seen[id]++) return "boost-rtree: item " + std::to_string(id) + " is in the tree twice";
      if (!sameBox(value.first, boxOf_[id]))
        return "boost-rtree: item " + std::to_string(id) + " has a stale box";
      if (!sameBox(boxOf_[id], prunedBoxOf(circle(id)))) {
        return "boost-rtree: box of item " + std::to_string(id) + " does not match its circle";
      }
    }
    if (!tree_.empty() && !bgi::detail::rtree::utilities::are_boxes_ok(tree_))
      return "boost-rtree: a node box does not fit its children";
    return problem;
  }

 private:
  void walk(NodeWalker& walker) const {
    walker.bounds = fromBoost(tree_.bounds());
    TreeView view(tree_);
    view.apply_visitor(walker);
  }

  void repack() {
    scratch_.clear();
    scratch_.reserve(size());
    forEachItem([&](ItemId id, const Circle& c) {
      boxOf_[id] = prunedBoxOf(c);
      scratch_.emplace_back(boxOf_[id], id);
    });
    Tree packed(scratch_.begin(), scratch_.end());
    tree_.swap(packed);
  }

  void moveValue(ItemId id, const Circle& circle) {
    const BoostBox box = prunedBoxOf(circle);
    if (sameBox(box, boxOf_[id])) return;
    eraseValue(id);
    boxOf_[id] = box;
    tree_.insert(Value(box, id));
    ++reinsertedLastBatch_;
  }

  void eraseValue(ItemId id) {
    const std::size_t removed = tree_.remove(Value(boxOf_[id], id));
    ST_ASSERT(removed == 1, "boost-rtree lost track of an item's box");
  }

  template <class IdFn>
  void queryValues(QueryContext& ctx, const Box& box, IdFn&& onValue) const {
    tree_.query(examined(ctx.counters.candidates) && bgi::intersects(toBoost(box)),
                boost::make_function_output_iterator([&](const Value& found) {
                  ++ctx.counters.nodesVisited;
                  if (ctx.tracing()) {
                    NodeInfo info;
                    info.box = fromBoost(found.first);
                    info.itemCount = 1;
                    ctx.visit(info);
                  }
                  onValue(found.second);
                }));
  }

  static void testItem(QueryContext& ctx, ItemId id, bool hit, std::vector<ItemId>& out) {
    ctx.candidate(id, hit);
    if (hit) out.push_back(id);
  }

  Tree tree_;
  std::vector<BoostBox> boxOf_;  // item id -> the box its value carries in the tree (needed to remove it)
  std::vector<Value> scratch_;   // values handed to the packing constructor, kept between repacks
  std::size_t repacks_ = 0;
  std::size_t reinsertedLastBatch_ = 0;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeBoostRtree() {
  return std::make_unique<BoostRtree>();
}

}  // namespace st::peers
