#include "spheretest/frame.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <time.h>

namespace st {
namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void addCounters(QueryCounters& sum, const QueryCounters& more) {
  sum.nodesVisited += more.nodesVisited;
  sum.candidates += more.candidates;
  sum.exactTests += more.exactTests;
}

struct ShapeName {
  QueryShape shape;
  const char* name;
};

constexpr ShapeName kShapeNames[] = {{QueryShape::Point, "point"}, {QueryShape::Circle, "circle"},
                                     {QueryShape::Box, "box"},     {QueryShape::Segment, "ray"},
                                     {QueryShape::Cone, "cone"},   {QueryShape::Nearest, "nearest"}};

// The ids of a segment's hits or of the nearest circles, in their order, so that every shape answers
// with ids.
void idsOfHits(QueryAnswer& answer) {
  answer.ids.clear();
  for (const RayHit& hit : answer.hits) answer.ids.push_back(hit.id);
  for (const NearestHit& hit : answer.nearest) answer.ids.push_back(hit.id);
}

}  // namespace

std::uint64_t pairSetHash(std::span<const Pair> pairs) {
  std::uint64_t sum = 0;
  for (const Pair& p : pairs) sum += mix64((std::uint64_t(p.a) << 32) | p.b);
  return mix64(sum ^ mix64(pairs.size()));
}

// The thread clock, not the process one: the process clock would add the workers' time, but it advances in
// scheduler ticks on some systems.
double threadCpuMs() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) * 1e3 + double(now.tv_nsec) * 1e-6;
#else
  return 1e3 * double(std::clock()) / double(CLOCKS_PER_SEC);
#endif
}

std::string formatCount(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

ViewCone Query::cone() const {
  ViewCone c;
  c.origin = at;
  const Vec2 d = to - at;
  const float len = length(d);
  c.direction = len > 0.0f ? d : Vec2{1.0f, 0.0f};
  c.halfAngle = halfAngle;
  c.farDistance = std::max(len, 1e-3f);
  return c;
}

Query makeQuery(QueryShape shape, Vec2 at, float size, Vec2 direction) {
  Query q;
  q.shape = shape;
  q.at = at;
  q.to = at + direction * size;
  q.radius = size;
  q.halfExtent = {size, size};
  return q;
}

const char* queryShapeName(QueryShape shape) {
  for (const ShapeName& entry : kShapeNames) {
    if (entry.shape == shape) return entry.name;
  }
  return "?";
}

std::optional<QueryShape> parseQueryShape(std::string_view name) {
  for (const ShapeName& entry : kShapeNames) {
    if (name == entry.name) return entry.shape;
  }
  return std::nullopt;
}

void runQuery(const SpatialIndex& index, const Query& query, QueryAnswer& answer, QueryTrace* trace,
              QueryDetail* detail) {
  if (trace) trace->events.clear();
  if (detail) detail->reset();
  QueryContext ctx;
  ctx.trace = trace;
  ctx.detail = detail;
  answer.hits.clear();
  answer.nearest.clear();
  switch (query.shape) {
    case QueryShape::Point:
      index.queryPoint(query.at, answer.ids, &ctx);
      break;
    case QueryShape::Circle:
      index.queryCircle(query.circle(), answer.ids, &ctx);
      break;
    case QueryShape::Box:
      index.queryBox(query.box(), answer.ids, &ctx);
      break;
    case QueryShape::Segment:
      index.rayCast(query.segment(), answer.hits, &ctx);
      idsOfHits(answer);
      break;
    case QueryShape::Cone:
      index.queryCone(query.cone(), answer.ids, &ctx);
      break;
    case QueryShape::Nearest:
      index.queryNearest(query.at, query.k, answer.nearest, &ctx);
      idsOfHits(answer);
      break;
  }
  answer.counters = ctx.counters;
}

FrameResult advanceStructure(SpatialIndex& index, const Simulation& simulation, std::vector<Pair>& pairs,
                             bool findPairs) {
  return advanceStructure(index, simulation.movedIds(), simulation.movedCircles(), pairs, findPairs);
}

FrameResult advanceStructure(SpatialIndex& index, std::span<const ItemId> movedIds,
                             std::span<const Circle> movedCircles, std::vector<Pair>& pairs, bool findPairs) {
  FrameResult result;
  const double cpu0 = threadCpuMs();
  const Clock::time_point t0 = Clock::now();
  index.updateBatch(movedIds, movedCircles);
  result.update = index.lastCounters();
  index.maintain();
  addCounters(result.update, index.lastCounters());
  const Clock::time_point t1 = Clock::now();
  const double cpu1 = threadCpuMs();
  result.updateMs = msBetween(t0, t1);
  result.updateCpuMs = cpu1 - cpu0;
  if (!findPairs) return result;
  index.findPairs(pairs);
  result.pairsMs = msBetween(t1, Clock::now());
  result.pairsCpuMs = threadCpuMs() - cpu1;
  result.pairs = index.lastCounters();
  result.pairsSearched = true;
  return result;
}

FrameResult stepFrame(Simulation& simulation, SpatialIndex& index, std::vector<Pair>& pairs, bool findPairs,
                      double* simulateMs) {
  const Clock::time_point t0 = Clock::now();
  simulation.step();
  if (simulateMs) *simulateMs = msBetween(t0, Clock::now());
  return advanceStructure(index, simulation, pairs, findPairs);
}

}  // namespace st
