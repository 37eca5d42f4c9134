#pragma once
// Everything the grid family (grid, grid-replicated, hgrid) shares, and the few policies they apply alike:
//
// - grid_cell_mapping.hpp: coordinates to cell indices, the cell size and hash window;
// - grid_cell_table.hpp: the open-addressing table from cells to their items;
// - grid_nodes.hpp: the stored nodes and the steps of moving them between cells;
// - grid_level.hpp: one level of hashed grid (table + lists in one node array);
// - grid_walk.hpp: the cells a query reaches, and visiting them;
// - grid_pairs.hpp (with grid_pair_kernels.hpp): the overlapping pairs within one grid.

#include <cstddef>
#include <string>
#include <vector>

#include "spheretest/spatial_index.hpp"

#include "grid_cell_mapping.hpp"
#include "grid_cell_table.hpp"
#include "grid_level.hpp"
#include "grid_nodes.hpp"
#include "grid_pairs.hpp"
#include "grid_walk.hpp"
#include "structures/shared/simd_support.hpp"

namespace st::grid_detail {

using simd::widestVectorLanes;

/// The parameters every grid takes: its cell size, relative to the largest circles' diameter or in world
/// units (`cell` names the cell it sizes), and the share of the items a batch must move for the grid to
/// `rebuild` whole instead of moving them one by one.
inline std::vector<ParamInfo> gridParams(const std::string& cell, const std::string& rebuild) {
  return {{"cell_scale", cell + " as a multiple of the diameter of the largest circles in the scene", 1.0,
           0.25, 16.0, false},
          {"cell_size", cell + " in world units; 0 = cell_scale x that diameter", 0.0, 0.0, 1e15, false},
          {"rebuild_fraction",
           "share of the items one update batch must move for it to " + rebuild +
               " instead of moving items one by one",
           0.25, 0.0, 1.0, false}};
}

/// The wide_vectors parameter of the grids with sorted cells.
inline ParamInfo wideVectorsParam() {
  return {"wide_vectors",
          "1: the vector loops (pair pre-test, run-start pass) run 16 lanes of AVX-512 where the CPU has it; "
          "0: 4 lanes of SSE2. The results are the same",
          1.0,
          0.0,
          1.0,
          true};
}

/// The lanes a wide_vectors setting runs on this CPU.
inline int vectorLanesFor(double wideVectors) {
  return wideVectors >= 1.0 ? widestVectorLanes() : 4;
}

/// Whether an update batch of `batch` items takes a grid's whole-frame path: it moves at least the grid's
/// `rebuild_fraction` of its items.
inline bool wholeFrameBatch(const SpatialIndex& grid, std::size_t batch) {
  return batch > 0 && grid.size() > 0 &&
         double(batch) / double(grid.size()) >= grid.param("rebuild_fraction");
}

}  // namespace st::grid_detail
