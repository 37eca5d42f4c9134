// The export panel: a screenshot of the window (as F12) and a CSV of the current stats, with the Compare
// panel's figures for every structure when it has run.

#include <ctime>
#include <exception>

#include <imgui.h>

#include "spheretest/atomic_file.hpp"
#include "ui/model/teach_content.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

std::string timestamped(const char* pattern) {
  const std::time_t now = std::time(nullptr);
  char name[64];
  std::strftime(name, sizeof name, pattern, std::localtime(&now));
  return name;
}

class ExportPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.0f, 1.0f, 10.0f, -200.0f, 330.0f, 190.0f}; }

  void update(DemoContext& ctx) override {
    // A start-up request writes once, after the first frame's pair search, for scripts and tests.
    if (!teachRequestsChanged(requestsSeen_)) return;
    if (const std::string path = teachRequest("export_csv"); !path.empty()) write(ctx, path);
  }

  void drawPanel(DemoContext& ctx) override {
    if (ImGui::Button("screenshot (F12)")) ctx.view.screenshotRequested = true;
    helpMarker("A PNG of the whole window, saved in the current directory as spheretest-<date>-<time>.png.");
    ImGui::SameLine();
    if (ImGui::Button("CSV of the current stats"))
      write(ctx, timestamped("spheretest-stats-%Y%m%d-%H%M%S.csv"));
    helpMarker(
        "One row per figure: section,structure,figure,value. Sections: scene, structure, parameter, frame "
        "(this frame's pairs and tests, brute force's n(n-1)/2), query, extra (the structure's own figures), "
        "timing_ms (one 'absent' row until a frame has been measured), and compare (every structure) once "
        "the Compare panel has run.");
    ImGui::Checkbox("include the Compare panel's figures", &includeComparison_);
    if (!teachBoard().comparison) {
      if (fitsOnLine(ImGui::CalcTextSize("(none yet)").x)) ImGui::SameLine();
      ImGui::TextDisabled("(none yet)");
    }
    if (!message_.empty()) ImGui::TextWrapped("%s", message_.c_str());
    if (!preview_.empty() &&
        ImGui::BeginChild("preview", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar)) {
      ImGui::TextUnformatted(preview_.c_str());
    }
    if (!preview_.empty()) ImGui::EndChild();
  }

 private:
  void write(DemoContext& ctx, const std::string& path) {
    const std::optional<CompareResult>& comparison = teachBoard().comparison;
    const std::string csv = statsCsv(ctx.model, includeComparison_ && comparison ? &*comparison : nullptr);
    try {
      writeFileAtomically(path, csv);
      message_ = "saved " + path;
      ctx.view.status = message_;
    } catch (const std::exception& error) {
      message_ = error.what();
    }
    preview_ = csv;
  }

  std::uint64_t requestsSeen_ = 0;
  bool includeComparison_ = true;
  std::string message_;
  std::string preview_;
};

const PartRegistrar registrar{
    {PartCategory::Panel, teach_names::kExport,
     "save a screenshot (F12) or a CSV of the current stats (and of the comparison)", 69, false,
     [] { return std::make_unique<ExportPanel>(); }}};

}  // namespace
}  // namespace st::ui
