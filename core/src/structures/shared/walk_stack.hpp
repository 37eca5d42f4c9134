#pragma once
// The explicit stack of a const query walk. Queries keep nothing in the structure (so that threads can run
// them at once), so each walk owns its stack: the first entries live in the walk's own frame, as Jolt's
// fixed-size query stacks do, and only a walk deeper than that (a degenerate tree) moves to the heap.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>

namespace st {

/// A LIFO stack of trivially copyable entries, `Inline` of them without allocating.
template <class T, std::size_t Inline = 128>
class WalkStack {
 public:
  WalkStack() = default;
  WalkStack(const WalkStack&) = delete;
  WalkStack& operator=(const WalkStack&) = delete;

  /// Pushes an entry, moving to the heap when the inline entries are used up.
  void push(const T& value) {
    if (size_ == capacity_) grow();
    data_[size_++] = value;
  }
  /// Removes and returns the top entry; the stack must not be empty.
  T pop() { return data_[--size_]; }
  /// Whether no entry is left.
  bool empty() const { return size_ == 0; }
  /// Entries on the stack.
  std::size_t size() const { return size_; }
  /// The `count` entries pushed last, the top one last (to order entries just pushed).
  std::span<T> newest(std::size_t count) { return {data_ + size_ - count, count}; }
  /// Drops every entry.
  void clear() { size_ = 0; }

 private:
  void grow() {
    const std::size_t capacity = capacity_ * 2;
    std::unique_ptr<T[]> bigger(new T[capacity]);
    std::copy(data_, data_ + size_, bigger.get());
    heap_ = std::move(bigger);
    data_ = heap_.get();
    capacity_ = capacity;
  }

  T inline_[Inline];
  std::unique_ptr<T[]> heap_;
  T* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t capacity_ = Inline;
};

}  // namespace st
