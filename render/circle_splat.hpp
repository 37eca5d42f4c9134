#pragma once
/// \file Drawing small circles on the CPU into an image that is then blended over the frame in one quad.
///
/// On a software rasterizer (Mesa llvmpipe) every primitive, however small, costs triangle setup, binning
/// and a shader run over whole 4x4 blocks; at 100,000 circles of a pixel or two that dominates the frame.
/// Writing those few pixels directly is an order of magnitude cheaper there. Circles larger than a few
/// pixels go back to the GPU path. The picture matches the shaders' (same coverage and rim rules).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/circle_renderer.hpp"
#include "render/gl.hpp"
#include "render/shader.hpp"
#include "spheretest/tasks.hpp"

namespace st::render {

/// CPU rasterizer for small circles plus the texture and program that put its image on screen.
class CircleSplatter {
 public:
  /// Circles with a larger on-screen radius (pixels) are handed back for the GPU path.
  static constexpr float kMaxRadiusPx = 6.0f;
  /// Pixels of one row of a splatted circle, at most.
  static constexpr int kMaxRowPixels = 16;

  CircleSplatter() = default;
  ~CircleSplatter();
  CircleSplatter(const CircleSplatter&) = delete;
  CircleSplatter& operator=(const CircleSplatter&) = delete;

  /// Creates the GL objects with the current context; returns "" or the error.
  std::string init();
  /// Draws the small circles and appends the large ones to `large`, in order; the CPU work is spread over
  /// the scheduler's workers (the picture is the same on any number of them).
  void draw(std::span<const CircleInstance> circles, const Camera& camera, const CircleStyle& style,
            std::vector<CircleInstance>& large, TaskScheduler& workers);

 private:
  void resize(int width, int height);
  /// A circle waiting to be splatted: screen position and radius in pixels, and its colours (copied so
  /// that the band-ordered pass never reaches back into the id-ordered circle array).
  struct Pending {
    float sx, sy, radiusPx;
    std::uint32_t fill, rim;
  };
  /// Pixel rectangle a band of circles wrote (empty while x1 < x0).
  struct Dirty {
    int x0, y0, x1, y1;
  };
  /// One piece of the circle array: the small circles it holds on screen, its large ones, and how many of
  /// the small ones fall in each bucket (a tile of a band).
  struct Piece {
    std::vector<Pending> pending;
    std::vector<CircleInstance> large;
    std::vector<std::uint32_t> perBand;
  };
  void splat(const Pending& p, float rimPx, Dirty& dirty);
  /// The common case at large counts, a circle of a pixel or so with an opaque fill, from precomputed
  /// stamps; false when the circle is not such a one.
  bool splatTiny(const Pending& p, Dirty& dirty);
  void buildStamps(float rimPx);
  void clearRows(int y0, int y1);

  std::vector<std::uint32_t> image_;  // premultiplied RGBA8, row 0 at the bottom as GL expects
  /// A pixel a tiny circle covers: where in its window, and its coverage and rim weight (0..256).
  struct StampCell {
    std::uint8_t x, y;
    std::uint16_t coverage, rim;
  };
  // The cells of each stamp (per radius step and sub-pixel place of the centre, see splatTiny), for the rim
  // width `stampRimPx_`; stamp k's are stampCells_[stampStart_[k] .. stampStart_[k + 1]).
  std::vector<StampCell> stampCells_;
  std::vector<std::uint32_t> stampStart_;
  float stampRimPx_ = -1.0f;
  std::vector<Piece> pieces_;
  std::vector<Pending> sorted_;  // the small circles band by band, in id order within each
  std::vector<std::uint32_t> bandStart_;
  std::vector<Dirty> bandDirty_;
  int width_ = 0;
  int height_ = 0;
  // Pixel rectangle written this frame (uploaded and drawn), and last frame's (cleared band by band).
  int dirtyX0_ = 0, dirtyY0_ = 0, dirtyX1_ = -1, dirtyY1_ = -1;
  int staleX0_ = 0, staleY0_ = 0, staleX1_ = -1, staleY1_ = -1;
  TexturedQuad quad_;
  GLint locRect_ = -1;
  GLint locViewport_ = -1;
};

}  // namespace st::render
