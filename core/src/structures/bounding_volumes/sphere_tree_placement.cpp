// The sphere tree's reintegration and recomputation queues, the placement of items and super-spheres that
// wait at the top, and the bulk build. See sphere_tree.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sphere_tree.hpp"

namespace st {
namespace sphere_tree {

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
  if (top_.stale()) top_.index(topCellSize());
  top_.near(x.x, x.y, reach, topIndex_, topNear_);
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
    if (home.grows) {
      setBound(home.node, home.grown);
      if (level == 0) spheres_[home.node].flags |= kWorn;
    }
    return home.node;
  }
  std::uint32_t fresh = allocSphere(static_cast<std::uint8_t>(level + 1));
  setBound(fresh, {x.x, x.y, x.r + gravity_});
  if (level == 0) spheres_[fresh].flags |= kWorn;
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
  std::vector<std::uint32_t> current, next;
  current.resize(items.size());
  for (std::uint32_t i = 0; i < items.size(); ++i) current[i] = i;
  spheres_.reserve(spheres_.size() + items.size() / 8 + 64);
  for (int level = 1; level <= topLevel_ && !current.empty(); ++level) {
    groupInCells(level, items, current, next);
    current.swap(next);
  }
  if (topLevel_ >= 1) {
    for (std::uint32_t n : current) linkSphere(n, kRoot);
  }
  repackSlices();
  top_.index(topCellSize());
  layOutForQueries();
}

// One level of the bulk build: `current` holds item indices into `items` (level 1) or super-spheres (above);
// `next` receives the super-spheres of `level` they were gathered into.
void SphereTree::groupInCells(int level, std::span<const Item> items, std::span<const std::uint32_t> current,
                              std::vector<std::uint32_t>& next) {
  const auto discOfMember = [&](std::uint32_t index) {
    if (level > 1) return discOf(index);
    const Circle& c = items[index].circle;
    return Disc{c.center.x, c.center.y, c.radius};
  };
  const double limit = limitOf(level);
  const double cell = limit * 1.4;
  std::vector<GroupMember>& members = groupMembers_;
  members.clear();
  for (std::uint32_t index : current) {
    const Disc d = discOfMember(index);
    const double cx = std::floor(d.x / cell), cy = std::floor(d.y / cell);
    constexpr double kMaxCell = 4e18;  // floor(x / cell) stays inside int64 for any valid coordinate
    members.push_back({static_cast<std::int64_t>(std::clamp(cx, -kMaxCell, kMaxCell)),
                       static_cast<std::int64_t>(std::clamp(cy, -kMaxCell, kMaxCell)), float(d.r), index});
  }
  std::sort(members.begin(), members.end(), [](const GroupMember& a, const GroupMember& b) {
    if (a.cellX != b.cellX) return a.cellX < b.cellX;
    if (a.cellY != b.cellY) return a.cellY < b.cellY;
    if (a.radius != b.radius) return a.radius > b.radius;
    return a.index < b.index;
  });
  next.clear();
  std::vector<Disc>& seeds = groupSeeds_;
  std::vector<std::uint32_t>& seedNodes = groupSeedNodes_;
  for (std::size_t begin = 0; begin < members.size();) {
    std::size_t end = begin + 1;
    while (end < members.size() && members[end].cellX == members[begin].cellX &&
           members[end].cellY == members[begin].cellY) {
      ++end;
    }
    seeds.clear();
    seedNodes.clear();
    for (std::size_t i = begin; i < end; ++i) {
      const Disc m = discOfMember(members[i].index);
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
}

// ---------------------------------------------------------------------------------------------------------
// Regrouping
// ---------------------------------------------------------------------------------------------------------

// Each reintegration puts a circle into a super-sphere near its old place that can take it, growing it, or
// starts a new one around it: the tree stays valid, but over a long run of a clumping scene the leaves come
// to overlap, and the pair search tests over half again as many candidate pairs as a tree built from the
// same circles (1.05 -> 1.71 million a frame at 100k after 1,200 frames; shrinking every leaf to its
// members changed nothing, a full rebuild whenever the waste grew by a quarter came every 27 frames). So
// the tree is regrouped as it goes, a top-level super-sphere at a time, in turn: its circles are gathered
// into leaves the way build() gathers them, and the leaves wait at the top for reintegration like any
// detached super-sphere. `circles` is how many to look at, at least, this frame.
//
// Only a top more than regroup_worn of whose circles lie in worn leaves (ones reintegration started around
// a circle or grew to take one) is gathered again: a tree that is still as gathered costs only the look. The
// circles of a top passed over count toward the frame's share, so the cursor goes round at the same pace
// either way.
void SphereTree::regroup(std::size_t circles) {
  std::size_t done = 0;
  std::uint32_t checked = 0;
  const std::uint32_t tops = spheres_[kRoot].childCount;
  while (done < circles && checked++ < tops) {
    std::uint32_t top = regroupCursor_;
    if (top >= spheres_.size() || spheres_[top].parent != kRoot || spheres_[top].level != topLevel_)
      top = spheres_[kRoot].firstChild;
    if (top == kNoIndex) return;
    regroupCursor_ = spheres_[top].nextSibling;
    if (spheres_[top].level != topLevel_) continue;
    const LeafShare share = wornBelow(top);
    if (double(share.worn) <= double(share.circles) * regroupWorn_ && share.circles > 0) {
      ++regroupsPassed_;
      done += share.circles;
      continue;
    }
    done += regroupTop(top);
  }
}

SphereTree::LeafShare SphereTree::wornBelow(std::uint32_t top) {
  LeafShare share;
  forEachSphereBelow(top, [&](std::uint32_t n) {
    const SphereNode& node = spheres_[n];
    if (node.level != 1) return;
    share.circles += node.itemCount;
    if (node.flags & kWorn) share.worn += node.itemCount;
  });
  return share;
}

std::size_t SphereTree::regroupTop(std::uint32_t top) {
  ++regroups_;
  regroupItems_.clear();
  regroupSpheres_.clear();
  forEachSphereBelow(top, [&](std::uint32_t n) {
    regroupSpheres_.push_back(n);
    const SphereNode& node = spheres_[n];
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      const ItemSlot& slot = slots_[node.itemBegin + k];
      regroupItems_.push_back({slot.id, Circle{{slot.x, slot.y}, slot.r}});
    }
  });
  unlinkSphere(top);
  for (const Item& item : regroupItems_) {
    ownerOf_[item.id] = kNoIndex;
    slotOf_[item.id] = kNoIndex;
  }
  regroupRegions_.clear();
  for (const std::uint32_t n : regroupSpheres_) {
    if (spheres_[n].itemRoom > 0) regroupRegions_.push_back({spheres_[n].itemBegin, spheres_[n].itemRoom});
    freeSphere(n);
  }
  const std::size_t slotsBefore = slots_.size();
  regroupIndices_.resize(regroupItems_.size());
  for (std::uint32_t i = 0; i < regroupIndices_.size(); ++i) regroupIndices_[i] = i;
  groupInCells(1, regroupItems_, regroupIndices_, regroupLeaves_);
  reuseFreedSlices(slotsBefore);
  for (const std::uint32_t leaf : regroupLeaves_) {
    linkSphere(leaf, kRoot);
    queueReintegrateSphere(leaf, kNoIndex);
  }
  return regroupItems_.size();
}

// The new leaves' slices were appended to the array; the regrouped subtree's old slices, freed, usually lie
// side by side (a repack lays each top-level sphere's subtree out in one run). Moving the new slices there
// and dropping them from the array's end keeps regrouping from filling the array with dead slots, each
// repack of which would cost a pass over every circle (at 1M, one every four frames without this).
void SphereTree::reuseFreedSlices(std::size_t slotsBefore) {
  std::sort(regroupRegions_.begin(), regroupRegions_.end(),
            [](const SliceRegion& a, const SliceRegion& b) { return a.begin < b.begin; });
  std::size_t merged = 0;
  for (const SliceRegion& r : regroupRegions_) {
    if (merged > 0 && regroupRegions_[merged - 1].begin + regroupRegions_[merged - 1].room == r.begin)
      regroupRegions_[merged - 1].room += r.room;
    else
      regroupRegions_[merged++] = r;
  }
  regroupRegions_.resize(merged);
  bool allMoved = true;
  std::size_t region = 0;
  for (const std::uint32_t leaf : regroupLeaves_) {
    SphereNode& node = spheres_[leaf];
    const std::uint32_t room = node.itemCount + node.itemCount / 4 + 2;
    while (region < regroupRegions_.size() && regroupRegions_[region].room < room) ++region;
    if (region == regroupRegions_.size() || node.itemBegin < slotsBefore) {
      allMoved = false;
      continue;
    }
    SliceRegion& r = regroupRegions_[region];
    for (std::uint32_t k = 0; k < node.itemCount; ++k) {
      slots_[r.begin + k] = slots_[node.itemBegin + k];
      slotOf_[slots_[r.begin + k].id] = r.begin + k;
    }
    slotsInUse_ += room;
    slotsInUse_ -= node.itemRoom;
    node.itemBegin = r.begin;
    node.itemRoom = room;
    r.begin += room;
    r.room -= room;
  }
  if (allMoved) slots_.resize(slotsBefore);
}

}  // namespace sphere_tree
}  // namespace st
