// The radius tree: the "data structure for variable-radius spheres" of source document 000. A quadtree over
// circle centres in which the size of a node fixes the radii it may hold, so that a point query can bound,
// per level, how far a stored circle can reach: it enters at most 2^2 nodes per level and never looks at a
// dense cluster further away than twice that cluster's radii.
//
// Departures from the post, each forced by "never lose an item": the post's root cannot hold a circle
// larger than half its size nor a centre outside it, so here the root doubles toward such a circle (the old
// root becomes a quadrant of the new one); and a zero radius would descend forever, so descent stops at a
// depth floor (the `max_levels` parameter, a floor relative to the coordinates' magnitude, and the deepest
// level a node key can name).
//
// Layout (linear_tree.hpp): the nodes are the directory's entries in depth-first order, the circles sit in
// arrays sorted by their node, and a node's cell is computed on the way down from its path. The post's
// intrusive lists served O(1) removal; here a frame's moves are applied in one pass: a circle that stays in
// its node (the post's in-place mutation, about nine moves in ten) is rewritten where it lies, and the
// others are merged into their new nodes together.

#include <algorithm>
#include <cmath>
#include <string>

#include "linear_tree.hpp"
#include "radius_tree_enneatree_shared.hpp"
#include "spheretest/assert.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using banded::CellBox;
using KeyCodec = linear::KeyCodec<2>;
using linear::kNone;
using linear::Move;

// A node's cell: the half-open square of centres [x0, x1) x [y0, y1), of side `size` (up to rounding). It
// keeps the circles centred in it whose radius lies in [size / 4, size / 2] (smaller ones only at the depth
// floor). Child q covers one quadrant: bit 0 of q is the right half, bit 1 the upper half.
struct Cell {
  double x0 = 0.0;
  double y0 = 0.0;
  double x1 = 0.0;
  double y1 = 0.0;
  double size = 0.0;
};

// Where the cells lie: a node's corner is the root's corner plus its column and row times its side, computed
// in one step (so every code path gets the same bits, and a child's edges are exactly its parent's).
struct Frame {
  double x0 = 0.0;
  double y0 = 0.0;
  double sizes[KeyCodec::kLevels + 1] = {};  // side at each depth

  Frame() = default;
  Frame(double left, double bottom, double size) : x0(left), y0(bottom) {
    for (int d = 0; d <= KeyCodec::kLevels; ++d) sizes[d] = std::ldexp(size, -d);
  }
  double rootSize() const { return sizes[0]; }
  Cell cell(std::uint64_t key) const {
    const linear::QuadCoords c = linear::quadCoords(key);
    const double s = sizes[c.depth];
    return {x0 + double(c.column) * s, y0 + double(c.row) * s, x0 + double(c.column + 1) * s,
            y0 + double(c.row + 1) * s, s};
  }
  // The quadrant of `key`'s cell holding p (the node must be above the deepest level).
  unsigned quadrant(std::uint64_t key, Vec2 p) const {
    const linear::QuadCoords c = linear::quadCoords(key);
    const double s = sizes[c.depth + 1];
    return (p.x >= x0 + double(2 * c.column + 1) * s ? 1u : 0u) |
           (p.y >= y0 + double(2 * c.row + 1) * s ? 2u : 0u);
  }
};

CellBox boxOf(const Cell& c) {
  return {c.x0, c.y0, c.x1, c.y1};
}

// Everything in a node's subtree has its centre in the cell and a radius of at most size / 2, so the cell
// widened by size / 2 holds it: per axis, the post's child-visit rule (the child's interval widened by the
// parent's smallest radius, which is the child's largest).
CellBox reachOf(const Cell& c) {
  const double half = c.size * 0.5;
  return {c.x0 - half, c.y0 - half, c.x1 + half, c.y1 + half};
}

// Whether the cell holds the centre and its band allows the radius (it may still send it down).
bool holds(const Cell& n, const Circle& c) {
  return n.x0 <= c.center.x && c.center.x < n.x1 && n.y0 <= c.center.y && c.center.y < n.y1 &&
         double(c.radius) <= n.size * 0.5;
}

// How far ahead the frame pass fetches circles from the item table.
constexpr std::uint32_t kGatherAhead = 64;

constexpr const char* kPrunePoint = "point outside the child's cell widened by its largest radius";
constexpr const char* kPruneCircle = "query circle misses the child's cell widened by its largest radius";
constexpr const char* kPruneBox = "query box misses the child's cell widened by its largest radius";
constexpr const char* kPruneRay = "segment misses the child's cell widened by its largest radius";

class RadiusTree final : public SpatialIndex {
 public:
  /// An empty tree.
  RadiusTree() : SpatialIndex("radius-tree") {
    addParam({"max_levels",
              "levels below the first root's size a small circle may descend (zero radii stop there)", 24, 4,
              40, true});
  }

  std::string_view description() const override {
    return "The radius tree (source document 000, a data structure for variable-radius spheres) is a "
           "quadtree over circle centres in which a node's size fixes the radii it holds: a node whose cell "
           "of centres has side s keeps the circles centred in it with radius in [s/4, s/2]; smaller circles "
           "go to the quadrant child (which exists only while something is stored below it), larger ones go "
           "up, and the root doubles toward any circle it cannot hold. The nodes are kept depth first in one "
           "array and the circles sorted by node in another, so every walk reads memory forward. A move that "
           "keeps a circle in its node (the post's in-place mutation) rewrites it where it lies; a frame's "
           "other moves are merged into their new nodes in one pass. A point query enters a child only if "
           "the "
           "point lies within the child's cell widened by the child's largest radius (its parent's "
           "smallest), so it enters at most 4 nodes per level and costs O(log(S/s) + k) for the smallest "
           "nearby radius s and k candidates, whatever dense cluster lies more than twice its radii away; "
           "circle, box and ray queries prune with the same widened cells, and pairs are found by one "
           "simultaneous walk of the tree against itself. Choose it for many point-in-radius questions over "
           "radii of very different sizes (visibility or detection ranges) and for worlds with dense remote "
           "clusters; each halving of the smallest radius adds a level.";
  }

  void visitNodes(const NodeVisitor& visitor) const override {
    walkAll([&](std::uint32_t i, const Cell& cell) { visitor(info(i, cell)); });
  }

  IndexStats stats() const override {
    int deepest = 0;
    for (std::uint32_t i = 0; i < dir_.size(); ++i) deepest = std::max(deepest, KeyCodec::depth(dir_[i].key));
    const std::size_t bytes = items_.bytes() + dir_.bytes() + moves_.capacity() * sizeof(Move) +
                              removed_.capacity() * 4 + view_.bytes() + walk_.bytes() + tableBytes();
    return {hasRoot_ ? dir_.size() : 0u, deepest, bytes};
  }

  void extra(ExtraCounters& out) const override {
    out.emplace_back("root_size", hasRoot_ ? frame_.rootSize() : 0.0);
    out.emplace_back("root_growths", double(rootGrowths_));
    std::size_t belowBand = 0;
    walkAll([&](std::uint32_t i, const Cell& cell) {
      for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
        if (double(items_.circle(s).radius) < cell.size * 0.25) ++belowBand;
      }
    });
    out.emplace_back("items_at_depth_floor", double(belowBand));
    out.emplace_back("updates", double(updates_));
    if (updates_ > 0) {
      out.emplace_back("update_same_node_share", double(updatesSameNode_) / double(updates_));
      out.emplace_back("update_nodes_walked_mean", double(updateSteps_) / double(updates_));
    }
    out.emplace_back("last_pairs_pretests", double(pretests_));
    pointLevels_.report("point_query", out);
  }

 protected:
  // -------------------------------------------------------------------------------------------------------
  // Mutation
  // -------------------------------------------------------------------------------------------------------

  void doBuild(std::span<const Item> items) override {
    startRoot(initialRegion(items));
    for (const Item& item : items) growToCover(item.circle);
    placeAll();
  }

  void doInsert(ItemId id, const Circle& c) override {
    if (!hasRoot_)
      startRoot(worldHint() ? cellBoxOf(*worldHint())
                            : CellBox{c.center.x, c.center.y, c.center.x, c.center.y});
    if (growToCover(c)) {
      placeAll();  // this one included
      return;
    }
    std::uint32_t steps = 0;
    moves_.push_back({place(KeyCodec::root(), c, steps), id, kNone});
    commit();
  }

  // The post's in-place mutation: a circle its node still holds stays where it is; any other is walked up
  // from its node as far as needed and back down, and merged into its new node.
  void doUpdate(ItemId id, const Circle&, const Circle&) override {
    const ItemId ids[1] = {id};
    moveItems(ids);
  }

  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle>) override { moveItems(ids); }

  bool batchNeedsOldCircles(std::size_t) const override { return false; }

  void doRemove(ItemId id, const Circle&) override {
    removed_.push_back(items_.slotOf(id));
    commit();
  }

  void doClear() override {
    items_.clear();
    dir_ = {};
    hasRoot_ = false;
    minCellSize_ = 0.0;
    rootGrowths_ = updates_ = updatesSameNode_ = updateSteps_ = 0;
    pointLevels_.reset();
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries
  // -------------------------------------------------------------------------------------------------------

  // The post's query: every node entered hands over all its circles, and a child is entered only when the
  // point lies within the child's cell widened by the child's largest radius.
  void doQueryPoint(Vec2 p, std::vector<ItemId>& out) override {
    walk([&](const CellBox& reach) { return banded::mayContain(reach, p); }, kPrunePoint,
         [&](std::uint32_t i, int depth) {
           pointLevels_.visit(std::uint32_t(depth));
           testItems(i, out, [&](const Circle& c) { return circleContainsPoint(c, p); });
         });
    pointLevels_.finishWalk();
  }

  void doQueryCircle(const Circle& query, std::vector<ItemId>& out) override {
    walk([&](const CellBox& reach) { return banded::mayOverlap(reach, query); }, kPruneCircle,
         [&](std::uint32_t i, int) {
           testItems(i, out, [&](const Circle& c) { return circlesOverlap(c, query); });
         });
  }

  void doQueryBox(const Box& box, std::vector<ItemId>& out) override {
    walk([&](const CellBox& reach) { return banded::mayOverlap(reach, box); }, kPruneBox,
         [&](std::uint32_t i, int) {
           testItems(i, out, [&](const Circle& c) { return circleOverlapsBox(c, box); });
         });
  }

  void doRayCast(const Segment& segment, std::vector<RayHit>& out) override {
    const Vec2 delta = segment.end - segment.start;
    walk([&](const CellBox& reach) { return banded::mayHit(reach, segment); }, kPruneRay,
         [&](std::uint32_t i, int) {
           for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
             ++counters_.candidates;
             float t = 0.0f;
             const ItemId id = items_.id(s);
             const bool hit = segmentHitsCircle(segment, items_.circle(s), t);
             traceCandidate(id, hit);
             if (hit) out.push_back({id, t, segment.start + delta * t});
           }
         });
  }

  void doFindPairs(std::vector<Pair>& out) override {
    if (!hasRoot_) return;
    counters_.nodesVisited += dir_.fillView(view_, items_);
    pair_view::findPairsInto(view_, out, walk_, counters_, pretests_);
  }

  // -------------------------------------------------------------------------------------------------------
  // Validation
  // -------------------------------------------------------------------------------------------------------

  std::string doValidate() const override {
    const std::string who = "radius-tree: ";
    if (!hasRoot_) return size() == 0 ? std::string() : who + "items present but no root";
    if (std::string problem = items_.check(*this); !problem.empty()) return who + problem;
    if (dir_.size() == 0 || dir_[0].key != KeyCodec::root() || dir_[0].begin != 0)
      return who + "the directory does not start at the root";
    std::string problem;
    walkAll([&](std::uint32_t i, const Cell& cell) {
      if (!problem.empty()) return;
      const std::string where = who + "node " + std::to_string(i) + ": ";
      const std::uint32_t end = dir_.subtreeEnd(i);
      if (dir_[i].next <= i || dir_[i].next > dir_.size()) problem = where + "bad subtree end";
      if (i > 0 && dir_[i].begin == end) problem = where + "empty and childless but not removed";
      for (std::uint32_t s = dir_[i].begin; s < end && problem.empty(); ++s) {
        if (!KeyCodec::covers(dir_[i].key, items_.key(s)))
          problem = where + "subtree range holds a foreign item";
      }
      for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i) && problem.empty(); ++s) {
        const Circle c = items_.circle(s);
        if (items_.key(s) != dir_[i].key) {
          problem = where + "own range holds an item of another node";
        } else if (!holds(cell, c)) {
          problem = where + "item " + std::to_string(items_.id(s)) +
                    " has its centre outside the cell or a radius above size/2";
        } else if (double(c.radius) < cell.size * 0.25 && maySplit(cell, KeyCodec::depth(dir_[i].key))) {
          problem = where + "item " + std::to_string(items_.id(s)) +
                    " is below the node's radius band but the node may split";
        }
      }
    });
    return problem;
  }

 private:
  // -------------------------------------------------------------------------------------------------------
  // Geometry
  // -------------------------------------------------------------------------------------------------------

  static CellBox cellBoxOf(const Box& b) { return {b.min.x, b.min.y, b.max.x, b.max.y}; }

  bool maySplit(const Cell& n, int depth) const {
    const double half = n.size * 0.5;
    return depth < KeyCodec::levels() && half >= minCellSize_ &&
           half >= banded::kRelativeWidthFloor * banded::magnitude(boxOf(n));
  }

  NodeInfo info(std::uint32_t i, const Cell& cell) const {
    NodeInfo out;
    out.shape = NodeShape::Box;
    out.box = banded::toDrawBox(boxOf(cell));
    out.depth = KeyCodec::depth(dir_[i].key);
    out.itemCount = dir_.ownEnd(i) - dir_[i].begin;
    return out;
  }

  // Calls fn(i, cell) for every node, in directory order.
  template <class Fn>
  void walkAll(Fn&& fn) const {
    if (!hasRoot_) return;
    for (std::uint32_t i = 0; i < dir_.size(); ++i) fn(i, frame_.cell(dir_[i].key));
  }

  // The pruned walk behind every query: the directory in order, a node's cell computed from its parent's,
  // and a skipped node's whole subtree jumped over. Every node whose reach is tested counts as visited.
  template <class Reaches, class Visit>
  void walk(Reaches&& reaches, const char* pruneTest, Visit&& visit) {
    if (!hasRoot_) return;
    for (std::uint32_t i = 0; i < dir_.size();) {
      const Cell cell = frame_.cell(dir_[i].key);
      ++counters_.nodesVisited;
      if (!reaches(reachOf(cell))) {
        if (tracing()) tracePrune(info(i, cell), pruneTest);
        i = dir_[i].next;
        continue;
      }
      if (tracing()) traceVisit(info(i, cell));
      visit(i, KeyCodec::depth(dir_[i].key));
      ++i;
    }
  }

  template <class Predicate>
  void testItems(std::uint32_t i, std::vector<ItemId>& out, Predicate&& accepts) {
    for (std::uint32_t s = dir_[i].begin; s < dir_.ownEnd(i); ++s) {
      ++counters_.candidates;
      const ItemId id = items_.id(s);
      const bool hit = accepts(items_.circle(s));
      traceCandidate(id, hit);
      if (hit) out.push_back(id);
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Placement
  // -------------------------------------------------------------------------------------------------------

  // Whether a circle stays in the node it is in: the node holds it and it may not go further down.
  bool stays(const Cell& cell, int depth, const Circle& c) const {
    return holds(cell, c) && !(double(c.radius) < cell.size * 0.25 && maySplit(cell, depth));
  }

  // The node a circle belongs in, walking up from `from` while it does not hold the circle and then down
  // through the quadrants of its centre: the post's insertion from an arbitrary node. The root must hold it.
  std::uint64_t place(std::uint64_t from, const Circle& c, std::uint32_t& steps) const {
    int depth = KeyCodec::depth(from);
    Cell cell = frame_.cell(from);
    std::uint64_t key = from;
    while (depth > 0 && !holds(cell, c)) {
      key = KeyCodec::ancestor(key, --depth);
      cell = frame_.cell(key);
      ++steps;
    }
    while (double(c.radius) < cell.size * 0.25 && maySplit(cell, depth)) {
      key = KeyCodec::child(key, frame_.quadrant(key, c.center));
      cell = frame_.cell(key);
      ++depth;
      ++steps;
    }
    return key;
  }

  // Applies the moves of `ids` (whose new circles are in the table). Large batches rewrite every circle in
  // one forward pass over the nodes; small ones look each item up.
  void moveItems(std::span<const ItemId> ids) {
    updates_ += ids.size();
    if (!hasRoot_) return;
    bool grown = false;
    for (const ItemId id : ids) grown = growToCover(circle(id)) || grown;
    if (grown) {
      placeAll();  // these moves included
      return;
    }
    std::uint64_t stayed = 0;
    if (ids.size() * 8 >= size()) {
      const ItemId* slotIds = items_.ids();
      float* xs = items_.xs();
      float* ys = items_.ys();
      float* rs = items_.rs();
      const std::uint32_t count = items_.size();
      linear::forEachRun<KeyCodec>(
          items_, [&](std::uint32_t begin, std::uint32_t end, std::uint64_t key, int) {
            const int depth = KeyCodec::depth(key);
            const Cell cell = frame_.cell(key);
            // stays(), with the node's half of it taken out of the loop.
            const double x0 = cell.x0, x1 = cell.x0 + cell.size, y0 = cell.y0, y1 = cell.y0 + cell.size;
            const double largest = cell.size * 0.5;
            const double smallest = maySplit(cell, depth) ? cell.size * 0.25 : -1.0;
            for (std::uint32_t s = begin; s < end; ++s) {
              // Ids are spread over space, so each circle is a cache miss: ask for it well ahead.
              if (s + kGatherAhead < count) __builtin_prefetch(&circle(slotIds[s + kGatherAhead]));
              const Circle& c = circle(slotIds[s]);
              xs[s] = c.center.x;
              ys[s] = c.center.y;
              rs[s] = c.radius;
              const double r = c.radius;
              if (x0 <= c.center.x && c.center.x < x1 && y0 <= c.center.y && c.center.y < y1 &&
                  r <= largest && !(r < smallest))
                continue;
              std::uint32_t steps = 0;
              moves_.push_back({place(key, c, steps), slotIds[s], s});
              updateSteps_ += steps;
            }
          });
      // Items that did not move count as staying in place.
      stayed = ids.size() - std::min<std::uint64_t>(ids.size(), moves_.size());
    } else {
      for (const ItemId id : ids) {
        const std::uint32_t s = items_.slotOf(id);
        const Circle c = circle(id);
        items_.setCircle(s, c);
        const std::uint64_t key = items_.key(s);
        if (stays(frame_.cell(key), KeyCodec::depth(key), c)) {
          ++stayed;
          continue;
        }
        std::uint32_t steps = 0;
        moves_.push_back({place(key, c, steps), id, s});
        updateSteps_ += steps;
      }
    }
    // A move may end in the node it started from (the walk up and down found it again).
    std::erase_if(moves_, [&](const Move& m) {
      const bool same = items_.key(m.slot) == m.key;
      stayed += same ? 1 : 0;
      return same;
    });
    updatesSameNode_ += stayed;
    commit();
  }

  // Applies the pending moves and removals and rebuilds the directory.
  void commit() {
    if (moves_.empty() && removed_.empty()) return;
    items_.refile(moves_, removed_, *this);
    dir_.rebuild<KeyCodec>(items_);
  }

  // -------------------------------------------------------------------------------------------------------
  // Root
  // -------------------------------------------------------------------------------------------------------

  CellBox initialRegion(std::span<const Item> items) const {
    if (worldHint()) return cellBoxOf(*worldHint());
    if (items.empty()) return {0.0, 0.0, 1.0, 1.0};
    CellBox b{items[0].circle.center.x, items[0].circle.center.y, items[0].circle.center.x,
              items[0].circle.center.y};
    for (const Item& item : items) {
      b = {std::fmin(b.minX, item.circle.center.x), std::fmin(b.minY, item.circle.center.y),
           std::fmax(b.maxX, item.circle.center.x), std::fmax(b.maxY, item.circle.center.y)};
    }
    return b;
  }

  // A square root cell from the region's lower-left corner, a hair wider than the region so that centres on
  // its upper edges (where scenes clamp them) need no growth.
  void startRoot(const CellBox& region) {
    double side = std::fmax(region.maxX - region.minX, region.maxY - region.minY);
    if (!(side > 0.0)) side = std::fmax(1.0, banded::magnitude(region) * 0x1p-16);
    side += side * 0x1p-16;
    if (minCellSize_ == 0.0) minCellSize_ = std::ldexp(side, -int(param("max_levels")));
    frame_ = Frame(region.minX, region.minY, side);
    hasRoot_ = true;
  }

  // Makes the root hold `c` by doubling it toward the circle (the old root becomes the quadrant facing away
  // from it). Returns whether the root changed; every item must then be placed again (placeAll).
  bool growToCover(const Circle& c) {
    if (holds(frame_.cell(KeyCodec::root()), c)) return false;
    while (!holds(frame_.cell(KeyCodec::root()), c)) {
      const double size = frame_.rootSize();
      frame_ = Frame(c.center.x < frame_.x0 ? frame_.x0 - size : frame_.x0,
                     c.center.y < frame_.y0 ? frame_.y0 - size : frame_.y0, size * 2.0);
      ++rootGrowths_;
    }
    return true;
  }

  // Places every item of the table from the root (after a build or a new root).
  void placeAll() {
    moves_.clear();
    forEachItem([&](ItemId id, const Circle& c) {
      ST_ASSERT(holds(frame_.cell(KeyCodec::root()), c), "the root covers every item before they are placed");
      std::uint32_t steps = 0;
      moves_.push_back({place(KeyCodec::root(), c, steps), id, kNone});
    });
    items_.assign(moves_, *this);
    moves_.clear();
    dir_.rebuild<KeyCodec>(items_);
  }

  Frame frame_;
  bool hasRoot_ = false;
  double minCellSize_ = 0.0;  // absolute depth floor, fixed when the first root is made
  linear::SortedItems items_;
  linear::Directory dir_;
  std::vector<Move> moves_;
  std::vector<std::uint32_t> removed_;
  pair_view::PairView view_;
  pair_view::WalkScratch walk_;
  std::uint64_t pretests_ = 0;

  std::uint64_t rootGrowths_ = 0;
  std::uint64_t updates_ = 0;
  std::uint64_t updatesSameNode_ = 0;
  std::uint64_t updateSteps_ = 0;
  banded::LevelTally pointLevels_;
};

}  // namespace

std::unique_ptr<SpatialIndex> makeRadiusTree() {
  return std::make_unique<RadiusTree>();
}

}  // namespace st
