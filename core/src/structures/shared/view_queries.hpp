#pragma once
// Queries answered from a tree's pair view. Right after a pair search the view holds the tree's own
// hierarchy, each subtree bounded by that frame's circles, folded to flat leaves of up to kBatchItems
// circles and laid out depth first beside them: walked whole as a run tree it answers a query forward in
// memory, without a stack. A query may walk it while the tree has not changed since (the content version
// the view was filled at) and when it asks for neither a trace nor the tree's own per-node figures, which
// only the tree's walk gives (the Query panel, Step through, the headless report and the claims ask for
// them). The trees that answer this way declare the `view_queries` parameter that turns it off; the sphere
// tree does not, since its view lists the top-level spheres flat below the root, which its own walk finds
// through a grid, and a walk of the view took twice as long: it reads its top two levels from a query
// layout of its own instead (sphere_tree.hpp).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pair_view.hpp"
#include "spheretest/spatial_index.hpp"
#include "tree_walk.hpp"

namespace st::pair_view {

/// The parameter of a tree whose queries may walk its view; `also` adds a sentence of the tree's own.
inline ParamInfo viewQueriesParam(std::string_view also = {}) {
  std::string description =
      "queries that ask for no trace and no per-node figures walk the pair search's view of the tree while "
      "it is current: the same nodes, bounded by that frame's circles, laid out depth first (1); or the "
      "tree itself (0)";
  if (!also.empty()) description += ". " + std::string(also);
  return {"view_queries", std::move(description), 1, 0, 1, true};
}

/// Whether a query may walk the view a tree last filled, and the walks that do.
class ViewQueries {
 public:
  /// Notes that the view now holds the tree at content version `version`.
  void filled(std::uint64_t version) { version_ = version; }
  /// Sets the view_queries parameter's value.
  void enable(bool on) { on_ = on; }
  /// The whole view as a run tree, when a query with `ctx` may walk it at content version `now`; no nodes
  /// otherwise.
  tree_walk::RunTree runTree(const PairView& view, std::uint64_t now, const QueryContext& ctx) const {
    if (!on_ || version_ != now || ctx.tracing() || ctx.detail || view.nodes() == 0) return {};
    return {view.nodeData(), 0, static_cast<std::uint32_t>(view.nodes()), view.items()};
  }
  /// Answers a point, circle or box query (into a vector or a visitor) from the view when it may; false
  /// when the tree must walk itself.
  template <class Shape, class Out>
  bool collect(const PairView& view, std::uint64_t now, const Shape& shape, Out& out,
               QueryContext& ctx) const {
    const tree_walk::RunTree run = runTree(view, now, ctx);
    if (!run.nodes) return false;
    tree_walk::collectUnder(run, ctx, shape, out);
    return true;
  }
  /// The same for every circle a segment meets.
  bool rayCast(const PairView& view, std::uint64_t now, const Segment& segment, std::vector<RayHit>& out,
               QueryContext& ctx) const {
    const tree_walk::RunTree run = runTree(view, now, ctx);
    if (!run.nodes) return false;
    tree_walk::rayCastUnder(run, ctx, segment, out);
    return true;
  }

 private:
  std::uint64_t version_ = ~std::uint64_t{0};
  bool on_ = true;
};

}  // namespace st::pair_view
