// The query tool: the mouse places a point, circle, box, ray, view cone or nearest-circles point; every frame
// the current structure answers it (timed, untraced) and answers it again with a trace attached for the
// overlays.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <numbers>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/panels/part_names.hpp"

namespace st::ui {
namespace {

constexpr const char* kModeNames[] = {"off", "point", "circle", "box", "ray", "cone", "nearest"};
constexpr int kModes = static_cast<int>(std::size(kModeNames));

float worldSide(const Simulation& sim) {
  const Box& w = sim.world();
  return std::max(w.max.x - w.min.x, w.max.y - w.min.y);
}

Vec2 boxCentre(const Box& b) {
  return {0.5f * (b.min.x + b.max.x), 0.5f * (b.min.y + b.max.y)};
}

class QueryTool final : public DemoPart {
 public:
  // -- input ------------------------------------------------------------------------------------------
  bool onWorldMouse(DemoContext& ctx, const WorldMouse& mouse) override {
    QueryState& q = ctx.model.query;
    if (q.mode == std::nullopt) return false;
    switch (mouse.kind) {
      case WorldMouse::Kind::Wheel:
        if (!mouse.ctrl) return false;
        resize(q, std::pow(1.15f, mouse.wheel));
        return true;
      case WorldMouse::Kind::Move:
        if (!q.followMouse) return false;
        moveTo(q, mouse.world);
        return false;  // hovering never blocks the camera
      case WorldMouse::Kind::Press:
        // Shift leaves the click to the inspector.
        if (mouse.button != 1 || mouse.shift) return false;
        moveTo(q, mouse.world);
        return true;
      case WorldMouse::Kind::Drag:
      case WorldMouse::Kind::Release:
        if (mouse.button != 1) return false;
        if (mouse.dragged) shapeFromDrag(q, mouse.pressWorld, mouse.world);
        return true;
      case WorldMouse::Kind::Click:
        return false;
    }
    return false;
  }

  // -- per frame ------------------------------------------------------------------------------------------
  void update(DemoContext& ctx) override {
    QueryState& q = ctx.model.query;
    if (applyPending_) {
      // The saved mode is for a query nobody set up yet: one placed before the first frame (the command
      // line's --queries) keeps its own.
      if (!q.placed) q.mode = queryModeAt(modeFromSettings_);
      q.followMouse = followFromSettings_;
      applyPending_ = false;
    }
    savedMode_ = queryModeIndex(q.mode);
    savedFollow_ = q.followMouse;
    if (!q.placed) place(q, ctx.model.simulation());
    if (ctx.model.generation() != generation_ || q.mode != lastMode_) {
      // A new structure (or a new cone) starts with an empty visible set: its first cull reports every
      // visible circle as entering, which the log would show as noise from the previous structure.
      generation_ = ctx.model.generation();
      lastMode_ = q.mode;
      coneLog_.clear();
    }
    q.hits.clear();
    q.rayHits.clear();
    q.entered.clear();
    q.left.clear();
    q.trace.events.clear();
    q.counters = {};
    q.detail.reset();
    q.microseconds = 0;
    q.error.clear();
    if (q.mode == std::nullopt) return;

    SpatialIndex& index = ctx.model.structure();
    const bool traceWanted = ctx.isShown(part_names::kQueryTrace) || ctx.isShown(part_names::kCandidates);
    try {
      const std::uint64_t start = nowNanoseconds();
      q.counters = run(index, q);
      q.microseconds = millisecondsSince(start) * 1000.0;
      if (traceWanted) traceQueryShape(index, q, q.trace, tracedAnswer_);
    } catch (const std::exception& e) {
      q.error = e.what();
    }
    if (q.mode == QueryShape::Cone && (!q.entered.empty() || !q.left.empty())) logConeEvents(ctx.model, q);
  }

  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const QueryState& q = ctx.model.query;
    const std::uint32_t c = render::colours::kQueryShape;
    render::ShapeBatch& out = canvas.top;
    if (!q.mode) return;
    switch (*q.mode) {
      case QueryShape::Point:
        out.cross(q.anchor, 9.0f, c);
        break;
      case QueryShape::Circle:
        out.circleOutline({q.anchor, q.radius}, c);
        out.cross(q.anchor, 4.0f, c);
        break;
      case QueryShape::Box:
        out.boxOutline(queryBoxOf(q), c);
        break;
      case QueryShape::Segment:
        out.line(q.anchor, q.target, c);
        out.cross(q.anchor, 5.0f, c);
        for (const RayHit& hit : q.rayHits) out.cross(hit.point, 4.0f, render::colours::kHit);
        if (!q.rayHits.empty())
          out.circleOutline({q.rayHits.front().point, 6.0f / out.pixelsPerUnit()}, render::colours::kHit);
        break;
      case QueryShape::Cone: {
        const ViewCone cone = viewConeOf(q);
        const float facing = std::atan2(cone.direction.y, cone.direction.x);
        out.sectorOutline(cone.origin, cone.farDistance, facing - cone.halfAngle, facing + cone.halfAngle, c);
        break;
      }
      case QueryShape::Nearest:
        // The ring through the k-th nearest circle's edge: every circle reaching inside it is among the k.
        out.cross(q.anchor, 9.0f, c);
        if (q.nearestReach > 0.0f) out.circleOutline({q.anchor, q.nearestReach}, c);
        break;
    }
  }

  // -- panel -------------------------------------------------------------------------------------------
  PanelPlacement placement() const override { return {1.0f, 1.0f, -370.0f, -330.0f, 360.0f, 320.0f}; }

  void drawPanel(DemoContext& ctx) override {
    QueryState& q = ctx.model.query;
    int mode = queryModeIndex(q.mode);
    for (int m = 0; m < kModes; ++m) {
      if (m % 4 != 0) ImGui::SameLine(float(m % 4) * ImGui::GetFontSize() * 4.8f);
      ImGui::RadioButton(kModeNames[m], &mode, m);
    }
    q.mode = queryModeAt(mode);
    if (q.mode == std::nullopt) {
      ImGui::TextDisabled("Pick a query; then drag with the left button in the world.");
      return;
    }
    ImGui::Checkbox("follow the mouse", &q.followMouse);
    helpMarker(
        "Left click moves the shape, left drag draws it (circle: centre to rim, box: corner to corner, "
        "ray: start to end, cone: eye to far edge, nearest: the point). Ctrl+wheel resizes. Right or middle "
        "drag pans.");
    drawShapeControls(q, ctx.model.simulation());

    ImGui::Separator();
    if (!q.error.empty()) {
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", q.error.c_str());
      return;
    }
    const std::size_t found = q.mode == QueryShape::Segment ? q.rayHits.size() : q.hits.size();
    ImGui::Text("%s %s in %.1f us", groupedNumber(found).c_str(),
                q.mode == QueryShape::Cone      ? "visible"
                : q.mode == QueryShape::Nearest ? "nearest"
                                                : "hits",
                q.microseconds);
    if (q.mode == QueryShape::Nearest && !q.hits.empty()) {
      ImGui::Text("k-th nearest edge %.2f from the point", double(q.nearestReach));
    }
    const TraceProgress walk = progressAt(q.trace, q.trace.events.size());
    const std::string nodes =
        nodesVisitedText(ctx.model.structure().nodesNotCounted(), q.counters.nodesVisited,
                         q.trace.events.empty() ? nullptr : &walk);
    wrappedText(nodes);
    ImGui::Text("circles examined %s (%s exact tests)",
                examinedText(ctx.model.structure().examinedLowerBound(), q.counters.candidates).c_str(),
                groupedNumber(q.counters.exactTests).c_str());
    drawDetail(q.detail);
    if (q.mode == QueryShape::Cone) drawConeEvents(q);
    drawHitList(ctx.model, q);
  }

  void loadSettings(const SettingsSection& s) override {
    modeFromSettings_ = static_cast<int>(s.getNumber("mode", queryModeIndex(QueryState{}.mode)));
    followFromSettings_ = s.getBool("follow_mouse", false);
    applyPending_ = true;
  }
  void saveSettings(SettingsSection& s) const override {
    s.setNumber("mode", savedMode_);
    s.setBool("follow_mouse", savedFollow_);
  }

 private:
  // -- shapes --------------------------------------------------------------------------------------------
  static void place(QueryState& q, const Simulation& sim) {
    const Box& region = sim.queryRegion();
    const Vec2 c = boxCentre(region);
    const float side = worldSide(sim);
    q.anchor = c;
    q.radius = 0.07f * side;
    q.halfExtent = {0.09f * side, 0.06f * side};
    q.target = {c.x + 0.3f * side, c.y + 0.08f * side};
    q.placed = true;
  }

  static void moveTo(QueryState& q, Vec2 at) {
    const Vec2 shift = at - q.anchor;
    q.anchor = at;
    q.target = q.target + shift;
  }

  static void resize(QueryState& q, float factor) {
    q.radius *= factor;
    q.halfExtent = q.halfExtent * factor;
    q.target = q.anchor + (q.target - q.anchor) * factor;
  }

  static void shapeFromDrag(QueryState& q, Vec2 from, Vec2 to) {
    if (!q.mode) return;
    switch (*q.mode) {
      case QueryShape::Point:
        q.anchor = to;
        break;
      case QueryShape::Circle:
        q.anchor = from;
        q.radius = length(to - from);
        break;
      case QueryShape::Box:
        q.anchor = {0.5f * (from.x + to.x), 0.5f * (from.y + to.y)};
        q.halfExtent = {0.5f * std::fabs(to.x - from.x), 0.5f * std::fabs(to.y - from.y)};
        break;
      case QueryShape::Segment:
      case QueryShape::Cone:
        q.anchor = from;
        q.target = to;
        break;
      case QueryShape::Nearest:
        q.anchor = to;
        break;
    }
  }

  // -- running -------------------------------------------------------------------------------------------
  // The cone is the one shape run for real here rather than as in the teaching views (a bounding circle):
  // it culls, keeping the visible set and what entered and left it. Returns the work the query did.
  static QueryCounters run(SpatialIndex& index, QueryState& q) {
    if (q.mode == QueryShape::Nearest) {
      QueryAnswer answer;
      runQuery(index, queryOf(q), answer, nullptr, &q.detail);
      q.hits.swap(answer.ids);
      q.nearestReach = answer.nearest.empty() ? 0.0f : answer.nearest.back().distance;
      return answer.counters;
    }
    if (q.mode != QueryShape::Cone) return runQueryShape(index, q, q.hits, q.rayHits, nullptr, &q.detail);
    index.cullView(viewConeOf(q), q.entered, q.left);
    q.hits = index.visibleItems();
    return index.lastCounters();
  }

  void logConeEvents(const DemoModel& model, const QueryState& q) {
    coneLog_.push_front(coneEventLine(model.simulation().frame(), q.entered, q.left));
    if (coneLog_.size() > 200) coneLog_.pop_back();
  }

  // -- panel pieces --------------------------------------------------------------------------------------
  void drawShapeControls(QueryState& q, const Simulation& sim) {
    const float side = worldSide(sim);
    const float speed = side * 0.002f;
    ImGui::PushItemWidth(-scaled(90.0f));
    ImGui::DragFloat2("position", &q.anchor.x, speed, 0.0f, 0.0f, "%.1f");
    switch (q.mode.value_or(QueryShape::Point)) {
      case QueryShape::Circle:
        ImGui::DragFloat("radius", &q.radius, speed, 0.0f, side, "%.2f");
        break;
      case QueryShape::Box:
        ImGui::DragFloat2("half size", &q.halfExtent.x, speed, 0.0f, side, "%.2f");
        break;
      case QueryShape::Segment:
        ImGui::DragFloat2("end", &q.target.x, speed, 0.0f, 0.0f, "%.1f");
        break;
      case QueryShape::Cone: {
        float degrees = q.coneHalfAngle * 180.0f / std::numbers::pi_v<float>;
        if (ImGui::SliderFloat("half angle", &degrees, 1.0f, 180.0f, "%.0f deg")) {
          q.coneHalfAngle = degrees * std::numbers::pi_v<float> / 180.0f;
        }
        ImGui::DragFloat2("look at", &q.target.x, speed, 0.0f, 0.0f, "%.1f");
        break;
      }
      case QueryShape::Nearest:
        ImGui::SliderInt("k circles", &q.nearestCount, 1, 256, "%d", ImGuiSliderFlags_Logarithmic);
        break;
      default:
        break;
    }
    ImGui::PopItemWidth();
    q.radius = std::max(q.radius, 0.0f);
    q.halfExtent = {std::max(q.halfExtent.x, 0.0f), std::max(q.halfExtent.y, 0.0f)};
  }

  // The structure's own figures of this query, where it fills them: the grids' occupied cells, a point
  // quadtree's widened nodes, the size-aware trees' nodes entered per level.
  static void drawDetail(const QueryDetail& d) {
    if (d.occupiedCells > 0)
      ImGui::Text("occupied cells searched %s", groupedNumber(d.occupiedCells).c_str());
    if (d.widenedNodes > 0) {
      wrappedText("entered only through widened bounds: " + groupedNumber(d.widenedNodes) + " nodes, " +
                  groupedNumber(d.widenedCandidates) + " circles");
    }
    if (d.nodeDepthsUsed > 0) {
      std::string levels = "nodes entered per level:";
      for (int depth = 0; depth < d.nodeDepthsUsed; ++depth)
        levels += (depth ? ", " : " ") + std::to_string(d.nodesByDepth[std::size_t(depth)]);
      wrappedText(levels);
    }
  }

  void drawConeEvents(const QueryState& q) {
    ImGui::Text("this frame: entered %zu, left %zu", q.entered.size(), q.left.size());
    ImGui::TextDisabled("trace: walk of the cone's bounding circle");
    if (ImGui::BeginChild("cone events", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 5.5f), true)) {
      for (const std::string& line : coneLog_) wrappedText(line);
    }
    ImGui::EndChild();
  }

  static void drawHitList(const DemoModel& model, const QueryState& q) {
    if (!ImGui::CollapsingHeader("results")) return;
    const bool ray = q.mode == QueryShape::Segment;
    const std::size_t total = ray ? q.rayHits.size() : q.hits.size();
    const std::size_t shown = std::min<std::size_t>(total, 500);
    if (ImGui::BeginTable("hits", ray ? 3 : 4,
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter,
                          ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 8))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("id");
      if (ray) {
        ImGui::TableSetupColumn("t");
        ImGui::TableSetupColumn("entry point");
      } else {
        ImGui::TableSetupColumn("x");
        ImGui::TableSetupColumn("y");
        ImGui::TableSetupColumn("radius");
      }
      ImGui::TableHeadersRow();
      ImGuiListClipper clipper;
      clipper.Begin(static_cast<int>(shown));
      while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          if (ray) {
            const RayHit& hit = q.rayHits[static_cast<std::size_t>(row)];
            ImGui::Text("%u", hit.id);
            ImGui::TableNextColumn();
            ImGui::Text("%.4f", double(hit.t));
            ImGui::TableNextColumn();
            ImGui::Text("%.1f, %.1f", double(hit.point.x), double(hit.point.y));
          } else {
            const ItemId id = q.hits[static_cast<std::size_t>(row)];
            const Circle& c = model.simulation().circles()[id];
            ImGui::Text("%u", id);
            ImGui::TableNextColumn();
            ImGui::Text("%.1f", double(c.center.x));
            ImGui::TableNextColumn();
            ImGui::Text("%.1f", double(c.center.y));
            ImGui::TableNextColumn();
            ImGui::Text("%.2f", double(c.radius));
          }
        }
      }
      ImGui::EndTable();
    }
    if (shown < total) ImGui::TextDisabled("first %zu of %zu shown", shown, total);
  }

  std::uint64_t generation_ = ~std::uint64_t{0};
  QueryMode lastMode_ = std::nullopt;
  std::deque<std::string> coneLog_;
  ShapeAnswer tracedAnswer_;  // the traced re-run's answer (the shown one is the untraced run's)
  int modeFromSettings_ = 0;
  bool followFromSettings_ = false;
  bool applyPending_ = false;
  int savedMode_ = queryModeIndex(QueryState{}.mode);
  bool savedFollow_ = false;
};

const PartRegistrar registrar{
    {PartCategory::Panel, "Query",
     "mouse-driven point, circle, box, ray, view-cone and nearest-circles queries with hits, time and work",
     20, true, [] { return std::make_unique<QueryTool>(); }}};

}  // namespace
}  // namespace st::ui
