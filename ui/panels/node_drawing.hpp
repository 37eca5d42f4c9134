#pragma once
/// \file Drawing many nodes so that they read at any zoom: the node overlay's pictures (where the tree is
/// deep, and its outlines), and patches for nodes too small to outline (where a walk went). No ImGui here.

#include <cstdint>
#include <vector>

#include "render/camera.hpp"
#include "render/shape_batch.hpp"
#include "render/world_image.hpp"
#include "spheretest/spatial_index.hpp"

namespace st::ui {

/// The box a node's drawing covers: its box, or its sphere's bounds.
inline Box drawnBounds(const NodeInfo& node) {
  return node.shape == NodeShape::Circle ? boundsOf(node.circle) : node.box;
}

/// The node overlay's pictures, drawn on the CPU: a software rasterizer pays for every primitive, and a tree
/// at 100,000 circles has tens of thousands of nodes, so they become two images of the visible part of the
/// world, each one textured quad.
///  - The fill, under the circles: each place takes the shade of the deepest node covering it, lighter where
///    the tree is deeper (a few pixels per texel; tiny deep nodes under a swarm still count).
///  - The outlines and the haze, over the circles, one texel per screen pixel: the outlines of the nodes at
///    least a few pixels across, over a haze where the tree goes deeper than those outlines show (under a
///    swarm every level below the outlined ones would otherwise be hidden by the circles).
class NodeRaster {
 public:
  /// Screen pixels per texel of the depth map behind the fill and the haze.
  static constexpr int kDepthTexelPx = 2;
  /// Opacity the haze adds per level hidden below the outlines, and its most.
  static constexpr std::uint32_t kHazePerLevel = 22;
  static constexpr std::uint32_t kHazeMax = 110;

  /// Starts empty pictures of the part of `world` the camera shows; false when none of it shows.
  bool reset(const Box& world, const render::Camera& camera);
  /// Counts a node in the depth map: the texels whose centres it covers take its depth when it is deeper
  /// than theirs; a node too small to cover a texel centre marks the texel holding its own centre. An
  /// `outlined` node also counts as shown, for the haze.
  void addDepth(const NodeInfo& node, bool outlined);
  /// Outlines a box in `colour` (straight alpha), one pixel wide, over the outlines drawn before it.
  void outline(const Box& box, std::uint32_t colour);
  /// Outlines a circle in `colour` (straight alpha), about a pixel wide with soft edges.
  void outline(const Circle& circle, std::uint32_t colour);
  /// Depth of the deepest node at a depth texel, -1 where no node is (row 0 at the bottom).
  int depthAt(int column, int row) const { return deepest_[depthIndex(column, row)]; }
  /// Depth texels per row.
  int depthWidth() const { return depthWidth_; }
  /// Depth texel rows.
  int depthHeight() const { return depthHeight_; }
  /// Paints the fill into `fill` (depth d in render::depthFill(d / deepest), a flat structure whose nodes all
  /// have depth 0 in the middle shade, empty places clear) and the outlines over the haze into `over`
  /// (premultiplied; the haze kHazePerLevel of opacity per level below the deepest outline there). With
  /// `withFill` false only the outlines are painted.
  void paint(render::WorldImage& fill, render::WorldImage& over, int deepest, bool withFill) const;

 private:
  std::size_t depthIndex(int column, int row) const {
    return std::size_t(row) * std::size_t(depthWidth_) + std::size_t(column);
  }

  Box area_;            // the world box the pictures cover, on screen pixel edges
  float pixel_ = 1.0f;  // world units per screen pixel
  int width_ = 0;       // pixels
  int height_ = 0;
  int depthWidth_ = 0;  // depth texels
  int depthHeight_ = 0;
  std::vector<std::int8_t> deepest_;
  std::vector<std::int8_t> outlined_;
  std::vector<std::uint32_t> lines_;  // premultiplied outline colours, one per pixel
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
