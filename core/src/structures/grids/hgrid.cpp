// hgrid: the hierarchical spatial hash one commenter suggests for circles of many sizes (comments on seed
// 003): hashed grids composed like a mipmap, each level's cells twice the size of the level below. A circle
// lives in the one level whose cells match its size, so within a level every circle is at most a cell
// across and pairs lie in neighbouring cells, exactly as in a plain grid; across levels, a circle only has
// to look up the few coarser cells around its own. Empty levels hold nothing and cost nothing.

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "grid_common.hpp"
#include "grid_queries.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using namespace grid_detail;

/// Level exponents: a level's fit size is the reference size times 2^exponent.
constexpr int kMinExponent = -128;
constexpr int kMaxExponent = 127;
/// Smallest reference size, so that the coarsest exponent still fits the largest accepted circle.
constexpr double kMinReference = 1e-20;

class HierarchicalGrid final : public TakerQueries<HierarchicalGrid> {
  friend TakerQueries<HierarchicalGrid>;

 public:
  HierarchicalGrid() : TakerQueries("hgrid") {
    for (const ParamInfo& param :
         gridParams("cell size of the level of the largest circles", "re-sort every level"))
      addParam(param);
    addParam(wideVectorsParam());
    levelIndex_.fill(-1);
  }

  std::string_view description() const override {
    return "Hierarchical spatial hash (comments on seed 003): hashed grids like the mipmap levels of a "
           "texture, each level's cells twice the size of the level below, every circle in the level whose "
           "fit size is the smallest power-of-two multiple not below its diameter. Each level is a grid of "
           "its own, and pair finding checks each level against itself and every occupied cell against the "
           "few cells of each coarser level within reach, so a few huge circles add a few coarse cells "
           "instead of making every cell huge. Choose it for moving circles of mixed sizes.";
  }

  void visitNodes(const NodeVisitor& visitor) const override {
    for (const Level& level : levels_) query(level).visitCells(visitor);
  }

  void visitPathTo(ItemId id, const NodeVisitor& visitor) const override {
    const Circle& c = circle(id);
    const int at = levelIndex_[slotOfExponent(levelOf(c.radius))];
    if (at < 0) return;
    const Level& level = levels_[std::size_t(at)];
    const std::uint32_t slot =
        level.lists.table().find(level.shape.map.cellOf(c.center.x), level.shape.map.cellOf(c.center.y));
    if (slot != kNoIndex) visitor(slotInfo(level, slot));
  }

  std::string_view nodeRule() const override {
    return "a circle's level follows from its size (cells twice its diameter at most), its cell there from "
           "its "
           "centre";
  }

  IndexStats stats() const override {
    IndexStats st;
    st.memoryBytes = tableBytes() + index_.capacity() * sizeof(std::uint32_t) +
                     levels_.capacity() * sizeof(Level) + moving_.capacity() * sizeof(Moving);
    for (const Level& level : levels_) {
      st.nodes += level.lists.table().used();
      st.memoryBytes += level.lists.memoryBytes();
    }
    st.maxDepth = levels_.empty() ? 0 : levels_.back().exponent - levels_.front().exponent;
    return st;
  }

  void extra(ExtraCounters& out) const override {
    out.push_back({"levels", double(levels_.size())});
    out.push_back({"reference_fit_size", reference_});
    out.push_back({"finest_fit_size", levels_.empty() ? 0.0 : fit(levels_.front().exponent)});
    out.push_back({"coarsest_fit_size", levels_.empty() ? 0.0 : fit(levels_.back().exponent)});
    // Coarsest first, as visitNodes' depths count.
    for (std::size_t k = 0; k < levels_.size() && k < 8; ++k) {
      const Level& level = levels_[levels_.size() - 1 - k];
      out.push_back({"level" + std::to_string(k) + "_items", double(level.lists.liveNodes())});
      out.push_back({"level" + std::to_string(k) + "_cells", double(level.lists.table().used())});
    }
    out.push_back({"vector_lanes", double(vectorLanes())});
    out.push_back({"last_pairs_cross_level_cells", double(lastCrossCells_)});
    out.push_back({"last_pairs_cross_level_candidates", double(lastCrossCandidates_)});
    out.push_back({"last_batch_rebuilt", lastBatchRebuilt_ ? 1.0 : 0.0});
    out.push_back({"bytes_per_item", size() ? double(stats().memoryBytes) / double(size()) : 0.0});
  }

 protected:
  void onParamChanged(std::string_view key) override {
    if (key == "rebuild_fraction" || key == "wide_vectors") return;  // only steer future batches and scans
    rebuildFromTable();
  }

  // -- mutation -----------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    const GridShape shape = shapeFor(items, param("cell_size"), param("cell_scale"), worldHint());
    reference_ = std::max(shape.map.size / kCellPadding, kMinReference);
    region_ = shape.region;
    // The finest level keeps the items' extent well inside the cell-index clamp; smaller circles (points
    // included) share it.
    minExponent_ = kMinExponent;
    while (minExponent_ < kMaxExponent && fit(minExponent_) * 0x1.0p28 < shape.extent) ++minExponent_;
    levels_.clear();
    levelIndex_.fill(-1);
    // Count each level's circles first: a level's cells are at least its fit size, and also large enough
    // to hold about one circle each, so that a sparse level of small circles does not pay a lookup per
    // empty neighbour.
    std::array<std::uint32_t, kMaxExponent - kMinExponent + 1> counts{};
    for (const Item& item : items) ++counts[slotOfExponent(levelOf(item.circle.radius))];
    for (int e = kMinExponent; e <= kMaxExponent; ++e) {
      if (counts[slotOfExponent(e)] > 0) levelFor(e, counts[slotOfExponent(e)]);
    }
    for (const Item& item : items) {
      Level& level = levels_[levelFor(levelOf(item.circle.radius))];
      level.lists.nodes().push_back(Node{item.circle, item.id});
    }
    for (Level& level : levels_) sortLevel(level, level.lists.nodes().size() * 2 / 3);
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (levels_.empty()) {
      rebuildFromTable();  // the first item sets the reference size
      return;
    }
    ensureIndex();
    Level& level = levels_[levelFor(levelOf(c.radius))];
    index_[id] =
        level.lists.link(level.shape.map.cellOf(c.center.x), level.shape.map.cellOf(c.center.y), id, c);
    level.maxRadius = std::max(level.maxRadius, c.radius);
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
    lastBatchRebuilt_ = wholeFrameBatch(*this, ids.size());
    if (lastBatchRebuilt_) {
      resortAll();
      return;
    }
    ensureIndex();
    for (std::size_t i = 0; i < ids.size(); ++i) moveOne(ids[i], old[i], circle(ids[i]));
  }

  void doRemove(ItemId id, const Circle& c) override {
    ensureIndex();
    const int at = levelIndex_[slotOfExponent(levelOf(c.radius))];
    Level& level = levels_[at];
    level.lists.unlink(level.shape.map.cellOf(c.center.x), level.shape.map.cellOf(c.center.y), index_[id]);
    index_[id] = kNoIndex;
    if (level.lists.liveNodes() == 0) dropLevel(at);
    ++counters_.nodesVisited;
  }

  void doClear() override {
    levels_.clear();
    levelIndex_.fill(-1);
    std::vector<std::uint32_t>().swap(index_);
    indexValid_ = false;
  }

  // -- queries ------------------------------------------------------------------------------------------

  void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const override {
    // One batch for every level: their rows' cache misses overlap as well.
    RunBatch batch;
    for (const Level& level : levels_) query(level).rayCast(ctx, segment, out, &batch);
    batch.flush(RayScan{ctx, segment, out});
  }

  void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const override {
    visibleNow.clear();
    const bvh::ConeClassifier classifier(cone);
    for (const Level& level : levels_) query(level).queryCone(ctx, cone, classifier, visibleNow);
    std::sort(visibleNow.begin(), visibleNow.end());
  }

  void doFindPairs(std::vector<Pair>& out) override {
    // Each level against itself: a plain grid scan (every circle there is at most a cell across).
    pairs::ScanTotals totals;
    for (const Level& level : levels_) {
      const int reach = std::min(level.shape.map.reachFor(2.0 * level.maxRadius), kMaxReach);
      gridPairs(scheduler(), level.lists, reach, vectorLanes(), out, totals);
    }
    // Each level against every coarser one, cell by cell: the coarse cells within reach of a fine cell.
    pairs::ScanTotals cross;
    for (std::size_t fine = 0; fine < levels_.size(); ++fine) {
      for (std::size_t coarse = fine + 1; coarse < levels_.size(); ++coarse) {
        const Level& f = levels_[fine];
        const Level& c = levels_[coarse];
        pairs::scanInPieces(
            scheduler(), static_cast<std::uint32_t>(f.lists.table().capacity()), out, cross,
            [&](PairWriter& w, std::uint64_t& tested, std::uint64_t& cells, std::uint32_t begin,
                std::uint32_t end) { crossLevelPairs(f, c, w, tested, cells, begin, end); });
      }
    }
    lastCrossCandidates_ = cross.pretests;
    lastCrossCells_ = cross.visited;
    addScanTotals(counters_, totals);
    addScanTotals(counters_, cross);
  }

  // -- validation ---------------------------------------------------------------------------------------

  std::string doValidate() const override {
    std::vector<std::uint8_t> seen(idCapacity(), 0);
    for (std::size_t k = 0; k < levels_.size(); ++k) {
      const Level& level = levels_[k];
      const std::string where = "hgrid level " + std::to_string(level.exponent) + ": ";
      if (k > 0 && levels_[k - 1].exponent >= level.exponent)
        return "hgrid: levels are not in ascending order";
      if (levelIndex_[slotOfExponent(level.exponent)] != int(k)) return "hgrid: level index is stale";
      if (level.lists.liveNodes() == 0) return where + "an empty level is kept";
      if (std::string problem = level.lists.checkLayout(); !problem.empty()) return where + problem;
      const CellTable& table = level.lists.table();
      const NodeArray& nodes = level.lists.nodes();
      std::string problem;
      for (std::uint32_t slot = 0; slot < table.capacity() && problem.empty(); ++slot) {
        if (!table.occupied(slot)) continue;
        level.lists.forEachInCell(slot, [&](std::uint32_t n) {
          const Node& node = nodes[n];
          if (!problem.empty()) return;
          if (!contains(node.id)) {
            problem = where + "a node holds absent item " + std::to_string(node.id);
          } else if (!(node.circle == circle(node.id))) {
            problem = where + "item " + std::to_string(node.id) + " has a stale circle";
          } else if (levelOf(node.circle.radius) != level.exponent) {
            problem = where + "item " + std::to_string(node.id) + " belongs to level " +
                      std::to_string(levelOf(node.circle.radius));
          } else if (level.shape.map.cellOf(node.circle.center.x) != table[slot].x ||
                     level.shape.map.cellOf(node.circle.center.y) != table[slot].y) {
            problem = where + "item " + std::to_string(node.id) + " is in a cell other than its centre's";
          } else if (node.circle.radius > level.maxRadius) {
            problem = where + "the largest-radius bound is stale";
          } else if (seen[node.id]++) {
            problem = "hgrid: item " + std::to_string(node.id) + " is stored twice";
          }
        });
      }
      if (!problem.empty()) return problem;
    }
    std::string problem;
    forEachItem([&](ItemId id, const Circle&) {
      if (problem.empty() && !seen[id]) problem = "hgrid: item " + std::to_string(id) + " is stored nowhere";
    });
    if (!problem.empty()) return problem;
    if (indexValid_) {
      for (const Level& level : levels_) {
        const NodeArray& nodes = level.lists.nodes();
        for (std::uint32_t n = 0; n < nodes.size(); ++n) {
          if (nodes[n].id != kDeadId && index_[nodes[n].id] != n) return "hgrid: id index is stale";
        }
      }
    }
    return {};
  }

 private:
  /// Lanes of the vector loops on this CPU.
  int vectorLanes() const { return vectorLanesFor(param("wide_vectors")); }

  /// One non-empty level: a hashed grid for circles of diameter in (fit(exponent - 1), fit(exponent)], with
  /// cells at least fit(exponent) across (a power-of-two multiple of it when the level is sparse).
  struct Level {
    int exponent = 0;     ///< fit size = reference x 2^exponent
    GridShape shape;      ///< cell size and hash window
    CellLists lists;      ///< the level's cells
    float maxRadius = 0;  ///< bound of the radii stored here (exact after a sort)
  };

  /// A node leaving its level during a whole-frame re-sort.
  struct Moving {
    Node node;
    int exponent;
  };

  double fit(int exponent) const { return std::ldexp(reference_, exponent); }
  static std::size_t slotOfExponent(int exponent) {
    return static_cast<std::size_t>(exponent - kMinExponent);
  }

  /// The level of a circle: the smallest exponent whose fit size is at least its diameter (the finest
  /// level for anything smaller).
  int levelOf(float radius) const {
    const double diameter = 2.0 * double(radius);
    if (diameter <= fit(minExponent_)) return minExponent_;
    int e = 0;
    std::frexp(diameter / reference_, &e);
    e = std::clamp(e, minExponent_, kMaxExponent);
    while (e < kMaxExponent && diameter > fit(e)) ++e;
    while (e > minExponent_ && diameter <= fit(e - 1)) --e;
    return e;
  }

  /// Index of the level with this exponent, created (empty) if missing with cells sized for
  /// `expectedItems` circles over the region (just the fit size when unknown).
  int levelFor(int exponent, std::size_t expectedItems = 0) {
    const int existing = levelIndex_[slotOfExponent(exponent)];
    if (existing >= 0) return existing;
    Level level;
    level.exponent = exponent;
    double cell = fit(exponent);
    const double area = (double(region_.max.x) - region_.min.x) * (double(region_.max.y) - region_.min.y);
    for (int doubling = 0; doubling < 40 && expectedItems > 0 && cell * cell * double(expectedItems) < area;
         ++doubling) {
      cell *= 2.0;
    }
    level.shape.map.size = cell * kCellPadding;
    level.shape.map.inverse = 1.0 / level.shape.map.size;
    setWindow(level.shape, region_);
    level.lists.table().configureHash(false, level.shape.originX, level.shape.originY,
                                      level.shape.windowWidth, level.shape.windowHeight);
    const auto at = std::lower_bound(levels_.begin(), levels_.end(), exponent,
                                     [](const Level& l, int e) { return l.exponent < e; });
    levels_.insert(at, std::move(level));
    reindexLevels();
    return levelIndex_[slotOfExponent(exponent)];
  }

  void dropLevel(int at) {
    levels_.erase(levels_.begin() + at);
    reindexLevels();
  }

  void reindexLevels() {
    levelIndex_.fill(-1);
    for (std::size_t k = 0; k < levels_.size(); ++k)
      levelIndex_[slotOfExponent(levels_[k].exponent)] = static_cast<std::int16_t>(k);
  }

  /// Sorts one level by cell (its nodes hold their current circles).
  void sortLevel(Level& level, std::size_t expectedCells) {
    indexValid_ = false;  // the sort borrows the id index's buffer
    float largest = 0.0f;
    const CellMapping map = level.shape.map;
    auto cellOf = [&](Node& node, std::size_t, std::int32_t& x, std::int32_t& y) {
      largest = std::max(largest, node.circle.radius);
      x = map.cellOf(node.circle.center.x);
      y = map.cellOf(node.circle.center.y);
      return true;
    };
    CellTable& table = level.lists.table();
    table.configureHash(table.scrambled(), level.shape.originX, level.shape.originY, level.shape.windowWidth,
                        level.shape.windowHeight);
    if (!level.lists.sort(cellOf, expectedCells, index_, departed_)) {
      largest = 0.0f;
      table.configureHash(true, level.shape.originX, level.shape.originY, level.shape.windowWidth,
                          level.shape.windowHeight);
      level.lists.sort(cellOf, expectedCells, index_, departed_);
    }
    level.maxRadius = largest;
  }

  /// Whole-frame path: refresh every node's circle from the item table, move the nodes whose circle
  /// changed level, then sort every level by cell.
  void resortAll() {
    moving_.clear();
    for (Level& level : levels_) {
      NodeArray& nodes = level.lists.nodes();
      refreshCircles(*this, nodes);
      // A circle stays while its diameter is within (fit(e - 1), fit(e)] (anything small in the finest).
      const double lower = level.exponent == minExponent_ ? -1.0 : fit(level.exponent - 1);
      const double upper = fit(level.exponent);
      for (Node& node : nodes) {
        if (node.id == kDeadId) continue;
        const double diameter = 2.0 * double(node.circle.radius);
        if (diameter > lower && diameter <= upper) continue;
        moving_.push_back({node, levelOf(node.circle.radius)});
        node.id = kDeadId;
      }
    }
    for (const Moving& m : moving_) levels_[levelFor(m.exponent)].lists.nodes().push_back(m.node);
    for (std::size_t k = 0; k < levels_.size();) {
      Level& level = levels_[k];
      sortLevel(level, level.lists.table().used());
      if (level.lists.liveNodes() == 0) {
        dropLevel(static_cast<int>(k));
      } else {
        counters_.nodesVisited += level.lists.table().used();
        ++k;
      }
    }
  }

  /// Builds the id -> node index (within each item's level) when a single-item operation needs it.
  void ensureIndex() {
    if (index_.size() < idCapacity()) index_.resize(idCapacity(), kNoIndex);
    if (indexValid_) return;
    std::fill(index_.begin(), index_.end(), kNoIndex);
    for (const Level& level : levels_) {
      const NodeArray& nodes = level.lists.nodes();
      for (std::uint32_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n].id != kDeadId) index_[nodes[n].id] = n;
      }
    }
    indexValid_ = true;
  }

  void moveOne(ItemId id, const Circle& old, const Circle& c) {
    const int from = levelOf(old.radius), to = levelOf(c.radius);
    ++counters_.nodesVisited;
    const int at = levelIndex_[slotOfExponent(from)];
    Level& level = levels_[at];
    const CellMapping& map = level.shape.map;
    const std::int32_t x0 = map.cellOf(old.center.x), y0 = map.cellOf(old.center.y);
    if (from == to) {
      const std::int32_t x1 = map.cellOf(c.center.x), y1 = map.cellOf(c.center.y);
      if (x0 != x1 || y0 != y1) level.lists.relink(x0, y0, x1, y1, index_[id]);
      level.lists.nodes()[index_[id]].circle = c;
      level.maxRadius = std::max(level.maxRadius, c.radius);
      return;
    }
    level.lists.unlink(x0, y0, index_[id]);
    if (level.lists.liveNodes() == 0) dropLevel(at);
    Level& target = levels_[levelFor(to)];
    index_[id] =
        target.lists.link(target.shape.map.cellOf(c.center.x), target.shape.map.cellOf(c.center.y), id, c);
    target.maxRadius = std::max(target.maxRadius, c.radius);
  }

  // -- scanning ---------------------------------------------------------------------------------------------

  // The point, circle and box queries: every level in turn, each hit handed to `take` until it returns
  // false. One batch of runs serves every level, so that their rows' cache misses overlap as well.
  template <class Take>
  void pointQuery(Vec2 p, QueryContext& ctx, Take&& take) const {
    const auto contains = [&](const Circle& c) { return circleContainsPoint(c, p); };
    RunBatch batch;
    for (const Level& level : levels_)
      if (!query(level).queryAround(ctx, p, 0.0, contains, take, &batch)) return;
    batch.flush(nodeScan(ctx, contains, take));
  }
  template <class Take>
  void circleQuery(const Circle& around, QueryContext& ctx, Take&& take) const {
    const auto overlaps = [&](const Circle& c) { return circlesOverlap(c, around); };
    RunBatch batch;
    for (const Level& level : levels_)
      if (!query(level).queryAround(ctx, around.center, around.radius, overlaps, take, &batch)) return;
    batch.flush(nodeScan(ctx, overlaps, take));
  }
  template <class Take>
  void boxQuery(const Box& box, QueryContext& ctx, Take&& take) const {
    RunBatch batch;
    for (const Level& level : levels_)
      if (!query(level).queryBox(ctx, box, take, &batch)) return;
    const BoxTest test{box};
    batch.flush(nodeScan(ctx, test, take));
  }

  // A level as the shared grid queries read it (grid_queries.hpp); the coarsest is drawn at depth 0.
  LevelQuery query(const Level& level) const {
    return {level.lists, level.shape.map, level.maxRadius, levels_.back().exponent - level.exponent};
  }

  NodeInfo slotInfo(const Level& level, std::uint32_t slot) const { return query(level).slotInfo(slot); }

  /// Pairs between a finer and a coarser level: each fine item looks up the coarse cells that can hold the
  /// centre of a circle within its radius plus the coarse level's largest radius, and is tested against
  /// their items. Fine items are walked in table order, which follows space, so consecutive ones mostly
  /// need the same coarse cells: those found for the previous range are kept.
  void crossLevelPairs(const Level& fine, const Level& coarse, PairWriter& writer, std::uint64_t& candidates,
                       std::uint64_t& cells, std::uint32_t slotBegin, std::uint32_t slotEnd) const {
    const CellTable& fineTable = fine.lists.table();
    const CellTable& coarseTable = coarse.lists.table();
    const NodeArray& fineNodes = fine.lists.nodes();
    const NodeArray& coarseNodes = coarse.lists.nodes();
    const double coarseReach = coarse.maxRadius;
    CellRange lastRange{0, 0, -1, -1};
    std::vector<std::uint32_t> found;
    const auto slots = static_cast<std::uint32_t>(fineTable.capacity());
    for (std::uint32_t slot = slotBegin; slot < std::min(slotEnd, slots); ++slot) {
      if (!fineTable.occupied(slot)) continue;
      fine.lists.forEachInCell(slot, [&](std::uint32_t a) {
        const Circle& c = fineNodes[a].circle;
        const CellRange range = centreRange(coarse.shape.map, c.center.x, c.center.y, c.center.x, c.center.y,
                                            double(c.radius) + coarseReach);
        if (range.x0 != lastRange.x0 || range.y0 != lastRange.y0 || range.x1 != lastRange.x1 ||
            range.y1 != lastRange.y1) {
          found.clear();
          visitRange(coarseTable, range, [&](std::uint32_t coarseSlot) { found.push_back(coarseSlot); });
          lastRange = range;
        }
        cells += found.size();
        for (std::uint32_t coarseSlot : found) {
          coarse.lists.forEachInCell(
              coarseSlot, [&](std::uint32_t b) { writer.test(fineNodes[a], coarseNodes[b], candidates); });
        }
      });
    }
  }

  double reference_ = 1.0;  // fit size of exponent 0
  int minExponent_ = kMinExponent;
  Box region_;                 // where the levels' hash windows lie
  std::vector<Level> levels_;  // non-empty levels, finest first
  std::array<std::int16_t, kMaxExponent - kMinExponent + 1> levelIndex_{};  // exponent -> index in levels_
  std::vector<std::uint32_t> index_;  // id -> node within its level; the sorts' scratch
  bool indexValid_ = false;
  std::vector<ItemId> departed_;
  std::vector<Moving> moving_;
  std::uint64_t lastCrossCandidates_ = 0;
  std::uint64_t lastCrossCells_ = 0;
  bool lastBatchRebuilt_ = false;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeHierarchicalGrid() {
  return std::make_unique<HierarchicalGrid>();
}

}  // namespace st
