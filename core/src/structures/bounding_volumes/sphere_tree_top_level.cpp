// The sphere tree's top level: its entries, the grid over them, and the query layout of the top two
// levels laid out at each maintain(). See sphere_tree.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "sphere_tree.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::sphere_tree {

namespace {

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

// The query's share of the widening (see widenedReach), for a query reaching `within` of (fx, fy).
float queryShare(float fx, float fy, float within) {
  return within * 1.00001f + (std::fabs(fx) + std::fabs(fy) + within) * 1e-5f + 1e-20f;
}

// The widened test: whether a bound (x, y, reach) may lie within the query's reach (`ours`) of (fx, fy).
inline bool mayReach(float x, float y, float reach, float fx, float fy, float ours) {
  const float dx = x - fx, dy = y - fy, w = reach + ours;
  return dx * dx + dy * dy <= w * w;
}

// The grid cells an entry whose reach is at most `widest` can have its centre in when it may reach the
// query, with room for every rounding.
struct CellRange {
  std::int64_t x0, x1, y0, y1;
};
CellRange cellsNear(double qx, double qy, double within, double widest, double cell) {
  const double span =
      (widest + within) * 1.001 + (std::fabs(qx) + std::fabs(qy) + within + widest) * 1e-4 + 1.0;
  return {cellOf(qx - span, cell), cellOf(qx + span, cell), cellOf(qy - span, cell), cellOf(qy + span, cell)};
}

// Hands keep(i) each i in [b, e) whose bound may lie within the query's reach of (fx, fy), and drop(i)
// each other one, testing them four at a time where the lanes are native.
template <class Keep, class Drop>
void nearRun(const float* x, const float* y, const float* reach, std::uint32_t b, std::uint32_t e, float fx,
             float fy, float ours, Keep&& keep, Drop&& drop) {
  std::uint32_t i = b;
  if constexpr (simd::kNativeLanes) {
    const simd::FloatW4 px = simd::splatF4(fx), py = simd::splatF4(fy), pr = simd::splatF4(ours);
    for (; i + 4 <= e; i += 4) {
      const simd::FloatW4 dx = simd::sub(simd::loadF4(x + i), px), dy = simd::sub(simd::loadF4(y + i), py);
      const simd::FloatW4 w = simd::add(simd::loadF4(reach + i), pr);
      const unsigned kept =
          simd::signMask(simd::lessEqual(simd::add(simd::mul(dx, dx), simd::mul(dy, dy)), simd::mul(w, w)));
      for (unsigned k = kept; k; k &= k - 1) keep(i + simd::lowestSetBit(k));
      for (unsigned d = ~kept & 15u; d; d &= d - 1) drop(i + simd::lowestSetBit(d));
    }
  }
  for (; i < e; ++i) {
    if (mayReach(x[i], y[i], reach[i], fx, fy, ours))
      keep(i);
    else
      drop(i);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// The top level and its grid
// ---------------------------------------------------------------------------------------------------------

void TopLevel::place(std::uint32_t& at, std::uint32_t n, float bx, float by, float radius) {
  noteChanged(n);
  if (at == kNoIndex) {
    at = static_cast<std::uint32_t>(size());
    x.push_back(bx);
    y.push_back(by);
    reach.push_back(widenedReach(bx, by, radius));
    node.push_back(n);
    return;
  }
  x[at] = bx;
  y[at] = by;
  reach[at] = widenedReach(bx, by, radius);
}

std::uint32_t TopLevel::removeAt(std::uint32_t at) {
  const std::size_t last = size() - 1;
  const std::uint32_t moved = at != last ? node[last] : kNoIndex;
  if (at != last) {
    x[at] = x[last];
    y[at] = y[last];
    reach[at] = reach[last];
    node[at] = node[last];
  }
  x.pop_back();
  y.pop_back();
  reach.pop_back();
  node.pop_back();
  return moved;
}

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
  indexedWidest = 0.0f;
  std::vector<std::pair<std::uint64_t, std::uint32_t>>& pairs = sorting;
  pairs.resize(size());
  for (std::size_t i = 0; i < size(); ++i) {
    pairs[i] = {cellKey(cellOf(x[i], cell), cellOf(y[i], cell)), node[i]};
    indexedWidest = std::max(indexedWidest, reach[i]);
  }
  std::sort(pairs.begin(), pairs.end());
  cellKeys.resize(pairs.size());
  cellNodes.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    cellKeys[i] = pairs[i].first;
    cellNodes[i] = pairs[i].second;
  }
}

std::size_t TopLevel::near(double qx, double qy, double within, const std::vector<std::uint32_t>& entryOf,
                           std::vector<std::uint32_t>& out, std::vector<std::uint32_t>* dropped) const {
  out.clear();
  if (dropped) dropped->clear();
  const float fx = float(qx), fy = float(qy), ours = queryShare(fx, fy, float(within));
  const auto drop = [&](std::uint32_t sphere) {
    if (dropped) dropped->push_back(sphere);
  };
  const CellRange cells =
      cell > 0.0 ? cellsNear(qx, qy, within, indexedWidest, cell) : CellRange{0, -1, 0, -1};
  if (!(cell > 0.0 && double(cells.x1 - cells.x0 + 1) * double(cells.y1 - cells.y0 + 1) <= 64.0)) {
    const auto n = static_cast<std::uint32_t>(size());
    nearRun(
        x.data(), y.data(), reach.data(), 0, n, fx, fy, ours,
        [&](std::uint32_t i) { out.push_back(node[i]); }, [&](std::uint32_t i) { drop(node[i]); });
    return n;
  }
  std::size_t tested = 0;
  const auto test = [&](std::uint32_t sphere) {
    const std::uint32_t at = sphere < entryOf.size() ? entryOf[sphere] : kNoIndex;
    if (at == kNoIndex) return;
    ++tested;
    if (mayReach(x[at], y[at], reach[at], fx, fy, ours))
      out.push_back(sphere);
    else
      drop(sphere);
  };
  // A column's cells have consecutive keys, so one search finds the column's first and a forward read
  // the rest.
  for (std::int64_t cx = cells.x0; cx <= cells.x1; ++cx) {
    const std::uint64_t last = cellKey(cx, cells.y1);
    auto it = std::lower_bound(cellKeys.begin(), cellKeys.end(), cellKey(cx, cells.y0));
    for (; it != cellKeys.end() && *it <= last; ++it) {
      const std::uint32_t sphere = cellNodes[std::size_t(it - cellKeys.begin())];
      if (sphere < changed.size() && changed[sphere]) continue;  // tested from `recent` below
      test(sphere);
    }
  }
  for (const std::uint32_t sphere : recent) test(sphere);
  return tested;
}

// Keeps a root child's entry in top_ in step with its bound (after a link or a new bound).
void SphereTree::syncTop(std::uint32_t n) {
  if (topIndex_.size() < spheres_.size()) topIndex_.resize(spheres_.size(), kNoIndex);
  const SphereNode& node = spheres_[n];
  if (node.parent == kRoot) top_.place(topIndex_[n], n, node.x, node.y, node.radius);
}

// The top level's grid cell: twice the largest top-level bound, so that a point's neighbours lie in the
// cells around its own.
double SphereTree::topCellSize() const {
  return 2.0 * (limitOf(topLevel_) + gravity_);
}

// ---------------------------------------------------------------------------------------------------------
// The query layout
// ---------------------------------------------------------------------------------------------------------

std::size_t QueryLayout::near(double qx, double qy, double within, std::vector<std::uint32_t>& out) const {
  out.clear();
  const float fx = float(qx), fy = float(qy), ours = queryShare(fx, fy, float(within));
  std::size_t tested = 0;
  const auto none = [](std::uint32_t) {};
  // The entries of [b, e) that may reach, then the rows of each.
  const auto run = [&](std::uint32_t b, std::uint32_t e) {
    tested += e - b;
    nearRun(
        topX.data(), topY.data(), topReach.data(), b, e, fx, fy, ours,
        [&](std::uint32_t at) {
          tested += rowBegin[at + 1] - rowBegin[at];
          nearRun(
              x.data(), y.data(), reach.data(), rowBegin[at], rowBegin[at + 1], fx, fy, ours,
              [&](std::uint32_t row) { out.push_back(node[row]); }, none);
        },
        none);
  };
  if (cell > 0.0) {
    const CellRange cells = cellsNear(qx, qy, within, widestTop, cell);
    if (columns > 0) {
      // A column's cells hold consecutive entries: the cell table gives the run of each.
      const std::int64_t c0 = std::max(cells.x0, firstColumn),
                         c1 = std::min(cells.x1, firstColumn + columns - 1);
      const std::int64_t r0 = std::max(cells.y0, firstRow), r1 = std::min(cells.y1, firstRow + rows - 1);
      if (r0 <= r1) {
        for (std::int64_t cx = c0; cx <= c1; ++cx) {
          const std::size_t at = std::size_t((cx - firstColumn) * rows);
          run(cellStart[at + std::size_t(r0 - firstRow)], cellStart[at + std::size_t(r1 - firstRow) + 1]);
        }
      }
      return tested;
    }
    if (cells.x1 - cells.x0 < 8) {
      // A column's cells have consecutive keys: one search finds its first entry.
      for (std::int64_t cx = cells.x0; cx <= cells.x1; ++cx) {
        const auto b = std::lower_bound(keys.begin(), keys.end(), cellKey(cx, cells.y0));
        const auto e = std::upper_bound(b, keys.end(), cellKey(cx, cells.y1));
        run(static_cast<std::uint32_t>(b - keys.begin()), static_cast<std::uint32_t>(e - keys.begin()));
      }
      return tested;
    }
  }
  run(0, static_cast<std::uint32_t>(topX.size()));
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

}  // namespace st::sphere_tree
