// The scenes: determinism, the static share, the spheretest swarms and jumps, the centre lines, the remote
// cluster, scene files.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "spheretest/scene.hpp"

namespace st {
namespace {

float sideOf(const Simulation& sim) {
  return sim.world().max.x - sim.world().min.x;
}

float median(std::vector<float> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Mean distance of the moving circles from their own group's attraction point.
float meanDistanceToPoint(const Simulation& sim) {
  double sum = 0.0;
  std::size_t moving = 0;
  for (ItemId id = 0; id < sim.circles().size(); ++id) {
    if (sim.isStatic(id)) continue;
    sum += length(sim.circles()[id].center - sim.attractors()[sim.group(id)]);
    ++moving;
  }
  return static_cast<float>(sum / double(moving));
}

TEST(Scene, SameSeedSameFrames) {
  // Every random draw of the scene is covered: the run has static jumps (and the kicks and point drift
  // that go on every frame), and the two runs agree on circles, points and batches frame by frame.
  Simulation a("spheretest", {}, 2000, 11), b("spheretest", {}, 2000, 11), c("spheretest", {}, 2000, 12);
  std::size_t staticJumps = 0;
  for (int f = 0; f < 300; ++f) {
    a.step(), b.step(), c.step();
    ASSERT_EQ(a.circles(), b.circles()) << "frame " << f;
    ASSERT_EQ(a.attractors(), b.attractors()) << "frame " << f;
    ASSERT_TRUE(std::ranges::equal(a.movedIds(), b.movedIds())) << "frame " << f;
    for (ItemId id : a.movedIds()) staticJumps += a.isStatic(id);
  }
  EXPECT_GT(staticJumps, 0u);
  EXPECT_NE(a.circles(), c.circles());
}

TEST(Scene, AQuarterIsStatic) {
  SceneConfig still;
  setSceneParam(still, "static_jump", 0);
  Simulation sim("spheretest", still, 1000, 3);
  const std::vector<Circle> start = sim.circles();
  for (int f = 0; f < 100; ++f) sim.step();
  std::size_t statics = 0;
  for (ItemId id = 0; id < 1000; ++id) {
    if (sim.isStatic(id)) {
      ++statics;
      EXPECT_EQ(sim.circles()[id], start[id]);
    }
  }
  EXPECT_EQ(statics, 250u);
  EXPECT_EQ(sim.movedIds().size(), 750u);
  EXPECT_EQ(sim.attractors().size(), 16u);
}

TEST(SpheretestScene, MovingCirclesKeepTheirGroup) {
  Simulation sim("spheretest", {}, 3000, 5);
  std::vector<int> groups;
  for (ItemId id = 0; id < 3000; ++id) groups.push_back(sim.group(id));
  for (int f = 0; f < 900; ++f) {
    sim.step();
    for (ItemId id = 0; id < 3000; ++id)
      ASSERT_EQ(sim.group(id), groups[id]) << "circle " << id << " frame " << f;
  }
}

TEST(SpheretestScene, SixteenSwarmsFormAndStaySwarms) {
  for (int frames : {900, 3000}) {
    Simulation sim("spheretest", {}, 10000, 1);
    for (int f = 0; f < frames; ++f) sim.step();
    const float side = sideOf(sim);
    const float radius = 0.06f * side;  // scene.swarm_radius
    EXPECT_LT(meanDistanceToPoint(sim), 0.15f * side) << frames << " frames";
    std::vector<Vec2> centres;
    int settled = 0;
    for (int g = 0; g < 16; ++g) {
      std::vector<Vec2> members;
      for (ItemId id = 0; id < 10000; ++id) {
        if (sim.group(id) == g) members.push_back(sim.circles()[id].center);
      }
      Vec2 centre{0, 0};
      for (Vec2 p : members) centre = centre + p * (1.0f / float(members.size()));
      std::vector<float> toCentre, toPoint;
      for (Vec2 p : members) {
        toCentre.push_back(length(p - centre));
        toPoint.push_back(length(p - sim.attractors()[g]));
      }
      // A swarm on its way to a point that jumped stays a swarm too; it is only not yet around its point.
      EXPECT_LT(median(toCentre), 2.0f * radius) << "group " << g << ", " << frames << " frames";
      settled += median(toPoint) < radius;
      centres.push_back(centre);
    }
    EXPECT_GE(settled, 12) << frames << " frames";
    // Sixteen clumps, not one: the swarms lie all over the world, a few overlapping at most.
    int closePairs = 0;
    for (int g = 0; g < 16; ++g) {
      for (int h = g + 1; h < 16; ++h) closePairs += length(centres[g] - centres[h]) < radius;
    }
    EXPECT_LE(closePairs, 4) << frames << " frames";
  }
}

TEST(SpheretestScene, StartsSettledAndMovesAlikeAtEveryCount) {
  // From the first frame every swarm is a settled one (circles evenly over a disc of scene.swarm_radius,
  // mean distance two thirds of it), and the circles go at scene.speed on average, at every count.
  for (std::size_t count : {1000u, 100000u}) {
    Simulation sim("spheretest", {}, count, 2);
    const float side = sideOf(sim);
    EXPECT_NEAR(meanDistanceToPoint(sim) / side, 0.04, 0.004) << count;
    const std::vector<Circle> before = sim.circles();
    sim.step();
    double speeds = 0.0;
    std::size_t moving = 0;
    for (ItemId id = 0; id < count; ++id) {
      if (sim.isStatic(id)) continue;
      speeds += length(sim.circles()[id].center - before[id].center) / Simulation::kTimeStep;
      ++moving;
    }
    EXPECT_NEAR(speeds / double(moving), 20.0, 2.0) << count;
  }
}

TEST(SpheretestScene, SpeedIsCappedAndTravellingSwarmsGoAtTheCap) {
  SceneConfig config;
  setSceneParam(config, "attractor_jump", 0.2);  // points jump often, so swarms travel
  Simulation sim("spheretest", config, 3000, 7);
  const float cap = 20.0f * 15.0f / 8.0f;
  float fastest = 0.0f;
  for (int f = 0; f < 600; ++f) {
    const std::vector<Circle> before = sim.circles();
    sim.step();
    for (ItemId id = 0; id < 3000; ++id) {
      if (!sim.isStatic(id))
        fastest = std::max(fastest, length(sim.circles()[id].center - before[id].center));
    }
  }
  EXPECT_LE(fastest, cap * Simulation::kTimeStep * 1.0001f);
  EXPECT_GE(fastest, cap * Simulation::kTimeStep * 0.999f);
}

TEST(SpheretestScene, StaticCirclesMoveOnlyWhenTheyJumpAndThenAreInTheBatch) {
  Simulation sim("spheretest", {}, 2000, 3);
  std::size_t nonStatic = 0;
  for (ItemId id = 0; id < 2000; ++id) nonStatic += !sim.isStatic(id);
  std::size_t jumps = 0, quietFrames = 0;
  for (int f = 0; f < 600; ++f) {
    const std::vector<Circle> before = sim.circles();
    sim.step();
    const std::span<const ItemId> ids = sim.movedIds();
    ASSERT_EQ(ids.size(), sim.movedCircles().size());
    ASSERT_TRUE(std::ranges::is_sorted(ids) && std::ranges::adjacent_find(ids) == ids.end());
    for (std::size_t k = 0; k < ids.size(); ++k) ASSERT_EQ(sim.movedCircles()[k], sim.circles()[ids[k]]);
    std::size_t jumped = 0;
    for (ItemId id = 0; id < 2000; ++id) {
      if (!sim.isStatic(id)) continue;
      const bool moved = !(sim.circles()[id] == before[id]);
      ASSERT_EQ(moved, std::ranges::binary_search(ids, id)) << "static circle " << id << " frame " << f;
      jumped += moved;
    }
    ASSERT_EQ(ids.size(), nonStatic + jumped);
    jumps += jumped;
    quietFrames += jumped == 0;
  }
  EXPECT_GT(jumps, 100u);       // about one static circle in 240 jumps per frame
  EXPECT_GT(quietFrames, 10u);  // and frames without a jump list no static circle
}

TEST(SpheretestScene, AttractionPointsDriftStayInsideAndJump) {
  SceneConfig config;
  setSceneParam(config, "attractor_jump", 0.5);
  Simulation sim("spheretest", config, 2000, 9);
  const float drift = 4.0f * Simulation::kTimeStep;  // scene.attractor_speed
  const float inset = 0.06f * sideOf(sim);
  std::size_t drifts = 0, jumps = 0;
  for (int f = 0; f < 900; ++f) {
    const std::vector<Vec2> before = sim.attractors();
    sim.step();
    for (std::size_t a = 0; a < before.size(); ++a) {
      const Vec2 p = sim.attractors()[a];
      const float moved = length(p - before[a]);
      if (moved > drift * 1.001f) {
        ++jumps;
      } else {
        drifts += moved > 0.5f * drift;
      }
      ASSERT_GE(std::min(p.x, p.y), sim.world().min.x + inset * 0.999f);
      ASSERT_LE(std::max(p.x, p.y), sim.world().max.x - inset * 0.999f);
    }
  }
  EXPECT_GT(drifts, 16u * 800u);
  EXPECT_GT(jumps, 5u);
}

TEST(Scene, RadiiSpanTheConfiguredRange) {
  Simulation sim("uniform", {}, 5000, 1);
  float lo = 1e9f, hi = 0;
  for (const Circle& c : sim.circles()) lo = std::min(lo, c.radius), hi = std::max(hi, c.radius);
  EXPECT_GE(lo, 0.5f);
  EXPECT_LE(hi, 4.0f);
  EXPECT_GE(hi / lo, 6.0f);  // the range spans 8x; a sample of 5000 comes close to both ends
}

TEST(Scene, CenterLinesStayOnTheCenterLines) {
  Simulation sim("center-lines", {}, 3000, 5);
  const float mid = 0.5f * (sim.world().min.x + sim.world().max.x);
  for (int f = 0; f < 100; ++f) sim.step();
  for (const Circle& c : sim.circles()) EXPECT_TRUE(c.center.x == mid || c.center.y == mid);
}

TEST(Scene, RemoteClusterIsFarFromTheQueryRegion) {
  Simulation sim("remote-cluster", {}, 10000, 5);
  const Box q = sim.queryRegion();
  std::size_t inRegion = 0;
  for (const Circle& c : sim.circles()) inRegion += boxContainsPoint(q, c.center);
  EXPECT_LT(inRegion, 10000u * 0.1);  // the cluster (90%) lies outside the query region
  SceneConfig none;
  setSceneParam(none, "cluster_fraction", 0.0);
  Simulation sparse("remote-cluster", none, 1000, 5);
  std::size_t sparseIn = 0;
  for (const Circle& c : sparse.circles()) sparseIn += boxContainsPoint(sparse.queryRegion(), c.center);
  EXPECT_GT(sparseIn, 150u);  // uniform: about a quarter
}

TEST(Scene, UnknownNamesAndBadParametersAreRejected) {
  EXPECT_THROW(Simulation("nosuch", {}, 10, 1), InvalidInput);
  EXPECT_THROW(Simulation("uniform", {}, 0, 1), InvalidInput);
  SceneConfig config;
  EXPECT_THROW(setSceneParam(config, "nosuch", 1), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "static_fraction", 1.5), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "attractors", 2.5), InvalidInput);
}

TEST(Scene, SpheretestParametersAreValidated) {
  SceneConfig config;
  for (const auto& [key, value] : {std::pair<const char*, double>{"swarm_radius", 0.1},
                                   {"attractor_speed", 0.0},
                                   {"attractor_jump", 0.0},
                                   {"static_jump", 10.0}}) {
    setSceneParam(config, key, value);
    EXPECT_EQ(sceneParam(config, key), value) << key;
  }
  EXPECT_THROW(setSceneParam(config, "swarm_radius", 0.0), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "swarm_radius", 0.6), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "attractor_speed", -1.0), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "attractor_jump", -1.0), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "attractor_jump", 1001.0), InvalidInput);
  EXPECT_THROW(setSceneParam(config, "static_jump", std::nan("")), InvalidInput);
  // The settings reach the scene: still points and no jumps.
  Simulation sim("spheretest", config, 500, 1);
  const std::vector<Vec2> points = sim.attractors();
  for (int f = 0; f < 60; ++f) sim.step();
  EXPECT_EQ(sim.attractors(), points);
}

std::string writeFile(const std::string& name, const std::string& content) {
  const std::string path = (std::filesystem::temp_directory_path() / ("spheretest_scene_" + name)).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(SceneFile, ParsesHeaderColumnsAndStatic) {
  const auto circles = loadSceneFile(writeFile("ok.csv", "x,y,radius,static\r\n1,2,3,1\n\n-4.5,1e3,0,0\n"));
  ASSERT_EQ(circles.size(), 2u);
  EXPECT_EQ(circles[0].circle, (Circle{{1, 2}, 3}));
  EXPECT_TRUE(circles[0].isStatic);
  EXPECT_FALSE(circles[1].isStatic);
  Simulation sim("spheretest", {}, circles, 1);
  EXPECT_EQ(sim.circles().size(), 2u);
  EXPECT_EQ(sim.movedIds().size(), 1u);
}

TEST(SceneFile, AcceptsTheByteOrderMarkASpreadsheetWrites) {
  const auto circles = loadSceneFile(writeFile("bom.csv", "\xEF\xBB\xBFx,y,radius\r\n1,2,3\r\n"));
  ASSERT_EQ(circles.size(), 1u);
  EXPECT_EQ(circles[0].circle, (Circle{{1, 2}, 3}));
  // Only in front of the header: elsewhere it is not a number.
  EXPECT_THROW(loadSceneFile(writeFile("bom2.csv",
                                       "x,y,radius\n\xEF\xBB\xBF"
                                       "1,2,3\n")),
               SceneFileError);
}

TEST(SceneFile, ADirectoryIsNamedAsOne) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / "spheretest_scene_dir.csv";
  std::filesystem::create_directories(directory);
  try {
    loadSceneFile(directory.string());
    ADD_FAILURE() << "no error";
  } catch (const SceneFileError& error) {
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).find("empty file"), std::string::npos) << error.what();
  }
}

TEST(SceneFile, ErrorsNameFileAndLine) {
  const auto expectError = [](const std::string& path, const std::string& fragment) {
    try {
      loadSceneFile(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const SceneFileError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  expectError("/no/such/file.csv", "/no/such/file.csv: cannot open");
  expectError(writeFile("empty.csv", ""), "empty file");
  expectError(writeFile("header.csv", "a,b,c\n1,2,3\n"), ":1: expected the header");
  expectError(writeFile("columns.csv", "x,y,radius\n1,2,3\n1,2\n"), ":3: expected 3 columns");
  expectError(writeFile("nan.csv", "x,y,radius\n1,nan,3\n"), ":2: column 'y'");
  expectError(writeFile("inf.csv", "x,y,radius\n1,2,inf\n"), ":2: column 'radius'");
  expectError(writeFile("neg.csv", "x,y,radius\n1,2,-3\n"), ":2: radius must be >= 0");
  expectError(writeFile("static.csv", "x,y,radius,static\n1,2,3,2\n"), ":2: column 'static'");
  expectError(writeFile("long.csv", "x,y,radius\n" + std::string(1 << 20, '1') + ",1,1\n"),
              ":2: line longer");
  expectError(writeFile("huge.csv", "x,y,radius\n1e30,0,1\n"), ":2: coordinates");
  expectError(writeFile("nocircles.csv", "x,y,radius\n"), "no circles");
}

TEST(SceneFile, MultiGigabyteFileFailsFastWithBoundedMemory) {
  // A sparse 3 GiB file: reading it whole would take seconds and gigabytes; the loader stops at line 1.
  const std::string path = writeFile("huge_sparse.csv", "");
  std::filesystem::resize_file(path, 3ull << 30);
  try {
    loadSceneFile(path);
    ADD_FAILURE() << "no error";
  } catch (const SceneFileError& error) {
    EXPECT_NE(std::string(error.what()).find(":1: line longer"), std::string::npos) << error.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace st
