#pragma once
// The queries of one level of hashed grid, written once for the grid (one level, beside its oversize list)
// and the hierarchical grid (a level per size class). A circle is stored in the cell of its centre, so a
// query looks up the cells whose centres lie within its reach plus the largest radius stored in the level,
// tests each cell's region against that reach (a range's corners hold cells no circle of it can touch) and
// then the circles of the cells it keeps. Where the level is sorted and its cells sit in the hash window,
// a row's cells are consecutive slots whose circles lie side by side, and a row is read as one run.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spheretest/spatial_index.hpp"
#include "structures/shared/bvh_pruning.hpp"
#include "structures/shared/result_taker.hpp"
#include "structures/shared/simd_support.hpp"

#include "grid_cell_mapping.hpp"
#include "grid_level.hpp"
#include "grid_walk.hpp"

namespace st::grid_detail {

/// Runs of nodes (the circles of consecutive cells of one row) gathered a few at a time and scanned
/// together, each run's first and last node fetched as it is added: the rows' cache misses then overlap
/// rather than follow one another. A hierarchical grid gathers the runs of all its levels in one batch.
class RunBatch {
 public:
  /// Adds the run of nodes [begin, end), scanning the batch with `scan` (of a node, false to stop) once it
  /// is full; false when `scan` stopped the query.
  template <class Scan>
  bool add(const Node* begin, const Node* end, Scan&& scan) {
    if (begin == end) return true;
    simd::prefetch(begin);
    simd::prefetch(end - 1);
    begins_[count_] = begin;
    ends_[count_++] = end;
    return count_ < kRuns || flush(scan);
  }
  /// Calls scan(node) for every node of the gathered runs, in order, until it returns false; empties the
  /// batch. False when `scan` did.
  template <class Scan>
  bool flush(Scan&& scan) {
    const int count = count_;
    count_ = 0;
    for (int r = 0; r < count; ++r)
      for (const Node* node = begins_[r]; node != ends_[r]; ++node)
        if (!scan(*node)) return false;
    return true;
  }

 private:
  static constexpr int kRuns = 8;
  const Node* begins_[kRuns];
  const Node* ends_[kRuns];
  int count_ = 0;
};

/// The scan of a node for a query that tests circles with `test` and hands each hit to `take`: false when
/// `take` stops the query.
template <class Test, class Take>
auto nodeScan(QueryContext& ctx, Test& test, Take& take) {
  return [&ctx, &test, &take](const Node& node) {
    return !ctx.examine(node.id, test(node.circle)) || take(node.id);
  };
}

/// The box query's exact test of a circle.
struct BoxTest {
  const Box& box;  ///< the query box
  /// Whether the circle overlaps the box.
  bool operator()(const Circle& c) const { return circleOverlapsBox(c, box); }
};

/// The scan of a node for a ray cast: every circle the segment meets goes to `out`, and the cast goes on.
struct RayScan {
  QueryContext& ctx;         ///< the query's counters
  const Segment& segment;    ///< the ray
  std::vector<RayHit>& out;  ///< the hits
  /// Tests one node's circle; always true.
  bool operator()(const Node& node) const {
    float t = 0.0f;
    if (ctx.examine(node.id, segmentHitsCircle(segment, node.circle, t)))
      out.push_back(rayHitAt(segment, node.id, t));
    return true;
  }
};

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

  /// Counts an occupied cell the query searches and traces it (nodesVisited counts the cell where the
  /// walk looks it up or reads its row).
  void enterCell(QueryContext& ctx, std::uint32_t slot) const {
    if (ctx.detail) ++ctx.detail->occupiedCells;
    if (ctx.tracing()) ctx.visit(slotInfo(slot));
  }

  /// Enters one occupied cell and hands its nodes to `scan` (of a node, false to stop; nodeScan or
  /// RayScan); false when it stopped the query.
  template <class Scan>
  bool scanCell(QueryContext& ctx, std::uint32_t slot, Scan&& scan) const {
    const NodeArray& nodes = lists.nodes();
    enterCell(ctx, slot);
    return lists.forEachInCellUntil(slot, [&](std::uint32_t n) { return scan(nodes[n]); });
  }

  /// Point (radius 0) and circle queries: the cells within radius + the level's largest radius of the
  /// centre. Hands each hit to `take`; false when it stopped the query.
  template <class Test, class Take>
  bool queryAround(QueryContext& ctx, Vec2 centre, double radius, Test&& test, Take&& take,
                   RunBatch* shared = nullptr) const {
    const double reach = radius + maxRadius;
    const CellRange range = centreRange(map, centre.x, centre.y, centre.x, centre.y, reach);
    const double limit = reach * (1.0 + kRangeSlack) + 1e-30;
    const auto far = [&](const CellBounds& cell) {
      return distanceSquaredToBox(centre.x, centre.y, cell.x0, cell.y0, cell.x1, cell.y1) > limit * limit;
    };
    return queryCells(ctx, range, far, "cell farther than query radius + its level's largest radius", test,
                      take, shared);
  }

  /// The cells of `range` that `far` (of a cell's region) does not rule out, each searched with `test`,
  /// every hit handed to `take`; false when it stopped the query. Along a row, `far` must rule out cells
  /// only at its two ends (the cells a convex region can reach are consecutive). With a `shared` batch,
  /// runs of circles may be left in it for the caller to flush (with nodeScan of the same test and take).
  template <class Far, class Test, class Take>
  bool queryCells(QueryContext& ctx, const CellRange& range, Far&& far, const char* pruneReason, Test&& test,
                  Take&& take, RunBatch* shared) const {
    if (lists.sorted() && lists.table().windowOnly())
      return queryCellsByRows(ctx, range, far, pruneReason, test, take, shared);
    bool done = true;
    ctx.counters.nodesVisited += visitRange(lists.table(), range, [&](std::uint32_t slot) {
      if (far(slotBounds(slot))) {
        if (ctx.tracing()) ctx.prune(slotInfo(slot), pruneReason);
        return true;
      }
      return done = scanCell(ctx, slot, nodeScan(ctx, test, take));
    });
    return done;
  }

  /// queryCells where the layout is sorted and every cell sits at its home in the window: the cells of a
  /// row are then consecutive slots and their circles one run of nodes, so a row of the range is read as
  /// one run with no lookup (and no read of the keys), and the cells outside the window are known empty.
  /// The cells at a row's ends that `far` rules out are left out first, by the same test of their regions
  /// as the lookup path's, so the same circles are examined. Counts every cell of the range in the window
  /// as visited; traced, it reports each occupied cell it searched or left out.
  template <class Far, class Test, class Take>
  bool queryCellsByRows(QueryContext& ctx, CellRange range, Far&& far, const char* pruneReason, Test&& test,
                        Take&& take, RunBatch* shared) const {
    const CellTable& table = lists.table();
    if (!table.clampToWindow(range)) return true;
    ctx.counters.nodesVisited += static_cast<std::uint64_t>(range.count());
    const NodeArray& nodes = lists.nodes();
    const bool perCell = ctx.tracing() || ctx.detail != nullptr;
    const auto keptColumns = [&](std::int32_t y, std::int32_t& first, std::int32_t& last) {
      first = range.x0;
      last = range.x1;
      while (first <= last && far(cellBounds(map, first, y))) ++first;
      while (last > first && far(cellBounds(map, last, y))) --last;
      return first <= last;
    };
    if (perCell) {
      for (std::int32_t y = range.y0; y <= range.y1; ++y) {
        std::int32_t first = 0, last = -1;
        keptColumns(y, first, last);
        for (std::int32_t x = range.x0; x <= range.x1; ++x) {
          const std::uint32_t slot = table.home(x, y);
          if (!table.occupied(slot)) continue;
          if (x < first || x > last) {
            if (ctx.tracing()) ctx.prune(slotInfo(slot), pruneReason);
          } else if (!scanCell(ctx, slot, nodeScan(ctx, test, take))) {
            return false;
          }
        }
      }
      return true;
    }
    const auto scan = nodeScan(ctx, test, take);
    RunBatch own;
    RunBatch& batch = shared != nullptr ? *shared : own;
    const Node* base = nodes.data();
    for (std::int32_t y = range.y0; y <= range.y1; ++y) {
      std::int32_t first = 0, last = -1;
      if (keptColumns(y, first, last) && !batch.add(base + table.head(table.home(first, y)),
                                                    base + table.head(table.home(last, y) + 1), scan))
        return false;
    }
    return shared != nullptr || own.flush(scan);
  }

  /// Circles overlapping `box`: the cells within the level's largest radius of it. Hands each hit to
  /// `take`; false when it stopped the query.
  template <class Take>
  bool queryBox(QueryContext& ctx, const Box& box, Take&& take, RunBatch* shared = nullptr) const {
    const double limit = maxRadius * (1.0 + kRangeSlack) + 1e-30;
    const CellRange range = centreRange(map, box.min.x, box.min.y, box.max.x, box.max.y, maxRadius);
    // The range is the box widened by the largest radius; its rounded corners leave some cells out.
    const auto far = [&](const CellBounds& cell) {
      const double gapX = std::max({0.0, double(box.min.x) - cell.x1, cell.x0 - double(box.max.x)});
      const double gapY = std::max({0.0, double(box.min.y) - cell.y1, cell.y0 - double(box.max.y)});
      return gapX * gapX + gapY * gapY > limit * limit;
    };
    return queryCells(ctx, range, far, "cell farther than its level's largest radius from the box",
                      BoxTest{box}, take, shared);
  }

  /// Every circle the segment meets: the cells within the level's largest radius of it.
  /// With a `shared` batch, runs of circles may be left in it for the caller to flush (with a RayScan).
  void rayCast(QueryContext& ctx, const Segment& segment, std::vector<RayHit>& out,
               RunBatch* shared = nullptr) const {
    if (lists.sorted() && lists.table().windowOnly()) return rayCastByRows(ctx, segment, out, shared);
    const RayScan scan{ctx, segment, out};
    ctx.counters.nodesVisited += visitSegmentCells(
        lists.table(), map, segment, maxRadius, segmentRowScratch(),
        [&](std::uint32_t slot) { scanCell(ctx, slot, scan); },
        [&](std::uint32_t slot) {
          if (ctx.tracing())
            ctx.prune(slotInfo(slot), "cell farther than its level's largest radius from the ray");
        });
  }

  /// rayCast where the layout is sorted and every cell sits at its home in the window (see
  /// queryCellsByRows): each row the thick segment crosses is read as one run of nodes over the columns
  /// it can touch there, the same cells the lookup path visits. Counts those cells as visited.
  void rayCastByRows(QueryContext& ctx, const Segment& segment, std::vector<RayHit>& out,
                     RunBatch* shared) const {
    const CellTable& table = lists.table();
    const NodeArray& nodes = lists.nodes();
    const double loX = std::min(segment.start.x, segment.end.x),
                 hiX = std::max(segment.start.x, segment.end.x);
    const double loY = std::min(segment.start.y, segment.end.y),
                 hiY = std::max(segment.start.y, segment.end.y);
    CellRange range = centreRange(map, loX, loY, hiX, hiY, maxRadius);
    if (!table.clampToWindow(range)) return;
    const RayScan scan{ctx, segment, out};
    RunBatch own;
    RunBatch& batch = shared != nullptr ? *shared : own;
    const bool perCell = ctx.tracing() || ctx.detail != nullptr;
    forEachRowOfSegment(map, segment, maxRadius, range.y0, range.y1,
                        [&](std::int32_t row, std::int32_t first, std::int32_t last) {
                          first = std::max(first, range.x0);
                          last = std::min(last, range.x1);
                          if (first > last) return;
                          ctx.counters.nodesVisited += static_cast<std::uint64_t>(last - first + 1);
                          if (perCell) {
                            for (std::int32_t x = first; x <= last; ++x) {
                              const std::uint32_t slot = table.home(x, row);
                              if (table.occupied(slot)) scanCell(ctx, slot, scan);
                            }
                            return;
                          }
                          batch.add(nodes.data() + table.head(table.home(first, row)),
                                    nodes.data() + table.head(table.home(last, row) + 1), scan);
                        });
    if (shared == nullptr) own.flush(scan);
  }

  /// Circles overlapping the view cone: the cells within reach of its disc, each skipped when its region
  /// grown by the level's largest radius lies wholly outside the cone.
  void queryCone(QueryContext& ctx, const ViewCone& cone, const bvh::ConeClassifier& classifier,
                 std::vector<ItemId>& out) const {
    const double reach = double(cone.farDistance) + maxRadius;
    const CellRange range =
        centreRange(map, cone.origin.x, cone.origin.y, cone.origin.x, cone.origin.y, reach);
    const auto overlaps = [&cone](const Circle& c) { return circleOverlapsCone(c, cone); };
    auto take = takerFor(out);
    const auto scan = nodeScan(ctx, overlaps, take);
    ctx.counters.nodesVisited += visitRange(lists.table(), range, [&](std::uint32_t slot) {
      if (cellOutsideCone(classifier, slotBounds(slot), maxRadius)) {
        if (ctx.tracing())
          ctx.prune(slotInfo(slot), "cell farther than its level's largest radius from the cone");
        return;
      }
      scanCell(ctx, slot, scan);
    });
  }
};

}  // namespace st::grid_detail
