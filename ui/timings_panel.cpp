// The timings panel: per-phase milliseconds as a stacked plot over the last frames, drawn with ImGui's
// draw lists (Debian ships no ImPlot), with frame time and FPS.

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "ui/demo_part.hpp"
#include "ui/imgui_util.hpp"

namespace st::ui {
namespace {

// The plot's top is a "nice" value above the recent peak so the scale does not jitter every frame.
float niceCeiling(float value) {
  static constexpr float kSteps[] = {1, 2, 4, 8, 16.7f, 33.3f, 50, 100, 200, 500, 1000, 2000, 5000};
  for (float step : kSteps) {
    if (value <= step) return step;
  }
  return std::ceil(value / 1000.0f) * 1000.0f;
}

class TimingsPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.5f, 1.0f, -290.0f, -220.0f, 550.0f, 210.0f}; }

  void drawPanel(DemoContext& ctx) override {
    const FrameTimings& timings = ctx.model.timings;
    const FrameRecord recent = timings.average(60);
    const float fps = recent.frameMs > 0.0f ? 1000.0f / recent.frameMs : 0.0f;
    ImGui::Text("%.1f fps   frame %.2f ms   (mean of the last 60 frames)", double(fps),
                double(recent.frameMs));

    // The legend's widest row, a swatch and the gaps, in the current font (it grows with the UI scale).
    const ImGuiStyle& style = ImGui::GetStyle();
    const float legendWidth = ImGui::CalcTextSize("structure update  000.00").x + ImGui::GetTextLineHeight() +
                              3.0f * style.ItemSpacing.x + style.ScrollbarSize;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 plotSize(std::max(avail.x - legendWidth, 100.0f), std::max(avail.y, 60.0f));
    drawPlot(timings, plotSize);
    ImGui::SameLine();
    drawLegend(timings, recent);
  }

 private:
  void drawPlot(const FrameTimings& timings, ImVec2 size) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("plot", size);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    draw->AddRectFilled(origin, end, IM_COL32(20, 22, 28, 255));

    // One frame per 1.5 pixels at least: thinner bars would only overdraw each other, and every bar costs
    // triangles that a software rasterizer pays for.
    const std::size_t shown = std::min<std::size_t>(timings.size(), static_cast<std::size_t>(size.x / 1.5f));
    const std::size_t first = timings.size() - shown;
    float peak = 1.0f;
    for (std::size_t i = first; i < timings.size(); ++i) peak = std::max(peak, timings.at(i).frameMs);
    // Ease the scale down slowly after a spike instead of snapping back.
    scale_ = std::max(niceCeiling(peak), scale_ * 0.995f);
    const float pxPerMs = size.y / scale_;
    const std::size_t slots = std::max<std::size_t>(static_cast<std::size_t>(size.x / 1.5f), 1);
    const float barWidth = size.x / float(slots);

    for (std::size_t i = 0; i < shown; ++i) {
      const FrameRecord& r = timings.at(first + i);
      const float x0 = origin.x + float(slots - shown + i) * barWidth;
      const float x1 = x0 + barWidth;
      float y = end.y;
      for (std::size_t p = 0; p < kPhaseCount; ++p) {
        const float h = r.ms[p] * pxPerMs;
        if (h < 0.25f) continue;
        const float top = std::max(y - h, origin.y);
        draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, y),
                            static_cast<ImU32>(phaseColour(static_cast<Phase>(p))));
        y = top;
      }
      // The whole frame, untimed gaps included, as a thin white mark.
      const float frameY = std::max(end.y - r.frameMs * pxPerMs, origin.y);
      draw->AddRectFilled(ImVec2(x0, frameY - 1.0f), ImVec2(x1, frameY), IM_COL32(255, 255, 255, 200));
    }

    float lastLabelY = end.y;
    for (float line : {16.667f, 33.333f, 100.0f}) {
      if (line >= scale_) continue;
      const float y = end.y - line * pxPerMs;
      // Near the bottom the lines crowd together at large scales; label only those with room.
      if (lastLabelY - y < ImGui::GetTextLineHeight()) continue;
      lastLabelY = y;
      draw->AddLine(ImVec2(origin.x, y), ImVec2(end.x, y), IM_COL32(255, 255, 255, 60));
      char label[32];
      std::snprintf(label, sizeof label, "%.0f fps", 1000.0 / double(line));
      draw->AddText(ImVec2(origin.x + 3, y - ImGui::GetTextLineHeight()), IM_COL32(255, 255, 255, 120),
                    label);
    }
    char top[32];
    std::snprintf(top, sizeof top, "%.4g ms", double(scale_));
    draw->AddText(ImVec2(origin.x + 3, origin.y + 1), IM_COL32(255, 255, 255, 150), top);

    if (hovered && shown > 0) {
      const float mouseX = ImGui::GetIO().MousePos.x;
      const long slot = static_cast<long>((mouseX - origin.x) / barWidth) - long(slots - shown);
      if (slot >= 0 && slot < static_cast<long>(shown)) {
        const FrameRecord& r = timings.at(first + static_cast<std::size_t>(slot));
        ImGui::BeginTooltip();
        ImGui::Text("frame %.2f ms", double(r.frameMs));
        for (std::size_t p = 0; p < kPhaseCount; ++p)
          ImGui::Text("%-18s %7.3f ms", phaseName(static_cast<Phase>(p)), double(r.ms[p]));
        ImGui::EndTooltip();
      }
    }
  }

  static void drawLegend(const FrameTimings& timings, const FrameRecord& recent) {
    ImGui::BeginGroup();
    FrameRecord worst;
    const std::size_t n = timings.size();
    for (std::size_t i = n > 60 ? n - 60 : 0; i < n; ++i) {
      for (std::size_t p = 0; p < kPhaseCount; ++p) worst.ms[p] = std::max(worst.ms[p], timings.at(i).ms[p]);
    }
    for (std::size_t p = kPhaseCount; p-- > 0;) {
      const auto phase = static_cast<Phase>(p);
      char label[64];
      std::snprintf(label, sizeof label, "%-16s %6.2f", phaseName(phase), double(recent.ms[p]));
      colourSwatch(phaseColour(phase), label);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s\nmean %.3f ms, worst %.3f ms (last 60 frames)", phaseDescription(phase),
                          double(recent.ms[p]), double(worst.ms[p]));
    }
    ImGui::TextDisabled("ms, mean of 60 frames");
    ImGui::EndGroup();
  }

  float scale_ = 16.667f;
};

const PartRegistrar registrar{{PartCategory::Panel, "Timings",
                               "per-phase milliseconds stacked over the last frames, frame time and FPS", 40,
                               true, [] { return std::make_unique<TimingsPanel>(); }}};

}  // namespace
}  // namespace st::ui
