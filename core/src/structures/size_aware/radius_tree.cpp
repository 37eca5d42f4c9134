// The radius tree: the "data structure for variable-radius spheres" of source document 000. A quadtree over
// circle centres in which the size of a node fixes the radii it may hold, so that a point query can bound,
// per level, how far a stored circle can reach: it enters at most 2^2 nodes per level and never looks at a
// dense cluster further away than twice that cluster's radii.
//
// Departures from the post, each forced by "never lose an item": the post's root cannot hold a circle
// larger than half its size nor a centre outside it, so here the root doubles toward such a circle (the old
// root becomes a quadrant of the new one); and a zero radius would descend forever, so descent stops at a
// depth floor (the `max_levels` parameter, a floor relative to the coordinates' magnitude, and the deepest
// level a node key can name). A grown root keeps the first root's cells as a level of its own, and while
// nothing is held above that level the queries enter there, at the cells whose reach they meet (looked up
// by key): the levels a growth added only lead down to those cells, so a cluster that made the root grow
// costs a query elsewhere at most the test of one node of its branch, as under the post's fixed root. The
// shared machinery (storage, frame pass, walks, pairs) is in banded_tree.hpp.

#include <algorithm>
#include <cmath>
#include <string>

#include "banded_tree.hpp"
#include "spheretest/structures.hpp"
#include "structures/shared/simd_support.hpp"

namespace st {
namespace {

using banded::CellBox;
using KeyCodec = linear::KeyCodec<2>;

// A node's cell: the half-open square of centres [x0, x1) x [y0, y1), of side `size` (up to rounding). It
// keeps the circles centred in it whose radius lies in [size / 4, size / 2] (smaller ones only at the depth
// floor). Child q covers one quadrant: bit 0 of q is the right half, bit 1 the upper half.
// No member initialisers: a walk keeps its path of cells on the stack without clearing it first, and
// every cell is made whole where it is made (at()).
struct Cell {
  double x0;
  double y0;
  double x1;
  double y1;
  double size;
  std::uint32_t column;  // cells of this size from the root's left edge
  std::uint32_t row;     // and from its lower edge
  int depth;
};

// Whether the cell holds the centre and its band allows the radius (it may still send it down).
bool holds(const Cell& n, const Circle& c) {
  return n.x0 <= c.center.x && c.center.x < n.x1 && n.y0 <= c.center.y && c.center.y < n.y1 &&
         double(c.radius) <= n.size * 0.5;
}

// holds() && not small enough to go down, for the circles of one node (the node's half worked out once).
struct StayTest {
  double x0, y0, x1, y1, largest, smallest;  // smallest < 0 where the node may not split
  bool operator()(const Circle& c) const {
    const double r = c.radius;
    return x0 <= c.center.x && c.center.x < x1 && y0 <= c.center.y && c.center.y < y1 && r <= largest &&
           !(r < smallest);
  }
};

class RadiusTree final : public banded::BandedTree<RadiusTree, 2> {
  friend class banded::BandedTree<RadiusTree, 2>;

 public:
  /// An empty tree.
  RadiusTree() : BandedTree("radius-tree") {
    addParam({"max_levels",
              "levels below the first root's size a small circle may descend (zero radii stop there)", 24, 4,
              40, true});
  }

  std::string_view description() const override {
    return "The radius tree (source document 000, a data structure for variable-radius spheres) is a "
           "quadtree over circle centres in which a node whose cell has side s keeps the circles centred in "
           "it with radius in [s/4, s/2], nodes and circles kept depth first in two arrays. A point query "
           "enters at most 4 nodes per level and costs O(log(S/s) + k) for the smallest nearby radius s and "
           "k candidates, whatever dense cluster lies more than twice its radii away. Choose it for many "
           "point-in-radius questions over radii of very different sizes and for worlds with dense remote "
           "clusters.";
  }

  std::string_view nodeRule() const override {
    return "a node of side s holds the circles centred in its cell with a radius in [s/4, s/2]; smaller ones "
           "go "
           "to the quadrant of their centre, larger ones up";
  }

 private:
  // -- geometry: a node's corner is the root's corner plus its column and row times its side, computed in
  // one step, so that every code path gets the same bits and a child's edges are exactly its parent's.

  // Inlined everywhere: the frame pass and placement work out cells for every circle that moves.
  SPHERETEST_ALWAYS_INLINE Cell cell(std::uint64_t key) const {
    const linear::QuadCoords c = linear::quadCoords(key);
    return at(c.column, c.row, c.depth);
  }

  Cell child(const Cell& parent, unsigned q) const {
    return at(2 * parent.column + (q & 1u), 2 * parent.row + (q >> 1), parent.depth + 1);
  }

  SPHERETEST_ALWAYS_INLINE Cell at(std::uint32_t column, std::uint32_t row, int depth) const {
    const double s = sizes_[depth];
    return {x0_ + double(column) * s,
            y0_ + double(row) * s,
            x0_ + double(column + 1) * s,
            y0_ + double(row + 1) * s,
            s,
            column,
            row,
            depth};
  }

  // Everything in a node's subtree has its centre in the cell and a radius of at most size / 2, so the cell
  // widened by size / 2 holds it: per axis, the post's child-visit rule (the child's interval widened by the
  // parent's smallest radius, which is the child's largest).
  static CellBox reach(const Cell& c) {
    const double half = c.size * 0.5;
    return {c.x0 - half, c.y0 - half, c.x1 + half, c.y1 + half};
  }

  static CellBox drawBox(const Cell& c) { return {c.x0, c.y0, c.x1, c.y1}; }

  int levelsAboveFirstRoot() const { return levelsGrown_; }

  // The cells at `depth` whose reach (the cell widened by half its side) may meet `b`: per axis, the
  // columns c with c - 1/2 <= (x - x0) / side <= c + 3/2 for some x in b, widened by a millionth of a cell
  // for the rounding of that division (the caller tests each reach exactly).
  template <class Fn>
  bool entryCells(int depth, const CellBox& b, Fn&& fn) const {
    constexpr double kMargin = 1e-6;
    const double s = sizes_[depth];
    const double last = std::ldexp(1.0, depth) - 1.0;
    const double c0 = std::fmax(0.0, std::ceil((b.minX - x0_) / s - 1.5 - kMargin));
    const double c1 = std::fmin(last, std::floor((b.maxX - x0_) / s + 0.5 + kMargin));
    const double r0 = std::fmax(0.0, std::ceil((b.minY - y0_) / s - 1.5 - kMargin));
    const double r1 = std::fmin(last, std::floor((b.maxY - y0_) / s + 0.5 + kMargin));
    if (!(c0 <= c1 && r0 <= r1)) return true;  // nothing within reach
    if ((c1 - c0 + 1.0) * (r1 - r0 + 1.0) > double(banded::kMaxEntryCells)) return false;
    for (auto row = std::uint32_t(r0); row <= std::uint32_t(r1); ++row) {
      for (auto column = std::uint32_t(c0); column <= std::uint32_t(c1); ++column) {
        fn(linear::quadKey(column, row, depth), at(column, row, depth));
      }
    }
    return true;
  }

  // -- the rule

  bool maySplit(const Cell& n, int depth) const {
    const double half = n.size * 0.5;
    return depth < KeyCodec::levels() && half >= minCellSize_ &&
           half >= banded::kRelativeWidthFloor * banded::magnitude({n.x0, n.y0, n.x1, n.y1});
  }

  static bool keeps(const Cell& cell, int, const Circle& c) { return holds(cell, c); }

  // Quadrants do not overlap: a centre has one path.
  static int chosenDepth(std::uint64_t, int depth, const Circle&) { return depth; }

  // The quadrant of the centre, while the circle is below the node's band and the node may split.
  int down(std::uint64_t, const Cell& cell, int depth, const Circle& c) const {
    if (!(double(c.radius) < cell.size * 0.25 && maySplit(cell, depth))) return -1;
    const double s = sizes_[depth + 1];
    return (c.center.x >= x0_ + double(2 * cell.column + 1) * s ? 1 : 0) |
           (c.center.y >= y0_ + double(2 * cell.row + 1) * s ? 2 : 0);
  }

  StayTest stayTest(std::uint64_t, const Cell& cell, int depth) const {
    return {cell.x0, cell.y0,         cell.x1,
            cell.y1, cell.size * 0.5, maySplit(cell, depth) ? cell.size * 0.25 : -1.0};
  }

  static bool belowBand(const Cell& cell, int, const Circle& c) {
    return double(c.radius) < cell.size * 0.25;
  }

  std::string checkItem(std::uint64_t, const Cell& cell, int depth, const Circle& c) const {
    if (!holds(cell, c)) return "has its centre outside the cell or a radius above size/2";
    if (double(c.radius) < cell.size * 0.25 && maySplit(cell, depth))
      return "is below the node's radius band but the node may split";
    return {};
  }

  static const char* pruneText(QueryShape kind) {
    switch (kind) {
      case QueryShape::Point:
        return "point outside the child's cell widened by its largest radius";
      case QueryShape::Circle:
        return "query circle misses the child's cell widened by its largest radius";
      case QueryShape::Box:
        return "query box misses the child's cell widened by its largest radius";
      case QueryShape::Cone:
        return "view cone misses the child's cell widened by its largest radius";
      default:  // a segment, or a shape the engine answers without this walk
        break;
    }
    return "segment misses the child's cell widened by its largest radius";
  }

  // -- the root

  void setFrame(double x0, double y0, double size) {
    x0_ = x0;
    y0_ = y0;
    for (int d = 0; d <= KeyCodec::levels(); ++d) sizes_[d] = std::ldexp(size, -d);
  }

  CellBox initialRegion(std::span<const Item> items) const {
    if (worldHint()) return {worldHint()->min.x, worldHint()->min.y, worldHint()->max.x, worldHint()->max.y};
    if (items.empty()) return {0.0, 0.0, 1.0, 1.0};
    CellBox b{INFINITY, INFINITY, -INFINITY, -INFINITY};
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
    setFrame(region.minX, region.minY, side);
    levelsGrown_ = 0;
  }

  // Doubles the root toward `c` until it holds it (the old root becomes the quadrant facing away from it).
  int growToCover(const Circle& c) {
    // Called for every moved circle: the root's cell straight from the frame, and done when it holds it.
    const Cell before = at(0, 0, 0);
    if (holds(before, c)) return 0;
    int growths = 0;
    while (!holds(cell(KeyCodec::root()), c)) {
      const double size = sizes_[0];
      setFrame(c.center.x < x0_ ? x0_ - size : x0_, c.center.y < y0_ ? y0_ - size : y0_, size * 2.0);
      ++growths;
    }
    // Far from the origin, (x0 - s) + 2s can round below the old far edge x0 + s, which would drop the
    // circles centred just under it: double away from the new circle until the old cell is inside again.
    for (Cell now = cell(KeyCodec::root()); now.x1 < before.x1 || now.y1 < before.y1;
         now = cell(KeyCodec::root())) {
      setFrame(x0_, y0_, sizes_[0] * 2.0);
      ++growths;
    }
    if (growths > 0) levelsGrown_ = std::min(levelsGrown_ + growths, KeyCodec::levels());
    return growths;
  }

  void onCleared() { minCellSize_ = 0.0; }

  void extraOwn(ExtraCounters& out) const {
    out.emplace_back("root_size", hasRoot() ? sizes_[0] : 0.0);
    out.emplace_back("query_entry_depth", double(entryDepth()));
  }

  double x0_ = 0.0;
  double y0_ = 0.0;
  double sizes_[KeyCodec::kLevels + 1] = {};  // side of a cell at each depth
  double minCellSize_ = 0.0;                  // absolute depth floor, fixed when the first root is made
  int levelsGrown_ = 0;                       // doublings since the first root: its cells lie that deep
};

}  // namespace

std::unique_ptr<SpatialIndex> makeRadiusTree() {
  return std::make_unique<RadiusTree>();
}

}  // namespace st
