#pragma once
/// \file Compiling and linking small GLSL 330 programs.

#include <string>

#include "render/gl.hpp"

namespace st::render {

/// Compiles and links a vertex + fragment program; returns 0 and fills `error` on failure.
GLuint buildProgram(const char* vertexSource, const char* fragmentSource, std::string& error);

/// The GL objects of a pass that draws one textured quad: its program, an empty vertex array (the vertex
/// shader makes the corners) and the texture. Deleted with it.
struct TexturedQuad {
  GLuint program = 0;  ///< the linked program, 0 before init() or after a failure
  GLuint vao = 0;      ///< the vertex array to bind while drawing
  GLuint texture = 0;  ///< the texture the pass uploads into
  TexturedQuad() = default;
  ~TexturedQuad();
  TexturedQuad(const TexturedQuad&) = delete;
  TexturedQuad& operator=(const TexturedQuad&) = delete;
  /// Builds the program from `vertexSource` (which passes the texture coordinate on as vUv) and a fragment
  /// shader that samples the texture there, and creates the vertex array and texture with the current
  /// context; returns "" or the error, prefixed with `what`.
  std::string init(const char* vertexSource, const char* what);
};

/// Sets the uniforms every world-space program shares: the camera as centre, scale and viewport.
class Camera;
void setCameraUniforms(GLuint program, const Camera& camera);

}  // namespace st::render
