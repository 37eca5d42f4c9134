#include "ui/model/demo_model.hpp"

#include <chrono>
#include <cmath>
#include <utility>

namespace st::ui {

std::uint64_t nowNanoseconds() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

double millisecondsSince(std::uint64_t startNanoseconds) {
  return double(nowNanoseconds() - startNanoseconds) * 1e-6;
}

void placeQuery(QueryState& q, QueryMode mode, Vec2 anchor, float size, std::optional<Vec2> target) {
  q.mode = mode;
  q.anchor = anchor;
  q.radius = size;
  q.halfExtent = {size, size};
  q.target = target.value_or(Vec2{anchor.x + size, anchor.y});
  q.placed = true;
}

DemoModel::DemoModel(const StructureRegistry& registry, StructureFactory factory,
                     std::unique_ptr<Simulation> simulation, SceneSetup setup, const std::string& structure)
    : registry_(registry),
      factory_(std::move(factory)),
      pool_(std::make_unique<ThreadPool>(1)),
      simulation_(std::move(simulation)),
      scene_(std::move(setup)) {
  simulation_->setScheduler(pool_.get());
  if (!selectStructure(structure)) throw InvalidInput(lastError_);
}

void DemoModel::setThreads(unsigned threads) {
  const unsigned wanted = threads == 0 ? hardwareThreads() : threads;
  if (wanted == pool_->workerCount()) return;
  waitForReaders();
  auto next = std::make_unique<ThreadPool>(wanted);
  simulation_->setScheduler(next.get());
  structure_->setScheduler(next.get());
  pool_ = std::move(next);
}

// ---------------------------------------------------------------------------------------------------------
// Structure and scene changes
// ---------------------------------------------------------------------------------------------------------

bool DemoModel::selectStructure(const std::string& name) {
  waitForReaders();
  std::unique_ptr<SpatialIndex> next;
  try {
    next = factory_(name);
  } catch (const std::exception& e) {
    lastError_ = e.what();
    return false;
  }
  const auto& all = registry_.all();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) structureIndex_ = i;
  }
  structure_ = std::move(next);
  structure_->setScheduler(pool_.get());
  lastError_.clear();
  build("switch to " + name);
  return true;
}

void DemoModel::cycleStructure(int delta) {
  const auto& all = registry_.all();
  if (all.empty()) return;
  const auto n = static_cast<long>(all.size());
  const long next = ((static_cast<long>(structureIndex_) + delta) % n + n) % n;
  selectStructure(all[static_cast<std::size_t>(next)].name);
}

bool DemoModel::selectByDigit(int digit, bool shift) {
  if (digit < 0 || digit > 9) return false;
  const std::size_t index = std::size_t(digit == 0 ? 9 : digit - 1) + (shift ? 10u : 0u);
  if (index >= registry_.all().size()) return false;
  return selectStructure(registry_.all()[index].name);
}

bool DemoModel::reseed(const SceneSetup& setup) {
  waitForReaders();
  try {
    simulation_ = std::make_unique<Simulation>(setup.scenario, setup.config, setup.count, setup.seed);
    simulation_->setScheduler(pool_.get());
  } catch (const std::exception& e) {
    lastError_ = e.what();
    return false;
  }
  scene_ = setup;
  lastError_.clear();
  query.placed = false;
  build("reseed");
  return true;
}

bool DemoModel::setParam(const std::string& key, double value) {
  waitForReaders();
  const std::uint64_t start = nowNanoseconds();
  try {
    structure_->setParam(key, value);
  } catch (const std::exception& e) {
    lastError_ = e.what();
    return false;
  }
  buildMs_ = millisecondsSince(start);
  buildReason_ = "set " + key;
  lastError_.clear();
  pairsCurrent_ = false;
  ++generation_;
  return true;
}

void DemoModel::build(const std::string& reason) {
  structure_->setWorldHint(simulation_->world());
  const std::vector<Item> items = simulation_->items();
  const std::uint64_t start = nowNanoseconds();
  structure_->build(items);
  buildMs_ = millisecondsSince(start);
  buildReason_ = reason;
  pairs_.clear();
  pairsCurrent_ = false;
  ++generation_;
  guardBrutePairs();
}

void DemoModel::guardBrutePairs() {
  const bool tooSlow = structure_->name() == "brute" && simulation_->circles().size() > kBrutePairLimit;
  if (tooSlow && pairSearch) {
    pairSearch = false;
    pairSearchNote_ = "pair search is off: brute force above " + formatCount(kBrutePairLimit) +
                      " circles needs seconds per frame (tick it to run it anyway)";
  } else if (!tooSlow && !pairSearchNote_.empty()) {
    // The demo switched it off, not the user, so it comes back with a structure that can afford it.
    pairSearch = true;
    pairSearchNote_.clear();
  }
}

// ---------------------------------------------------------------------------------------------------------
// One frame
// ---------------------------------------------------------------------------------------------------------

void DemoModel::advance(FrameRecord& record) {
  waitForReaders();
  int steps = 0;
  if (!paused) {
    stepCredit_ += speed;
    steps = static_cast<int>(std::floor(stepCredit_));
    stepCredit_ -= float(steps);
  }
  steps += pendingSteps_;
  pendingSteps_ = 0;
  stepsLastFrame_ = steps;

  updateCounters_ = {};
  for (int s = 0; s < steps; ++s) {
    double simulateMs = 0.0;
    const FrameResult frame = stepFrame(*simulation_, *structure_, pairs_, false, &simulateMs);
    record[Phase::Simulate] += float(simulateMs);
    record[Phase::Update] += float(frame.updateMs);
    updateCounters_.nodesVisited += frame.update.nodesVisited;
    updateCounters_.candidates += frame.update.candidates;
    pairsCurrent_ = false;
  }

  if (pairSearch) {
    const std::uint64_t start = nowNanoseconds();
    structure_->findPairs(pairs_);
    record[Phase::Pairs] = float(millisecondsSince(start));
    pairCounters_ = structure_->lastCounters();
    pairsCurrent_ = true;
  }
}

}  // namespace st::ui
