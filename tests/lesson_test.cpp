// Lessons: the reader and its messages (each names the file, the step and the key), the shipped lessons
// (they load, and every figure their text names is one the window measures), stepping, the figures'
// wording, and what a step changes in the demo model and in the window's parts.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "run_config.hpp"
#include "ui/model/demo_model.hpp"
#include "ui/model/lesson.hpp"
#include "ui/panels/demo_part.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::ui {
namespace {

const StructureRegistry& registry() {
  return app::appRegistry();
}

LessonVocabulary vocabulary() {
  return lessonVocabulary(registry());
}

std::unique_ptr<DemoModel> makeModel(std::size_t count, const std::string& structure) {
  SceneSetup setup;
  setup.count = count;
  auto simulation = std::make_unique<Simulation>(setup.scenario, setup.config, setup.count, setup.seed);
  return std::make_unique<DemoModel>(
      registry(), [](const std::string& name) { return registry().create(name); }, std::move(simulation),
      setup, structure);
}

/// The message parseLesson throws for `text`, or "" when it parses.
std::string errorOf(const std::string& text) {
  try {
    parseLesson(text, "lessons/x.lesson", vocabulary());
  } catch (const LessonError& e) {
    return e.what();
  }
  return "";
}

const char* const kGood =
    "# a comment\n"
    "title = Grids\n"
    "summary = first line\n"
    "  and its continuation\n"
    "source = document 002\n"
    "order = 7\n"
    "count = 3,000\n"
    "structure = grid\n"
    "panels = Stats\n"
    "\n"
    "[step]\n"
    "title = One\n"
    "text =\n"
    "  First paragraph,\n"
    "  still the first.\n"
    "\n"
    "  Second: {pairs} pairs, {tests_share%} of {{brute}}.\n"
    "  - a bullet\n"
    "  - another\n"
    "\n"
    "[step]\n"
    "title = Two\n"
    "structure = loose-quadtree\n"
    "set = loose-quadtree.factor=1.5, scene.radius_max=8\n"
    "scenario = center-lines\n"
    "seed = 9\n"
    "panels =\n"
    "overlays = Structure nodes, Pair lines\n"
    "query = box\n"
    "query_at = 0.25, 0.75\n"
    "query_size = 12\n"
    "teach = split_left=grid; split=enneatree\n"
    "paused = yes\n"
    "view = query\n"
    "text = Two {extra:root_items}.\n";

TEST(LessonReader, AGoodLessonWithHeaderDefaultsTextAndEveryKey) {
  const Lesson lesson = parseLesson(kGood, "lessons/grids.lesson", vocabulary());
  EXPECT_EQ(lesson.name, "grids");
  EXPECT_EQ(lesson.title, "Grids");
  EXPECT_EQ(lesson.summary, "first line and its continuation");
  EXPECT_EQ(lesson.source, "document 002");
  EXPECT_EQ(lesson.order, 7);
  ASSERT_EQ(lesson.steps.size(), 2u);

  const LessonStep& one = lesson.steps[0];
  EXPECT_EQ(one.line, 11u);
  EXPECT_EQ(one.title, "One");
  EXPECT_EQ(one.text,
            "First paragraph, still the first.\n\nSecond: {pairs} pairs, {tests_share%} of {{brute}}.\n"
            "- a bullet\n- another");
  EXPECT_EQ(one.count, 3000u);  // from the header
  EXPECT_EQ(one.structure, "grid");
  EXPECT_EQ(one.panels, std::vector<std::string>{"Stats"});
  EXPECT_FALSE(one.overlays.has_value());
  EXPECT_EQ(one.query.mode, QueryShape::Circle);  // the defaults
  EXPECT_FALSE(one.paused);
  EXPECT_EQ(one.view, LessonView::World);

  const LessonStep& two = lesson.steps[1];
  EXPECT_EQ(two.count, 3000u);
  EXPECT_EQ(two.seed, 9u);
  EXPECT_EQ(two.scenario, "center-lines");
  EXPECT_EQ(two.structure, "loose-quadtree");
  ASSERT_EQ(two.params.size(), 1u);
  EXPECT_EQ(two.params[0].first, "factor");
  EXPECT_EQ(two.params[0].second, 1.5);
  EXPECT_EQ(two.scene.radiusMax, 8.0);
  EXPECT_TRUE(two.panels.empty()) << "an empty list overrides the header's";
  EXPECT_EQ(*two.overlays, (std::vector<std::string>{"Structure nodes", "Pair lines"}));
  EXPECT_EQ(two.query.mode, QueryShape::Box);
  EXPECT_FLOAT_EQ(two.query.at.x, 0.25f);
  EXPECT_FLOAT_EQ(two.query.at.y, 0.75f);
  EXPECT_FLOAT_EQ(two.query.size, 12.0f);
  EXPECT_FALSE(two.query.sizeIsShare);
  EXPECT_EQ(two.teach, "split_left=grid; split=enneatree");
  EXPECT_TRUE(two.paused);
  EXPECT_EQ(two.view, LessonView::Query);
}

TEST(LessonReader, WindowsLineEndsAndAByteOrderMarkAreRead) {
  const Lesson lesson = parseLesson(
      "\xEF\xBB\xBFtitle = T\r\n[step]\r\ntitle = S\r\ntext =\r\n  a\r\n  b\r\n", "x", vocabulary());
  EXPECT_EQ(lesson.title, "T");
  EXPECT_EQ(lesson.steps.at(0).text, "a b");
}

TEST(LessonReader, TheBriefsExampleMessageWordForWord) {
  const std::string text =
      "title = T\n[step]\ntitle = a\ntext = a\n[step]\ntitle = b\ntext = b\n[step]\ntitle = c\ntext = c\n"
      "count = lots\n";
  try {
    parseLesson(text, "assets/lessons/grid.lesson", vocabulary());
    FAIL() << "parsed";
  } catch (const LessonError& e) {
    EXPECT_EQ(std::string(e.what()),
              "assets/lessons/grid.lesson: step 3: count: expected a whole number from 1 to 10,000,000, got "
              "'lots' (line 11)");
  }
}

struct BadCase {
  const char* lines;     // appended to a good header and a step start
  const char* expected;  // a piece of the message after "lessons/x.lesson: "
};

TEST(LessonReader, EveryKindOfMistakeNamesTheFileTheStepAndTheKey) {
  const BadCase cases[] = {
      {"count = 0", "step 1: count: expected a whole number from 1 to 10,000,000, got '0'"},
      {"count = 10000001", "step 1: count: expected a whole number"},
      {"seed = -1", "step 1: seed: expected a whole number"},
      {"colour = red", "step 1: colour: unknown key; a step takes: title, text"},
      {"structure = octree", "step 1: structure: unknown structure 'octree'; known: brute, grid"},
      {"scenario = rain", "step 1: scenario: unknown scenario 'rain'; known: spheretest"},
      {"panels = Stats, Lessonz", "step 1: panels: unknown panel 'Lessonz'; known: Lesson"},
      {"overlays = Nodes", "step 1: overlays: unknown overlay 'Nodes'; known: Structure nodes"},
      {"query = sphere", "step 1: query: expected off, point, circle, box, ray or cone, got 'sphere'"},
      {"query_at = 0.5", "step 1: query_at: expected two numbers from 0 to 1"},
      {"query_at = 0.5, 1.5", "step 1: query_at: expected two numbers from 0 to 1"},
      {"query_to = a, b", "step 1: query_to: expected two numbers from 0 to 1"},
      {"query_size = -3", "step 1: query_size: expected a size in world units (12) or a share"},
      {"query_size = 250%", "step 1: query_size: expected a size"},
      {"paused = maybe", "step 1: paused: expected yes or no, got 'maybe'"},
      {"view = side", "step 1: view: expected world or query, got 'side'"},
      {"teach = zoom=2", "step 1: teach: unknown request 'zoom'; known: claim"},
      {"teach = claim=seed-009", "step 1: teach: request 'claim' cannot be 'seed-009'"},
      {"teach = explain=octree", "step 1: teach: unknown structure 'octree'"},
      {"teach = step_zoom=1", "step 1: teach: step_zoom: a step shows the query with 'view = query'"},
      {"teach = export_csv=/tmp/x.csv", "step 1: teach: unknown request 'export_csv'"},
      {"teach = claim", "step 1: teach: request 'claim' has no value"},
      {"set = grid.cell_scale", "step 1: set: expected KEY=NUMBER items"},
      {"set = grid.cell_scal=2", "step 1: set: "},
      {"set = grid.cell_scale=1000000", "step 1: set: "},
      {"set = quadtree.capacity=8",
       "step 1: set: quadtree.capacity is a parameter of quadtree, but the step "
       "shows grid"},
      {"set = scene.radius_min=5, scene.radius_max=2", "step 1: set: scene.radius_max must be at least"},
      {"set = scene.colour=2", "step 1: set: "},
      {"text = again", "step 1: text: given twice (lines 5 and 6)"},
      {"[lesson]", "step 1: unknown section '[lesson]'; the only section is [step]"},
      {"just words", "step 1: expected 'key = value', got 'just words'"},
  };
  for (const BadCase& c : cases) {
    const std::string text =
        std::string("title = T\nstructure = grid\n[step]\ntitle = S\ntext = fine\n") + c.lines + "\n";
    const std::string message = errorOf(text);
    EXPECT_NE(message.find(std::string("lessons/x.lesson: ") + c.expected), std::string::npos)
        << c.lines << "\n  gave: " << message;
    EXPECT_NE(message.find("(line"), std::string::npos) << message;
  }
}

TEST(LessonReader, MissingPartsAndFiguresAreNamed) {
  EXPECT_NE(errorOf("[step]\ntitle = a\ntext = b\n").find("x.lesson: header: title: missing"),
            std::string::npos);
  EXPECT_NE(errorOf("title = T\n").find("x.lesson: no [step] section"), std::string::npos);
  EXPECT_NE(errorOf("title = T\n[step]\ntext = b\n").find("x.lesson: step 1: title: missing"),
            std::string::npos);
  EXPECT_NE(errorOf("title = T\n[step]\ntitle = a\n").find("x.lesson: step 1: text: missing"),
            std::string::npos);
  EXPECT_NE(errorOf("title = T\ntext = b\n[step]\ntitle = a\ntext = b\n")
                .find("x.lesson: header: text: unknown key before the first [step]"),
            std::string::npos);
  EXPECT_NE(
      errorOf("title = T\n[step]\n  stray\n").find("x.lesson: step 1: an indented line continues a value"),
      std::string::npos);
  EXPECT_NE(errorOf("title = T\n[step]\ntitle =\ntext = b\n").find("x.lesson: step 1: title: is empty"),
            std::string::npos);
  EXPECT_NE(errorOf("title = T\n[step]\ntitle = a\ntext = {pears} pairs\n")
                .find("x.lesson: step 1: text: unknown figure {pears}; known: count, structure"),
            std::string::npos);
  EXPECT_NE(errorOf("title = T\n[step]\ntitle = a\ntext = {pairs pairs\n")
                .find("step 1: text: '{pairs pairs' is "
                      "not closed"),
            std::string::npos);
  EXPECT_EQ(errorOf("title = T\n[step]\ntitle = a\ntext = {extra:anything} and {count%}\n"), "");
}

TEST(LessonReader, AFileThatCannotBeReadIsNamed) {
  try {
    loadLesson("/nonexistent/dir/gone.lesson", vocabulary());
    FAIL();
  } catch (const LessonError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/dir/gone.lesson: cannot be read");
  }
}

// ---------------------------------------------------------------------------------------------------------
// Where lessons are, and the shipped ones
// ---------------------------------------------------------------------------------------------------------

TEST(LessonFiles, NamesResolveInTheDirectoryAndFilesAsGiven) {
  const std::string dir = lessonsDirectory();
  EXPECT_EQ(findLesson("grid", dir), dir + "/grid.lesson");
  EXPECT_EQ(findLesson(dir + "/quadtree.lesson", dir), dir + "/quadtree.lesson");
  try {
    findLesson("nosuch", dir);
    FAIL();
  } catch (const LessonError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no lesson 'nosuch'"), std::string::npos) << message;
    EXPECT_NE(message.find("brute-force, grid, many-sizes, quadtree, sphere-tree"), std::string::npos)
        << message;
  }
}

TEST(LessonFiles, TheListShowsABrokenFileLastWithItsMessage) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "spheretest_lesson_list";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a-broken.lesson") << "title = Broken\n[step]\ntitle = s\ntext = t\nquery = sphere\n";
  std::ofstream(dir / "b.lesson") << "title = Second\norder = 2\n[step]\ntitle = s\ntext = t\n";
  std::ofstream(dir / "c.lesson") << "title = First\norder = 1\n[step]\ntitle = s\ntext = t\n";
  std::ofstream(dir / "notes.txt") << "not a lesson";
  const std::vector<std::string> dirs = {dir.string(), "", "/nonexistent/lessons"};
  const std::vector<LessonListing> list = listLessons(dirs, vocabulary());
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].lesson.title, "First");
  EXPECT_EQ(list[1].lesson.title, "Second");
  EXPECT_TRUE(list[0].error.empty());
  EXPECT_NE(list[2].error.find("a-broken.lesson: step 1: query: expected off, point"), std::string::npos)
      << list[2].error;
  std::filesystem::remove_all(dir);
}

std::set<std::string> extraNames(const DemoModel& model) {
  ExtraCounters extra;
  model.structure().extra(extra);
  std::set<std::string> names;
  for (const auto& [name, value] : extra) names.insert(name);
  return names;
}

// The NAME of every {extra:NAME} or {extra:NAME%} in a step's text. Written out by hand: std::regex
// trips GCC 12's maybe-uninitialized warning in the sanitizer build.
std::vector<std::string> extraFiguresNamed(const std::string& text) {
  std::vector<std::string> found;
  const std::string open = "{extra:";
  for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const std::size_t begin = at + open.size();
    std::size_t end = begin;
    while (end < text.size() && (std::islower(static_cast<unsigned char>(text[end])) ||
                                 std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    const std::size_t close = end < text.size() && text[end] == '%' ? end + 1 : end;
    if (end > begin && close < text.size() && text[close] == '}')
      found.push_back(text.substr(begin, end - begin));
  }
  return found;
}

// The text with every span from an opening `first` to the next `last` (both included) removed.
std::string withoutSpans(const std::string& text, char first, char last) {
  std::string out;
  bool inside = false;
  for (char c : text) {
    if (!inside && c == first) {
      inside = true;
    } else if (inside && c == last) {
      inside = false;
    } else if (!inside) {
      out += c;
    }
  }
  return out;
}

// The text without its references to the source documents by number ("document 002", "documents 1 and 3").
std::string withoutDocumentNumbers(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  auto digitsAt = [&](std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    return end;
  };
  while (i < text.size()) {
    const bool word = (text.compare(i, 8, "document") == 0 || text.compare(i, 8, "Document") == 0);
    if (!word) {
      out += text[i++];
      continue;
    }
    std::size_t at = i + 8;
    if (at < text.size() && text[at] == 's') ++at;
    if (at < text.size() && text[at] == ' ' && digitsAt(at + 1) > at + 1) {
      at = digitsAt(at + 1);
      if (text.compare(at, 5, " and ") == 0 && digitsAt(at + 5) > at + 5) at = digitsAt(at + 5);
      i = at;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// Whether the prose holds what reads as a measured figure: three digits in a row, a digit separator or
// decimal point between digits, or a percentage.
bool holdsWrittenFigure(const std::string& prose) {
  auto digit = [&](std::size_t at) {
    return at < prose.size() && std::isdigit(static_cast<unsigned char>(prose[at]));
  };
  for (std::size_t i = 0; i < prose.size(); ++i) {
    if (!digit(i)) continue;
    if (digit(i + 1) && digit(i + 2)) return true;
    if (i + 2 < prose.size() && (prose[i + 1] == ',' || prose[i + 1] == '.') && digit(i + 2)) return true;
    if (i + 1 < prose.size() && prose[i + 1] == '%') return true;
  }
  return false;
}

// Every shipped lesson loads, comes from a source document, and each step sets the model up; every
// {extra:NAME} its text names is a figure the step's structure reports, so no step reads "n/a".
TEST(LessonFiles, EveryShippedLessonLoadsAndEachStepsFiguresExist) {
  const std::vector<std::string> dirs = {lessonsDirectory()};
  const std::vector<LessonListing> list = listLessons(dirs, vocabulary());
  ASSERT_GE(list.size(), 5u);
  auto model = makeModel(500, "grid");
  for (const LessonListing& entry : list) {
    ASSERT_TRUE(entry.error.empty()) << entry.error;
    EXPECT_FALSE(entry.lesson.source.empty()) << entry.path;
    EXPECT_FALSE(entry.lesson.summary.empty()) << entry.path;
    EXPECT_GE(entry.lesson.steps.size(), 4u) << entry.path;
    for (std::size_t s = 0; s < entry.lesson.steps.size(); ++s) {
      const LessonStep& step = entry.lesson.steps[s];
      SCOPED_TRACE(entry.path + " step " + std::to_string(s + 1));
      EXPECT_EQ(applyLessonStep(*model, step, "grid"), "");
      FrameRecord record;
      model->advance(record);
      const std::set<std::string> names = extraNames(*model);
      for (const std::string& figure : extraFiguresNamed(step.text)) {
        EXPECT_EQ(names.count(figure), 1u) << figure << " is not a figure of " << model->structure().name();
      }
      // No measured figure is written into a lesson: they come from the window ({name}). Outside the
      // source documents' own words (quoted) and their numbers ("document 002"), a number of three digits
      // or more, or with a separator, a decimal point or a percent sign, would be one.
      const std::string prose =
          withoutSpans(withoutDocumentNumbers(withoutSpans(step.text, '"', '"')), '{', '}');
      EXPECT_FALSE(holdsWrittenFigure(prose)) << "a figure written into the text: " << prose;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Stepping and figures
// ---------------------------------------------------------------------------------------------------------

TEST(LessonCursor, BackAndNextStopAtTheEnds) {
  LessonCursor cursor(3);
  EXPECT_EQ(cursor.index(), 0u);
  EXPECT_FALSE(cursor.hasBack());
  EXPECT_FALSE(cursor.move(-1));
  EXPECT_TRUE(cursor.move(+1));
  EXPECT_EQ(cursor.index(), 1u);
  EXPECT_TRUE(cursor.move(+5));
  EXPECT_EQ(cursor.index(), 2u);
  EXPECT_FALSE(cursor.hasNext());
  EXPECT_FALSE(cursor.move(+1));
  EXPECT_TRUE(cursor.move(-1));
  EXPECT_EQ(cursor.index(), 1u);
  EXPECT_FALSE(cursor.goTo(3));
  EXPECT_TRUE(cursor.goTo(0));
  EXPECT_EQ(LessonCursor(3, 7).index(), 2u) << "a start past the end opens the last step";
  EXPECT_FALSE(LessonCursor(0).move(1));
}

TEST(LessonFigures, FilledFromValuesWithGroupingPercentBracesAndGaps) {
  LessonFigures f;
  f.structure = "grid";
  f.values = {{"count", 12345},     {"tests_share", 0.01234}, {"depth", 7},
              {"build_ms", 0.4567}, {"pairs_ms", 123.4},      {"extra:cell_size", 7.999}};
  EXPECT_EQ(fillLessonFigures("{count} on {structure}, {tests_share%}, depth {depth}", f),
            "12,345 on grid, 1.23%, depth 7");
  EXPECT_EQ(fillLessonFigures("{build_ms} ms, {pairs_ms} ms, {extra:cell_size}", f), "0.457 ms, 123 ms, 8");
  EXPECT_EQ(fillLessonFigures("{{count}} {pairs} {unclosed", f), "{count} n/a {unclosed");
}

TEST(LessonFigures, MeasuredFromTheModel) {
  auto model = makeModel(800, "grid");
  FrameRecord record;
  model->advance(record);
  const LessonFigures f = measureLessonFigures(*model, {{"cell_size", 8.0}});
  EXPECT_EQ(f.structure, "grid");
  EXPECT_EQ(f.values.at("count"), 800.0);
  EXPECT_EQ(f.values.at("brute_tests"), 800.0 * 799.0 / 2.0);
  EXPECT_EQ(f.values.at("pairs"), double(model->pairs().size()));
  EXPECT_EQ(f.values.at("pair_tests"), double(model->pairCounters().candidates));
  EXPECT_EQ(f.values.at("extra:cell_size"), 8.0);
  for (const LessonFigureInfo& info : lessonFigureInfo()) {
    if (std::string(info.name) == "structure" || std::string(info.name).rfind("query", 0) == 0) continue;
    EXPECT_EQ(f.values.count(info.name), 1u) << info.name;
  }
}

// ---------------------------------------------------------------------------------------------------------
// What a step changes
// ---------------------------------------------------------------------------------------------------------

TEST(LessonStepSetUp, ReseedsOnlyForAnotherSceneAndResetsUnnamedParameters) {
  const Lesson lesson = parseLesson(
      "title = T\ncount = 600\n"
      "[step]\ntitle = a\ntext = a\nstructure = grid\nset = grid.cell_scale=3\nquery = box\n"
      "query_at = 0.25, 0.75\nquery_size = 10%\npaused = yes\n"
      "[step]\ntitle = b\ntext = b\nstructure = grid\nquery = off\n"
      "[step]\ntitle = c\ntext = c\nstructure = quadtree\nseed = 5\n",
      "t.lesson", vocabulary());
  auto model = makeModel(500, "quadtree");
  ASSERT_EQ(applyLessonStep(*model, lesson.steps[0], "grid"), "");
  EXPECT_EQ(model->simulation().circles().size(), 600u);
  EXPECT_EQ(model->structure().name(), "grid");
  EXPECT_EQ(model->structure().param("cell_scale"), 3.0);
  EXPECT_TRUE(model->paused);
  const Box& world = model->simulation().world();
  const float side = world.max.x - world.min.x;
  EXPECT_EQ(model->query.mode, QueryShape::Box);
  EXPECT_NEAR(model->query.anchor.x, world.min.x + 0.25f * side, 1e-3f);
  EXPECT_NEAR(model->query.anchor.y, world.min.y + 0.75f * (world.max.y - world.min.y), 1e-3f);
  EXPECT_NEAR(model->query.halfExtent.x, 0.1f * side, 1e-3f);

  // The same scene: the simulation goes on (no reseed); the parameter goes back to its default.
  FrameRecord record;
  model->advance(record);
  const std::uint64_t frame = model->simulation().frame();
  ASSERT_EQ(applyLessonStep(*model, lesson.steps[1], "grid"), "");
  EXPECT_EQ(model->simulation().frame(), frame);
  EXPECT_EQ(model->structure().param("cell_scale"), 1.0);
  EXPECT_FALSE(model->query.mode.has_value());
  EXPECT_FALSE(model->paused);

  // Another seed is another scene.
  ASSERT_EQ(applyLessonStep(*model, lesson.steps[2], "grid"), "");
  EXPECT_EQ(model->simulation().frame(), 0u);
  EXPECT_EQ(model->scene().seed, 5u);
  EXPECT_EQ(model->structure().name(), "quadtree");
  const Box view = lessonViewBox(*model, lesson.steps[2]);
  EXPECT_EQ(view.min.x, model->simulation().world().min.x) << "view = world shows the world";
}

// ---------------------------------------------------------------------------------------------------------
// The lesson panel in the window's parts
// ---------------------------------------------------------------------------------------------------------

struct Window {
  std::unique_ptr<DemoModel> model = makeModel(500, "grid");
  render::Camera camera;
  ViewOptions view;
  std::vector<PartSlot> parts = createParts();
  DemoContext ctx{*model, camera, view, parts};

  PartSlot& slot(const std::string& name) {
    return *std::find_if(parts.begin(), parts.end(), [&](const PartSlot& s) { return s.info->name == name; });
  }
  void frame() {
    FrameRecord record;
    model->advance(record);
    for (PartSlot& s : parts) s.part->update(ctx);
  }
};

TEST(LessonPanel, OpensAStepAndMovesWithBackAndNext) {
  Window w;
  w.frame();
  EXPECT_FALSE(w.slot(teach_names::kLesson).shown) << "no lesson, no panel";
  teachBoard().lessonToOpen = lessonsDirectory() + "/quadtree.lesson";
  teachBoard().lessonStep = 3;  // step 4: the fit-entirely quadtree with the Stats panel
  w.frame();
  EXPECT_TRUE(teachBoard().lessonToOpen.empty());
  EXPECT_TRUE(w.slot(teach_names::kLesson).shown);
  EXPECT_EQ(w.model->structure().name(), "fit-quadtree");
  EXPECT_EQ(w.model->scene().scenario, "uniform");
  EXPECT_TRUE(w.slot("Stats").shown);
  EXPECT_FALSE(w.slot("Control").shown) << "panels the step does not name close";
  EXPECT_TRUE(w.view.layoutPanels && w.view.fitRequested);

  teachBoard().lessonMove = +1;  // Next: the centre lines, the root's list read whole
  w.frame();
  EXPECT_EQ(teachBoard().lessonMove, 0);
  EXPECT_EQ(w.model->scene().scenario, "center-lines");
  EXPECT_EQ(w.model->simulation().circles().size(), 4000u);
  EXPECT_EQ(w.model->structure().param("split_runs"), 0.0) << "the step's parameter";

  teachBoard().lessonMove = +1;  // Next: the same list read through its split, the parameter back to default
  w.frame();
  EXPECT_EQ(w.model->scene().scenario, "center-lines");
  EXPECT_EQ(w.model->structure().param("split_runs"), 1.0);

  teachBoard().lessonMove = +1;  // Next: the split view, with its teaching requests posted
  w.frame();
  EXPECT_TRUE(w.slot(teach_names::kSplit).shown);
  EXPECT_FALSE(w.slot("Stats").shown);
  EXPECT_EQ(teachRequest("split"), "loose-quadtree");
  teachBoard().lessonMove = +1;  // past the last step: stays
  w.frame();
  EXPECT_TRUE(w.slot(teach_names::kSplit).shown);

  teachBoard().lessonMove = -1;  // Back
  w.frame();
  EXPECT_TRUE(w.slot("Stats").shown);
  EXPECT_FALSE(w.slot(teach_names::kSplit).shown);
  EXPECT_EQ(teachRequest("split"), "") << "the requests are the step's, none here";
  postTeachRequests("");
}

TEST(LessonPanel, TheListAndTheLessonAreRegisteredClosed) {
  for (const char* name : {teach_names::kLesson, teach_names::kStartHere}) {
    const auto& all = registeredParts();
    const auto it = std::find_if(all.begin(), all.end(), [&](const PartInfo& p) { return p.name == name; });
    ASSERT_NE(it, all.end()) << name;
    EXPECT_EQ(it->category, PartCategory::Panel);
    EXPECT_FALSE(it->shownByDefault) << name;
  }
}

}  // namespace
}  // namespace st::ui
