// The split view: the same circles and the same query on two structures side by side, each drawn with its
// nodes, the nodes its walk visited and pruned, the circles it tested and the ones it found, and its
// counters underneath, so that the difference in work is seen and not only read.

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

namespace colours = render::colours;

/// Circles drawn per side at most: beyond this the panel would cost more than the window's own drawing.
constexpr std::size_t kMaxCirclesDrawn = 60000;
/// Nodes drawn per side at most.
constexpr std::size_t kMaxNodesDrawn = 20000;

enum class Mark : std::uint8_t { None, Tested, Hit };

/// Maps world coordinates into one canvas of the panel.
struct CanvasMap {
  ImVec2 origin;    ///< top-left pixel
  ImVec2 size;      ///< pixels
  Box view;         ///< world box shown
  float scale = 1;  ///< pixels per world unit

  ImVec2 at(Vec2 w) const {
    return {origin.x + (w.x - view.min.x) * scale, origin.y + size.y - (w.y - view.min.y) * scale};
  }
};

class SplitView final : public DemoPart {
 public:
  PanelPlacement placement() const override {
    PanelPlacement p{0.5f, 0.0f, -300.0f, 30.0f, 600.0f, 560.0f};
    p.overWorld = true;
    return p;
  }

  // -- per frame ------------------------------------------------------------------------------------------
  void update(DemoContext& ctx) override {
    if (teachRequestsChanged(requestsSeen_)) readRequest(ctx);
    if (!ctx.isShown(teach_names::kSplit)) return;
    for (Side& side : sides_) refresh(side, ctx.model);
  }

  void drawPanel(DemoContext& ctx) override {
    DemoModel& model = ctx.model;
    coverTheWorld(ctx);
    drawHeader(model);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Two lines under each side and the verdict, which takes two lines on a narrow panel.
    const bool narrow = avail.x < ImGui::GetFontSize() * 50.0f;
    const float lines = ImGui::GetTextLineHeightWithSpacing() * (narrow ? 5.3f : 4.3f);
    const ImVec2 canvas(std::max((avail.x - spacing) * 0.5f, 80.0f), std::max(avail.y - lines, 80.0f));
    const Box view = viewBox(model);
    for (int s = 0; s < 2; ++s) {
      if (s == 1) ImGui::SameLine();
      ImGui::BeginGroup();
      drawSide(sides_[s], model, view, canvas);
      ImGui::EndGroup();
    }
    drawVerdict();
  }

 private:
  struct Side {
    std::string name;            // structure shown ("" until chosen)
    bool followCurrent = false;  // show the window's structure itself
    std::unique_ptr<SpatialIndex> own;
    std::uint64_t generation = ~std::uint64_t{0};
    std::uint64_t frame = 0;
    QueryTrace trace;
    ShapeAnswer answer;
    QueryCounters counters;
    double microseconds = 0.0;
    std::string error;
    std::vector<Mark> marks;
  };

  void readRequest(DemoContext& ctx) {
    sides_[0].followCurrent = true;
    const std::string left = teachRequest("split_left");
    if (!left.empty() && ctx.model.registry().find(left)) {
      sides_[0].followCurrent = false;
      sides_[0].name = left;
    }
    const std::string right = teachRequest("split");
    sides_[1].name = !right.empty() && ctx.model.registry().find(right) ? right : "brute";
    aroundQuery_ = teachRequest("split_view") != "world";
  }

  /// The structure a side shows, brought up to the current circles.
  SpatialIndex* indexFor(Side& side, DemoModel& model) {
    if (side.followCurrent) {
      side.name = model.structure().name();
      side.own.reset();
      return &model.structure();
    }
    const Simulation& sim = model.simulation();
    // Any change of the window's structure, parameters or scene is a new generation; rebuilding then is the
    // simple way never to miss a change of the static circles. So is a gap of more than one step: a step's
    // batch holds every non-static circle but only the static ones that jumped in that very step.
    if (!side.own || side.own->name() != side.name || side.generation != model.generation() ||
        sim.frame() > side.frame + 1) {
      side.own = model.registry().create(side.name);
      side.own->setWorldHint(sim.world());
      side.own->build(sim.items());
      side.generation = model.generation();
      side.frame = sim.frame();
    } else if (sim.frame() != side.frame) {
      std::vector<Pair> unused;
      advanceStructure(*side.own, sim, unused, false);
      side.frame = sim.frame();
    }
    return side.own.get();
  }

  void refresh(Side& side, DemoModel& model) {
    side.error.clear();
    side.trace.events.clear();
    side.answer = {};
    side.counters = {};
    if (side.name.empty() && !side.followCurrent) return;
    try {
      SpatialIndex* index = indexFor(side, model);
      if (model.query.mode == std::nullopt) return;
      const std::uint64_t start = nowNanoseconds();
      runQueryShape(*index, model.query, side.answer);
      side.microseconds = millisecondsSince(start) * 1000.0;
      side.counters = side.answer.counters;
      traceQueryShape(*index, model.query, side.trace, side.answer);
    } catch (const std::exception& e) {
      side.error = e.what();
    }
  }

  // -- panel pieces --------------------------------------------------------------------------------------
  /// Puts the panel where the window shows the world (the area the other panels leave it), at least big
  /// enough for its two halves to read.
  static void coverTheWorld(DemoContext& ctx) {
    const ImGuiIO& io = ImGui::GetIO();
    const Box& world = ctx.model.simulation().world();
    const float sx = std::max(io.DisplayFramebufferScale.x, 1e-3f),
                sy = std::max(io.DisplayFramebufferScale.y, 1e-3f);
    const Vec2 a = ctx.camera.worldToScreen(world.min), b = ctx.camera.worldToScreen(world.max);
    const float top = ImGui::GetFrameHeight();
    ImVec2 min(std::max(std::min(a.x, b.x) / sx, 0.0f), std::max(std::min(a.y, b.y) / sy, top));
    ImVec2 max(std::min(std::max(a.x, b.x) / sx, io.DisplaySize.x),
               std::min(std::max(a.y, b.y) / sy, io.DisplaySize.y));
    const ImVec2 least(std::min(560.0f, io.DisplaySize.x), std::min(420.0f, io.DisplaySize.y - top));
    if (max.x - min.x < least.x) {
      const float grow = 0.5f * (least.x - (max.x - min.x));
      min.x = std::clamp(min.x - grow, 0.0f, io.DisplaySize.x - least.x);
      max.x = min.x + least.x;
    }
    if (max.y - min.y < least.y) {
      const float grow = 0.5f * (least.y - (max.y - min.y));
      min.y = std::clamp(min.y - grow, top, io.DisplaySize.y - least.y);
      max.y = min.y + least.y;
    }
    ImGui::SetWindowPos(min);
    ImGui::SetWindowSize(ImVec2(max.x - min.x, max.y - min.y));
    // Opaque: the window's own world, drawn underneath, must not show between the halves.
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    ImGui::GetWindowDrawList()->AddRectFilled(
        pos, ImVec2(pos.x + size.x, pos.y + size.y),
        ImGui::GetColorU32(ImGuiCol_WindowBg,
                           1.0f / std::max(ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w, 0.01f)));
  }

  void drawHeader(DemoModel& model) {
    const auto& all = model.registry().all();
    for (int s = 0; s < 2; ++s) {
      Side& side = sides_[s];
      ImGui::PushID(s);
      // On a narrow panel (a large UI scale beside a lesson) the header's items go on to a new line.
      if (s == 1 && fitsOnLine(scaled(200.0f) + ImGui::CalcTextSize("right").x)) ImGui::SameLine();
      ImGui::SetNextItemWidth(scaled(200.0f));
      const std::string label = side.followCurrent ? side.name + " (window's)" : side.name;
      if (ImGui::BeginCombo(s == 0 ? "left" : "right", label.c_str())) {
        if (ImGui::Selectable("the window's structure", side.followCurrent)) side.followCurrent = true;
        for (const StructureInfo& info : all) {
          if (ImGui::Selectable(info.name.c_str(), !side.followCurrent && info.name == side.name)) {
            side.followCurrent = false;
            side.name = info.name;
          }
        }
        ImGui::EndCombo();
      }
      ImGui::PopID();
    }
    if (fitsOnLine(ImGui::CalcTextSize("around the query").x + ImGui::GetFrameHeight())) ImGui::SameLine();
    ImGui::Checkbox("around the query", &aroundQuery_);
    if (aroundQuery_) {
      if (fitsOnLine(scaled(110.0f))) ImGui::SameLine();
      ImGui::SetNextItemWidth(scaled(110.0f));
      ImGui::SliderFloat("##zoom", &zoom_, 1.2f, 20.0f, "%.1fx query", ImGuiSliderFlags_Logarithmic);
    }
    const std::string query = std::string("query: ") + queryModeName(model.query.mode) + " (?)";
    if (fitsOnLine(ImGui::CalcTextSize(query.c_str()).x)) ImGui::SameLine();
    ImGui::TextDisabled("query: %s", queryModeName(model.query.mode));
    helpMarker(
        "Both sides answer the Query panel's query on the same circles (a cone is walked as its bounding "
        "circle). Green: nodes the walk entered; magenta: nodes it pruned (the nodes it visited are both); "
        "cyan rim: circles it tested and missed; yellow: hits. Faint boxes or circles are the structure's "
        "other nodes.");
  }

  Box viewBox(const DemoModel& model) const {
    const Box& world = model.simulation().world();
    const QueryState& q = model.query;
    if (!aroundQuery_ || !q.mode) return world;
    Box shape;
    switch (*q.mode) {
      case QueryShape::Point:
      case QueryShape::Nearest:
        shape = {q.anchor, q.anchor};
        break;
      case QueryShape::Circle:
        shape = boundsOf({q.anchor, q.radius});
        break;
      case QueryShape::Box:
        shape = queryBoxOf(q);
        break;
      default:
        shape = {{std::min(q.anchor.x, q.target.x), std::min(q.anchor.y, q.target.y)},
                 {std::max(q.anchor.x, q.target.x), std::max(q.anchor.y, q.target.y)}};
    }
    const float worldSide = std::max(world.max.x - world.min.x, world.max.y - world.min.y);
    const float half = std::max({0.5f * (shape.max.x - shape.min.x), 0.5f * (shape.max.y - shape.min.y),
                                 0.01f * worldSide}) *
                       zoom_;
    const Vec2 c{0.5f * (shape.min.x + shape.max.x), 0.5f * (shape.min.y + shape.max.y)};
    return boxFromCenter(c, half, half);
  }

  void drawSide(Side& side, const DemoModel& model, const Box& view, ImVec2 size) {
    const Simulation& sim = model.simulation();
    ImGui::PushID(&side);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("canvas", size);
    // One camera for both halves: the wheel over either zooms both around the query.
    if (ImGui::IsItemHovered() && ImGui::GetIO().MouseWheel != 0.0f && aroundQuery_)
      zoom_ = std::clamp(zoom_ * std::pow(1.15f, -ImGui::GetIO().MouseWheel), 1.2f, 20.0f);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(18, 20, 26, 255));
    draw->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);

    // Fit the view into the canvas, keeping the aspect ratio.
    CanvasMap map;
    const float w = std::max(view.max.x - view.min.x, 1e-6f), h = std::max(view.max.y - view.min.y, 1e-6f);
    map.scale = std::min(size.x / w, size.y / h);
    const float padX = (size.x / map.scale - w) * 0.5f, padY = (size.y / map.scale - h) * 0.5f;
    map.view = {{view.min.x - padX, view.min.y - padY}, {view.max.x + padX, view.max.y + padY}};
    map.origin = origin;
    map.size = size;

    const SpatialIndex* index = side.followCurrent ? &model.structure() : side.own.get();
    if (index != nullptr) drawNodes(*index, map, draw);
    drawCircles(side, sim, map, draw);
    // The walk on the nodes' cells (empty children passed over untested are no prune), then the circles it
    // tested and found over it, so that no cell covers a hit.
    for (const TraceEvent& e : side.trace.events) {
      if (e.kind == TraceEventKind::VisitNode)
        nodeShape(e.node, map, draw, static_cast<ImU32>(colours::kVisited), 1.5f);
      if (e.kind == TraceEventKind::PruneNode && !prunedWithoutTest(e))
        nodeShape(e.node, map, draw, static_cast<ImU32>(render::withAlpha(colours::kPruned, 170)), 1.0f);
    }
    drawMarks(side, sim, map, draw);
    drawQuery(model.query, map, draw);
    draw->PopClipRect();
    draw->AddText(ImVec2(origin.x + 6, origin.y + 4), IM_COL32(255, 230, 120, 255), side.name.c_str());

    if (!side.error.empty()) {
      ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "%s", side.error.c_str());
    } else {
      const TraceProgress p = progressAt(side.trace, side.trace.events.size());
      const SpatialIndex* shown = side.followCurrent ? &model.structure() : side.own.get();
      ImGui::Text("%s hits, %s circles examined, %.1f us", groupedNumber(side.answer.count()).c_str(),
                  examinedText(shown != nullptr ? shown->examinedLowerBound() : std::string_view{},
                               side.counters.candidates)
                      .c_str(),
                  side.microseconds);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      wrappedText(nodesVisitedText(shown != nullptr ? shown->nodesNotCounted() : std::string_view{},
                                   side.counters.nodesVisited, &p));
      ImGui::PopStyleColor();
    }
    ImGui::PopID();
  }

  static void nodeShape(const NodeInfo& node, const CanvasMap& map, ImDrawList* draw, ImU32 colour,
                        float thickness) {
    if (node.shape == NodeShape::Circle) {
      const ImVec2 c = map.at(node.circle.center);
      const float r = node.circle.radius * map.scale;
      if (r >= 1.0f) draw->AddCircle(c, r, colour, 0, thickness);
    } else {
      const ImVec2 a = map.at(node.box.min), b = map.at(node.box.max);
      draw->AddRect(ImVec2(a.x, b.y), ImVec2(b.x, a.y), colour, 0.0f, 0, thickness);
    }
  }

  static void drawNodes(const SpatialIndex& index, const CanvasMap& map, ImDrawList* draw) {
    std::size_t drawn = 0;
    index.visitNodes([&](const NodeInfo& node) {
      if (drawn >= kMaxNodesDrawn) return;
      const Box bounds = node.shape == NodeShape::Circle ? boundsOf(node.circle) : node.box;
      if (!boxesOverlap(bounds, map.view)) return;
      if ((bounds.max.x - bounds.min.x) * map.scale < 4.0f) return;
      nodeShape(node, map, draw, static_cast<ImU32>(render::depthColour(node.depth, 70)), 1.0f);
      ++drawn;
    });
  }

  static void drawCircles(Side& side, const Simulation& sim, const CanvasMap& map, ImDrawList* draw) {
    const std::vector<Circle>& circles = sim.circles();
    side.marks.assign(circles.size(), Mark::None);
    for (const TraceEvent& e : side.trace.events) {
      if (e.id >= circles.size()) continue;
      if (e.kind == TraceEventKind::Candidate) side.marks[e.id] = Mark::Tested;
      if (e.kind == TraceEventKind::Hit) side.marks[e.id] = Mark::Hit;
    }
    std::size_t drawn = 0;
    for (std::size_t i = 0; i < circles.size() && drawn < kMaxCirclesDrawn; ++i) {
      const Circle& c = circles[i];
      if (!boxesOverlap(boundsOf(c), map.view)) continue;
      ++drawn;
      const ImVec2 p = map.at(c.center);
      const float r = c.radius * map.scale;
      const int group = sim.group(static_cast<ItemId>(i));
      std::uint32_t fillColour = group < 0 ? colours::kStatic : render::groupColour(group);
      fillColour = render::withAlpha(fillColour, 150);
      if (r < 1.5f) {
        draw->AddRectFilled(ImVec2(p.x - 1, p.y - 1), ImVec2(p.x + 1, p.y + 1),
                            static_cast<ImU32>(fillColour));
      } else {
        draw->AddCircleFilled(p, r, static_cast<ImU32>(fillColour), r < 6.0f ? 10 : 0);
      }
    }
  }

  /// The circles the walk tested (cyan rim) and found (yellow), over everything else.
  static void drawMarks(const Side& side, const Simulation& sim, const CanvasMap& map, ImDrawList* draw) {
    const std::vector<Circle>& circles = sim.circles();
    for (int pass = 0; pass < 2; ++pass) {
      const Mark wanted = pass == 0 ? Mark::Tested : Mark::Hit;
      for (std::size_t i = 0; i < side.marks.size() && i < circles.size(); ++i) {
        if (side.marks[i] != wanted || !boxesOverlap(boundsOf(circles[i]), map.view)) continue;
        const ImVec2 p = map.at(circles[i].center);
        const float r = std::max(circles[i].radius * map.scale, 2.0f);
        if (wanted == Mark::Hit) {
          draw->AddCircleFilled(p, r, static_cast<ImU32>(colours::kHit), r < 6.0f ? 10 : 0);
          if (r >= 3.0f) draw->AddCircle(p, r, static_cast<ImU32>(colours::kHitRim), 12, 1.5f);
        } else {
          draw->AddCircle(p, r, static_cast<ImU32>(colours::kCandidateRim), 12, 1.5f);
        }
      }
    }
  }

  static void drawQuery(const QueryState& q, const CanvasMap& map, ImDrawList* draw) {
    const ImU32 c = static_cast<ImU32>(colours::kQueryShape);
    if (!q.mode) return;
    switch (*q.mode) {
      case QueryShape::Point:
      case QueryShape::Nearest: {
        const ImVec2 p = map.at(q.anchor);
        draw->AddLine(ImVec2(p.x - 6, p.y), ImVec2(p.x + 6, p.y), c, 1.5f);
        draw->AddLine(ImVec2(p.x, p.y - 6), ImVec2(p.x, p.y + 6), c, 1.5f);
        break;
      }
      case QueryShape::Circle:
        draw->AddCircle(map.at(q.anchor), q.radius * map.scale, c, 0, 1.5f);
        break;
      case QueryShape::Box: {
        const Box b = queryBoxOf(q);
        const ImVec2 a = map.at(b.min), e = map.at(b.max);
        draw->AddRect(ImVec2(a.x, e.y), ImVec2(e.x, a.y), c, 0.0f, 0, 1.5f);
        break;
      }
      case QueryShape::Segment:
        draw->AddLine(map.at(q.anchor), map.at(q.target), c, 1.5f);
        break;
      case QueryShape::Cone: {
        const ViewCone cone = viewConeOf(q);
        draw->AddCircle(map.at(cone.origin), cone.farDistance * map.scale, IM_COL32(255, 255, 255, 90), 0,
                        1.0f);
        break;
      }
    }
  }

  void drawVerdict() {
    const Side& a = sides_[0];
    const Side& b = sides_[1];
    if (!a.error.empty() || !b.error.empty() || a.trace.events.empty() || b.trace.events.empty()) return;
    const double ta = double(a.counters.candidates), tb = double(b.counters.candidates);
    char text[256];
    if (ta > 0 && tb > 0) {
      const bool leftFewer = ta <= tb;
      std::snprintf(text, sizeof text,
                    "Same %zu answers; %s examines %.1fx fewer circles than %s (%.0f vs %.0f).",
                    a.answer.count(), (leftFewer ? a : b).name.c_str(), leftFewer ? tb / ta : ta / tb,
                    (leftFewer ? b : a).name.c_str(), leftFewer ? ta : tb, leftFewer ? tb : ta);
    } else {
      std::snprintf(text, sizeof text, "Same %zu answers; exact tests: %.0f vs %.0f.", a.answer.count(), ta,
                    tb);
    }
    if (a.answer.count() != b.answer.count()) {
      ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "The two answers differ: %zu vs %zu results.",
                         a.answer.count(), b.answer.count());
    } else {
      wrappedText(text);
    }
  }

  std::uint64_t requestsSeen_ = 0;
  bool aroundQuery_ = true;
  float zoom_ = 3.0f;
  Side sides_[2];
};

const PartRegistrar registrar{
    {PartCategory::Panel, teach_names::kSplit,
     "the same circles and the same query on two structures side by side, with each one's nodes, visited and "
     "pruned nodes, tested circles and counters",
     64, false, [] { return std::make_unique<SplitView>(); }}};

}  // namespace
}  // namespace st::ui
