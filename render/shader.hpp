#pragma once
/// \file Compiling and linking small GLSL 330 programs.

#include <string>

#include "render/gl.hpp"

namespace st::render {

/// Compiles and links a vertex + fragment program; returns 0 and fills `error` on failure.
GLuint buildProgram(const char* vertexSource, const char* fragmentSource, std::string& error);

/// Sets the uniforms every world-space program shares: the camera as centre, scale and viewport.
class Camera;
void setCameraUniforms(GLuint program, const Camera& camera);

}  // namespace st::render
