#pragma once
/// \file
/// Compares a structure with brute force on every query type and the pair search. The project's
/// differential tests and fuzzer check every structure with it, and a structure written outside the
/// library (see examples/sweep_and_prune.hpp) is checked with the same calls.

#include <string>
#include <vector>

#include "spheretest/rng.hpp"
#include "spheretest/scene.hpp"
#include "spheretest/spatial_index.hpp"

namespace st::testing {

/// Bounds inside which random queries are drawn.
struct QueryArea {
  Box box{{0, 0}, {100, 100}};  ///< where query centres fall
  float maxSize = 20.0f;        ///< largest query radius / half extent / ray length
};

/// Runs `queries` random queries of every kind (point, circle, box, ray, first ray hit, nearest circles,
/// the callback form, view cone) and a
/// pair search on both structures; returns "" when they agree, else what differed. Also calls validate().
std::string compareWithOracle(SpatialIndex& subject, SpatialIndex& oracle, Rng& rng, const QueryArea& area,
                              int queries, bool checkPairs = true);

/// A seeded random circle with mixed sizes (log-uniform over four decades, some zero radii, some
/// coincident with earlier ones via `pool`).
Circle randomCircle(Rng& rng, const QueryArea& area);

/// A batch moving every item of `reference` with an id below `idLimit` by `dx` along x.
void shiftedBatch(const SpatialIndex& reference, ItemId idLimit, float dx, std::vector<ItemId>& ids,
                  std::vector<Circle>& circles);

/// Lets `index` live through `frames` steps of `sim` as a long run does: step, batched update of the
/// moved circles, maintain (no pair search, which changes nothing in a structure).
void liveThrough(SpatialIndex& index, Simulation& sim, int frames);

}  // namespace st::testing
