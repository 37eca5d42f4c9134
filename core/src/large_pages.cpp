#include "large_pages.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace st::large_pages {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}  // namespace

void* allocate(std::size_t bytes) {
  void* p = ::operator new (bytes, std::align_val_t{kHugePage});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Whole huge pages only: the tail stays on small pages, so residency never exceeds the request. A refusal
  // (huge pages off) leaves ordinary pages, which is only slower.
  const std::size_t whole = bytes / kHugePage * kHugePage;
  if (whole > 0) (void)madvise(p, whole, MADV_HUGEPAGE);
#endif
  return p;
}

void release(void* p) noexcept {
  ::operator delete (p, std::align_val_t{kHugePage});
}

}  // namespace st::large_pages
