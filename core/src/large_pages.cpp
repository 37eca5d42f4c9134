#include "large_pages.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace st::large_pages {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t roundUp(std::size_t bytes) {
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
}  // namespace

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// Fresh pages straight from the system, not from malloc's heap: memory the heap hands back has been
// touched already on small pages, and marking it afterwards makes no huge page until the kernel's
// background collapse gets to it (at a million circles a process held 10 MB of its 70 MB of large arrays
// on huge pages). The mapping is over-sized by one huge page and trimmed to a huge-page boundary. The last
// huge page is marked only when the array fills at least half of it (a 5 MB table is three huge pages then,
// not two and 256 small ones), so residency exceeds the request by less than half a huge page.
void* allocate(std::size_t bytes) {
  const std::size_t size = roundUp(bytes);
  void* raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(raw, aligned - start);
  const std::uintptr_t end = start + size + kHugePage;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  void* p = reinterpret_cast<void*>(aligned);
  // A refusal (huge pages off) leaves ordinary pages, which is only slower.
  const std::size_t marked = size - bytes <= kHugePage / 2 ? size : bytes / kHugePage * kHugePage;
  (void)madvise(p, marked, MADV_HUGEPAGE);
  return p;
}

void release(void* p, std::size_t bytes) noexcept {
  munmap(p, roundUp(bytes));
}
#else
void* allocate(std::size_t bytes) {
  return ::operator new (bytes, std::align_val_t{kHugePage});
}

void release(void* p, std::size_t) noexcept {
  ::operator delete (p, std::align_val_t{kHugePage});
}
#endif

}  // namespace st::large_pages
