#pragma once
// Reading a structure's extra() figures in a test. A figure that is renamed or dropped must fail the tests
// that read it, not read as 0 and pass an expectation of 0.

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "spheretest/spatial_index.hpp"

namespace st::testing {

/// The extra() figure `key` of `index`. A missing figure fails the test, naming the structure and the key,
/// and reads as NaN, which no expectation on it can pass.
inline double extraValue(const SpatialIndex& index, const std::string& key) {
  ExtraCounters figures;
  index.extra(figures);
  for (const auto& [name, value] : figures) {
    if (name == key) return value;
  }
  ADD_FAILURE() << index.name() << " reports no extra figure '" << key << "'";
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace st::testing
