#include "splitting_quadtree.hpp"

#include <string>

namespace st::quadtree_family {

SplittingQuadtree::SplittingQuadtree(std::string name, FamilyStyle style)
    : QuadtreeFamily(std::move(name), style) {
  addParam({"capacity", "items a leaf holds before it splits into four", 4, 1, 64, true});
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
    if (nodes_[n].firstChild == kNoIndex && nodes_[n].directCount > capacity_) splitIfOverfull(n, depthOf(n));
    ++updatesInPlace_;
    return;
  }
  detach(id, old);
  attach(id, c);
  ++updatesRelinked_;
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
  if (nodes_[n].firstChild == kNoIndex && nodes_[n].directCount > capacity_ && canSplit(n, depth))
    split(n, depth);
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
  noteLeft(n, old);
  for (std::uint32_t m = n; m != kNoIndex; m = nodes_[m].parent) {
    if (nodes_[m].subtreeCount > capacity_) break;
    if (nodes_[m].firstChild != kNoIndex) collapseSubtree(m);
  }
}

}  // namespace st::quadtree_family
