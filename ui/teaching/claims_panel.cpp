// The claims panel: one click measures a source document's claim on a scene built for it (on a worker
// thread, so the window keeps running), and shows the figure, the table and what the numbers say next to
// the document's own words.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include <imgui.h>

#include "render/palette.hpp"
#include "measure/claims_measure.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_background.hpp"
#include "ui/teaching/teach_chart.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
// The measurements behind each claim live beside core, outside the UI.
using namespace st::claims;

namespace {

constexpr std::uint32_t kSeries[] = {render::rgba(255, 110, 90),  render::rgba(90, 200, 255),
                                     render::rgba(255, 190, 90),  render::rgba(120, 230, 140),
                                     render::rgba(200, 140, 255), render::rgba(230, 230, 230)};

/// What one claim measurement produced (one of the optionals is set).
struct ClaimOutcome {
  std::string error;                          ///< why it failed, if it did
  double seconds = 0.0;                       ///< how long it took
  std::optional<CentreLineCost> centreLines;  ///< seed 003
  std::optional<RemoteCluster> cluster;       ///< seed 000
  std::optional<CellsPerLookup> cells;        ///< seed 002
  std::optional<FastPath> fastPath;           ///< seed 001
  std::optional<CollisionChecks> collisions;  ///< seed 004
  std::vector<std::string> findings;          ///< sentences drawn from the numbers
};

/// One claim as the panel lists it.
struct Claim {
  const char* id;      ///< "seed-003"
  const char* source;  ///< the document's file
  const char* title;   ///< one line
  const char* words;   ///< what the document says, briefly quoted
  const char* method;  ///< how it is measured here
};

constexpr Claim kClaims[] = {
    {"seed-003", "003_237a6c88e80f769f.txt",
     "On the centre lines the fit-entirely quadtree turns linear; the enneatree and the loose quadtree do "
     "not",
     "\"Suppose that every object in the world lay on the horizontal and vertical center lines. Even very "
     "small objects would accumulate in the top node, and no region subdividing would ever occur. This "
     "degenerate situation causes linear behavior.\" The enneatree's circles instead sit at the depth their "
     "diameter gives.",
     "fit-quadtree, enneatree and loose-quadtree over the center-lines and uniform scenes from 1,000 to "
     "16,000 circles; 400 circle queries of the largest circle's radius at random points of each world; mean "
     "circles examined per "
     "query."},
    {"seed-000", "000_a1f25bdfc4ffc280.txt",
     "A dense remote cluster leaves the radius tree's query cost unchanged",
     "\"Its runtime is completely independent of arbitrarily dense clusters of remote objects, provided they "
     "are located at least twice their maximum view distance from the viewpoint in any one dimension.\"",
     "the same 2,000 background circles alone and with 2,000 to 32,000 more packed into the far corner; "
     "1,000 point queries in the opposite quarter; mean nodes visited and circles examined per query, per "
     "structure."},
    {"seed-002", "002_df0639732141293d.txt",
     "Average cells searched per lookup against the cell-size multiplier",
     "\"Multiplier / Avg. cells to search / Cell area: 1.0 4.00 1.00, 1.5 2.78 2.25, 2.0 2.25 4.00, 3.0 1.78 "
     "9.00, 5.0 1.44 25.00, 10.0 1.21 100.00\" (cell size = multiplier x search diameter).",
     "60,000 points; a grid with grid.cell_size = multiplier x the search diameter; 4,000 lookups at random "
     "places, square (the seed's count) and round; mean cells per lookup: looked up (the grid's nodes "
     "visited) for squares, searched (skipped corners left out) for circles."},
    {"seed-001", "001_ecbeb7c72bb815d1.txt", "The sphere tree's fast path on the SphereTest scene",
     "\"The design goal for this algorithm has been to make the 99-percentile case spend almost no CPU time "
     "updating an object in motion\": NewPos compares one squared distance with the parent super-sphere.",
     "the spheretest scene (75% in 16 swarms around attraction points that drift and jump, 25% static "
     "but for occasional jumps) with the window's circle count, "
     "300 frames, one update batch per frame; the share of moves that stayed inside their parent, frame by "
     "frame."},
    {"seed-004", "004_4159c2b2a803d270.txt", "Collision checks per frame against brute force's",
     "\"4000 or more collision checks per frame ... After the spatial portioning was implemented the game "
     "was "
     "getting around 60 frames per second with around 100 collision checks per frame.\"",
     "the window's own scene from its current frame, 60 frames (fewer above 20,000 circles) on every "
     "structure (the point quadtree with the seed's leaves of 4); circle pairs examined (by distance or by "
     "bounds) per frame of the pair search, and whether each found brute force's pairs; plus a SphereTest "
     "scene sized like the seed's game."},
};

const Claim* findClaim(const std::string& id) {
  for (const Claim& c : kClaims) {
    if (id == c.id) return &c;
  }
  return nullptr;
}

/// A count or ratio rounded to a whole number, with thousands separators (675,669).
std::string wholeNumber(double v) {
  return std::isfinite(v) && v >= 0.0 ? groupedNumber(static_cast<std::uint64_t>(std::llround(v))) : "-";
}

std::string fmt(const char* pattern, double v) {
  char text[48];
  std::snprintf(text, sizeof text, pattern, v);
  return text;
}

/// A table of text cells with a header row.
void table(const char* id, const std::vector<std::string>& header,
           const std::vector<std::vector<std::string>>& rows) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable(id, static_cast<int>(header.size()), flags)) return;
  for (const std::string& h : header) ImGui::TableSetupColumn(h.c_str());
  ImGui::TableHeadersRow();
  for (const auto& row : rows) {
    ImGui::TableNextRow();
    for (const std::string& cell : row) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cell.c_str());
    }
  }
  ImGui::EndTable();
}

class ClaimsPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.5f, 0.0f, -370.0f, 30.0f, 740.0f, 740.0f}; }

  void update(DemoContext& ctx) override {
    if (teachRequestsChanged(requestsSeen_)) {
      // A start-up request (or a lesson step's) measures at once, on this thread, so that a screenshot shows
      // the result.
      if (const std::string id = teachRequest("claim"); findClaim(id)) {
        selected_ = id;
        running_ = id;
        task_.runHere(work(id, ctx.model));
      }
    }
    if (!teachBoard().claimToShow.empty()) {
      const std::string id = teachBoard().claimToShow;
      teachBoard().claimToShow.clear();
      if (findClaim(id)) {
        selected_ = id;
        if (results_.count(id) == 0) start(id, ctx.model);
      }
    }
    if (std::optional<ClaimOutcome> outcome = task_.take()) {
      results_[running_] = std::move(*outcome);
      running_.clear();
    }
  }

  void drawPanel(DemoContext& ctx) override {
    ImGui::TextDisabled("One click measures a claim of a source document, live, on a scene built for it.");
    for (const Claim& claim : kClaims) {
      ImGui::PushID(claim.id);
      const bool isSelected = selected_ == claim.id;
      if (isSelected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
      char label[200];
      std::snprintf(label, sizeof label, "%s  %s", claim.id, claim.title);
      // Too narrow a panel for the whole label: the button names the claim, its title wraps beside it.
      const bool fits = ImGui::CalcTextSize(label).x + 2.0f * ImGui::GetStyle().FramePadding.x <=
                        ImGui::GetContentRegionAvail().x;
      if (ImGui::Button(fits ? label : claim.id, ImVec2(fits ? -1.0f : 0.0f, 0.0f))) {
        selected_ = claim.id;
        start(claim.id, ctx.model);
      }
      if (isSelected) ImGui::PopStyleColor();
      if (!fits) {
        ImGui::SameLine();
        ImGui::BeginGroup();
        wrappedText(claim.title);
        ImGui::EndGroup();
      }
      ImGui::PopID();
    }
    const Claim* claim = findClaim(selected_);
    if (claim == nullptr) return;
    ImGui::Separator();
    if (ImGui::BeginChild("claim", ImVec2(0, 0), false)) drawClaim(*claim);
    ImGui::EndChild();
  }

 private:
  void start(const std::string& id, DemoModel& model) {
    running_ = id;
    startedAt_ = nowNanoseconds();
    task_.start(work(id, model));
  }

  /// The measurement of claim `id`, capturing what it needs from the window now.
  static BackgroundTask<ClaimOutcome>::Work work(const std::string& id, const DemoModel& model) {
    const StructureRegistry& registry = model.registry();
    const std::size_t count = std::clamp<std::size_t>(model.simulation().circles().size(), 100, 200000);
    // The pair-count claim runs on the window's own scene from where it is now.
    std::shared_ptr<const Simulation> scene =
        id == "seed-004" ? std::make_shared<Simulation>(model.simulation()) : nullptr;
    return [id, &registry, count, scene](const std::atomic<bool>& cancelled) {
      const std::uint64_t start = nowNanoseconds();
      ClaimOutcome out;
      if (id == "seed-003") {
        const std::size_t counts[] = {1000, 2000, 4000, 8000, 16000};
        out.centreLines = measureCentreLineCost(registry, counts, 400, 11, &cancelled);
        out.findings = findings(*out.centreLines);
      } else if (id == "seed-000") {
        const std::size_t clusters[] = {0, 2000, 8000, 32000};
        std::vector<std::string> names;
        for (const char* name : {"radius-tree", "quadtree", "aabb-tree", "sphere-tree", "brute"}) {
          if (registry.find(name)) names.push_back(name);
        }
        out.cluster = measureRemoteCluster(registry, names, 2000, clusters, 1000, 5, &cancelled);
        out.findings = findings(*out.cluster);
      } else if (id == "seed-002") {
        out.cells = measureCellsPerLookup(registry, 60000, 4000, 2, &cancelled);
        out.findings = findings(*out.cells);
      } else if (id == "seed-001") {
        out.fastPath = measureFastPath(registry, count, 300, 1, &cancelled);
        out.findings = findings(*out.fastPath);
      } else if (id == "seed-004") {
        // Sixty frames, fewer on large scenes so that the run stays within seconds.
        const std::size_t n = std::max<std::size_t>(scene->circles().size(), 1);
        const std::size_t frames = std::clamp<std::size_t>(60 * kBrutePairLimit / n, 5, 60);
        out.collisions = measureCollisionChecks(registry, *scene, frames, kBrutePairLimit, &cancelled);
        out.findings = findings(*out.collisions);
      }
      out.seconds = millisecondsSince(start) * 1e-3;
      return out;
    };
  }

  void drawClaim(const Claim& claim) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ImVec4(1.0f, 0.86f, 0.45f, 1.0f), "%s", claim.title);
    ImGui::PopTextWrapPos();
    // The file name is one word: beside the title when it fits there, else on a line of its own.
    const std::string source = std::string("(") + claim.source + ")";
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(source.c_str()).x <=
        ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
      ImGui::SameLine();
    ImGui::TextDisabled("%s", source.c_str());
    wrappedText(claim.words);
    if (running_ == claim.id) {
      ImGui::TextColored(ImVec4(0.6f, 0.9f, 1.0f, 1.0f), "measuring... %.1f s",
                         millisecondsSince(startedAt_) * 1e-3);
      ImGui::SameLine();
      if (ImGui::SmallButton("cancel")) {
        task_.cancel();
        running_.clear();
      }
    }
    const auto it = results_.find(claim.id);
    if (it == results_.end()) {
      if (running_ != claim.id) ImGui::TextDisabled("Click the claim above to measure it.");
    } else if (!it->second.error.empty()) {
      ImGui::TextColored(ImVec4(1, 0.45f, 0.45f, 1), "%s", it->second.error.c_str());
    } else {
      const ClaimOutcome& o = it->second;
      if (o.centreLines) drawCentreLines(*o.centreLines, o.findings);
      if (o.cluster) drawCluster(*o.cluster, o.findings);
      if (o.cells) drawCells(*o.cells, o.findings);
      if (o.fastPath) drawFastPath(*o.fastPath, o.findings);
      if (o.collisions) drawCollisions(*o.collisions, o.findings);
      ImGui::TextDisabled("measured in %.2f s", o.seconds);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrappedText(std::string("How it is measured: ") + claim.method);
    ImGui::PopStyleColor();
  }

  static void drawFindings(const std::vector<std::string>& lines) {
    chartHeading("what the numbers say");
    for (const std::string& line : lines) {
      ImGui::Bullet();
      ImGui::BeginGroup();
      wrappedText(line);
      ImGui::EndGroup();
    }
  }

  // -- each claim's figure ---------------------------------------------------------------------------------
  static void drawCentreLines(const CentreLineCost& r, const std::vector<std::string>& lines) {
    std::vector<double> xs;
    const bool loose = !r.rows.empty() && r.rows.back().looseLines.candidates > 0.0;
    std::vector<ChartSeries> series(loose ? 6 : 4);
    series[0] = {"fit-quadtree, center-lines", {}, kSeries[0], false};
    series[1] = {"enneatree, center-lines", {}, kSeries[1], false};
    series[2] = {"fit-quadtree, uniform", {}, render::withAlpha(kSeries[2], 200), false};
    series[3] = {"enneatree, uniform", {}, render::withAlpha(kSeries[3], 200), false};
    if (loose) {
      series[4] = {"loose-quadtree, center-lines", {}, kSeries[4], false};
      series[5] = {"loose-quadtree, uniform", {}, render::withAlpha(kSeries[5], 200), false};
    }
    std::vector<std::vector<std::string>> rows;
    for (const CentreLineRow& row : r.rows) {
      xs.push_back(double(row.count));
      series[0].values.push_back(row.fitLines.candidates);
      series[1].values.push_back(row.enneaLines.candidates);
      series[2].values.push_back(row.fitUniform.candidates);
      series[3].values.push_back(row.enneaUniform.candidates);
      std::vector<std::string> cells{groupedNumber(row.count), fmt("%.1f", row.fitLines.candidates),
                                     fmt("%.1f", row.enneaLines.candidates)};
      if (loose) {
        series[4].values.push_back(row.looseLines.candidates);
        series[5].values.push_back(row.looseUniform.candidates);
        cells.push_back(fmt("%.1f", row.looseLines.candidates));
      }
      cells.push_back(fmt("%.1f", row.fitUniform.candidates));
      cells.push_back(fmt("%.1f", row.enneaUniform.candidates));
      if (loose) cells.push_back(fmt("%.1f", row.looseUniform.candidates));
      cells.push_back(figureText("%.0f%%", 100.0 * row.fitRootShare));
      rows.push_back(cells);
    }
    chartHeading("circles examined per circle query against the circle count (log-log)");
    lineChart("centre lines", xs, series, {"circles", "examined per query", true, true, true},
              ImVec2(0, 270));
    drawFindings(lines);
    std::vector<std::string> header{"circles", "fit, lines", "ennea, lines"};
    if (loose) header.push_back("loose, lines");
    header.insert(header.end(), {"fit, uniform", "ennea, uniform"});
    if (loose) header.push_back("loose, uniform");
    header.push_back("fit root share");
    table("centre line table", header, rows);
  }

  static void drawCluster(const RemoteCluster& r, const std::vector<std::string>& lines) {
    std::vector<double> xs;
    std::vector<ChartSeries> series;
    for (std::size_t s = 0; s < r.structures.size(); ++s)
      series.push_back({r.structures[s], {}, kSeries[s % std::size(kSeries)], false});
    std::vector<std::string> header{"clustered circles"};
    for (const std::string& name : r.structures) header.push_back(name + " nodes / examined");
    std::vector<std::vector<std::string>> rows;
    for (const RemoteClusterRow& row : r.rows) {
      xs.push_back(double(row.clusterCircles));
      std::vector<std::string> cells{groupedNumber(row.clusterCircles)};
      for (std::size_t s = 0; s < row.cost.size(); ++s) {
        series[s].values.push_back(row.cost[s].nodes + row.cost[s].candidates);
        char text[64];
        std::snprintf(text, sizeof text, "%.2f / %.2f", row.cost[s].nodes, row.cost[s].candidates);
        cells.push_back(text);
      }
      rows.push_back(cells);
    }
    chartHeading(
        "work per point query (nodes visited + circles examined) against the remote cluster's size (log y)");
    lineChart("cluster", xs, series, {"circles in the remote cluster", "work per query", false, true, true},
              ImVec2(0, 250));
    drawFindings(lines);
    table("cluster table", header, rows);
    ImGui::TextDisabled("%zu background circles, %zu point queries in the quarter away from the cluster",
                        r.background, r.queries);
  }

  static void drawCells(const CellsPerLookup& r, const std::vector<std::string>& lines) {
    std::vector<double> xs;
    std::vector<ChartSeries> series{{"measured: square lookups", {}, kSeries[0], false},
                                    {"measured: round lookups", {}, kSeries[1], false},
                                    {"the seed's table", {}, kSeries[5], true}};
    std::vector<std::vector<std::string>> rows;
    for (const CellsPerLookupRow& row : r.rows) {
      xs.push_back(row.multiplier);
      series[0].values.push_back(row.squareCells);
      series[1].values.push_back(row.roundCells);
      series[2].values.push_back(row.seedCells);
      rows.push_back({fmt("%.3g", row.multiplier), fmt("%.2f", row.seedCells), fmt("%.3f", row.squareCells),
                      figureText("%.3f", row.roundCells), fmt("%.2f", row.seedArea),
                      fmt("%.1f", row.itemsPerLookup)});
    }
    chartHeading(
        "average cells searched per lookup against the cell-size multiplier: the seed's table and the "
        "grid's");
    table("cells table",
          {"multiplier", "seed: cells", "measured: square", "measured: round", "seed: cell area",
           "points tested"},
          rows);
    lineChart("cells", xs, series, {"cell size / search diameter", "cells per lookup", true, false, true},
              ImVec2(0, 200));
    drawFindings(lines);
    ImGui::TextDisabled("%s points, search diameter %.0f, %s lookups per multiplier and shape",
                        groupedNumber(r.points).c_str(), r.diameter, groupedNumber(r.lookups).c_str());
    ImGui::Text(
        "Store-in-every-cell variant (grid-replicated, cell = diameter): %.2f cells per lookup, %s copies "
        "per item",
        r.replicatedCells, figureText("%.2f", r.replicatedCopies).c_str());
  }

  static void drawFastPath(const FastPath& r, const std::vector<std::string>& lines) {
    std::vector<double> xs;
    ChartSeries ratio{"sphere-tree: moves on the fast path", {}, kSeries[1], false};
    for (std::size_t f = 0; f < r.perFrame.size(); ++f) {
      xs.push_back(double(f + 1));
      ratio.values.push_back(100.0 * r.perFrame[f]);
    }
    chartHeading("share of the frame's moves that stayed inside their parent super-sphere (%)");
    lineChart("fast path", xs, {ratio}, {"frame", "% of moves", false, false, false}, ImVec2(0, 200));
    drawFindings(lines);
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"sphere-tree", "NewPos inside the parent", figureText("%.2f%%", 100.0 * r.overall)});
    for (const FastPathPeer& p : r.peers)
      rows.push_back({p.structure, p.figure, figureText("%.2f%%", 100.0 * p.ratio)});
    table("fast path table", {"structure", "constant-time path", "share of moves"}, rows);
    ImGui::TextDisabled("%s circles, %zu frames, %s moves, %s detached", groupedNumber(r.count).c_str(),
                        r.frames, grouped(r.moves).c_str(), grouped(r.detached).c_str());
  }

  static void drawCollisions(const CollisionChecks& r, const std::vector<std::string>& lines) {
    std::vector<ChartBar> bars;
    ChartBar brute;
    brute.label = "brute";
    brute.segments = {r.bruteChecksPerFrame};
    brute.colours = {kSeries[0]};
    brute.valueText =
        groupedNumber(static_cast<std::uint64_t>(r.bruteChecksPerFrame)) + (r.bruteRan ? "" : " (n(n-1)/2)");
    bars.push_back(brute);
    std::vector<std::vector<std::string>> rows;
    for (const CollisionRow& row : r.rows) {
      ChartBar bar;
      bar.label = row.structure;
      bar.segments = {row.checksPerFrame};
      bar.colours = {row.agrees ? (row.structure == "quadtree" ? kSeries[2] : kSeries[1])
                                : render::rgba(255, 60, 60)};
      bar.highlight = row.structure == "quadtree";
      bar.valueText = groupedNumber(static_cast<std::uint64_t>(std::llround(row.checksPerFrame)));
      bars.push_back(bar);
      rows.push_back(
          {row.structure, wholeNumber(row.checksPerFrame),
           wholeNumber(row.checksPerFrame > 0 ? r.bruteChecksPerFrame / row.checksPerFrame : 0.0) + "x",
           wholeNumber(row.pairsPerFrame), row.agrees ? "yes" : "NO"});
    }
    chartHeading("collision checks (circle pairs examined) per frame, log scale");
    barChart("checks", bars, true, 130.0f);
    drawFindings(lines);
    if (ImGui::CollapsingHeader("table")) {
      table("checks table",
            {"structure", "checks / frame", "fewer than brute", "pairs / frame", "same pairs"}, rows);
    }
  }

  BackgroundTask<ClaimOutcome> task_;
  std::map<std::string, ClaimOutcome> results_;
  std::string selected_ = "seed-003";
  std::string running_;
  std::uint64_t startedAt_ = 0;
  std::uint64_t requestsSeen_ = 0;
};

const PartRegistrar registrar{
    {PartCategory::Panel, teach_names::kClaims,
     "each source document's claim measured live with one click: figure, table and what the numbers say", 68,
     false, [] { return std::make_unique<ClaimsPanel>(); }}};

}  // namespace
}  // namespace st::ui
