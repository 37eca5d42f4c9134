// The frame step and the query shape of frame.hpp, and the promise behind them: a query keeps nothing in
// the structure, so threads can run queries on one structure at once and each gets the answer and the
// counters the same query gets alone on one thread.

#include "spheretest/frame.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "spheretest/frame_runner.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/tasks.hpp"
#include "support/all_structures.hpp"

namespace st::testing {
namespace {

// Random queries of every shape over the simulation's world.
std::vector<Query> makeQueries(const Simulation& sim, std::size_t perShape) {
  Rng rng(99);
  const Box world = sim.world();
  const float side = world.max.x - world.min.x;
  std::vector<Query> queries;
  for (QueryShape shape :
       {QueryShape::Point, QueryShape::Circle, QueryShape::Box, QueryShape::Segment, QueryShape::Cone}) {
    for (std::size_t i = 0; i < perShape; ++i) {
      const Vec2 at{float(rng.uniform(world.min.x, world.max.x)),
                    float(rng.uniform(world.min.y, world.max.y))};
      const double angle = 6.283185307179586 * rng.unit();
      Query q = makeQuery(shape, at, float(rng.uniform(0.01, 0.15)) * side,
                          {float(std::cos(angle)), float(std::sin(angle))});
      q.halfAngle = float(rng.uniform(0.1, 1.4));
      queries.push_back(q);
    }
  }
  return queries;
}

class FrameAndQuery : public ::testing::TestWithParam<std::string> {};

TEST_P(FrameAndQuery, QueriesFromTwoThreadsMatchOneThreadAndBruteForce) {
  Simulation sim("spheretest", SceneConfig{}, 3000, 5);
  std::unique_ptr<SpatialIndex> subject = allStructures().create(GetParam());
  std::unique_ptr<SpatialIndex> brute = allStructures().create("brute");
  subject->setWorldHint(sim.world());
  subject->build(sim.items());
  brute->build(sim.items());
  std::vector<Pair> pairs;
  for (int f = 0; f < 20; ++f) {
    sim.step();
    advanceStructure(*subject, sim, pairs, false);
    advanceStructure(*brute, sim, pairs, false);
  }
  const std::vector<Query> queries = makeQueries(sim, 40);

  // What the queries answer one after another on this thread.
  std::vector<QueryAnswer> plain(queries.size());
  for (std::size_t i = 0; i < queries.size(); ++i) runQuery(*subject, queries[i], plain[i]);

  // The same queries on the const structure from two threads at once, each taking every other query.
  const SpatialIndex& shared = *subject;
  std::vector<QueryAnswer> threaded(queries.size());
  auto half = [&](std::size_t first) {
    for (std::size_t i = first; i < queries.size(); i += 2) runQuery(shared, queries[i], threaded[i]);
  };
  std::thread other(half, 1);
  half(0);
  other.join();

  QueryAnswer expected;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const std::string what = std::string(queryShapeName(queries[i].shape)) + " query " + std::to_string(i);
    runQuery(*brute, queries[i], expected);
    std::vector<ItemId> want = expected.ids, got = threaded[i].ids, recorded = plain[i].ids;
    if (queries[i].shape != QueryShape::Segment) {
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      std::sort(recorded.begin(), recorded.end());
    }
    EXPECT_EQ(got, want) << what;
    EXPECT_EQ(recorded, want) << what;
    EXPECT_EQ(threaded[i].counters.nodesVisited, plain[i].counters.nodesVisited) << what;
    EXPECT_EQ(threaded[i].counters.candidates, plain[i].counters.candidates) << what;
    EXPECT_EQ(threaded[i].counters.exactTests, plain[i].counters.exactTests) << what;
    // A query examines at least the circles it tests exactly, and tests every circle it reports, except
    // the circles of a node wholly inside the query, which some structures accept untested.
    EXPECT_GE(threaded[i].counters.candidates, threaded[i].counters.exactTests) << what;
  }
}

// The figure that tells structures apart: every circle pair the pair search examined, by distance or by
// bounds. Brute force examines them all; every structure examines at least the pairs it finds, tests at
// least those exactly, and no more than it examined.
TEST_P(FrameAndQuery, ThePairSearchCountsThePairsItExaminedAndTheExactTestsAmongThem) {
  Simulation sim("spheretest", SceneConfig{}, 3000, 21);
  std::unique_ptr<SpatialIndex> subject = allStructures().create(GetParam());
  subject->setWorldHint(sim.world());
  subject->build(sim.items());
  std::vector<Pair> pairs;
  for (int f = 0; f < 3; ++f) {
    const FrameResult frame = stepFrame(sim, *subject, pairs);
    EXPECT_GE(frame.pairs.exactTests, pairs.size()) << "frame " << f;
    EXPECT_GE(frame.pairs.candidates, frame.pairs.exactTests) << "frame " << f;
    if (GetParam() == "brute") {
      const std::uint64_t n = sim.circles().size();
      EXPECT_EQ(frame.pairs.candidates, n * (n - 1) / 2) << "frame " << f;
    }
  }
}

// Queries count into the caller's context only: the structure's counters still describe its last pair
// search, and a query's counters are its own whatever ran before it.
TEST_P(FrameAndQuery, AQueryCountsIntoItsContextAndLeavesTheStructuresCountersAlone) {
  Simulation sim("uniform", SceneConfig{}, 2000, 3);
  std::unique_ptr<SpatialIndex> subject = allStructures().create(GetParam());
  subject->setWorldHint(sim.world());
  subject->build(sim.items());
  std::vector<Pair> pairs;
  subject->findPairs(pairs);
  const QueryCounters afterPairs = subject->lastCounters();
  const Query wide = makeQuery(QueryShape::Circle, sim.circles()[0].center, 50.0f);
  const Query narrow = makeQuery(QueryShape::Point, sim.circles()[1].center, 0.0f);
  QueryAnswer first, second, again;
  runQuery(*subject, wide, first);
  runQuery(*subject, narrow, second);
  runQuery(*subject, wide, again);
  EXPECT_EQ(subject->lastCounters().nodesVisited, afterPairs.nodesVisited);
  EXPECT_EQ(subject->lastCounters().candidates, afterPairs.candidates);
  EXPECT_GT(first.counters.candidates, 0u);
  EXPECT_EQ(again.counters.candidates, first.counters.candidates);
  EXPECT_EQ(again.counters.nodesVisited, first.counters.nodesVisited);
}

TEST_P(FrameAndQuery, TheFrameStepCountsTheUpdateAndThePairSearchApart) {
  Simulation sim("spheretest", SceneConfig{}, 2000, 2);
  std::unique_ptr<SpatialIndex> subject = allStructures().create(GetParam());
  subject->setWorldHint(sim.world());
  subject->build(sim.items());
  std::vector<Pair> pairs;
  const FrameResult withPairs = stepFrame(sim, *subject, pairs);
  EXPECT_TRUE(withPairs.pairsSearched);
  EXPECT_EQ(withPairs.pairs.candidates, subject->lastCounters().candidates);
  EXPECT_GE(withPairs.pairs.candidates, pairs.size());
  const FrameResult updateOnly = stepFrame(sim, *subject, pairs, false);
  EXPECT_FALSE(updateOnly.pairsSearched);
  EXPECT_EQ(updateOnly.pairs.candidates, 0u);
  EXPECT_EQ(updateOnly.pairsMs, 0.0);
}

TEST_P(FrameAndQuery, PairsAndCountersAreTheSameOnAnyNumberOfThreads) {
  for (const char* scenario : {"spheretest", "uniform", "center-lines"}) {
    Simulation serialSim(scenario, SceneConfig{}, 4000, 11);
    Simulation pooledSim(scenario, SceneConfig{}, 4000, 11);
    ThreadPool pool(3);
    std::unique_ptr<SpatialIndex> serial = allStructures().create(GetParam());
    std::unique_ptr<SpatialIndex> pooled = allStructures().create(GetParam());
    pooled->setScheduler(&pool);
    for (SpatialIndex* s : {serial.get(), pooled.get()}) {
      s->setWorldHint(serialSim.world());
      s->build(serialSim.items());
    }
    std::vector<Pair> a, b;
    for (int f = 0; f < 12; ++f) {
      const FrameResult one = stepFrame(serialSim, *serial, a);
      const FrameResult many = stepFrame(pooledSim, *pooled, b);
      ASSERT_EQ(a.size(), b.size()) << scenario << " frame " << f;
      EXPECT_EQ(pairSetHash(a), pairSetHash(b)) << scenario << " frame " << f;
      EXPECT_EQ(one.pairs.candidates, many.pairs.candidates) << scenario << " frame " << f;
      EXPECT_EQ(one.pairs.nodesVisited, many.pairs.nodesVisited) << scenario << " frame " << f;
      EXPECT_EQ(one.update.candidates, many.update.candidates) << scenario << " frame " << f;
      EXPECT_EQ(one.update.nodesVisited, many.update.nodesVisited) << scenario << " frame " << f;
    }
    ExtraCounters ea, eb;
    serial->extra(ea);
    pooled->extra(eb);
    EXPECT_EQ(ea, eb) << scenario << ": every figure the report prints";
    EXPECT_EQ(serial->validate(), "");
    EXPECT_EQ(pooled->validate(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(AllStructures, FrameAndQuery, ::testing::ValuesIn(allStructureNames()),
                         structureTestName);

// A narrow cone tests far fewer circles than the disc around it where the structure prunes with the cone
// itself: the view-cone tool's counts are the cone's, not its bounding circle's.
TEST(ConeQueries, PruneWithTheConeNotItsBoundingCircle) {
  Simulation sim("uniform", SceneConfig{}, 20000, 7);
  const Box world = sim.world();
  const Vec2 eye{0.5f * (world.min.x + world.max.x), 0.5f * (world.min.y + world.max.y)};
  Query cone;
  cone.shape = QueryShape::Cone;
  cone.at = eye;
  cone.to = eye + Vec2{0.4f * (world.max.x - world.min.x), 0.0f};
  cone.halfAngle = 0.15f;
  const Query disc = makeQuery(QueryShape::Circle, eye, length(cone.to - eye));
  for (const char* name :
       {"grid", "quadtree", "fit-quadtree", "loose-quadtree", "radius-tree", "enneatree", "aabb-tree"}) {
    std::unique_ptr<SpatialIndex> subject = allStructures().create(name);
    subject->setWorldHint(world);
    subject->build(sim.items());
    QueryAnswer inCone, inDisc;
    runQuery(*subject, cone, inCone);
    runQuery(*subject, disc, inDisc);
    EXPECT_LT(inCone.counters.candidates * 3, inDisc.counters.candidates)
        << name << ": " << inCone.counters.candidates << " cone tests against " << inDisc.counters.candidates
        << " for its disc";
  }
}

// The pairs examined differ from structure to structure on one scene (each prunes its own way), and each is
// well below brute force's n(n-1)/2: the figure measures the structure, not the answer.
TEST(PairsExamined, DifferBetweenStructuresOnOneScene) {
  std::vector<std::uint64_t> examined;
  std::uint64_t pairsFound = 0;
  for (const char* name : {"grid", "quadtree", "sphere-tree", "aabb-tree", "loose-quadtree"}) {
    Simulation sim("spheretest", SceneConfig{}, 3000, 21);
    std::unique_ptr<SpatialIndex> subject = allStructures().create(name);
    subject->setWorldHint(sim.world());
    subject->build(sim.items());
    std::vector<Pair> pairs;
    const FrameResult frame = stepFrame(sim, *subject, pairs);
    if (pairsFound == 0) pairsFound = pairs.size();
    EXPECT_EQ(pairs.size(), pairsFound) << name;
    EXPECT_GT(frame.pairs.candidates, 2 * pairs.size()) << name << ": the examined pairs are not the answer";
    EXPECT_LT(frame.pairs.candidates, 3000u * 2999u / 2u / 10u) << name;
    examined.push_back(frame.pairs.candidates);
  }
  std::vector<std::uint64_t> distinct = examined;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(distinct.size(), examined.size()) << "each structure examines its own number of pairs";
}

TEST(QueryShapeNames, RoundTripAndRejectUnknownNames) {
  for (QueryShape shape :
       {QueryShape::Point, QueryShape::Circle, QueryShape::Box, QueryShape::Segment, QueryShape::Cone}) {
    EXPECT_EQ(parseQueryShape(queryShapeName(shape)), shape);
  }
  EXPECT_EQ(queryShapeName(QueryShape::Segment), std::string("ray"));
  EXPECT_FALSE(parseQueryShape("segment-ish").has_value());
}

TEST(ParallelSimulation, StepsTheSameFramesOnAnyNumberOfThreads) {
  for (const ScenarioInfo& scenario : scenarios()) {
    Simulation serial(scenario.name, SceneConfig{}, 5000, 4);
    Simulation pooled(scenario.name, SceneConfig{}, 5000, 4);
    ThreadPool pool(3);
    pooled.setScheduler(&pool);
    for (int f = 0; f < 400; ++f) {
      serial.step();
      pooled.step();
      ASSERT_EQ(std::vector<ItemId>(serial.movedIds().begin(), serial.movedIds().end()),
                std::vector<ItemId>(pooled.movedIds().begin(), pooled.movedIds().end()))
          << scenario.name << " frame " << f;
      ASSERT_TRUE(std::equal(serial.movedCircles().begin(), serial.movedCircles().end(),
                             pooled.movedCircles().begin(), pooled.movedCircles().end()))
          << scenario.name << " frame " << f;
    }
    EXPECT_EQ(serial.circles(), pooled.circles()) << scenario.name;
  }
}

TEST(ThreadPool, RunsEveryRangeOnceAndPassesExceptionsOn) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.workerCount(), 4u);
  for (int round = 0; round < 50; ++round) {
    std::vector<int> hits(1000, 0);
    pool.parallelFor(hits.size(), 7, [&](std::size_t begin, std::size_t end, unsigned worker) {
      EXPECT_LT(worker, 4u);
      for (std::size_t i = begin; i < end; ++i) ++hits[i];
    });
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 1000) << "round " << round;
  }
  EXPECT_THROW(pool.parallelFor(100, 1,
                                [](std::size_t begin, std::size_t, unsigned) {
                                  if (begin == 42) throw InvalidInput("range 42");
                                }),
               InvalidInput);
  // The pool still works after a failed loop.
  std::atomic<std::size_t> sum{0};
  pool.parallelFor(10, 1, [&](std::size_t begin, std::size_t, unsigned) { sum += begin; });
  EXPECT_EQ(sum.load(), 45u);
}

TEST(FormatCount, GroupsThousands) {
  EXPECT_EQ(formatCount(0), "0");
  EXPECT_EQ(formatCount(999), "999");
  EXPECT_EQ(formatCount(20000), "20,000");
  EXPECT_EQ(formatCount(1234567), "1,234,567");
}

// The frame runner steps its structures through the same frames as a hand-written loop of stepFrame would:
// the same pair sets frame by frame, the same counters, one timing per frame, and brute force and a grid
// agreeing on every frame.
TEST(FrameRunner, StepsEveryStructureThroughTheSameFramesAsAHandWrittenLoop) {
  Simulation runnerSim("spheretest", SceneConfig{}, 1500, 4);
  Simulation loopSim = runnerSim;
  ThreadPool pool(2);
  FrameRunner runner(runnerSim, &pool);
  runner.add("brute", allStructures().create("brute"));
  runner.add("grid", allStructures().create("grid"));
  std::unique_ptr<SpatialIndex> grid = allStructures().create("grid");
  grid->setWorldHint(loopSim.world());
  grid->build(loopSim.items());
  grid->maintain();
  std::vector<Pair> pairs;
  std::uint64_t candidates = 0, checksum = 0;
  std::size_t calls = 0;
  for (int frame = 0; frame < 12; ++frame) {
    runner.step(true, [&](std::size_t) { ++calls; });
    const FrameResult result = stepFrame(loopSim, *grid, pairs);
    candidates += result.pairs.candidates;
    checksum = foldFrameChecksum(checksum, pairSetHash(pairs));
  }
  EXPECT_EQ(calls, 24u);
  ASSERT_EQ(runner.frames(), 12u);
  const FrameTrack& brute = runner.tracks()[0];
  const FrameTrack& runGrid = runner.tracks()[1];
  EXPECT_EQ(runGrid.name, "grid");
  EXPECT_EQ(runGrid.frameHashes, brute.frameHashes) << "brute force and the grid agree on every frame";
  EXPECT_EQ(runGrid.pairsChecksum, checksum);
  EXPECT_EQ(runGrid.pairCounters.candidates, candidates);
  EXPECT_EQ(runGrid.pairsLastFrame, pairs.size());
  EXPECT_EQ(runGrid.updateMs.size(), 12u);
  EXPECT_EQ(runGrid.pairsMs.size(), 12u);
  EXPECT_EQ(brute.pairCounters.candidates, 12u * 1500u * 1499u / 2u);
  // Without the pair search the runner records no pair sets.
  runner.step(false);
  EXPECT_EQ(runner.tracks()[1].frameHashes.size(), 12u);
  EXPECT_EQ(runner.tracks()[1].updateMs.size(), 13u);
}

TEST(FrameRunner, TakesAStructureItsCallerBuiltAndSwitchesThreadPoolsBetweenFrames) {
  Simulation alternating("spheretest", SceneConfig{}, 1200, 9);
  Simulation steady = alternating;
  ThreadPool one(1), two(2);
  FrameRunner runner(alternating, &one);
  std::unique_ptr<SpatialIndex> tree = allStructures().create("aabb-tree");
  tree->setWorldHint(alternating.world());
  tree->build(alternating.items());
  runner.addBuilt("aabb-tree", std::move(tree));
  EXPECT_EQ(runner.track(0).buildMs, 0.0) << "the caller timed its own build";
  FrameRunner reference(steady, &two);
  reference.add("aabb-tree", allStructures().create("aabb-tree"));
  for (int frame = 0; frame < 10; ++frame) {
    runner.setScheduler(frame % 2 ? &two : &one);
    runner.step();
    reference.step();
    const FrameTrack& track = runner.track(0);
    EXPECT_EQ(track.last.pairsSearched, true);
    EXPECT_EQ(track.last.updateMs, track.updateMs.back());
    EXPECT_EQ(track.last.pairs.candidates, reference.track(0).last.pairs.candidates);
    EXPECT_GE(runner.lastSimulateMs(), 0.0);
  }
  // The thread count changes nothing in what the structure finds.
  EXPECT_EQ(runner.track(0).frameHashes, reference.track(0).frameHashes);
  EXPECT_EQ(runner.track(0).pairsChecksum, reference.track(0).pairsChecksum);
}

// Fed by its caller (a comparison panel on another thread's scene): the circles that moved go to every
// structure, a track can leave its pair search out, and a structure that throws is marked and skipped while
// the others go on.
TEST(FrameRunner, AdvancesOnTheCirclesItsCallerHandsItAndSkipsAStructureThatThrew) {
  Simulation sim("spheretest", SceneConfig{}, 900, 4);
  FrameRunner runner;
  const std::size_t grid = runner.add("grid", allStructures().create("grid"), sim.items(), sim.world());
  const std::size_t brute = runner.add("brute", allStructures().create("brute"), sim.items(), sim.world());
  EXPECT_GT(runner.track(grid).buildMs, 0.0);
  EXPECT_THROW(runner.step(), std::logic_error) << "no simulation to step";
  for (int frame = 0; frame < 5; ++frame) {
    sim.step();
    runner.advance(sim.movedIds(), sim.movedCircles(), true);
  }
  EXPECT_EQ(runner.track(grid).frameHashes, runner.track(brute).frameHashes);
  EXPECT_EQ(runner.track(grid).frameHashes.size(), 5u);

  runner.track(brute).searchPairs = false;
  sim.step();
  runner.advance(sim.movedIds(), sim.movedCircles(), true);
  EXPECT_TRUE(runner.track(grid).last.pairsSearched);
  EXPECT_FALSE(runner.track(brute).last.pairsSearched);

  const std::vector<ItemId> ids{3};
  const std::vector<Circle> bad{Circle{{std::nanf(""), 0.0f}, 1.0f}};
  runner.advance(ids, bad, true);
  EXPECT_FALSE(runner.track(grid).failure.empty());
  EXPECT_FALSE(runner.track(brute).failure.empty());
  const std::size_t frames = runner.track(grid).updateMs.size();
  sim.step();
  runner.advance(sim.movedIds(), sim.movedCircles(), true);
  EXPECT_EQ(runner.track(grid).updateMs.size(), frames) << "a structure that threw is skipped";
}

}  // namespace
}  // namespace st::testing
