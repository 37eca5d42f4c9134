// The oracle is checked on its own, independently of the structures it judges: brute force against a
// loop written here, and the exact predicates against hand-computed geometry.

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "spheretest/agreement.hpp"
#include "spheretest/frame.hpp"
#include "spheretest/oracle_check.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "support/extra_figures.hpp"

namespace st::testing {
namespace {

TEST(Predicates, TouchingCountsAsOverlapping) {
  EXPECT_TRUE(circlesOverlap({{0, 0}, 1}, {{2, 0}, 1}));
  EXPECT_FALSE(circlesOverlap({{0, 0}, 1}, {{2.0001f, 0}, 1}));
  EXPECT_TRUE(circlesOverlap({{5, 5}, 0}, {{5, 5}, 0}));  // coincident points
  EXPECT_TRUE(circleContainsPoint({{0, 0}, 2}, {0, 2}));  // on the rim
  EXPECT_FALSE(circleContainsPoint({{0, 0}, 2}, {0, 2.001f}));
  EXPECT_TRUE(circleOverlapsBox({{0, 0}, 1}, {{1, -5}, {3, 5}}));        // touching an edge
  EXPECT_FALSE(circleOverlapsBox({{0, 0}, 1}, {{0.8f, 0.8f}, {3, 3}}));  // near the corner but outside
  EXPECT_TRUE(circleOverlapsBox({{0, 0}, 100}, {{1, 1}, {2, 2}}));       // box inside the circle
}

TEST(Predicates, SegmentEntryParameter) {
  float t = -1;
  ASSERT_TRUE(segmentHitsCircle({{-10, 0}, {10, 0}}, {{0, 0}, 2}, t));
  EXPECT_FLOAT_EQ(t, 0.4f);  // enters at x = -2
  ASSERT_TRUE(segmentHitsCircle({{0, 0}, {10, 0}}, {{0, 0}, 2}, t));
  EXPECT_EQ(t, 0.0f);                                                   // starts inside
  EXPECT_TRUE(segmentHitsCircle({{-10, 2}, {10, 2}}, {{0, 0}, 2}, t));  // grazing
  EXPECT_FALSE(segmentHitsCircle({{-10, 2.01f}, {10, 2.01f}}, {{0, 0}, 2}, t));
  EXPECT_FALSE(segmentHitsCircle({{-10, 0}, {-5, 0}}, {{0, 0}, 2}, t));  // stops short
  EXPECT_FALSE(segmentHitsCircle({{5, 0}, {10, 0}}, {{0, 0}, 2}, t));    // moving away
  EXPECT_FALSE(segmentHitsCircle({{5, 0}, {5, 0}}, {{0, 0}, 2}, t));     // degenerate, outside
}

TEST(Predicates, ViewCone) {
  const ViewCone cone{{0, 0}, {1, 0}, 0.5f, 10.0f};
  EXPECT_TRUE(circleOverlapsCone({{5, 0}, 0.1f}, cone));
  EXPECT_FALSE(circleOverlapsCone({{-5, 0}, 1}, cone));       // behind
  EXPECT_FALSE(circleOverlapsCone({{12, 0}, 1}, cone));       // beyond far
  EXPECT_TRUE(circleOverlapsCone({{10.5f, 0}, 0.5f}, cone));  // touching the far arc
  EXPECT_TRUE(circleOverlapsCone({{5, 3}, 0.5f}, cone));      // edge at angle 0.5: y = 5 tan .5 = 2.73
  EXPECT_FALSE(circleOverlapsCone({{5, 4}, 0.5f}, cone));
  EXPECT_TRUE(circleOverlapsCone({{-1, 0}, 1.0f}, cone));  // touches the eye
  const ViewCone wide{{0, 0}, {1, 0}, 3.2f, 10.0f};
  EXPECT_TRUE(circleOverlapsCone({{-5, 0}, 0.1f}, wide));  // a full disc sees behind
}

// Brute force compared with a loop written here: if brute force is broken, this fails even though the
// differential harness (which trusts brute force) could not tell.
TEST(BruteForce, MatchesAnIndependentLoop) {
  StructureRegistry registry = StructureRegistry::withCoreStructures();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Rng rng(seed);
    QueryArea area;
    std::vector<Item> items;
    for (ItemId id = 0; id < 300; ++id) items.push_back({id * 2, randomCircle(rng, area)});
    auto brute = registry.create("brute");
    brute->build(items);
    std::vector<Pair> expected, got;
    for (std::size_t i = 0; i < items.size(); ++i) {
      for (std::size_t j = i + 1; j < items.size(); ++j) {
        if (circlesOverlap(items[i].circle, items[j].circle))
          expected.push_back(makePair(items[i].id, items[j].id));
      }
    }
    brute->findPairs(got);
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected);
    for (int q = 0; q < 50; ++q) {
      const Circle query = randomCircle(rng, area);
      std::vector<ItemId> want, ids;
      for (const Item& item : items) {
        if (circlesOverlap(item.circle, query)) want.push_back(item.id);
      }
      brute->queryCircle(query, ids);
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(ids, want);
      want.clear();
      for (const Item& item : items) {
        if (circleContainsPoint(item.circle, query.center)) want.push_back(item.id);
      }
      brute->queryPoint(query.center, ids);
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(ids, want);
      const Box box = boundsOf(query);
      want.clear();
      for (const Item& item : items) {
        if (circleOverlapsBox(item.circle, box)) want.push_back(item.id);
      }
      brute->queryBox(box, ids);
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(ids, want);
    }
    EXPECT_EQ(brute->validate(), "");
  }
}

// The batch check reads circles four at a time: a bad value must be caught in any field, at any position
// of the batch (inside the groups of four and in the tail), whether or not some ids are absent.
TEST(BatchCheck, FindsABadValueAnywhereInTheBatch) {
  StructureRegistry registry = StructureRegistry::withCoreStructures();
  const float nan = std::nanf("");
  const float bad[] = {nan, INFINITY, -INFINITY, 2e15f, -2e15f};
  for (const bool withHole : {false, true}) {
    auto brute = registry.create("brute");
    std::vector<Item> items;
    for (ItemId id = 0; id < 11; ++id) items.push_back({id, {{float(id), 1.0f}, 0.5f}});
    if (withHole) items.erase(items.begin() + 6);  // id 6 absent: ids are not known by value alone
    brute->build(items);
    std::vector<ItemId> ids;
    std::vector<Circle> circles;
    for (const Item& item : items) {
      ids.push_back(item.id);
      circles.push_back({{item.circle.center.x + 0.25f, 2.0f}, 0.75f});
    }
    for (std::size_t i = 0; i < circles.size(); ++i) {
      for (int field = 0; field < 3; ++field) {
        for (const float value : bad) {
          std::vector<Circle> broken = circles;
          float* target = field == 0   ? &broken[i].center.x
                          : field == 1 ? &broken[i].center.y
                                       : &broken[i].radius;
          *target = value;
          EXPECT_THROW(brute->updateBatch(ids, broken), InvalidInput) << "entry " << i << " field " << field;
        }
      }
      std::vector<Circle> negative = circles;
      negative[i].radius = -0.5f;
      EXPECT_THROW(brute->updateBatch(ids, negative), InvalidInput) << "negative radius at " << i;
    }
    for (std::size_t i = 0; i < items.size(); ++i) EXPECT_EQ(brute->circle(items[i].id), items[i].circle);
    if (withHole) {
      std::vector<ItemId> absent = ids;
      absent[5] = 6;
      EXPECT_THROW(brute->updateBatch(absent, circles), InvalidInput);
    }
    brute->updateBatch(ids, circles);  // and the good batch passes
    for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(brute->circle(ids[i]), circles[i]);
    EXPECT_EQ(brute->validate(), "");
  }
}

TEST(PairChecksum, DependsOnTheSetNotTheOrder) {
  std::vector<Pair> a = {{1, 2}, {3, 4}, {0, 9}};
  std::vector<Pair> b = {{0, 9}, {1, 2}, {3, 4}};
  std::vector<Pair> c = {{0, 9}, {1, 2}, {3, 5}};
  EXPECT_EQ(pairSetHash(a), pairSetHash(b));
  EXPECT_NE(pairSetHash(a), pairSetHash(c));
  EXPECT_NE(pairSetHash({}), pairSetHash(a));
}

// Agreement is claimed only against brute force or a majority of at least three others.
TEST(Agreement, BruteForceOrAMajorityOfThreeOthersOrNothing) {
  const std::vector<std::uint64_t> withBrute = {7, 7, 8};
  const auto byBrute = judgeAnswers(withBrute, 0);
  EXPECT_EQ(byBrute[0].verdict, Verdict::Reference);
  EXPECT_EQ(byBrute[1].verdict, Verdict::Agrees);
  EXPECT_EQ(byBrute[2].verdict, Verdict::Disagrees);
  const std::vector<std::uint64_t> fourOneOdd = {5, 5, 5, 6};
  const auto byMajority = judgeAnswers(fourOneOdd, std::nullopt);
  EXPECT_EQ(byMajority[0].verdict, Verdict::Agrees);
  EXPECT_EQ(byMajority[3].verdict, Verdict::Disagrees);
  EXPECT_EQ(byMajority[3].supporters, 3u);
  const std::vector<std::uint64_t> twoAlike = {1, 1}, twoApart = {1, 2}, alone = {4};
  EXPECT_EQ(judgeAnswers(twoAlike, std::nullopt)[0].verdict, Verdict::Unchecked);
  EXPECT_EQ(judgeAnswers(alone, std::nullopt)[0].verdict, Verdict::Unchecked);
  const auto apart = judgeAnswers(twoApart, std::nullopt);
  EXPECT_EQ(apart[0].verdict, Verdict::Disputed);
  EXPECT_EQ(apart[0].differing, 1u);
  EXPECT_EQ(apart[1].verdict, Verdict::Disputed);
  // Two against two: each answer's three others hold two of the opposite answer, a majority, so each side
  // is outvoted (a disagreement either way, as nothing settles it).
  const std::vector<std::uint64_t> split = {1, 1, 2, 2};
  for (const Judgement& j : judgeAnswers(split, std::nullopt)) EXPECT_EQ(j.verdict, Verdict::Disagrees);
}

TEST(ExtraFigures, AMissingFigureFailsTheTestAndNamesIt) {
  const std::unique_ptr<SpatialIndex> grid = StructureRegistry::withCoreStructures().create("grid");
  grid->build(std::vector<Item>{{0, {{1, 1}, 1}}});
  double value = 0.0;
  EXPECT_NONFATAL_FAILURE(value = extraValue(*grid, "no_such_figure"), "no_such_figure");
  EXPECT_TRUE(std::isnan(value));
  EXPECT_GE(extraValue(*grid, "vector_lanes"), 4.0);
}

}  // namespace
}  // namespace st::testing
