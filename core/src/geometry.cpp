// The exact predicates of geometry.hpp whose bodies are long enough that a call costs little beside them.
// The short ones stay inline in the header: the structures' inner loops run them once per candidate.

#include "spheretest/geometry.hpp"

#include <cmath>

namespace st {

bool segmentHitsCircle(const Segment& s, const Circle& c, float& t) {
  const double ox = double(s.start.x) - double(c.center.x);
  const double oy = double(s.start.y) - double(c.center.y);
  const double r2 = double(c.radius) * double(c.radius);
  const double cterm = ox * ox + oy * oy - r2;
  if (cterm <= 0.0) {
    t = 0.0f;
    return true;
  }
  const double dx = double(s.end.x) - double(s.start.x);
  const double dy = double(s.end.y) - double(s.start.y);
  const double a = dx * dx + dy * dy;
  if (a == 0.0) return false;
  const double b = ox * dx + oy * dy;  // half of the usual b
  if (b >= 0.0) return false;          // start outside and moving away
  const double disc = b * b - a * cterm;
  if (disc < 0.0) return false;
  const double root = (-b - std::sqrt(disc)) / a;
  if (root > 1.0) return false;
  t = static_cast<float>(root < 0.0 ? 0.0 : root);
  return true;
}

bool circleOverlapsCone(const Circle& c, const ViewCone& cone) {
  const double px = double(c.center.x) - double(cone.origin.x);
  const double py = double(c.center.y) - double(cone.origin.y);
  const double r = c.radius;
  const double far = cone.farDistance;
  const double dist2 = px * px + py * py;
  if (dist2 > (far + r) * (far + r)) return false;
  if (cone.halfAngle >= 3.14159265358979) return true;  // the whole disc
  double dirx = cone.direction.x, diry = cone.direction.y;
  const double dlen = std::sqrt(dirx * dirx + diry * diry);
  if (dlen == 0.0) return dist2 <= r * r;
  dirx /= dlen;
  diry /= dlen;
  const double dist = std::sqrt(dist2);
  // Inside the wedge's angle: the distance to the sector is the distance beyond the far arc.
  const double cosHalf = std::cos(double(cone.halfAngle));
  if (dist == 0.0 || (px * dirx + py * diry) >= cosHalf * dist) return dist <= far + r;
  // Outside the angle: the nearest point of the sector lies on one of its two straight edges.
  const double sinHalf = std::sin(double(cone.halfAngle));
  for (int side = -1; side <= 1; side += 2) {
    const double ex = dirx * cosHalf - side * diry * sinHalf;
    const double ey = diry * cosHalf + side * dirx * sinHalf;
    double along = px * ex + py * ey;
    along = along < 0.0 ? 0.0 : (along > far ? far : along);
    const double qx = px - ex * along, qy = py - ey * along;
    if (qx * qx + qy * qy <= r * r) return true;
  }
  return false;
}

}  // namespace st
