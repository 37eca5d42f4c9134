#pragma once
// Conservative pruning tests shared by the two bounding-volume hierarchies (sphere-tree, aabb-tree).
//
// The hierarchies prune with bounding circles and boxes; only the exact predicates of geometry.hpp decide
// answers. Every test here is done in double with a margin of one millionth of the magnitudes involved,
// which is far larger than any rounding of either side, so a bound is rejected only when no item inside
// it can pass the predicate, and a bound is declared wholly inside a query only when every item inside it
// passes the predicate for certain.

#include <cmath>
#include <cstdint>

#include "spheretest/geometry.hpp"

#include "segment_box.hpp"

namespace st::bvh {

/// How a bound relates to a query region.
enum class Side : std::uint8_t {
  Outside,  ///< no item inside the bound can match
  Partial,  ///< items must be tested one by one
  Inside,   ///< every item inside the bound matches
};

/// Absolute margin for a test whose operands have magnitudes summing to `magnitudes`.
inline double pruneMargin(double magnitudes) {
  return magnitudes * 1e-6 + 1e-30;
}

/// The smallest float not below `value`, so that a radius rounded to float never shrinks a bound.
inline float roundUpToFloat(double value) {
  float f = static_cast<float>(value);
  if (static_cast<double>(f) < value) f = std::nextafter(f, INFINITY);
  return f;
}

/// Sum of absolute coordinates of a point, for margins.
inline double magnitude(Vec2 p) {
  return std::fabs(double(p.x)) + std::fabs(double(p.y));
}

// ---------------------------------------------------------------------------------------------------------
// Circle bounds
// ---------------------------------------------------------------------------------------------------------

/// A bounding circle (centre and radius) against a query circle.
inline Side circleBoundVsCircle(double cx, double cy, double r, const Circle& q) {
  const double dx = cx - q.center.x, dy = cy - q.center.y;
  const double d2 = dx * dx + dy * dy;
  const double m = pruneMargin(std::fabs(cx) + std::fabs(cy) + r + magnitude(q.center) + q.radius);
  const double reach = r + q.radius + m;
  if (d2 > reach * reach) return Side::Outside;
  const double room = double(q.radius) - r - m;
  return room >= 0.0 && d2 <= room * room ? Side::Inside : Side::Partial;
}

/// A bounding circle against a point: never Inside, since items must each contain the point.
inline Side circleBoundVsPoint(double cx, double cy, double r, Vec2 p) {
  const double dx = cx - p.x, dy = cy - p.y;
  const double reach = r + pruneMargin(std::fabs(cx) + std::fabs(cy) + r + magnitude(p));
  return dx * dx + dy * dy > reach * reach ? Side::Outside : Side::Partial;
}

/// A bounding circle against a closed box; Inside when the whole bound lies in the box (every item's
/// centre is then in the box, which is enough for circleOverlapsBox).
inline Side circleBoundVsBox(double cx, double cy, double r, const Box& b) {
  const double m = pruneMargin(std::fabs(cx) + std::fabs(cy) + r + magnitude(b.min) + magnitude(b.max));
  const double qx = cx < b.min.x ? double(b.min.x) : (cx > b.max.x ? double(b.max.x) : cx);
  const double qy = cy < b.min.y ? double(b.min.y) : (cy > b.max.y ? double(b.max.y) : cy);
  const double dx = cx - qx, dy = cy - qy;
  const double reach = r + m;
  if (dx * dx + dy * dy > reach * reach) return Side::Outside;
  const double grown = r + m;
  const bool inside =
      cx - grown >= b.min.x && cx + grown <= b.max.x && cy - grown >= b.min.y && cy + grown <= b.max.y;
  return inside ? Side::Inside : Side::Partial;
}

/// Where a segment first meets a (slightly grown) bounding circle: false when it misses, else `entry`
/// is a lower bound of the entry parameter of every circle inside the bound.
inline bool segmentEntersCircleBound(const Segment& s, double cx, double cy, double r, double& entry) {
  const double m = pruneMargin(std::fabs(cx) + std::fabs(cy) + r + magnitude(s.start) + magnitude(s.end));
  const double reach = r + m;
  const double ox = double(s.start.x) - cx, oy = double(s.start.y) - cy;
  const double c = ox * ox + oy * oy - reach * reach;
  if (c <= 0.0) {
    entry = 0.0;
    return true;
  }
  const double dx = double(s.end.x) - s.start.x, dy = double(s.end.y) - s.start.y;
  const double a = dx * dx + dy * dy;
  if (a == 0.0) return false;
  const double b = ox * dx + oy * dy;
  if (b >= 0.0) return false;
  const double disc = b * b - a * c;
  if (disc < 0.0) return false;
  const double root = (-b - std::sqrt(disc)) / a;
  if (root > 1.0 + 1e-9) return false;
  // The margin in parameter space keeps the lower bound below the entry of anything inside.
  entry = root - 1e-9;
  if (entry < 0.0) entry = 0.0;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Box bounds
// ---------------------------------------------------------------------------------------------------------

/// A segment prepared once for the box tests of a walk: its slabs, and the magnitude of its ends that the
/// tests' margin grows with.
struct PreparedSegment {
  /// Prepares `s`.
  explicit PreparedSegment(const Segment& s) : slabs(s), magnitudes(magnitude(s.start) + magnitude(s.end)) {}
  SegmentSlabs slabs;  ///< for clipping
  double magnitudes;   ///< |start| + |end|
};

/// Where a segment first meets a (slightly grown) box: false when it misses, else `entry` is a lower bound
/// of the entry parameter of every circle inside the box.
inline bool segmentEntersBox(const PreparedSegment& s, const Box& b, double& entry) {
  const double m = pruneMargin(magnitude(b.min) + magnitude(b.max) + s.magnitudes);
  double enter = 0.0, leave = 0.0;
  if (!s.slabs.clip(double(b.min.x) - m, double(b.min.y) - m, double(b.max.x) + m, double(b.max.y) + m, 1e-9,
                    enter, leave))
    return false;
  entry = enter - 1e-9;
  if (entry < 0.0) entry = 0.0;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// View cone
// ---------------------------------------------------------------------------------------------------------

/// Classifies bounding circles against one view cone, mirroring circleOverlapsCone's cases (whole disc,
/// zero direction, wedge) so that Outside and Inside are certain for every item inside the bound.
class ConeClassifier {
 public:
  /// Prepares the cone's direction and angle once per cull.
  explicit ConeClassifier(const ViewCone& cone)
      : ox_(cone.origin.x), oy_(cone.origin.y), far_(cone.farDistance), halfAngle_(cone.halfAngle) {
    // The same threshold as circleOverlapsCone: at or above it the cone is the whole disc.
    wholeDisc_ = cone.halfAngle >= 3.14159265358979;
    const double dx = cone.direction.x, dy = cone.direction.y;
    const double len = std::sqrt(dx * dx + dy * dy);
    zeroDirection_ = len == 0.0;
    if (!zeroDirection_) dirX_ = dx / len, dirY_ = dy / len;
  }

  /// Side of the box [x0, x1] x [y0, y1] grown by `grow`, classified by its circumscribed circle.
  Side classifyBox(double x0, double y0, double x1, double y1, double grow = 0.0) const {
    const double hx = 0.5 * (x1 - x0), hy = 0.5 * (y1 - y0);
    return classify(0.5 * (x0 + x1), 0.5 * (y0 + y1), std::sqrt(hx * hx + hy * hy) + grow);
  }

  /// Side of the bounding circle (cx, cy, r).
  Side classify(double cx, double cy, double r) const {
    const double px = cx - ox_, py = cy - oy_;
    const double d = std::sqrt(px * px + py * py);
    const double m = pruneMargin(std::fabs(cx) + std::fabs(cy) + r + std::fabs(ox_) + std::fabs(oy_) + far_);
    if (d - r > far_ + m) return Side::Outside;
    const bool withinFar = d + r <= far_ - m;
    if (wholeDisc_) return withinFar ? Side::Inside : Side::Partial;
    // Zero direction: only circles containing the eye are visible.
    if (zeroDirection_) return d > r + m ? Side::Outside : Side::Partial;
    if (d <= r + m) return Side::Partial;  // the bound holds the eye
    const double angleToCenter = std::atan2(std::fabs(px * dirY_ - py * dirX_), px * dirX_ + py * dirY_);
    const double spread = std::asin(r / d < 1.0 ? r / d : 1.0);
    constexpr double kAngleMargin = 1e-6;
    if (angleToCenter - spread > halfAngle_ + kAngleMargin) return Side::Outside;
    if (withinFar && angleToCenter + spread <= halfAngle_ - kAngleMargin) return Side::Inside;
    return Side::Partial;
  }

 private:
  double ox_, oy_, far_, halfAngle_;
  double dirX_ = 1.0, dirY_ = 0.0;
  bool wholeDisc_ = false;
  bool zeroDirection_ = false;
};

}  // namespace st::bvh
