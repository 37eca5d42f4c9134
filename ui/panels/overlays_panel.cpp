// The overlays panel: every registered overlay with its switch, its legend and its options.

#include <imgui.h>

#include "ui/panels/demo_part.hpp"

namespace st::ui {
namespace {

class OverlaysPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {1.0f, 0.0f, -680.0f, 30.0f, 330.0f, 380.0f}; }

  void drawPanel(DemoContext& ctx) override {
    for (PartSlot& slot : ctx.parts) {
      if (slot.info->category != PartCategory::Overlay) continue;
      ImGui::PushID(slot.info->name.c_str());
      ImGui::Checkbox(slot.info->name.c_str(), &slot.shown);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", slot.info->description.c_str());
      if (slot.shown) {
        ImGui::Indent();
        slot.part->drawPanel(ctx);
        ImGui::Unindent();
      }
      ImGui::PopID();
    }
  }
};

const PartRegistrar registrar{{PartCategory::Panel, "Overlays",
                               "switch each overlay, with its legend and options", 50, false,
                               [] { return std::make_unique<OverlaysPanel>(); }}};

}  // namespace
}  // namespace st::ui
