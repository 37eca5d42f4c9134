// The timings panel: per-phase milliseconds as stacked plots over the last frames, drawn with ImGui's draw
// lists (Debian ships no ImPlot), with frame time and FPS. The whole frame is plotted on a scale set by the
// recent frames; the structure's own phases, a small part of the frame at a few thousand circles, again
// underneath on a scale of their own.

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"

namespace st::ui {
namespace {

constexpr Phase kStructurePhases[] = {Phase::Update, Phase::Pairs, Phase::Queries};

float wholeFrame(const FrameRecord& r) {
  return r.frameMs;
}

float structureWork(const FrameRecord& r) {
  return r[Phase::Update] + r[Phase::Pairs] + r[Phase::Queries];
}

class TimingsPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.5f, 1.0f, -290.0f, -220.0f, 550.0f, 210.0f}; }

  void drawPanel(DemoContext& ctx) override {
    const FrameTimings& timings = ctx.model.timings;
    const FrameRecord recent = timings.average(60);
    const float fps = recent.frameMs > 0.0f ? 1000.0f / recent.frameMs : 0.0f;
    ImGui::Text("%.1f fps   frame %.2f ms", double(fps), double(recent.frameMs));
    ImGui::SameLine();
    ImGui::TextDisabled("(ms: means of the last 60 frames)");

    // The legend takes what its longest name and a four-digit mean need; the plots the rest.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float legendWidth = ImGui::GetTextLineHeight() + style.ItemSpacing.x * 3.0f +
                              ImGui::CalcTextSize(phaseName(Phase::Update)).x +
                              ImGui::CalcTextSize("0000.00").x;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float spacing = style.ItemSpacing.y;
    const float plotWidth = std::max(avail.x - legendWidth - style.ItemSpacing.x, 100.0f);
    const float height = std::max(avail.y, 60.0f);
    ImGui::BeginGroup();
    const float frameHeight = std::floor((height - spacing) * 0.6f);
    drawPlot("frame", timings, ImVec2(plotWidth, frameHeight), frameScale_, wholeFrame, nullptr,
             "whole frame");
    drawPlot("structure", timings, ImVec2(plotWidth, height - spacing - frameHeight), structureScale_,
             structureWork, kStructurePhases, "update + pairs + queries");
    ImGui::EndGroup();
    ImGui::SameLine();
    drawLegend(timings, recent, legendWidth);
  }

 private:
  // One frame per 3 pixels: thinner bars would only overdraw each other, and every bar costs triangles
  // that a software rasterizer pays for. `phases` null: every phase and the frame's mark.
  void drawPlot(const char* id, const FrameTimings& timings, ImVec2 size, float& scale,
                float (*value)(const FrameRecord&), const Phase* phases, const char* title) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    draw->AddRectFilled(origin, end, IM_COL32(20, 22, 28, 255));
    draw->PushClipRect(origin, end, true);

    const std::size_t slots = std::max<std::size_t>(static_cast<std::size_t>(size.x / 3.0f), 1);
    const std::size_t shown = std::min(timings.size(), slots);
    const std::size_t first = timings.size() - shown;
    // The recent frames set the scale, the run's first ones left out; it eases down after a spike.
    const float target = plotCeiling(timings, first, value, phases ? 0.05f : 1.0f);
    scale = target >= scale ? target : std::max(target, scale * 0.97f);
    const float pxPerMs = size.y / scale;
    const float barWidth = size.x / float(slots);
    const std::size_t phaseCount = phases ? std::size(kStructurePhases) : kPhaseCount;
    for (std::size_t i = 0; i < shown; ++i) {
      const FrameRecord& r = timings.at(first + i);
      const float x0 = origin.x + float(slots - shown + i) * barWidth;
      const float x1 = x0 + barWidth;
      float y = end.y;
      for (std::size_t k = 0; k < phaseCount; ++k) {
        const Phase phase = phases ? phases[k] : static_cast<Phase>(k);
        const float h = r[phase] * pxPerMs;
        if (h < 0.25f) continue;
        const float top = std::max(y - h, origin.y);
        draw->AddRectFilled(ImVec2(x0, top), ImVec2(x1, y), static_cast<ImU32>(phaseColour(phase)));
        y = top;
      }
      if (phases == nullptr) {
        // The whole frame, untimed gaps included, as a thin white mark.
        const float frameY = std::max(end.y - r.frameMs * pxPerMs, origin.y);
        draw->AddRectFilled(ImVec2(x0, frameY - 1.0f), ImVec2(x1, frameY), IM_COL32(255, 255, 255, 200));
      }
      // A frame off the top of the scale gets a red cap.
      if (value(r) > scale)
        draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1, origin.y + 3.0f), IM_COL32(255, 80, 80, 255));
    }
    if (phases == nullptr) {
      float lastLabelY = end.y;
      for (float line : {16.667f, 33.333f, 100.0f}) {
        if (line >= scale) continue;
        const float y = end.y - line * pxPerMs;
        // Near the bottom the lines crowd together at large scales; label only those with room.
        if (lastLabelY - y < ImGui::GetTextLineHeight()) continue;
        lastLabelY = y;
        draw->AddLine(ImVec2(origin.x, y), ImVec2(end.x, y), IM_COL32(255, 255, 255, 60));
        char label[32];
        std::snprintf(label, sizeof label, "%.0f fps", 1000.0 / double(line));
        draw->AddText(ImVec2(end.x - ImGui::CalcTextSize(label).x - 3.0f, y - ImGui::GetTextLineHeight()),
                      IM_COL32(255, 255, 255, 120), label);
      }
    }
    char top[64];
    std::snprintf(top, sizeof top, "%s, top %.3g ms", title, double(scale));
    draw->AddText(ImVec2(origin.x + 3, origin.y + 1), IM_COL32(255, 255, 255, 160), top);
    draw->PopClipRect();

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

  // Names left, means right-aligned in a column of their own, the slowest phase at the top as in the plot.
  static void drawLegend(const FrameTimings& timings, const FrameRecord& recent, float width) {
    FrameRecord worst;
    const std::size_t n = timings.size();
    for (std::size_t i = n > 60 ? n - 60 : 0; i < n; ++i) {
      for (std::size_t p = 0; p < kPhaseCount; ++p) worst.ms[p] = std::max(worst.ms[p], timings.at(i).ms[p]);
    }
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(2.0f, 0.0f));
    if (ImGui::BeginTable("legend", 2, ImGuiTableFlags_SizingFixedFit, ImVec2(width, 0.0f))) {
      ImGui::TableSetupColumn("phase", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("0000.00").x);
      for (std::size_t p = kPhaseCount; p-- > 0;) {
        const auto phase = static_cast<Phase>(p);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        colourSwatch(phaseColour(phase), phaseName(phase));
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("%s\nmean %.3f ms, worst %.3f ms (last 60 frames)", phaseDescription(phase),
                            double(recent.ms[p]), double(worst.ms[p]));
        ImGui::TableNextColumn();
        char value[32];
        std::snprintf(value, sizeof value, "%.2f", double(recent.ms[p]));
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetColumnWidth() - ImGui::CalcTextSize(value).x);
        ImGui::TextUnformatted(value);
      }
      ImGui::EndTable();
    }
    ImGui::PopStyleVar();
  }

  float frameScale_ = 16.667f;
  float structureScale_ = 1.0f;
};

const PartRegistrar registrar{
    {PartCategory::Panel, "Timings",
     "per-phase milliseconds stacked over the last frames (the whole frame, and the "
     "structure's update, pairs and queries on their own scale), frame time and FPS",
     40, true, [] { return std::make_unique<TimingsPanel>(); }}};

}  // namespace
}  // namespace st::ui
