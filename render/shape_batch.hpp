#pragma once
/// \file World-space lines and triangles gathered during a frame and drawn in two calls (node outlines,
/// query shapes, pair lines, cone fills).

#include <cstdint>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/gl.hpp"
#include "spheretest/geometry.hpp"

namespace st::render {

/// One vertex as the GPU reads it.
struct ShapeVertex {
  float x = 0.0f;            ///< world units
  float y = 0.0f;            ///< world units
  std::uint32_t colour = 0;  ///< RGBA8
};
static_assert(sizeof(ShapeVertex) == 12, "the vertex layout assumes a packed 12-byte vertex");

/// CPU-side collection of shapes for one layer of one frame.
class ShapeBatch {
 public:
  /// Empties the batch; `pixelsPerUnit` sets how finely circles and arcs are subdivided.
  void clear(float pixelsPerUnit) {
    lines_.clear();
    triangles_.clear();
    pixelsPerUnit_ = pixelsPerUnit;
  }
  /// Pixels per world unit of the frame being built.
  float pixelsPerUnit() const { return pixelsPerUnit_; }

  /// A one-pixel line.
  void line(Vec2 a, Vec2 b, std::uint32_t colour) {
    lines_.push_back({a.x, a.y, colour});
    lines_.push_back({b.x, b.y, colour});
  }
  /// A box outline.
  void boxOutline(const Box& box, std::uint32_t colour);
  /// A box outline in dashes of about `dashPx` pixels with gaps as long (bounds drawn beside a solid cell).
  void dashedBoxOutline(const Box& box, std::uint32_t colour, float dashPx = 5.0f);
  /// A filled box.
  void boxFill(const Box& box, std::uint32_t colour);
  /// A filled triangle.
  void triangle(Vec2 a, Vec2 b, Vec2 c, std::uint32_t colour) {
    triangles_.push_back({a.x, a.y, colour});
    triangles_.push_back({b.x, b.y, colour});
    triangles_.push_back({c.x, c.y, colour});
  }
  /// A circle outline as a polygon fine enough for its size on screen.
  void circleOutline(const Circle& circle, std::uint32_t colour);
  /// A filled sector from angle `from` to `to` (radians, counter-clockwise) around `center`.
  void sectorFill(Vec2 center, float radius, float from, float to, std::uint32_t colour);
  /// The outline of the same sector (its two edges and arc).
  void sectorOutline(Vec2 center, float radius, float from, float to, std::uint32_t colour);
  /// A cross of `sizePx` pixels, for points.
  void cross(Vec2 at, float sizePx, std::uint32_t colour);

  /// Line vertices, two per line.
  const std::vector<ShapeVertex>& lines() const { return lines_; }
  /// Triangle vertices, three per triangle.
  const std::vector<ShapeVertex>& triangles() const { return triangles_; }
  /// Whether nothing was added.
  bool empty() const { return lines_.empty() && triangles_.empty(); }

 private:
  int segmentsFor(float radius, float sweep) const;

  std::vector<ShapeVertex> lines_;
  std::vector<ShapeVertex> triangles_;
  float pixelsPerUnit_ = 1.0f;
};

/// Owns the program and buffer that draw ShapeBatches.
class ShapeRenderer {
 public:
  ShapeRenderer() = default;
  ~ShapeRenderer();
  ShapeRenderer(const ShapeRenderer&) = delete;
  ShapeRenderer& operator=(const ShapeRenderer&) = delete;

  /// Creates the GL objects with the current context; returns "" or the error.
  std::string init();
  /// Draws the triangles, then the lines, of a batch.
  void draw(const ShapeBatch& batch, const Camera& camera);

 private:
  void upload(const std::vector<ShapeVertex>& vertices);

  GLuint program_ = 0;
  GLuint vao_ = 0;
  GLuint buffer_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace st::render
