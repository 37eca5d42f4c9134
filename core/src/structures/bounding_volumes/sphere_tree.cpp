// The sphere tree's mutation: the pool and the item slices, NewPos and its fast path (the queues, placement
// and the bulk build are in sphere_tree_placement.cpp). See sphere_tree.hpp.

#include "sphere_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "spheretest/structures.hpp"
#include "structures/shared/simd_support.hpp"

namespace st {
namespace sphere_tree {

Disc enclosingPair(const Disc& a, const Disc& b) {
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double d = std::sqrt(dx * dx + dy * dy);
  if (d + b.r <= a.r) return a;
  if (d + a.r <= b.r) return b;
  const double r = 0.5 * (d + a.r + b.r);
  const double k = (r - a.r) / d;
  return {a.x + dx * k, a.y + dy * k, r};
}

bool discContains(const Disc& outer, const Disc& inner) {
  if (inner.r > outer.r) return false;
  const double dx = inner.x - outer.x, dy = inner.y - outer.y;
  const double room = outer.r - inner.r;
  return dx * dx + dy * dy <= room * room;
}

namespace {
// In large trees each move is two cache misses (the item's slot, then its sphere): fetching them a few
// moves ahead overlaps the misses instead of paying them one after another.
constexpr std::size_t kSlotAhead = 16, kOwnerAhead = 8;
// How far ahead the whole-frame pass fetches circles from the item table.
constexpr std::size_t kGatherAhead = 64;
}  // namespace

SphereTree::SphereTree() : SpatialIndex("sphere-tree") {
  addParam({"leaf_size", "largest radius of a leaf super-sphere's content (before gravity)", 24.0, 1e-3, 1e12,
            false});
  addParam({"root_size", "largest radius of a root super-sphere's content (before gravity)", 128.0, 1e-3,
            1e12, false});
  addParam(
      {"gravity", "slop added around every super-sphere so members rarely leave it", 1.5, 0.0, 1e12, false});
  addParam({"levels",
            "levels of super-spheres (2: leaf and root as in the seed; more stack root_size/leaf_size times "
            "larger ones on top, for very large worlds)",
            2, 2, 8, true});
  addParam({"budget", "queue entries processed per maintain() (0 = drain both queues every frame)", 0, 0, 1e9,
            true});
  addParam(
      {"regroup",
       "circles looked at for regrouping per circle detached, a top-level super-sphere at a time in turn; "
       "one past regroup_worn is gathered into leaves as build() gathers them: keeps a long run's leaves "
       "from coming to overlap (0 = never; not with a budget)",
       8.0, 0.0, 64.0, false});
  addParam(
      {"regroup_worn",
       "a top-level super-sphere the regrouping reaches is gathered again only once more than this share "
       "of its circles lie in leaves reintegration started or grew (0 = always)",
       0.3, 0.0, 1.0, false});
  readParams();
  resetPool();
}

std::string_view SphereTree::description() const {
  return "Ratcliff's sphere tree (SpherePackFactory, seed 001_ecbeb7c72bb815d1.txt): circles are gathered by "
         "leaf super-spheres of at most leaf_size radius, those by root super-spheres of at most root_size, "
         "each grown by a gravity slop. A move costs one squared-distance comparison with the parent's bound "
         "while the circle stays inside (the seed's 99% case); a circle that pierces its parent is queued "
         "for reintegration, which maintain() drains. Queries and pair search test more than a well-balanced "
         "box tree, but moves are nearly free: choose it for many moving objects, disparate speeds, frequent "
         "insert/remove and culling.";
}

// ---------------------------------------------------------------------------------------------------------
// Introspection
// ---------------------------------------------------------------------------------------------------------

void SphereTree::visitNodes(const NodeVisitor& visitor) const {
  std::vector<std::pair<std::uint32_t, int>> stack;
  for (std::uint32_t c = spheres_[kRoot].firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
    stack.push_back({c, 0});
  while (!stack.empty()) {
    const auto [n, depth] = stack.back();
    stack.pop_back();
    visitor(nodeInfo(n, depth));
    for (std::uint32_t c = spheres_[n].firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
      stack.push_back({c, depth + 1});
  }
}

void SphereTree::visitPathTo(ItemId id, const NodeVisitor& visitor) const {
  std::vector<std::uint32_t> chain;
  for (std::uint32_t n = ownerOf_[id]; n != kRoot && n != kNoIndex; n = spheres_[n].parent)
    chain.push_back(n);
  for (std::size_t k = chain.size(); k-- > 0;) visitor(nodeInfo(chain[k], int(chain.size() - 1 - k)));
}

std::string_view SphereTree::nodeRule() const {
  return "a super-sphere holds the members lying inside its bound (gravity slop included); one that pierces "
         "it "
         "goes to the top and joins the nearest sphere that holds it, else the one that grows least";
}

IndexStats SphereTree::stats() const {
  IndexStats s;
  s.nodes = liveSpheres_;
  int deepest = 0;
  for (const SphereNode& n : spheres_) {
    if (n.level != kDeadLevel && n.level != kRootLevel) deepest = std::max(deepest, topLevel_ - int(n.level));
  }
  s.maxDepth = deepest;
  s.memoryBytes =
      tableBytes() + spheres_.capacity() * sizeof(SphereNode) + slots_.capacity() * sizeof(ItemSlot) +
      (slotOf_.capacity() + ownerOf_.capacity()) * sizeof(std::uint32_t) + itemState_.capacity() +
      (pendingLeft_.capacity() + leaving_.capacity()) * sizeof(ItemId) + reintegrate_.capacityBytes() +
      recompute_.capacityBytes() + sphereStack_.capacity() * 4 + cullStack_.capacity() * sizeof(CullEntry) +
      scratchIds_.capacity() * sizeof(ItemId) + repackScratch_.capacity() * sizeof(ItemSlot) + view_.bytes() +
      viewItems_.bytes() + pair_view::scratchBytes(viewWalk_) + parts_.bytes() + topChildren_.capacity() * 4 +
      childBelow_.capacity() * sizeof(Below) + partRuns_.capacity() * sizeof(PartRun) + queryLayout_.bytes();
  return s;
}

void SphereTree::extra(ExtraCounters& out) const {
  std::size_t leafSpheres = 0, itemsInLeaves = 0, rootChildren = 0;
  for (const SphereNode& n : spheres_) {
    if (n.level == 1) ++leafSpheres, itemsInLeaves += n.itemCount;
  }
  for (std::uint32_t c = spheres_[kRoot].firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
    ++rootChildren;
  rootChildren += spheres_[kRoot].itemCount;
  out.push_back({"fast_path_ratio", moves_ == 0 ? 1.0 : double(fastPath_) / double(moves_)});
  out.push_back(
      {"last_batch_fast_path_ratio", batchMoves_ == 0 ? 1.0 : double(batchFastPath_) / double(batchMoves_)});
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
  out.push_back({"slice_repacks", double(repacks_)});
  out.push_back({"regrouped_super_spheres", double(regroups_)});
  out.push_back({"regroups_passed_over", double(regroupsPassed_)});
  out.push_back({"top_level_grid", top_.cell > 0.0 ? 1.0 : 0.0});
  const bool laidOut = queryLayout_.version == contentVersion();
  out.push_back({"query_layout_current", laidOut ? 1.0 : 0.0});
  out.push_back({"query_layout_cell_table", laidOut && queryLayout_.columns > 0 ? 1.0 : 0.0});
}

NodeInfo SphereTree::nodeInfo(std::uint32_t n, int depth) const {
  const SphereNode& node = spheres_[n];
  NodeInfo info;
  info.shape = NodeShape::Circle;
  info.circle = {{node.x, node.y}, node.radius};
  info.box = boundsOf(info.circle);
  info.depth = depth;
  info.itemCount = node.itemCount;
  return info;
}

// ---------------------------------------------------------------------------------------------------------
// Pool and slices
// ---------------------------------------------------------------------------------------------------------

void SphereTree::onParamChanged(std::string_view key) {
  readParams();
  if (key != "budget" && key != "regroup" && key != "regroup_worn") rebuildFromTable();
}

void SphereTree::readParams() {
  leafSize_ = param("leaf_size");
  rootSize_ = param("root_size");
  gravity_ = param("gravity");
  topLevel_ = static_cast<int>(param("levels"));
  budget_ = static_cast<std::size_t>(param("budget"));
  regroupRate_ = param("regroup");
  regroupWorn_ = param("regroup_worn");
}

void SphereTree::resetPool() {
  spheres_.clear();
  freeSpheres_.clear();
  liveSpheres_ = 0;
  SphereNode root;
  root.level = kRootLevel;
  root.flags = kCullDirty;
  spheres_.push_back(root);
  slots_.clear();
  slotsInUse_ = 0;
  top_ = {};
  topIndex_.clear();
  std::fill(ownerOf_.begin(), ownerOf_.end(), kNoIndex);
  for (std::uint8_t& s : itemState_) s &= static_cast<std::uint8_t>(~kItemQueued);
  reintegrate_.clear();
  recompute_.clear();
  queuedReintegrate_ = queuedRecompute_ = 0;
  moves_ = fastPath_ = detached_ = reintegrated_ = recomputed_ = 0;
  batchMoves_ = batchFastPath_ = 0;
  detachedAtMaintain_ = 0;
  regroupCursor_ = kNoIndex;
}

void SphereTree::ensureIdCapacity() {
  if (slotOf_.size() < idCapacity()) {
    slotOf_.resize(idCapacity(), kNoIndex);
    ownerOf_.resize(idCapacity(), kNoIndex);
    itemState_.resize(idCapacity(), 0);
  }
}

std::uint32_t SphereTree::allocSphere(std::uint8_t level) {
  std::uint32_t n = freeSpheres_.take([this](std::uint32_t f) -> auto& { return spheres_[f].firstChild; });
  if (n == kNoIndex) {
    n = static_cast<std::uint32_t>(spheres_.size());
    spheres_.emplace_back();
  }
  spheres_[n] = SphereNode{};
  spheres_[n].level = level;  // a new super-sphere starts Partial: the cull always enters it
  ++liveSpheres_;
  return n;
}

void SphereTree::freeSphere(std::uint32_t n) {
  SphereNode& node = spheres_[n];
  if (node.flags & kQueuedReintegrate) --queuedReintegrate_;
  if (node.flags & kQueuedRecompute) --queuedRecompute_;
  slotsInUse_ -= node.itemRoom;
  --liveSpheres_;
  node = SphereNode{};
  node.level = kDeadLevel;
  freeSpheres_.give(
      n, [this](std::uint32_t f) -> auto& { return spheres_[f].firstChild; });
}

// Adds an item at the end of a sphere's slice; a full slice first moves to the end of the array with half as
// much room again (its old slots become garbage, reclaimed by the next repack).
void SphereTree::appendItem(std::uint32_t sphere, ItemId id, const Circle& c) {
  SphereNode& node = spheres_[sphere];
  if (node.itemCount == node.itemRoom) {
    const std::uint32_t room = std::max<std::uint32_t>(4, node.itemRoom + node.itemRoom / 2);
    const auto begin = static_cast<std::uint32_t>(slots_.size());
    // Grown by an eighth rather than doubled: the array is most of the tree's memory.
    if (slots_.size() + room > slots_.capacity()) slots_.reserve(slots_.size() + room + slots_.size() / 8);
    slots_.resize(slots_.size() + room);
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      slots_[begin + k] = slots_[node.itemBegin + k];
      slotOf_[slots_[begin + k].id] = begin + k;
    }
    slotsInUse_ += room - node.itemRoom;
    node.itemBegin = begin;
    node.itemRoom = room;
  }
  const std::uint32_t slot = node.itemBegin + node.itemCount++;
  slots_[slot] = {c.center.x, c.center.y, c.radius, id};
  slotOf_[id] = slot;
  ownerOf_[id] = sphere;
  if (!agreesWithCullMemory(id, sphere)) markCullDirty(sphere);
}

// Takes an item out of its sphere's slice: the slice's last item fills the hole.
void SphereTree::removeItem(ItemId id) {
  SphereNode& node = spheres_[ownerOf_[id]];
  const std::uint32_t slot = slotOf_[id];
  const std::uint32_t last = node.itemBegin + --node.itemCount;
  if (slot != last) {
    slots_[slot] = slots_[last];
    slotOf_[slots_[slot].id] = slot;
  }
  ownerOf_[id] = kNoIndex;
  slotOf_[id] = kNoIndex;
}

// Lays every slice out again, depth first, with a quarter more room than it holds: members of one leaf and
// leaves of one root sphere end up next to each other, and moved-out slices stop taking memory.
void SphereTree::repackSlices() {
  ++repacks_;
  repackScratch_.clear();
  std::size_t needed = 0;
  for (const SphereNode& n : spheres_) {
    if (n.level != kDeadLevel) needed += n.itemCount + n.itemCount / 4 + (n.itemCount > 0 ? 2 : 0);
  }
  repackScratch_.reserve(needed);
  slotsInUse_ = 0;
  forEachSphereBelow(kRoot, [&](std::uint32_t n) {
    SphereNode& node = spheres_[n];
    const auto begin = static_cast<std::uint32_t>(repackScratch_.size());
    const std::uint32_t room = node.itemCount == 0 ? 0 : node.itemCount + node.itemCount / 4 + 2;
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      const ItemSlot& s = slots_[node.itemBegin + k];
      slotOf_[s.id] = begin + k;
      repackScratch_.push_back(s);
    }
    repackScratch_.resize(begin + room);
    node.itemBegin = begin;
    node.itemRoom = room;
    slotsInUse_ += room;
  });
  slots_.swap(repackScratch_);
  repackScratch_.clear();
  repackScratch_.shrink_to_fit();
}

// Whether an item linked under `parent` agrees with the parent's cull memory. A Partial parent is always
// entered by the next cull, so anything may join it; a wholly hidden or visible one is skipped when its state
// does not change, so its members must already have that state.
bool SphereTree::agreesWithCullMemory(ItemId id, std::uint32_t parent) const {
  const SphereNode& p = spheres_[parent];
  if (p.cullState == kPartial) return true;
  return bool(itemState_[id] & kItemVisible) == (p.cullState == kVisible);
}

bool SphereTree::sphereAgreesWithCullMemory(std::uint32_t child, std::uint32_t parent) const {
  const SphereNode& p = spheres_[parent];
  if (p.cullState == kPartial) return true;
  const SphereNode& c = spheres_[child];
  return c.cullState == p.cullState && !(c.flags & kCullDirty);
}

// The view cull must descend towards every sphere that gained a member disagreeing with its memory.
void SphereTree::markCullDirty(std::uint32_t n) {
  while (n != kNoIndex && !(spheres_[n].flags & kCullDirty)) {
    spheres_[n].flags |= kCullDirty;
    n = spheres_[n].parent;
  }
}

void SphereTree::linkSphere(std::uint32_t child, std::uint32_t parent) {
  SphereNode& p = spheres_[parent];
  SphereNode& c = spheres_[child];
  c.parent = parent;
  c.prevSibling = kNoIndex;
  c.nextSibling = p.firstChild;
  if (p.firstChild != kNoIndex) spheres_[p.firstChild].prevSibling = child;
  p.firstChild = child;
  ++p.childCount;
  if (!sphereAgreesWithCullMemory(child, parent)) markCullDirty(parent);
  if (parent == kRoot) syncTop(child);
}

void SphereTree::unlinkSphere(std::uint32_t child) {
  if (spheres_[child].parent == kRoot) {
    const std::uint32_t at = topIndex_[child];
    if (const std::uint32_t moved = top_.removeAt(at); moved != kNoIndex) topIndex_[moved] = at;
    topIndex_[child] = kNoIndex;
  }
  SphereNode& c = spheres_[child];
  SphereNode& p = spheres_[c.parent];
  if (c.prevSibling != kNoIndex)
    spheres_[c.prevSibling].nextSibling = c.nextSibling;
  else
    p.firstChild = c.nextSibling;
  if (c.nextSibling != kNoIndex) spheres_[c.nextSibling].prevSibling = c.prevSibling;
  --p.childCount;
  c.parent = kNoIndex;
  c.prevSibling = c.nextSibling = kNoIndex;
}

// Largest content radius of a super-sphere at `level` (before gravity).
double SphereTree::limitOf(int level) const {
  if (level <= 1) return leafSize_;
  double limit = rootSize_;
  const double ratio = std::max(1.0, rootSize_ / leafSize_);
  for (int l = 2; l < level; ++l) limit = std::min(limit * ratio, 1e30);
  return limit;
}

void SphereTree::setBound(std::uint32_t n, const Disc& d) {
  SphereNode& node = spheres_[n];
  node.x = static_cast<float>(d.x);
  node.y = static_cast<float>(d.y);
  // Measure the radius from the rounded centre, then round it up: the bound never loses a member.
  const double dx = double(node.x) - d.x, dy = double(node.y) - d.y;
  node.radius = bvh::roundUpToFloat(d.r + std::sqrt(dx * dx + dy * dy));
  node.reach = inflateRadiusForPruning(node.radius, {node.x, node.y});
  if (node.parent == kRoot) syncTop(n);
}

// ---------------------------------------------------------------------------------------------------------
// Mutation
// ---------------------------------------------------------------------------------------------------------

void SphereTree::doInsert(ItemId id, const Circle& c) {
  ensureIdCapacity();
  appendItem(kRoot, id, c);
  queueReintegrateItem(id, kNoIndex);
}

// NewPos: one squared distance against the binding distance; the root is unbounded.
void SphereTree::moveItem(ItemId id, const Circle& c) {
  ++moves_;
  ++batchMoves_;
  ItemSlot& slot = slots_[slotOf_[id]];
  slot = {c.center.x, c.center.y, c.radius, id};
  const std::uint32_t parent = ownerOf_[id];
  if (parent == kRoot || discContains(discOf(parent), {slot.x, slot.y, slot.r})) {
    ++fastPath_;
    ++batchFastPath_;
    return;
  }
  ++detached_;
  detachItemToRoot(id);
}

void SphereTree::doUpdate(ItemId id, const Circle&, const Circle& c) {
  moveItem(id, c);
}

void SphereTree::doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle>) {
  batchMoves_ = 0;
  batchFastPath_ = 0;
  const std::size_t n = ids.size();
  if (n * 4 < size()) {
    for (std::size_t i = 0; i < n; ++i) {
      if (i + kSlotAhead < n) simd::prefetch(&slots_[slotOf_[ids[i + kSlotAhead]]]);
      if (i + kOwnerAhead < n) simd::prefetch(&spheres_[ownerOf_[ids[i + kOwnerAhead]]]);
      moveItem(ids[i], circle(ids[i]));
    }
    return;
  }
  // Most circles moved: one pass over the slices, sphere by sphere, reading each circle from the table. A
  // leaf's members are side by side and the leaf's bound is read once, so the only cache miss per circle is
  // the table's, fetched well ahead. Circles that did not move are still inside their sphere (bounds only
  // shrink around their members), so NewPos's test runs on everything and only the batch is counted.
  runs_.clear();
  forEachSphereBelow(kRoot, [&](std::uint32_t sphere) {
    if (spheres_[sphere].itemCount > 0) runs_.push_back(sphere);
  });
  // The spheres are cut into pieces for the workers; each writes only its own spheres' slots, and the
  // circles that left are detached afterwards in the order one thread would have found them.
  pieces::collect(scheduler(), runs_.size(), leaving_,
                  [&](std::size_t first, std::size_t last, std::vector<ItemId>& leaving) {
                    std::size_t ahead = first,
                                aheadSlot = 0;  // the run and slot whose circle is fetched next
                    const auto fetchAhead = [&] {
                      while (ahead < last && aheadSlot >= spheres_[runs_[ahead]].itemCount) {
                        ++ahead;
                        aheadSlot = 0;
                      }
                      if (ahead == last) return;
                      simd::prefetch(&circle(slots_[spheres_[runs_[ahead]].itemBegin + aheadSlot].id));
                      ++aheadSlot;
                    };
                    for (int k = 0; k < int(kGatherAhead); ++k) fetchAhead();
                    for (std::size_t run = first; run < last; ++run) {
                      const std::uint32_t sphere = runs_[run];
                      const SphereNode& node = spheres_[sphere];
                      const Disc bound = discOf(sphere);
                      for (std::uint32_t k = 0; k < node.itemCount; ++k) {
                        fetchAhead();
                        ItemSlot& slot = slots_[node.itemBegin + k];
                        const Circle& c = circle(slot.id);
                        slot = {c.center.x, c.center.y, c.radius, slot.id};
                        if (sphere != kRoot && !discContains(bound, {slot.x, slot.y, slot.r}))
                          leaving.push_back(slot.id);
                      }
                    }
                  });
  for (const ItemId id : leaving_) detachItemToRoot(id);
  moves_ += n;
  detached_ += leaving_.size();
  fastPath_ += n - leaving_.size();
  batchMoves_ = n;
  batchFastPath_ = n - leaving_.size();
}

void SphereTree::doRemove(ItemId id, const Circle&) {
  const std::uint32_t parent = ownerOf_[id];
  removeItem(id);
  if (itemState_[id] & kItemQueued) {
    itemState_[id] &= static_cast<std::uint8_t>(~kItemQueued);
    --queuedReintegrate_;
  }
  if (parent != kRoot) queueRecompute(parent);
  if (itemState_[id] & kItemVisible) pendingLeft_.push_back(id);
}

void SphereTree::doClear() {
  resetPool();
  slotOf_.clear();
  ownerOf_.clear();
  itemState_.clear();
  pendingLeft_.clear();
}

void SphereTree::doMaintain() {
  const std::uint64_t detached = detached_ - std::min(detached_, detachedAtMaintain_);
  detachedAtMaintain_ = detached_;
  // A budget bounds each frame's work, so regrouping, which is more of it, is left out then.
  if (regroupRate_ > 0.0 && budget_ == 0 && detached > 0)
    regroup(static_cast<std::size_t>(double(detached) * regroupRate_));
  process(budget_ == 0 ? std::numeric_limits<std::size_t>::max() : budget_);
  // Moved-out slices are reclaimed once they hold a fifth of the array: amortised O(1) per move.
  if (slots_.size() > slotsInUse_ + slotsInUse_ / 4 + 1024) repackSlices();
  top_.index(topCellSize());
  layOutForQueries();
}

}  // namespace sphere_tree

std::unique_ptr<SpatialIndex> makeSphereTree() {
  return std::make_unique<sphere_tree::SphereTree>();
}

}  // namespace st
