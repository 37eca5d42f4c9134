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

// The widened test of `near`, on one entry.
inline bool mayReach(float ex, float ey, float er, float fx, float fy, float fr, float scale) {
  const float dx = ex - fx, dy = ey - fy;
  const float within = (er + fr) * 1.00001f + (std::fabs(ex) + std::fabs(ey) + scale) * 1e-5f + 1e-20f;
  return dx * dx + dy * dy <= within * within;
}

std::int64_t cellOf(double v, double cell) {
  constexpr double kMaxCell = 2e9;  // keys hold 32 bits a coordinate; farther cells share the edge one
  return static_cast<std::int64_t>(std::clamp(std::floor(v / cell), -kMaxCell, kMaxCell));
}

// Keys sort as (cx, cy) do, signs included, so that a column's cells are one run of keys.
std::uint64_t cellKey(std::int64_t cx, std::int64_t cy) {
  const auto biased = [](std::int64_t c) {
    return std::uint64_t(std::uint32_t(std::int32_t(c)) ^ 0x80000000u);
  };
  return (biased(cx) << 32) | biased(cy);
}

}  // namespace

void TopLevel::noteChanged(std::uint32_t n) {
  if (cell <= 0.0) return;
  if (changed.size() <= n) changed.resize(std::size_t(n) + 1, 0);
  if (changed[n]) return;
  changed[n] = 1;
  recent.push_back(n);
}

void TopLevel::index(double cellSize) {
  // Entries that left since are skipped through entryOf; only added or moved ones make the grid stale.
  if (cell > 0.0 && cell == cellSize && recent.empty()) return;
  for (const std::uint32_t n : recent) changed[n] = 0;
  recent.clear();
  cellKeys.clear();
  cellNodes.clear();
  if (size() < kIndexFrom || !(cellSize > 0.0)) {
    cell = 0.0;
    return;
  }
  cell = cellSize;
  indexedMaxRadius = 0.0f;
  std::vector<std::pair<std::uint64_t, std::uint32_t>>& pairs = sorting;
  pairs.resize(size());
  for (std::size_t i = 0; i < size(); ++i) {
    pairs[i] = {cellKey(cellOf(x[i], cell), cellOf(y[i], cell)), node[i]};
    indexedMaxRadius = std::max(indexedMaxRadius, r[i]);
  }
  std::sort(pairs.begin(), pairs.end());
  cellKeys.resize(pairs.size());
  cellNodes.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    cellKeys[i] = pairs[i].first;
    cellNodes[i] = pairs[i].second;
  }
}

std::size_t TopLevel::near(double qx, double qy, double reach, const std::vector<std::uint32_t>& entryOf,
                           std::vector<std::uint8_t>& keep, std::vector<std::uint32_t>& out,
                           std::vector<std::uint32_t>* dropped) const {
  out.clear();
  if (dropped) dropped->clear();
  const std::size_t n = size();
  const float fx = float(qx), fy = float(qy), fr = float(reach);
  const float scale = std::fabs(fx) + std::fabs(fy) + fr;
  // The cells an entry near the point can have its centre in, with room for every rounding.
  const double span = (double(indexedMaxRadius) + reach) * 1.001 +
                      (std::fabs(qx) + std::fabs(qy) + reach + indexedMaxRadius) * 1e-4 + 1.0;
  std::int64_t x0 = 0, x1 = -1, y0 = 0, y1 = -1;
  if (cell > 0.0) {
    x0 = cellOf(qx - span, cell), x1 = cellOf(qx + span, cell);
    y0 = cellOf(qy - span, cell), y1 = cellOf(qy + span, cell);
  }
  const bool useGrid = cell > 0.0 && double(x1 - x0 + 1) * double(y1 - y0 + 1) <= 64.0;
  if (!useGrid) {
    // Two passes, so that the test runs in vector lanes: flags first, then the few indices.
    keep.resize(n);
    for (std::size_t i = 0; i < n; ++i) keep[i] = mayReach(x[i], y[i], r[i], fx, fy, fr, scale) ? 1 : 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (keep[i])
        out.push_back(node[i]);
      else if (dropped)
        dropped->push_back(node[i]);
    }
    return n;
  }
  std::size_t tested = 0;
  const auto test = [&](std::uint32_t sphere) {
    const std::uint32_t at = sphere < entryOf.size() ? entryOf[sphere] : kNoIndex;
    if (at == kNoIndex) return;
    ++tested;
    if (mayReach(x[at], y[at], r[at], fx, fy, fr, scale))
      out.push_back(sphere);
    else if (dropped)
      dropped->push_back(sphere);
  };
  // A column's cells have consecutive keys, so one search finds the column's first and a forward read
  // the rest.
  for (std::int64_t cx = x0; cx <= x1; ++cx) {
    const std::uint64_t last = cellKey(cx, y1);
    auto it = std::lower_bound(cellKeys.begin(), cellKeys.end(), cellKey(cx, y0));
    for (; it != cellKeys.end() && *it <= last; ++it) {
      const std::uint32_t sphere = cellNodes[std::size_t(it - cellKeys.begin())];
      if (sphere < changed.size() && changed[sphere]) continue;  // tested from `recent` below
      test(sphere);
    }
  }
  for (const std::uint32_t sphere : recent) test(sphere);
  return tested;
}

namespace {

// A bound's share of mayReach's widening, taken ahead: with the query's share, its test is one comparison.
float widenedReach(float x, float y, float r) {
  return r * 1.00001f + (std::fabs(x) + std::fabs(y)) * 1e-5f;
}

// Hands `keep(i)` each i in [b, e) whose bound may lie within `ours` of (fx, fy), testing them four at a
// time where the lanes are native.
template <class Keep>
void nearRun(const float* x, const float* y, const float* reach, std::uint32_t b, std::uint32_t e, float fx,
             float fy, float ours, Keep&& keep) {
  std::uint32_t i = b;
  if constexpr (simd::kNativeLanes) {
    const simd::FloatW4 px = simd::splatF4(fx), py = simd::splatF4(fy), pr = simd::splatF4(ours);
    for (; i + 4 <= e; i += 4) {
      const simd::FloatW4 dx = simd::sub(simd::loadF4(x + i), px), dy = simd::sub(simd::loadF4(y + i), py);
      const simd::FloatW4 w = simd::add(simd::loadF4(reach + i), pr);
      unsigned kept =
          simd::signMask(simd::lessEqual(simd::add(simd::mul(dx, dx), simd::mul(dy, dy)), simd::mul(w, w)));
      for (; kept; kept &= kept - 1) keep(i + simd::lowestSetBit(kept));
    }
  }
  for (; i < e; ++i) {
    const float dx = x[i] - fx, dy = y[i] - fy, w = reach[i] + ours;
    if (dx * dx + dy * dy <= w * w) keep(i);
  }
}

}  // namespace

std::size_t QueryLayout::near(double qx, double qy, double within, std::vector<std::uint32_t>& out) const {
  out.clear();
  const float fx = float(qx), fy = float(qy), fr = float(within);
  const float ours = fr * 1.00001f + (std::fabs(fx) + std::fabs(fy) + fr) * 1e-5f + 1e-20f;
  std::size_t tested = 0;
  // The entries of [b, e) that may reach, then the rows of each.
  const auto run = [&](std::uint32_t b, std::uint32_t e) {
    tested += e - b;
    nearRun(topX.data(), topY.data(), topReach.data(), b, e, fx, fy, ours, [&](std::uint32_t at) {
      tested += rowBegin[at + 1] - rowBegin[at];
      nearRun(x.data(), y.data(), reach.data(), rowBegin[at], rowBegin[at + 1], fx, fy, ours,
              [&](std::uint32_t row) { out.push_back(node[row]); });
    });
  };
  const auto entries = static_cast<std::uint32_t>(topX.size());
  if (cell > 0.0) {
    // The cells a near entry can have its centre in, with room for every rounding, as TopLevel::near.
    const double span = (double(widestTop) + within) * 1.001 +
                        (std::fabs(qx) + std::fabs(qy) + within + widestTop) * 1e-4 + 1.0;
    const std::int64_t x0 = cellOf(qx - span, cell), x1 = cellOf(qx + span, cell);
    const std::int64_t y0 = cellOf(qy - span, cell), y1 = cellOf(qy + span, cell);
    if (columns > 0) {
      // A column's cells hold consecutive entries: the cell table gives the run of each.
      const std::int64_t c0 = std::max(x0, firstColumn), c1 = std::min(x1, firstColumn + columns - 1);
      const std::int64_t r0 = std::max(y0, firstRow), r1 = std::min(y1, firstRow + rows - 1);
      if (r0 <= r1) {
        for (std::int64_t cx = c0; cx <= c1; ++cx) {
          const std::size_t at = std::size_t((cx - firstColumn) * rows);
          run(cellStart[at + std::size_t(r0 - firstRow)], cellStart[at + std::size_t(r1 - firstRow) + 1]);
        }
      }
      return tested;
    }
    if (x1 - x0 < 8) {
      // A column's cells have consecutive keys: one search finds its first entry.
      for (std::int64_t cx = x0; cx <= x1; ++cx) {
        const auto b = std::lower_bound(keys.begin(), keys.end(), cellKey(cx, y0));
        const auto e = std::upper_bound(b, keys.end(), cellKey(cx, y1));
        run(static_cast<std::uint32_t>(b - keys.begin()), static_cast<std::uint32_t>(e - keys.begin()));
      }
      return tested;
    }
  }
  run(0, entries);
  return tested;
}

// Lays out queryLayout_ from the top level, its grid and the pool's links.
void SphereTree::layOutForQueries() {
  QueryLayout& t = queryLayout_;
  for (auto* v : {&t.topX, &t.topY, &t.topReach, &t.x, &t.y, &t.reach}) v->clear();
  t.keys.clear();
  t.rowBegin.clear();
  t.node.clear();
  t.cell = top_.cell;
  t.widestTop = 0.0f;
  const auto entry = [&](std::uint32_t top, std::uint64_t key) {
    const SphereNode& s = spheres_[top];
    t.keys.push_back(key);
    t.topX.push_back(s.x);
    t.topY.push_back(s.y);
    t.topReach.push_back(widenedReach(s.x, s.y, s.radius));
    t.widestTop = std::max(t.widestTop, t.topReach.back());
    t.rowBegin.push_back(static_cast<std::uint32_t>(t.node.size()));
    const auto row = [&](std::uint32_t n) {
      const SphereNode& r = spheres_[n];
      t.x.push_back(r.x);
      t.y.push_back(r.y);
      t.reach.push_back(widenedReach(r.x, r.y, r.radius));
      t.node.push_back(n);
    };
    // An entry that holds circles itself (a leaf waiting at the top) is its own row: the walk then reads
    // its circles as well as whatever lies below it.
    if (s.itemCount > 0) {
      row(top);
      return;
    }
    for (std::uint32_t c = s.firstChild; c != kNoIndex; c = spheres_[c].nextSibling) row(c);
  };
  if (t.cell > 0.0) {
    // The grid holds every entry, in key order; spheres that left the top since it was built are skipped.
    for (std::size_t i = 0; i < top_.cellKeys.size(); ++i) {
      const std::uint32_t n = top_.cellNodes[i];
      if (n < topIndex_.size() && topIndex_[n] != kNoIndex) entry(n, top_.cellKeys[i]);
    }
  } else {
    for (const std::uint32_t n : top_.node) entry(n, 0);
  }
  t.rowBegin.push_back(static_cast<std::uint32_t>(t.node.size()));
  t.columns = t.rows = 0;
  t.cellStart.clear();
  if (t.cell > 0.0 && !t.keys.empty()) {
    // A cell table over the span of the entries' cells, unless they are spread too thin for it to pay.
    const auto column = [](std::uint64_t key) { return std::int64_t(key >> 32) - std::int64_t{0x80000000}; };
    const auto row = [](std::uint64_t key) {
      return std::int64_t(key & 0xffffffffu) - std::int64_t{0x80000000};
    };
    std::int64_t r0 = row(t.keys[0]), r1 = r0;
    for (const std::uint64_t key : t.keys) r0 = std::min(r0, row(key)), r1 = std::max(r1, row(key));
    const std::int64_t c0 = column(t.keys.front()), c1 = column(t.keys.back());
    const double cells = double(c1 - c0 + 1) * double(r1 - r0 + 1);
    if (cells <= 4.0 * double(t.keys.size()) + 4096.0) {
      t.firstColumn = c0, t.firstRow = r0, t.columns = c1 - c0 + 1, t.rows = r1 - r0 + 1;
      t.cellStart.assign(std::size_t(t.columns * t.rows) + 1, 0);
      // Counts, then each cell's first entry: entries come in key order, which is the table's order.
      for (const std::uint64_t key : t.keys)
        ++t.cellStart[std::size_t((column(key) - c0) * t.rows + (row(key) - r0)) + 1];
      for (std::size_t c = 1; c < t.cellStart.size(); ++c) t.cellStart[c] += t.cellStart[c - 1];
    }
  }
  t.version = contentVersion();
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

// Keeps a root child's entry in top_ in step with its bound (after a link or a new bound).
void SphereTree::syncTop(std::uint32_t n) {
  if (topIndex_.size() < spheres_.size()) topIndex_.resize(spheres_.size(), kNoIndex);
  const SphereNode& node = spheres_[n];
  std::uint32_t& at = topIndex_[n];
  if (node.parent != kRoot) return;
  top_.noteChanged(n);
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

// The top level's grid cell: twice the largest top-level bound, so that a point's neighbours lie in the
// cells around its own.
double SphereTree::topCellSize() const {
  return 2.0 * (limitOf(topLevel_) + gravity_);
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
