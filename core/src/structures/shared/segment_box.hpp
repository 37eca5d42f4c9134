#pragma once
// The one segment-against-box test the structures prune ray casts with (trees, quadtrees, the grid's walk
// over occupied cells). A pruning test may only over-accept: every caller passes a box already grown for
// the rounding of both sides, and a tolerance on the clipped interval where it wants one more margin.

#include <utility>

#include "spheretest/geometry.hpp"

namespace st {

/// A segment prepared for slab clipping: its start, its direction and the direction's inverse, so that a
/// clip multiplies where it would divide (a walk clips one segment against many boxes). The inverse's
/// rounding is far inside the margins the callers grow their boxes by.
struct SegmentSlabs {
  /// Prepares `s`.
  explicit SegmentSlabs(const Segment& s)
      : start{s.start.x, s.start.y},
        delta{double(s.end.x) - double(s.start.x), double(s.end.y) - double(s.start.y)},
        inverse{delta[0] != 0.0 ? 1.0 / delta[0] : 0.0, delta[1] != 0.0 ? 1.0 / delta[1] : 0.0} {}
  double start[2];    ///< the start, per axis
  double delta[2];    ///< end - start, per axis
  double inverse[2];  ///< 1 / delta, per axis (0 where delta is 0)

  /// Clips the parameter range [0, 1] to the closed box [loX, hiX] x [loY, hiY] axis by axis (in double),
  /// leaving the part inside as [enter, leave]. Returns false, as soon as it is sure, when that part is
  /// empty by more than `tolerance` (enter > leave + tolerance).
  bool clip(double loX, double loY, double hiX, double hiY, double tolerance, double& enter,
            double& leave) const {
    const double lo[2] = {loX, loY};
    const double hi[2] = {hiX, hiY};
    enter = 0.0;
    leave = 1.0;
    for (int axis = 0; axis < 2; ++axis) {
      if (delta[axis] == 0.0) {
        if (start[axis] < lo[axis] || start[axis] > hi[axis]) return false;
        continue;
      }
      double t0 = (lo[axis] - start[axis]) * inverse[axis];
      double t1 = (hi[axis] - start[axis]) * inverse[axis];
      if (t0 > t1) std::swap(t0, t1);
      if (t0 > enter) enter = t0;
      if (t1 < leave) leave = t1;
      if (enter > leave + tolerance) return false;
    }
    return true;
  }
};

/// SegmentSlabs::clip of a segment clipped once.
inline bool clipSegmentToBox(const Segment& s, double loX, double loY, double hiX, double hiY,
                             double tolerance, double& enter, double& leave) {
  return SegmentSlabs(s).clip(loX, loY, hiX, hiY, tolerance, enter, leave);
}

/// Whether the segment meets the closed box [loX, hiX] x [loY, hiY] (clipSegmentToBox without the interval).
inline bool segmentMeetsBox(const Segment& s, double loX, double loY, double hiX, double hiY,
                            double tolerance = 0.0) {
  double enter = 0.0, leave = 0.0;
  return clipSegmentToBox(s, loX, loY, hiX, hiY, tolerance, enter, leave);
}

}  // namespace st
