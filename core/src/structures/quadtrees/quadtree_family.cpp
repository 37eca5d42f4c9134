// Shared part of the quadtree family: node pool, item lists, root growth, and the queries that only need
// each node's box (cell grown by widen); the pair search is in quadtree_family_pairs.cpp. See
// quadtree_family.hpp.

#include "quadtree_family.hpp"

#include <algorithm>
#include <cmath>

#include "spheretest/assert.hpp"
#include "structures/shared/bvh_pruning.hpp"
#include "structures/shared/morton.hpp"

#include "structures/shared/tree_walk.hpp"

namespace st::quadtree_family {

Box squareCellCovering(const Box& b) {
  const double cx = 0.5 * (double(b.min.x) + double(b.max.x));
  const double cy = 0.5 * (double(b.min.y) + double(b.max.y));
  double side = std::max(double(b.max.x) - double(b.min.x), double(b.max.y) - double(b.min.y));
  // Far from the origin a tiny cell has no float middle; keep it wide enough to halve and double.
  side = std::max({side, 1.0, 1e-5 * (std::fabs(cx) + std::fabs(cy))});
  Box cell{{float(cx - 0.5 * side), float(cy - 0.5 * side)},
           {float(cx + 0.5 * side), float(cy + 0.5 * side)}};
  // Rounding to float may have shaved the covered box; push the edges out until it is covered.
  while (cell.min.x > b.min.x) cell.min.x = std::nextafter(cell.min.x, -INFINITY);
  while (cell.min.y > b.min.y) cell.min.y = std::nextafter(cell.min.y, -INFINITY);
  while (cell.max.x < b.max.x) cell.max.x = std::nextafter(cell.max.x, INFINITY);
  while (cell.max.y < b.max.y) cell.max.y = std::nextafter(cell.max.y, INFINITY);
  return cell;
}

// ---------------------------------------------------------------------------------------------------------
// Construction, pool and item lists
// ---------------------------------------------------------------------------------------------------------

QuadtreeFamily::QuadtreeFamily(std::string name, FamilyStyle style)
    : SpatialIndex(std::move(name)), style_(style) {
  addParam({"split_runs",
            "queries reach a node's long list of own circles through the pair search's k-d split of it (1), "
            "or test the whole list (0), as the source documents' trees do",
            1, 0, 1, true});
  addParam(pair_view::viewQueriesParam("Off with split_runs off, since the view splits long lists"));
  readQueryParams();
  nodes_.push_back(QuadNode{});
  nodes_[0].cell = {{0, 0}, {1, 1}};
}

void QuadtreeFamily::readQueryParams() {
  splitRuns_ = param("split_runs") != 0.0;
  // The view splits every long list, so a query reading whole lists cannot walk it.
  viewQueries_.enable(splitRuns_ && param("view_queries") != 0.0);
}

void QuadtreeFamily::onParamChanged(std::string_view key) {
  readQueryParams();
  // How queries read the tree changes nothing in it.
  if (key != "split_runs" && key != "view_queries") SpatialIndex::onParamChanged(key);
}

void QuadtreeFamily::placeRoot(const Box& fallback) {
  const Box cell = squareCellCovering(worldHint() ? *worldHint() : fallback);
  ST_ASSERT(nodes_.size() == 1 && nodes_[0].subtreeCount == 0, "the root is placed on an empty tree only");
  nodes_[0] = QuadNode{};
  nodes_[0].cell = cell;
  nodes_[0].widen = freshWiden(cell);
  rootPlaced_ = true;
}

std::uint32_t QuadtreeFamily::takeBlock() {
  ++blocksTakenSinceLayout_;
  const std::uint32_t reused =
      freeBlocks_.take([this](std::uint32_t f) -> auto& { return nodes_[f].firstChild; });
  if (reused != kNoIndex) return reused;
  ST_ASSERT(nodes_.size() + 4 < std::size_t(kNoIndex), "quadtree node pool exhausted");
  // Past a build, the pool grows by an eighth at a time: doubling would leave up to half of it unused for
  // good, at 40 bytes a node (and the hand-over's per-node arrays follow its capacity).
  if (nodes_.size() + 4 > nodes_.capacity() && !building_)
    nodes_.reserve(nodes_.capacity() + nodes_.capacity() / 8 + 64);
  const std::uint32_t first = static_cast<std::uint32_t>(nodes_.size());
  nodes_.resize(nodes_.size() + 4);
  return first;
}

// A split or a merge takes or frees a block out of depth-first order. Once the blocks taken since the last
// layout pass half the live ones, the pool is laid out again: a pass over the nodes and one over the
// per-id node links, paid for by the walks that then read forward. (At an eighth, the point quadtree at
// 100k laid itself out every 3.5 frames and its update took 20% longer; at a half it is as fast as without
// and its pair search at 1M keeps the gain.)
void QuadtreeFamily::doMaintain() {
  const std::size_t liveBlocks = (nodes_.size() - 1) / 4 - freeBlocks_.size();
  if (blocksTakenSinceLayout_ * 2 > liveBlocks) layOutDepthFirst();
}

std::uint32_t QuadtreeFamily::allocateChildren(std::uint32_t parent) {
  ST_ASSERT(nodes_[parent].firstChild == kNoIndex, "a node gets one child block");
  const std::uint32_t first = takeBlock();
  const Box cell = nodes_[parent].cell;
  const Vec2 split = cellMiddle(cell);
  for (std::uint32_t q = 0; q < 4; ++q) {
    QuadNode& child = nodes_[first + q];
    child = QuadNode{};
    child.cell = quadrantCell(cell, split, q);
    child.widen = freshWiden(child.cell);
    child.parent = parent;
  }
  nodes_[parent].firstChild = first;
  return first;
}

void QuadtreeFamily::freeChildren(std::uint32_t parent) {
  const std::uint32_t first = nodes_[parent].firstChild;
  for (std::uint32_t q = 0; q < 4; ++q) {
    QuadNode& child = nodes_[first + q];
    ST_DEBUG_ASSERT(child.subtreeCount == 0 && child.firstChild == kNoIndex, "only empty leaves are freed");
    child = QuadNode{};
  }
  freeBlocks_.give(
      first, [this](std::uint32_t f) -> auto& { return nodes_[f].firstChild; });
  nodes_[parent].firstChild = kNoIndex;
}

void QuadtreeFamily::collapseSubtree(std::uint32_t node) {
  // Gather items depth-first, freeing each child block once its four children have given theirs up.
  std::vector<std::uint32_t>& pending = collapsePending_;
  std::vector<std::uint32_t>& parentsToFree = collapseParents_;
  pending.assign(1, node);
  parentsToFree.clear();
  while (!pending.empty()) {
    const std::uint32_t n = pending.back();
    pending.pop_back();
    if (n != node) {
      for (std::uint32_t id = nodes_[n].firstItem; id != kNoIndex;) {
        const std::uint32_t next = itemNext_[id];
        unlinkItem(id);
        linkItem(id, node);
        id = next;
      }
      nodes_[n].subtreeCount = 0;
    }
    if (nodes_[n].firstChild != kNoIndex) {
      parentsToFree.push_back(n);
      for (std::uint32_t q = 0; q < 4; ++q) pending.push_back(nodes_[n].firstChild + q);
    }
  }
  // Children are freed before their parents' blocks: walk the parents deepest first.
  for (auto it = parentsToFree.rbegin(); it != parentsToFree.rend(); ++it) freeChildren(*it);
}

void QuadtreeFamily::reserveIds() {
  if (itemNode_.size() < idCapacity()) {
    itemNode_.resize(idCapacity(), kNoIndex);
    itemNext_.resize(idCapacity(), kNoIndex);
    itemPrev_.resize(idCapacity(), kNoIndex);
  }
}

void QuadtreeFamily::linkItem(ItemId id, std::uint32_t node) {
  QuadNode& n = nodes_[node];
  itemNode_[id] = node;
  itemPrev_[id] = kNoIndex;
  itemNext_[id] = n.firstItem;
  if (n.firstItem != kNoIndex) itemPrev_[n.firstItem] = id;
  n.firstItem = id;
  ++n.directCount;
}

void QuadtreeFamily::unlinkItem(ItemId id) {
  QuadNode& n = nodes_[itemNode_[id]];
  const std::uint32_t prev = itemPrev_[id], next = itemNext_[id];
  if (prev != kNoIndex)
    itemNext_[prev] = next;
  else
    n.firstItem = next;
  if (next != kNoIndex) itemPrev_[next] = prev;
  --n.directCount;
  itemNode_[id] = kNoIndex;
}

void QuadtreeFamily::addToPathCounts(std::uint32_t node, int delta, std::uint32_t stop) {
  for (std::uint32_t n = node; n != stop; n = nodes_[n].parent) {
    nodes_[n].subtreeCount = static_cast<std::uint32_t>(std::int64_t(nodes_[n].subtreeCount) + delta);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Root growth
// ---------------------------------------------------------------------------------------------------------

void QuadtreeFamily::growRootToward(Vec2 target) {
  const QuadNode old = nodes_[0];
  const Vec2 mid = cellMiddle(old.cell);
  const bool towardLowX = target.x < mid.x, towardLowY = target.y < mid.y;
  const double sideX = double(old.cell.max.x) - double(old.cell.min.x);
  const double sideY = double(old.cell.max.y) - double(old.cell.min.y);
  Box grown = old.cell;
  if (towardLowX)
    grown.min.x = float(double(old.cell.min.x) - sideX);
  else
    grown.max.x = float(double(old.cell.max.x) + sideX);
  if (towardLowY)
    grown.min.y = float(double(old.cell.min.y) - sideY);
  else
    grown.max.y = float(double(old.cell.max.y) + sideY);
  ST_ASSERT(grown.min.x < old.cell.min.x || grown.max.x > old.cell.max.x, "root growth must make progress");

  if (old.firstChild == kNoIndex) {
    // A leaf root simply takes the larger cell: its items still lie inside it.
    nodes_[0].cell = grown;
    if (style_.widenFollowsCell) nodes_[0].widen = freshWiden(grown);
    onRootGrown();
    return;
  }
  // An internal root moves into the quadrant of a new root that its cell occupies exactly.
  const Vec2 split{towardLowX ? old.cell.min.x : old.cell.max.x,
                   towardLowY ? old.cell.min.y : old.cell.max.y};
  const std::uint32_t first = takeBlock();
  const std::uint32_t oldSlot = first + (towardLowX ? 1u : 0u) + (towardLowY ? 2u : 0u);
  for (std::uint32_t q = 0; q < 4; ++q) {
    QuadNode& child = nodes_[first + q];
    child = QuadNode{};
    child.cell = quadrantCell(grown, split, q);
    child.widen = freshWiden(child.cell);
    child.parent = 0;
  }
  nodes_[oldSlot] = old;
  nodes_[oldSlot].parent = 0;
  for (std::uint32_t q = 0; q < 4; ++q) nodes_[old.firstChild + q].parent = oldSlot;
  for (std::uint32_t id = old.firstItem; id != kNoIndex; id = itemNext_[id]) itemNode_[id] = oldSlot;

  QuadNode& root = nodes_[0];
  root = QuadNode{};
  root.cell = grown;
  root.widen = style_.widenFollowsCell ? freshWiden(grown) : old.widen;
  root.firstChild = first;
  root.subtreeCount = old.subtreeCount;
  onRootGrown();
}

// ---------------------------------------------------------------------------------------------------------
// Build and clear
// ---------------------------------------------------------------------------------------------------------

void QuadtreeFamily::doBuild(std::span<const Item> items) {
  Box bounds{{0, 0}, {1, 1}};
  if (!items.empty()) {
    bounds = boundsOf(items[0].circle);
    for (const Item& item : items) bounds = boxUnion(bounds, boundsOf(item.circle));
  }
  placeRoot(bounds);
  nodes_.reserve(items.size() / 2 + 8);
  // Inserting along a Z-order curve allocates the nodes of one region next to each other, so later walks
  // touch far fewer cache lines than in the callers' order; the tree itself does not depend on the order.
  const Box cell = nodes_[0].cell;
  const double scaleX = 65535.0 / (double(cell.max.x) - double(cell.min.x));
  const double scaleY = 65535.0 / (double(cell.max.y) - double(cell.min.y));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Vec2 c = items[i].circle.center;
    const double x = std::clamp((double(c.x) - double(cell.min.x)) * scaleX, 0.0, 65535.0);
    const double y = std::clamp((double(c.y) - double(cell.min.y)) * scaleY, 0.0, 65535.0);
    order[i] = {mortonKey16(std::uint32_t(x), std::uint32_t(y)), std::uint32_t(i)};
  }
  std::sort(order.begin(), order.end());
  building_ = true;
  for (const auto& [key, index] : order) doInsert(items[index].id, items[index].circle);
  building_ = false;
  layOutDepthFirst();
}

// The walks over the whole tree (the pair search's hand-over, drawing, validation) go depth first, child 0
// first. Splits and merges leave the pool in the order blocks were taken, so such a walk jumps back and
// forth through memory; laid out again in the walks' order, every block a walk reads next lies just after
// the one it read, and a walk over a tree larger than the cache reads it forward. The new pool keeps an
// eighth to spare (the build grew it by doublings) and has no dead blocks.
void QuadtreeFamily::layOutDepthFirst() {
  const std::size_t live = nodes_.size() - 4 * freeBlocks_.size();
  LargeVector<QuadNode> laid;
  laid.reserve(live + live / 8 + 64);
  std::vector<std::uint32_t>& newIndex = nodeBucket_;  // scratch: the pair search sets it again
  newIndex.assign(nodes_.size(), kNoIndex);
  laid.push_back(nodes_[0]);
  newIndex[0] = 0;
  // The walk the hand-over makes, child 0 first: entering a node lays its child block out next.
  pair_view::walkDepthFirst(
      0, viewStack_,
      [&](std::uint32_t old) {
        const std::uint32_t oldFirst = nodes_[old].firstChild;
        if (oldFirst == kNoIndex) return false;
        const auto first = static_cast<std::uint32_t>(laid.size());
        laid[newIndex[old]].firstChild = first;
        for (std::uint32_t q = 0; q < 4; ++q) {
          laid.push_back(nodes_[oldFirst + q]);
          laid.back().parent = newIndex[old];
          newIndex[oldFirst + q] = first + q;
        }
        return true;
      },
      [&](std::uint32_t old, auto&& push) {
        for (std::uint32_t q = 4; q-- > 0;) push(nodes_[old].firstChild + q);
      },
      [](std::uint32_t) {});
  for (std::uint32_t& node : itemNode_) {
    if (node != kNoIndex) node = newIndex[node];
  }
  nodes_.swap(laid);
  freeBlocks_.clear();
  // The copy's slots per node follow the old numbers; the view and its copy of the circles do not, so
  // viewQueries_ stays as it is.
  copyVersion_ = ~std::uint64_t{0};
  blocksTakenSinceLayout_ = 0;
  ++layouts_;
}

void QuadtreeFamily::doClear() {
  nodes_.assign(1, QuadNode{});
  nodes_[0].cell = {{0, 0}, {1, 1}};
  nodes_[0].widen = freshWiden(nodes_[0].cell);
  freeBlocks_.clear();
  rootPlaced_ = false;
  itemNode_.clear();
  itemNext_.clear();
  itemPrev_.clear();
  blocksTakenSinceLayout_ = 0;
  layouts_ = 0;
  onCleared();
}

// ---------------------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------------------

NodeInfo QuadtreeFamily::infoOf(std::uint32_t index, int depth) const {
  const QuadNode& node = nodes_[index];
  NodeInfo info;
  info.shape = NodeShape::Box;
  info.box = node.cell;
  if (node.widen > 0.0f) info.grown = nodeBounds(node);
  info.depth = depth;
  info.itemCount = node.directCount;
  return info;
}

// How tree_walk walks the family: a node's box is its cell grown by its widening, its items are its own
// list, an empty subtree is never entered, and the Query panel's figures (candidates by depth, nodes
// entered only through the widening) are kept as the walk enters nodes. While nothing has changed since the
// last pair search, a node's items are read from the depth-first copy that search laid out, where they lie
// side by side, instead of by following the list through the id-ordered arrays (two dependent cache misses
// per item once the tree outgrows the cache). The walk, its counts and its results are the same either way.
class QuadtreeFamily::Walkable {
 public:
  using Ref = std::uint32_t;
  // The four children of a node lie side by side in one block: testing them when their parent is entered
  // reads the block once, while it is in the cache, and only the ones the query enters pass the stack.
  static constexpr bool kTestChildrenAtParent = true;
  explicit Walkable(const QuadtreeFamily& tree)
      : tree_(tree),
        nodes_(tree.nodes_.data()),
        next_(tree.itemNext_.data()),
        circles_(tree.idCapacity() ? &tree.circle(0) : nullptr) {
    if (tree.copyVersion_ == tree.contentVersion()) {
      ownEnd_ = tree.ownAt_.data();
      copy_ = tree.viewItems_.arrays();
    }
  }
  bool empty() const { return nodes_[0].subtreeCount == 0; }
  Ref root() const { return 0; }
  // Inlined into every walk, inflation included, whatever else this file holds: left to its estimate, the
  // compiler once called it out of line in the ray walk after an unrelated function joined the file, and
  // rays took 8% longer.
  SPHERETEST_FLATTEN SPHERETEST_ALWAYS_INLINE Box bounds(Ref node) const {
    return inflateForPruning(nodeBounds(nodes_[node]));
  }
  std::uint32_t examinedByBounds(Ref) const { return 0; }
  bool holdsNothing(Ref node) const { return nodes_[node].subtreeCount == 0; }
  const char* pruneReason() const { return tree_.style_.pruneTest; }
  template <class F>
  bool forEachItem(Ref node, F&& f) const {
    if (const tree_walk::ItemRun run = itemRun(node); run.items.x) return tree_walk::forEachInRun(run, f);
    for (std::uint32_t id = nodes_[node].firstItem; id != kNoIndex; id = next_[id])
      if (!f(id, circles_[id])) return false;
    return true;
  }
  // While the pair search's copy is current, a node's long run of own circles lies under the view's k-d
  // split of it (a node holding a leaf's worth or fewer has none).
  tree_walk::RunTree runTree(Ref node) const {
    if (!ownEnd_ || nodes_[node].directCount <= pair_view::kBatchItems) return {};
    const auto& splits = tree_.ownSplits_;
    const auto at =
        std::lower_bound(splits.begin(), splits.end(), std::pair<std::uint32_t, std::uint32_t>{node, 0});
    if (at == splits.end() || at->first != node) return {};
    const pair_view::ViewNode* viewNodes = tree_.view_.nodeData();
    return {viewNodes, at->second, viewNodes[at->second].next, copy_};
  }
  // While the pair search's copy is current, a node's own circles lie side by side in it.
  tree_walk::ItemRun itemRun(Ref node) const {
    if (!ownEnd_) return {};
    const std::uint32_t end = ownEnd_[node], begin = end - nodes_[node].directCount;
    return {{copy_.x + begin, copy_.y + begin, copy_.r + begin, copy_.id + begin}, end - begin};
  }
  template <class F>
  void forEachChild(Ref node, F&& f) const {
    const std::uint32_t first = nodes_[node].firstChild;
    if (first == kNoIndex) return;
    for (std::uint32_t q = 4; q-- > 0;) f(first + q);
  }
  NodeInfo info(Ref node, int depth) const { return tree_.infoOf(node, depth); }
  template <class Shape>
  void entered(Ref index, std::uint32_t depth, QueryContext& ctx, const Shape& shape) const {
    QueryDetail* detail = ctx.detail;
    if (!detail) return;
    const QuadNode& node = nodes_[index];
    const bool widenedOnly =
        tree_.style_.countWidening && node.widen > 0.0f && !shape.enters(inflateForPruning(node.cell));
    detail->widenedNodes += widenedOnly ? 1 : 0;
    if (node.directCount == 0) return;
    // A long list reached through its split examines only the circles of the split's leaves the query
    // enters.
    const tree_walk::RunTree split = runTree(index);
    const std::uint64_t examined =
        split.nodes ? tree_walk::circlesExaminedUnder(split, shape) : node.directCount;
    const int slot = std::min<int>(int(depth), QueryDetail::kDepthSlots - 1);
    detail->candidatesByDepth[slot] += examined;
    detail->depthsUsed = std::max(detail->depthsUsed, slot + 1);
    if (widenedOnly) detail->widenedCandidates += examined;
  }

 private:
  // The arrays a walk reads, held directly: a query changes none of them.
  const QuadtreeFamily& tree_;
  const QuadNode* nodes_;
  const std::uint32_t* next_;
  const Circle* circles_;
  const std::uint32_t* ownEnd_ = nullptr;  // where each node's items end in the copy; null: use the lists
  pair_view::ItemArrays copy_;
};

template <class Shape, class Out>
void QuadtreeFamily::collect(const Shape& shape, Out& out, QueryContext& ctx) const {
  // The view prunes by the bounds of this frame's circles rather than by cell and widen; what it cannot
  // give is the tree's own per-node figures (the widening, the per-depth candidates), so a query asking
  // for those walks the tree itself (see view_queries.hpp).
  if (!viewQueries_.collect(view_, contentVersion(), shape, out, ctx))
    tree_walk::collect(Walkable(*this), ctx, shape, out);
}

void QuadtreeFamily::doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const {
  collect(tree_walk::PointShape{p}, out, ctx);
}

void QuadtreeFamily::doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const {
  collect(tree_walk::CircleShape(query), out, ctx);
}

void QuadtreeFamily::doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const {
  collect(tree_walk::BoxShape(box), out, ctx);
}

void QuadtreeFamily::doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const {
  collect(tree_walk::PointShape{p}, visit, ctx);
}

void QuadtreeFamily::doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const {
  collect(tree_walk::CircleShape(query), visit, ctx);
}

void QuadtreeFamily::doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const {
  collect(tree_walk::BoxShape(box), visit, ctx);
}

void QuadtreeFamily::doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const {
  if (!viewQueries_.rayCast(view_, contentVersion(), segment, out, ctx))
    tree_walk::rayCast(Walkable(*this), ctx, segment, out);
}

std::optional<RayHit> QuadtreeFamily::doRayCastFirst(const Segment& segment, QueryContext& ctx) const {
  return tree_walk::rayCastFirst(Walkable(*this), ctx, segment);
}

void QuadtreeFamily::doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                                    QueryContext& ctx) const {
  tree_walk::NearestHeap heap(out, k);
  if (k == 0) return;
  tree_walk::nearest(Walkable(*this), ctx, p, heap);
  heap.finish();
}

// The cone prunes the walk itself: a node whose box lies wholly outside the cone is skipped with its subtree
// (conservative: the classifier widens for rounding).
void QuadtreeFamily::doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow,
                                  QueryContext& ctx) const {
  visibleNow.clear();
  collect(tree_walk::ConeShape(cone), visibleNow, ctx);
  std::sort(visibleNow.begin(), visibleNow.end());
}

// ---------------------------------------------------------------------------------------------------------
// Drawing, stats, figures
// ---------------------------------------------------------------------------------------------------------

void QuadtreeFamily::visitNodes(const NodeVisitor& visitor) const {
  std::vector<StackEntry> pending{{0, 0}};
  while (!pending.empty()) {
    const StackEntry entry = pending.back();
    pending.pop_back();
    visitor(infoOf(entry.node, int(entry.depth)));
    const QuadNode& node = nodes_[entry.node];
    if (node.firstChild != kNoIndex) {
      for (std::uint32_t q = 0; q < 4; ++q) pending.push_back({node.firstChild + q, entry.depth + 1});
    }
  }
}

IndexStats QuadtreeFamily::stats() const {
  IndexStats s;
  s.nodes = nodes_.size() - 4 * freeBlocks_.size();
  visitNodes([&s](const NodeInfo& info) { s.maxDepth = std::max(s.maxDepth, info.depth); });
  s.memoryBytes =
      nodes_.capacity() * sizeof(QuadNode) +
      (itemNode_.capacity() + itemNext_.capacity() + itemPrev_.capacity()) * sizeof(std::uint32_t) +
      (viewStack_.capacity() + ownAt_.capacity() + nodeBucket_.capacity() + partRoots_.capacity() +
       bucketCursor_.capacity() + bucketStart_.capacity() + byBucket_.capacity()) *
          sizeof(std::uint32_t) +
      view_.bytes() + viewItems_.bytes() + parts_.bytes() + pair_view::scratchBytes(viewWalk_) +
      ownSplits_.capacity() * sizeof(ownSplits_[0]) + tableBytes() + ownBytes();
  for (const std::vector<std::uint32_t>& runs : longRuns_) s.memoryBytes += runs.capacity() * sizeof(runs[0]);
  return s;
}

void QuadtreeFamily::visitPathTo(ItemId id, const NodeVisitor& visitor) const {
  if (!contains(id) || id >= itemNode_.size()) return;
  std::vector<std::uint32_t> path;
  for (std::uint32_t n = itemNode_[id]; n != kNoIndex; n = nodes_[n].parent) path.push_back(n);
  int depth = 0;
  for (auto it = path.rbegin(); it != path.rend(); ++it) visitor(infoOf(*it, depth++));
}

void QuadtreeFamily::extra(ExtraCounters& out) const {
  extraOwn(out);
  out.emplace_back("depth_first_layouts", double(layouts_));
  std::array<std::uint64_t, kDepthSlots> itemsAtDepth{};
  int deepest = -1;
  visitNodes([&](const NodeInfo& info) {
    if (info.itemCount == 0) return;
    const int slot = std::min(info.depth, kDepthSlots - 1);
    itemsAtDepth[slot] += info.itemCount;
    deepest = std::max(deepest, slot);
  });
  for (int d = 0; d <= deepest; ++d)
    out.emplace_back("items_depth_" + std::to_string(d), double(itemsAtDepth[d]));
}

// ---------------------------------------------------------------------------------------------------------
// Validation of the shared tree shape
// ---------------------------------------------------------------------------------------------------------

std::string QuadtreeFamily::doValidate() const {
  const std::string who = name() + ": ";
  if (nodes_.empty() || nodes_[0].parent != kNoIndex) return who + "root missing or has a parent";
  if ((nodes_.size() - 1) % 4 != 0) return who + "pool size is not the root plus whole blocks";
  // A dead block is the first of four children, all of them cleared.
  const auto deadBlock = [this](std::uint32_t block) {
    if (block == 0 || (block - 1) % 4 != 0 || block + 4 > nodes_.size()) return false;
    for (std::uint32_t q = 0; q < 4; ++q) {
      const QuadNode& child = nodes_[block + q];
      if (child.subtreeCount != 0 || child.directCount != 0 || child.firstItem != kNoIndex) return false;
    }
    return true;
  };
  if (const std::string problem = freeBlocks_.problem(
          [this](std::uint32_t f) -> auto& { return nodes_[f].firstChild; }, deadBlock, nodes_.size());
      !problem.empty())
    return who + problem;

  std::size_t liveNodes = 0, itemsSeen = 0;
  std::vector<StackEntry> pending{{0, 0}};
  while (!pending.empty()) {
    const StackEntry entry = pending.back();
    pending.pop_back();
    const std::uint32_t index = entry.node;
    const QuadNode& node = nodes_[index];
    const int depth = int(entry.depth);
    ++liveNodes;
    if (!(node.cell.min.x < node.cell.max.x && node.cell.min.y < node.cell.max.y)) {
      return who + "node " + std::to_string(index) + " has an empty cell";
    }
    if (!(node.widen >= 0.0f)) return who + "node " + std::to_string(index) + " has a negative widen";
    std::uint32_t listed = 0;
    std::uint32_t prev = kNoIndex;
    for (std::uint32_t id = node.firstItem; id != kNoIndex; id = itemNext_[id]) {
      if (id >= itemNode_.size() || !contains(id))
        return who + "node " + std::to_string(index) + " lists an absent item";
      if (itemNode_[id] != index)
        return who + "item " + std::to_string(id) + " is listed in a node it does not point to";
      if (itemPrev_[id] != prev) return who + "item " + std::to_string(id) + " has a broken back link";
      if (++listed > size()) return who + "node " + std::to_string(index) + " has a cyclic item list";
      if (!circleFitsInBox(circle(id), inflateForPruning(nodeBounds(node)))) {
        return who + "item " + std::to_string(id) + " reaches beyond its node's bounds";
      }
      if (std::string problem = checkItem(index, depth, id); !problem.empty()) return who + problem;
      prev = id;
    }
    if (listed != node.directCount) return who + "node " + std::to_string(index) + " direct count is wrong";
    itemsSeen += listed;
    std::uint64_t below = node.directCount;
    if (node.firstChild != kNoIndex) {
      const std::uint32_t first = node.firstChild;
      if (first >= nodes_.size() || (first - 1) % 4 != 0)
        return who + "node " + std::to_string(index) + " has a bad child block";
      const Vec2 split = nodes_[first + 3].cell.min;
      if (!(node.cell.min.x < split.x && split.x < node.cell.max.x && node.cell.min.y < split.y &&
            split.y < node.cell.max.y)) {
        return who + "node " + std::to_string(index) + " splits outside its cell";
      }
      for (std::uint32_t q = 0; q < 4; ++q) {
        const QuadNode& child = nodes_[first + q];
        const Box expect = quadrantCell(node.cell, split, q);
        if (child.parent != index)
          return who + "child " + std::to_string(first + q) + " has the wrong parent";
        if (!(child.cell.min == expect.min && child.cell.max == expect.max))
          return who + "child " + std::to_string(first + q) + " does not tile its parent";
        if (!boxContains(inflateForPruning(nodeBounds(node)), nodeBounds(child))) {
          return who + "child " + std::to_string(first + q) + " reaches beyond its parent's bounds";
        }
        below += child.subtreeCount;
        pending.push_back({first + q, entry.depth + 1});
      }
    }
    if (below != node.subtreeCount) return who + "node " + std::to_string(index) + " subtree count is wrong";
    if (std::string problem = checkNode(index, depth); !problem.empty()) return who + problem;
  }
  if (itemsSeen != size())
    return who + "tree holds " + std::to_string(itemsSeen) + " items, table " + std::to_string(size());
  if (liveNodes + 4 * freeBlocks_.size() != nodes_.size())
    return who + "nodes are neither reachable nor free";
  // While the copy is current, each long run's split holds exactly the node's own items there, and every
  // long run has one while queries read them so (a query would otherwise read another node's circles, or
  // the whole run); with split_runs off the pair search notes none.
  if (copyVersion_ == contentVersion()) {
    const pair_view::ViewNode* viewNodes = view_.nodeData();
    std::size_t longRuns = 0;
    for (std::uint32_t n = 0; splitRuns_ && n < nodes_.size(); ++n) {
      if (nodes_[n].parent == kNoIndex && n != 0) continue;
      longRuns += nodes_[n].directCount > pair_view::kBatchItems ? 1 : 0;
    }
    if (longRuns != ownSplits_.size())
      return who + std::to_string(longRuns) + " long runs of own items, " +
             std::to_string(ownSplits_.size()) + " splits of them";
    for (const auto& [n, split] : ownSplits_) {
      if (split >= view_.nodes() || viewNodes[split].end != ownAt_[n] ||
          viewNodes[split].begin != ownAt_[n] - nodes_[n].directCount)
        return who + "node " + std::to_string(n) + " has a split that is not its own items";
    }
  }
  return {};
}

}  // namespace st::quadtree_family
