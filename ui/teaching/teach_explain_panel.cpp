// The Explain panel: for each structure, how it works, what insert, update and query cost, when to choose
// it and which source document it comes from. The text lives in assets/explanations/<structure>.md and is
// read once at start; the panel adds what the running app knows (the registry's source, the structure's own
// one-paragraph description, its live figures) and links to the claim that structure demonstrates.

#include <map>
#include <string>
#include <vector>

#include <imgui.h>

#include "ui/model/teach_content.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

/// The claim (Claims panel id) each structure demonstrates, if any.
const char* claimOf(const std::string& structure) {
  static const std::map<std::string, const char*> kClaims = {
      {"radius-tree", "seed-000"},     {"sphere-tree", "seed-001"},  {"grid", "seed-002"},
      {"grid-replicated", "seed-002"}, {"fit-quadtree", "seed-003"}, {"enneatree", "seed-003"},
      {"quadtree", "seed-004"},        {"brute", "seed-004"},
  };
  const auto it = kClaims.find(structure);
  return it == kClaims.end() ? nullptr : it->second;
}

class ExplainPanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.0f, 0.0f, 10.0f, 30.0f, 470.0f, 740.0f}; }

  void update(DemoContext& ctx) override {
    if (!loaded_) load(ctx.model.registry());
    if (teachRequestsChanged(requestsSeen_)) readRequest(ctx.model.registry());
    if (followCurrent_ || shown_.empty()) shown_ = ctx.model.structure().name();
  }

  void drawPanel(DemoContext& ctx) override {
    DemoModel& model = ctx.model;
    const auto& all = model.registry().all();
    ImGui::SetNextItemWidth(-scaled(150.0f));
    if (ImGui::BeginCombo("##explained", shown_.c_str())) {
      for (const StructureInfo& info : all) {
        if (ImGui::Selectable(info.name.c_str(), info.name == shown_)) {
          shown_ = info.name;
          followCurrent_ = info.name == model.structure().name();
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.summary.c_str());
      }
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::Checkbox("follow current", &followCurrent_);
    helpMarker(
        "Ticked, the panel explains whichever structure the window runs (keys 1-9, 0, [ and ] switch it).");

    const StructureInfo* info = model.registry().find(shown_);
    if (info == nullptr) return;
    const float footer = ImGui::GetFrameHeightWithSpacing() * 2.4f;
    if (ImGui::BeginChild("text", ImVec2(0, -footer), false)) drawText(*info, model);
    ImGui::EndChild();
    drawFooter(ctx, *info);
  }

 private:
  void load(const StructureRegistry& registry) {
    loaded_ = true;
    for (const StructureInfo& info : registry.all()) {
      texts_[info.name] = parseExplanation(loadAssetText(explanationPath(info.name)));
    }
  }

  void readRequest(const StructureRegistry& registry) {
    const std::string wanted = teachRequest("explain");
    followCurrent_ = wanted.empty() || registry.find(wanted) == nullptr;
    if (!followCurrent_) shown_ = wanted;
  }

  void drawText(const StructureInfo& info, DemoModel& model) {
    const std::vector<TextBlock>& blocks = texts_[info.name];
    ImGui::PushTextWrapPos(0.0f);
    if (blocks.empty()) {
      ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.4f, 1.0f), "No explanation found at assets/%s.",
                         explanationPath(info.name).c_str());
      ImGui::TextUnformatted(info.summary.c_str());
    }
    for (const TextBlock& block : blocks) {
      switch (block.kind) {
        case TextBlock::Kind::Title:
          ImGui::SetWindowFontScale(1.3f);
          ImGui::TextColored(ImVec4(1.0f, 0.86f, 0.45f, 1.0f), "%s", block.text.c_str());
          ImGui::SetWindowFontScale(1.0f);
          break;
        case TextBlock::Kind::Section:
          ImGui::Spacing();
          ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", block.text.c_str());
          ImGui::Separator();
          break;
        case TextBlock::Kind::Paragraph:
          wrappedText(block.text);
          break;
        case TextBlock::Kind::Bullet:
          ImGui::Bullet();
          ImGui::BeginGroup();
          wrappedText(block.text);
          ImGui::EndGroup();
          break;
      }
    }
    ImGui::Spacing();
    if (!info.source.empty()) ImGui::TextDisabled("Source document in the registry: %s", info.source.c_str());
    if (ImGui::CollapsingHeader("in the code's own words (description())")) {
      // Only the current structure exists as an instance; another one is made just to read its text.
      if (model.structure().name() == info.name) {
        const std::string_view text = model.structure().description();
        ImGui::TextUnformatted(text.data(), text.data() + text.size());
      } else {
        if (descriptions_.count(info.name) == 0)
          descriptions_[info.name] = std::string(info.create()->description());
        ImGui::TextUnformatted(descriptions_[info.name].c_str());
      }
    }
    if (model.structure().name() == info.name &&
        ImGui::CollapsingHeader("live figures of the running structure")) {
      const IndexStats stats = model.structure().stats();
      ImGui::Text("nodes %s, max depth %d, memory %s", groupedNumber(stats.nodes).c_str(), stats.maxDepth,
                  formatBytes(stats.memoryBytes).c_str());
      ExtraCounters extra;
      model.structure().extra(extra);
      for (const auto& [name, value] : extra) ImGui::BulletText("%s = %.6g", name.c_str(), value);
    }
    ImGui::PopTextWrapPos();
  }

  void drawFooter(DemoContext& ctx, const StructureInfo& info) {
    ImGui::Separator();
    // The buttons wrap onto a second row in a narrow panel rather than running past its edge.
    bool first = true;
    auto place = [&first](const char* label) {
      if (!first && buttonFitsOnLine(label)) ImGui::SameLine();
      first = false;
    };
    if (ctx.model.structure().name() != info.name) {
      place("run it in the window");
      if (ImGui::Button("run it in the window")) {
        ctx.model.selectStructure(info.name);
        followCurrent_ = true;
      }
    }
    if (const char* claim = claimOf(info.name)) {
      char label[64];
      std::snprintf(label, sizeof label, "measure its claim (%s)", claim);
      place(label);
      if (ImGui::Button(label)) {
        teachBoard().claimToShow = claim;
        openPanel(ctx, teach_names::kClaims);
      }
    }
    place("step through a query");
    if (ImGui::Button("step through a query")) openPanel(ctx, teach_names::kStep);
  }

  static void openPanel(DemoContext& ctx, const char* name) {
    for (PartSlot& slot : ctx.parts) {
      if (slot.info->name == name) slot.shown = true;
    }
  }

  bool loaded_ = false;
  std::uint64_t requestsSeen_ = 0;
  bool followCurrent_ = true;
  std::string shown_;
  std::map<std::string, std::vector<TextBlock>> texts_;
  std::map<std::string, std::string> descriptions_;
};

const PartRegistrar registrar{
    {PartCategory::Panel, teach_names::kExplain,
     "each structure explained: how it works, cost of insert/update/query, when to choose it, its source "
     "document",
     60, false, [] { return std::make_unique<ExplainPanel>(); }}};

}  // namespace
}  // namespace st::ui
