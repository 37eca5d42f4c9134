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

#include <optional>
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
  explicit ResultTaker(std::vector<ItemId>& out) { append_.emplace(out); }
  /// Hands every result to `visit` until it returns false.
  explicit ResultTaker(const ItemVisitor& visit) : visit_(&visit) {}
  /// Takes one result; false when the walk must stop.
  bool operator()(ItemId id) { return visit_ ? (*visit_)(id) : (*append_)(id); }

 private:
  std::optional<AppendTaker> append_;
  const ItemVisitor* visit_ = nullptr;
};

/// The vector and callback forms of the point, circle and box queries of a structure whose own walks hand
/// their results to a taker (`Walks::pointQuery(p, ctx, take)`, `circleQuery`, `boxQuery`): the hooks
/// every such structure would otherwise write out. `kOneTakerType` compiles each walk once for both forms
/// (ResultTaker) instead of once per form (takerFor).
template <class Walks, bool kOneTakerType = false>
class TakerQueries : public SpatialIndex {
 protected:
  using SpatialIndex::SpatialIndex;
  void doQueryPoint(Vec2 p, std::vector<ItemId>& out, QueryContext& ctx) const override {
    walks().pointQuery(p, ctx, taker(out));
  }
  void doQueryCircle(const Circle& query, std::vector<ItemId>& out, QueryContext& ctx) const override {
    walks().circleQuery(query, ctx, taker(out));
  }
  void doQueryBox(const Box& box, std::vector<ItemId>& out, QueryContext& ctx) const override {
    walks().boxQuery(box, ctx, taker(out));
  }
  void doVisitPoint(Vec2 p, const ItemVisitor& visit, QueryContext& ctx) const override {
    walks().pointQuery(p, ctx, taker(visit));
  }
  void doVisitCircle(const Circle& query, const ItemVisitor& visit, QueryContext& ctx) const override {
    walks().circleQuery(query, ctx, taker(visit));
  }
  void doVisitBox(const Box& box, const ItemVisitor& visit, QueryContext& ctx) const override {
    walks().boxQuery(box, ctx, taker(visit));
  }

 private:
  const Walks& walks() const { return static_cast<const Walks&>(*this); }
  template <class Results>
  static auto taker(Results& results) {
    if constexpr (kOneTakerType)
      return ResultTaker(results);
    else
      return takerFor(results);
  }
};

}  // namespace st
