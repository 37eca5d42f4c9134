#include "render/gl.hpp"

namespace st::render::gl {

#define ST_GL_DEFINE(type, name) type name = nullptr;
ST_GL_FUNCTIONS(ST_GL_DEFINE)
#undef ST_GL_DEFINE

const char* load(ProcLookup lookup) {
  // SDL hands entry points back as void*; POSIX guarantees that such a pointer converts to a function
  // pointer.
#define ST_GL_LOAD(type, name)                       \
  name = reinterpret_cast<type>(lookup("gl" #name)); \
  if (name == nullptr) return "gl" #name;
  ST_GL_FUNCTIONS(ST_GL_LOAD)
#undef ST_GL_LOAD
  return "";
}

}  // namespace st::render::gl
