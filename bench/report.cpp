#include "report.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "spheretest/atomic_file.hpp"

namespace st::bench {
namespace {

// ---------------------------------------------------------------------------------------------------------
// Formatting helpers
// ---------------------------------------------------------------------------------------------------------

std::string number(double value, int digits = 9) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

// Three significant digits without exponents, for tables read by people.
std::string readable(double value) {
  char text[64];
  if (value >= 1000.0)
    std::snprintf(text, sizeof text, "%.0f", value);
  else if (value >= 100.0)
    std::snprintf(text, sizeof text, "%.1f", value);
  else if (value >= 10.0)
    std::snprintf(text, sizeof text, "%.2f", value);
  else if (value >= 1.0)
    std::snprintf(text, sizeof text, "%.3f", value);
  else if (value >= 0.001)
    std::snprintf(text, sizeof text, "%.4f", value);
  else
    std::snprintf(text, sizeof text, "%.2g", value);
  return text;
}

std::string countLabel(std::size_t n) {
  if (n >= 1000000 && n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n >= 1000 && n % 1000 == 0) return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c == '\n')
      out += "\\n";
    else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

const char* statusName(RunStatus status) {
  switch (status) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::Skipped:
      return "skipped";
    case RunStatus::Failed:
      return "failed";
  }
  return "?";
}

// A result file's text, written whole by commit() (a temporary beside it, then renamed over it), so that a
// run stopped while writing leaves the previous results or the new ones, never half a file.
class WholeFile : public std::ostringstream {
 public:
  explicit WholeFile(std::string path) : path_(std::move(path)) {}
  void commit() { writeFileAtomically(path_, str()); }

 private:
  std::string path_;
};

std::string readFileField(const char* path, const std::string& field) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, field.size(), field) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "unknown";
}

// Names in first-seen order, so tables follow the registry.
template <class Key>
std::vector<std::string> orderedNames(const std::vector<RunResult>& results, Key key) {
  std::vector<std::string> names;
  for (const RunResult& r : results) {
    const std::string name = key(r);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::vector<std::size_t> orderedCounts(const std::vector<RunResult>& results) {
  std::vector<std::size_t> counts;
  for (const RunResult& r : results) {
    if (std::find(counts.begin(), counts.end(), r.count) == counts.end()) counts.push_back(r.count);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

const RunResult* findRun(const std::vector<RunResult>& results, const std::string& scene, std::size_t count,
                         const std::string& structure) {
  for (const RunResult& r : results) {
    if (r.scene == scene && r.count == count && r.structure == structure) return &r;
  }
  return nullptr;
}

// Frame figures compare CPU time: on a shared machine wall-clock time also measures the neighbours.
double frameMedian(const RunResult& r) {
  return summarize(r.frameCpuMs).median;
}

std::string structureLabel(const RunResult& r) {
  return r.peer ? r.structure + " (peer)" : r.structure;
}

std::string joinThreads(const std::vector<unsigned>& threads) {
  std::string text;
  for (unsigned t : threads) text += (text.empty() ? "" : ", ") + std::to_string(t);
  return text;
}

const RunResult* findRunOn(const std::vector<RunResult>& results, const std::string& scene, std::size_t count,
                           const std::string& structure, unsigned threads) {
  for (const RunResult& r : results) {
    if (r.scene == scene && r.count == count && r.structure == structure && r.threads == threads) return &r;
  }
  return nullptr;
}

// Where the frame's wall time goes at each thread count, from the alternating run's loop profile: what runs
// on the calling thread alone between the parallel loops, how long the loops take, the ranges' time summed
// over the workers (with the time outside the loops, against the one-thread frame: what running side by side
// costs the work itself), and the share of the workers' time inside the loops that ran ranges (the rest is
// waking, joining and waiting on the last range).
template <class Out>
void writeLoopTimes(Out& out, const Options& options, const std::vector<RunResult>& results,
                    const std::string& scene, std::size_t n, const std::vector<std::string>& names) {
  bool any = false;
  for (const RunResult& r : results) any = any || (r.scene == scene && r.count == n && !r.loopMs.empty());
  if (!any) return;
  out << "Where the time goes, " << scene << " at " << countLabel(n)
      << " circles (update + pairs, wall ms): the parallel loops in a frame, the time outside them (one "
         "thread), the time inside them, the ranges' time summed over the workers, and the share of the "
         "workers' time in the loops that ran ranges; medians over the frames. On one thread most "
         "structures run their work without loops:\n\n"
         "| structure | threads | frame ms | loops | outside loops ms | in loops ms | ranges ms | busy |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& name : names) {
    for (unsigned t : options.threads) {
      const RunResult* r = findRunOn(results, scene, n, name, t);
      if (!r || r->status != RunStatus::Ok || r->loopMs.empty()) continue;
      std::vector<double> outside, busyShare;
      for (std::size_t f = 0; f < r->frameMs.size() && f < r->loopMs.size() && f < r->loopBusyMs.size();
           ++f) {
        outside.push_back(std::max(0.0, r->frameMs[f] - r->loopMs[f]));
        if (r->loopMs[f] > 0) busyShare.push_back(r->loopBusyMs[f] / (r->loopMs[f] * double(t)));
      }
      out << "| " << structureLabel(*r) << " | " << t << " | " << readable(summarize(r->frameMs).median)
          << " | " << readable(summarize(r->loopsPerFrame).median) << " | "
          << readable(summarize(outside).median) << " | " << readable(summarize(r->loopMs).median) << " | "
          << readable(summarize(r->loopBusyMs).median) << " | "
          << (busyShare.empty() ? std::string("-") : number(100.0 * summarize(busyShare).median, 3) + "%")
          << " |\n";
    }
  }
  out << '\n';
}

// Wall-clock medians at each thread count and the speed-up over the fewest threads: what more cores buy.
// CPU time would not show it (it adds up over threads), so this table is the one place that reads wall time.
template <class Out>
void writeScaling(Out& out, const Options& options, const std::vector<RunResult>& results,
                  const std::vector<std::string>& scenes, const std::vector<std::size_t>& counts,
                  const std::vector<std::string>& names) {
  const unsigned base = options.threads.front();
  for (const std::string& scene : scenes) {
    for (std::size_t n : counts) {
      out << "Scaling, " << scene << " at " << countLabel(n)
          << " circles: wall-clock ms per frame (update + pairs), median, and the speed-up over " << base
          << (base == 1 ? " thread" : " threads")
          << (options.alternate ? " (one run per structure, its frames taking the thread counts in turn)"
                                : "")
          << ":\n\n| structure |";
      for (unsigned t : options.threads) out << ' ' << t << (t == 1 ? " thread" : " threads") << " |";
      out << "\n|---|";
      for (std::size_t i = 0; i < options.threads.size(); ++i) out << "---:|";
      out << '\n';
      const auto row = [&](const std::string& label, auto&& figure) {
        std::string cells;
        double baseValue = 0.0;
        bool any = false;
        for (unsigned t : options.threads) {
          double value = 0.0;
          if (!figure(t, value)) {
            cells += " - |";
            continue;
          }
          any = true;
          if (t == base) baseValue = value;
          cells += ' ' + readable(value);
          if (t != base && baseValue > 0 && value > 0) cells += " (" + number(baseValue / value, 3) + "x)";
          cells += " |";
        }
        if (any) out << "| " << label << " |" << cells << '\n';
      };
      for (const std::string& name : names) {
        const RunResult* first = findRunOn(results, scene, n, name, base);
        if (!first) continue;
        row(structureLabel(*first), [&](unsigned t, double& value) {
          const RunResult* r = findRunOn(results, scene, n, name, t);
          if (!r || r->status != RunStatus::Ok) return false;
          value = summarize(r->frameMs).median;
          return true;
        });
      }
      // The simulation step is the same work in every run of a thread count: the median over its runs.
      row("simulation step", [&](unsigned t, double& value) {
        std::vector<double> medians;
        for (const RunResult& r : results) {
          if (r.scene == scene && r.count == n && r.threads == t && r.status == RunStatus::Ok &&
              !r.simulateMs.empty())
            medians.push_back(summarize(r.simulateMs).median);
        }
        if (medians.empty()) return false;
        value = summarize(medians).median;
        return true;
      });
      out << '\n';
      writeLoopTimes(out, options, results, scene, n, names);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Machine
// ---------------------------------------------------------------------------------------------------------

std::string currentLoad() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (!(in >> a >> b >> c)) return "unknown";
  return number(a, 3) + " " + number(b, 3) + " " + number(c, 3);
}

MachineInfo describeMachine() {
  MachineInfo info;
  info.cpu = readFileField("/proc/cpuinfo", "model name");
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  info.cores = cores > 0 ? static_cast<unsigned>(cores) : 0;
  const std::string kib = readFileField("/proc/meminfo", "MemTotal");
  const double gib = std::strtod(kib.c_str(), nullptr) / (1024.0 * 1024.0);
  info.memory = number(gib, 3) + " GiB";
  utsname names{};
  info.system = ::uname(&names) == 0 ? std::string(names.sysname) + " " + names.release : "unknown";
#if defined(__clang__)
  info.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  info.compiler = std::string("g++ ") + __VERSION__;
#else
  info.compiler = "unknown";
#endif
#ifdef SPHERETEST_BUILD_TYPE
  info.buildType = SPHERETEST_BUILD_TYPE;
#endif
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", &utc);
  info.startedUtc = stamp;
  info.loadBefore = currentLoad();
  return info;
}

// ---------------------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------------------

// Each structure of the library (brute force aside) on the spheretest scene at 100k and 1M: a frame at least
// twice as fast as the faster peer's, within 5x of the grid's at 100k, at most 96 bytes per circle (160 for
// the replicated grid, which stores copies by design), and point, circle and ray queries faster than the
// faster peer's.
namespace {

void appendStructureTargets(const std::vector<RunResult>& results, std::vector<TargetCheck>& checks) {
  constexpr double kPeerSpeedup = 2.0, kGridFactor = 5.0;
  for (std::size_t n : {std::size_t(100000), std::size_t(1000000)}) {
    std::vector<const RunResult*> ours;
    const RunResult* peer = nullptr;
    const RunResult* grid = nullptr;
    for (const RunResult& r : results) {
      if (r.scene != "spheretest" || r.count != n || r.status != RunStatus::Ok) continue;
      if (r.peer) {
        if (!peer || frameMedian(r) < frameMedian(*peer)) peer = &r;
      } else if (r.structure != "brute") {
        ours.push_back(&r);
        if (r.structure == "grid") grid = &r;
      }
    }
    const std::string at = "spheretest at " + countLabel(n) + ": ";
    for (const RunResult* r : ours) {
      if (peer) {
        const double ratio = frameMedian(*peer) / frameMedian(*r);
        checks.push_back({at + r->structure + " " + readable(ratio) + "x faster than " + peer->structure +
                              " (target >= 2x)",
                          ratio >= kPeerSpeedup});
        const auto queryMedian = [](const std::vector<double>& ms) { return summarize(ms).median; };
        std::string slower;
        int compared = 0;
        for (const auto& [kind, mine, theirs] : {std::tuple{"point", &r->pointMs, &peer->pointMs},
                                                 std::tuple{"circle", &r->circleMs, &peer->circleMs},
                                                 std::tuple{"ray", &r->rayMs, &peer->rayMs}}) {
          if (mine->empty() || theirs->empty()) continue;
          ++compared;
          if (queryMedian(*mine) <= queryMedian(*theirs)) continue;
          slower += std::string(slower.empty() ? "" : ", ") + kind + " " +
                    readable(queryMedian(*mine) * 1e3) + " vs " + readable(queryMedian(*theirs) * 1e3) +
                    " us";
        }
        // A run without queries (--queries 0) has nothing to compare: no check, rather than a vacuous one.
        if (compared > 0)
          checks.push_back({at + r->structure + " queries " +
                                (slower.empty() ? "all faster than " + peer->structure + "'s"
                                                : "slower than " + peer->structure + "'s: " + slower),
                            slower.empty()});
      }
      if (grid && n == 100000 && r != grid) {
        const double factor = frameMedian(*r) / frameMedian(*grid);
        checks.push_back(
            {at + r->structure + " takes " + readable(factor) + "x the grid's frame (target <= 5x)",
             factor <= kGridFactor});
      }
      const double bytes = double(r->memoryBytes) / double(n);
      const double limit = r->structure == "grid-replicated" ? 160.0 : 96.0;
      checks.push_back({at + r->structure + " holds " + readable(bytes) + " bytes per circle (limit " +
                            readable(limit) + ")",
                        bytes <= limit});
    }
  }
}

}  // namespace

CopyFloor measureCopyFloor(const std::string& scene, const Simulation& sim) {
  const std::span<const ItemId> ids = sim.movedIds();
  const std::span<const Circle> circles = sim.movedCircles();
  std::vector<ItemId> idCopy(ids.size());
  std::vector<Circle> circleCopy(circles.size());
  std::vector<double> ms;
  static volatile float sink = 0.0f;  // keeps the copies from being optimised away
  for (int rep = 0; rep < 9; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(idCopy.data(), ids.data(), ids.size_bytes());
    std::memcpy(circleCopy.data(), circles.data(), circles.size_bytes());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!circleCopy.empty()) sink = sink + circleCopy[rep % circleCopy.size()].radius + float(idCopy.back());
  }
  return {scene, sim.circles().size(), summarize(ms).median};
}

std::vector<TargetCheck> checkScalingTargets(const std::vector<RunResult>& results) {
  constexpr std::size_t kHuge = 1000000;
  constexpr unsigned kMany = 16;
  const auto wallMedian = [](const RunResult& r) { return summarize(r.frameMs).median; };
  std::vector<TargetCheck> checks;
  std::vector<double> simulateOne, simulateMany;
  for (const RunResult& one : results) {
    if (one.scene != "spheretest" || one.count != kHuge || one.threads != 1 || one.status != RunStatus::Ok)
      continue;
    const RunResult* many = findRunOn(results, one.scene, one.count, one.structure, kMany);
    if (!many || many->status != RunStatus::Ok) continue;
    if (!one.simulateMs.empty() && !many->simulateMs.empty()) {
      simulateOne.push_back(summarize(one.simulateMs).median);
      simulateMany.push_back(summarize(many->simulateMs).median);
    }
    if (one.peer || one.structure == "brute") continue;
    const bool grid =
        one.structure == "grid" || one.structure == "grid-replicated" || one.structure == "hgrid";
    const double target = grid ? 8.0 : 6.0;
    const double speedup = wallMedian(one) / wallMedian(*many);
    checks.push_back({"spheretest at 1M: " + one.structure + " " + readable(speedup) + "x faster on " +
                          std::to_string(kMany) + " threads than on 1 (" + readable(wallMedian(one)) +
                          " against " + readable(wallMedian(*many)) +
                          " ms/frame, wall; target >= " + readable(target) + "x)",
                      speedup >= target});
  }
  if (!simulateOne.empty()) {
    const double one = summarize(simulateOne).median, many = summarize(simulateMany).median;
    checks.push_back({"spheretest at 1M: the simulation step " + readable(one / many) + "x faster on " +
                          std::to_string(kMany) + " threads than on 1 (" + readable(one) + " against " +
                          readable(many) + " ms; target >= 8x)",
                      one / many >= 8.0});
  }
  return checks;
}

std::vector<TargetCheck> checkTargets(const std::vector<RunResult>& results,
                                      const std::vector<CopyFloor>& floors) {
  constexpr std::size_t kLarge = 100000, kHuge = 1000000;
  constexpr double kSpeedupTarget = 10.0, kGrowthLimit = 12.0;
  std::vector<TargetCheck> checks;
  for (std::size_t n : {kLarge, kHuge}) {
    const RunResult* ours = nullptr;
    const RunResult* peer = nullptr;
    bool ran = false;
    for (const RunResult& r : results) {
      if (r.scene != "spheretest" || r.count != n) continue;
      ran = true;
      if (r.status != RunStatus::Ok) continue;
      const RunResult*& best = r.peer ? peer : ours;
      if (!best || frameMedian(r) < frameMedian(*best)) best = &r;
    }
    if (!ran) continue;
    TargetCheck check;
    if (!ours || !peer) {
      check.text = "spheretest at " + countLabel(n) + ": no " + std::string(!ours ? "structure" : "peer") +
                   " finished, so no ratio";
    } else {
      const double ratio = frameMedian(*peer) / frameMedian(*ours);
      check.passed = ratio >= kSpeedupTarget;
      check.text = "spheretest at " + countLabel(n) + ": fastest structure " + ours->structure + " " +
                   readable(frameMedian(*ours)) + " ms/frame vs faster peer " + peer->structure + " " +
                   readable(frameMedian(*peer)) + " ms/frame: " + readable(ratio) + "x (target >= 10x)";
    }
    checks.push_back(check);
  }
  appendStructureTargets(results, checks);
  for (const std::string& scene : orderedNames(results, [](const RunResult& r) { return r.scene; })) {
    for (const std::string& name : orderedNames(results, [](const RunResult& r) { return r.structure; })) {
      const RunResult* small = findRun(results, scene, kLarge, name);
      const RunResult* big = findRun(results, scene, kHuge, name);
      if (!small || !big) continue;
      TargetCheck check;
      if (small->status != RunStatus::Ok || big->status != RunStatus::Ok) {
        const RunResult& missing = small->status != RunStatus::Ok ? *small : *big;
        check.text = scene + " " + name + ": growth 100k -> 1M not measured (" + countLabel(missing.count) +
                     ": " + missing.reason + ")";
      } else {
        const double growth = frameMedian(*big) / frameMedian(*small);
        check.passed = growth <= kGrowthLimit;
        check.text = scene + " " + name + ": 100k -> 1M grows " + readable(growth) + "x (" +
                     readable(frameMedian(*small)) + " -> " + readable(frameMedian(*big)) +
                     " ms/frame; limit 12x)";
      }
      checks.push_back(check);
      // The fit-entirely quadtree's straddling items are scanned by every query that reaches their node:
      // its queries must not grow with the scene much faster than the others'.
      if (name == "fit-quadtree" && small->status == RunStatus::Ok && big->status == RunStatus::Ok) {
        std::string grown;
        bool within = true;
        for (const auto& [kind, a, b] : {std::tuple{"point", &small->pointMs, &big->pointMs},
                                         std::tuple{"circle", &small->circleMs, &big->circleMs},
                                         std::tuple{"ray", &small->rayMs, &big->rayMs}}) {
          if (a->empty() || b->empty()) continue;
          const double factor = summarize(*b).median / summarize(*a).median;
          within = within && factor <= 3.0;
          grown += std::string(grown.empty() ? "" : ", ") + kind + " " + readable(factor) + "x";
        }
        if (!grown.empty())
          checks.push_back(
              {scene + " " + name + ": queries 100k -> 1M grow " + grown + " (limit 3x)", within});
      }
    }
  }
  // After a long run every structure's frame within 1.2x of one built fresh on the same frames.
  for (const RunResult& r : results) {
    if (r.peer || r.status != RunStatus::Ok || r.freshFrameCpuMs.empty()) continue;
    const double fresh = summarize(r.freshFrameCpuMs).median;
    if (fresh <= 0.0) continue;
    const double factor = frameMedian(r) / fresh;
    checks.push_back({r.scene + " at " + countLabel(r.count) + ": " + structureLabel(r) +
                          " after the long run " + readable(frameMedian(r)) + " ms/frame, " +
                          readable(factor) + "x one built fresh (" + readable(fresh) +
                          " ms/frame on the same frames; limit 1.2x)",
                      factor <= 1.2});
  }
  for (const CopyFloor& floor : floors) {
    const RunResult* grid = findRun(results, floor.scene, floor.count, "grid");
    if (floor.scene != "spheretest" || floor.count != kHuge || !grid || grid->status != RunStatus::Ok ||
        floor.ms <= 0.0)
      continue;
    const double factor = frameMedian(*grid) / floor.ms;
    checks.push_back({floor.scene + " at " + countLabel(floor.count) + ": grid " +
                          readable(frameMedian(*grid)) + " ms/frame is " + readable(factor) +
                          "x the copy floor (" + readable(floor.ms) +
                          " ms to copy the frame's moved ids and circles once; target <= 12x)",
                      factor <= 12.0});
  }
  return checks;
}

// ---------------------------------------------------------------------------------------------------------
// CSV and JSON
// ---------------------------------------------------------------------------------------------------------

void writeCsv(const std::string& path, const std::vector<RunResult>& results) {
  WholeFile out(path);
  out << "scene,count,structure,peer,status,reason,frames,build_ms_median,build_ms_p95,update_ms_median,"
         "update_ms_p95,pairs_ms_median,pairs_ms_p95,frame_ms_median,frame_ms_p95,point_ms_median,point_ms_"
         "p95,"
         "circle_ms_median,circle_ms_p95,ray_ms_median,ray_ms_p95,build_cpu_ms_median,build_cpu_ms_p95,"
         "update_cpu_ms_median,update_cpu_ms_p95,pairs_cpu_ms_median,pairs_cpu_ms_p95,frame_cpu_ms_median,"
         "frame_cpu_ms_p95,pairs_last_frame,candidates_per_frame,"
         "memory_bytes,bytes_per_circle,peak_rss_bytes,peak_above_baseline_bytes,nodes,max_depth,agrees,"
         "pairs_checksum,query_checksum,wall_s,threads,simulate_ms_median,simulate_ms_p95,"
         "exact_tests_per_frame,fresh_frame_cpu_ms_median\n";
  for (const RunResult& r : results) {
    out << r.scene << ',' << r.count << ',' << r.structure << ',' << (r.peer ? 1 : 0) << ','
        << statusName(r.status) << ',' << csvField(r.reason) << ',' << r.frameMs.size();
    for (const auto* samples : {&r.buildMs, &r.updateMs, &r.pairsMs, &r.frameMs, &r.pointMs, &r.circleMs,
                                &r.rayMs, &r.buildCpuMs, &r.updateCpuMs, &r.pairsCpuMs, &r.frameCpuMs}) {
      const Stat s = summarize(*samples);
      out << ',' << number(s.median) << ',' << number(s.p95);
    }
    out << ',' << number(r.pairsLastFrame) << ',' << number(r.candidatesPerFrame) << ',' << r.memoryBytes
        << ',' << number(r.count ? double(r.memoryBytes) / double(r.count) : 0.0, 6) << ',' << r.peakRssBytes
        << ',' << r.peakAboveBaselineBytes << ',' << r.nodes << ',' << r.maxDepth << ','
        << (r.agrees ? (*r.agrees ? "yes" : "NO") : "n/a") << ',' << r.pairsChecksum << ',' << r.queryChecksum
        << ',' << number(r.wallSeconds, 4) << ',' << r.threads << ','
        << number(summarize(r.simulateMs).median) << ',' << number(summarize(r.simulateMs).p95) << ','
        << number(r.exactTestsPerFrame) << ','
        << (r.freshFrameCpuMs.empty() ? std::string() : number(summarize(r.freshFrameCpuMs).median)) << '\n';
  }
  out.commit();
}

void writeJson(const std::string& path, const MachineInfo& machine, const Options& options,
               const std::vector<RunResult>& results, const std::vector<TargetCheck>& targets) {
  WholeFile out(path);
  out << "{\n  \"machine\": {\"cpu\": " << jsonString(machine.cpu) << ", \"cores\": " << machine.cores
      << ", \"memory\": " << jsonString(machine.memory) << ", \"system\": " << jsonString(machine.system)
      << ", \"compiler\": " << jsonString(machine.compiler)
      << ", \"build_type\": " << jsonString(machine.buildType)
      << ", \"started\": " << jsonString(machine.startedUtc)
      << ", \"load_before\": " << jsonString(machine.loadBefore)
      << ", \"load_after\": " << jsonString(machine.loadAfter) << "},\n";
  out << "  \"command\": " << jsonString(options.commandLine) << ",\n";
  out << "  \"config\": {\"frames\": " << options.frames << ", \"steady\": " << options.steady
      << ", \"settle\": " << options.settle << ", \"warmup\": " << options.warmup << ", \"threads\": ["
      << joinThreads(options.threads) << "], \"alternate\": " << (options.alternate ? "true" : "false")
      << ", \"queries\": " << options.queries << ", \"query_size\": " << number(options.querySize)
      << ", \"time_cap_s\": " << number(options.timeCapSeconds) << ", \"seed\": " << options.seed << "},\n";
  out << "  \"targets\": [";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    out << (i ? ",\n    " : "\n    ") << "{\"text\": " << jsonString(targets[i].text)
        << ", \"passed\": " << (targets[i].passed ? "true" : "false") << "}";
  }
  out << "\n  ],\n  \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& r = results[i];
    out << (i ? ",\n    {" : "\n    {") << "\"scene\": " << jsonString(r.scene) << ", \"count\": " << r.count
        << ", \"structure\": " << jsonString(r.structure) << ", \"peer\": " << (r.peer ? "true" : "false")
        << ", \"status\": " << jsonString(statusName(r.status)) << ", \"reason\": " << jsonString(r.reason)
        << ", \"threads\": " << r.threads << ", \"frames\": " << r.frameMs.size();
    const std::pair<const char*, const std::vector<double>*> series[] = {
        {"build_ms", &r.buildMs},
        {"update_ms", &r.updateMs},
        {"pairs_ms", &r.pairsMs},
        {"frame_ms", &r.frameMs},
        {"point_ms", &r.pointMs},
        {"circle_ms", &r.circleMs},
        {"ray_ms", &r.rayMs},
        {"build_cpu_ms", &r.buildCpuMs},
        {"update_cpu_ms", &r.updateCpuMs},
        {"pairs_cpu_ms", &r.pairsCpuMs},
        {"frame_cpu_ms", &r.frameCpuMs},
        {"simulate_ms", &r.simulateMs},
        {"fresh_frame_ms", &r.freshFrameMs},
        {"fresh_frame_cpu_ms", &r.freshFrameCpuMs},
        {"loops_per_frame", &r.loopsPerFrame},
        {"loop_ms", &r.loopMs},
        {"loop_busy_ms", &r.loopBusyMs}};
    for (const auto& [name, samples] : series) {
      // The long run's and the alternating run's own figures appear only in such runs.
      const std::string_view key(name);
      const bool optional = key.starts_with("fresh_") || key.starts_with("loop");
      if (samples->empty() && optional) continue;
      const Stat s = summarize(*samples);
      out << ", \"" << name << "\": {\"median\": " << number(s.median) << ", \"p95\": " << number(s.p95)
          << "}";
    }
    out << ", \"pairs_last_frame\": " << number(r.pairsLastFrame)
        << ", \"candidates_per_frame\": " << number(r.candidatesPerFrame)
        << ", \"exact_tests_per_frame\": " << number(r.exactTestsPerFrame)
        << ", \"memory_bytes\": " << r.memoryBytes
        << ", \"bytes_per_circle\": " << number(r.count ? double(r.memoryBytes) / double(r.count) : 0.0, 6)
        << ", \"peak_rss_bytes\": " << r.peakRssBytes
        << ", \"peak_above_baseline_bytes\": " << r.peakAboveBaselineBytes << ", \"nodes\": " << r.nodes
        << ", \"max_depth\": " << r.maxDepth
        << ", \"agrees\": " << (r.agrees ? (*r.agrees ? "true" : "false") : "null")
        << ", \"pairs_checksum\": \"" << r.pairsChecksum << "\", \"query_checksum\": \"" << r.queryChecksum
        << "\", \"wall_s\": " << number(r.wallSeconds, 4) << ", \"extra\": {";
    for (std::size_t k = 0; k < r.extra.size(); ++k) {
      out << (k ? ", " : "") << jsonString(r.extra[k].first) << ": " << number(r.extra[k].second);
    }
    out << "}}";
  }
  out << "\n  ]\n}\n";
  out.commit();
}

// ---------------------------------------------------------------------------------------------------------
// Markdown summary
// ---------------------------------------------------------------------------------------------------------

void writeSummary(const std::string& path, const MachineInfo& machine, const Options& options,
                  const std::vector<RunResult>& results, const std::vector<TargetCheck>& targets) {
  WholeFile out(path);
  out << "Measured on " << machine.cpu << " (" << machine.cores << " cores), " << machine.memory << ", "
      << machine.system << ", " << machine.compiler << ", " << machine.buildType << " build, started "
      << machine.startedUtc << "; load average " << machine.loadBefore << " at the start, "
      << machine.loadAfter << " at the end.\n\n";
  out << "Command: `" << options.commandLine << "`\n\n";
  const std::vector<std::size_t> counts = orderedCounts(results);
  const std::vector<std::string> scenes = orderedNames(results, [](const RunResult& r) { return r.scene; });
  const std::vector<std::string> names =
      orderedNames(results, [](const RunResult& r) { return r.structure; });

  out << "ms per frame (update of the moved circles + maintain + all pairs; CPU time of the measuring "
         "thread), "
         "median (p95) over "
      << options.frames << " frames on " << options.threads.front()
      << (options.threads.front() == 1 ? " thread" : " threads");
  if (options.steady > 0)
    out << ", after each structure lived through " << options.steady << " frames (its steady state)";
  out << "; `-` not run, `skip` skipped (reasons below):\n\n";
  for (const std::string& scene : scenes) {
    out << "| " << scene << " |";
    for (std::size_t n : counts) out << ' ' << countLabel(n) << " |";
    out << "\n|---|";
    for (std::size_t i = 0; i < counts.size(); ++i) out << "---:|";
    out << '\n';
    for (const std::string& name : names) {
      const RunResult* any = nullptr;
      std::string row;
      for (std::size_t n : counts) {
        const RunResult* r = findRun(results, scene, n, name);
        if (r) any = r;
        if (!r)
          row += " - |";
        else if (r->status != RunStatus::Ok)
          row += r->status == RunStatus::Skipped ? " skip |" : " FAILED |";
        else {
          const Stat s = summarize(r->frameCpuMs);
          row += ' ' + readable(s.median) + " (" + readable(s.p95) + ")" +
                 (r->agrees == false ? " DISAGREES" : "") + " |";
        }
      }
      if (any) out << "| " << structureLabel(*any) << " |" << row << '\n';
    }
    out << '\n';
  }

  // The detail tables: every measured figure at the two largest counts of the first scene.
  if (!scenes.empty()) {
    std::vector<std::size_t> detailCounts;
    for (std::size_t i = counts.size() >= 2 ? counts.size() - 2 : 0; i < counts.size(); ++i)
      detailCounts.push_back(counts[i]);
    for (std::size_t n : detailCounts) {
      out << "Every figure, " << scenes.front() << " at " << countLabel(n)
          << " circles (build, update and pairs: CPU ms, median / p95; queries: wall-clock microseconds per "
             "query, "
             "median / p95):\n\n"
          << "| structure | build ms | update ms | pairs ms | point us | circle us | ray us | bytes/circle | "
             "peak MB | pairs examined/frame | exact tests/frame |\n"
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
      for (const std::string& name : names) {
        const RunResult* r = findRun(results, scenes.front(), n, name);
        if (!r) continue;
        out << "| " << structureLabel(*r) << " |";
        if (r->status != RunStatus::Ok) {
          out << ' ' << statusName(r->status) << " | | | | | | | | | |\n";
          continue;
        }
        auto pair = [](const std::vector<double>& samples, double scale) {
          const Stat s = summarize(samples);
          return readable(s.median * scale) + " / " + readable(s.p95 * scale);
        };
        out << ' ' << readable(summarize(r->buildCpuMs).median) << " | " << pair(r->updateCpuMs, 1) << " | "
            << pair(r->pairsCpuMs, 1) << " | " << pair(r->pointMs, 1000) << " | " << pair(r->circleMs, 1000)
            << " | " << pair(r->rayMs, 1000) << " | " << readable(double(r->memoryBytes) / double(r->count))
            << " | " << readable(double(r->peakAboveBaselineBytes) / (1024.0 * 1024.0)) << " | "
            << readable(r->candidatesPerFrame) << " | " << readable(r->exactTestsPerFrame) << " |\n";
      }
      out << '\n';
    }
  }

  if (options.threads.size() > 1) writeScaling(out, options, results, scenes, counts, names);

  out << "Targets:\n\n";
  for (const TargetCheck& check : targets)
    out << "- " << (check.passed ? "met: " : "NOT met: ") << check.text << '\n';
  if (targets.empty()) out << "- (no run at 100k or 1M circles)\n";
  bool anySkipped = false;
  for (const RunResult& r : results) {
    if (r.status == RunStatus::Ok) continue;
    if (!anySkipped) out << "\nSkipped or failed runs:\n\n";
    anySkipped = true;
    out << "- " << r.scene << ' ' << countLabel(r.count) << ' ' << r.structure << ": " << statusName(r.status)
        << ", " << r.reason << '\n';
  }
  out.commit();
}

// ---------------------------------------------------------------------------------------------------------
// Plot
// ---------------------------------------------------------------------------------------------------------

std::string writePlot(const std::string& dir, const std::vector<RunResult>& results, PlotMode mode) {
  static const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79", "#637939"};
  const std::vector<std::string> scenes = orderedNames(results, [](const RunResult& r) { return r.scene; });
  const std::vector<std::string> names =
      orderedNames(results, [](const RunResult& r) { return r.structure; });
  const std::string script = dir + "/frame_ms.gp";
  {
    WholeFile out(script);
    out << "# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot "
           "frame_ms.gp\n"
        << "set terminal pngcairo size " << 560 * std::max<std::size_t>(1, scenes.size())
        << ",620 font 'Sans,10'\n"
        << "set output 'frame_ms.png'\n"
        << "set multiplot layout 1," << std::max<std::size_t>(1, scenes.size())
        // Two lines: one would run past the edges of a single scene's panel.
        << " title \"ms per frame: update of the moved circles + all pairs\\nCPU time, median; dashed: peers\"\n"
        << "set logscale xy\nset grid\nset xlabel 'circles'\nset ylabel 'CPU ms per frame'\n"
        << "set format x '%.0s%c'\nset key top left font ',8'\nset xrange [*:*]\n";
    for (std::size_t s = 0; s < scenes.size(); ++s) {
      std::vector<std::string> plots;
      for (std::size_t k = 0; k < names.size(); ++k) {
        std::ostringstream block;
        bool peer = false;
        int points = 0;
        for (const RunResult& r : results) {
          if (r.scene != scenes[s] || r.structure != names[k] || r.status != RunStatus::Ok) continue;
          block << r.count << ' ' << number(frameMedian(r)) << '\n';
          peer = r.peer;
          ++points;
        }
        if (points == 0) continue;
        const std::string var = "$d" + std::to_string(s) + "_" + std::to_string(k);
        out << var << " << EOD\n" << block.str() << "EOD\n";
        plots.push_back(var + " using 1:2 with linespoints lw 2 pt " + (peer ? "6" : "7") + " dt " +
                        (peer ? "2" : "1") + " lc rgb '" + kColours[k % std::size(kColours)] + "' title '" +
                        names[k] + "'");
      }
      out << "set title '" << scenes[s] << "'\n";
      if (plots.empty()) {
        out << "plot 1/0 notitle\n";
        continue;
      }
      out << "plot ";
      for (std::size_t i = 0; i < plots.size(); ++i) out << (i ? ", \\\n     " : "") << plots[i];
      out << '\n';
    }
    out << "unset multiplot\n";
    out.commit();
  }
  if (mode == PlotMode::Off) return "plot script " + script + " (not drawn: --plot off)";
  const bool haveGnuplot = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  if (!haveGnuplot) {
    if (mode == PlotMode::On)
      throw std::runtime_error("--plot on: gnuplot is not installed (Debian: gnuplot-nox)");
    return "plot script " + script + " (not drawn: gnuplot is not installed)";
  }
  std::string quotedDir = "'";
  for (char c : dir) quotedDir += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quotedDir += "'";
  if (std::system(("cd " + quotedDir + " && gnuplot frame_ms.gp").c_str()) != 0) {
    throw std::runtime_error("gnuplot failed on " + script);
  }
  return "plot " + dir + "/frame_ms.png";
}

}  // namespace st::bench
