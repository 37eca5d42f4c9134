// The comparison panel: every structure runs on the current frame's circles on a thread of its own, and
// live bar charts show each one's milliseconds and candidate tests for the pair search or the Query panel's
// query, with a check that all of them found the same pairs.

#include <algorithm>
#include <cstdio>

#include <imgui.h>

#include "render/palette.hpp"
#include "ui/model/compare_runner.hpp"
#include "ui/model/teach_trace.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_chart.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

constexpr std::uint32_t kUpdateColour = render::rgba(100, 160, 255);
constexpr std::uint32_t kPairsColour = render::rgba(255, 170, 60);
constexpr std::uint32_t kQueryColour = render::rgba(120, 220, 140);
constexpr std::uint32_t kTestsColour = render::rgba(40, 200, 235);
constexpr std::uint32_t kPretestColour = render::rgba(150, 150, 175);
constexpr std::uint32_t kWrongColour = render::rgba(255, 70, 70);

/// Seconds between the end of one comparison run and the next: leaves the CPU to the window in between.
constexpr double kRestSeconds = 0.2;
/// Above this many circles the panel starts paused: every structure's copy of a million circles is a lot of
/// memory and each run takes seconds, so it waits to be asked.
constexpr std::size_t kLiveLimit = 200000;

std::string sceneKey(const DemoModel& model) {
  const SceneSetup& s = model.scene();
  std::string key = s.scenario;
  key.append("|").append(std::to_string(s.seed)).append("|").append(std::to_string(s.count));
  for (const ParamInfo& p : sceneParams())
    key.append("|").append(std::to_string(sceneParam(s.config, p.key)));
  return key;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, v >= 100 ? "%.0f" : (v >= 1 ? "%.2f" : "%.3f"), v);
  return text;
}

ChartBar singleBar(const std::string& label, double value, std::uint32_t colour, std::string text,
                   bool highlight) {
  ChartBar bar;
  bar.label = label;
  bar.segments.push_back(value);
  bar.colours.push_back(colour);
  bar.valueText = std::move(text);
  bar.highlight = highlight;
  return bar;
}

class ComparePanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.5f, 0.0f, -300.0f, 30.0f, 600.0f, 560.0f}; }

  void update(DemoContext& ctx) override {
    if (teachRequestsChanged(requestsSeen_)) {
      showQuery_ = teachRequest("compare") == "query";
      if (teachRequest("compare_wait") == "1") waitForFirst_ = true;
      logScale_ = teachRequest("compare_log") == "1";
    }
    if (!ctx.isShown(teach_names::kCompare)) return;
    if (!worker_) {
      worker_ = std::make_unique<CompareWorker>(ctx.model.registry());
      live_ = ctx.model.simulation().circles().size() <= kLiveLimit;
    }
    if (waitForFirst_ && !latest_) {
      // A screenshot run asked for a chart on its first frames: measure here, once, before drawing.
      waitForFirst_ = false;
      CompareBench bench(ctx.model.registry());
      latest_ = bench.run(snapshot(ctx.model));
      teachBoard().comparison = latest_;
    }
    if (std::optional<CompareResult> result = worker_->take()) {
      latest_ = std::move(*result);
      teachBoard().comparison = latest_;
      finishedAt_ = nowNanoseconds();
    }
    const bool rested = double(nowNanoseconds() - finishedAt_) * 1e-9 >= kRestSeconds;
    if ((live_ || runOnce_) && rested && !worker_->busy() && worker_->submit(snapshot(ctx.model)))
      runOnce_ = false;
  }

  void drawPanel(DemoContext& ctx) override {
    ImGui::Checkbox("live", &live_);
    helpMarker(
        "Every structure (the peer libraries too) keeps its own copy of the circles on a worker thread. Each "
        "run brings all of them to the window's current frame with one update batch, then times the pair "
        "search and the Query panel's query. The times share the CPU with the window: compare them with each "
        "other, not with the Timings panel.");
    if (!live_) {
      ImGui::SameLine();
      if (ImGui::Button("run once")) runOnce_ = true;
    }
    ImGui::SameLine();
    ImGui::Checkbox("log scale", &logScale_);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Lengths as logarithms: a bar a thousand times longer leaves the others visible.");
    ImGui::SameLine();
    if (ImGui::RadioButton("pair search", !showQuery_)) showQuery_ = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("the query", showQuery_)) showQuery_ = true;
    if (worker_ && worker_->busy()) {
      ImGui::SameLine();
      ImGui::TextDisabled("measuring...");
    }
    if (!latest_) {
      ImGui::TextDisabled("The first run is on its way.");
      return;
    }
    const CompareResult& r = *latest_;
    if (!r.error.empty()) {
      ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "%s", r.error.c_str());
      return;
    }
    ImGui::TextDisabled("frame %llu, %s circles, %zu structures, run took %.0f ms",
                        static_cast<unsigned long long>(r.frame), groupedNumber(r.count).c_str(),
                        r.rows.size(), r.wallMs);
    drawAgreement(r);
    const std::string current = ctx.model.structure().name();
    if (showQuery_) {
      drawQueryCharts(r, current, ctx.model.query.mode);
    } else {
      drawPairCharts(r, current);
    }
    drawTable(r);
  }

 private:
  CompareSnapshot snapshot(const DemoModel& model) const {
    CompareSnapshot s;
    s.circles = model.simulation().circles();
    s.world = model.simulation().world();
    s.frame = model.simulation().frame();
    s.sceneKey = sceneKey(model);
    s.query = model.query;
    s.query.hits.clear();
    s.query.rayHits.clear();
    s.query.trace.events.clear();
    return s;
  }

  static void drawAgreement(const CompareResult& r) {
    std::string wrong;
    std::size_t ran = 0;
    std::uint64_t pairs = 0;
    for (const CompareRow& row : r.rows) {
      if (!row.pairsRan) continue;
      ++ran;
      pairs = row.pairs;
      if (!row.agrees) wrong += (wrong.empty() ? "" : ", ") + row.name;
    }
    if (ran == 0) return;
    if (wrong.empty()) {
      ImGui::TextColored(ImVec4(0.5f, 1.0f, 0.5f, 1.0f),
                         "All %zu pair searches found the same %s pairs (checked against %s).", ran,
                         groupedNumber(pairs).c_str(), r.reference.c_str());
    } else {
      ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "Pair sets differ from %s's: %s", r.reference.c_str(),
                         wrong.c_str());
    }
  }

  void drawPairCharts(const CompareResult& r, const std::string& current) {
    // A structure that joined this run (the first run, a new scene) was built from the circles: its first
    // segment is a build, not an update batch, and says so.
    const auto built =
        std::count_if(r.rows.begin(), r.rows.end(), [](const CompareRow& row) { return row.built; });
    const bool allBuilt = built > 0 && std::size_t(built) == r.rows.size();
    std::vector<ChartBar> time, tests;
    for (const CompareRow& row : r.rows) {
      ChartBar t;
      t.label = row.name;
      t.highlight = row.name == current;
      t.segments = {row.updateMs, row.pairsRan ? row.pairsMs : 0.0};
      t.colours = {kUpdateColour, kPairsColour};
      t.valueText = row.pairsRan ? number(row.updateMs + row.pairsMs) + " ms" : row.note;
      if (row.built && !allBuilt) t.valueText += " (build)";
      char tip[200];
      std::snprintf(tip, sizeof tip, "%s: %s %.3f ms, pair search %.3f ms", row.name.c_str(),
                    row.built ? "build" : "update batch", row.updateMs, row.pairsMs);
      t.tooltip = tip;
      time.push_back(t);

      ChartBar c;
      c.label = row.name;
      c.highlight = t.highlight;
      // The bar is every pair examined, stacked: the exact tests among them first, then the rest (side by
      // side on a log scale, where lengths do not add).
      const std::uint64_t exact = std::min(row.pairExactTests, row.pairTests);
      c.segments = {double(exact), double(row.pairTests - exact)};
      c.colours = {row.agrees ? kTestsColour : kWrongColour, kPretestColour};
      c.valueText = row.pairsRan ? examinedText(row.examinedLowerBound, row.pairTests) : row.note;
      if (row.pairsRan) {
        c.tooltip = row.name + ": " + examinedText(row.examinedLowerBound, row.pairTests) +
                    " circle pairs examined, " + groupedNumber(exact) + " of them tested exactly";
        if (!row.examinedLowerBound.empty()) c.tooltip += "\n(a lower bound: " + row.examinedLowerBound + ")";
      }
      tests.push_back(c);
    }
    chartHeading(allBuilt ? "milliseconds: build from the circles + pair search"
                          : "milliseconds: update batch + pair search");
    colourSwatch(kUpdateColour, allBuilt ? "build (every structure is new this run)"
                                         : (built > 0 ? "update (build where marked)" : "update batch"));
    ImGui::SameLine();
    colourSwatch(kPairsColour, "pair search");
    if (logScale_) {
      ImGui::SameLine();
      ImGui::TextDisabled("(side by side: log lengths do not add)");
    }
    barChart("ms", time, logScale_, 130.0f);
    chartHeading("circle pairs the pair search examined (by distance or by bounds, in lanes or one by one)");
    colourSwatch(kTestsColour, "tested exactly");
    ImGui::SameLine();
    colourSwatch(kPretestColour, "rejected by a cheaper float check first");
    barChart("tests", tests, logScale_, 130.0f);
  }

  void drawQueryCharts(const CompareResult& r, const std::string& current, QueryMode mode) {
    if (mode == std::nullopt) {
      ImGui::TextDisabled("Pick a query in the Query panel to compare queries.");
      return;
    }
    std::vector<ChartBar> time, tests;
    for (const CompareRow& row : r.rows) {
      if (!row.queryRan) continue;
      const bool highlight = row.name == current;
      time.push_back(singleBar(row.name, row.queryUs, kQueryColour, number(row.queryUs) + " us", highlight));
      std::string text = examinedText(row.examinedLowerBound, row.queryTests);
      text.append(" (")
          .append(row.nodesCounted ? groupedNumber(row.queryNodes) : "uncounted")
          .append(" nodes)");
      tests.push_back(singleBar(row.name, double(row.queryTests), kTestsColour, std::move(text), highlight));
    }
    chartHeading((std::string("microseconds of the ") + queryModeName(mode) + " query").c_str());
    barChart("query us", time, logScale_, 130.0f);
    chartHeading("circles the query examined (nodes visited in brackets)");
    barChart("query tests", tests, logScale_, 130.0f);
  }

  static void drawTable(const CompareResult& r) {
    if (!ImGui::CollapsingHeader("all figures")) return;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders |
                                  ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    if (!ImGui::BeginTable("figures", 9, flags)) return;
    for (const char* h : {"structure", "update ms", "pairs ms", "pairs examined", "pairs", "query us",
                          "query examined", "nodes", "memory"}) {
      ImGui::TableSetupColumn(h);
    }
    ImGui::TableHeadersRow();
    for (const CompareRow& row : r.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f%s", row.updateMs, row.built ? " (build)" : "");
      ImGui::TableNextColumn();
      if (row.pairsRan)
        ImGui::Text("%.3f", row.pairsMs);
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (row.pairsRan)
        ImGui::TextUnformatted(examinedText(row.examinedLowerBound, row.pairTests).c_str());
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (row.pairsRan) {
        ImGui::TextColored(row.agrees ? ImVec4(1, 1, 1, 1) : ImVec4(1, 0.45f, 0.45f, 1), "%s",
                           groupedNumber(row.pairs).c_str());
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableNextColumn();
      if (row.queryRan)
        ImGui::Text("%.1f", row.queryUs);
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      if (row.queryRan)
        ImGui::TextUnformatted(examinedText(row.examinedLowerBound, row.queryTests).c_str());
      else
        ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(groupedNumber(row.nodes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatBytes(row.memoryBytes).c_str());
    }
    ImGui::EndTable();
  }

  std::unique_ptr<CompareWorker> worker_;
  std::optional<CompareResult> latest_;
  std::uint64_t finishedAt_ = 0;
  bool live_ = true;
  bool runOnce_ = false;
  bool logScale_ = false;
  bool showQuery_ = false;
  std::uint64_t requestsSeen_ = 0;
  bool waitForFirst_ = false;
};

const PartRegistrar registrar{{PartCategory::Panel, teach_names::kCompare,
                               "every structure on the current frame in the background: live bars of "
                               "milliseconds and circle pairs examined, and whether all found the same pairs",
                               66, false, [] { return std::make_unique<ComparePanel>(); }}};

}  // namespace
}  // namespace st::ui
