#include "render/shape_batch.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "render/shader.hpp"

namespace st::render {

// ---------------------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------------------

void ShapeBatch::boxOutline(const Box& box, std::uint32_t colour) {
  const Vec2 a = box.min, c = box.max;
  const Vec2 b{c.x, a.y}, d{a.x, c.y};
  line(a, b, colour);
  line(b, c, colour);
  line(c, d, colour);
  line(d, a, colour);
}

void ShapeBatch::dashedBoxOutline(const Box& box, std::uint32_t colour, float dashPx) {
  const float dash = std::max(dashPx, 1.0f) / pixelsPerUnit_;
  auto side = [&](Vec2 from, Vec2 to) {
    const float length = std::max(std::fabs(to.x - from.x), std::fabs(to.y - from.y));
    // Whole dash-and-gap periods, at most a few hundred a side: a huge box zoomed in stays cheap.
    const int periods = std::clamp(static_cast<int>(length / (2.0f * dash)), 1, 400);
    const Vec2 step{(to.x - from.x) / float(periods), (to.y - from.y) / float(periods)};
    for (int i = 0; i < periods; ++i) {
      const Vec2 a{from.x + step.x * float(i), from.y + step.y * float(i)};
      line(a, {a.x + 0.5f * step.x, a.y + 0.5f * step.y}, colour);
    }
  };
  const Vec2 a = box.min, c = box.max;
  const Vec2 b{c.x, a.y}, d{a.x, c.y};
  side(a, b);
  side(b, c);
  side(c, d);
  side(d, a);
}

void ShapeBatch::boxFill(const Box& box, std::uint32_t colour) {
  const Vec2 a = box.min, c = box.max;
  const Vec2 b{c.x, a.y}, d{a.x, c.y};
  triangle(a, b, c, colour);
  triangle(a, c, d, colour);
}

int ShapeBatch::segmentsFor(float radius, float sweep) const {
  // About one segment per 6 pixels of arc keeps outlines round without flooding the batch.
  const float arcPx = radius * pixelsPerUnit_ * sweep;
  return std::clamp(static_cast<int>(arcPx / 6.0f), 6, 256);
}

void ShapeBatch::circleOutline(const Circle& circle, std::uint32_t colour) {
  const float tau = 2.0f * std::numbers::pi_v<float>;
  const int n = segmentsFor(circle.radius, tau);
  Vec2 previous{circle.center.x + circle.radius, circle.center.y};
  for (int i = 1; i <= n; ++i) {
    const float angle = tau * float(i) / float(n);
    const Vec2 next{circle.center.x + circle.radius * std::cos(angle),
                    circle.center.y + circle.radius * std::sin(angle)};
    line(previous, next, colour);
    previous = next;
  }
}

void ShapeBatch::sectorFill(Vec2 center, float radius, float from, float to, std::uint32_t colour) {
  const int n = segmentsFor(radius, to - from);
  Vec2 previous{center.x + radius * std::cos(from), center.y + radius * std::sin(from)};
  for (int i = 1; i <= n; ++i) {
    const float angle = from + (to - from) * float(i) / float(n);
    const Vec2 next{center.x + radius * std::cos(angle), center.y + radius * std::sin(angle)};
    triangle(center, previous, next, colour);
    previous = next;
  }
}

void ShapeBatch::sectorOutline(Vec2 center, float radius, float from, float to, std::uint32_t colour) {
  const int n = segmentsFor(radius, to - from);
  Vec2 previous{center.x + radius * std::cos(from), center.y + radius * std::sin(from)};
  line(center, previous, colour);
  for (int i = 1; i <= n; ++i) {
    const float angle = from + (to - from) * float(i) / float(n);
    const Vec2 next{center.x + radius * std::cos(angle), center.y + radius * std::sin(angle)};
    line(previous, next, colour);
    previous = next;
  }
  line(previous, center, colour);
}

void ShapeBatch::cross(Vec2 at, float sizePx, std::uint32_t colour) {
  const float h = sizePx / pixelsPerUnit_;
  line({at.x - h, at.y}, {at.x + h, at.y}, colour);
  line({at.x, at.y - h}, {at.x, at.y + h}, colour);
}

// ---------------------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------------------

namespace {

const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec2 aPosition;
layout(location = 1) in vec4 aColour;
uniform vec2 uCenter;
uniform float uScale;
uniform vec2 uPixelToClip;
out vec4 vColour;
void main() {
  gl_Position = vec4((aPosition - uCenter) * uScale * uPixelToClip, 0.0, 1.0);
  vColour = aColour;
}
)";

const char* kFragmentShader = R"(#version 330 core
in vec4 vColour;
out vec4 fragColor;
void main() { fragColor = vColour; }
)";

}  // namespace

ShapeRenderer::~ShapeRenderer() {
  if (program_ != 0 && gl::DeleteProgram != nullptr) {
    gl::DeleteProgram(program_);
    gl::DeleteBuffers(1, &buffer_);
    gl::DeleteVertexArrays(1, &vao_);
  }
}

std::string ShapeRenderer::init() {
  std::string error;
  program_ = buildProgram(kVertexShader, kFragmentShader, error);
  if (program_ == 0) return "shape program: " + error;
  gl::GenVertexArrays(1, &vao_);
  gl::GenBuffers(1, &buffer_);
  gl::BindVertexArray(vao_);
  gl::BindBuffer(GL_ARRAY_BUFFER, buffer_);
  gl::EnableVertexAttribArray(0);
  gl::VertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ShapeVertex), reinterpret_cast<const void*>(0));
  gl::EnableVertexAttribArray(1);
  gl::VertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ShapeVertex),
                          reinterpret_cast<const void*>(8));
  gl::BindVertexArray(0);
  return "";
}

void ShapeRenderer::upload(const std::vector<ShapeVertex>& vertices) {
  const std::size_t bytes = vertices.size() * sizeof(ShapeVertex);
  if (bytes > capacity_) capacity_ = bytes + bytes / 2;
  gl::BufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_), nullptr, GL_STREAM_DRAW);
  gl::BufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), vertices.data());
}

void ShapeRenderer::draw(const ShapeBatch& batch, const Camera& camera) {
  if (batch.empty() || program_ == 0) return;
  gl::UseProgram(program_);
  setCameraUniforms(program_, camera);
  gl::BindVertexArray(vao_);
  gl::BindBuffer(GL_ARRAY_BUFFER, buffer_);
  if (!batch.triangles().empty()) {
    upload(batch.triangles());
    gl::DrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(batch.triangles().size()));
  }
  if (!batch.lines().empty()) {
    upload(batch.lines());
    gl::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(batch.lines().size()));
  }
  gl::BindVertexArray(0);
}

}  // namespace st::render
