#pragma once
// The two quadtrees whose leaves split when they hold more than `capacity` items (the point quadtree of
// seed 004 and the fit-entirely quadtree of seed 003) share everything but where an item goes: the descent,
// the split, removal with its merges, the in-place move and the capacity invariants live here once; each
// structure says only which child takes a circle and what it keeps per node (the point quadtree's widen).

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "quadtree_family.hpp"

namespace st::quadtree_family {

/// Base of the capacity-split quadtrees: leaves split past `capacity`, subtrees merge back at or below it.
class SplittingQuadtree : public QuadtreeFamily {
 protected:
  /// Declares the `capacity` (defaulting to the member's choice) and `max_depth` parameters both members
  /// share.
  SplittingQuadtree(std::string name, FamilyStyle style, std::uint32_t defaultCapacity);

  // -- each member's rule ------------------------------------------------------------------------------
  /// Whether the root's cell may hold the circle (its centre, or all of it).
  virtual bool rootHolds(const Circle& c) const = 0;
  /// The child of internal node `n` that takes the circle, or kNoIndex when it stays in `n` (or `n` is a
  /// leaf).
  virtual std::uint32_t childTaking(std::uint32_t n, const Circle& c) const = 0;
  /// Bookkeeping for a circle stored at or below node `n` (the point quadtree raises its widen).
  virtual void noteStoredBelow(std::uint32_t n, const Circle& c) {
    (void)n;
    (void)c;
  }
  /// Bookkeeping after a circle left node `n` (the point quadtree lowers its widen).
  virtual void noteLeft(std::uint32_t n, const Circle& old) {
    (void)n;
    (void)old;
  }
  /// Bookkeeping after node `n` split and passed its circles down (the point quadtree's widen).
  virtual void noteSplit(std::uint32_t n) { (void)n; }
  /// Whether a moved item may stay in its node `n`; does the bookkeeping of the stay when it may.
  virtual bool stayInPlace(std::uint32_t n, const Circle& old, const Circle& c) = 0;
  /// Whether a moved item stays in its node `n` with no bookkeeping at all: the batch's workers ask this
  /// of every move at once, and only the others are applied one by one.
  virtual bool staysUntouched(std::uint32_t n, const Circle& old, const Circle& c) const = 0;
  /// Whether staysUntouched reads the node's children as well (a circle held above a split), so that the
  /// batch fetches them ahead too.
  virtual bool stayTestReadsChildren() const { return false; }
  /// Whether the descent from the root that places `c` passes through node `n` (a sufficient test: it may
  /// say no near the root's edge, where the move then starts higher up).
  virtual bool descentReaches(std::uint32_t n, const Circle& c) const = 0;
  /// Whether two circles go to the same child at every depth (so splitting cannot separate them).
  virtual bool sameKey(const Circle& a, const Circle& b) const = 0;
  /// The member's own invariants of one node; "" when fine.
  virtual std::string checkRule(std::uint32_t index, int depth) const {
    (void)index;
    (void)depth;
    return {};
  }
  /// The member's own figures, before the shared update counts.
  virtual void extraRule(ExtraCounters& out) const { (void)out; }

  // -- QuadtreeFamily and SpatialIndex hooks --------------------------------------------------------------
  void onParamChanged(std::string_view key) override;
  void doInsert(ItemId id, const Circle& c) override;
  void doUpdate(ItemId id, const Circle& old, const Circle& c) override;
  void doUpdateBatch(std::span<const ItemId> ids, std::span<const Circle> old) override;
  void doRemove(ItemId id, const Circle& c) override;
  void onCleared() override { updatesInPlace_ = updatesRelinked_ = 0; }
  std::string checkNode(std::uint32_t index, int depth) const override;
  void extraOwn(ExtraCounters& out) const override;
  std::size_t ownBytes() const override {
    return applyOneByOne_.capacity() * sizeof(std::uint32_t) +
           splitPending_.capacity() * sizeof(splitPending_[0]);
  }

  std::uint32_t capacity_ = 4;  ///< items a leaf holds before it splits

 private:
  void readParams();
  bool canSplit(std::uint32_t leaf, int depth) const;
  void attach(ItemId id, const Circle& c);
  void splitIfOverfull(std::uint32_t n, int depth);
  void split(std::uint32_t leaf, int depth);
  void detach(ItemId id, const Circle& old);
  void mergeUpFrom(std::uint32_t node, std::uint32_t stop);
  bool overfullLeaf(std::uint32_t n) const {
    return nodes_[n].firstChild == kNoIndex && nodes_[n].directCount > capacity_;
  }
  bool relinkNearby(ItemId id, const Circle& old, const Circle& c);

  int maxDepth_ = 24;
  std::vector<std::pair<std::uint32_t, int>> splitPending_;  // leaves still to split, kept between calls
  std::vector<std::uint32_t> applyOneByOne_;  // positions in the batch of the moves doUpdate applies
  std::uint64_t updatesInPlace_ = 0;
  std::uint64_t updatesRelinked_ = 0;
};

}  // namespace st::quadtree_family
