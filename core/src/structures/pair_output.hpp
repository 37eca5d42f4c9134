#pragma once
// Where every pair search writes its pairs, and the float pre-test that runs before the exact predicate.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "spheretest/geometry.hpp"

namespace st::pairs {

/// Relative widening of the float pre-test: covers the float rounding of its five operations (about 7 ulps,
/// 4.2e-7) with room to spare, so it never rejects a pair the double predicate accepts.
inline constexpr float kPretestScale = 1.0f + 4e-6f;
/// Absolute floor of the float pre-test: covers underflow of tiny distances and radii.
inline constexpr float kPretestFloor = 1e-30f;

/// Cheap conservative float test run before the exact one: false only when the circles surely miss.
inline bool mayOverlap(const Circle& a, const Circle& b) {
  const float dx = b.center.x - a.center.x, dy = b.center.y - a.center.y, reach = a.radius + b.radius;
  return dx * dx + dy * dy <= reach * reach * kPretestScale + kPretestFloor;
}

/// Appends pairs straight into the output vector, growing it in large steps; the vector is trimmed to the
/// pairs written by finish().
class PairWriter {
 public:
  /// Starts appending after the current content of `out`.
  explicit PairWriter(std::vector<Pair>& out) : out_(out), used_(out.size()) {
    out_.resize(std::max<std::size_t>(out_.capacity(), used_ + 4096));
    data_ = out_.data();
    capacity_ = out_.size();
  }
  PairWriter(const PairWriter&) = delete;
  PairWriter& operator=(const PairWriter&) = delete;
  ~PairWriter() { finish(); }

  /// Pre-tests, then tests exactly, and keeps the pair when the circles overlap (nodes with .circle, .id).
  template <class ItemNode>
  void test(const ItemNode& a, const ItemNode& b, std::uint64_t& candidates) {
    ++pretests_;
    if (!mayOverlap(a.circle, b.circle)) return;
    ++candidates;
    if (used_ == capacity_) grow();
    data_[used_] = makePair(a.id, b.id);
    used_ += circlesOverlap(a.circle, b.circle) ? 1 : 0;
  }
  /// Appends a known pair.
  void add(ItemId a, ItemId b) {
    if (used_ == capacity_) grow();
    data_[used_++] = makePair(a, b);
  }
  /// Makes room for `n` more pairs, so that the next n addIf() need no check.
  void reserveMore(std::size_t n) {
    while (capacity_ - used_ < n) grow();
  }
  /// Appends the pair when `keep`, without a branch (after reserveMore).
  void addIf(bool keep, ItemId a, ItemId b) {
    data_[used_] = makePair(a, b);
    used_ += keep ? 1 : 0;
  }
  /// Where the next pair goes: a caller may write up to the room reserveMore() made, then append().
  Pair* tail() { return data_ + used_; }
  /// Keeps `n` pairs written at tail().
  void append(std::size_t n) { used_ += n; }
  /// Trims the output to the pairs written.
  void finish() { out_.resize(used_); }
  /// Counts pre-tests done outside test() (the vector pre-test).
  void countPretests(std::uint64_t n) { pretests_ += n; }
  /// Pairs pre-tested so far: the pair search's real work, of which only the survivors count as candidates.
  std::uint64_t pretests() const { return pretests_; }

 private:
  void grow() {
    out_.resize(capacity_ * 2);
    data_ = out_.data();
    capacity_ = out_.size();
  }

  std::vector<Pair>& out_;
  Pair* data_ = nullptr;
  std::size_t used_ = 0;
  std::size_t capacity_ = 0;
  std::uint64_t pretests_ = 0;
};

}  // namespace st::pairs
