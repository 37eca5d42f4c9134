// Brute force: the oracle. It keeps nothing but a dense list of the present items, which the query engine
// walks as one list of unplaced items, testing every one: its answers follow from the exact predicates
// alone, and every other structure is checked against it.

#include <algorithm>

#include "spheretest/structures.hpp"
#include "structures/shared/pair_output.hpp"

namespace st {
namespace {

class BruteForce final : public SpatialIndex {
 public:
  BruteForce() : SpatialIndex("brute") {}

  std::string_view description() const override {
    return "Brute force tests every item against every query and every pair against each other for pair "
           "finding (n(n-1)/2 exact tests per frame), with O(1) insert, update and remove. It has no pruning "
           "at all, which makes it the oracle: its answers come from the exact predicates alone.";
  }

  void visitNodes(const NodeVisitor&) const override {}

  IndexStats stats() const override {
    return {0, 0,
            tableBytes() + dense_.capacity() * sizeof(ItemId) + slotOf_.capacity() * sizeof(std::uint32_t)};
  }

 protected:
  void doBuild(std::span<const Item> items) override {
    dense_.clear();
    dense_.reserve(items.size());
    slotOf_.assign(idCapacity(), kNoSlot);
    for (const Item& item : items) {
      slotOf_[item.id] = static_cast<std::uint32_t>(dense_.size());
      dense_.push_back(item.id);
    }
  }

  void doInsert(ItemId id, const Circle&) override {
    if (slotOf_.size() < idCapacity()) slotOf_.resize(idCapacity(), kNoSlot);
    slotOf_[id] = static_cast<std::uint32_t>(dense_.size());
    dense_.push_back(id);
  }

  void doUpdate(ItemId, const Circle&, const Circle&) override {}
  bool batchNeedsOldCircles(std::size_t) const override { return false; }
  void doUpdateBatch(std::span<const ItemId>, std::span<const Circle>) override {}

  void doRemove(ItemId id, const Circle&) override {
    const std::uint32_t slot = slotOf_[id];
    const ItemId last = dense_.back();
    dense_[slot] = last;
    slotOf_[last] = slot;
    dense_.pop_back();
    slotOf_[id] = kNoSlot;
  }

  void doClear() override {
    dense_.clear();
    slotOf_.clear();
  }

  // Every query shape comes from the engine, which tests each item of this one unplaced list.
  std::optional<WalkView> walkView() const override { return WalkView{{}, {}, dense_}; }

  // Rows of the triangle of pairs, in pieces of equal row counts: rows near the top are longer, and with
  // 64 pieces the workers still even out.
  void doFindPairs(std::vector<Pair>& out) override {
    const std::size_t n = dense_.size();
    // Every pair is tested exactly: all n(n-1)/2 are both examined and exact tests.
    counters_.candidates += n < 2 ? 0 : n * (n - 1) / 2;
    counters_.exactTests += n < 2 ? 0 : n * (n - 1) / 2;
    pairs::ScanTotals totals;
    pairs::scanInPieces(scheduler(), static_cast<std::uint32_t>(n), out, totals,
                        [&](pairs::PairWriter& writer, std::uint64_t&, std::uint64_t&, std::uint32_t begin,
                            std::uint32_t end) {
                          for (std::size_t i = begin; i < end; ++i) {
                            const ItemId a = dense_[i];
                            const Circle ca = circle(a);
                            for (std::size_t j = i + 1; j < n; ++j) {
                              const ItemId b = dense_[j];
                              if (circlesOverlap(ca, circle(b))) writer.add(a, b);
                            }
                          }
                        });
  }

  std::string doValidate() const override {
    std::size_t present = 0;
    std::string problem;
    forEachItem([&](ItemId id, const Circle&) {
      ++present;
      if (problem.empty() &&
          (id >= slotOf_.size() || slotOf_[id] >= dense_.size() || dense_[slotOf_[id]] != id)) {
        problem = "brute: item " + std::to_string(id) + " is not in the dense list where its slot says";
      }
    });
    if (!problem.empty()) return problem;
    if (present != dense_.size())
      return "brute: dense list holds " + std::to_string(dense_.size()) + " ids, table " +
             std::to_string(present);
    return {};
  }

 private:
  static constexpr std::uint32_t kNoSlot = 0xffffffffu;

  std::vector<ItemId> dense_;          // present ids, in no particular order
  std::vector<std::uint32_t> slotOf_;  // id -> index in dense_
};

}  // namespace

std::unique_ptr<SpatialIndex> makeBruteForce() {
  return std::make_unique<BruteForce>();
}

}  // namespace st
