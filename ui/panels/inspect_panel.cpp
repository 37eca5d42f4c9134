// The inspector: a right click (or Shift + left click) on the world picks the circle under the cursor, or,
// between circles, the deepest node there. A circle shows its id, centre, radius and group, the nodes from
// the root down to the one holding it (drawn in the world), the rule that put it there and the circles
// overlapping it; a node shows its bounds, depth, items and the rule. Hovering the world names what is
// under the cursor in a tooltip. For screenshots, SPHERETEST_TEACH="inspect=<id>" picks a circle and
// "inspect_at=<x>,<y>" picks what is at a world point, at start.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/panels/inspect.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

namespace colours = render::colours;

constexpr const char* kName = "Inspect";
// White marks what the inspector picked: no query state, depth or group uses it.
constexpr std::uint32_t kPicked = render::rgba(255, 255, 255);
constexpr std::uint32_t kPickedFill = render::rgba(255, 255, 255, 28);
/// How far from the cursor a circle still counts as under it, in pixels (tiny circles are hard to hit).
constexpr float kReachPx = 4.0f;
/// Walking every node for the hovered one waits at least this long after the last walk, and longer when
/// the walk is slow, so that it takes at most kNodeHoverShare of the time.
constexpr double kNodeHoverSeconds = 0.1;
constexpr double kNodeHoverShare = 0.02;
/// Partners listed by id before "and N more".
constexpr std::size_t kPartnersListed = 12;

class InspectPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.0f, 1.0f, 10.0f, -500.0f, 380.0f, 490.0f}; }

  // -- input ------------------------------------------------------------------------------------------
  bool onWorldMouse(DemoContext& ctx, const WorldMouse& mouse) override {
    if (mouse.kind == WorldMouse::Kind::Move) {
      hoverAt_ = mouse.world;
      hovering_ = true;
      hoverMoved_ = true;
      return false;
    }
    const bool pick = mouse.kind == WorldMouse::Kind::Click && (mouse.button == 3 || mouse.shift);
    if (!pick) return false;
    pickAt(ctx, mouse.world);
    for (PartSlot& slot : ctx.parts) {
      if (slot.info->name == kName) slot.shown = true;
    }
    return true;
  }

  // -- per frame ------------------------------------------------------------------------------------------
  void update(DemoContext& ctx) override {
    DemoModel& model = ctx.model;
    if (model.generation() != generation_) {
      // A new structure has other nodes: a picked node means nothing there, a picked circle still does.
      generation_ = model.generation();
      node_.reset();
    }
    if (teachRequestsChanged(requestsSeen_)) readRequest(ctx);
    details_.reset();
    if (circle_) details_ = describeCircle(model.structure(), model.simulation(), *circle_);
    if (hovering_) updateHover(ctx);
  }

  void tintCircles(DemoContext& ctx, std::span<render::CircleInstance> circles) override {
    (void)ctx;
    if (!details_) return;
    for (ItemId id : details_->partners) {
      if (id < circles.size()) circles[id].rim = colours::kOverlapRim;
    }
  }

  void drawWorld(DemoContext& ctx, WorldCanvas& canvas) override {
    const float px = 1.0f / ctx.camera.pixelsPerUnit();
    if (details_) {
      const CircleDetails& d = *details_;
      // The path from the root: each level a little brighter, the holding node boldest.
      for (std::size_t k = 0; k < d.path.size(); ++k) {
        const bool holder = d.pathNamed && k + 1 == d.path.size();
        const auto alpha =
            static_cast<std::uint32_t>(90 + 120 * (k + 1) / std::max<std::size_t>(d.path.size(), 1));
        outlineNode(canvas, d.path[k], render::withAlpha(kPicked, holder ? 255 : alpha), holder ? 3 : 1, px);
      }
      if (!d.path.empty() && d.pathNamed) {
        fillNode(canvas, d.path.back(), kPickedFill);
        // The bounds that must hold the circle when they reach past the cell (a loose quadtree's).
        outlineGrown(canvas, d.path.back(), kPicked);
      }
      for (ItemId id : d.partners) {
        if (id < ctx.model.simulation().circles().size())
          canvas.above.line(d.circle.center, ctx.model.simulation().circles()[id].center, colours::kPairLine);
      }
      canvas.ring({d.circle.center, d.circle.radius + 2.0f * px}, kPicked);
      canvas.ring({d.circle.center, d.circle.radius + 4.0f * px}, kPicked);
    }
    if (node_) {
      fillNode(canvas, *node_, kPickedFill);
      outlineNode(canvas, *node_, kPicked, 3, px);
      outlineGrown(canvas, *node_, kPicked);
    }
    // The node under the pointer, with the bounds a query tests when they reach past its cell.
    if (hovering_ && hoverNode_ && !hoverCircle_) {
      outlineNode(canvas, *hoverNode_, render::withAlpha(kPicked, 170), 1, px);
      outlineGrown(canvas, *hoverNode_, render::withAlpha(kPicked, 170));
    }
  }

  // -- ImGui ---------------------------------------------------------------------------------------------
  void drawScreen(DemoContext& ctx) override {
    const ImGuiIO& io = ImGui::GetIO();
    if (!hovering_ || !ImGui::IsMousePosValid() || io.WantCaptureMouse) return;
    if (!hoverCircle_ && !hoverNode_) return;
    ImGui::BeginTooltip();
    if (hoverCircle_ && ctx.model.structure().contains(*hoverCircle_)) {
      const ItemId id = *hoverCircle_;
      const Circle& c = ctx.model.structure().circle(id);
      const int group = ctx.model.simulation().group(id);
      ImGui::Text("circle %u: centre (%.1f, %.1f), radius %.2f", id, double(c.center.x), double(c.center.y),
                  double(c.radius));
      if (group < 0) {
        ImGui::TextDisabled("static");
      } else {
        colourSwatch(render::groupColour(group), ("group " + std::to_string(group + 1)).c_str());
      }
    } else if (hoverNode_) {
      ImGui::Text("node: %s", describeNode(*hoverNode_).c_str());
    }
    ImGui::TextDisabled("right click (or Shift + click) to inspect");
    ImGui::EndTooltip();
  }

  void drawPanel(DemoContext& ctx) override {
    if (!details_ && !node_) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled(
          "Right click (or Shift + left click) a circle to see where the structure keeps it, or a place "
          "between circles to see the node there. Hovering names what is under the cursor.");
      ImGui::PopTextWrapPos();
      return;
    }
    if (ImGui::SmallButton("clear")) {
      circle_.reset();
      details_.reset();
      node_.reset();
      return;
    }
    const std::string_view rule = ctx.model.structure().nodeRule();
    if (details_) {
      drawCircle(ctx, *details_);
    } else if (node_) {
      ImGui::TextColored(ImVec4(1.0f, 0.86f, 0.45f, 1.0f), "node of %s",
                         ctx.model.structure().name().c_str());
      drawNodeRows(*node_);
      ImGui::TextDisabled("as it was at frame %llu", static_cast<unsigned long long>(nodeFrame_));
    }
    if (!rule.empty()) {
      ImGui::Separator();
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("rule: %.*s", static_cast<int>(rule.size()), rule.data());
      ImGui::PopTextWrapPos();
    }
  }

 private:
  void readRequest(DemoContext& ctx) {
    if (const std::string id = teachRequest("inspect"); !id.empty()) {
      circle_ = static_cast<ItemId>(std::strtoul(id.c_str(), nullptr, 10));
    } else if (const std::string at = teachRequest("inspect_at"); !at.empty()) {
      const std::vector<std::string> xy = splitList(at, ',');
      if (xy.size() == 2)
        pickAt(ctx, {std::strtof(xy[0].c_str(), nullptr), std::strtof(xy[1].c_str(), nullptr)});
    }
  }

  void pickAt(DemoContext& ctx, Vec2 at) {
    const float reach = kReachPx / ctx.camera.pixelsPerUnit();
    circle_ = circleNear(ctx.model.structure(), at, reach);
    node_.reset();
    details_.reset();
    if (circle_) {
      details_ = describeCircle(ctx.model.structure(), ctx.model.simulation(), *circle_);
      return;
    }
    node_ = nodeAt(ctx.model.structure(), at);
    nodeFrame_ = ctx.model.simulation().frame();
  }

  // The circles move under a still cursor, so the one under it is looked up every frame (one small query).
  // Between circles the tooltip names the node there, which takes a walk over every node: only after the
  // cursor moved, and no more often than the walk's cost allows.
  void updateHover(DemoContext& ctx) {
    const float reach = kReachPx / ctx.camera.pixelsPerUnit();
    hoverCircle_ = circleNear(ctx.model.structure(), hoverAt_, reach);
    if (hoverCircle_) {
      hoverNode_.reset();
      return;
    }
    const std::uint64_t now = nowNanoseconds();
    const double wait = std::max(kNodeHoverSeconds, nodeWalkMs_ * 1e-3 / kNodeHoverShare);
    if (!hoverMoved_ || double(now - lastNodeWalk_) * 1e-9 < wait) return;
    hoverNode_ = nodeAt(ctx.model.structure(), hoverAt_);
    lastNodeWalk_ = nowNanoseconds();
    nodeWalkMs_ = double(lastNodeWalk_ - now) * 1e-6;
    hoverMoved_ = false;
  }

  void drawCircle(DemoContext& ctx, const CircleDetails& d) {
    ImGui::TextColored(ImVec4(1.0f, 0.86f, 0.45f, 1.0f), "circle %u", d.id);
    if (ImGui::BeginTable("circle", 2, ImGuiTableFlags_SizingFixedFit)) {
      row("centre", format("(%.2f, %.2f)", d.circle.center.x, d.circle.center.y));
      row("radius", format("%.3f", d.circle.radius));
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("group");
      ImGui::TableNextColumn();
      if (d.group < 0) {
        colourSwatch(colours::kStatic, "static (still but for rare jumps)");
      } else {
        colourSwatch(render::groupColour(d.group),
                     ("attraction group " + std::to_string(d.group + 1)).c_str());
      }
      row("overlapping",
          groupedNumber(d.partners.size()) + (d.partners.empty() ? "" : " (red rims and lines)"));
      ImGui::EndTable();
    }
    if (!d.partners.empty()) {
      ImGui::TextDisabled("partners:");
      for (std::size_t i = 0; i < d.partners.size() && i < kPartnersListed; ++i) {
        ImGui::SameLine();
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::SmallButton(std::to_string(d.partners[i]).c_str())) circle_ = d.partners[i];
        ImGui::PopID();
      }
      if (d.partners.size() > kPartnersListed) {
        ImGui::SameLine();
        ImGui::TextDisabled("and %zu more", d.partners.size() - kPartnersListed);
      }
    }
    ImGui::Separator();
    if (d.path.empty()) {
      ImGui::TextDisabled("%s keeps no nodes to show.", ctx.model.structure().name().c_str());
      return;
    }
    if (d.pathNamed) {
      ImGui::Text("held by (bold in the world):");
      drawNodeRows(d.path.back());
      ImGui::Text("path from the root, %zu node%s:", d.path.size(), d.path.size() == 1 ? "" : "s");
    } else {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled(
          "%s does not name the node that keeps a circle: these are the nodes around its centre, one per "
          "depth (white in the world).",
          ctx.model.structure().name().c_str());
      ImGui::PopTextWrapPos();
    }
    if (ImGui::BeginChild("path", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 5.5f), true)) {
      for (const NodeInfo& node : d.path) ImGui::TextUnformatted(describeNode(node).c_str());
    }
    ImGui::EndChild();
  }

  static void drawNodeRows(const NodeInfo& node) {
    if (!ImGui::BeginTable("node", 2, ImGuiTableFlags_SizingFixedFit)) return;
    if (node.shape == NodeShape::Circle) {
      row("sphere", format("centre (%.2f, %.2f)", node.circle.center.x, node.circle.center.y) +
                        format(", radius %.2f", node.circle.radius));
    } else {
      row(node.hasGrown() ? "own box" : "bounds",
          format("x %.2f .. %.2f", node.box.min.x, node.box.max.x) +
              format(", y %.2f .. %.2f", node.box.min.y, node.box.max.y));
      if (node.hasGrown()) {
        row("tested (dashed)", format("x %.2f .. %.2f", node.grown.min.x, node.grown.max.x) +
                                   format(", y %.2f .. %.2f", node.grown.min.y, node.grown.max.y));
      }
    }
    row("depth", std::to_string(node.depth));
    row("items", groupedNumber(node.itemCount) + " held in the node itself");
    ImGui::EndTable();
  }

  static void row(const char* label, const std::string& value) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(value.c_str());
  }

  /// `pattern` with one or two numbers.
  template <class... Numbers>
  static std::string format(const char* pattern, Numbers... numbers) {
    char text[96];
    std::snprintf(text, sizeof text, pattern, double(numbers)...);
    return text;
  }

  std::uint64_t requestsSeen_ = 0;
  std::optional<ItemId> circle_;
  std::optional<CircleDetails> details_;
  std::optional<NodeInfo> node_;
  std::uint64_t nodeFrame_ = 0;
  std::uint64_t generation_ = 0;
  Vec2 hoverAt_;
  bool hovering_ = false;
  bool hoverMoved_ = false;
  std::optional<ItemId> hoverCircle_;
  std::optional<NodeInfo> hoverNode_;
  std::uint64_t lastNodeWalk_ = 0;
  double nodeWalkMs_ = 0.0;
};

const PartRegistrar registrar{
    {PartCategory::Panel, kName,
     "right click (or Shift + left click) a circle: its id, centre, radius, group, the node holding it and "
     "the path from the root, its overlapping partners; or a node: bounds, depth, items and the rule",
     25, false, [] { return std::make_unique<InspectPanel>(); }}};

}  // namespace
}  // namespace st::ui
