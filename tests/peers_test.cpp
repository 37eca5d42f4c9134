// Claims specific to the peer wrappers (the differential harness covers their general exactness): Box2D's
// pair cache, fat margins and conservative ray walk, Boost's packing versus re-insertion, extreme and
// degenerate input, and equality with brute force on the simulation's own frames.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "spheretest/oracle_check.hpp"
#include "spheretest/peers.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/structures.hpp"
#include "support/all_structures.hpp"
#include "support/extra_figures.hpp"

namespace st::testing {
namespace {

std::unique_ptr<SpatialIndex> makePeer(const std::string& name) {
  StructureRegistry registry;
  registerPeerStructures(registry);
  return registry.create(name);
}

std::vector<Pair> sortedPairs(SpatialIndex& index) {
  std::vector<Pair> pairs;
  index.findPairs(pairs);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::vector<Item> uniformItems(std::size_t n, float side, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Item> items;
  for (std::size_t i = 0; i < n; ++i) {
    items.push_back(
        {static_cast<ItemId>(i), {{rng.uniform(0, side), rng.uniform(0, side)}, rng.uniform(0.5f, 4.0f)}});
  }
  return items;
}

// ---------------------------------------------------------------------------------------------------------
// Both peers
// ---------------------------------------------------------------------------------------------------------

TEST(PeerRegistry, BothPeersAreRegisteredAsPeers) {
  StructureRegistry registry;
  registerPeerStructures(registry);
  ASSERT_EQ(registry.all().size(), 2u);
  for (const StructureInfo& info : registry.all()) {
    EXPECT_TRUE(info.peer) << info.name;
    EXPECT_FALSE(info.create()->description().empty()) << info.name;
  }
  EXPECT_NE(registry.find("box2d-tree"), nullptr);
  EXPECT_NE(registry.find("boost-rtree"), nullptr);
}

// The peer libraries report only the leaves (values) a query reaches, so their "nodes visited" would count
// something else: they say so, and every structure of our own counts them.
TEST(PeerRegistry, PeersSayWhyTheyCannotCountTheNodesAQueryVisits) {
  StructureRegistry peers;
  registerPeerStructures(peers);
  for (const StructureInfo& info : peers.all())
    EXPECT_FALSE(info.create()->nodesNotCounted().empty()) << info.name;
  const StructureRegistry core = StructureRegistry::withCoreStructures();
  for (const StructureInfo& info : core.all())
    EXPECT_TRUE(info.create()->nodesNotCounted().empty()) << info.name;
}

// Box2D's tree tests fat boxes it never reports, so its circles and pairs examined are lower bounds and it
// says so; the Boost R-tree's counting predicate sees every value it compares, and so does every structure
// of our own.
TEST(PeerRegistry, OnlyBox2dsExaminedFiguresAreLowerBounds) {
  StructureRegistry peers;
  registerPeerStructures(peers);
  for (const StructureInfo& info : peers.all())
    EXPECT_EQ(info.create()->examinedLowerBound().empty(), info.name != "box2d-tree") << info.name;
  const StructureRegistry core = StructureRegistry::withCoreStructures();
  for (const StructureInfo& info : core.all())
    EXPECT_TRUE(info.create()->examinedLowerBound().empty()) << info.name;
}

class Peer : public ::testing::TestWithParam<std::string> {};

TEST_P(Peer, SimulationFramesFindTheSamePairsAsBruteForce) {
  for (const char* scene : {"spheretest", "uniform", "center-lines"}) {
    Simulation sim(scene, SceneConfig{}, 1500, 11);
    auto peer = makePeer(GetParam());
    auto brute = makeBruteForce();
    peer->setWorldHint(sim.world());
    peer->build(sim.items());
    brute->build(sim.items());
    for (int frame = 0; frame < 40; ++frame) {
      sim.step();
      for (SpatialIndex* index : {peer.get(), brute.get()}) {
        index->updateBatch(sim.movedIds(), sim.movedCircles());
        index->maintain();
      }
      ASSERT_EQ(sortedPairs(*peer), sortedPairs(*brute)) << GetParam() << " " << scene << " frame " << frame;
      if (frame % 10 == 9) {
        ASSERT_EQ(peer->validate(), "") << scene << " frame " << frame;
      }
    }
  }
}

TEST_P(Peer, ExtremeCoordinatesZeroRadiiAndTouchingCirclesAreExact) {
  const std::vector<Item> items = {
      {0, {{0, 0}, 1}},  // touches item 1 at (1, 0)
      {1, {{2, 0}, 1}},
      {2, {{-1e15f, -1e15f}, 0}},  // a point at the far corner
      {3, {{-1e15f, -1e15f}, 0}},  // the same point again
      {4, {{1e15f, 0}, 1e15f}},    // reaches back to the origin
      {5, {{5e14f, 3e14f}, 2.5e14f}},
      {6, {{7, 7}, 0}},
      {7, {{7, 7}, 0.5f}},
      {8, {{1e6f, 1e6f}, 3}},
      {9, {{1e6f + 6, 1e6f}, 3}},  // touches item 8
  };
  auto peer = makePeer(GetParam());
  auto brute = makeBruteForce();
  peer->setWorldHint({{0, 0}, {100, 100}});
  peer->build(items);
  brute->build(items);
  const std::vector<Pair> pairs = sortedPairs(*peer);
  EXPECT_EQ(pairs, sortedPairs(*brute));
  EXPECT_TRUE(std::find(pairs.begin(), pairs.end(), Pair{0, 1}) != pairs.end()) << "touching circles overlap";
  EXPECT_TRUE(std::find(pairs.begin(), pairs.end(), Pair{2, 3}) != pairs.end())
      << "coincident points overlap";
  EXPECT_TRUE(std::find(pairs.begin(), pairs.end(), Pair{8, 9}) != pairs.end())
      << "touching far from the origin";

  std::vector<ItemId> got, want;
  for (const Vec2 p : {Vec2{1, 0}, Vec2{-1e15f, -1e15f}, Vec2{0, 0}, Vec2{7, 7}, Vec2{1e6f + 3, 1e6f}}) {
    peer->queryPoint(p, got);
    brute->queryPoint(p, want);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "point " << p.x << "," << p.y;
  }
  // Rays grazing a rim, crossing the whole coordinate range, and far from the origin.
  for (const Segment s : {Segment{{-5, 1}, {5, 1}}, Segment{{-1e15f, -1e15f}, {1e15f, 1e15f}},
                          Segment{{1e6f - 10, 1e6f + 3}, {1e6f + 20, 1e6f + 3}}, Segment{{7, 7}, {7, 7}}}) {
    std::vector<RayHit> hits, wantHits;
    peer->rayCast(s, hits);
    brute->rayCast(s, wantHits);
    ASSERT_EQ(hits.size(), wantHits.size());
    for (std::size_t i = 0; i < hits.size(); ++i) {
      EXPECT_EQ(hits[i].id, wantHits[i].id);
      EXPECT_EQ(hits[i].t, wantHits[i].t);
    }
    const auto first = peer->rayCastFirst(s);
    const auto wantFirst = brute->rayCastFirst(s);
    ASSERT_EQ(first.has_value(), wantFirst.has_value());
    if (first) {
      EXPECT_EQ(first->id, wantFirst->id);
    }
  }
  Rng rng(3);
  QueryArea huge;
  huge.box = {{-5e14f, -5e14f}, {5e14f, 5e14f}};  // queries reach at most 3 * maxSize beyond it: within 1e15
  huge.maxSize = 1.5e14f;
  EXPECT_EQ(compareWithOracle(*peer, *brute, rng, huge, 30), "");
}

TEST_P(Peer, TracedQueriesRecordVisitsAndEveryExactTest) {
  const std::vector<Item> items = uniformItems(400, 100, 5);
  auto peer = makePeer(GetParam());
  peer->build(items);
  QueryTrace trace;
  QueryContext traced;
  traced.trace = &trace;
  std::vector<ItemId> found;
  peer->queryCircle({{50, 50}, 10}, found, &traced);
  std::size_t visits = 0, tests = 0, hits = 0;
  for (const TraceEvent& e : trace.events) {
    visits += e.kind == TraceEventKind::VisitNode;
    tests += e.kind == TraceEventKind::Candidate || e.kind == TraceEventKind::Hit;
    hits += e.kind == TraceEventKind::Hit;
  }
  EXPECT_GT(visits, 0u);
  EXPECT_EQ(tests, traced.counters.exactTests);
  EXPECT_GE(traced.counters.candidates, tests) << "every circle tested exactly was examined";
  EXPECT_EQ(hits, found.size());
  EXPECT_GT(found.size(), 0u);
}

TEST_P(Peer, NodesStatsAndMemoryDescribeTheStoredItems) {
  const std::vector<Item> items = uniformItems(3000, 400, 9);
  auto peer = makePeer(GetParam());
  peer->build(items);
  std::size_t stored = 0, nodes = 0;
  peer->visitNodes([&](const NodeInfo& node) {
    stored += node.itemCount;
    ++nodes;
  });
  EXPECT_EQ(stored, items.size());
  const IndexStats stats = peer->stats();
  EXPECT_GE(stats.nodes, nodes);
  EXPECT_GT(stats.maxDepth, 1);
  EXPECT_GT(stats.memoryBytes, items.size() * (sizeof(Circle) + 16));
}

// The inspector's path: from the root (depth 0) down to a leaf that holds the circle's box.
TEST_P(Peer, PathToACircleGoesFromTheRootToItsLeaf) {
  const std::vector<Item> items = uniformItems(3000, 400, 12);
  auto peer = makePeer(GetParam());
  peer->build(items);
  for (ItemId id : {ItemId{0}, ItemId{1500}, ItemId{2999}}) {
    std::vector<NodeInfo> path;
    peer->visitPathTo(id, [&](const NodeInfo& node) { path.push_back(node); });
    ASSERT_GE(path.size(), 2u) << id;
    for (std::size_t k = 0; k < path.size(); ++k) {
      EXPECT_EQ(path[k].depth, static_cast<int>(k));
      if (k > 0) {
        EXPECT_TRUE(boxContains(path[k - 1].box, path[k].box));
      }
    }
    EXPECT_GE(path.back().itemCount, 1u);
    EXPECT_TRUE(boxContains(path.back().box, boundsOf(items[id].circle))) << id;
  }
  EXPECT_FALSE(peer->nodeRule().empty());
}

INSTANTIATE_TEST_SUITE_P(BothPeers, Peer, ::testing::Values("box2d-tree", "boost-rtree"), structureTestName);

// ---------------------------------------------------------------------------------------------------------
// Box2D: fat boxes, move buffer and contact cache
// ---------------------------------------------------------------------------------------------------------

TEST(Box2dTree, ASettledFramePairsFromTheCacheWithoutTreeQueries) {
  const std::vector<Item> items = uniformItems(500, 120, 21);
  auto tree = makePeer("box2d-tree");
  auto brute = makeBruteForce();
  tree->build(items);
  brute->build(items);
  const std::vector<Pair> first = sortedPairs(*tree);
  EXPECT_EQ(extraValue(*tree, "proxies_requeried_last_pairs"), 500.0) << "every new proxy queries once";
  EXPECT_EQ(first, sortedPairs(*brute));
  EXPECT_EQ(sortedPairs(*tree), first);
  EXPECT_EQ(extraValue(*tree, "proxies_requeried_last_pairs"), 0.0);
  EXPECT_EQ(tree->lastCounters().nodesVisited, 0u) << "nothing moved, so the tree is not walked";
  EXPECT_EQ(tree->lastCounters().candidates, static_cast<std::uint64_t>(extraValue(*tree, "contacts")));
  EXPECT_GE(extraValue(*tree, "contacts"), double(first.size()));
}

// The drawing shows Box2D's inner nodes too, not only its leaves: every node of the tree once, each child's
// box inside its parent's, as deep as the tree's height; and the path to a circle ends at its own leaf.
TEST(Box2dTree, NodesIncludeTheInnerNodesAndPathsEndAtTheLeaf) {
  const std::vector<Item> items = uniformItems(2000, 300, 4);
  auto peer = makePeer("box2d-tree");
  peer->build(items);
  std::size_t nodes = 0, leaves = 0;
  int deepest = 0;
  std::vector<NodeInfo> ancestors;  // the nodes from the root to the one visited, as the walk goes down
  peer->visitNodes([&](const NodeInfo& node) {
    ++nodes;
    leaves += node.itemCount;
    deepest = std::max(deepest, node.depth);
    ASSERT_LE(node.depth, static_cast<int>(ancestors.size()));
    ancestors.resize(static_cast<std::size_t>(node.depth));
    if (!ancestors.empty()) {
      EXPECT_TRUE(boxContains(ancestors.back().box, node.box));
    }
    ancestors.push_back(node);
  });
  EXPECT_EQ(leaves, items.size());
  EXPECT_EQ(nodes, 2 * items.size() - 1);
  EXPECT_EQ(deepest, peer->stats().maxDepth);

  for (ItemId id : {ItemId{0}, ItemId{777}, ItemId{1999}}) {
    std::vector<NodeInfo> path;
    peer->visitPathTo(id, [&](const NodeInfo& node) { path.push_back(node); });
    ASSERT_GE(path.size(), 2u) << id;
    for (std::size_t k = 0; k < path.size(); ++k) EXPECT_EQ(path[k].depth, static_cast<int>(k));
    EXPECT_EQ(path.back().itemCount, 1u);
    EXPECT_TRUE(boxContains(path.back().box, boundsOf(items[id].circle))) << id;
    EXPECT_TRUE(boxContains(path.front().box, path.back().box)) << id;
  }
  EXPECT_FALSE(peer->nodeRule().empty());
}

TEST(Box2dTree, MovesInsideTheFatMarginCostNoReinsertion) {
  const std::vector<Item> items = uniformItems(500, 120, 22);
  auto tree = makePeer("box2d-tree");
  auto brute = makeBruteForce();
  tree->build(items);
  brute->build(items);
  sortedPairs(*tree);
  std::vector<ItemId> ids;
  std::vector<Circle> moved;
  for (const Item& item : items) {
    ids.push_back(item.id);
    moved.push_back({{item.circle.center.x + 0.04f, item.circle.center.y - 0.04f}, item.circle.radius});
  }
  tree->updateBatch(ids, moved);
  brute->updateBatch(ids, moved);
  EXPECT_EQ(sortedPairs(*tree), sortedPairs(*brute));
  EXPECT_EQ(extraValue(*tree, "reinsert_fraction_last_frame"), 0.0);
  EXPECT_EQ(extraValue(*tree, "proxies_requeried_last_pairs"), 0.0);
  EXPECT_EQ(tree->validate(), "");
}

TEST(Box2dTree, ContactsAreDroppedOnceFatBoxesSeparateAndOnRemoval) {
  auto tree = makePeer("box2d-tree");
  tree->build(std::vector<Item>{{1, {{0, 0}, 1}}, {2, {{1.5f, 0}, 1}}, {3, {{40, 40}, 1}}});
  EXPECT_EQ(sortedPairs(*tree), (std::vector<Pair>{{1, 2}}));
  EXPECT_EQ(extraValue(*tree, "contacts"), 1.0);
  tree->update(2, {{20, 0}, 1});
  EXPECT_TRUE(sortedPairs(*tree).empty());
  EXPECT_EQ(extraValue(*tree, "contacts"), 0.0);
  tree->update(3, {{0, 1.5f}, 1});
  EXPECT_EQ(sortedPairs(*tree), (std::vector<Pair>{{1, 3}}));
  tree->remove(3);
  EXPECT_EQ(extraValue(*tree, "contacts"), 0.0);
  EXPECT_EQ(tree->validate(), "");
  EXPECT_TRUE(sortedPairs(*tree).empty());
}

TEST(Box2dTree, RaysFarFromTheOriginFallBackToBoxQueriesAndStayExact) {
  auto tree = makePeer("box2d-tree");
  auto brute = makeBruteForce();
  std::vector<Item> items = uniformItems(300, 100, 31);
  tree->build(items);
  std::vector<RayHit> hits;
  tree->rayCast({{0, 50}, {100, 60}}, hits);
  EXPECT_EQ(extraValue(*tree, "ray_fallbacks"), 0.0) << "near the origin Box2D's own ray walk is used";
  for (Item& item : items) item.circle.center = {item.circle.center.x + 3e5f, item.circle.center.y - 3e5f};
  tree->build(items);
  brute->build(items);
  std::vector<RayHit> want;
  for (int i = 0; i < 20; ++i) {
    const Segment s{{3e5f, -3e5f + 5.0f * float(i)}, {3e5f + 100, -3e5f + 100 - 5.0f * float(i)}};
    tree->rayCast(s, hits);
    brute->rayCast(s, want);
    ASSERT_EQ(hits.size(), want.size());
    for (std::size_t k = 0; k < hits.size(); ++k) EXPECT_EQ(hits[k].id, want[k].id);
  }
  EXPECT_EQ(extraValue(*tree, "ray_fallbacks"), 20.0);
}

TEST(Box2dTree, MetreScaleParameterKeepsFramesExact) {
  for (double scaleLog2 : {-5.0, 3.0}) {
    Simulation sim("spheretest", SceneConfig{}, 800, 4);
    auto tree = makePeer("box2d-tree");
    auto brute = makeBruteForce();
    tree->setParam("scale_log2", scaleLog2);
    tree->build(sim.items());
    brute->build(sim.items());
    for (int frame = 0; frame < 20; ++frame) {
      sim.step();
      tree->updateBatch(sim.movedIds(), sim.movedCircles());
      brute->updateBatch(sim.movedIds(), sim.movedCircles());
      ASSERT_EQ(sortedPairs(*tree), sortedPairs(*brute)) << "scale_log2 " << scaleLog2 << " frame " << frame;
    }
    EXPECT_EQ(tree->validate(), "");
  }
}

// ---------------------------------------------------------------------------------------------------------
// Boost: packing and re-insertion
// ---------------------------------------------------------------------------------------------------------

TEST(BoostRtree, LargeBatchesRepackAndSmallBatchesReinsert) {
  const std::vector<Item> items = uniformItems(1000, 250, 41);
  auto tree = makePeer("boost-rtree");
  auto brute = makeBruteForce();
  tree->build(items);
  brute->build(items);
  auto moveFirst = [&](std::size_t count, float dx) {
    std::vector<ItemId> ids;
    std::vector<Circle> circles;
    for (std::size_t i = 0; i < count; ++i) {
      Circle c = brute->circle(static_cast<ItemId>(i));
      c.center.x += dx;
      ids.push_back(static_cast<ItemId>(i));
      circles.push_back(c);
    }
    tree->updateBatch(ids, circles);
    brute->updateBatch(ids, circles);
  };
  moveFirst(500, 1.0f);  // half the items: more than the default 10% repacks
  EXPECT_EQ(extraValue(*tree, "repacks"), 1.0);
  EXPECT_EQ(sortedPairs(*tree), sortedPairs(*brute));
  moveFirst(30, 2.0f);  // 3%: removed and re-inserted one by one
  EXPECT_EQ(extraValue(*tree, "repacks"), 1.0);
  EXPECT_EQ(extraValue(*tree, "reinserted_last_batch"), 30.0);
  EXPECT_EQ(sortedPairs(*tree), sortedPairs(*brute));
  EXPECT_EQ(tree->validate(), "");
  tree->setParam("repack_fraction", 1.0);  // never repack
  moveFirst(1000, -3.0f);
  EXPECT_EQ(extraValue(*tree, "repacks"), 1.0);
  EXPECT_EQ(extraValue(*tree, "reinserted_last_batch"), 1000.0);
  EXPECT_EQ(sortedPairs(*tree), sortedPairs(*brute));
  EXPECT_EQ(tree->validate(), "");
}

}  // namespace
}  // namespace st::testing
