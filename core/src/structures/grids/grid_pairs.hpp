#pragma once
// All overlapping pairs within one grid: each occupied cell against the rest of itself and its forward
// half-neighbourhood, in the sorted layout (runs, with the interior cells handed to the pair kernels) or
// the linked one.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "grid_level.hpp"
#include "grid_pair_kernels.hpp"
#include "grid_walk.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::grid_detail {

using simd::widestVectorLanes;

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

/// The pairs of a grid's oversize items: each against the circles stored in the cells `rangeOf(circle)`
/// covers, but for the nodes `owns(range, slot, node)` leaves to another cell's visit, then against each
/// other. Every exact test counts in `candidates`, every cell visited in `cells`.
template <class CircleOf, class RangeOf, class Owns>
void oversizePairsWithCells(const CellLists& lists, std::span<const ItemId> oversize, CircleOf&& circleOf,
                            RangeOf&& rangeOf, Owns&& owns, PairWriter& writer, std::uint64_t& candidates,
                            std::uint64_t& cells) {
  const NodeArray& nodes = lists.nodes();
  for (ItemId id : oversize) {
    const Circle o = circleOf(id);
    const CellRange range = rangeOf(o);
    visitRange(lists.table(), range, [&](std::uint32_t slot) {
      ++cells;
      lists.forEachInCell(slot, [&](std::uint32_t n) {
        if (!owns(range, slot, nodes[n])) return;
        ++candidates;
        if (circlesOverlap(o, nodes[n].circle)) writer.add(id, nodes[n].id);
      });
    });
  }
  oversizePairs(oversize, circleOf, writer, candidates);
}

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
      if (found == kNoIndex) continue;
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

/// All overlapping pairs among the items of one sorted grid whose pair reach is `reach` cells: each cell
/// against the rest of itself and its forward runs, walking the table in slot order (which follows space).
/// When every cell lies in the table's window, the window is a dense grid of run starts and, for reach 1,
/// the runs an interior cell needs are plain index arithmetic: the rest of its own run through the run of
/// its right neighbour, and the three runs below it, which are consecutive. `Lanes` is the width of the
/// small cells' pre-test (4 or 16); always inlined, so that the 16-lane entry compiles it for its target.
template <int Lanes>
SPHERETEST_ALWAYS_INLINE void sortedGridPairsWith(const CellLists& lists, int reach, PairWriter& writer,
                                                  std::uint64_t& candidates, std::uint64_t& visited,
                                                  std::uint32_t unitBegin, std::uint32_t unitEnd) {
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
    for (std::uint32_t slot = unitBegin; slot < std::min(unitEnd, slotCount); ++slot) {
      if (table.occupied(slot)) checkedCell(slot);
    }
    return;
  }
  const std::uint32_t pitch = table.windowWidth(), rows = table.windowHeight();
  const std::uint32_t nodeCount = static_cast<std::uint32_t>(lists.nodes().size());
  CandidateQueue queue;
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
    // Without a vector unit the kernels would only add bookkeeping to the plain loop below.
    if constexpr (simd::kNativeLanes) {
      if (ownEnd - aBegin <= 4 && below3 - below0 <= 8 && below0 + 8 <= nodeCount &&
          aBegin + 4 <= nodeCount) {
        if (queue.full()) queuedCandidates += queue.flush(nodes, writer);
        CellKernels<Lanes>::small(nodes, aBegin, aEnd, ownEnd, below0, below3, writer, queue);
        return;
      }
      if (CellKernels<Lanes>::busy(nodes, nodeCount, aBegin, aEnd, ownEnd, below0, below3, writer,
                                   candidates))
        return;
    }
    for (std::uint32_t a = aBegin; a < aEnd; ++a) {
      const Node& nodeA = nodes[a];
      for (std::uint32_t b = a + 1; b < ownEnd; ++b) writer.test(nodeA, nodes[b], candidates);
      for (std::uint32_t b = below0; b < below3; ++b) writer.test(nodeA, nodes[b], candidates);
    }
  };
  for (std::uint32_t row = unitBegin; row < std::min(unitEnd, rows); ++row) {
    const std::uint32_t base = row * pitch;
    const bool hasRowBelow = row + 1 < rows;
    // The occupied cells of 64 columns at a time, as bits: a row is mostly a mix of empty and occupied
    // cells, and testing them one by one would cost a mispredicted branch every few cells.
    for (std::uint32_t column0 = 0; column0 < pitch; column0 += 64) {
      const std::uint32_t width = std::min<std::uint32_t>(64, pitch - column0);
      const std::uint32_t* span = heads + base + column0;
      std::uint64_t occupied = 0;
      std::uint32_t k = 0;
      for (; k + 4 <= width; k += 4) {
        const unsigned empty =
            simd::signMask(simd::equal(simd::loadI4(span + k), simd::loadI4(span + k + 1)));
        occupied |= std::uint64_t(~empty & 15u) << k;
      }
      for (; k < width; ++k) occupied |= std::uint64_t(span[k + 1] != span[k]) << k;
      while (occupied != 0) {
        const std::uint32_t column = column0 + static_cast<std::uint32_t>(simd::lowestSetBit64(occupied));
        occupied &= occupied - 1;
        if (!hasRowBelow || column == 0 || column + 1 == pitch) {
          checkedCell(base + column);
        } else {
          interiorCell(base + column);
        }
      }
    }
  }
  queuedCandidates += queue.flush(nodes, writer);
  candidates += queuedCandidates;
  visited += interiorVisited;
}

#if SPHERETEST_WIDE_LANES
/// sortedGridPairsWith<16>, compiled for AVX-512 (call only where widestVectorLanes() is 16). Flattened:
/// the cell kernels, called once per cell from lambdas that do not carry the target, are inlined too.
SPHERETEST_WIDE SPHERETEST_FLATTEN inline void sortedGridPairsWide(
    const CellLists& lists, int reach, PairWriter& writer, std::uint64_t& candidates, std::uint64_t& visited,
    std::uint32_t unitBegin, std::uint32_t unitEnd) {
  sortedGridPairsWith<16>(lists, reach, writer, candidates, visited, unitBegin, unitEnd);
}
#endif

/// The units a grid's pair scan walks, which a parallel search hands out in pieces: the window's rows where
/// the scan goes row by row, otherwise the table's slots. Each unit's pairs are found by the scan of that
/// unit alone (a cell looks only forward), so pieces can run in any order.
inline std::uint32_t pairScanUnits(const CellLists& lists, int reach) {
  const CellTable& table = lists.table();
  if (lists.sorted() && reach == 1 && table.windowOnly()) return table.windowHeight();
  return static_cast<std::uint32_t>(table.capacity());
}

/// The overlapping pairs that the units [unitBegin, unitEnd) of one sorted grid (see pairScanUnits) own
/// (see sortedGridPairsWith), pre-testing small cells on `lanes` lanes: 16 where widestVectorLanes() allows
/// it, 4 otherwise.
inline void sortedGridPairs(const CellLists& lists, int reach, int lanes, PairWriter& writer,
                            std::uint64_t& candidates, std::uint64_t& visited, std::uint32_t unitBegin,
                            std::uint32_t unitEnd) {
#if SPHERETEST_WIDE_LANES
  if (lanes >= 16 && widestVectorLanes() >= 16) {
    sortedGridPairsWide(lists, reach, writer, candidates, visited, unitBegin, unitEnd);
    return;
  }
#endif
  (void)lanes;
  sortedGridPairsWith<4>(lists, reach, writer, candidates, visited, unitBegin, unitEnd);
}

/// The same for the linked layout: forward neighbours found by lookup, lists walked through their links.
inline void linkedGridPairs(const CellLists& lists, int reach, PairWriter& writer, std::uint64_t& candidates,
                            std::uint64_t& visited, std::uint32_t unitBegin, std::uint32_t unitEnd) {
  const Node* nodes = lists.nodes().data();
  const CellTable& table = lists.table();
  const std::uint32_t slotCount = static_cast<std::uint32_t>(table.capacity());
  std::uint32_t neighbours[kMaxForwardRuns];
  std::vector<std::uint32_t> members;
  for (std::uint32_t slot = unitBegin; slot < std::min(unitEnd, slotCount); ++slot) {
    if (!table.occupied(slot)) continue;
    const CellKey cell = table[slot];
    int found = 0;
    for (int dy = 0; dy <= reach; ++dy) {
      for (int dx = -reach; dx <= reach; ++dx) {
        if (dy == 0 && dx <= 0) continue;
        const std::int64_t nx = std::int64_t(cell.x) + dx, ny = std::int64_t(cell.y) + dy;
        if (nx > kCellLimit || nx < -kCellLimit || ny > kCellLimit) continue;
        const std::uint32_t n = table.find(static_cast<std::int32_t>(nx), static_cast<std::int32_t>(ny));
        if (n != kNoIndex) neighbours[found++] = n;
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

/// Every overlapping pair of one grid (sorted or linked layout), spread over the scheduler's workers.
inline void gridPairs(TaskScheduler& scheduler, const CellLists& lists, int reach, int lanes,
                      std::vector<Pair>& out, pairs::ScanTotals& totals) {
  pairs::scanInPieces(scheduler, pairScanUnits(lists, reach), out, totals,
                      [&](PairWriter& writer, std::uint64_t& candidates, std::uint64_t& visited,
                          std::uint32_t begin, std::uint32_t end) {
                        if (lists.sorted()) {
                          sortedGridPairs(lists, reach, lanes, writer, candidates, visited, begin, end);
                        } else {
                          linkedGridPairs(lists, reach, writer, candidates, visited, begin, end);
                        }
                      });
}

}  // namespace st::grid_detail
