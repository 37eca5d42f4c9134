// The sphere tree's walks: queries, the view cull with memory, pairs, and validation. See sphere_tree.hpp.

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "sphere_tree.hpp"

namespace st::sphere_tree {

using bvh::Side;

namespace {

// Scratch of TopLevel::near for the queries: one per thread, so that queries stay const and re-entrant
// without allocating each time.
struct TopScratch {
  std::vector<std::uint32_t> near;
  std::vector<std::uint32_t> dropped;
};

// Why the top-level scan dropped a sphere, in a trace.
constexpr const char* kDroppedAtTheTop = "bound does not reach the query's bounding disc (top-level scan)";

TopScratch& topScratch() {
  thread_local TopScratch scratch;
  return scratch;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------------------

// How tree_walk walks the sphere tree: the super-spheres are bounding circles, the circles the root holds
// directly are tested by every query, and the top-level spheres are the walk's roots. Given the query's
// bounding disc, the top level is found through its grid and read in vector lanes: only the spheres near
// the disc are walked, and the others count as visited, as they were tested (a trace records them as
// pruned, so that its walk adds up to the figures). Away from a trace and per-node figures, and while the
// query layout is current, the walk starts one level lower, from the near rows of the layout (the near
// top-level spheres' children, tested side by side).
class SphereTree::Walkable {
 public:
  using Ref = std::uint32_t;
  // A super-sphere has many children and a query prunes most of them: test them before they are pushed.
  static constexpr bool kTestChildrenAtParent = true;
  // `fromLayout`: whether the walk may start from the query layout's rows. A first-hit ray may not: it
  // tests a top-level sphere's children only once its walk gets there, and stops before most of them.
  Walkable(const SphereTree& tree, QueryContext& ctx, std::optional<Disc> around, bool fromLayout = true)
      : tree_(tree), ctx_(ctx), around_(around), fromLayout_(fromLayout) {}
  bool empty() const { return tree_.spheres_[kRoot].firstChild == kNoIndex; }
  template <class F>
  void forEachRoot(F&& f) const {
    if (!around_) {
      forEachChild(kRoot, f);
      return;
    }
    TopScratch& top = topScratch();
    if (fromLayout_ && !ctx_.tracing() && !ctx_.detail &&
        tree_.queryLayout_.version == tree_.contentVersion()) {
      // Away from a trace and per-node figures, the top two levels are read from the query layout: the
      // walk starts from the rows near the disc, and the bounds tested on the way count as visited.
      const std::size_t tested = tree_.queryLayout_.near(around_->x, around_->y, around_->r, top.near);
      ctx_.counters.nodesVisited += tested - top.near.size();
      for (const std::uint32_t c : top.near) f(c);
      return;
    }
    // A trace records each top-level sphere the scan tested and dropped, so that it adds up to the figures.
    std::vector<std::uint32_t>* dropped = ctx_.tracing() ? &top.dropped : nullptr;
    const std::size_t tested =
        tree_.top_.near(around_->x, around_->y, around_->r, tree_.topIndex_, top.near, dropped);
    ctx_.counters.nodesVisited += tested - top.near.size();
    if (dropped) {
      for (const std::uint32_t c : *dropped) ctx_.prune(tree_.nodeInfo(c, 0), kDroppedAtTheTop);
    }
    for (const std::uint32_t c : top.near) f(c);
  }
  template <class F>
  bool forEachUnplaced(F&& f) const {
    return forEachItem(kRoot, f);
  }
  Disc bounds(Ref n) const { return tree_.discOf(n); }
  std::uint32_t examinedByBounds(Ref) const { return 0; }
  template <class F>
  bool forEachItem(Ref n, F&& f) const {
    const SphereNode& node = tree_.spheres_[n];
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      const ItemSlot& s = tree_.slots_[node.itemBegin + k];
      if (!f(s.id, Circle{{s.x, s.y}, s.r})) return false;
    }
    return true;
  }
  template <class F>
  void forEachChild(Ref n, F&& f) const {
    for (std::uint32_t c = tree_.spheres_[n].firstChild; c != kNoIndex; c = tree_.spheres_[c].nextSibling)
      f(c);
  }
  NodeInfo info(Ref n, int depth) const { return tree_.nodeInfo(n, depth); }

 private:
  const SphereTree& tree_;
  QueryContext& ctx_;
  std::optional<Disc> around_;
  bool fromLayout_;
};

template <class Shape, class Out>
void SphereTree::collect(const Disc& around, const Shape& shape, Out& out, QueryContext& ctx) const {
  tree_walk::collect(Walkable(*this, ctx, around), ctx, shape, out);
}

// The disc each shape's top-level scan looks around.
namespace {
Disc aroundPoint(Vec2 p) {
  return {p.x, p.y, 0.0};
}
Disc aroundCircle(const Circle& c) {
  return {c.center.x, c.center.y, c.radius};
}
Disc aroundBox(const Box& box) {
  const double hx = 0.5 * (double(box.max.x) - box.min.x), hy = 0.5 * (double(box.max.y) - box.min.y);
  return {0.5 * (double(box.min.x) + box.max.x), 0.5 * (double(box.min.y) + box.max.y),
          std::sqrt(hx * hx + hy * hy)};
}
}  // namespace

void SphereTree::doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const {
  collect(aroundPoint(p), tree_walk::PointShape{p}, out, ctx);
}

void SphereTree::doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const {
  collect(aroundCircle(query), tree_walk::CircleShape(query), out, ctx);
}

void SphereTree::doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const {
  collect(aroundBox(box), tree_walk::BoxShape(box), out, ctx);
}

void SphereTree::doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const {
  collect(aroundPoint(p), tree_walk::PointShape{p}, visit, ctx);
}

void SphereTree::doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const {
  collect(aroundCircle(query), tree_walk::CircleShape(query), visit, ctx);
}

void SphereTree::doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const {
  collect(aroundBox(box), tree_walk::BoxShape(box), visit, ctx);
}

// A cone query without the cull's memory: the same walk, each bound classified against the cone.
void SphereTree::doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow,
                              QueryContext& ctx) const {
  visibleNow.clear();
  collect({cone.origin.x, cone.origin.y, cone.farDistance}, tree_walk::ConeShape(cone), visibleNow, ctx);
  std::sort(visibleNow.begin(), visibleNow.end());
}

namespace {

// The disc around a segment: its midpoint and half its length.
Disc discAround(const Segment& segment) {
  const double hx = 0.5 * (double(segment.end.x) - segment.start.x);
  const double hy = 0.5 * (double(segment.end.y) - segment.start.y);
  return {segment.start.x + hx, segment.start.y + hy, std::sqrt(hx * hx + hy * hy)};
}

}  // namespace

void SphereTree::doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const {
  tree_walk::rayCast(Walkable(*this, ctx, discAround(segment)), ctx, segment, out);
}

std::optional<RayHit> SphereTree::doRayCastFirst(const Segment& segment, QueryContext& ctx) const {
  return tree_walk::rayCastFirst(Walkable(*this, ctx, discAround(segment), false), ctx, segment);
}

void SphereTree::doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                                QueryContext& ctx) const {
  tree_walk::NearestHeap heap(out, k);
  if (k == 0) return;
  // The nearest circles may lie anywhere: the walk takes every top-level sphere, in order of distance.
  tree_walk::nearest(Walkable(*this, ctx, std::nullopt), ctx, p, heap);
  heap.finish();
}

// ---------------------------------------------------------------------------------------------------------
// Pairs
// ---------------------------------------------------------------------------------------------------------

// The tree is handed to the shared pair view depth first: each sphere's slice, then its sphere children.
// The root's children are cut into runs of at most pair_view::partItems items, parts that go into the slots
// that the runs' counts give them. On several threads the workers count what lies below each child of the
// root (circles, and what its hand-over leaves in the view), the calling thread hands over the root's own
// slice (circles waiting for reintegration) and leaves each part a room below it, and the workers then fill
// the rooms at once; on one thread each part is handed over below the root in turn.
void SphereTree::doFindPairs(std::vector<Pair>& out) {
  TaskScheduler& workers = scheduler();
  const SphereNode& root = spheres_[kRoot];
  topChildren_.clear();
  for (std::uint32_t c = root.firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
    topChildren_.push_back(c);
  // Walks the subtree below `top` depth first: enter(sphere) before its children, leave(sphere) after.
  const auto walk = [&](std::uint32_t top, std::vector<std::uint32_t>& stack, auto&& enter, auto&& leave) {
    pair_view::walkDepthFirst(
        top, stack,
        [&](std::uint32_t n) {
          enter(n);
          return true;
        },
        [&](std::uint32_t n, auto&& push) {
          for (std::uint32_t c = spheres_[n].firstChild; c != kNoIndex; c = spheres_[c].nextSibling) push(c);
        },
        leave);
  };
  const bool inRooms = workers.workerCount() > 1;
  parts_.fit(workers, 0);
  childBelow_.resize(topChildren_.size());
  workers.parallelFor(topChildren_.size(), 256, [&](std::size_t begin, std::size_t end, unsigned worker) {
    pair_view::HandOverScratch& scratch = parts_.scratch[worker];
    for (std::size_t k = begin; k < end; ++k) {
      std::uint32_t items = 0;
      pair_view::NodeCount counted(scratch.open);
      walk(
          topChildren_[k], scratch.stack,
          [&](std::uint32_t n) {
            if (inRooms) {
              counted.enterNode(items);
              pair_view::countOwnItems(counted, items, items + spheres_[n].itemCount);
            }
            items += spheres_[n].itemCount;
          },
          [&](std::uint32_t) {
            if (inRooms) counted.leaveNode(items);
          });
      childBelow_[k] = {items, counted.nodes(), counted.entries()};
    }
  });
  // The runs: where each begins among the root's children and where its items go.
  const std::uint32_t partLimit = pair_view::partItems(size());
  partRuns_.clear();
  std::uint32_t at = root.itemCount, runItems = 0;
  for (std::size_t k = 0; k < topChildren_.size(); ++k) {
    if (k == 0 || runItems + childBelow_[k].items > partLimit) {
      partRuns_.push_back({std::uint32_t(k), at});
      runItems = 0;
    }
    runItems += childBelow_[k].items;
    at += childBelow_[k].items;
  }
  partRuns_.push_back({std::uint32_t(topChildren_.size()), at});
  const std::size_t partCount = partRuns_.size() - 1;
  parts_.fit(workers, partCount);
  for (std::size_t p = 0; p < partCount; ++p) {
    parts_.nodes[p] = parts_.entries[p] = 0;
    for (std::uint32_t k = partRuns_[p].firstChild; k < partRuns_[p + 1].firstChild; ++k) {
      parts_.nodes[p] += childBelow_[k].nodes;
      parts_.entries[p] += childBelow_[k].entries;
    }
  }
  viewItems_.resize(at);
  const pair_view::MutableItems items = viewItems_.writable();
  // Copies a sphere's slice to `begin` and hands it to `view`; returns where it ends.
  const auto handOverSlice = [&](std::uint32_t n, std::uint32_t begin, auto& view,
                                 pair_view::HandOverScratch& scratch) {
    const SphereNode& node = spheres_[n];
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      const ItemSlot& slot = slots_[node.itemBegin + k];
      items.put(begin + k, slot.id, Circle{{slot.x, slot.y}, slot.r});
    }
    view.enterNode(begin);
    pair_view::handOverOwnItems(view, items, begin, begin + node.itemCount, scratch);
    return begin + node.itemCount;
  };
  // Hands part p over to `view`; returns the spheres read.
  const auto fillPart = [&](std::size_t p, auto& view, pair_view::HandOverScratch& scratch) {
    std::uint32_t next = partRuns_[p].itemsAt;
    std::uint64_t spheres = 0;
    for (std::uint32_t k = partRuns_[p].firstChild; k < partRuns_[p + 1].firstChild; ++k) {
      walk(
          topChildren_[k], scratch.stack,
          [&](std::uint32_t n) {
            ++spheres;
            next = handOverSlice(n, next, view, scratch);
          },
          [&](std::uint32_t) { view.leaveNode(next); });
    }
    return spheres;
  };
  view_.begin(viewItems_.arrays());
  handOverSlice(kRoot, 0, view_, viewItems_.split);
  std::uint64_t read = 1;
  for (std::size_t p = 0; p < partCount; ++p) read += parts_.place(inRooms, view_, p, fillPart);
  view_.leaveNode(at);
  if (inRooms) read += parts_.fillRooms(workers, view_, partCount, fillPart);
  view_.finish();
  counters_.nodesVisited += read;
  pair_view::findPairsInto(view_, out, workers, viewWalk_, counters_);
}

// ---------------------------------------------------------------------------------------------------------
// View cone with memory
// ---------------------------------------------------------------------------------------------------------

// Every super-sphere keeps its state from the last cull (hidden, partial, visible). A super-sphere that is
// hidden or wholly visible again, and gained no member since, is not entered: its items cannot have changed
// visibility. Only items whose visibility changed produce events.
void SphereTree::doCullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left) {
  ensureIdCapacity();
  const bvh::ConeClassifier classifier(cone);
  for (ItemId id : pendingLeft_) {
    if ((itemState_[id] & kItemVisible) && !contains(id)) {
      itemState_[id] &= static_cast<std::uint8_t>(~kItemVisible);
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
    SphereNode& node = spheres_[e.node];
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
    for (std::uint32_t c = node.firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
      cullStack_.push_back({c, state});
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      const ItemSlot& s = slots_[node.itemBegin + k];
      bool visible = state == kVisible;
      if (state == kPartial) {
        ++counters_.candidates;
        ++counters_.exactTests;
        visible = circleOverlapsCone({{s.x, s.y}, s.r}, cone);
      }
      if (visible != bool(itemState_[s.id] & kItemVisible)) {
        itemState_[s.id] ^= kItemVisible;
        (visible ? entered : left).push_back(s.id);
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
  if (spheres_.empty() || spheres_[kRoot].level != kRootLevel || spheres_[kRoot].parent != kNoIndex)
    return name + "bad root";
  std::size_t items = 0, spheres = 0, flaggedReintegrate = 0, flaggedRecompute = 0, visited = 0, room = 0;
  std::vector<std::uint32_t> stack{kRoot};
  std::vector<std::uint8_t> slotUsed(slots_.size(), 0);
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    ++visited;
    if (visited > spheres_.size()) return name + "cycle in the tree";
    const SphereNode& node = spheres_[n];
    if (node.flags & kQueuedReintegrate) ++flaggedReintegrate;
    if (node.flags & kQueuedRecompute) ++flaggedRecompute;
    if (n != kRoot) ++spheres;
    // The cull skips a clean, wholly hidden or visible node whose state holds: everything below it must then
    // be clean and in that same state. (Under a Partial node anything goes: the cull always enters it.)
    const bool uniformClean = n != kRoot && node.cullState != kPartial && !(node.flags & kCullDirty);
    // The slice: its items, mapped back, inside the bound (leaves) or waiting at the root.
    if (node.itemCount > node.itemRoom || std::size_t(node.itemBegin) + node.itemRoom > slots_.size())
      return name + "slice out of range";
    if (node.itemCount > 0 && n != kRoot && node.level != 1) return name + "items held above the leaf level";
    room += node.itemRoom;
    for (std::uint32_t k = 0; k < node.itemRoom; ++k) {
      if (slotUsed[node.itemBegin + k]++) return name + "two slices share a slot";
    }
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      const std::uint32_t slot = node.itemBegin + k;
      const ItemSlot& s = slots_[slot];
      ++items;
      if (!contains(s.id) || s.id >= slotOf_.size() || slotOf_[s.id] != slot || ownerOf_[s.id] != n)
        return name + "item not mapped to its slot";
      if (!(Circle{{s.x, s.y}, s.r} == circle(s.id))) return name + "item circle differs from the table";
      if (n != kRoot) {
        const Disc outer = discOf(n);
        const double dx = double(s.x) - outer.x, dy = double(s.y) - outer.y;
        const double slack = 1e-9 * (outer.r + std::fabs(outer.x) + std::fabs(outer.y));
        if (std::sqrt(dx * dx + dy * dy) + s.r > outer.r + slack) return name + "item pokes out of its leaf";
      }
      if (uniformClean && bool(itemState_[s.id] & kItemVisible) != (node.cullState == kVisible))
        return name + "cull memory of an item disagrees with its clean parent";
      if ((itemState_[s.id] & kItemQueued) && n != kRoot) return name + "a queued item is not at the root";
      if (itemState_[s.id] & kItemQueued) ++flaggedReintegrate;
    }
    std::uint32_t count = 0;
    std::uint32_t prev = kNoIndex;
    for (std::uint32_t c = node.firstChild; c != kNoIndex; c = spheres_[c].nextSibling) {
      const SphereNode& cn = spheres_[c];
      if (cn.parent != n || cn.prevSibling != prev) return name + "broken sibling or parent link";
      if (cn.level == kDeadLevel) return name + "dead sphere linked in the tree";
      if (n != kRoot) {
        if (cn.level + 1 != node.level) return name + "child level is not one below its parent";
        const Disc outer = discOf(n), inner = discOf(c);
        const double dx = inner.x - outer.x, dy = inner.y - outer.y;
        const double slack = 1e-9 * (outer.r + std::fabs(outer.x) + std::fabs(outer.y));
        if (std::sqrt(dx * dx + dy * dy) + inner.r > outer.r + slack)
          return name + "child pokes out of its parent";
      }
      if (uniformClean && (cn.cullState != node.cullState || (cn.flags & kCullDirty)))
        return name + "cull memory of a sphere disagrees with its clean parent";
      prev = c;
      ++count;
      stack.push_back(c);
    }
    if (count != node.childCount) return name + "child count differs from the list";
  }
  if (items != size())
    return name + "tree holds " + std::to_string(items) + " items, table " + std::to_string(size());
  if (room != slotsInUse_) return name + "slice room differs from its count";
  if (spheres != liveSpheres_) return name + "super-sphere count differs";
  if (flaggedReintegrate != queuedReintegrate_ || flaggedRecompute != queuedRecompute_)
    return name + "queue counts differ";
  if (const std::string problem = freeSpheres_.problem(
          [this](std::uint32_t f) -> auto& { return spheres_[f].firstChild; },
          [this](std::uint32_t f) { return spheres_[f].level == kDeadLevel; }, spheres_.size());
      !problem.empty())
    return name + problem;
  if (freeSpheres_.size() + visited != spheres_.size())
    return name + "spheres leaked: neither in the tree nor free";
  std::size_t flaggedVisible = 0;
  for (std::uint8_t v : itemState_) flaggedVisible += (v & kItemVisible) ? 1 : 0;
  if (flaggedVisible != visible_.size()) return name + "visibility memory differs from the visible set";
  for (ItemId id : visible_) {
    if (id >= itemState_.size() || !(itemState_[id] & kItemVisible))
      return name + "visible item not remembered as visible";
  }
  return {};
}

}  // namespace st::sphere_tree
