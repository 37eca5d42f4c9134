// The help panel: keys, what every colour means, and what each panel and overlay is for.

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

namespace colours = render::colours;

constexpr const char* kKeys[][2] = {
    {"space", "pause / resume the simulation"},
    {".", "single step (pauses)"},
    {"1 .. 9, 0", "pick structure 1 .. 10 of the list"},
    {"Shift + 1 .. 9, 0", "pick structure 11 .. 20 of the list"},
    {"[  ]", "previous / next structure"},
    {"F", "fit the world into the window"},
    {"F1", "hide / show the panels"},
    {"F5", "presentation view: the world and the lesson's text only (Esc leaves it)"},
    {"Page Down, right arrow", "the lesson's next step"},
    {"Page Up, left arrow", "the lesson's step before"},
    {"F12", "save a screenshot (PNG in the current directory)"},
    {"left drag", "pan; with a query picked: place and size the query"},
    {"right / middle drag", "pan"},
    {"right click, Shift + click", "inspect the circle or node under the cursor (Inspect panel)"},
    {"hover", "a tooltip names the circle or node under the cursor"},
    {"wheel", "zoom around the cursor"},
    {"Ctrl + wheel", "resize the query shape"},
};

class HelpPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.5f, 0.0f, -270.0f, 50.0f, 540.0f, 540.0f}; }

  void drawPanel(DemoContext& ctx) override {
    if (ImGui::Button("Start here: the lessons")) {
      for (PartSlot& slot : ctx.parts) {
        if (slot.info->name == teach_names::kStartHere) slot.shown = true;
      }
    }
    const char* lessonsHint = "step-by-step views that show what each structure does";
    if (fitsOnLine(ImGui::CalcTextSize(lessonsHint).x)) ImGui::SameLine();
    ImGui::TextDisabled("%s", lessonsHint);
    if (ImGui::CollapsingHeader("keys and mouse", ImGuiTreeNodeFlags_DefaultOpen)) {
      // The keys take what they need; what they do fills the rest and wraps, so no line runs past the panel.
      if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
        for (const auto& [key, what] : kKeys) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(key);
          ImGui::TableNextColumn();
          ImGui::TextWrapped("%s", what);
        }
        ImGui::EndTable();
      }
      ImGui::TextDisabled("Keys and the mouse go to a panel while it is hovered or typing.");
    }
    if (ImGui::CollapsingHeader("colours", ImGuiTreeNodeFlags_DefaultOpen)) drawPalette();
    if (ImGui::CollapsingHeader("panels and overlays", ImGuiTreeNodeFlags_DefaultOpen)) {
      for (const PartSlot& slot : ctx.parts) {
        ImGui::BulletText("%s %s", slot.info->name.c_str(),
                          slot.info->category == PartCategory::Overlay ? "(overlay)" : "");
        ImGui::Indent();
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", slot.info->description.c_str());
        ImGui::PopTextWrapPos();
        ImGui::Unindent();
      }
    }
  }

 private:
  // The palette's three families, each under its own heading, so that a reader learns which colours can
  // only mean a query state, which only depth and which only a group.
  static void drawPalette() {
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "query states and events: saturated, reserved");
    for (const render::ReservedColour& reserved : render::kReservedColours)
      colourSwatch(reserved.colour, reserved.meaning);
    ImGui::Spacing();
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "structure nodes: one grey-blue");
    depthSwatches(render::kDepthLevels);
    ImGui::SameLine();
    ImGui::TextUnformatted("outlines: root .. deepest");
    depthFillSwatches(render::kDepthLevels - 1);
    ImGui::SameLine();
    ImGui::TextUnformatted("fill under the circles: lighter is deeper");
    colourSwatch(render::withAlpha(render::depthShade(0.0f), 60),
                 "haze over the circles: levels too fine to outline");
    ImGui::TextDisabled("Dashed: a node's grown bounds (loose or widened) where they explain something.");
    ImGui::Spacing();
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "circles: muted colours, one per attraction group");
    for (int g = 0; g < 16; ++g) {
      if (g % 8 != 0) ImGui::SameLine(0.0f, 2.0f);
      ImGui::PushID(g);
      ImGui::ColorButton("group", toImVec4(render::groupColour(g)), ImGuiColorEditFlags_NoTooltip,
                         ImVec2(scaled(14.0f), scaled(14.0f)));
      ImGui::PopID();
      if (g == 7) {
        ImGui::SameLine();
        ImGui::TextUnformatted("groups 1-8");
      }
    }
    ImGui::SameLine();
    ImGui::TextUnformatted("groups 9-16");
    colourSwatch(colours::kStatic, "static circles (still but for rare jumps)");
    ImGui::TextDisabled("An attraction point is a dark disc rimmed and crossed in its group's colour.");
    ImGui::TextDisabled("The query's shape and the step-through's current node are white outlines.");
  }
};

const PartRegistrar registrar{{PartCategory::Panel, "Help", "keys, colours, panels and overlays", 90, false,
                               [] { return std::make_unique<HelpPanel>(); }}};

}  // namespace
}  // namespace st::ui
