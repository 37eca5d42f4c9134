#include "render/screenshot.hpp"

#include <cstdint>
#include <vector>

#include "render/gl.hpp"

// Static linkage keeps these definitions private to this file, whatever else links a copy of stb.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace st::render {

std::string saveBackBufferPng(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0) return "the window has no pixels";
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  gl::PixelStorei(GL_PACK_ALIGNMENT, 1);
  gl::ReadBuffer(GL_BACK);
  gl::ReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // GL rows start at the bottom, PNG rows at the top.
  stbi_flip_vertically_on_write(1);
  if (stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3) == 0) {
    return "cannot write " + path;
  }
  return "";
}

}  // namespace st::render
