#pragma once
// The one segment-against-box test the structures prune ray casts with (trees, quadtrees, the grid's walk
// over occupied cells). A pruning test may only over-accept: every caller passes a box already grown for
// the rounding of both sides, and a tolerance on the clipped interval where it wants one more margin.

#include <utility>

#include "spheretest/geometry.hpp"

namespace st {

/// Clips the segment's parameter range [0, 1] to the closed box [loX, hiX] x [loY, hiY] axis by axis (slab
/// clipping, in double), leaving the part inside as [enter, leave]. Returns false, as soon as it is sure,
/// when that part is empty by more than `tolerance` (enter > leave + tolerance).
inline bool clipSegmentToBox(const Segment& s, double loX, double loY, double hiX, double hiY,
                             double tolerance, double& enter, double& leave) {
  const double start[2] = {s.start.x, s.start.y};
  const double delta[2] = {double(s.end.x) - double(s.start.x), double(s.end.y) - double(s.start.y)};
  const double lo[2] = {loX, loY};
  const double hi[2] = {hiX, hiY};
  enter = 0.0;
  leave = 1.0;
  for (int axis = 0; axis < 2; ++axis) {
    if (delta[axis] == 0.0) {
      if (start[axis] < lo[axis] || start[axis] > hi[axis]) return false;
      continue;
    }
    double t0 = (lo[axis] - start[axis]) / delta[axis];
    double t1 = (hi[axis] - start[axis]) / delta[axis];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > enter) enter = t0;
    if (t1 < leave) leave = t1;
    if (enter > leave + tolerance) return false;
  }
  return true;
}

/// Whether the segment meets the closed box [loX, hiX] x [loY, hiY] (clipSegmentToBox without the interval).
inline bool segmentMeetsBox(const Segment& s, double loX, double loY, double hiX, double hiY,
                            double tolerance = 0.0) {
  double enter = 0.0, leave = 0.0;
  return clipSegmentToBox(s, loX, loY, hiX, hiY, tolerance, enter, leave);
}

}  // namespace st
