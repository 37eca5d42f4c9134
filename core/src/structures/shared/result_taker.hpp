#pragma once
// Where a walk hands each result: a vector that takes them all, or the caller's visitor, which may stop the
// walk (as Box2D's query callbacks do). A walk written once over `take(id) -> bool` (the query engine's, a
// grid's cell walk, the size-banded trees' directory walk) serves both the vector form and the callback
// form of a query.
//
// Appended results wait in a small block and join the vector a block at a time (and when the taker goes),
// so that the walk's inner loop holds a store, not a call into the vector's growth. A walk compiled per
// taker (takerFor) knows at compile time that the vector form never stops; one compiled once for both
// (ResultTaker) pays a branch per result instead, which the size-banded trees' walks prefer: compiled
// twice, they crowd the compiler out of inlining their own update path.

#include <vector>

#include "spheretest/spatial_index.hpp"

namespace st {

/// A taker that appends every result to a vector and never stops the walk.
class AppendTaker {
 public:
  /// Appends to `out`.
  explicit AppendTaker(std::vector<ItemId>& out) : out_(out) {}
  AppendTaker(const AppendTaker&) = delete;
  AppendTaker& operator=(const AppendTaker&) = delete;
  ~AppendTaker() {
    if (count_ != 0) flush();
  }
  /// Takes one result.
  bool operator()(ItemId id) {
    block_[count_++] = id;
    if (count_ == kBlock) flush();
    return true;
  }

 private:
  static constexpr unsigned kBlock = 32;
  void flush() {
    out_.insert(out_.end(), block_, block_ + count_);
    count_ = 0;
  }
  std::vector<ItemId>& out_;
  ItemId block_[kBlock];
  unsigned count_ = 0;
};

/// A taker that appends every result to `out` and never stops the walk.
inline AppendTaker takerFor(std::vector<ItemId>& out) {
  return AppendTaker(out);
}

/// A taker that hands every result to `visit` and stops the walk when it returns false.
inline auto takerFor(const ItemVisitor& visit) {
  return [&visit](ItemId id) { return visit(id); };
}

/// One taker type for both forms: appends to a vector, or hands each result to a visitor until it returns
/// false.
class ResultTaker {
 public:
  /// Appends every result to `out`.
  explicit ResultTaker(std::vector<ItemId>& out) : out_(&out) {}
  /// Hands every result to `visit` until it returns false.
  explicit ResultTaker(const ItemVisitor& visit) : visit_(&visit) {}
  ResultTaker(const ResultTaker&) = delete;
  ResultTaker& operator=(const ResultTaker&) = delete;
  ~ResultTaker() {
    if (count_ != 0) flush();
  }
  /// Takes one result; false when the walk must stop.
  bool operator()(ItemId id) {
    if (visit_) return (*visit_)(id);
    block_[count_++] = id;
    if (count_ == kBlock) flush();
    return true;
  }

 private:
  static constexpr unsigned kBlock = 32;
  void flush() {
    out_->insert(out_->end(), block_, block_ + count_);
    count_ = 0;
  }
  std::vector<ItemId>* out_ = nullptr;
  const ItemVisitor* visit_ = nullptr;
  ItemId block_[kBlock];
  unsigned count_ = 0;
};

}  // namespace st
