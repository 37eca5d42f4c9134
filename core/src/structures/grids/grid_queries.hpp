#pragma once
// The queries of one level of hashed grid, written once for the grid (one level, beside its oversize list)
// and the hierarchical grid (a level per size class). A circle is stored in the cell of its centre, so a
// query looks up the cells whose centres lie within its reach plus the largest radius stored in the level,
// tests each cell's region against that reach (a range's corners hold cells no circle of it can touch) and
// then the circles of the cells it keeps.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spheretest/spatial_index.hpp"
#include "structures/shared/bvh_pruning.hpp"
#include "structures/shared/result_taker.hpp"

#include "grid_cell_mapping.hpp"
#include "grid_level.hpp"
#include "grid_walk.hpp"

namespace st::grid_detail {

/// One level of hashed grid as its queries read it.
struct LevelQuery {
  const CellLists& lists;  ///< the level's cells and their circles
  const CellMapping& map;  ///< the level's cell size
  double maxRadius;        ///< a bound of the radii stored in the level
  int depth;               ///< the level as the trace shows it (0: the coarsest)

  /// How the trace shows an occupied cell.
  NodeInfo slotInfo(std::uint32_t slot) const {
    const CellKey& key = lists.table()[slot];
    return cellInfo(map, key.x, key.y, depth, lists.cellSize(slot));
  }

  /// The widened region of an occupied cell.
  CellBounds slotBounds(std::uint32_t slot) const {
    const CellKey& key = lists.table()[slot];
    return cellBounds(map, key.x, key.y);
  }

  /// Shows every occupied cell to `visitor` (the cells are the level's nodes).
  void visitCells(const NodeVisitor& visitor) const {
    const CellTable& table = lists.table();
    for (std::uint32_t slot = 0; slot < table.capacity(); ++slot)
      if (table.occupied(slot)) visitor(slotInfo(slot));
  }

  /// Tests the circles of one occupied cell with `test`, handing each hit to `take`; false when `take`
  /// stopped the query.
  template <class Test, class Take>
  bool scanCell(QueryContext& ctx, std::uint32_t slot, Test&& test, Take&& take) const {
    const NodeArray& nodes = lists.nodes();
    if (ctx.detail) ++ctx.detail->occupiedCells;  // nodesVisited counts the lookup, in visitRange
    if (ctx.tracing()) ctx.visit(slotInfo(slot));
    return lists.forEachInCellUntil(slot, [&](std::uint32_t n) {
      return !ctx.examine(nodes[n].id, test(nodes[n].circle)) || take(nodes[n].id);
    });
  }

  /// Point (radius 0) and circle queries: the cells within radius + the level's largest radius of the
  /// centre. Hands each hit to `take`; false when it stopped the query.
  template <class Test, class Take>
  bool queryAround(QueryContext& ctx, Vec2 centre, double radius, Test&& test, Take&& take) const {
    const double reach = radius + maxRadius;
    const CellRange range = centreRange(map, centre.x, centre.y, centre.x, centre.y, reach);
    const double limit = reach * (1.0 + kRangeSlack) + 1e-30;
    bool done = true;
    ctx.counters.nodesVisited += visitRange(lists.table(), range, [&](std::uint32_t slot) {
      const CellBounds cell = slotBounds(slot);
      if (distanceSquaredToBox(centre.x, centre.y, cell.x0, cell.y0, cell.x1, cell.y1) > limit * limit) {
        if (ctx.tracing())
          ctx.prune(slotInfo(slot), "cell farther than query radius + its level's largest radius");
        return true;
      }
      return done = scanCell(ctx, slot, test, take);
    });
    return done;
  }

  /// Circles overlapping `box`: the cells within the level's largest radius of it. Hands each hit to
  /// `take`; false when it stopped the query.
  template <class Take>
  bool queryBox(QueryContext& ctx, const Box& box, Take&& take) const {
    const double limit = maxRadius * (1.0 + kRangeSlack) + 1e-30;
    const CellRange range = centreRange(map, box.min.x, box.min.y, box.max.x, box.max.y, maxRadius);
    bool done = true;
    ctx.counters.nodesVisited += visitRange(lists.table(), range, [&](std::uint32_t slot) {
      // The range is the box widened by the largest radius; its rounded corners leave some cells out.
      const CellBounds cell = slotBounds(slot);
      const double gapX = std::max({0.0, double(box.min.x) - cell.x1, cell.x0 - double(box.max.x)});
      const double gapY = std::max({0.0, double(box.min.y) - cell.y1, cell.y0 - double(box.max.y)});
      if (gapX * gapX + gapY * gapY > limit * limit) {
        if (ctx.tracing())
          ctx.prune(slotInfo(slot), "cell farther than its level's largest radius from the box");
        return true;
      }
      return done = scanCell(
                 ctx, slot, [&](const Circle& c) { return circleOverlapsBox(c, box); }, take);
    });
    return done;
  }

  /// Every circle the segment meets: the cells within the level's largest radius of it.
  void rayCast(QueryContext& ctx, const Segment& segment, std::vector<RayHit>& out) const {
    // The lists by a local reference: the loops below read them through one pointer, not through `this`.
    const CellLists& cells = lists;
    const NodeArray& nodes = cells.nodes();
    ctx.counters.nodesVisited += visitSegmentCells(
        cells.table(), map, segment, maxRadius, segmentRowScratch(),
        [&](std::uint32_t slot) {
          if (ctx.detail) ++ctx.detail->occupiedCells;
          if (ctx.tracing()) ctx.visit(slotInfo(slot));
          cells.forEachInCell(slot, [&](std::uint32_t n) {
            float t = 0.0f;
            if (ctx.examine(nodes[n].id, segmentHitsCircle(segment, nodes[n].circle, t)))
              out.push_back(rayHitAt(segment, nodes[n].id, t));
          });
        },
        [&](std::uint32_t slot) {
          if (ctx.tracing())
            ctx.prune(slotInfo(slot), "cell farther than its level's largest radius from the ray");
        });
  }

  /// Circles overlapping the view cone: the cells within reach of its disc, each skipped when its region
  /// grown by the level's largest radius lies wholly outside the cone.
  void queryCone(QueryContext& ctx, const ViewCone& cone, const bvh::ConeClassifier& classifier,
                 std::vector<ItemId>& out) const {
    const double reach = double(cone.farDistance) + maxRadius;
    const CellRange range =
        centreRange(map, cone.origin.x, cone.origin.y, cone.origin.x, cone.origin.y, reach);
    ctx.counters.nodesVisited += visitRange(lists.table(), range, [&](std::uint32_t slot) {
      if (cellOutsideCone(classifier, slotBounds(slot), maxRadius)) {
        if (ctx.tracing())
          ctx.prune(slotInfo(slot), "cell farther than its level's largest radius from the cone");
        return;
      }
      scanCell(
          ctx, slot, [&cone](const Circle& c) { return circleOverlapsCone(c, cone); }, takerFor(out));
    });
  }
};

}  // namespace st::grid_detail
