#pragma once
// The query engine: every query shape written once over a structure's walk view. The walk tests a node's
// bounds, descends into its children with an explicit stack and tests its items with the exact predicates
// of geometry.hpp; it counts what it visited (nodes tested, entered or pruned; circles examined) the one way
// every panel and report reads them, records the trace when one is attached, and stops when a callback
// says so.

#include <cstdint>
#include <optional>
#include <vector>

#include "spheretest/spatial_index.hpp"
#include "structures/shared/result_taker.hpp"

namespace st::engine {

/// The circles of `index` containing p.
void queryPoint(const WalkView& view, const SpatialIndex& index, Vec2 p, ResultTaker&& take,
                QueryContext& ctx);
/// The circles of `index` overlapping `query`.
void queryCircle(const WalkView& view, const SpatialIndex& index, const Circle& query, ResultTaker&& take,
                 QueryContext& ctx);
/// The circles of `index` overlapping `box`.
void queryBox(const WalkView& view, const SpatialIndex& index, const Box& box, ResultTaker&& take,
              QueryContext& ctx);
/// The circles of `index` overlapping the view cone, in walk order.
void queryCone(const WalkView& view, const SpatialIndex& index, const ViewCone& cone, ResultTaker&& take,
               QueryContext& ctx);
/// Every circle the segment meets, in walk order.
void rayCast(const WalkView& view, const SpatialIndex& index, const Segment& segment,
             std::vector<RayHit>& out, QueryContext& ctx);
/// The first circle the segment meets (rayHitLess), skipping every node that cannot hold an earlier one.
std::optional<RayHit> rayCastFirst(const WalkView& view, const SpatialIndex& index, const Segment& segment,
                                   QueryContext& ctx);
/// The k nearest circles, best first: nodes in order of their bounds' distance, stopping once no node can
/// hold a circle nearer than the k-th found (ties by id included).
void queryNearest(const WalkView& view, const SpatialIndex& index, Vec2 p, std::uint32_t k,
                  std::vector<NearestHit>& out, QueryContext& ctx);
/// Keeps the k nearest of `hits` (all of them when fewer), ordered by nearestHitLess.
void keepNearest(std::vector<NearestHit>& hits, std::uint32_t k);

}  // namespace st::engine
