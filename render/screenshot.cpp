#include "render/screenshot.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "render/gl.hpp"

// Static linkage keeps these definitions private to this file, whatever else links a copy of stb.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace st::render {

void readBackBuffer(int width, int height, std::vector<std::uint8_t>& rgb) {
  const std::size_t row = static_cast<std::size_t>(std::max(width, 0)) * 3;
  const std::size_t rows = static_cast<std::size_t>(std::max(height, 0));
  rgb.resize(row * rows);
  if (rgb.empty()) return;
  gl::PixelStorei(GL_PACK_ALIGNMENT, 1);
  gl::ReadBuffer(GL_BACK);
  gl::ReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
  // GL rows start at the bottom, images' at the top.
  for (std::size_t top = 0, bottom = rows - 1; top < bottom; ++top, --bottom)
    std::swap_ranges(rgb.begin() + std::ptrdiff_t(top * row), rgb.begin() + std::ptrdiff_t((top + 1) * row),
                     rgb.begin() + std::ptrdiff_t(bottom * row));
}

std::string saveBackBufferPng(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0) return "the window has no pixels";
  std::vector<std::uint8_t> pixels;
  readBackBuffer(width, height, pixels);
  if (stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3) == 0) {
    return "cannot write " + path;
  }
  return "";
}

}  // namespace st::render
