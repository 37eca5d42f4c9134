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
/// it picks to its own list, then sets `out` to the lists joined in order. `lists` is scratch kept between
/// calls.
template <class T, class Pick>
void collect(TaskScheduler& scheduler, std::size_t count, std::vector<T>& out,
             std::vector<std::vector<T>>& lists, Pick&& pick) {
  out.clear();
  if (scheduler.workerCount() == 1) {
    pick(std::size_t{0}, count, out);
    return;
  }
  const std::size_t size = pieceSize(count, 1024);
  const std::size_t pieces = (count + size - 1) / size;
  if (lists.size() < pieces) lists.resize(pieces);
  scheduler.parallelFor(pieces, 1, [&](std::size_t first, std::size_t last, unsigned) {
    for (std::size_t p = first; p < last; ++p) {
      lists[p].clear();
      pick(p * size, std::min(count, (p + 1) * size), lists[p]);
    }
  });
  for (std::size_t p = 0; p < pieces; ++p) out.insert(out.end(), lists[p].begin(), lists[p].end());
}

/// Bytes held by the scratch lists.
template <class T>
std::size_t bytes(const std::vector<std::vector<T>>& lists) {
  std::size_t total = lists.capacity() * sizeof(std::vector<T>);
  for (const auto& list : lists) total += list.capacity() * sizeof(T);
  return total;
}

}  // namespace st::pieces
