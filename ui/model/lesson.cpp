#include "ui/model/lesson.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "spheretest/frame.hpp"
#include "ui/model/asset_location.hpp"
#include "ui/model/settings.hpp"
#include "ui/model/teach_trace.hpp"

namespace st::ui {
namespace {

constexpr std::uint64_t kMaxCount = 10'000'000;  // the command line's --count limit

// ---------------------------------------------------------------------------------------------------------
// Lines to sections of key = value entries
// ---------------------------------------------------------------------------------------------------------

struct Entry {
  std::string key;
  std::string value;
  std::size_t line = 0;
};

struct Section {
  std::size_t line = 0;  // of its [step]; 0 for the header
  std::vector<Entry> entries;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string lineText(std::size_t line) {
  return " (line " + std::to_string(line) + ")";
}

/// The header and the steps, in file order; values of indented continuation lines joined (a blank line
/// between two of them is a paragraph break, a line starting "- " a new bullet line).
std::vector<Section> splitSections(std::string_view text, const std::string& file) {
  std::vector<Section> sections(1);
  Entry* open = nullptr;
  bool blankPending = false;
  std::size_t lineNumber = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark, as editors write
  auto where = [&] {
    return sections.size() == 1 ? std::string("header") : "step " + std::to_string(sections.size() - 1);
  };
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) {
      blankPending = open != nullptr && !open->value.empty();
      continue;
    }
    if (line.front() == '#') continue;  // a comment, even inside a text
    if (line.front() == ' ' || line.front() == '\t') {
      if (open == nullptr) {
        throw LessonError(file + ": " + where() +
                          ": an indented line continues a value, but no 'key =' comes before it" +
                          lineText(lineNumber));
      }
      const std::string_view content = trim(line);
      if (!open->value.empty()) {
        if (blankPending) {
          open->value += "\n\n";
        } else if (content.substr(0, 2) == "- ") {
          open->value += '\n';
        } else {
          open->value += ' ';
        }
      }
      open->value += content;
      blankPending = false;
      continue;
    }
    open = nullptr;
    blankPending = false;
    const std::string_view trimmed = trim(line);
    if (trimmed.front() == '[') {
      if (trimmed != "[step]") {
        throw LessonError(file + ": " + where() + ": unknown section '" + std::string(trimmed) +
                          "'; the only section is [step]" + lineText(lineNumber));
      }
      sections.push_back({lineNumber, {}});
      continue;
    }
    const std::size_t equals = trimmed.find('=');
    if (equals == std::string_view::npos) {
      throw LessonError(file + ": " + where() + ": expected 'key = value', got '" + std::string(trimmed) +
                        "'" + lineText(lineNumber));
    }
    Entry entry{std::string(trim(trimmed.substr(0, equals))), std::string(trim(trimmed.substr(equals + 1))),
                lineNumber};
    for (const Entry& earlier : sections.back().entries) {
      if (earlier.key == entry.key) {
        throw LessonError(file + ": " + where() + ": " + entry.key + ": given twice (lines " +
                          std::to_string(earlier.line) + " and " + std::to_string(lineNumber) + ")");
      }
    }
    sections.back().entries.push_back(std::move(entry));
    open = &sections.back().entries.back();
  }
  return sections;
}

// ---------------------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------------------

/// Throws the message for one entry: "FILE: WHERE: KEY: MESSAGE (line N)".
struct Reporter {
  const std::string& file;
  std::string where;
  [[noreturn]] void fail(const Entry& e, const std::string& message) const {
    throw LessonError(file + ": " + where + ": " + e.key + ": " + message + lineText(e.line));
  }
};

std::string inQuotes(std::string_view s) {
  return "'" + std::string(s) + "'";
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> splitAt(std::string_view text, char separator) {
  std::vector<std::string> pieces;
  while (true) {
    const std::size_t end = text.find(separator);
    const std::string_view piece = trim(text.substr(0, end));
    if (!piece.empty()) pieces.emplace_back(piece);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return pieces;
}

bool parseWhole(std::string_view text, std::uint64_t& value) {
  if (text.empty() || text.size() > 20) return false;
  std::string digits;
  for (char c : text) {
    if (c == ',' || c == '_') continue;  // 10,000 and 10_000 read as written
    if (c < '0' || c > '9') return false;
    digits += c;
  }
  if (digits.empty()) return false;
  errno = 0;
  char* end = nullptr;
  value = std::strtoull(digits.c_str(), &end, 10);
  return errno != ERANGE && end == digits.c_str() + digits.size();
}

bool parseReal(std::string_view text, double& value) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE && std::isfinite(value);
}

std::uint64_t wholeValue(const Reporter& r, const Entry& e, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t value = 0;
  if (!parseWhole(e.value, value) || value < lo || value > hi) {
    r.fail(e, "expected a whole number from " + formatCount(lo) + " to " + formatCount(hi) + ", got " +
                  inQuotes(e.value));
  }
  return value;
}

bool flagValue(const Reporter& r, const Entry& e) {
  for (const char* yes : {"yes", "true", "on", "1"}) {
    if (e.value == yes) return true;
  }
  for (const char* no : {"no", "false", "off", "0"}) {
    if (e.value == no) return false;
  }
  r.fail(e, "expected yes or no, got " + inQuotes(e.value));
}

Vec2 shareValue(const Reporter& r, const Entry& e) {
  const std::vector<std::string> xy = splitAt(e.value, ',');
  double x = 0, y = 0;
  if (xy.size() != 2 || !parseReal(xy[0], x) || !parseReal(xy[1], y) || x < 0 || x > 1 || y < 0 || y > 1) {
    r.fail(e,
           "expected two numbers from 0 to 1, 'x, y' as shares of the world (0, 0 its lower left corner), "
           "got " +
               inQuotes(e.value));
  }
  return {float(x), float(y)};
}

std::vector<std::string> nameList(const Reporter& r, const Entry& e, const std::vector<std::string>& known,
                                  const char* what) {
  std::vector<std::string> names = splitAt(e.value, ',');
  if (known.empty()) return names;
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) == known.end())
      r.fail(e, "unknown " + std::string(what) + " " + inQuotes(name) + "; known: " + joined(known));
  }
  return names;
}

void checkStructureName(const Reporter& r, const Entry& e, const std::string& name,
                        const LessonVocabulary& vocabulary) {
  if (vocabulary.structures != nullptr && vocabulary.structures->find(name) == nullptr)
    r.fail(e, "unknown structure " + inQuotes(name) + "; known: " + vocabulary.structures->names());
}

// The keys SPHERETEST_TEACH takes that a lesson may use, and what their values must be. Left out:
// export_csv (a lesson does not write files) and step_zoom (the step's own `view = query` places the
// camera, after the panels have moved).
void checkTeachRequests(const Reporter& r, const Entry& e, const LessonVocabulary& vocabulary) {
  static const char* const kClaimIds[] = {"seed-000", "seed-001", "seed-002", "seed-003", "seed-004"};
  static const char* const kKeys[] = {"claim",      "explain",    "step",         "step_stop",
                                      "split",      "split_left", "split_view",   "inspect",
                                      "inspect_at", "compare",    "compare_wait", "compare_log"};
  for (const std::string& request : splitAt(e.value, ';')) {
    const std::size_t equals = request.find('=');
    const std::string key(trim(std::string_view(request).substr(0, equals)));
    const std::string value =
        equals == std::string::npos ? "" : std::string(trim(std::string_view(request).substr(equals + 1)));
    if (key == "step_zoom") r.fail(e, "step_zoom: a step shows the query with 'view = query'");
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      std::string keys;
      for (const char* k : kKeys) keys += (keys.empty() ? "" : ", ") + std::string(k);
      r.fail(e, "unknown request " + inQuotes(key) + "; known: " + keys);
    }
    if (value.empty()) r.fail(e, "request " + inQuotes(key) + " has no value ('" + key + "=VALUE')");
    std::uint64_t whole = 0;
    double x = 0, y = 0;
    const std::vector<std::string> xy = splitAt(value, ',');
    bool ok = true;
    if (key == "claim") {
      ok = std::find(std::begin(kClaimIds), std::end(kClaimIds), value) != std::end(kClaimIds);
    } else if (key == "explain" || key == "split" || key == "split_left") {
      checkStructureName(r, e, value, vocabulary);
    } else if (key == "step" || key == "inspect") {
      ok = parseWhole(value, whole);
    } else if (key == "compare_wait" || key == "compare_log") {
      ok = value == "0" || value == "1";
    } else if (key == "step_stop") {
      ok = value == "visit" || value == "prune" || value == "hit";
    } else if (key == "split_view") {
      ok = value == "world" || value == "query";
    } else if (key == "compare") {
      ok = value == "query";
    } else if (key == "inspect_at") {
      ok = xy.size() == 2 && parseReal(xy[0], x) && parseReal(xy[1], y);
    }
    if (!ok)
      r.fail(e, "request " + inQuotes(key) + " cannot be " + inQuotes(value) + " (see README, Lessons)");
  }
}

// ---------------------------------------------------------------------------------------------------------
// Sections to a lesson
// ---------------------------------------------------------------------------------------------------------

constexpr const char* kStepKeys[] = {"title",      "text",   "scenario", "count", "seed",     "structure",
                                     "set",        "panels", "overlays", "query", "query_at", "query_to",
                                     "query_size", "teach",  "paused",   "view"};
constexpr const char* kHeaderOnlyKeys[] = {"summary", "source", "order"};

std::string keyList(bool header) {
  std::string keys;
  for (const char* k : kStepKeys) {
    if (header && std::string_view(k) == "text") continue;
    keys += (keys.empty() ? "" : ", ") + std::string(k);
  }
  if (header) {
    for (const char* k : kHeaderOnlyKeys) keys += ", " + std::string(k);
  }
  return keys;
}

/// Applies one entry to `step` (the header's entries go to the defaults every step starts from).
void applyEntry(const Reporter& r, const Entry& e, LessonStep& step, const LessonVocabulary& vocabulary,
                std::vector<Entry>& sets) {
  const std::string& k = e.key;
  if (k == "title") {
    if (e.value.empty()) r.fail(e, "is empty");
    step.title = e.value;
  } else if (k == "text") {
    if (e.value.empty()) r.fail(e, "is empty: a step says what to look at");
    step.text = e.value;
  } else if (k == "scenario") {
    const auto& all = scenarios();
    if (std::none_of(all.begin(), all.end(), [&](const ScenarioInfo& s) { return s.name == e.value; })) {
      std::vector<std::string> names;
      for (const ScenarioInfo& s : all) names.push_back(s.name);
      r.fail(e, "unknown scenario " + inQuotes(e.value) + "; known: " + joined(names));
    }
    step.scenario = e.value;
  } else if (k == "count") {
    step.count = static_cast<std::size_t>(wholeValue(r, e, 1, kMaxCount));
  } else if (k == "seed") {
    step.seed = wholeValue(r, e, 0, ~std::uint64_t{0} >> 1);
  } else if (k == "structure") {
    checkStructureName(r, e, e.value, vocabulary);
    step.structure = e.value;
  } else if (k == "set") {
    sets.assign(1, e);  // checked once the step's structure is known
  } else if (k == "panels") {
    step.panels = nameList(r, e, vocabulary.panels, "panel");
  } else if (k == "overlays") {
    step.overlays = nameList(r, e, vocabulary.overlays, "overlay");
  } else if (k == "query") {
    if (e.value == "off") {
      step.query.mode = std::nullopt;
    } else if (const std::optional<QueryShape> shape = parseQueryShape(e.value)) {
      step.query.mode = *shape;
    } else {
      r.fail(e, "expected off, point, circle, box, ray or cone, got " + inQuotes(e.value));
    }
  } else if (k == "query_at") {
    step.query.at = shareValue(r, e);
  } else if (k == "query_to") {
    step.query.to = shareValue(r, e);
  } else if (k == "query_size") {
    const bool share = !e.value.empty() && e.value.back() == '%';
    double size = 0;
    if (!parseReal(share ? e.value.substr(0, e.value.size() - 1) : e.value, size) || size <= 0 ||
        size > (share ? 100.0 : 1e9)) {
      r.fail(e, "expected a size in world units (12) or a share of the world's side (7%), above 0, got " +
                    inQuotes(e.value));
    }
    step.query.size = float(share ? size / 100.0 : size);
    step.query.sizeIsShare = share;
  } else if (k == "teach") {
    checkTeachRequests(r, e, vocabulary);
    step.teach = e.value;
  } else if (k == "paused") {
    step.paused = flagValue(r, e);
  } else if (k == "view") {
    if (e.value == "world") {
      step.view = LessonView::World;
    } else if (e.value == "query") {
      step.view = LessonView::Query;
    } else {
      r.fail(e, "expected world or query, got " + inQuotes(e.value));
    }
  }
}

/// Checks `set = KEY=VALUE, ...` against the step's structure and the scene, and stores it in `step`.
void applySets(const Reporter& r, const std::vector<Entry>& sets, LessonStep& step,
               const LessonVocabulary& vocabulary) {
  step.params.clear();
  step.scene = SceneConfig{};
  for (const Entry& e : sets) {
    for (const std::string& item : splitAt(e.value, ',')) {
      const std::size_t equals = item.find('=');
      const std::size_t dot = item.find('.');
      double value = 0;
      if (equals == std::string::npos || dot == std::string::npos || dot > equals ||
          !parseReal(trim(std::string_view(item).substr(equals + 1)), value)) {
        r.fail(e, "expected KEY=NUMBER items like grid.cell_scale=2 or scene.radius_max=8, got " +
                      inQuotes(item));
      }
      const std::string owner(trim(std::string_view(item).substr(0, dot)));
      const std::string key(trim(std::string_view(item).substr(dot + 1, equals - dot - 1)));
      try {
        if (owner == "scene") {
          setSceneParam(step.scene, key, value);
          continue;
        }
        if (!step.structure.empty() && owner != step.structure)
          r.fail(e, owner + "." + key + " is a parameter of " + owner + ", but the step shows " +
                        step.structure);
        if (vocabulary.structures != nullptr) {
          if (vocabulary.structures->find(owner) == nullptr)
            r.fail(e, "unknown structure " + inQuotes(owner) + " in " + inQuotes(item));
          vocabulary.structures->create(owner)->setParam(key, value);  // checks the key and the range
        }
        step.params.emplace_back(key, value);
      } catch (const InvalidInput& error) {
        r.fail(e, error.what());
      }
    }
  }
  if (step.scene.radiusMax < step.scene.radiusMin) {
    r.fail(sets.front(), "scene.radius_max must be at least scene.radius_min");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------------------

Lesson parseLesson(std::string_view text, const std::string& file, const LessonVocabulary& vocabulary) {
  const std::vector<Section> sections = splitSections(text, file);
  Lesson lesson;
  lesson.path = file;
  lesson.name = std::filesystem::path(file).stem().string();
  LessonStep defaults;
  std::vector<Entry> defaultSets;
  const Reporter header{file, "header"};
  for (const Entry& e : sections.front().entries) {
    if (e.key == "summary") {
      lesson.summary = e.value;
    } else if (e.key == "source") {
      lesson.source = e.value;
    } else if (e.key == "order") {
      lesson.order = static_cast<int>(wholeValue(header, e, 0, 1'000'000));
    } else if (e.key == "title") {
      if (e.value.empty()) header.fail(e, "is empty");
      lesson.title = e.value;
    } else if (e.key == "text" ||
               std::find(std::begin(kStepKeys), std::end(kStepKeys), e.key) == std::end(kStepKeys)) {
      header.fail(e, "unknown key before the first [step]; the header takes: " + keyList(true));
    } else {
      applyEntry(header, e, defaults, vocabulary, defaultSets);
    }
  }
  if (lesson.title.empty())
    throw LessonError(file +
                      ": header: title: missing (the lines before the first [step] need 'title = ...')");
  if (sections.size() < 2) throw LessonError(file + ": no [step] section: a lesson has at least one step");
  for (std::size_t s = 1; s < sections.size(); ++s) {
    const Reporter r{file, "step " + std::to_string(s)};
    LessonStep step = defaults;
    step.title.clear();
    step.line = sections[s].line;
    std::vector<Entry> sets = defaultSets;
    for (const Entry& e : sections[s].entries) {
      if (std::find(std::begin(kStepKeys), std::end(kStepKeys), e.key) == std::end(kStepKeys))
        r.fail(e, "unknown key; a step takes: " + keyList(false));
      applyEntry(r, e, step, vocabulary, sets);
    }
    applySets(r, sets, step, vocabulary);
    for (const char* required : {"title", "text"}) {
      const std::string& value = std::string_view(required) == "title" ? step.title : step.text;
      if (value.empty()) {
        throw LessonError(file + ": step " + std::to_string(s) + ": " + required + ": missing" +
                          lineText(step.line));
      }
    }
    // Every {name} must be a figure the window measures.
    std::string_view rest = step.text;
    for (std::size_t open = rest.find('{'); open != std::string_view::npos; open = rest.find('{')) {
      if (rest.substr(open, 2) == "{{") {
        rest.remove_prefix(open + 2);
        continue;
      }
      const std::size_t close = rest.find('}', open);
      std::string name(
          rest.substr(open + 1, close == std::string_view::npos ? std::string_view::npos : close - open - 1));
      if (close == std::string_view::npos) {
        throw LessonError(file + ": step " + std::to_string(s) + ": text: '{" + name +
                          "' is not closed by '}' (write {{ for a brace)" + lineText(step.line));
      }
      if (!name.empty() && name.back() == '%') name.pop_back();
      const auto figures = lessonFigureInfo();
      const bool known = (name.rfind("extra:", 0) == 0 && name.size() > 6) ||
                         std::any_of(figures.begin(), figures.end(),
                                     [&](const LessonFigureInfo& f) { return name == f.name; });
      if (!known) {
        std::string names;
        for (const LessonFigureInfo& f : figures) names += (names.empty() ? "" : ", ") + std::string(f.name);
        throw LessonError(file + ": step " + std::to_string(s) + ": text: unknown figure {" + name +
                          "}; known: " + names + ", extra:NAME" + lineText(step.line));
      }
      rest.remove_prefix(close + 1);
    }
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

Lesson loadLesson(const std::string& path, const LessonVocabulary& vocabulary) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw LessonError(path + ": is a directory, not a lesson file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LessonError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parseLesson(text.str(), path, vocabulary);
}

// ---------------------------------------------------------------------------------------------------------
// Where lessons are
// ---------------------------------------------------------------------------------------------------------

std::string lessonsDirectory() {
  return assetsDirectory() + "/lessons";
}

std::string userLessonsDirectory() {
  const std::string settings = settingsDirectory();
  return settings.empty() ? "" : settings + "/lessons";
}

std::string findLesson(const std::string& nameOrFile, const std::string& directory) {
  std::error_code error;
  if (std::filesystem::is_regular_file(nameOrFile, error)) return nameOrFile;
  const bool plainName = nameOrFile.find('/') == std::string::npos && !nameOrFile.empty();
  const std::string inDirectory = directory + "/" + nameOrFile + ".lesson";
  if (plainName && std::filesystem::is_regular_file(inDirectory, error)) return inDirectory;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().extension() == ".lesson") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  throw LessonError("no lesson " + inQuotes(nameOrFile) + ": not a file, and not a name in " + directory +
                    " (lessons there: " + (names.empty() ? "none" : joined(names)) + ")");
}

std::vector<LessonListing> listLessons(std::span<const std::string> directories,
                                       const LessonVocabulary& vocabulary) {
  std::vector<LessonListing> list;
  for (const std::string& directory : directories) {
    std::error_code error;
    std::vector<std::string> files;
    if (directory.empty()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
      if (entry.path().extension() == ".lesson") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      LessonListing listing;
      listing.path = file;
      try {
        listing.lesson = loadLesson(file, vocabulary);
      } catch (const LessonError& e) {
        listing.error = e.what();
      }
      list.push_back(std::move(listing));
    }
  }
  std::stable_sort(list.begin(), list.end(), [](const LessonListing& a, const LessonListing& b) {
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    if (a.lesson.order != b.lesson.order) return a.lesson.order < b.lesson.order;
    return a.lesson.title < b.lesson.title;
  });
  return list;
}

// ---------------------------------------------------------------------------------------------------------
// Stepping
// ---------------------------------------------------------------------------------------------------------

LessonCursor::LessonCursor(std::size_t steps, std::size_t index)
    : steps_(steps), index_(steps == 0 ? 0 : std::min(index, steps - 1)) {}

bool LessonCursor::move(int delta) {
  if (steps_ == 0) return false;
  const long target = std::clamp(long(index_) + long(delta), 0L, long(steps_) - 1);
  if (std::size_t(target) == index_) return false;
  index_ = std::size_t(target);
  return true;
}

bool LessonCursor::goTo(std::size_t index) {
  if (index >= steps_) return false;
  index_ = index;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Figures
// ---------------------------------------------------------------------------------------------------------

namespace {

constexpr LessonFigureInfo kFigures[] = {
    {"count", "circles in the scene"},
    {"structure", "the structure's name"},
    {"moved", "circles moved in the last step"},
    {"pairs", "overlapping pairs this frame"},
    {"pair_tests", "circle pairs this frame's pair search examined (by distance or by bounds)"},
    {"pair_exact_tests", "the exact tests among them"},
    {"brute_tests", "what examining every pair costs: n(n-1)/2"},
    {"tests_share", "pairs examined as a share of brute force's (use {tests_share%})"},
    {"fewer_tests", "how many times fewer pairs examined than brute force"},
    {"pair_nodes", "nodes (cells) the pair search visited this frame"},
    {"update_nodes", "nodes the update of the moved circles visited this frame"},
    {"update_tests", "circles examined during this frame's update"},
    {"nodes", "nodes or occupied cells of the structure"},
    {"depth", "the structure's deepest level"},
    {"memory_kib", "memory the structure holds, KiB"},
    {"query_hits", "circles the query found"},
    {"query_tests", "circles the query examined (by distance or by bounds)"},
    {"query_exact_tests", "the exact tests among them"},
    {"query_nodes", "nodes (cells) the query visited"},
    {"pairs_ms", "milliseconds of this frame's pair search (mean of the last frames)"},
    {"update_ms", "milliseconds of this frame's update (mean of the last frames)"},
    {"build_ms", "milliseconds of the last build"},
};

std::string formatFigure(double value, bool percent) {
  char text[64];
  if (percent) {
    std::snprintf(text, sizeof text, "%.3g%%", value * 100.0);
    return text;
  }
  const double magnitude = std::fabs(value);
  if (magnitude >= 1000.0 || (value == std::floor(value) && magnitude < 1e15)) {
    const std::string digits = formatCount(static_cast<std::uint64_t>(std::llround(magnitude)));
    return value < 0 ? "-" + digits : digits;
  }
  std::snprintf(text, sizeof text, magnitude >= 100.0 ? "%.0f" : "%.3g", value);
  return text;
}

}  // namespace

std::span<const LessonFigureInfo> lessonFigureInfo() {
  return kFigures;
}

LessonFigures measureLessonFigures(const DemoModel& model, const ExtraCounters& extra) {
  LessonFigures f;
  const SpatialIndex& index = model.structure();
  const double n = double(model.simulation().circles().size());
  const double brute = n * std::max(n - 1.0, 0.0) / 2.0;
  f.structure = index.name();
  auto& v = f.values;
  v["count"] = n;
  v["moved"] = double(model.simulation().movedIds().size());
  v["brute_tests"] = brute;
  if (model.pairSearch) {
    const QueryCounters& pc = model.pairCounters();
    v["pairs"] = double(model.pairs().size());
    v["pair_tests"] = double(pc.candidates);
    v["pair_exact_tests"] = double(pc.exactTests);
    v["pair_nodes"] = double(pc.nodesVisited);
    if (brute > 0) v["tests_share"] = double(pc.candidates) / brute;
    if (pc.candidates > 0) v["fewer_tests"] = brute / double(pc.candidates);
  }
  v["update_nodes"] = double(model.updateCounters().nodesVisited);
  v["update_tests"] = double(model.updateCounters().candidates);
  const IndexStats stats = index.stats();
  v["nodes"] = double(stats.nodes);
  v["depth"] = double(stats.maxDepth);
  v["memory_kib"] = double(stats.memoryBytes) / 1024.0;
  if (model.query.mode) {
    v["query_hits"] = double(model.query.hits.size() + model.query.rayHits.size());
    v["query_tests"] = double(model.query.counters.candidates);
    v["query_exact_tests"] = double(model.query.counters.exactTests);
    v["query_nodes"] = double(model.query.counters.nodesVisited);
  }
  const FrameRecord recent = model.timings.average(30);
  v["pairs_ms"] = double(recent[Phase::Pairs]);
  v["update_ms"] = double(recent[Phase::Update]);
  v["build_ms"] = model.buildMs();
  for (const auto& [name, value] : extra) v["extra:" + name] = value;
  return f;
}

std::string fillLessonFigures(std::string_view text, const LessonFigures& figures) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    const std::size_t close = c == '{' ? text.find('}', i) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out += c;
      continue;
    }
    std::string_view name = text.substr(i + 1, close - i - 1);
    const bool percent = !name.empty() && name.back() == '%';
    if (percent) name.remove_suffix(1);
    if (name == "structure") {
      out += figures.structure;
    } else if (const auto it = figures.values.find(name); it != figures.values.end()) {
      out += formatFigure(it->second, percent);
    } else {
      out += "n/a";
    }
    i = close;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// What a step changes
// ---------------------------------------------------------------------------------------------------------

std::string applyLessonStep(DemoModel& model, const LessonStep& step, const std::string& defaultStructure) {
  SceneSetup setup;
  setup.scenario = step.scenario;
  setup.count = step.count;
  setup.seed = step.seed;
  setup.config = step.scene;
  const SceneSetup& now = model.scene();
  bool sameScene = now.scenario == setup.scenario && now.count == setup.count && now.seed == setup.seed &&
                   model.simulation().circles().size() == setup.count;
  for (const ParamInfo& p : sceneParams())
    sameScene = sameScene && sceneParam(now.config, p.key) == sceneParam(setup.config, p.key);
  if (!sameScene && !model.reseed(setup)) return model.lastError();

  const std::string& name = step.structure.empty() ? defaultStructure : step.structure;
  if (model.structure().name() != name && !model.selectStructure(name)) return model.lastError();
  for (const ParamInfo& p : model.structure().params()) {
    double wanted = p.defaultValue;
    for (const auto& [key, value] : step.params) {
      if (key == p.key) wanted = value;
    }
    if (model.structure().param(p.key) != wanted && !model.setParam(p.key, wanted)) return model.lastError();
  }

  const Box& world = model.simulation().world();
  const Vec2 extent = world.max - world.min;
  const auto place = [&](Vec2 share) {
    return Vec2{world.min.x + share.x * extent.x, world.min.y + share.y * extent.y};
  };
  const LessonQuery& q = step.query;
  const float size = q.sizeIsShare ? q.size * std::max(extent.x, extent.y) : q.size;
  placeQuery(model.query, q.mode, place(q.at), size, q.to ? std::optional<Vec2>(place(*q.to)) : std::nullopt);
  model.paused = step.paused;
  return "";
}

Box lessonViewBox(const DemoModel& model, const LessonStep& step) {
  const Box& world = model.simulation().world();
  const QueryState& q = model.query;
  if (step.view == LessonView::World || !q.mode) return world;
  Box shape{q.anchor, q.anchor};
  switch (*q.mode) {
    case QueryShape::Circle:
      shape = boundsOf({q.anchor, q.radius});
      break;
    case QueryShape::Box:
      shape = queryBoxOf(q);
      break;
    case QueryShape::Segment:
      shape = {{std::min(q.anchor.x, q.target.x), std::min(q.anchor.y, q.target.y)},
               {std::max(q.anchor.x, q.target.x), std::max(q.anchor.y, q.target.y)}};
      break;
    case QueryShape::Cone:
      shape = boundsOf({q.anchor, length(q.target - q.anchor)});
      break;
    case QueryShape::Point:
    case QueryShape::Nearest:
      break;
  }
  // The shape and as much again on every side, and never less than an eighth of the world: enough of the
  // cells or nodes around it to see why the query went where it did.
  const float side = std::max(world.max.x - world.min.x, world.max.y - world.min.y);
  const float half = std::max({shape.max.x - shape.min.x, shape.max.y - shape.min.y, 0.0625f * side});
  const Vec2 c{0.5f * (shape.min.x + shape.max.x), 0.5f * (shape.min.y + shape.max.y)};
  return {{c.x - half, c.y - half}, {c.x + half, c.y + half}};
}

}  // namespace st::ui
