#include "spheretest/registry.hpp"

#include <stdexcept>

namespace st {

StructureRegistry StructureRegistry::withCoreStructures() {
  StructureRegistry registry;
  registerCoreStructures(registry);
  return registry;
}

void StructureRegistry::add(StructureInfo info) {
  if (find(info.name)) throw std::logic_error("structure registered twice: " + info.name);
  entries_.push_back(std::move(info));
}

const StructureInfo* StructureRegistry::find(std::string_view name) const {
  for (const StructureInfo& entry : entries_) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::unique_ptr<SpatialIndex> StructureRegistry::create(std::string_view name) const {
  const StructureInfo* entry = find(name);
  if (!entry) throw InvalidInput("unknown structure '" + std::string(name) + "'; valid: " + names());
  return entry->create();
}

std::string StructureRegistry::names() const {
  std::string out;
  for (const StructureInfo& entry : entries_) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

}  // namespace st
