#include "spheretest/circle_table.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "large_pages.hpp"

namespace st {

namespace {
using Allocator = LargePageAllocator<Circle>;
}  // namespace

CircleTable::~CircleTable() {
  if (data_) Allocator().deallocate(data_, capacity_);
}

CircleTable::CircleTable(const CircleTable& other) {
  reserveExactly(other.size_);
  if (other.size_ > 0) std::memcpy(data_, other.data_, other.size_ * sizeof(Circle));
  size_ = other.size_;
}

CircleTable::CircleTable(CircleTable&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

CircleTable& CircleTable::operator=(const CircleTable& other) {
  if (this != &other) {
    CircleTable copy(other);
    *this = std::move(copy);
  }
  return *this;
}

CircleTable& CircleTable::operator=(CircleTable&& other) noexcept {
  if (this != &other) {
    if (data_) Allocator().deallocate(data_, capacity_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

// Growth is the caller's to choose (the structures grow by half at a time), so the array is exactly as
// large as asked.
void CircleTable::reserveExactly(std::size_t n) {
  if (n <= capacity_) return;
  Circle* grown = Allocator().allocate(n);
  if (size_ > 0) std::memcpy(grown, data_, size_ * sizeof(Circle));
  if (data_) Allocator().deallocate(data_, capacity_);
  data_ = grown;
  capacity_ = n;
}

void CircleTable::resize(std::size_t n, const Circle& fill) {
  reserveExactly(n);
  if (n > size_) std::fill(data_ + size_, data_ + n, fill);
  size_ = n;
}

void CircleTable::assign(std::size_t n, const Circle& fill) {
  size_ = 0;
  resize(n, fill);
}

}  // namespace st
