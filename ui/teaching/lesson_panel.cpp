// The lessons: "Start here" lists them, "Lesson" shows the open one step by step. A step sets up the
// window through the same calls the panels and SPHERETEST_TEACH use (the model's reseed, switch and
// parameters, the panels' shown flags, the teaching requests), then says what to look at, with figures
// measured live.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "ui/model/lesson.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/panels/imgui_util.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

const ImVec4 kTitleColour(1.0f, 0.86f, 0.45f, 1.0f);
const ImVec4 kErrorColour(1.0f, 0.5f, 0.45f, 1.0f);

// The figures can walk the whole structure (stats()); like the Stats panel, they are measured again after a
// pause that grows with what the last measurement cost, at most four times a second.
constexpr double kMinRefreshSeconds = 0.25;
constexpr double kMaxRefreshSeconds = 10.0;
constexpr double kRefreshShare = 0.002;

/// The app's presentation font (the second one it loads), else the current one.
ImFont* largeFont() {
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  return atlas->Fonts.Size > 1 ? atlas->Fonts[1] : ImGui::GetFont();
}

PartSlot* findSlot(DemoContext& ctx, const char* name) {
  for (PartSlot& slot : ctx.parts) {
    if (slot.info->name == name) return &slot;
  }
  return nullptr;
}

/// The structure the window opens on: the first with nodes to show.
std::string firstStructure(const StructureRegistry& registry) {
  for (const StructureInfo& info : registry.all()) {
    if (info.name != "brute") return info.name;
  }
  return registry.all().front().name;
}

/// Paragraphs ("\n\n") and bullet lines ("\n- "), wrapped without breaking numbers.
void drawLessonText(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (line.substr(0, 2) == "- ") {
      ImGui::Bullet();
      ImGui::SameLine();
      wrappedText(line.substr(2));
    } else if (line.empty()) {
      ImGui::Spacing();
    } else {
      wrappedText(line);
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The open lesson
// ---------------------------------------------------------------------------------------------------------

class LessonPanel final : public DemoPart {
 public:
  // A column down the left edge (as tall as the window allows): the world goes to its right, and the
  // panels a step opens are laid out beside it.
  // (The window narrows it, down to three quarters, where a step's panels need the room: kLessonWidth.)
  PanelPlacement placement() const override { return {0.0f, 0.0f, 10.0f, 30.0f, 400.0f, 4000.0f}; }

  void update(DemoContext& ctx) override {
    TeachBoard& board = teachBoard();
    if (!board.lessonToOpen.empty()) {
      open(ctx, board.lessonToOpen, board.lessonStep);
      board.lessonToOpen.clear();
    }
    if (board.lessonMove != 0) {
      if (lesson_ && cursor_.move(board.lessonMove)) applyPending_ = true;
      board.lessonMove = 0;
    }
    PartSlot* self = findSlot(ctx, teach_names::kLesson);
    if (!lesson_) {
      // Nothing to show: a panel left open by a saved layout closes rather than stand empty.
      if (self != nullptr) self->shown = false;
      return;
    }
    if (applyPending_) apply(ctx);
    if (self == nullptr || !self->shown) return;
    const double since = double(nowNanoseconds() - measuredAt_) * 1e-9;
    if (figuresStale_ || since >= refreshSeconds()) measure(ctx.model);
  }

  void drawPanel(DemoContext& ctx) override {
    if (!lesson_) {
      ImGui::TextDisabled("No lesson is open.");
      if (ImGui::Button("the list of lessons")) openList(ctx);
      return;
    }
    const LessonStep& step = lesson_->steps[cursor_.index()];
    ImGui::PushFont(largeFont());
    ImGui::PushStyleColor(ImGuiCol_Text, kTitleColour);
    wrappedText(step.title);
    ImGui::PopStyleColor();
    ImGui::PopFont();
    char where[64];
    std::snprintf(where, sizeof where, "Step %zu of %zu: ", cursor_.index() + 1, cursor_.steps());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrappedText(where + lesson_->title);
    ImGui::PopStyleColor();
    ImGui::Separator();
    // The buttons follow the text rather than sit at the panel's foot, where a tall panel would put them
    // far from what was just read.
    if (ctx.view.present) ImGui::PushFont(largeFont());
    drawLessonText(fillLessonFigures(step.text, figures_));
    if (ctx.view.present) ImGui::PopFont();
    if (!error_.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
      wrappedText(error_);
      ImGui::PopStyleColor();
    }
    ImGui::Spacing();
    drawButtons(ctx);
  }

 private:
  void open(DemoContext& ctx, const std::string& path, std::size_t step) {
    try {
      lesson_ = loadLesson(path, lessonVocabulary(ctx.model.registry()));
      cursor_ = LessonCursor(lesson_->steps.size(), step);
      error_.clear();
    } catch (const LessonError& e) {
      // The command line checked its lesson; one picked from the list that broke since is said here.
      lesson_.reset();
      ctx.view.status = e.what();
      return;
    }
    applyPending_ = true;
    if (PartSlot* self = findSlot(ctx, teach_names::kLesson)) self->shown = true;
  }

  void apply(DemoContext& ctx) {
    applyPending_ = false;
    const LessonStep& step = lesson_->steps[cursor_.index()];
    error_ = applyLessonStep(ctx.model, step, firstStructure(ctx.model.registry()));
    for (PartSlot& slot : ctx.parts) {
      const std::string& name = slot.info->name;
      if (slot.info->category == PartCategory::Panel) {
        slot.shown = name == teach_names::kLesson ||
                     std::find(step.panels.begin(), step.panels.end(), name) != step.panels.end();
      } else if (step.overlays) {
        slot.shown = std::find(step.overlays->begin(), step.overlays->end(), name) != step.overlays->end();
      } else {
        slot.shown = slot.info->shownByDefault;
      }
    }
    postTeachRequests(step.teach);
    ctx.view.layoutPanels = true;
    ctx.view.fitRequested = true;
    if (step.view == LessonView::Query) ctx.view.fitBox = lessonViewBox(ctx.model, step);
    figuresStale_ = true;
  }

  void measure(const DemoModel& model) {
    const std::uint64_t start = nowNanoseconds();
    extra_.clear();
    model.structure().extra(extra_);
    figures_ = measureLessonFigures(model, extra_);
    measureMs_ = millisecondsSince(start);
    measuredAt_ = nowNanoseconds();
    // Right after a step's set-up the first frame's figures are not in yet: measure once more next frame.
    figuresStale_ = !model.pairsCurrent() && model.pairSearch;
  }

  double refreshSeconds() const {
    return std::clamp(measureMs_ * 1e-3 / kRefreshShare, kMinRefreshSeconds, kMaxRefreshSeconds);
  }

  void drawButtons(DemoContext& ctx) {
    ImGui::BeginDisabled(!cursor_.hasBack());
    if (ImGui::Button("< Back")) teachBoard().lessonMove = -1;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(!cursor_.hasNext());
    if (ImGui::Button("Next >")) teachBoard().lessonMove = +1;
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("again")) applyPending_ = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Set this step up again (scene, structure, view).");
    if (ctx.view.present) {
      ImGui::SameLine();
      ImGui::TextDisabled("F5 or Esc: back to the panels");
      const std::vector<std::string>& panels = lesson_->steps[cursor_.index()].panels;
      if (!panels.empty()) {
        std::string names;
        for (const std::string& name : panels) names += (names.empty() ? "" : ", ") + name;
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        wrappedText("In the normal view (F5) this step also opens " + names + ".");
        ImGui::PopStyleColor();
      }
      return;
    }
    if (buttonFitsOnLine("lessons")) ImGui::SameLine();
    if (ImGui::Button("lessons")) openList(ctx);
    if (buttonFitsOnLine("present (F5)")) ImGui::SameLine();
    if (ImGui::Button("present (F5)")) ctx.view.present = true;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrappedText("Page Down / Page Up (or the arrows) step through it too.");
    ImGui::PopStyleColor();
  }

  static void openList(DemoContext& ctx) {
    if (PartSlot* list = findSlot(ctx, teach_names::kStartHere)) list->shown = true;
  }

  std::optional<Lesson> lesson_;
  LessonCursor cursor_;
  bool applyPending_ = false;
  std::string error_;
  ExtraCounters extra_;
  LessonFigures figures_;
  bool figuresStale_ = true;
  std::uint64_t measuredAt_ = 0;
  double measureMs_ = 0.0;
};

// ---------------------------------------------------------------------------------------------------------
// The list
// ---------------------------------------------------------------------------------------------------------

class StartHerePanel final : public DemoPart {
 public:
  PanelPlacement placement() const override { return {0.5f, 0.0f, -310.0f, 40.0f, 620.0f, 740.0f}; }

  void drawPanel(DemoContext& ctx) override {
    // Opened (at a first start, from Help or a menu) over the panels already open: it comes to the front,
    // also in front of the panels that appear in the same frame (ImGui brings each appearing window up).
    const int frame = ImGui::GetFrameCount();
    if (frame != lastDrawn_ + 1) openedAt_ = frame;
    if (frame - openedAt_ < 2) ImGui::SetWindowFocus();
    lastDrawn_ = frame;
    if (!listed_) list(ctx.model.registry());
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(
        "Each lesson is a few steps. A step sets the window up (scene, structure, panels, the query) and "
        "says "
        "what to look at; its figures are measured as you watch. Next and Back move through it; F5 shows the "
        "world and the lesson's text alone, for a projector.");
    ImGui::PopTextWrapPos();
    ImGui::Separator();
    for (std::size_t i = 0; i < lessons_.size(); ++i) {
      const LessonListing& entry = lessons_[i];
      ImGui::PushID(static_cast<int>(i));
      if (!entry.error.empty()) {
        ImGui::TextColored(kErrorColour, "cannot open %s", entry.path.c_str());
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        wrappedText(entry.error);
        ImGui::PopStyleColor();
      } else {
        const Lesson& lesson = entry.lesson;
        char label[256];
        std::snprintf(label, sizeof label, "%zu. %s", i + 1, lesson.title.c_str());
        if (ImGui::Button(label, ImVec2(-1.0f, 0.0f))) {
          teachBoard().lessonToOpen = entry.path;
          teachBoard().lessonStep = 0;
          if (PartSlot* self = findSlot(ctx, teach_names::kStartHere)) self->shown = false;
        }
        ImGui::Indent();
        wrappedText(lesson.summary);
        char details[200];
        std::snprintf(details, sizeof details, "%zu steps%s%s; spheretest --lesson %s", lesson.steps.size(),
                      lesson.source.empty() ? "" : ", from ", lesson.source.c_str(), lesson.name.c_str());
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        wrappedText(details);
        ImGui::PopStyleColor();
        ImGui::Unindent();
      }
      ImGui::Spacing();
      ImGui::PopID();
    }
    if (lessons_.empty())
      ImGui::TextColored(kErrorColour, "No lessons found in %s.", directories_[0].c_str());
    ImGui::Separator();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrappedText("A lesson is a text file (README, Lessons): copy one from " + directories_[0] +
                (directories_[1].empty() ? std::string(" and open it with spheretest --lesson FILE.")
                                         : " into " + directories_[1] + " to have it listed here."));
    ImGui::PopStyleColor();
    if (ImGui::SmallButton("read the list again")) listed_ = false;
  }

 private:
  void list(const StructureRegistry& registry) {
    listed_ = true;
    directories_ = {lessonsDirectory(), userLessonsDirectory()};
    lessons_ = listLessons(directories_, lessonVocabulary(registry));
  }

  bool listed_ = false;
  int lastDrawn_ = -2;
  int openedAt_ = 0;
  std::vector<std::string> directories_;
  std::vector<LessonListing> lessons_;
};

const PartRegistrar lessonRegistrar{{PartCategory::Panel, teach_names::kLesson,
                                     "the open lesson: what to look at in this step, Back and Next", 1, false,
                                     [] { return std::make_unique<LessonPanel>(); }}};
const PartRegistrar listRegistrar{{PartCategory::Panel, teach_names::kStartHere,
                                   "the lessons to start from, each a few set-up views with what to look at",
                                   2, false, [] { return std::make_unique<StartHerePanel>(); }}};

}  // namespace
}  // namespace st::ui
