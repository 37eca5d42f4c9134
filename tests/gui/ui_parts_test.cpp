// The window's parts without a window: the camera's transforms, the settings store, the frame-timing
// ring, the demo model (switching, reseeding, stepping, the brute-force guard), the part registry, and
// what the query tool and the overlays produce for one frame, checked against brute force.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include <imgui.h>

#include "render/camera.hpp"
#include "render/free_area.hpp"
#include "render/palette.hpp"
#include "spheretest/registry.hpp"
#include "ui/model/demo_model.hpp"
#include "ui/model/frame_timings.hpp"
#include "ui/model/settings.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/panels/inspect.hpp"
#include "ui/panels/part_names.hpp"

namespace st::ui {
namespace {

const StructureRegistry& registry() {
  static const StructureRegistry r = StructureRegistry::withCoreStructures();
  return r;
}

std::unique_ptr<DemoModel> makeModel(std::size_t count, const std::string& structure) {
  SceneSetup setup;
  setup.count = count;
  auto simulation = std::make_unique<Simulation>(setup.scenario, setup.config, setup.count, setup.seed);
  return std::make_unique<DemoModel>(
      registry(), [](const std::string& name) { return registry().create(name); }, std::move(simulation),
      setup, structure);
}

// ---------------------------------------------------------------------------------------------------------
// Camera
// ---------------------------------------------------------------------------------------------------------

TEST(Camera, ScreenAndWorldRoundTrip) {
  render::Camera camera;
  camera.setViewport(1280, 800);
  camera.fit({{0, 0}, {500, 500}});
  for (Vec2 p : {Vec2{0, 0}, Vec2{250, 250}, Vec2{500, 17.5f}, Vec2{-30, 900}}) {
    const Vec2 s = camera.worldToScreen(p);
    const Vec2 back = camera.screenToWorld(s.x, s.y);
    EXPECT_NEAR(back.x, p.x, 1e-3);
    EXPECT_NEAR(back.y, p.y, 1e-3);
  }
  // World y points up, screen y down; the fitted world's centre is the viewport's.
  const Vec2 centre = camera.worldToScreen({250, 250});
  EXPECT_NEAR(centre.x, 640, 1e-3);
  EXPECT_NEAR(centre.y, 400, 1e-3);
  EXPECT_LT(camera.worldToScreen({250, 400}).y, centre.y);
  const Box visible = camera.visibleWorld();
  EXPECT_TRUE(boxContains(visible, {{0, 0}, {500, 500}}));
}

TEST(Camera, ZoomKeepsThePointUnderTheCursor) {
  render::Camera camera;
  camera.setViewport(1000, 600);
  camera.fit({{-100, -100}, {100, 100}});
  const Vec2 before = camera.screenToWorld(123, 456);
  camera.zoomAround(123, 456, 3.0f);
  const Vec2 after = camera.screenToWorld(123, 456);
  EXPECT_NEAR(after.x, before.x, 1e-3);
  EXPECT_NEAR(after.y, before.y, 1e-3);
  const float scale = camera.pixelsPerUnit();
  camera.panPixels(10, 0);
  EXPECT_FLOAT_EQ(camera.pixelsPerUnit(), scale);
  EXPECT_NEAR(camera.screenToWorld(133, 456).x, after.x, 1e-3);
}

// ---------------------------------------------------------------------------------------------------------
// Settings and timings
// ---------------------------------------------------------------------------------------------------------

// F fits the world into the part of the window the panels leave free, centred there.
TEST(Camera, FitsTheWorldBesideThePanels) {
  const render::ScreenRect screen{0, 0, 1600, 900};
  const Box world{{0, 0}, {100, 100}};
  // A menu bar along the top and a panel down the left third: the world goes to the right two thirds.
  const std::vector<render::ScreenRect> panels = {{0, 0, 1600, 20}, {0, 20, 540, 900}};
  const render::ScreenRect area = render::freeAreaFor(screen, panels, 100, 100);
  EXPECT_EQ(area.x0, 540);
  EXPECT_EQ(area.y0, 20);
  EXPECT_EQ(area.x1, 1600);
  EXPECT_EQ(area.y1, 900);
  render::Camera camera;
  camera.setViewport(1600, 900);
  camera.fitInto(world, area.x0, area.y0, area.x1, area.y1);
  const Vec2 low = camera.worldToScreen(world.min), high = camera.worldToScreen(world.max);
  EXPECT_GE(low.x, 540.0f);
  EXPECT_LE(high.x, 1600.0f);
  EXPECT_GE(high.y, 20.0f);  // y down: the world's top edge
  EXPECT_LE(low.y, 900.0f);
  EXPECT_NEAR(0.5f * (low.x + high.x), 1070.0f, 0.5f);
  EXPECT_NEAR(0.5f * (low.y + high.y), 460.0f, 0.5f);
  // Panels over nearly everything: the whole screen rather than a sliver.
  const std::vector<render::ScreenRect> crowded = {{0, 0, 1550, 900}};
  const render::ScreenRect fallback = render::freeAreaFor(screen, crowded, 100, 100);
  EXPECT_EQ(fallback.x0, 0);
  EXPECT_EQ(fallback.x1, 1600);
  // A wide panel in the middle leaves two strips that would show the world at less than half the size the
  // whole screen gives: the whole screen.
  const std::vector<render::ScreenRect> middle = {{0, 0, 1600, 20}, {400, 30, 1200, 880}};
  const render::ScreenRect behind = render::freeAreaFor(screen, middle, 100, 100);
  EXPECT_EQ(behind.x0, 0);
  EXPECT_EQ(behind.x1, 1600);
  // No panels: the whole screen.
  EXPECT_EQ(render::freeAreaFor(screen, {}, 100, 100).x0, 0);
}

TEST(Settings, RoundTripThroughAFileWithSections) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "spheretest_ui_settings_test.ini").string();
  {
    Settings settings;
    SettingsSection part(settings, "part.Query.");
    part.setBool("follow_mouse", true);
    part.setNumber("mode", 4);
    settings.setString("title", "two\nlines");
    settings.setNumber("view.min_circle_px", 0.8);
    ASSERT_TRUE(settings.save(path));
  }
  Settings loaded;
  loaded.load(path);
  std::remove(path.c_str());
  const SettingsSection part(loaded, "part.Query.");
  EXPECT_TRUE(part.getBool("follow_mouse", false));
  EXPECT_EQ(part.getNumber("mode", 0), 4);
  EXPECT_TRUE(loaded.has("part.Query.mode"));
  EXPECT_EQ(loaded.getString("title", ""), "two lines");
  EXPECT_DOUBLE_EQ(loaded.getNumber("view.min_circle_px", 0), 0.8);
  EXPECT_EQ(loaded.getNumber("missing", 7.5), 7.5);
}

TEST(Settings, MalformedValuesFallBack) {
  Settings settings;
  settings.setString("flag", "maybe");
  settings.setString("number", "twelve");
  EXPECT_TRUE(settings.getBool("flag", true));
  EXPECT_FALSE(settings.getBool("flag", false));
  EXPECT_EQ(settings.getNumber("number", 3), 3);
}

TEST(FrameTimings, KeepsTheLatestFramesAndAverages) {
  FrameTimings timings;
  for (std::size_t i = 0; i < FrameTimings::kCapacity + 10; ++i) {
    FrameRecord r;
    r[Phase::Pairs] = float(i);
    r.frameMs = 2.0f * float(i);
    timings.push(r);
  }
  EXPECT_EQ(timings.size(), FrameTimings::kCapacity);
  EXPECT_EQ(timings.at(0)[Phase::Pairs], 10.0f);
  EXPECT_EQ(timings.at(timings.size() - 1)[Phase::Pairs], float(FrameTimings::kCapacity + 9));
  const FrameRecord last2 = timings.average(2);
  EXPECT_FLOAT_EQ(last2[Phase::Pairs], float(FrameTimings::kCapacity) + 8.5f);
  EXPECT_FLOAT_EQ(last2.frameMs, 2.0f * (float(FrameTimings::kCapacity) + 8.5f));
  timings.clear();
  EXPECT_EQ(timings.size(), 0u);
  EXPECT_EQ(timings.average(10).frameMs, 0.0f);
}

// ---------------------------------------------------------------------------------------------------------
// Demo model
// ---------------------------------------------------------------------------------------------------------

TEST(DemoModel, SwitchingBuildsTheNewStructureFromTheSameMovingCircles) {
  auto model = makeModel(1500, "brute");
  FrameRecord record;
  for (int i = 0; i < 5; ++i) model->advance(record);
  const std::vector<Circle> before = model->simulation().circles();
  const std::uint64_t generation = model->generation();
  std::vector<Pair> brutePairs = model->pairs();
  std::sort(brutePairs.begin(), brutePairs.end());

  const std::string other = registry().all().back().name;
  ASSERT_TRUE(model->selectStructure(other));
  EXPECT_EQ(model->structure().name(), other);
  EXPECT_EQ(model->registry().all()[model->structureIndex()].name, other);
  EXPECT_GT(model->generation(), generation);
  EXPECT_EQ(model->structure().size(), before.size());
  EXPECT_EQ(model->simulation().circles(), before);
  EXPECT_EQ(model->structure().validate(), "");

  // Pause: no step, but the pairs of the same circles are found again, by the new structure.
  model->paused = true;
  model->advance(record);
  EXPECT_EQ(model->stepsLastFrame(), 0);
  std::vector<Pair> pairs = model->pairs();
  std::sort(pairs.begin(), pairs.end());
  EXPECT_EQ(pairs, brutePairs);

  model->requestStep();
  model->advance(record);
  EXPECT_EQ(model->stepsLastFrame(), 1);
  EXPECT_EQ(model->structure().validate(), "");
}

TEST(DemoModel, CyclingWrapsAroundTheRegistry) {
  auto model = makeModel(200, "brute");
  model->cycleStructure(-1);
  EXPECT_EQ(model->structureIndex(), registry().all().size() - 1);
  model->cycleStructure(+1);
  EXPECT_EQ(model->structureIndex(), 0u);
}

// Digit keys reach every structure of the registry: 1 .. 9, 0 the first ten, with Shift the rest.
TEST(DemoModel, DigitKeysReachEveryStructure) {
  auto model = makeModel(200, "grid");
  const auto& all = registry().all();
  ASSERT_GT(all.size(), 10u);
  for (std::size_t index = 0; index < all.size(); ++index) {
    const int digit = int((index % 10 + 1) % 10);
    EXPECT_TRUE(model->selectByDigit(digit, index >= 10)) << all[index].name;
    EXPECT_EQ(model->structureIndex(), index) << all[index].name;
  }
  const std::size_t before = model->structureIndex();
  EXPECT_FALSE(model->selectByDigit(0, true));  // the twentieth: there is none
  EXPECT_EQ(model->structureIndex(), before);
}

TEST(DemoModel, SpeedAccumulatesFractionalSteps) {
  auto model = makeModel(100, "brute");
  model->speed = 0.5f;
  FrameRecord record;
  int steps = 0;
  for (int i = 0; i < 10; ++i) {
    model->advance(record);
    steps += model->stepsLastFrame();
  }
  EXPECT_EQ(steps, 5);
  EXPECT_EQ(model->simulation().frame(), 5u);
}

TEST(DemoModel, ReseedAndRejectedInput) {
  auto model = makeModel(300, registry().all().back().name);
  SceneSetup setup = model->scene();
  setup.count = 700;
  setup.scenario = "uniform";
  ASSERT_TRUE(model->reseed(setup));
  EXPECT_EQ(model->simulation().circles().size(), 700u);
  EXPECT_EQ(model->structure().size(), 700u);
  EXPECT_EQ(model->scene().scenario, "uniform");

  setup.scenario = "no-such-scene";
  EXPECT_FALSE(model->reseed(setup));
  EXPECT_FALSE(model->lastError().empty());
  EXPECT_EQ(model->simulation().circles().size(), 700u);

  EXPECT_FALSE(model->setParam("no_such_parameter", 1.0));
  EXPECT_FALSE(model->lastError().empty());
  EXPECT_FALSE(model->selectStructure("no-such-structure"));
  EXPECT_EQ(model->structure().size(), 700u);
}

TEST(DemoModel, BruteForcePairSearchIsSwitchedOffAboveTheLimitAndBackOnAfter) {
  auto model = makeModel(kBrutePairLimit + 1, "brute");
  EXPECT_FALSE(model->pairSearch);
  EXPECT_FALSE(model->pairSearchNote().empty());
  ASSERT_TRUE(model->selectStructure(registry().all().back().name));
  EXPECT_TRUE(model->pairSearch);
  EXPECT_TRUE(model->pairSearchNote().empty());
}

// ---------------------------------------------------------------------------------------------------------
// Parts
// ---------------------------------------------------------------------------------------------------------

TEST(Parts, EveryIssuePanelAndOverlayIsRegisteredOnce) {
  std::set<std::string> names;
  for (const PartInfo& info : registeredParts()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
  }
  for (const char* expected :
       {"Control", "Query", "Stats", "Timings", "Help", "Overlays", "Structure nodes", "Overlapping circles",
        "Pair lines", "Attraction points", "View cone", part_names::kQueryTrace, part_names::kCandidates}) {
    EXPECT_EQ(names.count(expected), 1u) << expected;
  }
  // Panels come before overlays, each group by its order.
  const auto& parts = registeredParts();
  EXPECT_TRUE(std::is_sorted(parts.begin(), parts.end(), [](const PartInfo& a, const PartInfo& b) {
    return a.category != b.category ? a.category < b.category : a.order < b.order;
  }));
}

struct Frame {
  std::unique_ptr<DemoModel> model;
  render::Camera camera;
  ViewOptions view;
  std::vector<PartSlot> parts = createParts();
  DemoContext ctx{*model, camera, view, parts};
  WorldCanvas canvas;
  std::vector<render::CircleInstance> circles;

  explicit Frame(std::unique_ptr<DemoModel> m) : model(std::move(m)) {
    camera.setViewport(1280, 800);
    camera.fit(model->simulation().world());
  }
  PartSlot& slot(const std::string& name) {
    return *std::find_if(parts.begin(), parts.end(), [&](const PartSlot& s) { return s.info->name == name; });
  }
  void run() {
    FrameRecord record;
    model->advance(record);
    for (PartSlot& s : parts) s.part->update(ctx);
    circles.assign(model->simulation().circles().size(), render::CircleInstance{});
    canvas.underlay = canvas.overlay = nullptr;
    canvas.below.clear(camera.pixelsPerUnit());
    canvas.above.clear(camera.pixelsPerUnit());
    canvas.top.clear(camera.pixelsPerUnit());
    canvas.rings.clear();
    canvas.marks.clear();
    for (const auto category : {PartCategory::Overlay, PartCategory::Panel}) {
      for (PartSlot& s : parts) {
        if (s.info->category != category || (category == PartCategory::Overlay && !s.shown)) continue;
        s.part->tintCircles(ctx, circles);
        s.part->drawWorld(ctx, canvas);
      }
    }
  }
};

/// An ImGui context without a window or a renderer, so panels can be drawn (into draw lists nobody renders)
/// and their cost and state checked.
class HeadlessImGui {
 public:
  HeadlessImGui() {
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int width = 0, height = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  }
  ~HeadlessImGui() { ImGui::DestroyContext(context_); }
  HeadlessImGui(const HeadlessImGui&) = delete;
  HeadlessImGui& operator=(const HeadlessImGui&) = delete;

  /// One ImGui frame with `slot`'s panel open in a window of `size`.
  void drawPanel(Frame& frame, PartSlot& slot, ImVec2 size = ImVec2(360, 700)) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(10, 10));
    ImGui::SetNextWindowSize(size);
    if (ImGui::Begin(slot.info->name.c_str())) slot.part->drawPanel(frame.ctx);
    ImGui::End();
    ImGui::Render();
  }

 private:
  ImGuiContext* context_ = nullptr;
};

std::vector<ItemId> bruteCircleQuery(const Simulation& sim, const Circle& query) {
  std::vector<ItemId> ids;
  for (std::size_t i = 0; i < sim.circles().size(); ++i) {
    if (circlesOverlap(sim.circles()[i], query)) ids.push_back(static_cast<ItemId>(i));
  }
  return ids;
}

TEST(Parts, QueryToolAnswersLikeBruteForceAndTracesTheWalk) {
  const std::string structure = registry().all().back().name;
  Frame frame(makeModel(2000, structure));
  frame.run();
  const QueryState& q = frame.model->query;
  ASSERT_EQ(q.mode, QueryShape::Circle);
  ASSERT_TRUE(q.error.empty()) << q.error;
  std::vector<ItemId> hits = q.hits;
  std::sort(hits.begin(), hits.end());
  EXPECT_EQ(hits, bruteCircleQuery(frame.model->simulation(), {q.anchor, q.radius}));
  EXPECT_FALSE(hits.empty());
  // The traced run records one Hit per hit, and the structure visited nodes to find them.
  const auto traceHits = std::count_if(q.trace.events.begin(), q.trace.events.end(),
                                       [](const TraceEvent& e) { return e.kind == TraceEventKind::Hit; });
  EXPECT_EQ(static_cast<std::size_t>(traceHits), hits.size());
  EXPECT_GT(q.counters.candidates, 0u);
  // Candidates and hits overlay: every hit is filled with the hit colour.
  for (ItemId id : hits) EXPECT_NE(frame.circles[id].fill, 0u) << id;

  // Without the overlays that need it, no trace is recorded.
  frame.slot(part_names::kQueryTrace).shown = false;
  frame.slot(part_names::kCandidates).shown = false;
  frame.run();
  EXPECT_TRUE(frame.model->query.trace.events.empty());
}

// The query tool's saved mode applies to a fresh window; a query the command line placed before the first
// frame keeps its mode.
TEST(Parts, QueryToolKeepsAModeSetBeforeTheFirstFrame) {
  for (const bool placedByCommandLine : {false, true}) {
    Frame frame(makeModel(500, "grid"));
    Settings settings;
    SettingsSection section(settings, "query.");
    section.setNumber("mode", static_cast<double>(queryModeIndex(QueryShape::Point)));
    frame.slot("Query").part->loadSettings(section);
    if (placedByCommandLine) {
      frame.model->query.mode = QueryShape::Segment;
      frame.model->query.placed = true;
    }
    frame.run();
    EXPECT_EQ(frame.model->query.mode, placedByCommandLine ? QueryShape::Segment : QueryShape::Point);
  }
}

TEST(Parts, ViewConeReportsEnterAndLeaveAgainstItsVisibleSet) {
  Frame frame(makeModel(2000, registry().all().back().name));
  frame.model->query.mode = QueryShape::Cone;
  frame.run();
  const QueryState& q = frame.model->query;
  ASSERT_TRUE(q.error.empty()) << q.error;
  // The first cull of a structure reports every visible circle as entering.
  EXPECT_EQ(q.entered, q.hits);
  EXPECT_TRUE(q.left.empty());
  std::set<ItemId> visible(q.hits.begin(), q.hits.end());
  for (int i = 0; i < 10; ++i) {
    frame.run();
    for (ItemId id : frame.model->query.entered) EXPECT_TRUE(visible.insert(id).second);
    for (ItemId id : frame.model->query.left) EXPECT_EQ(visible.erase(id), 1u);
    EXPECT_EQ(std::vector<ItemId>(visible.begin(), visible.end()), frame.model->query.hits);
  }
}

/// Texels of an image that are not clear.
std::size_t litTexels(const render::WorldImage* image) {
  return image == nullptr || image->empty()
             ? 0u
             : std::size_t(std::count_if(image->texels.begin(), image->texels.end(),
                                         [](std::uint32_t c) { return (c >> 24) != 0u; }));
}

TEST(Parts, NodeOverlayDrawsTheStructuresNodesAndNothingForBruteForce) {
  Frame brute(makeModel(2000, "brute"));
  brute.slot(part_names::kQueryTrace).shown = false;
  brute.run();
  const std::size_t bruteLines = litTexels(brute.canvas.overlay) + brute.canvas.rings.size();
  EXPECT_EQ(litTexels(brute.canvas.overlay), 0u);

  for (const StructureInfo& info : registry().all()) {
    if (info.name == "brute") continue;
    Frame frame(makeModel(2000, info.name));
    frame.slot(part_names::kQueryTrace).shown = false;
    frame.run();
    std::size_t nodes = 0;
    frame.model->structure().visitNodes([&](const NodeInfo&) { ++nodes; });
    if (nodes == 0) continue;
    const std::size_t lines = litTexels(frame.canvas.overlay) + frame.canvas.rings.size();
    EXPECT_GT(lines, bruteLines) << info.name << " has " << nodes << " nodes but the overlay drew none";
  }
}

TEST(Parts, OverlappingCirclesGetARimAndHiddenOverlaysDrawNothing) {
  Frame frame(makeModel(3000, registry().all().back().name));
  frame.slot("Overlapping circles").shown = true;
  // Zoomed in until the smallest circle is 3 pixels in radius: every overlapping circle is rimmed.
  frame.camera.zoomAround(640, 400, 6.0f / (0.5f * frame.camera.pixelsPerUnit()));
  frame.run();
  ASSERT_FALSE(frame.model->pairs().empty());
  for (const Pair& p : frame.model->pairs()) {
    EXPECT_NE(frame.circles[p.a].rim, 0u);
    EXPECT_NE(frame.circles[p.b].rim, 0u);
  }
  for (PartSlot& s : frame.parts) {
    if (s.info->category == PartCategory::Overlay) s.shown = false;
  }
  frame.model->query.mode = std::nullopt;
  frame.run();
  EXPECT_TRUE(frame.canvas.above.empty());
  EXPECT_TRUE(frame.canvas.below.empty());
  EXPECT_TRUE(frame.canvas.rings.empty());
  EXPECT_TRUE(std::all_of(frame.circles.begin(), frame.circles.end(),
                          [](const render::CircleInstance& c) { return c.rim == 0u && c.fill == 0u; }));
}

TEST(Parts, OverlapsAreMarkedOnlyOnCirclesBigEnoughToShowTheMark) {
  // Zoomed out, a rim or a line on a circle under 3 pixels in radius would hide its colour (in a swarm
  // nearly every circle overlaps another): those pairs are left unmarked, the others are marked.
  Frame frame(makeModel(3000, "grid"));
  for (PartSlot& s : frame.parts) {
    if (s.info->category == PartCategory::Overlay)
      s.shown = s.info->name == "Overlapping circles" || s.info->name == "Pair lines";
  }
  frame.model->query.mode = std::nullopt;
  frame.run();
  const std::vector<Circle>& circles = frame.model->simulation().circles();
  const float minRadius = 3.0f / frame.camera.pixelsPerUnit();
  std::size_t rimmed = 0, bare = 0, lines = 0;
  for (const Pair& p : frame.model->pairs()) {
    for (ItemId id : {p.a, p.b}) {
      const bool big = circles[id].radius >= minRadius;
      EXPECT_EQ(frame.circles[id].rim != 0u, big) << id;
      (big ? rimmed : bare) += 1;
    }
    // A line is drawn between two marked circles unless it would be under a pixel long.
    const Vec2 d = circles[p.a].center - circles[p.b].center;
    lines += std::min(circles[p.a].radius, circles[p.b].radius) >= minRadius &&
             std::fabs(d.x) + std::fabs(d.y) >= 1.0f / frame.camera.pixelsPerUnit();
  }
  EXPECT_GT(rimmed, 0u);
  EXPECT_GT(bare, 0u);
  EXPECT_EQ(frame.canvas.above.lines().size(), 2 * lines);
}

// The structure's own figures can take tens of milliseconds to gather at 100,000 circles (the enneatree's
// walk its whole directory): the Stats panel gathers them now and then, not on every frame.
TEST(Parts, StatsPanelCostsUnderAMillisecondAFrameAt100kCircles) {
  Frame frame(makeModel(100000, "enneatree"));
  frame.model->pairSearch = false;
  frame.model->paused = true;
  frame.run();
  HeadlessImGui imgui;
  PartSlot& stats = frame.slot("Stats");
  imgui.drawPanel(frame, stats);  // the first frame gathers them
  constexpr int kFrames = 40;
  const std::uint64_t start = nowNanoseconds();
  for (int i = 0; i < kFrames; ++i) imgui.drawPanel(frame, stats);
  const double meanMs = millisecondsSince(start) / kFrames;
  EXPECT_LT(meanMs, 1.0);
}

// ---------------------------------------------------------------------------------------------------------
// Palette and node drawing
// ---------------------------------------------------------------------------------------------------------

/// A colour in Oklab (lightness, a, b), where distances follow how different colours look.
std::array<double, 3> oklab(std::uint32_t colour) {
  auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  const double r = linear(render::redOf(colour)), g = linear(render::greenOf(colour)),
               b = linear(render::blueOf(colour));
  const double l = std::cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const double m = std::cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const double s = std::cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return {0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
          1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
          0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s};
}

double perceivedDistance(std::uint32_t x, std::uint32_t y) {
  const auto a = oklab(x), b = oklab(y);
  return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

double chroma(std::uint32_t colour) {
  const auto c = oklab(colour);
  return std::hypot(c[1], c[2]);
}

// Query states, depth and groups must never be confused: the reserved colours are far from every group
// and depth colour and from each other, depth is one near-neutral hue whose lightness falls with depth,
// and the groups are muted (the saturated colours are the query's).
TEST(Palette, QueryStatesDepthAndGroupsCannotBeConfused) {
  constexpr double kApart = 0.11;  // Oklab distance: clearly different colours, not shades of one
  std::vector<std::uint32_t> depth;
  for (int d = 0; d < render::kDepthLevels; ++d) depth.push_back(render::depthColour(d, 255));
  std::vector<std::uint32_t> groups(std::begin(render::kGroupColours), std::end(render::kGroupColours));
  for (const render::ReservedColour& reserved : render::kReservedColours) {
    for (std::uint32_t g : groups)
      EXPECT_GE(perceivedDistance(reserved.colour, g), kApart) << reserved.meaning;
    for (std::uint32_t d : depth)
      EXPECT_GE(perceivedDistance(reserved.colour, d), kApart) << reserved.meaning;
    for (const render::ReservedColour& other : render::kReservedColours) {
      if (&other != &reserved) {
        EXPECT_GE(perceivedDistance(reserved.colour, other.colour), kApart);
      }
    }
  }
  for (std::size_t i = 0; i < depth.size(); ++i) {
    EXPECT_LT(chroma(depth[i]), 0.03) << "depth " << i;
    EXPECT_LT(chroma(depth[i]), chroma(groups[0])) << "depth " << i;
    if (i > 0) {
      EXPECT_LT(oklab(depth[i])[0], oklab(depth[i - 1])[0] - 0.02) << "depth " << i;
    }
  }
  double strongestGroup = 0.0, weakestState = 1.0;
  for (std::uint32_t g : groups) strongestGroup = std::max(strongestGroup, chroma(g));
  for (std::uint32_t state : {render::colours::kHit, render::colours::kCandidateRim,
                              render::colours::kVisited, render::colours::kPruned})
    weakestState = std::min(weakestState, chroma(state));
  EXPECT_LT(strongestGroup, 0.6 * weakestState);
  // Consecutive groups (neighbouring swarms often have neighbouring numbers) are told apart too.
  for (std::size_t i = 0; i < groups.size(); ++i)
    EXPECT_GE(perceivedDistance(groups[i], groups[(i + 1) % groups.size()]), kApart) << "group " << i;
}

// The red rims and lines of overlapping pairs would paint every swarm red: off until asked for.
TEST(Parts, OverlapMarksAreOffByDefault) {
  for (const PartInfo& info : registeredParts()) {
    if (info.name == "Overlapping circles" || info.name == "Pair lines") {
      EXPECT_FALSE(info.shownByDefault) << info.name;
    }
  }
}

/// A frame showing only the node overlay, its settings given.
std::unique_ptr<Frame> nodesOnly(std::size_t count, const std::string& structure,
                                 const std::vector<std::pair<std::string, double>>& settings) {
  auto frame = std::make_unique<Frame>(makeModel(count, structure));
  for (PartSlot& s : frame->parts) {
    if (s.info->category == PartCategory::Overlay) s.shown = s.info->name == "Structure nodes";
  }
  frame->model->query.mode = std::nullopt;
  Settings store;
  SettingsSection section(store, "nodes.");
  for (const auto& [key, value] : settings) section.setNumber(key, value);
  frame->slot("Structure nodes").part->loadSettings(section);
  return frame;
}

// One level at a time: every drawn box is a node of that level, and every node of that level big enough
// on screen is drawn.
TEST(Parts, NodeOverlayShowsOneLevelAtATime) {
  auto frame =
      nodesOnly(3000, "quadtree", {{"one_level", 1}, {"min_depth", 2}, {"min_px", 1}, {"depth_fill", 0}});
  frame->run();
  ASSERT_NE(frame->canvas.overlay, nullptr);
  const render::WorldImage& image = *frame->canvas.overlay;
  ASSERT_FALSE(image.empty());
  // The texel where a vertical edge at x crosses height y.
  auto lit = [&](float x, float y) {
    const float pixel = (image.area.max.x - image.area.min.x) / float(image.width);
    const int col = int(std::floor((x - image.area.min.x) / pixel));
    const int row = int(std::floor((y - image.area.min.y) / pixel));
    if (col < 0 || col >= image.width || row < 0 || row >= image.height) return true;
    return (image.texels[std::size_t(row) * std::size_t(image.width) + std::size_t(col)] >> 24) != 0u;
  };
  std::vector<Box> levelTwo;
  frame->model->structure().visitNodes([&](const NodeInfo& node) {
    if (node.depth == 2) levelTwo.push_back(node.box);
  });
  ASSERT_GT(levelTwo.size(), 0u);
  std::size_t checked = 0;
  frame->model->structure().visitNodes([&](const NodeInfo& node) {
    const float midY = 0.5f * (node.box.min.y + node.box.max.y);
    if (node.depth == 2) {
      EXPECT_TRUE(lit(node.box.min.x, midY)) << "a level-2 node's edge is drawn";
      ++checked;
    }
    if (node.depth != 3) return;
    // A level-3 edge down the middle of its level-2 parent is no level-2 edge: it stays dark.
    for (const Box& parent : levelTwo) {
      const float split = 0.5f * (parent.min.x + parent.max.x);
      if (node.box.min.x == split && midY > parent.min.y && midY < parent.max.y) {
        EXPECT_FALSE(lit(node.box.min.x + 0.25f * (node.box.max.x - node.box.min.x) * 0.0f, midY))
            << "a level-3 edge is not drawn";
        ++checked;
      }
    }
  });
  EXPECT_GT(checked, levelTwo.size());
}

// At 100,000 circles most nodes are under a pixel or two and the deep ones sit under the swarms, whose
// circles cover them: the outlines stay few, a fill under the circles is lighter where the tree is deeper,
// and a haze over the circles marks where it goes deeper than the outlines show.
TEST(Parts, NodeOverlayShowsWhereTheTreeIsDeepAt100k) {
  // With leaves of 32, few cells under a swarm are narrower than the default 8 pixels; at 16 the deepest
  // levels there are too fine to outline, as more are on a smaller window.
  auto frame = nodesOnly(100000, "quadtree", {{"min_px", 16}});
  frame->model->pairSearch = false;
  frame->run();
  ASSERT_NE(frame->canvas.underlay, nullptr);
  ASSERT_NE(frame->canvas.overlay, nullptr);
  const render::WorldImage& fill = *frame->canvas.underlay;
  const render::WorldImage& haze = *frame->canvas.overlay;
  ASSERT_FALSE(fill.empty());
  ASSERT_FALSE(haze.empty());
  const Simulation& sim = frame->model->simulation();
  auto texel = [&](const render::WorldImage& image, Vec2 p) {
    const int col =
        std::clamp(int((p.x - image.area.min.x) / (image.area.max.x - image.area.min.x) * float(image.width)),
                   0, image.width - 1);
    const int row = std::clamp(
        int((p.y - image.area.min.y) / (image.area.max.y - image.area.min.y) * float(image.height)), 0,
        image.height - 1);
    return image.texels[std::size_t(row) * std::size_t(image.width) + std::size_t(col)];
  };
  auto lightness = [](std::uint32_t c) { return render::redOf(c) + render::greenOf(c) + render::blueOf(c); };
  // The haze around a place: the faintest texel near it, so that a one-pixel outline there does not count.
  auto hazeAt = [&](const render::WorldImage& image, Vec2 p) {
    const float pixel = (image.area.max.x - image.area.min.x) / float(image.width);
    float faintest = 1.0f;
    for (int dx = -4; dx <= 4; ++dx) {
      for (int dy = -4; dy <= 4; ++dy)
        faintest = std::min(faintest, render::alphaOf(texel(image, p + Vec2{float(dx), float(dy)} * pixel)));
    }
    return faintest;
  };
  // The middle of a swarm, and the place of the world farthest from every attraction point.
  const Vec2 swarm = sim.attractors().front();
  Vec2 sparse = sim.world().min;
  float best = -1.0f;
  for (int i = 1; i < 20; ++i) {
    for (int j = 1; j < 20; ++j) {
      const Vec2 p{sim.world().min.x + (sim.world().max.x - sim.world().min.x) * float(i) / 20.0f,
                   sim.world().min.y + (sim.world().max.y - sim.world().min.y) * float(j) / 20.0f};
      float nearest = 1e30f;
      for (const Vec2 a : sim.attractors()) nearest = std::min(nearest, length(p - a));
      if (nearest > best) best = nearest, sparse = p;
    }
  }
  EXPECT_GT(lightness(texel(fill, swarm)), lightness(texel(fill, sparse)) + 0.05f)
      << "the fill is lighter under a swarm, where the quadtree is deeper";
  EXPECT_GT(hazeAt(haze, swarm), hazeAt(haze, sparse) + 0.1f)
      << "the haze marks the levels under a swarm too fine to outline";
  // Switched off, the fill and the haze are gone (the outlines stay).
  auto bare = nodesOnly(100000, "quadtree", {{"min_px", 16}, {"depth_fill", 0}});
  bare->model->pairSearch = false;
  bare->run();
  EXPECT_TRUE(bare->canvas.underlay == nullptr || bare->canvas.underlay->empty());
  ASSERT_NE(bare->canvas.overlay, nullptr);
  EXPECT_EQ(hazeAt(*bare->canvas.overlay, swarm), 0.0f);
}

// The fill's shades step clearly with depth: each level of an eight-level tree is a visibly lighter shade.
TEST(Palette, DepthFillStepsClearly) {
  constexpr int kLevels = 8;
  for (int d = 1; d < kLevels; ++d) {
    const std::uint32_t shallower = render::depthFill(float(d - 1) / float(kLevels - 1));
    const std::uint32_t deeper = render::depthFill(float(d) / float(kLevels - 1));
    EXPECT_GT(oklab(deeper)[0], oklab(shallower)[0] + 0.012) << "depth " << d;
    EXPECT_LT(chroma(deeper), chroma(render::groupColour(0))) << "depth " << d;
  }
}

// Hits are drawn again over every node drawing (the marks layer): at 100,000 circles the cells of the walk
// would otherwise cover the hits they lead to. Visited and pruned cells under a few pixels become patches
// under the circles instead of outlines.
TEST(Parts, QueryHitsAreDrawnOverTheNodesAt100k) {
  Frame frame(makeModel(100000, "loose-quadtree"));
  frame.model->pairSearch = false;
  frame.run();
  const QueryState& q = frame.model->query;
  ASSERT_GT(q.hits.size(), 1000u);
  std::set<ItemId> hits(q.hits.begin(), q.hits.end());
  std::size_t marked = 0;
  for (const render::CircleInstance& m : frame.canvas.marks) {
    if (m.fill != render::colours::kHit) continue;
    ++marked;
    // Each mark is a hit's own circle.
    bool found = false;
    for (ItemId id : hits) {
      const Circle& c = frame.model->simulation().circles()[id];
      if (c.center.x == m.x && c.center.y == m.y) {
        found = true;
        hits.erase(id);
        break;
      }
    }
    EXPECT_TRUE(found);
    if (marked > 50) break;
  }
  EXPECT_GT(marked, 50u);
  std::size_t hitMarks = 0;
  for (const render::CircleInstance& m : frame.canvas.marks) hitMarks += m.fill == render::colours::kHit;
  EXPECT_EQ(hitMarks, q.hits.size());
  // The walk's small cells are patches (triangles under the circles), not outlines over the hits: the
  // outlines over the circles are far fewer than the nodes the walk visited.
  std::size_t walked = 0;
  for (const TraceEvent& e : q.trace.events)
    walked += e.kind == TraceEventKind::VisitNode || e.kind == TraceEventKind::PruneNode;
  frame.slot("Structure nodes").shown = false;
  frame.run();
  EXPECT_LT(frame.canvas.above.lines().size() / 8, walked / 4);
  EXPECT_FALSE(frame.canvas.below.triangles().empty());
}

// The timings plot takes its scale from the recent frames, not from the start-up frames' spike nor from a
// single slow frame, so the phases of a 16 ms frame fill it; the structure's own phases, a fraction of a
// millisecond at 3,000 circles, get a plot on their own scale.
TEST(FrameTimings, PlotScaleFollowsTheRecentFramesNotTheStartUp) {
  FrameTimings timings;
  FrameRecord startup;
  startup.frameMs = 200.0f;
  startup[Phase::Update] = 150.0f;
  for (std::uint64_t i = 0; i < FrameTimings::kStartupFrames; ++i) timings.push(startup);
  FrameRecord frame;
  frame.frameMs = 16.0f;
  frame[Phase::Pairs] = 0.16f;
  frame[Phase::Update] = 0.07f;
  frame[Phase::Draw] = 9.0f;
  for (int i = 0; i < 90; ++i) timings.push(i == 45 ? startup : frame);  // one rebuild-like spike
  EXPECT_TRUE(timings.isStartup(0));
  EXPECT_FALSE(timings.isStartup(FrameTimings::kStartupFrames));
  const float whole = plotCeiling(
      timings, 0, [](const FrameRecord& r) { return r.frameMs; }, 1.0f);
  EXPECT_GE(whole, 16.0f);
  EXPECT_LE(whole, 33.4f);
  const float structure = plotCeiling(
      timings, 0, [](const FrameRecord& r) { return r[Phase::Update] + r[Phase::Pairs] + r[Phase::Queries]; },
      0.05f);
  EXPECT_GE(structure, 0.23f);
  EXPECT_LE(structure, 0.5f) << "0.23 ms of structure work must fill the lower plot";
}

// ---------------------------------------------------------------------------------------------------------
// Inspector
// ---------------------------------------------------------------------------------------------------------

std::vector<ItemId> bruteOverlapping(const Simulation& sim, ItemId id) {
  std::vector<ItemId> ids = bruteCircleQuery(sim, sim.circles()[id]);
  ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
  return ids;
}

// A circle's details: the circle under a point, its overlapping partners as brute force finds them, and the
// path the structure names from the root to the node holding it; a structure naming none still shows the
// nodes around the centre.
TEST(Inspect, CircleDetailsMatchBruteForceAndTheStructuresPath) {
  for (const std::string structure : {"aabb-tree", "sphere-tree", "grid", "quadtree"}) {
    auto model = makeModel(3000, structure);
    FrameRecord record;
    for (int i = 0; i < 3; ++i) model->advance(record);
    SpatialIndex& index = model->structure();
    const Simulation& sim = model->simulation();
    for (ItemId id : {ItemId{5}, ItemId{1234}, ItemId{2999}}) {
      const Circle& c = sim.circles()[id];
      const std::optional<ItemId> under = circleNear(index, c.center, 0.0f);
      ASSERT_TRUE(under.has_value()) << structure;
      EXPECT_TRUE(circleContainsPoint(sim.circles()[*under], c.center));
      EXPECT_LE(sim.circles()[*under].radius, c.radius);

      const std::optional<CircleDetails> d = describeCircle(index, sim, id);
      ASSERT_TRUE(d.has_value());
      EXPECT_EQ(d->circle, c);
      EXPECT_EQ(d->group, sim.group(id));
      EXPECT_EQ(d->partners, bruteOverlapping(sim, id)) << structure << " " << id;
      ASSERT_FALSE(d->path.empty()) << structure;
      // Every one of these names the node holding the circle and the path to it.
      ASSERT_TRUE(d->pathNamed) << structure;
      if (structure != "grid") {
        EXPECT_EQ(d->path.front().depth, 0);
        EXPECT_TRUE(nodeContains(d->path.back(), c.center)) << structure;
      }
    }
  }
}

TEST(Inspect, NodeAtIsTheDeepestNodeAroundThePoint) {
  auto model = makeModel(3000, "quadtree");
  const Vec2 p = model->simulation().circles()[77].center;
  const std::optional<NodeInfo> node = nodeAt(model->structure(), p);
  ASSERT_TRUE(node.has_value());
  EXPECT_TRUE(nodeContains(*node, p));
  model->structure().visitNodes([&](const NodeInfo& other) {
    if (nodeContains(other, p)) {
      EXPECT_LE(other.depth, node->depth);
    }
  });
  EXPECT_FALSE(nodeAt(model->structure(), {-1e6f, -1e6f}).has_value());
}

bool dispatch(Frame& frame, const WorldMouse& mouse) {
  for (PartSlot& s : frame.parts) {
    if (s.part->onWorldMouse(frame.ctx, mouse)) return true;
  }
  return false;
}

// A right click on a circle opens the inspector on it: the circle ringed in white, its partners rimmed as
// overlapping, and the path from the root outlined.
TEST(Parts, RightClickInspectsTheCircleUnderTheCursor) {
  Frame frame(makeModel(3000, "aabb-tree"));
  frame.run();
  const ItemId id = 1234;
  const Circle c = frame.model->simulation().circles()[id];
  WorldMouse click;
  click.kind = WorldMouse::Kind::Click;
  click.button = 3;
  click.world = c.center;
  PartSlot& inspect = frame.slot("Inspect");
  inspect.shown = false;
  ASSERT_TRUE(dispatch(frame, click));
  EXPECT_TRUE(inspect.shown);
  frame.model->paused = true;
  frame.run();
  const std::optional<ItemId> picked =
      circleNear(frame.model->structure(), c.center, 4.0f / frame.camera.pixelsPerUnit());
  ASSERT_TRUE(picked.has_value());
  const Circle& pc = frame.model->simulation().circles()[*picked];
  const auto white = std::count_if(frame.canvas.rings.begin(), frame.canvas.rings.end(),
                                   [&](const render::CircleInstance& r) {
                                     return r.rim == render::rgba(255, 255, 255) && r.x == pc.center.x &&
                                            r.y == pc.center.y && r.radius > pc.radius;
                                   });
  EXPECT_EQ(white, 2);
  for (ItemId partner : bruteOverlapping(frame.model->simulation(), *picked))
    EXPECT_EQ(frame.circles[partner].rim, render::colours::kOverlapRim) << partner;
  EXPECT_FALSE(frame.canvas.above.lines().empty());
  // A left click without Shift is the query tool's, with Shift it is the inspector's.
  WorldMouse left = click;
  left.button = 1;
  EXPECT_FALSE(inspect.part->onWorldMouse(frame.ctx, left));
  left.shift = true;
  EXPECT_TRUE(inspect.part->onWorldMouse(frame.ctx, left));
}

// Hovering the world names the circle under the cursor in a tooltip, unless the cursor is over a panel.
TEST(Parts, HoverTooltipOnlyWhenImGuiDoesNotWantTheMouse) {
  Frame frame(makeModel(3000, "grid"));
  frame.model->paused = true;
  frame.run();
  HeadlessImGui imgui;
  PartSlot& inspect = frame.slot("Inspect");
  WorldMouse move;
  move.kind = WorldMouse::Kind::Move;
  move.world = frame.model->simulation().circles()[42].center;
  EXPECT_FALSE(dispatch(frame, move));  // hovering never takes the mouse
  frame.run();
  auto drawLists = [&](bool panelUnderCursor) {
    ImGui::GetIO().MousePos = ImVec2(600, 400);
    ImGui::NewFrame();
    if (panelUnderCursor) {
      ImGui::SetNextWindowPos(ImVec2(500, 300));
      ImGui::SetNextWindowSize(ImVec2(300, 300));
      ImGui::Begin("a panel");
      ImGui::End();
    }
    inspect.part->drawScreen(frame.ctx);
    ImGui::Render();
    return ImGui::GetDrawData()->CmdListsCount;
  };
  drawLists(false);                // a new tooltip sizes itself unseen on its first frame
  EXPECT_EQ(drawLists(false), 1);  // the tooltip
  drawLists(true);                 // the panel appears under the cursor ...
  EXPECT_EQ(drawLists(true), 1);   // ... and from the next frame on it has the mouse: the panel alone
}

// ImGui's wrapping breaks after '.' and ',' even inside a number ("1." then "44"); the panels' wrapping
// breaks only at spaces, so every number stays whole, and every line but a lone long word fits.
TEST(Parts, WrappedTextNeverBreaksInsideANumber) {
  HeadlessImGui imgui;
  ImGui::NewFrame();
  const std::string text =
      "Multiplier 1.5 gives 2.78 cells, 3.0 gives 1.78 and 10.0 gives 1.21; 12,345 lookups of 60,000 "
      "points: the measured 1.44 matches the seed's 1.44 within 0.01.";
  for (float width = 60.0f; width <= 400.0f; width += 7.0f) {
    const std::vector<std::string> lines = wrapAtSpaces(text, width);
    std::string joined;
    for (const std::string& line : lines) {
      if (line.find(' ') != std::string::npos) {
        EXPECT_LE(ImGui::CalcTextSize(line.c_str()).x, width) << line;
      }
      EXPECT_NE(line.front(), ' ');
      EXPECT_NE(line.back(), ' ');
      joined += (joined.empty() ? "" : " ") + line;
    }
    EXPECT_EQ(joined, text) << "width " << width;
  }
  // ImGui's own wrap at some width would split one of these numbers.
  bool imguiSplitsANumber = false;
  for (float width = 60.0f; width <= 400.0f && !imguiSplitsANumber; width += 7.0f) {
    const ImFont* font = ImGui::GetFont();
    const char* at = text.c_str();
    const char* end = at + text.size();
    while (at < end) {
      const char* next = font->CalcWordWrapPositionA(1.0f, at, end, width);
      if (next == at) break;
      if (next < end && std::isdigit(static_cast<unsigned char>(next[-1])) == 0 && next[-1] != ' ' &&
          std::isdigit(static_cast<unsigned char>(next[0])) != 0)
        imguiSplitsANumber = true;
      at = next;
      while (at < end && *at == ' ') ++at;
    }
  }
  EXPECT_TRUE(imguiSplitsANumber) << "ImGui's wrapping no longer splits numbers: wrapAtSpaces may go";
  ImGui::EndFrame();
}

}  // namespace
}  // namespace st::ui
