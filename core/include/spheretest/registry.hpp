#pragma once
/// \file
/// Name -> factory table through which the runner, the tests, the benchmark and the app find every
/// structure. Core structures are added by withCoreStructures(); other libraries add their own entries.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spheretest/spatial_index.hpp"

namespace st {

/// One registered structure.
struct StructureInfo {
  std::string name;                                       ///< command-line name
  std::string summary;                                    ///< one line for listings
  std::string source;                                     ///< the source document it comes from ("" if none)
  bool peer = false;                                      ///< a wrapped third-party library, not ours
  std::function<std::unique_ptr<SpatialIndex>()> create;  ///< factory of an empty instance
};

/// Ordered collection of structures; brute force comes first.
class StructureRegistry {
 public:
  /// A registry holding every structure of core/, brute force first.
  static StructureRegistry withCoreStructures();

  /// Adds a structure; throws std::logic_error if the name is taken.
  void add(StructureInfo info);
  /// All entries in registration order.
  const std::vector<StructureInfo>& all() const { return entries_; }
  /// The entry with this name, or nullptr.
  const StructureInfo* find(std::string_view name) const;
  /// A new instance of the named structure; throws InvalidInput listing the valid names if unknown.
  std::unique_ptr<SpatialIndex> create(std::string_view name) const;
  /// Comma-separated list of names.
  std::string names() const;

 private:
  std::vector<StructureInfo> entries_;
};

/// Adds the structures of core/ to a registry (called by withCoreStructures).
void registerCoreStructures(StructureRegistry& registry);

}  // namespace st
