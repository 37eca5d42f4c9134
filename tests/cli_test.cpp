// The command-line contract, tested on the real executable: exit codes, one-line errors that name the
// option and the accepted range, listings, the table and the JSON report.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "headless_runner.hpp"
#include "spheretest/peers.hpp"
#include "spheretest/registry.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/scene.hpp"

namespace {

struct Outcome {
  int exitCode = -1;
  std::string output;  // stdout and stderr together
};

Outcome run(const std::string& arguments,
            const std::string& environment = "env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER") {
  const std::string command = environment + " " + SPHERETEST_BINARY + " " + arguments + " 2>&1";
  Outcome outcome;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return outcome;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) outcome.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  outcome.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

std::filesystem::path tempFile(const std::string& name, const std::string& content) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / ("spheretest_cli_" + name);
  std::ofstream(path) << content;
  return path;
}

int lineCount(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

TEST(Cli, CountOutOfRangeOrNotANumberExitsTwoWithOneLine) {
  for (const char* bad : {"0", "-5", "abc", "10000001", "1.5", "99999999999999999999999"}) {
    const Outcome o = run(std::string("--headless --count ") + bad);
    EXPECT_EQ(o.exitCode, 2) << bad << ": " << o.output;
    EXPECT_NE(o.output.find("--count"), std::string::npos) << o.output;
    EXPECT_NE(o.output.find("1..10000000"), std::string::npos) << o.output;
    EXPECT_EQ(lineCount(o.output), 1) << o.output;
  }
}

TEST(Cli, FramesAndSeedAreValidated) {
  EXPECT_EQ(run("--headless --frames 0").exitCode, 2);
  EXPECT_EQ(run("--headless --frames x").exitCode, 2);
  EXPECT_EQ(run("--headless --seed -1").exitCode, 2);
}

TEST(Cli, UnknownStructureListsTheValidOnes) {
  const Outcome o = run("--headless --structure nosuch");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("nosuch"), std::string::npos);
  const st::StructureRegistry registry = st::StructureRegistry::withCoreStructures();
  for (const st::StructureInfo& info : registry.all()) {
    EXPECT_NE(o.output.find(info.name), std::string::npos) << info.name;
  }
}

TEST(Cli, UnknownScenarioListsTheValidOnes) {
  const Outcome o = run("--headless --scenario nosuch");
  EXPECT_EQ(o.exitCode, 2);
  for (const st::ScenarioInfo& info : st::scenarios())
    EXPECT_NE(o.output.find(info.name), std::string::npos) << info.name;
}

TEST(Cli, UnknownOrBadSetKeysListTheValidOnes) {
  Outcome o = run("--headless --set nosuch.key=1");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("scene.radius_max"), std::string::npos) << o.output;
  o = run("--headless --set scene.nosuch=1");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("scene.static_fraction"), std::string::npos) << o.output;
  o = run("--headless --set scene.static_fraction=2");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("[0, 1]"), std::string::npos) << o.output;
  EXPECT_EQ(run("--headless --set scene.speed=fast").exitCode, 2);
  EXPECT_EQ(run("--headless --set novalue").exitCode, 2);
}

TEST(Cli, BadQueriesAndRegionsAreRejected) {
  EXPECT_EQ(run("--headless --queries sphere:10").exitCode, 2);
  EXPECT_EQ(run("--headless --queries point").exitCode, 2);
  EXPECT_EQ(run("--headless --queries point:0").exitCode, 2);
  EXPECT_EQ(run("--headless --query-region 1,2,3").exitCode, 2);
  EXPECT_EQ(run("--headless --query-region 5,0,1,1").exitCode, 2);
  EXPECT_EQ(run("--headless --query-size -1").exitCode, 2);
  EXPECT_EQ(run("--headless --queries nearest:10 --query-k 0").exitCode, 2);
  EXPECT_EQ(run("--headless --queries nearest:10 --query-k many").exitCode, 2);
  EXPECT_EQ(run("--headless --no-such-option").exitCode, 2);
}

TEST(Cli, SceneFileErrorsNameTheFileAndLine) {
  Outcome o = run("--headless --scene-file /nonexistent/scene.csv");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("/nonexistent/scene.csv"), std::string::npos) << o.output;

  const auto bad = tempFile("bad.csv", "x,y,radius\n1,2,3\n4,five,6\n");
  o = run("--headless --scene-file " + bad.string());
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find(bad.string() + ":3"), std::string::npos) << o.output;

  const auto columns = tempFile("columns.csv", "x,y,radius\n1,2\n");
  o = run("--headless --scene-file " + columns.string());
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find(":2"), std::string::npos) << o.output;

  const auto empty = tempFile("empty.csv", "");
  EXPECT_EQ(run("--headless --scene-file " + empty.string()).exitCode, 2);
  const auto nan = tempFile("nan.csv", "x,y,radius\nnan,1,1\n");
  EXPECT_EQ(run("--headless --scene-file " + nan.string()).exitCode, 2);
  const auto negative = tempFile("negative.csv", "x,y,radius\n1,1,-1\n");
  EXPECT_EQ(run("--headless --scene-file " + negative.string()).exitCode, 2);
}

TEST(Cli, SceneFileRunsWithItsOwnCircles) {
  const auto file = tempFile("good.csv", "x,y,radius,static\n0,0,1,1\n1.5,0,1,0\n10,10,0.5,0\n-3,4,2,1\n");
  const auto report = std::filesystem::temp_directory_path() / "spheretest_cli_file.json";
  const Outcome o = run("--headless --frames 3 --structure all --scene-file " + file.string() + " --report " +
                        report.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const nlohmann::json json = nlohmann::json::parse(std::ifstream(report));
  EXPECT_EQ(json["count"], 4);
}

TEST(Cli, ListingsNameEveryStructureAndScenario) {
  Outcome o = run("--list-structures");
  EXPECT_EQ(o.exitCode, 0);
  st::StructureRegistry registry = st::StructureRegistry::withCoreStructures();
  st::registerPeerStructures(registry);
  for (const st::StructureInfo& info : registry.all())
    EXPECT_NE(o.output.find(info.name), std::string::npos) << info.name;
  o = run("--list-scenarios");
  EXPECT_EQ(o.exitCode, 0);
  for (const st::ScenarioInfo& info : st::scenarios()) EXPECT_NE(o.output.find(info.name), std::string::npos);
  EXPECT_NE(o.output.find("scene.radius_min"), std::string::npos);
}

TEST(Cli, HelpNamesEachValueAndGivesEachModesDefault) {
  const Outcome o = run("--help");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(o.output.find("TEXT"), std::string::npos) << o.output;
  for (const char* option :
       {"--count N ", "--frames N ", "--seed N ", "--structure NAME[,NAME...] ", "--scene-file FILE ",
        "--report FILE ", "--queries KIND:COUNT ", "--set KEY=VALUE", "--screenshot FILE ", "--soak SECONDS ",
        "--record FILE ", "--record-fps F "}) {
    EXPECT_NE(o.output.find(option), std::string::npos) << option;
  }
  // Headless runs every structure; the window opens on the grid.
  EXPECT_NE(o.output.find("Headless: the ones to run (default all)"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("(default grid)"), std::string::npos) << o.output;
}

TEST(Cli, VersionPrintsTheProjectVersionAndExitsZero) {
  const Outcome o = run("--version");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(o.output, std::string("spheretest ") + SPHERETEST_PROJECT_VERSION + "\n");
}

TEST(Cli, HeadlessReportHasTheTableAndTheJsonFields) {
  const auto path = std::filesystem::temp_directory_path() / "spheretest_cli_report.json";
  const Outcome o =
      run("--headless --count 800 --frames 20 --structure all --queries circle:50 --report " + path.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("update ms med/p95"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(std::ifstream(path));
  for (const char* key : {"count", "scenario", "seed", "frames", "structures"})
    EXPECT_TRUE(json.contains(key)) << key;
  EXPECT_EQ(json["count"], 800);
  ASSERT_FALSE(json["structures"].empty());
  const auto checksum = json["structures"][0]["pairs_checksum"];
  for (const auto& s : json["structures"]) {
    for (const char* key : {"name", "build_ms", "update_ms", "pairs_ms", "pairs_last_frame", "pairs_checksum",
                            "candidate_tests_per_frame", "nodes", "max_depth", "memory_bytes",
                            "agrees_with_oracle", "queries", "extra"}) {
      EXPECT_TRUE(s.contains(key)) << s["name"] << " lacks " << key;
    }
    EXPECT_TRUE(s["update_ms"].contains("median") && s["update_ms"].contains("p95"));
    for (const char* key : {"kind", "count", "size", "hits", "nodes_visited_per_query",
                            "candidates_per_query", "ns_per_query"}) {
      EXPECT_TRUE(s["queries"].contains(key)) << key;
    }
    EXPECT_TRUE(s["agrees_with_oracle"].get<bool>()) << s["name"];
    EXPECT_EQ(s["pairs_checksum"], checksum) << s["name"];
  }
}

TEST(Cli, SameSeedSameFramesOtherSeedOtherFrames) {
  const auto a = std::filesystem::temp_directory_path() / "spheretest_cli_seed_a.json";
  const auto b = std::filesystem::temp_directory_path() / "spheretest_cli_seed_b.json";
  const auto c = std::filesystem::temp_directory_path() / "spheretest_cli_seed_c.json";
  ASSERT_EQ(
      run("--headless --count 500 --frames 30 --structure brute --seed 7 --report " + a.string()).exitCode,
      0);
  ASSERT_EQ(
      run("--headless --count 500 --frames 30 --structure brute --seed 7 --report " + b.string()).exitCode,
      0);
  ASSERT_EQ(
      run("--headless --count 500 --frames 30 --structure brute --seed 8 --report " + c.string()).exitCode,
      0);
  const auto checksum = [](const std::filesystem::path& p) {
    return nlohmann::json::parse(std::ifstream(p))["structures"][0]["pairs_checksum"].get<std::uint64_t>();
  };
  EXPECT_EQ(checksum(a), checksum(b));
  EXPECT_NE(checksum(a), checksum(c));
}

TEST(Cli, BruteForceIsSkippedAboveTwentyThousandUnlessNamed) {
  const Outcome o = run("--headless --count 20001 --frames 1 --structure brute,brute --report /dev/null");
  EXPECT_EQ(o.exitCode, 0) << o.output;  // named explicitly: it runs
  EXPECT_EQ(o.output.find("skipped"), std::string::npos);
  const Outcome all = run("--headless --count 20001 --frames 1 --structure all");
  EXPECT_EQ(all.exitCode, 0) << all.output;
  EXPECT_NE(all.output.find("brute: skipped above 20,000"), std::string::npos) << all.output;
}

TEST(Cli, SoakOptionsAreValidated) {
  EXPECT_EQ(run("--soak 0").exitCode, 2);
  EXPECT_EQ(run("--soak -3").exitCode, 2);
  EXPECT_EQ(run("--soak 5 --switch-every x").exitCode, 2);
  EXPECT_EQ(run("--soak 5 --headless").exitCode, 2);
  const Outcome o = run("--soak 5 --count 100");  // no display: the soak needs the window
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_NE(o.output.find("--soak needs a display"), std::string::npos) << o.output;
}

TEST(Cli, RecordRefusesWhatItCannotWriteBeforeTheFirstFrame) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / "spheretest_cli_record";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  const std::string missing = (directory / "missing" / "clip.gif").string();
  const auto refused = [](const std::string& arguments, const std::string& expected) {
    const Outcome o = run(arguments);
    EXPECT_EQ(o.exitCode, 2) << arguments << ": " << o.output;
    EXPECT_EQ(lineCount(o.output), 1) << arguments << ": " << o.output;
    EXPECT_NE(o.output.find(expected), std::string::npos) << arguments << ": " << o.output;
  };
  refused("--frames 3 --record " + missing, "does not exist");
  refused("--frames 3 --record " + directory.string(), "--record");
  refused("--frames 3 --record " + (directory / "clip.avi").string(), ".gif, .mp4 or .webm");
  refused("--frames 3 --record " + (directory / "clip").string(), ".gif, .mp4 or .webm");
  refused("--frames 3 --headless --record " + (directory / "clip.gif").string(), "excludes --headless");
  refused("--frames 3 --record " + (directory / "clip.gif").string() + " --screenshot " +
              (directory / "x.png").string(),
          "excludes --headless, --screenshot");
  refused("--frames 3 --record " + (directory / "clip.gif").string() + " --record-fps 51", "1..50 for GIF");
  refused("--frames 3 --record " + (directory / "clip.gif").string() + " --record-fps 0", "--record-fps");
  refused("--frames 3 --record " + (directory / "clip.mp4").string() + " --record-fps 121", "1..120 for MP4");
  refused("--frames 3 --record " + (directory / "clip.webm").string() + " --record-fps x", "--record-fps");
  refused("--frames 3 --record-fps 20", "--record-fps needs --record");
  refused("--frames 0 --record " + (directory / "clip.gif").string(), "--frames");
  // Valid, but there is no display to record: refused as --screenshot is, and nothing is written.
  refused("--frames 3 --count 100 --record " + (directory / "clip.mp4").string(), "--record needs a display");
  EXPECT_TRUE(std::filesystem::is_empty(directory));
}

TEST(Cli, WithoutADisplayTheWindowFallsBackToTheReport) {
  const Outcome o = run("--count 300 --frames 2 --structure brute");
  EXPECT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("no display"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("pairs ms"), std::string::npos) << o.output;
}

// Agreement: claimed only against brute force or a majority of three or more others.

nlohmann::json reportOf(const std::string& name, const std::string& arguments, Outcome& outcome) {
  const auto path = std::filesystem::temp_directory_path() / ("spheretest_cli_" + name + ".json");
  std::filesystem::remove(path);
  outcome = run("--headless " + arguments + " --report " + path.string());
  return std::filesystem::exists(path) ? nlohmann::json::parse(std::ifstream(path)) : nlohmann::json();
}

TEST(CliAgreement, OneStructureAloneIsUncheckedNotAgreeing) {
  Outcome o;
  const nlohmann::json json = reportOf("alone", "--structure grid --count 1000 --frames 5", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const std::size_t row = o.output.find("\ngrid ");
  ASSERT_NE(row, std::string::npos) << o.output;
  const std::string line = o.output.substr(row + 1, o.output.find('\n', row + 1) - row - 1);
  EXPECT_TRUE(line.ends_with("  unchecked")) << line;
  EXPECT_EQ(json["reference"], "none");
  const auto& grid = json["structures"][0];
  EXPECT_TRUE(grid["agrees_with_oracle"].is_null()) << grid;
  EXPECT_EQ(grid["agreement"], "unchecked");
  EXPECT_FALSE(grid["unchecked_reason"].get<std::string>().empty());
}

TEST(CliAgreement, TwoAgreeingStructuresWithoutBruteForceAreUnchecked) {
  Outcome o;
  const nlohmann::json json = reportOf("pair", "--structure grid,quadtree --count 800 --frames 5", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  for (const auto& s : json["structures"]) EXPECT_TRUE(s["agrees_with_oracle"].is_null()) << s["name"];
}

TEST(CliAgreement, BruteForceIsTheReference) {
  Outcome o;
  const nlohmann::json json = reportOf("brute", "--structure grid,brute --count 800 --frames 5", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(json["reference"], "brute");
  EXPECT_EQ(json["structures"][0]["agreement"], "yes");
  EXPECT_EQ(json["structures"][0]["agrees_with_oracle"], true);
  EXPECT_EQ(json["structures"][1]["agreement"], "reference");
}

TEST(CliAgreement, FourStructuresCheckEachOtherByMajority) {
  Outcome o;
  const nlohmann::json json =
      reportOf("majority", "--structure grid,quadtree,aabb-tree,hgrid --count 800 --frames 5", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(json["reference"], "consensus");
  for (const auto& s : json["structures"]) {
    EXPECT_EQ(s["agrees_with_oracle"], true) << s["name"];
    EXPECT_EQ(s["agreement"], "yes") << s["name"];
  }
}

st::app::RunReport syntheticReport(const std::vector<std::vector<std::uint64_t>>& hashes) {
  st::app::RunReport report;
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    st::app::StructureResult r;
    r.name = std::to_string(i) + "th";
    r.frameHashes = hashes[i];
    report.structures.push_back(r);
  }
  return report;
}

TEST(CliAgreement, TwoStructuresThatDisagreeAreBothDisputed) {
  st::app::RunReport report = syntheticReport({{1, 2, 3}, {1, 9, 3}});
  st::app::checkAgreement(report);
  for (const st::app::StructureResult& r : report.structures) {
    EXPECT_EQ(r.agreement, st::app::Agreement::Disputed) << r.name;
    EXPECT_NE(r.disagreement.find("frame 2"), std::string::npos) << r.disagreement;
  }
  EXPECT_FALSE(st::app::allAgree(report)) << "a dispute fails the run (exit 3)";
  // Swapping the order must not pick another winner: nothing settles it.
  report = syntheticReport({{1, 9, 3}, {1, 2, 3}});
  st::app::checkAgreement(report);
  for (const st::app::StructureResult& r : report.structures)
    EXPECT_EQ(r.agreement, st::app::Agreement::Disputed);
}

TEST(CliAgreement, AMajorityOfThreeOthersOutvotesTheOddOneOut) {
  st::app::RunReport report = syntheticReport({{1, 2}, {1, 2}, {1, 2}, {1, 7}});
  st::app::checkAgreement(report);
  EXPECT_EQ(report.reference, "consensus");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(report.structures[i].agreement, st::app::Agreement::Agrees) << i;
  EXPECT_EQ(report.structures[3].agreement, st::app::Agreement::Disagrees);
  EXPECT_FALSE(st::app::allAgree(report));
  // Three structures: each has only two others, so no result is checked, and the odd one is disputed.
  report = syntheticReport({{1, 2}, {1, 2}, {1, 7}});
  st::app::checkAgreement(report);
  EXPECT_EQ(report.reference, "none");
  EXPECT_EQ(report.structures[2].agreement, st::app::Agreement::Disputed);
  EXPECT_EQ(report.structures[0].agreement, st::app::Agreement::Disputed);
}

TEST(CliAgreement, BruteForceSettlesADisagreement) {
  st::app::RunReport report = syntheticReport({{1, 2}, {1, 7}, {1, 2}});
  report.structures[2].name = "brute";
  st::app::checkAgreement(report);
  EXPECT_EQ(report.structures[0].agreement, st::app::Agreement::Agrees);
  EXPECT_EQ(report.structures[1].agreement, st::app::Agreement::Disagrees);
  EXPECT_EQ(report.structures[2].agreement, st::app::Agreement::Reference);
}

// Seed 002's sparse example, headless: 20,000 points in 1000 x 1000, circle lookups of radius 2 in cells
// of 4. Every lookup spans two by two cells, most of them empty: nodes/query must say 4, not ~1.
TEST(CliCounters, GridNodesPerQueryCountEveryCellLookedUpOnASparseScene) {
  std::string csv = "x,y,radius,static\n";
  st::Rng rng(2);
  for (int i = 0; i < 20000; ++i) {
    csv += std::to_string(rng.uniform(0.0f, 1000.0f)) + "," + std::to_string(rng.uniform(0.0f, 1000.0f)) +
           ",0,1\n";
  }
  const auto scene = tempFile("sparse.csv", csv);
  Outcome o;
  const nlohmann::json json =
      reportOf("sparse",
               "--structure grid --frames 1 --set grid.cell_size=4 --queries circle:2000 --query-size 2 "
               "--query-region 100,100,900,900 --scene-file " +
                   scene.string(),
               o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const auto& grid = json["structures"][0];
  EXPECT_NEAR(grid["queries"]["nodes_visited_per_query"].get<double>(), 4.0, 0.02) << grid["queries"];
  EXPECT_GT(grid["queries"]["occupied_cells_per_query"].get<double>(), 0.5) << grid["queries"];
  EXPECT_LT(grid["queries"]["occupied_cells_per_query"].get<double>(), 1.5) << grid["queries"];
}

// Nearest queries run on every structure and both peers, and agree: each answers k circles per query, and
// the run would fail on a differing answer.
TEST(Cli, NearestQueriesAnswerKCirclesOnEveryStructure) {
  Outcome o;
  const nlohmann::json json =
      reportOf("nearest", "--structure all --count 1500 --frames 3 --queries nearest:200 --query-k 7", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("200 random nearest queries, 7 circles each"), std::string::npos) << o.output;
  ASSERT_GE(json["structures"].size(), 13u);
  for (const auto& s : json["structures"]) {
    EXPECT_EQ(s["queries"]["kind"], "nearest") << s["name"];
    EXPECT_EQ(s["queries"]["k"], 7) << s["name"];
    EXPECT_EQ(s["queries"]["hits"], 1400) << s["name"];
    EXPECT_GT(s["queries"]["exact_tests_per_query"].get<double>(), 6.9) << s["name"];
  }
  // Brute force examines every circle; a structure that prunes examines far fewer.
  EXPECT_EQ(json["structures"][0]["queries"]["candidates_per_query"], 1500.0);
  for (std::size_t i = 1; i < json["structures"].size(); ++i) {
    EXPECT_LT(json["structures"][i]["queries"]["candidates_per_query"].get<double>(), 750.0)
        << json["structures"][i]["name"];
  }
}

// The table's pairs and candidate tests are both means per frame, so they compare.
TEST(CliCounters, PairsAndCandidatesArePerFrameMeansWithALegend) {
  Outcome o;
  const nlohmann::json json = reportOf("perframe", "--structure grid,brute --count 2000 --frames 20", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("pairs/frame"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("mean pairs found"), std::string::npos) << "a legend says what the columns are";
  for (const auto& s : json["structures"]) {
    ASSERT_TRUE(s.contains("pairs_per_frame")) << s["name"];
    EXPECT_GE(s["candidate_tests_per_frame"].get<double>(), s["pairs_per_frame"].get<double>()) << s["name"];
  }
}

// A peer's figure that is not what the column says is named as such, under the table and in the JSON,
// while the cells stay numbers for scripts; a structure of our own carries no such note.
TEST(CliCounters, APeersLowerBoundsAndUncountedNodesAreSaid) {
  Outcome o;
  const nlohmann::json json = reportOf(
      "peernotes", "--structure grid,box2d-tree,boost-rtree --count 1500 --frames 3 --queries circle:50", o);
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("box2d-tree: cand. figures are lower bounds"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("boost-rtree: cand. figures are lower bounds"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("boost-rtree: nodes/query counts what the library reports"), std::string::npos)
      << o.output;
  for (const auto& s : json["structures"]) {
    const std::string name = s["name"];
    EXPECT_EQ(s.contains("candidate_tests_lower_bound"), name == "box2d-tree") << name;
    EXPECT_EQ(s.contains("nodes_not_counted"), name != "grid") << name;
    EXPECT_TRUE(s["candidate_tests_per_frame"].is_number()) << name;
  }
}

// A report that cannot be written fails before the first frame, in one line, as bad input.
TEST(CliReport, AnUnwritableReportPathFailsBeforeTheRun) {
  for (const std::string& path :
       {std::string("/nonexistent/dir/r.json"), std::filesystem::temp_directory_path().string()}) {
    const Outcome o = run("--headless --count 500 --frames 5 --structure grid --report " + path);
    EXPECT_EQ(o.exitCode, 2) << o.output;
    EXPECT_EQ(lineCount(o.output), 1) << o.output;
    EXPECT_NE(o.output.find("--report"), std::string::npos) << o.output;
    EXPECT_EQ(o.output.find("build ms"), std::string::npos) << "no frame ran: " << o.output;
  }
  const Outcome o = run("--headless --report " + std::filesystem::temp_directory_path().string());
  EXPECT_NE(o.output.find("is a directory"), std::string::npos) << o.output;
}

// The report replaces the old file by renaming a complete new one over it: the old file is never truncated
// in place (a run stopped while writing would otherwise leave half a report), and no temporary is left.
TEST(CliReport, TheReportReplacesTheOldFileWhole) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / "spheretest_cli_atomic";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  const std::filesystem::path report = directory / "r.json";
  std::ofstream(report) << "old report\n";
  std::filesystem::create_hard_link(report, directory / "old.json");
  const auto ownerOnly = std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;
  std::filesystem::permissions(report, ownerOnly);
  const Outcome o = run("--headless --count 300 --frames 2 --structure grid --report " + report.string());
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(report))["count"], 300);
  std::string old;
  std::getline(std::ifstream(directory / "old.json"), old);
  EXPECT_EQ(old, "old report") << "the old file was rewritten in place";
  EXPECT_EQ(std::filesystem::status(report).permissions(), ownerOnly) << "the new file keeps the old's mode";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) files += entry.is_regular_file();
  EXPECT_EQ(files, 2) << "a temporary file was left behind";
  // A device is written as it is, never replaced.
  EXPECT_EQ(run("--headless --count 300 --frames 1 --structure grid --report /dev/null").exitCode, 0);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

// A long run shows it is alive: a bar redrawn in place on a terminal, a line at every tenth otherwise.
TEST(CliProgress, PlainLinesAtEveryTenthWhenNotATerminal) {
  std::ostringstream out;
  st::app::ProgressLine progress(out, false, "spheretest");
  for (std::size_t i = 1; i <= 1000; ++i) progress.update(i, 1000, "frame " + std::to_string(i));
  progress.finish();
  const std::string text = out.str();
  EXPECT_EQ(lineCount(text), 10) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("spheretest: 100% frame 1000, 0s left\n"), std::string::npos) << text;
}

TEST(CliProgress, ABarRedrawnInPlaceOnATerminal) {
  std::ostringstream out;
  st::app::ProgressLine progress(out, true, "spheretest");
  progress.update(0, 4, "frame 1/2 grid");
  EXPECT_NE(out.str().find("\r[------------------------] 0% frame 1/2 grid  estimating"), std::string::npos)
      << out.str();
  progress.update(4, 4, "frame 2/2 brute");  // the last step is always drawn
  EXPECT_NE(out.str().find("] 100% frame 2/2 brute  0s left"), std::string::npos) << out.str();
  progress.finish();
  EXPECT_TRUE(out.str().ends_with("\r\x1b[K")) << "the bar is cleared before the results";
  EXPECT_EQ(lineCount(out.str()), 0);
  EXPECT_EQ(st::app::ProgressLine::formatDuration(5), "5s");
  EXPECT_EQ(st::app::ProgressLine::formatDuration(185), "3m05s");
  EXPECT_EQ(st::app::ProgressLine::formatDuration(3720), "1h02m");
}

TEST(CliProgress, TheHeadlessRunReportsEachStructureAndItsFrames) {
  const Outcome o = run("--headless --count 300 --frames 20 --structure grid,quadtree");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  EXPECT_NE(o.output.find("spheretest: built grid in"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("spheretest: built quadtree in"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("spheretest: 50% frame 10/20 quadtree"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("spheretest: 100% frame 20/20 quadtree"), std::string::npos) << o.output;
}

// The structure-specific figures read as a table: one aligned row per figure, thousands separators, units,
// never a number like 4.30976e+06.
TEST(CliFigures, StructureSpecificFiguresAreAnAlignedTableWithUnits) {
  const Outcome o = run("--headless --count 5000 --frames 5 --structure grid,sphere-tree");
  ASSERT_EQ(o.exitCode, 0) << o.output;
  const std::size_t table = o.output.find("structure-specific figures");
  ASSERT_NE(table, std::string::npos) << o.output;
  const std::string figures = o.output.substr(table);
  EXPECT_EQ(figures.find("e+"), std::string::npos) << figures;
  EXPECT_EQ(figures.find('='), std::string::npos) << figures;
  std::istringstream lines(figures);
  std::string line;
  std::size_t valueEnd = 0;
  int rows = 0;
  bool sawSeparator = false, sawPercent = false, sawBytes = false;
  while (std::getline(lines, line)) {
    if (line.find(" moves ") != std::string::npos) {
      EXPECT_NE(line.find(','), std::string::npos) << "thousands separators: " << line;
    }
    if (line.find("fast_path_ratio") != std::string::npos) sawPercent = line.ends_with(" %");
    if (line.find("bytes_per_item") != std::string::npos) sawBytes = line.ends_with(" B");
    if (line.starts_with("---")) sawSeparator = true;
    if (!sawSeparator || line.starts_with("---") || line.empty()) continue;
    // Values end in the same column, whatever the unit after them.
    const std::size_t end = line.find_last_of("0123456789") + 1;
    if (valueEnd == 0) valueEnd = end;
    EXPECT_EQ(end, valueEnd) << line;
    ++rows;
  }
  EXPECT_GT(rows, 20);
  EXPECT_TRUE(sawPercent) << figures;
  EXPECT_TRUE(sawBytes) << figures;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Lessons
// ---------------------------------------------------------------------------------------------------------

TEST(CliLesson, AShippedLessonAndItsStepsAreCheckedBeforeTheWindowOpens) {
  // Without a display the window cannot open: a lesson is then an error, never the headless report.
  const Outcome o = run("--lesson grid --step 2");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("--lesson needs a display"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("structure"), std::string::npos) << "no report: " << o.output;
}

TEST(CliLesson, AStepOutOfRangeNamesTheLessonsSteps) {
  for (const char* bad : {"0", "99", "two", "-1"}) {
    const Outcome o = run(std::string("--lesson grid --step ") + bad);
    EXPECT_EQ(o.exitCode, 2) << bad << ": " << o.output;
    EXPECT_NE(o.output.find("--step must be from 1 to "), std::string::npos) << o.output;
    EXPECT_NE(o.output.find("lesson grid"), std::string::npos) << o.output;
    EXPECT_EQ(lineCount(o.output), 1) << o.output;
  }
  EXPECT_EQ(run("--step 2").exitCode, 2);
  EXPECT_NE(run("--step 2").output.find("--step needs --lesson"), std::string::npos);
}

TEST(CliLesson, AnUnknownLessonListsTheShippedOnes) {
  const Outcome o = run("--lesson nosuch");
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find("no lesson 'nosuch'"), std::string::npos) << o.output;
  for (const char* name : {"brute-force", "grid", "quadtree", "many-sizes", "sphere-tree"})
    EXPECT_NE(o.output.find(name), std::string::npos) << name << ": " << o.output;
  EXPECT_EQ(lineCount(o.output), 1) << o.output;
}

TEST(CliLesson, ABrokenLessonFileExitsTwoNamingTheFileStepAndKey) {
  const std::filesystem::path path = tempFile("broken.lesson",
                                              "title = Broken\n"
                                              "[step]\ntitle = one\ntext = fine\n"
                                              "[step]\ntitle = two\ntext = fine\n"
                                              "[step]\ntitle = three\ncount = lots\ntext = never shown\n");
  const Outcome o = run("--lesson " + path.string());
  EXPECT_EQ(o.exitCode, 2) << o.output;
  EXPECT_NE(o.output.find(path.string() +
                          ": step 3: count: expected a whole number from 1 to 10,000,000, got 'lots'"),
            std::string::npos)
      << o.output;
  EXPECT_EQ(lineCount(o.output), 1) << o.output;
  std::filesystem::remove(path);
}

TEST(CliLesson, LessonsAndThePresentationViewNeedTheWindow) {
  for (const char* arguments :
       {"--lesson grid --headless", "--present --headless", "--lesson grid --soak 5"}) {
    const Outcome o = run(arguments);
    EXPECT_EQ(o.exitCode, 2) << arguments << ": " << o.output;
    EXPECT_NE(o.output.find("opens the window"), std::string::npos) << o.output;
  }
  const Outcome help = run("--help");
  for (const char* option : {"--lesson NAME|FILE", "--step N", "--present"})
    EXPECT_NE(help.output.find(option), std::string::npos) << option;
}
