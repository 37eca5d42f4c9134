#include "ui/demo_part.hpp"

#include <algorithm>

#include "spheretest/assert.hpp"

namespace st::ui {
namespace {

// A function-local static, so registrars in other files may run in any order during static initialisation.
std::vector<PartInfo>& mutableRegistry() {
  static std::vector<PartInfo> parts;
  return parts;
}

}  // namespace

PartRegistrar::PartRegistrar(PartInfo info) {
  std::vector<PartInfo>& parts = mutableRegistry();
  for (const PartInfo& existing : parts) ST_ASSERT(existing.name != info.name, "two demo parts share a name");
  parts.push_back(std::move(info));
  std::stable_sort(parts.begin(), parts.end(), [](const PartInfo& a, const PartInfo& b) {
    return a.category != b.category ? a.category < b.category : a.order < b.order;
  });
}

const std::vector<PartInfo>& registeredParts() {
  return mutableRegistry();
}

std::vector<PartSlot> createParts() {
  std::vector<PartSlot> slots;
  for (const PartInfo& info : registeredParts()) slots.push_back({&info, info.create(), info.shownByDefault});
  return slots;
}

bool DemoContext::isShown(const std::string& name) const {
  return std::any_of(parts.begin(), parts.end(),
                     [&](const PartSlot& s) { return s.info->name == name && s.shown; });
}

}  // namespace st::ui
