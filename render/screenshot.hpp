#pragma once
/// \file Saving what the window shows as a PNG, and reading it back for clips.

#include <cstdint>
#include <string>
#include <vector>

namespace st::render {

/// Reads the current back buffer (width x height pixels, drawn but not yet swapped) into `rgb` as
/// width x height x 3 bytes, rows top first.
void readBackBuffer(int width, int height, std::vector<std::uint8_t>& rgb);

/// Reads the current back buffer (width x height pixels, drawn but not yet swapped) and writes it as an
/// RGB PNG; returns "" or what went wrong.
std::string saveBackBufferPng(const std::string& path, int width, int height);

}  // namespace st::render
