#pragma once
// How a grid turns a coordinate into a cell index, and the cell size and hash window it derives from its
// items.
//
// Exactness rests on one property: a cell index is floor(v * inverse) computed in double and clamped, which
// is monotone in v. A range of centres [lo, hi] therefore maps to the cell range [cellOf(lo), cellOf(hi)],
// and any centre inside the range lands inside the cell range, whatever the rounding.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "spheretest/spatial_index.hpp"

#include "structures/shared/simd_support.hpp"

namespace st::grid_detail {

/// Cell coordinates are clamped to +-kCellLimit so that neighbour offsets never overflow 32 bits.
inline constexpr std::int32_t kCellLimit = 1 << 30;
/// Edge of the clamped cells on their open side.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Cell sizes are padded by this factor so that items exactly as large as the reference reach one cell,
/// not two, even after the rounding of the index computation.
inline constexpr double kCellPadding = 1.0 + 0x1.0p-12;
/// Slack in cell units added to every reach computation: bounds the double rounding of two cell indices.
inline constexpr double kIndexSlack = 1e-6;
/// Relative widening of query ranges, far above the rounding of the double predicates.
inline constexpr double kRangeSlack = 1e-7;

/// A square cell size and the mapping from coordinates to clamped integer cell indices.
struct CellMapping {
  double size = 1.0;     ///< cell edge length
  double inverse = 1.0;  ///< 1 / size (or a power-of-two scaling of a finer level's inverse)

  /// Cell index of a coordinate: floor(v * inverse), monotone, clamped to +-kCellLimit. The floor is done
  /// by hand because baseline x86-64 has no rounding instruction and std::floor would be a library call.
  std::int32_t cellOf(double v) const {
    const double t = v * inverse;
    if (t >= double(kCellLimit)) return kCellLimit;
    if (!(t > -double(kCellLimit))) return -kCellLimit;
    const std::int32_t truncated = static_cast<std::int32_t>(t);
    return truncated - (double(truncated) > t ? 1 : 0);
  }
  /// The cell of a point: (cellOf(x), cellOf(y)), both at once (the same products, clamps and floor, so
  /// the same cells), for the loops that place every item each frame.
  void cellOf(Vec2 p, std::int32_t& cx, std::int32_t& cy) const { cellOf(double(p.x), double(p.y), cx, cy); }
  /// The same for a point given in double.
  void cellOf(double px, double py, std::int32_t& cx, std::int32_t& cy) const {
    const simd::IntW4 cells = cellLanes(simd::setD2(px, py));
    cx = simd::lane<0>(cells);
    cy = simd::lane<1>(cells);
  }
  /// cellOf of both lanes of `v` (a column and a row), into integer lanes 0 and 1.
  simd::IntW4 cellLanes(simd::DoubleW2 v) const {
    const simd::DoubleW2 t = simd::mul(v, simd::splatD2(inverse));
    // max(t, lo) returns lo for a NaN, as the scalar version does; then the upper clamp.
    const simd::DoubleW2 clamped =
        simd::min(simd::max(t, simd::splatD2(-double(kCellLimit))), simd::splatD2(double(kCellLimit)));
    return simd::floorToInt(clamped);
  }
  /// Lower edge of a cell in world coordinates (for drawing and pruning, not for membership).
  double cellMin(std::int32_t c) const { return double(c) * size; }
  /// How many cells apart two centres at most `distance` apart can land (at least 1).
  int reachFor(double distance) const {
    const double cells = std::ceil(distance * inverse * (1.0 + 1e-12) + kIndexSlack);
    return cells < 1.0 ? 1 : (cells > 1e6 ? 1000000 : static_cast<int>(cells));
  }
};

/// An inclusive rectangle of cell indices.
struct CellRange {
  std::int32_t x0 = 0;   ///< first column
  std::int32_t y0 = 0;   ///< first row
  std::int32_t x1 = -1;  ///< last column
  std::int32_t y1 = -1;  ///< last row
  /// Number of cells (as double: ranges can be astronomically large).
  double count() const { return (double(x1) - x0 + 1) * (double(y1) - y0 + 1); }
  /// Whether a cell lies inside.
  bool contains(std::int32_t x, std::int32_t y) const { return x0 <= x && x <= x1 && y0 <= y && y <= y1; }
};

/// The cells that may hold the centre of any item within `reach` (world units) of the box [lo, hi].
inline CellRange centreRange(const CellMapping& map, double loX, double loY, double hiX, double hiY,
                             double reach) {
  const double slackX = (std::fabs(loX) + std::fabs(hiX) + reach) * kRangeSlack + 1e-30;
  const double slackY = (std::fabs(loY) + std::fabs(hiY) + reach) * kRangeSlack + 1e-30;
  return {map.cellOf(loX - reach - slackX), map.cellOf(loY - reach - slackY),
          map.cellOf(hiX + reach + slackX), map.cellOf(hiY + reach + slackY)};
}

/// The cell size and hash window a grid derives from its items and parameters.
struct GridShape {
  CellMapping map;                 ///< cell size (padded) and its inverse
  std::int32_t originX = 0;        ///< first column of the hash window
  std::int32_t originY = 0;        ///< first row of the hash window
  std::uint32_t windowWidth = 0;   ///< window columns
  std::uint32_t windowHeight = 0;  ///< window rows
  double largestDiameter = 0.0;    ///< the reference diameter (largest among the items)
  double extent = 0.0;             ///< largest absolute centre coordinate
  Box region;                      ///< the region the window covers (the hint, else the items' span)
};

/// Makes the hash window of `shape` the cells of `region` (for its cell size) plus one cell of margin.
inline void setWindow(GridShape& shape, const Box& region) {
  const std::int64_t x0 = std::int64_t(shape.map.cellOf(region.min.x)) - 1,
                     y0 = std::int64_t(shape.map.cellOf(region.min.y)) - 1;
  const std::int64_t x1 = std::int64_t(shape.map.cellOf(region.max.x)) + 1,
                     y1 = std::int64_t(shape.map.cellOf(region.max.y)) + 1;
  shape.originX = static_cast<std::int32_t>(std::max<std::int64_t>(x0, -kCellLimit));
  shape.originY = static_cast<std::int32_t>(std::max<std::int64_t>(y0, -kCellLimit));
  shape.windowWidth =
      static_cast<std::uint32_t>(std::min<std::int64_t>(x1 - shape.originX + 1, std::int64_t(1) << 31));
  shape.windowHeight =
      static_cast<std::uint32_t>(std::min<std::int64_t>(y1 - shape.originY + 1, std::int64_t(1) << 31));
}

/// Cell size = `cellSize` if positive, else `cellScale` x the largest diameter; items that are all points
/// get about one item per cell over their span. The window is the region `hint` (else the items' span)
/// with one cell of margin. The cell is never so small that the items' extent leaves the index clamp.
inline GridShape shapeFor(std::span<const Item> items, double cellSize, double cellScale,
                          const std::optional<Box>& hint) {
  GridShape shape;
  double extent = 0.0;
  Box span = items.empty() ? Box{} : Box{items[0].circle.center, items[0].circle.center};
  for (const Item& item : items) {
    shape.largestDiameter = std::max(shape.largestDiameter, 2.0 * double(item.circle.radius));
    extent =
        std::max({extent, std::fabs(double(item.circle.center.x)), std::fabs(double(item.circle.center.y))});
    span = boxUnion(span, Box{item.circle.center, item.circle.center});
  }
  double cell = cellSize > 0.0 ? cellSize : cellScale * shape.largestDiameter;
  if (cell <= 0.0) {
    const double side = std::max(double(span.max.x) - span.min.x, double(span.max.y) - span.min.y);
    cell = side > 0.0 ? side / std::sqrt(double(items.size())) : 1.0;
  }
  cell = std::max({cell, extent * 0x1.0p-28, 1e-30});
  shape.map.size = cell * kCellPadding;
  shape.map.inverse = 1.0 / shape.map.size;
  shape.extent = extent;
  shape.region = hint ? *hint : span;
  setWindow(shape, shape.region);
  return shape;
}

}  // namespace st::grid_detail
