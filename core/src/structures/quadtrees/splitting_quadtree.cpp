#include "splitting_quadtree.hpp"

#include <string>

#include "structures/shared/ordered_pieces.hpp"

namespace st::quadtree_family {

SplittingQuadtree::SplittingQuadtree(std::string name, FamilyStyle style, std::uint32_t defaultCapacity)
    : QuadtreeFamily(std::move(name), style) {
  addParam(
      {"capacity", "items a leaf holds before it splits into four", double(defaultCapacity), 1, 64, true});
  addParam({"max_depth", "deepest level a leaf may split to", 24, 1, 40, true});
  readParams();
}

void SplittingQuadtree::readParams() {
  capacity_ = static_cast<std::uint32_t>(param("capacity"));
  maxDepth_ = static_cast<int>(param("max_depth"));
}

void SplittingQuadtree::onParamChanged(std::string_view key) {
  readParams();
  QuadtreeFamily::onParamChanged(key);
}

void SplittingQuadtree::doInsert(ItemId id, const Circle& c) {
  reserveIds();
  attach(id, c);
}

void SplittingQuadtree::doUpdate(ItemId id, const Circle& old, const Circle& c) {
  const std::uint32_t n = nodeOf(id);
  if (stayInPlace(n, old, c)) {
    // A leaf kept over capacity because its items could not be told apart can split once one of them moves
    // (its depth, a walk to the root, only then).
    if (overfullLeaf(n)) splitIfOverfull(n, depthOf(n));
    ++updatesInPlace_;
    return;
  }
  if (!relinkNearby(id, old, c)) {
    detach(id, old);
    attach(id, c);
  }
  ++updatesRelinked_;
}

// A circle that leaves its node usually lands close by: it climbs from its node to the nearest ancestor
// the descent from the root passes through for it, and goes down from there (the source documents'
// insertion from an arbitrary node, as the size-banded trees place a moved circle). The counts change only
// below that ancestor, and neither the upper path nor the descent through it is read again: at a million
// circles those are the nodes that miss the cache. The tree is the one detach and attach build, since which
// node splits and which merges follows from the circles alone (but for leaves whose circles cannot be told
// apart). A change of radius (the point quadtree's widen upward) or a root that must grow goes the long way.
bool SplittingQuadtree::relinkNearby(ItemId id, const Circle& old, const Circle& c) {
  if (c.radius != old.radius || !rootHolds(c)) return false;
  const std::uint32_t from = nodeOf(id);
  std::uint32_t top = from;
  while (top != 0 && !descentReaches(top, c)) top = nodes_[top].parent;
  unlinkItem(id);
  addToPathCounts(from, -1, top);
  // The new path leaves `top` through a child the old one did not take (that child would have been `top`).
  std::uint32_t n = top;
  for (std::uint32_t child = childTaking(n, c); child != kNoIndex; child = childTaking(n, c)) {
    n = child;
    ++nodes_[n].subtreeCount;
    noteStoredBelow(n, c);
  }
  linkItem(id, n);
  noteLeft(from, old);
  mergeUpFrom(from, top);
  if (overfullLeaf(n)) splitIfOverfull(n, depthOf(n));
  return true;
}

// The workers pick out the moves that leave their node, change what a node keeps, or touch a leaf kept over
// capacity; those are applied in batch order on the calling thread. A move the workers let stay would stay
// under doUpdate too, whatever the moves before it did: a split or a merge re-files a circle by the circle
// the table now holds, into a node that holds it. So the tree is the one of one move after another, and at
// a million circles the stay tests, a node read at random each, run side by side instead of between the
// relinks.
void SplittingQuadtree::doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) {
  const bool readsChildren = stayTestReadsChildren();
  pieces::collect(scheduler(), ids.size(), applyOneByOne_,
                  [&](std::size_t begin, std::size_t end, std::vector<std::uint32_t>& list) {
                    // Nodes are read in no order: each is fetched a few moves ahead, and where the stay
                    // test reads the children too, they follow once the node has arrived.
                    constexpr std::size_t kAhead = 16;
                    for (std::size_t i = begin; i < end; ++i) {
                      if (i + kAhead < end) prefetchNodeOf(ids[i + kAhead]);
                      if (readsChildren && i + kAhead / 2 < end) prefetchChildrenOf(ids[i + kAhead / 2]);
                      const std::uint32_t n = nodeOf(ids[i]);
                      if (overfullLeaf(n) || !staysUntouched(n, old[i], circle(ids[i])))
                        list.push_back(static_cast<std::uint32_t>(i));
                    }
                  });
  updatesInPlace_ += ids.size() - applyOneByOne_.size();
  // A relink reads one thing after another: the circle's links, its node and its list neighbours, the
  // parent it climbs to, the siblings it lands among. Each is fetched some moves ahead, in stages, each
  // stage reading what the one before it fetched, so that the misses of several moves overlap.
  const std::size_t moves = applyOneByOne_.size();
  const auto idAt = [&](std::size_t k) { return ids[applyOneByOne_[k]]; };
  for (std::size_t k = 0; k < moves; ++k) {
    if (k + 16 < moves) prefetchLinks(idAt(k + 16));
    if (k + 8 < moves) prefetchNodeAndNeighbours(idAt(k + 8));
    if (k + 4 < moves) prefetchParentOf(idAt(k + 4));
    if (k + 2 < moves) prefetchSiblingsOf(idAt(k + 2));
    const std::uint32_t i = applyOneByOne_[k];
    doUpdate(ids[i], old[i], circle(ids[i]));
  }
}

void SplittingQuadtree::doRemove(ItemId id, const Circle& c) {
  detach(id, c);
}

std::string SplittingQuadtree::checkNode(std::uint32_t index, int depth) const {
  const QuadNode& node = nodes_[index];
  if (node.firstChild != kNoIndex && node.subtreeCount <= capacity_)
    return "internal node " + std::to_string(index) + " should have merged";
  if (node.firstChild == kNoIndex && node.directCount > capacity_ && canSplit(index, depth)) {
    return "leaf " + std::to_string(index) + " holds " + std::to_string(node.directCount) +
           " items but could split";
  }
  return checkRule(index, depth);
}

void SplittingQuadtree::extraOwn(ExtraCounters& out) const {
  extraRule(out);
  out.emplace_back("updates_in_place", double(updatesInPlace_));
  out.emplace_back("updates_relinked", double(updatesRelinked_));
}

bool SplittingQuadtree::canSplit(std::uint32_t leaf, int depth) const {
  const QuadNode& node = nodes_[leaf];
  if (depth >= maxDepth_ || !cellSplittable(node.cell)) return false;
  // Items that always go to the same child would follow each other down forever.
  const Circle& first = circle(node.firstItem);
  for (std::uint32_t id = nextItem(node.firstItem); id != kNoIndex; id = nextItem(id)) {
    if (!sameKey(circle(id), first)) return true;
  }
  return false;
}

void SplittingQuadtree::attach(ItemId id, const Circle& c) {
  if (!rootPlaced()) placeRoot(boundsOf(c));
  while (!rootHolds(c)) growRootToward(c.center);
  std::uint32_t n = 0;
  int depth = 0;
  for (;;) {
    ++nodes_[n].subtreeCount;
    noteStoredBelow(n, c);
    const std::uint32_t child = childTaking(n, c);
    if (child == kNoIndex) break;
    n = child;
    ++depth;
  }
  linkItem(id, n);
  splitIfOverfull(n, depth);
  // A root grown toward a far item may hold too few items to stay split.
  if (nodes_[0].firstChild != kNoIndex && nodes_[0].subtreeCount <= capacity_) collapseSubtree(0);
}

void SplittingQuadtree::splitIfOverfull(std::uint32_t n, int depth) {
  if (overfullLeaf(n) && canSplit(n, depth)) split(n, depth);
}

// Splits an overflowing leaf: the items a child takes move down, the rest stay; overflowing children split
// in turn.
void SplittingQuadtree::split(std::uint32_t leaf, int depth) {
  std::vector<std::pair<std::uint32_t, int>>& pending = splitPending_;
  pending.assign(1, {leaf, depth});
  while (!pending.empty()) {
    const auto [n, d] = pending.back();
    pending.pop_back();
    const std::uint32_t first = allocateChildren(n);
    for (std::uint32_t id = nodes_[n].firstItem; id != kNoIndex;) {
      const std::uint32_t next = nextItem(id);
      const Circle& c = circle(id);
      const std::uint32_t child = childTaking(n, c);
      if (child != kNoIndex) {
        unlinkItem(id);
        linkItem(id, child);
        ++nodes_[child].subtreeCount;
        noteStoredBelow(child, c);
      }
      id = next;
    }
    noteSplit(n);
    for (std::uint32_t q = 0; q < 4; ++q) {
      if (nodes_[first + q].directCount > capacity_ && canSplit(first + q, d + 1))
        pending.push_back({first + q, d + 1});
    }
  }
}

void SplittingQuadtree::detach(ItemId id, const Circle& old) {
  const std::uint32_t n = nodeOf(id);
  unlinkItem(id);
  addToPathCounts(n, -1);
  // Inside an update batch a split or merge may have filed the circle by the table's circle, already the
  // new one: the node's bookkeeping may count either radius.
  const Circle& now = circle(id);
  noteLeft(n, now.radius > old.radius ? now : old);
  mergeUpFrom(n, kNoIndex);
}

// Merges the subtrees that now hold no more than the capacity, from `node` up to but not including `stop`
// (a node whose count did not change), stopping at the first that still holds more.
void SplittingQuadtree::mergeUpFrom(std::uint32_t node, std::uint32_t stop) {
  for (std::uint32_t m = node; m != stop; m = nodes_[m].parent) {
    if (nodes_[m].subtreeCount > capacity_) break;
    if (nodes_[m].firstChild != kNoIndex) collapseSubtree(m);
  }
}

}  // namespace st::quadtree_family
