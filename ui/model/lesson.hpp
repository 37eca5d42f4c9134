#pragma once
/// \file Lessons: plain text files of steps, each of which sets up the window (scene, structure, panels,
/// overlays, query, teaching requests) and says in a few sentences what to look at. The format is in
/// README.md ("Lessons"); this is its reader, its checks, the figures a step's text may name, and what a
/// step changes in the demo model. No ImGui here, so the tests run the same code the window does.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spheretest/registry.hpp"
#include "spheretest/scene.hpp"
#include "ui/model/demo_model.hpp"

namespace st::ui {

// ---------------------------------------------------------------------------------------------------------
// A lesson
// ---------------------------------------------------------------------------------------------------------

/// What a step's camera shows.
enum class LessonView : std::uint8_t {
  World,  ///< the whole world, fitted into the free part of the window
  Query   ///< the query's shape and a margin around it
};

/// Where a step's query goes. Places are shares of the world (0,0 its lower left corner, 1,1 its upper
/// right), so one lesson reads the same at any circle count.
struct LessonQuery {
  QueryMode mode = QueryShape::Circle;  ///< the shape, or off
  Vec2 at{0.5f, 0.5f};                  ///< the anchor (point, centre, ray start, eye)
  std::optional<Vec2> to;               ///< ray end or where the cone looks
  float size = 0.07f;                   ///< radius, half side, ray length or cone reach
  bool sizeIsShare = true;              ///< `size` is a share of the world's side, not world units
};

/// One step, with the lesson's header values filled in where the step leaves a key out.
struct LessonStep {
  std::size_t line = 0;  ///< line of its [step] in the file
  std::string title;     ///< a few words
  std::string text;      ///< what to look at; paragraphs separated by "\n\n", bullets by "\n- "

  std::string scenario = "spheretest";                 ///< scene
  std::size_t count = 2000;                            ///< circles
  std::uint64_t seed = 1;                              ///< random seed
  std::string structure;                               ///< structure ("" : the app's first one)
  std::vector<std::pair<std::string, double>> params;  ///< the structure's parameters (key without prefix)
  SceneConfig scene;                                   ///< scene.* parameters
  std::vector<std::string> panels;                     ///< panels open beside the lesson
  std::optional<std::vector<std::string>> overlays;    ///< overlays shown (absent: the default ones)
  LessonQuery query;                                   ///< the query tool's shape
  std::string teach;                                   ///< SPHERETEST_TEACH requests, "key=value;..."
  bool paused = false;                                 ///< the simulation holds still
  LessonView view = LessonView::World;                 ///< what the camera shows
};

/// A parsed and checked lesson.
struct Lesson {
  std::string path;               ///< the file it was read from
  std::string name;               ///< the file's name without ".lesson"
  std::string title;              ///< shown in the list and over every step
  std::string summary;            ///< one or two sentences for the list
  std::string source;             ///< the source document it teaches from, if any
  int order = 1000;               ///< place in the list (ascending, then by title)
  std::vector<LessonStep> steps;  ///< at least one
};

/// A lesson file that cannot be used; what() names the file, the step (or the header) and the key.
class LessonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What names a lesson may use. Empty lists (and a null registry) are not checked.
struct LessonVocabulary {
  const StructureRegistry* structures = nullptr;  ///< structures and their parameters
  std::vector<std::string> panels;                ///< panel names
  std::vector<std::string> overlays;              ///< overlay names
};

/// Parses a lesson's text; `file` is how messages name it. Throws LessonError.
Lesson parseLesson(std::string_view text, const std::string& file, const LessonVocabulary& vocabulary);

/// Reads and parses a lesson file. Throws LessonError (also when the file cannot be read).
Lesson loadLesson(const std::string& path, const LessonVocabulary& vocabulary);

// ---------------------------------------------------------------------------------------------------------
// Where lessons are
// ---------------------------------------------------------------------------------------------------------

/// The shipped lessons: assets/lessons in the assets directory.
std::string lessonsDirectory();

/// A user's own lessons: lessons/ in the settings directory ("" when there is none).
std::string userLessonsDirectory();

/// The file `nameOrFile` stands for: an existing file as given, else NAME.lesson in `directory`. Throws
/// LessonError naming the lessons there when neither exists.
std::string findLesson(const std::string& nameOrFile, const std::string& directory);

/// One entry of the lesson list: a lesson, or the file that failed and why.
struct LessonListing {
  std::string path;   ///< the file
  Lesson lesson;      ///< the lesson (empty when `error` is set)
  std::string error;  ///< why it cannot be used, "" when it can
};

/// Every *.lesson file in the directories (missing ones are skipped), lessons by order then title, broken
/// files last.
std::vector<LessonListing> listLessons(std::span<const std::string> directories,
                                       const LessonVocabulary& vocabulary);

// ---------------------------------------------------------------------------------------------------------
// Stepping
// ---------------------------------------------------------------------------------------------------------

/// Which step of a lesson is shown.
class LessonCursor {
 public:
  /// Starts at step `index` (clamped to the lesson).
  explicit LessonCursor(std::size_t steps = 0, std::size_t index = 0);
  /// The step shown, 0-based.
  std::size_t index() const { return index_; }
  /// Steps in the lesson.
  std::size_t steps() const { return steps_; }
  /// Whether there is a step before this one.
  bool hasBack() const { return index_ > 0; }
  /// Whether there is a step after this one.
  bool hasNext() const { return index_ + 1 < steps_; }
  /// Moves by `delta` steps, stopping at the first and last; true when the step changed.
  bool move(int delta);
  /// Goes to step `index`; false (and no change) when out of range.
  bool goTo(std::size_t index);

 private:
  std::size_t steps_ = 0;
  std::size_t index_ = 0;
};

// ---------------------------------------------------------------------------------------------------------
// Figures a step's text may name
// ---------------------------------------------------------------------------------------------------------

/// A figure a lesson may name as {name} in its text (or {name%} for a share shown in percent).
struct LessonFigureInfo {
  const char* name;         ///< placeholder name
  const char* description;  ///< what it is
};

/// Every figure, in README order. Besides these, {extra:NAME} names one of the structure's own figures.
std::span<const LessonFigureInfo> lessonFigureInfo();

/// Live values of the figures, by name ("extra:NAME" for the structure's own).
struct LessonFigures {
  std::map<std::string, double, std::less<>> values;  ///< numbers
  std::string structure;                              ///< the structure's name, for {structure}
};

/// This frame's figures from the model, and `extra` (the structure's extra(), gathered by the caller as
/// often as it can afford) under "extra:NAME".
LessonFigures measureLessonFigures(const DemoModel& model, const ExtraCounters& extra);

/// `text` with every {name} replaced by its figure: whole numbers grouped by thousands, others to three
/// significant digits; {name%} as a percentage; "{{" and "}}" are braces. A figure without a value reads
/// "n/a".
std::string fillLessonFigures(std::string_view text, const LessonFigures& figures);

// ---------------------------------------------------------------------------------------------------------
// What a step changes
// ---------------------------------------------------------------------------------------------------------

/// Sets up `model` for `step`: reseeds when the scene differs, switches structure when it differs, sets
/// every parameter of the structure to the step's value or its default, places the query and sets the
/// pause. `defaultStructure` stands in for a step that names none. Returns "" or what failed.
std::string applyLessonStep(DemoModel& model, const LessonStep& step, const std::string& defaultStructure);

/// The world box a step's camera shows (LessonView::Query: the query's bounds and a margin around them).
Box lessonViewBox(const DemoModel& model, const LessonStep& step);

}  // namespace st::ui
