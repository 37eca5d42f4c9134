// The large-array allocator: fresh, huge-page aligned mappings marked for huge pages, whose contents survive
// the growth of the vectors that use them.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "large_pages.hpp"

namespace st {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// The line starting with `field` of the mapping holding `address` in /proc/self/smaps; "" when none.
std::string smapsFieldAt(const void* address, const std::string& field) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind(field, 0) == 0) return line;
  }
  return {};
}

// The kernel's count of page faults that placed a huge page or tried to and fell back to small ones.
std::uint64_t hugePageFaults() {
  std::ifstream vmstat("/proc/vmstat");
  std::string name;
  std::uint64_t value = 0, total = 0;
  while (vmstat >> name >> value) {
    if (name == "thp_fault_alloc" || name == "thp_fault_fallback") total += value;
  }
  return total;
}

// Whether the kernel offers transparent huge pages to regions that ask for them.
bool hugePagesOnRequest() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return text.find("[madvise]") != std::string::npos || text.find("[always]") != std::string::npos;
}

TEST(LargePages, LargeArraysStartOnAHugePageAndKeepTheirContentsAsTheyGrow) {
  LargeVector<std::uint32_t> ids(large_pages::kThresholdBytes / sizeof(std::uint32_t) + 1000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ids.data()) % kHugePage, 0u);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i * 2654435761u);
  ids.resize(ids.size() * 3 + 7, 5u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ids.data()) % kHugePage, 0u);
  const std::size_t first = large_pages::kThresholdBytes / sizeof(std::uint32_t) + 1000;
  for (std::size_t i = 0; i < first; ++i) ASSERT_EQ(ids[i], static_cast<std::uint32_t>(i * 2654435761u)) << i;
  for (std::size_t i = first; i < ids.size(); ++i) ASSERT_EQ(ids[i], 5u) << i;
  ids.resize(10);
  ids.shrink_to_fit();
  EXPECT_EQ(ids[9], static_cast<std::uint32_t>(9u * 2654435761u));
}

TEST(LargePages, LargeArraysAreMarkedForHugePagesBeforeTheyAreTouched) {
#if defined(__linux__)
  if (!hugePagesOnRequest()) GTEST_SKIP() << "transparent huge pages are off on this system";
  // Twice the threshold: the first huge page is a whole one inside the array, whatever the tail.
  const std::uint64_t faultsBefore = hugePageFaults();
  LargeVector<float> values(2 * large_pages::kThresholdBytes / sizeof(float), 1.0f);
  const std::string flags = smapsFieldAt(values.data(), "VmFlags:");
  ASSERT_FALSE(flags.empty()) << "no mapping holds the array";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  // Filling the array touched its pages for the first time, after the marking: the kernel placed huge
  // pages there, or tried to and counted a fallback. Memory touched before the marking (a reused heap
  // block) would do neither.
  std::istringstream huge(smapsFieldAt(values.data(), "AnonHugePages:"));
  std::string label;
  std::uint64_t hugeKb = 0;
  huge >> label >> hugeKb;
  EXPECT_TRUE(hugeKb > 0 || hugePageFaults() > faultsBefore)
      << "no huge page placed and no fallback counted: the pages were touched before they were marked";
#else
  GTEST_SKIP() << "huge pages are asked for on Linux only";
#endif
}

}  // namespace
}  // namespace st
