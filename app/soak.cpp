#include "soak.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "spheretest/registry.hpp"

namespace st::app {
namespace {

std::uint64_t nowNs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

double mib(std::size_t bytes) {
  return double(bytes) / double(1u << 20);
}

}  // namespace

SoakMonitor::SoakMonitor(double seconds, double switchEverySeconds)
    : seconds_(seconds), switchEvery_(switchEverySeconds) {}

std::size_t SoakMonitor::residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

void SoakMonitor::switchStructure(ui::DemoModel& model) {
  circlesBefore_ = model.simulation().circles().size();
  // Brute force is skipped: its pair search is what the check runs, and the demo turns it off above 20,000.
  model.cycleStructure(1);
  if (model.structure().name() == "brute") model.cycleStructure(1);
  model.pairSearch = true;
  ++switches_;
  checkPending_ = true;
}

bool SoakMonitor::checkSwitchFrame(ui::DemoModel& model) {
  const Simulation& sim = model.simulation();
  const SpatialIndex& structure = model.structure();
  std::string problem;
  if (sim.circles().size() != circlesBefore_ || structure.size() != circlesBefore_) {
    problem = "circle count changed: " + std::to_string(circlesBefore_) + " before, simulation " +
              std::to_string(sim.circles().size()) + ", structure " + std::to_string(structure.size());
  }
  for (ItemId id = 0; problem.empty() && id < sim.circles().size(); ++id) {
    if (!structure.contains(id) || !(structure.circle(id) == sim.circles()[id])) {
      problem = "circle " + std::to_string(id) + " differs between the simulation and the structure";
    }
  }
  if (problem.empty() && model.pairsCurrent()) {
    std::unique_ptr<SpatialIndex> brute = StructureRegistry::withCoreStructures().create("brute");
    brute->build(sim.items());
    std::vector<Pair> expected;
    brute->findPairs(expected);
    std::vector<Pair> got = model.pairs();
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    if (got != expected) {
      problem = std::to_string(got.size()) + " pairs, brute force " + std::to_string(expected.size());
    }
  } else if (problem.empty()) {
    problem = "no current pairs on the switch frame";
  }
  if (const std::string invalid = structure.validate(); problem.empty() && !invalid.empty())
    problem = invalid;
  const std::size_t rss = residentBytes();
  rssMin_ = std::min(rssMin_, rss);
  rssMax_ = std::max(rssMax_, rss);
  rssLast_ = rss;
  std::printf("soak: switch %zu to %-15s %zu circles, pairs %zu, rss %.1f MiB: %s\n", switches_,
              structure.name().c_str(), sim.circles().size(), model.pairs().size(), mib(rss),
              problem.empty() ? "ok" : problem.c_str());
  std::fflush(stdout);
  return problem.empty();
}

std::optional<int> SoakMonitor::afterFrame(ui::DemoModel& model) {
  const std::uint64_t now = nowNs();
  if (start_ == 0) {
    start_ = now;
    nextSwitch_ = now + static_cast<std::uint64_t>(switchEvery_ * 1e9);
    rssFirst_ = rssMin_ = rssMax_ = rssLast_ = residentBytes();
    return std::nullopt;
  }
  if (checkPending_) {
    checkPending_ = false;
    if (!checkSwitchFrame(model)) ++failures_;
    // The interval starts after the check, so a slow brute-force check does not eat the structure's time.
    nextSwitch_ = nowNs() + static_cast<std::uint64_t>(switchEvery_ * 1e9);
  }
  if (double(now - start_) * 1e-9 >= seconds_) {
    std::printf(
        "soak: %zu switches in %.0f s, %zu failed; rss first %.1f MiB, min %.1f, max %.1f, last %.1f\n",
        switches_, double(now - start_) * 1e-9, failures_, mib(rssFirst_), mib(rssMin_), mib(rssMax_),
        mib(rssLast_));
    return failures_ == 0 ? 0 : 3;
  }
  if (now >= nextSwitch_) switchStructure(model);
  return std::nullopt;
}

}  // namespace st::app
