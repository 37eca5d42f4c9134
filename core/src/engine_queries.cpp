// The queries SpatialIndex answers through the engine: the default do-query hooks (for structures that
// expose a walk view), the nearest-circles shape for every structure, and the callback forms.

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "spheretest/spatial_index.hpp"
#include "structures/shared/query_engine.hpp"

namespace st {

// A structure that relies on the engine for a shape must expose a walk view: one that neither exposes a
// view nor overrides the hook is a programming error, not bad input.
WalkView SpatialIndex::requireWalkView(const char* hook) const {
  std::optional<WalkView> view = walkView();
  if (!view) throw std::logic_error(name_ + ": " + hook + " is neither written nor walkable");
  return *view;
}

void SpatialIndex::doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const {
  engine::queryPoint(requireWalkView("doQueryPoint"), *this, p, ResultTaker(out), ctx);
}

void SpatialIndex::doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const {
  engine::queryCircle(requireWalkView("doQueryCircle"), *this, query, ResultTaker(out), ctx);
}

void SpatialIndex::doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const {
  engine::queryBox(requireWalkView("doQueryBox"), *this, box, ResultTaker(out), ctx);
}

void SpatialIndex::doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const {
  engine::rayCast(requireWalkView("doRayCast"), *this, segment, out, ctx);
}

std::optional<RayHit> SpatialIndex::doRayCastFirst(const Segment& segment, QueryContext& ctx) const {
  if (const std::optional<WalkView> view = walkView())
    return engine::rayCastFirst(*view, *this, segment, ctx);
  std::vector<RayHit> hits;
  doRayCast(segment, hits, ctx);
  if (hits.empty()) return std::nullopt;
  return *std::min_element(hits.begin(), hits.end(), rayHitLess);
}

void SpatialIndex::doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow,
                                QueryContext& ctx) const {
  visibleNow.clear();
  if (const std::optional<WalkView> view = walkView()) {
    engine::queryCone(*view, *this, cone, ResultTaker(visibleNow), ctx);
  } else {
    std::vector<ItemId> candidates;
    doQueryCircle(Circle{cone.origin, cone.farDistance}, candidates, ctx);
    for (ItemId id : candidates)
      if (ctx.examine(id, circleOverlapsCone(circle(id), cone))) visibleNow.push_back(id);
  }
  std::sort(visibleNow.begin(), visibleNow.end());
}

// Without a walk view the nearest circles come from the structure's own circle walk: a circle query of
// radius r returns every circle whose edge lies within r of p, so once k of them lie within 3r/4 those k
// are the nearest (the quarter is far more than the rounding of the two predicates). The radius starts
// where k circles would fall at the scene's mean density and doubles until then.
void SpatialIndex::doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                                  QueryContext& ctx) const {
  if (const std::optional<WalkView> view = walkView()) {
    engine::queryNearest(*view, *this, p, k, out, ctx);
    return;
  }
  out.clear();
  if (k == 0 || size() == 0) return;
  const double scale = 1.0 + std::fabs(double(p.x)) + std::fabs(double(p.y));
  double r = 1e-6 * scale;
  if (worldHint_) {
    const double area =
        double(worldHint_->max.x - worldHint_->min.x) * (worldHint_->max.y - worldHint_->min.y);
    r = std::max(r, std::sqrt(double(k) * area / (3.14159265358979 * double(size()))));
  }
  std::vector<ItemId> ids;
  for (;;) {
    // A circle of radius kMaxCoordinate may still miss far circles: past it, every item is examined.
    const bool everything = r > double(kMaxCoordinate);
    if (everything) {
      ids.clear();
      forEachItem([&](ItemId id, const Circle&) { ids.push_back(id); });
    } else {
      ids.clear();
      doQueryCircle(Circle{p, static_cast<float>(r)}, ids, ctx);
    }
    out.clear();
    for (const ItemId id : ids) out.push_back({id, circleEdgeDistance(circle(id), p)});
    // A round's circle walk counted what it examined and tested; ranking its hits re-reads those circles.
    // Past kMaxCoordinate every circle is examined here, and its distance is the exact test.
    if (everything) {
      ctx.counters.candidates += ids.size();
      ctx.counters.exactTests += ids.size();
    }
    if (ids.size() >= k || ids.size() == size() || everything) {
      engine::keepNearest(out, k);
      if (everything || ids.size() == size() || double(out.back().distance) <= 0.75 * r) break;
    }
    r *= 2.0;
  }
}

void SpatialIndex::queryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out,
                                QueryContext* ctx) const {
  if (!isValidPoint(p)) throw InvalidInput(name_ + ": queryNearest: point must be finite and within 1e15");
  out.clear();
  QueryContext local;
  doQueryNearest(p, k, out, ctx ? *ctx : local);
}

// The callback forms stop the walk as soon as the callback says so: the engine's, or a structure's own
// through its visit hooks; a structure without either hands the vector hook's results over.
namespace {

template <class VectorForm>
void handOver(VectorForm&& vectorForm, const ItemVisitor& visit) {
  std::vector<ItemId> found;
  vectorForm(found);
  for (const ItemId id : found) {
    if (!visit(id)) return;
  }
}

}  // namespace

void SpatialIndex::doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const {
  if (const std::optional<WalkView> view = walkView()) {
    engine::queryPoint(*view, *this, p, ResultTaker(visit), ctx);
    return;
  }
  handOver([&](std::vector<ItemId>& found) { doQueryPoint(p, found, ctx); }, visit);
}

void SpatialIndex::doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const {
  if (const std::optional<WalkView> view = walkView()) {
    engine::queryCircle(*view, *this, query, ResultTaker(visit), ctx);
    return;
  }
  handOver([&](std::vector<ItemId>& found) { doQueryCircle(query, found, ctx); }, visit);
}

void SpatialIndex::doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const {
  if (const std::optional<WalkView> view = walkView()) {
    engine::queryBox(*view, *this, box, ResultTaker(visit), ctx);
    return;
  }
  handOver([&](std::vector<ItemId>& found) { doQueryBox(box, found, ctx); }, visit);
}

void SpatialIndex::queryPoint(Vec2 p, const ItemVisitor& visit, QueryContext* ctx) const {
  checkQueryPoint(p, "queryPoint");
  QueryContext local;
  doVisitPoint(p, visit, ctx ? *ctx : local);
}

void SpatialIndex::queryCircle(const Circle& query, const ItemVisitor& visit, QueryContext* ctx) const {
  checkCircle(query, "queryCircle");
  QueryContext local;
  doVisitCircle(query, visit, ctx ? *ctx : local);
}

void SpatialIndex::queryBox(const Box& box, const ItemVisitor& visit, QueryContext* ctx) const {
  checkQueryBox(box, "queryBox");
  QueryContext local;
  doVisitBox(box, visit, ctx ? *ctx : local);
}

}  // namespace st
