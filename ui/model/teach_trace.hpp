#pragma once
/// \file What the teaching views share about one query: running the Query panel's shape on any structure,
/// and reading a recorded walk (QueryTrace) step by step.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spheretest/spatial_index.hpp"
#include "ui/model/demo_model.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// The Query panel's shape on any structure
// ---------------------------------------------------------------------------------------------------------

/// The box of a box query.
Box queryBoxOf(const QueryState& q);

/// The view cone of a cone query.
ViewCone viewConeOf(const QueryState& q);

/// The core query the Query panel's shape describes (a cone as its bounding circle; see runQueryShape).
Query queryOf(const QueryState& q);

/// Answers of one query run.
struct ShapeAnswer {
  std::vector<ItemId> ids;      ///< point, circle, box (and a cone's bounding circle)
  std::vector<RayHit> rayHits;  ///< ray
  QueryCounters counters;       ///< the work the query did
  /// Number of results, whichever list holds them.
  std::size_t count() const { return ids.size() + rayHits.size(); }
};

/// The box the query's shape covers (a cone: its bounding circle's), for telling whether a node's own cell
/// meets the query at all.
Box queryReach(const QueryState& q);

/// Runs the query `q` describes on `index`. A cone runs as its bounding circle, the walk a cull starts
/// with, so that it can be traced without consuming the structure's enter/leave state. Does nothing for
/// std::nullopt. Throws InvalidInput for a shape the structure rejects.
void runQueryShape(const SpatialIndex& index, const QueryState& q, ShapeAnswer& answer);
/// The same into two lists (cleared first): `ids` for point, circle, box, cone and nearest (nearest
/// first), `rayHits` for a ray; fills `trace` and `detail` (cleared first) when given. Returns the work it
/// did.
QueryCounters runQueryShape(const SpatialIndex& index, const QueryState& q, std::vector<ItemId>& ids,
                            std::vector<RayHit>& rayHits, QueryTrace* trace = nullptr,
                            QueryDetail* detail = nullptr);

/// Runs the query with `trace` filled (cleared first).
void traceQueryShape(const SpatialIndex& index, const QueryState& q, QueryTrace& trace, ShapeAnswer& answer);

/// Short name of a query mode: "point", "circle", ...
const char* queryModeName(QueryMode mode);

/// One frame of a view cone in words: "frame 12: 3 circles came into view (4, 9, 17); 1 went out of view
/// (2)", the ids listed up to a handful each, or "nothing came into view or left it".
std::string coneEventLine(std::uint64_t frame, const std::vector<ItemId>& entered,
                          const std::vector<ItemId>& left);

// ---------------------------------------------------------------------------------------------------------
// Stepping through a recorded walk
// ---------------------------------------------------------------------------------------------------------

/// The work a walk has done after its first `steps` events. The nodes a structure counts as visited are
/// `visited + pruned`: the ones whose bounds it tested. `skipped` ones were passed over without a test.
struct TraceProgress {
  std::size_t visited = 0;     ///< nodes walked into
  std::size_t pruned = 0;      ///< nodes rejected by a bounds test
  std::size_t skipped = 0;     ///< empty subtrees passed over without a test (not counted as visited)
  std::size_t candidates = 0;  ///< exact tests (misses and hits)
  std::size_t hits = 0;        ///< exact tests that matched
};

/// Whether a pruned node was passed over without a bounds test (an empty subtree), going by the test the
/// trace names.
bool prunedWithoutTest(const TraceEvent& event);

/// Counts the first `steps` events of `trace` (all of them when steps is larger).
TraceProgress progressAt(const QueryTrace& trace, std::size_t steps);

/// Index of the first event at or after `from` of kind `kind`, or trace.events.size() if none.
std::size_t nextEventOf(const QueryTrace& trace, std::size_t from, TraceEventKind kind);

/// One line naming a node: "depth 3, box 0.0..64.0 x 0.0..64.0, 5 items" (or its sphere).
std::string describeNode(const NodeInfo& node);

/// One line telling what an event means, e.g. "pruned node at depth 3 (box 0..64 x 0..64): <test>".
std::string describeEvent(const TraceEvent& event);

/// The nodes a query visited, in the words every panel uses: the structure's own count (the nodes whose
/// bounds it tested) and, given the traced walk, how it splits, "nodes visited 173 = entered 124 + pruned
/// 49" (plus the nodes it counts without tracing them, a grid's empty cells). Where the structure cannot
/// count them (SpatialIndex::nodesNotCounted), "nodes visited: not counted (<why>)".
std::string nodesVisitedText(std::string_view notCounted, std::uint64_t nodesVisited,
                             const TraceProgress* walk);

/// The circles or pairs a walk examined, "1,234", or "at least 1,234" where the structure's library tests
/// bounds it never reports (SpatialIndex::examinedLowerBound).
std::string examinedText(std::string_view lowerBound, std::uint64_t examined);

/// Whether two nodes are the same drawn shape (same kind, bounds and depth).
bool sameNode(const NodeInfo& a, const NodeInfo& b);

}  // namespace st::ui
