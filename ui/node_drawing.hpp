#pragma once
/// \file Drawing many nodes so that they read at any zoom: the depth map under the circles (where the tree
/// is deep), and patches for nodes too small to outline (where a walk went). No ImGui here.

#include <cstdint>
#include <vector>

#include "render/shape_batch.hpp"
#include "render/world_image.hpp"
#include "spheretest/spatial_index.hpp"

namespace st::ui {

/// The box a node's drawing covers: its box, or its sphere's bounds.
inline Box drawnBounds(const NodeInfo& node) {
  return node.shape == NodeShape::Circle ? boundsOf(node.circle) : node.box;
}

/// The deepest node covering each place of a world box, a few pixels per texel, painted as two images: a
/// fill under the circles, lighter where the tree is deeper, and a haze over them where the tree goes deeper
/// than the outlines drawn there show (under a swarm at 100,000 circles, every level below the outlined
/// ones would otherwise be hidden by the circles).
class DepthMap {
 public:
  /// Screen pixels per texel: fine enough for cells of a few pixels, coarse enough to cost little.
  static constexpr float kTexelPx = 2.0f;
  /// Opacity the haze adds per level hidden below the outlines, and its most.
  static constexpr std::uint32_t kHazePerLevel = 22;
  static constexpr std::uint32_t kHazeMax = 110;

  /// Starts an empty map over `area`, a world box shown `ppu` pixels per unit.
  void reset(const Box& area, float ppu);
  /// Counts a node, `outlined` when it is drawn as an outline: the texels whose centres it covers take its
  /// depth when it is deeper than theirs; a node too small to cover a texel centre marks the texel holding
  /// its own centre.
  void add(const NodeInfo& node, bool outlined);
  /// Depth of the deepest node at a texel, -1 where no node is (row 0 at the area's bottom).
  int depthAt(int column, int row) const { return deepest_[index(column, row)]; }
  /// Depth of the deepest outlined node at a texel, -1 where none is.
  int outlinedDepthAt(int column, int row) const { return outlined_[index(column, row)]; }
  /// Texels per row.
  int width() const { return width_; }
  /// Rows.
  int height() const { return height_; }
  /// Paints the fill into `fill` (depth d in render::depthFill(d / deepest), a flat structure whose nodes
  /// all have depth 0 in the middle shade, empty places clear) and the haze into `haze` (kHazePerLevel of
  /// opacity per level below the deepest outline, none where nothing is hidden).
  void paint(render::WorldImage& fill, render::WorldImage& haze, int deepest) const;

 private:
  std::size_t index(int column, int row) const {
    return std::size_t(row) * std::size_t(width_) + std::size_t(column);
  }

  Box area_;
  float texel_ = 1.0f;  // world units per texel
  int width_ = 0;
  int height_ = 0;
  std::vector<std::int8_t> deepest_;
  std::vector<std::int8_t> outlined_;
};

/// Nodes too small to outline at the current zoom, gathered into square patches of the screen: one fill per
/// patch however many nodes fall in it, so that a fine level reads as a shade rather than a solid mesh.
class PatchGrid {
 public:
  /// Starts an empty grid of `patchPx` pixel squares over `view`, a world box shown `ppu` pixels per unit.
  void reset(const Box& view, float ppu, float patchPx);
  /// Counts a node whose bounds are `bounds` in the patch holding their centre.
  void add(const Box& bounds);
  /// Patches holding at least one node.
  std::size_t patches() const { return used_; }
  /// Fills every patch holding nodes in `out`, in `colour` with an alpha growing with the number of nodes
  /// from `minAlpha` to `maxAlpha`.
  void fill(render::ShapeBatch& out, std::uint32_t colour, std::uint32_t minAlpha,
            std::uint32_t maxAlpha) const;

 private:
  Box view_;
  float cellWorld_ = 1.0f;
  int columns_ = 0;
  int rows_ = 0;
  std::size_t used_ = 0;
  std::vector<std::uint8_t> counts_;
};

}  // namespace st::ui
