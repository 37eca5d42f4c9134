#pragma once
/// \file What the peer wrappers share: their factories, a conservative segment cover for libraries whose own
/// segment test is not provably conservative, and a per-id "seen" set for de-duplicating candidates.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "spheretest/spatial_index.hpp"

namespace st::peers {

/// Box2D 2.4.1's b2DynamicTree with a contact-manager-style pair cache (registered as "box2d-tree").
std::unique_ptr<SpatialIndex> makeBox2dTree();
/// Boost.Geometry 1.74's bgi::rtree, packed by its range constructor (registered as "boost-rtree").
std::unique_ptr<SpatialIndex> makeBoostRtree();

/// How many boxes coverSegment should use: enough that a diagonal segment's pieces stay about `chunk` wide
/// across, so a box query per piece does not sweep the whole bounding box of a long diagonal ray.
inline int segmentCoverPieces(const Segment& segment, float chunk) {
  constexpr int kMaxPieces = 256;
  const double across = std::min(std::fabs(double(segment.end.x) - segment.start.x),
                                 std::fabs(double(segment.end.y) - segment.start.y));
  if (!(chunk > 0.0f) || !(across > chunk)) return 1;
  return static_cast<int>(std::min<double>(kMaxPieces, std::ceil(across / chunk)));
}

/// Calls boxFn(const Box&) for `pieces` boxes that together contain every point of the segment, each grown
/// by inflateForPruning. The piece ends are computed in double, so the float boxes only round by far less
/// than the pruning margin; a box query per piece therefore never misses a circle the segment touches.
template <class BoxFn>
void coverSegment(const Segment& segment, int pieces, BoxFn&& boxFn) {
  const double sx = segment.start.x, sy = segment.start.y;
  const double dx = double(segment.end.x) - sx, dy = double(segment.end.y) - sy;
  double fromX = sx, fromY = sy;
  for (int i = 1; i <= pieces; ++i) {
    const double t = double(i) / double(pieces);
    const double toX = i == pieces ? double(segment.end.x) : sx + dx * t;
    const double toY = i == pieces ? double(segment.end.y) : sy + dy * t;
    const Box piece{{static_cast<float>(std::min(fromX, toX)), static_cast<float>(std::min(fromY, toY))},
                    {static_cast<float>(std::max(fromX, toX)), static_cast<float>(std::max(fromY, toY))}};
    boxFn(inflateForPruning(piece));
    fromX = toX;
    fromY = toY;
  }
}

/// A set of small integers (item ids, proxy ids) cleared in O(1) per use: each use takes a new stamp, and a
/// value is in the set when its slot holds the current stamp. Used to drop duplicate candidates when several
/// box queries of one call report the same item, and to look up existing contacts in O(1).
class StampSet {
 public:
  /// Starts a new, empty set able to hold values below `idCapacity`.
  void begin(std::size_t idCapacity) {
    if (stamps_.size() < idCapacity) stamps_.resize(idCapacity, 0);
    if (++current_ == 0) {  // the stamp wrapped: old stamps could collide with new ones
      std::fill(stamps_.begin(), stamps_.end(), 0);
      current_ = 1;
    }
  }
  /// Adds `id`; returns true when it was not in the set yet.
  bool insert(std::uint32_t id) {
    if (stamps_[id] == current_) return false;
    stamps_[id] = current_;
    return true;
  }
  /// Whether `id` was added in this use.
  bool contains(std::uint32_t id) const { return stamps_[id] == current_; }
  /// Bytes held.
  std::size_t bytes() const { return stamps_.capacity() * sizeof(std::uint32_t); }
  /// Frees everything.
  void reset() {
    stamps_ = {};
    current_ = 0;
  }

 private:
  std::vector<std::uint32_t> stamps_;
  std::uint32_t current_ = 0;
};

/// The calling thread's set of items a query has already tested: queries stay const and re-entrant, and a
/// thread reuses its set instead of allocating one per query.
inline StampSet& queryStampSet() {
  thread_local StampSet set;
  return set;
}

}  // namespace st::peers
