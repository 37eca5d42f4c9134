#include "render/world_image.hpp"

#include <algorithm>
#include <cmath>

#include "render/shader.hpp"

namespace st::render {
namespace {

const char* kVertexShader = R"(#version 330 core
uniform vec2 uCenter;
uniform float uScale;
uniform vec2 uPixelToClip;
uniform vec4 uArea;  // x0, y0, x1, y1 in world units
out vec2 vUv;
void main() {
  vec2 uv = vec2((gl_VertexID & 1) == 0 ? 0.0 : 1.0, (gl_VertexID & 2) == 0 ? 0.0 : 1.0);
  vec2 world = mix(uArea.xy, uArea.zw, uv);
  vUv = uv;
  gl_Position = vec4((world - uCenter) * uScale * uPixelToClip, 0.0, 1.0);
}
)";

}  // namespace

std::string WorldImageRenderer::init() {
  return quad_.init(kVertexShader, "world image program");
}

void WorldImageRenderer::draw(const WorldImage& image, const Camera& camera) {
  if (image.empty() || quad_.program == 0 ||
      image.texels.size() < std::size_t(image.width) * std::size_t(image.height))
    return;
  gl::ActiveTexture(GL_TEXTURE0);
  gl::BindTexture(GL_TEXTURE_2D, quad_.texture);
  if (image.width != textureWidth_ || image.height != textureHeight_) {
    textureWidth_ = image.width;
    textureHeight_ = image.height;
    gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image.width, image.height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                   nullptr);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl::TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  gl::PixelStorei(GL_UNPACK_ALIGNMENT, 4);
  gl::TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE,
                    image.texels.data());
  gl::UseProgram(quad_.program);
  setCameraUniforms(quad_.program, camera);
  gl::Uniform4f(gl::GetUniformLocation(quad_.program, "uArea"), image.area.min.x, image.area.min.y,
                image.area.max.x, image.area.max.y);
  gl::Uniform1i(gl::GetUniformLocation(quad_.program, "uImage"), 0);
  gl::BindVertexArray(quad_.vao);
  if (image.premultiplied)
    gl::BlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  gl::DrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  if (image.premultiplied)
    gl::BlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  gl::BindVertexArray(0);
  gl::BindTexture(GL_TEXTURE_2D, 0);
}

ClipToWorldBox::ClipToWorldBox(const Box& box, const Camera& camera) {
  // Screen pixels have y down, GL's scissor y up; the box's corners round outward to whole pixels.
  const Vec2 a = camera.worldToScreen(box.min), b = camera.worldToScreen(box.max);
  const float x0 = std::clamp(std::floor(std::min(a.x, b.x)), 0.0f, camera.width());
  const float x1 = std::clamp(std::ceil(std::max(a.x, b.x)), 0.0f, camera.width());
  const float top = std::clamp(std::floor(std::min(a.y, b.y)), 0.0f, camera.height());
  const float bottom = std::clamp(std::ceil(std::max(a.y, b.y)), 0.0f, camera.height());
  gl::Enable(GL_SCISSOR_TEST);
  gl::Scissor(GLint(x0), GLint(camera.height() - bottom), GLsizei(x1 - x0), GLsizei(bottom - top));
}

ClipToWorldBox::~ClipToWorldBox() {
  gl::Disable(GL_SCISSOR_TEST);
}

}  // namespace st::render
