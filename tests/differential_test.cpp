// The differential harness: every registered structure, on seeded random scenes, after inserts, moves,
// resizes and removals, answers every query exactly as brute force does, and validate() holds throughout.
// Structures added to the registry are covered here with no new test code.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "spheretest/oracle_check.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "support/all_structures.hpp"

namespace st::testing {
namespace {

StructureRegistry& registry() {
  return allStructures();
}

std::vector<std::string> structureNames() {
  return allStructureNames();
}

// How the items of a generated scene are laid out.
enum class Layout { Mixed, Clustered, Coincident, Degenerate, OneSpot };

std::vector<Item> makeScene(Rng& rng, std::size_t n, Layout layout, const QueryArea& area) {
  std::vector<Item> items;
  std::vector<Vec2> centers;
  for (int k = 0; k < 5; ++k)
    centers.push_back(
        {rng.uniform(area.box.min.x, area.box.max.x), rng.uniform(area.box.min.y, area.box.max.y)});
  for (std::size_t i = 0; i < n; ++i) {
    Circle c = randomCircle(rng, area);
    switch (layout) {
      case Layout::Mixed:
        break;
      case Layout::Clustered: {
        const Vec2 at = centers[rng.below(centers.size())];
        c.center = {at.x + rng.uniform(-3, 3), at.y + rng.uniform(-3, 3)};
        break;
      }
      case Layout::Coincident:
        if (!items.empty() && rng.chance(0.5)) c.center = items[rng.below(items.size())].circle.center;
        if (rng.chance(0.3)) c.radius = 0.0f;
        break;
      case Layout::Degenerate:
        // Circles on the area's centre lines, one larger than the whole area, some far outside it.
        if (rng.chance(0.4))
          c.center.x = 0.5f * (area.box.min.x + area.box.max.x);
        else if (rng.chance(0.4))
          c.center.y = 0.5f * (area.box.min.y + area.box.max.y);
        if (i == 0) c.radius = 400.0f;
        if (rng.chance(0.05)) c.center = {c.center.x * 40.0f - 5000.0f, c.center.y * -30.0f};
        break;
      case Layout::OneSpot:
        // Everything within a hundredth of a unit: one grid cell, one leaf, maximal subdivision pressure.
        c.center = {42.0f + rng.uniform(0.0f, 0.01f), 17.0f + rng.uniform(0.0f, 0.01f)};
        c.radius = rng.chance(0.5) ? 0.0f : rng.uniform(0.0f, 0.02f);
        break;
    }
    items.push_back({static_cast<ItemId>(i * 3 + (i % 2)), c});  // sparse, non-sequential ids
  }
  return items;
}

class Differential : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    subject_ = registry().create(GetParam());
    oracle_ = registry().create("brute");
    for (auto* s : {subject_.get(), oracle_.get()}) s->setWorldHint(area_.box);
  }

  void expectAgree(Rng& rng, int queries, const std::string& when, bool pairs = true) {
    const std::string problem = compareWithOracle(*subject_, *oracle_, rng, area_, queries, pairs);
    ASSERT_TRUE(problem.empty()) << GetParam() << " " << when << ": " << problem;
  }

  QueryArea area_;
  std::unique_ptr<SpatialIndex> subject_;
  std::unique_ptr<SpatialIndex> oracle_;
};

TEST_P(Differential, EmptyStructureAnswersNothing) {
  Rng rng(1);
  expectAgree(rng, 5, "empty");
  subject_->build({});
  oracle_->build({});
  expectAgree(rng, 5, "built empty");
  // An empty batch reaches every structure's batch path, even with nothing in the structure.
  for (auto* s : {subject_.get(), oracle_.get()}) s->updateBatch({}, {});
  subject_->maintain();
  EXPECT_EQ(subject_->validate(), "");
  expectAgree(rng, 5, "an empty batch on an empty structure");
}

TEST_P(Differential, BuildThenQueryAcrossSizesAndLayouts) {
  const std::size_t sizes[] = {1, 2, 7, 60, 500, 3000};
  for (Layout layout :
       {Layout::Mixed, Layout::Clustered, Layout::Coincident, Layout::Degenerate, Layout::OneSpot}) {
    for (std::size_t n : sizes) {
      Rng rng(1000 + n * 7 + static_cast<int>(layout));
      const std::vector<Item> items = makeScene(rng, n, layout, area_);
      subject_->build(items);
      oracle_->build(items);
      expectAgree(rng, n > 1000 ? 8 : 20,
                  "after build of " + std::to_string(n) + " (layout " +
                      std::to_string(static_cast<int>(layout)) + ")");
    }
  }
}

TEST_P(Differential, TenThousandCircles) {
  Rng rng(4242);
  const std::vector<Item> items = makeScene(rng, 10000, Layout::Mixed, area_);
  subject_->build(items);
  oracle_->build(items);
  expectAgree(rng, 10, "10k build");
}

TEST_P(Differential, RandomInsertMoveResizeRemoveSequences) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    Rng rng(seed * 7919);
    std::vector<ItemId> present;
    ItemId nextId = 0;
    const Layout layout = static_cast<Layout>(seed % 5);
    const std::vector<Item> start = makeScene(rng, 50 + seed * 40, layout, area_);
    subject_->build(start);
    oracle_->build(start);
    for (const Item& item : start) present.push_back(item.id), nextId = std::max(nextId, item.id + 1);
    for (int batch = 0; batch < 12; ++batch) {
      const int ops = 1 + static_cast<int>(rng.below(60));
      for (int op = 0; op < ops; ++op) {
        const double pick = rng.unit();
        if (pick < 0.3 || present.empty()) {
          const Circle c = randomCircle(rng, area_);
          subject_->insert(nextId, c);
          oracle_->insert(nextId, c);
          present.push_back(nextId++);
        } else if (pick < 0.55) {  // small move
          const ItemId id = present[rng.below(present.size())];
          Circle c = oracle_->circle(id);
          c.center = {c.center.x + rng.uniform(-1, 1), c.center.y + rng.uniform(-1, 1)};
          subject_->update(id, c);
          oracle_->update(id, c);
        } else if (pick < 0.7) {  // teleport
          const ItemId id = present[rng.below(present.size())];
          Circle c = randomCircle(rng, area_);
          c.radius = oracle_->circle(id).radius;
          subject_->update(id, c);
          oracle_->update(id, c);
        } else if (pick < 0.82) {  // resize in place
          const ItemId id = present[rng.below(present.size())];
          Circle c = oracle_->circle(id);
          c.radius = rng.chance(0.5) ? c.radius * rng.uniform(0.1f, 10.0f) : rng.uniform(0.0f, 40.0f);
          subject_->update(id, c);
          oracle_->update(id, c);
        } else {
          const std::size_t k = rng.below(present.size());
          subject_->remove(present[k]);
          oracle_->remove(present[k]);
          present[k] = present.back();
          present.pop_back();
        }
      }
      if (batch % 3 == 2) {  // a batched move of a third of the items, as the simulation does
        std::vector<ItemId> ids;
        std::vector<Circle> circles;
        for (std::size_t k = 0; k < present.size(); k += 3) {
          Circle c = oracle_->circle(present[k]);
          c.center = {c.center.x + rng.uniform(-2, 2), c.center.y + rng.uniform(-2, 2)};
          ids.push_back(present[k]);
          circles.push_back(c);
        }
        subject_->updateBatch(ids, circles);
        oracle_->updateBatch(ids, circles);
      }
      subject_->maintain();
      oracle_->maintain();
      expectAgree(rng, 6, "seed " + std::to_string(seed) + " batch " + std::to_string(batch));
    }
    // Remove everything: nothing may be left behind.
    for (ItemId id : present) subject_->remove(id), oracle_->remove(id);
    expectAgree(rng, 3, "after removing everything");
    EXPECT_EQ(subject_->size(), 0u);
  }
}

TEST_P(Differential, ParameterChangesKeepAnswersExact) {
  Rng rng(77);
  const std::vector<Item> items = makeScene(rng, 400, Layout::Mixed, area_);
  subject_->build(items);
  oracle_->build(items);
  for (const ParamInfo& info : subject_->params()) {
    for (double value : {info.minValue, info.maxValue, info.defaultValue}) {
      double v = std::clamp(value, info.minValue,
                            std::min(info.maxValue, std::max(info.minValue, info.defaultValue * 8)));
      if (info.integer) v = std::floor(v);
      subject_->setParam(info.key, v);
      expectAgree(rng, 4, info.key + "=" + std::to_string(v));
    }
  }
}

TEST_P(Differential, GrowingFarKeepsCirclesOnTheWorldsUpperEdge) {
  // A circle on the world's upper edge, then one a quadrillion units away: a root grown toward it in
  // floating point must still hold the first.
  Rng rng(6);
  for (auto* s : {subject_.get(), oracle_.get()}) {
    s->insert(1, {{100.0f, 100.0f}, 32.7675f});
    s->insert(2, {{50.0f, -1e15f}, 1.0f});
    s->maintain();
  }
  expectAgree(rng, 5, "after growing far below the world");
  std::vector<Item> items = {{1, subject_->circle(1)}, {2, subject_->circle(2)}};
  for (auto* s : {subject_.get(), oracle_.get()}) s->build(items);
  expectAgree(rng, 5, "rebuilt");
}

TEST_P(Differential, RejectsBadInputAndStaysValid) {
  Rng rng(5);
  const std::vector<Item> items = makeScene(rng, 50, Layout::Mixed, area_);
  subject_->build(items);
  oracle_->build(items);
  const float nan = std::nanf("");
  const float inf = INFINITY;
  EXPECT_THROW(subject_->insert(1000, {{nan, 0}, 1}), InvalidInput);
  EXPECT_THROW(subject_->insert(1000, {{0, inf}, 1}), InvalidInput);
  EXPECT_THROW(subject_->insert(1000, {{0, 0}, -1}), InvalidInput);
  EXPECT_THROW(subject_->insert(1000, {{0, 0}, nan}), InvalidInput);
  EXPECT_THROW(subject_->insert(items[0].id, {{0, 0}, 1}), InvalidInput);
  EXPECT_THROW(subject_->insert(kMaxItemId, {{0, 0}, 1}), InvalidInput);
  EXPECT_THROW(subject_->update(999999, {{0, 0}, 1}), InvalidInput);
  EXPECT_THROW(subject_->update(items[1].id, {{inf, 0}, 1}), InvalidInput);
  EXPECT_THROW(subject_->remove(999999), InvalidInput);
  std::vector<ItemId> out;
  EXPECT_THROW(subject_->queryPoint({nan, 0}, out), InvalidInput);
  EXPECT_THROW(subject_->queryBox({{1, 1}, {0, 0}}, out), InvalidInput);
  EXPECT_THROW(subject_->setParam("no_such_parameter", 1.0), InvalidInput);
  std::vector<Item> duplicate = items;
  duplicate.push_back(items[0]);
  EXPECT_THROW(subject_->build(duplicate), InvalidInput);
  // Batches: a repeated id (in any order), an unknown id, a bad circle, mismatched lengths.
  const std::vector<Circle> twoCircles = {{{1, 1}, 1}, {{2, 2}, 1}};
  const std::vector<ItemId> repeated = {items[2].id, items[2].id}, unordered = {items[3].id, items[1].id};
  EXPECT_THROW(subject_->updateBatch(repeated, twoCircles), InvalidInput);
  EXPECT_THROW(subject_->updateBatch(std::vector<ItemId>{items[3].id, 999999}, twoCircles), InvalidInput);
  EXPECT_THROW(subject_->updateBatch(unordered, std::vector<Circle>{{{1, 1}, 1}, {{nan, 2}, 1}}),
               InvalidInput);
  EXPECT_THROW(subject_->updateBatch(unordered, std::vector<Circle>{{{1, 1}, 1}}), InvalidInput);
  expectAgree(rng, 5, "after rejected input");
}

INSTANTIATE_TEST_SUITE_P(AllStructures, Differential, ::testing::ValuesIn(structureNames()),
                         structureTestName);

}  // namespace
}  // namespace st::testing
