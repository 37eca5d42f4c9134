// The enneatree of source document 003 ("circles of many sizes"). Per axis a node's interval (0, 1) has
// three overlapping children, (0, 1/2), (1/4, 3/4) and (1/2, 1); in 2D that makes nine. Any circle whose
// diameter is below a quarter of a node's width fits entirely inside at least one child, so a circle's
// depth follows from its diameter alone, and no small circle is ever held up high by a boundary: not even
// by the centre lines, where the fit-entirely quadtree collects everything in its root.
//
// The source's author found no straightforward implementation (they alternated horizontal and vertical cuts
// to avoid nine-way branches). This one rests on three observations:
//   1. The nine-way choice is two independent three-way choices, one per axis, each picked by the same rule
//      (the centre half if it fits, else the low or high half).
//   2. Every item fits entirely inside its node and a child's box lies inside its parent's, so a node's box
//      bounds its whole subtree. "Go down for smaller circles, up for larger ones, and down again into the
//      neighbours' children where they can reach" is then a single walk from the root that enters every
//      child box the query reaches: the path from the root supplies the larger circles, the pruned descent
//      the smaller ones and the neighbours'. At each depth at most two distinct boxes per axis contain a
//      point (one box can be held by two nodes: the high child of one node is the low child of the next).
//   3. Per axis, a node's corner is the root's corner plus a whole number of halves of its own width (each
//      level down doubles that number and adds 0, 1 or 2: a child starts 0, 1/4 or 1/2 of its parent's
//      width in), so its box is computed in one step from its path, and a child's edges are exactly its
//      parent's where they meet.
// The shared machinery of size-banded trees (storage, frame pass, walks, pairs) is in banded_tree.hpp.

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "banded_tree.hpp"
#include "spheretest/structures.hpp"

namespace st {
namespace {

using banded::CellBox;
using KeyCodec = linear::KeyCodec<4>;

// A child slot packs the two per-axis choices: (cy << 2) | cx, each 0 (low half), 1 (centre), 2 (high).
constexpr unsigned kCentreSlot = (1u << 2) | 1u;

// A node: the closed square [x0, x1] x [y0, y1] of side `width`, whose corner lies `column` and `row` halves
// of its width from the root's.
// No member initialisers: a walk keeps its path of cells on the stack without clearing it first, and
// every cell is made whole where it is made (at()).
struct Cell {
  double x0;
  double y0;
  double x1;
  double y1;
  double width;
  std::uint64_t column;
  std::uint64_t row;
  int depth;
};

bool fits(const Cell& n, const Circle& c) {
  const double r = c.radius;
  return double(c.center.x) - r >= n.x0 && double(c.center.x) + r <= n.x1 && double(c.center.y) - r >= n.y0 &&
         double(c.center.y) + r <= n.y1;
}

class Enneatree final : public banded::BandedTree<Enneatree, 4> {
  friend class banded::BandedTree<Enneatree, 4>;

 public:
  /// An empty tree.
  Enneatree() : BandedTree("enneatree") {
    addParam({"max_levels",
              "levels below the first root's width a small circle may descend (zero radii stop there)", 24, 4,
              40, true});
  }

  std::string_view description() const override {
    return "The enneatree (source document 003, circles of many sizes) splits a node's square into nine "
           "overlapping children, per axis the three halves starting at 0, 1/4 and 1/2 of its width, so a "
           "circle descends while its diameter is below a quarter of the node's width and its depth follows "
           "from its diameter. No boundary holds small circles up high, not even the centre lines where the "
           "fit-entirely quadtree turns linear; insert costs O(log(W/d)) for root width W and diameter d, "
           "and queries O(log(W/d) + k). Choose it for circles of very different sizes placed anywhere, when "
           "a size hierarchy without a looseness parameter is wanted.";
  }

  std::string_view nodeRule() const override {
    return "a node of width w holds the circles that fit entirely in its box with a diameter below w/2 and "
           "not "
           "below w/4; smaller ones go to a child half they fit, the centre one first";
  }

 private:
  // -- geometry (observation 3)

  Cell cell(std::uint64_t key) const {
    const int d = KeyCodec::depth(key);
    const std::uint64_t path = key >> KeyCodec::kDepthBits;
    const int drop = KeyCodec::kLevels - d;
    // Per level, cx adds 0, 1 or 2 to a base-2 digit: its two bits are the 1s and 2s of the column.
    const std::uint64_t column =
        (linear::everyFourthBit(path, 0) >> drop) + 2 * (linear::everyFourthBit(path, 1) >> drop);
    const std::uint64_t row =
        (linear::everyFourthBit(path, 2) >> drop) + 2 * (linear::everyFourthBit(path, 3) >> drop);
    return at(column, row, d);
  }

  Cell child(const Cell& parent, unsigned slot) const {
    return at(2 * parent.column + (slot & 3u), 2 * parent.row + (slot >> 2), parent.depth + 1);
  }

  Cell at(std::uint64_t column, std::uint64_t row, int depth) const {
    const double unit = units_[depth];  // half the width at this depth
    return {x0_ + double(column) * unit,
            y0_ + double(row) * unit,
            x0_ + double(column + 2) * unit,
            y0_ + double(row + 2) * unit,
            2.0 * unit,
            column,
            row,
            depth};
  }

  static CellBox reach(const Cell& c) { return {c.x0, c.y0, c.x1, c.y1}; }
  static CellBox drawBox(const Cell& c) { return {c.x0, c.y0, c.x1, c.y1}; }

  // -- the rule

  bool maySplit(const Cell& n) const {
    const double half = n.width * 0.5;
    return n.depth < KeyCodec::levels() && half >= minWidth_ &&
           half >= banded::kRelativeWidthFloor * banded::magnitude({n.x0, n.y0, n.x1, n.y1});
  }

  // Whether the node may keep the circle: it fits, and (below the root) it is small enough to have come down.
  static bool keeps(const Cell& cell, int depth, const Circle& c) {
    return fits(cell, c) && (depth == 0 || 2.0 * double(c.radius) < cell.width * 0.5);
  }

  // Which of the three overlapping halves of the node along one axis holds [lo, hi]: 1 (the centre half)
  // whenever it fits, else 0 or 2; -1 when none does (only within rounding of a bound). The halves' edges
  // are those of the children's boxes.
  int chooseHalf(double lo, double hi, double origin, std::uint64_t index, int depth) const {
    const double unit = units_[depth + 1];
    const auto edge = [&](std::uint64_t k) { return origin + double(2 * index + k) * unit; };
    if (lo >= edge(1) && hi <= edge(3)) return 1;
    if (lo >= edge(0) && hi <= edge(2)) return 0;
    if (lo >= edge(2) && hi <= edge(4)) return 2;
    return -1;
  }

  // Observation 1: the child slot is two independent three-way choices; -1 when the circle stays.
  int down(std::uint64_t, const Cell& cell, int depth, const Circle& c) const {
    if (!(2.0 * double(c.radius) < cell.width * 0.25 && maySplit(cell))) return -1;
    const double r = c.radius;
    const int cx = chooseHalf(double(c.center.x) - r, double(c.center.x) + r, x0_, cell.column, depth);
    const int cy = chooseHalf(double(c.center.y) - r, double(c.center.y) + r, y0_, cell.row, depth);
    return cx < 0 || cy < 0 ? -1 : (cy << 2) | cx;
  }

  // Where, along one axis, a circle's extent [lo, hi] must lie for the walk down from the root (the centre
  // half first at every level) to reach a node. Per level the choice is an interval test: the centre half
  // when lo >= e1 and hi <= e3; the low half when e0 <= lo < e1 and hi <= e2; the high half when lo >= e2 and
  // e3 < hi <= e4 (e0 .. e4: the parent's quarter lines, computed as chooseHalf does). Their intersection is
  // four bounds, worked out once per node.
  struct PathWindow {
    double loMin = -INFINITY, loBelow = INFINITY, hiAbove = -INFINITY, hiMax = INFINITY;
    bool admits(double lo, double hi) const {
      return lo >= loMin && lo < loBelow && hi > hiAbove && hi <= hiMax;
    }
  };

  // Narrows `w` by the choice of `half` (0, 1 or 2) at `level`, below the node whose column (or row) along
  // this axis is `parent`; returns the child's.
  std::uint64_t narrowWindow(PathWindow& w, std::uint64_t parent, unsigned half, int level,
                             double origin) const {
    const double unit = units_[level];
    const auto edge = [&](std::uint64_t k) { return origin + double(2 * parent + k) * unit; };
    if (half == 1) {
      w.loMin = std::max(w.loMin, edge(1));
      w.hiMax = std::min(w.hiMax, edge(3));
    } else if (half == 0) {
      w.loMin = std::max(w.loMin, edge(0));
      w.loBelow = std::min(w.loBelow, edge(1));
      w.hiMax = std::min(w.hiMax, edge(2));
    } else {
      w.loMin = std::max(w.loMin, edge(2));
      w.hiAbove = std::max(w.hiAbove, edge(3));
      w.hiMax = std::min(w.hiMax, edge(4));
    }
    return 2 * parent + half;
  }

  // How deep the walk down from the root follows this node's path for the circle: its depth when the walk
  // reaches the node. Neighbouring children share half their box, and a box deeper down is reached through
  // several paths: a circle left on another path after it moved would stay where a build would not put it,
  // and over a long run the boxes reached twice fill up and the pair search tests them against each other.
  int chosenDepth(std::uint64_t key, int depth, const Circle& c) const {
    const double r = c.radius;
    const double xl = double(c.center.x) - r, xh = double(c.center.x) + r;
    const double yl = double(c.center.y) - r, yh = double(c.center.y) + r;
    std::uint64_t column = 0, row = 0;
    for (int level = 1; level <= depth; ++level) {
      const unsigned slot = KeyCodec::slotAt(key, level), cx = slot & 3u, cy = slot >> 2;
      if (chooseHalf(xl, xh, x0_, column, level - 1) != int(cx) ||
          chooseHalf(yl, yh, y0_, row, level - 1) != int(cy))
        return level - 1;
      column = 2 * column + cx;
      row = 2 * row + cy;
    }
    return depth;
  }

  // keeps() && chosenDepth() == depth && down() < 0 for the circles of one node, the node's windows worked
  // out once: the rare circle small enough to go down takes the full test. The windows restate chooseHalf
  // as intervals; validate() checks every circle with chosenDepth(), so the two cannot drift apart unseen.
  struct StayTest {
    const Enneatree* tree;
    const Cell* cell;
    PathWindow x, y;           // chosenDepth() == depth, and the node's own box
    double largest, smallest;  // diameters: below `largest` to stay, below `smallest` to go down
    bool operator()(const Circle& c) const {
      const double r = c.radius, d = 2.0 * r;
      if (!(x.admits(double(c.center.x) - r, double(c.center.x) + r) &&
            y.admits(double(c.center.y) - r, double(c.center.y) + r) && d < largest))
        return false;
      return !(d < smallest) || tree->down(0, *cell, cell->depth, c) < 0;
    }
  };

  // The stay tests of the nodes a frame pass visits in key order. Neighbouring nodes share their path down
  // to where it parts (the `shared` depth forEachRun gives), so the windows of those levels are kept and each
  // node narrows them by its own levels only: worked out from the root for every node, the windows took
  // most of the enneatree's update.
  class PathWindows {
   public:
    explicit PathWindows(const Enneatree& tree) : tree_(tree) {}

    /// Moves to node `key`, whose path agrees with the previous one's down to `shared` (0 for the first
    /// node, or when unknown); returns its cell.
    Cell enter(std::uint64_t key, int shared) {
      const int depth = KeyCodec::depth(key);
      for (int level = shared + 1; level <= depth; ++level) {
        const unsigned slot = KeyCodec::slotAt(key, level);
        x_[level] = x_[level - 1];
        y_[level] = y_[level - 1];
        column_[level] = tree_.narrowWindow(x_[level], column_[level - 1], slot & 3u, level, tree_.x0_);
        row_[level] = tree_.narrowWindow(y_[level], row_[level - 1], (slot >> 2) & 3u, level, tree_.y0_);
      }
      return tree_.at(column_[depth], row_[depth], depth);
    }

    /// The stay test of the node entered last (`cell`, at `depth`).
    StayTest stayTest(const Cell& cell, int depth) const {
      return tree_.stayTestWithin(cell, depth, x_[depth], y_[depth]);
    }

   private:
    const Enneatree& tree_;
    std::array<PathWindow, KeyCodec::kLevels + 1> x_{}, y_{};            // [level]: the windows down to it
    std::array<std::uint64_t, KeyCodec::kLevels + 1> column_{}, row_{};  // [level]: the path's node there
  };

  PathWindows pathWindows() const { return PathWindows(*this); }

  StayTest stayTestWithin(const Cell& cell, int depth, PathWindow x, PathWindow y) const {
    x.loMin = std::max(x.loMin, cell.x0);
    x.hiMax = std::min(x.hiMax, cell.x1);
    y.loMin = std::max(y.loMin, cell.y0);
    y.hiMax = std::min(y.hiMax, cell.y1);
    return {this,
            &cell,
            x,
            y,
            depth == 0 ? INFINITY : cell.width * 0.5,
            maySplit(cell) ? cell.width * 0.25 : -1.0};
  }

  static bool belowBand(const Cell& cell, int, const Circle& c) {
    return 2.0 * double(c.radius) < cell.width * 0.25;
  }

  std::string checkItem(std::uint64_t key, const Cell& cell, int depth, const Circle& c) const {
    if (!fits(cell, c)) return "does not fit entirely inside the node's box";
    if (depth > 0 && !(2.0 * double(c.radius) < cell.width * 0.5))
      return "has a diameter too large for its depth";
    if (down(key, cell, depth, c) >= 0)
      return "is small enough for a child it fits in, but was not sent down";
    if (chosenDepth(key, depth, c) < depth)
      return "is off the path a placement from the root takes (the centre child first at every level)";
    return {};
  }

  static const char* pruneText(QueryShape kind) {
    switch (kind) {
      case QueryShape::Point:
        return "point outside the child's box";
      case QueryShape::Circle:
        return "query circle misses the child's box";
      case QueryShape::Box:
        return "query box misses the child's box";
      case QueryShape::Cone:
        return "view cone misses the child's box";
      default:  // a segment, or a shape the engine answers without this walk
        break;
    }
    return "segment misses the child's box";
  }

  // -- the root

  void setFrame(double x0, double y0, double width) {
    x0_ = x0;
    y0_ = y0;
    for (int d = 0; d <= KeyCodec::levels(); ++d) units_[d] = std::ldexp(width, -d - 1);
  }

  CellBox initialRegion(std::span<const Item> items) const {
    if (worldHint()) return {worldHint()->min.x, worldHint()->min.y, worldHint()->max.x, worldHint()->max.y};
    if (items.empty()) return {0.0, 0.0, 1.0, 1.0};
    CellBox b{INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (const Item& item : items) {
      const double x = item.circle.center.x, y = item.circle.center.y, r = item.circle.radius;
      b = {std::fmin(b.minX, x - r), std::fmin(b.minY, y - r), std::fmax(b.maxX, x + r),
           std::fmax(b.maxY, y + r)};
    }
    return b;
  }

  // The root is the region's square itself, so that the world's centre lines are the root's: the case
  // the enneatree exists for is then met head on.
  void startRoot(const CellBox& region) {
    double side = std::fmax(region.maxX - region.minX, region.maxY - region.minY);
    if (!(side > 0.0)) side = std::fmax(1.0, banded::magnitude(region) * 0x1p-16);
    if (minWidth_ == 0.0) minWidth_ = std::ldexp(side, -int(param("max_levels")));
    setFrame(region.minX, region.minY, side);
  }

  // Doubles the root around its centre until the circle fits: the old root becomes the new root's centre
  // child, which is exactly the child the centre-first rule would choose for everything inside it.
  int growToCover(const Circle& c) {
    int growths = 0;
    while (!fits(cell(KeyCodec::root()), c)) {
      const double width = 2.0 * units_[0];
      setFrame(x0_ - width * 0.5, y0_ - width * 0.5, width * 2.0);
      ++growths;
    }
    return growths;
  }

  void onCleared() { minWidth_ = 0.0; }

  void extraOwn(ExtraCounters& out) const {
    out.emplace_back("root_width", hasRoot() ? 2.0 * units_[0] : 0.0);
    std::size_t belowRoot = 0, inCentreChild = 0;
    const linear::SortedItems& items = sortedItems();
    for (std::uint32_t s = 0; s < items.size(); ++s) {
      if (KeyCodec::depth(items.key(s)) == 0) continue;
      ++belowRoot;
      if (KeyCodec::slot(items.key(s)) == kCentreSlot) ++inCentreChild;
    }
    out.emplace_back("centre_child_item_share",
                     belowRoot == 0 ? 0.0 : double(inCentreChild) / double(belowRoot));
    out.emplace_back("nodes_sharing_a_box", double(nodesSharingABox()));
  }

  // Nodes whose box equals another node's: the same half can be reached as the high child of one node and
  // the low child of its neighbour, so the tree keeps the overlap the source describes.
  std::size_t nodesSharingABox() const {
    const linear::Directory& dir = directory();
    std::vector<std::tuple<int, std::uint64_t, std::uint64_t>> boxes;
    boxes.reserve(dir.size());
    for (std::uint32_t i = 0; i < dir.size(); ++i) {
      const Cell c = cell(dir[i].key);
      boxes.emplace_back(c.depth, c.column, c.row);
    }
    std::sort(boxes.begin(), boxes.end());
    std::size_t shared = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if ((i > 0 && boxes[i] == boxes[i - 1]) || (i + 1 < boxes.size() && boxes[i] == boxes[i + 1])) ++shared;
    }
    return shared;
  }

  double x0_ = 0.0;
  double y0_ = 0.0;
  double units_[KeyCodec::kLevels + 1] = {};  // half a node's width at each depth
  double minWidth_ = 0.0;                     // absolute depth floor, fixed when the first root is made
};

}  // namespace

std::unique_ptr<SpatialIndex> makeEnneatree() {
  return std::make_unique<Enneatree>();
}

}  // namespace st
