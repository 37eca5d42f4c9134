#pragma once
/// \file Draws many circles in one draw call, each a quad cut round in the fragment shader with an
/// optional rim.
///
/// Three ways to feed the quads, same picture:
///  - Pulled (default): one non-instanced triangle list; the vertex shader reads its circle from a buffer
///    texture by gl_VertexID / 6. Software rasterizers (Mesa llvmpipe) run instanced draws one instance
///    at a time, so this is several times cheaper there and no slower on a GPU.
///  - Instanced: a 4-vertex strip per instance; the textbook form.
///  - Points: one GL_POINTS vertex per circle; cheap, but circles larger than the driver's largest point
///    size are cut square, so it is offered as an option only.
///  - Splat: circles of a few pixels are drawn on the CPU (see circle_splat.hpp), the rest pulled; by far
///    the fastest on software rasterizers, slower than the others on a GPU.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "render/camera.hpp"
#include "render/gl.hpp"
#include "spheretest/tasks.hpp"

namespace st::render {

/// One circle as the GPU reads it.
struct CircleInstance {
  float x = 0.0f;          ///< centre, world units
  float y = 0.0f;          ///< centre, world units
  float radius = 0.0f;     ///< world units
  std::uint32_t fill = 0;  ///< RGBA8 interior (alpha 0: outline only)
  std::uint32_t rim = 0;   ///< RGBA8 rim (alpha 0: no rim)
};
static_assert(sizeof(CircleInstance) == 20, "the shaders read a packed 20-byte circle (five 32-bit words)");

/// How circles reach the rasterizer.
enum class CircleMode : std::uint8_t { Pulled, Instanced, Points, Splat };
/// Number of modes.
inline constexpr int kCircleModeCount = 4;

/// Display name of a mode.
const char* circleModeName(CircleMode mode);

/// Per-draw appearance.
struct CircleStyle {
  float minRadiusPx = 0.8f;  ///< circles smaller than this on screen are drawn this big, so none vanish
  float rimPx = 1.5f;        ///< rim width in pixels
};

class CircleSplatter;

/// Owns the programs, the circle buffer and its buffer texture.
class CircleRenderer {
 public:
  CircleRenderer();
  ~CircleRenderer();
  CircleRenderer(const CircleRenderer&) = delete;
  CircleRenderer& operator=(const CircleRenderer&) = delete;

  /// Creates the GL objects with the current context; returns "" or the error.
  std::string init();
  /// Draws the circles; the buffer grows to the largest batch seen and is then reused.
  void draw(std::span<const CircleInstance> circles, const Camera& camera, CircleMode mode,
            const CircleStyle& style);
  /// The workers that draw on the CPU (the splat mode) share out their work (nullptr: the calling thread
  /// alone); it must outlive the draws.
  void setScheduler(TaskScheduler* workers) { workers_ = workers; }

 private:
  struct Program {
    GLuint id = 0;
    GLint minRadius = -1, rim = -1;
  };
  void upload(std::span<const CircleInstance> circles);

  Program programs_[3];
  std::unique_ptr<CircleSplatter> splatter_;
  TaskScheduler* workers_ = nullptr;
  std::vector<CircleInstance> large_;
  GLuint vao_ = 0;
  GLuint buffer_ = 0;
  GLuint texture_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace st::render
