#include "options.hpp"

#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace st::bench {
namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

double parseNumber(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
    throw InvalidInput(option + ": '" + text + "' is not a number");
  }
  return value;
}

// "1000", "10k", "1M": a circle count.
std::size_t parseCount(const std::string& text) {
  std::string digits = text;
  double scale = 1.0;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K'))
    scale = 1e3, digits.pop_back();
  else if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M'))
    scale = 1e6, digits.pop_back();
  const double value = parseNumber("--n", digits) * scale;
  if (value < 1 || value > 10'000'000 || value != std::floor(value)) {
    throw InvalidInput(
        "--n: counts must be whole numbers in 1 .. 10,000,000 (1k and 1M suffixes allowed), got '" + text +
        "'");
  }
  return static_cast<std::size_t>(value);
}

int parseInt(const std::string& option, const std::string& text, int lo, int hi) {
  const double value = parseNumber(option, text);
  if (value < lo || value > hi || value != std::floor(value)) {
    throw InvalidInput(option + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                       "], got '" + text + "'");
  }
  return static_cast<int>(value);
}

}  // namespace

std::string usage() {
  return "spheretest-bench: every structure and peer on the same simulation frames\n"
         "\n"
         "usage: spheretest-bench [options]\n"
         "  --n LIST            circle counts, e.g. 1k,10k,100k,1M (default)\n"
         "  --scenes LIST       scenarios (default spheretest,uniform,center-lines)\n"
         "  --structures LIST   structures to run (default: every registered structure and peer)\n"
         "  --skip LIST         structures to leave out\n"
         "  --frames F          timed frames per run (default 30)\n"
         "  --settle S          untimed frames after the build (default 2)\n"
         "  --warmup W          simulation frames before the structures see the scene (default 60)\n"
         "  --steady F          frames each structure lives through after its build and before the settle "
         "and\n"
         "                      timed frames (updates, maintain and the pair search, as in play):\n"
         "                      its steady state after a long run (default 0; e.g. 3600, a minute of play).\n"
         "                      A structure built fresh then runs the same frames, after the long-lived\n"
         "                      one's figures are taken (fresh_frame_*; summary.md checks the long-lived\n"
         "                      one within 1.2x of it)\n"
         "  --threads LIST      thread counts, each a run of every structure, e.g. 1,2 (default 1, so that\n"
         "                      structures compare on one core); summary.md then shows the scaling\n"
         "  --alternate         with several --threads counts: one run per structure whose frames take the\n"
         "                      counts in turn (each block of as many frames gives every count one, in a\n"
         "                      seeded shuffled order), so that on a shared, noisy machine every count\n"
         "                      meets the same moments; each count still gets its own result and F frames\n"
         "  --queries Q         point, circle and ray queries of each kind per run (default 1000)\n"
         "  --query-size R      query circle radius; rays are 4R long (default 16)\n"
         "  --time-cap S        CPU seconds one run may use before it is stopped and counted as skipped\n"
         "                      (default 120; runs predicted to exceed it are not started)\n"
         "  --memory-cap-gb G   address-space limit of one run, 0 for none (default 8; use 0 under "
         "AddressSanitizer)\n"
         "  --seed S            simulation and query seed (default 1)\n"
         "  --out DIR           where results.csv, results.json, summary.md and the plot go (default "
         "bench-results)\n"
         "  --plot on|off|auto  draw frame_ms.png with gnuplot (auto: when gnuplot is installed)\n"
         "  --set KEY=VALUE     structure parameter (grid.cell_scale=1.5) or scene parameter "
         "(scene.speed=40)\n"
         "  --list              list the structures and exit\n"
         "\n"
         "Each (scene, count, structure) runs in its own process: it builds the structure from the scene's\n"
         "state after the warm-up, runs the frames (updateBatch of the moved circles, maintain, findPairs),\n"
         "then the queries. Runs are skipped with a reason when they would exceed the time cap.\n"
         "Exit status: 0 success; 2 bad options; 3 a structure disagreed with the others; 1 a run failed.\n";
}

std::optional<Options> parseOptions(int argc, char** argv) {
  Options options;
  // The program by its name only, so the recorded command reads the same from any build directory.
  const std::string program = argc > 0 ? argv[0] : "spheretest-bench";
  options.commandLine = program.substr(program.find_last_of('/') + 1);
  for (int i = 1; i < argc; ++i) {
    options.commandLine += ' ';
    options.commandLine += argv[i];
  }
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") return std::nullopt;
    if (option == "--list") {
      options.list = true;
      continue;
    }
    if (option == "--alternate") {
      options.alternate = true;
      continue;
    }
    if (i + 1 >= argc) throw InvalidInput(option + ": missing value (see --help)");
    const std::string value = argv[++i];
    if (option == "--n") {
      options.counts.clear();
      for (const std::string& part : splitList(value)) options.counts.push_back(parseCount(part));
      if (options.counts.empty()) throw InvalidInput("--n: give at least one count");
    } else if (option == "--scenes") {
      options.scenes = splitList(value);
      if (options.scenes.empty()) throw InvalidInput("--scenes: give at least one scenario");
      for (const std::string& scene : options.scenes) checkScenarioName(scene);
    } else if (option == "--structures") {
      options.structures = value == "all" ? std::vector<std::string>{} : splitList(value);
    } else if (option == "--skip") {
      options.skipped = splitList(value);
    } else if (option == "--frames") {
      options.frames = parseInt(option, value, 1, 100000);
    } else if (option == "--settle") {
      options.settle = parseInt(option, value, 0, 100000);
    } else if (option == "--warmup") {
      options.warmup = parseInt(option, value, 0, 1000000);
    } else if (option == "--steady") {
      options.steady = parseInt(option, value, 0, 1000000);
    } else if (option == "--threads") {
      options.threads.clear();
      for (const std::string& part : splitList(value))
        options.threads.push_back(static_cast<unsigned>(parseInt(option, part, 1, 1024)));
      if (options.threads.empty()) throw InvalidInput("--threads: give at least one thread count");
      std::sort(options.threads.begin(), options.threads.end());
      options.threads.erase(std::unique(options.threads.begin(), options.threads.end()),
                            options.threads.end());
    } else if (option == "--queries") {
      options.queries = parseInt(option, value, 0, 10000000);
    } else if (option == "--query-size") {
      const double size = parseNumber(option, value);
      if (!(size > 0) || size > 1e6)
        throw InvalidInput("--query-size must be in (0, 1e6], got '" + value + "'");
      options.querySize = static_cast<float>(size);
    } else if (option == "--time-cap") {
      options.timeCapSeconds = parseNumber(option, value);
      if (!(options.timeCapSeconds > 0))
        throw InvalidInput("--time-cap must be > 0 seconds, got '" + value + "'");
    } else if (option == "--memory-cap-gb") {
      options.memoryCapGiB = parseNumber(option, value);
      if (options.memoryCapGiB < 0) throw InvalidInput("--memory-cap-gb must be >= 0, got '" + value + "'");
    } else if (option == "--seed") {
      const double seed = parseNumber(option, value);
      if (seed < 0 || seed != std::floor(seed) || seed > 9e15)
        throw InvalidInput("--seed must be a whole number >= 0");
      options.seed = static_cast<std::uint64_t>(seed);
    } else if (option == "--out") {
      options.outDir = value;
    } else if (option == "--plot") {
      if (value == "on")
        options.plot = PlotMode::On;
      else if (value == "off")
        options.plot = PlotMode::Off;
      else if (value == "auto")
        options.plot = PlotMode::Auto;
      else
        throw InvalidInput("--plot must be on, off or auto, got '" + value + "'");
    } else if (option == "--set") {
      const std::size_t eq = value.find('=');
      const std::size_t dot = value.find('.');
      if (eq == std::string::npos || dot == std::string::npos || dot > eq) {
        throw InvalidInput("--set expects NAME.KEY=VALUE (scene.speed=40, grid.cell_scale=1.5), got '" +
                           value + "'");
      }
      const std::string owner = value.substr(0, dot);
      const std::string key = value.substr(dot + 1, eq - dot - 1);
      const double number = parseNumber("--set " + value.substr(0, eq), value.substr(eq + 1));
      if (owner == "scene")
        setSceneParam(options.scene, key, number);
      else
        options.structureParams.emplace_back(value.substr(0, eq), number);
    } else {
      throw InvalidInput("unknown option '" + option + "' (see --help)");
    }
  }
  if (options.alternate && options.threads.size() < 2)
    throw InvalidInput("--alternate: give two or more thread counts with --threads");
  return options;
}

}  // namespace st::bench
