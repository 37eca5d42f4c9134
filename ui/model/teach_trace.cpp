#include "ui/model/teach_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace st::ui {
namespace {

std::string groupedCount(std::uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(digits[i]);
  }
  return grouped;
}

}  // namespace

Box queryBoxOf(const QueryState& q) {
  return {{q.anchor.x - q.halfExtent.x, q.anchor.y - q.halfExtent.y},
          {q.anchor.x + q.halfExtent.x, q.anchor.y + q.halfExtent.y}};
}

ViewCone viewConeOf(const QueryState& q) {
  Query query;
  query.at = q.anchor;
  query.to = q.target;
  query.halfAngle = q.coneHalfAngle;
  return query.cone();
}

Query queryOf(const QueryState& q) {
  Query query;
  query.shape = q.mode.value_or(QueryShape::Point);
  query.at = q.anchor;
  query.to = q.target;
  query.radius = q.radius;
  query.halfExtent = q.halfExtent;
  query.halfAngle = q.coneHalfAngle;
  query.k = static_cast<std::uint32_t>(std::max(q.nearestCount, 1));
  // A cone runs as its bounding circle: the walk a cull starts with, traced without consuming the
  // structure's enter/leave state.
  if (query.shape == QueryShape::Cone) {
    const ViewCone cone = query.cone();
    query.shape = QueryShape::Circle;
    query.radius = cone.farDistance;
  }
  return query;
}

Box queryReach(const QueryState& q) {
  const Query query = queryOf(q);
  switch (query.shape) {
    case QueryShape::Point:
      return {query.at, query.at};
    case QueryShape::Circle:
      return boundsOf({query.at, query.radius});
    case QueryShape::Box:
      return queryBoxOf(q);
    default:
      return {{std::min(q.anchor.x, q.target.x), std::min(q.anchor.y, q.target.y)},
              {std::max(q.anchor.x, q.target.x), std::max(q.anchor.y, q.target.y)}};
  }
}

QueryCounters runQueryShape(const SpatialIndex& index, const QueryState& q, std::vector<ItemId>& ids,
                            std::vector<RayHit>& rayHits, QueryTrace* trace, QueryDetail* detail) {
  ids.clear();
  rayHits.clear();
  if (trace) trace->events.clear();
  if (detail) detail->reset();
  if (!q.mode) return {};
  QueryAnswer answer;
  runQuery(index, queryOf(q), answer, trace, detail);
  if (q.mode == QueryShape::Segment) {
    rayHits.swap(answer.hits);
  } else {
    ids.swap(answer.ids);
  }
  return answer.counters;
}

void runQueryShape(const SpatialIndex& index, const QueryState& q, ShapeAnswer& answer) {
  answer.counters = runQueryShape(index, q, answer.ids, answer.rayHits);
}

void traceQueryShape(const SpatialIndex& index, const QueryState& q, QueryTrace& trace, ShapeAnswer& answer) {
  answer.counters = runQueryShape(index, q, answer.ids, answer.rayHits, &trace);
}

const char* queryModeName(QueryMode mode) {
  return mode ? queryShapeName(*mode) : "off";
}

std::string coneEventLine(std::uint64_t frame, const std::vector<ItemId>& entered,
                          const std::vector<ItemId>& left) {
  constexpr std::size_t kListed = 6;
  auto part = [](const std::vector<ItemId>& ids, const char* verb) {
    std::string text =
        std::to_string(ids.size()) + (ids.size() == 1 ? " circle " : " circles ") + verb + " (";
    for (std::size_t i = 0; i < ids.size() && i < kListed; ++i) {
      if (i > 0) text.append(", ");
      text.append(std::to_string(ids[i]));
    }
    if (ids.size() > kListed) text.append(", ...");
    return text + ")";
  };
  std::string line = "frame " + std::to_string(frame) + ": ";
  if (entered.empty() && left.empty()) return line + "nothing came into view or left it";
  if (!entered.empty()) line.append(part(entered, "came into view"));
  if (!entered.empty() && !left.empty()) line.append("; ");
  if (!left.empty()) line.append(part(left, "went out of view"));
  return line;
}

bool prunedWithoutTest(const TraceEvent& event) {
  // The quadtree family names the empty children it never enters this way; their bounds are not tested,
  // so the structure does not count them among the nodes it visited.
  static constexpr std::string_view kEmptySubtree = "no items below this node";
  return event.kind == TraceEventKind::PruneNode && event.test != nullptr && kEmptySubtree == event.test;
}

TraceProgress progressAt(const QueryTrace& trace, std::size_t steps) {
  TraceProgress p;
  const std::size_t n = std::min(steps, trace.events.size());
  for (std::size_t i = 0; i < n; ++i) {
    switch (trace.events[i].kind) {
      case TraceEventKind::VisitNode:
        ++p.visited;
        break;
      case TraceEventKind::PruneNode:
        ++(prunedWithoutTest(trace.events[i]) ? p.skipped : p.pruned);
        break;
      case TraceEventKind::Candidate:
        ++p.candidates;
        break;
      case TraceEventKind::Hit:
        ++p.candidates;
        ++p.hits;
        break;
    }
  }
  return p;
}

std::size_t nextEventOf(const QueryTrace& trace, std::size_t from, TraceEventKind kind) {
  for (std::size_t i = from; i < trace.events.size(); ++i) {
    if (trace.events[i].kind == kind) return i;
  }
  return trace.events.size();
}

std::string describeNode(const NodeInfo& node) {
  char text[192];
  if (node.shape == NodeShape::Circle) {
    std::snprintf(text, sizeof text, "depth %d, sphere at (%.1f, %.1f) r %.2f, %u items", node.depth,
                  double(node.circle.center.x), double(node.circle.center.y), double(node.circle.radius),
                  node.itemCount);
  } else {
    std::snprintf(text, sizeof text, "depth %d, box %.1f..%.1f x %.1f..%.1f, %u items", node.depth,
                  double(node.box.min.x), double(node.box.max.x), double(node.box.min.y),
                  double(node.box.max.y), node.itemCount);
  }
  if (node.hasGrown()) {
    char grown[96];
    std::snprintf(grown, sizeof grown, "; tested bounds %.1f..%.1f x %.1f..%.1f", double(node.grown.min.x),
                  double(node.grown.max.x), double(node.grown.min.y), double(node.grown.max.y));
    return std::string(text) + grown;
  }
  return text;
}

std::string describeEvent(const TraceEvent& event) {
  switch (event.kind) {
    case TraceEventKind::VisitNode:
      return "visit node: " + describeNode(event.node);
    case TraceEventKind::PruneNode:
      return "prune node: " + describeNode(event.node) +
             "\n  because: " + (event.test && *event.test ? event.test : "(no test named)");
    case TraceEventKind::Candidate:
      return "exact test of circle " + std::to_string(event.id) + ": miss";
    case TraceEventKind::Hit:
      return "exact test of circle " + std::to_string(event.id) + ": HIT";
  }
  return "";
}

std::string nodesVisitedText(std::string_view notCounted, std::uint64_t nodesVisited,
                             const TraceProgress* walk) {
  if (!notCounted.empty()) return "nodes visited: not counted (" + std::string(notCounted) + ")";
  std::string text = "nodes visited " + groupedCount(nodesVisited);
  if (walk == nullptr) return text;
  text += " = entered " + groupedCount(walk->visited) + " + pruned " + groupedCount(walk->pruned);
  const std::uint64_t traced = walk->visited + walk->pruned;
  if (nodesVisited > traced) text += " + " + groupedCount(nodesVisited - traced) + " empty cells looked up";
  return text;
}

std::string examinedText(std::string_view lowerBound, std::uint64_t examined) {
  return (lowerBound.empty() ? "" : "at least ") + groupedCount(examined);
}

bool sameNode(const NodeInfo& a, const NodeInfo& b) {
  if (a.shape != b.shape || a.depth != b.depth) return false;
  if (a.shape == NodeShape::Circle) return a.circle == b.circle;
  return a.box.min.x == b.box.min.x && a.box.min.y == b.box.min.y && a.box.max.x == b.box.max.x &&
         a.box.max.y == b.box.max.y;
}

}  // namespace st::ui
