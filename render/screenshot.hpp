#pragma once
/// \file Saving what the window shows as a PNG.

#include <string>

namespace st::render {

/// Reads the current back buffer (width x height pixels, drawn but not yet swapped) and writes it as an
/// RGB PNG; returns "" or what went wrong.
std::string saveBackBufferPng(const std::string& path, int width, int height);

}  // namespace st::render
