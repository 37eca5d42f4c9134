// spheretest-bench: every registered structure and the peers on identical simulation frames and queries.
// Each (scene, count) is generated and warmed up once; every structure then runs in a child process forked
// from that state, so all of them see the same frames, and a slow, crashing or memory-hungry structure only
// loses its own run. Runs that would exceed the time cap are skipped with a reason.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "measure.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "spheretest/agreement.hpp"
#include "spheretest/peers.hpp"
#include "spheretest/registry.hpp"

namespace st::bench {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::vector<const StructureInfo*> selectStructures(const StructureRegistry& registry,
                                                   const Options& options) {
  for (const auto* list : {&options.structures, &options.skipped}) {
    for (const std::string& name : *list) {
      if (!registry.find(name))
        throw InvalidInput("unknown structure '" + name + "'; valid: " + registry.names());
    }
  }
  std::vector<const StructureInfo*> selected;
  for (const StructureInfo& info : registry.all()) {
    const bool wanted = options.structures.empty() ||
                        std::find(options.structures.begin(), options.structures.end(), info.name) !=
                            options.structures.end();
    const bool skipped =
        std::find(options.skipped.begin(), options.skipped.end(), info.name) != options.skipped.end();
    if (wanted && !skipped) selected.push_back(&info);
  }
  if (selected.empty()) throw InvalidInput("--structures/--skip leave no structure to run");
  return selected;
}

// Rejects a --set for an unknown structure or parameter before anything runs.
void checkStructureParams(const StructureRegistry& registry, const Options& options) {
  for (const auto& [key, value] : options.structureParams) {
    const std::string owner = key.substr(0, key.find('.'));
    if (!registry.find(owner))
      throw InvalidInput("--set " + key + ": unknown structure '" + owner + "'; valid: " + registry.names());
    registry.create(owner)->setParam(key.substr(key.find('.') + 1), value);
  }
}

// A run is skipped without starting when the same structure already failed at a smaller count, or when its
// memory or its frames, extrapolated from the smaller counts, would not fit in the caps.
std::optional<std::string> predictSkip(const std::vector<RunResult>& results, const std::string& scene,
                                       std::size_t count, const std::string& name, unsigned threads,
                                       const Options& options, int turns) {
  std::vector<const RunResult*> earlier;
  for (const RunResult& r : results) {
    if (r.scene == scene && r.structure == name && r.threads == threads && r.count < count)
      earlier.push_back(&r);
  }
  if (earlier.empty()) return std::nullopt;
  std::sort(earlier.begin(), earlier.end(),
            [](const RunResult* a, const RunResult* b) { return a->count < b->count; });
  const RunResult& last = *earlier.back();
  if (last.status != RunStatus::Ok) {
    return "not started: it was " + std::string(last.status == RunStatus::Skipped ? "skipped" : "failed") +
           " at " + std::to_string(last.count) + " circles";
  }
  // CPU times, as the cap counts them.
  const double lastFrame = summarize(last.frameCpuMs).median;
  double exponent = 1.0;
  if (earlier.size() >= 2 && earlier[earlier.size() - 2]->status == RunStatus::Ok) {
    const RunResult& before = *earlier[earlier.size() - 2];
    const double beforeFrame = summarize(before.frameCpuMs).median;
    if (beforeFrame > 0 && lastFrame > 0) {
      exponent = std::log(lastFrame / beforeFrame) / std::log(double(last.count) / double(before.count));
      exponent = std::clamp(exponent, 1.0, 2.5);
    }
  }
  const double scale = double(count) / double(last.count);
  const double peakGiB = double(last.peakAboveBaselineBytes) * scale / (1024.0 * 1024.0 * 1024.0);
  if (options.memoryCapGiB > 0 && peakGiB > options.memoryCapGiB) {
    std::ostringstream s;
    s << "not started: predicted ~" << fixed(peakGiB, 1) << " GiB peak memory ("
      << fixed(double(last.peakAboveBaselineBytes) / 1048576.0, 0) << " MiB at " << last.count
      << " circles), over the " << fixed(options.memoryCapGiB, 1) << " GiB memory cap";
    return s.str();
  }
  const double frameMs = lastFrame * std::pow(scale, exponent);
  const double buildMs = summarize(last.buildCpuMs).median * scale;
  // A long run's frames are whole frames; after them a structure built fresh runs the timed frames again.
  const int frames =
      (options.frames + options.settle) * turns * (options.steady > 0 ? 2 : 1) + options.steady;
  const double seconds = (frameMs * frames + buildMs + std::min(2 * buildMs, 1000.0)) / 1000.0;
  if (seconds <= options.timeCapSeconds) return std::nullopt;
  std::ostringstream s;
  s << "not started: predicted ~" << fixed(seconds, 0) << " CPU s for the build and " << frames
    << " frames (~" << fixed(frameMs, 0) << " ms/frame from " << fixed(lastFrame, 2) << " ms at "
    << last.count << " circles, growth exponent " << fixed(exponent, 2) << "), over the "
    << fixed(options.timeCapSeconds, 0) << " s CPU time cap";
  return s.str();
}

// Runs are judged by the headless runner's rule (spheretest/agreement.hpp) on their (pairs, queries)
// answers: a run that matches with too few to check against is left unchecked (agrees empty), and runs that
// differ with nothing to settle which is right are all marked as disagreeing. Returns what the runs were
// checked against, for the report.
std::string markAgreement(std::vector<RunResult>& results, std::size_t first) {
  std::vector<RunResult*> ran;
  std::vector<std::uint64_t> answers;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> distinct;  // (pairs, queries) -> answer
  std::optional<std::size_t> brute;
  for (std::size_t i = first; i < results.size(); ++i) {
    RunResult& r = results[i];
    if (r.status != RunStatus::Ok) continue;
    if (r.structure == "brute") brute = ran.size();
    ran.push_back(&r);
    answers.push_back(
        distinct.try_emplace({r.pairsChecksum, r.queryChecksum}, distinct.size()).first->second);
  }
  const std::vector<Judgement> judged = judgeAnswers(answers, brute);
  for (std::size_t k = 0; k < ran.size(); ++k) {
    switch (judged[k].verdict) {
      case Verdict::Agrees:
      case Verdict::Reference:
        ran[k]->agrees = true;
        break;
      case Verdict::Disagrees:
      case Verdict::Disputed:
        ran[k]->agrees = false;
        break;
      case Verdict::Unchecked:
        ran[k]->agrees = std::nullopt;
        break;
    }
  }
  const std::size_t others = ran.empty() ? 0 : ran.size() - 1;
  if (brute) return "brute";
  return others >= 3 ? "the majority of the other runs"
                     : "another run, with nothing to settle which is right";
}

// "2 threads", or "1 and 2 threads, frames alternating".
std::string describeThreads(const std::vector<unsigned>& counts, bool alternate) {
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i)
    text += (i == 0 ? "" : i + 1 == counts.size() ? " and " : ", ") + std::to_string(counts[i]);
  text += counts.size() == 1 && counts[0] == 1 ? " thread" : " threads";
  return alternate ? text + ", frames alternating" : text;
}

void printRun(const RunResult& r) {
  std::printf("%-14s %8zu  %-22s %2ut ", r.scene.c_str(), r.count, r.structure.c_str(), r.threads);
  if (r.status != RunStatus::Ok) {
    std::printf("%s: %s\n", r.status == RunStatus::Skipped ? "skipped" : "FAILED", r.reason.c_str());
  } else {
    const Stat frame = summarize(r.frameCpuMs);
    std::printf(
        "cpu ms: frame %9s (p95 %9s) update %9s pairs %9s build %9s; wall frame %9s; %6s B/circle; %5.1f s\n",
        fixed(frame.median, 3).c_str(), fixed(frame.p95, 3).c_str(),
        fixed(summarize(r.updateCpuMs).median, 3).c_str(), fixed(summarize(r.pairsCpuMs).median, 3).c_str(),
        fixed(summarize(r.buildCpuMs).median, 1).c_str(), fixed(summarize(r.frameMs).median, 3).c_str(),
        fixed(double(r.memoryBytes) / double(r.count), 1).c_str(), r.wallSeconds);
  }
  std::fflush(stdout);
}

int run(const Options& options) {
  StructureRegistry registry = StructureRegistry::withCoreStructures();
  registerPeerStructures(registry);
  if (options.list) {
    for (const StructureInfo& info : registry.all()) {
      std::printf("%-22s %s%s\n", info.name.c_str(), info.peer ? "(peer) " : "", info.summary.c_str());
    }
    return 0;
  }
  const std::vector<const StructureInfo*> selected = selectStructures(registry, options);
  checkStructureParams(registry, options);
  std::filesystem::create_directories(options.outDir);

  MachineInfo machine = describeMachine();
  std::printf("spheretest-bench: %zu structures, scenes", selected.size());
  for (const std::string& scene : options.scenes) std::printf(" %s", scene.c_str());
  std::printf("; %s, %u cores, load %s\n", machine.cpu.c_str(), machine.cores, machine.loadBefore.c_str());

  RunPlan plan;
  plan.frames = options.frames;
  plan.settle = options.settle;
  plan.steady = options.steady;
  plan.timeCapSeconds = options.timeCapSeconds;
  plan.memoryCapGiB = options.memoryCapGiB;
  plan.params = options.structureParams;

  std::vector<std::size_t> counts = options.counts;
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  std::vector<RunResult> results;
  std::vector<CopyFloor> floors;
  // Each run prints its line when done; on a terminal a bar also shows the run under way and the time left.
  const bool terminal = app::ProgressLine::stderrIsTerminal();
  app::ProgressLine progress(std::cerr, terminal, "spheretest-bench");
  const std::size_t totalRuns =
      options.scenes.size() * counts.size() * options.threads.size() * selected.size();
  for (const std::string& scene : options.scenes) {
    for (std::size_t count : counts) {
      Simulation sim(scene, options.scene, count, options.seed);
      for (int i = 0; i < options.warmup; ++i) sim.step();
      const QuerySet queries = makeQuerySet(sim, options.queries, options.querySize, options.seed);
      floors.push_back(measureCopyFloor(scene, sim));
      const std::size_t first = results.size();
      // The thread counts each run covers: all of them in one run when alternating, else one per run.
      std::vector<std::vector<unsigned>> runCounts;
      if (options.alternate)
        runCounts.push_back(options.threads);
      else
        for (const unsigned threads : options.threads) runCounts.push_back({threads});
      for (const std::vector<unsigned>& covered : runCounts) {
        plan.threads = covered.front();
        plan.alternate = covered.size() > 1 ? covered : std::vector<unsigned>{};
        for (const StructureInfo* info : selected) {
          std::vector<RunResult> runs;
          if (std::optional<std::string> reason = predictSkip(
                  results, scene, count, info->name, covered.front(), options, int(covered.size()))) {
            for (const unsigned t : covered) {
              RunResult skipped;
              skipped.scene = scene;
              skipped.count = count;
              skipped.structure = info->name;
              skipped.peer = info->peer;
              skipped.threads = t;
              skipped.status = RunStatus::Skipped;
              skipped.reason = *reason;
              runs.push_back(std::move(skipped));
            }
          } else {
            if (terminal) {
              progress.update(results.size(), totalRuns,
                              std::string("run ") + std::to_string(results.size() + 1) + "/" +
                                  std::to_string(totalRuns) + ": " + scene + " " + std::to_string(count) +
                                  " " + info->name + " on " + describeThreads(covered, options.alternate));
            }
            runs = runIsolated(*info, sim, queries, plan);
          }
          progress.finish();
          for (RunResult& result : runs) {
            printRun(result);
            results.push_back(std::move(result));
          }
        }
      }
      const std::string reference = markAgreement(results, first);
      for (std::size_t i = first; i < results.size(); ++i) {
        if (results[i].agrees == false) {
          std::printf("  DISAGREES: %s found other pairs or query answers than %s\n",
                      results[i].structure.c_str(), reference.c_str());
        }
      }
    }
  }
  machine.loadAfter = currentLoad();

  // The structure targets compare single structures, so they read the runs at the fewest threads.
  std::vector<RunResult> fewest;
  for (const RunResult& r : results) {
    if (r.threads == options.threads.front()) fewest.push_back(r);
  }
  std::vector<TargetCheck> targets = checkTargets(fewest, floors);
  for (TargetCheck& check : checkScalingTargets(results)) targets.push_back(std::move(check));
  const std::string dir = options.outDir;
  writeCsv(dir + "/results.csv", results);
  writeJson(dir + "/results.json", machine, options, results, targets);
  writeSummary(dir + "/summary.md", machine, options, results, targets);
  const std::string plotted = writePlot(dir, results, options.plot);
  std::printf("\nwrote %s/results.csv, results.json, summary.md; %s\n", dir.c_str(), plotted.c_str());
  for (const TargetCheck& check : targets)
    std::printf("%s %s\n", check.passed ? "met:    " : "NOT met:", check.text.c_str());

  bool disagreed = false, failed = false;
  for (const RunResult& r : results) {
    disagreed |= r.agrees == false;
    failed |= r.status == RunStatus::Failed;
  }
  if (disagreed) return 3;
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace st::bench

int main(int argc, char** argv) {
  try {
    const std::optional<st::bench::Options> options = st::bench::parseOptions(argc, argv);
    if (!options) {
      std::cout << st::bench::usage();
      return 0;
    }
    return st::bench::run(*options);
  } catch (const st::InvalidInput& e) {
    std::cerr << "spheretest-bench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "spheretest-bench: " << e.what() << "\n";
    return 1;
  }
}
