#pragma once
/// \file
/// The one interface every spatial structure implements, with its counters, stats and errors.
///
/// The public calls are non-virtual: they check their input once, here, keep the item table, reset the
/// per-call counters and then call the structure's protected `do...` hook. Structures therefore never see
/// invalid input, and bad input is rejected the same way by every structure (an InvalidInput exception,
/// with the structure left exactly as it was).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spheretest/circle_table.hpp"
#include "spheretest/geometry.hpp"
#include "spheretest/tasks.hpp"
#include "spheretest/walk_view.hpp"

namespace st {

/// Thrown for every rejected input: non-finite or out-of-range values, negative radius, a duplicate id,
/// an unknown id, an unknown parameter. The structure is unchanged when it is thrown.
class InvalidInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An item as handed to build(): id plus circle.
struct Item {
  ItemId id = 0;  ///< caller's id, unique, < kMaxItemId
  Circle circle;  ///< its circle
};

/// Work done by the last call (query, pair search or update batch).
///
/// `candidates` is the figure that tells structures apart: what the call examined, circle by circle (a
/// query) or pair by pair (the pair search), whether by distance or by bounds, in a vector lane or in
/// scalar code. Brute force's pair search examines n(n-1)/2 pairs. `exactTests` counts the exact
/// predicate evaluations among them: those that passed a cheaper pre-test, or every one where there is none.
struct QueryCounters {
  std::uint64_t nodesVisited = 0;  ///< nodes (cells, tree nodes) the call touched
  std::uint64_t candidates = 0;    ///< circles or circle pairs examined (candidate tests)
  std::uint64_t exactTests = 0;    ///< exact predicate evaluations among the candidates
};

/// Size of a structure.
struct IndexStats {
  std::size_t nodes = 0;        ///< nodes or occupied cells
  int maxDepth = 0;             ///< deepest level (0 for flat structures)
  std::size_t memoryBytes = 0;  ///< bytes the structure holds (capacity, not size), item table included
};

/// How a node is drawn.
enum class NodeShape : std::uint8_t { Box, Circle };

/// One node as seen by a drawing visitor.
struct NodeInfo {
  NodeShape shape = NodeShape::Box;  ///< which of box / circle is meaningful
  Box box;                           ///< bounds when shape is Box: the node's own cell
  Circle circle;                     ///< bounds when shape is Circle
  int depth = 0;                     ///< 0 at the root
  std::uint32_t itemCount = 0;       ///< items stored directly in the node
  /// The bounds a query tests when they reach beyond `box`: a loose quadtree's loose bounds, a point
  /// quadtree's cell widened by the largest radius below. Empty (zero width, the default) otherwise.
  Box grown;
  /// Whether `grown` is set.
  bool hasGrown() const { return grown.max.x > grown.min.x; }
};

/// Visitor called once per node by visitNodes().
using NodeVisitor = std::function<void(const NodeInfo&)>;

/// Structure-specific named figures for reports (fast-path ratio, cells visited per level, ...).
using ExtraCounters = std::vector<std::pair<std::string, double>>;

/// A tunable parameter of a structure, set on the command line as `<structure>.<key>=<value>`.
struct ParamInfo {
  std::string key;          ///< name without the structure prefix
  std::string description;  ///< one line
  double defaultValue = 0;  ///< value on construction
  double minValue = 0;      ///< smallest accepted value
  double maxValue = 0;      ///< largest accepted value
  bool integer = false;     ///< whether only whole numbers are accepted
};

/// What happened at one step of a traced query, for step-by-step teaching.
enum class TraceEventKind : std::uint8_t {
  VisitNode,  ///< the walk entered a node
  PruneNode,  ///< a node was skipped; `test` says which test rejected it
  Candidate,  ///< an item was tested exactly and missed
  Hit,        ///< an item was tested exactly and matched
};

/// One recorded step of a traced query.
struct TraceEvent {
  TraceEventKind kind = TraceEventKind::VisitNode;  ///< what happened
  NodeInfo node;                                    ///< the node (VisitNode, PruneNode)
  ItemId id = 0;                                    ///< the item (Candidate, Hit)
  const char* test = "";                            ///< static text naming the pruning test
};

/// Receives the steps of a query whose QueryContext points to it (not used in pair search).
struct QueryTrace {
  std::vector<TraceEvent> events;  ///< steps in the order the walk took them
};

/// The shapes a query can take.
enum class QueryShape : std::uint8_t {
  Point,    ///< circles containing a point
  Circle,   ///< circles overlapping a circle
  Box,      ///< circles overlapping a box
  Segment,  ///< circles a segment (a ray of finite length) meets
  Cone,     ///< circles overlapping a view cone
  Nearest,  ///< the k circles whose edges lie nearest a point
};

/// Figures of one query beyond its two counters, which structures fill where they apply (for teaching).
struct QueryDetail {
  static constexpr int kDepthSlots = 64;  ///< deepest level told apart; deeper ones add to the last slot
  std::array<std::uint64_t, kDepthSlots> candidatesByDepth{};  ///< candidates per depth of their node
  int depthsUsed = 0;                                          ///< slots of candidatesByDepth that may be set
  std::uint64_t widenedNodes = 0;       ///< nodes entered only because their bounds were widened
  std::uint64_t widenedCandidates = 0;  ///< candidates those nodes contributed
  std::uint64_t occupiedCells = 0;      ///< cells looked up that held items (grids)
  std::array<std::uint32_t, kDepthSlots> nodesByDepth{};  ///< nodes entered per depth (size-banded trees)
  int nodeDepthsUsed = 0;                                 ///< slots of nodesByDepth that may be set

  /// Clears the figures, touching only the slots in use.
  void reset() {
    std::fill_n(candidatesByDepth.begin(), depthsUsed, 0);
    std::fill_n(nodesByDepth.begin(), nodeDepthsUsed, 0);
    depthsUsed = nodeDepthsUsed = 0;
    widenedNodes = widenedCandidates = occupiedCells = 0;
  }
};

/// The caller's side of a query: what the walk counted, and the trace and detail it fills when set.
/// Queries keep nothing in the structure, so each thread running them passes its own context.
struct QueryContext {
  QueryCounters counters;         ///< added to by the query
  QueryTrace* trace = nullptr;    ///< steps of the walk, when not null
  QueryDetail* detail = nullptr;  ///< structure-specific figures, when not null

  /// Whether a trace is attached (guard expensive NodeInfo construction with it).
  bool tracing() const { return trace != nullptr; }
  /// Records that the walk entered a node.
  void visit(const NodeInfo& node) const {
    if (trace) record({TraceEventKind::VisitNode, node, 0, ""});
  }
  /// Records a pruned node and the name of the test that pruned it.
  void prune(const NodeInfo& node, const char* test) const {
    if (trace) record({TraceEventKind::PruneNode, node, 0, test});
  }
  /// Counts one circle examined and exactly tested, and records the outcome; returns `hit`. The one way
  /// every walk counts a circle it tests (docs/glossary.md: circles examined, exact tests).
  bool examine(ItemId id, bool hit) {
    ++counters.candidates;
    candidate(id, hit);
    return hit;
  }
  /// Counts an exact test of an item and records its outcome (the walk counted it as examined already,
  /// by a bounds test that stood for it).
  void candidate(ItemId id, bool hit) {
    ++counters.exactTests;
    traceOutcome(id, hit);
  }
  /// Records the outcome of an exact test that the walk counts itself.
  void traceOutcome(ItemId id, bool hit) const {
    if (trace) record({hit ? TraceEventKind::Hit : TraceEventKind::Candidate, {}, id, ""});
  }
  /// Records an item accepted without a test (its whole node was inside the query).
  void acceptUntested(ItemId id) const {
    if (trace) record({TraceEventKind::Hit, {}, id, ""});
  }

 private:
  // Out of line, so that the calls above stay small enough to inline into every walk's inner loop.
  void record(const TraceEvent& event) const;
};

// ---------------------------------------------------------------------------------------------------------
// SpatialIndex
// ---------------------------------------------------------------------------------------------------------

/// The interface of every structure, brute force included.
class SpatialIndex {
 public:
  /// Creates an empty structure with the registry name `name`.
  explicit SpatialIndex(std::string name) : name_(std::move(name)) {}
  virtual ~SpatialIndex() = default;
  SpatialIndex(const SpatialIndex&) = delete;
  SpatialIndex& operator=(const SpatialIndex&) = delete;

  /// The command-line name, e.g. "grid".
  const std::string& name() const { return name_; }
  /// One paragraph: how it works and what it costs.
  virtual std::string_view description() const = 0;

  // -- parameters -------------------------------------------------------------------------------------
  /// The tunable parameters with their ranges.
  const std::vector<ParamInfo>& params() const { return paramInfo_; }
  /// Sets a parameter (key without prefix); throws InvalidInput for an unknown key or a value out of range.
  void setParam(std::string_view key, double value);
  /// Current value of a parameter; throws InvalidInput for an unknown key.
  double param(std::string_view key) const;

  // -- mutation -----------------------------------------------------------------------------------------
  /// Replaces the whole content with `items` (ids unique).
  void build(std::span<const Item> items);
  /// Adds one item; its id must not be present.
  void insert(ItemId id, const Circle& circle);
  /// Moves and/or resizes a present item.
  void update(ItemId id, const Circle& circle);
  /// Moves and/or resizes many present items at once (ids unique: a repeat is rejected); lets a structure
  /// choose a rebuild.
  void updateBatch(std::span<const ItemId> ids, std::span<const Circle> circles);
  /// Removes a present item.
  void remove(ItemId id);
  /// Removes everything.
  void clear();
  /// Once per frame after the updates: deferred work (queues, rebalancing). Queries are exact without it.
  void maintain();

  // -- queries (each clears `out` first) -------------------------------------------------------------------
  // Every query is const and keeps nothing in the structure, so any number of threads may query it at once.
  // `ctx`, when given, is added the query's counters and receives the steps and detail it points to.
  /// Ids of the circles containing p.
  void queryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext* ctx = nullptr) const;
  /// Ids of the circles overlapping `query`.
  void queryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext* ctx = nullptr) const;
  /// Ids of the circles overlapping `box`.
  void queryBox(const Box& box, std::vector<ItemId>& out, QueryContext* ctx = nullptr) const;
  /// Every circle the segment meets, ordered by rayHitLess.
  void rayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext* ctx = nullptr) const;
  /// The first circle the segment meets (smallest t, then smallest id), if any.
  std::optional<RayHit> rayCastFirst(const Segment& segment, QueryContext* ctx = nullptr) const;
  /// Ids of the circles overlapping a view cone, sorted (no visibility memory: see cullView).
  void queryCone(const ViewCone& cone, std::vector<ItemId>& out, QueryContext* ctx = nullptr) const;
  /// The `k` circles nearest `p` by circleEdgeDistance, ordered by nearestHitLess (all of them when fewer).
  void queryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out, QueryContext* ctx = nullptr) const;
  /// Calls `visit` with each circle containing p until it returns false.
  void queryPoint(Vec2 p, const ItemVisitor& visit, QueryContext* ctx = nullptr) const;
  /// Calls `visit` with each circle overlapping `query` until it returns false.
  void queryCircle(const Circle& query, const ItemVisitor& visit, QueryContext* ctx = nullptr) const;
  /// Calls `visit` with each circle overlapping `box` until it returns false.
  void queryBox(const Box& box, const ItemVisitor& visit, QueryContext* ctx = nullptr) const;
  /// Every overlapping pair once, a < b, in no particular order.
  void findPairs(std::vector<Pair>& out);
  /// Culls with a view cone and reports the items whose visibility changed since the previous call
  /// (on the first call every visible item enters). Both lists are sorted by id.
  void cullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left);
  /// Ids of the items visible in the last cullView, sorted.
  const std::vector<ItemId>& visibleItems() const { return visible_; }

  // -- introspection --------------------------------------------------------------------------------------
  /// Counters of the last findPairs, cullView, build, update batch or maintain (queries count into the
  /// caller's QueryContext).
  const QueryCounters& lastCounters() const { return counters_; }
  /// Calls `visitor` for every node, for drawing; flat structures report their cells.
  virtual void visitNodes(const NodeVisitor& visitor) const = 0;
  /// Calls `visitor` for each node from the root down to the one holding a present item (a structure that
  /// stores an item in several cells visits each of them); nothing for one without nodes.
  virtual void visitPathTo(ItemId id, const NodeVisitor& visitor) const {
    (void)id;
    (void)visitor;
  }
  /// One line naming the rule that decides which node holds a circle, for the inspector.
  virtual std::string_view nodeRule() const { return {}; }
  /// Why `QueryCounters::nodesVisited` does not count the nodes whose bounds a walk tested (a library that
  /// reports only the leaves it reaches), or "" when it does. Panels then say so instead of the number.
  virtual std::string_view nodesNotCounted() const { return {}; }
  /// Why `QueryCounters::candidates` may be fewer than the circles (or pairs) a walk examined (a library
  /// that tests bounds it never reports), or "" when it counts every one. Reports then call it a lower bound.
  virtual std::string_view examinedLowerBound() const { return {}; }
  /// Node count, depth and memory.
  virtual IndexStats stats() const = 0;
  /// Structure-specific figures for reports.
  virtual void extra(ExtraCounters& out) const { (void)out; }
  /// Checks the base invariants and the structure's own; returns an empty string when valid, otherwise
  /// a description of the first broken invariant.
  std::string validate() const;
  /// Suggests the region the items will mostly occupy (the scene's world). Trees take it as their
  /// initial root at the next build(); they still grow for items outside it, so it is only a hint.
  void setWorldHint(const Box& world) { worldHint_ = world; }
  /// The hint set by setWorldHint, if any.
  const std::optional<Box>& worldHint() const { return worldHint_; }
  /// The scheduler the pair search and batched updates may spread their work over (nullptr: the calling
  /// thread only). Results are the same for any scheduler; it must outlive its use here.
  void setScheduler(TaskScheduler* scheduler) { scheduler_ = scheduler; }
  /// The scheduler set by setScheduler, or the serial one.
  TaskScheduler& scheduler() const { return scheduler_ ? *scheduler_ : serialScheduler(); }

  /// Number of items present.
  std::size_t size() const { return count_; }
  /// Whether an item with this id is present.
  bool contains(ItemId id) const { return id < circles_.size() && !std::isnan(circles_[id].radius); }
  /// The stored circle of a present item.
  const Circle& circle(ItemId id) const { return circles_[id]; }
  /// One past the largest id ever stored: the size of per-id arrays.
  std::size_t idCapacity() const { return circles_.size(); }

 protected:
  /// Declares a parameter; call from the constructor.
  void addParam(ParamInfo info);
  /// Called after a parameter changed; the default rebuilds from the item table.
  virtual void onParamChanged(std::string_view key);
  /// Rebuilds the structure from the item table (used after parameter changes).
  void rebuildFromTable();
  /// Calls fn(id, circle) for every present item in id order.
  template <class Fn>
  void forEachItem(Fn&& fn) const {
    for (std::size_t i = 0; i < circles_.size(); ++i) {
      if (!std::isnan(circles_[i].radius)) fn(static_cast<ItemId>(i), circles_[i]);
    }
  }
  /// A number that changes with every build, insert, update, removal, clear, maintain and parameter change:
  /// a structure compares it with the value it saw when it laid out a copy of its items, to know the copy
  /// still holds.
  std::uint64_t contentVersion() const { return contentVersion_; }
  /// Bytes held by the item table, for stats().
  std::size_t tableBytes() const {
    return circles_.capacity() * sizeof(Circle) + visible_.capacity() * sizeof(ItemId);
  }

  /// Builds from scratch; the table already holds the items. Default: doInsert each.
  virtual void doBuild(std::span<const Item> items);
  /// Adds an item; the table already holds it.
  virtual void doInsert(ItemId id, const Circle& circle) = 0;
  /// Moves/resizes an item; the table already holds the new circle, `old` is the previous one.
  virtual void doUpdate(ItemId id, const Circle& old, const Circle& circle) = 0;
  /// Many updates; the table already holds the new circles. Default: doUpdate each. `old` is empty when
  /// batchNeedsOldCircles said no.
  virtual void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old);
  /// Whether doUpdateBatch of this many items reads the previous circles: keeping them costs a copy of
  /// the batch, which whole-frame paths that re-read every item skip.
  virtual bool batchNeedsOldCircles(std::size_t batchSize) const {
    (void)batchSize;
    return true;
  }
  /// Removes an item; the table still holds it until this returns.
  virtual void doRemove(ItemId id, const Circle& circle) = 0;
  /// Drops everything; the table is cleared after this returns.
  virtual void doClear() = 0;
  /// Deferred per-frame work.
  virtual void doMaintain() {}
  /// The nodes and items the query engine walks, for a structure that lets the engine answer its queries;
  /// nullopt (the default) for one that overrides every do-query hook with a walk of its own.
  virtual std::optional<WalkView> walkView() const { return std::nullopt; }
  /// Appends ids of circles containing p. Default: the engine's walk of walkView().
  virtual void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const;
  /// Appends ids of circles overlapping `query`. Default: the engine's walk of walkView().
  virtual void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const;
  /// Appends ids of circles overlapping `box`. Default: the engine's walk of walkView().
  virtual void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const;
  /// Hands each circle containing p to `visit` until it returns false, the walk stopping there. Default:
  /// the engine's walk of walkView(), else doQueryPoint's results handed over.
  virtual void doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const;
  /// Hands each circle overlapping `query` to `visit` until it returns false; defaults as doVisitPoint.
  virtual void doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const;
  /// Hands each circle overlapping `box` to `visit` until it returns false; defaults as doVisitPoint.
  virtual void doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const;
  /// Appends hits in any order; the caller sorts. Default: the engine's walk of walkView().
  virtual void doRayCast(const Segment& segment, std::vector<RayHit>& out, QueryContext& ctx) const;
  /// First hit. Default: the engine's pruned walk of walkView(), else doRayCast and take the smallest.
  virtual std::optional<RayHit> doRayCastFirst(const Segment& segment, QueryContext& ctx) const;
  /// The k nearest, ordered. Default: the engine's best-first walk of walkView(), else growing circle
  /// queries through doQueryCircle until the k-th nearest lies well inside one.
  virtual void doQueryNearest(Vec2 p, std::uint32_t k, std::vector<NearestHit>& out, QueryContext& ctx) const;
  /// Appends every overlapping pair once, a < b.
  virtual void doFindPairs(std::vector<Pair>& out) = 0;
  /// Computes the items overlapping the cone (sorted) into `visibleNow`. Default: the engine's walk of
  /// walkView(), else a circle query around the eye filtered by circleOverlapsCone. Structures with memory
  /// override doCullView as well.
  virtual void doVisibleSet(const ViewCone& cone, std::vector<ItemId>& visibleNow, QueryContext& ctx) const;
  /// Fills entered/left (sorted) and updates visible_. Default: doVisibleSet and a sorted diff.
  virtual void doCullView(const ViewCone& cone, std::vector<ItemId>& entered, std::vector<ItemId>& left);
  /// The structure's own invariants; empty string when valid.
  virtual std::string doValidate() const = 0;

  QueryCounters counters_;       ///< counters of the current call; structures add to them
  std::vector<ItemId> visible_;  ///< visible set of the last cullView, sorted

 private:
  void checkCircle(const Circle& circle, const char* what) const;
  void checkQueryPoint(Vec2 p, const char* what) const;
  void checkQueryBox(const Box& box, const char* what) const;
  WalkView requireWalkView(const char* hook) const;
  void storeCircle(ItemId id, const Circle& circle);

  std::string name_;
  std::vector<ParamInfo> paramInfo_;
  std::vector<double> paramValues_;
  CircleTable circles_;  // by id; an absent id has a NaN radius
  std::size_t count_ = 0;
  std::uint64_t contentVersion_ = 0;
  TaskScheduler* scheduler_ = nullptr;
  std::optional<Box> worldHint_;
  std::vector<ItemId> scratchIds_;
};

}  // namespace st
