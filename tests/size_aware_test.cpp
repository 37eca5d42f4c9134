// The claims of the two size-aware trees, shown with their own counters: the radius tree enters at most
// four nodes per level and does not notice a dense remote cluster; the enneatree stays logarithmic on the
// centre lines where the fit-entirely quadtree turns linear; both keep their placement rules (radius bands,
// depth from diameter, centre child first) through moves, growth and extreme input.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spheretest/oracle_check.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/scene.hpp"
#include "support/all_structures.hpp"
#include "support/extra_figures.hpp"

namespace st::testing {
namespace {

const StructureRegistry& registry() {
  static const StructureRegistry reg = StructureRegistry::withCoreStructures();
  return reg;
}

// Nodes a traced point query entered, by depth; the query's own per-depth figures (QueryDetail) must say
// the same.
std::map<int, int> visitsPerDepth(SpatialIndex& index, Vec2 p) {
  QueryTrace trace;
  QueryDetail detail;
  QueryContext traced;
  traced.trace = &trace;
  traced.detail = &detail;
  std::vector<ItemId> out;
  index.queryPoint(p, out, &traced);
  std::map<int, int> perDepth;
  for (const TraceEvent& event : trace.events) {
    if (event.kind == TraceEventKind::VisitNode) ++perDepth[event.node.depth];
  }
  for (int d = 0; d < detail.nodeDepthsUsed; ++d) {
    const auto found = perDepth.find(d);
    EXPECT_EQ(detail.nodesByDepth[std::size_t(d)], found == perDepth.end() ? 0u : unsigned(found->second))
        << "depth " << d;
  }
  return perDepth;
}

Vec2 randomPointIn(Rng& rng, const Box& region) {
  return {rng.uniform(region.min.x, region.max.x), rng.uniform(region.min.y, region.max.y)};
}

struct QueryCost {
  double nodes = 0.0;       // mean nodes entered per query
  double candidates = 0.0;  // mean exact tests per query
};

QueryCost meanPointQueryCost(SpatialIndex& index, const Box& region, int queries, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<ItemId> out;
  QueryCost cost;
  for (int q = 0; q < queries; ++q) {
    QueryContext ctx;
    index.queryPoint(randomPointIn(rng, region), out, &ctx);
    cost.nodes += double(ctx.counters.nodesVisited);
    cost.candidates += double(ctx.counters.candidates);
  }
  cost.nodes /= queries;
  cost.candidates /= queries;
  return cost;
}

std::unique_ptr<SpatialIndex> buildOver(const std::string& name, const Box& world,
                                        const std::vector<Item>& items) {
  auto index = registry().create(name);
  index->setWorldHint(world);
  index->build(items);
  return index;
}

// -----------------------------------------------------------------------------------------------------------
// Radius tree
// -----------------------------------------------------------------------------------------------------------

TEST(RadiusTree, PointQueryEntersAtMostFourNodesPerLevel) {
  SceneConfig config;
  config.radiusMin = 0.05;  // radii over three decades: a deep tree with every level in use
  config.radiusMax = 40.0;
  Simulation sim("uniform", config, 20000, 11);
  auto tree = buildOver("radius-tree", sim.world(), sim.items());
  for (int frame = 0; frame < 10; ++frame) {
    sim.step();
    tree->updateBatch(sim.movedIds(), sim.movedCircles());
  }
  ASSERT_EQ(tree->validate(), "");
  Rng rng(3);
  int deepest = 0;
  for (int q = 0; q < 400; ++q) {
    const Vec2 p = randomPointIn(rng, sim.world());
    for (const auto& [depth, visits] : visitsPerDepth(*tree, p)) {
      ASSERT_LE(visits, 4) << "depth " << depth << " at (" << p.x << ", " << p.y << ")";
      deepest = std::max(deepest, depth);
    }
  }
  EXPECT_GE(deepest, 8) << "the scene should exercise many levels";
}

// Point and circle queries over the same points on a tree of the background alone and on one that also holds
// a remote cluster: mean nodes visited per query of each, and whether every answer was the same.
struct PairedQueryCost {
  double nodesWithout = 0.0;
  double nodesWith = 0.0;
  double candidatesWithout = 0.0;
  double candidatesWith = 0.0;
  std::size_t hits = 0;
  std::size_t differing = 0;
};

PairedQueryCost pairedQueryCost(SpatialIndex& without, SpatialIndex& with, const std::vector<Vec2>& points) {
  PairedQueryCost cost;
  std::vector<ItemId> got[2];
  SpatialIndex* trees[2] = {&without, &with};
  Rng rng(9);
  for (const Vec2& p : points) {
    const Circle around{p, rng.uniform(0.0f, 6.0f)};
    bool same = true;
    for (const bool circle : {false, true}) {
      for (int k = 0; k < 2; ++k) {
        if (circle) {
          trees[k]->queryCircle(around, got[k]);
        } else {
          QueryContext ctx;
          trees[k]->queryPoint(p, got[k], &ctx);
          (k == 0 ? cost.nodesWithout : cost.nodesWith) += double(ctx.counters.nodesVisited);
          (k == 0 ? cost.candidatesWithout : cost.candidatesWith) += double(ctx.counters.candidates);
        }
        std::sort(got[k].begin(), got[k].end());
      }
      same = same && got[0] == got[1];
      if (!circle) cost.hits += got[0].size();
    }
    if (!same) ++cost.differing;
  }
  const double n = double(points.size());
  cost.nodesWithout /= n;
  cost.nodesWith /= n;
  cost.candidatesWithout /= n;
  cost.candidatesWith /= n;
  return cost;
}

// 100,000 small circles some 9,000 units from every query, beside 2,000 background circles: once inside the
// world the tree was told of (the remote-cluster scene itself, at a world side of 26,740), once outside it,
// where the root has to grow toward the cluster. Either way the queries near the background must not notice
// it (the seed: "completely independent of arbitrarily dense clusters of remote objects"): the same answers
// and the same work, but that outside, the cell of the first root's size that holds the cluster lies next to
// the background's and within reach of the queries, so each query tests one node of the cluster's branch
// (under 2% of the nodes).
TEST(RadiusTree, RemoteClusterDoesNotChangeQueryCost) {
  constexpr std::size_t kCluster = 100000, kBackground = 2000;
  SceneConfig config;
  config.clusterFraction = double(kCluster) / double(kCluster + kBackground);
  config.areaPerCircle = 26740.0 * 26740.0 / double(kCluster + kBackground);
  const Simulation scene("remote-cluster", config, kCluster + kBackground, 5);
  const Box world = scene.world();
  const Box region = scene.queryRegion();
  // The scene draws its cluster first: the rest is the background.
  const std::vector<Item> all = scene.items();
  const std::vector<Item> background(all.begin() + kCluster, all.end());
  ASSERT_LE(all[kCluster - 1].circle.radius, 2.0f * float(config.radiusMin))
      << "the cluster's circles are small";

  // The same cluster moved to the left of the query region, out of the world, its right edge 9,000 units
  // from the region.
  float right = world.min.x;
  for (std::size_t i = 0; i < kCluster; ++i)
    right = std::max(right, all[i].circle.center.x + all[i].circle.radius);
  const float shift = region.min.x - 9001.0f - right;
  std::vector<Item> outside = background;
  float movedRight = -INFINITY;
  for (std::size_t i = 0; i < kCluster; ++i) {
    Circle c = all[i].circle;
    c.center.x += shift;
    movedRight = std::max(movedRight, c.center.x + c.radius);
    outside.push_back({all[i].id, c});
  }
  ASSERT_LE(movedRight, region.min.x - 9000.0f);

  auto alone = buildOver("radius-tree", world, background);
  auto inside = buildOver("radius-tree", world, all);
  auto grown = buildOver("radius-tree", world, outside);
  ASSERT_EQ(inside->validate(), "");
  ASSERT_EQ(grown->validate(), "");
  EXPECT_EQ(extraValue(*inside, "root_growths"), 0.0);
  EXPECT_GE(extraValue(*grown, "root_growths"), 1.0) << "the root must grow to hold the cluster";

  // Random points in the query region, and as many at background centres there, so that queries find things.
  Rng rng(3);
  std::vector<Vec2> points;
  for (int q = 0; q < 5000; ++q) points.push_back(randomPointIn(rng, region));
  for (const Item& item : background) {
    if (points.size() == 10000) break;
    if (region.min.x <= item.circle.center.x && item.circle.center.x <= region.max.x &&
        region.min.y <= item.circle.center.y && item.circle.center.y <= region.max.y)
      points.push_back(item.circle.center);
  }
  ASSERT_GT(points.size(), 5200u);

  for (SpatialIndex* with : {inside.get(), grown.get()}) {
    SCOPED_TRACE(with == inside.get() ? "cluster inside the world" : "cluster outside it, the root grown");
    const PairedQueryCost cost = pairedQueryCost(*alone, *with, points);
    std::printf("nodes per point query %.4f alone, %.4f with the cluster (%+.2f%%), %zu hits\n",
                cost.nodesWithout, cost.nodesWith, 100.0 * (cost.nodesWith / cost.nodesWithout - 1.0),
                cost.hits);
    EXPECT_EQ(cost.differing, 0u) << "the cluster is out of reach of every query";
    EXPECT_GT(cost.hits, 100u);
    EXPECT_LE(std::fabs(cost.nodesWith / cost.nodesWithout - 1.0), 0.02)
        << "nodes visited per point query: " << cost.nodesWithout << " alone, " << cost.nodesWith
        << " with the cluster";
    EXPECT_EQ(cost.candidatesWith, cost.candidatesWithout);
    EXPECT_GT(with->stats().nodes, alone->stats().nodes * 5) << "the cluster should fill nodes of its own";
  }
}

TEST(RadiusTree, RootGrowsForCirclesItCannotHold) {
  auto tree = registry().create("radius-tree");
  tree->setWorldHint({{0, 0}, {100, 100}});
  tree->build({});
  tree->insert(1, {{50, 50}, 10});
  EXPECT_EQ(extraValue(*tree, "root_growths"), 0.0);
  tree->insert(2, {{50, 50}, 400});       // larger than half the root
  tree->insert(3, {{-7e14f, 3e14f}, 0});  // far outside it
  EXPECT_GE(extraValue(*tree, "root_growths"), 2.0);
  EXPECT_EQ(tree->validate(), "");
  std::vector<ItemId> out;
  tree->queryPoint({-7e14f, 3e14f}, out);
  EXPECT_EQ(out, std::vector<ItemId>{3});
  tree->queryPoint({50, 50}, out);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (std::vector<ItemId>{1, 2}));
}

// A root grown toward circles far out on every side: the queries enter at the first root's cells, looked up
// by key, and still find exactly what brute force finds, near those cells' edges too.
TEST(RadiusTree, QueriesEnteringBelowAGrownRootAgreeWithBruteForce) {
  const Box world{{0, 0}, {100, 100}};
  auto tree = registry().create("radius-tree");
  auto brute = registry().create("brute");
  tree->setWorldHint(world);
  Rng rng(17);
  const QueryArea inner{world, 20.0f};
  std::vector<Item> items;
  for (ItemId id = 0; id < 3000; ++id) items.push_back({id, randomCircle(rng, inner)});
  tree->build(items);
  brute->build(items);
  ItemId next = ItemId(items.size());
  for (const Vec2 far : {Vec2{-900, 50}, Vec2{1300, -2000}, Vec2{40, 5000}, Vec2{-6000, -6000}}) {
    for (int k = 0; k < 50; ++k) {
      const Circle c{far + Vec2{rng.uniform(-20.0f, 20.0f), rng.uniform(-20.0f, 20.0f)},
                     rng.uniform(0.1f, 2.0f)};
      tree->insert(next, c);
      brute->insert(next, c);
      ++next;
    }
  }
  EXPECT_GE(extraValue(*tree, "root_growths"), 6.0);
  EXPECT_GT(extraValue(*tree, "query_entry_depth"), 0.0) << "the queries should enter below the root";
  // Queries over the first root and a band around it, where the entry cells meet.
  const QueryArea around{{{-60, -60}, {160, 160}}, 30.0f};
  EXPECT_EQ(compareWithOracle(*tree, *brute, rng, around, 2000), "");
  const QueryArea far{{{-7000, -7000}, {6000, 6000}}, 200.0f};
  EXPECT_EQ(compareWithOracle(*tree, *brute, rng, far, 300), "");
}

// -----------------------------------------------------------------------------------------------------------
// Enneatree
// -----------------------------------------------------------------------------------------------------------

// Over a long run the circles stay where a build would put them (the centre child first on the whole path
// from the root), so boxes reached through two paths do not fill up: after 1500 frames of swarms the tree
// has no more nodes sharing a box than a build of the same circles.
TEST(Enneatree, ALongRunKeepsEveryCircleOnItsPathFromTheRoot) {
  Simulation sim("spheretest", SceneConfig{}, 3000, 9);
  auto tree = registry().create("enneatree");
  tree->setWorldHint(sim.world());
  tree->build(sim.items());
  liveThrough(*tree, sim, 1500);
  ASSERT_EQ(tree->validate(), "");
  auto built = registry().create("enneatree");
  built->setWorldHint(sim.world());
  built->build(sim.items());
  EXPECT_LE(extraValue(*tree, "nodes_sharing_a_box"), extraValue(*built, "nodes_sharing_a_box"));
}

TEST(Enneatree, StaysLogarithmicOnTheCentreLinesWhereTheFitQuadtreeDoesNot) {
  std::map<std::string, QueryCost> small, large;
  std::vector<std::string> names{"enneatree"};
  if (registry().find("fit-quadtree")) names.push_back("fit-quadtree");
  for (const std::size_t n : {std::size_t(2000), std::size_t(32000)}) {
    Simulation sim("center-lines", SceneConfig{}, n, 21);
    for (const std::string& name : names) {
      auto index = buildOver(name, sim.world(), sim.items());
      (n == 2000 ? small : large)[name] = meanPointQueryCost(*index, sim.world(), 1000, 4);
    }
  }
  // Sixteen times the circles: the enneatree's work grows by a level or so, not sixteenfold.
  EXPECT_LT(large["enneatree"].nodes, small["enneatree"].nodes * 1.6);
  EXPECT_LT(large["enneatree"].candidates, small["enneatree"].candidates * 2.0);
  EXPECT_LT(large["enneatree"].candidates, 20.0);
  if (names.size() > 1) {
    EXPECT_GT(large["fit-quadtree"].candidates, small["fit-quadtree"].candidates * 8.0);
    EXPECT_GT(large["fit-quadtree"].candidates, large["enneatree"].candidates * 100.0);
  }
}

TEST(Enneatree, PairFindingOnTheCentreLinesStaysLocal) {
  // The lines grow with the square root of the count, so circles per unit of line (and overlaps per
  // circle) grow too; what must not grow is the number of exact tests per overlapping pair found.
  std::vector<double> testsPerPair;
  for (const std::size_t n : {std::size_t(2000), std::size_t(32000)}) {
    Simulation sim("center-lines", SceneConfig{}, n, 22);
    auto tree = buildOver("enneatree", sim.world(), sim.items());
    std::vector<Pair> pairs;
    tree->findPairs(pairs);
    ASSERT_GT(pairs.size(), n);
    testsPerPair.push_back(double(tree->lastCounters().candidates) / double(pairs.size()));
  }
  EXPECT_LT(testsPerPair[0], 3.0);
  EXPECT_LT(testsPerPair[1], 3.0);
  EXPECT_LT(testsPerPair[1], testsPerPair[0] * 1.2);
}

TEST(Enneatree, DepthFollowsDiameterAndTheCentreChildComesFirst) {
  auto tree = registry().create("enneatree");
  tree->setWorldHint({{0, 0}, {64, 64}});
  tree->build({});
  // Diameter 2: below a quarter of 64, 32 and 16 but not of 8, so it stops at depth 3 (width 8).
  tree->insert(7, {{32, 32}, 1});
  std::vector<NodeInfo> nodes;
  tree->visitNodes([&](const NodeInfo& node) { nodes.push_back(node); });
  ASSERT_EQ(nodes.size(), 4u);
  for (const NodeInfo& node : nodes) {
    const float width = node.box.max.x - node.box.min.x;
    EXPECT_EQ(width, 64.0f / float(1 << node.depth));
    EXPECT_EQ(node.box.min.x + node.box.max.x, 64.0f) << "every box on the way is a centre child";
    EXPECT_EQ(node.box.min.y + node.box.max.y, 64.0f);
    EXPECT_EQ(node.itemCount, node.depth == 3 ? 1u : 0u);
  }
  // Growing the circle moves it up to the depth of its new diameter, in place.
  tree->update(7, {{32, 32}, 5});  // diameter 10: below 16, not below 8 -> depth 1
  nodes.clear();
  tree->visitNodes([&](const NodeInfo& node) { nodes.push_back(node); });
  ASSERT_EQ(nodes.size(), 2u) << "the emptied deeper nodes are removed";
  for (const NodeInfo& node : nodes) EXPECT_EQ(node.itemCount, node.depth == 1 ? 1u : 0u);
  EXPECT_EQ(tree->validate(), "");
}

TEST(Enneatree, OverlappingChildrenAreVisibleToTheDrawing) {
  auto tree = registry().create("enneatree");
  tree->setWorldHint({{0, 0}, {64, 64}});
  const std::vector<Item> items{{1, {{6, 32}, 1}}, {2, {{32, 32}, 1}}, {3, {{58, 32}, 1}}};
  tree->build(items);
  std::vector<Box> depthOne;
  tree->visitNodes([&](const NodeInfo& node) {
    if (node.depth == 1) depthOne.push_back(node.box);
  });
  ASSERT_EQ(depthOne.size(), 3u);
  std::sort(depthOne.begin(), depthOne.end(), [](const Box& a, const Box& b) { return a.min.x < b.min.x; });
  EXPECT_EQ(depthOne[0].min.x, 0.0f);   // low half
  EXPECT_EQ(depthOne[1].min.x, 16.0f);  // centre half
  EXPECT_EQ(depthOne[2].min.x, 32.0f);  // high half
  for (const Box& box : depthOne) {
    EXPECT_EQ(box.max.x - box.min.x, 32.0f);
    EXPECT_EQ(box.min.y, 16.0f) << "vertically each circle takes the centre half";
  }
  EXPECT_TRUE(boxesOverlap(depthOne[0], depthOne[1]));
  EXPECT_TRUE(boxesOverlap(depthOne[1], depthOne[2]));
}

TEST(Enneatree, PointQueryEntersAFewNodesPerLevel) {
  SceneConfig config;
  config.radiusMin = 0.05;
  config.radiusMax = 40.0;
  Simulation sim("uniform", config, 20000, 12);
  auto tree = buildOver("enneatree", sim.world(), sim.items());
  for (int frame = 0; frame < 10; ++frame) {
    sim.step();
    tree->updateBatch(sim.movedIds(), sim.movedCircles());
  }
  Rng rng(8);
  int most = 0;
  std::map<int, double> totals;
  const int walks = 400;
  for (int q = 0; q < walks; ++q) {
    for (const auto& [depth, visits] : visitsPerDepth(*tree, randomPointIn(rng, sim.world()))) {
      most = std::max(most, visits);
      totals[depth] += visits;
    }
  }
  double meanPerLevel = 0.0;
  for (const auto& [depth, total] : totals) meanPerLevel += total / walks / double(totals.size());
  // Two boxes per axis contain a point at each depth, and one box may be held by two nodes per axis (the
  // high child of one node and the low child of its neighbour): never more than 16.
  EXPECT_LE(most, 16);
  EXPECT_LE(meanPerLevel, 6.0);
}

// -----------------------------------------------------------------------------------------------------------
// Both trees
// -----------------------------------------------------------------------------------------------------------

class SizeAwareTree : public ::testing::TestWithParam<std::string> {};

TEST_P(SizeAwareTree, SmallMovesStayInTheirNode) {
  Simulation sim("uniform", SceneConfig{}, 5000, 31);
  auto tree = buildOver(GetParam(), sim.world(), sim.items());
  Rng rng(2);
  for (ItemId id = 0; id < 5000; ++id) {
    Circle c = tree->circle(id);
    c.center = {c.center.x + c.radius * rng.uniform(-1e-3f, 1e-3f),
                c.center.y + c.radius * rng.uniform(-1e-3f, 1e-3f)};
    tree->update(id, c);
  }
  EXPECT_EQ(tree->validate(), "");
  EXPECT_GT(extraValue(*tree, "update_same_node_share"), 0.97);
  EXPECT_LT(extraValue(*tree, "update_nodes_walked_mean"), 0.2);
}

TEST_P(SizeAwareTree, ExtremeInputAgreesWithTheOracle) {
  auto tree = registry().create(GetParam());
  auto oracle = registry().create("brute");
  const Box world{{0, 0}, {100, 100}};
  tree->setWorldHint(world);
  std::vector<Item> items = {
      {0, {{0, 0}, 1e15f}},      {1, {{-1e15f, 1e15f}, 0}},
      {2, {{1e15f, -1e15f}, 3}}, {3, {{5, 5}, 0}},
      {4, {{5, 5}, 0}},          {5, {{5, 5}, 2}},
      {6, {{50, 50}, 0}},        {7, {{99.99f, 99.99f}, 1e-30f}},
      {8, {{-3, -3}, 2}},        {9, {{100, 100}, 0}},
      {10, {{50, 0}, 50}},       {11, {{-1e15f, -1e15f}, 1e15f}},
  };
  Rng rng(17);
  const QueryArea nearWorld;
  for (ItemId id = 12; id < 400; ++id) items.push_back({id, randomCircle(rng, nearWorld)});
  tree->build(items);
  oracle->build(items);
  const QueryArea everywhere{{{-9e14f, -9e14f}, {9e14f, 9e14f}}, 3e13f};
  ASSERT_EQ(compareWithOracle(*tree, *oracle, rng, nearWorld, 20), "");
  ASSERT_EQ(compareWithOracle(*tree, *oracle, rng, everywhere, 20), "");
  // Shrink the giants, bring the far circles home, send near ones far away.
  for (ItemId id : {0u, 11u}) {
    tree->update(id, {{1, 1}, 0.5f});
    oracle->update(id, {{1, 1}, 0.5f});
  }
  for (ItemId id : {1u, 2u}) {
    tree->update(id, {{20, 80}, 0});
    oracle->update(id, {{20, 80}, 0});
  }
  for (ItemId id = 20; id < 30; ++id) {
    const Circle far{{-8e14f + float(id) * 1e13f, 6e14f}, 1e12f};
    tree->update(id, far);
    oracle->update(id, far);
  }
  ASSERT_EQ(compareWithOracle(*tree, *oracle, rng, nearWorld, 20), "");
  ASSERT_EQ(compareWithOracle(*tree, *oracle, rng, everywhere, 20), "");
}

TEST_P(SizeAwareTree, RemovingEverythingLeavesOnlyTheRoot) {
  Simulation sim("spheretest", SceneConfig{}, 3000, 41);
  auto tree = buildOver(GetParam(), sim.world(), sim.items());
  EXPECT_GT(tree->stats().nodes, 100u);
  for (ItemId id = 0; id < 3000; ++id) tree->remove(id);
  EXPECT_EQ(tree->validate(), "");
  EXPECT_EQ(tree->stats().nodes, 1u);
}

TEST_P(SizeAwareTree, PairPassTestsEachPairOnce) {
  // Identical circles at one point: every pair overlaps, and each must be tested exactly once.
  std::vector<Item> items;
  for (ItemId id = 0; id < 60; ++id) items.push_back({id, {{30, 30}, 1}});
  auto tree = buildOver(GetParam(), {{0, 0}, {100, 100}}, items);
  std::vector<Pair> pairs;
  tree->findPairs(pairs);
  EXPECT_EQ(pairs.size(), 60u * 59u / 2u);
  EXPECT_EQ(tree->lastCounters().candidates, 60u * 59u / 2u);
}

INSTANTIATE_TEST_SUITE_P(Trees, SizeAwareTree, ::testing::Values("radius-tree", "enneatree"),
                         structureTestName);

}  // namespace
}  // namespace st::testing
