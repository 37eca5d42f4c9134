#pragma once
/// \file
/// 2D geometry shared by every structure, and the exact predicates that decide every answer.
///
/// Coordinates are stored as float. Every yes/no answer a structure gives (overlap, containment, ray hit,
/// view-cone visibility) is decided by one of the predicates below, evaluated in double from the stored
/// floats, so two structures that test the same candidate always agree. Structures prune with their own
/// float bounds; those must be conservative (see inflateForPruning) because only the predicates are exact.
///
/// Touching counts as overlapping everywhere: two circles whose distance equals the sum of their radii
/// overlap, a point on a circle's rim is inside it, a circle touching a box's edge overlaps it, a segment
/// grazing a circle hits it.

#include <cmath>
#include <cstdint>
#include <limits>

namespace st {

/// Stable identifier of an item, chosen by the caller; ids are dense small integers (see kMaxItemId).
using ItemId = std::uint32_t;

/// Largest accepted id plus one: structures may keep per-id arrays, so memory grows with the largest id.
inline constexpr ItemId kMaxItemId = 1u << 27;

/// Largest accepted absolute coordinate and radius: keeps integer cell coordinates and tree growth finite.
inline constexpr float kMaxCoordinate = 1e15f;

/// A 2D vector / point.
struct Vec2 {
  float x = 0.0f;  ///< horizontal coordinate
  float y = 0.0f;  ///< vertical coordinate
};

/// Component-wise sum.
constexpr Vec2 operator+(Vec2 a, Vec2 b) {
  return {a.x + b.x, a.y + b.y};
}
/// Component-wise difference.
constexpr Vec2 operator-(Vec2 a, Vec2 b) {
  return {a.x - b.x, a.y - b.y};
}
/// Scale by a scalar.
constexpr Vec2 operator*(Vec2 a, float s) {
  return {a.x * s, a.y * s};
}
/// Exact equality of both coordinates.
constexpr bool operator==(Vec2 a, Vec2 b) {
  return a.x == b.x && a.y == b.y;
}
/// Dot product.
constexpr float dot(Vec2 a, Vec2 b) {
  return a.x * b.x + a.y * b.y;
}
/// Squared length.
constexpr float lengthSquared(Vec2 a) {
  return dot(a, a);
}
/// Euclidean length.
inline float length(Vec2 a) {
  return std::sqrt(lengthSquared(a));
}

/// A circle (a disc, including its rim); radius >= 0, and a zero radius is a point.
struct Circle {
  Vec2 center;          ///< centre
  float radius = 0.0f;  ///< radius, >= 0
};

/// Exact equality of centre and radius.
constexpr bool operator==(const Circle& a, const Circle& b) {
  return a.center == b.center && a.radius == b.radius;
}

/// A closed axis-aligned box.
struct Box {
  Vec2 min;  ///< lower-left corner
  Vec2 max;  ///< upper-right corner
};

/// Box from centre and half extents.
constexpr Box boxFromCenter(Vec2 c, float halfX, float halfY) {
  return {{c.x - halfX, c.y - halfY}, {c.x + halfX, c.y + halfY}};
}
/// The smallest box containing a circle.
constexpr Box boundsOf(const Circle& c) {
  return boxFromCenter(c.center, c.radius, c.radius);
}
/// Whether two closed boxes share at least one point.
constexpr bool boxesOverlap(const Box& a, const Box& b) {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}
/// Whether box `outer` contains box `inner` entirely (closed).
constexpr bool boxContains(const Box& outer, const Box& inner) {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && inner.max.x <= outer.max.x &&
         inner.max.y <= outer.max.y;
}
/// Whether a closed box contains a point.
constexpr bool boxContainsPoint(const Box& b, Vec2 p) {
  return b.min.x <= p.x && p.x <= b.max.x && b.min.y <= p.y && p.y <= b.max.y;
}
/// The smallest box containing both.
constexpr Box boxUnion(const Box& a, const Box& b) {
  return {{a.min.x < b.min.x ? a.min.x : b.min.x, a.min.y < b.min.y ? a.min.y : b.min.y},
          {a.max.x > b.max.x ? a.max.x : b.max.x, a.max.y > b.max.y ? a.max.y : b.max.y}};
}
/// Perimeter of a box: the surface-area heuristic's cost in 2D.
constexpr float boxPerimeter(const Box& b) {
  return 2.0f * ((b.max.x - b.min.x) + (b.max.y - b.min.y));
}

/// A line segment from start to end; a ray cast reports hits by parameter t in [0, 1] along it.
struct Segment {
  Vec2 start;  ///< where the ray starts (t = 0)
  Vec2 end;    ///< where it ends (t = 1)
};

/// One hit of a ray cast: the item, the parameter where the segment enters the circle, and that point.
struct RayHit {
  ItemId id = 0;   ///< item hit
  float t = 0.0f;  ///< entry parameter in [0, 1]; 0 when the segment starts inside the circle
  Vec2 point;      ///< start + t * (end - start)
};

/// The hit of `id` at parameter t along the segment.
inline RayHit rayHitAt(const Segment& s, ItemId id, float t) {
  return {id, t, s.start + (s.end - s.start) * t};
}

/// Ray hits are ordered by entry parameter, then by id, so every structure reports the same order.
constexpr bool rayHitLess(const RayHit& a, const RayHit& b) {
  return a.t < b.t || (a.t == b.t && a.id < b.id);
}

/// One answer of a nearest-circles query: the item and its signed distance from the query point to the
/// circle's edge (|p - centre| - radius, negative inside the circle).
struct NearestHit {
  ItemId id = 0;          ///< item found
  float distance = 0.0f;  ///< signed distance to the circle's edge, computed by circleEdgeDistance
};

/// Nearest hits are ordered by distance, then by id, so every structure reports the same k circles.
constexpr bool nearestHitLess(const NearestHit& a, const NearestHit& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
}

/// An unordered pair of overlapping items, stored with a < b.
struct Pair {
  /// Leaves the ids unset: a pair search sizes its output before it writes a million pairs into it, and
  /// zeroing them first would be a pass over the whole output on one thread.
  Pair() noexcept {}
  /// The pair (first, second), in the order given.
  constexpr Pair(ItemId first, ItemId second) noexcept : a(first), b(second) {}
  ItemId a;  ///< smaller id
  ItemId b;  ///< larger id
};

/// Pair with its ids put in order.
constexpr Pair makePair(ItemId x, ItemId y) {
  return x < y ? Pair{x, y} : Pair{y, x};
}
/// Equality of ordered pairs.
constexpr bool operator==(const Pair& p, const Pair& q) {
  return p.a == q.a && p.b == q.b;
}
/// Lexicographic order, for sorting pair lists.
constexpr bool operator<(const Pair& p, const Pair& q) {
  return p.a < q.a || (p.a == q.a && p.b < q.b);
}

/// A 2D view cone: the part of the disc of radius farDistance around origin within halfAngle of direction.
struct ViewCone {
  Vec2 origin;                 ///< eye position
  Vec2 direction{1.0f, 0.0f};  ///< looking direction (need not be normalised)
  float halfAngle = 0.6f;      ///< half the field of view in radians, in (0, pi]
  float farDistance = 100.0f;  ///< far distance, > 0
};

// ---------------------------------------------------------------------------------------------------------
// Exact predicates (evaluated in double; the only source of truth for every answer)
// ---------------------------------------------------------------------------------------------------------

/// Whether two circles overlap or touch.
inline bool circlesOverlap(const Circle& a, const Circle& b) {
  const double dx = double(a.center.x) - double(b.center.x);
  const double dy = double(a.center.y) - double(b.center.y);
  const double r = double(a.radius) + double(b.radius);
  return dx * dx + dy * dy <= r * r;
}

/// Whether a circle contains a point (rim included).
inline bool circleContainsPoint(const Circle& c, Vec2 p) {
  const double dx = double(p.x) - double(c.center.x);
  const double dy = double(p.y) - double(c.center.y);
  return dx * dx + dy * dy <= double(c.radius) * double(c.radius);
}

/// Whether a circle and a closed box share a point.
inline bool circleOverlapsBox(const Circle& c, const Box& b) {
  const double cx = c.center.x, cy = c.center.y;
  const double qx = cx < b.min.x ? double(b.min.x) : (cx > b.max.x ? double(b.max.x) : cx);
  const double qy = cy < b.min.y ? double(b.min.y) : (cy > b.max.y ? double(b.max.y) : cy);
  const double dx = cx - qx, dy = cy - qy;
  return dx * dx + dy * dy <= double(c.radius) * double(c.radius);
}

/// Signed distance from a point to a circle's edge, |p - centre| - radius, in double and then rounded to
/// float once, so that every structure ranks the same circles alike.
inline float circleEdgeDistance(const Circle& c, Vec2 p) {
  const double dx = double(p.x) - double(c.center.x);
  const double dy = double(p.y) - double(c.center.y);
  return static_cast<float>(std::sqrt(dx * dx + dy * dy) - double(c.radius));
}

/// Whether the segment meets the circle; on a hit, sets `t` to the entry parameter in [0, 1].
bool segmentHitsCircle(const Segment& s, const Circle& c, float& t);

/// Whether a circle shares a point with a view cone.
bool circleOverlapsCone(const Circle& c, const ViewCone& cone);

/// Whether every coordinate and the radius are finite, radius >= 0, and all lie within kMaxCoordinate.
/// (A NaN fails every comparison and an infinity exceeds kMaxCoordinate, so the bounds alone decide.)
inline bool isValidCircle(const Circle& c) {
  return std::fabs(c.center.x) <= kMaxCoordinate && std::fabs(c.center.y) <= kMaxCoordinate &&
         c.radius >= 0.0f && c.radius <= kMaxCoordinate;
}

/// Whether both coordinates are finite and within kMaxCoordinate.
inline bool isValidPoint(Vec2 p) {
  return std::fabs(p.x) <= kMaxCoordinate && std::fabs(p.y) <= kMaxCoordinate;
}

/// Grows a float box by a relative and absolute margin so that float pruning never rejects what the
/// double predicates above would accept. Structures prune with inflated bounds; the cost is a few extra
/// candidates on exact boundaries.
inline Box inflateForPruning(const Box& b) {
  const float mx = (std::fabs(b.min.x) + std::fabs(b.max.x)) * 1e-6f + 1e-30f;
  const float my = (std::fabs(b.min.y) + std::fabs(b.max.y)) * 1e-6f + 1e-30f;
  return {{b.min.x - mx, b.min.y - my}, {b.max.x + mx, b.max.y + my}};
}

/// A radius grown the same way, for pruning tests that compare distances against radii.
inline float inflateRadiusForPruning(float r, Vec2 around) {
  return r * (1.0f + 1e-6f) + (std::fabs(around.x) + std::fabs(around.y)) * 1e-6f + 1e-30f;
}

}  // namespace st
