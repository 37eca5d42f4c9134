#pragma once
// The grids' open-addressing table from integer cell coordinates to the head of each cell's items.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "large_pages.hpp"
#include "spheretest/hash.hpp"

#include "grid_cell_mapping.hpp"
#include "structures/shared/no_index.hpp"

namespace st::grid_detail {

/// Marks "no node" in links and lookups.

/// Smallest power of two >= n (n >= 1).
inline std::size_t nextPowerOfTwo(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

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

  /// The slot holding cell (x, y), or kNoIndex.
  std::uint32_t find(std::int32_t x, std::int32_t y) const {
    if (keys_.empty()) return kNoIndex;
    return findFrom(home(x, y), x, y);
  }
  /// Like find, with the home slot already known.
  std::uint32_t findFrom(std::uint32_t i, std::int32_t x, std::int32_t y) const {
    while (true) {
      const CellKey& s = keys_[i];
      if (s.x == x && s.y == y) return i;
      if (s.x == kEmptyKey) return kNoIndex;
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
    return static_cast<std::uint32_t>(mix64((std::uint64_t(uy) << 32) | ux) >> 20) & mask_;
  }

  /// Narrows `range` to the window's cells; false when none is left. Where windowOnly() holds, the cells
  /// cut off are empty.
  bool clampToWindow(CellRange& range) const {
    const std::int64_t left = std::int32_t(originX_), bottom = std::int32_t(originY_);
    const std::int64_t x0 = std::max<std::int64_t>(range.x0, left),
                       x1 = std::min<std::int64_t>(range.x1, left + std::int64_t(width_) - 1);
    const std::int64_t y0 = std::max<std::int64_t>(range.y0, bottom),
                       y1 = std::min<std::int64_t>(range.y1, bottom + std::int64_t(height_) - 1);
    if (x0 > x1 || y0 > y1) return false;
    range = {std::int32_t(x0), std::int32_t(y0), std::int32_t(x1), std::int32_t(y1)};
    return true;
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

}  // namespace st::grid_detail
