// The step-through panel: pause, pick a query, and replay the current structure's walk one event at a time.
// The node being visited is highlighted in the world, a pruned node is shown with the name of the test that
// rejected it, candidates and hits light up as the walk reaches them, and the counters follow each step.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/panels/node_drawing.hpp"
#include "ui/panels/part_names.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

namespace colours = render::colours;

// The node the walk is in is marked in white, which no query state uses (yellow is a hit's).
constexpr std::uint32_t kCurrentFill = render::rgba(255, 255, 255, 36);
constexpr std::uint32_t kCurrentEdge = render::rgba(255, 255, 255, 255);
constexpr std::uint32_t kPrunedFill = render::withAlpha(colours::kPruned, 60);
constexpr std::uint32_t kVisitedFaint = render::withAlpha(colours::kVisited, 110);
constexpr std::uint32_t kTestedNow = render::rgba(255, 255, 255);

constexpr std::uint32_t kNodeFaint = render::rgba(170, 180, 200, 45);
// Table labels that are no query state: a quiet grey, and for the empty children a readable pink-grey.
const ImVec4 kQuietText(0.78f, 0.78f, 0.82f, 1.0f);
const ImVec4 kSkippedText(0.82f, 0.62f, 0.76f, 1.0f);
/// The current node is ringed this far out when it is smaller than this on screen, so that it is found.
constexpr float kLocatorPx = 18.0f;
constexpr const char* kHiddenWhileStepping[] = {part_names::kQueryTrace, part_names::kCandidates,
                                                "Structure nodes", "Overlapping circles", "Pair lines"};

constexpr QueryMode kSteppable[] = {QueryShape::Point, QueryShape::Circle, QueryShape::Box,
                                    QueryShape::Segment, QueryShape::Nearest};

ImVec4 kindColour(TraceEventKind kind) {
  switch (kind) {
    case TraceEventKind::VisitNode:
      return toImVec4(colours::kVisited);
    case TraceEventKind::PruneNode:
      return toImVec4(colours::kPruned);
    case TraceEventKind::Candidate:
      return toImVec4(colours::kCandidateRim);
    case TraceEventKind::Hit:
      return toImVec4(colours::kHit);
  }
  return ImVec4(1, 1, 1, 1);
}

class StepPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {1.0f, 0.0f, -470.0f, 30.0f, 460.0f, 640.0f}; }

  // -- per frame ------------------------------------------------------------------------------------------
  void update(DemoContext& ctx) override {
    if (teachRequestsChanged(requestsSeen_)) readRequest(ctx);
    if (!active_) return;
    // Closing the panel ends the replay, so the overlays it hid come back.
    if (!ctx.isShown(teach_names::kStep)) {
      stop(ctx);
      return;
    }
    if (ctx.model.generation() != generation_ || ctx.model.simulation().frame() != frame_) stale_ = true;
    if (playing_) {
      const std::uint64_t now = nowNanoseconds();
      playCredit_ += double(now - lastTick_) * 1e-9 * double(eventsPerSecond_);
      lastTick_ = now;
      const auto whole = static_cast<std::size_t>(playCredit_);
      playCredit_ -= double(whole);
      step_ = std::min(step_ + whole, trace_.events.size());
      if (step_ == trace_.events.size()) playing_ = false;
      scrollToCurrent_ = whole > 0;
    }
  }

  void tintCircles(DemoContext& ctx, std::span<render::CircleInstance> circles) override {
    if (!visible(ctx)) return;
    for (std::size_t i = 0; i < step_; ++i) {
      const TraceEvent& e = trace_.events[i];
      if (e.id >= circles.size()) continue;
      if (e.kind == TraceEventKind::Candidate) circles[e.id].rim = colours::kCandidateRim;
      if (e.kind == TraceEventKind::Hit) {
        circles[e.id].fill = colours::kHit;
        circles[e.id].rim = colours::kHitRim;
      }
    }
  }

  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    if (!visible(ctx)) return;
    const float px = 1.0f / canvas.above.pixelsPerUnit();
    const Box view = ctx.camera.visibleWorld();
    ctx.model.structure().visitNodes([&](const NodeInfo& node) {
      const Box bounds = node.shape == NodeShape::Circle ? boundsOf(node.circle) : node.box;
      if (!boxesOverlap(bounds, view) || (bounds.max.x - bounds.min.x) < 6.0f * px) return;
      outlineNode(canvas, node, kNodeFaint, 1, px);
    });
    const std::vector<Circle>& all = ctx.model.simulation().circles();
    for (std::size_t i = 0; i < step_; ++i) {
      const TraceEvent& e = trace_.events[i];
      // Empty children passed over untested are no prune: the event list names them, the world does not.
      if (e.kind == TraceEventKind::VisitNode) outlineNode(canvas, e.node, kVisitedFaint, 1, px);
      if (e.kind == TraceEventKind::PruneNode && !prunedWithoutTest(e))
        outlineNode(canvas, e.node, colours::kPruned, 1, px);
      // The circles reached so far, over every node drawing.
      if ((e.kind == TraceEventKind::Candidate || e.kind == TraceEventKind::Hit) && e.id < all.size()) {
        const Circle& c = all[e.id];
        const bool hit = e.kind == TraceEventKind::Hit;
        canvas.marks.push_back({c.center.x, c.center.y, c.radius, hit ? colours::kHit : 0u,
                                hit ? colours::kHitRim : colours::kCandidateRim});
      }
    }
    // The node whose items are being tested is the last one the walk entered.
    if (const TraceEvent* node = currentNode()) {
      const bool pruned = node->kind == TraceEventKind::PruneNode;
      const std::uint32_t edge = pruned ? colours::kPruned : kCurrentEdge;
      fillNode(canvas, node->node, pruned ? kPrunedFill : kCurrentFill);
      outlineNode(canvas, node->node, edge, 3, px);
      // The bounds the walk tested, when they reach past the cell.
      outlineGrown(canvas, node->node, edge);
      // A node of a few pixels would be a white speck: a ring around it and four ticks point it out.
      const Box b = drawnBounds(node->node);
      const float sidePx = std::max(b.max.x - b.min.x, b.max.y - b.min.y) / px;
      if (sidePx < 2.0f * kLocatorPx) {
        const Vec2 c{0.5f * (b.min.x + b.max.x), 0.5f * (b.min.y + b.max.y)};
        const float r = (0.5f * sidePx + kLocatorPx) * px;
        canvas.top.circleOutline({c, r}, edge);
        canvas.top.circleOutline({c, r + px}, edge);
        for (const Vec2 d : {Vec2{1, 0}, Vec2{-1, 0}, Vec2{0, 1}, Vec2{0, -1}})
          canvas.top.line(c + d * r, c + d * (r + 10.0f * px), edge);
      }
    }
    if (step_ > 0) {
      const TraceEvent& e = trace_.events[step_ - 1];
      if ((e.kind == TraceEventKind::Candidate || e.kind == TraceEventKind::Hit) && e.id < all.size()) {
        const Circle& c = all[e.id];
        canvas.top.circleOutline({c.center, c.radius + 3.0f * px}, kTestedNow);
        canvas.top.circleOutline({c.center, c.radius + 5.0f * px}, kTestedNow);
      }
    }
    drawShape(canvas.top, captured_);
  }

  // -- panel -------------------------------------------------------------------------------------------
  void drawPanel(DemoContext& ctx) override {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "1. pause   2. pick a query (shape: Query panel or left drag)   3. step (buttons or the arrow keys)");
    ImGui::PopTextWrapPos();
    QueryState& q = ctx.model.query;
    for (std::size_t i = 0; i < std::size(kSteppable); ++i) {
      if (i > 0) ImGui::SameLine();
      if (ImGui::RadioButton(queryModeName(kSteppable[i]), q.mode == kSteppable[i])) q.mode = kSteppable[i];
    }
    if (ImGui::Button(active_ ? "capture again" : "start (pauses)")) start(ctx);
    if (active_) {
      ImGui::SameLine();
      if (ImGui::Button("stop")) stop(ctx);
    }
    if (active_) {
      ImGui::SameLine();
      if (ImGui::Button("zoom to it")) zoomToQuery(ctx);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("on %s", ctx.model.structure().name().c_str());
    if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "%s", error_.c_str());
    if (!active_) return;

    drawControls();
    drawCounters(ctx.model.structure());
    drawCurrentEvent(ctx);
    drawEventList();
  }

 private:
  bool visible(DemoContext& ctx) const { return active_ && ctx.isShown(teach_names::kStep); }

  // -- capture -----------------------------------------------------------------------------------------
  void start(DemoContext& ctx) {
    DemoModel& model = ctx.model;
    QueryState& q = model.query;
    if (std::find(std::begin(kSteppable), std::end(kSteppable), q.mode) == std::end(kSteppable))
      q.mode = QueryShape::Circle;
    model.paused = true;
    error_.clear();
    try {
      traceQueryShape(model.structure(), q, trace_, answer_);
      counters_ = answer_.counters;
    } catch (const std::exception& e) {
      error_ = e.what();
      active_ = false;
      return;
    }
    captured_ = q;
    structure_ = model.structure().name();
    generation_ = model.generation();
    frame_ = model.simulation().frame();
    step_ = 0;
    playing_ = false;
    stale_ = false;
    if (!active_) hideLiveOverlays(ctx);
    active_ = true;
  }

  void stop(DemoContext& ctx) {
    active_ = false;
    playing_ = false;
    trace_.events.clear();
    restoreLiveOverlays(ctx);
  }

  // The live overlays draw the whole walk of the moving query; over a replay they would show its end. The
  // node overlay's depth colours and the overlap rims would compete with the walk's colours, so they are
  // hidden too and the replay draws the nodes faintly itself. Each overlay's own setting comes back on stop.
  void hideLiveOverlays(DemoContext& ctx) {
    hidden_.clear();
    for (PartSlot& slot : ctx.parts) {
      if (slot.info->category != PartCategory::Overlay || !slot.shown) continue;
      for (const char* name : kHiddenWhileStepping) {
        if (slot.info->name != name) continue;
        slot.shown = false;
        hidden_.push_back(slot.info->name);
      }
    }
  }
  void restoreLiveOverlays(DemoContext& ctx) {
    for (PartSlot& slot : ctx.parts) {
      if (std::find(hidden_.begin(), hidden_.end(), slot.info->name) != hidden_.end()) slot.shown = true;
    }
    hidden_.clear();
  }

  /// Fits the window's view around the captured query.
  void zoomToQuery(DemoContext& ctx) const {
    Box shape;
    switch (captured_.mode.value_or(QueryShape::Point)) {
      case QueryShape::Circle:
        shape = boundsOf({captured_.anchor, captured_.radius});
        break;
      case QueryShape::Box:
        shape = queryBoxOf(captured_);
        break;
      case QueryShape::Segment:
        shape = {{std::min(captured_.anchor.x, captured_.target.x),
                  std::min(captured_.anchor.y, captured_.target.y)},
                 {std::max(captured_.anchor.x, captured_.target.x),
                  std::max(captured_.anchor.y, captured_.target.y)}};
        break;
      default:
        shape = {captured_.anchor, captured_.anchor};
    }
    const Box& world = ctx.model.simulation().world();
    const float side = std::max(world.max.x - world.min.x, world.max.y - world.min.y);
    const float half = std::max({shape.max.x - shape.min.x, shape.max.y - shape.min.y, 0.05f * side}) * 1.5f;
    const Vec2 c{0.5f * (shape.min.x + shape.max.x), 0.5f * (shape.min.y + shape.max.y)};
    ctx.camera.fit(boxFromCenter(c, half, half));
    ctx.view.cameraMoved = true;
  }

  void readRequest(DemoContext& ctx) {
    const std::string steps = teachRequest("step");
    if (steps.empty()) return;
    start(ctx);
    step_ = std::min<std::size_t>(std::strtoull(steps.c_str(), nullptr, 10), trace_.events.size());
    scrollToCurrent_ = true;
    if (teachRequest("step_zoom") == "1") zoomToQuery(ctx);
    const std::string stopAt = teachRequest("step_stop");
    const TraceEventKind kinds[] = {TraceEventKind::VisitNode, TraceEventKind::PruneNode,
                                    TraceEventKind::Hit};
    const char* names[] = {"visit", "prune", "hit"};
    for (int k = 0; k < 3; ++k) {
      if (stopAt == names[k])
        step_ = std::min(nextEventOf(trace_, step_, kinds[k]) + 1, trace_.events.size());
    }
  }

  // -- panel pieces --------------------------------------------------------------------------------------
  void drawControls() {
    const std::size_t total = trace_.events.size();
    auto jump = [&](std::size_t to) {
      step_ = std::min(to, total);
      playing_ = false;
      scrollToCurrent_ = true;
    };
    // The arrow keys step too while this panel has the focus.
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
      if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) jump(step_ + 1);
      if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow)) && step_ > 0) jump(step_ - 1);
    }
    if (ImGui::Button("|<")) jump(0);
    ImGui::SameLine();
    if (ImGui::Button("<") && step_ > 0) jump(step_ - 1);
    ImGui::SameLine();
    if (ImGui::Button(">")) jump(step_ + 1);
    ImGui::SameLine();
    if (ImGui::Button(">|")) jump(total);
    ImGui::SameLine();
    if (ImGui::Button(playing_ ? "pause" : "play")) {
      playing_ = !playing_ && step_ < total;
      lastTick_ = nowNanoseconds();
      playCredit_ = 0.0;
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderFloat("##speed", &eventsPerSecond_, 1.0f, 500.0f, "%.0f steps/s",
                       ImGuiSliderFlags_Logarithmic);
    if (ImGui::Button("next visit")) jump(nextEventOf(trace_, step_, TraceEventKind::VisitNode) + 1);
    ImGui::SameLine();
    if (ImGui::Button("next prune")) jump(nextEventOf(trace_, step_, TraceEventKind::PruneNode) + 1);
    ImGui::SameLine();
    if (ImGui::Button("next hit")) jump(nextEventOf(trace_, step_, TraceEventKind::Hit) + 1);
    int at = static_cast<int>(step_);
    char format[48];
    std::snprintf(format, sizeof format, "step %%d of %zu", total);
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::SliderInt("##step", &at, 0, static_cast<int>(total), format)) jump(std::size_t(at));
  }

  void drawCounters(const SpatialIndex& index) {
    const TraceProgress now = progressAt(trace_, step_);
    const TraceProgress all = progressAt(trace_, trace_.events.size());
    const bool atEnd = step_ == trace_.events.size();
    // The nodes a structure counts as visited are the ones whose bounds it tested: those the walk entered
    // and those it pruned. Nodes it counts but does not trace (a grid's empty cells looked up) make up the
    // rest, and a library that reports only leaves cannot count them at all.
    const std::string_view notCounted =
        index.name() == structure_ ? index.nodesNotCounted() : std::string_view{};
    const std::uint64_t counted = counters_.nodesVisited;
    const std::uint64_t traced = all.visited + all.pruned;
    const std::uint64_t untraced = counted > traced ? counted - traced : 0;
    if (ImGui::BeginTable("counters", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 2.0f);
      ImGui::TableSetupColumn("so far", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableSetupColumn("whole walk", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableHeadersRow();
      auto label = [](const char* text, ImVec4 colour, const char* tip) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(colour, "%s", text);
        if (tip != nullptr && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
      };
      auto values = [](std::uint64_t a, std::uint64_t b) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(groupedNumber(a).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(groupedNumber(b).c_str());
      };
      auto words = [](const char* text) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", text);
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", text);
      };
      label("entered", toImVec4(colours::kVisited), "walked into: its bounds met the query");
      values(now.visited, all.visited);
      label("+ pruned", toImVec4(colours::kPruned), "bounds tested and rejected: nothing below is looked at");
      if (notCounted.empty()) {
        values(now.pruned, all.pruned);
      } else {
        words("not reported");
      }
      if (untraced > 0) {
        label("+ counted, not traced", kQuietText,
              "nodes the structure counts but does not report step by step (a grid's empty cells looked up)");
        values(atEnd ? untraced : 0, untraced);
      }
      label("= nodes visited", kQuietText, "the structure's own count: every node whose bounds it tested");
      if (notCounted.empty()) {
        values(now.visited + now.pruned + (atEnd ? untraced : 0), counted);
      } else {
        words("not counted");
      }
      if (all.skipped > 0) {
        label("empty, passed over", kSkippedText,
              "empty children never entered: no bounds test, so the structure does not count them");
        values(now.skipped, all.skipped);
      }
      label("candidates reached", toImVec4(colours::kCandidateRim),
            "Circles the walk reached: one per exact test, plus, in the sphere tree, the circles of a bound "
            "lying wholly inside the query, accepted without a test.");
      values(now.candidates, all.candidates);
      label("hits", toImVec4(colours::kHit), nullptr);
      values(now.hits, all.hits);
      ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(0.0f);
    if (!notCounted.empty())
      ImGui::TextDisabled("Nodes not counted: %.*s.", int(notCounted.size()), notCounted.data());
    ImGui::TextDisabled(
        "%s's own counters for this %s query: %s nodes visited, %llu circles examined; %zu results",
        structure_.c_str(), queryModeName(captured_.mode),
        notCounted.empty() ? groupedNumber(counted).c_str() : "uncounted",
        static_cast<unsigned long long>(counters_.candidates), answer_.count());
    if (stale_) {
      ImGui::TextColored(
          ImVec4(1.0f, 0.7f, 0.3f, 1.0f),
          "The circles or the structure changed since the capture: this is the walk as it was. 'capture "
          "again' retakes it.");
    }
    ImGui::PopTextWrapPos();
  }

  void drawCurrentEvent(DemoContext& ctx) {
    ImGui::Separator();
    if (step_ == 0) {
      ImGui::TextUnformatted("Before the first step: press > or play.");
      return;
    }
    const TraceEvent& e = trace_.events[step_ - 1];
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kindColour(e.kind), "%s", describeEvent(e).c_str());
    ImGui::PopTextWrapPos();
    if (e.kind == TraceEventKind::PruneNode) {
      const Box bounds = e.node.shape == NodeShape::Circle ? boundsOf(e.node.circle) : e.node.box;
      if (boxesOverlap(bounds, ctx.camera.visibleWorld())) {
        labelInWorld(ctx, e);
      } else {
        ImGui::TextDisabled("(the pruned node is outside the view)");
      }
    }
  }

  /// Writes the pruning test beside the pruned node, over the world (under the panels).
  static void labelInWorld(DemoContext& ctx, const TraceEvent& e) {
    const Vec2 corner = e.node.shape == NodeShape::Circle
                            ? Vec2{e.node.circle.center.x - e.node.circle.radius, e.node.circle.center.y}
                            : Vec2{e.node.box.min.x, e.node.box.max.y};
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const Vec2 screen = ctx.camera.worldToScreen(corner);
    const char* text = e.test && *e.test ? e.test : "pruned";
    const ImVec2 size = ImGui::CalcTextSize(text);
    // Inside the node's top-left corner, kept on screen.
    const ImVec2 at(std::clamp(screen.x / std::max(scale.x, 1e-3f) + 6.0f, 4.0f,
                               std::max(display.x - size.x - 4.0f, 4.0f)),
                    std::clamp(screen.y / std::max(scale.y, 1e-3f) + 6.0f, 24.0f,
                               std::max(display.y - size.y - 4.0f, 24.0f)));
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    draw->AddRectFilled(ImVec2(at.x - 3, at.y - 2), ImVec2(at.x + size.x + 3, at.y + size.y + 2),
                        IM_COL32(40, 10, 30, 220), 3.0f);
    draw->AddRect(ImVec2(at.x - 3, at.y - 2), ImVec2(at.x + size.x + 3, at.y + size.y + 2),
                  static_cast<ImU32>(colours::kPruned), 3.0f);
    draw->AddText(at, IM_COL32(255, 220, 240, 255), text);
  }

  void drawEventList() {
    ImGui::Separator();
    // Rows are one short line each, the pruning test left to the tooltip and to the current event above;
    // a row wider than a narrowed panel scrolls sideways rather than being cut at the edge.
    if (!ImGui::BeginChild("events", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar)) {
      ImGui::EndChild();
      return;
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(trace_.events.size()));
    if (scrollToCurrent_ && step_ > 0) {
      clipper.ForceDisplayRangeByIndices(static_cast<int>(step_ - 1), static_cast<int>(step_));
    }
    while (clipper.Step()) {
      for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
        const TraceEvent& e = trace_.events[static_cast<std::size_t>(row)];
        const bool current = static_cast<std::size_t>(row) + 1 == step_;
        const bool future = static_cast<std::size_t>(row) >= step_;
        const std::string label = std::to_string(row + 1) + "  " + summarizeEvent(e);
        ImGui::PushStyleColor(ImGuiCol_Text, future ? ImVec4(0.5f, 0.5f, 0.55f, 1.0f) : kindColour(e.kind));
        ImGui::PushID(row);
        const float width = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2.0f;
        if (ImGui::Selectable(label.c_str(), current, 0, ImVec2(width, 0))) {
          step_ = static_cast<std::size_t>(row) + 1;
          playing_ = false;
        }
        ImGui::PopID();
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", describeEvent(e).c_str());
        if (current && scrollToCurrent_) ImGui::SetScrollHereY(0.5f);
      }
    }
    scrollToCurrent_ = false;
    ImGui::EndChild();
  }

  /// One short line for the event list.
  static std::string summarizeEvent(const TraceEvent& e) {
    char text[160];
    switch (e.kind) {
      case TraceEventKind::VisitNode:
      case TraceEventKind::PruneNode: {
        const NodeInfo& n = e.node;
        const char* verb =
            e.kind == TraceEventKind::VisitNode ? "visit" : (prunedWithoutTest(e) ? "empty" : "prune");
        if (n.shape == NodeShape::Circle) {
          std::snprintf(text, sizeof text, "%s d%d  sphere (%.0f, %.0f) r %.1f", verb, n.depth,
                        double(n.circle.center.x), double(n.circle.center.y), double(n.circle.radius));
        } else {
          std::snprintf(text, sizeof text, "%s d%d  %.0f..%.0f x %.0f..%.0f", verb, n.depth,
                        double(n.box.min.x), double(n.box.max.x), double(n.box.min.y), double(n.box.max.y));
        }
        std::string line = text;
        if (e.kind == TraceEventKind::VisitNode)
          line.append("  ").append(std::to_string(n.itemCount)).append(" items");
        return line;
      }
      case TraceEventKind::Candidate:
        return "test circle " + std::to_string(e.id) + ": miss";
      case TraceEventKind::Hit:
        return "test circle " + std::to_string(e.id) + ": HIT";
    }
    return "";
  }

  // -- drawing -------------------------------------------------------------------------------------------
  const TraceEvent* currentNode() const {
    for (std::size_t i = step_; i-- > 0;) {
      const TraceEvent& e = trace_.events[i];
      if (e.kind == TraceEventKind::VisitNode || e.kind == TraceEventKind::PruneNode) return &e;
    }
    return nullptr;
  }

  static void drawShape(render::ShapeBatch& out, const QueryState& q) {
    const std::uint32_t c = colours::kQueryShape;
    if (!q.mode) return;
    switch (*q.mode) {
      case QueryShape::Point:
      case QueryShape::Nearest:
        out.cross(q.anchor, 11.0f, c);
        break;
      case QueryShape::Circle:
        out.circleOutline({q.anchor, q.radius}, c);
        break;
      case QueryShape::Box:
        out.boxOutline(queryBoxOf(q), c);
        break;
      case QueryShape::Segment:
        out.line(q.anchor, q.target, c);
        break;
      default:
        break;
    }
  }

  std::uint64_t requestsSeen_ = 0;
  bool active_ = false;
  bool stale_ = false;
  QueryTrace trace_;
  ShapeAnswer answer_;
  QueryCounters counters_;
  QueryState captured_;
  std::string structure_;
  std::uint64_t generation_ = 0;
  std::uint64_t frame_ = 0;
  std::size_t step_ = 0;
  bool playing_ = false;
  float eventsPerSecond_ = 6.0f;
  double playCredit_ = 0.0;
  std::uint64_t lastTick_ = 0;
  bool scrollToCurrent_ = false;
  std::vector<std::string> hidden_;
  std::string error_;
};

const PartRegistrar registrar{
    {PartCategory::Panel, teach_names::kStep,
     "pause, pick a query and replay the structure's walk node by node: visits, prunes with their test, "
     "candidates and hits, counters per step",
     62, false, [] { return std::make_unique<StepPanel>(); }}};

}  // namespace
}  // namespace st::ui
