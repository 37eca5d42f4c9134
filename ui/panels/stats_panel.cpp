// The stats panel: the structure's size, this frame's work against brute force, and its own counters.

#include <algorithm>
#include <cstdio>

#include <imgui.h>

#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"

namespace st::ui {
namespace {

void row(const char* label, const std::string& value, const char* tooltip = nullptr) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  if (tooltip != nullptr && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
}

// The structure's own figures (stats() and extra()) can walk the whole structure: tens of milliseconds at
// 100,000 circles for some trees. They are gathered again only after a pause that grows with what the last
// gathering cost, so that they take at most a fifth of a percent of the window's time, but at least four
// times a second when they are cheap and at least every ten seconds when they are not.
constexpr double kMinRefreshSeconds = 0.25;
constexpr double kMaxRefreshSeconds = 10.0;
constexpr double kRefreshShare = 0.002;

/// The nodes a walk visited, or "not counted" where the structure cannot count them.
std::string nodesFigure(const SpatialIndex& index, std::uint64_t visited) {
  return index.nodesNotCounted().empty() ? groupedNumber(visited) : "not counted";
}

/// Why the structure cannot count them, for the row's tooltip (none where it can).
const char* notCountedTip(const SpatialIndex& index) {
  return index.nodesNotCounted().empty() ? nullptr : index.nodesNotCounted().data();
}

std::string number(double v) {
  char text[48];
  if (v == static_cast<double>(static_cast<std::uint64_t>(v)) && v >= 0 && v < 1e15) {
    return groupedNumber(static_cast<std::uint64_t>(v));
  }
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

class StatsPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {1.0f, 0.0f, -370.0f, 30.0f, 360.0f, 430.0f}; }

  void drawPanel(DemoContext& ctx) override {
    DemoModel& model = ctx.model;
    const SpatialIndex& index = model.structure();
    const Simulation& sim = model.simulation();
    const std::size_t n = sim.circles().size();
    const double bruteTests = double(n) * double(n - (n > 0 ? 1 : 0)) / 2.0;
    if (model.generation() != generation_) {
      generation_ = model.generation();
      validated_ = false;
      gathered_ = false;
    }
    const double sinceGathered = double(nowNanoseconds() - gatheredAt_) * 1e-9;
    if (!gathered_ || sinceGathered >= refreshSeconds()) gather(index);

    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("%s: %s circles, %s moved in the last step", index.name().c_str(), groupedNumber(n).c_str(),
                groupedNumber(sim.movedIds().size()).c_str());
    ImGui::PopTextWrapPos();
    // The labels' column fits the longest label; the values take what is left.
    if (!ImGui::BeginTable("stats", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("figure", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    const IndexStats& stats = stats_;
    row("nodes", groupedNumber(stats.nodes), "nodes or occupied cells");
    row("max depth", std::to_string(stats.maxDepth));
    row("memory", formatBytes(stats.memoryBytes), "capacity-based bytes, item table included");

    if (model.pairsCurrent() || !model.pairs().empty()) {
      const QueryCounters& pc = model.pairCounters();
      row("pairs", groupedNumber(model.pairs().size()), "overlapping pairs this frame (touching counts)");
      const std::string_view lowerBound = index.examinedLowerBound();
      const std::string examinedTip =
          lowerBound.empty()
              ? "circle pairs whose distance or bounds the pair search compared this frame, in "
                "a vector lane or one by one"
              : "a lower bound: " + std::string(lowerBound);
      row("pairs examined", examinedText(lowerBound, pc.candidates), examinedTip.c_str());
      row("exact tests", groupedNumber(pc.exactTests),
          "of those, the pairs tested exactly (a cheaper float check let them through, or there is none)");
      row("brute n(n-1)/2", number(bruteTests), "what examining every pair costs");
      if (pc.candidates > 0) {
        char ratio[64];
        const char* atLeast = lowerBound.empty() ? "" : "at least ";
        const char* atMost = lowerBound.empty() ? "" : "at most ";
        std::snprintf(ratio, sizeof ratio, "%s%.3g%%", atLeast, 100.0 * double(pc.candidates) / bruteTests);
        row("examined / brute", ratio, "pairs examined as a share of n(n-1)/2");
        std::snprintf(ratio, sizeof ratio, "%s%.0fx", atMost, bruteTests / double(pc.candidates));
        row("fewer than brute", ratio, "n(n-1)/2 over the pairs examined");
      }
      row("pair nodes visited", nodesFigure(index, pc.nodesVisited), notCountedTip(index));
    } else {
      row("pairs", "(pair search off)");
    }
    const QueryCounters& uc = model.updateCounters();
    row("update nodes visited", groupedNumber(uc.nodesVisited), "updateBatch + maintain, this frame");
    row("update tests", groupedNumber(uc.candidates),
        "circles examined during update + maintain, this frame");
    if (model.query.mode != std::nullopt) {
      row("query nodes visited", nodesFigure(index, model.query.counters.nodesVisited),
          index.nodesNotCounted().empty() ? "the Query panel's query" : notCountedTip(index));
      row("query circles examined", examinedText(index.examinedLowerBound(), model.query.counters.candidates),
          "circles whose distance or bounds the query compared");
      row("query exact tests", groupedNumber(model.query.counters.exactTests));
    }
    for (const auto& [name, value] : extra_) row(name.c_str(), number(value), "structure-specific figure");
    ImGui::EndTable();
    ImGui::TextDisabled("structure figures %.1f s old", sinceGathered);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Gathering them took %.2f ms; they are gathered again every %.2f s, so that they cost the window "
          "little at any count.",
          gatherMs_, refreshSeconds());
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("refresh")) gather(index);

    if (ImGui::Button("validate")) {
      const std::uint64_t start = nowNanoseconds();
      validation_ = index.validate();
      validationMs_ = millisecondsSince(start);
      validated_ = true;
    }
    if (validated_) {
      ImGui::SameLine();
      if (validation_.empty()) {
        ImGui::TextColored(ImVec4(0.5f, 1.0f, 0.5f, 1.0f), "valid (%.1f ms)", validationMs_);
      } else {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "%s", validation_.c_str());
        ImGui::PopTextWrapPos();
      }
    }
  }

 private:
  void gather(const SpatialIndex& index) {
    const std::uint64_t start = nowNanoseconds();
    stats_ = index.stats();
    extra_.clear();
    index.extra(extra_);
    gatherMs_ = millisecondsSince(start);
    gatheredAt_ = nowNanoseconds();
    gathered_ = true;
  }

  double refreshSeconds() const {
    return std::clamp(gatherMs_ * 1e-3 / kRefreshShare, kMinRefreshSeconds, kMaxRefreshSeconds);
  }

  IndexStats stats_;
  ExtraCounters extra_;
  bool gathered_ = false;
  std::uint64_t gatheredAt_ = 0;
  double gatherMs_ = 0.0;
  std::string validation_;
  double validationMs_ = 0.0;
  bool validated_ = false;
  std::uint64_t generation_ = 0;
};

const PartRegistrar registrar{
    {PartCategory::Panel, "Stats",
     "nodes, depth, memory, pairs examined against brute force, nodes visited, structure counters", 30, true,
     [] { return std::make_unique<StatsPanel>(); }}};

}  // namespace
}  // namespace st::ui
