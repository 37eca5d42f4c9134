#pragma once
// Query helpers for one grid: which cells a box or a thick segment can reach, and how to visit the occupied
// ones among them.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "spheretest/spatial_index.hpp"
#include "structures/shared/bvh_pruning.hpp"

#include "grid_cell_mapping.hpp"
#include "grid_cell_table.hpp"
#include "structures/shared/segment_box.hpp"

namespace st::grid_detail {

/// Squared distance from a point to a box, in double.
inline double distanceSquaredToBox(double px, double py, double x0, double y0, double x1, double y1) {
  const double dx = px < x0 ? x0 - px : (px > x1 ? px - x1 : 0.0);
  const double dy = py < y0 ? y0 - py : (py > y1 ? py - y1 : 0.0);
  return dx * dx + dy * dy;
}

/// Per row of cells, the columns a thick segment can touch: calls fn(row, firstColumn, lastColumn) for each
/// row of `rows`. `reach` is how far from the segment a centre of interest may lie. Conservative: widened by
/// half a cell plus slack on every side, so rounding can only add columns; the clamped first and last rows
/// take every y beyond them.
template <class Fn>
void forEachRowOfSegment(const CellMapping& map, const Segment& s, double reach, std::int32_t rowFirst,
                         std::int32_t rowLast, Fn&& fn) {
  const double ax = s.start.x, ay = s.start.y, bx = s.end.x, by = s.end.y;
  const double dy = by - ay;
  const double pad =
      reach + map.size * 0.5 + (std::fabs(ax) + std::fabs(bx) + std::fabs(ay) + std::fabs(by)) * kRangeSlack;
  for (std::int64_t row = rowFirst; row <= rowLast; ++row) {
    // The band of y values whose centres land in this row, widened by the reach.
    const double bandLo = row == -kCellLimit ? -kInfinity : double(row) * map.size - pad;
    const double bandHi = row == kCellLimit ? kInfinity : double(row + 1) * map.size + pad;
    double t0 = 0.0, t1 = 1.0;
    if (dy == 0.0) {
      if (ay < bandLo || ay > bandHi) continue;
    } else {
      double ta = (bandLo - ay) / dy, tb = (bandHi - ay) / dy;
      if (ta > tb) std::swap(ta, tb);
      t0 = std::max(t0, ta);
      t1 = std::min(t1, tb);
      if (t0 > t1) continue;
    }
    const double xa = ax + (bx - ax) * t0, xb = ax + (bx - ax) * t1;
    const double lo = std::min(xa, xb) - pad, hi = std::max(xa, xb) + pad;
    fn(static_cast<std::int32_t>(row), map.cellOf(lo), map.cellOf(hi));
  }
}

/// A cell's region in world coordinates, widened by far more than the rounding of the membership test
/// (floor(v * inverse) can place a centre a few ulps outside the nominal box). The clamped columns and rows
/// (+-kCellLimit) hold every centre beyond them, so on that side the region is unbounded.
struct CellBounds {
  double x0 = 0;  ///< left
  double y0 = 0;  ///< bottom
  double x1 = 0;  ///< right
  double y1 = 0;  ///< top
};

/// The widened region of cell (x, y).
inline CellBounds cellBounds(const CellMapping& map, std::int32_t x, std::int32_t y) {
  const double m = (std::max(std::fabs(double(x)), std::fabs(double(y))) + 2.0) * map.size * 1e-9;
  return {x == -kCellLimit ? -kInfinity : map.cellMin(x) - m,
          y == -kCellLimit ? -kInfinity : map.cellMin(y) - m,
          x == kCellLimit ? kInfinity : map.cellMin(x) + map.size + m,
          y == kCellLimit ? kInfinity : map.cellMin(y) + map.size + m};
}

/// Whether a cell's region widened by `reach` may meet the segment (slab clipping in double, conservative).
inline bool cellMayMeetSegment(const CellMapping& map, std::int32_t x, std::int32_t y, const Segment& s,
                               double reach) {
  const CellBounds cell = cellBounds(map, x, y);
  const double pad =
      reach * (1.0 + kRangeSlack) +
      (std::fabs(s.start.x) + std::fabs(s.start.y) + std::fabs(s.end.x) + std::fabs(s.end.y)) * kRangeSlack;
  return segmentMeetsBox(s, cell.x0 - pad, cell.y0 - pad, cell.x1 + pad, cell.y1 + pad, 1e-12);
}

/// Calls fn(slot) for every occupied cell of `table` in `range`: by lookup when the range is small, by
/// walking the table when the range holds more cells than are occupied. A `fn` that returns bool stops the
/// visit by returning false (a callback query whose caller has what it needs). Returns the cells looked up,
/// empty ones included (a lookup that finds nothing still costs a probe), or the occupied cells the walk
/// checked.
template <class Fn>
std::uint64_t visitRange(const CellTable& table, const CellRange& range, Fn&& fn) {
  const auto goOn = [&fn](std::uint32_t slot) {
    if constexpr (std::is_same_v<decltype(fn(slot)), bool>) {
      return fn(slot);
    } else {
      fn(slot);
      return true;
    }
  };
  if (range.count() > 2.0 * double(table.used()) + 16.0) {
    for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
      if (table.occupied(slot) && range.contains(table[slot].x, table[slot].y) && !goOn(slot)) break;
    }
    return table.used();
  }
  for (std::int64_t y = range.y0; y <= range.y1; ++y) {
    for (std::int64_t x = range.x0; x <= range.x1; ++x) {
      const std::uint32_t slot = table.find(static_cast<std::int32_t>(x), static_cast<std::int32_t>(y));
      if (slot != kNoIndex && !goOn(slot))
        return static_cast<std::uint64_t>((y - range.y0) * (std::int64_t(range.x1) - range.x0 + 1) +
                                          (x - range.x0) + 1);
    }
  }
  return static_cast<std::uint64_t>(range.count());
}

/// Visits the occupied cells of the segment's rows within `range` (the segment widened by `reach`, row by
/// row) when they number at most 2 x the occupied cells + 64, adds the cells looked up (empty ones
/// included) to `lookedUp` and returns true; returns false without visiting when there would be more (a
/// long segment over a sparse table: the caller scans the table). `rows` is the caller's scratch.
template <class Visit>
bool visitSegmentRows(const CellTable& table, const CellMapping& map, const Segment& segment, double reach,
                      const CellRange& range, std::vector<CellRange>& rows, std::uint64_t& lookedUp,
                      Visit&& visit) {
  const double budget = 2.0 * double(table.used()) + 64.0;
  if (double(range.y1) - range.y0 + 1 > budget) return false;
  rows.clear();
  double cellsToVisit = 0.0;
  forEachRowOfSegment(map, segment, reach, range.y0, range.y1,
                      [&](std::int32_t row, std::int32_t a, std::int32_t b) {
                        a = std::max(a, range.x0);
                        b = std::min(b, range.x1);
                        if (a > b) return;
                        rows.push_back({a, row, b, row});
                        cellsToVisit += double(b) - a + 1;
                      });
  if (cellsToVisit > budget) return false;
  lookedUp += static_cast<std::uint64_t>(cellsToVisit);
  for (const CellRange& r : rows) {
    for (std::int64_t x = r.x0; x <= r.x1; ++x) {
      const std::uint32_t slot = table.find(static_cast<std::int32_t>(x), r.y0);
      if (slot != kNoIndex) visit(slot);
    }
  }
  return true;
}

/// Calls visit(slot) for every occupied cell that may hold the centre of a circle of radius <= `reach`
/// the segment meets, and prune(slot) for occupied cells of the segment's bounding range it skips. Walks
/// the rows the thick segment crosses, each over the columns it can touch there, or the occupied cells when
/// that would enumerate more cells than are occupied. `rows` is the caller's scratch. Returns the cells
/// looked up, empty ones included, or the occupied cells the walk checked.
template <class Visit, class Prune>
std::uint64_t visitSegmentCells(const CellTable& table, const CellMapping& map, const Segment& segment,
                                double reach, std::vector<CellRange>& rows, Visit&& visit, Prune&& prune) {
  const double loX = std::min(segment.start.x, segment.end.x), hiX = std::max(segment.start.x, segment.end.x);
  const double loY = std::min(segment.start.y, segment.end.y), hiY = std::max(segment.start.y, segment.end.y);
  const CellRange range = centreRange(map, loX, loY, hiX, hiY, reach);
  std::uint64_t lookedUp = 0;
  if (visitSegmentRows(table, map, segment, reach, range, rows, lookedUp, visit)) return lookedUp;
  for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
    if (!table.occupied(slot) || !range.contains(table[slot].x, table[slot].y)) continue;
    if (cellMayMeetSegment(map, table[slot].x, table[slot].y, segment, reach)) {
      visit(slot);
    } else {
      prune(slot);
    }
  }
  return table.used();
}

/// Whether every circle whose centre lies in `cell` and whose radius is at most `reach` lies outside the
/// cone: the cell's circumscribed circle grown by `reach` does. Cells unbounded on a side (the clamped
/// edges) are never ruled out.
inline bool cellOutsideCone(const bvh::ConeClassifier& classifier, const CellBounds& cell, double reach) {
  if (!std::isfinite(cell.x0) || !std::isfinite(cell.y0) || !std::isfinite(cell.x1) ||
      !std::isfinite(cell.y1))
    return false;
  return classifier.classifyBox(cell.x0, cell.y0, cell.x1, cell.y1, reach) == bvh::Side::Outside;
}

/// The calling thread's scratch for the rows a segment query walks: queries stay const and re-entrant
/// without allocating each time.
inline std::vector<CellRange>& segmentRowScratch() {
  thread_local std::vector<CellRange> rows;
  return rows;
}

/// The calling thread's scratch for the candidates a segment query gathers before removing repeats.
inline std::vector<ItemId>& rayCandidateScratch() {
  thread_local std::vector<ItemId> ids;
  return ids;
}

/// Node info of a cell, for tracing and drawing.
inline NodeInfo cellInfo(const CellMapping& map, std::int32_t x, std::int32_t y, int depth,
                         std::uint32_t items) {
  NodeInfo info;
  info.shape = NodeShape::Box;
  info.box = {{static_cast<float>(map.cellMin(x)), static_cast<float>(map.cellMin(y))},
              {static_cast<float>(map.cellMin(x) + map.size), static_cast<float>(map.cellMin(y) + map.size)}};
  info.depth = depth;
  info.itemCount = items;
  return info;
}

}  // namespace st::grid_detail
