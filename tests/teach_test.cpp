// The teaching features without a window: every structure has an explanation with the sections the Explain
// panel promises; each source document's claim, measured as the Claims panel measures it, says what the
// document says; a recorded walk steps to the structure's own counters; the comparison bench agrees with
// brute force; the CSV export and the start-up requests parse as documented.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>
#include <thread>

#include "render/camera.hpp"
#include "spheretest/peers.hpp"
#include "spheretest/registry.hpp"
#include "measure/claims_measure.hpp"
#include "ui/model/compare_runner.hpp"
#include "ui/model/teach_content.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/panels/part_names.hpp"
#include "ui/teaching/teach_background.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
// The measurements behind each claim live beside core, outside the UI.
using namespace st::claims;

namespace {

const StructureRegistry& registry() {
  static const StructureRegistry r = [] {
    StructureRegistry all = StructureRegistry::withCoreStructures();
    registerPeerStructures(all);
    return all;
  }();
  return r;
}

std::unique_ptr<DemoModel> makeModel(std::size_t count, const std::string& structure,
                                     const std::string& scenario = "spheretest") {
  SceneSetup setup;
  setup.count = count;
  setup.scenario = scenario;
  auto simulation = std::make_unique<Simulation>(setup.scenario, setup.config, setup.count, setup.seed);
  return std::make_unique<DemoModel>(
      registry(), [](const std::string& name) { return registry().create(name); }, std::move(simulation),
      setup, structure);
}

// ---------------------------------------------------------------------------------------------------------
// Explanations
// ---------------------------------------------------------------------------------------------------------

TEST(Explanations, EveryStructureHasOneWithTheFourSectionsInOrder) {
  for (const StructureInfo& info : registry().all()) {
    SCOPED_TRACE(info.name);
    const std::string text = loadAssetText(explanationPath(info.name));
    ASSERT_FALSE(text.empty()) << "assets/" << explanationPath(info.name) << " is missing";
    const std::vector<TextBlock> blocks = parseExplanation(text);
    ASSERT_FALSE(blocks.empty());
    EXPECT_EQ(blocks.front().kind, TextBlock::Kind::Title);
    const std::vector<std::string> titles = sectionTitles(blocks);
    std::size_t at = 0;
    for (const char* wanted : explanationSections()) {
      const auto found = std::find(titles.begin() + long(at), titles.end(), wanted);
      ASSERT_NE(found, titles.end()) << "section '" << wanted << "' missing or out of order";
      at = std::size_t(found - titles.begin()) + 1;
    }
    // Every section has text under it, and the cost section names insert, update and query costs.
    std::string section, cost, source;
    std::map<std::string, std::size_t> words;
    for (const TextBlock& b : blocks) {
      if (b.kind == TextBlock::Kind::Section) {
        section = b.text;
        continue;
      }
      words[section] += b.text.size();
      if (section == "Cost") cost += b.text + "\n";
      if (section == "Source document") source += b.text;
    }
    for (const std::string& title : titles)
      EXPECT_GT(words[title], 40u) << "section '" << title << "' is nearly empty";
    for (const char* operation : {"Insert", "Update", "Query"}) {
      EXPECT_NE(cost.find(operation), std::string::npos) << "the cost section does not mention " << operation;
    }
    // The registry's source document is named in the section about it.
    if (!info.source.empty()) {
      EXPECT_NE(source.find(info.source), std::string::npos) << source;
    }
  }
}

TEST(Explanations, MarkdownSubsetParses) {
  const std::vector<TextBlock> blocks = parseExplanation(
      "# Title\n\nA paragraph\nover two lines with `code`.\n\n## Cost\n\n- **Insert**: O(1),\n  continued "
      "here.\n- Query: O(log n)\n\nAfter the list.\n");
  ASSERT_EQ(blocks.size(), 6u);
  EXPECT_EQ(blocks[0].kind, TextBlock::Kind::Title);
  EXPECT_EQ(blocks[0].text, "Title");
  EXPECT_EQ(blocks[1].kind, TextBlock::Kind::Paragraph);
  EXPECT_EQ(blocks[1].text, "A paragraph over two lines with code.");
  EXPECT_EQ(blocks[2].kind, TextBlock::Kind::Section);
  EXPECT_EQ(blocks[3].kind, TextBlock::Kind::Bullet);
  EXPECT_EQ(blocks[3].text, "Insert: O(1), continued here.");
  EXPECT_EQ(blocks[4].text, "Query: O(log n)");
  EXPECT_EQ(blocks[5].kind, TextBlock::Kind::Paragraph);
  EXPECT_EQ(sectionTitles(blocks), std::vector<std::string>{"Cost"});
}

// ---------------------------------------------------------------------------------------------------------
// The claims, measured as the Claims panel measures them
// ---------------------------------------------------------------------------------------------------------

TEST(Claims, Seed002CellsPerLookupMatchTheSeedsTable) {
  const CellsPerLookup r = measureCellsPerLookup(registry(), 60000, 3000, 2);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.rows.size(), seedCellTable().size());
  for (const CellsPerLookupRow& row : r.rows) {
    SCOPED_TRACE(row.multiplier);
    // The seed's figure is (1 + 1/m)^2, the mean number of cells a square as wide as the search diameter
    // overlaps; the grid reads exactly those when no cell in reach is empty.
    EXPECT_NEAR(row.squareCells, row.seedCells, 0.06);
    EXPECT_NEAR(row.seedCells, (1.0 + 1.0 / row.multiplier) * (1.0 + 1.0 / row.multiplier), 0.006);
    // A round lookup never searches more than the square around it: its corner cells may be out of reach.
    EXPECT_LE(row.roundCells, row.squareCells);
  }
  // At multiplier 1 a circle reaches the fourth cell of its square only with probability pi/4.
  EXPECT_NEAR(r.rows.front().roundCells, 3.0 + 3.14159265 / 4.0, 0.05) << "skipped corners are not searched";
  EXPECT_NEAR(r.rows.front().squareCells, 4.0, 0.01) << "cell = search diameter: always four cells";
  EXPECT_GT(r.rows.back().itemsPerLookup, r.rows.front().itemsPerLookup * 20.0) << "larger cells are fuller";
  EXPECT_EQ(r.replicatedCells, 1.0) << "the store-in-every-cell variant reads one cell per lookup";
  EXPECT_GT(r.replicatedCopies, 3.9);
  EXPECT_LE(r.replicatedCopies, 4.0);
  EXPECT_EQ(findings(r).size(), 4u);
}

TEST(Claims, Seed003FitQuadtreeTurnsLinearOnTheCentreLinesTheEnneatreeAndLooseQuadtreeDoNot) {
  const std::size_t counts[] = {1000, 4000, 16000};
  const CentreLineCost r = measureCentreLineCost(registry(), counts, 200, 11);
  ASSERT_EQ(r.rows.size(), 3u);
  const double fitK =
      growthExponent(r.rows, [](const CentreLineRow& row) { return row.fitLines.candidates; });
  const double enneaK =
      growthExponent(r.rows, [](const CentreLineRow& row) { return row.enneaLines.candidates; });
  EXPECT_GT(fitK, 0.9);
  EXPECT_LT(enneaK, 0.2);
  EXPECT_GT(r.rows.back().fitRootShare, 0.95) << "the centre lines keep every circle in the root";
  EXPECT_GT(r.rows.back().fitLines.candidates, 50.0 * r.rows.back().enneaLines.candidates);
  EXPECT_LT(r.rows.back().enneaUniform.candidates, 20.0);
  // The loose quadtree of the same claim stays flat on the centre lines too.
  const double looseK =
      growthExponent(r.rows, [](const CentreLineRow& row) { return row.looseLines.candidates; });
  EXPECT_GT(r.rows.back().looseLines.candidates, 0.0);
  EXPECT_LT(looseK, 0.2);
  EXPECT_GT(r.rows.back().fitLines.candidates, 50.0 * r.rows.back().looseLines.candidates);
  EXPECT_EQ(findings(r).size(), 4u);
}

TEST(Claims, Seed000RemoteClusterLeavesTheRadiusTreesQueriesUnchanged) {
  const std::size_t clusters[] = {0, 4000, 16000};
  const RemoteCluster r = measureRemoteCluster(registry(), {"radius-tree", "brute"}, 1500, clusters, 500, 5);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_TRUE(r.answersUnchanged);
  for (const RemoteClusterRow& row : r.rows) {
    EXPECT_EQ(row.cost[0].nodes, r.rows.front().cost[0].nodes) << row.clusterCircles;
    EXPECT_EQ(row.cost[0].candidates, r.rows.front().cost[0].candidates) << row.clusterCircles;
  }
  EXPECT_EQ(r.rows[2].clusterCircles, 16000u);
  EXPECT_GT(r.rows[2].nodes[0], r.rows[0].nodes[0] * 2) << "the cluster fills nodes of its own";
  // Brute force tests every circle: the cluster shows up in every query.
  EXPECT_EQ(r.rows[2].cost[1].candidates, 1500.0 + 16000.0);
  EXPECT_FALSE(findings(r).empty());
}

TEST(Claims, Seed001MostMovesTakeTheSphereTreesFastPath) {
  const FastPath r = measureFastPath(registry(), 2000, 240, 1);
  ASSERT_EQ(r.frames, 240u);
  ASSERT_EQ(r.perFrame.size(), 240u);
  EXPECT_GT(r.overall, 0.97);
  EXPECT_GT(r.settled, 0.97);
  EXPECT_GT(r.detached, 0.0)
      << "some moves must leave their parent, or the scene does not exercise the slow path";
  // Every frame moves the three quarters that are not static, and the static circles that jump in it.
  Simulation replay("spheretest", SceneConfig{}, 2000, 1);
  double moves = 0.0;
  for (int f = 0; f < 240; ++f) {
    replay.step();
    moves += double(replay.movedIds().size());
  }
  EXPECT_EQ(r.moves, moves);
  EXPECT_GT(r.moves, 240.0 * 1500.0);
  ASSERT_EQ(r.peers.size(), 2u);
  for (const FastPathPeer& p : r.peers) {
    EXPECT_GT(p.ratio, 0.0) << p.structure;
    EXPECT_LE(p.ratio, 1.0) << p.structure;
  }
}

TEST(Claims, AFigureAStructureDoesNotReportShowsAsMissingNotZero) {
  EXPECT_EQ(figureText("%.2f%%", std::nan("")), "missing");
  EXPECT_EQ(figureText("%.2f%%", 0.0), "0.00%");
  FastPath r;
  r.frames = 1;
  r.perFrame = {std::nan("")};
  r.overall = std::nan("");
  r.settled = std::nan("");
  r.moves = 10.0;
  r.peers.push_back({"aabb-tree", "fat_path_ratio", std::nan("")});
  const std::vector<std::string> lines = findings(r);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("missing of 10 moves", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("the worst frame missing"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("missing of moves"), std::string::npos) << lines[1];
}

TEST(Claims, Seed004EveryStructureChecksFarFewerPairsThanBruteForceAndFindsTheSame) {
  const Simulation start("spheretest", SceneConfig{}, 1500, 3);
  const CollisionChecks r = measureCollisionChecks(registry(), start, 10, 20000);
  ASSERT_EQ(r.frames, 10u);
  EXPECT_TRUE(r.bruteRan);
  EXPECT_EQ(r.bruteChecksPerFrame, 1500.0 * 1499.0 / 2.0);
  EXPECT_EQ(r.rows.size(), registry().all().size() - 1);
  for (const CollisionRow& row : r.rows) {
    EXPECT_TRUE(row.agrees) << row.structure;
    EXPECT_LT(row.checksPerFrame, r.bruteChecksPerFrame / 10.0) << row.structure;
    EXPECT_GT(row.pairsPerFrame, 0.0) << row.structure;
  }
  EXPECT_EQ(r.smallCount, 90u) << "90 circles: brute force makes 4005 checks, the seed's 'more than 4000'";
  EXPECT_EQ(r.smallBrute, 90.0 * 89.0 / 2.0);
  EXPECT_LT(r.smallQuadtree, r.smallBrute);
  EXPECT_FALSE(findings(r).empty());
}

TEST(Claims, CancelledMeasurementStopsEarly) {
  std::atomic<bool> cancelled{true};
  const std::size_t counts[] = {1000, 2000};
  EXPECT_TRUE(measureCentreLineCost(registry(), counts, 10, 1, &cancelled).rows.empty());
  EXPECT_TRUE(measureCellsPerLookup(registry(), 1000, 10, 1, &cancelled).rows.empty());
}

// ---------------------------------------------------------------------------------------------------------
// Stepping through a walk
// ---------------------------------------------------------------------------------------------------------

TEST(StepThrough, TheWholeWalkAddsUpToTheStructuresOwnCounters) {
  const Simulation sim("spheretest", SceneConfig{}, 1500, 4);
  const Box& world = sim.world();
  const float side = world.max.x - world.min.x;
  for (const StructureInfo& info : registry().all()) {
    SCOPED_TRACE(info.name);
    std::unique_ptr<SpatialIndex> index = info.create();
    index->setWorldHint(world);
    index->build(sim.items());
    for (const QueryMode mode :
         {QueryShape::Point, QueryShape::Circle, QueryShape::Box, QueryShape::Segment}) {
      SCOPED_TRACE(queryModeName(mode));
      QueryState q;
      q.mode = mode;
      // From the middle of a swarm, so that every structure has nodes to walk where the query starts.
      q.anchor = sim.attractors().front();
      q.target = q.anchor + Vec2{0.3f * side, 0.05f * side};
      q.radius = 0.08f * side;
      q.halfExtent = {0.06f * side, 0.04f * side};
      ShapeAnswer untraced, traced;
      runQueryShape(*index, q, untraced);
      const QueryCounters counters = untraced.counters;
      QueryTrace trace;
      traceQueryShape(*index, q, trace, traced);
      EXPECT_EQ(traced.count(), untraced.count());
      const TraceProgress all = progressAt(trace, trace.events.size());
      EXPECT_EQ(all.hits, traced.count()) << "one Hit event per result";
      // Every exact test is one Candidate or Hit event; the sphere tree also reports, without a test, the
      // circles of a bound lying wholly inside the query. The circles examined include those rejected by
      // their own bounds before an exact test (the AABB tree's leaves).
      if (info.name == "sphere-tree") {
        EXPECT_GE(all.candidates, counters.exactTests);
      } else {
        EXPECT_EQ(all.candidates, counters.exactTests);
      }
      EXPECT_GE(counters.candidates, counters.exactTests);
      if (info.name != "brute" && !info.peer) {
        EXPECT_GT(all.visited, 0u);
      }
      // The nodes a structure counts as visited are the ones whose bounds it tested: the walk's visits and
      // bounds prunes, not the empty children the quadtrees pass over untested. The grid family also counts
      // the empty cells it looks up, which its walk does not report.
      const bool countsEmptyCells =
          info.name == "grid" || info.name == "grid-replicated" || info.name == "hgrid";
      if (countsEmptyCells) {
        EXPECT_LE(all.visited + all.pruned, counters.nodesVisited);
      } else {
        EXPECT_EQ(all.visited + all.pruned, counters.nodesVisited);
      }
      // Steps count up one event at a time.
      TraceProgress previous;
      for (std::size_t step = 1; step <= trace.events.size(); ++step) {
        const TraceProgress p = progressAt(trace, step);
        EXPECT_EQ(p.visited + p.pruned + p.skipped + p.candidates, step);
        EXPECT_GE(p.hits, previous.hits);
        previous = p;
      }
    }
  }
}

TEST(StepThrough, EventsAreFoundAndDescribed) {
  QueryTrace trace;
  NodeInfo node;
  node.box = {{0, 0}, {64, 64}};
  node.depth = 2;
  trace.events.push_back({TraceEventKind::VisitNode, node, 0, ""});
  trace.events.push_back({TraceEventKind::PruneNode, node, 0, "query misses the cell"});
  trace.events.push_back({TraceEventKind::Candidate, {}, 7, ""});
  trace.events.push_back({TraceEventKind::Hit, {}, 9, ""});
  EXPECT_EQ(nextEventOf(trace, 0, TraceEventKind::PruneNode), 1u);
  EXPECT_EQ(nextEventOf(trace, 2, TraceEventKind::PruneNode), 4u);
  EXPECT_EQ(nextEventOf(trace, 0, TraceEventKind::Hit), 3u);
  EXPECT_NE(describeEvent(trace.events[1]).find("query misses the cell"), std::string::npos);
  EXPECT_NE(describeEvent(trace.events[1]).find("depth 2"), std::string::npos);
  EXPECT_NE(describeEvent(trace.events[3]).find("circle 9"), std::string::npos);
  trace.events.push_back({TraceEventKind::PruneNode, node, 0, "no items below this node"});
  const TraceProgress p = progressAt(trace, 100);
  EXPECT_EQ(p.visited, 1u);
  EXPECT_EQ(p.pruned, 1u);
  EXPECT_EQ(p.skipped, 1u);
  EXPECT_EQ(p.candidates, 2u);
  EXPECT_EQ(p.hits, 1u);
  EXPECT_TRUE(sameNode(trace.events[0].node, trace.events[1].node));
}

// One definition of the nodes a query visited, in every panel: the structure's count is the nodes it
// entered plus the ones it pruned (plus, for a grid, the empty cells it looks up untraced); a structure that
// cannot count them says so instead of a number.
TEST(StepThrough, NodesVisitedAreTheEnteredAndThePruned) {
  const Simulation sim("spheretest", SceneConfig{}, 3000, 4);
  auto index = registry().create("quadtree");
  index->setWorldHint(sim.world());
  index->build(sim.items());
  QueryState q;
  q.mode = QueryShape::Circle;
  q.anchor = sim.attractors().front();
  q.radius = 0.05f * (sim.world().max.x - sim.world().min.x);
  ShapeAnswer answer;
  runQueryShape(*index, q, answer);
  const QueryCounters counters = answer.counters;
  QueryTrace trace;
  traceQueryShape(*index, q, trace, answer);
  const TraceProgress walk = progressAt(trace, trace.events.size());
  ASSERT_GT(walk.pruned, 0u);
  ASSERT_EQ(walk.visited + walk.pruned, counters.nodesVisited);
  EXPECT_EQ(nodesVisitedText(index->nodesNotCounted(), counters.nodesVisited, &walk),
            "nodes visited " + std::to_string(counters.nodesVisited) + " = entered " +
                std::to_string(walk.visited) + " + pruned " + std::to_string(walk.pruned));
  TraceProgress few;
  few.visited = 1200;
  few.pruned = 34;
  EXPECT_EQ(nodesVisitedText({}, 1300, &few),
            "nodes visited 1,300 = entered 1,200 + pruned 34 + 66 empty cells looked up");
  EXPECT_EQ(nodesVisitedText({}, 1300, nullptr), "nodes visited 1,300");
  EXPECT_EQ(nodesVisitedText("reports leaves only", 141, &few),
            "nodes visited: not counted (reports leaves only)");
}

// The view cone's log says in words what came into view and what went out of it.
TEST(StepThrough, ConeEventsInWords) {
  EXPECT_EQ(coneEventLine(12, {4, 9, 17}, {2}),
            "frame 12: 3 circles came into view (4, 9, 17); 1 circle went out of view (2)");
  EXPECT_EQ(coneEventLine(3, {}, {5, 6}), "frame 3: 2 circles went out of view (5, 6)");
  EXPECT_EQ(coneEventLine(7, {1, 2, 3, 4, 5, 6, 7, 8}, {}),
            "frame 7: 8 circles came into view (1, 2, 3, 4, 5, 6, ...)");
  EXPECT_EQ(coneEventLine(1, {}, {}), "frame 1: nothing came into view or left it");
}

// ---------------------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------------------

CompareSnapshot snapshotOf(const Simulation& sim, QueryMode mode) {
  CompareSnapshot s;
  s.circles = sim.circles();
  s.world = sim.world();
  s.frame = sim.frame();
  s.sceneKey = "test";
  s.query.mode = mode;
  s.query.anchor = {0.5f * (sim.world().min.x + sim.world().max.x),
                    0.5f * (sim.world().min.y + sim.world().max.y)};
  s.query.radius = 20.0f;
  return s;
}

TEST(Compare, EveryStructureFindsBruteForcesPairsFrameAfterFrame) {
  Simulation sim("spheretest", SceneConfig{}, 1200, 6);
  CompareBench bench(registry());
  for (int run = 0; run < 3; ++run) {
    const CompareResult r = bench.run(snapshotOf(sim, QueryShape::Circle));
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.rows.size(), registry().all().size());
    EXPECT_EQ(r.reference, "brute force");
    const CompareRow& brute = r.rows.front();
    ASSERT_EQ(brute.name, "brute");
    EXPECT_EQ(brute.pairTests, 1200u * 1199u / 2u);
    for (const CompareRow& row : r.rows) {
      SCOPED_TRACE(row.name);
      EXPECT_TRUE(row.note.empty()) << row.note;
      EXPECT_EQ(row.built, run == 0) << "the first run builds, later ones bring the structures along";
      EXPECT_TRUE(row.agrees);
      EXPECT_EQ(row.pairs, brute.pairs);
      // The chart shows every pair examined and the exact tests among them: at least the pairs found, at
      // most the pairs examined; brute force tests every pair it examines.
      EXPECT_GE(row.pairExactTests, row.pairs);
      EXPECT_GE(row.pairTests, row.pairExactTests);
      if (row.name == "brute") {
        EXPECT_EQ(row.pairExactTests, row.pairTests);
      } else if (row.name != "box2d-tree") {
        EXPECT_GT(row.pairTests, row.pairExactTests) << "a cheap pre-test rejects some pairs examined";
      }
      EXPECT_TRUE(row.queryRan);
      EXPECT_EQ(row.queryHits, brute.queryHits);
      EXPECT_LE(row.pairTests, brute.pairTests);
    }
    for (int step = 0; step < 5; ++step) sim.step();
  }
}

TEST(Compare, WorkerHandsBackOneResultPerSnapshot) {
  const Simulation sim("uniform", SceneConfig{}, 800, 2);
  CompareWorker worker(registry());
  ASSERT_TRUE(worker.submit(snapshotOf(sim, std::nullopt)));
  EXPECT_FALSE(worker.submit(snapshotOf(sim, std::nullopt))) << "one snapshot at a time";
  std::optional<CompareResult> result;
  for (int i = 0; i < 2000 && !result; ++i) {
    result = worker.take();
    if (!result) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->count, 800u);
  for (const CompareRow& row : result->rows) EXPECT_FALSE(row.queryRan) << row.name;
  EXPECT_FALSE(worker.busy());
}

TEST(Compare, BruteForcePairsAreSkippedAboveTheLimitAndTheMajorityDecides) {
  const Simulation sim("uniform", SceneConfig{}, kBrutePairLimit + 1, 8);
  CompareBench bench(registry());
  const CompareResult r = bench.run(snapshotOf(sim, std::nullopt));
  EXPECT_EQ(r.reference, "the majority");
  EXPECT_FALSE(r.rows.front().pairsRan);
  EXPECT_FALSE(r.rows.front().note.empty());
  for (const CompareRow& row : r.rows) EXPECT_TRUE(row.agrees) << row.name;
}

// ---------------------------------------------------------------------------------------------------------
// Export, start-up requests, background work, registration
// ---------------------------------------------------------------------------------------------------------

std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back().push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back().push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back().push_back(c);
    }
  }
  return fields;
}

TEST(Export, CsvHoldsTheCurrentStatsAndTheComparison) {
  auto model = makeModel(900, "grid");
  FrameRecord record;
  model->advance(record);
  CompareBench bench(registry());
  CompareSnapshot snapshot = snapshotOf(model->simulation(), std::nullopt);
  const CompareResult comparison = bench.run(snapshot);
  const std::string csv = statsCsv(*model, &comparison);

  std::set<std::string> keys;
  std::size_t start = 0;
  bool header = true;
  while (start < csv.size()) {
    const std::size_t end = csv.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "every row ends with a line break";
    const std::vector<std::string> f = csvFields(csv.substr(start, end - start));
    start = end + 1;
    ASSERT_EQ(f.size(), 4u) << csv.substr(start, end - start);
    if (header) {
      EXPECT_EQ(f, (std::vector<std::string>{"section", "structure", "figure", "value"}));
      header = false;
      continue;
    }
    keys.insert(f[0] + "," + f[1] + "," + f[2]);
    if (f[0] + f[2] == "scenecount") {
      EXPECT_EQ(f[3], "900");
    }
    if (f[0] + f[2] == "framebrute_pair_tests") {
      EXPECT_EQ(f[3], "404550");
    }
  }
  for (const char* key :
       {"scene,,count", "scene,,scenario", "structure,grid,nodes", "structure,grid,memory_bytes",
        "frame,grid,pairs", "frame,grid,pair_tests", "extra,grid,cell_size", "parameter,grid,cell_scale",
        "compare,brute,pair_tests", "compare,enneatree,pairs_ms", "compare,grid,agrees"}) {
    EXPECT_EQ(keys.count(key), 1u) << key;
  }
  EXPECT_EQ(csvField("a,b"), "\"a,b\"");
  EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csvField("plain"), "plain");
}

// An export written before the first measured frame (a start-up request) has no timings to give: it says
// so rather than writing zeros, which would read as phases that cost nothing.
TEST(Export, TimingsAreWrittenOnlyOnceMeasured) {
  auto model = makeModel(300, "grid");
  FrameRecord record;
  model->advance(record);
  std::string csv = statsCsv(*model, nullptr);
  EXPECT_EQ(csv.find("timing_ms,grid,frame"), std::string::npos) << csv;
  EXPECT_NE(csv.find("timing_ms,grid,absent,no frame measured yet\n"), std::string::npos) << csv;
  record[Phase::Pairs] = 1.5f;
  record.frameMs = 4.0f;
  model->timings.push(record);
  csv = statsCsv(*model, nullptr);
  EXPECT_NE(csv.find("timing_ms,grid,pairs,1.5\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("timing_ms,grid,frame,4\n"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("absent"), std::string::npos) << csv;
}

TEST(Requests, OpenPanelsListAndKeyValueRequests) {
  std::vector<PartSlot> parts = createParts();
  applyOpenPanels(parts, "Claims, Split view,-Pair lines,Attraction points");
  for (const PartSlot& slot : parts) {
    const std::string& name = slot.info->name;
    if (slot.info->category == PartCategory::Panel) {
      EXPECT_EQ(slot.shown, name == "Claims" || name == "Split view") << name;
    } else if (name == "Pair lines") {
      EXPECT_FALSE(slot.shown);
    } else if (name == "Attraction points") {
      EXPECT_TRUE(slot.shown);
    }
  }
  EXPECT_EQ(requestValue("claim=seed-003; split = enneatree ;step=40", "split"), "enneatree");
  EXPECT_EQ(requestValue("claim=seed-003;step=40", "step"), "40");
  EXPECT_EQ(requestValue("claim=seed-003", "missing"), "");
  EXPECT_EQ(splitList(" a, ,b ,c", ','), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Parts, TheTeachingPanelsAreRegisteredClosedByDefault) {
  for (const char* name : {teach_names::kExplain, teach_names::kStep, teach_names::kSplit,
                           teach_names::kCompare, teach_names::kClaims, teach_names::kExport}) {
    const auto& parts = registeredParts();
    const auto it =
        std::find_if(parts.begin(), parts.end(), [&](const PartInfo& p) { return p.name == name; });
    ASSERT_NE(it, parts.end()) << name;
    EXPECT_EQ(it->category, PartCategory::Panel);
    EXPECT_FALSE(it->shownByDefault) << name;
    EXPECT_FALSE(it->description.empty());
  }
}

TEST(Parts, StepThroughReplaysOverTheWorldAndGivesTheOverlaysBackWhenClosed) {
  postTeachRequests("step=6");
  auto model = makeModel(1000, "quadtree");
  render::Camera camera;
  camera.setViewport(1280, 800);
  camera.fit(model->simulation().world());
  ViewOptions view;
  std::vector<PartSlot> parts = createParts();
  DemoContext ctx{*model, camera, view, parts};
  auto slot = [&](const std::string& name) -> PartSlot& {
    return *std::find_if(parts.begin(), parts.end(), [&](const PartSlot& s) { return s.info->name == name; });
  };
  slot(teach_names::kStep).shown = true;
  ASSERT_TRUE(slot("Structure nodes").shown);
  FrameRecord record;
  model->advance(record);
  for (PartSlot& s : parts) s.part->update(ctx);
  postTeachRequests("");

  EXPECT_TRUE(model->paused) << "stepping pauses the simulation";
  for (const char* overlay : {part_names::kQueryTrace, part_names::kCandidates, "Structure nodes"}) {
    EXPECT_FALSE(slot(overlay).shown) << overlay << " would draw the whole walk over the replay";
  }
  WorldCanvas canvas;
  canvas.below.clear(camera.pixelsPerUnit());
  canvas.above.clear(camera.pixelsPerUnit());
  slot(teach_names::kStep).part->drawWorld(ctx, canvas);
  EXPECT_FALSE(canvas.above.empty()) << "the replay draws the nodes and the current one";
  EXPECT_FALSE(canvas.below.empty()) << "the current node is filled";

  slot(teach_names::kStep).shown = false;
  for (PartSlot& s : parts) s.part->update(ctx);
  for (const char* overlay : {part_names::kQueryTrace, part_names::kCandidates, "Structure nodes"}) {
    EXPECT_TRUE(slot(overlay).shown) << overlay << " comes back when the replay ends";
  }
}

TEST(Parts, ComparePanelMeasuresEveryStructureAndHandsTheResultToTheExport) {
  postTeachRequests("compare_wait=1");
  auto model = makeModel(800, "grid");
  render::Camera camera;
  ViewOptions view;
  std::vector<PartSlot> parts = createParts();
  DemoContext ctx{*model, camera, view, parts};
  for (PartSlot& s : parts) {
    if (s.info->name == teach_names::kCompare) s.shown = true;
  }
  teachBoard().comparison.reset();
  FrameRecord record;
  model->advance(record);
  for (PartSlot& s : parts) s.part->update(ctx);
  postTeachRequests("");
  ASSERT_TRUE(teachBoard().comparison.has_value());
  const CompareResult& r = *teachBoard().comparison;
  EXPECT_EQ(r.count, 800u);
  EXPECT_EQ(r.rows.size(), registry().all().size());
  for (const CompareRow& row : r.rows) EXPECT_TRUE(row.agrees) << row.name;
  const std::string csv = statsCsv(*model, &r);
  EXPECT_NE(csv.find("compare,hgrid,pair_tests,"), std::string::npos);
  teachBoard().comparison.reset();
}

struct Answer {
  std::string error;
  int value = 0;
};

TEST(Background, ResultArrivesAndCancelStopsTheWork) {
  BackgroundTask<Answer> task;
  task.start([](const std::atomic<bool>&) { return Answer{"", 42}; });
  std::optional<Answer> got;
  for (int i = 0; i < 2000 && !got; ++i) {
    got = task.take();
    if (!got) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->value, 42);
  EXPECT_FALSE(task.busy());

  std::atomic<bool> sawCancel{false};
  task.start([&](const std::atomic<bool>& cancelled) {
    while (!cancelled) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    sawCancel = true;
    return Answer{};
  });
  EXPECT_TRUE(task.busy());
  task.cancel();
  EXPECT_TRUE(sawCancel);
  EXPECT_FALSE(task.take().has_value()) << "a cancelled result is dropped";

  task.runHere([](const std::atomic<bool>&) -> Answer { throw std::runtime_error("no luck"); });
  got = task.take();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, "no luck");
}

}  // namespace
}  // namespace st::ui
