#pragma once
// Sweep and prune (sort and sweep), the classic broad phase of Baraff's thesis and of Ericson's Real-Time
// Collision Detection (7.5.2), written outside the library against its public headers only.
//
// The circles are kept sorted by the left end of their x interval. The pair search sweeps that order once:
// each circle is tested against the circles after it until one starts right of its right end. Everything
// else (point, circle, box, ray and cone queries, nearest circles, the counters, the step-by-step trace)
// comes from the library's query engine, which walks the runs of kRun consecutive circles of the order as
// the leaves below one root: a walk view is all this file writes for them.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <spheretest/spatial_index.hpp>

namespace example {

/// Sort on x and sweep, with the library's engine answering every query over runs of the sorted order.
class SweepAndPrune final : public st::SpatialIndex {
 public:
  /// Circles per run of the order: one leaf of the walk view.
  static constexpr std::uint32_t kRun = 32;

  SweepAndPrune() : st::SpatialIndex("sweep-and-prune") {}

  std::string_view description() const override {
    return "Sweep and prune keeps the circles sorted by the left end of their x interval (insertion sort "
           "re-sorts a moving scene in near-linear time) and sweeps that order for pairs, testing each "
           "circle against those that start before it ends. It prunes on one axis only: a tall column of "
           "circles at one x is tested all against all.";
  }

  void visitNodes(const st::NodeVisitor& visitor) const override {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      st::NodeInfo info;
      info.box = nodes_[i].bounds;
      info.depth = i == 0 ? 0 : 1;
      info.itemCount = nodes_[i].itemCount;
      visitor(info);
    }
  }

  st::IndexStats stats() const override {
    return {nodes_.size(), nodes_.size() > 1 ? 1 : 0,
            tableBytes() + order_.capacity() * sizeof(st::ItemId) + nodes_.capacity() * sizeof(st::WalkNode)};
  }

 protected:
  void doBuild(std::span<const st::Item> items) override {
    order_.clear();
    for (const st::Item& item : items) order_.push_back(item.id);
    std::sort(order_.begin(), order_.end(), [&](st::ItemId a, st::ItemId b) { return before(a, b); });
    refreshRuns();
  }
  void doInsert(st::ItemId id, const st::Circle&) override {
    order_.insert(std::upper_bound(order_.begin(), order_.end(), id,
                                   [&](st::ItemId a, st::ItemId b) { return before(a, b); }),
                  id);
    refreshRuns();
  }
  void doUpdate(st::ItemId, const st::Circle&, const st::Circle&) override { resort(); }
  bool batchNeedsOldCircles(std::size_t) const override { return false; }
  void doUpdateBatch(std::span<const st::ItemId>, std::span<const st::Circle>) override { resort(); }
  void doRemove(st::ItemId id, const st::Circle&) override {
    order_.erase(std::find(order_.begin(), order_.end(), id));
    refreshRuns();
  }
  void doClear() override {
    order_.clear();
    nodes_.clear();
  }

  std::optional<st::WalkView> walkView() const override { return st::WalkView{nodes_, order_, {}}; }

  void doFindPairs(std::vector<st::Pair>& out) override {
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const st::Circle& a = circle(order_[i]);
      const float right = a.center.x + a.radius;
      for (std::size_t j = i + 1; j < order_.size(); ++j) {
        const st::Circle& b = circle(order_[j]);
        if (b.center.x - b.radius > right) break;  // this one and every later one start right of a's end
        ++counters_.candidates;
        ++counters_.exactTests;
        if (st::circlesOverlap(a, b)) out.push_back(st::makePair(order_[i], order_[j]));
      }
    }
  }

  std::string doValidate() const override {
    if (order_.size() != size()) return "sweep-and-prune: the order holds a different number of circles";
    for (std::size_t i = 0; i < order_.size(); ++i) {
      if (!contains(order_[i])) return "sweep-and-prune: an absent circle in the order";
      if (i > 0 && before(order_[i], order_[i - 1])) return "sweep-and-prune: the order is not sorted";
    }
    std::uint32_t covered = 0;
    for (std::size_t n = 1; n < nodes_.size(); ++n) {
      const st::WalkNode& run = nodes_[n];
      if (run.firstItem != covered) return "sweep-and-prune: the runs do not tile the order";
      covered += run.itemCount;
      for (std::uint32_t i = run.firstItem; i < run.firstItem + run.itemCount; ++i) {
        if (!st::boxContains(run.bounds, st::boundsOf(circle(order_[i]))))
          return "sweep-and-prune: a run's box does not hold its circle";
      }
    }
    return covered == order_.size() ? "" : "sweep-and-prune: the runs miss part of the order";
  }

 private:
  // Left end of the x interval, ties by id, so that the order is one total order.
  bool before(st::ItemId a, st::ItemId b) const {
    const float la = circle(a).center.x - circle(a).radius, lb = circle(b).center.x - circle(b).radius;
    return la < lb || (la == lb && a < b);
  }

  // Insertion sort: circles move little between frames, so the order is nearly right already.
  void resort() {
    for (std::size_t i = 1; i < order_.size(); ++i) {
      const st::ItemId id = order_[i];
      std::size_t j = i;
      for (; j > 0 && before(id, order_[j - 1]); --j) order_[j] = order_[j - 1];
      order_[j] = id;
    }
    refreshRuns();
  }

  // The walk view: a root holding every run, then one leaf per kRun consecutive circles of the order.
  void refreshRuns() {
    nodes_.clear();
    if (order_.empty()) return;
    const auto runs = static_cast<std::uint32_t>((order_.size() + kRun - 1) / kRun);
    nodes_.push_back({{}, 1, runs, 0, 0});
    for (std::uint32_t first = 0; first < order_.size(); first += kRun) {
      const std::uint32_t count =
          std::min<std::uint32_t>(kRun, static_cast<std::uint32_t>(order_.size()) - first);
      st::Box box = st::boundsOf(circle(order_[first]));
      for (std::uint32_t i = first + 1; i < first + count; ++i)
        box = st::boxUnion(box, st::boundsOf(circle(order_[i])));
      nodes_.push_back({box, 0, 0, first, count});
      nodes_[0].bounds = nodes_.size() == 2 ? box : st::boxUnion(nodes_[0].bounds, box);
    }
  }

  std::vector<st::ItemId> order_;    // present ids by the left end of their x interval
  std::vector<st::WalkNode> nodes_;  // the root, then the runs of the order
};

}  // namespace example
