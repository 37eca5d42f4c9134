#pragma once
// The nodes a grid stores its items in, and the small steps of moving them between cells: the item table
// gathers, the test of whether a centre changed cell, and the buffers' growth and radix sort.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "large_pages.hpp"
#include "spheretest/spatial_index.hpp"

#include "grid_cell_mapping.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::grid_detail {

/// Id stored in a dead node (on the free list); never a valid item id since ids are < 2^27.
inline constexpr ItemId kDeadId = 0xffffffffu;

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
SPHERETEST_ALWAYS_INLINE void prefetchItemAhead(const SpatialIndex& index, const NodeArray& nodes,
                                                std::size_t n) {
  if (n + kGatherAhead < nodes.size() && nodes[n + kGatherAhead].id < index.idCapacity()) {
    const char* entry = reinterpret_cast<const char*>(&index.circle(nodes[n + kGatherAhead].id));
    simd::prefetch(entry);
    simd::prefetch(entry + sizeof(Circle) - 1);
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
/// cells are computed together (CellMapping::cellLanes: the products, clamps and floor of cellOf, so the
/// same cells), and compared without taking them apart: busy frames do this for every node.
inline bool cellChanged(const CellMapping& map, Vec2 before, Vec2 after, CellMove& move) {
  // Column in lane 0 and row in lane 1.
  const simd::IntW4 was = map.cellLanes(simd::widenD2(before.x, before.y));
  const simd::IntW4 now = map.cellLanes(simd::widenD2(after.x, after.y));
  if ((simd::signMask(simd::equal(was, now)) & 3u) == 3u) return false;
  move = {simd::lane<0>(was), simd::lane<1>(was), simd::lane<0>(now), simd::lane<1>(now)};
  return true;
}

}  // namespace st::grid_detail
