#pragma once
// Work cut into pieces that depend only on its length, so that what a structure does with it is the same on
// any number of threads: the one cut every parallel pass of the structures uses, and a pass that picks out
// some of n things (the moved circles that left their node, say) and hands them on in the order one thread
// would have found them, each piece collecting into its own list and the lists joined in piece order.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "spheretest/tasks.hpp"

namespace st::pieces {

/// Pieces a range is cut into (fewer for short ranges): enough that two to sixteen workers end together.
inline constexpr std::size_t kPieces = 64;

/// The length of each piece of a range of `count` (the last one shorter): a 64th of it, but at least
/// `least`, so that a piece is worth handing to a worker. Depends on nothing but its arguments, so a cut
/// made with it is the same on any number of workers.
inline std::size_t pieceSize(std::size_t count, std::size_t least) {
  return std::max((count + kPieces - 1) / kPieces, least);
}

/// Runs `pick(begin, end, list)` over [0, count) in pieces on the scheduler's workers, each appending what
/// it picks to its own list, then sets `out` to the lists joined in order. The pieces' lists live only
/// during the call: kept between calls, they would hold a second copy of the largest `out` ever picked.
template <class T, class Pick>
void collect(TaskScheduler& scheduler, std::size_t count, std::vector<T>& out, Pick&& pick) {
  const std::size_t before = out.size();
  out.clear();
  if (count == 0) return;
  if (scheduler.workerCount() == 1) {
    pick(std::size_t{0}, count, out);
    return;
  }
  const std::size_t size = pieceSize(count, 1024);
  const std::size_t pieces = (count + size - 1) / size;
  // Each list starts with room for its share of what the last call picked, and a quarter more.
  const std::size_t room = before / pieces + before / pieces / 4 + 16;
  std::vector<std::vector<T>> lists(pieces);
  scheduler.parallelFor(pieces, 1, [&](std::size_t first, std::size_t last, unsigned) {
    for (std::size_t p = first; p < last; ++p) {
      lists[p].reserve(room);
      pick(p * size, std::min(count, (p + 1) * size), lists[p]);
    }
  });
  std::size_t total = 0;
  for (const std::vector<T>& list : lists) total += list.size();
  out.reserve(total);
  for (const std::vector<T>& list : lists) out.insert(out.end(), list.begin(), list.end());
}

}  // namespace st::pieces
