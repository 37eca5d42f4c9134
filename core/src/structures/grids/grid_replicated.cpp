// grid-replicated: the variant seed 002 describes at the end of its grid section, where an item is stored in
// every cell a lookup might need it in, so that a lookup reads one cell. For points and a fixed search
// radius those are the four cells around the point; for circles, the cells a lookup must find an item from
// are the ones its circle touches, so each circle is stored in every cell its (slightly widened) bounding box
// overlaps. Lookups get simpler and faster, while inserts and moves write several copies and memory grows.

#include <algorithm>
#include <cmath>
#include <string>

#include "grid_common.hpp"
#include "grid_queries.hpp"
#include "spheretest/structures.hpp"
#include "structures/shared/result_taker.hpp"
#include "structures/shared/simd_support.hpp"

namespace st {
namespace {

using namespace grid_detail;

/// Most cells one circle is stored in. A circle within the radius limit (two cells) inside the built
/// extent spans at most 7 x 7 cells; the rest go to the oversize list. A rebuild counts copies in a byte.
constexpr double kMaxCopies = 64.0;
static_assert(kMaxCopies <= 255.0, "fillCovered counts an item's copies in a byte");

class ReplicatedGrid final : public TakerQueries<ReplicatedGrid> {
  friend TakerQueries<ReplicatedGrid>;

 public:
  ReplicatedGrid() : TakerQueries("grid-replicated") {
    for (const ParamInfo& param : gridParams("cell size", "rebuild every copy")) addParam(param);
  }

  std::string_view description() const override {
    return "Replicated hashed grid (seed 002's store-in-every-neighbour variant): the same hash of cells to "
           "lists as grid, but every circle is stored in each cell its bounding box overlaps, so a point "
           "query reads exactly one cell and every pair is tested once, in the first cell both share. "
           "Insert, remove, moves and memory pay for the copies (about two per circle on the default scene). "
           "Choose it when queries far outnumber updates.";
  }

  void visitNodes(const NodeVisitor& visitor) const override { cells().visitCells(visitor); }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    const Circle& c = circle(id);
    if (!isRegular(c)) return;  // the oversize list is no cell
    visitRange(coverOf(c), [&](std::uint32_t slot) { visitor(slotInfo(slot)); });
  }

  std::string_view nodeRule() const override {
    return "every cell its bounding box overlaps holds a copy of a circle (circles larger than the limit go "
           "to "
           "the oversize list)";
  }

  IndexStats stats() const override {
    IndexStats st;
    st.nodes = lists_.table().used();
    st.memoryBytes = tableBytes() + lists_.memoryBytes() + stage_.capacity() * sizeof(Node) +
                     slots_.capacity() * sizeof(std::uint32_t) + copies_.capacity() + edges_.capacity() +
                     edgeScratch_.capacity() + oversize_.capacity() * sizeof(ItemId);
    return st;
  }

  void extra(ExtraCounters& out) const override {
    const CellTable& table = lists_.table();
    std::uint32_t maxPerCell = 0;
    for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
      if (table.occupied(slot)) maxPerCell = std::max(maxPerCell, lists_.cellSize(slot));
    }
    const double regular = double(size() - oversize_.size());
    out.push_back({"cell_size", map_.size});
    out.push_back({"occupied_cells", double(table.used())});
    out.push_back({"stored_copies", double(lists_.liveNodes())});
    out.push_back({"copies_per_item", regular > 0 ? double(lists_.liveNodes()) / regular : 0.0});
    out.push_back({"max_copies_per_cell", double(maxPerCell)});
    out.push_back({"oversize_items", double(oversize_.size())});
    out.push_back({"hash_slots", double(table.capacity())});
    out.push_back({"last_batch_rebuilt", lastBatchRebuilt_ ? 1.0 : 0.0});
    out.push_back({"bytes_per_item", size() ? double(stats().memoryBytes) / double(size()) : 0.0});
  }

 protected:
  void onParamChanged(std::string_view key) override {
    if (key == "rebuild_fraction") return;
    rebuildFromTable();
  }

  // -- mutation -----------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    const GridShape shape = shapeFor(items, param("cell_size"), param("cell_scale"), worldHint());
    map_ = shape.map;
    originX_ = shape.originX;
    originY_ = shape.originY;
    windowWidth_ = shape.windowWidth;
    windowHeight_ = shape.windowHeight;
    const double cell = map_.size / kCellPadding;
    regularLimit_ =
        static_cast<float>(std::min(std::max(cell * 0.5, shape.largestDiameter * 0.5), cell * 2.0));
    stage_.clear();
    oversize_.clear();
    for (const Item& item : items) {
      if (isRegular(item.circle)) {
        stage_.push_back(Node{item.circle, item.id});
      } else {
        oversize_.push_back(item.id);
      }
    }
    lists_.table().configureHash(false, originX_, originY_, windowWidth_, windowHeight_);
    fill(items.size());
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (lists_.liveNodes() + oversize_.size() == 0) {
      rebuildFromTable();  // the first item sets the cell size
      return;
    }
    addCopies(id, c);
  }

  void doUpdate(ItemId id, const Circle& old, const Circle& c) override { moveOne(id, old, c); }

  bool batchNeedsOldCircles(std::size_t batchSize) const override {
    return !wholeFrameBatch(*this, batchSize);  // that path re-reads the table
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override {
    lastBatchRebuilt_ = wholeFrameBatch(*this, ids.size());
    if (!lastBatchRebuilt_) {
      for (std::size_t i = 0; i < ids.size(); ++i) moveOne(ids[i], old[i], circle(ids[i]));
      return;
    }
    rebuildAll();
  }

  void doRemove(ItemId id, const Circle& c) override { removeCopies(id, c); }

  void doClear() override {
    lists_.release();
    edgesValid_ = false;
    NodeArray().swap(stage_);
    oversize_.clear();
  }

  void doMaintain() override {
    if (oversize_.size() > 8 && oversize_.size() * 16 > size()) rebuildFromTable();
  }

  // -- queries ------------------------------------------------------------------------------------------

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    // The cells the segment passes through hold every circle it can hit; a circle may sit in several of
    // them, so candidates are collected, de-duplicated, then tested once each.
    const CellTable& table = lists_.table();
    const NodeArray& nodes = lists_.nodes();
    std::vector<ItemId>& found = rayCandidateScratch();
    found.clear();
    auto gather = [&](std::uint32_t slot) {
      cells().enterCell(ctx, slot);
      lists_.forEachInCell(slot, [&](std::uint32_t n) { found.push_back(nodes[n].id); });
    };
    const Box bounds = inflateForPruning(
        Box{{std::min(segment.start.x, segment.end.x), std::min(segment.start.y, segment.end.y)},
            {std::max(segment.start.x, segment.end.x), std::max(segment.start.y, segment.end.y)}});
    const CellRange range{map_.cellOf(bounds.min.x), map_.cellOf(bounds.min.y), map_.cellOf(bounds.max.x),
                          map_.cellOf(bounds.max.y)};
    std::uint64_t lookedUp = 0;
    if (!visitSegmentRows(table, map_, segment, 0.0, range, segmentRowScratch(), lookedUp, gather)) {
      for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
        if (table.occupied(slot) && range.contains(table[slot].x, table[slot].y)) gather(slot);
      }
      lookedUp = table.used();
    }
    ctx.counters.nodesVisited += lookedUp;
    for (ItemId id : oversize_) found.push_back(id);
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    for (ItemId id : found) {
      float t = 0.0f;
      if (ctx.examine(id, segmentHitsCircle(segment, circle(id), t))) out.push_back(rayHitAt(segment, id, t));
    }
  }

  // The cells the cone's disc covers, each skipped when every circle with a copy there lies outside the cone:
  // such a circle's box meets the cell, so its centre is within r of the cell on each axis and the circle
  // within 2r; the cell's circumscribed circle grown by 2r x sqrt(2) (3r, with room for rounding) holds it.
  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override {
    visibleNow.clear();
    const bvh::ConeClassifier classifier(cone);
    const CellTable& table = lists_.table();
    queryCovered(
        ctx, coverOf(Circle{cone.origin, cone.farDistance}),
        [&cone](const Circle& c) { return circleOverlapsCone(c, cone); }, takerFor(visibleNow),
        [&](std::uint32_t slot) {
          return cellOutsideCone(classifier, cellBounds(map_, table[slot].x, table[slot].y),
                                 3.0 * double(regularLimit_));
        });
    std::sort(visibleNow.begin(), visibleNow.end());
  }

  void doFindPairs(std::vector<Pair>& out) override {
    const CellTable& table = lists_.table();
    const NodeArray& nodes = lists_.nodes();
    // Each cell alone: two copies meet in every cell both ranges share, and the pair is tested only in
    // the first of those (its column and row are the larger of the two first columns and rows).
    pairs::ScanTotals totals;
    pairs::scanInPieces(
        scheduler(), static_cast<std::uint32_t>(table.capacity()), out, totals,
        [&](PairWriter& w, std::uint64_t& candidates, std::uint64_t& visited, std::uint32_t begin,
            std::uint32_t end) {
          std::vector<Member> members;
          for (std::uint32_t slot = begin; slot < end; ++slot) {
            if (!table.occupied(slot)) continue;
            ++visited;
            const std::int32_t cx = table[slot].x, cy = table[slot].y;
            members.clear();
            lists_.forEachInCell(slot, [&](std::uint32_t n) { members.push_back({n, edgesOf(n, cx, cy)}); });
            const std::size_t count = members.size();
            for (std::size_t i = 0; i + 1 < count; ++i) {
              const Member a = members[i];
              for (std::size_t j = i + 1; j < count; ++j) {
                const Member b = members[j];
                if ((a.edges | b.edges) != 3) continue;
                w.test(nodes[a.node], nodes[b.node], candidates);
              }
            }
          }
        });
    PairWriter writer(out);
    std::uint64_t direct = 0;  // oversize pairs, tested exactly without a pre-test
    // Oversize items against the copies in the cells their bounds cover (once per item, by the same
    // first-shared-cell rule), then against each other.
    oversizePairsWithCells(
        lists_, oversize_, [&](ItemId id) { return circle(id); }, [&](const Circle& o) { return coverOf(o); },
        [&](const CellRange& range, std::uint32_t slot, const Node& node) {
          std::int32_t x0 = 0, y0 = 0;
          firstCellOf(node.circle, x0, y0);
          return std::max(x0, range.x0) == table[slot].x && std::max(y0, range.y0) == table[slot].y;
        },
        writer, direct, counters_.nodesVisited);
    addScanTotals(counters_, totals, direct);
  }

  // -- validation ---------------------------------------------------------------------------------------

  std::string doValidate() const override {
    if (std::string problem = lists_.checkLayout(); !problem.empty()) return "grid-replicated: " + problem;
    const CellTable& table = lists_.table();
    const NodeArray& nodes = lists_.nodes();
    // Every copy sits in a cell of its item's range and holds the current circle; each item has exactly
    // one copy per cell of its range (a copy per cell at most, and as many copies as cells).
    std::vector<std::uint32_t> copies(idCapacity(), 0);
    std::string problem;
    for (std::uint32_t slot = 0; slot < table.capacity() && problem.empty(); ++slot) {
      if (!table.occupied(slot)) continue;
      const std::int32_t cx = table[slot].x, cy = table[slot].y;
      std::vector<ItemId> here;
      lists_.forEachInCell(slot, [&](std::uint32_t n) {
        const Node& node = nodes[n];
        if (!problem.empty()) return;
        if (!contains(node.id)) {
          problem = "grid-replicated: a copy of absent item " + std::to_string(node.id);
        } else if (!(node.circle == circle(node.id))) {
          problem = "grid-replicated: a copy of item " + std::to_string(node.id) + " has a stale circle";
        } else if (!coverOf(node.circle).contains(cx, cy)) {
          problem =
              "grid-replicated: item " + std::to_string(node.id) + " is in a cell its circle does not cover";
        } else if (!isRegular(node.circle)) {
          problem = "grid-replicated: oversize item " + std::to_string(node.id) + " is in a cell";
        } else {
          ++copies[node.id];
          here.push_back(node.id);
        }
      });
      std::sort(here.begin(), here.end());
      if (problem.empty() && std::adjacent_find(here.begin(), here.end()) != here.end()) {
        problem = "grid-replicated: an item is twice in one cell";
      }
    }
    if (!problem.empty()) return problem;
    for (ItemId id : oversize_) {
      if (id >= copies.size() || !contains(id)) return "grid-replicated: oversize list holds an absent item";
      if (isRegular(circle(id)))
        return "grid-replicated: item " + std::to_string(id) + " is oversize but fits";
      if (copies[id]++ != 0)
        return "grid-replicated: item " + std::to_string(id) + " is both in cells and oversize";
    }
    forEachItem([&](ItemId id, const Circle& c) {
      if (!problem.empty()) return;
      const bool regular = isRegular(c);
      const double want = regular ? coverOf(c).count() : 1.0;
      if (double(copies[id]) != want) {
        problem = "grid-replicated: item " + std::to_string(id) + " has " + std::to_string(copies[id]) +
                  " copies, its range has " + std::to_string(want) + " cells";
      }
    });
    return problem;
  }

 private:
  /// A copy in the cell being scanned, with its edge flags: bit 0 when the cell is the first column of its
  /// item's range, bit 1 when it is the first row.
  struct Member {
    std::uint32_t node;
    std::uint32_t edges;
  };

  /// The edge flags of copy `n` in cell (cx, cy).
  std::uint32_t edgesOf(std::uint32_t n, std::int32_t cx, std::int32_t cy) const {
    if (edgesValid_) return edges_[n];
    std::int32_t x0 = 0, y0 = 0;
    firstCellOf(lists_.nodes()[n].circle, x0, y0);
    return (x0 == cx ? 1u : 0u) | (y0 == cy ? 2u : 0u);
  }

  /// The cells a circle is stored in: those its bounding box overlaps, widened by far more than the double
  /// predicates' rounding. Monotone in the coordinates, so two circles that overlap always share a cell.
  SPHERETEST_ALWAYS_INLINE CellRange coverOf(const Circle& c) const {
    const double x = c.center.x, y = c.center.y, r = c.radius;
    const double reach = r + (std::fabs(x) + std::fabs(y) + r) * 1e-9 + 1e-30;
    CellRange range;
    map_.cellOf(x - reach, y - reach, range.x0, range.y0);
    map_.cellOf(x + reach, y + reach, range.x1, range.y1);
    return range;
  }
  /// Whether a circle is stored in the cells of its range rather than in the oversize list: it must be no
  /// larger than the limit, and its range no larger than kMaxCopies cells. The range's rounding margin grows
  /// with the distance from the origin, and the cell size only bounds it relative to a cell for the extent
  /// of the last build: a circle inserted far beyond it would get a margin of thousands of cells, too many
  /// copies to write and more than a rebuild can count per item.
  bool isRegular(const Circle& c) const {
    return c.radius <= regularLimit_ && coverOf(c).count() <= kMaxCopies;
  }
  /// The first (lowest) column and row of coverOf(c), computed alone.
  void firstCellOf(const Circle& c, std::int32_t& x0, std::int32_t& y0) const {
    const double x = c.center.x, y = c.center.y, r = c.radius;
    const double reach = r + (std::fabs(x) + std::fabs(y) + r) * 1e-9 + 1e-30;
    map_.cellOf(x - reach, y - reach, x0, y0);
  }

  // The cells as the other grids show them; the queries are this grid's own (a circle has a copy in every
  // cell it covers, so no reach beyond the query is needed).
  LevelQuery cells() const { return {lists_, map_, 0.0, 0}; }
  NodeInfo slotInfo(std::uint32_t slot) const { return cells().slotInfo(slot); }

  // The point query: every circle containing p covers p's cell, so one cell is read and no copy is seen
  // twice. Each hit is handed to `take` until it returns false.
  template <class Take>
  void pointQuery(Vec2 p, QueryContext& ctx, Take&& take) const {
    const std::uint32_t slot = lists_.table().find(map_.cellOf(p.x), map_.cellOf(p.y));
    ++ctx.counters.nodesVisited;
    const auto contains = [p](const Circle& c) { return circleContainsPoint(c, p); };
    if (slot != kNoIndex && !cells().scanCell(ctx, slot, nodeScan(ctx, contains, take))) return;
    for (ItemId id : oversize_)
      if (ctx.examine(id, contains(circle(id))) && !take(id)) return;
  }

  template <class Take>
  void circleQuery(const Circle& query, QueryContext& ctx, Take&& take) const {
    queryCovered(
        ctx, coverOf(query), [&](const Circle& c) { return circlesOverlap(c, query); }, take,
        [](std::uint32_t) { return false; });
  }

  template <class Take>
  void boxQuery(const Box& box, QueryContext& ctx, Take&& take) const {
    const Box widened = inflateForPruning(box);
    const CellRange range{map_.cellOf(widened.min.x), map_.cellOf(widened.min.y), map_.cellOf(widened.max.x),
                          map_.cellOf(widened.max.y)};
    queryCovered(
        ctx, range, [&](const Circle& c) { return circleOverlapsBox(c, box); }, take,
        [](std::uint32_t) { return false; });
  }

  /// queryCovered's search of a sorted grid whose cells all sit at their home in the hash window: the cells
  /// of a row are consecutive slots, read with no lookup (cells outside the window are empty), each
  /// occupied one that `skip` keeps handed copy by copy to testCopy(node, column, row). False when that
  /// stopped the query.
  template <class TestCopy, class Skip>
  bool searchRows(CellRange range, TestCopy&& testCopy, Skip&& skip) const {
    const CellTable& table = lists_.table();
    if (!table.clampToWindow(range)) return true;
    for (std::int32_t y = range.y0; y <= range.y1; ++y) {
      const std::uint32_t rowSlot = table.home(range.x0, y);
      for (std::int32_t x = range.x0; x <= range.x1; ++x) {
        const std::uint32_t slot = rowSlot + static_cast<std::uint32_t>(x - range.x0);
        const std::uint32_t begin = table.head(slot), end = table.head(slot + 1);
        if (begin == end || skip(slot)) continue;
        for (std::uint32_t n = begin; n < end; ++n)
          if (!testCopy(n, x, y)) return false;
      }
    }
    return true;
  }

  /// Circle, box and cone queries: every cell of the query's own range but those `skip` rules out, each
  /// copy tested only in the first cell its item's range shares with the query's, each hit handed to
  /// `take` until it returns false. Only a cell that no visible circle overlaps may be skipped: a copy
  /// tested in its first shared cell alone is then never lost.
  template <class Predicate, class Take, class Skip>
  void queryCovered(QueryContext& ctx, const CellRange& range, Predicate&& predicate, Take&& take,
                    Skip&& skip) const {
    const CellTable& table = lists_.table();
    const NodeArray& nodes = lists_.nodes();
    // A copy is tested only in the first cell its item's range shares with the query's: the first column
    // of either range, and the first row of either. False when `take` stopped the query.
    const auto testCopy = [&](std::uint32_t n, std::int32_t cx, std::int32_t cy) {
      const std::uint32_t queryEdges = (cx == range.x0 ? 1u : 0u) | (cy == range.y0 ? 2u : 0u);
      if ((edgesOf(n, cx, cy) | queryEdges) != 3) return true;  // seen in another cell
      return !ctx.examine(nodes[n].id, predicate(nodes[n].circle)) || take(nodes[n].id);
    };
    bool done = true;
    // The trace and the teaching detail take the lookups' path; a range larger than the table is walked
    // through the table (visitRange), which the rows would not count alike.
    if (lists_.sorted() && table.windowOnly() && !ctx.tracing() && ctx.detail == nullptr &&
        range.count() <= 2.0 * double(table.used()) + 16.0) {
      ctx.counters.nodesVisited += static_cast<std::uint64_t>(range.count());
      done = searchRows(range, testCopy, skip);
    } else {
      ctx.counters.nodesVisited += visitRange(range, [&](std::uint32_t slot) {
        if (skip(slot)) {
          if (ctx.tracing()) ctx.prune(slotInfo(slot), "no circle in the cell can reach the cone");
          return true;
        }
        cells().enterCell(ctx, slot);
        const std::int32_t cx = table[slot].x, cy = table[slot].y;
        return done = lists_.forEachInCellUntil(slot, [&](std::uint32_t n) { return testCopy(n, cx, cy); });
      });
    }
    if (!done) return;
    for (ItemId id : oversize_)
      if (ctx.examine(id, predicate(circle(id))) && !take(id)) return;
  }

  template <class Fn>
  std::uint64_t visitRange(const CellRange& range, Fn&& fn) const {
    return grid_detail::visitRange(lists_.table(), range, fn);
  }

  // -- building and moving copies ---------------------------------------------------------------------------

  /// Lays out every copy of the staged items, sorted by cell, with each copy's edge flags.
  void fill(std::size_t expectedItems) {
    lists_.fillCovered(
        stage_, [&](const Node& item, CellRange& r) { r = coverOf(item.circle); },
        std::max(lists_.table().used(), expectedItems), slots_, copies_, &edges_, &edgeScratch_);
    edgesValid_ = true;
  }

  /// Whole-frame path: restages every item in the order of the current layout (each from the first cell
  /// of its old range, known from the edge flags), with its circle re-read from the item table, and lays
  /// all copies out again.
  void rebuildAll() {
    stage_.clear();
    const CellTable& table = lists_.table();
    const NodeArray& nodes = lists_.nodes();
    std::vector<ItemId> stillOversize;
    const auto restage = [&](ItemId id) {
      const Circle& c = circle(id);
      const CellRange r = coverOf(c);
      if (c.radius <= regularLimit_ && r.count() <= kMaxCopies) {
        stage_.push_back(Node{c, id});
      } else {
        stillOversize.push_back(id);
      }
    };
    if (edgesValid_) {
      // The layout fill() made: the nodes in cell order, each item's first copy flagged.
      for (std::uint32_t n = 0; n < nodes.size(); ++n) {
        prefetchItemAhead(*this, nodes, n);
        if (edges_[n] == 3) restage(nodes[n].id);
      }
    } else {
      for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
        if (!table.occupied(slot)) continue;
        const std::int32_t cx = table[slot].x, cy = table[slot].y;
        lists_.forEachInCell(slot, [&](std::uint32_t n) {
          prefetchItemAhead(*this, nodes, n);
          if (isFirstCell(nodes[n].circle, cx, cy)) restage(nodes[n].id);
        });
      }
    }
    for (ItemId id : oversize_) restage(id);
    oversize_.swap(stillOversize);
    fill(stage_.size());
    counters_.nodesVisited += table.used();
  }

  /// Whether (cx, cy) is the first cell of the circle's range.
  bool isFirstCell(const Circle& c, std::int32_t cx, std::int32_t cy) const {
    std::int32_t x0 = 0, y0 = 0;
    firstCellOf(c, x0, y0);
    return x0 == cx && y0 == cy;
  }

  void addCopies(ItemId id, const Circle& c) {
    if (!isRegular(c)) {
      oversize_.push_back(id);
      return;
    }
    const CellRange r = coverOf(c);
    edgesValid_ = false;
    for (std::int32_t y = r.y0; y <= r.y1; ++y) {
      for (std::int32_t x = r.x0; x <= r.x1; ++x) lists_.link(x, y, id, c);
    }
    counters_.nodesVisited += static_cast<std::uint64_t>(r.count());
  }

  void removeCopies(ItemId id, const Circle& c) {
    if (!isRegular(c)) {
      oversize_.erase(std::find(oversize_.begin(), oversize_.end(), id));
      return;
    }
    const CellRange r = coverOf(c);
    edgesValid_ = false;
    for (std::int32_t y = r.y0; y <= r.y1; ++y) {
      for (std::int32_t x = r.x0; x <= r.x1; ++x) lists_.unlink(x, y, lists_.findInCell(x, y, id));
    }
    counters_.nodesVisited += static_cast<std::uint64_t>(r.count());
  }

  void moveOne(ItemId id, const Circle& old, const Circle& c) {
    const bool wasRegular = isRegular(old), nowRegular = isRegular(c);
    if (wasRegular && nowRegular) {
      const CellRange before = coverOf(old), after = coverOf(c);
      if (before.x0 == after.x0 && before.y0 == after.y0 && before.x1 == after.x1 && before.y1 == after.y1) {
        // Same cells: refresh the copies in place.
        for (std::int32_t y = after.y0; y <= after.y1; ++y) {
          for (std::int32_t x = after.x0; x <= after.x1; ++x)
            lists_.nodes()[lists_.findInCell(x, y, id)].circle = c;
        }
        counters_.nodesVisited += static_cast<std::uint64_t>(after.count());
        return;
      }
    } else if (!wasRegular && !nowRegular) {
      return;  // the oversize list holds ids only
    }
    removeCopies(id, old);
    addCopies(id, c);
  }

  CellLists lists_;
  CellMapping map_;
  float regularLimit_ = 0.0f;              // larger circles live in oversize_
  NodeArray stage_;                        // items being laid out by a rebuild, in layout order
  std::vector<std::uint32_t> slots_;       // slot of each copy during a rebuild
  std::vector<std::uint8_t> copies_;       // copies of each staged item during a rebuild
  std::vector<std::uint8_t> edges_;        // edge flags of each node, while edgesValid_
  std::vector<std::uint8_t> edgeScratch_;  // edge flags of each copy during a rebuild
  bool edgesValid_ = false;                // the layout is the one the last fill() made
  std::vector<ItemId> oversize_;
  std::int32_t originX_ = 0;
  std::int32_t originY_ = 0;
  std::uint32_t windowWidth_ = 0;
  std::uint32_t windowHeight_ = 0;
  bool lastBatchRebuilt_ = false;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeReplicatedGrid() {
  return std::make_unique<ReplicatedGrid>();
}

}  // namespace st
