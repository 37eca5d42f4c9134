// The "fit entirely" quadtree, the first variant of seed 003: each circle is stored in the deepest node
// whose cell contains it entirely, so a circle lying across a split line stays in the node above it. A query
// looks at every node whose cell it meets: the subtree below it for small circles and every ancestor on the
// way up for large ones. Kept faithful, flaw included: circles on the world's centre lines never fit a
// child, pile up in the root, and every query then tests all of them.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "spheretest/structures.hpp"
#include "splitting_quadtree.hpp"

namespace st {
namespace {

using namespace quadtree_family;

class FitQuadtree final : public SplittingQuadtree {
 public:
  FitQuadtree()
      : SplittingQuadtree("fit-quadtree",
                          {"query misses the cell",
                           /*widenFollowsCell=*/false, /*countWidening=*/false},
                          /*defaultCapacity=*/4) {}

  std::string_view description() const override {
    return "Fit-entirely quadtree (seed 003, first variant): every circle lives in the deepest existing node "
           "whose cell contains it entirely, leaves split beyond fit-quadtree.capacity and subtrees merge "
           "back, so cells need no widening. Its flaw is kept on purpose: circles crossing a split line stay "
           "above it, so on the center-lines scene they all sit in the root and each query that reads the "
           "root's list becomes linear (see items_depth_0 and mean_items_above). With split_runs on, the "
           "default, a query reads a long list through the k-d split the pair search cuts it into and tests "
           "only the pieces it reaches; the list stays where the rule put it. Choose the loose quadtree "
           "instead; this one is here to show why.";
  }

  std::string_view nodeRule() const override {
    return "a node holds the circles that fit its cell entirely but fit none of its four quadrants";
  }

 protected:
  bool rootHolds(const Circle& c) const override { return circleFitsInBox(c, nodes_[0].cell); }

  // Only the quadrant holding the centre can contain the circle: one crossing the split line fits none.
  std::uint32_t childTaking(std::uint32_t n, const Circle& c) const override {
    const QuadNode& node = nodes_[n];
    if (node.firstChild == kNoIndex) return kNoIndex;
    const std::uint32_t child = node.firstChild + quadrantOf(c.center, splitOf(node));
    return circleFitsInBox(c, nodes_[child].cell) ? child : kNoIndex;
  }

  bool stayInPlace(std::uint32_t n, const Circle& old, const Circle& c) override {
    return staysUntouched(n, old, c);
  }

  bool staysUntouched(std::uint32_t n, const Circle&, const Circle& c) const override {
    return circleFitsInBox(c, nodes_[n].cell) && childTaking(n, c) == kNoIndex;
  }

  // A circle across a split line stays only while it fits no child: the test reads the children.
  bool stayTestReadsChildren() const override { return true; }

  bool descentReaches(std::uint32_t n, const Circle& c) const override {
    return cellTakesPoint(nodes_[n].cell, c.center) && circleFitsInBox(c, nodes_[n].cell);
  }

  // Identical circles would follow each other down forever.
  bool sameKey(const Circle& a, const Circle& b) const override { return a == b; }

  std::string checkRule(std::uint32_t index, int) const override {
    if (nodes_[index].widen != 0.0f) return "node " + std::to_string(index) + " is widened";
    return {};
  }

  std::string checkItem(std::uint32_t node, int, ItemId id) const override {
    const Circle& c = circle(id);
    if (!circleFitsInBox(c, nodes_[node].cell))
      return "item " + std::to_string(id) + " does not fit its node";
    const std::uint32_t first = nodes_[node].firstChild;
    if (first != kNoIndex) {
      for (std::uint32_t q = 0; q < 4; ++q) {
        if (circleFitsInBox(c, nodes_[first + q].cell))
          return "item " + std::to_string(id) + " fits a child of its node";
      }
    }
    return {};
  }

  void extraRule(ExtraCounters& out) const override {
    const double total = double(size());
    out.emplace_back("root_items", double(nodes_[0].directCount));
    out.emplace_back("root_item_share", total > 0 ? double(nodes_[0].directCount) / total : 0.0);
    // The root may have grown above the world cell; the pile-up then sits in the fullest node instead.
    std::uint32_t fullest = 0;
    for (const QuadNode& node : nodes_) fullest = std::max(fullest, node.directCount);
    out.emplace_back("fullest_node_items", double(fullest));
    // Items stored on the ancestors of an item: what looking "on the way up" costs it.
    double aboveSum = 0.0;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> pending{{0u, 0u}};
    while (!pending.empty()) {
      const auto [n, above] = pending.back();
      pending.pop_back();
      const QuadNode& node = nodes_[n];
      aboveSum += double(node.directCount) * double(above);
      if (node.firstChild == kNoIndex) continue;
      for (std::uint32_t q = 0; q < 4; ++q)
        pending.push_back({node.firstChild + q, above + node.directCount});
    }
    out.emplace_back("mean_items_above", total > 0 ? aboveSum / total : 0.0);
  }
};

}  // namespace

std::unique_ptr<SpatialIndex> makeFitQuadtree() {
  return std::make_unique<FitQuadtree>();
}

}  // namespace st
