// The scenes: determinism, the static share, the centre lines, the remote cluster, scene files.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "spheretest/scene.hpp"

namespace st {
namespace {

TEST(Scene, SameSeedSameFrames) {
  Simulation a("spheretest", {}, 2000, 11), b("spheretest", {}, 2000, 11), c("spheretest", {}, 2000, 12);
  for (int f = 0; f < 50; ++f) a.step(), b.step(), c.step();
  EXPECT_EQ(a.circles(), b.circles());
  EXPECT_NE(a.circles(), c.circles());
}

TEST(Scene, AQuarterIsStaticAndNeverMoves) {
  Simulation sim("spheretest", {}, 1000, 3);
  const std::vector<Circle> start = sim.circles();
  for (int f = 0; f < 20; ++f) sim.step();
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
