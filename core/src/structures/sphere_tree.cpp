// The sphere tree's mutation: the pool and the item slices, NewPos and its fast path, the reintegration and
// recomputation queues, placement and the bulk build. See sphere_tree.hpp.

#include "sphere_tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "simd_support.hpp"
#include "spheretest/structures.hpp"

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

void TopLevel::near(double qx, double qy, double reach, std::vector<std::uint8_t>& keep,
                    std::vector<std::uint32_t>& out) const {
  out.clear();
  const std::size_t n = size();
  keep.resize(n);
  const float fx = float(qx), fy = float(qy), fr = float(reach);
  const float scale = std::fabs(fx) + std::fabs(fy) + fr;
  // Two passes, so that the test runs in vector lanes: flags first, then the few indices.
  for (std::size_t i = 0; i < n; ++i) {
    const float dx = x[i] - fx, dy = y[i] - fy;
    const float within =
        (r[i] + fr) * 1.00001f + (std::fabs(x[i]) + std::fabs(y[i]) + scale) * 1e-5f + 1e-20f;
    keep[i] = dx * dx + dy * dy <= within * within ? 1 : 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i]) out.push_back(node[i]);
  }
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
      childBelow_.capacity() * sizeof(Below) + partRuns_.capacity() * sizeof(PartRun);
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
  if (key != "budget") rebuildFromTable();
}

void SphereTree::readParams() {
  leafSize_ = param("leaf_size");
  rootSize_ = param("root_size");
  gravity_ = param("gravity");
  topLevel_ = static_cast<int>(param("levels"));
  budget_ = static_cast<std::size_t>(param("budget"));
}

void SphereTree::resetPool() {
  spheres_.clear();
  freeHead_ = kNoIndex;
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
}

void SphereTree::ensureIdCapacity() {
  if (slotOf_.size() < idCapacity()) {
    slotOf_.resize(idCapacity(), kNoIndex);
    ownerOf_.resize(idCapacity(), kNoIndex);
    itemState_.resize(idCapacity(), 0);
  }
}

std::uint32_t SphereTree::allocSphere(std::uint8_t level) {
  std::uint32_t n;
  if (freeHead_ != kNoIndex) {
    n = freeHead_;
    freeHead_ = spheres_[n].firstChild;
  } else {
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
  node.firstChild = freeHead_;
  freeHead_ = n;
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
  sphereStack_.assign(1, kRoot);
  slotsInUse_ = 0;
  while (!sphereStack_.empty()) {
    const std::uint32_t n = sphereStack_.back();
    sphereStack_.pop_back();
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
    for (std::uint32_t c = node.firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
      sphereStack_.push_back(c);
  }
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

// Keeps a root child's entry in top_ in step with its bound (after a link or a new bound).
void SphereTree::syncTop(std::uint32_t n) {
  if (topIndex_.size() < spheres_.size()) topIndex_.resize(spheres_.size(), kNoIndex);
  const SphereNode& node = spheres_[n];
  std::uint32_t& at = topIndex_[n];
  if (node.parent != kRoot) return;
  if (at == kNoIndex) {
    at = static_cast<std::uint32_t>(top_.size());
    top_.x.push_back(node.x);
    top_.y.push_back(node.y);
    top_.r.push_back(node.radius);
    top_.node.push_back(n);
    return;
  }
  top_.x[at] = node.x;
  top_.y[at] = node.y;
  top_.r[at] = node.radius;
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
    // Swap-remove from the top level: the last entry fills the hole.
    const std::uint32_t at = topIndex_[child], last = static_cast<std::uint32_t>(top_.size() - 1);
    if (at != last) {
      top_.x[at] = top_.x[last];
      top_.y[at] = top_.y[last];
      top_.r[at] = top_.r[last];
      top_.node[at] = top_.node[last];
      topIndex_[top_.node[at]] = at;
    }
    top_.x.pop_back();
    top_.y.pop_back();
    top_.r.pop_back();
    top_.node.pop_back();
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
  sphereStack_.assign(1, kRoot);
  while (!sphereStack_.empty()) {
    const std::uint32_t sphere = sphereStack_.back();
    sphereStack_.pop_back();
    if (spheres_[sphere].itemCount > 0) runs_.push_back(sphere);
    for (std::uint32_t c = spheres_[sphere].firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
      sphereStack_.push_back(c);
  }
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
  process(budget_ == 0 ? std::numeric_limits<std::size_t>::max() : budget_);
  // Moved-out slices are reclaimed once they hold a fifth of the array: amortised O(1) per move.
  if (slots_.size() > slotsInUse_ + slotsInUse_ / 4 + 1024) repackSlices();
}

// ---------------------------------------------------------------------------------------------------------
// Queues
// ---------------------------------------------------------------------------------------------------------

void SphereTree::queueReintegrateItem(ItemId id, std::uint32_t hint) {
  if (itemState_[id] & kItemQueued) return;
  itemState_[id] |= kItemQueued;
  ++queuedReintegrate_;
  reintegrate_.push({kItemTag | id, hint});
}

void SphereTree::queueReintegrateSphere(std::uint32_t n, std::uint32_t hint) {
  if (spheres_[n].flags & kQueuedReintegrate) return;
  spheres_[n].flags |= kQueuedReintegrate;
  ++queuedReintegrate_;
  reintegrate_.push({n, hint});
}

void SphereTree::queueRecompute(std::uint32_t n) {
  if (spheres_[n].flags & kQueuedRecompute) return;
  spheres_[n].flags |= kQueuedRecompute;
  ++queuedRecompute_;
  recompute_.push({n, kNoIndex});
}

// Moves an item that pierced its sphere to the top: a swap in two slices and two queue pushes.
void SphereTree::detachItemToRoot(ItemId id) {
  const std::uint32_t parent = ownerOf_[id];
  const std::uint32_t grandparent = spheres_[parent].parent;
  const ItemSlot s = slots_[slotOf_[id]];
  removeItem(id);
  appendItem(kRoot, id, {{s.x, s.y}, s.r});
  queueReintegrateItem(id, grandparent);
  queueRecompute(parent);
}

void SphereTree::detachSphereToRoot(std::uint32_t n) {
  const std::uint32_t parent = spheres_[n].parent;
  const std::uint32_t grandparent = spheres_[parent].parent;
  unlinkSphere(n);
  linkSphere(n, kRoot);
  queueReintegrateSphere(n, grandparent);
  queueRecompute(parent);
}

void SphereTree::process(std::size_t budget) {
  std::size_t done = 0;
  while (done < budget) {
    bool any = false;
    while (!recompute_.empty()) {
      const QueueEntry e = recompute_.pop();
      SphereNode& node = spheres_[e.node];
      if (node.level == kDeadLevel || !(node.flags & kQueuedRecompute)) continue;
      node.flags &= static_cast<std::uint8_t>(~kQueuedRecompute);
      --queuedRecompute_;
      recomputeBound(e.node);
      ++done;
      any = true;
      break;
    }
    while (done < budget && !reintegrate_.empty()) {
      const QueueEntry e = reintegrate_.pop();
      if (e.node & kItemTag) {
        const ItemId id = e.node & ~kItemTag;
        if (id >= itemState_.size() || !(itemState_[id] & kItemQueued)) continue;
        itemState_[id] &= static_cast<std::uint8_t>(~kItemQueued);
        --queuedReintegrate_;
        reintegrateItem(id, e.hint);
      } else {
        SphereNode& node = spheres_[e.node];
        if (node.level == kDeadLevel || !(node.flags & kQueuedReintegrate)) continue;
        node.flags &= static_cast<std::uint8_t>(~kQueuedReintegrate);
        --queuedReintegrate_;
        reintegrateSphere(e.node, e.hint);
      }
      ++done;
      any = true;
      break;
    }
    if (!any) break;
  }
}

// Shrinks a super-sphere around its members; frees it when empty; sends it to the top if the tighter bound
// no longer fits its own parent. As in the seed's Recompute, a bound only ever shrinks here: the members all
// lie inside the current one (a member that would pierce it leaves first), and a tighter bound from another
// centre could be larger; accepted each time, such bounds would creep outward frame after frame.
void SphereTree::recomputeBound(std::uint32_t n) {
  ++recomputed_;
  const std::uint32_t parent = spheres_[n].parent;
  if (spheres_[n].firstChild == kNoIndex && spheres_[n].itemCount == 0) {
    unlinkSphere(n);
    freeSphere(n);
    if (parent != kRoot) queueRecompute(parent);
    return;
  }
  const Disc tight = enclosingOfChildren(n);
  if (tight.r >= spheres_[n].radius) return;
  setBound(n, tight);
  if (parent != kRoot && !discContains(discOf(parent), discOf(n))) detachSphereToRoot(n);
}

// A bound around the children: centre of their bounding box, radius to the farthest rim, plus gravity.
Disc SphereTree::enclosingOfChildren(std::uint32_t n) const {
  const SphereNode& node = spheres_[n];
  double minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY;
  const auto extend = [&](double x, double y, double r) {
    minX = std::min(minX, x - r);
    maxX = std::max(maxX, x + r);
    minY = std::min(minY, y - r);
    maxY = std::max(maxY, y + r);
  };
  for (std::uint32_t k = 0; k < node.itemCount; ++k) {
    const ItemSlot& s = slots_[node.itemBegin + k];
    extend(s.x, s.y, s.r);
  }
  for (std::uint32_t c = node.firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
    extend(spheres_[c].x, spheres_[c].y, spheres_[c].radius);
  Disc d{0.5 * (minX + maxX), 0.5 * (minY + maxY), 0.0};
  const auto farthest = [&](double x, double y, double r) {
    const double dx = x - d.x, dy = y - d.y;
    d.r = std::max(d.r, std::sqrt(dx * dx + dy * dy) + r);
  };
  for (std::uint32_t k = 0; k < node.itemCount; ++k) {
    const ItemSlot& s = slots_[node.itemBegin + k];
    farthest(s.x, s.y, s.r);
  }
  for (std::uint32_t c = node.firstChild; c != kNoIndex; c = spheres_[c].nextSibling)
    farthest(spheres_[c].x, spheres_[c].y, spheres_[c].radius);
  d.r += gravity_;
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Placement
// ---------------------------------------------------------------------------------------------------------

// A home among spheres one level above `x`: one that already holds it (closest centre first), else the one
// that grows least while staying within its size limit and inside its own parent.
void SphereTree::considerHome(std::uint32_t candidate, const Disc& x, const Disc& xWithGravity,
                              double maxRadius, Home& best) const {
  const Disc bound = discOf(candidate);
  const double dx = bound.x - x.x, dy = bound.y - x.y;
  const double d = std::sqrt(dx * dx + dy * dy);
  if (discContains(bound, x)) {
    if (best.grows || d < best.score) best = {candidate, false, {}, d};
    return;
  }
  if (best.node != kNoIndex && !best.grows) return;
  const Disc grown = enclosingPair(bound, xWithGravity);
  if (grown.r > maxRadius) return;
  const double growth = grown.r - bound.r;
  if (growth >= best.score) return;
  const std::uint32_t parent = spheres_[candidate].parent;
  if (parent != kRoot) {
    // The grown bound is stored rounded; check the stored form against the parent.
    const float fx = static_cast<float>(grown.x), fy = static_cast<float>(grown.y);
    const double ex = double(fx) - grown.x, ey = double(fy) - grown.y;
    const Disc stored{fx, fy, double(bvh::roundUpToFloat(grown.r + std::sqrt(ex * ex + ey * ey)))};
    if (!discContains(discOf(parent), stored)) return;
  }
  best = {candidate, true, grown, growth};
}

// `self` is the sphere being placed (kNoIndex for an item), which must not become its own home.
SphereTree::Home SphereTree::findHome(const Disc& x, std::uint32_t self, int target, std::uint32_t hint) {
  const Disc xg{x.x, x.y, x.r + gravity_};
  const double maxRadius = limitOf(target) + gravity_;
  Home best;
  // The old neighbourhood first: most circles that leave a leaf land in a sibling of it.
  if (hint != kNoIndex && spheres_[hint].level == target + 1) {
    for (std::uint32_t c = spheres_[hint].firstChild; c != kNoIndex; c = spheres_[c].nextSibling) {
      if (spheres_[c].level == target) considerHome(c, x, xg, maxRadius, best);
    }
    if (best.node != kNoIndex) return best;
  }
  const double reach = 2.0 * maxRadius + x.r;
  const auto consider = [&](std::uint32_t c) {
    const SphereNode& cn = spheres_[c];
    if (cn.level < target || c == self) return;
    if (cn.level == target) {
      considerHome(c, x, xg, maxRadius, best);
      return;
    }
    const double dx = cn.x - x.x, dy = cn.y - x.y;
    const double within = cn.radius + reach;
    if (dx * dx + dy * dy <= within * within) sphereStack_.push_back(c);
  };
  // The top level in vector lanes: a home or a way to one lies within `reach` of the bound (a sphere that
  // grows to take x stays within its limit only that close).
  sphereStack_.clear();
  top_.near(x.x, x.y, reach, topKeep_, topNear_);
  for (const std::uint32_t c : topNear_) consider(c);
  while (!sphereStack_.empty()) {
    const std::uint32_t n = sphereStack_.back();
    sphereStack_.pop_back();
    for (std::uint32_t c = spheres_[n].firstChild; c != kNoIndex; c = spheres_[c].nextSibling) consider(c);
  }
  return best;
}

// The sphere one level above `level` that takes `x` (growing it if needed), or a new one around it, placed
// in turn one level further up, up to the top. Returns the sphere x joins.
std::uint32_t SphereTree::placeInHome(const Disc& x, std::uint32_t self, int level, std::uint32_t hint) {
  const Home home = findHome(x, self, level + 1, hint);
  if (home.node != kNoIndex) {
    if (home.grows) setBound(home.node, home.grown);
    return home.node;
  }
  std::uint32_t fresh = allocSphere(static_cast<std::uint8_t>(level + 1));
  setBound(fresh, {x.x, x.y, x.r + gravity_});
  // The new sphere needs a home of its own, one level up, unless it is at the top.
  const std::uint32_t top = fresh;
  for (int l = level + 1;; ++l) {
    if (l >= topLevel_) {
      linkSphere(fresh, kRoot);
      break;
    }
    const Disc d = discOf(fresh);
    const Home up = findHome(d, fresh, l + 1, kNoIndex);
    if (up.node != kNoIndex) {
      if (up.grows) setBound(up.node, up.grown);
      linkSphere(fresh, up.node);
      break;
    }
    const std::uint32_t above = allocSphere(static_cast<std::uint8_t>(l + 1));
    setBound(above, {d.x, d.y, d.r + gravity_});
    linkSphere(fresh, above);
    fresh = above;
  }
  return top;
}

// Places an item waiting at the top into a leaf super-sphere, creating one (and placing that, in turn)
// when nothing near can take it.
void SphereTree::reintegrateItem(ItemId id, std::uint32_t hint) {
  ++reintegrated_;
  if (ownerOf_[id] != kRoot || topLevel_ < 1) return;
  const ItemSlot s = slots_[slotOf_[id]];
  const std::uint32_t home = placeInHome({s.x, s.y, s.r}, kNoIndex, kItemLevel, hint);
  removeItem(id);
  appendItem(home, id, {{s.x, s.y}, s.r});
}

// Places a super-sphere waiting at the top into one a level up (top-level spheres belong at the root).
void SphereTree::reintegrateSphere(std::uint32_t n, std::uint32_t hint) {
  ++reintegrated_;
  const int level = spheres_[n].level;
  if (spheres_[n].parent != kRoot || level >= topLevel_) return;
  unlinkSphere(n);
  const std::uint32_t home = placeInHome(discOf(n), n, level, hint);
  linkSphere(n, home);
}

// ---------------------------------------------------------------------------------------------------------
// Bulk build
// ---------------------------------------------------------------------------------------------------------

// Bottom-up, level by level: the nodes of one level are bucketed by a grid whose cell matches the next
// level's size; within a cell, the largest members seed super-spheres and the others join the first one
// that can take them without exceeding the size limit. The result is the tree the seed's insert-and-process
// loop converges to, at O(n log n) instead of one search of the whole top level per circle.
void SphereTree::doBuild(std::span<const Item> items) {
  ensureIdCapacity();
  for (std::uint8_t& s : itemState_) s &= static_cast<std::uint8_t>(~kItemVisible);
  pendingLeft_.clear();
  for (ItemId id : visible_) {
    if (id >= itemState_.size()) continue;
    itemState_[id] |= kItemVisible;
    if (!contains(id)) pendingLeft_.push_back(id);
  }
  struct Member {
    std::int64_t cellX, cellY;
    float radius;
    std::uint32_t index;  // item index (level 1) or sphere (above)
  };
  std::vector<Member> members;
  std::vector<std::uint32_t> current, next;
  std::vector<Disc> seeds;
  std::vector<std::uint32_t> seedNodes;
  const auto discOfMember = [&](int level, std::uint32_t index) {
    if (level > 1) return discOf(index);
    const Circle& c = items[index].circle;
    return Disc{c.center.x, c.center.y, c.radius};
  };
  current.resize(items.size());
  for (std::uint32_t i = 0; i < items.size(); ++i) current[i] = i;
  spheres_.reserve(spheres_.size() + items.size() / 8 + 64);
  for (int level = 1; level <= topLevel_ && !current.empty(); ++level) {
    const double limit = limitOf(level);
    const double cell = limit * 1.4;
    members.clear();
    for (std::uint32_t index : current) {
      const Disc d = discOfMember(level, index);
      const double cx = std::floor(d.x / cell), cy = std::floor(d.y / cell);
      constexpr double kMaxCell = 4e18;  // floor(x / cell) stays inside int64 for any valid coordinate
      members.push_back({static_cast<std::int64_t>(std::clamp(cx, -kMaxCell, kMaxCell)),
                         static_cast<std::int64_t>(std::clamp(cy, -kMaxCell, kMaxCell)), float(d.r), index});
    }
    std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
      if (a.cellX != b.cellX) return a.cellX < b.cellX;
      if (a.cellY != b.cellY) return a.cellY < b.cellY;
      if (a.radius != b.radius) return a.radius > b.radius;
      return a.index < b.index;
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
        const Disc m = discOfMember(level, members[i].index);
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
          seedNodes.push_back(allocSphere(static_cast<std::uint8_t>(level)));
        }
        if (level == 1) {
          const Item& item = items[members[i].index];
          appendItem(seedNodes[chosen], item.id, item.circle);
        } else {
          linkSphere(members[i].index, seedNodes[chosen]);
        }
      }
      for (std::size_t s = 0; s < seeds.size(); ++s) {
        // A tight bound from the final members, kept only if it beats the incrementally grown one.
        const Disc tight = enclosingOfChildren(seedNodes[s]);
        const Disc grown{seeds[s].x, seeds[s].y, seeds[s].r + gravity_};
        setBound(seedNodes[s], tight.r < grown.r ? tight : grown);
        next.push_back(seedNodes[s]);
      }
      begin = end;
    }
    current.swap(next);
  }
  if (topLevel_ >= 1) {
    for (std::uint32_t n : current) linkSphere(n, kRoot);
  }
  repackSlices();
}

}  // namespace sphere_tree

std::unique_ptr<SpatialIndex> makeSphereTree() {
  return std::make_unique<sphere_tree::SphereTree>();
}

}  // namespace st
