#pragma once
/// \file The OpenGL 3.3 core entry points the renderer uses, loaded at run time through a caller-supplied
/// lookup (SDL_GL_GetProcAddress), so no loader library is needed and nothing links against a GL version.

#include <GL/glcorearb.h>

/// Every entry point: its pointer type and its name without the `gl` prefix.
#define ST_GL_FUNCTIONS(X)                                     \
  X(PFNGLGETSTRINGPROC, GetString)                             \
  X(PFNGLGETINTEGERVPROC, GetIntegerv)                         \
  X(PFNGLGETFLOATVPROC, GetFloatv)                             \
  X(PFNGLVIEWPORTPROC, Viewport)                               \
  X(PFNGLSCISSORPROC, Scissor)                                 \
  X(PFNGLCLEARCOLORPROC, ClearColor)                           \
  X(PFNGLCLEARPROC, Clear)                                     \
  X(PFNGLENABLEPROC, Enable)                                   \
  X(PFNGLDISABLEPROC, Disable)                                 \
  X(PFNGLBLENDFUNCSEPARATEPROC, BlendFuncSeparate)             \
  X(PFNGLGENVERTEXARRAYSPROC, GenVertexArrays)                 \
  X(PFNGLBINDVERTEXARRAYPROC, BindVertexArray)                 \
  X(PFNGLDELETEVERTEXARRAYSPROC, DeleteVertexArrays)           \
  X(PFNGLGENBUFFERSPROC, GenBuffers)                           \
  X(PFNGLBINDBUFFERPROC, BindBuffer)                           \
  X(PFNGLBUFFERDATAPROC, BufferData)                           \
  X(PFNGLBUFFERSUBDATAPROC, BufferSubData)                     \
  X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)                     \
  X(PFNGLCREATESHADERPROC, CreateShader)                       \
  X(PFNGLSHADERSOURCEPROC, ShaderSource)                       \
  X(PFNGLCOMPILESHADERPROC, CompileShader)                     \
  X(PFNGLGETSHADERIVPROC, GetShaderiv)                         \
  X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)               \
  X(PFNGLDELETESHADERPROC, DeleteShader)                       \
  X(PFNGLCREATEPROGRAMPROC, CreateProgram)                     \
  X(PFNGLATTACHSHADERPROC, AttachShader)                       \
  X(PFNGLLINKPROGRAMPROC, LinkProgram)                         \
  X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                       \
  X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)             \
  X(PFNGLDELETEPROGRAMPROC, DeleteProgram)                     \
  X(PFNGLUSEPROGRAMPROC, UseProgram)                           \
  X(PFNGLGETUNIFORMLOCATIONPROC, GetUniformLocation)           \
  X(PFNGLUNIFORM1FPROC, Uniform1f)                             \
  X(PFNGLUNIFORM2FPROC, Uniform2f)                             \
  X(PFNGLUNIFORM4FPROC, Uniform4f)                             \
  X(PFNGLUNIFORM1IPROC, Uniform1i)                             \
  X(PFNGLENABLEVERTEXATTRIBARRAYPROC, EnableVertexAttribArray) \
  X(PFNGLVERTEXATTRIBPOINTERPROC, VertexAttribPointer)         \
  X(PFNGLVERTEXATTRIBDIVISORPROC, VertexAttribDivisor)         \
  X(PFNGLDRAWARRAYSPROC, DrawArrays)                           \
  X(PFNGLDRAWARRAYSINSTANCEDPROC, DrawArraysInstanced)         \
  X(PFNGLPIXELSTOREIPROC, PixelStorei)                         \
  X(PFNGLREADBUFFERPROC, ReadBuffer)                           \
  X(PFNGLREADPIXELSPROC, ReadPixels)                           \
  X(PFNGLFINISHPROC, Finish)                                   \
  X(PFNGLGENTEXTURESPROC, GenTextures)                         \
  X(PFNGLDELETETEXTURESPROC, DeleteTextures)                   \
  X(PFNGLBINDTEXTUREPROC, BindTexture)                         \
  X(PFNGLACTIVETEXTUREPROC, ActiveTexture)                     \
  X(PFNGLTEXBUFFERPROC, TexBuffer)                             \
  X(PFNGLTEXPARAMETERIPROC, TexParameteri)                     \
  X(PFNGLTEXIMAGE2DPROC, TexImage2D)                           \
  X(PFNGLTEXSUBIMAGE2DPROC, TexSubImage2D)

namespace st::render::gl {

#define ST_GL_DECLARE(type, name) extern type name;
ST_GL_FUNCTIONS(ST_GL_DECLARE)
#undef ST_GL_DECLARE

/// Looks up an entry point by its full name ("glClear"); returns nullptr when it is missing.
using ProcLookup = void* (*)(const char* name);

/// Loads every entry point with the current context; returns the name of the first missing one, or "".
const char* load(ProcLookup lookup);

}  // namespace st::render::gl
