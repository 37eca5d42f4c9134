#pragma once
/// \file
/// An allocator for the large arrays that are read at random (item tables, hash tables, node pools).
///
/// Beyond a few megabytes, random reads miss the TLB as often as the cache: with 4 KiB pages a 12 MB item
/// table spans 3,000 pages. Where the system allows it (Linux transparent huge pages in "madvise" mode),
/// such arrays are mapped fresh from the system on 2 MiB boundaries and marked for huge pages before any
/// page is touched; the last huge page only when the array fills half of it, so residency exceeds the
/// request by less than half a huge page. Smaller arrays, and other systems, get plain operator new.

#include <cstddef>
#include <new>
#include <vector>

namespace st {

namespace large_pages {
/// Arrays at least this large are aligned and marked for huge pages.
// Arrays of one to two huge pages on huge pages made the replicated grid's frame 1.28-1.29x slower after an
// hour of play at 100k circles (0.97x with this threshold), so they stay on small pages.
inline constexpr std::size_t kThresholdBytes = std::size_t{4} << 20;
/// Allocates `bytes` (>= kThresholdBytes) on a huge-page boundary and marks it; throws std::bad_alloc.
void* allocate(std::size_t bytes);
/// Frees what allocate(bytes) returned.
void release(void* p, std::size_t bytes) noexcept;
}  // namespace large_pages

/// std::allocator with huge-page placement for large arrays.
template <class T>
struct LargePageAllocator {
  using value_type = T;  ///< element type

  LargePageAllocator() noexcept = default;
  /// Rebinding copy.
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}

  /// Room for n elements.
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < large_pages::kThresholdBytes)
      return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    return static_cast<T*>(large_pages::allocate(bytes));
  }
  /// Gives back what allocate(n) returned.
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < large_pages::kThresholdBytes) {
      ::operator delete (p, std::align_val_t{alignof(T)});
    } else {
      large_pages::release(p, n * sizeof(T));
    }
  }
  /// All instances are interchangeable.
  friend bool operator==(const LargePageAllocator&, const LargePageAllocator&) noexcept { return true; }
};

/// A vector whose large buffers sit on huge pages where the system offers them.
template <class T>
using LargeVector = std::vector<T, LargePageAllocator<T>>;

}  // namespace st
