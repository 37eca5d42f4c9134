// Every tree with a pair view answers plain queries from it right after a pair search (view_queries): the
// walk must take the view then, and only then, and give brute force's answers either way.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "spheretest/oracle_check.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/structures.hpp"

#include "support/all_structures.hpp"

namespace st::testing {
namespace {

std::vector<std::string> treesWithViews() {
  std::vector<std::string> names;
  for (const std::string& name : allStructureNames()) {
    const auto index = allStructures().create(name);
    const auto& params = index->params();
    if (std::any_of(params.begin(), params.end(), [](const ParamInfo& p) { return p.key == "view_queries"; }))
      names.push_back(name);
  }
  return names;
}

class ViewQueries : public ::testing::TestWithParam<std::string> {};

// Nodes visited by circle queries at fixed places, with or without asking for the tree's own figures.
std::uint64_t nodesWalked(const SpatialIndex& index, const std::vector<Vec2>& probes, bool withDetail) {
  std::uint64_t nodes = 0;
  std::vector<ItemId> out;
  for (const Vec2 p : probes) {
    QueryDetail detail;
    QueryContext ctx;
    if (withDetail) ctx.detail = &detail;
    index.queryCircle({p, 12.0f}, out, &ctx);
    nodes += ctx.counters.nodesVisited;
  }
  return nodes;
}

TEST(ViewQueriesAcrossStructures, TheTreesWhoseViewsAnswerFasterDeclareIt) {
  const std::vector<std::string> names = treesWithViews();
  for (const char* tree :
       {"quadtree", "fit-quadtree", "loose-quadtree", "radius-tree", "enneatree", "aabb-tree"})
    EXPECT_NE(std::find(names.begin(), names.end(), tree), names.end()) << tree;
  // The sphere tree finds its top-level spheres through a grid; its view lists them flat below the root,
  // and a walk of it took twice as long.
  EXPECT_EQ(std::find(names.begin(), names.end(), "sphere-tree"), names.end());
}

TEST_P(ViewQueries, PlainQueriesWalkTheViewOnlyWhileItIsCurrentAndAnswerAsBruteForce) {
  const SceneConfig config;
  Simulation sim("spheretest", config, 3000, 5);
  auto subject = allStructures().create(GetParam());
  auto oracle = makeBruteForce();
  subject->setWorldHint(sim.world());
  subject->build(sim.items());
  liveThrough(*subject, sim, 3);
  oracle->build(sim.items());
  Rng rng(11);
  std::vector<Vec2> probes;
  for (int k = 0; k < 60; ++k)
    probes.push_back({rng.uniform(sim.world().min.x, sim.world().max.x),
                      rng.uniform(sim.world().min.y, sim.world().max.y)});
  EXPECT_EQ(nodesWalked(*subject, probes, false), nodesWalked(*subject, probes, true))
      << "no pair search yet: both walk the tree";
  std::vector<Pair> pairs;
  subject->findPairs(pairs);
  EXPECT_NE(nodesWalked(*subject, probes, false), nodesWalked(*subject, probes, true))
      << "right after the pair search plain queries walk the view";
  // compareWithOracle queries, then searches pairs, then queries again from what the search laid out.
  const QueryArea area{sim.world(), 40.0f};
  EXPECT_EQ(compareWithOracle(*subject, *oracle, rng, area, 80, true), "");
  // A move makes the view stale: the tree walks itself, and still agrees.
  const Circle there{{sim.world().min.x + 5.0f, sim.world().min.y + 5.0f}, 2.0f};
  subject->update(7, there);
  oracle->update(7, there);
  EXPECT_EQ(nodesWalked(*subject, probes, false), nodesWalked(*subject, probes, true));
  EXPECT_EQ(compareWithOracle(*subject, *oracle, rng, area, 40, true), "");
  // Off, plain queries walk the tree even while the view is current.
  subject->setParam("view_queries", 0);
  subject->findPairs(pairs);
  EXPECT_EQ(nodesWalked(*subject, probes, false), nodesWalked(*subject, probes, true));
  EXPECT_EQ(compareWithOracle(*subject, *oracle, rng, area, 40, true), "");
}

INSTANTIATE_TEST_SUITE_P(Trees, ViewQueries, ::testing::ValuesIn(treesWithViews()), structureTestName);

}  // namespace
}  // namespace st::testing
