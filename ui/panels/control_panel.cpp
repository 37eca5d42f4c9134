// The control panel: structure switching, the structure's live parameters, the scene, the simulation
// clock and the display options.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"

namespace st::ui {
namespace {

class ControlPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.0f, 0.0f, 10.0f, 30.0f, 330.0f, 560.0f}; }

  void drawPanel(DemoContext& ctx) override {
    DemoModel& model = ctx.model;
    if (!pendingValid_) {
      pending_ = model.scene();
      pendingValid_ = true;
    }
    drawStructure(model);
    drawParameters(model);
    drawScene(model);
    drawSimulation(model);
    drawDisplay(ctx.view);
    if (!model.lastError().empty()) {
      ImGui::Separator();
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "%s", model.lastError().c_str());
      ImGui::PopTextWrapPos();
    }
    growToContent();
  }

  /// Lengthens the window to its content (down to the display's bottom at most), so that its last row is
  /// never cut; a window the user made taller stays so.
  static void growToContent() {
    const float needed = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
    const float room = ImGui::GetIO().DisplaySize.y - ImGui::GetWindowPos().y;
    const float height = std::min(needed, room);
    if (height > ImGui::GetWindowHeight() + 0.5f)
      ImGui::SetWindowSize(ImVec2(ImGui::GetWindowWidth(), height));
  }

 private:
  // -- structure -----------------------------------------------------------------------------------------
  static void drawStructure(DemoModel& model) {
    const auto& all = model.registry().all();
    const StructureInfo& current = all[model.structureIndex()];
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##structure", current.name.c_str())) {
      for (std::size_t i = 0; i < all.size(); ++i) {
        char label[160];
        std::snprintf(label, sizeof label, "%s%s", all[i].name.c_str(),
                      all[i].peer ? "  (peer library)" : "");
        if (ImGui::Selectable(label, i == model.structureIndex())) model.selectStructure(all[i].name);
        if (ImGui::IsItemHovered() && !all[i].summary.empty())
          ImGui::SetTooltip("%s", all[i].summary.c_str());
        if (i < 10) {
          ImGui::SameLine(ImGui::GetContentRegionAvail().x - 10.0f);
          ImGui::TextDisabled("%zu", (i + 1) % 10);
        }
      }
      ImGui::EndCombo();
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "Keys 1-9, 0 (Shift for 11-20) and [ ] switch too. The circles keep moving; the new structure is "
        "built from them.");
    ImGui::PopTextWrapPos();
    ImGui::Text("built in %.2f ms (%s)", model.buildMs(), model.buildReason().c_str());
    if (ImGui::TreeNode("how it works")) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextUnformatted(model.structure().description().data(),
                             model.structure().description().data() + model.structure().description().size());
      if (!current.source.empty()) ImGui::TextDisabled("source: %s", current.source.c_str());
      ImGui::PopTextWrapPos();
      ImGui::TreePop();
    }
  }

  void drawParameters(DemoModel& model) {
    const std::vector<ParamInfo>& params = model.structure().params();
    if (params.empty()) return;
    if (!ImGui::CollapsingHeader("parameters", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::PushItemWidth(-scaled(140.0f));
    const ExtraCounters& extra = chosenSizes(model);
    for (const ParamInfo& p : params) {
      const double current = model.structure().param(p.key);
      bool changed = false;
      double next = current;
      if (p.integer && p.minValue == 0.0 && p.maxValue == 1.0) {
        // An on/off switch.
        bool on = current >= 1.0;
        changed = ImGui::Checkbox(p.key.c_str(), &on);
        next = on ? 1.0 : 0.0;
      } else if (p.integer) {
        int value = static_cast<int>(std::lround(current));
        const int lo = static_cast<int>(p.minValue), hi = static_cast<int>(std::min(p.maxValue, 1e9));
        changed = hi - lo <= 64 ? ImGui::SliderInt(p.key.c_str(), &value, lo, hi)
                                : ImGui::DragInt(p.key.c_str(), &value, 1.0f, lo, hi);
        next = value;
      } else {
        float value = static_cast<float>(current);
        const float lo = static_cast<float>(p.minValue), hi = static_cast<float>(p.maxValue);
        // Wide ranges (cell scales, slop factors up to thousands) are only usable on a log scale.
        const bool logarithmic = lo > 0.0f && hi / lo > 100.0f;
        const std::string format = sliderFormat(p, current, extra);
        changed = ImGui::SliderFloat(p.key.c_str(), &value, lo, hi, format.c_str(),
                                     logarithmic ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None);
        next = std::clamp(double(value), p.minValue, p.maxValue);
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\n[%g .. %g], default %g", p.description.c_str(), p.minValue, p.maxValue,
                          p.defaultValue);
      if (changed && next != current) model.setParam(p.key, next);
    }
    ImGui::PopItemWidth();
    if (ImGui::SmallButton("defaults")) {
      for (const ParamInfo& p : params) {
        if (model.structure().param(p.key) != p.defaultValue) model.setParam(p.key, p.defaultValue);
      }
    }
  }

  /// The structure's figures, for the sizes it chose itself: only when a parameter is left to it, and at
  /// most once a second (extra() can walk a whole tree).
  const ExtraCounters& chosenSizes(const DemoModel& model) {
    const bool wanted =
        std::any_of(model.structure().params().begin(), model.structure().params().end(),
                    [&](const ParamInfo& p) { return automatic(p, model.structure().param(p.key)); });
    if (!wanted) {
      chosen_.clear();
      return chosen_;
    }
    const std::uint64_t now = nowNanoseconds();
    if (model.generation() != chosenGeneration_ || double(now - chosenAt_) * 1e-9 >= 1.0) {
      chosen_.clear();
      model.structure().extra(chosen_);
      chosenAt_ = now;
      chosenGeneration_ = model.generation();
    }
    return chosen_;
  }

  /// Whether a parameter whose 0 means "chosen automatically" is at 0.
  static bool automatic(const ParamInfo& p, double current) {
    return current == 0.0 && p.minValue == 0.0 && p.description.find("0 =") != std::string::npos;
  }

  /// How a float parameter's slider shows its value: a parameter whose 0 means "chosen automatically" says
  /// so at 0, with the size the structure chose when its figures name it.
  static std::string sliderFormat(const ParamInfo& p, double current, const ExtraCounters& extra) {
    if (!automatic(p, current)) return "%.3g";
    for (const auto& [name, value] : extra) {
      if (name != p.key) continue;
      char text[64];
      std::snprintf(text, sizeof text, "auto (%.3g)", value);
      return text;
    }
    return "auto";
  }

  // -- scene ---------------------------------------------------------------------------------------------
  void drawScene(DemoModel& model) {
    if (!ImGui::CollapsingHeader("scene", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::PushItemWidth(-scaled(140.0f));
    if (ImGui::BeginCombo("scenario", pending_.scenario.c_str())) {
      for (const ScenarioInfo& s : scenarios()) {
        if (ImGui::Selectable(s.name.c_str(), s.name == pending_.scenario)) pending_.scenario = s.name;
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.description.c_str());
      }
      ImGui::EndCombo();
    }
    std::uint64_t count = pending_.count;
    const std::uint64_t step = 1000, fastStep = 10000;
    if (ImGui::InputScalar("count", ImGuiDataType_U64, &count, &step, &fastStep, "%llu")) {
      pending_.count = static_cast<std::size_t>(std::clamp<std::uint64_t>(count, 1, 10'000'000));
    }
    const std::uint64_t one = 1;
    ImGui::InputScalar("seed", ImGuiDataType_U64, &pending_.seed, &one, nullptr, "%llu");
    if (ImGui::TreeNode("scene parameters")) {
      for (const ParamInfo& p : sceneParams()) {
        double value = sceneParam(pending_.config, p.key);
        if (ImGui::InputDouble(p.key.c_str(), &value, 0.0, 0.0, "%.4g")) {
          try {
            setSceneParam(pending_.config, p.key, std::clamp(value, p.minValue, p.maxValue));
          } catch (const std::exception&) {
            // Kept at the last accepted value; the tooltip states the range.
          }
        }
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s\n[%g .. %g]", p.description.c_str(), p.minValue, p.maxValue);
      }
      ImGui::TreePop();
    }
    ImGui::PopItemWidth();
    const bool differs = pending_.count != model.scene().count ||
                         pending_.scenario != model.scene().scenario || pending_.seed != model.scene().seed;
    if (ImGui::Button(differs ? "apply (reseed) *" : "apply (reseed)")) model.reseed(pending_);
    ImGui::SameLine();
    if (ImGui::Button("new seed")) {
      ++pending_.seed;
      model.reseed(pending_);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s circles", groupedNumber(model.simulation().circles().size()).c_str());
  }

  // -- simulation and display ----------------------------------------------------------------------------
  static void drawSimulation(DemoModel& model) {
    if (!ImGui::CollapsingHeader("simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::Checkbox("pause (space)", &model.paused);
    ImGui::SameLine();
    if (ImGui::Button("step (.)")) {
      model.paused = true;
      model.requestStep();
    }
    ImGui::SetNextItemWidth(-scaled(140.0f));
    ImGui::SliderFloat("steps per frame", &model.speed, 0.05f, 8.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    int threads = static_cast<int>(model.threads());
    ImGui::SetNextItemWidth(-scaled(140.0f));
    if (ImGui::SliderInt("threads", &threads, 1,
                         static_cast<int>(std::max(hardwareThreads(), model.threads())))) {
      model.setThreads(static_cast<unsigned>(std::max(threads, 1)));
    }
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Threads for the simulation, the update and the pair search (same results on any count)");
    }
    ImGui::Checkbox("find pairs every frame", &model.pairSearch);
    if (!model.pairSearchNote().empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", model.pairSearchNote().c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::TextDisabled("frame %llu", static_cast<unsigned long long>(model.simulation().frame()));
  }

  static void drawDisplay(ViewOptions& view) {
    if (!ImGui::CollapsingHeader("display")) return;
    ImGui::Checkbox("vsync", &view.vsync);
    int mode = static_cast<int>(view.circleMode);
    ImGui::SetNextItemWidth(-scaled(140.0f));
    if (ImGui::BeginCombo("circles as", render::circleModeName(view.circleMode))) {
      for (int m = 0; m < render::kCircleModeCount; ++m) {
        if (ImGui::Selectable(render::circleModeName(render::CircleMode(m)), m == mode))
          view.circleMode = render::CircleMode(m);
      }
      ImGui::EndCombo();
    }
    helpMarker(
        "All three draw the same picture in one draw call. Vertex pulling reads each circle from a buffer "
        "texture and suits both GPUs and software rasterizers (llvmpipe runs instanced draws one instance "
        "at a time). GL_POINTS is cheap but cuts circles larger than the driver's largest point size. "
        "Drawing the "
        "small ones on the CPU is much the fastest on a software rasterizer such as llvmpipe.");
    ImGui::SetNextItemWidth(-scaled(140.0f));
    ImGui::SliderFloat("min radius px", &view.minCirclePx, 0.3f, 4.0f, "%.1f");
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("GL: %s%s", view.glRenderer.c_str(), view.softwareGl ? " (software)" : "");
    ImGui::PopTextWrapPos();
    if (ImGui::Button("fit world (F)")) view.fitRequested = true;
    ImGui::SameLine();
    if (ImGui::Button("screenshot (F12)")) view.screenshotRequested = true;
  }

  SceneSetup pending_;
  bool pendingValid_ = false;
  ExtraCounters chosen_;
  std::uint64_t chosenAt_ = 0;
  std::uint64_t chosenGeneration_ = ~std::uint64_t{0};
};

const PartRegistrar registrar{
    {PartCategory::Panel, "Control",
     "structure (switch live), its parameters, scene, count, seed, pause, step and speed", 10, true,
     [] { return std::make_unique<ControlPanel>(); }}};

}  // namespace
}  // namespace st::ui
