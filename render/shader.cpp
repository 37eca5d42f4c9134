#include "render/shader.hpp"

#include "render/camera.hpp"

namespace st::render {
namespace {

GLuint compile(GLenum kind, const char* source, std::string& error) {
  const GLuint shader = gl::CreateShader(kind);
  gl::ShaderSource(shader, 1, &source, nullptr);
  gl::CompileShader(shader);
  GLint ok = 0;
  gl::GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok == GL_TRUE) return shader;
  char log[2048] = {};
  gl::GetShaderInfoLog(shader, sizeof log, nullptr, log);
  error = std::string(kind == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader: " + log;
  gl::DeleteShader(shader);
  return 0;
}

}  // namespace

GLuint buildProgram(const char* vertexSource, const char* fragmentSource, std::string& error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertexSource, error);
  if (vs == 0) return 0;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragmentSource, error);
  if (fs == 0) {
    gl::DeleteShader(vs);
    return 0;
  }
  const GLuint program = gl::CreateProgram();
  gl::AttachShader(program, vs);
  gl::AttachShader(program, fs);
  gl::LinkProgram(program);
  gl::DeleteShader(vs);
  gl::DeleteShader(fs);
  GLint ok = 0;
  gl::GetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok == GL_TRUE) return program;
  char log[2048] = {};
  gl::GetProgramInfoLog(program, sizeof log, nullptr, log);
  error = std::string("link: ") + log;
  gl::DeleteProgram(program);
  return 0;
}

void setCameraUniforms(GLuint program, const Camera& camera) {
  const Vec2 c = camera.center();
  gl::Uniform2f(gl::GetUniformLocation(program, "uCenter"), c.x, c.y);
  gl::Uniform1f(gl::GetUniformLocation(program, "uScale"), camera.pixelsPerUnit());
  gl::Uniform2f(gl::GetUniformLocation(program, "uPixelToClip"), 2.0f / camera.width(),
                2.0f / camera.height());
}

TexturedQuad::~TexturedQuad() {
  if (program == 0 || gl::DeleteProgram == nullptr) return;
  gl::DeleteProgram(program);
  gl::DeleteTextures(1, &texture);
  gl::DeleteVertexArrays(1, &vao);
}

std::string TexturedQuad::init(const char* vertexSource, const char* what) {
  // A plain nearest-filtered sample rather than texelFetch: llvmpipe has a fast path for exactly this shape
  // of shader (one texture read, blended), which copies whole rows at a time.
  static const char* const kFragmentShader = R"(#version 330 core
uniform sampler2D uImage;
in vec2 vUv;
out vec4 fragColor;
void main() { fragColor = texture(uImage, vUv); }
)";
  std::string error;
  program = buildProgram(vertexSource, kFragmentShader, error);
  if (program == 0) return std::string(what) + ": " + error;
  gl::GenVertexArrays(1, &vao);
  gl::GenTextures(1, &texture);
  return "";
}

}  // namespace st::render
