#pragma once
/// \file An image laid over a box of the world and drawn as one textured quad: a picture computed on the
/// CPU at a few pixels per texel (the node overlay's depth fill) costs one upload and one blended quad,
/// where the same picture as shapes would cost a triangle pair per node.

#include <cstdint>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/gl.hpp"
#include "render/shader.hpp"
#include "spheretest/geometry.hpp"

namespace st::render {

/// Texels over a world box, row 0 at the box's bottom, RGBA8 as palette.hpp packs them.
struct WorldImage {
  Box area;                           ///< the world box the image covers
  int width = 0;                      ///< texels per row (0: no image)
  int height = 0;                     ///< rows
  std::vector<std::uint32_t> texels;  ///< width * height colours
  bool premultiplied = false;         ///< colours already multiplied by their alpha
  /// Whether there is anything to draw.
  bool empty() const { return width <= 0 || height <= 0; }
  /// Drops the image.
  void clear() { width = height = 0; }
};

/// Owns the texture and program that draw WorldImages.
class WorldImageRenderer {
 public:
  /// Creates the GL objects with the current context; returns "" or the error.
  std::string init();
  /// Draws the image over its world box, each texel a sharp square, blended over what is there.
  void draw(const WorldImage& image, const Camera& camera);

 private:
  TexturedQuad quad_;
  int textureWidth_ = 0;
  int textureHeight_ = 0;
};

/// Restricts drawing to the pixels of a world box on screen (GL's scissor test) until the scope ends.
class ClipToWorldBox {
 public:
  /// Clips to `box` as `camera` shows it in a viewport of the camera's size.
  ClipToWorldBox(const Box& box, const Camera& camera);
  ~ClipToWorldBox();
  ClipToWorldBox(const ClipToWorldBox&) = delete;
  ClipToWorldBox& operator=(const ClipToWorldBox&) = delete;
};

}  // namespace st::render
