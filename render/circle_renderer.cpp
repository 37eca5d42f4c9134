#include "render/circle_renderer.hpp"

#include <string>

#include "render/circle_splat.hpp"
#include "render/shader.hpp"

namespace st::render {
namespace {

// Sizes are computed in pixels (one pixel of margin for the antialiased edge) and the fragment shader works
// in pixels too, which keeps rims and edges the same width at every zoom. Each mode's vertex shader only
// differs in where the circle comes from; the shared tail below places the corner.
const char* kVertexCommon = R"(
uniform vec2 uCenter;
uniform float uScale;
uniform vec2 uPixelToClip;
uniform float uMinRadiusPx;
out vec2 vLocal;
flat out float vRadiusPx;
flat out float vExtentPx;
flat out vec4 vFill;
flat out vec4 vRim;
// One triangle per circle rather than a quad: on a software rasterizer the per-triangle setup of many
// small circles costs more than the 30% of extra area. The equilateral triangle whose incircle has
// radius 1 has its corners at distance 2.
const vec2 kTriangle[3] = vec2[3](vec2(0.0, 2.0), vec2(-1.7320508, -1.0), vec2(1.7320508, -1.0));
void emit(vec3 circle, vec4 fill, vec4 rim, vec2 corner, bool point) {
  float radiusPx = max(circle.z * uScale, uMinRadiusPx);
  float extentPx = radiusPx + 1.0;
  vec2 centerPx = (circle.xy - uCenter) * uScale;
  vec2 posPx = point ? centerPx : centerPx + corner * extentPx;
  gl_Position = vec4(posPx * uPixelToClip, 0.0, 1.0);
  gl_PointSize = 2.0 * extentPx;
  vLocal = corner * extentPx;
  vRadiusPx = radiusPx;
  vExtentPx = extentPx;
  vFill = fill;
  vRim = rim;
}
)";

const char* kVertexPulled = R"(
uniform usamplerBuffer uCircles;
vec4 unpackColour(uint c) {
  return vec4(float(c & 255u), float((c >> 8) & 255u), float((c >> 16) & 255u), float(c >> 24)) / 255.0;
}
void main() {
  int circle = gl_VertexID / 3;
  int corner = gl_VertexID - circle * 3;
  int word = circle * 5;
  vec3 c = vec3(uintBitsToFloat(texelFetch(uCircles, word).r), uintBitsToFloat(texelFetch(uCircles, word + 1).r),
                uintBitsToFloat(texelFetch(uCircles, word + 2).r));
  emit(c, unpackColour(texelFetch(uCircles, word + 3).r), unpackColour(texelFetch(uCircles, word + 4).r),
       kTriangle[corner], false);
}
)";

const char* kVertexAttributes = R"(
layout(location = 0) in vec3 aCircle;
layout(location = 1) in vec4 aFill;
layout(location = 2) in vec4 aRim;
uniform int uPoints;
void main() {
  emit(aCircle, aFill, aRim, kTriangle[gl_VertexID % 3], uPoints != 0);
}
)";

const char* kFragment = R"(#version 330 core
in vec2 vLocal;
flat in float vRadiusPx;
flat in float vExtentPx;
flat in vec4 vFill;
flat in vec4 vRim;
uniform int uPoints;
uniform float uRimPx;
out vec4 fragColor;
void main() {
  vec2 local = uPoints != 0 ? (gl_PointCoord * 2.0 - 1.0) * vExtentPx : vLocal;
  float d = length(local);
  float coverage = clamp(vRadiusPx + 0.5 - d, 0.0, 1.0);
  if (coverage <= 0.0) discard;
  // Small circles keep most of their fill colour; the rim only rings them.
  float rimWidth = min(uRimPx, max(0.4 * vRadiusPx, 0.6));
  float inRim = clamp(d - (vRadiusPx - rimWidth) + 0.5, 0.0, 1.0) * vRim.a;
  vec4 colour = mix(vFill, vec4(vRim.rgb, 1.0), inRim);
  colour.a = max(vFill.a, inRim) * coverage;
  if (colour.a <= 0.0) discard;
  fragColor = colour;
}
)";

}  // namespace

const char* circleModeName(CircleMode mode) {
  switch (mode) {
    case CircleMode::Pulled:
      return "quads, one draw (vertex pulling)";
    case CircleMode::Instanced:
      return "quads, instanced";
    case CircleMode::Points:
      return "GL_POINTS";
    case CircleMode::Splat:
      return "small ones on the CPU (software GL)";
  }
  return "";
}

CircleRenderer::CircleRenderer() : splatter_(std::make_unique<CircleSplatter>()) {}

CircleRenderer::~CircleRenderer() {
  // Destruction without a context (init never ran) must not call into GL.
  if (vao_ == 0 || gl::DeleteProgram == nullptr) return;
  for (const Program& p : programs_) {
    if (p.id != 0) gl::DeleteProgram(p.id);
  }
  gl::DeleteTextures(1, &texture_);
  gl::DeleteBuffers(1, &buffer_);
  gl::DeleteVertexArrays(1, &vao_);
}

std::string CircleRenderer::init() {
  const std::string header = "#version 330 core\n";
  const std::string pulled = header + kVertexCommon + kVertexPulled;
  const std::string attributes = header + kVertexCommon + kVertexAttributes;
  const std::string* sources[3] = {&pulled, &attributes, &attributes};
  for (int i = 0; i < 3; ++i) {
    std::string error;
    programs_[i].id = buildProgram(sources[i]->c_str(), kFragment, error);
    if (programs_[i].id == 0)
      return std::string("circle program (") + circleModeName(CircleMode(i)) + "): " + error;
    programs_[i].minRadius = gl::GetUniformLocation(programs_[i].id, "uMinRadiusPx");
    programs_[i].rim = gl::GetUniformLocation(programs_[i].id, "uRimPx");
  }
  gl::GenVertexArrays(1, &vao_);
  gl::GenBuffers(1, &buffer_);
  gl::GenTextures(1, &texture_);
  gl::BindVertexArray(vao_);
  gl::BindBuffer(GL_ARRAY_BUFFER, buffer_);
  const GLsizei stride = sizeof(CircleInstance);
  gl::EnableVertexAttribArray(0);
  gl::VertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>(0));
  gl::EnableVertexAttribArray(1);
  gl::VertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<const void*>(12));
  gl::EnableVertexAttribArray(2);
  gl::VertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, reinterpret_cast<const void*>(16));
  gl::BindVertexArray(0);
  if (std::string error = splatter_->init(); !error.empty()) return error;
  return "";
}

void CircleRenderer::upload(std::span<const CircleInstance> circles) {
  gl::BindBuffer(GL_ARRAY_BUFFER, buffer_);
  const std::size_t bytes = circles.size_bytes();
  // Orphaning the old storage each frame lets the driver keep drawing the previous frame meanwhile.
  if (bytes > capacity_) capacity_ = bytes + bytes / 2;
  gl::BufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_), nullptr, GL_STREAM_DRAW);
  gl::BufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), circles.data());
}

void CircleRenderer::draw(std::span<const CircleInstance> circles, const Camera& camera, CircleMode mode,
                          const CircleStyle& style) {
  if (circles.empty() || vao_ == 0) return;
  if (mode == CircleMode::Splat) {
    large_.clear();
    splatter_->draw(circles, camera, style, large_, workers_ ? *workers_ : serialScheduler());
    circles = large_;
    mode = CircleMode::Pulled;
    if (circles.empty()) return;
  }
  const Program& program = programs_[static_cast<int>(mode)];
  gl::UseProgram(program.id);
  setCameraUniforms(program.id, camera);
  gl::Uniform1i(gl::GetUniformLocation(program.id, "uPoints"), mode == CircleMode::Points ? 1 : 0);
  gl::Uniform1f(program.minRadius, style.minRadiusPx);
  gl::Uniform1f(program.rim, style.rimPx);
  gl::BindVertexArray(vao_);
  upload(circles);
  const auto count = static_cast<GLsizei>(circles.size());
  switch (mode) {
    case CircleMode::Pulled:
      gl::ActiveTexture(GL_TEXTURE0);
      gl::BindTexture(GL_TEXTURE_BUFFER, texture_);
      // Re-attached every frame because orphaning gave the buffer new storage.
      gl::TexBuffer(GL_TEXTURE_BUFFER, GL_R32UI, buffer_);
      gl::Uniform1i(gl::GetUniformLocation(program.id, "uCircles"), 0);
      gl::DrawArrays(GL_TRIANGLES, 0, count * 3);
      gl::BindTexture(GL_TEXTURE_BUFFER, 0);
      break;
    case CircleMode::Instanced:
      for (GLuint a = 0; a < 3; ++a) gl::VertexAttribDivisor(a, 1);
      gl::DrawArraysInstanced(GL_TRIANGLES, 0, 3, count);
      break;
    case CircleMode::Points:
      for (GLuint a = 0; a < 3; ++a) gl::VertexAttribDivisor(a, 0);
      gl::Enable(GL_PROGRAM_POINT_SIZE);
      gl::DrawArrays(GL_POINTS, 0, count);
      gl::Disable(GL_PROGRAM_POINT_SIZE);
      break;
    case CircleMode::Splat:
      break;
  }
  gl::BindVertexArray(0);
}

}  // namespace st::render
