// grid: the hashed uniform grid of "Finding nearby stuff" (seed 002). Cell coordinates hash to a cell's list
// of items in one node array; only occupied cells cost memory and there are no world bounds. Whole-frame
// updates re-sort the node array by cell (a counting sort) so that every cell's list is a contiguous run and
// runs follow space, which is what lets the all-pairs scan run at memory speed.

#include <algorithm>
#include <cmath>
#include <string>

#include "grid_common.hpp"
#include "grid_queries.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using namespace grid_detail;

/// Marks a per-id index entry as a position in the oversize list rather than a node.
constexpr std::uint32_t kOversizeBit = 0x80000000u;

class HashedGrid final : public TakerQueries<HashedGrid> {
  friend TakerQueries<HashedGrid>;

 public:
  HashedGrid() : TakerQueries("grid") {
    for (const ParamInfo& param : gridParams("cell size", "re-sort the whole grid")) addParam(param);
    addParam(wideVectorsParam());
  }

  std::string_view description() const override {
    return "Hashed uniform grid (seed 002, 'Finding nearby stuff'): a hash table maps the occupied cells to "
           "lists in one node array, with cells as large as the largest diameter, so each circle is stored "
           "once, in the cell of its centre. Queries read the cells their range covers; pair finding tests "
           "each cell against itself and the forward half of its neighbourhood, and busy frames re-sort or "
           "re-file the circles so that each cell's circles lie together in memory. Choose it for many "
           "similar-sized moving circles; mixed sizes make every cell fit the largest (see hgrid).";
  }

  void visitNodes(const NodeVisitor& visitor) const override { level().visitCells(visitor); }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    const Vec2 c = circle(id).center;
    const std::int32_t x = map_.cellOf(c.x), y = map_.cellOf(c.y);
    const std::uint32_t slot = lists_.table().find(x, y);
    if (slot == kNoIndex) return;  // an oversize circle lives in no cell
    bool here = false;
    lists_.forEachInCell(slot, [&](std::uint32_t n) { here = here || lists_.nodes()[n].id == id; });
    if (here) visitor(cellInfo(map_, x, y, 0, lists_.cellSize(slot)));
  }

  std::string_view nodeRule() const override {
    return "a cell holds the circles whose centre lies in it (circles larger than the cell go to the "
           "oversize "
           "list)";
  }

  IndexStats stats() const override {
    IndexStats st;
    st.nodes = lists_.table().used();
    st.maxDepth = 0;
    st.memoryBytes = tableBytes() + lists_.memoryBytes() + index_.capacity() * sizeof(std::uint32_t) +
                     oversize_.capacity() * sizeof(ItemId) + movers_.capacity() * sizeof(std::uint64_t);
    return st;
  }

  void extra(ExtraCounters& out) const override {
    const CellTable& table = lists_.table();
    std::uint32_t maxPerCell = 0;
    for (std::uint32_t slot = 0; slot < table.capacity(); ++slot) {
      if (table.occupied(slot)) maxPerCell = std::max(maxPerCell, lists_.cellSize(slot));
    }
    const double cells = double(table.used());
    out.push_back({"cell_size", map_.size});
    out.push_back({"pair_reach_cells", double(reach_)});
    out.push_back({"occupied_cells", cells});
    out.push_back({"items_per_cell", cells > 0 ? double(lists_.liveNodes()) / cells : 0.0});
    out.push_back({"max_items_per_cell", double(maxPerCell)});
    out.push_back({"oversize_items", double(oversize_.size())});
    out.push_back({"hash_slots", double(table.capacity())});
    out.push_back({"hash_load", table.capacity() ? cells / double(table.capacity()) : 0.0});
    out.push_back({"hash_scrambled", table.scrambled() ? 1.0 : 0.0});
    out.push_back({"sorted_layout", lists_.sorted() ? 1.0 : 0.0});
    out.push_back({"vector_lanes", double(vectorLanes())});
    out.push_back({"last_batch_rebuilt", lastBatchRebuilt_ ? 1.0 : 0.0});
    out.push_back({"last_batch_refiled", lastBatchRefiled_ ? 1.0 : 0.0});
    out.push_back({"last_batch_cell_changes", double(lastBatchCellChanges_)});
    out.push_back({"rebuild_batches", double(rebuildBatches_)});
    out.push_back({"refile_batches", double(refileBatches_)});
    out.push_back({"incremental_batches", double(incrementalBatches_)});
    out.push_back({"bytes_per_item", size() ? double(stats().memoryBytes) / double(size()) : 0.0});
  }

 protected:
  void onParamChanged(std::string_view key) override {
    if (key == "rebuild_fraction" || key == "wide_vectors") return;  // only steer future batches and scans
    rebuildFromTable();
  }

  // -- mutation -----------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    retune(items);
    NodeArray& nodes = lists_.nodes();
    nodes.clear();
    nodes.reserve(items.size());
    oversize_.clear();
    float largest = 0.0f;
    for (const Item& item : items) {
      if (item.circle.radius <= regularLimit_) {
        nodes.push_back(Node{item.circle, item.id});
        largest = std::max(largest, item.circle.radius);
      } else {
        oversize_.push_back(item.id);
      }
    }
    lists_.table().configureHash(false, originX_, originY_, windowWidth_, windowHeight_);
    sortNodes(items.size() * 2 / 3, [&](Node& node, std::size_t, std::int32_t& x, std::int32_t& y) {
      map_.cellOf(node.circle.center, x, y);
      return true;
    });
    maxRegularRadius_ = largest;
    reach_ = map_.reachFor(2.0 * maxRegularRadius_);
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (lists_.liveNodes() + oversize_.size() == 0) {
      // The first item of an empty grid sets the cell size (the table already holds it).
      rebuildFromTable();
      return;
    }
    ensureIndex();
    if (c.radius <= regularLimit_) {
      index_[id] = lists_.link(map_.cellOf(c.center.x), map_.cellOf(c.center.y), id, c);
      growRadius(c.radius);
    } else {
      index_[id] = kOversizeBit | static_cast<std::uint32_t>(oversize_.size());
      oversize_.push_back(id);
    }
    ++counters_.nodesVisited;
  }

  void doUpdate(ItemId id, const Circle& old, const Circle& c) override {
    ensureIndex();
    moveOne(id, old, c);
  }

  bool batchNeedsOldCircles(std::size_t batchSize) const override {
    return !wholeFrameBatch(*this, batchSize);  // that path re-reads the table
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override {
    lastBatchCellChanges_ = 0;
    if (wholeFrameBatch(*this, ids.size())) {
      lastBatchRebuilt_ = true;
      ++rebuildBatches_;
      const std::ptrdiff_t moved = refileAll();
      lastBatchRefiled_ = moved >= 0;
      if (lastBatchRefiled_) {
        ++refileBatches_;
        lastBatchCellChanges_ = static_cast<std::size_t>(moved);
      } else {
        resortAll();
      }
      counters_.nodesVisited += lists_.table().used();
      return;
    }
    lastBatchRebuilt_ = false;
    lastBatchRefiled_ = false;
    ++incrementalBatches_;
    ensureIndex();
    for (std::size_t i = 0; i < ids.size(); ++i) moveOne(ids[i], old[i], circle(ids[i]));
  }

  void doRemove(ItemId id, const Circle& c) override {
    ensureIndex();
    const std::uint32_t where = index_[id];
    if (where & kOversizeBit) {
      dropOversize(where & ~kOversizeBit);
    } else {
      lists_.unlink(map_.cellOf(c.center.x), map_.cellOf(c.center.y), where);
    }
    index_[id] = kNoIndex;
    ++counters_.nodesVisited;
  }

  void doClear() override {
    lists_.release();
    oversize_.clear();
    std::vector<std::uint32_t>().swap(index_);
    indexValid_ = false;
    maxRegularRadius_ = 0.0f;
    reach_ = 1;
  }

  void doMaintain() override {
    // Items that outgrew the reference size pile up in the oversize list, which every query scans: once
    // they are a noticeable share, re-derive the cell size from the items as they are now.
    if (oversize_.size() > 8 && oversize_.size() * 16 > size()) rebuildFromTable();
  }

  // -- queries ------------------------------------------------------------------------------------------

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    level().rayCast(ctx, segment, out);
    for (ItemId id : oversize_) {
      float t = 0.0f;
      if (ctx.examine(id, segmentHitsCircle(segment, circle(id), t))) out.push_back(rayHitAt(segment, id, t));
    }
  }

  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override {
    visibleNow.clear();
    level().queryCone(ctx, cone, bvh::ConeClassifier(cone), visibleNow);
    scanOversize(
        ctx, [&cone](const Circle& c) { return circleOverlapsCone(c, cone); }, takerFor(visibleNow));
    std::sort(visibleNow.begin(), visibleNow.end());
  }

  void doFindPairs(std::vector<Pair>& out) override {
    pairs::ScanTotals totals;
    gridPairs(scheduler(), lists_, std::min(reach_, kMaxReach), vectorLanes(), out, totals);
    PairWriter writer(out);
    std::uint64_t direct = 0;  // oversize pairs, tested exactly without a pre-test
    // Oversize items: against the cells their circle reaches, then against each other.
    oversizePairsWithCells(
        lists_, oversize_, [&](ItemId id) { return circle(id); },
        [&](const Circle& o) {
          return centreRange(map_, o.center.x, o.center.y, o.center.x, o.center.y,
                             double(o.radius) + double(maxRegularRadius_));
        },
        [](const CellRange&, std::uint32_t, const Node&) { return true; }, writer, direct,
        counters_.nodesVisited);
    addScanTotals(counters_, totals, direct);
  }

  // -- validation ---------------------------------------------------------------------------------------

  std::string doValidate() const override {
    if (std::string problem = lists_.checkLayout(); !problem.empty()) return "grid: " + problem;
    const NodeArray& nodes = lists_.nodes();
    const CellTable& table = lists_.table();
    // Every node sits in the cell of its centre and holds its item's current circle.
    std::string problem;
    for (std::uint32_t slot = 0; slot < table.capacity() && problem.empty(); ++slot) {
      if (!table.occupied(slot)) continue;
      lists_.forEachInCell(slot, [&](std::uint32_t n) {
        const Node& node = nodes[n];
        if (!problem.empty()) return;
        if (!contains(node.id)) {
          problem = "grid: node " + std::to_string(n) + " holds absent item " + std::to_string(node.id);
        } else if (!(node.circle == circle(node.id))) {
          problem = "grid: item " + std::to_string(node.id) + " has a stale circle";
        } else if (map_.cellOf(node.circle.center.x) != table[slot].x ||
                   map_.cellOf(node.circle.center.y) != table[slot].y) {
          problem = "grid: item " + std::to_string(node.id) + " is in a cell other than its centre's";
        } else if (node.circle.radius > regularLimit_) {
          problem = "grid: oversize item " + std::to_string(node.id) + " is in a cell";
        } else if (node.circle.radius > maxRegularRadius_) {
          problem = "grid: the largest-radius bound is stale";
        }
      });
    }
    if (!problem.empty()) return problem;
    if (map_.reachFor(2.0 * maxRegularRadius_) > reach_)
      return "grid: pair reach is too small for the largest item";
    // Every item is stored exactly once: regular ones in one cell (above), the others in the oversize list.
    std::vector<std::uint8_t> seen(idCapacity(), 0);
    for (const Node& node : nodes) {
      if (node.id == kDeadId) continue;
      if (node.id >= seen.size() || seen[node.id]++)
        return "grid: item " + std::to_string(node.id) + " is stored twice";
    }
    for (ItemId id : oversize_) {
      if (id >= seen.size() || !contains(id)) return "grid: oversize list holds an absent item";
      if (seen[id]++) return "grid: item " + std::to_string(id) + " is stored twice";
      if (circle(id).radius <= regularLimit_)
        return "grid: item " + std::to_string(id) + " is oversize but fits a cell";
    }
    forEachItem([&](ItemId id, const Circle&) {
      if (problem.empty() && !seen[id]) problem = "grid: item " + std::to_string(id) + " is stored nowhere";
    });
    if (!problem.empty()) return problem;
    if (indexValid_) {
      for (std::uint32_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n].id != kDeadId && index_[nodes[n].id] != n) return "grid: id index is stale";
      }
      for (std::uint32_t k = 0; k < oversize_.size(); ++k) {
        if (index_[oversize_[k]] != (kOversizeBit | k)) return "grid: id index of an oversize item is stale";
      }
    }
    return {};
  }

 private:
  /// Lanes of the vector loops on this CPU.
  int vectorLanes() const { return vectorLanesFor(param("wide_vectors")); }

  // -- tuning and sorting -------------------------------------------------------------------------------

  /// Chooses the cell size from the items (largest diameter, extent) and the parameters.
  void retune(std::span<const Item> items) {
    const GridShape shape = shapeFor(items, param("cell_size"), param("cell_scale"), worldHint());
    map_ = shape.map;
    originX_ = shape.originX;
    originY_ = shape.originY;
    windowWidth_ = shape.windowWidth;
    windowHeight_ = shape.windowHeight;
    // Items up to the reference diameter are regular even when the cell is smaller (then the reach grows),
    // but never so large that the neighbourhood outgrows what the scans support.
    const double cell = map_.size / kCellPadding;
    regularLimit_ = static_cast<float>(
        std::min(std::max(cell * 0.5, shape.largestDiameter * 0.5), map_.size * kMaxReach * 0.5 * 0.999));
  }

  /// The whole-frame path while the layout is sorted and every cell lies in the hash window: re-reads every
  /// node's circle and moves only the nodes whose cell changed (a few percent per frame in a moving scene),
  /// keeping the layout sorted. Returns how many moved, or -1 when this does not apply (an item became
  /// oversize or one came back, a cell outside the window): then the caller re-sorts.
  std::ptrdiff_t refileAll() {
    for (ItemId id : oversize_) {
      if (circle(id).radius <= regularLimit_) return -1;
    }
    // The largest radius, kept per worker (the sweep runs on every worker), each on its own cache line, and
    // folded after.
    struct alignas(64) Largest {
      float value = 0.0f;
    };
    std::vector<Largest> largestOf(scheduler().workerCount());
    const std::ptrdiff_t moved = lists_.refile(
        [&](Node& node, std::uint32_t n, CellMove& move, unsigned worker) {
          prefetchItemAhead(*this, lists_.nodes(), n);
          const Vec2 before = node.circle.center;
          node.circle = circle(node.id);
          if (node.circle.radius > regularLimit_) return NodeChange::Refused;
          largestOf[worker].value = std::max(largestOf[worker].value, node.circle.radius);
          return cellChanged(map_, before, node.circle.center, move) ? NodeChange::Moved : NodeChange::Stayed;
        },
        movers_, vectorLanes(), scheduler());
    if (moved < 0) return -1;
    float largest = 0.0f;
    for (const Largest& l : largestOf) largest = std::max(largest, l.value);
    if (moved > 0) {
      // The id index is stale now, and busy frames do not need it: hand its memory back until a single-item
      // edit or a full sort asks for it again.
      indexValid_ = false;
      std::vector<std::uint32_t>().swap(index_);
    }
    maxRegularRadius_ = largest;
    reach_ = map_.reachFor(2.0 * maxRegularRadius_);
    return moved;
  }

  /// Re-sorts every node by cell (the whole-frame path), re-reading each item's circle from the table.
  void resortAll() {
    // Oversize items that shrank back join the cells first, so that the sort places them.
    std::size_t keep = 0;
    for (ItemId id : oversize_) {
      const Circle& c = circle(id);
      if (c.radius <= regularLimit_) {
        lists_.nodes().push_back(Node{c, id});
      } else {
        oversize_[keep++] = id;
      }
    }
    oversize_.resize(keep);
    refreshCircles(*this, lists_.nodes());
    float largest = 0.0f;
    sortNodes(lists_.table().used(), [&](Node& node, std::size_t, std::int32_t& x, std::int32_t& y) {
      if (node.circle.radius > regularLimit_) return false;
      largest = std::max(largest, node.circle.radius);
      map_.cellOf(node.circle.center, x, y);
      return true;
    });
    oversize_.insert(oversize_.end(), departed_.begin(), departed_.end());
    maxRegularRadius_ = largest;
    reach_ = map_.reachFor(2.0 * maxRegularRadius_);
  }

  /// Sorts the nodes by cell, switching to the scrambled hash if the space-coherent one collides badly.
  template <class CellOfNode>
  void sortNodes(std::size_t expectedCells, CellOfNode&& cellOf) {
    indexValid_ = false;  // the sort borrows the id index's buffer
    CellTable& table = lists_.table();
    table.configureHash(table.scrambled(), originX_, originY_, windowWidth_, windowHeight_);
    if (!lists_.sort(cellOf, expectedCells, index_, departed_)) {
      table.configureHash(true, originX_, originY_, windowWidth_, windowHeight_);
      lists_.sort(cellOf, expectedCells, index_, departed_);
    }
  }

  // -- single-item moves ----------------------------------------------------------------------------------

  /// Builds the id -> node index when a single-item operation needs it (sorts leave it stale).
  void ensureIndex() {
    if (index_.size() < idCapacity()) index_.resize(idCapacity(), kNoIndex);
    if (indexValid_) return;
    std::fill(index_.begin(), index_.end(), kNoIndex);
    const NodeArray& nodes = lists_.nodes();
    for (std::uint32_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].id != kDeadId) index_[nodes[n].id] = n;
    }
    for (std::uint32_t k = 0; k < oversize_.size(); ++k) index_[oversize_[k]] = kOversizeBit | k;
    indexValid_ = true;
  }

  void moveOne(ItemId id, const Circle& old, const Circle& c) {
    const bool wasRegular = old.radius <= regularLimit_;
    const bool isRegular = c.radius <= regularLimit_;
    const std::uint32_t where = index_[id];
    ++counters_.nodesVisited;
    if (wasRegular && isRegular) {
      const std::int32_t x0 = map_.cellOf(old.center.x), y0 = map_.cellOf(old.center.y);
      const std::int32_t x1 = map_.cellOf(c.center.x), y1 = map_.cellOf(c.center.y);
      if (x0 != x1 || y0 != y1) {
        lists_.relink(x0, y0, x1, y1, where);
        ++lastBatchCellChanges_;
      }
      lists_.nodes()[where].circle = c;
      growRadius(c.radius);
    } else if (wasRegular) {
      lists_.unlink(map_.cellOf(old.center.x), map_.cellOf(old.center.y), where);
      index_[id] = kOversizeBit | static_cast<std::uint32_t>(oversize_.size());
      oversize_.push_back(id);
    } else if (isRegular) {
      dropOversize(where & ~kOversizeBit);
      index_[id] = lists_.link(map_.cellOf(c.center.x), map_.cellOf(c.center.y), id, c);
      growRadius(c.radius);
    }
  }

  void dropOversize(std::uint32_t position) {
    const ItemId last = oversize_.back();
    oversize_[position] = last;
    oversize_.pop_back();
    if (position < oversize_.size()) index_[last] = kOversizeBit | position;
  }

  void growRadius(float r) {
    if (r <= maxRegularRadius_) return;
    maxRegularRadius_ = r;
    reach_ = std::max(reach_, map_.reachFor(2.0 * double(r)));
  }

  // -- scanning ---------------------------------------------------------------------------------------------

  // The cells as the shared grid queries read them (grid_queries.hpp).
  LevelQuery level() const { return {lists_, map_, maxRegularRadius_, 0}; }

  template <class Fn>
  std::uint64_t visitRange(const CellRange& range, Fn&& fn) const {
    return grid_detail::visitRange(lists_.table(), range, fn);
  }

  // Every query tests the oversize circles one by one, handing each hit to `take` until it returns false.
  template <class Test, class Take>
  void scanOversize(QueryContext& ctx, Test&& test, Take&& take) const {
    for (ItemId id : oversize_)
      if (ctx.examine(id, test(circle(id))) && !take(id)) return;
  }

  // The point, circle and box queries: the level's cells, then the oversize list, each hit handed to
  // `take` until it returns false.
  template <class Take>
  void pointQuery(Vec2 p, QueryContext& ctx, Take&& take) const {
    const auto contains = [&](const Circle& c) { return circleContainsPoint(c, p); };
    if (level().queryAround(ctx, p, 0.0, contains, take)) scanOversize(ctx, contains, take);
  }
  template <class Take>
  void circleQuery(const Circle& query, QueryContext& ctx, Take&& take) const {
    const auto overlaps = [&](const Circle& c) { return circlesOverlap(c, query); };
    if (level().queryAround(ctx, query.center, query.radius, overlaps, take))
      scanOversize(ctx, overlaps, take);
  }
  template <class Take>
  void boxQuery(const Box& box, QueryContext& ctx, Take&& take) const {
    if (level().queryBox(ctx, box, take))
      scanOversize(
          ctx, [&](const Circle& c) { return circleOverlapsBox(c, box); }, take);
  }

  CellLists lists_;
  CellMapping map_;
  float regularLimit_ = 0.0f;      // items with a larger radius live in oversize_
  float maxRegularRadius_ = 0.0f;  // an upper bound of the radii in cells (exact after a sort)
  int reach_ = 1;                  // pair neighbourhood half-width in cells
  std::vector<ItemId> oversize_;
  std::vector<std::uint32_t> index_;  // id -> node (or kOversizeBit | position); the sort's scratch
  bool indexValid_ = false;
  std::vector<ItemId> departed_;
  std::int32_t originX_ = 0;  // the hash's window of cells
  std::int32_t originY_ = 0;
  std::uint32_t windowWidth_ = 0;
  std::uint32_t windowHeight_ = 0;
  bool lastBatchRebuilt_ = false;
  bool lastBatchRefiled_ = false;
  std::vector<std::uint64_t> movers_;  // refile's scratch
  std::uint64_t refileBatches_ = 0;
  std::size_t lastBatchCellChanges_ = 0;
  std::uint64_t rebuildBatches_ = 0;
  std::uint64_t incrementalBatches_ = 0;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeGrid() {
  return std::make_unique<HashedGrid>();
}

}  // namespace st
