#include "spheretest/oracle_check.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace st::testing {
namespace {

std::string describeIds(std::vector<ItemId> a, std::vector<ItemId> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<ItemId> missing, extra;
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(missing));
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(extra));
  std::ostringstream s;
  s << a.size() << " results vs oracle's " << b.size() << "; missing:";
  for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 8); ++i) s << " " << missing[i];
  s << "; extra:";
  for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 8); ++i) s << " " << extra[i];
  return s.str();
}

bool sameIds(std::vector<ItemId> a, std::vector<ItemId> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b && std::adjacent_find(a.begin(), a.end()) == a.end();
}

Vec2 randomPoint(Rng& rng, const Box& box) {
  return {rng.uniform(box.min.x, box.max.x), rng.uniform(box.min.y, box.max.y)};
}

}  // namespace

void shiftedBatch(const SpatialIndex& reference, ItemId idLimit, float dx, std::vector<ItemId>& ids,
                  std::vector<Circle>& circles) {
  ids.clear();
  circles.clear();
  for (ItemId id = 0; id < idLimit; ++id) {
    if (!reference.contains(id)) continue;
    Circle c = reference.circle(id);
    c.center.x += dx;
    ids.push_back(id);
    circles.push_back(c);
  }
}

Circle randomCircle(Rng& rng, const QueryArea& area) {
  Circle c;
  c.center = randomPoint(rng, area.box);
  const double pick = rng.unit();
  if (pick < 0.05) {
    c.radius = 0.0f;
  } else {
    c.radius = static_cast<float>(0.01 * std::pow(10.0, 3.5 * rng.unit()));  // 0.01 .. ~30
  }
  return c;
}

namespace {

// Every query kind, `queries` times, on both structures; "" when they agree, else what differed.
std::string compareQueries(SpatialIndex& subject, SpatialIndex& oracle, Rng& rng, const QueryArea& area,
                           int queries) {
  std::vector<ItemId> got, want;
  for (int q = 0; q < queries; ++q) {
    const Vec2 p = randomPoint(rng, area.box);
    const float size = rng.uniform(0.0f, area.maxSize);
    subject.queryPoint(p, got);
    oracle.queryPoint(p, want);
    if (!sameIds(got, want)) return "queryPoint: " + describeIds(got, want);
    const std::vector<ItemId> pointHits = want;

    subject.queryCircle({p, size}, got);
    oracle.queryCircle({p, size}, want);
    if (!sameIds(got, want)) return "queryCircle: " + describeIds(got, want);
    const std::vector<ItemId> circleHits = want;

    const Box box = boxFromCenter(p, size, rng.uniform(0.0f, area.maxSize));
    subject.queryBox(box, got);
    oracle.queryBox(box, want);
    if (!sameIds(got, want)) return "queryBox: " + describeIds(got, want);
    const std::vector<ItemId> boxHits = want;

    const double angle = rng.unit() * 6.283185307179586;
    const Segment seg{
        p, {p.x + size * 3.0f * float(std::cos(angle)), p.y + size * 3.0f * float(std::sin(angle))}};
    std::vector<RayHit> hits, wantHits;
    subject.rayCast(seg, hits);
    oracle.rayCast(seg, wantHits);
    if (hits.size() != wantHits.size()) {
      return "rayCast: " + std::to_string(hits.size()) + " hits vs oracle's " +
             std::to_string(wantHits.size());
    }
    for (std::size_t i = 0; i < hits.size(); ++i) {
      if (hits[i].id != wantHits[i].id || hits[i].t != wantHits[i].t)
        return "rayCast: hit order differs at " + std::to_string(i);
    }
    // Nearest circles: mostly a few, now and then more than the structure holds.
    const std::uint32_t k = rng.unit() < 0.1 ? static_cast<std::uint32_t>(subject.size() + 3)
                                             : 1 + static_cast<std::uint32_t>(rng.unit() * 24.0);
    std::vector<NearestHit> nearest, wantNearest;
    subject.queryNearest(p, k, nearest);
    oracle.queryNearest(p, k, wantNearest);
    if (nearest.size() != wantNearest.size()) {
      return "queryNearest: " + std::to_string(nearest.size()) + " circles vs oracle's " +
             std::to_string(wantNearest.size()) + " (k " + std::to_string(k) + ")";
    }
    for (std::size_t i = 0; i < nearest.size(); ++i) {
      if (nearest[i].id != wantNearest[i].id || nearest[i].distance != wantNearest[i].distance)
        return "queryNearest: rank " + std::to_string(i) + " is " + std::to_string(nearest[i].id) +
               ", oracle's " + std::to_string(wantNearest[i].id) + " (k " + std::to_string(k) + ")";
    }
    // The callback forms find what the vector forms find, and stop when told to.
    const auto checkCallback = [&](const char* name, const std::vector<ItemId>& found,
                                   auto&& query) -> std::string {
      std::vector<ItemId> visited;
      QueryContext ctx;
      query(
          [&](ItemId id) {
            visited.push_back(id);
            return true;
          },
          &ctx);
      if (!sameIds(visited, found))
        return std::string(name) + " with a callback: " + describeIds(visited, found);
      if (!found.empty()) {
        std::size_t calls = 0;
        query([&](ItemId) { return ++calls < 1; }, &ctx);
        if (calls != 1) return std::string(name) + " with a callback went on after it said stop";
      }
      return {};
    };
    std::string problem =
        checkCallback("queryPoint", pointHits,
                      [&](const ItemVisitor& visit, QueryContext* c) { subject.queryPoint(p, visit, c); });
    if (problem.empty()) {
      problem = checkCallback("queryCircle", circleHits, [&](const ItemVisitor& visit, QueryContext* c) {
        subject.queryCircle({p, size}, visit, c);
      });
    }
    if (problem.empty()) {
      problem = checkCallback("queryBox", boxHits, [&](const ItemVisitor& visit, QueryContext* c) {
        subject.queryBox(box, visit, c);
      });
    }
    if (!problem.empty()) return problem;
    const auto first = subject.rayCastFirst(seg);
    const auto wantFirst = oracle.rayCastFirst(seg);
    if (first.has_value() != wantFirst.has_value() ||
        (first && (first->id != wantFirst->id || first->t != wantFirst->t))) {
      return "rayCastFirst differs";
    }
  }
  // View cone: two consecutive culls, so that enter and leave events are both exercised.
  for (int step = 0; step < 2; ++step) {
    ViewCone cone;
    cone.origin = randomPoint(rng, area.box);
    const double angle = rng.unit() * 6.283185307179586;
    cone.direction = {float(std::cos(angle)), float(std::sin(angle))};
    cone.halfAngle = rng.uniform(0.1f, 3.2f);
    cone.farDistance = rng.uniform(1.0f, area.maxSize * 3.0f);
    std::vector<ItemId> entered, left, wantEntered, wantLeft;
    subject.cullView(cone, entered, left);
    oracle.cullView(cone, wantEntered, wantLeft);
    if (entered != wantEntered) return "cullView entered: " + describeIds(entered, wantEntered);
    if (left != wantLeft) return "cullView left: " + describeIds(left, wantLeft);
  }
  return {};
}

}  // namespace

std::string compareWithOracle(SpatialIndex& subject, SpatialIndex& oracle, Rng& rng, const QueryArea& area,
                              int queries, bool checkPairs) {
  if (std::string problem = subject.validate(); !problem.empty()) return "validate: " + problem;
  if (subject.size() != oracle.size()) {
    return "size " + std::to_string(subject.size()) + " vs oracle " + std::to_string(oracle.size());
  }
  if (std::string problem = compareQueries(subject, oracle, rng, area, queries); !problem.empty())
    return problem;
  if (checkPairs) {
    std::vector<Pair> pairs, wantPairs;
    subject.findPairs(pairs);
    oracle.findPairs(wantPairs);
    std::sort(pairs.begin(), pairs.end());
    std::sort(wantPairs.begin(), wantPairs.end());
    if (pairs != wantPairs) {
      std::ostringstream s;
      s << "findPairs: " << pairs.size() << " pairs vs oracle's " << wantPairs.size();
      for (const Pair& p : pairs) {
        if (p.a >= p.b) {
          s << "; unordered or self pair " << p.a << "," << p.b;
          break;
        }
      }
      return s.str();
    }
    // Right after a pair search some structures answer from what it laid out (a copy of their circles in
    // walk order, the trees' views), so the queries run again there.
    if (std::string problem = compareQueries(subject, oracle, rng, area, std::max(1, queries / 4));
        !problem.empty())
      return "after the pair search: " + problem;
  }
  if (std::string problem = subject.validate(); !problem.empty()) return "validate after queries: " + problem;
  return {};
}

void liveThrough(SpatialIndex& index, Simulation& sim, int frames) {
  for (int frame = 0; frame < frames; ++frame) {
    sim.step();
    index.updateBatch(sim.movedIds(), sim.movedCircles());
    index.maintain();
  }
}

}  // namespace st::testing
