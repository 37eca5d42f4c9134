#include "measure.hpp"

#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "loop_profile.hpp"
#include "spheretest/frame.hpp"
#include "spheretest/frame_runner.hpp"
#include "spheretest/hash.hpp"
#include "spheretest/rng.hpp"
#include "spheretest/tasks.hpp"

namespace st::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Order-independent hash of one query's ids.
std::uint64_t hashIds(const std::vector<ItemId>& ids) {
  std::uint64_t sum = 0;
  for (ItemId id : ids) sum += mix64(id + 1);
  return mix64(sum ^ mix64(ids.size()));
}

// Ray hits come sorted by rayHitLess, so their order is part of the answer.
std::uint64_t hashHits(const std::vector<RayHit>& hits) {
  std::uint64_t h = mix64(hits.size());
  for (const RayHit& hit : hits) {
    std::uint32_t tBits;
    std::memcpy(&tBits, &hit.t, sizeof tBits);
    h = mix64(h ^ ((std::uint64_t(hit.id) << 32) | tBits));
  }
  return h;
}

// A /proc/self/status field in bytes (VmRSS, VmHWM), 0 when unavailable.
std::size_t procStatusBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t length = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, length, field) == 0 && line.size() > length && line[length] == ':') {
      return static_cast<std::size_t>(std::strtoull(line.c_str() + length + 1, nullptr, 10)) * 1024;
    }
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------------
// Child side: measure and write "key values..." lines to the pipe
// ---------------------------------------------------------------------------------------------------------

class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}

  void line(const std::string& text) {
    std::string out = text + "\n";
    const char* data = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      const ssize_t written = ::write(fd_, data, left);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) return;  // the parent is gone; nothing left to tell
      data += written;
      left -= static_cast<std::size_t>(written);
    }
  }

  void samples(const std::string& key, const std::vector<double>& values) {
    std::ostringstream s;
    s.precision(9);
    s << key;
    for (double v : values) s << ' ' << v;
    line(s.str());
  }

 private:
  int fd_;
};

void measureInChild(const StructureInfo& info, Simulation& sim, const QuerySet& queries, const RunPlan& plan,
                    Reporter& report) {
  const std::vector<Item> items = sim.items();
  // Peak memory is measured from here: the structure, its build and its frames, not the scene.
  { std::ofstream("/proc/self/clear_refs") << "5"; }
  const std::size_t baseline = procStatusBytes("VmRSS");

  report.line("phase build");
  // Threads start here, in the child: a process forked while threads run keeps only the forking one. When
  // alternating, the timed frames take the thread counts in turn (each its own pool), so that on a shared
  // machine every count meets the same moments; the build and the steady frames run on the first.
  const std::vector<unsigned> turns =
      plan.alternate.empty() ? std::vector<unsigned>{plan.threads} : plan.alternate;
  std::vector<std::unique_ptr<ThreadPool>> pools;
  for (const unsigned threads : turns) pools.push_back(std::make_unique<ThreadPool>(threads));
  ThreadPool& pool = *pools.front();
  sim.setScheduler(&pool);
  // The structure with this run's parameters, its pool and the scene's world as its hint, unbuilt.
  const auto configured = [&] {
    std::unique_ptr<SpatialIndex> made = info.create();
    made->setScheduler(&pool);
    for (const auto& [key, value] : plan.params) {
      const std::size_t dot = key.find('.');
      if (key.substr(0, dot) == info.name) made->setParam(key.substr(dot + 1), value);
    }
    made->setWorldHint(sim.world());
    return made;
  };
  std::unique_ptr<SpatialIndex> index = configured();
  std::vector<double> buildMs, buildCpuMs;
  double buildTotal = 0.0;
  // Up to three builds within about a second; the last one is the structure the frames run on.
  do {
    const double cpu0 = threadCpuMs();
    const auto t0 = Clock::now();
    index->build(items);
    buildMs.push_back(msBetween(t0, Clock::now()));
    buildCpuMs.push_back(threadCpuMs() - cpu0);
    buildTotal += buildMs.back();
  } while (buildMs.size() < 3 && buildTotal < 1000.0);
  report.samples("build_ms", buildMs);
  report.samples("build_cpu_ms", buildCpuMs);

  // From here the frame runner drives it, as it drives every program's structures.
  FrameRunner runner(sim);
  runner.addBuilt(info.name, std::move(index));
  FrameTrack& track = runner.track(0);

  // The structure's steady state: it lives through these frames as in a long run of play, pair search
  // included.
  report.line("phase steady");
  for (int frame = 0; frame < plan.steady; ++frame) runner.step(true);
  // The checksum covers the timed frames alone, as without a long run, and as the fresh replay's does.
  track.pairsChecksum = 0;
  track.frameHashes.clear();

  // After a long run, a structure built fresh from the circles as they are now goes through the same
  // frames once everything else is measured (on a copy of the simulation kept from here, with the same
  // thread counts frame by frame): the ratio of the two frame times is what the long run cost, with the
  // scene's own change over the run taken out. Run after the rest, it leaves the long-lived structure's own
  // frames, queries and memory as they are without it.
  std::optional<Simulation> freshSim;
  if (plan.steady > 0) freshSim.emplace(sim);
  std::vector<std::size_t> turnTaken;  // the thread count of each frame, for the fresh structure's replay

  report.line("phase frames");
  struct FrameSamples {
    std::vector<double> update, pairs, frame, updateCpu, pairsCpu, frameCpu, candidates, exact, simulate;
    std::vector<double> loops, loopMs, busyMs;
  };
  std::vector<FrameSamples> samples(turns.size());
  const int frames = (plan.settle + plan.frames) * int(turns.size());
  // Each block of as many frames as there are counts gives every count one frame, in a shuffled order: a
  // fixed order would line each count up with any rhythm of the structure's own (an AABB tree's escapes
  // come in alternate frames, for one), and the same seed gives the same order in every run.
  std::vector<std::size_t> order(turns.size());
  Rng shuffle(0x5eed0f7u);
  // An alternating run also says where each count's frames spend their time: every parallel loop of the
  // structure's update and pair search is timed (the simulation steps on the plain pool).
  std::vector<std::unique_ptr<LoopProfiler>> profilers;
  if (!plan.alternate.empty()) {
    for (const auto& turnPool : pools) profilers.push_back(std::make_unique<LoopProfiler>(*turnPool));
  }
  for (int frame = 0; frame < frames; ++frame) {
    if (std::size_t(frame) % turns.size() == 0) {
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.below(i)]);
    }
    const std::size_t turn = order[std::size_t(frame) % turns.size()];
    turnTaken.push_back(turn);
    LoopProfiler* profiler = profilers.empty() ? nullptr : profilers[turn].get();
    runner.setScheduler(pools[turn].get());
    if (profiler) {
      track.index->setScheduler(profiler);
      profiler->reset();
    }
    runner.step(true);
    if (frame < plan.settle * int(turns.size())) continue;
    const FrameResult& result = track.last;
    FrameSamples& mine = samples[turn];
    if (profiler) {
      mine.loops.push_back(double(profiler->loops()));
      mine.loopMs.push_back(profiler->loopMs());
      mine.busyMs.push_back(profiler->busyMs());
    }
    mine.simulate.push_back(runner.lastSimulateMs());
    mine.update.push_back(result.updateMs);
    mine.pairs.push_back(result.pairsMs);
    mine.frame.push_back(result.updateMs + result.pairsMs);
    mine.updateCpu.push_back(result.updateCpuMs);
    mine.pairsCpu.push_back(result.pairsCpuMs);
    mine.frameCpu.push_back(result.updateCpuMs + result.pairsCpuMs);
    mine.candidates.push_back(static_cast<double>(result.pairs.candidates));
    mine.exact.push_back(static_cast<double>(result.pairs.exactTests));
    report.line("frame " + std::to_string((frame - plan.settle * int(turns.size())) / int(turns.size()) + 1));
  }
  runner.setScheduler(&pool);
  for (std::size_t turn = 0; turn < turns.size(); ++turn) {
    // Alternating runs name each count's figures "name@threads".
    std::string suffix;
    if (!plan.alternate.empty()) suffix.append(1, '@').append(std::to_string(turns[turn]));
    const FrameSamples& mine = samples[turn];
    report.samples("update_ms" + suffix, mine.update);
    report.samples("pairs_ms" + suffix, mine.pairs);
    report.samples("frame_ms" + suffix, mine.frame);
    report.samples("update_cpu_ms" + suffix, mine.updateCpu);
    report.samples("pairs_cpu_ms" + suffix, mine.pairsCpu);
    report.samples("frame_cpu_ms" + suffix, mine.frameCpu);
    report.samples("simulate_ms" + suffix, mine.simulate);
    if (!mine.loops.empty()) {
      report.samples("loops_per_frame" + suffix, mine.loops);
      report.samples("loop_ms" + suffix, mine.loopMs);
      report.samples("loop_busy_ms" + suffix, mine.busyMs);
    }
    report.samples("candidates_per_frame" + suffix, {summarize(mine.candidates).median});
    report.samples("exact_tests_per_frame" + suffix, {summarize(mine.exact).median});
  }
  report.line("pairs_last_frame " + std::to_string(track.pairsLastFrame));
  report.line("pairs_checksum " + std::to_string(track.pairsChecksum));

  const SpatialIndex& structure = *track.index;
  report.line("phase queries");
  std::uint64_t queryChecksum = 0;
  std::vector<double> pointMs, circleMs, rayMs;
  // Queries run through the const path, as threads would run them.
  const auto timeQueries = [&](const auto& shapes, auto&& toQuery, std::vector<double>& ms, bool ordered) {
    QueryAnswer answer;
    ms.reserve(shapes.size());
    for (const auto& shape : shapes) {
      const Query query = toQuery(shape);
      const auto t0 = Clock::now();
      runQuery(structure, query, answer);
      ms.push_back(msBetween(t0, Clock::now()));
      queryChecksum = foldFrameChecksum(queryChecksum, ordered ? hashHits(answer.hits) : hashIds(answer.ids));
    }
  };
  timeQueries(
      queries.points, [](Vec2 p) { return makeQuery(QueryShape::Point, p, 0.0f); }, pointMs, false);
  timeQueries(
      queries.circles, [](const Circle& c) { return makeQuery(QueryShape::Circle, c.center, c.radius); },
      circleMs, false);
  timeQueries(
      queries.rays,
      [](const Segment& s) {
        Query q;
        q.shape = QueryShape::Segment;
        q.at = s.start;
        q.to = s.end;
        return q;
      },
      rayMs, true);
  report.samples("point_ms", pointMs);
  report.samples("circle_ms", circleMs);
  report.samples("ray_ms", rayMs);
  report.line("query_checksum " + std::to_string(queryChecksum));

  const IndexStats stats = structure.stats();
  report.line("memory_bytes " + std::to_string(stats.memoryBytes));
  report.line("nodes " + std::to_string(stats.nodes));
  report.line("max_depth " + std::to_string(stats.maxDepth));
  ExtraCounters extra;
  structure.extra(extra);
  for (const auto& [name, value] : extra) {
    std::ostringstream s;
    s.precision(9);
    s << "extra " << name << ' ' << value;
    report.line(s.str());
  }
  const std::size_t peak = procStatusBytes("VmHWM");
  report.line("peak_rss_bytes " + std::to_string(peak));
  report.line("peak_above_baseline_bytes " + std::to_string(peak > baseline ? peak - baseline : 0));

  if (freshSim) {
    report.line("phase fresh");
    FrameRunner fresh(*freshSim, &pool);
    std::unique_ptr<SpatialIndex> rebuilt = configured();
    rebuilt->build(freshSim->items());
    fresh.addBuilt(info.name, std::move(rebuilt));
    std::vector<std::vector<double>> freshMs(turns.size()), freshCpuMs(turns.size());
    for (std::size_t frame = 0; frame < turnTaken.size(); ++frame) {
      fresh.setScheduler(pools[turnTaken[frame]].get());
      fresh.step(true);
      if (frame < std::size_t(plan.settle) * turns.size()) continue;
      const FrameResult& result = fresh.track(0).last;
      freshMs[turnTaken[frame]].push_back(result.updateMs + result.pairsMs);
      freshCpuMs[turnTaken[frame]].push_back(result.updateCpuMs + result.pairsCpuMs);
    }
    if (fresh.track(0).pairsChecksum != track.pairsChecksum)
      throw std::runtime_error(
          "the structure built fresh after the long run found other pairs than the long-lived one");
    for (std::size_t turn = 0; turn < turns.size(); ++turn) {
      const std::string suffix = plan.alternate.empty() ? "" : "@" + std::to_string(turns[turn]);
      report.samples("fresh_frame_ms" + suffix, freshMs[turn]);
      report.samples("fresh_frame_cpu_ms" + suffix, freshCpuMs[turn]);
    }
  }
  report.line("done");
}

// ---------------------------------------------------------------------------------------------------------
// Parent side: read the child's lines until it ends or the cap expires
// ---------------------------------------------------------------------------------------------------------

std::vector<double> parseSamples(std::istringstream& in) {
  std::vector<double> out;
  double v;
  while (in >> v) out.push_back(v);
  return out;
}

void applyLine(const std::string& line, RunResult& result, std::vector<RunResult>& turns,
               const std::vector<unsigned>& alternate, std::string& phase, int& framesDone,
               std::string& error, bool& done) {
  std::istringstream in(line);
  std::string key;
  in >> key;
  // "name@threads": a figure of one thread count's frames in an alternating run.
  if (const std::size_t at = key.find('@'); at != std::string::npos) {
    const auto threads = static_cast<unsigned>(std::strtoul(key.c_str() + at + 1, nullptr, 10));
    const auto turn = std::find(alternate.begin(), alternate.end(), threads);
    if (turn == alternate.end()) return;
    std::vector<RunResult> none;
    applyLine(key.substr(0, at) + line.substr(line.find(' ')), turns[std::size_t(turn - alternate.begin())],
              none, {}, phase, framesDone, error, done);
    return;
  }
  if (key == "phase")
    in >> phase;
  else if (key == "frame")
    in >> framesDone;
  else if (key == "error")
    std::getline(in >> std::ws, error);
  else if (key == "done")
    done = true;
  else if (key == "build_ms")
    result.buildMs = parseSamples(in);
  else if (key == "update_ms")
    result.updateMs = parseSamples(in);
  else if (key == "pairs_ms")
    result.pairsMs = parseSamples(in);
  else if (key == "frame_ms")
    result.frameMs = parseSamples(in);
  else if (key == "build_cpu_ms")
    result.buildCpuMs = parseSamples(in);
  else if (key == "update_cpu_ms")
    result.updateCpuMs = parseSamples(in);
  else if (key == "pairs_cpu_ms")
    result.pairsCpuMs = parseSamples(in);
  else if (key == "frame_cpu_ms")
    result.frameCpuMs = parseSamples(in);
  else if (key == "simulate_ms")
    result.simulateMs = parseSamples(in);
  else if (key == "loops_per_frame")
    result.loopsPerFrame = parseSamples(in);
  else if (key == "loop_ms")
    result.loopMs = parseSamples(in);
  else if (key == "loop_busy_ms")
    result.loopBusyMs = parseSamples(in);
  else if (key == "fresh_frame_ms")
    result.freshFrameMs = parseSamples(in);
  else if (key == "fresh_frame_cpu_ms")
    result.freshFrameCpuMs = parseSamples(in);
  else if (key == "point_ms")
    result.pointMs = parseSamples(in);
  else if (key == "circle_ms")
    result.circleMs = parseSamples(in);
  else if (key == "ray_ms")
    result.rayMs = parseSamples(in);
  else if (key == "pairs_last_frame")
    in >> result.pairsLastFrame;
  else if (key == "candidates_per_frame")
    in >> result.candidatesPerFrame;
  else if (key == "exact_tests_per_frame")
    in >> result.exactTestsPerFrame;
  else if (key == "pairs_checksum")
    in >> result.pairsChecksum;
  else if (key == "query_checksum")
    in >> result.queryChecksum;
  else if (key == "memory_bytes")
    in >> result.memoryBytes;
  else if (key == "nodes")
    in >> result.nodes;
  else if (key == "max_depth")
    in >> result.maxDepth;
  else if (key == "peak_rss_bytes")
    in >> result.peakRssBytes;
  else if (key == "peak_above_baseline_bytes")
    in >> result.peakAboveBaselineBytes;
  else if (key == "extra") {
    std::string name;
    double value = 0;
    in >> name >> value;
    result.extra.emplace_back(name, value);
  }
}

// User plus system CPU time of a child process so far, from /proc (-1 when it cannot be read).
double childCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  const std::size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return -1.0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  unsigned long long user = 0, system = 0;
  for (int index = 3; fields >> field; ++index) {  // fields after the name start at number 3
    if (index == 14) user = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 15) {
      system = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  return double(user + system) / double(::sysconf(_SC_CLK_TCK));
}

std::string describeSeconds(double seconds) {
  std::ostringstream s;
  s.precision(3);
  s << seconds << " s";
  return s.str();
}

}  // namespace

Stat summarize(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  Stat stat;
  stat.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  const std::size_t rank = static_cast<std::size_t>(std::ceil(0.95 * double(n)));
  stat.p95 = samples[std::max<std::size_t>(rank, 1) - 1];
  return stat;
}

QuerySet makeQuerySet(const Simulation& sim, int count, float size, std::uint64_t seed) {
  Rng rng(seed * kGoldenGamma + sim.circles().size());
  const Box& region = sim.queryRegion();
  auto randomPoint = [&] {
    return Vec2{rng.uniform(region.min.x, region.max.x), rng.uniform(region.min.y, region.max.y)};
  };
  QuerySet set;
  for (int i = 0; i < count; ++i) set.points.push_back(randomPoint());
  for (int i = 0; i < count; ++i) set.circles.push_back({randomPoint(), size});
  for (int i = 0; i < count; ++i) {
    const Vec2 start = randomPoint();
    const double angle = rng.unit() * 6.283185307179586;
    const float length = 4.0f * size;
    set.rays.push_back(
        {start, {start.x + length * float(std::cos(angle)), start.y + length * float(std::sin(angle))}});
  }
  return set;
}

std::vector<RunResult> runIsolated(const StructureInfo& info, const Simulation& sim, const QuerySet& queries,
                                   const RunPlan& plan) {
  RunResult result;
  result.threads = plan.threads;
  std::vector<RunResult> turns(plan.alternate.size());
  // One result per thread count: the shared figures, then each count's frames.
  const auto split = [&]() -> std::vector<RunResult> {
    if (plan.alternate.empty()) return {result};
    std::vector<RunResult> out;
    for (std::size_t turn = 0; turn < turns.size(); ++turn) {
      RunResult r = result;
      r.threads = plan.alternate[turn];
      r.updateMs = turns[turn].updateMs;
      r.pairsMs = turns[turn].pairsMs;
      r.frameMs = turns[turn].frameMs;
      r.updateCpuMs = turns[turn].updateCpuMs;
      r.pairsCpuMs = turns[turn].pairsCpuMs;
      r.frameCpuMs = turns[turn].frameCpuMs;
      r.simulateMs = turns[turn].simulateMs;
      r.loopsPerFrame = turns[turn].loopsPerFrame;
      r.loopMs = turns[turn].loopMs;
      r.loopBusyMs = turns[turn].loopBusyMs;
      r.freshFrameMs = turns[turn].freshFrameMs;
      r.freshFrameCpuMs = turns[turn].freshFrameCpuMs;
      r.candidatesPerFrame = turns[turn].candidatesPerFrame;
      r.exactTestsPerFrame = turns[turn].exactTestsPerFrame;
      out.push_back(std::move(r));
    }
    return out;
  };
  result.scene = sim.scenario();
  result.count = sim.circles().size();
  result.structure = info.name;
  result.peer = info.peer;

  int fds[2];
  if (::pipe(fds) != 0) {
    result.status = RunStatus::Failed;
    result.reason = std::string("pipe: ") + std::strerror(errno);
    return split();
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.status = RunStatus::Failed;
    result.reason = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return split();
  }
  if (pid == 0) {
    ::close(fds[0]);
    Reporter report(fds[1]);
    // The cap counts CPU time, which neighbours on a shared machine do not inflate; SIGXCPU ends the run.
    const rlim_t cpuSeconds = static_cast<rlim_t>(std::ceil(plan.timeCapSeconds));
    const rlimit cpuLimit{cpuSeconds, cpuSeconds + 5};
    ::setrlimit(RLIMIT_CPU, &cpuLimit);
    if (plan.memoryCapGiB > 0) {
      const rlim_t bytes = static_cast<rlim_t>(plan.memoryCapGiB * 1024.0 * 1024.0 * 1024.0);
      const rlimit limit{bytes, bytes};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    int code = 0;
    try {
      Simulation copy = sim;  // stepping needs a mutable simulation; the caller's stays at the shared start
      measureInChild(info, copy, queries, plan, report);
    } catch (const std::bad_alloc&) {
      report.line("error out of memory");
      code = 1;
    } catch (const std::exception& e) {
      report.line(std::string("error ") + e.what());
      code = 1;
    }
    ::close(fds[1]);
    ::_exit(code);
  }

  ::close(fds[1]);
  std::string buffer, phase = "start", error;
  int framesDone = 0;
  bool done = false, stalled = false;
  // RLIMIT_CPU ends a run that computes too long; a run that stops computing (blocked, or starved on a busy
  // machine) is ended here once its CPU time has not advanced for kStallSeconds.
  constexpr double kStallSeconds = 120.0;
  double lastCpu = -1.0;
  auto lastProgress = start;
  char chunk[65536];
  while (true) {
    const auto now = Clock::now();
    const double cpu = childCpuSeconds(pid);
    if (cpu != lastCpu) {
      lastCpu = cpu;
      lastProgress = now;
    } else if (msBetween(lastProgress, now) > kStallSeconds * 1000.0) {
      stalled = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t got = ::read(fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the child closed its end
    buffer.append(chunk, static_cast<std::size_t>(got));
    std::size_t newline;
    while ((newline = buffer.find('\n')) != std::string::npos) {
      applyLine(buffer.substr(0, newline), result, turns, plan.alternate, phase, framesDone, error, done);
      buffer.erase(0, newline + 1);
    }
  }
  if (stalled) ::kill(pid, SIGKILL);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();

  if (done && !stalled) {
    result.status = RunStatus::Ok;
    return split();
  }
  std::string where = "during " + phase;
  if (phase == "frames")
    where += " (" + std::to_string(framesDone) + " of " + std::to_string(plan.frames) + " timed frames done)";
  if (stalled) {
    result.status = RunStatus::Failed;
    result.reason = "stopped: no CPU progress for " + describeSeconds(kStallSeconds) + " " + where;
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    result.status = RunStatus::Skipped;
    result.reason = "stopped at the " + describeSeconds(plan.timeCapSeconds) + " CPU time cap " + where;
  } else if (error == "out of memory") {
    result.status = RunStatus::Skipped;
    result.reason = "out of memory " + where;
  } else if (!error.empty()) {
    result.status = RunStatus::Failed;
    result.reason = "exception " + where + ": " + error;
  } else if (WIFSIGNALED(status)) {
    result.status = RunStatus::Failed;
    result.reason = std::string("killed by signal ") + strsignal(WTERMSIG(status)) + " " + where;
  } else {
    result.status = RunStatus::Failed;
    result.reason = "ended without a result " + where;
  }
  return split();
}

}  // namespace st::bench
