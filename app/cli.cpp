#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "render/clip/clip_writer.hpp"
#include "spheretest/atomic_file.hpp"
#include "spheretest/tasks.hpp"
#include "spheretest/version.hpp"
#include "ui/model/lesson.hpp"
#include "ui/teaching/teach_links.hpp"

namespace st::app {
namespace {

constexpr long long kMaxCount = 10'000'000;
constexpr long long kMaxFrames = 1'000'000;
constexpr long long kMaxQueries = 10'000'000;
constexpr long long kMaxThreads = 1024;

// Strict integer parse: the whole text must be a decimal integer.
bool parseInteger(const std::string& text, long long& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(text.c_str(), &end, 10);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

// Strict number parse: the whole text must be a finite number.
bool parseNumber(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE && std::isfinite(value);
}

long long integerOption(const std::string& option, const std::string& text, long long lo, long long hi) {
  long long value = 0;
  if (!parseInteger(text, value) || value < lo || value > hi) {
    throw InvalidInput(option + " must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                       " (got '" + text + "')");
  }
  return value;
}

std::vector<std::string> splitList(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.push_back("");
  return parts;
}

std::string allSettingKeys() {
  std::string keys;
  for (const StructureInfo& info : appRegistry().all()) {
    const std::unique_ptr<SpatialIndex> instance = info.create();
    for (const ParamInfo& param : instance->params())
      keys += (keys.empty() ? "" : ", ") + info.name + "." + param.key;
  }
  for (const ParamInfo& param : sceneParams())
    keys += (keys.empty() ? "" : ", ") + std::string("scene.") + param.key;
  return keys;
}

void resolveStructures(RunConfig& config, const std::string& text) {
  const StructureRegistry& registry = appRegistry();
  config.structures.clear();
  if (text == "all") {
    for (const StructureInfo& info : registry.all()) config.structures.push_back(info.name);
    return;
  }
  for (const std::string& name : splitList(text, ',')) {
    if (!registry.find(name)) {
      throw InvalidInput("--structure: unknown structure '" + name + "'; valid: " + registry.names() +
                         ", all");
    }
    if (std::find(config.structures.begin(), config.structures.end(), name) == config.structures.end()) {
      config.structures.push_back(name);
    }
    if (name == "brute") config.bruteExplicit = true;
  }
}

void parseQueries(RunConfig& config, const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  config.queryKind = parseQueryShape(kind);
  if (!config.queryKind || colon == std::string::npos) {
    throw InvalidInput(
        "--queries must be KIND:COUNT with KIND one of point, circle, box, ray, cone, nearest (got '" + text +
        "')");
  }
  config.queryCount =
      static_cast<int>(integerOption("--queries COUNT", text.substr(colon + 1), 1, kMaxQueries));
}

void parseQueryRegion(RunConfig& config, const std::string& text) {
  const std::vector<std::string> parts = splitList(text, ',');
  double v[4];
  bool ok = parts.size() == 4;
  for (std::size_t i = 0; ok && i < 4; ++i)
    ok = parseNumber(parts[i], v[i]) && std::fabs(v[i]) <= kMaxCoordinate;
  if (!ok || !(v[0] < v[2]) || !(v[1] < v[3])) {
    throw InvalidInput("--query-region must be X0,Y0,X1,Y1 with finite numbers, X0 < X1 and Y0 < Y1 (got '" +
                       text + "')");
  }
  config.queryRegion = Box{{float(v[0]), float(v[1])}, {float(v[2]), float(v[3])}};
}

// Everything a clip needs is checked here, so that a recording never fails after its first frame for a
// reason known before it.
void parseRecord(RunConfig& config, const std::string& path, const std::string& fpsText, bool headless,
                 bool screenshot) {
  if (headless || screenshot || config.soakSeconds > 0)
    throw InvalidInput("--record records the window: it excludes --headless, --screenshot and --soak");
  if (const std::string why = clip::whyNotRecordable(path); !why.empty())
    throw InvalidInput("--record: cannot record '" + path + "': " + why);
  const clip::ClipFormat format = *clip::formatForPath(path);
  const clip::FpsRange range = clip::fpsRange(format);
  config.recordFps = range.defaultFps;
  if (!fpsText.empty()) {
    double fps = 0;
    if (!parseNumber(fpsText, fps) || fps < range.min || fps > range.max) {
      std::ostringstream message;
      message << "--record-fps must be a number in " << range.min << ".." << range.max << " for "
              << clip::formatName(format) << " (got '" << fpsText << "')";
      throw InvalidInput(message.str());
    }
    config.recordFps = fps;
  }
  config.recordPath = path;
}

void printStructures(std::ostream& out) {
  out << "Structures (--structure NAME[,NAME...] or all; parameters via --set NAME.KEY=VALUE):\n";
  for (const StructureInfo& info : appRegistry().all()) {
    out << "  " << std::left << std::setw(16) << info.name << info.summary;
    if (info.peer) out << " [peer]";
    if (!info.source.empty()) out << " (" << info.source << ")";
    out << "\n";
    const std::unique_ptr<SpatialIndex> instance = info.create();
    for (const ParamInfo& param : instance->params()) {
      out << "      " << info.name << "." << param.key << " = " << param.defaultValue << "  ["
          << param.minValue << ", " << param.maxValue << "]  " << param.description << "\n";
    }
  }
}

void printScenarios(std::ostream& out) {
  out << "Scenarios (--scenario NAME):\n";
  for (const ScenarioInfo& info : scenarios())
    out << "  " << std::left << std::setw(16) << info.name << info.description << "\n";
  out << "Scene parameters (--set scene.KEY=VALUE):\n";
  for (const ParamInfo& param : sceneParams()) {
    out << "      scene." << param.key << " = " << param.defaultValue << "  [" << param.minValue << ", "
        << param.maxValue << "]  " << param.description << "\n";
  }
}

// --lesson NAME|FILE [--step N]: the lesson must load, and the step must be one of its steps.
void resolveLesson(RunConfig& config, const std::string& lesson, const std::string& stepText) {
  try {
    const std::string path = ui::findLesson(lesson, ui::lessonsDirectory());
    const ui::Lesson loaded = ui::loadLesson(path, ui::lessonVocabulary(appRegistry()));
    config.lessonPath = path;
    if (!stepText.empty()) {
      const long long steps = static_cast<long long>(loaded.steps.size());
      long long step = 0;
      if (!parseInteger(stepText, step) || step < 1 || step > steps) {
        throw InvalidInput("--step must be from 1 to " + std::to_string(steps) + ", the steps of lesson " +
                           loaded.name + " (got '" + stepText + "')");
      }
      config.lessonStep = static_cast<std::size_t>(step - 1);
    }
  } catch (const ui::LessonError& error) {
    throw InvalidInput(std::string("--lesson: ") + error.what());
  }
}

}  // namespace

void applySetting(RunConfig& config, const std::string& setting) {
  const std::size_t eq = setting.find('=');
  const std::size_t dot = setting.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
    throw InvalidInput("--set expects KEY=VALUE with KEY like grid.cell_scale or scene.radius_max (got '" +
                       setting + "'); valid keys: " + allSettingKeys());
  }
  const std::string owner = setting.substr(0, dot);
  const std::string key = setting.substr(dot + 1, eq - dot - 1);
  const std::string valueText = setting.substr(eq + 1);
  double value = 0;
  if (!parseNumber(valueText, value)) {
    throw InvalidInput("--set " + setting.substr(0, eq) + ": value '" + valueText +
                       "' is not a finite number");
  }
  if (owner == "scene") {
    setSceneParam(config.scene, key, value);
    return;
  }
  if (!appRegistry().find(owner)) {
    throw InvalidInput("--set: unknown key '" + setting.substr(0, eq) + "'; valid keys: " + allSettingKeys());
  }
  // Validate range and key now, on a scratch instance, so a typo fails before any work is done.
  std::unique_ptr<SpatialIndex> probe = appRegistry().create(owner);
  try {
    probe->setParam(key, value);
  } catch (const InvalidInput& error) {
    throw InvalidInput(std::string("--set: ") + error.what());
  }
  config.structureParams.emplace_back(owner + "." + key, value);
}

ParseResult parseCommandLine(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App cli{
      "spheretest: spatial partitioning of moving circles, shown and measured.\n"
      "Opens the window by default; --headless (or no display) prints a report instead."};
  cli.set_help_flag("-h,--help", "Print this help and exit");
  cli.set_version_flag("--version", std::string("spheretest ") + kVersion, "Print the version and exit");
  std::string countText = "2000", structureText = "all", framesText = "300", seedText = "1";
  std::string scenario = "spheretest", sceneFile, report, screenshot, queriesText, querySizeText, queryKText,
              regionText;
  std::string threadsText;
  std::string soakText, switchEveryText, record, recordFpsText;
  std::string lessonText, stepText;
  bool present = false;
  std::vector<std::string> settings;
  bool headless = false, listStructures = false, listScenarios = false, countGiven = false;
  // Value names say what each option takes; CLI11 would print TEXT for all of them.
  cli.add_option("--count", countText, "Number of circles, 1..10000000 (default 2000)")
      ->type_name("N")
      ->each([&](const std::string&) { countGiven = true; });
  // The window opens on the first structure with nodes to show (brute force has none).
  std::string windowDefault = "brute";
  for (const StructureInfo& info : appRegistry().all()) {
    if (info.name != "brute") {
      windowDefault = info.name;
      break;
    }
  }
  cli.add_option("--structure", structureText,
                 "Structures, comma-separated, or all. Headless: the ones to run (default all). Window: the "
                 "first named that is not brute opens (default " +
                     windowDefault + "); the others are a click away")
      ->type_name("NAME[,NAME...]");
  cli.add_option("--scenario", scenario, "Scene (default spheretest); see --list-scenarios")
      ->type_name("NAME");
  cli.add_option("--scene-file", sceneFile,
                 "CSV with header x,y,radius[,static]: circles start where it puts them (excludes --count)")
      ->type_name("FILE");
  cli.add_option("--seed", seedText, "Random seed, >= 0 (default 1): same seed, same frames")->type_name("N");
  cli.add_option("--threads", threadsText,
                 "Threads for the simulation, updates, pair search and queries, 1.." +
                     std::to_string(kMaxThreads) + " (default: every hardware thread, here " +
                     std::to_string(hardwareThreads()) + "); results are the same for any count")
      ->type_name("N");
  cli.add_option("--frames", framesText,
                 "Frames to run headless, before --screenshot or to --record, 1..1000000 (default 300); the "
                 "window otherwise runs until closed")
      ->type_name("N");
  cli.add_flag("--headless", headless, "No window: run the frames and print the report");
  cli.add_option("--report", report, "Headless: also write the report as JSON to this file (checked first)")
      ->type_name("FILE");
  cli.add_option("--set", settings,
                 "Structure or scene parameter, e.g. grid.cell_scale=1.5 (repeatable); see --list-structures")
      ->type_name("KEY=VALUE");
  cli.add_option("--queries", queriesText,
                 "Headless: COUNT random queries after the last frame, KIND point, circle, box, ray, "
                 "cone or nearest (default none)")
      ->type_name("KIND:COUNT");
  cli.add_option("--query-size", querySizeText,
                 "Query radius, box half-extent, ray length or cone reach (default twice the largest "
                 "radius; rays and cones an eighth of the region's width)")
      ->type_name("R");
  cli.add_option("--query-k", queryKText, "Circles a nearest query asks for, 1..100000 (default 8)")
      ->type_name("K");
  cli.add_option("--query-region", regionText, "Where query positions fall (default: the scene's)")
      ->type_name("X0,Y0,X1,Y1");
  cli.add_option("--screenshot", screenshot, "Window: render --frames frames, save the window as PNG, exit")
      ->type_name("FILE");
  cli.add_option("--record", record,
                 "Window: record --frames frames (after two that place the panels) as a clip and exit; .gif, "
                 ".mp4 or .webm (checked first)")
      ->type_name("FILE");
  cli.add_option("--record-fps", recordFpsText,
                 "Frames per second the --record clip plays at (GIF 1..50, default 20; video 1..120, default "
                 "30); every frame is one step of 1/60 s")
      ->type_name("F");
  cli.add_option("--soak", soakText,
                 "Window long run: switch structures for this many seconds, each switch checked (exit 3 on a "
                 "failure)")
      ->type_name("SECONDS");
  cli.add_option("--switch-every", switchEveryText,
                 "Seconds between structure switches in --soak (default 1)")
      ->type_name("SECONDS");
  cli.add_option("--lesson", lessonText,
                 "Window: open a lesson, by name (one of assets/lessons) or file; its steps set up the view")
      ->type_name("NAME|FILE");
  cli.add_option("--step", stepText, "With --lesson: the step to open it at, from 1 (default 1)")
      ->type_name("N");
  cli.add_flag("--present", present,
               "Window: open in the presentation view (the world and the lesson's text; F5 leaves it)");
  cli.add_flag("--list-structures", listStructures, "List structures and their parameters");
  cli.add_flag("--list-scenarios", listScenarios, "List scenarios and scene parameters");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForVersion& version) {
    out << version.what() << "\n";
    return {std::nullopt, 0};
  } catch (const CLI::CallForHelp&) {
    out << cli.help();
    return {std::nullopt, 0};
  } catch (const CLI::ParseError& error) {
    err << "spheretest: error: " << error.what() << " (see --help)\n";
    return {std::nullopt, kExitBadInput};
  }
  if (listStructures || listScenarios) {
    if (listStructures) printStructures(out);
    if (listScenarios) printScenarios(out);
    return {std::nullopt, 0};
  }
  RunConfig config;
  try {
    config.count = static_cast<std::size_t>(integerOption("--count", countText, 1, kMaxCount));
    config.frames = static_cast<int>(integerOption("--frames", framesText, 1, kMaxFrames));
    long long seed = 0;
    if (!parseInteger(seedText, seed) || seed < 0)
      throw InvalidInput("--seed must be a non-negative integer (got '" + seedText + "')");
    config.seed = static_cast<std::uint64_t>(seed);
    if (!threadsText.empty())
      config.threads = static_cast<unsigned>(integerOption("--threads", threadsText, 1, kMaxThreads));
    checkScenarioName(scenario);
    config.scenario = scenario;
    resolveStructures(config, structureText);
    for (const std::string& setting : settings) applySetting(config, setting);
    if (config.scene.radiusMax < config.scene.radiusMin)
      throw InvalidInput("--set: scene.radius_max must be >= scene.radius_min");
    if (!queriesText.empty()) parseQueries(config, queriesText);
    if (!querySizeText.empty()) {
      double size = 0;
      if (!parseNumber(querySizeText, size) || size < 0 || size > kMaxCoordinate) {
        throw InvalidInput("--query-size must be a finite number >= 0 (got '" + querySizeText + "')");
      }
      config.querySize = static_cast<float>(size);
    }
    if (!queryKText.empty()) {
      config.queryK = static_cast<std::uint32_t>(integerOption("--query-k", queryKText, 1, 100'000));
    }
    if (!regionText.empty()) parseQueryRegion(config, regionText);
    const auto positiveSeconds = [](const std::string& option, const std::string& text) {
      double value = 0;
      if (!parseNumber(text, value) || value <= 0 || value > 1e7) {
        throw InvalidInput(option + " must be a number of seconds in (0, 1e7] (got '" + text + "')");
      }
      return value;
    };
    if (!soakText.empty()) config.soakSeconds = positiveSeconds("--soak", soakText);
    if (!switchEveryText.empty())
      config.switchEverySeconds = positiveSeconds("--switch-every", switchEveryText);
    if (config.soakSeconds > 0 && (headless || !screenshot.empty())) {
      throw InvalidInput("--soak runs the window: it excludes --headless and --screenshot");
    }
    if (!record.empty())
      parseRecord(config, record, recordFpsText, headless, !screenshot.empty());
    else if (!recordFpsText.empty())
      throw InvalidInput("--record-fps needs --record FILE");
    config.headless = headless;
    if ((!lessonText.empty() || present) && (headless || config.soakSeconds > 0)) {
      throw InvalidInput(std::string(lessonText.empty() ? "--present" : "--lesson") +
                         " opens the window: it excludes --headless and --soak");
    }
    if (!stepText.empty() && lessonText.empty()) throw InvalidInput("--step needs --lesson");
    if (!lessonText.empty()) resolveLesson(config, lessonText, stepText);
    config.present = present;
    if (!report.empty()) {
      // Checked now, so that a long run never ends in a report that cannot be written.
      if (const std::string why = whyNotWritable(report); !why.empty())
        throw InvalidInput("--report: cannot write '" + report + "': " + why);
      config.reportPath = report;
    }
    if (!screenshot.empty()) config.screenshotPath = screenshot;
    if (!sceneFile.empty()) {
      if (countGiven)
        throw InvalidInput("--count and --scene-file exclude each other: the file sets the count");
      config.sceneFile = sceneFile;
    }
  } catch (const InvalidInput& error) {
    err << "spheretest: error: " << error.what() << "\n";
    return {std::nullopt, kExitBadInput};
  }
  return {std::move(config), 0};
}

}  // namespace st::app
