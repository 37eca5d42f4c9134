#pragma once
/// \file
/// st::CircleTable, the circles of a structure by id.

#include <cstddef>

#include "spheretest/geometry.hpp"

namespace st {

/// The circles by id in one array, which the structures read at random: beyond a few megabytes it is
/// placed on huge pages where the system offers them, so that those reads miss the TLB less.
class CircleTable {
 public:
  /// An empty table.
  CircleTable() = default;
  /// Frees the array.
  ~CircleTable();
  /// A copy of every slot.
  CircleTable(const CircleTable& other);
  /// Takes the other table's array, leaving it empty.
  CircleTable(CircleTable&& other) noexcept;
  /// Copy assignment.
  CircleTable& operator=(const CircleTable& other);
  /// Move assignment.
  CircleTable& operator=(CircleTable&& other) noexcept;

  /// Number of slots.
  std::size_t size() const { return size_; }
  /// Whether there are no slots.
  bool empty() const { return size_ == 0; }
  /// Slots the array holds before it must grow.
  std::size_t capacity() const { return capacity_; }
  /// The slot of an id below size().
  const Circle& operator[](std::size_t i) const { return data_[i]; }
  /// The slot of an id below size().
  Circle& operator[](std::size_t i) { return data_[i]; }
  /// First slot.
  const Circle* begin() const { return data_; }
  /// One past the last slot.
  const Circle* end() const { return data_ + size_; }
  /// Grows or shrinks to n slots; new slots hold `fill`.
  void resize(std::size_t n, const Circle& fill);
  /// n slots, each holding `fill`.
  void assign(std::size_t n, const Circle& fill);
  /// No slots (the array is kept).
  void clear() { size_ = 0; }

 private:
  void reserveExactly(std::size_t n);

  Circle* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace st
