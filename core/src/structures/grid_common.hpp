#pragma once
// Machinery shared by the grid family (grid, grid-replicated, hgrid): how a coordinate becomes a cell index,
// the open-addressing table from cell coordinates to the head of a cell's list, and one level of hashed grid
// whose lists live in a single node array that a counting sort can lay out cell by cell.
//
// Exactness rests on one property: a cell index is floor(v * inverse) computed in double and clamped, which
// is monotone in v. A range of centres [lo, hi] therefore maps to the cell range [cellOf(lo), cellOf(hi)],
// and any centre inside the range lands inside the cell range, whatever the rounding.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spheretest/large_pages.hpp"
#include "spheretest/spatial_index.hpp"

#include "pair_output.hpp"
#include "simd_support.hpp"

namespace st::grid_detail {

using simd::widestVectorLanes;

/// The wide_vectors parameter of the grids with sorted cells.
inline ParamInfo wideVectorsParam() {
  return {"wide_vectors",
          "1: the vector loops (pair pre-test, run-start pass) run 16 lanes of AVX-512 where the CPU has it; "
          "0: 4 lanes of SSE2. The results are the same",
          1.0,
          0.0,
          1.0,
          true};
}

/// The lanes a wide_vectors setting runs on this CPU.
inline int vectorLanesFor(double wideVectors) {
  return wideVectors >= 1.0 ? widestVectorLanes() : 4;
}

/// Marks "no node" in links and lookups.
inline constexpr std::uint32_t kNone = 0xffffffffu;
/// Id stored in a dead node (on the free list); never a valid item id since ids are < 2^27.
inline constexpr ItemId kDeadId = 0xffffffffu;
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

/// splitmix64 finaliser: the hash of cells outside the window.
inline std::uint64_t mixBits(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/// Grows a vector's capacity to hold `n` (exactly the first time, with a sixteenth to spare when it has to
/// grow again) rather than by resize()'s doubling: the grids keep pairs of large buffers, so capacity
/// beyond need is memory held for nothing.
template <class T, class Allocator>
void reserveClose(std::vector<T, Allocator>& v, std::size_t n) {
  if (v.capacity() >= n) return;
  std::vector<T, Allocator> grown;
  grown.reserve(v.capacity() == 0 ? n : n + n / 16);
  grown.assign(v.begin(), v.end());
  v.swap(grown);
}

/// Whether an update batch of `batch` items takes a grid's whole-frame path: it moves at least the grid's
/// `rebuild_fraction` of its items.
inline bool wholeFrameBatch(const SpatialIndex& grid, std::size_t batch) {
  return batch > 0 && grid.size() > 0 &&
         double(batch) / double(grid.size()) >= grid.param("rebuild_fraction");
}

/// Smallest power of two >= n (n >= 1).
inline std::size_t nextPowerOfTwo(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/// Sorts entries by their high 32 bits, keeping the order of equal keys: a least-significant-digit radix
/// sort over as many 11-bit digits as the largest key needs, through `scratch`. A busy frame's refile
/// sorts tens of thousands of moves, on which a comparison sort spends most of a millisecond.
inline void sortByHighWord(std::vector<std::uint64_t>& entries, std::vector<std::uint64_t>& scratch) {
  constexpr int kDigitBits = 11;
  constexpr std::uint32_t kDigitMask = (1u << kDigitBits) - 1u;
  std::uint64_t largest = 0;
  for (const std::uint64_t e : entries) largest = std::max(largest, e >> 32);
  scratch.resize(entries.size());
  for (int shift = 32; shift < 64 && (largest >> (shift - 32)) != 0; shift += kDigitBits) {
    std::uint32_t starts[kDigitMask + 1] = {};
    for (const std::uint64_t e : entries) ++starts[(e >> shift) & kDigitMask];
    std::uint32_t sum = 0;
    for (std::uint32_t& start : starts) {
      const std::uint32_t count = start;
      start = sum;
      sum += count;
    }
    for (const std::uint64_t e : entries) scratch[starts[(e >> shift) & kDigitMask]++] = e;
    entries.swap(scratch);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Cell mapping
// ---------------------------------------------------------------------------------------------------------

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
  /// The cell of a point: (cellOf(x), cellOf(y)), both at once where SSE2 allows (the same products,
  /// clamps and floor, so the same cells), for the loops that place every item each frame.
  void cellOf(Vec2 p, std::int32_t& cx, std::int32_t& cy) const { cellOf(double(p.x), double(p.y), cx, cy); }
  /// The same for a point given in double.
  void cellOf(double px, double py, std::int32_t& cx, std::int32_t& cy) const {
#if defined(__SSE2__)
    const __m128d t = _mm_mul_pd(_mm_set_pd(py, px), _mm_set1_pd(inverse));
    // max(t, lo) returns lo for a NaN, as the scalar version does; then the upper clamp.
    const __m128d clamped =
        _mm_min_pd(_mm_max_pd(t, _mm_set1_pd(-double(kCellLimit))), _mm_set1_pd(double(kCellLimit)));
    const __m128i truncated = _mm_cvttpd_epi32(clamped);
    const __m128i above = _mm_castpd_si128(_mm_cmpgt_pd(_mm_cvtepi32_pd(truncated), clamped));
    // The comparison's 64-bit all-ones lanes hold -1 in their low 32 bits: gather those two words.
    const __m128i floored = _mm_add_epi32(truncated, _mm_shuffle_epi32(above, _MM_SHUFFLE(3, 3, 2, 0)));
    cx = _mm_cvtsi128_si32(floored);
    cy = _mm_cvtsi128_si32(_mm_shuffle_epi32(floored, _MM_SHUFFLE(3, 2, 1, 1)));
#else
    cx = cellOf(px);
    cy = cellOf(py);
#endif
  }
  /// Lower edge of a cell in world coordinates (for drawing and pruning, not for membership).
  double cellMin(std::int32_t c) const {
    return double(c) * size;
  }
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

// ---------------------------------------------------------------------------------------------------------
// Cell table: integer cell coordinates -> the cell's items
// ---------------------------------------------------------------------------------------------------------

/// Column value of an empty slot; cell coordinates are clamped to +-kCellLimit and never reach it.
inline constexpr std::int32_t kEmptyKey = std::numeric_limits<std::int32_t>::min();

/// The key of one slot of the open-addressing table: the cell it holds.
struct CellKey {
  std::int32_t x = kEmptyKey;  ///< cell column; kEmptyKey marks an empty slot
  std::int32_t y = 0;          ///< cell row
};
static_assert(sizeof(CellKey) == 8, "the table is the grid's largest cost after the nodes");

/// Linear-probing hash table keyed by cell coordinates, with one sentinel slot after the last. Its home
/// function keeps space coherent: the cells of a window (the region the items occupy, as the owner
/// declares it) map one to one, row by row, onto the first slots, so inside the window there is no
/// collision at all, a neighbour's home is a fixed offset from the cell's own, and walking the slots walks
/// space. Cells outside the window (all cells when the window does not fit the table, as for a level too
/// sparse for its region) are spread by a mixing hash. The owner can switch the window off altogether (a
/// scrambled table) if probing ever degrades. Each slot also holds a head (sorted layout: the start of the
/// cell's run; linked layout: its first node), kept in an array of its own: busy frames shift and scan the
/// heads of every slot, and the keys only where a cell appears or goes.
class CellTable {
 public:
  /// Empties the table and sizes it for `expectedCells` at a load of about two thirds, and for at least
  /// `minimumSlots` slots (so that the window fits).
  void reset(std::size_t expectedCells, std::size_t minimumSlots = 0) {
    const std::size_t want = slotsFor(expectedCells, minimumSlots);
    if (want + 1 != keys_.size()) {
      LargeVector<CellKey>().swap(keys_);
      LargeVector<std::uint32_t>().swap(heads_);
      keys_.resize(want + 1);
      heads_.resize(want + 1);
      configureShape();
    } else {
      std::fill(keys_.begin(), keys_.end(), CellKey{});
      std::fill(heads_.begin(), heads_.end(), 0u);
    }
    used_ = 0;
    outside_ = 0;
    probes_ = 0;
  }
  /// The table size reset() picks.
  static std::size_t slotsFor(std::size_t expectedCells, std::size_t minimumSlots) {
    return nextPowerOfTwo(std::max<std::size_t>({16, expectedCells + expectedCells / 2, minimumSlots}));
  }
  /// Releases all memory.
  void release() {
    LargeVector<CellKey>().swap(keys_);
    LargeVector<std::uint32_t>().swap(heads_);
    used_ = 0;
    outside_ = 0;
    probes_ = 0;
    mask_ = 0;
    width_ = height_ = 0;
  }

  /// Occupied slots (= occupied cells).
  std::size_t used() const { return used_; }
  /// Number of slots (the sentinel not included).
  std::size_t capacity() const { return keys_.empty() ? 0 : keys_.size() - 1; }
  /// Bytes held.
  std::size_t memoryBytes() const {
    return keys_.capacity() * sizeof(CellKey) + heads_.capacity() * sizeof(std::uint32_t);
  }
  /// Probe steps of insertions since the last reset (a measure of collisions).
  std::uint64_t probes() const { return probes_; }
  /// Whether the scrambled (space-incoherent) hash is in use.
  bool scrambled() const { return scrambled_; }
  /// Chooses the hash: the window of cells [originX, originX + width) x [originY, originY + height) mapped
  /// row by row, or none when `scrambled`. Only valid right before a reset().
  void configureHash(bool scrambled, std::int32_t originX, std::int32_t originY, std::uint32_t width,
                     std::uint32_t height) {
    scrambled_ = scrambled;
    originX_ = static_cast<std::uint32_t>(originX);
    originY_ = static_cast<std::uint32_t>(originY);
    wantWidth_ = scrambled ? 0 : width;
    wantHeight_ = scrambled ? 0 : height;
    if (!keys_.empty()) configureShape();
  }
  /// Cells of the window as declared (it is used only when the table has room for all of them).
  std::size_t windowCells() const { return std::size_t(wantWidth_) * wantHeight_; }
  /// Whether `extra` more insertions would push the load past 80%.
  bool nearlyFull(std::size_t extra = 1) const {
    return keys_.empty() || (used_ + extra) * 5 > capacity() * 4;
  }
  /// Whether the table is more than twice as large as its content (and `minimumSlots`) needs.
  bool oversized(std::size_t minimumSlots = 0) const {
    return capacity() > 2 * slotsFor(used_, minimumSlots);
  }

  /// Whether a slot holds a cell.
  bool occupied(std::uint32_t slot) const { return keys_[slot].x != kEmptyKey; }
  /// The cell a slot holds (the sentinel is at capacity()).
  const CellKey& operator[](std::uint32_t slot) const { return keys_[slot]; }
  /// A slot's head (the sentinel is at capacity()).
  std::uint32_t& head(std::uint32_t slot) { return heads_[slot]; }
  /// A slot's head (the sentinel is at capacity()).
  std::uint32_t head(std::uint32_t slot) const { return heads_[slot]; }
  /// Every slot's head, in table order, sentinel last.
  std::uint32_t* heads() { return heads_.data(); }
  /// Every slot's head, in table order, sentinel last.
  const std::uint32_t* heads() const { return heads_.data(); }

  /// The slot holding cell (x, y), or kNone.
  std::uint32_t find(std::int32_t x, std::int32_t y) const {
    if (keys_.empty()) return kNone;
    return findFrom(home(x, y), x, y);
  }
  /// Like find, with the home slot already known.
  std::uint32_t findFrom(std::uint32_t i, std::int32_t x, std::int32_t y) const {
    while (true) {
      const CellKey& s = keys_[i];
      if (s.x == x && s.y == y) return i;
      if (s.x == kEmptyKey) return kNone;
      i = (i + 1) & mask_;
    }
  }

  /// The slot of cell (x, y), claiming an empty one (head = `initialHead`) when absent. The caller must
  /// have checked nearlyFull() and grown first; slot indices stay valid until the next grow or erase.
  std::uint32_t findOrInsert(std::int32_t x, std::int32_t y, std::uint32_t initialHead) {
    std::uint32_t i = home(x, y);
    while (true) {
      CellKey& s = keys_[i];
      if (s.x == x && s.y == y) return i;
      if (s.x == kEmptyKey) {
        s = {x, y};
        heads_[i] = initialHead;
        ++used_;
        outside_ += inWindow(x, y) ? 0 : 1;
        return i;
      }
      ++probes_;
      i = (i + 1) & mask_;
    }
  }

  /// Puts the window cell whose home is `slot` into it (only when windowOnly() and the slot is empty, so
  /// that no probe run passes through), leaving the slot's head as it is.
  void claimHome(std::uint32_t slot) {
    keys_[slot].x = static_cast<std::int32_t>(originX_ + slot % width_);
    keys_[slot].y = static_cast<std::int32_t>(originY_ + slot / width_);
    ++used_;
  }
  /// Empties a slot claimed as by claimHome (no probe run can pass through it), leaving its head.
  void releaseHome(std::uint32_t slot) {
    keys_[slot] = CellKey{};
    --used_;
  }

  /// Counts one more item of cell (x, y) while heads are counters (during a sort); returns the slot.
  std::uint32_t countInto(std::int32_t x, std::int32_t y) {
    const std::uint32_t h = home(x, y);
    const CellKey& s = keys_[h];
    if (s.x == x && s.y == y) {
      ++heads_[h];
      return h;
    }
    const std::uint32_t slot = findOrInsert(x, y, 0);
    ++heads_[slot];
    return slot;
  }
  /// Occupied cells from which nearlyFull() holds.
  std::size_t fullAt() const { return capacity() * 4 / 5; }

  /// Doubles the table, keeping every cell (and its head); invalidates slot indices.
  void grow() {
    LargeVector<CellKey> oldKeys;
    LargeVector<std::uint32_t> oldHeads;
    oldKeys.swap(keys_);
    oldHeads.swap(heads_);
    const std::size_t want = std::max<std::size_t>(16, 2 * (oldKeys.empty() ? 0 : oldKeys.size() - 1));
    keys_.assign(want + 1, CellKey{});
    heads_.assign(want + 1, 0u);
    configureShape();
    used_ = 0;
    outside_ = 0;
    for (std::size_t i = 0; i + 1 < oldKeys.size(); ++i) {
      if (oldKeys[i].x != kEmptyKey) findOrInsert(oldKeys[i].x, oldKeys[i].y, oldHeads[i]);
    }
  }

  /// Empties a slot, shifting later members of its probe run back so that lookups stay correct.
  void erase(std::uint32_t slot) {
    outside_ -= inWindow(keys_[slot].x, keys_[slot].y) ? 0 : 1;
    std::uint32_t hole = slot;
    std::uint32_t i = (slot + 1) & mask_;
    while (keys_[i].x != kEmptyKey) {
      const std::uint32_t h = home(keys_[i].x, keys_[i].y);
      // Move the entry into the hole unless its home lies cyclically in (hole, i].
      if (((i - h) & mask_) >= ((i - hole) & mask_)) {
        keys_[hole] = keys_[i];
        heads_[hole] = heads_[i];
        hole = i;
      }
      i = (i + 1) & mask_;
    }
    keys_[hole] = CellKey{};
    heads_[hole] = 0;
    --used_;
  }

  /// Whether a cell lies in the window (as it fits the table).
  bool inWindow(std::int32_t x, std::int32_t y) const {
    return static_cast<std::uint32_t>(x) - originX_ < width_ &&
           static_cast<std::uint32_t>(y) - originY_ < height_;
  }
  /// Whether every cell lies in the window: the window's slots then form a dense row-major grid in which
  /// every cell sits at its home (window cells never collide with each other).
  bool windowOnly() const { return outside_ == 0 && width_ > 0; }
  /// Window width in cells (the row pitch of its slots).
  std::uint32_t windowWidth() const { return width_; }
  /// Window height in cells.
  std::uint32_t windowHeight() const { return height_; }

  /// Home slot of a cell.
  std::uint32_t home(std::int32_t x, std::int32_t y) const {
    const std::uint32_t ux = static_cast<std::uint32_t>(x) - originX_,
                        uy = static_cast<std::uint32_t>(y) - originY_;
    if (ux < width_ && uy < height_) return uy * width_ + ux;
    return static_cast<std::uint32_t>(mixBits((std::uint64_t(uy) << 32) | ux) >> 20) & mask_;
  }

  /// Home of the first of `width` cells (x .. x + width - 1, y) and whether their homes are consecutive
  /// slots (the common case: all inside one row of the window).
  std::uint32_t rowHome(std::int32_t x, std::int32_t y, int width, bool& consecutive) const {
    const std::uint32_t ux = static_cast<std::uint32_t>(x) - originX_,
                        uy = static_cast<std::uint32_t>(y) - originY_;
    consecutive = uy < height_ && ux < width_ && width_ - ux >= std::uint32_t(width);
    return home(x, y);
  }

 private:
  void configureShape() {
    const std::size_t slotCount = keys_.size() - 1;
    mask_ = static_cast<std::uint32_t>(slotCount - 1);
    // A window cut down to the table would fill its first slots densely and make every cell outside it
    // probe through them: it is used whole or not at all.
    const bool fits = std::size_t(wantWidth_) * wantHeight_ <= slotCount;
    width_ = fits ? wantWidth_ : 0;
    height_ = fits ? wantHeight_ : 0;
  }

  LargeVector<CellKey> keys_;
  LargeVector<std::uint32_t> heads_;
  std::uint32_t mask_ = 0;
  std::uint32_t originX_ = 0;
  std::uint32_t originY_ = 0;
  std::uint32_t wantWidth_ = 0;  // window as declared
  std::uint32_t wantHeight_ = 0;
  std::uint32_t width_ = 0;  // window in use (empty when it does not fit the table)
  std::uint32_t height_ = 0;
  std::size_t used_ = 0;
  std::size_t outside_ = 0;  // occupied cells outside the window
  std::uint64_t probes_ = 0;
  bool scrambled_ = false;
};

// ---------------------------------------------------------------------------------------------------------
// One level of hashed grid: cell table + lists in one node array
// ---------------------------------------------------------------------------------------------------------

/// One stored item: a copy of its circle, so that scans never leave the array.
struct Node {
  Circle circle;        ///< the item's circle as stored
  ItemId id = kDeadId;  ///< the item, kDeadId when the node is free
};
static_assert(sizeof(Node) == 16, "four nodes per cache line: the pair scan streams them");

/// A node pool: large, and read at random by the id gathers, so kept on huge pages where offered.
using NodeArray = LargeVector<Node>;

/// How many nodes ahead the gathers below fetch an item-table entry.
inline constexpr std::size_t kGatherAhead = 64;

/// Starts loading the item-table entry of the node kGatherAhead places after `n`. Nodes are in spatial
/// order and ids are spread over space, so re-reading the circles of the nodes is one cache miss per node;
/// fetching ahead keeps many of them in flight. An entry (12 bytes) straddles two cache lines one time in
/// five, and the second line would then miss: both ends are fetched. Always inlined: a call to a function
/// that only prefetches has no visible effect, and the compiler is free to drop it.
[[gnu::always_inline]] inline void prefetchItemAhead(const SpatialIndex& index, const NodeArray& nodes,
                                                     std::size_t n) {
  if (n + kGatherAhead < nodes.size() && nodes[n + kGatherAhead].id < index.idCapacity()) {
    const char* entry = reinterpret_cast<const char*>(&index.circle(nodes[n + kGatherAhead].id));
    __builtin_prefetch(entry);
    __builtin_prefetch(entry + sizeof(Circle) - 1);
  }
}

/// Re-reads every live node's circle from the item table of `index`, in a loop of its own so that many of
/// the gathers' cache misses are in flight at once.
inline void refreshCircles(const SpatialIndex& index, NodeArray& nodes) {
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    prefetchItemAhead(index, nodes, n);
    if (nodes[n].id < index.idCapacity()) nodes[n].circle = index.circle(nodes[n].id);
  }
}

/// Where a node's centre was and is, in cells (refile's report of one node).
struct CellMove {
  std::int32_t fromX = 0;  ///< column before
  std::int32_t fromY = 0;  ///< row before
  std::int32_t toX = 0;    ///< column now
  std::int32_t toY = 0;    ///< row now
};

/// What refile's refresh made of one node.
enum class NodeChange {
  Stayed,  ///< still in the same cell
  Moved,   ///< in another cell, which the CellMove names
  Refused  ///< cannot stay in these lists (the caller re-sorts)
};

/// Whether `before` and `after` lie in different cells; when they do, `move` receives both cells. The two
/// cells are computed together where SSE2 allows (the products, clamps and floor of CellMapping::cellOf,
/// so the same cells), and compared without taking them apart: busy frames do this for every node.
inline bool cellChanged(const CellMapping& map, Vec2 before, Vec2 after, CellMove& move) {
#if defined(__SSE2__)
  const __m128d inverse = _mm_set1_pd(map.inverse);
  const __m128d low = _mm_set1_pd(-double(kCellLimit)), high = _mm_set1_pd(double(kCellLimit));
  // Column in lane 0 and row in lane 1.
  auto cellLanes = [&](Vec2 p) {
    const __m128d t = _mm_mul_pd(_mm_cvtps_pd(_mm_setr_ps(p.x, p.y, 0.0f, 0.0f)), inverse);
    const __m128d clamped = _mm_min_pd(_mm_max_pd(t, low), high);
    const __m128i truncated = _mm_cvttpd_epi32(clamped);
    const __m128i above = _mm_castpd_si128(_mm_cmpgt_pd(_mm_cvtepi32_pd(truncated), clamped));
    return _mm_add_epi32(truncated, _mm_shuffle_epi32(above, _MM_SHUFFLE(3, 3, 2, 0)));
  };
  const __m128i was = cellLanes(before), now = cellLanes(after);
  if ((_mm_movemask_epi8(_mm_cmpeq_epi32(was, now)) & 0xff) == 0xff) return false;
  move.fromX = _mm_cvtsi128_si32(was);
  move.fromY = _mm_cvtsi128_si32(_mm_shuffle_epi32(was, _MM_SHUFFLE(3, 2, 1, 1)));
  move.toX = _mm_cvtsi128_si32(now);
  move.toY = _mm_cvtsi128_si32(_mm_shuffle_epi32(now, _MM_SHUFFLE(3, 2, 1, 1)));
  return true;
#else
  move = {map.cellOf(before.x), map.cellOf(before.y), map.cellOf(after.x), map.cellOf(after.y)};
  return move.fromX != move.toX || move.fromY != move.toY;
#endif
}

/// The carry pass of a refile over run starts [from, count - 1), `shift` being the net arrivals into the
/// slots before `from`: adds to each start the net arrivals into earlier slots (`change`, a signed byte per
/// slot), sets the sentinel heads[count - 1], and appends to `flipped` (at `listed`) the slots
/// whose run became empty or stopped being empty; returns the new length of the list. Branch-free: the
/// flips follow the movers, in no pattern a predictor could learn.
inline std::size_t carryRunStartsFrom(std::uint32_t* heads, const std::uint8_t* change, std::uint32_t count,
                                      std::uint32_t* flipped, std::size_t listed, std::uint32_t from,
                                      std::uint32_t shift) {
  std::uint32_t oldStart = heads[from];
  for (std::uint32_t slot = from; slot + 1 < count; ++slot) {
    const std::uint32_t oldNext = heads[slot + 1], newStart = oldStart + shift;
    shift += static_cast<std::uint32_t>(std::int32_t{static_cast<std::int8_t>(change[slot])});
    heads[slot] = newStart;
    flipped[listed] = slot;
    listed += ((oldStart == oldNext) != (newStart == oldNext + shift)) ? 1 : 0;
    oldStart = oldNext;
  }
  heads[count - 1] = oldStart + shift;
  return listed;
}

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN
/// carryRunStartsFrom(heads, change, count, flipped, 0, 0, 0) sixteen slots at a time (AVX-512): the net
/// changes summed across the lanes in four steps, the flipped slots packed into the list. `flipped` must
/// have room for 16 entries past the last it receives.
[[gnu::target("avx512f")]] inline std::size_t carryRunStartsWide(std::uint32_t* heads,
                                                                 const std::uint8_t* change,
                                                                 std::uint32_t count,
                                                                 std::uint32_t* flipped) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i laneIndex = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i lastLane = _mm512_set1_epi32(15);
  __m512i carry = zero;
  std::size_t listed = 0;
  std::uint32_t slot = 0;
  // Each step also reads the start after its sixteen, which the sentinel guarantees.
  for (; slot + 16 < count; slot += 16) {
    const __m512i net =
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(change + slot)));
    // Inclusive sums across the lanes: lane i plus lanes i - 1, i - 2 .. i - 15.
    __m512i through = _mm512_add_epi32(net, _mm512_alignr_epi32(net, zero, 15));
    through = _mm512_add_epi32(through, _mm512_alignr_epi32(through, zero, 14));
    through = _mm512_add_epi32(through, _mm512_alignr_epi32(through, zero, 12));
    through = _mm512_add_epi32(through, _mm512_alignr_epi32(through, zero, 8));
    const __m512i before = _mm512_sub_epi32(through, net);
    const __m512i oldStart = _mm512_loadu_si512(heads + slot), oldNext = _mm512_loadu_si512(heads + slot + 1);
    const __m512i newStart = _mm512_add_epi32(oldStart, _mm512_add_epi32(carry, before));
    const __m512i newNext = _mm512_add_epi32(oldNext, _mm512_add_epi32(carry, through));
    _mm512_storeu_si512(heads + slot, newStart);
    const __mmask16 flips = static_cast<__mmask16>(_mm512_cmpeq_epi32_mask(oldStart, oldNext) ^
                                                   _mm512_cmpeq_epi32_mask(newStart, newNext));
    const __m512i slots = _mm512_add_epi32(laneIndex, _mm512_set1_epi32(static_cast<int>(slot)));
    _mm512_storeu_si512(flipped + listed, _mm512_maskz_compress_epi32(flips, slots));
    listed += static_cast<unsigned>(__builtin_popcount(flips));
    carry = _mm512_add_epi32(carry, _mm512_permutexvar_epi32(lastLane, through));
  }
  return carryRunStartsFrom(heads, change, count, flipped, listed, slot,
                            static_cast<std::uint32_t>(_mm512_cvtsi512_si32(carry)));
}
SPHERETEST_WIDE_CODE_END
#endif

/// List links of a node, kept apart from the nodes because the sorted layout does not need them.
struct Link {
  std::uint32_t next = kNone;  ///< next node of the same cell (or of the free list)
  std::uint32_t prev = kNone;  ///< previous node of the same cell; kNone for the head
};

/// The lists of a hashed grid. Each cell's items form a list threaded through one node array. Two
/// layouts: sorted (after a counting sort: every list is a run of consecutive nodes, runs in table order,
/// and every slot, empty ones and the sentinel included, holds the start of its run, so a cell's run is
/// [head(s), head(s + 1)) and no links are needed), and linked (after single-item edits: heads point to
/// the first node and the Link array threads the rest, prev links making unlinking O(1)). Which cell a
/// node belongs to is decided by the owner: the centre cell (grid, hgrid) or one of several covered cells
/// (grid-replicated).
class CellLists {
 public:
  /// The table.
  CellTable& table() { return table_; }
  /// The table.
  const CellTable& table() const { return table_; }
  /// The node array (free nodes included in the linked layout).
  NodeArray& nodes() { return nodes_; }
  /// The node array (free nodes included in the linked layout).
  const NodeArray& nodes() const { return nodes_; }
  /// Live nodes.
  std::size_t liveNodes() const { return live_; }
  /// Whether the layout is sorted (runs) rather than linked.
  bool sorted() const { return sorted_; }
  /// Bytes held.
  std::size_t memoryBytes() const {
    return (nodes_.capacity() + spare_.capacity()) * sizeof(Node) + links_.capacity() * sizeof(Link) +
           (leavers_.capacity() + sortScratch_.capacity()) * sizeof(std::uint64_t) +
           flipped_.capacity() * sizeof(std::uint32_t) + table_.memoryBytes();
  }

  /// Drops everything and releases memory.
  void release() {
    NodeArray().swap(nodes_);
    NodeArray().swap(spare_);
    std::vector<Link>().swap(links_);
    std::vector<std::uint64_t>().swap(leavers_);
    std::vector<std::uint64_t>().swap(sortScratch_);
    std::vector<std::uint32_t>().swap(flipped_);
    table_.release();
    freeHead_ = kNone;
    live_ = 0;
    sorted_ = true;
  }

  /// Calls fn(node) for every node of the cell in `slot` (occupied), in either layout.
  template <class Fn>
  void forEachInCell(std::uint32_t slot, Fn&& fn) const {
    if (sorted_) {
      const std::uint32_t end = table_.head(slot + 1);
      for (std::uint32_t n = table_.head(slot); n < end; ++n) fn(n);
    } else {
      for (std::uint32_t n = table_.head(slot); n != kNone; n = links_[n].next) fn(n);
    }
  }
  /// Number of items in the cell of `slot` (occupied).
  std::uint32_t cellSize(std::uint32_t slot) const {
    if (sorted_) return table_.head(slot + 1) - table_.head(slot);
    std::uint32_t count = 0;
    for (std::uint32_t n = table_.head(slot); n != kNone; n = links_[n].next) ++count;
    return count;
  }

  /// Adds a node for `id` at the head of cell (x, y); returns the node.
  std::uint32_t link(std::int32_t x, std::int32_t y, ItemId id, const Circle& c) {
    ensureLinked();
    if (table_.nearlyFull()) table_.grow();
    std::uint32_t node;
    if (freeHead_ != kNone) {
      node = freeHead_;
      freeHead_ = links_[node].next;
    } else {
      node = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{});
      links_.push_back(Link{});
    }
    nodes_[node] = Node{c, id};
    attach(x, y, node);
    ++live_;
    return node;
  }

  /// Takes a node out of cell (x, y)'s list (it must be there) and frees it.
  void unlink(std::int32_t x, std::int32_t y, std::uint32_t node) {
    ensureLinked();
    detach(x, y, node);
    nodes_[node].id = kDeadId;
    links_[node] = Link{freeHead_, kNone};
    freeHead_ = node;
    --live_;
  }

  /// Moves a node from cell (x0, y0) to the head of cell (x1, y1), keeping its index.
  void relink(std::int32_t x0, std::int32_t y0, std::int32_t x1, std::int32_t y1, std::uint32_t node) {
    ensureLinked();
    detach(x0, y0, node);
    if (table_.nearlyFull()) table_.grow();
    attach(x1, y1, node);
  }

  /// The node of `id` in cell (x, y), or kNone (walks that cell's list).
  std::uint32_t findInCell(std::int32_t x, std::int32_t y, ItemId id) const {
    const std::uint32_t slot = table_.find(x, y);
    if (slot == kNone) return kNone;
    std::uint32_t found = kNone;
    forEachInCell(slot, [&](std::uint32_t n) {
      if (nodes_[n].id == id) found = n;
    });
    return found;
  }

  /// Lays the lists out sorted: a counting sort of the live nodes by the table slot of the cell
  /// `cellOf(node, index, x, y)` names, in a freshly reset table, scattered into the spare array (which is
  /// then swapped in). `cellOf` may refresh the node's circle, and may return false to drop a live node
  /// (its item left this grid); their ids end up in `departed`. Walking the nodes in their previous
  /// order keeps every table access and the scatter nearly sequential. `scratch` holds one word per node
  /// (the caller's reusable buffer). Returns false if the space-coherent hash collided badly (the caller
  /// then switches to the scrambled hash and calls again).
  template <class CellOfNode>
  bool sort(CellOfNode&& cellOf, std::size_t expectedCells, std::vector<std::uint32_t>& scratch,
            std::vector<ItemId>& departed) {
    departed.clear();
    const std::size_t total = nodes_.size();
    if (scratch.size() < total) scratch.resize(total);
    std::uint32_t* slotOf = scratch.data();
    // Room for the whole window unless it would cost more than a slot per item.
    const std::size_t minimumSlots = std::min(table_.windowCells(), total + total / 8);
    table_.reset(expectedCells, minimumSlots);
    Node* nodes = nodes_.data();
    std::size_t kept = 0;
    std::int32_t lastX = kEmptyKey, lastY = 0;
    std::uint32_t lastSlot = 0;
    for (std::size_t i = 0; i < total; ++i) {
      std::int32_t x = 0, y = 0;
      if (nodes[i].id == kDeadId || !cellOf(nodes[i], i, x, y)) {
        if (nodes[i].id != kDeadId) departed.push_back(nodes[i].id);
        slotOf[i] = kNone;
        continue;
      }
      if (table_.nearlyFull()) {
        // More cells than estimated: size for one cell per node and count again.
        return sort(cellOf, std::max(total, table_.capacity()), scratch, departed);
      }
      // Consecutive nodes mostly share a cell (the previous order is by cell): skip the table then.
      if (x != lastX || y != lastY) {
        lastSlot = table_.findOrInsert(x, y, 0);
        lastX = x;
        lastY = y;
      }
      ++table_.head(lastSlot);
      slotOf[i] = lastSlot;
      ++kept;
    }
    if (!table_.scrambled() && table_.probes() > 8 * kept + 4096) return false;
    if (table_.oversized(minimumSlots) && expectedCells > table_.used()) {
      // The estimate was far too high: count again in a table of the right size.
      return sort(cellOf, table_.used(), scratch, departed);
    }
    shiftCountsToStarts();
    reserveClose(spare_, kept);
    spare_.resize(kept);
    Node* out = spare_.data();
    std::uint32_t* heads = table_.heads();
    for (std::size_t i = 0; i < total; ++i) {
      const std::uint32_t slot = slotOf[i];
      if (slot == kNone) continue;
      out[heads[slot + 1]++] = nodes[i];
    }
    nodes_.swap(spare_);
    freeHead_ = kNone;
    live_ = kept;
    sorted_ = true;
    return true;
  }

  /// Sorted layout with every cell at its home in the window (table().windowOnly()): refreshes the nodes
  /// and moves only those whose cell changed. `refresh(node, index, move)` updates a node (its circle) and
  /// says what became of it (NodeChange), naming the cells in `move` when it moved. Nodes that
  /// keep their cell keep their order; the others join the end of their new cell's run. Returns the number
  /// of nodes moved, or -1 when a node was refused, its new cell lies outside the window or more than 127
  /// nodes arrive in one cell: the lists are then unchanged (some nodes already refreshed) and the caller
  /// re-sorts. `movers` is the caller's buffer.
  template <class Refresh>
  std::ptrdiff_t refile(Refresh&& refresh, std::vector<std::uint64_t>& movers, int lanes) {
    movers.clear();
    leavers_.clear();
    if (!sorted_ || !table_.windowOnly()) return -1;
    Node* nodes = nodes_.data();
    const std::uint32_t total = static_cast<std::uint32_t>(nodes_.size());
    // Pass 1, one flat sweep: the nodes that left their cell, as leavers (node high, old slot low; found in
    // node order) and as arrivals (new slot high, node low; sorted below, which orders them by slot and,
    // within a slot, by their previous place).
    for (std::uint32_t n = 0; n < total; ++n) {
      CellMove move;
      const NodeChange change = refresh(nodes[n], n, move);
      if (change == NodeChange::Stayed) continue;
      if (change == NodeChange::Refused || !table_.inWindow(move.toX, move.toY)) return -1;
      leavers_.push_back((std::uint64_t(n) << 32) | table_.home(move.fromX, move.fromY));
      movers.push_back((std::uint64_t(table_.home(move.toX, move.toY)) << 32) | n);
    }
    if (movers.empty()) return 0;
    sortByHighWord(movers, sortScratch_);
    std::uint32_t* heads = table_.heads();
    const std::uint32_t headCount = static_cast<std::uint32_t>(table_.capacity() + 1);
    const std::size_t moved = movers.size();
    auto arrivalSlot = [&](std::size_t k) { return static_cast<std::uint32_t>(movers[k] >> 32); };
    auto leaverNode = [&](std::size_t k) { return static_cast<std::uint32_t>(leavers_[k] >> 32); };
    auto leaverSlot = [&](std::size_t k) { return static_cast<std::uint32_t>(leavers_[k]); };
    // The run starts are shifted below by each slot's net arrivals, tallied in a signed byte: that holds
    // when no cell gains more than 127 nodes or loses more than 128 in one batch. A collapse beyond that
    // (not a drift) leaves the lists unchanged for the caller's re-sort. Both lists are in slot order.
    auto longestRun = [&](auto slotOf) {
      std::size_t longest = 0, run = 0;
      for (std::size_t k = 0; k < moved; ++k) {
        run = k > 0 && slotOf(k) == slotOf(k - 1) ? run + 1 : 1;
        longest = std::max(longest, run);
      }
      return longest;
    };
    if (longestRun(arrivalSlot) > 127 || longestRun(leaverSlot) > 128) return -1;
    // Pass 2, the merge: the node array is copied in spans between events, an arrival being inserted
    // where its new run ended and a leaver skipped.
    reserveClose(spare_, nodes_.size());
    spare_.resize(nodes_.size());
    Node* out = spare_.data();
    constexpr std::uint64_t kNever = ~std::uint64_t{0};
    std::size_t a = 0, l = 0;
    std::uint32_t read = 0, written = 0;
    constexpr std::size_t kAhead =
        16;  // arrivals are sparse in both arrays: fetch their slots and nodes early
    for (;;) {
      if (a + kAhead < moved) {
        __builtin_prefetch(&heads[arrivalSlot(a + kAhead) + 1]);
        __builtin_prefetch(nodes + static_cast<std::uint32_t>(movers[a + kAhead]));
      }
      const std::uint64_t arrivalAt = a < moved ? heads[arrivalSlot(a) + 1] : kNever;
      const std::uint64_t leaverAt = l < moved ? leaverNode(l) : kNever;
      const auto stop = static_cast<std::uint32_t>(std::min({arrivalAt, leaverAt, std::uint64_t(total)}));
      std::copy(nodes + read, nodes + stop, out + written);
      written += stop - read;
      read = stop;
      if (arrivalAt == stop) {
        out[written++] = nodes[static_cast<std::uint32_t>(movers[a++])];
      } else if (leaverAt == stop) {
        ++read;
        ++l;
      } else {
        break;
      }
    }
    nodes_.swap(spare_);
    // Run starts: each shifts by the arrivals into earlier slots less the leavers from earlier slots (a
    // leaver's node lies in the run of its old slot), the shift kept modulo 2^32 like the starts. The net
    // arrivals of every slot are tallied a byte each in the spare buffer, free again now.
    const std::size_t tallyNodes = (std::size_t{headCount} + sizeof(Node) - 1) / sizeof(Node);
    if (spare_.size() < tallyNodes) spare_.resize(tallyNodes);
    auto* change = reinterpret_cast<std::uint8_t*>(spare_.data());
    std::memset(change, 0, headCount);
    for (std::size_t k = 0; k < moved; ++k) ++change[arrivalSlot(k)];
    for (std::size_t k = 0; k < moved; ++k) --change[leaverSlot(k)];
    // A cell whose run was empty (the sorted layout keeps no empty cell, so it was absent) takes its home
    // slot once nodes arrive; one left empty gives its slot up.
    flipped_.resize(2 * moved + 16);
    std::size_t flips = 0;
#if SPHERETEST_WIDE_LANES
    if (lanes >= 16 && widestVectorLanes() >= 16) {
      flips = carryRunStartsWide(heads, change, headCount, flipped_.data());
    } else
#endif
    {
      flips = carryRunStartsFrom(heads, change, headCount, flipped_.data(), 0, 0, 0);
    }
    (void)lanes;
    for (std::size_t k = 0; k < flips; ++k) {
      const std::uint32_t slot = flipped_[k];
      if (heads[slot] == heads[slot + 1]) {
        table_.releaseHome(slot);
      } else {
        table_.claimHome(slot);
      }
    }
    return static_cast<std::ptrdiff_t>(moved);
  }

  /// Lays out, sorted, one node per (item, covered cell) for the items of `stage` (fresh circles, in the
  /// order to keep, normally spatial): `covered(node, range)` names the inclusive cell range an item is
  /// stored in (at most 255 cells). A counting sort over the generated nodes, scattered into the spare
  /// array; `scratch` and `copies` are the caller's reusable buffers (a slot per node, a count per item).
  /// `edges`, when given, receives one byte per laid-out node: bit 0 set in the first column of its item's
  /// range, bit 1 in the first row (`edgeScratch` is its reusable per-copy buffer).
  template <class Covered>
  void fillCovered(const NodeArray& stage, Covered&& covered, std::size_t expectedCells,
                   std::vector<std::uint32_t>& scratch, std::vector<std::uint8_t>& copies,
                   std::vector<std::uint8_t>* edges = nullptr,
                   std::vector<std::uint8_t>* edgeScratch = nullptr) {
    const std::size_t minimumSlots = std::min(table_.windowCells(), stage.size() * 2);
    table_.reset(expectedCells, minimumSlots);
    copies.resize(stage.size());
    reserveClose(scratch, live_ + 64);
    if (edgeScratch && edgeScratch->size() < scratch.size()) edgeScratch->resize(scratch.size());
    std::size_t entries = 0;
    for (std::size_t i = 0; i < stage.size(); ++i) {
      CellRange r;
      covered(stage[i], r);
      const std::size_t count = std::size_t(r.count());
      if (table_.used() + count >= table_.fullAt()) {
        // More cells than estimated: size for four cells per item and count again.
        return fillCovered(stage, covered, std::max(stage.size() * 4, table_.capacity()), scratch, copies,
                           edges, edgeScratch);
      }
      if (scratch.size() < entries + count) {
        reserveClose(scratch, entries + count + stage.size() - i);
        scratch.resize(scratch.capacity());
        if (edgeScratch) edgeScratch->resize(scratch.size());
      }
      for (std::int32_t y = r.y0; y <= r.y1; ++y) {
        for (std::int32_t x = r.x0; x <= r.x1; ++x) {
          if (edgeScratch) (*edgeScratch)[entries] = std::uint8_t((x == r.x0 ? 1 : 0) | (y == r.y0 ? 2 : 0));
          scratch[entries++] = table_.countInto(x, y);
        }
      }
      copies[i] = static_cast<std::uint8_t>(count);
    }
    shiftCountsToStarts();
    std::uint32_t* heads = table_.heads();
    reserveClose(spare_, entries);
    spare_.resize(entries);
    if (edges) {
      reserveClose(*edges, entries);
      edges->resize(entries);
    }
    std::size_t e = 0;
    for (std::size_t i = 0; i < stage.size(); ++i) {
      for (std::uint32_t k = copies[i]; k > 0; --k, ++e) {
        const std::uint32_t at = heads[scratch[e] + 1]++;
        spare_[at] = stage[i];
        if (edges) (*edges)[at] = (*edgeScratch)[e];
      }
    }
    nodes_.swap(spare_);
    freeHead_ = kNone;
    live_ = entries;
    sorted_ = true;
  }

  /// Checks the lists against the table: every cell findable from its home and non-empty, every live
  /// node in exactly one list, runs or links consistent. Returns "" or the first problem.
  std::string checkLayout() const {
    std::size_t listed = 0;
    std::vector<std::uint8_t> seen(nodes_.size(), 0);
    const std::uint32_t slotCount = static_cast<std::uint32_t>(table_.capacity());
    if (sorted_ && slotCount > 0) {
      for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
        if (table_.head(slot + 1) < table_.head(slot)) return "run starts decrease along the table";
        if (!table_.occupied(slot) && table_.head(slot + 1) != table_.head(slot))
          return "an empty slot owns nodes";
      }
      if (table_.head(slotCount) != nodes_.size()) return "the sentinel does not close the last run";
    }
    for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
      if (!table_.occupied(slot)) continue;
      const CellKey& s = table_[slot];
      if (table_.find(s.x, s.y) != slot)
        return "cell (" + std::to_string(s.x) + ", " + std::to_string(s.y) + ") is not findable";
      if (cellSize(slot) == 0) return "a cell with no items is kept";
      std::string problem;
      std::uint32_t prev = kNone;
      forEachInCell(slot, [&](std::uint32_t n) {
        if (!problem.empty()) return;
        if (n >= nodes_.size())
          problem = "a list points outside the node array";
        else if (seen[n]++)
          problem = "node " + std::to_string(n) + " is listed twice";
        else if (nodes_[n].id == kDeadId)
          problem = "a free node is listed in a cell";
        else if (!sorted_ && links_[n].prev != prev)
          problem = "node " + std::to_string(n) + " has a wrong back link";
        prev = n;
        ++listed;
      });
      if (!problem.empty()) return problem;
    }
    if (listed != live_)
      return std::to_string(listed) + " nodes listed but " + std::to_string(live_) + " live";
    if (!sorted_) {
      std::size_t freeCount = 0;
      for (std::uint32_t n = freeHead_; n != kNone; n = links_[n].next) {
        if (n >= nodes_.size() || nodes_[n].id != kDeadId || ++freeCount > nodes_.size())
          return "the free list is broken";
      }
      if (freeCount + live_ != nodes_.size()) return "nodes are neither live nor free";
    } else if (live_ != nodes_.size()) {
      return "the sorted layout holds free nodes";
    }
    return {};
  }

 private:
  /// Turns per-slot counts into run starts, shifted by one slot: the scatter then advances head(s + 1)
  /// through the run of s, which leaves every head(s) at the start of run s (and the sentinel at the end of
  /// the last run).
  void shiftCountsToStarts() {
    std::uint32_t* heads = table_.heads();
    std::uint32_t runStart = 0, previousStart = 0;
    for (std::size_t slot = 0; slot <= table_.capacity(); ++slot) {
      const std::uint32_t count = heads[slot];
      heads[slot] = previousStart;
      previousStart = runStart;
      runStart += count;
    }
  }

  /// Switches from the sorted to the linked layout by writing out the links the runs imply.
  void ensureLinked() {
    if (!sorted_) return;
    links_.resize(nodes_.size());
    const std::uint32_t slotCount = static_cast<std::uint32_t>(table_.capacity());
    for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
      const std::uint32_t begin = table_.head(slot), end = table_.head(slot + 1);
      for (std::uint32_t n = begin; n < end; ++n)
        links_[n] = Link{n + 1 < end ? n + 1 : kNone, n > begin ? n - 1 : kNone};
    }
    freeHead_ = kNone;
    sorted_ = false;
  }

  void attach(std::int32_t x, std::int32_t y, std::uint32_t node) {
    const std::uint32_t slot = table_.findOrInsert(x, y, kNone);
    const std::uint32_t oldHead = table_.head(slot);
    links_[node] = Link{oldHead, kNone};
    if (oldHead != kNone) links_[oldHead].prev = node;
    table_.head(slot) = node;
  }

  void detach(std::int32_t x, std::int32_t y, std::uint32_t node) {
    const Link l = links_[node];
    if (l.prev != kNone) {
      links_[l.prev].next = l.next;
    } else {
      const std::uint32_t slot = table_.find(x, y);
      if (l.next == kNone) {
        table_.erase(slot);
      } else {
        table_.head(slot) = l.next;
      }
    }
    if (l.next != kNone) links_[l.next].prev = l.prev;
  }

  CellTable table_;
  NodeArray nodes_;
  NodeArray spare_;                         // the other half of the sort's double buffer
  std::vector<Link> links_;                 // valid in the linked layout only
  std::vector<std::uint64_t> leavers_;      // refile's scratch
  std::vector<std::uint64_t> sortScratch_;  // the other half of refile's radix sort
  std::vector<std::uint32_t> flipped_;      // refile's slots whose cell came or went
  std::uint32_t freeHead_ = kNone;
  std::size_t live_ = 0;
  bool sorted_ = true;
};

// ---------------------------------------------------------------------------------------------------------
// Query helpers for one grid
// ---------------------------------------------------------------------------------------------------------

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
  const double lo[2] = {cell.x0 - pad, cell.y0 - pad};
  const double hi[2] = {cell.x1 + pad, cell.y1 + pad};
  const double from[2] = {s.start.x, s.start.y};
  const double d[2] = {double(s.end.x) - s.start.x, double(s.end.y) - s.start.y};
  double t0 = 0.0, t1 = 1.0;
  for (int axis = 0; axis < 2; ++axis) {
    if (d[axis] == 0.0) {
      if (from[axis] < lo[axis] || from[axis] > hi[axis]) return false;
      continue;
    }
    double ta = (lo[axis] - from[axis]) / d[axis], tb = (hi[axis] - from[axis]) / d[axis];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  return t0 <= t1 + 1e-12;
}

/// Calls fn(slot) for every occupied cell of `table` in `range`: by lookup when the range is small, by
/// walking the table when the range holds more cells than are occupied. Returns the cells looked up, empty
/// ones included (a lookup that finds nothing still costs a probe), or the occupied cells the walk checked.
template <class Fn>
std::uint64_t visitRange(const CellTable& table, const CellRange& range, Fn&& fn) {
  if (range.count() > 2.0 * double(table.used()) + 16.0) {
    for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
      if (table.occupied(slot) && range.contains(table[slot].x, table[slot].y)) fn(slot);
    }
    return table.used();
  }
  const auto lookedUp = static_cast<std::uint64_t>(range.count());
  for (std::int64_t y = range.y0; y <= range.y1; ++y) {
    for (std::int64_t x = range.x0; x <= range.x1; ++x) {
      const std::uint32_t slot = table.find(static_cast<std::int32_t>(x), static_cast<std::int32_t>(y));
      if (slot != kNone) fn(slot);
    }
  }
  return lookedUp;
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
      if (slot != kNone) visit(slot);
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

/// The occupied cells a grid's queries searched, kept for extra() beside nodesVisited (which counts every
/// cell looked up, empty ones included): their ratio shows how much of a lookup's work finds nothing.
struct OccupiedCellTally {
  std::uint64_t last = 0;     ///< searched by the last query
  std::uint64_t total = 0;    ///< searched by every query since the last build
  std::uint64_t queries = 0;  ///< queries since the last build

  /// Counts a finished query that searched `cells` occupied cells.
  void record(std::uint64_t cells) {
    last = cells;
    total += cells;
    ++queries;
  }
  /// Appends the figures to `out`.
  void report(ExtraCounters& out) const {
    out.push_back({"last_query_occupied_cells", double(last)});
    out.push_back({"occupied_cells_per_query", queries ? double(total) / double(queries) : 0.0});
  }
};

// ---------------------------------------------------------------------------------------------------------
// Pair output
// ---------------------------------------------------------------------------------------------------------

using pairs::kPretestFloor;
using pairs::kPretestScale;
using pairs::mayOverlap;
using pairs::PairWriter;

/// The pairs among a grid's oversize items (few by construction): each against every later one.
/// `circleOf(id)` gives an item's circle; every test counts as a candidate.
template <class CircleOf>
void oversizePairs(std::span<const ItemId> oversize, CircleOf&& circleOf, PairWriter& writer,
                   std::uint64_t& candidates) {
  for (std::size_t i = 0; i < oversize.size(); ++i) {
    for (std::size_t j = i + 1; j < oversize.size(); ++j) {
      ++candidates;
      if (circlesOverlap(circleOf(oversize[i]), circleOf(oversize[j]))) writer.add(oversize[i], oversize[j]);
    }
  }
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

// ---------------------------------------------------------------------------------------------------------
// Pair scans within one grid
// ---------------------------------------------------------------------------------------------------------

/// A run of consecutive nodes [begin, end).
struct NodeRun {
  std::uint32_t begin = 0;  ///< first node
  std::uint32_t end = 0;    ///< one past the last node
};

/// Largest pair reach in cells supported by the scans below.
inline constexpr int kMaxReach = 4;
/// Most runs one cell can be scanned against: one per cell of its forward half-neighbourhood.
inline constexpr int kMaxForwardRuns = kMaxReach + (2 * kMaxReach + 1) * kMaxReach;

/// Sorted layout: for the cell in `slot`, the runs its items must be tested against, namely the cells
/// within `reach` columns to its right in its own row and within `reach` columns either side in the
/// `reach` rows after it. `ownEnd` receives where the test of an item against the rest of its own cell
/// stops: the end of its run, or further when the cells to its right follow in the table (then one loop
/// covers them). Runs of consecutive slots are merged the same way. `visited` counts occupied cells.
inline int forwardRuns(const CellLists& lists, std::uint32_t slot, int reach, NodeRun* runs,
                       std::uint32_t& ownEnd, std::uint64_t& visited) {
  const CellTable& table = lists.table();
  const CellKey cell = table[slot];
  int count = 0;
  // Cells (x0 .. x0 + width - 1, y) as one run when their homes are consecutive slots holding nothing but
  // them (an empty home proves a cell absent); false when some other cell sits in between.
  auto asOneRun = [&](std::int32_t x0, std::int32_t y, int width, std::uint32_t& first) {
    bool consecutive = false;
    first = table.rowHome(x0, y, width, consecutive);
    if (!consecutive) return false;
    for (int j = 0; j < width; ++j) {
      const CellKey& s = table[first + j];
      if (s.x != kEmptyKey && (s.x != x0 + j || s.y != y)) return false;
    }
    for (int j = 0; j < width; ++j) visited += table.occupied(first + j) ? 1 : 0;
    return true;
  };
  auto lookupEach = [&](std::int32_t x0, std::int32_t y, int width) {
    for (int j = 0; j < width; ++j) {
      const std::uint32_t found = table.find(x0 + j, y);
      if (found == kNone) continue;
      runs[count++] = {table.head(found), table.head(found + 1)};
      ++visited;
    }
  };
  const std::int64_t left = std::int64_t(cell.x) - reach, right = std::int64_t(cell.x) + reach;
  const bool inRange = left >= -kCellLimit && right <= kCellLimit;
  // Own row: the cell itself and the `reach` cells to its right.
  std::uint32_t first = 0;
  if (inRange && asOneRun(cell.x, cell.y, reach + 1, first) && first == slot) {
    --visited;  // the cell itself was counted by asOneRun; the caller counts it
    ownEnd = table.head(slot + reach + 1);
  } else {
    ownEnd = table.head(slot + 1);
    if (right > kCellLimit) {
      lookupEach(cell.x + 1, cell.y, static_cast<int>(kCellLimit - cell.x));
    } else {
      lookupEach(cell.x + 1, cell.y, reach);
    }
  }
  // Rows below.
  for (int dy = 1; dy <= reach; ++dy) {
    const std::int64_t row = std::int64_t(cell.y) + dy;
    if (row > kCellLimit) break;
    const std::int32_t y = static_cast<std::int32_t>(row);
    if (inRange && asOneRun(static_cast<std::int32_t>(left), y, 2 * reach + 1, first)) {
      const std::uint32_t begin = table.head(first), end = table.head(first + 2 * reach + 1);
      if (begin != end) runs[count++] = {begin, end};
    } else {
      const std::int32_t x0 = static_cast<std::int32_t>(std::max<std::int64_t>(left, -kCellLimit));
      const std::int32_t x1 = static_cast<std::int32_t>(std::min<std::int64_t>(right, kCellLimit));
      lookupEach(x0, y, x1 - x0 + 1);
    }
  }
  return count;
}

#if defined(__SSE2__)
/// Four nodes transposed into lanes: centres, radii and where they start in the node array.
struct QuadGroup {
  __m128 x, y, r;       ///< coordinates and radii, one node per lane
  std::uint32_t first;  ///< node of lane 0
};

/// Loads four consecutive nodes (the caller guarantees they lie in the array).
inline QuadGroup loadQuad(const Node* nodes, std::uint32_t first) {
  __m128 n0 = _mm_loadu_ps(&nodes[first].circle.center.x),
         n1 = _mm_loadu_ps(&nodes[first + 1].circle.center.x);
  __m128 n2 = _mm_loadu_ps(&nodes[first + 2].circle.center.x),
         n3 = _mm_loadu_ps(&nodes[first + 3].circle.center.x);
  _MM_TRANSPOSE4_PS(n0, n1, n2, n3);
  return {n0, n1, n2, first};
}

/// Lanes of a group that pass the float pre-test against a circle, as a 4-bit mask.
inline unsigned pretestQuad(const QuadGroup& g, __m128 ax, __m128 ay, __m128 ar) {
  const __m128 dx = _mm_sub_ps(g.x, ax), dy = _mm_sub_ps(g.y, ay), reach = _mm_add_ps(g.r, ar);
  const __m128 d2 = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
  const __m128 limit = _mm_add_ps(_mm_mul_ps(_mm_mul_ps(reach, reach), _mm_set1_ps(kPretestScale)),
                                  _mm_set1_ps(kPretestFloor));
  return static_cast<unsigned>(_mm_movemask_ps(_mm_cmple_ps(d2, limit)));
}

/// The pre-test results of small cells, collected without a branch and tested exactly in bulk: about a
/// third of the nodes have a candidate, in no pattern a branch predictor could learn, so testing each as
/// it is found costs a mispredicted branch or two per node. A cell takes one entry, and only when one of
/// its pairs passed.
class CandidateQueue {
 public:
  /// Entries the queue holds before it must be flushed.
  static constexpr std::uint32_t kCapacity = 1024;

  /// Queues a cell's pre-test results, taking an entry only when `lanes` is not zero. Bit 16 i + j of
  /// `lanes` says that node `own + i` may overlap node `own + j` (j < 4) or node `below + j - 4`
  /// (4 <= j < 12).
  void push(std::uint32_t own, std::uint32_t below, std::uint64_t lanes) {
    entries_[count_] = {own, below, lanes};
    count_ += lanes != 0 ? 1u : 0u;
  }
  /// Whether the next push may not fit.
  bool full() const { return count_ + 1 >= kCapacity; }
  /// Tests every queued pair exactly, keeps the overlapping ones and empties the queue; returns how many
  /// it tested.
  std::uint64_t flush(const Node* nodes, PairWriter& writer) {
    std::uint64_t tested = 0;
    for (std::uint32_t k = 0; k < count_; ++k) {
      const Entry entry = entries_[k];
      writer.reserveMore(kMaxPairsPerEntry);
      for (std::uint64_t lanes = entry.lanes; lanes != 0; lanes &= lanes - 1) {
        const auto bit = static_cast<std::uint32_t>(__builtin_ctzll(lanes));
        const std::uint32_t lane = bit & 15u;
        const Node& a = nodes[entry.own + (bit >> 4)];
        const Node& b = nodes[lane < 4 ? entry.own + lane : entry.below + (lane - 4)];
        writer.addIf(circlesOverlap(a.circle, b.circle), a.id, b.id);
        ++tested;
      }
    }
    count_ = 0;
    return tested;
  }

 private:
  /// One cell's candidates.
  struct Entry {
    std::uint32_t own;    ///< first node of the cell
    std::uint32_t below;  ///< first node of the three runs below it
    std::uint64_t lanes;  ///< 12 bits per node of the cell, 16 apart
  };
  /// Most candidates one entry holds: four nodes, each against up to twelve.
  static constexpr std::size_t kMaxPairsPerEntry = 48;

  Entry entries_[kCapacity];
  std::uint32_t count_ = 0;
};

/// One cell's pairs when it is small: its own nodes and its right neighbour's, [begin, ownEnd), fit in one
/// group of four and the three runs below, [below, belowEnd), in two. Each group is loaded once per cell;
/// every node of the cell is pre-tested on all lanes at once (masked to the lanes that are real and, in its
/// own group, after it), and the cell's results are queued for the exact test.
inline void smallCellPairs(const Node* nodes, std::uint32_t begin, std::uint32_t end, std::uint32_t ownEnd,
                           std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer,
                           CandidateQueue& queue) {
  const QuadGroup own = loadQuad(nodes, begin);
  const QuadGroup low = loadQuad(nodes, below), high = loadQuad(nodes, below + 4);
  const unsigned ownLanes = (1u << (ownEnd - begin)) - 1u, belowLanes = (1u << (belowEnd - below)) - 1u;
  writer.countPretests(std::uint64_t(end - begin) * (belowEnd - below) + (end - begin) * (ownEnd - begin) -
                       (end - begin) * (end - begin + 1) / 2);
  std::uint64_t lanes = 0;
  for (std::uint32_t a = begin; a < end; ++a) {
    const Node& nodeA = nodes[a];
    const __m128 ax = _mm_set1_ps(nodeA.circle.center.x), ay = _mm_set1_ps(nodeA.circle.center.y);
    const __m128 ar = _mm_set1_ps(nodeA.circle.radius);
    const unsigned after = ownLanes & ~((2u << (a - begin)) - 1u);
    const unsigned mask =
        (pretestQuad(own, ax, ay, ar) & after) |
        (((pretestQuad(low, ax, ay, ar) | (pretestQuad(high, ax, ay, ar) << 4)) & belowLanes) << 4);
    lanes |= std::uint64_t(mask) << (16 * (a - begin));
  }
  queue.push(begin, below, lanes);
}

/// Most nodes busyCellPairs takes: its own run and its right neighbour's, plus the three runs below.
inline constexpr std::uint32_t kBusyLanes = 128;

/// Transposes the nodes [begin, ownEnd) and then [below, belowEnd) into lanes, followed by `padding` lanes
/// of NaN, which fails every pre-test.
inline void busyLanes(const Node* nodes, std::uint32_t begin, std::uint32_t ownEnd, std::uint32_t below,
                      std::uint32_t belowEnd, std::uint32_t padding, float* x, float* y, float* r) {
  std::uint32_t lane = 0;
  auto put = [&](const Circle& c) {
    x[lane] = c.center.x;
    y[lane] = c.center.y;
    r[lane] = c.radius;
    ++lane;
  };
  for (std::uint32_t n = begin; n < ownEnd; ++n) put(nodes[n].circle);
  for (std::uint32_t n = below; n < belowEnd; ++n) put(nodes[n].circle);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::uint32_t k = 0; k < padding; ++k) put({{nan, nan}, nan});
}

/// One cell's pairs when it is too full for smallCellPairs (clumps hold a few percent of the cells and a
/// third of the tests): the candidate runs [begin, ownEnd) and [below, belowEnd) are transposed into lanes
/// once, then every node of the cell is pre-tested against the lanes after it four at a time. Lanes past
/// the last hold NaN, which fails the pre-test, so no mask is needed. Returns false, doing nothing, when
/// the runs hold more than kBusyLanes nodes.
inline bool busyCellPairs(const Node* nodes, std::uint32_t begin, std::uint32_t end, std::uint32_t ownEnd,
                          std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer,
                          std::uint64_t& candidates) {
  const std::uint32_t ownCount = ownEnd - begin, total = ownCount + (belowEnd - below);
  if (total > kBusyLanes) return false;
  alignas(16) float x[kBusyLanes + 4], y[kBusyLanes + 4], r[kBusyLanes + 4];
  busyLanes(nodes, begin, ownEnd, below, belowEnd, 4, x, y, r);
  auto nodeOfLane = [&](std::uint32_t lane) {
    return lane < ownCount ? begin + lane : below + (lane - ownCount);
  };
  const __m128 scale = _mm_set1_ps(kPretestScale), floor = _mm_set1_ps(kPretestFloor);
  for (std::uint32_t i = 0; i < end - begin; ++i) {
    const Node& nodeA = nodes[begin + i];
    const __m128 ax = _mm_set1_ps(x[i]), ay = _mm_set1_ps(y[i]), ar = _mm_set1_ps(r[i]);
    writer.countPretests(total - i - 1);
    for (std::uint32_t first = i + 1; first < total; first += 4) {
      const __m128 dx = _mm_sub_ps(_mm_loadu_ps(x + first), ax), dy = _mm_sub_ps(_mm_loadu_ps(y + first), ay);
      const __m128 reach = _mm_add_ps(_mm_loadu_ps(r + first), ar);
      const __m128 d2 = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
      const __m128 limit = _mm_add_ps(_mm_mul_ps(_mm_mul_ps(reach, reach), scale), floor);
      unsigned mask = static_cast<unsigned>(_mm_movemask_ps(_mm_cmple_ps(d2, limit)));
      while (mask != 0) {
        const Node& nodeB = nodes[nodeOfLane(first + static_cast<unsigned>(__builtin_ctz(mask)))];
        mask &= mask - 1;
        ++candidates;
        if (circlesOverlap(nodeA.circle, nodeB.circle)) writer.add(nodeA.id, nodeB.id);
      }
    }
  }
  return true;
}
#endif

#if SPHERETEST_WIDE_LANES
SPHERETEST_WIDE_CODE_BEGIN
/// The exact test of one node against the 16 lanes `maybe` marks (survivors of the pre-test), in double
/// precision eight lanes at a time with the operations of circlesOverlap in its order (so the same answers),
/// the overlapping pairs packed into the output without a branch per lane.
[[gnu::target("avx512f"), gnu::always_inline]] inline void appendOverlapsWide(__mmask16 maybe, const Node& a,
                                                                              __m512 bx, __m512 by, __m512 br,
                                                                              __m512i idB,
                                                                              PairWriter& writer) {
  static_assert(sizeof(Pair) == 8 && offsetof(Pair, a) == 0, "a pair is the smaller id, then the larger");
  const __m512d ax = _mm512_set1_pd(a.circle.center.x), ay = _mm512_set1_pd(a.circle.center.y);
  const __m512d ar = _mm512_set1_pd(a.circle.radius);
  const __m512i idA = _mm512_set1_epi32(static_cast<int>(a.id));
  const __m512i low = _mm512_min_epu32(idA, idB), high = _mm512_max_epu32(idA, idB);
  writer.reserveMore(16);
  const __m256 halfX[2] = {_mm512_castps512_ps256(bx),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(bx), 1))};
  const __m256 halfY[2] = {_mm512_castps512_ps256(by),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(by), 1))};
  const __m256 halfR[2] = {_mm512_castps512_ps256(br),
                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(br), 1))};
  const __m256i halfLow[2] = {_mm512_castsi512_si256(low), _mm512_extracti64x4_epi64(low, 1)};
  const __m256i halfHigh[2] = {_mm512_castsi512_si256(high), _mm512_extracti64x4_epi64(high, 1)};
  for (int half = 0; half < 2; ++half) {
    const auto tested = static_cast<__mmask8>(maybe >> (8 * half));
    const __m512d dx = _mm512_sub_pd(ax, _mm512_cvtps_pd(halfX[half]));
    const __m512d dy = _mm512_sub_pd(ay, _mm512_cvtps_pd(halfY[half]));
    const __m512d reach = _mm512_add_pd(ar, _mm512_cvtps_pd(halfR[half]));
    const __m512d d2 = _mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy));
    const __mmask8 hits = _mm512_mask_cmp_pd_mask(tested, d2, _mm512_mul_pd(reach, reach), _CMP_LE_OQ);
    const __m512i pairs = _mm512_or_si512(_mm512_cvtepu32_epi64(halfLow[half]),
                                          _mm512_slli_epi64(_mm512_cvtepu32_epi64(halfHigh[half]), 32));
    // Packed in a register and stored whole: the memory form of the packing store is slow on some CPUs.
    _mm512_storeu_si512(writer.tail(), _mm512_maskz_compress_epi64(hits, pairs));
    writer.append(static_cast<unsigned>(__builtin_popcount(hits)));
  }
}

/// The lanes of one node against 16 lanes: which may overlap it (the float pre-test).
[[gnu::target("avx512f"), gnu::always_inline]] inline __mmask16 pretestWide(const Circle& a, __m512 bx,
                                                                            __m512 by, __m512 br) {
  const __m512 dx = _mm512_sub_ps(bx, _mm512_set1_ps(a.center.x));
  const __m512 dy = _mm512_sub_ps(by, _mm512_set1_ps(a.center.y));
  const __m512 reach = _mm512_add_ps(br, _mm512_set1_ps(a.radius));
  const __m512 d2 = _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dx, dx));
  const __m512 limit = _mm512_fmadd_ps(_mm512_mul_ps(reach, reach), _mm512_set1_ps(kPretestScale),
                                       _mm512_set1_ps(kPretestFloor));
  return _mm512_cmp_ps_mask(d2, limit, _CMP_LE_OQ);
}

/// Sixteen consecutive nodes transposed into lanes.
struct WideLanes {
  __m512 x, y, r;  ///< centres and radii, node k in lane k
  __m512i id;      ///< items
};

/// Loads and transposes the nodes [first, first + 16) (the caller guarantees they lie in the array): eight
/// permutes for the four fields of sixteen nodes.
[[gnu::target("avx512f"), gnu::always_inline]] inline WideLanes loadWideLanes(const Node* nodes,
                                                                              std::uint32_t first) {
  const float* f = &nodes[first].circle.center.x;
  const __m512 n0 = _mm512_loadu_ps(f), n1 = _mm512_loadu_ps(f + 16);
  const __m512 n2 = _mm512_loadu_ps(f + 32), n3 = _mm512_loadu_ps(f + 48);
  // x of eight nodes then their y; r then id.
  const __m512i xy = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i rid = _mm512_add_epi32(xy, _mm512_set1_epi32(2));
  const __m512 xy01 = _mm512_permutex2var_ps(n0, xy, n1), xy23 = _mm512_permutex2var_ps(n2, xy, n3);
  const __m512 rid01 = _mm512_permutex2var_ps(n0, rid, n1), rid23 = _mm512_permutex2var_ps(n2, rid, n3);
  const __m512i lowHalves = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const __m512i highHalves = _mm512_add_epi32(lowHalves, _mm512_set1_epi32(8));
  return {_mm512_permutex2var_ps(xy01, lowHalves, xy23), _mm512_permutex2var_ps(xy01, highHalves, xy23),
          _mm512_permutex2var_ps(rid01, lowHalves, rid23),
          _mm512_castps_si512(_mm512_permutex2var_ps(rid01, highHalves, rid23))};
}

/// smallCellPairs on 16 lanes (AVX-512): the cell's group and the two groups below it side by side in one
/// register each for x, y and r (lanes 0-3, 4-7 and 8-11, the lanes of the queued mask; six permutes), so
/// each node of the cell takes one pre-test where four lanes take three. The products are fused, which only
/// shrinks the rounding the pre-test's widening allows for.
[[gnu::target("avx512f")]] inline void smallCellPairsWide(const Node* nodes, std::uint32_t begin,
                                                          std::uint32_t end, std::uint32_t ownEnd,
                                                          std::uint32_t below, std::uint32_t belowEnd,
                                                          PairWriter& writer, CandidateQueue& queue) {
  static_assert(sizeof(Node) == 4 * sizeof(float), "a node is one x, y, r, id quadruple of lanes");
  const __m512 own = _mm512_loadu_ps(&nodes[begin].circle.center.x);
  const __m512 low = _mm512_loadu_ps(&nodes[below].circle.center.x);
  const __m512 high = _mm512_loadu_ps(&nodes[below + 4].circle.center.x);
  // Field f of node j of `own` and `low` is float 4 j + f of the pair (own, low); `high` fills lanes 8-11.
  const __m512i fromOwnAndLow = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i fromHigh = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 8, 12, 0, 0, 0, 0);
  constexpr __mmask16 kHighLanes = 0x0f00;
  const __m512i nextField = _mm512_set1_epi32(1);
  const __m512 x =
      _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(own, fromOwnAndLow, low), kHighLanes, fromHigh, high);
  const __m512i yOwnAndLow = _mm512_add_epi32(fromOwnAndLow, nextField);
  const __m512i yHigh = _mm512_add_epi32(fromHigh, nextField);
  const __m512 y =
      _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(own, yOwnAndLow, low), kHighLanes, yHigh, high);
  const __m512i rOwnAndLow = _mm512_add_epi32(yOwnAndLow, nextField);
  const __m512i rHigh = _mm512_add_epi32(yHigh, nextField);
  const __m512 r =
      _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(own, rOwnAndLow, low), kHighLanes, rHigh, high);
  const unsigned ownLanes = (1u << (ownEnd - begin)) - 1u, belowLanes = (1u << (belowEnd - below)) - 1u;
  writer.countPretests(std::uint64_t(end - begin) * (belowEnd - below) + (end - begin) * (ownEnd - begin) -
                       (end - begin) * (end - begin + 1) / 2);
  std::uint64_t lanes = 0;
  for (std::uint32_t a = begin; a < end; ++a) {
    const unsigned after = ownLanes & ~((2u << (a - begin)) - 1u);
    const unsigned mask = pretestWide(nodes[a].circle, x, y, r) & (after | (belowLanes << 4));
    lanes |= std::uint64_t(mask) << (16 * (a - begin));
  }
  queue.push(begin, below, lanes);
}

/// busyCellPairs on 16 lanes (AVX-512). Up to sixteen candidate nodes (nearly every busy cell) are put in
/// lanes in registers: the own runs' lanes and the runs below expanded after them; more go through arrays.
/// Each node of the cell is pre-tested against the lanes after it sixteen at a time and its survivors
/// tested exactly without a branch per candidate (appendOverlapsWide). `nodeCount` bounds the loads.
[[gnu::target("avx512f")]] inline bool busyCellPairsWide(const Node* nodes, std::uint32_t nodeCount,
                                                         std::uint32_t begin, std::uint32_t end,
                                                         std::uint32_t ownEnd, std::uint32_t below,
                                                         std::uint32_t belowEnd, PairWriter& writer,
                                                         std::uint64_t& candidates) {
  const std::uint32_t ownCount = ownEnd - begin, total = ownCount + (belowEnd - below);
  if (total > kBusyLanes) return false;
  std::uint64_t found = 0;
  if (total <= 16 && begin + 16 <= nodeCount && below + 16 <= nodeCount) {
    const WideLanes own = loadWideLanes(nodes, begin), low = loadWideLanes(nodes, below);
    const auto real = static_cast<__mmask16>((1u << total) - 1u);
    const auto belowLanes = static_cast<__mmask16>(real & ~((1u << ownCount) - 1u));
    const __m512 x = _mm512_mask_expand_ps(own.x, belowLanes, low.x);
    const __m512 y = _mm512_mask_expand_ps(own.y, belowLanes, low.y);
    const __m512 r = _mm512_mask_expand_ps(own.r, belowLanes, low.r);
    const __m512i id = _mm512_mask_expand_epi32(own.id, belowLanes, low.id);
    for (std::uint32_t i = 0; i < end - begin; ++i) {
      const Node& a = nodes[begin + i];
      writer.countPretests(total - i - 1);
      const auto after = static_cast<__mmask16>(real & ~((2u << i) - 1u));
      const __mmask16 maybe = pretestWide(a.circle, x, y, r) & after;
      if (maybe == 0) continue;
      found += static_cast<unsigned>(__builtin_popcount(maybe));
      appendOverlapsWide(maybe, a, x, y, r, id, writer);
    }
    candidates += found;
    return true;
  }
  alignas(64) float x[kBusyLanes + 16], y[kBusyLanes + 16], r[kBusyLanes + 16];
  alignas(64) ItemId ids[kBusyLanes + 16];
  busyLanes(nodes, begin, ownEnd, below, belowEnd, 16, x, y, r);
  for (std::uint32_t lane = 0; lane < total; ++lane)
    ids[lane] = nodes[lane < ownCount ? begin + lane : below + (lane - ownCount)].id;
  for (std::uint32_t lane = total; lane < total + 16; ++lane) ids[lane] = 0;
  for (std::uint32_t i = 0; i < end - begin; ++i) {
    const Node& a = nodes[begin + i];
    writer.countPretests(total - i - 1);
    for (std::uint32_t first = i + 1; first < total; first += 16) {
      const __m512 bx = _mm512_loadu_ps(x + first), by = _mm512_loadu_ps(y + first);
      const __m512 br = _mm512_loadu_ps(r + first);
      const __mmask16 maybe = pretestWide(a.circle, bx, by, br);
      if (maybe == 0) continue;
      found += static_cast<unsigned>(__builtin_popcount(maybe));
      appendOverlapsWide(maybe, a, bx, by, br, _mm512_loadu_si512(ids + first), writer);
    }
  }
  candidates += found;
  return true;
}
SPHERETEST_WIDE_CODE_END
#endif

/// The pair kernels of an interior cell (see smallCellPairs and busyCellPairs) for a pre-test width.
template <int Lanes>
struct CellKernels;

#if defined(__SSE2__)
/// Four lanes (SSE2).
template <>
struct CellKernels<4> {
  /// smallCellPairs.
  static void small(const Node* nodes, std::uint32_t begin, std::uint32_t end, std::uint32_t ownEnd,
                    std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer, CandidateQueue& queue) {
    smallCellPairs(nodes, begin, end, ownEnd, below, belowEnd, writer, queue);
  }
  /// busyCellPairs.
  static bool busy(const Node* nodes, std::uint32_t, std::uint32_t begin, std::uint32_t end,
                   std::uint32_t ownEnd, std::uint32_t below, std::uint32_t belowEnd, PairWriter& writer,
                   std::uint64_t& candidates) {
    return busyCellPairs(nodes, begin, end, ownEnd, below, belowEnd, writer, candidates);
  }
};
#endif

#if SPHERETEST_WIDE_LANES
/// Sixteen lanes (AVX-512).
template <>
struct CellKernels<16> {
  /// smallCellPairsWide.
  [[gnu::target("avx512f")]] static void small(const Node* nodes, std::uint32_t begin, std::uint32_t end,
                                               std::uint32_t ownEnd, std::uint32_t below,
                                               std::uint32_t belowEnd, PairWriter& writer,
                                               CandidateQueue& queue) {
    smallCellPairsWide(nodes, begin, end, ownEnd, below, belowEnd, writer, queue);
  }
  /// busyCellPairsWide.
  [[gnu::target("avx512f")]] static bool busy(const Node* nodes, std::uint32_t nodeCount, std::uint32_t begin,
                                              std::uint32_t end, std::uint32_t ownEnd, std::uint32_t below,
                                              std::uint32_t belowEnd, PairWriter& writer,
                                              std::uint64_t& candidates) {
    return busyCellPairsWide(nodes, nodeCount, begin, end, ownEnd, below, belowEnd, writer, candidates);
  }
};
#endif

/// All overlapping pairs among the items of one sorted grid whose pair reach is `reach` cells: each cell
/// against the rest of itself and its forward runs, walking the table in slot order (which follows space).
/// When every cell lies in the table's window, the window is a dense grid of run starts and, for reach 1,
/// the runs an interior cell needs are plain index arithmetic: the rest of its own run through the run of
/// its right neighbour, and the three runs below it, which are consecutive. `Lanes` is the width of the
/// small cells' pre-test (4 or 16); always inlined, so that the 16-lane entry compiles it for its target.
template <int Lanes>
[[gnu::always_inline]] inline void sortedGridPairsWith(const CellLists& lists, int reach, PairWriter& writer,
                                                       std::uint64_t& candidates, std::uint64_t& visited) {
  const Node* nodes = lists.nodes().data();
  const CellTable& table = lists.table();
  const std::uint32_t* heads = table.heads();
  const std::uint32_t slotCount = static_cast<std::uint32_t>(table.capacity());
  NodeRun runs[kMaxForwardRuns];
  auto checkedCell = [&](std::uint32_t slot) {
    std::uint32_t ownEnd = 0;
    const int runCount = forwardRuns(lists, slot, reach, runs, ownEnd, visited);
    ++visited;
    const std::uint32_t end = heads[slot + 1];
    for (std::uint32_t a = heads[slot]; a < end; ++a) {
      const Node& nodeA = nodes[a];
      for (std::uint32_t b = a + 1; b < ownEnd; ++b) writer.test(nodeA, nodes[b], candidates);
      for (int r = 0; r < runCount; ++r) {
        for (std::uint32_t b = runs[r].begin; b < runs[r].end; ++b) writer.test(nodeA, nodes[b], candidates);
      }
    }
  };
  if (reach != 1 || !table.windowOnly()) {
    for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
      if (table.occupied(slot)) checkedCell(slot);
    }
    return;
  }
  const std::uint32_t pitch = table.windowWidth(), rows = table.windowHeight();
  const std::uint32_t nodeCount = static_cast<std::uint32_t>(lists.nodes().size());
#if defined(__SSE2__)
  CandidateQueue queue;
#endif
  // Counted apart from the by-reference totals, whose memory the vector stores could alias.
  std::uint64_t queuedCandidates = 0, interiorVisited = 0;
  // An interior cell of the window: the rest of its run through its right neighbour's, then the three
  // runs below it.
  auto interiorCell = [&](std::uint32_t s) {
    const std::uint32_t aBegin = heads[s], aEnd = heads[s + 1], ownEnd = heads[s + 2];
    const std::uint32_t below0 = heads[s + pitch - 1], below1 = heads[s + pitch];
    const std::uint32_t below2 = heads[s + pitch + 1], below3 = heads[s + pitch + 2];
    interiorVisited += 1u + (ownEnd > aEnd ? 1u : 0u) + (below1 > below0 ? 1u : 0u) +
                       (below2 > below1 ? 1u : 0u) + (below3 > below2 ? 1u : 0u);
#if defined(__SSE2__)
    if (ownEnd - aBegin <= 4 && below3 - below0 <= 8 && below0 + 8 <= nodeCount && aBegin + 4 <= nodeCount) {
      if (queue.full()) queuedCandidates += queue.flush(nodes, writer);
      CellKernels<Lanes>::small(nodes, aBegin, aEnd, ownEnd, below0, below3, writer, queue);
      return;
    }
    if (CellKernels<Lanes>::busy(nodes, nodeCount, aBegin, aEnd, ownEnd, below0, below3, writer, candidates))
      return;
#endif
    for (std::uint32_t a = aBegin; a < aEnd; ++a) {
      const Node& nodeA = nodes[a];
      for (std::uint32_t b = a + 1; b < ownEnd; ++b) writer.test(nodeA, nodes[b], candidates);
      for (std::uint32_t b = below0; b < below3; ++b) writer.test(nodeA, nodes[b], candidates);
    }
  };
  for (std::uint32_t row = 0; row < rows; ++row) {
    const std::uint32_t base = row * pitch;
    const bool hasRowBelow = row + 1 < rows;
    // The occupied cells of 64 columns at a time, as bits: a row is mostly a mix of empty and occupied
    // cells, and testing them one by one would cost a mispredicted branch every few cells.
    for (std::uint32_t column0 = 0; column0 < pitch; column0 += 64) {
      const std::uint32_t width = std::min<std::uint32_t>(64, pitch - column0);
      const std::uint32_t* span = heads + base + column0;
      std::uint64_t occupied = 0;
      std::uint32_t k = 0;
#if defined(__SSE2__)
      for (; k + 4 <= width; k += 4) {
        const __m128i starts = _mm_loadu_si128(reinterpret_cast<const __m128i*>(span + k));
        const __m128i ends = _mm_loadu_si128(reinterpret_cast<const __m128i*>(span + k + 1));
        const auto empty =
            static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(starts, ends))));
        occupied |= std::uint64_t(~empty & 15u) << k;
      }
#endif
      for (; k < width; ++k) occupied |= std::uint64_t(span[k + 1] != span[k]) << k;
      while (occupied != 0) {
        const std::uint32_t column = column0 + static_cast<std::uint32_t>(__builtin_ctzll(occupied));
        occupied &= occupied - 1;
        if (!hasRowBelow || column == 0 || column + 1 == pitch) {
          checkedCell(base + column);
        } else {
          interiorCell(base + column);
        }
      }
    }
  }
#if defined(__SSE2__)
  queuedCandidates += queue.flush(nodes, writer);
#endif
  candidates += queuedCandidates;
  visited += interiorVisited;
}

#if SPHERETEST_WIDE_LANES
/// sortedGridPairsWith<16>, compiled for AVX-512 (call only where widestVectorLanes() is 16). Flattened:
/// the cell kernels, called once per cell from lambdas that do not carry the target, are inlined too.
[[gnu::target("avx512f"), gnu::flatten]] inline void sortedGridPairsWide(const CellLists& lists, int reach,
                                                                         PairWriter& writer,
                                                                         std::uint64_t& candidates,
                                                                         std::uint64_t& visited) {
  sortedGridPairsWith<16>(lists, reach, writer, candidates, visited);
}
#endif

/// All overlapping pairs of one sorted grid (see sortedGridPairsWith), pre-testing small cells on `lanes`
/// lanes: 16 where widestVectorLanes() allows it, 4 otherwise.
inline void sortedGridPairs(const CellLists& lists, int reach, int lanes, PairWriter& writer,
                            std::uint64_t& candidates, std::uint64_t& visited) {
#if SPHERETEST_WIDE_LANES
  if (lanes >= 16 && widestVectorLanes() >= 16) {
    sortedGridPairsWide(lists, reach, writer, candidates, visited);
    return;
  }
#endif
  (void)lanes;
  sortedGridPairsWith<4>(lists, reach, writer, candidates, visited);
}

/// The same for the linked layout: forward neighbours found by lookup, lists walked through their links.
inline void linkedGridPairs(const CellLists& lists, int reach, PairWriter& writer, std::uint64_t& candidates,
                            std::uint64_t& visited) {
  const Node* nodes = lists.nodes().data();
  const CellTable& table = lists.table();
  const std::uint32_t slotCount = static_cast<std::uint32_t>(table.capacity());
  std::uint32_t neighbours[kMaxForwardRuns];
  std::vector<std::uint32_t> members;
  for (std::uint32_t slot = 0; slot < slotCount; ++slot) {
    if (!table.occupied(slot)) continue;
    const CellKey cell = table[slot];
    int found = 0;
    for (int dy = 0; dy <= reach; ++dy) {
      for (int dx = -reach; dx <= reach; ++dx) {
        if (dy == 0 && dx <= 0) continue;
        const std::int64_t nx = std::int64_t(cell.x) + dx, ny = std::int64_t(cell.y) + dy;
        if (nx > kCellLimit || nx < -kCellLimit || ny > kCellLimit) continue;
        const std::uint32_t n = table.find(static_cast<std::int32_t>(nx), static_cast<std::int32_t>(ny));
        if (n != kNone) neighbours[found++] = n;
      }
    }
    visited += 1 + found;
    members.clear();
    lists.forEachInCell(slot, [&](std::uint32_t n) { members.push_back(n); });
    for (std::size_t i = 0; i < members.size(); ++i) {
      const Node& nodeA = nodes[members[i]];
      for (std::size_t j = i + 1; j < members.size(); ++j) writer.test(nodeA, nodes[members[j]], candidates);
      for (int h = 0; h < found; ++h) {
        lists.forEachInCell(neighbours[h],
                            [&](std::uint32_t b) { writer.test(nodeA, nodes[b], candidates); });
      }
    }
  }
}

}  // namespace st::grid_detail
