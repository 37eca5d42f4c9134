// Claims specific to the quadtree family: leaves split and merge at the capacity, the point quadtree pays
// for mixed sizes through its widening, the fit-entirely quadtree turns linear on the centre lines while the
// loose quadtree does not, the loose quadtree's level follows the radius and its moves stay in place, and
// all three keep every circle however far, large or degenerate it is.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/structures.hpp"

#include "support/all_structures.hpp"
#include "support/extra_figures.hpp"

namespace st::testing {
namespace {

std::vector<ItemId> sorted(std::vector<ItemId> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Every query kind on `subject` against brute force, at the given probe points.
void expectSameAnswers(SpatialIndex& subject, const std::vector<Item>& items, const std::vector<Vec2>& probes,
                       float size) {
  auto oracle = makeBruteForce();
  oracle->build(items);
  std::vector<ItemId> got, want;
  for (Vec2 p : probes) {
    subject.queryPoint(p, got);
    oracle->queryPoint(p, want);
    EXPECT_EQ(sorted(got), sorted(want)) << subject.name() << " point " << p.x << "," << p.y;
    subject.queryCircle({p, size}, got);
    oracle->queryCircle({p, size}, want);
    EXPECT_EQ(sorted(got), sorted(want)) << subject.name() << " circle " << p.x << "," << p.y;
    subject.queryBox(boxFromCenter(p, size, size * 0.5f), got);
    oracle->queryBox(boxFromCenter(p, size, size * 0.5f), want);
    EXPECT_EQ(sorted(got), sorted(want)) << subject.name() << " box " << p.x << "," << p.y;
    std::vector<RayHit> hits, wantHits;
    subject.rayCast({p, {p.x + size, p.y - size}}, hits);
    oracle->rayCast({p, {p.x + size, p.y - size}}, wantHits);
    ASSERT_EQ(hits.size(), wantHits.size()) << subject.name() << " ray " << p.x << "," << p.y;
    for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].id, wantHits[i].id);
  }
  std::vector<Pair> pairs, wantPairs;
  subject.findPairs(pairs);
  oracle->findPairs(wantPairs);
  std::sort(pairs.begin(), pairs.end());
  std::sort(wantPairs.begin(), wantPairs.end());
  EXPECT_EQ(pairs, wantPairs) << subject.name() << " pairs";
  EXPECT_EQ(subject.validate(), "");
}

const Box kWorld{{0, 0}, {1024, 1024}};

// Circles of radius `radius` on a regular lattice of `side` x `side` points spread over kWorld.
std::vector<Item> lattice(int side, float radius) {
  std::vector<Item> items;
  const float step = 1024.0f / float(side);
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      items.push_back(
          {ItemId(items.size()), {{(float(x) + 0.37f) * step, (float(y) + 0.61f) * step}, radius}});
    }
  }
  return items;
}

// Circles with radii in [0.5, 4] on the two centre lines of kWorld: every one crosses a split line of the
// root.
std::vector<Item> onCentreLines(std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Item> items;
  for (std::size_t i = 0; i < count; ++i) {
    const float radius = rng.uniform(0.5f, 4.0f);
    const float along = rng.uniform(radius, 1024.0f - radius);
    const Vec2 at = rng.chance(0.5) ? Vec2{512.0f, along} : Vec2{along, 512.0f};
    items.push_back({ItemId(i), {at, radius}});
  }
  return items;
}

std::vector<Item> uniformScatter(std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Item> items;
  for (std::size_t i = 0; i < count; ++i) {
    items.push_back({ItemId(i), {{rng.uniform(0, 1024), rng.uniform(0, 1024)}, rng.uniform(0.5f, 4.0f)}});
  }
  return items;
}

// Mean candidates per point query over a fixed set of points away from the centre lines.
double meanPointCandidates(SpatialIndex& index) {
  Rng rng(99);
  std::vector<ItemId> out;
  std::uint64_t total = 0;
  const int queries = 200;
  for (int q = 0; q < queries; ++q) {
    Vec2 p{rng.uniform(0, 1024), rng.uniform(0, 1024)};
    if (std::fabs(p.x - 512.0f) < 20.0f) p.x += 40.0f;
    if (std::fabs(p.y - 512.0f) < 20.0f) p.y += 40.0f;
    QueryContext ctx;
    index.queryPoint(p, out, &ctx);
    total += ctx.counters.candidates;
  }
  return double(total) / queries;
}

// ---------------------------------------------------------------------------------------------------------
// Point quadtree
// ---------------------------------------------------------------------------------------------------------

// The source document's capacity of 4 (the default is 32, see below).
TEST(PointQuadtree, LeafSplitsOnTheFifthItemAndMergesBack) {
  auto tree = makeQuadtree();
  tree->setWorldHint(kWorld);
  tree->setParam("capacity", 4);
  tree->build({});
  const Vec2 spots[] = {{100, 100}, {900, 100}, {100, 900}, {900, 900}, {300, 300}};
  for (ItemId id = 0; id < 4; ++id) tree->insert(id, {spots[id], 1.0f});
  EXPECT_EQ(tree->stats().nodes, 1u);
  tree->insert(4, {spots[4], 1.0f});
  EXPECT_EQ(tree->stats().nodes, 5u);
  EXPECT_EQ(tree->stats().maxDepth, 1);
  EXPECT_EQ(tree->validate(), "");
  tree->remove(2);
  EXPECT_EQ(tree->stats().nodes, 1u) << "four items left: the four leaves merge back into the root";
  EXPECT_EQ(tree->validate(), "");
}

TEST(PointQuadtree, CapacityParameterSetsTheLeafSize) {
  auto tree = makeQuadtree();
  tree->setWorldHint(kWorld);
  EXPECT_EQ(tree->param("capacity"), 32.0) << "the default: leaves of 32";
  std::vector<Item> items = lattice(8, 1.0f);
  items.resize(32);  // the lattice's lower four rows
  tree->build(items);
  EXPECT_EQ(tree->stats().nodes, 1u);
  tree->insert(100, {{900, 900}, 1.0f});
  EXPECT_EQ(tree->stats().nodes, 5u) << "the thirty-third item splits the root";
  tree->remove(100);
  EXPECT_EQ(tree->stats().nodes, 1u) << "back to 32: the four leaves merge into the root";
  tree->build(lattice(4, 1.0f));
  tree->setParam("capacity", 1);
  EXPECT_EQ(extraValue(*tree, "items_depth_2"), 16.0) << "one item per leaf of the 4x4 lattice";
  EXPECT_EQ(tree->validate(), "");
}

TEST(PointQuadtree, CoincidentCentresStayInOneLeaf) {
  auto tree = makeQuadtree();
  tree->setWorldHint(kWorld);
  std::vector<Item> items;
  for (ItemId id = 0; id < 40; ++id) items.push_back({id, {{333.0f, 444.0f}, float(id % 3)}});
  tree->build(items);
  EXPECT_EQ(tree->stats().nodes, 1u) << "splitting cannot separate equal centres";
  EXPECT_EQ(tree->validate(), "");
  // Once one of them moves away the leaf can split, and does.
  tree->update(7, {{10.0f, 10.0f}, 1.0f});
  EXPECT_GT(tree->stats().nodes, 1u);
  EXPECT_EQ(tree->validate(), "");
  items[7].circle = {{10.0f, 10.0f}, 1.0f};
  expectSameAnswers(*tree, items, {{333, 444}, {10, 10}, {500, 500}}, 5.0f);
}

TEST(PointQuadtree, OneLargeCircleWidensEveryAncestor) {
  auto tree = makeQuadtree();
  tree->setWorldHint(kWorld);
  std::vector<Item> items = lattice(32, 0.5f);  // 1024 small circles, 32 units apart
  tree->build(items);
  std::vector<ItemId> out;
  // Close enough to the big circle's leaf for that leaf's widening to reach it, but outside the circle.
  const Vec2 probe{390.0f, 390.0f};
  QueryDetail detail;
  QueryContext before;
  before.detail = &detail;
  tree->queryPoint(probe, out, &before);
  const std::uint64_t smallOnlyCandidates = before.counters.candidates;
  const std::uint64_t smallOnlyVisits = before.counters.nodesVisited;
  EXPECT_EQ(detail.widenedNodes, 0u);

  // A single circle of radius 300 in the opposite corner widens the root and all nodes above its leaf.
  const ItemId big = ItemId(items.size());
  tree->insert(big, {{100.0f, 100.0f}, 300.0f});
  EXPECT_EQ(extraValue(*tree, "root_widen"), 300.0);
  detail.reset();
  QueryContext widened;
  widened.detail = &detail;
  tree->queryPoint(probe, out, &widened);
  EXPECT_TRUE(out.empty());
  EXPECT_GT(widened.counters.nodesVisited, smallOnlyVisits);
  EXPECT_GT(widened.counters.candidates, smallOnlyCandidates);
  EXPECT_GT(detail.widenedNodes, 0u);
  EXPECT_GT(detail.widenedCandidates, 0u);

  // Removing it shrinks the widening back to the small radius.
  tree->remove(big);
  EXPECT_EQ(extraValue(*tree, "root_widen"), 0.5);
  QueryContext after;
  tree->queryPoint(probe, out, &after);
  EXPECT_EQ(after.counters.candidates, smallOnlyCandidates);
  EXPECT_EQ(tree->validate(), "");
}

TEST(PointQuadtree, MovesInsideTheLeafStayInPlace) {
  auto tree = makeQuadtree();
  tree->setWorldHint(kWorld);
  tree->build(lattice(16, 1.0f));
  const Circle before = tree->circle(5);
  tree->update(5, {{before.center.x + 0.5f, before.center.y}, 1.0f});
  EXPECT_EQ(extraValue(*tree, "updates_in_place"), 1.0);
  tree->update(5, {{900.0f, 900.0f}, 1.0f});
  EXPECT_EQ(extraValue(*tree, "updates_relinked"), 1.0);
  EXPECT_EQ(tree->validate(), "");
}

// ---------------------------------------------------------------------------------------------------------
// Fit-entirely quadtree against the loose quadtree on the centre lines
// ---------------------------------------------------------------------------------------------------------

TEST(FitQuadtree, CentreLinesPileUpInTheRootAndQueriesTurnLinear) {
  const std::size_t n = 2000;
  auto fit = makeFitQuadtree();
  fit->setWorldHint(kWorld);
  fit->build(onCentreLines(n, 5));
  EXPECT_EQ(extraValue(*fit, "items_depth_0"), double(n)) << "no circle on a centre line fits a quadrant";
  EXPECT_EQ(extraValue(*fit, "root_item_share"), 1.0);
  const double linesCost = meanPointCandidates(*fit);
  EXPECT_EQ(linesCost, double(n)) << "every point query tests every circle";

  fit->build(uniformScatter(n, 5));
  const double uniformCost = meanPointCandidates(*fit);
  EXPECT_LT(uniformCost * 10.0, linesCost) << "scattered circles sink into the tree";
  EXPECT_EQ(fit->validate(), "");
}

TEST(FitQuadtree, LargeCirclesAreFoundOnTheWayUp) {
  auto fit = makeFitQuadtree();
  fit->setWorldHint(kWorld);
  std::vector<Item> items = lattice(16, 1.0f);
  items.push_back({1000, {{512.0f, 512.0f}, 400.0f}});
  items.push_back({1001, {{256.0f, 256.0f}, 100.0f}});
  fit->build(items);
  EXPECT_GE(extraValue(*fit, "root_items"), 1.0);
  EXPECT_GT(extraValue(*fit, "mean_items_above"), 0.0);
  expectSameAnswers(*fit, items, {{300, 300}, {512, 512}, {20, 1000}, {130, 380}}, 30.0f);
}

TEST(LooseQuadtree, CentreLinesDoNotDegenerate) {
  const std::size_t n = 2000;
  auto loose = makeLooseQuadtree();
  loose->setWorldHint(kWorld);
  loose->build(onCentreLines(n, 5));
  EXPECT_EQ(extraValue(*loose, "items_depth_0"), 0.0) << "the level follows the radius, not the position";
  const double linesCost = meanPointCandidates(*loose);
  EXPECT_LT(linesCost, double(n) / 50.0);
  EXPECT_EQ(loose->validate(), "");
}

// ---------------------------------------------------------------------------------------------------------
// Loose quadtree
// ---------------------------------------------------------------------------------------------------------

TEST(LooseQuadtree, LevelFollowsTheRadius) {
  auto loose = makeLooseQuadtree();
  loose->setWorldHint(kWorld);
  loose->setParam("max_depth", 16);
  loose->build({});
  // With factor 2 the loose margin of a level-d cell is half its side, 512 / 2^d: the deepest level whose
  // margin still covers the radius is floor(log2(512 / r)).
  loose->insert(0, {{100.0f, 100.0f}, 1.0f});    // 512 / 1 = 2^9
  loose->insert(1, {{700.0f, 300.0f}, 3.0f});    // 512 / 3 = 170.7 -> 7
  loose->insert(2, {{900.0f, 900.0f}, 300.0f});  // 512 / 300 = 1.7 -> 0
  EXPECT_EQ(extraValue(*loose, "items_depth_9"), 1.0);
  EXPECT_EQ(extraValue(*loose, "items_depth_7"), 1.0);
  EXPECT_EQ(extraValue(*loose, "items_depth_0"), 1.0);
  EXPECT_EQ(loose->validate(), "");

  loose->setParam("factor", 3.0);  // margins double: every circle sinks one level
  EXPECT_EQ(extraValue(*loose, "items_depth_10"), 1.0);
  EXPECT_EQ(extraValue(*loose, "items_depth_8"), 1.0);
  EXPECT_EQ(extraValue(*loose, "items_depth_1"), 1.0);
  EXPECT_EQ(loose->validate(), "");
}

TEST(LooseQuadtree, AutomaticDepthLimitFollowsTheCount) {
  auto loose = makeLooseQuadtree();
  loose->setWorldHint(kWorld);
  loose->build(lattice(32, 0.0f));  // 1024 points: 4^5 cells of the world cell at level 5
  EXPECT_EQ(extraValue(*loose, "level_limit"), 5.0);
  EXPECT_EQ(extraValue(*loose, "items_depth_5"), 1024.0) << "points go as deep as the limit allows";
  loose->setParam("max_depth", 7);
  EXPECT_EQ(extraValue(*loose, "level_limit"), 7.0);
  EXPECT_EQ(extraValue(*loose, "items_depth_7"), 1024.0);
  EXPECT_EQ(loose->validate(), "");
}

TEST(LooseQuadtree, MovesWithinTheLooseBoundsCostNothing) {
  auto loose = makeLooseQuadtree();
  loose->setWorldHint(kWorld);
  loose->setParam("max_depth", 16);
  loose->build(lattice(8, 1.0f));
  const std::size_t nodesBefore = loose->stats().nodes;
  // A radius-1 circle sits at level 9, whose cells are 2 units wide with a 1-unit margin: its centre may
  // wander anywhere within its cell and it still fits.
  const Circle c = loose->circle(3);
  const float cell = 2.0f;
  const float inCell = std::floor(c.center.x / cell) * cell;
  for (float x : {inCell, inCell + 0.5f * cell, inCell + cell}) loose->update(3, {{x, c.center.y}, 1.0f});
  EXPECT_EQ(extraValue(*loose, "updates_in_place"), 3.0);
  EXPECT_EQ(extraValue(*loose, "updates_relinked"), 0.0);
  EXPECT_EQ(loose->stats().nodes, nodesBefore);
  loose->update(3, {{c.center.x + 40.0f, c.center.y}, 1.0f});
  EXPECT_EQ(extraValue(*loose, "updates_relinked"), 1.0);
  EXPECT_EQ(extraValue(*loose, "update_fast_path_ratio"), 0.75);
  EXPECT_EQ(loose->validate(), "");
}

// A node is drawn as its own cell; the loose bounds a query tests (the cell scaled by `factor` around its
// centre) come along as its grown bounds, for the views that explain a walk with them.
TEST(LooseQuadtree, NodesAreTheirCellsWithTheLooseBoundsBeside) {
  auto loose = makeLooseQuadtree();
  loose->setWorldHint({{0, 0}, {256, 256}});
  std::vector<Item> items;
  Rng rng(5);
  for (ItemId id = 0; id < 500; ++id)
    items.push_back({id, {{rng.uniform(0, 256), rng.uniform(0, 256)}, rng.uniform(0.5f, 3.0f)}});
  loose->build(items);
  std::size_t nodes = 0;
  loose->visitNodes([&](const NodeInfo& node) {
    ++nodes;
    ASSERT_TRUE(node.hasGrown());
    const float cell = node.box.max.x - node.box.min.x;
    EXPECT_FLOAT_EQ(node.grown.max.x - node.grown.min.x, 2.0f * cell);
    EXPECT_FLOAT_EQ(node.grown.min.x + node.grown.max.x, node.box.min.x + node.box.max.x);
  });
  EXPECT_GT(nodes, 20u);
  // The fit-entirely quadtree has no grown bounds: its cells are what it tests.
  auto fit = makeFitQuadtree();
  fit->build(items);
  fit->visitNodes([](const NodeInfo& node) { EXPECT_FALSE(node.hasGrown()); });
}

TEST(LooseQuadtree, RemovingEverythingFreesEveryNode) {
  auto loose = makeLooseQuadtree();
  loose->setWorldHint(kWorld);
  const std::vector<Item> items = uniformScatter(500, 3);
  loose->build(items);
  EXPECT_GT(loose->stats().nodes, 100u);
  for (const Item& item : items) loose->remove(item.id);
  EXPECT_EQ(loose->stats().nodes, 1u);
  EXPECT_EQ(loose->validate(), "");
  loose->build(items);  // the freed blocks are reused
  EXPECT_EQ(loose->validate(), "");
}

// ---------------------------------------------------------------------------------------------------------
// All three
// ---------------------------------------------------------------------------------------------------------

class QuadtreeFamily : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<SpatialIndex> create() const {
    return StructureRegistry::withCoreStructures().create(GetParam());
  }
};

TEST_P(QuadtreeFamily, ExtremeCirclesAreNeverLost) {
  auto tree = create();
  tree->setWorldHint(kWorld);
  std::vector<Item> items = lattice(10, 2.0f);
  const Circle extremes[] = {
      {{-1e15f, -1e15f}, 1.0f}, {{1e15f, -3e14f}, 0.0f},  {{5.0f, 5.0f}, 1e15f},     {{-2e6f, 7e5f}, 0.0f},
      {{512.0f, 512.0f}, 0.0f}, {{512.0f, 512.0f}, 0.0f}, {{-1e-20f, 3.0f}, 1e-30f}, {{1e15f, 1e15f}, 1e15f},
  };
  ItemId next = 5000;
  for (const Circle& c : extremes) items.push_back({next++, c});
  tree->build(items);
  EXPECT_EQ(tree->validate(), "");
  expectSameAnswers(*tree, items, {{-1e15f, -1e15f}, {1e15f, -3e14f}, {512, 512}, {-2e6f, 7e5f}, {0, 3}},
                    10.0f);

  // The same circles one by one into an empty tree: the root grows toward each.
  auto grown = create();
  grown->setWorldHint(kWorld);
  for (const Item& item : items) grown->insert(item.id, item.circle);
  EXPECT_EQ(grown->validate(), "");
  expectSameAnswers(*grown, items, {{-1e15f, -1e15f}, {1e15f, 1e15f}, {512, 512}, {3, 3}}, 10.0f);
  for (const Item& item : items) grown->remove(item.id);
  EXPECT_EQ(grown->size(), 0u);
  EXPECT_EQ(grown->validate(), "");
}

// Splits take child blocks wherever the pool has room; maintain() lays the nodes out again in
// depth-first order once enough of them have been taken, renumbering every node and every circle's link to
// its node. The answers stay those of brute force across each such layout, and moves go on from there.
TEST_P(QuadtreeFamily, LaysItsNodesOutAgainAsSplitsScatterThem) {
  Simulation sim("spheretest", SceneConfig{}, 3000, 4);
  const std::vector<Item> all = sim.items();
  auto tree = create();
  tree->setWorldHint(sim.world());
  tree->build(all);
  EXPECT_EQ(extraValue(*tree, "depth_first_layouts"), 1.0) << "the build lays its nodes out";
  // Emptied, the regions free their blocks; filled again, they take them back from wherever they lie.
  for (std::size_t i = 30; i < all.size(); ++i) tree->remove(all[i].id);
  int layouts = 0;
  for (std::size_t i = 30; i < all.size(); ++i) {
    tree->insert(all[i].id, all[i].circle);
    if (i % 100 != 0) continue;
    const double before = extraValue(*tree, "depth_first_layouts");
    // Queries read a node's circles from the pair search's copy while nothing has changed since: a layout
    // between the two must not leave them reading it by the old node numbers.
    std::vector<Pair> pairs;
    tree->findPairs(pairs);
    tree->maintain();
    if (extraValue(*tree, "depth_first_layouts") == before) continue;
    ++layouts;
    const std::vector<Item> inserted(all.begin(), all.begin() + std::ptrdiff_t(i + 1));
    expectSameAnswers(*tree, inserted, {all[0].circle.center, all[i].circle.center, {0, 0}}, 30.0f);
  }
  EXPECT_GT(layouts, 0);
  for (int frame = 0; frame < 30; ++frame) {
    sim.step();
    tree->updateBatch(sim.movedIds(), sim.movedCircles());
    tree->maintain();
  }
  const std::vector<Item> moved = sim.items();
  expectSameAnswers(*tree, moved, {moved[0].circle.center, moved[7].circle.center}, 30.0f);
}

TEST_P(QuadtreeFamily, WorksWithoutAWorldHint) {
  auto tree = create();
  const std::vector<Item> items = uniformScatter(300, 8);
  for (const Item& item : items) tree->insert(item.id, item.circle);
  EXPECT_EQ(tree->validate(), "");
  expectSameAnswers(*tree, items, {{10, 10}, {500, 600}, {1000, 20}}, 25.0f);
}

TEST_P(QuadtreeFamily, TraceAccountsForEveryCandidate) {
  auto tree = create();
  tree->setWorldHint(kWorld);
  tree->build(uniformScatter(1000, 4));
  QueryTrace trace;
  QueryContext traced;
  traced.trace = &trace;
  std::vector<ItemId> out;
  tree->queryCircle({{400.0f, 400.0f}, 30.0f}, out, &traced);
  std::size_t visits = 0, prunes = 0, tested = 0, hits = 0;
  for (const TraceEvent& e : trace.events) {
    switch (e.kind) {
      case TraceEventKind::VisitNode:
        ++visits;
        break;
      case TraceEventKind::PruneNode:
        ++prunes;
        EXPECT_STRNE(e.test, "");
        break;
      case TraceEventKind::Candidate:
        ++tested;
        break;
      case TraceEventKind::Hit:
        ++tested, ++hits;
        break;
    }
  }
  EXPECT_EQ(tested, traced.counters.candidates);
  EXPECT_EQ(hits, out.size());
  EXPECT_GT(visits, 0u);
  EXPECT_GT(prunes, 0u);
  EXPECT_LT(traced.counters.candidates, 1000u);
}

TEST_P(QuadtreeFamily, StatsAndDrawingAgree) {
  auto tree = create();
  tree->setWorldHint(kWorld);
  tree->build(uniformScatter(2000, 6));
  std::size_t drawn = 0, itemsDrawn = 0;
  int deepest = 0;
  tree->visitNodes([&](const NodeInfo& info) {
    ++drawn;
    itemsDrawn += info.itemCount;
    deepest = std::max(deepest, info.depth);
  });
  const IndexStats s = tree->stats();
  EXPECT_EQ(drawn, s.nodes);
  EXPECT_EQ(itemsDrawn, 2000u);
  EXPECT_EQ(deepest, s.maxDepth);
  EXPECT_GT(s.memoryBytes, s.nodes * 40);
}

TEST_P(QuadtreeFamily, PathToACircleRunsFromTheRootToTheNodeHoldingIt) {
  auto tree = create();
  tree->setWorldHint(kWorld);
  const std::vector<Item> items = lattice(30, 1.5f);
  tree->build(items);
  EXPECT_FALSE(tree->nodeRule().empty());
  for (std::size_t k = 0; k < items.size(); k += 37) {
    std::vector<NodeInfo> path;
    tree->visitPathTo(items[k].id, [&](const NodeInfo& node) { path.push_back(node); });
    ASSERT_FALSE(path.empty()) << "item " << items[k].id;
    for (std::size_t d = 0; d < path.size(); ++d) {
      EXPECT_EQ(path[d].depth, int(d));
      EXPECT_TRUE(boxContainsPoint(path[d].box, items[k].circle.center)) << "depth " << d;
    }
    // The last node is the one that holds the item.
    EXPECT_GE(path.back().itemCount, 1u);
  }
  std::vector<NodeInfo> none;
  tree->visitPathTo(999999, [&](const NodeInfo& node) { none.push_back(node); });
  EXPECT_TRUE(none.empty()) << "an absent id has no path";
}

// A tree's nodes as text, in a fixed order: two trees with the same nodes holding the same numbers of
// circles give the same list, whatever their nodes' indices.
std::vector<std::string> nodeList(const SpatialIndex& tree) {
  std::vector<std::string> nodes;
  tree.visitNodes([&](const NodeInfo& n) {
    nodes.push_back(std::to_string(n.depth) + " " + std::to_string(n.box.min.x) + "," +
                    std::to_string(n.box.min.y) + " " + std::to_string(n.box.max.x) + "," +
                    std::to_string(n.box.max.y) + " holds " + std::to_string(n.itemCount));
  });
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// The update batch applies most moves on the workers and the rest one by one; the capacity-split trees
// also move a circle from its old node rather than from the root. Neither may change the tree: it must be
// the one the same moves made one at a time make, and for the capacity-split trees, whose shape follows
// from the circles alone, the one a fresh build of the moved circles makes.
TEST_P(QuadtreeFamily, AMoveBatchMakesTheTreeOfOneMoveAfterAnother) {
  std::vector<Item> items = uniformScatter(3000, 21);
  for (Item& item : items)
    item.circle.center = {8.0f + item.circle.center.x * (1008.0f / 1024.0f),
                          8.0f + item.circle.center.y * (1008.0f / 1024.0f)};
  auto batched = create(), oneByOne = create();
  for (auto* tree : {batched.get(), oneByOne.get()}) {
    tree->setWorldHint(kWorld);
    tree->build(items);
  }
  Rng rng(5);
  for (int round = 0; round < 12; ++round) {
    std::vector<ItemId> ids;
    std::vector<Circle> moved;
    for (const Item& item : items) {
      if (!rng.chance(0.6)) continue;
      const Circle c = batched->circle(item.id);
      // Most steps reach a neighbouring leaf at most; some cross the world, a few change the radius.
      const float step = rng.chance(0.05) ? 400.0f : 6.0f;
      // A step that would take a circle out of the world is taken the other way: clamping would stack
      // centres on its edge, and circles sharing a centre, like a root grown toward a circle, leave the
      // shape of a tree to the order they came in.
      const auto along = [&](float from) {
        const float d = rng.uniform(-step, step);
        return from + d >= 8.0f && from + d <= 1016.0f ? from + d : from - d;
      };
      const Vec2 to{along(c.center.x), along(c.center.y)};
      ids.push_back(item.id);
      moved.push_back({to, rng.chance(0.02) ? rng.uniform(0.5f, 4.0f) : c.radius});
    }
    batched->updateBatch(ids, moved);
    for (std::size_t i = 0; i < ids.size(); ++i) oneByOne->update(ids[i], moved[i]);
    ASSERT_EQ(batched->validate(), "") << "round " << round;
    ASSERT_EQ(oneByOne->validate(), "") << "round " << round;
    const std::vector<std::string> nodes = nodeList(*batched);
    ASSERT_EQ(nodes, nodeList(*oneByOne)) << "round " << round;
    if (GetParam() != "loose-quadtree") {
      std::vector<Item> now;
      for (const Item& item : items) now.push_back({item.id, batched->circle(item.id)});
      auto fresh = create();
      fresh->setWorldHint(kWorld);
      fresh->build(now);
      ASSERT_EQ(nodes, nodeList(*fresh)) << "round " << round;
    }
  }
  expectSameAnswers(
      *batched,
      [&] {
        std::vector<Item> now;
        for (const Item& item : items) now.push_back({item.id, batched->circle(item.id)});
        return now;
      }(),
      {{10, 10}, {500, 600}, {1000, 20}}, 25.0f);
}

// Every query kind at `probes`, as text: the sorted answers with the walk's counters. Two walks of the same
// tree give the same text whatever order they read a node's circles in.
std::vector<std::string> answersWithCounts(const SpatialIndex& tree, const std::vector<Vec2>& probes,
                                           float size) {
  std::vector<std::string> lines;
  std::vector<ItemId> ids;
  std::vector<RayHit> hits;
  std::vector<NearestHit> nearest;
  const auto line = [&](const char* kind, const QueryContext& ctx, std::vector<std::string> found) {
    std::string text = std::string(kind) + " nodes " + std::to_string(ctx.counters.nodesVisited) +
                       " examined " + std::to_string(ctx.counters.candidates) + ":";
    for (const std::string& f : found) text += " " + f;
    lines.push_back(text);
  };
  const auto idText = [](std::vector<ItemId> found) {
    std::vector<std::string> text;
    for (ItemId id : sorted(std::move(found))) text.push_back(std::to_string(id));
    return text;
  };
  for (Vec2 p : probes) {
    QueryContext point, circle, box, ray, near;
    tree.queryPoint(p, ids, &point);
    line("point", point, idText(ids));
    tree.queryCircle({p, size}, ids, &circle);
    line("circle", circle, idText(ids));
    tree.queryBox(boxFromCenter(p, size, size * 0.5f), ids, &box);
    line("box", box, idText(ids));
    tree.rayCast({p, {p.x + 4 * size, p.y - 3 * size}}, hits, &ray);
    std::vector<std::string> rayText;
    for (const RayHit& hit : hits) rayText.push_back(std::to_string(hit.id) + "@" + std::to_string(hit.t));
    line("ray", ray, rayText);
    tree.queryNearest(p, 5, nearest, &near);
    std::vector<std::string> nearText;
    for (const NearestHit& hit : nearest) nearText.push_back(std::to_string(hit.id));
    line("nearest", near, nearText);
  }
  return lines;
}

// After a pair search the queries read each node's circles from the copy that search laid out; after any
// change they go back to the node lists. Both must walk the same nodes, examine the same circles and find
// the same ones, and a circle moved after the search must be found where it is now.
TEST_P(QuadtreeFamily, QueriesAfterAPairSearchReadItsCopyAndAnswerAsTheListsDo) {
  std::vector<Item> items = uniformScatter(3000, 31);
  Rng rng(7);
  for (std::size_t i = 0; i < items.size(); i += 50) items[i].circle.radius = rng.uniform(8.0f, 60.0f);
  auto tree = create();
  tree->setWorldHint(kWorld);
  // The tree's own walk, reading the copy's runs (plain queries walking the view: view_queries_test.cpp).
  tree->setParam("view_queries", 0);
  tree->build(items);
  std::vector<ItemId> ids;
  std::vector<Circle> moved;
  for (const Item& item : items) {
    if (!rng.chance(0.3)) continue;
    ids.push_back(item.id);
    moved.push_back({{rng.uniform(10, 1014), rng.uniform(10, 1014)}, item.circle.radius});
    items[item.id].circle = moved.back();
  }
  tree->updateBatch(ids, moved);
  std::vector<Vec2> probes;
  for (int k = 0; k < 40; ++k) probes.push_back({rng.uniform(0, 1024), rng.uniform(0, 1024)});
  const std::vector<std::string> fromLists = answersWithCounts(*tree, probes, 20.0f);
  std::vector<Pair> pairs;
  tree->findPairs(pairs);
  EXPECT_EQ(answersWithCounts(*tree, probes, 20.0f), fromLists);
  expectSameAnswers(*tree, items, probes, 20.0f);

  // A circle moved after the search: the copy no longer holds, so the query must not read it.
  tree->findPairs(pairs);
  const ItemId mover = items[17].id;
  const Circle there{{900.0f, 120.0f}, 3.0f};
  tree->update(mover, there);
  items[17].circle = there;
  tree->queryPoint(there.center, ids);
  EXPECT_NE(std::find(ids.begin(), ids.end(), mover), ids.end());
  expectSameAnswers(*tree, items, probes, 20.0f);
}

// A fit-entirely quadtree whose root holds a quarter of the circles: those across the world's centre line.
std::vector<Item> withCentreLineStrip() {
  std::vector<Item> items = uniformScatter(2000, 41);
  Rng rng(9);
  for (std::size_t i = 0; i < items.size(); i += 4)
    items[i].circle = {{rng.uniform(507.0f, 517.0f), rng.uniform(10.0f, 1014.0f)}, rng.uniform(6.0f, 9.0f)};
  return items;
}

// Read from the pair search's copy, a node's circles are pre-tested in float: every one still counts as
// examined, traced or not, but only those the pre-test keeps are tested exactly, and the answers stay brute
// force's. The fit-entirely quadtree keeps circles across the world's centre line in its root, so every
// query that tests the whole list (split_runs off) examines all of them.
TEST(FitQuadtree, ACopiedNodeIsPreTestedAndOnlyTheKeptCirclesAreTestedExactly) {
  const std::vector<Item> items = withCentreLineStrip();
  auto tree = makeFitQuadtree();
  tree->setWorldHint(kWorld);
  tree->setParam("split_runs", 0);
  tree->build(items);
  std::vector<Pair> pairs;
  tree->findPairs(pairs);
  const std::vector<Vec2> probes{{512, 300}, {100, 100}, {515, 700}};
  for (Vec2 p : probes) {
    std::vector<ItemId> ids;
    QueryContext plain;
    tree->queryPoint(p, ids, &plain);
    EXPECT_GE(plain.counters.candidates, items.size() / 4) << p.x << "," << p.y;
    EXPECT_LT(plain.counters.exactTests, plain.counters.candidates / 4) << p.x << "," << p.y;
    QueryTrace trace;
    QueryContext traced;
    traced.trace = &trace;
    tree->queryPoint(p, ids, &traced);
    EXPECT_EQ(traced.counters.candidates, plain.counters.candidates);
    EXPECT_EQ(traced.counters.exactTests, plain.counters.exactTests);
  }
  expectSameAnswers(*tree, items, probes, 20.0f);
}

// With split_runs on (the default), a query reaches the root's long list through the k-d split the pair
// search made of it: it examines the circles of the few leaves of that split it enters, not the list,
// counts the split's nodes it tested as visited, and finds what the whole list gives.
TEST(FitQuadtree, ALongListIsReachedThroughItsSplitNotScanned) {
  const std::vector<Item> items = withCentreLineStrip();
  auto split = makeFitQuadtree();
  auto whole = makeFitQuadtree();
  for (SpatialIndex* tree : {split.get(), whole.get()}) {
    tree->setWorldHint(kWorld);
    tree->build(items);
  }
  whole->setParam("split_runs", 0);
  split->setParam("view_queries", 0);  // the tree's own walk, which the traced query below takes too
  std::vector<Pair> pairs;
  split->findPairs(pairs);
  whole->findPairs(pairs);
  const std::vector<Vec2> probes{{512, 300}, {515, 700}, {509, 1000}};
  for (Vec2 p : probes) {
    std::vector<ItemId> got, want;
    QueryContext a, b;
    split->queryCircle({p, 12.0f}, got, &a);
    whole->queryCircle({p, 12.0f}, want, &b);
    EXPECT_EQ(sorted(got), sorted(want)) << p.x << "," << p.y;
    EXPECT_FALSE(got.empty()) << "the probes lie on the strip";
    EXPECT_GE(b.counters.candidates, items.size() / 4) << "the whole list is examined";
    EXPECT_LT(a.counters.candidates * 2, b.counters.candidates) << p.x << "," << p.y;
    EXPECT_GT(a.counters.nodesVisited, b.counters.nodesVisited) << "the split's nodes count as visited";
    // Traced and with the teaching figures, the same work, and the per-depth figures add up to it.
    QueryTrace trace;
    QueryDetail detail;
    QueryContext traced;
    traced.trace = &trace;
    traced.detail = &detail;
    split->queryCircle({p, 12.0f}, got, &traced);
    EXPECT_EQ(traced.counters.candidates, a.counters.candidates);
    EXPECT_EQ(traced.counters.nodesVisited, a.counters.nodesVisited);
    std::uint64_t byDepth = 0;
    for (int d = 0; d < detail.depthsUsed; ++d) byDepth += detail.candidatesByDepth[d];
    EXPECT_EQ(byDepth, a.counters.candidates);
  }
  EXPECT_EQ(split->validate(), "");
  expectSameAnswers(*split, items, probes, 20.0f);
}

INSTANTIATE_TEST_SUITE_P(AllThree, QuadtreeFamily,
                         ::testing::Values("quadtree", "fit-quadtree", "loose-quadtree"), structureTestName);

}  // namespace
}  // namespace st::testing
